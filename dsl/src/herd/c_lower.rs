//! Lowering herd's C threads (`c.rs`) to the IR, as herd7's C semantics
//! makes their events: an atomic access is in `A` and its memory order's
//! set (`RLX`, `ACQ`, `REL`, `ACQ_REL`, `SC`); a plain one (`*y = 1`) in
//! `NA`; a read-modify-write is one event in `R` and `W` (and `X`, `RMW`);
//! a fence is in `F` and its order's set. A strong compare-and-swap
//! reads its expected value plainly, then either updates the object (its
//! success order) or only reads it, with its failure order, when the
//! value differs, and writes what it read back to the expected location.

// A diagnostic is the error: returned once per statement, not hot.
#![allow(clippy::result_large_err)]

use super::ast::{BinOp as CBin, CThread, Expr, ExprKind, Stmt};
use super::context::{Ctx, ThreadCtx};
use crate::diagnostic::Diagnostic;
use crate::ir::{self, Addr, BinOp, FenceKind, Instr, Labels, Operand, RmwOp, StmtForm, StmtId, UnOp};
use crate::native::ast::Ident;
use crate::span::Span;

/// The labels of a memory order's name (`memory_order_acquire`).
fn order(e: &Expr) -> Result<Labels, Diagnostic> {
    let name = match &e.kind {
        ExprKind::Var(id) => id.name.as_str(),
        _ => "",
    };
    Ok(match name {
        "memory_order_relaxed" => Labels::RLX,
        "memory_order_acquire" => Labels::MO_ACQ,
        "memory_order_release" => Labels::MO_REL,
        "memory_order_acq_rel" => Labels::MO_ACQ_REL,
        "memory_order_seq_cst" => Labels::MO_SC,
        _ => {
            return Err(Diagnostic::error("E0141", e.span, format!("`{}` is not a memory order", e.span_text()))
                .with_help("memory_order_relaxed, _acquire, _release, _acq_rel or _seq_cst"))
        }
    })
}

impl Expr {
    fn span_text(&self) -> String {
        match &self.kind {
            ExprKind::Var(id) => id.name.clone(),
            _ => "this".into(),
        }
    }
}

pub(super) struct Lowering<'c, 'a, 'l> {
    pub(super) cx: &'c mut Ctx<'a>,
    pub(super) th: &'c mut ThreadCtx,
    pub(super) params: &'c [Ident],
    pub(super) loops: &'l mut u16,
}

/// Lower one C thread's body, each simple statement under its own id.
pub(super) fn lower_thread(
    cx: &mut Ctx<'_>,
    th: &mut ThreadCtx,
    t: &CThread,
    table: &mut crate::native::lower::StmtTable<'_>,
    loops: &mut u16,
) {
    let mut l = Lowering { cx, th, params: &t.params, loops };
    for p in &t.params {
        l.cx.location(p, None);
    }
    l.block(&t.body, table);
}

