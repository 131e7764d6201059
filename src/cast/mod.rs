//! Rays and convex polygons (SPEC §2): batched ray casts and Cyrus–Beck clipping.
//!
//! | query | file | lanes |
//! | --- | --- | --- |
//! | ray × rect, one rect for N rays or N rects pairwise | `ray_rect.rs` | rays |
//! | N rays × M segments, closest hit | `ray_segments.rs` | rays (segments broadcast) |
//! | N rays × one convex polygon | `ray_polygon.rs` | rays (edges broadcast) |
//! | N segments × one convex polygon (Cyrus–Beck) | `segment_polygon.rs` | segments |
//! | building a convex polygon | `polygon.rs` | — |
//! | the visibility polygon of a viewpoint among walls (a rotational sweep, exact predicates) | `visibility.rs` | — (rayon over viewpoints) |
//! | walls built into an index: closest hit, any hit, line of sight, lidar | `scene/` | one ray at a time, four boxes per node test |
//!
//! A ray is `O + t·D`, `t ∈ [0, t_max]` (`t_max = +∞` by default). `D` need not be unit length
//! and `t` is in units of `D`. A ray with a non-finite coordinate or `D = (0, 0)` is invalid:
//! its results are NaN (and [`NO_HIT`] for indices), never a panic. `t_max` is one value per
//! batch; NaN or negative is an [`Error::InvalidArgument`] before any work.
//!
//! Every kernel is written once over [`Lane`]: the batch drivers run it on SIMD
//! vectors (one ray or segment per lane) and on scalars for the tail and for single queries, so
//! both paths give the same bits. Large batches are split over threads with rayon in chunks;
//! each chunk runs the same kernel, so the output does not depend on the thread count.
//!
//! ## Exactness
//!
//! * **Ray × rect** is the slab kernel of segment clipping (`kernels/contract.rs`, shared, not a
//!   copy), with `[0, 1]` replaced by `[0, t_max]`: `t_entry == 0` exactly iff `O` is in the
//!   closed rect, boundary parameters within about one ulp and sign-exact, parallel axes all or
//!   nothing. `t_exit == t_max` when the computed exit is at least `t_max`.
//! * **Segments and polygons** are decided by cross products computed in the input's float type.
//!   Where the products are exact (coordinates on a grid of up to about 10 bits in `f32`, 20 in
//!   `f64`, scaled by any power of two) every decision is exact and every `t` and `s` is the
//!   correctly rounded quotient of two exact numbers. Elsewhere a decision can differ from exact
//!   arithmetic only when the exact configuration is within a few rounding errors of the
//!   boundary (a graze of a vertex, a nearly parallel edge); the tests state the bound.

pub mod polygon;
pub mod ray_polygon;
pub mod ray_rect;
pub mod ray_segments;
pub mod scene;
pub mod segment_polygon;
pub mod visibility;

pub use polygon::ConvexPolygon;
pub use ray_polygon::{cast_polygon, cast_polygon_one, InsideMode, PolygonCastOutput, PolygonHit};
pub use ray_rect::{cast_rect, cast_rect_one, cast_rects, RayRect, RectCastOutput};
pub use ray_segments::{cast_segments, cast_segments_one, SegmentHit, SegmentsCastOutput};
pub use scene::{
    cast_segments_with, index_pays, lidar_rays, CastMethod, PosesRef, Scene, SceneIndex, SightEnds,
    INDEX_MIN_RAYS, INDEX_MIN_WALLS, SIGHT_BLOCKED, SIGHT_INVALID, SIGHT_VISIBLE,
};
pub use segment_polygon::{clip_polygon, clip_polygon_one};
pub use visibility::{
    visibility_polygon, visibility_polygons, VisibilityPolygons, VisibilityScratch, VisibilityWalls,
};

use crate::error::Error;
use crate::real::{Lane, Real};

/// The edge or segment index reported for a miss or an invalid ray, in the library's `u32`
/// index outputs. Files written by `slabclip cast` and the Python package hold indices as
/// `int64` with `-1` for a miss instead ([`signed_index`]).
pub const NO_HIT: u32 = u32::MAX;

