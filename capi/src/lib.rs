//! The C interface of slabclip, for simulation codes in C, C++, Fortran and Julia.
//!
//! Every function is an `extern "C"` wrapper over the library's public API, in `float` and
//! `double` (`_f32` / `_f64` names). The conventions, stated once here and in the header:
//!
//! * Every query returns an `int` status: [`SLABCLIP_OK`] (0) or a negative code for the kind of
//!   failure; [`slabclip_last_error`] then gives the message (thread-local), naming the function,
//!   the argument and the row. Nothing is written to any output when a check fails: all checks
//!   come before any work.
//! * The caller owns every buffer. An input or output of `n` values is a pointer to `n`
//!   elements; outputs marked optional may be `NULL` (not computed). A pointer may be `NULL`
//!   only when its length is zero or it is an optional output. Buffers must be aligned for their
//!   type, and no output may overlap another buffer of the same call (checked: an error).
//! * Objects built once and queried many times (grids, rect sets, scenes) are opaque handles
//!   with a `_new` and a `_free`.
//! * No panic crosses the boundary: each entry runs under [`std::panic::catch_unwind`], and a
//!   panic (a bug) is [`SLABCLIP_ERR_PANIC`] with its message.
//!
//! `cbindgen` writes `include/slabclip.h` from these items (`tests/header.rs` checks it is
//! current).

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
// The C names (`slabclip_grid_f32`) are the handle types' names in the header.
#![allow(non_camel_case_types)]
// The signatures are C's: one pointer per buffer, as many as the query has outputs.
#![allow(clippy::too_many_arguments)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use slabclip::{Error, Real, Rect, SegmentsRef};

mod cast;
mod clip;
mod grid;
mod rect_set;
mod scene;

pub use cast::*;
pub use clip::*;
pub use grid::*;
pub use rect_set::*;
pub use scene::*;

/// Success.
pub const SLABCLIP_OK: c_int = 0;
/// A required pointer is `NULL` (an input with a nonzero length, a handle, an out-parameter), or
/// only some of the four columns of an optional clipped-segments output were given.
pub const SLABCLIP_ERR_NULL: c_int = -1;
/// A length is out of range: `n` values of the type overflow the address space.
pub const SLABCLIP_ERR_LENGTH: c_int = -2;
/// A rect with a NaN or infinite bound, or `min > max`; the message names the bound and the row.
pub const SLABCLIP_ERR_RECT: c_int = -3;
/// Any other argument out of its domain: a negative or NaN `t_max`, grid cell counts, a polygon
/// that is not convex, a misaligned buffer, overlapping outputs.
pub const SLABCLIP_ERR_ARGUMENT: c_int = -4;
/// The output capacity is smaller than the result: the required count was written to `*count`
/// and nothing else; call again with buffers of at least that many elements.
pub const SLABCLIP_ERR_CAPACITY: c_int = -5;
/// An internal error (a panic inside the library, caught at the boundary): a bug, please report
/// it with the message. Outputs of that call are unspecified.
pub const SLABCLIP_ERR_PANIC: c_int = -6;

/// Class codes of a clip (SPEC §1), as written to `classes` outputs.
pub const SLABCLIP_CLASS_OUTSIDE: u8 = 0;
/// The whole segment lies in the rect.
pub const SLABCLIP_CLASS_INSIDE: u8 = 1;
/// Starts outside, ends inside.
pub const SLABCLIP_CLASS_ENTERS: u8 = 2;
/// Starts inside, ends outside.
pub const SLABCLIP_CLASS_EXITS: u8 = 3;
/// Both ends outside, a piece of positive length inside.
pub const SLABCLIP_CLASS_CROSSES: u8 = 4;
/// Meets the rect in one point only.
pub const SLABCLIP_CLASS_TOUCHES: u8 = 5;
/// Some input coordinate is NaN or infinite.
pub const SLABCLIP_CLASS_INVALID: u8 = 255;

/// The index written for a ray that hits nothing (`uint32_t`, `UINT32_MAX`; `-1` when read as
/// `int32_t`).
pub const SLABCLIP_NO_HIT: u32 = u32::MAX;

/// Line of sight: no wall meets the segment (but at excluded ends).
pub const SLABCLIP_SIGHT_VISIBLE: u8 = 0;
/// Line of sight: some wall meets the segment.
pub const SLABCLIP_SIGHT_BLOCKED: u8 = 1;
/// Line of sight: `A == B` or a non-finite end.
pub const SLABCLIP_SIGHT_INVALID: u8 = 255;

