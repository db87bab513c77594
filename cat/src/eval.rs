//! Evaluating a model on one finite execution.
//!
//! An [`Execution`] is data: `n` events (at most 128), named event sets and
//! named relations. [`evaluate`] binds herd's base names (the sets `R`,
//! `W`, `M`, `F`, `IW`, `FW`, … and the relations `po`, `rf`, `loc`,
//! `int`, `ext`, `id`, …, empty where the execution says nothing), runs
//! `stdlib.cat` then the model, and returns a [`Verdict`]: one result per
//! check, the flags raised, and whether the execution is allowed.
//!
//! `co` is the execution's own; with it, herd's "given co" names are bound
//! (`co`, `fr = (rf^-1 ; co) \ id`, and their internal and external
//! parts) so that a model without `cos.cat` runs as in herd. A model that
//! generates coherence orders (`with co from generate_cos(…)`) evaluates
//! its candidate set and keeps the execution's own `co` when it is one of
//! them (else an error: the execution is not a candidate of the model).
//!
//! This evaluator reads the whole model at each call; to check many
//! executions, [`Model::prepare`] a model once ([`crate::prepared`]): the
//! same verdicts, without the enumeration and hundreds of times faster.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use crate::ast::*;
use crate::model::{CatError, Model};

/// A set of events, as a mask (event `i` is bit `i`).
pub type Set = u128;

/// A relation over `n` events: row `i` is the set of `j` with `(i, j)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rel(pub Vec<Set>);

impl Rel {
    pub fn empty(n: usize) -> Rel {
        Rel(vec![0; n])
    }
    pub fn from_pairs(n: usize, pairs: &[(usize, usize)]) -> Rel {
        let mut r = Rel::empty(n);
        for &(a, b) in pairs {
            r.0[a] |= 1 << b;
        }
        r
    }
    pub fn id_on(n: usize, s: Set) -> Rel {
        Rel((0..n).map(|i| s & (1 << i)).collect())
    }
    pub fn cartesian(n: usize, a: Set, b: Set) -> Rel {
        Rel((0..n).map(|i| if a >> i & 1 == 1 { b } else { 0 }).collect())
    }
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.0[a] >> b & 1 == 1
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&r| r == 0)
    }
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (i, &row) in self.0.iter().enumerate() {
            for j in 0..Set::BITS as usize {
                if row >> j & 1 == 1 {
                    v.push((i, j));
                }
            }
        }
        v
    }
    fn zip(&self, o: &Rel, f: impl Fn(Set, Set) -> Set) -> Rel {
        Rel(self.0.iter().zip(&o.0).map(|(&a, &b)| f(a, b)).collect())
    }
    pub fn seq(&self, o: &Rel) -> Rel {
        Rel(self
            .0
            .iter()
            .map(|&row| {
                let mut out = 0;
                for (j, &r) in o.0.iter().enumerate() {
                    if row >> j & 1 == 1 {
                        out |= r;
                    }
                }
                out
            })
            .collect())
    }
    pub fn inverse(&self) -> Rel {
        let n = self.0.len();
        let mut r = Rel::empty(n);
        for (a, b) in self.pairs() {
            r.0[b] |= 1 << a;
        }
        r
    }
    pub fn closure(&self) -> Rel {
        let mut r = self.clone();
        let n = r.0.len();
        for k in 0..n {
            for i in 0..n {
                if r.0[i] >> k & 1 == 1 {
                    r.0[i] |= r.0[k];
                }
            }
        }
        r
    }
    pub fn domain(&self) -> Set {
        self.0.iter().enumerate().fold(0, |s, (i, &r)| if r != 0 { s | 1 << i } else { s })
    }
    pub fn range(&self) -> Set {
        self.0.iter().fold(0, |s, &r| s | r)
    }
    pub fn is_irreflexive(&self) -> bool {
        self.0.iter().enumerate().all(|(i, &r)| r >> i & 1 == 0)
    }
    pub fn is_acyclic(&self) -> bool {
        self.closure().is_irreflexive()
    }
}

/// One candidate execution, as data.
#[derive(Debug, Clone, Default)]
pub struct Execution {
    pub n: usize,
    pub sets: BTreeMap<String, Set>,
    pub rels: BTreeMap<String, Rel>,
    /// An event number the builders could not take (past `n` or [`MAX_EVENTS`]):
    /// `evaluate` refuses the execution rather than answer for another.
    pub bad_event: Option<usize>,
    /// Sets no execution of its producer ever has an event in (herd's
    /// system features, for AArch64): bound empty, and known so when the
    /// model is compiled (a `match` on one, a sequence after one).
    pub absent: std::collections::BTreeSet<String>,
}

impl Execution {
    /// At most [`MAX_EVENTS`]; more is refused by `evaluate`.
    pub fn new(n: usize) -> Execution {
        Execution { n, bad_event: (n > MAX_EVENTS).then_some(n), ..Execution::default() }
    }
    fn fits(&mut self, e: usize) -> bool {
        let ok = e < self.n.min(MAX_EVENTS);
        if !ok && self.bad_event.is_none() {
            self.bad_event = Some(e);
        }
        ok
    }
    /// Names the set of `events` (a tag set like `MFENCE`, or `R`, `W`, …).
    pub fn set(mut self, name: &str, events: &[usize]) -> Execution {
        let mut s: Set = 0;
        for &e in events {
            if self.fits(e) {
                s |= 1 << e;
            }
        }
        self.sets.insert(name.to_string(), s);
        self
    }
    /// Names sets no event of this execution's producer is ever in.
    pub fn absent<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Execution {
        self.absent.extend(names.into_iter().map(str::to_string));
        self
    }
    /// Names the relation made of `pairs`.
    pub fn rel(mut self, name: &str, pairs: &[(usize, usize)]) -> Execution {
        let pairs: Vec<(usize, usize)> = pairs.iter().copied().filter(|&(a, b)| self.fits(a) & self.fits(b)).collect();
        self.rels.insert(name.to_string(), Rel::from_pairs(self.n.min(MAX_EVENTS), &pairs));
        self
    }
}

/// The events an execution may have (sets are bit masks of a `u128`).
pub const MAX_EVENTS: usize = Set::BITS as usize;

/// The kind of a check, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// The `as` name, or `acyclic@file:line` without one.
    pub name: String,
    pub ty: TestType,
    /// Whether the test (with its `~`) holds.
    pub holds: bool,
}

