//! What the parser sees that [`Analysis`](litmus_dsl::Analysis) does not
//! keep: the spans of bodies and blocks, the final condition, herd's initial
//! state and thread table, and which occurrences of a name write it. Derived
//! by parsing the text again (the parser alone, no analysis or lowering:
//! milliseconds), so the dsl crate needs no new API for folding, highlights
//! and the outline.

use litmus_dsl::herd::ast as herd;
use litmus_dsl::native::ast::{Block, Else, Expr, ExprKind, Item, StmtKind};
use litmus_ir::{Dialect, Span};
use std::collections::HashSet;

#[derive(Debug, Default)]
pub struct Shape {
    /// Thread and function bodies, `{` to `}`.
    pub bodies: Vec<Span>,
    /// The blocks of `if`, `else`, `while` and `for`.
    pub blocks: Vec<Span>,
    /// The final condition, its quantifier included.
    pub condition: Option<Span>,
    /// herd: the initial state's `{ … }`.
    pub init: Option<Span>,
    /// herd: the thread table, header row to last row.
    pub table: Option<Span>,
    /// Occurrences of names that declare or write them: declarations,
    /// assignment targets, atomics' locations, `lock`/`unlock`, herd's
    /// initial values, instruction destinations, labels and thread names.
    pub writes: HashSet<Span>,
}

/// The shape of `src`; `None` when the parser made no tree (a herd file
/// whose preamble does not parse).
pub fn shape(src: &str, dialect: Dialect) -> Option<Shape> {
    match dialect {
        Dialect::Native => Some(native(src)),
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdC | Dialect::HerdAArch64 => {
            let (file, _, comments) = litmus_dsl::herd::parser::parse_with_comments(src);
            file.map(|f| herd_shape(src, &f, &comments))
        }
    }
}

fn native(src: &str) -> Shape {
    let (file, _) = litmus_dsl::native::parser::parse(src);
    let mut s = Shape::default();
    for item in &file.items {
        match item {
            Item::Shared(d) => s.writes.extend(d.vars.iter().map(|v| v.name.span)),
            Item::Fn(f) => {
                s.writes.insert(f.name.span);
                s.writes.extend(f.params.iter().map(|p| p.span));
                s.bodies.push(f.body.span);
                block(&f.body, &mut s);
            }
            Item::Thread(t) => {
                s.writes.insert(t.name.span);
                s.bodies.push(t.body.span);
                block(&t.body, &mut s);
            }
            Item::Final(f) => s.condition = Some(f.span),
        }
    }
    s
}

/// The blocks and writes of every statement of `b`, nested ones included.
fn block(b: &Block, s: &mut Shape) {
    b.walk(&mut |st| {
        let mut exprs: Vec<&Expr> = Vec::new();
        match &st.kind {
            StmtKind::Let { name, value } => {
                s.writes.insert(name.span);
                exprs.push(value);
            }
            StmtKind::Assign { target, value } => {
                s.writes.insert(target.name.span);
                exprs.extend(target.index.as_deref());
                exprs.push(value);
            }
            StmtKind::If { cond, then, els } => {
                exprs.push(cond);
                s.blocks.push(then.span);
                if let Some(Else::Block(b)) = els.as_deref() {
                    s.blocks.push(b.span);
                }
            }
            StmtKind::While { cond, bound, body } => {
                exprs.push(cond);
                exprs.extend(bound.as_deref());
                s.blocks.push(body.span);
            }
            StmtKind::For { var, from, to, body } => {
                s.writes.insert(var.span);
                exprs.extend([&**from, &**to]);
                s.blocks.push(body.span);
            }
            StmtKind::Await(e) | StmtKind::Assert(e) | StmtKind::Assume(e) | StmtKind::Expr(e) => exprs.push(e),
            StmtKind::Return(e) => exprs.extend(e.as_ref()),
            StmtKind::Lock(m) | StmtKind::Unlock(m) => {
                s.writes.insert(m.span);
            }
            StmtKind::Fence(_) | StmtKind::Error => {}
        }
        for e in exprs {
            e.walk(&mut |e| {
                if let ExprKind::Cas(lv, ..) | ExprKind::Xchg(lv, _) | ExprKind::FetchAdd(lv, _) = &e.kind {
                    s.writes.insert(lv.name.span);
                }
            });
        }
    });
}

