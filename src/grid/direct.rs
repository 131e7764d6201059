//! The direct walk: the usual segment, neither of whose ends lies on a grid line, cut into its
//! pieces with no finishing step at all — on SIMD lanes for a batch, one segment at a time for
//! the rest.
//!
//! For such a segment every piece's clip is known from the crossings alone. Extend the grid by
//! the virtual cells `−1` and `n` beyond its bounds on each axis; `P0` lies strictly inside one
//! cell `A`, `P1` strictly inside one cell `B` ([`position`]). The lines the segment crosses are
//! the `|ixB − ixA|` x lines and `|iyB − iyA|` y lines strictly between its ends, each with the
//! parameter `line_t(line, p0, 1/d)` the clip computes: positive (`line_t` never rounds a
//! nonzero difference to 0) and, the line being strictly before `P1`, at most 1. Merged in
//! order, strictly increasing and below `GRAZE_TOP` (`1 − 2ε`), they are the pieces' ends:
//!
//! ```text
//! first piece   (0,      t₁, Exits)     P0 inside: raw entry +0 (the lines behind it have
//!                                       negative parameters), exit the first crossing
//! middle piece  (t_k, t_k+1, Crosses)   entry the crossing that entered, exit the next one:
//!                                       every other line of the cell is behind P0 (t < 0), an
//!                                       earlier crossing, or beyond P1 (t ≥ 1 − ε/2, from
//!                                       fl(d) ≤ fl(line − p0) and fl(d·fl(1/d)) ≥ 1 − ε/2)
//! last piece    (t_n,     1, Enters)    P1 inside: exit 1; entry below GRAZE_TOP, so no far-end
//!                                       question at P1
//! one cell      (0,       1, Inside)
//! ```
//!
//! That is what the slab clip (`slab::slab_clip`) gives for each of those cells (SPEC §1: `t`
//! exactly 0 and 1 at the ends inside, the crossings' parameters elsewhere), so the pieces are
//! the clips bit for bit, as `tests/suite/grid_pieces.rs` checks against clipping every cell; the
//! pieces in virtual cells are dropped, so a segment that starts or ends outside the grid needs
//! no clip to it first. Equal crossings (a vertex, lines whose parameters round onto each other)
//! or a crossing at or above `GRAZE_TOP` make no piece here: the segment goes to the walk of
//! `walk.rs`, which takes them. No piece is a `Touches` one and no segment lies along a line, so
//! the options do not matter.
//!
//! [`Grid::direct_lanes`] walks `LANES` segments (a vector's width) in lockstep, one per lane, each step
//! one piece per lane by selects (which axis comes next is a coin toss per cell on real tracks):
//! positions from the even spacing's guess (the two lines around it gathered only when some
//! lane's guess is within rounding of a line: [`guess`]), then per step one gather for the
//! parameter the next step but one needs, so that its latency is off the chain from one step's
//! compare to the next. A lane whose guess misses by one (rounding), whose segment is
//! long ([`LONG`]: it would keep the other lanes idle), or whose crossings tie, is walked alone
//! by [`Grid::direct`] or by `walk.rs`, in its turn: the list is in input order either way.

use core::hint::select_unpredictable;

use super::{Grid, Lines64, Piece};
use crate::geom::{Class, Segment};
use crate::kernels::contract::{delta, in_range_both, line_t};
use crate::real::{biased_index, Lane, Real};

/// Reused buffers: per axis `+∞`, the crossings' parameters in grid order, then `+∞` (the
/// walk reads them forwards or backwards).
#[derive(Default)]
pub(super) struct Scratch<F> {
    x: Vec<F>,
    y: Vec<F>,
}

/// The class of a piece by `first + 2·last`: only the first piece can start at `P0`, only the
/// last end at `P1`.
const CLASSES: [Class; 4] = [Class::Crosses, Class::Exits, Class::Enters, Class::Inside];

