//! `litmus`: check small concurrent programs for relaxed-memory behaviour.

mod active;
mod check;
mod explain;
mod fix;
mod fmt;
mod history;
mod human;
mod port;
mod progress;
mod reads_json;
mod report;
mod run;
mod suite;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "litmus", version, about = "Checker and language server for relaxed-memory litmus tests")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, analyse and check files or folders under SC, TSO and PSO (PSLO with --model).
    Check(check::CheckArgs),
    /// Rewrite files in the canonical layout (`--check`: only list those that differ).
    Fmt(fmt::FmtArgs),
    /// Print the file with the fewest fences that make it robust.
    Fix(fix::FixArgs),
    /// Decide whether recorded histories are SC (or TSO), with the cycle or store order that shows it.
    History(history::HistoryArgs),
    /// Show a violation's witness execution step by step (or as a graph).
    Explain(explain::ExplainArgs),
    /// Moving a program from one model to another (x86's TSO to AArch64,
    /// SC to RC11): its executions the new model allows and the old one
    /// forbids, and the final states each allows that the other does not.
    Port(port::PortArgs),
    /// Run the program on this machine's CPU (litmus7-style) and compare
    /// the final states it shows with what SC, TSO and PSO allow.
    Run(run::RunArgs),
    /// Combine reports of `check --format json|jsonl` (e.g. one per shard) into one report.
    Merge(suite::merge::MergeArgs),
    /// Compare two reports: changed verdicts, slower files, files added or removed (exit 1 on any).
    Diff(suite::diff::DiffArgs),
    /// Serve the Language Server Protocol on stdin/stdout (for editors).
    Lsp(LspArgs),
}

#[derive(clap::Args)]
struct LspArgs {
    /// Accepted for clients that pass it (vscode-languageclient does); stdio is the only transport.
    #[arg(long)]
    stdio: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => suite::batch::run(&args),
        Command::Fix(args) => fix::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Port(args) => port::run(&args),
        Command::History(args) => history::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Merge(args) => suite::merge::run(&args),
        Command::Diff(args) => suite::diff::run(&args),
        Command::Lsp(_) => match litmus_lsp::run_stdio() {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("litmus lsp: {e}");
                2
            }
        },
    };
    ExitCode::from(code)
}
