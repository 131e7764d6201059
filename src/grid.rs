//! Segments through a regular grid of cells: the pieces each segment makes in the cells it
//! passes through, in order along the segment, for binning trajectories or tiling map data.
//!
//! A [`Grid`] is a bounding rect and cell counts `nx × ny`. Its cell boundaries are **one shared
//! list of floats per axis** ([`Grid::xs`], [`Grid::ys`]): cell `(ix, iy)` is the closed rect
//! `[xs[ix], xs[ix+1]] × [ys[iy], ys[iy+1]]`, so neighbouring cells share the very same
//! boundary value. The list is `xs[i] = xmin + (xmax − xmin)·i/nx`, computed in `f64` and rounded
//! once to the grid's float type, with `xs[0] = xmin` and `xs[nx] = xmax` exactly (likewise `ys`);
//! a grid whose rounded boundaries would not strictly increase is an error.
//!
//! # Watertight pieces
//!
//! Each [`Piece`] is, bit for bit, [`Grid::cell_clip`]: the SPEC §1 clip of the segment
//! against that cell's rect, with the slivers below kept. Its `t_entry`, `t_exit` and class come
//! from the crate's own clip arithmetic (the boundary parameter of `axis_t`, the slab and the
//! shared finishing step of `kernels/contract.rs`), never from an approximation of it. A
//! boundary parameter depends only on the boundary value and the segment, so where a segment
//! crosses from one cell into the next, the first piece's `t_exit` and the next piece's
//! `t_entry` are the same float: no gap and no overlap, also through grid vertices (where the two
//! cells beside the vertex each get a `Touches` piece, unless [`GridOptions::touches`] is off).
//!
//! # Slivers
//!
//! SPEC §1 lets a clip drop a graze: with both ends outside, a rounded entry at or above
//! `1 − 2ε` is a miss. A segment that ends a few ulps from a grid vertex can cross the cell
//! before its end's cell over a rounded interval `[e, x]` inside `[1 − 2ε, 1)`, its neighbours'
//! pieces ending at `e` and starting at `x`; dropping it would open a hole of an ulp or two
//! (SPEC §7: the graze allowance never opens a gap in a grid). Such a cell is kept as a
//! `Crosses` piece over `[e, x]`: a sliver is a cell whose clip misses, whose rounded interval has
//! positive length, and whose entering bounds `P1` is not short of (a cell just beyond `P1`,
//! which rounding can stretch over the last ulps before 1, is none: the end's cell already
//! reaches 1). Each sliver is within §1's graze allowance, so it is a correct clip of its cell
//! too; it only differs from what [`SlabScalar`](crate::SlabScalar) answers for that cell. Near
//! `t = 0` there are none: the parameters are exact in sign there.
//!
//! # Traversal
//!
//! Three paths, tried in turn; each computes every parameter of a grid line by the clip's own
//! expression `(xs[k] − x0)·(1/dx)` (`line_t`), once, shared by the two cells beside the line,
//! so the pieces do not depend on the path, and each costs in proportion to the pieces, not to
//! `nx × ny` nor to the lines a long segment crosses beside the grid (the walks skip the lines
//! whose parameters lie before the grid's rect is entered or after it is left, found by
//! bisection; the sweep only sweeps the part of the segment in the grid's rect):
//!
//! 1. **The direct walk** (`grid/direct.rs`), for the usual segment: `dx` and `dy` nonzero and
//!    in the clip's fast range, neither end on a grid line, its crossings distinct. Its ends'
//!    cells come from the even spacing, the lines strictly between them are its crossings, and
//!    merged in order they *are* its pieces' ends (0 and 1 at the ends, `Exits` … `Crosses` …
//!    `Enters`): no finishing step. Batches walk `LANES` segments at once, one per SIMD
//!    lane, choosing each lane's next cell by selects; segments that start or end outside the
//!    grid walk through virtual cells beyond it, whose pieces are dropped.
//! 2. **The walk** (`grid/walk.rs`), for ends on lines and ties (a vertex, or lines whose
//!    parameters round onto each other): an Amanatides–Woo merge of the two axes' lines, each
//!    cell's raw slab interval finished by the crate's finishing step (`kernels/contract.rs`),
//!    and on a tie a staircase that takes any. Rounding is monotone, so the lines' parameters
//!    come in order along the segment and the cells whose column and row intervals overlap form
//!    a staircase. Clamping the compared parameters below `1 − ε/2` keeps the cell holding the
//!    segment's end, whose two intervals can miss each other by one float there; cells the walk
//!    lists in excess are misses to the finishing step and dropped.
//! 3. **The general path**, below.
//!
//! Everything else — an axis-parallel segment (`dx` or `dy` is ±0), a zero-length one, a
//! coordinate difference subnormal or beyond `RANGE_HI`, NaN or ±∞ — goes through the general
//! path: the segment is clipped to the grid rect, swept column by column with a margin of 64 ulps
//! listing every cell the clip's rounding could reach, and those cells are clipped on vectors by
//! `slab::slab_clip`, misses dropped. The half-open rule ([`Lines::HalfOpen`]) only concerns
//! segments with `dx == 0` or `dy == 0`, so only that path applies it.
//!
//! # Order
//!
//! A segment's pieces come in order along it: by `t_entry`, then `t_exit`; pieces with the same
//! two parameters (the `Touches` pieces at a vertex, the two pieces of a segment lying on a grid
//! line, a zero-length segment on a line) by cell index `iy·nx + ix`. Segments come in input
//! order. The batch runs under rayon and gives the same list at any thread count.
//!
//! # Grid lines and vertices
//!
//! * [`Lines::Closed`] (the default): every cell is closed, as in SPEC §1. A segment lying
//!   exactly on an interior grid line gets a piece in *both* cells beside it (same parameters),
//!   and a zero-length segment on a vertex is `Inside` all four cells around it.
//! * [`Lines::HalfOpen`], for binning: cells are `[xs[ix], xs[ix+1]) × [ys[iy], ys[iy+1])`,
//!   closed at the grid's own `xmax`/`ymax`, so every point of the grid lies in exactly one cell.
//!   A segment with `dx == 0` (±0) lying on an interior line `x = xs[k]` belongs only to the
//!   column `k` to the right of it; likewise `dy == 0` on `y = ys[k]` only to row `k` above it.
//!   So a segment along a grid line is counted once, and a zero-length segment (a point) is in
//!   exactly one cell. Other pieces are as in `Closed` (pieces of positive length share only
//!   their endpoints).
//! * [`GridOptions::touches`]: keep (default) or drop the `Touches` pieces, which have
//!   `t_entry == t_exit` and no length: a segment passing exactly through a vertex touches the
//!   two cells beside it there, and a segment that starts or ends on a grid line and points away
//!   from a cell touches that cell at its endpoint. Binning by length wants them dropped.
//!
//! Segments with a NaN or ±∞ coordinate make no pieces (they are `Invalid` against every cell).
//!
//! # Columns
//!
//! [`Grid::piece_columns`] gives the same pieces, in the same order, as the columns the command
//! line writes and the Python package returns ([`PieceColumns`]): blocks of segments are cut
//! into small reused lists and written straight into the columns, so that no list of pieces
//! the size of the answer is made (first touching memory is what a large answer costs most).

