//! Visibility polygons (SPEC §2) against a slow, obviously right reference.
//!
//! The reference decides, for one point `P`, whether some wall meets the segment `O → P` before
//! `P`, with exact orientation predicates on the input coordinates (rationals where `robust`'s
//! range ends). Every polygon is checked for:
//! * shape: at least three finite vertices, none repeated consecutively, no three consecutive
//!   on a line, counter-clockwise (exact signed area), simple (no two edges meet but
//!   neighbours at their shared vertex);
//! * vertices: each is an input point bit for bit (a wall endpoint, a rect corner), or lies
//!   within its allowed error of an exact made point: a crossing of two walls or of a wall and
//!   the rect's boundary, or where the ray from `O` through an input or made point meets a
//!   wall or an edge; the error allowed is a few ulps of the coordinates involved over the sine
//!   of the angle of the two lines (plus, for a ray through a made point, that point's error
//!   carried along the ray);
//! * region: sample points at random and at small offsets around every vertex, edge and wall
//!   endpoint are inside the polygon exactly when the reference sees them, except within the
//!   vertices' error of the boundary and on the measure-zero rays through input points, where
//!   the closure of the interior and the visible set differ by definition.

use crate::common;
use num_traits::{Signed, ToPrimitive, Zero};
use proptest::prelude::*;
use slabclip::reference::{q, Q};
use slabclip::{
    visibility_polygon, visibility_polygons, Real, Rect, Segment, Segments, VisibilityScratch,
    VisibilityWalls,
};

type P = (f64, f64);

// ------------------------------------------------------------------ exact predicates

fn safe(v: f64) -> bool {
    let a = v.abs();
    a == 0.0 || (1e-90..=1e140).contains(&a)
}

/// The sign of `(b − a) × (c − a)`, exactly.
fn orient(a: P, b: P, c: P) -> i8 {
    if [a.0, a.1, b.0, b.1, c.0, c.1].into_iter().all(safe) {
        let r = robust::orient2d(
            robust::Coord { x: a.0, y: a.1 },
            robust::Coord { x: b.0, y: b.1 },
            robust::Coord { x: c.0, y: c.1 },
        );
        return if r > 0.0 {
            1
        } else if r < 0.0 {
            -1
        } else {
            0
        };
    }
    let d = (q(b.0) - q(a.0)) * (q(c.1) - q(a.1)) - (q(b.1) - q(a.1)) * (q(c.0) - q(a.0));
    if d.is_positive() {
        1
    } else if d.is_negative() {
        -1
    } else {
        0
    }
}

/// Whether `p`, on the line of `a b`, lies on the closed segment.
fn on_closed(a: P, b: P, p: P) -> bool {
    a.0.min(b.0) <= p.0 && p.0 <= a.0.max(b.0) && a.1.min(b.1) <= p.1 && p.1 <= a.1.max(b.1)
}

/// Whether the closed segments `a b` and `c d` meet.
fn meet(a: P, b: P, c: P, d: P) -> bool {
    let (d1, d2) = (orient(a, b, c), orient(a, b, d));
    let (d3, d4) = (orient(c, d, a), orient(c, d, b));
    if d1 * d2 > 0 || d3 * d4 > 0 {
        return false;
    }
    if d1 == 0 && d2 == 0 {
        // Collinear: overlapping boxes.
        return a.0.min(b.0) <= c.0.max(d.0)
            && c.0.min(d.0) <= a.0.max(b.0)
            && a.1.min(b.1) <= c.1.max(d.1)
            && c.1.min(d.1) <= a.1.max(b.1);
    }
    true
}

/// The reference: `p` is a point of the closed rect and no finite wall meets `o → p` at a
/// point other than `p`.
fn visible(o: P, p: P, rect: [f64; 4], walls: &[(P, P)]) -> bool {
    if !(rect[0] <= p.0 && p.0 <= rect[2] && rect[1] <= p.1 && p.1 <= rect[3]) {
        return false;
    }
    for &(a, b) in walls {
        if a == b {
            if orient(o, p, a) == 0 && on_closed(o, p, a) && a != p {
                return false;
            }
            continue;
        }
        let (o1, o2) = (orient(o, p, a), orient(o, p, b));
        let (o3, o4) = (orient(a, b, o), orient(a, b, p));
        if o1 * o2 > 0 || o3 * o4 > 0 {
            continue;
        }
        if o1 == 0 && o2 == 0 {
            // Along the line o → p: the overlap of [o, p] and [a, b] by the larger axis.
            let ax = (p.0 - o.0).abs() >= (p.1 - o.1).abs();
            let k = |v: P| if ax { v.0 } else { v.1 };
            let (lo, hi) = (
                k(a).min(k(b)).max(k(o).min(k(p))),
                k(a).max(k(b)).min(k(o).max(k(p))),
            );
            if lo < hi || (lo == hi && lo != k(p)) {
                return false;
            }
            continue;
        }
        // One point in common; it is `p` exactly when `p` is on the wall's line.
        if o4 != 0 {
            return false;
        }
    }
    true
}

/// Whether `o` lies on a finite wall (a viewpoint error).
fn on_a_wall(o: P, walls: &[(P, P)]) -> bool {
    walls
        .iter()
        .any(|&(a, b)| orient(a, b, o) == 0 && on_closed(a, b, o))
}

/// Point in polygon (closed), exactly: winding by crossings with exact orientation.
fn inside(poly: &[P], p: P) -> bool {
    let n = poly.len();
    let mut wn = 0i32;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let o = orient(a, b, p);
        if o == 0 && on_closed(a, b, p) {
            return true;
        }
        if a.1 <= p.1 {
            if b.1 > p.1 && o > 0 {
                wn += 1;
            }
        } else if b.1 <= p.1 && o < 0 {
            wn -= 1;
        }
    }
    wn != 0
}

