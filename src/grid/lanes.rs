//! The batch form of the walk: [`Real::LANES`] segments walked in lockstep on SIMD lanes, one
//! cell per lane per step, each cell finished on the vector by the crate's finishing step.
//!
//! A walk one segment at a time spends most of its time deciding, cell by cell, which axis comes
//! next: a coin toss on real tracks, so a mispredicted branch per cell, and a scalar finishing
//! step for each. Here each lane runs a merge of the two axes' lines, with the step taken by
//! selects:
//!
//! ```text
//! start   the first column and row whose parameter intervals reach [0, 1] (Axis::first),
//!         stepped until the two intervals meet; a tie among their ends: the lane is not used
//! emit    piece = cell_clip(x lines' t, y lines' t, cell, segment)      (walk.rs)
//! step    xh = c(xb), yh = c(yb)            c(t) = min(t, 1 − ε/2), as the staircase
//!         xh == yh: the end if both xb, yb > 1, else a tie
//!         xh <  yh: the next column if there is one (it starts before 1, as xh < 1 − ε/2)
//!         yh <  xh: the next row, likewise
//!         after the step, a new upper parameter clamped onto the old one is a tie
//! ```
//!
//! Without ties every compared parameter is distinct, two closed intervals meet exactly when their
//! interiors do, and the merge lists the cells whose column and row intervals meet: the
//! staircase's cells, in order. Each step's new line parameter is `(lines[k] − p0)·r` of the axis
//! stepped, the expression of `axis_t`, so every piece is the same float as the staircase's and
//! the per-cell clip's. A lane that meets a tie is dropped from the group and its segment is
//! walked again by the scalar walk (`walk.rs`), whose staircase takes any; segments the walk
//! does not take (axis-parallel, zero-length, extreme or invalid) go to the general path in their
//! turn.
//!
//! The start is made on the vector too ([`Grid::start`]) for the usual segment, whose first
//! cells need no aligning; the others start one lane at a time (`Grid::lane_start`). Segments
//! whose ends the even spacing puts more than [`LONG`] cells apart walk alone, by the scalar merge
//! of `walk.rs`: in lockstep they would keep the other lanes of their group idle. A group's
//! pieces are kept per step and lane, then appended segment by segment, so the list is the one
//! the scalar walk gives, in input order.

use super::walk::{cell_clip, clamp_below_one, MergeEnd, Scratch};
use super::{sort_along, Grid, GridOptions, Piece};
use crate::buffers::SegmentSource;
use crate::geom::{Class, Segment};
use crate::kernels::contract::{delta, in_range_both, line_t, RectLanes};
use crate::real::{Lane, Real};

/// Integers (cell and line indices) ride in the float lanes as `CODE_BIAS + n`, exact for
/// `n < 2²³`, whose bits end in `n`: they leave the lanes by a mask, with no conversion. The
/// lanes take grids whose two boundary lists together are shorter than that.
const INDEX_MASK: u64 = (1 << 23) - 1;

/// `n` as a lane value ([`INDEX_MASK`]).
#[inline(always)]
fn index<F: Real>(n: usize) -> F {
    F::CODE_BIAS + count(n)
}

/// `n` as a float (exact below 2²⁴).
#[inline(always)]
fn count<F: Real>(n: usize) -> F {
    F::from_f64(n as f64)
}

/// The `n` of a lane value `CODE_BIAS + n`.
#[inline(always)]
fn index_of<F: Real>(x: F) -> usize {
    (x.to_bits_u64() & INDEX_MASK) as usize
}

/// What the walk does with one segment of a group.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// It meets no cell.
    Skip,
    /// Walked on its lane.
    Lane,
    /// The scalar walk: a long segment.
    Long,
    /// The scalar walk: a tie at the start.
    Tie,
    /// Not for the walk: the general path.
    General,
}

/// Segments that the even spacing puts more than this many cells apart along the two axes walk
/// alone: in lockstep a long segment keeps the other lanes of its group idle.
const LONG: usize = 16;

/// The starting state of one lane, field by field (see [`State`]).
const FIELDS: usize = 18;

/// Reused buffers of [`Grid::walk_lanes`].
pub(super) struct LaneScratch<F> {
    /// Per field of [`State`], the value of each lane.
    init: [[F; 16]; FIELDS],
    /// Per step, each lane's cell and clip.
    steps: Vec<Step<F>>,
    /// The scalar walk's buffers.
    stairs: Scratch<F>,
}

