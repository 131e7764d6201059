//! Scenes: walls built once into an index (`slabclip::Scene`) for closest hits, any hits and
//! line of sight, each bit for bit the answer of the plain ray × segments query.

use std::ffi::c_int;

use slabclip::{Real, Scene, SightEnds};

use crate::cast::{rays_ref, RayHitOuts, RAY_COLUMNS};
use crate::{
    cols_ref, fill, give, guard, handle, input_cols, out_param, output, take, Cols, Fail, Spans,
    SEGMENT_COLUMNS, SLABCLIP_ERR_NULL,
};

/// Walls built into an index (opaque; from `slabclip_scene_new_f32`, freed by
/// `slabclip_scene_free_f32`). Queries only read it: any number of threads may query one scene
/// at once, but not while `slabclip_scene_refit_f32` or the free runs on it.
pub struct slabclip_scene_f32(Scene<f32>);

/// The `double` twin of `slabclip_scene_f32`.
pub struct slabclip_scene_f64(Scene<f64>);

impl From<Scene<f32>> for slabclip_scene_f32 {
    fn from(s: Scene<f32>) -> Self {
        slabclip_scene_f32(s)
    }
}

impl From<Scene<f64>> for slabclip_scene_f64 {
    fn from(s: Scene<f64>) -> Self {
        slabclip_scene_f64(s)
    }
}

impl AsMut<Scene<f32>> for slabclip_scene_f32 {
    fn as_mut(&mut self) -> &mut Scene<f32> {
        &mut self.0
    }
}

impl AsMut<Scene<f64>> for slabclip_scene_f64 {
    fn as_mut(&mut self) -> &mut Scene<f64> {
        &mut self.0
    }
}

impl AsRef<Scene<f32>> for slabclip_scene_f32 {
    fn as_ref(&self) -> &Scene<f32> {
        &self.0
    }
}

impl AsRef<Scene<f64>> for slabclip_scene_f64 {
    fn as_ref(&self) -> &Scene<f64> {
        &self.0
    }
}

const WALL_COLUMNS: [&str; 4] = SEGMENT_COLUMNS;

unsafe fn new<F: Real, H: From<Scene<F>>>(
    func: &'static str,
    walls: Cols<F>,
    m: usize,
    out: *mut *mut H,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        input_cols(&mut spans, WALL_COLUMNS, walls, m)?;
        // SAFETY: `out` is NULL or one writable pointer (the caller's contract); the walls
        // registered with `m` values above.
        let (out, walls) = unsafe { (out_param("out", out)?, cols_ref(walls, m)) };
        let scene = Scene::new(&walls)?;
        give(out, H::from(scene));
        Ok(())
    })
}

unsafe fn refit<F: Real, H: AsMut<Scene<F>>>(
    func: &'static str,
    scene: *mut H,
    walls: Cols<F>,
    m: usize,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        input_cols(&mut spans, WALL_COLUMNS, walls, m)?;
        // SAFETY: NULL or a live handle that nothing else uses meanwhile (the caller's
        // contract); the walls registered with `m` values above.
        let (scene, walls) = unsafe { (scene.as_mut(), cols_ref(walls, m)) };
        let scene = scene.ok_or_else(|| Fail::new(SLABCLIP_ERR_NULL, "scene is NULL"))?;
        scene.as_mut().refit(&walls)?;
        Ok(())
    })
}

unsafe fn cast<F: Real, H: AsRef<Scene<F>>>(
    func: &'static str,
    scene: *const H,
    rays: Cols<F>,
    n: usize,
    t_max: F,
    outs: RayHitOuts<F>,
) -> c_int {
    guard(func, || {
        // SAFETY: NULL or a live handle (the caller's contract).
        let scene = unsafe { handle("scene", scene) }?.as_ref();
        let mut spans = Spans::default();
        input_cols(&mut spans, RAY_COLUMNS, rays, n)?;
        outs.register(&mut spans, n)?;
        spans.disjoint()?;
        // SAFETY: every buffer registered with its length in the disjoint `spans` above.
        let (rays, out) = unsafe { (rays_ref(rays, n), outs.get(n)) };
        scene.cast(&rays, t_max, out)?;
        Ok(())
    })
}