use crate::buffers::{Batch, SegmentSource};
use crate::error::Error;
use crate::geom::{Axis, Class, Rect, Segment};
use crate::kernels::contract::{Finished, RectLanes};
use crate::kernels::simd_slab::{gather_chunk, load_chunk};
use crate::kernels::slab::slab_clip;
use crate::kernels::Clip;
use crate::real::{write_as, Lane, Real, INDEX_BITS};
use crate::simd::{dispatch, Vector};

mod blocks;
mod columns;
mod direct;
mod walk;

pub use blocks::PieceBlocks;
pub use columns::PieceColumns;

/// Reused buffers of [`Grid::pieces_into`], one per path.
#[derive(Default)]
struct Scratch<F> {
    steps: Vec<direct::Step<F>>,
    direct: direct::Scratch<F>,
    walk: walk::Scratch<F>,
    general: Candidates<F>,
}

/// The most cells a grid may have along one axis (2²⁴): beyond it the boundary lists alone would
/// take hundreds of megabytes, and `f32` boundaries could no longer increase.
pub const MAX_CELLS_PER_AXIS: usize = 1 << 24;

/// A regular grid of `nx × ny` closed cells over a rect, with one shared boundary list per axis.
#[derive(Clone, Debug)]
pub struct Grid<F> {
    rect: Rect<F>,
    xs: Vec<F>,
    ys: Vec<F>,
    /// `xs` then `ys`, one table for the lanes' gathers (`grid/direct.rs`).
    xy: Vec<F>,
    /// `xs` and `ys` widened to `f64`, for the traversal's arithmetic.
    xs64: Lines64,
    ys64: Lines64,
}

