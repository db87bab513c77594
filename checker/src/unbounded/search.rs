//! Breadth-first search of a [`System`]'s states with a visited set, so a
//! loop ends the first time it comes back to a state, and witnesses are
//! shortest paths (each state keeps its parent and the move from it).
//!
//! Partial-order reduction: where some thread's only move touches a
//! location no other thread can still touch (a load: that no other thread
//! can still write), that move alone is taken — a persistent set of one
//! (its thread's future does not depend on the others', nor theirs on it).
//! The cycle proviso keeps it sound with the visited set: the move is taken
//! alone only if it reaches a state not seen before; otherwise the state is
//! expanded fully. In breadth-first order every cycle of the reduced graph
//! then has a fully expanded state (its edge back to the earliest-found
//! state of the cycle would have been refused), so no move is put off for
//! ever (Clarke–Grumberg–Peled's C0–C3; Bošnački–Holzmann for BFS).
//! Reachable terminal states, failures, values read and attack successes
//! are those of the full graph.
//!
//! The search stops — and its answer is then no proof — at a cap on
//! states or bytes, at the deadline or on cancel, or when a value keeps
//! growing past anything the program's constants explain (see [`Stop`]).

use super::codec::Codec;
use super::system::{Applied, Closing, Move, Node, System};
use crate::machine::Event;
use crate::options::{Options, StateLimits};
use crate::progress::thousands;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Why a search stopped before it finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// More states than the cap.
    States(usize),
    /// More memory than the cap.
    Bytes(usize),
    /// The deadline, cancel or `--first`.
    Stopped(crate::certainty::Why),
    /// A variable's value grew past `bound` (what the program's constants
    /// could explain): the state space is most likely infinite.
    Growth { var: String, value: i64, states: usize },
    /// The program is outside what the procedure handles.
    Unsupported(&'static str),
    /// A relaxed model's search: a store had to wait for room in a full
    /// buffer, so its answer could only be within that bound.
    BufferBound(u32),
}

impl Stop {
    /// The reason in words: "`ticket` grows without bound (reached 131)".
    pub fn describe(&self) -> String {
        match self {
            Stop::States(n) => format!("more than {} states", thousands(*n as u64)),
            Stop::Bytes(n) => format!("the state space passed {} MiB", n >> 20),
            Stop::Stopped(w) => w.describe(),
            Stop::Growth { var, value, .. } => format!("`{var}` grows without bound (reached {value})"),
            Stop::Unsupported(what) => format!("not supported: {what}"),
            Stop::BufferBound(n) => format!("a store buffer filled up ({n} stores)"),
        }
    }
}

/// What a search reports as it goes.
pub trait Visitor {
    /// A move from state `from` reached state `to` (`new`: first time).
    #[allow(clippy::too_many_arguments)]
    fn edge(&mut self, _from: u32, _to: u32, _new: bool, _mv: Move, _a: &Applied, _before: &Node, _after: &Node) {}
    /// State `at` has no move.
    fn terminal(&mut self, _at: u32, _n: &Node) {}
    /// A move from `from` completed an attack.
    fn success(&mut self, _from: u32, _mv: Move, _c: Closing, _before: &Node) {}
    /// Nothing more is wanted: the search may stop (its answer is then
    /// what was found, not a proof of absence).
    fn done(&self) -> bool {
        false
    }
}

/// The states found: keys, parents, moves.
pub struct Space {
    keys: Vec<u8>,
    offs: Vec<u32>,
    table: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    parent: Vec<u32>,
    moved: Vec<Move>,
    /// Moves applied (transitions).
    pub transitions: u64,
    /// States in which a store waited for room in a full buffer (a
    /// relaxed model's search: the answer is then within that bound).
    pub buffer_waits: u64,
}

impl Space {
    fn new() -> Space {
        Space {
            keys: Vec::new(),
            offs: vec![0],
            table: HashTable::new(),
            hasher: Default::default(),
            parent: Vec::new(),
            moved: Vec::new(),
            transitions: 0,
            buffer_waits: 0,
        }
    }

    pub fn states(&self) -> usize {
        self.parent.len()
    }

    fn key(&self, i: u32) -> &[u8] {
        &self.keys[self.offs[i as usize] as usize..self.offs[i as usize + 1] as usize]
    }

    fn find(&self, key: &[u8], hash: u64) -> Option<u32> {
        self.table.find(hash, |&i| self.key(i) == key).copied()
    }

    /// Insert a key not present; its index.
    fn insert(&mut self, key: &[u8], hash: u64, parent: u32, mv: Move) -> u32 {
        let i = self.parent.len() as u32;
        self.keys.extend_from_slice(key);
        self.offs.push(self.keys.len() as u32);
        self.parent.push(parent);
        self.moved.push(mv);
        let Space { table, hasher, keys, offs, .. } = self;
        table.insert_unique(hash, i, |&j| {
            hasher.hash_one(&keys[offs[j as usize] as usize..offs[j as usize + 1] as usize])
        });
        i
    }