/// A failed check: the status code and the message.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) code: c_int,
    pub(crate) msg: String,
}

impl Fail {
    pub(crate) fn new(code: c_int, msg: impl Into<String>) -> Self {
        Fail {
            code,
            msg: msg.into(),
        }
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        let code = match e {
            Error::InvalidRect(_) => SLABCLIP_ERR_RECT,
            Error::LengthMismatch { .. } | Error::RaggedRows(_) => SLABCLIP_ERR_LENGTH,
            _ => SLABCLIP_ERR_ARGUMENT,
        };
        Fail::new(code, e.to_string())
    }
}

thread_local! {
    /// The message of the last failed call on this thread.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: String) {
    // A message never holds a NUL (one in a panic's text is replaced): it is a C string.
    let msg = CString::new(msg.replace('\0', "\u{fffd}")).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = msg);
}

/// Runs one entry of the interface: clears the thread's message, runs `body`, and turns its
/// failure or a panic into a status code and a message prefixed with `func`, the C name.
pub(crate) fn guard(func: &'static str, body: impl FnOnce() -> Result<(), Fail>) -> c_int {
    set_error(String::new());
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SLABCLIP_OK,
        Ok(Err(fail)) => {
            set_error(format!("{func}: {}", fail.msg));
            fail.code
        }
        Err(payload) => {
            let what = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "a panic without a message".to_string()
            };
            // A payload whose own drop panics must not unwind out of here either.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            set_error(format!(
                "{func}: internal error (a panic caught at the C boundary; please report it): \
                 {what}"
            ));
            SLABCLIP_ERR_PANIC
        }
    }
}

/// The message of the last call on this thread that failed, copied into `buf` (at most
/// `cap - 1` bytes and a terminating NUL, cut at a UTF-8 character boundary); returns the
/// message's full length in bytes (without the NUL), as `snprintf` does, so `buf = NULL`,
/// `cap = 0` asks for the length. Every call of the interface clears the message first; it is
/// empty (length 0) after a call that succeeded.
///
/// # Safety
///
/// `buf` is `NULL` or points to `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slabclip_last_error(buf: *mut c_char, cap: usize) -> usize {
    let copy = || {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            let bytes = e.as_bytes();
            if !buf.is_null() && cap > 0 {
                let mut k = bytes.len().min(cap - 1);
                while !e.to_str().map_or(true, |s| s.is_char_boundary(k)) {
                    k -= 1;
                }
                // SAFETY: `buf` holds `cap` bytes (the caller's contract) and `k < cap`; the
                // message is a separate Rust allocation, so the two do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), k);
                    *buf.add(k) = 0;
                }
            }
            bytes.len()
        })
    };
    catch_unwind(copy).unwrap_or(0)
}

/// The message of the last failed call on this thread as a NUL-terminated UTF-8 string (empty
/// after a call that succeeded). The pointer is valid until the next call of the interface on
/// this thread; copy the text to keep it.
#[no_mangle]
pub extern "C" fn slabclip_last_error_message() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"internal error".as_ptr())
}

/// The library's version, a static NUL-terminated string such as `"0.1.0"`.
#[no_mangle]
pub extern "C" fn slabclip_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

// ------------------------------------------------------------------------------------------
// Pointers and lengths to slices.

/// Checks a pointer of `len` values of `T` for `name`: not null when `len > 0`, aligned, and
/// `len` values within the address space (`from_raw_parts`' requirements).
fn check_ptr<T>(name: &str, ptr: *const T, len: usize) -> Result<(), Fail> {
    if len == 0 {
        return Ok(());
    }
    if ptr.is_null() {
        return Err(Fail::new(
            SLABCLIP_ERR_NULL,
            format!("{name} is NULL but should hold {len} values"),
        ));
    }
    if !ptr.is_aligned() {
        return Err(Fail::new(
            SLABCLIP_ERR_ARGUMENT,
            format!(
                "{name} is not aligned to {} bytes",
                core::mem::align_of::<T>()
            ),
        ));
    }
    match len.checked_mul(core::mem::size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(Fail::new(
            SLABCLIP_ERR_LENGTH,
            format!("{name}: {len} values are more than memory holds"),
        )),
    }
}

/// `n · k` for a buffer of `n` rows of `k` values, or a length error naming it.
pub(crate) fn rows_len(name: &str, n: usize, k: usize) -> Result<usize, Fail> {
    n.checked_mul(k).ok_or_else(|| {
        Fail::new(
            SLABCLIP_ERR_LENGTH,
            format!("{name}: {n} rows of {k} values overflow"),
        )
    })
}

