//! N segments × M arbitrary rects at scale: a [`RectSet`] is built once with a uniform bin grid
//! over the rects (the broad phase), and [`Algorithm::clip_rect_set`] clips each segment by the
//! rects of the bins it passes through only, so the cost grows as N + M + hits instead of N × M.
//!
//! ```text
//! build:  bins ≈ M, each about half the mean rect's size (fewer when the rects are large);
//!         every rect is listed in each bin its closed extent overlaps (bin = floor((x − x0)/w))
//! query:  for each bin row the segment's y-range reaches, the x-range of the segment within
//!         that row (both widened by a margin) gives the bins to visit: a walk along the
//!         segment, not its bounding box, so long diagonal segments stay cheap
//!         candidates = the rect indices listed there, sorted, duplicates dropped
//! clip:   the candidate pairs, gathered, go through the algorithm's own pairwise clip
//!         (`Algorithm::clip_pairwise`); the hits are kept in (segment, rect) order
//! ```
//!
//! The answer is [`Algorithm::clip_grid`]'s, bit for bit and in the same order: every pair that
//! can be a hit is a candidate, and each candidate is clipped by the same kernel code. The bin
//! function is monotone, so a rect is listed in the bin of each of its points; the margin
//! (64 ulps of the float type times the coordinates' magnitude) covers the rounding of the walk
//! and of the bin function, and SPEC §1's grazes, hits a kernel may report a few ulps outside
//! the exact clip. Segments with a NaN or ±∞ coordinate are `Invalid`, never a hit, and are
//! skipped; segments whose differences overflow fall back to their bounding box.
//!
//! The broad phase was chosen by measurement (`benches/rect_set.rs`, docs/guide/rect-sets.md):
//! against an R-tree (`rstar`, bulk-loaded, queried with each segment's bounding box, then the
//! same pairwise clip) on 1M road-like segments × 100K small rects, the query measured about
//! the same (140 K against 162 K segments/s on one thread, within the noise of that run) and
//! the R-tree took 8× longer to build (106 ms against 14 ms). The bins won on what is left: no
//! run-time dependency, and a walk along the segment where an R-tree query takes its bounding
//! box (a long diagonal segment's box holds far more rects than the segment meets). A rect
//! much larger than the others is listed in every bin it covers, which costs memory, not
//! correctness.

use rayon::prelude::*;

use crate::buffers::{ClipOutput, SegmentSource, Segments};
use crate::cell_lists::{cell_of, CellLists};
use crate::error::Error;
use crate::geom::{Class, Rect, Segment};
use crate::kernels::Algorithm;
use crate::real::Real;
use crate::shapes::Hit;

/// Segments per block: a block's candidate pairs are gathered and clipped together, and blocks
/// are what threads share out.
const BLOCK: usize = 4096;

/// A bin is about this many times the mean rect's width and height (docs/guide/rect-sets.md).
/// Measured (`cargo bench --bench rect_set`, 1M road-like segments × 100K rects,
/// one thread, three runs, K segments/s): 0.25 → 1,144; **0.5 → 1,241, 1,130, 1,129**; 1 →
/// 890, 856, 910; 2 → 569, 456, 377. With the one-pass kernel the pairs' clip got cheaper,
/// and finer bins (fewer candidates per segment) pay.
const BIN_SCALE: f64 = 0.5;

/// The margin of the walk, in ulps of the float type times the coordinates' magnitude: covers
/// SPEC §1's grazes (a few ulps of `t` times the segment's length) and the rounding of the bin
/// function and of the walk (a few ulps of `f64` times the magnitudes).
const MARGIN_ULPS: f64 = 64.0;

/// A set of rects with its broad phase, built once and queried by
/// [`Algorithm::clip_rect_set`] for any number of segment batches.
#[derive(Clone, Debug)]
pub struct RectSet<F> {
    rects: Vec<Rect<F>>,
    bins: Bins,
}

/// The uniform bin grid over the rects' union: bin `(i, j)` lists, in increasing order, the
/// rects whose closed extent overlaps it.
#[derive(Clone, Debug)]
struct Bins {
    x0: f64,
    y0: f64,
    /// Bin height (the walk's row bands).
    h: f64,
    /// Bins per unit length (`0` when the set has no extent on that axis: one bin).
    inv_w: f64,
    inv_h: f64,
    nx: usize,
    ny: usize,
    /// The largest magnitude of the grid's bounds, for the margin.
    mag: f64,
    /// Bin `b = j * nx + i`'s rects.
    lists: CellLists,
}

impl<F: Real> RectSet<F> {
    /// Builds the broad phase over `rects` (rect `k` of the hit lists is `rects[k]`).
    ///
    /// More than `u32::MAX` rects is an [`Error::InvalidArgument`]; an empty set is fine (it
    /// has no hits).
    pub fn new(rects: Vec<Rect<F>>) -> Result<Self, Error> {
        Self::with_bin_scale(rects, BIN_SCALE)
    }

