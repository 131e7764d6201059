//! Grid pieces: segments cut into the cells of a regular grid (`slabclip::Grid`), through a
//! handle that keeps the grid's boundary lists and options from call to call.

use std::ffi::c_int;

use slabclip::grid::Lines;
use slabclip::{Grid, GridOptions, Real, Segment, SegmentSource};

use crate::clip::{with_source, Segs};
use crate::{
    about, fill, fits, give, guard, handle, out_param, output, rect, rows_len, take, Fail, Spans,
};

/// The grid and the options of its handle.
pub struct GridHandle<F> {
    grid: Grid<F>,
    options: GridOptions,
}

/// A grid of `nx × ny` cells over a rect, with its options (opaque; from
/// `slabclip_grid_new_f32`, freed by `slabclip_grid_free_f32`). Read-only once built: any number
/// of threads may query one grid at once.
pub struct slabclip_grid_f32(GridHandle<f32>);

/// The `double` twin of `slabclip_grid_f32`.
pub struct slabclip_grid_f64(GridHandle<f64>);

impl From<GridHandle<f32>> for slabclip_grid_f32 {
    fn from(g: GridHandle<f32>) -> Self {
        slabclip_grid_f32(g)
    }
}

impl From<GridHandle<f64>> for slabclip_grid_f64 {
    fn from(g: GridHandle<f64>) -> Self {
        slabclip_grid_f64(g)
    }
}

impl AsRef<GridHandle<f32>> for slabclip_grid_f32 {
    fn as_ref(&self) -> &GridHandle<f32> {
        &self.0
    }
}

impl AsRef<GridHandle<f64>> for slabclip_grid_f64 {
    fn as_ref(&self) -> &GridHandle<f64> {
        &self.0
    }
}

/// Where the clipped pieces go.
enum PieceSegs<F> {
    Columns([*mut F; 4]),
    Rows(*mut F),
}

/// The outputs of a pieces query, as the caller passed them.
struct PieceOuts<F> {
    segment: *mut i64,
    ix: *mut i64,
    iy: *mut i64,
    t_entry: *mut F,
    t_exit: *mut F,
    classes: *mut u8,
    clipped: PieceSegs<F>,
    count: *mut usize,
}

unsafe fn new<F: Real, H: From<GridHandle<F>>>(
    func: &'static str,
    bounds: [F; 4],
    nx: usize,
    ny: usize,
    half_open: c_int,
    touches: c_int,
    out: *mut *mut H,
) -> c_int {
    guard(func, || {
        // SAFETY: `out` is NULL or one writable pointer (the caller's contract).
        let out = unsafe { out_param("out", out) }?;
        let r = rect("grid rect", bounds)?;
        let grid = Grid::new(r, nx, ny).map_err(about("grid"))?;
        let options = GridOptions {
            lines: if half_open != 0 {
                Lines::HalfOpen
            } else {
                Lines::Closed
            },
            touches: touches != 0,
        };
        give(out, H::from(GridHandle { grid, options }));
        Ok(())
    })
}

