//! The walk of [`Grid::pieces`] for one segment: an Amanatides–Woo merge of the two axes' lines
//! (a staircase where two compared parameters tie) over the boundary parameters the per-cell clip
//! itself computes, for segments with `dx` and `dy` both nonzero and in [`in_range`] (every other
//! segment goes through the candidate sweep of `grid.rs`) that the direct walk
//! (`grid/direct.rs`) does not take: an end on a grid line, or crossings that tie.
//!
//! For such a segment the clip of cell `(ix, iy)` is the slab clip (`slab::slab_clip`, whose
//! answers `contract::finish_slab` on the raw slab gives too): with `r = 1/delta`,
//!
//! ```text
//! tx(k) = (xs[k] − x0)·rx    ty(k) = (ys[k] − y0)·ry        one value per grid line
//! raw   = Raw::from_slabs(slab(tx(ix), tx(ix+1)), slab(ty(iy), ty(iy+1)), 1, valid)
//! piece = finish(cell, segment, raw)
//! ```
//!
//! Here each `tx(k)`, `ty(k)` is computed once, by that very expression, and the cell's `Raw` and
//! `finish` are the crate's own functions on scalar lanes: a piece is the clip bit for bit.
//!
//! Which cells to finish: rounding is monotone and `r` is fixed, so `tx(k)` is monotone in `k`
//! and the lines' parameters, taken in the order the segment meets them, tile the `t` axis into
//! one closed interval per column (likewise per row). A cell with both ends of the segment
//! outside is a hit only if its raw `entry = max(near_x, near_y, 0) ≤ exit = min(far_x, far_y,
//! 1)`, i.e. its column's and its row's intervals and `[0, 1]` share a point `p`. A cell holding
//! `P0` has `0` in both its intervals (the signs of `xs[k] − x0` are exact). A cell holding `P1`
//! has `tx(lo) ≤ 1` and `tx(hi) ≥ 1 − ε/2` (`fl(d·fl(1/d))` is `1` or `1 − ε/2`), likewise in y,
//! but its two intervals may miss each other by that one float: so the walk compares the
//! parameters clamped to `c(t) = min(t, 1 − ε/2)`, which keeps their order, keeps every shared
//! point `p ∈ [0, 1]` (as `c(p)`), and gives the `P1` cell the shared point `1 − ε/2`.
//!
//! The walk visits every column `m` (in the order met) with `t(m+1) ≥ 0` and `t(m) ≤ 1`, and in
//! it the rows whose clamped interval meets the column's: a staircase, each cell once, so its
//! cost grows with the pieces, not with `nx × ny`. Cells it lists in excess (a corner passed at a
//! distance of a few ulps, cells around `P1`) are misses to `finish` and dropped; ties (a vertex,
//! where the two cells beside it get `Touches` pieces) come out in walk order and the segment's
//! pieces are then put in the documented order by the same sort as the sweep's.

use super::{sort_along, Grid, GridOptions, Piece};
use crate::geom::{Class, Segment};
use crate::kernels::contract::{
    delta, finish_known, in_range, line_t, slab, Finished, Raw, RectLanes,
};
use crate::real::{Lane, Real};

/// `c(t) = min(t, 1 − ε/2)`: the parameters the merge and the staircase compare (module docs),
/// on floats or on lanes.
#[inline(always)]
fn clamp_below_one<L: Lane>(t: L) -> L {
    t.min_any(L::splat(L::Scalar::ONE_BELOW))
}

/// How the merge ends before its last cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MergeEnd {
    /// No cell is left: the walk is done.
    Done,
    /// Two compared parameters are equal: the staircase takes the segment.
    Tie,
}

/// Reused buffers: the parameters of the lines one segment's walk meets, per axis, in the order
/// it meets them, each with its clamped value `c(t)`.
#[derive(Default)]
pub(super) struct Scratch<F> {
    tx: Vec<(F, F)>,
    ty: Vec<(F, F)>,
}

/// One axis of a segment: its lines' parameters `t(k) = (lines[k] − p0)·r`.
struct Axis<'a, F> {
    pub lines: &'a [F],
    pub p0: F,
    pub r: F,
    /// Cells along the axis.
    pub n: usize,
    /// `r > 0`: the segment meets the lines in increasing `k`.
    pub up: bool,
}

