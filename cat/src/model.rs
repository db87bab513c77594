//! Loading a cat file with its includes, and the error type.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::ast::{Ins, InsKind, Program, Span};
use crate::parser;

/// A message about a place in a cat file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub path: PathBuf,
    pub span: Span,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.path.display(), self.line, self.column, self.message)
    }
}

/// Everything that can go wrong reading or evaluating a model.
#[derive(Debug, thiserror::Error)]
pub enum CatError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A lexical or syntax error.
    #[error("{0}")]
    Syntax(Diagnostic),
    /// A missing include, or an include cycle.
    #[error("{0}")]
    Include(Diagnostic),
    /// An evaluation error (unbound name, type error, …).
    #[error("{0}")]
    Eval(Diagnostic),
    /// Something the evaluator does not do yet.
    #[error("{0}")]
    Unsupported(Diagnostic),
    /// The execution's own `co` (or other order) is not one of `with x
    /// from S`'s candidates: herd7 never builds such an execution, so an
    /// explorer that enumerates every order reads this as "not allowed".
    #[error("{0}")]
    NotACandidate(Diagnostic),
    /// The execution given cannot be evaluated (too many events, an event
    /// number past its size).
    #[error("execution: {0}")]
    Execution(String),
}

impl CatError {
    /// The diagnostic, if the error has a place.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            CatError::Io { .. } | CatError::Execution(_) => None,
            CatError::Syntax(d)
            | CatError::Include(d)
            | CatError::Eval(d)
            | CatError::Unsupported(d)
            | CatError::NotACandidate(d) => Some(d),
        }
    }
}

/// One parsed file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
    pub program: Program,
}

impl SourceFile {
    /// A diagnostic at `span` of this file.
    pub fn diagnostic(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        diagnostic(&self.path, &self.text, span, message.into())
    }
}

fn diagnostic(path: &Path, text: &str, span: Span, message: String) -> Diagnostic {
    let start = (span.start as usize).min(text.len());
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..start].chars().count() + 1;
    Diagnostic { path: path.to_path_buf(), span, line, column, message }
}

/// Parses `text` as the cat file `path` (for messages only).
pub fn parse_file(path: &Path, text: &str) -> Result<Program, CatError> {
    parser::parse(text).map_err(|e| CatError::Syntax(diagnostic(path, text, e.span, e.message)))
}

/// A model: its root file, every file it includes, and the prelude.
#[derive(Debug, Clone)]
pub struct Model {
    pub files: Vec<SourceFile>,
    pub root: usize,
    /// `stdlib.cat`, run before the root as herd does, when found.
    pub prelude: Option<usize>,
    /// (file, span start of an `include`) → the included file.
    pub includes: HashMap<(usize, u32), usize>,
}

/// Where a loader finds the files a model includes.
enum Source<'a> {
    /// The filesystem: next to the including file, then these directories.
    Dirs(&'a [PathBuf]),
    /// A lookup by the name written in the `include` (no filesystem).
    Lookup(&'a dyn Fn(&str) -> Option<String>),
}

struct Loader<'a> {
    source: Source<'a>,
    files: Vec<SourceFile>,
    by_path: HashMap<PathBuf, usize>,
    includes: HashMap<(usize, u32), usize>,
    stack: Vec<PathBuf>,
}

