//! `litmus history FILE…`: is each recorded history sequentially consistent
//! (or TSO)? Files are checked in parallel and reported in input order:
//! the verdict, the criterion that failed and its cycle drawn over the
//! file, or the store order that shows consistency. Exit 0 when every
//! history is consistent, 1 when one is not, 2 on unreadable or bad input,
//! 3 when one was not decided (`--timeout`, `--max-memory`).

use crate::check::read_utf8;
use crate::{Color, Format};
use litmus_dsl::diagnostic::{render, Diagnostic};
use litmus_dsl::span::LineIndex;
use litmus_history::cat::{check_cat, CatOutcome, CatVerdict, MAX_ORDERS};
use litmus_history::verdict::{cycle_text, store_order_text};
use litmus_history::{
    check_within, parse_any, Criterion, ErrorKind, History, HistoryError, Limits, Method, Model, Outcome, Step, Verdict,
};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MethodArg {
    /// CCM (wCCM for TSO), then backtracking over the pairs of writes left unordered.
    CcmEnum,
    /// CCM (wCCM for TSO), then SAT over the pairs left unordered.
    CcmSat,
    /// The direct SAT encoding of the model's axioms.
    Sat,
}

#[derive(clap::Args)]
pub struct HistoryArgs {
    /// History files: the text format (`P0: W(x,1) R(y,0)`) or JSON (docs/history.md).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// The memory model to check against: `sc`, `tso`, or a model given as
    /// data (a `.cat` file, or herd's stock model by name: `x86tso.cat`),
    /// whose axioms are asked of each store order in turn.
    #[arg(long, default_value = "sc")]
    pub model: String,
    /// A directory to look for a `.cat` model's `include`s in (repeatable;
    /// herd's stock files are built in).
    #[arg(long = "cat-include", value_name = "DIR")]
    pub cat_include: Vec<std::path::PathBuf>,
    /// How to look for a store order.
    #[arg(long, value_enum, default_value = "ccm-enum")]
    pub method: MethodArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Give up on a file after this many seconds: it is then reported as
    /// unknown (exit 3).
    #[arg(long, value_parser = crate::check::timeout_arg, allow_hyphen_values = true)]
    pub timeout: Option<std::time::Duration>,
    /// The memory, in GiB, a file's relations may take; a history that
    /// needs more is reported as unknown before any is allocated.
    #[arg(long, default_value_t = 2.0, value_parser = gib_arg)]
    pub max_memory: f64,
}

fn gib_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(g) if g > 0.0 && g <= 1024.0 => Ok(g),
        _ => Err(format!("`{s}` is not a size in GiB (more than 0, at most 1024)")),
    }
}

enum Checked {
    Unreadable(String),
    Bad { src: String, error: HistoryError },
    Done { src: String, h: Box<History>, outcome: Outcome },
    ByCat { h: Box<History>, outcome: CatOutcome },
}

/// What `--model` names: a built-in criterion or a model given as data.
#[derive(Clone, Copy)]
enum Asked {
    Builtin(Model),
    Cat(litmus_checker::machine::Model, litmus_checker::catalog::CatId),
}

fn asked(args: &HistoryArgs) -> Result<Asked, String> {
    use litmus_checker::machine::Model as M;
    match M::parse_in(&args.model, &args.cat_include).map_err(|e| e.to_string())? {
        M::Sc => Ok(Asked::Builtin(Model::Sc)),
        M::Tso => Ok(Asked::Builtin(Model::Tso)),
        m @ M::Cat(id) => Ok(Asked::Cat(m, id)),
        m => Err(format!(
            "histories are checked under sc, tso or a model given as data (a .cat file), not {}",
            m.as_str()
        )),
    }
}