/// An index as `slabclip cast`'s files and the Python package give it: `i64`, `-1` for
/// [`NO_HIT`]. numpy code reads `-1` as "no index" at a glance, and a stray `-1` fails loudly
/// where `4294967295` would index silently out of range.
pub fn signed_index(i: u32) -> i64 {
    if i == NO_HIT {
        -1
    } else {
        i64::from(i)
    }
}

/// Rays per rayon task: large enough that a task outweighs its scheduling, a multiple of every
/// SIMD width.
pub(crate) const CHUNK: usize = 1024;

/// One ray `O + t·D`, as a row `ox, oy, dx, dy` (the layout of `slabclip cast` input files).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct Ray<F> {
    /// `O.x`
    pub ox: F,
    /// `O.y`
    pub oy: F,
    /// `D.x`
    pub dx: F,
    /// `D.y`
    pub dy: F,
}

// SAFETY: `Ray<F>` is `repr(C)` with four fields of one `Pod` float type: no padding, and every
// bit pattern of four floats is a valid ray.
unsafe impl<F: Real> bytemuck::Zeroable for Ray<F> {}
// SAFETY: as above.
unsafe impl<F: Real> bytemuck::Pod for Ray<F> {}

const _: () = assert!(core::mem::size_of::<Ray<f32>>() == 16);
const _: () = assert!(core::mem::size_of::<Ray<f64>>() == 32);

impl<F: Real> Ray<F> {
    /// The ray from `(ox, oy)` along `(dx, dy)`.
    #[inline(always)]
    pub fn new(ox: F, oy: F, dx: F, dy: F) -> Self {
        Ray { ox, oy, dx, dy }
    }

    /// Finite coordinates and a nonzero direction.
    pub fn is_valid(&self) -> bool {
        RayLanes::from(*self).valid()
    }

    /// The point `O + t·D`; exactly `O` at `t = 0`.
    pub fn at(&self, t: F) -> (F, F) {
        RayLanes::from(*self).at(t)
    }
}

/// A borrowed structure-of-arrays batch of rays: four caller slices of equal length.
#[derive(Clone, Copy, Debug)]
pub struct RaysRef<'a, F> {
    ox: &'a [F],
    oy: &'a [F],
    dx: &'a [F],
    dy: &'a [F],
}

impl<'a, F: Real> RaysRef<'a, F> {
    /// Views `ox[i], oy[i], dx[i], dy[i]` as ray `i`; slices of different lengths are an
    /// [`Error::LengthMismatch`].
    pub fn new(ox: &'a [F], oy: &'a [F], dx: &'a [F], dy: &'a [F]) -> Result<Self, Error> {
        for (what, c) in [("oy", oy), ("dx", dx), ("dy", dy)] {
            check_len(what, ox.len(), c.len())?;
        }
        Ok(RaysRef { ox, oy, dx, dy })
    }

    /// How many rays.
    pub fn len(&self) -> usize {
        self.ox.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ox.is_empty()
    }

    /// Ray `i`. Panics if `i >= len()`.
    #[inline(always)]
    pub fn ray(&self, i: usize) -> Ray<F> {
        Ray::new(self.ox[i], self.oy[i], self.dx[i], self.dy[i])
    }

    /// Rays `i .. i + V::WIDTH` as vectors.
    #[inline(always)]
    pub(crate) fn lanes<V: crate::simd::Vector<F>>(&self, i: usize) -> RayLanes<V> {
        RayLanes {
            ox: V::load(&self.ox[i..]),
            oy: V::load(&self.oy[i..]),
            dx: V::load(&self.dx[i..]),
            dy: V::load(&self.dy[i..]),
        }
    }

