//! Semantic analysis of the native dialect: name resolution, arity,
//! recursion, constant bounds, unreachable code, unused names. Produces
//! diagnostics and the symbol table; lowering runs only on a clean result.
//! An unknown name close to exactly one declared name of its kind gets
//! "did you mean" (help and quick fix).

use super::ast::*;
use crate::diagnostic::Diagnostic;
use crate::ir::MAX_LOOP_BOUND;
use crate::nesting::{MAX_NESTING, NESTING_CODE};

/// The most statements and expressions one body's calls may inline (all its
/// calls together, each callee with its own calls inlined): about what a
/// check can still explore, and far below what exhausts memory (19
/// functions each calling the next twice inline half a million calls: 25 s
/// and a gigabyte before this limit).
pub const MAX_INLINED: u64 = 100_000;
use crate::span::Span;
use crate::symbols::{SymbolKind, Symbols};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};

pub struct SharedInfo {
    pub sym: usize,
    pub len: Option<i64>,
    /// Declared `atomic`.
    pub atomic: bool,
}

pub struct FnInfo<'a> {
    pub sym: usize,
    pub def: &'a FnDef,
    pub returns_value: bool,
}

pub struct Sema<'a> {
    src: &'a str,
    pub diags: Vec<Diagnostic>,
    pub symbols: Symbols,
    pub shared: HashMap<&'a str, SharedInfo>,
    pub fns: HashMap<&'a str, FnInfo<'a>>,
    pub threads: Vec<(&'a ThreadDef, usize)>,
    /// Per thread: register name -> symbol.
    thread_regs: Vec<HashMap<String, usize>>,
    reads: HashSet<usize>,
    used: HashSet<usize>,
    /// Work left for "did you mean" suggestions (candidates looked at plus
    /// edit-distance cells), so many unknown names among many declared ones
    /// stay linear: past it, unknown names get no suggestion.
    suggest_budget: Cell<u64>,
}

/// Shared cells (scalars and array elements) a test may declare in all.
pub const MAX_CELLS: i64 = 1 << 18;

/// About 50 ms of suggestions in a release build.
const SUGGEST_BUDGET: u64 = 20_000_000;

struct Body {
    owner_name: String,
    scopes: Vec<HashMap<String, usize>>,
    /// Every name `let` anywhere in this body, for "read before its let".
    later_lets: HashSet<String>,
    /// Registers by name in this body (sibling blocks share a register).
    regs: HashMap<String, usize>,
    returns: Vec<(Span, bool)>,
    /// Counters of `for` loops: registers the body may read, not assign.
    counters: HashSet<usize>,
}

impl Body {
    fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }
}

fn const_value(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Bool(b) => Some(*b as i64),
        ExprKind::Unary(UnOp::Neg, a) => const_value(a).map(i64::wrapping_neg),
        _ => None,
    }
}

