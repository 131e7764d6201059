//! N rays × M segments: the closest hit per ray.
//!
//! ```text
//! for each chunk of LANES rays (rayon over chunks of 1024 rays from 64K tests):
//!     best_t = +∞
//!     for each segment j (broadcast to every lane), S = P0, E = P1 − P0, W = S − O:
//!         den = D × E     tn = W × E     sn = W × D          (a × b = ax·by − ay·bx)
//!         crossing:  den ≠ 0, t = tn/den ∈ [0, t_max], s = sn/den ∈ [0, 1]
//!         collinear: den = 0 and sn = 0: the overlap of [t(P0), t(P1)] with [0, t_max],
//!                    hit at its first point (t along D's larger component)
//!         keep it when t < best_t          (strictly: ties go to the lowest index)
//! then, per ray, the unit normal of the winning segment, turned to face the ray
//! ```
//!
//! The sign tests are done on the numerators with the denominator's sign folded in, so `t` and
//! `s` are quotients of nonnegative numbers (`+0.0`, never `-0.0`), and `s ∈ [0, 1]` holds after
//! rounding. Lanes run across rays with each segment broadcast: the closest-hit reduction then
//! stays in each lane, with no horizontal step, and ties resolve by iteration order.
//!
//! Segments with a non-finite coordinate are never hit. A hit farther than the float range
//! (`t` overflows to `+∞`) counts as a miss. The segment index is carried in a float lane, so a
//! batch may hold at most 2^24 segments in `f32` (2^53 in `f64`); more is an error.

use super::{
    check_opt, check_t_max, drive, put, split_opt, unit, RayLanes, RayQuery, RaysRef, SplitOutput,
    NO_HIT,
};
use crate::buffers::SegmentsRef;
use crate::error::Error;
use crate::real::{write_as, Lane, Real};

/// The closest hit of one ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentHit<F> {
    /// The ray parameter of the hit, in `[0, t_max]`; NaN on a miss.
    pub t: F,
    /// The segment's own parameter of the hit point, in `[0, 1]`; NaN on a miss.
    pub s: F,
    /// The index of the segment hit (the lowest on a tie); [`NO_HIT`] on a miss.
    pub index: u32,
    /// The segment's unit normal facing the ray (`n · D ≤ 0`). For a segment collinear with the
    /// ray, its left normal `(−ey, ex)/|E|`; for a zero-length segment, `−D/|D|`. NaN on a miss.
    pub normal: (F, F),
}

impl<F: Real> SegmentHit<F> {
    /// A miss.
    pub const MISS: SegmentHit<F> = SegmentHit {
        t: F::NAN,
        s: F::NAN,
        index: NO_HIT,
        normal: (F::NAN, F::NAN),
    };

    /// Whether the ray hit a segment.
    pub fn is_hit(&self) -> bool {
        self.index != NO_HIT
    }
}

/// The best hit so far, per lane. Its `s` is kept as the fraction `sn / ad`, divided once at
/// the end (the same quotient as dividing at each hit, one division per test fewer).
#[derive(Clone, Copy)]
struct Best<L> {
    t: L,
    sn: L,
    ad: L,
    /// The segment index, as a float (exact below 2^24 in `f32`).
    j: L,
}

/// One segment, broadcast.
#[derive(Clone, Copy)]
struct SegLanes<L> {
    sx: L,
    sy: L,
    x1: L,
    y1: L,
    ex: L,
    ey: L,
}

