//! What every clip kernel shares: the parameter of a boundary line, the slab of one axis, and
//! the finishing step that turns an algorithm's raw entry/exit parameters into the exact answers
//! of SPEC §1.
//!
//! An algorithm's only job is to find, for one segment, the *raw* parameters
//!
//! ```text
//! entry = max(0, t of each boundary crossed inward)     exit = min(1, t of each crossed outward)
//! ```
//!
//! (or [`Raw::MISS`]) and which axis each came from. Every boundary parameter is
//!
//! ```text
//! t = (bound − p0) · (1 / d),   d = p1 − p0          one division per axis, within 6 ulps
//! ```
//!
//! ([`axis_t`], [`plane_t`]), so all algorithms see the same numbers. The decisions do not
//! depend on how `t` rounds: [`finish`] applies the contract,
//!
//! * `t_entry == 0` iff `P0` is in the closed rect, `t_exit == 1` iff `P1` is, by comparisons of
//!   the coordinates; other parameters are kept within `[TINY, 1 − ε/2]`, so an underflow or a
//!   rounding never passes for an endpoint, and an endpoint inside always makes a hit;
//! * the far ends: `t_entry == 1` only when the segment enters exactly at `P1` (`P1` on the
//!   boundary it enters through), `t_exit == 0` only when it leaves exactly at `P0`, decided by
//!   comparing the coordinates with the bounds ([`FarEnds`]): for every chunk in [`finish`],
//!   in a branch taken only by chunks whose rounded parameters come near those ends in
//!   [`finish_range`] (rays, polygons);
//! * with both endpoints outside, a hit needs `entry < 1` and `exit > 0`: exact arithmetic
//!   always has them, so a parameter rounded onto 0 or 1 is a graze and reported as a miss;
//! * NaN or ±∞ in a coordinate gives [`Class::Invalid`](crate::Class::Invalid) and NaN parameters;
//! * a miss gives NaN parameters.
//!
//! [`clipped`] builds the clipped segment: an endpoint inside is returned bit for bit, a cut
//! endpoint gets exactly the bound of the edge that cut it as one coordinate, and the other
//! coordinate is clamped into the rect, so no rounding puts a point a hair outside.

use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};

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

    /// Whether `(x, y)` is in the closed rect: four compares chained by [`Lane::le_and`].
    #[inline(always)]
    pub fn contains(&self, x: L, y: L) -> L::Mask {
        let m = x.le_and(self.xmax, self.xmin.le(x));
        y.le_and(self.ymax, self.ymin.le_and(y, m))
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
    /// All four coordinates are finite. The slab kernels know it from their range test (a
    /// chunk that passes has no NaN or ±∞); other kernels get it from [`finish`]'s caller.
    pub valid: L::Mask,
}

impl<L: Lane> Raw<L> {
    /// From the largest inward and the smallest outward boundary parameter, neither NaN:
    /// `entry = max(near, 0)`, `exit = min(far, 1)`. `valid` is set by the caller of
    /// [`finish`].
    #[inline(always)]
    pub fn from_planes(near: L, far: L, entry_y: L::Mask, exit_y: L::Mask) -> Self {
        let (zero, one) = (L::splat(L::Scalar::ZERO), L::splat(L::Scalar::ONE));
        Raw {
            entry: near.max_any(zero),
            exit: far.min_any(one),
            entry_y,
            exit_y,
            valid: zero.eq_(zero),
        }
    }

    /// The intersection of the x and y slabs (each `(near, far)` from [`slab`], where a NaN
    /// stands for "the whole line") with `[0, top]`; ties between the axes go to x.
    ///
    /// `max`/`min` take the NaN operand first, so it drops out (see [`Lane::min_any`]): a
    /// parallel axis through a bound leaves the other axis and `[0, top]` to decide.
    #[inline(always)]
    pub fn from_slabs(
        (near_x, far_x): (L, L),
        (near_y, far_y): (L, L),
        top: L,
        valid: L::Mask,
    ) -> Self {
        let zero = L::splat(L::Scalar::ZERO);
        let is_nan = |t: L| !t.eq_(t);
        Raw {
            entry: near_x.max_any(near_y.max_any(zero)),
            exit: far_x.min_any(far_y.min_any(top)),
            entry_y: near_y.gt(near_x) | is_nan(near_x),
            exit_y: far_y.lt(far_x) | is_nan(far_x),
            valid,
        }
    }
}

