//! Analysis and lowering of herd x86 tests to the IR. x86 registers are
//! grouped by family (`EAX`, `eax`, `%rax` are one register); LOCK'd
//! instructions and XCHG are atomic and fence every buffer of their thread.

// A diagnostic is the error path only, taken once per file; boxing it buys nothing.
#![allow(clippy::result_large_err)]

use super::ast::Operand as HOperand;
use super::ast::*;
use super::context::{Ctx, ThreadCtx};
use crate::diagnostic::Diagnostic;
use crate::ir::{self, Addr, BinOp, Instr, Labels, Operand, Reg, RmwOp, StmtId};
use crate::native::ast::{FenceKind, Ident};
use crate::native::lower::StmtTable;
use crate::span::{LineIndex, Span};
use crate::symbols::{SymbolKind, Symbols};
use crate::{Analysis, ConditionSummary};
use std::collections::HashMap;

/// The canonical name of a register of `arch`, if `name` is one.
pub fn family(arch: Arch, name: &str) -> Option<String> {
    match arch {
        Arch::RiscV => super::riscv::register(name),
        Arch::AArch64 => super::aarch64::register(name).filter(|r| r != "ZR"),
        Arch::X86 | Arch::X86_64 => register_family(name),
        // A C test's registers are its threads' locals.
        Arch::C => {
            let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ok.then(|| name.to_string())
        }
    }
}

/// Are an array's elements narrower than the 64-bit cells litmus lays
/// arrays out in, so that the byte offsets a test computes would land on
/// other elements than herd's (`int` is 32 bits; a C test indexes
/// elements, not bytes)?
fn narrow_elements(arch: Arch, ty: Option<&Ident>) -> bool {
    let wide = ["int64_t", "uint64_t", "long", "intptr_t", "uintptr_t", "int64", "uint64"];
    !matches!(arch, Arch::C | Arch::AArch64) && !ty.is_some_and(|t| wide.contains(&t.name.as_str()))
}

/// The size in bytes of an element of herd's type `ty` (its
/// `TestType.size_of`, without mixed sizes: untyped is `int`), where
/// addresses step by elements' bytes (AArch64); `None` for a type whose
/// size litmus does not know.
fn elem_bytes(arch: Arch, ty: Option<&Ident>) -> Option<u8> {
    if arch != Arch::AArch64 {
        return Some(8);
    }
    Some(match ty.map_or("int", |t| t.name.as_str()) {
        "char" | "int8_t" | "uint8_t" => 1,
        "short" | "int16_t" | "uint16_t" => 2,
        "int" | "long" | "int32_t" | "uint32_t" | "atomic_t" => 4,
        "int64_t" | "uint64_t" | "intptr_t" | "uintptr_t" => 8,
        _ => return None,
    })
}

/// Code as data (a label's address, an instruction as a value): herd's
/// instruction-fetch tests, out of scope.
fn code_as_data(span: Span) -> Diagnostic {
    Diagnostic::error("E0146", span, "code as data (a label's address or an instruction) is not supported")
        .with_label("instruction fetch and self-modifying code are out of scope")
}

/// The architecture's name in diagnostics.
fn arch_name(arch: Arch) -> &'static str {
    match arch {
        Arch::RiscV => "RISC-V",
        Arch::AArch64 => "AArch64",
        Arch::C => "C",
        Arch::X86 | Arch::X86_64 => "x86",
    }
}

/// The canonical (64-bit, lowercase) name of an x86 register, if `name` is one.
pub fn register_family(name: &str) -> Option<String> {
    let n = name.trim_start_matches('%').to_ascii_lowercase();
    let fam = match n.as_str() {
        "rax" | "eax" | "ax" | "al" | "ah" => "rax",
        "rbx" | "ebx" | "bx" | "bl" | "bh" => "rbx",
        "rcx" | "ecx" | "cx" | "cl" | "ch" => "rcx",
        "rdx" | "edx" | "dx" | "dl" | "dh" => "rdx",
        "rsi" | "esi" | "si" | "sil" => "rsi",
        "rdi" | "edi" | "di" | "dil" => "rdi",
        "rbp" | "ebp" | "bp" | "bpl" => "rbp",
        "rsp" | "esp" | "sp" | "spl" => "rsp",
        "rip" | "eip" | "ip" => "rip",
        "cs" | "ds" | "es" | "fs" | "gs" | "ss" => return Some(n),
        _ => {
            let rest = n.strip_prefix('r')?;
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let num: u32 = digits.parse().ok()?;
            let suffix = &rest[digits.len()..];
            if (8..=15).contains(&num) && ["", "d", "w", "b"].contains(&suffix) {
                return Some(format!("r{num}"));
            }
            return None;
        }
    };
    Some(fam.to_string())
}

const MNEMONICS: &[&str] = &[
    "mov", "xchg", "xadd", "cmpxchg", "add", "sub", "inc", "dec", "and", "or", "xor", "neg", "not", "shl", "sal",
    "shr", "sar", "cmp", "test", "mfence", "sfence", "lfence", "nop", "endbr64", "pause", "ret", "jmp", "je", "jz",
    "jne", "jnz", "jl", "jnge", "jle", "jng", "jg", "jnle", "jge", "jnl", "jb", "jnae", "jc", "jbe", "jna", "ja",
    "jnbe", "jae", "jnb", "jnc", "js", "jns", "lea",
];