impl<'a> Sema<'a> {
    /// `quiet_unused`: skip unused-name warnings (the file has syntax errors,
    /// so uses may have been lost).
    pub fn run(src: &'a str, file: &'a File, quiet_unused: bool) -> Sema<'a> {
        let mut s = Sema {
            src,
            diags: Vec::new(),
            symbols: Symbols::default(),
            shared: HashMap::new(),
            fns: HashMap::new(),
            threads: Vec::new(),
            thread_regs: Vec::new(),
            reads: HashSet::new(),
            used: HashSet::new(),
            suggest_budget: Cell::new(SUGGEST_BUDGET),
        };
        s.declare(file);
        s.check_calls(file);
        let fns: Vec<&'a FnDef> =
            file.items.iter().filter_map(|i| if let Item::Fn(f) = i { Some(f) } else { None }).collect();
        for f in fns {
            // A duplicate definition is not analysed twice.
            if s.fns.get(f.name.name.as_str()).is_some_and(|i| std::ptr::eq(i.def, f)) {
                s.check_fn(f);
            }
        }
        for t in 0..s.threads.len() {
            let def = s.threads[t].0;
            s.check_thread(t, def);
        }
        let mut finals = file.items.iter().filter_map(|i| if let Item::Final(f) = i { Some(f) } else { None });
        if let Some(f) = finals.next() {
            s.check_final(&f.cond);
        }
        for extra in finals {
            s.diags.push(
                Diagnostic::error("E0210", extra.span, "a test has at most one final condition")
                    .with_label("second final condition"),
            );
        }
        if !quiet_unused {
            s.warn_unused();
        }
        s
    }

    fn declare(&mut self, file: &'a File) {
        let mut first: HashMap<&'a str, Span> = HashMap::new();
        let mut dup = |this: &mut Self, id: &'a Ident, what: &str| -> bool {
            if let Some(prev) = first.get(id.name.as_str()) {
                this.diags.push(
                    Diagnostic::error("E0201", id.span, format!("`{}` is declared twice", id.name))
                        .with_label(format!("second declaration of this {what}"))
                        .with_related(*prev, "first declared here"),
                );
                true
            } else {
                first.insert(id.name.as_str(), id.span);
                false
            }
        };
        // Every state the checker explores holds all of memory: a cap on the
        // total keeps a short file from asking for gigabytes.
        let mut cells: i64 = 0;
        let mut over = false;
        for item in &file.items {
            match item {
                Item::Shared(d) => {
                    for v in &d.vars {
                        if dup(self, &v.name, "shared location") {
                            continue;
                        }
                        self.check_var_decl(v);
                        cells += v.len.map_or(1, |n| n.value.clamp(1, 1 << 16));
                        if cells > MAX_CELLS && !over {
                            over = true;
                            self.diags.push(
                                Diagnostic::error(
                                    "E0223",
                                    v.span,
                                    format!("shared memory too large: more than {MAX_CELLS} cells in all"),
                                )
                                .with_label("the locations declared up to here exceed the limit"),
                            );
                        }
                        let word = if d.atomic { "atomic" } else { "shared" };
                        let (kind, detail) = match &v.len {
                            Some(n) => {
                                (SymbolKind::Array, format!("{word} {}[{}]{}", v.name.name, n.value, init_text(v)))
                            }
                            None => (SymbolKind::Shared, format!("{word} {}{}", v.name.name, init_text(v))),
                        };
                        let sym = self.symbols.add(&v.name.name, kind, v.name.span, detail, None, v.span);
                        let info = SharedInfo { sym, len: v.len.map(|n| n.value), atomic: d.atomic };
                        self.shared.insert(&v.name.name, info);
                    }
                }
                Item::Fn(f) => {
                    if dup(self, &f.name, "function") {
                        continue;
                    }
                    let params: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
                    let detail = format!("fn {}({})", f.name.name, params.join(", "));
                    let sym = self.symbols.add(&f.name.name, SymbolKind::Function, f.name.span, detail, None, f.span);
                    let mut returns_value = false;
                    f.body.walk(&mut |s| {
                        if let StmtKind::Return(Some(_)) = s.kind {
                            returns_value = true;
                        }
                    });
                    self.fns.insert(&f.name.name, FnInfo { sym, def: f, returns_value });
                }
                Item::Thread(t) => {
                    if dup(self, &t.name, "thread") {
                        continue;
                    }
                    let sym = self.symbols.add(
                        &t.name.name,
                        SymbolKind::Thread,
                        t.name.span,
                        format!("thread {}", t.name.name),
                        None,
                        t.span,
                    );
                    self.threads.push((t, sym));
                    self.thread_regs.push(HashMap::new());
                }
                Item::Final(_) => {}
            }
        }
        if self.threads.is_empty() && !file.items.is_empty() {
            let span = file.header.as_ref().map(|h| h.span).unwrap_or_default();
            self.diags.push(Diagnostic::warning("W0201", span, "this test has no threads"));
        }
    }

    fn check_var_decl(&mut self, v: &VarDecl) {
        match (&v.len, &v.init) {
            (Some(n), init) => {
                if n.value < 1 || n.value > 1 << 16 {
                    self.diags.push(
                        Diagnostic::error("E0202", n.span, format!("array length {} is out of range", n.value))
                            .with_label("expected a length between 1 and 65536"),
                    );
                }
                match init {
                    Some(Init::Array(vals, span)) if vals.len() as i64 > n.value => {
                        self.diags.push(
                            Diagnostic::error(
                                "E0203",
                                *span,
                                format!("{} initial values for an array of length {}", vals.len(), n.value),
                            )
                            .with_label("too many values"),
                        );
                    }
                    Some(Init::Scalar(i)) => self.diags.push(
                        Diagnostic::error(
                            "E0204",
                            i.span,
                            format!("array `{}` needs `{{ ... }}` initial values", v.name.name),
                        )
                        .with_help(format!("write `{}[{}] = {{{}}}`", v.name.name, n.value, i.value)),
                    ),
                    _ => {}
                }
            }
            (None, Some(Init::Array(_, span))) => self.diags.push(
                Diagnostic::error(
                    "E0204",
                    *span,
                    format!("`{}` is a scalar but has a list of initial values", v.name.name),
                )
                .with_help(format!("declare it as an array: `{}[N] = {{...}}`", v.name.name)),
            ),
            _ => {}
        }
    }

    /// Report each call that closes a cycle in the call graph, and each call
    /// where inlining the callee would nest deeper than the limit (lowering
    /// inlines recursively). Linear in the program: strongly connected
    /// components (Tarjan), then inlined depths callee first.
    fn check_calls(&mut self, file: &'a File) {
        // Functions in file order; a duplicate definition is not a node.
        let fns: Vec<&'a FnDef> = file
            .items
            .iter()
            .filter_map(|i| if let Item::Fn(f) = i { Some(f) } else { None })
            .filter(|f| self.fns.get(f.name.name.as_str()).is_some_and(|i| std::ptr::eq(i.def, *f)))
            .collect();
        let index: HashMap<&'a str, usize> = fns.iter().enumerate().map(|(i, f)| (f.name.name.as_str(), i)).collect();
        let bodies: Vec<BodyCalls<'a>> = fns.iter().map(|f| body_calls(&f.body)).collect();
        let edges: Vec<Vec<(usize, &CallSite<'a>)>> = bodies
            .iter()
            .map(|b| b.calls.iter().filter_map(|c| index.get(c.callee).map(|&j| (j, c))).collect())
            .collect();
        let comp = crate::digraph::components(&edges, |e| e.0);
        // The components' members, sinks first.
        let mut order: Vec<Vec<usize>> = vec![Vec::new(); comp.iter().max().map_or(0, |&c| c + 1)];
        for (i, &c) in comp.iter().enumerate() {
            order[c].push(i);
        }
        let size: Vec<usize> = order.iter().map(Vec::len).collect();
        let cyclic = |i: usize, j: usize| comp[i] == comp[j] && (i == j || size[comp[i]] > 1);

        // Recursion: every call inside a cycle.
        for (i, out) in edges.iter().enumerate() {
            for &(j, call) in out {
                if !cyclic(i, j) {
                    continue;
                }
                let callee = fns[j].name.name.as_str();
                let label = if size[comp[j]] <= 64 {
                    // A shortest path j → … → i within the component.
                    let path = (j != i)
                        .then(|| {
                            let succ =
                                |k: usize| edges[k].iter().map(|e| (e.0, ())).filter(|&(l, _)| comp[l] == comp[j]);
                            crate::digraph::shortest_path(fns.len(), j, succ, |_, w, _| w == i)
                        })
                        .flatten()
                        .unwrap_or_default();
                    let names: Vec<&str> =
                        path.iter().map(|&(k, _)| k).chain([i]).map(|k| fns[k].name.name.as_str()).collect();
                    format!("recursion: {} → {callee}", names.join(" → "))
                } else {
                    format!("recursion through a cycle of {} functions", size[comp[j]])
                };
                self.diags.push(
                    Diagnostic::error("E0205", call.span, format!("recursive call of `{callee}`"))
                        .with_label(label)
                        .with_help("functions are inlined at their call sites, so they cannot recurse"),
                );
            }
        }

        // Inlined depth of each function: its own, or a call's depth plus the
        // callee's. Components come sinks first, so callees are done first.
        let mut depth = vec![0u32; fns.len()];
        for members in &order {
            for &i in members {
                depth[i] = edges[i]
                    .iter()
                    .filter(|&&(j, _)| !cyclic(i, j))
                    .map(|&(j, c)| inlined(c.depth, depth[j]))
                    .fold(bodies[i].height, u32::max);
            }
        }
        // Inlined size of each function (its own nodes, and each call's
        // callee's), callees first: calls that each call the next twice
        // double it per level.
        let (mut size, mut copied) = (vec![0u64; fns.len()], vec![0u64; fns.len()]);
        for members in &order {
            for &i in members {
                copied[i] = edges[i]
                    .iter()
                    .filter(|&&(j, _)| !cyclic(i, j))
                    .fold(0u64, |acc, &(j, _)| acc.saturating_add(size[j]));
                size[i] = copied[i].saturating_add(bodies[i].nodes);
            }
        }
        let threads: Vec<BodyCalls<'a>> = self.threads.iter().map(|(t, _)| body_calls(&t.body)).collect();
        // Functions some thread inlines (an unused one copies nothing).
        let mut used = vec![false; fns.len()];
        let mut todo: Vec<usize> =
            threads.iter().flat_map(|b| &b.calls).filter_map(|c| index.get(c.callee).copied()).collect();
        while let Some(i) = todo.pop() {
            if !std::mem::replace(&mut used[i], true) {
                todo.extend(edges[i].iter().map(|e| e.0));
            }
        }
        let calls = bodies.iter().enumerate().map(|(i, b)| (Some(i), b)).chain(threads.iter().map(|b| (None, b)));
        for (caller, body) in calls {
            // The first call past the limit says so (the others would
            // repeat it), unless the callee's own calls are past it: they
            // say so inside it.
            let mut inlined_here = 0u64;
            for c in &body.calls {
                let Some(&j) = index.get(c.callee) else { continue };
                if caller.is_some_and(|i| cyclic(i, j)) {
                    continue;
                }
                let before = inlined_here;
                inlined_here = inlined_here.saturating_add(size[j]);
                let inlined_at_all = caller.is_none_or(|i| used[i]);
                if inlined_at_all && before <= MAX_INLINED && inlined_here > MAX_INLINED && copied[j] <= MAX_INLINED {
                    self.diags.push(
                        Diagnostic::error(
                            "E0233",
                            c.span,
                            format!("the calls here inline more than {MAX_INLINED} statements and expressions"),
                        )
                        .with_label(format!("with this call of `{}`, {inlined_here} in all", c.callee))
                        .with_help("functions are inlined at each call: call them fewer times"),
                    );
                }
                if copied[j] > MAX_INLINED || depth[j] > MAX_NESTING {
                    continue; // reported inside the callee
                }
                if inlined(c.depth, depth[j]) > MAX_NESTING {
                    self.diags.push(
                        Diagnostic::error(NESTING_CODE, c.span, format!("nesting deeper than {MAX_NESTING} levels"))
                            .with_label(format!(
                                "`{}` is inlined here, at depth {}, and nests {} levels",
                                c.callee, c.depth, depth[j]
                            ))
                            .with_help("functions are inlined at their call sites: call it from a shallower place"),
                    );
                }
            }
        }
    }

    fn check_fn(&mut self, f: &'a FnDef) {
        let mut body = Body {
            owner_name: f.name.name.clone(),
            scopes: vec![HashMap::new()],
            later_lets: collect_lets(&f.body),
            regs: HashMap::new(),
            returns: Vec::new(),
            counters: HashSet::new(),
        };
        for p in &f.params {
            if body.scopes[0].contains_key(&p.name) {
                self.diags.push(
                    Diagnostic::error("E0201", p.span, format!("parameter `{}` is declared twice", p.name))
                        .with_label("second declaration"),
                );
                continue;
            }
            self.check_shadowing(p);
            let sym = self.symbols.add(
                &p.name,
                SymbolKind::Param,
                p.span,
                format!("parameter {} of fn {}", p.name, f.name.name),
                Some(f.name.name.clone()),
                p.span,
            );
            body.scopes[0].insert(p.name.clone(), sym);
        }
        self.block(&mut body, &f.body, false);
        let with: Vec<_> = body.returns.iter().filter(|r| r.1).collect();
        let without: Vec<_> = body.returns.iter().filter(|r| !r.1).collect();
        if let (Some(w), Some(wo)) = (with.first(), without.first()) {
            self.diags.push(
                Diagnostic::error("E0206", wo.0, format!("`{}` returns a value elsewhere", f.name.name))
                    .with_label("this `return` has no value")
                    .with_related(w.0, "returns a value here"),
            );
        }
    }

    fn check_thread(&mut self, t: usize, def: &'a ThreadDef) {
        let mut body = Body {
            owner_name: def.name.name.clone(),
            scopes: vec![HashMap::new()],
            later_lets: collect_lets(&def.body),
            regs: HashMap::new(),
            returns: Vec::new(),
            counters: HashSet::new(),
        };
        self.block(&mut body, &def.body, false);
        for (span, with_value) in body.returns {
            if with_value {
                self.diags.push(
                    Diagnostic::error("E0207", span, "a thread cannot return a value")
                        .with_help("use `return;` to end the thread"),
                );
            }
        }
        self.thread_regs[t] = body.regs;
    }

    fn check_shadowing(&mut self, id: &Ident) {
        if let Some(info) = self.shared.get(id.name.as_str()) {
            let def = self.symbols.list[info.sym].def;
            self.diags.push(
                Diagnostic::error("E0208", id.span, format!("`{}` is a shared location", id.name))
                    .with_label("a register cannot reuse a shared location's name")
                    .with_related(def, "declared shared here"),
            );
        } else if let Some(info) = self.fns.get(id.name.as_str()) {
            let def = self.symbols.list[info.sym].def;
            self.diags.push(
                Diagnostic::error("E0208", id.span, format!("`{}` is a function", id.name))
                    .with_related(def, "defined here"),
            );
        }
    }

    fn block(&mut self, body: &mut Body, b: &'a Block, push: bool) {
        if push {
            body.scopes.push(HashMap::new());
        }
        let mut returned: Option<Span> = None;
        let mut reported = false;
        for s in &b.stmts {
            if let (Some(r), false) = (returned, reported) {
                // One report per block: the first statement that never runs.
                self.diags.push(
                    Diagnostic::error("E0209", s.span, "unreachable statement after `return`")
                        .with_label("this statement never runs")
                        .with_related(r, "the block returns here"),
                );
                reported = true;
            }
            self.stmt(body, s);
            if let (StmtKind::Return(_), None) = (&s.kind, returned) {
                returned = Some(s.span);
            }
        }
        if push {
            body.scopes.pop();
        }
    }

    /// Declare register `name` (a `let` or a `for` counter) in the innermost
    /// scope; `None` when a visible name of the same spelling forbids it.
    fn declare_register(&mut self, body: &mut Body, name: &Ident, stmt: Span, twice: &str) -> Option<usize> {
        self.check_shadowing(name);
        if let Some(prev) = body.lookup(&name.name) {
            let def = self.symbols.list[prev].def;
            self.diags.push(
                Diagnostic::error("E0201", name.span, format!("`{}` is declared twice", name.name))
                    .with_label(twice.to_string())
                    .with_related(def, "first declared here"),
            );
            return None;
        }
        let sym = match body.regs.get(&name.name) {
            // A sibling block's register of the same name: the same register.
            Some(&sym) => {
                self.symbols.reference(sym, name.span);
                sym
            }
            None => {
                let text = stmt.text(self.src).trim_end_matches(';').trim();
                // A loop's header, not its whole body, is what a hover shows.
                let text = text.split('{').next().unwrap_or(text).trim_end();
                let sym = self.symbols.add(
                    &name.name,
                    SymbolKind::Register,
                    name.span,
                    format!("{text}  (register of {})", body.owner_name),
                    Some(body.owner_name.clone()),
                    stmt,
                );
                body.regs.insert(name.name.clone(), sym);
                sym
            }
        };
        body.scopes.last_mut().unwrap().insert(name.name.clone(), sym);
        Some(sym)
    }

    /// A loop's count: `bound N`, or a `for` range's length (`range`: its
    /// ends). A constant from 1 to [`MAX_LOOP_BOUND`].
    fn loop_count(&mut self, value: Option<i64>, span: Span, range: Option<(i64, i64)>) {
        let max = MAX_LOOP_BOUND as i64;
        let (what, label) = match range {
            Some((lo, hi)) => (format!("the range {lo}..{hi}"), format!("runs {} times", value.unwrap_or(0))),
            None => (format!("loop bound {}", value.unwrap_or(0)), format!("expected 1 to {max}")),
        };
        let d = match value {
            None => Diagnostic::error(
                "E0230",
                span,
                format!("{} must be a constant", if range.is_some() { "a range's end" } else { "a loop bound" }),
            )
            .with_label("not an integer literal")
            .with_help("a loop's own count is fixed before the program runs: write a number"),
            Some(v) if v < 1 => Diagnostic::error("E0231", span, format!("{what}: the loop body could never run"))
                .with_label(label)
                .with_help(format!("a loop runs from 1 to {max} times")),
            Some(v) if v > max => {
                Diagnostic::error("E0231", span, format!("{what} is too big: at most {max} iterations"))
                    .with_label(label)
                    .with_help("every iteration is explored: a larger count would never finish")
            }
            Some(_) => return,
        };
        self.diags.push(d);
    }

    fn stmt(&mut self, body: &mut Body, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Let { name, value } => {
                self.expr(body, value, true);
                self.declare_register(body, name, s.span, "this `let` redeclares a register still in scope");
            }
            StmtKind::Assign { target, value } => {
                self.expr(body, value, true);
                self.lvalue(body, target, true);
                self.check_order(target.order, false, true);
            }
            StmtKind::If { cond, then, els } => {
                self.expr(body, cond, true);
                self.block(body, then, true);
                match els.as_deref() {
                    Some(Else::Block(b)) => self.block(body, b, true),
                    Some(Else::If(s)) => self.stmt(body, s),
                    None => {}
                }
            }
            StmtKind::While { cond, bound, body: b } => {
                self.expr(body, cond, true);
                if let Some(e) = bound {
                    // Resolved like any expression (names in it count as used), then judged.
                    self.expr(body, e, true);
                    self.loop_count(const_value(e), e.span, None);
                }
                self.block(body, b, true);
            }
            StmtKind::For { var, from, to, body: b } => {
                let (lo, hi) = (const_value(from), const_value(to));
                for (e, v) in [(from, lo), (to, hi)] {
                    self.expr(body, e, true);
                    if v.is_none() {
                        self.loop_count(None, e.span, Some((0, 0)));
                    }
                }
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    self.loop_count(Some(hi.saturating_sub(lo)), from.span.join(to.span), Some((lo, hi)));
                }
                // The counter lives in the loop's own scope, around the body's.
                body.scopes.push(HashMap::new());
                if let Some(sym) =
                    self.declare_register(body, var, s.span, "the counter redeclares a register still in scope")
                {
                    body.counters.insert(sym);
                }
                self.block(body, b, true);
                body.scopes.pop();
            }
            StmtKind::Await(e) => {
                self.expr(body, e, true);
                e.walk(&mut |x| {
                    let bad = match &x.kind {
                        ExprKind::Xchg(..) | ExprKind::FetchAdd(..) => Some("an atomic that writes"),
                        ExprKind::Call(..) => Some("a function call"),
                        _ => None,
                    };
                    if let Some(what) = bad {
                        self.diags.push(
                            Diagnostic::error("E0211", x.span, format!("`await` condition contains {what}"))
                                .with_label("an `await` may be evaluated many times: its condition must only read")
                                .with_help("use plain loads or `cas`, or `lock(m)` for a test-and-set lock"),
                        );
                    }
                });
            }
            StmtKind::Assert(e) | StmtKind::Assume(e) => self.expr(body, e, true),
            StmtKind::Fence(_) | StmtKind::Error => {}
            StmtKind::Lock(m) | StmtKind::Unlock(m) => match self.shared.get(m.name.as_str()) {
                Some(info) if info.len.is_none() => {
                    let sym = info.sym;
                    self.symbols.reference(sym, m.span);
                    self.used.insert(sym);
                }
                Some(_) => self.diags.push(Diagnostic::error(
                    "E0212",
                    m.span,
                    format!("`{}` is an array; a lock is a shared scalar", m.name),
                )),
                None => {
                    let d = Diagnostic::error("E0213", m.span, format!("unknown lock `{}`", m.name))
                        .with_label("not a shared location");
                    let scalars = self.shared.iter().filter(|(_, i)| i.len.is_none()).map(|(k, _)| *k);
                    let d = match similar(&self.suggest_budget, scalars, &m.name) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")).with_suggestion(m.span, s),
                        None => d.with_help(format!("declare it: `shared {} = 0;`", m.name)),
                    };
                    self.diags.push(d);
                }
            },
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.expr(body, e, true);
                }
                body.returns.push((s.span, e.is_some()));
            }
            StmtKind::Expr(e) => {
                self.expr(body, e, false);
                if !matches!(
                    e.kind,
                    ExprKind::Call(..)
                        | ExprKind::Cas(..)
                        | ExprKind::Xchg(..)
                        | ExprKind::FetchAdd(..)
                        | ExprKind::Error
                ) {
                    self.diags.push(
                        Diagnostic::warning("W0202", e.span, "this expression statement has no effect")
                            .with_help("assign it to a register with `let r = ...;`"),
                    );
                }
            }
        }
    }

    /// Resolve an assignment target or an atomic's location.
    /// An access's memory order: one C11 allows on a load (`reads`), a
    /// store (`writes`) or a read-modify-write (both).
    fn check_order(&mut self, order: Option<MemOrder>, reads: bool, writes: bool) {
        let Some(o) = order else { return };
        let bad = match (reads, writes) {
            (true, false) => o.labels.intersects(Labels::MO_REL.union(Labels::MO_ACQ_REL)).then_some("a load"),
            (false, true) => o.labels.intersects(Labels::MO_ACQ.union(Labels::MO_ACQ_REL)).then_some("a store"),
            _ => None,
        };
        if let Some(what) = bad {
            let name = o.labels.memory_order().unwrap_or("?");
            let (fix, orders) = if reads {
                ("acquire", "`relaxed`, `acquire` or `seq_cst`")
            } else {
                ("release", "`relaxed`, `release` or `seq_cst`")
            };
            self.diags.push(
                Diagnostic::error("E0235", o.span, format!("{what} cannot be `{name}`"))
                    .with_label(format!("{what} takes {orders}, as in C11"))
                    .with_suggestion(o.span, fix),
            );
        }
    }

    /// `@order` on something that is no access to shared memory.
    fn not_an_access(&mut self, o: MemOrder, what: &str) {
        self.diags.push(
            Diagnostic::error("E0234", o.span, format!("{what} has no memory order"))
                .with_label("only an access to a shared location takes `@order`"),
        );
    }

    fn lvalue(&mut self, body: &mut Body, lv: &'a LValue, assign: bool) {
        if let Some(i) = &lv.index {
            self.expr(body, i, true);
        }
        let name = &lv.name;
        if let Some(sym) = body.lookup(&name.name) {
            if let (Some(o), true) = (lv.order, assign) {
                self.not_an_access(o, &format!("register `{}`", name.name));
            }
            self.symbols.reference(sym, name.span);
            if assign && body.counters.contains(&sym) {
                let def = self.symbols.list[sym].def;
                self.diags.push(
                    Diagnostic::error("E0232", name.span, format!("`{}` is the counter of a `for` loop", name.name))
                        .with_label("a counted loop runs exactly its count: its counter cannot be assigned")
                        .with_related(def, "the counter")
                        .with_help("use `while (cond) bound N { ... }` for a loop that steps its own register"),
                );
            }
            if !assign {
                self.diags.push(
                    Diagnostic::error(
                        "E0214",
                        name.span,
                        format!("`{}` is a register, not a shared location", name.name),
                    )
                    .with_label("atomic operations work on shared memory"),
                );
            } else if lv.index.is_some() {
                self.diags.push(Diagnostic::error(
                    "E0215",
                    lv.span,
                    format!("register `{}` cannot be indexed", name.name),
                ));
            }
            return;
        }
        if let Some(info) = self.shared.get(name.name.as_str()) {
            let (sym, len) = (info.sym, info.len);
            self.symbols.reference(sym, name.span);
            self.used.insert(sym);
            self.check_index(name, len, lv.index.as_deref(), lv.span);
            return;
        }
        if body.later_lets.contains(&name.name) {
            self.diags.push(
                Diagnostic::error("E0216", name.span, format!("assignment to `{}` before its `let`", name.name))
                    .with_label("the register is declared later")
                    .with_help("move the `let` before this statement"),
            );
        } else {
            let d = Diagnostic::error("E0217", name.span, format!("assignment to undeclared name `{}`", name.name))
                .with_label("not a register or shared location");
            let names =
                body.scopes.iter().flat_map(|s| s.keys().map(|k| k.as_str())).chain(self.shared.keys().copied());
            let d = match similar(&self.suggest_budget, names, &name.name) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")).with_suggestion(name.span, s),
                None => d.with_help(format!("declare it: `let {0} = ...;` or `shared {0} = 0;`", name.name)),
            };
            self.diags.push(d);
        }
    }

    fn check_index(&mut self, name: &Ident, len: Option<i64>, index: Option<&Expr>, span: Span) {
        match (len, index) {
            (Some(n), Some(i)) => {
                if let Some(v) = const_value(i) {
                    if v < 0 || v >= n {
                        self.diags.push(
                            Diagnostic::error("E0218", i.span, format!("index {v} is out of bounds"))
                                .with_label(format!("`{}` has length {n}", name.name)),
                        );
                    }
                }
            }
            (Some(n), None) => self.diags.push(
                Diagnostic::error("E0219", span, format!("array `{}` is used without an index", name.name))
                    .with_help(format!("write `{}[i]` with 0 <= i < {n}", name.name)),
            ),
            (None, Some(i)) => self.diags.push(Diagnostic::error(
                "E0215",
                i.span,
                format!("`{}` is a scalar and cannot be indexed", name.name),
            )),
            (None, None) => {}
        }
    }

    fn read_name(&mut self, body: &mut Body, name: &Ident, index: Option<&'a Expr>, span: Span) {
        if let Some(sym) = body.lookup(&name.name) {
            self.symbols.reference(sym, name.span);
            self.reads.insert(sym);
            if index.is_some() {
                self.diags.push(Diagnostic::error(
                    "E0215",
                    span,
                    format!("register `{}` cannot be indexed", name.name),
                ));
            }
            return;
        }
        if let Some(info) = self.shared.get(name.name.as_str()) {
            let (sym, len) = (info.sym, info.len);
            self.symbols.reference(sym, name.span);
            self.used.insert(sym);
            self.check_index(name, len, index, span);
            return;
        }
        if let Some(info) = self.fns.get(name.name.as_str()) {
            let sym = info.sym;
            self.symbols.reference(sym, name.span);
            self.diags.push(
                Diagnostic::error("E0220", name.span, format!("`{}` is a function", name.name))
                    .with_help(format!("call it: `{}(...)`", name.name)),
            );
            return;
        }
        if body.later_lets.contains(&name.name) {
            let d = Diagnostic::error("E0216", name.span, format!("register `{}` is read before its `let`", name.name))
                .with_label("not declared yet here");
            self.diags.push(d.with_help("move the `let` before this use"));
        } else {
            let mut d = Diagnostic::error("E0221", name.span, format!("unknown name `{}`", name.name))
                .with_label("not a register, shared location or function");
            if let Some(similar) = self.similar_name(body, &name.name) {
                d = d.with_help(format!("did you mean `{similar}`?")).with_suggestion(name.span, similar);
            }
            self.diags.push(d);
        }
    }

    fn similar_name(&self, body: &Body, name: &str) -> Option<String> {
        let candidates = body
            .scopes
            .iter()
            .flat_map(|s| s.keys().map(|k| k.as_str()))
            .chain(self.shared.keys().copied())
            .chain(self.fns.keys().copied());
        similar(&self.suggest_budget, candidates, name).map(str::to_string)
    }

    /// The one candidate nearest to `name` within `limit` edits.
    fn closest<'c>(&self, candidates: impl Iterator<Item = &'c str>, name: &str, limit: usize) -> Option<&'c str> {
        closest(&self.suggest_budget, candidates, name, limit)
    }

    fn expr(&mut self, body: &mut Body, e: &'a Expr, value_used: bool) {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Error => {}
            ExprKind::Var(name) => self.read_name(body, name, None, e.span),
            ExprKind::Index(name, i) => {
                self.expr(body, i, true);
                self.read_name(body, name, Some(i), e.span);
            }
            ExprKind::ThreadReg(t, r) => {
                self.diags.push(
                    Diagnostic::error(
                        "E0222",
                        t.span.join(r.span),
                        format!("`{}:{}` outside the final condition", t.name, r.name),
                    )
                    .with_help(
                        "`THREAD:reg` names a register of another thread's final state; use it in `exists`/`forall`",
                    ),
                );
            }
            ExprKind::Unary(_, a) => self.expr(body, a, true),
            ExprKind::Binary(_, a, b) => {
                self.expr(body, a, true);
                self.expr(body, b, true);
            }
            ExprKind::Call(f, args) => {
                for a in args {
                    self.expr(body, a, true);
                }
                match self.fns.get(f.name.as_str()) {
                    Some(info) => {
                        let (sym, def, returns_value) = (info.sym, info.def, info.returns_value);
                        self.symbols.reference(sym, f.span);
                        self.used.insert(sym);
                        if def.params.len() != args.len() {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0223",
                                    e.span,
                                    format!(
                                        "`{}` takes {} argument{} but {} {} given",
                                        f.name,
                                        def.params.len(),
                                        if def.params.len() == 1 { "" } else { "s" },
                                        args.len(),
                                        if args.len() == 1 { "was" } else { "were" }
                                    ),
                                )
                                .with_related(def.name.span, "defined here"),
                            );
                        }
                        if value_used && !returns_value {
                            self.diags.push(
                                Diagnostic::error("E0224", e.span, format!("`{}` does not return a value", f.name))
                                    .with_related(def.name.span, "defined here"),
                            );
                        }
                    }
                    None => {
                        let mut d = Diagnostic::error("E0225", f.span, format!("unknown function `{}`", f.name));
                        let similar = if f.name.chars().count() > 2 {
                            self.closest(self.fns.keys().copied(), &f.name, 2)
                        } else {
                            None
                        };
                        if let Some(s) = similar {
                            d = d.with_help(format!("did you mean `{s}`?")).with_suggestion(f.span, s);
                        }
                        self.diags.push(d);
                    }
                }
            }
            ExprKind::Cas(lv, a, b) => {
                self.lvalue(body, lv, false);
                self.expr(body, a, true);
                self.expr(body, b, true);
            }
            ExprKind::Xchg(lv, a) | ExprKind::FetchAdd(lv, a) => {
                self.lvalue(body, lv, false);
                self.expr(body, a, true);
            }
            ExprKind::Ordered(inner, o) => {
                self.expr(body, inner, true);
                match &inner.kind {
                    ExprKind::Var(n) | ExprKind::Index(n, _) if body.lookup(&n.name).is_some() => {
                        self.not_an_access(*o, &format!("register `{}`", n.name))
                    }
                    ExprKind::Var(_) | ExprKind::Index(..) => self.check_order(Some(*o), true, false),
                    _ => self.not_an_access(*o, "this expression"),
                }
            }
        }
        let _ = value_used;
    }

    fn check_final(&mut self, e: &'a Expr) {
        let mut by_name: HashMap<&'a str, usize> = HashMap::new();
        for (i, (d, _)) in self.threads.iter().enumerate() {
            by_name.entry(d.name.name.as_str()).or_insert(i);
        }
        e.walk(&mut |x| match &x.kind {
            ExprKind::ThreadReg(t, r) => {
                let thread = by_name
                    .get(t.name.as_str())
                    .copied()
                    .or_else(|| t.name.parse::<usize>().ok().filter(|&i| i < self.threads.len()));
                match thread {
                    None => {
                        let d = Diagnostic::error("E0226", t.span, format!("no thread `{}`", t.name));
                        let names = self.threads.iter().map(|(d, _)| d.name.name.as_str());
                        self.diags.push(match similar(&self.suggest_budget, names, &t.name) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")).with_suggestion(t.span, s),
                            None => d.with_help(format!(
                                "threads are: {}{}",
                                self.threads
                                    .iter()
                                    .take(16)
                                    .map(|(d, _)| d.name.name.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                if self.threads.len() > 16 { ", …" } else { "" }
                            )),
                        });
                    }
                    Some(ti) => {
                        self.symbols.reference(self.threads[ti].1, t.span);
                        match self.thread_regs[ti].get(&r.name) {
                            Some(&sym) => {
                                self.symbols.reference(sym, r.span);
                                self.reads.insert(sym);
                            }
                            None => {
                                let d = Diagnostic::error(
                                    "E0227",
                                    r.span,
                                    format!("thread `{}` has no register `{}`", self.threads[ti].0.name.name, r.name),
                                )
                                .with_label("no `let` of this name in the thread");
                                let regs = self.thread_regs[ti].keys().map(String::as_str);
                                self.diags.push(match similar(&self.suggest_budget, regs, &r.name) {
                                    Some(s) => d.with_help(format!("did you mean `{s}`?")).with_suggestion(r.span, s),
                                    None => d,
                                });
                            }
                        }
                    }
                }
            }
            ExprKind::Var(name) | ExprKind::Index(name, _) => {
                let index = if let ExprKind::Index(_, i) = &x.kind { Some(&**i) } else { None };
                match self.shared.get(name.name.as_str()) {
                    Some(info) => {
                        let (sym, len) = (info.sym, info.len);
                        self.symbols.reference(sym, name.span);
                        self.used.insert(sym);
                        self.check_index(name, len, index, x.span);
                        if let Some(i) = index {
                            if const_value(i).is_none() {
                                self.diags.push(Diagnostic::error(
                                    "E0228",
                                    i.span,
                                    "an index in the final condition must be a constant",
                                ));
                            }
                        }
                    }
                    None => {
                        let d =
                            Diagnostic::error("E0221", name.span, format!("unknown shared location `{}`", name.name));
                        self.diags.push(match similar(&self.suggest_budget, self.shared.keys().copied(), &name.name) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")).with_suggestion(name.span, s),
                            None => d.with_help("registers are written `THREAD:reg` in the final condition"),
                        });
                    }
                }
            }
            ExprKind::Call(..) | ExprKind::Cas(..) | ExprKind::Xchg(..) | ExprKind::FetchAdd(..) => {
                self.diags.push(Diagnostic::error(
                    "E0229",
                    x.span,
                    "the final condition can only read the final state (no calls or atomics)",
                ))
            }
            ExprKind::Ordered(_, o) => self.not_an_access(*o, "the final condition's state"),
            _ => {}
        });
    }

    fn warn_unused(&mut self) {
        for (i, s) in self.symbols.list.iter().enumerate() {
            if s.name.starts_with('_') {
                continue;
            }
            let what = match s.kind {
                SymbolKind::Register | SymbolKind::Param if !self.reads.contains(&i) => "register",
                SymbolKind::Shared | SymbolKind::Array if !self.used.contains(&i) => "shared location",
                SymbolKind::Function if !self.used.contains(&i) => "function",
                _ => continue,
            };
            let kind = if s.kind == SymbolKind::Param { "parameter" } else { what };
            self.diags.push(
                Diagnostic::warning("W0203", s.def, format!("unused {kind} `{}`", s.name))
                    .with_label(if kind == "register" {
                        "never read, and not in the final condition"
                    } else {
                        "never used"
                    })
                    .with_help(format!("prefix it with `_` (`_{}`) if this is intended", s.name)),
            );
        }
    }
}

