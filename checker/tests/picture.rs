//! Execution-graph pictures: the SVG of every example's violations is
//! well-formed XML whose event nodes, edges and cycle are the witness's
//! (counted against `Trace`, not against the writer); text is escaped; a
//! small one is snapshotted.

use litmus_checker::machine::{EventKind, Model};
use litmus_checker::picture;
use litmus_checker::trace::Trace;
use litmus_checker::{MonitorKind, Options, Violation};
use std::collections::BTreeSet;

fn violations(src: &str) -> (litmus_dsl::Program, Vec<Violation>) {
    let prog = litmus_dsl::analyze(src).program.expect("analyses");
    let opts = Options::default();
    let r = litmus_checker::find_violations(&prog, &[Model::Sc, Model::Tso, Model::Pso], MonitorKind::Bss, &opts);
    let vs = r.robustness.into_iter().flat_map(|r| r.violations).collect();
    (prog, vs)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The SVG against the witness it draws.
fn check_svg(p: &litmus_dsl::Program, v: &Violation, n: usize) {
    let svg = picture::svg(&picture::of_violation(p, v, n));
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    // Self-contained: no scripts, no external references.
    assert!(doc.descendants().all(|d| d.tag_name().name() != "script" && d.tag_name().name() != "image"));
    assert!(!svg.contains("href") && !svg.contains("@import") && !svg.contains("http://www.w3.org/1999/xlink"));
    let class = |d: &roxmltree::Node, c: &str| d.attribute("class").is_some_and(|a| a.split(' ').any(|x| x == c));
    let events: Vec<_> = doc.descendants().filter(|d| class(d, "event")).collect();
    let log = &v.witness.events;
    let trace = Trace::of(log);
    assert_eq!(events.len(), trace.events.len(), "one node per trace event");
    // Each node names its event's thread, line and statement.
    let mut expect: Vec<(String, String, String)> = trace
        .events
        .iter()
        .map(|&i| {
            let e = &log[i as usize];
            let s = &p.stmts[e.stmt as usize];
            (e.thread.to_string(), s.line.to_string(), e.stmt.to_string())
        })
        .collect();
    let mut got: Vec<(String, String, String)> = events
        .iter()
        .map(|d| {
            let a = |k: &str| d.attribute(k).unwrap_or_default().to_string();
            (a("data-thread"), a("data-line"), a("data-stmt"))
        })
        .collect();
    expect.sort();
    got.sort();
    assert_eq!(got, expect);
    // Statement texts shown.
    let text: String = doc.descendants().filter_map(|d| d.text()).collect::<Vec<_>>().join("\n");
    for &i in &trace.events {
        assert!(text.contains(&p.stmts[log[i as usize].stmt as usize].text));
    }
    // Every trace edge drawn with its kind; the cycle's steps numbered 1..k.
    let edges: Vec<_> = doc.descendants().filter(|d| class(d, "edge")).collect();
    let trace_edges: usize = trace.succ.iter().map(|s| s.len()).sum();
    let kinds: BTreeSet<_> = trace.succ.iter().flatten().map(|(_, e)| e.as_str()).collect();
    let drawn: BTreeSet<_> = edges.iter().filter_map(|d| d.attribute("data-kind")).collect();
    assert!(kinds.is_subset(&drawn), "{kinds:?} ⊄ {drawn:?}");
    let mut numbers: Vec<usize> =
        edges.iter().filter_map(|d| d.attribute("data-cycle")).map(|c| c.parse().unwrap()).collect();
    numbers.sort();
    assert_eq!(numbers, (1..=v.witness.cycle.len()).collect::<Vec<_>>());
    assert!(edges.iter().filter(|d| class(d, "cycle")).count() == v.witness.cycle.len());
    // Initial writes: one per touched cell, each with its rf/co edges.
    let cells: BTreeSet<u32> = trace.events.iter().map(|&i| log[i as usize].cell).collect();
    assert_eq!(doc.descendants().filter(|d| class(d, "init")).count(), cells.len());
    let reads_init = trace
        .events
        .iter()
        .filter(|&&i| {
            let e = &log[i as usize];
            matches!(e.kind, EventKind::Load | EventKind::Rmw)
                && litmus_checker::trace::source_write(log, e.rf) == litmus_checker::machine::NONE
        })
        .count();
    let from_init = |k: &str| {
        edges
            .iter()
            .filter(|d| {
                d.attribute("data-from").is_some_and(|f| f.starts_with("init-")) && d.attribute("data-kind") == Some(k)
            })
            .count()
    };
    assert_eq!(from_init("rf"), reads_init);
    let written: BTreeSet<u32> =
        trace.events.iter().map(|&i| &log[i as usize]).filter(|e| e.is_write()).map(|e| e.cell).collect();
    assert_eq!(from_init("co"), written.len());
    assert_eq!(edges.len(), trace_edges + reads_init + written.len(), "no edge beyond the trace's and init's");
}

#[test]
fn every_example_violation_draws_its_witness() {
    let dir = format!("{}/../examples", env!("CARGO_MANIFEST_DIR"));
    let mut drawn = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "litmus") {
            continue;
        }
        let (p, vs) = violations(&std::fs::read_to_string(&path).unwrap());
        for (i, v) in vs.iter().enumerate() {
            check_svg(&p, v, i + 1);
            drawn += 1;
        }
    }
    assert!(drawn >= 20, "only {drawn} violations drawn");
}

#[test]
fn text_is_escaped() {
    let src = "litmus ESC \"a <b> & 'c'\"\nshared x = 0;\nshared y = 0;\n\
               thread P0 { x = 1 < 2 && 1 > 0; let r0 = y; }\n\
               thread P1 { y = 1; let r1 = x; }\n\
               exists (P0:r0 == 0 && P1:r1 == 0);\n";
    let (p, vs) = violations(src);
    assert!(!vs.is_empty());
    let svg = picture::svg(&picture::of_violation(&p, &vs[0], 1));
    roxmltree::Document::parse(&svg).expect("well-formed");
    assert!(svg.contains("x = 1 &lt; 2 &amp;&amp; 1 &gt; 0"), "{svg}");
    check_svg(&p, &vs[0], 1);
}

#[test]
fn sb_snapshot() {
    let (p, vs) = violations(&read("sb.litmus"));
    let pic = picture::of_violation(&p, &vs[0], 1);
    insta::assert_snapshot!("sb_svg", picture::svg(&pic));
    insta::assert_snapshot!("sb_dot", picture::dot(&pic));
}
