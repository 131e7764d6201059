//! Batch shapes beyond one rect for N segments (SPEC §3): N rects for N segments (pairwise),
//! N segments × M rects as a compact hit list, and clipping in place.
//!
//! Every shape runs the same kernels as [`Algorithm::clip`], so its answers are that
//! algorithm's, bit for bit, and `Auto` spreads large batches over rayon's current pool with
//! the same results as one thread.

use rayon::prelude::*;

use crate::buffers::{ClipOutput, SegmentSource, Segments, SegmentsMut, Window};
use crate::error::Error;
use crate::geom::{Class, Rect};
use crate::kernels::{Algorithm, SimdSlab, PARALLEL_MIN};
use crate::real::Real;

/// One non-empty clip of the N × M shape: segment `segment` meets rect `rect` on
/// `[t_entry, t_exit]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit<F> {
    /// Index of the segment in the input batch.
    pub segment: usize,
    /// Index of the rect in the rect list.
    pub rect: usize,
    /// Where the segment enters the rect (`0` iff its start is inside).
    pub t_entry: F,
    /// Where it leaves (`1` iff its end is inside).
    pub t_exit: F,
    /// How it meets the rect: never `Outside` or `Invalid` in a hit list.
    pub class: Class,
}

/// Segments per block of the N × M and in-place shapes: small enough that a block's inputs and
/// outputs stay in L1/L2 while every rect is tried, large enough to fill the vectors.
const BLOCK: usize = 2048;

impl Algorithm {
    /// Clips segment `i` by `rects[i]` for every `i` (the pairwise shape).
    ///
    /// `rects` must be as long as the input ([`Error::LengthMismatch`] naming `rects`), and so
    /// must the outputs; nothing is written otherwise. `simd-slab`, `hybrid` and `auto` run the
    /// vector kernel with the rects gathered lane by lane; `auto` splits large batches over
    /// threads.
    pub fn clip_pairwise<F: Real, S: SegmentSource<F> + ?Sized>(
        self,
        rects: &[Rect<F>],
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) -> Result<(), Error> {
        let n = input.len();
        if rects.len() != n {
            return Err(Error::LengthMismatch {
                what: "rects",
                expected: n,
                found: rects.len(),
            });
        }
        out.check_len(n)?;
        match self {
            Algorithm::SimdSlab | Algorithm::Hybrid => SimdSlab::clip_pairwise(rects, input, out),
            Algorithm::Auto => {
                let piece = pieces(n);
                for_pieces(
                    &Window::new(input, 0..n),
                    out.reborrow(),
                    piece,
                    &|w, mut o| {
                        let (start, len) = (w.start(), w.len());
                        SimdSlab::clip_pairwise(&rects[start..start + len], w, &mut o);
                    },
                );
            }
            scalar => {
                for (i, rect) in rects.iter().enumerate() {
                    let seg = input.segment(i);
                    out.put(i, rect, &seg, &scalar.clip_one(rect, &seg));
                }
            }
        }
        Ok(())
    }

    /// Every non-empty clip of every segment by every rect (the N × M shape), as a compact list
    /// ordered by segment index, then rect index.
    ///
    /// Segments are taken in blocks; each block is clipped by each rect with this algorithm's
    /// batch kernel (so `hybrid`'s prefilter skips the rects a block's segments are far from).
    /// `auto` runs `hybrid` when there are several rects (most segments miss most rects) and
    /// spreads the blocks over threads. The order does not depend on the threads.
    pub fn clip_grid<F: Real, S: SegmentSource<F> + ?Sized>(
        self,
        rects: &[Rect<F>],
        input: &S,
    ) -> Vec<Hit<F>> {
        let n = input.len();
        let blocks: Vec<usize> = (0..n).step_by(BLOCK).collect();
        let block_hits = |&start: &usize| -> Vec<Hit<F>> {
            let window = Window::new(input, start..(start + BLOCK).min(n));
            let len = window.len();
            let kernel = match self {
                Algorithm::Auto if rects.len() > 1 => Algorithm::Hybrid,
                a => a,
            };
            let (mut t_entry, mut t_exit, mut class) =
                (vec![F::NAN; len], vec![F::NAN; len], vec![0; len]);
            let mut hits = Vec::new();
            for (k, rect) in rects.iter().enumerate() {
                let mut out = ClipOutput {
                    t_entry: Some(&mut t_entry),
                    t_exit: Some(&mut t_exit),
                    class: Some(&mut class),
                    segments: None,
                };
                kernel
                    .clip(rect, &window, &mut out)
                    .expect("buffers sized to the block");
                for (i, &code) in class.iter().enumerate() {
                    let class = Class::from_code(code).unwrap_or(Class::Invalid);
                    if class.is_hit() {
                        hits.push(Hit {
                            segment: start + i,
                            rect: k,
                            t_entry: t_entry[i],
                            t_exit: t_exit[i],
                            class,
                        });
                    }
                }
            }
            // Found rect by rect; a stable sort by segment keeps the rects in order within each.
            hits.sort_by_key(|h| h.segment);
            hits
        };
        let per_block: Vec<Vec<Hit<F>>> =
            if self == Algorithm::Auto && n * rects.len() >= PARALLEL_MIN {
                blocks.par_iter().map(block_hits).collect()
            } else {
                blocks.iter().map(block_hits).collect()
            };
        per_block.concat()
    }

