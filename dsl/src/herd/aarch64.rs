//! Lowering of herd's AArch64 instructions to the IR. `Wn` and `Xn` name one
//! register (`X0`–`X30`); `WZR`/`XZR` read as 0 and drop what is written.
//! A location is accessed through a register holding its address (`0:X1=x`,
//! then `LDR W0,[X1]`, or `[X4,W2,SXTW]` with an index), so address
//! dependencies arise as in hardware; `CMP` sets the flags that `B.cond`
//! and `CSEL` read. Sizes are herd's without mixed-size accesses: every
//! access reads or writes its location's whole value.
//!
//! The event sets are herd's: `A` (`LDAR`, the acquire of an atomic), `Q`
//! (`LDAPR`), `L` (`STLR`, the release of an atomic), `EX` (the exclusives
//! `LDXR`/`STXR`), `X` (both events of an LSE atomic), `NoRet` (an atomic
//! whose old value is dropped: `STADD`, or `XZR` as destination); barriers
//! are tagged by name (`DMB.ISH`, `DSB.ST`, `ISB`).

// A diagnostic is the error path only, taken once per file; boxing it buys nothing.
#![allow(clippy::result_large_err)]

use super::ast::{Instr as HInstr, Operand as HOperand};
use super::context::{Ctx, ThreadCtx};
use crate::diagnostic::Diagnostic;
use crate::ir::{Addr, BinOp, FenceKind, Instr, Labels, Operand, PairOp, PairOrder, Reg, RmwOp, StmtId, UnOp};
use crate::native::ast::Ident;

/// The canonical name (`X0`–`X30`, `SP`, `ZR`) of an AArch64 register.
pub fn register(name: &str) -> Option<String> {
    let n = name.to_ascii_uppercase();
    match n.as_str() {
        "XZR" | "WZR" => return Some("ZR".into()),
        "SP" | "WSP" => return Some("SP".into()),
        _ => {}
    }
    let d = n.strip_prefix('X').or_else(|| n.strip_prefix('W'))?;
    let k: u32 = d.parse().ok()?;
    (k <= 30 && (d == "0" || !d.starts_with('0')) && !d.starts_with('+')).then(|| format!("X{k}"))
}

/// The mnemonics lowered here, for the diagnostic.
const SUPPORTED: &str = "MOV, ADD, SUB, EOR, AND, ORR, CMP, CSEL, CSINC, CSINV, CSNEG, LDR, LDAR, LDAPR, STR, STLR, \
     LDXR, LDAXR, STXR, STLXR, SWP, CAS, LDADD/LDCLR/LDEOR/LDSET, STADD/STCLR/STEOR/STSET (with A/L/AL), \
     LDP, LDNP, LDIAPP, LDXP, LDAXP, STP, STNP, STILP, STXP, STLXP, CASP (with A/L/AL), \
     DMB, DSB, ISB, B, B.cond, CBZ, CBNZ, NOP";

/// The register `name` spells, or `None` for the zero register.
fn named(cx: &mut Ctx<'_>, th: &mut ThreadCtx, name: &Ident) -> Result<Option<Reg>, Diagnostic> {
    let Some(r) = register(&name.name) else {
        return Err(Diagnostic::error("E0124", name.span, format!("unknown AArch64 register `{}`", name.name)));
    };
    if r == "ZR" {
        return Ok(None);
    }
    Ok(Some(th.family_reg(&r, name, &mut cx.symbols)))
}

fn value(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand) -> Result<Operand, Diagnostic> {
    match o {
        HOperand::Imm(i) => Ok(Operand::Imm(i.value)),
        HOperand::Reg(name, _) => Ok(named(cx, th, name)?.map_or(Operand::Imm(0), Operand::Reg)),
        other => Err(Diagnostic::error("E0124", other.span(), "expected a register or an immediate (`#1`)")),
    }
}

/// A destination register (writes to the zero register go to a scratch one).
fn dest(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand) -> Result<Reg, Diagnostic> {
    match o {
        HOperand::Reg(name, _) => Ok(match named(cx, th, name)? {
            Some(r) => r,
            None => th.temp(),
        }),
        other => Err(Diagnostic::error("E0129", other.span(), "expected a destination register")),
    }
}

