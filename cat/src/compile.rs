//! Compiling a model, once per shape of execution, into a graph of
//! relation operations and a list of steps (see [`crate::prepared`]).
//!
//! The compiler is the evaluator of [`crate::eval`] run without an
//! execution: every set and relation is a node of a graph (hash-consed and
//! simplified as it is built) instead of a value; everything else (tags,
//! tuples, functions, procedures, variants, `try`, `match` on tags) is
//! evaluated here, once, exactly as the evaluator does it. Names the
//! execution gives are inputs (slots, by their place in the execution's
//! sorted maps), so which names an execution gives (its *shape*) is part
//! of what is compiled. What depends on the data in a way the graph cannot
//! say (a `match` over the events of a set, `forall` over a data set,
//! `classes`, `linearisations`, an `if` on data, events and pairs) makes
//! the compiler give up with [`Fail::Cannot`]; the caller then evaluates
//! that shape with [`crate::eval::evaluate`] instead.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

use crate::ast::*;
use crate::eval::{Options, PRIMS};
use crate::model::{CatError, Diagnostic, Model};

/// A node of the graph.
pub(crate) type N = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Set,
    Rel,
}

/// One operation; operands are earlier nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    /// The execution's set at this place of `Execution::sets`.
    SetIn(u16),
    SetZero,
    SetAll,
    SetUnion(N, N),
    SetInter(N, N),
    SetDiff(N, N),
    Domain(N),
    Range(N),
    /// The execution's relation at this place of `Execution::rels`.
    RelIn(u16),
    RelZero,
    RelId,
    RelFull,
    /// `[s]`
    IdOn(N),
    Cart(N, N),
    RelUnion(N, N),
    RelInter(N, N),
    RelDiff(N, N),
    Seq(N, N),
    Inv(N),
    Plus(N),
    /// `[a]; r; [b]`, that is `r & (a * b)`.
    Restrict(N, N, N),
    /// The current value of a `let rec` name, inside its group's rounds.
    FixVar(u16, u16),
    /// The value a `let rec` name settles on.
    FixOut(u16, u16),
}

impl Op {
    pub(crate) fn operands(&self) -> impl Iterator<Item = N> {
        use Op::*;
        let (a, b, c) = match *self {
            SetUnion(a, b)
            | SetInter(a, b)
            | SetDiff(a, b)
            | Cart(a, b)
            | RelUnion(a, b)
            | RelInter(a, b)
            | RelDiff(a, b)
            | Seq(a, b) => (Some(a), Some(b), None),
            Domain(a) | Range(a) | IdOn(a) | Inv(a) | Plus(a) => (Some(a), None, None),
            Restrict(a, b, c) => (Some(a), Some(b), Some(c)),
            _ => (None, None, None),
        };
        a.into_iter().chain(b).chain(c)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Node {
    pub op: Op,
    pub kind: Kind,
}

/// A `let rec` whose names are sets or relations: iterated at run time as
/// the evaluator does (every name from empty, bindings in order, until a
/// round changes nothing).
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub vars: Vec<N>,
    pub bodies: Vec<N>,
    pub outs: Vec<N>,
    /// "no fixpoint after 10000 rounds", at the `let rec`.
    pub diag: Diagnostic,
}

/// An error the model raises whatever the data (or an assertion's).
#[derive(Debug, Clone)]
pub(crate) struct StaticErr {
    pub unsupported: bool,
    pub diag: Diagnostic,
}

impl StaticErr {
    pub(crate) fn error(&self) -> CatError {
        if self.unsupported {
            CatError::Unsupported(self.diag.clone())
        } else {
            CatError::Eval(self.diag.clone())
        }
    }
}

/// What a test looks at.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Subject {
    Node(N),
    /// Known whatever the data: whether the test (before `~`) passes.
    Static(bool),
    /// `_` tested: passes when there are no events.
    NoEvents,
}

#[derive(Debug, Clone)]
pub(crate) struct TestStep {
    pub name: String,
    pub ty: TestType,
    pub kind: TestKind,
    pub negated: bool,
    pub subject: Subject,
    /// For an `assert`: its failure.
    pub assert: Option<Diagnostic>,
}

/// `with co from generate_cos(pco)` with the execution's own `co`: the
/// given order must be one of the candidates (see `prepared`).
#[derive(Debug, Clone)]
pub(crate) struct CoGuard {
    /// The given relation, transitively closed.
    pub co: N,
    pub pco: N,
    pub w: N,
    /// The execution's own `loc` (what `classes-loc` reads), if given.
    pub loc: Option<N>,
    pub diag: Diagnostic,
}

#[derive(Debug, Clone)]
pub(crate) enum Step {
    Test(TestStep),
    CoGuard(CoGuard),
    Error(StaticErr),
}

/// A model compiled for one shape.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub nodes: Vec<Node>,
    pub groups: Vec<Group>,
    pub steps: Vec<Step>,
    /// The node of the given `co`, as the execution has it (for the
    /// monotonicity analysis: only its closure is ever read).
    pub co_in: Option<N>,
    /// The node of the given `FW`, if any.
    pub fw_in: Option<N>,
    /// The node of `fr`, as derived from `rf` and `co` (`extend.rs` knows
    /// what a maximal extension does to it).
    pub fr_node: Option<N>,
}

/// The shape of an execution: the names of its sets and of its relations,
/// in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    pub sets: Vec<String>,
    pub rels: Vec<String>,
    /// The execution's [`absent`](crate::eval::Execution::absent) sets.
    pub absent: Vec<String>,
}

// ---------------------------------------------------------------- values

#[derive(Clone)]
enum V {
    Empty,
    Unv,
    Set(N),
    Rel(N),
    Tag(String),
    Tuple(Vec<V>),
    ValSet(Vec<V>),
    Clo(Rc<Clo>),
    Proc(Rc<Proc>),
    Prim(&'static str),
}

struct Clo {
    param: Pat,
    body: Arc<Expr>,
    env: Env,
    file: usize,
    name: String,
}

struct Proc {
    param: Pat,
    body: Vec<Ins>,
    env: RefCell<Env>,
    file: usize,
}

impl V {
    fn type_name(&self) -> &'static str {
        match self {
            V::Empty => "empty",
            V::Unv => "universe",
            V::Set(_) => "event set",
            V::Rel(_) => "relation",
            V::Tag(_) => "tag",
            V::Tuple(_) => "tuple",
            V::ValSet(_) => "set",
            V::Clo(_) | V::Prim(_) => "function",
            V::Proc(_) => "procedure",
        }
    }
    fn rank(&self) -> u8 {
        match self {
            V::Empty => 0,
            V::Unv => 1,
            V::Set(_) => 2,
            V::Rel(_) => 3,
            V::Tag(_) => 6,
            V::Tuple(_) => 7,
            V::ValSet(_) => 8,
            V::Clo(_) => 9,
            V::Proc(_) => 10,
            V::Prim(_) => 11,
        }
    }
    /// Holds no node: the same whatever the data.
    fn is_static(&self) -> bool {
        match self {
            V::Set(_) | V::Rel(_) => false,
            V::Tuple(vs) | V::ValSet(vs) => vs.iter().all(V::is_static),
            _ => true,
        }
    }
}