    /// Calls `body(i, rays)` for every full chunk of `LANES` rays from `i = from + k·LANES`, in
    /// order (from the last chunk down when `backward`), and returns where the tail begins
    /// (`buffers::for_each_column_chunk`).
    #[inline(always)]
    pub(crate) fn for_each_chunk<V: crate::simd::Vector<F>>(
        &self,
        from: usize,
        backward: bool,
        mut body: impl FnMut(usize, RayLanes<V>),
    ) -> usize {
        crate::buffers::for_each_column_chunk(
            self.columns(),
            from,
            backward,
            #[inline(always)]
            |i, [ox, oy, dx, dy]| body(i, RayLanes { ox, oy, dx, dy }),
        )
    }

    /// The four columns `[ox, oy, dx, dy]`.
    pub(crate) fn columns(&self) -> [&'a [F]; 4] {
        [self.ox, self.oy, self.dx, self.dy]
    }

    /// The rays `range` of this batch.
    pub(crate) fn slice(&self, start: usize, end: usize) -> RaysRef<'a, F> {
        RaysRef {
            ox: &self.ox[start..end],
            oy: &self.oy[start..end],
            dx: &self.dx[start..end],
            dy: &self.dy[start..end],
        }
    }
}

/// An owned structure-of-arrays batch of rays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rays<F> {
    ox: Vec<F>,
    oy: Vec<F>,
    dx: Vec<F>,
    dy: Vec<F>,
}

impl<F: Real> Rays<F> {
    /// Copies rows into columns.
    pub fn from_rows(rows: &[Ray<F>]) -> Self {
        Rays {
            ox: rows.iter().map(|r| r.ox).collect(),
            oy: rows.iter().map(|r| r.oy).collect(),
            dx: rows.iter().map(|r| r.dx).collect(),
            dy: rows.iter().map(|r| r.dy).collect(),
        }
    }

    /// From interleaved `[ox, oy, dx, dy, …]`; a length not a multiple of four is an
    /// [`Error::RaggedRows`].
    pub fn from_interleaved(values: &[F]) -> Result<Self, Error> {
        if !values.len().is_multiple_of(4) {
            return Err(Error::RaggedRows(values.len()));
        }
        let rows: &[Ray<F>] = bytemuck::cast_slice(values);
        Ok(Self::from_rows(rows))
    }

    /// The borrowed view.
    pub fn as_ref(&self) -> RaysRef<'_, F> {
        RaysRef {
            ox: &self.ox,
            oy: &self.oy,
            dx: &self.dx,
            dy: &self.dy,
        }
    }

    /// How many rays.
    pub fn len(&self) -> usize {
        self.ox.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ox.is_empty()
    }
}

/// Rays, one per lane.
#[derive(Clone, Copy)]
pub(crate) struct RayLanes<L> {
    pub ox: L,
    pub oy: L,
    pub dx: L,
    pub dy: L,
}

impl<F: Real> From<Ray<F>> for RayLanes<F> {
    #[inline(always)]
    fn from(r: Ray<F>) -> Self {
        RayLanes {
            ox: r.ox,
            oy: r.oy,
            dx: r.dx,
            dy: r.dy,
        }
    }
}

impl<L: Lane> RayLanes<L> {
    /// Finite coordinates and `D ≠ (0, 0)`.
    #[inline(always)]
    pub fn valid(&self) -> L::Mask {
        let zero = L::splat(L::Scalar::ZERO);
        let finite = self.ox.finite() & self.oy.finite() & self.dx.finite() & self.dy.finite();
        finite & !(self.dx.eq_(zero) & self.dy.eq_(zero))
    }

    /// `O + t·D`, exactly `O` where `t == 0` (also for a `-0.0` coordinate).
    #[inline(always)]
    pub fn at(&self, t: L) -> (L, L) {
        let at_origin = t.eq_(L::splat(L::Scalar::ZERO));
        (
            L::select(at_origin, self.ox, self.ox + t * self.dx),
            L::select(at_origin, self.oy, self.oy + t * self.dy),
        )
    }
}

/// `t_max` must be `≥ 0` (`+∞` allowed); NaN or negative is an error.
pub(crate) fn check_t_max<F: Real>(t_max: F) -> Result<(), Error> {
    if t_max >= F::ZERO {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "t_max = {t_max} must be a number >= 0 (inf for an unbounded ray)"
        )))
    }
}

/// An output buffer's length must equal the batch's.
pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