/// The width in bits of a data register operand (`W`: 32, `X`: 64).
fn width(o: &HOperand) -> Option<u8> {
    let HOperand::Reg(n, _) = o else { return None };
    match n.name.as_bytes().first()?.to_ascii_uppercase() {
        b'W' => Some(32),
        b'X' => Some(64),
        _ => None,
    }
}

/// Note the access's width and offset against its base register, for the
/// mixed-size check once every thread is lowered.
fn note_width(th: &mut ThreadCtx, addr: Addr, data: &HOperand, span: crate::span::Span) {
    // (With an index register, its base's location: each element has its size.)
    if let (Addr::Computed { base: Some(r), disp, .. }, Some(w)) = (addr, width(data)) {
        th.widths.push((r, disp, w, span));
    }
}

fn is_zero(o: &HOperand) -> bool {
    matches!(o, HOperand::Reg(n, _) if register(&n.name).as_deref() == Some("ZR"))
}

/// A memory operand: `[Xn]`, `[Xn,#k]`, `[Xn,Xm]`, `[Xn,Wm,SXTW]`,
/// `[Xn,Xm,LSL #k]`. A pre-indexed one (`[Xn,#k]!`) first adds `k` to
/// `Xn`, as the instruction does before its access: the code for that is
/// emitted here.
fn address(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand, sid: StmtId) -> Result<Addr, Diagnostic> {
    let HOperand::Mem(m) = o else {
        return Err(Diagnostic::error("E0135", o.span(), "expected a memory operand such as `[X1]`"));
    };
    let bad =
        || Diagnostic::error("E0135", m.span, "an AArch64 address is `[Xn]`, `[Xn,#k]`, `[Xn,Xm]` or `[Xn,Wm,SXTW]`");
    let Some(base) = m.parts.first() else { return Err(bad()) };
    let base = named(cx, th, &base.name)?;
    let index = match m.parts.get(1) {
        None => None,
        Some(ix) => {
            let shift = match m.parts.get(2) {
                None => 0,
                Some(ext) => match ext.name.name.to_ascii_uppercase().as_str() {
                    "SXTW" | "UXTW" | "SXTX" | "UXTX" | "LSL" if (0..=3).contains(&ext.scale) => ext.scale,
                    _ => return Err(bad()),
                },
            };
            if m.parts.len() > 3 {
                return Err(bad());
            }
            named(cx, th, &ix.name)?.map(|r| (r, 1i64 << shift))
        }
    };
    if m.pre_index {
        let (Some(b), None) = (base, index) else {
            return Err(Diagnostic::error("E0135", m.span, "a pre-indexed address is `[Xn,#k]!`"));
        };
        let (a, k) = (Operand::Reg(b), Operand::Imm(m.disp));
        th.code.push(Instr::Bin { dst: b, op: BinOp::Add, a, b: k, stmt: sid });
        return Ok(Addr::Computed { base, index, disp: 0 });
    }
    Ok(Addr::Computed { base, index, disp: m.disp })
}

/// A post-indexed access (`STR W2,[X3],#4`, `LDP X4,X5,[X1],#16`) adds
/// its offset to the base register after the access: the memory operand
/// `ops[at]` followed by an immediate.
fn post_index(
    cx: &mut Ctx<'_>,
    th: &mut ThreadCtx,
    ops: &[HOperand],
    at: usize,
    sid: StmtId,
) -> Result<(), Diagnostic> {
    if let (Some(HOperand::Mem(mem)), Some(HOperand::Imm(k))) = (ops.get(at), ops.get(at + 1)) {
        if let Some(Some(base)) = mem.parts.first().map(|b| named(cx, th, &b.name)).transpose()? {
            let (a, b) = (Operand::Reg(base), Operand::Imm(k.value));
            th.code.push(Instr::Bin { dst: base, op: BinOp::Add, a, b, stmt: sid });
        }
    }
    Ok(())
}

