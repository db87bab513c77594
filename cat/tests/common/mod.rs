//! Random executions shaped as the explorer builds them (herd's x86
//! events, see `checker/tests/cat_oracle.rs`), from a seeded generator.

#![allow(dead_code)]

use litmus_cat::eval::Execution;

/// xorshift64*, seeded.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, k: usize) -> usize {
        (self.next() % k as u64) as usize
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Fence,
}

/// One event of a program being built.
#[derive(Clone, Debug)]
pub struct Event {
    pub kind: Kind,
    /// None for the initial writes.
    pub thread: Option<usize>,
    /// None for fences.
    pub loc: Option<usize>,
    /// Locked (in `X`).
    pub locked: bool,
    /// Fence tag.
    pub tag: &'static str,
    /// The instruction it belongs to (an rmw's two events share it).
    pub instr: usize,
}

/// A program's events with rf and co, from which executions are made.
#[derive(Clone, Debug)]
pub struct Graph {
    pub events: Vec<Event>,
    /// Per read: the write it reads.
    pub rf: Vec<(usize, usize)>,
    /// Per location: its writes in coherence order.
    pub co: Vec<Vec<usize>>,
    /// rmw pairs (read, write).
    pub rmw: Vec<(usize, usize)>,
    pub locs: usize,
}

/// How the execution is written down.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub give_int: bool,
    pub give_x: bool,
    pub give_same_instance: bool,
    /// `co` as its immediate pairs only.
    pub immediate_co: bool,
    pub give_fences: bool,
}

impl Style {
    pub const EXPLORER: Style =
        Style { give_int: true, give_x: true, give_same_instance: true, immediate_co: false, give_fences: true };
    pub fn random(rng: &mut Rng) -> Style {
        if rng.chance(60) {
            return Style::EXPLORER;
        }
        Style {
            give_int: rng.chance(70),
            give_x: rng.chance(70),
            give_same_instance: rng.chance(70),
            immediate_co: rng.chance(30),
            give_fences: rng.chance(80),
        }
    }
}

impl Graph {
    /// Only the initial writes.
    pub fn initial(locs: usize) -> Graph {
        let events = (0..locs)
            .map(|l| Event { kind: Kind::Write, thread: None, loc: Some(l), locked: false, tag: "", instr: l })
            .collect();
        Graph { events, rf: Vec::new(), co: (0..locs).map(|l| vec![l]).collect(), rmw: Vec::new(), locs }
    }

    fn writes_of(&self, l: usize) -> Vec<usize> {
        self.co[l].clone()
    }

    /// Adds one random instruction to `thread` (at the end of its po): a
    /// read (from a random write of its location), a write (inserted at a
    /// random place of its location's co, after the initial write unless
    /// `wild`), an rmw, a fence.
    pub fn step(&mut self, rng: &mut Rng, thread: usize, wild: bool) {
        let instr = self.events.iter().map(|e| e.instr + 1).max().unwrap_or(0);
        let l = rng.below(self.locs);
        let push = |g: &mut Graph, kind, loc, locked, tag| {
            g.events.push(Event { kind, thread: Some(thread), loc, locked, tag, instr });
            g.events.len() - 1
        };
        let full = self.co[l].len() >= 5;
        match rng.below(10) {
            0..=3 => {
                let r = push(self, Kind::Read, Some(l), rng.chance(10), "");
                let ws = self.writes_of(l);
                self.rf.push((ws[rng.below(ws.len())], r));
            }
            4..=6 if !full => {
                let w = push(self, Kind::Write, Some(l), false, "");
                let lo = if wild { 0 } else { 1 };
                let at = lo + rng.below(self.co[l].len() + 1 - lo);
                self.co[l].insert(at, w);
            }
            7 if !full => {
                let r = push(self, Kind::Read, Some(l), true, "");
                let ws = self.writes_of(l);
                self.rf.push((ws[rng.below(ws.len())], r));
                let w = push(self, Kind::Write, Some(l), true, "");
                let lo = if wild { 0 } else { 1 };
                let at = lo + rng.below(self.co[l].len() + 1 - lo);
                self.co[l].insert(at, w);
                self.rmw.push((r, w));
            }
            _ => {
                let tag = ["MFENCE", "SFENCE", "LFENCE"][rng.below(3)];
                push(self, Kind::Fence, None, false, tag);
            }
        }
    }

