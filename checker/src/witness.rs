//! A violation's witness: the relaxed execution the monitor simulated,
//! completed by running the overtaking access before committing the delayed
//! store — then replayed on the TSO/PSO machine and judged by its trace.
//!
//! Construction: replay, in SC order, the events that happen before the
//! access. A buffered store is committed only when it must be: when another
//! thread reads or atomically updates its address after it in SC order, or
//! when its own thread waits for its buffer to drain. Committing a store
//! first commits what must precede it — the stores queued before it (TSO
//! FIFO) and other threads' stores to its address issued earlier in SC
//! order (so coherence follows SC). Then the access runs with the delayed
//! store still pending, and every buffer drains (a store access before the
//! delayed store, so that it comes first in coherence).

use crate::hb::Hb;
use crate::machine::{Event, EventKind, Machine, State, NONE};
use crate::options::Options;
use crate::trace::{Edge, Trace};

#[derive(Clone, Debug)]
pub struct RelaxedWitness {
    pub schedule: Vec<u32>,
    /// The replayed execution under the model.
    pub events: Vec<Event>,
    /// How many of `events` precede the final drain (the access included).
    pub before_drain: usize,
    /// The state right after the access, before draining (to continue
    /// from); none for a whole candidate execution, which no machine runs.
    pub state_after_access: Option<State>,
    /// A happens-before cycle of the replayed trace: (event, edge leaving it).
    pub cycle: Vec<(u32, Edge)>,
}

struct Replay<'m, 'p> {
    m: &'m Machine<'p>,
    st: State,
    log: Vec<Event>,
    schedule: Vec<u32>,
    /// Per thread: the SC log index of its k-th event (k from 1).
    sc_of: Vec<Vec<u32>>,
    /// Per thread: the replay log index of its k-th event (k from 1); and
    /// per replay log event, its ordinal in its thread (0 for commits). Kept
    /// as the log grows, so the lookups below are O(1), not a log scan.
    mine: Vec<Vec<u32>>,
    ordinal: Vec<u32>,
    /// Replay log index of the store that must stay pending (`NONE`: none).
    avoid: u32,
    steps: usize,
    /// The check's deadline and cancel flag: a witness is not worth missing it.
    stop: &'m Options,
}

impl Replay<'_, '_> {
    fn step(&mut self, proc: usize) {
        let n = self.schedule.len() as u32;
        let from = self.log.len();
        self.m.step(&mut self.st, proc, n, &mut self.log);
        self.index_from(from);
        self.schedule.push(proc as u32);
        self.steps += 1;
    }

    /// Index the log's events from `from` on (see `mine`, `ordinal`).
    fn index_from(&mut self, from: usize) {
        for i in from..self.log.len() {
            let e = &self.log[i];
            let k = if e.kind == EventKind::Commit {
                0
            } else {
                let t = e.thread as usize;
                self.mine[t].push(i as u32);
                self.mine[t].len() as u32
            };
            self.ordinal.push(k);
        }
    }

    /// Out of steps, or the check is stopped.
    fn exhausted(&self) -> bool {
        self.steps > 200_000 || (self.steps.is_multiple_of(1024) && self.stop.budget.stopped())
    }

    /// The replayed event that is thread `t`'s `k`-th (from 1).
    fn nth_of(&self, t: usize, k: u32) -> Option<u32> {
        k.checked_sub(1).and_then(|i| self.mine[t].get(i as usize).copied())
    }

    fn events_of(&self, t: usize) -> u32 {
        self.mine[t].len() as u32
    }

    /// The SC position of a replayed store (by its thread and ordinal).
    fn sc_index(&self, store: u32) -> u32 {
        let t = self.log[store as usize].thread as usize;
        let k = self.ordinal[store as usize] as usize;
        self.sc_of[t].get(k.wrapping_sub(1)).copied().unwrap_or(u32::MAX)
    }

    /// Buffer process and queue index holding a store event.
    fn locate(&self, store: u32) -> Option<usize> {
        let m = self.m;
        (0..self.st.bufs.len()).find(|&b| self.st.bufs[b].iter().any(|e| e.store == store)).map(|b| m.threads + b)
    }

    /// Pending stores of threads other than `me` to `cell`, issued before SC
    /// position `before`, in SC order. Not the delayed store, nor what is
    /// queued behind it: those commit after it (coherence departs from SC
    /// there, as the relaxed execution does).
    fn pending_to(&self, cell: u32, me: usize, before: u32) -> Vec<u32> {
        let blocked = |store: u32| {
            self.avoid != NONE
                && self.st.bufs.iter().any(|q| q.iter().skip_while(|e| e.store != self.avoid).any(|e| e.store == store))
        };
        let mut v: Vec<(u32, u32)> = self
            .st
            .bufs
            .iter()
            .flatten()
            .filter(|e| e.cell == cell && self.log[e.store as usize].thread as usize != me && !blocked(e.store))
            .map(|e| (self.sc_index(e.store), e.store))
            .filter(|(i, _)| *i < before)
            .collect();
        v.sort();
        v.into_iter().map(|x| x.1).collect()
    }

