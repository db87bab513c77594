//! The shapes a picture is made of: boxes and quadratic curves.

#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
    /// Where the ray from the centre towards `(tx, ty)` leaves the box.
    pub fn exit(&self, tx: f64, ty: f64) -> (f64, f64) {
        let (cx, cy) = (self.cx(), self.cy());
        let (dx, dy) = (tx - cx, ty - cy);
        if dx.abs() < 1e-9 && dy.abs() < 1e-9 {
            return (cx, cy);
        }
        let sx = if dx.abs() < 1e-9 { f64::INFINITY } else { (self.w / 2.0) / dx.abs() };
        let sy = if dy.abs() < 1e-9 { f64::INFINITY } else { (self.h / 2.0) / dy.abs() };
        let s = sx.min(sy);
        (cx + dx * s, cy + dy * s)
    }
}

/// A quadratic curve `start`–`ctrl`–`end`, and where its label goes.
#[derive(Clone, Copy, Debug)]
pub struct Curve {
    pub start: (f64, f64),
    pub ctrl: (f64, f64),
    pub end: (f64, f64),
    pub mid: (f64, f64),
}

/// An edge's line: quadratic curves joined end to start (usually one).
pub type Route = Vec<Curve>;

impl Curve {
    /// The same curve with `mid` its point at t = ½.
    pub fn with_mid(self) -> Curve {
        let (s, c, e) = (self.start, self.ctrl, self.end);
        Curve { mid: (0.25 * s.0 + 0.5 * c.0 + 0.25 * e.0, 0.25 * s.1 + 0.5 * c.1 + 0.25 * e.1), ..self }
    }

    /// Straight (po down its lane): its control point is its middle.
    pub fn straight(&self) -> bool {
        (self.ctrl.0 - self.mid.0).abs() < 1e-6 && (self.ctrl.1 - self.mid.1).abs() < 1e-6
    }
}
