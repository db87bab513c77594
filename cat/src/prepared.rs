//! A model prepared once and checked many times: [`Model::prepare`],
//! [`Prepared::check`], [`Prepared::allowed`].
//!
//! A graph explorer asks a model about every execution graph it builds,
//! hundreds of thousands of times per run. [`crate::eval::evaluate`] reads
//! the whole model each time (names looked up by string, functions of
//! `stdlib.cat` applied, values cloned); a [`Prepared`] model does that
//! work once and keeps a graph of relation operations:
//!
//! - **Compiled per shape.** The compiler (`compile.rs`) is the
//!   evaluator run without the data: every set and relation becomes a node
//!   (names resolved to slots, functions and procedures inlined, `try`,
//!   variants and tag `match`es decided, constants folded: `[0]`, `r & (A *
//!   B)` as a row filter, `_ ; r`, …), everything else is evaluated as the
//!   evaluator does. What a model computes depends on which names the
//!   execution gives (`try MFENCE with 0`), so the graph is made for one
//!   *shape* of execution (the names of its sets and relations) and cached;
//!   an explorer gives one shape, and pays for one compilation.
//! - **Coherence given by the caller.** herd's `cos.cat` enumerates every
//!   coherence order (`with co from generate_cos(cobase)`, the product of
//!   each location's linearisations) and the evaluator then keeps the
//!   execution's own; that is most of its time (tens of milliseconds per
//!   execution with several writes per location). When the execution
//!   gives `co`, the compiler recognises that construct (herd's
//!   `cross.cat`, unchanged, its `generate_cos` applied) and binds the given
//!   order (transitively closed) directly, after a guard that says what
//!   the enumeration would have: the given order is one of the candidates
//!   iff on each class of `classes-loc(W)` it is a strict total order
//!   that extends the `cobase` argument and it relates nothing else (else
//!   the same error as the evaluator's, "not one of the model's
//!   candidates"). The one difference: where a location has so many
//!   writes that the evaluator refuses to enumerate (more than 100000
//!   linearisations), the prepared model still answers.
//! - **Relations as rows.** A relation over `n` events is `n` words
//!   (`rows.rs`), `u64` ones up to 64 events and `u128` ones up to
//!   [`MAX_EVENTS`] = 128 (the same code, generic over the word): sequence by OR-ing rows, closure by Warshall over the
//!   events that can be in the middle of a path (none when the relation
//!   is already transitive, as a given `co` is), acyclicity by a
//!   depth-first search on masks (at most `2n` steps). The graph is
//!   lowered to a flat list of instructions over slots; every node has a
//!   slot in a scratch
//!   arena the [`Prepared`] keeps: after the first call of a shape, a call
//!   allocates nothing ([`Prepared::allowed`]; [`Prepared::check`] builds
//!   its [`Verdict`]).
//! - **Scheduled.** Each step (check, guard) has the list of nodes it needs
//!   beyond the earlier steps', so [`Prepared::allowed`] stops at the first
//!   failing check having computed only what the checks so far needed.
//! - **Fed cheaply.** The shape is recognised by comparing names, so an
//!   explorer may keep one [`Execution`] and update it in place (`n`, the
//!   masks in `sets`, the rows of each relation in `rels`, one row per
//!   event): then neither building the execution nor checking it
//!   allocates. A [`Prepared`] is `Send`: prepare it on the thread that
//!   checks, or move it there.
//!
//! What the compiler cannot hold (a `match` over the events of a set,
//! `forall` over data, `classes`, an `if` on data, an execution without
//! `co` for a model that generates it) makes that shape fall back to
//! `evaluate`, never to another answer ([`Prepared::fallback`] says why).
//! Either way the verdicts are `evaluate`'s (tested on random executions
//! for herd's stock models, `cat/tests/prepared.rs`).

use std::ops::Range;

use crate::ast::{TestKind, TestType};
use crate::compile::{compile, CoGuard, Kind, Op, Program, Shape, Step, Subject, N};
use crate::eval::{evaluate, CheckResult, Execution, Options, Rel, Set, Verdict, MAX_EVENTS};
use crate::model::{CatError, Model};
use crate::rows::{self, Word};

/// A model ready to check many executions: see the [module](self) doc.
pub struct Prepared {
    model: Model,
    opts: Options,
    shapes: Vec<Compiled>,
    last: usize,
    scratch: Scratch,
}

/// What the prepared model knows of one of its checks, for one shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckInfo {
    /// As in [`CheckResult::name`].
    pub name: String,
    pub ty: TestType,
    /// Whether [`Prepared::allowed_partial`] runs it: a failure on an
    /// execution is a failure on all its extensions.
    pub monotone: bool,
}

struct Compiled {
    shape: Shape,
    code: Code,
}

enum Code {
    Graph(Box<Graph>),
    Fallback(String),
}

