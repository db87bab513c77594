//! The summary of a run, counted from the file reports themselves (as
//! checked, or as read back from a report), so `litmus check` and `litmus
//! merge` count with one function and a merged report's summary is the
//! unsharded run's.

use super::shard::ShardOf;
use crate::report::FileReport;
use serde_json::{json, Map, Value};

#[derive(Default, Clone, Debug)]
struct ModelTally {
    checked: u64,
    always: u64,
    sometimes: u64,
    never: u64,
    /// Files with a condition whose answer is unknown.
    observation_unknown: u64,
    robust: u64,
    not_robust: u64,
    robust_unknown: u64,
    /// Files where some assertion can fail.
    assertion_failures: u64,
    /// Files with some deadlocked execution.
    deadlocks: u64,
}

/// Counts over file reports.
#[derive(Default, Clone, Debug)]
pub struct Tally {
    files: u64,
    by_status: [u64; 4],
    models: Vec<(String, ModelTally)>,
    expect: [u64; 3],
    unexpected: u64,
    expecting: bool,
    time_ms: Option<f64>,
}

/// A file's status word, as `check` writes it, in exit-status order.
pub const STATUSES: [&str; 4] = ["clean", "unknown", "finding", "error"];

impl Tally {
    /// Count one file report.
    pub fn add(&mut self, file: &FileReport) {
        self.files += 1;
        let i = STATUSES.iter().position(|s| *s == file.status).unwrap_or(3);
        self.by_status[i] += 1;
        if let Some(ms) = file.time_ms {
            *self.time_ms.get_or_insert(0.0) += ms;
        }
        match &file.expect {
            Some(e) => {
                let v = ["agree", "disagree", "unknown"].iter().position(|s| *s == e.verdict);
                self.expect[v.unwrap_or(2)] += 1;
            }
            None => self.unexpected += 1,
        }
        for (name, m) in &file.models.0 {
            let t = match self.models.iter().position(|(n, _)| n == name) {
                Some(i) => &mut self.models[i].1,
                None => {
                    self.models.push((name.to_string(), ModelTally::default()));
                    self.models.sort_by_key(|(n, _)| model_rank(n));
                    let i = self.models.iter().position(|(n, _)| n == name).expect("just pushed");
                    &mut self.models[i].1
                }
            };
            t.checked += 1;
            match m.observation.as_deref() {
                Some("always") => t.always += 1,
                Some("sometimes") => t.sometimes += 1,
                Some("never") => t.never += 1,
                _ if file.condition.is_some() => t.observation_unknown += 1,
                _ => {}
            }
            match m.robust {
                Some(true) => t.robust += 1,
                Some(false) => t.not_robust += 1,
                None => t.robust_unknown += 1,
            }
            if !m.assertion_failures.is_empty() {
                t.assertion_failures += 1;
            }
            if m.deadlocks > 0 {
                t.deadlocks += 1;
            }
        }
    }

    /// Expectations were given (`--expect`): the summary counts them.
    pub fn expecting(&mut self) {
        self.expecting = true;
    }

    pub fn files(&self) -> u64 {
        self.files
    }

    /// Files that had an expectation.
    pub fn expected(&self) -> u64 {
        self.expect.iter().sum()
    }

    /// The exit status of the run: without expectations, the worst file
    /// (error 2, finding 1, unknown 3, clean 0); with them, whether the run
    /// agrees (a read or parse error still 2, a disagreement 1, an unknown
    /// or no file with an expectation at all 3).
    pub fn exit_code(&self) -> u8 {
        let [clean, unknown, finding, error] = self.by_status;
        let _ = clean;
        if error > 0 {
            return 2;
        }
        if self.expecting {
            let [_, disagree, unsure] = self.expect;
            return if disagree > 0 {
                1
            } else if unsure > 0 || (self.expected() == 0 && self.files > 0) {
                // Expectations that matched no file compared nothing.
                3
            } else {
                0
            };
        }
        if finding > 0 {
            1
        } else if unknown > 0 {
            3
        } else {
            0
        }
    }

