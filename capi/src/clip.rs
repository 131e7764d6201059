//! The clip of SPEC §1: segments (columns or rows) against one rect, one rect per segment, or a
//! convex polygon, through `Algorithm::Auto` (large batches split over rayon's pool, the same
//! bits at any thread count).

use std::ffi::c_int;

use slabclip::cast::clip_polygon;
use slabclip::{Algorithm, ClipOutput, ConvexPolygon, Error, Real};
use slabclip::{Segments, SegmentsMut};

use crate::{
    about, guard, input, input_cols, output, rect, rect_rows, rows_len, Cols, Fail, Spans,
    SEGMENT_COLUMNS, SLABCLIP_ERR_NULL,
};

/// Where the clipped segments go: four columns (all or none given), or `n × 4` rows.
pub(crate) enum Clipped<F> {
    Columns([*mut F; 4]),
    Rows(*mut F),
}

/// The optional outputs of a clip, as the caller passed them.
pub(crate) struct ClipOuts<F> {
    pub(crate) t_entry: *mut F,
    pub(crate) t_exit: *mut F,
    pub(crate) classes: *mut u8,
    pub(crate) clipped: Clipped<F>,
}

impl<F: Real> ClipOuts<F> {
    /// Registers every given output of `n` values (`n × 4` for clipped rows).
    pub(crate) fn register(&self, spans: &mut Spans, n: usize) -> Result<(), Fail> {
        spans
            .output("t_entry", self.t_entry, n)?
            .output("t_exit", self.t_exit, n)?
            .output("classes", self.classes, n)?;
        match self.clipped {
            Clipped::Columns(c) => {
                let names = ["cx0", "cy0", "cx1", "cy1"];
                if c.iter().any(|p| p.is_null()) && c.iter().any(|p| !p.is_null()) {
                    let missing = names[c.iter().position(|p| p.is_null()).unwrap_or(0)];
                    return Err(Fail::new(
                        SLABCLIP_ERR_NULL,
                        format!(
                            "the clipped columns cx0, cy0, cx1, cy1 are given all four or none, \
                             but {missing} is NULL"
                        ),
                    ));
                }
                for (name, p) in names.into_iter().zip(c) {
                    spans.output(name, p, n)?;
                }
            }
            Clipped::Rows(p) => {
                spans.output("clipped", p, rows_len("clipped", n, 4)?)?;
            }
        }
        Ok(())
    }

