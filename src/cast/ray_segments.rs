//! N rays × M segments: the closest hit per ray.
//!
//! ```text
//! for each chunk of LANES rays (rayon over chunks of 1024 rays from 64K tests):
//!     best_t = next_up(t_max)
//!     for each segment j (broadcast to every lane), S = P0, E = P1 − P0, W = S − O:
//!         den = D × E     tn = W × E     sn = W × D          (a × b = ax·by − ay·bx)
//!         crossing:  den ≠ 0, t = tn/den ∈ [0, t_max], s = sn/den ∈ [0, 1]
//!         collinear: den = 0 and sn = 0: the overlap of [t(P0), t(P1)] with [0, t_max],
//!                    hit at its first point (t along D's larger component)
//!         keep t and j when t < best_t     (strictly: ties go to the lowest index;
//!                                           best_t starts just above t_max)
//!         (and, only when asked, carry the winner's sn, ad and left unit normal, which the
//!          batch computes once per segment)
//! then s = sn / ad, and the normal turned to face the ray
//! ```
//!
//! `s`'s range test is done on its numerator with the denominator's sign folded in, so `s` is a
//! quotient of nonnegative numbers and `s ∈ [0, 1]` holds after rounding; `t` and `s` are
//! reported as `+0.0`, never `-0.0`. Lanes run across rays with each segment broadcast: the
//! closest-hit reduction then stays in each lane, with no horizontal step, and ties resolve by
//! iteration order.
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

/// The closest hit so far, per lane: its `t`, the segment index as a float (exact below 2^24 in
/// `f32`), and what the winner gives `s` (`sn / ad`, divided once at the end) and the normal.
/// NaN until a hit, but `t`, which starts just above `t_max` so that `t < best.t` also says
/// `t ≤ t_max`. Only the parts asked for are carried (`S`, `N` of [`closest`]).
#[derive(Clone, Copy)]
pub(crate) struct Best<L> {
    pub t: L,
    pub j: L,
    pub sn: L,
    pub ad: L,
    pub nx: L,
    pub ny: L,
}

/// One segment, broadcast to every lane.
#[derive(Clone, Copy)]
pub(crate) struct SegLanes<L> {
    sx: L,
    sy: L,
    x1: L,
    y1: L,
    ex: L,
    ey: L,
}

impl<L: Lane> SegLanes<L> {
    /// One segment per lane: start, end and `E = P1 − P0` (as [`Row`] computes it).
    #[inline(always)]
    pub(crate) fn new(sx: L, sy: L, x1: L, y1: L, ex: L, ey: L) -> Self {
        SegLanes {
            sx,
            sy,
            x1,
            y1,
            ex,
            ey,
        }
    }
}

/// What one segment gives each lane's ray: `t`, `s = sn / ad`, and whether it is a hit in
/// `[0, t_max]`. For a crossing, the caller's `t < best.t` is part of the test: it makes
/// `t ≤ t_max` and refuses the `t = +∞` of a parallel segment (or of an overflow).
#[derive(Clone, Copy)]
pub(crate) struct Candidate<L: Lane> {
    pub t: L,
    pub sn: L,
    pub ad: L,
    pub hit: L::Mask,
}

/// The hit of one segment per lane; see the module docs for the cases.
#[inline(always)]
pub(crate) fn candidate<L: Lane>(ray: &RayLanes<L>, t_max: L, g: &SegLanes<L>) -> Candidate<L> {
    let (c, collinear) = crossing(ray, g.sx, g.sy, g.ex, g.ey);
    finish_collinear(ray, t_max, g, c, collinear)
}

