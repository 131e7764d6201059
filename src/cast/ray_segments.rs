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
//!         keep t and j when t < best_t     (strictly: ties go to the lowest index;
//!                                           best_t starts just above t_max)
//! then, per chunk of rays and only when asked: gather each lane's winning segment, redo its
//! test for s (the same operations on the same numbers), and its unit normal facing the ray
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

/// The closest hit so far, per lane: its `t` and the segment index as a float (exact below 2^24
/// in `f32`; NaN until a hit). `t` starts just above `t_max`, so that `t < best.t` also says
/// `t ≤ t_max`. The segment's own parameter `s` is not carried through the loop: it is worked
/// out again for the winner only, by the same arithmetic (see [`Winner`]).
#[derive(Clone, Copy)]
struct Best<L> {
    t: L,
    j: L,
}

/// One segment, broadcast to every lane (or, for the winners, one segment per lane).
#[derive(Clone, Copy)]
struct SegLanes<L> {
    sx: L,
    sy: L,
    x1: L,
    y1: L,
    ex: L,
    ey: L,
}

/// What one segment gives each lane's ray: `t`, `s = sn / ad`, and whether it is a hit in
/// `[0, t_max]` — for a crossing the caller's `t < best.t` makes the `t ≤ t_max` test.
#[derive(Clone, Copy)]
struct Candidate<L: Lane> {
    t: L,
    sn: L,
    ad: L,
    hit: L::Mask,
}

/// The hit of one segment per lane; see the module docs for the cases.
#[inline(always)]
fn candidate<L: Lane>(ray: &RayLanes<L>, t_max: L, g: &SegLanes<L>) -> Candidate<L> {
    let zero = L::splat(L::Scalar::ZERO);
    let one = L::splat(L::Scalar::ONE);
    let (wx, wy) = (g.sx - ray.ox, g.sy - ray.oy);
    let den = ray.dx * g.ey - ray.dy * g.ex;
    let tn = wx * g.ey - wy * g.ex;
    let sn = wx * ray.dy - wy * ray.dx;
    // Fold the sign of the denominator into `s`'s numerator. `tn / den` is the same quotient
    // as `±tn / |den|` (IEEE division is symmetric in sign), and `+ 0` turns a `-0.0` into
    // `+0.0`; a crossing needs `0 ≤ t`, so `t` is never `-0.0` or negative.
    let ad = den.abs();
    let sp = L::select(den.lt(zero), -sn, sn);
    let mut t = tn / den + zero;
    let mut c = Candidate {
        t,
        sn: sp,
        ad,
        hit: zero.lt(ad) & zero.le(t) & zero.le(sp) & sp.le(ad),
    };

    let collinear = den.eq_(zero) & sn.eq_(zero);
    if L::any(collinear) {
        // Parameters along the larger component of D, exact ratios of the rounded differences.
        let along_x = ray.dy.abs().le(ray.dx.abs());
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
        let seg_x = g.ey.abs().le(g.ex.abs());
        let so = L::select(seg_x, -wx / g.ex, -wy / g.ey);
        let so = L::select(so.lt(zero), zero, L::select(one.lt(so), one, so)) + zero;
        let sc = L::select(ahead, L::select(a_first, zero, one), so);
        t = L::select(col_hit, tc, t);
        c = Candidate {
            t,
            sn: L::select(col_hit, sc, c.sn),
            ad: L::select(col_hit, one, c.ad),
            hit: c.hit | col_hit,
        };
    }
    c
}

/// One finite segment as the inner loop reads it: start, end, `E = P1 − P0`, and its index as
/// a float. A batch makes them once (see [`rows`]), so the loop over segments does no per-ray
/// filtering or subtraction.
#[derive(Clone, Copy)]
struct Row<F> {
    sx: F,
    sy: F,
    x1: F,
    y1: F,
    ex: F,
    ey: F,
    j: F,
}

/// The segments with finite coordinates, in index order: the others are never hit.
fn rows<'a, F: Real>(segs: &'a SegmentsRef<'_, F>) -> impl Iterator<Item = Row<F>> + 'a {
    let (x0, y0, x1, y1) = segs.columns();
    let mut j = F::ZERO;
    x0.iter()
        .zip(y0)
        .zip(x1)
        .zip(y1)
        .filter_map(move |(((&sx, &sy), &x1), &y1)| {
            let row = Row {
                sx,
                sy,
                x1,
                y1,
                ex: x1 - sx,
                ey: y1 - sy,
                j,
            };
            j = j + F::ONE;
            (sx.finite() && sy.finite() && x1.finite() && y1.finite()).then_some(row)
        })
}

