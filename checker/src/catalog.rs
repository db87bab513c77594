//! The registry of models given as data: herd `.cat` files, each loaded
//! once per process and named by a [`CatId`] so that [`Model`] stays a small
//! `Copy` value. A cat model's row (the [`Spec`] every model answers
//! questions from) says it is axiomatic: no machine runs it; the graph
//! explorer answers it, asking the model's axioms of each graph
//! ([`crate::graph::axioms`]).
//!
//! A model from a file is named by its stem (`x86tso.cat` is `x86tso`), or
//! by its file name where the stem is a built-in model's name (herd's
//! `sc.cat` is `sc.cat`, beside the built-in `sc`). The same file (same
//! canonical path and text) loaded twice is the same model; two different
//! files with one name are refused.
//!
//! Before a model is registered, it is asked three questions on tiny
//! executions ([`probe`]), the assumptions of the graph explorer's revisits:
//! it forbids load buffering (a `po ∪ rf` cycle: a revisit keeps the
//! porf-prefix of the revisiting write), coherence per location (a thread's
//! next access of a cell goes co-after what it saw), a write between an
//! atomic's read and its write, and an atomic reading a write its own write
//! precedes (herd's `sc.cat` allows that of a two-event atomic: x86,
//! AArch64). A model that allows one of them (ARM-,
//! RISC-V- and Power-like models) is answered by the candidate explorer
//! instead ([`crate::candidates`]), as herd7 answers every model.

pub use crate::model::CatId;
use crate::model::Model;
use litmus_cat::eval::{Execution, Options as CatOptions};
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// One loaded model.
pub struct CatModel {
    pub id: CatId,
    /// The file it was read from (as given).
    pub path: PathBuf,
    /// The parsed model (each thread prepares its own copy to evaluate:
    /// [`crate::graph::axioms::Judge`]).
    pub model: litmus_cat::Model,
    name: &'static str,
    /// The built-in machine whose runs name its violations and write its
    /// witnesses, where it can follow a graph ([`naming`]).
    pub naming: Model,
    /// What it allows that the graph explorer assumes it forbids (a
    /// `po ∪ rf` cycle, …), if anything: then the candidate explorer
    /// answers it ([`crate::candidates`]).
    pub weak: Option<&'static str>,
    /// herd's `catdep`: the model computes `addr`, `data` and `ctrl` from
    /// register events, which only the candidate explorer's executions
    /// have ([`crate::candidates`]).
    pub catdep: bool,
}

impl CatModel {
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// Registered models, never removed: a `&'static` row is handed out.
static REGISTRY: RwLock<Vec<&'static CatModel>> = RwLock::new(Vec::new());

/// Why a model file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CatModelError {
    #[error("{0}")]
    Cat(#[from] litmus_cat::CatError),
    #[error("{path}: the model is named `{name}`, as another model already is ({other})")]
    NameTaken { path: String, name: String, other: String },
    #[error("too many models loaded")]
    Full,
}

/// Load the model in `path` (includes searched next to it, then in
/// `include_dirs`), or find it loaded already.
pub fn load(path: &Path, include_dirs: &[PathBuf]) -> Result<Model, CatModelError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| litmus_cat::CatError::Io { path: path.to_path_buf(), source })?;
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if let Some(m) = find(|m| std::fs::canonicalize(&m.path).ok().as_ref() == Some(&canonical)) {
        if m.model.root_file().text == text {
            return Ok(Model::Cat(m.id));
        }
    }
    let model = litmus_cat::Model::from_source(path, &text, include_dirs)?;
    register(path, model)
}

/// The models checked when none are named, for a program written in
/// `dialect`: a herd test written for an architecture is checked against
/// SC and that architecture's model (x86: TSO; PSO only when asked, as
/// herd7 answers it; RISC-V: the project's `riscv`), a native program
/// against every built-in default.
pub fn defaults_for(dialect: litmus_ir::Dialect) -> Vec<Model> {
    use litmus_ir::Dialect;
    match dialect {
        Dialect::HerdX86 => std::iter::once(Model::Sc).chain(Model::of_cpu("x86-64")).collect(),
        Dialect::HerdRiscv => std::iter::once(Model::Sc).chain(architecture("riscv")).collect(),
        Dialect::HerdC => std::iter::once(Model::Sc).chain(architecture("rc11")).collect(),
        Dialect::HerdAArch64 => std::iter::once(Model::Sc).chain(architecture("aarch64")).collect(),
        Dialect::Native => Model::defaults(),
    }
}

