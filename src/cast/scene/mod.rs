//! Scenes: walls built once into an index, then any number of ray batches against them, at a
//! cost that grows as `log M` rather than `M` (SPEC §2, "Scenes", "Any hit", "Line of sight").
//!
//! ```
//! use slabclip::cast::{Scene, SegmentsCastOutput};
//! use slabclip::{RaysRef, SegmentsRef};
//!
//! // Two walls: x = 2 for y ∈ [-1, 1], and y = 3 for x ∈ [0, 4].
//! let (x0, y0, x1, y1) = ([2.0f32, 0.0], [-1.0f32, 3.0], [2.0f32, 4.0], [1.0f32, 3.0]);
//! let scene = Scene::new(&SegmentsRef::new(&x0, &y0, &x1, &y1)?)?;
//!
//! let (ox, oy, dx, dy) = ([0.0f32, 1.0], [0.0f32, 0.0], [1.0f32, 0.0], [0.0f32, 1.0]);
//! let (mut t, mut index) = (vec![0.0f32; 2], vec![0u32; 2]);
//! let out = SegmentsCastOutput { t: Some(&mut t), index: Some(&mut index), ..Default::default() };
//! scene.cast(&RaysRef::new(&ox, &oy, &dx, &dy)?, f32::INFINITY, out)?;
//! assert_eq!((t, index), (vec![2.0, 3.0], vec![0, 1]));
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! ## The contract
//!
//! * **Closest hit** ([`Scene::cast`], [`Scene::cast_one`]): bit for bit what
//!   [`cast_segments`](super::cast_segments) gives on the same walls — `t`, `s`, index, normal,
//!   ties to the lowest index, walls with a non-finite coordinate never hit, a `t` that
//!   overflows a miss, `t ≤ t_max` — whatever the tree's shape, the thread count and the order
//!   of the rays. Every candidate the index yields goes through the very function
//!   `cast_segments` runs (`ray_segments::candidate`), and the reduction keeps the smallest `t`
//!   and, among equal `t` (`-0.0 == 0.0`), the lowest index, in whatever order they come.
//! * **Any hit** ([`Scene::any_hit`]): true iff the closest hit would report one; it stops at
//!   the first.
//! * **Line of sight** ([`Scene::line_of_sight`]): per pair `A → B` (a segment of the input),
//!   [`SIGHT_BLOCKED`] iff some wall meets the closed segment, decided with exact orientation
//!   predicates on the input coordinates (`sight.rs`); [`SightEnds`] excludes contacts at
//!   exactly `A` and/or `B` (a wall that overlaps the segment beyond an excluded end still
//!   blocks). Walls with a non-finite coordinate never block; `A == B` or a non-finite end is
//!   [`SIGHT_INVALID`]; else [`SIGHT_VISIBLE`].
//! * **Lidar** ([`Scene::lidar`]): poses × beam angles, the rays of [`lidar_rays`] cast as
//!   above (`lidar.rs` gives the exact formula of a beam's direction).
//! * Bad input is an `Err` before any work: outputs of the wrong length, `t_max` NaN or
//!   negative, more walls than the float type indexes exactly. An empty scene is fine (misses).
//!
//! ## The index
//!
//! A 4-wide bounding volume hierarchy (`bvh.rs`): Morton order, split at the highest differing
//! bit, leaves of at most 8 walls, exact boxes. A ray walks it with one slab test per node for
//! its four children (vector lanes), nearest child first (for any hit too), and tests the
//! walls of the leaves it reaches four at a time; the walk skips nodes that begin beyond the
//! closest hit so far. The walk is bound by its memory reads, so a batch of many rays is cast
//! in the Morton order of the rays' origins, and the answers put back in place. A lidar pose's
//! beams, which share their origin, walk the tree together (`fan.rs`).
//!
//! Beside the tree, a uniform grid (`cells.rs`): cells of about one wall each, every wall
//! listed in the cells its box meets once widened by the largest margin a ray starting among
//! the walls can need. The closest and any hits of a ray whose origin lies in the walls' box
//! walk the grid cell by cell from the origin instead of the tree from its root; other rays,
//! lidar scans and line of sight walk the tree. [`SceneIndex`] chooses ([`SceneIndex::Auto`]:
//! the grid from 256 walls spread over their box — at least 35 % of the cells list walls, no
//! cell more than 64, no more than 16 cells a wall on average — built by the first batch that
//! brings the rays cast to one for every eight walls). [`Scene::refit`] keeps the tree's topology and recomputes its boxes
//! (walls that moved a little), and the grid is built again when next due; a rebuild is one
//! call to [`Scene::new`].
//!
//! Why both: a BVH adapts to walls of any size and density (city blocks, long roads) where a
//! uniform grid must pick one cell size, and its Morton build is a radix sort and one pass;
//! but where the walls are spread evenly, a ray's whole walk through a few cells costs less
//! than the tree's descent from the root. Measured (`benches/scene.rs`, `docs/guide/scenes.md`;
//! an AMD EPYC of 2 cores shared with other work, so noisy; medians, one thread, 10⁶
//! incoherent rays): the grid casts 1.4–1.9× as many closest hits as the tree at 10⁵–10⁶
//! walls, and 1.8–2.2× as many any hits; against parry2d's `Polyline` (a binned-SAH binary
//! BVH) the tree alone cast 1.3–2.2× as many rays (10⁴ walls: 1.49 against 1.13 M rays/s in a
//! city; 10⁶: 0.48 against 0.37), and it passes the brute force from about 1,000 walls (city
//! 10³: 2.2 against 1.3 M rays/s; 10²: 2.6 against 7.9).
//!
//! ## Why the tree misses no hit
//!
//! The per-pair test is floating-point arithmetic: it can report a hit a little away from
//! where the exact wall is, and a box test on the exact boxes could then drop a hit that the
//! brute force reports. The walk is made conservative by a bound on that distance, not by a
//! guessed epsilon. With `u` the unit roundoff of `F`, `W = S − O` and `E = P1 − P0` as the
//! test rounds them, `R` a bound on `|W|`, `ℓ` on `|E|`, `γ₂ = 2u/(1 − 2u)`, and every
//! coordinate zero or between `2^-40` and `2^40` in magnitude (`2^∓400` for `f64`, so that no
//! product overflows or underflows), a crossing reported at `t` with `s ∈ [0, 1]` has a point
//! `X` of the wall and a `τ` with:
//!
//! * `|X − (O + τ·D)| ≤ 4u(R + ℓ)`: the wall's point is within a few roundings of the ray's
//!   line (`s`'s numerator and the denominator are each off by at most `γ₂` times the sum of
//!   the magnitudes of their products, and `s·den − sn` is the point's distance times `|D|`);
//! * `|τ − t|·|D| ≤ |G|` with `G = t·D − W − s·E`; `G × E` and `G × D` are a few roundings
//!   each, and `G = ((G × E)·D − (G × D)·E) / (D × E)`, so `|G| ≤ 2γ₂(3R + 2ℓ)/sin θ` and
//!   `|G| ≤ 6γ₂(t|D| + ℓ)/sin θ` (θ the angle between `D` and `E`).
//!
//! A collinear hit (`den = sn = 0`) is within `13u(R + ℓ)` of the wall at its own `t`. So the
//! walk widens each child's box by `80u(r + ℓ)` and tests it against the ray's part
//! `[−e, T + e]`, where `r` is the L1 distance from `O` to the box's far corner (a bound on
//! `|W|` for the walls inside), `T` the closest hit so far (`t_max` before one) and `e` the
//! smaller `|G|` bound over `|D|` with `sin θ ≥ w` (`w = 2^-13` for `f32`, `2^-24` for `f64`),
//! each constant with a quarter to spare for the slab test's own roundings. Walls within `w`
//! of the ray's direction, whose hits the arithmetic can put anywhere along the line, come
//! from a second index by direction and offset (`near.rs`): every wall whose direction is
//! within `w` of the ray's and which comes within `β` of its line. Walls outside the
//! coordinate range above go to a short list tested for every ray, and a ray outside it is
//! tested against every wall. Each of these only adds candidates, so the answer is the brute
//! force's. (A large batch offers each ray its nearly parallel walls in a pass of its own, by
//! direction, before the walks, which start from the best of them: the same candidates in
//! another order, so the same answer.) `tests/suite/scene.rs` has a case for each part (walls
//! along the ray's line behind its origin, long walls at a shallow angle ending just behind
//! it, short walls far from the origin that the arithmetic hits from beside their boxes,
//! coordinates out of range), each failing when its part is taken out. The extension's `3r`
//! term has no such case: the bound is the arithmetic's worst case, and rays built to need it
//! (a short wall at a shallow angle far beyond a first hit, within the bound's reach) are found
//! without it.
//!
//! The grid rests on the same bound (`cells.rs` gives the argument). Its widening is tested
//! where it alone finds a wall (`cells.rs`: a wall ending beside a grid vertex, hit from the
//! far side of the vertex); its reach behind the origin and beyond the closest hit has no
//! such case, as for the tree's `3r` term: a wall the arithmetic reports from farther along
//! the ray than the widening covers was, in every case built for it, one the direction
//! index holds.

