//! `slabclip._native`: the library's batch calls on numpy arrays, for the Python package.
//!
//! The Python layer (`slabclip/__init__.py`) turns whatever the user passed into the arrays
//! these functions take: segments as one C-contiguous `(N, 4)` array or four contiguous 1-D
//! columns, all of `float32` or all of `float64`, and every requested output allocated (or
//! given by the user) with the input's length and dtype. Here the arrays are only borrowed:
//! inputs are read in place (`&[F]`, rows through `rows_from_interleaved`), outputs written in
//! place, and the kernels run with the GIL released, inside a rayon pool of `threads` threads
//! when asked (`threads=1`: the calling thread alone). Every check is repeated here (dtype,
//! shape, contiguity, writeability, lengths), so no call from Python can reach a kernel with a
//! wrong buffer; library errors become `ValueError` with the library's message, a wrong dtype a
//! `TypeError`.

use std::sync::{Arc, Mutex};

mod geometries;
mod lines;
mod scene;

use numpy::prelude::*;
use numpy::{
    Element, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
    PyReadwriteArray2, PyUntypedArray,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rayon::prelude::*;
use slabclip::cast::{
    cast_polygon, cast_rect, cast_rects, cast_segments_with, clip_polygon, CastMethod,
    PolygonCastOutput, RectCastOutput, SegmentsCastOutput,
};
use slabclip::{
    rows_from_interleaved, Algorithm, Class, ClipOutput, ConvexPolygon, Error, Grid, GridOptions,
    InsideMode, Lines, Rays, RaysRef, Real, Rect, RectSet, Segment, SegmentSource, Segments,
    SegmentsMut, SegmentsRef, PARALLEL_MIN,
};

/// A library error as the Python exception the package documents: `ValueError`, same message.
fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Whether `obj` (an array, or a sequence whose first item is one) holds `float64`; `float32`
/// gives false and anything else a `TypeError`.
fn is_f64(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let first = if let Ok(t) = obj.downcast::<PyTuple>() {
        t.get_item(0)?
    } else if let Ok(l) = obj.downcast::<PyList>() {
        l.get_item(0)?
    } else {
        obj.clone()
    };
    let arr = first.downcast::<PyUntypedArray>()?;
    let py = obj.py();
    let dt = arr.dtype();
    if dt.is_equiv_to(&numpy::dtype::<f64>(py)) {
        Ok(true)
    } else if dt.is_equiv_to(&numpy::dtype::<f32>(py)) {
        Ok(false)
    } else {
        Err(PyTypeError::new_err(format!(
            "expected float32 or float64 arrays, got {dt}"
        )))
    }
}

/// The most threads `threads=` may ask for: a fixed cap, so that a script that runs on one
/// machine runs on every other (`slabclip.MAX_THREADS`).
const MAX_THREADS: usize = 256;

/// Runs `f` on the calling thread (rayon's global pool for `auto`'s splits); with
/// `threads = Some(1)` on the calling thread alone (no hand-off to a pool thread and back:
/// see `slabclip::threads`); with `threads = Some(n)` inside a pool of `n` threads.
///
/// Only the pool of the last `n` asked for is kept: a call with another `n` builds its own and
/// puts it in the old one's place, whose threads end once no call is running in it. So the
/// threads a process holds are those of its last pool (and of pools still in use by calls on
/// other Python threads), however many different counts it asked for; a call that repeats
/// the last count costs no pool.
fn in_pool<R: Send>(threads: Option<usize>, f: impl FnOnce() -> R + Send) -> PyResult<R> {
    static LAST: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let n = match threads {
        None => return Ok(f()),
        Some(n) if !(1..=MAX_THREADS).contains(&n) => {
            return Err(value_err(format!(
                "threads must be an integer from 1 to {MAX_THREADS}, got {n}"
            )))
        }
        Some(1) => return Ok(slabclip::on_calling_thread(f)),
        Some(n) => n,
    };
    let pool = {
        let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
        match &*last {
            Some((k, p)) if *k == n => Arc::clone(p),
            _ => {
                let p = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| value_err(format!("cannot start {n} threads: {e}")))?;
                let p = Arc::new(p);
                // The old pool is dropped here unless a call still runs in it.
                *last = Some((n, Arc::clone(&p)));
                p
            }
        }
    };
    Ok(pool.install(f))
}

/// A rect from `(xmin, ymin, xmax, ymax)`, rounded to `F` as the command line does.
fn rect_of<F: Real>(b: [f64; 4]) -> PyResult<Rect<F>> {
    let [xmin, ymin, xmax, ymax] = b.map(F::from_f64);
    Rect::new(xmin, ymin, xmax, ymax).map_err(value_err)
}