/// Why compiling stopped.
pub(crate) enum Fail {
    /// An error `try` catches.
    Catch(StaticErr),
    /// An error `try` lets through.
    Fatal(StaticErr),
    /// The answer depends on the data in a way the graph cannot hold.
    Cannot(String),
}

type R<T> = Result<T, Fail>;

fn cannot<T>(why: impl Into<String>) -> R<T> {
    Err(Fail::Cannot(why.into()))
}

/// The evaluator's order on values, where it is known without the data.
fn cmp_v(a: &V, b: &V) -> R<Ordering> {
    use V::*;
    Ok(match (a, b) {
        (Set(x), Set(y)) | (Rel(x), Rel(y)) => {
            if x == y {
                Ordering::Equal
            } else {
                return cannot("comparing sets of events");
            }
        }
        (Tag(x), Tag(y)) => x.cmp(y),
        (Tuple(x), Tuple(y)) | (ValSet(x), ValSet(y)) => {
            for (p, q) in x.iter().zip(y) {
                let o = cmp_v(p, q)?;
                if o != Ordering::Equal {
                    return Ok(o);
                }
            }
            x.len().cmp(&y.len())
        }
        (Clo(x), Clo(y)) => (Rc::as_ptr(x) as usize).cmp(&(Rc::as_ptr(y) as usize)),
        (Proc(x), Proc(y)) => (Rc::as_ptr(x) as usize).cmp(&(Rc::as_ptr(y) as usize)),
        (Prim(x), Prim(y)) => x.cmp(y),
        _ => a.rank().cmp(&b.rank()),
    })
}