/// One operation of a plan, with its operands' places: a set's index in
/// the set arena, a relation's first row in the relation arena.
#[derive(Debug, Clone, Copy)]
enum Ins {
    SetZero(u32),
    SetAll(u32),
    SetUnion(u32, u32, u32),
    SetInter(u32, u32, u32),
    SetDiff(u32, u32, u32),
    Domain(u32, u32),
    Range(u32, u32),
    SetCopy(u32, u32),
    RelZero(u32),
    RelId(u32),
    RelFull(u32),
    IdOn(u32, u32),
    Cart(u32, u32, u32),
    RelUnion(u32, u32, u32),
    RelInter(u32, u32, u32),
    RelDiff(u32, u32, u32),
    Seq(u32, u32, u32),
    Inv(u32, u32),
    Plus(u32, u32),
    Restrict(u32, u32, u32, u32),
    RelCopy(u32, u32),
    /// A `let rec` group's rounds.
    Fix(u16),
}

/// Steps with the items each needs first.
struct Plan {
    steps: Vec<(usize, Range<usize>)>,
    items: Vec<Ins>,
}

pub(crate) struct Graph {
    pub(crate) prog: Program,
    /// Per node: its row block in the relation arena (relations only).
    slot: Vec<u32>,
    rel_slots: usize,
    /// Inputs read, by place in the execution's maps, sorted.
    set_inputs: Vec<(u16, N)>,
    rel_inputs: Vec<(u16, N)>,
    /// Per group, per body: the nodes that depend on the group's names, in
    /// order, to compute again each round.
    rounds: Vec<Vec<Vec<Ins>>>,
    /// Per `FixOut` node: its group's variable.
    out_var: Vec<N>,
    full: Plan,
    partial: Plan,
    /// Per step: whether a later step can make the verdict an error.
    err_after: Vec<bool>,
    pub(crate) monotone: Vec<bool>,
}

/// The arenas: one of 64-bit rows for executions of at most 64 events,
/// one of [`Set`] rows for larger ones (the same layout: a set per node,
/// [`MAX_EVENTS`] rows per relation slot).
#[derive(Default)]
struct Scratch {
    narrow: Arena<u64>,
    wide: Arena<Set>,
}

#[derive(Default)]
struct Arena<W> {
    sets: Vec<W>,
    rels: Vec<W>,
}

impl Model {
    /// Prepares the model for many checks under `opts` (see
    /// [`crate::prepared`]). The graph for a shape of execution is built at
    /// its first check; the shape herd's x86 executions have (the sets
    /// `F IW LFENCE MFENCE R SFENCE W X`, the relations `co int loc po rf
    /// same-instance`) is built here.
    pub fn prepare(&self, opts: &Options) -> Result<Prepared, CatError> {
        let mut p = Prepared {
            model: self.clone(),
            opts: opts.clone(),
            shapes: Vec::new(),
            last: 0,
            scratch: Scratch::default(),
        };
        let x86 = Shape {
            sets: ["F", "IW", "LFENCE", "MFENCE", "R", "SFENCE", "W", "X"].map(String::from).to_vec(),
            rels: ["co", "int", "loc", "po", "rf", "same-instance"].map(String::from).to_vec(),
            absent: Vec::new(),
        };
        p.add(x86);
        Ok(p)
    }
}

fn shape_of(x: &Execution) -> Shape {
    Shape {
        sets: x.sets.keys().cloned().collect(),
        rels: x.rels.keys().cloned().collect(),
        absent: x.absent.iter().cloned().collect(),
    }
}

fn same_shape(s: &Shape, x: &Execution) -> bool {
    s.sets.len() == x.sets.len()
        && s.rels.len() == x.rels.len()
        && s.sets.iter().zip(x.sets.keys()).all(|(a, b)| a == b)
        && s.rels.iter().zip(x.rels.keys()).all(|(a, b)| a == b)
        && s.absent.len() == x.absent.len()
        && s.absent.iter().zip(&x.absent).all(|(a, b)| a == b)
}

impl Prepared {
    /// The model prepared.
    pub fn model(&self) -> &Model {
        &self.model
    }

    fn add(&mut self, shape: Shape) -> usize {
        let code = match compile(&self.model, &self.opts, &shape).and_then(Graph::new) {
            Ok(g) => Code::Graph(Box::new(g)),
            Err(why) => Code::Fallback(why),
        };
        self.shapes.push(Compiled { shape, code });
        self.shapes.len() - 1
    }

    fn shape(&mut self, x: &Execution) -> usize {
        if self.shapes.get(self.last).is_some_and(|c| same_shape(&c.shape, x)) {
            return self.last;
        }
        let i = match self.shapes.iter().position(|c| same_shape(&c.shape, x)) {
            Some(i) => i,
            None => self.add(shape_of(x)),
        };
        self.last = i;
        i
    }

    fn valid(x: &Execution) -> Result<(), CatError> {
        if let Some(e) = x.bad_event {
            return Err(CatError::Execution(format!(
                "event {e} does not fit an execution of {} events (at most {MAX_EVENTS})",
                x.n
            )));
        }
        if x.n > MAX_EVENTS {
            return Err(CatError::Execution(format!("{} events (at most {MAX_EVENTS})", x.n)));
        }
        Ok(())
    }