unsafe fn pieces<F: Real, H: AsRef<GridHandle<F>>>(
    func: &'static str,
    g: *const H,
    segs: Segs<F>,
    n: usize,
    capacity: usize,
    outs: PieceOuts<F>,
) -> c_int {
    guard(func, || {
        // SAFETY: NULL or a live handle (the caller's contract).
        let g = unsafe { handle("grid", g) }?.as_ref();
        let mut spans = Spans::default();
        segs.register(&mut spans, n)?;
        spans
            .output("segment", outs.segment, capacity)?
            .output("ix", outs.ix, capacity)?
            .output("iy", outs.iy, capacity)?
            .output("t_entry", outs.t_entry, capacity)?
            .output("t_exit", outs.t_exit, capacity)?
            .output("classes", outs.classes, capacity)?
            .output("count", outs.count, 1)?;
        match outs.clipped {
            PieceSegs::Columns(c) => {
                let names = ["px0", "py0", "px1", "py1"];
                if c.iter().any(|p| p.is_null()) && c.iter().any(|p| !p.is_null()) {
                    return Err(Fail::new(
                        crate::SLABCLIP_ERR_NULL,
                        "the piece columns px0, py0, px1, py1 are given all four or none",
                    ));
                }
                for (name, p) in names.into_iter().zip(c) {
                    spans.output(name, p, capacity)?;
                }
            }
            PieceSegs::Rows(p) => {
                spans.output("clipped", p, rows_len("clipped", capacity, 4)?)?;
            }
        }
        spans.disjoint()?;
        // SAFETY: registered and disjoint above.
        let count = unsafe { out_param("count", outs.count) }?;
        with_source!(segs, n, |s| {
            let pieces = g.grid.pieces(s, &g.options);
            *count = pieces.len();
            fits("pieces", pieces.len(), capacity)?;
            let k = pieces.len();
            // The clipped pieces, when asked for.
            let clipped: Vec<Segment<F>> = match outs.clipped {
                PieceSegs::Columns([p, ..]) | PieceSegs::Rows(p) if !p.is_null() => pieces
                    .iter()
                    .map(|p| g.grid.piece_segment(p, &s.segment(p.segment)))
                    .collect(),
                _ => Vec::new(),
            };
            // SAFETY: every output registered with `capacity ≥ k` values (`4 capacity` for
            // rows) in the disjoint `spans` above.
            unsafe {
                fill(outs.segment, &pieces, |p| p.segment as i64);
                fill(outs.ix, &pieces, |p| i64::from(p.ix));
                fill(outs.iy, &pieces, |p| i64::from(p.iy));
                fill(outs.t_entry, &pieces, |p| p.t_entry);
                fill(outs.t_exit, &pieces, |p| p.t_exit);
                fill(outs.classes, &pieces, |p| p.class as u8);
                match outs.clipped {
                    PieceSegs::Columns([x0, y0, x1, y1]) => {
                        fill(x0, &clipped, |q| q.x0);
                        fill(y0, &clipped, |q| q.y0);
                        fill(x1, &clipped, |q| q.x1);
                        fill(y1, &clipped, |q| q.y1);
                    }
                    PieceSegs::Rows(p) => {
                        if let Some(rows) = output(p, 4 * k) {
                            for (row, q) in rows.chunks_exact_mut(4).zip(&clipped) {
                                row.copy_from_slice(&[q.x0, q.y0, q.x1, q.y1]);
                            }
                        }
                    }
                }
            }
            Ok(())
        })
    })
}

/// Builds a grid of `nx × ny` closed cells over `[xmin, xmax] × [ymin, ymax]` into `*out`. The
/// boundaries are `xmin + (xmax − xmin)·i/nx` computed in `double` and rounded once, the ends
/// exact, shared by the cells on both sides. `half_open` nonzero makes the cells `[lo, hi)`
/// (closed at the grid's upper bounds), so a point on a line is in one cell only; `touches`
/// zero drops the pieces that are single points.
///
/// Errors: `SLABCLIP_ERR_RECT` for a bad rect; `SLABCLIP_ERR_ARGUMENT` for zero width or
/// height, a count of zero or above 2^24, or cells too narrow for the type;
/// `SLABCLIP_ERR_NULL` for `out == NULL`. On error `*out` is left as it was.
///
/// # Safety
///
/// `out` is `NULL` or points to a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_new_f32(
    xmin: f32,
    ymin: f32,
    xmax: f32,
    ymax: f32,
    nx: usize,
    ny: usize,
    half_open: c_int,
    touches: c_int,
    out: *mut *mut slabclip_grid_f32,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        new(
            "slabclip_grid_new_f32",
            [xmin, ymin, xmax, ymax],
            nx,
            ny,
            half_open,
            touches,
            out,
        )
    }
}

/// The `double` twin of `slabclip_grid_new_f32`.
///
/// # Safety
///
/// `out` is `NULL` or points to a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_new_f64(
    xmin: f64,
    ymin: f64,
    xmax: f64,
    ymax: f64,
    nx: usize,
    ny: usize,
    half_open: c_int,
    touches: c_int,
    out: *mut *mut slabclip_grid_f64,
) -> c_int {
    // SAFETY: as `slabclip_grid_new_f32`.
    unsafe {
        new(
            "slabclip_grid_new_f64",
            [xmin, ymin, xmax, ymax],
            nx,
            ny,
            half_open,
            touches,
            out,
        )
    }
}

/// Frees a grid; `NULL` is a no-op.
///
/// # Safety
///
/// `grid` is `NULL` or a grid from `slabclip_grid_new_f32` not yet freed, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_free_f32(grid: *mut slabclip_grid_f32) {
    // SAFETY: the caller's contract.
    unsafe { take(grid) }
}

/// Frees a grid; `NULL` is a no-op.
///
/// # Safety
///
/// `grid` is `NULL` or a grid from `slabclip_grid_new_f64` not yet freed, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_free_f64(grid: *mut slabclip_grid_f64) {
    // SAFETY: the caller's contract.
    unsafe { take(grid) }
}

