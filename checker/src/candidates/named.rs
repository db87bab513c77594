//! Violations named from whole candidates: an allowed candidate whose
//! `po | rf | co | fr` (over memory events) has a cycle is not SC. Each po
//! edge between consecutive events of one thread inside a cyclic strongly
//! connected component that none of the model's orders keeps (the
//! relations its `acyclic` axioms test) is a violation the candidate
//! exhibits: the model let the later access be seen before the earlier one. It is named by that
//! statement pair, as the monitors name a delayed store and the access that
//! overtakes it; its cycle runs through that edge, and its witness is the
//! first candidate that exhibits it, written as a log ([`super::build::witness`]).
//! Every candidate exhibiting it adds to its harm ([`Finals`]).

use super::build::Layout;
use super::thread::{Joint, Kind, Run};
use crate::machine::Event;
use crate::outcome::Witness;
use crate::trace::Edge;
use crate::violation::{CycleOrder, CycleStep, Violation};
use crate::witness::RelaxedWitness;
use litmus_cat::eval::{Execution, Order, Rel, Set};
use litmus_ir::StmtId;
use std::collections::BTreeMap;

/// What an allowed candidate came to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Fate {
    /// A thread failed at this statement.
    Failed(StmtId),
    /// A final state; does it satisfy the condition (if any)?
    Final(Option<bool>),
    /// Cut by the loop bound, stuck or filtered out: no final state.
    Other,
    /// The filter or the condition could not be evaluated on its final
    /// state: its harm is not known.
    Unjudged,
}

/// One violation and what the candidates exhibiting it came to.
pub(super) struct Named {
    pub v: Violation,
    pub occurrences: u64,
    pub fails: Option<(StmtId, Vec<Event>)>,
    pub holds: Option<Vec<Event>>,
    pub fails_condition: Option<Vec<Event>>,
    pub unjudged: bool,
    /// The model's orders on the witness's cycle ([`axioms`]).
    pub axioms: Vec<CycleOrder>,
}

/// Per order of the model that keeps some step of `cycle` (log events),
/// which steps it keeps: an edge `a → b` is kept when the order relates
/// some cat event of `a` to some of `b`.
fn axioms(cycle: &[(u32, Edge)], at: &[u32], orders: &[Order]) -> Vec<CycleOrder> {
    let k = cycle.len();
    let of = |i: u32| (0..at.len()).filter(move |&e| at[e] == i);
    orders
        .iter()
        .map(|o| {
            let kept: Vec<bool> = (0..k)
                .map(|j| {
                    let (a, b) = (cycle[j].0, cycle[(j + 1) % k].0);
                    of(a).any(|x| of(b).any(|y| o.rel.0[x] >> y & 1 == 1))
                })
                .collect();
            CycleOrder { name: o.name.clone(), closed: o.closed, kept }
        })
        .filter(|c| c.kept.iter().any(|&b| b))
        .collect()
}

/// A candidate's SC relations over its memory events.
pub(super) struct Sc {
    pub po: Rel,
    pub rf: Rel,
    pub co: Rel,
    pub fr: Rel,
    /// Their union, and its transitive closure.
    pub hb: Rel,
    pub reach: Rel,
}

impl Sc {
    pub fn of(n: usize, x: &Execution) -> Sc {
        let set = |k: &str| x.sets.get(k).copied().unwrap_or(0);
        let mem: Set = set("R") | set("W");
        let empty = Rel::empty(n);
        let restrict = |k: &str| {
            let r = x.rels.get(k).unwrap_or(&empty);
            let mut out = Rel::empty(n);
            for e in (0..n).filter(|&e| mem >> e & 1 == 1) {
                out.0[e] = r.0[e] & mem;
            }
            out
        };
        let (po, rf, co) = (restrict("po"), restrict("rf"), restrict("co"));
        // fr: each read to the writes co-after the one it read from, but
        // itself (an update that is one event: herd's `make_fr`).
        let mut fr = Rel::empty(n);
        for w in 0..n {
            let mut readers = rf.0[w];
            while readers != 0 {
                let r = readers.trailing_zeros() as usize;
                readers &= readers - 1;
                fr.0[r] |= co.0[w] & !(1 << r);
            }
        }
        let mut hb = Rel::empty(n);
        for e in 0..n {
            hb.0[e] = po.0[e] | rf.0[e] | co.0[e] | fr.0[e];
        }
        let reach = hb.closure();
        Sc { po, rf, co, fr, hb, reach }
    }