fn normalize_mnemonic(m: &str) -> Option<&'static str> {
    let l = m.to_ascii_lowercase();
    if let Some(k) = MNEMONICS.iter().find(|k| **k == l) {
        return Some(k);
    }
    // AT&T size suffixes: movl, xchgq, cmpxchgl, nopw...
    let (base, last) = l.split_at(l.len().saturating_sub(1));
    if ["b", "w", "l", "q"].contains(&last) {
        if let Some(k) = MNEMONICS.iter().find(|k| **k == base && !k.starts_with('j')) {
            return Some(k);
        }
    }
    None
}

enum Opnd {
    Imm(i64),
    Reg(Reg),
    Mem(Addr),
    Label(Ident),
}

pub fn analyze(src: &str, lines: &LineIndex) -> Analysis {
    let (file, mut diagnostics, comments) = super::parser::parse_with_comments(src);
    let Some(file) = file else {
        return Analysis {
            dialect: crate::detect_dialect(src),
            name: None,
            condition: None,
            diagnostics,
            symbols: Symbols::default(),
            program: None,
            lines: lines.clone(),
            comments,
        };
    };
    let parse_ok = !diagnostics.iter().any(Diagnostic::is_error);
    let mut cx = Ctx {
        src,
        arch: file.arch,
        diags: Vec::new(),
        symbols: Symbols::default(),
        loc_index: HashMap::new(),
        declared: HashMap::new(),
        locations: Vec::new(),
        init: Vec::new(),
    };
    let program = lower(&mut cx, &file, lines);
    diagnostics.append(&mut cx.diags);
    let condition = file.final_.as_ref().map(|f| ConditionSummary {
        quantifier: f.quantifier,
        text: crate::native::lower::strip_parens(
            &f.cond.span.text(src).split_whitespace().collect::<Vec<_>>().join(" "),
        )
        .to_string(),
    });
    let ok = parse_ok && !diagnostics.iter().any(Diagnostic::is_error);
    Analysis {
        dialect: file.arch.dialect(),
        name: Some(file.name.name.clone()).filter(|n| !n.is_empty()),
        condition,
        diagnostics,
        symbols: cx.symbols,
        program: ok.then_some(program),
        lines: lines.clone(),
        comments,
    }
}

