//! A state's key: the bytes that tell two states of the search apart, and
//! nothing else. Memory (every touched cell), each thread's status and pc,
//! its *live* registers only (see [`super::flow`]), and the attack's own
//! components. Left out because no future depends on them: which event
//! last wrote a cell, loop counters (loops are not counted), dead
//! registers. Numbers are LEB128 varints (signed ones zigzagged), so a
//! small program's state is a few dozen bytes.

use super::flow::Flow;
use super::system::{Atk, Node, Phase};
use crate::machine::{FailureKind, State, ThreadStatus, NONE};

#[inline]
pub fn put_u(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
pub fn put_i(out: &mut Vec<u8>, v: i64) {
    put_u(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Reads what [`put_u`]/[`put_i`] wrote.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }
    #[inline]
    pub fn u(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.bytes[self.at];
            self.at += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }
    #[inline]
    pub fn i(&mut self) -> i64 {
        let z = self.u();
        ((z >> 1) as i64) ^ -((z & 1) as i64)
    }
    pub fn byte(&mut self) -> u8 {
        let b = self.bytes[self.at];
        self.at += 1;
        b
    }
}

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const STUCK: u8 = 2;
const PRUNED: u8 = 3;
const FAILED: u8 = 4;
const CUT: u8 = 5;

fn kind_byte(k: FailureKind) -> u8 {
    match k {
        FailureKind::Assertion => 0,
        FailureKind::IndexOutOfBounds => 1,
        FailureKind::DivisionByZero => 2,
        FailureKind::BadAddress => 3,
        FailureKind::StoreConditional => 4,
    }
}

fn byte_kind(b: u8) -> FailureKind {
    match b {
        0 => FailureKind::Assertion,
        1 => FailureKind::IndexOutOfBounds,
        2 => FailureKind::DivisionByZero,
        3 => FailureKind::BadAddress,
        _ => FailureKind::StoreConditional,
    }
}

/// Encodes and decodes nodes of one program's search.
pub struct Codec<'f> {
    pub flow: &'f Flow,
    /// Per thread, where its registers start in `State::regs`.
    pub reg_base: Vec<usize>,
    /// Per thread, its code length (the pc of its end).
    pub code_len: Vec<usize>,
    /// Per store buffer (a relaxed model's), the thread it belongs to.
    pub buf_owner: Vec<usize>,
}