    pub fn cyclic(&self) -> bool {
        self.reach.0.iter().enumerate().any(|(e, r)| r >> e & 1 == 1)
    }

    /// The edge `a → b`, by the first relation that has it.
    pub fn edge(&self, a: usize, b: usize) -> Option<Edge> {
        let has = |r: &Rel| r.0[a] >> b & 1 == 1;
        [(Edge::Po, &self.po), (Edge::Rf, &self.rf), (Edge::Co, &self.co), (Edge::Fr, &self.fr)]
            .into_iter()
            .find(|(_, r)| has(r))
            .map(|(e, _)| e)
    }

    fn same_component(&self, a: usize, b: usize) -> bool {
        self.reach.0[a] >> b & 1 == 1 && self.reach.0[b] >> a & 1 == 1
    }

    /// The po edges a violation is named by: per thread, each event of a
    /// cyclic component to its thread's next event in that component (not
    /// of the same instruction: those `po` does not order), but those one
    /// of the model's orders keeps (`orders`: its `acyclic` checks'
    /// relations closed, its `irreflexive` ones'): the model let the others go. Where
    /// the orders keep every one (a model whose acyclic axioms hold `po`
    /// whole, as C11's `sb | rf`), every one.
    pub fn relaxed_edges(&self, runs: &[&Run], lay: &Layout, orders: &[Order]) -> Vec<(usize, usize)> {
        let all = self.po_edges(runs, lay);
        let kept = |&(a, b): &(usize, usize)| orders.iter().any(|o| o.rel.0[a] >> b & 1 == 1);
        let relaxed: Vec<(usize, usize)> = all.iter().copied().filter(|e| !kept(e)).collect();
        if relaxed.is_empty() {
            all
        } else {
            relaxed
        }
    }

