//! Edge labels placed so that no two overlap and none covers a box: each
//! label (its text and, on the cycle, its step badge) tries points along
//! its curve — the middle first, then further out, then shifted off the
//! line — and takes the first whose box is free. The cycle's labels are
//! placed first, so they keep the best places.

use super::build::Picture;
use super::geometry::{Curve, Rect};
use super::route::point_on;

/// Width of one character of an edge label (11 px monospace).
pub const LABEL_CHAR_W: f64 = 6.6;
/// Half the height a label (text or badge) takes around its centre line.
pub const LABEL_HALF_H: f64 = 9.0;
/// From the text's end to the badge's centre; the badge's radius.
pub const BADGE_GAP: f64 = 12.0;
pub const BADGE_R: f64 = 9.0;

#[derive(Clone, Copy, Debug)]
pub struct Label {
    /// Where the text starts (anchor `start`) and its centre line.
    pub x: f64,
    pub y: f64,
    /// The cycle step's badge centre, if the edge is on the cycle.
    pub badge: Option<f64>,
    /// Everything it covers.
    pub rect: Rect,
}

fn overlaps(a: &Rect, b: &Rect, pad: f64) -> bool {
    a.x < b.x + b.w + pad && b.x < a.x + a.w + pad && a.y < b.y + b.h + pad && b.y < a.y + a.h + pad
}

fn label_at(x: f64, y: f64, chars: usize, cycle: bool) -> Label {
    let w = chars as f64 * LABEL_CHAR_W;
    let badge = cycle.then_some(x + w + BADGE_GAP);
    let right = badge.map_or(x + w, |b| b + BADGE_R);
    Label { x, y, badge, rect: Rect { x, y: y - LABEL_HALF_H, w: right - x, h: 2.0 * LABEL_HALF_H } }
}

/// Candidate places, best first.
fn candidates(c: &[Curve], chars: usize, cycle: bool) -> Vec<Label> {
    let width = label_at(0.0, 0.0, chars, cycle).rect.w;
    let mut out = Vec::new();
    if c.len() == 1 && c[0].straight() {
        // Beside the line, right then left, along it.
        for t in [0.5, 0.35, 0.65, 0.2, 0.8] {
            let (px, py) = point_on(c, t);
            out.push(label_at(px + 6.0, py, chars, cycle));
            out.push(label_at(px - 6.0 - width, py, chars, cycle));
        }
    } else {
        // On the line (the text has a white halo), centred on the point.
        for off in [0.0, 14.0, -14.0, 28.0, -28.0] {
            for t in [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8] {
                let (px, py) = point_on(c, t);
                out.push(label_at(px - width / 2.0, py + off, chars, cycle));
            }
        }
    }
    // Last resorts: further off the middle, down and up.
    let (px, py) = point_on(c, 0.5);
    for k in 1..=30 {
        for s in [1.0, -1.0] {
            out.push(label_at(px - width / 2.0, py + s * (20.0 + 10.0 * k as f64), chars, cycle));
        }
    }
    out
}

/// One label per arrow of `pic` (same order), none overlapping another or
/// any box.
pub fn place(pic: &Picture, curves: &[Vec<Curve>], boxes: &[Rect]) -> Vec<Label> {
    let mut order: Vec<usize> = (0..pic.arrows.len()).collect();
    order.sort_by_key(|&i| (pic.arrows[i].cycle.is_none(), pic.arrows[i].cycle, i));
    let mut placed: Vec<Option<Label>> = vec![None; pic.arrows.len()];
    let mut taken: Vec<Rect> = Vec::new();
    for i in order {
        let a = &pic.arrows[i];
        let cands = candidates(&curves[i], a.label.chars().count(), a.cycle.is_some());
        let free = |l: &Label| {
            !taken.iter().any(|r| overlaps(&l.rect, r, 2.0)) && !boxes.iter().any(|r| overlaps(&l.rect, r, 2.0))
        };
        let l = cands.iter().copied().find(free).unwrap_or(cands[0]);
        taken.push(l.rect);
        placed[i] = Some(l);
    }
    placed.into_iter().map(|l| l.expect("every arrow placed")).collect()
}
