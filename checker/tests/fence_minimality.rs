//! Issue 43: the fences the unbounded search chooses are the fewest, and
//! what it says of them holds. On generated mutual-exclusion protocols
//! (`common/mutex.rs`: Dekker, Peterson, Burns, back-offs, outer
//! `while (1)`, awaits and spins), under TSO and under TSO and PSO:
//!
//! - the set chosen stops every attack (re-proved on the fenced program);
//! - a set claimed the fewest is: brute force over every fence position of
//!   the program (after, before, at a loop's head), thread by thread, finds
//!   no smaller set of full fences that stops the thread's attacks (one
//!   size smaller suffices: adding a fence never lets an attack through);
//!   for issue 43's two shapes, over every position of every thread at once;
//! - each violation's named fences remove it (the fenced program has no
//!   violation with its key).
//!
//! `LITMUS_MUTEXES=N` checks N protocols (default 48; the closing note of
//! issue 43 ran 600).

mod common;
#[path = "common/mutex.rs"]
mod mutex;

use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::options::StateLimits as Limits;
use litmus_checker::unbounded::{self, fences};
use litmus_checker::violation::{AttackId, FencePoint};
use litmus_checker::Answer;
use litmus_dsl::edit::FenceInsertion;
use litmus_ir::{FenceKind, Place, Program};
use std::collections::BTreeSet;

/// Every place a fence can go, once per source statement and place.
fn positions(p: &Program) -> Vec<FenceInsertion> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for place in [Place::After, Place::Before, Place::LoopHead] {
        for s in 0..p.stmts.len() as u32 {
            if p.fence_place_ok(s, place)
                && seen.insert((p.stmts[s as usize].span.start, p.stmts[s as usize].span.end, place))
            {
                out.push(FenceInsertion { stmt: s, kind: FenceKind::Full, place });
            }
        }
    }
    out
}

/// The feasible attacks (of thread `only`, or of every thread).
fn attacks_of(p: &Program, models: &[Model], only: Option<u16>) -> Vec<AttackId> {
    unbounded::feasible_attacks(p, models, only, &Options::default(), &Limits::default()).expect("the search finishes")
}

fn attacks(p: &Program, models: &[Model]) -> Vec<AttackId> {
    attacks_of(p, models, None)
}

fn fenced(p: &Program, fences: &[FencePoint]) -> Program {
    let ins: Vec<FenceInsertion> =
        fences.iter().map(|f| FenceInsertion { stmt: f.stmt, kind: f.kind, place: f.place }).collect();
    litmus_dsl::fence_ir::insert_fences(p, &ins)
}