pub fn run(args: &HistoryArgs) -> u8 {
    let asked = match asked(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let method = match args.method {
        MethodArg::CcmEnum => Method::CcmEnum,
        MethodArg::CcmSat => Method::CcmSat,
        MethodArg::Sat => Method::Sat,
    };
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal(),
    };
    let results: Vec<Checked> = args
        .files
        .par_iter()
        .map(|path| match read_utf8(path) {
            Err(e) => Checked::Unreadable(e),
            Ok(src) => match parse_any(&src) {
                Err(error) => Checked::Bad { src, error },
                Ok(h) => {
                    // Each file's deadline starts when its check does.
                    let limits = Limits {
                        deadline: args.timeout.and_then(|t| std::time::Instant::now().checked_add(t)),
                        max_bytes: (args.max_memory * (1u64 << 30) as f64) as u64,
                    };
                    match asked {
                        Asked::Builtin(model) => {
                            let outcome = check_within(&h, model, method, &limits);
                            Checked::Done { src, h: Box::new(h), outcome }
                        }
                        Asked::Cat(_, id) => {
                            let outcome = check_cat(&h, id, MAX_ORDERS, limits.deadline);
                            Checked::ByCat { h: Box::new(h), outcome }
                        }
                    }
                }
            },
        })
        .collect();
    let mut code = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (path, r) in args.files.iter().zip(results) {
        let (text, file_code) = match (&r, args.format) {
            (Checked::Unreadable(e), Format::Human) => {
                eprintln!("error: {e}");
                (String::new(), 2)
            }
            (Checked::Unreadable(e), Format::Json) => {
                eprintln!("error: {e}");
                (line(&json!({ "file": path, "verdict": "error", "error": { "message": e } })), 2)
            }
            (Checked::Bad { src, error }, format) => {
                eprint!("{}", render(&[diagnostic(error)], path, src, color && format == Format::Human));
                let text = if format == Format::Json { line(&error_json(path, error)) } else { String::new() };
                (text, 2)
            }
            (Checked::ByCat { h, outcome }, format) => {
                let Asked::Cat(m, _) = asked else { unreachable!("checked by a model given as data") };
                let bad = match outcome.verdict {
                    CatVerdict::Allowed { .. } => 0,
                    CatVerdict::Forbidden => 1,
                    CatVerdict::Unknown(_) => 3,
                };
                let text = match format {
                    Format::Json => line(&cat_json(path, h, m.as_str(), outcome)),
                    Format::Human => cat_human(path, h, m.as_str(), outcome),
                };
                (text, bad)
            }
            (Checked::Done { src, h, outcome }, format) => {
                let bad = match outcome.verdict {
                    Verdict::Consistent { .. } => 0,
                    Verdict::Violation { .. } => 1,
                    Verdict::Unknown { .. } => 3,
                };
                let text = match format {
                    Format::Json => line(&outcome_json(path, src, h, outcome)),
                    Format::Human => human(path, src, h, outcome, color),
                };
                (text, bad)
            }
        };
        // Error, then violation, then unknown, then consistent.
        let rank = |c: u8| [0, 2, 3, 1][c as usize];
        if rank(file_code) > rank(code) {
            code = file_code;
        }
        let _ = out.write_all(text.as_bytes());
    }
    code
}

fn line(v: &Value) -> String {
    serde_json::to_string(v).expect("JSON serialises") + "\n"
}

/// An input error as a rustc-style diagnostic at its place.
fn diagnostic(e: &HistoryError) -> Diagnostic {
    let d = Diagnostic::error(e.code(), e.span, e.kind.to_string());
    match &e.kind {
        ErrorKind::Duplicate { first, .. } => d.with_related(*first, "first written here"),
        ErrorKind::DuplicateThread { first, .. } => d.with_related(*first, "first defined here"),
        ErrorKind::DuplicateInit { first, .. } => d.with_related(*first, "first given here"),
        ErrorKind::WritesInitial { .. } => {
            d.with_help("write another value: 0 (or the `init:` value) is what every location starts with")
        }
        ErrorKind::Unwritten { .. } => {
            d.with_help("every value read must be written by some operation, or be the initial value")
        }
        ErrorKind::Syntax(_) => d,
    }
}

fn error_json(path: &str, e: &HistoryError) -> Value {
    json!({
        "file": path,
        "verdict": "error",
        "error": { "code": e.code(), "message": e.kind.to_string(), "line": e.line, "column": e.column },
    })
}

fn cycle_json(src: &str, h: &History, cycle: &[Step]) -> Value {
    let lines = LineIndex::new(src);
    Value::Array(
        cycle
            .iter()
            .map(|s| {
                let op = &h.ops[s.op];
                let thread = op.thread.map_or("init".to_string(), |t| h.threads[t].name.clone());
                let mut v = json!({ "thread": thread, "op": h.op_text(s.op), "edge": s.edge.as_str() });
                if op.thread.is_some() {
                    let (l, c) = lines.line_col(src, op.span.start);
                    v["line"] = json!(l);
                    v["column"] = json!(c);
                }
                v
            })
            .collect(),
    )
}

fn outcome_json(path: &str, src: &str, h: &History, o: &Outcome) -> Value {
    let s = &o.stats;
    let mut v = json!({
        "file": path,
        "model": o.model.as_str(),
        "method": o.method.as_str(),
        "stats": {
            "write_pairs": s.write_pairs,
            "unordered": s.unordered,
            "decisions": s.decisions,
            "dead_ends": s.dead_ends,
            "backjumps": s.backjumps,
            "sat_vars": s.sat_vars,
            "sat_clauses": s.sat_clauses,
            "sat_rounds": s.sat_rounds,
        },
    });
    match &o.verdict {
        Verdict::Consistent { store_order } => {
            v["verdict"] = json!("consistent");
            let mut order = serde_json::Map::new();
            for (l, ws) in store_order.iter().enumerate() {
                let vals: Vec<i64> = ws.iter().map(|&w| h.ops[w].kind.written_value().unwrap_or_default()).collect();
                order.insert(h.locs[l].clone(), json!(vals));
            }
            v["store_order"] = Value::Object(order);
        }
        Verdict::Violation { criterion, cycle, other } => {
            v["verdict"] = json!("violation");
            v["criterion"] = json!(criterion.as_str());
            v["condition"] = json!(criterion.condition(o.model));
            v["cycle"] = cycle_json(src, h, cycle);
            if let Some(c) = other {
                v["other_cycle"] = cycle_json(src, h, c);
            }
        }
        Verdict::Unknown { why } => {
            v["verdict"] = json!("unknown");
            v["unknown_reason"] = json!(why.as_str());
            v["unknown_note"] = json!(why.describe());
        }
    }
    v
}

