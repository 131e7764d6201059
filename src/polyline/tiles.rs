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
//!   can reach, column by column along its major axis (a cell holding both its ends takes it
//!   whole: `Inside`, no clip). A buffer with [`Lines::HalfOpen`] is an error. `b = 0` gives
//!   the closed cells through this path.
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
//! lines that cut. Everywhere else the points are §1's, unchanged. The axis of the line a
//! cut end lies on is the slab's; where the piece beside it along the segment settles it
//! (`cut_axes`), the cell is not clipped again.
//!
//! # Fast paths
//!
//! Each vertex is placed along each axis in a cell's **sole interval** (the open cell; with a
//! buffer, the part of the buffered cell no neighbour's overlaps), beyond every cell, or
//! neither (on a line, in an overlap, NaN). A segment whose ends share a cell's sole intervals
//! is `Inside` that cell and a miss in every other (both ends beyond its near edge, §1): runs of
//! them are copied at once. One whose ends lie beyond the same outer edge has no piece. Both
//! kinds of run are found a window of 32 vertices at a time on the level's vectors (strict
//! compares against the run's cell, or against the outer edge), after the segment that starts
//! the run. One with `dy == ±0` inside a row's sole interval, neither end on a line (or
//! `dx == ±0` in a column's), is cut at the lines between its ends by the clip's own
//! parameter, as the grid's direct walk cuts (the other axis's slab is the whole line), its
//! ends by [`Clip::segment`](crate::Clip::segment). Without a buffer, one whose ends lie
//! strictly inside two cells side by side is cut at the line between them by the clip's own
//! parameter; one that can meet at most four cells (the columns and rows between its ends'
//! closed cells: an end on a line, or crossing one) is clipped by each of them ([`Grid::cell_clip`], the grid's own clip, so the
//! same pieces as its walk). Every other segment of a block goes through the grid's walks in
//! one call (or, with a buffer, the buffered cells' clip).
//!
//! # Order
//!
//! Polylines in input order; a polyline's parts by cell index `iy·nx + ix`, then along the
//! polyline. Points of contact likewise, apart. The same at any thread count.

use super::join::{Joiner, Tag};
use super::window::{self, WINDOW};
use super::{Coords, Layout, Line, MultiPolylines, Parts, Polylines};
use crate::error::Error;
use crate::geom::{Axis, Class, Rect, Segment};
use crate::grid::{Grid, GridOptions, Lines, Piece};
use crate::kernels::contract::{delta, in_range, line_t};
use crate::kernels::{Clip, ClipKernel, SlabScalar};
use crate::real::Real;
use crate::simd::{dispatch, Vector};

/// The axes of the lines piece `p`'s cut ends lie on, as the slab of its cell picks them, when
/// its neighbours along segment `s` (`prev`, `next` in the grid's list) settle them without a
/// clip; `None` where one is needed ([`Grid::piece_segment`] then clips again).
///
/// An end that is not cut (`t` exactly 0 or 1, or a piece of one point, whose end is its
/// start) needs no axis. A cut end is settled by the neighbour on the other side of it: both
/// pieces of positive length, sharing the parameter `t`, in cells that differ in one index by
/// one, with `dx`, `dy` nonzero and in [`in_range`] (each line's parameter one function of
/// the line alone, the same bits in every cell). Say column `i` to `i + 1` (the row's two y
/// lines are both cells'). `a` (before) ends at `t = min(tx, ty_far)`, `b` (after) starts at
/// `t = max(tx, ty_near)`, `tx` the x line between them. `b` goes on past `t`, so `ty_far >
/// t` unless `b` stops at `P1` (`t_exit == 1`); `a` started before `t`, so `ty_near < t`
/// (with `P0` in `a`, `ty_near ≤ 0` by its exact sign). Both ends are on the x line, strictly,
/// except in the one case left: `b` ending at `P1` while `ty_far`, at least `fl(d·fl(1/d)) ≥
/// 1 − ε/2` there, rounds onto `t`. That case (`t ≥` [`GRAZE_TOP`](Real::GRAZE_TOP)) clips.
#[inline(always)]
fn cut_axes<F: Real>(
    prev: Option<&Piece<F>>,
    p: &Piece<F>,
    next: Option<&Piece<F>>,
    s: &Segment<F>,
) -> Option<(Axis, Axis)> {
    let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
    if dx == F::ZERO || dy == F::ZERO || !in_range(dx) || !in_range(dy) {
        return None;
    }
    let between = |a: &Piece<F>, b: &Piece<F>| -> Option<Axis> {
        let shared = a.segment == b.segment
            && a.t_entry < a.t_exit
            && a.t_exit == b.t_entry
            && b.t_entry < b.t_exit
            && (b.t_exit != F::ONE || a.t_exit < F::GRAZE_TOP);
        match (a.ix.abs_diff(b.ix), a.iy.abs_diff(b.iy)) {
            (1, 0) if shared => Some(Axis::X),
            (0, 1) if shared => Some(Axis::Y),
            _ => None,
        }
    };
    let entry = if p.t_entry == F::ZERO || p.t_entry == F::ONE {
        Axis::X
    } else {
        between(prev?, p)?
    };
    let exit = if p.t_exit == F::ONE || p.t_entry == p.t_exit {
        Axis::X
    } else {
        between(p, next?)?
    };
    Some((entry, exit))
}

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
        F::tile_polylines(&self.layout(), grid, options, out)
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
        F::tile_polylines(&self.layout(), grid, options, out)
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

    /// Buffered cell `(ix, iy)`. Its bounds are finite (clamped) and ordered: the grid's lines
    /// increase and `b ≥ 0`, so `fl(xs[i] − b) ≤ xs[i] ≤ xs[i+1] ≤ fl(xs[i+1] + b)` (rounding
    /// is monotone), and clamping keeps the order.
    #[inline(always)]
    fn cell(&self, ix: usize, iy: usize) -> Rect<F> {
        Rect::from_checked(self.x.0[ix], self.y.0[iy], self.x.1[ix], self.y.1[iy])
    }
}