impl<F: Real> Raw<F> {
    /// A sure miss (a trivial reject).
    pub const MISS: Raw<F> = Raw {
        entry: F::INFINITY,
        exit: F::NAN,
        entry_y: false,
        exit_y: false,
        valid: true,
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
    /// `t_entry` and `t_exit` as they are in the hit lanes, anything in the others (no NaN
    /// blended in): what [`Finished::class_codes`] compares, as it masks the misses itself, so
    /// that a loop storing only classes has no blend to do (`simd-slab`, 64K `mixed` `--emit
    /// class`, scratch harness, alternated: 1,602–1,625 → 1,669–1,674 Mseg/s).
    pub hit_t: (L, L),
    pub entry_y: L::Mask,
    pub exit_y: L::Mask,
    /// A hit: `t_entry` and `t_exit` are numbers.
    pub hit: L::Mask,
    /// A hit whose `t_exit` is the end of its range (`1`, `t_max`): for a segment, `P1` is in
    /// the rect.
    pub end_in: L::Mask,
}

impl<L: Lane> Finished<L> {
    /// The class codes ([`Class::code_lanes_known`](crate::geom::Class::code_lanes_known)).
    #[inline(always)]
    pub(crate) fn class_codes(&self) -> L {
        crate::geom::Class::code_lanes_known(
            self.valid,
            self.hit,
            self.end_in,
            self.hit_t.0,
            self.hit_t.1,
        )
    }
}

/// `p1 − p0` with `-0.0` turned into `+0.0` (`x + 0` does that and nothing else), so that a
/// parallel axis always divides into `+∞` and [`slab`] sees one sign.
#[inline(always)]
pub(crate) fn delta<L: Lane>(p0: L, p1: L) -> L {
    (p1 - p0) + L::splat(L::Scalar::ZERO)
}

/// Whether `(bound − p0)·(1/d)` is within 6 ulps of the exact `(bound − p0)/d` for every
/// finite `bound`, `p0`: `d` is zero (a parallel axis, settled by the slab) or normal and at
/// most [`RANGE_HI`](crate::Real::RANGE_HI), so that `1/d` is finite and normal. False for NaN
/// and ±∞, so a chunk whose lanes all pass has only finite coordinates.
#[inline(always)]
pub(crate) fn in_range<L: Lane>(d: L) -> L::Mask {
    let m = d.abs();
    let (lo, hi) = (L::splat(L::Scalar::RANGE_LO), L::splat(L::Scalar::RANGE_HI));
    (lo.le(m) & m.le(hi)) | d.eq_(L::splat(L::Scalar::ZERO))
}

/// [`in_range`] of both axes, branch-free: [`Lane::in_range_both`] (one class test per axis
/// and one range test with AVX-512, comparisons elsewhere). False for NaN and ±∞, so a chunk
/// whose lanes all pass has only finite coordinates.
#[inline(always)]
pub(crate) fn in_range_both<L: Lane>(dx: L, dy: L) -> L::Mask {
    dx.in_range_both(dy, L::Scalar::RANGE_HI)
}

/// The slab's fast path (segments and rays): every coordinate `p` (a segment's four, a ray's
/// origin twice) and the rect's bounds zero or finite and at least
/// [`FAST_LO`](crate::Real::FAST_LO) in magnitude, and both coordinate differences (or
/// directions) at most [`FAST_HI`](crate::Real::FAST_HI) ([`Lane::fast_range_both`]). Then no
/// difference is subnormal, `1/d` is `±∞` or normal, and no parameter of [`axis_t_fast`]
/// underflows to zero, so their signs are exact with no test of each product; a chunk that
/// fails (NaN, ±∞, extreme or tiny magnitudes) takes the careful path. The rect's part is the
/// same for every chunk of a batch.
#[inline(always)]
pub(crate) fn fast_range<L: Lane>(r: &RectLanes<L>, (dx, dy): (L, L), p: [L; 4]) -> L::Mask {
    let rect = r.xmin.not_tiny_both(r.xmax) & r.ymin.not_tiny_both(r.ymax);
    dx.fast_range_both(dy, p, L::Scalar::FAST_HI, rect)
}

/// The boundary parameters `(t(lo), t(hi))` of one axis, for the direction `d` (see [`delta`]):
/// one reciprocal, two products.
///
/// ```text
/// t = fl(fl(bound − p0) · fl(1/d)),   d = fl(p1 − p0)
/// ```
///
/// Four roundings of at most half an ulp each: within 6 ulps of the exact value (SPEC §1)
/// where [`in_range`] holds. The sign is exact and an underflow is made `±TINY` ([`line_t`]),
/// so `t == 0` only for a bound through `p0` ([`finish_slab`] reads the endpoint `P0` off
/// that). On a parallel axis `t` is `±∞`, or NaN (`0·∞`) for a bound through
/// `p0`: [`slab`] reads both.
#[inline(always)]
pub(crate) fn axis_t<L: Lane>(lo: L, hi: L, p0: L, d: L) -> (L, L) {
    let r = L::splat(L::Scalar::ONE) / d;
    (line_t(lo, p0, r), line_t(hi, p0, r))
}

/// [`axis_t`] without its fix for underflow, for lanes that pass [`fast_range`] (where no
/// parameter underflows): the same bits there, with each product and its `+ 0` in one FMA
/// ([`Lane::mul_plus_zero`]). `d` is [`delta`]'s, `+0` where the axis is parallel. `slab::slab_fast`
/// passes the bounds the axis enters and leaves through for `lo`, `hi`.
#[inline(always)]
pub(crate) fn axis_t_fast<L: Lane>(lo: L, hi: L, p0: L, d: L) -> (L, L) {
    let r = L::splat(L::Scalar::ONE) / d;
    ((lo - p0).mul_plus_zero(r), (hi - p0).mul_plus_zero(r))
}

/// The parameter of the line `coordinate = bound` for a segment from `p0` whose axis has the
/// reciprocal `r = 1/d`: `fl(fl(bound − p0) · r)`, an exact zero made `+0` (`+ 0`), and a
/// nonzero product that underflowed to `±0` made `±TINY`. So `t` is zero only when the exact
/// `(bound − p0)/d` is (`bound − p0` is zero only when `bound == p0`), and otherwise has its
/// exact sign: `finish_slab` reads `P0` off those signs, and no `min`/`max` of the slab can
/// lose a sign to the order of `±0` operands. Rounded to nearest, a parameter whose exact value
/// is a float (a corner on grid-aligned data) comes out exactly. The one place the slab's
/// parameters are computed: [`axis_t`], `plane_t` and the grid walk's lines.
#[inline(always)]
pub(crate) fn line_t<L: Lane>(bound: L, p0: L, r: L) -> L {
    let zero = L::splat(L::Scalar::ZERO);
    let n = bound - p0;
    let p = n * r;
    let tiny = L::splat(L::Scalar::TINY);
    // `le_bits` against `-0` (the least signed integer) is "is `-0`": the sign of the product.
    let signed_tiny = L::select(p.le_bits(-zero), -tiny, tiny);
    L::select(p.eq_(zero) & !n.eq_(zero), signed_tiny, p + zero)
}

/// The slab `(near, far)` of one axis from its boundary parameters `(t(lo), t(hi))` (from
/// [`axis_t`]): `near = min`, `far = max`, with the operand order chosen so that a NaN `t`
/// comes out as NaN, which [`Raw::from_slabs`] reads as "no limit".
///
/// A parallel axis has `d = +0` ([`delta`]), so `t = (bound − p0)·∞`:
///
/// ```text
/// p0 < lo:       (+∞, +∞)  near = +∞: a miss        p0 > hi:  (−∞, −∞)  far = −∞: a miss
/// lo < p0 < hi:  (−∞, +∞)  the whole line           p0 == lo: (NaN, +∞) near NaN, far +∞
/// p0 == hi:      (−∞, NaN) near −∞, far NaN         lo == p0 == hi: (NaN, NaN)
/// ```
///
/// so no `0·∞` reaches a result, without a mask for parallel lanes.
#[inline(always)]
pub(crate) fn slab<L: Lane>((t_lo, t_hi): (L, L)) -> (L, L) {
    (t_hi.min_any(t_lo), t_lo.max_any(t_hi))
}

/// The parameter `t` where the line through `p0`, `p1` meets the line `coordinate = bound`:
/// [`axis_t`]'s arithmetic for one bound, [`careful_t`] where [`in_range`] fails. The boundary
/// parameter of the scalar kernels, which test boundaries one at a time; a parallel axis gives
/// ±∞ or NaN, for the caller to replace.
#[inline(always)]
pub(crate) fn plane_t<L: Lane>(bound: L, p0: L, p1: L) -> L {
    let d = delta(p0, p1);
    let t = line_t(bound, p0, L::splat(L::Scalar::ONE) / d);
    let ok = in_range(d);
    if L::any(!ok) {
        L::select(ok, t, segment_careful_t(bound, p0, p1))
    } else {
        t
    }
}

/// The boundary parameters of one axis of a segment, as [`axis_t`] gives them, with
/// [`careful_t`] in the lanes where `ok` (from [`in_range`]) is false. Called only for chunks
/// with such a lane.
#[inline(always)]
pub(crate) fn segment_axis_careful<L: Lane>(
    (lo, hi): (L, L),
    p0: L,
    p1: L,
    ok: L::Mask,
    t: (L, L),
) -> (L, L) {
    (
        L::select(ok, t.0, segment_careful_t(lo, p0, p1)),
        L::select(ok, t.1, segment_careful_t(hi, p0, p1)),
    )
}

/// [`segment_axis_careful`] for a ray `o + t·d` (an exact denominator).
#[inline(never)]
pub(crate) fn ray_axis_careful<L: Lane>(
    (lo, hi): (L, L),
    o: L,
    d: L,
    ok: L::Mask,
    t: (L, L),
) -> (L, L) {
    L::within(
        #[inline(always)]
        || {
            let zero = L::splat(L::Scalar::ZERO);
            let careful = |bound| {
                careful_t(
                    bound,
                    o,
                    (d, zero),
                    zero.lt(d),
                    #[inline(always)]
                    |h: L| (d * h, zero),
                )
            };
            (
                L::select(ok, t.0, careful(lo)),
                L::select(ok, t.1, careful(hi)),
            )
        },
    )
}

#[inline(always)]
fn segment_careful_t<L: Lane>(bound: L, p0: L, p1: L) -> L {
    let den = two_diff(p1, p0);
    careful_t(
        bound,
        p0,
        den,
        p0.lt(p1),
        #[inline(always)]
        |h| two_diff(p1 * h, p0 * h),
    )
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
/// Non-finite quotients (a zero denominator, an overflow) are passed through untouched so that
/// no `∞ − ∞` makes a NaN.
#[inline(always)]
fn ratio<L: Lane>((a, ea): (L, L), (b, eb): (L, L)) -> L {
    let q = a / b;
    let c = (ea - q * eb) / b;
    L::select(q.finite(), q + c, q)
}

/// `(bound − p0) / den` for any finite inputs, within about one ulp, for the lanes [`axis_t`]
/// cannot take (a coordinate difference that is subnormal or beyond [`RANGE_HI`]
/// (crate::Real::RANGE_HI), NaN, ±∞). `den` is the denominator as a (value, rounding error)
/// pair, positive when `ahead`; `den_half(½)` gives it halved.
///
/// The sign is exact: `t` is zero only when `bound == p0`, and a nonzero `t` too small for the
/// float type comes back as ±[`TINY`](crate::Real::TINY) rather than ±0. Where `bound − p0` or
/// the denominator would overflow (finite inputs beyond half the float range) everything is
/// halved first; the ratio does not change. That includes a difference that is finite while
/// TwoSum's own steps overflow: `p1 − p0` with `p0 = MAX` can round so that `s − p1` passes
/// `−MAX`, which left the error term NaN (f32, `p0 = MAX`, `p1 = 1.6427526e38`: the whole
/// slab of that axis was lost, and a segment far above the rect "crossed" it).
#[inline(always)]
fn careful_t<L: Lane>(
    bound: L,
    p0: L,
    den: (L, L),
    ahead: L::Mask,
    den_half: impl FnOnce(L) -> (L, L),
) -> L {
    let num = two_diff(bound, p0);
    let mut t = ratio(num, den);
    let ok = num.0.finite() & num.1.finite() & den.0.finite() & den.1.finite();
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
    // `+ 0` makes an exact zero `+0`, as `line_t` gives it (`finish_slab` reads signs).
    L::select(underflow, L::select(positive, tiny, -tiny), t) + zero
}

/// The slab of one axis of a segment for the scalar kernels: [`plane_t`] at both bounds, then
/// [`slab`].
#[inline(always)]
pub(crate) fn axis_slab<L: Lane>(lo: L, hi: L, p0: L, p1: L) -> (L, L) {
    slab((plane_t(lo, p0, p1), plane_t(hi, p0, p1)))
}

/// Whether `(x, y)` lies on a boundary that a line through it in direction `(dx, dy)` crosses
/// outward: the far-end test of a ray's origin, which has no second point to compare with
/// (segments use [`Beyond`]).
#[inline(always)]
pub(crate) fn on_exit_edge<L: Lane>(r: &RectLanes<L>, (x, y): (L, L), (dx, dy): (L, L)) -> L::Mask {
    let zero = L::splat(L::Scalar::ZERO);
    (zero.lt(dx) & x.eq_(r.xmax))
        | (dx.lt(zero) & x.eq_(r.xmin))
        | (zero.lt(dy) & y.eq_(r.ymax))
        | (dy.lt(zero) & y.eq_(r.ymin))
}

/// The exact far-end facts [`finish_range`] asks for when a chunk's rounded parameters come near
/// them (SPEC §1, "the far ends are exact too").
#[derive(Clone, Copy)]
pub(crate) struct FarEnds<L: Lane> {
    /// The end (`P1`) lies on the boundary the segment enters through: with `P1` inside, the
    /// exact entry is 1.
    pub end_on_entry: L::Mask,
    /// The start (`P0`, the ray's origin) lies on the boundary it leaves through: with `P0`
    /// inside, the exact exit is 0.
    pub start_on_exit: L::Mask,
}

/// Which sides of the closed rect a point is beyond: `x < xmin`, `x > xmax`, `y < ymin`,
/// `y > ymax`. A NaN coordinate is beyond none (its lane is invalid, which [`finish_ends`]
/// settles).
#[derive(Clone, Copy)]
struct Beyond<L: Lane>([L::Mask; 4]);

impl<L: Lane> Beyond<L> {
    #[inline(always)]
    fn of(r: &RectLanes<L>, x: L, y: L) -> Self {
        Beyond([x.lt(r.xmin), r.xmax.lt(x), y.lt(r.ymin), r.ymax.lt(y)])
    }

    /// In the closed rect.
    #[inline(always)]
    fn inside(&self) -> L::Mask {
        let [a, b, c, d] = self.0;
        !(a | b | c | d)
    }

    /// Whether the point `(x, y)` lies on a bound that a segment from a point beyond these sides
    /// crosses to reach it: on `x = xmin` coming from `x < xmin`, and so on. For the end of a
    /// segment (with the sides of its start) that is "`P1` on the boundary it enters through";
    /// for the start (with the sides of its end), "`P0` on the boundary it leaves through".
    #[inline(always)]
    fn reached_across(&self, r: &RectLanes<L>, x: L, y: L) -> L::Mask {
        let [a, b, c, d] = self.0;
        (x.eq_and(r.xmin, a) | x.eq_and(r.xmax, b)) | (y.eq_and(r.ymin, c) | y.eq_and(r.ymax, d))
    }
}

impl<L: Lane> FarEnds<L> {
    /// A segment's far-end facts, from the sides its endpoints are beyond: `P1` on a bound
    /// crossed from `P0`'s side of it, and `P0` on a bound crossed towards `P1`'s.
    #[inline(always)]
    fn of_segment(r: &RectLanes<L>, s: &Segment<L>, start: &Beyond<L>, end: &Beyond<L>) -> Self {
        FarEnds {
            end_on_entry: start.reached_across(r, s.x1, s.y1),
            start_on_exit: end.reached_across(r, s.x0, s.y0),
        }
    }
}

/// Applies SPEC §1 to an algorithm's raw answer; see the module docs.
///
/// The far-end facts come from the same side tests as "endpoint inside", for every chunk,
/// branch-free. Behind a branch they cost less where no endpoint lies on an edge, but on data
/// with endpoints on the edges (tiled map data, the `mixed` workload, where 47% of the chunks of
/// 8 took it) that branch mispredicts once the batch is too long for the predictor to learn:
/// 64K mixed f32 ran at 707 Mseg/s with the branch and 680 without, 256K at 405 and 680 (road-like,
/// with few endpoints on edges: 754 and 631).
#[inline(always)]
pub(crate) fn finish<L: Lane>(r: &RectLanes<L>, s: &Segment<L>, raw: Raw<L>) -> Finished<L> {
    let (start, end) = (Beyond::of(r, s.x0, s.y0), Beyond::of(r, s.x1, s.y1));
    let ends = Ends::segment(start.inside(), end.inside());
    let far = FarEnds::of_segment(r, s, &start, &end);
    finish_ends(raw.valid, ends, raw, |_| Some(far))
}

/// [`finish`] with its endpoint tests given: `start_in` and `end_in` must be `r.contains` of
/// `P0` and `P1`, and `rect()` gives `r` (asked for only by the far-end rules, which need an
/// endpoint inside, behind the branch of [`finish_range`]). The same answers as [`finish`], for
/// a caller that knows the tests without comparing: the grid walk knows that a cell whose raw
/// entry is above 0 and raw exit below `1 − ε/2` holds neither endpoint.
#[inline(always)]
pub(crate) fn finish_known<L: Lane>(
    rect: impl FnOnce() -> RectLanes<L>,
    s: &Segment<L>,
    raw: Raw<L>,
    start_in: L::Mask,
    end_in: L::Mask,
) -> Finished<L> {
    finish_range(raw.valid, Ends::segment(start_in, end_in), raw, || {
        let r = rect();
        let (start, end) = (Beyond::of(&r, s.x0, s.y0), Beyond::of(&r, s.x1, s.y1));
        FarEnds::of_segment(&r, s, &start, &end)
    })
}

/// [`finish`] for the slab's raw answer (`slab::slab_careful`), whose parameters come from
/// [`line_t`] (or `careful_t`) and so are zero only when exactly zero, and otherwise carry
/// the exact sign: the same answers with a fraction of the comparisons, because
///
/// * `raw.entry` (`max(0, near_x, near_y)`) is `+0` where no boundary is crossed inward after
///   `P0`, else at least `TINY`; `raw.exit` (`min(1 − ε/2, far_x, far_y)`) is zero only when the
///   segment leaves exactly at `P0`, and negative when `P0` is beyond a bound it moves away
///   from. So a hit (`t_entry ≤ t_exit`) has `t_entry == 0` iff `P0` is in the closed rect and
///   `t_exit == 0` iff it leaves exactly at `P0`: no test of `P0`;
/// * `t_exit == 1` iff `P1` is inside: the one endpoint test (four comparisons);
/// * the far end at `P1` (`t_entry == 1` iff the segment enters exactly at `P1`) can only matter
///   where `P1` is inside and the rounded entry is within 4 ulps of 1 (at or above
///   `GRAZE_TOP`; the parameters are within 2 ulps): those lanes are settled on the
///   coordinates ([`enters_at_end`]), behind one branch per chunk (this is the careful path,
///   for chunks with NaN, ±∞ or extreme magnitudes; `slab::slab_fast` settles the far end of
///   every other chunk branch-free, with the same answers);
/// * with `P1` outside, an entry at or above `GRAZE_TOP` is a graze, a miss (as in
///   [`finish_ends`]). With `P0` inside the entry is 0 and the exit at least 0, with `P1`
///   inside the exit is 1: always a hit.
///
/// `tests/suite/differential.rs` holds every slab kernel to SPEC §1 against exact arithmetic,
/// `tests/suite/grid_pieces.rs` the grid's pieces (finished by [`finish_known`]) to these bits, and
/// `slab`'s unit tests `slab_fast` to them.
#[inline(always)]
pub(crate) fn finish_slab<L: Lane>(r: &RectLanes<L>, s: &Segment<L>, raw: Raw<L>) -> Finished<L> {
    let (one, below) = (L::splat(L::Scalar::ONE), L::splat(L::Scalar::ONE_BELOW));
    let graze = L::splat(L::Scalar::GRAZE_TOP);
    let end_in = r.contains(s.x1, s.y1);
    // Below `GRAZE_TOP`, or a miss (`P1` outside): only the lanes near 1 need the clamp.
    let mut t_entry = raw.entry;
    // `raw.exit` is at most `1 − ε/2` already (the top `slab_careful` gives `Raw::from_slabs`).
    let t_exit = L::select(end_in, one, raw.exit);
    if L::any(graze.le_and(raw.entry, end_in)) {
        let at_end = enters_at_end(r, s);
        t_entry = L::select(at_end, one, raw.entry.min_any(below));
    }
    // `t_entry ≤ t_exit` and (`t_entry < GRAZE_TOP` or `P1` inside) in one compare: against the
    // exit capped just below `GRAZE_TOP` where `P1` is outside (a compare fewer on the mask
    // registers, the scarce ones: see `enters_at_end`).
    let graze_below = L::splat(-(-L::Scalar::GRAZE_TOP).next_up());
    let cap = L::select(end_in, one, raw.exit.min_any(graze_below));
    let hit = t_entry.le_and(cap, raw.valid);
    let nan = L::splat(L::Scalar::NAN);
    Finished {
        valid: raw.valid,
        t_entry: L::select(hit, t_entry, nan),
        t_exit: L::select(hit, t_exit, nan),
        hit_t: (t_entry, t_exit),
        entry_y: raw.entry_y,
        exit_y: raw.exit_y,
        hit,
        end_in: hit & end_in,
    }
}

/// Whether the segment reaches `P1` across a bound it lies on: on some axis `P1` is on the
/// bound nearest `P0` (`P0` clamped to the rect's range there) and the segment moves along that
/// axis. With `P1` in the rect, that is "`t_entry` is exactly 1" ([`finish_slab`]).
///
/// On the coordinates only (no parameter, so any finite input is answered exactly), and in
/// vector arithmetic rather than masks: per axis a clamp and a subtraction, `P1`'s distance
/// to the clamped `P0` made `+∞` where the segment does not move along the axis
/// ([`Lane::inf_where_zero`], one `vfixupimm`); then one test of the smaller magnitude of the
/// two axes against zero ([`Lane::either_zero`], one `vrange` and one compare). On Zen 4 the
/// operations that write mask registers are the scarce ones (`simd-slab`, `mixed` `f32`, one
/// thread, scratch harness, alternated, Gseg/s): with a compare of `P1` to the clamped `P0`
/// and of `d` to zero per axis, under masks, 64K ran at 1.73–1.76 against 1.88–1.90 now, and
/// 16M (where every chunk settles the far end) at 1.18–1.24 against 1.33–1.37; with eight
/// compares under masks (`P0` beyond a bound and `P1` on it), 1.68 and 1.08–1.12.
#[inline(always)]
fn enters_at_end<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> L::Mask {
    // Zero where `p1` is the bound nearest `p0` and `p0` is beyond it, nonzero elsewhere: with
    // `p0` within the bounds its nearest point is itself, so `p1 − nearest` is zero only where
    // `p1 − p0` is, and is made `+∞` there. (`p1 − p0` is the slab's own difference, computed
    // once: one subtraction fewer per axis than testing `p0 − nearest`.)
    let axis = |p0: L, p1: L, lo: L, hi: L| {
        let nearest = p0.min_any(hi).max_any(lo);
        (p1 - nearest).inf_where_zero(p1 - p0)
    };
    axis(s.x0, s.x1, r.xmin, r.xmax).either_zero(axis(s.y0, s.y1, r.ymin, r.ymax))
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
    /// The largest `t_entry` or `t_exit` allowed unless [`FarEnds`] says the end is exact
    /// (`1 − ε/2` for a segment; `t_max` for a ray, whose end is no input point).
    pub below_top: L,
    /// With both ends outside, a hit needs an entry below this: `1 − 2ε` for a segment, whose
    /// rounded entry is above it whenever the exact one is at least 1 (two ends beyond the
    /// same edge: a miss, as the outcode rejects of `cohen-sutherland` and `hybrid` say), and
    /// otherwise cuts only grazes shorter than 8 ulps; `t_max` for a ray.
    pub graze_top: L,
}

impl<L: Lane> Ends<L> {
    /// A segment's: the range `[0, 1]`, with whether `P0` and `P1` are in the closed rect.
    #[inline(always)]
    fn segment(start_in: L::Mask, end_in: L::Mask) -> Self {
        Ends {
            start_in,
            end_in,
            top: L::splat(L::Scalar::ONE),
            below_top: L::splat(L::Scalar::ONE_BELOW),
            graze_top: L::splat(L::Scalar::GRAZE_TOP),
        }
    }
}

/// [`finish`] for any parameter range `[0, top]`: the contract's exact ends, misses and invalid
/// input as NaN. Segments against rects go through [`finish`]; rays (`top = t_max`) and convex
/// polygons call this with their own [`Ends`] and [`FarEnds`] (computed only when a lane needs
/// them: an entry at `below_top` or beyond with the end inside, an exit at 0 or below with the
/// start inside).
#[inline(always)]
pub(crate) fn finish_range<L: Lane>(
    valid: L::Mask,
    e: Ends<L>,
    raw: Raw<L>,
    far_ends: impl FnOnce() -> FarEnds<L>,
) -> Finished<L> {
    finish_ends(valid, e, raw, |near_end| L::any(near_end).then(far_ends))
}

/// [`finish_range`], with the far-end facts from `far_ends(lanes near an end)`, which may give
/// `None` when no lane is near an end (a branch), or the facts for every chunk (branch-free:
/// [`finish`], and ray × rect).
#[inline(always)]
pub(crate) fn finish_ends<L: Lane>(
    valid: L::Mask,
    e: Ends<L>,
    raw: Raw<L>,
    far_ends: impl FnOnce(L::Mask) -> Option<FarEnds<L>>,
) -> Finished<L> {
    let zero = L::splat(L::Scalar::ZERO);
    let tiny = L::splat(L::Scalar::TINY);
    let nan = L::splat(L::Scalar::NAN);
    // An endpoint in the closed shape is a hit, whatever the rounding of the other parameters.
    // With both ends outside, the exact entry is below `top` and the exit above 0 (else the point
    // at `top` or at 0 would be in the shape); an entry that rounded up to `top` (or an exit down
    // to 0) can only be a graze, and counts as a miss (see `Ends::graze_top`).
    let between = raw.entry.lt(e.graze_top) & zero.lt(raw.exit);
    let hit = valid & (e.start_in | e.end_in | (raw.entry.le(raw.exit) & between));

    // Away from the endpoints inside, a parameter is at least TINY (an underflow is no
    // endpoint) and at most `below_top` (a rounding up to 1 is no endpoint either).
    let inner = |t: L| t.min_any(e.below_top).max_any(tiny);
    let mut t_entry = L::select(e.start_in, zero, inner(raw.entry));
    let mut t_exit = L::select(e.end_in, e.top, inner(raw.exit));
    // The far ends: exactly `top` or 0 only when the segment meets the boundary exactly at the
    // endpoint inside. Rounding puts such lanes at `below_top` or beyond (entry) and at 0 or
    // below (exit); the other lanes are already right.
    let near_end = (e.end_in & raw.entry.ge(e.below_top)) | (e.start_in & raw.exit.le(zero));
    if let Some(f) = far_ends(near_end) {
        let entering = e.end_in & !e.start_in;
        let leaving = e.start_in & !e.end_in;
        t_entry = L::select(entering & f.end_on_entry, e.top, t_entry);
        t_exit = L::select(leaving & f.start_on_exit, zero, t_exit);
    }
    Finished {
        valid,
        t_entry: L::select(hit, t_entry, nan),
        t_exit: L::select(hit, t_exit, nan),
        hit_t: (t_entry, t_exit),
        entry_y: raw.entry_y,
        exit_y: raw.exit_y,
        hit,
        end_in: hit & t_exit.eq_(e.top),
    }
}

/// `max(lo, min(x, hi))`, returning `+0.0` rather than `-0.0` when `x` is a zero and `lo` is `+0.0`.
#[inline(always)]
fn clamp<L: Lane>(x: L, lo: L, hi: L) -> L {
    L::select(x.gt(lo), L::select(x.lt(hi), x, hi), lo)
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
