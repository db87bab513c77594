//! Robustness from execution graphs: a program is robust under TSO or PSO
//! iff every graph consistent under the model is SC-consistent (its
//! `po ∪ rf ∪ co ∪ fr` acyclic; Shasha–Snir). The model's graphs are what
//! its outcome search explores anyway, so the cost per graph is one
//! acyclicity test; only a graph that fails it costs more.
//!
//! Such a graph is named as the BSS monitor ([`crate::monitor::Bss`])
//! names the SC executions that lead to it, so that both decisions report
//! the same statement pairs. The monitor signals at an access `c` of a
//! thread `p` when, in the SC execution so far, the newest store `s` of
//! another thread `q` to `c`'s cell happens before `p`'s previous event,
//! and nothing that happens before `c` has forced `s` to commit: an access
//! of the cell by a thread other than `q` after `s` (TSO: of any cell, after
//! a later store of `q`), or a fence or atomic of `q` that waits for it.
//! The relaxed execution then runs `c` before `s` commits.
//!
//! In a graph, that is an SC prefix `E` (closed under po and rf, its
//! restriction of the graph SC-consistent) holding `p`'s events before `c`
//! and a path `s →+ prev(c)`, in which `s` is that newest store and is not
//! forced, while the graph puts `c` before `s` in coherence. `E` is taken
//! as small as it can be: the closure of `p`'s events before `c` and of a
//! shortest path (more events only add forcings, stores and cycles). Its
//! witness is the monitor's: the SC execution of `E` then `c`, replayed
//! with `s` delayed ([`crate::robust::signalled`]).

use super::consistency::Checker;
use super::graph::{Ev, Graph, Id};
use super::linearize;
use super::rules::Rules;
use crate::certainty::{Answer, Coverage, Why};
use crate::dpor::Control;
use crate::hb::Hb;
use crate::machine::{Event, EventKind, Machine, Model};
use crate::monitor::{MonitorKind, RawViolation};
use crate::options::Options;
use crate::violation::{Robustness, Violation};
use litmus_dsl::ir::StmtId;
use litmus_dsl::Program;
use std::collections::BTreeMap;

/// Tries at a witness per statement pair (as the monitors: a pair whose
/// witnesses keep failing is left unconfirmed).
const ATTEMPTS: u32 = 8;

struct Group {
    v: Option<Violation>,
    attempts: u32,
    occurrences: u64,
}

/// What the search of the model's graphs found of its violations.
pub struct Violations<'m, 'p> {
    prog: &'p Program,
    model: Model,
    /// The SC machine (the graphs' interpreter: witnesses start from SC
    /// executions).
    sc: &'m Machine<'p>,
    opts: Options,
    groups: BTreeMap<(StmtId, StmtId), Group>,
    /// Non-SC graphs in which no pair could be named (never "robust").
    unnamed: u64,
    scratch: Pairs,
}

impl<'m, 'p> Violations<'m, 'p> {
    /// `sc` is the SC machine of `prog`.
    pub fn new(prog: &'p Program, sc: &'m Machine<'p>, model: Model, opts: &Options) -> Self {
        Violations {
            prog,
            model,
            sc,
            opts: opts.clone(),
            groups: BTreeMap::new(),
            unnamed: 0,
            scratch: Pairs::default(),
        }
    }

    /// A graph the search reached (of any ending: a cut or failed one's
    /// events happened too).
    pub fn graph(&mut self, g: &Graph, checker: &mut Checker) {
        if checker.consistent(g, Model::Sc) {
            return;
        }
        let pairs = self.scratch.of(g, Rules::of(self.model));
        if pairs.is_empty() {
            self.unnamed += 1;
        }
        for pair in pairs {
            let key = (g.ev(pair.s).stmt, g.ev(pair.c).stmt);
            let group = self.groups.entry(key).or_insert(Group { v: None, attempts: 0, occurrences: 0 });
            group.occurrences += 1;
            if group.v.is_some() || group.attempts >= ATTEMPTS || self.opts.budget.stopped() {
                continue;
            }
            group.attempts += 1;
            let v = self.witness(g, checker, &pair);
            if v.is_some() {
                self.opts.budget.note_finding();
            }
            self.groups.get_mut(&key).expect("just added").v = v;
        }
    }

