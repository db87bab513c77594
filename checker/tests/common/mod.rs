//! Generated small programs for property tests: 2–4 threads of loads,
//! stores, fences, atomics and small if/else, rendered as native source.

#![allow(dead_code)]

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub enum Op {
    Store(usize, i64),
    StoreReg(usize),
    Load(usize),
    Fence(&'static str),
    Cas(usize, i64, i64),
    Xchg(usize, i64),
    FetchAdd(usize),
    /// if (last register == k) { then } else { else }
    If(i64, Vec<Op>, Vec<Op>),
    /// await (loc == k);
    Await(usize, i64),
    /// await (loc == k || loc >= j); two loads of one cell, either passes.
    AwaitEither(usize, i64, i64),
    /// await (loc == k && loc2 == k); two cells.
    AwaitBoth(usize, usize, i64),
    /// `let r = 0; let t = loc; while (t != k) { r = loc; t = loc; }`: a
    /// spin reduced to an await whose body's load stays in a register.
    SpinRead(usize, i64),
    /// lock(m); body; unlock(m);
    Locked(Vec<Op>),
    /// while (loc == 0) { store }
    Spin(usize, usize),
    /// A counted loop with a register: `let c = 0; while (c < k) { body; c = c + 1; }`.
    Counted(i64, Vec<Op>),
    /// `while (loc == 0) { body }`: may iterate any number of times.
    Retry(usize, Vec<Op>),
}

pub const LOCS: [&str; 3] = ["x", "y", "z"];

fn leaf(locs: usize, atomics: bool) -> BoxedStrategy<Op> {
    let l = 0..locs;
    let mut v: Vec<BoxedStrategy<Op>> = vec![
        (l.clone(), 1..3i64).prop_map(|(a, k)| Op::Store(a, k)).boxed(),
        l.clone().prop_map(Op::Load).boxed(),
        l.clone().prop_map(Op::Load).boxed(),
        l.clone().prop_map(Op::StoreReg).boxed(),
        prop::sample::select(vec!["", " ww", " wr"]).prop_map(Op::Fence).boxed(),
    ];
    if atomics {
        v.push((l.clone(), 0..2i64, 1..3i64).prop_map(|(a, e, n)| Op::Cas(a, e, n)).boxed());
        v.push((l.clone(), 1..3i64).prop_map(|(a, k)| Op::Xchg(a, k)).boxed());
        v.push(l.prop_map(Op::FetchAdd).boxed());
    }
    prop::strategy::Union::new(v).boxed()
}

pub fn op(locs: usize, atomics: bool) -> BoxedStrategy<Op> {
    let leaf = leaf(locs, atomics);
    prop_oneof![
        8 => leaf.clone(),
        1 => (0..2i64, prop::collection::vec(leaf.clone(), 1..3), prop::collection::vec(leaf, 0..2))
            .prop_map(|(k, t, e)| Op::If(k, t, e)),
    ]
    .boxed()
}

pub fn program(
    threads: std::ops::Range<usize>,
    ops: std::ops::Range<usize>,
    atomics: bool,
) -> BoxedStrategy<Vec<Vec<Op>>> {
    (2..4usize)
        .prop_flat_map(move |locs| {
            prop::collection::vec(prop::collection::vec(op(locs, atomics), ops.clone()), threads.clone())
        })
        .boxed()
}

/// Render as native source with an `exists` over every thread's registers.
pub fn render(threads: &[Vec<Op>]) -> String {
    let mut s = String::from("litmus GEN\nshared x = 0, y = 0, z = 0, m = 0;\n");
    let mut cond = Vec::new();
    for (t, ops) in threads.iter().enumerate() {
        s.push_str(&format!("thread P{t} {{\n"));
        let mut regs = 0;
        render_ops(ops, &mut s, &mut regs, 1, &mut 100);
        s.push_str("}\n");
        for r in 0..regs {
            cond.push(format!("P{t}:r{r} == 0"));
        }
    }
    if cond.is_empty() {
        cond.push("x == 1".into());
    }
    s.push_str(&format!("exists ({});\n", cond.join(" && ")));
    s
}

fn render_ops(ops: &[Op], s: &mut String, regs: &mut usize, depth: usize, uniq: &mut usize) {
    let ind = "  ".repeat(depth);
    for op in ops {
        let last = if *regs > 0 { format!("r{}", *regs - 1) } else { "0".into() };
        match op {
            Op::Store(a, k) => s.push_str(&format!("{ind}{} = {k};\n", LOCS[*a])),
            Op::StoreReg(a) => s.push_str(&format!("{ind}{} = {last} + 1;\n", LOCS[*a])),
            Op::Load(a) => {
                s.push_str(&format!("{ind}let r{} = {};\n", *regs, LOCS[*a]));
                *regs += 1;
            }
            Op::Fence(k) => s.push_str(&format!("{ind}fence{k};\n")),
            Op::Cas(a, e, n) => {
                s.push_str(&format!("{ind}let r{} = cas({}, {e}, {n});\n", *regs, LOCS[*a]));
                *regs += 1;
            }
            Op::Xchg(a, k) => {
                s.push_str(&format!("{ind}let r{} = xchg({}, {k});\n", *regs, LOCS[*a]));
                *regs += 1;
            }
            Op::FetchAdd(a) => {
                s.push_str(&format!("{ind}let r{} = fetch_add({}, 1);\n", *regs, LOCS[*a]));
                *regs += 1;
            }
            Op::If(k, t, e) => {
                // Registers declared inside a branch are scoped to it: render
                // them as assignments to fresh registers declared before.
                s.push_str(&format!("{ind}if ({last} == {k}) {{\n"));
                render_branch(t, s, depth + 1, &mut 0);
                s.push_str(&format!("{ind}}} else {{\n"));
                render_branch(e, s, depth + 1, &mut 0);
                s.push_str(&format!("{ind}}}\n"));
            }
            Op::Await(a, k) => s.push_str(&format!("{ind}await ({} == {k});\n", LOCS[*a])),
            Op::AwaitEither(a, k, j) => {
                s.push_str(&format!("{ind}await ({} == {k} || {} >= {j});\n", LOCS[*a], LOCS[*a]))
            }
            Op::AwaitBoth(a, b, k) => {
                s.push_str(&format!("{ind}await ({} == {k} && {} == {k});\n", LOCS[*a], LOCS[*b]))
            }
            Op::SpinRead(a, k) => {
                let (r, t, l) = (*regs, *regs + 1, LOCS[*a]);
                s.push_str(&format!("{ind}let r{r} = 0;\n{ind}let r{t} = {l};\n"));
                s.push_str(&format!("{ind}while (r{t} != {k}) {{ r{r} = {l}; r{t} = {l}; }}\n"));
                *regs += 2;
            }
            Op::Locked(body) => {
                s.push_str(&format!("{ind}lock(m);\n"));
                render_branch(body, s, depth, uniq);
                s.push_str(&format!("{ind}unlock(m);\n"));
            }
            Op::Spin(a, b) => s.push_str(&format!("{ind}while ({} == 0) {{ {} = 1; fence; }}\n", LOCS[*a], LOCS[*b])),
            Op::Counted(k, body) => {
                let c = *uniq;
                *uniq += 1;
                s.push_str(&format!("{ind}let c{c} = 0;\n{ind}while (c{c} < {k}) {{\n"));
                render_branch(body, s, depth + 1, uniq);
                s.push_str(&format!("{ind}  c{c} = c{c} + 1;\n{ind}}}\n"));
            }
            Op::Retry(a, body) => {
                s.push_str(&format!("{ind}while ({} == 0) {{\n", LOCS[*a]));
                render_branch(body, s, depth + 1, uniq);
                s.push_str(&format!("{ind}}}\n"));
            }
        }
    }
}

/// Branch bodies: no new registers (loads go to `_t`, a block-local).
fn render_branch(ops: &[Op], s: &mut String, depth: usize, uniq: &mut usize) {
    let ind = "  ".repeat(depth);
    for op in ops {
        match op {
            Op::Store(a, k) => s.push_str(&format!("{ind}{} = {k};\n", LOCS[*a])),
            Op::StoreReg(a) => s.push_str(&format!("{ind}{} = 2;\n", LOCS[*a])),
            Op::Load(a) => {
                s.push_str(&format!("{ind}let _b{} = {};\n", *uniq, LOCS[*a]));
                *uniq += 1;
            }
            Op::Fence(k) => s.push_str(&format!("{ind}fence{k};\n")),
            Op::Cas(a, e, v) => s.push_str(&format!("{ind}cas({}, {e}, {v});\n", LOCS[*a])),
            Op::Xchg(a, k) => s.push_str(&format!("{ind}xchg({}, {k});\n", LOCS[*a])),
            Op::FetchAdd(a) => s.push_str(&format!("{ind}fetch_add({}, 1);\n", LOCS[*a])),
            Op::If(..) | Op::Locked(_) | Op::Spin(..) | Op::Counted(..) | Op::Retry(..) | Op::SpinRead(..) => {}
            Op::Await(a, k) => s.push_str(&format!("{ind}await ({} == {k});\n", LOCS[*a])),
            Op::AwaitEither(a, k, j) => {
                s.push_str(&format!("{ind}await ({} == {k} || {} >= {j});\n", LOCS[*a], LOCS[*a]))
            }
            Op::AwaitBoth(a, b, k) => {
                s.push_str(&format!("{ind}await ({} == {k} && {} == {k});\n", LOCS[*a], LOCS[*b]))
            }
        }
    }
}

/// The same operation with locations x and y swapped (z stays).
pub fn swap_xy(op: &Op) -> Op {
    let l = |a: &usize| match a {
        0 => 1,
        1 => 0,
        a => *a,
    };
    let all = |v: &[Op]| v.iter().map(swap_xy).collect::<Vec<_>>();
    match op {
        Op::Store(a, k) => Op::Store(l(a), *k),
        Op::StoreReg(a) => Op::StoreReg(l(a)),
        Op::Load(a) => Op::Load(l(a)),
        Op::Fence(k) => Op::Fence(k),
        Op::Cas(a, e, n) => Op::Cas(l(a), *e, *n),
        Op::Xchg(a, k) => Op::Xchg(l(a), *k),
        Op::FetchAdd(a) => Op::FetchAdd(l(a)),
        Op::If(k, t, e) => Op::If(*k, all(t), all(e)),
        Op::Await(a, k) => Op::Await(l(a), *k),
        Op::AwaitEither(a, k, j) => Op::AwaitEither(l(a), *k, *j),
        Op::AwaitBoth(a, b, k) => Op::AwaitBoth(l(a), l(b), *k),
        Op::SpinRead(a, k) => Op::SpinRead(l(a), *k),
        Op::Locked(b) => Op::Locked(all(b)),
        Op::Spin(a, b) => Op::Spin(l(a), l(b)),
        Op::Counted(k, b) => Op::Counted(*k, all(b)),
        Op::Retry(a, b) => Op::Retry(l(a), all(b)),
    }
}

pub fn compile(src: &str) -> litmus_ir::Program {
    let a = litmus_dsl::analyze(src);
    let errors: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "generated program has errors: {errors:?}\n{src}");
    a.program.unwrap()
}

