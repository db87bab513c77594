//! Robustness under a model given as data: every graph consistent under
//! the model's axioms is explored, and each one that is not SC-consistent
//! (`po ∪ rf ∪ co ∪ fr` cyclic) is a violation.
//!
//! Names and witnesses come from the graph. Where the built-in machine
//! that names the model's violations ([`crate::catalog`]: TSO for a model
//! that keeps stores in order, else PSO) can follow the graph, it is named
//! as that machine's monitor names it, with the monitor's witness
//! ([`super::robust::Violations`]); otherwise by the po edges of its cycle
//! that it did not keep, the graph itself written as a log
//! ([`super::encode`], [`crate::explicit::Namer`]). Either way the witness
//! is then replayed under the model's own axioms ([`super::axioms::allows`]):
//! a witness the model does not allow is never reported (its pair stays
//! unconfirmed, and robustness unknown).

use super::axioms::Judge;
use super::encode::encode;
use super::explore::Search;
use super::fenced::Kept;
use super::findings::Findings;
use super::graph::Graph;
use super::robust::Violations;
use crate::certainty::Coverage;
use crate::dpor::Control;
use crate::explicit::Namer;
use crate::machine::{EventKind, Machine, Model};
use crate::options::Options;
use crate::violation::Robustness;
use litmus_ir::Program;

/// Robustness of `prog` under `model` (axiomatic), from its graphs.
pub fn robustness(prog: &Program, model: Model, opts: &Options) -> Robustness {
    robustness_kept(prog, model, opts).0
}

/// [`robustness`], and the violating graphs kept for re-judging with
/// fences ([`Kept`]).
pub fn robustness_kept(prog: &Program, model: Model, opts: &Options) -> (Robustness, Kept) {
    let Model::Cat(id) = model else { unreachable!("an axiomatic model is a cat model") };
    let naming = crate::catalog::get(id).naming;
    let sc = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let mut named = Violations::new(prog, &sc, naming, opts);
    let mut namer = Namer::new(prog, model);
    let mut graphs = Kept::new(prog, model, opts.loop_bound, opts.buffer_bound);
    // The model's outcome from the same graphs (the outcome step takes it
    // where no harm is left to settle on them).
    let mut found = Findings::new(model);
    let start = std::time::Instant::now();
    // Asked of the empty graph: the shape (which sets and relations a
    // graph gives) is every graph's.
    let monotone = Judge::new(id).checks_monotone(&Graph::new(&sc, &mut Vec::new())).unwrap_or(false);
    let stats = {
        // Every graph, however it ended (a pruned or cut one's events
        // happened too), as the built-in graph decision takes them.
        let mut search = Search::new(&sc, model, opts, |g, kind, checker, path| {
            // SC is the interpreter of a model given as data.
            found.graph(prog, &sc, opts, g, kind, checker, path);
            let pairs = if checker.consistent(g, naming) {
                // None: SC-consistent, no violation.
                let Some(pairs) = named.graph(g, checker) else { return Control::Continue };
                pairs
            } else if checker.consistent(g, Model::Sc) {
                return Control::Continue;
            } else if let Some(l) = encode(g, &sc) {
                // The witness is the whole graph: its state is the end's.
                namer.execution(opts, &l.events, &l.schedule, |_| (l.state.clone(), l.events.len()))
            } else {
                Vec::new()
            };
            graphs.push(g, kind, pairs);
            Control::Continue
        });
        search.run();
        search.stats
    };
    graphs.outcome = Some(super::outcome(prog, model, opts, vec![found], stats.clone(), start));
    let coverage = Coverage::of_stats(&stats);
    graphs.finish(coverage, monotone);
    let mut r = named.finish(coverage);
    let other = namer.finish(crate::monitor::MonitorKind::Explicit, coverage);
    for v in other.violations {
        if !r.violations.iter().any(|w| w.key() == v.key()) {
            r.violations.push(v);
        }
    }
    r.unconfirmed.extend(other.unconfirmed);
    r.model = model;
    // Replay each witness under the model's axioms.
    let mut kept = Vec::new();
    for mut v in std::mem::take(&mut r.violations) {
        v.model = model;
        let sc_log = !v.witness.events.iter().any(|e| e.kind == EventKind::Commit);
        match super::axioms::allows(id, &v.witness.events, sc_log) {
            Ok(true) => kept.push(v),
            _ => r.unconfirmed.push(v.key()),
        }
    }
    kept.sort_by_key(|v| v.key());
    r.violations = kept;
    r.unconfirmed.sort();
    r.unconfirmed.dedup();
    r.unconfirmed.retain(|k| !r.violations.iter().any(|v| v.key() == *k));
    (r, graphs)
}