/// The models checked when none are named, for this program: those of
/// its dialect ([`defaults_for`]), but a native program written with
/// memory orders is C11's: SC and `rc11`, as a herd C test.
pub fn defaults_of(prog: &litmus_ir::Program) -> Vec<Model> {
    if prog.dialect == litmus_ir::Dialect::Native && prog.is_c11() {
        return defaults_for(litmus_ir::Dialect::HerdC);
    }
    defaults_for(prog.dialect)
}

/// The project's own models of architectures, by name, and the embedded
/// file each is read from ([`litmus_cat::stock`]).
pub const ARCHITECTURES: &[(&str, &str)] =
    &[("riscv", "rvwmo.cat"), ("rc11", "rc11-lahav.cat"), ("aarch64", "armv8.cat")];

/// The model of an architecture named `name` (`riscv`), registered under
/// that name at its first use.
pub fn architecture(name: &str) -> Option<Model> {
    let &(name, file) = ARCHITECTURES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))?;
    if let Some(m) = by_name(name) {
        return Some(m);
    }
    let model = litmus_cat::stock::load(file).ok()?;
    register_as(Path::new(file), model, Some(name)).ok()
}

/// The model given as data that answers for `model`: itself, or a
/// built-in model's definition ([`Model::definition`]), registered under
/// its file's name at its first use.
pub fn definition(model: Model) -> Option<CatId> {
    if let Model::Cat(id) = model {
        return Some(id);
    }
    let file = model.definition()?;
    let found = by_name(file).or_else(|| {
        let m = litmus_cat::stock::load(file).ok()?;
        register(Path::new(file), m).ok()
    });
    match found {
        Some(Model::Cat(id)) => Some(id),
        _ => None,
    }
}

/// Register a model read by the caller (e.g. from `litmus_cat::stock`).
pub fn register(path: &Path, model: litmus_cat::Model) -> Result<Model, CatModelError> {
    register_as(path, model, None)
}

/// [`register`], named `as_name` rather than by the file (an architecture's
/// own model).
fn register_as(path: &Path, model: litmus_cat::Model, as_name: Option<&str>) -> Result<Model, CatModelError> {
    let shown = path.display().to_string();
    let catdep = model.files.iter().any(|f| f.program.catdep);
    // A model that allows what the graph explorer's revisits assume it
    // forbids is answered by the candidate explorer instead; so is one
    // that needs register events.
    let weak =
        if catdep { Some("computes its dependencies from register events (catdep)") } else { probe(&model).err() };
    let naming = naming(&model);
    let stem = path.file_stem().map_or_else(|| shown.clone(), |s| s.to_string_lossy().into_owned());
    let builtin = Model::ALL.iter().any(|m| m.as_str().eq_ignore_ascii_case(&stem))
        || ARCHITECTURES.iter().any(|(name, _)| name.eq_ignore_ascii_case(&stem));
    let name = match as_name {
        Some(n) => n.to_string(),
        None if builtin => path.file_name().map_or(stem, |n| n.to_string_lossy().into_owned()),
        None => stem,
    };
    let mut reg = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    let texts = |m: &litmus_cat::Model| m.files.iter().map(|f| f.text.clone()).collect::<Vec<_>>();
    if let Some(other) = reg.iter().find(|m| m.name == name) {
        if texts(&other.model) == texts(&model) {
            return Ok(Model::Cat(other.id));
        }
        return Err(CatModelError::NameTaken { path: shown, name, other: other.path.display().to_string() });
    }
    let name: &'static str = Box::leak(name.into_boxed_str());
    // Registered under the lock: ids and rows stay in step.
    let Some(Model::Cat(id)) = crate::model::add_cat_row(name, weak.is_none()) else {
        return Err(CatModelError::Full);
    };
    debug_assert_eq!(id.0 as usize, reg.len());
    let entry: &'static CatModel =
        Box::leak(Box::new(CatModel { id, path: path.to_path_buf(), model, name, naming, weak, catdep }));
    reg.push(entry);
    Ok(Model::Cat(id))
}

fn find(pred: impl Fn(&CatModel) -> bool) -> Option<&'static CatModel> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner()).iter().copied().find(|m| pred(m))
}

