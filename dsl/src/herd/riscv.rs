//! Lowering of herd's RISC-V instructions (RV64: `lw`/`sw` are 32-bit,
//! `ld`/`sd` 64-bit) to the IR. Registers are `x0`–`x31` or their ABI names
//! (`a0`, `t1`, `s2`, …), one register each; `x0` reads as 0 and drops what
//! is written to it. A location is accessed through a register holding its
//! address (`0:x6=x` in the initial state, then `lw x5,0(x6)`), so address
//! dependencies arise as in hardware. Sizes are herd's without mixed-size
//! accesses: a narrow load reads the location's value and extends its low
//! bytes (`lbu` zero-, `lb` sign-extends); a narrow store writes the low
//! bytes of its register, zero-extended. Annotations (`.aq`, `.rl`,
//! `.aqrl`) are labels herd's `riscv.cat` names `Acq`, `Rel`, `AcqRel`; an
//! AMO's two events are in `X`.

// A diagnostic is the error path only, taken once per file; boxing it buys nothing.
#![allow(clippy::result_large_err)]

use super::ast::{Instr as HInstr, Operand as HOperand};
use super::context::{Ctx, ThreadCtx};
use crate::diagnostic::Diagnostic;
use crate::ir::{Addr, BinOp, FenceKind, Instr, Labels, Operand, Reg, RmwOp, StmtId};
use crate::native::ast::Ident;

/// The canonical name (`x0`–`x31`) of a RISC-V integer register.
pub fn register(name: &str) -> Option<String> {
    let n = name.to_ascii_lowercase();
    if let Some(d) = n.strip_prefix('x') {
        let k: u32 = d.parse().ok()?;
        return (k < 32 && !d.starts_with('+') && (d == "0" || !d.starts_with('0'))).then(|| format!("x{k}"));
    }
    let k = match n.as_str() {
        "zero" => 0,
        "ra" => 1,
        "sp" => 2,
        "gp" => 3,
        "tp" => 4,
        "t0" => 5,
        "t1" => 6,
        "t2" => 7,
        "s0" | "fp" => 8,
        "s1" => 9,
        _ => {
            let (p, d) = n.split_at(1);
            let i: u32 = d.parse().ok()?;
            match (p, i) {
                ("a", 0..=7) => 10 + i,
                ("s", 2..=11) => 16 + i,
                ("t", 3..=6) => 25 + i,
                _ => return None,
            }
        }
    };
    Some(format!("x{k}"))
}

/// The mnemonics lowered here (without annotations), for the diagnostic.
const SUPPORTED: &str = "li, mv, add(i), sub, and(i), or(i), xor(i), sll(i), srl(i), sra(i), mul, lb/lbu/lh/lhu/lw/lwu/ld, \
     sb/sh/sw/sd (with .aq/.rl), amoswap/amoadd/amoand/amoor/amoxor (.w/.d, .aq/.rl/.aqrl), fence [pred,succ], fence.tso, \
     lr.w/lr.d, sc.w/sc.d (.aq/.rl/.aqrl), fence.i, beq/bne/blt/bge/bltu/bgeu, beqz/bnez, j, nop";

/// A register operand's value (`x0` is 0).
/// The register `name` spells (recorded as a symbol), and whether it is `x0`.
fn named(cx: &mut Ctx<'_>, th: &mut ThreadCtx, name: &Ident) -> Result<(Reg, bool), Diagnostic> {
    let Some(r) = register(&name.name) else {
        return Err(Diagnostic::error("E0124", name.span, format!("unknown RISC-V register `{}`", name.name)));
    };
    Ok((th.family_reg(&r, name, &mut cx.symbols), r == "x0"))
}

fn value(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand) -> Result<Operand, Diagnostic> {
    match o {
        HOperand::Imm(i) => Ok(Operand::Imm(i.value)),
        HOperand::Reg(name, _) => match named(cx, th, name)? {
            (_, true) => Ok(Operand::Imm(0)),
            (r, false) => Ok(Operand::Reg(r)),
        },
        other => Err(Diagnostic::error("E0124", other.span(), "expected a register or an immediate")),
    }
}