    /// Why executions shaped as `x` are evaluated by [`evaluate`] rather
    /// than by the compiled graph, if they are.
    pub fn fallback(&mut self, x: &Execution) -> Option<String> {
        let i = self.shape(x);
        match &self.shapes[i].code {
            Code::Graph(_) => None,
            Code::Fallback(why) => Some(why.clone()),
        }
    }

    /// The compiled graph for executions shaped as `x`, as text (one node
    /// a line, then the steps with the nodes each computes first): for
    /// reading what the compiler made of a model.
    pub fn describe(&mut self, x: &Execution) -> String {
        use std::fmt::Write;
        let i = self.shape(x);
        let shape = &self.shapes[i].shape;
        let g = match &self.shapes[i].code {
            Code::Graph(g) => g,
            Code::Fallback(why) => return format!("evaluated by `evaluate`: {why}\n"),
        };
        let mut out = String::new();
        for (k, node) in g.prog.nodes.iter().enumerate() {
            let name = match node.op {
                Op::SetIn(p) => format!("  ({})", shape.sets[p as usize]),
                Op::RelIn(p) => format!("  ({})", shape.rels[p as usize]),
                _ => String::new(),
            };
            let _ = writeln!(out, "n{k} = {:?}{name}", node.op);
        }
        for (k, items) in &g.full.steps {
            let what = match &g.prog.steps[*k] {
                Step::Test(t) => {
                    format!("{:?} {:?} {}{:?} as {}", t.ty, t.kind, if t.negated { "~" } else { "" }, t.subject, t.name)
                }
                Step::CoGuard(c) => format!("co guard {c:?}"),
                Step::Error(e) => format!("error {}", e.error()),
            };
            let mono = if g.monotone[*k] { " (monotone)" } else { "" };
            let _ = writeln!(out, "step {k}: {what}{mono}\n  after {:?}", &g.full.items[items.clone()]);
        }
        out
    }

    /// What `evaluate(model, x, opts)` says, computed on the graph.
    pub fn check(&mut self, x: &Execution) -> Result<Verdict, CatError> {
        Self::valid(x)?;
        let i = self.shape(x);
        let g = match &self.shapes[i].code {
            Code::Graph(g) => g,
            Code::Fallback(_) => return evaluate(&self.model, x, &self.opts),
        };
        let mut v = Verdict::default();
        g.run(&g.full, &mut self.scratch, x, Mode::Verdict(&mut v))?;
        Ok(v)
    }

    /// Why the model forbids `x` ([`crate::eval::explain`]).
    pub fn explain(&self, x: &Execution) -> Result<Vec<crate::eval::Failed>, CatError> {
        crate::eval::explain(&self.model, x, &self.opts)
    }

    /// The orders the model's axioms impose on `x` ([`crate::eval::acyclic_relations`]).
    pub fn acyclic_relations(&self, x: &Execution) -> Result<Vec<crate::eval::Order>, CatError> {
        crate::eval::acyclic_relations(&self.model, x, &self.opts)
    }

    /// The order every co must extend where the model builds its co's
    /// (`with co from generate_cos(b)`: `b`, per location), for `x`'s rf
    /// and static relations (`x`'s co is not read); `None` where the model
    /// has no such step or is not compiled. A co that does not extend it
    /// is no candidate ([`CatError::NotACandidate`]): an explorer need not
    /// build it. `b` is computed under an empty co and under the total
    /// relation; where it reads co before binding it (`co0`'s final
    /// writes, `FW`, are derived from co here) the two must agree, and `b`
    /// is then taken to bound every co between them (it does where `b` is
    /// monotone or antitone in co: FW's term holds only "the last write is
    /// last"); where they differ, `None`.
    pub fn co_base(&mut self, x: &Execution) -> Option<Rel> {
        Self::valid(x).ok()?;
        let i = self.shape(x);
        let Code::Graph(g) = &self.shapes[i].code else { return None };
        let mut y = x.clone();
        y.rels.insert("co".into(), Rel::empty(x.n));
        let base = g.co_base(&mut self.scratch, &y)?;
        let every = if x.n >= Set::BITS as usize { Set::MAX } else { (1 << x.n) - 1 };
        y.rels.insert("co".into(), Rel(vec![every; x.n]));
        (g.co_base(&mut self.scratch, &y)? == base).then_some(base)
    }

    /// `check(x)?.allowed()`, stopping at the first failing check (unless
    /// a later step could still make it an error) and allocating nothing
    /// once the shape is compiled.
    pub fn allowed(&mut self, x: &Execution) -> Result<bool, CatError> {
        Self::valid(x)?;
        let i = self.shape(x);
        let g = match &self.shapes[i].code {
            Code::Graph(g) => g,
            Code::Fallback(_) => return evaluate(&self.model, x, &self.opts).map(|v| v.allowed()),
        };
        g.run(&g.full, &mut self.scratch, x, Mode::Allowed)
    }

