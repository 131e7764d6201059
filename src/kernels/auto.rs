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
//! Why not `hybrid`: against the one-pass `simd-slab` its prefilter does not pay on one rect
//! anywhere (`compare`, f32, one thread, Zen 4, `simd-slab` / `hybrid`, Mseg/s): 64K road-like
//! 3,877 / 2,283, random-walk 3,759 / 2,327, tracks 3,715 / 2,145; 16M 2,172 / 1,785, 1,909 /
//! 1,593, 2,084 / 1,676; and at 1M on every workload of `compare --dist all` (`simd-slab`
//! 2.35–3.61 G, `hybrid` 1.35–2.23 G; docs/performance.md).

use core::ops::Range;

use super::{ClipKernel, SimdSlab};
use crate::buffers::{ClipOutput, SegmentSource, Window};
use crate::error::Error;
use crate::geom::Rect;
use crate::real::Real;

/// Batches shorter than this stay on the calling thread: below it, handing work to a second
/// thread costs more than it saves. Measured (2 cores of a Zen 4 shared with other tenants;
/// `clip_calls` example built with this set to 4,096, `mixed` f32, `t`, calls from outside the
/// pool, medians, three runs; two threads against one): 32K 0.38–0.40×, 64K 0.57–0.59×, 128K
/// 0.73–0.79×, 256K 0.81–1.22×, 512K 1.00–1.37×, 1M 1.15–1.23×.
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