fn lower(cx: &mut Ctx<'_>, file: &HerdFile, lines: &LineIndex) -> ir::Program {
    let mut threads: Vec<ThreadCtx> = Vec::new();
    for (i, t) in file.threads.iter().enumerate() {
        let expected = format!("P{i}");
        if t.name != expected {
            cx.diags.push(
                Diagnostic::error("E0110", t.span, format!("thread {i} is named `{}`", t.name))
                    .with_label(format!("expected `{expected}`")),
            );
        }
        cx.symbols.add(&t.name, SymbolKind::Thread, t.span, format!("thread {}", t.name), None, t.span);
        threads.push(ThreadCtx {
            index: i as u16,
            name: t.name.clone(),
            regs: Vec::new(),
            init_regs: Vec::new(),
            by_family: HashMap::new(),
            reg_syms: HashMap::new(),
            code: Vec::new(),
            flag_a: None,
            flag_b: None,
            temps: Vec::new(),
            temp_next: 0,
            stmt_ranges: Vec::new(),
            widths: Vec::new(),
        });
    }

    // Initial state: locations first (so `0:rax=t` can point at `t`).
    for item in &file.init {
        match &item.target {
            InitTarget::Loc(id) => {
                let cell = cx.location(id, None);
                if cx.arch == Arch::AArch64 {
                    let bytes = match (&item.value, &item.ty) {
                        (Some(InitValue::Addr(_)), _) => Some(8),
                        (_, Some(_)) => elem_bytes(cx.arch, item.ty.as_ref()),
                        _ => None,
                    };
                    if let Some(b) = bytes {
                        cx.declared.insert(id.name.clone(), b * 8);
                    }
                }
                match &item.value {
                    Some(InitValue::Int(v)) => cx.init[cell as usize] = v.value,
                    Some(InitValue::Addr(a)) => {
                        let c = cx.location(a, None);
                        cx.init[cell as usize] = cx.address(c);
                    }
                    Some(InitValue::Code(span)) => cx.diags.push(code_as_data(*span)),
                    Some(InitValue::Array(_, span)) => cx.diags.push(
                        Diagnostic::error("E0111", *span, format!("`{}` is a scalar", id.name))
                            .with_help(format!("declare an array as `{}[N]={{...}}`", id.name)),
                    ),
                    None => {}
                }
            }
            InitTarget::Array(id, n) if narrow_elements(cx.arch, item.ty.as_ref()) => {
                let ty = item.ty.as_ref().map_or("int", |t| t.name.as_str());
                cx.diags.push(
                    Diagnostic::error(
                        "E0145",
                        item.span,
                        format!("`{}` is an array of `{ty}`, narrower than 64 bits", id.name),
                    )
                    .with_label("arrays of 32-bit (or narrower) elements are not supported")
                    .with_help("litmus lays an array out in 64-bit elements: declare it `int64_t` or `uint64_t`"),
                );
            }
            InitTarget::Array(id, n) => {
                if n.value < 1 || n.value > 1 << 16 {
                    cx.diags.push(Diagnostic::error(
                        "E0112",
                        n.span,
                        format!("array length {} is out of range", n.value),
                    ));
                    continue;
                }
                let Some(size) = elem_bytes(cx.arch, item.ty.as_ref()) else {
                    let ty = item.ty.as_ref().expect("untyped is int");
                    cx.diags.push(
                        Diagnostic::error("E0145", ty.span, format!("arrays of `{}` are not supported", ty.name))
                            .with_help("elements of 8, 16, 32 or 64 bits: `char`, `short`, `int`, `int64_t` …"),
                    );
                    continue;
                };
                let base = cx.location_of(id, Some(n.value as u32), size);
                match &item.value {
                    Some(InitValue::Array(vals, span)) => {
                        if vals.len() as i64 > n.value {
                            cx.diags.push(Diagnostic::error(
                                "E0113",
                                *span,
                                format!("{} values for an array of length {}", vals.len(), n.value),
                            ));
                        }
                        for (k, v) in vals.iter().enumerate().take(n.value as usize) {
                            cx.init[base as usize + k] = v.value;
                        }
                    }
                    Some(InitValue::Int(v)) => {
                        for k in 0..n.value as usize {
                            cx.init[base as usize + k] = v.value;
                        }
                    }
                    Some(InitValue::Addr(a)) => cx.diags.push(Diagnostic::error(
                        "E0111",
                        a.span,
                        "an array cannot be initialised with an address",
                    )),
                    Some(InitValue::Code(span)) => cx.diags.push(code_as_data(*span)),
                    None => {}
                }
            }
            InitTarget::Reg(..) => {}
        }
    }
    for item in &file.init {
        if let InitTarget::Reg(t, r) = &item.target {
            let Some(th) = threads.get_mut(t.value as usize).filter(|_| t.value >= 0) else {
                cx.diags.push(Diagnostic::error("E0114", t.span, format!("no thread {}", t.value)).with_label(
                    format!(
                        "the test has {} thread{}",
                        file.threads.len(),
                        if file.threads.len() == 1 { "" } else { "s" }
                    ),
                ));
                continue;
            };
            let Some(fam) = family(cx.arch, &r.name) else {
                let arch = arch_name(cx.arch);
                cx.diags.push(Diagnostic::error("E0115", r.span, format!("unknown {arch} register `{}`", r.name)));
                continue;
            };
            let reg = th.family_reg(&fam, r, &mut cx.symbols);
            let v = match &item.value {
                Some(InitValue::Int(v)) => v.value,
                Some(InitValue::Addr(a)) => {
                    let c = cx.location(a, None);
                    cx.address(c)
                }
                Some(InitValue::Array(_, span)) => {
                    cx.diags.push(Diagnostic::error("E0111", *span, "a register holds one value"));
                    0
                }
                Some(InitValue::Code(span)) => {
                    cx.diags.push(code_as_data(*span));
                    0
                }
                None => 0,
            };
            th.init_regs[reg as usize] = v;
        }
    }

    let mut table = StmtTable::new(cx.src, lines);
    let mut loops = vec![0u16; threads.len()];
    for (ti, cells) in file.code.iter().enumerate() {
        let th = &mut threads[ti];
        match file.c_threads.get(ti) {
            Some(t) => super::c_lower::lower_thread(cx, th, t, &mut table, &mut loops[ti]),
            None => lower_thread(cx, th, cells, &mut table, &mut loops[ti]),
        }
    }

    if cx.arch == Arch::AArch64 {
        super::aarch64::check_widths(cx, &threads);
    }
    let mut observables = ir::ObservableSet::default();
    for l in &file.locations {
        let (expr, name) = cond_loc(cx, &mut threads, l);
        if let Some(kind) = observable_kind(&expr) {
            observables.add(kind, || name);
        }
    }
    let condition = file.final_.as_ref().map(|f| {
        let expr = lower_cond(cx, &mut threads, &f.cond, &mut observables);
        let text = f.cond.span.text(cx.src).split_whitespace().collect::<Vec<_>>().join(" ");
        ir::Condition {
            quantifier: f.quantifier,
            expr,
            text: crate::native::lower::strip_parens(&text).to_string(),
            span: f.span,
        }
    });
    let filter = file.filter.as_ref().map(|c| {
        let mut ignored = ir::ObservableSet::default();
        lower_cond(cx, &mut threads, c, &mut ignored)
    });

    ir::Program {
        name: file.name.name.clone(),
        doc: file.doc.as_ref().map(|d| d.0.clone()),
        dialect: file.arch.dialect(),
        locations: cx.locations.clone(),
        init: cx.init.clone(),
        threads: threads
            .into_iter()
            .zip(&file.threads)
            .zip(loops)
            .map(|((t, id), loops)| ir::Thread {
                name: t.name,
                name_span: id.span,
                regs: t.regs,
                init_regs: t.init_regs,
                code: t.code,
                loops,
                stmt_ranges: t.stmt_ranges,
                control_ranges: Vec::new(),
                loop_heads: Vec::new(),
            })
            .collect(),
        stmts: table.stmts,
        condition,
        filter,
        observables: observables.list,
        spins: Vec::new(),
    }
}

fn observable_kind(e: &ir::CondExpr) -> Option<ir::ObservableKind> {
    match e {
        ir::CondExpr::Reg { thread, reg } => Some(ir::ObservableKind::Reg { thread: *thread, reg: *reg }),
        ir::CondExpr::Mem(c) => Some(ir::ObservableKind::Mem(*c)),
        _ => None,
    }
}

