//! The visibility polygon of a viewpoint among walls, inside a bounding rect (SPEC §2).
//!
//! For a viewpoint `O` strictly inside a rect of positive area, the polygon is the closure of
//! the interior of the set of points `P` of the rect such that no wall meets the segment
//! `O → P` before `P`. Taking the closure of the interior is what removes the measure-zero
//! parts: a wall collinear with `O` or of zero length blocks only part of a ray and leaves no
//! spike; a ray grazing a wall's endpoint is no gap.
//!
//! ```text
//! once per set of walls (VisibilityWalls::new):
//!     keep the finite walls of positive length whose clip by the rect (SPEC §1) has positive
//!     length and does not lie along the rect's boundary
//!     split them where they cross (the crossing computed in f64, rounded to F; where it may
//!     be one exact point with another cut of the same wall, as when three walls meet, the
//!     exact crossing rounded to nearest, so that every pair makes the same point), where an
//!     endpoint of one lies inside another, and where collinear walls overlap
//!     clip every piece to the rect (SPEC §1: cut points exactly on the edges; a wall far
//!     longer than the rect by the exact clip of `reference`, rounded once); drop duplicates
//! per viewpoint O (a rotational sweep):
//!     walls: every piece not collinear with O, oriented counter-clockwise around O, and the
//!            rect's four edges; each spans the open wedge between its endpoints' directions
//!     events: both endpoints of every wall, sorted by direction around O: by a float
//!             pseudo-angle, then every pair of near ties by the exact order (half-plane, then
//!             orient2d); equal directions grouped
//!     sweep the groups in order: remove the walls that end there, insert those that start;
//!     the active walls sit in a heap ordered by "nearer to O in the wedge they share"
//!     (orient2d of one wall's endpoints against the other's line), whose least element is
//!     the wall seen in the wedge up to the next group
//!     where the wall seen changes at a group's ray, the boundary leaves the old wall and joins
//!     the new one along that ray: a vertex on each (a point of the group on the wall's line,
//!     else the ray's cut with the wall, computed in f64); a wall's last vertex never
//!     before its first along it (two cuts of a wedge narrower than their rounding)
//!     drop repeated and collinear vertices, and spikes whose sides end within 4 ulps
//! ```
//!
//! Every decision is an exact orientation predicate (`robust::orient2d`: exact for `f64` inputs,
//! and `f32` widens exactly) on input points, or on the made points already rounded to `F`.
//! Two walls of the same line never share a wedge (they are split at each other's endpoints and
//! deduplicated), and split walls meet only at endpoints, so the order of the walls around a
//! wedge is fixed while they are active: the heap's comparisons are consistent. The one
//! exception is a made crossing point that rounding moved across a third wall within an ulp of
//! it; such a pair is compared along the wedge's bisector instead.
//!
//! Made vertices: where a ray from `O` through a group's point meets a wall (or an edge), and
//! where walls cross, are computed as `A + s·(B − A)` from the wall's nearer end with
//! `s = dA / (dA − dB)`, `dA`, `dB` the signed areas of `A` and `B` against the other line
//! (opposite signs, so the denominator never cancels), each an FMA-accurate 2 × 2 determinant;
//! then rounded to `F` and clamped into the wall's bounding box. A cut by an axis-parallel
//! edge has that edge's bound as its coordinate exactly. Coordinates whose products could
//! overflow or underflow `f64` (beyond `2^500`, or nonzero below `2^-340`; only possible for
//! `f64` input) are decided and made in exact rational arithmetic instead, slower but exact.

use core::cmp::Ordering;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rayon::prelude::*;

use crate::buffers::SegmentsRef;
use crate::cell_lists::{cell_of, CellLists};
use crate::error::Error;
use crate::geom::{Class, Rect, Segment};
use crate::kernels::Algorithm;
use crate::real::Real;

/// A point in `f64` (every `F` widens exactly).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pt {
    x: f64,
    y: f64,
}

impl Pt {
    #[inline(always)]
    fn new(x: f64, y: f64) -> Self {
        Pt { x, y }
    }
}

/// Coordinates in this range keep every product and error term of `orient2d` and of the made
/// points' determinants normal and finite.
#[inline(always)]
fn in_fast_range(v: f64) -> bool {
    const HI: f64 = f64::from_bits((1023 + 500) << 52); // 2^500
    const LO: f64 = f64::from_bits((1023 - 340) << 52); // 2^-340
    let a = v.abs();
    a <= HI && (a >= LO || a == 0.0)
}

#[inline(always)]
fn pt_fast(p: Pt) -> bool {
    in_fast_range(p.x) && in_fast_range(p.y)
}

/// The arithmetic of the decisions and made points: [`Fast`] (`robust` and `f64`) where the
/// coordinates allow it, [`Exact`] (rationals) elsewhere.
trait Arith {
    /// The sign of `(b − a) × (c − a)`: `1` when `c` is left of `a → b`.
    fn orient(a: Pt, b: Pt, c: Pt) -> i8;
    /// Where the line `u v` meets the segment `a b`, whose ends lie strictly on opposite sides
    /// of it (or one on it), as a point of the segment, in `f64`.
    fn cut(u: Pt, v: Pt, a: Pt, b: Pt) -> Pt;
    /// A bound on how far [`crossing`]'s point for `wi`, `wj` (`p`) may lie from the exact
    /// crossing in each coordinate; `0.0` where it is the exact crossing rounded to nearest.
    fn crossing_error<F: Real>(wi: &[Pt; 2], wj: &[Pt; 2], p: Pt) -> f64;
    /// Whether events may be pre-sorted by a float pseudo-angle ([`sort_events`]).
    const KEYS: bool;
}

/// `robust::orient2d` for decisions, FMA-accurate determinants for made points.
struct Fast;
/// Exact rational arithmetic, for coordinates outside [`in_fast_range`].
struct Exact;

#[inline(always)]
fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// `ax·by − ay·bx` within 1.5 ulps of the exact value of its (rounded) arguments (Kahan).
#[inline(always)]
fn det2(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    let w = ay * bx;
    let e = (-ay).mul_add(bx, w);
    let f = ax.mul_add(by, -w);
    f + e
}

impl Arith for Fast {
    const KEYS: bool = true;

    /// The determinants' rounding grows with the walls' span over the sine of their angle; the
    /// rounding to `F` adds an ulp. Generous: a wider bound only sends more crossings to
    /// [`canonical_crossings`]' exact path.
    fn crossing_error<F: Real>(wi: &[Pt; 2], wj: &[Pt; 2], p: Pt) -> f64 {
        let (ux, uy) = (wi[1].x - wi[0].x, wi[1].y - wi[0].y);
        let (vx, vy) = (wj[1].x - wj[0].x, wj[1].y - wj[0].y);
        let sine = det2(ux, uy, vx, vy).abs() / (ux.hypot(uy) * vx.hypot(vy));
        let span = [wi[0], wi[1], wj[0], wj[1]]
            .iter()
            .flat_map(|q| [(q.x - p.x).abs(), (q.y - p.y).abs()])
            .fold(0.0, f64::max);
        let ulp_f = 2.0 * (1.0 - F::ONE_BELOW.to_f64());
        let e = 64.0 * f64::EPSILON * span / sine + 2.0 * ulp_f * p.x.abs().max(p.y.abs());
        if e.is_nan() {
            f64::INFINITY
        } else {
            e
        }
    }

    #[inline(always)]
    fn orient(a: Pt, b: Pt, c: Pt) -> i8 {
        let r = robust::orient2d(
            robust::Coord { x: a.x, y: a.y },
            robust::Coord { x: b.x, y: b.y },
            robust::Coord { x: c.x, y: c.y },
        );
        sign(r)
    }

    fn cut(u: Pt, v: Pt, a: Pt, b: Pt) -> Pt {
        let (dx, dy) = (v.x - u.x, v.y - u.y);
        let da = det2(dx, dy, a.x - u.x, a.y - u.y);
        let db = det2(dx, dy, b.x - u.x, b.y - u.y);
        // From the nearer end: the smaller of |s|, |1 − s|.
        let (base, other, num, den) = if da.abs() <= db.abs() {
            (a, b, da, da - db)
        } else {
            (b, a, db, db - da)
        };
        let s = num / den;
        let s = if s.is_finite() {
            s.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Pt::new(
            base.x + s * (other.x - base.x),
            base.y + s * (other.y - base.y),
        )
    }
}

fn q(v: f64) -> BigRational {
    BigRational::from_float(v).unwrap_or_else(|| BigRational::from_integer(BigInt::zero()))
}

fn q_orient(a: Pt, b: Pt, c: Pt) -> BigRational {
    let (ax, ay) = (q(a.x), q(a.y));
    (q(b.x) - &ax) * (q(c.y) - &ay) - (q(b.y) - &ay) * (q(c.x) - &ax)
}

impl Arith for Exact {
    const KEYS: bool = false;

    fn crossing_error<F: Real>(_: &[Pt; 2], _: &[Pt; 2], _: Pt) -> f64 {
        0.0
    }

    fn orient(a: Pt, b: Pt, c: Pt) -> i8 {
        let d = q_orient(a, b, c);
        if d.is_positive() {
            1
        } else if d.is_negative() {
            -1
        } else {
            0
        }
    }

