//! A convex polygon, built once and checked, stored as the half-planes of its edges.
//!
//! Edge `i` runs from vertex `i` to vertex `i + 1` (cyclically) in the order given. Each edge is
//! kept as a start vertex `V` and a direction `E` oriented so that the interior is on its left:
//! a point `P` is inside the edge's half-plane iff `E × (P − V) ≥ 0`. For a clockwise input `E`
//! is `−(B − A)` (an exact negation), so both orientations give the same half-planes. `E` is
//! scaled by a power of two (exact) so that its larger component lies in `[1, 2)`: the cross
//! products then neither overflow nor underflow unless the coordinates themselves nearly do, and
//! stay exact on a grid.
//!
//! A polygon with a coordinate beyond `2^1019` is stored scaled by `2^-5` (`V` and `E` both,
//! [`ConvexPolygon::scale`]), and the kernels scale each ray or segment by the same power of
//! two before the cross products: a parameter `t` is a ratio of two such products, so it does
//! not change, and no difference or product overflows, whatever the finite inputs. (At that
//! scale input coordinates below `2^-1017` lose their last bits; polygons of every other size
//! are not scaled.) A smaller polygon met by a segment or ray with a coordinate beyond `2^1019`
//! is scaled the same way in that lane alone (`ConvexPolygon::lane_scale`), so a huge input
//! against a small polygon overflows nothing either.
//!
//! Repeated consecutive vertices (also a closing copy of the first vertex) are dropped; their
//! zero-length edges have no normal and are never reported. What is refused, with
//! [`Error::InvalidPolygon`] naming the vertex: a non-finite coordinate, fewer than three distinct
//! vertices, all vertices on one line, a reflex vertex, a spike (an edge doubling back), a
//! boundary that crosses itself, and one that winds around more than once (a pentagram). Every
//! one of these decisions is exact: turns are signs of orientation determinants computed exactly
//! (the `robust` crate's adaptive `orient2d` where the coordinates leave it no overflow or
//! underflow, else rationals), and the winding is counted from coordinate comparisons. So a
//! square with corners at `±1e308` is a polygon, and a thin triangle is not "on one line".

use crate::error::Error;
use crate::real::{Lane, Real};

/// A convex polygon, ready for ray casts ([`cast_polygon`](super::cast_polygon)) and
/// Cyrus–Beck clipping ([`clip_polygon`](super::clip_polygon)).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon<F> {
    /// Start vertex of each kept edge, in increasing edge index.
    pub(crate) vx: Vec<F>,
    pub(crate) vy: Vec<F>,
    /// Edge direction with the interior on its left, scaled by a power of two.
    pub(crate) ex: Vec<F>,
    pub(crate) ey: Vec<F>,
    /// Outward unit normal of each kept edge.
    pub(crate) nx: Vec<F>,
    pub(crate) ny: Vec<F>,
    /// The edge's index in the input (the index of its start vertex).
    pub(crate) index: Vec<u32>,
    /// The vertices as given.
    vertices: Vec<(F, F)>,
    counter_clockwise: bool,
    /// The power of two `V` and `E` are scaled by (1, or `2^-5` for a huge polygon).
    scale: F,
}

