//! `simd-slab`: the slab method of `slab.rs`, across segments in `wide` vectors.
//!
//! ```text
//! for each chunk of LANES segments (loaded straight from SoA columns, or gathered):
//!     raw      = slab_raw(rect, chunk)          the very function slab-scalar runs
//!     finished = finish(rect, chunk, raw)       the shared contract
//!     store t_entry, t_exit, class codes, clipped segments as asked
//! the last len % LANES segments: the same functions on scalar lanes
//! ```
//!
//! Branch-free but for one rarely taken branch per boundary (`plane_t`'s overflow path, when a
//! coordinate difference leaves the float range). Because scalar and vector lanes run the same
//! IEEE operations, this kernel gives the same bits as `slab-scalar` at every batch length.

use super::contract::{clipped, finish, Finished, RectLanes};
use super::slab::slab_raw;
use super::{Clip, ClipKernel, SlabScalar};
use crate::buffers::{ClipOutput, SegmentSource};
use crate::error::Error;
use crate::geom::{Class, Rect, Segment};
use crate::real::Real;

/// The branch-free slab method on SIMD vectors (the width is a build setting: see
/// [`crate::simd`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct SimdSlab;

/// Up to 16 lanes of scratch, for gathers and class codes.
const MAX_LANES: usize = 16;

/// Loads the chunk starting at `i`: straight from columns when there are columns.
#[inline(always)]
pub(crate) fn load_chunk<F: Real, S: SegmentSource<F> + ?Sized>(
    input: &S,
    i: usize,
) -> Segment<F::Simd> {
    if let Some(cols) = input.columns() {
        let (x0, y0, x1, y1) = cols.columns();
        return Segment {
            x0: F::load(&x0[i..]),
            y0: F::load(&y0[i..]),
            x1: F::load(&x1[i..]),
            y1: F::load(&y1[i..]),
        };
    }
    let mut g = [[F::ZERO; MAX_LANES]; 4];
    for l in 0..F::LANES {
        let s = input.segment(i + l);
        for (column, v) in g.iter_mut().zip([s.x0, s.y0, s.x1, s.y1]) {
            column[l] = v;
        }
    }
    Segment {
        x0: F::load(&g[0]),
        y0: F::load(&g[1]),
        x1: F::load(&g[2]),
        y1: F::load(&g[3]),
    }
}

/// Writes one chunk's answers into whichever outputs were asked for.
#[inline(always)]
fn store_chunk<F: Real>(
    out: &mut ClipOutput<'_, F>,
    i: usize,
    r: &RectLanes<F::Simd>,
    s: &Segment<F::Simd>,
    f: &Finished<F::Simd>,
) {
    if let Some(t) = out.t_entry.as_deref_mut() {
        F::store(f.t_entry, &mut t[i..]);
    }
    if let Some(t) = out.t_exit.as_deref_mut() {
        F::store(f.t_exit, &mut t[i..]);
    }
    if let Some(k) = out.class.as_deref_mut() {
        let mut codes = [F::ZERO; MAX_LANES];
        F::store(Class::code_lanes(f.valid, f.t_entry, f.t_exit), &mut codes);
        for (dst, code) in k[i..i + F::LANES].iter_mut().zip(codes) {
            *dst = code.to_f64() as u8;
        }
    }
    if let Some(segs) = out.segments.as_mut() {
        let c = clipped(r, s, f);
        let (x0, y0, x1, y1) = segs.columns_mut();
        F::store(c.x0, &mut x0[i..]);
        F::store(c.y0, &mut y0[i..]);
        F::store(c.x1, &mut x1[i..]);
        F::store(c.y1, &mut y1[i..]);
    }
}

impl ClipKernel for SimdSlab {
    const NAME: &'static str = "simd-slab";

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
        let n = input.len();
        out.check_len(n)?;
        let r = RectLanes::<F::Simd>::splat(rect);
        let full = n - n % F::LANES;
        for i in (0..full).step_by(F::LANES) {
            let s = load_chunk(input, i);
            let f = finish(&r, &s, slab_raw(&r, &s));
            store_chunk(out, i, &r, &s, &f);
        }
        for i in full..n {
            let seg = input.segment(i);
            out.put(i, rect, &seg, &SlabScalar::clip_one(rect, &seg));
        }
        Ok(())
    }
}
