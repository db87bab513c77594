//! Small programs pinning down the semantics users rely on: fence kinds,
//! store forwarding, atomics per model (native ones drain their cell under
//! PSO, x86 LOCK'd ones every buffer), locks, awaits, deadlocks, run-time
//! errors, herd filters and addressing, PSLO's stale loads, and every bound
//! (loop, per-loop, preemption, buffer, timeout).

use litmus_checker::explore::explore;
use litmus_checker::machine::{FailureKind, Model};
use litmus_checker::options::Options;
use litmus_checker::outcome::ModelOutcome;
use litmus_checker::Observation;

fn run(src: &str, model: Model, opts: Options) -> (litmus_ir::Program, ModelOutcome) {
    let a = litmus_dsl::analyze(src);
    assert!(!a.has_errors(), "{:?}", a.diagnostics);
    let p = a.program.unwrap();
    let o = explore(&p, model, &opts);
    (p, o)
}

fn obs(src: &str, model: Model) -> Observation {
    run(src, model, Options::default()).1.known_observation().expect("earned")
}

#[test]
fn native_atomics_drain_only_their_location_under_pso() {
    // The xchg on y does not push x out under PSO, so MP still breaks.
    let src = "litmus T\nshared x = 0, y = 0;\nthread P0 { x = 1; xchg(y, 1); }\nthread P1 { let a = y; let b = x; }\nexists (P1:a == 1 && P1:b == 0);";
    assert_eq!(obs(src, Model::Tso), Observation::Never);
    assert_eq!(obs(src, Model::Pso), Observation::Sometimes);
}

#[test]
fn x86_locked_instructions_drain_every_buffer() {
    let src = "X86 T\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV EAX,[y] ;\n MOV EBX,$1  | MOV ECX,[x] ;\n XCHG [y],EBX |            ;\nexists (1:EAX=1 /\\ 1:ECX=0)\n";
    assert_eq!(obs(src, Model::Pso), Observation::Never);
}

#[test]
fn fence_kinds() {
    let mp = |f: &str| {
        format!("litmus T\nshared x = 0, y = 0;\nthread P0 {{ x = 1; {f} y = 1; }}\nthread P1 {{ let a = y; let b = x; }}\nexists (P1:a == 1 && P1:b == 0);")
    };
    assert_eq!(obs(&mp(""), Model::Pso), Observation::Sometimes);
    assert_eq!(obs(&mp("fence ww;"), Model::Pso), Observation::Never);
    assert_eq!(obs(&mp("fence rr;"), Model::Pso), Observation::Sometimes);
    let sb = |f: &str| {
        format!("litmus T\nshared x = 0, y = 0;\nthread P0 {{ x = 1; {f} let a = y; }}\nthread P1 {{ y = 1; {f} let b = x; }}\nexists (P0:a == 0 && P1:b == 0);")
    };
    assert_eq!(obs(&sb("fence ww;"), Model::Tso), Observation::Sometimes);
    assert_eq!(obs(&sb("fence wr;"), Model::Tso), Observation::Never);
    assert_eq!(obs(&sb("fence;"), Model::Pso), Observation::Never);
}

#[test]
fn store_to_load_forwarding_and_later_reads_of_memory() {
    // A thread reads its own buffered store, or — once it committed — a
    // newer value from memory.
    let src = "litmus T\nshared x = 0;\nthread P0 { x = 1; let a = x; }\nthread P1 { x = 2; }\nexists (P0:a == 2);";
    assert_eq!(obs(src, Model::Tso), Observation::Sometimes);
    let src = "litmus T\nshared x = 0;\nthread P0 { x = 1; let a = x; }\nthread P1 { x = 2; }\nexists (P0:a == 0);";
    assert_eq!(obs(src, Model::Tso), Observation::Never);
}

#[test]
fn locks_block_and_await_waits() {
    let src = "litmus T\nshared m = 0, c = 0;\nthread P0 { lock(m); let t = c; c = t + 1; unlock(m); }\nthread P1 { lock(m); let t = c; c = t + 1; unlock(m); }\nforall (c == 2);";
    assert_eq!(obs(src, Model::Sc), Observation::Always);
    assert_eq!(obs(src, Model::Tso), Observation::Always);
    assert_eq!(obs(src, Model::Pso), Observation::Sometimes);
    let src = "litmus T\nshared f = 0, d = 0;\nthread P0 { d = 42; f = 1; }\nthread P1 { await (f == 1); let r = d; }\nforall (P1:r == 42);";
    let (_, o) = run(src, Model::Sc, Options::default());
    assert_eq!(o.known_observation(), Some(Observation::Always));
}

