//! Polylines (SPEC §7): batches of them in the ragged layout of GeoArrow and shapely's
//! `to_ragged_array`, clipped to rects ([`Polylines::clip`], [`Polylines::clip_each`]) or cut
//! into the cells of a [`Grid`](crate::Grid) ([`Polylines::tiles`]), the answers ragged too
//! ([`Parts`]).
//!
//! # Input, borrowed
//!
//! [`Polylines`] views the caller's coordinates (`(V, 2)` rows as interleaved `x, y` values, or
//! separate `x` and `y` columns) and `L + 1` offsets (`i32` or `i64`, as GeoArrow has both;
//! shapely gives `int64`): polyline `j` is vertices `offsets[j] … offsets[j + 1]`, its segments
//! `Vi → Vi+1`. [`MultiPolylines`] adds GeoArrow's second level for MultiLineStrings:
//! geometry `g` is polylines `geometry_offsets[g] … geometry_offsets[g + 1]`. Nothing is copied
//! but the answer.
//!
//! Checked once, when the view is made, with an [`Error::InvalidArgument`] naming the polyline
//! (or geometry): negative offsets, offsets that decrease, offsets beyond the coordinates, a
//! polyline of a single vertex. The first offset may be above 0 and the last below `V` (a
//! slice). A polyline with no vertices clips to nothing.
//!
//! # Parts
//!
//! The clip of a polyline is SPEC §1's clip of each of its segments (the crate's slab,
//! [`Clip::segment`](crate::Clip::segment) for cut vertices),
//! joined into **parts**: maximal runs of pieces where the piece of `Vi → Vi+1` ends at `Vi+1`
//! (`t_exit == 1`) and the next begins there (`t_entry == 0`). A part's vertices are its first
//! piece's start, then the end of every piece with `t_entry < t_exit`:
//!
//! * a `Touches` piece adds no vertex, so joining doubles no vertex; a zero-length segment
//!   inside keeps its repeated vertex;
//! * a segment with a NaN or ±∞ coordinate has no piece: the run breaks there (a NaN vertex
//!   breaks the runs on both its sides);
//! * a run whose vertices are all one point (compared with `==`, so `-0.0` and `0.0` are one)
//!   is a **point of contact**: dropped, or with [`PartOptions::points`] reported in
//!   [`Parts::points`], apart from the parts;
//! * a closed polyline (`V0 == Vk`) is not joined across `V0`;
//! * input vertices come back bit for bit; cut vertices are §1's clipped endpoints: exactly on
//!   the edge that cut, in the closed rect.
//!
//! Parts come per polyline in input order, each polyline's in order along it. Only segments
//! that cross an edge are clipped one by one: vertices are classified 32 at a time on vectors
//! (below or above each bound), runs of segments with both ends in the closed rect are copied
//! at once, and segments with both ends beyond one edge are skipped, the same answer (§1: the
//! former are `Inside` with their ends bit for bit, the latter always a miss).
//!
//! # Tiles
//!
//! See [`tiles`] for the cells, their order, half-open lines, buffers and the watertight cut
//! vertices.
//!
//! # Threads
//!
//! Batches are cut into fixed blocks of polylines (about [`BLOCK_VERTICES`] vertices each) run on
//! rayon's current pool ([`crate::on_calling_thread`] keeps them on the calling thread) and
//! joined in order: the answer does not depend on the thread count.

use core::ops::Range;

use rayon::prelude::*;

use crate::buffers::{SegmentSource, SegmentsRef};
use crate::error::Error;
use crate::geom::Segment;
use crate::real::Real;

pub(crate) mod clip;
mod join;
pub mod tiles;
mod window;

pub use tiles::TileOptions;

/// Vertices per block of the batch (blocks end at polyline boundaries, so they hold at least
/// this many unless the batch ends first).
pub const BLOCK_VERTICES: usize = 8192;

/// The coordinates of a batch of polylines, borrowed.
#[derive(Clone, Copy, Debug)]
pub enum Coords<'a, F> {
    /// `x0, y0, x1, y1, …`: a `(V, 2)` array in C order, as GeoArrow's interleaved coordinates
    /// and shapely's `to_ragged_array` have them.
    Interleaved(&'a [F]),
    /// Separate `x` and `y` columns of equal length (GeoArrow's separated coordinates).
    Separated {
        /// The `x` of every vertex.
        x: &'a [F],
        /// The `y` of every vertex.
        y: &'a [F],
    },
}