fn cond_loc(cx: &mut Ctx<'_>, threads: &mut [ThreadCtx], l: &CLoc) -> (ir::CondExpr, String) {
    match l {
        CLoc::Reg(t, r) => {
            let name = format!("{}:{}", t.value, r.name);
            let Some(th) = threads.get_mut(t.value as usize).filter(|_| t.value >= 0) else {
                cx.diags.push(
                    Diagnostic::error("E0114", t.span, format!("no thread {}", t.value))
                        .with_label(format!("the test has {} threads", threads.len())),
                );
                return (ir::CondExpr::Const(0), name);
            };
            let Some(fam) = family(cx.arch, &r.name) else {
                let arch = arch_name(cx.arch);
                cx.diags.push(
                    Diagnostic::error("E0115", r.span, format!("unknown {arch} register `{}`", r.name))
                        .with_label(format!("not a register of thread {}", t.value)),
                );
                return (ir::CondExpr::Const(0), name);
            };
            // A register the thread never uses still has a value: its initial one.
            let reg = th.family_reg(&fam, r, &mut cx.symbols);
            (ir::CondExpr::Reg { thread: th.index, reg }, name)
        }
        CLoc::Loc(id) => {
            let cell = cx.location(id, None);
            (ir::CondExpr::Mem(cell), id.name.clone())
        }
        CLoc::Elem(id, i) => {
            let base = cx.location(id, None);
            let len = cx.location_len(id);
            if i.value < 0 || i.value >= len as i64 {
                cx.diags.push(
                    Diagnostic::error("E0116", i.span, format!("index {} is out of bounds", i.value))
                        .with_label(format!("`{}` has length {len}", id.name)),
                );
                return (ir::CondExpr::Const(0), id.name.clone());
            }
            (ir::CondExpr::Mem(base + i.value as u32), format!("{}[{}]", id.name, i.value))
        }
    }
}

fn lower_cond(cx: &mut Ctx<'_>, threads: &mut [ThreadCtx], c: &CExpr, obs: &mut ir::ObservableSet) -> ir::CondExpr {
    use ir::CondExpr as C;
    match &c.kind {
        CExprKind::True => C::Const(1),
        CExprKind::False => C::Const(0),
        CExprKind::Not(a) => C::Un(ir::UnOp::Not, Box::new(lower_cond(cx, threads, a, obs))),
        CExprKind::And(a, b) => {
            C::Bin(BinOp::And, Box::new(lower_cond(cx, threads, a, obs)), Box::new(lower_cond(cx, threads, b, obs)))
        }
        CExprKind::Or(a, b) => {
            C::Bin(BinOp::Or, Box::new(lower_cond(cx, threads, a, obs)), Box::new(lower_cond(cx, threads, b, obs)))
        }
        // A whole array: every element equal (`=`), or not all (`<>`).
        CExprKind::Eq(l, CVal::Array(vals, span), eq) => {
            let (CLoc::Loc(id) | CLoc::Elem(id, _)) = l else {
                cx.diags.push(Diagnostic::error("E0111", *span, "a register holds one value"));
                return C::Const(0);
            };
            let len = cx.location_len(id);
            if !matches!(l, CLoc::Loc(_)) || vals.len() != len as usize || !cx.is_array(id) {
                cx.diags.push(Diagnostic::error(
                    "E0113",
                    *span,
                    format!("{} values for `{}`, which is no array of that length", vals.len(), id.name),
                ));
                return C::Const(0);
            }
            let base = cx.location(id, None);
            let mut all = C::Const(1);
            for (k, v) in vals.iter().enumerate() {
                let cell = base + k as u32;
                obs.add(ir::ObservableKind::Mem(cell), || format!("{}[{k}]", id.name));
                let one = C::Bin(BinOp::Eq, Box::new(C::Mem(cell)), Box::new(C::Const(v.value)));
                all = if k == 0 { one } else { C::Bin(BinOp::And, Box::new(all), Box::new(one)) };
            }
            if *eq {
                all
            } else {
                C::Un(ir::UnOp::Not, Box::new(all))
            }
        }
        CExprKind::Eq(l, v, eq) => {
            let (lhs, name) = cond_loc(cx, threads, l);
            if let Some(kind) = observable_kind(&lhs) {
                obs.add(kind, || name);
            }
            let rhs = match v {
                // herd's RISC-V values are 32-bit: `0xffffffa5` is -91.
                CVal::Int(i) if cx.arch == Arch::RiscV && (1i64 << 31..1i64 << 32).contains(&i.value) => {
                    i.value - (1i64 << 32)
                }
                CVal::Int(i) => i.value,
                CVal::Sym(s) if s.name.ends_with(':') => {
                    cx.diags.push(code_as_data(s.span));
                    0
                }
                CVal::Sym(s) => {
                    let cell = cx.location(s, None);
                    cx.address(cell)
                }
                CVal::Array(..) => unreachable!("lowered above"),
            };
            C::Bin(if *eq { BinOp::Eq } else { BinOp::Ne }, Box::new(lhs), Box::new(C::Const(rhs)))
        }
    }
}

