//! `naive-slab`: the textbook branch-free slab with no exactness at all, a **baseline that
//! breaks the contract** (SPEC §1). `slabclip compare` and the benches time it beside the real
//! algorithms, and check it against the exact reference, so a user sees what exactness costs
//! (its speed) and what it buys (its violations). It is not in [`Algorithm::ALL`] and cannot be
//! chosen in `slabclip clip`.
//!
//! ```text
//! t = (bound − p)·(1/d)                    per boundary: one division per axis, a product each
//! near, far = min, max of each axis' pair
//! entry = max(near_x, near_y, 0)          exit = min(far_x, far_y, 1)
//! entry ≤ exit ? (entry, exit) : (NaN, NaN)
//! class  = Class::code_lanes of those t's (every input counted valid)
//! clipped = P0 + t·(P1 − P0), coordinate by coordinate
//! ```
//!
//! What it gets wrong, on purpose: `t = 0`/`1` come from rounding rather than from the
//! endpoints (an endpoint one ulp outside can get `t = 0`, an entry just below 1 rounds to 1 and
//! becomes `Touches`); a parallel axis with `P0` on its boundary line makes `0·∞ = NaN`, which
//! the operand order of `min`/`max` drops or keeps as x86's `minps` does; NaN or infinite input
//! is not `Invalid` but whatever the arithmetic makes of it; clipped points can land a hair
//! outside the rect. The body is written over [`Lane`] and runs on `F::Simd` vectors through
//! `simd_slab::for_each_chunk` (no branch per lane), from where `simd-slab`'s loop starts
//! (`simd_slab::Placement`, without its streaming stores), the tail on scalar lanes with the
//! same operations, so a batch gives the same bits at every length.
//!
//! [`Algorithm::ALL`]: super::Algorithm::ALL

use super::contract::{Finished, RectLanes};
use super::simd_slab::{for_each_chunk, load_chunk, store_lanes, Placement};
use crate::buffers::{Batch, ClipOutput, ClipResults, SegmentSource};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};
use crate::simd::{dispatch, Vector};

/// The naive slab: fast and outside the contract (see the module docs). A baseline to measure
/// against, not a clip to use.
#[derive(Clone, Copy, Debug, Default)]
pub struct NaiveSlab;

/// `(t_entry, t_exit)` of the naive slab, lane by lane; NaN where `entry > exit`.
#[inline(always)]
fn naive_t<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> (L, L) {
    let zero = L::splat(L::Scalar::ZERO);
    let one = L::splat(L::Scalar::ONE);
    let (ix, iy) = (one / (s.x1 - s.x0), one / (s.y1 - s.y0));
    let (ax, bx) = ((r.xmin - s.x0) * ix, (r.xmax - s.x0) * ix);
    let (ay, by) = ((r.ymin - s.y0) * iy, (r.ymax - s.y0) * iy);
    // A possibly-NaN operand first: `min_any`/`max_any` then give the other one (as `minps`).
    let entry = ax.min_any(bx).max_any(ay.min_any(by)).max_any(zero);
    let exit = ax.max_any(bx).min_any(ay.max_any(by)).min_any(one);
    let hit = entry.le(exit);
    let nan = L::splat(L::Scalar::NAN);
    (L::select(hit, entry, nan), L::select(hit, exit, nan))
}

/// Writes the answers of the `L::WIDTH` segments from `i`; the class and the clipped segment
/// only when asked for, derived from the t's as plainly as possible.
///
/// # Safety
///
/// As `simd_slab::store_lanes`: `t_entry` and `t_exit`, where `out` has them, hold at least
/// `i + L::WIDTH` values.
#[inline(always)]
unsafe fn put_lanes<L: Lane>(
    out: &mut ClipOutput<'_, L::Scalar>,
    i: usize,
    r: &RectLanes<L>,
    s: &Segment<L>,
) {
    let (t_entry, t_exit) = naive_t(r, s);
    let zero = L::splat(L::Scalar::ZERO);
    let all = zero.eq_(zero);
    let f = Finished {
        valid: all,
        t_entry,
        t_exit,
        hit_t: (t_entry, t_exit),
        entry_y: all,
        exit_y: all,
        hit: t_entry.eq_(t_entry),
        end_in: t_exit.eq_(L::splat(L::Scalar::ONE)),
    };
    // SAFETY: this function's contract, which is `store_lanes`'s.
    unsafe {
        store_lanes(
            out,
            i,
            &f,
            #[inline(always)]
            || {
                let (dx, dy) = (s.x1 - s.x0, s.y1 - s.y0);
                Segment {
                    x0: s.x0 + t_entry * dx,
                    y0: s.y0 + t_entry * dy,
                    x1: s.x0 + t_exit * dx,
                    y1: s.y0 + t_exit * dy,
                }
            },
        )
    };
}

