//! Phase I of RELAXER (Burnim, Sen, Stergiou, ISSTA'11, §4.1, Algorithm 1):
//! run the program under SC on random schedules, then predict every
//! *potential happens-before cycle* `e1 e1' … en en'`: `ej →po ej'` in one
//! thread (a different thread for each j), and `ej'`, `e(j+1)` (and `en'`,
//! `e1`) in potential data race — different threads, one cell, one a write.
//!
//! A cycle is named by its statements, so the dynamic events of a trace are
//! folded into *nodes* (thread, statement, access, cell): a chain over the
//! events exists iff one exists over the nodes, with `a →po b` when some
//! instance of `a` precedes some instance of `b` (each thread contributes
//! one pair, so nothing else about instances matters). As in the paper, po
//! is reflexive: a thread may take part with a single event.

use super::ops::{Label, Op};
use super::rng::{derive, Rng};
use super::settings::Settings;
use crate::machine::{Event, EventKind, Machine, Model, ThreadStatus};
use crate::options::Options;
use litmus_ir::{Cell, Program};
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// The predicted cycles, in a stable order (the replay handles name them).
#[derive(Clone, Debug, Default)]
pub struct Prediction {
    pub cycles: Vec<Vec<Label>>,
    /// SC runs made.
    pub runs: u32,
    /// Memory events seen over all runs.
    pub events: u64,
    /// The po pairs cycles were searched over (nodes on cells no other
    /// thread touches take no part).
    pub pairs: usize,
    /// More cycles existed than `Settings::max_cycles`, or the deadline came
    /// first: the rest were dropped.
    pub truncated: bool,
    /// The cycle lengths (in events) searched to the end: every cycle of
    /// each was predicted. Shortest first; a length cut short by
    /// `max_cycles` or the deadline is not listed (it is `partial`).
    pub lengths: Vec<usize>,
    /// The length being searched when the search was cut, if it was.
    pub partial: Option<usize>,
    pub time: Duration,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Node {
    label: Label,
    cell: Cell,
}

impl Node {
    fn writes(&self) -> bool {
        self.label.op != Op::Read
    }
}

/// How a Phase I run picks the next thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Uniformly among the threads that can go.
    Uniform,
    /// PCT (Burckhardt et al., ASPLOS'10): random thread priorities, the
    /// highest that can go runs, and at two random steps the running
    /// thread drops to the lowest priority. Uniform choice almost never
    /// lets a short thread run after a long one's work; priorities do, so
    /// the races between them are seen (and predicted).
    Priorities,
}

/// One SC run on a random schedule (seeded): the event log.
pub fn random_sc_run(m: &Machine<'_>, rng: &mut Rng, max_steps: u64, how: Schedule) -> Vec<Event> {
    let mut log = Vec::new();
    let mut st = m.initial(&mut log);
    let mut ready = Vec::with_capacity(m.threads);
    let mut prio: Vec<u64> = (0..m.threads as u64).map(|t| t + 2).collect();
    let mut changes = [u64::MAX; 2];
    if how == Schedule::Priorities {
        for i in (1..prio.len()).rev() {
            prio.swap(i, rng.below(i + 1));
        }
        // Change points within the length such runs typically have.
        let horizon = 32 * m.threads.max(1);
        for c in &mut changes {
            *c = rng.below(horizon) as u64;
        }
    }
    let mut lowest = 1u64;
    for step in 0..max_steps {
        ready.clear();
        // A running thread may make an attempt that fails (an await or lock
        // reads, then waits): the exhaustive explorer's executions have
        // those reads too, and cycles through them. A waiting thread goes
        // again only when its retry would succeed.
        ready.extend(
            (0..m.threads).filter(|&t| (st.running(t) && m.enabled(&st, t)) || (stuck(&st, t) && !m.blocked(&st, t))),
        );
        if ready.is_empty() {
            break;
        }
        let t = match how {
            Schedule::Uniform => ready[rng.below(ready.len())],
            Schedule::Priorities => *ready.iter().max_by_key(|&&t| prio[t]).unwrap(),
        };
        if changes.contains(&step) {
            prio[t] = lowest;
            lowest = lowest.saturating_sub(1);
        }
        st.threads[t] = ThreadStatus::Running;
        m.step(&mut st, t, step as u32, &mut log);
    }
    log
}

fn stuck(st: &crate::machine::State, t: usize) -> bool {
    st.threads[t] == ThreadStatus::Stuck
}

pub fn op_of(e: &Event) -> Option<Op> {
    match e.kind {
        EventKind::Load => Some(Op::Read),
        EventKind::Store => Some(Op::Write),
        EventKind::Rmw => Some(Op::Update),
        _ => None,
    }
}