/// How many of `lines` lie below `v`, or `None` when `v` is on a line (or NaN). Cell `p − 1`
/// holds `v` strictly inside, where cells `−1` and `n` are the virtual ones beyond the grid.
/// The even spacing's guess is right but for rounding, so one step either way is tried; a value
/// further off (never, on a grid's own boundaries) gives `None` too.
#[inline(always)]
fn position<F: Real>(lines: &[F], lines64: &Lines64, v: F) -> Option<usize> {
    let n = lines.len() - 1;
    if v < lines[0] {
        return Some(0);
    }
    if lines[n] < v {
        return Some(n + 1);
    }
    let g = super::guess(lines64, v.to_f64());
    let inside = |i: usize| lines[i] < v && v < lines[i + 1];
    if inside(g) {
        Some(g + 1)
    } else if g > 0 && inside(g - 1) {
        Some(g)
    } else if g + 1 < n && inside(g + 1) {
        Some(g + 2)
    } else {
        None
    }
}

/// The parameters of the lines strictly between positions `from` and `to` ([`position`]), in
/// grid order between two `+∞`, into `buf`; returns how many lines.
#[inline(always)]
fn crossings<F: Real>(lines: &[F], p0: F, r: F, from: usize, to: usize, buf: &mut Vec<F>) -> usize {
    let (lo, count) = (from.min(to), from.abs_diff(to));
    buf.clear();
    buf.push(F::INFINITY);
    buf.extend(lines[lo..lo + count].iter().map(|&v| line_t(v, p0, r)));
    buf.push(F::INFINITY);
    count
}

impl<F: Real> Grid<F> {
    /// Appends the pieces of segment `index` (`s`) to `out` and returns `true` when neither end
    /// lies on a grid line and its crossings strictly increase below `GRAZE_TOP` (module docs);
    /// otherwise writes nothing and returns `false`. Out of line: inlined into the batch loop it
    /// crowded the registers (its merge loop spilled to the stack).
    #[inline(never)]
    pub(super) fn direct(
        &self,
        index: usize,
        s: &Segment<F>,
        scratch: &mut Scratch<F>,
        out: &mut Vec<Piece<F>>,
    ) -> bool {
        let Some((rx, ry)) = super::walk::reciprocals(s) else {
            return false;
        };
        let ends = (
            position(&self.xs, &self.xs64, s.x0),
            position(&self.ys, &self.ys64, s.y0),
            position(&self.xs, &self.xs64, s.x1),
            position(&self.ys, &self.ys64, s.y1),
        );
        let (Some(px0), Some(py0), Some(px1), Some(py1)) = ends else {
            return false;
        };
        // Lines crossed before the segment enters the grid's rect or after it leaves lie beside
        // the grid (the other axis is in a virtual cell there): skip them, so that the cost
        // follows the pieces rather than the lines ([`window`]).
        let ((px0, px1), (py0, py1)) = if px0.abs_diff(px1) + py0.abs_diff(py1) > 2 * LONG {
            let (wx, wy) = (self.x_axis(s.x0, rx), self.y_axis(s.y0, ry));
            let (lo, hi) = (wx.near.max_any(wy.near), wx.far.min_any(wy.far));
            (wx.window((px0, px1), lo, hi), wy.window((py0, py1), lo, hi))
        } else {
            ((px0, px1), (py0, py1))
        };
        let cx = crossings(&self.xs, s.x0, rx, px0, px1, &mut scratch.x);
        let cy = crossings(&self.ys, s.y0, ry, py0, py1, &mut scratch.y);
        let (xt, yt) = (&scratch.x[..], &scratch.y[..]);
        let (nx, ny) = (self.nx() as u32, self.ny() as u32);
        // Pieces, with the virtual cells' among them (not kept).
        let n = cx + cy + 1;
        let start = out.len();
        out.reserve(n);
        let spare = &mut out.spare_capacity_mut()[..n];
        // Per axis: the buffer index of the next crossing (from the first to the `+∞` past the
        // last, going up or down the grid) and the cell, moving together by `±1`; the cell as
        // an `isize` whose virtual values `−1` and `n` become `u32`s of `n` or more.
        let axis = |p0: usize, p1: usize, count: usize| -> (isize, isize, isize) {
            let up = p0 <= p1;
            (
                if up { 1 } else { count as isize },
                p0 as isize - 1,
                if up { 1 } else { -1 },
            )
        };
        let ((mut kx, mut ix, sx), (mut ky, mut iy, sy)) = (axis(px0, px1, cx), axis(py0, py1, cy));
        let mut kept = 0;
        let mut t_entry = F::ZERO;
        // Set unless the crossings strictly increase and stay below `GRAZE_TOP`.
        let mut off = false;
        for k in 0..n {
            let (tx, ty) = (xt[kx as usize], yt[ky as usize]);
            let go_x = tx < ty;
            let t = select_unpredictable(go_x, tx, ty);
            let (crossing, last) = (k + 1 < n, k + 1 == n);
            off |= crossing & !(t_entry < t && t < F::GRAZE_TOP);
            let (cell_x, cell_y) = (ix as u32, iy as u32);
            spare[kept].write(Piece {
                segment: index,
                ix: cell_x,
                iy: cell_y,
                t_entry,
                t_exit: if last { F::ONE } else { t },
                class: CLASSES[(k == 0) as usize + 2 * last as usize],
            });
            kept += (cell_x < nx && cell_y < ny) as usize;
            t_entry = t;
            // Past the last crossing nothing moves: the indices stay at the `+∞`s.
            let (mx, my) = (
                select_unpredictable(crossing & go_x, sx, 0),
                select_unpredictable(crossing & !go_x, sy, 0),
            );
            (kx, ix, ky, iy) = (kx + mx, ix + mx, ky + my, iy + my);
        }
        if off {
            return false;
        }
        // SAFETY: each step writes the slot `kept` and counts it only if kept, so the first
        // `kept` slots past `start` are written; `kept ≤ n`, within the capacity reserved.
        unsafe { out.set_len(start + kept) };
        true
    }
}

