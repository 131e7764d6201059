//! `auto`: the engine's own choice for a batch.
//!
//! ```text
//! n < PARALLEL_MIN (or one thread):  simd-slab on the calling thread
//! else:  halve the batch (at multiples of 64) down to pieces of about n / (4 · threads) and run
//!        simd-slab on the pieces with rayon::join, in rayon's current pool
//! ```
//!
//! Every segment's answer depends on that segment alone, so the output is bit-identical
//! whatever the thread count or the split.
//!
//! Until 2026-11-24 `auto` ran `hybrid` on batches whose sample was at least 98% trivial. With
//! `simd-slab`'s fast path and far end as they now are, `hybrid`'s prefilter no longer pays
//! on one rect: `compare`, f32, one thread, `simd-slab` against `hybrid` (Mseg/s): 64K road-like
//! 1,596 / 1,494, random-walk 2,018 / 1,761, tracks 2,030 / 1,617; 1M road-like 1,092 / 1,183,
//! random-walk 1,168 / 1,282, tracks 1,146 / 1,149; 16M road-like 920 / 836, random-walk
//! 849 / 792; mixed, mostly-inside and mostly-outside `simd-slab` by 30–50% at every size.
//! A 10% edge at 1M alone (within this machine's noise) did not justify a second kernel.

use core::ops::Range;

use super::{ClipKernel, SimdSlab};
use crate::buffers::{ClipOutput, SegmentSource, Window};
use crate::error::Error;
use crate::geom::Rect;
use crate::real::Real;

/// Batches shorter than this stay on the calling thread: below it, handing work to a second
/// thread costs more than it saves. Measured 2026-11-24 (2 cores of a Zen 4 shared with other
/// tenants, load average about 1.5; `mixed` f32, `--emit t`, calls from outside the pool,
/// medians of 31; `auto` on two threads against `simd-slab` on one, Mseg/s): 32K 932 / 1,734,
/// 64K 1,450 / 1,673, 128K 1,512 / 1,723, 256K 1,511 / 1,644, 512K 1,498 / 1,385, 1M 1,771 /
/// 1,464, 4M 1,271 / 987. So from 512K (it was 32K, set for the slower kernel of 2026-11-23).
pub const PARALLEL_MIN: usize = 1 << 19;

/// What `auto` does, in one line (for `slabclip info`).
pub fn auto_rule() -> String {
    format!("simd-slab; rayon's threads from {PARALLEL_MIN} segments")
}

/// Runs `auto` on a batch; see the module docs.
pub(super) fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
    rect: &Rect<F>,
    input: &S,
    out: &mut ClipOutput<'_, F>,
) -> Result<(), Error> {
    let n = input.len();
    out.check_len(n)?;
    if n < PARALLEL_MIN || crate::threads::available() < 2 {
        // The batch itself, not a window over it: the kernel is instantiated for `S` directly.
        return SimdSlab::clip(rect, input, out);
    }
    in_pieces(n, out.reborrow(), &|range, mut out| {
        SimdSlab::clip(rect, &Window::new(input, range), &mut out)
    })
}

/// The piece function of [`in_pieces`]: a range of the batch and the outputs of that range.
pub(crate) type PieceFn<'f, F> =
    dyn Fn(Range<usize>, ClipOutput<'_, F>) -> Result<(), Error> + Sync + 'f;

/// Runs `f` on pieces covering `0..n` with their outputs (`out` covers `0..n`): the whole batch
/// on the calling thread below [`PARALLEL_MIN`] segments or with one thread; else halves (at
/// multiples of 64, so every piece but the last is whole vectors) down to about
/// `n / (4 · threads)`, in parallel with `rayon::join`. How `auto` and the `auto` batch shapes
/// use threads.
pub(crate) fn in_pieces<F: Real>(
    n: usize,
    out: ClipOutput<'_, F>,
    f: &PieceFn<'_, F>,
) -> Result<(), Error> {
    let threads = crate::threads::available();
    if n < PARALLEL_MIN || threads < 2 {
        return f(0..n, out);
    }
    halve(0..n, out, n.div_ceil(4 * threads).max(PARALLEL_MIN / 2), f)
}

fn halve<F: Real>(
    range: Range<usize>,
    out: ClipOutput<'_, F>,
    piece: usize,
    f: &PieceFn<'_, F>,
) -> Result<(), Error> {
    if range.len() <= piece {
        return f(range, out);
    }
    let mid = range.start + (range.len() / 2).next_multiple_of(64).min(range.len());
    let (out_a, out_b) = out.split_at(mid - range.start);
    let (a, b) = rayon::join(
        || halve(range.start..mid, out_a, piece, f),
        || halve(mid..range.end, out_b, piece, f),
    );
    a.and(b)
}