    /// Runs `clip` into the given outputs (clipped rows through columns, interleaved after).
    ///
    /// # Safety
    ///
    /// The outputs were registered with `n` in a [`Spans`] that was found disjoint, and hold
    /// what the header says.
    pub(crate) unsafe fn run(
        self,
        n: usize,
        clip: impl FnOnce(&mut ClipOutput<'_, F>) -> Result<(), Error>,
    ) -> Result<(), Fail> {
        // SAFETY: the outputs were registered with these lengths in a `Spans` found disjoint
        // (this function's contract).
        let (t_entry, t_exit, class, cols, rows) = unsafe {
            let (cols, rows) = match self.clipped {
                Clipped::Columns(c) => (c.map(|p| output(p, n)), None),
                Clipped::Rows(p) => ([None, None, None, None], output(p, 4 * n)),
            };
            let t = (output(self.t_entry, n), output(self.t_exit, n));
            (t.0, t.1, output(self.classes, n), cols, rows)
        };
        // Clipped rows are clipped into columns first, then interleaved.
        let mut columns = Segments::new();
        let segments = match (cols, &rows) {
            ([Some(x0), Some(y0), Some(x1), Some(y1)], _) => {
                Some(SegmentsMut::new(x0, y0, x1, y1)?)
            }
            (_, Some(_)) => {
                columns = Segments::nan(n);
                Some(columns.as_mut())
            }
            _ => None,
        };
        clip(&mut ClipOutput {
            t_entry,
            t_exit,
            class,
            segments,
        })?;
        if let Some(rows) = rows {
            let (x0, y0, x1, y1) = columns.as_ref().columns();
            for (i, row) in rows.chunks_exact_mut(4).enumerate() {
                row.copy_from_slice(&[x0[i], y0[i], x1[i], y1[i]]);
            }
        }
        Ok(())
    }
}

/// The segments of a call: four columns or `n × 4` rows.
pub(crate) enum Segs<F> {
    Columns(Cols<F>),
    Rows(*const F),
}

impl<F: Real> Segs<F> {
    pub(crate) fn register(&self, spans: &mut Spans, n: usize) -> Result<(), Fail> {
        match *self {
            Segs::Columns(c) => input_cols(spans, SEGMENT_COLUMNS, c, n),
            Segs::Rows(p) => spans
                .input("segments", p, rows_len("segments", n, 4)?)
                .map(|_| ()),
        }
    }
}

/// Calls `body` with the segments as the library's source, columns or rows.
macro_rules! with_source {
    ($segs:expr, $n:expr, |$s:ident| $body:expr) => {
        match $segs {
            Segs::Columns(c) => {
                // SAFETY: registered with `n` and disjoint from every output (the caller's
                // checks).
                let $s = &unsafe { $crate::cols_ref(c, $n) };
                $body
            }
            Segs::Rows(p) => {
                // SAFETY: registered with `4n` values and disjoint from every output (the
                // caller's checks).
                let values = unsafe { $crate::input(p, 4 * $n) };
                let $s = slabclip::rows_from_interleaved(values)?;
                $body
            }
        }
    };
}
pub(crate) use with_source;

/// What the segments are clipped against.
enum Against<F> {
    Rect([F; 4]),
    /// `n × 4` rows `xmin, ymin, xmax, ymax`.
    Pairwise(*const F),
    /// `nv` vertices `x, y`.
    Polygon(*const F, usize),
}

/// The clip of every segment, any shape, into `outs`.
///
/// # Safety
///
/// Every non-null pointer holds the values the header says.
unsafe fn clip<F: Real>(
    func: &'static str,
    segs: Segs<F>,
    n: usize,
    against: Against<F>,
    outs: ClipOuts<F>,
) -> c_int {
    guard(func, || {
        let mut spans = Spans::default();
        segs.register(&mut spans, n)?;
        match against {
            Against::Rect(_) => {}
            Against::Pairwise(p) => {
                spans.input("rects", p, rows_len("rects", n, 4)?)?;
            }
            Against::Polygon(p, nv) => {
                spans.input("vertices", p, rows_len("vertices", nv, 2)?)?;
            }
        }
        outs.register(&mut spans, n)?;
        spans.disjoint()?;
        match against {
            Against::Rect(b) => {
                let r = rect("rect", b)?;
                // SAFETY: every buffer registered and disjoint above.
                with_source!(segs, n, |s| unsafe {
                    outs.run(n, |out| Algorithm::Auto.clip(&r, s, out))
                })
            }
            Against::Pairwise(p) => {
                // SAFETY: registered above.
                let rects = rect_rows("rects", unsafe { input(p, 4 * n) })?;
                // SAFETY: every buffer registered and disjoint above.
                with_source!(segs, n, |s| unsafe {
                    outs.run(n, |out| Algorithm::Auto.clip_pairwise(&rects, s, out))
                })
            }
            Against::Polygon(p, nv) => {
                // SAFETY: registered above.
                let v = unsafe { input(p, 2 * nv) };
                let v: Vec<(F, F)> = v.chunks_exact(2).map(|v| (v[0], v[1])).collect();
                let poly = ConvexPolygon::new(&v).map_err(about("vertices"))?;
                // SAFETY: every buffer registered and disjoint above.
                with_source!(segs, n, |s| unsafe {
                    outs.run(n, |out| clip_polygon(&poly, s, out))
                })
            }
        }
    })
}

fn columns_out<F>(cx0: *mut F, cy0: *mut F, cx1: *mut F, cy1: *mut F) -> Clipped<F> {
    Clipped::Columns([cx0, cy0, cx1, cy1])
}

/// Clips `n` segments, given as four columns `x0, y0, x1, y1`, against the closed rect
/// `[xmin, xmax] × [ymin, ymax]`.
///
/// Outputs, each optional (`NULL`: not computed) and `n` long: `t_entry`, `t_exit` (NaN on a
/// miss or an invalid segment), `classes` (the `SLABCLIP_CLASS_` codes), and the clipped
/// segments as four columns `cx0, cy0, cx1, cy1` (all four or none; a row of NaN on a miss). An
/// endpoint inside comes back bit for bit; a cut endpoint lies exactly on the edge that cut it.
///
/// Errors: `SLABCLIP_ERR_RECT` for a NaN or infinite bound or `min > max`; `SLABCLIP_ERR_NULL`
/// for a `NULL` column with `n > 0` or a partial set of clipped columns.
///
/// # Safety
///
/// Each non-null pointer holds `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_f32(
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    n: usize,
    xmin: f32,
    ymin: f32,
    xmax: f32,
    ymax: f32,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    cx0: *mut f32,
    cy0: *mut f32,
    cx1: *mut f32,
    cy1: *mut f32,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: columns_out(cx0, cy0, cx1, cy1),
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_f32",
            segs,
            n,
            Against::Rect([xmin, ymin, xmax, ymax]),
            outs,
        )
    }
}

