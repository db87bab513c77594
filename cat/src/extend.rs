//! Which extensions need no check: TruSt's maximal extension of a graph
//! explorer (one new event `e`, last in its thread's program order; a
//! write placed last in coherence order, read by nothing; a read reading
//! the coherence-last write of its location, an old location) keeps every
//! monotone check the execution passed, when the model says so here.
//!
//! Each node of the compiled graph (`compile.rs`) is given, for `e` of
//! known kind (its sets), what adding it cannot change:
//!
//! - a set: whether `e` is a member (if known), and whether the old events'
//!   membership is *unchanged* (`u`);
//! - a relation: no edge from `e` to an old event (`out`), none from an
//!   old event to `e` (`inn`), no `(e, e)` (`irr`), and the pairs among old
//!   events unchanged (`u`).
//!
//! The execution's relations give these by the facts above: `po` and `rf`
//! have no edge out of `e`, nor does `co` (closure) with `e` co-last, nor
//! `fr` (a read of the co-last write is co-before no write); `loc`, `int`
//! and `ext` relate `e` to old events; nothing changes among old events.
//! The operators carry them: for a sequence `a ; b`, an edge from `e` to an
//! old event goes through an old middle event (an edge of `a` out of `e`)
//! or through `e` itself (`(e, e)` in `a`, then out of `e` in `b`), so
//! `out(a;b) = out(a) ∧ (irr(a) ∨ out(b))`; a new pair among old events
//! passes through `e`, so `u(a;b)` also needs `inn(a) ∨ out(b)`; and so on
//! below. `let rec` is not analysed.
//!
//! A fence added last in its thread is such an extension too (it has no
//! location: only `po` reaches it), so an access with fences before it is
//! one fence at a time, then the access.
//!
//! A check is then kept: `acyclic r` if `out ∧ irr ∧ u` (a new cycle would
//! leave `e` for an old event, or be `(e, e)`), `irreflexive r` if
//! `irr ∧ u`, `empty r` if `out ∧ inn ∧ irr ∧ u` (a set: `e` not in it, and
//! `u`).

use crate::ast::TestKind;
use crate::compile::{Op, Program, Shape, Step, Subject};

#[derive(Clone, Copy, Debug, Default)]
struct Rel {
    out: bool,
    inn: bool,
    irr: bool,
    u: bool,
}

#[derive(Clone, Copy, Debug)]
struct Set {
    /// `Some(m)`: `e` is (`m`) or is not a member.
    mem: Option<bool>,
    u: bool,
}

#[derive(Clone, Copy, Debug)]
enum V {
    S(Set),
    R(Rel),
}

const NONE: Rel = Rel { out: false, inn: false, irr: false, u: false };
const ALL: Rel = Rel { out: true, inn: true, irr: true, u: true };