/// One axis's boundaries in `f64`, cells per unit length for a first guess of a cell, and how
/// far that guess (in cells) may be from the true position.
#[derive(Clone, Debug)]
struct Lines64 {
    v: Vec<f64>,
    per_unit: f64,
    slack: f64,
}

impl Lines64 {
    fn new<F: Real>(lines: &[F]) -> Self {
        let v: Vec<f64> = lines.iter().map(|x| x.to_f64()).collect();
        let n = v.len() - 1;
        // Infinite extent (f64 bounds of opposite signs near the range's ends) gives 0: the
        // guess is then cell 0 and the walk finds the cell, slowly but right.
        let per_unit = n as f64 / (v[n] - v[0]);
        let per_unit = if per_unit.is_finite() { per_unit } else { 0.0 };
        // The guess `u = fl(fl(v − a)·fl(per_unit))` of `(v − a)·n/w` is off by at most three
        // roundings of `F` (unit roundoff `µ`), `3µ·n` cells; a boundary of the list is off
        // from `a + w·i/n` by its rounding to `F` (and in `f64` by three roundings), at most
        // `µ·(|a| + 3w)` or `n·µ·(|a| + 3w)/w` cells. Twice their sum, and more: a guess further
        // than this from an integer has the value strictly between the two lines around it.
        let (a, b) = (v[0].abs(), v[n].abs());
        let mu = (F::ONE.next_up() - F::ONE).to_f64() / 2.0;
        let slack = 8.0 * mu * n as f64 * ((a + b) / (v[n] - v[0]) + 1.0);
        Lines64 {
            per_unit,
            slack: if per_unit > 0.0 && slack < 0.25 {
                slack
            } else {
                1.0
            },
            v,
        }
    }
}

/// Which cells the points on grid lines belong to; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lines {
    /// Closed cells: a point on an interior line is in the cells on both sides.
    #[default]
    Closed,
    /// Half-open cells `[lo, hi)`, closed at the grid's upper bounds: every point in one cell.
    HalfOpen,
}

/// How pieces on grid lines and at vertices are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GridOptions {
    /// Closed or half-open cells.
    pub lines: Lines,
    /// Keep the `Touches` pieces (single points on a cell's boundary).
    pub touches: bool,
}

impl Default for GridOptions {
    /// Closed cells, touches kept: exactly the non-empty clips against every cell.
    fn default() -> Self {
        GridOptions {
            lines: Lines::Closed,
            touches: true,
        }
    }
}

/// The part of segment `segment` in cell `(ix, iy)`: its clip against the cell's rect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece<F> {
    /// Index of the segment in the input batch.
    pub segment: usize,
    /// Column of the cell, `0..nx`.
    pub ix: u32,
    /// Row of the cell, `0..ny`.
    pub iy: u32,
    /// Where the segment enters the cell (`0` iff its start is in the closed cell).
    pub t_entry: F,
    /// Where it leaves (`1` iff its end is in the closed cell).
    pub t_exit: F,
    /// How it meets the cell: never `Outside` or `Invalid`.
    pub class: Class,
}

/// The boundary list `lo + (hi − lo)·i/n` for `i = 0..=n`, ends exact; `None` unless strictly
/// increasing.
fn boundaries<F: Real>(lo: F, hi: F, n: usize) -> Option<Vec<F>> {
    let (a, b) = (lo.to_f64(), hi.to_f64());
    let w = b - a;
    let v: Vec<F> = (0..=n)
        .map(|i| match i {
            0 => lo,
            i if i == n => hi,
            i => {
                let s = i as f64 / n as f64;
                // `w` overflows only for f64 bounds of opposite signs beyond half the range.
                F::from_f64(if w.is_finite() {
                    a + w * s
                } else {
                    a * (1.0 - s) + b * s
                })
            }
        })
        .collect();
    v.windows(2).all(|p| p[0] < p[1]).then_some(v)
}

