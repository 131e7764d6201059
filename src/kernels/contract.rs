//! What every clip kernel shares: the parameter of a boundary line, and the finishing step that
//! turns an algorithm's raw entry/exit parameters into the exact answers of SPEC §1.
//!
//! An algorithm's only job is to find, for one segment, the *raw* parameters
//!
//! ```text
//! entry = max(0, t of each boundary crossed inward)     exit = min(1, t of each crossed outward)
//! ```
//!
//! (or [`Raw::MISS`]) and which axis each came from. It computes every boundary parameter with
//! [`plane_t`], so that all algorithms see the same numbers. [`finish`] then applies the contract:
//!
//! * `t_entry == 0` iff `P0` is in the closed rect, `t_exit == 1` iff `P1` is, decided by plain
//!   comparisons: an endpoint outside never gets 0 from an underflow (boundary parameters are
//!   sign-exact, see [`plane_t`]) nor 1 from a rounding (`t_exit ≤ 1 − ε/2`), and an endpoint
//!   inside always makes a hit;
//! * with both endpoints outside, a hit needs `entry < 1` and `exit > 0`: exact arithmetic
//!   always has them, so a parameter rounded onto 0 or 1 is a graze and reported as a miss;
//! * NaN or ±∞ in a coordinate gives [`Class::Invalid`](crate::Class::Invalid) and NaN parameters;
//! * a miss gives NaN parameters.
//!
//! [`clipped`] builds the clipped segment: an endpoint inside is returned bit for bit, a cut
//! endpoint gets exactly the bound of the edge that cut it as one coordinate, and the other
//! coordinate is clamped into the rect, so no rounding puts a point a hair outside.

use crate::geom::{Rect, Segment};
use crate::real::Lane;

/// The rect with every bound broadcast to the lanes of `L`.
#[derive(Clone, Copy)]
pub(crate) struct RectLanes<L> {
    pub xmin: L,
    pub ymin: L,
    pub xmax: L,
    pub ymax: L,
}

impl<L: Lane> RectLanes<L> {
    #[inline(always)]
    pub fn splat(r: &Rect<L::Scalar>) -> Self {
        RectLanes {
            xmin: L::splat(r.xmin()),
            ymin: L::splat(r.ymin()),
            xmax: L::splat(r.xmax()),
            ymax: L::splat(r.ymax()),
        }
    }

    /// Whether `(x, y)` is in the closed rect.
    #[inline(always)]
    pub fn contains(&self, x: L, y: L) -> L::Mask {
        self.xmin.le(x) & x.le(self.xmax) & self.ymin.le(y) & y.le(self.ymax)
    }
}

/// An algorithm's unfinished answer for one segment (or one lane each).
#[derive(Clone, Copy)]
pub(crate) struct Raw<L: Lane> {
    /// `max(0, inward crossings)`, unclamped above. `+∞` on a sure miss.
    pub entry: L,
    /// `min(1, outward crossings)`, unclamped below. NaN on a sure miss.
    pub exit: L,
    /// The entry parameter came from a horizontal edge (`y = ymin` or `y = ymax`).
    pub entry_y: L::Mask,
    /// The exit parameter came from a horizontal edge.
    pub exit_y: L::Mask,
}

impl<L: Lane> Raw<L> {
    /// From the largest inward and the smallest outward boundary parameter: `entry = max(near,
    /// 0)`, `exit = min(far, 1)`.
    #[inline(always)]
    pub fn from_planes(near: L, far: L, entry_y: L::Mask, exit_y: L::Mask) -> Self {
        use crate::Real;
        Self::from_planes_upto(near, far, L::splat(L::Scalar::ONE), entry_y, exit_y)
    }

    /// [`Raw::from_planes`] for the range `[0, top]`: `exit = min(far, top)`.
    #[inline(always)]
    pub fn from_planes_upto(near: L, far: L, top: L, entry_y: L::Mask, exit_y: L::Mask) -> Self {
        use crate::Real;
        let zero = L::splat(L::Scalar::ZERO);
        Raw {
            entry: L::select(near.gt(zero), near, zero),
            exit: L::select(far.lt(top), far, top),
            entry_y,
            exit_y,
        }
    }
}