/// What one step of the lanes leaves, per lane: `t_entry` (NaN where no piece is kept),
/// `t_exit`, class code, and the cell's `ix`, `iy` ([`index`] values).
#[derive(Clone, Copy)]
struct Step<F> {
    te: [F; 16],
    tx: [F; 16],
    code: [F; 16],
    ix: [F; 16],
    iy: [F; 16],
}

impl<F: Real> Default for LaneScratch<F> {
    fn default() -> Self {
        LaneScratch {
            init: [[F::ZERO; 16]; FIELDS],
            steps: Vec::new(),
            stairs: Scratch::default(),
        }
    }
}

/// One axis of the lanes' first cells ([`Grid::first_lanes`]).
struct FirstLanes<L: Lane> {
    /// The guess is the first cell `Axis::first` finds.
    first: L::Mask,
    /// That cell reaches `[0, 1]` (else the segment meets no cell).
    reach: L::Mask,
    /// How many cells the even spacing puts between the segment's two ends.
    span: L,
    a: L,
    b: L,
    lo: L,
    hi: L,
    far: L,
}

/// The walk state of a group's lanes (or of one lane, as it starts). Cell and line indices are
/// [`index`] values.
#[derive(Clone, Copy)]
struct State<L> {
    s: Segment<L>,
    rx: L,
    ry: L,
    /// The parameters of the current column's lines in the order met (`xa ≤ xb`), and row's.
    xa: L,
    xb: L,
    ya: L,
    yb: L,
    /// The current cell's bounds.
    xlo: L,
    xhi: L,
    ylo: L,
    yhi: L,
    /// The index in `xy` of the line at `xb` (`yb`), and the step `±1` to the next line met.
    /// The current cell is the one before the line going up, after it going down.
    kx: L,
    ky: L,
    sx: L,
    sy: L,
}

impl<T: Copy> State<T> {
    /// The fields, in the order of `LaneScratch::init`.
    #[inline(always)]
    fn fields(&self) -> [T; FIELDS] {
        let Segment { x0, y0, x1, y1 } = self.s;
        [
            x0, y0, x1, y1, self.rx, self.ry, self.xa, self.xb, self.ya, self.yb, self.xlo,
            self.xhi, self.ylo, self.yhi, self.kx, self.ky, self.sx, self.sy,
        ]
    }

    /// The state whose `i`-th field ([`State::fields`]) is `f(i)`.
    #[inline(always)]
    fn from_fields(f: impl Fn(usize) -> T) -> Self {
        let [x0, y0, x1, y1, rx, ry, xa, xb, ya, yb, xlo, xhi, ylo, yhi, kx, ky, sx, sy] =
            core::array::from_fn(f);
        State {
            s: Segment { x0, y0, x1, y1 },
            rx,
            ry,
            xa,
            xb,
            ya,
            yb,
            xlo,
            xhi,
            ylo,
            yhi,
            kx,
            ky,
            sx,
            sy,
        }
    }
}

