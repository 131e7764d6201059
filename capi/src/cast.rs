//! Rays `O + t·D`, `t ∈ [0, t_max]` (SPEC §2): against a rect (one for all, or pairwise), a
//! convex polygon, and segments (the closest hit).

use std::ffi::c_int;

use slabclip::cast::{
    cast_polygon, cast_rect, cast_rects, cast_segments, PolygonCastOutput, RectCastOutput,
    SegmentsCastOutput,
};
use slabclip::{ConvexPolygon, InsideMode, RaysRef, Real};

use crate::{
    about, cols_ref, guard, input, input_cols, output, rect, rect_rows, rows_len, Cols, Fail,
    Spans, SEGMENT_COLUMNS,
};

/// The names of the ray columns in messages.
pub(crate) const RAY_COLUMNS: [&str; 4] = ["ox", "oy", "dx", "dy"];

/// The rays of a call as the library's batch.
///
/// # Safety
///
/// The four columns were registered with `n` ([`input_cols`]) in a disjoint [`Spans`].
pub(crate) unsafe fn rays_ref<'a, F: Real>(cols: Cols<F>, n: usize) -> RaysRef<'a, F> {
    // SAFETY: this function's contract, column by column.
    let [ox, oy, dx, dy] = cols.map(|c| unsafe { input(c, n) });
    RaysRef::new(ox, oy, dx, dy).expect("four columns of n values")
}

/// The outputs of a closest-hit query, as the caller passed them.
pub(crate) struct RayHitOuts<F> {
    pub(crate) t: *mut F,
    pub(crate) s: *mut F,
    pub(crate) index: *mut u32,
    pub(crate) nx: *mut F,
    pub(crate) ny: *mut F,
}

impl<F: Real> RayHitOuts<F> {
    pub(crate) fn register(&self, spans: &mut Spans, n: usize) -> Result<(), Fail> {
        spans
            .output("t", self.t, n)?
            .output("s", self.s, n)?
            .output("index", self.index, n)?
            .output("nx", self.nx, n)?
            .output("ny", self.ny, n)?;
        Ok(())
    }

    /// The library's output over the given buffers.
    ///
    /// # Safety
    ///
    /// Registered with `n` in a [`Spans`] found disjoint.
    pub(crate) unsafe fn get<'a>(self, n: usize) -> SegmentsCastOutput<'a, F> {
        // SAFETY: this function's contract.
        unsafe {
            SegmentsCastOutput {
                t: output(self.t, n),
                s: output(self.s, n),
                index: output(self.index, n),
                nx: output(self.nx, n),
                ny: output(self.ny, n),
            }
        }
    }
}

/// Ray × rect, one rect for all rays (`rects` NULL) or one per ray.
unsafe fn rect_cast<F: Real>(
    func: &'static str,
    rays: Cols<F>,
    n: usize,
    bounds: Option<[F; 4]>,
    rects: *const F,
    t_max: F,
    outs: [*mut F; 2],
    classes: *mut u8,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        input_cols(&mut spans, RAY_COLUMNS, rays, n)?;
        if bounds.is_none() {
            spans.input("rects", rects, rows_len("rects", n, 4)?)?;
        }
        spans
            .output("t_entry", outs[0], n)?
            .output("t_exit", outs[1], n)?
            .output("classes", classes, n)?;
        spans.disjoint()?;
        // SAFETY: every buffer registered with its length and disjoint above.
        let (r, mut out) = unsafe {
            let out = RectCastOutput {
                t_entry: output(outs[0], n),
                t_exit: output(outs[1], n),
                class: output(classes, n),
            };
            (rays_ref(rays, n), out)
        };
        match bounds {
            Some(b) => cast_rect(&rect("rect", b)?, &r, t_max, &mut out)?,
            None => {
                // SAFETY: registered with `4n` values above.
                let rects = rect_rows("rects", unsafe { input(rects, 4 * n) })?;
                cast_rects(&rects, &r, t_max, &mut out)?
            }
        }
        Ok(())
    })
}