mod auto;
mod bvh;
mod cells;
mod fan;
mod lidar;
mod near;
mod sight;

pub use auto::{cast_segments_with, index_pays, CastMethod, INDEX_MIN_RAYS, INDEX_MIN_WALLS};
pub use lidar::{lidar_rays, PosesRef};
pub use sight::SightEnds;

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::ray_segments::{
    candidate, check_count_n, crossing, finish_collinear, Best, Entry, Row, SegLanes,
};
use super::{
    check_len, check_t_max, Ray, RayLanes, RaysRef, SegmentHit, SegmentsCastOutput, SplitOutput,
};
use crate::buffers::{Batch, SegmentSource};
use crate::error::Error;
use crate::real::{Lane, Real};
use crate::simd::Load;
use bvh::{as_leaf, Bvh, Node, EMPTY, STACK, WIDTH};

/// Four lanes of `F`: a node's children, a leaf's walls.
type L4<F> = <F as Real>::Simd4;
use cells::Cells;
use near::Near;

/// [`Scene::line_of_sight`]: no wall meets the segment (but at excluded ends).
pub const SIGHT_VISIBLE: u8 = 0;
/// [`Scene::line_of_sight`]: some wall meets the segment.
pub const SIGHT_BLOCKED: u8 = 1;
/// [`Scene::line_of_sight`]: `A == B` or a non-finite end.
pub const SIGHT_INVALID: u8 = 255;

/// Where a wall went when the scene was built.
const DROPPED: u8 = 0;
const TREE: u8 = 1;
const ALWAYS: u8 = 2;

/// Rays per rayon task.
const CHUNK: usize = 1024;
/// From this many rays a batch is split across threads (a ray costs hundreds of nanoseconds:
/// two chunks already pay for the hand-over).
const PARALLEL_MIN: usize = 2 * CHUNK;

/// What the proof in the module docs needs of one precision.
#[derive(Clone, Copy, Debug)]
struct Prec {
    /// The unit roundoff.
    u: f64,
    /// Walls within this sine of the ray's direction come from the near index.
    w: f64,
    /// Coordinates zero or in `[lo, hi]` in magnitude take the tree.
    lo: f64,
    hi: f64,
    /// An absolute floor of the margins (underflowing quotients).
    floor: f64,
}

impl Prec {
    fn of<F: Real>() -> Self {
        if core::mem::size_of::<F>() == 4 {
            Prec {
                u: 2f64.powi(-24),
                w: 2f64.powi(-13),
                lo: 2f64.powi(-40),
                hi: 2f64.powi(40),
                floor: 2f64.powi(-100),
            }
        } else {
            Prec {
                u: 2f64.powi(-53),
                w: 2f64.powi(-24),
                lo: 2f64.powi(-400),
                hi: 2f64.powi(400),
                floor: 2f64.powi(-600),
            }
        }
    }

    #[inline(always)]
    fn safe(&self, x: f64) -> bool {
        let a = x.abs();
        a == 0.0 || (self.lo <= a && a <= self.hi)
    }
}

/// The scene's extent: the box of the tree's walls, the largest `|ex| + |ey|`, the largest
/// coordinate magnitude.
#[derive(Clone, Copy, Debug)]
struct Extent {
    bx: [f64; 4],
    ell: f64,
    cmax: f64,
}

impl Extent {
    fn new() -> Self {
        Extent {
            bx: [f64::INFINITY, f64::INFINITY, -f64::INFINITY, -f64::INFINITY],
            ell: 0.0,
            cmax: 0.0,
        }
    }

    /// Adds a finite wall (`a < b ? a : b` rather than `f64::min`, which also handles NaN:
    /// one instruction each).
    #[inline(always)]
    fn add<F: Real>(&mut self, r: &Row<F>) {
        let min = |a: f64, b: f64| if b < a { b } else { a };
        let max = |a: f64, b: f64| if b > a { b } else { a };
        for (x, y) in [(r.sx, r.sy), (r.x1, r.y1)] {
            let (x, y) = (x.to_f64(), y.to_f64());
            self.bx = [
                min(self.bx[0], x),
                min(self.bx[1], y),
                max(self.bx[2], x),
                max(self.bx[3], y),
            ];
            self.cmax = max(self.cmax, max(x.abs(), y.abs()));
        }
        self.ell = max(self.ell, r.ex.to_f64().abs() + r.ey.to_f64().abs());
    }

    fn of<F: Real>(rows: impl Iterator<Item = Row<F>>) -> Self {
        let mut e = Extent::new();
        rows.for_each(|r| e.add(&r));
        e
    }
}

/// Which index a [`Scene`] walks for closest and any hits (lidar scans and line of sight always
/// walk the tree). The answers are the same bits whichever it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SceneIndex {
    /// The grid where it serves (from 256 walls, walls in at least 35 % of the cells, at most
    /// 64 in a cell and 16 cells a wall on average), else the tree; the grid is built by the first closest or any hit batch that
    /// brings the rays the scene has cast to one for every eight walls (before that, it would
    /// not pay for its build).
    #[default]
    Auto,
    /// The tree alone.
    Tree,
    /// The grid wherever it can be built (walls whose box has an area, at most 16 cells a wall
    /// on average), else the tree: [`Scene::has_grid`] tells.
    Grid,
}

/// [`SceneIndex::Auto`] builds the grid once the scene has cast this many rays a wall (closest
/// or any hits, in all): its build costs about 0.03–0.05 µs a wall, and it saves about
/// 0.2–0.3 µs a ray at 10⁵–10⁶ walls (`docs/guide/scenes.md`), so it pays from about one ray in
/// eight walls.
const GRID_AFTER_RAYS_PER_WALL: f64 = 0.125;

/// The scene's grid, built at most once per build or refit: at once for
/// [`SceneIndex::Grid`], for [`SceneIndex::Auto`] by the first batch that brings the rays cast
/// to [`GRID_AFTER_RAYS_PER_WALL`].
#[derive(Debug, Default)]
struct LazyCells {
    cells: OnceLock<Option<Cells>>,
    /// Rays cast (closest or any hits) while there was no grid.
    rays: AtomicUsize,
}

impl Clone for LazyCells {
    fn clone(&self) -> Self {
        LazyCells {
            cells: self.cells.clone(),
            rays: AtomicUsize::new(self.rays.load(Ordering::Relaxed)),
        }
    }
}

/// Walls built into an index for ray casts, any-hit queries, line of sight and lidar scans
/// (module docs). `F` is `f32` or `f64`, the walls' and the rays' precision.
#[derive(Clone, Debug)]
pub struct Scene<F> {
    /// The walls given, counted.
    count: usize,
    /// Where each wall went ([`DROPPED`], [`TREE`], [`ALWAYS`]).
    class: Vec<u8>,
    bvh: Bvh<F>,
    near: Near<F>,
    /// The grid over the tree's walls, for the closest and any hits of rays starting among
    /// them (`cells.rs`), where [`SceneIndex`] asks for it and it can serve.
    grid: LazyCells,
    index: SceneIndex,
    /// Finite walls outside the tree's coordinate range: tested for every ray.
    always: Vec<Row<F>>,
    extent: Extent,
    prec: Prec,
}