impl<F: Real> Grid<F> {
    /// The pieces of segments `range` of `input` appended to `out`, as
    /// [`Grid::pieces_into`](super::Grid::pieces_into) gives them: groups of `LANES` segments
    /// walked in lockstep, the others in their turn, `general(index, segment, out)` for those
    /// the walk does not take.
    pub(super) fn walk_lanes<S, G>(
        &self,
        input: &S,
        range: core::ops::Range<usize>,
        options: &GridOptions,
        lanes: &mut LaneScratch<F>,
        mut general: G,
        out: &mut Vec<Piece<F>>,
    ) where
        S: SegmentSource<F> + ?Sized,
        G: FnMut(usize, &Segment<F>, &mut Vec<Piece<F>>),
    {
        let w = F::LANES;
        if self.xy.len() > INDEX_MASK as usize {
            for i in range {
                let s = input.segment(i);
                if !self.walk(i, &s, options, &mut lanes.stairs, out) {
                    general(i, &s, out);
                }
            }
            return;
        }
        let mut kinds = [Kind::Skip; 16];
        let mut segs = [Segment::new(F::ZERO, F::ZERO, F::ZERO, F::ZERO); 16];
        let mut first = range.start;
        while first < range.end {
            let n = w.min(range.end - first);
            for (l, seg) in segs[..n].iter_mut().enumerate() {
                *seg = input.segment(first + l);
            }
            // The usual start on the vector; the lanes it does not settle, one by one.
            let started = self.start::<F::Simd>(&segs, &mut lanes.init);
            let mut any_lane = false;
            for l in 0..w {
                let kind = match (l < n, started[l]) {
                    (true, Some(kind)) => kind,
                    (true, None) => self.lane_start(&segs[l], l, &mut lanes.init),
                    (false, _) => Kind::Skip,
                };
                if kind != Kind::Lane {
                    self.idle_lane(l, &mut lanes.init);
                }
                any_lane |= kind == Kind::Lane;
                kinds[l] = kind;
            }
            let (taken, tied) = if any_lane {
                self.run::<F::Simd>(options, &mut lanes.init, &mut lanes.steps)
            } else {
                ([0; 16], [false; 16])
            };
            for l in 0..n {
                let (index, s) = (first + l, &segs[l]);
                // The scalar walk takes ties and long segments.
                let alone = match kinds[l] {
                    Kind::Skip => false,
                    Kind::Lane if !tied[l] => {
                        append(&lanes.steps, index, l, taken[l], self.nx(), out);
                        false
                    }
                    Kind::Lane | Kind::Tie | Kind::Long => true,
                    Kind::General => {
                        general(index, s, out);
                        false
                    }
                };
                if alone {
                    self.walk(index, s, options, &mut lanes.stairs, out);
                }
            }
            first += n;
        }
    }

    /// [`Grid::lane_start`] on the vector for the usual segment, whose first cells hold its
    /// start (or at least meet at the start of the walk) with no tie: writes every lane's start
    /// to `init` and returns the lanes for which it is the start `lane_start` would write, each
    /// check that `lane_start` makes done here as a test that sends the lane to it instead.
    ///
    /// The first cell along an axis is unique (the cell `m`, in the order met, with
    /// `t(m) < 0 ≤ t(m+1)`, or an end cell), so a guess that passes that test is the cell
    /// `Axis::first` finds. The guess is the even spacing's, floored in `F`.
    ///
    /// The other tests only route lanes: first cells that do not meet, or a first cell past the
    /// segment's end, would also come out right from the steps (their cells are misses to the
    /// finishing step, and a tie met later sends the lane to the staircase), and a tie among the
    /// first cells' ends sends the lane to `lane_start`, which sends it to the staircase; the
    /// tests keep those lanes out of the lockstep and keep the lanes' start the same as
    /// `lane_start`'s.
    #[inline(always)]
    fn start<L: Lane<Scalar = F>>(
        &self,
        segs: &[Segment<F>; 16],
        init: &mut [[F; 16]; FIELDS],
    ) -> [Option<Kind>; 16] {
        let splat = L::splat;
        let (zero, one) = (splat(F::ZERO), splat(F::ONE));
        let s = Segment {
            x0: L::from_fn(|l| segs[l].x0),
            y0: L::from_fn(|l| segs[l].y0),
            x1: L::from_fn(|l| segs[l].x1),
            y1: L::from_fn(|l| segs[l].y1),
        };
        let (dx, dy) = (delta(s.x0, s.x1), delta(s.y0, s.y1));
        let fast = in_range_both(dx, dy) & !dx.eq_(zero) & !dy.eq_(zero);
        // `axis_t`'s reciprocal, as in `lane_start`.
        let (rx, ry) = (one / dx, one / dy);
        let x = self.first_lanes(&self.xs, &self.xs64, 0, (s.x0, s.x1), rx);
        let y = self.first_lanes(&self.ys, &self.ys64, self.xs.len(), (s.y0, s.y1), ry);
        let c = clamp_below_one::<L>;
        let (xl, xh, yl, yh) = (c(x.a), c(x.b), c(y.a), c(y.b));
        // The first cells' intervals meet (no step to align them) with no tie among their ends.
        let meet = !(xh.lt(yl) | yh.lt(xl));
        let tie = xl.eq_(yl) | xh.eq_(yl) | yh.eq_(xl) | xl.eq_(xh) | yl.eq_(yh);
        let first = fast & x.first & y.first;
        let reach = x.reach & y.reach;
        let long = splat(count(LONG)).lt(x.span + y.span);
        let lane = first & reach & meet & !tie & !long;
        let skip = first & !reach;
        let step = |r: L| L::select(zero.lt(r), one, -one);
        let state = State {
            s,
            rx,
            ry,
            xa: x.a,
            xb: x.b,
            ya: y.a,
            yb: y.b,
            xlo: x.lo,
            xhi: x.hi,
            ylo: y.lo,
            yhi: y.hi,
            kx: x.far,
            ky: y.far,
            sx: step(rx),
            sy: step(ry),
        };
        for (field, v) in init.iter_mut().zip(state.fields()) {
            v.write(field);
        }
        let mut k = [F::ZERO; 16];
        let alone = first & reach & long;
        let two = one + one;
        L::select(
            lane,
            one,
            L::select(skip, two, L::select(alone, two + one, zero)),
        )
        .write(&mut k);
        core::array::from_fn(|l| match k[l].to_f64() as u8 {
            1 => Some(Kind::Lane),
            2 => Some(Kind::Skip),
            3 => Some(Kind::Long),
            _ => None,
        })
    }