/// What a model says of an execution.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Every check evaluated, in order (plain checks, `undefined_unless`,
    /// `flag`s).
    pub checks: Vec<CheckResult>,
    /// Names of the flags raised (a `flag` test that holds).
    pub flags: Vec<String>,
    /// Whether some `undefined_unless` failed.
    pub undefined: bool,
    /// Each `undefined_unless` that failed, by name, with what it found
    /// (`empty race`: the racing pairs; a set's events as `(e, e)`), so
    /// a report can point at the accesses.
    pub undefined_by: Vec<(String, Vec<(usize, usize)>)>,
}

impl Verdict {
    /// No plain check fails.
    pub fn allowed(&self) -> bool {
        self.checks.iter().all(|c| c.ty != TestType::Check || c.holds)
    }
    /// The names of the plain checks that fail.
    pub fn failed(&self) -> Vec<&str> {
        self.checks.iter().filter(|c| c.ty == TestType::Check && !c.holds).map(|c| c.name.as_str()).collect()
    }
}

/// Options: the variants set (`if "name"` conditions), as herd's `-variant`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub variants: BTreeSet<String>,
}

// ---------------------------------------------------------------- values

#[derive(Clone)]
pub enum Value {
    /// `0`, polymorphic.
    Empty,
    /// `_`, polymorphic.
    Unv,
    Set(Set),
    Rel(Rel),
    Event(usize),
    Pair(usize, usize),
    Tag(String),
    Tuple(Vec<Value>),
    /// A set of values other than events, kept sorted without repeats.
    ValSet(Vec<Value>),
    Clo(Rc<Closure>),
    Proc(Rc<Procedure>),
    Prim(&'static str),
}

pub struct Closure {
    param: Pat,
    body: std::sync::Arc<Expr>,
    env: Env,
    file: usize,
}

pub struct Procedure {
    param: Pat,
    body: Vec<Ins>,
    env: RefCell<Env>,
    file: usize,
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Empty => "empty",
            Value::Unv => "universe",
            Value::Set(_) => "event set",
            Value::Rel(_) => "relation",
            Value::Event(_) => "event",
            Value::Pair(..) => "pair",
            Value::Tag(_) => "tag",
            Value::Tuple(_) => "tuple",
            Value::ValSet(_) => "set",
            Value::Clo(_) | Value::Prim(_) => "function",
            Value::Proc(_) => "procedure",
        }
    }
    fn rank(&self) -> u8 {
        match self {
            Value::Empty => 0,
            Value::Unv => 1,
            Value::Set(_) => 2,
            Value::Rel(_) => 3,
            Value::Event(_) => 4,
            Value::Pair(..) => 5,
            Value::Tag(_) => 6,
            Value::Tuple(_) => 7,
            Value::ValSet(_) => 8,
            Value::Clo(_) => 9,
            Value::Proc(_) => 10,
            Value::Prim(_) => 11,
        }
    }
}

fn cmp_values(a: &Value, b: &Value) -> Ordering {
    use Value::*;
    match (a, b) {
        (Set(x), Set(y)) => x.cmp(y),
        (Rel(x), Rel(y)) => x.cmp(y),
        (Event(x), Event(y)) => x.cmp(y),
        (Pair(a1, a2), Pair(b1, b2)) => (a1, a2).cmp(&(b1, b2)),
        (Tag(x), Tag(y)) => x.cmp(y),
        (Tuple(x), Tuple(y)) | (ValSet(x), ValSet(y)) => {
            for (p, q) in x.iter().zip(y) {
                let o = cmp_values(p, q);
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Clo(x), Clo(y)) => (Rc::as_ptr(x) as usize).cmp(&(Rc::as_ptr(y) as usize)),
        (Proc(x), Proc(y)) => (Rc::as_ptr(x) as usize).cmp(&(Rc::as_ptr(y) as usize)),
        (Prim(x), Prim(y)) => x.cmp(y),
        _ => a.rank().cmp(&b.rank()),
    }
}

fn valset(mut v: Vec<Value>) -> Value {
    v.sort_by(cmp_values);
    v.dedup_by(|a, b| cmp_values(a, b) == Ordering::Equal);
    Value::ValSet(v)
}

// ---------------------------------------------------------------- environment

struct Node {
    name: String,
    value: RefCell<Value>,
    next: Env,
}

#[derive(Clone, Default)]
pub struct Env(Option<Rc<Node>>);

impl Env {
    fn bind(&self, name: &str, value: Value) -> Env {
        Env(Some(Rc::new(Node { name: name.to_string(), value: RefCell::new(value), next: self.clone() })))
    }
    fn node(&self, name: &str) -> Option<&Rc<Node>> {
        let mut cur = &self.0;
        while let Some(n) = cur {
            if n.name == name {
                return Some(n);
            }
            cur = &n.next.0;
        }
        None
    }
    fn get(&self, name: &str) -> Option<Value> {
        self.node(name).map(|n| n.value.borrow().clone())
    }
}

// ---------------------------------------------------------------- errors

/// An evaluation failure: `Catchable` ones are herd's errors that `try`
/// catches; `Fatal` ones (unsupported constructs) pass through `try`.
enum Fail {
    Catchable(CatError),
    Fatal(CatError),
}

type R<T> = Result<T, Fail>;

struct Ev<'m> {
    m: &'m Model,
    x: &'m Execution,
    opts: &'m Options,
    verdict: Verdict,
    all: Set,
    /// The execution's transitive `co`, if given.
    co: Option<Rel>,
    tags: HashMap<String, String>,
    /// When asked ([`acyclic_relations`]): each `acyclic` check's relation
    /// (closed), and each `irreflexive` one's.
    keep: Option<Vec<Order>>,
    /// When asked ([`explain`]): each failing check, explained.
    explain: Option<Vec<Failed>>,
}

/// A check an execution fails, as [`explain`] tells it: its name, kind
/// and expression, and a cycle (or, for `empty`, a pair) in its relation,
/// each step an event and the name of the edge to the next: the smallest
/// relation the model names (`bob`, `rfe`, `psc-base`) that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub name: String,
    /// `acyclic`, `irreflexive` or `empty`.
    pub kind: &'static str,
    /// The tested expression as written (`ob`, `hb; eco?`).
    pub expr: String,
    /// The events and each one's edge to the next (the last one's back to
    /// the first, for a cycle; none after the second of an `empty` pair).
    pub steps: Vec<(usize, Option<String>)>,
}

/// Evaluates `model` on `exec`.
pub fn evaluate(model: &Model, exec: &Execution, opts: &Options) -> Result<Verdict, CatError> {
    evaluate_keeping(model, exec, opts, false).map(|(v, _)| v)
}

