//! Lowering of an analysed native file to the IR. Runs only on files sema
//! accepted, so name lookups cannot fail (fallbacks exist, but never panic).

use super::ast::*;
use super::sema::Sema;
use crate::ir::{self, Addr, Instr, Labels, Operand, Reg, RegInfo, RegKind, StmtForm, StmtId, StmtInfo};
use crate::span::{LineIndex, Span};
use crate::spin::LoopShape;
use std::collections::HashMap;

pub(crate) struct Shared {
    pub(crate) locations: Vec<ir::Location>,
    pub(crate) init: Vec<i64>,
}

/// Shared state of one lowering: memory layout and the statement table.
pub(crate) struct StmtTable<'a> {
    pub(crate) src: &'a str,
    pub(crate) lines: &'a LineIndex,
    pub(crate) stmts: Vec<StmtInfo>,
    ids: HashMap<(u16, Span), StmtId>,
}

impl<'a> StmtTable<'a> {
    pub(crate) fn new(src: &'a str, lines: &'a LineIndex) -> Self {
        StmtTable { src, lines, stmts: Vec::new(), ids: HashMap::new() }
    }

    /// The id of the statement at `span` in `thread` (inlined code included).
    pub(crate) fn id(&mut self, thread: u16, span: Span, form: StmtForm) -> StmtId {
        if let Some(&id) = self.ids.get(&(thread, span)) {
            return id;
        }
        let raw = span.text(self.src).trim();
        let raw = raw.strip_suffix(';').unwrap_or(raw).trim_end();
        let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        let (line, col) = self.lines.line_col(self.src, span.start);
        let (end_line, end_col) = self.lines.line_col(self.src, span.end);
        self.stmts.push(StmtInfo { thread, form, span, extent: span, text, line, col, end_line, end_col });
        let id = (self.stmts.len() - 1) as StmtId;
        self.ids.insert((thread, span), id);
        id
    }
}

struct Inline {
    result: Reg,
    exits: Vec<usize>,
}

struct ThreadLowerer<'l, 'a> {
    thread: u16,
    sema: &'l Sema<'a>,
    mem: &'l HashMap<&'a str, (u32, u32, bool)>,
    table: &'l mut StmtTable<'a>,
    code: Vec<Instr>,
    regs: Vec<RegInfo>,
    /// User registers by name (sibling blocks share a register).
    user: HashMap<String, Reg>,
    /// Frames of scopes: a function body sees only its own frame.
    frames: Vec<Vec<HashMap<String, Reg>>>,
    live_temps: Vec<Reg>,
    free_temps: Vec<Reg>,
    inlines: Vec<Inline>,
    loops: u16,
    stmt_ranges: Vec<ir::StmtRange>,
    control_ranges: Vec<ir::StmtRange>,
    loop_heads: Vec<ir::LoopHead>,
    /// The statement being lowered is the `if` of an `else if`: no place
    /// before or after it in the text is a statement boundary.
    chained: bool,
    /// Every `while` lowered, for the spin-loop pass.
    shapes: Vec<LoopShape>,
    /// The program writes memory orders (an `atomic` location, an
    /// `@order`, a fence with an order): its accesses carry C11's labels.
    ordered: bool,
    /// The order of the load being lowered (`x@acquire`).
    pending_order: Option<MemOrder>,
}

impl<'l, 'a> ThreadLowerer<'l, 'a> {
    fn pc(&self) -> u32 {
        self.code.len() as u32
    }

