//! Robustness from the monitors over SC executions equals robustness from
//! explicit TSO/PSO exploration (some execution's trace has an hb cycle) on
//! the examples, the corpus and 1,000+ generated programs (with and without
//! awaits, locks and spins), and every reported violation's witness replays
//! to a cyclic trace. Sober is sound and misses exactly the store-forwarding
//! cycles (the BSS tech report's Fig. 6 program is a test). PSLO: its
//! violations replay and exhibit their pair, PSO's violations are PSLO's,
//! and confirmed PSLO fences hold.

mod common;

use litmus_checker::dpor::{Control, Explorer, Limits};
use litmus_checker::machine::{Machine, Model};
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::reference::replay;
use litmus_checker::robust::robustness_of;
use litmus_checker::trace;
use litmus_checker::{Answer, Why};
use proptest::prelude::*;

/// Explicit: does any execution under `model` have a cyclic trace?
pub fn explicitly_robust(prog: &litmus_ir::Program, model: Model, opts: &Options) -> bool {
    cyclic_execution(prog, model, opts, |_| true).is_none()
}

/// Some execution with a cyclic trace that also satisfies `filter`.
fn cyclic_execution(
    prog: &litmus_ir::Program,
    model: Model,
    opts: &Options,
    filter: impl Fn(&[litmus_checker::machine::Event]) -> bool,
) -> Option<Vec<litmus_checker::machine::Event>> {
    let m = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut ex = Explorer::new(&m);
    let mut found = None;
    ex.run(Limits::default(), |e| {
        if trace::has_cycle(e.events) && filter(e.events) {
            found = Some(e.events.to_vec());
            return Control::Stop;
        }
        Control::Continue
    });
    found
}

/// Does a load read its own thread's store from the buffer (forwarding)?
fn forwards(events: &[litmus_checker::machine::Event]) -> bool {
    use litmus_checker::machine::{EventKind, NONE};
    events.iter().any(|e| {
        e.kind == EventKind::Load
            && e.rf != NONE
            && events[e.rf as usize].kind == EventKind::Store
            && events[e.rf as usize].thread == e.thread
    })
}

/// Sober under TSO: every report is real; a miss is a program whose every
/// non-SC TSO execution forwards a store to a load of its own thread — the
/// case Sober's axiomatic TSO gets wrong (BSS tech. report, Figs. 6–7).
fn sober_agrees(prog: &litmus_ir::Program, name: &str, opts: &Options) -> Result<bool, String> {
    let rb = robustness_of(prog, Model::Tso, MonitorKind::Sober, opts);
    witnesses_replay(prog, &rb.violations, opts).map_err(|e| format!("{name}: {e}"))?;
    let explicit = explicitly_robust(prog, Model::Tso, opts);
    // Cross-checked by TSO's own executions, the answer is exact: proved,
    // or, where the loop bound cut both (a spin that stores, as
    // spinlock-early-release's xchg), the same within that bound.
    let exact = match rb.robust() {
        Answer::Proved(v) => v == explicit,
        Answer::WithinBounds(v, cuts) => v == explicit && cuts.loop_bound > 0,
        Answer::Unknown(_) => false,
    };
    if !exact {
        return Err(format!("{name}: Sober, cross-checked, says {:?}; explicit robust={explicit}", rb.robust()));
    }
    // What the monitor found alone.
    let vs: Vec<_> = rb.violations.iter().filter(|v| !rb.missed_by_monitor.contains(&v.key())).collect();
    if !vs.is_empty() && explicit {
        return Err(format!("{name}: Sober reports a violation that explicit exploration does not find"));
    }
    if vs.is_empty() && !explicit {
        if let Some(ev) = cyclic_execution(prog, Model::Tso, opts, |ev| !forwards(ev)) {
            return Err(format!("{name}: Sober misses a violation without store forwarding ({} events)", ev.len()));
        }
        return Ok(true);
    }
    Ok(false)
}