/// Some set of `k` of the positions `all` stops every attack (of thread
/// `only`, or of every thread; `None`: more than `cap` sets to try).
fn some_set_of(
    p: &Program,
    models: &[Model],
    only: Option<u16>,
    all: &[FenceInsertion],
    k: usize,
    cap: u64,
) -> Option<bool> {
    let n = all.len();
    let count: f64 = (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product();
    if k > n || count > cap as f64 {
        return if k > n { Some(false) } else { None };
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        let set: Vec<FenceInsertion> = idx.iter().map(|&i| all[i]).collect();
        if attacks_of(&litmus_dsl::fence_ir::insert_fences(p, &set), models, only).is_empty() {
            return Some(true);
        }
        // The next combination.
        let mut i = k;
        loop {
            if i == 0 {
                return Some(false);
            }
            i -= 1;
            if idx[i] < n - k + i {
                break;
            }
        }
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

#[derive(Default, Debug)]
struct Tally {
    programs: usize,
    robust: usize,
    minimal: usize,
    brute_forced: usize,
    too_many: usize,
    not_minimal: usize,
    fences: usize,
}

/// Everything the fix says of `src` under `models`, checked.
fn check(src: &str, models: &[Model], cap: u64, t: &mut Tally) -> Result<(), String> {
    let p = common::compile(src);
    let opts = Options::default();
    let pr = unbounded::prove(&p, models, &opts, &Limits::default()).map_err(|s| s.describe())?;
    t.programs += 1;
    let mut vs: Vec<_> = pr.robustness.iter().flat_map(|rb| rb.violations.clone()).collect();
    if vs.is_empty() {
        t.robust += 1;
        return Ok(());
    }
    let fix = fences::minimal_fences(&p, models, &pr.attacks, &pr.runs, &mut vs, &opts, &Limits::default());
    if fix.confirmed != Answer::Proved(true) {
        return Err(format!("fences not confirmed: {:?}", fix.confirmed));
    }
    t.fences += fix.fences.len();
    let left = attacks(&fenced(&p, &fix.fences), models);
    if !left.is_empty() {
        return Err(format!("{} attacks left after the fences {:?}", left.len(), fix.fences));
    }
    for v in &vs {
        if v.fence.is_empty() {
            return Err(format!("violation {:?} names no fence", v.key()));
        }
        let again = unbounded::prove(&fenced(&p, &v.fence), models, &opts, &Limits::default()).unwrap();
        if again.robustness.iter().flat_map(|rb| &rb.violations).any(|w| (w.model, w.key()) == (v.model, v.key())) {
            return Err(format!("violation {:?} stays after its fences {:?}", v.key(), v.fence));
        }
    }
    if !fix.minimal {
        t.not_minimal += 1;
        return Ok(());
    }
    t.minimal += 1;
    // Brute force, thread by thread: an attack is stopped only by fences its
    // attacker passes, so a fewest set for all is one for each thread (no
    // fence here is shared: the generated programs have no functions).
    let all = positions(&p);
    let mut whole = true;
    for th in 0..p.threads.len() as u16 {
        let k = fix.fences.iter().filter(|f| f.thread == th).count();
        if k == 0 {
            continue;
        }
        let mine: Vec<FenceInsertion> = all.iter().copied().filter(|f| p.stmts[f.stmt as usize].thread == th).collect();
        match some_set_of(&p, models, Some(th), &mine, k - 1, cap) {
            Some(true) => {
                return Err(format!(
                    "{k} fences in thread {th} called the fewest, but {} suffice: {:?}",
                    k - 1,
                    fix.fences
                ))
            }
            Some(false) => {}
            None => whole = false,
        }
    }
    if whole {
        t.brute_forced += 1;
    } else {
        t.too_many += 1;
    }
    Ok(())
}

fn run(models: &[Model], n: u64, cap: u64) -> Tally {
    let mut t = Tally::default();
    let mut errors = Vec::new();
    for seed in 0..n {
        let (name, src) = mutex::program(seed);
        if let Err(e) = check(&src, models, cap, &mut t) {
            errors.push(format!("seed {seed} ({name}): {e}\n{src}"));
        }
    }
    eprintln!("{models:?}: {t:?}");
    assert!(errors.is_empty(), "{} of {n}:\n{}", errors.len(), errors.join("\n"));
    t
}

fn how_many() -> u64 {
    std::env::var("LITMUS_MUTEXES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
}

#[test]
fn generated_mutexes_get_the_fewest_fences_under_tso() {
    let t = run(&[Model::Tso], how_many(), 4_000);
    assert!(t.brute_forced * 10 >= t.programs * 8, "too few brute-forced: {t:?}");
}

#[test]
fn generated_mutexes_get_the_fewest_fences_under_tso_and_pso() {
    let t = run(&[Model::Tso, Model::Pso], how_many(), 4_000);
    assert!(t.brute_forced * 10 >= t.programs * 8, "too few brute-forced: {t:?}");
}

fn fix_of(src: &str, models: &[Model]) -> (Vec<(u32, Place)>, bool) {
    let p = common::compile(src);
    let opts = Options::default();
    let pr = unbounded::prove(&p, models, &opts, &Limits::default()).unwrap();
    let mut vs: Vec<_> = pr.robustness.iter().flat_map(|rb| rb.violations.clone()).collect();
    let fix = fences::minimal_fences(&p, models, &pr.attacks, &pr.runs, &mut vs, &opts, &Limits::default());
    assert_eq!(fix.confirmed, Answer::Proved(true));
    (fix.fences.iter().map(|f| (p.stmts[f.stmt as usize].line, f.place)).collect(), fix.minimal)
}

/// Issue 43's smallest case: a fence on one path of an attack seemed to stop
/// it, so the pair it needs was never tried and a fence after every
/// delayed store (4) was called the fewest. Three suffice.
#[test]
fn issue_43_smallest_case_gets_three() {
    let src = "litmus NM
shared turn = 0, flag0 = 0, flag1 = 0;
thread t0 {
  while (1) {
    flag0 = 1;
    let r0 = flag1;
    if (r0 == 1) {
    } else {
      turn = 1;
    }
  }
}
thread t1 {
  while (1) {
    flag1 = 1;
    let r0 = flag0;
    let r1 = 0;
    if (r0 == 1) {
      flag1 = 0;
      while (r1 != 1) {
        r1 = turn;
      }
    } else {
      flag1 = 0;
    }
  }
}
";
    let (fences, minimal) = fix_of(src, &[Model::Tso]);
    assert_eq!(fences, vec![(5, Place::After), (15, Place::After), (19, Place::After)]);
    assert!(minimal);
    let p = common::compile(src);
    let all = positions(&p);
    assert_eq!(some_set_of(&p, &[Model::Tso], None, &all, 2, u64::MAX), Some(false));
}

/// Dekker with deadlock protection in an outer `while (1)`: a fence after
/// raising the flag and one after the back-off's lowering, per thread (4;
/// 8 before: one after every store).
#[test]
fn issue_43_backoff_dekker_gets_four() {
    let thread = |i: usize| {
        let j = 1 - i;
        format!(
            "thread t{i} {{
  while (1) {{
    flag{i} = 1;
    let r = flag{j};
    if (r == 1) {{
      flag{i} = 0;
      let w = turn;
      while (w != {i}) {{
        w = turn;
      }}
    }} else {{
      cs = {i};
      turn = {j};
      flag{i} = 0;
    }}
  }}
}}
"
        )
    };
    let src = format!("litmus DDP\nshared flag0 = 0, flag1 = 0, turn = 0, cs = 0;\n{}{}", thread(0), thread(1));
    let (fences, minimal) = fix_of(&src, &[Model::Tso]);
    assert_eq!(fences, vec![(5, Place::After), (8, Place::After), (22, Place::After), (25, Place::After)]);
    assert!(minimal);
    let p = common::compile(&src);
    assert_eq!(some_set_of(&p, &[Model::Tso], None, &positions(&p), 3, u64::MAX), Some(false));
}
