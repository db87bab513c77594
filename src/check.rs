//! `litmus check`: analyse files and report, human or JSON.

use crate::report::{ConditionJson, DiagnosticJson, FileReport};
use crate::{Color, Format};
use litmus_dsl::{analyze, diagnostic, Analysis, Severity};
use std::io::{IsTerminal, Write};

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files to check (`.litmus`, native or herd x86 dialect).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
}

pub struct Loaded {
    pub path: String,
    pub src: String,
    pub analysis: Analysis,
}

pub fn load(path: &str) -> Result<Loaded, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let src = String::from_utf8(bytes).map_err(|_| format!("`{path}` is not valid UTF-8"))?;
    let analysis = analyze(&src);
    Ok(Loaded {
        path: path.to_string(),
        src,
        analysis,
    })
}

pub fn file_report(l: &Loaded) -> FileReport {
    let a = &l.analysis;
    FileReport {
        file: l.path.clone(),
        test: a.name.clone(),
        dialect: a.dialect.as_str(),
        condition: a.condition.as_ref().map(|c| ConditionJson {
            quantifier: c.quantifier.as_str(),
            text: c.text.clone(),
        }),
        diagnostics: a
            .diagnostics
            .iter()
            .map(|d| {
                let (line, column) = a.lines.line_col(&l.src, d.span.start);
                let (end_line, end_column) = a.lines.line_col(&l.src, d.span.end);
                DiagnosticJson {
                    severity: match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                    },
                    code: d.code,
                    line,
                    column,
                    end_line,
                    end_column,
                    message: d.message.clone(),
                }
            })
            .collect(),
    }
}

pub fn run(args: &CheckArgs) -> u8 {
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal(),
    };
    let mut status = 0u8;
    let stdout = std::io::stdout();
    for path in &args.files {
        let loaded = match load(path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {e}");
                status = 2;
                continue;
            }
        };
        if loaded.analysis.has_errors() {
            status = 2;
        }
        match args.format {
            Format::Json => {
                let line = serde_json::to_string(&file_report(&loaded)).expect("report serialises");
                let _ = writeln!(stdout.lock(), "{line}");
            }
            Format::Human => {
                let a = &loaded.analysis;
                if !a.diagnostics.is_empty() {
                    eprint!(
                        "{}",
                        diagnostic::render(&a.diagnostics, path, &loaded.src, color)
                    );
                }
                let mut out = stdout.lock();
                match &a.program {
                    Some(p) => {
                        let _ = writeln!(
                            out,
                            "{path}: {} ({}, {} threads, {} memory events)",
                            p.name,
                            p.dialect.as_str(),
                            p.threads.len(),
                            p.event_count()
                        );
                    }
                    None => {
                        let n = a.diagnostics.iter().filter(|d| d.is_error()).count();
                        let _ = writeln!(out, "{path}: {n} error{}", if n == 1 { "" } else { "s" });
                    }
                }
            }
        }
    }
    status
}
