//! Batch shapes beyond one rect for N segments (SPEC §3): N rects for N segments (pairwise),
//! N segments × M rects as a compact hit list, and clipping in place.
//!
//! Every shape runs the same kernels as [`Algorithm::clip`], so its answers are that
//! algorithm's, bit for bit, and `Auto` spreads large batches over rayon's current pool with
//! the same results as one thread.

use core::ops::Range;

use rayon::prelude::*;

use crate::buffers::{ClipOutput, SegmentSource, Segments, SegmentsMut, Window};
use crate::error::Error;
use crate::geom::{Class, Rect};
use crate::kernels::{auto, Algorithm, SimdSlab, PARALLEL_MIN};
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
            Algorithm::Auto => auto::in_pieces(n, out.reborrow(), &|range, mut out| {
                let input = Window::new(input, range.clone());
                SimdSlab::clip_pairwise(&rects[range], &input, &mut out);
                Ok(())
            })?,
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
        let per_block: Vec<Vec<Hit<F>>> = if self == Algorithm::Auto
            && n * rects.len() >= PARALLEL_MIN
            && crate::threads::available() > 1
        {
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
        // Each block of a piece is copied aside and clipped from the copy into the original.
        let run = |_: Range<usize>, mut rest: ClipOutput<'_, F>| {
            let mut copy = Segments::nan(0);
            while let Some(len) = rest.segments.as_ref().map(|s| s.len().min(BLOCK)) {
                if len == 0 {
                    break;
                }
                let (mut head, tail) = rest.split_at(len);
                copy.copy_from(head.segments.as_mut().expect("segments output"), len);
                self.clip(rect, &copy.as_ref(), &mut head)?;
                rest = tail;
            }
            Ok(())
        };
        if self == Algorithm::Auto {
            auto::in_pieces(n, out, &run)
        } else {
            run(0..n, out)
        }
    }
}