    fn emit(&mut self, i: Instr) -> usize {
        self.code.push(i);
        self.code.len() - 1
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at] {
            Instr::Jump { target: t } | Instr::Branch { target: t, .. } => *t = target,
            Instr::AwaitStart { check, .. } => *check = target,
            _ => {}
        }
    }

    fn temp(&mut self) -> Reg {
        let r = match self.free_temps.pop() {
            Some(r) => r,
            None => {
                self.regs.push(RegInfo { name: format!("%t{}", self.regs.len()), kind: RegKind::Temp });
                (self.regs.len() - 1) as Reg
            }
        };
        self.live_temps.push(r);
        r
    }

    fn release_to(&mut self, mark: usize) {
        while self.live_temps.len() > mark {
            let r = self.live_temps.pop().unwrap();
            self.free_temps.push(r);
        }
    }

    fn lookup(&self, name: &str) -> Option<Reg> {
        self.frames.last()?.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: &str, r: Reg) {
        if let Some(scope) = self.frames.last_mut().and_then(|f| f.last_mut()) {
            scope.insert(name.to_string(), r);
        }
    }

    fn block(&mut self, b: &'a Block) {
        if let Some(f) = self.frames.last_mut() {
            f.push(HashMap::new());
        }
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(f) = self.frames.last_mut() {
            f.pop();
        }
    }

    /// The user register of this name (sibling blocks share one).
    fn user_reg(&mut self, name: &str) -> Reg {
        match self.user.get(name) {
            Some(&r) => r,
            None => {
                self.regs.push(RegInfo { name: name.to_string(), kind: RegKind::User });
                let r = (self.regs.len() - 1) as Reg;
                self.user.insert(name.to_string(), r);
                r
            }
        }
    }

    /// `for k in a..b`: the header up to the body's `{`.
    fn for_header_span(&self, s: &Stmt, body: &Block) -> Span {
        let src = self.table.src;
        let end = body.span.start.max(s.span.start).min(src.len());
        Span::new(s.span.start, s.span.start + src[s.span.start..end].trim_end().len())
    }

    fn sid(&mut self, span: Span) -> StmtId {
        self.table.id(self.thread, span, StmtForm::Simple)
    }

    fn sid_of(&mut self, span: Span, form: StmtForm) -> StmtId {
        self.table.id(self.thread, span, form)
    }

    /// `if (c)` / `while (c)`: the header up to the closing parenthesis.
    fn header_span(&self, s: &Stmt, cond: &Expr) -> Span {
        let src = self.table.src;
        let mut end = cond.span.end;
        let rest = &src[end.min(src.len())..];
        let skipped = rest.len() - rest.trim_start().len();
        if rest[skipped..].starts_with(')') {
            end += skipped + 1;
        }
        Span::new(s.span.start, end)
    }

    fn stmt(&mut self, s: &'a Stmt) {
        // A function's `let` lives until the inlined body ends: allocate it
        // below this statement's temporaries.
        let local = match &s.kind {
            StmtKind::Let { name, .. } if !self.inlines.is_empty() => Some((name, self.temp())),
            _ => None,
        };
        let mark = self.live_temps.len();
        let start = self.pc();
        let ranges = self.stmt_ranges.len();
        let controls = self.control_ranges.len();
        let mut control: Option<StmtId> = None;
        let chained = std::mem::take(&mut self.chained);
        match &s.kind {
            StmtKind::Let { name, value } => {
                let sid = self.sid(s.span);
                let v = self.expr(value, sid);
                let r = match local {
                    Some((_, r)) => {
                        self.regs[r as usize].name = name.name.clone();
                        r
                    }
                    None => self.user_reg(&name.name),
                };
                self.emit(Instr::Mov { dst: r, src: v });
                self.bind(&name.name, r);
            }
            StmtKind::Assign { target, value } => {
                let sid = self.sid(s.span);
                let v = self.expr(value, sid);
                if let Some(r) = self.lookup(&target.name.name) {
                    self.emit(Instr::Mov { dst: r, src: v });
                } else {
                    let addr = self.addr(target, sid);
                    let labels = self.access_labels(&target.name.name, target.order);
                    self.emit(Instr::Store { addr, val: v, labels, stmt: sid });
                }
            }
            StmtKind::If { cond, then, els } => {
                let sid = self.sid_of(self.header_span(s, cond), StmtForm::Control);
                control = Some(sid);
                let c = self.expr(cond, sid);
                let to_else = self.emit(Instr::Branch { cond: c, if_nonzero: false, target: 0 });
                self.block(then);
                match els.as_deref() {
                    None => {
                        let pc = self.pc();
                        self.patch(to_else, pc);
                    }
                    Some(e) => {
                        let to_end = self.emit(Instr::Jump { target: 0 });
                        let pc = self.pc();
                        self.patch(to_else, pc);
                        match e {
                            Else::Block(b) => self.block(b),
                            Else::If(s) => {
                                self.chained = true;
                                self.stmt(s)
                            }
                        }
                        let pc = self.pc();
                        self.patch(to_end, pc);
                    }
                }
            }
            StmtKind::While { cond, bound, body } => {
                let sid = self.sid_of(self.header_span(s, cond), StmtForm::Control);
                control = Some(sid);
                let id = self.loops;
                self.loops += 1;
                let enter = self.emit(Instr::LoopEnter { id });
                let head = self.pc();
                let c = self.expr(cond, sid);
                let exit = self.emit(Instr::Branch { cond: c, if_nonzero: false, target: 0 });
                let bound = bound.as_deref().and_then(loop_count);
                self.emit(Instr::LoopIter { id, stmt: sid, bound });
                self.block(body);
                let back = self.emit(Instr::Jump { target: head });
                let pc = self.pc();
                self.patch(exit, pc);
                self.shapes.push(LoopShape { enter, exit, back, cond: c, stmt: sid });
                self.loop_heads.push(ir::LoopHead { stmt: sid, head, back: back as u32 });
            }
            StmtKind::For { var, from, to, body } => {
                // `k = from; while (k < to) bound (to - from) { body; k = k + 1; }`:
                // the body cannot assign `k`, so the bound is never hit.
                let sid = self.sid_of(self.for_header_span(s, body), StmtForm::Control);
                control = Some(sid);
                let (lo, hi) = (const_of(from), const_of(to));
                let k = self.user_reg(&var.name);
                self.emit(Instr::Mov { dst: k, src: Operand::Imm(lo) });
                if let Some(f) = self.frames.last_mut() {
                    f.push(HashMap::new());
                }
                self.bind(&var.name, k);
                let id = self.loops;
                self.loops += 1;
                self.emit(Instr::LoopEnter { id });
                let head = self.pc();
                let c = self.bin(ir::BinOp::Lt, Operand::Reg(k), Operand::Imm(hi), sid);
                let exit = self.emit(Instr::Branch { cond: c, if_nonzero: false, target: 0 });
                let count = u32::try_from(hi.saturating_sub(lo)).ok();
                self.emit(Instr::LoopIter { id, stmt: sid, bound: count });
                self.block(body);
                // The body ends before the count goes up: a fence last in it
                // comes before the increment.
                let back = self.emit(Instr::Bin {
                    dst: k,
                    op: ir::BinOp::Add,
                    a: Operand::Reg(k),
                    b: Operand::Imm(1),
                    stmt: sid,
                });
                self.emit(Instr::Jump { target: head });
                self.loop_heads.push(ir::LoopHead { stmt: sid, head, back: back as u32 });
                let pc = self.pc();
                self.patch(exit, pc);
                if let Some(f) = self.frames.last_mut() {
                    f.pop();
                }
            }
            StmtKind::Await(e) => {
                let sid = self.sid(s.span);
                let start = self.emit(Instr::AwaitStart { check: 0, stmt: sid });
                let c = self.expr(e, sid);
                let check = self.emit(Instr::AwaitCheck { cond: c, start: start as u32, stmt: sid });
                self.patch(start, check as u32);
            }
            StmtKind::Assert(e) => {
                let sid = self.sid(s.span);
                let c = self.expr(e, sid);
                self.emit(Instr::Assert { cond: c, stmt: sid });
            }
            StmtKind::Assume(e) => {
                let sid = self.sid(s.span);
                let c = self.expr(e, sid);
                self.emit(Instr::Assume { cond: c, stmt: sid });
            }
            StmtKind::Fence(kind) => {
                let sid = self.sid(s.span);
                self.emit(Instr::Fence { kind: *kind, stmt: sid });
            }
            StmtKind::Lock(m) => {
                let sid = self.sid(s.span);
                let dst = self.temp();
                let addr = Addr::Fixed(self.cell(&m.name));
                // A mutex's acquisition: an acquire test-and-set.
                let labels = self.rmw_labels(Some(MemOrder { labels: Labels::MO_ACQ, span: m.span })).0;
                self.emit(Instr::Rmw { dst, addr, op: ir::RmwOp::Lock, labels, stmt: sid });
            }
            StmtKind::Unlock(m) => {
                let sid = self.sid(s.span);
                let addr = Addr::Fixed(self.cell(&m.name));
                // A mutex's release: a release store.
                let labels = self.access_labels(&m.name, Some(MemOrder { labels: Labels::MO_REL, span: m.span }));
                self.emit(Instr::Store { addr, val: Operand::Imm(0), labels, stmt: sid });
            }
            StmtKind::Return(e) => {
                let sid = self.sid_of(s.span, StmtForm::Return);
                let v = e.as_ref().map(|e| self.expr(e, sid));
                match self.inlines.last().map(|i| i.result) {
                    Some(result) => {
                        if let Some(v) = v {
                            self.emit(Instr::Mov { dst: result, src: v });
                        }
                        let j = self.emit(Instr::Jump { target: 0 });
                        self.inlines.last_mut().unwrap().exits.push(j);
                    }
                    // The thread ends here: a halt, not a jump to its end
                    // (where a fence after an enclosing statement may stand).
                    None => {
                        self.emit(Instr::Halt);
                    }
                }
            }
            StmtKind::Expr(e) => {
                let sid = self.sid(s.span);
                self.expr(e, sid);
            }
            StmtKind::Error => {}
        }
        // A simple statement's range, if it has code (placed before the
        // ranges of the statements of functions it inlined: code order).
        let simple =
            !matches!(s.kind, StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::Return(_) | StmtKind::Error);
        if simple && start < self.pc() {
            let stmt = self.sid(s.span);
            self.stmt_ranges.insert(ranges, ir::StmtRange { stmt, start, end: self.pc() });
        }
        if let Some(stmt) = control {
            self.table.stmts[stmt as usize].extent = s.span;
            if start < self.pc() && !chained {
                self.control_ranges.insert(controls, ir::StmtRange { stmt, start, end: self.pc() });
            }
        }
        self.release_to(mark);
    }

    fn cell(&self, name: &str) -> u32 {
        self.mem.get(name).map(|m| m.0).unwrap_or(0)
    }

    fn addr(&mut self, lv: &'a LValue, sid: StmtId) -> Addr {
        let (base, len, is_array) = self.mem.get(lv.name.name.as_str()).copied().unwrap_or((0, 1, false));
        match (&lv.index, is_array) {
            (Some(i), true) => match self.expr(i, sid) {
                Operand::Imm(v) if v >= 0 && v < len as i64 => Addr::Fixed(base + v as u32),
                index => Addr::Indexed { base, len, index },
            },
            _ => Addr::Fixed(base),
        }
    }

    fn load(&mut self, addr: Addr, labels: Labels, sid: StmtId) -> Operand {
        let dst = self.temp();
        self.emit(Instr::Load { dst, addr, labels, stmt: sid });
        Operand::Reg(dst)
    }

    /// The labels of a load or store of `name`: none in a program without
    /// memory orders; else C11's, as herd's C gives them: atomic with its
    /// order (`seq_cst` on an `atomic` location by default), or non-atomic.
    fn access_labels(&self, name: &str, order: Option<MemOrder>) -> Labels {
        if !self.ordered {
            return Labels::NONE;
        }
        let atomic = self.sema.shared.get(name).is_some_and(|i| i.atomic);
        match order {
            Some(o) => Labels::A | o.labels,
            None if atomic => Labels::A | Labels::MO_SC,
            None => Labels::NA,
        }
    }

    /// A read-modify-write's labels and, for a `cas`, its failing read's
    /// (C11's default failure order: no release in a read).
    fn rmw_labels(&self, order: Option<MemOrder>) -> (Labels, Option<Labels>) {
        if !self.ordered {
            return (Labels::NONE, None);
        }
        let o = order.map_or(Labels::MO_SC, |o| o.labels);
        let fail = if o == Labels::MO_ACQ_REL {
            Labels::MO_ACQ
        } else if o == Labels::MO_REL {
            Labels::RLX
        } else {
            o
        };
        (Labels::A | Labels::RMW | o, Some(Labels::A | fail))
    }

    fn bin(&mut self, op: ir::BinOp, a: Operand, b: Operand, sid: StmtId) -> Operand {
        if let (Operand::Imm(x), Operand::Imm(y)) = (a, b) {
            if let Some(v) = op.eval(x, y) {
                return Operand::Imm(v);
            }
        }
        let dst = self.temp();
        self.emit(Instr::Bin { dst, op, a, b, stmt: sid });
        Operand::Reg(dst)
    }

    fn expr(&mut self, e: &'a Expr, sid: StmtId) -> Operand {
        match &e.kind {
            ExprKind::Int(v) => Operand::Imm(*v),
            ExprKind::Bool(b) => Operand::Imm(*b as i64),
            ExprKind::Error | ExprKind::ThreadReg(..) => Operand::Imm(0),
            ExprKind::Var(name) => {
                let order = self.pending_order.take();
                match self.lookup(&name.name) {
                    Some(r) => Operand::Reg(r),
                    None => {
                        let c = self.cell(&name.name);
                        let labels = self.access_labels(&name.name, order);
                        self.load(Addr::Fixed(c), labels, sid)
                    }
                }
            }
            ExprKind::Index(name, i) => {
                // Taken before the index is lowered: the order is this load's only.
                let order = self.pending_order.take();
                let (base, len, _) = self.mem.get(name.name.as_str()).copied().unwrap_or((0, 1, false));
                let addr = match self.expr(i, sid) {
                    Operand::Imm(v) if v >= 0 && v < len as i64 => Addr::Fixed(base + v as u32),
                    index => Addr::Indexed { base, len, index },
                };
                let labels = self.access_labels(&name.name, order);
                self.load(addr, labels, sid)
            }
            ExprKind::Ordered(inner, o) => {
                self.pending_order = Some(*o);
                let v = self.expr(inner, sid);
                self.pending_order = None;
                v
            }
            ExprKind::Unary(op, a) => {
                let v = self.expr(a, sid);
                let op = match op {
                    UnOp::Not => ir::UnOp::Not,
                    UnOp::Neg => ir::UnOp::Neg,
                };
                if let Operand::Imm(x) = v {
                    return Operand::Imm(op.eval(x));
                }
                let dst = self.temp();
                self.emit(Instr::Un { dst, op, a: v });
                Operand::Reg(dst)
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                // Short circuit: the right operand's loads happen only if needed.
                let is_and = *op == BinOp::And;
                let av = self.expr(a, sid);
                if let Operand::Imm(x) = av {
                    if (x != 0) != is_and {
                        return Operand::Imm((x != 0) as i64);
                    }
                    let bv = self.expr(b, sid);
                    return self.bin(ir::BinOp::Ne, bv, Operand::Imm(0), sid);
                }
                let t = self.temp();
                self.emit(Instr::Bin { dst: t, op: ir::BinOp::Ne, a: av, b: Operand::Imm(0), stmt: sid });
                let skip = self.emit(Instr::Branch { cond: Operand::Reg(t), if_nonzero: !is_and, target: 0 });
                let bv = self.expr(b, sid);
                self.emit(Instr::Bin { dst: t, op: ir::BinOp::Ne, a: bv, b: Operand::Imm(0), stmt: sid });
                let pc = self.pc();
                self.patch(skip, pc);
                Operand::Reg(t)
            }
            ExprKind::Binary(op, a, b) => {
                let av = self.expr(a, sid);
                let bv = self.expr(b, sid);
                self.bin(map_binop(*op), av, bv, sid)
            }
            ExprKind::Call(f, args) => self.inline(f, args, sid),
            ExprKind::Cas(lv, a, b) => {
                let addr = self.addr(lv, sid);
                let expected = self.expr(a, sid);
                let new = self.expr(b, sid);
                let dst = self.temp();
                let (labels, fail) = self.rmw_labels(lv.order);
                let op = ir::RmwOp::Cas { expected, new, fail };
                self.emit(Instr::Rmw { dst, addr, op, labels, stmt: sid });
                Operand::Reg(dst)
            }
            ExprKind::Xchg(lv, a) | ExprKind::FetchAdd(lv, a) => {
                let addr = self.addr(lv, sid);
                let v = self.expr(a, sid);
                let op = if matches!(e.kind, ExprKind::Xchg(..)) {
                    ir::RmwOp::Xchg(v)
                } else {
                    ir::RmwOp::Fetch(ir::BinOp::Add, v)
                };
                let dst = self.temp();
                let labels = self.rmw_labels(lv.order).0;
                self.emit(Instr::Rmw { dst, addr, op, labels, stmt: sid });
                Operand::Reg(dst)
            }
        }
    }

    fn inline(&mut self, f: &'a Ident, args: &'a [Expr], sid: StmtId) -> Operand {
        let Some(def) = self.sema.fns.get(f.name.as_str()).map(|i| i.def) else {
            return Operand::Imm(0);
        };
        // A plain loop: iterator adapters cost stack frames per nesting level.
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a, sid));
        }
        let result = self.temp();
        self.emit(Instr::Mov { dst: result, src: Operand::Imm(0) });
        let mark = self.live_temps.len();
        self.frames.push(vec![HashMap::new()]);
        for (p, v) in def.params.iter().zip(vals) {
            let r = self.temp();
            self.regs[r as usize].name = format!("{}.{}", def.name.name, p.name);
            self.emit(Instr::Mov { dst: r, src: v });
            self.bind(&p.name, r);
        }
        self.inlines.push(Inline { result, exits: Vec::new() });
        self.block(&def.body);
        let inline = self.inlines.pop().unwrap();
        let end = self.pc();
        for j in inline.exits {
            self.patch(j, end);
        }
        self.frames.pop();
        self.release_to(mark);
        Operand::Reg(result)
    }
}