/// A destination register (writes to `x0` go to a scratch register).
fn dest(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand) -> Result<Reg, Diagnostic> {
    match o {
        HOperand::Reg(name, _) => match named(cx, th, name)? {
            (_, true) => Ok(th.temp()),
            (r, false) => Ok(r),
        },
        other => Err(Diagnostic::error("E0129", other.span(), "expected a destination register")),
    }
}

/// A memory operand `off(reg)`: the register holds a location's address.
fn address(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand) -> Result<Addr, Diagnostic> {
    let HOperand::Mem(m) = o else {
        return Err(Diagnostic::error("E0135", o.span(), "expected a memory operand such as `0(x6)`"));
    };
    if m.parts.len() != 1 || m.parts[0].scale != 1 {
        return Err(Diagnostic::error("E0135", m.span, "a RISC-V address is `offset(register)`"));
    }
    if m.disp != 0 {
        return Err(Diagnostic::error("E0136", m.span, "an access at a non-zero offset is a mixed-size access")
            .with_label("mixed-size accesses are not supported")
            .with_help("litmus checks each location as one whole value, as herd7 does without `-variant mixed`"));
    }
    let (base, _) = named(cx, th, &m.parts[0].name)?;
    Ok(Addr::Computed { base: Some(base), index: None, disp: 0 })
}

/// A mnemonic's base and its annotation (`.aq`, `.rl`, `.aqrl`).
fn annotation(m: &str) -> (&str, Labels) {
    for (suffix, l) in
        [(".aqrl", Labels::ACQ_REL), (".aq.rl", Labels::ACQ_REL), (".aq", Labels::ACQ), (".rl", Labels::REL)]
    {
        if let Some(base) = m.strip_suffix(suffix) {
            return (base, l);
        }
    }
    (m, Labels::NONE)
}

/// A fence's access set (`r`, `w`, `rw`, with `i`/`o` devices ignored).
fn fence_set(o: &HOperand) -> Result<u8, Diagnostic> {
    let HOperand::Reg(name, _) = o else {
        return Err(Diagnostic::error("E0137", o.span(), "expected a fence set such as `rw`"));
    };
    let mut bits = 0u8;
    for c in name.name.chars() {
        match c {
            'r' => bits |= FenceKind::R,
            'w' => bits |= FenceKind::W,
            'i' | 'o' => {}
            _ => return Err(Diagnostic::error("E0137", name.span, format!("`{}` is not a fence set", name.name))),
        }
    }
    Ok(bits)
}

/// The width of `lr.w`/`lr.d` (and `sc.`), from its size letter.
fn reserved_size(size: &str) -> Option<i64> {
    match size {
        "w" => Some(32),
        "d" => Some(64),
        _ => None,
    }
}