    /// Clips every segment by `rect` and writes the clipped segment over the input (a NaN row on
    /// a miss), with the class codes into `class` when given.
    ///
    /// The same answers as [`Algorithm::clip`] with a separate segments output: each block of
    /// segments is copied aside, clipped from the copy, and written back.
    pub fn clip_in_place<F: Real>(
        self,
        rect: &Rect<F>,
        segments: &mut SegmentsMut<'_, F>,
        class: Option<&mut [u8]>,
    ) -> Result<(), Error> {
        let n = segments.len();
        if let Some(c) = &class {
            if c.len() != n {
                return Err(Error::LengthMismatch {
                    what: "class",
                    expected: n,
                    found: c.len(),
                });
            }
        }
        let out = ClipOutput {
            class,
            segments: Some(segments.reborrow()),
            ..Default::default()
        };
        let kernel = self;
        let run = |out: ClipOutput<'_, F>| {
            let mut copy = Segments::nan(0);
            let mut rest = out;
            let mut done = 0;
            let total = rest.segments.as_ref().map_or(0, |s| s.len());
            while done < total {
                let len = BLOCK.min(total - done);
                let (mut head, tail) = rest.split_at(len);
                copy.copy_from(head.segments.as_mut().expect("segments output"), len);
                kernel
                    .clip(rect, &copy.as_ref(), &mut head)
                    .expect("buffers sized to the block");
                rest = tail;
                done += len;
            }
        };
        if self == Algorithm::Auto && n >= PARALLEL_MIN && rayon::current_num_threads() > 1 {
            let piece = pieces(n).next_multiple_of(BLOCK);
            split_outputs(out, piece, &run);
        } else {
            run(out);
        }
        Ok(())
    }
}

/// The piece length `auto` splits `n` segments into.
fn pieces(n: usize) -> usize {
    n.div_ceil(4 * rayon::current_num_threads())
        .max(PARALLEL_MIN / 2)
}

/// Runs `f` on pieces of at most `piece` segments of `input` and `out`, in parallel.
fn for_pieces<F: Real, S: SegmentSource<F> + ?Sized>(
    input: &Window<'_, S>,
    out: ClipOutput<'_, F>,
    piece: usize,
    f: &(dyn Fn(&Window<'_, S>, ClipOutput<'_, F>) + Sync),
) {
    if input.len() <= piece {
        return f(input, out);
    }
    let mid = (input.len() / 2).next_multiple_of(64).min(input.len());
    let (in_a, in_b) = input.split_at(mid);
    let (out_a, out_b) = out.split_at(mid);
    rayon::join(
        || for_pieces(&in_a, out_a, piece, f),
        || for_pieces(&in_b, out_b, piece, f),
    );
}

/// Runs `f` on pieces of at most `piece` segments of `out`, in parallel.
fn split_outputs<F: Real>(
    out: ClipOutput<'_, F>,
    piece: usize,
    f: &(dyn Fn(ClipOutput<'_, F>) + Sync),
) {
    let n = out.segments.as_ref().map_or(0, |s| s.len());
    if n <= piece {
        return f(out);
    }
    let mid = (n / 2).next_multiple_of(BLOCK).min(n);
    let (a, b) = out.split_at(mid);
    rayon::join(|| split_outputs(a, piece, f), || split_outputs(b, piece, f));
}
