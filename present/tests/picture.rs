//! Execution-graph pictures: the SVG of every example's violations is
//! well-formed XML (roxmltree) whose event nodes, edges and cycle are the
//! witness's, counted against `Trace`, not against the writer: one node per
//! trace event (thread, line, statement), every edge kind, the cycle
//! numbered 1..k, one initial write per cell with its rf/co edges and
//! nothing else. Statement text is escaped (`<`, `&`, `>`). Read back from
//! the SVG, no edge passes through a box but its ends and no two labels
//! overlap (or cover a box), on every example and corpus violation. SB's
//! SVG and dot are insta snapshots.

// The checker's test helpers (the corpus and the examples), shared.
#[path = "../../checker/tests/common/mod.rs"]
mod common;

use litmus_checker::machine::{EventKind, Model};
use litmus_checker::trace::Trace;
use litmus_checker::{MonitorKind, Options, Violation};
use litmus_present::picture;
use std::collections::BTreeSet;
use std::path::Path;

fn violations(src: &str) -> (litmus_ir::Program, Vec<Violation>) {
    let prog = litmus_dsl::analyze(src).program.expect("analyses");
    let opts = Options::default();
    let r = litmus_checker::find_violations(&prog, &[Model::Sc, Model::Tso, Model::Pso], MonitorKind::Bss, &opts);
    let vs = r.robustness.into_iter().flat_map(|r| r.violations).collect();
    (prog, vs)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The SVG of the witness against the witness it draws.
fn check_svg(p: &litmus_ir::Program, v: &Violation, n: usize) {
    let svg = picture::svg(&picture::of_violation(p, v, n));
    check_drawing(p, &svg, &v.witness.events, v.witness.cycle.len());
}

/// An SVG against the execution `log` it draws, with a cycle of `cycle_len` steps.
fn check_drawing(p: &litmus_ir::Program, svg: &str, log: &[litmus_checker::machine::Event], cycle_len: usize) {
    let svg = svg.to_string();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    // A space that ends a text run collapses in librsvg (`L8x = 1`): the
    // line number keeps its gap as a no-break space.
    for t in doc.descendants().filter(|d| d.tag_name().name() == "tspan") {
        let text = t.text().unwrap_or("");
        assert!(!text.ends_with(' ') && !text.starts_with(' '), "a collapsible space in <tspan>{text}</tspan>");
    }
    // Self-contained: no scripts, no external references.
    assert!(doc.descendants().all(|d| d.tag_name().name() != "script" && d.tag_name().name() != "image"));
    assert!(!svg.contains("href") && !svg.contains("@import") && !svg.contains("http://www.w3.org/1999/xlink"));
    let class = |d: &roxmltree::Node, c: &str| d.attribute("class").is_some_and(|a| a.split(' ').any(|x| x == c));
    let events: Vec<_> = doc.descendants().filter(|d| class(d, "event")).collect();
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
    assert_eq!(numbers, (1..=cycle_len).collect::<Vec<_>>());
    assert!(edges.iter().filter(|d| class(d, "cycle")).count() == cycle_len);
    // Initial writes: their rf edges (which ones are drawn: below).
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
    // As herd7 draws them: no co from initial writes, and an initial write
    // only where a read reads it.
    assert_eq!(from_init("co"), 0);
    let read_cells: BTreeSet<String> = trace
        .events
        .iter()
        .map(|&i| &log[i as usize])
        .filter(|e| {
            matches!(e.kind, EventKind::Load | EventKind::Rmw)
                && litmus_checker::trace::source_write(log, e.rf) == litmus_checker::machine::NONE
        })
        .map(|e| p.cell_name(e.cell))
        .collect();
    let inits: BTreeSet<String> = doc
        .descendants()
        .filter(|d| class(d, "init"))
        .filter_map(|d| d.attribute("data-cell"))
        .map(String::from)
        .collect();
    assert_eq!(inits, read_cells, "initial writes drawn");
    assert_eq!(edges.len(), trace_edges + reads_init, "no edge beyond the trace's and init's");
    // The initial writes are no thread's: a row above every lane.
    let lane_top = doc
        .descendants()
        .filter(|d| class(d, "lane"))
        .filter_map(|g| g.children().find(|c| c.tag_name().name() == "rect"))
        .map(|r| num(&r, "y"))
        .fold(f64::INFINITY, f64::min);
    for g in doc.descendants().filter(|d| class(d, "init")) {
        let r = g.children().find(|c| class(c, "box")).unwrap();
        assert!(num(&r, "y") + num(&r, "height") < lane_top, "an initial write inside a lane");
    }
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

/// The whole execution of each example violation (the witness run to the
/// end): every event drawn, the cycle still a cycle of that execution's
/// trace, the layout clean; Dekker's shows the critical section whose
/// assertion fails.
#[test]
fn every_example_violation_draws_its_whole_execution() {
    let opts = Options::default();
    let (mut drawn, mut longer) = (0, 0);
    for (name, src) in common::corpus_and_example_sources() {
        let (p, vs) = violations(&src);
        for (i, v) in vs.iter().enumerate() {
            let Some(w) = litmus_checker::harm::whole_execution(&p, v, None, &opts) else { continue };
            let trace = Trace::of(&w.events);
            for (k, &(a, edge)) in w.cycle.iter().enumerate() {
                let b = w.cycle[(k + 1) % w.cycle.len()].0;
                let path = trace.path(&w.events, a, b).unwrap_or_default();
                assert!(
                    edge == litmus_checker::trace::Edge::Po || path.len() == 1,
                    "{name} {}: step {k} is no edge of the trace",
                    i + 1
                );
            }
            let svg = picture::svg(&picture::of_whole(&p, v, i + 1, &w));
            check_drawing(&p, &svg, &w.events, w.cycle.len());
            layout_is_clean(&svg, &format!("{name} whole execution {}", i + 1)).unwrap();
            longer += usize::from(Trace::of(&w.events).events.len() > Trace::of(&v.witness.events).events.len());
            drawn += 1;
        }
    }
    assert!(drawn >= 20 && longer >= 10, "{drawn} whole executions drawn, {longer} longer than their witness");
    let (p, vs) = violations(&read("dekker.litmus"));
    let w = litmus_checker::harm::whole_execution(&p, &vs[0], None, &opts).expect("a continuation");
    let pic = picture::of_whole(&p, &vs[0], 1, &w);
    assert!(pic.nodes.iter().any(|n| n.text.contains("fetch_add(in_cs, 1)")), "the critical section is drawn");
    assert!(pic.subtitle.contains("This execution fails `assert (c == 0)`"), "{}", pic.subtitle);
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

/// A box `(x, y, w, h)`.
type Boxed = (f64, f64, f64, f64);

fn num(d: &roxmltree::Node, k: &str) -> f64 {
    d.attribute(k).unwrap_or_else(|| panic!("no {k}")).parse().unwrap()
}

fn overlap(a: &Boxed, b: &Boxed) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// What the rendered SVG draws, read back from it (not from the layout):
/// no edge passes through a box but its two ends' (sampled along its
/// quadratic curve), no two edge labels overlap and none covers a box.
fn layout_is_clean(svg: &str, what: &str) -> Result<(), String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let class = |d: &roxmltree::Node, c: &str| d.attribute("class").is_some_and(|a| a.split(' ').any(|x| x == c));
    // Node boxes by the ids edges name them by.
    let mut boxes: Vec<(String, Boxed)> = Vec::new();
    for g in doc.descendants().filter(|d| class(d, "event") || class(d, "init")) {
        let id = match g.attribute("id") {
            Some(id) => id.to_string(),
            None => format!("init-{}", g.attribute("data-cell").unwrap().replace(['[', ']'], "_")),
        };
        let r = g.children().find(|c| class(c, "box")).unwrap();
        boxes.push((id, (num(&r, "x"), num(&r, "y"), num(&r, "width"), num(&r, "height"))));
    }
    for g in doc.descendants().filter(|d| class(d, "edge")) {
        let (from, to) = (g.attribute("data-from").unwrap(), g.attribute("data-to").unwrap());
        let d = g.children().find(|c| class(c, "line")).unwrap().attribute("d").unwrap();
        // `M x,y Q cx,cy x,y …`: quadratic segments joined end to start.
        let v: Vec<f64> = d.split(['M', 'Q', ',', ' ']).filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()).collect();
        assert!(v.len() >= 6 && v.len() % 4 == 2, "quadratic segments: {d}");
        for seg in 0..(v.len() - 2) / 4 {
            let (sx, sy, cx, cy, ex, ey) =
                (v[4 * seg], v[4 * seg + 1], v[4 * seg + 2], v[4 * seg + 3], v[4 * seg + 4], v[4 * seg + 5]);
            for i in 0..=100 {
                let t = i as f64 / 100.0;
                let u = 1.0 - t;
                let x = u * u * sx + 2.0 * u * t * cx + t * t * ex;
                let y = u * u * sy + 2.0 * u * t * cy + t * t * ey;
                for (id, b) in &boxes {
                    if id != from && id != to && x > b.0 && x < b.0 + b.2 && y > b.1 && y < b.1 + b.3 {
                        return Err(format!("{what}: edge {from}→{to} passes through {id} at ({x:.1},{y:.1})"));
                    }
                }
            }
        }
    }
    // Labels: 11-px monospace text (0.6 em a character, 9 px above the
    // baseline, 3 below) and the cycle badge's circle.
    let mut labels: Vec<(String, Boxed)> = Vec::new();
    for g in doc.descendants().filter(|d| class(d, "edge-label-group")) {
        let t = g.children().find(|c| class(c, "edge-label")).unwrap();
        assert_eq!(t.attribute("text-anchor"), Some("start"));
        let text = t.text().unwrap_or("");
        let (x, y) = (num(&t, "x"), num(&t, "y"));
        let mut b = (x, y - 9.0, text.chars().count() as f64 * 6.6, 12.0);
        if let Some(c) = g.descendants().find(|c| c.tag_name().name() == "circle") {
            let (cx, cy, r) = (num(&c, "cx"), num(&c, "cy"), num(&c, "r"));
            let (x0, y0) = (b.0.min(cx - r), b.1.min(cy - r));
            let (x1, y1) = ((b.0 + b.2).max(cx + r), (b.1 + b.3).max(cy + r));
            b = (x0, y0, x1 - x0, y1 - y0);
        }
        labels.push((format!("{} of {}", text, g.attribute("data-edge").unwrap()), b));
    }
    for (i, (a, ab)) in labels.iter().enumerate() {
        if let Some((b, _)) = labels[i + 1..].iter().find(|(_, bb)| overlap(ab, bb)) {
            return Err(format!("{what}: labels {a} and {b} overlap"));
        }
        if let Some((id, _)) = boxes.iter().find(|(_, bb)| overlap(ab, bb)) {
            return Err(format!("{what}: label {a} covers {id}"));
        }
    }
    Ok(())
}

#[test]
fn arcs_avoid_boxes_and_labels_never_overlap_on_examples_and_corpus() {
    let mut bad = Vec::new();
    let mut drawn = 0;
    for (name, src) in common::corpus_and_example_sources() {
        let (p, vs) = violations(&src);
        for (i, v) in vs.iter().enumerate() {
            let svg = picture::svg(&picture::of_violation(&p, v, i + 1));
            if let Err(e) = layout_is_clean(&svg, &format!("{name} violation {}", i + 1)) {
                bad.push(e);
            }
            drawn += 1;
        }
    }
    assert!(drawn >= 100, "only {drawn} violations drawn");
    assert!(bad.is_empty(), "{} of {drawn}:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn the_old_mp_layout_would_fail_the_check() {
    // An rf edge from an initial write drawn straight between the box
    // centres it joins crosses a box on some example — the check sees it.
    let mut caught = Vec::new();
    for name in ["mp.litmus", "sb.litmus", "dekker.litmus", "peterson.litmus", "lb.litmus", "iriw.litmus"] {
        let Ok(src) = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name))
        else {
            continue;
        };
        let (p, vs) = violations(&src);
        let Some(v) = vs.first() else { continue };
        let svg = picture::svg(&picture::of_violation(&p, v, 1));
        layout_is_clean(&svg, name).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        for e in doc.descendants().filter(|d| d.attribute("data-from").is_some_and(|f| f.starts_with("init-"))) {
            let path = e.children().find(|c| c.attribute("class") == Some("line")).unwrap().attribute("d").unwrap();
            let straight = svg.replace(
                path,
                &straight_path(&doc, e.attribute("data-from").unwrap(), e.attribute("data-to").unwrap()),
            );
            if layout_is_clean(&straight, name).is_err_and(|m| m.contains("passes through a")) {
                caught.push(name);
            }
        }
    }
    assert!(!caught.is_empty(), "no straight edge from an initial write crossed a box");
}

