//! The litmus language: lexing, parsing (native and herd x86 dialects),
//! semantic analysis and lowering to the IR the checker runs.
//!
//! Data flows one way: text → tokens → AST → (diagnostics, symbols) → IR.
//! [`analyze`] is the one entry point the checker, the CLI and the language
//! server use.

pub mod diagnostic;
pub mod digraph;
pub mod edit;
pub mod fence_ir;
pub mod files;
pub mod herd;
pub mod native;
pub(crate) mod nesting;
pub(crate) mod packed;
pub mod span;
pub(crate) mod spin;
pub mod symbols;

/// The IR lowering produces: its own crate, `litmus-ir` (the checker and
/// the other crates import it directly).
pub use litmus_ir as ir;

pub use diagnostic::{Diagnostic, Severity};
pub use ir::{Dialect, FenceKind, Program, Quantifier};
pub use native::lower::LowerOptions;
pub use nesting::{MAX_NESTING, NESTING_CODE};
pub use span::{LineIndex, Span};
pub use symbols::{Symbol, SymbolKind, Symbols};

/// Which dialect a source text is: herd when its first word (after blanks
/// and comments) is an architecture herd7 knows.
pub fn detect_dialect(src: &str) -> Dialect {
    // A byte-order mark is no word (editors on Windows write one).
    let mut rest = src.strip_prefix('\u{FEFF}').unwrap_or(src);
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map(|x| x.1).unwrap_or("");
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map(|x| x.1).unwrap_or("");
        } else {
            break;
        }
    }
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if word == "RISCV" {
        Dialect::HerdRiscv
    } else if word == "AArch64" {
        Dialect::HerdAArch64
    } else if word == "C" {
        Dialect::HerdC
    } else if herd::parser::HERD_ARCHS.contains(&word.as_str()) {
        Dialect::HerdX86
    } else {
        Dialect::Native
    }
}

/// The final condition as written: its quantifier and predicate text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionSummary {
    pub quantifier: Quantifier,
    pub text: String,
}

/// Everything known about a source text short of running it.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub dialect: Dialect,
    /// The test name, when the header parsed.
    pub name: Option<String>,
    pub condition: Option<ConditionSummary>,
    /// Sorted by position; errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
    pub symbols: Symbols,
    /// The lowered program; `None` when there is any error.
    pub program: Option<Program>,
    pub lines: LineIndex,
    /// Comment spans as the lexers see them (for highlighting).
    pub comments: Vec<Span>,
}

impl Analysis {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parse, analyse and (when clean) lower a source text. Never panics.
pub fn analyze(src: &str) -> Analysis {
    analyze_with(src, LowerOptions::default())
}

/// The file in its canonical layout (`litmus fmt`, the editor's "Format
/// Document"): a native file laid out by [`native::format`], a herd test
/// with its thread table's columns aligned; `None` when the file has errors.
pub fn format(src: &str) -> Option<String> {
    match detect_dialect(src) {
        Dialect::Native => native::format::format(src),
        // A C test is laid out as written.
        Dialect::HerdC => analyze(src).program.map(|_| src.to_string()),
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdAArch64 => {
            analyze(src).program.as_ref()?;
            let edits: Vec<edit::TextEdit> = edit::align_herd_table(src).into_iter().collect();
            Some(edit::apply(src, &edits))
        }
    }
}

/// [`analyze`] with lowering choices (tests compare spin loops reduced and
/// as written).
pub fn analyze_with(src: &str, opts: LowerOptions) -> Analysis {
    let lines = LineIndex::new(src);
    let dialect = detect_dialect(src);
    let mut a = match dialect {
        Dialect::Native => analyze_native(src, &lines, opts),
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdC | Dialect::HerdAArch64 => {
            herd::lower::analyze(src, &lines)
        }
    };
    a.diagnostics.sort_by_key(|d| (d.span.start, d.span.end, d.severity));
    a
}

fn analyze_native(src: &str, lines: &LineIndex, opts: LowerOptions) -> Analysis {
    let (file, mut diagnostics, comments) = native::parser::parse_with_comments(src);
    let syntax_errors = diagnostics.iter().any(Diagnostic::is_error);
    let sema = native::sema::Sema::run(src, &file, syntax_errors);
    diagnostics.extend(sema.diags.iter().cloned());
    let program = if diagnostics.iter().any(Diagnostic::is_error) {
        None
    } else {
        Some(native::lower::lower(src, &file, &sema, lines, opts))
    };
    let condition = file.items.iter().find_map(|i| match i {
        native::ast::Item::Final(f) => {
            Some(ConditionSummary { quantifier: f.quantifier, text: native::lower::cond_text(src, &f.cond) })
        }
        _ => None,
    });
    Analysis {
        dialect: Dialect::Native,
        name: file.header.as_ref().map(|h| h.name.name.clone()),
        condition,
        diagnostics,
        symbols: sema.symbols,
        program,
        lines: lines.clone(),
        comments,
    }
}