/// The pieces of `n` segments (four columns) in the cells of `grid`: segment by segment, each
/// segment's pieces in order along it (consecutive pieces share `t` exactly: watertight).
///
/// Capacity protocol: the outputs hold `capacity` elements each (every one optional, `NULL`:
/// not written). The call writes the number of pieces to `*count`; when it is more than
/// `capacity` nothing else is written and the status is `SLABCLIP_ERR_CAPACITY`: call again
/// with outputs of at least `*count` elements (the second call does the work again; a
/// simulation can keep its buffers from step to step with some margin). `capacity = 0` with
/// `NULL` outputs asks for the count only.
///
/// Per piece: `segment` (the segment's index), `ix`, `iy` (the cell), `t_entry`, `t_exit` (the
/// clip against the cell), `classes` (never outside or invalid), and the clipped piece as four
/// columns `px0, py0, px1, py1` (all four or none). Segments with NaN or infinite coordinates
/// have no pieces.
///
/// # Safety
///
/// `grid` is a live grid; each input column holds `n` elements, each non-null output
/// `capacity`, and `count` one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_pieces_f32(
    grid: *const slabclip_grid_f32,
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    ix: *mut i64,
    iy: *mut i64,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    px0: *mut f32,
    py0: *mut f32,
    px1: *mut f32,
    py1: *mut f32,
    count: *mut usize,
) -> c_int {
    let outs = PieceOuts {
        segment,
        ix,
        iy,
        t_entry,
        t_exit,
        classes,
        clipped: PieceSegs::Columns([px0, py0, px1, py1]),
        count,
    };
    // SAFETY: the caller's contract.
    unsafe {
        pieces(
            "slabclip_grid_pieces_f32",
            grid,
            Segs::Columns([x0, y0, x1, y1]),
            n,
            capacity,
            outs,
        )
    }
}

/// The `double` twin of `slabclip_grid_pieces_f32`.
///
/// # Safety
///
/// As `slabclip_grid_pieces_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_pieces_f64(
    grid: *const slabclip_grid_f64,
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    ix: *mut i64,
    iy: *mut i64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    px0: *mut f64,
    py0: *mut f64,
    px1: *mut f64,
    py1: *mut f64,
    count: *mut usize,
) -> c_int {
    let outs = PieceOuts {
        segment,
        ix,
        iy,
        t_entry,
        t_exit,
        classes,
        clipped: PieceSegs::Columns([px0, py0, px1, py1]),
        count,
    };
    // SAFETY: the caller's contract.
    unsafe {
        pieces(
            "slabclip_grid_pieces_f64",
            grid,
            Segs::Columns([x0, y0, x1, y1]),
            n,
            capacity,
            outs,
        )
    }
}

/// `slabclip_grid_pieces_f32` for segments as `n` rows (`segments`, `4n` values); the clipped
/// pieces as rows too (`clipped`, `4 capacity` values, optional).
///
/// # Safety
///
/// `grid` is a live grid; `segments` holds `4n` elements, `clipped` (if non-null)
/// `4 capacity`, every other non-null output `capacity`, and `count` one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_pieces_rows_f32(
    grid: *const slabclip_grid_f32,
    segments: *const f32,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    ix: *mut i64,
    iy: *mut i64,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    clipped: *mut f32,
    count: *mut usize,
) -> c_int {
    let outs = PieceOuts {
        segment,
        ix,
        iy,
        t_entry,
        t_exit,
        classes,
        clipped: PieceSegs::Rows(clipped),
        count,
    };
    // SAFETY: the caller's contract.
    unsafe {
        pieces(
            "slabclip_grid_pieces_rows_f32",
            grid,
            Segs::Rows(segments),
            n,
            capacity,
            outs,
        )
    }
}

/// The `double` twin of `slabclip_grid_pieces_rows_f32`.
///
/// # Safety
///
/// As `slabclip_grid_pieces_rows_f32`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_grid_pieces_rows_f64(
    grid: *const slabclip_grid_f64,
    segments: *const f64,
    n: usize,
    capacity: usize,
    segment: *mut i64,
    ix: *mut i64,
    iy: *mut i64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    clipped: *mut f64,
    count: *mut usize,
) -> c_int {
    let outs = PieceOuts {
        segment,
        ix,
        iy,
        t_entry,
        t_exit,
        classes,
        clipped: PieceSegs::Rows(clipped),
        count,
    };
    // SAFETY: the caller's contract.
    unsafe {
        pieces(
            "slabclip_grid_pieces_rows_f64",
            grid,
            Segs::Rows(segments),
            n,
            capacity,
            outs,
        )
    }
}