/// Tests one segment against every lane's ray and keeps the closer hits.
#[inline(always)]
fn test_segment<L: Lane>(ray: &RayLanes<L>, t_max: L, g: &SegLanes<L>, j: L, best: &mut Best<L>) {
    let zero = L::splat(L::Scalar::ZERO);
    let one = L::splat(L::Scalar::ONE);
    let (wx, wy) = (g.sx - ray.ox, g.sy - ray.oy);
    let den = ray.dx * g.ey - ray.dy * g.ex;
    let tn = wx * g.ey - wy * g.ex;
    let sn = wx * ray.dy - wy * ray.dx;
    // Fold the sign of the denominator into the numerators.
    let flip = den.lt(zero);
    let ad = L::select(flip, -den, den);
    let tp = L::select(flip, -tn, tn);
    let sp = L::select(flip, -sn, sn);
    let crossing = zero.lt(ad) & zero.le(tp) & zero.le(sp) & sp.le(ad);
    // `+ 0` turns a `-0.0` quotient into `+0.0`.
    let mut t = tp / ad + zero;
    let (mut sn, mut ad) = (sp, ad);
    let mut hit = crossing & t.le(t_max);

    let collinear = den.eq_(zero) & sn.eq_(zero);
    if L::any(collinear) {
        // Parameters along the larger component of D, exact ratios of the rounded differences.
        let abs = |v: L| L::select(v.lt(zero), -v, v);
        let along_x = abs(ray.dy).le(abs(ray.dx));
        let (ux, uy) = (g.x1 - ray.ox, g.y1 - ray.oy);
        let ta = L::select(along_x, wx / ray.dx, wy / ray.dy);
        let tb = L::select(along_x, ux / ray.dx, uy / ray.dy);
        let a_first = ta.le(tb);
        let lo = L::select(a_first, ta, tb);
        let hi = L::select(a_first, tb, ta);
        let ahead = zero.le(lo);
        let col_hit = collinear & zero.le(hi) & lo.le(t_max);
        let tc = L::select(ahead, lo, zero) + zero;
        // Where the origin lies on the segment, when the overlap starts at the origin.
        let seg_x = abs(g.ey).le(abs(g.ex));
        let so = L::select(seg_x, -wx / g.ex, -wy / g.ey);
        let so = L::select(so.lt(zero), zero, L::select(one.lt(so), one, so)) + zero;
        let sc = L::select(ahead, L::select(a_first, zero, one), so);
        t = L::select(col_hit, tc, t);
        sn = L::select(col_hit, sc, sn);
        ad = L::select(col_hit, one, ad);
        hit = hit | col_hit;
    }
    let better = hit & t.lt(best.t);
    best.t = L::select(better, t, best.t);
    best.sn = L::select(better, sn, best.sn);
    best.ad = L::select(better, ad, best.ad);
    best.j = L::select(better, j, best.j);
}

/// The closest hits of the rays in `ray` (one per lane) among all segments.
#[inline(always)]
fn closest<L: Lane>(ray: &RayLanes<L>, t_max: L, segs: &SegmentsRef<'_, L::Scalar>) -> Best<L> {
    let inf = L::splat(L::Scalar::INFINITY);
    let mut best = Best {
        t: inf,
        sn: inf,
        ad: inf,
        j: inf,
    };
    let (x0, y0, x1, y1) = segs.columns();
    let mut j = L::Scalar::ZERO;
    for (((&sx, &sy), &ex1), &ey1) in x0.iter().zip(y0).zip(x1).zip(y1) {
        let finite = sx.finite() && sy.finite() && ex1.finite() && ey1.finite();
        if finite {
            let g = SegLanes {
                sx: L::splat(sx),
                sy: L::splat(sy),
                x1: L::splat(ex1),
                y1: L::splat(ey1),
                ex: L::splat(ex1 - sx),
                ey: L::splat(ey1 - sy),
            };
            test_segment(ray, t_max, &g, L::splat(j), &mut best);
        }
        j = j + L::Scalar::ONE;
    }
    // An invalid ray hits nothing.
    let valid = ray.valid();
    best.t = L::select(valid, best.t, inf);
    best
}

/// The finished answers of every lane: `t` and `s` (NaN on a miss), the segment index as a
/// float (NaN on a miss).
#[inline(always)]
fn finish<L: Lane>(b: &Best<L>) -> (L, L, L) {
    let zero = L::splat(L::Scalar::ZERO);
    let nan = L::splat(L::Scalar::NAN);
    let hit = b.t.lt(L::splat(L::Scalar::INFINITY));
    let s = b.sn / b.ad + zero;
    (
        L::select(hit, b.t, nan),
        L::select(hit, s, nan),
        L::select(hit, b.j, nan),
    )
}

/// The segment index from its float lane, [`NO_HIT`] for NaN.
#[inline(always)]
fn index_of<F: Real>(j: F) -> u32 {
    if j.to_f64().is_nan() {
        NO_HIT
    } else {
        j.to_f64() as u32
    }
}

/// The unit normal of the segments `j` (one per lane), turned to face the ray: `(−ey, ex)/|E|`
/// or its opposite, so that `n · D ≤ 0`; for a zero-length segment `−D/|D|`. NaN where `j` is.
#[inline(always)]
fn normal<L: Lane>(ray: &RayLanes<L>, j: L, segs: &SegmentsRef<'_, L::Scalar>) -> (L, L) {
    let zero = L::splat(L::Scalar::ZERO);
    let mut lanes = [L::Scalar::ZERO; 16];
    j.write(&mut lanes);
    let (x0, y0, x1, y1) = segs.columns();
    let edge = |c1: &[L::Scalar], c0: &[L::Scalar]| {
        L::from_fn(|l| match index_of(lanes[l]) {
            NO_HIT => L::Scalar::NAN,
            k => c1[k as usize] - c0[k as usize],
        })
    };
    let (ex, ey) = (edge(x1, x0), edge(y1, y0));
    let (ux, uy) = unit(ray.dx, ray.dy);
    let (nx, ny) = unit(-ey, ex);
    let away = zero.lt(nx * ray.dx + ny * ray.dy);
    let point = ex.eq_(zero) & ey.eq_(zero);
    (
        L::select(point, -ux, L::select(away, -nx, nx)),
        L::select(point, -uy, L::select(away, -ny, ny)),
    )
}