impl<F: Real> Scene<F> {
    /// Builds the index over `walls` (columns, an owned batch, or rows), wall `i` reported as
    /// index `i`: [`Scene::with_index`] with [`SceneIndex::Auto`].
    ///
    /// Errors: more walls than `F` indexes exactly (`2^24` for `f32`) or than the tree holds
    /// (`2^27`).
    pub fn new<S: SegmentSource<F> + ?Sized>(walls: &S) -> Result<Self, Error> {
        Self::with_index(walls, SceneIndex::Auto)
    }

    /// [`Scene::new`] with the choice of index made by the caller (the answers are the same
    /// bits either way; only the speed differs).
    pub fn with_index<S: SegmentSource<F> + ?Sized>(
        walls: &S,
        index: SceneIndex,
    ) -> Result<Self, Error> {
        let count = walls.len();
        check_count_n::<F>(count)?;
        if count > bvh::MAX_WALLS {
            return Err(Error::InvalidArgument(format!(
                "{count} walls is more than a scene holds ({})",
                bvh::MAX_WALLS
            )));
        }
        let prec = Prec::of::<F>();
        let mut class = vec![DROPPED; count];
        let (mut tree, mut always) = (Vec::with_capacity(count), Vec::new());
        // The extent and the box of the midpoints (the tree's Morton codes) in the same pass.
        let (mut extent, mut mids) = (Extent::new(), bvh::Bounds::empty());
        for (i, c) in class.iter_mut().enumerate() {
            let Some(row) = row_of(walls, i) else {
                continue;
            };
            if [row.sx, row.sy, row.x1, row.y1]
                .iter()
                .all(|v| prec.safe(v.to_f64()))
            {
                *c = TREE;
                extent.add(&row);
                let (x, y) = bvh::mid(&row);
                mids.add(x, y);
                tree.push(row);
            } else {
                *c = ALWAYS;
                always.push(row);
            }
        }
        let bvh = Bvh::build(tree, &mids);
        let near = Near::build(bvh.rows());
        let scene = Scene {
            count,
            class,
            bvh,
            near,
            grid: LazyCells::default(),
            index,
            always,
            extent,
            prec,
        };
        scene.eager_grid();
        Ok(scene)
    }

    /// Whether the scene holds the uniform grid now ([`SceneIndex`]).
    pub fn has_grid(&self) -> bool {
        self.grid.cells.get().is_some_and(Option::is_some)
    }

    /// [`SceneIndex::Grid`]'s grid, built now.
    fn eager_grid(&self) {
        if self.index == SceneIndex::Grid {
            self.grid.cells.get_or_init(|| self.build_grid(true));
        }
    }

    fn build_grid(&self, always: bool) -> Option<Cells> {
        Cells::build(
            self.bvh.rows(),
            self.bvh.len,
            &self.extent,
            &self.prec,
            always,
        )
    }

    /// The grid for a batch of `rays` closest or any hits, built first where
    /// [`SceneIndex::Auto`]'s rule says it now pays.
    fn cells_for(&self, rays: usize) -> Option<&Cells> {
        if let Some(cells) = self.grid.cells.get() {
            return cells.as_ref();
        }
        if self.index != SceneIndex::Auto {
            return None;
        }
        let cast = self.grid.rays.fetch_add(rays, Ordering::Relaxed) + rays;
        if (cast as f64) < GRID_AFTER_RAYS_PER_WALL * self.bvh.len as f64 {
            return None;
        }
        self.grid
            .cells
            .get_or_init(|| self.build_grid(false))
            .as_ref()
    }

    /// The walls moved: `walls` (as many as at the build, wall `i` the same wall) replace them,
    /// the tree keeping its topology and recomputing its boxes, the direction index rebuilt.
    /// The answers are those of a scene built anew from `walls`; only the speed may differ
    /// (boxes of walls that moved far apart overlap more). Where a wall changes between finite
    /// and not, or in or out of the tree's coordinate range, the scene is rebuilt instead.
    ///
    /// Errors: a different wall count (the scene is left as it was).
    pub fn refit<S: SegmentSource<F> + ?Sized>(&mut self, walls: &S) -> Result<(), Error> {
        check_len("walls", self.count, walls.len())?;
        let prec = self.prec;
        let same = (0..self.count).all(|i| {
            let c = match row_of(walls, i) {
                None => DROPPED,
                Some(r)
                    if [r.sx, r.sy, r.x1, r.y1]
                        .iter()
                        .all(|v| prec.safe(v.to_f64())) =>
                {
                    TREE
                }
                Some(_) => ALWAYS,
            };
            c == self.class[i]
        });
        if !same {
            *self = Scene::with_index(walls, self.index)?;
            return Ok(());
        }
        let again = |row: &Row<F>| {
            row_of(walls, row.j.to_f64() as usize).expect("the class check found it finite")
        };
        for row in self.always.iter_mut() {
            *row = again(row);
        }
        for p in 0..self.bvh.len {
            let row = again(&self.bvh.row(p));
            self.bvh.set_row(p, &row);
        }
        self.bvh.refit();
        self.near = Near::build(self.bvh.rows());
        self.extent = Extent::of(self.bvh.rows());
        self.grid = LazyCells::default();
        self.eager_grid();
        Ok(())
    }

    /// How many walls were given (finite or not).
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no walls were given.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The bytes the index holds (walls, tree, direction index, bookkeeping).
    pub fn index_bytes(&self) -> usize {
        self.class.capacity()
            + self.always.capacity() * core::mem::size_of::<Row<F>>()
            + self.bvh.bytes()
            + self.near.bytes()
            + self
                .grid
                .cells
                .get()
                .and_then(Option::as_ref)
                .map_or(0, Cells::bytes)
    }

    /// The closest hit of one ray (the same answer as [`Scene::cast`] and
    /// [`cast_segments_one`](super::cast_segments_one)).
    ///
    /// Errors: `t_max` NaN or negative.
    pub fn cast_one(&self, ray: &Ray<F>, t_max: F) -> Result<SegmentHit<F>, Error> {
        check_t_max(t_max)?;
        Ok(self.closest(ray, t_max, &mut Vec::new(), self.cells_for(1), None))
    }

    /// The closest hit of every ray, into the buffers of `out` that are given; rayon across
    /// chunks of rays. The same bits as [`cast_segments`](super::cast_segments) on the walls.
    ///
    /// Errors before any work: `t_max` NaN or negative, an output of the wrong length.
    pub fn cast(
        &self,
        rays: &RaysRef<'_, F>,
        t_max: F,
        out: SegmentsCastOutput<'_, F>,
    ) -> Result<(), Error> {
        check_t_max(t_max)?;
        out.check(rays.len())?;
        let n = rays.len();
        let order = ordered_batch(n).then(|| Order::of(self.ray_order(rays)));
        let hits = F::scene_closest(self, rays, t_max, order.as_ref());
        chunks(n, out, |start, end, mut o| {
            for i in start..end {
                put_hit(&mut o, i - start, &hits[place(&order, i)]);
            }
        });
        Ok(())
    }

    /// Per ray, whether [`Scene::cast`] would report a hit, found without looking for the
    /// closest.
    ///
    /// Errors before any work: `t_max` NaN or negative, `out` not as long as `rays`.
    pub fn any_hit(&self, rays: &RaysRef<'_, F>, t_max: F, out: &mut [bool]) -> Result<(), Error> {
        check_t_max(t_max)?;
        check_len("out", rays.len(), out.len())?;
        let n = rays.len();
        let order = ordered_batch(n).then(|| Order::of(self.ray_order(rays)));
        let hits = F::scene_any(self, rays, t_max, order.as_ref());
        chunks(n, Flags(out), |start, end, o| {
            for i in start..end {
                o.0[i - start] = hits[place(&order, i)];
            }
        });
        Ok(())
    }

    /// Line of sight for each pair `A → B` of `pairs` (`A = (x0, y0)`, `B = (x1, y1)`):
    /// [`SIGHT_VISIBLE`], [`SIGHT_BLOCKED`] or [`SIGHT_INVALID`] per pair (module docs).
    ///
    /// Errors before any work: `out` not as long as `pairs`.
    pub fn line_of_sight<S: SegmentSource<F> + ?Sized>(
        &self,
        pairs: &S,
        ends: SightEnds,
        out: &mut [u8],
    ) -> Result<(), Error> {
        check_len("out", pairs.len(), out.len())?;
        F::scene_sight(self, Batch::of(&pairs), ends, out);
        Ok(())
    }