impl<F: Real> Grid<F> {
    /// The grid of `nx × ny` cells over `rect`.
    ///
    /// Errors ([`Error::InvalidArgument`]) when a count is zero or above
    /// [`MAX_CELLS_PER_AXIS`], when the rect has zero width or height, or when the cells are too
    /// narrow for `F` (the rounded boundaries would not strictly increase).
    pub fn new(rect: Rect<F>, nx: usize, ny: usize) -> Result<Self, Error> {
        let axis = |name: &str, n: usize, lo: F, hi: F| -> Result<Vec<F>, Error> {
            if n == 0 || n > MAX_CELLS_PER_AXIS {
                return Err(Error::InvalidArgument(format!(
                    "{name} = {n} cells: expected 1 to {MAX_CELLS_PER_AXIS}"
                )));
            }
            if lo >= hi {
                return Err(Error::InvalidArgument(format!(
                    "the grid has no extent along {}: {lo} to {hi}",
                    &name[1..]
                )));
            }
            boundaries(lo, hi, n).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{name} = {n} cells between {lo} and {hi} are too narrow for {}: \
                     their boundaries would not increase",
                    F::DTYPE
                ))
            })
        };
        let xs = axis("nx", nx, rect.xmin(), rect.xmax())?;
        let ys = axis("ny", ny, rect.ymin(), rect.ymax())?;
        Ok(Grid {
            rect,
            xs64: Lines64::new(&xs),
            ys64: Lines64::new(&ys),
            xy: xs.iter().chain(&ys).copied().collect(),
            xs,
            ys,
        })
    }

    /// The rect the grid covers.
    pub fn rect(&self) -> &Rect<F> {
        &self.rect
    }

    /// Cells along x.
    pub fn nx(&self) -> usize {
        self.xs.len() - 1
    }

    /// Cells along y.
    pub fn ny(&self) -> usize {
        self.ys.len() - 1
    }

    /// The `nx + 1` shared x boundaries, strictly increasing, from `xmin` to `xmax` exactly.
    pub fn xs(&self) -> &[F] {
        &self.xs
    }

    /// The `ny + 1` shared y boundaries.
    pub fn ys(&self) -> &[F] {
        &self.ys
    }

    /// The closed rect of cell `(ix, iy)`. Panics when the cell is not in the grid.
    pub fn cell(&self, ix: usize, iy: usize) -> Rect<F> {
        // The boundary lists were checked finite and increasing when the grid was made.
        Rect::from_checked(self.xs[ix], self.ys[iy], self.xs[ix + 1], self.ys[iy + 1])
    }

    /// The clip of `seg` against cell `(ix, iy)` as the grid cuts it: SPEC §1's clip, and a
    /// sliver near the segment's end that §1's graze allowance would drop kept (see the
    /// [module docs](self), "Slivers"). Every piece [`Grid::pieces`] gives is this clip, bit for
    /// bit. Panics when the cell is not in the grid.
    pub fn cell_clip(&self, ix: usize, iy: usize, seg: &Segment<F>) -> Clip<F> {
        self.clip_in(&self.cell(ix, iy), seg)
    }

    /// [`Grid::cell_clip`] with the cell's rect at hand.
    #[inline]
    fn clip_in(&self, cell: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        let r = RectLanes::splat(cell);
        Clip::from_finished(keep_slivers(&r, seg, slab_clip(&r, seg)))
    }

    /// The clipped segment of `piece` (of segment `seg`): `P(t_entry) → P(t_exit)` with SPEC §1's
    /// guarantees against its cell. An endpoint inside comes back bit for bit, an endpoint cut by
    /// a grid line has exactly that line's boundary value as one coordinate, and every point lies
    /// in the closed cell, so the pieces of a segment drawn end to end meet exactly.
    pub fn piece_segment(&self, piece: &Piece<F>, seg: &Segment<F>) -> Segment<F> {
        let cell = self.cell(piece.ix as usize, piece.iy as usize);
        self.clip_in(&cell, seg).segment(&cell, seg)
    }

    /// [`Grid::piece_segment`] when the axes of the lines its cut ends lie on are known to be
    /// the slab's own ([`Clip::entry_axis`], [`Clip::exit_axis`]; either is free where its end
    /// is not cut): the same bits with no clip run again.
    pub(crate) fn piece_segment_on(
        &self,
        piece: &Piece<F>,
        seg: &Segment<F>,
        (entry_axis, exit_axis): (Axis, Axis),
    ) -> Segment<F> {
        let cell = self.cell(piece.ix as usize, piece.iy as usize);
        let clip = Clip {
            t_entry: piece.t_entry,
            t_exit: piece.t_exit,
            class: piece.class,
            entry_axis,
            exit_axis,
        };
        clip.segment(&cell, seg)
    }

    /// Every piece of every segment of `input`, segment by segment, each segment's in order
    /// along it (see the [module docs](self)).
    ///
    /// Large batches are split into fixed blocks over rayon's current pool; the list is the same
    /// at any thread count. A caller that cuts a batch every step keeps the memory from one
    /// call to the next with [`Grid::pieces_into_blocks`].
    pub fn pieces<S: SegmentSource<F> + ?Sized>(
        &self,
        input: &S,
        options: &GridOptions,
    ) -> Vec<Piece<F>> {
        let n = input.len();
        if n <= BLOCK || crate::threads::available() < 2 {
            let mut out = Vec::new();
            self.pieces_into(input, 0..n, options, &mut out);
            return out;
        }
        let mut blocks = PieceBlocks::new();
        self.pieces_into_blocks(input, options, &mut blocks);
        blocks.to_vec()
    }

    /// The pieces of segments `range` of `input`, on this thread, appended to `out` (with the
    /// segments' indices in `input`).
    ///
    /// # Panics
    ///
    /// When `range` reaches beyond `input`.
    pub fn pieces_into<S: SegmentSource<F> + ?Sized>(
        &self,
        input: &S,
        range: core::ops::Range<usize>,
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) {
        F::grid_pieces(self, Batch::of(&input), range, options, out);
    }

    /// [`Grid::pieces_into`] itself, compiled once per precision (`simd::entries`).
    pub(crate) fn pieces_batch(
        &self,
        input: &Batch<'_, F>,
        range: core::ops::Range<usize>,
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) {
        let mut scratch = Scratch::default();
        if self.xy.len() > INDEX_BITS as usize {
            // Too many lines for indices in float lanes: one segment at a time.
            for i in range {
                self.pieces_alone(i, &input.segment(i), options, &mut scratch, out);
            }
            return;
        }
        dispatch!(I => self.pieces_lanes::<F::Simd<I>, _>(input, range, options, &mut scratch, out));
    }

    /// [`Grid::pieces_into`]'s loop on `V` vectors.
    #[inline(always)]
    fn pieces_lanes<V: Vector<F>, S: SegmentSource<F> + ?Sized>(
        &self,
        input: &S,
        range: core::ops::Range<usize>,
        options: &GridOptions,
        scratch: &mut Scratch<F>,
        out: &mut Vec<Piece<F>>,
    ) {
        let mut first = range.start;
        while first < range.end {
            let m = V::WIDTH.min(range.end - first);
            // A whole chunk straight into the lanes (columns: four loads); the last, partial
            // one lane by lane.
            let s = if m == V::WIDTH {
                load_chunk::<F, V, S>(input, first)
            } else {
                gather_chunk::<F, V, S>(input, first, m)
            };
            let walked = self.direct_lanes::<V>(&s, m, &mut scratch.steps);
            for (l, walked) in walked[..m].iter().enumerate() {
                match *walked {
                    Some(n) => direct::append_lane(&scratch.steps, first + l, l, n, out),
                    None => {
                        let seg = input.segment(first + l);
                        self.pieces_alone(first + l, &seg, options, scratch, out)
                    }
                }
            }
            first += m;
        }
    }

    /// The pieces of segment `index` (`s`) by the first path that takes it: the direct walk,
    /// the walk, or the general path.
    fn pieces_alone(
        &self,
        index: usize,
        s: &Segment<F>,
        options: &GridOptions,
        scratch: &mut Scratch<F>,
        out: &mut Vec<Piece<F>>,
    ) {
        if !self.direct(index, s, &mut scratch.direct, out)
            && !self.walk(index, s, options, &mut scratch.walk, out)
        {
            self.candidates(index, s, &mut scratch.general);
            scratch.general.clip_into(self, options, out);
        }
    }

    /// The pieces of one segment (numbered `0`), in order along it.
    pub fn segment_pieces(&self, seg: &Segment<F>, options: &GridOptions) -> Vec<Piece<F>> {
        let mut out = Vec::new();
        self.pieces_into(core::slice::from_ref(seg), 0..1, options, &mut out);
        out
    }

    /// Appends to `c` every cell the clip of `seg` can reach (a superset of its pieces' cells),
    /// column by column along the major axis.
    fn candidates(&self, index: usize, seg: &Segment<F>, c: &mut Candidates<F>) {
        if !seg.is_finite() {
            return;
        }
        let p = [seg.x0, seg.y0, seg.x1, seg.y1].map(Real::to_f64);
        let r = &self.rect;
        let (mut t0, mut t1) = (0.0, 1.0);
        if !(r.contains(seg.x0, seg.y0) && r.contains(seg.x1, seg.y1)) {
            // With the slivers: a cell's sliver lies in the grid rect's own sliver or clip.
            let lanes = RectLanes::splat(r);
            let clip = keep_slivers(&lanes, seg, slab_clip(&lanes, seg));
            if !clip.hit {
                return;
            }
            (t0, t1) = (clip.t_entry.to_f64(), clip.t_exit.to_f64());
        }
        // The margin: 64 ulps of F at the magnitude of the coordinates and the grid, far beyond
        // the clip's rounding (6 ulps of t) and this sweep's own.
        let eps = (F::ONE.next_up() - F::ONE).to_f64();
        let scale = p
            .iter()
            .chain(&[r.xmin(), r.ymin(), r.xmax(), r.ymax()].map(Real::to_f64))
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let pad = 64.0 * eps * scale;
        let (dx, dy) = (0.5 * p[2] - 0.5 * p[0], 0.5 * p[3] - 0.5 * p[1]);
        let x_major = dx.abs() >= dy.abs();
        let sweep = if x_major {
            Sweep {
                a: (p[0], p[2]),
                b: (p[1], p[3]),
                lines_a: &self.xs64,
                lines_b: &self.ys64,
            }
        } else {
            Sweep {
                a: (p[1], p[3]),
                b: (p[0], p[2]),
                lines_a: &self.ys64,
                lines_b: &self.xs64,
            }
        };
        c.start(index, seg);
        sweep.run(t0, t1, pad, |ia, ib| {
            let (ix, iy) = if x_major { (ia, ib) } else { (ib, ia) };
            c.push(ix, iy);
        });
    }
}

