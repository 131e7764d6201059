//! Rect files (`slabclip clip --rects`): `.npy` of shape `(M, 4)`, `float32` or `float64`, rows
//! `xmin, ymin, xmax, ymax`, or `.csv` with the header `xmin,ymin,xmax,ymax` (read as `float64`).
//!
//! The same readers as segment files (so the same checks and messages for a bad header, a
//! wrong shape or dtype, a truncated file), then every row must be a valid [`Rect`] (SPEC §1:
//! finite bounds, `min ≤ max`), and the file must hold at least one: the error names the row
//! (and the line for CSV) and the bound.

use std::path::Path;

use super::csv::RECT_NAMES;
use super::input::{Batch, Format, Input};
use crate::error::Error;
use crate::geom::Rect;
use crate::real::Real;

/// The rects of a file, in the file's dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum RectBatch {
    /// A `float32` file.
    F32(Vec<Rect<f32>>),
    /// A `float64` file (every CSV file).
    F64(Vec<Rect<f64>>),
}

impl RectBatch {
    /// The rects rounded to nearest in `F` (exact from `float32` to `float64`); an error naming
    /// the file and row if rounding makes a bound infinite.
    pub fn to_dtype<F: Real>(&self, path: &Path) -> Result<Vec<Rect<F>>, Error> {
        let convert = |i: usize, b: [f64; 4]| {
            let [a, c, d, e] = b.map(F::from_f64);
            Rect::new(a, c, d, e)
                .map_err(|e| Error::file(path, format!("row {i}: does not fit {}: {e}", F::DTYPE)))
        };
        match self {
            RectBatch::F32(v) => v
                .iter()
                .enumerate()
                .map(|(i, r)| convert(i, bounds(r)))
                .collect(),
            RectBatch::F64(v) => v
                .iter()
                .enumerate()
                .map(|(i, r)| convert(i, bounds(r)))
                .collect(),
        }
    }
}

fn bounds<F: Real>(r: &Rect<F>) -> [f64; 4] {
    [r.xmin(), r.ymin(), r.xmax(), r.ymax()].map(F::to_f64)
}

/// Reads and checks every rect of `path` (`.npy` or `.csv`). Errors name the file, and the row
/// (with its CSV line) of the first invalid rect; an empty file is an error too.
pub fn read_rects(path: impl AsRef<Path>) -> Result<RectBatch, Error> {
    let path = path.as_ref();
    let format = Format::of_path(path)?;
    if !matches!(format, Format::Npy | Format::Csv) {
        return Err(Error::file(
            path,
            format!("rect files are .npy or .csv, not .{}", format.extension()),
        ));
    }
    let input = Input::open_with(path, RECT_NAMES)?;
    let csv = format == Format::Csv;
    let batch = input.read_all()?;
    if batch.is_empty() {
        return Err(Error::file(
            path,
            "no rects: the file has no rows, expected at least one xmin,ymin,xmax,ymax",
        ));
    }
    Ok(match batch {
        Batch::F32(v) => RectBatch::F32(rects_of(path, &v, csv)?),
        Batch::F64(v) => RectBatch::F64(rects_of(path, &v, csv)?),
    })
}

/// Rows of four values as rects, or the first invalid one's error.
fn rects_of<F: Real>(path: &Path, values: &[F], csv: bool) -> Result<Vec<Rect<F>>, Error> {
    values
        .chunks_exact(4)
        .enumerate()
        .map(|(i, b)| {
            Rect::new(b[0], b[1], b[2], b[3]).map_err(|e| {
                let line = if csv {
                    format!(" (line {})", i + 2)
                } else {
                    String::new()
                };
                Error::file(path, format!("row {i}{line}: {e}"))
            })
        })
        .collect()
}
