//! Segments × one convex polygon: Cyrus–Beck, under SPEC §1's clip contract.
//!
//! ```text
//! for each chunk of LANES segments, for each edge (V, E, broadcast):
//!     f0 = E × (P0 − V),  f1 = E × (P1 − V)       ≥ 0: inside this edge's half-plane
//!     f0 < 0 ≤ f1:  entering at t = f0/(f0 − f1)   entry = max(entry, t)
//!     f0 ≥ 0 > f1:  leaving  at t = f0/(f0 − f1)   exit  = min(exit, t)
//!     both < 0:     a sure miss
//! P0 inside = every f0 ≥ 0, P1 inside = every f1 ≥ 0
//! finish_range (shared with the rect clip): t_entry = 0 iff P0 inside, t_exit = 1 iff P1 inside
//! ```
//!
//! Working from the values of `f` at both ends, rather than from `P1 − P0`, has three payoffs:
//! the endpoint tests and the parameters come from the same numbers (so `t_entry == 0` exactly
//! when `P0` is inside); a parameter is a quotient of two numbers of the same sign, never a
//! division by zero (a parallel edge has `f0 = f1` and is all or nothing); and a zero-length
//! segment needs no special case. The class is SPEC §1's, from the same shared code.
//!
//! Clipped segments: an endpoint inside comes back bit for bit; a cut point is `P0 + t·(P1 −
//! P0)`, which for a slanted edge lies within rounding of the edge, not exactly on it.

use super::polygon::{scaled_vertex, ConvexPolygon};
use crate::buffers::{Batch, ClipOutput, SegmentSource};
use crate::error::Error;
use crate::geom::{Class, Segment};
use crate::kernels::contract::{finish_range, Ends, FarEnds, Finished, Raw};
use crate::kernels::simd_slab::{load_chunk, store_lanes};
use crate::kernels::Clip;
use crate::real::{Lane, Real};
use crate::simd::{dispatch, Vector};
use crate::Axis;

/// Cyrus–Beck on every lane's segment. The loop is compiled twice: with no lane scale (the
/// common case, the plain loop) and with one (a huge segment against a small polygon).
#[inline(always)]
fn clip_lanes<L: Lane>(p: &ConvexPolygon<L::Scalar>, s: &Segment<L>) -> Finished<L> {
    match p.lane_scale([s.x0, s.y0, s.x1, s.y1]) {
        None => clip_lanes_at(p, s, None),
        Some(k) => clip_lanes_at(p, s, Some(k)),
    }
}

/// [`clip_lanes`] with the lane scale `lane` of [`ConvexPolygon::lane_scale`].
#[inline(always)]
fn clip_lanes_at<L: Lane>(
    p: &ConvexPolygon<L::Scalar>,
    s: &Segment<L>,
    lane: Option<L>,
) -> Finished<L> {
    let zero = L::splat(L::Scalar::ZERO);
    let one = L::splat(L::Scalar::ONE);
    let tiny = L::splat(L::Scalar::TINY);
    let inf = L::splat(L::Scalar::INFINITY);
    let nan = L::splat(L::Scalar::NAN);
    let valid = s.x0.finite() & s.y0.finite() & s.x1.finite() & s.y1.finite();
    let (mut start_in, mut end_in) = (valid, valid);
    let mut miss = !valid;
    let (mut entry, mut exit) = (zero, one);
    // P1 on the line of an edge P0 is outside of (the segment enters there at P1), and P0 on
    // the line of an edge P1 is outside of (it leaves there at P0): the far ends of SPEC §1.
    let (mut end_on_entry, mut start_on_exit) = (!valid & valid, !valid & valid);
    // The polygon's scale (1, or a power of two below 1 for a huge polygon): `t` is a ratio of
    // `f`s that all scale by it.
    let sc = lane.unwrap_or(L::splat(p.scale()));
    let (x0, y0, x1, y1) = (s.x0 * sc, s.y0 * sc, s.x1 * sc, s.y1 * sc);
    let edges = p.vx.iter().zip(&p.vy).zip(p.ex.iter().zip(&p.ey));
    for ((&vx, &vy), (&ex, &ey)) in edges {
        let (vx, vy) = scaled_vertex(L::splat(vx), L::splat(vy), lane);
        let (ex, ey) = (L::splat(ex), L::splat(ey));
        let f0 = ex * (y0 - vy) - ey * (x0 - vx);
        let f1 = ex * (y1 - vy) - ey * (x1 - vx);
        let (out0, out1) = (f0.lt(zero), f1.lt(zero));
        start_in = start_in & !out0;
        end_in = end_in & !out1;
        miss = miss | (out0 & out1);
        end_on_entry = end_on_entry | (out0 & f1.eq_(zero));
        start_on_exit = start_on_exit | (out1 & f0.eq_(zero));
        let t = f0 / (f0 - f1);
        let t_in = L::select(t.eq_(zero), tiny, t);
        let enters = out0 & !out1 & entry.lt(t_in);
        entry = L::select(enters, t_in, entry);
        let leaves = !out0 & out1 & t.lt(exit);
        exit = L::select(leaves, t, exit);
    }
    let no = zero.lt(zero);
    let raw = Raw {
        entry: L::select(miss, inf, entry),
        exit: L::select(miss, nan, exit),
        entry_y: no,
        exit_y: no,
        valid,
    };
    let ends = Ends {
        start_in,
        end_in,
        top: one,
        below_top: L::splat(L::Scalar::ONE_BELOW),
        graze_top: L::splat(L::Scalar::GRAZE_TOP),
    };
    finish_range(valid, ends, raw, || FarEnds {
        end_on_entry,
        start_on_exit,
    })
}