/// The cells of an axis whose buffered interval meets `[lo, hi]` (both bound lists increase).
fn reach<F: Real>((los, his): &(Vec<F>, Vec<F>), lo: f64, hi: f64) -> core::ops::Range<usize> {
    let first = his.partition_point(|h| h.to_f64() < lo);
    let end = los.partition_point(|l| l.to_f64() <= hi);
    first..end.max(first)
}

/// The tilings themselves, compiled once per precision (`simd::entries`): each block's fast
/// paths at the chosen level.
pub(crate) fn tile_layout_at<F: Real>(
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
    let sole = Sole::new(grid, buffered.as_ref());
    layout.run(out, |block, out| {
        let mut w = Work {
            layout,
            grid,
            options,
            buffered: buffered.as_ref(),
            sole: &sole,
            lines: Vec::new(),
            pieces: Vec::new(),
            careful: Vec::new(),
            careful_at: Vec::new(),
            grid_pieces: Vec::new(),
            mine: Vec::new(),
            order: Vec::new(),
            spare: Vec::new(),
            by_row: ByRow::default(),
        };
        w.block(block, out);
    });
    Ok(())
}

/// Where a coordinate lies along one axis: [`BELOW`] every cell, [`above`](SoleAxis::above)
/// every cell, in cell `i`'s alone (`0..n`), or [`SHARED`] (on a line, in the overlap of two
/// buffered cells, NaN: the careful paths decide).
type Code = i32;
const BELOW: Code = -1;
const SHARED: Code = i32::MIN;

/// One axis's **sole intervals**: `lo[i] < v < hi[i]` puts `v` in cell `i`'s closed interval
/// and in no other cell's. Without a buffer they are the open cells `(xs[i], xs[i+1])`; with
/// one, what cell `i` does not share with its buffered neighbours:
/// `(hi[i−1], lo[i+1])` of the buffered bounds (the outer cells reach their own outer bound,
/// exclusive). Every buffered bound list increases (rounding is monotone), so a value in cell
/// `i`'s sole interval is beyond the near edge of every other cell.
struct SoleAxis<F> {
    lo: Vec<F>,
    hi: Vec<F>,
    /// Below `outer.0` or above `outer.1`: beyond every cell.
    outer: (F, F),
    origin: f64,
    per_unit: f64,
}

impl<F: Real> SoleAxis<F> {
    fn new(lines: &[F], buffered: Option<&(Vec<F>, Vec<F>)>) -> Self {
        let n = lines.len() - 1;
        let (lo, hi, outer) = match buffered {
            None => (
                lines[..n].to_vec(),
                lines[1..].to_vec(),
                (lines[0], lines[n]),
            ),
            Some((blo, bhi)) => (
                (0..n)
                    .map(|i| if i == 0 { blo[0] } else { bhi[i - 1] })
                    .collect(),
                (0..n)
                    .map(|i| if i + 1 == n { bhi[n - 1] } else { blo[i + 1] })
                    .collect(),
                (blo[0], bhi[n - 1]),
            ),
        };
        let (a, b) = (lines[0].to_f64(), lines[n].to_f64());
        let per_unit = n as f64 / (b - a);
        SoleAxis {
            lo,
            hi,
            outer,
            origin: a,
            per_unit: if per_unit.is_finite() { per_unit } else { 0.0 },
        }
    }

    /// [`SoleAxis::code`], trying first `near`, the code of the vertex before (sole intervals
    /// do not overlap, so a value in `near`'s is in no other: the same answer, and on a
    /// polyline that stays in a cell, two compares).
    #[inline(always)]
    fn code_near(&self, v: F, near: Code) -> Code {
        if let (Some(&lo), Some(&hi)) = (self.lo.get(near as usize), self.hi.get(near as usize)) {
            if lo < v && v < hi {
                return near;
            }
        }
        self.code(v)
    }

    /// The cells of this axis (no buffer: the sole intervals are the open cells) that a
    /// segment between `v0` and `v1` (their codes `c0`, `c1`) can meet: from the lowest cell
    /// either end's closed cells hold to the highest. An end on a line holds the two cells
    /// beside it, one beyond every cell holds none (the segment reaches the outer cell);
    /// `None` when a code is [`SHARED`] off every line (NaN).
    fn between(
        &self,
        lines: &[F],
        (v0, c0): (F, Code),
        (v1, c1): (F, Code),
    ) -> Option<(usize, usize)> {
        let n = self.lo.len();
        let cells = |v: F, c: Code| -> Option<(usize, usize)> {
            Some(match c {
                BELOW => (0, 0),
                SHARED => {
                    let g = self.guess(v);
                    let k = (g.saturating_sub(1)..(g + 3).min(n + 1)).find(|&k| lines[k] == v)?;
                    (k.saturating_sub(1), k.min(n - 1))
                }
                c if c as usize >= n => (n - 1, n - 1),
                c => (c as usize, c as usize),
            })
        };
        let (a, b) = (cells(v0, c0)?, cells(v1, c1)?);
        Some((a.0.min(b.0), a.1.max(b.1)))
    }