fn seg_dist(a: P, b: P, p: P) -> f64 {
    // Scaled by the largest difference, so that no square overflows or underflows.
    let k = [b.0 - a.0, b.1 - a.1, p.0 - a.0, p.1 - a.1]
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    if k == 0.0 || !k.is_finite() {
        return (p.0 - a.0).hypot(p.1 - a.1);
    }
    let (dx, dy) = ((b.0 - a.0) / k, (b.1 - a.1) / k);
    let (px, py) = ((p.0 - a.0) / k, (p.1 - a.1) / k);
    let l2 = dx * dx + dy * dy;
    let t = if l2 > 0.0 {
        ((px * dx + py * dy) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (t * dx - px).hypot(t * dy - py) * k
}

fn boundary_dist(poly: &[P], p: P) -> f64 {
    (0..poly.len())
        .map(|i| seg_dist(poly[i], poly[(i + 1) % poly.len()], p))
        .fold(f64::INFINITY, f64::min)
}

// ------------------------------------------------------------------ made points

/// A line of the scene: a wall of positive length or an edge of the rect.
#[derive(Clone, Copy)]
struct Line {
    a: P,
    b: P,
    /// The largest error of a made point on it (a crossing, a cut by the rect): how far its
    /// pieces may lean off it.
    lean: f64,
}

/// A point the polygon may hold: exact (rational) with its allowed error.
#[derive(Clone)]
struct Made {
    x: Q,
    y: Q,
    approx: P,
    bound: f64,
}

fn mag(points: &[P]) -> f64 {
    points
        .iter()
        .map(|p| p.0.abs().max(p.1.abs()))
        .fold(0.0, f64::max)
}

/// `w` scaled by its largest component (no product of two overflows or underflows).
fn unit(w: P) -> P {
    let k = w.0.abs().max(w.1.abs());
    (w.0 / k, w.1 / k)
}

fn sine(u: P, v: P) -> f64 {
    let (u, v) = (unit(u), unit(v));
    let c = (u.0 * v.1 - u.1 * v.0).abs();
    let l = u.0.hypot(u.1) * v.0.hypot(v.1);
    (c / l).max(1e-300)
}

/// `ε` of `F` and the ulps allowed.
fn eps<F: Real>() -> f64 {
    if core::mem::size_of::<F>() == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}
const ULPS: f64 = 16.0;

/// A few of `F`'s smallest subnormals: the floor of every error bound (rounding to `F` near
/// zero).
fn floor_of<F: Real>() -> f64 {
    if core::mem::size_of::<F>() == 4 {
        4.0 * f32::from_bits(1) as f64
    } else {
        4.0 * f64::from_bits(1)
    }
}

fn qdist(x: &Q, y: &Q, p: P) -> f64 {
    let dx = (x - q(p.0)).to_f64().unwrap_or(f64::INFINITY);
    let dy = (y - q(p.1)).to_f64().unwrap_or(f64::INFINITY);
    dx.hypot(dy)
}

/// Where the lines of two segments meet, strictly inside both (a proper crossing).
fn crossing(l: &Line, m: &Line) -> Option<(Q, Q)> {
    let (d1, d2) = (orient(l.a, l.b, m.a), orient(l.a, l.b, m.b));
    let (d3, d4) = (orient(m.a, m.b, l.a), orient(m.a, m.b, l.b));
    if !(d1 * d2 < 0 && d3 * d4 < 0) {
        return None;
    }
    let cr = |a: P, b: P, c: P| {
        (q(b.0) - q(a.0)) * (q(c.1) - q(a.1)) - (q(b.1) - q(a.1)) * (q(c.0) - q(a.0))
    };
    let da = cr(m.a, m.b, l.a);
    let db = cr(m.a, m.b, l.b);
    let s = &da / (&da - &db);
    Some((
        q(l.a.0) + &s * (q(l.b.0) - q(l.a.0)),
        q(l.a.1) + &s * (q(l.b.1) - q(l.a.1)),
    ))
}

struct Scene {
    o: P,
    rect: [f64; 4],
    /// Finite walls, zero length included.
    walls: Vec<(P, P)>,
    lines: Vec<Line>,
    /// Input points: wall endpoints and corners.
    inputs: Vec<P>,
    /// Level-1 made points (crossings, cuts by the rect).
    made1: Vec<Made>,
}

impl Scene {
    fn new<F: Real>(o: (F, F), rect: &Rect<F>, walls: &[Segment<F>]) -> Scene {
        let r = [
            rect.xmin().to_f64(),
            rect.ymin().to_f64(),
            rect.xmax().to_f64(),
            rect.ymax().to_f64(),
        ];
        let walls: Vec<(P, P)> = walls
            .iter()
            .filter(|s| s.is_finite())
            .map(|s| {
                (
                    (s.x0.to_f64(), s.y0.to_f64()),
                    (s.x1.to_f64(), s.y1.to_f64()),
                )
            })
            .collect();
        let corners = [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])];
        let mut lines: Vec<Line> = walls
            .iter()
            .filter(|(a, b)| a != b)
            .map(|&(a, b)| Line { a, b, lean: 0.0 })
            .collect();
        for k in 0..4 {
            lines.push(Line {
                a: corners[k],
                b: corners[(k + 1) % 4],
                lean: 0.0,
            });
        }
        let mut inputs: Vec<P> = walls.iter().flat_map(|&(a, b)| [a, b]).collect();
        inputs.extend(corners);
        let e = eps::<F>();
        let mut made1 = Vec::new();
        for i in 0..lines.len() {
            for j in i + 1..lines.len() {
                let (l, m) = (lines[i], lines[j]);
                if let Some((x, y)) = crossing(&l, &m) {
                    let approx = (x.to_f64().unwrap(), y.to_f64().unwrap());
                    let s = mag(&[l.a, l.b, m.a, m.b]);
                    let sin = sine(
                        (l.b.0 - l.a.0, l.b.1 - l.a.1),
                        (m.b.0 - m.a.0, m.b.1 - m.a.1),
                    );
                    let bound = ULPS * e * s / sin + floor_of::<F>();
                    lines[i].lean = lines[i].lean.max(bound);
                    lines[j].lean = lines[j].lean.max(bound);
                    made1.push(Made {
                        x,
                        y,
                        approx,
                        bound,
                    });
                }
            }
        }
        Scene {
            o: (o.0.to_f64(), o.1.to_f64()),
            rect: r,
            walls,
            lines,
            inputs,
            made1,
        }
    }

    /// The allowed error of vertex `v` if it is a made point (the smallest bound among the
    /// exact made points it is close enough to), or `None`.
    fn made_bound<F: Real>(&self, v: P) -> Option<f64> {
        let e = eps::<F>();
        let mut best: Option<f64> = None;
        let mut take = |b: f64| best = Some(best.map_or(b, |c: f64| c.min(b)));
        for m in &self.made1 {
            let rough = (m.approx.0 - v.0).hypot(m.approx.1 - v.1);
            if rough <= 2.0 * m.bound + 1e-300 && qdist(&m.x, &m.y, v) <= m.bound {
                take(m.bound);
            }
        }
        // Rays from o through input points and level-1 points, meeting a line.
        let o = self.o;
        let zs = self
            .inputs
            .iter()
            .map(|&p| (p, None, 0.0))
            .chain(self.made1.iter().map(|m| (m.approx, Some(m), m.bound)));
        let near_lines: Vec<&Line> = self
            .lines
            .iter()
            .filter(|l| {
                let s = mag(&[l.a, l.b, o, v]);
                seg_dist(l.a, l.b, v) <= 1e-3 * s.max(1e-300) + l.lean
            })
            .collect();
        if near_lines.is_empty() {
            return best;
        }
        let vo = (v.0 - o.0, v.1 - o.1);
        for (z, zq, zb) in zs {
            let zo = (z.0 - o.0, z.1 - o.1);
            let (zn, vn) = (unit(zo), unit(vo));
            if zo == (0.0, 0.0) || zn.0 * vn.0 + zn.1 * vn.1 <= 0.0 {
                continue;
            }
            if sine(zo, vo) > 1e-3 {
                continue;
            }
            let (zx, zy) = match zq {
                Some(m) => (m.x.clone(), m.y.clone()),
                None => (q(z.0), q(z.1)),
            };
            for l in &near_lines {
                let d = (l.b.0 - l.a.0, l.b.1 - l.a.1);
                let sin = sine(zo, d);
                // The exact cut of the ray o → z with the line.
                let (ox, oy) = (q(o.0), q(o.1));
                let (rx, ry) = (&zx - &ox, &zy - &oy);
                let (dx, dy) = (q(d.0), q(d.1));
                let den = &rx * &dy - &ry * &dx;
                if den.is_zero() {
                    continue;
                }
                let (ax, ay) = (q(l.a.0) - &ox, q(l.a.1) - &oy);
                let t = (&ax * &dy - &ay * &dx) / &den;
                if !t.is_positive() {
                    continue;
                }
                let x = &ox + &t * &rx;
                let y = &oy + &t * &ry;
                let xo = (v.0 - o.0).hypot(v.1 - o.1);
                let zd = zo.0.hypot(zo.1);
                let s = mag(&[o, z, l.a, l.b]);
                let bound = ULPS * e * s / sin + (zb * xo / zd + l.lean) / sin + floor_of::<F>();
                if qdist(&x, &y, v) <= bound {
                    take(bound);
                }
            }
        }
        best
    }
}