fn valset(mut v: Vec<V>) -> R<V> {
    let mut err = None;
    v.sort_by(|a, b| match cmp_v(a, b) {
        Ok(o) => o,
        Err(e) => {
            err.get_or_insert(e);
            Ordering::Equal
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let mut out: Vec<V> = Vec::with_capacity(v.len());
    for x in v {
        if let Some(last) = out.last() {
            if cmp_v(last, &x)? == Ordering::Equal {
                continue;
            }
        }
        out.push(x);
    }
    Ok(V::ValSet(out))
}

// ---------------------------------------------------------------- environment

struct EnvNode {
    name: String,
    value: RefCell<V>,
    next: Env,
}

#[derive(Clone, Default)]
struct Env(Option<Rc<EnvNode>>);

impl Env {
    fn bind(&self, name: &str, value: V) -> Env {
        Env(Some(Rc::new(EnvNode { name: name.to_string(), value: RefCell::new(value), next: self.clone() })))
    }
    fn node(&self, name: &str) -> Option<&Rc<EnvNode>> {
        let mut cur = &self.0;
        while let Some(n) = cur {
            if n.name == name {
                return Some(n);
            }
            cur = &n.next.0;
        }
        None
    }
    fn get(&self, name: &str) -> Option<V> {
        self.node(name).map(|n| n.value.borrow().clone())
    }
}

// ---------------------------------------------------------------- compiler

struct C<'m> {
    m: &'m Model,
    opts: &'m Options,
    shape: &'m Shape,
    nodes: Vec<Node>,
    memo: HashMap<Node, N>,
    groups: Vec<Group>,
    steps: Vec<Step>,
    tags: HashMap<String, String>,
    co_in: Option<N>,
    fw_in: Option<N>,
    fr_node: Option<N>,
}

/// Compiles `model` for executions of `shape`. `Err` is a reason to
/// evaluate this shape with the evaluator instead.
pub(crate) fn compile(model: &Model, opts: &Options, shape: &Shape) -> Result<Program, String> {
    if shape.sets.len() > u16::MAX as usize || shape.rels.len() > u16::MAX as usize {
        return Err("too many names".into());
    }
    let mut c = C {
        m: model,
        opts,
        shape,
        nodes: Vec::new(),
        memo: HashMap::new(),
        groups: Vec::new(),
        steps: Vec::new(),
        tags: HashMap::new(),
        co_in: None,
        fw_in: None,
        fr_node: None,
    };
    let env = c.base_env();
    let run = |c: &mut C, env: Env| -> R<Env> {
        let env = match model.prelude {
            Some(p) if p != model.root => c.run(&model.files[p].program.body, p, env)?,
            _ => env,
        };
        c.run(&model.files[model.root].program.body, model.root, env)
    };
    match run(&mut c, env) {
        Ok(_) => {}
        Err(Fail::Catch(e)) | Err(Fail::Fatal(e)) => c.steps.push(Step::Error(e)),
        Err(Fail::Cannot(why)) => return Err(why),
    }
    if c.groups.len() > 64 {
        return Err("more than 64 `let rec` groups".into());
    }
    Ok(Program { nodes: c.nodes, groups: c.groups, steps: c.steps, co_in: c.co_in, fw_in: c.fw_in, fr_node: c.fr_node })
}

impl C<'_> {
    // ------------------------------------------------------------ nodes

    fn raw(&mut self, op: Op, kind: Kind) -> N {
        let node = Node { op, kind };
        if let Some(&n) = self.memo.get(&node) {
            return n;
        }
        let n = self.nodes.len() as N;
        self.nodes.push(node);
        self.memo.insert(node, n);
        n
    }

    fn op(&self, n: N) -> Op {
        self.nodes[n as usize].op
    }

    fn set_zero(&mut self) -> N {
        self.raw(Op::SetZero, Kind::Set)
    }
    fn set_all(&mut self) -> N {
        self.raw(Op::SetAll, Kind::Set)
    }
    fn rel_zero(&mut self) -> N {
        self.raw(Op::RelZero, Kind::Rel)
    }
    fn rel_id(&mut self) -> N {
        self.raw(Op::RelId, Kind::Rel)
    }
    fn rel_full(&mut self) -> N {
        self.raw(Op::RelFull, Kind::Rel)
    }

    fn set_union(&mut self, a: N, b: N) -> N {
        let (a, b) = (a.min(b), a.max(b));
        match (self.op(a), self.op(b)) {
            _ if a == b => a,
            (Op::SetZero, _) => b,
            (_, Op::SetZero) => a,
            (Op::SetAll, _) | (_, Op::SetAll) => self.set_all(),
            _ => self.raw(Op::SetUnion(a, b), Kind::Set),
        }
    }
    fn set_inter(&mut self, a: N, b: N) -> N {
        let (a, b) = (a.min(b), a.max(b));
        match (self.op(a), self.op(b)) {
            _ if a == b => a,
            (Op::SetZero, _) | (_, Op::SetZero) => self.set_zero(),
            (Op::SetAll, _) => b,
            (_, Op::SetAll) => a,
            _ => self.raw(Op::SetInter(a, b), Kind::Set),
        }
    }
    fn set_diff(&mut self, a: N, b: N) -> N {
        match (self.op(a), self.op(b)) {
            _ if a == b => self.set_zero(),
            (Op::SetZero, _) | (_, Op::SetAll) => self.set_zero(),
            (_, Op::SetZero) => a,
            (_, Op::SetInter(x, y)) if x == a => self.set_diff(a, y),
            (_, Op::SetInter(x, y)) if y == a => self.set_diff(a, x),
            _ => self.raw(Op::SetDiff(a, b), Kind::Set),
        }
    }
    fn domain(&mut self, r: N) -> N {
        match self.op(r) {
            Op::RelZero => self.set_zero(),
            Op::IdOn(s) => s,
            Op::RelId | Op::RelFull => self.set_all(),
            _ => self.raw(Op::Domain(r), Kind::Set),
        }
    }
    fn range(&mut self, r: N) -> N {
        match self.op(r) {
            Op::RelZero => self.set_zero(),
            Op::IdOn(s) => s,
            Op::RelId | Op::RelFull => self.set_all(),
            _ => self.raw(Op::Range(r), Kind::Set),
        }
    }
    fn id_on(&mut self, s: N) -> N {
        match self.op(s) {
            Op::SetZero => self.rel_zero(),
            Op::SetAll => self.rel_id(),
            _ => self.raw(Op::IdOn(s), Kind::Rel),
        }
    }
    fn cart(&mut self, a: N, b: N) -> N {
        match (self.op(a), self.op(b)) {
            (Op::SetZero, _) | (_, Op::SetZero) => self.rel_zero(),
            (Op::SetAll, Op::SetAll) => self.rel_full(),
            _ => self.raw(Op::Cart(a, b), Kind::Rel),
        }
    }
    fn rel_union(&mut self, a: N, b: N) -> N {
        let (a, b) = (a.min(b), a.max(b));
        match (self.op(a), self.op(b)) {
            _ if a == b => a,
            (Op::RelZero, _) => b,
            (_, Op::RelZero) => a,
            (Op::RelFull, _) | (_, Op::RelFull) => self.rel_full(),
            _ => self.raw(Op::RelUnion(a, b), Kind::Rel),
        }
    }
    fn rel_inter(&mut self, a: N, b: N) -> N {
        let (a, b) = (a.min(b), a.max(b));
        match (self.op(a), self.op(b)) {
            _ if a == b => a,
            (Op::RelZero, _) | (_, Op::RelZero) => self.rel_zero(),
            (Op::RelFull, _) => b,
            (_, Op::RelFull) => a,
            (Op::Cart(x, y), _) => self.restrict(b, x, y),
            (_, Op::Cart(x, y)) => self.restrict(a, x, y),
            // `r & ext`, with `ext = _ \ int`, is `r \ int`.
            (Op::RelDiff(f, x), _) if self.op(f) == Op::RelFull => self.rel_diff(b, x),
            (_, Op::RelDiff(f, y)) if self.op(f) == Op::RelFull => self.rel_diff(a, y),
            _ => self.raw(Op::RelInter(a, b), Kind::Rel),
        }
    }
    fn rel_diff(&mut self, a: N, b: N) -> N {
        match (self.op(a), self.op(b)) {
            _ if a == b => self.rel_zero(),
            (Op::RelZero, _) | (_, Op::RelFull) => self.rel_zero(),
            (_, Op::RelZero) => a,
            // `r \ (r & s)` is `r \ s`, as `co \ coi` is `co \ int`.
            (_, Op::RelInter(x, y)) if x == a => self.rel_diff(a, y),
            (_, Op::RelInter(x, y)) if y == a => self.rel_diff(a, x),
            _ => self.raw(Op::RelDiff(a, b), Kind::Rel),
        }
    }
    fn seq(&mut self, a: N, b: N) -> N {
        match (self.op(a), self.op(b)) {
            (Op::RelZero, _) | (_, Op::RelZero) => self.rel_zero(),
            (Op::RelId, _) => b,
            (_, Op::RelId) => a,
            (Op::IdOn(s), _) => {
                let all = self.set_all();
                self.restrict(b, s, all)
            }
            (_, Op::IdOn(s)) => {
                let all = self.set_all();
                self.restrict(a, all, s)
            }
            _ => self.raw(Op::Seq(a, b), Kind::Rel),
        }
    }
    fn inv(&mut self, r: N) -> N {
        match self.op(r) {
            Op::RelZero | Op::RelId | Op::RelFull | Op::IdOn(_) => r,
            Op::Inv(x) => x,
            Op::Cart(a, b) => self.cart(b, a),
            Op::Restrict(x, a, b) => {
                let ix = self.inv(x);
                self.restrict(ix, b, a)
            }
            _ => self.raw(Op::Inv(r), Kind::Rel),
        }
    }
    fn plus(&mut self, r: N) -> N {
        match self.op(r) {
            Op::RelZero | Op::RelId | Op::IdOn(_) | Op::RelFull | Op::Plus(_) => r,
            _ => self.raw(Op::Plus(r), Kind::Rel),
        }
    }
    fn restrict(&mut self, r: N, a: N, b: N) -> N {
        match (self.op(r), self.op(a), self.op(b)) {
            (Op::RelZero, _, _) | (_, Op::SetZero, _) | (_, _, Op::SetZero) => self.rel_zero(),
            (_, Op::SetAll, Op::SetAll) => r,
            (Op::Restrict(x, c, d), _, _) => {
                let a2 = self.set_inter(a, c);
                let b2 = self.set_inter(b, d);
                self.restrict(x, a2, b2)
            }
            (Op::Cart(c, d), _, _) => {
                let a2 = self.set_inter(a, c);
                let b2 = self.set_inter(b, d);
                self.cart(a2, b2)
            }
            (Op::RelFull, _, _) => self.cart(a, b),
            (Op::IdOn(s), _, _) => {
                let s2 = self.set_inter(s, a);
                let s3 = self.set_inter(s2, b);
                self.id_on(s3)
            }
            (Op::RelId, _, _) => {
                let s = self.set_inter(a, b);
                self.id_on(s)
            }
            _ => self.raw(Op::Restrict(r, a, b), Kind::Rel),
        }
    }

    // ------------------------------------------------------------ errors

    fn diag(&self, file: usize, span: Span, msg: String) -> Diagnostic {
        self.m.files[file].diagnostic(span, msg)
    }
    fn error<T>(&self, file: usize, span: Span, msg: impl Into<String>) -> R<T> {
        Err(Fail::Catch(StaticErr { unsupported: false, diag: self.diag(file, span, msg.into()) }))
    }
    fn fatal<T>(&self, file: usize, span: Span, msg: impl Into<String>) -> R<T> {
        Err(Fail::Fatal(StaticErr { unsupported: false, diag: self.diag(file, span, msg.into()) }))
    }
    fn unsupported<T>(&self, file: usize, span: Span, what: impl Into<String>) -> R<T> {
        let msg = format!("not supported yet: {}", what.into());
        Err(Fail::Fatal(StaticErr { unsupported: true, diag: self.diag(file, span, msg) }))
    }

    // ------------------------------------------------------------ base names

    /// The evaluator's `base_env`, with the execution's names as inputs.
    fn base_env(&mut self) -> Env {
        let shape = self.shape;
        let set_in: BTreeMap<&str, N> = shape
            .sets
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), self.raw(Op::SetIn(i as u16), Kind::Set)))
            .collect();
        let rel_in: BTreeMap<&str, N> = shape
            .rels
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), self.raw(Op::RelIn(i as u16), Kind::Rel)))
            .collect();
        self.fw_in = set_in.get("FW").copied();
        let set = |k: &str| set_in.get(k).copied();
        let rel = |k: &str| rel_in.get(k).copied();
        let mut env = Env::default();
        for p in PRIMS {
            env = env.bind(p, V::Prim(p));
        }
        let zero = self.set_zero();
        let all = self.set_all();
        let rzero = self.rel_zero();
        let r = set("R").unwrap_or(zero);
        let w = set("W").unwrap_or(zero);
        let m = set("M").unwrap_or_else(|| self.set_union(r, w));
        let id = self.rel_id();
        let po = rel("po").unwrap_or(rzero);
        let int = rel("int").unwrap_or_else(|| {
            let p = self.plus(po);
            let ip = self.inv(p);
            let u = self.rel_union(p, ip);
            self.rel_union(u, id)
        });
        let full = self.rel_full();
        let ext = rel("ext").unwrap_or_else(|| self.rel_diff(full, int));
        let co = rel("co").map(|c| {
            self.co_in = Some(c);
            self.plus(c)
        });
        let mut sets: BTreeMap<&str, N> = BTreeMap::new();
        sets.insert("R", r);
        sets.insert("W", w);
        sets.insert("M", m);
        sets.insert("Exp", set("Exp").unwrap_or(m));
        sets.insert("EXEC", set("EXEC").unwrap_or(all));
        let fw = set("FW").unwrap_or_else(|| match co {
            Some(co) => {
                let d = self.domain(co);
                self.set_diff(w, d)
            }
            None => zero,
        });
        sets.insert("FW", fw);
        for k in ["F", "IW", "NExp", "B", "BCC", "PRED", "Rreg", "Wreg", "ADDR", "DATA", "SPEC", "SPURIOUS"] {
            sets.insert(k, set(k).unwrap_or(zero));
        }
        let mut rels: BTreeMap<&str, N> = BTreeMap::new();
        rels.insert("id", id);
        rels.insert("po", po);
        rels.insert("partial_po", rel("partial_po").unwrap_or(po));
        rels.insert("int", int);
        rels.insert("ext", ext);
        let id_m = self.id_on(m);
        for k in ["sm", "si"] {
            rels.insert(k, rel(k).unwrap_or(id_m));
        }
        for k in ["same-instance", "same-instr", "same-static"] {
            rels.insert(k, rel(k).unwrap_or(id));
        }
        for k in [
            "loc",
            "rf",
            "addr",
            "data",
            "ctrl",
            "tst",
            "depend",
            "success",
            "control",
            "iico_data",
            "iico_ctrl",
            "iico_order",
            "rf-reg",
            "pco",
            "aligned",
            "same-low-order-bits",
        ] {
            rels.insert(k, rel(k).unwrap_or(rzero));
        }
        if let Some(co) = co {
            let rf = rels["rf"];
            let irf = self.inv(rf);
            let s = self.seq(irf, co);
            let fr = self.rel_diff(s, id);
            self.fr_node = Some(fr);
            let fri = self.rel_inter(fr, int);
            let fre = self.rel_inter(fr, ext);
            let coi = self.rel_inter(co, int);
            let coe = self.rel_inter(co, ext);
            rels.insert("fri", fri);
            rels.insert("fre", fre);
            rels.insert("fr", fr);
            rels.insert("coi", coi);
            rels.insert("coe", coe);
            rels.insert("co", co);
        }
        for (k, s) in &sets {
            env = env.bind(k, V::Set(*s));
        }
        for (k, s) in &set_in {
            if !sets.contains_key(k) {
                env = env.bind(k, V::Set(*s));
            }
        }
        for (k, r) in &rels {
            env = env.bind(k, V::Rel(*r));
        }
        for (k, r) in &rel_in {
            if !rels.contains_key(k) {
                env = env.bind(k, V::Rel(*r));
            }
        }
        for k in &shape.absent {
            if !set_in.contains_key(k.as_str()) && !sets.contains_key(k.as_str()) {
                env = env.bind(k, V::Empty);
            }
        }
        env
    }

    // ------------------------------------------------------------ instructions

    fn run(&mut self, body: &[Ins], file: usize, mut env: Env) -> R<Env> {
        for ins in body {
            env = self.ins(ins, file, env)?;
        }
        Ok(env)
    }

    fn ins(&mut self, ins: &Ins, file: usize, env: Env) -> R<Env> {
        match &ins.kind {
            InsKind::Let(binds) => self.bind_all(binds, file, env),
            InsKind::Rec(binds, test) => {
                let env = self.bind_rec(binds, file, env, ins.span)?;
                if let Some(t) = test {
                    self.test(t, file, &env)?;
                }
                Ok(env)
            }
            InsKind::Match { scrutinee, clauses, default } => {
                let v = self.expr(scrutinee, file, &env)?;
                let t = match v {
                    V::Tag(t) => t,
                    V::Set(_) | V::Rel(_) => return cannot("matching on data"),
                    v => return self.error(file, scrutinee.span, format!("matching on a {}", v.type_name())),
                };
                let mut chosen = clauses.iter().find(|(c, _)| *c == t).map(|(_, b)| b);
                if chosen.is_none() {
                    chosen = default.as_ref();
                }
                match chosen {
                    Some(b) => self.run(b, file, env),
                    None => self.error(file, ins.span, format!("pattern matching failed on '{t}")),
                }
            }
            InsKind::Test(t) => {
                self.test(t, file, &env)?;
                Ok(env)
            }
            InsKind::ShowAs(..) | InsKind::Show(_) | InsKind::Unshow(_) => Ok(env),
            InsKind::Include(_, span) => {
                let Some(&j) = self.m.includes.get(&(file, span.start)) else {
                    return self.fatal(file, *span, "include not resolved by Model::load");
                };
                self.run(&self.m.files[j].program.body, j, env)
            }
            InsKind::Procedure { name, param, body, rec } => {
                let p =
                    Rc::new(Proc { param: param.clone(), body: body.clone(), env: RefCell::new(env.clone()), file });
                let env2 = env.bind(name, V::Proc(p.clone()));
                if *rec {
                    *p.env.borrow_mut() = env2.clone();
                }
                Ok(env2)
            }
            InsKind::Call { name, arg, as_name } => {
                let Some(V::Proc(p)) = env.get(name) else {
                    return self.error(file, ins.span, format!("`{name}` is not a procedure"));
                };
                let a = self.expr(arg, file, &env)?;
                let penv = p.env.borrow().clone();
                let penv = self.bind_pat(&p.param, a, penv, file, arg.span)?;
                let label = as_name.clone().unwrap_or_else(|| name.clone());
                let saved = self.steps.len();
                self.run(&p.body, p.file, penv)?;
                for s in &mut self.steps[saved..] {
                    if let Step::Test(t) = s {
                        if t.name.contains('@') {
                            t.name = label.clone();
                        }
                    }
                }
                Ok(env)
            }
            InsKind::Debug(_) => Ok(env),
            InsKind::Forall { var, set, body } => {
                let v = self.expr(set, file, &env)?;
                let elems = match v {
                    V::Empty => vec![],
                    V::ValSet(v) => v,
                    V::Set(_) => return cannot("forall over the events of a set"),
                    v => return self.error(file, set.span, format!("forall over a {}", v.type_name())),
                };
                for e in elems {
                    self.run(body, file, env.bind(var, e))?;
                }
                Ok(env)
            }
            InsKind::WithFrom { var, set } => self.with_from(var, set, file, env, ins.span),
            InsKind::IfVariant { cond, then, otherwise } => {
                if self.variant(cond) {
                    self.run(then, file, env)
                } else {
                    self.run(otherwise, file, env)
                }
            }
            InsKind::Events { .. } => self.unsupported(file, ins.span, "bell event declarations"),
            InsKind::Enum { name, tags } => {
                for t in tags {
                    self.tags.insert(t.clone(), name.clone());
                }
                let all = valset(tags.iter().map(|t| V::Tag(t.clone())).collect())?;
                Ok(env.bind(name, all))
            }
        }
    }

    /// `with co from generate_cos(pco)`, herd's `cross.cat` unchanged,
    /// with the execution's own `co`: no enumeration, a guard instead.
    fn with_from(&mut self, var: &str, set: &Expr, file: usize, env: Env, span: Span) -> R<Env> {
        let gen = match &set.kind {
            ExprKind::App(f, a) => match self.expr(f, file, &env)? {
                V::Clo(c) if c.name == "generate_cos" => Some((c, a)),
                _ => None,
            },
            _ => None,
        };
        let Some((gen, a)) = gen else {
            // A set of one candidate binds it (herd's AArch64 model
            // enumerates orders of TLB and cache maintenance, none here);
            // one the execution gives is checked by the evaluator.
            if self.shape.rels.iter().any(|k| k == var) {
                return cannot(format!("`with {var} from …` of a relation the execution gives"));
            }
            return match self.expr(set, file, &env)? {
                V::ValSet(vs) if vs.len() == 1 => {
                    let v = vs.into_iter().next().expect("one");
                    Ok(env.bind(var, v))
                }
                V::ValSet(vs) if vs.len() > 1 => {
                    cannot(format!("enumerating the {} candidates of `with {var} from …`", vs.len()))
                }
                _ => cannot(format!("`with {var} from …` of no candidate")),
            };
        };
        let stock_cross = crate::stock::text("cross.cat");
        if Some(self.m.files[gen.file].text.as_str()) != stock_cross {
            return cannot("`with … from` other than herd's generate_cos");
        }
        let Some(pos) = self.shape.rels.iter().position(|k| k == var) else {
            return cannot(format!("enumerating the candidates of `with {var} from …`"));
        };
        let va = self.expr(a, file, &env)?;
        let pco = match va {
            V::Empty => self.rel_zero(),
            V::Rel(r) => r,
            _ => return cannot("generate_cos of something else than a relation"),
        };
        // What cross.cat's functions read, as they see it.
        let orders = gen.env.get("generate_orders");
        let w = gen.env.get("W");
        let (Some(V::Clo(orders)), Some(V::Set(w))) = (orders, w) else {
            return cannot("generate_cos with W or generate_orders redefined");
        };
        let co_locs = orders.env.get("co_locs");
        let partition = orders.env.get("partition");
        let Some(V::Clo(co_locs)) = co_locs else {
            return cannot("generate_orders with co_locs redefined");
        };
        if !matches!(partition, Some(V::Prim("classes-loc")))
            || !matches!(co_locs.env.get("linearisations"), Some(V::Prim("linearisations")))
        {
            return cannot("generate_cos with partition or linearisations redefined");
        }
        let given = self.raw(Op::RelIn(pos as u16), Kind::Rel);
        let co = self.plus(given);
        let loc = self.shape.rels.iter().position(|k| k == "loc").map(|p| self.raw(Op::RelIn(p as u16), Kind::Rel));
        let diag = self.diag(file, span, format!("the execution's `{var}` is not one of the model's candidates"));
        self.steps.push(Step::CoGuard(CoGuard { co, pco, w, loc, diag }));
        Ok(env.bind(var, V::Rel(co)))
    }

    fn variant(&self, c: &VariantCond) -> bool {
        match c {
            VariantCond::Name(s) => self.opts.variants.contains(s),
            VariantCond::Not(a) => !self.variant(a),
            VariantCond::And(a, b) => self.variant(a) && self.variant(b),
            VariantCond::Or(a, b) => self.variant(a) || self.variant(b),
        }
    }

    fn test(&mut self, t: &Test, file: usize, env: &Env) -> R<()> {
        let v = self.expr(&t.expr, file, env)?;
        let subject = match (&t.kind, &v) {
            (_, V::Empty) => Subject::Static(true),
            (TestKind::Empty, V::Set(s)) | (TestKind::Empty, V::Rel(s)) => Subject::Node(*s),
            (TestKind::Empty, V::ValSet(v)) => Subject::Static(v.is_empty()),
            (TestKind::Empty, V::Unv) => Subject::NoEvents,
            (TestKind::Acyclic | TestKind::Irreflexive, V::Rel(r)) => Subject::Node(*r),
            (TestKind::Acyclic | TestKind::Irreflexive, V::Unv) => Subject::NoEvents,
            _ => return self.error(file, t.expr.span, format!("a {} cannot be tested", v.type_name())),
        };
        let name = t.name.clone().unwrap_or_else(|| {
            let d = self.diag(file, t.span, String::new());
            let kind = match t.kind {
                TestKind::Acyclic => "acyclic",
                TestKind::Irreflexive => "irreflexive",
                TestKind::Empty => "empty",
            };
            let f = d.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            format!("{kind}@{f}:{}", d.line)
        });
        let assert = (t.ty == TestType::Assert).then(|| self.diag(file, t.span, format!("assertion {name} failed")));
        self.steps.push(Step::Test(TestStep { name, ty: t.ty, kind: t.kind, negated: t.negated, subject, assert }));
        Ok(())
    }

    fn bind_all(&mut self, binds: &[Binding], file: usize, env: Env) -> R<Env> {
        let mut vals = Vec::new();
        for b in binds {
            vals.push(self.expr(&b.expr, file, &env)?);
        }
        let mut out = env;
        for (b, v) in binds.iter().zip(vals) {
            out = self.bind_pat(&b.pat, v, out, file, b.span)?;
        }
        Ok(out)
    }

    fn bind_pat(&self, pat: &Pat, v: V, env: Env, file: usize, span: Span) -> R<Env> {
        match pat {
            Pat::Var(None) => Ok(env),
            Pat::Var(Some(x)) => Ok(env.bind(x, v)),
            Pat::Tuple(xs) => {
                let vs = match v {
                    V::Tuple(vs) if vs.len() == xs.len() => vs,
                    v => {
                        return self.error(
                            file,
                            span,
                            format!("a tuple of {} expected, found a {}", xs.len(), v.type_name()),
                        )
                    }
                };
                let mut env = env;
                for (x, v) in xs.iter().zip(vs) {
                    if let Some(x) = x {
                        env = env.bind(x, v);
                    }
                }
                Ok(env)
            }
        }
    }

    /// `let rec`. When every value is known without the data (functions,
    /// tags), the evaluator's rounds are run here; else the names are sets
    /// or relations and the rounds are compiled into a [`Group`].
    fn bind_rec(&mut self, binds: &[Binding], file: usize, env: Env, span: Span) -> R<Env> {
        let mut names = Vec::new();
        for b in binds {
            match &b.pat {
                Pat::Var(Some(x)) => names.push(x.clone()),
                Pat::Var(None) => names.push("_".into()),
                Pat::Tuple(_) => return self.unsupported(file, b.span, "tuple patterns in `let rec`"),
            }
        }
        let mut renv = env;
        for x in &names {
            renv = renv.bind(x, V::Empty);
        }
        // The evaluator's rounds, while everything is static.
        for round in 0.. {
            if round > 10_000 {
                return self.error(file, span, "no fixpoint after 10000 rounds");
            }
            let mut changed = false;
            let mut dynamic = false;
            for (b, x) in binds.iter().zip(&names) {
                let v = self.expr(&b.expr, file, &renv)?;
                if !v.is_static() {
                    dynamic = true;
                    break;
                }
                let node = renv.node(x).expect("bound above");
                let old = node.value.replace(v.clone());
                let same = match (&old, &v) {
                    (V::Clo(_), V::Clo(_)) => true,
                    _ => self.same(&old, &v)?,
                };
                changed |= !same;
            }
            if dynamic {
                break;
            }
            if !changed {
                return Ok(renv);
            }
        }
        self.rec_group(binds, &names, file, renv, span)
    }

    fn rec_group(&mut self, binds: &[Binding], names: &[String], file: usize, renv: Env, span: Span) -> R<Env> {
        if self.groups.len() >= u16::MAX as usize || binds.len() >= u16::MAX as usize {
            return cannot("too many `let rec`");
        }
        let g = self.groups.len() as u16;
        // The groups this one's bodies create are nested: not compiled.
        let groups_before = self.groups.len();
        let var_node = |c: &mut C, i: usize, k: Kind| c.raw(Op::FixVar(g, i as u16), k);
        let rep = |c: &mut C, i: usize, k: Option<Kind>| match k {
            None => V::Empty,
            Some(k) => {
                let n = var_node(c, i, k);
                if k == Kind::Set {
                    V::Set(n)
                } else {
                    V::Rel(n)
                }
            }
        };
        let kind_of = |v: &V| -> R<Option<Kind>> {
            match v {
                V::Empty => Ok(None),
                V::Set(_) => Ok(Some(Kind::Set)),
                V::Rel(_) => Ok(Some(Kind::Rel)),
                _ => cannot("a `let rec` of sets mixed with other values"),
            }
        };
        // The kind of each name, found as the evaluator's first rounds go.
        let mut kinds: Vec<Option<Kind>> = vec![None; names.len()];
        for x in names {
            renv.node(x).expect("bound above").value.replace(V::Empty);
        }
        let mut settled = false;
        for _ in 0..4 {
            let before = kinds.clone();
            for (i, (b, x)) in binds.iter().zip(names).enumerate() {
                let v = self.expr(&b.expr, file, &renv)?;
                let k = kind_of(&v)?;
                match (kinds[i], k) {
                    (_, None) => {}
                    (None, Some(k)) => kinds[i] = Some(k),
                    (Some(a), Some(b)) if a == b => {}
                    _ => return cannot("a `let rec` name changes kind"),
                }
                let r = rep(self, i, kinds[i]);
                renv.node(x).expect("bound above").value.replace(r);
            }
            if kinds == before {
                settled = true;
                break;
            }
        }
        if !settled {
            return cannot("a `let rec` whose kinds do not settle");
        }
        // The bodies, every name its run-time variable.
        let mut bodies = Vec::new();
        let mut vars = Vec::new();
        for (i, b) in binds.iter().enumerate() {
            let v = self.expr(&b.expr, file, &renv)?;
            let k = kind_of(&v)?;
            match (kinds[i], k) {
                (None, None) => {}
                (Some(a), Some(b)) if a == b => {
                    let body = match v {
                        V::Set(n) | V::Rel(n) => n,
                        _ => unreachable!(),
                    };
                    vars.push(var_node(self, i, a));
                    bodies.push(body);
                }
                (Some(a), None) => {
                    // Empty again, e.g. `x ; x`: zero of its kind.
                    let z = if a == Kind::Set { self.set_zero() } else { self.rel_zero() };
                    vars.push(var_node(self, i, a));
                    bodies.push(z);
                }
                _ => return cannot("a `let rec` name changes kind"),
            }
        }
        if self.groups.len() != groups_before {
            return cannot("nested `let rec`");
        }
        let mut outs = Vec::new();
        for (i, x) in names.iter().enumerate() {
            let v = match kinds[i] {
                None => V::Empty,
                Some(k) => {
                    let o = self.raw(Op::FixOut(g, i as u16), k);
                    outs.push(o);
                    if k == Kind::Set {
                        V::Set(o)
                    } else {
                        V::Rel(o)
                    }
                }
            };
            renv.node(x).expect("bound above").value.replace(v);
        }
        let diag = self.diag(file, span, "no fixpoint after 10000 rounds".into());
        self.groups.push(Group { vars, bodies, outs, diag });
        Ok(renv)
    }

    fn same(&self, a: &V, b: &V) -> R<bool> {
        let norm = |v: &V| match v {
            V::Empty => None,
            v => Some(v.clone()),
        };
        if !a.is_static() || !b.is_static() {
            return cannot("comparing sets of events");
        }
        Ok(match (norm(a), norm(b)) {
            (None, None) => true,
            (Some(x), Some(y)) => cmp_v(&x, &y)? == Ordering::Equal,
            _ => false,
        })
    }

    // ------------------------------------------------------------ expressions

    fn as_set(&mut self, v: &V, file: usize, span: Span) -> R<N> {
        match v {
            V::Empty => Ok(self.set_zero()),
            V::Unv => Ok(self.set_all()),
            V::Set(s) => Ok(*s),
            v => self.error(file, span, format!("an event set expected, found a {}", v.type_name())),
        }
    }

    fn as_rel(&mut self, v: &V, file: usize, span: Span) -> R<N> {
        match v {
            V::Empty => Ok(self.rel_zero()),
            V::Unv => Ok(self.rel_full()),
            V::Rel(r) => Ok(*r),
            v => self.error(file, span, format!("a relation expected, found a {}", v.type_name())),
        }
    }

    fn expr(&mut self, e: &Expr, file: usize, env: &Env) -> R<V> {
        let sp = e.span;
        Ok(match &e.kind {
            ExprKind::Empty => V::Empty,
            ExprKind::Universe => V::Unv,
            ExprKind::Tag(t) => {
                if !self.tags.contains_key(t) {
                    return self.error(file, sp, format!("tag '{t} is undefined"));
                }
                V::Tag(t.clone())
            }
            ExprKind::Var(x) => match env.get(x) {
                Some(v) => v,
                None => return self.error(file, sp, format!("unbound name `{x}`")),
            },
            ExprKind::ExplicitSet(es) => {
                let mut vs = Vec::new();
                for a in es {
                    vs.push(self.expr(a, file, env)?);
                }
                if vs.is_empty() {
                    V::Empty
                } else {
                    valset(vs)?
                }
            }
            ExprKind::Tuple(es) => {
                let mut vs = Vec::new();
                for a in es {
                    vs.push(self.expr(a, file, env)?);
                }
                V::Tuple(vs)
            }
            ExprKind::Op1(op, a) => {
                let v = self.expr(a, file, env)?;
                match (op, v) {
                    (Op1::Plus, V::Empty) => V::Empty,
                    (Op1::Star | Op1::Opt, V::Empty) => V::Rel(self.rel_id()),
                    (Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, V::Unv) => V::Unv,
                    (Op1::Plus, V::Rel(r)) => V::Rel(self.plus(r)),
                    (Op1::Star, V::Rel(r)) => {
                        let p = self.plus(r);
                        let id = self.rel_id();
                        V::Rel(self.rel_union(p, id))
                    }
                    (Op1::Opt, V::Rel(r)) => {
                        let id = self.rel_id();
                        V::Rel(self.rel_union(r, id))
                    }
                    (Op1::Inv, V::Empty) => V::Empty,
                    (Op1::Inv, V::Rel(r)) => V::Rel(self.inv(r)),
                    (Op1::Comp, V::Empty) => V::Unv,
                    (Op1::Comp, V::Unv) => V::Empty,
                    (Op1::Comp, V::Set(s)) => {
                        let all = self.set_all();
                        V::Set(self.set_diff(all, s))
                    }
                    (Op1::Comp, V::Rel(r)) => {
                        let full = self.rel_full();
                        V::Rel(self.rel_diff(full, r))
                    }
                    (Op1::Comp, V::ValSet(v)) if v.iter().all(|t| matches!(t, V::Tag(_))) => {
                        let Some(V::Tag(t0)) = v.first() else { unreachable!() };
                        let ty = self.tags.get(t0).cloned().unwrap_or_default();
                        let mut all: Vec<V> =
                            self.tags.iter().filter(|(_, e)| **e == ty).map(|(t, _)| V::Tag(t.clone())).collect();
                        let mut keep = Vec::new();
                        for t in all.drain(..) {
                            let mut inv = false;
                            for u in &v {
                                inv |= cmp_v(&t, u)? == Ordering::Equal;
                            }
                            if !inv {
                                keep.push(t);
                            }
                        }
                        valset(keep)?
                    }
                    (Op1::ToId, V::Empty) => V::Empty,
                    (Op1::ToId, V::Unv) => V::Rel(self.rel_id()),
                    (Op1::ToId, V::Set(s)) => V::Rel(self.id_on(s)),
                    (op, v) => return self.error(file, sp, format!("operator {op:?} on a {}", v.type_name())),
                }
            }
            ExprKind::Op2(op, a, b) => {
                let va = self.expr(a, file, env)?;
                // herd stops a sequence at an empty prefix, unevaluated
                // past it (names bound only for page tables, in AArch64's).
                if *op == Op2::Seq && matches!(va, V::Empty) {
                    return Ok(V::Empty);
                }
                let vb = self.expr(b, file, env)?;
                self.op2(*op, va, vb, file, sp, a.span, b.span)?
            }
            ExprKind::App(f, a) => {
                let vf = self.expr(f, file, env)?;
                let va = self.expr(a, file, env)?;
                self.apply(vf, va, file, sp)?
            }
            ExprKind::Fun { param, body, name } => V::Clo(Rc::new(Clo {
                param: param.clone(),
                body: body.clone(),
                env: env.clone(),
                file,
                name: name.clone(),
            })),
            ExprKind::Bind(binds, body) => {
                let env2 = self.bind_all(binds, file, env.clone())?;
                self.expr(body, file, &env2)?
            }
            ExprKind::BindRec(binds, body) => {
                let env2 = self.bind_rec(binds, file, env.clone(), sp)?;
                self.expr(body, file, &env2)?
            }
            ExprKind::Try(a, b) => match self.expr(a, file, env) {
                Ok(v) => v,
                Err(Fail::Catch(_)) => self.expr(b, file, env)?,
                Err(f) => return Err(f),
            },
            ExprKind::If(c, a, b) => {
                if self.cond(c, file, env, sp)? {
                    self.expr(a, file, env)?
                } else {
                    self.expr(b, file, env)?
                }
            }
            ExprKind::Match { scrutinee, clauses, default } => {
                let v = self.expr(scrutinee, file, env)?;
                let t = match v {
                    V::Tag(t) => t,
                    V::Set(_) | V::Rel(_) => return cannot("matching on data"),
                    v => return self.error(file, scrutinee.span, format!("matching on a {}", v.type_name())),
                };
                match clauses.iter().find(|(c, _)| *c == t) {
                    Some((_, e)) => self.expr(e, file, env)?,
                    None => match default {
                        Some(d) => self.expr(d, file, env)?,
                        None => return self.error(file, sp, format!("pattern matching failed on '{t}")),
                    },
                }
            }
            ExprKind::MatchSet { scrutinee, empty, clause } => {
                let v = self.expr(scrutinee, file, env)?;
                let elems: Vec<V> = match &v {
                    V::Empty => vec![],
                    V::ValSet(v) => v.clone(),
                    V::Set(_) | V::Rel(_) => return cannot("matching on the events of a set"),
                    v => return self.error(file, scrutinee.span, format!("set-matching on a {}", v.type_name())),
                };
                if elems.is_empty() {
                    return self.expr(empty, file, env);
                }
                match &**clause {
                    SetClause::EltRem(x, xs, body) => {
                        let mut env2 = env.clone();
                        if let Some(x) = x {
                            env2 = env2.bind(x, elems[0].clone());
                        }
                        if let Some(xs) = xs {
                            env2 = env2.bind(xs, valset(elems[1..].to_vec())?);
                        }
                        self.expr(body, file, &env2)?
                    }
                    SetClause::PreEltPost(pre, x, post, body) => {
                        let k = elems.len() / 2;
                        let mut env2 = env.clone();
                        if let Some(p) = pre {
                            env2 = env2.bind(p, valset(elems[..k].to_vec())?);
                        }
                        if let Some(x) = x {
                            env2 = env2.bind(x, elems[k].clone());
                        }
                        if let Some(p) = post {
                            env2 = env2.bind(p, valset(elems[k + 1..].to_vec())?);
                        }
                        self.expr(body, file, &env2)?
                    }
                }
            }
        })
    }

    fn cond(&mut self, c: &Cond, file: usize, env: &Env, sp: Span) -> R<bool> {
        Ok(match c {
            Cond::Variant(v) => self.variant(v),
            Cond::Eq(a, b) => {
                let va = self.expr(a, file, env)?;
                let vb = self.expr(b, file, env)?;
                self.same(&va, &vb)?
            }
            Cond::In(a, b) => {
                let va = self.expr(a, file, env)?;
                let vb = self.expr(b, file, env)?;
                match (&va, &vb) {
                    (_, V::ValSet(vs)) => {
                        let mut found = false;
                        for v in vs {
                            found |= self.same(v, &va)?;
                        }
                        found
                    }
                    (_, V::Empty) => false,
                    _ => return self.error(file, sp, "`in` needs a set"),
                }
            }
            Cond::Subset(a, b) => {
                let va = self.expr(a, file, env)?;
                let vb = self.expr(b, file, env)?;
                if va.is_static() && vb.is_static() {
                    // Only empty and universe are static here.
                    return cannot("a subset test on `_`");
                }
                return cannot("a subset test on data");
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn op2(&mut self, op: Op2, a: V, b: V, file: usize, sp: Span, sa: Span, sb: Span) -> R<V> {
        use V::*;
        let is_set = |v: &V| matches!(v, Set(_));
        let is_rel = |v: &V| matches!(v, Rel(_));
        Ok(match op {
            Op2::Cartesian if matches!(a, Empty) || matches!(b, Empty) => Empty,
            Op2::Cartesian => {
                let x = self.as_set(&a, file, sa)?;
                let y = self.as_set(&b, file, sb)?;
                Rel(self.cart(x, y))
            }
            Op2::Add => match (a, b) {
                (Unv, _) => return self.error(file, sp, "universe in set ++"),
                (_, Unv) => Unv,
                (v, Empty) => valset(vec![v])?,
                (v, ValSet(mut vs)) => {
                    vs.push(v);
                    valset(vs)?
                }
                (v, w) => {
                    return self.error(file, sp, format!("cannot add a {} to a {}", v.type_name(), w.type_name()))
                }
            },
            Op2::Seq => match (&a, &b) {
                (Empty, _) | (_, Empty) => Empty,
                _ => {
                    let ra = self.seq_operand(&a, file, sa)?;
                    let rb = self.seq_operand(&b, file, sb)?;
                    Rel(self.seq(ra, rb))
                }
            },
            Op2::Union | Op2::Inter | Op2::Diff => match (a, b) {
                (Empty, v) | (v, Empty) if op == Op2::Union => v,
                (Unv, _) | (_, Unv) if op == Op2::Union => Unv,
                (Empty, _) | (_, Empty) if op == Op2::Inter => Empty,
                (Unv, v) | (v, Unv) if op == Op2::Inter => v,
                (Empty, _) if op == Op2::Diff => Empty,
                (v, Empty) if op == Op2::Diff => v,
                (_, Unv) if op == Op2::Diff => Empty,
                (Unv, Set(s)) => {
                    let all = self.set_all();
                    Set(self.set_diff(all, s))
                }
                (Unv, Rel(r)) => {
                    let full = self.rel_full();
                    Rel(self.rel_diff(full, r))
                }
                (Set(x), Set(y)) => Set(match op {
                    Op2::Union => self.set_union(x, y),
                    Op2::Inter => self.set_inter(x, y),
                    _ => self.set_diff(x, y),
                }),
                (Rel(x), Rel(y)) => Rel(match op {
                    Op2::Union => self.rel_union(x, y),
                    Op2::Inter => self.rel_inter(x, y),
                    _ => self.rel_diff(x, y),
                }),
                (ValSet(x), ValSet(y)) => {
                    let mut keep = Vec::new();
                    match op {
                        Op2::Union => return valset(x.into_iter().chain(y).collect()),
                        _ => {
                            for v in x {
                                let mut inb = false;
                                for u in &y {
                                    inb |= cmp_v(u, &v)? == Ordering::Equal;
                                }
                                if inb == (op == Op2::Inter) {
                                    keep.push(v);
                                }
                            }
                        }
                    }
                    valset(keep)?
                }
                (Tag(t), v) | (v, Tag(t)) if matches!(v, ValSet(_) | Tag(_)) => {
                    let mut vs = vec![Tag(t)];
                    let vb = v;
                    let (va, vb) = if matches!(vb, ValSet(_)) {
                        (valset(std::mem::take(&mut vs))?, vb)
                    } else {
                        (valset(vs)?, valset(vec![vb])?)
                    };
                    return self.op2(op, va, vb, file, sp, sa, sb);
                }
                (x, y) => {
                    let what = if (is_set(&x) && is_rel(&y)) || (is_rel(&x) && is_set(&y)) {
                        "mixing sets and relations".to_string()
                    } else {
                        format!("a {} and a {}", x.type_name(), y.type_name())
                    };
                    return self.error(file, sp, format!("cannot combine {what} with {op:?}"));
                }
            },
        })
    }

    fn seq_operand(&mut self, v: &V, file: usize, sp: Span) -> R<N> {
        match v {
            V::Set(s) => Ok(self.id_on(*s)),
            v => self.as_rel(v, file, sp),
        }
    }

    fn apply(&mut self, f: V, arg: V, file: usize, sp: Span) -> R<V> {
        match f {
            V::Clo(c) => {
                let env = self.bind_pat(&c.param, arg, c.env.clone(), file, sp)?;
                self.expr(&c.body.clone(), c.file, &env)
            }
            V::Prim(p) => self.prim(p, arg, file, sp),
            v => self.error(file, sp, format!("a {} is not a function", v.type_name())),
        }
    }

    fn prim(&mut self, p: &'static str, arg: V, file: usize, sp: Span) -> R<V> {
        match p {
            // Of nothing, nothing (herd's `emptyset` is `domain 0`): kept
            // static, so a sequence after it stops as herd's does.
            "domain" | "range" if matches!(arg, V::Empty) => Ok(V::Empty),
            "domain" => {
                let r = self.as_rel(&arg, file, sp)?;
                Ok(V::Set(self.domain(r)))
            }
            "range" => {
                let r = self.as_rel(&arg, file, sp)?;
                Ok(V::Set(self.range(r)))
            }
            "fail" => self.error(file, sp, "fail"),
            // The pairs of `r` whose values are page-table entries with one
            // output address (`same-oa`), one of them writable
            // (`at-least-one-writable`): litmus's values are integers, so none.
            "same-oa" | "at-least-one-writable" => {
                self.as_rel(&arg, file, sp)?;
                Ok(V::Empty)
            }
            "classes-loc" | "classes" | "linearisations" => cannot(format!("herd's primitive `{p}` on data")),
            other => self.unsupported(file, sp, format!("herd's primitive `{other}`")),
        }
    }
}
