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
use crate::real::Real;

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
    let (mut inside, mut left, mut right, mut below, mut above) = (true, true, true, true, true);
    let mut test = |x: F, y: F| {
        inside &= r.contains(x, y);
        left &= x < r.xmin();
        right &= x > r.xmax();
        below &= y < r.ymin();
        above &= y > r.ymax();
    };
    match coords {
        Coords::Interleaved(c) => c[2 * v.start..2 * v.end]
            .chunks_exact(2)
            .for_each(|p| test(p[0], p[1])),
        Coords::Separated { x, y } => x[v.clone()]
            .iter()
            .zip(&y[v])
            .for_each(|(&x, &y)| test(x, y)),
    }
    if inside {
        Where::Inside
    } else if left || right || below || above {
        Where::Outside
    } else {
        Where::Mixed
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
                for i in line.vertices.start..line.vertices.end - 1 {
                    j.piece(out, i, F::ZERO, F::ONE, |end| {
                        let (x, y) = coords.vertex(if end { i + 1 } else { i });
                        (x, y)
                    });
                }
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
                self.x.clear();
                self.y.clear();
                for p in c[2 * a..2 * b].chunks_exact(2) {
                    self.x.push(p[0]);
                    self.y.push(p[1]);
                }
                let (x, y) = (&self.x, &self.y);
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
            for i in line.vertices.start..line.vertices.end - 1 {
                let (te, tx) = (self.t_entry[i - a], self.t_exit[i - a]);
                if te.to_f64().is_nan() {
                    continue; // a miss, or a non-finite segment: no piece
                }
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