    /// [`Scene::line_of_sight`], `out` checked (compiled once per precision, `simd::entries`).
    pub(crate) fn sight_batch(&self, pairs: &Batch<'_, F>, ends: SightEnds, out: &mut [u8]) {
        chunks(pairs.len(), Flags(out), |start, end, o| {
            let mut stack = Vec::with_capacity(STACK);
            crate::simd::dispatch!(I => {
                for i in start..end {
                    let s = pairs.segment(i);
                    o.0[i - start] = self.sight((s.x0, s.y0), (s.x1, s.y1), ends, &mut stack);
                }
            });
        });
    }

    /// A lidar scan: the closest hit of beam `k` of pose `p` (see [`lidar_rays`] for its
    /// direction) as ray `p·K + k` of `out`, every beam limited to `max_range` (`t` is the
    /// range: the directions are unit vectors within a few ulps). The same bits as
    /// [`Scene::cast`] on [`lidar_rays`]`(poses, angles)` with `t_max = max_range`.
    ///
    /// Errors before any work: `max_range` NaN or negative, outputs not `P·K` long.
    pub fn lidar(
        &self,
        poses: &PosesRef<'_, F>,
        angles: &[F],
        max_range: F,
        out: SegmentsCastOutput<'_, F>,
    ) -> Result<(), Error> {
        check_t_max(max_range)?;
        let k = angles.len();
        out.check(lidar::ray_count(poses.len(), k)?)?;
        if k == 0 {
            return Ok(());
        }
        let table = lidar::beam_table(angles);
        let per = CHUNK.div_ceil(k).max(1);
        let n = poses.len();
        if n * k < PARALLEL_MIN || crate::threads::available() < 2 {
            F::scene_lidar(self, poses, &table, max_range, out);
            return Ok(());
        }
        let mut parts = Vec::with_capacity(n.div_ceil(per));
        let mut rest = out;
        for start in (0..n).step_by(per) {
            let end = (start + per).min(n);
            let (head, tail) = rest.split_at((end - start) * k);
            parts.push((poses.slice(start, end), head));
            rest = tail;
        }
        parts
            .into_par_iter()
            .for_each(|(part, o)| F::scene_lidar(self, &part, &table, max_range, o));
        Ok(())
    }

    /// The scan of `poses` with the beams' `(cos, sin)` in `beams`, into `out` (`P·K` long):
    /// [`Scene::lidar`]'s work on one thread (compiled once per precision, `simd::entries`).
    pub(crate) fn lidar_poses(
        &self,
        poses: &PosesRef<'_, F>,
        beams: &[(f64, f64)],
        max_range: F,
        mut out: SegmentsCastOutput<'_, F>,
    ) {
        let k = beams.len();
        let (mut scratch, mut searches) = (fan::FanScratch::new(), Vec::new());
        let mut dirs = Vec::with_capacity(k);
        // The fan's walk compiled at the chosen level.
        crate::simd::dispatch!(I => {
            for p in 0..poses.len() {
                let (sh, ch) = poses.heading[p].to_f64().sin_cos();
                dirs.clear();
                dirs.extend(beams.iter().map(|&a| lidar::rotate((ch, sh), a)));
                let origin = (poses.x[p], poses.y[p]);
                fan::cast(
                    self,
                    origin,
                    &dirs,
                    max_range,
                    &mut scratch,
                    &mut searches,
                    #[inline(always)]
                    |b, h| put_hit(&mut out, p * k + b, &h),
                );
            }
        });
    }

    /// The rays' indices in the Morton order of their origins (16 bits a coordinate over the
    /// tree's box, clamped): rays that start near each other walk the same nodes, which are
    /// then in the cache (the walk is bound by its reads: `benches/scene.rs` measured the same
    /// rays about twice as fast in this order as at random).
    fn ray_order(&self, rays: &RaysRef<'_, F>) -> Vec<u32> {
        let [xl, yl, xh, yh] = self.extent.bx;
        let scale = |lo: f64, hi: f64| if hi > lo { 65535.0 / (hi - lo) } else { 0.0 };
        let (sx, sy) = (scale(xl, xh), scale(yl, yh));
        let mut keys: Vec<(u32, u32)> = (0..rays.len())
            .map(|i| {
                let r = rays.ray(i);
                let qx = ((r.ox.to_f64() - xl) * sx).clamp(0.0, 65535.0) as u32;
                let qy = ((r.oy.to_f64() - yl) * sy).clamp(0.0, 65535.0) as u32;
                (bvh::morton(qx, qy), i as u32)
            })
            .collect();
        bvh::radix_sort(&mut keys, |k| k.0);
        keys.into_iter().map(|(_, i)| i).collect()
    }

    /// The closest hits of `rays` in `order`, or in their own order without one ([`in_order`];
    /// compiled once per precision, `simd::entries`). In an order, each ray's nearly parallel
    /// walls are offered first, in a pass of their own ([`Scene::near_seeds`]).
    pub(crate) fn closest_in_order(
        &self,
        rays: &RaysRef<'_, F>,
        t_max: F,
        order: Option<&Order>,
    ) -> Vec<SegmentHit<F>> {
        let cells = self.cells_for(rays.len());
        let seeds = order
            .filter(|_| self.near.len() >= SEEDS_MIN)
            .map(|o| self.near_seeds(rays, t_max, &o.at));
        in_order(
            order.map(|o| &o.by[..]),
            rays,
            SegmentHit::MISS,
            #[inline(always)]
            |q, i, stack| {
                let seed = seeds.as_ref().map(|s| s.of(q));
                self.closest(&rays.ray(i), t_max, stack, cells, seed)
            },
        )
    }

    /// Per ray of a batch, its closest hit among the walls nearly parallel to it: what
    /// [`Search::begin`] would find there, kept by `at[i]`, the ray's place in the batch's
    /// order. The rays are taken bucket by bucket of the direction index ([`Near::ray_key`]),
    /// so that a bucket's keys stay in the cache from one ray to the next; asked during each
    /// walk, in the Morton order of the rays' origins, the index is read at random
    /// (`docs/guide/scenes.md`, "A batch's nearly parallel walls in a pass of their own").
    fn near_seeds(&self, rays: &RaysRef<'_, F>, t_max: F, at: &[u32]) -> Seeds<F> {
        let n = rays.len();
        let mut keys: Vec<(u32, u32)> = (0..n)
            .map(|i| {
                let d = (rays.dx[i].to_f64(), rays.dy[i].to_f64());
                (self.near.ray_key(d), i as u32)
            })
            .collect();
        bvh::radix_sort(&mut keys, |k| k.0);
        let run = |part: &[(u32, u32)]| {
            let mut found = Vec::new();
            for (k, &(_, i)) in part.iter().enumerate() {
                if let Some(&(_, next)) = part.get(k + RAYS_AHEAD) {
                    prefetch_ray(rays, next as usize);
                }
                let i = i as usize;
                if let Some(seed) = self.near_seed(&rays.ray(i), t_max) {
                    found.push((at[i], seed));
                }
            }
            found
        };
        let found: Vec<Vec<(u32, Seed<F>)>> = if n < PARALLEL_MIN || crate::threads::available() < 2
        {
            vec![run(&keys)]
        } else {
            keys.par_chunks(CHUNK).map(run).collect()
        };
        let mut seeds = Seeds {
            at: vec![NO_SEED; n],
            list: Vec::with_capacity(found.iter().map(Vec::len).sum()),
        };
        for (q, seed) in found.into_iter().flatten() {
            seeds.at[q as usize] = seeds.list.len() as u32;
            seeds.list.push(seed);
        }
        seeds
    }

    /// One ray's [`Seed`], or `None` where the ray hits none of those walls (or is one whose
    /// search [`Search::begin`] ends before them).
    #[inline(always)]
    fn near_seed(&self, ray: &Ray<F>, t_max: F) -> Option<Seed<F>> {
        let lanes = RayLanes::from(*ray);
        if !lanes.valid() {
            return None;
        }
        let mut s = Search::new(self, lanes, t_max, false);
        if !s.tame() || !s.setup() {
            return None;
        }
        s.offer_near(true);
        s.winner.map(|winner| Seed {
            best: s.best,
            winner,
        })
    }