// ------------------------------------------------------------------ the checker

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The polygon's shape: finite, no repeats, no collinear triples, counter-clockwise, simple.
fn check_shape(poly: &[P]) -> Result<(), String> {
    let n = poly.len();
    if n < 3 {
        return Err(format!("{n} vertices"));
    }
    if poly.iter().any(|p| !(p.0.is_finite() && p.1.is_finite())) {
        return Err("a vertex is not finite".into());
    }
    for i in 0..n {
        let (a, b, c) = (poly[i], poly[(i + 1) % n], poly[(i + 2) % n]);
        if a == b {
            return Err(format!("vertex {i} repeated: {a:?}"));
        }
        if orient(a, b, c) == 0 {
            return Err(format!("vertices {i}.. on a line: {a:?} {b:?} {c:?}"));
        }
    }
    let mut area = Q::zero();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        area += q(a.0) * q(b.1) - q(a.1) * q(b.0);
    }
    if !area.is_positive() {
        return Err("not counter-clockwise".into());
    }
    for i in 0..n {
        for j in i + 1..n {
            let adjacent = j == i + 1 || (i == 0 && j == n - 1);
            if adjacent {
                continue;
            }
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            let (c, d) = (poly[j], poly[(j + 1) % n]);
            if meet(a, b, c, d) {
                return Err(format!("edges {i} and {j} meet: not simple"));
            }
        }
    }
    Ok(())
}

