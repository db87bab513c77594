//! What a picture shows, before any geometry: the witness's trace events
//! (loads, committed stores, atomics) per thread in program order, one
//! initial write per cell they touch, and the po/rf/co/fr edges, the
//! cycle's numbered.

use litmus_checker::harm::WholeExecution;
use litmus_checker::machine::{Event, EventKind, NONE};
use litmus_checker::trace::{source_write, Edge, Trace};
use litmus_checker::violation::{CycleOrder, Harm, Violation};
use litmus_ir::{Program, StmtId};
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Init,
    Read,
    Write,
    Rmw,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Init => "init",
            NodeKind::Read => "R",
            NodeKind::Write => "W",
            NodeKind::Rmw => "RMW",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// `None` for an initial write.
    pub thread: Option<u16>,
    /// Place in its thread's program order (initial writes: among them).
    pub row: usize,
    /// herd-style name and access: `a: W x=1`, `c: R y=0`.
    pub label: String,
    /// The source statement (`let r0 = y`); empty for an initial write.
    pub text: String,
    pub stmt: Option<StmtId>,
    /// 1-based line and column of the statement (0 for initial writes).
    pub line: u32,
    pub col: u32,
    pub cell: String,
    /// Index of the event in the witness's log (`None`: initial write).
    pub event: Option<u32>,
    pub on_cycle: bool,
}

#[derive(Clone, Debug)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub edge: Edge,
    /// `po`, `rf`…; a po edge over a fence names it (`po · fence wr`).
    pub label: String,
    /// 1-based step of the cycle this edge is, if it is one.
    pub cycle: Option<usize>,
    /// A cycle step the model's orders leave out where they keep the
    /// rest (drawn dashed): what a repair must order.
    pub unordered: bool,
}

#[derive(Clone, Debug)]
pub struct Picture {
    pub title: String,
    pub subtitle: String,
    pub model: String,
    pub threads: Vec<String>,
    pub nodes: Vec<Node>,
    pub arrows: Vec<Arrow>,
}

impl Picture {
    pub fn cycle_len(&self) -> usize {
        self.arrows.iter().filter(|a| a.cycle.is_some()).count()
    }
}

/// The picture of violation `number` (1-based, as `litmus check` lists them).
pub fn of_violation(p: &Program, v: &Violation, number: usize) -> Picture {
    let (title, subtitle) = caption(p, v, number);
    let mut pic = of_events(p, &v.witness.events, &v.witness.cycle, title);
    pic.subtitle = subtitle;
    pic.model = v.model.upper().to_string();
    mark_axioms(v, &mut pic);
    pic
}

/// Under a model whose orders decide (a candidate violation): each cycle
/// step named by the axioms whose order keeps it (`rf · external`), the
/// steps none keeps dashed (`po · not external`), and a line per axiom
/// under the title saying what ordering the dashed steps would do.
fn mark_axioms(v: &Violation, pic: &mut Picture) {
    let told: Vec<&CycleOrder> = v.telling_axioms().collect();
    if told.is_empty() {
        return;
    }
    for a in pic.arrows.iter_mut() {
        let Some(n) = a.cycle else { continue };
        let keeping: Vec<&str> = told.iter().filter(|o| o.kept[n - 1]).map(|o| o.name.as_str()).collect();
        if keeping.is_empty() {
            let names: Vec<&str> = told.iter().map(|o| o.name.as_str()).collect();
            a.label = format!("{} · not {}", a.label, names.join(", "));
            a.unordered = true;
        } else {
            a.label = format!("{} · {}", a.label, keeping.join(", "));
        }
    }
    let cycle = &v.witness.cycle;
    // Axioms that keep the same steps, and say the same of them, share a line.
    let mut lines: Vec<(Vec<&str>, &CycleOrder)> = Vec::new();
    for o in &told {
        let same = |x: &CycleOrder| x.kept == o.kept && x.forbids_once_ordered(cycle) == o.forbids_once_ordered(cycle);
        match lines.iter_mut().find(|(_, x)| same(x)) {
            Some((names, _)) => names.push(&o.name),
            None => lines.push((vec![&o.name], o)),
        }
    }
    for (names, o) in lines {
        let steps = |keep: bool| -> String {
            let ns: Vec<String> =
                (0..o.kept.len()).filter(|&j| o.kept[j] == keep).map(|j| (j + 1).to_string()).collect();
            ns.join(", ")
        };
        let _ = write!(
            pic.subtitle,
            "\n`{}` {} steps {}, not {} (dashed){}",
            names.join("`, `"),
            if names.len() == 1 { "orders" } else { "order" },
            steps(true),
            steps(false),
            if o.forbids_once_ordered(cycle) { ": ordering those forbids this execution" } else { "" }
        );
    }
}

