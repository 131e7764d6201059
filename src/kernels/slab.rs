//! `slab-scalar`: the slab method (seed 002), branch-free.
//!
//! ```text
//! (near_x, far_x) = parameters where the line enters and leaves  xmin ≤ x ≤ xmax
//! (near_y, far_y) = likewise for y
//! entry = max(0, near_x, near_y)      exit = min(1, far_x, far_y)      hit iff entry ≤ exit
//! ```
//!
//! A parallel axis is all or nothing (`contract::axis_slab`), so the IEEE infinities of a
//! division by zero never meet a zero. The body is written over [`Lane`]: the SIMD kernel runs
//! this very function on vectors, which is why the two give the same bits.

use super::contract::{axis_fast, axis_slab, fast_settles, slab_of, Raw, RectLanes};
use super::{clip_with, Clip, ClipKernel};
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};

/// The branch-free slab method, one segment at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlabScalar;

/// The raw slab interval of `s`, lane by lane. Ties between the axes go to x.
///
/// One branch for the four boundaries: when any lane needs `plane_t`'s careful path (never, on
/// ordinary data), the whole chunk is redone by [`slab_raw_careful`], which gives every other
/// lane the same bits again.
#[inline(always)]
pub(crate) fn slab_raw<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Raw<L> {
    let fx = axis_fast(r.xmin, r.xmax, s.x0, s.x1);
    let fy = axis_fast(r.ymin, r.ymax, s.y0, s.y1);
    if !fast_settles(&fx, &fy) {
        return slab_raw_careful(r, s);
    }
    let x = slab_of(r.xmin, r.xmax, s.x0, s.x0.lt(s.x1), s.x0.eq_(s.x1), fx.t);
    let y = slab_of(r.ymin, r.ymax, s.y0, s.y0.lt(s.y1), s.y0.eq_(s.y1), fy.t);
    let (near, far, entry_y, exit_y) = intersect_slabs(x, y);
    Raw::from_planes(near, far, entry_y, exit_y)
}

/// [`slab_raw`] with every boundary through `plane_t`, for chunks with a lane out of range.
#[inline(always)]
fn slab_raw_careful<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> Raw<L> {
    let x = axis_slab(r.xmin, r.xmax, s.x0, s.x1);
    let y = axis_slab(r.ymin, r.ymax, s.y0, s.y1);
    let (near, far, entry_y, exit_y) = intersect_slabs(x, y);
    Raw::from_planes(near, far, entry_y, exit_y)
}

/// The intersection of the x and y slabs `(near, far)`: the largest near, the smallest far, and
/// whether each came from y. Ties go to x. Shared with ray × rect (`cast/ray_rect.rs`).
#[inline(always)]
pub(crate) fn intersect_slabs<L: Lane>(
    (near_x, far_x): (L, L),
    (near_y, far_y): (L, L),
) -> (L, L, L::Mask, L::Mask) {
    let entry_y = near_y.gt(near_x);
    let exit_y = far_y.lt(far_x);
    let near = L::select(entry_y, near_y, near_x);
    let far = L::select(exit_y, far_y, far_x);
    (near, far, entry_y, exit_y)
}

impl ClipKernel for SlabScalar {
    const NAME: &'static str = "slab-scalar";

    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        clip_with(rect, seg, slab_raw::<F>)
    }
}