impl<F: Real> Coords<'_, F> {
    /// How many vertices (`V`).
    pub fn len(&self) -> usize {
        match self {
            Coords::Interleaved(v) => v.len() / 2,
            Coords::Separated { x, .. } => x.len(),
        }
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex `i`. Panics if `i >= len()`.
    #[inline(always)]
    pub fn vertex(&self, i: usize) -> (F, F) {
        match self {
            Coords::Interleaved(v) => (v[2 * i], v[2 * i + 1]),
            Coords::Separated { x, y } => (x[i], y[i]),
        }
    }

    /// The segment `Vi → Vi+1`. Panics if `i + 1 >= len()`.
    #[inline(always)]
    pub fn segment(&self, i: usize) -> Segment<F> {
        let ((x0, y0), (x1, y1)) = (self.vertex(i), self.vertex(i + 1));
        Segment::new(x0, y0, x1, y1)
    }

    fn check(&self) -> Result<(), Error> {
        match self {
            Coords::Interleaved(v) if v.len() % 2 == 1 => Err(Error::InvalidArgument(format!(
                "coordinates: {} values is not a whole number of (x, y) rows",
                v.len()
            ))),
            Coords::Separated { x, y } if x.len() != y.len() => Err(Error::LengthMismatch {
                what: "y",
                expected: x.len(),
                found: y.len(),
            }),
            _ => Ok(()),
        }
    }
}

/// The segments between consecutive vertices of a coordinate array, `Vi → Vi+1` for
/// `i < V − 1`, as a [`SegmentSource`] (whatever polylines the vertices belong to: a segment
/// from the last vertex of one polyline to the first of the next is in it too, and callers
/// skip it). Separated coordinates are read as columns by the vector kernels, zero-copy.
#[derive(Clone, Copy, Debug)]
pub struct VertexPairs<'a, F> {
    coords: Coords<'a, F>,
}

impl<'a, F: Real> VertexPairs<'a, F> {
    /// The `V − 1` segments of `coords` (none when `V ≤ 1`).
    pub fn new(coords: Coords<'a, F>) -> Self {
        VertexPairs { coords }
    }
}

impl<F: Real> SegmentSource<F> for VertexPairs<'_, F> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.coords.len().saturating_sub(1)
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        self.coords.segment(i)
    }
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        match self.coords {
            Coords::Separated { x, y } if !x.is_empty() => {
                let n = x.len() - 1;
                SegmentsRef::new(&x[..n], &y[..n], &x[1..], &y[1..]).ok()
            }
            _ => None,
        }
    }
}

/// Offsets into coordinates (or into polylines), in either of GeoArrow's integer widths.
#[derive(Clone, Copy, Debug)]
pub enum Offsets<'a> {
    /// 32-bit offsets (GeoArrow's `List`).
    I32(&'a [i32]),
    /// 64-bit offsets (GeoArrow's `LargeList`, shapely's `to_ragged_array`).
    I64(&'a [i64]),
}

impl<'a> From<&'a [i32]> for Offsets<'a> {
    fn from(o: &'a [i32]) -> Self {
        Offsets::I32(o)
    }
}

impl<'a> From<&'a [i64]> for Offsets<'a> {
    fn from(o: &'a [i64]) -> Self {
        Offsets::I64(o)
    }
}

impl<'a> From<&'a Vec<i32>> for Offsets<'a> {
    fn from(o: &'a Vec<i32>) -> Self {
        Offsets::I32(o)
    }
}

impl<'a> From<&'a Vec<i64>> for Offsets<'a> {
    fn from(o: &'a Vec<i64>) -> Self {
        Offsets::I64(o)
    }
}

impl<'a, const N: usize> From<&'a [i32; N]> for Offsets<'a> {
    fn from(o: &'a [i32; N]) -> Self {
        Offsets::I32(o)
    }
}

impl<'a, const N: usize> From<&'a [i64; N]> for Offsets<'a> {
    fn from(o: &'a [i64; N]) -> Self {
        Offsets::I64(o)
    }
}