/// The order one check of a model imposes on an execution: an `acyclic`
/// check's relation closed, an `irreflexive` one's as it is (only a step
/// from an event to itself fails it).
#[derive(Clone, Debug)]
pub struct Order {
    pub name: String,
    /// Whether a cycle of its steps fails the check: an `acyclic` one's,
    /// or an `irreflexive` one's whose relation is transitive here.
    pub closed: bool,
    pub rel: Rel,
}

/// The orders the axioms of `model` impose on `exec`, by the check's name,
/// in order: each `acyclic` check's relation, transitively closed, and each
/// `irreflexive` one's as it is (ARM's `ob`, RISC-V's `ppo` with
/// communication), for explanations.
pub fn acyclic_relations(model: &Model, exec: &Execution, opts: &Options) -> Result<Vec<Order>, CatError> {
    evaluate_keeping(model, exec, opts, true).map(|(_, k)| k)
}

/// Why `model` forbids `exec`: each check it fails, with a cycle (or an
/// offending pair) of the check's relation in the model's own named
/// relations, for explanations. Empty if it allows it.
pub fn explain(model: &Model, exec: &Execution, opts: &Options) -> Result<Vec<Failed>, CatError> {
    let mut ev = new_ev(model, exec, opts, false)?;
    ev.explain = Some(Vec::new());
    run_model(model, &mut ev)?;
    Ok(ev.explain.unwrap_or_default())
}

fn evaluate_keeping(
    model: &Model,
    exec: &Execution,
    opts: &Options,
    keep: bool,
) -> Result<(Verdict, Vec<Order>), CatError> {
    let mut ev = new_ev(model, exec, opts, keep)?;
    run_model(model, &mut ev)?;
    Ok((ev.verdict, ev.keep.unwrap_or_default()))
}

fn new_ev<'m>(model: &'m Model, exec: &'m Execution, opts: &'m Options, keep: bool) -> Result<Ev<'m>, CatError> {
    if let Some(e) = exec.bad_event {
        return Err(CatError::Execution(format!(
            "event {e} does not fit an execution of {} events (at most {MAX_EVENTS})",
            exec.n
        )));
    }
    let n = exec.n;
    let all: Set = if n >= MAX_EVENTS { Set::MAX } else { (1 << n) - 1 };
    Ok(Ev {
        m: model,
        x: exec,
        opts,
        verdict: Verdict::default(),
        all,
        co: exec.rels.get("co").map(Rel::closure),
        tags: HashMap::new(),
        keep: keep.then(Vec::new),
        explain: None,
    })
}

fn run_model(model: &Model, ev: &mut Ev<'_>) -> Result<(), CatError> {
    let env = ev.base_env();
    let run = |ev: &mut Ev, env: Env| -> R<Env> {
        let env = match model.prelude {
            Some(p) if p != model.root => ev.run(&model.files[p].program.body, p, env)?,
            _ => env,
        };
        ev.run(&model.files[model.root].program.body, model.root, env)
    };
    match run(ev, env) {
        Ok(_) => Ok(()),
        Err(Fail::Catchable(e)) | Err(Fail::Fatal(e)) => Err(e),
    }
}

/// The factors of a sequence `a; b; c`, in order.
fn flatten_seq<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Op2(Op2::Seq, a, b) => {
            flatten_seq(a, out);
            flatten_seq(b, out);
        }
        _ => out.push(e),
    }
}

/// A path `e = x0 → x1 → … → xk = e`, each step `x(i-1) → x(i)` in
/// `rels[i-1]`.
fn path_through(rels: &[Rel], e: usize, n: usize) -> Option<Vec<usize>> {
    // reach[i]: the events reached after i factors, with a predecessor each.
    let mut pred: Vec<Vec<usize>> = Vec::with_capacity(rels.len());
    let mut reach: Vec<bool> = (0..n).map(|x| x == e).collect();
    for r in rels {
        let mut next = vec![false; n];
        let mut p = vec![usize::MAX; n];
        for a in (0..n).filter(|&a| reach[a]) {
            for b in (0..n).filter(|&b| r.contains(a, b)) {
                if !next[b] {
                    next[b] = true;
                    p[b] = a;
                }
            }
        }
        pred.push(p);
        reach = next;
    }
    if !reach[e] {
        return None;
    }
    let mut path = vec![e];
    let mut at = e;
    for p in pred.iter().rev() {
        at = p[at];
        path.push(at);
    }
    path.reverse();
    Some(path)
}

/// Does `r; r` stay inside `r`?
fn is_transitive(r: &Rel, n: usize) -> bool {
    let rr = r.seq(r);
    (0..n).all(|a| rr.0[a] & !r.0[a] == 0)
}

/// The shortest cycle of `r` (its events in order), if any.
fn shortest_cycle(r: &Rel, n: usize) -> Option<Vec<usize>> {
    let mut best: Option<Vec<usize>> = None;
    for s in 0..n {
        // BFS from s's successors back to s.
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        for b in (0..n).filter(|&b| r.contains(s, b)) {
            if prev[b] == usize::MAX {
                prev[b] = s;
                queue.push_back(b);
            }
        }
        while let Some(a) = queue.pop_front() {
            if a == s {
                break;
            }
            for b in (0..n).filter(|&b| r.contains(a, b)) {
                if prev[b] == usize::MAX {
                    prev[b] = a;
                    queue.push_back(b);
                }
            }
        }
        if prev[s] == usize::MAX {
            continue;
        }
        let mut cycle = vec![s];
        let mut at = prev[s];
        while at != s && cycle.len() <= n {
            cycle.push(at);
            at = prev[at];
        }
        cycle.reverse();
        // Rotated to start at s.
        cycle.rotate_right(1);
        if best.as_ref().is_none_or(|b| cycle.len() < b.len()) {
            best = Some(cycle);
        }
    }
    best
}

pub(crate) const PRIMS: &[&str] = &[
    "domain",
    "range",
    "classes",
    "classes-loc",
    "linearisations",
    "fail",
    "at-least-one-writable",
    "same-oa",
    "different-values",
    "fromto",
    "lift",
    "delift",
    "deliftinter",
    "bisimulation",
    "tag2scope",
    "tag2level",
    "tag2events",
    "tag2fenced",
    "loc2events",
    "as_transitive",
];

