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
//! ## Layout of the crate
//!
//! [`real`] (the two float types and the lane abstraction, as traits) ← [`simd`] (the vector
//! lanes and the build's SIMD level) ← `scalar.rs` (`f32`, `f64` as lanes); then [`geom`] (rects, segments,
//! classes) → [`buffers`] (SoA batches and outputs) → [`kernels`] (one file per algorithm,
//! sharing `kernels/contract.rs`; `auto` and its threads) → [`shapes`] (pairwise, N × M hit
//! lists, in place), [`rect_set`] (N × M through a broad phase), [`grid`] (pieces in the cells
//! of a regular grid); [`threads`] says whether they may split a batch across rayon's pool →
//! [`io`] (files) → the `slabclip` binary.

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod buffers;
pub mod cast;
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