impl<F: crate::Real> Raw<F> {
    /// A sure miss (a trivial reject).
    pub const MISS: Raw<F> = Raw {
        entry: F::INFINITY,
        exit: F::NAN,
        entry_y: false,
        exit_y: false,
    };
}

/// The finished clip of one segment (or one lane each): the contract's answer.
#[derive(Clone, Copy)]
pub(crate) struct Finished<L: Lane> {
    /// All four coordinates are finite.
    pub valid: L::Mask,
    /// `t_entry`, NaN on a miss or an invalid segment.
    pub t_entry: L,
    /// `t_exit`, NaN on a miss or an invalid segment.
    pub t_exit: L,
    pub entry_y: L::Mask,
    pub exit_y: L::Mask,
}

/// `a − b` and its rounding error: `a − b = s + e` exactly (Knuth's TwoSum), while finite.
#[inline(always)]
fn two_diff<L: Lane>(a: L, b: L) -> (L, L) {
    let s = a - b;
    let bb = s - a;
    let e = (a - (s - bb)) - (b + bb);
    (s, e)
}

/// `(a + ea) / (b + eb)` to within about one ulp, from the rounded parts and their errors.
///
/// The plain quotient `a / b` of two rounded differences can be 2.5 ulps off the exact ratio,
/// more than SPEC §1 allows; one correction term brings it back. Non-finite quotients (a zero
/// denominator, an overflow) are passed through untouched so that no `∞ − ∞` makes a NaN.
#[inline(always)]
fn ratio<L: Lane>((a, ea): (L, L), (b, eb): (L, L)) -> L {
    let q = a / b;
    let c = (ea - q * eb) / b;
    L::select(q.finite(), q + c, q)
}

/// `a − q·b` rounded once, for `q·b` close to `a` (within a factor of 2) and magnitudes far from
/// overflow and underflow, as in [`fast_t`].
///
/// With the `fma` target feature this is one fused multiply-add. Without it, Dekker's exact
/// product `q·b = p + e` (Veltkamp splitting) gives the same bits: `a − p` is exact (Sterbenz),
/// and `(a − p) − e` rounds the same exact value once, as the fused operation does.
#[inline(always)]
fn residual<L: Lane>(a: L, q: L, b: L) -> L {
    #[cfg(target_feature = "fma")]
    {
        (-q).mul_add(b, a)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        use crate::Real;
        let split = |x: L| {
            let c = L::splat(L::Scalar::SPLIT) * x;
            let hi = c - (c - x);
            (hi, x - hi)
        };
        let p = q * b;
        let ((qh, ql), (bh, bl)) = (split(q), split(b));
        let e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;
        (a - p) - e
    }
}

/// The parameter `t` where the line through `p0`, `p1` meets the line `coordinate = bound`:
/// `(bound − p0) / (p1 − p0)`, within about half an ulp of the exact value.
///
/// `p1 == p0` (a parallel axis, `0.0` or `-0.0` difference) gives ±∞ or NaN, as `a / ±0` would;
/// callers replace it before use. See [`fast_t`] for the arithmetic and [`careful_t`] for
/// the lanes it leaves.
#[inline(always)]
pub(crate) fn plane_t<L: Lane>(bound: L, p0: L, p1: L) -> L {
    let den = two_diff(p1, p0);
    boundary_t(bound, p0, den, p0.lt(p1), |h| two_diff(p1 * h, p0 * h))
}

/// The parameter `t` where the ray `o + t·d` meets the line `coordinate = bound`: `(bound − o)
/// / d`, for a direction `d` known exactly (no rounding error in the denominator). The same
/// computation and guarantees as [`plane_t`]: sign-exact, and `d == 0` gives ±∞ or NaN for the
/// caller to replace.
#[inline(always)]
pub(crate) fn ray_plane_t<L: Lane>(bound: L, o: L, d: L) -> L {
    use crate::Real;
    let zero = L::splat(L::Scalar::ZERO);
    boundary_t(bound, o, (d, zero), zero.lt(d), |h| (d * h, zero))
}