/// `(M, 4)` rows of rects; the error names the row.
fn rects_of<F: Real + Element>(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Rect<F>>> {
    let arr: PyReadonlyArray2<'_, F> = obj.extract()?;
    let v = rows4(&arr, "rects")?;
    v.chunks_exact(4)
        .enumerate()
        .map(|(i, r)| {
            Rect::new(r[0], r[1], r[2], r[3]).map_err(|e| value_err(format!("rects row {i}: {e}")))
        })
        .collect()
}

/// The values of a C-contiguous `(N, 4)` array.
fn rows4<'a, F: Element>(arr: &'a PyReadonlyArray2<'_, F>, what: &str) -> PyResult<&'a [F]> {
    if arr.shape()[1] != 4 {
        return Err(value_err(format!(
            "{what} must have shape (N, 4), got {:?}",
            arr.shape()
        )));
    }
    arr.as_slice()
        .map_err(|_| value_err(format!("{what} must be C-contiguous")))
}

/// A 1-D input column, contiguous.
fn col<'a, F: Element>(arr: &'a PyReadonlyArray1<'_, F>, what: &str) -> PyResult<&'a [F]> {
    arr.as_slice()
        .map_err(|_| value_err(format!("{what} must be contiguous")))
}

/// Segments (or rays) as given: one `(N, 4)` array or four 1-D columns.
enum Input<'py, F: Element> {
    Rows(PyReadonlyArray2<'py, F>),
    Cols(Vec<PyReadonlyArray1<'py, F>>),
}

impl<'py, F: Real + Element> Input<'py, F> {
    fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if obj.downcast::<PyUntypedArray>().is_ok() {
            return Ok(Input::Rows(obj.extract()?));
        }
        let cols: Vec<Bound<'py, PyAny>> = obj.extract()?;
        if cols.len() != 4 {
            return Err(value_err(format!(
                "{what} as columns must be 4 arrays, got {}",
                cols.len()
            )));
        }
        Ok(Input::Cols(
            cols.iter().map(|c| c.extract()).collect::<PyResult<_>>()?,
        ))
    }

    fn view(&self, what: &str) -> PyResult<View<'_, F>> {
        match self {
            Input::Rows(a) => Ok(View::Rows(
                rows_from_interleaved(rows4(a, what)?).map_err(value_err)?,
            )),
            Input::Cols(c) => {
                let names = ["x0", "y0", "x1", "y1"];
                let s: Vec<&[F]> = c
                    .iter()
                    .zip(names)
                    .map(|(a, n)| col(a, n))
                    .collect::<PyResult<_>>()?;
                Ok(View::Cols(
                    SegmentsRef::new(s[0], s[1], s[2], s[3]).map_err(value_err)?,
                ))
            }
        }
    }
}

/// The borrowed input: rows in place, or the four columns (the SIMD kernels' own layout).
#[derive(Clone, Copy)]
enum View<'a, F> {
    Rows(&'a [Segment<F>]),
    Cols(SegmentsRef<'a, F>),
}

impl<'a, F: Real> View<'a, F> {
    fn len(&self) -> usize {
        match self {
            View::Rows(r) => r.len(),
            View::Cols(c) => c.len(),
        }
    }
}

/// Runs `$body` with `$s` bound to the view's concrete source type (no dynamic dispatch in the
/// kernels' per-segment loads).
macro_rules! with_source {
    ($view:expr, $s:ident => $body:expr) => {
        match $view {
            View::Rows($s) => $body,
            View::Cols(ref c) => {
                let $s = c;
                $body
            }
        }
    };
}

/// A writeable 1-D output array, borrowed exclusively.
fn out1<'py, T: Element>(
    obj: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<Option<PyReadwriteArray1<'py, T>>> {
    obj.map(|o| {
        let a = o.downcast::<PyArray1<T>>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{what} must be a 1-D {} array",
                std::any::type_name::<T>()
            ))
        })?;
        a.try_readwrite().map_err(|e| {
            value_err(format!(
                "{what} overlaps an input or another output ({e}): every output must be an \
                 array of its own"
            ))
        })
    })
    .transpose()
}

/// The mutable slice of an output, which must be contiguous.
fn slice_mut<'a, T: Element>(
    a: &'a mut Option<PyReadwriteArray1<'_, T>>,
    what: &str,
) -> PyResult<Option<&'a mut [T]>> {
    a.as_mut()
        .map(|a| {
            a.as_slice_mut()
                .map_err(|_| value_err(format!("{what} must be contiguous")))
        })
        .transpose()
}

/// Four writeable columns for clipped segments.
fn out_cols<'py, F: Element>(
    obj: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Vec<PyReadwriteArray1<'py, F>>>> {
    let Some(obj) = obj else { return Ok(None) };
    let cols: Vec<Bound<'py, PyAny>> = obj.extract()?;
    if cols.len() != 4 {
        return Err(value_err("clipped segments must be 4 columns"));
    }
    let names = ["segments x0", "segments y0", "segments x1", "segments y1"];
    Ok(Some(
        cols.iter()
            .zip(names)
            .map(|(c, n)| out1::<F>(Some(c), n).map(|a| a.expect("given")))
            .collect::<PyResult<_>>()?,
    ))
}

fn segs_mut<'a, F: Real + Element>(
    cols: &'a mut Option<Vec<PyReadwriteArray1<'_, F>>>,
) -> PyResult<Option<SegmentsMut<'a, F>>> {
    let Some(cols) = cols.as_mut() else {
        return Ok(None);
    };
    let mut s: Vec<&mut [F]> = Vec::with_capacity(4);
    for c in cols.iter_mut() {
        s.push(
            c.as_slice_mut()
                .map_err(|_| value_err("segments output columns must be contiguous"))?,
        );
    }
    let mut it = s.into_iter();
    let mut next = || it.next().expect("four columns");
    Ok(Some(
        SegmentsMut::new(next(), next(), next(), next()).map_err(value_err)?,
    ))
}

/// The four clip outputs as the Python layer passes them.
struct ClipOuts<'py, F: Element> {
    t_entry: Option<PyReadwriteArray1<'py, F>>,
    t_exit: Option<PyReadwriteArray1<'py, F>>,
    class: Option<PyReadwriteArray1<'py, u8>>,
    segments: Option<Vec<PyReadwriteArray1<'py, F>>>,
}