/// The closest hits of the rays in `ray` (one per lane) among the segment `rows`. A closer hit
/// replaces the best strictly, so ties go to the lowest index.
#[inline(always)]
fn closest<L: Lane>(
    ray: &RayLanes<L>,
    t_max: L::Scalar,
    rows: impl Iterator<Item = Row<L::Scalar>>,
) -> Best<L> {
    let nan = L::splat(L::Scalar::NAN);
    let t_max_lanes = L::splat(t_max);
    let mut best = Best {
        t: L::splat(t_max.next_up()),
        j: nan,
    };
    for r in rows {
        let g = SegLanes {
            sx: L::splat(r.sx),
            sy: L::splat(r.sy),
            x1: L::splat(r.x1),
            y1: L::splat(r.y1),
            ex: L::splat(r.ex),
            ey: L::splat(r.ey),
        };
        let c = candidate(ray, t_max_lanes, &g);
        let better = c.hit & c.t.lt(best.t);
        best.t = L::select(better, c.t, best.t);
        best.j = L::select(better, L::splat(r.j), best.j);
    }
    // An invalid ray hits nothing.
    let valid = ray.valid();
    best.j = L::select(valid, best.j, nan);
    best
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

/// The winning segment of every lane, gathered once per chunk of rays for `s` and the normal;
/// NaN where the lane missed.
struct Winner<L: Lane> {
    hit: L::Mask,
    g: SegLanes<L>,
}

impl<L: Lane> Winner<L> {
    #[inline(always)]
    fn gather(j: L, segs: &SegmentsRef<'_, L::Scalar>) -> Self {
        let mut lanes = [L::Scalar::ZERO; 16];
        j.write(&mut lanes);
        let (x0, y0, x1, y1) = segs.columns();
        let column = |c: &[L::Scalar]| {
            L::from_fn(|l| match index_of(lanes[l]) {
                NO_HIT => L::Scalar::NAN,
                k => c[k as usize],
            })
        };
        let (sx, sy, ex1, ey1) = (column(x0), column(y0), column(x1), column(y1));
        Winner {
            hit: j.eq_(j),
            g: SegLanes {
                sx,
                sy,
                x1: ex1,
                y1: ey1,
                ex: ex1 - sx,
                ey: ey1 - sy,
            },
        }
    }

    /// `s` of the winning hit, NaN on a miss: the winner's [`candidate`] again, the same
    /// operations on the same numbers as when it won, divided once.
    #[inline(always)]
    fn s(&self, ray: &RayLanes<L>, t_max: L::Scalar) -> L {
        let c = candidate(ray, L::splat(t_max), &self.g);
        let s = c.sn / c.ad + L::splat(L::Scalar::ZERO);
        L::select(self.hit, s, L::splat(L::Scalar::NAN))
    }

    /// The winner's unit normal, turned to face the ray: `(−ey, ex)/|E|` or its opposite, so
    /// that `n · D ≤ 0`; for a zero-length segment `−D/|D|`. NaN on a miss.
    #[inline(always)]
    fn normal(&self, ray: &RayLanes<L>) -> (L, L) {
        let zero = L::splat(L::Scalar::ZERO);
        let (ex, ey) = (self.g.ex, self.g.ey);
        let (ux, uy) = unit(ray.dx, ray.dy);
        let (nx, ny) = unit(-ey, ex);
        let away = zero.lt(nx * ray.dx + ny * ray.dy);
        let point = ex.eq_(zero) & ey.eq_(zero);
        (
            L::select(point, -ux, L::select(away, -nx, nx)),
            L::select(point, -uy, L::select(away, -ny, ny)),
        )
    }
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
    let best = closest(&r, t_max, rows(segs));
    let w = Winner::gather(best.j, segs);
    Ok(SegmentHit {
        t: if w.hit { best.t } else { F::NAN },
        s: w.s(&r, t_max),
        index: index_of(best.j),
        normal: w.normal(&r),
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
    let table: Vec<Row<F>> = rows(segs).collect();
    let query = Query {
        segs,
        rows: &table,
        t_max,
    };
    drive(rays, out, segs.columns().0.len(), &query);
    Ok(())
}

/// [`cast_segments`] for the batch driver.
struct Query<'s, F> {
    segs: &'s SegmentsRef<'s, F>,
    rows: &'s [Row<F>],
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
        let best = closest(r, self.t_max, self.rows.iter().copied());
        let hit = best.j.eq_(best.j);
        put(&mut o.t, i, L::select(hit, best.t, L::splat(F::NAN)));
        if let Some(k) = o.index.as_deref_mut() {
            write_as(best.j, &mut k[i..], index_of);
        }
        if o.s.is_some() || o.nx.is_some() || o.ny.is_some() {
            let w = Winner::gather(best.j, self.segs);
            if o.s.is_some() {
                put(&mut o.s, i, w.s(r, self.t_max));
            }
            if o.nx.is_some() || o.ny.is_some() {
                let (nx, ny) = w.normal(r);
                put(&mut o.nx, i, nx);
                put(&mut o.ny, i, ny);
            }
        }
    }
}