fn lower_thread(cx: &mut Ctx<'_>, th: &mut ThreadCtx, cells: &[Cell], table: &mut StmtTable<'_>, loops: &mut u16) {
    let mut labels: HashMap<String, (u32, Span)> = HashMap::new();
    let mut label_syms: HashMap<String, usize> = HashMap::new();
    // (instruction index, label, statement), patched once every label is known.
    let mut fixups: Vec<(usize, Ident, StmtId)> = Vec::new();
    for cell in cells {
        if let Some(l) = &cell.label {
            if let Some((_, prev)) = labels.get(&l.name) {
                cx.diags.push(
                    Diagnostic::error("E0117", l.span, format!("label `{}` is defined twice", l.name))
                        .with_related(*prev, "first defined here"),
                );
            } else {
                labels.insert(l.name.clone(), (th.code.len() as u32, l.span));
                let s = cx.symbols.add(
                    &l.name,
                    SymbolKind::Label,
                    l.span,
                    format!("label {} in {}", l.name, th.name),
                    Some(th.name.clone()),
                    cell.span,
                );
                label_syms.insert(l.name.clone(), s);
            }
        }
        if let Some(ins) = &cell.instr {
            let m = ins.mnemonic.name.to_ascii_lowercase();
            let control = match cx.arch {
                Arch::RiscV => m == "j" || (m.starts_with('b') && m != "nop"),
                Arch::AArch64 => m == "b" || m.starts_with("b.") || m == "cbz" || m == "cbnz",
                _ => m.starts_with('j'),
            };
            let form = match m.as_str() {
                "ret" if matches!(cx.arch, Arch::X86 | Arch::X86_64) => crate::ir::StmtForm::Return,
                _ if control => crate::ir::StmtForm::Control,
                _ => crate::ir::StmtForm::Simple,
            };
            let sid = table.id(th.index, ins.span, form);
            th.temp_next = 0;
            let start = th.code.len() as u32;
            let lowered = match cx.arch {
                Arch::RiscV => super::riscv::lower_instr(cx, th, ins, sid, &mut fixups),
                Arch::AArch64 => super::aarch64::lower_instr(cx, th, ins, sid, &mut fixups),
                _ => lower_instr(cx, th, ins, sid, &mut fixups),
            };
            if let Err(d) = lowered {
                cx.diags.push(d);
            }
            if form == crate::ir::StmtForm::Simple && (start as usize) < th.code.len() {
                th.stmt_ranges.push(ir::StmtRange { stmt: sid, start, end: th.code.len() as u32 });
            }
        }
    }
    let end = th.code.len();
    let mut trampolines: Vec<Instr> = Vec::new();
    for (at, label, sid) in fixups {
        let Some(&(target, _)) = labels.get(&label.name) else {
            cx.diags.push(Diagnostic::error("E0118", label.span, format!("unknown label `{}`", label.name)));
            continue;
        };
        if let Some(&s) = label_syms.get(&label.name) {
            cx.symbols.reference(s, label.span);
        }
        let target = if (target as usize) <= at {
            // A backward jump starts another loop iteration: count it.
            let id = *loops;
            *loops += 1;
            let t = (end + 1 + trampolines.len()) as u32;
            trampolines.push(Instr::LoopIter { id, stmt: sid, bound: None });
            trampolines.push(Instr::Jump { target });
            t
        } else {
            target
        };
        match &mut th.code[at] {
            Instr::Jump { target: t } | Instr::Branch { target: t, .. } => *t = target,
            _ => {}
        }
    }
    if !trampolines.is_empty() {
        th.code.push(Instr::Halt);
        th.code.extend(trampolines);
    }
}