/// One axis of a segment for [`Grid::direct`]: its lines' parameters `t(k) = line_t(lines[k],
/// p0, r)`, and those of the grid's two outer lines in the order met (`near`, `far`).
struct Axis<'a, F> {
    lines: &'a [F],
    p0: F,
    r: F,
    near: F,
    far: F,
}

impl<F: Real> Grid<F> {
    fn x_axis(&self, p0: F, r: F) -> Axis<'_, F> {
        Axis::new(&self.xs, p0, r)
    }

    fn y_axis(&self, p0: F, r: F) -> Axis<'_, F> {
        Axis::new(&self.ys, p0, r)
    }
}

impl<'a, F: Real> Axis<'a, F> {
    fn new(lines: &'a [F], p0: F, r: F) -> Self {
        let (a, b) = (lines[0], lines[lines.len() - 1]);
        let (first, last) = if F::ZERO < r { (a, b) } else { (b, a) };
        Axis {
            lines,
            p0,
            r,
            near: line_t(first, p0, r),
            far: line_t(last, p0, r),
        }
    }

    /// The positions `(from, to)` ([`position`]) narrowed to the lines whose parameters lie in
    /// `[lo, hi]`, where `lo` and `hi` are the parameters at which the segment enters and
    /// leaves the grid's rect (`max` of the axes' `near`, `min` of their `far`): a line crossed
    /// before `lo` or after `hi` is crossed while the other axis is beyond the grid, so every
    /// piece around it is in a virtual cell and dropped. Skipping it moves the position just
    /// as crossing it would, and the parameters compared are the very ones the crossings
    /// list holds, so the pieces kept are the same. Found by bisection: parameters are
    /// monotone along the lines.
    fn window(&self, (from, to): (usize, usize), lo: F, hi: F) -> (usize, usize) {
        let t = |i: usize| line_t(self.lines[i], self.p0, self.r);
        // The lines strictly between the positions, in the order met: `from..to` going up,
        // `to..from` reversed going down; `at(j)` is the `j`-th met.
        let up = from <= to;
        let count = from.abs_diff(to);
        let at = |j: usize| if up { t(from + j) } else { t(from - 1 - j) };
        let first = partition(count, |j| at(j) < lo);
        let last = partition(count, |j| at(j) <= hi).max(first);
        if up {
            (from + first, from + last)
        } else {
            (from - first, from - last)
        }
    }
}