unsafe fn any_hit<F: Real, H: AsRef<Scene<F>>>(
    func: &'static str,
    scene: *const H,
    rays: Cols<F>,
    n: usize,
    t_max: F,
    hit: *mut u8,
) -> c_int {
    guard(func, || {
        // SAFETY: NULL or a live handle (the caller's contract).
        let scene = unsafe { handle("scene", scene) }?.as_ref();
        let mut spans = Spans::default();
        input_cols(&mut spans, RAY_COLUMNS, rays, n)?;
        if hit.is_null() && n > 0 {
            return Err(Fail::new(SLABCLIP_ERR_NULL, "hit is NULL"));
        }
        spans.output("hit", hit, n)?;
        spans.disjoint()?;
        // Written as `bool` first: the caller's bytes may hold any value, which a `&mut [bool]`
        // over them must not.
        let mut flags = vec![false; n];
        // SAFETY: the rays registered with `n` values above.
        scene.any_hit(&unsafe { rays_ref(rays, n) }, t_max, &mut flags)?;
        // SAFETY: `hit` registered with `n` values in the disjoint `spans` above.
        unsafe { fill(hit, &flags, |&f| u8::from(f)) };
        Ok(())
    })
}

unsafe fn line_of_sight<F: Real, H: AsRef<Scene<F>>>(
    func: &'static str,
    scene: *const H,
    pairs: Cols<F>,
    n: usize,
    ends: SightEnds,
    out: *mut u8,
) -> c_int {
    guard(func, || {
        // SAFETY: NULL or a live handle (the caller's contract).
        let scene = unsafe { handle("scene", scene) }?.as_ref();
        let mut spans = Spans::default();
        input_cols(&mut spans, ["ax", "ay", "bx", "by"], pairs, n)?;
        if out.is_null() && n > 0 {
            return Err(Fail::new(SLABCLIP_ERR_NULL, "out is NULL"));
        }
        spans.output("out", out, n)?;
        spans.disjoint()?;
        // SAFETY: registered and disjoint above.
        let (pairs, out) = unsafe { (cols_ref(pairs, n), output(out, n).unwrap_or_default()) };
        scene.line_of_sight(&pairs, ends, out)?;
        Ok(())
    })
}

/// Builds a scene from `m` walls (four columns `x0, y0, x1, y1`; copied) into `*out`; wall `i`
/// is reported as index `i`. Walls with a non-finite coordinate are kept as never hit.
///
/// Errors: `SLABCLIP_ERR_ARGUMENT` for more walls than the type indexes exactly (2^24 for
/// `float`) or a scene holds (2^27); `SLABCLIP_ERR_NULL` for `out == NULL`. On error `*out` is
/// left as it was.
///
/// # Safety
///
/// Each column holds `m` elements; `out` is `NULL` or points to a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_new_f32(
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    m: usize,
    out: *mut *mut slabclip_scene_f32,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { new("slabclip_scene_new_f32", [x0, y0, x1, y1], m, out) }
}

/// The `double` twin of `slabclip_scene_new_f32`.
///
/// # Safety
///
/// Each column holds `m` elements; `out` is `NULL` or points to a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_new_f64(
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    m: usize,
    out: *mut *mut slabclip_scene_f64,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { new("slabclip_scene_new_f64", [x0, y0, x1, y1], m, out) }
}

/// Frees a scene; `NULL` is a no-op.
///
/// # Safety
///
/// `scene` is `NULL` or a scene from `slabclip_scene_new_f32` not yet freed, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_free_f32(scene: *mut slabclip_scene_f32) {
    // SAFETY: the caller's contract.
    unsafe { take(scene) }
}

/// Frees a scene; `NULL` is a no-op.
///
/// # Safety
///
/// `scene` is `NULL` or a scene from `slabclip_scene_new_f64` not yet freed, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_free_f64(scene: *mut slabclip_scene_f64) {
    // SAFETY: the caller's contract.
    unsafe { take(scene) }
}

/// The walls moved: `m` walls (as many as at the build, wall `i` the same wall) replace them,
/// the index refitted (or rebuilt where it must be). The answers are those of a scene built
/// anew from these walls.
///
/// Errors: `SLABCLIP_ERR_LENGTH` for a different wall count (the scene is left as it was).
///
/// # Safety
///
/// `scene` is a live scene that no other thread uses during the call; each column holds `m`
/// elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_refit_f32(
    scene: *mut slabclip_scene_f32,
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    m: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { refit("slabclip_scene_refit_f32", scene, [x0, y0, x1, y1], m) }
}

/// The `double` twin of `slabclip_scene_refit_f32`.
///
/// # Safety
///
/// As `slabclip_scene_refit_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_refit_f64(
    scene: *mut slabclip_scene_f64,
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    m: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { refit("slabclip_scene_refit_f64", scene, [x0, y0, x1, y1], m) }
}