/// Everything the contract says about `poly`, the polygon of `o`; `extra` sample points too.
fn check_polygon<F: Real>(
    o: (F, F),
    rect: &Rect<F>,
    walls: &[Segment<F>],
    poly: &[(F, F)],
    samples: usize,
) -> Result<(), String> {
    let scene = Scene::new(o, rect, walls);
    let poly: Vec<P> = poly
        .iter()
        .map(|&(x, y)| (x.to_f64(), y.to_f64()))
        .collect();
    check_shape(&poly)?;
    let e = eps::<F>();
    let extent = (scene.rect[2] - scene.rect[0]).max(scene.rect[3] - scene.rect[1]);
    let scale = mag(&[
        scene.o,
        (scene.rect[0], scene.rect[1]),
        (scene.rect[2], scene.rect[3]),
    ]);
    let mut margin = ULPS * e * scale + floor_of::<F>();
    for &v in &poly {
        if scene.inputs.contains(&v) {
            continue;
        }
        match scene.made_bound::<F>(v) {
            Some(b) => margin = margin.max(b),
            None => {
                return Err(format!(
                    "vertex {v:?} is neither an input point nor a made point"
                ))
            }
        }
    }
    let margin = 2.0 * margin;
    // Sample points.
    let mut pts: Vec<P> = vec![scene.o];
    let mut rng = Rng(poly.len() as u64 ^ scene.o.0.to_bits().rotate_left(7) ^ scene.o.1.to_bits());
    let r = scene.rect;
    for _ in 0..samples {
        pts.push((
            r[0] + rng.unit() * (r[2] - r[0]),
            r[1] + rng.unit() * (r[3] - r[1]),
        ));
    }
    let radii = [4.0 * margin, 1e-4 * extent, 1e-2 * extent];
    let dirs: Vec<P> = (0..8)
        .map(|k| {
            let a = 0.39 + k as f64 * core::f64::consts::FRAC_PI_4;
            (a.cos(), a.sin())
        })
        .collect();
    let around = |c: P, pts: &mut Vec<P>| {
        for &rad in &radii {
            for d in &dirs {
                pts.push((c.0 + rad * d.0, c.1 + rad * d.1));
            }
        }
    };
    for &v in &poly {
        around(v, &mut pts);
    }
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        around(((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0), &mut pts);
    }
    for &p in &scene.inputs {
        around(p, &mut pts);
    }
    let mut checked = 0;
    for &p in &pts {
        if !(p.0.is_finite() && p.1.is_finite()) {
            continue;
        }
        if boundary_dist(&poly, p) <= margin {
            continue;
        }
        // The rays through input points (and points on them) are where the visible set and
        // the closure of its interior differ.
        if p != scene.o && scene.inputs.iter().any(|&z| orient(scene.o, p, z) == 0) {
            continue;
        }
        let want = visible(scene.o, p, scene.rect, &scene.walls);
        let got = inside(&poly, p);
        if want != got {
            return Err(format!(
                "point {p:?}: reference says visible = {want}, polygon says inside = {got} \
                 (margin {margin:e}, {} vertices: {poly:?})",
                poly.len()
            ));
        }
        checked += 1;
    }
    if checked < samples / 4 {
        return Err(format!("only {checked} sample points decided"));
    }
    Ok(())
}

/// The polygon of `o` checked against the contract, or the error checked to be right.
fn run<F: Real>(
    o: (F, F),
    rect: &Rect<F>,
    walls: &[Segment<F>],
    samples: usize,
) -> Result<(), String> {
    let segs = Segments::from_rows(walls);
    let got = visibility_polygon(o, rect, &segs.as_ref());
    let scene = Scene::new(o, rect, walls);
    let strictly_in =
        rect.xmin() < o.0 && o.0 < rect.xmax() && rect.ymin() < o.1 && o.1 < rect.ymax();
    let bad = !strictly_in || on_a_wall(scene.o, &scene.walls);
    match got {
        Err(err) if bad => {
            let _ = err.to_string();
            Ok(())
        }
        Err(err) => Err(format!("unexpected error: {err}")),
        Ok(p) if bad => Err(format!("a polygon for a bad viewpoint: {p:?}")),
        Ok(p) => check_polygon(o, rect, walls, &p, samples),
    }
}

fn segs<F: Real>(w: &[[f64; 4]]) -> Vec<Segment<F>> {
    w.iter()
        .map(|s| {
            Segment::new(
                F::from_f64(s[0]),
                F::from_f64(s[1]),
                F::from_f64(s[2]),
                F::from_f64(s[3]),
            )
        })
        .collect()
}

fn rect<F: Real>(r: [f64; 4]) -> Rect<F> {
    Rect::new(
        F::from_f64(r[0]),
        F::from_f64(r[1]),
        F::from_f64(r[2]),
        F::from_f64(r[3]),
    )
    .unwrap()
}

fn poly_of<F: Real>(o: (f64, f64), r: [f64; 4], w: &[[f64; 4]]) -> Vec<(F, F)> {
    let walls = Segments::from_rows(&segs::<F>(w));
    visibility_polygon(
        (F::from_f64(o.0), F::from_f64(o.1)),
        &rect(r),
        &walls.as_ref(),
    )
    .unwrap()
}

fn f64s<F: Real>(p: &[(F, F)]) -> Vec<P> {
    p.iter().map(|&(x, y)| (x.to_f64(), y.to_f64())).collect()
}

/// The named case: the polygon checked, then equal to `want` (input points bit for bit, made
/// points within two ulps).
fn named<F: Real>(o: (f64, f64), r: [f64; 4], w: &[[f64; 4]], want: &[P]) {
    let of = (F::from_f64(o.0), F::from_f64(o.1));
    let walls = segs::<F>(w);
    let rr = rect::<F>(r);
    run(of, &rr, &walls, 400).unwrap_or_else(|e| panic!("{} {o:?} {w:?}: {e}", F::DTYPE));
    let got = f64s(&poly_of::<F>(o, r, w));
    assert_eq!(
        got.len(),
        want.len(),
        "{}: {got:?} against {want:?}",
        F::DTYPE
    );
    for (g, w) in got.iter().zip(want) {
        let close = |a: f64, b: f64| (a - b).abs() <= 2.0 * eps::<F>() * b.abs();
        let w = (F::from_f64(w.0).to_f64(), F::from_f64(w.1).to_f64());
        assert!(
            close(g.0, w.0) && close(g.1, w.1),
            "{}: {got:?} against {want:?}",
            F::DTYPE
        );
    }
}