impl Model {
    /// Reads `path` and everything it includes, searching each include in
    /// the including file's directory, then in `include_dirs`.
    pub fn load(path: impl AsRef<Path>, include_dirs: &[PathBuf]) -> Result<Model, CatError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| CatError::Io { path: path.to_path_buf(), source })?;
        Model::from_source(path, &text, include_dirs)
    }

    /// Like [`Model::load`], for a file whose text is `text` (its includes
    /// are searched next to `path`, then in `include_dirs`).
    pub fn from_source(path: &Path, text: &str, include_dirs: &[PathBuf]) -> Result<Model, CatError> {
        Loader::new(Source::Dirs(include_dirs)).model(path, text)
    }

    /// Like [`Model::from_source`], with no filesystem: each `include "f"`
    /// (and the `stdlib.cat` prelude) is `lookup("f")`, and an included file
    /// is named by that string in diagnostics. [`crate::stock`] loads herd's
    /// library this way; a model of the user's can include the stock files
    /// with `lookup = stock::source`.
    pub fn from_sources(path: &Path, text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Model, CatError> {
        Loader::new(Source::Lookup(lookup)).model(path, text)
    }

    /// The root file.
    pub fn root_file(&self) -> &SourceFile {
        &self.files[self.root]
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl<'a> Loader<'a> {
    fn new(source: Source<'a>) -> Loader<'a> {
        Loader { source, files: Vec::new(), by_path: HashMap::new(), includes: HashMap::new(), stack: Vec::new() }
    }

    fn model(mut self, path: &Path, text: &str) -> Result<Model, CatError> {
        let root = self.add(path.to_path_buf(), text.to_string())?;
        let prelude = match self.find(path, "stdlib.cat") {
            Some(p) if self.key(&p) != self.key(path) => Some(self.file(p)?),
            _ => None,
        };
        Ok(Model { files: self.files, root, prelude, includes: self.includes })
    }

    fn find(&self, from: &Path, name: &str) -> Option<PathBuf> {
        match &self.source {
            Source::Dirs(dirs) => {
                let here = from.parent().map(|d| d.join(name));
                here.into_iter().chain(dirs.iter().map(|d| d.join(name))).find(|p| p.is_file())
            }
            Source::Lookup(f) => f(name).map(|_| PathBuf::from(name)),
        }
    }

    /// The identity of a file: its canonical path, or its name.
    fn key(&self, p: &Path) -> PathBuf {
        match self.source {
            Source::Dirs(_) => canonical(p),
            Source::Lookup(_) => p.to_path_buf(),
        }
    }

    fn read(&self, path: &Path) -> Result<String, CatError> {
        match &self.source {
            Source::Dirs(_) => {
                std::fs::read_to_string(path).map_err(|source| CatError::Io { path: path.to_path_buf(), source })
            }
            Source::Lookup(f) => f(&path.to_string_lossy()).ok_or_else(|| CatError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "not in the lookup"),
            }),
        }
    }

    fn file(&mut self, path: PathBuf) -> Result<usize, CatError> {
        if let Some(&i) = self.by_path.get(&self.key(&path)) {
            return Ok(i);
        }
        let text = self.read(&path)?;
        self.add(path, text)
    }

    fn add(&mut self, path: PathBuf, text: String) -> Result<usize, CatError> {
        let program = parse_file(&path, &text)?;
        let key = self.key(&path);
        let idx = self.files.len();
        self.files.push(SourceFile { path: path.clone(), text, program });
        self.by_path.insert(key.clone(), idx);
        self.stack.push(key);
        let mut incs = Vec::new();
        collect_includes(&self.files[idx].program.body, &mut incs);
        for (name, span) in incs {
            let Some(p) = self.find(&path, &name) else {
                let f = &self.files[idx];
                return Err(CatError::Include(f.diagnostic(span, format!("cannot find included file \"{name}\""))));
            };
            let c = self.key(&p);
            if let Some(pos) = self.stack.iter().position(|s| *s == c) {
                let chain: Vec<String> = self.stack[pos..]
                    .iter()
                    .chain(std::iter::once(&c))
                    .map(|s| s.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned()))
                    .collect();
                let f = &self.files[idx];
                return Err(CatError::Include(f.diagnostic(span, format!("include cycle: {}", chain.join(" → ")))));
            }
            let j = self.file(p)?;
            self.includes.insert((idx, span.start), j);
        }
        self.stack.pop();
        Ok(idx)
    }
}

fn collect_includes(body: &[Ins], out: &mut Vec<(String, Span)>) {
    for i in body {
        match &i.kind {
            InsKind::Include(name, span) => out.push((name.clone(), *span)),
            InsKind::Match { clauses, default, .. } => {
                for (_, b) in clauses {
                    collect_includes(b, out);
                }
                if let Some(d) = default {
                    collect_includes(d, out);
                }
            }
            InsKind::Procedure { body, .. } | InsKind::Forall { body, .. } => collect_includes(body, out),
            InsKind::IfVariant { then, otherwise, .. } => {
                collect_includes(then, out);
                collect_includes(otherwise, out);
            }
            _ => {}
        }
    }
}
