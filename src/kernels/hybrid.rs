//! `hybrid`: an outcode prefilter settles chunks of trivial segments without the slab
//! arithmetic; every other chunk goes through `simd-slab`'s code.
//!
//! ```text
//! for each chunk of LANES segments:
//!     per lane: both ends in the rect                          → trivially inside
//!               both ends beyond the same edge (finite ends)   → trivially outside
//!     (a few vector compares)
//!     every lane trivial → write t = [0, 1] (segment unchanged) or NaN, skip the slab
//!     else               → the whole chunk through simd-slab's slab_fast
//! the batch's tail: the scalar lane of the same code
//! ```
//!
//! It pays when whole chunks are trivial: data far from the rect, or a tile grid where each tile
//! sees few of the segments (`Algorithm::clip_grid`). It costs the prefilter on data where most
//! chunks hold a segment that crosses an edge. Packing the undecided lanes of mixed chunks into
//! full vectors was tried and lost: the gather and scatter cost about what the slab saves.
//!
//! The bits are `simd-slab`'s: the contract (`contract::finish`) already reports a miss for two
//! ends beyond the same edge, and `[0, 1]` for two ends inside, so the prefilter only takes a
//! shortcut to the same answer.

use super::contract::{Finished, RectLanes};
use super::simd_slab::{drive, Broadcast};
use super::slab::slab_fast;
use super::{Clip, ClipKernel, SlabScalar};
use crate::buffers::{Batch, ClipOutput, SegmentSource};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};
use crate::simd::dispatch;

/// The outcode prefilter in front of the SIMD slab kernel.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hybrid;

/// Which lanes of a chunk the prefilter settles: `(inside, trivial)`, where `inside` means both
/// ends in the rect and `trivial` adds both ends beyond one edge.
#[inline(always)]
pub(crate) fn prefilter<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> (L::Mask, L::Mask) {
    let inside = r.contains(s.x0, s.y0) & r.contains(s.x1, s.y1);
    let left = s.x0.lt(r.xmin) & s.x1.lt(r.xmin);
    let right = r.xmax.lt(s.x0) & r.xmax.lt(s.x1);
    let below = s.y0.lt(r.ymin) & s.y1.lt(r.ymin);
    let above = r.ymax.lt(s.y0) & r.ymax.lt(s.y1);
    // NaN fails every comparison, but ±∞ beyond an edge does not: a non-finite segment is
    // `Invalid`, never trivially outside.
    let finite = s.x0.finite() & s.y0.finite() & s.x1.finite() & s.y1.finite();
    (inside, inside | ((left | right | below | above) & finite))
}

/// One chunk: the trivial answers when the prefilter settles every lane, else the slab.
#[inline(always)]
fn clip_chunk<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> (Finished<L>, bool) {
    use crate::Real;
    let (inside, trivial) = prefilter(r, s);
    if L::any(!trivial) {
        return slab_fast(r, s);
    }
    let (zero, one, nan) = (
        L::splat(L::Scalar::ZERO),
        L::splat(L::Scalar::ONE),
        L::splat(L::Scalar::NAN),
    );
    (
        Finished {
            valid: zero.eq_(zero),
            t_entry: L::select(inside, zero, nan),
            t_exit: L::select(inside, one, nan),
            hit_t: (zero, one),
            entry_y: zero.lt(zero),
            exit_y: zero.lt(zero),
            hit: inside,
            end_in: inside,
        },
        true,
    )
}

/// [`clip_chunk`] as a closure for `drive`, inlined into the level's function (a function
/// item passed as `Fn` is called through a shim, which LLVM kept out of line).
#[inline(always)]
fn prefiltered<L: Lane>() -> impl Fn(&RectLanes<L>, &Segment<L>) -> (Finished<L>, bool) {
    #[inline(always)]
    |r, s| clip_chunk(r, s)
}

impl ClipKernel for Hybrid {
    const NAME: &'static str = "hybrid";

    /// One segment: the scalar lane of the same code, so the same bits as the batch.
    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        SlabScalar::clip_one(rect, seg)
    }

    fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
        rect: &Rect<F>,
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) -> Result<(), Error> {
        out.check_len(input.len())?;
        F::hybrid(rect, Batch::of(&input), out);
        Ok(())
    }
}

impl Hybrid {
    /// [`Hybrid::clip`] at the chosen level, the outputs' lengths checked (`simd::entries`).
    pub(crate) fn clip_batch<F: Real>(
        rect: &Rect<F>,
        input: &Batch<'_, F>,
        out: &mut ClipOutput<'_, F>,
    ) {
        dispatch!(I => drive::<F, F::Simd<I>, _, _>(
            &Broadcast::new(rect),
            input,
            out,
            prefiltered::<F::Simd<I>>()
        ));
    }
}