impl<F: Real> ConvexPolygon<F> {
    /// Builds the polygon from its vertices in order, either orientation; see the module docs
    /// for what is an error.
    pub fn new(vertices: &[(F, F)]) -> Result<Self, Error> {
        let bad = |msg: String| Err(Error::InvalidPolygon(msg));
        if let Some(i) = vertices
            .iter()
            .position(|(x, y)| !(x.to_f64().is_finite() && y.to_f64().is_finite()))
        {
            let (x, y) = vertices[i];
            return bad(format!("vertex {i} = ({x}, {y}) is not finite"));
        }
        let n = vertices.len();
        // Keep vertex i when it differs from the next one: edge i is then a real edge.
        let kept: Vec<usize> = (0..n)
            .filter(|&i| vertices[i] != vertices[(i + 1) % n])
            .collect();
        // `+ 0.0` makes -0.0 and 0.0 one point.
        let key = |(x, y): (F, F)| ((x.to_f64() + 0.0).to_bits(), (y.to_f64() + 0.0).to_bits());
        let distinct: std::collections::BTreeSet<_> = vertices.iter().map(|&v| key(v)).collect();
        if distinct.len() < 3 {
            return bad(format!(
                "{} distinct vertices, at least 3 are needed",
                distinct.len()
            ));
        }
        let p = |k: usize| {
            let (x, y) = vertices[kept[k % kept.len()]];
            (x.to_f64(), y.to_f64())
        };
        let m = kept.len();
        // The kernels carry an edge's position in a float lane.
        let exact = if core::mem::size_of::<F>() == 4 {
            1 << 24
        } else {
            1 << 53
        };
        if m > exact {
            return bad(format!(
                "{m} edges is more than {} can index exactly ({exact})",
                F::DTYPE
            ));
        }
        // Every turn, exactly: > 0 left, < 0 right, 0 straight on or back.
        let orient = Orient::new(vertices);
        let turns: Vec<Sign> = (0..m)
            .map(|k| orient.sign(p(k + m - 1), p(k), p(k + 1)))
            .collect();
        let left = turns.iter().filter(|&&t| t == Sign::Positive).count();
        let right = turns.iter().filter(|&&t| t == Sign::Negative).count();
        if left == 0 && right == 0 {
            return bad("all vertices lie on one line (zero area)".into());
        }
        if left > 0 && right > 0 {
            // The orientation is the sign of the exact area; with no sign, the boundary crosses
            // itself as much one way as the other (a bow tie).
            let wrong = match exact_area_sign(&(0..m).map(p).collect::<Vec<_>>()) {
                Sign::Positive => Sign::Negative,
                Sign::Negative => Sign::Positive,
                Sign::Zero => {
                    return bad(
                        "not convex: the boundary crosses itself (it turns left and right, \
                         enclosing zero signed area)"
                            .into(),
                    )
                }
            };
            let k = turns.iter().position(|&t| t == wrong).expect("mixed turns");
            return bad(format!(
                "not convex: vertex {} is a reflex vertex (or the boundary crosses itself there)",
                kept[k]
            ));
        }
        let ccw = right == 0;
        for (k, &at) in kept.iter().enumerate() {
            if turns[k] == Sign::Zero && doubles_back(p(k + m - 1), p(k), p(k + 1)) {
                return bad(format!(
                    "not convex: the boundary doubles back at vertex {at}"
                ));
            }
        }
        // All turns one way, none back: convex iff the edge directions go round once. Each turn
        // is below a half turn, so in either sense of rotation the directions pass from the
        // lower half of the plane into the upper half once per winding.
        let windings = (0..m)
            .filter(|&k| !upper(p(k), p(k + 1)) && upper(p(k + 1), p(k + 2)))
            .count();
        if windings > 1 {
            return bad(format!(
                "not convex: the boundary winds around {windings} times (it crosses itself)"
            ));
        }
        let scale = F::from_f64(scale_of(vertices));
        let mut poly = ConvexPolygon {
            vx: Vec::with_capacity(m),
            vy: Vec::with_capacity(m),
            ex: Vec::with_capacity(m),
            ey: Vec::with_capacity(m),
            nx: Vec::with_capacity(m),
            ny: Vec::with_capacity(m),
            index: Vec::with_capacity(m),
            vertices: vertices.to_vec(),
            counter_clockwise: ccw,
            scale,
        };
        for (k, &at) in kept.iter().enumerate() {
            let (ax, ay) = vertices[at];
            let (bx, by) = vertices[kept[(k + 1) % m]];
            let (ax, ay, bx, by) = (ax * scale, ay * scale, bx * scale, by * scale);
            let (mut ex, mut ey) = (bx - ax, by - ay);
            if !ccw {
                (ex, ey) = (-ex, -ey);
            }
            let (ex, ey) = pow2_scaled(ex, ey);
            let (ux, uy) = super::unit(ex, ey);
            poly.vx.push(ax);
            poly.vy.push(ay);
            poly.ex.push(ex);
            poly.ey.push(ey);
            // The interior is on the left of E: outward is its right, (ey, −ex).
            // `+ 0` keeps a zero component `+0.0`.
            poly.nx.push(uy + F::ZERO);
            poly.ny.push(-ux + F::ZERO);
            poly.index.push(at as u32);
        }
        Ok(poly)
    }

    /// The vertices as given.
    pub fn vertices(&self) -> &[(F, F)] {
        &self.vertices
    }

