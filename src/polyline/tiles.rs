//! Polylines cut into the cells of a regular [`Grid`] (SPEC §7, tiles): per (cell, polyline),
//! the parts of the runs of pieces that cell gets, joined by the rule of the
//! [module docs](super).
//!
//! # Cells and pieces
//!
//! * **No buffer** (the default): the pieces are the grid's ([`Grid::pieces_into`]), bit for
//!   bit the §1 clip of each segment by each closed cell, with the grid's shared boundary
//!   lists. [`Lines::HalfOpen`] is the grid's rule: a piece lying on a shared line goes to one
//!   cell only, so a polyline along a line can have its part split in the cell beside it.
//! * **A buffer** `b ≥ 0` ([`TileOptions::buffer`]) grows cell `(i, j)` to
//!   `[xs[i] − b, xs[i+1] + b] × [ys[j] − b, ys[j+1] + b]`, each bound one IEEE operation in the
//!   grid's float type (rounded once to nearest; a bound beyond the type's range is its
//!   largest finite value, which holds the same points). The cells are closed and overlap; each
//!   segment is clipped (§1, `slab-scalar`) by every buffered cell its bounding box, widened,
//!   can reach, column by column along its major axis. A buffer with [`Lines::HalfOpen`] is an
//!   error. `b = 0` gives the closed cells through this path.
//!
//! # Watertight cut vertices (no buffer)
//!
//! A cut vertex is [`Grid::piece_segment`]'s point: §1's clipped endpoint against the cell. Two
//! cells meeting at a crossing compute it from the same parameter, but where a segment passes
//! through a grid vertex (entry and exit parameters from both axes at once) each cell clamps
//! the point into itself, and the cell beyond the vertex can land an ulp or two off the vertex.
//! So where consecutive pieces of a segment (of positive length, in neighbouring cells) share
//! their parameter and their points differ, both take the first's point clamped into the
//! second cell: a point of both closed cells (the vertex, or their shared edge), exactly on the
//! lines that cut. Everywhere else the points are §1's, unchanged.
//!
//! # Order
//!
//! Polylines in input order; a polyline's parts by cell index `iy·nx + ix`, then along the
//! polyline. Points of contact likewise, apart. The same at any thread count.

use super::join::{Joiner, Tag};
use super::{Layout, Line, MultiPolylines, Parts, Polylines};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::grid::{Grid, GridOptions, Lines, Piece};
use crate::kernels::{ClipKernel, SlabScalar};
use crate::real::Real;

/// How polylines are cut into cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileOptions<F> {
    /// Closed cells (default) or the grid's half-open rule (no buffer then).
    pub lines: Lines,
    /// Report single points of contact per (cell, polyline) in [`Parts::points`].
    pub points: bool,
    /// Grow every cell by this much on every side (finite, `≥ 0`); `None`: the grid's cells.
    pub buffer: Option<F>,
}

impl<F> Default for TileOptions<F> {
    /// Closed cells, no points of contact, no buffer.
    fn default() -> Self {
        TileOptions {
            lines: Lines::Closed,
            points: false,
            buffer: None,
        }
    }
}

impl<'a, F: Real> Polylines<'a, F> {
    /// Cuts every polyline into the cells of `grid` (see the [module docs](self)), replacing
    /// what `out` held; parts carry their cell in `ix`, `iy`.
    ///
    /// Errors ([`Error::InvalidArgument`]) on a buffer that is negative or not finite, or a
    /// buffer with half-open lines.
    pub fn tiles(
        &self,
        grid: &Grid<F>,
        options: &TileOptions<F>,
        out: &mut Parts<F>,
    ) -> Result<(), Error> {
        tile_layout(&self.layout(), grid, options, out)
    }
}

impl<'a, F: Real> MultiPolylines<'a, F> {
    /// [`Polylines::tiles`] for MultiLineStrings; parts carry the geometry too.
    pub fn tiles(
        &self,
        grid: &Grid<F>,
        options: &TileOptions<F>,
        out: &mut Parts<F>,
    ) -> Result<(), Error> {
        tile_layout(&self.layout(), grid, options, out)
    }
}