impl Lowering<'_, '_, '_> {
    fn block(&mut self, body: &[Stmt], table: &mut crate::native::lower::StmtTable<'_>) {
        for s in body {
            self.stmt(s, table);
        }
    }

    fn stmt(&mut self, s: &Stmt, table: &mut crate::native::lower::StmtTable<'_>) {
        let form = match s {
            Stmt::If { .. } | Stmt::While { .. } => StmtForm::Control,
            _ => StmtForm::Simple,
        };
        let sid = table.id(self.th.index, header_span(s), form);
        self.th.temp_next = 0;
        let start = self.th.code.len() as u32;
        let r = match s {
            Stmt::Decl { name, init, .. } => {
                let r = self.local(name);
                match init {
                    Some(e) => self.expr_into(e, r, sid),
                    None => Ok(()),
                }
            }
            Stmt::Assign { name, value, .. } => {
                let r = self.local(name);
                self.expr_into(value, r, sid)
            }
            Stmt::Store { target, value, .. } => (|| {
                let cell = self.location(target)?;
                let v = self.expr(value, sid)?;
                self.th.code.push(Instr::Store { addr: Addr::Fixed(cell), val: v, labels: Labels::NA, stmt: sid });
                Ok(())
            })(),
            Stmt::Expr(e, _) => self.expr(e, sid).map(|_| ()),
            Stmt::If { cond, then, els, .. } => {
                match self.expr(cond, sid) {
                    Ok(c) => {
                        let br = self.th.code.len();
                        self.th.code.push(Instr::Branch { cond: c, if_nonzero: false, target: 0 });
                        self.block(then, table);
                        if els.is_empty() {
                            self.patch(br, self.th.code.len());
                        } else {
                            let jump = self.th.code.len();
                            self.th.code.push(Instr::Jump { target: 0 });
                            self.patch(br, self.th.code.len());
                            self.block(els, table);
                            self.patch(jump, self.th.code.len());
                        }
                    }
                    Err(d) => self.cx.diags.push(d),
                }
                return;
            }
            Stmt::While { cond, body, .. } => {
                let id = *self.loops;
                *self.loops += 1;
                self.th.code.push(Instr::LoopEnter { id });
                let head = self.th.code.len();
                match self.expr(cond, sid) {
                    Ok(c) => {
                        let br = self.th.code.len();
                        self.th.code.push(Instr::Branch { cond: c, if_nonzero: false, target: 0 });
                        self.th.code.push(Instr::LoopIter { id, stmt: sid, bound: None });
                        self.block(body, table);
                        self.th.code.push(Instr::Jump { target: head as u32 });
                        self.patch(br, self.th.code.len());
                    }
                    Err(d) => self.cx.diags.push(d),
                }
                return;
            }
        };
        if let Err(d) = r {
            self.cx.diags.push(d);
        }
        if (start as usize) < self.th.code.len() {
            self.th.stmt_ranges.push(ir::StmtRange { stmt: sid, start, end: self.th.code.len() as u32 });
        }
    }

    fn patch(&mut self, at: usize, to: usize) {
        if let Instr::Branch { target, .. } | Instr::Jump { target } = &mut self.th.code[at] {
            *target = to as u32;
        }
    }

    fn local(&mut self, name: &Ident) -> ir::Reg {
        self.th.family_reg(&name.name, name, &mut self.cx.symbols)
    }

    /// The location a pointer parameter (or a shared name) reaches.
    fn location(&mut self, id: &Ident) -> Result<ir::Cell, Diagnostic> {
        if !self.params.iter().any(|p| p.name == id.name) && !self.cx.loc_index.contains_key(&id.name) {
            return Err(Diagnostic::error("E0142", id.span, format!("`{}` is not a location of this thread", id.name))
                .with_label("expected one of the thread's pointer parameters"));
        }
        Ok(self.cx.location(id, None))
    }

    fn pointer(&mut self, e: &Expr) -> Result<ir::Cell, Diagnostic> {
        match &e.kind {
            ExprKind::Var(id) => self.location(id),
            _ => Err(Diagnostic::error("E0142", e.span, "expected a pointer parameter (a location)")),
        }
    }

    fn expr_into(&mut self, e: &Expr, dst: ir::Reg, sid: StmtId) -> Result<(), Diagnostic> {
        let v = self.expr(e, sid)?;
        self.th.code.push(Instr::Mov { dst, src: v });
        Ok(())
    }

    fn expr(&mut self, e: &Expr, sid: StmtId) -> Result<Operand, Diagnostic> {
        Ok(match &e.kind {
            ExprKind::Int(v) => Operand::Imm(*v),
            ExprKind::Var(id) => {
                if self.th.by_family.contains_key(&id.name) {
                    Operand::Reg(self.local(id))
                } else {
                    return Err(Diagnostic::error("E0143", id.span, format!("unknown variable `{}`", id.name))
                        .with_label("declare it first (`int r = …;`)"));
                }
            }
            ExprKind::Deref(id) => {
                let cell = self.location(id)?;
                let t = self.th.temp();
                self.th.code.push(Instr::Load { dst: t, addr: Addr::Fixed(cell), labels: Labels::NA, stmt: sid });
                Operand::Reg(t)
            }
            ExprKind::Not(a) | ExprKind::Neg(a) | ExprKind::BitNot(a) => {
                let op = match &e.kind {
                    ExprKind::Not(_) => UnOp::Not,
                    ExprKind::Neg(_) => UnOp::Neg,
                    _ => UnOp::BitNot,
                };
                let a = self.expr(a, sid)?;
                let t = self.th.temp();
                self.th.code.push(Instr::Un { dst: t, op, a });
                Operand::Reg(t)
            }
            ExprKind::Bin(op, a, b) => {
                let (a, b) = (self.expr(a, sid)?, self.expr(b, sid)?);
                let op = match op {
                    CBin::Add => BinOp::Add,
                    CBin::Sub => BinOp::Sub,
                    CBin::Mul => BinOp::Mul,
                    CBin::Div => BinOp::Div,
                    CBin::Rem => BinOp::Rem,
                    CBin::Eq => BinOp::Eq,
                    CBin::Ne => BinOp::Ne,
                    CBin::Lt => BinOp::Lt,
                    CBin::Le => BinOp::Le,
                    CBin::Gt => BinOp::Gt,
                    CBin::Ge => BinOp::Ge,
                    CBin::And => BinOp::And,
                    CBin::Or => BinOp::Or,
                    CBin::BitAnd => BinOp::BitAnd,
                    CBin::BitOr => BinOp::BitOr,
                    CBin::BitXor => BinOp::BitXor,
                };
                let t = self.th.temp();
                self.th.code.push(Instr::Bin { dst: t, op, a, b, stmt: sid });
                Operand::Reg(t)
            }
            ExprKind::Call(f, args) => return self.call(f, args, e.span, sid),
        })
    }

    fn call(&mut self, f: &Ident, args: &[Expr], span: Span, sid: StmtId) -> Result<Operand, Diagnostic> {
        let name = f.name.as_str();
        let (base, explicit) = match name.strip_suffix("_explicit") {
            Some(b) => (b, true),
            None => (name, false),
        };
        let want = |n: usize| -> Result<(), Diagnostic> {
            if args.len() == n {
                Ok(())
            } else {
                Err(Diagnostic::error("E0122", span, format!("`{name}` takes {n} argument(s), found {}", args.len())))
            }
        };
        // The memory order argument at `k` (seq_cst where not explicit).
        let mo = |k: usize| -> Result<Labels, Diagnostic> {
            if explicit {
                order(&args[k])
            } else {
                Ok(Labels::MO_SC)
            }
        };
        let atomic = |mo: Labels| Labels::A | mo;
        let rmw = |mo: Labels| Labels::A | Labels::X | Labels::RMW | mo;
        let fetch = |op: &str| -> Option<BinOp> {
            Some(match op {
                "atomic_fetch_add" => BinOp::Add,
                "atomic_fetch_sub" => BinOp::Sub,
                "atomic_fetch_or" => BinOp::BitOr,
                "atomic_fetch_and" => BinOp::BitAnd,
                "atomic_fetch_xor" => BinOp::BitXor,
                _ => return None,
            })
        };
        match base {
            "atomic_load" => {
                want(1 + explicit as usize)?;
                let cell = self.pointer(&args[0])?;
                let labels = atomic(mo(1)?);
                let t = self.th.temp();
                self.th.code.push(Instr::Load { dst: t, addr: Addr::Fixed(cell), labels, stmt: sid });
                Ok(Operand::Reg(t))
            }
            "atomic_store" => {
                want(2 + explicit as usize)?;
                let cell = self.pointer(&args[0])?;
                let labels = atomic(mo(2)?);
                let v = self.expr(&args[1], sid)?;
                self.th.code.push(Instr::Store { addr: Addr::Fixed(cell), val: v, labels, stmt: sid });
                Ok(Operand::Imm(0))
            }
            "atomic_thread_fence" => {
                if !explicit && args.len() == 1 {
                    // (herd's name has no `_explicit`: its one argument is the order.)
                }
                want(1)?;
                let labels = order(&args[0])?;
                self.th.code.push(Instr::Fence { kind: FenceKind::Order(labels), stmt: sid });
                Ok(Operand::Imm(0))
            }
            "atomic_exchange" => {
                want(2 + explicit as usize)?;
                let cell = self.pointer(&args[0])?;
                let labels = rmw(mo(2)?);
                let v = self.expr(&args[1], sid)?;
                let t = self.th.temp();
                self.th.code.push(Instr::Rmw {
                    dst: t,
                    addr: Addr::Fixed(cell),
                    op: RmwOp::Xchg(v),
                    labels,
                    stmt: sid,
                });
                Ok(Operand::Reg(t))
            }
            b if fetch(b).is_some() => {
                want(2 + explicit as usize)?;
                let cell = self.pointer(&args[0])?;
                let labels = rmw(mo(2)?);
                let v = self.expr(&args[1], sid)?;
                let t = self.th.temp();
                let op = RmwOp::Fetch(fetch(b).expect("a fetch"), v);
                self.th.code.push(Instr::Rmw { dst: t, addr: Addr::Fixed(cell), op, labels, stmt: sid });
                Ok(Operand::Reg(t))
            }
            "atomic_compare_exchange_strong" => {
                want(if explicit { 5 } else { 3 })?;
                let (success, failure) = if explicit { (mo(3)?, mo(4)?) } else { (Labels::MO_SC, Labels::MO_SC) };
                let cell = self.pointer(&args[0])?;
                let exp = self.pointer(&args[1])?;
                // herd: the expected value is read plainly first.
                let e = self.th.temp();
                self.th.code.push(Instr::Load { dst: e, addr: Addr::Fixed(exp), labels: Labels::NA, stmt: sid });
                let new = self.expr(&args[2], sid)?;
                let old = self.th.temp();
                let op = RmwOp::Cas { expected: Operand::Reg(e), new, fail: Some(atomic(failure)) };
                self.th.code.push(Instr::Rmw {
                    dst: old,
                    addr: Addr::Fixed(cell),
                    op,
                    labels: rmw(success),
                    stmt: sid,
                });
                let ok = self.th.temp();
                let (a, b) = (Operand::Reg(old), Operand::Reg(e));
                self.th.code.push(Instr::Bin { dst: ok, op: BinOp::Eq, a, b, stmt: sid });
                // On failure the value read goes to the expected location.
                let br = self.th.code.len();
                self.th.code.push(Instr::Branch { cond: Operand::Reg(ok), if_nonzero: true, target: 0 });
                self.th.code.push(Instr::Store {
                    addr: Addr::Fixed(exp),
                    val: Operand::Reg(old),
                    labels: Labels::NA,
                    stmt: sid,
                });
                self.patch(br, self.th.code.len());
                Ok(Operand::Reg(ok))
            }
            _ => Err(Diagnostic::error("E0140", f.span, format!("`{name}` is not supported"))
                .with_label("litmus reads C11's atomic_* functions")
                .with_help(
                    "atomic_load/store/exchange/fetch_*/compare_exchange_strong (and _explicit), atomic_thread_fence",
                )),
        }
    }
}

/// The span a statement is named by: a compound one's head only.
fn header_span(s: &Stmt) -> Span {
    match s {
        Stmt::If { cond, span, .. } | Stmt::While { cond, span, .. } => Span::new(span.start, cond.span.end + 1),
        s => s.span(),
    }
}