/// A mnemonic's acquire/release suffix (`A`, `L`, `AL`) after `base`.
fn ordering(m: &str, base: &str) -> Option<(bool, bool)> {
    match m.strip_prefix(base)? {
        "" => Some((false, false)),
        "A" => Some((true, false)),
        "L" => Some((false, true)),
        "AL" => Some((true, true)),
        _ => None,
    }
}

/// The comparison a condition code makes of the flags `CMP a,b` set.
fn condition(name: &str) -> Option<BinOp> {
    Some(match name.to_ascii_uppercase().as_str() {
        "EQ" => BinOp::Eq,
        "NE" => BinOp::Ne,
        "GE" => BinOp::Ge,
        "LT" => BinOp::Lt,
        "GT" => BinOp::Gt,
        "LE" => BinOp::Le,
        "HS" | "CS" => BinOp::GeU,
        "LO" | "CC" => BinOp::LtU,
        "HI" => BinOp::GtU,
        "LS" => BinOp::LeU,
        _ => return None,
    })
}

/// herd7 refuses a test that accesses one location with two sizes, or
/// with a size other than its array's elements', or at an offset where no
/// element starts (a mixed-size test): so does litmus, where the location
/// is known — the base register holds a location's address from the
/// initial state and its thread never writes it.
pub(super) fn check_widths(cx: &mut Ctx<'_>, threads: &[ThreadCtx]) {
    let mut seen: std::collections::HashMap<u32, (u8, crate::span::Span)> = Default::default();
    let layout = crate::ir::Layout::of(&cx.locations, cx.init.len());
    let location_of = |cell: u32| cx.locations.iter().find(|l| l.base <= cell && cell < l.base + l.len);
    for th in threads {
        let written: std::collections::HashSet<Reg> = th.code.iter().flat_map(Instr::written_regs).collect();
        for &(r, disp, w, span) in &th.widths {
            if written.contains(&r) {
                continue;
            }
            let start = th.init_regs[r as usize];
            let Some(base) = layout.cell(start) else { continue };
            let same = |c: u32| location_of(c).map(|l| l.base) == location_of(base).map(|l| l.base);
            let Some(cell) = layout.cell(start.wrapping_add(disp)).filter(|&c| same(c)) else {
                let name = location_of(base).map(|l| l.name.clone()).unwrap_or_default();
                cx.diags.push(
                    Diagnostic::error(
                        "E0136",
                        span,
                        format!("an access at byte {disp} of `{name}`, where no element starts"),
                    )
                    .with_label("a mixed-size access: not supported")
                    .with_help("herd7 refuses it too, without `-variant mixed`"),
                );
                return;
            };
            let loc = location_of(cell);
            // herd's size of the location: its elements', its declared
            // type's, else `int`'s.
            let size = |l: &crate::ir::Location| match l.is_array {
                true => l.elem_bytes as u32 * 8,
                false => cx.declared.get(&l.name).map_or(32, |&b| b as u32),
            };
            if let Some(l) = loc.filter(|l| size(l) != w as u32) {
                let what = match (l.is_array, cx.declared.contains_key(&l.name)) {
                    (true, _) => format!("an array of {}-bit elements", size(l)),
                    (false, true) => format!("a {}-bit location", size(l)),
                    (false, false) => "a 32-bit location (untyped is herd's `int`)".to_string(),
                };
                cx.diags.push(
                    Diagnostic::error("E0147", span, format!("a {w}-bit access to `{}`, {what}", l.name))
                        .with_label("a mixed-size test: not supported")
                        .with_help("herd7 refuses it too, without `-variant mixed`"),
                );
                return;
            }
            match seen.get(&cell) {
                None => {
                    seen.insert(cell, (w, span));
                }
                Some(&(w0, first)) if w0 != w => {
                    let name = loc.map(|l| l.name.clone());
                    cx.diags.push(
                        Diagnostic::error(
                            "E0147",
                            span,
                            format!(
                                "a {w}-bit access to `{}`, which another accesses with {w0} bits",
                                name.unwrap_or_default()
                            ),
                        )
                        .with_label("a mixed-size test: not supported")
                        .with_related(first, format!("a {w0}-bit access"))
                        .with_help("herd7 refuses it too, without `-variant mixed`"),
                    );
                    return;
                }
                Some(_) => {}
            }
        }
    }
}