    /// [`RectSet::new`] with bins about `scale` times the mean rect's width and height (`new`
    /// takes 0.5; fewer bins than rects either way). A tuning knob: the hit lists are the same
    /// for any scale, only the time changes. A `scale` that is not positive and finite is an
    /// [`Error::InvalidArgument`].
    pub fn with_bin_scale(rects: Vec<Rect<F>>, scale: f64) -> Result<Self, Error> {
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "bin scale {scale}: expected a positive finite number"
            )));
        }
        if u32::try_from(rects.len()).is_err() {
            return Err(Error::InvalidArgument(format!(
                "{} rects in one set; at most {} are supported",
                rects.len(),
                u32::MAX
            )));
        }
        let bins = Bins::build(&rects, scale);
        Ok(RectSet { rects, bins })
    }

    /// The rects, in the order the hit lists number them.
    pub fn rects(&self) -> &[Rect<F>] {
        &self.rects
    }

    /// How many rects.
    pub fn len(&self) -> usize {
        self.rects.len()
    }

    /// Whether the set has no rects.
    pub fn is_empty(&self) -> bool {
        self.rects.is_empty()
    }

    /// The broad phase's grid, `(nx, ny)` bins (for reports and tuning).
    pub fn bins(&self) -> (usize, usize) {
        (self.bins.nx, self.bins.ny)
    }
}

/// `lo, hi` of the closed rect on each axis, as `f64` (exact for both float types).
fn bounds<F: Real>(r: &Rect<F>) -> [f64; 4] {
    [
        r.xmin().to_f64(),
        r.ymin().to_f64(),
        r.xmax().to_f64(),
        r.ymax().to_f64(),
    ]
}

impl Bins {
    fn build<F: Real>(rects: &[Rect<F>], scale: f64) -> Bins {
        let m = rects.len();
        let mut ext = [f64::INFINITY, f64::INFINITY, -f64::INFINITY, -f64::INFINITY];
        let (mut sum_w, mut sum_h) = (0.0, 0.0);
        for r in rects {
            let b = bounds(r);
            ext = [
                ext[0].min(b[0]),
                ext[1].min(b[1]),
                ext[2].max(b[2]),
                ext[3].max(b[3]),
            ];
            sum_w += b[2] - b[0];
            sum_h += b[3] - b[1];
        }
        if m == 0 {
            ext = [0.0; 4];
        }
        // Bounds are finite, but their difference can overflow: halve before subtracting.
        let (w, h) = (
            (ext[2] * 0.5 - ext[0] * 0.5) * 2.0,
            (ext[3] * 0.5 - ext[1] * 0.5) * 2.0,
        );
        let mf = m.max(1) as f64;
        let aspect = if w > 0.0 && h > 0.0 { w / h } else { 1.0 };
        let axis = |extent: f64, mean: f64, by_count: f64| -> usize {
            if extent <= 0.0 || !extent.is_finite() {
                return 1;
            }
            let by_size = if mean > 0.0 {
                extent / (scale * mean)
            } else {
                f64::INFINITY
            };
            by_size.min(by_count).ceil().clamp(1.0, mf) as usize
        };
        let nx = axis(
            w,
            sum_w / mf,
            if h > 0.0 { (mf * aspect).sqrt() } else { mf },
        );
        let ny = axis(
            h,
            sum_h / mf,
            if w > 0.0 { (mf / aspect).sqrt() } else { mf },
        );
        let step = |extent: f64, n: usize| {
            if n > 1 {
                (extent / n as f64, n as f64 / extent)
            } else {
                (extent, 0.0)
            }
        };
        let ((_, inv_w), (bh, inv_h)) = (step(w, nx), step(h, ny));
        let mut bins = Bins {
            x0: ext[0],
            y0: ext[1],
            h: bh,
            inv_w,
            inv_h,
            nx,
            ny,
            mag: ext.iter().fold(0.0f64, |a, v| a.max(v.abs())),
            lists: CellLists::default(),
        };
        let ranges: Vec<[usize; 4]> = rects
            .iter()
            .map(|r| {
                let b = bounds(r);
                [
                    bins.col(b[0]),
                    bins.row(b[1]),
                    bins.col(b[2]),
                    bins.row(b[3]),
                ]
            })
            .collect();
        // k < u32::MAX, checked in `RectSet::new`.
        bins.lists = CellLists::build(&ranges, nx, ny);
        bins
    }

    #[inline(always)]
    fn col(&self, x: f64) -> usize {
        cell_of(x, self.x0, self.inv_w, self.nx)
    }

    #[inline(always)]
    fn row(&self, y: f64) -> usize {
        cell_of(y, self.y0, self.inv_h, self.ny)
    }

