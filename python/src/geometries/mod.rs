//! The answer of a clip or a tiling as one shapely geometry per output geometry
//! (`slabclip/lines.py`'s `clip_by_rect` and `tile_geometries`).
//!
//! A geometry holds its parts (a LineString, several a MultiLineString) and its points of
//! contact (a Point, several a MultiPoint); both kinds make a GeometryCollection of the lines'
//! geometry then the points'; a geometry with nothing gets `None`. Coordinates are copied bit
//! for bit. Two ways to make them, one [`Plan`]:
//!
//! * [`geos`]: straight from the coordinates through the GEOS library that shapely itself
//!   loaded (`GEOSCoordSeq_copyFromBuffer_r`, `GEOSGeom_createCollection_r`, which takes the
//!   parts without copying them), each wrapped by shapely's C API (`shapely.lib._C_API`);
//! * [`wkb`]: one WKB value per geometry, for `shapely.from_wkb`, where that GEOS cannot be
//!   reached.
//!
//! shapely itself has no call that makes a MultiLineString without first making each part as a
//! LineString of its own and then copying it. On 40,000 lines of 50 vertices (40,000 answers,
//! 44,000 parts) the parts' LineStrings alone took 20 ms, `from_wkb` 32 ms plus 7 ms of writing
//! the WKB, and GEOS straight from the coordinates 14 ms (docs/guide/polylines-python.md).

mod geos;
mod wkb;

use core::ops::Range;

use numpy::ndarray::Dimension;
use numpy::prelude::*;
use numpy::{Element, PyReadonlyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::value_err;

/// Runs of one owner in `owner` (checked nondecreasing and below `n`): `(owner, start, end)`.
fn runs(owner: &[i64], n: usize, what: &str) -> PyResult<Vec<(usize, usize, usize)>> {
    let mut out = Vec::new();
    let mut start = 0;
    for k in 0..owner.len() {
        let g = owner[k];
        if g < 0 || g as u64 >= n as u64 {
            return Err(value_err(format!(
                "{what}[{k}] = {g} is not a geometry index below {n}"
            )));
        }
        if k > 0 && g < owner[k - 1] {
            return Err(value_err(format!(
                "{what} must be nondecreasing: {what}[{k}] = {g} follows {}",
                owner[k - 1]
            )));
        }
        if k + 1 == owner.len() || owner[k + 1] != g {
            out.push((g as usize, start, k + 1));
            start = k + 1;
        }
    }
    Ok(out)
}

/// What each of `n` geometries holds, every index checked: a bad one is a `ValueError`
/// raised before anything is made, never a read out of bounds.
pub(crate) struct Plan<'a> {
    /// The parts' coordinates, `x, y` interleaved.
    xy: &'a [f64],
    /// The points of contact, `x, y` interleaved.
    pxy: &'a [f64],
    n: usize,
    /// Every part's vertex range, geometry by geometry.
    spans: Vec<Range<usize>>,
    /// `(geometry, spans start, spans end)`, by geometry.
    lines: Vec<(usize, usize, usize)>,
    /// `(geometry, points start, points end)`, by geometry.
    points: Vec<(usize, usize, usize)>,
}

/// The values of `a`, which must be contiguous (C order for a 2-D array).
fn contiguous<'a, T: Element, D: Dimension>(
    a: &'a PyReadonlyArray<'_, T, D>,
    what: &str,
) -> PyResult<&'a [T]> {
    let order = if a.ndim() > 1 {
        "C-contiguous"
    } else {
        "contiguous"
    };
    a.as_slice()
        .map_err(|_| value_err(format!("{what} must be {order}")))
}

/// One geometry of a [`Plan`]: its parts' vertex ranges and the range of its points.
pub(crate) struct Held<'p> {
    lines: &'p [Range<usize>],
    points: Range<usize>,
}