impl<F: Real> Axis<'_, F> {
    /// The parameter of the `m`-th line met (`m` in `0..=n`).
    #[inline(always)]
    pub fn t(&self, m: usize) -> F {
        let k = if self.up { m } else { self.n - m };
        line_t(self.lines[k], self.p0, self.r)
    }

    /// The cell between the `m`-th and the `(m+1)`-th line met.
    #[inline(always)]
    pub fn cell(&self, m: usize) -> usize {
        if self.up {
            m
        } else {
            self.n - 1 - m
        }
    }

    /// The first cell (as `m`, in the order met) whose parameter interval reaches `[floor, 1]`
    /// (`t(m+1) ≥ floor` and `t(m) ≤ 1`, that is `t(m) ≤ ONE_REACH` rounded: a line through
    /// `P1` may round above 1) with `t(m)` and `t(m+1)`, or `None`; `g` is a guess. `floor` is
    /// at least 0: where the segment enters the grid's rect ([`Grid::floor`]), so that cells
    /// passed beside the grid cost nothing. A guess that is off (a segment starting far
    /// outside) is mended by bisection, not by a walk along the lines.
    #[inline(always)]
    pub fn first(&self, g: usize, floor: F) -> Option<(usize, F, F)> {
        let reach = F::ONE_REACH;
        let before = |m: usize| self.t(m + 1) < floor;
        let fits = |m: usize| !before(m) && (m == 0 || before(m - 1));
        let m = if fits(g) {
            g
        } else {
            super::direct::partition(self.n - 1, before)
        };
        let (t0, t1) = (self.t(m), self.t(m + 1));
        (floor <= t1 && t0 <= reach).then_some((m, t0, t1))
    }

    /// Whether the cell after `m`, whose lower parameter is `t1 = t(m+1)`, reaches `[0, 1]`.
    #[inline(always)]
    pub fn more(&self, m: usize, t1: F) -> bool {
        m + 1 < self.n && t1 <= F::ONE_REACH
    }

    /// The cells (as `m`, in the order met) whose parameter interval reaches `[0, 1]`, from
    /// the first with `t(m+1) ≥ 0` to the last with `t(m) ≤ 1`: returns the first, and leaves in
    /// `buf` the `(t, c(t))` of their bounding lines in the order met (one more than cells), each
    /// computed once; `None` when there is no such cell. `g` is a guess for the first.
    #[inline(always)]
    fn lines(&self, g: usize, floor: F, buf: &mut Vec<(F, F)>) -> Option<usize> {
        let reach = F::ONE_REACH;
        let n = self.n;
        let (m, t0, t1) = self.first(g, floor)?;
        let c = |t: F| (t, clamp_below_one(t));
        buf.clear();
        buf.push(c(t0));
        buf.push(c(t1));
        // Line `j` is the last one written; cell `j` is in while `j < n` and `t(j) ≤ ONE_REACH`.
        let (mut j, mut t) = (m + 1, t1);
        while j < n && t <= reach {
            j += 1;
            t = self.t(j);
            buf.push(c(t));
        }
        Some(m)
    }
}

/// The least parameter a cell's interval must reach to meet the other axis's: where the
/// segment enters the grid's rect, `max(t(first line met) of each axis, 0)`, clamped below 1 as
/// the walk compares. A column whose interval ends before it ends before every row's begins
/// (the rows' lower parameters are at least the first row line's), so the walk would step past
/// it; likewise a row.
#[inline(always)]
fn floor<F: Real>(ax: &Axis<'_, F>, ay: &Axis<'_, F>) -> F {
    clamp_below_one(ax.t(0).max_any(ay.t(0)).max_any(F::ZERO))
}

/// `(1/dx, 1/dy)` of a segment the walks take (`dx` and `dy` nonzero and in [`in_range`]), or
/// `None`: `axis_t`'s reciprocals, with the same operands, hence the same bits.
#[inline(always)]
pub(super) fn reciprocals<F: Real>(s: &Segment<F>) -> Option<(F, F)> {
    let zero = F::ZERO;
    let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
    if !(in_range(dx) && in_range(dy)) || dx == zero || dy == zero {
        return None;
    }
    Some((F::ONE / dx, F::ONE / dy))
}

/// The cell holding `v` from the even spacing (clamped), in the order the walk meets cells.
#[inline(always)]
fn guess_met<F: Real>(grid_axis: &super::Lines64, v: F, up: bool) -> usize {
    let c = super::guess(grid_axis, v.to_f64());
    if up {
        c
    } else {
        grid_axis.v.len() - 2 - c
    }
}