impl Offsets<'_> {
    /// How many offsets.
    pub fn len(&self) -> usize {
        match self {
            Offsets::I32(o) => o.len(),
            Offsets::I64(o) => o.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Offset `i`, widened. Panics if `i >= len()`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> i64 {
        match self {
            Offsets::I32(o) => o[i] as i64,
            Offsets::I64(o) => o[i],
        }
    }

    /// Checks `L + 1` offsets into `n` items: none negative, none decreasing, none beyond `n`,
    /// and (when `single_is_error`) no item `j` of exactly one element. Errors name the
    /// `item` (`"polyline"`, `"geometry"`) and its index.
    fn check(&self, n: usize, what: &str, item: &str, single_is_error: bool) -> Result<(), Error> {
        let bad = |msg: String| Err(Error::InvalidArgument(msg));
        if self.is_empty() {
            return bad(format!(
                "{what}: no values (expected one more than the number of {item}s, at least 1)"
            ));
        }
        let n = n as i64;
        let first = self.get(0);
        if first < 0 {
            return bad(format!(
                "{what}[0] = {first} is negative ({item} 0 starts there)"
            ));
        }
        if first > n {
            return bad(format!(
                "{what}[0] = {first} is beyond the {n} items it indexes ({item} 0 starts there)"
            ));
        }
        for j in 0..self.len() - 1 {
            let (a, b) = (self.get(j), self.get(j + 1));
            if b < 0 {
                return bad(format!("{item} {j}: {what}[{}] = {b} is negative", j + 1));
            }
            if b < a {
                return bad(format!(
                    "{item} {j}: {what} decrease ({what}[{j}] = {a}, {what}[{}] = {b})",
                    j + 1
                ));
            }
            if b > n {
                return bad(format!(
                    "{item} {j}: {what}[{}] = {b} is beyond the {n} items it indexes",
                    j + 1
                ));
            }
            if single_is_error && b - a == 1 {
                return bad(format!(
                    "{item} {j} has a single vertex (vertex {a}): a polyline needs two or none"
                ));
            }
        }
        Ok(())
    }
}

/// A batch of polylines in the ragged layout, borrowed and checked (see the
/// [module docs](self)).
#[derive(Clone, Copy, Debug)]
pub struct Polylines<'a, F> {
    coords: Coords<'a, F>,
    offsets: Offsets<'a>,
}

impl<'a, F: Real> Polylines<'a, F> {
    /// Views `coords` and `L + 1` `offsets` as `L` polylines, after checking the offsets
    /// against the vertices (errors name the polyline: see the [module docs](self)).
    pub fn new(coords: Coords<'a, F>, offsets: impl Into<Offsets<'a>>) -> Result<Self, Error> {
        let offsets = offsets.into();
        coords.check()?;
        offsets.check(coords.len(), "offsets", "polyline", true)?;
        Ok(Polylines { coords, offsets })
    }

    /// [`Polylines::new`] over interleaved `x, y` values (`2V` of them).
    pub fn interleaved(coords: &'a [F], offsets: impl Into<Offsets<'a>>) -> Result<Self, Error> {
        Self::new(Coords::Interleaved(coords), offsets)
    }

    /// [`Polylines::new`] over separate `x` and `y` columns.
    pub fn separated(
        x: &'a [F],
        y: &'a [F],
        offsets: impl Into<Offsets<'a>>,
    ) -> Result<Self, Error> {
        Self::new(Coords::Separated { x, y }, offsets)
    }

    /// How many polylines (`L`).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The coordinates.
    pub fn coords(&self) -> Coords<'a, F> {
        self.coords
    }

    /// The offsets.
    pub fn offsets(&self) -> Offsets<'a> {
        self.offsets
    }

    /// The vertices of polyline `j`. Panics if `j >= len()`.
    #[inline(always)]
    pub fn vertices(&self, j: usize) -> Range<usize> {
        // Checked when the view was made: within `0..=V`, not decreasing.
        self.offsets.get(j) as usize..self.offsets.get(j + 1) as usize
    }

    /// The segments between consecutive vertices of the whole coordinate array.
    pub fn vertex_pairs(&self) -> VertexPairs<'a, F> {
        VertexPairs::new(self.coords)
    }

    fn layout(&self) -> Layout<'_, 'a, F> {
        Layout {
            lines: self,
            geometry: None,
        }
    }
}