/// The buffered cells' bounds per axis: cell `i` spans `lo[i] … hi[i]`.
struct Buffered<F> {
    x: (Vec<F>, Vec<F>),
    y: (Vec<F>, Vec<F>),
}

impl<F: Real> Buffered<F> {
    fn new(grid: &Grid<F>, b: F) -> Self {
        let finite = |v: F| {
            if v.to_f64() > F::LARGEST.to_f64() {
                F::LARGEST
            } else if v.to_f64() < -F::LARGEST.to_f64() {
                -F::LARGEST
            } else {
                v
            }
        };
        let axis = |lines: &[F]| {
            let n = lines.len() - 1;
            (
                (0..n).map(|i| finite(lines[i] - b)).collect(),
                (0..n).map(|i| finite(lines[i + 1] + b)).collect(),
            )
        };
        Buffered {
            x: axis(grid.xs()),
            y: axis(grid.ys()),
        }
    }

    fn cell(&self, ix: usize, iy: usize) -> Option<Rect<F>> {
        Rect::new(self.x.0[ix], self.y.0[iy], self.x.1[ix], self.y.1[iy]).ok()
    }
}

/// The cells of an axis whose buffered interval meets `[lo, hi]` (both bound lists increase).
fn reach<F: Real>((los, his): &(Vec<F>, Vec<F>), lo: f64, hi: f64) -> core::ops::Range<usize> {
    let first = his.partition_point(|h| h.to_f64() < lo);
    let end = los.partition_point(|l| l.to_f64() <= hi);
    first..end.max(first)
}

fn tile_layout<F: Real>(
    layout: &Layout<'_, '_, F>,
    grid: &Grid<F>,
    options: &TileOptions<F>,
    out: &mut Parts<F>,
) -> Result<(), Error> {
    let buffered = match options.buffer {
        None => None,
        Some(b) => {
            if !(b.to_f64() >= 0.0 && b.to_f64().is_finite()) {
                return Err(Error::InvalidArgument(format!(
                    "buffer = {b}: expected a finite value of at least 0"
                )));
            }
            if options.lines == Lines::HalfOpen {
                return Err(Error::InvalidArgument(
                    "a buffer makes cells that overlap, which are closed: half-open lines \
                     apply only without a buffer"
                        .into(),
                ));
            }
            Some(Buffered::new(grid, b))
        }
    };
    layout.run(out, |block, out| {
        let mut w = Work {
            layout,
            grid,
            options,
            buffered: buffered.as_ref(),
            grid_pieces: Vec::new(),
            mine: Vec::new(),
            order: Vec::new(),
            spare: Vec::new(),
        };
        w.block(block, out);
    });
    Ok(())
}

/// A piece of one polyline in one cell, with its clipped endpoints.
#[derive(Clone, Copy, Debug)]
struct TilePiece<F> {
    cell: u64,
    ix: u32,
    iy: u32,
    seg: usize,
    t_entry: F,
    t_exit: F,
    ends: Segment<F>,
}

struct Work<'w, 'l, 'a, F: Real> {
    layout: &'w Layout<'l, 'a, F>,
    grid: &'w Grid<F>,
    options: &'w TileOptions<F>,
    buffered: Option<&'w Buffered<F>>,
    grid_pieces: Vec<Piece<F>>,
    mine: Vec<TilePiece<F>>,
    /// Sort keys of `mine` (cell, then segment) and positions.
    order: Vec<(u64, u32)>,
    /// `mine` in key order.
    spare: Vec<TilePiece<F>>,
}