    /// Commit one buffered store, and first whatever must precede it.
    fn commit(&mut self, store: u32) -> bool {
        if self.exhausted() {
            return false;
        }
        loop {
            let Some(b) = self.locate(store) else { return true };
            let head = self.st.bufs[b - self.m.threads].front().unwrap().store;
            if head == self.avoid {
                return false;
            }
            // Other threads' earlier stores to the head's address go first.
            let cell = self.log[head as usize].cell;
            let me = self.log[head as usize].thread as usize;
            let before = self.sc_index(head);
            for s in self.pending_to(cell, me, before) {
                if !self.commit(s) {
                    return false;
                }
            }
            self.step(b);
            if head == store {
                return true;
            }
        }
    }

    /// Run thread `t` until it has produced `count` events, draining its
    /// own buffers whenever it waits for them.
    fn advance(&mut self, t: usize, count: u32) -> bool {
        let mut guard = 0;
        while self.events_of(t) < count {
            guard += 1;
            if guard > 100_000 || !self.st.running(t) || self.exhausted() {
                return false;
            }
            if self.m.enabled(&self.st, t) {
                self.step(t);
            } else {
                // Commit from the buffer the thread waits on: under PSO a
                // native atomic waits only for its own address's queue.
                let need = self.m.waits_for_cell(&self.st, t);
                let own: Option<u32> = self.st.bufs.iter().enumerate().find_map(|(b, q)| {
                    q.front()
                        .filter(|e| self.m.owner(self.m.threads + b) == t && (need == NONE || e.cell == need))
                        .map(|e| e.store)
                });
                match own {
                    Some(s) if self.commit(s) => {}
                    _ => return false,
                }
            }
        }
        true
    }

    /// Commit every pending store, in SC order. (Commits add no stores, so
    /// the order is taken once; a store committed early, to let another
    /// through, is skipped when its turn comes.)
    fn drain(&mut self) -> bool {
        let mut all: Vec<(u32, u32)> =
            self.st.bufs.iter().flatten().map(|e| (self.sc_index(e.store), e.store)).collect();
        all.sort();
        for (_, s) in all {
            if self.locate(s).is_some() && !self.commit(s) {
                return false;
            }
        }
        self.st.bufs.iter().all(|q| q.is_empty())
    }
}

/// Build and replay the witness of `store` (thread p') being overtaken by
/// `access` (thread p) on `m`, the model's machine, given the SC execution
/// `sc` and its clocks. `upto[t]` is how many events of each thread run
/// before the access.
pub fn build(
    m: &Machine<'_>,
    stop: &Options,
    sc: &[Event],
    hb: &Hb,
    upto: &[u32],
    (store, access): (u32, u32),
) -> Option<RelaxedWitness> {
    let mut log = Vec::new();
    let st = m.initial(&mut log);
    let mut sc_of = vec![Vec::new(); m.threads];
    for (i, e) in sc.iter().enumerate() {
        if e.kind != EventKind::Commit {
            sc_of[e.thread as usize].push(i as u32);
        }
    }
    let mine = vec![Vec::new(); m.threads];
    let mut r =
        Replay { m, st, log, schedule: Vec::new(), sc_of, mine, ordinal: Vec::new(), avoid: NONE, steps: 0, stop };
    // The initial state's log: stores buffered before any transition.
    r.index_from(0);
    let p = sc[access as usize].thread as usize;
    let keeper = sc[store as usize].thread as usize;
    let store_po = hb.po(sc, store);
    for (i, e) in sc.iter().enumerate() {
        if e.kind == EventKind::Commit {
            continue;
        }
        let t = e.thread as usize;
        let po = hb.po(sc, i as u32);
        if po > upto[t] {
            continue;
        }
        // A read sees the stores issued before it in SC order.
        if !r.advance(t, po - 1) {
            return None;
        }
        if e.cell != NONE && matches!(e.kind, EventKind::Load | EventKind::Rmw) {
            for s in r.pending_to(e.cell, t, i as u32) {
                if !r.commit(s) {
                    return None;
                }
            }
        }
        if !r.advance(t, po) {
            return None;
        }
        if t == keeper && po == store_po {
            // The delayed store, as replayed.
            r.avoid = r.nth_of(t, po)?;
        }
    }
    if r.avoid == NONE {
        return None;
    }
    // The access, with the delayed store still buffered.
    let a = &sc[access as usize];
    if !r.advance(p, hb.po(sc, access) - 1) {
        return None;
    }
    if a.cell != NONE && matches!(a.kind, EventKind::Load | EventKind::Rmw) {
        // The delayed store's thread keeps all its stores to the address
        // pending (they are queued behind it).
        for s in r.pending_to(a.cell, p, access) {
            if r.log[s as usize].thread as usize != keeper && !r.commit(s) {
                return None;
            }
        }
    }
    if !r.advance(p, hb.po(sc, access)) {
        return None;
    }
    let before_drain = r.log.len();
    let state_after_access = r.st.clone();
    // A store access commits before the delayed store.
    if a.kind == EventKind::Store {
        let mine = r.nth_of(p, hb.po(sc, access))?;
        if !r.commit(mine) {
            return None;
        }
    }
    r.avoid = NONE;
    if !r.drain() {
        return None;
    }
    let cycle = Trace::of(&r.log).cycle()?;
    Some(RelaxedWitness {
        schedule: r.schedule,
        events: r.log,
        before_drain,
        state_after_access: Some(state_after_access),
        cycle,
    })
}