/// MultiLineStrings: [`Polylines`] and `G + 1` geometry offsets into them, geometry `g` being
/// polylines `geometry_offsets[g] … geometry_offsets[g + 1]` (GeoArrow's two offset levels).
/// Only the polylines the geometries hold are clipped; parts carry both indices.
#[derive(Clone, Copy, Debug)]
pub struct MultiPolylines<'a, F> {
    lines: Polylines<'a, F>,
    geometry: Offsets<'a>,
}

impl<'a, F: Real> MultiPolylines<'a, F> {
    /// Checks the geometry offsets against the polylines (negative, decreasing or beyond them:
    /// an error naming the geometry). A geometry of no polylines, or of one, is fine.
    pub fn new(
        lines: Polylines<'a, F>,
        geometry_offsets: impl Into<Offsets<'a>>,
    ) -> Result<Self, Error> {
        let geometry = geometry_offsets.into();
        geometry.check(lines.len(), "geometry_offsets", "geometry", false)?;
        Ok(MultiPolylines { lines, geometry })
    }

    /// How many geometries (`G`).
    pub fn len(&self) -> usize {
        self.geometry.len() - 1
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The polylines (all of them, also those no geometry holds).
    pub fn lines(&self) -> &Polylines<'a, F> {
        &self.lines
    }

    /// The polylines of geometry `g`. Panics if `g >= len()`.
    pub fn parts(&self, g: usize) -> Range<usize> {
        self.geometry.get(g) as usize..self.geometry.get(g + 1) as usize
    }

    fn layout(&self) -> Layout<'_, 'a, F> {
        Layout {
            lines: &self.lines,
            geometry: Some(self.geometry),
        }
    }
}

/// What a batch call walks: the polylines, and for MultiLineStrings the geometries holding
/// them.
pub(crate) struct Layout<'l, 'a, F> {
    pub lines: &'l Polylines<'a, F>,
    pub geometry: Option<Offsets<'a>>,
}

/// One polyline as a batch call sees it.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// Its index among the polylines.
    pub index: usize,
    /// Its geometry's index (MultiLineStrings), else its own.
    pub item: usize,
    /// Its vertices.
    pub vertices: Range<usize>,
}

impl<F: Real> Layout<'_, '_, F> {
    /// The polylines the call clips, `(first, end)`.
    fn line_range(&self) -> Range<usize> {
        match &self.geometry {
            None => 0..self.lines.len(),
            Some(g) => g.get(0) as usize..g.get(g.len() - 1) as usize,
        }
    }

    /// The vertices of the polylines of `block`.
    fn block_vertices(&self, block: &Range<usize>) -> usize {
        match (block.start, block.end.checked_sub(1)) {
            (a, Some(b)) if a <= b => self.lines.vertices(b).end - self.lines.vertices(a).start,
            _ => 0,
        }
    }

    /// Fixed blocks of polylines of about [`BLOCK_VERTICES`] vertices each (the thread count
    /// plays no part).
    fn blocks(&self) -> Vec<Range<usize>> {
        let lines = self.line_range();
        let mut out = Vec::new();
        let (mut start, mut count) = (lines.start, 0usize);
        for j in lines.clone() {
            count += self.lines.vertices(j).len() + 1;
            if count >= BLOCK_VERTICES {
                out.push(start..j + 1);
                (start, count) = (j + 1, 0);
            }
        }
        if start < lines.end {
            out.push(start..lines.end);
        }
        out
    }

    /// Calls `f` with every polyline of `block`, in order. Inlined into its caller, so that a
    /// dispatched caller's level reaches `f`.
    #[inline(always)]
    fn for_each_line(&self, block: Range<usize>, mut f: impl FnMut(Line)) {
        match &self.geometry {
            None => {
                for j in block {
                    f(Line {
                        index: j,
                        item: j,
                        vertices: self.lines.vertices(j),
                    })
                }
            }
            Some(_) => {
                let mut geo = self.geometry_of(block.start);
                for j in block {
                    geo = self.geometry_from(geo, j);
                    f(Line {
                        index: j,
                        item: geo,
                        vertices: self.lines.vertices(j),
                    });
                }
            }
        }
    }