    /// One axis of [`Grid::start`]: the guessed first cell, its lines' parameters in the order
    /// met, its bounds, the `xy` index of its far line (`at` is where the axis's lines begin in
    /// `xy`), and whether it is the first cell and reaches `[0, 1]`.
    #[inline(always)]
    fn first_lanes<L: Lane<Scalar = F>>(
        &self,
        lines: &[F],
        lines64: &super::Lines64,
        at: usize,
        (p0, p1): (L, L),
        r: L,
    ) -> FirstLanes<L> {
        let splat = L::splat;
        let (zero, one, bias) = (splat(F::ZERO), splat(F::ONE), splat(F::CODE_BIAS));
        let n = lines.len() - 1;
        let last = splat(count::<F>(n - 1));
        // The cell the even spacing puts `p0` in, floored and clamped (NaN gives cell 0).
        let guess = |p: L| {
            let u = ((p - splat(lines[0])) * splat(F::from_f64(lines64.per_unit)))
                .max_any(zero)
                .min_any(last);
            let g = u + bias;
            L::select((g - bias).gt(u), g - one, g)
        };
        let g = guess(p0);
        let mut gi = [F::ZERO; 16];
        g.write(&mut gi);
        let lo = L::from_fn(|l| lines[index_of(gi[l])]);
        let hi = L::from_fn(|l| lines[index_of(gi[l]) + 1]);
        let up = zero.lt(r);
        let (t_lo, t_hi) = (line_t(lo, p0, r), line_t(hi, p0, r));
        let (a, b) = (L::select(up, t_lo, t_hi), L::select(up, t_hi, t_lo));
        let (bottom, top) = (bias.eq_(g), splat(index::<F>(n - 1)).eq_(g));
        let (first_met, last_met) = ((up & bottom) | (!up & top), (up & top) | (!up & bottom));
        FirstLanes {
            first: (first_met | a.lt(zero)) & (last_met | zero.le(b)),
            reach: zero.le(b) & a.le(splat(F::ONE_REACH)),
            span: (guess(p1) - g).abs(),
            a,
            b,
            lo,
            hi,
            far: L::select(up, g + one, g) + splat(count(at)),
        }
    }

    /// Sets lane `l` of `init` to the start of the walk of `s` and returns [`Kind::Lane`], or
    /// returns what else to do with it: the merge's start (module docs), one lane at a time.
    #[inline(always)]
    fn lane_start(&self, s: &Segment<F>, l: usize, init: &mut [[F; 16]; FIELDS]) -> Kind {
        let Some((ax, ay)) = self.axes(s) else {
            return Kind::General;
        };
        let (m, xa, xb, k, ya, yb) = match self.merge_start(s, &ax, &ay) {
            Ok(start) => start,
            Err(MergeEnd::Done) => return Kind::Skip,
            Err(MergeEnd::Tie) => return Kind::Tie,
        };
        let (ix, iy) = (ax.cell(m), ay.cell(k));
        let step = |up: bool| if up { F::ONE } else { -F::ONE };
        // The far line of the current cell, in grid index: the upper one going up.
        let far = |up: bool, i: usize| if up { i + 1 } else { i };
        let ys_at = self.xs.len();
        let state = State {
            s: *s,
            rx: ax.r,
            ry: ay.r,
            xa,
            xb,
            ya,
            yb,
            xlo: self.xs[ix],
            xhi: self.xs[ix + 1],
            ylo: self.ys[iy],
            yhi: self.ys[iy + 1],
            kx: index(far(ax.up, ix)),
            ky: index(ys_at + far(ay.up, iy)),
            sx: step(ax.up),
            sy: step(ay.up),
        };
        for (field, v) in init.iter_mut().zip(state.fields()) {
            field[l] = v;
        }
        Kind::Lane
    }