fn map_binop(op: BinOp) -> ir::BinOp {
    match op {
        BinOp::Or => ir::BinOp::Or,
        BinOp::And => ir::BinOp::And,
        BinOp::Eq => ir::BinOp::Eq,
        BinOp::Ne => ir::BinOp::Ne,
        BinOp::Lt => ir::BinOp::Lt,
        BinOp::Le => ir::BinOp::Le,
        BinOp::Gt => ir::BinOp::Gt,
        BinOp::Ge => ir::BinOp::Ge,
        BinOp::Add => ir::BinOp::Add,
        BinOp::Sub => ir::BinOp::Sub,
        BinOp::Mul => ir::BinOp::Mul,
        BinOp::Div => ir::BinOp::Div,
        BinOp::Rem => ir::BinOp::Rem,
    }
}

/// Name -> (base cell, length, is array), borrowing names from the AST.
fn file_locations<'f>(file: &'f File, locations: &[ir::Location]) -> HashMap<&'f str, (u32, u32, bool)> {
    let by_name: HashMap<&str, &ir::Location> = locations.iter().map(|l| (l.name.as_str(), l)).collect();
    let mut out = HashMap::new();
    for item in &file.items {
        if let Item::Shared(d) = item {
            for v in &d.vars {
                if let Some(l) = by_name.get(v.name.name.as_str()) {
                    out.entry(v.name.name.as_str()).or_insert((l.base, l.len, l.is_array));
                }
            }
        }
    }
    out
}

