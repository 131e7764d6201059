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

use super::polygon::{scaled_vertex, ConvexPolygon};
use super::{
    check_opt, check_t_max, drive, put, split_opt, RayLanes, RayQuery, RaysRef, SplitOutput, NO_HIT,
};
use crate::error::Error;
use crate::real::{write_as, Lane, Real};

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

/// Every lane's answer: `t`, the kept edge's position as a float (−1 for none) and its outward
/// normal (NaN for none), and whether the origin is in the closed polygon.
struct LaneHits<L: Lane> {
    t: L,
    j: L,
    nx: L,
    ny: L,
    inside: L::Mask,
}

/// The best edge so far on one side (entering or leaving), per lane.
#[derive(Clone, Copy)]
struct Best<L> {
    t: L,
    j: L,
    nx: L,
    ny: L,
}

impl<L: Lane> Best<L> {
    #[inline(always)]
    fn keep(&mut self, better: L::Mask, t: L, j: L, nx: L, ny: L) {
        self.t = L::select(better, t, self.t);
        self.j = L::select(better, j, self.j);
        self.nx = L::select(better, nx, self.nx);
        self.ny = L::select(better, ny, self.ny);
    }

    /// Where `m`, this; else `other`.
    #[inline(always)]
    fn or(self, m: L::Mask, other: Best<L>) -> Best<L> {
        Best {
            t: L::select(m, self.t, other.t),
            j: L::select(m, self.j, other.j),
            nx: L::select(m, self.nx, other.nx),
            ny: L::select(m, self.ny, other.ny),
        }
    }
}

#[inline(always)]
fn cast_lanes<L: Lane>(
    p: &ConvexPolygon<L::Scalar>,
    ray: &RayLanes<L>,
    t_max: L,
    mode: InsideMode,
) -> LaneHits<L> {
    // The loop is compiled twice: with no lane scale (the common case) and with one (a huge
    // ray against a small polygon).
    match p.lane_scale([ray.ox, ray.oy, ray.dx, ray.dy]) {
        None => cast_lanes_at(p, ray, t_max, mode, None),
        Some(k) => cast_lanes_at(p, ray, t_max, mode, Some(k)),
    }
}