fn init_text(v: &VarDecl) -> String {
    match &v.init {
        Some(Init::Scalar(i)) => format!(" = {}", i.value),
        Some(Init::Array(vals, _)) => {
            format!(" = {{{}}}", vals.iter().map(|v| v.value.to_string()).collect::<Vec<_>>().join(", "))
        }
        None if v.len.is_some() => String::new(),
        None => " = 0".into(),
    }
}

fn collect_lets(b: &Block) -> HashSet<String> {
    let mut out = HashSet::new();
    b.walk(&mut |s| {
        if let StmtKind::Let { name, .. } = &s.kind {
            out.insert(name.name.clone());
        }
    });
    out
}

/// The expressions directly inside a statement (not those of nested blocks).
pub fn stmt_exprs<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a Expr)) {
    match &s.kind {
        StmtKind::Let { value, .. } => f(value),
        StmtKind::Assign { target, value } => {
            if let Some(i) = &target.index {
                f(i);
            }
            f(value)
        }
        StmtKind::If { cond, .. } => f(cond),
        StmtKind::While { cond, bound, .. } => {
            f(cond);
            if let Some(b) = bound {
                f(b);
            }
        }
        StmtKind::For { from, to, .. } => {
            f(from);
            f(to);
        }
        StmtKind::Await(e) | StmtKind::Assert(e) | StmtKind::Assume(e) | StmtKind::Expr(e) => f(e),
        StmtKind::Return(Some(e)) => f(e),
        _ => {}
    }
}