fn layout(file: &File) -> Shared {
    let mut locations = Vec::new();
    let mut init = Vec::new();
    let mut declared = std::collections::HashSet::new();
    for item in &file.items {
        if let Item::Shared(d) = item {
            for v in &d.vars {
                if !declared.insert(v.name.name.as_str()) {
                    continue;
                }
                let len = v.len.map(|n| n.value.clamp(1, 1 << 16) as u32).unwrap_or(1);
                let base = init.len() as u32;
                let mut vals = vec![0i64; len as usize];
                match &v.init {
                    Some(Init::Scalar(i)) => vals[0] = i.value,
                    Some(Init::Array(xs, _)) => {
                        for (slot, x) in vals.iter_mut().zip(xs) {
                            *slot = x.value;
                        }
                    }
                    None => {}
                }
                init.extend(vals);
                locations.push(ir::Location {
                    name: v.name.name.clone(),
                    span: Some(v.name.span),
                    base,
                    len,
                    is_array: v.len.is_some(),
                    elem_bytes: 8,
                });
            }
        }
    }
    Shared { locations, init }
}

/// Choices of lowering that change the IR but not the program's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LowerOptions {
    /// Lower spin loops to their final iteration (`spin.rs`); off only to
    /// compare with the loops as written.
    pub reduce_spins: bool,
    /// Tests only: reduce every loop of loads and register code, skipping
    /// the register conditions — a wrong reduction, which the equivalence
    /// tests must catch.
    #[doc(hidden)]
    pub unchecked_spins: bool,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions { reduce_spins: true, unchecked_spins: false }
    }
}

