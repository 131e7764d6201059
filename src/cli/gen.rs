//! `slabclip gen`: a seeded workload (`slabclip::workload`) to an `.npy` file, or lines to
//! GeoJSON or a ragged `.npz`.

use std::path::PathBuf;

use super::args::count;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args, ValueEnum};
use slabclip::io::{self, Column, LinesFormat};
use slabclip::workload::{Dist, LineKind};
use slabclip::{Error, Real};

/// Arguments of `slabclip gen`.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("workload").required(true).args(["dist", "lines"])),
    after_help = "Every workload is drawn around the unit square: clip it with --rect 0,0,1,1.\n\
                  The same --dist (or --lines), --n, --seed and --precision give the same bytes \
                  on every machine.\n\n\
                  --lines writes .geojson / .json (a FeatureCollection: roads as LineStrings, \
                  river systems as MultiLineStrings, with an id and a few properties each) or \
                  .npz (coords (V, 2), offsets (L + 1,) int64, and geometry_offsets (G + 1,) \
                  for rivers), the inputs `slabclip lines` reads."
)]
pub struct GenArgs {
    /// The segment workload (see the crate docs of slabclip::workload for what each holds).
    #[arg(long, value_name = "NAME", value_parser = dist_parser())]
    dist: Option<Dist>,

    /// A lines workload instead: roads (road-like polylines) or rivers (meandering river
    /// systems with tributaries).
    #[arg(long, value_name = "KIND", value_parser = lines_parser())]
    lines: Option<LineKind>,

    /// How many segments (for --lines: in all the lines, which have one vertex more each);
    /// K, M, G multiply by 2^10, 2^20, 2^30 (e.g. 10K, 16M).
    #[arg(long, value_name = "N", value_parser = count(0, usize::MAX))]
    n: usize,

    /// The seed of the random generator.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,

    /// The dtype of the output.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    precision: Precision,

    /// Output .npy of shape (N, 4), rows x0, y0, x1, y1 (for --lines: .geojson, .json or
    /// .npz); written whole or not at all.
    #[arg(short, long, value_name = "OUTPUT")]
    output: PathBuf,
}

/// `f32` or `f64`, for `gen` and `compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Precision {
    /// float32.
    F32,
    /// float64.
    F64,
}

/// The names of [`Dist::ALL`], listed in `--help` and in the error for others.
pub fn dist_parser() -> impl TypedValueParser<Value = Dist> {
    PossibleValuesParser::new(Dist::ALL.map(Dist::name)).try_map(|name| Dist::from_name(&name))
}

/// The names of [`LineKind::ALL`].
fn lines_parser() -> impl TypedValueParser<Value = LineKind> {
    PossibleValuesParser::new(LineKind::ALL.map(LineKind::name))
        .try_map(|name| LineKind::from_name(&name))
}

/// Runs `slabclip gen`.
pub fn run(args: &GenArgs) -> Result<(), Error> {
    io::output_folder(&args.output)?;
    match (args.lines, args.precision) {
        (Some(kind), Precision::F32) => write_lines::<f32>(args, kind),
        (Some(kind), Precision::F64) => write_lines::<f64>(args, kind),
        (None, Precision::F32) => write::<f32>(args),
        (None, Precision::F64) => write::<f64>(args),
    }
}

/// Properties of generated geometry `g`, as JSON text: plain names, deterministic.
fn properties(kind: LineKind, g: usize, lines: usize) -> String {
    match kind {
        LineKind::Roads => {
            let class = [
                "primary",
                "secondary",
                "residential",
                "residential",
                "track",
            ][g % 5];
            format!(r#"{{"kind":"road","name":"road {g}","class":"{class}"}}"#)
        }
        LineKind::Rivers => format!(
            r#"{{"kind":"river","name":"river {g}","tributaries":{}}}"#,
            lines.saturating_sub(1)
        ),
    }
}

fn write_lines<F: Real>(args: &GenArgs, kind: LineKind) -> Result<(), Error> {
    let w = kind.generate::<F>(args.n, args.seed);
    let lines = w.lines();
    match LinesFormat::of(&args.output) {
        Some(LinesFormat::GeoJson) => io::write_geojson_lines(&args.output, &lines, |g| {
            properties(kind, g, lines.parts(g).len())
        }),
        Some(LinesFormat::Npz) => {
            let coords = match (
                bytemuck::try_cast_slice(&w.coords),
                bytemuck::try_cast_slice(&w.coords),
            ) {
                (Ok(s), _) if F::DTYPE == "float32" => Column::F32Pairs(s),
                (_, Ok(d)) => Column::F64Pairs(d),
                // `Real` is sealed to f32 and f64: one of the two casts holds.
                _ => Column::U8(&[]),
            };
            let mut arrays = vec![("coords", coords), ("offsets", Column::I64(&w.offsets))];
            if kind == LineKind::Rivers {
                arrays.push(("geometry_offsets", Column::I64(&w.geometry_offsets)));
            }
            io::write_npz(&args.output, &arrays)
        }
        None => Err(Error::file(
            &args.output,
            "--lines writes .geojson, .json or .npz; give the output one of those names",
        )),
    }
}

fn write<F: Real>(args: &GenArgs) -> Result<(), Error> {
    let Some(dist) = args.dist else {
        return Err(Error::Failed("gen needs --dist or --lines".into()));
    };
    let w = dist.generate::<F>(args.n, args.seed);
    let (x0, y0, x1, y1) = w.segments.as_ref().columns();
    io::write_columns(&args.output, &[x0, y0, x1, y1])
}
