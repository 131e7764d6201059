//! The fast path of [`Grid::pieces`]: an Amanatides–Woo walk over the boundary parameters the
//! per-cell clip itself computes, for segments with `dx` and `dy` both nonzero and in
//! [`in_range`] (every other segment goes through the candidate sweep of `grid.rs`).
//!
//! For such a segment the clip of cell `(ix, iy)` is `slab_raw_fast`: with `r = 1/delta`,
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
//! pieces are then put in the documented order by the same insertion sort as the sweep's.

use super::{sort_along, Grid, GridOptions, Piece};
use crate::geom::{Class, Segment};
use crate::kernels::contract::{delta, finish, finish_known, in_range, slab, Raw, RectLanes};
use crate::real::Real;

/// Reused buffers: the parameters of the lines one segment's walk meets, per axis, in the order
/// it meets them, each with its clamped value `c(t)`.
#[derive(Default)]
pub(super) struct Scratch<F> {
    tx: Vec<(F, F)>,
    ty: Vec<(F, F)>,
}

/// One axis of a segment: its lines' parameters `t(k) = (lines[k] − p0)·r`.
struct Axis<'a, F> {
    lines: &'a [F],
    p0: F,
    r: F,
    /// Cells along the axis.
    n: usize,
    /// `r > 0`: the segment meets the lines in increasing `k`.
    up: bool,
}