impl<'py, F: Real + Element> ClipOuts<'py, F> {
    fn extract(
        t_entry: Option<&Bound<'py, PyAny>>,
        t_exit: Option<&Bound<'py, PyAny>>,
        class: Option<&Bound<'py, PyAny>>,
        segments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        Ok(ClipOuts {
            t_entry: out1(t_entry, "t_entry")?,
            t_exit: out1(t_exit, "t_exit")?,
            class: out1(class, "class")?,
            segments: out_cols(segments)?,
        })
    }

    fn output(&mut self) -> PyResult<ClipOutput<'_, F>> {
        Ok(ClipOutput {
            t_entry: slice_mut(&mut self.t_entry, "t_entry")?,
            t_exit: slice_mut(&mut self.t_exit, "t_exit")?,
            class: slice_mut(&mut self.class, "class")?,
            segments: segs_mut(&mut self.segments)?,
        })
    }
}

/// Clips every segment by one rect into the given outputs (`slabclip.clip`).
#[pyfunction]
#[pyo3(signature = (segments, rect, algorithm, t_entry=None, t_exit=None, class_=None, clipped=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn clip<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rect: [f64; 4],
    algorithm: &str,
    t_entry: Option<&Bound<'py, PyAny>>,
    t_exit: Option<&Bound<'py, PyAny>>,
    class_: Option<&Bound<'py, PyAny>>,
    clipped: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<()> {
    let outs = [t_entry, t_exit, class_, clipped];
    clip_by(py, segments, RectArg::One(rect), algorithm, outs, threads)
}

/// Clips segment `i` by rect `i` (`slabclip.clip_pairwise`).
#[pyfunction]
#[pyo3(signature = (segments, rects, algorithm, t_entry=None, t_exit=None, class_=None, clipped=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn clip_pairwise<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rects: &Bound<'py, PyAny>,
    algorithm: &str,
    t_entry: Option<&Bound<'py, PyAny>>,
    t_exit: Option<&Bound<'py, PyAny>>,
    class_: Option<&Bound<'py, PyAny>>,
    clipped: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<()> {
    let outs = [t_entry, t_exit, class_, clipped];
    clip_by(py, segments, RectArg::Each(rects), algorithm, outs, threads)
}

/// The rect argument of `clip` (one rect) or `clip_pairwise` (one per segment), as given.
enum RectArg<'a, 'py> {
    One([f64; 4]),
    Each(&'a Bound<'py, PyAny>),
}

/// `clip` and `clip_pairwise`: the rects and the segments checked and converted (in that order),
/// then the batch clipped with the GIL released, in `threads` threads.
fn clip_by<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rects: RectArg<'_, 'py>,
    algorithm: &str,
    outs: [Option<&Bound<'py, PyAny>>; 4],
    threads: Option<usize>,
) -> PyResult<()> {
    fn run<F: Real + Element>(
        py: Python<'_>,
        segments: &Bound<'_, PyAny>,
        rects: RectArg<'_, '_>,
        algorithm: Algorithm,
        outs: [Option<&Bound<'_, PyAny>>; 4],
        threads: Option<usize>,
    ) -> PyResult<()> {
        enum Rects<F> {
            One(Rect<F>),
            Each(Vec<Rect<F>>),
        }
        let rects = match rects {
            RectArg::One(r) => Rects::One(rect_of::<F>(r)?),
            RectArg::Each(r) => Rects::Each(rects_of::<F>(r)?),
        };
        let input = Input::<F>::extract(segments, "segments")?;
        let view = input.view("segments")?;
        let mut outs = ClipOuts::<F>::extract(outs[0], outs[1], outs[2], outs[3])?;
        let mut out = outs.output()?;
        py.allow_threads(|| {
            in_pool(threads, || {
                with_source!(view, s => match &rects {
                    Rects::One(r) => algorithm.clip(r, s, &mut out),
                    Rects::Each(r) => algorithm.clip_pairwise(r, s, &mut out),
                })
            })
        })?
        .map_err(value_err)
    }
    let algorithm = Algorithm::from_name(algorithm).map_err(value_err)?;
    if is_f64(segments)? {
        run::<f64>(py, segments, rects, algorithm, outs, threads)
    } else {
        run::<f32>(py, segments, rects, algorithm, outs, threads)
    }
}

/// Every non-empty clip of N segments by M rects, as a dict of columns `segment`, `rect`,
/// `t_entry`, `t_exit`, `class`, ordered by segment, then rect: every rect tried for every
/// segment (`slabclip.clip_grid`), or through the rect set's broad phase with `broad_phase`
/// (`slabclip.clip_rect_set`: the same rows and bits, at a cost of N + M + hits).
#[pyfunction]
#[pyo3(signature = (segments, rects, algorithm, broad_phase, threads=None))]
fn clip_rects<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rects: &Bound<'py, PyAny>,
    algorithm: &str,
    broad_phase: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    fn run<'py, F: Real + Element>(
        py: Python<'py>,
        segments: &Bound<'py, PyAny>,
        rects: &Bound<'py, PyAny>,
        algorithm: Algorithm,
        broad_phase: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rects = rects_of::<F>(rects)?;
        let input = Input::<F>::extract(segments, "segments")?;
        let view = input.view("segments")?;
        let hits = py
            .allow_threads(|| {
                in_pool(threads, || {
                    if !broad_phase {
                        return Ok(with_source!(view, s => algorithm.clip_grid(&rects, s)));
                    }
                    let set = RectSet::new(rects)?;
                    Ok::<_, Error>(with_source!(view, s => algorithm.clip_rect_set(&set, s)))
                })
            })?
            .map_err(value_err)?;
        let d = PyDict::new(py);
        let col = |f: &dyn Fn(&slabclip::Hit<F>) -> i64| hits.iter().map(f).collect::<Vec<_>>();
        d.set_item(
            "segment",
            PyArray1::from_vec(py, col(&|h| h.segment as i64)),
        )?;
        d.set_item("rect", PyArray1::from_vec(py, col(&|h| h.rect as i64)))?;
        let t = |f: &dyn Fn(&slabclip::Hit<F>) -> F| hits.iter().map(f).collect::<Vec<F>>();
        d.set_item("t_entry", PyArray1::from_vec(py, t(&|h| h.t_entry)))?;
        d.set_item("t_exit", PyArray1::from_vec(py, t(&|h| h.t_exit)))?;
        let class: Vec<u8> = hits.iter().map(|h| h.class as u8).collect();
        d.set_item("class", PyArray1::from_vec(py, class))?;
        Ok(d)
    }
    let algorithm = Algorithm::from_name(algorithm).map_err(value_err)?;
    if is_f64(segments)? {
        run::<f64>(py, segments, rects, algorithm, broad_phase, threads)
    } else {
        run::<f32>(py, segments, rects, algorithm, broad_phase, threads)
    }
}

