//! The obviously-right ray casts and polygon clips of SPEC §2, in exact rational arithmetic, and
//! the rounding bounds the float kernels are held to where their inputs are not on a grid.
//!
//! Every query here is the definition, computed without rounding: a ray `O + t·D` meets a
//! segment where the two parametric forms agree; a convex polygon is the intersection of the
//! closed half-planes left of its counter-clockwise edges.

use num_traits::{One, Signed, Zero};
use slabclip::cast::RayRect;
use slabclip::{Class, Ray, Real, Rect};

use super::cases::TestFloat;
use super::reference::{class_of, q, slab, ulp, ulps, GRAZE_ULPS, Q, T_ULPS};

/// `a × b`.
pub fn cross(ax: &Q, ay: &Q, bx: &Q, by: &Q) -> Q {
    ax * by - ay * bx
}

/// An exact ray; `t_max = None` is `+∞`.
#[derive(Clone, Debug)]
pub struct QRay {
    pub ox: Q,
    pub oy: Q,
    pub dx: Q,
    pub dy: Q,
    pub t_max: Option<Q>,
}

impl QRay {
    /// `None` for an invalid ray (non-finite or zero direction).
    pub fn new<F: Real>(ox: F, oy: F, dx: F, dy: F, t_max: F) -> Option<QRay> {
        let all = [ox, oy, dx, dy].map(|v| v.to_f64());
        if all.iter().any(|v| !v.is_finite()) || (all[2] == 0.0 && all[3] == 0.0) {
            return None;
        }
        Some(QRay {
            ox: q(ox),
            oy: q(oy),
            dx: q(dx),
            dy: q(dy),
            t_max: t_max.to_f64().is_finite().then(|| q(t_max)),
        })
    }

    pub fn within(&self, t: &Q) -> bool {
        !t.is_negative() && self.t_max.as_ref().is_none_or(|m| t <= m)
    }
}

// ---------------------------------------------------------------- ray × rect

/// The exact ray × rect answer: the slab of `[0, t_max]`.
#[derive(Clone, Debug)]
pub struct ExactRayRect {
    pub o_in: bool,
    pub entry: Q,
    /// `None` is `+∞` (an unbounded ray whose exit is unbounded cannot happen with a rect).
    pub exit: Option<Q>,
    pub parallel_miss: bool,
    pub hit: bool,
}

pub fn ray_rect<F: Real>(r: &Rect<F>, ray: &QRay) -> ExactRayRect {
    let (xmin, ymin, xmax, ymax) = (q(r.xmin()), q(r.ymin()), q(r.xmax()), q(r.ymax()));
    let (ox, oy) = (&ray.ox, &ray.oy);
    let sx = slab(&xmin, &xmax, ox, &(ox + &ray.dx));
    let sy = slab(&ymin, &ymax, oy, &(oy + &ray.dy));
    let mut entry = Q::zero();
    let mut exit = ray.t_max.clone();
    for s in [&sx, &sy] {
        if let Some(n) = &s.near {
            if n > &entry {
                entry = n.clone();
            }
        }
        if let Some(f) = &s.far {
            if exit.as_ref().is_none_or(|e| f < e) {
                exit = Some(f.clone());
            }
        }
    }
    let parallel_miss = sx.empty || sy.empty;
    let hit = !parallel_miss && exit.as_ref().is_none_or(|e| &entry <= e);
    let o_in = &xmin <= ox && ox <= &xmax && &ymin <= oy && oy <= &ymax;
    ExactRayRect {
        o_in,
        entry,
        exit,
        parallel_miss,
        hit,
    }
}

/// `got` within [`T_ULPS`] ulps of `want`, in ulps; `+∞` is 0 ulps off a `want` beyond the
/// float range (an overflow).
fn off<F: TestFloat>(got: F, want: &Q) -> f64 {
    if got == F::INFINITY {
        return if want >= &q(F::MAX) {
            0.0
        } else {
            f64::INFINITY
        };
    }
    ulps(got, want)
}