    /// The monitor's violation for `pair`: the SC execution of its prefix,
    /// then its access.
    fn witness(&self, g: &Graph, checker: &mut Checker, pair: &Pair) -> Option<Violation> {
        let prefix = g.prefix(&pair.prefix);
        let order = checker.order(&prefix, Model::Sc)?;
        let mut l = linearize::follow_prefix(&prefix, self.sc, checker, order)?;
        // `c`: its thread's next access, as SC runs it.
        let p = pair.c.thread as usize;
        let from = l.events.len();
        let mut guard = 0;
        while !l.events[from..].iter().any(|e| e.thread as usize == p && e.cell != crate::machine::NONE) {
            guard += 1;
            if guard > 10_000 || !self.sc.enabled(&l.state, p) {
                return None;
            }
            let n = l.schedule.len() as u32;
            self.sc.step(&mut l.state, p, n, &mut l.events);
            l.schedule.push(p as u32);
        }
        let log = &l.events;
        let access = (from..log.len()).find(|&i| log[i].thread as usize == p && log[i].cell != crate::machine::NONE)?;
        let store = access_index(log, pair.s)?;
        let prev = (0..access).rev().find(|&i| log[i].thread as usize == p)?;
        let mut hb = Hb::new(self.prog.threads.len(), self.prog.mem_size());
        for i in 0..log.len() {
            hb.push(log, i);
        }
        let r = RawViolation { store, access: access as u32, prev: prev as u32 };
        crate::robust::signalled(self.prog, self.model, &self.opts, log, &hb, r, false)
    }

    /// The model's robustness, as far as `coverage` (the search's).
    pub fn finish(self, coverage: Coverage) -> Robustness {
        let mut violations = Vec::new();
        let mut unconfirmed = Vec::new();
        for (key, g) in self.groups {
            match g.v {
                Some(mut v) => {
                    v.occurrences = g.occurrences;
                    violations.push(v);
                }
                None => unconfirmed.push(key),
            }
        }
        if self.unnamed > 0 && violations.is_empty() && unconfirmed.is_empty() {
            // A cycle no pair of which could be named: never "robust".
            unconfirmed.push((StmtId::MAX, StmtId::MAX));
        }
        Robustness {
            model: self.model,
            monitor: MonitorKind::Graph,
            violations,
            unconfirmed,
            fences: Vec::new(),
            fences_confirmed: Answer::Unknown(Why::Pending),
            fences_minimal: true,
            missed_by_monitor: Vec::new(),
            coverage,
            iterations: Default::default(),
        }
    }
}

/// The log index of graph event `id` (the `index`-th access of its thread).
fn access_index(log: &[Event], id: Id) -> Option<u32> {
    let mut n = 0u32;
    for (i, e) in log.iter().enumerate() {
        if e.thread == id.thread && matches!(e.kind, EventKind::Load | EventKind::Store | EventKind::Rmw) {
            if n == id.index {
                return Some(i as u32);
            }
            n += 1;
        }
    }
    None
}

/// A named violation of a graph: `s` delayed past `c`, after the SC prefix
/// whose length per thread is `prefix`.
struct Pair {
    s: Id,
    c: Id,
    prefix: Vec<u32>,
}

/// The named violations of a graph, with reusable scratch space (dense
/// event numbers: per thread, from its first event's).
#[derive(Default)]
struct Pairs {
    base: Vec<u32>,
    /// Per dense write, its place in its cell's coherence order plus one
    /// (0 stands for the initial write).
    copos: Vec<u32>,
    /// The prefix `E` being tried, as membership and per-thread lengths.
    in_e: Vec<bool>,
    len: Vec<u32>,
    /// Breadth-first search: how each event was reached.
    from: Vec<u32>,
    queue: std::collections::VecDeque<u32>,
    stack: Vec<u32>,
    /// Happens before `p`'s previous event (or `c`'s read, under SC), in `E`.
    before: Vec<bool>,
    /// `E`'s edges, for its SC check and happens-before.
    succ: Vec<Vec<u32>>,
    pred: Vec<Vec<u32>>,
    indeg: Vec<u32>,
}

