//! Expected verdicts (`--expect FILE`): what a reference tool answered, to
//! say which tests of a suite disagree — as herd's catalogue is checked.
//! Two formats:
//! - a TSV with a header (`tests/corpus/herd-x86/verdicts.tsv`): a `file`
//!   column (relative to the TSV's folder) or a `test` column, and per model
//!   `<model>_observation` and optionally `<model>_states`;
//! - herd7's own output (a log of `herd7` runs, or a `.expected` file):
//!   `Test NAME …`, `States N`, `Observation NAME Sometimes …`, for the model
//!   `--expect-model` names (default tso: herd's x86 model is x86-TSO).

use crate::report::{ExpectJson, ExpectedJson, FileReport};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What one test is expected to answer under one model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub observation: Option<String>,
    pub states: Option<u64>,
}

/// Per model, in the order given.
type Verdicts = Vec<(String, Verdict)>;

#[derive(Default, Debug)]
pub struct Expectations {
    by_path: HashMap<PathBuf, Verdicts>,
    by_test: HashMap<String, Verdicts>,
    /// Files a TSV names that do not exist (a stale or misplaced TSV).
    pub missing: Vec<String>,
}

impl Expectations {
    /// Read one expectations file into these.
    pub fn load(&mut self, path: &str, herd_model: &str) -> Result<(), String> {
        let text = crate::check::read_utf8(path)?;
        let base = Path::new(path).parent().unwrap_or(Path::new(""));
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if first.contains('\t') {
            self.load_tsv(&text, base, path)
        } else {
            self.load_herd(&text, herd_model, path)
        }
    }