    /// Whether the vertices were given counter-clockwise (positive area).
    pub fn is_counter_clockwise(&self) -> bool {
        self.counter_clockwise
    }

    /// How many (non-zero-length) edges the polygon has.
    pub fn edge_count(&self) -> usize {
        self.index.len()
    }

    /// The outward unit normal of edge `edge` (an input index), or `None` for an index that is
    /// not an edge (out of range, or a dropped zero-length edge).
    pub fn normal(&self, edge: u32) -> Option<(F, F)> {
        let k = self.index.binary_search(&edge).ok()?;
        Some((self.nx[k], self.ny[k]))
    }

    /// Whether `(x, y)` is in the closed polygon, by the half-plane tests the kernels use.
    pub fn contains(&self, x: F, y: F) -> bool {
        let (x, y) = (x * self.scale, y * self.scale);
        (0..self.edge_count()).all(|k| side(self, k, x, y) >= F::ZERO)
    }

    /// The power of two the half-planes are stored at, which the kernels multiply every input
    /// coordinate by: 1, or `2^-5` when a vertex coordinate is beyond `2^1019` (so that no
    /// difference or cross product of finite inputs overflows).
    pub fn scale(&self) -> F {
        self.scale
    }

    /// Per lane, the power of two a kernel multiplies both the input and `V` by when this
    /// polygon is stored unscaled but some lane's input has a coordinate beyond `2^(emax − 4)`
    /// (a huge segment or ray against a small polygon): [`HUGE_SCALE`] in those lanes, 1 in the
    /// others. `None` (the common case) when no lane needs it; the kernels then run on
    /// [`ConvexPolygon::scale`] alone.
    #[inline(always)]
    pub(crate) fn lane_scale<L: Lane<Scalar = F>>(&self, coords: [L; 4]) -> Option<L> {
        if self.scale != F::ONE {
            return None;
        }
        let bound = L::splat(F::from_f64(huge_bound::<F>()));
        let big = coords
            .into_iter()
            .map(|c| bound.lt(c.abs()))
            .reduce(|a, b| a | b)?;
        L::any(big).then(|| L::select(big, L::splat(F::from_f64(HUGE_SCALE)), L::splat(F::ONE)))
    }
}

/// `2^-5`, the scale of a polygon with a coordinate beyond `2^(emax − 4)` (`2^1019` in `f64`,
/// `2^123` in `f32`): every finite value times it is below that bound, so differences of two
/// are below `2^(emax − 3)`, their products with an `E` in `[1, 2)` below `2^(emax − 2)`, and
/// `f0 − f1` of a segment below `2^emax`.
const HUGE_SCALE: f64 = 1.0 / 32.0;

/// A vertex as a kernel uses it: times the lane's scale where [`ConvexPolygon::lane_scale`]
/// gave one.
#[inline(always)]
pub(crate) fn scaled_vertex<L: Lane>(vx: L, vy: L, lane: Option<L>) -> (L, L) {
    match lane {
        Some(k) => (vx * k, vy * k),
        None => (vx, vy),
    }
}

/// `2^(emax − 4)`: `2^1019` in `f64`, `2^123` in `f32`.
fn huge_bound<F: Real>() -> f64 {
    if core::mem::size_of::<F>() == 4 {
        2f64.powi(123)
    } else {
        2f64.powi(1019)
    }
}

/// [`HUGE_SCALE`] for a polygon with a coordinate beyond `2^(emax − 4)`, else 1.
fn scale_of<F: Real>(vertices: &[(F, F)]) -> f64 {
    let huge = huge_bound::<F>();
    let big = vertices
        .iter()
        .any(|(x, y)| x.to_f64().abs() > huge || y.to_f64().abs() > huge);
    if big {
        HUGE_SCALE
    } else {
        1.0
    }
}

/// The sign of a number, for exact predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    Negative,
    Zero,
    Positive,
}

impl Sign {
    fn of(x: f64) -> Sign {
        if x > 0.0 {
            Sign::Positive
        } else if x < 0.0 {
            Sign::Negative
        } else {
            Sign::Zero
        }
    }

    fn of_q(x: &crate::reference::Q) -> Sign {
        use num_traits::Signed;
        if x.is_positive() {
            Sign::Positive
        } else if x.is_negative() {
            Sign::Negative
        } else {
            Sign::Zero
        }
    }
}