/// The number of leading `j` in `0..n` for which `before(j)` holds, `before` being true then
/// false along `0..n`.
pub(super) fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The cell the even spacing guesses for `v`, floored and clamped to the grid, as a biased
/// index, and whether the guess is clear: at least [`Lines64`]'s slack (in cells) from an
/// integer, so that `v` lies strictly between that cell's lines with no need to read them.
/// NaN guesses and guesses clamped into the grid are never clear.
#[inline(always)]
fn guess<F: Real, L: Lane<Scalar = F>>(lines: &[F], lines64: &Lines64, v: L) -> (L, L::Mask) {
    let splat = L::splat;
    let (zero, one, bias) = (splat(F::ZERO), splat(F::ONE), splat(F::CODE_BIAS));
    let raw = (v - splat(lines[0])) * splat(F::from_f64(lines64.per_unit));
    let u = raw.max_any(zero).min_any(splat(count(lines.len() - 2)));
    let g = u + bias;
    let g = L::select((g - bias).gt(u), g - one, g);
    // `raw − ⌊u⌋`: exact where `raw` is in the guessed cell (the last cell's too), else at
    // least 1 or negative (or NaN), so not clear.
    let frac = raw - (g - bias);
    let slack = F::from_f64(lines64.slack);
    (g, splat(slack).lt(frac) & frac.lt(splat(F::ONE - slack)))
}

/// `n` as a float (exact below 2²⁴).
#[inline(always)]
fn count<F: Real>(n: usize) -> F {
    F::from_f64(n as f64)
}

/// Segments whose walk takes more steps than this go to [`Grid::direct`] alone: in lockstep a
/// long segment keeps the other lanes of its group idle.
const LONG: usize = 24;

/// What one step of the lanes leaves, per lane: `t_entry` (NaN where the piece is not kept),
/// `t_exit` and the cell's positions ([`position`], biased). The class follows from the step:
/// `Exits` first, `Enters` last, `Crosses` between.
#[derive(Clone, Copy, Default)]
pub(super) struct Step<F> {
    te: [F; 16],
    tx: [F; 16],
    px: [F; 16],
    py: [F; 16],
}

/// One axis of a group's walk, on the lanes. The parameter after the next is read a step
/// early, so that the gather's latency is off the chain from one step's compare to the next.
struct AxisLanes<L> {
    /// `±1`, the way the walk goes, and the biased index in `xy` of the line after the next one
    /// met, less `pos`: they move together.
    step: L,
    k_off: L,
    /// Crossings left, the parameter of the next and of the one after (`+∞` where none).
    left: L,
    t: L,
    after: L,
    /// The biased position of the current cell (cell `position − 1`).
    pos: L,
    p0: L,
    r: L,
}

impl<F: Real> Grid<F> {
    /// [`position`] on the lanes: each lane's biased position and whether it was found (the
    /// guess right; else the lane goes to [`Grid::direct`], which tries its neighbours). The
    /// lines around the guess are read only when some lane's guess is not clear ([`guess`]).
    #[inline(always)]
    fn position_lanes<L: Lane<Scalar = F>>(
        &self,
        lines: &[F],
        lines64: &Lines64,
        v: L,
    ) -> (L, L::Mask) {
        let splat = L::splat;
        let (one, bias) = (splat(F::ONE), splat(F::CODE_BIAS));
        let n = lines.len() - 1;
        let (g, clear) = guess(lines, lines64, v);
        let below = v.lt(splat(lines[0]));
        let above = splat(lines[n]).lt(v);
        let pos = L::select(
            below,
            bias,
            L::select(above, bias + splat(count(n + 1)), g + one),
        );
        if !L::any(!(below | above | clear)) {
            return (pos, below | above | clear);
        }
        // Clamped: a NaN guess reads a valid line (and the lane is not found).
        let lo = g.gather_biased(&lines[..n]);
        let hi = g.gather_biased(&lines[1..]);
        (pos, below | above | (lo.lt(v) & v.lt(hi)))
    }

    /// One axis's start on the lanes, from the biased positions of the two ends; `at` is where
    /// the axis's lines begin in `xy`.
    #[inline(always)]
    fn axis_lanes<L: Lane<Scalar = F>>(
        &self,
        at: usize,
        (q0, q1): (L, L),
        p0: L,
        r: L,
    ) -> AxisLanes<L> {
        let splat = L::splat;
        let one = splat(F::ONE);
        let up = q0.le(q1);
        let first = L::select(up, q0, q0 - one) + splat(count(at));
        let step = L::select(up, one, -one);
        let left = (q1 - q0).abs();
        AxisLanes {
            step,
            k_off: first + step - q0,
            left,
            t: self.next_t(first, left, p0, r),
            after: self.next_t(first + step, left - one, p0, r),
            pos: q0,
            p0,
            r,
        }
    }