/// A constant loop bound (sema checked it), or `None` for `--loop-bound`.
fn loop_count(e: &Expr) -> Option<u32> {
    u32::try_from(const_of(e)).ok().filter(|&n| n >= 1)
}

fn const_of(e: &Expr) -> i64 {
    match &e.kind {
        ExprKind::Int(v) => *v,
        ExprKind::Bool(b) => *b as i64,
        ExprKind::Unary(UnOp::Neg, a) => const_of(a).wrapping_neg(),
        _ => 0,
    }
}

/// Lower a file that sema accepted.
pub fn lower(src: &str, file: &File, sema: &Sema<'_>, lines: &LineIndex, opts: LowerOptions) -> ir::Program {
    let Shared { locations, init } = layout(file);
    let mem: HashMap<&str, (u32, u32, bool)> = file_locations(file, &locations);
    let mut table = StmtTable::new(src, lines);
    let mut threads = Vec::new();
    let mut spins = Vec::new();
    let ordered = uses_memory_orders(file);
    for (ti, (def, _)) in sema.threads.iter().enumerate() {
        let mut tl = ThreadLowerer {
            thread: ti as u16,
            sema,
            mem: &mem,
            table: &mut table,
            code: Vec::new(),
            regs: Vec::new(),
            user: HashMap::new(),
            frames: vec![Vec::new()],
            live_temps: Vec::new(),
            free_temps: Vec::new(),
            inlines: Vec::new(),
            loops: 0,
            stmt_ranges: Vec::new(),
            control_ranges: Vec::new(),
            loop_heads: Vec::new(),
            chained: false,
            shapes: Vec::new(),
            ordered,
            pending_order: None,
        };
        tl.block(&def.body);
        if opts.reduce_spins {
            spins.extend(crate::spin::reduce_spins(
                &mut tl.code,
                &mut tl.regs,
                &tl.shapes,
                !opts.unchecked_spins,
                &mut tl.stmt_ranges,
                &mut tl.control_ranges,
                &mut tl.loop_heads,
            ));
        }
        let nregs = tl.regs.len();
        threads.push(ir::Thread {
            name: def.name.name.clone(),
            name_span: def.name.span,
            regs: tl.regs,
            init_regs: vec![0; nregs],
            code: tl.code,
            loops: tl.loops,
            stmt_ranges: tl.stmt_ranges,
            control_ranges: tl.control_ranges,
            loop_heads: tl.loop_heads,
        });
    }
    let mut observables = ir::ObservableSet::default();
    let condition = file.items.iter().find_map(|i| if let Item::Final(f) = i { Some(f) } else { None }).map(|f| {
        let expr = lower_cond(&f.cond, &Names::new(&threads), &mem, &mut observables);
        ir::Condition { quantifier: f.quantifier, expr, text: cond_text(src, &f.cond), span: f.span }
    });
    ir::Program {
        name: file.header.as_ref().map(|h| h.name.name.clone()).unwrap_or_default(),
        doc: file.header.as_ref().and_then(|h| h.doc.as_ref().map(|d| d.0.clone())),
        dialect: ir::Dialect::Native,
        locations,
        init,
        threads,
        stmts: table.stmts,
        condition,
        filter: None,
        observables: observables.list,
        spins,
    }
}

