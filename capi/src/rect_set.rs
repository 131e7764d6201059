//! Rect sets: N segments against M rects through the broad phase built once
//! (`slabclip::RectSet`), the hit list of the brute force bit for bit.

use std::ffi::c_int;

use slabclip::{Algorithm, Real, RectSet};

use crate::clip::{with_source, Segs};
use crate::{
    fill, fits, give, guard, handle, input, out_param, rect_rows, rows_len, take, Fail, Spans,
};

/// A set of rects with its broad phase (opaque; from `slabclip_rect_set_new_f32`, freed by
/// `slabclip_rect_set_free_f32`). Read-only once built: any number of threads may query one
/// set at once.
pub struct slabclip_rect_set_f32(RectSet<f32>);

/// The `double` twin of `slabclip_rect_set_f32`.
pub struct slabclip_rect_set_f64(RectSet<f64>);

impl From<RectSet<f32>> for slabclip_rect_set_f32 {
    fn from(s: RectSet<f32>) -> Self {
        slabclip_rect_set_f32(s)
    }
}

impl From<RectSet<f64>> for slabclip_rect_set_f64 {
    fn from(s: RectSet<f64>) -> Self {
        slabclip_rect_set_f64(s)
    }
}

impl AsRef<RectSet<f32>> for slabclip_rect_set_f32 {
    fn as_ref(&self) -> &RectSet<f32> {
        &self.0
    }
}

impl AsRef<RectSet<f64>> for slabclip_rect_set_f64 {
    fn as_ref(&self) -> &RectSet<f64> {
        &self.0
    }
}

/// The outputs of a hit list, as the caller passed them.
struct HitOuts<F> {
    segment: *mut i64,
    rect: *mut i64,
    t_entry: *mut F,
    t_exit: *mut F,
    classes: *mut u8,
    count: *mut usize,
}

unsafe fn new<F: Real, H: From<RectSet<F>>>(
    func: &'static str,
    rects: *const F,
    m: usize,
    out: *mut *mut H,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        spans.input("rects", rects, rows_len("rects", m, 4)?)?;
        // SAFETY: `out` is NULL or one writable pointer (the caller's contract); `rects`
        // registered with `4m` values above.
        let (out, rects) = unsafe { (out_param("out", out)?, input(rects, 4 * m)) };
        let rects = rect_rows("rects", rects)?;
        give(out, H::from(RectSet::new(rects)?));
        Ok(())
    })
}

unsafe fn clip<F: Real, H: AsRef<RectSet<F>>>(
    func: &'static str,
    set: *const H,
    segs: Segs<F>,
    n: usize,
    capacity: usize,
    outs: HitOuts<F>,
) -> c_int {
    guard(func, || {
        // SAFETY: NULL or a live handle (the caller's contract).
        let set = unsafe { handle("set", set) }?.as_ref();
        let mut spans = Spans::default();
        segs.register(&mut spans, n)?;
        spans
            .output("segment", outs.segment, capacity)?
            .output("rect", outs.rect, capacity)?
            .output("t_entry", outs.t_entry, capacity)?
            .output("t_exit", outs.t_exit, capacity)?
            .output("classes", outs.classes, capacity)?
            .output("count", outs.count, 1)?;
        spans.disjoint()?;
        // SAFETY: registered and disjoint above.
        let count = unsafe { out_param("count", outs.count) }?;
        with_source!(segs, n, |s| {
            let hits = Algorithm::Auto.clip_rect_set(set, s);
            *count = hits.len();
            fits("hits", hits.len(), capacity)?;
            // SAFETY: every output registered with `capacity ≥ hits.len()` values in the
            // disjoint `spans` above.
            unsafe {
                fill(outs.segment, &hits, |h| h.segment as i64);
                fill(outs.rect, &hits, |h| h.rect as i64);
                fill(outs.t_entry, &hits, |h| h.t_entry);
                fill(outs.t_exit, &hits, |h| h.t_exit);
                fill(outs.classes, &hits, |h| h.class as u8);
            }
            Ok::<(), Fail>(())
        })
    })
}