fn both(o: (f64, f64), r: [f64; 4], w: &[[f64; 4]], want: &[P]) {
    named::<f32>(o, r, w, want);
    named::<f64>(o, r, w, want);
}

const R10: [f64; 4] = [0.0, 0.0, 10.0, 10.0];
const RECT_ONLY: [P; 4] = [(10.0, 10.0), (0.0, 10.0), (0.0, 0.0), (10.0, 0.0)];

// ------------------------------------------------------------------ named cases

#[test]
fn no_walls_is_the_rect() {
    both((5.0, 5.0), R10, &[], &RECT_ONLY);
    both((0.5, 9.5), R10, &[], &RECT_ONLY);
}

#[test]
fn a_ray_grazes_a_wall_endpoint() {
    // The endpoint (6, 5) lies on the ray +x from the viewpoint.
    both(
        (5.0, 5.0),
        R10,
        &[[6.0, 5.0, 6.0, 8.0]],
        &[
            (10.0, 5.0),
            (6.0, 5.0),
            (6.0, 8.0),
            (5.0 + 5.0 / 3.0, 10.0),
            (0.0, 10.0),
            (0.0, 0.0),
            (10.0, 0.0),
        ],
    );
}

#[test]
fn a_closed_room_and_a_doorway() {
    let room = [
        [3.0, 3.0, 7.0, 3.0],
        [7.0, 3.0, 7.0, 7.0],
        [7.0, 7.0, 3.0, 7.0],
        [3.0, 7.0, 3.0, 3.0],
    ];
    both(
        (5.0, 5.0),
        R10,
        &room,
        &[(7.0, 7.0), (3.0, 7.0), (3.0, 3.0), (7.0, 3.0)],
    );
    // Walls given in any direction and order; the room seen from off-centre.
    let mut shuffled = room;
    shuffled.swap(0, 2);
    shuffled[1] = [7.0, 7.0, 7.0, 3.0];
    both(
        (4.0, 6.5),
        R10,
        &shuffled,
        &[(7.0, 7.0), (3.0, 7.0), (3.0, 3.0), (7.0, 3.0)],
    );
    let door = [
        [3.0, 3.0, 7.0, 3.0],
        [7.0, 3.0, 7.0, 7.0],
        [7.0, 7.0, 3.0, 7.0],
        [3.0, 7.0, 3.0, 6.0],
        [3.0, 4.0, 3.0, 3.0],
    ];
    both(
        (5.0, 5.0),
        R10,
        &door,
        &[
            (7.0, 7.0),
            (3.0, 7.0),
            (3.0, 6.0),
            (0.0, 7.5),
            (0.0, 2.5),
            (3.0, 4.0),
            (3.0, 3.0),
            (7.0, 3.0),
        ],
    );
}

#[test]
fn crossing_walls() {
    let x = [[2.0, 2.0, 8.0, 8.0], [2.0, 8.0, 8.0, 2.0]];
    both(
        (5.0, 3.0),
        R10,
        &x,
        &[
            (5.0, 5.0),
            (2.0, 2.0),
            (0.0, 4.0 / 3.0),
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 4.0 / 3.0),
            (8.0, 2.0),
        ],
    );
    // Crossing at a point no float holds, seen from each of the four wedges.
    let x = [[1.0, 1.0, 9.0, 8.0], [1.0, 9.0, 8.0, 2.0]];
    for o in [(5.0, 2.0), (8.0, 5.0), (5.0, 8.0), (2.0, 5.0)] {
        for_both(o, R10, &x);
    }
}

fn for_both(o: (f64, f64), r: [f64; 4], w: &[[f64; 4]]) {
    let (o32, o64) = ((o.0 as f32, o.1 as f32), o);
    run(o32, &rect::<f32>(r), &segs::<f32>(w), 400)
        .unwrap_or_else(|e| panic!("f32 {o:?} {w:?}: {e}"));
    run(o64, &rect::<f64>(r), &segs::<f64>(w), 400)
        .unwrap_or_else(|e| panic!("f64 {o:?} {w:?}: {e}"));
}

#[test]
fn walls_collinear_with_the_viewpoint_or_of_zero_length_leave_no_spike() {
    both((5.0, 5.0), R10, &[[6.0, 5.0, 8.0, 5.0]], &RECT_ONLY);
    both((5.0, 5.0), R10, &[[7.0, 9.0, 6.0, 7.0]], &RECT_ONLY);
    both((5.0, 5.0), R10, &[[7.0, 7.0, 7.0, 7.0]], &RECT_ONLY);
    both(
        (5.0, 5.0),
        R10,
        &[
            [2.0, 2.0, 1.0, 1.0],
            [7.0, 7.0, 7.0, 7.0],
            [5.0, 0.0, 5.0, 4.0],
        ],
        &RECT_ONLY,
    );
    // A collinear wall ending on another wall: the other's shadow only.
    both(
        (5.0, 5.0),
        R10,
        &[[6.0, 5.0, 8.0, 5.0], [8.0, 4.0, 8.0, 6.0]],
        &[
            (8.0, 6.0),
            (10.0, 20.0 / 3.0),
            (10.0, 10.0),
            (0.0, 10.0),
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 10.0 / 3.0),
            (8.0, 4.0),
        ],
    );
}