/// Phase I: `settings.sc_runs` random SC runs, and the potential cycles of
/// up to `settings.cycle_length` events (by default 2 × threads) over
/// everything they did, shortest first (with `settings.history_links`, the
/// cycles only a model with load histories needs too).
pub fn predict(prog: &Program, settings: &Settings, opts: &Options) -> Prediction {
    predict_all(prog, settings, opts, &[settings.history_links]).remove(0)
}

/// Phase I once, its cycles searched once per entry of `history_links`
/// (the runs are shared; each search has its own cycle budget).
pub fn predict_all(prog: &Program, settings: &Settings, opts: &Options, history_links: &[bool]) -> Vec<Prediction> {
    let start = Instant::now();
    let m = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    // First the runs, folded to nodes; then the po pairs over the nodes
    // that can race at all (a cell another thread also touches, one of
    // them writing): every pair of a cycle is made of such nodes, and the
    // rest (a thread's private cells) would make po quadratic in its
    // length for nothing.
    let mut traces: Vec<Vec<Node>> = Vec::new();
    let mut access: HashMap<Cell, (u16, bool, bool)> = HashMap::new(); // first thread, several threads, a write
    let mut events = 0u64;
    let mut polls = 0u32;
    let mut stopped = || {
        polls = polls.wrapping_add(1);
        polls.is_multiple_of(1024) && opts.budget.stopped()
    };
    for r in 0..settings.sc_runs {
        if opts.budget.stopped() {
            break;
        }
        let mut rng = Rng::new(derive(settings.seed, &[1, r as u64]));
        // Half the runs uniform, half by priorities.
        let how = if r % 2 == 0 { Schedule::Uniform } else { Schedule::Priorities };
        let log = random_sc_run(&m, &mut rng, settings.max_steps, how);
        let trace: Vec<Node> = log
            .iter()
            .filter_map(|e| Some(Node { label: Label { thread: e.thread, stmt: e.stmt, op: op_of(e)? }, cell: e.cell }))
            .collect();
        for n in &trace {
            let a = access.entry(n.cell).or_insert((n.label.thread, false, false));
            a.1 |= a.0 != n.label.thread;
            a.2 |= n.writes();
        }
        events += trace.len() as u64;
        traces.push(trace);
    }
    let runs = traces.len() as u32;
    let racy = |n: &Node| access.get(&n.cell).is_some_and(|&(_, shared, written)| shared && written);
    // Per thread: a →po b iff a occurs before b in one run.
    let mut po: BTreeSet<(Node, Node)> = BTreeSet::new();
    let mut cut = false;
    'runs: for trace in &traces {
        let mut seen: Vec<Vec<Node>> = vec![Vec::new(); m.threads];
        for &n in trace.iter().filter(|n| racy(n)) {
            if stopped() {
                cut = true;
                break 'runs;
            }
            let mine = &mut seen[n.label.thread as usize];
            // A thread may also take part with one event (ej = ej': po is
            // reflexive in the paper), as the writer of RWC or WRC does.
            po.insert((n, n));
            // Pairs with every earlier node of the thread (distinct nodes
            // only: the set keeps this bounded by nodes², not events²).
            // Polled per pair: one node of a long thread makes thousands.
            for &a in mine.iter() {
                if stopped() {
                    cut = true;
                    break 'runs;
                }
                po.insert((a, n));
            }
            if !mine.contains(&n) {
                mine.push(n);
            }
        }
    }
    // Cut short, the pairs are a prefix of what the runs did: cycles over
    // them are still real predictions, but the deadline has passed.
    let max_len = settings.cycle_length.unwrap_or_else(|| super::settings::longest_cycle(m.threads));
    let runs_time = start.elapsed();
    history_links
        .iter()
        .map(|&links| {
            let searched = Instant::now();
            let found = if cut {
                Found { partial: Some(4), ..Found::default() }
            } else {
                cycles(&po, max_len, settings.max_cycles, links, &mut stopped)
            };
            Prediction {
                cycles: found.cycles,
                runs,
                events,
                pairs: po.len(),
                truncated: found.partial.is_some(),
                lengths: found.lengths,
                partial: found.partial,
                time: runs_time + searched.elapsed(),
            }
        })
        .collect()
}

fn races(a: &Node, b: &Node) -> bool {
    a.label.thread != b.label.thread && a.cell == b.cell && (a.writes() || b.writes())
}

/// What the search of cycles found: the cycles, shortest first; the
/// lengths searched to the end; the one cut short, if any.
#[derive(Default)]
struct Found {
    cycles: Vec<Vec<Label>>,
    lengths: Vec<usize>,
    partial: Option<usize>,
}

