//! A [`Plan`]'s geometries as WKB values, for `shapely.from_wkb`: little-endian ISO WKB, 2-D,
//! a LineString (type 2), several as a MultiLineString (5); points as a Point (1) or
//! MultiPoint (4); both kinds as a GeometryCollection (7) of the lines' geometry then the
//! points'.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use super::Plan;

fn head(buf: &mut Vec<u8>, kind: u32, count: usize) {
    buf.push(1);
    buf.extend_from_slice(&kind.to_le_bytes());
    buf.extend_from_slice(&(count as u32).to_le_bytes());
}

/// One WKB value (or `None`) per geometry of `plan`.
pub(super) fn values<'py>(py: Python<'py>, plan: &Plan<'_>) -> PyResult<Bound<'py, PyList>> {
    let mut out: Vec<Option<Vec<u8>>> = vec![None; plan.n];
    let xy: &[u8] = bytemuck::cast_slice(plan.xy);
    let pxy: &[u8] = bytemuck::cast_slice(plan.pxy);
    let linestring = |buf: &mut Vec<u8>, span: &core::ops::Range<usize>| {
        head(buf, 2, span.len());
        buf.extend_from_slice(&xy[16 * span.start..16 * span.end]);
    };
    plan.for_each(|g, held| {
        let vertices: usize = held.lines.iter().map(|s| s.len()).sum();
        let mut buf =
            Vec::with_capacity(18 + 9 * held.lines.len() + 16 * vertices + 21 * held.points.len());
        let both = !held.lines.is_empty() && !held.points.is_empty();
        if both {
            head(&mut buf, 7, 2);
        }
        match held.lines {
            [] => {}
            [one] => linestring(&mut buf, one),
            many => {
                head(&mut buf, 5, many.len());
                for span in many {
                    linestring(&mut buf, span);
                }
            }
        }
        if held.points.len() > 1 {
            head(&mut buf, 4, held.points.len());
        }
        for k in held.points {
            buf.push(1);
            buf.extend_from_slice(&1u32.to_le_bytes());
            buf.extend_from_slice(&pxy[16 * k..16 * k + 16]);
        }
        out[g] = Some(buf);
        Ok(())
    })?;
    PyList::new(
        py,
        out.iter().map(|b| match b {
            Some(b) => PyBytes::new(py, b).into_any(),
            None => py.None().into_bound(py),
        }),
    )
}