/// Also `await` and `lock`/`unlock` blocks: threads that wait and block.
pub fn blocking_op(locs: usize) -> BoxedStrategy<Op> {
    let base = op(locs, true);
    prop_oneof![
        6 => base,
        1 => (0..locs, 0..2i64).prop_map(|(a, k)| Op::Await(a, k)),
        1 => prop_oneof![
            (0..locs, 0..2i64, 1..3i64).prop_map(|(a, k, j)| Op::AwaitEither(a, k, j)),
            (0..locs, 0..locs, 0..2i64).prop_map(|(a, b, k)| Op::AwaitBoth(a, b, k)),
            (0..locs, 1..3i64).prop_map(|(a, k)| Op::SpinRead(a, k)),
        ],
        1 => prop::collection::vec(leaf(locs, false), 1..3).prop_map(Op::Locked),
        1 => (0..locs, 0..locs).prop_map(|(a, b)| Op::Spin(a, b)),
    ]
    .boxed()
}

pub fn blocking_program(threads: std::ops::Range<usize>, ops: std::ops::Range<usize>) -> BoxedStrategy<Vec<Vec<Op>>> {
    (2..4usize)
        .prop_flat_map(move |locs| {
            prop::collection::vec(prop::collection::vec(blocking_op(locs), ops.clone()), threads.clone())
        })
        .boxed()
}