/// `(bound − p0) / den` for a denominator given as a (value, rounding error) pair, positive when
/// `ahead`: [`fast_t`] where it holds, else [`careful_t`] (`den_half(½)` gives the halved
/// denominator for its overflow path). The body [`plane_t`] and [`ray_plane_t`] share.
#[inline(always)]
fn boundary_t<L: Lane>(
    bound: L,
    p0: L,
    den: (L, L),
    ahead: L::Mask,
    den_half: impl FnOnce(L) -> (L, L),
) -> L {
    let (t, settled) = fast_t(bound, p0, den);
    if L::any(!settled) {
        L::select(settled, t, careful_t(bound, p0, den, ahead, den_half))
    } else {
        t
    }
}

/// `(bound − p0) / (b + eb)` by one reciprocal and an exact residual, and which lanes it settles.
///
/// ```text
/// A = a + ea = bound − p0,  B = b + eb               exact, as rounded part + error (TwoSum)
/// r  = 1 / b                 one division, shared by both bounds of an axis
/// q0 = a · r                 within ~2 ulps of A / B
/// t  = q0 + (A − q0·B) · r   A − q0·B = (a − q0·b) + ea − q0·eb, the first part rounded once
///                            (`residual`); the rest only nudges a correction already ≪ 1 ulp
/// ```
///
/// The form holds while every magnitude is far from underflow and overflow: `r` and `q0` within
/// [`FAST_MIN`](crate::Real::FAST_MIN)`..=FAST_MAX` (or `bound == p0`). Those lanes, and parallel
/// ones (`t = q0 = a·(1/±0)`, ±∞ or NaN), are `settled`; the rest (huge or tiny coordinate
/// differences, NaN, ±∞) must take [`careful_t`]. Ordinary data never does.
#[inline(always)]
fn fast_t<L: Lane>(bound: L, p0: L, den: (L, L)) -> (L, L::Mask) {
    use crate::Real;
    let r = L::splat(L::Scalar::ONE) / den.0;
    let f = fast_parts(bound, p0, den, r);
    let fast = f.settled(r);
    let zero = L::splat(L::Scalar::ZERO);
    (L::select(fast, f.t, f.q0), fast | den.0.eq_(zero))
}

/// [`fast_t`]'s arithmetic with the reciprocal `r = 1/b` given, and what its check needs.
#[derive(Clone, Copy)]
struct FastParts<L> {
    t: L,
    q0: L,
    a: L,
}

#[inline(always)]
fn fast_parts<L: Lane>(bound: L, p0: L, (b, eb): (L, L), r: L) -> FastParts<L> {
    let (a, ea) = two_diff(bound, p0);
    let q0 = a * r;
    let n = (residual(a, q0, b) + ea) - q0 * eb;
    FastParts {
        t: q0 + n * r,
        q0,
        a,
    }
}

impl<L: Lane> FastParts<L> {
    /// The lanes where `t` is right: `r` and `q0` within the fast range, or `bound == p0`.
    #[inline(always)]
    fn settled(&self, r: L) -> L::Mask {
        use crate::Real;
        let (lo, hi) = (L::splat(L::Scalar::FAST_MIN), L::splat(L::Scalar::FAST_MAX));
        let in_range = |x: L| {
            let m = x.abs();
            lo.le(m) & m.le(hi)
        };
        in_range(r) & (in_range(self.q0) | self.a.eq_(L::splat(L::Scalar::ZERO)))
    }
}

/// Both boundary parameters of one axis by [`fast_t`]'s arithmetic, unchecked: `t` is
/// `(t(lo), t(hi))`, right where [`fast_settles`] says so.
#[derive(Clone, Copy)]
pub(crate) struct AxisFast<L> {
    pub t: (L, L),
    r: L,
    b: L,
    parts: (FastParts<L>, FastParts<L>),
}

