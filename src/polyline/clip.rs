//! Polylines clipped to one rect, or to one rect per polyline (per geometry for
//! MultiLineStrings).
//!
//! ```text
//! for each block of polylines (rayon), for each polyline:
//!     every vertex in the closed rect      → the whole polyline is one part (copied)
//!     every vertex beyond one edge         → nothing (§1: both ends beyond one edge miss)
//!     else queue it; consecutive queued polylines form a span of vertices whose segments
//!     (those between polylines too, ignored) go through the vector slab in one call,
//!     then each polyline's t_entry / t_exit are joined into parts (join.rs); cut vertices
//!     are Clip::segment's clipped endpoints
//! ```

use super::join::{Joiner, Tag};
use super::{Coords, Layout, Line, MultiPolylines, PartOptions, Parts, Polylines};
use crate::buffers::{ClipOutput, SegmentsRef};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::kernels::{ClipKernel, SimdSlab, SlabScalar};
use crate::real::{Lane, Real};
use crate::simd::Load;

/// Vertices per call of the vector kernel at most (the span's buffers stay in L1/L2).
const SPAN: usize = 2048;

/// The rect of each item.
#[derive(Clone, Copy)]
pub(crate) enum RectsFor<'r, F> {
    /// One rect for every polyline.
    One(Rect<F>),
    /// `rects[item]`.
    Each(&'r [Rect<F>]),
}

impl<F: Real> RectsFor<'_, F> {
    #[inline(always)]
    fn get(&self, item: usize) -> &Rect<F> {
        match self {
            RectsFor::One(r) => r,
            RectsFor::Each(r) => &r[item],
        }
    }
}

impl<'a, F: Real> Polylines<'a, F> {
    /// Clips every polyline to `rect` (SPEC §7), replacing what `out` held: the parts, and the
    /// single points of contact when `options.points` (see the [module docs](super)).
    pub fn clip(&self, rect: &Rect<F>, options: &PartOptions, out: &mut Parts<F>) {
        clip_layout(&self.layout(), RectsFor::One(*rect), options, out);
    }

    /// Clips polyline `j` to `rects[j]`, for every `j`. `rects` must hold one rect per
    /// polyline ([`Error::LengthMismatch`] naming `rects`, before any work).
    pub fn clip_each(
        &self,
        rects: &[Rect<F>],
        options: &PartOptions,
        out: &mut Parts<F>,
    ) -> Result<(), Error> {
        check_rects(rects, self.len())?;
        clip_layout(&self.layout(), RectsFor::Each(rects), options, out);
        Ok(())
    }
}

impl<'a, F: Real> MultiPolylines<'a, F> {
    /// Clips every polyline of every geometry to `rect`; parts carry both indices.
    pub fn clip(&self, rect: &Rect<F>, options: &PartOptions, out: &mut Parts<F>) {
        clip_layout(&self.layout(), RectsFor::One(*rect), options, out);
    }

    /// Clips the polylines of geometry `g` to `rects[g]`, for every `g`: one rect per
    /// *geometry* ([`Error::LengthMismatch`] naming `rects` otherwise).
    pub fn clip_each(
        &self,
        rects: &[Rect<F>],
        options: &PartOptions,
        out: &mut Parts<F>,
    ) -> Result<(), Error> {
        check_rects(rects, self.len())?;
        clip_layout(&self.layout(), RectsFor::Each(rects), options, out);
        Ok(())
    }
}

fn check_rects<F>(rects: &[Rect<F>], n: usize) -> Result<(), Error> {
    if rects.len() == n {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what: "rects",
            expected: n,
            found: rects.len(),
        })
    }
}

fn clip_layout<F: Real>(
    layout: &Layout<'_, '_, F>,
    rects: RectsFor<'_, F>,
    options: &PartOptions,
    out: &mut Parts<F>,
) {
    layout.run(out, |block, out| {
        let mut s = Spans::new(layout, rects, *options);
        layout.for_each_line(block, |line| s.line(line, out));
        s.flush(out);
    });
}

/// Where a polyline's vertices lie against its rect.
#[derive(PartialEq, Eq)]
enum Where {
    /// Every vertex in the closed rect.
    Inside,
    /// Every vertex beyond one and the same edge: every segment misses.
    Outside,
    /// Neither: the kernel decides, segment by segment.
    Mixed,
}

fn classify<F: Real>(coords: &Coords<'_, F>, v: core::ops::Range<usize>, r: &Rect<F>) -> Where {
    let b = match coords {
        Coords::Interleaved(c) => Bounds::of_interleaved(&c[2 * v.start..2 * v.end]),
        Coords::Separated { x, y } => Bounds::of_columns(&x[v.clone()], &y[v]),
    };
    if b.finite && b.x.0 >= r.xmin() && b.x.1 <= r.xmax() && b.y.0 >= r.ymin() && b.y.1 <= r.ymax()
    {
        Where::Inside
    } else if b.x.1 < r.xmin() || b.x.0 > r.xmax() || b.y.1 < r.ymin() || b.y.0 > r.ymax() {
        // Every vertex beyond one edge (a NaN vertex aside: its segments have no piece, and
        // the others miss).
        Where::Outside
    } else {
        Where::Mixed
    }
}