    /// `--expect auto`: what lies beside the listed files — herd's
    /// `X.litmus.expected` (herd7's output for that one test), else a
    /// `verdicts.tsv` in the file's folder (read once per folder).
    pub fn load_beside<'a>(&mut self, files: impl Iterator<Item = &'a str>, herd_model: &str) -> Result<(), String> {
        let mut folders = std::collections::HashSet::new();
        // A test's own `.expected` wins over its folder's TSV, whichever is
        // read first.
        let mut own: Vec<(PathBuf, Verdicts)> = Vec::new();
        for f in files {
            let file = Path::new(f);
            let expected = format!("{f}.expected");
            if Path::new(&expected).is_file() {
                let text = std::fs::read_to_string(&expected).map_err(|e| format!("cannot read `{expected}`: {e}"))?;
                let mut one = Expectations::default();
                one.load_herd(&text, herd_model, &expected)?;
                // One test per file (herd's layout): keyed by the file, not
                // its name, so two folders' `A000`s stay apart.
                if let Some(v) = one.by_test.into_values().next() {
                    own.push((canonical(file), v));
                }
                continue;
            }
            let folder = file.parent().unwrap_or(Path::new("")).to_path_buf();
            let tsv = folder.join("verdicts.tsv");
            if folders.insert(folder) && tsv.is_file() {
                self.load(&tsv.to_string_lossy(), herd_model)?;
            }
        }
        self.by_path.extend(own);
        Ok(())
    }

    fn load_tsv(&mut self, text: &str, base: &Path, path: &str) -> Result<(), String> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
        let (_, header) = lines.next().ok_or(format!("`{path}` is empty"))?;
        let cols: Vec<&str> = header.split('\t').map(str::trim).collect();
        let col = |name: &str| cols.iter().position(|c| *c == name);
        let (file_col, test_col) = (col("file"), col("test"));
        if file_col.is_none() && test_col.is_none() {
            return Err(format!("`{path}`: the header has neither a `file` nor a `test` column"));
        }
        let models: Vec<(String, Option<usize>, Option<usize>)> = litmus_checker::machine::Model::ALL
            .iter()
            .map(|m| m.as_str())
            .map(|m| (m.to_string(), col(&format!("{m}_observation")), col(&format!("{m}_states"))))
            .filter(|(_, o, s)| o.is_some() || s.is_some())
            .collect();
        if models.is_empty() {
            return Err(format!("`{path}`: no `<model>_observation` or `<model>_states` column"));
        }
        for (n, line) in lines {
            let cells: Vec<&str> = line.split('\t').map(str::trim).collect();
            let cell = |i: Option<usize>| i.and_then(|i| cells.get(i)).copied().filter(|c| !c.is_empty());
            let mut verdicts = Verdicts::new();
            for (m, o, s) in &models {
                let states = match cell(*s) {
                    Some(c) => Some(
                        c.parse().map_err(|_| format!("`{path}` line {}: `{c}` is not a number of states", n + 1))?,
                    ),
                    None => None,
                };
                let v = Verdict { observation: cell(*o).map(str::to_ascii_lowercase), states };
                if v != Verdict::default() {
                    verdicts.push((m.clone(), v));
                }
            }
            if let Some(f) = cell(file_col) {
                let p = base.join(f);
                if !p.exists() {
                    self.missing.push(format!("{} (`{path}` line {})", p.display(), n + 1));
                }
                self.by_path.insert(canonical(&p), verdicts.clone());
            }
            // With a file column, tests are named by file only: two suites may
            // both have an `SB`.
            if let (None, Some(t)) = (cell(file_col), cell(test_col)) {
                self.by_test.insert(t.to_string(), verdicts);
            }
        }
        Ok(())
    }

    fn load_herd(&mut self, text: &str, model: &str, path: &str) -> Result<(), String> {
        let mut test: Option<(String, Verdict)> = None;
        let mut any = false;
        let flush = |t: Option<(String, Verdict)>, me: &mut Self| {
            if let Some((name, v)) = t {
                me.by_test.entry(name).or_default().push((model.to_string(), v));
            }
        };
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["Test", name, ..] => {
                    flush(test.take(), self);
                    test = Some((name.to_string(), Verdict::default()));
                    any = true;
                }
                ["States", n] => {
                    if let Some((_, v)) = &mut test {
                        v.states = n.parse().ok();
                    }
                }
                ["Observation", _name, word, ..] => {
                    if let Some((_, v)) = &mut test {
                        v.observation = Some(word.to_ascii_lowercase());
                    }
                }
                _ => {}
            }
        }
        flush(test.take(), self);
        if !any {
            return Err(format!("`{path}`: neither a TSV with a header nor herd7 output (no `Test` line)"));
        }
        Ok(())
    }

    /// Compare a file report with its expectation, if it has one: the
    /// `expect` object of the report (absent: no expectation).
    pub fn judge(&self, report: &FileReport) -> Option<ExpectJson> {
        let verdicts = self
            .by_path
            .get(&canonical(Path::new(&report.file)))
            .or_else(|| report.test.as_ref().and_then(|t| self.by_test.get(t)))?;
        let mut disagreements = Vec::new();
        let mut unknown = Vec::new();
        if report.error.is_some() || report.models.is_empty() {
            unknown.push(ExpectedJson { what: "not checked".into(), ..ExpectedJson::default() });
        }
        // Only what was compared can agree: expectations for models not
        // checked (a TSV without this run's model) are no expectation.
        let mut compared = 0;
        for (model, v) in verdicts {
            let Some(got) = report.models.get(model) else { continue };
            // A different answer from a search that was cut or stopped is not
            // a proved disagreement: unknown.
            let proved = got.certainty == "proved";
            let mut compare = |what: &'static str, expected: Value, ours: Value| {
                compared += 1;
                let mut d =
                    ExpectedJson { model: Some(model.clone()), what: what.into(), expected: Some(expected), got: None };
                if ours.is_null() {
                    unknown.push(d);
                } else if Some(&ours) != d.expected.as_ref() {
                    d.got = Some(ours);
                    if proved {
                        disagreements.push(d)
                    } else {
                        unknown.push(d)
                    }
                }
            };
            if let Some(o) = &v.observation {
                compare("observation", json!(o), json!(got.observation));
            }
            if let Some(s) = v.states {
                compare("states", json!(s), json!(got.states));
            }
        }
        if compared == 0 && unknown.is_empty() {
            return None;
        }
        let verdict = if !disagreements.is_empty() {
            "disagree"
        } else if !unknown.is_empty() {
            "unknown"
        } else {
            "agree"
        };
        Some(ExpectJson { verdict: verdict.into(), disagreements, unknown })
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report as JSON, read as `merge` reads one.
    fn read(v: Value) -> FileReport {
        serde_json::from_value(v).expect("a file report")
    }

    fn report(obs: &str, states: u64, certainty: &str) -> FileReport {
        read(json!({ "file": "/nonexistent/SB.litmus", "test": "SB", "status": "finding",
                     "models": { "tso": { "observation": obs, "states": states, "certainty": certainty } } }))
    }

    fn verdict(e: Option<ExpectJson>) -> String {
        e.expect("an expectation").verdict.into_owned()
    }

    #[test]
    fn herd_output_gives_the_expectation_of_one_model() {
        let log = "Test SB Allowed\nStates 4\n0:EAX=0; 1:EAX=0;\nOk\nWitnesses\nPositive: 1 Negative: 3\n\
                   Condition exists (0:EAX=0 /\\ 1:EAX=0)\nObservation SB Sometimes 1 3\nTime SB 0.00\n";
        let mut e = Expectations::default();
        e.load_herd(log, "tso", "x.log").unwrap();
        assert_eq!(verdict(e.judge(&report("sometimes", 4, "proved"))), "agree");
        let d = e.judge(&report("never", 4, "proved")).unwrap();
        assert_eq!(d.verdict, "disagree");
        assert_eq!(d.disagreements[0].expected, Some(json!("sometimes")));
        // A cut-short search that answers differently proves nothing.
        assert_eq!(verdict(e.judge(&report("never", 3, "within-bounds"))), "unknown");
        let mut other = report("never", 4, "proved");
        other.test = Some("MP".into());
        assert!(e.judge(&other).is_none());
    }

    #[test]
    fn a_tsv_needs_a_header_naming_its_columns() {
        let mut e = Expectations::default();
        assert!(e.load_tsv("file\tfoo\na\tb\n", Path::new(""), "v.tsv").is_err());
        assert!(e.load_tsv("x\ttso_observation\na\tnever\n", Path::new(""), "v.tsv").is_err());
        assert!(e.load_tsv("test\ttso_states\nSB\tfour\n", Path::new(""), "v.tsv").is_err());
        e.load_tsv("test\ttso_observation\ttso_states\nSB\tSometimes\t4\n", Path::new(""), "v.tsv").unwrap();
        assert_eq!(verdict(e.judge(&report("sometimes", 4, "proved"))), "agree");
        assert_eq!(e.judge(&report("sometimes", 5, "proved")).unwrap().disagreements[0].what, "states");
    }

    /// Issue 26: a TSV with no column for the checked model compared
    /// nothing, and said "agree".
    #[test]
    fn expectations_for_other_models_are_no_expectation() {
        let mut e = Expectations::default();
        e.load_tsv("test\tsc_observation\ttso_observation\nSB\tNever\tSometimes\n", Path::new(""), "v.tsv").unwrap();
        let pslo = read(json!({ "file": "/nonexistent/SB.litmus", "test": "SB", "status": "finding",
                                "models": { "pslo": { "observation": "sometimes", "states": 4, "certainty": "proved" } } }));
        assert!(e.judge(&pslo).is_none());
        // A file that could not be checked is still unknown.
        let broken = read(json!({ "file": "/nonexistent/SB.litmus", "test": "SB", "status": "error", "error": "?" }));
        assert_eq!(verdict(e.judge(&broken)), "unknown");
    }
}
