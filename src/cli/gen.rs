//! `slabclip gen`: a seeded workload (`slabclip::workload`) to an `.npy` file.

use std::path::PathBuf;

use super::args::count;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use slabclip::io;
use slabclip::workload::Dist;
use slabclip::{Error, Real};

/// Arguments of `slabclip gen`.
#[derive(Debug, Args)]
#[command(
    after_help = "Every workload is drawn around the unit square: clip it with --rect 0,0,1,1.\n\
                  The same --dist, --n, --seed and --precision give the same bytes on every machine."
)]
pub struct GenArgs {
    /// The workload (see the crate docs of slabclip::workload for what each holds).
    #[arg(long, value_name = "NAME", value_parser = dist_parser())]
    dist: Dist,

    /// How many segments; K, M, G multiply by 2^10, 2^20, 2^30 (e.g. 10K, 16M).
    #[arg(long, value_name = "N", value_parser = count(0, usize::MAX))]
    n: usize,

    /// The seed of the random generator.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,

    /// The dtype of the output.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    precision: Precision,

    /// Output .npy of shape (N, 4), rows x0, y0, x1, y1; written whole or not at all.
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

/// Runs `slabclip gen`.
pub fn run(args: &GenArgs) -> Result<(), Error> {
    io::output_folder(&args.output)?;
    match args.precision {
        Precision::F32 => write::<f32>(args),
        Precision::F64 => write::<f64>(args),
    }
}

fn write<F: Real>(args: &GenArgs) -> Result<(), Error> {
    let w = args.dist.generate::<F>(args.n, args.seed);
    let (x0, y0, x1, y1) = w.segments.as_ref().columns();
    io::write_columns(&args.output, &[x0, y0, x1, y1])
}