/// Does the file write a memory order: an `atomic` location, an access's
/// `@order`, or a fence with an order? Then every access is C11's
/// (atomic or not); else none carries a label, as before orders existed.
fn uses_memory_orders(file: &File) -> bool {
    let found = std::cell::Cell::new(false);
    let expr = |e: &Expr| {
        e.walk(&mut |x| {
            let ordered = match &x.kind {
                ExprKind::Ordered(..) => true,
                ExprKind::Cas(lv, ..) | ExprKind::Xchg(lv, _) | ExprKind::FetchAdd(lv, _) => lv.order.is_some(),
                _ => false,
            };
            found.set(found.get() || ordered);
        })
    };
    let body = |b: &Block| {
        b.walk(&mut |s| {
            super::sema::stmt_exprs(s, &mut |e| expr(e));
            let ordered = match &s.kind {
                StmtKind::Assign { target, .. } => target.order.is_some(),
                StmtKind::Fence(k) => matches!(k, ir::FenceKind::Order(_)),
                _ => false,
            };
            found.set(found.get() || ordered);
        })
    };
    for item in &file.items {
        match item {
            Item::Shared(d) if d.atomic => return true,
            Item::Thread(t) => body(&t.body),
            Item::Fn(f) => body(&f.body),
            _ => {}
        }
    }
    found.get()
}

