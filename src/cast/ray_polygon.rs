//! N rays × one convex polygon: the polygon as the intersection of its edges' half-planes, the
//! ray clipped by each (Cyrus–Beck for a ray).
//!
//! ```text
//! for each chunk of LANES rays, for each edge (V, E, broadcast):
//!     f0 = E × (O − V)        ≥ 0: O is inside this half-plane
//!     fd = E × D              the rate of change of f along the ray
//!     f0 < 0, fd > 0:  entering at t = −f0/fd    entry = max(entry, t)  (strictly: lowest edge wins ties)
//!     f0 ≥ 0, fd < 0:  leaving  at t = f0/(−fd)  exit  = min(exit, t)
//!     f0 < 0, fd ≤ 0:  a sure miss
//! inside = every f0 ≥ 0 (O in the closed polygon)
//! hit    = not inside, no sure miss, entry ≤ exit, entry ≤ t_max
//! ```
//!
//! So "inside" and `t = 0` are decided by the same numbers. At an exact corner hit the two edges
//! meeting there give the same `t` (exactly so on a grid, where every product is exact): the
//! edge with the lower input index is reported, with its own unit normal — never a blend. Off a
//! grid, rounding decides between the two, and either is a real edge. An entering `t` that
//! underflows becomes the smallest subnormal, so `t = 0` is reported only for an origin inside.

use super::polygon::ConvexPolygon;
use super::{
    check_opt, check_t_max, drive, put, split_opt, RayLanes, RaysRef, SplitOutput, NO_HIT,
};
use crate::error::Error;
use crate::real::{Lane, Real};

/// What a ray whose origin lies in the closed polygon reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InsideMode {
    /// `t = 0`, the point `O`, no edge ([`NO_HIT`]) and a NaN normal.
    #[default]
    Origin,
    /// The exit point: `t`, point, edge and outward normal where the ray leaves the polygon;
    /// NaN and [`NO_HIT`] when it does not leave within `t_max`.
    Exit,
}

/// One ray against a convex polygon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolygonHit<F> {
    /// The ray parameter; NaN on a miss.
    pub t: F,
    /// The point `O + t·D` (exactly `O` at `t = 0`); NaN on a miss.
    pub point: (F, F),
    /// The outward unit normal of the edge hit; NaN on a miss or for an origin inside
    /// ([`InsideMode::Origin`]).
    pub normal: (F, F),
    /// The input index of the edge hit; [`NO_HIT`] on a miss or for an origin inside.
    pub edge: u32,
    /// The origin lies in the closed polygon (false for an invalid ray).
    pub inside: bool,
}

/// Every lane's answer before the per-ray gathers: `t`, the kept edge's position as a float
/// (−1 for none)
/// and the inside flag as `1`/`0`.
struct LaneHits<L> {
    t: L,
    j: L,
    inside: L,
}

#[inline(always)]
fn cast_lanes<L: Lane>(
    p: &ConvexPolygon<L::Scalar>,
    ray: &RayLanes<L>,
    t_max: L,
    mode: InsideMode,
) -> LaneHits<L> {
    let zero = L::splat(L::Scalar::ZERO);
    let tiny = L::splat(L::Scalar::TINY);
    let inf = L::splat(L::Scalar::INFINITY);
    let none = L::splat(L::Scalar::from_f64(-1.0));
    let (mut entry, mut entry_j) = (zero, none);
    let (mut exit, mut exit_j) = (inf, none);
    let mut inside = ray.valid();
    let mut miss = !inside;
    // Edges are kept in increasing input index, so "first strictly better" is "lowest index".
    let edges = p.vx.iter().zip(&p.vy).zip(p.ex.iter().zip(&p.ey));
    let mut k = L::Scalar::ZERO;
    for ((&vx, &vy), (&ex, &ey)) in edges {
        let (vx, vy, ex, ey) = (L::splat(vx), L::splat(vy), L::splat(ex), L::splat(ey));
        let j = L::splat(k);
        k = k + L::Scalar::ONE;
        let f0 = ex * (ray.oy - vy) - ey * (ray.ox - vx);
        let fd = ex * ray.dy - ey * ray.dx;
        let out = f0.lt(zero);
        inside = inside & !out;
        miss = miss | (out & fd.le(zero));
        let t_in = -f0 / fd;
        let t_in = L::select(t_in.eq_(zero), tiny, t_in);
        let enters = out & zero.lt(fd) & entry.lt(t_in);
        entry = L::select(enters, t_in, entry);
        entry_j = L::select(enters, j, entry_j);
        let t_out = f0 / -fd + zero;
        let leaves = !out & fd.lt(zero) & t_out.lt(exit);
        exit = L::select(leaves, t_out, exit);
        exit_j = L::select(leaves, j, exit_j);
    }
    let nan = L::splat(L::Scalar::NAN);
    let hit = !inside & !miss & entry.le(exit) & entry.le(t_max);
    let (t_in, j_in) = match mode {
        InsideMode::Origin => (zero, none),
        InsideMode::Exit => {
            let leaves = exit.le(t_max) & exit.lt(inf);
            (
                L::select(leaves, exit, nan),
                L::select(leaves, exit_j, none),
            )
        }
    };
    LaneHits {
        t: L::select(inside, t_in, L::select(hit, entry, nan)),
        j: L::select(inside, j_in, L::select(hit, entry_j, none)),
        inside: L::select(inside, L::splat(L::Scalar::ONE), zero),
    }
}