    /// Adds one random instruction to `thread` as a sequentially
    /// consistent run would: a read reads its location's last write, a
    /// write goes last in its location's co. Executions built so are
    /// allowed by every model.
    pub fn step_sc(&mut self, rng: &mut Rng, thread: usize) {
        let instr = self.events.iter().map(|e| e.instr + 1).max().unwrap_or(0);
        let l = rng.below(self.locs);
        let push = |g: &mut Graph, kind, loc, locked, tag| {
            g.events.push(Event { kind, thread: Some(thread), loc, locked, tag, instr });
            g.events.len() - 1
        };
        let last = *self.co[l].last().expect("an initial write");
        let full = self.co[l].len() >= 5;
        match rng.below(10) {
            0..=3 => {
                let r = push(self, Kind::Read, Some(l), rng.chance(10), "");
                self.rf.push((last, r));
            }
            4..=6 if !full => {
                let w = push(self, Kind::Write, Some(l), false, "");
                self.co[l].push(w);
            }
            7 if !full => {
                let r = push(self, Kind::Read, Some(l), true, "");
                self.rf.push((last, r));
                let w = push(self, Kind::Write, Some(l), true, "");
                self.co[l].push(w);
                self.rmw.push((r, w));
            }
            _ => {
                let tag = ["MFENCE", "SFENCE", "LFENCE"][rng.below(3)];
                push(self, Kind::Fence, None, false, tag);
            }
        }
    }

    /// A random program graph: `threads` threads of up to `len`
    /// instructions, over `locs` locations.
    pub fn random(rng: &mut Rng, threads: usize, len: usize, locs: usize, wild: bool) -> Graph {
        let mut g = Graph::initial(locs);
        let total = threads * (1 + rng.below(len));
        for _ in 0..total {
            let t = rng.below(threads);
            g.step(rng, t, wild);
        }
        g
    }

    pub fn to_execution(&self, style: Style) -> Execution {
        let n = self.events.len();
        let ev = &self.events;
        let of = |k: Kind| -> Vec<usize> { (0..n).filter(|&i| ev[i].kind == k).collect() };
        let iw: Vec<usize> = (0..n).filter(|&i| ev[i].thread.is_none()).collect();
        let mut x = Execution::new(n).set("IW", &iw).set("W", &of(Kind::Write)).set("R", &of(Kind::Read));
        if style.give_fences {
            x = x.set("F", &of(Kind::Fence));
            for tag in ["MFENCE", "SFENCE", "LFENCE"] {
                let s: Vec<usize> = (0..n).filter(|&i| ev[i].tag == tag).collect();
                x = x.set(tag, &s);
            }
        }
        if style.give_x {
            let s: Vec<usize> = (0..n).filter(|&i| ev[i].locked).collect();
            x = x.set("X", &s);
        }
        let mut po = Vec::new();
        let mut int = Vec::new();
        let mut loc = Vec::new();
        for a in 0..n {
            for b in 0..n {
                if ev[a].thread.is_some() && ev[a].thread == ev[b].thread {
                    int.push((a, b));
                    if a < b && ev[a].instr != ev[b].instr {
                        po.push((a, b));
                    }
                } else if a == b {
                    int.push((a, b));
                }
                if ev[a].loc.is_some() && ev[a].loc == ev[b].loc {
                    loc.push((a, b));
                }
            }
        }
        let mut co = Vec::new();
        for ws in &self.co {
            for (i, &a) in ws.iter().enumerate() {
                if style.immediate_co {
                    if let Some(&b) = ws.get(i + 1) {
                        co.push((a, b));
                    }
                } else {
                    for &b in &ws[i + 1..] {
                        co.push((a, b));
                    }
                }
            }
        }
        x = x.rel("po", &po).rel("rf", &self.rf).rel("co", &co).rel("loc", &loc);
        if style.give_int {
            x = x.rel("int", &int);
        }
        if style.give_same_instance {
            let mut si: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
            for &(r, w) in &self.rmw {
                si.extend([(r, w), (w, r)]);
            }
            x = x.rel("same-instance", &si);
        }
        x
    }
}

/// `x` with every fence tag and access label the explorer binds (herd's
/// AArch64, RISC-V and C names: `DMB.SY`, `Acq`, `RMW`…) bound, empty
/// where `x` has none, and the dependency relations empty: so that
/// architecture models evaluate it as a program of plain accesses.
pub fn with_arch_names(mut x: Execution) -> Execution {
    if !x.sets.contains_key("F") {
        x = x.set("F", &[]);
    }
    for k in litmus_ir::FenceKind::all_tags().chain(litmus_ir::Labels::all_names()) {
        if !x.sets.contains_key(k) {
            x = x.set(k, &[]);
        }
    }
    // The relations the candidate explorer makes (`checker`'s `build`).
    let rels = ["addr", "data", "ctrl", "pick-addr", "pick-data", "pick-ctrl", "iico_data", "iico_ctrl", "iico_order"];
    for r in rels.into_iter().chain(["rf-reg", "rmw", "amo"]) {
        if !x.rels.contains_key(r) {
            x = x.rel(r, &[]);
        }
    }
    x
}
