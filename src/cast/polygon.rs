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
//! Repeated consecutive vertices (also a closing copy of the first vertex) are dropped; their
//! zero-length edges have no normal and are never reported. What is refused, with
//! [`Error::InvalidPolygon`] naming the vertex: a non-finite coordinate, fewer than three distinct
//! vertices, all vertices on one line, a reflex vertex, a spike (an edge doubling back), and a
//! polygon that winds around more than once (a pentagram). These checks run in `f64`; a polygon
//! whose non-convexity is below `f64` rounding may be accepted, and is then treated as the
//! intersection of its edges' half-planes.

use crate::error::Error;
use crate::real::Real;

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
        let (x0, y0) = p(0);
        let mut area2 = 0.0;
        for k in 1..m - 1 {
            let ((ax, ay), (bx, by)) = (p(k), p(k + 1));
            area2 += (ax - x0) * (by - y0) - (ay - y0) * (bx - x0);
        }
        if area2 == 0.0 || !area2.is_finite() {
            return bad("all vertices lie on one line (zero area)".into());
        }
        let sign = area2.signum();
        let mut turning = 0.0f64;
        for (k, &at) in kept.iter().enumerate() {
            let (a, b, c) = (p(k + m - 1), p(k), p(k + 1));
            let (ux, uy) = (b.0 - a.0, b.1 - a.1);
            let (vx, vy) = (c.0 - b.0, c.1 - b.1);
            let cross = ux * vy - uy * vx;
            let dot = ux * vx + uy * vy;
            if cross * sign < 0.0 {
                return bad(format!("not convex: vertex {at} is a reflex vertex"));
            }
            if cross == 0.0 && dot < 0.0 {
                return bad(format!(
                    "not convex: the boundary doubles back at vertex {at}"
                ));
            }
            turning += cross.atan2(dot);
        }
        if turning.abs() > 3.0 * std::f64::consts::PI {
            return bad("not convex: the boundary winds around more than once".into());
        }
        let ccw = sign > 0.0;
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
        };
        for (k, &at) in kept.iter().enumerate() {
            let (ax, ay) = vertices[at];
            let (bx, by) = vertices[kept[(k + 1) % m]];
            let (mut ex, mut ey) = (bx - ax, by - ay);
            if !ccw {
                (ex, ey) = (-ex, -ey);
            }
            let s = pow2_scale::<F>(ex, ey);
            let (ex, ey) = (ex * s, ey * s);
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
        (0..self.edge_count()).all(|k| side(self, k, x, y) >= F::ZERO)
    }
}

/// `E × (P − V)` of kept edge `k`: `≥ 0` inside its half-plane.
#[inline(always)]
pub(crate) fn side<F: Real>(p: &ConvexPolygon<F>, k: usize, x: F, y: F) -> F {
    p.ex[k] * (y - p.vy[k]) - p.ey[k] * (x - p.vx[k])
}

/// The power of two that brings the larger component of `(x, y)` into `[1, 2)`, limited to the
/// normal range of `F` so that the scale itself is exact.
fn pow2_scale<F: Real>(x: F, y: F) -> F {
    let m = x.to_f64().abs().max(y.to_f64().abs());
    let e = ((m.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let (lo, hi) = if core::mem::size_of::<F>() == 4 {
        (-126, 127)
    } else {
        (-1022, 1023)
    };
    F::from_f64(2f64.powi((-e).clamp(lo, hi)))
}