/// [`cast_lanes`] with the lane scale `lane` of [`ConvexPolygon::lane_scale`].
#[inline(always)]
fn cast_lanes_at<L: Lane>(
    p: &ConvexPolygon<L::Scalar>,
    ray: &RayLanes<L>,
    t_max: L,
    mode: InsideMode,
    lane: Option<L>,
) -> LaneHits<L> {
    let zero = L::splat(L::Scalar::ZERO);
    let tiny = L::splat(L::Scalar::TINY);
    let inf = L::splat(L::Scalar::INFINITY);
    let nan = L::splat(L::Scalar::NAN);
    let none = Best {
        t: nan,
        j: L::splat(L::Scalar::from_f64(-1.0)),
        nx: nan,
        ny: nan,
    };
    // Entering `t`s are ≥ 0, so any negative start is below them all; an entering `t` that
    // underflowed to 0 is still kept (and becomes the smallest subnormal after the loop).
    let mut entry = Best {
        t: L::splat(L::Scalar::from_f64(-1.0)),
        ..none
    };
    let mut exit = Best { t: inf, ..none };
    let mut inside = ray.valid();
    let mut miss = !inside;
    // The polygon's scale (1, or a power of two below 1 for a huge polygon): `t` is a ratio of
    // two products that both scale by it.
    let sc = lane.unwrap_or(L::splat(p.scale()));
    let (ox, oy, dx, dy) = (ray.ox * sc, ray.oy * sc, ray.dx * sc, ray.dy * sc);
    // Edges are kept in increasing input index, so "first strictly better" is "lowest index".
    let edges = (p.vx.iter().zip(&p.vy))
        .zip(p.ex.iter().zip(&p.ey))
        .zip(p.nx.iter().zip(&p.ny));
    let mut k = L::Scalar::ZERO;
    for (((&vx, &vy), (&ex, &ey)), (&nx, &ny)) in edges {
        let (vx, vy) = scaled_vertex(L::splat(vx), L::splat(vy), lane);
        let (ex, ey) = (L::splat(ex), L::splat(ey));
        let (j, nx, ny) = (L::splat(k), L::splat(nx), L::splat(ny));
        k = k + L::Scalar::ONE;
        let f0 = ex * (oy - vy) - ey * (ox - vx);
        let fd = ex * dy - ey * dx;
        let out = f0.lt(zero);
        inside = inside & !out;
        miss = miss | (out & fd.le(zero));
        // One quotient for both sides: `−f0/fd` is `f0/(−fd)` bit for bit. (A leaving `t` of
        // `-0.0` compares as `+0.0` does; it is made `+0.0` after the loop.)
        let t = -f0 / fd;
        entry.keep(out & zero.lt(fd) & entry.t.lt(t), t, j, nx, ny);
        exit.keep(!out & fd.lt(zero) & t.lt(exit.t), t, j, nx, ny);
    }
    entry.t = L::select(entry.t.eq_(zero), tiny, entry.t);
    exit.t = exit.t + zero;
    let hit = !inside & !miss & entry.t.le(exit.t) & entry.t.le(t_max);
    let at_inside = match mode {
        InsideMode::Origin => Best { t: zero, ..none },
        InsideMode::Exit => exit.or(exit.t.le(t_max) & exit.t.lt(inf), none),
    };
    let b = at_inside.or(inside, entry.or(hit, none));
    LaneHits {
        t: b.t,
        j: b.j,
        nx: b.nx,
        ny: b.ny,
        inside,
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
    Ok(PolygonHit {
        t: h.t,
        point: r.at(h.t),
        normal: (h.nx, h.ny),
        edge: edge_index(poly, h.j),
        inside: h.inside,
    })
}

/// The input index of the kept edge at position `j`, [`NO_HIT`] for `j = −1`.
#[inline(always)]
fn edge_index<F: Real>(p: &ConvexPolygon<F>, j: F) -> u32 {
    if j < F::ZERO {
        NO_HIT
    } else {
        p.index[j.to_f64() as usize]
    }
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
/// across chunks of 1024 rays from 64K ray × edge tests up; the same bits as
/// [`cast_polygon_one`] ray by ray.
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
    F::cast_polygon(poly, rays, t_max, mode, out);
    Ok(())
}

/// [`cast_polygon`] once its arguments are checked (`simd::entries`).
pub(crate) fn cast_polygon_checked<F: Real>(
    poly: &ConvexPolygon<F>,
    rays: &RaysRef<'_, F>,
    t_max: F,
    mode: InsideMode,
    out: PolygonCastOutput<'_, F>,
) {
    drive(rays, out, poly.edge_count(), &Query { poly, t_max, mode });
}

/// [`cast_polygon`] for the batch driver.
struct Query<'p, F> {
    poly: &'p ConvexPolygon<F>,
    t_max: F,
    mode: InsideMode,
}

impl<F: Real> RayQuery<F, PolygonCastOutput<'_, F>> for Query<'_, F> {
    #[inline(always)]
    fn run<L: Lane<Scalar = F>>(
        &self,
        o: &mut PolygonCastOutput<'_, F>,
        i: usize,
        r: &RayLanes<L>,
    ) {
        let h = cast_lanes(self.poly, r, L::splat(self.t_max), self.mode);
        put(&mut o.t, i, h.t);
        if o.x.is_some() || o.y.is_some() {
            let (x, y) = r.at(h.t);
            put(&mut o.x, i, x);
            put(&mut o.y, i, y);
        }
        put(&mut o.nx, i, h.nx);
        put(&mut o.ny, i, h.ny);
        if let Some(e) = o.edge.as_deref_mut() {
            write_as(h.j, &mut e[i..], |j| edge_index(self.poly, j));
        }
        if let Some(k) = o.inside.as_deref_mut() {
            let one = L::splat(F::ONE);
            let flag = L::select(h.inside, one, L::splat(F::ZERO));
            write_as(flag, &mut k[i..], |v| (v == F::ONE) as u8);
        }
    }
}
