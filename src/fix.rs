//! `litmus fix`: insert the fewest fences that make a file robust under the
//! requested relaxed models (re-checked), in either dialect.

use crate::check::{load_one, options, Bounds};
use litmus_checker::robust::{insertions, joint_fences};
use litmus_checker::Model;
use litmus_dsl::edit::{apply, fence_edits};

#[derive(clap::Args)]
pub struct FixArgs {
    pub file: String,
    /// Edit the file in place instead of printing it.
    #[arg(long)]
    pub write: bool,
    /// Relaxed models to be robust under, comma-separated.
    #[arg(long, default_value = "tso,pso", value_delimiter = ',')]
    pub model: Vec<String>,
    #[command(flatten)]
    pub bounds: Bounds,
}

pub fn run(args: &FixArgs) -> u8 {
    let (models, l) = match load_one(&args.model, &args.file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let prog = l.analysis.program.as_ref().expect("load_one returns analysed files");
    let opts = options(&args.bounds);
    let (fences, confirmed) = joint_fences(&l.src, prog, &models, args.bounds.monitor.kind(), &opts);
    let names: Vec<&str> = models.iter().filter(|m| **m != Model::Sc).map(|m| m.upper()).collect();
    let fixed = apply(&l.src, &fence_edits(&l.src, prog, &insertions(&fences)));
    if fences.is_empty() {
        eprintln!("{}: already robust under {}", l.path, names.join(", "));
    } else {
        for f in &fences {
            let s = &prog.stmts[f.stmt as usize];
            eprintln!(
                "{}: fence {} after line {}, column {} ({}: `{}`)",
                l.path,
                f.kind.as_str(),
                s.end_line,
                s.end_col,
                prog.threads[f.thread as usize].name,
                s.text
            );
        }
        eprintln!(
            "{}: {} fence{} — {}",
            l.path,
            fences.len(),
            if fences.len() == 1 { "" } else { "s" },
            if confirmed {
                format!("re-checked: robust under {}", names.join(", "))
            } else {
                "could not be confirmed robust by re-checking".to_string()
            }
        );
    }
    if args.write {
        if let Err(e) = std::fs::write(&args.file, &fixed) {
            eprintln!("error: cannot write `{}`: {e}", args.file);
            return 2;
        }
    } else {
        print!("{fixed}");
    }
    if confirmed {
        0
    } else {
        1
    }
}