/// The part of [`candidate`] that reads only `P0` and `E`: its answer where the ray and the
/// segment are not collinear, and the lanes where they are (`den = sn = 0`), which
/// [`candidate`] then finishes from `P1` (a caller may skip that when no lane is collinear:
/// the bits are the same). A hit needs `0 ≤ sn' ≤ |den|` in either case (a collinear lane
/// has `sn' = ±0 = |den|`).
#[inline(always)]
pub(crate) fn crossing<L: Lane>(
    ray: &RayLanes<L>,
    sx: L,
    sy: L,
    ex: L,
    ey: L,
) -> (Candidate<L>, L::Mask) {
    let zero = L::splat(L::Scalar::ZERO);
    let (wx, wy) = (sx - ray.ox, sy - ray.oy);
    let den = ray.dx * ey - ray.dy * ex;
    let tn = wx * ey - wy * ex;
    let sn = wx * ray.dy - wy * ray.dx;
    // Fold the sign of the denominator into `s`'s numerator. `tn / den` is the same quotient
    // as `±tn / |den|` (IEEE division is symmetric in sign). A crossing needs `0 ≤ t` (it may
    // be `-0.0`, made `+0.0` in `Best::t`) and `den ≠ 0`: there `t` is ±∞ or NaN, which
    // `0 ≤ t < best.t ≤ +∞` already refuses, so `den` is not tested.
    let ad = den.abs();
    let sp = L::select(den.lt(zero), -sn, sn);
    let t = tn / den;
    let c = Candidate {
        t,
        sn: sp,
        ad,
        hit: zero.le(t) & zero.le(sp) & sp.le(ad),
    };
    (c, den.eq_(zero) & sn.eq_(zero))
}

/// [`candidate`]'s collinear lanes, from [`crossing`]'s answer.
#[inline(always)]
pub(crate) fn finish_collinear<L: Lane>(
    ray: &RayLanes<L>,
    t_max: L,
    g: &SegLanes<L>,
    mut c: Candidate<L>,
    collinear: L::Mask,
) -> Candidate<L> {
    if L::any(collinear) {
        let zero = L::splat(L::Scalar::ZERO);
        let one = L::splat(L::Scalar::ONE);
        let (wx, wy) = (g.sx - ray.ox, g.sy - ray.oy);
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
        let tc = L::select(ahead, lo, zero);
        // Where the origin lies on the segment, when the overlap starts at the origin.
        let seg_x = g.ey.abs().le(g.ex.abs());
        let so = L::select(seg_x, -wx / g.ex, -wy / g.ey);
        let so = L::select(so.lt(zero), zero, L::select(one.lt(so), one, so)) + zero;
        let sc = L::select(ahead, L::select(a_first, zero, one), so);
        c.t = L::select(col_hit, tc, c.t);
        c.sn = L::select(col_hit, sc, c.sn);
        c.ad = L::select(col_hit, one, c.ad);
        c.hit = c.hit | col_hit;
    }
    c
}

/// One finite segment as the inner loop reads it: start, end, `E = P1 − P0`, and its index as
/// a float.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row<F> {
    pub sx: F,
    pub sy: F,
    pub x1: F,
    pub y1: F,
    pub ex: F,
    pub ey: F,
    pub j: F,
}

impl<F: Real> Row<F> {
    /// The segment `(sx, sy) → (x1, y1)` of index `j`; `None` (never hit) for a non-finite
    /// coordinate.
    #[inline(always)]
    pub(crate) fn new(sx: F, sy: F, x1: F, y1: F, j: F) -> Option<Self> {
        let finite = sx.finite() && sy.finite() && x1.finite() && y1.finite();
        finite.then(|| Row {
            sx,
            sy,
            x1,
            y1,
            ex: x1 - sx,
            ey: y1 - sy,
            j,
        })
    }

    /// This segment broadcast to every lane of `L`, as [`candidate`] reads it.
    #[inline(always)]
    pub(crate) fn lanes<L: Lane<Scalar = F>>(&self) -> SegLanes<L> {
        SegLanes {
            sx: L::splat(self.sx),
            sy: L::splat(self.sy),
            x1: L::splat(self.x1),
            y1: L::splat(self.y1),
            ex: L::splat(self.ex),
            ey: L::splat(self.ey),
        }
    }

    /// The segment of float index `j` in `segs`; `None` for NaN (no hit).
    fn of(segs: &SegmentsRef<'_, F>, j: F) -> Option<Self> {
        let k = match index_of(j) {
            NO_HIT => return None,
            k => k as usize,
        };
        let (x0, y0, x1, y1) = segs.columns();
        Row::new(x0[k], y0[k], x1[k], y1[k], j)
    }
}