/// Per location, the values of its writes in `order`.
fn order_json(h: &History, order: &[Vec<usize>]) -> Value {
    let mut out = serde_json::Map::new();
    for (l, ws) in order.iter().enumerate() {
        let vals: Vec<i64> = ws.iter().map(|&w| h.ops[w].kind.written_value().unwrap_or_default()).collect();
        out.insert(h.locs[l].clone(), json!(vals));
    }
    Value::Object(out)
}

fn cat_json(path: &str, h: &History, model: &str, o: &CatOutcome) -> Value {
    let mut v = json!({ "file": path, "model": model, "method": "cat", "stats": { "orders": o.orders } });
    match &o.verdict {
        CatVerdict::Allowed { store_order } => {
            v["verdict"] = json!("consistent");
            v["store_order"] = order_json(h, store_order);
        }
        CatVerdict::Forbidden => {
            v["verdict"] = json!("violation");
            v["condition"] = json!("the model allows no store order");
        }
        CatVerdict::Unknown(why) => {
            v["verdict"] = json!("unknown");
            v["unknown_reason"] = json!(why.as_str());
            v["unknown_note"] = json!(why.describe());
        }
    }
    v
}

fn cat_human(path: &str, h: &History, model: &str, o: &CatOutcome) -> String {
    let n = o.orders;
    let asked = format!("cat: {n} store order{} asked", if n == 1 { "" } else { "s" });
    match &o.verdict {
        CatVerdict::Allowed { store_order } => {
            format!("{path}: {model} consistent ({asked})\n  store order: {}\n", store_order_text(h, store_order))
        }
        CatVerdict::Forbidden => format!("{path}: not {model}: the model allows no store order ({asked})\n"),
        CatVerdict::Unknown(why) => format!("{path}: {model} unknown: {} ({asked})\n", why.describe()),
    }
}

fn human(path: &str, src: &str, h: &History, o: &Outcome, color: bool) -> String {
    let mut out = String::new();
    let model = o.model.upper();
    let s = &o.stats;
    let how = match s.unordered {
        Some(u) => format!(
            "{}: {} left {u} of {} pairs of writes unordered",
            o.method.as_str(),
            o.model.store_order_name(),
            s.write_pairs
        ),
        None => o.method.as_str().to_string(),
    };
    match &o.verdict {
        Verdict::Consistent { store_order } => {
            let _ = writeln!(out, "{path}: {model} consistent ({how})");
            let _ = writeln!(out, "  store order: {}", store_order_text(h, store_order));
        }
        Verdict::Violation { criterion, cycle, other } => {
            let failed = match criterion {
                Criterion::NoStoreOrder => "no store order extends the partial one".to_string(),
                c => format!("{} fails", c.as_str()),
            };
            let _ = writeln!(out, "{path}: not {model}: {failed} ({how})");
            let _ = writeln!(out, "  {}", criterion.condition(o.model));
            let _ = writeln!(out, "  cycle: {}", cycle_text(h, cycle));
            if let Some(c) = other {
                let _ = writeln!(out, "  the first choice the other way round: {}", cycle_text(h, c));
            }
            out.push_str(&drawn(path, src, h, cycle, &format!("not {model}: {failed}"), color));
        }
        Verdict::Unknown { why } => {
            let _ = writeln!(out, "{path}: {model} unknown: {} ({how})", why.describe());
        }
    }
    out
}

/// The cycle over the file's lines: each operation labelled with its place
/// in the cycle and the edge that leaves it.
fn drawn(path: &str, src: &str, h: &History, cycle: &[Step], message: &str, color: bool) -> String {
    let in_file: Vec<(usize, &Step)> = cycle.iter().enumerate().filter(|(_, s)| h.ops[s.op].thread.is_some()).collect();
    let Some(&(_, first)) = in_file.first() else { return String::new() };
    let label = |i: usize, s: &Step| format!("{}. {} -{}->", i + 1, h.op_text(s.op), s.edge.as_str());
    let mut d = Diagnostic::error("E0610", h.ops[first.op].span, message).with_label(label(in_file[0].0, first));
    for &(i, s) in &in_file[1..] {
        d = d.with_related(h.ops[s.op].span, label(i, s));
    }
    render(&[d], path, src, color)
}