impl<F: Real> Work<'_, '_, '_, F> {
    fn block(&mut self, block: core::ops::Range<usize>, out: &mut Parts<F>) {
        let lines = self.layout.lines;
        if block.is_empty() {
            return;
        }
        let (a, b) = (
            lines.vertices(block.start).start,
            lines.vertices(block.end - 1).end,
        );
        let mut cursor = 0;
        if self.buffered.is_none() && b > a + 1 {
            let o = GridOptions {
                lines: self.options.lines,
                touches: true,
            };
            // The block's vertices' segments, those between polylines too (skipped below).
            self.grid
                .pieces_into(&lines.vertex_pairs(), a..b - 1, &o, &mut self.grid_pieces);
        }
        self.layout.for_each_line(block, |line| {
            self.mine.clear();
            if line.vertices.len() >= 2 {
                match self.buffered {
                    None => self.grid_pieces_of(&line, &mut cursor),
                    Some(bc) => self.buffered_pieces_of(bc, &line),
                }
            }
            self.join(&line, out);
        });
        self.grid_pieces.clear();
    }

    /// The polyline's pieces from the block's grid pieces (`cursor` walks them in segment
    /// order), with their endpoints, made watertight at shared parameters.
    fn grid_pieces_of(&mut self, line: &Line, cursor: &mut usize) {
        let coords = self.layout.lines.coords();
        let last = line.vertices.end - 1;
        let nx = self.grid.nx() as u64;
        while *cursor < self.grid_pieces.len() && self.grid_pieces[*cursor].segment < last {
            let p = self.grid_pieces[*cursor];
            *cursor += 1;
            if p.segment < line.vertices.start {
                continue;
            }
            let seg = coords.segment(p.segment);
            let ends = if p.t_entry == F::ZERO && p.t_exit == F::ONE {
                seg
            } else {
                self.grid.piece_segment(&p, &seg)
            };
            self.mine.push(TilePiece {
                cell: p.iy as u64 * nx + p.ix as u64,
                ix: p.ix,
                iy: p.iy,
                seg: p.segment,
                t_entry: p.t_entry,
                t_exit: p.t_exit,
                ends,
            });
        }
        // Skip the segment from this polyline's last vertex to the next one's first.
        while *cursor < self.grid_pieces.len() && self.grid_pieces[*cursor].segment == last {
            *cursor += 1;
        }
        self.seal_joints();
    }

    /// Where consecutive pieces of positive length of one segment share their parameter in
    /// neighbouring cells but their cut points differ (through a grid vertex), both take the
    /// first's point clamped into the second cell (module docs).
    fn seal_joints(&mut self) {
        let grid = self.grid;
        let mut prev: Option<usize> = None;
        for k in 0..self.mine.len() {
            let q = self.mine[k];
            if q.t_entry >= q.t_exit {
                continue;
            }
            if let Some(i) = prev.filter(|&i| self.mine[i].seg == q.seg) {
                let p = self.mine[i];
                let near = p.ix.abs_diff(q.ix) <= 1 && p.iy.abs_diff(q.iy) <= 1;
                let differ = p.ends.x1.to_bits_u64() != q.ends.x0.to_bits_u64()
                    || p.ends.y1.to_bits_u64() != q.ends.y0.to_bits_u64();
                if p.t_exit == q.t_entry && near && differ {
                    let cell = grid.cell(q.ix as usize, q.iy as usize);
                    let clamp = |v: F, lo: F, hi: F| {
                        if v < lo {
                            lo
                        } else if v > hi {
                            hi
                        } else {
                            v
                        }
                    };
                    let x = clamp(p.ends.x1, cell.xmin(), cell.xmax());
                    let y = clamp(p.ends.y1, cell.ymin(), cell.ymax());
                    (self.mine[i].ends.x1, self.mine[i].ends.y1) = (x, y);
                    (self.mine[k].ends.x0, self.mine[k].ends.y0) = (x, y);
                }
            }
            prev = Some(k);
        }
    }

    /// The polyline's pieces in the buffered cells: each finite segment clipped by every
    /// buffered cell it can reach.
    fn buffered_pieces_of(&mut self, bc: &Buffered<F>, line: &Line) {
        let coords = self.layout.lines.coords();
        let nx = self.grid.nx() as u64;
        for i in line.vertices.start..line.vertices.end - 1 {
            let seg = coords.segment(i);
            if !seg.is_finite() {
                continue;
            }
            let p = [seg.x0, seg.y0, seg.x1, seg.y1].map(Real::to_f64);
            // The margin: 64 ulps of F at the magnitude of the coordinates, far beyond the
            // clip's rounding and this search's own (a cell it adds in excess is a miss).
            let eps = (F::ONE.next_up() - F::ONE).to_f64();
            let scale = p.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let pad = 64.0 * eps * scale + f64::MIN_POSITIVE;
            let (dx, dy) = (p[2] - p[0], p[3] - p[1]);
            // Along the major axis `a`, cell by cell; in each, the other axis's reach.
            let x_major = dx.abs() >= dy.abs();
            let (axis_a, axis_b, a0, a1, b0, b1) = if x_major {
                (&bc.x, &bc.y, p[0], p[2], p[1], p[3])
            } else {
                (&bc.y, &bc.x, p[1], p[3], p[0], p[2])
            };
            let (amin, amax) = (a0.min(a1), a0.max(a1));
            let slope = if a1 == a0 { 0.0 } else { (b1 - b0) / (a1 - a0) };
            for ia in reach(axis_a, amin - pad, amax + pad) {
                let lo = axis_a.0[ia].to_f64().clamp(amin, amax);
                let hi = axis_a.1[ia].to_f64().clamp(amin, amax);
                let (u, v) = (b0 + (lo - a0) * slope, b0 + (hi - a0) * slope);
                for ib in reach(axis_b, u.min(v) - pad, u.max(v) + pad) {
                    let (ix, iy) = if x_major { (ia, ib) } else { (ib, ia) };
                    let Some(cell) = bc.cell(ix, iy) else {
                        continue;
                    };
                    let c = SlabScalar::clip_one(&cell, &seg);
                    if !c.is_hit() {
                        continue;
                    }
                    self.mine.push(TilePiece {
                        cell: iy as u64 * nx + ix as u64,
                        ix: ix as u32,
                        iy: iy as u32,
                        seg: i,
                        t_entry: c.t_entry,
                        t_exit: c.t_exit,
                        ends: c.segment(&cell, &seg),
                    });
                }
            }
        }
    }

    /// Joins the polyline's pieces cell by cell (cells by index, pieces in segment order).
    fn join(&mut self, line: &Line, out: &mut Parts<F>) {
        // By cell, then segment. Pieces come in segment order, each segment's along it, and
        // the key keeps that order within a cell: sorting small keys and then the pieces by
        // them moves each large piece once.
        let start = line.vertices.start;
        self.order.clear();
        self.order
            .extend(self.mine.iter().enumerate().map(|(k, p)| {
                debug_assert!(k < 1 << 32 && p.cell < 1 << 48);
                (
                    p.cell << 16 | ((p.seg - start) as u64).min(0xFFFF),
                    k as u32,
                )
            }));
        let sorted = self.order.windows(2).all(|w| w[0] <= w[1]);
        if !sorted {
            if self.mine.len() >= 1 << 32 || line.vertices.len() > 0xFFFF {
                self.mine.sort_by_key(|p| (p.cell, p.seg));
            } else {
                self.order.sort_unstable();
                self.spare.clear();
                self.spare
                    .extend(self.order.iter().map(|&(_, k)| self.mine[k as usize]));
                core::mem::swap(&mut self.mine, &mut self.spare);
            }
        }
        let mut k = 0;
        while k < self.mine.len() {
            let cell = self.mine[k].cell;
            let tag = Tag {
                polyline: line.index,
                geometry: self.layout.geometry.map(|_| line.item),
                cell: Some((self.mine[k].ix, self.mine[k].iy)),
            };
            let mut j = Joiner::new(tag, self.options.points);
            while k < self.mine.len() && self.mine[k].cell == cell {
                let p = self.mine[k];
                j.piece(out, p.seg, p.t_entry, p.t_exit, |end| {
                    if end {
                        (p.ends.x1, p.ends.y1)
                    } else {
                        (p.ends.x0, p.ends.y0)
                    }
                });
                k += 1;
            }
            j.close(out);
        }
    }
}
