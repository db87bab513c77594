//! Geometry for a picture: herd's column layout (one lane per thread,
//! program order downwards), the initial writes in a row above, each over
//! the lane of the thread that first writes its cell, so co from init is a
//! short drop. Edges are quadratic curves: po straight down its lane; other
//! edges within a lane bow out to its right; edges across lanes bend to
//! their left, so a pair of opposite edges (SB's two fr) separates. A
//! curve that would cross a box is re-routed (`route.rs`); labels are
//! placed apart (`labels.rs`); the picture is sized to what is drawn.

use super::build::{Arrow, NodeKind, Picture};
use super::geometry::{Curve, Rect, Route};
use super::labels::{self, Label};
use super::route;
use super::xml::cells;
use litmus_checker::trace::Edge;

pub const CHAR_W: f64 = 7.8;
pub const NODE_H: f64 = 44.0;
const PAD_X: f64 = 12.0;
const ROW_GAP: f64 = 64.0;
const COL_GAP: f64 = 130.0;
pub const MARGIN: f64 = 24.0;
pub const TITLE_H: f64 = 54.0;
pub const HEADER_H: f64 = 28.0;
/// Each subtitle line after the first.
pub const SUBTITLE_LINE_H: f64 = 16.0;
const INIT_GAP: f64 = 72.0;
pub const LEGEND_H: f64 = 64.0;
pub const LEGEND_W: f64 = 700.0;

pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<Rect>,
    /// Per thread: its lane.
    pub lanes: Vec<Rect>,
    pub curves: Vec<Route>,
    /// Per arrow: where its label goes.
    pub labels: Vec<Label>,
    pub legend_y: f64,
}

pub fn layout(pic: &Picture) -> Layout {
    let n_threads = pic.threads.len();
    // Lane widths: the widest text of the lane's events.
    let mut lane_w: Vec<f64> =
        pic.threads.iter().map(|t| ((cells(t) as f64) * CHAR_W + 2.0 * PAD_X).max(140.0)).collect();
    let mut rows = vec![0usize; n_threads];
    for n in &pic.nodes {
        if let Some(t) = n.thread {
            let t = t as usize;
            let text = cells(&n.text) + format!("L{} ", n.line).len();
            let w = (cells(&n.label).max(text) as f64) * CHAR_W + 2.0 * PAD_X;
            lane_w[t] = lane_w[t].max(w);
            rows[t] = rows[t].max(n.row + 1);
        }
    }
    // The initial writes in a row of their own above the lanes (they are
    // no thread's), each over the lane of the thread that reads it.
    let has_init = pic.nodes.iter().any(|n| n.kind == NodeKind::Init);
    let top = MARGIN + TITLE_H + SUBTITLE_LINE_H * (pic.subtitle.lines().count().max(1) - 1) as f64;
    let init_y = top;
    let lanes_top = if has_init { init_y + NODE_H + INIT_GAP / 2.0 } else { top };
    let rows_y = lanes_top + HEADER_H + 16.0;
    let mut lanes = Vec::with_capacity(n_threads);
    let mut x = MARGIN;
    for w in &lane_w {
        lanes.push(Rect { x, y: lanes_top, w: *w, h: 0.0 });
        x += w + COL_GAP;
    }
    let lanes_right = x - COL_GAP;
    let pitch = NODE_H + ROW_GAP;
    let mut rects: Vec<Rect> = pic
        .nodes
        .iter()
        .map(|n| match n.thread {
            Some(t) => {
                let l = lanes[t as usize];
                Rect { x: l.x, y: rows_y + n.row as f64 * pitch, w: l.w, h: NODE_H }
            }
            None => Rect {
                x: 0.0,
                y: init_y,
                w: (cells(&n.label).max("initial value".len()) as f64) * CHAR_W + 2.0 * PAD_X,
                h: NODE_H,
            },
        })
        .collect();
    place_inits(pic, &lanes, &mut rects);
    let max_rows = rows.iter().copied().max().unwrap_or(0);
    let lanes_bottom = rows_y + (max_rows as f64) * pitch - ROW_GAP + 16.0;
    for l in &mut lanes {
        l.h = lanes_bottom - l.y;
    }
    // Curves, with a growing bend for repeated (from, to) pairs.
    let mut seen: Vec<(usize, usize)> = Vec::new();
    // The free columns between and beside the lanes, for arcs that must go
    // around boxes.
    let mut channels: Vec<f64> = lanes.iter().map(|l| l.x - COL_GAP / 2.0).collect();
    if let (Some(c), Some(l)) = (channels.first_mut(), lanes.first()) {
        *c = l.x - 40.0; // left of the first lane: no neighbour to share with
    }
    channels.push(lanes_right + 40.0);
    // The free bands between the initial writes and the first row, and
    // between rows (rows line up across lanes), by their centre lines.
    let mut bands: Vec<f64> = (0..=max_rows).map(|r| rows_y + r as f64 * pitch - ROW_GAP / 2.0).collect();
    if has_init {
        bands[0] = init_y + NODE_H + INIT_GAP / 4.0;
    }
    let curves: Vec<Route> = pic
        .arrows
        .iter()
        .map(|a| {
            let dup = seen.iter().filter(|&&p| p == (a.from, a.to) || p == (a.to, a.from)).count();
            seen.push((a.from, a.to));
            preferred_curve(pic, a, &rects, pitch, dup)
        })
        .zip(&pic.arrows)
        .map(|(c, a)| route::around(&rects, &channels, &bands, a.from, a.to, c))
        .collect();
    let labels = labels::place(pic, &curves, &rects);
    let mut l = Layout { width: 0.0, height: 0.0, nodes: rects, lanes, curves, labels, legend_y: 0.0 };
    // An arc routed around a box or a label pushed aside may leave the
    // grid: move everything right by what sticks out left, and size the
    // picture to what is drawn.
    let (mut min_x, mut max_x, mut max_y) = (f64::INFINITY, lanes_right + 60.0, lanes_bottom);
    for c in &l.curves {
        for (x, y) in route::samples(c) {
            (min_x, max_x, max_y) = (min_x.min(x), max_x.max(x), max_y.max(y));
        }
    }
    for r in l.nodes.iter().chain(l.labels.iter().map(|b| &b.rect)) {
        (min_x, max_x, max_y) = (min_x.min(r.x), max_x.max(r.x + r.w), max_y.max(r.y + r.h));
    }
    let dx = (MARGIN - min_x).max(0.0);
    if dx > 0.0 {
        l.shift(dx);
    }
    // The subtitle's longest line fits too.
    let subtitle_w = pic.subtitle.lines().map(cells).max().unwrap_or(0) as f64 * CHAR_W * 12.0 / 13.0;
    max_x = max_x.max(MARGIN + subtitle_w);
    l.legend_y = max_y + 28.0;
    l.width = (max_x + dx + MARGIN).max(LEGEND_W + 2.0 * MARGIN);
    l.height = l.legend_y + LEGEND_H + MARGIN;
    l
}

