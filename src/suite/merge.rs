//! `litmus merge`: shard reports into one report, as the unsharded run
//! would have printed it (file objects by path, the summary recounted).

use super::reports::{self, Report};
use super::tally::Tally;
use std::io::Write;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Reports of `litmus check --format json|jsonl` (e.g. one per shard).
    #[arg(required = true)]
    pub reports: Vec<String>,
    /// Write the merged report here instead of standard output.
    #[arg(long, short)]
    pub output: Option<String>,
}

pub fn run(args: &MergeArgs) -> u8 {
    let mut all = Report::default();
    for r in &args.reports {
        if let Err(e) = reports::read(r, &mut all) {
            eprintln!("error: {e}");
            return 2;
        }
    }
    reports::sort(&mut all.files);
    // Shards partition a list: a file in two reports is a mistake (the same
    // shard given twice, or reports of different runs).
    if let Some(w) = all.files.windows(2).find(|w| w[0].file == w[1].file) {
        eprintln!("error: `{}` is in more than one report", w[0].file);
        return 2;
    }
    let mut tally = Tally::default();
    if all.expecting {
        tally.expecting();
    }
    let mut out = String::new();
    for f in &all.files {
        tally.add(&f.value);
        out += &f.line;
        out.push('\n');
    }
    out += &serde_json::to_string(&tally.json()).expect("summary serialises");
    out.push('\n');
    let written = match &args.output {
        Some(p) => std::fs::write(p, out).map_err(|e| format!("cannot write `{p}`: {e}")),
        None => std::io::stdout().lock().write_all(out.as_bytes()).map_err(|e| e.to_string()),
    };
    if let Err(e) = written {
        eprintln!("error: {e}");
        return 2;
    }
    tally.exit_code()
}