    /// Sets lane `l` of `init` to a state that makes no piece and reads only valid lines.
    #[inline(always)]
    fn idle_lane(&self, l: usize, init: &mut [[F; 16]; FIELDS]) {
        for field in init.iter_mut() {
            field[l] = F::ZERO;
        }
        // Cell (0, 0), lines 0, with no step: the lane is idle from the start.
        init[14][l] = index(0);
        init[15][l] = index(self.xs.len());
        init[10][l] = self.xs[0];
        init[11][l] = self.xs[1];
        init[12][l] = self.ys[0];
        init[13][l] = self.ys[1];
    }

    /// Walks the lanes of `lanes.init` in lockstep, filling the per-step buffers; returns each
    /// lane's number of steps and which lanes met a tie (their pieces are not to be used).
    #[inline(always)]
    fn run<L: Lane<Scalar = F>>(
        &self,
        options: &GridOptions,
        init: &mut [[F; 16]; FIELDS],
        steps_out: &mut Vec<Step<F>>,
    ) -> ([usize; 16], [bool; 16]) {
        let mut st = State::from_fields(|i| L::from_fn(|l| init[i][l]));
        let splat = L::splat;
        let (zero, one) = (splat(F::ZERO), splat(F::ONE));
        let nan = splat(F::NAN);
        let yes = zero.eq_(zero);
        let c = clamp_below_one::<L>;
        let up_x = zero.lt(st.rx);
        let up_y = zero.lt(st.ry);
        let touch = Class::code_lanes(yes, one, one);
        let keep_touches = if options.touches { yes } else { !yes };
        // A lane walks while its step is 1 (idle lanes have no step).
        let mut active = st.sx.eq_(st.sx) & !st.sx.eq_(zero);
        let mut tied = !yes;
        let mut steps = 0;
        let mut taken = zero;
        let mut at_line = [F::ZERO; 16];
        let (first_line, last_line) = (splat(index(0)), splat(index(self.xy.len() - 1)));
        let ys_at = self.xs.len();
        let y_cell = (splat(count(ys_at)), splat(count(ys_at + 1)));
        let x_lines = (first_line, splat(index(ys_at - 1)));
        let y_lines = (splat(index(ys_at)), last_line);
        loop {
            // The current cell's piece, as the scalar walk makes it.
            let r = RectLanes {
                xmin: st.xlo,
                ymin: st.ylo,
                xmax: st.xhi,
                ymax: st.yhi,
            };
            let s = &st.s;
            let fin = cell_clip((up_x, st.xa, st.xb), (up_y, st.ya, st.yb), &r, s);
            let code = Class::code_lanes(yes, fin.t_entry, fin.t_exit);
            let keep = active & fin.t_entry.eq_(fin.t_entry) & (keep_touches | !code.eq_(touch));
            taken = taken + L::select(active, one, zero);
            if steps_out.len() == steps {
                steps_out.push(Step {
                    te: [F::ZERO; 16],
                    tx: [F::ZERO; 16],
                    code: [F::ZERO; 16],
                    ix: [F::ZERO; 16],
                    iy: [F::ZERO; 16],
                });
            }
            let out = &mut steps_out[steps];
            L::select(keep, fin.t_entry, nan).write(&mut out.te);
            fin.t_exit.write(&mut out.tx);
            code.write(&mut out.code);
            // The current cell from its far line: one before it going up (`ky` less the lines
            // of `xs`).
            (st.kx - L::select(up_x, one, zero)).write(&mut out.ix);
            (st.ky - L::select(up_y, y_cell.1, y_cell.0)).write(&mut out.iy);
            steps += 1;

            // The step.
            let (xh, yh) = (c(st.xb), c(st.yb));
            let meet = xh.eq_(yh);
            let reach = splat(F::ONE_REACH);
            tied = tied | (active & meet & !(reach.lt(st.xb) & reach.lt(st.yb)));
            // The next line of the axis stepped, by its index in `xy` (`ky` counts from the start
            // of `ys` there); none past the axis's last line.
            let kx = st.kx + st.sx;
            let ky = st.ky + st.sy;
            let more_x = x_lines.0.le(kx) & kx.le(x_lines.1);
            let more_y = y_lines.0.le(ky) & ky.le(y_lines.1);
            // (`xh < yh` has `xb < 1 − ε/2`: the next column starts within the segment.)
            let go_x = active & xh.lt(yh) & more_x;
            let go_y = active & yh.lt(xh) & more_y;
            if !L::any(go_x | go_y) {
                break;
            }
            L::select(go_x, kx, ky)
                .max_any(first_line)
                .min_any(last_line)
                .write(&mut at_line);
            let v = L::from_fn(|l| self.xy[index_of(at_line[l])]);
            let t = line_t(
                v,
                L::select(go_x, s.x0, s.y0),
                L::select(go_x, st.rx, st.ry),
            );
            let (xlo, xhi, ylo, yhi) = (st.xlo, st.xhi, st.ylo, st.yhi);
            st.xlo = L::select(go_x, L::select(up_x, xhi, v), xlo);
            st.xhi = L::select(go_x, L::select(up_x, v, xlo), xhi);
            st.ylo = L::select(go_y, L::select(up_y, yhi, v), ylo);
            st.yhi = L::select(go_y, L::select(up_y, v, ylo), yhi);
            st.xa = L::select(go_x, st.xb, st.xa);
            st.xb = L::select(go_x, t, st.xb);
            st.ya = L::select(go_y, st.yb, st.ya);
            st.yb = L::select(go_y, t, st.yb);
            st.kx = L::select(go_x, kx, st.kx);
            st.ky = L::select(go_y, ky, st.ky);
            // The axis that moved has a new upper parameter clamped onto its old one: a tie.
            let again = (go_x & c(st.xb).eq_(xh)) | (go_y & c(st.yb).eq_(yh));
            tied = tied | again;
            active = (go_x | go_y) & !again;
        }
        let (mut t, mut n) = ([F::ZERO; 16], [F::ZERO; 16]);
        L::select(tied, one, zero).write(&mut t);
        taken.write(&mut n);
        (
            core::array::from_fn(|l| n[l].to_f64() as usize),
            core::array::from_fn(|l| t[l] != F::ZERO),
        )
    }
}

