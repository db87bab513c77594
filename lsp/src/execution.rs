//! Execution graphs in the editor: `litmus/executionGraph` answers the SVG
//! of a violation's witness (drawn by `litmus_present::picture`, the same as
//! `litmus explain --svg`), and each violation's delayed store gets a
//! "Show execution" lens running the client command `litmus.showExecution`.
//! Violations are numbered as `litmus check` lists them (from 1).

use litmus_checker::outcome::FinalState;
use litmus_checker::{Options, Report};
use litmus_ir::{Program, Span};
use litmus_present::picture;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types as lsp;

pub const METHOD: &str = "litmus/executionGraph";
/// The client command the lenses run where the client implements it (VS
/// Code and Neovim say so in `initializationOptions.clientCommands`).
pub const COMMAND: &str = "litmus.showExecution";
/// The same as a server command (`workspace/executeCommand`), for every
/// other client: the SVG is written to a file the client is asked to open.
pub const SERVER_COMMAND: &str = "litmus.server.showExecution";

/// Which execution to draw: a violation's witness (numbered from 1 as
/// `litmus check` lists them), the SC execution that breaks the final
/// condition (`"condition"`), or the first witness of a failing statement
/// (`"failure:STMT"`). On the wire a number or that string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Violation(usize),
    Condition,
    Failure(u32),
}

impl Which {
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Which::Violation(n) => serde_json::json!(n),
            Which::Condition => serde_json::json!("condition"),
            Which::Failure(s) => serde_json::json!(format!("failure:{s}")),
        }
    }

    pub fn from_json(v: &serde_json::Value) -> Result<Which, String> {
        if let Some(n) = v.as_u64() {
            return Ok(Which::Violation(n as usize));
        }
        match v.as_str() {
            Some("condition") => Ok(Which::Condition),
            Some(s) if s.starts_with("failure:") => {
                s["failure:".len()..].parse().map(Which::Failure).map_err(|_| format!("bad execution `{s}`"))
            }
            _ => Err(format!("bad execution {v}: a violation number, \"condition\" or \"failure:N\"")),
        }
    }
}