/// Segments per rayon block: the list does not depend on the thread count because blocks are
/// fixed and concatenated in order.
const BLOCK: usize = 4096;

/// A segment swept along its major axis `a` (the one it moves most along), `b` the other.
struct Sweep<'a> {
    a: (f64, f64),
    b: (f64, f64),
    lines_a: &'a Lines64,
    lines_b: &'a Lines64,
}

impl Sweep<'_> {
    /// Calls `visit(ia, ib)` for every cell within `pad` of the part `[t0, t1]` of the segment:
    /// columns in the direction of travel, and in each column the rows in the direction of
    /// travel.
    ///
    /// The arithmetic is on halved coordinates, so that no difference of two finite `f64`s
    /// overflows (a segment across most of the `f64` range has `a1 − a0 = ∞`, which made every
    /// column's rows those of `b0`); halving is exact here, since the pad dwarfs a subnormal's
    /// lost bit.
    #[inline(always)]
    fn run(&self, t0: f64, t1: f64, pad: f64, mut visit: impl FnMut(u32, u32)) {
        let (a0, a1) = self.a;
        let (b0, b1) = self.b;
        let (ha, hb) = (0.5 * a1 - 0.5 * a0, 0.5 * b1 - 0.5 * b0);
        let at = |t: f64, v0: f64, v1: f64, h: f64| {
            if t == 0.0 {
                v0
            } else if t == 1.0 {
                v1
            } else {
                v0 + t * h + t * h
            }
        };
        let (s, e) = (at(t0, a0, a1, ha), at(t1, a0, a1, ha));
        let (amin, amax) = (s.min(e), s.max(e));
        let slope = if ha == 0.0 { 0.0 } else { hb / ha };
        let b_at = |a: f64| {
            let h = (0.5 * a - 0.5 * a0) * slope;
            b0 + h + h
        };
        let (da, db) = (ha, hb);
        let (first, last) = (
            first_cell(self.lines_a, amin - pad),
            last_cell(self.lines_a, amax + pad),
        );
        let mut column = |ia: usize| {
            let lo = self.lines_a.v[ia].clamp(amin, amax);
            let hi = self.lines_a.v[ia + 1].clamp(amin, amax);
            let (u, v) = (b_at(lo), b_at(hi));
            let (bmin, bmax) = (u.min(v), u.max(v));
            let (r0, r1) = (
                first_cell(self.lines_b, bmin - pad),
                last_cell(self.lines_b, bmax + pad),
            );
            if db >= 0.0 {
                (r0..=r1).for_each(|ib| visit(ia as u32, ib as u32));
            } else {
                (r0..=r1).rev().for_each(|ib| visit(ia as u32, ib as u32));
            }
        };
        if da >= 0.0 {
            (first..=last).for_each(&mut column);
        } else {
            (first..=last).rev().for_each(&mut column);
        }
    }
}