impl NaiveSlab {
    /// The name `compare` and the benches give its row.
    pub const NAME: &'static str = "naive-slab";

    /// `(t_entry, t_exit)` of one segment, NaN on a miss; no exactness (module docs).
    pub fn t_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> (F, F) {
        naive_t(&RectLanes::splat(rect), seg)
    }

    /// Clips a batch into the requested outputs: SIMD vectors, then the tail on scalar lanes.
    ///
    /// Errors, before any output is written, when an output's length differs from the input's.
    pub fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
        rect: &Rect<F>,
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) -> Result<(), Error> {
        out.check_len(input.len())?;
        F::naive_slab(rect, Batch::of(&input), out);
        Ok(())
    }

    /// [`NaiveSlab::clip`] at the chosen level, the outputs' lengths checked (`simd::entries`).
    pub(crate) fn clip_batch<F: Real>(
        rect: &Rect<F>,
        input: &Batch<'_, F>,
        out: &mut ClipOutput<'_, F>,
    ) {
        dispatch!(I => Self::clip_lanes::<F, F::Simd<I>, _>(rect, input, out));
    }

    /// [`NaiveSlab::clip`] on `V` vectors, the outputs' lengths checked.
    #[inline(always)]
    fn clip_lanes<F: Real, V: Vector<F>, S: SegmentSource<F> + ?Sized>(
        rect: &Rect<F>,
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) {
        let n = input.len();
        let lanes = RectLanes::<V>::splat(rect);
        // The loop starts and runs as `simd-slab`'s does (whole-line loads, the same
        // direction; plain stores), so the two rows of `compare` differ by their arithmetic only.
        let at = Placement {
            stream: false,
            ..Placement::of(input, out, V::WIDTH)
        };
        // SAFETY (the three calls): every output holds `n` values (`clip`'s `check_len`), and each
        // call writes a whole chunk of the batch (the head's from 0, which `Placement` gives
        // only from `HEAD_MIN` segments; one of the loop) or one segment of its tail.
        if at.head > 0 {
            unsafe { put_lanes(out, 0, &lanes, &load_chunk(input, 0)) };
        }
        let full = for_each_chunk(
            input,
            at,
            #[inline(always)]
            |i, s| unsafe { put_lanes(out, i, &lanes, &s) },
        );
        let one = RectLanes::<F>::splat(rect);
        for i in full..n {
            unsafe { put_lanes(out, i, &one, &input.segment(i)) };
        }
    }

    /// Clips a batch into freshly allocated buffers; clipped segments only when `segments`.
    pub fn clip_to_vec<F: Real, S: SegmentSource<F> + ?Sized>(
        rect: &Rect<F>,
        input: &S,
        segments: bool,
    ) -> ClipResults<F> {
        ClipResults::filled(input.len(), segments, |out| Self::clip(rect, input, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Class;
    use crate::workload::Dist;

    /// The plain formula, one segment, spelled out with x86's `minps`/`maxps` rule (the second
    /// operand where either is NaN), so the batch (vectors and tail) is checked against a second
    /// spelling of the same arithmetic.
    fn by_hand(r: &Rect<f32>, s: &Segment<f32>) -> (f32, f32) {
        let pick = |a: f32, b: f32, lo: bool| {
            if (lo && a < b) || (!lo && b < a) {
                a
            } else {
                b
            }
        };
        let (ix, iy) = (1.0 / (s.x1 - s.x0), 1.0 / (s.y1 - s.y0));
        let (ax, bx) = ((r.xmin() - s.x0) * ix, (r.xmax() - s.x0) * ix);
        let (ay, by) = ((r.ymin() - s.y0) * iy, (r.ymax() - s.y0) * iy);
        let entry = pick(
            pick(pick(ax, bx, true), pick(ay, by, true), false),
            0.0,
            false,
        );
        let exit = pick(
            pick(pick(ax, bx, false), pick(ay, by, false), true),
            1.0,
            true,
        );
        if entry <= exit {
            (entry, exit)
        } else {
            (f32::NAN, f32::NAN)
        }
    }

    #[test]
    fn batches_of_every_length_give_the_plain_formula() {
        let w = Dist::Mixed.generate::<f32>(1000, 7);
        for n in (0..=67).chain([999, 1000]) {
            let segs = w.segments.as_ref().slice(0..n);
            let got = NaiveSlab::clip_to_vec(&w.rect, &segs, true);
            let clipped = got.segments.as_ref().unwrap();
            for i in 0..n {
                let s = segs.segment(i);
                let (e, x) = by_hand(&w.rect, &s);
                let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
                assert!(
                    same(got.t_entry[i], e) && same(got.t_exit[i], x),
                    "{n} {i} {s:?}"
                );
                let c = clipped.segment(i);
                assert!(same(c.x0, s.x0 + e * (s.x1 - s.x0)), "{n} {i}");
                assert!(same(c.y1, s.y0 + x * (s.y1 - s.y0)), "{n} {i}");
                let class = Class::from_code(got.class[i]).unwrap();
                let want = match (e, x) {
                    _ if e.is_nan() => Class::Outside,
                    _ if e == x => Class::Touches,
                    (0.0, 1.0) => Class::Inside,
                    (_, 1.0) => Class::Enters,
                    (0.0, _) => Class::Exits,
                    _ => Class::Crosses,
                };
                assert_eq!(class, want, "{n} {i}");
            }
        }
    }

    /// A batch long enough for the loop to start past 0 (columns one value past a vector
    /// boundary), going backward, gives the plain formula too, the chunk before the loop
    /// included.
    #[test]
    fn a_loop_that_starts_past_0_gives_the_plain_formula() {
        use crate::buffers::SegmentsRef;
        use crate::kernels::simd_slab::{tests::placed, HEAD_MIN};
        let n = HEAD_MIN + 5;
        let w = Dist::Mixed.generate::<f32>(n, 9);
        let (x0, y0, x1, y1) = w.segments.as_ref().columns();
        let cols: Vec<_> = [x0, y0, x1, y1].iter().map(|c| placed(c, 1)).collect();
        let c: Vec<&[f32]> = cols.iter().map(|(b, r)| &b[r.clone()]).collect();
        let segs = SegmentsRef::new(c[0], c[1], c[2], c[3]).unwrap();
        // The outputs one value ahead of the inputs modulo a page: the loop goes backward.
        let ((mut te, re), (mut tx, rx)) = (placed(&vec![0.0; n], 2), placed(&vec![0.0; n], 2));
        let (te, tx) = (&mut te[re], &mut tx[rx]);
        let mut out = ClipOutput {
            t_entry: Some(te),
            t_exit: Some(tx),
            ..Default::default()
        };
        let at = Placement::of(&segs, &out, crate::simd::level().lanes::<f32>());
        assert!(at.head > 0 && at.backward, "{at:?}");
        NaiveSlab::clip(&w.rect, &segs, &mut out).unwrap();
        let (te, tx) = (out.t_entry.unwrap(), out.t_exit.unwrap());
        for i in 0..n {
            let (e, x) = by_hand(&w.rect, &segs.segment(i));
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
            assert!(same(te[i], e) && same(tx[i], x), "{i}");
        }
    }

    #[test]
    fn it_breaks_the_far_end_rule_that_the_contract_keeps() {
        // The far-end example: P1 strictly inside, the exact entry 1 − 7.5e-9 rounds to 1.
        let r = Rect::new(0.25f32, 0.25, 0.75, 0.75).unwrap();
        let s = Segment {
            x0: -3.75f32,
            y0: 0.75,
            x1: 0.250_000_03,
            y1: 0.749_999_94,
        };
        assert_eq!(NaiveSlab::t_one(&r, &s), (1.0, 1.0));
        // A parallel axis on the boundary line: 0·∞ is NaN, and the naive slab keeps the rest.
        let on_edge = Segment {
            x0: 0.25f32,
            y0: 0.0,
            x1: 0.25,
            y1: 1.0,
        };
        let (e, x) = NaiveSlab::t_one(&r, &on_edge);
        assert!(e.is_nan() || (e, x) == (0.25, 0.75), "{e} {x}");
    }

    #[test]
    fn wrong_lengths_are_an_error_before_any_write() {
        let w = Dist::Mixed.generate::<f64>(10, 1);
        let mut t = vec![7.0; 9];
        let mut out = ClipOutput {
            t_entry: Some(&mut t),
            ..Default::default()
        };
        assert!(NaiveSlab::clip(&w.rect, &w.segments, &mut out).is_err());
        assert!(t.iter().all(|&v| v == 7.0));
    }
}