/// Violation `number`'s title and what the subtitle says of it.
fn caption(p: &Program, v: &Violation, number: usize) -> (String, String) {
    let store = &p.stmts[v.store_stmt as usize];
    let access = &p.stmts[v.access_stmt as usize];
    let thread = |t: u16| p.threads.get(t as usize).map(|t| t.name.as_str()).unwrap_or("?");
    let title = format!("{} — violation {} under {}", p.name, number, v.model.upper());
    let subtitle = if v.model.has_histories() {
        format!(
            "`{}` ({} line {}) takes effect before `{}` (line {})",
            access.text,
            thread(access.thread),
            access.line,
            store.text,
            store.line
        )
    } else {
        // Past the next statement of its own thread on the cycle (the
        // monitor's access may be another thread's).
        let past = &p.stmts[v.delayed_past() as usize];
        format!(
            "`{}` ({} line {}) is delayed past `{}` (line {})",
            store.text,
            thread(store.thread),
            store.line,
            past.text,
            past.line
        )
    };
    (title, subtitle)
}

/// The picture of violation `number`'s whole execution (its witness run
/// to the end, [`litmus_checker::harm::whole_execution`]): every event,
/// the cycle highlighted, what goes wrong said under the title.
pub fn of_whole(p: &Program, v: &Violation, number: usize, whole: &WholeExecution) -> Picture {
    let (title, subtitle) = caption(p, v, number);
    let mut pic = of_events(p, &whole.events, &whole.cycle, format!("{title} (whole execution)"));
    let ending = match &whole.harm {
        Some(Harm::Fails { stmt, .. }) => {
            let s = &p.stmts[*stmt as usize];
            let thread = p.threads.get(s.thread as usize).map_or("?", |t| t.name.as_str());
            format!("\nThis execution fails `{}` ({thread} line {}).", s.text, s.line)
        }
        Some(Harm::ChangesCondition { .. }) => "\nThis execution changes the final condition's answer.".into(),
        _ => String::new(),
    };
    pic.subtitle = format!("{subtitle}{ending}");
    pic.model = v.model.upper().to_string();
    pic
}

/// herd names events a, b, …, z, aa, ab, …
fn name(mut k: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (k % 26) as u8);
        if k < 26 {
            break;
        }
        k = k / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The picture of any execution's log, with `cycle` (event, edge leaving
/// it) highlighted; cycle steps that are not trace edges are added.
pub fn of_events(p: &Program, log: &[Event], cycle: &[(u32, Edge)], title: String) -> Picture {
    let trace = Trace::of(log);
    let threads: Vec<String> = p.threads.iter().map(|t| t.name.clone()).collect();
    let mut nodes = Vec::new();
    // Trace event k (position in `trace.events`) → node index.
    let mut node_of = vec![usize::MAX; trace.events.len()];
    let mut per_thread: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
    for (k, &i) in trace.events.iter().enumerate() {
        per_thread.entry(log[i as usize].thread).or_default().push(k);
    }
    let on_cycle: Vec<u32> = cycle.iter().map(|c| c.0).collect();
    let mut named = 0;
    for (&t, ks) in &per_thread {
        for (row, &k) in ks.iter().enumerate() {
            let i = trace.events[k];
            let e = &log[i as usize];
            let cell = p.cell_name(e.cell);
            let (kind, access) = match e.kind {
                EventKind::Load => (NodeKind::Read, format!("R {cell}={}", p.show_value(e.value))),
                EventKind::Rmw => {
                    (NodeKind::Rmw, format!("RMW {cell} {}→{}", p.show_value(e.old), p.show_value(e.value)))
                }
                _ => (NodeKind::Write, format!("W {cell}={}", p.show_value(e.value))),
            };
            let st = p.stmts.get(e.stmt as usize);
            node_of[k] = nodes.len();
            nodes.push(Node {
                kind,
                thread: Some(t),
                row,
                label: format!("{}: {access}", name(named)),
                text: st.map(|s| s.text.clone()).unwrap_or_default(),
                stmt: st.map(|_| e.stmt),
                line: st.map_or(0, |s| s.line),
                col: st.map_or(0, |s| s.col),
                cell,
                event: Some(i),
                on_cycle: on_cycle.contains(&i),
            });
            named += 1;
        }
    }
    let mut arrows = Vec::new();
    let mut has_co_pred = vec![false; trace.events.len()];
    for (k, succ) in trace.succ.iter().enumerate() {
        for &(w, edge) in succ {
            if edge == Edge::Co {
                has_co_pred[w as usize] = true;
            }
            let label = if edge == Edge::Po {
                po_label(log, trace.events[k], trace.events[w as usize])
            } else {
                edge.as_str().to_string()
            };
            arrows.push(Arrow {
                from: node_of[k],
                to: node_of[w as usize],
                edge,
                label,
                cycle: None,
                unordered: false,
            });
        }
    }
    // Initial writes, as herd7 draws them: only those a read reads from,
    // one per such cell, with their rf edges; no co from them (every write
    // is co-after its cell's initial value — a fan of edges that says
    // nothing, nine of them across ms2-queue's picture).
    let reads_init = |k: usize| {
        let e = &log[trace.events[k] as usize];
        matches!(e.kind, EventKind::Load | EventKind::Rmw) && source_write(log, e.rf) == NONE
    };
    let mut init_of: BTreeMap<u32, usize> = BTreeMap::new();
    let mut cells: Vec<u32> =
        (0..trace.events.len()).filter(|&k| reads_init(k)).map(|k| log[trace.events[k] as usize].cell).collect();
    cells.sort_unstable();
    cells.dedup();
    for (row, &c) in cells.iter().enumerate() {
        let cell = p.cell_name(c);
        let v = p.init.get(c as usize).copied().unwrap_or(0);
        init_of.insert(c, nodes.len());
        nodes.push(Node {
            kind: NodeKind::Init,
            thread: None,
            row,
            label: format!("W {cell}={}", p.show_value(v)),
            text: String::new(),
            stmt: None,
            line: 0,
            col: 0,
            cell,
            event: None,
            on_cycle: false,
        });
    }
    for k in (0..trace.events.len()).filter(|&k| reads_init(k)) {
        let init = init_of[&log[trace.events[k] as usize].cell];
        arrows.push(Arrow {
            from: init,
            to: node_of[k],
            edge: Edge::Rf,
            label: "rf".into(),
            cycle: None,
            unordered: false,
        });
    }
    // Number the cycle's steps on its edges.
    let node_of_event = |i: u32| trace.events.iter().position(|&x| x == i).map(|k| node_of[k]);
    for (j, &(a, edge)) in cycle.iter().enumerate() {
        let b = cycle[(j + 1) % cycle.len()].0;
        let (Some(na), Some(nb)) = (node_of_event(a), node_of_event(b)) else { continue };
        match arrows.iter_mut().find(|x| x.from == na && x.to == nb && x.edge == edge && x.cycle.is_none()) {
            Some(x) => x.cycle = Some(j + 1),
            None => arrows.push(Arrow {
                from: na,
                to: nb,
                edge,
                label: edge.as_str().into(),
                cycle: Some(j + 1),
                unordered: false,
            }),
        }
    }
    Picture { title, subtitle: String::new(), model: String::new(), threads, nodes, arrows }
}