    fn cut(u: Pt, v: Pt, a: Pt, b: Pt) -> Pt {
        let da = q_orient(u, v, a);
        let db = q_orient(u, v, b);
        let den = &da - &db;
        if den.is_zero() {
            return a;
        }
        let s = da / den;
        let x = q(a.x) + &s * (q(b.x) - q(a.x));
        let y = q(a.y) + &s * (q(b.y) - q(a.y));
        Pt::new(x.to_f64().unwrap_or(a.x), y.to_f64().unwrap_or(a.y))
    }
}

/// The point rounded to `F` (and so exactly what the polygon will hold), clamped into the box
/// of `a` and `b`.
#[inline(always)]
fn round_into<F: Real>(p: Pt, a: Pt, b: Pt) -> Pt {
    let r = |v: f64, lo: f64, hi: f64| {
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        F::from_f64(v).to_f64().clamp(lo, hi)
    };
    Pt::new(r(p.x, a.x, b.x), r(p.y, a.y, b.y))
}

/// Walls prepared for visibility polygons within one bounding rect: filtered, split where they
/// cross or touch, and clipped to the rect, once for any number of viewpoints.
///
/// Walls with a NaN or infinite coordinate are ignored (they block nothing). Zero-length walls
/// and walls collinear with the viewpoint block nothing either (the polygon is the closure of
/// the interior of the visible set), but a viewpoint exactly on any wall, of zero length or
/// not, is an error.
#[derive(Clone, Debug)]
pub struct VisibilityWalls<F> {
    rect: Rect<F>,
    /// The pieces: clipped to the rect, meeting one another only at endpoints.
    pieces: Vec<[Pt; 2]>,
    /// The pieces' grid (when `fast`).
    cells: Cells,
    /// Whether every piece (and the rect) is in [`in_fast_range`].
    fast: bool,
    /// The finite walls that a viewpoint strictly inside the rect could lie on: the viewpoint
    /// check.
    checks: Checks,
}

/// Reusable buffers for [`VisibilityWalls::polygon_into`]: a caller that computes many
/// polygons on one thread allocates nothing after the first.
#[derive(Clone, Debug, Default)]
pub struct VisibilityScratch {
    walls: Vec<SweepWall>,
    events: Vec<Event>,
    groups: Vec<u32>,
    heap: Vec<u32>,
    pos: Vec<u32>,
    seen: Vec<u32>,
    /// Where the wall seen changes: the group, the wall seen after it, and its first vertex.
    joins: Vec<(u32, u32, Pt)>,
    verts: Vec<Pt>,
    /// [`gather`]'s bound per bin.
    bound: Vec<f64>,
    /// [`sort_events`]' second buffer.
    sorted: Vec<Event>,
}

/// Many visibility polygons in one ragged array (GeoArrow's layout): polygon `i` is
/// `coords[offsets[i] .. offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisibilityPolygons<F> {
    /// The vertices of every polygon, one after the other.
    pub coords: Vec<(F, F)>,
    /// `len() + 1` offsets into `coords`, starting at 0.
    pub offsets: Vec<usize>,
}

