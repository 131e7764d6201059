//! Generators aimed at the hard places: endpoints on edges and corners, one ulp either side of a
//! bound, axis-parallel and zero-length segments, lines through corners, zero-width rects, signed
//! zeros, subnormals, magnitudes from 1e-30 to 1e30 and a few near the float range's end, and a
//! sprinkle of NaN and ±∞. One case in five aims at SPEC §1's far ends: an endpoint on an edge or
//! a few ulps inside it, the other far outside (entries just below 1, exits just above 0 or
//! underflowing, real `Touches` at an endpoint, endpoints on an edge not entered through).
//! Built from plain `u64` seeds so proptest drives them and prints them.

use slabclip::{Real, Rect, Segment};

/// The float operations the generators need beyond [`Real`].
pub trait TestFloat: Real {
    const MAX: Self;
    fn up(self) -> Self;
    fn down(self) -> Self;
}
impl TestFloat for f32 {
    const MAX: f32 = f32::MAX;
    fn up(self) -> f32 {
        self.next_up()
    }
    fn down(self) -> f32 {
        self.next_down()
    }
}
impl TestFloat for f64 {
    const MAX: f64 = f64::MAX;
    fn up(self) -> f64 {
        self.next_up()
    }
    fn down(self) -> f64 {
        self.next_down()
    }
}

/// SplitMix64: a tiny deterministic generator.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// A value with log-uniform magnitude in [1e-30, 1e30] and a random sign.
    pub fn wide(&mut self) -> f64 {
        let m = 10f64.powf(self.unit() * 60.0 - 30.0);
        if self.below(2) == 0 {
            m
        } else {
            -m
        }
    }
}

fn rect<F: TestFloat>(g: &mut Rng) -> Rect<F> {
    let (a, b, c, d): (f64, f64, f64, f64) = match g.below(6) {
        // Small integers, equal bounds allowed (zero width or height).
        0 | 1 => {
            let (a, b) = (g.int(-4, 4) as f64, g.int(-4, 4) as f64);
            let (c, d) = (g.int(-4, 4) as f64, g.int(-4, 4) as f64);
            (a, c, b, d)
        }
        // Integers scaled by a power of two: still exact, any magnitude.
        2 => {
            let s = 2f64.powi(g.int(-90, 90) as i32);
            let v: Vec<f64> = (0..4).map(|_| g.int(-8, 8) as f64 * s).collect();
            (v[0], v[1], v[2], v[3])
        }
        // Signed zeros as bounds.
        3 => {
            let z = |g: &mut Rng| if g.below(2) == 0 { 0.0 } else { -0.0 };
            (z(g), z(g), g.unit() * 4.0, g.unit() * 4.0)
        }
        // Random magnitudes, 1e-30 to 1e30.
        _ => (g.wide(), g.wide(), g.wide(), g.wide()),
    };
    let (a, b) = (F::from_f64(a), F::from_f64(b));
    let (c, d) = (F::from_f64(c), F::from_f64(d));
    let (xmin, xmax) = if a <= b { (a, b) } else { (b, a) };
    let (ymin, ymax) = if c <= d { (c, d) } else { (d, c) };
    Rect::new(xmin, ymin, xmax, ymax).expect("generated rects are valid")
}

/// One coordinate on an axis with bounds `lo ≤ hi`, from a pool of interesting values.
fn coord<F: TestFloat>(g: &mut Rng, lo: F, hi: F) -> F {
    let span = (hi.to_f64() - lo.to_f64())
        .abs()
        .max(lo.to_f64().abs())
        .max(1e-30);
    match g.below(16) {
        0 => lo,
        1 => hi,
        2 => lo.down(),
        3 => hi.up(),
        4 => lo.up().min_(hi),
        5 => hi.down().max_(lo),
        6 => F::from_f64((lo.to_f64() + hi.to_f64()) / 2.0),
        7 => F::from_f64(lo.to_f64() + g.unit() * (hi.to_f64() - lo.to_f64())),
        8 => F::from_f64(lo.to_f64() - g.unit() * span * 2.0),
        9 => F::from_f64(hi.to_f64() + g.unit() * span * 2.0),
        10 => {
            if g.below(2) == 0 {
                F::ZERO
            } else {
                -F::ZERO
            }
        }
        11 => F::from_f64(g.wide()),
        12 => F::TINY * F::from_f64(g.int(-3, 3) as f64),
        13 => {
            F::from_f64(g.unit()) * F::MAX * F::from_f64(if g.below(2) == 0 { 1.0 } else { -1.0 })
        }
        _ => F::from_f64(lo.to_f64() + (g.unit() * 3.0 - 1.0) * span),
    }
}

