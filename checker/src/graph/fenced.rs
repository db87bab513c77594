//! A model given as data, re-judged with fences: the program's violating
//! graphs (consistent under the model, not SC), each with a fence set's
//! fences inserted, judged again — what a re-check of the fenced program
//! would find, without exploring it (the BSS monitors' measurement,
//! [`crate::measure`], for models with no machine).
//!
//! A fence changes no value, so a graph of the fenced program is a graph of
//! the program with fence events added: its threads replayed by the fenced
//! program. A violating graph still consistent with the fences is a
//! complete graph of the fenced program, and a violation: *not robust*
//! needs nothing more. *Robust* needs the search to have finished and kept
//! every violating graph, and every check of the model to be monotone
//! ([`litmus_cat::monotone`]): a fence event is an event added without
//! changing any relation among the others, so a graph the model forbids
//! stays forbidden with fences, and the fenced program has no violating
//! graph beyond these.

use super::axioms::Judge;
use super::consistency::Checker;
use super::findings::Findings;
use super::graph::{fence_bit, Graph};
use crate::catalog::CatId;
use crate::certainty::Coverage;
use crate::dpor::{ExecKind, Execution};
use crate::machine::{Machine, Model};
use crate::violation::{insertions, FencePoint};
use litmus_ir::{Program, StmtId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Violating graphs kept past this many: robustness with fences is no
/// longer answered here (each re-check explores).
pub const MAX_KEPT: usize = 20_000;

/// Statement pairs (delayed store, overtaking access), as violations are keyed.
type Pairs = Vec<(StmtId, StmtId)>;

/// Per pair asked: removed by the fences.
type Removed = Vec<bool>;

/// A fence set and the pairs asked of it.
type Asked = (Vec<FencePoint>, Pairs);

/// A violating graph and the statement pairs it was named by.
struct Violating {
    graph: Graph,
    kind: ExecKind,
    pairs: Vec<(StmtId, StmtId)>,
}

/// The violating graphs of one program under one model given as data.
pub struct Kept {
    pub model: Model,
    id: CatId,
    prog: Program,
    loop_bound: u32,
    buffer_bound: u32,
    graphs: Vec<Violating>,
    /// The search finished, kept them all, and the model's checks are
    /// monotone: "no graph stays consistent" means robust.
    exact: bool,
    /// No violating graph was dropped (past [`MAX_KEPT`]).
    all: bool,
    /// The search's coverage (what a robust answer here earns).
    pub coverage: Coverage,
    /// The model's outcome, from the same search.
    pub outcome: Option<crate::outcome::ModelOutcome>,
    /// Per fence set and pairs: [`Kept::removed`] (`None`: not judged, a
    /// graph too big or the model failing).
    removed: Mutex<HashMap<Asked, Option<Removed>>>,
    /// Per fence: [`Kept::points`].
    points: Mutex<HashMap<FencePoint, Arc<Points>>>,
    /// Per fence set: [`Kept::robust`].
    robust: Mutex<HashMap<Vec<FencePoint>, Option<bool>>>,
}

/// A fence set as a key: sorted, without repeats.
fn set(at: &[FencePoint]) -> Vec<FencePoint> {
    let mut key = at.to_vec();
    key.sort();
    key.dedup();
    key
}

impl Kept {
    pub fn new(prog: &Program, model: Model, loop_bound: u32, buffer_bound: u32) -> Kept {
        let Model::Cat(id) = model else { unreachable!("graphs are re-judged for models given as data") };
        Kept {
            model,
            id,
            prog: prog.clone(),
            loop_bound,
            buffer_bound,
            graphs: Vec::new(),
            exact: true,
            all: true,
            coverage: Coverage::Complete,
            outcome: None,
            removed: Mutex::new(HashMap::new()),
            robust: Mutex::new(HashMap::new()),
            points: Mutex::new(HashMap::new()),
        }
    }

    /// A violating graph of the search, named by `pairs` (the program's
    /// statements: a fence adds statements after them).
    pub fn push(&mut self, g: &Graph, kind: ExecKind, pairs: Vec<(StmtId, StmtId)>) {
        if self.graphs.len() >= MAX_KEPT {
            self.exact = false;
            self.all = false;
            return;
        }
        self.graphs.push(Violating { graph: g.clone(), kind, pairs });
    }

    /// Was every violating graph of the search kept?
    pub fn all(&self) -> bool {
        self.all
    }

    /// Show `o` the violating graphs, in the search's order, as the
    /// outcome search would have (linearized, where it wants them): the
    /// only graphs that can show a violation.
    pub fn observe(&self, o: &mut dyn super::Observer) {
        let sc = Machine::new(&self.prog, Model::Sc, self.loop_bound, self.buffer_bound);
        let found = Findings::new(self.model);
        let mut checker = Checker::new();
        for v in &self.graphs {
            if !o.wants(v.kind, &v.graph.st) {
                continue;
            }
            if let Some(l) = found.linear(&v.graph, &sc, &mut checker) {
                o.observe(&Execution {
                    kind: v.kind,
                    events: &l.events,
                    state: &l.state,
                    schedule: &l.schedule,
                    fresh: 0,
                });
            }
        }
    }

    /// The search is over: its coverage, and whether the model's checks
    /// are all monotone (asked of a graph of the program).
    pub fn finish(&mut self, coverage: Coverage, monotone: bool) {
        self.coverage = coverage;
        self.exact &= coverage.finished() && monotone;
    }

    /// Are its answers exact (robust included)?
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Is the program with fences `at` robust? `Some(false)`: a violating
    /// graph stays consistent with them (always sound); `Some(true)`: none
    /// does, and the answer is exact (see the module doc); `None`: not
    /// known here.
    pub fn robust(&self, at: &[FencePoint]) -> Option<bool> {
        let key = set(at);
        if let Some(&r) = self.robust.lock().expect("no judging panics holding it").get(&key) {
            return r;
        }
        let r = match self.stays(&key) {
            Some(true) => Some(false),
            Some(false) => self.exact.then_some(true),
            None => None,
        };
        self.robust.lock().expect("no judging panics holding it").insert(key, r);
        r
    }

    /// Which of `pairs` no violating graph names once `at` is inserted
    /// (per pair, in order), if every graph that could tell was judged.
    /// Only an exact search answers: the fence search reads these as what
    /// a re-check would show removed.
    pub fn removed(&self, at: &[FencePoint], pairs: &[(StmtId, StmtId)]) -> Option<Vec<bool>> {
        if !self.exact {
            return None;
        }
        let key = (set(at), pairs.to_vec());
        if let Some(r) = self.removed.lock().expect("no judging panics holding it").get(&key) {
            return r.clone();
        }
        // A graph is judged only while one of the pairs it names may still
        // be removed: once each pair has a graph that stays, the answer is in.
        let removed = std::cell::RefCell::new(vec![true; pairs.len()]);
        let r = self
            .judge(
                &key.0,
                |v| v.pairs.iter().any(|p| pairs.iter().zip(removed.borrow().iter()).any(|(q, &r)| r && p == q)),
                |v| {
                    let mut removed = removed.borrow_mut();
                    for (q, r) in pairs.iter().zip(removed.iter_mut()) {
                        *r &= !v.pairs.contains(q);
                    }
                    removed.iter().any(|&r| r)
                },
            )
            .map(|()| removed.into_inner());
        self.removed.lock().expect("no judging panics holding it").insert(key, r.clone());
        r
    }

    /// Does some violating graph stay consistent with `at`? `None` if one
    /// could not be judged.
    fn stays(&self, at: &[FencePoint]) -> Option<bool> {
        let mut stays = false;
        self.judge(
            at,
            |_| true,
            |_| {
                stays = true;
                false
            },
        )?;
        Some(stays)
    }

    /// Judge with `at` inserted each violating graph that `ask` picks, and
    /// hand those that stay consistent to `stayed`, until it says stop
    /// (false). `None` if a graph could not be judged.
    fn judge(
        &self,
        at: &[FencePoint],
        mut ask: impl FnMut(&Violating) -> bool,
        mut stayed: impl FnMut(&Violating) -> bool,
    ) -> Option<()> {
        let mut judge = Judge::new(self.id);
        let mut failed = false;
        // Judged: `g`, unless no fence landed between its events (then the
        // graph itself, consistent). Whether to go on.
        let mut on = |v: &Violating, g: &Graph, same: bool| match same
            || judge.consistent(g, true).unwrap_or_else(|_| {
                failed = true;
                false
            }) {
            _ if failed => false,
            true => stayed(v),
            false => true,
        };
        // Fences at distinct places add up: each lands its bit on the events
        // it comes right before, found once per fence (the minimality
        // proof asks thousands of sets of the same few fences).
        // (One fence alone is replayed: only the graphs asked.)
        let distinct = at.len() > 1 && at.windows(2).all(|w| w[0].spot() != w[1].spot());
        let points: Option<Vec<Arc<Points>>> =
            if distinct { at.iter().map(|&f| self.points(f)).collect() } else { None };
        match points {
            Some(points) => {
                let mut g = self.graphs.first()?.graph.clone();
                for (i, v) in self.graphs.iter().enumerate() {
                    if !ask(v) {
                        continue;
                    }
                    g.copy_from(&v.graph);
                    let mut same = true;
                    for (f, p) in at.iter().zip(&points) {
                        let bit = fence_bit(f.kind);
                        for &(t, k) in &p[i] {
                            same = false;
                            g.threads[t as usize][k as usize].fences |= bit;
                        }
                    }
                    if !on(v, &g, same) {
                        break;
                    }
                }
            }
            None => self.replayed(at, |_, v, g, same| on(v, g, same), ask),
        }
        (!failed).then_some(())
    }

    /// Each violating graph that `ask` picks, replayed by the program with
    /// `at` inserted, handed to `each` (index, graph, replayed, whether no
    /// fence bit changed) until it says stop.
    fn replayed(
        &self,
        at: &[FencePoint],
        mut each: impl FnMut(usize, &Violating, &Graph, bool) -> bool,
        mut ask: impl FnMut(&Violating) -> bool,
    ) {
        let fenced = litmus_dsl::fence_ir::insert_fences(&self.prog, &insertions(at));
        let sc = Machine::new(&fenced, Model::Sc, self.loop_bound, self.buffer_bound);
        let mut log = Vec::new();
        let init = Graph::new(&sc, &mut log);
        let redo = vec![true; init.threads.len()];
        let mut g = init.clone();
        for (i, v) in self.graphs.iter().enumerate() {
            if !ask(v) {
                continue;
            }
            g.copy_from(&v.graph);
            g.replay_threads(&sc, &init, &redo, &mut log);
            let same =
                g.threads.iter().flatten().zip(v.graph.threads.iter().flatten()).all(|(a, b)| a.fences == b.fences);
            if !each(i, v, &g, same) {
                break;
            }
        }
    }

    /// Per violating graph, the events fence `f` alone lands its bit on
    /// (where its kind's bit was not there already).
    fn points(&self, f: FencePoint) -> Option<Arc<Points>> {
        if let Some(p) = self.points.lock().expect("no judging panics holding it").get(&f) {
            return Some(p.clone());
        }
        let bit = fence_bit(f.kind);
        let mut points: Points = vec![Vec::new(); self.graphs.len()];
        self.replayed(
            &[f],
            |i, v, g, _| {
                for (t, (a, b)) in g.threads.iter().zip(&v.graph.threads).enumerate() {
                    for (k, (x, y)) in a.iter().zip(b).enumerate() {
                        if x.fences & bit != 0 && y.fences & bit == 0 {
                            points[i].push((t as u16, k as u32));
                        }
                    }
                }
                true
            },
            |_| true,
        );
        let p = Arc::new(points);
        self.points.lock().expect("no judging panics holding it").insert(f, p.clone());
        Some(p)
    }
}

/// Per violating graph, the events (thread, index) a fence lands on.
type Points = Vec<Vec<(u16, u32)>>;

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("model", &self.model)
            .field("graphs", &self.graphs.len())
            .field("exact", &self.exact)
            .finish()
    }
}