    /// The checks of the model for executions shaped as `x`, in order.
    pub fn checks(&mut self, x: &Execution) -> Vec<CheckInfo> {
        let i = self.shape(x);
        match &self.shapes[i].code {
            Code::Graph(g) => g
                .prog
                .steps
                .iter()
                .enumerate()
                .filter_map(|(k, s)| match s {
                    Step::Test(t) => Some(CheckInfo { name: t.name.clone(), ty: t.ty, monotone: g.monotone[k] }),
                    _ => None,
                })
                .collect(),
            Code::Fallback(_) => Vec::new(),
        }
    }

    /// Whether every check that decides [`Prepared::allowed`] (the plain
    /// ones) is monotone for executions shaped as `x`: then no event added
    /// to a forbidden execution makes it allowed. False where the shape
    /// falls back to the evaluator (not analysed).
    pub fn checks_monotone(&mut self, x: &Execution) -> bool {
        let i = self.shape(x);
        matches!(self.shapes[i].code, Code::Graph(_))
            && self.checks(x).iter().filter(|c| c.ty == TestType::Check).all(|c| c.monotone)
    }

    /// The names of the checks [`Prepared::allowed_partial`] runs for
    /// executions shaped as `x`.
    pub fn monotone_checks(&mut self, x: &Execution) -> Vec<String> {
        self.checks(x).into_iter().filter(|c| c.monotone).map(|c| c.name).collect()
    }

    /// Does a graph explorer's maximal extension of an execution shaped as
    /// `x` keep every check [`Prepared::allowed_partial`] runs? The new
    /// event is last in its thread's program order and belongs to the sets
    /// `member` names (by name). An `access` is read by nothing, and if a
    /// write is coherence-last, if a read reads the coherence-last write
    /// of a location that old events access; else it is a fence
    /// ([`crate::extend`]). False where
    /// not known (a shape that falls back to the evaluator, `let rec`).
    pub fn extension_kept(&mut self, x: &Execution, member: impl Fn(&str) -> bool, access: bool) -> bool {
        let i = self.shape(x);
        let Compiled { shape, code } = &self.shapes[i];
        match code {
            Code::Graph(g) => {
                let member: Vec<bool> = shape.sets.iter().map(|k| member(k)).collect();
                crate::extend::kept(&g.prog, shape, &g.monotone, &member, access)
            }
            Code::Fallback(_) => false,
        }
    }

    /// Whether `x`, a partial execution, passes the checks whose failure
    /// carries over to every extension of it (see [`crate::monotone`]):
    /// `Ok(false)` means no extension of `x` is allowed. The guard on a
    /// given `co` and the model's own errors are run too; nothing else
    /// (flags, `undefined_unless`, other checks). A shape that falls back
    /// to `evaluate` prunes nothing (`Ok(true)`).
    pub fn allowed_partial(&mut self, x: &Execution) -> Result<bool, CatError> {
        Self::valid(x)?;
        let i = self.shape(x);
        match &self.shapes[i].code {
            Code::Graph(g) => g.run(&g.partial, &mut self.scratch, x, Mode::Allowed),
            Code::Fallback(_) => Ok(true),
        }
    }
}

enum Mode<'v> {
    Verdict(&'v mut Verdict),
    Allowed,
}

