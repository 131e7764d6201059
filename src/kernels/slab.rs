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
    FarEnd, Raw, RectLanes,
};
use super::{Clip, ClipKernel};
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};

/// The branch-free slab method, one segment at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlabScalar;

/// The raw slab interval of `s`, lane by lane, for `contract::finish_slab`: the exit is capped
/// at `1 − ε/2` (the top of the range, `P1` inside or not: `finish_slab` decides that one by
/// comparing). Ties between the axes go to x.
///
/// One branch per chunk: when a coordinate difference is out of `axis_t`'s range (never, on
/// ordinary data; always for NaN or ±∞), the chunk is redone by [`slab_raw_careful`], which
/// gives the other lanes the same bits again. A chunk that passes has only finite coordinates.
#[inline(always)]
pub(crate) fn slab_raw<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Raw<L> {
    slab_raw_fast(r, s).unwrap_or_else(|| slab_raw_careful(r, s))
}

/// [`slab_raw`] where every lane passes `contract::fast_range` (in `axis_t`'s range, and no
/// parameter can underflow to zero), else `None`:
/// the vector loop then
/// redoes the chunk with [`slab_raw_careful`] from its index (`simd_slab::drive`), so that no
/// call in the hot loop needs the chunk in memory (that call cost about a third of the loop).
#[inline(always)]
pub(crate) fn slab_raw_fast<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Option<Raw<L>> {
    // No `+ 0` (`delta`): `fast_range` turns `-0` away, so a parallel axis here has `+0`.
    let (dx, dy) = (s.x1 - s.x0, s.y1 - s.y0);
    if L::any(!fast_range(r, (dx, dy), (s.x0, s.y0))) {
        return None;
    }
    let tx = axis_t_fast(r.xmin, r.xmax, s.x0, dx);
    let ty = axis_t_fast(r.ymin, r.ymax, s.y0, dy);
    // Every lane passed, so every coordinate is finite: an integer compare of constants, which
    // the compiler folds away (a float compare it keeps).
    let below = L::splat(L::Scalar::ONE_BELOW);
    Some(Raw::from_slabs(
        slab(tx),
        slab(ty),
        below,
        below.eq_bits(below),
    ))
}

/// [`slab_raw`] for a chunk with a lane out of `axis_t`'s range: those lanes by `careful_t`,
/// the others as in [`slab_raw`] (by `axis_t`, which makes an underflow `±TINY`); which lanes
/// are valid is found here. Out of line: it is taken by chunks with NaN, ±∞, extreme
/// magnitudes or a parameter that underflowed only.
#[inline(never)]
#[cold]
pub(crate) fn slab_raw_careful<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Raw<L> {
    let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
    let (ok_x, ok_y) = (in_range(dx), in_range(dy));
    let tx = axis_t(r.xmin, r.xmax, s.x0, dx);
    let ty = axis_t(r.ymin, r.ymax, s.y0, dy);
    let tx = segment_axis_careful((r.xmin, r.xmax), s.x0, s.x1, ok_x, tx);
    let ty = segment_axis_careful((r.ymin, r.ymax), s.y0, s.y1, ok_y, ty);
    let valid = s.x0.finite() & s.y0.finite() & s.x1.finite() & s.y1.finite();
    Raw::from_slabs(slab(tx), slab(ty), L::splat(L::Scalar::ONE_BELOW), valid)
}

impl ClipKernel for SlabScalar {
    const NAME: &'static str = "slab-scalar";

    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        let r = RectLanes::splat(rect);
        Clip::from_finished(finish_slab(&r, seg, slab_raw(&r, seg), FarEnd::WhenNear))
    }
}
