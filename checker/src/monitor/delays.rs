//! Which stores a monitor must watch. In an SC execution, a store `s` of
//! thread `q` happens before another thread's event only through an event
//! of `q` from `s` on; if that event is `s` itself, a later store of `q`
//! (TSO), a later access to `s`'s cell, a drain, or is ordered after one,
//! BSS has forced `s` to commit by the time its check looks at it (what
//! reads, overwrites or follows those events forces `q`'s stores up to
//! them). So `s` can be the delayed store of a violation only if a later
//! access of `q` to another cell, one the model lets overtake a store, can
//! run before anything drains `s`: a path in `q`'s control-flow graph from
//! `s` to such an access with no draining fence or atomic on it
//! (Shasha–Snir's delays, one thread at a time). Every other store is
//! committed whenever it would be checked, and the monitor need not track
//! it (a fenced program's stores, mostly).

use crate::model::{Access, Model};
use litmus_ir::{Addr, Instr, Program, StmtId};
use std::collections::VecDeque;

/// Steps of the search over all stores of a program, past which every
/// store left is taken as delayable (the answer stays sound, only the
/// saving is lost).
const BUDGET: usize = 2_000_000;

/// Per statement: may a store of it be overtaken under `model`? Fences of
/// statements from `measured` on are taken as absent (they are measured:
/// each acts in some variants only).
pub fn delayable(prog: &Program, model: Model, measured: Option<StmtId>) -> Vec<bool> {
    let mut out = vec![false; prog.stmts.len()];
    if !model.buffered() {
        return out;
    }
    let mut budget = BUDGET;
    let mut seen = Vec::new();
    let mut queue = VecDeque::new();
    for th in &prog.threads {
        let code = &th.code;
        for (pc, ins) in code.iter().enumerate() {
            let Instr::Store { addr, stmt, .. } = *ins else { continue };
            if out[stmt as usize] {
                continue;
            }
            if budget == 0 {
                out[stmt as usize] = true;
                continue;
            }
            seen.clear();
            seen.resize(code.len(), false);
            queue.clear();
            queue.push_back(pc);
            let found = 'search: loop {
                let Some(at) = queue.pop_front() else { break false };
                for next in code[at].successors(at).filter(|&n| n < code.len()) {
                    if seen[next] {
                        continue;
                    }
                    seen[next] = true;
                    budget = budget.saturating_sub(1);
                    if budget == 0 {
                        break 'search true;
                    }
                    match overtakes(model, addr, &code[next], measured) {
                        Step::Overtakes => break 'search true,
                        Step::Drains => continue,
                        Step::Passes => queue.push_back(next),
                    }
                }
            };
            out[stmt as usize] = found;
        }
    }
    out
}

enum Step {
    /// A later access that may run while the store waits.
    Overtakes,
    /// The store is committed past it.
    Drains,
    /// Neither: the search goes on past it.
    Passes,
}

/// What instruction `ins`, later in the thread, does to a buffered store
/// to `a`.
fn overtakes(model: Model, a: Addr, ins: &Instr, measured: Option<StmtId>) -> Step {
    // Only a fixed cell is known to be the same at run time.
    let same = |b: Addr| matches!((a, b), (Addr::Fixed(x), Addr::Fixed(y)) if x == y);
    let access = |b: Addr, kind: Access| {
        if !same(b) && model.reorders(Access::Write, kind) {
            Step::Overtakes
        } else {
            Step::Passes
        }
    };
    match *ins {
        Instr::Fence { kind, stmt } if model.drains(kind) && measured.is_none_or(|f| stmt < f) => Step::Drains,
        Instr::Rmw { addr, labels, .. } => {
            if model.atomic_drains_all(labels) || same(addr) {
                Step::Drains
            } else {
                access(addr, Access::Update)
            }
        }
        Instr::Load { addr, .. } => access(addr, Access::Read),
        Instr::Store { addr, .. } => access(addr, Access::Write),
        _ => Step::Passes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stores(src: &str, model: Model) -> Vec<String> {
        let prog = litmus_dsl::analyze(src).program.expect("parses");
        let d = delayable(&prog, model, None);
        let mut out = Vec::new();
        for th in &prog.threads {
            for ins in &th.code {
                if let Instr::Store { stmt, .. } = *ins {
                    if d[stmt as usize] {
                        out.push(prog.stmts[stmt as usize].text.clone());
                    }
                }
            }
        }
        out
    }

    const FENCED: &str = "litmus F
shared x = 0; shared y = 0; shared z = 0;
thread P0 {
  x = 1;
  fence;
  let r = y;
  y = 2;
  z = 3;
  fence;
  let k = 0;
  while (k < 2) { z = 4; let u = z; k = k + 1; }
}
thread P1 { y = 1; let s = x; }";

    #[test]
    fn a_fence_or_the_same_cell_keeps_a_store_from_being_overtaken() {
        // TSO: only a later load of another cell overtakes; `y = 2` is
        // followed by a store, then a fence; `z = 4` by a load of its own
        // cell only.
        assert_eq!(stores(FENCED, Model::Tso), ["y = 1"]);
        // PSO: a store to another cell overtakes too.
        assert_eq!(stores(FENCED, Model::Pso), ["y = 2", "y = 1"]);
        assert!(stores(FENCED, Model::Sc).is_empty());
    }

    #[test]
    fn the_search_follows_loops_and_awaits_back() {
        // `x = 0` at the end of the body reaches the load of `y` at the
        // loop's next iteration; `x = 2` reaches the await's load.
        let src = "litmus L
shared x = 0; shared y = 0;
thread P0 {
  let k = 0;
  while (k < 2) { let r = y; x = 0; k = k + 1; }
  x = 2;
  await (y == 1);
}
thread P1 { y = 1; fence; }";
        assert_eq!(stores(src, Model::Tso), ["x = 0", "x = 2"]);
    }

    #[test]
    fn an_atomic_drains_under_tso_and_only_its_cell_under_pso() {
        let src = "litmus A
shared x = 0; shared y = 0;
thread P0 { x = 1; fetch_add(y, 1); let r = y; }
thread P1 { y = 1; fetch_add(y, 1); let r = x; }";
        assert!(stores(src, Model::Tso).is_empty());
        assert_eq!(stores(src, Model::Pso), ["x = 1"]);
    }
}