const UNSEEN: u32 = u32::MAX;

impl Pairs {
    fn id(&self, d: u32) -> Id {
        let t = self.base.partition_point(|&b| b <= d) - 1;
        Id { thread: t as u16, index: d - self.base[t] }
    }

    fn dense(&self, id: Id) -> u32 {
        self.base[id.thread as usize] + id.index
    }

    /// The place in coherence an access reads or writes at: a write's own,
    /// a read's that of the write it reads.
    fn place(&self, g: &Graph, id: Id) -> u32 {
        let e = g.ev(id);
        if e.writes {
            self.copos[self.dense(id) as usize]
        } else if e.rf.is_init() {
            0
        } else {
            self.copos[self.dense(e.rf) as usize]
        }
    }

    /// Every pair of `g` the monitor would signal (see the module doc).
    fn of(&mut self, g: &Graph, rules: Rules) -> Vec<Pair> {
        self.base.clear();
        let mut n = 0u32;
        for t in &g.threads {
            self.base.push(n);
            n += t.len() as u32;
        }
        self.base.push(n);
        self.copos.clear();
        self.copos.resize(n as usize, 0);
        for list in &g.co {
            for (k, &w) in list.iter().enumerate() {
                let d = self.dense(w);
                self.copos[d as usize] = k as u32 + 1;
            }
        }
        let mut out = Vec::new();
        for (p, evs) in g.threads.iter().enumerate() {
            for (k, ce) in evs.iter().enumerate().skip(1) {
                let c = Id { thread: p as u16, index: k as u32 };
                let (cell, at) = (ce.cell, self.place(g, c));
                for (q, stores) in g.threads.iter().enumerate() {
                    if q == p {
                        continue;
                    }
                    for i in 0..stores.len() {
                        let s = Id { thread: q as u16, index: i as u32 };
                        let e = g.ev(s);
                        if e.cell != cell || !rules.buffered(e) || at >= self.copos[self.dense(s) as usize] {
                            continue;
                        }
                        if self.signals(g, rules, s, c) {
                            out.push(Pair { s, c, prefix: self.len.clone() });
                        }
                    }
                }
            }
        }
        out
    }

    /// Does the monitor signal `s` at `c` after some SC prefix? (`c` is
    /// before `s` in coherence.) On success `self.len` holds the prefix.
    fn signals(&mut self, g: &Graph, rules: Rules, s: Id, c: Id) -> bool {
        let Some(path) = self.path(g, s, c) else { return false };
        // E: the closure of the path and of c's po-predecessors.
        let n = self.copos.len();
        self.in_e.clear();
        self.in_e.resize(n, false);
        self.stack.clear();
        self.stack.extend(path);
        self.stack.push(self.dense(c) - 1);
        while let Some(d) = self.stack.pop() {
            if self.in_e[d as usize] {
                continue;
            }
            self.in_e[d as usize] = true;
            let id = self.id(d);
            if id.index > 0 {
                self.stack.push(d - 1);
            }
            let e = g.ev(id);
            if e.reads && !e.rf.is_init() {
                self.stack.push(self.dense(e.rf));
            }
        }
        if self.in_e[self.dense(c) as usize] {
            return false; // what c's predecessors read depends on c
        }
        if !self.sc_consistent(g) {
            return false;
        }
        // What happens before c in the SC execution of E then c: before
        // p's previous event, and (c reads the newest write) before that.
        // (SC's happens-before orders c after E's accesses it conflicts
        // with: the newest write of the cell, or, if c writes, every access.)
        let prev = self.dense(c) - 1;
        let ce = *g.ev(c);
        self.before.clear();
        self.before.resize(n, false);
        self.stack.clear();
        self.stack.push(prev);
        if ce.writes {
            for (t, evs) in g.threads.iter().enumerate() {
                for i in 0..self.len[t] {
                    if evs[i as usize].cell == ce.cell {
                        self.stack.push(self.base[t] + i);
                    }
                }
            }
        } else if let Some(w) = self.newest(g, ce.cell) {
            self.stack.push(w);
        }
        while let Some(d) = self.stack.pop() {
            if self.before[d as usize] {
                continue;
            }
            self.before[d as usize] = true;
            self.stack.extend(self.pred[d as usize].iter().copied());
        }
        // s is the newest store of its thread to the cell that happens
        // before prev (in E).
        let e = *g.ev(s);
        let q = s.thread as usize;
        let base = self.base[q];
        let later_store = (s.index + 1..self.len[q]).any(|i| {
            let x = &g.threads[q][i as usize];
            rules.buffered(x) && x.cell == e.cell && self.anc_of_prev(g, base + i, prev)
        });
        if later_store || !self.anc_of_prev(g, self.dense(s), prev) {
            return false;
        }
        !self.forced(g, rules, s)
    }