unsafe fn polygon_cast<F: Real>(
    func: &'static str,
    rays: Cols<F>,
    n: usize,
    vertices: *const F,
    nv: usize,
    t_max: F,
    exit: c_int,
    outs: [*mut F; 5],
    edge: *mut u32,
    inside: *mut u8,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        input_cols(&mut spans, RAY_COLUMNS, rays, n)?;
        spans.input("vertices", vertices, rows_len("vertices", nv, 2)?)?;
        for (name, o) in ["t", "x", "y", "nx", "ny"].into_iter().zip(outs) {
            spans.output(name, o, n)?;
        }
        spans.output("edge", edge, n)?.output("inside", inside, n)?;
        spans.disjoint()?;
        // SAFETY: every buffer registered with its length and disjoint above.
        let (v, r, out) = unsafe {
            let out = PolygonCastOutput {
                t: output(outs[0], n),
                x: output(outs[1], n),
                y: output(outs[2], n),
                nx: output(outs[3], n),
                ny: output(outs[4], n),
                edge: output(edge, n),
                inside: output(inside, n),
            };
            (input(vertices, 2 * nv), rays_ref(rays, n), out)
        };
        let v: Vec<(F, F)> = v.chunks_exact(2).map(|v| (v[0], v[1])).collect();
        let poly = ConvexPolygon::new(&v).map_err(about("vertices"))?;
        let mode = if exit != 0 {
            InsideMode::Exit
        } else {
            InsideMode::Origin
        };
        cast_polygon(&poly, &r, t_max, mode, out)?;
        Ok(())
    })
}

unsafe fn segments_cast<F: Real>(
    func: &'static str,
    rays: Cols<F>,
    n: usize,
    walls: Cols<F>,
    m: usize,
    t_max: F,
    outs: RayHitOuts<F>,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        input_cols(&mut spans, RAY_COLUMNS, rays, n)?;
        input_cols(&mut spans, SEGMENT_COLUMNS, walls, m)?;
        outs.register(&mut spans, n)?;
        spans.disjoint()?;
        // SAFETY: every buffer registered with its length and disjoint above.
        let (r, w, out) = unsafe { (rays_ref(rays, n), cols_ref(walls, m), outs.get(n)) };
        cast_segments(&r, &w, t_max, out)?;
        Ok(())
    })
}

/// Casts `n` rays (four columns `ox, oy, dx, dy`; `D` need not be unit length, `t` is in units
/// of `D`) against the closed rect `[xmin, xmax] × [ymin, ymax]` on `t ∈ [0, t_max]`
/// (`t_max = INFINITY` for unbounded rays). Outputs, each optional and `n` long: `t_entry`,
/// `t_exit` (NaN on a miss) and `classes` (the segment clip's codes on `[0, t_max]`; `D = 0` or
/// a non-finite input is `SLABCLIP_CLASS_INVALID`).
///
/// Errors: `SLABCLIP_ERR_RECT` for a bad rect, `SLABCLIP_ERR_ARGUMENT` for a NaN or negative
/// `t_max`.
///
/// # Safety
///
/// Each non-null pointer holds `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_rect_f32(
    ox: *const f32,
    oy: *const f32,
    dx: *const f32,
    dy: *const f32,
    n: usize,
    xmin: f32,
    ymin: f32,
    xmax: f32,
    ymax: f32,
    t_max: f32,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
) -> c_int {
    let b = Some([xmin, ymin, xmax, ymax]);
    let rays = [ox, oy, dx, dy];
    let outs = [t_entry, t_exit];
    // SAFETY: the caller's contract.
    unsafe {
        rect_cast(
            "slabclip_cast_rect_f32",
            rays,
            n,
            b,
            std::ptr::null(),
            t_max,
            outs,
            classes,
        )
    }
}

/// The `double` twin of `slabclip_cast_rect_f32`.
///
/// # Safety
///
/// Each non-null pointer holds `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_rect_f64(
    ox: *const f64,
    oy: *const f64,
    dx: *const f64,
    dy: *const f64,
    n: usize,
    xmin: f64,
    ymin: f64,
    xmax: f64,
    ymax: f64,
    t_max: f64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
) -> c_int {
    let b = Some([xmin, ymin, xmax, ymax]);
    let rays = [ox, oy, dx, dy];
    let outs = [t_entry, t_exit];
    // SAFETY: the caller's contract.
    unsafe {
        rect_cast(
            "slabclip_cast_rect_f64",
            rays,
            n,
            b,
            std::ptr::null(),
            t_max,
            outs,
            classes,
        )
    }
}

/// Ray `i` against rect `i` (pairwise; `rects` holds `n` rows `xmin, ymin, xmax, ymax`);
/// otherwise as `slabclip_cast_rect_f32`. Errors: `SLABCLIP_ERR_RECT` naming the first bad row.
///
/// # Safety
///
/// `rects` holds `4n` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_rects_f32(
    ox: *const f32,
    oy: *const f32,
    dx: *const f32,
    dy: *const f32,
    n: usize,
    rects: *const f32,
    t_max: f32,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
) -> c_int {
    let rays = [ox, oy, dx, dy];
    let outs = [t_entry, t_exit];
    // SAFETY: the caller's contract.
    unsafe {
        rect_cast(
            "slabclip_cast_rects_f32",
            rays,
            n,
            None,
            rects,
            t_max,
            outs,
            classes,
        )
    }
}