/// Do the monotone checks (`checks[k]`: step `k` is one) all hold after a
/// maximal extension by an event in exactly the sets `member` says (by
/// place in `shape.sets`), given they held before? `access`: a read or a
/// write; else a fence (last in its thread, of no location).
pub(crate) fn kept(prog: &Program, shape: &Shape, checks: &[bool], member: &[bool], access: bool) -> bool {
    let mut v: Vec<V> = Vec::with_capacity(prog.nodes.len());
    let fr = prog.fr_node;
    for (i, node) in prog.nodes.iter().enumerate() {
        let s = |x: u32, v: &[V]| match v[x as usize] {
            V::S(s) => s,
            V::R(_) => Set { mem: None, u: false },
        };
        let r = |x: u32, v: &[V]| match v[x as usize] {
            V::R(r) => r,
            V::S(_) => NONE,
        };
        let not_in = |x: Set| x.mem == Some(false);
        let out = match node.op {
            // A fence: no location, no read or write, nothing but program
            // order (and `int`, `ext`, its own instance).
            _ if !access && (Some(i as u32) == fr || Some(i as u32) == prog.co_in) => V::R(ALL),
            Op::Plus(a) if !access && prog.co_in == Some(a) => V::R(ALL),
            Op::RelIn(k) if !access && matches!(shape.rels[k as usize].as_str(), "loc" | "rf") => V::R(ALL),
            // The facts of a maximal extension (see the module doc).
            _ if Some(i as u32) == fr => {
                let writes = shape.sets.iter().zip(member).any(|(k, &m)| k == "W" && m);
                V::R(Rel { out: true, inn: !writes, irr: true, u: true })
            }
            Op::Plus(a) if prog.co_in == Some(a) => V::R(Rel { out: true, inn: false, irr: true, u: true }),
            Op::RelIn(_) if prog.co_in == Some(i as u32) => V::R(Rel { out: true, inn: false, irr: true, u: true }),
            Op::RelIn(k) => V::R(match shape.rels[k as usize].as_str() {
                "po" | "rf" => Rel { out: true, inn: false, irr: true, u: true },
                // Its own instance only: one new event.
                "same-instance" => Rel { out: true, inn: true, irr: false, u: true },
                _ => Rel { u: true, ..NONE },
            }),
            Op::SetIn(k) => V::S(Set { mem: Some(member[k as usize]), u: true }),
            Op::SetZero => V::S(Set { mem: Some(false), u: true }),
            Op::SetAll => V::S(Set { mem: Some(true), u: true }),
            Op::SetUnion(a, b) => {
                let (a, b) = (s(a, &v), s(b, &v));
                let mem = match (a.mem, b.mem) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                };
                V::S(Set { mem, u: a.u && b.u })
            }
            Op::SetInter(a, b) => {
                let (a, b) = (s(a, &v), s(b, &v));
                let mem = match (a.mem, b.mem) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                V::S(Set { mem, u: a.u && b.u })
            }
            Op::SetDiff(a, b) => {
                let (a, b) = (s(a, &v), s(b, &v));
                let mem = match (a.mem, b.mem) {
                    (Some(false), _) | (_, Some(true)) => Some(false),
                    (Some(true), Some(false)) => Some(true),
                    _ => None,
                };
                V::S(Set { mem, u: a.u && b.u })
            }
            // An old event joins the domain by an edge to `e`.
            Op::Domain(a) => {
                let a = r(a, &v);
                V::S(Set { mem: (a.out && a.irr).then_some(false), u: a.u && a.inn })
            }
            Op::Range(a) => {
                let a = r(a, &v);
                V::S(Set { mem: (a.inn && a.irr).then_some(false), u: a.u && a.out })
            }
            Op::RelZero => V::R(ALL),
            Op::RelId => V::R(Rel { irr: false, ..ALL }),
            Op::RelFull => V::R(Rel { u: true, ..NONE }),
            Op::IdOn(a) => {
                let a = s(a, &v);
                V::R(Rel { out: true, inn: true, irr: not_in(a), u: a.u })
            }
            Op::Cart(a, b) => {
                let (a, b) = (s(a, &v), s(b, &v));
                V::R(Rel { out: not_in(a), inn: not_in(b), irr: not_in(a) || not_in(b), u: a.u && b.u })
            }
            Op::Restrict(x, a, b) => {
                let (x, a, b) = (r(x, &v), s(a, &v), s(b, &v));
                V::R(Rel {
                    out: x.out || not_in(a),
                    inn: x.inn || not_in(b),
                    irr: x.irr || not_in(a) || not_in(b),
                    u: x.u && a.u && b.u,
                })
            }
            Op::RelUnion(a, b) => {
                let (a, b) = (r(a, &v), r(b, &v));
                V::R(Rel { out: a.out && b.out, inn: a.inn && b.inn, irr: a.irr && b.irr, u: a.u && b.u })
            }
            Op::RelInter(a, b) => {
                let (a, b) = (r(a, &v), r(b, &v));
                V::R(Rel { out: a.out || b.out, inn: a.inn || b.inn, irr: a.irr || b.irr, u: a.u && b.u })
            }
            Op::RelDiff(a, b) => {
                let (a, b) = (r(a, &v), r(b, &v));
                V::R(Rel { u: a.u && b.u, ..a })
            }
            Op::Seq(a, b) => {
                let (a, b) = (r(a, &v), r(b, &v));
                V::R(Rel {
                    out: a.out && (a.irr || b.out),
                    inn: b.inn && (b.irr || a.inn),
                    irr: (a.irr || b.irr) && (a.out || b.inn),
                    u: a.u && b.u && (a.inn || b.out),
                })
            }
            Op::Inv(a) => {
                let a = r(a, &v);
                V::R(Rel { out: a.inn, inn: a.out, irr: a.irr, u: a.u })
            }
            Op::Plus(a) => {
                let a = r(a, &v);
                V::R(Rel { out: a.out, inn: a.inn, irr: a.irr && (a.out || a.inn), u: a.u && (a.out || a.inn) })
            }
            // `let rec`: not analysed.
            Op::FixVar(..) | Op::FixOut(..) => match node.kind {
                crate::compile::Kind::Set => V::S(Set { mem: None, u: false }),
                crate::compile::Kind::Rel => V::R(NONE),
            },
        };
        v.push(out);
    }
    prog.steps.iter().enumerate().filter(|&(k, _)| checks[k]).all(|(_, step)| match step {
        Step::Test(t) => match t.subject {
            Subject::Static(_) => true,
            Subject::NoEvents => false,
            Subject::Node(y) => match v[y as usize] {
                V::S(s) => t.kind == TestKind::Empty && s.mem == Some(false) && s.u,
                V::R(r) => match t.kind {
                    TestKind::Acyclic => r.out && r.irr && r.u,
                    TestKind::Irreflexive => r.irr && r.u,
                    TestKind::Empty => r.out && r.inn && r.irr && r.u,
                },
            },
        },
        // A coherence order's guard and the model's errors hold as they did.
        Step::CoGuard(_) | Step::Error(_) => true,
    })
}

