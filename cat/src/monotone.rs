//! Which checks may prune a partial execution.
//!
//! A graph explorer builds an execution step by step: each step adds an
//! event at the end of some thread's program order; a read keeps the
//! write it reads from, and a new write may be inserted anywhere in its
//! location's coherence order. Call the events of an execution *old* in
//! every extension of it. If a check fails on an execution and must fail
//! on every extension, the explorer can stop there
//! ([`crate::Prepared::allowed_partial`]).
//!
//! The analysis classifies each node of the compiled graph
//! (`compile.rs`) by what becomes of its restriction to the old
//! events (its pairs, or its members, among old events) when the
//! execution is extended:
//!
//! - *stable*: it does not change. The execution's own sets and relations
//!   are assumed to be so (an old event keeps its kind and tags, `po`,
//!   `rf`, `loc`, `int`, `ext`, `same-instance` among old events do not
//!   change), and so are `_`, `0`, `id` and `co`'s transitive closure
//!   (the order among old writes stays; the given `co` itself, if it is
//!   not transitive, loses the pair around an inserted write, and the
//!   compiler reads it only through its closure). `FW`, when the
//!   execution gives it, is *not* stable (a new write makes an old one
//!   non-final) and is classified unknown. Unions, intersections,
//!   differences, inverses, complements, products and `[A]; r; [B]`
//!   filters of stable operands are stable (all are computed pair by
//!   pair from the operands' pairs).
//! - *growing*: it may only gain pairs. Every stable node is growing.
//!   Union and intersection of growing operands, `r+` and `r*`, inverse,
//!   and sequence `r ; s` are growing (a path through a new middle event
//!   adds a pair between old events, never removes one: sequence of
//!   stable operands is growing, not stable), and so are `domain` and
//!   `range` (an old event may gain a successor, new or old, never lose
//!   one). `A \ B` is growing when `A` is growing and `B` stable, and so
//!   is the complement `_ \ B` of a stable `B`; with `B` only growing the
//!   difference may lose pairs: unknown (this is where immediate orders
//!   such as `co \ (co;co)` land).
//! - *unknown*: anything else.
//!
//! A `let rec` group is growing when, its names taken as growing, every
//! body is growing: such bodies are monotone in the names (every operation
//! above is monotone in its growing operands, and a difference's right
//! side, being stable, cannot hold a name), so the least fixpoint on the
//! smaller execution is, on the old events, below each iterate, and so
//! below the fixpoint, on the larger one. Anything the compiler cannot see
//! through (a shape that falls back to the evaluator) is not analysed, and
//! prunes nothing.
//!
//! A plain check (`acyclic`, `irreflexive`, `empty`, not negated with `~`,
//! neither a `flag` nor an `undefined_unless`, which never prune) of a
//! growing node is *monotone*: a cycle, a reflexive pair or a member among
//! the old events stays in every extension, so the check fails there too.
//! A check whose answer is known without the data (of `0`, of `_`) is
//! monotone as well.

use crate::ast::TestType;
use crate::compile::{Op, Program, Step, Subject};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    Stable,
    Growing,
    Unknown,
}

/// Each node's class (see the module doc).
pub(crate) fn classes(prog: &Program) -> Vec<Class> {
    let fw = prog.fw_in;
    use Class::*;
    let nodes = &prog.nodes;
    let mut c = vec![Unknown; nodes.len()];
    let growing = |x: Class| if x <= Growing { Growing } else { Unknown };
    let diff = |a: Class, b: Class| match (a, b) {
        (Stable, Stable) => Stable,
        (Growing, Stable) => Growing,
        _ => Unknown,
    };
    for i in 0..nodes.len() {
        let k = |x: u32| c[x as usize];
        c[i] = match nodes[i].op {
            Op::SetIn(_) if fw == Some(i as u32) => Unknown,
            Op::RelIn(_) if prog.co_in == Some(i as u32) => Unknown,
            Op::SetIn(_) | Op::RelIn(_) => Stable,
            Op::SetZero | Op::SetAll | Op::RelZero | Op::RelId | Op::RelFull => Stable,
            Op::SetUnion(a, b) | Op::SetInter(a, b) | Op::Cart(a, b) | Op::RelUnion(a, b) | Op::RelInter(a, b) => {
                k(a).max(k(b))
            }
            Op::SetDiff(a, b) | Op::RelDiff(a, b) => diff(k(a), k(b)),
            Op::Domain(a) | Op::Range(a) => growing(k(a)),
            Op::IdOn(a) | Op::Inv(a) => k(a),
            Op::Seq(a, b) => growing(k(a).max(k(b))),
            Op::Plus(a) if prog.co_in == Some(a) => Stable,
            Op::Plus(a) => growing(k(a)),
            Op::Restrict(r, a, b) => k(r).max(k(a)).max(k(b)),
            Op::FixVar(..) => Growing,
            Op::FixOut(g, _) => {
                let grp = &prog.groups[g as usize];
                if grp.bodies.iter().all(|&b| k(b) <= Growing) {
                    Growing
                } else {
                    Unknown
                }
            }
        };
    }
    c
}

/// Per step: whether it is a monotone check.
pub(crate) fn classify(prog: &Program) -> Vec<bool> {
    let c = classes(prog);
    prog.steps
        .iter()
        .map(|s| match s {
            Step::Test(t) if t.ty == TestType::Check && !t.negated => match t.subject {
                Subject::Node(x) => c[x as usize] <= Class::Growing,
                Subject::Static(_) | Subject::NoEvents => true,
            },
            _ => false,
        })
        .collect()
}