impl<F> VisibilityPolygons<F> {
    /// How many polygons.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Polygon `i`'s vertices. Panics if `i >= len()`.
    pub fn polygon(&self, i: usize) -> &[(F, F)] {
        &self.coords[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// One wall of a sweep, its ends in counter-clockwise order around the viewpoint.
#[derive(Clone, Copy, Debug)]
struct SweepWall {
    s: Pt,
    e: Pt,
    /// The [`pseudo_angle`]s of `s` and `e`, when [`Arith::KEYS`].
    ks: f64,
    ke: f64,
    /// The groups of `s` and `e`.
    gs: u32,
    ge: u32,
}

/// An endpoint of a sweep wall.
#[derive(Clone, Copy, Debug)]
struct Event {
    p: Pt,
    /// The direction's pseudo-angle ([`pseudo_angle`]), when [`Arith::KEYS`].
    key: f64,
    wall: u32,
    start: bool,
}

impl<F: Real> VisibilityWalls<F> {
    /// Prepares `walls` (columns) for viewpoints inside `bounds`.
    ///
    /// Errors: `bounds` of zero width or height (there is no inside for a viewpoint).
    pub fn new(bounds: &Rect<F>, walls: &SegmentsRef<'_, F>) -> Result<Self, Error> {
        let (x0, y0, x1, y1) = walls.columns();
        let rows = (0..x0.len()).map(|i| Segment::new(x0[i], y0[i], x1[i], y1[i]));
        Self::build(bounds, rows)
    }

    /// Prepares `walls` (rows) for viewpoints inside `bounds`; see [`VisibilityWalls::new`].
    pub fn from_rows(bounds: &Rect<F>, walls: &[Segment<F>]) -> Result<Self, Error> {
        Self::build(bounds, walls.iter().copied())
    }

    /// The bounding rect.
    pub fn bounds(&self) -> &Rect<F> {
        &self.rect
    }

    fn build(rect: &Rect<F>, walls: impl Iterator<Item = Segment<F>>) -> Result<Self, Error> {
        let (xmin, ymin, xmax, ymax) = (
            rect.xmin().to_f64(),
            rect.ymin().to_f64(),
            rect.xmax().to_f64(),
            rect.ymax().to_f64(),
        );
        if xmin >= xmax || ymin >= ymax {
            return Err(Error::InvalidRect(format!(
                "visibility bounds [{xmin}, {xmax}] x [{ymin}, {ymax}] have zero area: a \
                 viewpoint needs an inside"
            )));
        }
        let mut kept = Vec::new();
        let mut checks = Vec::new();
        for (i, seg) in walls.enumerate() {
            if !seg.is_finite() {
                continue;
            }
            let (a, b) = (
                Pt::new(seg.x0.to_f64(), seg.y0.to_f64()),
                Pt::new(seg.x1.to_f64(), seg.y1.to_f64()),
            );
            if a == b {
                if rect.contains(seg.x0, seg.y0) {
                    checks.push((a, b, i));
                }
                continue;
            }
            let meets_box = a.x.min(b.x) <= xmax
                && a.x.max(b.x) >= xmin
                && a.y.min(b.y) <= ymax
                && a.y.max(b.y) >= ymin;
            if meets_box {
                checks.push((a, b, i));
            }
            if clip_piece(rect, a, b).is_some() {
                kept.push([a, b]);
            }
        }
        let split = split_walls::<F>(rect, &kept);
        let mut pieces: Vec<[Pt; 2]> = split
            .into_iter()
            .filter_map(|[a, b]| clip_piece(rect, a, b))
            .map(|[a, b]| {
                // One orientation per piece, so that duplicates sort together.
                if (a.x, a.y) <= (b.x, b.y) {
                    [a, b]
                } else {
                    [b, a]
                }
            })
            .collect();
        pieces.sort_unstable_by(|p, q| {
            let k = |p: &[Pt; 2]| [p[0].x, p[0].y, p[1].x, p[1].y];
            let (a, b) = (k(p), k(q));
            a.iter()
                .zip(&b)
                .map(|(u, v)| u.total_cmp(v))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        });
        pieces.dedup();
        let fast = pieces.iter().all(|p| pt_fast(p[0]) && pt_fast(p[1]))
            && [xmin, ymin, xmax, ymax].into_iter().all(in_fast_range);
        let cells = if fast {
            Cells::build(&mut pieces)
        } else {
            Cells::default()
        };
        Ok(VisibilityWalls {
            rect: *rect,
            pieces,
            cells,
            fast,
            checks: Checks::build([xmin, ymin, xmax, ymax], checks),
        })
    }

    /// The visibility polygon of `viewpoint`: see [`visibility_polygon`].
    pub fn polygon(&self, viewpoint: (F, F)) -> Result<Vec<(F, F)>, Error> {
        let mut out = Vec::new();
        self.polygon_into(viewpoint, &mut VisibilityScratch::default(), &mut out)?;
        Ok(out)
    }

    /// The visibility polygon of `viewpoint` into `out` (cleared first), with the sweep's
    /// buffers in `scratch`; see [`visibility_polygon`].
    pub fn polygon_into(
        &self,
        viewpoint: (F, F),
        scratch: &mut VisibilityScratch,
        out: &mut Vec<(F, F)>,
    ) -> Result<(), Error> {
        out.clear();
        let o = self.check_viewpoint(viewpoint)?;
        F::visibility_sweep(self, (o.x, o.y), scratch);
        out.extend(
            scratch
                .verts
                .iter()
                .map(|p| (F::from_f64(p.x), F::from_f64(p.y))),
        );
        Ok(())
    }

    /// The polygon of the checked viewpoint `(x, y)` into `scratch.verts`, the sweep compiled
    /// at the chosen SIMD level (once per precision, `simd::entries`).
    pub(crate) fn sweep_at(&self, (x, y): (f64, f64), scratch: &mut VisibilityScratch) {
        let o = Pt { x, y };
        crate::simd::dispatch!(I => {
            if self.fast && pt_fast(o) {
                sweep::<Fast, F>(o, &self.rect, &self.pieces, Some(&self.cells), scratch);
            } else {
                sweep::<Exact, F>(o, &self.rect, &self.pieces, None, scratch);
            }
        });
    }

    /// The visibility polygons of the viewpoints `(ox[i], oy[i])`, in order, split across
    /// rayon's current pool (unless [`on_calling_thread`](crate::on_calling_thread)); the same
    /// polygons whatever the thread count.
    ///
    /// Errors: `ox` and `oy` of different lengths; the first bad viewpoint (by index) as
    /// [`visibility_polygon`] would report it, with its index.
    pub fn polygons(&self, ox: &[F], oy: &[F]) -> Result<VisibilityPolygons<F>, Error> {
        super::check_len("oy", ox.len(), oy.len())?;
        // Viewpoints per rayon task: a polygon costs tens of microseconds, so small blocks
        // already pay for the hand-over and let a few dozen viewpoints use every thread.
        const BLOCK: usize = 8;
        let n = ox.len();
        // One block of viewpoints: their vertices and the end of each polygon among them.
        type Block<F> = Result<(Vec<(F, F)>, Vec<usize>), Error>;
        let run = |scratch: &mut VisibilityScratch, start: usize| -> Block<F> {
            let (mut coords, mut ends) = (Vec::new(), Vec::new());
            let mut one = Vec::new();
            for i in start..(start + BLOCK).min(n) {
                self.polygon_into((ox[i], oy[i]), scratch, &mut one)
                    .map_err(|e| match e {
                        Error::InvalidArgument(m) => {
                            Error::InvalidArgument(format!("viewpoint {i}: {m}"))
                        }
                        other => other,
                    })?;
                coords.extend_from_slice(&one);
                ends.push(coords.len());
            }
            Ok((coords, ends))
        };
        let starts: Vec<usize> = (0..n).step_by(BLOCK).collect();
        let blocks: Vec<_> = if crate::threads::available() < 2 || n <= BLOCK {
            let mut scratch = VisibilityScratch::default();
            starts.into_iter().map(|b| run(&mut scratch, b)).collect()
        } else {
            starts
                .into_par_iter()
                .map_init(VisibilityScratch::default, run)
                .collect()
        };
        let mut out = VisibilityPolygons {
            coords: Vec::new(),
            offsets: vec![0],
        };
        for b in blocks {
            let (coords, ends) = b?;
            let base = out.coords.len();
            out.coords.extend_from_slice(&coords);
            out.offsets.extend(ends.into_iter().map(|e| base + e));
        }
        Ok(out)
    }

    /// The viewpoint as a point, or the error that says why it has no polygon.
    fn check_viewpoint(&self, (ox, oy): (F, F)) -> Result<Pt, Error> {
        let r = &self.rect;
        if !(ox.finite() && oy.finite()) {
            return Err(Error::InvalidArgument(format!(
                "viewpoint ({ox}, {oy}) is not finite"
            )));
        }
        if !r.contains(ox, oy) {
            return Err(Error::InvalidArgument(format!(
                "viewpoint ({ox}, {oy}) lies outside the bounds [{}, {}] x [{}, {}]",
                r.xmin(),
                r.xmax(),
                r.ymin(),
                r.ymax()
            )));
        }
        if ox == r.xmin() || ox == r.xmax() || oy == r.ymin() || oy == r.ymax() {
            return Err(Error::InvalidArgument(format!(
                "viewpoint ({ox}, {oy}) lies on the boundary of the bounds [{}, {}] x [{}, {}]: \
                 it must be strictly inside",
                r.xmin(),
                r.xmax(),
                r.ymin(),
                r.ymax()
            )));
        }
        let o = Pt::new(ox.to_f64(), oy.to_f64());
        if let Some((a, b, i)) = self.checks.first_under(o) {
            return Err(Error::InvalidArgument(format!(
                "viewpoint ({ox}, {oy}) lies on wall {i} ({}, {}) -> ({}, {})",
                a.x, a.y, b.x, b.y
            )));
        }
        Ok(o)
    }
}

/// The walls a viewpoint could lie on, each with its input index (ascending), in a uniform
/// grid over the bounds: a viewpoint is tested against the walls of its cell, not all of them.
#[derive(Clone, Debug, Default)]
struct Checks {
    walls: Vec<(Pt, Pt, usize)>,
    /// Cells per side, and the map from a coordinate to its cell.
    g: usize,
    lo: [f64; 2],
    inv: [f64; 2],
    /// Each cell's walls (places in `walls`).
    lists: CellLists,
}

impl Checks {
    /// The grid of `walls` over the bounds `[xmin, ymin, xmax, ymax]`: a wall is in every cell
    /// its box meets, with fewer cells when long walls would make that more than a few a wall.
    fn build(bounds: [f64; 4], walls: Vec<(Pt, Pt, usize)>) -> Self {
        let n = walls.len();
        let mut g = ((n / 2) as f64).sqrt().ceil().clamp(1.0, 1024.0) as usize;
        loop {
            let mut c = Checks {
                walls: Vec::new(),
                g,
                lo: [bounds[0], bounds[1]],
                inv: [0, 1].map(|k| {
                    let inv = g as f64 / (bounds[k + 2] - bounds[k]);
                    if inv.is_finite() {
                        inv
                    } else {
                        0.0
                    }
                }),
                lists: CellLists::default(),
            };
            let ranges: Vec<[usize; 4]> = walls
                .iter()
                .map(|&(a, b, _)| {
                    [
                        c.at(a.x.min(b.x), 0),
                        c.at(a.y.min(b.y), 1),
                        c.at(a.x.max(b.x), 0),
                        c.at(a.y.max(b.y), 1),
                    ]
                })
                .collect();
            let total: usize = ranges
                .iter()
                .map(|&[i0, j0, i1, j1]| (i1 - i0 + 1) * (j1 - j0 + 1))
                .sum();
            if total > 8 * n + g * g && g > 1 {
                g /= 2;
                continue;
            }
            c.lists = CellLists::build(&ranges, g, g);
            c.walls = walls;
            return c;
        }
    }

    /// The cell of the coordinate `v` on axis `k`.
    #[inline(always)]
    fn at(&self, v: f64, k: usize) -> usize {
        cell_of(v, self.lo[k], self.inv[k], self.g)
    }

    /// The first wall (by input index) that `o` lies on.
    fn first_under(&self, o: Pt) -> Option<(Pt, Pt, usize)> {
        if self.walls.is_empty() {
            return None;
        }
        let c = self.at(o.y, 1) * self.g + self.at(o.x, 0);
        self.lists
            .cell(c)
            .iter()
            .map(|&k| self.walls[k as usize])
            .find(|&(a, b, _)| {
                let in_box = a.x.min(b.x) <= o.x
                    && o.x <= a.x.max(b.x)
                    && a.y.min(b.y) <= o.y
                    && o.y <= a.y.max(b.y);
                in_box
                    && if pt_fast(a) && pt_fast(b) && pt_fast(o) {
                        Fast::orient(a, b, o) == 0
                    } else {
                        Exact::orient(a, b, o) == 0
                    }
            })
    }
}

/// Whether the wall `a → b` is so much longer than the rect (or so far out of range) that
/// `f64` arithmetic on its coordinates would lose the position of its piece inside: the
/// rounding of the clip's `t` (SPEC §1) and of a crossing's parameter scale with the wall's
/// length. Such walls are clipped and cut in exact arithmetic.
fn is_long<F: Real>(rect: &Rect<F>, a: Pt, b: Pt) -> bool {
    let extent = (rect.xmax().to_f64() - rect.xmin().to_f64())
        .max(rect.ymax().to_f64() - rect.ymin().to_f64());
    let len = (b.x - a.x).abs().max((b.y - a.y).abs());
    let short = len <= 4.0 * extent; // false for NaN
    !(pt_fast(a) && pt_fast(b) && short)
}

/// The clip of the wall `a → b` by `rect` when it has positive length and does not lie along
/// the rect's boundary (a wall there blocks nothing inside): SPEC §1's clip (a cut point
/// exactly on its edge, every point in the closed rect), or for a long wall ([`is_long`]) the
/// exact clip of [`crate::reference`], its cut points rounded once (onto the edge exactly).
fn clip_piece<F: Real>(rect: &Rect<F>, a: Pt, b: Pt) -> Option<[Pt; 2]> {
    let seg = Segment::new(
        F::from_f64(a.x),
        F::from_f64(a.y),
        F::from_f64(b.x),
        F::from_f64(b.y),
    );
    let (xmin, ymin, xmax, ymax) = (
        rect.xmin().to_f64(),
        rect.ymin().to_f64(),
        rect.xmax().to_f64(),
        rect.ymax().to_f64(),
    );
    let (p, q) = if is_long(rect, a, b) {
        let e = crate::reference::exact(rect, &seg);
        if !matches!(
            e.class,
            Class::Inside | Class::Enters | Class::Exits | Class::Crosses
        ) {
            return None;
        }
        let at = |t: &BigRational| -> Pt {
            let c = |u: f64, v: f64, lo: f64, hi: f64| {
                let x = q(u) + t * (q(v) - q(u));
                F::from_f64(x.to_f64().unwrap_or(u)).to_f64().clamp(lo, hi)
            };
            Pt::new(c(a.x, b.x, xmin, xmax), c(a.y, b.y, ymin, ymax))
        };
        let p = if e.entry.is_zero() { a } else { at(&e.entry) };
        let q = if e.exit == BigRational::one() {
            b
        } else {
            at(&e.exit)
        };
        (p, q)
    } else {
        let c = Algorithm::SlabScalar.clip_one(rect, &seg);
        if !c.is_hit() {
            return None;
        }
        let s = c.segment(rect, &seg);
        (
            Pt::new(s.x0.to_f64(), s.y0.to_f64()),
            Pt::new(s.x1.to_f64(), s.y1.to_f64()),
        )
    };
    if p == q {
        return None;
    }
    let along = (p.x == q.x && (p.x == xmin || p.x == xmax))
        || (p.y == q.y && (p.y == ymin || p.y == ymax));
    (!along).then_some([p, q])
}

/// Splits the walls where two cross (at the crossing rounded to `F`), where an endpoint of one
/// lies inside another, and where collinear walls overlap (at each other's endpoints). Pairs
/// are found by sweeping the walls' boxes along x.
fn split_walls<F: Real>(rect: &Rect<F>, walls: &[[Pt; 2]]) -> Vec<[Pt; 2]> {
    let n = walls.len();
    let bx = |w: &[Pt; 2]| {
        (
            w[0].x.min(w[1].x),
            w[0].x.max(w[1].x),
            w[0].y.min(w[1].y),
            w[0].y.max(w[1].y),
        )
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&i, &j| {
        bx(&walls[i as usize])
            .0
            .total_cmp(&bx(&walls[j as usize]).0)
    });
    let mut cuts: Vec<Cut> = Vec::new();
    let mut crossings: Vec<Crossing> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let wi = &walls[i as usize];
        let bi = bx(wi);
        let long_i = is_long(rect, wi[0], wi[1]);
        for &j in &order[k + 1..] {
            let wj = &walls[j as usize];
            let bj = bx(wj);
            if bj.0 > bi.1 {
                break;
            }
            if bj.2 > bi.3 || bj.3 < bi.2 {
                continue;
            }
            if !(long_i || is_long(rect, wj[0], wj[1])) {
                pair_cuts::<Fast, F>(i, wi, j, wj, &mut cuts, &mut crossings);
            } else {
                pair_cuts::<Exact, F>(i, wi, j, wj, &mut cuts, &mut crossings);
            }
        }
    }
    if cuts.is_empty() {
        return walls.to_vec();
    }
    // Order each wall's cuts along it: by the coordinate of its longer axis (exact for points
    // on its line; a rounded crossing is within its error of it), then the other.
    let key = |w: u32, p: Pt| {
        let wall = &walls[w as usize];
        let (dx, dy) = (wall[1].x - wall[0].x, wall[1].y - wall[0].y);
        let (u, v, d) = if dx.abs() >= dy.abs() {
            (p.x, p.y, dx)
        } else {
            (p.y, p.x, dy)
        };
        if d < 0.0 {
            (-u, -v)
        } else {
            (u, v)
        }
    };
    let sort = |cuts: &mut Vec<Cut>| {
        cuts.sort_unstable_by(|a, b| {
            a.wall.cmp(&b.wall).then_with(|| {
                let (ka, kb) = (key(a.wall, a.p), key(b.wall, b.p));
                ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
            })
        })
    };
    sort(&mut cuts);
    if canonical_crossings::<F>(walls, &mut cuts, &mut crossings) {
        sort(&mut cuts);
    }
    let mut out = Vec::with_capacity(n + cuts.len());
    let mut c = 0;
    for (i, w) in walls.iter().enumerate() {
        let mut from = w[0];
        while c < cuts.len() && cuts[c].wall as usize == i {
            let p = cuts[c].p;
            if p != from && p != w[1] {
                out.push([from, p]);
                from = p;
            }
            c += 1;
        }
        if from != w[1] {
            out.push([from, w[1]]);
        }
    }
    out
}

/// Whether `p`, a point of the line of `w`, lies strictly between its ends.
#[inline(always)]
fn strictly_inside(w: &[Pt; 2], p: Pt) -> bool {
    let between = |a: f64, b: f64, v: f64| (a < v && v < b) || (b < v && v < a);
    if w[0].x != w[1].x {
        between(w[0].x, w[1].x, p.x)
    } else {
        between(w[0].y, w[1].y, p.y)
    }
}

/// A point where a wall is split: a made crossing (`crossing` its index) or an input point
/// (`crossing == NONE`).
#[derive(Clone, Copy, Debug)]
struct Cut {
    wall: u32,
    p: Pt,
    crossing: u32,
}

const NONE: u32 = u32::MAX;

/// A proper crossing of walls `i` and `j`, made once and shared by both.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    i: u32,
    j: u32,
    p: Pt,
    /// A bound on the distance (in each coordinate) from `p` to the exact crossing, or `0.0`
    /// when `p` is already the exact crossing rounded to nearest.
    err: f64,
}

/// The crossing of walls `wi` and `wj` (a proper one), rounded to `F` and clamped into both
/// walls' boxes.
fn crossing<A: Arith, F: Real>(wi: &[Pt; 2], wj: &[Pt; 2]) -> Pt {
    let x = A::cut(wj[0], wj[1], wi[0], wi[1]);
    let x = round_into::<F>(x, wi[0], wi[1]);
    round_into::<F>(x, wj[0], wj[1])
}

/// The cuts the pair `i`, `j` makes in each other.
fn pair_cuts<A: Arith, F: Real>(
    i: u32,
    wi: &[Pt; 2],
    j: u32,
    wj: &[Pt; 2],
    cuts: &mut Vec<Cut>,
    crossings: &mut Vec<Crossing>,
) {
    let d1 = A::orient(wi[0], wi[1], wj[0]);
    let d2 = A::orient(wi[0], wi[1], wj[1]);
    if d1 * d2 > 0 {
        return;
    }
    let d3 = A::orient(wj[0], wj[1], wi[0]);
    let d4 = A::orient(wj[0], wj[1], wi[1]);
    if d3 * d4 > 0 {
        return;
    }
    if d1 * d2 < 0 && d3 * d4 < 0 {
        // A proper crossing: one made point, shared by both walls.
        let p = crossing::<A, F>(wi, wj);
        let err = A::crossing_error::<F>(wi, wj, p);
        let crossing = crossings.len() as u32;
        crossings.push(Crossing { i, j, p, err });
        cuts.push(Cut {
            wall: i,
            p,
            crossing,
        });
        cuts.push(Cut {
            wall: j,
            p,
            crossing,
        });
        return;
    }
    // Endpoints of one on the other (a T, or a collinear overlap): cut at those input points.
    for (d, p) in [(d1, wj[0]), (d2, wj[1])] {
        if d == 0 && strictly_inside(wi, p) {
            cuts.push(Cut {
                wall: i,
                p,
                crossing: NONE,
            });
        }
    }
    for (d, p) in [(d3, wi[0]), (d4, wi[1])] {
        if d == 0 && strictly_inside(wj, p) {
            cuts.push(Cut {
                wall: j,
                p,
                crossing: NONE,
            });
        }
    }
}

/// Makes every crossing that might be the same exact point as another cut of one of its walls
/// (three or more walls through one point, or a wall's endpoint on the crossing of two others)
/// the exact crossing rounded to nearest: the same exact point then gives the same made point
/// from every pair, and no wall is split twice within rounding of one point. The rest keep
/// their fast point. `cuts` is sorted along each wall. Returns whether any point moved.
fn canonical_crossings<F: Real>(
    walls: &[[Pt; 2]],
    cuts: &mut [Cut],
    crossings: &mut [Crossing],
) -> bool {
    let err = |c: &Cut| {
        if c.crossing == NONE {
            0.0
        } else {
            crossings[c.crossing as usize].err
        }
    };
    let mut redo = vec![false; crossings.len()];
    let mut start = 0;
    while start < cuts.len() {
        let wall = cuts[start].wall;
        let mut end = start;
        let mut widest = 0.0f64;
        while end < cuts.len() && cuts[end].wall == wall {
            widest = widest.max(err(&cuts[end]));
            end += 1;
        }
        if widest > 0.0 {
            let w = &walls[wall as usize];
            let x_major = (w[1].x - w[0].x).abs() >= (w[1].y - w[0].y).abs();
            for a in start..end {
                let ca = cuts[a];
                for cb in &cuts[a + 1..end] {
                    let (dx, dy) = ((ca.p.x - cb.p.x).abs(), (ca.p.y - cb.p.y).abs());
                    // Sorted along the wall's major axis: later cuts are only farther.
                    if (if x_major { dx } else { dy }) > err(&ca) + widest {
                        break;
                    }
                    let reach = err(&ca) + err(cb);
                    if reach > 0.0 && dx.max(dy) <= reach {
                        for c in [ca.crossing, cb.crossing] {
                            if c != NONE {
                                redo[c as usize] = true;
                            }
                        }
                    }
                }
            }
        }
        start = end;
    }
    if !redo.contains(&true) {
        return false;
    }
    for (k, c) in crossings.iter_mut().enumerate() {
        if redo[k] {
            let (wi, wj) = (&walls[c.i as usize], &walls[c.j as usize]);
            c.p = crossing::<Exact, F>(wi, wj);
            c.err = 0.0;
        }
    }
    for c in cuts.iter_mut() {
        if c.crossing != NONE && redo[c.crossing as usize] {
            c.p = crossings[c.crossing as usize].p;
        }
    }
    true
}

/// The half-plane of the direction `p − o`: 0 for angles in `[0, π)`, 1 for `[π, 2π)`.
/// Differences of floats have exact signs.
#[inline(always)]
fn half(o: Pt, p: Pt) -> u8 {
    let (dx, dy) = (p.x - o.x, p.y - o.y);
    if dy > 0.0 || (dy == 0.0 && dx > 0.0) {
        0
    } else {
        1
    }
}

/// The order of the directions `a − o` and `b − o` by angle from `+x`, counter-clockwise.
#[inline(always)]
fn dir_cmp<A: Arith>(o: Pt, a: Pt, b: Pt) -> Ordering {
    let (ha, hb) = (half(o, a), half(o, b));
    if ha != hb {
        return ha.cmp(&hb);
    }
    match A::orient(o, a, b) {
        1 => Ordering::Less,
        -1 => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// How far apart two computed [`pseudo_angle`]s must be for their exact order to be theirs:
/// twice the error of one (about `8u` for `u = 2^-53`: the two differences, the sum, the
/// quotient and the last addition), with room to spare.
const KEY_TIE: f64 = 1e-14;

/// The direction of `p − o` as a number in `[0, 4)` that grows with its angle from `+x`
/// (`dy / (|dx| + |dy|)` placed by quadrant): exactly monotone, and within about `8u` once
/// computed. Only for [`Fast`] coordinates (no difference underflows or overflows).
#[inline(always)]
fn pseudo_angle(o: Pt, p: Pt) -> f64 {
    let (dx, dy) = (p.x - o.x, p.y - o.y);
    let r = dy / (dx.abs() + dy.abs());
    if dx < 0.0 {
        2.0 - r
    } else if dy < 0.0 {
        4.0 + r
    } else {
        r
    }
}

/// Buckets of [`sort_events`]: equal spans of pseudo-angle, 256 a quadrant.
const SORT_BUCKETS: usize = 1024;

/// Sorts the events by direction around `o`. With [`Arith::KEYS`] (every `key` set), by a
/// counting sort on the key's bucket (each bucket of more than a few events then sorted by
/// key, as where far walls crowd a narrow wedge), then an insertion pass by key that decides
/// every pair closer than [`KEY_TIE`] with the exact order (keys farther apart are in exact
/// order already); else by the exact order alone. `spare` is a second buffer.
#[inline(always)]
fn sort_events<A: Arith>(o: Pt, events: &mut Vec<Event>, spare: &mut Vec<Event>) {
    if !A::KEYS || events.is_empty() {
        events.sort_unstable_by(|a, b| dir_cmp::<A>(o, a.p, b.p));
        return;
    }
    // Keys are in [0, 4]: the cast floors, and 4 (a rounding) joins the last bucket.
    let bucket = |e: &Event| ((e.key * (SORT_BUCKETS / 4) as f64) as usize).min(SORT_BUCKETS - 1);
    let mut end = [0u32; SORT_BUCKETS];
    for e in events.iter() {
        end[bucket(e)] += 1;
    }
    let (mut at, mut most) = (0, 0);
    for n in end.iter_mut() {
        most = most.max(*n);
        at += *n;
        *n = at;
    }
    spare.clear();
    spare.resize(events.len(), events[0]);
    for e in events.iter().rev() {
        let b = &mut end[bucket(e)];
        *b -= 1;
        spare[*b as usize] = *e;
    }
    core::mem::swap(events, spare);
    // `end[b]` is now bucket b's start.
    if most > 8 {
        let mut from = 0;
        for b in 1..=SORT_BUCKETS {
            let to = end.get(b).map_or(events.len(), |&e| e as usize);
            if to - from > 8 {
                events[from..to].sort_unstable_by(|a, b| a.key.total_cmp(&b.key));
            }
            from = to;
        }
    }
    let before = |a: &Event, b: &Event| {
        if (a.key - b.key).abs() > KEY_TIE {
            a.key < b.key
        } else {
            dir_cmp::<A>(o, a.p, b.p) == Ordering::Less
        }
    };
    for i in 1..events.len() {
        let mut j = i;
        while j > 0 && before(&events[j], &events[j - 1]) {
            events.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The heap's order: which of two walls active in a common wedge is nearer to `o` there.
struct Nearer<'a> {
    o: Pt,
    walls: &'a [SweepWall],
    /// Points on the rays of the current wedge's two sides (for a residual crossing only).
    wedge: (Pt, Pt),
}

impl Nearer<'_> {
    /// Whether wall `a` is nearer than wall `b` (ties, which only a rounded crossing can make,
    /// to the lower index).
    #[inline(always)]
    fn less<A: Arith>(&self, a: u32, b: u32) -> bool {
        let (wa, wb) = (&self.walls[a as usize], &self.walls[b as usize]);
        // `o` is left of every wall (counter-clockwise ends), so "left of b" is "o's side".
        let s1 = A::orient(wb.s, wb.e, wa.s);
        let s2 = A::orient(wb.s, wb.e, wa.e);
        if s1 >= 0 && s2 >= 0 && (s1 | s2) != 0 {
            return true;
        }
        if s1 <= 0 && s2 <= 0 && (s1 | s2) != 0 {
            return false;
        }
        let t1 = A::orient(wa.s, wa.e, wb.s);
        let t2 = A::orient(wa.s, wa.e, wb.e);
        if t1 >= 0 && t2 >= 0 && (t1 | t2) != 0 {
            return false;
        }
        if t1 <= 0 && t2 <= 0 && (t1 | t2) != 0 {
            return true;
        }
        // Each straddles the other's line: a crossing that rounding made (see the module docs).
        match self.closer_on_bisector(wa, wb) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => a < b,
        }
    }

    /// The distances to the two walls' lines along the wedge's bisector, in `f64`.
    #[inline(always)]
    fn closer_on_bisector(&self, a: &SweepWall, b: &SweepWall) -> Ordering {
        let o = self.o;
        let unit = |p: Pt| {
            let (x, y) = (p.x - o.x, p.y - o.y);
            let l = x.hypot(y);
            (x / l, y / l)
        };
        let (u, v) = (unit(self.wedge.0), unit(self.wedge.1));
        let d = (u.0 + v.0, u.1 + v.1);
        let t = |w: &SweepWall| {
            let (ex, ey) = (w.e.x - w.s.x, w.e.y - w.s.y);
            det2(w.s.x - o.x, w.s.y - o.y, ex, ey) / det2(d.0, d.1, ex, ey)
        };
        t(a).total_cmp(&t(b))
    }
}

/// An indexed binary min-heap of wall ids under [`Nearer`], with removal of any member.
#[inline(always)]
fn heap_up<A: Arith>(h: &mut [u32], pos: &mut [u32], cmp: &Nearer<'_>, mut i: usize) {
    while i > 0 {
        let p = (i - 1) / 2;
        if cmp.less::<A>(h[i], h[p]) {
            h.swap(i, p);
            pos[h[i] as usize] = i as u32;
            pos[h[p] as usize] = p as u32;
            i = p;
        } else {
            break;
        }
    }
}

#[inline(always)]
fn heap_down<A: Arith>(h: &mut [u32], pos: &mut [u32], cmp: &Nearer<'_>, mut i: usize) {
    let n = h.len();
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < n && cmp.less::<A>(h[l], h[m]) {
            m = l;
        }
        if r < n && cmp.less::<A>(h[r], h[m]) {
            m = r;
        }
        if m == i {
            break;
        }
        h.swap(i, m);
        pos[h[i] as usize] = i as u32;
        pos[h[m] as usize] = m as u32;
        i = m;
    }
}

#[inline(always)]
fn heap_push<A: Arith>(h: &mut Vec<u32>, pos: &mut [u32], cmp: &Nearer<'_>, w: u32) {
    h.push(w);
    let i = h.len() - 1;
    pos[w as usize] = i as u32;
    heap_up::<A>(h, pos, cmp, i);
}

#[inline(always)]
fn heap_remove<A: Arith>(h: &mut Vec<u32>, pos: &mut [u32], cmp: &Nearer<'_>, w: u32) {
    let i = pos[w as usize] as usize;
    if i >= h.len() || h[i] != w {
        return;
    }
    let last = h.len() - 1;
    h.swap(i, last);
    h.pop();
    if i < h.len() {
        pos[h[i] as usize] = i as u32;
        heap_up::<A>(h, pos, cmp, i);
        heap_down::<A>(h, pos, cmp, i);
    }
}

/// The polygon of `o` into `s.verts`. With `cells` (of `pieces`, [`Fast`] only), the walls
/// hidden everywhere are left out ([`gather`]): the same polygon, found from fewer walls.
#[inline(always)]
fn sweep<A: Arith, F: Real>(
    o: Pt,
    rect: &Rect<F>,
    pieces: &[[Pt; 2]],
    cells: Option<&Cells>,
    s: &mut VisibilityScratch,
) {
    s.walls.clear();
    s.events.clear();
    s.groups.clear();
    s.heap.clear();
    s.seen.clear();
    s.joins.clear();
    s.verts.clear();
    match cells {
        Some(cells) if A::KEYS && cells.g > 0 => gather(o, pieces, cells, s),
        _ => s
            .walls
            .extend(pieces.iter().filter_map(|&p| sweep_wall::<A>(o, p))),
    }
    let (xmin, ymin, xmax, ymax) = (
        rect.xmin().to_f64(),
        rect.ymin().to_f64(),
        rect.xmax().to_f64(),
        rect.ymax().to_f64(),
    );
    let corners = [
        Pt::new(xmin, ymin),
        Pt::new(xmax, ymin),
        Pt::new(xmax, ymax),
        Pt::new(xmin, ymax),
    ];
    for k in 0..4 {
        s.walls
            .push(keyed_wall::<A>(o, corners[k], corners[(k + 1) % 4]));
    }
    for (i, w) in s.walls.iter().enumerate() {
        s.events.push(Event {
            p: w.s,
            key: w.ks,
            wall: i as u32,
            start: true,
        });
        s.events.push(Event {
            p: w.e,
            key: w.ke,
            wall: i as u32,
            start: false,
        });
    }
    sort_events::<A>(o, &mut s.events, &mut s.sorted);
    // Groups of equal direction: s.groups[g] is the first event of group g.
    for i in 0..s.events.len() {
        let new_group = i == 0
            || (A::KEYS && s.events[i].key - s.events[i - 1].key > KEY_TIE)
            || dir_cmp::<A>(o, s.events[i - 1].p, s.events[i].p) != Ordering::Equal;
        if new_group {
            s.groups.push(i as u32);
        }
        let g = (s.groups.len() - 1) as u32;
        let ev = s.events[i];
        let w = &mut s.walls[ev.wall as usize];
        if ev.start {
            w.gs = g;
        } else {
            w.ge = g;
        }
    }
    let ng = s.groups.len();
    s.groups.push(s.events.len() as u32);

    s.pos.clear();
    s.pos.resize(s.walls.len(), u32::MAX);
    let VisibilityScratch {
        walls,
        events,
        groups,
        heap,
        pos,
        seen,
        ..
    } = s;
    // The walls active just before the first group's ray: those that wrap around it.
    {
        let cmp = Nearer {
            o,
            walls,
            wedge: (events[groups[ng - 1] as usize].p, events[0].p),
        };
        for (i, w) in walls.iter().enumerate() {
            if w.ge < w.gs {
                heap_push::<A>(heap, pos, &cmp, i as u32);
            }
        }
    }
    for g in 0..ng {
        let cmp = Nearer {
            o,
            walls,
            wedge: (
                events[groups[g] as usize].p,
                events[groups[(g + 1) % ng] as usize].p,
            ),
        };
        let evs = &events[groups[g] as usize..groups[g + 1] as usize];
        for ev in evs.iter().filter(|e| !e.start) {
            heap_remove::<A>(heap, pos, &cmp, ev.wall);
        }
        for ev in evs.iter().filter(|e| e.start) {
            heap_push::<A>(heap, pos, &cmp, ev.wall);
        }
        seen.push(heap.first().copied().unwrap_or(u32::MAX));
    }

    // The boundary: where the wall seen changes at a group's ray, a vertex on each. A wall's
    // last vertex is kept from going back past its first: two cuts a rounding apart (a wedge
    // narrower than an ulp) would otherwise reverse along the wall and cross its neighbours.
    for g in 0..ng {
        let before = seen[(g + ng - 1) % ng];
        let after = seen[g];
        if before == after || before == u32::MAX || after == u32::MAX {
            continue;
        }
        let evs = &events[groups[g] as usize..groups[g + 1] as usize];
        let first = point_on::<A, F>(o, walls, g as u32, evs, after);
        s.joins.push((g as u32, after, first));
    }
    // The wall seen up to a join is the one the join before it entered (the rect's edges keep
    // some wall in view in every wedge, so no change of wall is skipped).
    let m = s.joins.len();
    for k in 0..m {
        let (g, _, first) = s.joins[k];
        let (_, before, entry) = s.joins[(k + m - 1) % m];
        debug_assert_eq!(before, seen[(g as usize + ng - 1) % ng]);
        let evs = &events[groups[g as usize] as usize..groups[g as usize + 1] as usize];
        let mut last = point_on::<A, F>(o, walls, g, evs, before);
        if goes_back(&walls[before as usize], entry, last) {
            last = entry;
        }
        s.verts.push(last);
        if first != last {
            s.verts.push(first);
        }
    }
    simplify::<A>(&mut s.verts);
    if drop_rounding_spikes::<F>(&mut s.verts) {
        simplify::<A>(&mut s.verts);
    }
}

/// Where the ray of group `g` (through the points `evs`) meets wall `w`: its endpoint there,
/// a point of the group on its line, or the cut computed and rounded to `F`.
#[inline(always)]
fn point_on<A: Arith, F: Real>(o: Pt, walls: &[SweepWall], g: u32, evs: &[Event], w: u32) -> Pt {
    let wall = &walls[w as usize];
    if wall.ge == g {
        return wall.e;
    }
    if wall.gs == g {
        return wall.s;
    }
    for ev in evs {
        if A::orient(wall.s, wall.e, ev.p) == 0 {
            return ev.p;
        }
    }
    let x = A::cut(o, nearest(o, evs), wall.s, wall.e);
    round_into::<F>(x, wall.s, wall.e)
}

/// The group's point nearest to `o` (L1 distance, ties by coordinates), through which a cut's
/// ray is drawn. The points of a group lie on one ray, where the cut is exact whichever is
/// taken, but the rounding is not; this rule makes the choice independent of the walls hidden
/// behind the cut (a join's group holds a point of a wall seen there, nearer than any hidden
/// wall's), so that [`gather`] changes no bit.
#[inline(always)]
fn nearest(o: Pt, evs: &[Event]) -> Pt {
    let key = |p: Pt| ((p.x - o.x).abs() + (p.y - o.y).abs(), p.x, p.y);
    let mut best = evs[0].p;
    for ev in &evs[1..] {
        let (a, b) = (key(ev.p), key(best));
        if a.0 < b.0 || (a.0 == b.0 && (a.1, a.2) < (b.1, b.2)) {
            best = ev.p;
        }
    }
    best
}

/// Angular bins of [`Occlusion`]: a power of two, so that the bins' edges are exact
/// pseudo-angles.
const BINS: usize = 256;

/// How far [`Occlusion`]'s distances and pseudo-angles are trusted (see there).
const SLACK: f64 = 1e-9;
const EDGE: f64 = 1e-12;

/// The viewpoint's walls, gathered near to far with the hidden ones left out: the sweep's cost
/// then grows with the walls near the viewpoint more than with the scene.
///
/// The directions around `o` are cut into [`BINS`] wedges of equal pseudo-angle. A wall whose
/// open wedge covers a whole bin crosses every ray of the bin no farther than its farther
/// endpoint: that distance bounds what can be seen in the bin. Anything whose bounding box
/// lies beyond the bound of every bin it touches is behind such a wall on every ray that meets
/// it: it is never the wall seen, and its endpoints are never a cut's ray ([`nearest`]), so
/// the polygon does not change without it. The cells of [`Cells`] are visited ring by ring
/// outward from the viewpoint's, a run of a ring's side skipped at once when the box of its
/// pieces is hidden, then a cell when its box is, then a wall when it is; the walls gathered
/// are tested again against the final bounds.
///
/// The distances are compared squared, each within a few units of `2^-53` of its exact value
/// (relative: single differences, squared and summed), against a margin of [`SLACK`]; bins
/// get a margin of [`EDGE`] in pseudo-angle (whose error is about `10^-15`). So a wall goes
/// only when it is hidden by a wide margin, and the walls that bound a bin stay.
struct Occlusion {
    o: Pt,
    /// Pseudo-angle to bin.
    per: f64,
    /// The least bound.
    least: f64,
}

impl Occlusion {
    /// The squared distance from `o` to the box `[x0, x1] × [y0, y1]`, less the margin.
    #[inline(always)]
    fn near(&self, [x0, y0, x1, y1]: [f64; 4]) -> f64 {
        let gap = |a: f64, b: f64, v: f64| (a - v).max(v - b).max(0.0);
        sq(gap(x0, x1, self.o.x), gap(y0, y1, self.o.y)) * (1.0 - SLACK)
    }

    /// Whether something at squared distance `near` (from [`Occlusion::near`]) within the
    /// pseudo-angles `[lo, hi]` (`lo ≤ hi < lo + 2`, both under 8) is hidden.
    #[inline(always)]
    fn hidden(&self, bound: &[f64], near: f64, lo: f64, hi: f64) -> bool {
        if near <= self.least {
            return false;
        }
        // From the bin of `lo − EDGE` (which may be -1) to that of `hi + EDGE`.
        let a = ((lo - EDGE) * self.per + BINS as f64) as usize;
        let b = ((hi + EDGE) * self.per + BINS as f64) as usize;
        (a..=b).all(|k| near > bound[k % BINS])
    }

    /// Adds a wall (counter-clockwise around `o`, its [`wedge`] `(ks, ke)`) to the bounds.
    #[inline(always)]
    fn add(&mut self, bound: &mut [f64], w: &SweepWall, (ks, ke): (f64, f64)) {
        // Keys are in [0, 8): truncation is the floor, and one more than it the ceiling
        // (at worst one bin fewer).
        let first = ((ks + EDGE) * self.per) as usize + 1;
        let end = ((ke - EDGE) * self.per).max(0.0) as usize;
        if first < end {
            let d2 = |p: Pt| sq(p.x - self.o.x, p.y - self.o.y);
            let far = d2(w.s).max(d2(w.e)) * (1.0 + SLACK);
            for k in first..end {
                let b = &mut bound[k % BINS];
                *b = b.min(far);
            }
            self.least = self.least.min(far);
        }
    }

    /// Whether the box is hidden.
    #[inline(always)]
    fn box_hidden(&self, bound: &[f64], bx: [f64; 4]) -> bool {
        let near = self.near(bx);
        if near <= self.least {
            return false;
        }
        // `o` is outside the box (`near > 0`): the box's directions run counter-clockwise from
        // one corner of its silhouette to another, chosen by the side of the box `o` is on
        // (x, then y: 0 below the box, 1 within its span, 2 above). Indices into `bx`.
        const SILHOUETTE: [[(usize, usize); 2]; 9] = [
            [(2, 1), (0, 3)],
            [(2, 1), (0, 1)],
            [(2, 3), (0, 1)],
            [(0, 1), (0, 3)],
            [(0, 1), (0, 1)],
            [(2, 3), (2, 1)],
            [(0, 1), (2, 3)],
            [(0, 3), (2, 3)],
            [(0, 3), (2, 1)],
        ];
        let side = |v: f64, lo: f64, hi: f64| (v >= lo) as usize + (v > hi) as usize;
        let [x0, y0, x1, y1] = bx;
        let [(lx, ly), (hx, hy)] = SILHOUETTE[3 * side(self.o.y, y0, y1) + side(self.o.x, x0, x1)];
        let lo = pseudo_angle(self.o, Pt::new(bx[lx], bx[ly]));
        let mut hi = pseudo_angle(self.o, Pt::new(bx[hx], bx[hy]));
        if hi < lo {
            hi += 4.0;
        }
        // A box seen edge-on from beside it spans a half-turn, and a rounding may wrap a box
        // seen end-on (as one direction) around the turn: keep both.
        if hi - lo > 1.9 {
            return false;
        }
        self.hidden(bound, near, lo, hi)
    }
}

/// The piece `p → q` as a sweep wall, its ends counter-clockwise around `o`; `None` when it is
/// collinear with `o` (or runs through it): it blocks nothing of the interior.
#[inline(always)]
fn sweep_wall<A: Arith>(o: Pt, [p, q]: [Pt; 2]) -> Option<SweepWall> {
    match A::orient(o, p, q) {
        1 => Some(keyed_wall::<A>(o, p, q)),
        -1 => Some(keyed_wall::<A>(o, q, p)),
        _ => None,
    }
}

/// The sweep wall `s → e`, with its ends' pseudo-angles when [`Arith::KEYS`].
#[inline(always)]
fn keyed_wall<A: Arith>(o: Pt, s: Pt, e: Pt) -> SweepWall {
    let (ks, ke) = if A::KEYS {
        (pseudo_angle(o, s), pseudo_angle(o, e))
    } else {
        (0.0, 0.0)
    };
    SweepWall {
        s,
        e,
        ks,
        ke,
        gs: 0,
        ge: 0,
    }
}

/// The wall's wedge in pseudo-angles, `(lo, hi)` with `lo ≤ hi < lo + 2`: the open wedge from
/// `s` to `e` is less than a half-turn (2 in pseudo-angle), so a smaller `ke` is either past
/// the turn or a rounding of a wedge narrower than it.
#[inline(always)]
fn wedge(w: &SweepWall) -> (f64, f64) {
    let (ks, ke) = (w.ks, w.ke);
    if ke >= ks {
        (ks, ke)
    } else if ks - ke > 2.0 {
        (ks, ke + 4.0)
    } else {
        (ks, ks)
    }
}

/// The box `[xmin, ymin, xmax, ymax]` of a segment.
#[inline(always)]
fn bbox([a, b]: &[Pt; 2]) -> [f64; 4] {
    [a.x.min(b.x), a.y.min(b.y), a.x.max(b.x), a.y.max(b.y)]
}

/// Gathers the walls of `pieces` that `o` may see into `s.walls`, oriented counter-clockwise
/// around `o` ([`Occlusion`]).
#[inline(always)]
fn gather(o: Pt, pieces: &[[Pt; 2]], cells: &Cells, s: &mut VisibilityScratch) {
    let mut occ = Occlusion {
        o,
        per: BINS as f64 / 4.0,
        least: f64::INFINITY,
    };
    s.bound.clear();
    s.bound.resize(BINS, f64::INFINITY);
    let g = cells.g as isize;
    let cell = |v: f64, lo: f64, inv: f64| (((v - lo) * inv) as isize).clamp(0, g - 1);
    let (ci, cj) = (
        cell(o.x, cells.x0, cells.inv_w),
        cell(o.y, cells.y0, cells.inv_h),
    );
    let visit = |i: isize, j: isize, s: &mut VisibilityScratch, occ: &mut Occlusion| {
        if i < 0 || j < 0 || i >= g || j >= g {
            return;
        }
        let c = (j * g + i) as usize;
        let (a, b) = (cells.start[c] as usize, cells.start[c + 1] as usize);
        if a == b || occ.box_hidden(&s.bound, cells.boxes[c]) {
            return;
        }
        for &p in &pieces[a..b] {
            let Some(w) = sweep_wall::<Fast>(o, p) else {
                continue;
            };
            // A wall hidden now stays hidden, and bounds nothing nearer than what hides it.
            let span = wedge(&w);
            if !occ.hidden(&s.bound, occ.near(bbox(&[w.s, w.e])), span.0, span.1) {
                occ.add(&mut s.bound, &w, span);
                s.walls.push(w);
            }
        }
    };
    // The cells `from ..= to` of row `fixed` (or of a column), in runs of [`RUN`] skipped
    // together when the box of their pieces is hidden: far out, where a ring is long, most
    // of it is.
    let side = |row: bool,
                fixed: isize,
                from: isize,
                to: isize,
                s: &mut VisibilityScratch,
                occ: &mut Occlusion| {
        if fixed < 0 || fixed >= g {
            return;
        }
        let at = |k: isize| if row { (k, fixed) } else { (fixed, k) };
        let (mut k, to) = (from.max(0), to.min(g - 1));
        while k <= to {
            let end = (k + RUN - 1).min(to);
            let mut u = [f64::INFINITY, f64::INFINITY, -f64::INFINITY, -f64::INFINITY];
            for m in k..=end {
                let (i, j) = at(m);
                let b = cells.boxes[(j * g + i) as usize];
                u = [
                    u[0].min(b[0]),
                    u[1].min(b[1]),
                    u[2].max(b[2]),
                    u[3].max(b[3]),
                ];
            }
            if u[0] <= u[2] && (end == k || !occ.box_hidden(&s.bound, u)) {
                for m in k..=end {
                    let (i, j) = at(m);
                    visit(i, j, s, occ);
                }
            }
            k = end + 1;
        }
    };
    let rings = ci.max(g - 1 - ci).max(cj).max(g - 1 - cj);
    visit(ci, cj, s, &mut occ);
    for r in 1..=rings {
        side(true, cj - r, ci - r, ci + r, s, &mut occ);
        side(true, cj + r, ci - r, ci + r, s, &mut occ);
        side(false, ci - r, cj - r + 1, cj + r - 1, s, &mut occ);
        side(false, ci + r, cj - r + 1, cj + r - 1, s, &mut occ);
    }
    s.walls.retain(|w| {
        let (lo, hi) = wedge(w);
        !occ.hidden(&s.bound, occ.near(bbox(&[w.s, w.e])), lo, hi)
    });
}

/// The pieces' uniform grid over their box, for [`gather`]: each piece in the cell of its
/// midpoint (`pieces` sorted by cell), each cell with the box of its pieces. Which cell a
/// piece goes to only decides the order of the visit; the boxes make the skips exact.
#[derive(Clone, Debug, Default)]
struct Cells {
    /// Cells per side (0: no grid).
    g: usize,
    x0: f64,
    y0: f64,
    inv_w: f64,
    inv_h: f64,
    /// Cell `c`'s pieces are `start[c] .. start[c + 1]`.
    start: Vec<u32>,
    boxes: Vec<[f64; 4]>,
}

/// Cells of a ring's side that [`gather`] tests as one box first.
const RUN: isize = 16;

/// Pieces per cell of [`Cells`], about.
const PER_CELL: usize = 8;

impl Cells {
    /// Sorts `pieces` by cell and builds the grid (coordinates in [`in_fast_range`]).
    fn build(pieces: &mut [[Pt; 2]]) -> Self {
        if pieces.is_empty() {
            return Cells::default();
        }
        let g = ((pieces.len() / PER_CELL) as f64).sqrt().ceil().max(1.0) as usize;
        let mut bx = [f64::INFINITY, f64::INFINITY, -f64::INFINITY, -f64::INFINITY];
        for p in pieces.iter().flatten() {
            bx = [
                bx[0].min(p.x),
                bx[1].min(p.y),
                bx[2].max(p.x),
                bx[3].max(p.y),
            ];
        }
        let inv = |lo: f64, hi: f64| if hi > lo { g as f64 / (hi - lo) } else { 0.0 };
        let (inv_w, inv_h) = (inv(bx[0], bx[2]), inv(bx[1], bx[3]));
        let at = |v: f64, lo: f64, inv: f64| (((v - lo) * inv) as usize).min(g - 1);
        let cell_of = |p: &[Pt; 2]| {
            let (mx, my) = (p[0].x / 2.0 + p[1].x / 2.0, p[0].y / 2.0 + p[1].y / 2.0);
            at(my, bx[1], inv_h) * g + at(mx, bx[0], inv_w)
        };
        // Stable, so pieces keep their order within a cell.
        pieces.sort_by_key(cell_of);
        let mut start = vec![0u32; g * g + 1];
        let mut boxes = vec![[f64::INFINITY, f64::INFINITY, -f64::INFINITY, -f64::INFINITY]; g * g];
        for p in pieces.iter() {
            let c = cell_of(p);
            start[c + 1] += 1;
            let (b, q) = (&mut boxes[c], bbox(p));
            *b = [
                b[0].min(q[0]),
                b[1].min(q[1]),
                b[2].max(q[2]),
                b[3].max(q[3]),
            ];
        }
        for c in 0..g * g {
            start[c + 1] += start[c];
        }
        Cells {
            g,
            x0: bx[0],
            y0: bx[1],
            inv_w,
            inv_h,
            start,
            boxes,
        }
    }
}

/// `x² + y²`: no square overflows or underflows in [`in_fast_range`].
#[inline(always)]
fn sq(x: f64, y: f64) -> f64 {
    x * x + y * y
}

/// Whether `q` lies before `p` along `wall` (from `s` to `e`), both points of its line (made
/// points within rounding of it): compared on the wall's longer axis, exactly.
#[inline(always)]
fn goes_back(wall: &SweepWall, p: Pt, q: Pt) -> bool {
    let back =
        |from: f64, to: f64, pv: f64, qv: f64| (qv < pv && from < to) || (qv > pv && from > to);
    if (wall.e.x - wall.s.x).abs() >= (wall.e.y - wall.s.y).abs() {
        back(wall.s.x, wall.e.x, p.x, q.x)
    } else {
        back(wall.s.y, wall.e.y, p.y, q.y)
    }
}

/// Drops repeated vertices and vertices on the line of their neighbours (straight-through or
/// spikes), around the whole ring.
#[inline(always)]
fn simplify<A: Arith>(v: &mut Vec<Pt>) {
    let mut out: Vec<Pt> = Vec::with_capacity(v.len());
    for &p in v.iter() {
        loop {
            if out.last() == Some(&p) {
                break;
            }
            let n = out.len();
            if n >= 2 && A::orient(out[n - 2], out[n - 1], p) == 0 {
                out.pop();
                continue;
            }
            out.push(p);
            break;
        }
    }
    // Around the seam.
    let mut front = 0;
    loop {
        let live = out.len() - front;
        if live < 3 {
            break;
        }
        let n = out.len();
        if out[n - 1] == out[front] {
            out.pop();
            continue;
        }
        if A::orient(out[n - 2], out[n - 1], out[front]) == 0 {
            out.pop();
            continue;
        }
        if A::orient(out[n - 1], out[front], out[front + 1]) == 0 {
            front += 1;
            continue;
        }
        break;
    }
    out.drain(..front);
    *v = out;
}

/// Drops the tip of every spike whose two sides end within 4 ulps of each other: a wall's
/// endpoint seen exactly edge-on through a point that is made twice (the crossing of two walls,
/// and the ray's cut through that endpoint with one of them: one exact point, two roundings).
/// Such a spike's width is rounding alone, and its sides could cross each other; without its
/// tip the ring stays simple and differs from the exact polygon by less than the made points'
/// own error. Returns whether it dropped any.
fn drop_rounding_spikes<F: Real>(v: &mut Vec<Pt>) -> bool {
    let n = v.len();
    if n < 4 {
        return false;
    }
    let eps = 2.0 * (1.0 - F::ONE_BELOW.to_f64());
    let near = |p: f64, q: f64| (p - q).abs() <= 4.0 * eps * p.abs().max(q.abs());
    let close = |a: Pt, c: Pt| near(a.x, c.x) && near(a.y, c.y);
    let tips: Vec<bool> = (0..n)
        .map(|i| {
            let (a, b, c) = (v[(i + n - 1) % n], v[i], v[(i + 1) % n]);
            close(a, c) && !close(a, b)
        })
        .collect();
    if !tips.contains(&true) {
        return false;
    }
    let mut k = 0;
    v.retain(|_| {
        k += 1;
        !tips[k - 1]
    });
    true
}

/// The visibility polygon of `viewpoint` among `walls` inside `bounds` (SPEC §2): the closure
/// of the interior of the points `P` of the rect that no wall hides (no wall meets `O → P`
/// before `P`), as a simple polygon in counter-clockwise order, starting at the first vertex at
/// or after the direction `+x` from the viewpoint.
///
/// * Vertices are input points bit for bit (wall endpoints, rect corners) or made points:
///   where two walls cross, where a wall leaves the rect (SPEC §1's clip: exactly on the edge),
///   and where a ray from the viewpoint through an input or made point meets a wall or the
///   rect. A made point is computed in `f64` from well-conditioned determinants and rounded
///   once to `F`: within a few ulps of the exact point divided by the sine of the angle of the
///   two lines that make it.
/// * No repeated consecutive vertices, no three consecutive vertices on a line.
/// * Walls may share endpoints, touch and cross. A wall with a NaN or infinite coordinate is
///   ignored; a wall of zero length or collinear with the viewpoint hides nothing of the
///   polygon (its shadow has no interior).
/// * Every decision is exact (`robust::orient2d` or rationals); see the module docs.
///
/// Errors ([`Error::InvalidRect`], [`Error::InvalidArgument`]): bounds of zero width or height;
/// a viewpoint that is not finite, outside the bounds or on their boundary, or on a wall
/// (including a zero-length wall at the viewpoint). Each names the viewpoint and the wall.
///
/// O(M log M) for M walls after the walls' preparation, which finds crossing pairs by a sweep
/// over their boxes (quadratic only when every box overlaps every other); for many viewpoints,
/// prepare once with [`VisibilityWalls`].
pub fn visibility_polygon<F: Real>(
    viewpoint: (F, F),
    bounds: &Rect<F>,
    walls: &SegmentsRef<'_, F>,
) -> Result<Vec<(F, F)>, Error> {
    VisibilityWalls::new(bounds, walls)?.polygon(viewpoint)
}

/// The visibility polygons of the viewpoints `(ox[i], oy[i])` among the same walls, prepared
/// once; see [`VisibilityWalls::polygons`].
pub fn visibility_polygons<F: Real>(
    ox: &[F],
    oy: &[F],
    bounds: &Rect<F>,
    walls: &SegmentsRef<'_, F>,
) -> Result<VisibilityPolygons<F>, Error> {
    VisibilityWalls::new(bounds, walls)?.polygons(ox, oy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffers::SegmentSource;
    use crate::workload::SplitMix64 as Rng;

    /// The scenes' walls of `kind` (a city of boxes with doorways, some turned; or random
    /// walls) of `walls` walls over `[0, side]²` placed by `at`, and viewpoints: anywhere, in
    /// boxes, and within an ulp or so of a corner or a wall.
    fn scene<F: Real>(
        kind: crate::workload::SceneKind,
        walls: usize,
        at: impl Fn(f64) -> f64,
        rng: &mut Rng,
    ) -> (Vec<Segment<F>>, Vec<(F, F)>, f64) {
        let made = kind.walls::<f64>(walls, rng.unit().to_bits());
        let walls: Vec<Segment<F>> = (0..made.len())
            .map(|i| {
                let w = made.segment(i);
                let f = |v: f64| F::from_f64(at(v));
                Segment::new(f(w.x0), f(w.y0), f(w.x1), f(w.y1))
            })
            .collect();
        let corners: Vec<(F, F)> = walls.iter().map(|w| (w.x0, w.y0)).collect();
        let side = kind.side(walls.len());
        let mut views = Vec::new();
        for _ in 0..30 {
            let x = F::from_f64(at(side * (0.005 + 0.99 * rng.unit())));
            let y = F::from_f64(at(side * (0.005 + 0.99 * rng.unit())));
            views.push((x, y));
        }
        for _ in 0..30 {
            if corners.is_empty() {
                break;
            }
            let (x, y) = corners[(rng.unit() * corners.len() as f64) as usize];
            let step = |v: F, r: f64| match (r * 3.0) as u32 {
                0 => v.next_up(),
                1 => -((-v).next_up()),
                _ => v,
            };
            views.push((step(x, rng.unit()), step(y, rng.unit())));
        }
        (walls, views, side)
    }

    /// The culled sweep gives every polygon bit for bit (the tests of `tests/suite/visibility.rs`
    /// check the polygons themselves against exact arithmetic): in cities, and among a few
    /// thousand random walls, where runs of far cells are skipped together.
    fn culling_changes_no_bit<F: Real>(kind: crate::workload::SceneKind) {
        let mut rng = Rng::new(11);
        let (mut compared, mut dropped) = (0, 0);
        let (rounds, base, step) = match kind {
            crate::workload::SceneKind::City => (60, 40, 25),
            crate::workload::SceneKind::Random => (24, 1500, 100),
        };
        for round in 0..rounds {
            // Scaled by powers of two (the same shapes), and moved far from the origin (the
            // shapes rounded: a few ulps of the offset, as in map coordinates).
            let (scale, offset) = [
                (1.0, 0.0),
                (2f64.powi(-60), 0.0),
                (2f64.powi(60), 0.0),
                (1.0, 3e4),
            ][round % 4];
            let at = |v: f64| v * scale + offset;
            let (walls, views, side) = scene::<F>(kind, base + step * round, at, &mut rng);
            let (lo, hi) = (F::from_f64(at(0.0)), F::from_f64(at(side)));
            let bounds = Rect::new(lo, lo, hi, hi).unwrap();
            let prepared = VisibilityWalls::from_rows(&bounds, &walls).unwrap();
            let (mut a, mut b) = (VisibilityScratch::default(), VisibilityScratch::default());
            for &v in &views {
                let Ok(o) = prepared.check_viewpoint(v) else {
                    continue;
                };
                sweep::<Fast, F>(o, &bounds, &prepared.pieces, Some(&prepared.cells), &mut a);
                sweep::<Fast, F>(o, &bounds, &prepared.pieces, None, &mut b);
                assert_eq!(a.verts, b.verts, "viewpoint {v:?}, {} walls", walls.len());
                compared += 1;
                dropped += b.walls.len() - a.walls.len();
            }
        }
        assert!(compared > 50 * rounds, "{compared} polygons compared");
        // The culling did drop walls (a check that would pass if it never did is no check).
        assert!(
            dropped > 100 * compared,
            "{dropped} walls dropped in {compared} sweeps"
        );
    }

    /// The grid of the viewpoint check finds the first wall (by index) under a point, as a scan
    /// of every wall does: on lattice walls (short, long across the bounds, partly outside,
    /// of zero length) and points on and off them, with the grid fine and coarse.
    #[test]
    fn the_viewpoint_checks_grid_finds_the_first_wall_under_a_point() {
        let mut rng = Rng::new(5);
        let mut int = |n: f64| (rng.unit() * n).floor() - n / 2.0;
        let (mut found, mut asked) = (0, 0);
        for round in 0..40 {
            let walls: Vec<(Pt, Pt, usize)> = (0..20 + 40 * round)
                .map(|i| {
                    let a = Pt::new(int(64.0), int(64.0));
                    let b = match i % 7 {
                        // Long: across the bounds and out.
                        0 => Pt::new(int(400.0), int(400.0)),
                        1 => a,
                        _ => Pt::new(a.x + int(8.0), a.y + int(8.0)),
                    };
                    (a, b, i)
                })
                .collect();
            let checks = Checks::build([-30.0, -30.0, 30.0, 30.0], walls.clone());
            assert!(round == 0 || checks.g > 1, "a grid of {} cells", checks.g);
            let scan = |o: Pt| {
                walls.iter().copied().find(|&(a, b, _)| {
                    a.x.min(b.x) <= o.x
                        && o.x <= a.x.max(b.x)
                        && a.y.min(b.y) <= o.y
                        && o.y <= a.y.max(b.y)
                        && Exact::orient(a, b, o) == 0
                })
            };
            for k in 0..400 {
                let (a, b, _) = walls[k % walls.len()];
                let o = match k % 3 {
                    0 => Pt::new(int(60.0) / 2.0, int(60.0) / 2.0),
                    1 => a,
                    // A lattice point on the wall, when its direction allows one.
                    _ => {
                        let g = (b.x - a.x).abs().max((b.y - a.y).abs()).max(1.0);
                        Pt::new(a.x + (b.x - a.x) / g, a.y + (b.y - a.y) / g)
                    }
                };
                let want = scan(o).map(|w| w.2);
                assert_eq!(checks.first_under(o).map(|w| w.2), want, "{o:?}");
                found += want.is_some() as usize;
                asked += 1;
            }
        }
        assert!(found > asked / 3, "{found} of {asked} points on a wall");
    }

    /// The events come out in exact angular order: on lattice points (many on one ray, and in
    /// crowded wedges that fill a bucket), and points an ulp or two apart far from the viewpoint,
    /// whose pseudo-angles may round out of order.
    #[test]
    fn events_sort_in_exact_angular_order() {
        let mut rng = Rng::new(7);
        let mut sorted = 0;
        for round in 0..300 {
            let o = Pt::new((rng.unit() - 0.5) * 3.0, (rng.unit() - 0.5) * 3.0);
            let far = 2f64.powi(20 + (round % 4) * 10);
            let mut events: Vec<Event> = (0..2 + round % 97)
                .map(|i| {
                    let (x, y) = ((rng.unit() * 9.0).floor() - 4.0, (rng.unit() * 9.0).floor());
                    let p = match i % 4 {
                        0 => Pt::new(x, y),
                        // On a ray already used, farther out.
                        1 => Pt::new(o.x + (x - o.x) * 3.0, o.y + (y - o.y) * 3.0),
                        // Far, and nudged by an ulp or two.
                        2 => Pt::new(x * far, (y + 1.0) * far),
                        _ => Pt::new((x * far).next_up(), ((y + 1.0) * far).next_down()),
                    };
                    Event {
                        p,
                        key: pseudo_angle(o, p),
                        wall: i as u32,
                        start: i % 2 == 0,
                    }
                })
                .filter(|e| e.p != o)
                .collect();
            let mut ids: Vec<u32> = events.iter().map(|e| e.wall).collect();
            sort_events::<Fast>(o, &mut events, &mut Vec::new());
            for w in events.windows(2) {
                assert_ne!(
                    dir_cmp::<Exact>(o, w[0].p, w[1].p),
                    Ordering::Greater,
                    "o = {o:?}: {:?} before {:?}",
                    w[0],
                    w[1]
                );
            }
            let mut after: Vec<u32> = events.iter().map(|e| e.wall).collect();
            ids.sort_unstable();
            after.sort_unstable();
            assert_eq!(ids, after);
            sorted += events.len();
        }
        assert!(sorted > 10_000, "{sorted} events");
    }

    #[test]
    fn culling_changes_no_bit_f64() {
        culling_changes_no_bit::<f64>(crate::workload::SceneKind::City);
        culling_changes_no_bit::<f64>(crate::workload::SceneKind::Random);
    }

    #[test]
    fn culling_changes_no_bit_f32() {
        culling_changes_no_bit::<f32>(crate::workload::SceneKind::City);
        culling_changes_no_bit::<f32>(crate::workload::SceneKind::Random);
    }
}