fn herd_shape(src: &str, f: &herd::HerdFile, comments: &[Span]) -> Shape {
    let mut s = Shape {
        condition: f.final_.as_ref().map(|c| c.span),
        table: Some(f.table_span).filter(|t| !t.is_empty()),
        ..Default::default()
    };
    s.writes.extend(f.threads.iter().map(|t| t.span));
    for item in &f.init {
        s.writes.insert(match &item.target {
            herd::InitTarget::Loc(i) | herd::InitTarget::Array(i, _) | herd::InitTarget::Reg(_, i) => i.span,
        });
    }
    s.init = init_braces(src, f, comments);
    for cell in f.code.iter().flatten() {
        s.writes.extend(cell.label.as_ref().map(|l| l.span));
        let Some(ins) = &cell.instr else { continue };
        // Intel order, destination first (AT&T writes it last).
        let mut ops: Vec<&herd::Operand> = ins.operands.iter().collect();
        if f.arch == herd::Arch::X86_64 {
            ops.reverse();
        }
        let written = match writes_operands(&ins.mnemonic.name) {
            2 => &ops[..],
            1 => &ops[..ops.len().min(1)],
            _ => &[][..],
        };
        for o in written {
            match o {
                herd::Operand::Reg(r, _) => {
                    s.writes.insert(r.span);
                }
                // Into memory: the location is written, address registers only read.
                herd::Operand::Mem(m) => s.writes.extend(
                    m.parts
                        .iter()
                        .filter(|p| !p.percent && litmus_dsl::herd::lower::register_family(&p.name.name).is_none())
                        .map(|p| p.name.span),
                ),
                herd::Operand::Imm(_) | herd::Operand::ImmSym(_) => {}
            }
        }
    }
    s
}

/// How many of an x86 instruction's operands (Intel order) it writes: the
/// destination, or both for the exchanges.
fn writes_operands(mnemonic: &str) -> usize {
    const ONE: &[&str] = &[
        "mov", "lea", "cmpxchg", "add", "sub", "inc", "dec", "and", "or", "xor", "neg", "not", "shl", "sal", "shr",
        "sar",
    ];
    const BOTH: &[&str] = &["xchg", "xadd"];
    let m = mnemonic.to_ascii_lowercase();
    // AT&T size suffixes: movl, xchgq…
    let base = m.strip_suffix(['b', 'w', 'l', 'q']).unwrap_or(&m);
    let is = |set: &[&str]| set.contains(&m.as_str()) || set.contains(&base);
    if is(BOTH) {
        2
    } else if is(ONE) {
        1
    } else {
        0
    }
}

/// The initial state's braces: the last `{ … }` before the thread table
/// that no comment holds.
fn init_braces(src: &str, f: &herd::HerdFile, comments: &[Span]) -> Option<Span> {
    let in_comment = |i: usize| comments.iter().any(|c| c.start <= i && i < c.end);
    let before = f.init.first().map(|i| i.span.start).unwrap_or(f.table_span.start);
    let b = src.as_bytes();
    let open = (0..before.min(b.len())).rev().find(|&i| b[i] == b'{' && !in_comment(i))?;
    let close = (open..f.table_span.start.min(b.len())).find(|&i| b[i] == b'}' && !in_comment(i))?;
    Some(Span::new(open, close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(src: &'a str, spans: impl IntoIterator<Item = &'a Span>) -> Vec<&'a str> {
        let mut v: Vec<Span> = spans.into_iter().copied().collect();
        v.sort();
        v.iter().map(|s| s.text(src)).collect()
    }

    #[test]
    fn native_writes_and_blocks() {
        let src = "litmus T\nshared x = 0;\nshared m = 0;\nfn f(a) { return a; }\nthread P0 {\n  let r = x;\n  x = r;\n  if (cas(x, 0, 1) == 0) { lock(m); } else { unlock(m); }\n  while (r == 0) { r = fetch_add(x, 1); }\n}\nexists (P0:r == 1);\n";
        let s = shape(src, Dialect::Native).unwrap();
        assert_eq!(texts(src, &s.writes), ["x", "m", "f", "a", "P0", "r", "x", "x", "m", "m", "r", "x"]);
        assert_eq!(s.bodies.len(), 2);
        assert_eq!(s.blocks.len(), 3);
        assert_eq!(s.condition.map(|c| c.text(src).trim_end_matches(';')), Some("exists (P0:r == 1)"));
    }

    #[test]
    fn herd_destinations_in_both_syntaxes() {
        let intel = "X86 T\n(* { *)\n{ x=0; 0:EAX=1; }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x] ;\n XCHG [x],EBX | CMP EAX,$1 ;\nexists (1:EAX=1)\n";
        let s = shape(intel, Dialect::HerdX86).unwrap();
        assert_eq!(texts(intel, &s.writes), ["x", "EAX", "P0", "P1", "x", "EAX", "x", "EBX"]);
        assert_eq!(s.init.map(|i| i.text(intel)), Some("{ x=0; 0:EAX=1; }"));
        let att = "X86_64 T\n{ }\n P0 ;\n movl $1,(x) ;\n movl (x),%eax ;\n";
        let s = shape(att, Dialect::HerdX86).unwrap();
        assert_eq!(texts(att, &s.writes), ["P0", "x", "eax"]);
    }
}