/// The `.litmus` files of a folder of the repository, sorted by name.
pub fn litmus_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    paths.sort();
    paths
}

/// Every example and herd corpus file: (file name, source), sorted by name
/// within each folder.
pub fn corpus_and_example_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for dir in ["examples", "tests/corpus/herd-x86"] {
        for p in litmus_files(dir) {
            v.push((p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    v
}

// ---------------------------------------------------------------------------
// Traces: what each load read from and the coherence order, per execution.

/// An execution's rf and co, by event names (thread, n-th access of it):
/// per thread the writes its reads read, per cell the writes in co.
pub type TraceKey = (Vec<Vec<(u16, u32)>>, Vec<Vec<(u16, u32)>>);

/// The trace of an execution of `model` (under SC a store is its own
/// coherence place; under the others its commit is).
pub fn trace_key(
    events: &[litmus_checker::machine::Event],
    threads: usize,
    cells: usize,
    model: litmus_checker::machine::Model,
) -> TraceKey {
    use litmus_checker::machine::{EventKind, Model, NONE};
    let mut ordinal = vec![u32::MAX; events.len()];
    let mut count = vec![0u32; threads];
    for (i, e) in events.iter().enumerate() {
        if matches!(e.kind, EventKind::Load | EventKind::Store | EventKind::Rmw) {
            ordinal[i] = count[e.thread as usize];
            count[e.thread as usize] += 1;
        }
    }
    let name = |i: u32| -> (u16, u32) {
        if i == NONE {
            return (u16::MAX, 0);
        }
        let e = &events[i as usize];
        let w = if e.kind == EventKind::Commit { e.store } else { i };
        (events[w as usize].thread, ordinal[w as usize])
    };
    let mut reads = vec![Vec::new(); threads];
    let mut co = vec![Vec::new(); cells];
    for (i, e) in events.iter().enumerate() {
        match e.kind {
            EventKind::Load => reads[e.thread as usize].push(name(e.rf)),
            EventKind::Rmw => {
                reads[e.thread as usize].push(name(e.rf));
                co[e.cell as usize].push(name(i as u32));
            }
            EventKind::Commit => co[e.cell as usize].push(name(i as u32)),
            EventKind::Store if model == Model::Sc => co[e.cell as usize].push(name(i as u32)),
            _ => {}
        }
    }
    (reads, co)
}

/// Every interleaving of the machine's processes, by brute force (no
/// reduction, no state hashing): the traces of the maximal executions
/// (`None` if more than `budget` interleavings would be needed).
pub fn brute_force_traces(
    m: &litmus_checker::machine::Machine<'_>,
    budget: u64,
) -> Option<std::collections::BTreeSet<TraceKey>> {
    use litmus_checker::machine::{Event, Machine, State};
    use std::collections::BTreeSet;
    fn go(m: &Machine<'_>, st: &State, log: &mut Vec<Event>, out: &mut BTreeSet<TraceKey>, budget: &mut u64) {
        *budget = budget.saturating_sub(1);
        let enabled: Vec<usize> = (0..m.procs()).filter(|&p| m.enabled(st, p)).collect();
        if enabled.is_empty() {
            out.insert(trace_key(log, m.threads, m.cells, m.model));
            return;
        }
        for p in enabled {
            if *budget == 0 {
                return;
            }
            let mut next = st.clone();
            let mark = log.len();
            m.step(&mut next, p, 0, log);
            go(m, &next, log, out, budget);
            log.truncate(mark);
        }
    }
    let mut log = Vec::new();
    let init = m.initial(&mut log);
    let mut out = BTreeSet::new();
    let mut budget = budget;
    go(m, &init, &mut log, &mut out, &mut budget);
    (budget > 0).then_some(out)
}

/// Programs with loops: counted loops (a register counts to 1 or 2) and
/// loops on a location (`while (x == 0) { … }`), besides the blocking ops.
pub fn looping_program(threads: std::ops::Range<usize>, ops: std::ops::Range<usize>) -> BoxedStrategy<Vec<Vec<Op>>> {
    (2..4usize)
        .prop_flat_map(move |locs| {
            let body = || prop::collection::vec(leaf(locs, true), 1..3);
            let one = prop_oneof![
                5 => blocking_op(locs),
                2 => (1..3i64, body()).prop_map(|(k, b)| Op::Counted(k, b)),
                2 => (0..locs, body()).prop_map(|(a, b)| Op::Retry(a, b)),
            ];
            prop::collection::vec(prop::collection::vec(one, ops.clone()), threads.clone())
        })
        .boxed()
}

/// Does no execution of `model` (loops cut at 2, at most `buffer_bound`
/// pending stores per thread) have a cyclic trace? Explicit exploration,
/// the judge the monitors and the fences are held to.
pub fn explicitly_robust(prog: &litmus_ir::Program, model: litmus_checker::machine::Model, buffer_bound: u32) -> bool {
    use litmus_checker::dpor::{Control, Explorer, Limits};
    let m = litmus_checker::machine::Machine::new(prog, model, 2, buffer_bound);
    let mut ex = Explorer::new(&m);
    let mut cyclic = false;
    ex.run(Limits::default(), |e| {
        if litmus_checker::trace::has_cycle(e.events) {
            cyclic = true;
            return Control::Stop;
        }
        Control::Continue
    });
    !cyclic
}

/// Does some await load more than once (`x == 0 || x >= 2`, a spin loop
/// reduced to an await whose body loads too)?
pub fn two_loads(prog: &litmus_ir::Program) -> bool {
    use litmus_ir::Instr;
    prog.threads.iter().any(|t| {
        t.code.iter().enumerate().any(|(pc, i)| match *i {
            Instr::AwaitStart { check, .. } => {
                t.code[pc..check as usize].iter().filter(|i| matches!(i, Instr::Load { .. })).count() > 1
            }
            _ => false,
        })
    })
}

/// The workspace's root.
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A model given as data from the corpus (`tests/corpus/models/`, herd's
/// stock files under `herd/`), its includes found there.
pub fn cat(name: &str) -> litmus_checker::machine::Model {
    let models = root().join("tests/corpus/models");
    let p = [models.join(name), models.join("herd").join(name)].into_iter().find(|p| p.exists()).unwrap();
    litmus_checker::machine::Model::parse_in(p.to_str().unwrap(), &[models.join("herd")])
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every maximal extension the search takes unasked is checked against the
/// model's own answer ([`litmus_checker::graph::explore::VERIFY_MAXIMAL`]).
pub fn verify_maximal() {
    litmus_checker::graph::explore::VERIFY_MAXIMAL.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// How `out`, a check under `model`, differs from herd7's verdict in a
/// corpus `verdicts.tsv` row (its observation and state-count columns), if
/// it does.
pub fn herd_difference(
    row: &[&str],
    model: litmus_checker::machine::Model,
    out: &litmus_checker::outcome::ModelOutcome,
    obs_col: usize,
    states_col: usize,
) -> Option<String> {
    let obs = out.known_observation().map(|o| o.as_str()).unwrap_or("-");
    let states = out.states.len();
    (obs != row[obs_col] || states.to_string() != row[states_col])
        .then(|| format!("{} {}: {obs} {states}, herd {} {}", row[0], model.as_str(), row[obs_col], row[states_col]))
}

/// A herd corpus folder (`tests/corpus/<folder>/`) against its
/// `verdicts.tsv`: each test litmus reads is handed to `each` with its row,
/// its program and the differences found so far; each test it refuses must
/// be named in `refused` (file, one of its error codes, why). Returns the
/// tests read, the tests refused by name, and every difference.
pub fn herd_corpus(
    folder: &str,
    refused: &[(&str, &str, &str)],
    mut each: impl FnMut(&[&str], litmus_ir::Program, &mut Vec<String>),
) -> (usize, usize, Vec<String>) {
    let dir = root().join("tests/corpus").join(folder);
    let tsv = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let (mut checked, mut named) = (0, 0);
    let mut bad = Vec::new();
    for line in tsv.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let src = std::fs::read_to_string(dir.join(c[0])).unwrap();
        let a = litmus_dsl::analyze(&src);
        let Some(prog) = a.program else {
            let errs: Vec<&litmus_dsl::diagnostic::Diagnostic> =
                a.diagnostics.iter().filter(|d| d.is_error()).collect();
            if refused.iter().any(|(f, code, _)| *f == c[0] && errs.iter().any(|d| d.code == *code)) {
                named += 1;
            } else {
                let shown: Vec<String> = errs.iter().map(|d| format!("{} {}", d.code, d.message)).collect();
                bad.push(format!("{}: refused ({shown:?})", c[0]));
            }
            continue;
        };
        each(&c, prog, &mut bad);
        checked += 1;
    }
    (checked, named, bad)
}

/// herd7's robustness column (`yes`: no execution the model allows has a
/// `po | rf | co | fr` cycle) against litmus's answer under `model`: a
/// `yes` must be proved robust, a `no` proved not robust, with every
/// violation's witness replayed ([`replayed_violations`]).
pub fn herd_robust_difference(
    row: &[&str],
    model: litmus_checker::machine::Model,
    prog: &litmus_ir::Program,
    col: usize,
) -> Option<String> {
    use litmus_checker::certainty::Answer;
    let opts = litmus_checker::options::Options::default();
    let rb = litmus_checker::robust::own_executions(prog, model, &opts);
    let a = rb.robust();
    let ok = match row[col] {
        "yes" => a == Answer::Proved(true),
        _ => a == Answer::Proved(false),
    };
    if !ok {
        return Some(format!("{} {}: robust {a:?}, herd {}", row[0], model.as_str(), row[col]));
    }
    replayed_violations(prog, &rb).err().map(|e| format!("{} {}: {e}", row[0], model.as_str()))
}

/// Every violation of a robustness decided on whole candidates, replayed:
/// its witness run again and allowed by the model, not SC, and its cycle's
/// every edge present in it; its cycle's statements those of its events.
pub fn replayed_violations(
    prog: &litmus_ir::Program,
    rb: &litmus_checker::violation::Robustness,
) -> Result<(), String> {
    let opts = litmus_checker::options::Options::default();
    for v in &rb.violations {
        let w = &v.witness;
        let r = litmus_checker::candidates::replay(prog, v.model, &opts, &w.events)
            .map_err(|e| format!("violation {:?}: witness does not replay: {e}", v.key()))?;
        if !r.allowed {
            return Err(format!("violation {:?}: witness not allowed by the model", v.key()));
        }
        if !r.cyclic() || w.cycle.len() < 2 || w.cycle.len() != v.cycle.len() {
            return Err(format!("violation {:?}: no cycle", v.key()));
        }
        for (k, &(a, edge)) in w.cycle.iter().enumerate() {
            let b = w.cycle[(k + 1) % w.cycle.len()].0;
            if !r.has(a, b, edge) {
                return Err(format!("violation {:?}: edge {a} -{}-> {b} not in its replay", v.key(), edge.as_str()));
            }
            let step = &v.cycle[k];
            if (step.stmt, step.thread, step.edge) != (w.events[a as usize].stmt, w.events[a as usize].thread, edge) {
                return Err(format!("violation {:?}: cycle step {k} is not its witness's", v.key()));
            }
        }
        let first = (w.events[w.cycle[0].0 as usize].stmt, w.events[w.cycle[1].0 as usize].stmt);
        if first != v.key() || w.cycle[0].1 != litmus_checker::trace::Edge::Po {
            return Err(format!("violation {:?}: its cycle does not start with its po edge", v.key()));
        }
    }
    Ok(())
}

/// The cheapest choice, by brute force, of every access's stronger forms
/// and every barrier between two accesses of a thread
/// (`litmus_checker::repair::menu`) that `robust` accepts: each cheaper
/// than the best so far is applied and re-checked.
pub fn brute_force_repair(prog: &litmus_ir::Program, robust: impl Fn(&litmus_ir::Program) -> bool) -> Option<u32> {
    use litmus_checker::repair::{apply, menu};
    use litmus_checker::violation::Repair;
    // Per site: its options (the first: no change).
    let mut sites: Vec<Vec<Option<Repair>>> = Vec::new();
    for t in 0..prog.threads.len() as u16 {
        let acc = menu::accesses(prog, t);
        for (k, &s) in acc.iter().enumerate() {
            sites.push(
                std::iter::once(None)
                    .chain(menu::upgrades(prog, t, s, &Default::default()).into_iter().map(Some))
                    .collect(),
            );
            if let Some(&next) = acc.get(k + 1) {
                let between = menu::barriers_between(prog, t, s, next, &Default::default());
                sites.push(std::iter::once(None).chain(between.into_iter().map(Some)).collect());
            }
        }
    }
    let mut best: Option<u32> = None;
    let mut pick = vec![0usize; sites.len()];
    loop {
        let chosen: Vec<Repair> = pick.iter().zip(&sites).filter_map(|(&i, s)| s[i]).collect();
        let cost: u32 = chosen.iter().map(|r| r.cost).sum();
        if best.is_none_or(|b| cost < b) && robust(&apply(prog, &chosen)) {
            best = Some(cost);
        }
        let mut k = 0;
        loop {
            if k == sites.len() {
                return best;
            }
            pick[k] += 1;
            if pick[k] < sites[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}