/// The nesting of a body inlined at a call `at` levels deep, the body
/// nesting `inner` levels: one more for the inlining itself, whose recursion
/// in lowering (call, inlined block, statement) costs more stack than a plain
/// level (measured in a debug build: about 6 KiB against 3).
fn inlined(at: u32, inner: u32) -> u32 {
    at.saturating_add(1).saturating_add(inner)
}

/// A call in a body, and how many levels of nesting enclose it.
struct CallSite<'a> {
    callee: &'a str,
    span: Span,
    depth: u32,
}

/// A body's calls and its own height (the deepest level of nesting in it),
/// counted as the parser counts: a block or `else if` is a level, and so is
/// each sub-expression.
struct BodyCalls<'a> {
    height: u32,
    calls: Vec<CallSite<'a>>,
    /// Statements and expressions (what inlining copies).
    nodes: u64,
}

fn body_calls(b: &Block) -> BodyCalls<'_> {
    fn block<'a>(b: &'a Block, d: u32, out: &mut BodyCalls<'a>) {
        for s in &b.stmts {
            stmt(s, d + 1, out);
        }
    }
    fn stmt<'a>(s: &'a Stmt, d: u32, out: &mut BodyCalls<'a>) {
        out.height = out.height.max(d);
        out.nodes += 1;
        stmt_exprs(s, &mut |e| expr(e, d, out));
        match &s.kind {
            StmtKind::If { then, els, .. } => {
                block(then, d, out);
                match els.as_deref() {
                    Some(Else::Block(b)) => block(b, d, out),
                    Some(Else::If(s)) => stmt(s, d + 1, out),
                    None => {}
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => block(body, d, out),
            _ => {}
        }
    }
    fn expr<'a>(e: &'a Expr, d: u32, out: &mut BodyCalls<'a>) {
        out.height = out.height.max(d);
        out.nodes += 1;
        let lvalue = |lv: &'a LValue, out: &mut BodyCalls<'a>| {
            if let Some(i) = &lv.index {
                expr(i, d + 1, out);
            }
        };
        match &e.kind {
            ExprKind::Index(_, i) | ExprKind::Unary(_, i) => expr(i, d + 1, out),
            ExprKind::Binary(_, a, b) => {
                expr(a, d + 1, out);
                expr(b, d + 1, out);
            }
            ExprKind::Call(f, args) => {
                out.calls.push(CallSite { callee: f.name.as_str(), span: f.span, depth: d });
                args.iter().for_each(|a| expr(a, d + 1, out));
            }
            ExprKind::Cas(lv, a, b) => {
                lvalue(lv, out);
                expr(a, d + 1, out);
                expr(b, d + 1, out);
            }
            ExprKind::Xchg(lv, a) | ExprKind::FetchAdd(lv, a) => {
                lvalue(lv, out);
                expr(a, d + 1, out);
            }
            _ => {}
        }
    }
    let mut out = BodyCalls { height: 0, calls: Vec::new(), nodes: 0 };
    block(b, 0, &mut out);
    out
}