/// Builds a rect set from `m` rows `xmin, ymin, xmax, ymax` (`rects`, `4m` values; copied) into
/// `*out`.
///
/// Errors: `SLABCLIP_ERR_RECT` naming the first bad row; `SLABCLIP_ERR_NULL` for
/// `out == NULL` or `rects == NULL` with `m > 0`. On error `*out` is left as it was.
///
/// # Safety
///
/// `rects` holds `4m` elements; `out` is `NULL` or points to a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_new_f32(
    rects: *const f32,
    m: usize,
    out: *mut *mut slabclip_rect_set_f32,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { new("slabclip_rect_set_new_f32", rects, m, out) }
}

/// The `double` twin of `slabclip_rect_set_new_f32`.
///
/// # Safety
///
/// `rects` holds `4m` elements; `out` is `NULL` or points to a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_new_f64(
    rects: *const f64,
    m: usize,
    out: *mut *mut slabclip_rect_set_f64,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { new("slabclip_rect_set_new_f64", rects, m, out) }
}

/// Frees a rect set; `NULL` is a no-op.
///
/// # Safety
///
/// `set` is `NULL` or a set from `slabclip_rect_set_new_f32` not yet freed, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_free_f32(set: *mut slabclip_rect_set_f32) {
    // SAFETY: the caller's contract.
    unsafe { take(set) }
}

/// Frees a rect set; `NULL` is a no-op.
///
/// # Safety
///
/// `set` is `NULL` or a set from `slabclip_rect_set_new_f64` not yet freed, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_free_f64(set: *mut slabclip_rect_set_f64) {
    // SAFETY: the caller's contract.
    unsafe { take(set) }
}

/// Every non-empty clip of `n` segments (four columns) by the rects of `set`, ordered by
/// segment, then rect: per hit `segment`, `rect` (indices), `t_entry`, `t_exit` and `classes`.
///
/// The capacity protocol of `slabclip_grid_pieces_f32`: `*count` gets the number of hits;
/// when it is above `capacity` nothing else is written and the status is
/// `SLABCLIP_ERR_CAPACITY`.
///
/// # Safety
///
/// `set` is a live set; each input column holds `n` elements, each non-null output `capacity`,
/// and `count` one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_clip_f32(
    set: *const slabclip_rect_set_f32,
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    rect: *mut i64,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    count: *mut usize,
) -> c_int {
    let outs = HitOuts {
        segment,
        rect,
        t_entry,
        t_exit,
        classes,
        count,
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe { clip("slabclip_rect_set_clip_f32", set, segs, n, capacity, outs) }
}

/// The `double` twin of `slabclip_rect_set_clip_f32`.
///
/// # Safety
///
/// As `slabclip_rect_set_clip_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_clip_f64(
    set: *const slabclip_rect_set_f64,
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    rect: *mut i64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    count: *mut usize,
) -> c_int {
    let outs = HitOuts {
        segment,
        rect,
        t_entry,
        t_exit,
        classes,
        count,
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe { clip("slabclip_rect_set_clip_f64", set, segs, n, capacity, outs) }
}

/// `slabclip_rect_set_clip_f32` for segments as `n` rows (`segments`, `4n` values).
///
/// # Safety
///
/// `set` is a live set; `segments` holds `4n` elements, each non-null output `capacity`, and
/// `count` one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_clip_rows_f32(
    set: *const slabclip_rect_set_f32,
    segments: *const f32,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    rect: *mut i64,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    count: *mut usize,
) -> c_int {
    let outs = HitOuts {
        segment,
        rect,
        t_entry,
        t_exit,
        classes,
        count,
    };
    let segs = Segs::Rows(segments);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_rect_set_clip_rows_f32",
            set,
            segs,
            n,
            capacity,
            outs,
        )
    }
}

/// The `double` twin of `slabclip_rect_set_clip_rows_f32`.
///
/// # Safety
///
/// As `slabclip_rect_set_clip_rows_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_rect_set_clip_rows_f64(
    set: *const slabclip_rect_set_f64,
    segments: *const f64,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    rect: *mut i64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    count: *mut usize,
) -> c_int {
    let outs = HitOuts {
        segment,
        rect,
        t_entry,
        t_exit,
        classes,
        count,
    };
    let segs = Segs::Rows(segments);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_rect_set_clip_rows_f64",
            set,
            segs,
            n,
            capacity,
            outs,
        )
    }
}