impl Graph {
    fn new(prog: Program) -> Result<Graph, String> {
        let nn = prog.nodes.len();
        let mut slot = vec![u32::MAX; nn];
        let mut rel_slots = 0usize;
        for (i, node) in prog.nodes.iter().enumerate() {
            if node.kind == Kind::Rel {
                slot[i] = rel_slots as u32;
                rel_slots += 1;
            }
        }
        // The groups each node depends on (through their names).
        let mut dep = vec![0u64; nn];
        let mut out_var = vec![u32::MAX; nn];
        for (g, grp) in prog.groups.iter().enumerate() {
            for (o, v) in grp.outs.iter().zip(&grp.vars) {
                out_var[*o as usize] = *v;
            }
            let _ = g;
        }
        for i in 0..nn {
            dep[i] = match prog.nodes[i].op {
                Op::FixVar(g, _) => 1 << g,
                Op::FixOut(g, _) => {
                    let grp = &prog.groups[g as usize];
                    grp.bodies.iter().fold(0, |d, &b| d | dep[b as usize]) & !(1 << g)
                }
                op => op.operands().fold(0, |d, o| d | dep[o as usize]),
            };
            if dep[i].count_ones() > 1 {
                return Err("a `let rec` inside another".into());
            }
        }
        if prog.nodes.iter().enumerate().any(|(i, n)| matches!(n.op, Op::FixOut(..)) && dep[i] != 0) {
            return Err("a `let rec` inside another".into());
        }
        // Per group and body: its round nodes, in order.
        let mut round_nodes = Vec::new();
        for (g, grp) in prog.groups.iter().enumerate() {
            let mut per = Vec::new();
            for &b in &grp.bodies {
                let mut seen = vec![false; nn];
                let mut stack = vec![b];
                let mut list = Vec::new();
                while let Some(x) = stack.pop() {
                    if seen[x as usize] || dep[x as usize] >> g & 1 == 0 {
                        continue;
                    }
                    seen[x as usize] = true;
                    if !matches!(prog.nodes[x as usize].op, Op::FixVar(..)) {
                        list.push(x);
                    }
                    stack.extend(prog.nodes[x as usize].op.operands());
                }
                list.sort_unstable();
                per.push(list);
            }
            round_nodes.push(per);
        }
        let mut set_inputs = Vec::new();
        let mut rel_inputs = Vec::new();
        for (i, node) in prog.nodes.iter().enumerate() {
            match node.op {
                Op::SetIn(p) => set_inputs.push((p, i as N)),
                Op::RelIn(p) => rel_inputs.push((p, i as N)),
                _ => {}
            }
        }
        set_inputs.sort_unstable();
        rel_inputs.sort_unstable();
        let monotone = crate::monotone::classify(&prog);
        let all: Vec<usize> = (0..prog.steps.len()).collect();
        let partial: Vec<usize> = (0..prog.steps.len())
            .filter(|&k| match &prog.steps[k] {
                Step::Test(_) => monotone[k],
                Step::CoGuard(_) | Step::Error(_) => true,
            })
            .collect();
        let mut err_after = vec![false; prog.steps.len()];
        let mut later = false;
        for k in (0..prog.steps.len()).rev() {
            err_after[k] = later;
            later |= match &prog.steps[k] {
                Step::Test(t) => t.ty == TestType::Assert,
                Step::CoGuard(_) | Step::Error(_) => true,
            };
        }
        let mut g = Graph {
            slot,
            rel_slots,
            set_inputs,
            rel_inputs,
            rounds: Vec::new(),
            out_var,
            full: Plan { steps: Vec::new(), items: Vec::new() },
            partial: Plan { steps: Vec::new(), items: Vec::new() },
            err_after,
            monotone,
            prog,
        };
        g.full = g.plan(&all, &dep);
        g.partial = g.plan(&partial, &dep);
        g.rounds = round_nodes
            .iter()
            .map(|per| per.iter().map(|l| l.iter().map(|&x| g.lower(x)).collect()).collect())
            .collect();
        Ok(g)
    }

    fn roots(step: &Step) -> Vec<N> {
        match step {
            Step::Test(t) => match t.subject {
                Subject::Node(n) => vec![n],
                _ => vec![],
            },
            Step::CoGuard(c) => [Some(c.co), Some(c.pco), Some(c.w), c.loc].into_iter().flatten().collect(),
            Step::Error(_) => vec![],
        }
    }

    fn plan(&self, steps: &[usize], dep: &[u64]) -> Plan {
        let nodes = &self.prog.nodes;
        let mut done = vec![false; nodes.len()];
        let mut group_done = vec![false; self.prog.groups.len()];
        let mut plan = Plan { steps: Vec::new(), items: Vec::new() };
        for &k in steps {
            let mut need = Vec::new();
            let mut stack = Self::roots(&self.prog.steps[k]);
            let mut groups_needed = Vec::new();
            while let Some(x) = stack.pop() {
                let xi = x as usize;
                if done[xi] {
                    continue;
                }
                done[xi] = true;
                match nodes[xi].op {
                    Op::FixOut(g, _) => {
                        need.push(x);
                        if !groups_needed.contains(&g) && !group_done[g as usize] {
                            groups_needed.push(g);
                            // The bodies' nodes that do not change with
                            // the rounds, computed before them.
                            let mut inner: Vec<N> = self.prog.groups[g as usize].bodies.clone();
                            let mut seen = vec![false; nodes.len()];
                            while let Some(y) = inner.pop() {
                                let yi = y as usize;
                                if seen[yi] {
                                    continue;
                                }
                                seen[yi] = true;
                                if dep[yi] >> g & 1 == 1 {
                                    inner.extend(nodes[yi].op.operands());
                                } else {
                                    stack.push(y);
                                }
                            }
                        }
                    }
                    op => {
                        need.push(x);
                        stack.extend(op.operands());
                    }
                }
            }
            need.sort_unstable();
            let start = plan.items.len();
            for x in need {
                match nodes[x as usize].op {
                    Op::SetIn(_) | Op::RelIn(_) | Op::FixVar(..) => {}
                    Op::FixOut(g, _) => {
                        if !group_done[g as usize] {
                            group_done[g as usize] = true;
                            plan.items.push(Ins::Fix(g));
                        }
                        plan.items.push(self.lower(x));
                    }
                    _ => plan.items.push(self.lower(x)),
                }
            }
            plan.steps.push((k, start..plan.items.len()));
        }
        plan
    }