impl Ev<'_> {
    fn n(&self) -> usize {
        self.x.n
    }

    fn base_env(&self) -> Env {
        let n = self.n();
        let x = self.x;
        let set = |k: &str| x.sets.get(k).copied();
        let rel = |k: &str| x.rels.get(k).cloned();
        let mut env = Env::default();
        for p in PRIMS {
            env = env.bind(p, Value::Prim(p));
        }
        let r = set("R").unwrap_or(0);
        let w = set("W").unwrap_or(0);
        let m = set("M").unwrap_or(r | w);
        let id = Rel::id_on(n, self.all);
        let po = rel("po").unwrap_or_else(|| Rel::empty(n));
        let int = rel("int").unwrap_or_else(|| {
            let r = po.closure();
            let mut i = r.zip(&r.inverse(), |a, b| a | b);
            for (k, row) in i.0.iter_mut().enumerate() {
                *row |= 1 << k;
            }
            i
        });
        let unv = Rel::cartesian(n, self.all, self.all);
        let ext = rel("ext").unwrap_or_else(|| unv.zip(&int, |a, b| a & !b));
        let mut sets: BTreeMap<&str, Set> = BTreeMap::new();
        sets.insert("R", r);
        sets.insert("W", w);
        sets.insert("M", m);
        sets.insert("Exp", set("Exp").unwrap_or(m));
        sets.insert("EXEC", set("EXEC").unwrap_or(self.all));
        let fw = set("FW").unwrap_or_else(|| match &self.co {
            Some(co) => w & !co.domain(),
            None => 0,
        });
        sets.insert("FW", fw);
        for k in ["F", "IW", "NExp", "B", "BCC", "PRED", "Rreg", "Wreg", "ADDR", "DATA", "SPEC", "SPURIOUS"] {
            sets.insert(k, set(k).unwrap_or(0));
        }
        let mut rels: BTreeMap<&str, Rel> = BTreeMap::new();
        rels.insert("id", id.clone());
        rels.insert("po", po.clone());
        rels.insert("partial_po", rel("partial_po").unwrap_or(po));
        rels.insert("int", int);
        rels.insert("ext", ext.clone());
        let id_m = Rel::id_on(n, m);
        for k in ["sm", "si"] {
            rels.insert(k, rel(k).unwrap_or_else(|| id_m.clone()));
        }
        for k in ["same-instance", "same-instr", "same-static"] {
            rels.insert(k, rel(k).unwrap_or_else(|| id.clone()));
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
            rels.insert(k, rel(k).unwrap_or_else(|| Rel::empty(n)));
        }
        if let Some(co) = &self.co {
            let int = &rels["int"].clone();
            let rf = &rels["rf"].clone();
            let fr = rf.inverse().seq(co).zip(&id, |a, b| a & !b);
            let inside = |r: &Rel| r.zip(int, |a, b| a & b);
            let outside = |r: &Rel| r.zip(&ext, |a, b| a & b);
            rels.insert("fri", inside(&fr));
            rels.insert("fre", outside(&fr));
            rels.insert("fr", fr);
            rels.insert("coi", inside(co));
            rels.insert("coe", outside(co));
            rels.insert("co", co.clone());
        }
        for (k, s) in &sets {
            env = env.bind(k, Value::Set(*s));
        }
        for (k, s) in &x.sets {
            if !sets.contains_key(k.as_str()) {
                env = env.bind(k, Value::Set(*s));
            }
        }
        for (k, r) in &rels {
            env = env.bind(k, Value::Rel(r.clone()));
        }
        for (k, r) in &x.rels {
            if !rels.contains_key(k.as_str()) {
                env = env.bind(k, Value::Rel(r.clone()));
            }
        }
        for k in &x.absent {
            if !x.sets.contains_key(k) && !sets.contains_key(k.as_str()) {
                env = env.bind(k, Value::Empty);
            }
        }
        env
    }

    fn diag(&self, file: usize, span: Span, msg: String) -> crate::model::Diagnostic {
        self.m.files[file].diagnostic(span, msg)
    }
    fn error<T>(&self, file: usize, span: Span, msg: impl Into<String>) -> R<T> {
        Err(Fail::Catchable(CatError::Eval(self.diag(file, span, msg.into()))))
    }
    fn fatal<T>(&self, file: usize, span: Span, msg: impl Into<String>) -> R<T> {
        Err(Fail::Fatal(CatError::Eval(self.diag(file, span, msg.into()))))
    }
    fn unsupported<T>(&self, file: usize, span: Span, what: impl Into<String>) -> R<T> {
        let msg = format!("not supported yet: {}", what.into());
        Err(Fail::Fatal(CatError::Unsupported(self.diag(file, span, msg))))
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
                let Value::Tag(t) = v else {
                    return self.error(file, scrutinee.span, format!("matching on a {}", v.type_name()));
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
            // Shows only choose what herd draws.
            InsKind::ShowAs(..) | InsKind::Show(_) | InsKind::Unshow(_) => Ok(env),
            InsKind::Include(_, span) => {
                let Some(&j) = self.m.includes.get(&(file, span.start)) else {
                    return self.fatal(file, *span, "include not resolved by Model::load");
                };
                self.run(&self.m.files[j].program.body, j, env)
            }
            InsKind::Procedure { name, param, body, rec } => {
                let p = Rc::new(Procedure {
                    param: param.clone(),
                    body: body.clone(),
                    env: RefCell::new(env.clone()),
                    file,
                });
                let env2 = env.bind(name, Value::Proc(p.clone()));
                if *rec {
                    *p.env.borrow_mut() = env2.clone();
                }
                Ok(env2)
            }
            InsKind::Call { name, arg, as_name } => {
                let Some(Value::Proc(p)) = env.get(name) else {
                    return self.error(file, ins.span, format!("`{name}` is not a procedure"));
                };
                let a = self.expr(arg, file, &env)?;
                let penv = p.env.borrow().clone();
                let penv = self.bind_pat(&p.param, a, penv, file, arg.span)?;
                let label = as_name.clone().unwrap_or_else(|| name.clone());
                let saved = self.verdict.checks.len();
                self.run(&p.body, p.file, penv)?;
                for c in &mut self.verdict.checks[saved..] {
                    if c.name.contains('@') {
                        c.name = label.clone();
                    }
                }
                Ok(env)
            }
            InsKind::Debug(_) => Ok(env),
            InsKind::Forall { var, set, body } => {
                let v = self.expr(set, file, &env)?;
                let elems = match v {
                    Value::Empty => vec![],
                    Value::ValSet(v) => v,
                    Value::Set(s) => (0..self.n()).filter(|i| s >> i & 1 == 1).map(Value::Event).collect(),
                    v => return self.error(file, set.span, format!("forall over a {}", v.type_name())),
                };
                for e in elems {
                    self.run(body, file, env.bind(var, e))?;
                }
                Ok(env)
            }
            InsKind::WithFrom { var, set } => {
                let v = self.expr(set, file, &env)?;
                // A set of one candidate binds it (herd's AArch64 model
                // enumerates orders of TLB and cache maintenance, none here).
                if let (None, Value::ValSet(vs)) = (self.x.rels.get(var), &v) {
                    if let [one] = vs.as_slice() {
                        return Ok(env.bind(var, one.clone()));
                    }
                }
                let Some(given) = self.x.rels.get(var).map(Rel::closure) else {
                    return self.unsupported(
                        file,
                        ins.span,
                        format!("enumerating the candidates of `with {var} from …`: the execution must give `{var}`"),
                    );
                };
                let cands = match v {
                    Value::Empty => vec![],
                    Value::ValSet(v) => v,
                    v => return self.error(file, set.span, format!("`with … from` a {}", v.type_name())),
                };
                let n = self.n();
                for c in cands {
                    let r = match &c {
                        Value::Empty => Rel::empty(n),
                        Value::Rel(r) => r.clone(),
                        _ => continue,
                    };
                    if r.closure() == given {
                        return Ok(env.bind(var, Value::Rel(r)));
                    }
                }
                let diag =
                    self.diag(file, ins.span, format!("the execution's `{var}` is not one of the model's candidates"));
                Err(Fail::Fatal(CatError::NotACandidate(diag)))
            }
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
                let all = valset(tags.iter().map(|t| Value::Tag(t.clone())).collect());
                Ok(env.bind(name, all))
            }
        }
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
        let n = self.n();
        let ok = match (&t.kind, &v) {
            (_, Value::Empty) => true,
            (TestKind::Empty, Value::Set(s)) => *s == 0,
            (TestKind::Empty, Value::Rel(r)) => r.is_empty(),
            (TestKind::Empty, Value::ValSet(v)) => v.is_empty(),
            (TestKind::Empty, Value::Unv) => self.all == 0,
            (TestKind::Acyclic, Value::Rel(r)) => r.is_acyclic(),
            (TestKind::Irreflexive, Value::Rel(r)) => r.is_irreflexive(),
            (TestKind::Acyclic | TestKind::Irreflexive, Value::Unv) => n == 0,
            _ => return self.error(file, t.expr.span, format!("a {} cannot be tested", v.type_name())),
        };
        let holds = ok != t.negated;
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
        match t.ty {
            TestType::Assert if !holds => return self.fatal(file, t.span, format!("assertion {name} failed")),
            TestType::Flag if holds => self.verdict.flags.push(name.clone()),
            TestType::UndefinedUnless if !holds => {
                self.verdict.undefined = true;
                let found = match &v {
                    Value::Rel(r) => r.pairs(),
                    Value::Set(s) => (0..n).filter(|e| s >> e & 1 == 1).map(|e| (e, e)).collect(),
                    _ => Vec::new(),
                };
                self.verdict.undefined_by.push((name.clone(), found));
            }
            _ => {}
        }
        if self.explain.is_some() && t.ty == TestType::Check && !holds && !t.negated {
            let expr = self.m.files[file].text.get(t.expr.span.start as usize..t.expr.span.end as usize);
            let failed = self.explained(&name, t, expr.unwrap_or_default(), &v, file, env);
            self.explain.get_or_insert_with(Vec::new).push(failed);
        }
        match (self.keep.as_mut(), &t.kind, &v) {
            (Some(keep), TestKind::Acyclic, Value::Rel(r)) => {
                keep.push(Order { name: name.clone(), closed: true, rel: r.closure() })
            }
            (Some(keep), TestKind::Irreflexive, Value::Rel(r)) => {
                // Transitive (ARM's `ob`, built with `+`): a cycle of it is
                // a step from an event to itself.
                let rr = r.seq(r);
                let closed = rr.0.iter().zip(&r.0).all(|(a, b)| a & !b == 0);
                keep.push(Order { name: name.clone(), closed, rel: r.clone() })
            }
            _ => {}
        }
        self.verdict.checks.push(CheckResult { name, ty: t.ty, holds });
        Ok(())
    }

    /// A failing check told in the model's relations ([`Failed`]): a
    /// cycle of the relation's named parts (`bob`, `rfe`, … each a subset
    /// of it) where they have one, else of the relation itself.
    fn explained(&mut self, name: &str, t: &Test, expr: &str, v: &Value, file: usize, env: &Env) -> Failed {
        let kind = &t.kind;
        let n = self.n();
        let kind_word = match kind {
            TestKind::Acyclic => "acyclic",
            TestKind::Irreflexive => "irreflexive",
            TestKind::Empty => "empty",
        };
        let mut out =
            Failed { name: name.to_string(), kind: kind_word, expr: expr.trim().to_string(), steps: Vec::new() };
        let Value::Rel(r) = v else {
            if let Value::Set(s) = v {
                out.steps = (0..n).filter(|e| s >> e & 1 == 1).take(1).map(|e| (e, None)).collect();
            }
            return out;
        };
        // The relations in scope, innermost binding of each name: the
        // names an edge is told by. Smallest first; among equals the
        // earliest bound (the base relations, then the model's in order:
        // `bob` before `lob`).
        let mut named: Vec<(String, Rel, usize)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cur = &env.0;
        while let Some(node) = cur {
            if seen.insert(node.name.clone()) {
                if let Value::Rel(p) = &*node.value.borrow() {
                    let size = p.pairs().len();
                    if size > 0 && !node.name.starts_with('_') {
                        named.push((node.name.clone(), p.clone(), size));
                    }
                }
            }
            cur = &node.next.0;
        }
        named.reverse();
        named.sort_by_key(|(_, _, size)| *size);
        let within = |p: &Rel, r: &Rel| (0..n).all(|a| p.0[a] & !r.0[a] == 0);
        // The parts of `r` (the relation itself, `ob` for `acyclic ob`, is none).
        let parts: Vec<(String, Rel, usize)> =
            named.iter().filter(|(_, p, _)| within(p, r) && !(0..n).all(|a| p.0[a] == r.0[a])).cloned().collect();
        let label = |a: usize, b: usize| parts.iter().find(|(_, p, _)| p.contains(a, b)).map(|(nm, _, _)| nm.clone());
        match kind {
            TestKind::Empty => {
                if let Some(&(a, b)) = r.pairs().first() {
                    out.steps = vec![(a, label(a, b).or_else(|| Some(name.to_string()))), (b, None)];
                }
            }
            // An event the relation relates to itself: where the relation is
            // transitive (ARM's `ob`, a closure) that is a cycle of its
            // parts, told as for `acyclic`; else (a composition: `hb; eco?`)
            // told as that, by the expression.
            TestKind::Irreflexive if !is_transitive(r, n) => {
                let Some(e) = (0..n).find(|&e| r.contains(e, e)) else { return out };
                out.steps = vec![(e, Some(out.expr.clone()))];
                // A sequence (`hb; eco?`): the path from the event back to
                // itself, a step per factor, each told by the smallest
                // named relation inside its factor that holds it.
                let mut factors = Vec::new();
                flatten_seq(&t.expr, &mut factors);
                let mut rels = Vec::new();
                for f in &factors {
                    match self.expr(f, file, env) {
                        Ok(Value::Rel(fr)) => rels.push(fr),
                        _ => return out,
                    }
                }
                let Some(path) = path_through(&rels, e, n) else { return out };
                let text = |f: &Expr| self.m.files[file].text.get(f.span.start as usize..f.span.end as usize);
                let mut steps = Vec::new();
                for (i, w) in path.windows(2).enumerate() {
                    let (a, b) = (w[0], w[1]);
                    if a == b {
                        continue; // the identity of an optional factor (`eco?`)
                    }
                    let told = named.iter().find(|(_, p, _)| p.contains(a, b) && within(p, &rels[i]));
                    let told =
                        told.map(|(nm, _, _)| nm.clone()).or_else(|| text(factors[i]).map(|t| t.trim().to_string()));
                    steps.push((a, told));
                }
                if !steps.is_empty() {
                    out.steps = steps;
                }
            }
            TestKind::Acyclic | TestKind::Irreflexive => {
                // A cycle in the union of the named parts (each a subset, so
                // it is one of the relation's), else in the whole.
                // Without self-loops: a closed part's (`obs+`) say nothing.
                let mut union = Rel::empty(n);
                for (_, p, _) in &parts {
                    union = union.zip(p, |a, b| a | b);
                }
                for (e, row) in union.0.iter_mut().enumerate().take(n) {
                    *row &= !(1 << e);
                }
                let cycle = shortest_cycle(&union, n).or_else(|| shortest_cycle(r, n)).unwrap_or_default();
                let k = cycle.len();
                out.steps = (0..k)
                    .map(|i| {
                        let (a, b) = (cycle[i], cycle[(i + 1) % k]);
                        (a, label(a, b).or_else(|| Some(name.to_string())))
                    })
                    .collect();
            }
        }
        out
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

    fn bind_pat(&self, pat: &Pat, v: Value, env: Env, file: usize, span: Span) -> R<Env> {
        match pat {
            Pat::Var(None) => Ok(env),
            Pat::Var(Some(x)) => Ok(env.bind(x, v)),
            Pat::Tuple(xs) => {
                let vs = match v {
                    Value::Tuple(vs) if vs.len() == xs.len() => vs,
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

    /// `let rec`: every name starts empty, then the bindings are evaluated
    /// again until no value changes (closures see the names themselves).
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
            renv = renv.bind(x, Value::Empty);
        }
        for round in 0.. {
            if round > 10_000 {
                return self.error(file, span, "no fixpoint after 10000 rounds");
            }
            let mut changed = false;
            for (b, x) in binds.iter().zip(&names) {
                let v = self.expr(&b.expr, file, &renv)?;
                let node = renv.node(x).expect("bound above");
                let old = node.value.replace(v.clone());
                let same = match (&old, &v) {
                    (Value::Clo(_), Value::Clo(_)) => true,
                    _ => self.same(&old, &v),
                };
                changed |= !same;
            }
            if !changed {
                break;
            }
        }
        Ok(renv)
    }

    fn same(&self, a: &Value, b: &Value) -> bool {
        let norm = |v: &Value| match v {
            Value::Empty => None,
            Value::Set(0) => None,
            Value::Rel(r) if r.is_empty() => None,
            v => Some(v.clone()),
        };
        match (norm(a), norm(b)) {
            (None, None) => true,
            (Some(x), Some(y)) => cmp_values(&x, &y) == Ordering::Equal,
            _ => false,
        }
    }

    // ------------------------------------------------------------ expressions

    fn as_set(&self, v: &Value, file: usize, span: Span) -> R<Set> {
        match v {
            Value::Empty => Ok(0),
            Value::Unv => Ok(self.all),
            Value::Set(s) => Ok(*s),
            Value::Event(e) => Ok(1 << e),
            v => self.error(file, span, format!("an event set expected, found a {}", v.type_name())),
        }
    }

    fn as_rel(&self, v: &Value, file: usize, span: Span) -> R<Rel> {
        let n = self.n();
        match v {
            Value::Empty => Ok(Rel::empty(n)),
            Value::Unv => Ok(Rel::cartesian(n, self.all, self.all)),
            Value::Rel(r) => Ok(r.clone()),
            Value::Pair(a, b) => Ok(Rel::from_pairs(n, &[(*a, *b)])),
            v => self.error(file, span, format!("a relation expected, found a {}", v.type_name())),
        }
    }

    fn expr(&mut self, e: &Expr, file: usize, env: &Env) -> R<Value> {
        let n = self.n();
        let sp = e.span;
        Ok(match &e.kind {
            ExprKind::Empty => Value::Empty,
            ExprKind::Universe => Value::Unv,
            ExprKind::Tag(t) => {
                if !self.tags.contains_key(t) {
                    return self.error(file, sp, format!("tag '{t} is undefined"));
                }
                Value::Tag(t.clone())
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
                    Value::Empty
                } else if vs.iter().all(|v| matches!(v, Value::Event(_))) {
                    Value::Set(vs.iter().fold(0, |s, v| match v {
                        Value::Event(e) => s | 1 << e,
                        _ => s,
                    }))
                } else if vs.iter().all(|v| matches!(v, Value::Pair(..))) {
                    let ps: Vec<_> = vs
                        .iter()
                        .filter_map(|v| match v {
                            Value::Pair(a, b) => Some((*a, *b)),
                            _ => None,
                        })
                        .collect();
                    Value::Rel(Rel::from_pairs(n, &ps))
                } else {
                    valset(vs)
                }
            }
            ExprKind::Tuple(es) => {
                let mut vs = Vec::new();
                for a in es {
                    vs.push(self.expr(a, file, env)?);
                }
                Value::Tuple(vs)
            }
            ExprKind::Op1(op, a) => {
                let v = self.expr(a, file, env)?;
                let id = Rel::id_on(n, self.all);
                match (op, v) {
                    (Op1::Plus, Value::Empty) => Value::Empty,
                    (Op1::Star | Op1::Opt, Value::Empty) => Value::Rel(id),
                    (Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, Value::Unv) => Value::Unv,
                    (Op1::Plus, Value::Rel(r)) => Value::Rel(r.closure()),
                    (Op1::Star, Value::Rel(r)) => Value::Rel(r.closure().zip(&id, |a, b| a | b)),
                    (Op1::Opt, Value::Rel(r)) => Value::Rel(r.zip(&id, |a, b| a | b)),
                    (Op1::Inv, Value::Empty) => Value::Empty,
                    (Op1::Inv, Value::Rel(r)) => Value::Rel(r.inverse()),
                    (Op1::Inv, Value::Pair(a, b)) => Value::Pair(b, a),
                    (Op1::Comp, Value::Empty) => Value::Unv,
                    (Op1::Comp, Value::Unv) => Value::Empty,
                    (Op1::Comp, Value::Set(s)) => Value::Set(self.all & !s),
                    (Op1::Comp, Value::Rel(r)) => {
                        Value::Rel(Rel::cartesian(n, self.all, self.all).zip(&r, |a, b| a & !b))
                    }
                    (Op1::Comp, Value::ValSet(v)) if v.iter().all(|t| matches!(t, Value::Tag(_))) => {
                        let Some(Value::Tag(t0)) = v.first() else { unreachable!() };
                        let ty = self.tags.get(t0).cloned().unwrap_or_default();
                        let mut all: Vec<Value> =
                            self.tags.iter().filter(|(_, e)| **e == ty).map(|(t, _)| Value::Tag(t.clone())).collect();
                        all.retain(|t| !v.iter().any(|u| cmp_values(t, u) == Ordering::Equal));
                        valset(all)
                    }
                    (Op1::ToId, Value::Empty) => Value::Empty,
                    (Op1::ToId, Value::Unv) => Value::Rel(id),
                    (Op1::ToId, Value::Set(s)) => Value::Rel(Rel::id_on(n, s)),
                    (op, v) => return self.error(file, sp, format!("operator {op:?} on a {}", v.type_name())),
                }
            }
            ExprKind::Op2(op, a, b) => {
                // herd evaluates `r & (A * B)` without building the product,
                // the same thing.
                let va = self.expr(a, file, env)?;
                // herd stops a sequence at an empty prefix, unevaluated
                // past it (names bound only for page tables, in AArch64's).
                if *op == Op2::Seq && matches!(va, Value::Empty) {
                    return Ok(Value::Empty);
                }
                let vb = self.expr(b, file, env)?;
                self.op2(*op, va, vb, file, sp, a.span, b.span)?
            }
            ExprKind::App(f, a) => {
                let vf = self.expr(f, file, env)?;
                let va = self.expr(a, file, env)?;
                self.apply(vf, va, file, sp)?
            }
            ExprKind::Fun { param, body, .. } => {
                Value::Clo(Rc::new(Closure { param: param.clone(), body: body.clone(), env: env.clone(), file }))
            }
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
                Err(Fail::Catchable(_)) => self.expr(b, file, env)?,
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
                let Value::Tag(t) = v else {
                    return self.error(file, scrutinee.span, format!("matching on a {}", v.type_name()));
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
                let elems: Vec<Value> = match &v {
                    Value::Empty => vec![],
                    Value::Set(s) => (0..n).filter(|i| s >> i & 1 == 1).map(Value::Event).collect(),
                    Value::Rel(r) => r.pairs().into_iter().map(|(a, b)| Value::Pair(a, b)).collect(),
                    Value::ValSet(v) => v.clone(),
                    v => return self.error(file, scrutinee.span, format!("set-matching on a {}", v.type_name())),
                };
                if elems.is_empty() {
                    return self.expr(empty, file, env);
                }
                let rebuild = |vs: &[Value]| -> Value {
                    match &v {
                        Value::Set(_) => Value::Set(vs.iter().fold(0, |s, e| match e {
                            Value::Event(i) => s | 1 << i,
                            _ => s,
                        })),
                        Value::Rel(_) => {
                            let ps: Vec<_> = vs
                                .iter()
                                .filter_map(|e| match e {
                                    Value::Pair(a, b) => Some((*a, *b)),
                                    _ => None,
                                })
                                .collect();
                            Value::Rel(Rel::from_pairs(n, &ps))
                        }
                        _ => valset(vs.to_vec()),
                    }
                };
                match &**clause {
                    SetClause::EltRem(x, xs, body) => {
                        let mut env2 = env.clone();
                        if let Some(x) = x {
                            env2 = env2.bind(x, elems[0].clone());
                        }
                        if let Some(xs) = xs {
                            env2 = env2.bind(xs, rebuild(&elems[1..]));
                        }
                        self.expr(body, file, &env2)?
                    }
                    SetClause::PreEltPost(pre, x, post, body) => {
                        let k = elems.len() / 2;
                        let mut env2 = env.clone();
                        if let Some(p) = pre {
                            env2 = env2.bind(p, rebuild(&elems[..k]));
                        }
                        if let Some(x) = x {
                            env2 = env2.bind(x, elems[k].clone());
                        }
                        if let Some(p) = post {
                            env2 = env2.bind(p, rebuild(&elems[k + 1..]));
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
                self.same(&va, &vb)
            }
            Cond::In(a, b) => {
                let va = self.expr(a, file, env)?;
                let vb = self.expr(b, file, env)?;
                match (&va, &vb) {
                    (Value::Event(e), _) => self.as_set(&vb, file, b.span)? >> e & 1 == 1,
                    (Value::Pair(x, y), _) => self.as_rel(&vb, file, b.span)?.contains(*x, *y),
                    (_, Value::ValSet(vs)) => vs.iter().any(|v| self.same(v, &va)),
                    (_, Value::Empty) => false,
                    _ => return self.error(file, sp, "`in` needs a set"),
                }
            }
            Cond::Subset(a, b) => {
                let va = self.expr(a, file, env)?;
                let vb = self.expr(b, file, env)?;
                match (&va, &vb) {
                    (Value::Rel(_), _) | (_, Value::Rel(_)) => {
                        let ra = self.as_rel(&va, file, a.span)?;
                        let rb = self.as_rel(&vb, file, b.span)?;
                        ra.zip(&rb, |x, y| x & !y).is_empty()
                    }
                    _ => {
                        let sa = self.as_set(&va, file, a.span)?;
                        let sb = self.as_set(&vb, file, b.span)?;
                        sa & !sb == 0
                    }
                }
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn op2(&mut self, op: Op2, a: Value, b: Value, file: usize, sp: Span, sa: Span, sb: Span) -> R<Value> {
        use Value::*;
        let n = self.n();
        let is_set = |v: &Value| matches!(v, Set(_));
        let is_rel = |v: &Value| matches!(v, Rel(_) | Pair(..));
        Ok(match op {
            Op2::Cartesian => {
                let x = self.as_set(&a, file, sa)?;
                let y = self.as_set(&b, file, sb)?;
                Rel(crate::eval::Rel::cartesian(n, x, y))
            }
            Op2::Add => match (a, b) {
                (Unv, _) => return self.error(file, sp, "universe in set ++"),
                (_, Unv) => Unv,
                (Event(e), Empty) => Set(1 << e),
                (Event(e), Set(s)) => Set(s | 1 << e),
                (Pair(x, y), Empty) => Rel(crate::eval::Rel::from_pairs(n, &[(x, y)])),
                (Pair(x, y), Rel(mut r)) => {
                    r.0[x] |= 1 << y;
                    Rel(r)
                }
                (v, Empty) => ValSet(vec![v]),
                (v, ValSet(mut vs)) => {
                    vs.push(v);
                    valset(vs)
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
                    Rel(ra.seq(&rb))
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
                (Unv, Set(s)) => Set(self.all & !s),
                (Unv, Rel(r)) => Rel(crate::eval::Rel::cartesian(n, self.all, self.all).zip(&r, |x, y| x & !y)),
                (Set(x), Set(y)) => Set(match op {
                    Op2::Union => x | y,
                    Op2::Inter => x & y,
                    _ => x & !y,
                }),
                (ref x, ref y) if is_rel(x) && is_rel(y) => {
                    let rx = self.as_rel(x, file, sa)?;
                    let ry = self.as_rel(y, file, sb)?;
                    Rel(rx.zip(&ry, |p, q| match op {
                        Op2::Union => p | q,
                        Op2::Inter => p & q,
                        _ => p & !q,
                    }))
                }
                (ValSet(x), ValSet(y)) => {
                    let inb = |v: &Value, s: &[Value]| s.iter().any(|u| cmp_values(u, v) == Ordering::Equal);
                    match op {
                        Op2::Union => valset(x.into_iter().chain(y).collect()),
                        Op2::Inter => valset(x.into_iter().filter(|v| inb(v, &y)).collect()),
                        _ => valset(x.into_iter().filter(|v| !inb(v, &y)).collect()),
                    }
                }
                (Tag(t), v) | (v, Tag(t)) if matches!(v, ValSet(_) | Tag(_)) => {
                    let mut vs = vec![Tag(t)];
                    let vb = v;
                    let (va, vb) = if matches!(vb, ValSet(_)) {
                        (valset(std::mem::take(&mut vs)), vb)
                    } else {
                        (valset(vs), valset(vec![vb]))
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

    fn seq_operand(&self, v: &Value, file: usize, sp: Span) -> R<Rel> {
        match v {
            Value::Set(s) => Ok(Rel::id_on(self.n(), *s)),
            v => self.as_rel(v, file, sp),
        }
    }

    fn apply(&mut self, f: Value, arg: Value, file: usize, sp: Span) -> R<Value> {
        match f {
            Value::Clo(c) => {
                let env = self.bind_pat(&c.param, arg, c.env.clone(), file, sp)?;
                self.expr(&c.body.clone(), c.file, &env)
            }
            Value::Prim(p) => self.prim(p, arg, file, sp),
            v => self.error(file, sp, format!("a {} is not a function", v.type_name())),
        }
    }

    fn prim(&mut self, p: &'static str, arg: Value, file: usize, sp: Span) -> R<Value> {
        let n = self.n();
        match p {
            // Of nothing, nothing (herd's `emptyset` is `domain 0`).
            "domain" | "range" if matches!(arg, Value::Empty) => Ok(Value::Empty),
            "domain" => Ok(Value::Set(self.as_rel(&arg, file, sp)?.domain())),
            "range" => Ok(Value::Set(self.as_rel(&arg, file, sp)?.range())),
            "fail" => self.error(file, sp, "fail"),
            // The pairs of `r` whose values are page-table entries with one
            // output address (`same-oa`), one of them writable
            // (`at-least-one-writable`): litmus's values are integers, so none.
            "same-oa" | "at-least-one-writable" => {
                self.as_rel(&arg, file, sp)?;
                Ok(Value::Empty)
            }
            "classes-loc" => {
                let s = self.as_set(&arg, file, sp)?;
                let loc = self.as_rel(
                    &Value::Rel(self.x.rels.get("loc").cloned().unwrap_or_else(|| Rel::empty(n))),
                    file,
                    sp,
                )?;
                Ok(self.classes(s, &loc))
            }
            "classes" => {
                let r = self.as_rel(&arg, file, sp)?;
                let s = r.domain() | r.range();
                Ok(self.classes(s, &r))
            }
            "linearisations" => {
                let Value::Tuple(a) = &arg else {
                    return self.error(file, sp, "linearisations takes (set, relation)");
                };
                if a.len() != 2 {
                    return self.error(file, sp, "linearisations takes (set, relation)");
                }
                let s = self.as_set(&a[0], file, sp)?;
                let r = self.as_rel(&a[1], file, sp)?;
                let mut out = Vec::new();
                let mut order = Vec::new();
                self.topos(s, &r, &mut order, &mut out);
                if out.len() > 100_000 {
                    return self.unsupported(file, sp, "more than 100000 linearisations");
                }
                Ok(valset(out.into_iter().map(Value::Rel).collect()))
            }
            other => self.unsupported(file, sp, format!("herd's primitive `{other}`")),
        }
    }

    /// The classes of `s` under `r` seen as an equivalence (events alone
    /// in theirs when `r` says nothing of them).
    fn classes(&self, s: Set, r: &Rel) -> Value {
        let mut left = s;
        let mut out = Vec::new();
        while left != 0 {
            let i = left.trailing_zeros() as usize;
            let class = (r.0[i] | 1 << i) & left;
            out.push(Value::Set(class));
            left &= !class;
        }
        valset(out)
    }

    /// Every total order of `s` that extends `r` (restricted to `s`), each
    /// as a transitive relation.
    fn topos(&self, s: Set, r: &Rel, order: &mut Vec<usize>, out: &mut Vec<Rel>) {
        if out.len() > 100_000 {
            return;
        }
        let placed = order.iter().fold(0 as Set, |m, &e| m | 1 << e);
        let left = s & !placed;
        if left == 0 {
            let mut rel = Rel::empty(self.n());
            for (k, &a) in order.iter().enumerate() {
                for &b in &order[k + 1..] {
                    rel.0[a] |= 1 << b;
                }
            }
            out.push(rel);
            return;
        }
        for e in 0..self.n() {
            if left >> e & 1 == 0 {
                continue;
            }
            // e can go next if no unplaced event must precede it.
            let preds = (0..self.n()).filter(|&p| left >> p & 1 == 1 && p != e && r.contains(p, e)).count();
            if preds == 0 {
                order.push(e);
                self.topos(s, r, order, out);
                order.pop();
            }
        }
    }
}
