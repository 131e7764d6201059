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
//! segment alone, so the output is bit-identical whatever the thread count or the split. The
//! choice was dropped for a day while `simd-slab` decided the far ends behind a branch and was
//! as fast as `hybrid` everywhere; with the far ends branch-free (robust on edge-heavy data),
//! `hybrid` is again faster on mostly-trivial batches (1M, one thread: road-like 676 vs 366
//! Mseg/s, random-walk 640 vs 361, tracks 646 vs 366) and slower on the others (mixed 331 vs
//! 359, mostly-outside 329 vs 370): README, "Speed".

use core::ops::Range;

use super::contract::RectLanes;
use super::hybrid::prefilter;
use super::{Algorithm, ClipKernel, Hybrid, SimdSlab};
use crate::buffers::{ClipOutput, SegmentSource, Window};
use crate::error::Error;
use crate::geom::Rect;
use crate::real::Real;

/// Batches shorter than this stay on the calling thread: below it, handing work to a second
/// thread costs more than it saves. Measured 2026-11-23 (2 cores, `mixed` f32, `--emit t`,
/// calls from outside the pool, best of 51 samples; `auto` with the threshold lowered to 8K
/// against one-thread `simd-slab`): 8K 338 vs 523 Mseg/s, 16K 556 vs 472, 32K 832 vs 530, 64K
/// 876 vs 569, 256K 998 vs 683. So from 32K (it was 128K, set on an earlier machine).
pub const PARALLEL_MIN: usize = 1 << 15;

/// The share of trivially settled segments in a sample above which `auto` picks `hybrid`.
/// `hybrid` skips the slab only for chunks whose lanes are all trivial, so it wins where nearly
/// every segment is: the shares of the shipped workloads are random-walk 0.998, road-like 0.995,
/// tracks 0.992 (`hybrid` 1.3–1.8× `simd-slab` at 1M), mostly-inside 0.95 (`hybrid` 8% slower:
/// only 66% of its chunks of 8 are all trivial), mostly-outside 0.85, mixed 0.49.
pub const HYBRID_SHARE: f64 = 0.98;

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
    if n < PARALLEL_MIN || crate::threads::available() < 2 {
        // The batch itself, not a window over it: the kernel is instantiated for `S` directly.
        return run(kernel, rect, input, out);
    }
    in_pieces(n, out.reborrow(), &|range, mut out| {
        run(kernel, rect, &Window::new(input, range), &mut out)
    })
}

/// The chosen kernel on one batch or piece. Not `kernel.clip(..)`: `Algorithm::clip` has an
/// `Auto` arm, which would instantiate this function again for a window of a window, without
/// end.
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

#[cfg(test)]
mod tests {
    use crate::workload::Dist;
    use crate::Algorithm;

    /// `hybrid` for the nearly-all-trivial workloads it is faster on, `simd-slab` for the
    /// others, mostly-inside (95% trivial, where `hybrid` is slower) among them.
    #[test]
    fn auto_picks_hybrid_only_for_nearly_all_trivial_batches() {
        for (dist, want) in [
            (Dist::RandomWalk, Algorithm::Hybrid),
            (Dist::RoadLike, Algorithm::Hybrid),
            (Dist::Tracks, Algorithm::Hybrid),
            (Dist::Mixed, Algorithm::SimdSlab),
            (Dist::MostlyInside, Algorithm::SimdSlab),
            (Dist::MostlyOutside, Algorithm::SimdSlab),
        ] {
            let w = dist.generate::<f32>(1 << 16, 1);
            let got = Algorithm::Auto.resolve(&w.rect, &w.segments.as_ref());
            assert_eq!(got, want, "{dist:?}");
        }
    }
}