    /// Whether each of `rays` in `order` (or their own) hits ([`in_order`]; compiled once per
    /// precision).
    pub(crate) fn any_in_order(
        &self,
        rays: &RaysRef<'_, F>,
        t_max: F,
        order: Option<&Order>,
    ) -> Vec<bool> {
        let cells = self.cells_for(rays.len());
        in_order(
            order.map(|o| &o.by[..]),
            rays,
            false,
            #[inline(always)]
            |_, i, stack| self.any(&rays.ray(i), t_max, stack, cells),
        )
    }

    /// The closest hit of one ray, through `cells` where it serves the ray; `seed` its
    /// [`Scene::near_seed`] where a batch found it beforehand.
    #[inline(always)]
    fn closest(
        &self,
        ray: &Ray<F>,
        t_max: F,
        stack: &mut Stack<F>,
        cells: Option<&Cells>,
        seed: Option<Option<&Seed<F>>>,
    ) -> SegmentHit<F> {
        let lanes = RayLanes::from(*ray);
        if !lanes.valid() {
            return SegmentHit::MISS;
        }
        let mut s = Search::new(self, lanes, t_max, false);
        s.cells = cells;
        s.seed = seed;
        s.run(stack);
        s.hit()
    }

    /// Whether one ray hits a wall (through `cells` where it serves the ray).
    #[inline(always)]
    fn any(&self, ray: &Ray<F>, t_max: F, stack: &mut Stack<F>, cells: Option<&Cells>) -> bool {
        let lanes = RayLanes::from(*ray);
        if !lanes.valid() {
            return false;
        }
        let mut s = Search::new(self, lanes, t_max, true);
        s.cells = cells;
        s.run(stack);
        s.winner.is_some()
    }

    /// Line of sight of one pair.
    #[inline(always)]
    fn sight(
        &self,
        (ax, ay): (F, F),
        (bx, by): (F, F),
        ends: SightEnds,
        stack: &mut Stack<F>,
    ) -> u8 {
        let a = (ax.to_f64(), ay.to_f64());
        let b = (bx.to_f64(), by.to_f64());
        if ![a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) || a == b {
            return SIGHT_INVALID;
        }
        let blocks = |r: &Row<F>| {
            let c = (r.sx.to_f64(), r.sy.to_f64());
            let d = (r.x1.to_f64(), r.y1.to_f64());
            sight::blocks(a, b, c, d, ends)
        };
        if self.always.iter().any(blocks) {
            return SIGHT_BLOCKED;
        }
        let p = &self.prec;
        let (dx, dy) = (bx - ax, by - ay);
        let tame = [ax, ay, bx, by, dx, dy].iter().all(|v| p.safe(v.to_f64()));
        if !tame {
            return if self.bvh.rows().any(|r| blocks(&r)) {
                SIGHT_BLOCKED
            } else {
                SIGHT_VISIBLE
            };
        }
        // A contact point A + τ(B − A), τ ∈ [0, 1], is within u|B − A| of the walk's ray
        // (A, D = B − A rounded); the pad covers that and the slab test's roundings.
        let len = dx.to_f64().abs() + dy.to_f64().abs();
        let pad = (20.0 * p.u * len + p.floor) * (1.0 + 8.0 * p.u);
        let mut slab = Slab::new((ax, ay), (dx, dy));
        slab.margins(0.0, 0.0, pad, 0.0);
        let mut found = false;
        self.bvh.walk(
            &mut slab,
            false,
            stack,
            #[inline(always)]
            |k, _| {
                found = self.bvh.rows_of(k).any(|r| blocks(&r));
                found
            },
        );
        if found {
            SIGHT_BLOCKED
        } else {
            SIGHT_VISIBLE
        }
    }
}

/// The parameters `[ta, tb]`, `ta ≥ from`, of the points of the line `O + τD` in the closed box
/// `[xl, xh] × [yl, yh]` (along a zero component of `D`: all or none), or `None` where there
/// are none (NaN counts as none).
#[inline(always)]
fn line_in_box(
    (ox, oy): (f64, f64),
    (dx, dy): (f64, f64),
    [xl, yl, xh, yh]: [f64; 4],
    from: f64,
) -> Option<(f64, f64)> {
    let (mut ta, mut tb) = (from, f64::INFINITY);
    for (o, d, lo, hi) in [(ox, dx, xl, xh), (oy, dy, yl, yh)] {
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
        } else {
            let (t1, t2) = ((lo - o) / d, (hi - o) / d);
            ta = ta.max(t1.min(t2));
            tb = tb.min(t1.max(t2));
        }
    }
    (ta <= tb).then_some((ta, tb))
}

/// Wall `i` of `walls` as the per-pair test reads it; `None` if a coordinate is not finite.
fn row_of<F: Real, S: SegmentSource<F> + ?Sized>(walls: &S, i: usize) -> Option<Row<F>> {
    let s = walls.segment(i);
    Row::new(s.x0, s.y0, s.x1, s.y1, F::from_f64(i as f64))
}

/// Writes one ray's answer to slot `i` of the outputs asked for.
#[inline(always)]
fn put_hit<F: Real>(o: &mut SegmentsCastOutput<'_, F>, i: usize, h: &SegmentHit<F>) {
    if let Some(t) = o.t.as_deref_mut() {
        t[i] = h.t;
    }
    if let Some(s) = o.s.as_deref_mut() {
        s[i] = h.s;
    }
    if let Some(k) = o.index.as_deref_mut() {
        k[i] = h.index;
    }
    if let Some(nx) = o.nx.as_deref_mut() {
        nx[i] = h.normal.0;
    }
    if let Some(ny) = o.ny.as_deref_mut() {
        ny[i] = h.normal.1;
    }
}

/// A flag per query, splittable for the chunks.
struct Flags<'a, T>(&'a mut [T]);

impl<T: Send> SplitOutput for Flags<'_, T> {
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.0.split_at_mut(mid);
        (Flags(a), Flags(b))
    }
}

/// From this many rays a batch is cast in the Morton order of the rays' origins
/// ([`Scene::ray_order`]), the answers put back in place after.
const ORDER_MIN: usize = 4 * CHUNK;

/// Whether a batch of `n` rays is cast in the Morton order of their origins (their indices
/// must fit the order's `u32`s).
fn ordered_batch(n: usize) -> bool {
    (ORDER_MIN..=u32::MAX as usize).contains(&n)
}

/// How many queries ahead [`in_order`] prefetches its rays: they are read at random, and
/// without it a quarter of a short walk's time waited on those reads.
const RAYS_AHEAD: usize = 8;

/// `f(q, order[q], stack)` for every `q`, in that order (`f(q, q, stack)` without an order),
/// as a vector in that order: rayon tasks of [`CHUNK`] queries for large batches. Each answer
/// is its query's own. The rays `f` reads in an order are prefetched a few queries ahead.
fn in_order<F: Real, T: Copy + Send + Sync>(
    order: Option<&[u32]>,
    rays: &RaysRef<'_, F>,
    fill: T,
    f: impl Fn(usize, usize, &mut Stack<F>) -> T + Sync,
) -> Vec<T> {
    let n = order.map_or(rays.len(), <[u32]>::len);
    let mut out = vec![fill; n];
    let run = |start: usize, o: &mut [T]| {
        let mut stack = Vec::with_capacity(STACK);
        // The walk compiled at the chosen level (its lanes stay four wide).
        crate::simd::dispatch!(I => {
            for (q, slot) in (start..).zip(o.iter_mut()) {
                let i = match order {
                    None => q,
                    Some(order) => {
                        if let Some(&next) = order.get(q + RAYS_AHEAD) {
                            prefetch_ray(rays, next as usize);
                        }
                        order[q] as usize
                    }
                };
                *slot = f(q, i, &mut stack);
            }
        });
    };
    if n < PARALLEL_MIN || crate::threads::available() < 2 {
        run(0, &mut out);
    } else {
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, o)| run(c * CHUNK, o));
    }
    out
}

