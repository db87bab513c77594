//! One thread of one run on the real CPU: the IR interpreted over shared
//! atomic cells, its registers local.
//!
//! The mapping to x86-64 (what litmus7 would emit for the same test):
//!
//! | IR | Rust | x86-64 |
//! | --- | --- | --- |
//! | load | `load(Relaxed)` | `mov` |
//! | store | `store(Relaxed)` | `mov` |
//! | `fence` / `fence wr` / `MFENCE` | `_mm_mfence` (elsewhere `fence(SeqCst)`) | `mfence` |
//! | `fence ww` / `fence rr` / `SFENCE` / `LFENCE` | `compiler_fence(SeqCst)` | nothing |
//! | xchg, fetch-op, cas (native and `LOCK`'d) | `swap` / `fetch_*` / `compare_exchange`, `SeqCst` | `xchg` / `lock xadd` / `lock cmpxchg` |
//! | `lock(m)` | load until 0, then `compare_exchange(0, 1, SeqCst)` | `mov` spin, `lock cmpxchg` |
//! | `await` | re-evaluate until true | `mov` spin |
//!
//! `ww` and `rr` order nothing x86-TSO does not already order (stores
//! commit in order, loads are not reordered), so only the compiler is
//! fenced; SFENCE/LFENCE matter only for non-temporal stores and
//! instruction timing, not for ordinary write-back memory. Every locked
//! instruction is a full fence on x86, which is both the x86 `LOCK`
//! semantics and the native atomics' semantics under TSO (drain the buffer).
//! On other architectures loads are `Acquire` and stores `Release`, which
//! allows no more than TSO does, so a state TSO forbids is still a bug.

use super::sync::{Backoff, Spot};
use litmus_checker::machine::{resolve, FailureKind};
use litmus_ir::{Addr, Cell, Instr, Operand, RmwOp, StmtId, Thread};
use std::sync::atomic::{compiler_fence, AtomicBool, AtomicI64, Ordering};

#[cfg(target_arch = "x86_64")]
const LOAD: Ordering = Ordering::Relaxed;
#[cfg(target_arch = "x86_64")]
const STORE: Ordering = Ordering::Relaxed;
#[cfg(not(target_arch = "x86_64"))]
const LOAD: Ordering = Ordering::Acquire;
#[cfg(not(target_arch = "x86_64"))]
const STORE: Ordering = Ordering::Release;

/// A full fence. On x86-64 the `mfence` instruction itself, as litmus7 runs
/// MFENCE: LLVM compiles `fence(SeqCst)` to `lock or` on the stack, which
/// orders ordinary memory the same but is not the instruction the test names.
#[inline(always)]
fn mfence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; mfence has no other precondition.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_mfence()
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::sync::atomic::fence(Ordering::SeqCst)
}

/// One shared cell, alone on its cache lines (128 bytes: adjacent-line
/// prefetch pairs lines), so cells and instances share no line.
#[repr(align(128))]
#[derive(Debug, Default)]
pub struct Slot(pub AtomicI64);

/// How a thread's part of a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Reached the end of its code or a `return`.
    Done,
    /// An assertion or run-time check failed.
    Failed { stmt: StmtId, kind: FailureKind },
    /// A loop ran past the loop bound.
    Cut,
    /// An `assume` was false.
    Pruned,
    /// An `await` or `lock` did not succeed within the spin limit.
    Stuck { stmt: StmtId },
    /// The batch's time limit passed: the run is abandoned.
    Aborted,
}

/// A memory operation as a history records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read {
        cell: Cell,
        value: i64,
    },
    Write {
        cell: Cell,
        value: i64,
        stmt: StmtId,
    },
    Rmw {
        cell: Cell,
        read: i64,
        write: i64,
        stmt: StmtId,
    },
    /// A full fence (`mfence`).
    Fence,
    /// A locked instruction that wrote nothing new (a failed
    /// compare-and-swap, an exchange with the same value): `F R F`, as the
    /// history module converts such atomics.
    FencedRead {
        cell: Cell,
        value: i64,
    },
}