/// `po`, or `po · fence wr` when the thread fenced between the two events.
fn po_label(log: &[Event], a: u32, b: u32) -> String {
    let t = log[a as usize].thread;
    let fences: Vec<&str> = log[a as usize + 1..b as usize]
        .iter()
        .filter(|e| e.thread == t)
        .filter_map(|e| match e.kind {
            EventKind::Fence(k) => Some(k.as_str()),
            _ => None,
        })
        .collect();
    if fences.is_empty() {
        "po".into()
    } else {
        format!("po · fence {}", fences.join(", "))
    }
}

/// A forbidden candidate drawn with one failing axiom's cycle in the
/// model's own relations (`bob`, `rfe`, `psc-base`): each step an arrow
/// between its statements' events, named by its relation, numbered as
/// the cycle's edges are (the execution's own po/rf/co/fr stay as they
/// are drawn).
pub fn of_forbidden(p: &Program, f: &litmus_checker::outcome::Forbidden, axiom: usize, title: String) -> Picture {
    use litmus_checker::outcome::Who;
    let mut pic = of_events(p, &f.witness.events, &[], title);
    let Some(a) = f.axioms.get(axiom) else { return pic };
    let node = |pic: &Picture, w: &Who| -> Option<usize> {
        match *w {
            Who::Access { thread, stmt } => {
                pic.nodes.iter().position(|n| n.thread == Some(thread) && n.stmt == Some(stmt))
            }
            Who::Init(c) => {
                let cell = p.cell_name(c);
                pic.nodes.iter().position(|n| n.kind == NodeKind::Init && n.cell == cell)
            }
            Who::Register(_) => None,
        }
    };
    let k = a.steps.len();
    for (j, (w, label)) in a.steps.iter().enumerate() {
        let (Some(from), Some(to)) = (node(&pic, w), node(&pic, &a.steps[(j + 1) % k].0)) else { continue };
        let Some(label) = label.clone() else { continue };
        // Coloured as the base relation it refines, where it names one.
        let edge = match label.as_str() {
            "rf" | "rfe" | "rfi" => Edge::Rf,
            "fr" | "fre" | "fri" => Edge::Fr,
            "co" | "coe" | "coi" | "ca" => Edge::Co,
            _ => Edge::Po,
        };
        pic.nodes[from].on_cycle = true;
        pic.arrows.push(Arrow { from, to, edge, label, cycle: Some(j + 1), unordered: false });
    }
    pic.subtitle = format!("forbidden by `{}` ({} {})", a.name, a.kind, a.expr);
    pic
}

#[cfg(test)]
mod tests {
    #[test]
    fn herd_names() {
        let n: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702].iter().map(|&k| super::name(k)).collect();
        assert_eq!(n, ["a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"]);
    }
}
