//! The checker: runs the IR under SC, TSO and PSO.
pub mod bitset;
pub mod dpor;
pub mod machine;
pub mod outcome;
pub mod reference;