/// A buffer of one call, by address, for the overlap check ([`Spans`]).
struct Span {
    name: &'static str,
    start: usize,
    end: usize,
    write: bool,
}

/// The buffers of one call, gathered before any slice is made, so that an output overlapping
/// another buffer is refused (a Rust `&mut` must not alias) rather than undefined behaviour.
#[derive(Default)]
pub(crate) struct Spans(Vec<Span>);

impl Spans {
    /// An input of `len` values (checked as [`check_ptr`]).
    pub(crate) fn input<T>(
        &mut self,
        name: &'static str,
        ptr: *const T,
        len: usize,
    ) -> Result<&mut Self, Fail> {
        self.add(name, ptr, len, false)?;
        Ok(self)
    }

    /// An output of `len` values; `NULL` is fine (an output not asked for).
    pub(crate) fn output<T>(
        &mut self,
        name: &'static str,
        ptr: *mut T,
        len: usize,
    ) -> Result<&mut Self, Fail> {
        if !ptr.is_null() {
            self.add(name, ptr.cast_const(), len, true)?;
        }
        Ok(self)
    }

    fn add<T>(
        &mut self,
        name: &'static str,
        ptr: *const T,
        len: usize,
        write: bool,
    ) -> Result<(), Fail> {
        check_ptr(name, ptr, len)?;
        if len > 0 {
            let start = ptr as usize;
            self.0.push(Span {
                name,
                start,
                end: start + len * core::mem::size_of::<T>(),
                write,
            });
        }
        Ok(())
    }

