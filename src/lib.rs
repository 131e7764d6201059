//! # slabclip
//!
//! Clips millions of 2D line segments against axis-aligned rectangles, with answers that are
//! exact where they can be exact and never a hair wrong at an edge or a corner.
//!
//! Segments live in structure-of-arrays buffers (`x0[]`, `y0[]`, `x1[]`, `y1[]`) of `f32` or
//! `f64`. Every algorithm ([`Algorithm::ALL`]) computes the same thing, the contract below, and
//! has the same face ([`ClipKernel`]), so tests, benches and the command line can iterate over
//! all of them.
//!
//! ## Clipping a simulation's own buffers, without copying
//!
//! ```
//! use slabclip::{Algorithm, Class, ClipOutput, Rect, SegmentsRef};
//!
//! // Trajectories of four particles in one step, as the simulation keeps them.
//! let x0: Vec<f32> = vec![-1.0, 0.25, 0.5, 2.0];
//! let y0: Vec<f32> = vec![0.5, 0.25, 0.5, 2.0];
//! let x1: Vec<f32> = vec![0.5, 0.75, 3.0, 3.0];
//! let y1: Vec<f32> = vec![0.5, 0.75, 0.5, 2.0];
//!
//! let cell = Rect::new(0.0f32, 0.0, 1.0, 1.0)?;
//! let segments = SegmentsRef::new(&x0, &y0, &x1, &y1)?; // borrows, never copies
//!
//! let mut t_entry = vec![0.0f32; 4];
//! let mut t_exit = vec![0.0f32; 4];
//! let mut class = vec![0u8; 4];
//! let mut out = ClipOutput {
//!     t_entry: Some(&mut t_entry),
//!     t_exit: Some(&mut t_exit),
//!     class: Some(&mut class),
//!     ..Default::default()
//! };
//! Algorithm::Auto.clip(&cell, &segments, &mut out)?;
//!
//! assert_eq!(class, [Class::Enters as u8, Class::Inside as u8, Class::Exits as u8, Class::Outside as u8]);
//! assert_eq!(t_entry[0], 2.0 / 3.0);     // enters at x = 0, two thirds of the way
//! assert_eq!((t_entry[1], t_exit[1]), (0.0, 1.0)); // exactly 0 and 1: both ends inside
//! assert_eq!(t_exit[2], 0.2);            // leaves at x = 1
//! assert!(t_entry[3].is_nan());          // a miss
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! ## The contract (SPEC §1), and where each part is handled
//!
//! * The rect is closed: a point on an edge or a corner is inside. [`Rect::new`] refuses a
//!   non-finite bound or `min > max`; a zero width or height is fine.
//! * The clip of `P(t) = P0 + t·(P1 − P0)`, `t ∈ [0, 1]`, is `[t_entry, t_exit]` or empty, with a
//!   [`Class`].
//! * `t_entry == 0.0` exactly iff `P0` is in the rect, and `t_exit == 1.0` exactly iff `P1` is,
//!   in every kernel. An endpoint outside never gets `0` or `1` from a rounding or an
//!   underflow: a nonzero boundary parameter that underflows is made `±TINY`, so only an
//!   exact one is zero (the slab kernels read `P0` off those signs; the others compare
//!   coordinates), and
//!   other parameters are kept within `[TINY, 1 − ε/2]` (`TINY` the smallest subnormal). An
//!   endpoint inside is always a hit.
//! * The far ends are exact too: `t_entry == 1.0` only when the segment enters exactly at `P1`
//!   (`P1` on the boundary line it enters through) and `t_exit == 0.0` only when it leaves
//!   exactly at `P0`, decided by comparing the endpoint with the bounds. So a segment from
//!   outside to a point strictly inside is always `Enters`, its clipped start exactly on the
//!   crossed edge, however close to that edge the inside point is; likewise `Exits`.
//! * A parallel axis (`dx` or `dy` is `0.0` or `-0.0`) is all or nothing; no `0/0` or `∞·0` leaks.
//! * A zero-length segment is `Inside` with `[0, 1]` when its point is in the rect, else `Outside`.
//! * NaN or ±∞ in any coordinate is `Invalid`, with NaN parameters.
//! * `t_entry`, `t_exit` are within 6 ulps of the exact slab formula `(bound − p)/d`: slabclip
//!   computes `(bound − p)·(1/d)`, one division per axis, four roundings of half an ulp (so a
//!   parameter whose exact value is a float, a corner on grid-aligned data, comes out exactly).
//!   Where a
//!   coordinate difference is subnormal or beyond `2^126` (`2^1022` for `f64`), so that `1/d`
//!   would lose its precision, that lane takes a slower path by division (about 1 ulp);
//!   coordinates whose differences overflow are halved first. Every operation is one IEEE
//!   operation per lane, so the results do not depend on the SIMD level or the thread count.
//! * With both endpoints outside, a hit needs an entry below `1 − 2ε` and an exit above 0, so
//!   two endpoints beyond the same edge are always a miss, and a graze of a corner whose exact
//!   interval is shorter than a few ulps may go either way. With an endpoint inside there is no
//!   such allowance: hit, class and the exact ends follow exact arithmetic.
//! * Clipped segments ([`Clip::segment`], [`ClipOutput::segments`]): an endpoint inside comes back
//!   bit for bit; a cut endpoint has exactly the bound of the edge that cut it as one
//!   coordinate; every point lies in the closed rect. A miss is a row of NaN.
//!
//! Choices where the contract is silent:
//! * `Touches` reports the same point twice as its clipped segment.
//! * When the entry (or exit) parameter comes from both axes at once (through a corner), the
//!   vertical edges (x) win the tie.
//! * `t = 0` is always `+0.0`, never `-0.0`.
//!
//! ## Every feature in a few lines
//!
//! **Batch shapes** ([`shapes`]): rect `i` for segment `i`, N × M hit lists, in place.
//!
//! ```
//! use slabclip::{Algorithm, ClipOutput, Rect, Segment, Segments};
//!
//! let segs = Segments::from_rows(&[Segment::new(-1.0f32, 0.5, 2.0, 0.5), Segment::new(0.0, 0.0, 3.0, 3.0)]);
//! let rects = [Rect::new(0.0, 0.0, 1.0, 1.0)?, Rect::new(2.0, 2.0, 4.0, 4.0)?];
//! let mut t_entry = vec![0.0f32; 2];
//! let mut out = ClipOutput { t_entry: Some(&mut t_entry), ..Default::default() };
//! Algorithm::Auto.clip_pairwise(&rects, &segs, &mut out)?;
//! assert_eq!(t_entry, [1.0 / 3.0, 2.0 / 3.0]);
//! let hits = Algorithm::Auto.clip_grid(&rects, &segs); // every (segment, rect) that meets
//! assert_eq!(hits.iter().map(|h| (h.segment, h.rect)).collect::<Vec<_>>(), [(0, 0), (1, 0), (1, 1)]);
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! **Grid pieces** ([`grid`]): each segment cut into the cells of a regular grid, watertight.
//!
//! ```
//! use slabclip::{Grid, GridOptions, Rect, Segment, Segments};
//!
//! let grid = Grid::new(Rect::new(0.0f64, 0.0, 1.0, 1.0)?, 4, 4)?;
//! let track = Segments::from_rows(&[Segment::new(0.1, 0.1, 0.9, 0.2)]);
//! let pieces = grid.pieces(&track, &GridOptions::default());
//! let cells: Vec<_> = pieces.iter().map(|p| (p.ix, p.iy)).collect();
//! assert_eq!(cells, [(0, 0), (1, 0), (2, 0), (3, 0)]);
//! assert!(pieces.windows(2).all(|w| w[0].t_exit == w[1].t_entry)); // no gap
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! **Many rects** ([`rect_set`]): the N × M hit list through a broad phase, at N + M + hits.
//!
//! ```
//! use slabclip::{Algorithm, Rect, RectSet, Segment, Segments};
//!
//! let zones = vec![Rect::new(0.0f32, 0.0, 1.0, 1.0)?, Rect::new(5.0, 5.0, 6.0, 6.0)?];
//! let set = RectSet::new(zones.clone())?;
//! let roads = Segments::from_rows(&[Segment::new(-1.0, 0.5, 9.0, 0.5)]);
//! assert_eq!(Algorithm::Auto.clip_rect_set(&set, &roads), Algorithm::Auto.clip_grid(&zones, &roads));
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! **Rays** ([`cast`]): against rects, segments (closest hit) and convex polygons.
//!
//! ```
//! use slabclip::cast::{cast_segments, SegmentsCastOutput};
//! use slabclip::{RaysRef, SegmentsRef};
//!
//! let walls = ([2.0f64], [-1.0], [2.0], [1.0]); // x = 2, y ∈ [-1, 1]
//! let walls = SegmentsRef::new(&walls.0, &walls.1, &walls.2, &walls.3)?;
//! let (ox, oy, dx, dy) = ([0.0f64], [0.0], [4.0], [0.0]);
//! let (mut t, mut nx) = (vec![0.0; 1], vec![0.0; 1]);
//! let out = SegmentsCastOutput { t: Some(&mut t), nx: Some(&mut nx), ..Default::default() };
//! cast_segments(&RaysRef::new(&ox, &oy, &dx, &dy)?, &walls, f64::INFINITY, out)?;
//! assert_eq!((t[0], nx[0]), (0.5, -1.0)); // t in units of the direction; normal faces the ray
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! **Scenes** ([`Scene`]): walls indexed once for closest hit, any hit, line of sight and lidar
//! scans (example in [`cast::scene`]); **visibility polygons** ([`visibility_polygon`], example
//! in [`cast::visibility`]).
//!
//! **Polylines and tiles** ([`polyline`]): LineStrings in the ragged layout, clipped into parts
//! or cut into the tiles of a grid.
//!
//! ```
//! use slabclip::{Grid, PartOptions, Parts, Polylines, Rect, TileOptions};
//!
//! // One line of three vertices, interleaved x, y, and its offsets.
//! let coords = [-1.0f64, 0.5, 0.5, 0.5, 0.5, 2.0];
//! let offsets: &[i32] = &[0, 3];
//! let lines = Polylines::interleaved(&coords, offsets)?;
//! let mut parts = Parts::new();
//! lines.clip(&Rect::new(0.0, 0.0, 1.0, 1.0)?, &PartOptions::default(), &mut parts);
//! assert_eq!(parts.part(0).coords, [0.0, 0.5, 0.5, 0.5, 0.5, 1.0]); // the input vertex kept
//!
//! let grid = Grid::new(Rect::new(0.0, 0.0, 1.0, 1.0)?, 2, 2)?;
//! lines.tiles(&grid, &TileOptions::default(), &mut parts)?;
//! assert!(parts.iter().all(|p| p.cell.is_some()));
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! ## Layout of the crate
//!
//! [`real`] (the float types and the lane abstraction) ← [`simd`] (the vector lanes) ←
//! `scalar.rs`; then [`geom`] → [`buffers`] → [`kernels`] (one file per algorithm, sharing
//! `kernels/contract.rs`) → [`shapes`], [`rect_set`], [`grid`], [`polyline`], [`cast`] →
//! [`io`] → the `slabclip` binary. `ARCHITECTURE.md` has the whole tree.

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod buffers;
pub mod cast;
mod cell_lists;
pub mod error;
pub mod geom;
pub mod grid;
pub mod io;
pub mod kernels;
pub mod polyline;
pub mod real;
pub mod rect_set;
pub mod reference;
mod scalar;
pub mod shapes;
pub mod simd;
pub mod threads;
pub mod workload;