#[inline(always)]
pub(crate) fn axis_fast<L: Lane>(lo: L, hi: L, p0: L, p1: L) -> AxisFast<L> {
    use crate::Real;
    let (one, zero) = (L::splat(L::Scalar::ONE), L::splat(L::Scalar::ZERO));
    let den = two_diff(p1, p0);
    // The slab settles a parallel axis whatever its `t`: dividing by 1 there keeps the lane in
    // range for the test of `fast_settles`.
    let b = L::select(den.0.eq_(zero), one, den.0);
    let r = one / b;
    let parts = (
        fast_parts(lo, p0, (b, den.1), r),
        fast_parts(hi, p0, (b, den.1), r),
    );
    AxisFast {
        t: (parts.0.t, parts.1.t),
        r,
        b: den.0,
        parts,
    }
}

/// Whether [`axis_fast`] settled every lane of both axes but parallel ones (which the slab
/// replaces). First one range test of all the magnitudes at once: `|r|` of both axes and `|q0|`
/// of all four boundaries (1 where `bound == p0`, whose `t = 0` is exact) within the fast range;
/// only where that fails, the per-lane test of [`fast_t`]. (A NaN in a `q0` chain cannot hide a
/// failure: for finite input it needs `r` out of range, and the `r` test has no NaN; lanes with
/// NaN or ±∞ input are invalid, and their answer is NaN whichever way they go.)
#[inline(always)]
pub(crate) fn fast_settles<L: Lane>(x: &AxisFast<L>, y: &AxisFast<L>) -> bool {
    use crate::Real;
    let (lo, hi) = (L::splat(L::Scalar::FAST_MIN), L::splat(L::Scalar::FAST_MAX));
    let (one, zero) = (L::splat(L::Scalar::ONE), L::splat(L::Scalar::ZERO));
    let (rx, ry) = (x.r.abs(), y.r.abs());
    let q = [x.parts.0, x.parts.1, y.parts.0, y.parts.1]
        .map(|p| L::select(p.a.eq_(zero), one, p.q0.abs()));
    let q_lo = q[0].min_any(q[1]).min_any(q[2].min_any(q[3]));
    let q_hi = q[0].max_any(q[1]).max_any(q[2].max_any(q[3]));
    let cheap = lo.le(rx.min_any(ry)) & rx.max_any(ry).le(hi) & lo.le(q_lo) & q_hi.le(hi);
    if !L::any(!cheap) {
        return true;
    }
    let axis = |a: &AxisFast<L>| (a.parts.0.settled(a.r) & a.parts.1.settled(a.r)) | a.b.eq_(zero);
    !L::any(!(axis(x) & axis(y)))
}

/// [`boundary_t`] for any finite inputs, within about one ulp: the correction by division, not
/// by reciprocal, and scaled out of overflow.
///
/// The sign is exact: `t` is zero only when `bound == p0`, and a nonzero `t` too small for the
/// float type comes back as ±[`TINY`](crate::Real::TINY) rather than ±0, so comparisons of `t`
/// with 0 decide as exact arithmetic would. (A `-0.0` exit compared equal to `0` once made two
/// endpoints beyond the same edge a hit.) Where `bound − p0` or the denominator would overflow
/// (finite inputs beyond half the float range) everything is halved first; the ratio does not
/// change.
#[inline(never)]
fn careful_t<L: Lane>(
    bound: L,
    p0: L,
    den: (L, L),
    ahead: L::Mask,
    den_half: impl FnOnce(L) -> (L, L),
) -> L {
    use crate::Real;
    let num = two_diff(bound, p0);
    let mut t = ratio(num, den);
    let ok = num.0.finite() & den.0.finite();
    if L::any(!ok) {
        let h = L::splat(L::Scalar::HALF);
        let scaled = ratio(two_diff(bound * h, p0 * h), den_half(h));
        t = L::select(ok, t, scaled);
    }
    let zero = L::splat(L::Scalar::ZERO);
    let tiny = L::splat(L::Scalar::TINY);
    let underflow = t.eq_(zero) & !bound.eq_(p0);
    let up = p0.lt(bound);
    let positive = (up & ahead) | (!up & !ahead);
    L::select(underflow, L::select(positive, tiny, -tiny), t)
}

/// The slab of one axis: the parameters where the line enters and leaves `lo ≤ p ≤ hi`.
#[inline(always)]
pub(crate) fn axis_slab<L: Lane>(lo: L, hi: L, p0: L, p1: L) -> (L, L) {
    let t = (plane_t(lo, p0, p1), plane_t(hi, p0, p1));
    slab_of(lo, hi, p0, p0.lt(p1), p0.eq_(p1), t)
}