    /// The geometry holding polyline `j` (MultiLineStrings; 0 otherwise): the last `g` with
    /// `offsets[g] ≤ j` and a polyline to hold (`offsets[g + 1] > j`).
    pub(crate) fn geometry_of(&self, j: usize) -> usize {
        match &self.geometry {
            None => 0,
            Some(g) => partition(g.len() - 1, |k| g.get(k + 1) <= j as i64),
        }
    }

    /// The geometry holding polyline `j`, searched forward from `geo` (a geometry at or before
    /// it): how a walk over polylines in order follows their geometries.
    #[inline(always)]
    pub(crate) fn geometry_from(&self, mut geo: usize, j: usize) -> usize {
        if let Some(g) = &self.geometry {
            while geo + 1 < g.len() && g.get(geo + 1) <= j as i64 {
                geo += 1;
            }
        }
        geo
    }

    /// Runs `work` on every block (on rayon's pool when there are several and threads to run
    /// them) and joins the answers into `out` in block order.
    fn run(&self, out: &mut Parts<F>, work: impl Fn(Range<usize>, &mut Parts<F>) + Sync + Send)
    where
        F: Real,
    {
        out.clear();
        let blocks = self.blocks();
        if blocks.len() <= 1 || crate::threads::available() < 2 {
            // Once a sixteenth of the vertices is done, the lists are given room for the rest
            // at the rate so far (an eighth more): from empty lists, growing by doubling
            // copied what they held at each step (10–16 % of the `f64` clip of 2 M vertices
            // in `memmove`, docs/guide/polylines.md).
            let total: usize = blocks.iter().map(|b| self.block_vertices(b)).sum();
            let (mut done, mut sized) = (0, false);
            for b in blocks {
                done += self.block_vertices(&b);
                work(b, out);
                if !sized && done >= total / 16 {
                    sized = true;
                    out.reserve_rate(done, total);
                }
            }
            return;
        }
        let done: Vec<Parts<F>> = blocks
            .into_par_iter()
            .map(|b| {
                let mut p = Parts::new();
                work(b, &mut p);
                p
            })
            .collect();
        out.reserve_for(&done);
        for p in &done {
            out.append(p);
        }
    }
}

/// The first `k` in `0..n` for which `before(k)` is false (`before` true then false).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
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

/// A list of [`Parts`], whatever it holds: room reserved for `n` more.
trait Reserve {
    fn reserve_more(&mut self, n: usize);
}

impl<T> Reserve for Vec<T> {
    fn reserve_more(&mut self, n: usize) {
        self.reserve(n);
    }
}

/// Which answers a clip reports besides the parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartOptions {
    /// Report single points of contact (runs whose vertices are all one point) in
    /// [`Parts::points`]; dropped when `false` (the default).
    pub points: bool,
}

/// The answer of a polyline clip or tiling: parts as ragged arrays (the layout the input came
/// in), with the polyline (and geometry, and cell) each came from, and the single points of
/// contact apart. Indices are `i64`, numpy's integer.
///
/// Reusable: every call clears it and refills it, keeping its memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts<F> {
    /// The vertices of every part, interleaved `x, y`.
    pub coords: Vec<F>,
    /// `parts + 1` offsets into the vertices (`coords` holds twice as many values): part `k` is
    /// vertices `offsets[k] … offsets[k + 1]`, at least two. Starts with 0.
    pub offsets: Vec<i64>,
    /// For each part, its polyline's index (among all polylines, for MultiLineStrings too).
    pub polyline: Vec<i64>,
    /// For each part, its geometry's index: MultiLineString input only, else empty.
    pub geometry: Vec<i64>,
    /// For each part of a tiling, its cell's column; empty for a rect clip.
    pub ix: Vec<i64>,
    /// For each part of a tiling, its cell's row; empty for a rect clip.
    pub iy: Vec<i64>,
    /// The single points of contact, when asked for.
    pub points: Points<F>,
}