/// A first guess at the cell holding `v` from the even spacing, clamped to the grid.
#[inline(always)]
fn guess(lines: &Lines64, v: f64) -> usize {
    let n = lines.v.len() - 1;
    let g = ((v - lines.v[0]) * lines.per_unit) as isize; // saturating; NaN gives 0
    g.clamp(0, n as isize - 1) as usize
}

/// The first cell whose closed interval reaches up to `v` (`lines[i + 1] ≥ v`), or the last.
#[inline(always)]
fn first_cell(axis: &Lines64, v: f64) -> usize {
    let lines = &axis.v;
    let n = lines.len() - 1;
    let mut i = guess(axis, v);
    while i > 0 && lines[i] >= v {
        i -= 1;
    }
    while i + 1 < n && lines[i + 1] < v {
        i += 1;
    }
    i
}

/// The last cell whose closed interval reaches down to `v` (`lines[i] ≤ v`), or the first.
#[inline(always)]
fn last_cell(axis: &Lines64, v: f64) -> usize {
    let lines = &axis.v;
    let n = lines.len() - 1;
    let mut i = guess(axis, v);
    while i + 1 < n && lines[i + 1] <= v {
        i += 1;
    }
    while i > 0 && lines[i] > v {
        i -= 1;
    }
    i
}