/// [`axis_slab`] for the ray `o + t·d`: the same slab, with [`ray_plane_t`] as the boundary
/// parameter (`d == 0` is the parallel case).
#[inline(always)]
pub(crate) fn ray_axis_slab<L: Lane>(lo: L, hi: L, o: L, d: L) -> (L, L) {
    use crate::Real;
    let zero = L::splat(L::Scalar::ZERO);
    let t = (ray_plane_t(lo, o, d), ray_plane_t(hi, o, d));
    slab_of(lo, hi, o, zero.lt(d), d.eq_(zero), t)
}

/// The slab from its two boundary parameters `(t(lo), t(hi))`, given which way the line runs.
///
/// A parallel axis is all of ℝ (`near = −∞`, `far = +∞`) when `lo ≤ p0 ≤ hi`, and empty
/// (`near = +∞`, `far = −∞`) otherwise: no `0/0` or `∞·0` reaches a result.
#[inline(always)]
pub(crate) fn slab_of<L: Lane>(
    lo: L,
    hi: L,
    p0: L,
    rising: L::Mask,
    parallel: L::Mask,
    (t_lo, t_hi): (L, L),
) -> (L, L) {
    let near = L::select(rising, t_lo, t_hi);
    let far = L::select(rising, t_hi, t_lo);
    let inf = L::splat(<L::Scalar as crate::Real>::INFINITY);
    let inside = lo.le(p0) & p0.le(hi);
    (
        L::select(parallel, L::select(inside, -inf, inf), near),
        L::select(parallel, L::select(inside, inf, -inf), far),
    )
}

/// `max(lo, min(x, hi))`, returning `+0.0` rather than `-0.0` when `x` is a zero and `lo` is `+0.0`.
#[inline(always)]
fn clamp<L: Lane>(x: L, lo: L, hi: L) -> L {
    L::select(x.gt(lo), L::select(x.lt(hi), x, hi), lo)
}

/// Applies SPEC §1 to an algorithm's raw answer; see the module docs.
#[inline(always)]
pub(crate) fn finish<L: Lane>(r: &RectLanes<L>, s: &Segment<L>, raw: Raw<L>) -> Finished<L> {
    use crate::Real;
    let valid = s.x0.finite() & s.y0.finite() & s.x1.finite() & s.y1.finite();
    let one = L::splat(L::Scalar::ONE);
    let below_one = L::splat(L::Scalar::ONE_BELOW);
    let ends = Ends {
        start_in: r.contains(s.x0, s.y0),
        end_in: r.contains(s.x1, s.y1),
        top: one,
        below_top: below_one,
    };
    finish_range(valid, ends, raw)
}

/// What [`finish_range`] knows about the ends of the parameter range `[0, top]`.
#[derive(Clone, Copy)]
pub(crate) struct Ends<L: Lane> {
    /// The point at `t = 0` is in the closed shape: `t_entry` is exactly `0`.
    pub start_in: L::Mask,
    /// The point at `t = top` is in the closed shape: `t_exit` is exactly `top`.
    pub end_in: L::Mask,
    /// The end of the range: `1` for a segment, `t_max` for a ray.
    pub top: L,
    /// The largest `t_exit` allowed when `end_in` is false (`1 − ε/2` for a segment).
    pub below_top: L,
}