#[cfg(test)]
mod tests {
    use crate::eval::{Execution, Options, Rel};
    use crate::model::Model;
    use std::path::Path;

    /// Is a maximal extension by a read (`"R"`) or a write (`"W"`) kept by
    /// the model `text`?
    fn kept(text: &str, kind: &str) -> bool {
        let m = Model::from_source(Path::new("t.cat"), &format!("\"t\"\n{text}\n"), &[]).unwrap();
        let mut p = m.prepare(&Options::default()).unwrap();
        let mut x = Execution::new(2);
        for k in ["F", "IW", "LFENCE", "MFENCE", "R", "SFENCE", "W", "X"] {
            x.sets.insert(k.into(), 0);
        }
        for k in ["co", "int", "loc", "po", "rf", "same-instance"] {
            x.rels.insert(k.into(), Rel(vec![0; 2]));
        }
        p.extension_kept(&x, |s| s == kind, kind != "F")
    }

    #[test]
    fn what_a_maximal_extension_keeps() {
        // SC's axiom: the new event has no edge out.
        assert!(kept("acyclic po | rf | co | fr", "R") && kept("acyclic po | rf | co | fr", "W"));
        assert!(kept("let com = rf | fr | co\nacyclic (po & loc) | com", "W"));
        // Filters by the event's own sets.
        assert!(kept("empty W", "R") && !kept("empty W", "W"));
        assert!(kept("acyclic [W]; po; [R] | rf", "R"));
        // Edges out of the new event, or new paths through it.
        assert!(!kept("acyclic po | po^-1", "R"));
        assert!(!kept("irreflexive loc", "W"));
        assert!(!kept("acyclic po; loc", "R"), "old -po-> e -loc-> old is a new pair among old events");
        assert!(!kept("acyclic fr^-1", "W"));
        // A write has edges to every read; a read none out.
        assert!(!kept("acyclic W * R", "W") && kept("acyclic W * R", "R"));
        // A fence: ordered by po only.
        assert!(kept("acyclic po | rf | co | fr | loc", "F"));
        assert!(!kept("acyclic po | po^-1", "F") && !kept("irreflexive int", "F"));
        // Not analysed: let rec.
        assert!(!kept("let rec r = po | r;r\nacyclic r", "R"));
    }
}