/// The exact orientation of three vertices: `robust::orient2d` (Shewchuk's adaptive
/// predicate, exact as long as no intermediate value overflows or underflows) when every
/// coordinate is zero or of a magnitude in `[2^-400, 2^400]`, which guarantees that; else
/// exact rationals.
struct Orient {
    fast: bool,
}

impl Orient {
    fn new<F: Real>(vertices: &[(F, F)]) -> Orient {
        let safe = |v: f64| v == 0.0 || (2f64.powi(-400)..=2f64.powi(400)).contains(&v.abs());
        Orient {
            fast: vertices
                .iter()
                .all(|(x, y)| safe(x.to_f64()) && safe(y.to_f64())),
        }
    }

    /// The sign of `(b − a) × (c − b)`: positive for a left turn at `b`.
    fn sign(&self, a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> Sign {
        if self.fast {
            let pt = |(x, y): (f64, f64)| robust::Coord { x, y };
            // orient2d(a, b, c) > 0 when a, b, c run counter-clockwise: a left turn at b.
            Sign::of(robust::orient2d(pt(a), pt(b), pt(c)))
        } else {
            let q = |v: f64| crate::reference::q(v);
            let (ux, uy) = (q(b.0) - q(a.0), q(b.1) - q(a.1));
            let (vx, vy) = (q(c.0) - q(b.0), q(c.1) - q(b.1));
            Sign::of_q(&(ux * vy - uy * vx))
        }
    }
}

/// The sign of the polygon's area, exactly (only asked for a polygon being refused).
fn exact_area_sign(p: &[(f64, f64)]) -> Sign {
    let q = |v: f64| crate::reference::q(v);
    let (x0, y0) = (q(p[0].0), q(p[0].1));
    let mut area2 = crate::reference::Q::from_integer(0.into());
    for w in p[1..].windows(2) {
        let (ax, ay) = (q(w[0].0) - &x0, q(w[0].1) - &y0);
        let (bx, by) = (q(w[1].0) - &x0, q(w[1].1) - &y0);
        area2 += ax * by - ay * bx;
    }
    Sign::of_q(&area2)
}

/// For three collinear points, whether `c` lies back toward `a` from `b` (the boundary turns
/// around at `b`): by coordinate comparisons, exact.
fn doubles_back(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> bool {
    let dir = |p: f64, q: f64| (q > p) as i8 - (q < p) as i8;
    let (u, v) = if a.0 != b.0 {
        (dir(a.0, b.0), dir(b.0, c.0))
    } else {
        (dir(a.1, b.1), dir(b.1, c.1))
    };
    u * v < 0
}

/// Whether the direction `a → b` points into the upper half of the plane, its angle in
/// `[0, π)`: by comparisons of the coordinates, exact.
fn upper(a: (f64, f64), b: (f64, f64)) -> bool {
    b.1 > a.1 || (b.1 == a.1 && b.0 > a.0)
}

/// `E × (P − V)` of kept edge `k`: `≥ 0` inside its half-plane.
#[inline(always)]
pub(crate) fn side<F: Real>(p: &ConvexPolygon<F>, k: usize, x: F, y: F) -> F {
    p.ex[k] * (y - p.vy[k]) - p.ey[k] * (x - p.vx[k])
}

/// `x, y` times the power of two that brings the larger component into `[1, 2)` (exact: a
/// power of two taken in steps within the normal range of `F`, so that subnormal edges reach
/// it too).
fn pow2_scaled<F: Real>(x: F, y: F) -> (F, F) {
    let (lo, hi) = if core::mem::size_of::<F>() == 4 {
        (-126, 127)
    } else {
        (-1022, 1023)
    };
    let (mut x, mut y) = (x, y);
    for _ in 0..2 {
        let m = x.to_f64().abs().max(y.to_f64().abs());
        if m == 0.0 || (1.0..2.0).contains(&m) {
            break;
        }
        let e = ((m.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        // A subnormal f64 has exponent field 0: `e` is then -1023, one step of 2^1022 and a
        // second step finish the way.
        let s = F::from_f64(2f64.powi((-e).clamp(lo, hi)));
        (x, y) = (x * s, y * s);
    }
    (x, y)
}
