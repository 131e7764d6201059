//! The answer of a clip or a tiling as one WKB value per output geometry, for
//! `shapely.from_wkb` (`slabclip/lines.py`'s `clip_by_rect` and `tile_geometries`).
//!
//! shapely has no call that makes a MultiLineString from ragged coordinates without first
//! making each part as a LineString of its own and then copying it into the collection, and
//! the geometries' making is most of a shapely → shapely clip's time. One WKB value per
//! geometry is parsed by GEOS straight into the final geometry: on 40,000 lines of 50 vertices
//! (22,000 clipped geometries of 44,000 parts) `from_wkb` took 22 ms where `from_ragged_array`
//! and `multilinestrings` took 48 (docs/guide/polylines-python.md).
//!
//! Little-endian ISO WKB, 2-D: a LineString (type 2), several as a MultiLineString (5); points
//! of contact as a Point (1) or MultiPoint (4); both kinds as a GeometryCollection (7) of the
//! lines' geometry then the points'. A geometry with nothing gets `None`. Coordinates are
//! copied bit for bit.

use numpy::prelude::*;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

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

fn head(buf: &mut Vec<u8>, kind: u32, count: usize) {
    buf.push(1);
    buf.extend_from_slice(&kind.to_le_bytes());
    buf.extend_from_slice(&(count as u32).to_le_bytes());
}

/// WKB values of `n` geometries: geometry `g` holds the parts `parts[k]` (indices into
/// `offsets`, all parts in order when `parts` is None) for the `k` where `owner[k] == g`, in
/// that order, and the points of contact `points[k]` where `point_owner[k] == g`. Owners are
/// nondecreasing. Every index is checked: a bad one is a `ValueError`, never a read out of
/// bounds.
#[pyfunction]
#[pyo3(signature = (coords, offsets, parts, owner, n, points=None, point_owner=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn parts_wkb<'py>(
    py: Python<'py>,
    coords: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
    parts: Option<PyReadonlyArray1<'py, i64>>,
    owner: PyReadonlyArray1<'py, i64>,
    n: usize,
    points: Option<PyReadonlyArray2<'py, f64>>,
    point_owner: Option<PyReadonlyArray1<'py, i64>>,
) -> PyResult<Bound<'py, PyList>> {
    let xy = coords
        .as_slice()
        .map_err(|_| value_err("coords must be C-contiguous"))?;
    if coords.shape()[1] != 2 {
        return Err(value_err(format!(
            "coords must have shape (V, 2), got {:?}",
            coords.shape()
        )));
    }
    let offs = offsets
        .as_slice()
        .map_err(|_| value_err("offsets must be contiguous"))?;
    let owner = owner
        .as_slice()
        .map_err(|_| value_err("owner must be contiguous"))?;
    let parts = match &parts {
        Some(p) => Some(
            p.as_slice()
                .map_err(|_| value_err("parts must be contiguous"))?,
        ),
        None => None,
    };
    let n_parts = offs.len().saturating_sub(1);
    let listed = parts.map_or(n_parts, |p| p.len());
    if owner.len() != listed {
        return Err(value_err(format!(
            "owner has {} entries for {listed} parts",
            owner.len()
        )));
    }
    // A part's vertex range, checked against the coordinates.
    let range = |k: usize| -> PyResult<(usize, usize)> {
        let p = match parts {
            Some(p) => usize::try_from(p[k])
                .ok()
                .filter(|&p| p < n_parts)
                .ok_or_else(|| value_err(format!("parts[{k}] = {} is not a part index", p[k])))?,
            None => k,
        };
        let (a, b) = (offs[p], offs[p + 1]);
        if a < 0 || b < a || b as u64 > (xy.len() / 2) as u64 {
            return Err(value_err(format!(
                "part {p} spans vertices {a}..{b} of {}",
                xy.len() / 2
            )));
        }
        Ok((a as usize, b as usize))
    };
    let (pxy, powner): (&[f64], &[i64]) = match (&points, &point_owner) {
        (Some(p), Some(o)) => {
            let s = p
                .as_slice()
                .map_err(|_| value_err("points must be C-contiguous"))?;
            let o = o
                .as_slice()
                .map_err(|_| value_err("point_owner must be contiguous"))?;
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
    let line_runs = runs(owner, n, "owner")?;
    let point_runs = runs(powner, n, "point_owner")?;

    let mut out: Vec<Option<Vec<u8>>> = vec![None; n];
    let xy_bytes: &[u8] = bytemuck::cast_slice(xy);
    let linestring = |buf: &mut Vec<u8>, (a, b): (usize, usize)| {
        head(buf, 2, b - a);
        buf.extend_from_slice(&xy_bytes[16 * a..16 * b]);
    };
    // The vertex ranges of one geometry's parts, checked once.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for &(g, s, e) in &line_runs {
        spans.clear();
        for k in s..e {
            spans.push(range(k)?);
        }
        let vertices: usize = spans.iter().map(|(a, b)| b - a).sum();
        let mut buf = Vec::with_capacity(9 * (spans.len() + 1) + 16 * vertices);
        if let [one] = spans[..] {
            linestring(&mut buf, one);
        } else {
            head(&mut buf, 5, spans.len());
            for &span in &spans {
                linestring(&mut buf, span);
            }
        }
        out[g] = Some(buf);
    }
    let pxy_bytes: &[u8] = bytemuck::cast_slice(pxy);
    for &(g, s, e) in &point_runs {
        let mut pts = Vec::with_capacity(9 + 21 * (e - s));
        if e - s > 1 {
            head(&mut pts, 4, e - s);
        }
        for k in s..e {
            pts.push(1);
            pts.extend_from_slice(&1u32.to_le_bytes());
            pts.extend_from_slice(&pxy_bytes[16 * k..16 * k + 16]);
        }
        out[g] = Some(match out[g].take() {
            None => pts,
            Some(lines) => {
                let mut gc = Vec::with_capacity(9 + lines.len() + pts.len());
                head(&mut gc, 7, 2);
                gc.extend_from_slice(&lines);
                gc.extend_from_slice(&pts);
                gc
            }
        });
    }
    PyList::new(
        py,
        out.iter().map(|b| match b {
            Some(b) => PyBytes::new(py, b).into_any(),
            None => py.None().into_bound(py),
        }),
    )
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parts_wkb, m)?)
}