/// Asks for ray `i`'s four coordinates ahead of their use.
#[inline(always)]
fn prefetch_ray<F: Real>(rays: &RaysRef<'_, F>, i: usize) {
    for column in [rays.ox, rays.oy, rays.dx, rays.dy] {
        crate::simd::prefetch(column.as_ptr().wrapping_add(i), 0);
    }
}

/// A batch's rays in the Morton order of their origins ([`Scene::ray_order`]).
pub(crate) struct Order {
    /// The rays in that order.
    by: Vec<u32>,
    /// Where each ray is in it (the inverse of `by`): where [`in_order`] put its answer.
    at: Vec<u32>,
}

impl Order {
    fn of(by: Vec<u32>) -> Self {
        let mut at = vec![0u32; by.len()];
        for (q, &i) in by.iter().enumerate() {
            at[i as usize] = q as u32;
        }
        Order { by, at }
    }
}

/// Where query `i`'s answer is: its place in the batch's order, else `i`.
#[inline(always)]
fn place(order: &Option<Order>, i: usize) -> usize {
    order.as_ref().map_or(i, |o| o.at[i] as usize)
}

/// A ray's closest hit among the walls nearly parallel to it, found before its walk
/// ([`Scene::near_seeds`]).
#[derive(Clone, Copy)]
struct Seed<F> {
    best: Best<F>,
    winner: Row<F>,
}

/// The [`Seed`]s of a batch: `list[at[q]]` for the ray in place `q` of its order, where it has
/// one.
struct Seeds<F> {
    at: Vec<u32>,
    list: Vec<Seed<F>>,
}

/// From this many walls in the direction index (2 MB of its keys and slots), a batch in an order
/// finds its rays' nearly parallel walls in a pass of their own ([`Scene::near_seeds`]); below,
/// the index stays in the cache through the walks, and each ray asks it during its own.
const SEEDS_MIN: usize = 1 << 18;

/// [`Seeds::at`] of a ray without a seed.
const NO_SEED: u32 = u32::MAX;

impl<F> Seeds<F> {
    #[inline(always)]
    fn of(&self, q: usize) -> Option<&Seed<F>> {
        self.list.get(self.at[q] as usize)
    }
}

/// Runs `work(start, end, out)` over `0..n`: on the calling thread for small batches, else in
/// rayon tasks of [`CHUNK`] queries, each with its own part of `out`. Every query's answer is
/// its own, so the output does not depend on the split.
fn chunks<O: SplitOutput>(n: usize, out: O, work: impl Fn(usize, usize, O) + Sync) {
    if n < PARALLEL_MIN || crate::threads::available() < 2 {
        return work(0, n, out);
    }
    let mut parts = Vec::with_capacity(n.div_ceil(CHUNK));
    let mut rest = out;
    for start in (0..n).step_by(CHUNK) {
        let (head, tail) = rest.split_at(CHUNK.min(n - start));
        parts.push((start, head));
        rest = tail;
    }
    parts
        .into_par_iter()
        .for_each(|(start, o)| work(start, (start + CHUNK).min(n), o));
}

/// One ray's slab test against a node's four boxes, each widened by its own margin, over
/// the ray's parameters `[−ext, T + ext]` (module docs, "Why the tree misses no hit"). With
/// `r` the L1 distance from `O` to a box's far corner (a bound on `|W|` for its walls):
/// `pad = pad_r·(r + ℓ) + pad_0` and `ext = min(ext_r·(3r + 2ℓ), ext_t)`, each one product and
/// one sum per child from the per-ray terms [`Slab::margins`] folds. The bounds each
/// axis crosses first are chosen by the sign of `D` (a zero component takes its slab as all or
/// nothing through `±∞`).
#[derive(Clone, Copy, Debug)]
struct Slab<F> {
    o: [F; 2],
    inv: [F; 2],
    neg: [bool; 2],
    /// `−1` where the axis runs forward, `+1` where backward: the near bound's widening.
    sign: [F; 2],
    ell: F,
    pad_r: F,
    pad_0: F,
    ext_r: F,
    /// `pad_r·ℓ + pad_0`, `3·ext_r` and `2ℓ·ext_r`, rounded up.
    pad_c: F,
    ext_3: F,
    ext_c: F,
    /// The extension's bound from the closest hit so far (`+∞` before one).
    ext_t: F,
    /// The closest hit so far (or `t_max`).
    t: F,
    /// `1 + 4u`: rounds a sum up past its rounding.
    up: F,
}

impl<F: Real> Slab<F> {
    fn new((ox, oy): (F, F), (dx, dy): (F, F)) -> Self {
        let neg = |d: F| d.to_bits_u64() >> (8 * core::mem::size_of::<F>() - 1) != 0;
        let neg = [neg(dx), neg(dy)];
        let sign = |n: bool| if n { F::ONE } else { -F::ONE };
        let u = Prec::of::<F>().u;
        Slab {
            o: [ox, oy],
            inv: [F::ONE / dx, F::ONE / dy],
            neg,
            sign: [sign(neg[0]), sign(neg[1])],
            ell: F::ZERO,
            pad_r: F::ZERO,
            pad_0: F::ZERO,
            ext_r: F::ZERO,
            pad_c: F::ZERO,
            ext_3: F::ZERO,
            ext_c: F::ZERO,
            ext_t: F::ZERO,
            t: F::ONE,
            up: F::from_f64(1.0 + 4.0 * u),
        }
    }

    /// Sets the margins' terms (module docs): `ell` and `ext_r` already carry their slack.
    fn margins(&mut self, ell: f64, pad_r: f64, pad_0: f64, ext_r: f64) {
        let up = |x: f64| F::from_f64(x * (1.0 + 1e-6));
        (self.ell, self.pad_r, self.pad_0, self.ext_r) = (up(ell), up(pad_r), up(pad_0), up(ext_r));
        (self.pad_c, self.ext_3, self.ext_c) = (
            up(pad_r * ell + pad_0),
            up(3.0 * ext_r),
            up(2.0 * ell * ext_r),
        );
    }

    /// The largest far end any child can have: `(T + ext_t)·(1 + 4u)`.
    #[inline(always)]
    fn reach(&self) -> F {
        (self.t + self.ext_t) * self.up
    }

    /// The entry parameter of each child whose widened box the ray's part meets, `+∞` for the
    /// others (empty slots give NaN or `+∞`: the walk skips them by their reference). One
    /// vector operation per step for the four children.
    #[inline(always)]
    fn test(&self, n: &Node<F>) -> [F; WIDTH] {
        let (near_x, far_x) = if self.neg[0] {
            (&n.hi_x, &n.lo_x)
        } else {
            (&n.lo_x, &n.hi_x)
        };
        let (near_y, far_y) = if self.neg[1] {
            (&n.hi_y, &n.lo_y)
        } else {
            (&n.lo_y, &n.hi_y)
        };
        let v = |x: F| L4::<F>::splat(x);
        let load = |a: &[F; WIDTH]| <L4<F> as Load>::load(a);
        let (ox, oy) = (v(self.o[0]), v(self.o[1]));
        let (nx, fx) = (load(near_x) - ox, load(far_x) - ox);
        let (ny, fy) = (load(near_y) - oy, load(far_y) - oy);
        // `max_any`/`min_any` are `a > b ? a : b` and `a < b ? a : b`.
        let r = nx.abs().max_any(fx.abs()) + ny.abs().max_any(fy.abs());
        let pad = v(self.pad_r) * r + v(self.pad_c);
        let ext = (v(self.ext_3) * r + v(self.ext_c)).min_any(v(self.ext_t));
        let (sx, sy) = (v(self.sign[0]), v(self.sign[1]));
        let (ix, iy) = (v(self.inv[0]), v(self.inv[1]));
        let tnx = (nx + sx * pad) * ix;
        let tfx = (fx - sx * pad) * ix;
        let tny = (ny + sy * pad) * iy;
        let tfy = (fy - sy * pad) * iy;
        let up = v(self.up);
        let e = tnx.max_any(tny).max_any(-ext * up);
        let x = tfx.min_any(tfy).min_any((v(self.t) + ext) * up);
        let enter = L4::<F>::select(e.le(x), e, v(F::INFINITY));
        let mut out = [F::INFINITY; WIDTH];
        enter.write(&mut out);
        out
    }
}

