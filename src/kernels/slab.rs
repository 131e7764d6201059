//! `slab-scalar`: the slab method (seed 002), branch-free.
//!
//! ```text
//! (near_x, far_x) = parameters where the line enters and leaves  xmin ≤ x ≤ xmax
//! (near_y, far_y) = likewise for y
//! entry = max(0, near_x, near_y)      exit = min(1, far_x, far_y)      hit iff entry ≤ exit
//! ```
//!
//! A parallel axis is all or nothing (`contract::slab`): the infinities of a division by zero
//! are read, never multiplied by a zero into a result. The body is written over [`Lane`]: the SIMD kernel runs
//! this very function on vectors, which is why the two give the same bits.

use super::contract::{
    axis_t, axis_t_fast, delta, fast_range, finish_slab, in_range, segment_axis_careful, slab,
    Finished, Raw, RectLanes,
};
use super::{Clip, ClipKernel};
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};

/// The branch-free slab method, one segment at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlabScalar;

/// SPEC §1's clip of `s`, lane by lane: [`slab_fast`], or where a lane is out of its range
/// (never, on ordinary data; always for NaN or ±∞) the whole chunk by [`slab_careful`], which
/// gives the other lanes the same bits.
#[inline(always)]
pub(crate) fn slab_clip<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Finished<L> {
    match slab_fast(r, s) {
        (f, true) => f,
        _ => slab_careful(r, s),
    }
}

/// The slab clip of a chunk, finished (SPEC §1) with no branch and no mask but the hit's, and
/// whether every lane passed `contract::fast_range`: the answer counts only then. Otherwise
/// the vector loop, which has stored it already, writes the chunk again with [`slab_careful`]
/// from its index (`simd_slab::drive`), so that no call in the hot loop needs the chunk in
/// memory (that call cost about a third of the loop).
///
/// ```text
/// in, out     = the bounds each axis enters and leaves through: (lo, hi) moving up or
///               along (d = +0), (hi, lo) moving down
/// near, far   = (in − p0)·(1/d), (out − p0)·(1/d)       the slab's min and max, no compare
/// entry       = max(near_x, near_y, 0)                   exit = min(far_x, far_y, 1 − ε/2)
/// depth       = min(x1 − xmin, xmax − x1, y1 − ymin, ymax − y1)   < 0 iff P1 is outside
/// at_end      = on some axis along which it moves, P1 lies on its entering bound
/// t_entry     = at_end ? 1 : min(entry, 1 − ε/2)         t_exit = depth ≥ 0 ? 1 : exit
/// hit         = t_entry ≤ (depth ≥ 0 ? 1 : min(exit, just below 1 − 2ε))
/// ```
///
/// The same answers, bit for bit, as [`slab_careful`] gives these lanes (`contract::finish_slab`
/// on `contract::slab`'s interval), because:
///
/// * `(in − p0)·(1/d)` and `(out − p0)·(1/d)` are the slab's two boundary parameters, and the
///   one of `in` is never above the other (a product with one factor rounds monotonically in
///   the other), so `min` and `max` would give these; with `d = ±0` the parameters are `±∞`
///   or NaN, in the pairs `contract::slab` tabulates for `+0`; a `-0` (from `x1 = -0`,
///   `x0 = +0`) swaps the bounds and the sign of `1/d` together, which gives pairs of the same
///   meaning once a NaN drops out (`p0` on `lo`: `(−∞, NaN)` for `(NaN, +∞)`). The
///   parameters are exact in sign and zero only when exactly zero (`fast_range`: nothing
///   underflows), so a hit has `t_entry == 0` iff `P0` is in the rect, and `t_exit == 0` iff it
///   leaves exactly there (`finish_slab`'s reading of the signs);
/// * a difference of two floats is exact in sign and zero only where they are equal, so `P1`
///   is in the closed rect iff `depth ≥ 0` (`-0` included): `t_exit` is 1 there, and the hit
///   needs no test below 1 (with `P1` outside, an entry rounded into `[1 − 2ε, 1)` is a graze,
///   a miss, as `finish_slab` rules);
/// * the far end (SPEC §1): with `P1` in the rect, the exact entry is 1 iff `P1` lies on the
///   bound it enters through on an axis along which it moves (`x1 == xmin` moving right,
///   `x1 == xmax` moving left, likewise y: `contract::enters_at_end`, which clamps `P0` to the
///   rect instead, says the same), and then the rounded entry is within an ulp of 1;
///   elsewhere it is below 1, so `min(entry, 1 − ε/2)`. With `P1` outside, such a lane's entry
///   is at least `1 − ε/2` and it is a miss either way.
///
/// Every select is a sign or a class (`Lane::order_by_sign`, `one_where_either_zero`,
/// `one_unless_negative`: `vpternlog` and `vfixupimm` with AVX-512) rather than a compare: on
/// Zen 4 the instructions that write mask registers are the scarce ones. `simd-slab`, `mixed`
/// `f32`, 64K, one thread (docs/performance.md: `compare`): from a compare-and-branch form (the slab
/// by `min`/`max`, `P1` inside by four compares under masks, the far end behind a branch that
/// half the chunks took) to this one, 68% → 80–83% of `naive-slab` (3.0 → 3.8–3.9 Gseg/s).
#[inline(always)]
pub(crate) fn slab_fast<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> (Finished<L>, bool) {
    let (dx, dy) = (s.x1 - s.x0, s.y1 - s.y0);
    let ok = !L::any(!fast_range(r, (dx, dy), [s.x0, s.y0, s.x1, s.y1]));
    let (zero, below) = (L::splat(L::Scalar::ZERO), L::splat(L::Scalar::ONE_BELOW));
    let (in_x, out_x) = L::order_by_sign(dx, r.xmin, r.xmax);
    let (in_y, out_y) = L::order_by_sign(dy, r.ymin, r.ymax);
    let (near_x, far_x) = axis_t_fast(in_x, out_x, s.x0, dx);
    let (near_y, far_y) = axis_t_fast(in_y, out_y, s.y0, dy);
    // `max`/`min` take a NaN operand (a parallel axis with `p0` on a bound) first, so that it
    // drops out (`Raw::from_slabs`).
    let entry = near_x.max_any(near_y.max_any(zero));
    let exit = far_x.min_any(far_y.min_any(below));
    // `P1` against each bound: zero where it lies on it, negative where it is beyond.
    let depth = (s.x1 - r.xmin)
        .min_any(s.y1 - r.ymin)
        .min_any((r.xmax - s.x1).min_any(r.ymax - s.y1));
    // `P1`'s offset from the bound each axis enters through, `+∞` on an axis it does not
    // move along: zero on some axis iff the segment enters exactly at `P1`.
    let off_x = (s.x1 - in_x).inf_where_zero(dx);
    let off_y = (s.y1 - in_y).inf_where_zero(dy);
    let t_entry = entry.min_any(below).one_where_either_zero(off_x, off_y);
    let t_exit = exit.one_unless_negative(depth);
    let graze_below = L::splat(-(-L::Scalar::GRAZE_TOP).next_up());
    let cap = exit.min_any(graze_below).one_unless_negative(depth);
    let hit = t_entry.le(cap);
    let nan = L::splat(L::Scalar::NAN);
    let is_nan = |t: L| !t.eq_(t);
    (
        Finished {
            // Every lane passed, so every coordinate is finite: an integer compare of constants,
            // which the compiler folds away (a float compare it keeps).
            valid: below.eq_bits(below),
            t_entry: L::select(hit, t_entry, nan),
            t_exit: L::select(hit, t_exit, nan),
            hit_t: (t_entry, t_exit),
            entry_y: near_y.gt(near_x) | is_nan(near_x),
            exit_y: far_y.lt(far_x) | is_nan(far_x),
            hit,
            end_in: hit & zero.le(depth),
        },
        ok,
    )
}

