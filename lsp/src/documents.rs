//! The document store. Edits are applied here synchronously, in the order
//! the client sent them, before any handler awaits; everything computed
//! from a text (analysis, check) is tagged with the generation it came
//! from, so results of an older text are never shown as current.

use crate::convert::{self, Encoding};
use litmus_checker::Report;
use litmus_dsl::Analysis;
use ropey::Rope;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::watch;
use tower_lsp_server::ls_types as lsp;

/// The analysis of one generation of a document's text.
pub struct Analyzed {
    pub generation: u64,
    pub version: i32,
    pub rope: Rope,
    pub text: String,
    pub analysis: Analysis,
}

/// The check of one generation (the same generation as `analyzed`).
pub struct Checked {
    pub generation: u64,
    pub report: Arc<Report>,
    /// Robustness is known; the relaxed models' outcomes are still being explored.
    pub partial: bool,
    /// The program's semantic key with the settings it was checked under
    /// ([`litmus_ir::Program::semantic_key`]): a later text with the same
    /// key (a comment, spacing) is answered by this check, not a new one.
    pub key: String,
}

/// The checker's findings the editor shows, at the positions of `text`:
/// carried, moved with the edits, until the next check's arrive.
pub struct Shown {
    pub text: String,
    pub findings: Vec<litmus_present::findings::Finding>,
    /// The header lens's verdicts and the "Show execution" lenses
    /// (span, title, violation number): kept in place while a new check
    /// runs, so the rows do not jump.
    pub header: String,
    pub lenses: Vec<(litmus_ir::Span, String, crate::execution::Which)>,
}

/// How many complete checks a document keeps for texts it may come back to.
pub const RECENT: usize = 8;

pub struct Doc {
    pub uri: lsp::Uri,
    pub rope: Rope,
    pub version: i32,
    /// Bumped on every change of text or settings.
    pub generation: u64,
    /// The newest analysis, possibly of an older generation.
    pub analyzed: Option<Arc<Analyzed>>,
    /// The newest finished check, possibly of an older generation.
    pub checked: Option<Arc<Checked>>,
    /// The last complete checks of other texts (newest last, at most
    /// [`RECENT`]): an edit undone, or a text typed back, is answered by its
    /// check at once instead of checking again.
    pub recent: Vec<Arc<Checked>>,
    /// The checker's findings last published.
    pub shown: Option<Arc<Shown>>,
    /// A check of the current generation is pending or running.
    pub checking: bool,
    /// Cancels the current generation's check; replaced on every bump.
    pub cancel: Arc<AtomicBool>,
    /// The newest generation analysed; requests wait on it.
    pub ready: watch::Sender<u64>,
    /// Serialises publishing so an older generation's diagnostics can never
    /// arrive after a newer one's.
    pub publish: Arc<tokio::sync::Mutex<()>>,
    /// Pull clients: the diagnostics the pipeline last delivered (instead of
    /// pushing them), and the generation they are of, which requests wait on.
    pub pulled: Option<Arc<Pulled>>,
    pub pulled_generation: watch::Sender<u64>,
}

/// Work for the pipeline: one generation of one document.
pub struct Job {
    pub key: String,
    pub uri: lsp::Uri,
    pub generation: u64,
    pub version: i32,
    pub rope: Rope,
    pub cancel: Arc<AtomicBool>,
}

impl Doc {
    /// `publish` is the URI's lock from `Shared::publish_lock`, so a
    /// close and a reopen of the same URI publish in order.
    pub fn new(uri: lsp::Uri, text: &str, version: i32, publish: Arc<tokio::sync::Mutex<()>>) -> Doc {
        Doc {
            uri,
            rope: Rope::from_str(text),
            version,
            generation: 0,
            analyzed: None,
            checked: None,
            recent: Vec::new(),
            shown: None,
            checking: false,
            cancel: Arc::new(AtomicBool::new(false)),
            ready: watch::channel(0).0,
            publish,
            pulled: None,
            pulled_generation: watch::channel(0).0,
        }
    }

    /// Apply one `didChange`'s edits in order (each range refers to the text
    /// after the previous edit, as LSP specifies).
    pub fn apply(&mut self, changes: Vec<lsp::TextDocumentContentChangeEvent>, enc: Encoding) {
        for c in changes {
            match c.range {
                None => self.rope = Rope::from_str(&c.text),
                Some(r) => {
                    let span = convert::span(&self.rope, r, enc);
                    let (a, b) = (self.rope.byte_to_char(span.start), self.rope.byte_to_char(span.end));
                    self.rope.remove(a..b);
                    self.rope.insert(a, &c.text);
                }
            }
        }
    }

    /// A new generation (from `Shared::bump`, unique across the server, so
    /// a reopened document never reuses a closed one's numbers): the
    /// previous one's check is cancelled and its results will not be published.
    pub(crate) fn bump(&mut self, key: &str, generation: u64) -> Job {
        self.generation = generation;
        self.cancel.store(true, Ordering::Relaxed);
        self.cancel = Arc::new(AtomicBool::new(false));
        self.checking = true;
        Job {
            key: key.to_string(),
            uri: self.uri.clone(),
            generation: self.generation,
            version: self.version,
            rope: self.rope.clone(),
            cancel: self.cancel.clone(),
        }
    }
}

/// One delivery of a document's diagnostics, kept for pull requests.
pub struct Pulled {
    pub generation: u64,
    /// 0 for the analysis, then one more per check phase delivered.
    pub phase: u32,
    pub version: i32,
    pub items: Vec<lsp::Diagnostic>,
}

impl Pulled {
    /// Names the text (generation) and how far its check had got (phase),
    /// so equal ids mean equal diagnostics.
    pub fn result_id(&self) -> String {
        format!("{}.{}", self.generation, self.phase)
    }
}

pub fn key(uri: &lsp::Uri) -> String {
    uri.as_str().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(l0: u32, c0: u32, l1: u32, c1: u32, text: &str) -> lsp::TextDocumentContentChangeEvent {
        lsp::TextDocumentContentChangeEvent {
            range: Some(lsp::Range {
                start: lsp::Position { line: l0, character: c0 },
                end: lsp::Position { line: l1, character: c1 },
            }),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn edits_in_one_change_apply_in_sequence() {
        let uri: lsp::Uri = "file:///t.litmus".parse().unwrap();
        let mut d = Doc::new(uri, "// é🙂\nx = 1;\n", 1, Default::default());
        // After 🙂 (UTF-16 column 6: it is a surrogate pair), then the second edit sees the first's result.
        d.apply(vec![change(0, 6, 0, 6, "!"), change(1, 0, 1, 1, "yy")], Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "// é🙂!\nyy = 1;\n");
        d.apply(vec![change(0, 0, 2, 0, "")], Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "");
    }
}