/// Every potential cycle of 4..=`max_len` events, rotations and duplicates
/// removed (the thread of the first pair is the smallest of the cycle),
/// shortest first: a length is searched once every shorter one is.
fn cycles(
    po: &BTreeSet<(Node, Node)>,
    max_len: usize,
    max_cycles: usize,
    history_links: bool,
    stopped: &mut dyn FnMut() -> bool,
) -> Found {
    // History links: per read node, the writes of its thread to its cell
    // that precede it in some run (a cycle may enter the thread there and
    // reach the read by po); per node, the later nodes of its thread (a
    // cycle may leave the thread there, after its pair).
    let mut own_writes: HashMap<Node, Vec<Node>> = HashMap::new();
    let mut later: HashMap<Node, Vec<Node>> = HashMap::new();
    if history_links {
        for &(w, r) in po {
            if w != r && w.writes() && r.label.op == Op::Read && w.cell == r.cell {
                own_writes.entry(r).or_default().push(w);
            }
            if w != r {
                later.entry(w).or_default().push(r);
            }
        }
    }
    let mut pairs_of: HashMap<u16, Vec<(Node, Node)>> = HashMap::new();
    for &(a, b) in po {
        if stopped() {
            return Found { partial: Some(4), ..Found::default() };
        }
        pairs_of.entry(a.label.thread).or_default().push((a, b));
    }
    let mut threads: Vec<u16> = pairs_of.keys().copied().collect();
    threads.sort_unstable();
    let mut s = Chains {
        own_writes: &own_writes,
        later: &later,
        pairs_of: &pairs_of,
        threads: &threads,
        max_pairs: 0,
        max_cycles,
        out: BTreeSet::new(),
        kept: 0,
        truncated: false,
        stopped,
    };
    let mut chain: Vec<(Node, Node)> = Vec::new();
    let mut found = Found::default();
    // Shortest cycles first: when there are more than `max_cycles`, the
    // longest ones (least likely to be created) are the ones dropped.
    for pairs in 2..=max_len / 2 {
        s.max_pairs = pairs;
        for &t1 in &threads {
            for &first in &pairs_of[&t1] {
                chain.push(first);
                s.extend(&mut chain);
                chain.pop();
            }
        }
        // This length's cycles, in a stable order, after the shorter ones.
        s.kept += s.out.len();
        found.cycles.extend(std::mem::take(&mut s.out));
        if s.truncated {
            found.partial = Some(2 * pairs);
            break;
        }
        found.lengths.push(2 * pairs);
    }
    found
}

/// The search for chains of po pairs closed by races.
struct Chains<'a> {
    own_writes: &'a HashMap<Node, Vec<Node>>,
    later: &'a HashMap<Node, Vec<Node>>,
    pairs_of: &'a HashMap<u16, Vec<(Node, Node)>>,
    threads: &'a [u16],
    max_pairs: usize,
    max_cycles: usize,
    /// The cycles of the length being searched.
    out: BTreeSet<Vec<Label>>,
    /// Cycles of the shorter lengths, already taken out of `out`.
    kept: usize,
    /// Cycles were dropped: past `max_cycles`, or the deadline came.
    truncated: bool,
    stopped: &'a mut dyn FnMut() -> bool,
}

impl Chains<'_> {
    /// Can a cycle go from `a` (closing a pair) to `b` (opening the next)?
    /// By a race, or (history links) by a race to a write of `b`'s thread
    /// that precedes `b` on its cell, or from a later node of `a`'s thread.
    fn links(&self, a: &Node, b: &Node) -> bool {
        races(a, b)
            || self.own_writes.get(b).is_some_and(|ws| ws.iter().any(|w| races(a, w)))
            || self.later.get(a).is_some_and(|cs| cs.iter().any(|c| races(c, b)))
    }

    fn extend(&mut self, chain: &mut Vec<(Node, Node)>) {
        if self.truncated || (self.stopped)() {
            self.truncated = true;
            return;
        }
        let first = chain[0];
        let last = *chain.last().unwrap();
        if chain.len() == self.max_pairs && self.links(&last.1, &first.0) {
            // At least one pair must be of different cells: a cycle whose every
            // pair is on one cell is a coherence cycle no model here relaxes.
            if chain.iter().any(|(a, b)| a.cell != b.cell) {
                let labels: Vec<Label> = chain.iter().flat_map(|(a, b)| [a.label, b.label]).collect();
                // A cycle already kept (the same statements over other cells)
                // costs nothing; a new one past the budget cuts the search.
                if !self.out.contains(&labels) && self.kept + self.out.len() >= self.max_cycles {
                    self.truncated = true;
                    return;
                }
                self.out.insert(labels);
            }
        }
        if chain.len() >= self.max_pairs {
            return;
        }
        for &t in self.threads {
            if t <= first.0.label.thread || chain.iter().any(|(a, _)| a.label.thread == t) {
                continue;
            }
            for &next in &self.pairs_of[&t] {
                // Polled per pair scanned: most do not race, and a long
                // thread has millions.
                if (self.stopped)() {
                    self.truncated = true;
                    return;
                }
                if self.links(&last.1, &next.0) {
                    chain.push(next);
                    self.extend(chain);
                    chain.pop();
                }
            }
        }
    }
}