/// The pieces of every segment in the cells of a regular grid (`slabclip.grid_pieces`): columns
/// `segment`, `ix`, `iy` (int64), `t_entry`, `t_exit` (the segments' dtype), `class` (uint8),
/// in segment order and along each segment, as `slabclip clip --grid` writes them.
#[pyfunction]
#[pyo3(signature = (segments, bounds, cells, half_open, touches, threads=None))]
fn grid_pieces<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    bounds: [f64; 4],
    cells: [usize; 2],
    half_open: bool,
    touches: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    fn run<'py, F: Real + Element>(
        py: Python<'py>,
        segments: &Bound<'py, PyAny>,
        bounds: [f64; 4],
        [nx, ny]: [usize; 2],
        options: GridOptions,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let what = |e: Error| {
            value_err(format!(
                "grid {bounds:?} with {nx} x {ny} cells does not fit {}, the segments' dtype: {e}",
                F::DTYPE
            ))
        };
        let grid = Grid::new(rect_of::<F>(bounds)?, nx, ny).map_err(what)?;
        let input = Input::<F>::extract(segments, "segments")?;
        let view = input.view("segments")?;
        let c = py.allow_threads(|| {
            in_pool(
                threads,
                || with_source!(view, s => grid.piece_columns(s, &options)),
            )
        })?;
        let d = PyDict::new(py);
        d.set_item("segment", PyArray1::from_vec(py, c.segment))?;
        d.set_item("ix", PyArray1::from_vec(py, c.ix))?;
        d.set_item("iy", PyArray1::from_vec(py, c.iy))?;
        d.set_item("t_entry", PyArray1::from_vec(py, c.t_entry))?;
        d.set_item("t_exit", PyArray1::from_vec(py, c.t_exit))?;
        d.set_item("class", PyArray1::from_vec(py, c.class))?;
        Ok(d)
    }
    let options = GridOptions {
        lines: if half_open {
            Lines::HalfOpen
        } else {
            Lines::Closed
        },
        touches,
    };
    if is_f64(segments)? {
        run::<f64>(py, segments, bounds, cells, options, threads)
    } else {
        run::<f32>(py, segments, bounds, cells, options, threads)
    }
}

/// Segments per block when clipping `(N, 4)` rows in place: each block is copied aside,
/// clipped from the copy and written back, as the library's `clip_in_place` does for columns.
const IN_PLACE_BLOCK: usize = 2048;

/// In-place clipping of interleaved rows (the library's in-place shape takes columns): blocks
/// spread over the pool when `auto` would split the batch, else one after another.
fn in_place_rows<F: Real>(
    algorithm: Algorithm,
    rect: &Rect<F>,
    rows: &mut [Segment<F>],
    class: Option<&mut [u8]>,
) -> Result<(), Error> {
    let n = rows.len();
    if let Some(c) = &class {
        if c.len() != n {
            return Err(Error::LengthMismatch {
                what: "class",
                expected: n,
                found: c.len(),
            });
        }
    }
    let blocks = n.div_ceil(IN_PLACE_BLOCK);
    let mut classes: Vec<Option<&mut [u8]>> = match class {
        Some(c) => c.chunks_mut(IN_PLACE_BLOCK).map(Some).collect(),
        None => (0..blocks).map(|_| None).collect(),
    };
    let run = |(rows, class): (&mut [Segment<F>], &mut Option<&mut [u8]>)| {
        let mut clipped = Segments::nan(rows.len());
        let mut out = ClipOutput {
            class: class.take(),
            segments: Some(clipped.as_mut()),
            ..Default::default()
        };
        algorithm.clip(rect, &*rows, &mut out)?;
        for (i, r) in rows.iter_mut().enumerate() {
            *r = clipped.segment(i);
        }
        Ok(())
    };
    if algorithm == Algorithm::Auto && n >= PARALLEL_MIN {
        rows.par_chunks_mut(IN_PLACE_BLOCK)
            .zip(classes.par_iter_mut())
            .try_for_each(run)
    } else {
        rows.chunks_mut(IN_PLACE_BLOCK)
            .zip(classes.iter_mut())
            .try_for_each(run)
    }
}