    /// The even spacing's guess of the cell (or line) at `v`: off by rounding at most.
    /// Saturating; NaN gives 0.
    #[inline(always)]
    fn guess(&self, v: F) -> usize {
        ((v.to_f64() - self.origin) * self.per_unit) as usize
    }

    /// How many cells.
    fn above(&self) -> Code {
        self.lo.len() as Code
    }

    /// The code of `v`: the even spacing's guess of its cell, then that cell's sole interval
    /// and its two neighbours' (the guess is off by rounding at most); [`SHARED`] when none
    /// holds `v` strictly.
    #[inline(always)]
    fn code(&self, v: F) -> Code {
        if v < self.outer.0 {
            return BELOW;
        }
        if self.outer.1 < v {
            return self.above();
        }
        let n = self.lo.len();
        let g = self.guess(v).min(n - 1);
        let holds = |i: usize| self.lo[i] < v && v < self.hi[i];
        if holds(g) {
            g as Code
        } else if g > 0 && holds(g - 1) {
            g as Code - 1
        } else if g + 1 < n && holds(g + 1) {
            g as Code + 1
        } else {
            SHARED
        }
    }
}

/// Both axes' sole intervals.
struct Sole<F> {
    x: SoleAxis<F>,
    y: SoleAxis<F>,
}

impl<F: Real> Sole<F> {
    fn new(grid: &Grid<F>, buffered: Option<&Buffered<F>>) -> Self {
        Sole {
            x: SoleAxis::new(grid.xs(), buffered.map(|b| &b.x)),
            y: SoleAxis::new(grid.ys(), buffered.map(|b| &b.y)),
        }
    }

    #[inline(always)]
    fn code(&self, (x, y): (F, F)) -> (Code, Code) {
        (self.x.code(x), self.y.code(y))
    }

    /// How many segments from vertex `i` (code `a`, polyline ending at vertex `end − 1`) are
    /// settled alike, counted on one window of the vertices after it: while they stay in
    /// `a`'s cell's sole intervals (each segment `Sole` in that cell), or beyond an outer edge
    /// `a` is beyond (each a `Miss`; the longest such run). `(0, false)` where `a` is neither
    /// (on a line, NaN). Also whether the count reached the window's end (the run may go on).
    #[inline(always)]
    fn run_from<V: Vector<F>>(
        &self,
        coords: &Coords<'_, F>,
        i: usize,
        end: usize,
        a: (Code, Code),
    ) -> (usize, bool) {
        let (x, y) = (&self.x, &self.y);
        let (nx, ny) = (x.above(), y.above());
        let avail = (end - i - 1).min(WINDOW);
        if (0..nx).contains(&a.0) && (0..ny).contains(&a.1) {
            let (ix, iy) = (a.0 as usize, a.1 as usize);
            let (gt, lt) = window::bits::<F, V, true>(
                coords,
                i + 1,
                [x.lo[ix], y.lo[iy]],
                [x.hi[ix], y.hi[iy]],
            );
            let inside = gt & lt;
            return window::leading_run(inside & inside >> 1, avail);
        }
        if !(a.0 == BELOW || a.0 == nx || a.1 == BELOW || a.1 == ny) {
            return (0, false);
        }
        // `gt`: above the upper outer bound; `lt`: below the lower one (as `code`'s tests).
        let (gt, lt) = window::bits::<F, V, true>(
            coords,
            i + 1,
            [x.outer.1, y.outer.1],
            [x.outer.0, y.outer.0],
        );
        let edges = [
            (a.0 == BELOW, lt),
            (a.0 == nx, gt),
            (a.1 == BELOW, lt >> 1),
            (a.1 == ny, gt >> 1),
        ];
        edges
            .into_iter()
            .filter(|e| e.0)
            .map(|(_, beyond)| window::leading_run(beyond, avail))
            .max()
            .unwrap_or((0, false))
    }

    /// [`Sole::code`] of a vertex after one whose code was `near`.
    #[inline(always)]
    fn code_near(&self, (x, y): (F, F), near: (Code, Code)) -> (Code, Code) {
        (self.x.code_near(x, near.0), self.y.code_near(y, near.1))
    }
}

/// Scratch lists of [`sort_by_row`], kept from one polyline to the next.
#[derive(Default)]
struct ByRow {
    count: Vec<u32>,
    dealt: Vec<(u64, u32)>,
}