/// What an event of the target trace must be: its kind, address and, for a
/// read, the (thread, ordinal) of the write it reads (`None`: initial).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Target {
    kind: EventKind,
    cell: u32,
    rf: Option<(u16, u32)>,
    /// An atomic that reads another write than under SC: it may fail (a
    /// cas: a read) or write, whichever it does there.
    either: bool,
}

/// Search the TSO/PSO machine for an execution whose trace is the target:
/// each thread's first events as given, reads from the given writes, and
/// commits in the given coherence order. Then drain. Used for Sober's
/// borderline traces, where a load runs early rather than a store late.
fn realize(
    m: &Machine<'_>,
    targets: &[Vec<Target>],
    co: &std::collections::HashMap<u32, Vec<(u16, u32)>>,
    budget: &mut u32,
) -> Option<(Vec<u32>, Vec<Event>, usize, State)> {
    let mut log = Vec::new();
    let st = m.initial(&mut log);
    let mut schedule = Vec::new();
    fn ordinal_of(log: &[Event], i: u32) -> (u16, u32) {
        let t = log[i as usize].thread;
        (t, log[..=i as usize].iter().filter(|e| e.thread == t && e.kind != EventKind::Commit).count() as u32)
    }
    fn matches(log: &[Event], targets: &[Vec<Target>]) -> bool {
        let mut count = vec![0usize; targets.len()];
        for (i, e) in log.iter().enumerate() {
            if e.kind == EventKind::Commit {
                continue;
            }
            let t = e.thread as usize;
            count[t] += 1;
            let Some(tg) = targets[t].get(count[t] - 1) else { continue };
            let reads = |k: EventKind| matches!(k, EventKind::Load | EventKind::Rmw);
            if !(tg.kind == e.kind || tg.either && reads(e.kind)) || tg.cell != e.cell {
                return false;
            }
            if matches!(e.kind, EventKind::Load | EventKind::Rmw) {
                let src = crate::trace::source_write(log, e.rf);
                let got = if src == NONE { None } else { Some(ordinal_of(log, src)) };
                if got != tg.rf {
                    return false;
                }
            }
            let _ = i;
        }
        true
    }
    fn done(log: &[Event], targets: &[Vec<Target>]) -> bool {
        targets.iter().enumerate().all(|(t, tg)| {
            log.iter().filter(|e| e.thread as usize == t && e.kind != EventKind::Commit).count() >= tg.len()
        })
    }
    #[allow(clippy::too_many_arguments)]
    fn go(
        m: &Machine<'_>,
        st: &State,
        log: &mut Vec<Event>,
        schedule: &mut Vec<u32>,
        targets: &[Vec<Target>],
        co: &std::collections::HashMap<u32, Vec<(u16, u32)>>,
        committed: &mut std::collections::HashMap<u32, usize>,
        budget: &mut u32,
    ) -> Option<State> {
        if done(log, targets) {
            return Some(st.clone());
        }
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        for p in 0..m.procs() {
            if !m.enabled(st, p) {
                continue;
            }
            if p < m.threads {
                let have = log.iter().filter(|e| e.thread as usize == p && e.kind != EventKind::Commit).count();
                if have >= targets[p].len() {
                    continue;
                }
            } else {
                // Commit only the next write of the target coherence order.
                let head = st.bufs[p - m.threads].front().unwrap();
                let who = ordinal_of(log, head.store);
                let order = co.get(&head.cell).map(|v| v.as_slice()).unwrap_or(&[]);
                let next = *committed.get(&head.cell).unwrap_or(&0);
                if order.get(next) != Some(&who) {
                    continue;
                }
            }
            let mut next = st.clone();
            let mark = log.len();
            m.step(&mut next, p, schedule.len() as u32, log);
            schedule.push(p as u32);
            // Commits and atomics take the next places in coherence.
            let writes: Vec<u32> = log[mark..]
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Commit | EventKind::Rmw))
                .map(|e| e.cell)
                .collect();
            for &c in &writes {
                *committed.entry(c).or_insert(0) += 1;
            }
            if matches(log, targets) {
                if let Some(s) = go(m, &next, log, schedule, targets, co, committed, budget) {
                    return Some(s);
                }
            }
            for &c in &writes {
                *committed.get_mut(&c).unwrap() -= 1;
            }
            log.truncate(mark);
            schedule.pop();
        }
        None
    }
    let mut committed = std::collections::HashMap::new();
    let end = go(m, &st, &mut log, &mut schedule, targets, co, &mut committed, budget)?;
    Some((schedule, log.clone(), log.len(), end))
}