#[test]
fn multi_load_await_sees_values_from_different_moments() {
    // x is 1 only before P1's first store and y only after its second: an
    // evaluation that reads x early and y late still succeeds, as a spin
    // loop would.
    let src = "litmus T\nshared x = 1, y = 0;\nthread P0 { await (x == 1 && y == 1); let r = 1; }\nthread P1 { x = 0; y = 1; }\nforall (P0:r == 1);";
    let (_, o) = run(src, Model::Sc, Options::default());
    assert_eq!(o.states.len(), 1);
    assert!(!o.deadlocks.is_empty(), "when P1 ran first P0 waits forever");
}

#[test]
fn deadlock_is_reported() {
    let src = "litmus T\nshared a = 0, b = 0;\nthread P0 { lock(a); lock(b); unlock(b); unlock(a); }\nthread P1 { lock(b); lock(a); unlock(a); unlock(b); }";
    let (_, o) = run(src, Model::Sc, Options::default());
    assert!(!o.deadlocks.is_empty());
    assert_eq!(o.states.len(), 1, "the runs that do not deadlock finish");
}

#[test]
fn run_time_errors_are_failures_at_their_statement() {
    let src = "litmus T\nshared a[2] = {0, 0}, i = 0;\nthread P0 { i = 5; }\nthread P1 { let k = i; a[k] = 1; let z = 10 / k; }";
    let (p, o) = run(src, Model::Sc, Options::default());
    let kinds: Vec<_> = o.failures.iter().map(|f| (f.kind, p.stmts[f.stmt as usize].text.clone())).collect();
    assert!(kinds.contains(&(FailureKind::IndexOutOfBounds, "a[k] = 1".into())), "{kinds:?}");
    assert!(kinds.contains(&(FailureKind::DivisionByZero, "let z = 10 / k".into())), "{kinds:?}");
}

#[test]
fn loop_bound_cuts_and_says_so() {
    let src = "litmus T\nshared f = 0;\nthread P0 { let n = 0; while (f == 0) { n = n + 1; } }\nthread P1 { f = 1; }";
    let (_, o) = run(src, Model::Sc, Options { loop_bound: 2, ..Options::default() });
    assert!(!o.complete());
    assert!(o.stats.cut > 0);
    let (_, o) = run(src, Model::Sc, Options { loop_bound: 5, ..Options::default() });
    assert_eq!(o.states.len(), o.states.len());
    assert!(!o.complete(), "the loop can spin forever: always cut somewhere");
    let bounded =
        "litmus T\nshared f = 0;\nthread P0 { let n = 0; while (n < 3) { n = n + 1; } f = n; }\nforall (f == 3);";
    let (_, o) = run(bounded, Model::Sc, Options { loop_bound: 3, ..Options::default() });
    assert!(o.complete());
    assert_eq!(o.known_observation(), Some(Observation::Always));
    let (_, o) = run(bounded, Model::Sc, Options { loop_bound: 2, ..Options::default() });
    assert!(!o.complete());
}