/// What a recorded thread did in one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub ops: Vec<Op>,
    /// Failed `await`/`lock` attempts, left out of `ops`: they only read,
    /// and a history with fewer reads is consistent whenever the whole is.
    pub dropped_attempts: u64,
}

/// Per thread and run, what the interpreter needs besides the code.
pub struct Limits<'a> {
    pub loop_bound: u32,
    /// Failed attempts of one `await` or `lock` before the run gives up.
    pub spin_limit: u64,
    /// Set by the driver when the batch's time limit passes.
    pub abort: &'a AtomicBool,
    /// Where this thread spins, for the time-limit message.
    pub spot: &'a Spot,
}

/// Run `thread`'s code once over `mem` (one instance's cells). `regs` holds
/// the initial registers and ends with the final ones; `loops` is scratch.
#[inline(never)]
pub fn run(
    thread: &Thread,
    layout: &litmus_ir::Layout,
    mem: &[Slot],
    regs: &mut [i64],
    loops: &mut [u32],
    mut trace: Option<&mut Trace>,
    lim: &Limits<'_>,
) -> End {
    let code = &thread.code;
    loops.fill(0);
    let mut pc = 0usize;
    // Failed attempts of the current await or lock, and where its recorded
    // operations start (a failed attempt's are dropped).
    let mut attempts = 0u64;
    let mut mark = 0usize;
    let mut backoff = Backoff::default();
    macro_rules! val {
        ($o:expr) => {
            match $o {
                Operand::Imm(v) => v,
                Operand::Reg(r) => regs[r as usize],
            }
        };
    }
    macro_rules! cell {
        ($a:expr, $stmt:expr) => {
            match $a {
                // The common case, without a call: every cycle between a
                // store and the next load narrows the window the test is for.
                Addr::Fixed(c) => c,
                a => match resolve(regs, a, layout) {
                    Ok(c) => c,
                    Err(kind) => return End::Failed { stmt: $stmt, kind },
                },
            }
        };
    }
    macro_rules! record {
        ($op:expr) => {
            if let Some(t) = trace.as_deref_mut() {
                t.ops.push($op);
            }
        };
    }
    // A failed attempt: spin (bounded by count and by the time limit).
    macro_rules! retry {
        ($stmt:expr) => {{
            attempts += 1;
            if attempts > lim.spin_limit {
                lim.spot.clear();
                return End::Stuck { stmt: $stmt };
            }
            if lim.abort.load(Ordering::Relaxed) {
                return End::Aborted;
            }
            if attempts == 1 {
                lim.spot.spin_at($stmt);
                backoff = Backoff::default();
            }
            backoff.snooze();
        }};
    }
    while let Some(ins) = code.get(pc) {
        let mut next = pc + 1;
        match *ins {
            // Its failure is a choice, not a CPU's (`litmus run` refuses it).
            Instr::StoreCond { stmt, .. } | Instr::Pair { stmt, .. } => {
                return End::Failed { stmt, kind: FailureKind::StoreConditional }
            }
            Instr::Load { dst, addr, stmt, .. } => {
                let c = cell!(addr, stmt);
                let v = mem[c as usize].0.load(LOAD);
                regs[dst as usize] = v;
                record!(Op::Read { cell: c, value: v });
            }
            Instr::Store { addr, val, stmt, .. } => {
                let c = cell!(addr, stmt);
                let v = val!(val);
                mem[c as usize].0.store(v, STORE);
                record!(Op::Write { cell: c, value: v, stmt });
            }
            Instr::Rmw { dst, addr, op: RmwOp::Lock, stmt, .. } => {
                let c = cell!(addr, stmt);
                let m = &mem[c as usize].0;
                // Test and test-and-set: spin on a plain load, so a held
                // lock's line is not bounced by locked writes.
                while m.load(LOAD) != 0 || m.compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst).is_err() {
                    if let Some(t) = trace.as_deref_mut() {
                        t.dropped_attempts += 1;
                    }
                    retry!(stmt);
                }
                if attempts > 0 {
                    lim.spot.clear();
                    attempts = 0;
                }
                regs[dst as usize] = 0;
                record!(Op::Rmw { cell: c, read: 0, write: 1, stmt });
            }
            Instr::Rmw { dst, addr, op, stmt, .. } => {
                let c = cell!(addr, stmt);
                let m = &mem[c as usize].0;
                let sc = Ordering::SeqCst;
                let (old, new) = match op {
                    RmwOp::Xchg(v) => {
                        let v = val!(v);
                        (m.swap(v, sc), v)
                    }
                    RmwOp::Fetch(bop, v) => {
                        let v = val!(v);
                        use litmus_ir::BinOp;
                        let old = match bop {
                            BinOp::Add => m.fetch_add(v, sc),
                            BinOp::Sub => m.fetch_sub(v, sc),
                            BinOp::BitAnd => m.fetch_and(v, sc),
                            BinOp::BitOr => m.fetch_or(v, sc),
                            BinOp::BitXor => m.fetch_xor(v, sc),
                            // No single instruction: a CAS loop, still one
                            // atomic step. Division by zero writes the old
                            // value back, as the explorer's machine does.
                            _ => match m.fetch_update(sc, sc, |o| Some(bop.eval(o, v).unwrap_or(o))) {
                                Ok(o) | Err(o) => o,
                            },
                        };
                        (old, bop.eval(old, v).unwrap_or(old))
                    }
                    RmwOp::Cas { expected, new, .. } => {
                        let (e, n) = (val!(expected), val!(new));
                        match m.compare_exchange(e, n, sc, sc) {
                            Ok(o) => (o, n),
                            Err(o) => (o, o),
                        }
                    }
                    RmwOp::Lock => unreachable!("matched above"),
                };
                regs[dst as usize] = old;
                if old == new {
                    record!(Op::FencedRead { cell: c, value: old });
                } else {
                    record!(Op::Rmw { cell: c, read: old, write: new, stmt });
                }
            }
            // On x86 only a fence ordering a store before a load needs MFENCE.
            Instr::Fence { kind, .. } => {
                if kind.orders(true, false) {
                    mfence();
                    record!(Op::Fence);
                } else {
                    compiler_fence(Ordering::SeqCst)
                }
            }
            Instr::Mov { dst, src } => regs[dst as usize] = val!(src),
            Instr::Select { dst, cond, a, b } => regs[dst as usize] = if val!(cond) != 0 { val!(a) } else { val!(b) },
            Instr::Un { dst, op, a } => regs[dst as usize] = op.eval(val!(a)),
            Instr::Bin { dst, op, a, b, stmt } => match op.eval(val!(a), val!(b)) {
                Some(v) => regs[dst as usize] = v,
                None => return End::Failed { stmt, kind: FailureKind::DivisionByZero },
            },
            Instr::Jump { target } => next = target as usize,
            Instr::Branch { cond, if_nonzero, target } => {
                if (val!(cond) != 0) == if_nonzero {
                    next = target as usize;
                }
            }
            Instr::LoopEnter { id } => loops[id as usize] = 0,
            Instr::LoopIter { id, bound, .. } => {
                loops[id as usize] += 1;
                if loops[id as usize] > bound.unwrap_or(lim.loop_bound) {
                    return End::Cut;
                }
            }
            Instr::Assert { cond, stmt } => {
                if val!(cond) == 0 {
                    return End::Failed { stmt, kind: FailureKind::Assertion };
                }
            }
            Instr::Assume { cond, .. } => {
                if val!(cond) == 0 {
                    return End::Pruned;
                }
            }
            Instr::AwaitStart { .. } => {
                if let Some(t) = trace.as_deref() {
                    mark = t.ops.len();
                }
            }
            Instr::AwaitCheck { cond, start, stmt } => {
                if val!(cond) == 0 {
                    // The attempt only read (no stores inside an await):
                    // forget its reads and evaluate afresh.
                    if let Some(t) = trace.as_deref_mut() {
                        t.ops.truncate(mark);
                        t.dropped_attempts += 1;
                    }
                    retry!(stmt);
                    next = start as usize;
                } else if attempts > 0 {
                    lim.spot.clear();
                    attempts = 0;
                }
            }
            Instr::Halt => return End::Done,
        }
        pc = next;
    }
    End::Done
}
