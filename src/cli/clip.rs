//! `slabclip clip`: one rectangle against every segment of a file, streamed chunk by chunk;
//! `--rects` and `--polygon` are in `clip_set.rs`, `--grid` in `clip_grid.rs`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::builder::{PossibleValuesParser, TypedValueParser};

use super::args::{count, parse_bounds, Emit};
use super::clip_grid::{self, GridArgs};
use super::clip_set::{self, SetArgs};
use clap::{ArgGroup, Args};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use slabclip::io::{self, ClipSettings, Dtype, Input, Progress};
use slabclip::{Algorithm, Error, Real, Rect};

/// Arguments of `slabclip clip`.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("target").required(true).args(["rect", "rects", "polygon", "grid"])),
    after_help = format!("{}\n\nExit status: 0 on success, 1 on a data error (one line on stderr), \
                          2 on a usage error.", clip_set::OUTPUTS)
)]
pub struct ClipArgs {
    /// The closed rectangle XMIN,YMIN,XMAX,YMAX (zero width or height allowed). Parsed as
    /// float64, then rounded to the input's dtype.
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", allow_hyphen_values = true, value_parser = parse_rect)]
    rect: Option<RectArg>,

    /// `--rects FILE [--pairwise]`, `--polygon "X,Y ..."`.
    #[command(flatten)]
    set: SetArgs,

    /// `--grid XMIN,YMIN,XMAX,YMAX --cells NX,NY [--half-open] [--no-touches]`.
    #[command(flatten)]
    grid: GridArgs,

    /// The algorithm. All meet the same contract; slab-scalar, simd-slab, hybrid and auto give
    /// the same bits, the others may differ from them within its 6-ulp allowance.
    #[arg(long, value_name = "NAME", default_value = "auto", value_parser = algorithm_parser())]
    algorithm: Algorithm,

    /// What to write, in the input's row order (with --rect).
    #[arg(long, value_enum, default_value_t = Emit::T, conflicts_with_all = ["rects", "polygon"])]
    emit: Emit,

    /// Worker threads (default: one per core). The output does not depend on it.
    #[arg(long, value_name = "N", value_parser = count(1, u16::MAX.into()))]
    threads: Option<usize>,

    /// No progress bar. (It only ever appears on a terminal, after about a second.)
    #[arg(short, long)]
    quiet: bool,

    /// Input rows x0, y0, x1, y1: .npy of shape (N, 4), float32 or float64, C order; .csv with
    /// the header x0,y0,x1,y1 (read as float64); or raw little-endian .f32 / .f64. Read
    /// through a memory map in bounded memory, whatever its size.
    input: PathBuf,

    /// Output .npy (.npz with --rects, --polygon or --grid), written to a temporary file and renamed
    /// only when complete; must not be the input.
    #[arg(short, long, value_name = "OUTPUT", value_parser = parse_output)]
    output: PathBuf,
}

/// `--rect` as given: checked in `f64`, converted to the input's dtype once that is known.
#[derive(Clone, Debug)]
struct RectArg {
    bounds: [f64; 4],
    text: String,
}

impl RectArg {
    /// The rect in `F`, rounded to nearest; an error if rounding made a bound infinite.
    fn to_rect<F: Real>(&self) -> Result<Rect<F>, Error> {
        let [xmin, ymin, xmax, ymax] = self.bounds.map(F::from_f64);
        Rect::new(xmin, ymin, xmax, ymax)
    }
}

/// `--rect`: [`parse_bounds`], keeping the text for messages.
fn parse_rect(s: &str) -> Result<RectArg, String> {
    Ok(RectArg {
        bounds: parse_bounds(s)?,
        text: s.to_string(),
    })
}

/// The names of [`Algorithm::ALL`] and `auto`, listed in `--help` and in the error for others.
fn algorithm_parser() -> impl TypedValueParser<Value = Algorithm> {
    let names = Algorithm::ALL
        .into_iter()
        .chain([Algorithm::Auto])
        .map(Algorithm::name);
    PossibleValuesParser::new(names).try_map(|name| Algorithm::from_name(&name))
}

/// `-o`: a path ending in `.npy` or `.npz` (any case), the formats written (which one a target
/// needs is checked when it runs).
fn parse_output(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match path.extension() {
        Some(e) if e.eq_ignore_ascii_case("npy") || e.eq_ignore_ascii_case("npz") => Ok(path),
        _ => Err(
            "the output is written as .npy (.npz with --rects, --polygon or --grid); give \
                  it a name ending in .npy or .npz"
                .into(),
        ),
    }
}

