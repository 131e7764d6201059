//! Polylines and tiles (SPEC §7) on numpy's ragged arrays: `slabclip.clip_lines`,
//! `clip_lines_each` and `tile_lines` (and through them the shapely, geopandas and GeoArrow
//! entries of `slabclip/lines.py`).
//!
//! The coordinates are borrowed as they are: one C-contiguous `(V, 2)` array (interleaved, as
//! shapely's `to_ragged_array` and GeoArrow's interleaved coordinates have them) or a tuple of
//! two contiguous 1-D `x`, `y` arrays (GeoArrow's separated coordinates), float32 or float64;
//! offsets are contiguous int32 or int64 arrays (both GeoArrow widths). Nothing is converted
//! here: a wrong dtype is a `TypeError` naming the argument, a wrong shape or a strided array a
//! `ValueError`, and the library's own checks (offsets that decrease or overrun, a polyline of
//! one vertex) come back as `ValueError` naming the polyline or geometry. The answer is the
//! library's [`Parts`], moved into numpy arrays without a copy.

use numpy::prelude::*;
use numpy::{Element, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArray};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use slabclip::{
    Coords, Error, Grid, Lines, MultiPolylines, Offsets, PartOptions, Parts, Polylines, Real, Rect,
    TileOptions,
};

use crate::{in_pool, rect_of, rects_of, value_err};

/// The coordinates as given: `(V, 2)` rows, or `x` and `y` columns.
pub(crate) enum CoordsIn<'py, F: Element> {
    Rows(PyReadonlyArray2<'py, F>),
    Cols(PyReadonlyArray1<'py, F>, PyReadonlyArray1<'py, F>),
}

impl<'py, F: Real + Element> CoordsIn<'py, F> {
    pub(crate) fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(t) = obj.downcast::<PyTuple>() {
            if t.len() != 2 {
                return Err(value_err(format!(
                    "coords as columns must be a tuple of two arrays (x, y), got {}",
                    t.len()
                )));
            }
            let col = |k: usize, name: &str| -> PyResult<PyReadonlyArray1<'py, F>> {
                t.get_item(k)?.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "coords column {name} must be a 1-D {} array like the other column",
                        F::DTYPE
                    ))
                })
            };
            return Ok(CoordsIn::Cols(col(0, "x")?, col(1, "y")?));
        }
        let arr: PyReadonlyArray2<'py, F> = obj.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "coords must be a 2-D {} array of shape (V, 2) or a tuple (x, y) of 1-D arrays",
                F::DTYPE
            ))
        })?;
        Ok(CoordsIn::Rows(arr))
    }

    pub(crate) fn view(&self) -> PyResult<Coords<'_, F>> {
        match self {
            CoordsIn::Rows(a) => {
                if a.shape()[1] != 2 {
                    return Err(value_err(format!(
                        "coords must have shape (V, 2), got {:?}",
                        a.shape()
                    )));
                }
                let v = a.as_slice().map_err(|_| {
                    value_err("coords must be C-contiguous (np.ascontiguousarray(coords))")
                })?;
                Ok(Coords::Interleaved(v))
            }
            CoordsIn::Cols(x, y) => {
                let x = x
                    .as_slice()
                    .map_err(|_| value_err("coords column x must be contiguous"))?;
                let y = y
                    .as_slice()
                    .map_err(|_| value_err("coords column y must be contiguous"))?;
                Ok(Coords::Separated { x, y })
            }
        }
    }
}

/// Offsets as given: int32 or int64, contiguous.
pub(crate) enum OffsetsIn<'py> {
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
}

impl<'py> OffsetsIn<'py> {
    pub(crate) fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, i64>>() {
            return Ok(OffsetsIn::I64(a));
        }
        if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, i32>>() {
            return Ok(OffsetsIn::I32(a));
        }
        let got = match obj.downcast::<PyUntypedArray>() {
            Ok(a) => format!("a {}-D {} array", a.ndim(), a.dtype()),
            Err(_) => format!("{}", obj.get_type().name()?),
        };
        Err(PyTypeError::new_err(format!(
            "{what} must be a 1-D int32 or int64 array, got {got}"
        )))
    }

    pub(crate) fn view(&self, what: &str) -> PyResult<Offsets<'_>> {
        let bad = || value_err(format!("{what} must be contiguous"));
        Ok(match self {
            OffsetsIn::I32(a) => Offsets::I32(a.as_slice().map_err(|_| bad())?),
            OffsetsIn::I64(a) => Offsets::I64(a.as_slice().map_err(|_| bad())?),
        })
    }
}

/// The whole ragged input, borrowed for the call.
struct Ragged<'py, F: Element> {
    coords: CoordsIn<'py, F>,
    offsets: OffsetsIn<'py>,
    geometry: Option<OffsetsIn<'py>>,
}