/// [`slab_clip`] for a chunk with a lane out of `fast_range`: the raw slab, those lanes by
/// `careful_t` and the others by `axis_t` (which makes an underflow `±TINY`), then
/// `contract::finish_slab`; which lanes are valid is found here. Out of line: it is taken by
/// chunks with NaN, ±∞, extreme or tiny magnitudes only.
#[inline(never)]
#[cold]
pub(crate) fn slab_careful<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Finished<L> {
    L::within(
        #[inline(always)]
        || {
            let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
            let (ok_x, ok_y) = (in_range(dx), in_range(dy));
            let tx = axis_t(r.xmin, r.xmax, s.x0, dx);
            let ty = axis_t(r.ymin, r.ymax, s.y0, dy);
            let tx = segment_axis_careful((r.xmin, r.xmax), s.x0, s.x1, ok_x, tx);
            let ty = segment_axis_careful((r.ymin, r.ymax), s.y0, s.y1, ok_y, ty);
            let valid = s.x0.finite() & s.y0.finite() & s.x1.finite() & s.y1.finite();
            let raw = Raw::from_slabs(slab(tx), slab(ty), L::splat(L::Scalar::ONE_BELOW), valid);
            finish_slab(r, s, raw)
        },
    )
}

impl ClipKernel for SlabScalar {
    const NAME: &'static str = "slab-scalar";

    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        let r = RectLanes::splat(rect);
        Clip::from_finished(slab_clip(&r, seg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::contract::clipped;
    use crate::simd::{dispatch, Vector};
    use crate::workload::SplitMix64;

    /// Coordinates where the fast path's shortcuts could part from the careful path: zeros of
    /// both signs, the edges of the fast range, the rect's bounds and their ulp neighbours,
    /// values far out; and apart, the tiny ones (subnormals, `RANGE_LO`, just below `FAST_LO`),
    /// which the fast path turns away.
    fn values<F: Real>(rect: &Rect<F>) -> (Vec<F>, Vec<F>) {
        let mut v = vec![F::ZERO, -F::ZERO, F::FAST_LO, F::FAST_LO.next_up()];
        let bounds = [rect.xmin(), rect.ymin(), rect.xmax(), rect.ymax()];
        for x in [F::FAST_HI, F::ONE].into_iter().chain(bounds) {
            for y in [x, x.next_up(), -((-x).next_up())] {
                v.extend([y, -y]);
            }
        }
        v.extend([0.5, 2.0, -3.0, 1e20].map(F::from_f64));
        let tiny = F::ZERO.next_up();
        let below_lo = -((-F::FAST_LO).next_up());
        let small = [
            tiny,
            tiny + tiny,
            F::RANGE_LO,
            F::RANGE_LO.next_up(),
            below_lo,
        ];
        (v, small.into_iter().flat_map(|x| [x, -x]).collect())
    }

    /// The outputs a kernel writes, as bits: `t_entry`, `t_exit`, the class code and the
    /// clipped segment.
    fn outputs<L: Lane>(r: &RectLanes<L>, s: &Segment<L>, f: &Finished<L>) -> Vec<[u64; 7]> {
        let c = clipped(r, s, f);
        let cols = [f.t_entry, f.t_exit, f.class_codes(), c.x0, c.y0, c.x1, c.y1];
        let mut lanes = vec![[0u64; 7]; L::WIDTH];
        for (k, v) in cols.into_iter().enumerate() {
            let mut out = [L::Scalar::ZERO; 16];
            v.write(&mut out);
            for (l, lane) in lanes.iter_mut().enumerate() {
                lane[k] = out[l].to_bits_u64();
            }
        }
        lanes
    }

    /// Wherever `slab_fast` takes a chunk, its answers are `slab_careful`'s bit for bit (the
    /// vector loop redoes any chunk with a lane out of the fast range by the careful path, so
    /// a segment's answer must not depend on its neighbours), on scalar lanes and on the
    /// vectors of a level, for rects with zero, negative and degenerate bounds. The scalar lanes
    /// take random segments, tiny coordinates among them, of which the fast path takes about
    /// half; the vector chunks are made of segments that each pass the vector fast range alone
    /// (the AVX-512 lanes test a little more than the scalar ones), and must pass it together.
    fn fast_matches_careful<F: Real, V: Vector<F>>() {
        let rects = [
            (0.0, 0.0, 1.0, 1.0),
            (-1.0, -2.0, 3.0, 0.5),
            (0.0, 0.0, 0.0, 1.0),
        ];
        let mut rng = SplitMix64::new(0x5EED_FA57);
        let mut scalar_fast = 0;
        for (x0, y0, x1, y1) in rects {
            let rect = Rect::new(
                F::from_f64(x0),
                F::from_f64(y0),
                F::from_f64(x1),
                F::from_f64(y1),
            )
            .unwrap();
            let (vals, tiny) = values(&rect);
            // A subnormal in one coordinate in 64: one segment in sixteen has one.
            let mut pick = || match rng.below(64) {
                0 => tiny[rng.below(tiny.len() as u64) as usize],
                _ => vals[rng.below(vals.len() as u64) as usize],
            };
            let r1 = RectLanes::<F>::splat(&rect);
            let rv = RectLanes::<V>::splat(&rect);
            let vector = |segs: &[Segment<F>]| {
                let column =
                    |k: fn(&Segment<F>) -> F| V::load(&segs.iter().map(k).collect::<Vec<F>>());
                Segment {
                    x0: column(|s| s.x0),
                    y0: column(|s| s.y0),
                    x1: column(|s| s.x1),
                    y1: column(|s| s.y1),
                }
            };
            for _ in 0..4000 {
                let segs: Vec<Segment<F>> = (0..V::WIDTH)
                    .map(|_| Segment::new(pick(), pick(), pick(), pick()))
                    .collect();
                for s in &segs {
                    let (f, ok) = slab_fast(&r1, s);
                    if ok {
                        scalar_fast += 1;
                        let want = outputs(&r1, s, &slab_careful(&r1, s));
                        assert_eq!(outputs(&r1, s, &f), want, "{s:?} against {rect:?}");
                    }
                }
                let mut chunk = Vec::with_capacity(V::WIDTH);
                while chunk.len() < V::WIDTH {
                    let s = Segment::new(pick(), pick(), pick(), pick());
                    if slab_fast(&rv, &vector(&vec![s; V::WIDTH])).1 {
                        chunk.push(s);
                    }
                }
                let sv = vector(&chunk);
                let (f, ok) = slab_fast(&rv, &sv);
                assert!(ok, "lanes that pass alone fail together: {chunk:?}");
                let want = outputs(&rv, &sv, &slab_careful(&rv, &sv));
                assert_eq!(outputs(&rv, &sv, &f), want, "{chunk:?} against {rect:?}");
            }
        }
        let n = 3 * 4000 * V::WIDTH;
        assert!(
            scalar_fast > n / 4,
            "the fast path took {scalar_fast} of {n} segments"
        );
    }

    #[test]
    fn fast_matches_careful_f32() {
        for level in crate::simd::available() {
            dispatch!(at level, I => fast_matches_careful::<f32, <f32 as Real>::Simd<I>>());
        }
    }

    #[test]
    fn fast_matches_careful_f64() {
        for level in crate::simd::available() {
            dispatch!(at level, I => fast_matches_careful::<f64, <f64 as Real>::Simd<I>>());
        }
    }
}
