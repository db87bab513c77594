//! `litmus diff OLD NEW`: what a regression run changed — verdicts that
//! differ, files that got slower than a threshold, files added or removed.
//! Exit 1 on any of these, 0 when the runs agree, 2 on unreadable input.

use super::reports;
use super::tally::model_rank;
use crate::report::{FileReport, ModelJson};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The earlier report (`litmus check --format json|jsonl`, or `litmus merge`'s).
    pub old: String,
    /// The later report.
    pub new: String,
    /// A file is slower when its time grew by this factor…
    #[arg(long, default_value_t = 1.5)]
    pub slower: f64,
    /// …and by at least this many milliseconds (small files jitter).
    #[arg(long, default_value_t = 50.0)]
    pub min_ms: f64,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: crate::Format,
}

/// What a regression run changed. Fields in name order (here and below):
/// the output was first written as untyped JSON maps, which sort their keys.
#[derive(Serialize, Default)]
pub struct Diff {
    /// Files only the new report has.
    pub added: Vec<String>,
    pub changed: Vec<Change>,
    /// Files only the old report has.
    pub removed: Vec<String>,
    pub slower: Vec<Slower>,
}

/// One answer that differs.
#[derive(Serialize)]
pub struct Change {
    pub file: String,
    /// `null` for what concerns the whole file.
    pub model: Option<String>,
    /// The answers as JSON: `null` when absent.
    pub new: Value,
    pub old: Value,
    pub what: &'static str,
}

#[derive(Serialize)]
pub struct Slower {
    pub file: String,
    pub new_ms: f64,
    pub old_ms: f64,
}

impl Diff {
    fn any(&self) -> bool {
        !(self.changed.is_empty() && self.slower.is_empty() && self.added.is_empty() && self.removed.is_empty())
    }
}

/// Per model, the answers a regression must not change, then the lists
/// whose length it must not change.
const MODEL_FIELDS: [&str; 8] =
    ["observation", "states", "robust", "deadlocks", "certainty", "violations", "assertion_failures", "fences"];

/// A model's [`MODEL_FIELDS`] as JSON; all `null` for a model not checked.
fn model_answers(m: Option<&ModelJson>) -> [Value; 8] {
    let Some(m) = m else { return Default::default() };
    [
        json!(m.observation),
        json!(m.states),
        json!(m.robust),
        json!(m.deadlocks),
        json!(m.certainty),
        json!(m.violations.as_ref().map(Vec::len)),
        json!(m.assertion_failures.len()),
        json!(m.fences.as_ref().map(Vec::len)),
    ]
}

pub fn run(args: &DiffArgs) -> u8 {
    let sane = args.slower.is_finite() && args.slower >= 1.0 && args.min_ms.is_finite() && args.min_ms >= 0.0;
    if !sane {
        eprintln!("error: --slower must be a factor ≥ 1 and --min-ms a number ≥ 0");
        return 2;
    }
    let load = |p: &str| -> Result<BTreeMap<PathBuf, FileReport>, String> {
        let r = reports::read(p)?;
        let mut files = BTreeMap::new();
        for f in r.files {
            let file = f.report.file.clone();
            if files.insert(PathBuf::from(&file), f.report).is_some() {
                return Err(format!("`{p}` reports `{file}` twice"));
            }
        }
        Ok(files)
    };
    let (old, new) = match (load(&args.old), load(&args.new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let d = compare(&old, &new, args.slower, args.min_ms);
    let text = match args.format {
        crate::Format::Json => serde_json::to_string(&d).expect("diff serialises") + "\n",
        crate::Format::Human => {
            human(&d, old.keys().chain(new.keys()).collect::<std::collections::BTreeSet<_>>().len())
        }
    };
    // A closed output (`| head`) is no error: the exit status still tells.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    u8::from(d.any())
}

/// The differences: `changed` (file, model, what, old, new), `slower`
/// (file, old_ms, new_ms), `added`, `removed` (files).
pub fn compare(
    old: &BTreeMap<PathBuf, FileReport>,
    new: &BTreeMap<PathBuf, FileReport>,
    slower: f64,
    min_ms: f64,
) -> Diff {
    let mut d = Diff::default();
    for (path, o) in old {
        let file = path.to_string_lossy();
        let Some(n) = new.get(path) else {
            d.removed.push(file.into_owned());
            continue;
        };
        let mut change = |model: Option<&str>, what: &'static str, a: Value, b: Value| {
            if a != b {
                let (file, model) = (file.to_string(), model.map(str::to_string));
                d.changed.push(Change { file, model, what, old: a, new: b });
            }
        };
        change(None, "status", json!(o.status), json!(n.status));
        change(None, "error", json!(o.error), json!(n.error));
        let errors = |r: &FileReport| json!(r.diagnostics.iter().filter(|d| d.severity == "error").count());
        change(None, "errors", errors(o), errors(n));
        let verdict = |r: &FileReport| json!(r.expect.as_ref().map(|e| &e.verdict));
        change(None, "expect", verdict(o), verdict(n));
        let mut models: Vec<&str> = o.models.0.iter().chain(&n.models.0).map(|(k, _)| k.as_ref()).collect();
        models.sort_by_key(|m| (model_rank(m), m.to_string()));
        models.dedup();
        for m in models {
            let (a, b) = (model_answers(o.models.get(m)), model_answers(n.models.get(m)));
            for ((what, a), b) in MODEL_FIELDS.into_iter().zip(a).zip(b) {
                change(Some(m), what, a, b);
            }
        }
        if let (Some(a), Some(b)) = (o.time_ms, n.time_ms) {
            if b > a * slower && b - a >= min_ms {
                d.slower.push(Slower { file: file.into_owned(), old_ms: a, new_ms: b });
            }
        }
    }
    for path in new.keys().filter(|p| !old.contains_key(*p)) {
        d.added.push(path.to_string_lossy().into_owned());
    }
    d
}

fn human(d: &Diff, files: usize) -> String {
    let show = |v: &Value| if v.is_null() { "—".to_string() } else { v.to_string().trim_matches('"').to_string() };
    let mut s = String::new();
    for c in &d.changed {
        let model = c.model.as_ref().map(|m| format!(" {}", m.to_uppercase())).unwrap_or_default();
        s += &format!("{}:{model} {} {} → {}\n", c.file, c.what, show(&c.old), show(&c.new));
    }
    for c in &d.slower {
        let (a, b) = (c.old_ms, c.new_ms);
        let factor = if a > 0.0 { format!("{:.1}× slower", b / a) } else { "slower".to_string() };
        s += &format!("{}: {a:.1} ms → {b:.1} ms ({factor})\n", c.file);
    }
    for (list, word) in [(&d.added, "added"), (&d.removed, "removed")] {
        for f in list {
            s += &format!("{f}: {word}\n");
        }
    }
    let verdicts: std::collections::BTreeSet<&str> = d.changed.iter().map(|c| c.file.as_str()).collect();
    s += &format!(
        "{files} file{}: {} changed, {} slower, {} added, {} removed\n",
        if files == 1 { "" } else { "s" },
        verdicts.len(),
        d.slower.len(),
        d.added.len(),
        d.removed.len()
    );
    s
}