impl<'de> Deserialize<'de> for Which {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Which::from_json(&v).map_err(serde::de::Error::custom)
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphParams {
    pub text_document: lsp::TextDocumentIdentifier,
    /// A violation's number (from 1, as `litmus check` numbers them),
    /// `"condition"` or `"failure:STMT"` ([`Which`]).
    pub violation: Which,
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

/// The picture of `which` (a violation's whole execution when `whole` and
/// one is found, under `opts`' bounds), or why there is none.
pub fn graph(p: &Program, r: &Report, which: Which, whole: bool, opts: &Options) -> Result<GraphResult, String> {
    let all: Vec<_> = r.robustness.iter().flat_map(|rb| &rb.violations).collect();
    let (pic, continued) = match which {
        Which::Violation(n) => {
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
            (pic, continued.is_some())
        }
        Which::Condition => match (condition_witness(p, r), forbidden(r)) {
            (Some((model, state)), _) => {
                let title = format!("{}: the final condition fails under {}", p.name, model.upper());
                let mut pic = picture::of_events(p, &state.witness.events, &[], title);
                pic.model = model.upper().into();
                // The run is drawn whole either way; say only what was asked.
                (pic, whole)
            }
            // Else a forbidden outcome: the candidate reaching it, with the
            // first failing axiom's cycle in the model's relations.
            (None, Some((model, f))) => {
                let title = format!("{}: the final condition's outcome, forbidden under {}", p.name, model.upper());
                let mut pic = picture::of_forbidden(p, f, 0, title);
                pic.model = model.upper().into();
                (pic, whole)
            }
            (None, None) => {
                return Err("no SC execution breaks the final condition, and no model forbids its outcome (now)".into())
            }
        },
        Which::Failure(stmt) => {
            let (model, f) = r
                .outcomes
                .iter()
                .find_map(|o| o.failures.iter().find(|f| f.stmt == stmt).map(|f| (o.model, f)))
                .ok_or_else(|| format!("statement {stmt} does not fail (now)"))?;
            let s = p.stmts.get(stmt as usize).map(|s| s.text.as_str()).unwrap_or("?");
            let title = format!("{}: `{s}` fails under {}", p.name, model.upper());
            let mut pic = picture::of_events(p, &f.witness.events, &[], title);
            pic.model = model.upper().into();
            (pic, whole)
        }
    };
    Ok(GraphResult {
        svg: picture::svg(&pic),
        title: pic.title.clone(),
        model: pic.model,
        violations: all.len(),
        whole: continued,
    })
}

/// The SC execution that breaks the final condition, as its finding
/// (E0305) names it.
pub fn condition_witness<'r>(p: &Program, r: &'r Report) -> Option<(litmus_checker::Model, &'r FinalState)> {
    let (model, state) = litmus_present::findings::sc_breaking_state(p, &r.outcomes)?;
    let o = &r.outcomes[model];
    Some((o.model, &o.states[state]))
}

/// The first model given as data that forbids the condition's outcome.
fn forbidden(r: &Report) -> Option<(litmus_checker::Model, &litmus_checker::outcome::Forbidden)> {
    r.outcomes.iter().find_map(|o| o.forbidden.as_ref().map(|f| (o.model, f)))
}

/// The "Show execution" lenses: one per cycle on its delayed store (a
/// cycle found under several models once, naming them, and saying what the
/// store is delayed past, so the lenses of one line tell themselves
/// apart); one on a condition SC breaks; one on each failing statement.
pub fn lenses(p: &Program, r: &Report) -> Vec<(Span, String, Which)> {
    let mut out: Vec<(Span, String, Which)> = Vec::new();
    // Per cycle (its statements and edges): its first violation's number
    // and the models it was found under.
    type Cycle<'a> = (Vec<(u32, &'a str)>, usize, Vec<&'a str>);
    let mut cycles: Vec<Cycle> = Vec::new();
    let mut n = 0;
    for rb in &r.robustness {
        for v in &rb.violations {
            n += 1;
            let key: Vec<(u32, &str)> = v.cycle.iter().map(|s| (s.stmt, s.edge.as_str())).collect();
            match cycles.iter_mut().find(|c| c.0 == key) {
                Some(c) if !c.2.contains(&v.model.upper()) => c.2.push(v.model.upper()),
                Some(_) => {}
                None => cycles.push((key, n, vec![v.model.upper()])),
            }
        }
    }
    let all: Vec<_> = r.robustness.iter().flat_map(|rb| &rb.violations).collect();
    for (_, n, models) in cycles {
        let v = all[n - 1];
        let Some(s) = p.stmts.get(v.store_stmt as usize) else { continue };
        let past = p.stmts.get(v.delayed_past() as usize).map(|d| d.text.as_str()).unwrap_or("?");
        out.push((
            s.span,
            format!("{}Show execution ({}): past `{past}`", whose(p, s), models.join("/")),
            Which::Violation(n),
        ));
    }
    if let (Some(c), Some((m, _))) = (&p.condition, condition_witness(p, r)) {
        out.push((c.span, format!("Show execution ({}): the condition fails", m.upper()), Which::Condition));
    } else if let (Some(c), Some((m, _))) = (&p.condition, forbidden(r)) {
        out.push((c.span, format!("Show why it is forbidden ({})", m.upper()), Which::Condition));
    }
    let mut failing: Vec<u32> = Vec::new();
    for o in &r.outcomes {
        for f in &o.failures {
            if !failing.contains(&f.stmt) {
                failing.push(f.stmt);
                if let Some(s) = p.stmts.get(f.stmt as usize) {
                    out.push((
                        s.span,
                        format!("{}Show execution ({}): `{}` fails", whose(p, s), o.model.upper(), s.text),
                        Which::Failure(f.stmt),
                    ));
                }
            }
        }
    }
    out
}

/// A herd row holds every thread's instruction: say whose.
fn whose(p: &Program, s: &litmus_ir::StmtInfo) -> String {
    match p.dialect {
        litmus_ir::Dialect::HerdX86 | litmus_ir::Dialect::HerdRiscv | litmus_ir::Dialect::HerdAArch64 => {
            format!("{}: ", p.threads[s.thread as usize].name)
        }
        // (A C test's threads are functions of their own.)
        litmus_ir::Dialect::Native | litmus_ir::Dialect::HerdC => String::new(),
    }
}
