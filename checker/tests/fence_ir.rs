//! Fences inserted into the IR (`litmus_dsl::fence_ir`, what the fence
//! re-checks run) agree with fences inserted into the text and analysed
//! again (what `litmus fix` prints and the editor's quick fixes insert): on
//! every example and corpus file, after every statement a fence can follow,
//! with every kind, singly and all at once (and in two steps), the same
//! instructions and statement ranges (statements matched through the code),
//! the same outcomes under SC, TSO and PSO and the same robustness under TSO
//! and PSO, violations mapped through. Every other place (before a
//! statement, a loop's head, after a control statement) gives the same code
//! (Trencher's translations too) and, on a sample, the same behaviour. Jumps
//! around a fence land as in the text: loops, branches, early returns from
//! inlined functions, short circuits, awaits and x86 backward jumps.

mod common;

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::outcome::ModelOutcome;
use litmus_checker::robust::robustness_of;
use litmus_checker::violation::Robustness;
use litmus_dsl::edit::{apply, fence_edits, FenceInsertion};
use litmus_dsl::fence_ir::insert_fences;
use litmus_ir::{FenceKind, Instr, Place, Program, StmtForm, StmtId};
use std::collections::{BTreeSet, HashMap};

const KINDS: [FenceKind; 4] = [FenceKind::Full, FenceKind::WR, FenceKind::WW, FenceKind::RR];

