//! A picture as Graphviz dot (`litmus explain --dot`): the same events,
//! initial writes and edges as the SVG, one cluster per thread.

use super::build::{NodeKind, Picture};
use litmus_checker::trace::Edge;
use std::fmt::Write;

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ")
}

pub fn dot(pic: &Picture) -> String {
    let mut s = String::from("digraph witness {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
    let _ = writeln!(s, "  label=\"{}\";", quote(&pic.title));
    for (i, n) in pic.nodes.iter().enumerate() {
        if n.kind == NodeKind::Init {
            let _ = writeln!(s, "  n{i} [label=\"{}\", style=filled, fillcolor=\"#eeeeee\"];", quote(&n.label));
        }
    }
    for (t, name) in pic.threads.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{t} {{\n    label=\"{}\";", quote(name));
        for (i, n) in pic.nodes.iter().enumerate() {
            if n.thread == Some(t as u16) {
                let _ = writeln!(s, "    n{i} [label=\"{}\\n{}\"];", quote(&n.label), quote(&n.text));
            }
        }
        s.push_str("  }\n");
    }
    for a in &pic.arrows {
        let colour = match a.edge {
            Edge::Po => "black",
            Edge::Rf => "red",
            Edge::Co => "blue",
            Edge::Fr => "\"#ffa040\"",
        };
        let (label, hot) = match a.cycle {
            Some(n) if a.unordered => {
                (format!("{} ({n})", a.label), ", penwidth=3, style=dashed, fontname=\"monospace bold\"")
            }
            Some(n) => (format!("{} ({n})", a.label), ", penwidth=3, fontname=\"monospace bold\""),
            None => (a.label.clone(), ""),
        };
        let _ = writeln!(
            s,
            "  n{} -> n{} [label=\"{}\", color={colour}, fontcolor={colour}{hot}];",
            a.from,
            a.to,
            quote(&label)
        );
    }
    s.push_str("}\n");
    s
}
