//! Reading reports back (`--format json` or `jsonl`, whole or sharded): the
//! file objects, each with its line as written, and whether any summary
//! counted expectations. For `merge` and `diff`.

use serde_json::Value;
use std::path::Path;

pub struct FileLine {
    pub file: String,
    /// The line exactly as the report had it (merge copies it byte for byte).
    pub line: String,
    pub value: Value,
}

#[derive(Default)]
pub struct Report {
    pub files: Vec<FileLine>,
    /// Some summary had an `expect` section (the run had `--expect`).
    pub expecting: bool,
}

/// Read a report; an unreadable file or a line that is neither a file
/// object nor a summary is an error naming its line.
pub fn read(path: &str, into: &mut Report) -> Result<(), String> {
    let text = crate::check::read_utf8(path)?;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| format!("`{path}` line {}: not JSON: {e}", n + 1))?;
        if let Some(s) = v.get("summary") {
            into.expecting |= s.get("expect").is_some();
        } else if let Some(f) = v["file"].as_str() {
            into.files.push(FileLine { file: f.to_string(), line: line.to_string(), value: v.clone() });
        } else {
            return Err(format!("`{path}` line {}: neither a file report nor a summary", n + 1));
        }
    }
    Ok(())
}

/// The order of an unsharded run over a folder: by path, component by
/// component (as the walk sorts).
pub fn sort(files: &mut [FileLine]) {
    files.sort_by(|a, b| Path::new(&a.file).cmp(Path::new(&b.file)));
}