impl<F: Real> Axis<'_, F> {
    /// The parameter of the `m`-th line met (`m` in `0..=n`).
    #[inline(always)]
    fn t(&self, m: usize) -> F {
        let k = if self.up { m } else { self.n - m };
        (self.lines[k] - self.p0) * self.r
    }

    /// The cell between the `m`-th and the `(m+1)`-th line met.
    #[inline(always)]
    fn cell(&self, m: usize) -> usize {
        if self.up {
            m
        } else {
            self.n - 1 - m
        }
    }

    /// The first cell (as `m`, in the order met) whose parameter interval reaches `[0, 1]`
    /// (`t(m+1) ≥ 0` and `t(m) ≤ 1`) with `t(m)` and `t(m+1)`, or `None`; `g` is a guess.
    #[inline(always)]
    fn first(&self, g: usize) -> Option<(usize, F, F)> {
        let (zero, one) = (F::ZERO, F::ONE);
        let mut m = g;
        while m > 0 && self.t(m) >= zero {
            m -= 1;
        }
        while m + 1 < self.n && self.t(m + 1) < zero {
            m += 1;
        }
        let (t0, t1) = (self.t(m), self.t(m + 1));
        (zero <= t1 && t0 <= one).then_some((m, t0, t1))
    }

    /// Whether the cell after `m`, whose lower parameter is `t1 = t(m+1)`, reaches `[0, 1]`.
    #[inline(always)]
    fn more(&self, m: usize, t1: F) -> bool {
        m + 1 < self.n && t1 <= F::ONE
    }

    /// The cells (as `m`, in the order met) whose parameter interval reaches `[0, 1]`, from
    /// the first with `t(m+1) ≥ 0` to the last with `t(m) ≤ 1`: returns the first, and leaves in
    /// `buf` the `(t, c(t))` of their bounding lines in the order met (one more than cells), each
    /// computed once; `None` when there is no such cell. `g` is a guess for the first.
    #[inline(always)]
    fn lines(&self, g: usize, buf: &mut Vec<(F, F)>) -> Option<usize> {
        let (zero, one) = (F::ZERO, F::ONE);
        let n = self.n;
        let mut m = g;
        while m > 0 && self.t(m) >= zero {
            m -= 1;
        }
        while m + 1 < n && self.t(m + 1) < zero {
            m += 1;
        }
        let (t0, t1) = (self.t(m), self.t(m + 1));
        if t1 < zero || t0 > one {
            return None;
        }
        let c = |t: F| (t, t.min_any(F::ONE_BELOW));
        buf.clear();
        buf.push(c(t0));
        buf.push(c(t1));
        // Line `j` is the last one written; cell `j` is in while `j < n` and `t(j) ≤ 1`.
        let (mut j, mut t) = (m + 1, t1);
        while j < n && t <= one {
            j += 1;
            t = self.t(j);
            buf.push(c(t));
        }
        Some(m)
    }
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
    #[inline]
    pub(super) fn walk(
        &self,
        index: usize,
        s: &Segment<F>,
        options: &GridOptions,
        scratch: &mut Scratch<F>,
        out: &mut Vec<Piece<F>>,
    ) -> bool {
        let zero = F::ZERO;
        let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
        if !(in_range(dx) && in_range(dy)) || dx == zero || dy == zero {
            return false;
        }
        // `axis_t`'s reciprocal: `1/d` with the same operands, hence the same bits.
        let (rx, ry) = (F::ONE / dx, F::ONE / dy);
        let ax = Axis {
            lines: &self.xs,
            p0: s.x0,
            r: rx,
            n: self.nx(),
            up: zero < rx,
        };
        let ay = Axis {
            lines: &self.ys,
            p0: s.y0,
            r: ry,
            n: self.ny(),
            up: zero < ry,
        };
        let start = out.len();
        if !self.merge(index, s, (&ax, &ay), options, out) {
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

    /// The walk as a merge of the two axes' lines, each parameter computed when the walk reaches
    /// its line: appends the cells' pieces in walk order and returns `true`, or returns `false`
    /// at the first tie between compared (clamped) parameters, where the merge alone would not
    /// list every cell sharing the tied point.
    ///
    /// Without ties every compared parameter is distinct, two closed intervals meet exactly when
    /// their interiors do, and the merge lists those pairs: the staircase's cells, in order. The
    /// one tie it settles itself is the usual end: both intervals reach past 1 (clamped to
    /// `1 − ε/2`) and neither axis has a cell left in range.
    #[inline(always)]
    fn merge(
        &self,
        index: usize,
        s: &Segment<F>,
        (ax, ay): (&Axis<'_, F>, &Axis<'_, F>),
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) -> bool {
        let (one, below) = (F::ONE, F::ONE_BELOW);
        let c = |t: F| t.min_any(below);
        let Some((mut m, mut xa, mut xb)) = ax.first(guess_met(&self.xs64, s.x0, ax.up)) else {
            return true;
        };
        let Some((mut k, mut ya, mut yb)) = ay.first(guess_met(&self.ys64, s.y0, ay.up)) else {
            return true;
        };
        // To the first pair of intervals that meet; none: no cell can be a hit.
        loop {
            if c(xb) < c(ya) {
                if !ax.more(m, xb) {
                    return true;
                }
                m += 1;
                (xa, xb) = (xb, ax.t(m + 1));
            } else if c(yb) < c(xa) {
                if !ay.more(k, yb) {
                    return true;
                }
                k += 1;
                (ya, yb) = (yb, ay.t(k + 1));
            } else {
                break;
            }
        }
        let (xl, yl) = (c(xa), c(ya));
        if xl == yl || c(xb) == yl || c(yb) == xl || xl == c(xb) || yl == c(yb) {
            return false;
        }
        loop {
            let ix = ax.cell(m);
            let iy = ay.cell(k);
            let tx = if ax.up { (xa, xb) } else { (xb, xa) };
            let ty = if ay.up { (ya, yb) } else { (yb, ya) };
            self.finish_cell(index, s, (ix, iy), tx, ty, options, out);
            let (xh, yh) = (c(xb), c(yb));
            if xh < yh {
                if !ax.more(m, xb) {
                    return true;
                }
                m += 1;
                (xa, xb) = (xb, ax.t(m + 1));
                if c(xb) == xh {
                    return false;
                }
            } else if yh < xh {
                if !ay.more(k, yb) {
                    return true;
                }
                k += 1;
                (ya, yb) = (yb, ay.t(k + 1));
                if c(yb) == yh {
                    return false;
                }
            } else {
                // Both past 1 (so clamped onto each other) with no cell left: the end.
                return one < xb && one < yb;
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
        let Some(col0) = ax.lines(guess_met(&self.xs64, s.x0, ax.up), &mut scratch.tx) else {
            return;
        };
        let Some(row0) = ay.lines(guess_met(&self.ys64, s.y0, ay.up), &mut scratch.ty) else {
            return;
        };
        let (tx, ty) = (&scratch.tx[..], &scratch.ty[..]);
        let (cx, cy) = (tx.len() - 1, ty.len() - 1);
        let mut n = 0;
        for m in 0..cx {
            let ((t0, a_lo), (t1, a_hi)) = (tx[m], tx[m + 1]);
            while n + 1 < cy && ty[n + 1].1 < a_lo {
                n += 1;
            }
            let ix = ax.cell(col0 + m);
            // The column's parameters in grid order (lower line first), as `axis_t` gives them.
            let tx_cell = if ax.up { (t0, t1) } else { (t1, t0) };
            let mut k = n;
            while k < cy && ty[k].1 <= a_hi {
                let ((u0, _), (u1, c1)) = (ty[k], ty[k + 1]);
                if a_lo <= c1 {
                    let iy = ay.cell(row0 + k);
                    let ty_cell = if ay.up { (u0, u1) } else { (u1, u0) };
                    self.finish_cell(index, s, (ix, iy), tx_cell, ty_cell, options, out);
                }
                k += 1;
            }
        }
    }

    /// The clip of `s` against cell `(ix, iy)` from its lines' parameters (grid order), as
    /// `slab_raw_fast` and `finish` make it; appended to `out` when it is a piece the options
    /// keep.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn finish_cell(
        &self,
        index: usize,
        s: &Segment<F>,
        (ix, iy): (usize, usize),
        tx: (F, F),
        ty: (F, F),
        options: &GridOptions,
        out: &mut Vec<Piece<F>>,
    ) {
        let raw = Raw::from_slabs(slab(tx), slab(ty), F::ONE, true);
        let cell = || RectLanes {
            xmin: self.xs[ix],
            ymin: self.ys[iy],
            xmax: self.xs[ix + 1],
            ymax: self.ys[iy + 1],
        };
        // A cell holding `P0` has raw entry 0, one holding `P1` raw exit `≥ 1 − ε/2` (module
        // docs): between them, neither endpoint is in the cell and `finish` needs no compare.
        let (t_entry, t_exit, class) = if F::ZERO < raw.entry && raw.exit < F::ONE_BELOW {
            let f = finish_known(cell, s, raw, false, false);
            // Neither end in the cell: `Crosses`, or `Touches` when the two are equal.
            let class = if f.t_entry == f.t_exit {
                Class::Touches
            } else {
                Class::Crosses
            };
            (f.t_entry, f.t_exit, class)
        } else {
            let f = finish(&cell(), s, raw);
            (f.t_entry, f.t_exit, Class::of(true, f.t_entry, f.t_exit))
        };
        // A miss is NaN (and `Outside`).
        if !t_entry.eq_(t_entry) || (class == Class::Touches && !options.touches) {
            return;
        }
        out.push(Piece {
            segment: index,
            ix: ix as u32,
            iy: iy as u32,
            t_entry,
            t_exit,
            class,
        });
    }
}