/// Clips segments by one rect and writes the clipped segments over them (`slabclip.clip_in_place`).
#[pyfunction]
#[pyo3(signature = (segments, rect, algorithm, class_=None, threads=None))]
fn clip_in_place<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rect: [f64; 4],
    algorithm: &str,
    class_: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<()> {
    fn run<F: Real + Element>(
        py: Python<'_>,
        segments: &Bound<'_, PyAny>,
        rect: [f64; 4],
        algorithm: Algorithm,
        class: Option<&Bound<'_, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        let rect = rect_of::<F>(rect)?;
        let mut class = out1::<u8>(class, "class")?;
        let class = slice_mut(&mut class, "class")?;
        if let Ok(a) = segments.downcast::<PyArray2<F>>() {
            let mut a: PyReadwriteArray2<'_, F> = a
                .try_readwrite()
                .map_err(|e| value_err(format!("segments: {e}")))?;
            if a.shape()[1] != 4 {
                return Err(value_err(format!(
                    "segments must have shape (N, 4), got {:?}",
                    a.shape()
                )));
            }
            let values = a
                .as_slice_mut()
                .map_err(|_| value_err("segments must be C-contiguous"))?;
            let rows: &mut [Segment<F>] = bytemuck::cast_slice_mut(values);
            return py
                .allow_threads(|| {
                    in_pool(threads, || in_place_rows(algorithm, &rect, rows, class))
                })?
                .map_err(value_err);
        }
        let mut cols = out_cols::<F>(Some(segments))?;
        let mut segs = segs_mut(&mut cols)?.expect("columns given");
        py.allow_threads(|| in_pool(threads, || algorithm.clip_in_place(&rect, &mut segs, class)))?
            .map_err(value_err)
    }
    let algorithm = Algorithm::from_name(algorithm).map_err(value_err)?;
    if is_f64(segments)? {
        run::<f64>(py, segments, rect, algorithm, class_, threads)
    } else {
        run::<f32>(py, segments, rect, algorithm, class_, threads)
    }
}

/// Rays as the library's ray queries read them: columns, borrowed when given as columns.
enum RaysIn<'a, F> {
    Owned(Rays<F>),
    Borrowed(RaysRef<'a, F>),
}

impl<'a, F: Real> RaysIn<'a, F> {
    fn of(view: View<'a, F>) -> PyResult<Self> {
        Ok(match view {
            View::Rows(r) => {
                let values: &[F] = bytemuck::cast_slice(r);
                RaysIn::Owned(Rays::from_interleaved(values).map_err(value_err)?)
            }
            View::Cols(c) => {
                let (ox, oy, dx, dy) = c.columns();
                RaysIn::Borrowed(RaysRef::new(ox, oy, dx, dy).map_err(value_err)?)
            }
        })
    }

    fn as_ref(&self) -> RaysRef<'_, F> {
        match self {
            RaysIn::Owned(r) => r.as_ref(),
            RaysIn::Borrowed(r) => *r,
        }
    }
}