/// [`finish`] for any parameter range `[0, top]`: the contract's exact ends, misses and invalid
/// input as NaN. Segments against rects go through [`finish`]; rays (`top = t_max`) and convex
/// polygons call this with their own [`Ends`].
#[inline(always)]
pub(crate) fn finish_range<L: Lane>(valid: L::Mask, e: Ends<L>, raw: Raw<L>) -> Finished<L> {
    use crate::Real;
    let zero = L::splat(L::Scalar::ZERO);
    let nan = L::splat(L::Scalar::NAN);
    // An endpoint in the closed shape is a hit, whatever the rounding of the other parameters.
    // With both ends outside, the exact entry is below `top` and the exit above 0 (else the point
    // at `top` or at 0 would be in the shape); an entry that rounded up to `top` (or an exit down
    // to 0) can only be a graze, and counts as a miss. This also makes two ends beyond the same
    // edge a miss in every algorithm, as the outcode rejects of `cohen-sutherland` and `hybrid`
    // say.
    let between = raw.entry.lt(e.top) & zero.lt(raw.exit);
    let hit = valid & (e.start_in | e.end_in | (raw.entry.le(raw.exit) & between));

    // With the start outside, a hit's entry is already > 0 (boundary parameters are
    // sign-exact); the clamps cap a parameter that rounded up to `top` while the end is
    // outside, and turn a `-0.0` into `+0.0`.
    let entry_ceiling = L::select(e.end_in, e.top, e.below_top);
    let t_entry = L::select(e.start_in, zero, clamp(raw.entry, zero, entry_ceiling));
    let t_exit = L::select(e.end_in, e.top, clamp(raw.exit, zero, e.below_top));
    Finished {
        valid,
        t_entry: L::select(hit, t_entry, nan),
        t_exit: L::select(hit, t_exit, nan),
        entry_y: raw.entry_y,
        exit_y: raw.exit_y,
    }
}

/// `p0 + t·(p1 − p0)`; when the difference overflows, the form `(p0 − t·p0) + t·p1`, which cannot.
#[inline(always)]
fn along<L: Lane>(p0: L, p1: L, t: L) -> L {
    let d = p1 - p0;
    L::select(d.finite(), p0 + t * d, (p0 - t * p0) + t * p1)
}

/// The point at parameter `t` on the edge the segment crosses there: on axis y when `on_y`,
/// else on axis x. `inward` picks the edge crossed going in (else the one going out).
#[inline(always)]
fn edge_point<L: Lane>(
    r: &RectLanes<L>,
    s: &Segment<L>,
    t: L,
    on_y: L::Mask,
    inward: bool,
) -> (L, L) {
    let (right, up) = (s.x0.lt(s.x1), s.y0.lt(s.y1));
    let (x_first, x_last) = (
        L::select(right, r.xmin, r.xmax),
        L::select(right, r.xmax, r.xmin),
    );
    let (y_first, y_last) = (L::select(up, r.ymin, r.ymax), L::select(up, r.ymax, r.ymin));
    let (bx, by) = if inward {
        (x_first, y_first)
    } else {
        (x_last, y_last)
    };
    let x = L::select(on_y, clamp(along(s.x0, s.x1, t), r.xmin, r.xmax), bx);
    let y = L::select(on_y, by, clamp(along(s.y0, s.y1, t), r.ymin, r.ymax));
    (x, y)
}

/// The clipped segment `P(t_entry)`, `P(t_exit)` with SPEC §1's three guarantees; NaN on a miss.
///
/// A `Touches` result returns the same point twice.
#[inline(always)]
pub(crate) fn clipped<L: Lane>(r: &RectLanes<L>, s: &Segment<L>, f: &Finished<L>) -> Segment<L> {
    use crate::Real;
    let zero = L::splat(L::Scalar::ZERO);
    let one = L::splat(L::Scalar::ONE);
    let nan = L::splat(L::Scalar::NAN);
    let hit = f.t_entry.eq_(f.t_entry);

    let (ex, ey) = edge_point(r, s, f.t_entry, f.entry_y, true);
    let at_start = f.t_entry.eq_(zero);
    let at_end = f.t_entry.eq_(one);
    let ax = L::select(at_start, s.x0, L::select(at_end, s.x1, ex));
    let ay = L::select(at_start, s.y0, L::select(at_end, s.y1, ey));

    let (xx, xy) = edge_point(r, s, f.t_exit, f.exit_y, false);
    let ends_in = f.t_exit.eq_(one);
    let single = f.t_entry.eq_(f.t_exit);
    let bx = L::select(ends_in, s.x1, L::select(single, ax, xx));
    let by = L::select(ends_in, s.y1, L::select(single, ay, xy));

    Segment {
        x0: L::select(hit, ax, nan),
        y0: L::select(hit, ay, nan),
        x1: L::select(hit, bx, nan),
        y1: L::select(hit, by, nan),
    }
}
