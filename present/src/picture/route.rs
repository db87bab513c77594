//! Arcs around boxes: an edge must not pass through any event or
//! initial-write box but its own two ends (MP's `W y=0` to `b` crossed
//! `a`). An edge is a `Route`: one quadratic curve, or a few joined end to
//! start. The layout's preferred curve is kept when it is clear; else the
//! control point moves out, or the curve goes through a free column beside
//! the lanes, or (from an initial write over another lane, or across a
//! lane) along the free band between two rows and then down such a column.

use super::geometry::{Curve, Rect, Route};

/// Sampled points per curve (dense enough for 44-px boxes on any arc the
/// layout draws).
const SAMPLES: usize = 100;
/// Clearance kept from other boxes.
const CLEAR: f64 = 3.0;

pub fn point(c: &Curve, t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    (
        u * u * c.start.0 + 2.0 * u * t * c.ctrl.0 + t * t * c.end.0,
        u * u * c.start.1 + 2.0 * u * t * c.ctrl.1 + t * t * c.end.1,
    )
}

/// The point at `t` ∈ [0, 1] of a route, each segment an equal share.
pub fn point_on(r: &[Curve], t: f64) -> (f64, f64) {
    let n = r.len() as f64;
    let seg = ((t * n).floor() as usize).min(r.len() - 1);
    point(&r[seg], t * n - seg as f64)
}

/// The points a test or a collision check looks at, ends included.
pub fn samples(r: &[Curve]) -> impl Iterator<Item = (f64, f64)> + '_ {
    r.iter().flat_map(|c| (0..=SAMPLES).map(move |i| point(c, i as f64 / SAMPLES as f64)))
}

fn inside(r: &Rect, (x, y): (f64, f64), pad: f64) -> bool {
    x > r.x - pad && x < r.x + r.w + pad && y > r.y - pad && y < r.y + r.h + pad
}

/// Does the curve pass through a box other than `from` and `to`? Only the
/// boxes its control polygon's bounding box meets are sampled against (a
/// quadratic stays within the hull of its three points).
fn blocked(route: &[Curve], boxes: &[Rect], from: usize, to: usize) -> bool {
    route.iter().any(|c| {
        let xs = [c.start.0, c.ctrl.0, c.end.0];
        let ys = [c.start.1, c.ctrl.1, c.end.1];
        let (x0, x1) =
            (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        let (y0, y1) =
            (ys.iter().copied().fold(f64::INFINITY, f64::min), ys.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        let near: Vec<&Rect> = boxes
            .iter()
            .enumerate()
            .filter(|&(i, r)| {
                i != from
                    && i != to
                    && r.x - CLEAR < x1
                    && x0 < r.x + r.w + CLEAR
                    && r.y - CLEAR < y1
                    && y0 < r.y + r.h + CLEAR
            })
            .map(|(_, r)| r)
            .collect();
        !near.is_empty() && samples(std::slice::from_ref(c)).any(|p| near.iter().any(|r| inside(r, p, CLEAR)))
    })
}

/// The curve from box `from` to box `to` bent by `ctrl`, leaving and
/// entering by the sides facing the control point.
fn through(boxes: &[Rect], from: usize, to: usize, ctrl: (f64, f64)) -> Curve {
    let start = boxes[from].exit(ctrl.0, ctrl.1);
    let end = boxes[to].exit(ctrl.0, ctrl.1);
    Curve { start, ctrl, end, mid: (0.0, 0.0) }.with_mid()
}

/// `preferred` if clear of other boxes; else the first clear one of: the
/// control point pushed out a little along the normal (either side, 24 px
/// steps up to 72), a curve through one of the `channels` (the free
/// columns between and beside the lanes: leaving each box by its side
/// facing the channel, with the control point in it, the curve stays
/// within the channel's column between the boxes — convex hull), the
/// control point pushed further (up to 480 px); else `preferred` (a
/// picture is still drawn).
pub fn around(boxes: &[Rect], channels: &[f64], bands: &[f64], from: usize, to: usize, preferred: Curve) -> Route {
    if !blocked(&[preferred], boxes, from, to) {
        return vec![preferred];
    }
    let (a, b) = (boxes[from], boxes[to]);
    let (ax, ay, bx, by) = (a.cx(), a.cy(), b.cx(), b.cy());
    let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
    let (dx, dy) = (bx - ax, by - ay);
    let len = (dx * dx + dy * dy).sqrt();
    // The normal; a loop on one box (no direction) bows right.
    let (nx, ny) = if len < 1e-9 { (1.0, 0.0) } else { (-dy / len, dx / len) };
    // The side the preferred curve bends to goes first.
    let side = if (preferred.ctrl.0 - mx) * nx + (preferred.ctrl.1 - my) * ny >= 0.0 { 1.0 } else { -1.0 };
    let pushed = |steps: std::ops::RangeInclusive<usize>| {
        steps.flat_map(move |step| {
            let k = 24.0 * step as f64;
            [side, -side].map(|s| vec![through(boxes, from, to, (mx + nx * s * k, my + ny * s * k))])
        })
    };
    let mut by_channel: Vec<f64> = channels.to_vec();
    by_channel.sort_by(|p, q| (p - mx).abs().total_cmp(&(q - mx).abs()));
    let channel = by_channel.into_iter().flat_map(|x| {
        let port = |r: &Rect| (if x < r.cx() { r.x } else { r.x + r.w }, r.cy());
        let (start, end) = (port(&a), port(&b));
        [(start.1 + end.1) / 2.0, start.1, end.1]
            .map(|y| vec![Curve { start, ctrl: (x, y), end, mid: (0.0, 0.0) }.with_mid()])
    });
    let banded = banded(&a, &b, channels, bands);
    pushed(1..=3)
        .chain(channel)
        .chain(banded)
        .chain(pushed(4..=20))
        .find(|c| !blocked(c, boxes, from, to))
        .unwrap_or(vec![preferred])
}

/// Out of `a` by its bottom (top, when `b` is higher) into the nearest free
/// band between rows (`bands`: their centre lines), along it to a column
/// beside `b`'s lane, along that to `b`'s side. The band and the column
/// hold no box, so only the first and last bends come near one.
fn banded(a: &Rect, b: &Rect, channels: &[f64], bands: &[f64]) -> Vec<Route> {
    let down = b.cy() > a.cy();
    let (sx, sy) = (a.cx(), if down { a.y + a.h } else { a.y });
    let band = bands
        .iter()
        .copied()
        .filter(|&y| if down { y > sy } else { y < sy })
        .min_by(|p, q| (p - sy).abs().total_cmp(&(q - sy).abs()));
    let Some(band) = band else { return Vec::new() };
    // The two columns nearest `b` (one on each side of its lane).
    let mut cols: Vec<f64> = channels.to_vec();
    cols.sort_by(|p, q| (p - b.cx()).abs().total_cmp(&(q - b.cx()).abs()));
    cols.truncate(2);
    cols.into_iter()
        .map(|x| {
            let end = (if x < b.cx() { b.x } else { b.x + b.w }, b.cy());
            let corner = (x, band);
            vec![
                Curve { start: (sx, sy), ctrl: (sx, band), end: corner, mid: (0.0, 0.0) }.with_mid(),
                Curve { start: corner, ctrl: (x, end.1), end, mid: (0.0, 0.0) }.with_mid(),
            ]
        })
        .collect()
}