    /// The summary object (the last line of a JSON report), with where the
    /// run's files stand in the whole list when it is not that list in order.
    pub fn json(&self, shard: Option<&ShardOf>) -> Value {
        let mut s = Map::new();
        s.insert("files".into(), json!(self.files));
        for (i, name) in STATUSES.iter().enumerate() {
            s.insert((*name).into(), json!(self.by_status[i]));
        }
        let models: Map<String, Value> = self
            .models
            .iter()
            .map(|(n, t)| {
                let v = json!({
                    "checked": t.checked,
                    "always": t.always, "sometimes": t.sometimes, "never": t.never,
                    "observation_unknown": t.observation_unknown,
                    "robust": t.robust, "not_robust": t.not_robust, "robust_unknown": t.robust_unknown,
                    "assertion_failures": t.assertion_failures, "deadlocks": t.deadlocks,
                });
                (n.clone(), v)
            })
            .collect();
        s.insert("models".into(), Value::Object(models));
        if self.expecting {
            let [agree, disagree, unknown] = self.expect;
            s.insert(
                "expect".into(),
                json!({ "agree": agree, "disagree": disagree, "unknown": unknown, "no_expectation": self.unexpected }),
            );
        }
        if let Some(ms) = self.time_ms {
            s.insert("time_ms".into(), json!(round_ms(ms)));
        }
        if let Some(shard) = shard {
            s.insert("shard".into(), json!(shard));
        }
        json!({ "summary": Value::Object(s) })
    }

    /// The summary for people: a table, one row per model.
    pub fn human(&self, wall: Option<std::time::Duration>) -> String {
        use std::fmt::Write;
        let [clean, unknown, finding, error] = self.by_status;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "summary: {} file{} — {clean} clean, {finding} with findings, {unknown} unknown, {error} error{}",
            self.files,
            if self.files == 1 { "" } else { "s" },
            if error == 1 { "" } else { "s" }
        );
        if !self.models.is_empty() {
            let _ = writeln!(
                o,
                "  {:<5} {:>7} {:>9} {:>7} {:>7}   {:>7} {:>10} {:>7}   {:>8} {:>9}",
                "model",
                "always",
                "sometimes",
                "never",
                "unknown",
                "robust",
                "not robust",
                "unknown",
                "failures",
                "deadlocks"
            );
            for (n, t) in &self.models {
                let _ = writeln!(
                    o,
                    "  {:<5} {:>7} {:>9} {:>7} {:>7}   {:>7} {:>10} {:>7}   {:>8} {:>9}",
                    n.to_uppercase(),
                    t.always,
                    t.sometimes,
                    t.never,
                    t.observation_unknown,
                    t.robust,
                    t.not_robust,
                    t.robust_unknown,
                    t.assertion_failures,
                    t.deadlocks
                );
            }
        }
        if self.expecting {
            let [agree, disagree, unsure] = self.expect;
            let _ = writeln!(
                o,
                "  expected verdicts: {agree} agree, {disagree} disagree, {unsure} unknown, {} without an expectation",
                self.unexpected
            );
        }
        match (self.time_ms, wall) {
            (Some(ms), Some(w)) => {
                let _ = writeln!(o, "  time: {:.2} s of checking in {:.2} s", ms / 1e3, w.as_secs_f64());
            }
            (Some(ms), None) => {
                let _ = writeln!(o, "  time: {:.2} s of checking", ms / 1e3);
            }
            (None, Some(w)) => {
                let _ = writeln!(o, "  time: {:.2} s", w.as_secs_f64());
            }
            (None, None) => {}
        }
        o
    }
}

/// Where a model comes in reports: sc, tso, pso, pslo, then others.
pub fn model_rank(name: &str) -> usize {
    // Models in the order reports list them.
    let all = litmus_checker::machine::Model::ALL;
    all.iter().position(|m| m.as_str() == name).unwrap_or(all.len())
}

/// Milliseconds to two decimals (what a report carries).
pub fn round_ms(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}