/// Candidate (segment, cell) pairs: each segment once, and the cells to clip it against.
#[derive(Default)]
struct Candidates<F> {
    /// The segments with candidates: index in the batch, coordinates.
    segs: Vec<(usize, Segment<F>)>,
    /// (position in `segs`, ix, iy).
    cells: Vec<(u32, u32, u32)>,
}

impl<F: Real> Candidates<F> {
    fn len(&self) -> usize {
        self.cells.len()
    }

    /// Starts the candidates of segment `index`.
    #[inline(always)]
    fn start(&mut self, index: usize, s: &Segment<F>) {
        self.segs.push((index, *s));
    }

    /// A candidate cell of the last segment started.
    #[inline(always)]
    fn push(&mut self, ix: u32, iy: u32) {
        self.cells.push((self.segs.len() as u32 - 1, ix, iy));
    }

    /// Clips every candidate against its cell, `LANES` at a time with the crate's slab and
    /// finishing step, appends the pieces the options keep to `out`, puts each segment's pieces
    /// in order, and empties the list.
    fn clip_into(&mut self, grid: &Grid<F>, options: &GridOptions, out: &mut Vec<Piece<F>>) {
        dispatch!(I => self.clip_lanes::<F::Simd<I>>(grid, options, out))
    }

    /// [`Candidates::clip_into`] on `V` vectors.
    #[inline(always)]
    fn clip_lanes<V: Vector<F>>(
        &mut self,
        grid: &Grid<F>,
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) {
        let n = self.len();
        if n == 0 {
            self.segs.clear();
            return;
        }
        let start = out.len();
        let (mut te, mut tx, mut code) = ([F::ZERO; 16], [F::ZERO; 16], [0u8; 16]);
        let (nx, ny) = (grid.nx(), grid.ny());
        let mut g = [[F::ZERO; 16]; 8];
        for k in (0..n).step_by(V::WIDTH) {
            // Gather the lanes (the last chunk padded with copies of the last candidate, whose
            // answers are not read).
            for l in 0..V::WIDTH {
                let (si, ix, iy) = self.cells[(k + l).min(n - 1)];
                let s = &self.segs[si as usize].1;
                let (i, j) = (ix as usize, iy as usize);
                let v = [
                    s.x0,
                    s.y0,
                    s.x1,
                    s.y1,
                    grid.xs[i],
                    grid.ys[j],
                    grid.xs[i + 1],
                    grid.ys[j + 1],
                ];
                for (col, v) in g.iter_mut().zip(v) {
                    col[l] = v;
                }
            }
            let s = Segment {
                x0: V::load(&g[0]),
                y0: V::load(&g[1]),
                x1: V::load(&g[2]),
                y1: V::load(&g[3]),
            };
            let r = RectLanes {
                xmin: V::load(&g[4]),
                ymin: V::load(&g[5]),
                xmax: V::load(&g[6]),
                ymax: V::load(&g[7]),
            };
            let f = keep_slivers(&r, &s, slab_clip(&r, &s));
            let codes = Class::code_lanes(f.valid, f.t_entry, f.t_exit);
            f.t_entry.write(&mut te);
            f.t_exit.write(&mut tx);
            write_as(codes, &mut code, |v| v.to_bits_u64() as u8);
            for l in 0..V::WIDTH.min(n - k) {
                let class = match code[l] {
                    0 | 255 => continue,
                    5 if !options.touches => continue,
                    c => Class::from_code(c).unwrap_or(Class::Invalid),
                };
                let (si, ix, iy) = self.cells[k + l];
                let (segment, s) = self.segs[si as usize];
                if options.lines == Lines::HalfOpen {
                    // On an interior line x = xs[ix + 1] (dx == 0): the column to its right owns
                    // it; likewise the row above a line y = ys[iy + 1].
                    let (i, j) = (ix as usize, iy as usize);
                    let right = s.x0 == s.x1 && s.x0 == grid.xs[i + 1] && i + 1 < nx;
                    let top = s.y0 == s.y1 && s.y0 == grid.ys[j + 1] && j + 1 < ny;
                    if right || top {
                        continue;
                    }
                }
                out.push(Piece {
                    segment,
                    ix,
                    iy,
                    t_entry: te[l],
                    t_exit: tx[l],
                    class,
                });
            }
        }
        sort_along(&mut out[start..], nx);
        self.segs.clear();
        self.cells.clear();
    }
}