/// The finite segments of `segs` as rows, in index order.
fn rows<'a, F: Real>(segs: &'a SegmentsRef<'_, F>) -> impl Iterator<Item = Row<F>> + 'a {
    let (x0, y0, x1, y1) = segs.columns();
    let mut j = F::ZERO;
    let all = x0.iter().zip(y0).zip(x1).zip(y1);
    all.filter_map(move |(((&sx, &sy), &x1), &y1)| {
        let row = Row::new(sx, sy, x1, y1, j);
        j = j + F::ONE;
        row
    })
}

/// What the batch knows of one segment: its row for the test, and its left unit normal
/// `(−ey, ex)/|E|` (NaN for zero length), made once per batch so that a hit only copies it.
#[derive(Clone, Copy)]
pub(crate) struct Entry<F> {
    pub row: Row<F>,
    pub nx: F,
    pub ny: F,
}

impl<F: Real> Entry<F> {
    /// The entries of the finite segments, in index order.
    fn table(segs: &SegmentsRef<'_, F>) -> Vec<Entry<F>> {
        rows(segs).map(Entry::of).collect()
    }

    /// The entry of `row` without its normal (NaN), for a loop that does not carry it.
    fn bare(row: Row<F>) -> Self {
        Entry {
            row,
            nx: F::NAN,
            ny: F::NAN,
        }
    }

    pub(crate) fn of(row: Row<F>) -> Self {
        let (nx, ny) = unit(-row.ey, row.ex);
        Entry { row, nx, ny }
    }
}

/// The closest hits of the rays in `ray` (one per lane) among the segment `entries`, carrying
/// `s`'s fraction when `S` and the normal when `N`. A closer hit replaces the best strictly, so
/// ties go to the lowest index.
#[inline(always)]
fn closest<L: Lane, const S: bool, const N: bool>(
    ray: &RayLanes<L>,
    t_max: L::Scalar,
    entries: impl Iterator<Item = Entry<L::Scalar>>,
) -> Best<L> {
    let nan = L::splat(L::Scalar::NAN);
    let t_max_lanes = L::splat(t_max);
    let mut best = Best {
        t: L::splat(t_max.next_up()),
        j: nan,
        sn: nan,
        ad: nan,
        nx: nan,
        ny: nan,
    };
    for e in entries {
        let r = &e.row;
        let c = candidate(ray, t_max_lanes, &r.lanes());
        let better = c.hit & c.t.lt(best.t);
        best.t = L::select(better, c.t, best.t);
        best.j = L::select(better, L::splat(r.j), best.j);
        if S {
            best.sn = L::select(better, c.sn, best.sn);
            best.ad = L::select(better, c.ad, best.ad);
        }
        if N {
            best.nx = L::select(better, L::splat(e.nx), best.nx);
            best.ny = L::select(better, L::splat(e.ny), best.ny);
        }
    }
    // An invalid ray hits nothing.
    best.j = L::select(ray.valid(), best.j, nan);
    best
}

impl<L: Lane> Best<L> {
    #[inline(always)]
    pub(crate) fn hit(&self) -> L::Mask {
        self.j.eq_(self.j)
    }

    /// `t`, NaN on a miss; `+ 0` turns a `-0.0` into `+0.0` (the loop compares both alike).
    #[inline(always)]
    pub(crate) fn t(&self) -> L {
        let t = self.t + L::splat(L::Scalar::ZERO);
        L::select(self.hit(), t, L::splat(L::Scalar::NAN))
    }

    /// `s`, NaN on a miss (when carried).
    #[inline(always)]
    pub(crate) fn s(&self) -> L {
        let s = self.sn / self.ad + L::splat(L::Scalar::ZERO);
        L::select(self.hit(), s, L::splat(L::Scalar::NAN))
    }

