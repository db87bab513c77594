//! Reading reports back (`--format json` or `jsonl`, whole or sharded): the
//! file objects, each with its line as written, and what the summary says
//! of the run. For `merge` and `diff`.

use super::shard::ShardOf;
use crate::report::FileReport;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

pub struct FileLine {
    /// The line exactly as the report had it (merge copies it byte for byte).
    pub line: String,
    pub report: FileReport,
}

/// One report as read.
#[derive(Default)]
pub struct Report {
    pub files: Vec<FileLine>,
    /// Summary lines seen (a finished run writes exactly one, last).
    pub summaries: usize,
    /// The summary had an `expect` section (the run had `--expect`).
    pub expecting: bool,
    pub shard: Option<ShardOf>,
    /// The last line was cut off mid-object (a run killed while writing).
    pub cut_off: bool,
}

/// Read a report; an unreadable file or a line that is neither a file
/// object nor a summary is an error naming its line.
pub fn read(path: &str) -> Result<Report, String> {
    // Lossy: a run killed mid-character leaves half of one.
    let bytes = crate::check::read_regular(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut r = Report::default();
    let last = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(n, _)| n).last();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("`{path}` line {}", n + 1);
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            // The last line of a run that was killed while writing it: the
            // report is cut short (merge says so), not malformed.
            Err(e) if Some(n) == last && e.is_eof() => {
                r.cut_off = true;
                break;
            }
            Err(e) => return Err(format!("{}: not JSON: {e}", at())),
        };
        // A summary line, or a file object (anything else in it may be
        // missing: it reads as empty).
        let Value::Object(mut object) = v else { return Err(format!("{}: neither a file report nor a summary", at())) };
        if let Some(s) = object.remove("summary") {
            r.summaries += 1;
            // Only what `merge` needs is read: whether expectations were
            // counted, and where the files stand.
            let s = Summary::deserialize(s).unwrap_or_default();
            r.expecting |= s.expect.is_some();
            if let Some(sh) = s.shard {
                r.shard = Some(shard_of(sh).ok_or_else(|| format!("{}: a summary with a malformed `shard`", at()))?);
            }
        } else if object.get("file").is_some_and(Value::is_string) {
            if r.summaries > 0 {
                return Err(format!("{}: a file report after the summary", at()));
            }
            let report = FileReport::deserialize(Value::Object(object))
                .map_err(|e| format!("{}: not a file report: {e}", at()))?;
            r.files.push(FileLine { line: line.to_string(), report });
        } else {
            return Err(format!("{}: neither a file report nor a summary", at()));
        }
    }
    if r.summaries > 1 {
        return Err(format!("`{path}` has {} summaries: reports of several runs in one file?", r.summaries));
    }
    if let Some(s) = &r.shard {
        if s.positions.len() != r.files.len() {
            return Err(format!(
                "`{path}`: its summary lists {} files, the report has {}",
                s.positions.len(),
                r.files.len()
            ));
        }
    }
    Ok(r)
}

/// What `read` takes from a summary line.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Summary {
    expect: Option<serde::de::IgnoredAny>,
    shard: Option<Value>,
}

fn shard_of(v: Value) -> Option<ShardOf> {
    let s = ShardOf::deserialize(v).ok()?;
    (s.index >= 1 && s.index <= s.count && s.positions.iter().all(|&p| p < s.list_files)).then_some(s)
}

/// The order of an unsharded run over a folder: by path, component by
/// component (as the walk sorts).
pub fn sort(files: &mut [FileLine]) {
    files.sort_by(|a, b| Path::new(&a.report.file).cmp(Path::new(&b.report.file)));
}