/// Single points of contact: runs of pieces whose vertices are all one point (a graze of a
/// corner, a touch at a vertex, zero-length segments on the boundary), one row each, with the
/// same indices as [`Parts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Points<F> {
    /// The points, interleaved `x, y`.
    pub coords: Vec<F>,
    /// For each point, its polyline.
    pub polyline: Vec<i64>,
    /// For each point, its geometry (MultiLineString input only).
    pub geometry: Vec<i64>,
    /// For each point of a tiling, its cell's column.
    pub ix: Vec<i64>,
    /// For each point of a tiling, its cell's row.
    pub iy: Vec<i64>,
}

impl<F> Points<F> {
    /// How many points.
    pub fn len(&self) -> usize {
        self.polyline.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.polyline.is_empty()
    }

    fn clear(&mut self) {
        self.coords.clear();
        self.polyline.clear();
        self.geometry.clear();
        self.ix.clear();
        self.iy.clear();
    }
}

impl<F> Default for Parts<F> {
    fn default() -> Self {
        Parts {
            coords: Vec::new(),
            offsets: vec![0],
            polyline: Vec::new(),
            geometry: Vec::new(),
            ix: Vec::new(),
            iy: Vec::new(),
            points: Points {
                coords: Vec::new(),
                polyline: Vec::new(),
                geometry: Vec::new(),
                ix: Vec::new(),
                iy: Vec::new(),
            },
        }
    }
}

/// One part, borrowed from [`Parts`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part<'p, F> {
    /// Its polyline.
    pub polyline: i64,
    /// Its geometry (MultiLineStrings), else `None`.
    pub geometry: Option<i64>,
    /// Its cell `(ix, iy)` (tilings), else `None`.
    pub cell: Option<(i64, i64)>,
    /// Its vertices, interleaved `x, y`.
    pub coords: &'p [F],
}

impl<F: Copy> Parts<F> {
    /// No parts.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many parts.
    pub fn len(&self) -> usize {
        self.polyline.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.polyline.is_empty()
    }

    /// Empties every list, keeping the memory.
    pub fn clear(&mut self) {
        self.coords.clear();
        self.offsets.clear();
        self.offsets.push(0);
        self.polyline.clear();
        self.geometry.clear();
        self.ix.clear();
        self.iy.clear();
        self.points.clear();
    }