    fn po_edges(&self, runs: &[&Run], lay: &Layout) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (t, r) in runs.iter().enumerate() {
            // This thread's memory events on some cycle, in program order,
            // with the instruction each belongs to.
            let mut on: Vec<(usize, usize)> = Vec::new();
            let mut instr = 0usize;
            for (i, e) in r.events.iter().enumerate() {
                if i > 0 && e.joint == Joint::No {
                    instr += 1;
                }
                if matches!(e.kind, Kind::Fence(_)) {
                    continue;
                }
                let (a, b) = lay.of[t][i];
                for c in a..=b {
                    if self.reach.0[c] >> c & 1 == 1 {
                        on.push((c, instr));
                    }
                }
            }
            for (k, &(a, ia)) in on.iter().enumerate() {
                let next = on[k + 1..].iter().find(|&&(b, ib)| ib != ia && self.same_component(a, b));
                if let Some(&(b, _)) = next {
                    if self.po.0[a] >> b & 1 == 1 {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    /// A shortest cycle through the edge `a → b`: `a`, then a shortest
    /// path from `b` back to `a`, as (event, edge leaving it).
    pub fn cycle_through(&self, a: usize, b: usize) -> Vec<(usize, Edge)> {
        let n = self.hb.0.len();
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::from([b]);
        prev[b] = b;
        while let Some(v) = queue.pop_front() {
            if v == a {
                break;
            }
            let mut succ = self.hb.0[v];
            while succ != 0 {
                let w = succ.trailing_zeros() as usize;
                succ &= succ - 1;
                if prev[w] == usize::MAX {
                    prev[w] = v;
                    queue.push_back(w);
                }
            }
        }
        let mut path = vec![a];
        let mut cur = a;
        while cur != b && prev[cur] != usize::MAX {
            cur = prev[cur];
            path.push(cur);
        }
        path.reverse(); // b … a
        let mut cycle = vec![(a, Edge::Po)];
        for w in path.windows(2) {
            cycle.push((w[0], self.edge(w[0], w[1]).unwrap_or(Edge::Po)));
        }
        cycle
    }
}

/// Per cat event of the runs, its index in the candidate's log (threads'
/// events in order, as [`super::build::witness`] writes them).
pub(super) fn log_index(runs: &[&Run], lay: &Layout) -> Vec<u32> {
    let mut at = vec![u32::MAX; lay.n];
    let mut next = 0u32;
    for (t, r) in runs.iter().enumerate() {
        for i in 0..r.events.len() {
            let (a, b) = lay.of[t][i];
            at[a..=b].fill(next);
            next += 1;
        }
    }
    at
}

/// A cat-event cycle as log events: an atomic's two events are one, so
/// steps inside it go (the step leaving it is kept).
pub(super) fn on_log(cycle: &[(usize, Edge)], at: &[u32]) -> Vec<(u32, Edge)> {
    let mut out: Vec<(u32, Edge)> = Vec::with_capacity(cycle.len());
    for &(e, edge) in cycle {
        match out.last_mut() {
            Some(last) if last.0 == at[e] => last.1 = edge,
            _ => out.push((at[e], edge)),
        }
    }
    while out.len() > 1 && out.last().map(|l| l.0) == out.first().map(|f| f.0) {
        out.pop();
    }
    out
}

/// Record one allowed candidate that is not SC: a violation per relaxed
/// edge (its first candidate is its witness), and its fate for each.
#[allow(clippy::too_many_arguments)]
pub(super) fn record(
    named: &mut BTreeMap<(StmtId, StmtId), Named>,
    unnamed: &mut std::collections::BTreeSet<(StmtId, StmtId)>,
    model: crate::machine::Model,
    runs: &[&Run],
    lay: &Layout,
    sc: &Sc,
    orders: &[Order],
    fate: Fate,
    witness: impl Fn() -> Witness,
) {
    let at = log_index(runs, lay);
    let mut stmt = vec![StmtId::default(); lay.n];
    for (t, r) in runs.iter().enumerate() {
        for (i, e) in r.events.iter().enumerate() {
            let (a, b) = lay.of[t][i];
            stmt[a..=b].fill(e.stmt);
        }
    }
    let edges = sc.relaxed_edges(runs, lay, orders);
    if edges.is_empty() {
        // A cycle with no po edge to name it by cannot be (rf, co and fr
        // alone stay on one cell, in coherence order); were it to, the
        // answer stays unknown, never robust.
        debug_assert!(false, "an SC cycle without a po edge");
        let e = (0..lay.n).find(|&e| sc.reach.0[e] >> e & 1 == 1).unwrap_or(0);
        unnamed.insert((stmt[e], stmt[e]));
        return;
    }
    let mut w: Option<Witness> = None;
    let log = |w: &mut Option<Witness>| w.get_or_insert_with(&witness).events.clone();
    for (a, b) in edges {
        let key = (stmt[a], stmt[b]);
        if let std::collections::btree_map::Entry::Vacant(slot) = named.entry(key) {
            let cycle = sc.cycle_through(a, b);
            let events = log(&mut w);
            let schedule = w.as_ref().expect("just made").schedule.clone();
            let steps = on_log(&cycle, &at);
            let v = Violation {
                model,
                store_stmt: key.0,
                access_stmt: key.1,
                cycle: steps
                    .iter()
                    .map(|&(ev, edge)| CycleStep {
                        thread: events[ev as usize].thread,
                        stmt: events[ev as usize].stmt,
                        edge,
                    })
                    .collect(),
                witness: RelaxedWitness {
                    schedule,
                    before_drain: events.len(),
                    events,
                    state_after_access: None,
                    cycle: steps,
                },
                sc_events: Vec::new(),
                harm: crate::certainty::Answer::Unknown(crate::certainty::Why::Pending),
                occurrences: 0,
                candidates: Vec::new(),
                fence: Vec::new(),
                attack: None,
                finals: None,
            };
            let axioms = axioms(&v.witness.cycle, &at, orders);
            slot.insert(Named {
                v,
                occurrences: 0,
                fails: None,
                holds: None,
                fails_condition: None,
                unjudged: false,
                axioms,
            });
        }
        let n = named.get_mut(&key).expect("just added");
        n.occurrences += 1;
        match fate {
            Fate::Failed(s) if n.fails.is_none() => n.fails = Some((s, log(&mut w))),
            Fate::Final(Some(true)) if n.holds.is_none() => n.holds = Some(log(&mut w)),
            Fate::Final(Some(false)) if n.fails_condition.is_none() => n.fails_condition = Some(log(&mut w)),
            Fate::Unjudged => n.unjudged = true,
            _ => {}
        }
    }
}