/// The closest hit of each of `n` rays (four columns `ox, oy, dx, dy`) among the scene's
/// walls: the outputs of `slabclip_cast_segments_f32` on the same walls, bit for bit, at any
/// thread count and in any ray order.
///
/// Errors: `SLABCLIP_ERR_ARGUMENT` for a NaN or negative `t_max`.
///
/// # Safety
///
/// `scene` is a live scene; each ray column and non-null output holds `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_cast_f32(
    scene: *const slabclip_scene_f32,
    ox: *const f32,
    oy: *const f32,
    dx: *const f32,
    dy: *const f32,
    n: usize,
    t_max: f32,
    t: *mut f32,
    s: *mut f32,
    index: *mut u32,
    nx: *mut f32,
    ny: *mut f32,
) -> c_int {
    let outs = RayHitOuts {
        t,
        s,
        index,
        nx,
        ny,
    };
    let rays = [ox, oy, dx, dy];
    // SAFETY: the caller's contract.
    unsafe { cast("slabclip_scene_cast_f32", scene, rays, n, t_max, outs) }
}

/// The `double` twin of `slabclip_scene_cast_f32`.
///
/// # Safety
///
/// As `slabclip_scene_cast_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_cast_f64(
    scene: *const slabclip_scene_f64,
    ox: *const f64,
    oy: *const f64,
    dx: *const f64,
    dy: *const f64,
    n: usize,
    t_max: f64,
    t: *mut f64,
    s: *mut f64,
    index: *mut u32,
    nx: *mut f64,
    ny: *mut f64,
) -> c_int {
    let outs = RayHitOuts {
        t,
        s,
        index,
        nx,
        ny,
    };
    let rays = [ox, oy, dx, dy];
    // SAFETY: the caller's contract.
    unsafe { cast("slabclip_scene_cast_f64", scene, rays, n, t_max, outs) }
}

/// Per ray, 1 where `slabclip_scene_cast_f32` would report a hit, else 0 (`hit`, `n` values,
/// required), found without looking for the closest.
///
/// Errors: `SLABCLIP_ERR_ARGUMENT` for a NaN or negative `t_max`.
///
/// # Safety
///
/// `scene` is a live scene; each ray column and `hit` hold `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_any_hit_f32(
    scene: *const slabclip_scene_f32,
    ox: *const f32,
    oy: *const f32,
    dx: *const f32,
    dy: *const f32,
    n: usize,
    t_max: f32,
    hit: *mut u8,
) -> c_int {
    let rays = [ox, oy, dx, dy];
    // SAFETY: the caller's contract.
    unsafe { any_hit("slabclip_scene_any_hit_f32", scene, rays, n, t_max, hit) }
}

/// The `double` twin of `slabclip_scene_any_hit_f32`.
///
/// # Safety
///
/// As `slabclip_scene_any_hit_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_any_hit_f64(
    scene: *const slabclip_scene_f64,
    ox: *const f64,
    oy: *const f64,
    dx: *const f64,
    dy: *const f64,
    n: usize,
    t_max: f64,
    hit: *mut u8,
) -> c_int {
    let rays = [ox, oy, dx, dy];
    // SAFETY: the caller's contract.
    unsafe { any_hit("slabclip_scene_any_hit_f64", scene, rays, n, t_max, hit) }
}

/// Line of sight between `n` point pairs `A = (ax, ay)`, `B = (bx, by)`, decided exactly on the
/// input coordinates: `SLABCLIP_SIGHT_BLOCKED` where some wall meets the closed segment `A → B`,
/// `SLABCLIP_SIGHT_VISIBLE` where none does, `SLABCLIP_SIGHT_INVALID` for `A == B` or a
/// non-finite end (`out`, `n` values, required). With `exclude_a` (`exclude_b`) nonzero a
/// contact at exactly `A` (`B`) does not block.
///
/// # Safety
///
/// `scene` is a live scene; each pair column and `out` hold `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_line_of_sight_f32(
    scene: *const slabclip_scene_f32,
    ax: *const f32,
    ay: *const f32,
    bx: *const f32,
    by: *const f32,
    n: usize,
    exclude_a: c_int,
    exclude_b: c_int,
    out: *mut u8,
) -> c_int {
    let ends = SightEnds {
        exclude_a: exclude_a != 0,
        exclude_b: exclude_b != 0,
    };
    let func = "slabclip_scene_line_of_sight_f32";
    // SAFETY: the caller's contract.
    unsafe { line_of_sight(func, scene, [ax, ay, bx, by], n, ends, out) }
}

/// The `double` twin of `slabclip_scene_line_of_sight_f32`.
///
/// # Safety
///
/// As `slabclip_scene_line_of_sight_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_scene_line_of_sight_f64(
    scene: *const slabclip_scene_f64,
    ax: *const f64,
    ay: *const f64,
    bx: *const f64,
    by: *const f64,
    n: usize,
    exclude_a: c_int,
    exclude_b: c_int,
    out: *mut u8,
) -> c_int {
    let ends = SightEnds {
        exclude_a: exclude_a != 0,
        exclude_b: exclude_b != 0,
    };
    let func = "slabclip_scene_line_of_sight_f64";
    // SAFETY: the caller's contract.
    unsafe { line_of_sight(func, scene, [ax, ay, bx, by], n, ends, out) }
}