#[test]
fn a_loop_carries_its_own_bound_and_a_counted_loop_runs_its_count() {
    let lb = |n| Options { loop_bound: n, ..Options::default() };
    // `bound 3` replaces `--loop-bound` for this loop only, in both directions.
    let own = "litmus T\nshared f = 0;\nthread P0 { let n = 0; while (n < 3) bound 3 { n = n + 1; } f = n; }\nforall (f == 3);";
    for global in [1, 2, 10] {
        let (_, o) = run(own, Model::Sc, lb(global));
        assert!(o.complete(), "--loop-bound {global}");
        assert_eq!(o.known_observation(), Some(Observation::Always));
    }
    let short = own.replace("bound 3", "bound 2");
    let (_, o) = run(&short, Model::Sc, lb(10));
    assert!(!o.complete() && o.stats.cut > 0, "its own bound 2 cuts the third iteration");
    // An outer `for` of 4 entries around a loop bounded by `--loop-bound 1`:
    // the counts do not multiply (4 stores of x, each loop at most once).
    let nested = "litmus T\nshared x = 0;\nshared y = 0;\nthread P0 {\n  for k in 0..4 {\n    let n = 0;\n    while (n < 1) { n = n + 1; }\n    x = x + 1;\n  }\n}\nforall (x == 4);";
    let (_, o) = run(nested, Model::Sc, lb(1));
    assert!(o.complete());
    assert_eq!(o.known_observation(), Some(Observation::Always));
    // The counter takes the range's values, in order.
    let values = "litmus T\nshared x = 0;\nthread P0 { for k in 2..5 { x = x * 10 + k; } }\nforall (x == 234);";
    let (_, o) = run(values, Model::Sc, lb(0));
    assert!(o.complete());
    assert_eq!(o.known_observation(), Some(Observation::Always));
}

#[test]
fn preemption_bound_limits_sc_schedules() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/bakery.litmus")).unwrap();
    let p = litmus_dsl::analyze(&src).program.unwrap();
    let zero = explore(&p, Model::Sc, &Options { preemption_bound: Some(0), ..Options::default() });
    let two = explore(&p, Model::Sc, &Options { preemption_bound: Some(2), ..Options::default() });
    assert!(!zero.complete(), "a bound that skips schedules says so");
    assert!(zero.stats.executions < two.stats.executions);
    assert!(zero.stats.executions <= 2, "no preemption: each thread runs to completion or blocks");
}

#[test]
fn timeout_gives_an_incomplete_answer() {
    let mut s = String::from("litmus BIG\nshared x = 0, y = 0;\n");
    for t in 0..6 {
        s.push_str(&format!("thread P{t} {{ x = {t}; let a = y; y = a + 1; let b = x; x = b + 1; }}\n"));
    }
    let p = litmus_dsl::analyze(&s).program.unwrap();
    let o = explore(&p, Model::Sc, &Options::default().with_timeout(Some(std::time::Duration::from_millis(50))));
    assert!(o.stats.timed_out && !o.complete());
    assert!(o.elapsed.as_millis() < 2000);
}

#[test]
fn herd_filter_and_locations() {
    let src = "X86 F\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x] ;\nlocations [y;]\nfilter (1:EAX=1)\nexists (1:EAX=1)\n";
    let (p, o) = run(src, Model::Sc, Options::default());
    assert_eq!(p.observables.len(), 2);
    assert_eq!(o.states.len(), 1, "the filter drops states where EAX=0");
    assert_eq!(o.known_observation(), Some(Observation::Always));
}

#[test]
fn herd_pointers_and_addressing() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/herd-x86/herd__tests__instructions__X86_64__A009.litmus"
    ))
    .unwrap();
    let p = litmus_dsl::analyze(&src).program.unwrap();
    let o = explore(&p, Model::Sc, &Options::default());
    assert_eq!(o.known_observation(), Some(Observation::Always));
    assert_eq!(o.states[0].values, vec![-1]);
}

#[test]
fn buffer_bound_is_reported() {
    let mut body = String::new();
    for i in 0..6 {
        body.push_str(&format!("x = {i}; "));
    }
    let src = format!("litmus T\nshared x = 0, y = 0;\nthread P0 {{ {body} let a = y; }}\nthread P1 {{ y = 1; let b = x; }}\nexists (P0:a == 0 && P1:b == 0);");
    // The bound is the interleaving explorer's (graphs have no buffers: by
    // graph the same search is complete).
    let interleaving = litmus_checker::ExplorerKind::Interleaving;
    let (_, o) = run(&src, Model::Tso, Options { buffer_bound: 4, explorer: interleaving, ..Options::default() });
    assert!(!o.complete());
    match o.coverage {
        litmus_checker::Coverage::Bounded(c) => assert!(c.buffer_bound > 0 && c.loop_bound == 0, "{c:?}"),
        c => panic!("{c:?}"),
    }
    let graph = litmus_checker::ExplorerKind::Graph;
    let (_, g) = run(&src, Model::Tso, Options { buffer_bound: 4, explorer: graph, ..Options::default() });
    assert!(g.complete(), "{:?}", g.coverage);
    let (_, o) = run(&src, Model::Tso, Options { buffer_bound: 8, explorer: interleaving, ..Options::default() });
    assert!(o.complete());
    assert_eq!(o.observation, Some(litmus_checker::Answer::Proved(Observation::Sometimes)));
}