impl<F: Real> Grid<F> {
    /// Appends the pieces of segment `index` (`s`) to `out` by the walk, in order, and returns
    /// `true`; or returns `false`, having written nothing, when the walk does not take the
    /// segment (a coordinate difference zero, NaN, ±∞ or out of [`in_range`]).
    pub(super) fn walk(
        &self,
        index: usize,
        s: &Segment<F>,
        options: &GridOptions,
        scratch: &mut Scratch<F>,
        out: &mut Vec<Piece<F>>,
    ) -> bool {
        let Some((ax, ay)) = self.axes(s) else {
            return false;
        };
        let start = out.len();
        if self.merge(index, s, (&ax, &ay), options, out).is_err() {
            // A tie: the staircase, which takes any.
            out.truncate(start);
            self.staircase(index, s, (&ax, &ay), options, scratch, out);
        }
        // Walk order is the documented order but where entries are equal (a vertex, cells around
        // an endpoint, parameters rounded onto each other); only then the sort.
        let mine = &mut out[start..];
        if !mine.windows(2).all(|p| p[0].t_entry < p[1].t_entry) {
            sort_along(mine, self.nx());
        }
        true
    }

    /// The merge's start: the first column `m` and row `k` (in
    /// the order met) whose parameter intervals reach `[0, 1]`, stepped until the intervals
    /// meet, with their lines' parameters `(m, xa, xb, k, ya, yb)`; or how the merge ends there:
    /// no cell, or a tie among the four parameters (clamped as the merge compares them).
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn merge_start(
        &self,
        s: &Segment<F>,
        ax: &Axis<'_, F>,
        ay: &Axis<'_, F>,
    ) -> Result<(usize, F, F, usize, F, F), MergeEnd> {
        let c = clamp_below_one::<F>;
        let floor = floor(ax, ay);
        let first = |a: &Axis<'_, F>, lines, p0| a.first(guess_met(lines, p0, a.up), floor);
        let (mut m, mut xa, mut xb) = first(ax, &self.xs64, s.x0).ok_or(MergeEnd::Done)?;
        let (mut k, mut ya, mut yb) = first(ay, &self.ys64, s.y0).ok_or(MergeEnd::Done)?;
        // To the first pair of intervals that meet; none: no cell can be a hit.
        loop {
            if c(xb) < c(ya) {
                if !ax.more(m, xb) {
                    return Err(MergeEnd::Done);
                }
                m += 1;
                (xa, xb) = (xb, ax.t(m + 1));
            } else if c(yb) < c(xa) {
                if !ay.more(k, yb) {
                    return Err(MergeEnd::Done);
                }
                k += 1;
                (ya, yb) = (yb, ay.t(k + 1));
            } else {
                break;
            }
        }
        let (xl, yl, xh, yh) = (c(xa), c(ya), c(xb), c(yb));
        if xl == yl || xh == yl || yh == xl || xl == xh || yl == yh {
            return Err(MergeEnd::Tie);
        }
        Ok((m, xa, xb, k, ya, yb))
    }

    /// The merge of the two axes' lines on one segment, each parameter computed when the walk
    /// reaches its line: appends the cells' pieces in walk order, or stops at the first tie
    /// between compared (clamped) parameters, where the merge alone would not list every cell
    /// sharing the tied point.
    fn merge(
        &self,
        index: usize,
        s: &Segment<F>,
        (ax, ay): (&Axis<'_, F>, &Axis<'_, F>),
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) -> Result<(), MergeEnd> {
        let (mut m, mut xa, mut xb, mut k, mut ya, mut yb) = match self.merge_start(s, ax, ay) {
            Err(MergeEnd::Done) => return Ok(()),
            start => start?,
        };
        let c = clamp_below_one::<F>;
        loop {
            self.push_piece(index, s, (ax, m, xa, xb), (ay, k, ya, yb), options, out);
            let (xh, yh) = (c(xb), c(yb));
            if xh < yh {
                if !ax.more(m, xb) {
                    return Ok(());
                }
                m += 1;
                (xa, xb) = (xb, ax.t(m + 1));
                if c(xb) == xh {
                    return Err(MergeEnd::Tie);
                }
            } else if yh < xh {
                if !ay.more(k, yb) {
                    return Ok(());
                }
                k += 1;
                (ya, yb) = (yb, ay.t(k + 1));
                if c(yb) == yh {
                    return Err(MergeEnd::Tie);
                }
            } else if F::ONE_REACH < xb && F::ONE_REACH < yb {
                // Both past 1 (so clamped onto each other) with no cell left: the end.
                return Ok(());
            } else {
                return Err(MergeEnd::Tie);
            }
        }
    }