    /// The winner's unit normal, turned to face the ray: its left normal or the opposite, so
    /// that `n · D ≤ 0`; for a zero-length segment (whose left normal is NaN) `−D/|D|`. NaN on
    /// a miss (when carried).
    #[inline(always)]
    pub(crate) fn normal(&self, ray: &RayLanes<L>) -> (L, L) {
        let zero = L::splat(L::Scalar::ZERO);
        let nan = L::splat(L::Scalar::NAN);
        let hit = self.hit();
        let (nx, ny) = (self.nx, self.ny);
        let away = zero.lt(nx * ray.dx + ny * ray.dy);
        let mut n = (L::select(away, -nx, nx), L::select(away, -ny, ny));
        let point = hit & !nx.eq_(nx);
        if L::any(point) {
            let (ux, uy) = unit(ray.dx, ray.dy);
            n = (L::select(point, -ux, n.0), L::select(point, -uy, n.1));
        }
        // An invalid ray's lanes may have carried a normal; its `j` was cleared after the loop.
        (L::select(hit, n.0, nan), L::select(hit, n.1, nan))
    }
}

/// The segment index from its float lane, [`NO_HIT`] for NaN.
#[inline(always)]
pub(crate) fn index_of<F: Real>(j: F) -> u32 {
    if j.to_f64().is_nan() {
        NO_HIT
    } else {
        j.to_f64() as u32
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
    // One ray: the normal of the winner only, rather than of every segment.
    let mut best = closest::<F, true, false>(&r, t_max, rows(segs).map(Entry::bare));
    if let Some(row) = Row::of(segs, best.j) {
        let e = Entry::of(row);
        (best.nx, best.ny) = (e.nx, e.ny);
    }
    Ok(best.answer(&r))
}

impl<F: Real> Best<F> {
    /// The hit of one ray from its closest hit (`s` and the normal carried).
    #[inline(always)]
    pub(crate) fn answer(&self, ray: &RayLanes<F>) -> SegmentHit<F> {
        SegmentHit {
            t: self.t(),
            s: self.s(),
            index: index_of(self.j),
            normal: self.normal(ray),
        }
    }
}

/// The segment count must be exact as a float of `F`.
fn check_count<F: Real>(segs: &SegmentsRef<'_, F>) -> Result<(), Error> {
    check_count_n::<F>(segs.columns().0.len())
}

/// A count of `n` segments must be exact as a float of `F`.
pub(crate) fn check_count_n<F: Real>(n: usize) -> Result<(), Error> {
    let limit: u64 = if core::mem::size_of::<F>() == 4 {
        1 << 24
    } else {
        1 << 53
    };
    let n = n as u64;
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
    pub(crate) fn check(&self, n: usize) -> Result<(), Error> {
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
    F::cast_segments(rays, segs, t_max, out);
    Ok(())
}

/// [`cast_segments`] once its arguments are checked (`simd::entries`).
pub(crate) fn cast_segments_checked<F: Real>(
    rays: &RaysRef<'_, F>,
    segs: &SegmentsRef<'_, F>,
    t_max: F,
    out: SegmentsCastOutput<'_, F>,
) {
    let table = Entry::table(segs);
    let query = Query {
        table: &table,
        t_max,
    };
    drive(rays, out, segs.columns().0.len(), &query);
}

/// [`cast_segments`] for the batch driver.
struct Query<'s, F> {
    /// Every segment's [`Entry`].
    table: &'s [Entry<F>],
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
        let (s, n) = (o.s.is_some(), o.nx.is_some() || o.ny.is_some());
        match (s, n) {
            (false, false) => self.answer::<L, false, false>(o, i, r),
            (true, false) => self.answer::<L, true, false>(o, i, r),
            (false, true) => self.answer::<L, false, true>(o, i, r),
            (true, true) => self.answer::<L, true, true>(o, i, r),
        }
    }
}

impl<F: Real> Query<'_, F> {
    /// [`RayQuery::run`] carrying `s` when `S` and the normal when `N`.
    #[inline(always)]
    fn answer<L: Lane<Scalar = F>, const S: bool, const N: bool>(
        &self,
        o: &mut SegmentsCastOutput<'_, F>,
        i: usize,
        r: &RayLanes<L>,
    ) {
        let best = closest::<L, S, N>(r, self.t_max, self.table.iter().copied());
        put(&mut o.t, i, best.t());
        if let Some(k) = o.index.as_deref_mut() {
            write_as(best.j, &mut k[i..], index_of);
        }
        if S {
            put(&mut o.s, i, best.s());
        }
        if N {
            let (nx, ny) = best.normal(r);
            put(&mut o.nx, i, nx);
            put(&mut o.ny, i, ny);
        }
    }
}