#[test]
fn walls_partly_outside_and_endpoints_on_the_boundary() {
    both(
        (5.0, 5.0),
        R10,
        &[[-5.0, 8.0, 15.0, 8.0]],
        &[(10.0, 8.0), (0.0, 8.0), (0.0, 0.0), (10.0, 0.0)],
    );
    both(
        (5.0, 5.0),
        R10,
        &[[10.0, 8.0, 6.0, 8.0]],
        &[
            (10.0, 8.0),
            (6.0, 8.0),
            (5.0 + 5.0 / 3.0, 10.0),
            (0.0, 10.0),
            (0.0, 0.0),
            (10.0, 0.0),
        ],
    );
    // Walls along the boundary, on it from outside, and wholly outside: nothing hidden.
    both(
        (5.0, 5.0),
        R10,
        &[
            [0.0, 2.0, 0.0, 8.0],
            [-3.0, 10.0, 13.0, 10.0],
            [10.0, 5.0, 14.0, 5.0],
            [11.0, 0.0, 12.0, 9.0],
            [-1.0, 9.0, 1.0, 11.0],
        ],
        &RECT_ONLY,
    );
    // Cuts by the rect at points no float holds.
    for_both(
        (5.0, 5.0),
        R10,
        &[
            [-1.0, 7.0, 11.0, 9.7],
            [3.3, -0.7, 2.9, 3.1],
            [9.1, 0.3, 10.7, 1.9],
        ],
    );
}

#[test]
fn non_finite_walls_are_ignored() {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    both(
        (5.0, 5.0),
        R10,
        &[
            [nan, 1.0, 2.0, 3.0],
            [1.0, 1.0, inf, 9.0],
            [-inf, 5.0, inf, 5.0],
            [10.0, 8.0, 6.0, 8.0],
        ],
        &[
            (10.0, 8.0),
            (6.0, 8.0),
            (5.0 + 5.0 / 3.0, 10.0),
            (0.0, 10.0),
            (0.0, 0.0),
            (10.0, 0.0),
        ],
    );
}

#[test]
fn huge_tiny_and_offset_coordinates() {
    let door = [
        [3.0, 3.0, 7.0, 3.0],
        [7.0, 3.0, 7.0, 7.0],
        [7.0, 7.0, 3.0, 7.0],
        [3.0, 7.0, 3.0, 6.0],
        [3.0, 4.0, 3.0, 3.0],
    ];
    let want = [
        (7.0, 7.0),
        (3.0, 7.0),
        (3.0, 6.0),
        (0.0, 7.5),
        (0.0, 2.5),
        (3.0, 4.0),
        (3.0, 3.0),
        (7.0, 3.0),
    ];
    let scaled = |k: f64| {
        let w: Vec<[f64; 4]> = door.iter().map(|s| s.map(|v| v * k)).collect();
        let want: Vec<P> = want.iter().map(|p| (p.0 * k, p.1 * k)).collect();
        (w, want)
    };
    for k in [2f64.powi(100), 2f64.powi(-100), 2f64.powi(60)] {
        let (w, want) = scaled(k);
        named::<f32>((5.0 * k, 5.0 * k), R10.map(|v| v * k), &w, &want);
    }
    for k in [
        2f64.powi(600),
        2f64.powi(-600),
        2f64.powi(1000),
        2f64.powi(-1000),
        2f64.powi(-1060),
    ] {
        let (w, want) = scaled(k);
        named::<f64>((5.0 * k, 5.0 * k), R10.map(|v| v * k), &w, &want);
    }
    // Not powers of two: the made points carry rounding, checked against their bounds.
    for k in [1e300, 1e-300, 3e30, 7e-30] {
        let w: Vec<[f64; 4]> = door.iter().map(|s| s.map(|v| v * k)).collect();
        run(
            (5.0 * k, 5.0 * k),
            &rect::<f64>(R10.map(|v| v * k)),
            &segs::<f64>(&w),
            300,
        )
        .unwrap_or_else(|e| panic!("scale {k}: {e}"));
    }
    for k in [3e30, 7e-30] {
        let w: Vec<[f64; 4]> = door.iter().map(|s| s.map(|v| v * k)).collect();
        run(
            ((5.0 * k) as f32, (5.0 * k) as f32),
            &rect::<f32>(R10.map(|v| v * k)),
            &segs::<f32>(&w),
            300,
        )
        .unwrap_or_else(|e| panic!("f32 scale {k}: {e}"));
    }
    // Far from the origin: a scene of size 1 at 1e6 (f32) and 1e12 (f64), walls crossing.
    let at = |c: f64| {
        let w: Vec<[f64; 4]> = [
            [0.1, 0.2, 0.9, 0.7],
            [0.15, 0.8, 0.85, 0.1],
            [0.3, 0.45, 0.6, 0.35],
        ]
        .iter()
        .map(|s| [s[0] + c, s[1] + c, s[2] + c, s[3] + c])
        .collect();
        (w, [c, c, c + 1.0, c + 1.0])
    };
    let (w, r) = at(1e6);
    run(
        (1e6f32 + 0.5, 1e6f32 + 0.125),
        &rect::<f32>(r),
        &segs::<f32>(&w),
        300,
    )
    .unwrap();
    let (w, r) = at(1e12);
    run(
        (1e12 + 0.5, 1e12 + 0.125),
        &rect::<f64>(r),
        &segs::<f64>(&w),
        300,
    )
    .unwrap();
    // A wall of huge extent crossing a small rect.
    for_both(
        (0.5, 0.5),
        [0.0, 0.0, 1.0, 1.0],
        &[[-1e30, -1e30 + 0.7, 1e30, 1e30 + 0.7], [0.2, 0.9, 0.8, 0.1]],
    );
}