/// The predicate's text on one line, without enclosing parentheses.
pub(crate) fn cond_text(src: &str, cond: &Expr) -> String {
    // A parenthesised operand's span leaves its parentheses out, so a
    // condition that begins (or ends) with one would lose a `(` (or `)`):
    // widen the span over the parentheses its text leaves unmatched.
    let (mut lo, mut hi) = (cond.span.start, cond.span.end);
    let (mut unopened, mut unclosed) = (0usize, 0usize);
    for c in src[lo..hi].bytes() {
        match c {
            b'(' => unclosed += 1,
            b')' if unclosed > 0 => unclosed -= 1,
            b')' => unopened += 1,
            _ => {}
        }
    }
    let b = src.as_bytes();
    while unopened > 0 {
        let mut k = lo;
        while k > 0 && b[k - 1].is_ascii_whitespace() {
            k -= 1;
        }
        if k == 0 || b[k - 1] != b'(' {
            break;
        }
        lo = k - 1;
        unopened -= 1;
    }
    while unclosed > 0 {
        let mut k = hi;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if k >= b.len() || b[k] != b')' {
            break;
        }
        hi = k + 1;
        unclosed -= 1;
    }
    let t = src[lo..hi].split_whitespace().collect::<Vec<_>>().join(" ");
    strip_parens(&t).to_string()
}

