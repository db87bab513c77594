//! `litmus fix`: insert the fewest fences that make a file robust under the
//! requested relaxed models (re-checked), in either dialect.

use crate::check::{load_one, options, Bounds};
use litmus_checker::fences::joint_fences;
use litmus_checker::violation::insertions;
use litmus_checker::Answer;
use litmus_dsl::edit::{apply, fence_edits};
use litmus_present::words;

#[derive(clap::Args)]
pub struct FixArgs {
    pub file: String,
    /// Edit the file in place instead of printing it.
    #[arg(long)]
    pub write: bool,
    /// Relaxed models to be robust under, comma-separated [default: the
    /// file's, as `check` has them: tso,pso for a native program, tso for a
    /// herd x86 test].
    #[arg(long, value_delimiter = ',')]
    pub model: Vec<String>,
    /// What the repair must achieve under a model decided on candidates
    /// (ARM, RISC-V, C11): robustness, or only that the final condition's
    /// outcome is never reached.
    #[arg(long, value_enum, default_value_t = Goal::Robust)]
    pub goal: Goal,
    #[command(flatten)]
    pub bounds: Bounds,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Goal {
    Robust,
    Condition,
}

/// What `fix` says, and its exit status, when it chose no fence: the
/// program's robustness as checked (`before`), and what the fence search
/// earned (`confirmed`).
fn nothing_to_insert(before: &Answer<bool>, confirmed: &Answer<bool>, names: &str) -> (String, u8) {
    match before {
        Answer::Proved(true) => (format!("already robust under {names} (proved)"), 0),
        Answer::WithinBounds(true, cuts) => {
            (format!("no violation under {names} within bounds — robust within bounds only: {}", cuts.describe()), 0)
        }
        Answer::Unknown(why) => (format!("robustness under {names} unknown ({}): no fences chosen", why.describe()), 3),
        // Not robust, and the fence search stopped before it chose: unknown,
        // not "no position" (issue 43: a timeout said that, exit 1).
        _ if !confirmed.is_known() => {
            let why = match confirmed {
                Answer::Unknown(why) => why.describe(),
                _ => "unknown".into(),
            };
            (format!("not robust under {names}; the fence search did not finish ({why}): the file is left as it is"), 3)
        }
        _ => (format!("not robust under {names}, and no fence position was found"), 1),
    }
}

pub fn run(args: &FixArgs) -> u8 {
    let (models, l) = match load_one(&args.model, &args.bounds, &args.file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let prog = l.analysis.program.as_ref().expect("load_one returns analysed files");
    if models.iter().all(|m| m.is_reference()) {
        eprintln!("error: `fix` needs a relaxed model (tso, pso, pslo): under SC every program is robust");
        return 2;
    }
    let opts = options(&args.bounds);
    let relaxed: Vec<litmus_checker::Model> = models.iter().copied().filter(|m| m.buffered()).collect();
    if relaxed.iter().all(|&m| litmus_checker::explore::by_candidates(prog, m, &opts))
        && litmus_checker::repair::menu::repairable(prog)
    {
        return by_repairs(args, &l, prog, &relaxed, &opts);
    }
    let (before, fix) = joint_fences(prog, &models, args.bounds.monitor.kind(), &opts);
    let names: Vec<&str> = models.iter().filter(|m| m.buffered()).map(|m| m.upper()).collect();
    let names = names.join(", ");
    if fix.fences.is_empty() {
        // Nothing to insert: say what the check earned, no more.
        let (words, code) = nothing_to_insert(&before, &fix.confirmed, &names);
        eprintln!("{}: {words}", l.path);
        if code == 0 {
            print!("{}", l.src);
        }
        return code;
    }
    for f in &fix.fences {
        let s = &prog.stmts[f.stmt as usize];
        eprintln!(
            "{}: fence {} {} ({}: `{}`)",
            l.path,
            f.kind.as_str(),
            words::fence_place(prog, f),
            prog.threads[f.thread as usize].name,
            s.text
        );
    }
    let n = fix.fences.len();
    eprintln!(
        "{}: {n} fence{} — {} under {names}{}",
        l.path,
        if n == 1 { "" } else { "s" },
        words::confirmation(&fix.confirmed),
        if fix.minimal {
            ""
        } else {
            " (not proved the fewest: too many smaller sets to re-check, a re-check did not finish, or the search ran out of work)"
        }
    );
    if let Answer::WithinBounds(true, cuts) = &fix.confirmed {
        eprintln!("{}: within bounds: {}", l.path, cuts.describe());
    }
    confirmed_out(args, &l, &fix.confirmed, || apply(&l.src, &fence_edits(&l.src, prog, &insertions(&fix.fences))))
}

/// Only a confirmed fix is printed or written (`fixed`: the file with
/// it); the exit status says what the re-check earned.
fn confirmed_out(
    args: &FixArgs,
    l: &crate::check::Loaded,
    confirmed: &Answer<bool>,
    fixed: impl FnOnce() -> String,
) -> u8 {
    let code = match confirmed {
        Answer::Proved(true) | Answer::WithinBounds(true, _) => 0,
        Answer::Unknown(_) => 3,
        _ => 1,
    };
    if code != 0 {
        eprintln!("{}: the file is left as it is", l.path);
        return code;
    }
    let fixed = fixed();
    if args.write {
        if let Err(e) = std::fs::write(&args.file, &fixed) {
            eprintln!("error: cannot write `{}`: {e}", args.file);
            return 2;
        }
    } else {
        print!("{fixed}");
    }
    0
}

/// `fix` under models decided on whole candidates (ARM, RISC-V, C11): the
/// cheapest repair of the architecture's menu, re-checked under every model.
fn by_repairs(
    args: &FixArgs,
    l: &crate::check::Loaded,
    prog: &litmus_ir::Program,
    models: &[litmus_checker::Model],
    opts: &litmus_checker::options::Options,
) -> u8 {
    use litmus_checker::repair;
    let rbs: Vec<_> = models.iter().map(|&m| litmus_checker::robust::own_executions(prog, m, opts)).collect();
    let before = litmus_checker::violation::all_robust(&rbs);
    let names: Vec<&str> = models.iter().map(|m| m.upper()).collect();
    let names = names.join(", ");
    let all: Vec<_> = rbs.iter().flat_map(|r| r.violations.iter().cloned()).collect();
    let condition = args.goal == Goal::Condition;
    if condition && prog.condition.is_none() {
        eprintln!("error: `--goal condition`: the test has no final condition");
        return 2;
    }
    let fix = if condition {
        repair::repair_condition(prog, models, &all, opts)
    } else if all.is_empty() {
        repair::RepairFix { repairs: Vec::new(), confirmed: before.clone(), minimal: true, tried: 0 }
    } else {
        repair::repair_all(prog, models, &all, opts)
    };
    if fix.repairs.is_empty() {
        let (words, code) = nothing_to_insert(&before, &fix.confirmed, &names);
        eprintln!("{}: {words}", l.path);
        if code == 0 {
            print!("{}", l.src);
        }
        return code;
    }
    for r in &fix.repairs {
        eprintln!("{}: {} (cost {})", l.path, words::repair(prog, r), r.cost);
    }
    let n = fix.repairs.len();
    let cost: u32 = fix.repairs.iter().map(|r| r.cost).sum();
    // Under `--goal condition` the re-check's claim is the outcome's, not robustness.
    let confirmed = words::confirmation(&fix.confirmed);
    let confirmed = if condition { confirmed.replace("robust", "the outcome never reached") } else { confirmed };
    eprintln!(
        "{}: {n} change{} of cost {cost} — {confirmed} under {names}{}",
        l.path,
        if n == 1 { "" } else { "s" },
        if fix.minimal { " (the cheapest at its violations)" } else { " (not proved the cheapest)" }
    );
    confirmed_out(args, l, &fix.confirmed, || {
        apply(&l.src, &litmus_dsl::edit::repair_edits(&l.src, prog, &repair::edits(&fix.repairs)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use litmus_checker::Why;

    #[test]
    fn a_fence_search_cut_short_is_unknown_not_no_position() {
        let (words, code) = nothing_to_insert(&Answer::Proved(false), &Answer::Unknown(Why::Timeout), "TSO");
        assert_eq!(code, 3, "{words}");
        assert!(words.contains("did not finish (timed out)"), "{words}");
        let (words, code) = nothing_to_insert(&Answer::Proved(false), &Answer::Proved(false), "TSO");
        assert_eq!(code, 1, "{words}");
        assert!(words.contains("no fence position"), "{words}");
        assert_eq!(nothing_to_insert(&Answer::Proved(true), &Answer::Proved(true), "TSO").1, 0);
    }
}