impl<'a> Plan<'a> {
    /// Geometry `g` holds the parts `parts[k]` (indices into `offsets`, all parts in order
    /// when `parts` is None) for the `k` where `owner[k] == g`, in that order, and the points
    /// `points[k]` where `point_owner[k] == g`; owners are nondecreasing.
    #[allow(clippy::too_many_arguments)]
    fn new(
        coords: &'a PyReadonlyArray2<'_, f64>,
        offsets: &'a PyReadonlyArray1<'_, i64>,
        parts: Option<&'a PyReadonlyArray1<'_, i64>>,
        owner: &'a PyReadonlyArray1<'_, i64>,
        n: usize,
        points: Option<&'a PyReadonlyArray2<'_, f64>>,
        point_owner: Option<&'a PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<Self> {
        let xy = contiguous(coords, "coords")?;
        if coords.shape()[1] != 2 {
            return Err(value_err(format!(
                "coords must have shape (V, 2), got {:?}",
                coords.shape()
            )));
        }
        let offs = contiguous(offsets, "offsets")?;
        let owner = contiguous(owner, "owner")?;
        let parts = parts.map(|p| contiguous(p, "parts")).transpose()?;
        let n_parts = offs.len().saturating_sub(1);
        let listed = parts.map_or(n_parts, |p| p.len());
        if owner.len() != listed {
            return Err(value_err(format!(
                "owner has {} entries for {listed} parts",
                owner.len()
            )));
        }
        // A part's vertex range, checked against the coordinates.
        let range = |k: usize| -> PyResult<Range<usize>> {
            let p = match parts {
                Some(p) => usize::try_from(p[k])
                    .ok()
                    .filter(|&p| p < n_parts)
                    .ok_or_else(|| {
                        value_err(format!("parts[{k}] = {} is not a part index", p[k]))
                    })?,
                None => k,
            };
            let (a, b) = (offs[p], offs[p + 1]);
            if a < 0 || b < a || b as u64 > (xy.len() / 2) as u64 {
                return Err(value_err(format!(
                    "part {p} spans vertices {a}..{b} of {}",
                    xy.len() / 2
                )));
            }
            Ok(a as usize..b as usize)
        };
        let (pxy, powner): (&[f64], &[i64]) = match (points, point_owner) {
            (Some(p), Some(o)) => {
                let (s, o) = (contiguous(p, "points")?, contiguous(o, "point_owner")?);
                if p.shape()[1] != 2 || o.len() != p.shape()[0] {
                    return Err(value_err(format!(
                        "points of shape {:?} for {} owners",
                        p.shape(),
                        o.len()
                    )));
                }
                (s, o)
            }
            (None, None) => (&[], &[]),
            _ => return Err(value_err("points and point_owner come together")),
        };
        let lines = runs(owner, n, "owner")?;
        let points = runs(powner, n, "point_owner")?;
        // `lines` runs over the parts in order, so the spans' indices are the parts'.
        let spans = (0..listed).map(range).collect::<PyResult<Vec<_>>>()?;
        Ok(Plan {
            xy,
            pxy,
            n,
            spans,
            lines,
            points,
        })
    }

    /// Calls `f(g, held)` for every geometry `g` that holds something, in order.
    fn for_each(&self, mut f: impl FnMut(usize, Held<'_>) -> PyResult<()>) -> PyResult<()> {
        let (mut l, mut p) = (self.lines.iter().peekable(), self.points.iter().peekable());
        loop {
            let g = match (l.peek(), p.peek()) {
                (None, None) => return Ok(()),
                (Some(a), Some(b)) => a.0.min(b.0),
                (Some(a), None) => a.0,
                (None, Some(b)) => b.0,
            };
            let lines = match l.next_if(|r| r.0 == g) {
                Some(&(_, s, e)) => &self.spans[s..e],
                None => &[],
            };
            let points = match p.next_if(|r| r.0 == g) {
                Some(&(_, s, e)) => s..e,
                None => 0..0,
            };
            f(g, Held { lines, points })?;
        }
    }
}

/// The geometries of the answer's parts and points (see [`Plan::new`]), made by the GEOS
/// library shapely loaded, as a numpy object array with `empty` (default `None`) for a
/// geometry that holds nothing; or with `wkb=True` a list of their WKB values, `None` for
/// nothing. Raises `RuntimeError` without `wkb` where that GEOS cannot be reached
/// (`shapely_geos()` says beforehand).
#[pyfunction]
#[pyo3(signature = (coords, offsets, parts, owner, n, points=None, point_owner=None, wkb=false, empty=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn parts_geometries<'py>(
    py: Python<'py>,
    coords: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
    parts: Option<PyReadonlyArray1<'py, i64>>,
    owner: PyReadonlyArray1<'py, i64>,
    n: usize,
    points: Option<PyReadonlyArray2<'py, f64>>,
    point_owner: Option<PyReadonlyArray1<'py, i64>>,
    wkb: bool,
    empty: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let plan = Plan::new(
        &coords,
        &offsets,
        parts.as_ref(),
        &owner,
        n,
        points.as_ref(),
        point_owner.as_ref(),
    )?;
    if wkb {
        Ok(wkb::values(py, &plan)?.into_any())
    } else {
        let empty = empty.unwrap_or_else(|| py.None().into_bound(py));
        Ok(geos::geometries(py, &plan, &empty)?.into_any())
    }
}

/// Whether `parts_geometries` can make geometries through shapely's own GEOS (shapely 2 with
/// its C API, GEOS 3.10 or later, a platform with `dlopen`).
#[pyfunction]
pub(crate) fn shapely_geos(py: Python<'_>) -> bool {
    geos::Geos::get(py).is_some()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parts_geometries, m)?)?;
    m.add_function(wrap_pyfunction!(shapely_geos, m)?)
}