    fn rows<'s, W: Word>(&self, s: &'s Arena<W>, x: N, n: usize) -> &'s [W] {
        let o = self.slot[x as usize] as usize * MAX_EVENTS;
        &s.rels[o..o + n]
    }

    fn load<W: Word>(&self, s: &mut Arena<W>, x: &Execution) {
        let n = x.n;
        if s.sets.len() < self.prog.nodes.len() {
            s.sets.resize(self.prog.nodes.len(), W::ZERO);
        }
        if s.rels.len() < self.rel_slots * MAX_EVENTS {
            s.rels.resize(self.rel_slots * MAX_EVENTS, W::ZERO);
        }
        let mut want = self.set_inputs.iter().peekable();
        for (p, v) in x.sets.values().enumerate() {
            while let Some(&&(q, node)) = want.peek() {
                if q as usize != p {
                    break;
                }
                s.sets[node as usize] = W::from_set(*v);
                want.next();
            }
        }
        let mut want = self.rel_inputs.iter().peekable();
        for (p, r) in x.rels.values().enumerate() {
            while let Some(&&(q, node)) = want.peek() {
                if q as usize != p {
                    break;
                }
                let o = self.slot[node as usize] as usize * MAX_EVENTS;
                let m = r.0.len().min(n);
                for (d, &row) in s.rels[o..o + m].iter_mut().zip(&r.0[..m]) {
                    *d = W::from_set(row);
                }
                s.rels[o + m..o + n].fill(W::ZERO);
                want.next();
            }
        }
    }

    /// The instruction that computes node `x`.
    fn lower(&self, x: N) -> Ins {
        let xi = x as usize;
        let node = self.prog.nodes[xi];
        let r = |y: N| self.slot[y as usize] * MAX_EVENTS as u32;
        let o = if node.kind == Kind::Rel { r(x) } else { x };
        match node.op {
            Op::SetZero => Ins::SetZero(o),
            Op::SetAll => Ins::SetAll(o),
            Op::SetUnion(a, b) => Ins::SetUnion(o, a, b),
            Op::SetInter(a, b) => Ins::SetInter(o, a, b),
            Op::SetDiff(a, b) => Ins::SetDiff(o, a, b),
            Op::Domain(a) => Ins::Domain(o, r(a)),
            Op::Range(a) => Ins::Range(o, r(a)),
            Op::FixOut(..) if node.kind == Kind::Set => Ins::SetCopy(o, self.out_var[xi]),
            Op::FixOut(..) => Ins::RelCopy(o, r(self.out_var[xi])),
            Op::RelZero => Ins::RelZero(o),
            Op::RelId => Ins::RelId(o),
            Op::RelFull => Ins::RelFull(o),
            Op::IdOn(a) => Ins::IdOn(o, a),
            Op::Cart(a, b) => Ins::Cart(o, a, b),
            Op::RelUnion(a, b) => Ins::RelUnion(o, r(a), r(b)),
            Op::RelInter(a, b) => Ins::RelInter(o, r(a), r(b)),
            Op::RelDiff(a, b) => Ins::RelDiff(o, r(a), r(b)),
            Op::Seq(a, b) => Ins::Seq(o, r(a), r(b)),
            Op::Inv(a) => Ins::Inv(o, r(a)),
            Op::Plus(a) => Ins::Plus(o, r(a)),
            Op::Restrict(a, b, c) => Ins::Restrict(o, r(a), b, c),
            Op::SetIn(_) | Op::RelIn(_) | Op::FixVar(..) => unreachable!("not computed: {:?}", node.op),
        }
    }

    /// Runs one instruction (operands are always before the result in the
    /// arena).
    #[inline]
    fn exec<W: Word>(&self, s: &mut Arena<W>, ins: Ins, n: usize, all: W) -> Result<(), CatError> {
        let sets = &mut s.sets;
        let rels = &mut s.rels;
        let set = |sets: &[W], a: u32| sets[a as usize];
        // The result's rows, and the rows before them (the operands).
        #[inline]
        fn split<W>(rels: &mut [W], o: u32, n: usize) -> (&[W], &mut [W]) {
            let (lo, hi) = rels.split_at_mut(o as usize);
            (lo, &mut hi[..n])
        }
        let split = |rels, o| split(rels, o, n);
        #[inline]
        fn rows_at<W>(lo: &[W], a: u32, n: usize) -> &[W] {
            &lo[a as usize..a as usize + n]
        }
        let rows = |lo, a| rows_at(lo, a, n);
        match ins {
            Ins::SetZero(o) => sets[o as usize] = W::ZERO,
            Ins::SetAll(o) => sets[o as usize] = all,
            Ins::SetUnion(o, a, b) => sets[o as usize] = set(sets, a) | set(sets, b),
            Ins::SetInter(o, a, b) => sets[o as usize] = set(sets, a) & set(sets, b),
            Ins::SetDiff(o, a, b) => sets[o as usize] = set(sets, a) & !set(sets, b),
            Ins::SetCopy(o, a) => sets[o as usize] = set(sets, a),
            Ins::Domain(o, a) => sets[o as usize] = rows::domain(rows(rels, a)),
            Ins::Range(o, a) => sets[o as usize] = rows::range(rows(rels, a)),
            Ins::RelZero(o) => rels[o as usize..o as usize + n].fill(W::ZERO),
            Ins::RelId(o) => {
                for (i, row) in rels[o as usize..o as usize + n].iter_mut().enumerate() {
                    *row = W::bit(i);
                }
            }
            Ins::RelFull(o) => rels[o as usize..o as usize + n].fill(all),
            Ins::IdOn(o, a) => {
                let a = set(sets, a);
                for (i, row) in rels[o as usize..o as usize + n].iter_mut().enumerate() {
                    *row = a & W::bit(i);
                }
            }
            Ins::Cart(o, a, b) => {
                let (a, b) = (set(sets, a), set(sets, b));
                for (i, row) in rels[o as usize..o as usize + n].iter_mut().enumerate() {
                    *row = if a.has(i) { b } else { W::ZERO };
                }
            }
            Ins::RelUnion(o, a, b) => {
                let (lo, out) = split(rels, o);
                for ((o, &p), &q) in out.iter_mut().zip(rows(lo, a)).zip(rows(lo, b)) {
                    *o = p | q;
                }
            }
            Ins::RelInter(o, a, b) => {
                let (lo, out) = split(rels, o);
                for ((o, &p), &q) in out.iter_mut().zip(rows(lo, a)).zip(rows(lo, b)) {
                    *o = p & q;
                }
            }
            Ins::RelDiff(o, a, b) => {
                let (lo, out) = split(rels, o);
                for ((o, &p), &q) in out.iter_mut().zip(rows(lo, a)).zip(rows(lo, b)) {
                    *o = p & !q;
                }
            }
            Ins::Seq(o, a, b) => {
                let (lo, out) = split(rels, o);
                rows::seq(out, rows(lo, a), rows(lo, b));
            }
            Ins::Inv(o, a) => {
                let (lo, out) = split(rels, o);
                rows::inverse(out, rows(lo, a));
            }
            Ins::Plus(o, a) => {
                let (lo, out) = split(rels, o);
                out.copy_from_slice(rows(lo, a));
                if !rows::is_transitive(out) {
                    rows::close(out);
                }
            }
            Ins::Restrict(o, a, b, c) => {
                let (b, c) = (set(sets, b), set(sets, c));
                let (lo, out) = split(rels, o);
                for (i, (o, &p)) in out.iter_mut().zip(rows(lo, a)).enumerate() {
                    *o = if b.has(i) { p & c } else { W::ZERO };
                }
            }
            Ins::RelCopy(o, a) => rels.copy_within(a as usize..a as usize + n, o as usize),
            Ins::Fix(g) => self.fix(s, g, n, all)?,
        }
        Ok(())
    }

    fn same_value<W: Word>(&self, s: &Arena<W>, a: N, b: N, n: usize) -> bool {
        if self.prog.nodes[a as usize].kind == Kind::Set {
            s.sets[a as usize] == s.sets[b as usize]
        } else {
            self.rows(s, a, n) == self.rows(s, b, n)
        }
    }

    fn copy_value<W: Word>(&self, s: &mut Arena<W>, from: N, to: N, n: usize) {
        if self.prog.nodes[to as usize].kind == Kind::Set {
            s.sets[to as usize] = s.sets[from as usize];
        } else {
            let f = self.slot[from as usize] as usize * MAX_EVENTS;
            let t = self.slot[to as usize] as usize * MAX_EVENTS;
            s.rels.copy_within(f..f + n, t);
        }
    }

    /// A `let rec` group's rounds, as the evaluator runs them.
    fn fix<W: Word>(&self, s: &mut Arena<W>, g: u16, n: usize, all: W) -> Result<(), CatError> {
        let grp = &self.prog.groups[g as usize];
        for &v in &grp.vars {
            if self.prog.nodes[v as usize].kind == Kind::Set {
                s.sets[v as usize] = W::ZERO;
            } else {
                let o = self.slot[v as usize] as usize * MAX_EVENTS;
                s.rels[o..o + n].fill(W::ZERO);
            }
        }
        for round in 0.. {
            if round > 10_000 {
                return Err(CatError::Eval(grp.diag.clone()));
            }
            let mut changed = false;
            for (i, (&v, &b)) in grp.vars.iter().zip(&grp.bodies).enumerate() {
                for &ins in &self.rounds[g as usize][i] {
                    self.exec(s, ins, n, all)?;
                }
                if !self.same_value(s, v, b, n) {
                    self.copy_value(s, b, v, n);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Ok(())
    }

    /// The first co guard's base for `x` ([`Prepared::co_base`]).
    fn co_base(&self, s: &mut Scratch, x: &Execution) -> Option<Rel> {
        if x.n <= u64::BITS as usize {
            self.co_base_on(&mut s.narrow, x)
        } else {
            self.co_base_on(&mut s.wide, x)
        }
    }

    fn co_base_on<W: Word>(&self, s: &mut Arena<W>, x: &Execution) -> Option<Rel> {
        let (n, plan) = (x.n, &self.full);
        let all = rows::all::<W>(n);
        self.load(s, x);
        for (k, items) in &plan.steps {
            for &ins in &plan.items[items.clone()] {
                self.exec(s, ins, n, all).ok()?;
            }
            if let Step::CoGuard(c) = &self.prog.steps[*k] {
                let to_set = |w: W| rows::bits(w).fold(0 as Set, |a, j| a | 1 << j);
                return Some(Rel(self.rows(s, c.pco, n).iter().map(|&w| to_set(w)).collect()));
            }
        }
        None
    }

    fn guard<W: Word>(&self, s: &Arena<W>, c: &CoGuard, n: usize) -> bool {
        let co = self.rows(s, c.co, n);
        let pco = self.rows(s, c.pco, n);
        let w = s.sets[c.w as usize];
        let loc = c.loc.map(|l| self.rows(s, l, n));
        // classes-loc(W), as the evaluator makes them.
        let mut left = w;
        let mut covered = W::ZERO;
        while left != W::ZERO {
            let i = left.trailing_zeros() as usize;
            let same = loc.and_then(|l| l.get(i)).copied().unwrap_or(W::ZERO);
            let class = (same | W::bit(i)) & left;
            left &= !class;
            covered |= class;
            // The sizes of the rows seen so far (0 to the class's size - 1).
            let mut counts = W::ZERO;
            for j in rows::bits(class) {
                let Some(&row) = co.get(j) else { return false };
                if row & !class != W::ZERO || row.has(j) {
                    return false;
                }
                let need = pco.get(j).copied().unwrap_or(W::ZERO) & class & !W::bit(j);
                if need & !row != W::ZERO {
                    return false;
                }
                let k = (row & class).count_ones() as usize;
                if counts.has(k) {
                    return false;
                }
                counts |= W::bit(k);
            }
        }
        co.iter().enumerate().all(|(i, &row)| covered.has(i) || row == W::ZERO)
    }

    /// Runs `plan` on `x`: on 64-bit rows when `x` has at most 64 events,
    /// on [`Set`] rows otherwise.
    fn run(&self, plan: &Plan, s: &mut Scratch, x: &Execution, mode: Mode) -> Result<bool, CatError> {
        if x.n <= u64::BITS as usize {
            self.run_on(plan, &mut s.narrow, x, mode)
        } else {
            self.run_on(plan, &mut s.wide, x, mode)
        }
    }

    fn run_on<W: Word>(&self, plan: &Plan, s: &mut Arena<W>, x: &Execution, mut mode: Mode) -> Result<bool, CatError> {
        let n = x.n;
        let all = rows::all::<W>(n);
        self.load(s, x);
        let mut failed = false;
        for (k, items) in &plan.steps {
            for &ins in &plan.items[items.clone()] {
                self.exec(s, ins, n, all)?;
            }
            match &self.prog.steps[*k] {
                Step::Error(e) => return Err(e.error()),
                Step::CoGuard(c) => {
                    if !self.guard(s, c, n) {
                        return Err(CatError::NotACandidate(c.diag.clone()));
                    }
                }
                Step::Test(t) => {
                    let ok = match t.subject {
                        Subject::Static(b) => b,
                        Subject::NoEvents => n == 0,
                        Subject::Node(y) => {
                            if self.prog.nodes[y as usize].kind == Kind::Set {
                                s.sets[y as usize] == W::ZERO
                            } else {
                                let r = self.rows(s, y, n);
                                match t.kind {
                                    TestKind::Empty => rows::is_empty(r),
                                    TestKind::Acyclic => rows::is_acyclic(r),
                                    TestKind::Irreflexive => rows::is_irreflexive(r),
                                }
                            }
                        }
                    };
                    let holds = ok != t.negated;
                    match t.ty {
                        TestType::Assert if !holds => {
                            return Err(CatError::Eval(t.assert.clone().expect("an assert's diagnostic")));
                        }
                        TestType::Check if !holds => {
                            failed = true;
                            if matches!(mode, Mode::Allowed) && !self.err_after[*k] {
                                return Ok(false);
                            }
                        }
                        _ => {}
                    }
                    if let Mode::Verdict(v) = &mut mode {
                        match t.ty {
                            TestType::Flag if holds => v.flags.push(t.name.clone()),
                            TestType::UndefinedUnless if !holds => {
                                v.undefined = true;
                                // What it found, for a report to point at (as `eval` keeps it).
                                let found: Vec<(usize, usize)> = match t.subject {
                                    Subject::Node(y) if self.prog.nodes[y as usize].kind == Kind::Set => {
                                        rows::bits(s.sets[y as usize]).map(|e| (e, e)).collect()
                                    }
                                    Subject::Node(y) => self
                                        .rows(s, y, n)
                                        .iter()
                                        .enumerate()
                                        .flat_map(|(a, &row)| rows::bits(row).map(move |b| (a, b)))
                                        .collect(),
                                    _ => Vec::new(),
                                };
                                v.undefined_by.push((t.name.clone(), found));
                            }
                            _ => {}
                        }
                        v.checks.push(CheckResult { name: t.name.clone(), ty: t.ty, holds });
                    }
                }
            }
        }
        Ok(!failed)
    }
}
