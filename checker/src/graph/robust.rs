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
//! with `s` delayed ([`crate::signalled`]).

use super::consistency::Checker;
use super::graph::{Graph, Id};
use super::linearize;
use super::rules::Rules;
use crate::certainty::Coverage;
use crate::dpor::Control;
use crate::hb::Hb;
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::monitor::{MonitorKind, RawViolation};
use crate::options::Options;
use crate::violation::{Robustness, Violation};
use litmus_ir::{Program, StmtId};
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
    /// The model's machine, witnesses replay on.
    relaxed: Machine<'p>,
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
            relaxed: crate::signalled::witness_machine(prog, model, opts),
            opts: opts.clone(),
            groups: BTreeMap::new(),
            unnamed: 0,
            scratch: Pairs::default(),
        }
    }

    /// A graph the search reached (of any ending: a cut or failed one's
    /// events happened too).
    /// Returns the pairs it is named by; `None` if it is SC-consistent.
    pub fn graph(&mut self, g: &Graph, checker: &mut Checker) -> Option<Vec<(StmtId, StmtId)>> {
        self.scratch.prepare(g);
        let cyclic = self.scratch.components();
        debug_assert_eq!(cyclic, !checker.consistent(g, Model::Sc), "SC-consistent iff acyclic");
        if !cyclic {
            return None;
        }
        let pairs = self.scratch.of(g, Rules::of(self.model));
        if pairs.is_empty() {
            self.unnamed += 1;
        }
        let mut keys = Vec::with_capacity(pairs.len());
        for pair in pairs {
            let key = (g.ev(pair.s).stmt, g.ev(pair.c).stmt);
            keys.push(key);
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
        Some(keys)
    }

    /// The monitor's violation for `pair`: the SC execution of its prefix,
    /// then its access.
    fn witness(&self, g: &Graph, checker: &mut Checker, pair: &Pair) -> Option<Violation> {
        let prefix = g.prefix(&pair.prefix);
        let order = checker.order(&prefix, Model::Sc)?;
        let mut l = linearize::follow_prefix(&prefix, self.sc, checker, order)?;
        // `c`: its thread's next access, as SC runs it.
        let p = pair.c.thread as usize;
        let (mut from, mut guard) = (l.events.len(), 0);
        let access = loop {
            let found = (from..l.events.len()).find(|&i| l.events[i].thread as usize == p && l.events[i].cell != NONE);
            if let Some(i) = found {
                break i;
            }
            guard += 1;
            if guard > 10_000 || !self.sc.enabled(&l.state, p) {
                return None;
            }
            from = l.events.len();
            let n = l.schedule.len() as u32;
            self.sc.step(&mut l.state, p, n, &mut l.events);
            l.schedule.push(p as u32);
        };
        let log = &l.events;
        let store = access_index(log, pair.s)?;
        let prev = (0..access).rev().find(|&i| log[i].thread as usize == p)?;
        let mut hb = Hb::new(self.prog.threads.len(), self.prog.mem_size());
        for i in 0..log.len() {
            hb.push(log, i);
        }
        let r = RawViolation { store, access: access as u32, prev: prev as u32 };
        crate::signalled::violation(&self.relaxed, &self.opts, log, &hb, r, false)
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
        Robustness::found(self.model, MonitorKind::Graph, violations, unconfirmed, coverage)
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
    /// The graph's `po ∪ rf ∪ co ∪ fr` (po and co to the next event only),
    /// as successor lists `adj[start[d]..start[d + 1]]`.
    start: Vec<u32>,
    adj: Vec<u32>,
    /// The strongly connected components (`tarjan.comp`, per dense event).
    tarjan: litmus_dsl::digraph::Tarjan,
    /// Per component, how many events it has (more than one: a cycle of
    /// the graph).
    size: Vec<u32>,
    /// The prefix `E` being tried, as membership and per-thread lengths.
    in_e: Vec<bool>,
    len: Vec<u32>,
    /// Breadth-first search: how each event was reached.
    from: Vec<u32>,
    queue: std::collections::VecDeque<u32>,
    stack: Vec<u32>,
    /// Happens before `p`'s previous event in `E`; and before `c`, in the
    /// SC execution of `E` then `c`.
    anc: Vec<bool>,
    before: Vec<bool>,
    /// `E`'s edges, for its SC check and happens-before.
    edges: Vec<(u32, u32)>,
    estart: Vec<u32>,
    epred: Vec<u32>,
    esucc: Vec<u32>,
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

    /// Number `g`'s events, place its writes and list its edges.
    fn prepare(&mut self, g: &Graph) {
        let n = g.number_events(&mut self.base);
        self.copos.clear();
        self.copos.resize(n as usize, 0);
        for list in &g.co {
            for (k, &w) in list.iter().enumerate() {
                let d = self.dense(w);
                self.copos[d as usize] = k as u32 + 1;
            }
        }
        // Edges as (from, to), then counted into successor lists.
        self.edges.clear();
        for (t, evs) in g.threads.iter().enumerate() {
            let b = self.base[t];
            for (i, e) in evs.iter().enumerate() {
                let d = b + i as u32;
                if i + 1 < evs.len() {
                    self.edges.push((d, d + 1));
                }
                if e.reads {
                    let at = if e.rf.is_init() {
                        0
                    } else {
                        let w = self.dense(e.rf);
                        self.edges.push((w, d));
                        self.copos[w as usize]
                    };
                    if let Some(&nx) = g.co[e.cell as usize].get(at as usize) {
                        let w = self.dense(nx);
                        if w != d {
                            self.edges.push((d, w));
                        }
                    }
                }
                if e.writes {
                    if let Some(&nx) = g.co[e.cell as usize].get(self.copos[d as usize] as usize) {
                        let w = self.dense(nx);
                        self.edges.push((d, w));
                    }
                }
            }
        }
        csr(n as usize, &self.edges, &mut self.start, &mut self.adj, false);
    }

    /// The prepared graph's strongly connected components; true iff it has
    /// a cycle (it is not SC-consistent).
    fn components(&mut self) -> bool {
        let (start, adj) = (&self.start, &self.adj);
        let count = self.tarjan.run(self.copos.len(), |v, i| {
            let k = start[v] as usize + i;
            (k < start[v + 1] as usize).then(|| adj[k] as usize)
        });
        // A component of more than one event is a cycle.
        self.size.clear();
        self.size.resize(count, 0);
        for &c in &self.tarjan.comp {
            self.size[c] += 1;
        }
        self.size.iter().any(|&k| k > 1)
    }

    /// Every pair of the prepared, cyclic graph `g` the monitor would
    /// signal (see the module doc): `s` and `c` lie on one cycle.
    fn of(&mut self, g: &Graph, rules: Rules) -> Vec<Pair> {
        let mut out = Vec::new();
        for (p, evs) in g.threads.iter().enumerate() {
            for (k, ce) in evs.iter().enumerate().skip(1) {
                let c = Id { thread: p as u16, index: k as u32 };
                let cc = self.tarjan.comp[self.dense(c) as usize];
                if self.size[cc] <= 1 {
                    continue;
                }
                let (cell, at) = (ce.cell, self.place(g, c));
                for (q, stores) in g.threads.iter().enumerate() {
                    if q == p {
                        continue;
                    }
                    for i in 0..stores.len() {
                        let s = Id { thread: q as u16, index: i as u32 };
                        let e = g.ev(s);
                        let sd = self.dense(s);
                        if e.cell != cell
                            || !rules.buffered(e)
                            || at >= self.copos[sd as usize]
                            || self.tarjan.comp[sd as usize] != cc
                        {
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
        if !self.path(s, c) {
            return false;
        }
        // E: the closure of the path and of c's po-predecessors.
        let n = self.copos.len();
        let cd = self.dense(c);
        self.in_e.clear();
        self.in_e.resize(n, false);
        self.stack.clear();
        let mut at = cd - 1;
        self.stack.push(at);
        while at != self.dense(s) {
            at = self.from[at as usize];
            self.stack.push(at);
        }
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
        if self.in_e[cd as usize] {
            return false; // what c's predecessors read depends on c
        }
        if !self.sc_consistent(g) {
            return false;
        }
        // What happens before p's previous event in E.
        let prev = cd - 1;
        ancestors(&self.estart, &self.epred, &[prev], &mut self.anc, &mut self.stack);
        // s is the newest store of its thread to the cell that happens
        // before prev (in E).
        let e = *g.ev(s);
        let q = s.thread as usize;
        let base = self.base[q];
        if !self.anc[self.dense(s) as usize] {
            return false;
        }
        let later_store = (s.index + 1..self.len[q]).any(|i| {
            let x = &g.threads[q][i as usize];
            rules.buffered(x) && x.cell == e.cell && self.anc[(base + i) as usize]
        });
        if later_store {
            return false;
        }
        // And before c: SC's happens-before orders c after E's accesses it
        // conflicts with (the newest write of the cell; if c writes, all).
        let ce = *g.ev(c);
        self.queue.clear();
        self.queue.push_back(prev);
        if ce.writes {
            for (t, evs) in g.threads.iter().enumerate() {
                for i in 0..self.len[t] {
                    if evs[i as usize].cell == ce.cell {
                        self.queue.push_back(self.base[t] + i);
                    }
                }
            }
        } else if let Some(w) = self.newest(g, ce.cell) {
            self.queue.push_back(w);
        }
        let seeds: Vec<u32> = self.queue.drain(..).collect();
        ancestors(&self.estart, &self.epred, &seeds, &mut self.before, &mut self.stack);
        !self.forced(g, rules, s)
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
    /// predecessor and successor lists, and whether they are acyclic;
    /// `len` gets E's length per thread.
    fn sc_consistent(&mut self, g: &Graph) -> bool {
        let n = self.copos.len();
        self.len.clear();
        for (t, evs) in g.threads.iter().enumerate() {
            let b = self.base[t];
            let len = (0..evs.len() as u32).take_while(|&i| self.in_e[(b + i) as usize]).count() as u32;
            self.len.push(len);
        }
        self.edges.clear();
        for (t, evs) in g.threads.iter().enumerate() {
            let b = self.base[t];
            for i in 0..self.len[t] {
                let d = b + i;
                if i > 0 {
                    self.edges.push((d - 1, d));
                }
                let e = &evs[i as usize];
                if e.reads {
                    if !e.rf.is_init() {
                        self.edges.push((self.dense(e.rf), d));
                    }
                    // fr: the next write of E after the one read.
                    let from = if e.rf.is_init() { 0 } else { self.copos[self.dense(e.rf) as usize] as usize };
                    let next = g.co[e.cell as usize][from..]
                        .iter()
                        .map(|&w| self.dense(w))
                        .find(|&w| w != d && self.in_e[w as usize]);
                    if let Some(w) = next {
                        self.edges.push((d, w));
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
                        self.edges.push((l, d));
                    }
                    last = Some(d);
                }
            }
        }
        csr(n, &self.edges, &mut self.estart, &mut self.esucc, false);
        // Kahn over E's members.
        self.indeg.clear();
        self.indeg.resize(n, 0);
        for &(_, b) in &self.edges {
            self.indeg[b as usize] += 1;
        }
        self.stack.clear();
        let mut members = 0;
        for d in 0..n as u32 {
            if self.in_e[d as usize] {
                members += 1;
                if self.indeg[d as usize] == 0 {
                    self.stack.push(d);
                }
            }
        }
        let mut seen = 0;
        while let Some(v) = self.stack.pop() {
            seen += 1;
            for k in self.estart[v as usize]..self.estart[v as usize + 1] {
                let w = self.esucc[k as usize];
                self.indeg[w as usize] -= 1;
                if self.indeg[w as usize] == 0 {
                    self.stack.push(w);
                }
            }
        }
        // Predecessor lists, for happens-before.
        csr(n, &self.edges, &mut self.estart, &mut self.epred, true);
        seen == members
    }

    /// A shortest path `s →+ prev(c)` in the prepared graph that avoids `c`
    /// and what follows it in its thread, into `from` (each event's
    /// predecessor on it).
    fn path(&mut self, s: Id, c: Id) -> bool {
        let n = self.copos.len();
        self.from.clear();
        self.from.resize(n, UNSEEN);
        self.queue.clear();
        let (sd, cd) = (self.dense(s), self.dense(c));
        let (prev, end) = (cd - 1, self.base[c.thread as usize + 1]);
        self.queue.push_back(sd);
        self.from[sd as usize] = sd;
        while let Some(d) = self.queue.pop_front() {
            for k in self.start[d as usize]..self.start[d as usize + 1] {
                let w = self.adj[k as usize];
                if (cd..end).contains(&w) || self.from[w as usize] != UNSEEN {
                    continue;
                }
                self.from[w as usize] = d;
                if w == prev {
                    return true;
                }
                self.queue.push_back(w);
            }
        }
        false
    }
}

/// Edge lists into compressed rows: per node `v`, `out[start[v]..start[v +
/// 1]]` its successors (`reverse`: its predecessors).
fn csr(n: usize, edges: &[(u32, u32)], start: &mut Vec<u32>, out: &mut Vec<u32>, reverse: bool) {
    start.clear();
    start.resize(n + 1, 0);
    for &(a, b) in edges {
        let from = if reverse { b } else { a };
        start[from as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    out.clear();
    out.resize(edges.len(), 0);
    let mut fill: Vec<u32> = start[..n].to_vec();
    for &(a, b) in edges {
        let (from, to) = if reverse { (b, a) } else { (a, b) };
        out[fill[from as usize] as usize] = to;
        fill[from as usize] += 1;
    }
}

/// Everything that reaches a seed by predecessor lists (`start`, `pred`),
/// the seeds included, into `mark`.
fn ancestors(start: &[u32], pred: &[u32], seeds: &[u32], mark: &mut Vec<bool>, stack: &mut Vec<u32>) {
    mark.clear();
    mark.resize(start.len() - 1, false);
    stack.clear();
    stack.extend_from_slice(seeds);
    while let Some(d) = stack.pop() {
        if std::mem::replace(&mut mark[d as usize], true) {
            continue;
        }
        stack.extend(pred[start[d as usize] as usize..start[d as usize + 1] as usize].iter().copied());
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