impl Codec<'_> {
    /// The live registers of thread `t` standing at `pc`.
    fn live(&self, t: usize, pc: usize) -> &super::flow::Bits {
        &self.flow.live[t][pc.min(self.code_len[t])]
    }

    /// Cell slots no future of this state reads: no thread may still
    /// read them and the final state does not observe them. Their values
    /// are keyed as 0, so states that differ only there are one state.
    /// Only outside an attack (whose overlay and marks name cells), and for
    /// at most 64 slots (else none).
    fn dead_cells(&self, n: &Node) -> u64 {
        if n.atk.phase != Phase::Sc {
            return 0;
        }
        let Some(live) = self.flow.live_cells(&n.st) else { return 0 };
        let all = if n.st.mem().len() == 64 { u64::MAX } else { (1u64 << n.st.mem().len()) - 1 };
        all & !live
    }

    /// The memory as keyed: dead cells as 0.
    pub(super) fn keyed_memory<'n>(&self, n: &'n Node) -> impl Iterator<Item = i64> + 'n {
        let dead = self.dead_cells(n);
        n.st.mem().iter().enumerate().map(move |(i, &v)| if dead & (1 << i) != 0 { 0 } else { v })
    }

    pub fn encode(&self, n: &Node, out: &mut Vec<u8>) {
        out.clear();
        let st = &n.st;
        for v in self.keyed_memory(n) {
            put_i(out, v);
        }
        for (t, status) in st.threads.iter().enumerate() {
            let regs = |pc: usize, out: &mut Vec<u8>| {
                for r in self.live(t, pc).ones() {
                    put_i(out, st.regs_at(self.reg_base[t] + r));
                }
            };
            match *status {
                ThreadStatus::Running => {
                    out.push(RUNNING);
                    put_u(out, st.pc_at(t) as u64);
                    regs(st.pc_at(t) as usize, out);
                }
                ThreadStatus::Stuck => {
                    out.push(STUCK);
                    put_u(out, st.pc_at(t) as u64);
                    regs(st.pc_at(t) as usize, out);
                }
                ThreadStatus::Done => {
                    out.push(DONE);
                    regs(self.code_len[t], out);
                }
                ThreadStatus::Pruned => out.push(PRUNED),
                ThreadStatus::Cut => out.push(CUT),
                ThreadStatus::Failed { stmt, kind, .. } => {
                    out.push(FAILED);
                    put_u(out, stmt as u64);
                    out.push(kind_byte(kind));
                }
            }
        }
        // Store buffers (a relaxed model's states): each one's stores, oldest first.
        for b in &st.bufs {
            put_u(out, b.len() as u64);
            for e in b {
                put_u(out, e.cell as u64);
                put_i(out, e.value);
            }
        }
        let a = &n.atk;
        out.push(a.phase as u8);
        if a.phase == Phase::Sc {
            return;
        }
        out.push(a.model);
        put_u(out, a.attacker as u64);
        put_u(out, a.w_pc as u64);
        put_u(out, a.r_pc.wrapping_add(1) as u64);
        put_u(out, a.cell as u64);
        put_u(out, a.overlay.len() as u64);
        for &(c, v) in &a.overlay {
            put_u(out, c as u64);
            put_i(out, v);
        }
        put_u(out, a.marks.len() as u64);
        for &(c, k) in &a.marks {
            put_u(out, c as u64);
            out.push(k);
        }
        put_u(out, a.helpers);
    }

    /// Rebuild a node from its key into `n` (its allocations reused). What
    /// the key leaves out comes back as in the initial state: writers
    /// unknown, loop counters 0, dead registers 0.
    pub fn decode(&self, key: &[u8], n: &mut Node) {
        let mut r = Reader::new(key);
        let st: &mut State = &mut n.st;
        for v in st.mem_mut().iter_mut() {
            *v = r.i();
        }
        st.writer_mut().iter_mut().for_each(|w| *w = NONE);
        st.regs_mut().iter_mut().for_each(|v| *v = 0);
        for t in 0..st.threads.len() {
            let tag = r.byte();
            let regs = |pc: usize, st: &mut State, r: &mut Reader<'_>| {
                for reg in self.live(t, pc).ones() {
                    *st.regs_at_mut(self.reg_base[t] + reg) = r.i();
                }
            };
            *st.pc_at_mut(t) = 0;
            st.threads[t] = match tag {
                RUNNING | STUCK => {
                    let pc = r.u() as u32;
                    *st.pc_at_mut(t) = pc;
                    regs(pc as usize, st, &mut r);
                    if tag == RUNNING {
                        ThreadStatus::Running
                    } else {
                        ThreadStatus::Stuck
                    }
                }
                DONE => {
                    *st.pc_at_mut(t) = self.code_len[t] as u32;
                    regs(self.code_len[t], st, &mut r);
                    ThreadStatus::Done
                }
                PRUNED => ThreadStatus::Pruned,
                CUT => ThreadStatus::Cut,
                _ => {
                    let stmt = r.u() as u32;
                    let kind = byte_kind(r.byte());
                    ThreadStatus::Failed { stmt, kind, at: 0 }
                }
            };
        }
        st.pending_mut().iter_mut().for_each(|p| *p = 0);
        st.buffer_bound_hit = false;
        for b in 0..st.bufs.len() {
            st.bufs[b].clear();
            for _ in 0..r.u() {
                let cell = r.u() as u32;
                let value = r.i();
                st.bufs[b].push_back(crate::machine::BufEntry { cell, value, store: NONE, origin: NONE });
            }
        }
        for b in 0..st.bufs.len() {
            let n = st.bufs[b].len() as u32;
            if n > 0 {
                *st.pending_at_mut(self.buf_owner[b]) += n;
            }
        }
        let a: &mut Atk = &mut n.atk;
        a.phase = match r.byte() {
            0 => Phase::Sc,
            1 => Phase::Attacking,
            _ => Phase::Helping,
        };
        a.overlay.clear();
        a.marks.clear();
        if a.phase == Phase::Sc {
            a.reset();
            return;
        }
        a.model = r.byte();
        a.attacker = r.u() as u16;
        a.w_pc = r.u() as u32;
        a.r_pc = (r.u() as u32).wrapping_sub(1);
        a.cell = r.u() as u32;
        for _ in 0..r.u() {
            let c = r.u() as u32;
            let v = r.i();
            a.overlay.push((c, v));
        }
        for _ in 0..r.u() {
            let c = r.u() as u32;
            let k = r.byte();
            a.marks.push((c, k));
        }
        a.helpers = r.u();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut out = Vec::new();
        let vals = [0i64, 1, -1, 63, -64, 64, 1 << 40, i64::MAX, i64::MIN];
        for &v in &vals {
            put_i(&mut out, v);
        }
        put_u(&mut out, u64::MAX);
        let mut r = Reader::new(&out);
        for &v in &vals {
            assert_eq!(r.i(), v);
        }
        assert_eq!(r.u(), u64::MAX);
    }
}