    /// Appends the rects of every bin `seg` may touch (see the module header) to `out`, sorted
    /// and without duplicates. `eps` is the segment float type's machine epsilon.
    fn candidates<F: Real>(&self, seg: &Segment<F>, eps: f64, out: &mut Vec<u32>) {
        out.clear();
        if self.lists.is_empty() || !seg.is_finite() {
            return; // no rects, or an `Invalid` segment: never a hit
        }
        let [x0, y0, x1, y1] = [seg.x0, seg.y0, seg.x1, seg.y1].map(|v| v.to_f64());
        let (dx, dy) = (x1 - x0, y1 - y0);
        let coords = x0.abs().max(y0.abs()).max(x1.abs()).max(y1.abs());
        let margin = MARGIN_ULPS * eps * (coords + dx.abs() + dy.abs() + self.mag);
        let (xlo, xhi) = (x0.min(x1) - margin, x0.max(x1) + margin);
        let (ylo, yhi) = (y0.min(y1) - margin, y0.max(y1) + margin);
        // The walk needs finite differences; otherwise (or for a horizontal segment) each row
        // gets the bounding box's columns.
        let walk = dx.is_finite() && dy.is_finite() && dy != 0.0;
        let (j0, j1) = (self.row(ylo), self.row(yhi));
        let mut bins_seen = 0;
        for j in j0..=j1 {
            let (c0, c1) = if walk {
                // Row j's band, widened by the margin; the outer rows reach to ±∞ (the bin
                // function clamps).
                let band_lo = if j == 0 {
                    f64::NEG_INFINITY
                } else {
                    self.y0 + j as f64 * self.h - margin
                };
                let band_hi = if j + 1 == self.ny {
                    f64::INFINITY
                } else {
                    self.y0 + (j + 1) as f64 * self.h + margin
                };
                let (ya, yb) = (band_lo.max(ylo), band_hi.min(yhi));
                if ya > yb {
                    continue;
                }
                let x_at = |y: f64| x0 + ((y - y0) / dy).clamp(0.0, 1.0) * dx;
                let (xa, xb) = (x_at(ya), x_at(yb));
                (self.col(xa.min(xb) - margin), self.col(xa.max(xb) + margin))
            } else {
                (self.col(xlo), self.col(xhi))
            };
            for i in c0..=c1 {
                let b = j * self.nx + i;
                out.extend_from_slice(self.lists.cell(b));
                bins_seen += 1;
            }
        }
        // One bin's list is already sorted and unique.
        if bins_seen > 1 {
            out.sort_unstable();
            out.dedup();
        }
    }
}

impl Algorithm {
    /// Every non-empty clip of every segment by every rect of `set`: the same list as
    /// [`Algorithm::clip_grid`] on `set.rects()`, bit for bit and in the same order (segment
    /// index, then rect index), at a cost that grows as N + M + hits instead of N × M.
    ///
    /// Each segment's candidate rects come from the set's bins (see [`RectSet`]); the candidate
    /// pairs go through this algorithm's pairwise clip (`simd-slab` for `hybrid` and `auto`,
    /// whose answers are `simd-slab`'s). `auto` spreads blocks of segments over rayon's current
    /// pool; the list does not depend on the number of threads.
    pub fn clip_rect_set<F: Real, S: SegmentSource<F> + ?Sized>(
        self,
        set: &RectSet<F>,
        input: &S,
    ) -> Vec<Hit<F>> {
        let n = input.len();
        let eps = 2.0 * (1.0 - F::ONE_BELOW.to_f64());
        let kernel = match self {
            Algorithm::Auto | Algorithm::Hybrid => Algorithm::SimdSlab,
            a => a,
        };
        let block_hits = |start: usize| -> Vec<Hit<F>> {
            let end = (start + BLOCK).min(n);
            let mut cand = Vec::new();
            let (mut segs, mut rects, mut pairs) = (Segments::new(), Vec::new(), Vec::new());
            for i in start..end {
                let seg = input.segment(i);
                set.bins.candidates(&seg, eps, &mut cand);
                for &k in &cand {
                    segs.push(seg);
                    rects.push(set.rects[k as usize]);
                    pairs.push((i, k as usize));
                }
            }
            let len = pairs.len();
            let (mut t_entry, mut t_exit, mut class) =
                (vec![F::NAN; len], vec![F::NAN; len], vec![0; len]);
            let mut out = ClipOutput {
                t_entry: Some(&mut t_entry),
                t_exit: Some(&mut t_exit),
                class: Some(&mut class),
                segments: None,
            };
            kernel
                .clip_pairwise(&rects, &segs, &mut out)
                .expect("buffers sized to the candidate pairs");
            pairs
                .iter()
                .enumerate()
                .filter_map(|(p, &(segment, rect))| {
                    let class = Class::from_code(class[p]).unwrap_or(Class::Invalid);
                    class.is_hit().then(|| Hit {
                        segment,
                        rect,
                        t_entry: t_entry[p],
                        t_exit: t_exit[p],
                        class,
                    })
                })
                .collect()
        };
        let starts: Vec<usize> = (0..n).step_by(BLOCK).collect();
        let per_block: Vec<Vec<Hit<F>>> =
            if self == Algorithm::Auto && starts.len() > 1 && crate::threads::available() > 1 {
                starts.into_par_iter().map(block_hits).collect()
            } else {
                starts.into_iter().map(block_hits).collect()
            };
        per_block.concat()
    }
}