/// The candidate close enough to `name` to suggest: a fourth of its
/// length in edits, at least one, never all of it.
fn similar<'c>(budget: &Cell<u64>, candidates: impl Iterator<Item = &'c str>, name: &str) -> Option<&'c str> {
    let n = name.chars().count();
    closest(budget, candidates, name, (1 + n / 4).min(n.saturating_sub(1)))
}

/// The one candidate nearest to `name` within `limit` edits, as far as
/// `budget` (candidates looked at plus distance cells) goes. Two equally
/// near give none: `P2` among `P0` and `P1` is no typo of either.
fn closest<'c>(
    budget: &Cell<u64>,
    candidates: impl Iterator<Item = &'c str>,
    name: &str,
    limit: usize,
) -> Option<&'c str> {
    let n = name.chars().count();
    let mut best: Option<(usize, &'c str)> = None;
    let mut tied = false;
    for c in candidates {
        let m = c.chars().count();
        let cost = 1 + if m.abs_diff(n) <= limit { (m * n) as u64 } else { 0 };
        let Some(left) = budget.get().checked_sub(cost) else {
            budget.set(0);
            break;
        };
        budget.set(left);
        if m.abs_diff(n) > limit {
            continue; // the distance is at least the difference in length
        }
        let d = edit_distance(c, name);
        match best {
            // A name declared twice (a register in sibling blocks) is one candidate.
            Some((bd, bc)) if d == bd && c != bc => tied = true,
            Some((bd, _)) if d >= bd => {}
            _ if d <= limit => (best, tied) = (Some((d, c)), false),
            _ => {}
        }
    }
    best.filter(|_| !tied).map(|b| b.1)
}

pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}