    /// The parameter of line `k` (biased index in `xy`) where crossings are left, else `+∞`.
    #[inline(always)]
    fn next_t<L: Lane<Scalar = F>>(&self, k: L, left: L, p0: L, r: L) -> L {
        let v = k.gather_biased(&self.xy);
        let zero = L::splat(F::ZERO);
        L::select(zero.lt(left), line_t(v, p0, r), L::splat(F::INFINITY))
    }

    /// [`Grid::direct`] on the segments in the first `m` lanes of `s` at once, in lockstep:
    /// fills `steps` and returns, per lane, its number of steps, or `None` for the lanes to
    /// walk alone (not found on the lanes, long, or not for the direct walk at all).
    #[inline(always)]
    pub(super) fn direct_lanes<L: Lane<Scalar = F>>(
        &self,
        s: &Segment<L>,
        m: usize,
        steps: &mut Vec<Step<F>>,
    ) -> [Option<usize>; 16] {
        let splat = L::splat;
        let (zero, one, bias) = (splat(F::ZERO), splat(F::ONE), splat(F::CODE_BIAS));
        let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
        let real = L::from_fn(|l| if l < m { F::ONE } else { F::ZERO });
        let mut ok = in_range_both(dx, dy) & !dx.eq_(zero) & !dy.eq_(zero) & real.eq_(one);
        // `axis_t`'s reciprocal: `1/d` with the same operands, hence the same bits.
        let (rx, ry) = (one / dx, one / dy);
        let (px0, f0) = self.position_lanes(&self.xs, &self.xs64, s.x0);
        let (py0, f1) = self.position_lanes(&self.ys, &self.ys64, s.y0);
        let (px1, f2) = self.position_lanes(&self.xs, &self.xs64, s.x1);
        let (py1, f3) = self.position_lanes(&self.ys, &self.ys64, s.y1);
        let mut x = self.axis_lanes(0, (px0, px1), s.x0, rx);
        let mut y = self.axis_lanes(self.xs.len(), (py0, py1), s.y0, ry);
        let total = x.left + y.left + one;
        ok = ok & f0 & f1 & f2 & f3 & total.le(splat(count(LONG)));
        let total = L::select(ok, total, zero);
        let mut totals = [F::ZERO; 16];
        total.write(&mut totals);
        let most = totals.iter().fold(0, |m, t| m.max(t.to_f64() as usize));
        // In-grid cells: biased positions `1..=n`.
        let inside = |p: L, n: usize| (bias + one).le(p) & p.le(bias + splat(count(n)));
        let (nan, graze) = (splat(F::NAN), splat(F::GRAZE_TOP));
        let mut t_entry = zero;
        let mut off = !ok;
        // Grown before the loop, not in it: a call to grow in the loop made the compiler keep
        // every vector of the walk on the stack around it.
        if steps.len() < most {
            steps.resize(most, Step::default());
        }
        for (k, out) in steps[..most].iter_mut().enumerate() {
            let next = splat(count(k + 1));
            let (crossing, last) = (next.lt(total), next.eq_(total));
            let go_x = x.t.lt(y.t);
            let t = L::select(go_x, x.t, y.t);
            off = off | (crossing & !(t_entry.lt(t) & t.lt(graze)));
            let keep =
                splat(count(k)).lt(total) & inside(x.pos, self.nx()) & inside(y.pos, self.ny());
            L::select(keep, t_entry, nan).write(&mut out.te);
            L::select(last, one, t).write(&mut out.tx);
            x.pos.write(&mut out.px);
            y.pos.write(&mut out.py);
            t_entry = t;
            // The axis crossed moves on: its next parameter is the one read before, and one
            // gather reads the one after for either axis.
            // `y.t ≤ x.t` is `!go_x` (a lane not `off` has no NaN parameter) from a compare of
            // its own: the complement of the mask went through a general register, on the
            // chain from one step to the next.
            let (gx, gy) = (crossing & go_x, crossing & y.t.le(x.t));
            x.t = L::select(gx, x.after, x.t);
            x.pos = L::select(gx, x.pos + x.step, x.pos);
            x.left = L::select(gx, x.left - one, x.left);
            y.t = L::select(gy, y.after, y.t);
            y.pos = L::select(gy, y.pos + y.step, y.pos);
            y.left = L::select(gy, y.left - one, y.left);
            let after = self.next_t(
                L::select(go_x, x.pos + x.k_off, y.pos + y.k_off),
                L::select(go_x, x.left, y.left) - one,
                L::select(go_x, x.p0, y.p0),
                L::select(go_x, x.r, y.r),
            );
            x.after = L::select(gx, after, x.after);
            y.after = L::select(gy, after, y.after);
        }
        let mut offs = [F::ZERO; 16];
        L::select(off, one, zero).write(&mut offs);
        core::array::from_fn(|l| (offs[l] == F::ZERO).then(|| totals[l].to_f64() as usize))
    }
}