#[test]
fn pslo_loads_may_read_older_values_from_their_history() {
    // MP with the writer fenced: only PSLO lets the second load see stale data.
    let mp = |reader: &str| {
        format!("litmus T\nshared x = 0, y = 0;\nthread P0 {{ x = 1; fence ww; y = 1; }}\nthread P1 {{ let a = y; {reader} let b = x; }}\nexists (P1:a == 1 && P1:b == 0);")
    };
    assert_eq!(obs(&mp(""), Model::Pso), Observation::Never);
    assert_eq!(obs(&mp(""), Model::Pslo), Observation::Sometimes);
    // rr resets the histories, wr and full drain and reset; ww only drains.
    assert_eq!(obs(&mp("fence rr;"), Model::Pslo), Observation::Never);
    assert_eq!(obs(&mp("fence wr;"), Model::Pslo), Observation::Never);
    assert_eq!(obs(&mp("fence;"), Model::Pslo), Observation::Never);
    assert_eq!(obs(&mp("fence ww;"), Model::Pslo), Observation::Sometimes);
    // An atomic on another location resets only its own history.
    assert_eq!(obs(&mp("fetch_add(y, 0);"), Model::Pslo), Observation::Sometimes);
    // Coherence stays: once a load read x = 1, a later load of x cannot go back.
    let corr = "litmus T\nshared x = 0;\nthread P0 { x = 1; }\nthread P1 { let a = x; let b = x; }\nexists (P1:a == 1 && P1:b == 0);";
    assert_eq!(obs(corr, Model::Pslo), Observation::Never);
    // A thread's own store: forwarded while pending, and its history holds
    // only it once committed (no older value of its own location).
    let own = "litmus T\nshared x = 0;\nthread P0 { x = 1; fence ww; let a = x; }\nexists (P0:a == 0);";
    assert_eq!(obs(own, Model::Pslo), Observation::Never);
    // Store→load reordering as under PSO, and wr fixes it there too.
    let sb = |f: &str| {
        format!("litmus T\nshared x = 0, y = 0;\nthread P0 {{ x = 1; {f} let a = y; }}\nthread P1 {{ y = 1; {f} let b = x; }}\nexists (P0:a == 0 && P1:b == 0);")
    };
    assert_eq!(obs(&sb(""), Model::Pslo), Observation::Sometimes);
    assert_eq!(obs(&sb("fence ww;"), Model::Pslo), Observation::Sometimes);
    assert_eq!(obs(&sb("fence rr;"), Model::Pslo), Observation::Sometimes);
    assert_eq!(obs(&sb("fence wr;"), Model::Pslo), Observation::Never);
}

#[test]
fn pslo_x86_fences_and_locked_instructions() {
    // MP with SFENCE in the writer; the reader's loads ordered by MFENCE,
    // LFENCE or a LOCK'd instruction (a full fence), not by SFENCE.
    let mp = |fence: &str| {
        format!("X86 T\n{{ x=0; y=0; z=0; }}\n P0          | P1          ;\n MOV [x],$1  | MOV EAX,[y] ;\n SFENCE      | {fence:<11} ;\n MOV [y],$1  | MOV ECX,[x] ;\nexists (1:EAX=1 /\\ 1:ECX=0)\n")
    };
    assert_eq!(obs(&mp("NOP"), Model::Pso), Observation::Never);
    assert_eq!(obs(&mp("NOP"), Model::Pslo), Observation::Sometimes);
    assert_eq!(obs(&mp("SFENCE"), Model::Pslo), Observation::Sometimes);
    assert_eq!(obs(&mp("LFENCE"), Model::Pslo), Observation::Never);
    assert_eq!(obs(&mp("MFENCE"), Model::Pslo), Observation::Never);
    assert_eq!(obs(&mp("LOCK INC [z]"), Model::Pslo), Observation::Never);
}