    /// What the states take: key bytes, and per state its key's offset,
    /// parent, move and hash-table slot.
    pub fn bytes(&self) -> usize {
        self.keys.len() + self.parent.len() * (4 + 4 + 4 + 8)
    }

    /// The moves from the initial state to state `i`.
    pub fn path(&self, mut i: u32) -> Vec<Move> {
        let mut out = Vec::new();
        while i != 0 {
            out.push(self.moved[i as usize]);
            i = self.parent[i as usize];
        }
        out.reverse();
        out
    }
}

/// Does some state within `states` of a depth-first walk of `sys` (a
/// relaxed model's own states) make a store wait for room in a full buffer?
/// A thread's own steps are tried before its buffers' commits, so buffers
/// fill where the program lets them: a loop that stores fills one within
/// a few hundred states, where breadth first needs tens of thousands
/// (Lamport's fast mutex: 67 against 53,000). Only a cheap first look: no
/// answer rests on it but "a buffer fills", which the state it found shows.
pub fn fills_a_buffer(sys: &System<'_>, states: usize) -> bool {
    let codec = Codec {
        flow: &sys.flow,
        reg_base: (0..sys.prog.threads.len()).map(|t| sys.m.reg_range(t).start).collect(),
        code_len: sys.prog.threads.iter().map(|t| t.code.len()).collect(),
        buf_owner: (0..sys.m.buffers()).map(|b| sys.m.owner(sys.m.threads + b)).collect(),
    };
    let mut seen: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    let mut key = Vec::new();
    let root = sys.initial();
    codec.encode(&root, &mut key);
    seen.insert(key.clone());
    let mut stack = vec![root];
    let (mut moves, mut log) = (Vec::new(), Vec::new());
    while let Some(n) = stack.pop() {
        if seen.len() >= states {
            return false;
        }
        sys.moves(&n, &mut moves);
        // Pushed last, taken first: threads' steps before commits.
        let mut order: Vec<Move> = moves.clone();
        order.sort_by_key(|m| std::cmp::Reverse(!sys.m.is_buffer(m.thread as usize)));
        for &mv in order.iter().rev() {
            let mut next = n.clone();
            if sys.apply(&mut next, mv, &mut log).is_none() {
                continue;
            }
            if next.st.buffer_bound_hit {
                return true;
            }
            codec.encode(&next, &mut key);
            if seen.insert(key.clone()) {
                stack.push(next);
            }
        }
    }
    false
}

/// Values seen per variable, to notice one that keeps growing.
struct Growth {
    bound: i64,
    max: Vec<i64>,
}

