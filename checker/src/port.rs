//! Porting a program from one model to another: code written (and checked)
//! for `from` runs under `to`. Two questions: is every execution `to`
//! allows one `from` allows — robustness under `to` against `from` instead
//! of SC ([`crate::candidates::against`], on whole candidates, so both
//! models as data) — and which final states each allows that the other
//! does not (each model's own outcome, by whichever engine explores it).
//! An AArch64 test is robust against TSO when it keeps x86's behaviour on
//! ARM; a C11 program is robust under RC11 against SC when its atomics
//! behave as if sequentially consistent.

use crate::certainty::{Answer, Why};
use crate::machine::Model;
use crate::options::Options;
use crate::outcome::{ModelOutcome, Witness};
use litmus_ir::Program;

/// What porting a program from `from` to `to` changes.
#[derive(Clone, Debug)]
pub struct Port {
    pub from: Model,
    pub to: Model,
    /// Is every candidate `to` allows allowed by `from`? Proved, cut
    /// short (unknown, saying why), or disproved by `witness`.
    pub executions: Answer<bool>,
    /// A candidate execution `to` allows and `from` forbids, as a log.
    pub witness: Option<Witness>,
    pub from_outcome: ModelOutcome,
    pub to_outcome: ModelOutcome,
    /// Final states of `to_outcome` (indices) that `from` never reaches.
    pub gained: Vec<usize>,
    /// Final states of `from_outcome` (indices) that `to` never reaches.
    pub lost: Vec<usize>,
}

impl Port {
    /// Are the two outcome sets known in full (so `gained` and `lost` are
    /// all there is, not what was found before a bound)?
    pub fn outcomes_complete(&self) -> bool {
        matches!(self.from_outcome.coverage, crate::certainty::Coverage::Complete)
            && matches!(self.to_outcome.coverage, crate::certainty::Coverage::Complete)
    }
}

pub fn port(prog: &Program, from: Model, to: Model, opts: &Options) -> Port {
    let from_outcome = crate::explore::explore(prog, from, opts);
    let to_outcome = crate::explore::explore(prog, to, opts);
    let (executions, witness) =
        if crate::catalog::definition(from).is_none() || crate::catalog::definition(to).is_none() {
            (Answer::Unknown(Why::NoDefinition), None)
        } else {
            let (answer, witness, _) = crate::candidates::against(prog, to, from, opts);
            (answer, witness)
        };
    let has = |o: &ModelOutcome, values: &[i64]| o.states.iter().any(|s| s.values == values);
    let gained = (0..to_outcome.states.len()).filter(|&i| !has(&from_outcome, &to_outcome.states[i].values)).collect();
    let lost = (0..from_outcome.states.len()).filter(|&i| !has(&to_outcome, &from_outcome.states[i].values)).collect();
    Port { from, to, executions, witness, from_outcome, to_outcome, gained, lost }
}
