//! `litmus diff OLD NEW`: what a regression run changed — verdicts that
//! differ, files that got slower than a threshold, files added or removed.
//! Exit 1 on any of these, 0 when the runs agree, 2 on unreadable input.

use super::reports;
use super::tally::model_rank;
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

/// Per model, the answers a regression must not change.
const MODEL_FIELDS: [&str; 5] = ["observation", "states", "robust", "deadlocks", "certainty"];

pub fn run(args: &DiffArgs) -> u8 {
    let sane = args.slower.is_finite() && args.slower >= 1.0 && args.min_ms.is_finite() && args.min_ms >= 0.0;
    if !sane {
        eprintln!("error: --slower must be a factor ≥ 1 and --min-ms a number ≥ 0");
        return 2;
    }
    let load = |p: &str| -> Result<BTreeMap<PathBuf, Value>, String> {
        let r = reports::read(p)?;
        let mut files = BTreeMap::new();
        for f in r.files {
            if files.insert(PathBuf::from(&f.file), f.value).is_some() {
                return Err(format!("`{p}` reports `{}` twice", f.file));
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
    let changes =
        ["changed", "slower", "added", "removed"].iter().any(|k| d[k].as_array().is_some_and(|a| !a.is_empty()));
    u8::from(changes)
}

/// The differences, as JSON: `changed` (file, model, what, old, new),
/// `slower` (file, old_ms, new_ms), `added`, `removed` (files).
pub fn compare(old: &BTreeMap<PathBuf, Value>, new: &BTreeMap<PathBuf, Value>, slower: f64, min_ms: f64) -> Value {
    let (mut changed, mut slow, mut added, mut removed) = (vec![], vec![], vec![], vec![]);
    for (path, o) in old {
        let file = path.to_string_lossy();
        let Some(n) = new.get(path) else {
            removed.push(json!(file));
            continue;
        };
        let mut change = |model: Option<&str>, what: &str, a: &Value, b: &Value| {
            if a != b {
                changed.push(json!({ "file": file, "model": model, "what": what, "old": a, "new": b }));
            }
        };
        for what in ["status", "error"] {
            change(None, what, &o[what], &n[what]);
        }
        let errors = |v: &Value| {
            json!(v["diagnostics"].as_array().map_or(0, |d| d.iter().filter(|d| d["severity"] == "error").count()))
        };
        change(None, "errors", &errors(o), &errors(n));
        change(None, "expect", &o["expect"]["verdict"], &n["expect"]["verdict"]);
        let mut models: Vec<&String> = o["models"]
            .as_object()
            .into_iter()
            .flatten()
            .chain(n["models"].as_object().into_iter().flatten())
            .map(|(k, _)| k)
            .collect();
        models.sort_by_key(|m| (model_rank(m), m.to_string()));
        models.dedup();
        for m in models {
            let (a, b) = (&o["models"][m.as_str()], &n["models"][m.as_str()]);
            for what in MODEL_FIELDS {
                change(Some(m), what, &a[what], &b[what]);
            }
            let count = |v: &Value, k: &str| json!(v[k].as_array().map(Vec::len));
            for what in ["violations", "assertion_failures", "fences"] {
                change(Some(m), what, &count(a, what), &count(b, what));
            }
        }
        if let (Some(a), Some(b)) = (o["time_ms"].as_f64(), n["time_ms"].as_f64()) {
            if b > a * slower && b - a >= min_ms {
                slow.push(json!({ "file": file, "old_ms": a, "new_ms": b }));
            }
        }
    }
    for path in new.keys().filter(|p| !old.contains_key(*p)) {
        added.push(json!(path.to_string_lossy()));
    }
    json!({ "changed": changed, "slower": slow, "added": added, "removed": removed })
}

fn human(d: &Value, files: usize) -> String {
    let list = |k: &str| d[k].as_array().cloned().unwrap_or_default();
    let show = |v: &Value| if v.is_null() { "—".to_string() } else { v.to_string().trim_matches('"').to_string() };
    let mut s = String::new();
    for c in list("changed") {
        let model = c["model"].as_str().map(|m| format!(" {}", m.to_uppercase())).unwrap_or_default();
        s += &format!(
            "{}:{model} {} {} → {}\n",
            c["file"].as_str().unwrap_or("?"),
            c["what"].as_str().unwrap_or("?"),
            show(&c["old"]),
            show(&c["new"])
        );
    }
    for c in list("slower") {
        let (a, b) = (c["old_ms"].as_f64().unwrap_or(0.0), c["new_ms"].as_f64().unwrap_or(0.0));
        let factor = if a > 0.0 { format!("{:.1}× slower", b / a) } else { "slower".to_string() };
        s += &format!("{}: {a:.1} ms → {b:.1} ms ({factor})\n", c["file"].as_str().unwrap_or("?"));
    }
    for (k, word) in [("added", "added"), ("removed", "removed")] {
        for f in list(k) {
            s += &format!("{}: {word}\n", f.as_str().unwrap_or("?"));
        }
    }
    let verdicts: std::collections::BTreeSet<&str> =
        d["changed"].as_array().into_iter().flatten().filter_map(|c| c["file"].as_str()).collect();
    s += &format!(
        "{files} file{}: {} changed, {} slower, {} added, {} removed\n",
        if files == 1 { "" } else { "s" },
        verdicts.len(),
        list("slower").len(),
        list("added").len(),
        list("removed").len()
    );
    s
}