/// Sorts `order` (keys `cell << 16 | segment`, each with its piece's place in `pieces`) as
/// `sort_unstable` does, for a polyline whose pieces span few rows: dealt by row (a counting
/// sort over the rows the pieces span), then each row's entries by insertion (by the comparison
/// sort past 16, a row the polyline runs along). A road's pieces in fine tiles visit mostly
/// distinct cells in a band of rows, and the comparison sort of all of them was a fifth of a
/// 1000 × 1000 tiling (`docs/guide/polylines.md`). Up to 32 pieces, and spans of more rows than
/// twice the pieces, take the comparison sort.
fn sort_by_row<F>(order: &mut [(u64, u32)], s: &mut ByRow, pieces: &[TilePiece<F>]) {
    if order.len() <= 32 {
        order.sort_unstable();
        return;
    }
    let row = |e: &(u64, u32)| pieces[e.1 as usize].iy;
    let (lo, hi) = order.iter().fold((u32::MAX, 0), |(lo, hi), e| {
        (lo.min(row(e)), hi.max(row(e)))
    });
    let span = (hi - lo) as usize + 1;
    if span > 2 * order.len() {
        order.sort_unstable();
        return;
    }
    s.count.clear();
    s.count.resize(span + 1, 0);
    for e in order.iter() {
        s.count[(row(e) - lo) as usize + 1] += 1;
    }
    for r in 1..=span {
        s.count[r] += s.count[r - 1];
    }
    s.dealt.clear();
    s.dealt.resize(order.len(), (0, 0));
    for e in order.iter() {
        let at = &mut s.count[(row(e) - lo) as usize];
        s.dealt[*at as usize] = *e;
        *at += 1;
    }
    // `count[r]` is now the end of row `r`'s entries (the start of row `r + 1`'s).
    let mut start = 0;
    for r in 0..span {
        let end = s.count[r] as usize;
        let row = &mut s.dealt[start..end];
        if row.len() > 16 {
            // A row the polyline runs along, perhaps backwards: insertion would be quadratic.
            row.sort_unstable();
        } else {
            for i in 1..row.len() {
                let mut j = i;
                while j > 0 && row[j - 1] > row[j] {
                    row.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
        start = end;
    }
    order.copy_from_slice(&s.dealt);
}

/// What the codes of a segment's two ends settle.
enum Fast {
    /// Both ends in one cell's sole intervals: that cell's clip is `Inside`, every other cell's
    /// a miss (both ends beyond its near edge, SPEC §1).
    Sole(u32, u32),
    /// Both ends beyond the same outer edge of the grid (or the buffered cells): no piece.
    Miss,
    /// Neither.
    No,
}

#[inline(always)]
fn fast(a: (Code, Code), b: (Code, Code), nx: Code, ny: Code) -> Fast {
    let inner = |c: Code, n: Code| (0..n).contains(&c);
    if a == b && inner(a.0, nx) && inner(a.1, ny) {
        Fast::Sole(a.0 as u32, a.1 as u32)
    } else if (a.0 == b.0 && (a.0 == BELOW || a.0 == nx))
        || (a.1 == b.1 && (a.1 == BELOW || a.1 == ny))
    {
        Fast::Miss
    } else {
        Fast::No
    }
}

/// A piece of one polyline in one cell, with its clipped endpoints; or (`last > seg`) the run
/// of `Inside` pieces of segments `seg ..= last` in one cell.
#[derive(Clone, Copy, Debug)]
struct TilePiece<F> {
    cell: u64,
    ix: u32,
    iy: u32,
    seg: usize,
    last: usize,
    /// A run of `Inside` pieces (`ends` unused: the polyline's own vertices).
    run: bool,
    t_entry: F,
    t_exit: F,
    ends: Segment<F>,
}

impl<F: Real> TilePiece<F> {
    /// The piece `[t_entry, t_exit]` of segment `seg` in cell `(ix, iy)`, its ends `ends`.
    fn piece(
        nx: u64,
        (ix, iy): (u32, u32),
        seg: usize,
        (t_entry, t_exit): (F, F),
        ends: Segment<F>,
    ) -> Self {
        TilePiece {
            cell: iy as u64 * nx + ix as u64,
            ix,
            iy,
            seg,
            last: seg,
            run: false,
            t_entry,
            t_exit,
            ends,
        }
    }

    /// The run of `Inside` pieces from segment `seg` (one, until its `last` grows).
    fn run(nx: u64, ix: u32, iy: u32, seg: usize) -> Self {
        let nan = Segment::new(F::NAN, F::NAN, F::NAN, F::NAN);
        TilePiece {
            run: true,
            ..Self::piece(nx, (ix, iy), seg, (F::ZERO, F::ONE), nan)
        }
    }
}

struct Work<'w, 'l, 'a, F: Real> {
    layout: &'w Layout<'l, 'a, F>,
    grid: &'w Grid<F>,
    options: &'w TileOptions<F>,
    buffered: Option<&'w Buffered<F>>,
    sole: &'w Sole<F>,
    /// The block's polylines, each with the end of its pieces in `pieces`.
    lines: Vec<(Line, usize)>,
    /// The pieces the fast paths (and the buffered cells) give, polyline by polyline.
    pieces: Vec<TilePiece<F>>,
    /// The segments left to the grid's walks, and their indices.
    careful: Vec<Segment<F>>,
    careful_at: Vec<usize>,
    grid_pieces: Vec<Piece<F>>,
    mine: Vec<TilePiece<F>>,
    /// Sort keys of `mine` (cell, then segment) and positions.
    order: Vec<(u64, u32)>,
    /// `mine` in key order.
    spare: Vec<TilePiece<F>>,
    /// Scratch for [`sort_by_row`].
    by_row: ByRow,
}

impl<F: Real> Work<'_, '_, '_, F> {
    /// The block's polylines: the fast paths first (segments in one cell's sole intervals, or
    /// beyond the grid, or along one row or column), then every other segment through the grid
    /// walks in one call, then each polyline's pieces joined.
    fn block(&mut self, block: core::ops::Range<usize>, out: &mut Parts<F>) {
        if block.is_empty() {
            return;
        }
        let mut lines = core::mem::take(&mut self.lines);
        lines.clear();
        let layout = self.layout;
        // One dispatch a block: the fast paths' windows run on the level's vectors.
        dispatch!(I => layout.for_each_line(
            block,
            #[inline(always)]
            |line| {
                if line.vertices.len() >= 2 {
                    self.fast_pieces_of::<F::Simd<I>>(&line);
                }
                lines.push((line, self.pieces.len()));
            }
        ));
        if !self.careful.is_empty() {
            let o = GridOptions {
                lines: self.options.lines,
                touches: true,
            };
            self.grid_pieces.clear();
            self.grid.pieces_into(
                &self.careful[..],
                0..self.careful.len(),
                &o,
                &mut self.grid_pieces,
            );
        }
        let (mut from, mut cursor) = (0, 0);
        for (line, end) in &lines {
            self.mine.clear();
            self.mine.extend_from_slice(&self.pieces[from..*end]);
            from = *end;
            if self.buffered.is_none() {
                self.grid_pieces_of(line, &mut cursor);
                self.seal_joints();
            }
            self.join(line, out);
        }
        self.lines = lines;
        self.pieces.clear();
        self.careful.clear();
        self.careful_at.clear();
        self.grid_pieces.clear();
    }

    /// The polyline's pieces the fast paths settle, into `pieces` (runs of segments in one
    /// cell's sole intervals as one entry); the rest to the buffered cells' clip, or queued in
    /// `careful` for the grid. Runs that stay in one cell, or beyond one outer edge, are found
    /// a window at a time ([`Sole::run_from`]); each segment that ends one, one at a time.
    #[inline(always)]
    fn fast_pieces_of<V: Vector<F>>(&mut self, line: &Line) {
        let coords = self.layout.lines.coords();
        let sole = self.sole;
        let (nx, ny) = (sole.x.above(), sole.y.above());
        let nx64 = nx as u64;
        let end = line.vertices.end;
        let mut i = line.vertices.start;
        let mut a = sole.code(coords.vertex(i));
        // The open run in `pieces`: its cell.
        let mut run: Option<(u32, u32)> = None;
        while i + 1 < end {
            let b = sole.code_near(coords.vertex(i + 1), a);
            let settled = match fast(a, b, nx, ny) {
                Fast::Sole(ix, iy) => {
                    if run == Some((ix, iy)) {
                        let last = self.pieces.len() - 1;
                        self.pieces[last].last = i;
                    } else {
                        self.pieces.push(TilePiece::run(nx64, ix, iy, i));
                        run = Some((ix, iy));
                    }
                    true
                }
                Fast::Miss => {
                    run = None;
                    true
                }
                Fast::No => {
                    run = None;
                    let seg = coords.segment(i);
                    match self.buffered {
                        Some(bc) => self.buffered_pieces(bc, i, &seg),
                        None => {
                            if !self.along_one_row(i, &seg, a, b)
                                && !self.across_one_line(i, &seg, a, b)
                                && !self.few_cells(i, &seg, a, b)
                            {
                                self.careful.push(seg);
                                self.careful_at.push(i);
                            }
                        }
                    }
                    false
                }
            };
            a = b;
            i += 1;
            // After a settled segment, the run it began or continued, a window at a time (after
            // any other, a run is rare: small cells).
            while settled && i + 1 < end {
                let (n, full) = sole.run_from::<V>(&coords, i, end, a);
                if n == 0 {
                    break;
                }
                if let Some((ix, iy)) = run {
                    // `a` is in cell (ix, iy)'s sole intervals: the run goes on.
                    let last = self.pieces.len() - 1;
                    debug_assert_eq!((self.pieces[last].ix, self.pieces[last].iy), (ix, iy));
                    self.pieces[last].last = i + n - 1;
                } else {
                    a = sole.code(coords.vertex(i + n));
                }
                i += n;
                if !full {
                    break;
                }
            }
        }
    }

    /// A segment with `dy == ±0` in one row's sole interval (or `dx == ±0` in one column's),
    /// neither end on a line: its pieces are the cells of that row between its ends, cut at
    /// the lines between them by the clip's own parameter (`line_t`), as the grid's direct
    /// walk cuts, the other axis being the whole slab. Returns `false`, having pushed nothing,
    /// when the segment is not such a one, or its crossings do not strictly increase below
    /// `GRAZE_TOP` (`grid.rs`'s walk takes it then).
    fn along_one_row(
        &mut self,
        i: usize,
        s: &Segment<F>,
        a: (Code, Code),
        b: (Code, Code),
    ) -> bool {
        let sole = self.sole;
        let (nx, ny) = (sole.x.above(), sole.y.above());
        // Along x: the row is `a.1`, the cells' positions along x are `a.0`, `b.0`.
        let along_x = s.y0 == s.y1 && a.1 == b.1 && (0..ny).contains(&a.1);
        let along_y = s.x0 == s.x1 && a.0 == b.0 && (0..nx).contains(&a.0);
        let (lines, p0, p1, c0, c1, other) = if along_x {
            (self.grid.xs(), s.x0, s.x1, a.0, b.0, a.1)
        } else if along_y {
            (self.grid.ys(), s.y0, s.y1, a.1, b.1, a.0)
        } else {
            return false;
        };
        if c0 == SHARED || c1 == SHARED || c0 == c1 {
            return false;
        }
        let d = delta(p0, p1);
        if !in_range(d) || d == F::ZERO {
            return false;
        }
        let r = F::ONE / d;
        let n = lines.len() as Code - 1;
        let up = c0 < c1;
        let step: Code = if up { 1 } else { -1 };
        // The crossings, in the order met: line `c + 1` going up from cell `c`, line `c` going
        // down; all strictly increasing, positive, below GRAZE_TOP.
        let line_of = |c: Code| if up { c + 1 } else { c };
        let mut t = F::ZERO;
        let mut c = c0;
        while c != c1 {
            let next = line_t(lines[line_of(c) as usize], p0, r);
            if !(t < next && next < F::GRAZE_TOP) {
                return false;
            }
            t = next;
            c += step;
        }
        let nx64 = self.grid.nx() as u64;
        let (mut t_entry, mut c) = (F::ZERO, c0);
        loop {
            let last = c == c1;
            let t_exit = if last {
                F::ONE
            } else {
                line_t(lines[line_of(c) as usize], p0, r)
            };
            if (0..n).contains(&c) {
                let (ix, iy) = if along_x { (c, other) } else { (other, c) };
                let (ix, iy) = (ix as u32, iy as u32);
                let class = match (t_entry == F::ZERO, last) {
                    (true, true) => Class::Inside,
                    (true, false) => Class::Exits,
                    (false, true) => Class::Enters,
                    (false, false) => Class::Crosses,
                };
                let axis = if along_x { Axis::X } else { Axis::Y };
                let clip = Clip {
                    t_entry,
                    t_exit,
                    class,
                    entry_axis: axis,
                    exit_axis: axis,
                };
                let cell = self.grid.cell(ix as usize, iy as usize);
                self.pieces.push(TilePiece::piece(
                    nx64,
                    (ix, iy),
                    i,
                    (t_entry, t_exit),
                    clip.segment(&cell, s),
                ));
            }
            if last {
                return true;
            }
            t_entry = t_exit;
            c += step;
        }
    }

    /// A segment whose ends lie strictly inside two cells side by side (closed cells, no
    /// buffer): it crosses the one line between them, at the clip's own parameter `t =
    /// line_t(line, p0, 1/d)`, and its pieces are `[0, t]` in the first cell and `[t, 1]` in the
    /// second, their cut vertex on that line (the argument of `cut_axes`: the other axis's lines
    /// lie beyond both ends, so the slab of either cell takes this line's parameter, strictly,
    /// below [`GRAZE_TOP`](Real::GRAZE_TOP)). `dx`, `dy` in [`in_range`], as the walk asks.
    /// Returns `false`, having pushed nothing, for any other segment.
    fn across_one_line(
        &mut self,
        i: usize,
        s: &Segment<F>,
        a: (Code, Code),
        b: (Code, Code),
    ) -> bool {
        if self.options.lines != Lines::Closed {
            return false;
        }
        let grid = self.grid;
        let (nx, ny) = (grid.nx() as Code, grid.ny() as Code);
        let in_grid = |c: (Code, Code)| (0..nx).contains(&c.0) && (0..ny).contains(&c.1);
        if !in_grid(a) || !in_grid(b) {
            return false;
        }
        let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
        if !in_range(dx) || !in_range(dy) {
            return false;
        }
        let (axis, line, p0, d) = match (a.0.abs_diff(b.0), a.1.abs_diff(b.1)) {
            (1, 0) => (Axis::X, grid.xs()[a.0.max(b.0) as usize], s.x0, dx),
            (0, 1) => (Axis::Y, grid.ys()[a.1.max(b.1) as usize], s.y0, dy),
            _ => return false,
        };
        let t = line_t(line, p0, F::ONE / d);
        if !(F::ZERO < t && t < F::GRAZE_TOP) {
            return false;
        }
        let nx64 = grid.nx() as u64;
        for (c, t_entry, t_exit, class) in
            [(a, F::ZERO, t, Class::Exits), (b, t, F::ONE, Class::Enters)]
        {
            let (ix, iy) = (c.0 as usize, c.1 as usize);
            let clip = Clip {
                t_entry,
                t_exit,
                class,
                entry_axis: axis,
                exit_axis: axis,
            };
            self.pieces.push(TilePiece::piece(
                nx64,
                (ix as u32, iy as u32),
                i,
                (t_entry, t_exit),
                clip.segment(&grid.cell(ix, iy), s),
            ));
        }
        true
    }

    /// A segment (closed cells) whose ends' codes leave at most four cells it can meet (the
    /// columns and rows from either end's closed cells to the other's: a segment lies between
    /// its ends): its pieces are those cells' clips that hit ([`Grid::cell_clip`], the grid's
    /// own, touches kept), in the grid's order (`t_entry`, `t_exit`, row, column), with the
    /// clips' cut vertices. Returns `false`, having pushed nothing, when an end's cells are not
    /// known from its code (NaN, a guess that missed) or more cells are left.
    fn few_cells(&mut self, i: usize, s: &Segment<F>, a: (Code, Code), b: (Code, Code)) -> bool {
        if self.options.lines != Lines::Closed {
            return false;
        }
        let (sole, grid) = (self.sole, self.grid);
        let (Some((x0, x1)), Some((y0, y1))) = (
            sole.x.between(grid.xs(), (s.x0, a.0), (s.x1, b.0)),
            sole.y.between(grid.ys(), (s.y0, a.1), (s.y1, b.1)),
        ) else {
            return false;
        };
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 4 {
            return false;
        }
        // A cell that hits: its column, row, rect and clip.
        type Hit<F> = Option<(usize, usize, Rect<F>, Clip<F>)>;
        let mut hits: [Hit<F>; 4] = [None; 4];
        let mut m = 0;
        for iy in y0..=y1 {
            for ix in x0..=x1 {
                let cell = grid.cell(ix, iy);
                // Both ends in the closed cell: `Inside`, `[0, 1]` (§1), with no clip.
                let c = if cell.contains(s.x0, s.y0) && cell.contains(s.x1, s.y1) {
                    Clip {
                        t_entry: F::ZERO,
                        t_exit: F::ONE,
                        class: Class::Inside,
                        entry_axis: Axis::X,
                        exit_axis: Axis::X,
                    }
                } else {
                    grid.cell_clip(ix, iy, s)
                };
                if c.is_hit() {
                    hits[m] = Some((ix, iy, cell, c));
                    m += 1;
                }
            }
        }
        // A hit's parameters are numbers; the cells were visited by row, then column, and a
        // stable sort keeps that order among equal parameters.
        let key =
            |h: &Option<(usize, usize, Rect<F>, Clip<F>)>| h.map(|h| (h.3.t_entry, h.3.t_exit));
        hits[..m].sort_by(|p, q| {
            key(p)
                .partial_cmp(&key(q))
                .unwrap_or(core::cmp::Ordering::Equal)
        });
        let nx64 = grid.nx() as u64;
        for &(ix, iy, cell, c) in hits[..m].iter().flatten() {
            let ends = if c.t_entry == F::ZERO && c.t_exit == F::ONE {
                *s
            } else {
                c.segment(&cell, s)
            };
            self.pieces.push(TilePiece::piece(
                nx64,
                (ix as u32, iy as u32),
                i,
                (c.t_entry, c.t_exit),
                ends,
            ));
        }
        true
    }

    /// The grid's pieces of the polyline's queued segments (`cursor` walks them in segment
    /// order), with their endpoints, appended to `mine`.
    fn grid_pieces_of(&mut self, line: &Line, cursor: &mut usize) {
        let coords = self.layout.lines.coords();
        let nx = self.grid.nx() as u64;
        while *cursor < self.grid_pieces.len() {
            let p = self.grid_pieces[*cursor];
            let i = self.careful_at[p.segment];
            if i >= line.vertices.end {
                break;
            }
            *cursor += 1;
            let seg = coords.segment(i);
            let ends = if p.t_entry == F::ZERO && p.t_exit == F::ONE {
                seg
            } else {
                // The segment's pieces are consecutive, in order along it: its neighbours
                // there may tell the lines its cut ends lie on.
                let list = &self.grid_pieces;
                let prev = (*cursor >= 2).then(|| &list[*cursor - 2]);
                let next = list.get(*cursor);
                match cut_axes(prev, &p, next, &seg) {
                    Some(axes) => self.grid.piece_segment_on(&p, &seg, axes),
                    None => self.grid.piece_segment(&p, &seg),
                }
            };
            self.mine.push(TilePiece::piece(
                nx,
                (p.ix, p.iy),
                i,
                (p.t_entry, p.t_exit),
                ends,
            ));
        }
    }

    /// Where consecutive pieces of positive length of one segment share their parameter in
    /// neighbouring cells but their cut points differ (through a grid vertex), both take the
    /// first's point clamped into the second cell (module docs). A segment's pieces are
    /// consecutive in `mine`, in order along it.
    fn seal_joints(&mut self) {
        let grid = self.grid;
        let mut prev: Option<usize> = None;
        for k in 0..self.mine.len() {
            let q = self.mine[k];
            if q.t_entry >= q.t_exit || q.run {
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

    /// Segment `i` (`seg`) in the buffered cells: clipped by every buffered cell it can reach.
    fn buffered_pieces(&mut self, bc: &Buffered<F>, i: usize, seg: &Segment<F>) {
        if !seg.is_finite() {
            return;
        }
        let nx = self.grid.nx() as u64;
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
                let cell = bc.cell(ix, iy);
                // Both ends in the closed cell: `Inside`, `[0, 1]`, the segment itself (§1),
                // with no clip.
                let (t, ends) = if cell.contains(seg.x0, seg.y0) && cell.contains(seg.x1, seg.y1) {
                    ((F::ZERO, F::ONE), *seg)
                } else {
                    let c = SlabScalar::clip_one(&cell, seg);
                    if !c.is_hit() {
                        continue;
                    }
                    ((c.t_entry, c.t_exit), c.segment(&cell, seg))
                };
                self.pieces
                    .push(TilePiece::piece(nx, (ix as u32, iy as u32), i, t, ends));
            }
        }
    }

    /// Joins the polyline's pieces cell by cell (cells by index, pieces in segment order).
    fn join(&mut self, line: &Line, out: &mut Parts<F>) {
        // By cell, then segment. Pieces come in segment order, each segment's along it, and
        // the key keeps that order within a cell: sorting small keys and then the pieces by
        // them moves each large piece once.
        let start = line.vertices.start;
        let coords = self.layout.lines.coords();
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
                sort_by_row(&mut self.order, &mut self.by_row, &self.mine);
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
                k += 1;
                if p.run {
                    // A run of `Inside` pieces (or one), its vertices the polyline's.
                    j.inside(out, p.seg..p.last + 1, &coords);
                    continue;
                }
                j.piece(out, p.seg, p.t_entry, p.t_exit, |end| {
                    if end {
                        (p.ends.x1, p.ends.y1)
                    } else {
                        (p.ends.x0, p.ends.y0)
                    }
                });
            }
            j.close(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::SplitMix64 as Rng;

    fn bits<F: Real>(s: &Segment<F>) -> [u64; 4] {
        [s.x0, s.y0, s.x1, s.y1].map(Real::to_bits_u64)
    }

    /// Random segments across a 4 × 4 grid, and segments that end on a line of one axis a few
    /// ulps past a line of the other, from far enough that both lines' parameters round to
    /// within an ulp of 1 (where `cut_axes` leaves a tie to the clip), in every direction.
    fn segments<F: Real>(rng: &mut Rng) -> Vec<Segment<F>> {
        let fl = |v: f64| F::from_f64(v);
        let mut out = Vec::new();
        for _ in 0..3000 {
            let mut c = || fl(rng.range(-0.5, 1.5));
            out.push(Segment::new(c(), c(), c(), c()));
        }
        for _ in 0..20000 {
            let line = |rng: &mut Rng| fl(0.25 * (1.0 + (rng.unit() * 3.0).floor()));
            let (a, b) = (line(rng), line(rng));
            let (sa, sb) = (
                if rng.unit() < 0.5 { 1.0 } else { -1.0 },
                if rng.unit() < 0.5 { 1.0 } else { -1.0 },
            );
            // The end: `ulps` past line `a` along the first axis, on line `b` of the other.
            let mut past = a;
            for _ in 0..1 + (rng.unit() * 3.0) as usize {
                past = if sa > 0.0 {
                    past.next_up()
                } else {
                    -(-past).next_up()
                };
            }
            let (da, db) = (rng.range(0.6, 2.5), rng.range(0.6, 2.5));
            let start = (fl(a.to_f64() - sa * da), fl(b.to_f64() - sb * db));
            out.push(if rng.unit() < 0.5 {
                Segment::new(start.0, start.1, past, b)
            } else {
                Segment::new(start.1, start.0, b, past)
            });
        }
        out
    }

    /// Wherever `cut_axes` settles a piece's axes, its ends are `Grid::piece_segment`'s, bit
    /// for bit. The ends its graze guard leaves to the clip (ties of both lines' parameters
    /// just below 1) are among them: over a hundred.
    fn settled_axes_are_the_clips<F: Real>(seed: u64) {
        let mut rng = Rng::new(seed);
        let g = Grid::new(Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap(), 4, 4).unwrap();
        let segs = segments::<F>(&mut rng);
        let pieces = g.pieces(&segs[..], &GridOptions::default());
        let (mut settled, mut guarded) = (0, 0);
        for k in 0..pieces.len() {
            let p = pieces[k];
            let s = segs[p.segment];
            let (prev, next) = (k.checked_sub(1).map(|j| &pieces[j]), pieces.get(k + 1));
            if let Some(axes) = cut_axes(prev, &p, next, &s) {
                settled += 1;
                assert_eq!(
                    bits(&g.piece_segment_on(&p, &s, axes)),
                    bits(&g.piece_segment(&p, &s)),
                    "{s:?} {p:?} {axes:?}"
                );
            }
            let guard = |a: &Piece<F>, b: &Piece<F>| {
                a.segment == b.segment
                    && a.t_entry < a.t_exit
                    && a.t_exit == b.t_entry
                    && b.t_entry < b.t_exit
                    && b.t_exit == F::ONE
                    && a.t_exit >= F::GRAZE_TOP
                    && a.ix.abs_diff(b.ix) + a.iy.abs_diff(b.iy) == 1
            };
            guarded += usize::from(next.is_some_and(|q| guard(&p, q)));
        }
        assert!(settled > 10_000, "{settled} pieces settled");
        assert!(
            guarded > 100,
            "{guarded} ends left to the clip by the guard"
        );
    }

    /// `sort_by_row` gives `sort_unstable`'s order: pieces in a band of rows, in rows of one to
    /// forty entries in any order (a row run along backwards among them), and spans of rows
    /// too wide for the counting sort.
    #[test]
    fn rows_sort_as_the_comparison_sort() {
        let mut rng = Rng::new(43);
        let mut scratch = ByRow::default();
        let nx = 1000u64;
        for case in 0..3000 {
            let n = 1 + (rng.unit() * 300.0) as usize;
            let rows = 1 + (rng.unit() * if case % 3 == 0 { 2000.0 } else { 40.0 }) as u32;
            let first = (rng.unit() * 900.0) as u32;
            let backwards = case % 5 == 0;
            let pieces: Vec<TilePiece<f32>> = (0..n)
                .map(|k| {
                    let iy = first + (rng.unit() * rows as f64) as u32;
                    let ix = if backwards {
                        (n - k) as u32 % 1000
                    } else {
                        (rng.unit() * 1000.0) as u32
                    };
                    TilePiece::run(nx, ix, iy, k)
                })
                .collect();
            let keys: Vec<(u64, u32)> = pieces
                .iter()
                .enumerate()
                .map(|(k, p)| (p.cell << 16 | p.seg as u64, k as u32))
                .collect();
            let (mut got, mut want) = (keys.clone(), keys);
            sort_by_row(&mut got, &mut scratch, &pieces);
            want.sort_unstable();
            assert_eq!(got, want, "case {case}: {n} pieces over {rows} rows");
        }
    }

    #[test]
    fn settled_axes_are_the_clips_f32() {
        settled_axes_are_the_clips::<f32>(41);
    }

    #[test]
    fn settled_axes_are_the_clips_f64() {
        settled_axes_are_the_clips::<f64>(42);
    }
}