/// Runs `slabclip clip`. Nothing is written unless every row was read and clipped.
pub fn run(args: &ClipArgs) -> Result<(), Error> {
    if args.set.given() {
        return in_pool(args, || {
            clip_set::run(&args.set, args.algorithm, &args.input, &args.output)
        });
    }
    if args.grid.grid.is_some() {
        return in_pool(args, || {
            clip_grid::run(&args.grid, &args.input, &args.output)
        });
    }
    // `clip_file` refuses an output that is the input or lies in a missing folder before any
    // work.
    let input = Input::open(&args.input)?;
    in_pool(args, || match input.dtype() {
        Dtype::F32 => clip_as::<f32>(args, &input),
        Dtype::F64 => clip_as::<f64>(args, &input),
    })
}

/// Runs `work` in a pool of `--threads` threads, or rayon's global pool.
fn in_pool(args: &ClipArgs, work: impl FnOnce() -> Result<(), Error> + Send) -> Result<(), Error> {
    match args.threads {
        None => work(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error::file(&args.input, format!("cannot start {n} threads: {e}")))?
            .install(work),
    }
}

/// The clip in the input's own dtype `F`, with a progress bar.
fn clip_as<F: Real>(args: &ClipArgs, input: &Input) -> Result<(), Error> {
    let Some(arg) = &args.rect else {
        return Err(Error::InvalidArgument(
            "clip needs --rect, --rects, --polygon or --grid".into(),
        ));
    };
    if !args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
    {
        return Err(Error::file(
            &args.output,
            "--rect writes .npy; give the output a name ending in .npy",
        ));
    }
    let rect = arg.to_rect::<F>().map_err(|e| {
        Error::file(
            &args.input,
            format!(
                "--rect {} does not fit {}, the input's dtype ({e})",
                arg.text,
                F::DTYPE
            ),
        )
    })?;
    let settings = ClipSettings {
        algorithm: args.algorithm,
        emit: args.emit.to_io(),
        ..ClipSettings::default()
    };
    let mut bar = ProgressReport::new(args.quiet, input.size());
    let result = io::clip_file(input, &rect, &args.output, &settings, &mut |p| {
        bar.update(p)
    });
    bar.finish(result.is_ok());
    result.map(|_| ())
}

/// How long work runs before a progress bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A progress bar on stderr with the throughput, drawn once the work has run for
/// [`SHOW_AFTER`], and only when stderr is a terminal and `--quiet` was not given. It tracks
/// from the start (hidden), so its clock and rates count the whole run.
struct ProgressReport {
    start: Instant,
    bar: Option<ProgressBar>,
    shown: bool,
}

impl ProgressReport {
    fn new(quiet: bool, total_bytes: u64) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let style = ProgressStyle::with_template(
                "{elapsed_precise} {wide_bar} {binary_bytes}/{binary_total_bytes} \
                 {binary_bytes_per_sec} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden())
                .with_style(style)
        });
        ProgressReport {
            start: Instant::now(),
            bar,
            shown: false,
        }
    }

    fn update(&mut self, p: Progress) {
        let Some(bar) = &self.bar else { return };
        let elapsed = self.start.elapsed();
        bar.set_position(p.bytes);
        let rate = p.rows as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6;
        bar.set_message(format!("{} segments, {rate:.1} Mseg/s", p.rows));
        if !self.shown && elapsed >= SHOW_AFTER {
            self.shown = true;
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(250));
        }
    }

    /// Leaves the final line on success; clears it on failure so the error stands alone.
    fn finish(&self, ok: bool) {
        match &self.bar {
            Some(bar) if self.shown && ok => bar.finish(),
            Some(bar) => bar.finish_and_clear(),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_and_output_parsing() {
        assert_eq!(parse_rect("0,0,1,1").unwrap().bounds, [0.0, 0.0, 1.0, 1.0]);
        assert!(parse_output("a/b.NPY").is_ok());
        assert!(parse_output("out.csv")
            .unwrap_err()
            .contains("ending in .npy or .npz"));
        assert!(parse_output("hits.NPZ").is_ok());
        assert!(parse_output("npy").is_err());
        let big = parse_rect("0,0,1e39,1").unwrap();
        assert!(big.to_rect::<f64>().is_ok());
        assert!(big.to_rect::<f32>().is_err());
    }
}