/// The checked views: polylines, or MultiLineStrings over them.
enum Layout<'a, F> {
    Lines(Polylines<'a, F>),
    Multi(MultiPolylines<'a, F>),
}

impl<'py, F: Real + Element> Ragged<'py, F> {
    fn extract(
        coords: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        geometry_offsets: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        Ok(Ragged {
            coords: CoordsIn::extract(coords)?,
            offsets: OffsetsIn::extract(offsets, "offsets")?,
            geometry: geometry_offsets
                .map(|g| OffsetsIn::extract(g, "geometry_offsets"))
                .transpose()?,
        })
    }

    /// The slices, in the shapes the library takes (not yet checked against one another).
    fn views(&self) -> PyResult<(Coords<'_, F>, Offsets<'_>, Option<Offsets<'_>>)> {
        Ok((
            self.coords.view()?,
            self.offsets.view("offsets")?,
            self.geometry
                .as_ref()
                .map(|g| g.view("geometry_offsets"))
                .transpose()?,
        ))
    }
}

/// The library's checks of the offsets (O(L), so run with the GIL released too).
fn layout<'a, F: Real>(
    coords: Coords<'a, F>,
    offsets: Offsets<'a>,
    geometry: Option<Offsets<'a>>,
) -> Result<Layout<'a, F>, Error> {
    let lines = Polylines::new(coords, offsets)?;
    Ok(match geometry {
        None => Layout::Lines(lines),
        Some(g) => Layout::Multi(MultiPolylines::new(lines, g)?),
    })
}

/// The answer as a dict of numpy arrays, each a library vector handed over without a copy:
/// `coords` `(n, 2)`, `offsets`, `polyline`, and `geometry` (MultiLineStrings), `ix`, `iy`
/// (tiles), `points` `(k, 2)` with `point_*` indices (when asked for).
fn parts_dict<'py, F: Real + Element>(
    py: Python<'py>,
    p: Parts<F>,
    multi: bool,
    tiles: bool,
    points: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let xy = |v: Vec<F>| -> PyResult<Bound<'py, PyAny>> {
        let n = v.len() / 2;
        Ok(PyArray1::from_vec(py, v).reshape([n, 2])?.into_any())
    };
    d.set_item("coords", xy(p.coords)?)?;
    d.set_item("offsets", PyArray1::from_vec(py, p.offsets))?;
    d.set_item("polyline", PyArray1::from_vec(py, p.polyline))?;
    if multi {
        d.set_item("geometry", PyArray1::from_vec(py, p.geometry))?;
    }
    if tiles {
        d.set_item("ix", PyArray1::from_vec(py, p.ix))?;
        d.set_item("iy", PyArray1::from_vec(py, p.iy))?;
    }
    if points {
        let q = p.points;
        d.set_item("points", xy(q.coords)?)?;
        d.set_item("point_polyline", PyArray1::from_vec(py, q.polyline))?;
        if multi {
            d.set_item("point_geometry", PyArray1::from_vec(py, q.geometry))?;
        }
        if tiles {
            d.set_item("point_ix", PyArray1::from_vec(py, q.ix))?;
            d.set_item("point_iy", PyArray1::from_vec(py, q.iy))?;
        }
    }
    Ok(d)
}

/// Whether the coordinates (a `(V, 2)` array or the first of two columns) are float64;
/// float32 gives false, anything else a `TypeError` naming `coords`.
fn coords_f64(coords: &Bound<'_, PyAny>) -> PyResult<bool> {
    let first = match coords.downcast::<PyTuple>() {
        Ok(t) if !t.is_empty() => t.get_item(0)?,
        _ => coords.clone(),
    };
    let py = coords.py();
    let Ok(arr) = first.downcast::<PyUntypedArray>() else {
        return Err(PyTypeError::new_err(format!(
            "coords must be a float32 or float64 numpy array, got {}",
            first.get_type().name()?
        )));
    };
    let dt = arr.dtype();
    if dt.is_equiv_to(&numpy::dtype::<f64>(py)) {
        Ok(true)
    } else if dt.is_equiv_to(&numpy::dtype::<f32>(py)) {
        Ok(false)
    } else {
        Err(PyTypeError::new_err(format!(
            "coords must be float32 or float64, got {dt}"
        )))
    }
}