trait MinMax {
    fn min_(self, o: Self) -> Self;
    fn max_(self, o: Self) -> Self;
}
impl<F: Real> MinMax for F {
    fn min_(self, o: F) -> F {
        if o < self {
            o
        } else {
            self
        }
    }
    fn max_(self, o: F) -> F {
        if o > self {
            o
        } else {
            self
        }
    }
}

fn corner<F: TestFloat>(g: &mut Rng, r: &Rect<F>) -> (F, F) {
    let x = if g.below(2) == 0 { r.xmin() } else { r.xmax() };
    let y = if g.below(2) == 0 { r.ymin() } else { r.ymax() };
    (x, y)
}

/// A rect and a segment aimed at the hard places, from one seed.
pub fn case<F: TestFloat>(seed: u64) -> (Rect<F>, Segment<F>) {
    let g = &mut Rng(seed);
    let r = rect::<F>(g);
    let s = segment(g, &r);
    (r, s)
}

/// A segment aimed at the hard places of a given rect, from one seed: for batches that share
/// one rect (the batch tests use the rect of another seed's [`case`]).
pub fn case_in<F: TestFloat>(seed: u64, r: &Rect<F>) -> Segment<F> {
    segment(&mut Rng(seed), r)
}

fn segment<F: TestFloat>(g: &mut Rng, r: &Rect<F>) -> Segment<F> {
    // One case in five aims at SPEC §1's far ends.
    if g.below(5) == 0 {
        let s = far_end(g, r);
        return poison(g, s);
    }
    let pt = |g: &mut Rng| (coord(g, r.xmin(), r.xmax()), coord(g, r.ymin(), r.ymax()));
    let (x0, y0) = pt(g);
    let (mut x1, mut y1) = pt(g);
    match g.below(10) {
        // Zero length.
        0 => (x1, y1) = (x0, y0),
        // Axis-parallel.
        1 => x1 = x0,
        2 => y1 = y0,
        // A line exactly through a corner: P0 = C − k·v, P1 = C + m·v with small integer v, k, m
        // scaled by a power of two, all exact.
        3 | 4 => {
            let (cx, cy) = corner(g, r);
            let h = 2f64.powi(g.int(-20, 4) as i32)
                * (r.xmax().to_f64() - r.xmin().to_f64()).abs().max(1.0);
            let (vx, vy) = (g.int(-3, 3) as f64 * h, g.int(-3, 3) as f64 * h);
            let (k, m) = (g.int(0, 3) as f64, g.int(0, 3) as f64);
            let s = Segment::new(
                F::from_f64(cx.to_f64() - k * vx),
                F::from_f64(cy.to_f64() - k * vy),
                F::from_f64(cx.to_f64() + m * vx),
                F::from_f64(cy.to_f64() + m * vy),
            );
            return poison(g, s);
        }
        _ => {}
    }
    poison(g, Segment::new(x0, y0, x1, y1))
}