/// The closest hit of one ray among `segs` (the same code as the batch, on one lane).
///
/// Errors: `t_max` NaN or negative, more segments than the float type indexes exactly.
pub fn cast_segments_one<F: Real>(
    ray: &super::Ray<F>,
    segs: &SegmentsRef<'_, F>,
    t_max: F,
) -> Result<SegmentHit<F>, Error> {
    check_t_max(t_max)?;
    check_count::<F>(segs)?;
    let r = RayLanes::from(*ray);
    let (t, s, j) = finish(&closest(&r, t_max, segs));
    Ok(SegmentHit {
        t,
        s,
        index: index_of(j),
        normal: normal(&r, j, segs),
    })
}

/// The segment count must be exact as a float of `F`.
fn check_count<F: Real>(segs: &SegmentsRef<'_, F>) -> Result<(), Error> {
    let limit: u64 = if core::mem::size_of::<F>() == 4 {
        1 << 24
    } else {
        1 << 53
    };
    let n = segs.columns().0.len() as u64;
    if n > limit || n >= NO_HIT as u64 {
        return Err(Error::InvalidArgument(format!(
            "{n} segments is more than {} can index exactly ({limit})",
            F::DTYPE
        )));
    }
    Ok(())
}

/// Where closest-hit results go; `None` outputs are skipped. Each buffer must be as long as the
/// batch of rays.
#[derive(Debug, Default)]
pub struct SegmentsCastOutput<'a, F> {
    /// `t` per ray, NaN on a miss.
    pub t: Option<&'a mut [F]>,
    /// `s` per ray, NaN on a miss.
    pub s: Option<&'a mut [F]>,
    /// The segment index per ray, [`NO_HIT`] on a miss.
    pub index: Option<&'a mut [u32]>,
    /// The normal's x per ray, NaN on a miss.
    pub nx: Option<&'a mut [F]>,
    /// The normal's y per ray, NaN on a miss.
    pub ny: Option<&'a mut [F]>,
}

impl<F: Real> SegmentsCastOutput<'_, F> {
    fn check(&self, n: usize) -> Result<(), Error> {
        check_opt("t", n, &self.t)?;
        check_opt("s", n, &self.s)?;
        check_opt("index", n, &self.index)?;
        check_opt("nx", n, &self.nx)?;
        check_opt("ny", n, &self.ny)
    }
}

impl<F: Real> SplitOutput for SegmentsCastOutput<'_, F> {
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (t, t2) = split_opt(self.t, mid);
        let (s, s2) = split_opt(self.s, mid);
        let (index, index2) = split_opt(self.index, mid);
        let (nx, nx2) = split_opt(self.nx, mid);
        let (ny, ny2) = split_opt(self.ny, mid);
        (
            SegmentsCastOutput {
                t,
                s,
                index,
                nx,
                ny,
            },
            SegmentsCastOutput {
                t: t2,
                s: s2,
                index: index2,
                nx: nx2,
                ny: ny2,
            },
        )
    }
}

/// The closest hit of every ray among `segs`: SIMD across rays, rayon across chunks of 1024
/// rays from 64K ray × segment tests up. The same bits as [`cast_segments_one`] ray by ray, at any thread count.
///
/// Errors before any work: `t_max` NaN or negative, an output of the wrong length, more
/// segments than the float type indexes exactly.
pub fn cast_segments<F: Real>(
    rays: &RaysRef<'_, F>,
    segs: &SegmentsRef<'_, F>,
    t_max: F,
    out: SegmentsCastOutput<'_, F>,
) -> Result<(), Error> {
    check_t_max(t_max)?;
    check_count::<F>(segs)?;
    let n = rays.len();
    out.check(n)?;
    drive(rays, out, segs.columns().0.len(), &Query { segs, t_max });
    Ok(())
}

/// [`cast_segments`] for the batch driver.
struct Query<'s, F> {
    segs: &'s SegmentsRef<'s, F>,
    t_max: F,
}

impl<F: Real> RayQuery<F, SegmentsCastOutput<'_, F>> for Query<'_, F> {
    #[inline(always)]
    fn run<L: Lane<Scalar = F>>(
        &self,
        o: &mut SegmentsCastOutput<'_, F>,
        i: usize,
        r: &RayLanes<L>,
    ) {
        let (t, s, j) = finish(&closest(r, L::splat(self.t_max), self.segs));
        put(&mut o.t, i, t);
        put(&mut o.s, i, s);
        if let Some(k) = o.index.as_deref_mut() {
            write_as(j, &mut k[i..], index_of);
        }
        if o.nx.is_some() || o.ny.is_some() {
            let (nx, ny) = normal(r, j, self.segs);
            put(&mut o.nx, i, nx);
            put(&mut o.ny, i, ny);
        }
    }
}