fn lower_instr(
    cx: &mut Ctx<'_>,
    th: &mut ThreadCtx,
    ins: &Instr_,
    sid: StmtId,
    fixups: &mut Vec<(usize, Ident, StmtId)>,
) -> Result<(), Diagnostic> {
    let Some(m) = normalize_mnemonic(&ins.mnemonic.name) else {
        return Err(super::context::unsupported(
            ins,
            "MOV, XCHG, XADD, CMPXCHG, ADD, SUB, INC, DEC, AND, OR, XOR, NEG, NOT, shifts, CMP, TEST, Jcc, JMP, \
             MFENCE, SFENCE, LFENCE, NOP, RET, LEA",
        ));
    };
    let locked = match &ins.prefix {
        Some(p) if p.name.eq_ignore_ascii_case("lock") => true,
        Some(p) => {
            return Err(Diagnostic::error("E0121", p.span, format!("unsupported prefix `{}`", p.name)));
        }
        None => false,
    };
    // Normalise to Intel order: destination first.
    let mut ops: Vec<&HOperand> = ins.operands.iter().collect();
    if cx.arch == Arch::X86_64 {
        ops.reverse();
    }
    let want = |n: std::ops::RangeInclusive<usize>| -> Result<(), Diagnostic> {
        if n.contains(&ops.len()) {
            Ok(())
        } else {
            Err(Diagnostic::error(
                "E0122",
                ins.span,
                format!("`{}` takes {} operand(s), found {}", ins.mnemonic.name, fmt_range(&n), ops.len()),
            ))
        }
    };
    let lockable = matches!(m, "xadd" | "cmpxchg" | "add" | "sub" | "inc" | "dec" | "and" | "or" | "xor" | "xchg");
    if locked && !lockable {
        return Err(Diagnostic::error("E0123", ins.span, format!("`LOCK` cannot prefix `{}`", ins.mnemonic.name)));
    }
    let is_jump = m.starts_with('j');
    let mut resolved = Vec::new();
    for o in &ops {
        resolved.push(resolve(cx, th, o, is_jump)?);
    }
    let span_of = |i: usize| ops.get(i).map(|o| o.span()).unwrap_or(ins.span);
    let as_value = |th: &mut ThreadCtx, o: &Opnd| -> Result<Operand, Diagnostic> {
        match o {
            Opnd::Imm(v) => Ok(Operand::Imm(*v)),
            Opnd::Reg(r) => Ok(Operand::Reg(*r)),
            Opnd::Mem(a) => {
                let t = th.temp();
                th.code.push(Instr::Load { dst: t, addr: *a, labels: Labels::NONE, stmt: sid });
                Ok(Operand::Reg(t))
            }
            Opnd::Label(l) => Err(Diagnostic::error("E0124", l.span, format!("unknown register `{}`", l.name))),
        }
    };
    let bin_of = |m: &str| match m {
        "add" | "inc" | "xadd" => BinOp::Add,
        "sub" | "dec" => BinOp::Sub,
        "and" => BinOp::BitAnd,
        "or" => BinOp::BitOr,
        "xor" => BinOp::BitXor,
        "shl" | "sal" => BinOp::Shl,
        "shr" => BinOp::Shr,
        _ => BinOp::Sar,
    };
    match m {
        "nop" | "endbr64" | "pause" => {}
        "mfence" | "sfence" | "lfence" => {
            want(0..=0)?;
            let kind = match m {
                "mfence" => FenceKind::Full,
                "sfence" => FenceKind::WW,
                _ => FenceKind::RR,
            };
            th.code.push(Instr::Fence { kind, stmt: sid });
        }
        "ret" => th.code.push(Instr::Halt),
        "mov" => {
            want(2..=2)?;
            match (&resolved[0], &resolved[1]) {
                (Opnd::Mem(_), Opnd::Mem(_)) => {
                    return Err(Diagnostic::error("E0125", ins.span, "x86 cannot move memory to memory"))
                }
                (Opnd::Mem(a), src) => {
                    let v = as_value(th, src)?;
                    th.code.push(Instr::Store { addr: *a, val: v, labels: Labels::NONE, stmt: sid });
                }
                (Opnd::Reg(d), Opnd::Mem(a)) => {
                    th.code.push(Instr::Load { dst: *d, addr: *a, labels: Labels::NONE, stmt: sid })
                }
                (Opnd::Reg(d), src) => {
                    let v = as_value(th, src)?;
                    th.code.push(Instr::Mov { dst: *d, src: v });
                }
                _ => return Err(dest_error(span_of(0))),
            }
        }
        "lea" => {
            want(2..=2)?;
            let (Opnd::Reg(d), Opnd::Mem(a)) = (&resolved[0], &resolved[1]) else {
                return Err(Diagnostic::error("E0126", ins.span, "`LEA` takes a register and a memory operand"));
            };
            match *a {
                Addr::Fixed(c) => th.code.push(Instr::Mov { dst: *d, src: Operand::Imm(cx.address(c)) }),
                Addr::Computed { base, index, disp } => {
                    let mut acc = Operand::Imm(disp);
                    if let Some(b) = base {
                        let t = th.temp();
                        th.code.push(Instr::Bin { dst: t, op: BinOp::Add, a: acc, b: Operand::Reg(b), stmt: sid });
                        acc = Operand::Reg(t);
                    }
                    if let Some((r, s)) = index {
                        let t = th.temp();
                        th.code.push(Instr::Bin {
                            dst: t,
                            op: BinOp::Mul,
                            a: Operand::Reg(r),
                            b: Operand::Imm(s),
                            stmt: sid,
                        });
                        let u = th.temp();
                        th.code.push(Instr::Bin { dst: u, op: BinOp::Add, a: acc, b: Operand::Reg(t), stmt: sid });
                        acc = Operand::Reg(u);
                    }
                    th.code.push(Instr::Mov { dst: *d, src: acc });
                }
                Addr::Indexed { .. } => {}
            }
        }
        "xchg" => {
            want(2..=2)?;
            match (&resolved[0], &resolved[1]) {
                (Opnd::Mem(a), Opnd::Reg(r)) | (Opnd::Reg(r), Opnd::Mem(a)) => {
                    // XCHG with memory is always locked on x86.
                    let t = th.temp();
                    th.code.push(Instr::Rmw {
                        dst: t,
                        addr: *a,
                        op: RmwOp::Xchg(Operand::Reg(*r)),
                        labels: Labels::X,
                        stmt: sid,
                    });
                    th.code.push(Instr::Mov { dst: *r, src: Operand::Reg(t) });
                }
                (Opnd::Reg(a), Opnd::Reg(b)) => {
                    let t = th.temp();
                    th.code.push(Instr::Mov { dst: t, src: Operand::Reg(*a) });
                    th.code.push(Instr::Mov { dst: *a, src: Operand::Reg(*b) });
                    th.code.push(Instr::Mov { dst: *b, src: Operand::Reg(t) });
                }
                _ => {
                    return Err(Diagnostic::error(
                        "E0126",
                        ins.span,
                        "`XCHG` takes a register and a register or memory operand",
                    ))
                }
            }
        }
        "xadd" => {
            want(2..=2)?;
            let Opnd::Reg(r) = resolved[1] else {
                return Err(Diagnostic::error("E0126", span_of(1), "the source of `XADD` must be a register"));
            };
            match &resolved[0] {
                Opnd::Mem(a) => {
                    let old = th.temp();
                    if locked {
                        th.code.push(Instr::Rmw {
                            dst: old,
                            addr: *a,
                            op: RmwOp::Fetch(BinOp::Add, Operand::Reg(r)),
                            labels: Labels::X,
                            stmt: sid,
                        });
                    } else {
                        th.code.push(Instr::Load { dst: old, addr: *a, labels: Labels::NONE, stmt: sid });
                        let sum = th.temp();
                        th.code.push(Instr::Bin {
                            dst: sum,
                            op: BinOp::Add,
                            a: Operand::Reg(old),
                            b: Operand::Reg(r),
                            stmt: sid,
                        });
                        th.code.push(Instr::Store {
                            addr: *a,
                            val: Operand::Reg(sum),
                            labels: Labels::NONE,
                            stmt: sid,
                        });
                    }
                    let res = th.temp();
                    th.code.push(Instr::Bin {
                        dst: res,
                        op: BinOp::Add,
                        a: Operand::Reg(old),
                        b: Operand::Reg(r),
                        stmt: sid,
                    });
                    th.set_flags(Operand::Reg(res), Operand::Imm(0));
                    th.code.push(Instr::Mov { dst: r, src: Operand::Reg(old) });
                }
                Opnd::Reg(d) => {
                    let old = th.temp();
                    th.code.push(Instr::Mov { dst: old, src: Operand::Reg(*d) });
                    th.code.push(Instr::Bin {
                        dst: *d,
                        op: BinOp::Add,
                        a: Operand::Reg(*d),
                        b: Operand::Reg(r),
                        stmt: sid,
                    });
                    th.code.push(Instr::Mov { dst: r, src: Operand::Reg(old) });
                    th.set_flags(Operand::Reg(*d), Operand::Imm(0));
                }
                _ => return Err(dest_error(span_of(0))),
            }
        }
        "cmpxchg" => {
            want(2..=2)?;
            let Opnd::Reg(r) = resolved[1] else {
                return Err(Diagnostic::error("E0126", span_of(1), "the source of `CMPXCHG` must be a register"));
            };
            let Opnd::Mem(a) = resolved[0] else {
                return Err(Diagnostic::error("E0126", span_of(0), "the destination of `CMPXCHG` must be memory"));
            };
            if !locked {
                return Err(Diagnostic::error(
                    "E0127",
                    ins.span,
                    "`CMPXCHG` without `LOCK` is not atomic and not supported",
                )
                .with_help("write `LOCK CMPXCHG`"));
            }
            let rax = th.family_reg("rax", &Ident { name: "rax".into(), span: ins.span }, &mut Symbols::default());
            let old = th.temp();
            th.code.push(Instr::Rmw {
                dst: old,
                addr: a,
                op: RmwOp::Cas { expected: Operand::Reg(rax), new: Operand::Reg(r), fail: None },
                labels: Labels::X,
                stmt: sid,
            });
            th.set_flags(Operand::Reg(rax), Operand::Reg(old));
            th.code.push(Instr::Mov { dst: rax, src: Operand::Reg(old) });
        }
        "add" | "sub" | "and" | "or" | "xor" | "inc" | "dec" | "shl" | "sal" | "shr" | "sar" => {
            let unary = matches!(m, "inc" | "dec");
            let shift = matches!(m, "shl" | "sal" | "shr" | "sar");
            if unary {
                want(1..=1)?;
            } else if shift {
                want(1..=2)?;
            } else {
                want(2..=2)?;
            }
            let op = bin_of(m);
            let src = if unary || resolved.len() == 1 { Operand::Imm(1) } else { as_value(th, &resolved[1])? };
            match &resolved[0] {
                Opnd::Reg(d) => {
                    th.code.push(Instr::Bin { dst: *d, op, a: Operand::Reg(*d), b: src, stmt: sid });
                    th.set_flags(Operand::Reg(*d), Operand::Imm(0));
                }
                Opnd::Mem(a) => {
                    let old = th.temp();
                    if locked {
                        th.code.push(Instr::Rmw {
                            dst: old,
                            addr: *a,
                            op: RmwOp::Fetch(op, src),
                            labels: Labels::X,
                            stmt: sid,
                        });
                        let res = th.temp();
                        th.code.push(Instr::Bin { dst: res, op, a: Operand::Reg(old), b: src, stmt: sid });
                        th.set_flags(Operand::Reg(res), Operand::Imm(0));
                    } else {
                        th.code.push(Instr::Load { dst: old, addr: *a, labels: Labels::NONE, stmt: sid });
                        let res = th.temp();
                        th.code.push(Instr::Bin { dst: res, op, a: Operand::Reg(old), b: src, stmt: sid });
                        th.code.push(Instr::Store {
                            addr: *a,
                            val: Operand::Reg(res),
                            labels: Labels::NONE,
                            stmt: sid,
                        });
                        th.set_flags(Operand::Reg(res), Operand::Imm(0));
                    }
                }
                _ => return Err(dest_error(span_of(0))),
            }
        }
        "neg" | "not" => {
            want(1..=1)?;
            let op = if m == "neg" { ir::UnOp::Neg } else { ir::UnOp::BitNot };
            match &resolved[0] {
                Opnd::Reg(d) => th.code.push(Instr::Un { dst: *d, op, a: Operand::Reg(*d) }),
                Opnd::Mem(a) => {
                    let old = th.temp();
                    th.code.push(Instr::Load { dst: old, addr: *a, labels: Labels::NONE, stmt: sid });
                    let res = th.temp();
                    th.code.push(Instr::Un { dst: res, op, a: Operand::Reg(old) });
                    th.code.push(Instr::Store { addr: *a, val: Operand::Reg(res), labels: Labels::NONE, stmt: sid });
                }
                _ => return Err(dest_error(span_of(0))),
            }
        }
        "cmp" | "test" => {
            want(2..=2)?;
            let a = as_value(th, &resolved[0])?;
            let b = as_value(th, &resolved[1])?;
            if m == "cmp" {
                th.set_flags(a, b);
            } else {
                let t = th.temp();
                th.code.push(Instr::Bin { dst: t, op: BinOp::BitAnd, a, b, stmt: sid });
                th.set_flags(Operand::Reg(t), Operand::Imm(0));
            }
        }
        "jmp" => {
            want(1..=1)?;
            let Opnd::Label(l) = &resolved[0] else {
                return Err(Diagnostic::error("E0128", span_of(0), "a jump target must be a label"));
            };
            fixups.push((th.code.len(), l.clone(), sid));
            th.code.push(Instr::Jump { target: 0 });
        }
        j if is_jump => {
            want(1..=1)?;
            let Opnd::Label(l) = &resolved[0] else {
                return Err(Diagnostic::error("E0128", span_of(0), "a jump target must be a label"));
            };
            let (fa, fb) = th.flags();
            let (op, zero_rhs) = match j {
                "je" | "jz" => (BinOp::Eq, false),
                "jne" | "jnz" => (BinOp::Ne, false),
                "jl" | "jnge" => (BinOp::Lt, false),
                "jle" | "jng" => (BinOp::Le, false),
                "jg" | "jnle" => (BinOp::Gt, false),
                "jge" | "jnl" => (BinOp::Ge, false),
                "jb" | "jnae" | "jc" => (BinOp::LtU, false),
                "jbe" | "jna" => (BinOp::LeU, false),
                "ja" | "jnbe" => (BinOp::GtU, false),
                "jae" | "jnb" | "jnc" => (BinOp::GeU, false),
                "js" => (BinOp::Lt, true),
                _ => (BinOp::Ge, true), // jns
            };
            let lhs = if zero_rhs {
                let t = th.temp();
                th.code.push(Instr::Bin {
                    dst: t,
                    op: BinOp::Sub,
                    a: Operand::Reg(fa),
                    b: Operand::Reg(fb),
                    stmt: sid,
                });
                Operand::Reg(t)
            } else {
                Operand::Reg(fa)
            };
            let rhs = if zero_rhs { Operand::Imm(0) } else { Operand::Reg(fb) };
            let c = th.temp();
            th.code.push(Instr::Bin { dst: c, op, a: lhs, b: rhs, stmt: sid });
            fixups.push((th.code.len(), l.clone(), sid));
            th.code.push(Instr::Branch { cond: Operand::Reg(c), if_nonzero: true, target: 0 });
        }
        _ => {}
    }
    Ok(())
}