    /// The walk as a staircase over the lines' parameters (module docs): for each column in
    /// range, the rows whose clamped interval meets the column's. Takes any ties.
    fn staircase(
        &self,
        index: usize,
        s: &Segment<F>,
        (ax, ay): (&Axis<'_, F>, &Axis<'_, F>),
        options: &GridOptions,
        scratch: &mut Scratch<F>,
        out: &mut Vec<Piece<F>>,
    ) {
        let floor = floor(ax, ay);
        let Some(col0) = ax.lines(guess_met(&self.xs64, s.x0, ax.up), floor, &mut scratch.tx)
        else {
            return;
        };
        let Some(row0) = ay.lines(guess_met(&self.ys64, s.y0, ay.up), floor, &mut scratch.ty)
        else {
            return;
        };
        let (tx, ty) = (&scratch.tx[..], &scratch.ty[..]);
        let (cx, cy) = (tx.len() - 1, ty.len() - 1);
        let mut n = 0;
        for m in 0..cx {
            let (a_lo, a_hi) = (tx[m].1, tx[m + 1].1);
            while n + 1 < cy && ty[n + 1].1 < a_lo {
                n += 1;
            }
            let mut k = n;
            while k < cy && ty[k].1 <= a_hi {
                if a_lo <= ty[k + 1].1 {
                    let x = (ax, col0 + m, tx[m].0, tx[m + 1].0);
                    let y = (ay, row0 + k, ty[k].0, ty[k + 1].0);
                    self.push_piece(index, s, x, y, options, out);
                }
                k += 1;
            }
        }
    }

    /// The clip of `s` against the cell of the `m`-th column and `k`-th row met, from their
    /// lines' parameters in the order met ([`cell_clip`]), pushed to `out` when it is a piece
    /// the options keep.
    #[inline(always)]
    fn push_piece(
        &self,
        index: usize,
        s: &Segment<F>,
        (ax, m, xa, xb): (&Axis<'_, F>, usize, F, F),
        (ay, k, ya, yb): (&Axis<'_, F>, usize, F, F),
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) {
        let (ix, iy) = (ax.cell(m), ay.cell(k));
        let f = cell_clip(
            (ax.up, xa, xb),
            (ay.up, ya, yb),
            &self.cell_lanes(ix, iy),
            s,
        );
        let class = Class::of(true, f.t_entry, f.t_exit);
        if f.t_entry.eq_(f.t_entry) && (options.touches || class != Class::Touches) {
            out.push(Piece {
                segment: index,
                ix: ix as u32,
                iy: iy as u32,
                t_entry: f.t_entry,
                t_exit: f.t_exit,
                class,
            });
        }
    }

    /// The two axes of the walk of `s`, or `None` when the walk does not take it (a coordinate
    /// difference zero, NaN, ±∞ or out of [`in_range`]).
    #[inline(always)]
    fn axes(&self, s: &Segment<F>) -> Option<(Axis<'_, F>, Axis<'_, F>)> {
        let (rx, ry) = reciprocals(s)?;
        let axis = |lines, p0, r| Axis {
            lines,
            p0,
            r,
            n: lines.len() - 1,
            up: F::ZERO < r,
        };
        Some((axis(&self.xs[..], s.x0, rx), axis(&self.ys[..], s.y0, ry)))
    }

    /// Cell `(ix, iy)`'s bounds.
    fn cell_lanes(&self, ix: usize, iy: usize) -> RectLanes<F> {
        RectLanes {
            xmin: self.xs[ix],
            ymin: self.ys[iy],
            xmax: self.xs[ix + 1],
            ymax: self.ys[iy + 1],
        }
    }
}

/// The clip of `s` against the cell `r` from the parameters of the cell's lines along each axis
/// in the order the segment meets them, `(up, t(first line met), t(second))`: the raw slab of
/// the slab clip (with the parameters put back in grid order, as `axis_t` gives them) and the
/// finishing step, so bit for bit the clip.
#[inline(always)]
fn cell_clip<L: Lane>(
    (up_x, xa, xb): (L::Mask, L, L),
    (up_y, ya, yb): (L::Mask, L, L),
    r: &RectLanes<L>,
    s: &Segment<L>,
) -> Finished<L> {
    let grid_order = |up: L::Mask, a: L, b: L| (L::select(up, a, b), L::select(up, b, a));
    let one = L::splat(L::Scalar::ONE);
    let yes = one.eq_(one);
    let raw = Raw::from_slabs(
        slab(grid_order(up_x, xa, xb)),
        slab(grid_order(up_y, ya, yb)),
        one,
        yes,
    );
    // A cell holding `P0` has raw entry 0, one holding `P1` raw exit `≥ 1 − ε/2` (module docs):
    // when every lane is between them, no endpoint is in any lane's cell, without a compare.
    let zero = L::splat(L::Scalar::ZERO);
    let between = zero.lt(raw.entry) & raw.exit.lt(L::splat(L::Scalar::ONE_BELOW));
    let (start_in, end_in) = if L::any(!between) {
        (r.contains(s.x0, s.y0), r.contains(s.x1, s.y1))
    } else {
        (!yes, !yes)
    };
    super::keep_slivers(r, s, finish_known(|| *r, s, raw, start_in, end_in))
}