pub use buffers::{
    rows_from_bytes, rows_from_interleaved, ClipOutput, ClipResults, SegmentSource, Segments,
    SegmentsMut, SegmentsRef, Window,
};
pub use cast::{
    visibility_polygon, visibility_polygons, VisibilityPolygons, VisibilityScratch, VisibilityWalls,
};
pub use cast::{ConvexPolygon, InsideMode, PosesRef, Ray, Rays, RaysRef, Scene, SightEnds, NO_HIT};
pub use error::Error;
pub use geom::{Axis, Class, Rect, Segment};
pub use grid::{Grid, GridOptions, Lines, Piece, PieceBlocks, PieceColumns};
pub use kernels::{
    Algorithm, Clip, ClipKernel, CohenSutherland, Hybrid, LiangBarsky, SectorLut, SimdSlab,
    SlabScalar, PARALLEL_MIN,
};
pub use polyline::{
    Coords, MultiPolylines, Offsets, Part, PartOptions, Parts, Points, Polylines, TileOptions,
    VertexPairs,
};
pub use real::{Lane, Real};
pub use rect_set::RectSet;
pub use shapes::Hit;
pub use threads::on_calling_thread;

/// The Rust snippets of the README and the guides in `docs/`, compiled and run as doctests so
/// that they stay true.
#[cfg(doctest)]
mod documentation {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/guide/clip.md")]
    struct Clip;
    #[doc = include_str!("../docs/guide/grids.md")]
    struct Grids;
    #[doc = include_str!("../docs/guide/rect-sets.md")]
    struct RectSets;
    #[doc = include_str!("../docs/guide/rays.md")]
    struct Rays;
    #[doc = include_str!("../docs/guide/polylines.md")]
    struct Polylines;
}