/// Appends the pieces lane `l` kept in its first `steps` steps of `record`, as segment `index`,
/// in walk order, put in the documented order where entries tie.
#[inline(always)]
fn append<F: Real>(
    record: &[Step<F>],
    index: usize,
    l: usize,
    steps: usize,
    nx: usize,
    out: &mut Vec<Piece<F>>,
) {
    let start = out.len();
    out.reserve(steps);
    // Each piece is written to the next free slot and counted only if kept: no branch per
    // piece. Walk order is the documented order unless kept entries tie.
    let spare = &mut out.spare_capacity_mut()[..steps];
    let (mut kept, mut sorted, mut last) = (0, true, -F::INFINITY);
    let l = l % 16;
    for step in &record[..steps] {
        let t_entry = step.te[l];
        let code = step.code[l].to_bits_u64() as u8;
        spare[kept].write(Piece {
            segment: index,
            ix: index_of(step.ix[l]) as u32,
            iy: index_of(step.iy[l]) as u32,
            t_entry,
            t_exit: step.tx[l],
            class: Class::from_code(code).unwrap_or(Class::Invalid),
        });
        let keep = t_entry.eq_(t_entry);
        sorted &= !keep || last < t_entry;
        last = if keep { t_entry } else { last };
        kept += keep as usize;
    }
    // SAFETY: each of the first `kept` slots past `start` was written above (a slot is
    // written, then counted if kept), and `kept ≤ steps ≤` the spare capacity reserved.
    unsafe { out.set_len(start + kept) };
    if !sorted {
        sort_along(&mut out[start..], nx);
    }
}