/// Every statement a fence can follow: simple, with code.
fn positions(p: &Program) -> Vec<StmtId> {
    let mut v: Vec<StmtId> = p
        .threads
        .iter()
        .flat_map(|t| t.stmt_ranges.iter().map(|r| r.stmt))
        .filter(|&s| p.stmts[s as usize].form == StmtForm::Simple)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The instruction with its statement cleared, and the statement.
fn split(i: &Instr) -> (Instr, Option<StmtId>) {
    let mut i = *i;
    let s = match &mut i {
        Instr::Load { stmt, .. }
        | Instr::Store { stmt, .. }
        | Instr::Rmw { stmt, .. }
        | Instr::Fence { stmt, .. }
        | Instr::Bin { stmt, .. }
        | Instr::LoopIter { stmt, .. }
        | Instr::Assert { stmt, .. }
        | Instr::Assume { stmt, .. }
        | Instr::AwaitStart { stmt, .. }
        | Instr::AwaitCheck { stmt, .. } => Some(std::mem::replace(stmt, 0)),
        _ => None,
    };
    (i, s)
}

/// The same code thread by thread, up to statement ids; returns the map
/// from the text-fenced program's statements to the IR-fenced one's (a
/// bijection on the statements the code and ranges name, each pair of the
/// same thread, form and text).
fn same_code(text: &Program, ir: &Program, what: &str) -> HashMap<StmtId, StmtId> {
    assert_eq!(text.threads.len(), ir.threads.len(), "{what}");
    let mut map: HashMap<StmtId, StmtId> = HashMap::new();
    let mut pair = |a: StmtId, b: StmtId| {
        let prev = *map.entry(a).or_insert(b);
        assert_eq!(prev, b, "{what}: text statement {a} is IR statements {prev} and {b}");
    };
    for (t, (tt, it)) in text.threads.iter().zip(&ir.threads).enumerate() {
        assert_eq!(tt.code.len(), it.code.len(), "{what}: thread {t} code length");
        for (pc, (a, b)) in tt.code.iter().zip(&it.code).enumerate() {
            let ((ia, sa), (ib, sb)) = (split(a), split(b));
            assert_eq!(ia, ib, "{what}: thread {t} pc {pc}");
            if let (Some(sa), Some(sb)) = (sa, sb) {
                pair(sa, sb);
            }
        }
        assert_eq!(tt.stmt_ranges.len(), it.stmt_ranges.len(), "{what}: thread {t} ranges");
        for (a, b) in tt.stmt_ranges.iter().zip(&it.stmt_ranges) {
            assert_eq!((a.start, a.end), (b.start, b.end), "{what}: thread {t} ranges");
            pair(a.stmt, b.stmt);
        }
        let controls = |th: &litmus_ir::Thread| th.control_ranges.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>();
        assert_eq!(controls(tt), controls(it), "{what}: thread {t} control ranges");
        let heads = |th: &litmus_ir::Thread| th.loop_heads.iter().map(|h| (h.head, h.back)).collect::<Vec<_>>();
        assert_eq!(heads(tt), heads(it), "{what}: thread {t} loop heads");
    }
    let images: BTreeSet<StmtId> = map.values().copied().collect();
    assert_eq!(images.len(), map.len(), "{what}: two text statements map to one");
    for (&a, &b) in &map {
        let (sa, sb) = (&text.stmts[a as usize], &ir.stmts[b as usize]);
        assert_eq!((sa.thread, sa.form), (sb.thread, sb.form), "{what}: statement {a} ~ {b}");
        // A `for` statement's text runs into its body, where a fence may be now.
        let head = |t: &str| t.split('{').next().unwrap_or(t).trim().to_ascii_lowercase();
        assert_eq!(head(&sa.text), head(&sb.text), "{what}: `{}` ~ `{}`", sa.text, sb.text);
    }
    map
}

fn text_fenced(src: &str, p: &Program, ins: &[FenceInsertion]) -> Program {
    let fixed = apply(src, &fence_edits(src, p, ins));
    litmus_dsl::analyze(&fixed).program.unwrap_or_else(|| panic!("fenced text does not analyse:\n{fixed}"))
}

type Seen = (Vec<(Vec<i64>, Option<bool>)>, String, Vec<(u16, StmtId, String)>, usize, String);

/// What an exploration found, statements through `map`.
fn seen(o: &ModelOutcome, map: &dyn Fn(StmtId) -> StmtId) -> Seen {
    (
        o.states.iter().map(|s| (s.values.clone(), s.satisfies)).collect(),
        format!("{:?}", o.observation),
        o.failures.iter().map(|f| (f.thread, map(f.stmt), format!("{:?}", f.kind))).collect(),
        o.deadlocks.len(),
        format!("{:?}", o.coverage),
    )
}

type Pairs = BTreeSet<(StmtId, StmtId)>;

fn verdict(r: &Robustness, map: &dyn Fn(StmtId) -> StmtId) -> (String, Pairs, Pairs) {
    (
        format!("{:?}", r.robust()),
        r.violations.iter().map(|v| (map(v.store_stmt), map(v.access_stmt))).collect(),
        r.unconfirmed.iter().map(|&(s, a)| (map(s), map(a))).collect(),
    )
}

fn same_behaviour(text: &Program, ir: &Program, map: &HashMap<StmtId, StmtId>, what: &str) {
    let opts = Options::default();
    let through = |s: StmtId| *map.get(&s).unwrap_or_else(|| panic!("{what}: statement {s} unmatched"));
    let id = |s: StmtId| s;
    for m in [Model::Sc, Model::Tso, Model::Pso] {
        assert_eq!(seen(&explore(text, m, &opts), &through), seen(&explore(ir, m, &opts), &id), "{what} {m:?}");
    }
    for m in [Model::Tso, Model::Pso] {
        let (a, b) = (robustness_of(text, m, MonitorKind::Bss, &opts), robustness_of(ir, m, MonitorKind::Bss, &opts));
        assert_eq!(verdict(&a, &through), verdict(&b, &id), "{what} {m:?}");
    }
}

#[test]
fn ir_fences_equal_text_fences() {
    let mut singles = 0;
    let mut behaved = 0;
    for (name, src) in common::corpus_and_example_sources() {
        let p = litmus_dsl::analyze(&src).program.unwrap();
        let at = positions(&p);
        // Every place the fence search may choose is one of them.
        let searched = litmus_checker::fences::fence_positions(&p, &[Model::Tso, Model::Pslo]);
        assert!(searched.iter().all(|s| at.contains(s)), "{name}: {searched:?} ⊄ {at:?}");
        for (n, &stmt) in at.iter().enumerate() {
            for (k, &kind) in KINDS.iter().enumerate() {
                let ins = [FenceInsertion::after(stmt, kind)];
                let what = format!("{name}: {kind:?} after `{}`", p.stmts[stmt as usize].text);
                let (tp, ip) = (text_fenced(&src, &p, &ins), insert_fences(&p, &ins));
                let map = same_code(&tp, &ip, &what);
                // Behaviour for one kind per position, in turn (the code is
                // equal already; this checks the statement table too).
                if k == n % KINDS.len() {
                    same_behaviour(&tp, &ip, &map, &what);
                    behaved += 1;
                }
                singles += 1;
            }
        }
        // All at once (one per source statement: a function's statement is
        // one place in the text), kinds in turn: fences meeting at one
        // place, ranges moved by earlier fences.
        let mut spans = Vec::new();
        let all: Vec<FenceInsertion> = at
            .iter()
            .filter(|&&s| {
                let span = p.stmts[s as usize].span;
                !spans.contains(&span) && {
                    spans.push(span);
                    true
                }
            })
            .enumerate()
            .map(|(i, &stmt)| FenceInsertion::after(stmt, KINDS[i % KINDS.len()]))
            .collect();
        let what = format!("{name}: every position");
        let (tp, ip) = (text_fenced(&src, &p, &all), insert_fences(&p, &all));
        let map = same_code(&tp, &ip, &what);
        same_behaviour(&tp, &ip, &map, &what);
        // Fencing the fenced program again places like fencing once.
        let (first, second) = all.split_at(all.len() / 2);
        let twice = insert_fences(&insert_fences(&p, first), second);
        same_code(&tp, &twice, &format!("{what}, in two steps"));
    }
    assert!(singles > 1_000 && behaved > 250, "{singles} {behaved}");
}

/// Every place a statement can take (after, before, a loop's head).
fn places(p: &Program) -> Vec<(StmtId, Place)> {
    let mut v = Vec::new();
    for s in 0..p.stmts.len() as StmtId {
        for place in [Place::After, Place::Before, Place::LoopHead] {
            if p.fence_place_ok(s, place) {
                v.push((s, place));
            }
        }
    }
    v
}

/// Before statements, after control statements, at loop heads: the IR
/// insertion equals the text's, singly and all at once, on the examples
/// (native), the Trencher translations and loops of every shape.
#[test]
fn every_place_in_the_ir_equals_the_text() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut sources: Vec<(String, String)> = common::corpus_and_example_sources();
    for dir in ["examples/trencher", "examples/trencher/memorax"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            for e in rd.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "litmus")) {
                sources.push((e.path().display().to_string(), std::fs::read_to_string(e.path()).unwrap()));
            }
        }
    }
    sources.push((
        "loops".into(),
        "litmus L\nshared x = 0, y = 0;\nthread P0 {\n  while (x == 0) {\n    if (y == 1) { x = 1; } else { y = 2; }\n  }\n  for k in 0..2 { y = k; }\n  while (y == 7) {}\n  let t = y; while (t != 0) { t = y; }\n}\nthread P1 {\n  x = 1; y = 1;\n  while (x == 1) { while (y == 1) { y = 0; } x = 0; }\n}\n".into(),
    ));
    let mut singles = 0;
    for (name, src) in sources {
        let p = litmus_dsl::analyze(&src).program.unwrap();
        let all_places = places(&p);
        // The translations loop for ever: their code is compared, and the
        // bounded exploration of the behaviour is left to the others.
        let explore = !name.contains("trencher");
        for (n, &(stmt, place)) in all_places.iter().enumerate().filter(|(_, (_, pl))| *pl != Place::After) {
            let kind = KINDS[n % KINDS.len()];
            let ins = [FenceInsertion { stmt, kind, place }];
            let what = format!("{name}: {kind:?} {place:?} `{}`", p.stmts[stmt as usize].text);
            let (tp, ip) = (text_fenced(&src, &p, &ins), insert_fences(&p, &ins));
            let map = same_code(&tp, &ip, &what);
            if explore && n % 3 == 0 {
                same_behaviour(&tp, &ip, &map, &what);
            }
            singles += 1;
        }
        // After a control statement too (simple ones are the test above).
        for &(stmt, _) in all_places.iter().filter(|(s, pl)| *pl == Place::After && !p.fenceable(*s)) {
            let ins = [FenceInsertion { stmt, kind: FenceKind::WR, place: Place::After }];
            let what = format!("{name}: after `{}`", p.stmts[stmt as usize].text);
            let (tp, ip) = (text_fenced(&src, &p, &ins), insert_fences(&p, &ins));
            same_code(&tp, &ip, &what);
            singles += 1;
        }
        // Every place at once (one per source statement and place).
        let mut seen = BTreeSet::new();
        let all: Vec<FenceInsertion> = all_places
            .iter()
            .filter(|(s, pl)| seen.insert((p.stmts[*s as usize].span.start, *pl)))
            .enumerate()
            .map(|(i, &(stmt, place))| FenceInsertion { stmt, kind: KINDS[i % KINDS.len()], place })
            .collect();
        if all.is_empty() {
            continue;
        }
        let what = format!("{name}: every place");
        let (tp, ip) = (text_fenced(&src, &p, &all), insert_fences(&p, &all));
        let map = same_code(&tp, &ip, &what);
        if explore {
            same_behaviour(&tp, &ip, &map, &what);
        }
    }
    assert!(singles > 300, "{singles}");
}