/// Every violation's witness replays under its model to a cyclic trace.
fn witnesses_replay(prog: &litmus_ir::Program, vs: &[litmus_checker::Violation], opts: &Options) -> Result<(), String> {
    for v in vs {
        let m = Machine::new(prog, v.model, opts.loop_bound, u32::MAX);
        let (_, events) = replay(&m, &v.witness.schedule);
        if events != v.witness.events {
            return Err(format!("witness of {:?} does not replay identically", v.store_stmt));
        }
        if trace::Trace::of(&events).cycle().is_none() {
            return Err(format!("witness of {:?} has no cycle", v.store_stmt));
        }
        // The cycle's steps are the trace's events: accesses, never a fence
        // that only lies on one of its po edges.
        let access = |s: u32| {
            v.witness.events.iter().any(|e| {
                e.stmt == s
                    && matches!(
                        e.kind,
                        litmus_checker::machine::EventKind::Load
                            | litmus_checker::machine::EventKind::Store
                            | litmus_checker::machine::EventKind::Rmw
                    )
            })
        };
        if let Some(st) = v.cycle.iter().find(|st| !access(st.stmt)) {
            return Err(format!("cycle of {:?} has a step that is no access: {st:?}", v.store_stmt));
        }
    }
    Ok(())
}

/// Monitor robustness equals explicit robustness, witnesses replay, and
/// (`every_signal`) each BSS signal gets a witness — BSS's Theorem 1 for
/// programs without blocking; an `await` or `lock` can make a signalled
/// reordering infeasible, and the witness check is what filters those.
pub fn agree_all(
    prog: &litmus_ir::Program,
    name: &str,
    monitors: &[(MonitorKind, Model)],
    opts: &Options,
    every_signal: bool,
) -> Vec<String> {
    let mut bad = Vec::new();
    for &(mon, model) in monitors {
        let rb = robustness_of(prog, model, mon, opts);
        let unconfirmed = rb.unconfirmed.len();
        // BSS signals are all real (Theorem 1): each must get a witness.
        if every_signal && unconfirmed > 0 && matches!(mon, MonitorKind::Bss | MonitorKind::BssInterleaving) {
            bad.push(format!(
                "{name} {:?} {:?}: {unconfirmed} signalled statement pairs without a witness",
                model, mon
            ));
        }
        if let Err(e) = witnesses_replay(prog, &rb.violations, opts) {
            bad.push(format!("{name} {:?} {:?}: {e}", model, mon));
        }
        let explicit = explicitly_robust(prog, model, opts);
        match rb.robust() {
            // A robustness claim must be what explicit exploration finds.
            Answer::Proved(r) | Answer::WithinBounds(r, _) if r != explicit => {
                bad.push(format!("{name} {:?} {:?}: monitor robust={r} explicit robust={explicit}", model, mon))
            }
            Answer::Proved(_) | Answer::WithinBounds(..) => {}
            // No claim: allowed only for signals an await or lock made infeasible.
            Answer::Unknown(Why::Unconfirmed(_)) if !every_signal => {}
            Answer::Unknown(w) => bad.push(format!("{name} {:?} {:?}: robustness unknown ({w:?})", model, mon)),
        }
    }
    bad
}

pub fn agree(prog: &litmus_ir::Program, name: &str, monitors: &[(MonitorKind, Model)], opts: &Options) -> Vec<String> {
    agree_all(prog, name, monitors, opts, true)
}

fn corpus_and_examples() -> Vec<(String, litmus_ir::Program)> {
    common::corpus_and_example_sources()
        .into_iter()
        .map(|(name, src)| (name, litmus_dsl::analyze(&src).program.unwrap()))
        .collect()
}