/// The `double` twin of `slabclip_cast_rects_f32`.
///
/// # Safety
///
/// `rects` holds `4n` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_rects_f64(
    ox: *const f64,
    oy: *const f64,
    dx: *const f64,
    dy: *const f64,
    n: usize,
    rects: *const f64,
    t_max: f64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
) -> c_int {
    let rays = [ox, oy, dx, dy];
    let outs = [t_entry, t_exit];
    // SAFETY: the caller's contract.
    unsafe {
        rect_cast(
            "slabclip_cast_rects_f64",
            rays,
            n,
            None,
            rects,
            t_max,
            outs,
            classes,
        )
    }
}

/// Casts `n` rays against the convex polygon of `nv` vertices (`vertices`: `nv` rows `x, y`,
/// either orientation). Outputs, each optional and `n` long: `t`, the point `x, y`, the outward
/// unit normal `nx, ny` of the edge hit, `edge` (its index, `SLABCLIP_NO_HIT` for none) and
/// `inside` (1 where the origin lies in the closed polygon). A miss is NaN. An origin inside
/// reports `t = 0`, the origin, no edge and a NaN normal, or with `exit` nonzero the point where
/// the ray leaves.
///
/// Errors: `SLABCLIP_ERR_ARGUMENT` for a polygon that is not convex, has fewer than three
/// distinct vertices or a non-finite one, or a NaN or negative `t_max`.
///
/// # Safety
///
/// `vertices` holds `2 nv` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_polygon_f32(
    ox: *const f32,
    oy: *const f32,
    dx: *const f32,
    dy: *const f32,
    n: usize,
    vertices: *const f32,
    nv: usize,
    t_max: f32,
    exit: c_int,
    t: *mut f32,
    x: *mut f32,
    y: *mut f32,
    nx: *mut f32,
    ny: *mut f32,
    edge: *mut u32,
    inside: *mut u8,
) -> c_int {
    let rays = [ox, oy, dx, dy];
    let outs = [t, x, y, nx, ny];
    // SAFETY: the caller's contract.
    unsafe {
        polygon_cast(
            "slabclip_cast_polygon_f32",
            rays,
            n,
            vertices,
            nv,
            t_max,
            exit,
            outs,
            edge,
            inside,
        )
    }
}

/// The `double` twin of `slabclip_cast_polygon_f32`.
///
/// # Safety
///
/// `vertices` holds `2 nv` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_polygon_f64(
    ox: *const f64,
    oy: *const f64,
    dx: *const f64,
    dy: *const f64,
    n: usize,
    vertices: *const f64,
    nv: usize,
    t_max: f64,
    exit: c_int,
    t: *mut f64,
    x: *mut f64,
    y: *mut f64,
    nx: *mut f64,
    ny: *mut f64,
    edge: *mut u32,
    inside: *mut u8,
) -> c_int {
    let rays = [ox, oy, dx, dy];
    let outs = [t, x, y, nx, ny];
    // SAFETY: the caller's contract.
    unsafe {
        polygon_cast(
            "slabclip_cast_polygon_f64",
            rays,
            n,
            vertices,
            nv,
            t_max,
            exit,
            outs,
            edge,
            inside,
        )
    }
}

/// The closest hit of each of `n` rays among `m` segments (four columns `x0, y0, x1, y1`),
/// without an index (for many rays against the same walls, build a scene). Outputs, each
/// optional and `n` long: `t`, `s` (the segment's own parameter in `[0, 1]`), `index` (the
/// segment, lowest on a tie; `SLABCLIP_NO_HIT` on a miss), and the unit normal `nx, ny` facing
/// the ray. A segment collinear with the ray is hit at the first point of overlap; segments
/// with a non-finite coordinate are never hit.
///
/// Errors: `SLABCLIP_ERR_ARGUMENT` for a NaN or negative `t_max`, or more segments than the
/// type indexes exactly (2^24 for `float`).
///
/// # Safety
///
/// The ray columns and non-null outputs hold `n` elements, the segment columns `m`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_segments_f32(
    ox: *const f32,
    oy: *const f32,
    dx: *const f32,
    dy: *const f32,
    n: usize,
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    m: usize,
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
    let (rays, walls) = ([ox, oy, dx, dy], [x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe { segments_cast("slabclip_cast_segments_f32", rays, n, walls, m, t_max, outs) }
}

/// The `double` twin of `slabclip_cast_segments_f32`.
///
/// # Safety
///
/// The ray columns and non-null outputs hold `n` elements, the segment columns `m`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_cast_segments_f64(
    ox: *const f64,
    oy: *const f64,
    dx: *const f64,
    dy: *const f64,
    n: usize,
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    m: usize,
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
    let (rays, walls) = ([ox, oy, dx, dy], [x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe { segments_cast("slabclip_cast_segments_f64", rays, n, walls, m, t_max, outs) }
}