pub(super) fn lower_instr(
    cx: &mut Ctx<'_>,
    th: &mut ThreadCtx,
    ins: &HInstr,
    sid: StmtId,
    fixups: &mut Vec<(usize, Ident, StmtId)>,
) -> Result<(), Diagnostic> {
    let full = ins.mnemonic.name.to_ascii_lowercase();
    let (m, labels) = annotation(&full);
    let ops = &ins.operands;
    let want = |n: usize| super::context::arity(ins, &full, n);
    let unsupported = || super::context::unsupported(ins, SUPPORTED);
    if !(labels.is_empty() || m.starts_with("amo") || m.starts_with('l') || m.starts_with('s')) {
        return Err(unsupported());
    }
    let arith = |m: &str| -> Option<BinOp> {
        Some(match m.trim_end_matches('w') {
            "add" | "addi" => BinOp::Add,
            "sub" => BinOp::Sub,
            "and" | "andi" => BinOp::BitAnd,
            "or" | "ori" => BinOp::BitOr,
            "xor" | "xori" => BinOp::BitXor,
            "sll" | "slli" => BinOp::Shl,
            "srl" | "srli" => BinOp::Shr,
            "sra" | "srai" => BinOp::Sar,
            "mul" => BinOp::Mul,
            "slt" | "slti" => BinOp::Lt,
            "sltu" | "sltiu" => BinOp::LtU,
            _ => return None,
        })
    };
    // Sign- or zero-extend the low `bits` of `r` in place.
    let extend = |th: &mut ThreadCtx, r: Reg, bits: i64, signed: bool| {
        if bits >= 64 {
            return;
        }
        if signed {
            let sh = Operand::Imm(64 - bits);
            th.code.push(Instr::Bin { dst: r, op: BinOp::Shl, a: Operand::Reg(r), b: sh, stmt: sid });
            th.code.push(Instr::Bin { dst: r, op: BinOp::Sar, a: Operand::Reg(r), b: sh, stmt: sid });
        } else {
            let mask = Operand::Imm((1i64 << bits) - 1);
            th.code.push(Instr::Bin { dst: r, op: BinOp::BitAnd, a: Operand::Reg(r), b: mask, stmt: sid });
        }
    };
    let load_size = |m: &str| -> Option<(i64, bool)> {
        Some(match m {
            "lb" => (8, true),
            "lbu" => (8, false),
            "lh" => (16, true),
            "lhu" => (16, false),
            "lw" => (32, true),
            "lwu" => (32, false),
            "ld" => (64, true),
            _ => return None,
        })
    };
    let store_size = |m: &str| -> Option<i64> {
        Some(match m {
            "sb" => 8,
            "sh" => 16,
            "sw" => 32,
            "sd" => 64,
            _ => return None,
        })
    };
    if let Some(op) = arith(m) {
        want(3)?;
        let (a, b) = (value(cx, th, &ops[1])?, value(cx, th, &ops[2])?);
        let d = dest(cx, th, &ops[0])?;
        th.code.push(Instr::Bin { dst: d, op, a, b, stmt: sid });
        if m.ends_with('w') && m != "sw" {
            extend(th, d, 32, true);
        }
        return Ok(());
    }
    if let Some((bits, signed)) = load_size(m) {
        want(2)?;
        let addr = address(cx, th, &ops[1])?;
        let d = dest(cx, th, &ops[0])?;
        th.code.push(Instr::Load { dst: d, addr, labels, stmt: sid });
        extend(th, d, bits, signed);
        return Ok(());
    }
    // A store's value, cut to its `bits` (herd stores the low bits).
    let stored = |cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand, bits: i64| -> Result<Operand, Diagnostic> {
        Ok(match value(cx, th, o)? {
            Operand::Imm(k) if bits < 64 => Operand::Imm(k & ((1i64 << bits) - 1)),
            Operand::Reg(r) if bits < 64 => {
                let t = th.temp();
                let mask = Operand::Imm((1i64 << bits) - 1);
                th.code.push(Instr::Bin { dst: t, op: BinOp::BitAnd, a: Operand::Reg(r), b: mask, stmt: sid });
                Operand::Reg(t)
            }
            v => v,
        })
    };
    if let Some(bits) = store_size(m) {
        want(2)?;
        let val = stored(cx, th, &ops[0], bits)?;
        let addr = address(cx, th, &ops[1])?;
        th.code.push(Instr::Store { addr, val, labels, stmt: sid });
        return Ok(());
    }
    // Load-reserved and store-conditional: both in herd's `EX`; the pair
    // (`lxsx`) and its atomicity are the model's.
    if let Some(size) = m.strip_prefix("lr.") {
        let bits = reserved_size(size).ok_or_else(unsupported)?;
        want(2)?;
        let addr = address(cx, th, &ops[1])?;
        let d = dest(cx, th, &ops[0])?;
        th.code.push(Instr::Load { dst: d, addr, labels: labels | Labels::EX, stmt: sid });
        extend(th, d, bits, true);
        return Ok(());
    }
    if let Some(size) = m.strip_prefix("sc.") {
        let bits = reserved_size(size).ok_or_else(unsupported)?;
        want(3)?;
        let val = stored(cx, th, &ops[1], bits)?;
        let addr = address(cx, th, &ops[2])?;
        let status = dest(cx, th, &ops[0])?;
        th.code.push(Instr::StoreCond { status, addr, val, labels: labels | Labels::EX, stmt: sid });
        return Ok(());
    }
    if let Some(rest) = m.strip_prefix("amo") {
        let (op, size) = rest.split_once('.').ok_or_else(unsupported)?;
        let bits = match size {
            "w" => 32,
            "d" => 64,
            _ => return Err(unsupported()),
        };
        want(3)?;
        let v = value(cx, th, &ops[1])?;
        let addr = address(cx, th, &ops[2])?;
        let rmw = match op {
            "swap" => RmwOp::Xchg(v),
            "add" => RmwOp::Fetch(BinOp::Add, v),
            "and" => RmwOp::Fetch(BinOp::BitAnd, v),
            "or" => RmwOp::Fetch(BinOp::BitOr, v),
            "xor" => RmwOp::Fetch(BinOp::BitXor, v),
            _ => return Err(unsupported()),
        };
        let d = dest(cx, th, &ops[0])?;
        th.code.push(Instr::Rmw { dst: d, addr, op: rmw, labels: labels | Labels::X, stmt: sid });
        extend(th, d, bits, true);
        return Ok(());
    }
    match m {
        "nop" => want(0)?,
        "li" | "mv" => {
            want(2)?;
            let v = value(cx, th, &ops[1])?;
            let d = dest(cx, th, &ops[0])?;
            th.code.push(Instr::Mov { dst: d, src: v });
        }
        "fence" => {
            let (pred, succ) = match ops.len() {
                0 => (FenceKind::R | FenceKind::W, FenceKind::R | FenceKind::W),
                2 => (fence_set(&ops[0])?, fence_set(&ops[1])?),
                _ => {
                    return Err(Diagnostic::error("E0122", ins.span, "`fence` takes two sets (`fence rw,rw`) or none"))
                }
            };
            // A fence with an empty side orders no memory access.
            if pred != 0 && succ != 0 {
                th.code.push(Instr::Fence { kind: FenceKind::Sets { pred, succ }, stmt: sid });
            }
        }
        "fence.tso" => {
            want(0)?;
            th.code.push(Instr::Fence { kind: FenceKind::Tso, stmt: sid });
        }
        // Orders instruction fetches only: no memory event herd's model reads.
        "fence.i" => want(0)?,
        "j" => {
            want(1)?;
            let HOperand::Reg(l, _) = &ops[0] else { return Err(unsupported()) };
            fixups.push((th.code.len(), l.clone(), sid));
            th.code.push(Instr::Jump { target: 0 });
        }
        "beq" | "bne" | "blt" | "bge" | "bltu" | "bgeu" | "beqz" | "bnez" => {
            let zero = m.ends_with('z');
            want(if zero { 2 } else { 3 })?;
            let a = value(cx, th, &ops[0])?;
            let b = if zero { Operand::Imm(0) } else { value(cx, th, &ops[1])? };
            let HOperand::Reg(l, _) = &ops[ops.len() - 1] else {
                return Err(Diagnostic::error("E0138", ops[ops.len() - 1].span(), "expected a label"));
            };
            let op = match m.trim_end_matches('z') {
                "beq" => BinOp::Eq,
                "bne" => BinOp::Ne,
                "blt" => BinOp::Lt,
                "bge" => BinOp::Ge,
                "bltu" => BinOp::LtU,
                _ => BinOp::GeU,
            };
            let t = th.temp();
            th.code.push(Instr::Bin { dst: t, op, a, b, stmt: sid });
            fixups.push((th.code.len(), l.clone(), sid));
            th.code.push(Instr::Branch { cond: Operand::Reg(t), if_nonzero: true, target: 0 });
        }
        _ => return Err(unsupported()),
    }
    Ok(())
}