#[test]
fn bss_agrees_with_explicit_exploration_on_examples_and_corpus() {
    let mut bad = Vec::new();
    for (name, prog) in corpus_and_examples() {
        bad.extend(agree(
            &prog,
            &name,
            &[(MonitorKind::Bss, Model::Tso), (MonitorKind::Bss, Model::Pso)],
            &Options::default(),
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn sober_is_sound_and_misses_only_forwarding_cycles() {
    let mut misses = Vec::new();
    for (name, prog) in corpus_and_examples() {
        if sober_agrees(&prog, &name, &Options::default()).unwrap() {
            misses.push(name);
        }
    }
    // The rfi shapes of the corpus: a thread reads its own buffered store.
    assert_eq!(
        misses,
        [
            "catalogue__x86_64__tests__R+po+rfi-po.litmus",
            "catalogue__x86_64__tests__WRW+WR+po+rfi-po.litmus",
            "catalogue__x86__tests__R+mfence+rfi-po.litmus",
            "doc__tst-x86__X003.litmus",
        ]
    );
}

#[test]
fn a_store_overtakes_a_delayed_store_with_another_queued_behind_it() {
    // PSO: P0's `x = 1` waits in its x-queue past the xchg on y (which drains
    // only y's), with `x = r0 + 1` queued behind it; P1's `x = 1` commits
    // first. The witness must leave both of P0's stores pending (found by
    // proptest: the witness builder used to insist on SC's coherence for the
    // second one and gave up).
    let src = "litmus Q\nshared x = 0, y = 0;\n\
        thread P0 { x = 1; let r0 = xchg(y, 1); x = r0 + 1; }\n\
        thread P1 { let a = cas(y, 0, 1); let b = cas(y, 0, 1); x = 1; }\n\
        thread P2 { y = 1; let c = xchg(y, 1); y = 1; }\n";
    let prog = common::compile(src);
    let bad = agree(&prog, "Q", &[(MonitorKind::Bss, Model::Pso)], &Options::default());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(!robustness_of(&prog, Model::Pso, MonitorKind::Bss, &Options::default()).violations.is_empty());
}

#[test]
fn sober_checks_the_reads_of_atomics_too() {
    // Found by proptest: a cas that fails reads x before P1's delayed
    // `x = 1` commits, closing the cycle x = 1 →po r1 = y →fr y = 1 →po
    // cas →fr x = 1 without any forwarding. Sober checked plain loads only,
    // so only the cross-check found it; it now walks back from every read,
    // and its witness lets the cas fail (under SC it succeeded).
    let src = "litmus A\nshared x = 0, y = 0, z = 0, m = 0;\n\
        thread P0 { y = 1; let r0 = cas(x, 1, 1); }\n\
        thread P1 { let r0 = cas(x, 1, 1); x = 1; let r1 = y; }\n\
        exists (P0:r0 == 0 && P1:r0 == 0 && P1:r1 == 0);\n";
    let prog = common::compile(src);
    let opts = Options::default();
    let sober = robustness_of(&prog, Model::Tso, MonitorKind::Sober, &opts);
    assert!(!sober.violations.is_empty(), "{:?}", sober.robust());
    assert!(sober.missed_by_monitor.is_empty() && sober.unconfirmed.is_empty(), "{:?}", sober.missed_by_monitor);
    witnesses_replay(&prog, &sober.violations, &opts).unwrap();
    assert!(!explicitly_robust(&prog, Model::Tso, &opts));
}

#[test]
fn sober_misses_the_bss_fig6_program_that_bss_finds() {
    // BSS tech. report, Fig. 6: `a = 1; if (a == 1) print b;` ∥
    // `b = 1; a = 2; interlock(c); print a;`
    let src = "litmus Fig6\nshared a = 0, b = 0, c = 0;\n\
        thread P1 { a = 1; let r = a; if (r == 1) { let pb = b; } }\n\
        thread P2 { b = 1; a = 2; fetch_add(c, 0); let pa = a; }\n";
    let prog = common::compile(src);
    let opts = Options::default();
    let sober = robustness_of(&prog, Model::Tso, MonitorKind::Sober, &opts);
    assert_eq!(sober.missed_by_monitor.len(), sober.violations.len(), "Sober alone is silent");
    assert!(!sober.violations.is_empty(), "TSO's own executions, the cross-check, find them");
    let bss = robustness_of(&prog, Model::Tso, MonitorKind::Bss, &opts).violations;
    assert!(!bss.is_empty(), "BSS reports");
    witnesses_replay(&prog, &bss, &opts).unwrap();
    assert!(!explicitly_robust(&prog, Model::Tso, &opts), "explicit exploration confirms");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn bss_agrees_with_explicit_exploration_with_awaits_and_locks(threads in common::blocking_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let bad = agree_all(&prog, "generated", &[(MonitorKind::Bss, Model::Tso), (MonitorKind::Bss, Model::Pso)], &Options::default(), false);
        prop_assert!(bad.is_empty(), "{}\n{}", bad.join("\n"), src);
    }

    #[test]
    fn the_whole_check_never_panics_and_every_witness_replays(threads in common::blocking_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for monitor in [MonitorKind::Bss, MonitorKind::Sober] {
            let opts = Options { loop_bound: 1, ..Options::default() };
            let r = litmus_checker::check_all(&prog, &[Model::Sc, Model::Tso, Model::Pso], monitor, &opts);
            for rb in &r.robustness {
                witnesses_replay(&prog, &rb.violations, &opts).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
            }
        }
    }

    #[test]
    fn sober_is_sound_on_generated_programs(threads in common::program(2..4, 1..5, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let r = sober_agrees(&prog, "generated", &Options::default());
        prop_assert!(r.is_ok(), "{}\n{}", r.unwrap_err(), src);
    }

    #[test]
    fn bss_agrees_with_explicit_exploration_on_generated_programs(threads in common::program(2..5, 1..5, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let bad = agree(&prog, "generated", &[(MonitorKind::Bss, Model::Tso), (MonitorKind::Bss, Model::Pso)], &Options::default());
        prop_assert!(bad.is_empty(), "{}\n{}", bad.join("\n"), src);
    }
}

/// The paper's BSS (commits forced by interleaving order) also agrees with
/// explicit exploration on the corpus and examples, every signal witnessed.
#[test]
fn paper_bss_agrees_with_explicit_exploration_on_examples_and_corpus() {
    let mut bad = Vec::new();
    for (name, prog) in corpus_and_examples() {
        bad.extend(agree(
            &prog,
            &name,
            &[(MonitorKind::BssInterleaving, Model::Tso), (MonitorKind::BssInterleaving, Model::Pso)],
            &Options::default(),
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// PSLO has no monitor: its robustness comes from its own executions. Every
/// execution with a cyclic trace must yield a violation (some po edge of the
/// cycle taken out of order), every violation's witness replays to a cyclic
/// trace, and PSO's violations are PSLO's too (PSLO ⊇ PSO).
fn pslo_agrees(prog: &litmus_ir::Program, name: &str, opts: &Options) -> Vec<String> {
    let mut bad = agree_all(prog, name, &[(MonitorKind::Bss, Model::Pslo)], opts, true);
    let pslo = robustness_of(prog, Model::Pslo, MonitorKind::Bss, opts);
    if pslo.monitor != MonitorKind::Explicit || !pslo.unconfirmed.is_empty() {
        bad.push(format!("{name}: PSLO robustness must come from explicit exploration, all witnessed"));
    }
    for v in &pslo.violations {
        // The named pair is the first po edge of the displayed cycle.
        let c = &v.cycle;
        if c.len() < 2 || c[0].stmt != v.store_stmt || c[1].stmt != v.access_stmt || c[0].edge != trace::Edge::Po {
            bad.push(format!("{name}: PSLO violation {:?} is not its cycle's first po edge", v.key()));
        }
        if !litmus_checker::harm::exhibited(Model::Pslo, &v.witness.events, &[v.key()])[0] {
            bad.push(format!("{name}: PSLO violation {:?}: its witness does not exhibit it", v.key()));
        }
    }
    if !explicitly_robust(prog, Model::Pso, opts) && explicitly_robust(prog, Model::Pslo, opts) {
        bad.push(format!("{name}: not robust under PSO but robust under PSLO"));
    }
    bad
}

#[test]
fn pslo_robustness_from_its_own_executions_on_examples_and_corpus() {
    let mut bad = Vec::new();
    for (name, prog) in corpus_and_examples() {
        // ms2-queue's PSLO executions are many; its loop bound 1 keeps this quick.
        let opts = Options { loop_bound: 1, ..Options::default() };
        bad.extend(pslo_agrees(&prog, &name, &opts));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn pslo_robustness_from_its_own_executions_on_generated_programs(threads in common::blocking_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let bad = pslo_agrees(&prog, "generated", &Options { loop_bound: 1, ..Options::default() });
        prop_assert!(bad.is_empty(), "{}\n{}", bad.join("\n"), src);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// The whole check under PSLO (harm, fences and their re-checks): no
    /// panic, every witness replays, and confirmed fences make the program
    /// robust under PSLO.
    #[test]
    fn the_whole_check_under_pslo(threads in common::program(2..4, 1..4, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let opts = Options { loop_bound: 1, ..Options::default() };
        let r = litmus_checker::check_all(&prog, &[Model::Sc, Model::Pso, Model::Pslo], MonitorKind::Bss, &opts);
        for rb in &r.robustness {
            witnesses_replay(&prog, &rb.violations, &opts).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        }
        let pslo = r.robustness.iter().find(|rb| rb.model == Model::Pslo).unwrap();
        if pslo.fences_confirmed.is(&true) && !pslo.fences.is_empty() {
            let edits = litmus_dsl::edit::fence_edits(&src, &prog, &litmus_checker::violation::insertions(&pslo.fences));
            let fixed = litmus_dsl::edit::apply(&src, &edits);
            let fp = common::compile(&fixed);
            prop_assert!(explicitly_robust(&fp, Model::Pslo, &opts), "confirmed fences leave a violation\n{}", fixed);
        }
    }
}

#[test]
fn a_fence_on_a_po_edge_is_no_step_of_the_cycle() {
    // SB with P0's side fenced: P1's violation remains, its cycle passing
    // through P0's fence (the access's thread's previous event).
    let src = "litmus SBF\nshared x = 0;\nshared y = 0;\nthread P0 {\n  x = 1;\n  fence wr;\n  let r0 = y;\n}\nthread P1 {\n  y = 1;\n  let r1 = x;\n}\n";
    let prog = litmus_dsl::analyze(src).program.unwrap();
    let opts = Options::default();
    let rb = robustness_of(&prog, Model::Tso, MonitorKind::Bss, &opts);
    assert_eq!(rb.violations.len(), 1);
    let texts: Vec<&str> = rb.violations[0].cycle.iter().map(|s| prog.stmts[s.stmt as usize].text.as_str()).collect();
    assert_eq!(texts, ["y = 1", "let r1 = x", "x = 1", "let r0 = y"]);
    witnesses_replay(&prog, &rb.violations, &opts).unwrap();
}

/// Issue 26: a cas that fails writes nothing — it is a read, ordered as
/// its atomic is. Counted as a store (writing back the value it read), it
/// made an SC violation (and a `fence wr`) of a program whose every
/// outcome is SC; every explorer, monitor and the attacks must agree.
#[test]
fn a_failed_cas_is_a_read_that_orders_as_its_atomic() {
    let never_succeeds = "litmus C\nshared x = 0, y = 0;\n\
        thread P0 { let a = cas(x, 7, 9); y = 2; }\nthread P1 { y = 1; let b = x; }\n";
    let p = litmus_dsl::analyze(never_succeeds).program.unwrap();
    for model in [Model::Tso, Model::Pso, Model::Pslo] {
        for monitor in [MonitorKind::Bss, MonitorKind::Sober, MonitorKind::BssInterleaving] {
            let rb = robustness_of(&p, model, monitor, &Options::default());
            assert!(rb.robust().is(&true), "{model:?} {monitor:?}: {:?}", rb.violations);
        }
        assert!(explicitly_robust(&p, model, &Options::default()), "{model:?}");
    }
    // It still drains as the atomic does: SB with a failing cas between
    // each store and load is robust under TSO (the thread's buffer) and
    // not under PSO (only the cas's own location's).
    let sb = "litmus S\nshared x = 0, y = 0, z = 0;\n\
        thread P0 { x = 1; let a = cas(z, 7, 9); let r = y; }\n\
        thread P1 { y = 1; let c = cas(z, 7, 9); let s = x; }\n";
    let p = litmus_dsl::analyze(sb).program.unwrap();
    assert!(robustness_of(&p, Model::Tso, MonitorKind::Bss, &Options::default()).robust().is(&true));
    assert!(explicitly_robust(&p, Model::Tso, &Options::default()));
    assert!(robustness_of(&p, Model::Pso, MonitorKind::Bss, &Options::default()).robust().is(&false));
    assert!(!explicitly_robust(&p, Model::Pso, &Options::default()));
}

/// A model the bounded engine proved the program robust under (its SC
/// exploration finished, nothing cut) takes its outcome from SC's instead
/// of exploring its own executions (`check.rs` `robust_outcome`). On every
/// example and corpus file, under TSO, PSO and PSLO, that outcome's final
/// states, failures and deadlocks are those the model's own exploration
/// finds.
#[test]
fn a_robust_models_outcome_taken_from_sc_is_its_own() {
    use litmus_checker::Coverage;
    let opts = Options::default();
    let models = [Model::Sc, Model::Tso, Model::Pso, Model::Pslo];
    let mut derived = 0;
    for (name, src) in common::corpus_and_example_sources() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let mut r = litmus_checker::find_violations(&prog, &models, MonitorKind::Bss, &opts);
        let sc_complete = r.outcomes[0].coverage == Coverage::Complete;
        litmus_checker::add_relaxed_outcomes(&mut r, &prog, &models, &opts);
        for rb in r.robustness.iter().filter(|rb| sc_complete && rb.robust() == Answer::Proved(true)) {
            let ours = r.outcomes.iter().find(|o| o.model == rb.model).unwrap();
            let own = litmus_checker::explore::explore(&prog, rb.model, &opts);
            let states = |o: &litmus_checker::ModelOutcome| {
                let mut v: Vec<_> = o.states.iter().map(|s| (s.values.clone(), s.satisfies)).collect();
                v.sort();
                v
            };
            let failures = |o: &litmus_checker::ModelOutcome| {
                let mut v: Vec<_> = o.failures.iter().map(|f| (f.thread, f.stmt)).collect();
                v.sort();
                v
            };
            assert_eq!(states(ours), states(&own), "{name} {:?}", rb.model);
            assert_eq!(failures(ours), failures(&own), "{name} {:?}", rb.model);
            // Each state's witness is an execution of the model's machine:
            // every step enabled where it is taken (under PSLO a commit waits
            // for its thread's history of the cell to hold one value).
            let m = litmus_checker::machine::Machine::new(&prog, rb.model, u32::MAX, u32::MAX).with_unbounded_loops();
            let witnesses = ours.states.iter().map(|s| &s.witness);
            let witnesses = witnesses.chain(ours.failures.iter().map(|f| &f.witness)).chain(&ours.deadlocks);
            for w in witnesses {
                let mut log = Vec::new();
                let mut st = m.initial(&mut log);
                for (i, &p) in w.schedule.iter().enumerate() {
                    assert!(m.enabled(&st, p as usize), "{name} {:?}: step {i} (process {p}) is not enabled", rb.model);
                    m.step(&mut st, p as usize, i as u32, &mut log);
                }
            }
            assert_eq!(ours.deadlocks.is_empty(), own.deadlocks.is_empty(), "{name} {:?}", rb.model);
            derived += 1;
        }
    }
    assert!(derived > 20, "{derived}");
}

#[test]
fn an_sc_execution_replayed_under_pslo_is_an_execution_of_its_machine() {
    // Found by the proptest above in a debug build: P1's atomic runs first
    // and puts its value into P0's PSLO history of the cell; P0's store,
    // committed right after it is issued (as SC did), must first pop the
    // older value: the PSLO machine allows no commit before that.
    use common::Op;
    let src = common::render(&[vec![Op::Store(1, 1)], vec![Op::FetchAdd(1)]]);
    let prog = common::compile(&src);
    let (w, _) = litmus_checker::unbounded::replay::relaxed_of_sc(&prog, Model::Pslo, &[1, 0]).expect("replays");
    let m = Machine::new(&prog, Model::Pslo, u32::MAX, u32::MAX).with_unbounded_loops();
    let mut log = Vec::new();
    let mut st = m.initial(&mut log);
    for (i, &p) in w.schedule.iter().enumerate() {
        assert!(m.enabled(&st, p as usize), "step {i} (process {p}) is not enabled: {:?}\n{src}", w.schedule);
        m.step(&mut st, p as usize, i as u32, &mut log);
    }
    assert_eq!(log, w.events);
}