/// The `double` twin of `slabclip_clip_f32`.
///
/// # Safety
///
/// Each non-null pointer holds `n` elements.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_f64(
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    n: usize,
    xmin: f64,
    ymin: f64,
    xmax: f64,
    ymax: f64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    cx0: *mut f64,
    cy0: *mut f64,
    cx1: *mut f64,
    cy1: *mut f64,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: columns_out(cx0, cy0, cx1, cy1),
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_f64",
            segs,
            n,
            Against::Rect([xmin, ymin, xmax, ymax]),
            outs,
        )
    }
}

/// `slabclip_clip_f32` for segments as `n` interleaved rows `x0, y0, x1, y1` (`segments` holds
/// `4n` values, an `n × 4` C-order array): the clipped segments come back as rows too
/// (`clipped`, `4n` values, optional).
///
/// # Safety
///
/// `segments` and a non-null `clipped` hold `4n` elements, the other non-null pointers `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_rows_f32(
    segments: *const f32,
    n: usize,
    xmin: f32,
    ymin: f32,
    xmax: f32,
    ymax: f32,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    clipped: *mut f32,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: Clipped::Rows(clipped),
    };
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_rows_f32",
            Segs::Rows(segments),
            n,
            Against::Rect([xmin, ymin, xmax, ymax]),
            outs,
        )
    }
}

/// The `double` twin of `slabclip_clip_rows_f32`.
///
/// # Safety
///
/// `segments` and a non-null `clipped` hold `4n` elements, the other non-null pointers `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_rows_f64(
    segments: *const f64,
    n: usize,
    xmin: f64,
    ymin: f64,
    xmax: f64,
    ymax: f64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    clipped: *mut f64,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: Clipped::Rows(clipped),
    };
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_rows_f64",
            Segs::Rows(segments),
            n,
            Against::Rect([xmin, ymin, xmax, ymax]),
            outs,
        )
    }
}

/// Clips segment `i` (four columns) against rect `i` (pairwise): `rects` holds `n` rows
/// `xmin, ymin, xmax, ymax`. Outputs as `slabclip_clip_f32`.
///
/// Errors: `SLABCLIP_ERR_RECT` naming the first bad row of `rects`.
///
/// # Safety
///
/// `rects` holds `4n` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_pairwise_f32(
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    n: usize,
    rects: *const f32,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    cx0: *mut f32,
    cy0: *mut f32,
    cx1: *mut f32,
    cy1: *mut f32,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: columns_out(cx0, cy0, cx1, cy1),
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_pairwise_f32",
            segs,
            n,
            Against::Pairwise(rects),
            outs,
        )
    }
}