/// Clips every polyline to one rect (`rect`), or polyline (MultiLineString: geometry) `j` to
/// row `j` of `rects` (`slabclip.clip_lines`, `slabclip.clip_lines_each`).
#[pyfunction]
#[pyo3(signature = (coords, offsets, geometry_offsets=None, rect=None, rects=None, points=false, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn clip_lines<'py>(
    py: Python<'py>,
    coords: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    geometry_offsets: Option<&Bound<'py, PyAny>>,
    rect: Option<[f64; 4]>,
    rects: Option<&Bound<'py, PyAny>>,
    points: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    #[allow(clippy::too_many_arguments)]
    fn run<'py, F: Real + Element>(
        py: Python<'py>,
        coords: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        geometry_offsets: Option<&Bound<'py, PyAny>>,
        rect: Option<[f64; 4]>,
        rects: Option<&Bound<'py, PyAny>>,
        points: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        enum Rects<F> {
            One(Rect<F>),
            Each(Vec<Rect<F>>),
        }
        let rects = match (rect, rects) {
            (Some(r), None) => Rects::One(rect_of::<F>(r)?),
            (None, Some(r)) => Rects::Each(rects_of::<F>(r)?),
            _ => return Err(value_err("give either rect or rects")),
        };
        let input = Ragged::<F>::extract(coords, offsets, geometry_offsets)?;
        let (c, o, g) = input.views()?;
        let options = PartOptions { points };
        let parts = py
            .allow_threads(|| {
                in_pool(threads, || -> Result<Parts<F>, Error> {
                    let mut out = Parts::new();
                    match (layout(c, o, g)?, &rects) {
                        (Layout::Lines(l), Rects::One(r)) => l.clip(r, &options, &mut out),
                        (Layout::Multi(m), Rects::One(r)) => m.clip(r, &options, &mut out),
                        (Layout::Lines(l), Rects::Each(r)) => l.clip_each(r, &options, &mut out)?,
                        (Layout::Multi(m), Rects::Each(r)) => m.clip_each(r, &options, &mut out)?,
                    }
                    Ok(out)
                })
            })?
            .map_err(value_err)?;
        parts_dict(py, parts, g.is_some(), false, points)
    }
    if coords_f64(coords)? {
        run::<f64>(
            py,
            coords,
            offsets,
            geometry_offsets,
            rect,
            rects,
            points,
            threads,
        )
    } else {
        run::<f32>(
            py,
            coords,
            offsets,
            geometry_offsets,
            rect,
            rects,
            points,
            threads,
        )
    }
}

/// Cuts every polyline into the cells of a regular grid (`slabclip.tile_lines`).
#[pyfunction]
#[pyo3(signature = (coords, offsets, geometry_offsets, bounds, cells, half_open, points, buffer=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn tile_lines<'py>(
    py: Python<'py>,
    coords: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    geometry_offsets: Option<&Bound<'py, PyAny>>,
    bounds: [f64; 4],
    cells: [usize; 2],
    half_open: bool,
    points: bool,
    buffer: Option<f64>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    #[allow(clippy::too_many_arguments)]
    fn run<'py, F: Real + Element>(
        py: Python<'py>,
        coords: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        geometry_offsets: Option<&Bound<'py, PyAny>>,
        bounds: [f64; 4],
        [nx, ny]: [usize; 2],
        options: TileOptions<f64>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let grid = Grid::new(rect_of::<F>(bounds)?, nx, ny).map_err(|e| {
            value_err(format!(
                "grid {bounds:?} with {nx} x {ny} cells does not fit {}, the coords' dtype: {e}",
                F::DTYPE
            ))
        })?;
        let options = TileOptions {
            lines: options.lines,
            points: options.points,
            buffer: options.buffer.map(F::from_f64),
        };
        let input = Ragged::<F>::extract(coords, offsets, geometry_offsets)?;
        let (c, o, g) = input.views()?;
        let parts = py
            .allow_threads(|| {
                in_pool(threads, || -> Result<Parts<F>, Error> {
                    let mut out = Parts::new();
                    match layout(c, o, g)? {
                        Layout::Lines(l) => l.tiles(&grid, &options, &mut out)?,
                        Layout::Multi(m) => m.tiles(&grid, &options, &mut out)?,
                    }
                    Ok(out)
                })
            })?
            .map_err(value_err)?;
        parts_dict(py, parts, g.is_some(), true, options.points)
    }
    let options = TileOptions {
        lines: if half_open {
            Lines::HalfOpen
        } else {
            Lines::Closed
        },
        points,
        buffer,
    };
    if coords_f64(coords)? {
        run::<f64>(
            py,
            coords,
            offsets,
            geometry_offsets,
            bounds,
            cells,
            options,
            threads,
        )
    } else {
        run::<f32>(
            py,
            coords,
            offsets,
            geometry_offsets,
            bounds,
            cells,
            options,
            threads,
        )
    }
}

/// Adds this module's functions to `slabclip._native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(clip_lines, m)?)?;
    m.add_function(wrap_pyfunction!(tile_lines, m)?)?;
    Ok(())
}