/// The loaded model of `id` (registered: ids are only made by [`register`]).
pub fn get(id: CatId) -> &'static CatModel {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner())[id.0 as usize]
}

thread_local! {
    /// Each thread's prepared models, with the graphs its searches built
    /// (one per thread and model, lent to each search: compiling a model,
    /// herd's `aarch64.cat`, costs more than judging a small test).
    static PREPARED: std::cell::RefCell<std::collections::HashMap<CatId, litmus_cat::Prepared>> = Default::default();
}

/// This thread's prepared model of `id`, if it has one: lent until
/// [`give_back_prepared`].
pub fn lend_prepared(id: CatId) -> Option<litmus_cat::Prepared> {
    PREPARED.with(|p| p.borrow_mut().remove(&id))
}

/// The model of `id` prepared: lent by this thread, or made.
pub fn prepared(id: CatId) -> Result<litmus_cat::Prepared, litmus_cat::CatError> {
    lend_prepared(id).map_or_else(|| get(id).model.prepare(&CatOptions::default()), Ok)
}

/// Give `p` back for this thread's next search.
pub fn give_back_prepared(id: CatId, p: litmus_cat::Prepared) {
    // A thread being torn down has no cache left to return it to.
    let _ = PREPARED.try_with(|c| c.borrow_mut().insert(id, p));
}

/// Why a search under a model given as data stopped at a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unjudged {
    /// The graph had this many events, more than the evaluator takes.
    TooManyEvents(u32),
    /// The model failed to evaluate it ([`error`] says how).
    ModelError(CatId),
    /// A built-in model without a definition as data, for a program no
    /// machine runs (a store-conditional): nothing judged.
    NoDefinition,
}

/// The first evaluation error of each model, by id.
static ERRORS: RwLock<Vec<(CatId, String)>> = RwLock::new(Vec::new());

/// Keep `msg` as the model's evaluation error (the first one stays).
pub fn note_error(id: CatId, msg: &str) {
    let mut errs = ERRORS.write().unwrap_or_else(|e| e.into_inner());
    if !errs.iter().any(|(i, _)| *i == id) {
        errs.push((id, msg.to_string()));
    }
}

/// The model's evaluation error, if it had one.
pub fn error(id: CatId) -> Option<String> {
    ERRORS.read().unwrap_or_else(|e| e.into_inner()).iter().find(|(i, _)| *i == id).map(|(_, m)| m.clone())
}

/// The model named `name` (as reports name it), if loaded.
pub fn by_name(name: &str) -> Option<Model> {
    find(|m| m.name.eq_ignore_ascii_case(name)).map(|m| Model::Cat(m.id))
}

/// Does the model allow what the explorer assumes it forbids? Each probe is
/// a tiny execution in herd's x86 vocabulary; the answer names the first
/// one allowed.
fn probe(model: &litmus_cat::Model) -> Result<(), &'static str> {
    for (what, x) in probes() {
        match allowed(model, &x) {
            Ok(false) => {}
            Ok(true) => return Err(what),
            // A model that cannot evaluate a probe may still evaluate the
            // candidates (they bind more names): the candidate explorer
            // answers it, or says the model's own diagnostic.
            Err(_) => return Err("could not be probed"),
        }
    }
    Ok(())
}

/// The built-in machine that names a model's violations: TSO if the model
/// keeps two stores of a thread in order (it forbids message passing with
/// plain accesses), else PSO. A violation is then named by the statement
/// pair those machines' monitors name (the delayed store, the access it is
/// delayed past), on every graph the machine can follow; the others are
/// named by their cycle's po edges ([`crate::explicit::Namer`]).
fn naming(model: &litmus_cat::Model) -> Model {
    // iw x (0), iw y (1); T0: w x (2); w y (3); T1: r y (4) reads 3; r x (5) reads 0.
    let mp = fences(
        Execution::new(6)
            .set("IW", &[0, 1])
            .set("W", &[0, 1, 2, 3])
            .set("R", &[4, 5])
            .set("X", &[])
            .rel("po", &[(2, 3), (4, 5)])
            .rel("rf", &[(3, 4), (0, 5)])
            .rel("co", &[(0, 2), (1, 3)])
            .rel("loc", &same(&[&[0, 2, 5], &[1, 3, 4]]))
            .rel("int", &same(&[&[2, 3], &[4, 5], &[0], &[1]])),
    );
    match allowed(model, &mp) {
        Ok(true) => Model::Pso,
        _ => Model::Tso,
    }
}