/// A walk's stack of `(child, entry parameter)`, kept between the rays of a batch.
type Stack<F> = Vec<(u32, F)>;

impl<F: Real> Bvh<F> {
    /// Walks the tree with `slab`, calling `leaf(walls, slab)` for every leaf whose box passes
    /// (the leaf may narrow `slab.t`); nearest child first when `ordered`. Stops when `leaf`
    /// returns true.
    #[inline(always)]
    fn walk(
        &self,
        slab: &mut Slab<F>,
        ordered: bool,
        stack: &mut Stack<F>,
        mut leaf: impl FnMut(core::ops::Range<usize>, &mut Slab<F>) -> bool,
    ) {
        if self.root == EMPTY {
            return;
        }
        if let Some(k) = as_leaf(self.root) {
            leaf(k, slab);
            return;
        }
        stack.clear();
        stack.push((self.root, F::ZERO));
        while let Some((id, enter)) = stack.pop() {
            if enter > slab.reach() {
                continue;
            }
            if let Some(k) = as_leaf(id) {
                if leaf(k, slab) {
                    return;
                }
                continue;
            }
            let node = &self.nodes[id as usize];
            let t = slab.test(node);
            // Push the passing children farthest first, so the nearest is popped first.
            let mut order = [0usize; WIDTH];
            let mut m = 0;
            for (k, (&tk, &child)) in t.iter().zip(&node.child).enumerate() {
                if tk < F::INFINITY && child != EMPTY {
                    order[m] = k;
                    m += 1;
                }
            }
            if ordered {
                for a in 1..m {
                    let mut b = a;
                    while b > 0 && t[order[b - 1]] < t[order[b]] {
                        order.swap(b - 1, b);
                        b -= 1;
                    }
                }
            }
            for &k in &order[..m] {
                stack.push((node.child[k], t[k]));
            }
        }
    }
}

/// One ray's search: the closest hit so far (or the first, for any hit) and the walk's slab.
struct Search<'s, F: Real> {
    scene: &'s Scene<F>,
    /// The grid this search walks instead of the tree (where it serves the ray).
    cells: Option<&'s Cells>,
    ray: RayLanes<F>,
    t_max: F,
    /// `t`, index, `s`'s parts of the best hit; `t` starts just above `t_max`.
    best: Best<F>,
    winner: Option<Row<F>>,
    any: bool,
    /// `Some` where the walls nearly parallel to the ray were offered beforehand, with their
    /// [`Seed`] if they hit.
    seed: Option<Option<&'s Seed<F>>>,
    slab: Slab<F>,
    /// The ray's bounds (module docs): `|D| ≥ d_lo`, `|D| ≤ d_hi`, the coefficient of the
    /// extension's bound from the closest hit, `ℓ`.
    d_lo: f64,
    d_hi: f64,
    e_coef: f64,
    ell: f64,
    /// The extension's coefficient of `3r + 2ℓ` (with its slack).
    ext_r: f64,
}

impl<'s, F: Real> Search<'s, F> {
    #[inline(always)]
    fn new(scene: &'s Scene<F>, ray: RayLanes<F>, t_max: F, any: bool) -> Self {
        let nan = F::NAN;
        Search {
            scene,
            cells: None,
            ray,
            t_max,
            best: Best {
                t: t_max.next_up(),
                j: nan,
                sn: nan,
                ad: nan,
                nx: nan,
                ny: nan,
            },
            winner: None,
            any,
            seed: None,
            slab: Slab::new((ray.ox, ray.oy), (ray.dx, ray.dy)),
            d_lo: 0.0,
            d_hi: 0.0,
            e_coef: 0.0,
            ell: 0.0,
            ext_r: 0.0,
        }
    }

    /// Whether a hit at `t` on wall `j` comes before the best so far: by `t`, then by the lower
    /// index (the brute force's tie rule). False for a NaN `t`.
    #[inline(always)]
    fn beats(&self, t: F, j: F) -> bool {
        t < self.best.t || (t == self.best.t && j < self.best.j)
    }

    /// Keeps the hit at `t` on wall `winner` (its index `j`, its `sn`, `ad`) as the closest so
    /// far, and narrows the walk to it.
    #[inline(always)]
    fn keep(&mut self, (t, j, sn, ad): (F, F, F, F), winner: Row<F>) {
        self.best = Best {
            t,
            j,
            sn,
            ad,
            ..self.best
        };
        self.winner = Some(winner);
        self.narrow();
    }

    /// Offers one wall; true when the search is over (any hit found).
    #[inline(always)]
    fn offer(&mut self, row: &Row<F>) -> bool {
        let c = candidate(&self.ray, self.t_max, &row.lanes::<F>());
        if !(c.hit && self.beats(c.t, row.j)) {
            return false;
        }
        if self.any {
            self.winner = Some(*row);
            return true;
        }
        self.keep((c.t, row.j, c.sn, c.ad), *row);
        false
    }

    /// Offers the walls `start .. start + count` of a leaf (or more: see
    /// [`Search::offer_quad`]), four at a time. True when the search is over.
    #[inline(always)]
    fn offer_leaf(&mut self, start: usize, count: usize) -> bool {
        for q in (start..start + count).step_by(4) {
            if self.offer_quad([q, q + 1, q + 2, q + 3]) {
                return true;
            }
        }
        false
    }

    /// Offers the walls of a grid cell (their slots in the tree's order), four at a time, the
    /// last four filled with a NaN wall. True when the search is over.
    #[inline(always)]
    fn offer_cell(&mut self, slots: &[u32]) -> bool {
        let nan = self.scene.bvh.len;
        for q in slots.chunks(4) {
            let at = |l: usize| q.get(l).map_or(nan, |&p| p as usize);
            if self.offer_quad([at(0), at(1), at(2), at(3)]) {
                return true;
            }
        }
        false
    }

    /// Offers the walls of four slots of the tree's order (a leaf's, and maybe some of the next
    /// leaf's or NaN padding walls, which never hit: an extra real wall is an extra candidate,
    /// which cannot change the answer) in four lanes: [`crossing`] on all, the collinear part
    /// of [`candidate`] only where a lane is collinear (the same bits as [`candidate`]), then
    /// the lanes that hit no later than the best so far one by one, by `t` and index. True
    /// when the search is over.
    fn offer_quad(&mut self, slots: [usize; 4]) -> bool {
        let bvh = &self.scene.bvh;
        let hot = slots.map(|p| bvh.hot[p]);
        let v = |x: F| L4::<F>::splat(x);
        let ray = RayLanes {
            ox: v(self.ray.ox),
            oy: v(self.ray.oy),
            dx: v(self.ray.dx),
            dy: v(self.ray.dy),
        };
        let col = |c: usize| L4::<F>::from_fn(|l| hot[l][c]);
        let (sx, sy, ex, ey) = (col(0), col(1), col(2), col(3));
        let (mut c, collinear) = crossing(&ray, sx, sy, ex, ey);
        if L4::<F>::any(collinear) {
            let cold = slots.map(|p| bvh.cold[p]);
            let x1 = L4::<F>::from_fn(|l| cold[l][0]);
            let y1 = L4::<F>::from_fn(|l| cold[l][1]);
            let g = SegLanes::new(sx, sy, x1, y1, ex, ey);
            c = finish_collinear(&ray, v(self.t_max), &g, c, collinear);
        }
        let maybe = c.hit & c.t.le(v(self.best.t));
        if !L4::<F>::any(maybe) {
            return false;
        }
        let (mut t, mut sn, mut ad) = ([F::NAN; 4], [F::NAN; 4], [F::NAN; 4]);
        L4::<F>::select(maybe, c.t, v(F::NAN)).write(&mut t);
        c.sn.write(&mut sn);
        c.ad.write(&mut ad);
        for l in 0..4 {
            // NaN: not a hit at or before the best.
            if t[l].to_f64().is_nan() {
                continue;
            }
            let j = bvh.cold[slots[l]][2];
            if !self.beats(t[l], j) {
                continue;
            }
            let winner = bvh.row(slots[l]);
            if self.any {
                self.winner = Some(winner);
                return true;
            }
            self.keep((t[l], j, sn[l], ad[l]), winner);
        }
        false
    }