    /// Part `k`. Panics if `k >= len()`.
    pub fn part(&self, k: usize) -> Part<'_, F> {
        let (a, b) = (self.offsets[k] as usize, self.offsets[k + 1] as usize);
        Part {
            polyline: self.polyline[k],
            geometry: self.geometry.get(k).copied(),
            cell: self.ix.get(k).map(|&ix| (ix, self.iy[k])),
            coords: &self.coords[2 * a..2 * b],
        }
    }

    /// Every part, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Part<'_, F>> + '_ {
        (0..self.len()).map(|k| self.part(k))
    }

    /// Every list's length, in the order of [`Parts::lists`].
    fn lens(&self) -> [usize; 11] {
        let p = &self.points;
        [
            self.coords.len(),
            self.offsets.len(),
            self.polyline.len(),
            self.geometry.len(),
            self.ix.len(),
            self.iy.len(),
            p.coords.len(),
            p.polyline.len(),
            p.geometry.len(),
            p.ix.len(),
            p.iy.len(),
        ]
    }

    /// Every list, to reserve room in.
    fn lists(&mut self) -> [&mut dyn Reserve; 11] {
        let p = &mut self.points;
        [
            &mut self.coords,
            &mut self.offsets,
            &mut self.polyline,
            &mut self.geometry,
            &mut self.ix,
            &mut self.iy,
            &mut p.coords,
            &mut p.polyline,
            &mut p.geometry,
            &mut p.ix,
            &mut p.iy,
        ]
    }

    /// Room for the parts of every one of `blocks`, so that appending them allocates once.
    fn reserve_for(&mut self, blocks: &[Parts<F>]) {
        let mut sums = [0; 11];
        for b in blocks {
            for (s, n) in sums.iter_mut().zip(b.lens()) {
                *s += n;
            }
        }
        for (list, n) in self.lists().into_iter().zip(sums) {
            list.reserve_more(n);
        }
    }

    /// Room for every list to grow at the rate it grew over `done` of `total` input vertices,
    /// an eighth more.
    fn reserve_rate(&mut self, done: usize, total: usize) {
        let lens = self.lens();
        for (list, n) in self.lists().into_iter().zip(lens) {
            let at_end = n as f64 * total as f64 / done.max(1) as f64 * 1.125;
            list.reserve_more((at_end as usize).saturating_sub(n));
        }
    }

    /// Appends the parts and points of `other` (offsets shifted).
    fn append(&mut self, other: &Parts<F>) {
        let base = (self.coords.len() / 2) as i64;
        self.coords.extend_from_slice(&other.coords);
        self.offsets
            .extend(other.offsets[1..].iter().map(|o| o + base));
        self.polyline.extend_from_slice(&other.polyline);
        self.geometry.extend_from_slice(&other.geometry);
        self.ix.extend_from_slice(&other.ix);
        self.iy.extend_from_slice(&other.iy);
        let (p, q) = (&mut self.points, &other.points);
        p.coords.extend_from_slice(&q.coords);
        p.polyline.extend_from_slice(&q.polyline);
        p.geometry.extend_from_slice(&q.geometry);
        p.ix.extend_from_slice(&q.ix);
        p.iy.extend_from_slice(&q.iy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_the_polylines_and_cut_only_between_them() {
        // 3,000 polylines of 0 to 9 vertices (never 1).
        let mut offsets = vec![0i64];
        for j in 0..3000i64 {
            let n = [0, 2, 5, 9][(j % 4) as usize];
            offsets.push(offsets.last().unwrap() + n);
        }
        let xy = vec![0.0f32; 2 * *offsets.last().unwrap() as usize];
        let lines = Polylines::interleaved(&xy, &offsets).unwrap();
        let blocks = lines.layout().blocks();
        assert!(blocks.len() > 1);
        assert_eq!(blocks[0].start, 0);
        assert_eq!(blocks.last().unwrap().end, 3000);
        for w in blocks.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        // Geometries over polylines 10..2990 only, some empty: each polyline once, with
        // the geometry holding it.
        let geo: Vec<i32> = (0..=2980)
            .step_by(7)
            .map(|g| 10 + g)
            .chain([2990])
            .collect();
        let multi = MultiPolylines::new(lines, &geo).unwrap();
        let layout = multi.layout();
        let mut seen = Vec::new();
        for b in layout.blocks() {
            layout.for_each_line(b, |l| seen.push((l.index, l.item)));
        }
        let want: Vec<(usize, usize)> = (10..2990).map(|j| (j, (j - 10) / 7)).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn appended_parts_shift_their_offsets() {
        let mut a = Parts::<f64>::new();
        a.coords.extend([0.0, 0.0, 1.0, 1.0]);
        a.offsets.push(2);
        a.polyline.push(0);
        let mut b = a.clone();
        b.polyline[0] = 7;
        a.append(&b);
        assert_eq!(a.offsets, [0, 2, 4]);
        assert_eq!(a.part(1).polyline, 7);
        assert_eq!(a.part(1).coords, [0.0, 0.0, 1.0, 1.0]);
        a.clear();
        assert_eq!((a.len(), a.offsets.as_slice()), (0, &[0i64][..]));
    }

    #[test]
    fn vertex_pairs_are_columns_when_separated() {
        let (x, y) = ([0.0f32, 1.0, 2.0], [5.0f32, 6.0, 7.0]);
        let p = VertexPairs::new(Coords::Separated { x: &x, y: &y });
        assert_eq!(p.len(), 2);
        assert_eq!(p.segment(1), Segment::new(1.0, 6.0, 2.0, 7.0));
        let c = p.columns().unwrap();
        assert_eq!(c.segment(1), p.segment(1));
        let xy = [0.0f32, 5.0, 1.0, 6.0, 2.0, 7.0];
        let q = VertexPairs::new(Coords::Interleaved(&xy));
        assert!(q.columns().is_none());
        assert_eq!(q.segment(1), p.segment(1));
        assert_eq!(VertexPairs::new(Coords::Interleaved(&xy[..0])).len(), 0);
    }

    #[test]
    fn partition_finds_the_first_false() {
        for n in 0..6 {
            for k in 0..=n {
                assert_eq!(partition(n, |i| i < k), k);
            }
        }
    }
}