#[test]
fn bad_viewpoints_and_bounds_are_errors() {
    let walls = Segments::from_rows(&segs::<f64>(&[[2.0, 2.0, 8.0, 8.0], [4.0, 1.0, 4.0, 1.0]]));
    let w = walls.as_ref();
    let r = rect::<f64>(R10);
    let err = |o: (f64, f64)| visibility_polygon(o, &r, &w).unwrap_err().to_string();
    assert!(err((3.0, 3.0)).contains("on wall 0"), "{}", err((3.0, 3.0)));
    assert!(err((2.0, 2.0)).contains("on wall 0"));
    assert!(
        err((4.0, 1.0)).contains("on wall 1"),
        "a zero-length wall: {}",
        err((4.0, 1.0))
    );
    assert!(err((0.0, 5.0)).contains("boundary"));
    assert!(err((10.0, 10.0)).contains("boundary"));
    assert!(err((10.5, 5.0)).contains("outside"));
    assert!(err((f64::NAN, 5.0)).contains("not finite"));
    assert!(err((5.0, f64::INFINITY)).contains("not finite"));
    // One ulp off the wall is fine, and sees along it.
    run(
        (3.0f64.next_up(), 3.0),
        &r,
        &segs::<f64>(&[[2.0, 2.0, 8.0, 8.0]]),
        300,
    )
    .unwrap();
    run(
        (3.0f32, 3.0f32.next_up()),
        &rect::<f32>(R10),
        &segs::<f32>(&[[2.0, 2.0, 8.0, 8.0]]),
        300,
    )
    .unwrap();
    // Zero-area bounds.
    for b in [
        [0.0, 0.0, 0.0, 10.0],
        [0.0, 3.0, 10.0, 3.0],
        [1.0, 1.0, 1.0, 1.0],
    ] {
        let e = visibility_polygon((0.0, 5.0), &rect::<f64>(b), &w)
            .unwrap_err()
            .to_string();
        assert!(e.contains("zero area"), "{e}");
    }
    // The batch names the viewpoint.
    let e = visibility_polygons(&[5.0, 1.0, 3.0], &[2.0, 8.0, 3.0], &r, &w)
        .unwrap_err()
        .to_string();
    assert!(e.contains("viewpoint 2") && e.contains("on wall 0"), "{e}");
    let e = visibility_polygons(&[5.0, 1.0], &[5.0], &r, &w)
        .unwrap_err()
        .to_string();
    assert!(e.contains("length"), "{e}");
}

/// A city of boxes on a grid, some rotated, a few long walls crossing them.
fn city(n: usize, seed: u64) -> (Vec<[f64; 4]>, [f64; 4]) {
    let mut rng = Rng(seed);
    let mut w = Vec::new();
    let size = 100.0;
    let cell = size / n as f64;
    for i in 0..n {
        for j in 0..n {
            if rng.unit() < 0.25 {
                continue;
            }
            let (cx, cy) = ((i as f64 + 0.5) * cell, (j as f64 + 0.5) * cell);
            let h = cell * (0.15 + 0.2 * rng.unit());
            let a = if rng.unit() < 0.3 { rng.unit() } else { 0.0 };
            let (c, s) = (a.cos() * h, a.sin() * h);
            let corners = [
                (cx - c + s, cy - s - c),
                (cx + c + s, cy + s - c),
                (cx + c - s, cy + s + c),
                (cx - c - s, cy - s + c),
            ];
            for k in 0..4 {
                let (p, q) = (corners[k], corners[(k + 1) % 4]);
                w.push([p.0, p.1, q.0, q.1]);
            }
        }
    }
    for _ in 0..3 {
        w.push([rng.unit() * size, -5.0, rng.unit() * size, size + 5.0]);
    }
    (w, [0.0, 0.0, size, size])
}

/// At every SIMD level this CPU runs (the sweep is compiled at the chosen level).
#[test]
fn a_city_of_boxes() {
    common::levels::each(|_| city_of_boxes());
}

fn city_of_boxes() {
    let (w, r) = city(12, 7);
    let viewpoints = [
        (0.5 * 100.0 / 12.0 * 2.0, 0.3),
        (50.0, 50.0 + 100.0 / 24.0),
        (33.3, 71.9),
        (99.0, 1.0),
    ];
    for &(x, y) in &viewpoints {
        run((x, y), &rect::<f64>(r), &segs::<f64>(&w), 2000)
            .unwrap_or_else(|e| panic!("f64 {x},{y}: {e}"));
        run(
            (x as f32, y as f32),
            &rect::<f32>(r),
            &segs::<f32>(&w),
            2000,
        )
        .unwrap_or_else(|e| panic!("f32 {x},{y}: {e}"));
    }
}

#[test]
fn batches_match_single_polygons_at_any_thread_count() {
    let (w, r) = city(8, 3);
    let walls = Segments::from_rows(&segs::<f64>(&w));
    let rr = rect::<f64>(r);
    let prepared = VisibilityWalls::new(&rr, &walls.as_ref()).unwrap();
    let mut rng = Rng(11);
    let (mut ox, mut oy) = (Vec::new(), Vec::new());
    while ox.len() < 300 {
        let (x, y) = (rng.unit() * 100.0, rng.unit() * 100.0);
        if prepared.polygon((x, y)).is_ok() {
            ox.push(x);
            oy.push(y);
        }
    }
    let mut scratch = VisibilityScratch::default();
    let mut one = Vec::new();
    let mut want = Vec::new();
    for i in 0..ox.len() {
        prepared
            .polygon_into((ox[i], oy[i]), &mut scratch, &mut one)
            .unwrap();
        assert_eq!(one, prepared.polygon((ox[i], oy[i])).unwrap());
        want.push(one.clone());
    }
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| visibility_polygons(&ox, &oy, &rr, &walls.as_ref()).unwrap());
        assert_eq!(got.len(), ox.len());
        assert_eq!(got.offsets[0], 0);
        assert_eq!(*got.offsets.last().unwrap(), got.coords.len());
        for (i, w) in want.iter().enumerate() {
            assert_eq!(got.polygon(i), &w[..], "viewpoint {i} at {threads} threads");
        }
    }
    let got = slabclip::on_calling_thread(|| prepared.polygons(&ox, &oy).unwrap());
    for (i, w) in want.iter().enumerate() {
        assert_eq!(got.polygon(i), &w[..]);
    }
    let empty = prepared.polygons(&[], &[]).unwrap();
    assert!(empty.is_empty() && empty.offsets == [0]);
    // Rows give the same walls as columns.
    let rows = VisibilityWalls::from_rows(&rr, &segs::<f64>(&w)).unwrap();
    assert_eq!(rows.polygon((ox[0], oy[0])).unwrap(), want[0]);
}