    /// Errors when an output overlaps any other buffer of the call.
    pub(crate) fn disjoint(&self) -> Result<(), Fail> {
        for (i, a) in self.0.iter().enumerate() {
            for b in &self.0[i + 1..] {
                if (a.write || b.write) && a.start < b.end && b.start < a.end {
                    return Err(Fail::new(
                        SLABCLIP_ERR_ARGUMENT,
                        format!(
                            "{} and {} overlap: an output may not share memory with another \
                             buffer",
                            a.name, b.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The `len` values at `ptr` (an input checked by [`Spans::input`]).
///
/// # Safety
///
/// `ptr` passed [`check_ptr`] for `len`, and (when `len > 0`) points to `len` initialised values
/// that nothing writes while the slice lives.
pub(crate) unsafe fn input<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if len == 0 {
        return &[];
    }
    // SAFETY: non-null, aligned and within `isize::MAX` bytes (`check_ptr`); the values are
    // initialised and not written meanwhile (this function's contract).
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

/// The `len` values at `ptr` for writing, or `None` for `NULL` (an output not asked for).
///
/// # Safety
///
/// `ptr` is `NULL` or passed [`check_ptr`] for `len` and points to `len` values that no other
/// slice or reference covers while this one lives ([`Spans::disjoint`]).
pub(crate) unsafe fn output<'a, T>(ptr: *mut T, len: usize) -> Option<&'a mut [T]> {
    if ptr.is_null() {
        return None;
    }
    if len == 0 {
        return Some(&mut []);
    }
    // SAFETY: non-null, aligned, within `isize::MAX` bytes (`check_ptr`) and not aliased
    // (`Spans::disjoint`): this function's contract.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Four columns `x0, y0, x1, y1` of segments (or `ax, ay, bx, by` of point pairs).
pub(crate) type Cols<F> = [*const F; 4];

/// The names of the segment columns in messages.
pub(crate) const SEGMENT_COLUMNS: [&str; 4] = ["x0", "y0", "x1", "y1"];

/// Registers four input columns of `n` values.
pub(crate) fn input_cols<F>(
    spans: &mut Spans,
    names: [&'static str; 4],
    cols: Cols<F>,
    n: usize,
) -> Result<(), Fail> {
    for (name, c) in names.into_iter().zip(cols) {
        spans.input(name, c, n)?;
    }
    Ok(())
}

/// The four columns as a borrowed batch.
///
/// # Safety
///
/// As [`input`] for each column, registered by [`input_cols`] with `n`.
pub(crate) unsafe fn cols_ref<'a, F: Real>(cols: Cols<F>, n: usize) -> SegmentsRef<'a, F> {
    // SAFETY: this function's contract, column by column.
    let [x0, y0, x1, y1] = cols.map(|c| unsafe { input(c, n) });
    SegmentsRef::new(x0, y0, x1, y1).expect("four columns of n values")
}

/// Writes `f(item)` for every item into the output at `ptr`; nothing for `NULL` (an output not
/// asked for).
///
/// # Safety
///
/// As [`output`] with `items.len()` values.
pub(crate) unsafe fn fill<T, X>(ptr: *mut T, items: &[X], f: impl Fn(&X) -> T) {
    // SAFETY: this function's contract.
    if let Some(out) = unsafe { output(ptr, items.len()) } {
        for (o, x) in out.iter_mut().zip(items) {
            *o = f(x);
        }
    }
}

/// A handle argument: `NULL` is an error naming it.
///
/// # Safety
///
/// `ptr` is `NULL` or a live handle of its type (from its `_new`, not yet freed).
pub(crate) unsafe fn handle<'a, T>(name: &str, ptr: *const T) -> Result<&'a T, Fail> {
    // SAFETY: a non-null pointer is a live handle (this function's contract).
    unsafe { ptr.as_ref() }.ok_or_else(|| Fail::new(SLABCLIP_ERR_NULL, format!("{name} is NULL")))
}

/// A rect from four bounds, its error naming `what` (an argument or a row).
pub(crate) fn rect<F: Real>(what: &str, b: [F; 4]) -> Result<Rect<F>, Fail> {
    Rect::new(b[0], b[1], b[2], b[3]).map_err(|e| {
        let f = Fail::from(e);
        Fail::new(f.code, format!("{what}: {}", f.msg))
    })
}

/// Rects from `n` rows `xmin, ymin, xmax, ymax`, an error naming the first bad row.
pub(crate) fn rect_rows<F: Real>(name: &str, rows: &[F]) -> Result<Vec<Rect<F>>, Fail> {
    rows.chunks_exact(4)
        .enumerate()
        .map(|(i, r)| rect(&format!("{name} row {i}"), [r[0], r[1], r[2], r[3]]))
        .collect()
}

/// Library errors with the argument they concern.
pub(crate) fn about(what: &str) -> impl FnOnce(Error) -> Fail + '_ {
    move |e| {
        let f = Fail::from(e);
        Fail::new(f.code, format!("{what}: {}", f.msg))
    }
}

/// A `NULL` out-parameter is an error naming it.
///
/// # Safety
///
/// `ptr` is `NULL` or points to one writable `T`, covered by no other reference.
pub(crate) unsafe fn out_param<'a, T>(name: &str, ptr: *mut T) -> Result<&'a mut T, Fail> {
    // SAFETY: a non-null pointer is one writable, unaliased `T` (this function's contract).
    unsafe { ptr.as_mut() }.ok_or_else(|| Fail::new(SLABCLIP_ERR_NULL, format!("{name} is NULL")))
}

/// The capacity protocol of the queries whose result count is known only at the end: `count`
/// results fit in outputs of `capacity`, or a [`SLABCLIP_ERR_CAPACITY`] saying how many are
/// needed (the count itself is written to `*count` by the caller either way).
pub(crate) fn fits(what: &str, count: usize, capacity: usize) -> Result<(), Fail> {
    if count <= capacity {
        return Ok(());
    }
    Err(Fail::new(
        SLABCLIP_ERR_CAPACITY,
        format!(
            "{count} {what} do not fit in capacity = {capacity}: *count holds {count}; call \
             again with outputs of at least that many elements"
        ),
    ))
}

/// Moves a built object into a handle written to `*out`.
pub(crate) fn give<T>(out: &mut *mut T, value: T) {
    *out = Box::into_raw(Box::new(value));
}

/// Frees a handle from [`give`]; `NULL` is a no-op.
///
/// # Safety
///
/// `ptr` is `NULL` or a handle from [`give`] not yet freed, and not used afterwards.
pub(crate) unsafe fn take<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: a live handle made by `Box::into_raw` (this function's contract).
        drop(unsafe { Box::from_raw(ptr) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message() -> String {
        let mut buf = [0 as c_char; 256];
        // SAFETY: `buf` holds 256 bytes.
        let n = unsafe { slabclip_last_error(buf.as_mut_ptr(), buf.len()) };
        let bytes: Vec<u8> = buf[..n.min(255)].iter().map(|&c| c as u8).collect();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let status = guard("slabclip_test", || panic!("index {} out of range", 7));
        assert_eq!(status, SLABCLIP_ERR_PANIC);
        let msg = message();
        assert!(msg.starts_with("slabclip_test: internal error"), "{msg}");
        assert!(msg.ends_with("index 7 out of range"), "{msg}");
        // A static message, and a payload that is not a string.
        assert_eq!(guard("f", || panic!("static")), SLABCLIP_ERR_PANIC);
        assert!(message().ends_with("static"));
        assert_eq!(
            guard("f", || std::panic::panic_any(42u32)),
            SLABCLIP_ERR_PANIC
        );
        assert!(message().ends_with("a panic without a message"));
        // The next call that succeeds clears the message.
        assert_eq!(guard("f", || Ok(())), SLABCLIP_OK);
        assert_eq!(message(), "");
    }

    #[test]
    fn a_panic_in_a_library_call_is_caught_too() {
        // `Grid::cell` panics on a cell outside the grid: a real library panic, through rayon-free
        // code, caught by the guard.
        let grid = slabclip::Grid::new(Rect::new(0.0f64, 0.0, 1.0, 1.0).unwrap(), 2, 2).unwrap();
        let status = guard("slabclip_test", || {
            let _ = grid.cell(5, 5);
            Ok(())
        });
        assert_eq!(status, SLABCLIP_ERR_PANIC);
        assert!(message().contains("internal error"));
    }

    #[test]
    fn errors_keep_their_kind_and_message() {
        let status = guard("slabclip_clip_f32", || {
            rect("rect", [1.0f32, 0.0, 0.0, 1.0])?;
            Ok(())
        });
        assert_eq!(status, SLABCLIP_ERR_RECT);
        assert_eq!(
            message(),
            "slabclip_clip_f32: rect: invalid rect: xmin = 1 is greater than xmax = 0"
        );
    }

    #[test]
    fn messages_are_cut_at_character_boundaries() {
        set_error("é".repeat(10));
        let mut buf = [0x7f as c_char; 4];
        // SAFETY: `buf` holds 4 bytes.
        let n = unsafe { slabclip_last_error(buf.as_mut_ptr(), buf.len()) };
        assert_eq!(n, 20);
        // Three bytes of room: one two-byte character, not a half of the second.
        assert_eq!(buf.map(|c| c as u8), [0xc3, 0xa9, 0, 0x7f]);
        // SAFETY: NULL with a zero capacity asks for the length only.
        assert_eq!(unsafe { slabclip_last_error(std::ptr::null_mut(), 0) }, 20);
    }

    #[test]
    fn handles_may_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<slabclip_grid_f32>();
        shared::<slabclip_grid_f64>();
        shared::<slabclip_rect_set_f32>();
        shared::<slabclip_rect_set_f64>();
        shared::<slabclip_scene_f32>();
        shared::<slabclip_scene_f64>();
    }

    #[test]
    fn the_version_is_a_c_string() {
        // SAFETY: a static NUL-terminated string.
        let v = unsafe { std::ffi::CStr::from_ptr(slabclip_version()) };
        assert_eq!(v.to_str(), Ok(env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn overlapping_outputs_are_refused() {
        let v = [0.0f32; 8];
        let mut spans = Spans::default();
        spans.input("x0", v.as_ptr(), 8).unwrap();
        spans
            .output("t_entry", v[4..].as_ptr().cast_mut(), 4)
            .unwrap();
        let e = spans.disjoint().unwrap_err();
        assert_eq!(e.code, SLABCLIP_ERR_ARGUMENT);
        assert!(e.msg.starts_with("x0 and t_entry overlap"), "{}", e.msg);
        // Inputs may share memory; adjacent buffers do not overlap.
        let mut spans = Spans::default();
        spans.input("x0", v.as_ptr(), 4).unwrap();
        spans.input("y0", v.as_ptr(), 4).unwrap();
        spans
            .output("t_entry", v[4..].as_ptr().cast_mut(), 4)
            .unwrap();
        spans.disjoint().unwrap();
    }

    #[test]
    fn pointers_are_checked_before_use() {
        let e = check_ptr::<f32>("x0", std::ptr::null(), 3).unwrap_err();
        assert_eq!(
            (e.code, e.msg.as_str()),
            (SLABCLIP_ERR_NULL, "x0 is NULL but should hold 3 values")
        );
        check_ptr::<f32>("x0", std::ptr::null(), 0).unwrap();
        let v = [0.0f64; 2];
        let odd = (v.as_ptr() as *const u8).wrapping_add(1).cast::<f64>();
        assert_eq!(
            check_ptr("x0", odd, 1).unwrap_err().code,
            SLABCLIP_ERR_ARGUMENT
        );
        let e = check_ptr("x0", v.as_ptr(), usize::MAX / 4).unwrap_err();
        assert_eq!(e.code, SLABCLIP_ERR_LENGTH);
        assert_eq!(
            rows_len("rows", usize::MAX / 2, 4).unwrap_err().code,
            SLABCLIP_ERR_LENGTH
        );
    }
}