/// Rays against one rect (`rect` a 4-sequence) or rect `i` for ray `i` (`rects` given).
#[pyfunction]
#[pyo3(name = "cast_rect", signature = (rays, rect, rects, t_max, t_entry=None, t_exit=None, class_=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn cast_rect_py<'py>(
    py: Python<'py>,
    rays: &Bound<'py, PyAny>,
    rect: Option<[f64; 4]>,
    rects: Option<&Bound<'py, PyAny>>,
    t_max: f64,
    t_entry: Option<&Bound<'py, PyAny>>,
    t_exit: Option<&Bound<'py, PyAny>>,
    class_: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<()> {
    #[allow(clippy::too_many_arguments)]
    fn run<F: Real + Element>(
        py: Python<'_>,
        rays: &Bound<'_, PyAny>,
        rect: Option<[f64; 4]>,
        rects: Option<&Bound<'_, PyAny>>,
        t_max: f64,
        outs: [Option<&Bound<'_, PyAny>>; 3],
        threads: Option<usize>,
    ) -> PyResult<()> {
        let input = Input::<F>::extract(rays, "rays")?;
        let rays = RaysIn::of(input.view("rays")?)?;
        let rays = rays.as_ref();
        let (mut te, mut tx) = (
            out1::<F>(outs[0], "t_entry")?,
            out1::<F>(outs[1], "t_exit")?,
        );
        let mut cl = out1::<u8>(outs[2], "class")?;
        let mut out = RectCastOutput {
            t_entry: slice_mut(&mut te, "t_entry")?,
            t_exit: slice_mut(&mut tx, "t_exit")?,
            class: slice_mut(&mut cl, "class")?,
        };
        let t_max = F::from_f64(t_max);
        let result = match (rect, rects) {
            (Some(r), None) => {
                let r = rect_of::<F>(r)?;
                py.allow_threads(|| in_pool(threads, || cast_rect(&r, &rays, t_max, &mut out)))?
            }
            (None, Some(rs)) => {
                let rs = rects_of::<F>(rs)?;
                py.allow_threads(|| in_pool(threads, || cast_rects(&rs, &rays, t_max, &mut out)))?
            }
            _ => return Err(value_err("give either rect or rects")),
        };
        result.map_err(value_err)
    }
    let outs = [t_entry, t_exit, class_];
    if is_f64(rays)? {
        run::<f64>(py, rays, rect, rects, t_max, outs, threads)
    } else {
        run::<f32>(py, rays, rect, rects, t_max, outs, threads)
    }
}

/// Each ray's closest hit among a segment set, by `method` (`auto`, `brute-force`, `scene`);
/// returns whether a scene index was built.
#[pyfunction]
#[pyo3(name = "cast_segments", signature = (rays, segments, t_max, method="auto", t=None, s=None, index=None, nx=None, ny=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn cast_segments_py<'py>(
    py: Python<'py>,
    rays: &Bound<'py, PyAny>,
    segments: &Bound<'py, PyAny>,
    t_max: f64,
    method: &str,
    t: Option<&Bound<'py, PyAny>>,
    s: Option<&Bound<'py, PyAny>>,
    index: Option<&Bound<'py, PyAny>>,
    nx: Option<&Bound<'py, PyAny>>,
    ny: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<bool> {
    fn run<F: Real + Element>(
        py: Python<'_>,
        rays: &Bound<'_, PyAny>,
        segments: &Bound<'_, PyAny>,
        t_max: f64,
        method: CastMethod,
        outs: [Option<&Bound<'_, PyAny>>; 5],
        threads: Option<usize>,
    ) -> PyResult<bool> {
        let input = Input::<F>::extract(rays, "rays")?;
        let rays = RaysIn::of(input.view("rays")?)?;
        let rays = rays.as_ref();
        let seg_in = Input::<F>::extract(segments, "segments")?;
        let seg_view = seg_in.view("segments")?;
        // The library reads the segment set as columns: `(M, 4)` rows are copied once.
        let owned;
        let segs = match seg_view {
            View::Cols(c) => c,
            View::Rows(r) => {
                owned = Segments::from_rows(r);
                owned.as_ref()
            }
        };
        let t_max = F::from_f64(t_max);
        // `auto`: through a scene index built for the call where it pays (`index_pays`); the
        // same bits either way.
        with_cast_outputs(outs, |out| {
            py.allow_threads(|| {
                in_pool(threads, || {
                    cast_segments_with(method, &rays, &segs, t_max, out)
                })
            })?
            .map_err(value_err)
        })
    }
    let method = CastMethod::from_name(method).map_err(value_err)?;
    let outs = [t, s, index, nx, ny];
    if is_f64(rays)? {
        run::<f64>(py, rays, segments, t_max, method, outs, threads)
    } else {
        run::<f32>(py, rays, segments, t_max, method, outs, threads)
    }
}

/// An `int64` index output (`index`, `edge`): the library writes its `u32` indices into a
/// buffer of its own, which [`Indices::widen`] turns into the package's convention, `-1` for a
/// miss ([`slabclip::cast::signed_index`], as `slabclip cast` writes them).
struct Indices<'a> {
    out: Option<&'a mut [i64]>,
    raw: Vec<u32>,
}

impl<'a> Indices<'a> {
    fn of(out: Option<&'a mut [i64]>) -> Self {
        let raw = vec![0; out.as_ref().map_or(0, |o| o.len())];
        Indices { out, raw }
    }

    /// The buffer the library writes, when the index is asked for.
    fn library(&mut self) -> Option<&mut [u32]> {
        self.out.is_some().then_some(&mut self.raw[..])
    }

    fn widen(&mut self) {
        if let Some(out) = self.out.as_deref_mut() {
            for (o, &i) in out.iter_mut().zip(&self.raw) {
                *o = slabclip::cast::signed_index(i);
            }
        }
    }
}

/// The closest-hit outputs `t`, `s`, `index`, `nx`, `ny` (each optional) borrowed for `run`;
/// afterwards the library's `u32` indices are widened in place to `int64` with −1 for a miss.
pub(crate) fn with_cast_outputs<F: Real + Element, R>(
    outs: [Option<&Bound<'_, PyAny>>; 5],
    run: impl FnOnce(SegmentsCastOutput<'_, F>) -> PyResult<R>,
) -> PyResult<R> {
    let (mut t, mut s) = (out1::<F>(outs[0], "t")?, out1::<F>(outs[1], "s")?);
    let mut index = out1::<i64>(outs[2], "index")?;
    let (mut nx, mut ny) = (out1::<F>(outs[3], "nx")?, out1::<F>(outs[4], "ny")?);
    let mut index = Indices::of(slice_mut(&mut index, "index")?);
    let out = SegmentsCastOutput {
        t: slice_mut(&mut t, "t")?,
        s: slice_mut(&mut s, "s")?,
        index: index.library(),
        nx: slice_mut(&mut nx, "nx")?,
        ny: slice_mut(&mut ny, "ny")?,
    };
    let r = run(out)?;
    index.widen();
    Ok(r)
}

/// A convex polygon from a C-contiguous `(K, 2)` vertex array.
fn polygon_of<F: Real + Element>(obj: &Bound<'_, PyAny>) -> PyResult<ConvexPolygon<F>> {
    let arr: PyReadonlyArray2<'_, F> = obj.extract()?;
    if arr.shape()[1] != 2 {
        return Err(value_err(format!(
            "polygon vertices must have shape (K, 2), got {:?}",
            arr.shape()
        )));
    }
    let v = arr
        .as_slice()
        .map_err(|_| value_err("polygon vertices must be C-contiguous"))?;
    let pts: Vec<(F, F)> = v.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    ConvexPolygon::new(&pts).map_err(value_err)
}

/// Rays against a convex polygon.
#[pyfunction]
#[pyo3(name = "cast_polygon", signature = (rays, vertices, t_max, exit, t=None, x=None, y=None, nx=None, ny=None, edge=None, inside=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn cast_polygon_py<'py>(
    py: Python<'py>,
    rays: &Bound<'py, PyAny>,
    vertices: &Bound<'py, PyAny>,
    t_max: f64,
    exit: bool,
    t: Option<&Bound<'py, PyAny>>,
    x: Option<&Bound<'py, PyAny>>,
    y: Option<&Bound<'py, PyAny>>,
    nx: Option<&Bound<'py, PyAny>>,
    ny: Option<&Bound<'py, PyAny>>,
    edge: Option<&Bound<'py, PyAny>>,
    inside: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<()> {
    #[allow(clippy::too_many_arguments)]
    fn run<F: Real + Element>(
        py: Python<'_>,
        rays: &Bound<'_, PyAny>,
        vertices: &Bound<'_, PyAny>,
        t_max: f64,
        mode: InsideMode,
        outs: [Option<&Bound<'_, PyAny>>; 7],
        threads: Option<usize>,
    ) -> PyResult<()> {
        let poly = polygon_of::<F>(vertices)?;
        let input = Input::<F>::extract(rays, "rays")?;
        let rays = RaysIn::of(input.view("rays")?)?;
        let rays = rays.as_ref();
        let mut t = out1::<F>(outs[0], "t")?;
        let (mut x, mut y) = (out1::<F>(outs[1], "x")?, out1::<F>(outs[2], "y")?);
        let (mut nx, mut ny) = (out1::<F>(outs[3], "nx")?, out1::<F>(outs[4], "ny")?);
        let mut edge = out1::<i64>(outs[5], "edge")?;
        let mut inside = out1::<u8>(outs[6], "inside")?;
        let mut edge = Indices::of(slice_mut(&mut edge, "edge")?);
        let out = PolygonCastOutput {
            t: slice_mut(&mut t, "t")?,
            x: slice_mut(&mut x, "x")?,
            y: slice_mut(&mut y, "y")?,
            nx: slice_mut(&mut nx, "nx")?,
            ny: slice_mut(&mut ny, "ny")?,
            edge: edge.library(),
            inside: slice_mut(&mut inside, "inside")?,
        };
        let t_max = F::from_f64(t_max);
        py.allow_threads(|| in_pool(threads, || cast_polygon(&poly, &rays, t_max, mode, out)))?
            .map_err(value_err)?;
        edge.widen();
        Ok(())
    }
    let mode = if exit {
        InsideMode::Exit
    } else {
        InsideMode::Origin
    };
    let outs = [t, x, y, nx, ny, edge, inside];
    if is_f64(rays)? {
        run::<f64>(py, rays, vertices, t_max, mode, outs, threads)
    } else {
        run::<f32>(py, rays, vertices, t_max, mode, outs, threads)
    }
}

/// Segments against a convex polygon (Cyrus–Beck), into the clip outputs.
#[pyfunction]
#[pyo3(name = "clip_polygon", signature = (segments, vertices, t_entry=None, t_exit=None, class_=None, clipped=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn clip_polygon_py<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    vertices: &Bound<'py, PyAny>,
    t_entry: Option<&Bound<'py, PyAny>>,
    t_exit: Option<&Bound<'py, PyAny>>,
    class_: Option<&Bound<'py, PyAny>>,
    clipped: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<()> {
    fn run<F: Real + Element>(
        py: Python<'_>,
        segments: &Bound<'_, PyAny>,
        vertices: &Bound<'_, PyAny>,
        outs: [Option<&Bound<'_, PyAny>>; 4],
        threads: Option<usize>,
    ) -> PyResult<()> {
        let poly = polygon_of::<F>(vertices)?;
        let input = Input::<F>::extract(segments, "segments")?;
        let view = input.view("segments")?;
        let mut outs = ClipOuts::<F>::extract(outs[0], outs[1], outs[2], outs[3])?;
        let mut out = outs.output()?;
        py.allow_threads(|| {
            in_pool(
                threads,
                || with_source!(view, s => clip_polygon(&poly, s, &mut out)),
            )
        })?
        .map_err(value_err)
    }
    let outs = [t_entry, t_exit, class_, clipped];
    if is_f64(segments)? {
        run::<f64>(py, segments, vertices, outs, threads)
    } else {
        run::<f32>(py, segments, vertices, outs, threads)
    }
}

/// Per segment, whether a clip result breaks SPEC §1 against the exact rational reference
/// (`slabclip.reference.violations`): 1 where it does. The benchmark counts wrong answers of
/// other clippers with it.
#[pyfunction]
#[pyo3(signature = (segments, rect, t_entry, t_exit, class_, threads=None))]
fn violations<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rect: [f64; 4],
    t_entry: &Bound<'py, PyAny>,
    t_exit: &Bound<'py, PyAny>,
    class_: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    fn run<'py, F: Real + Element>(
        py: Python<'py>,
        segments: &Bound<'py, PyAny>,
        rect: [f64; 4],
        t_entry: &Bound<'py, PyAny>,
        t_exit: &Bound<'py, PyAny>,
        class: &Bound<'py, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let rect = rect_of::<F>(rect)?;
        let input = Input::<F>::extract(segments, "segments")?;
        let view = input.view("segments")?;
        let te: PyReadonlyArray1<'_, F> = t_entry.extract()?;
        let tx: PyReadonlyArray1<'_, F> = t_exit.extract()?;
        let cl: PyReadonlyArray1<'_, u8> = class.extract()?;
        let (te, tx, cl) = (
            col(&te, "t_entry")?,
            col(&tx, "t_exit")?,
            col(&cl, "class")?,
        );
        let n = view.len();
        for (what, len) in [
            ("t_entry", te.len()),
            ("t_exit", tx.len()),
            ("class", cl.len()),
        ] {
            if len != n {
                return Err(value_err(Error::LengthMismatch {
                    what,
                    expected: n,
                    found: len,
                }));
            }
        }
        let bad = py.allow_threads(|| {
            in_pool(threads, || {
                (0..n)
                    .into_par_iter()
                    .map(|i| {
                        let seg = with_source!(view, s => s.segment(i));
                        let class = Class::from_code(cl[i]).unwrap_or(Class::Invalid);
                        let exact = slabclip::reference::exact(&rect, &seg);
                        u8::from(exact.verify(te[i], tx[i], class).is_err())
                    })
                    .collect::<Vec<u8>>()
            })
        })?;
        Ok(PyArray1::from_vec(py, bad))
    }
    if is_f64(segments)? {
        run::<f64>(py, segments, rect, t_entry, t_exit, class_, threads)
    } else {
        run::<f32>(py, segments, rect, t_entry, t_exit, class_, threads)
    }
}

/// The exact class code of every segment, from the rational reference
/// (`slabclip.reference.exact_class`).
#[pyfunction]
#[pyo3(signature = (segments, rect, threads=None))]
fn exact_class<'py>(
    py: Python<'py>,
    segments: &Bound<'py, PyAny>,
    rect: [f64; 4],
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    fn run<'py, F: Real + Element>(
        py: Python<'py>,
        segments: &Bound<'py, PyAny>,
        rect: [f64; 4],
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let rect = rect_of::<F>(rect)?;
        let input = Input::<F>::extract(segments, "segments")?;
        let view = input.view("segments")?;
        let codes = py.allow_threads(|| {
            in_pool(threads, || {
                (0..view.len())
                    .into_par_iter()
                    .map(|i| {
                        let seg = with_source!(view, s => s.segment(i));
                        slabclip::reference::exact(&rect, &seg).class as u8
                    })
                    .collect::<Vec<u8>>()
            })
        })?;
        Ok(PyArray1::from_vec(py, codes))
    }
    if is_f64(segments)? {
        run::<f64>(py, segments, rect, threads)
    } else {
        run::<f32>(py, segments, rect, threads)
    }
}

/// `n` segments of a named workload (`slabclip gen`'s), as an `(n, 4)` array.
#[pyfunction]
#[pyo3(signature = (dist, n, seed, double))]
fn generate(py: Python<'_>, dist: &str, n: usize, seed: u64, double: bool) -> PyResult<PyObject> {
    let dist = slabclip::workload::Dist::from_name(dist).map_err(value_err)?;
    fn rows<F: Real + Element>(
        py: Python<'_>,
        dist: slabclip::workload::Dist,
        n: usize,
        seed: u64,
    ) -> PyResult<PyObject> {
        let v = py.allow_threads(|| dist.generate::<F>(n, seed).segments.to_interleaved());
        Ok(PyArray1::from_vec(py, v)
            .reshape([n, 4])?
            .into_any()
            .unbind())
    }
    if double {
        rows::<f64>(py, dist, n, seed)
    } else {
        rows::<f32>(py, dist, n, seed)
    }
}

/// The names of the workloads `generate` takes.
#[pyfunction]
fn workloads() -> Vec<&'static str> {
    slabclip::workload::Dist::ALL.map(|d| d.name()).to_vec()
}