/// The cases the lowering's structure makes delicate, each against the text.
#[test]
fn jumps_around_a_fence_land_as_in_the_text() {
    let cases = [
        // The last statement of a loop body: the back edge follows the fence.
        "litmus A\nshared x = 0;\nthread P0 { let k = 0; while (k < 2) { x = k; k = k + 1; } }\nthread P1 { let r = x; }\n",
        // The last statement of a branch: the other branch skips the fence.
        "litmus B\nshared x = 0, y = 0;\nthread P0 { let r = y; if (r == 1) { x = 1; } else { x = 2; } y = 2; }\nthread P1 { y = 1; let s = x; }\n",
        // A function whose early return skips its last statement's fence but
        // not the call's; called twice, and from both threads.
        "litmus C\nshared x = 0, y = 0;\nfn f(a) { if (a == 1) { return 1; } x = a; }\n\
         thread P0 { f(1); f(2); let r = y; }\nthread P1 { y = 1; f(3); let s = x; }\n",
        // Short circuit inside a statement: its own jump lands on the fence.
        "litmus D\nshared x = 0, y = 0;\nthread P0 { x = 1; let r = y == 1 && x == 1; }\nthread P1 { y = 1; let s = x; }\n",
        // An await, and a fence after the thread's last statement.
        "litmus E\nshared x = 0, y = 0;\nthread P0 { x = 1; await (y == 1); x = 2; }\nthread P1 { y = 1; let s = x; }\n",
        // x86: a backward jump's label right after the fenced instruction.
        "X86 F\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n L: MOV EAX,[y] | MOV EBX,[x] ;\n CMP EAX,$0 | ;\n JNE L | ;\nexists (0:EAX=0 /\\ 1:EBX=0)\n",
    ];
    for src in cases {
        let p = litmus_dsl::analyze(src).program.unwrap_or_else(|| panic!("{src}"));
        let at = positions(&p);
        assert!(!at.is_empty(), "{src}");
        for &stmt in &at {
            let ins = [FenceInsertion::after(stmt, FenceKind::WR)];
            let what = format!("{}: after `{}`", p.name, p.stmts[stmt as usize].text);
            let (tp, ip) = (text_fenced(src, &p, &ins), insert_fences(&p, &ins));
            let map = same_code(&tp, &ip, &what);
            same_behaviour(&tp, &ip, &map, &what);
        }
        let all: Vec<FenceInsertion> = at.iter().map(|&stmt| FenceInsertion::after(stmt, FenceKind::Full)).collect();
        let mut spans = BTreeSet::new();
        let all: Vec<FenceInsertion> =
            all.into_iter().filter(|f| spans.insert(p.stmts[f.stmt as usize].span.start)).collect();
        let (tp, ip) = (text_fenced(src, &p, &all), insert_fences(&p, &all));
        let map = same_code(&tp, &ip, &format!("{}: all", p.name));
        same_behaviour(&tp, &ip, &map, &format!("{}: all", p.name));
    }
}