/// Does the model allow the probe execution `x`?
fn allowed(model: &litmus_cat::Model, x: &Execution) -> Result<bool, litmus_cat::CatError> {
    litmus_cat::eval::evaluate(model, x, &CatOptions::default()).map(|v| v.allowed())
}

/// A probe execution with herd's x86 fence sets, all empty (x86 binds them
/// in every execution).
fn fences(x: Execution) -> Execution {
    // Every fence tag and label set too (empty), as the candidate explorer
    // binds them: a RISC-V model reads `Acq`, `Fence.r.rw`, ….
    let mut x = x.set("F", &[]);
    for k in litmus_ir::FenceKind::all_tags().chain(litmus_ir::Labels::all_names()) {
        if !x.sets.contains_key(k) {
            x = x.set(k, &[]);
        }
    }
    x
}

/// The probes: (what allowing it means, the execution).
fn probes() -> Vec<(&'static str, Execution)> {
    // Load buffering: iw(x)=0, iw(y)=1; T0: r x (2) ; w y (3); T1: r y (4); w x (5); rf 5→2, 3→4.
    let lb = fences(
        Execution::new(6)
            .set("IW", &[0, 1])
            .set("W", &[0, 1, 3, 5])
            .set("R", &[2, 4])
            .set("X", &[])
            .rel("po", &[(2, 3), (4, 5)])
            .rel("rf", &[(5, 2), (3, 4)])
            .rel("co", &[(0, 5), (1, 3)])
            .rel("loc", &same(&[&[0, 2, 5], &[1, 3, 4]]))
            .rel("int", &same(&[&[2, 3], &[4, 5], &[0], &[1]])),
    );
    // Coherence: T0: w x (1); r x (2) reading the initial write, co 0→1.
    let corw = fences(
        Execution::new(3)
            .set("IW", &[0])
            .set("W", &[0, 1])
            .set("R", &[2])
            .set("X", &[])
            .rel("po", &[(1, 2)])
            .rel("rf", &[(0, 2)])
            .rel("co", &[(0, 1)])
            .rel("loc", &same(&[&[0, 1, 2]]))
            .rel("int", &same(&[&[1, 2], &[0]])),
    );
    // Atomicity: T0: an atomic r x (1) + w x (2) reading iw 0; T1: w x (3)
    // co between them: 0 → 3 → 2.
    let atomic = fences(
        Execution::new(4)
            .set("IW", &[0])
            .set("W", &[0, 2, 3])
            .set("R", &[1])
            .set("X", &[1, 2])
            .rel("rf", &[(0, 1)])
            .rel("co", &[(0, 3), (3, 2), (0, 2)])
            .rel("loc", &same(&[&[0, 1, 2, 3]]))
            .rel("int", &same(&[&[1, 2], &[3], &[0]]))
            .rel("same-instance", &[(0, 0), (1, 1), (2, 2), (3, 3), (1, 2), (2, 1)]),
    );
    // An atomic reading from a later write: T0: an atomic r x (1) + w x
    // (2); T1: w x (3), which the read reads though co puts 2 before it.
    let stale = fences(
        Execution::new(4)
            .set("IW", &[0])
            .set("W", &[0, 2, 3])
            .set("R", &[1])
            .set("X", &[1, 2])
            .rel("rf", &[(3, 1)])
            .rel("co", &[(0, 2), (2, 3), (0, 3)])
            .rel("loc", &same(&[&[0, 1, 2, 3]]))
            .rel("int", &same(&[&[1, 2], &[3], &[0]]))
            .rel("same-instance", &[(0, 0), (1, 1), (2, 2), (3, 3), (1, 2), (2, 1)]),
    );
    vec![
        ("allows load buffering (a po ∪ rf cycle)", lb),
        ("allows a read to see a write older than its thread's own (CoWR)", corw),
        ("allows a write between an atomic's read and its write", atomic),
        ("allows an atomic to read a write that its own write precedes", stale),
    ]
}

/// Every pair within each class.
fn same(classes: &[&[usize]]) -> Vec<(usize, usize)> {
    classes.iter().flat_map(|c| c.iter().flat_map(move |&a| c.iter().map(move |&b| (a, b)))).collect()
}