/// The bounding box of some vertices, NaN vertices left out, and whether every coordinate is
/// finite. One pass on the baseline level's vectors (SSE2 holds a scan over memory at the speed
/// of the wider levels, and needs no dispatch): lane `k` keeps the minimum and maximum of values
/// `k`, `k + LANES`, … and a running `Σ v·0` (NaN as soon as one `v` is NaN or ±∞).
struct Bounds<F> {
    x: (F, F),
    y: (F, F),
    finite: bool,
}

/// The vectors of the scan.
type ScanLanes<F> = <F as Real>::Simd<crate::simd::isa::Baseline>;
/// The widest lane count of any level (16 `f32` with AVX-512).
const MAX_LANES: usize = 16;

impl<F: Real> Bounds<F> {
    /// `xy` interleaved: even positions are `x`, odd ones `y` (the lane count is even, so each
    /// lane holds one of them).
    fn of_interleaved(xy: &[F]) -> Self {
        let (lo, hi, zero) = scan(xy);
        let mut b = Bounds::empty(zero);
        for k in 0..<ScanLanes<F> as Lane>::WIDTH {
            let (l, h) = if k % 2 == 0 {
                (&mut b.x.0, &mut b.x.1)
            } else {
                (&mut b.y.0, &mut b.y.1)
            };
            (*l, *h) = (min(*l, lo[k]), max(*h, hi[k]));
        }
        b
    }

    fn of_columns(x: &[F], y: &[F]) -> Self {
        let (xl, xh, zx) = scan(x);
        let (yl, yh, zy) = scan(y);
        let mut b = Bounds::empty(zx + zy);
        for k in 0..<ScanLanes<F> as Lane>::WIDTH {
            (b.x.0, b.x.1) = (min(b.x.0, xl[k]), max(b.x.1, xh[k]));
            (b.y.0, b.y.1) = (min(b.y.0, yl[k]), max(b.y.1, yh[k]));
        }
        b
    }

    fn empty(zero: F) -> Self {
        let (inf, ninf) = (F::INFINITY, -F::INFINITY);
        Bounds {
            x: (inf, ninf),
            y: (inf, ninf),
            finite: zero == F::ZERO,
        }
    }
}

/// Per lane `k` of `v` (values `k`, `k + LANES`, …): the minimum, the maximum, and `Σ v·0`
/// over all lanes. The tail goes into the lanes it would have had.
#[inline(always)]
fn scan<F: Real>(v: &[F]) -> ([F; MAX_LANES], [F; MAX_LANES], F) {
    let n = <ScanLanes<F> as Lane>::WIDTH;
    let zero = ScanLanes::<F>::splat(F::ZERO);
    let (mut lo, mut hi, mut z) = (
        ScanLanes::<F>::splat(F::INFINITY),
        ScanLanes::<F>::splat(-F::INFINITY),
        zero,
    );
    let chunks = v.chunks_exact(n);
    let tail = chunks.remainder();
    for c in chunks {
        let x = ScanLanes::<F>::load(c);
        // `x` first: a NaN `x` leaves the bound (`min_any`'s operand order).
        (lo, hi) = (x.min_any(lo), x.max_any(hi));
        z = z + x * zero;
    }
    let (mut l, mut h, mut zs) = (
        [F::ZERO; MAX_LANES],
        [F::ZERO; MAX_LANES],
        [F::ZERO; MAX_LANES],
    );
    lo.write(&mut l);
    hi.write(&mut h);
    z.write(&mut zs);
    let mut zsum = zs[..n].iter().fold(F::ZERO, |a, &b| a + b);
    for (k, &t) in tail.iter().enumerate() {
        (l[k], h[k]) = (min(l[k], t), max(h[k], t));
        zsum = zsum + t * F::ZERO;
    }
    (l, h, zsum)
}

/// `a` unless `b < a` (a NaN `b` leaves `a`).
#[inline(always)]
fn min<F: Real>(a: F, b: F) -> F {
    if b < a {
        b
    } else {
        a
    }
}

/// `a` unless `b > a` (a NaN `b` leaves `a`).
#[inline(always)]
fn max<F: Real>(a: F, b: F) -> F {
    if b > a {
        b
    } else {
        a
    }
}

/// A block's worker: the queued polylines of the current span and the kernel's buffers.
struct Spans<'l, 'a, 'r, F: Real> {
    layout: &'l Layout<'l, 'a, F>,
    rects: RectsFor<'r, F>,
    options: PartOptions,
    queued: Vec<Line>,
    x: Vec<F>,
    y: Vec<F>,
    t_entry: Vec<F>,
    t_exit: Vec<F>,
}