pub(super) fn lower_instr(
    cx: &mut Ctx<'_>,
    th: &mut ThreadCtx,
    ins: &HInstr,
    sid: StmtId,
    fixups: &mut Vec<(usize, Ident, StmtId)>,
) -> Result<(), Diagnostic> {
    let m = ins.mnemonic.name.to_ascii_uppercase();
    let ops = &ins.operands;
    let want = |n: usize| super::context::arity(ins, &m, n);
    let unsupported = || super::context::unsupported(ins, SUPPORTED);
    let label = |o: &HOperand| match o {
        HOperand::Reg(l, _) => Ok(l.clone()),
        other => Err(Diagnostic::error("E0138", other.span(), "expected a label")),
    };
    let flags_test = |th: &mut ThreadCtx, code: &HOperand| -> Result<Reg, Diagnostic> {
        let HOperand::Reg(c, _) = code else {
            return Err(Diagnostic::error("E0144", code.span(), "expected a condition code such as `EQ`"));
        };
        let op = condition(&c.name).ok_or_else(|| {
            Diagnostic::error("E0144", c.span, format!("`{}` is not a condition code", c.name))
                .with_help("EQ, NE, GE, LT, GT, LE, HS/CS, LO/CC, HI, LS")
        })?;
        let (fa, fb) = th.flags();
        let t = th.temp();
        th.code.push(Instr::Bin { dst: t, op, a: Operand::Reg(fa), b: Operand::Reg(fb), stmt: sid });
        Ok(t)
    };
    let arith = |m: &str| -> Option<BinOp> {
        Some(match m {
            "ADD" => BinOp::Add,
            "SUB" => BinOp::Sub,
            "EOR" => BinOp::BitXor,
            "AND" => BinOp::BitAnd,
            "ORR" => BinOp::BitOr,
            "MUL" => BinOp::Mul,
            "LSL" => BinOp::Shl,
            "LSR" => BinOp::Shr,
            "ASR" => BinOp::Sar,
            _ => return None,
        })
    };
    if let Some(op) = arith(&m) {
        // A register operand extended (`ADD X8,X7,W5,SXTW`): the values
        // litmus tests compute fit in 32 bits, so extending changes nothing.
        let extended = ops.len() == 4
            && matches!(&ops[3], HOperand::Reg(e, _) if ["SXTW", "UXTW"].contains(&e.name.to_ascii_uppercase().as_str()));
        if !extended {
            want(3)?;
        }
        let (a, b) = (value(cx, th, &ops[1])?, value(cx, th, &ops[2])?);
        let d = dest(cx, th, &ops[0])?;
        th.code.push(Instr::Bin { dst: d, op, a, b, stmt: sid });
        return Ok(());
    }
    // Loads and stores, with their orderings.
    let load = match m.as_str() {
        "LDR" => Some(Labels::NONE),
        "LDAR" => Some(Labels::A),
        "LDAPR" => Some(Labels::Q),
        "LDXR" => Some(Labels::EX),
        "LDAXR" => Some(Labels::EX | Labels::A),
        _ => None,
    };
    let post_indexed = ops.len() == 3 && matches!(ops[2], HOperand::Imm(_));
    if let Some(labels) = load {
        if !(post_indexed && m == "LDR") {
            want(2)?;
        }
        let addr = address(cx, th, &ops[1], sid)?;
        note_width(th, addr, &ops[0], ins.span);
        let d = dest(cx, th, &ops[0])?;
        th.code.push(Instr::Load { dst: d, addr, labels, stmt: sid });
        return post_index(cx, th, ops, 1, sid);
    }
    if let Some(labels) = match m.as_str() {
        "STR" => Some(Labels::NONE),
        "STLR" => Some(Labels::L),
        _ => None,
    } {
        if !(post_indexed && m == "STR") {
            want(2)?;
        }
        let val = value(cx, th, &ops[0])?;
        let addr = address(cx, th, &ops[1], sid)?;
        note_width(th, addr, &ops[0], ins.span);
        th.code.push(Instr::Store { addr, val, labels, stmt: sid });
        return post_index(cx, th, ops, 1, sid);
    }
    if let Some(p) = pair(&m) {
        return lower_pair(cx, th, ins, p, sid);
    }
    if let Some(labels) = match m.as_str() {
        "STXR" => Some(Labels::EX),
        "STLXR" => Some(Labels::EX | Labels::L),
        _ => None,
    } {
        want(3)?;
        let val = value(cx, th, &ops[1])?;
        let addr = address(cx, th, &ops[2], sid)?;
        note_width(th, addr, &ops[1], ins.span);
        let status = dest(cx, th, &ops[0])?;
        th.code.push(Instr::StoreCond { status, addr, val, labels, stmt: sid });
        return Ok(());
    }
    // LSE atomics: SWP, CAS, LD<op> (old value into a register), ST<op>.
    let atomic = |acq: bool, rel: bool, noret: bool| {
        let mut l = Labels::X;
        if acq && !noret {
            l |= Labels::A;
        }
        if rel {
            l |= Labels::L;
        }
        if noret {
            l |= Labels::NORET;
        }
        l
    };
    if let Some((acq, rel)) = ordering(&m, "SWP") {
        want(3)?;
        let noret = is_zero(&ops[1]);
        let v = value(cx, th, &ops[0])?;
        let addr = address(cx, th, &ops[2], sid)?;
        note_width(th, addr, &ops[0], ins.span);
        let d = dest(cx, th, &ops[1])?;
        let labels = atomic(acq, rel, noret);
        th.code.push(Instr::Rmw { dst: d, addr, op: RmwOp::Xchg(v), labels, stmt: sid });
        return Ok(());
    }
    if let Some((acq, rel)) = ordering(&m, "CAS") {
        want(3)?;
        let noret = is_zero(&ops[0]);
        let expected = value(cx, th, &ops[0])?;
        let new = value(cx, th, &ops[1])?;
        let addr = address(cx, th, &ops[2], sid)?;
        note_width(th, addr, &ops[0], ins.span);
        let d = dest(cx, th, &ops[0])?;
        let labels = atomic(acq, rel, noret);
        // A CAS that fails only reads, an acquire still (not a release).
        let mut fail = if acq && !noret { Labels::A } else { Labels::NONE };
        if noret {
            fail |= Labels::NORET;
        }
        th.code.push(Instr::Rmw {
            dst: d,
            addr,
            op: RmwOp::Cas { expected, new, fail: Some(fail | Labels::X) },
            labels,
            stmt: sid,
        });
        return Ok(());
    }
    let fetch_ops = [("ADD", BinOp::Add), ("CLR", BinOp::BitAnd), ("EOR", BinOp::BitXor), ("SET", BinOp::BitOr)];
    for (name, op) in fetch_ops {
        let (ld, st) = (ordering(&m, &format!("LD{name}")), ordering(&m, &format!("ST{name}")));
        let Some((acq, rel)) = ld.or(st) else { continue };
        let ret = ld.is_some();
        want(if ret { 3 } else { 2 })?;
        let noret = !ret || is_zero(&ops[1]);
        let mut v = value(cx, th, &ops[0])?;
        if name == "CLR" {
            // LDCLR clears the bits set in its operand.
            let t = th.temp();
            th.code.push(Instr::Un { dst: t, op: UnOp::BitNot, a: v });
            v = Operand::Reg(t);
        }
        let addr = address(cx, th, &ops[ops.len() - 1], sid)?;
        note_width(th, addr, &ops[0], ins.span);
        let d = if ret { dest(cx, th, &ops[1])? } else { th.temp() };
        let labels = atomic(acq, rel, noret);
        th.code.push(Instr::Rmw { dst: d, addr, op: RmwOp::Fetch(op, v), labels, stmt: sid });
        return Ok(());
    }
    match m.as_str() {
        "NOP" => want(0)?,
        "MOV" => {
            want(2)?;
            let v = value(cx, th, &ops[1])?;
            let d = dest(cx, th, &ops[0])?;
            th.code.push(Instr::Mov { dst: d, src: v });
        }
        "CMP" => {
            want(2)?;
            let (a, b) = (value(cx, th, &ops[0])?, value(cx, th, &ops[1])?);
            th.set_flags(a, b);
        }
        "CSEL" | "CSINC" | "CSINV" | "CSNEG" => {
            want(4)?;
            let a = value(cx, th, &ops[1])?;
            let mut b = value(cx, th, &ops[2])?;
            let t = flags_test(th, &ops[3])?;
            // The second operand, incremented, inverted or negated.
            if m != "CSEL" {
                let u = th.temp();
                th.code.push(match m.as_str() {
                    "CSINC" => Instr::Bin { dst: u, op: BinOp::Add, a: b, b: Operand::Imm(1), stmt: sid },
                    "CSINV" => Instr::Un { dst: u, op: UnOp::BitNot, a: b },
                    _ => Instr::Un { dst: u, op: UnOp::Neg, a: b },
                });
                b = Operand::Reg(u);
            }
            let d = dest(cx, th, &ops[0])?;
            th.code.push(Instr::Select { dst: d, cond: Operand::Reg(t), a, b });
        }
        "DMB" | "DSB" => {
            want(1)?;
            let HOperand::Reg(opt, _) = &ops[0] else {
                return Err(Diagnostic::error("E0137", ops[0].span(), "expected a barrier option such as `SY`"));
            };
            let kind = FenceKind::arm(&format!("{m}.{}", opt.name)).ok_or_else(|| {
                Diagnostic::error("E0137", opt.span, format!("`{}` is not a barrier option", opt.name))
                    .with_help("SY, ST, LD, ISH, ISHST, ISHLD, OSH, OSHST, OSHLD, NSH, NSHST, NSHLD")
            })?;
            th.code.push(Instr::Fence { kind, stmt: sid });
        }
        "ISB" => {
            want(0)?;
            th.code.push(Instr::Fence { kind: FenceKind::arm("ISB").expect("a barrier"), stmt: sid });
        }
        "B" => {
            want(1)?;
            fixups.push((th.code.len(), label(&ops[0])?, sid));
            th.code.push(Instr::Jump { target: 0 });
        }
        "CBZ" | "CBNZ" => {
            want(2)?;
            let v = value(cx, th, &ops[0])?;
            fixups.push((th.code.len(), label(&ops[1])?, sid));
            th.code.push(Instr::Branch { cond: v, if_nonzero: m == "CBNZ", target: 0 });
        }
        _ => {
            let Some(code) = m.strip_prefix("B.") else { return Err(unsupported()) };
            want(1)?;
            let code = HOperand::Reg(Ident { name: code.to_string(), span: ins.mnemonic.span }, false);
            let t = flags_test(th, &code)?;
            fixups.push((th.code.len(), label(&ops[0])?, sid));
            th.code.push(Instr::Branch { cond: Operand::Reg(t), if_nonzero: true, target: 0 });
        }
    }
    Ok(())
}

