//! `auto`: the engine's own choice for a batch.
//!
//! ```text
//! kernel = hybrid     if at least HYBRID_SHARE of an even sample of the batch is trivial
//!                     (both ends inside, or both beyond one edge: what hybrid's prefilter settles)
//!          simd-slab  otherwise
//! n < PARALLEL_MIN (or one thread):  kernel on the calling thread
//! else:  halve the batch (at multiples of 64) down to pieces of about n / (4 · threads) and run
//!        the kernel on the pieces with rayon::join, in rayon's current pool
//! ```
//!
//! The kernel is chosen once for the whole batch, and every segment's answer depends on that
//! segment alone, so the output is bit-identical whatever the thread count or the split. Both
//! thresholds were measured on the development machine: see the README's "Speed" section.

use super::contract::RectLanes;
use super::hybrid::prefilter;
use super::{Algorithm, ClipKernel, Hybrid, SimdSlab};
use crate::buffers::{ClipOutput, SegmentSource, Window};
use crate::error::Error;
use crate::geom::Rect;
use crate::real::Real;

/// Batches shorter than this stay on the calling thread: below it, handing work to a second
/// thread costs more than it saves (measured: see the README).
pub const PARALLEL_MIN: usize = 1 << 17;

/// The share of trivially settled segments in a sample above which `auto` picks `hybrid`.
pub const HYBRID_SHARE: f64 = 0.9;

/// How many segments `auto` looks at to choose.
const SAMPLE: usize = 256;

/// What `auto` does, in one line (for `slabclip info`).
pub fn auto_rule() -> String {
    format!(
        "hybrid when at least {:.0}% of a {SAMPLE}-segment sample is trivially inside or outside, \
         else simd-slab; rayon's threads from {PARALLEL_MIN} segments",
        HYBRID_SHARE * 100.0
    )
}

/// The kernel `auto` runs on this batch: `hybrid` or `simd-slab`.
pub(super) fn choose<F: Real, S: SegmentSource<F> + ?Sized>(
    rect: &Rect<F>,
    input: &S,
) -> Algorithm {
    let n = input.len();
    if n == 0 {
        return Algorithm::SimdSlab;
    }
    let r = RectLanes::<F>::splat(rect);
    let picks = n.min(SAMPLE);
    let trivial = (0..picks)
        .filter(|k| prefilter(&r, &input.segment(k * n / picks)).1)
        .count();
    if trivial as f64 >= HYBRID_SHARE * picks as f64 {
        Algorithm::Hybrid
    } else {
        Algorithm::SimdSlab
    }
}

/// Runs `auto` on a batch; see the module docs.
pub(super) fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
    rect: &Rect<F>,
    input: &S,
    out: &mut ClipOutput<'_, F>,
) -> Result<(), Error> {
    let n = input.len();
    out.check_len(n)?;
    let kernel = choose(rect, input);
    let threads = rayon::current_num_threads();
    if n < PARALLEL_MIN || threads < 2 {
        return run(kernel, rect, input, out);
    }
    let piece = n.div_ceil(4 * threads).max(PARALLEL_MIN / 2);
    split(
        kernel,
        rect,
        &Window::new(input, 0..n),
        out.reborrow(),
        piece,
    )
}

/// The kernel on one piece.
fn run<F: Real, S: SegmentSource<F> + ?Sized>(
    kernel: Algorithm,
    rect: &Rect<F>,
    input: &S,
    out: &mut ClipOutput<'_, F>,
) -> Result<(), Error> {
    match kernel {
        Algorithm::Hybrid => Hybrid::clip(rect, input, out),
        _ => SimdSlab::clip(rect, input, out),
    }
}

/// Halves `input` and `out` until the pieces are at most `piece` long, in parallel.
fn split<F: Real, S: SegmentSource<F> + ?Sized>(
    kernel: Algorithm,
    rect: &Rect<F>,
    input: &Window<'_, S>,
    mut out: ClipOutput<'_, F>,
    piece: usize,
) -> Result<(), Error> {
    let n = input.len();
    if n <= piece {
        return run(kernel, rect, input, &mut out);
    }
    // A multiple of 64 keeps every piece but the last made of whole vectors.
    let mid = (n / 2).next_multiple_of(64).min(n);
    let (in_a, in_b) = input.split_at(mid);
    let (out_a, out_b) = out.split_at(mid);
    let (a, b) = rayon::join(
        || split(kernel, rect, &in_a, out_a, piece),
        || split(kernel, rect, &in_b, out_b, piece),
    );
    a.and(b)
}
