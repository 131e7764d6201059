//! `slabclip lines`: polylines (roads, rivers, tracks) from GeoJSON or a ragged `.npz` clipped
//! to a rectangle or cut into map tiles (`slabclip::io::lines_file`).

use std::path::PathBuf;

use clap::{ArgGroup, Args};
use slabclip::io::{self, LinesFormat, LinesSettings, LinesTarget, DEFAULT_BATCH_VERTICES};
use slabclip::Error;

use super::args::{count, parse_bounds};
use super::clip_grid::parse_cells;

const AFTER_HELP: &str = "\
Formats, by extension (input and output independently):
  .geojson, .json  a FeatureCollection of LineString and MultiLineString features. Read one
                   feature at a time, so a file larger than memory works. Each part becomes a
                   LineString feature with its source feature's id and properties, plus
                   \"feature\" (the source's index, from 0), \"part\" (from 0, per feature and
                   tile) and, for tiles, \"ix\", \"iy\" (replacing input properties of
                   those names); points of contact become Point features. Numbers are read exactly and written in the shortest form that
                   reads back to the same float64.
  .npz             ragged arrays (numpy.savez, as shapely.to_ragged_array gives them):
                   in:  coords (V, 2) float32 or float64, offsets (L + 1,) int32 or int64,
                        optionally geometry_offsets (G + 1,) for MultiLineStrings;
                   out: coords (P, 2) in the input's dtype, offsets (parts + 1,), polyline and
                        geometry (the part's source), ix, iy (its tile), and with --points
                        point_coords, point_polyline, point_geometry, point_ix, point_iy.
                   Read and built whole in memory.

A part is a stretch of a line inside the rectangle or tile, its vertices the line's own (bit
for bit) plus the points where it was cut, which lie exactly on the cutting edge. Without a
buffer, tiles are watertight: where a line passes from one tile to the next, the part in one
ends exactly where the part in the other begins. A NaN or infinite coordinate (possible only in
.npz) breaks a line: the segments on either side of it are left out.

Errors name the feature (its index, and its id if it has one) or the polyline: broken JSON,
Point or Polygon geometries (which are not lines), lines of a single position, positions with
a third number, bad offsets. Nothing is written then; the output is always whole or absent.

Exit status: 0 on success, 1 on a data error (one line on stderr), 2 on a usage error.";

/// Arguments of `slabclip lines`.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("target").required(true).args(["rect", "grid"])),
    after_help = AFTER_HELP
)]
pub struct LinesArgs {
    /// Keep the parts of every line inside the closed rectangle XMIN,YMIN,XMAX,YMAX.
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", allow_hyphen_values = true, value_parser = parse_bounds)]
    rect: Option<[f64; 4]>,

    /// Cut every line into the tiles of a regular grid over XMIN,YMIN,XMAX,YMAX (with --cells).
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", allow_hyphen_values = true,
          value_parser = parse_bounds, requires = "cells")]
    grid: Option<[f64; 4]>,

    /// Tiles of the --grid along x and y.
    #[arg(long, value_name = "NX,NY", value_parser = parse_cells, requires = "grid",
          conflicts_with = "rect")]
    cells: Option<[usize; 2]>,

    /// With --grid: grow every tile by B on each side (in the data's units), so that tiles
    /// overlap and a line near a tile's edge is in both, as map tiles are drawn.
    #[arg(long, value_name = "B", requires = "grid", conflicts_with = "rect", allow_hyphen_values = true,
          value_parser = parse_buffer)]
    buffer: Option<f64>,

    /// With --grid and no buffer: half-open tiles, so a stretch lying exactly on a tile
    /// border goes to one tile only (the one right of or above it); default: closed tiles.
    #[arg(long, requires = "grid", conflicts_with_all = ["buffer", "rect"])]
    half_open: bool,

    /// Also write the single points where a line only touches a rectangle or tile (a corner
    /// grazed, a vertex on the edge), as points; left out by default.
    #[arg(long)]
    points: bool,

    /// Worker threads (default: one per core). The output does not depend on it.
    #[arg(long, value_name = "N", value_parser = count(1, u16::MAX.into()))]
    threads: Option<usize>,

    /// GeoJSON input: vertices read per batch (whole features); K, M multiply by 2^10, 2^20.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BATCH_VERTICES,
          value_parser = count(1, usize::MAX))]
    batch: usize,

    /// Print one line on stdout when done: features, polylines, vertices, parts, points.
    #[arg(long)]
    summary: bool,

    /// Input lines: .geojson / .json (a FeatureCollection) or .npz (ragged arrays).
    input: PathBuf,

    /// Output: .geojson / .json or .npz, written to a temporary file and renamed only when
    /// complete; must not be the input.
    #[arg(short, long, value_name = "OUTPUT", value_parser = parse_output)]
    output: PathBuf,
}

/// `--buffer`: a finite number of at least 0.
fn parse_buffer(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(b) if b.is_finite() && b >= 0.0 => Ok(b),
        _ => Err(format!("{s:?} is not a finite number of at least 0")),
    }
}

/// A path whose extension names a lines format.
fn parse_output(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match LinesFormat::of(&path) {
        Some(_) => Ok(path),
        None => Err("give the output a name ending in .geojson, .json or .npz".into()),
    }
}

/// Runs `slabclip lines`.
pub fn run(args: &LinesArgs) -> Result<(), Error> {
    let target = match (args.rect, args.grid, args.cells) {
        (Some(r), _, _) => LinesTarget::Rect(r),
        (None, Some(bounds), Some(cells)) => {
            if bounds[0] == bounds[2] || bounds[1] == bounds[3] {
                return Err(Error::InvalidArgument(format!(
                    "--grid {bounds:?} has no area: a grid needs a positive width and height"
                )));
            }
            LinesTarget::Grid { bounds, cells }
        }
        _ => {
            return Err(Error::Failed(
                "lines needs --rect, or --grid with --cells".into(),
            ))
        }
    };
    let settings = LinesSettings {
        target,
        points: args.points,
        half_open: args.half_open,
        buffer: args.buffer,
        batch_vertices: args.batch,
    };
    let work = || io::lines_file(&args.input, &args.output, &settings);
    let summary = match args.threads {
        None => work()?,
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error::Failed(format!("cannot start {n} threads: {e}")))?
            .install(work)?,
    };
    if args.summary {
        super::print(&format!(
            "features {} polylines {} vertices {} parts {} points {}\n",
            summary.features, summary.polylines, summary.vertices, summary.parts, summary.points
        ));
    }
    Ok(())
}