/// A straight curve between two nodes' centres.
fn straight_path(doc: &roxmltree::Document, from: &str, to: &str) -> String {
    let centre = |id: &str| {
        let g = doc
            .descendants()
            .find(|d| {
                d.attribute("id") == Some(id)
                    || (id.starts_with("init-")
                        && d.attribute("data-cell") == Some(&id[5..])
                        && d.attribute("class") == Some("init"))
            })
            .unwrap();
        let r = g.children().find(|c| c.attribute("class") == Some("box")).unwrap();
        (num(&r, "x") + num(&r, "width") / 2.0, num(&r, "y") + num(&r, "height") / 2.0)
    };
    let (a, b) = (centre(from), centre(to));
    let m = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    format!("M{:.1},{:.1} Q{:.1},{:.1} {:.1},{:.1}", a.0, a.1, m.0, m.1, b.0, b.1)
}

/// Under a model whose axioms decide (AArch64, RISC-V, RC11), a violation's
/// picture tells what each axiom keeps: every cycle step is named by the
/// axioms whose order keeps it, the steps none keeps are dashed (and only
/// they), and "ordering those forbids this execution" is said exactly
/// where the axiom's order is closed and misses only po steps. On the
/// shapes and the three corpora, each picture is also laid out cleanly.
#[test]
fn candidate_violations_draw_what_each_axiom_keeps() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["tests/shapes/aarch64", "tests/shapes/riscv", "tests/shapes/c11", "tests/shapes/native"] {
        files.extend(common::litmus_files(dir));
    }
    for dir in ["tests/corpus/herd-aarch64", "tests/corpus/herd-riscv", "tests/corpus/herd-c11"] {
        files.extend(common::litmus_files(dir));
    }
    let opts = Options::default();
    let (mut drawn, mut dashed, mut claimed) = (0, 0, 0);
    let mut bad = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let Some(p) = litmus_dsl::analyze(&src).program else { continue };
        let Some(&model) = litmus_checker::catalog::defaults_of(&p).iter().find(|m| m.is_axiomatic()) else { continue };
        let rb = litmus_checker::robust::own_executions(&p, model, &opts);
        for (i, v) in rb.violations.iter().enumerate() {
            let what = format!("{} violation {}", f.display(), i + 1);
            let pic = picture::of_violation(&p, v, i + 1);
            let told: Vec<_> = v.telling_axioms().collect();
            for a in pic.arrows.iter() {
                let Some(n) = a.cycle else {
                    assert!(!a.unordered, "{what}: a dashed arrow off the cycle");
                    continue;
                };
                let keeping: Vec<&str> = told.iter().filter(|o| o.kept[n - 1]).map(|o| o.name.as_str()).collect();
                assert_eq!(a.unordered, !told.is_empty() && keeping.is_empty(), "{what}: step {n}");
                for k in keeping {
                    assert!(a.label.contains(k), "{what}: step {n} `{}` does not name {k}", a.label);
                }
                dashed += a.unordered as usize;
            }
            let forbids = told.iter().any(|o| o.forbids_once_ordered(&v.witness.cycle));
            assert_eq!(pic.subtitle.contains("ordering those forbids"), forbids, "{what}: {}", pic.subtitle);
            claimed += forbids as usize;
            let svg = picture::svg(&pic);
            assert_eq!(svg.matches("stroke-dasharray").count(), pic.arrows.iter().filter(|a| a.unordered).count());
            if let Err(e) = layout_is_clean(&svg, &what) {
                bad.push(e);
            }
            drawn += 1;
        }
    }
    eprintln!("{drawn} pictures, {dashed} dashed steps, {claimed} say ordering them forbids the execution");
    assert!(drawn >= 200 && dashed >= 200 && claimed >= 100, "{drawn} drawn, {dashed} dashed, {claimed} claimed");
    assert!(bad.is_empty(), "{} of {drawn}:\n{}", bad.len(), bad.join("\n"));
}