/// The `double` twin of `slabclip_clip_pairwise_f32`.
///
/// # Safety
///
/// `rects` holds `4n` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_pairwise_f64(
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    n: usize,
    rects: *const f64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    cx0: *mut f64,
    cy0: *mut f64,
    cx1: *mut f64,
    cy1: *mut f64,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: columns_out(cx0, cy0, cx1, cy1),
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_pairwise_f64",
            segs,
            n,
            Against::Pairwise(rects),
            outs,
        )
    }
}

/// `slabclip_clip_pairwise_f32` for segments as `n` rows (`4n` values); clipped segments as
/// rows (`clipped`, `4n` values, optional).
///
/// # Safety
///
/// `segments`, `rects` and a non-null `clipped` hold `4n` elements, the other non-null
/// pointers `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_pairwise_rows_f32(
    segments: *const f32,
    n: usize,
    rects: *const f32,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    clipped: *mut f32,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: Clipped::Rows(clipped),
    };
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_pairwise_rows_f32",
            Segs::Rows(segments),
            n,
            Against::Pairwise(rects),
            outs,
        )
    }
}

/// The `double` twin of `slabclip_clip_pairwise_rows_f32`.
///
/// # Safety
///
/// `segments`, `rects` and a non-null `clipped` hold `4n` elements, the other non-null
/// pointers `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_pairwise_rows_f64(
    segments: *const f64,
    n: usize,
    rects: *const f64,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    clipped: *mut f64,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: Clipped::Rows(clipped),
    };
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_pairwise_rows_f64",
            Segs::Rows(segments),
            n,
            Against::Pairwise(rects),
            outs,
        )
    }
}

/// Clips `n` segments (four columns) against the convex polygon of `nv` vertices (`vertices`:
/// `nv` rows `x, y`, either orientation), Cyrus–Beck: the contract of the rect clip with the
/// polygon for the rect. Outputs as `slabclip_clip_f32`.
///
/// Errors: `SLABCLIP_ERR_ARGUMENT` for a polygon that is not convex, has fewer than three
/// distinct vertices or a non-finite one (the message names the vertex).
///
/// # Safety
///
/// `vertices` holds `2 nv` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_polygon_f32(
    x0: *const f32,
    y0: *const f32,
    x1: *const f32,
    y1: *const f32,
    n: usize,
    vertices: *const f32,
    nv: usize,
    t_entry: *mut f32,
    t_exit: *mut f32,
    classes: *mut u8,
    cx0: *mut f32,
    cy0: *mut f32,
    cx1: *mut f32,
    cy1: *mut f32,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: columns_out(cx0, cy0, cx1, cy1),
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_polygon_f32",
            segs,
            n,
            Against::Polygon(vertices, nv),
            outs,
        )
    }
}

/// The `double` twin of `slabclip_clip_polygon_f32`.
///
/// # Safety
///
/// `vertices` holds `2 nv` elements, every other non-null pointer `n`.
#[no_mangle]
pub unsafe extern "C" fn slabclip_clip_polygon_f64(
    x0: *const f64,
    y0: *const f64,
    x1: *const f64,
    y1: *const f64,
    n: usize,
    vertices: *const f64,
    nv: usize,
    t_entry: *mut f64,
    t_exit: *mut f64,
    classes: *mut u8,
    cx0: *mut f64,
    cy0: *mut f64,
    cx1: *mut f64,
    cy1: *mut f64,
) -> c_int {
    let outs = ClipOuts {
        t_entry,
        t_exit,
        classes,
        clipped: columns_out(cx0, cy0, cx1, cy1),
    };
    let segs = Segs::Columns([x0, y0, x1, y1]);
    // SAFETY: the caller's contract.
    unsafe {
        clip(
            "slabclip_clip_polygon_f64",
            segs,
            n,
            Against::Polygon(vertices, nv),
            outs,
        )
    }
}