/// What a pair instruction is: what it does and its events' labels.
#[derive(Clone, Copy)]
enum PairKind {
    Load(Labels),
    Store(Labels),
    StoreCond(Labels),
    /// `CASP`: acquire, release.
    Cas(bool, bool),
}

fn pair(m: &str) -> Option<PairKind> {
    Some(match m {
        "LDP" => PairKind::Load(Labels::NONE),
        "LDNP" => PairKind::Load(Labels::NT),
        "LDIAPP" => PairKind::Load(Labels::Q),
        "LDXP" => PairKind::Load(Labels::EX),
        "LDAXP" => PairKind::Load(Labels::EX | Labels::A),
        "STP" => PairKind::Store(Labels::NONE),
        "STNP" => PairKind::Store(Labels::NT),
        "STILP" => PairKind::Store(Labels::L),
        "STXP" => PairKind::StoreCond(Labels::EX),
        "STLXP" => PairKind::StoreCond(Labels::EX | Labels::L),
        _ => {
            let (acq, rel) = ordering(m, "CASP")?;
            PairKind::Cas(acq, rel)
        }
    })
}

/// A pair instruction: two accesses of one instance ([`Instr::Pair`]),
/// the second at the first's address plus its registers' width (herd's
/// semantics: `docs/design/herd-aarch64-pairs.md`). `LDIAPP` and `STILP`
/// order their halves, lower address first — a pre-indexed `STILP` the
/// higher.
fn lower_pair(cx: &mut Ctx<'_>, th: &mut ThreadCtx, ins: &HInstr, p: PairKind, sid: StmtId) -> Result<(), Diagnostic> {
    let m = ins.mnemonic.name.to_ascii_uppercase();
    let ops = &ins.operands;
    // The data registers' place, the memory operand's.
    let (data, at) = match p {
        PairKind::Load(_) | PairKind::Store(_) => (0, 2),
        PairKind::StoreCond(_) => (1, 3),
        PairKind::Cas(..) => (2, 4),
    };
    let post = ops.len() == at + 2 && matches!(ops[at + 1], HOperand::Imm(_));
    super::context::arity(ins, &m, if post { at + 2 } else { at + 1 })?;
    // The write-back forms herd reads: LDP/STP both, LDIAPP post-, STILP pre-index.
    if post && !["LDP", "STP", "LDIAPP"].contains(&m.as_str()) {
        return Err(Diagnostic::error("E0135", ops[at + 1].span(), format!("`{m}` takes no post-index offset")));
    }
    if let HOperand::Mem(mm) = &ops[at] {
        if mm.pre_index && !["LDP", "STP", "STILP"].contains(&m.as_str()) {
            return Err(Diagnostic::error("E0135", mm.span, format!("`{m}` takes no pre-indexed address")));
        }
    }
    let regs = if let PairKind::Cas(..) = p { [0, 1, 2, 3] } else { [data, data + 1, data, data + 1] };
    let widths: Vec<Option<u8>> = regs.iter().map(|&k| width(&ops[k])).collect();
    let (Some(w), true) = (widths[0], widths.iter().all(|&x| x == widths[0])) else {
        return Err(Diagnostic::error(
            "E0124",
            ins.span,
            format!("`{m}` takes registers of one width: all `W` or all `X`"),
        ));
    };
    let second = if w == 32 { 4 } else { 8 };
    let pre = matches!(&ops[at], HOperand::Mem(mm) if mm.pre_index);
    let addr = address(cx, th, &ops[at], sid)?;
    if let Addr::Computed { base, index, disp } = addr {
        note_width(th, addr, &ops[data], ins.span);
        note_width(th, Addr::Computed { base, index, disp: disp + second }, &ops[data + 1], ins.span);
    }
    let (op, labels, order) = match p {
        PairKind::Load(l) => {
            let dst = [dest(cx, th, &ops[0])?, dest(cx, th, &ops[1])?];
            let order = if l == Labels::Q { PairOrder::LowFirst } else { PairOrder::Unordered };
            (PairOp::Load { dst }, l, order)
        }
        PairKind::Store(l) => {
            let val = [value(cx, th, &ops[0])?, value(cx, th, &ops[1])?];
            let order = match (l == Labels::L, pre) {
                (false, _) => PairOrder::Unordered,
                (true, false) => PairOrder::LowFirst,
                (true, true) => PairOrder::HighFirst,
            };
            (PairOp::Store { val }, l, order)
        }
        PairKind::StoreCond(l) => {
            let val = [value(cx, th, &ops[1])?, value(cx, th, &ops[2])?];
            let status = dest(cx, th, &ops[0])?;
            (PairOp::StoreCond { status, val }, l, PairOrder::Unordered)
        }
        PairKind::Cas(acq, rel) => {
            let new = [value(cx, th, &ops[2])?, value(cx, th, &ops[3])?];
            let old = [dest(cx, th, &ops[0])?, dest(cx, th, &ops[1])?];
            let mut l = Labels::X;
            if acq {
                l |= Labels::A;
            }
            if rel {
                l |= Labels::L;
            }
            // A failed comparison's reads: an acquire's still acquire, not in X.
            let fail = if acq { Labels::A } else { Labels::NONE };
            (PairOp::Cas { old, new, fail }, l, PairOrder::Unordered)
        }
    };
    th.code.push(Instr::Pair { op, addr, second, labels, order, stmt: sid });
    post_index(cx, th, ops, at, sid)
}