/// The initial writes in a row, each over the lane of its first writer
/// (else reader), left to right without overlap.
fn place_inits(pic: &Picture, lanes: &[Rect], rects: &mut [Rect]) {
    let mut inits: Vec<(f64, usize)> = Vec::new();
    for (i, n) in pic.nodes.iter().enumerate() {
        if n.kind != NodeKind::Init {
            continue;
        }
        let target =
            |e: Edge| pic.arrows.iter().find(|a| a.from == i && a.edge == e).and_then(|a| pic.nodes[a.to].thread);
        let pref = target(Edge::Co).or_else(|| target(Edge::Rf)).map_or(MARGIN, |t| lanes[t as usize].cx());
        inits.push((pref, i));
    }
    inits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut right = MARGIN - 24.0;
    for (pref, i) in inits {
        let r = &mut rects[i];
        r.x = (pref - r.w / 2.0).max(right + 24.0);
        right = r.x + r.w;
    }
}

/// An arrow's curve before routing around boxes: po straight down its lane,
/// other edges within a lane bowing out to its right, edges across lanes
/// bending to their left; `dup` earlier arrows between the same two nodes
/// bend it further.
fn preferred_curve(pic: &Picture, a: &Arrow, rects: &[Rect], pitch: f64, dup: usize) -> Curve {
    let (ra, rb) = (rects[a.from], rects[a.to]);
    let same_lane = pic.nodes[a.from].thread.is_some() && pic.nodes[a.from].thread == pic.nodes[a.to].thread;
    if same_lane && a.edge == Edge::Po && dup == 0 && rb.y > ra.y {
        let start = (ra.cx(), ra.y + ra.h);
        let end = (rb.cx(), rb.y);
        let mid = ((start.0 + end.0) / 2.0, (start.1 + end.1) / 2.0);
        return Curve { start, ctrl: mid, end, mid };
    }
    if same_lane {
        let span = ((rb.y - ra.y).abs() / pitch).round();
        let bulge = 36.0 + 14.0 * span + 16.0 * dup as f64;
        let start = (ra.x + ra.w, ra.cy());
        let end = (rb.x + rb.w, rb.cy());
        let ctrl = (start.0.max(end.0) + bulge, (start.1 + end.1) / 2.0);
        return with_mid(start, ctrl, end);
    }
    let (ax, ay, bx, by) = (ra.cx(), ra.cy(), rb.cx(), rb.cy());
    let (dx, dy) = (bx - ax, by - ay);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let bend = (len * 0.12).clamp(16.0, 46.0) + 18.0 * dup as f64;
    let (nx, ny) = (-dy / len, dx / len);
    let ctrl = ((ax + bx) / 2.0 + nx * bend, (ay + by) / 2.0 + ny * bend);
    with_mid(ra.exit(ctrl.0, ctrl.1), ctrl, rb.exit(ctrl.0, ctrl.1))
}

impl Layout {
    fn shift(&mut self, dx: f64) {
        for r in self.nodes.iter_mut().chain(self.lanes.iter_mut()) {
            r.x += dx;
        }
        for c in self.curves.iter_mut().flatten() {
            for p in [&mut c.start, &mut c.ctrl, &mut c.end, &mut c.mid] {
                p.0 += dx;
            }
        }
        for b in &mut self.labels {
            b.x += dx;
            b.rect.x += dx;
            if let Some(x) = &mut b.badge {
                *x += dx;
            }
        }
    }
}

fn with_mid(start: (f64, f64), ctrl: (f64, f64), end: (f64, f64)) -> Curve {
    Curve { start, ctrl, end, mid: (0.0, 0.0) }.with_mid()
}
