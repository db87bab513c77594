//! A picture as one self-contained SVG document: no scripts, no external
//! fonts or images, every text escaped. Colours and widths are attributes
//! (so viewers without CSS draw it too); the one `<style>` only adds hover.
//! Each event is a `<g class="event">` with `data-thread`, `data-line`,
//! `data-col` and `data-stmt`, so a webview can map a click to the source.

use super::build::{NodeKind, Picture};
use super::geometry::{Curve, Rect};
use super::labels::BADGE_R;
use super::layout::{layout, Layout, CHAR_W, HEADER_H, LEGEND_H, MARGIN, NODE_H, SUBTITLE_LINE_H};
use super::xml::escape;
use litmus_checker::trace::Edge;
use std::fmt::Write;

/// herd7's edge colours (`Pretty.ml`): po black, rf red, co blue, fr
/// orange; the second colour is the label's (darker where the line is pale).
fn colours(e: Edge) -> (&'static str, &'static str) {
    match e {
        Edge::Po => ("#222222", "#222222"),
        Edge::Rf => ("#d00000", "#b00000"),
        Edge::Co => ("#1a4fd6", "#1a4fd6"),
        Edge::Fr => ("#ff9a2e", "#b85400"),
    }
}

fn fill(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Init => "#eeeeee",
        NodeKind::Read => "#e6f0ff",
        NodeKind::Write => "#fff3d1",
        NodeKind::Rmw => "#efe4ff",
    }
}

const HALO: &str = "#ffd43b";
const EDGES: [Edge; 4] = [Edge::Po, Edge::Rf, Edge::Co, Edge::Fr];

pub fn svg(pic: &Picture) -> String {
    let l = layout(pic);
    let mut s = String::new();
    header(&mut s, pic, &l);
    lanes(&mut s, pic, &l);
    // Edges under the nodes; their labels above them.
    edges(&mut s, pic, &l);
    nodes(&mut s, pic, &l);
    labels(&mut s, pic, &l);
    legend(&mut s, l.legend_y, pic.cycle_len() > 0);
    s.push_str("</svg>\n");
    s
}

/// The root element, title, styles, arrow markers and background.
fn header(s: &mut String, pic: &Picture, l: &Layout) {
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="litmus-execution" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="12" data-model="{m}" data-cycle-length="{c}" role="img">"#,
        w = l.width,
        h = l.height,
        m = escape(&pic.model),
        c = pic.cycle_len(),
    );
    s.push('\n');
    let _ = writeln!(s, "<title>{}</title>", escape(&pic.title));
    let _ = writeln!(s, "<desc>{}</desc>", escape(&pic.subtitle));
    s.push_str(
        "<style>.event{cursor:pointer}.event:hover rect.box{stroke:#0a66c2;stroke-width:2.5}\
         .edge-label{paint-order:stroke;stroke:#ffffff;stroke-width:4px;stroke-linejoin:round}</style>\n",
    );
    s.push_str("<defs>\n");
    for e in EDGES {
        let (c, _) = colours(e);
        for (suffix, size) in [("", 9.0), ("-cycle", 13.0)] {
            let _ = writeln!(
                s,
                r#"<marker id="arrow-{k}{suffix}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="{size}" markerHeight="{size}" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"#,
                k = e.as_str()
            );
        }
    }
    s.push_str("</defs>\n");
    let _ = writeln!(s, r##"<rect x="0" y="0" width="{:.0}" height="{:.0}" fill="#ffffff"/>"##, l.width, l.height);
    let _ = writeln!(
        s,
        r##"<text class="title" x="{MARGIN}" y="{:.0}" font-size="15" font-weight="bold" fill="#111111">{}</text>"##,
        MARGIN + 16.0,
        escape(&pic.title)
    );
    for (i, line) in pic.subtitle.lines().enumerate() {
        let _ = writeln!(
            s,
            r##"<text class="subtitle" x="{MARGIN}" y="{:.0}" font-size="12" fill="#444444">{}</text>"##,
            MARGIN + 36.0 + SUBTITLE_LINE_H * i as f64,
            escape(line)
        );
    }
}

/// One lane per thread.
fn lanes(s: &mut String, pic: &Picture, l: &Layout) {
    s.push_str("<g class=\"lanes\">\n");
    for (t, (name, r)) in pic.threads.iter().zip(&l.lanes).enumerate() {
        let _ = writeln!(
            s,
            r##"<g class="lane" data-thread="{t}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8" fill="#fafafa" stroke="#dddddd"/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="13" font-weight="bold" fill="#333333">{}</text></g>"##,
            r.x - 8.0,
            r.y,
            r.w + 16.0,
            r.h,
            r.cx(),
            r.y + HEADER_H - 9.0,
            escape(name)
        );
    }
    s.push_str("</g>\n");
}