/// The witness of a Sober borderline trace: the SC events up to
/// `last(p)`'s causal past, and the load `access` reading the value
/// coherence-before `store` instead.
pub fn build_borderline(
    m: &Machine<'_>,
    sc: &[Event],
    hb: &Hb,
    upto: &[u32],
    (store, access): (u32, u32),
) -> Option<RelaxedWitness> {
    let threads = m.threads;
    let ord = |i: u32| (sc[i as usize].thread, hb.po(sc, i));
    let mut targets: Vec<Vec<Target>> = vec![Vec::new(); threads];
    let mut co: std::collections::HashMap<u32, Vec<(u16, u32)>> = Default::default();
    let mut last_write: std::collections::HashMap<u32, Option<(u16, u32)>> = Default::default();
    let mut before_store: Option<(u16, u32)> = None;
    for (i, e) in sc.iter().enumerate() {
        if e.kind == EventKind::Commit {
            continue;
        }
        let i = i as u32;
        if i == store {
            before_store = last_write.get(&e.cell).copied().flatten();
        }
        if e.is_write() {
            last_write.insert(e.cell, Some(ord(i)));
        }
        let t = e.thread as usize;
        if hb.po(sc, i) > upto[t] {
            continue;
        }
        let rf = if matches!(e.kind, EventKind::Load | EventKind::Rmw) {
            let src = crate::trace::source_write(sc, e.rf);
            if src == NONE {
                None
            } else {
                Some(ord(src))
            }
        } else {
            None
        };
        targets[t].push(Target { kind: e.kind, cell: e.cell, rf, either: false });
        if e.is_write() {
            co.entry(e.cell).or_default().push(ord(i));
        }
    }
    let a = &sc[access as usize];
    let p = a.thread as usize;
    if targets[p].len() as u32 + 1 != hb.po(sc, access) {
        return None;
    }
    targets[p].push(Target { kind: a.kind, cell: a.cell, rf: before_store, either: a.is_atomic() });
    let mut budget = 20_000;
    let (mut schedule, mut log, before_drain, state_after_access) = realize(m, &targets, &co, &mut budget)?;
    // Drain: a buffer's head may commit once every write before it in the
    // target coherence order has reached memory.
    let mut st = state_after_access.clone();
    let mut done: std::collections::HashMap<u32, usize> = Default::default();
    for e in log.iter().filter(|e| matches!(e.kind, EventKind::Commit | EventKind::Rmw)) {
        *done.entry(e.cell).or_insert(0) += 1;
    }
    while st.bufs.iter().any(|b| !b.is_empty()) {
        let ready = (0..st.bufs.len()).find(|&b| {
            st.bufs[b].front().is_some_and(|head| {
                let t = log[head.store as usize].thread;
                let k =
                    log[..=head.store as usize].iter().filter(|e| e.thread == t && e.kind != EventKind::Commit).count()
                        as u32;
                let order = co.get(&head.cell).map(|v| v.as_slice()).unwrap_or(&[]);
                let n = *done.get(&head.cell).unwrap_or(&0);
                match order.iter().position(|&x| x == (t, k)) {
                    Some(pos) => pos == n,
                    None => n >= order.len(),
                }
            })
        })?;
        let cell = st.bufs[ready].front().unwrap().cell;
        m.step(&mut st, m.threads + ready, schedule.len() as u32, &mut log);
        schedule.push((m.threads + ready) as u32);
        *done.entry(cell).or_insert(0) += 1;
    }
    let cycle = Trace::of(&log).cycle()?;
    Some(RelaxedWitness { schedule, events: log, before_drain, state_after_access: Some(state_after_access), cycle })
}