    /// Offers walls; true when the search is over.
    #[inline(always)]
    fn offer_all(&mut self, rows: &[Row<F>]) -> bool {
        for r in rows {
            if self.offer(r) {
                return true;
            }
        }
        false
    }

    /// The walk's far end for the closest hit so far `T`: the extension's bound `e(T)`.
    #[inline(always)]
    fn narrow(&mut self) {
        let u = self.scene.prec.u;
        let t = if self.winner.is_some() {
            self.best.t
        } else {
            self.t_max
        }
        .to_f64();
        let e = if t.is_finite() {
            self.e_coef * (t * self.d_hi * (1.0 + 4.0 * u) + self.ell) / self.d_lo + 4.0 * u * t
        } else {
            f64::INFINITY
        };
        self.slab.t = F::from_f64(t);
        self.slab.ext_t = F::from_f64(e * (1.0 + 8.0 * u));
    }

    /// The whole search: [`Search::begin`], then the walk down the tree.
    #[inline(always)]
    fn run(&mut self, stack: &mut Stack<F>) {
        if self.begin() == Next::Done {
            return;
        }
        let found = match self.walk_cells() {
            Some(found) => found,
            None => {
                let mut slab = self.slab;
                let mut found = false;
                // Nearest first for any hit too: the first hit found is then usually near.
                self.scene.bvh.walk(
                    &mut slab,
                    true,
                    stack,
                    #[inline(always)]
                    |k, slab| {
                        found = self.offer_leaf(k.start, k.len());
                        *slab = self.slab;
                        found
                    },
                );
                found
            }
        };
        if self.any && !found {
            self.offer_near(false);
        }
    }

    /// The walk through the scene's grid (`cells.rs`) for a ray that starts among the tree's
    /// walls: whether the search is over (any hit found), or `None` for a ray the grid does not
    /// serve (the tree's walk then).
    #[inline(always)]
    fn walk_cells(&mut self) -> Option<bool> {
        let cells = self.cells?;
        let r = &self.ray;
        let o = (r.ox.to_f64(), r.oy.to_f64());
        let d = (r.dx.to_f64(), r.dy.to_f64());
        // Behind the origin (cells.rs): |τ| ≤ ext_r·(5ℓ + 5·pad) / (1 − 3·ext_r·|D|₁).
        let k = 3.0 * self.ext_r * (d.0.abs() + d.1.abs());
        if !cells.serves(o) || k.is_nan() || k >= 0.5 {
            return None;
        }
        let ell = self.ell * (1.0 + 8.0 * self.scene.prec.u);
        let back = (self.ext_r * (5.0 * ell + 5.0 * cells.pad) / (1.0 - k) * (1.0 + 1e-6))
            .min(self.slab.ext_t.to_f64());
        let mut found = false;
        cells.walk(
            o,
            d,
            -back,
            self.slab.reach().to_f64(),
            #[inline(always)]
            |slots| {
                found = self.offer_cell(slots);
                (!found).then(|| self.slab.reach().to_f64())
            },
        );
        Some(found)
    }

    /// Everything but the walk down the tree: the walls outside the tree's range, every wall
    /// for a ray outside it, the walls nearly parallel to the ray (`near.rs`; for any hit,
    /// after the walk and only when it found none), and the walk's margins. [`Next::Walk`]
    /// when the tree's walls are still to be offered, through [`Search::offer_leaf`] for every
    /// leaf that the walk's [`Slab`] test passes (or more).
    #[inline(always)]
    fn begin(&mut self) -> Next {
        let scene = self.scene;
        if self.offer_all(&scene.always) {
            return Next::Done;
        }
        if !self.tame() {
            for start in (0..scene.bvh.len).step_by(bvh::LEAF) {
                if self.offer_leaf(start, bvh::LEAF) {
                    break;
                }
            }
            return Next::Done;
        }
        if !self.setup() {
            return Next::Done;
        }
        // Any hit: the tree first, where most hits are, and the nearly parallel walls only
        // when it has none (any hit found is the answer, in whatever order).
        if self.any {
            return Next::Walk;
        }
        // The closest hit: every wall that may hit is offered, so nothing ends it early.
        match self.seed {
            Some(Some(seed)) => self.take(seed),
            Some(None) => {}
            None => {
                self.offer_near(false);
            }
        }
        Next::Walk
    }

    /// Whether the ray's coordinates are in the range the walk's margins cover (module docs);
    /// the others are offered every wall.
    #[inline(always)]
    fn tame(&self) -> bool {
        let (p, r) = (self.scene.prec, &self.ray);
        [r.ox, r.oy, r.dx, r.dy].iter().all(|v| p.safe(v.to_f64()))
    }

    /// The walk's margins for the ray; false for a scene whose tree has no wall.
    #[inline(always)]
    fn setup(&mut self) -> bool {
        let (p, r) = (self.scene.prec, &self.ray);
        let (dx, dy) = (r.dx.to_f64(), r.dy.to_f64());
        let ext = &self.scene.extent;
        let [xl, _, xh, _] = ext.bx;
        if xl > xh || xl.is_nan() {
            return false;
        }
        let ell = ext.ell;
        let (u, w) = (p.u, p.w);
        let m = 1.0 + 8.0 * u;
        self.d_lo = dx.abs().max(dy.abs());
        self.d_hi = dx.abs() + dy.abs();
        self.ell = ell;
        self.e_coef = 15.0 * u / w;
        self.ext_r = 5.0 * u / w / self.d_lo * m;
        let mut slab = Slab::new((r.ox, r.oy), (r.dx, r.dy));
        slab.margins(ell * m, 80.0 * u, p.floor, self.ext_r);
        self.slab = slab;
        self.narrow();
        true
    }

    /// Takes `seed` where it [`beats`](Search::beats) the best so far.
    #[inline(always)]
    fn take(&mut self, seed: &Seed<F>) {
        let b = seed.best;
        if self.beats(b.t, b.j) {
            self.keep((b.t, b.j, b.sn, b.ad), seed.winner);
        }
    }

    /// Offers the walls nearly parallel to the ray that may come near its line (`near.rs`);
    /// true when the search is over.
    #[inline(always)]
    fn offer_near(&mut self, cached: bool) -> bool {
        let scene = self.scene;
        let (p, ext) = (scene.prec, &scene.extent);
        let r = &self.ray;
        let (ox, oy) = (r.ox.to_f64(), r.oy.to_f64());
        let (dx, dy) = (r.dx.to_f64(), r.dy.to_f64());
        let [xl, yl, xh, yh] = ext.bx;
        let (u, ell) = (p.u, ext.ell);
        // |W| ≤ R for every wall: the L1 distance to the box's far corner.
        let big = (ox - xl).abs().max((ox - xh).abs()) + (oy - yl).abs().max((oy - yh).abs());
        // Walls within w of the ray's direction, anywhere near its line. β: the distance
        // bound, plus the roundings of the keys (in F) and of the offsets (in f64).
        let beta = 10.0 * u * (big + ell)
            + 64.0 * (u + f64::EPSILON) * (ox.abs() + oy.abs() + 2.0 * ext.cmax + big)
            + p.floor;
        let wq = 1.02 * p.w + 1e-12;
        let mut done = false;
        scene.near.query(
            (ox, oy),
            (dx, dy),
            ext.bx,
            beta,
            wq,
            cached,
            #[inline(always)]
            |slot| {
                if !done {
                    done = self.offer(&scene.bvh.row(slot as usize));
                }
            },
        );
        done
    }

    /// The closest hit found (for a search that was not an any-hit one).
    #[inline(always)]
    fn hit(&self) -> SegmentHit<F> {
        match self.winner {
            None => SegmentHit::MISS,
            Some(row) => {
                let e = Entry::of(row);
                let mut best = self.best;
                (best.nx, best.ny) = (e.nx, e.ny);
                best.answer(&self.ray)
            }
        }
    }
}

/// What is left of a search after [`Search::begin`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// The answer is found.
    Done,
    /// The tree's walls are still to be offered.
    Walk,
}