/// The edges (a cycle's with a halo).
fn edges(s: &mut String, pic: &Picture, l: &Layout) {
    s.push_str("<g class=\"edges\">\n");
    for (i, (a, c)) in pic.arrows.iter().zip(&l.curves).enumerate() {
        let (stroke, _) = colours(a.edge);
        let d = path(c);
        let k = a.edge.as_str();
        let from = node_id(pic, a.from);
        let to = node_id(pic, a.to);
        match a.cycle {
            Some(n) => {
                let _ = writeln!(
                    s,
                    r#"<g class="edge {k} cycle{unordered}" id="edge-{i}" data-kind="{k}" data-from="{from}" data-to="{to}" data-cycle="{n}"><path class="halo" d="{d}" fill="none" stroke="{HALO}" stroke-width="10" stroke-opacity="0.6" stroke-linecap="round"/><path class="line" d="{d}" fill="none" stroke="{stroke}" stroke-width="3"{dash} marker-end="url(#arrow-{k}-cycle)"/></g>"#,
                    dash = if a.unordered { r#" stroke-dasharray="7 5""# } else { "" },
                    unordered = if a.unordered { " unordered" } else { "" }
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    r#"<g class="edge {k}" id="edge-{i}" data-kind="{k}" data-from="{from}" data-to="{to}"><path class="line" d="{d}" fill="none" stroke="{stroke}" stroke-width="1.4" stroke-opacity="0.85" marker-end="url(#arrow-{k})"/></g>"#
                );
            }
        }
    }
}

/// The events and initial writes.
fn nodes(s: &mut String, pic: &Picture, l: &Layout) {
    s.push_str("</g>\n<g class=\"nodes\">\n");
    for (i, (n, r)) in pic.nodes.iter().zip(&l.nodes).enumerate() {
        let (stroke, width) = if n.on_cycle { ("#111111", 2.2) } else { ("#777777", 1.0) };
        let rect = format!(
            r#"<rect class="box" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="{}" stroke="{stroke}" stroke-width="{width}"/>"#,
            r.x,
            r.y,
            r.w,
            r.h,
            fill(n.kind)
        );
        if n.kind == NodeKind::Init {
            let _ = writeln!(
                s,
                r##"<g class="init" data-cell="{cell}">{rect}<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold" fill="#333333">{label}</text><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#777777">initial value</text></g>"##,
                r.cx(),
                r.y + 18.0,
                r.cx(),
                r.y + 35.0,
                cell = escape(&n.cell),
                label = escape(&n.label),
            );
            continue;
        }
        let t = n.thread.unwrap_or(0);
        let thread = pic.threads.get(t as usize).map(String::as_str).unwrap_or("");
        let _ = writeln!(
            s,
            r##"<g class="event {kind}{cyc}" id="{id}" data-event="{id}" data-kind="{kind_s}" data-thread="{t}" data-thread-name="{tn}" data-line="{line}" data-col="{col}" data-stmt="{stmt}" data-cell="{cell}"><title>{tn} line {line}: {text}</title>{rect}{halo}<text class="access" x="{:.1}" y="{:.1}" font-weight="bold" fill="#111111">{label}</text><text class="stmt" x="{:.1}" y="{:.1}" fill="#333333"><tspan fill="#8a8a8a">L{line}</tspan><tspan dx="0.6em">{text}</tspan></text></g>"##,
            r.x + 10.0,
            r.y + 18.0,
            r.x + 10.0,
            r.y + 35.0,
            kind = match n.kind {
                NodeKind::Read => "read",
                NodeKind::Rmw => "rmw",
                _ => "write",
            },
            cyc = if n.on_cycle { " on-cycle" } else { "" },
            id = node_id(pic, i),
            kind_s = n.kind.as_str(),
            tn = escape(thread),
            line = n.line,
            col = n.col,
            stmt = n.stmt.map_or(String::new(), |s| s.to_string()),
            cell = escape(&n.cell),
            text = escape(&n.text),
            label = escape(&n.label),
            halo = if n.on_cycle { cycle_mark(r) } else { String::new() },
        );
    }
}

/// The edges' labels, and a cycle's step numbers.
fn labels(s: &mut String, pic: &Picture, l: &Layout) {
    s.push_str("</g>\n<g class=\"labels\">\n");
    for (i, (a, b)) in pic.arrows.iter().zip(&l.labels).enumerate() {
        let (_, text) = colours(a.edge);
        let _ = write!(
            s,
            r#"<g class="edge-label-group" data-edge="edge-{i}"><text class="edge-label" x="{:.1}" y="{:.1}" text-anchor="start" font-size="11" fill="{text}"{}>{}</text>"#,
            b.x,
            b.y + 4.0,
            if a.cycle.is_some() { r#" font-weight="bold""# } else { "" },
            escape(&a.label)
        );
        if let (Some(n), Some(bx)) = (a.cycle, b.badge) {
            let _ = write!(
                s,
                r##"<g class="cycle-badge"><circle cx="{bx:.1}" cy="{:.1}" r="{BADGE_R}" fill="#111111"/><text x="{bx:.1}" y="{:.1}" text-anchor="middle" font-size="11" font-weight="bold" fill="#ffffff">{n}</text></g>"##,
                b.y,
                b.y + 4.0
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</g>\n");
}

/// A node's id: the event's herd name (`a`), or `init-x`.
fn node_id(pic: &Picture, i: usize) -> String {
    let n = &pic.nodes[i];
    if n.kind == NodeKind::Init {
        return format!("init-{}", escape(&n.cell).replace(['[', ']'], "_"));
    }
    n.label.split(':').next().unwrap_or("").to_string()
}

fn path(r: &[Curve]) -> String {
    let mut d = String::new();
    if let Some(c) = r.first() {
        let _ = write!(d, "M{:.1},{:.1}", c.start.0, c.start.1);
    }
    for c in r {
        let _ = write!(d, " Q{:.1},{:.1} {:.1},{:.1}", c.ctrl.0, c.ctrl.1, c.end.0, c.end.1);
    }
    d
}

fn cycle_mark(r: &Rect) -> String {
    format!(
        r#"<rect class="cycle-mark" x="{:.1}" y="{:.1}" width="5" height="{:.1}" rx="2" fill="{HALO}"/>"#,
        r.x + 1.5,
        r.y + 4.0,
        r.h - 8.0
    )
}

/// The legend; the cycle's entry only where there is a cycle (a run that
/// breaks the condition has none).
fn legend(s: &mut String, y: f64, cycle: bool) {
    let _ = write!(s, r#"<g class="legend" transform="translate({MARGIN},{y:.0})">"#);
    let _ = write!(
        s,
        r##"<rect x="0" y="0" width="{:.0}" height="{LEGEND_H}" rx="6" fill="#ffffff" stroke="#dddddd"/>"##,
        super::layout::LEGEND_W
    );
    let mut x = 12.0;
    let words =
        [(Edge::Po, "program order"), (Edge::Rf, "reads from"), (Edge::Co, "coherence"), (Edge::Fr, "from-read")];
    for (e, what) in words {
        let (c, t) = colours(e);
        let k = e.as_str();
        let _ = write!(
            s,
            r##"<g class="legend-item" data-kind="{k}"><path d="M{x:.0},20 L{:.0},20" stroke="{c}" stroke-width="1.6" marker-end="url(#arrow-{k})"/><text x="{:.0}" y="24" fill="{t}" font-weight="bold">{k}</text><text x="{:.0}" y="24" fill="#555555">{what}</text></g>"##,
            x + 26.0,
            x + 32.0,
            x + 52.0
        );
        x += 70.0 + what.len() as f64 * CHAR_W;
    }
    if cycle {
        let _ = write!(
            s,
            r##"<g class="legend-item" data-kind="cycle"><path d="M12,46 L38,46" stroke="{HALO}" stroke-width="10" stroke-opacity="0.6" stroke-linecap="round"/><path d="M12,46 L38,46" stroke="#222222" stroke-width="3"/><circle cx="52" cy="46" r="8" fill="#111111"/><text x="52" y="50" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">1</text><text x="66" y="50" fill="#555555">the cycle, step by step</text></g>"##
        );
    }
    let mut x = 290.0;
    for (k, what) in
        [(NodeKind::Write, "write"), (NodeKind::Read, "read"), (NodeKind::Rmw, "atomic"), (NodeKind::Init, "initial")]
    {
        let _ = write!(
            s,
            r##"<rect x="{x:.0}" y="37" width="14" height="14" rx="3" fill="{}" stroke="#777777"/><text x="{:.0}" y="49" fill="#555555">{what}</text>"##,
            fill(k),
            x + 19.0
        );
        x += 30.0 + what.len() as f64 * CHAR_W;
    }
    let _ = NODE_H;
    s.push_str("</g>\n");
}