/// Every algorithm name, then `"auto"`.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    Algorithm::ALL
        .iter()
        .chain(&[Algorithm::Auto])
        .map(|a| a.name())
        .collect()
}

/// The version, what `auto` does, the SIMD levels (built, detected, running), and rayon's thread
/// count.
#[pyfunction]
fn info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("algorithms", algorithms())?;
    d.set_item("auto", slabclip::kernels::auto_rule())?;
    let runs = slabclip::simd::level();
    d.set_item("simd_built", slabclip::simd::BUILT_LEVEL)?;
    d.set_item("simd_cpu", slabclip::simd::detected().describe())?;
    d.set_item("simd_runs", runs.describe())?;
    d.set_item("lanes_f32", runs.lanes::<f32>())?;
    d.set_item("lanes_f64", runs.lanes::<f64>())?;
    d.set_item("threads", rayon::current_num_threads())?;
    Ok(d)
}

/// The SIMD levels this CPU runs, lowest first (`v1`, then `v3`, `v4` where it has them).
#[pyfunction]
fn simd_levels() -> Vec<&'static str> {
    slabclip::simd::available().map(|l| l.name()).collect()
}

/// Runs the kernels at `level` (`v1`, `v3`, `v4`) from now on, in this process; a name that is
/// no level, or a level this CPU lacks, is a `ValueError` and changes nothing.
#[pyfunction]
fn set_simd_level(level: &str) -> PyResult<()> {
    let l = slabclip::simd::Level::from_name(level).map_err(value_err)?;
    slabclip::simd::force(l).map_err(value_err)
}