/// Appends the pieces lane `l` kept in its first `n` steps of `steps`, as segment `index`.
#[inline(always)]
pub(super) fn append_lane<F: Real>(
    steps: &[Step<F>],
    index: usize,
    l: usize,
    n: usize,
    out: &mut Vec<Piece<F>>,
) {
    let start = out.len();
    out.reserve(n);
    let spare = &mut out.spare_capacity_mut()[..n];
    let mut kept = 0;
    let l = l % 16;
    for (k, step) in steps[..n].iter().enumerate() {
        let t_entry = step.te[l];
        spare[kept].write(Piece {
            segment: index,
            ix: biased_index(step.px[l]).wrapping_sub(1) as u32,
            iy: biased_index(step.py[l]).wrapping_sub(1) as u32,
            t_entry,
            t_exit: step.tx[l],
            class: CLASSES[(k == 0) as usize + 2 * (k + 1 == n) as usize],
        });
        kept += t_entry.eq_(t_entry) as usize;
    }
    // SAFETY: each step writes the slot `kept` and counts it only if kept, so the first `kept`
    // slots past `start` are written; `kept ≤ n`, within the capacity reserved.
    unsafe { out.set_len(start + kept) };
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::guess;
    use crate::grid::Lines64;
    use crate::real::{biased_index, Real};
    use crate::{Grid, Rect};

    /// Values on and a few ulps around every line of `grid`'s x axis, and `extra` ones.
    fn near_lines<F: Real>(grid: &Grid<F>, extra: &[F]) -> Vec<F> {
        let mut v = extra.to_vec();
        for &x in grid.xs() {
            let (mut up, mut down) = (x, x);
            v.push(x);
            for _ in 0..6 {
                (up, down) = (up.next_up(), -(-down).next_up());
                v.extend([up, down]);
            }
        }
        v
    }

    /// A clear guess has `v` strictly between its cell's two lines.
    fn check<F: Real>(grid: &Grid<F>, values: &[F]) -> Result<(), TestCaseError> {
        let (lines, lines64): (&[F], &Lines64) = (grid.xs(), &grid.xs64);
        for &v in values {
            let (g, clear) = guess::<F, F>(lines, lines64, v);
            if clear {
                let i = biased_index(g);
                prop_assert!(
                    lines[i] < v && v < lines[i + 1],
                    "{v:?} guessed clear in cell {i}: {:?} to {:?} (slack {})",
                    lines[i],
                    lines[i + 1],
                    lines64.slack
                );
            }
        }
        Ok(())
    }

    fn grid<F: Real>(lo: f64, width: f64, n: usize) -> Option<Grid<F>> {
        let (a, b) = (F::from_f64(lo), F::from_f64(lo + width));
        Grid::new(Rect::new(a, a, b, b).ok()?, n, 1).ok()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn clear_guesses_are_right(
            lo in prop_oneof![Just(0.0), Just(-1.0), -1e6..1e6f64, Just(1e6), Just(-3e-5)],
            width in prop_oneof![Just(1.0), 1e-3..1e4f64, Just(3.0)],
            n in prop_oneof![1usize..64, Just(1000), Just(4096), 1000..100_000usize],
            u in proptest::collection::vec(0.0..1.0f64, 16),
        ) {
            let inside = |w: f64| u.iter().map(move |&s| lo + s * w);
            if let Some(g) = grid::<f32>(lo, width, n) {
                let extra: Vec<f32> = inside(width).map(|x| x as f32).collect();
                check(&g, &near_lines(&g, &extra))?;
            }
            if let Some(g) = grid::<f64>(lo, width, n) {
                let extra: Vec<f64> = inside(width).collect();
                check(&g, &near_lines(&g, &extra))?;
            }
        }
    }
}