/// The finished hit of one ray from its lane's answer: point and normal.
fn finish_one<F: Real>(
    p: &ConvexPolygon<F>,
    ray: &RayLanes<F>,
    t: F,
    j: F,
    inside: F,
) -> PolygonHit<F> {
    let (edge, normal) = if j < F::ZERO {
        (NO_HIT, (F::NAN, F::NAN))
    } else {
        let k = j.to_f64() as usize;
        (p.index[k], (p.nx[k], p.ny[k]))
    };
    let point = if t.to_f64().is_nan() {
        (F::NAN, F::NAN)
    } else {
        ray.at(t)
    };
    PolygonHit {
        t,
        point,
        normal,
        edge,
        inside: inside == F::ONE,
    }
}

/// One ray against the polygon (the batch's code on one lane). `t_max` NaN or negative is an
/// [`Error::InvalidArgument`].
pub fn cast_polygon_one<F: Real>(
    poly: &ConvexPolygon<F>,
    ray: &super::Ray<F>,
    t_max: F,
    mode: InsideMode,
) -> Result<PolygonHit<F>, Error> {
    check_t_max(t_max)?;
    let r = RayLanes::from(*ray);
    let h = cast_lanes(poly, &r, t_max, mode);
    Ok(finish_one(poly, &r, h.t, h.j, h.inside))
}

/// Where ray × polygon results go; `None` outputs are skipped. Each buffer must be as long as
/// the batch.
#[derive(Debug, Default)]
pub struct PolygonCastOutput<'a, F> {
    /// `t` per ray.
    pub t: Option<&'a mut [F]>,
    /// The hit point's x.
    pub x: Option<&'a mut [F]>,
    /// The hit point's y.
    pub y: Option<&'a mut [F]>,
    /// The outward normal's x.
    pub nx: Option<&'a mut [F]>,
    /// The outward normal's y.
    pub ny: Option<&'a mut [F]>,
    /// The edge index, [`NO_HIT`] for none.
    pub edge: Option<&'a mut [u32]>,
    /// `1` where the origin lies in the closed polygon, else `0`.
    pub inside: Option<&'a mut [u8]>,
}

impl<F: Real> PolygonCastOutput<'_, F> {
    fn check(&self, n: usize) -> Result<(), Error> {
        check_opt("t", n, &self.t)?;
        check_opt("x", n, &self.x)?;
        check_opt("y", n, &self.y)?;
        check_opt("nx", n, &self.nx)?;
        check_opt("ny", n, &self.ny)?;
        check_opt("edge", n, &self.edge)?;
        check_opt("inside", n, &self.inside)
    }

    fn store(&mut self, i: usize, h: &PolygonHit<F>) {
        put(&mut self.t, i, h.t);
        put(&mut self.x, i, h.point.0);
        put(&mut self.y, i, h.point.1);
        put(&mut self.nx, i, h.normal.0);
        put(&mut self.ny, i, h.normal.1);
        put(&mut self.edge, i, h.edge);
        put(&mut self.inside, i, h.inside as u8);
    }
}

impl<F: Real> SplitOutput for PolygonCastOutput<'_, F> {
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (t, t2) = split_opt(self.t, mid);
        let (x, x2) = split_opt(self.x, mid);
        let (y, y2) = split_opt(self.y, mid);
        let (nx, nx2) = split_opt(self.nx, mid);
        let (ny, ny2) = split_opt(self.ny, mid);
        let (edge, edge2) = split_opt(self.edge, mid);
        let (inside, inside2) = split_opt(self.inside, mid);
        (
            PolygonCastOutput {
                t,
                x,
                y,
                nx,
                ny,
                edge,
                inside,
            },
            PolygonCastOutput {
                t: t2,
                x: x2,
                y: y2,
                nx: nx2,
                ny: ny2,
                edge: edge2,
                inside: inside2,
            },
        )
    }
}

/// Every ray of a batch against one convex polygon: SIMD across rays (edges broadcast), rayon
/// across chunks of 1024 rays; the same bits as [`cast_polygon_one`] ray by ray.
///
/// Errors before any work: `t_max` NaN or negative, an output of the wrong length.
pub fn cast_polygon<F: Real>(
    poly: &ConvexPolygon<F>,
    rays: &RaysRef<'_, F>,
    t_max: F,
    mode: InsideMode,
    out: PolygonCastOutput<'_, F>,
) -> Result<(), Error> {
    check_t_max(t_max)?;
    let n = rays.len();
    out.check(n)?;
    drive(
        rays,
        out,
        |r| {
            let h = cast_lanes(poly, r, F::Simd::splat(t_max), mode);
            [h.t, h.j, h.inside]
        },
        |r| {
            let h = cast_lanes(poly, r, t_max, mode);
            [h.t, h.j, h.inside]
        },
        |o, i, r, [t, j, inside]| o.store(i, &finish_one(poly, r, t, j, inside)),
    );
    Ok(())
}
