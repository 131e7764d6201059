//! `slabclip clip --grid XMIN,YMIN,XMAX,YMAX --cells NX,NY`: the pieces every segment makes in
//! the cells of a regular grid (`slabclip::grid`), as named `.npz` columns.

use std::path::Path;

use clap::Args;
use slabclip::grid::MAX_CELLS_PER_AXIS;
use slabclip::io::{self, Batch, Column};
use slabclip::{rows_from_interleaved, Error, Grid, GridOptions, Lines, Real, Rect};

use super::args::{parse_bounds, parse_count};
use super::cast::col;

/// The grid flags of `slabclip clip`.
#[derive(Debug, Args)]
pub struct GridArgs {
    /// A regular grid over XMIN,YMIN,XMAX,YMAX (positive width and height) instead of --rect:
    /// writes every piece of every segment in the cells it passes through, as an .npz of the
    /// columns segment, ix, iy, t_entry, t_exit, class.
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", allow_hyphen_values = true,
          value_parser = parse_bounds, requires = "cells",
          conflicts_with_all = ["rect", "emit", "algorithm"])]
    pub grid: Option<[f64; 4]>,

    /// Cells of the --grid along x and y.
    #[arg(long, value_name = "NX,NY", value_parser = parse_cells, requires = "grid", conflicts_with = "rect")]
    cells: Option<[usize; 2]>,

    /// With --grid: half-open cells [lo, hi), so a point on a grid line is in one cell only (a
    /// segment along a line goes to the cell right of or above it); default: closed cells, both.
    #[arg(long, requires = "grid", conflicts_with = "rect")]
    half_open: bool,

    /// With --grid: leave out the `touches` pieces (single points on a cell's boundary).
    #[arg(long, requires = "grid", conflicts_with = "rect")]
    no_touches: bool,
}

/// `NX,NY`: two counts ([`parse_count`]: `1000`, `4K`) from 1 to [`MAX_CELLS_PER_AXIS`].
pub(super) fn parse_cells(s: &str) -> Result<[usize; 2], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 2 {
        return Err(format!(
            "expected two cell counts NX,NY, found {}",
            parts.len()
        ));
    }
    let mut n = [0usize; 2];
    for ((slot, text), name) in n.iter_mut().zip(&parts).zip(["nx", "ny"]) {
        *slot = parse_count(text, 1, MAX_CELLS_PER_AXIS).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(n)
}

/// Whether `output` ends in `.npz` (any case).
pub fn is_npz(output: &Path) -> bool {
    output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npz"))
}

/// Runs the grid path of `slabclip clip` (on the caller's thread pool): reads the whole input,
/// and writes the `.npz` whole or not at all.
pub fn run(args: &GridArgs, input: &Path, output: &Path) -> Result<(), Error> {
    let (Some(bounds), Some(cells)) = (args.grid, args.cells) else {
        return Err(Error::Failed("--grid needs --cells".into()));
    };
    if !is_npz(output) {
        return Err(Error::file(
            output,
            "--grid writes named columns as .npz; give the output a name ending in .npz",
        ));
    }
    if io::same_file(input, output) {
        return Err(Error::file(
            output,
            "output is the input file; refusing to overwrite it",
        ));
    }
    io::output_folder(output)?;
    let options = GridOptions {
        lines: if args.half_open {
            Lines::HalfOpen
        } else {
            Lines::Closed
        },
        touches: !args.no_touches,
    };
    match io::read_segments(input)? {
        Batch::F32(v) => write::<f32>(&v, bounds, cells, &options, input, output),
        Batch::F64(v) => write::<f64>(&v, bounds, cells, &options, input, output),
    }
}

fn write<F: Real>(
    values: &[F],
    [xmin, ymin, xmax, ymax]: [f64; 4],
    [nx, ny]: [usize; 2],
    options: &GridOptions,
    input: &Path,
    output: &Path,
) -> Result<(), Error> {
    let what = |e: Error| {
        Error::file(
            input,
            format!(
                "--grid {xmin},{ymin},{xmax},{ymax} --cells {nx},{ny} does not fit {}, the \
                 input's dtype: {e}",
                F::DTYPE
            ),
        )
    };
    let rect = Rect::new(
        F::from_f64(xmin),
        F::from_f64(ymin),
        F::from_f64(xmax),
        F::from_f64(ymax),
    )
    .map_err(what)?;
    let grid = Grid::new(rect, nx, ny).map_err(what)?;
    let rows = rows_from_interleaved(values)?;
    let c = grid.piece_columns(rows, options);
    io::write_npz(
        output,
        &[
            ("segment", Column::I64(&c.segment)),
            ("ix", Column::I64(&c.ix)),
            ("iy", Column::I64(&c.iy)),
            ("t_entry", col(&c.t_entry)),
            ("t_exit", col(&c.t_exit)),
            ("class", Column::U8(&c.class)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_parsing() {
        assert_eq!(parse_cells("1000, 20").unwrap(), [1000, 20]);
        assert!(parse_cells("3").unwrap_err().contains("found 1"));
        assert_eq!(
            parse_cells("4K,2").unwrap(),
            [4096, 2],
            "counts take suffixes"
        );
        assert!(parse_cells("0,3")
            .unwrap_err()
            .contains("nx: \"0\": expected a count from 1 to 16777216"));
        assert!(parse_cells("3,-1")
            .unwrap_err()
            .contains("ny: \"-1\" is not a count"));
        assert!(parse_cells("3,99999999999")
            .unwrap_err()
            .contains("expected a count from 1 to"));
    }
}