pub(crate) fn strip_parens(t: &str) -> &str {
    let whole = t.trim();
    // Where each `(` closes, found once, so stripping many layers stays linear.
    let mut close = vec![usize::MAX; whole.len()];
    let mut open = Vec::new();
    for (i, c) in whole.bytes().enumerate() {
        match c {
            b'(' => open.push(i),
            b')' => {
                if let Some(o) = open.pop() {
                    close[o] = i;
                }
            }
            _ => {}
        }
    }
    let (mut lo, mut hi) = (0, whole.len());
    // Only while the first `(` closes at the very end.
    while lo < hi && whole.as_bytes()[lo] == b'(' && close[lo] == hi - 1 {
        let inner = &whole[lo + 1..hi - 1];
        let trimmed = inner.trim_start();
        lo = hi - 1 - inner.len() + (inner.len() - trimmed.len());
        hi = lo + trimmed.trim_end().len();
    }
    &whole[lo..hi]
}

/// Threads, and each thread's registers, by name (the first of a name).
struct Names<'t> {
    threads: &'t [ir::Thread],
    thread: HashMap<&'t str, usize>,
    regs: Vec<HashMap<&'t str, Reg>>,
}

impl<'t> Names<'t> {
    fn new(threads: &'t [ir::Thread]) -> Self {
        let mut thread = HashMap::new();
        for (i, t) in threads.iter().enumerate() {
            thread.entry(t.name.as_str()).or_insert(i);
        }
        let regs = threads
            .iter()
            .map(|t| {
                let mut by = HashMap::new();
                for (i, r) in t.regs.iter().enumerate().filter(|r| r.1.kind == RegKind::User) {
                    by.entry(r.name.as_str()).or_insert(i as Reg);
                }
                by
            })
            .collect();
        Names { threads, thread, regs }
    }
}

fn lower_cond(
    e: &Expr,
    names: &Names<'_>,
    mem: &HashMap<&str, (u32, u32, bool)>,
    obs: &mut ir::ObservableSet,
) -> ir::CondExpr {
    use ir::CondExpr as C;
    let mut observe = |name: String, kind: ir::ObservableKind| {
        obs.add(kind, || name);
    };
    match &e.kind {
        ExprKind::Int(v) => C::Const(*v),
        ExprKind::Bool(b) => C::Const(*b as i64),
        ExprKind::ThreadReg(t, r) => {
            let threads = names.threads;
            let ti = names.thread.get(t.name.as_str()).copied().or_else(|| t.name.parse::<usize>().ok()).unwrap_or(0);
            let reg = names.regs.get(ti).and_then(|m| m.get(r.name.as_str()).copied()).unwrap_or(0);
            let name = format!("{}:{}", threads.get(ti).map(|t| t.name.as_str()).unwrap_or("?"), r.name);
            observe(name, ir::ObservableKind::Reg { thread: ti as u16, reg });
            C::Reg { thread: ti as u16, reg }
        }
        ExprKind::Var(n) => {
            let cell = mem.get(n.name.as_str()).map(|m| m.0).unwrap_or(0);
            observe(n.name.clone(), ir::ObservableKind::Mem(cell));
            C::Mem(cell)
        }
        ExprKind::Index(n, i) => {
            let (base, _, _) = mem.get(n.name.as_str()).copied().unwrap_or((0, 1, false));
            let idx = match &i.kind {
                ExprKind::Int(v) => *v,
                _ => 0,
            };
            let cell = base + idx.max(0) as u32;
            observe(format!("{}[{}]", n.name, idx), ir::ObservableKind::Mem(cell));
            C::Mem(cell)
        }
        ExprKind::Unary(op, a) => {
            let op = match op {
                UnOp::Not => ir::UnOp::Not,
                UnOp::Neg => ir::UnOp::Neg,
            };
            C::Un(op, Box::new(lower_cond(a, names, mem, obs)))
        }
        ExprKind::Binary(op, a, b) => {
            C::Bin(map_binop(*op), Box::new(lower_cond(a, names, mem, obs)), Box::new(lower_cond(b, names, mem, obs)))
        }
        _ => C::Const(0),
    }
}

#[cfg(test)]
mod tests {
    use super::strip_parens;

    #[test]
    fn strip_parens_removes_only_enclosing_pairs() {
        assert_eq!(strip_parens(" ( ( a == 1 ) ) "), "a == 1");
        assert_eq!(strip_parens("(a) && (b)"), "(a) && (b)");
        assert_eq!(strip_parens("(a))"), "(a))");
        assert_eq!(strip_parens("()"), "");
        assert_eq!(strip_parens(""), "");
        let deep = format!("{}x{}", "(".repeat(200_000), ")".repeat(200_000));
        assert_eq!(strip_parens(&deep), "x");
    }
}