// ------------------------------------------------------------------ property tests

/// A scene on a small integer lattice: shared endpoints, walls through common points, walls
/// collinear with the viewpoint and with each other are frequent.
fn lattice() -> impl Strategy<Value = ((f64, f64), Vec<[f64; 4]>)> {
    let c = || -7i32..=7;
    (
        (-5i32..=5, -5i32..=5, 0u8..4),
        prop::collection::vec((c(), c(), c(), c()), 0..12),
    )
        .prop_map(|((ox, oy, half), w)| {
            // The viewpoint on the lattice, or half-way between its points.
            let h = |b: bool| if b { 0.5 } else { 0.0 };
            let o = (ox as f64 + h(half & 1 == 1), oy as f64 + h(half & 2 == 2));
            let w = w
                .into_iter()
                .map(|(a, b, c, d)| [a as f64, b as f64, c as f64, d as f64])
                .collect();
            (o, w)
        })
}

/// A scene of random reals, some walls leaving the rect.
fn reals() -> impl Strategy<Value = ((f64, f64), Vec<[f64; 4]>)> {
    let c = || -8.0f64..8.0;
    (
        (-5.9f64..5.9, -5.9f64..5.9),
        prop::collection::vec((c(), c(), c(), c()), 0..12),
    )
        .prop_map(|(o, w)| (o, w.into_iter().map(|(a, b, c, d)| [a, b, c, d]).collect()))
}

const LATTICE_RECT: [f64; 4] = [-6.0, -6.0, 6.0, 6.0];

fn prop_run<F: Real>(o: (f64, f64), w: &[[f64; 4]]) -> Result<(), TestCaseError> {
    let of = (F::from_f64(o.0), F::from_f64(o.1));
    run(of, &rect::<F>(LATTICE_RECT), &segs::<F>(w), 120)
        .map_err(|e| TestCaseError::fail(format!("{} o = {o:?}, walls = {w:?}: {e}", F::DTYPE)))
}

/// A wall's endpoint seen exactly edge-on through the crossing of two walls: `O = (0, 5)`,
/// `(1, 1)` and the crossing `(8/7, 3/7)` on one line. In `f32` the crossing and the ray's cut
/// through `(1, 1)` round apart, and the spike between them had sides that crossed.
#[test]
fn an_endpoint_edge_on_through_a_crossing_leaves_no_spike() {
    let walls = [[2.0, 0.0, 0.0, 1.0], [1.0, 1.0, 3.0, -7.0]];
    for o in [(0.0, 5.0), (1.0 - 3.0 / 7.0, 1.0 + 4.0 * (3.0 / 7.0))] {
        prop_run::<f32>(o, &walls).unwrap();
        prop_run::<f64>(o, &walls).unwrap();
    }
}

/// Three walls through one point that no float holds, `(5/3, 2/3)`: each pair's crossing,
/// made alone, rounds a little differently, and the walls were split at four points within
/// ulps of each other, whose edges crossed. Crossings that may be one point are made exact.
#[test]
fn three_walls_through_one_crossing_split_at_one_point() {
    let walls = [
        [7.0, -2.0, -7.0, 5.0],
        [3.0, 1.0, -5.0, -1.0],
        [-5.0, -6.0, 3.0, 2.0],
    ];
    for o in [(-5.0, -2.5), (0.0, 0.0), (2.0, -3.0), (-1.0, 3.0)] {
        prop_run::<f32>(o, &walls).unwrap();
        prop_run::<f64>(o, &walls).unwrap();
    }
    // A wall's endpoint exactly on the crossing of two others.
    let walls = [
        [0.0, 0.0, 3.0, 1.0],
        [0.0, 1.0, 3.0, 0.0],
        [1.5, 0.5, 1.5, 4.0],
    ];
    for o in [(1.0, 3.0), (2.5, 0.5), (1.5, -1.0)] {
        prop_run::<f32>(o, &walls).unwrap();
        prop_run::<f64>(o, &walls).unwrap();
    }
}

/// The ray from `O = (−3, −2.5)` through a wall's endpoint `(−2, −5)` meets the rect's bottom
/// edge exactly where another wall leaves the rect, `(−1.6, −6)`, which no float holds: the
/// edge is seen in a wedge narrower than an ulp, and its two vertices (the wall's clip point,
/// the ray's cut) rounded in reverse order along it, behind that wall, crossing its edge.
#[test]
fn an_edge_seen_in_a_wedge_narrower_than_an_ulp() {
    let walls = [
        [-2.0, -5.0, 0.0, 0.0],
        [-7.0, 3.0, -1.0, -7.0],
        [2.0, 0.0, -5.0, -2.0],
    ];
    prop_run::<f64>((-3.0, -2.5), &walls).unwrap();
    prop_run::<f32>((-3.0, -2.5), &walls).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn lattice_scenes_f32((o, w) in lattice()) {
        prop_run::<f32>(o, &w)?;
    }

    #[test]
    fn lattice_scenes_f64((o, w) in lattice()) {
        prop_run::<f64>(o, &w)?;
    }

    #[test]
    fn real_scenes_f32((o, w) in reals()) {
        prop_run::<f32>(o, &w)?;
    }

    #[test]
    fn real_scenes_f64((o, w) in reals()) {
        prop_run::<f64>(o, &w)?;
    }
}