    /// Does dense event `d` happen before `prev` in E?
    fn anc_of_prev(&mut self, _g: &Graph, d: u32, prev: u32) -> bool {
        // `before` also holds what happens before c's read: walk back from
        // prev alone.
        let n = self.copos.len();
        let mut seen = vec![false; n];
        let mut stack = vec![prev];
        while let Some(x) = stack.pop() {
            if x == d {
                return true;
            }
            if std::mem::replace(&mut seen[x as usize], true) {
                continue;
            }
            stack.extend(self.pred[x as usize].iter().copied());
        }
        false
    }

    /// Is `s` committed, as the monitor forces commits, by something that
    /// happens before c (`self.before`)?
    fn forced(&self, g: &Graph, rules: Rules, s: Id) -> bool {
        let e = g.ev(s);
        let q = s.thread as usize;
        let buffer = rules.buffer(e.cell);
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, f) in evs.iter().enumerate().take(self.len[t] as usize) {
                let d = self.base[t] + i as u32;
                if !self.before[d as usize] {
                    continue;
                }
                if t == q {
                    // A fence or atomic of q after s that waits for it.
                    if i as u32 > s.index && rules.drains(f, e.cell) {
                        return true;
                    }
                    continue;
                }
                // An access that sees a store of q in s's buffer, from s on.
                let at = self.place(g, Id { thread: t as u16, index: i as u32 });
                let sees = |w: u32| {
                    let x = &g.threads[q][w as usize];
                    let wp = self.copos[(self.base[q] + w) as usize];
                    rules.buffered(x) && x.cell == f.cell && rules.buffer(x.cell) == buffer && {
                        if f.writes {
                            at > wp
                        } else {
                            at >= wp
                        }
                    }
                };
                if (s.index..self.len[q]).any(sees) {
                    return true;
                }
            }
        }
        false
    }

    /// The co-newest write of `cell` in E (dense), if any.
    fn newest(&self, g: &Graph, cell: u32) -> Option<u32> {
        g.co.get(cell as usize)?.iter().rev().map(|&w| self.dense(w)).find(|&d| self.in_e[d as usize])
    }

    /// E's own po, rf, co and fr edges (co and fr among its writes) into
    /// `succ` and `pred`, and whether they are acyclic; `len` gets E's
    /// length per thread.
    fn sc_consistent(&mut self, g: &Graph) -> bool {
        let n = self.copos.len();
        for v in self.succ.iter_mut().chain(self.pred.iter_mut()) {
            v.clear();
        }
        self.succ.resize(n, Vec::new());
        self.pred.resize(n, Vec::new());
        self.len.clear();
        for (t, evs) in g.threads.iter().enumerate() {
            let b = self.base[t];
            let len = (0..evs.len() as u32).take_while(|&i| self.in_e[(b + i) as usize]).count() as u32;
            self.len.push(len);
        }
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            let b = self.base[t];
            for i in 0..self.len[t] {
                let d = b + i;
                if i > 0 {
                    edges.push((d - 1, d));
                }
                let e = &evs[i as usize];
                if e.reads {
                    if !e.rf.is_init() {
                        edges.push((self.dense(e.rf), d));
                    }
                    // fr: the next write of E after the one read.
                    let from = if e.rf.is_init() { 0 } else { self.copos[self.dense(e.rf) as usize] as usize };
                    if let Some(w) = g.co[e.cell as usize][from..]
                        .iter()
                        .map(|&w| self.dense(w))
                        .find(|&w| w != d && self.in_e[w as usize])
                    {
                        edges.push((d, w));
                    }
                }
            }
        }
        for list in &g.co {
            let mut last = None;
            for &w in list {
                let d = self.dense(w);
                if self.in_e[d as usize] {
                    if let Some(l) = last {
                        edges.push((l, d));
                    }
                    last = Some(d);
                }
            }
        }
        self.indeg.clear();
        self.indeg.resize(n, 0);
        for &(a, b) in &edges {
            self.succ[a as usize].push(b);
            self.pred[b as usize].push(a);
            self.indeg[b as usize] += 1;
        }
        self.stack.clear();
        let members: Vec<u32> = (0..n as u32).filter(|&d| self.in_e[d as usize]).collect();
        self.stack.extend(members.iter().copied().filter(|&d| self.indeg[d as usize] == 0));
        let mut seen = 0;
        while let Some(v) = self.stack.pop() {
            seen += 1;
            for k in 0..self.succ[v as usize].len() {
                let w = self.succ[v as usize][k];
                self.indeg[w as usize] -= 1;
                if self.indeg[w as usize] == 0 {
                    self.stack.push(w);
                }
            }
        }
        seen == members.len()
    }

    /// The events of a shortest path `s →+ prev(c)` in the graph's
    /// `po ∪ rf ∪ co ∪ fr` that avoids `c` and what follows it in its
    /// thread (dense numbers, `s` first).
    fn path(&mut self, g: &Graph, s: Id, c: Id) -> Option<Vec<u32>> {
        let n = self.copos.len();
        self.from.clear();
        self.from.resize(n, UNSEEN);
        self.queue.clear();
        let (sd, cd) = (self.dense(s), self.dense(c));
        let prev = cd - 1;
        let end = self.base[c.thread as usize + 1];
        let avoid = |d: u32| d >= cd && d < end;
        self.queue.push_back(sd);
        self.from[sd as usize] = sd;
        let mut found = false;
        'search: while let Some(d) = self.queue.pop_front() {
            let id = self.id(d);
            let e: Ev = *g.ev(id);
            let mut next: Vec<u32> = Vec::new();
            if (id.index as usize) + 1 < g.threads[id.thread as usize].len() {
                next.push(d + 1);
            }
            if e.writes {
                for (t, evs) in g.threads.iter().enumerate() {
                    for (i, r) in evs.iter().enumerate() {
                        if r.reads && r.rf == id {
                            next.push(self.base[t] + i as u32);
                        }
                    }
                }
                if let Some(&w) = g.co[e.cell as usize].get(self.copos[d as usize] as usize) {
                    next.push(self.dense(w));
                }
            }
            if e.reads {
                let at = if e.rf.is_init() { 0 } else { self.copos[self.dense(e.rf) as usize] as usize };
                if let Some(&w) = g.co[e.cell as usize].get(at) {
                    next.push(self.dense(w));
                }
            }
            for w in next {
                if avoid(w) || self.from[w as usize] != UNSEEN {
                    continue;
                }
                self.from[w as usize] = d;
                if w == prev {
                    found = true;
                    break 'search;
                }
                self.queue.push_back(w);
            }
        }
        if !found {
            return None;
        }
        let mut path = vec![prev];
        let mut at = prev;
        while at != sd {
            at = self.from[at as usize];
            path.push(at);
        }
        path.reverse();
        Some(path)
    }
}

/// Robustness under `model` (TSO, PSO) from its graphs (sequential search).
pub fn robustness(prog: &Program, model: Model, opts: &Options) -> Robustness {
    let sc = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let mut found = Violations::new(prog, &sc, model, opts);
    let stats = {
        let mut search = super::explore::Search::new(&sc, model, opts, |g, _, checker, _| {
            found.graph(g, checker);
            Control::Continue
        });
        search.run();
        search.stats
    };
    found.finish(Coverage::of_stats(&stats))
}