/// An optional output buffer's length must equal the batch's.
pub(crate) fn check_opt<T>(
    what: &'static str,
    n: usize,
    b: &Option<&mut [T]>,
) -> Result<(), Error> {
    match b {
        Some(b) => check_len(what, n, b.len()),
        None => Ok(()),
    }
}

/// Splits an optional output buffer at `mid`.
#[allow(clippy::type_complexity)]
pub(crate) fn split_opt<T>(
    b: Option<&mut [T]>,
    mid: usize,
) -> (Option<&mut [T]>, Option<&mut [T]>) {
    match b {
        Some(b) => {
            let (l, r) = b.split_at_mut(mid);
            (Some(l), Some(r))
        }
        None => (None, None),
    }
}

/// Writes the lanes of `v` to `out[i..]` when the output was asked for.
#[inline(always)]
pub(crate) fn put<L: Lane>(out: &mut Option<&mut [L::Scalar]>, i: usize, v: L) {
    if let Some(o) = out.as_deref_mut() {
        v.write(&mut o[i..]);
    }
}

/// The unit vector along `(x, y)`, computed without overflow or underflow (the vector is first
/// scaled by its largest component); `(0, 0)` gives NaN.
#[inline(always)]
pub(crate) fn unit<L: Lane>(x: L, y: L) -> (L, L) {
    let zero = L::splat(L::Scalar::ZERO);
    let ax = L::select(x.lt(zero), -x, x);
    let ay = L::select(y.lt(zero), -y, y);
    let m = L::select(ay.lt(ax), ax, ay);
    let (sx, sy) = (x / m, y / m);
    let len = (sx * sx + sy * sy).sqrt();
    (sx / len, sy / len)
}

/// An output whose buffers can be cut in two at a ray index (for the rayon chunks).
pub(crate) trait SplitOutput: Sized + Send {
    /// Rays `..mid` and `mid..`.
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// A ray query as the batch driver runs it: answer the `L::WIDTH` rays in `rays` and write the
/// answers to `out` from index `i`. One generic body for the SIMD lanes and the scalar tail,
/// which is why both give the same bits.
pub(crate) trait RayQuery<F: Real, O>: Sync {
    /// Answers and writes rays `i .. i + L::WIDTH`.
    fn run<L: Lane<Scalar = F>>(&self, out: &mut O, i: usize, rays: &RayLanes<L>);
}

/// Below this many ray × edge tests in a batch, [`drive`] stays on the calling thread: handing
/// work to the rayon pool and back costs more than a second thread gives. Measured with
/// `benches/rays.rs` (4096 rays, this machine): 16K and 32K tests ran faster on the calling
/// thread, 64K and more faster on two threads.
pub(crate) const PARALLEL_WORK: usize = 1 << 16;

/// The batch driver of the ray queries: the query on SIMD vectors, then on scalars for the
/// tail, over chunks of [`CHUNK`] rays; the chunks go to rayon when the batch holds at least
/// [`PARALLEL_WORK`] tests (`tests_per_ray` each). Every ray's answer is its own, so the output
/// does not depend on the split.
pub(crate) fn drive<F: Real, O: SplitOutput>(
    rays: &RaysRef<'_, F>,
    out: O,
    tests_per_ray: usize,
    query: &impl RayQuery<F, O>,
) {
    use rayon::prelude::*;
    let n = rays.len();
    let run = |start: usize, end: usize, mut o: O| {
        let rays = rays.slice(start, end);
        let full = crate::simd::dispatch!(I => rays.for_each_chunk::<F::Simd<I>>(
            0,
            false,
            #[inline(always)]
            |i, lanes| query.run(&mut o, i, &lanes),
        ));
        for i in full..rays.len() {
            query.run(&mut o, i, &RayLanes::from(rays.ray(i)));
        }
    };
    if n.saturating_mul(tests_per_ray.max(1)) < PARALLEL_WORK || crate::threads::available() < 2 {
        return run(0, n, out);
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
        .for_each(|(start, o)| run(start, (start + CHUNK).min(n), o));
}
