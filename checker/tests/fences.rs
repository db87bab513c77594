//! Fences: after inserting the chosen fences the file is robust (by the
//! monitor and by explicit exploration; PSLO alone and with PSO), and no
//! smaller set of full fences (after stores; PSLO: after stores, loads and
//! atomics) makes an example robust (brute force); PSLO sets claimed
//! minimal are. The one-exploration measurement of which fence removes
//! which violation (`measure.rs`) equals a re-check per position (every
//! example and corpus file, TSO and PSO, both forcing rules).

mod common;

use litmus_checker::fences::joint_fences;
use litmus_checker::fences::Rechecks;
use litmus_checker::machine::Model;
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::robust::robustness_of;
use litmus_checker::violation::{insertions, FencePoint};
use litmus_dsl::edit::{apply, fence_edits, FenceInsertion};
use litmus_ir::FenceKind;
use std::path::Path;

fn explicitly_robust(prog: &litmus_ir::Program, model: Model) -> bool {
    common::explicitly_robust(prog, model, 16)
}

fn files() -> Vec<(String, String)> {
    common::corpus_and_example_sources()
}

#[test]
fn fixed_files_are_robust() {
    let opts = Options::default();
    let mut bad = Vec::new();
    for (name, src) in files() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for models in [vec![Model::Tso], vec![Model::Pso], vec![Model::Tso, Model::Pso]] {
            let (_, fix) = joint_fences(&prog, &models, MonitorKind::Bss, &opts);
            let fences = fix.fences;
            let fixed = apply(&src, &fence_edits(&src, &prog, &insertions(&fences)));
            let a = litmus_dsl::analyze(&fixed);
            let Some(fp) = a.program else {
                bad.push(format!("{name} {models:?}: the fixed file does not analyse: {:?}", a.diagnostics));
                continue;
            };
            assert_eq!(a.diagnostics.iter().filter(|d| d.is_error()).count(), 0);
            for &m in &models {
                // Confirmed (proved or within the default bounds), robust by
                // the monitor again, and by explicit exploration.
                if !fix.confirmed.is(&true)
                    || !robustness_of(&fp, m, MonitorKind::Bss, &opts).robust().is(&true)
                    || !explicitly_robust(&fp, m)
                {
                    bad.push(format!("{name} {m:?}: not robust after {} fences", fences.len()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn robust_with(src: &str, prog: &litmus_ir::Program, at: &[u32], model: Model) -> bool {
    let ins: Vec<FenceInsertion> = at.iter().map(|&stmt| FenceInsertion::after(stmt, FenceKind::Full)).collect();
    let fixed = apply(src, &fence_edits(src, prog, &ins));
    let fp = litmus_dsl::analyze(&fixed).program.unwrap();
    robustness_of(&fp, model, MonitorKind::Bss, &Options::default()).robust().is(&true)
}

fn subsets(n: usize, k: usize, start: usize, cur: &mut Vec<usize>, out: &mut impl FnMut(&[usize]) -> bool) -> bool {
    if cur.len() == k {
        return out(cur);
    }
    for i in start..n {
        cur.push(i);
        if subsets(n, k, i + 1, cur, out) {
            return true;
        }
        cur.pop();
    }
    false
}

#[test]
fn no_smaller_fence_set_makes_an_example_robust() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let (mut checked, mut proved) = (0, 0);
    for (name, src) in files().into_iter().filter(|(n, _)| root.join(n).exists()) {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        // After each store (a fence later in the same stretch orders less).
        let positions = litmus_checker::fences::store_stmts(&prog);
        for model in [Model::Tso, Model::Pso] {
            let (_, fix) = joint_fences(&prog, &[model], MonitorKind::Bss, &Options::default());
            assert!(fix.confirmed.is(&true), "{name} {model:?}: {:?}", fix.confirmed);
            // Minimality is claimed where every smaller set was re-checked
            // (Lamport's fast mutex under PSO has 8 fences: too many sets).
            proved += usize::from(fix.minimal);
            let ours = fix.fences;
            // Brute force over full fences at every store, all smaller sets.
            for k in 0..ours.len() {
                let found = subsets(positions.len(), k, 0, &mut Vec::new(), &mut |idx| {
                    let at: Vec<u32> = idx.iter().map(|&i| positions[i]).collect();
                    robust_with(&src, &prog, &at, model)
                });
                assert!(!found, "{name} {model:?}: {k} fences suffice but {} were chosen", ours.len());
            }
            checked += 1;
        }
    }
    assert!(checked >= 40);
    assert!(proved + 2 >= checked, "{proved} of {checked} proved minimal");
}

/// Under PSLO too: the chosen fences (`rr` between loads, `ww` between
/// stores, `wr` store→load) make every file robust, by re-check and by
/// explicit exploration — alone and jointly with PSO.
#[test]
fn fixed_files_are_robust_under_pslo() {
    let opts = Options::default();
    let mut bad = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for (name, src) in files() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for models in [vec![Model::Pslo], vec![Model::Pso, Model::Pslo]] {
            let (_, fix) = joint_fences(&prog, &models, MonitorKind::Bss, &opts);
            kinds.extend(fix.fences.iter().map(|f| f.kind));
            let fixed = apply(&src, &fence_edits(&src, &prog, &insertions(&fix.fences)));
            let fp = litmus_dsl::analyze(&fixed).program.unwrap();
            for &m in &models {
                if !fix.confirmed.is(&true)
                    || !robustness_of(&fp, m, MonitorKind::Bss, &opts).robust().is(&true)
                    || !explicitly_robust(&fp, m)
                {
                    bad.push(format!("{name} {m:?} (of {models:?}): not robust after {:?}", fix.fences));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        kinds.contains(&FenceKind::RR) && kinds.contains(&FenceKind::WW) && kinds.contains(&FenceKind::WR),
        "{kinds:?}"
    );
}

/// Under PSLO no smaller set of full fences (after any store, load or
/// atomic) makes an example robust, where ours has at most two.
#[test]
fn no_smaller_fence_set_makes_an_example_robust_under_pslo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut checked = 0;
    for (name, src) in files().into_iter().filter(|(n, _)| root.join(n).exists()) {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let positions = litmus_checker::fences::fence_positions(&prog, &[Model::Pslo]);
        let (_, fix) = joint_fences(&prog, &[Model::Pslo], MonitorKind::Bss, &Options::default());
        assert!(fix.confirmed.is(&true), "{name}: {:?}", fix.confirmed);
        if fix.fences.len() > 2 {
            continue;
        }
        for k in 0..fix.fences.len() {
            let found = subsets(positions.len(), k, 0, &mut Vec::new(), &mut |idx| {
                let at: Vec<u32> = idx.iter().map(|&i| positions[i]).collect();
                robust_with(&src, &prog, &at, Model::Pslo)
            });
            assert!(!found, "{name}: {k} fences suffice but {} were chosen", fix.fences.len());
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}

/// The kills the fence search measures in one SC exploration (a BSS monitor
/// per position, [`litmus_checker::measure`]) are those a re-check of the
/// program with each fence alone shows, on every example and corpus file,
/// under TSO and PSO, with either forcing rule.
#[test]
fn one_exploration_measures_what_a_recheck_per_position_shows() {
    let opts = Options::default();
    let models = [Model::Tso, Model::Pso];
    let (mut removed, mut premeasured_kills) = (0, 0);
    for (name, src) in files() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for monitor in [MonitorKind::Bss, MonitorKind::BssInterleaving] {
            let violations: Vec<_> =
                models.iter().flat_map(|&m| robustness_of(&prog, m, monitor, &opts).violations).collect();
            let positions = litmus_checker::fences::measured_positions(&prog, &models, &violations);
            let one = Rechecks::new(&prog, monitor, &opts).kills(&positions, &violations, &models);
            let each = Rechecks::new(&prog, monitor, &opts).kills_by_rechecks(&positions, &violations, &models);
            assert_eq!(one, each, "{name} {monitor:?}");
            removed += one.iter().map(|k| k.len()).sum::<usize>();
            // The program's own SC exploration, measuring on the way
            // (fences right after stores, not inserted), knows the same.
            if let Some(pre) = premeasured(&prog, &models, monitor) {
                for (v, kills) in violations.iter().zip(&each) {
                    for p in positions.iter().filter(|p| p.place == litmus_ir::Place::After) {
                        if let Some(r) = pre.removes(v.model, p.stmt, v.key()) {
                            assert_eq!(r, kills.contains(p), "{name} {monitor:?} {p:?} {:?}", v.key());
                            premeasured_kills += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(removed > 100, "{removed}");
    assert!(premeasured_kills > 1000, "{premeasured_kills}");
}

/// Full fences right after each of `stmts`.
fn full_after(prog: &litmus_ir::Program, stmts: &[u32]) -> Vec<FencePoint> {
    stmts
        .iter()
        .map(|&s| FencePoint {
            thread: prog.stmts[s as usize].thread,
            stmt: s,
            kind: FenceKind::Full,
            place: litmus_ir::Place::After,
        })
        .collect()
}

/// What the SC exploration's monitors measured of fences on the way
/// ([`litmus_checker::measure::Premeasured`]), if they could.
fn premeasured(
    prog: &litmus_ir::Program,
    models: &[Model],
    monitor: MonitorKind,
) -> Option<std::sync::Arc<litmus_checker::measure::Premeasured>> {
    litmus_checker::robust::measured_robustness(prog, models, monitor, &Options::default()).premeasured
}

/// Issue 26: under PSLO a fence set was called minimal though fewer full
/// fences made the program robust (a hitting set of what single fences
/// remove is no proof: two fences together can remove what neither does
/// alone). Where the set is claimed minimal, brute force over full fences
/// after every store, load and atomic finds no smaller one.
#[test]
fn pslo_fence_sets_claimed_minimal_are_minimal() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[26; 32]));
    let strategy = common::program(2..4, 2..5, false);
    let (mut claimed, mut brute) = (0, 0);
    for _ in 0..120 {
        let threads = strategy.new_tree(&mut runner).unwrap().current();
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let (_, fix) = joint_fences(&prog, &[Model::Pslo], MonitorKind::Bss, &Options::default());
        if !fix.confirmed.is(&true) || fix.fences.is_empty() {
            continue;
        }
        claimed += usize::from(fix.minimal);
        let positions = litmus_checker::fences::fence_positions(&prog, &[Model::Pslo]);
        let k = fix.fences.len() - 1;
        // Small enough to brute-force.
        if !fix.minimal || (1..=k).map(|i| (positions.len() + 1 - i) as f64 / i as f64).product::<f64>() > 200.0 {
            continue;
        }
        brute += 1;
        let found = subsets(positions.len(), k, 0, &mut Vec::new(), &mut |idx| {
            let at: Vec<u32> = idx.iter().map(|&i| positions[i]).collect();
            robust_with(&src, &prog, &at, Model::Pslo)
        });
        assert!(!found, "{k} full fences suffice but {} were chosen, called minimal:\n{src}", fix.fences.len());
    }
    assert!(claimed >= 20 && brute >= 20, "claimed {claimed}, brute-forced {brute}");
}

/// Found by random search: the hitting set of single fences' effects chose
/// three fences, and two full ones make the program robust — the set was
/// still called minimal.
#[test]
fn two_fences_together_can_replace_three() {
    let src = "litmus G\nshared x = 0, y = 0, z = 0;\n\
        thread P0 { y = 1; let r0_0 = xchg(y, 2); fence; }\n\
        thread P1 { let r1_0 = x; let r1_1 = y; let r1_2 = x; fence; let r1_3 = xchg(x, 1); let r1_4 = y; }\n\
        thread P2 { x = 2; let r2_0 = z; let r2_1 = z; let r2_2 = y; }\n\
        exists (P0:r0_0 == 0 && P1:r1_0 == 0 && P1:r1_1 == 0);\n";
    let prog = common::compile(src);
    let (_, fix) = joint_fences(&prog, &[Model::Pslo], MonitorKind::Bss, &Options::default());
    assert!(fix.confirmed.is(&true), "{:?}", fix.confirmed);
    assert_eq!(fix.fences.len(), 2, "{:?}", fix.fences);
    assert!(fix.minimal);
    let fixed = apply(src, &fence_edits(src, &prog, &insertions(&fix.fences)));
    assert!(explicitly_robust(&common::compile(&fixed), Model::Pslo), "{fixed}");
    let positions = litmus_checker::fences::fence_positions(&prog, &[Model::Pslo]);
    for &p in &positions {
        assert!(!robust_with(src, &prog, &[p], Model::Pslo), "one fence after statement {p} suffices");
    }
}

/// Issue 26: the reader of MP spins on the flag (a reduced spin: one
/// attempt, no fence inside it). The fence goes before the load of the
/// data, after the loop — it was left unfixed.
#[test]
fn a_fence_after_a_reduced_spin_goes_before_the_next_access() {
    let src = "litmus MPspin\nshared d = 0, f = 0;\n\
        thread P0 { d = 7; fence ww; f = 1; }\n\
        thread P1 { let g = f; while (g == 0) { g = f; } let r = d; assert (r == 7); }\n";
    let prog = common::compile(src);
    let (_, fix) = joint_fences(&prog, &[Model::Pslo], MonitorKind::Bss, &Options::default());
    assert!(fix.confirmed.is(&true), "{:?}", fix.confirmed);
    assert_eq!(fix.fences.len(), 1, "{:?}", fix.fences);
    assert_eq!(fix.fences[0].place, litmus_ir::Place::Before);
    let fixed = apply(src, &fence_edits(src, &prog, &insertions(&fix.fences)));
    assert!(fixed.contains("while (g == 0) { g = f; } fence rr; let r = d;"), "{fixed}");
    assert!(explicitly_robust(&common::compile(&fixed), Model::Pslo), "{fixed}");
}

/// The fewest-fences proof does not re-check a single fence that the
/// one-exploration measurement saw a violation survive (`Rechecks::
/// signalled_with`, resting on BSS soundness). On every example and corpus
/// file, under TSO and PSO, each such fence alone leaves the program not
/// robust by its own executions.
#[test]
fn a_single_fence_the_measurement_saw_a_violation_survive_is_not_robust() {
    let opts = Options::default();
    let mut witnessed = 0;
    for (name, src) in files() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for model in [Model::Tso, Model::Pso] {
            let violations = robustness_of(&prog, model, MonitorKind::Bss, &opts).violations;
            if violations.is_empty() {
                continue;
            }
            let positions = litmus_checker::fences::measured_positions(&prog, &[model], &violations);
            let re = Rechecks::new(&prog, MonitorKind::Bss, &opts);
            re.kills(&positions, &violations, &[model]);
            for p in positions {
                let f = FencePoint {
                    thread: prog.stmts[p.stmt as usize].thread,
                    stmt: p.stmt,
                    kind: FenceKind::Full,
                    place: p.place,
                };
                if re.signalled_with(&[f], &[model]) {
                    witnessed += 1;
                    let fenced = litmus_dsl::fence_ir::insert_fences(&prog, &insertions(&[f]));
                    assert!(!explicitly_robust(&fenced, model), "{name} {model:?}: robust with a fence at {p:?}");
                }
            }
        }
    }
    assert!(witnessed > 100, "{witnessed}");
}

/// The measuring exploration also re-checks fence sets (the fence search
/// passes the set the cycles name, `measure::measure`'s `sets`): a set whose
/// monitor never signalled makes the program robust, one whose monitor
/// signalled does not — by the model's own executions, on every example
/// and corpus file under TSO and PSO, for the union of the violations'
/// candidate positions, each one alone and each pair.
#[test]
fn fence_sets_checked_while_measuring_agree_with_explicit_exploration() {
    use litmus_ir::Place;
    let opts = Options::default();
    let (mut quiet, mut loud, mut premeasured_sets) = (0, 0, 0);
    for (name, src) in files() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for model in [Model::Tso, Model::Pso] {
            let violations = robustness_of(&prog, model, MonitorKind::Bss, &opts).violations;
            let mut spots: Vec<u32> = violations
                .iter()
                .flat_map(|v| v.candidates.iter().filter(|c| c.0.place == Place::After).map(|c| c.0.stmt))
                .collect();
            spots.sort();
            spots.dedup();
            if spots.is_empty() {
                continue;
            }
            let mut sets = vec![spots.clone()];
            sets.extend(spots.iter().map(|&s| vec![s]));
            // Pairs too (the minimality proof's smaller sets, measured).
            if spots.len() <= 8 {
                for i in 0..spots.len() {
                    sets.extend(spots[i + 1..].iter().map(|&t| vec![spots[i], t]));
                }
            }
            let m = litmus_checker::measure::measure(&prog, &spots, &violations, MonitorKind::Bss, &opts, &sets)
                .expect("finished");
            assert_eq!(m.models, [model]);
            let pre = premeasured(&prog, &[model], MonitorKind::Bss).expect("BSS measures");
            for (set, &q) in sets.iter().zip(&m.quiet) {
                let at: Vec<FenceInsertion> = set.iter().map(|&s| FenceInsertion::after(s, FenceKind::Full)).collect();
                let fenced = litmus_dsl::fence_ir::insert_fences(&prog, &at);
                let explicit = explicitly_robust(&fenced, model);
                assert_eq!(q, explicit, "{name} {model:?} {set:?}");
                // The program's own SC exploration answers the same, where
                // it measured every fence of the set.
                if let Some(r) = pre.robust(model, &full_after(&prog, set)) {
                    assert_eq!(r, explicit, "{name} {model:?} {set:?} (premeasured)");
                    premeasured_sets += 1;
                }
                if q {
                    quiet += 1;
                } else {
                    loud += 1;
                }
            }
        }
    }
    assert!(quiet > 50 && loud > 50, "{quiet} quiet, {loud} signalled");
    assert!(premeasured_sets > 700, "{premeasured_sets} sets premeasured");
}

/// The fence search reading what the program's SC exploration measured on
/// the way (`Rechecks::premeasured`) chooses what it chooses exploring
/// again: the same fences, earning the same confirmation and minimality,
/// on every example and corpus file under TSO, PSO and both, with each
/// monitor (Sober's and the paper's BSS signals are not measured) — with no
/// exploration at all on most of them.
#[test]
fn premeasured_fences_are_those_explored_again() {
    let opts = Options { threads: 1, ..Options::default() };
    let (mut compared, mut unexplored) = (0, 0);
    let cases: Vec<(MonitorKind, Vec<Model>)> = [MonitorKind::Bss, MonitorKind::Sober, MonitorKind::BssInterleaving]
        .into_iter()
        .flat_map(|k| [vec![Model::Tso], vec![Model::Pso], vec![Model::Tso, Model::Pso]].map(|m| (k, m)))
        .collect();
    for (name, src) in files() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for (monitor, models) in cases.iter().cloned() {
            let before = litmus_checker::robust::measured_robustness(&prog, &models, monitor, &opts);
            let all: Vec<_> = before.robustness.iter().flat_map(|r| r.violations.iter().cloned()).collect();
            if all.is_empty() {
                continue;
            }
            let robust = litmus_checker::violation::all_robust(&before.robustness);
            let pre = before.premeasured;
            let fresh = Rechecks::new(&prog, monitor, &opts);
            let read = Rechecks::new(&prog, monitor, &opts).premeasured(pre);
            let a = litmus_checker::fences::minimal_fences(&fresh, &models, &mut all.clone(), robust.clone());
            let b = litmus_checker::fences::minimal_fences(&read, &models, &mut all.clone(), robust);
            let what = format!("{name} {monitor:?} {models:?}");
            assert_eq!((&a.fences, &a.confirmed, a.minimal), (&b.fences, &b.confirmed, b.minimal), "{what}");
            assert!(read.explorations() <= fresh.explorations(), "{what}");
            if monitor == MonitorKind::Bss {
                compared += 1;
                unexplored += usize::from(read.explorations() == 0);
            }
        }
    }
    assert!(compared > 100 && unexplored * 10 > compared * 8, "{compared} compared, {unexplored} without exploring");
}

/// A measurement is worth what its exploration was: cut short, it answers
/// nothing (no set robust, no fence removing anything), whatever it saw.
#[test]
fn a_cut_short_exploration_premeasures_nothing() {
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::sync::Arc;
    let src =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/slow.litmus")).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    let mut seen = 0;
    for polls in [1, 3, 10, 30] {
        let budget = litmus_checker::Budget {
            cancel: Some(Arc::new(AtomicBool::new(false))),
            polls_left: Some(Arc::new(AtomicU64::new(polls))),
            ..Default::default()
        };
        let opts = Options { threads: 1, budget, ..Options::default() };
        let measured = litmus_checker::robust::measured_robustness(&prog, &[Model::Tso], MonitorKind::Bss, &opts);
        assert!(!measured.sc.coverage.finished(), "cut at poll {polls}");
        let pre = measured.premeasured.expect("BSS measures");
        let stores = litmus_checker::fences::store_stmts(&prog);
        assert_eq!(pre.robust(Model::Tso, &full_after(&prog, &stores)), None, "cut at poll {polls}");
        for v in measured.robustness.iter().flat_map(|r| &r.violations) {
            seen += 1;
            for &s in &stores {
                assert_eq!(pre.removes(v.model, s, v.key()), None);
            }
        }
    }
    // Some cut came after violations were seen.
    assert!(seen > 0);
}