/// Sorts by (segment, t_entry, t_exit, cell index). The standard stable sort: linear on the
/// walk's and the sweep's output, which is in this order but for runs of ties near vertices,
/// and `n log n` at worst (an insertion sort would be quadratic on a long run of ties: a segment
/// whose million crossings of a grid far finer than its `t` resolution round to one parameter
/// comes out in reverse cell order). Pieces are hits, so their parameters are not NaN.
fn sort_along<F: Real>(p: &mut [Piece<F>], nx: usize) {
    let key = |q: &Piece<F>| {
        (
            q.segment,
            q.t_entry,
            q.t_exit,
            q.iy as usize * nx + q.ix as usize,
        )
    };
    p.sort_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(core::cmp::Ordering::Equal)
    });
}

/// SPEC §7's rule for grids: `f`, the §1 clip of `s` against cell `r`, with the slivers kept.
///
/// §1 lets a clip drop a graze whose rounded entry is at or above `1 − 2ε` when both ends are
/// outside. In a grid that can open a hole: where a segment ends a few ulps from a grid vertex,
/// the cell it crosses just before its end's cell may have a rounded interval `[e, x]` with
/// `1 − 2ε ≤ e < x < 1`, between its neighbours' pieces, which end at `e` and start at `x`.
/// Such a cell is kept as a `Crosses` piece over `[e, x]`, so consecutive pieces share their
/// parameter. A cell is a sliver when the clip misses it, its rounded interval has positive
/// length, and `P1` is not short of a bound the segment enters the cell through (a cell beyond
/// `P1`, whose interval rounding stretched over the last ulps before 1, is no sliver: the end's
/// cell already reaches 1). The cell's rounded parameters are the ones its neighbours share
/// (`hit_t`: the walk, the sweep and the slab clip give them the same bits).
#[inline(always)]
pub(crate) fn keep_slivers<L: Lane>(
    r: &RectLanes<L>,
    s: &Segment<L>,
    f: Finished<L>,
) -> Finished<L> {
    let (e, x) = f.hit_t;
    let maybe = f.valid & !f.hit & e.lt(x);
    if !L::any(maybe) {
        return f;
    }
    let short = (s.x0.lt(s.x1) & s.x1.lt(r.xmin))
        | (s.x1.lt(s.x0) & r.xmax.lt(s.x1))
        | (s.y0.lt(s.y1) & s.y1.lt(r.ymin))
        | (s.y1.lt(s.y0) & r.ymax.lt(s.y1));
    let sliver = maybe & !short;
    Finished {
        t_entry: L::select(sliver, e, f.t_entry),
        t_exit: L::select(sliver, x, f.t_exit),
        hit: f.hit | sliver,
        ..f
    }
}