impl<'l, 'a, 'r, F: Real> Spans<'l, 'a, 'r, F> {
    fn new(layout: &'l Layout<'l, 'a, F>, rects: RectsFor<'r, F>, options: PartOptions) -> Self {
        Spans {
            layout,
            rects,
            options,
            queued: Vec::new(),
            x: Vec::new(),
            y: Vec::new(),
            t_entry: Vec::new(),
            t_exit: Vec::new(),
        }
    }

    fn tag(&self, line: &Line) -> Tag {
        Tag {
            polyline: line.index,
            geometry: self.layout.geometry.map(|_| line.item),
            cell: None,
        }
    }

    /// Takes polyline `line`: at once when it is inside or outside, else into the span.
    fn line(&mut self, line: Line, out: &mut Parts<F>) {
        if line.vertices.is_empty() {
            return;
        }
        let coords = self.layout.lines.coords();
        let rect = *self.rects.get(line.item);
        match classify(&coords, line.vertices.clone(), &rect) {
            Where::Outside => {}
            Where::Inside => {
                self.flush(out);
                let mut j = Joiner::new(self.tag(&line), self.options.points);
                // Every segment is `Inside`, [0, 1]: the run is the whole polyline.
                j.inside(out, line.vertices.start..line.vertices.end - 1, &coords);
                j.close(out);
            }
            Where::Mixed => {
                let joins = self.queued.last().is_some_and(|q| {
                    q.vertices.end == line.vertices.start && matches!(self.rects, RectsFor::One(_))
                });
                if !joins {
                    self.flush(out);
                }
                self.queued.push(line);
                let first = self.queued[0].vertices.start;
                if self.queued[self.queued.len() - 1].vertices.end - first >= SPAN {
                    self.flush(out);
                }
            }
        }
    }

    /// Clips the queued span's segments with the vector kernel and joins each queued
    /// polyline's pieces.
    fn flush(&mut self, out: &mut Parts<F>) {
        let (Some(first), Some(last)) = (self.queued.first(), self.queued.last()) else {
            return;
        };
        let (a, b) = (first.vertices.start, last.vertices.end);
        let rect = *self.rects.get(first.item);
        let coords = self.layout.lines.coords();
        let n = b - a - 1;
        let segs = match coords {
            Coords::Separated { x, y } => {
                SegmentsRef::new(&x[a..b - 1], &y[a..b - 1], &x[a + 1..b], &y[a + 1..b])
            }
            Coords::Interleaved(c) => {
                // Indexed stores into sized columns (the compiler vectorises this; pushes it
                // did not).
                self.x.resize(b - a, F::ZERO);
                self.y.resize(b - a, F::ZERO);
                for ((p, x), y) in c[2 * a..2 * b]
                    .chunks_exact(2)
                    .zip(&mut self.x)
                    .zip(&mut self.y)
                {
                    (*x, *y) = (p[0], p[1]);
                }
                let (x, y) = (&self.x[..b - a], &self.y[..b - a]);
                SegmentsRef::new(&x[..n], &y[..n], &x[1..], &y[1..])
            }
        }
        .expect("equal lengths");
        self.t_entry.resize(n, F::ZERO);
        self.t_exit.resize(n, F::ZERO);
        let mut o = ClipOutput {
            t_entry: Some(&mut self.t_entry),
            t_exit: Some(&mut self.t_exit),
            ..Default::default()
        };
        let done = SimdSlab::clip(&rect, &segs, &mut o);
        debug_assert!(done.is_ok(), "outputs sized to the span");
        for line in core::mem::take(&mut self.queued) {
            let mut j = Joiner::new(self.tag(&line), self.options.points);
            let end = line.vertices.end - 1;
            let mut i = line.vertices.start;
            while i < end {
                let (te, tx) = (self.t_entry[i - a], self.t_exit[i - a]);
                i += 1;
                if te.to_f64().is_nan() {
                    continue; // a miss, or a non-finite segment: no piece
                }
                let inside =
                    |k: usize| self.t_entry[k - a] == F::ZERO && self.t_exit[k - a] == F::ONE;
                if inside(i - 1) {
                    // A run of `Inside` segments, copied at once.
                    let from = i - 1;
                    while i < end && inside(i) {
                        i += 1;
                    }
                    j.inside(out, from..i, &coords);
                    continue;
                }
                let i = i - 1;
                let seg = coords.segment(i);
                let mut cut: Option<Segment<F>> = None;
                j.piece(out, i, te, tx, |end| match (end, te, tx) {
                    (false, t, _) if t == F::ZERO => (seg.x0, seg.y0),
                    (true, _, t) if t == F::ONE => (seg.x1, seg.y1),
                    _ => {
                        let c = cut.get_or_insert_with(|| {
                            let c = SlabScalar::clip_one(&rect, &seg);
                            debug_assert!(
                                c.t_entry.to_bits_u64() == te.to_bits_u64()
                                    && c.t_exit.to_bits_u64() == tx.to_bits_u64(),
                                "the vector and the scalar slab agree"
                            );
                            c.segment(&rect, &seg)
                        });
                        if end {
                            (c.x1, c.y1)
                        } else {
                            (c.x0, c.y0)
                        }
                    }
                });
            }
            j.close(out);
        }
    }
}