/// SPEC §2's ray × rect contract for one result: §1's slab contract on `[0, t_max]`, the origin
/// in `P0`'s part. The error names the broken rule.
///
/// * an invalid ray is `Invalid` with NaN parameters; a valid one never is;
/// * `t_entry == +0.0` iff `O` is inside, and then a hit;
/// * on a hit, `t_exit == +0.0` iff the exact exit is 0 (the ray leaves exactly at `O`, or
///   `t_max` is 0), so a tiny exit never underflows to 0;
/// * hit versus miss as in exact arithmetic, except at a graze with `O` outside;
/// * `0 ≤ t_entry ≤ t_exit ≤ t_max`, each within [`T_ULPS`] ulps of the exact value;
/// * the class agrees with the parameters (the far end decided on them: `t_exit == t_max`).
pub fn check_ray_rect<F: TestFloat>(
    r: &Rect<F>,
    ray: &Ray<F>,
    t_max: F,
    c: &RayRect<F>,
) -> Result<(), String> {
    let fail = |rule: &str| {
        Err(format!(
            "broke '{rule}'\n  rect {r:?}\n  ray {ray:?} t_max {t_max}\n  got {c:?}"
        ))
    };
    let nan = |x: F| x.to_f64().is_nan();
    let bits = |a: F, b: F| a.to_bits_u64() == b.to_bits_u64();
    let Some(qr) = QRay::new(ray.ox, ray.oy, ray.dx, ray.dy, t_max) else {
        if c.class != Class::Invalid || !nan(c.t_entry) || !nan(c.t_exit) {
            return fail("an invalid ray is Invalid with NaN parameters");
        }
        return Ok(());
    };
    let e = ray_rect(r, &qr);
    let hit = c.class.is_hit();
    if c.class == Class::Invalid {
        return fail("a valid ray is never Invalid");
    }
    if e.o_in && !(hit && bits(c.t_entry, F::ZERO)) {
        return fail("O inside gives a hit with t_entry == +0.0");
    }
    if !e.o_in && hit && c.t_entry == F::ZERO {
        return fail("O outside never gets t_entry == 0");
    }
    // Within GRAZE_ULPS ulps of each other, with O outside, the exact entry and exit are a graze.
    let graze = !e.o_in
        && !e.parallel_miss
        && e.exit.as_ref().is_some_and(|x| {
            let big = if x.abs() > e.entry.abs() {
                x.abs()
            } else {
                e.entry.abs()
            };
            (x - &e.entry).abs() <= ulp::<F>(&big) * Q::from_integer(GRAZE_ULPS.into())
        });
    // An entry beyond the float range cannot be reported: such a hit is a miss (crate docs).
    if e.hit && e.entry > q(F::MAX) {
        if hit {
            return fail("a hit whose entry is beyond the float range is reported as a miss");
        }
        return Ok(());
    }
    if hit != e.hit && !graze {
        return fail("hit versus miss as in exact arithmetic (away from a graze with O outside)");
    }
    if !hit {
        if !nan(c.t_entry) || !nan(c.t_exit) || c.class != Class::Outside {
            return fail("a miss is Outside with NaN parameters");
        }
        return Ok(());
    }
    if !(F::ZERO <= c.t_entry && c.t_entry <= c.t_exit && c.t_exit <= t_max) {
        return fail("0 <= t_entry <= t_exit <= t_max");
    }
    let class = if c.t_entry == c.t_exit {
        Class::Touches
    } else {
        match (c.t_entry == F::ZERO, c.t_exit == t_max) {
            (true, true) => Class::Inside,
            (false, true) => Class::Enters,
            (true, false) => Class::Exits,
            (false, false) => Class::Crosses,
        }
    };
    if c.class != class {
        return fail(&format!("the class agrees with the parameters ({class:?})"));
    }
    if e.hit {
        let exit_zero = e.exit.as_ref().is_some_and(|x| x.is_zero());
        if c.t_exit == F::ZERO && !exit_zero {
            return fail("t_exit == 0 only when the ray leaves exactly at O");
        }
        if exit_zero && !bits(c.t_exit, F::ZERO) {
            return fail("leaving exactly at O gives t_exit == +0.0");
        }
        if off(c.t_entry, &e.entry) > T_ULPS {
            return fail(&format!(
                "t_entry within {T_ULPS} ulps (off by {:.3})",
                ulps(c.t_entry, &e.entry)
            ));
        }
        if let Some(x) = &e.exit {
            if off(c.t_exit, x) > T_ULPS {
                return fail(&format!(
                    "t_exit within {T_ULPS} ulps (off by {:.3})",
                    ulps(c.t_exit, x)
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- ray × segments

/// An exact segment.
#[derive(Clone, Debug)]
pub struct QSeg {
    pub x0: Q,
    pub y0: Q,
    pub x1: Q,
    pub y1: Q,
}

impl QSeg {
    pub fn new<F: Real>(x0: F, y0: F, x1: F, y1: F) -> Option<QSeg> {
        let all = [x0, y0, x1, y1].map(|v| v.to_f64());
        if all.iter().any(|v| !v.is_finite()) {
            return None;
        }
        Some(QSeg {
            x0: q(x0),
            y0: q(y0),
            x1: q(x1),
            y1: q(y1),
        })
    }
}

/// Where one ray meets one segment.
#[derive(Clone, Debug)]
pub struct ExactSegHit {
    pub t: Q,
    pub s: Q,
    pub collinear: bool,
}

/// The first point where the ray meets the segment, if it does.
pub fn ray_segment(ray: &QRay, g: &QSeg) -> Option<ExactSegHit> {
    let (ex, ey) = (&g.x1 - &g.x0, &g.y1 - &g.y0);
    let (wx, wy) = (&g.x0 - &ray.ox, &g.y0 - &ray.oy);
    let den = cross(&ray.dx, &ray.dy, &ex, &ey);
    let sn = cross(&wx, &wy, &ray.dx, &ray.dy);
    if !den.is_zero() {
        let t = cross(&wx, &wy, &ex, &ey) / &den;
        let s = sn / &den;
        let on_seg = !s.is_negative() && s <= Q::one();
        return (on_seg && ray.within(&t)).then_some(ExactSegHit {
            t,
            s,
            collinear: false,
        });
    }
    if !sn.is_zero() {
        return None; // parallel, not collinear
    }
    let dd = &ray.dx * &ray.dx + &ray.dy * &ray.dy;
    let ta = (&wx * &ray.dx + &wy * &ray.dy) / &dd;
    let (ux, uy) = (&g.x1 - &ray.ox, &g.y1 - &ray.oy);
    let tb = (&ux * &ray.dx + &uy * &ray.dy) / &dd;
    let (lo, hi, a_first) = if ta <= tb {
        (ta.clone(), tb.clone(), true)
    } else {
        (tb.clone(), ta.clone(), false)
    };
    if hi.is_negative() || ray.t_max.as_ref().is_some_and(|m| &lo > m) {
        return None;
    }
    if !lo.is_negative() {
        let s = if a_first { Q::zero() } else { Q::one() };
        return Some(ExactSegHit {
            t: lo,
            s,
            collinear: true,
        });
    }
    // The origin lies on the segment.
    let ee = &ex * &ex + &ey * &ey;
    let s = -(&wx * &ex + &wy * &ey) / ee;
    Some(ExactSegHit {
        t: Q::zero(),
        s,
        collinear: true,
    })
}

// ---------------------------------------------------------------- convex polygons

/// An exact point.
pub type QPoint = (Q, Q);

/// A convex polygon's edges, exact, each with the interior on its left, in input edge order.
#[derive(Clone, Debug)]
pub struct QPoly {
    /// `(input edge index, A, B)` with the interior left of `A → B`.
    pub edges: Vec<(u32, QPoint, QPoint)>,
}

impl QPoly {
    /// From the input vertices (already accepted by `ConvexPolygon::new`).
    pub fn new<F: Real>(vertices: &[(F, F)]) -> QPoly {
        let n = vertices.len();
        let v: Vec<QPoint> = vertices.iter().map(|&(x, y)| (q(x), q(y))).collect();
        let mut area2 = Q::zero();
        for i in 0..n {
            let (a, b) = (&v[i], &v[(i + 1) % n]);
            area2 += &a.0 * &b.1 - &a.1 * &b.0;
        }
        let ccw = area2.is_positive();
        let edges = (0..n)
            .filter(|&i| v[i] != v[(i + 1) % n])
            .map(|i| {
                let (a, b) = (v[i].clone(), v[(i + 1) % n].clone());
                if ccw {
                    (i as u32, a, b)
                } else {
                    (i as u32, b, a)
                }
            })
            .collect();
        QPoly { edges }
    }

    /// `E × (P − A)` for edge `k`: `≥ 0` inside.
    pub fn side(&self, k: usize, x: &Q, y: &Q) -> Q {
        let (_, a, b) = &self.edges[k];
        cross(&(&b.0 - &a.0), &(&b.1 - &a.1), &(x - &a.0), &(y - &a.1))
    }

    /// `E × D`: the rate of [`QPoly::side`] along `D`.
    pub fn rate(&self, k: usize, dx: &Q, dy: &Q) -> Q {
        let (_, a, b) = &self.edges[k];
        cross(&(&b.0 - &a.0), &(&b.1 - &a.1), dx, dy)
    }

    pub fn contains(&self, x: &Q, y: &Q) -> bool {
        (0..self.edges.len()).all(|k| !self.side(k, x, y).is_negative())
    }
}

/// The exact ray × polygon answer: the clip of `[0, t_max]` by every half-plane.
#[derive(Clone, Debug)]
pub struct ExactRayPoly {
    pub inside: bool,
    /// `max(0, entering t)`; the input indices of the edges attaining it (empty for 0).
    pub entry: Q,
    pub entry_edges: Vec<(u32, Q)>,
    /// `min(exiting t)` (None: unbounded); every exiting edge with its t.
    pub exit: Option<Q>,
    pub exit_edges: Vec<(u32, Q)>,
    /// An edge whose half-plane the ray never reaches.
    pub sure_miss: bool,
    /// The ray (origin outside) enters the polygon within `[0, t_max]`.
    pub hit: bool,
}

pub fn ray_polygon(p: &QPoly, ray: &QRay) -> ExactRayPoly {
    let mut inside = true;
    let mut sure_miss = false;
    let mut entering = Vec::new();
    let mut exiting = Vec::new();
    for k in 0..p.edges.len() {
        let f0 = p.side(k, &ray.ox, &ray.oy);
        let fd = p.rate(k, &ray.dx, &ray.dy);
        let idx = p.edges[k].0;
        if f0.is_negative() {
            inside = false;
            if fd.is_positive() {
                entering.push((idx, -&f0 / &fd));
            } else {
                sure_miss = true;
            }
        } else if fd.is_negative() {
            exiting.push((idx, -&f0 / &fd));
        }
    }
    let entry = entering
        .iter()
        .map(|(_, t)| t.clone())
        .fold(Q::zero(), |a, t| if t > a { t } else { a });
    let exit = exiting.iter().map(|(_, t)| t.clone()).min();
    let hit =
        !inside && !sure_miss && exit.as_ref().is_none_or(|x| &entry <= x) && ray.within(&entry);
    ExactRayPoly {
        inside,
        entry,
        entry_edges: entering,
        exit,
        exit_edges: exiting,
        sure_miss,
        hit,
    }
}

/// The exact Cyrus–Beck clip of a segment by the polygon, as SPEC §1 defines it.
#[derive(Clone, Debug)]
pub struct ExactPolyClip {
    pub p0_in: bool,
    pub p1_in: bool,
    pub entry: Q,
    pub exit: Q,
    pub class: Class,
    /// The smallest |entry − exit| gap is a graze.
    pub sure_miss: bool,
}

pub fn segment_polygon(p: &QPoly, g: &QSeg) -> ExactPolyClip {
    let mut entry = Q::zero();
    let mut exit = Q::one();
    let (mut p0_in, mut p1_in, mut sure_miss) = (true, true, false);
    for k in 0..p.edges.len() {
        let f0 = p.side(k, &g.x0, &g.y0);
        let f1 = p.side(k, &g.x1, &g.y1);
        let (o0, o1) = (f0.is_negative(), f1.is_negative());
        p0_in &= !o0;
        p1_in &= !o1;
        if o0 && o1 {
            sure_miss = true;
        } else if o0 != o1 {
            let t = &f0 / (&f0 - &f1);
            if o0 && t > entry {
                entry = t;
            } else if o1 && t < exit {
                exit = t;
            }
        }
    }
    let class = class_of(sure_miss, &entry, &exit);
    ExactPolyClip {
        p0_in,
        p1_in,
        entry,
        exit,
        class,
        sure_miss,
    }
}

// ---------------------------------------------------------------- rounding bounds

/// `ε` of `F` (the spacing above 1) as a rational.
pub fn eps<F: Real>() -> Q {
    (Q::one() - q(F::ONE_BELOW)) * Q::from_integer(2.into())
}

/// `|x| + |y|`.
pub fn l1(x: &Q, y: &Q) -> Q {
    x.abs() + y.abs()
}

/// The bound on the rounding error of a float cross product `a × b` whose factors are
/// themselves rounded differences (each off by at most `ε/2` relative): `K·ε·|a|₁·|b|₁` with a
/// generous `K = 8`.
pub fn cross_bound<F: Real>(a: (&Q, &Q), b: (&Q, &Q)) -> Q {
    eps::<F>() * Q::from_integer(8.into()) * l1(a.0, a.1) * l1(b.0, b.1)
}

/// The error bound of a quotient `n / d` of two numbers known to within `bn`, `bd`
/// (`|d| > bd`), plus the final rounding, in absolute terms.
pub fn quotient_bound<F: Real>(n: &Q, d: &Q, bn: &Q, bd: &Q) -> Q {
    let t = (n / d).abs();
    (bn + &t * bd) / (d.abs() - bd) + eps::<F>() * t * Q::from_integer(2.into())
}

/// The rounding bound of the float `E × (P − V)` for edge `k`, whichever end of the edge the
/// kernel takes as `V` (the input's start vertex, which is `B` here for a clockwise input).
pub fn side_bound<F: Real>(p: &QPoly, k: usize, x: &Q, y: &Q) -> Q {
    let (_, a, b) = &p.edges[k];
    let (ex, ey) = (&b.0 - &a.0, &b.1 - &a.1);
    let wa = l1(&(x - &a.0), &(y - &a.1));
    let wb = l1(&(x - &b.0), &(y - &b.1));
    let w = if wa > wb { wa } else { wb };
    cross_bound::<F>((&ex, &ey), (&w, &Q::zero()))
}