/// Explore every state of `sys` reachable from its initial state.
pub fn explore(
    sys: &System<'_>,
    limits: &StateLimits,
    opts: &Options,
    v: &mut dyn Visitor,
) -> (Space, Result<(), Stop>) {
    let codec = Codec {
        flow: &sys.flow,
        reg_base: (0..sys.prog.threads.len()).map(|t| sys.m.reg_range(t).start).collect(),
        code_len: sys.prog.threads.iter().map(|t| t.code.len()).collect(),
        buf_owner: (0..sys.m.buffers()).map(|b| sys.m.owner(sys.m.threads + b)).collect(),
    };
    let mut space = Space::new();
    let root = sys.initial();
    let mut key = Vec::new();
    codec.encode(&root, &mut key);
    let h = space.hasher.hash_one(&key[..]);
    space.insert(&key, h, 0, Move { thread: 0, choice: super::system::Choice::Step });
    let nvars = root.st.mem().len() + root.st.regs().len();
    let mut growth = Growth { bound: sys.flow.max_constant.saturating_mul(4).saturating_add(64), max: vec![0; nvars] };
    let mut base = root.clone();
    let mut succ = root.clone();
    let mut moves = Vec::new();
    let mut log: Vec<Event> = Vec::new();
    let mut cur: u32 = 0;
    let mut reported = 0usize;
    let result = loop {
        if cur as usize >= space.states() || v.done() {
            break Ok(());
        }
        if cur.is_multiple_of(256) {
            if let Some(p) = &opts.budget.progress {
                p.add_states((space.states() - reported) as u64);
                reported = space.states();
            }
            if let Some(w) = crate::certainty::Why::stopped(&opts.budget) {
                break Err(Stop::Stopped(w));
            }
            if space.states() > limits.max_states {
                break Err(Stop::States(limits.max_states));
            }
            if space.bytes() > limits.max_bytes {
                break Err(Stop::Bytes(limits.max_bytes));
            }
            if space.states() > limits.growth_after {
                if let Some(stop) = grown(sys, &growth, space.states()) {
                    break Err(stop);
                }
            }
        }
        codec.decode(space.key(cur), &mut base);
        sys.moves(&base, &mut moves);
        if moves.is_empty() {
            v.terminal(cur, &base);
            cur += 1;
            continue;
        }
        // A persistent set of one, if it reaches a new state.
        let alone = moves.iter().copied().find(|&mv| sys.independent(&base, mv, &moves));
        let mut done = false;
        if let Some(mv) = alone {
            succ.clone_from(&base);
            space.transitions += 1;
            if let Some(a) = sys.apply(&mut succ, mv, &mut log).filter(|a| a.success.is_none()) {
                codec.encode(&succ, &mut key);
                let h = space.hasher.hash_one(&key[..]);
                match space.find(&key, h) {
                    None => {
                        let to = space.insert(&key, h, cur, mv);
                        note(&mut growth, &succ);
                        v.edge(cur, to, true, mv, &a, &base, &succ);
                        done = true;
                    }
                    // Without cycles no move can be put off for ever.
                    Some(to) if sys.acyclic => {
                        v.edge(cur, to, false, mv, &a, &base, &succ);
                        done = true;
                    }
                    Some(_) => {}
                }
            }
        }
        if !done {
            for &mv in &moves {
                succ.clone_from(&base);
                space.transitions += 1;
                let Some(a) = sys.apply(&mut succ, mv, &mut log) else { continue };
                if succ.st.buffer_bound_hit {
                    space.buffer_waits += 1;
                    if limits.stop_at_full_buffer {
                        return (space, Err(Stop::BufferBound(sys.m.buffer_bound)));
                    }
                }
                if let Some(c) = a.success {
                    v.success(cur, mv, c, &base);
                    continue;
                }
                codec.encode(&succ, &mut key);
                #[cfg(debug_assertions)]
                {
                    let mut back = succ.clone();
                    codec.decode(&key, &mut back);
                    let mut again = Vec::new();
                    codec.encode(&back, &mut again);
                    debug_assert_eq!(key, again, "a key decodes to itself");
                    // Dead cells are keyed as 0.
                    debug_assert!(codec.keyed_memory(&back).eq(codec.keyed_memory(&succ)));
                    debug_assert_eq!(back.st.pending(), succ.st.pending(), "pending");
                    let bufs = |n: &Node| {
                        n.st.bufs
                            .iter()
                            .map(|b| b.iter().map(|e| (e.cell, e.value)).collect::<Vec<_>>())
                            .collect::<Vec<_>>()
                    };
                    debug_assert_eq!(bufs(&back), bufs(&succ));
                    debug_assert_eq!(back.st.threads.len(), succ.st.threads.len());
                }
                let h = space.hasher.hash_one(&key[..]);
                let (to, new) = match space.find(&key, h) {
                    Some(to) => (to, false),
                    None => {
                        note(&mut growth, &succ);
                        (space.insert(&key, h, cur, mv), true)
                    }
                };
                v.edge(cur, to, new, mv, &a, &base, &succ);
            }
        }
        cur += 1;
    };
    if let Some(p) = &opts.budget.progress {
        p.add_states((space.states() - reported) as u64);
    }
    (space, result)
}

fn note(g: &mut Growth, n: &Node) {
    let vals = n.st.mem().iter().chain(n.st.regs().iter());
    for (m, &x) in g.max.iter_mut().zip(vals) {
        let a = x.checked_abs().unwrap_or(i64::MAX);
        if a > *m {
            *m = a;
        }
    }
}

/// The variable that grew past what the constants explain, if one did:
/// a location rather than a register, a register the user named rather
/// than a temporary (it is the one the user knows).
fn grown(sys: &System<'_>, g: &Growth, states: usize) -> Option<Stop> {
    let cells = sys.m.touched();
    let name = |i: usize| -> Option<(u8, String)> {
        if i < cells.len() {
            return Some((0, sys.prog.cell_name(cells[i])));
        }
        let r = i - cells.len();
        let t = (0..sys.prog.threads.len()).find(|&t| sys.m.reg_range(t).contains(&r))?;
        let th = &sys.prog.threads[t];
        let reg = &th.regs[r - sys.m.reg_range(t).start];
        let rank = if reg.kind == litmus_ir::RegKind::User { 1 } else { 2 };
        Some((rank, format!("{}:{}", th.name, reg.name)))
    };
    let (rank, mut var, mut value) = g
        .max
        .iter()
        .enumerate()
        .filter(|(_, &m)| m > g.bound)
        .filter_map(|(i, &m)| name(i).map(|(rank, var)| (rank, var, m)))
        .min_by_key(|(rank, _, m)| (*rank, std::cmp::Reverse(*m)))?;
    if rank == 2 {
        // A temporary grew (a ticket plus one): name the location or
        // register it comes from — the largest past the constants.
        if let Some((_, v, m)) = g
            .max
            .iter()
            .enumerate()
            .filter(|(_, &m)| m > g.bound / 2)
            .filter_map(|(i, &m)| name(i).map(|(rank, var)| (rank, var, m)))
            .filter(|(rank, _, _)| *rank < 2)
            .min_by_key(|(rank, _, m)| (*rank, std::cmp::Reverse(*m)))
        {
            (var, value) = (v, m);
        }
    }
    Some(Stop::Growth { var, value, states })
}