/// The extension module `slabclip._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(clip, m)?)?;
    m.add_function(wrap_pyfunction!(clip_pairwise, m)?)?;
    m.add_function(wrap_pyfunction!(clip_rects, m)?)?;
    m.add_function(wrap_pyfunction!(grid_pieces, m)?)?;
    m.add_function(wrap_pyfunction!(clip_in_place, m)?)?;
    m.add_function(wrap_pyfunction!(cast_rect_py, m)?)?;
    m.add_function(wrap_pyfunction!(cast_segments_py, m)?)?;
    m.add_function(wrap_pyfunction!(cast_polygon_py, m)?)?;
    m.add_function(wrap_pyfunction!(clip_polygon_py, m)?)?;
    m.add_function(wrap_pyfunction!(violations, m)?)?;
    m.add_function(wrap_pyfunction!(exact_class, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(workloads, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(simd_levels, m)?)?;
    m.add_function(wrap_pyfunction!(set_simd_level, m)?)?;
    lines::register(m)?;
    geometries::register(m)?;
    m.add("PARALLEL_MIN", PARALLEL_MIN)?;
    m.add("MAX_THREADS", MAX_THREADS)?;
    m.add("MAX_CELLS_PER_AXIS", slabclip::grid::MAX_CELLS_PER_AXIS)?;
    // The package's index for a miss (`index`, `edge`: int64), as in `slabclip cast`'s files.
    m.add("NO_HIT", -1i64)?;
    scene::register(m)?;
    Ok(())
}
