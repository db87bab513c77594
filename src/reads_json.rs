//! `reads` in `check --format json`: per model, the values each load may
//! read — the sets behind the editor's inlay hints (`checker/src/reads.rs`),
//! from the exploration already done. Kept out of `check.rs` so the JSON
//! schema of one feature reads in one place.

use litmus_checker::reads::{self, ValueSet};
use litmus_checker::{Coverage, ModelOutcome};
use litmus_ir::{Program, StmtId};
use serde::{Deserialize, Serialize};

/// One load statement's values from one location (an array's cells merged,
/// as the hint merges them: `a[i]` is one load).
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ReadJson {
    pub thread: String,
    pub line: u32,
    pub column: u32,
    pub statement: String,
    /// The register it reads into; absent for `if x == 1` and the like.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub register: Option<String>,
    pub location: String,
    /// The values read, ascending (at most `reads::CAP`).
    pub values: Vec<i64>,
    /// `false` when there may be more values than listed: the search was
    /// cut or stopped, or more than `reads::CAP` were read (the hint's `≥`).
    pub complete: bool,
}

/// Every load's values under one model, in statement then location order.
pub fn reads_json(p: &Program, o: &ModelOutcome) -> Vec<ReadJson> {
    let mut out: Vec<ReadJson> = Vec::new();
    let mut last: Option<(StmtId, String, ValueSet)> = None;
    let flush = |last: Option<(StmtId, String, ValueSet)>, out: &mut Vec<ReadJson>| {
        if let Some((stmt, location, set)) = last {
            let s = &p.stmts[stmt as usize];
            out.push(ReadJson {
                thread: p.threads[s.thread as usize].name.clone(),
                line: s.line,
                column: s.col,
                statement: s.text.clone(),
                register: reads::register(p, stmt),
                location,
                complete: o.coverage == Coverage::Complete && !set.more,
                values: set.values,
            });
        }
    };
    // Cells come in order per statement, so an array's cells are adjacent.
    for (stmt, cell, set) in o.reads.iter() {
        let name = p.cell_name(cell);
        let location = name.split('[').next().unwrap_or(&name).to_string();
        match &mut last {
            Some((s, l, acc)) if *s == stmt && *l == location => acc.union(set),
            _ => flush(last.replace((stmt, location, set.clone())), &mut out),
        }
    }
    flush(last, &mut out);
    out
}