type Instr_ = super::ast::Instr;

fn fmt_range(r: &std::ops::RangeInclusive<usize>) -> String {
    if r.start() == r.end() {
        r.start().to_string()
    } else {
        format!("{} to {}", r.start(), r.end())
    }
}

fn dest_error(span: Span) -> Diagnostic {
    Diagnostic::error("E0129", span, "this operand cannot be a destination").with_label("expected a register or memory")
}

fn resolve(cx: &mut Ctx<'_>, th: &mut ThreadCtx, o: &HOperand, jump: bool) -> Result<Opnd, Diagnostic> {
    match o {
        HOperand::Imm(i) => Ok(Opnd::Imm(i.value)),
        HOperand::ImmSym(s) => {
            let c = cx.location(s, None);
            Ok(Opnd::Imm(cx.address(c)))
        }
        HOperand::Reg(name, percent) => match register_family(&name.name) {
            Some(fam) => Ok(Opnd::Reg(th.family_reg(&fam, name, &mut cx.symbols))),
            None if jump && !percent => Ok(Opnd::Label(name.clone())),
            None => Err(Diagnostic::error("E0124", name.span, format!("unknown register `{}`", name.name)).with_help(
                if cx.arch == Arch::X86 {
                    "a memory location is written `[x]`"
                } else {
                    "a memory location is written `(x)`"
                },
            )),
        },
        HOperand::Mem(m) => {
            let mut sym: Option<&Ident> = None;
            let mut regs: Vec<(Reg, i64)> = Vec::new();
            for p in &m.parts {
                match register_family(&p.name.name) {
                    Some(fam) => regs.push((th.family_reg(&fam, &p.name, &mut cx.symbols), p.scale)),
                    None if p.percent => {
                        return Err(Diagnostic::error(
                            "E0124",
                            p.name.span,
                            format!("unknown register `{}`", p.name.name),
                        ))
                    }
                    None => {
                        if let Some(prev) = sym {
                            return Err(Diagnostic::error("E0130", p.name.span, "two locations in one address")
                                .with_related(prev.span, "first location"));
                        }
                        sym = Some(&p.name);
                    }
                }
            }
            let base_addr = sym.map(|s| cx.location(s, None));
            if regs.is_empty() {
                let Some(base) = base_addr else {
                    return Err(Diagnostic::error("E0131", m.span, "an absolute address is not supported")
                        .with_help("name the location, e.g. `[x]`"));
                };
                if m.disp % 8 != 0 {
                    return Err(Diagnostic::error("E0132", m.span, "displacement is not a multiple of 8")
                        .with_label("litmus models memory as 8-byte cells"));
                }
                let cell = base as i64 + m.disp / 8;
                if cell < 0 || cell as usize >= cx.init.len() {
                    return Err(Diagnostic::error("E0133", m.span, "address outside every location"));
                }
                return Ok(Opnd::Mem(Addr::Fixed(cell as u32)));
            }
            if regs.len() > 2 {
                return Err(Diagnostic::error("E0134", m.span, "too many registers in one address"));
            }
            let disp = m.disp + base_addr.map(|c| cx.address(c)).unwrap_or(0);
            let (base, index) = if regs.len() == 2 {
                (Some(regs[0].0), Some(regs[1]))
            } else if regs[0].1 == 1 {
                (Some(regs[0].0), None)
            } else {
                (None, Some(regs[0]))
            };
            Ok(Opnd::Mem(Addr::Computed { base, index, disp }))
        }
    }
}
