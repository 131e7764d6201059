//! The batch kernels' entry points, compiled in this crate once per precision.
//!
//! A generic function is compiled again in every crate that calls it, with its callers' type
//! arguments: a kernel behind [`dispatch!`](super::dispatch) is three levels of vector code, for
//! every segment source and output mix a caller names. The public kernels stay generic over `F`
//! and the source, but after checking their arguments they call one of these functions:
//! non-generic methods of `f32` and `f64` (every source erased to a
//! [`Batch`]), so their code is made here, once, and the command line, the Python and C
//! libraries and every test crate link to it. (`docs/testing.md` has the build times.)

use crate::buffers::{Batch, ClipOutput};
use crate::cast::scene::Order;
use crate::cast::{
    ConvexPolygon, InsideMode, PolygonCastOutput, RaysRef, RectCastOutput, SegmentsCastOutput,
};
use crate::cast::{PosesRef, Scene, SegmentHit, SightEnds, VisibilityScratch, VisibilityWalls};
use crate::error::Error;
use crate::geom::Rect;
use crate::grid::{Grid, GridOptions, Piece};
use crate::polyline::clip::RectsFor;
use crate::polyline::{Layout, PartOptions, Parts, TileOptions};
use crate::SegmentsRef;

/// The entry points, one per batch kernel; `Real`'s supertrait, so that generic code reaches
/// them as `F::simd_slab(…)`. Nominally public, in a module no one outside the crate can name.
pub trait Kernels: Sized {
    /// `SimdSlab::clip`, lengths checked.
    fn simd_slab(rect: &Rect<Self>, input: Batch<'_, Self>, out: &mut ClipOutput<'_, Self>);
    /// `SimdSlab::clip_pairwise`, lengths checked.
    fn simd_slab_pairwise(
        rects: &[Rect<Self>],
        input: Batch<'_, Self>,
        out: &mut ClipOutput<'_, Self>,
    );
    /// `Hybrid::clip`, lengths checked.
    fn hybrid(rect: &Rect<Self>, input: Batch<'_, Self>, out: &mut ClipOutput<'_, Self>);
    /// `NaiveSlab::clip`, lengths checked.
    fn naive_slab(rect: &Rect<Self>, input: Batch<'_, Self>, out: &mut ClipOutput<'_, Self>);
    /// `cast::clip_polygon`, lengths checked.
    fn clip_polygon(
        poly: &ConvexPolygon<Self>,
        input: Batch<'_, Self>,
        out: &mut ClipOutput<'_, Self>,
    );
    /// `cast::cast_rect`, arguments checked.
    fn cast_rect(
        rect: &Rect<Self>,
        rays: &RaysRef<'_, Self>,
        t_max: Self,
        out: &mut RectCastOutput<'_, Self>,
    );
    /// `cast::cast_rects`, arguments checked.
    fn cast_rects(
        rects: &[Rect<Self>],
        rays: &RaysRef<'_, Self>,
        t_max: Self,
        out: &mut RectCastOutput<'_, Self>,
    );
    /// `cast::cast_segments`, arguments checked.
    fn cast_segments(
        rays: &RaysRef<'_, Self>,
        segs: &SegmentsRef<'_, Self>,
        t_max: Self,
        out: SegmentsCastOutput<'_, Self>,
    );
    /// `cast::cast_polygon`, arguments checked.
    fn cast_polygon(
        poly: &ConvexPolygon<Self>,
        rays: &RaysRef<'_, Self>,
        t_max: Self,
        mode: InsideMode,
        out: PolygonCastOutput<'_, Self>,
    );
    /// The polyline clip (`Polylines::clip` and its kin). Its arguments are crate-private
    /// types, as this trait is in effect.
    #[allow(private_interfaces)]
    fn clip_polylines(
        layout: &Layout<'_, '_, Self>,
        rects: RectsFor<'_, Self>,
        options: &PartOptions,
        out: &mut Parts<Self>,
    );
    /// The tilings (`Polylines::tiles` and its kin).
    #[allow(private_interfaces)]
    fn tile_polylines(
        layout: &Layout<'_, '_, Self>,
        grid: &Grid<Self>,
        options: &TileOptions<Self>,
        out: &mut Parts<Self>,
    ) -> Result<(), Error>;
    /// `Scene::cast`'s walks over a batch in `order` (else in the rays' own): the hits, in
    /// that order.
    #[allow(private_interfaces)]
    fn scene_closest(
        scene: &Scene<Self>,
        rays: &RaysRef<'_, Self>,
        t_max: Self,
        order: Option<&Order>,
    ) -> Vec<SegmentHit<Self>>;
    /// `Scene::any_hit`'s walks over a batch in `order` (else in the rays' own), in that order.
    #[allow(private_interfaces)]
    fn scene_any(
        scene: &Scene<Self>,
        rays: &RaysRef<'_, Self>,
        t_max: Self,
        order: Option<&Order>,
    ) -> Vec<bool>;
    /// `Scene::line_of_sight`, `out` checked.
    fn scene_sight(scene: &Scene<Self>, pairs: Batch<'_, Self>, ends: SightEnds, out: &mut [u8]);
    /// `Scene::lidar`'s scan of some poses on one thread, `out` checked; `beams` holds the
    /// beam angles' `(cos, sin)`.
    fn scene_lidar(
        scene: &Scene<Self>,
        poses: &PosesRef<'_, Self>,
        beams: &[(f64, f64)],
        max_range: Self,
        out: SegmentsCastOutput<'_, Self>,
    );
    /// `VisibilityWalls::polygon_into`'s sweep from the checked viewpoint `o`.
    fn visibility_sweep(
        walls: &VisibilityWalls<Self>,
        o: (f64, f64),
        scratch: &mut VisibilityScratch,
    );
    /// `Grid::pieces_into`.
    fn grid_pieces(
        grid: &Grid<Self>,
        input: Batch<'_, Self>,
        range: core::ops::Range<usize>,
        options: &GridOptions,
        out: &mut Vec<Piece<Self>>,
    );
}

macro_rules! kernels {
    ($($f:ty),*) => {$(
        impl Kernels for $f {
            #[inline(never)]
            fn simd_slab(rect: &Rect<$f>, input: Batch<'_, $f>, out: &mut ClipOutput<'_, $f>) {
                crate::kernels::SimdSlab::clip_batch(rect, &input, out)
            }
            #[inline(never)]
            fn simd_slab_pairwise(
                rects: &[Rect<$f>],
                input: Batch<'_, $f>,
                out: &mut ClipOutput<'_, $f>,
            ) {
                crate::kernels::SimdSlab::pairwise_batch(rects, &input, out)
            }
            #[inline(never)]
            fn hybrid(rect: &Rect<$f>, input: Batch<'_, $f>, out: &mut ClipOutput<'_, $f>) {
                crate::kernels::Hybrid::clip_batch(rect, &input, out)
            }
            #[inline(never)]
            fn naive_slab(rect: &Rect<$f>, input: Batch<'_, $f>, out: &mut ClipOutput<'_, $f>) {
                crate::kernels::NaiveSlab::clip_batch(rect, &input, out)
            }
            #[inline(never)]
            fn clip_polygon(
                poly: &ConvexPolygon<$f>,
                input: Batch<'_, $f>,
                out: &mut ClipOutput<'_, $f>,
            ) {
                crate::cast::segment_polygon::clip_polygon_batch(poly, &input, out)
            }
            #[inline(never)]
            fn cast_rect(
                rect: &Rect<$f>,
                rays: &RaysRef<'_, $f>,
                t_max: $f,
                out: &mut RectCastOutput<'_, $f>,
            ) {
                crate::cast::ray_rect::cast_rect_checked(rect, rays, t_max, out)
            }
            #[inline(never)]
            fn cast_rects(
                rects: &[Rect<$f>],
                rays: &RaysRef<'_, $f>,
                t_max: $f,
                out: &mut RectCastOutput<'_, $f>,
            ) {
                crate::cast::ray_rect::cast_rects_checked(rects, rays, t_max, out)
            }
            #[inline(never)]
            fn cast_segments(
                rays: &RaysRef<'_, $f>,
                segs: &SegmentsRef<'_, $f>,
                t_max: $f,
                out: SegmentsCastOutput<'_, $f>,
            ) {
                crate::cast::ray_segments::cast_segments_checked(rays, segs, t_max, out)
            }
            #[inline(never)]
            fn cast_polygon(
                poly: &ConvexPolygon<$f>,
                rays: &RaysRef<'_, $f>,
                t_max: $f,
                mode: InsideMode,
                out: PolygonCastOutput<'_, $f>,
            ) {
                crate::cast::ray_polygon::cast_polygon_checked(poly, rays, t_max, mode, out)
            }
            #[inline(never)]
            #[allow(private_interfaces)]
            fn clip_polylines(
                layout: &Layout<'_, '_, $f>,
                rects: RectsFor<'_, $f>,
                options: &PartOptions,
                out: &mut Parts<$f>,
            ) {
                crate::polyline::clip::clip_layout_at(layout, rects, options, out)
            }
            #[inline(never)]
            #[allow(private_interfaces)]
            fn tile_polylines(
                layout: &Layout<'_, '_, $f>,
                grid: &Grid<$f>,
                options: &TileOptions<$f>,
                out: &mut Parts<$f>,
            ) -> Result<(), Error> {
                crate::polyline::tiles::tile_layout_at(layout, grid, options, out)
            }
            #[inline(never)]
            #[allow(private_interfaces)]
            fn scene_closest(
                scene: &Scene<$f>,
                rays: &RaysRef<'_, $f>,
                t_max: $f,
                order: Option<&Order>,
            ) -> Vec<SegmentHit<$f>> {
                scene.closest_in_order(rays, t_max, order)
            }
            #[inline(never)]
            #[allow(private_interfaces)]
            fn scene_any(
                scene: &Scene<$f>,
                rays: &RaysRef<'_, $f>,
                t_max: $f,
                order: Option<&Order>,
            ) -> Vec<bool> {
                scene.any_in_order(rays, t_max, order)
            }
            #[inline(never)]
            fn scene_sight(
                scene: &Scene<$f>,
                pairs: Batch<'_, $f>,
                ends: SightEnds,
                out: &mut [u8],
            ) {
                scene.sight_batch(&pairs, ends, out)
            }
            #[inline(never)]
            fn scene_lidar(
                scene: &Scene<$f>,
                poses: &PosesRef<'_, $f>,
                beams: &[(f64, f64)],
                max_range: $f,
                out: SegmentsCastOutput<'_, $f>,
            ) {
                scene.lidar_poses(poses, beams, max_range, out)
            }
            #[inline(never)]
            fn visibility_sweep(
                walls: &VisibilityWalls<$f>,
                o: (f64, f64),
                scratch: &mut VisibilityScratch,
            ) {
                walls.sweep_at(o, scratch)
            }
            #[inline(never)]
            fn grid_pieces(
                grid: &Grid<$f>,
                input: Batch<'_, $f>,
                range: core::ops::Range<usize>,
                options: &GridOptions,
                out: &mut Vec<Piece<$f>>,
            ) {
                grid.pieces_batch(&input, range, options, out)
            }
        }
    )*};
}

kernels!(f32, f64);