/// SPEC §1's far ends: one endpoint on an edge or 1 to 4 ulps inside it (at a bound of 0 those
/// are subnormals), the other far outside, beyond the same edge or another one. As `P1` (from
/// outside in) the exact entry is just below 1, or exactly 1 when `P1` is on the edge it is
/// entered through (a real `Touches`), and `Enters` with `t_entry < 1` when `P1` is on an edge it
/// is not entered through; as `P0` the exact exit is just above 0 (tiny, underflowing when the
/// other end is huge), or exactly 0. Distances from a few spans to `MAX`, and a few subnormals.
fn far_end<F: TestFloat>(g: &mut Rng, r: &Rect<F>) -> Segment<F> {
    // Edges as (axis, side): axis 0 is x; side 0 is the lower bound.
    let bounds = |axis: u64| {
        if axis == 0 {
            (r.xmin(), r.xmax())
        } else {
            (r.ymin(), r.ymax())
        }
    };
    let (near_axis, near_side) = (g.below(2), g.below(2));
    let (lo, hi) = bounds(near_axis);
    // Normal coordinate: on the edge, or k ulps inward (not past the opposite bound).
    let k = [0, 0, 1, 1, 2, 3, 4][g.below(7) as usize];
    let mut n = if near_side == 0 { lo } else { hi };
    for _ in 0..k {
        n = if near_side == 0 {
            n.up().min_(hi)
        } else {
            n.down().max_(lo)
        };
    }
    // Tangential coordinate: mostly in the rect (corners, next to them, anywhere), now and then
    // outside it (a miss, or a graze).
    let (tlo, thi) = bounds(1 - near_axis);
    let t = match g.below(8) {
        0 => tlo,
        1 => thi,
        2 => tlo.up().min_(thi),
        3 => thi.down().max_(tlo),
        4 => coord(g, tlo, thi),
        _ => F::from_f64(tlo.to_f64() + g.unit() * (thi.to_f64() - tlo.to_f64())),
    };
    let near = if near_axis == 0 { (n, t) } else { (t, n) };

    // The far end: beyond the near edge (half the time) or another one, by a distance from
    // a few subnormals to MAX; its other coordinate from the pool.
    let (far_axis, far_side) = if g.below(2) == 0 {
        (near_axis, near_side)
    } else {
        (g.below(2), g.below(2))
    };
    let (flo, fhi) = bounds(far_axis);
    let span = (fhi.to_f64() - flo.to_f64())
        .abs()
        .max(flo.to_f64().abs())
        .max(fhi.to_f64().abs())
        .max(1e-30);
    let dist = match g.below(6) {
        0 => F::TINY.to_f64() * g.int(1, 4) as f64,
        1 => span * (0.5 + 4.0 * g.unit()),
        2 | 3 => span * 10f64.powf(g.unit() * 30.0),
        4 => F::MAX.to_f64() * g.unit(),
        _ => 10f64.powf(g.unit() * 60.0 - 30.0),
    };
    let f = if far_side == 0 {
        let v = F::from_f64((flo.to_f64() - dist).max(-F::MAX.to_f64()));
        if v < flo {
            v
        } else {
            flo.down().max_(-F::MAX)
        }
    } else {
        let v = F::from_f64((fhi.to_f64() + dist).min(F::MAX.to_f64()));
        if v > fhi {
            v
        } else {
            fhi.up().min_(F::MAX)
        }
    };
    let (glo, ghi) = bounds(1 - far_axis);
    let o = coord(g, glo, ghi);
    let far = if far_axis == 0 { (f, o) } else { (o, f) };

    // As P1: from outside in (entries near 1). As P0: from inside out (exits near 0).
    if g.below(2) == 0 {
        Segment::new(far.0, far.1, near.0, near.1)
    } else {
        Segment::new(near.0, near.1, far.0, far.1)
    }
}

/// Now and then, a NaN or ±∞ in one coordinate.
fn poison<F: TestFloat>(g: &mut Rng, mut s: Segment<F>) -> Segment<F> {
    if g.below(50) == 0 {
        let bad = [F::NAN, F::INFINITY, -F::INFINITY][g.below(3) as usize];
        match g.below(4) {
            0 => s.x0 = bad,
            1 => s.y0 = bad,
            2 => s.x1 = bad,
            _ => s.y1 = bad,
        }
    }
    s
}
