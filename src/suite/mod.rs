//! Whole suites: folders and herd `@all` indexes, shards across machines,
//! a summary, reports that merge and compare.

pub mod batch;
pub mod diff;
pub mod expect;
pub mod merge;
pub mod reports;
pub mod shard;
pub mod tally;
pub mod walk;