/// `p0 + t·(p1 − p0)`; where `p1 − p0` or the sum overflows (both ends huge: halving them is
/// exact), the same at half scale and doubled, which gives the bits the formula would give
/// without the overflow.
#[inline(always)]
fn lerp<L: Lane>(p0: L, p1: L, t: L) -> L {
    let v = p0 + t * (p1 - p0);
    let half = L::splat(L::Scalar::from_f64(0.5));
    let two = L::splat(L::Scalar::from_f64(2.0));
    let (h0, h1) = (p0 * half, p1 * half);
    L::select(v.finite(), v, (h0 + t * (h1 - h0)) * two)
}

/// `P(t)` of a clip: the endpoint itself at `t = 0` and `t = 1`, NaN for NaN.
#[inline(always)]
fn point<L: Lane>(s: &Segment<L>, t: L) -> (L, L) {
    let zero = L::splat(L::Scalar::ZERO);
    let one = L::splat(L::Scalar::ONE);
    let x = lerp(s.x0, s.x1, t);
    let y = lerp(s.y0, s.y1, t);
    let (x, y) = (
        L::select(t.eq_(one), s.x1, x),
        L::select(t.eq_(one), s.y1, y),
    );
    (
        L::select(t.eq_(zero), s.x0, x),
        L::select(t.eq_(zero), s.y0, y),
    )
}

/// The clipped segment `P(t_entry) → P(t_exit)`; one point twice for `Touches`, NaN on a miss.
#[inline(always)]
fn clipped<L: Lane>(s: &Segment<L>, f: &Finished<L>) -> Segment<L> {
    let (x0, y0) = point(s, f.t_entry);
    let (x1, y1) = point(s, f.t_exit);
    let single = f.t_entry.eq_(f.t_exit);
    Segment {
        x0,
        y0,
        x1: L::select(single, x0, x1),
        y1: L::select(single, y0, y1),
    }
}

/// One segment against the polygon (the batch's code on one lane). `entry_axis` and
/// `exit_axis` of the result carry no meaning here (always `X`).
pub fn clip_polygon_one<F: Real>(poly: &ConvexPolygon<F>, seg: &Segment<F>) -> Clip<F> {
    let f = clip_lanes(poly, seg);
    Clip {
        t_entry: f.t_entry,
        t_exit: f.t_exit,
        class: Class::of(f.valid, f.t_entry, f.t_exit),
        entry_axis: Axis::X,
        exit_axis: Axis::X,
    }
}

/// Every segment of a batch against one convex polygon, on SIMD lanes with a scalar tail, into
/// the same outputs as the rect clip; the same bits as [`clip_polygon_one`] segment by segment.
///
/// Errors before any work: an output of the wrong length.
pub fn clip_polygon<F: Real, S: SegmentSource<F> + ?Sized>(
    poly: &ConvexPolygon<F>,
    input: &S,
    out: &mut ClipOutput<'_, F>,
) -> Result<(), Error> {
    out.check_len(input.len())?;
    F::clip_polygon(poly, Batch::of(&input), out);
    Ok(())
}

/// [`clip_polygon`] at the chosen level, the outputs' lengths checked (`simd::entries`).
pub(crate) fn clip_polygon_batch<F: Real>(
    poly: &ConvexPolygon<F>,
    input: &Batch<'_, F>,
    out: &mut ClipOutput<'_, F>,
) {
    dispatch!(I => clip_polygon_in::<F, F::Simd<I>, _>(poly, input, out));
}

/// [`clip_polygon`] on `V` vectors, the outputs' lengths checked.
#[inline(always)]
fn clip_polygon_in<F: Real, V: Vector<F>, S: SegmentSource<F> + ?Sized>(
    poly: &ConvexPolygon<F>,
    input: &S,
    out: &mut ClipOutput<'_, F>,
) {
    let n = input.len();
    let full = n - n % V::WIDTH;
    // SAFETY (both calls): every output holds `n` values (`clip_polygon`'s `check_len`), and
    // each call writes a whole chunk below `full` or one segment below `n`.
    for i in (0..full).step_by(V::WIDTH) {
        let s = load_chunk::<F, V, S>(input, i);
        let f = clip_lanes(poly, &s);
        unsafe {
            store_lanes(
                out,
                i,
                &f,
                #[inline(always)]
                || clipped(&s, &f),
            )
        };
    }
    for i in full..n {
        let s = input.segment(i);
        let f = clip_lanes(poly, &s);
        unsafe {
            store_lanes(
                out,
                i,
                &f,
                #[inline(always)]
                || clipped(&s, &f),
            )
        };
    }
}
