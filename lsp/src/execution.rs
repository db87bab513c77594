//! Execution graphs in the editor: `litmus/executionGraph` answers the SVG
//! of a violation's witness (drawn by `litmus_present::picture`, the same as
//! `litmus explain --svg`), and each violation's delayed store gets a
//! "Show execution" lens running the client command `litmus.showExecution`.
//! Violations are numbered as `litmus check` lists them (from 1).

use litmus_checker::{Options, Report};
use litmus_dsl::{Program, Span};
use litmus_present::picture;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types as lsp;

pub const METHOD: &str = "litmus/executionGraph";
/// The client command the lenses run (VS Code and Neovim register it).
pub const COMMAND: &str = "litmus.showExecution";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphParams {
    pub text_document: lsp::TextDocumentIdentifier,
    /// 1-based, as `litmus check` numbers them.
    pub violation: usize,
    /// Draw the whole execution (the witness run to the end, preferring a
    /// continuation that fails an assertion), not only the events up to
    /// the cycle.
    #[serde(default)]
    pub whole: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphResult {
    pub svg: String,
    pub title: String,
    pub model: String,
    /// How many violations the document has now.
    pub violations: usize,
    /// The picture is of the whole execution (asked for, and a continuation
    /// keeping the cycle was found).
    pub whole: bool,
}

/// The picture of violation `n` (its whole execution when `whole` and one
/// is found, under `opts`' bounds), or why there is none.
pub fn graph(p: &Program, r: &Report, n: usize, whole: bool, opts: &Options) -> Result<GraphResult, String> {
    let all: Vec<_> = r.robustness.iter().flat_map(|rb| &rb.violations).collect();
    let v = n
        .checked_sub(1)
        .and_then(|i| all.get(i))
        .ok_or_else(|| format!("there is no violation {n} ({} found)", all.len()))?;
    let sc = r.sc_observation.as_ref();
    let continued = whole.then(|| litmus_checker::harm::whole_execution(p, v, sc, opts)).flatten();
    let pic = match &continued {
        Some(w) => picture::of_whole(p, v, n, w),
        None => picture::of_violation(p, v, n),
    };
    Ok(GraphResult {
        svg: picture::svg(&pic),
        title: pic.title.clone(),
        model: pic.model,
        violations: all.len(),
        whole: continued.is_some(),
    })
}

/// One lens per violation, on its delayed store: (span, title, number).
pub fn lenses(p: &Program, r: &Report) -> Vec<(Span, String, usize)> {
    r.robustness
        .iter()
        .flat_map(|rb| &rb.violations)
        .enumerate()
        .filter_map(|(i, v)| {
            let s = p.stmts.get(v.store_stmt as usize)?;
            // A herd row holds every thread's instruction: say whose.
            let whose = match p.dialect {
                litmus_dsl::Dialect::HerdX86 => format!("{}: ", p.threads[s.thread as usize].name),
                litmus_dsl::Dialect::Native => String::new(),
            };
            Some((s.span, format!("{whose}Show execution ({})", v.model.upper()), i + 1))
        })
        .collect()
}
