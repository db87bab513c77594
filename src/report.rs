//! The JSON line of `litmus check --format json` (schema in docs/cli.md).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

#[derive(Serialize)]
pub struct FileReport {
    pub file: String,
    pub test: Option<String>,
    pub dialect: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<ConditionJson>,
    /// Per requested model, in the order sc, tso, pso. Absent when the file has errors.
    #[serde(skip_serializing_if = "Models::is_empty")]
    pub models: Models,
    /// Errors and warnings of parsing and analysis (an extension of cli.md).
    pub diagnostics: Vec<DiagnosticJson>,
}

#[derive(Serialize)]
pub struct ConditionJson {
    pub quantifier: &'static str,
    pub text: String,
}

#[derive(Serialize)]
pub struct ModelJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<&'static str>,
    pub states: usize,
    pub complete: bool,
    /// No execution under this model has a trace with an hb cycle (SC:
    /// always). Within bounds when `complete` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<Vec<ViolationJson>>,
    pub assertion_failures: Vec<FailureJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences: Option<Vec<FenceJson>>,
    /// The fenced program was re-checked and is robust (extension).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_confirmed: Option<bool>,
    /// Statement pairs the monitor signalled without a replayable witness
    /// (extension; while non-zero, `robust` is absent: unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconfirmed: Option<u64>,
    /// Executions in which every unfinished thread is blocked (extension).
    pub deadlocks: usize,
    /// Executions explored (extension).
    pub executions: u64,
    /// Executions cut by the loop or buffer bound (extension).
    pub cut: u64,
    pub timed_out: bool,
}

#[derive(Serialize)]
pub struct FailureJson {
    pub line: u32,
    pub column: u32,
    pub thread: String,
    /// `assertion failed`, `array index out of bounds`, … (extension)
    pub kind: &'static str,
}

#[derive(Serialize)]
pub struct DiagnosticJson {
    pub severity: &'static str,
    pub code: &'static str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: String,
}

/// Models keyed by name, serialised in the order checked.
pub struct Models(pub Vec<(&'static str, ModelJson)>);

impl Models {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Models {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Serialize)]
pub struct ViolationJson {
    pub cycle: Vec<CycleJson>,
    pub harmful: bool,
    pub fence: Vec<FenceJson>,
    /// SC executions on which the monitor signalled it (extension).
    pub occurrences: u64,
}

#[derive(Serialize)]
pub struct CycleJson {
    pub thread: String,
    pub line: u32,
    pub column: u32,
    pub statement: String,
    pub edge: &'static str,
}

#[derive(Serialize)]
pub struct FenceJson {
    pub thread: String,
    pub after: Position,
    pub kind: &'static str,
}

#[derive(Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}
