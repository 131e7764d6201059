//! `hybrid`: an outcode prefilter settles the trivial segments; the rest are packed into full
//! vectors for `simd-slab`.
//!
//! ```text
//! for each chunk of LANES segments:
//!     both ends in the rect                 → inside:  t = [0, 1], the segment unchanged
//!     both ends beyond the same edge        → outside: NaN   (finite coordinates only)
//!     (the prefilter is a few vector compares; its answers are written for the whole chunk)
//!     the other lanes' indices join a queue; each full vector of them is gathered, run through
//!     simd-slab's code, and scattered over the prefilter's placeholders
//! the queue's last < LANES segments and the batch's tail: the scalar lane of the same code
//! ```
//!
//! It pays when most segments are trivial (data mostly inside or mostly far outside a rect, a
//! tile grid where each tile sees few of the segments), and costs a little on data that crosses
//! the rect's edges everywhere, where the queue holds nearly every segment.
//!
//! The bits are `simd-slab`'s: the contract (`contract::finish`) already reports a miss for two
//! ends beyond the same edge, and `[0, 1]` for two ends inside, so the prefilter only takes a
//! shortcut to the same answer.

use super::contract::{finish, Finished, RectLanes};
use super::simd_slab::{load_chunk, store_chunk, MAX_LANES};
use super::slab::slab_raw;
use super::{Clip, ClipKernel, SlabScalar};
use crate::buffers::{ClipOutput, SegmentSource, SegmentsMut};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};

/// The outcode prefilter in front of the SIMD slab kernel.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hybrid;

/// Which lanes of a chunk the prefilter settles: `(inside, trivial)`, and which it cannot
/// (`!trivial`: some end outside but not both beyond one edge, or a NaN).
#[inline(always)]
pub(crate) fn prefilter<L: Lane>(r: &RectLanes<L>, s: &Segment<L>) -> (L::Mask, L::Mask, L::Mask) {
    let inside = r.contains(s.x0, s.y0) & r.contains(s.x1, s.y1);
    let left = s.x0.lt(r.xmin) & s.x1.lt(r.xmin);
    let right = r.xmax.lt(s.x0) & r.xmax.lt(s.x1);
    let below = s.y0.lt(r.ymin) & s.y1.lt(r.ymin);
    let above = r.ymax.lt(s.y0) & r.ymax.lt(s.y1);
    // NaN fails every comparison, but ±∞ beyond an edge does not: a non-finite segment is
    // `Invalid`, never trivially outside.
    let finite = s.x0.finite() & s.y0.finite() & s.x1.finite() & s.y1.finite();
    let trivial = inside | ((left | right | below | above) & finite);
    (inside, trivial, !trivial)
}

/// Segments the prefilter left, waiting for a full vector.
struct Queue {
    idx: [usize; 2 * MAX_LANES],
    len: usize,
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
        let n = input.len();
        out.check_len(n)?;
        let r = RectLanes::<F::Simd>::splat(rect);
        let (zero, one, nan) = (
            F::Simd::splat(F::ZERO),
            F::Simd::splat(F::ONE),
            F::Simd::splat(F::NAN),
        );
        let mut queue = Queue {
            idx: [0; 2 * MAX_LANES],
            len: 0,
        };
        let full = n - n % F::LANES;
        for i in (0..full).step_by(F::LANES) {
            let s = load_chunk(input, i);
            let (inside, _, open) = prefilter(&r, &s);
            // The trivial answers for every lane; the queued lanes are overwritten below.
            let trivial = Finished {
                valid: zero.eq_(zero),
                t_entry: F::Simd::select(inside, zero, nan),
                t_exit: F::Simd::select(inside, one, nan),
                entry_y: zero.lt(zero),
                exit_y: zero.lt(zero),
            };
            store_chunk(out, i, &r, &s, &trivial);
            if F::Simd::any(open) {
                let mut flags = [F::ZERO; MAX_LANES];
                F::store(F::Simd::select(open, one, zero), &mut flags);
                for (l, flag) in flags[..F::LANES].iter().enumerate() {
                    if *flag != F::ZERO {
                        queue.idx[queue.len] = i + l;
                        queue.len += 1;
                    }
                }
                if queue.len >= F::LANES {
                    clip_queued(&r, input, out, &queue.idx[..F::LANES]);
                    queue.idx.copy_within(F::LANES..queue.len, 0);
                    queue.len -= F::LANES;
                }
            }
        }
        let rest = queue.idx[..queue.len].iter().copied().chain(full..n);
        for i in rest {
            let seg = input.segment(i);
            out.put(i, rect, &seg, &SlabScalar::clip_one(rect, &seg));
        }
        Ok(())
    }
}

/// Gathers the segments at `idx` (one full vector), clips them, and scatters the answers.
#[inline(always)]
fn clip_queued<F: Real, S: SegmentSource<F> + ?Sized>(
    r: &RectLanes<F::Simd>,
    input: &S,
    out: &mut ClipOutput<'_, F>,
    idx: &[usize],
) {
    let mut g = [[F::ZERO; MAX_LANES]; 4];
    for (l, &i) in idx.iter().enumerate() {
        let s = input.segment(i);
        for (column, v) in g.iter_mut().zip([s.x0, s.y0, s.x1, s.y1]) {
            column[l] = v;
        }
    }
    let s = Segment {
        x0: F::load(&g[0]),
        y0: F::load(&g[1]),
        x1: F::load(&g[2]),
        y1: F::load(&g[3]),
    };
    let f = finish(r, &s, slab_raw(r, &s));

    // The chunk's answers in small buffers shaped like `out`, then lane by lane to `idx`.
    let (mut te, mut tx, mut cl) = ([F::NAN; MAX_LANES], [F::NAN; MAX_LANES], [0u8; MAX_LANES]);
    let mut sg = [[F::NAN; MAX_LANES]; 4];
    let [sx0, sy0, sx1, sy1] = &mut sg;
    let mut staged = ClipOutput {
        t_entry: out.t_entry.is_some().then_some(&mut te[..]),
        t_exit: out.t_exit.is_some().then_some(&mut tx[..]),
        class: out.class.is_some().then_some(&mut cl[..]),
        segments: out
            .segments
            .is_some()
            .then(|| SegmentsMut::new(sx0, sy0, sx1, sy1).expect("equal lengths")),
    };
    store_chunk(&mut staged, 0, r, &s, &f);
    for (l, &i) in idx.iter().enumerate() {
        if let Some(t) = out.t_entry.as_deref_mut() {
            t[i] = te[l];
        }
        if let Some(t) = out.t_exit.as_deref_mut() {
            t[i] = tx[l];
        }
        if let Some(k) = out.class.as_deref_mut() {
            k[i] = cl[l];
        }
        if let Some(segs) = out.segments.as_mut() {
            segs.set(i, Segment::new(sg[0][l], sg[1][l], sg[2][l], sg[3][l]));
        }
    }
}
