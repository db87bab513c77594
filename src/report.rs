//! The JSON line of `litmus check --format json` (schema in docs/cli.md).

use serde::Serialize;

#[derive(Serialize)]
pub struct FileReport {
    pub file: String,
    pub test: Option<String>,
    pub dialect: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<ConditionJson>,
    /// Errors and warnings of parsing and analysis (an extension of cli.md).
    pub diagnostics: Vec<DiagnosticJson>,
}

#[derive(Serialize)]
pub struct ConditionJson {
    pub quantifier: &'static str,
    pub text: String,
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
