//! `slabclip compare`: every algorithm on the same data, checked and timed, beside what the
//! memory system allows.
//!
//! Per workload (a generated `--dist`, or `--input FILE`):
//! 1. The input is made structure-of-arrays once; output buffers for the `--emit` mode are
//!    allocated and touched once. Nothing below is timed but step 3.
//! 2. Every algorithm of [`Algorithm::ALL`], `auto` and the `naive-slab` baseline (outside the
//!    contract: [`slabclip::kernels::NaiveSlab`]) run once: the output is compared bit for bit
//!    with `liang-barsky`'s on the whole batch, and a subsample is checked against the exact
//!    reference (`check.rs`). The naive row's mismatches are shown, and do not fail the run.
//! 3. Inside the thread pool, entered once: each row's passes per sample are calibrated so that
//!    a sample lasts `--sample-ms`; then `--repeat` rounds, each taking one sample of every
//!    algorithm, the baseline, the memory ceiling and (for `--emit class`) the read-only pass,
//!    in that order. A sample's time over its passes is one pass; a row reports the median.
//!
//! On a terminal a progress bar on stderr follows steps 2 and 3 (`--quiet` hides it); with
//! stderr redirected nothing is written there but errors.
//!
//! The memory ceiling reads the same input bytes and writes the same output bytes as the mode,
//! with no arithmetic to speak of (`measure.rs`): the speed no clip kernel can beat. It is
//! timed twice, with plain stores (as the kernels write) and with streaming (non-temporal)
//! stores, which skip reading the output lines and are much faster far beyond the caches; the
//! faster of the two is the ceiling every "% ceiling" is taken against. (With `--emit class`,
//! one byte out per sixteen in, only the plain one is timed.)

use crate::cli::args::{count, parse_bounds};

mod check;
mod measure;
mod report;
mod svg;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use slabclip::io::{self, Batch};
use slabclip::workload::Dist;
use slabclip::{Algorithm, Error, Real, Rect, Segments};

use super::gen::Precision;
use measure::{median, Emit, Outputs, Runner, Stores, Subject};
use report::{Kind, Report, Row, WorkloadReport};

/// Arguments of `slabclip compare`.
#[derive(Debug, Args)]
#[command(after_help = "\
Rows: every algorithm, auto, naive-slab (a baseline outside the contract: the textbook slab with \
no exactness, to show what exactness costs and buys; its mismatches do not fail the run), the \
memory ceiling (a plain read of the input bytes and write of the \
output bytes of --emit, with plain and with streaming stores) and, for --emit class, a read-only \
pass. Columns: median Mseg/s, ns per \
segment, speed-up over liang-barsky in the same run, percent of the ceiling (the faster of the two), rows of the --check \
subsample that break the contract against the exact reference, and rows of the whole batch whose \
output bits differ from liang-barsky's (allowed within SPEC §1's ulps).
Exit status: 0, or 1 when a row broke the contract (after the table, --json and --svg are written).")]
pub struct CompareArgs {
    /// Workloads to generate, comma-separated, or `all`.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', default_value = "mixed",
          value_parser = dist_or_all(), conflicts_with = "input")]
    dist: Vec<DistArg>,

    /// Segments per generated workload; K, M, G multiply by 2^10, 2^20, 2^30 (e.g. 64K, 16M).
    #[arg(long, value_name = "N", default_value = "1M", value_parser = count(1, usize::MAX))]
    n: usize,

    /// The seed of the generated workloads.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,

    /// The dtype of the generated workloads (an --input file keeps its own).
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    precision: Precision,

    /// Threads in the pool of the timed runs: the batch is cut into pieces they share (`auto`
    /// gets it whole and splits it itself).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count(1, u16::MAX.into()))]
    threads: usize,

    /// What each algorithm writes per segment.
    #[arg(long, value_enum, default_value_t = Emit::T)]
    emit: Emit,

    /// Timed samples per row; the median is reported.
    #[arg(long, value_name = "R", default_value_t = 11, value_parser = count(1, u16::MAX.into()))]
    repeat: usize,

    /// Each sample runs as many passes over the batch as take at least this long (calibrated
    /// per row), and reports the time of one pass: small batches are timed at the speed of
    /// their loop, not of the timer and the thread pool around it. Short samples, many of
    /// them, suit a busy machine: most fit between the other processes' turns, and the median
    /// is theirs.
    #[arg(long, value_name = "MS", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=60_000))]
    sample_ms: u32,

    /// At most this many rows per workload are checked against the exact reference (an odd
    /// stride through the batch); 0 checks none. K, M, G as for --n.
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = count(0, usize::MAX))]
    check: usize,

    /// Compare on this file instead of generated workloads (rows x0, y0, x1, y1).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// The rect for --input, XMIN,YMIN,XMAX,YMAX (generated workloads bring their own).
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", default_value = "0,0,1,1",
          allow_hyphen_values = true, value_parser = parse_bounds, requires = "input")]
    rect: [f64; 4],

    /// Also write the results as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Also draw them as an SVG chart: Mseg/s per algorithm for each workload.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,

    /// No progress bar. (It only ever appears on a terminal: with stderr redirected, nothing
    /// is written there but errors.)
    #[arg(short, long)]
    quiet: bool,
}

/// One `--dist` value: a workload, or every one.
#[derive(Clone, Copy, Debug)]
enum DistArg {
    One(Dist),
    All,
}

fn dist_or_all() -> impl clap::builder::TypedValueParser<Value = DistArg> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    let names = Dist::ALL.map(Dist::name).into_iter().chain(["all"]);
    PossibleValuesParser::new(names).try_map(|name| match name.as_str() {
        "all" => Ok(DistArg::All),
        _ => Dist::from_name(&name).map(DistArg::One),
    })
}

/// The progress bar of one workload on stderr: only on a terminal and without `--quiet`
/// (else hidden: nothing is drawn), cleared before the workload's table is printed.
fn progress_bar(quiet: bool, steps: u64, name: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style =
        ProgressStyle::with_template("{elapsed_precise} {prefix} {wide_bar} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr())
        .with_style(style)
        .with_prefix(name.to_string());
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// Runs `slabclip compare`.
pub fn run(args: &CompareArgs) -> Result<(), Error> {
    for path in [&args.json, &args.svg].into_iter().flatten() {
        io::output_folder(path)?;
    }
    let mut report = Report {
        version: env!("CARGO_PKG_VERSION"),
        simd_built: slabclip::simd::BUILT_LEVEL,
        simd_cpu: slabclip::simd::detected().describe(),
        cpu: crate::cli::info::cpu(),
        simd_runs: slabclip::simd::level().describe(),
        threads: args.threads,
        emit: args.emit,
        repeat: args.repeat,
        sample_ms: args.sample_ms,
        check: args.check,
        workloads: Vec::new(),
    };
    if let Some(path) = &args.input {
        let label = path.display().to_string();
        let w = match io::read_segments(path)? {
            Batch::F32(v) => on_file::<f32>(args, &report, path, label, &v)?,
            Batch::F64(v) => on_file::<f64>(args, &report, path, label, &v)?,
        };
        report.workloads.push(w);
    } else {
        let mut dists: Vec<Dist> = Vec::new();
        for d in &args.dist {
            match d {
                DistArg::All => dists.extend(Dist::ALL),
                DistArg::One(d) => dists.push(*d),
            }
        }
        dists.dedup();
        for d in dists {
            let w = match args.precision {
                Precision::F32 => generated::<f32>(args, &report, d),
                Precision::F64 => generated::<f64>(args, &report, d),
            }?;
            report.workloads.push(w);
        }
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::file(path, format!("cannot encode the report: {e}")))?;
        io::write_atomically(path, |w| w.write_all(text.as_bytes()))?;
    }
    if let Some(path) = &args.svg {
        let text = svg::chart(&report);
        io::write_atomically(path, |w| w.write_all(text.as_bytes()))?;
    }
    match report.mismatches() {
        0 => Ok(()),
        m => Err(Error::Failed(format!(
            "{m} checked rows broke the contract against the exact reference (see the table)"
        ))),
    }
}

fn generated<F: Real>(
    args: &CompareArgs,
    report: &Report,
    d: Dist,
) -> Result<WorkloadReport, Error> {
    let w = d.generate::<F>(args.n, args.seed);
    let mut r = measure_workload(args, report, d.name().to_string(), &w.rect, &w.segments)?;
    r.seed = Some(args.seed);
    Ok(r)
}

fn on_file<F: Real>(
    args: &CompareArgs,
    report: &Report,
    path: &std::path::Path,
    label: String,
    values: &[F],
) -> Result<WorkloadReport, Error> {
    let [xmin, ymin, xmax, ymax] = args.rect.map(F::from_f64);
    let rect = Rect::new(xmin, ymin, xmax, ymax).map_err(|e| {
        Error::file(
            path,
            format!("--rect does not fit {}, the file's dtype ({e})", F::DTYPE),
        )
    })?;
    if values.is_empty() {
        return Err(Error::file(path, "no segments to compare"));
    }
    let segments = Segments::from_interleaved(values)?;
    measure_workload(args, report, label, &rect, &segments)
}

/// Steps 1–3 of the module docs on one batch; prints its table.
fn measure_workload<F: Real>(
    args: &CompareArgs,
    report: &Report,
    name: String,
    rect: &Rect<F>,
    segments: &Segments<F>,
) -> Result<WorkloadReport, Error> {
    let n = segments.len();
    let emit = args.emit;
    let runner = Runner::new(*rect, segments.as_ref(), args.threads).map_err(Error::Failed)?;
    let algorithms: Vec<Algorithm> = Algorithm::ALL
        .into_iter()
        .chain([Algorithm::Auto])
        .collect();
    let baseline = Algorithm::LiangBarsky;

    // Untimed: each clip once, compared with the baseline and checked on the sample.
    let clips: Vec<Subject> = algorithms
        .iter()
        .map(|&a| Subject::Clip(a))
        .chain([Subject::Naive])
        .collect();
    let stores: &[Stores] = if emit == Emit::Class {
        &[Stores::Plain]
    } else {
        &Stores::ALL
    };
    // Steps of the progress bar: the baseline and each clip checked, then per timed subject
    // its calibration and `repeat` samples.
    let timed = clips.len() + stores.len() + usize::from(emit == Emit::Class);
    let steps = 1 + clips.len() + timed * (args.repeat + 1);
    let bar = progress_bar(args.quiet, steps as u64, &name);
    bar.set_message("checking against the exact reference");
    let sample = check::Sample::new(rect, &segments.as_ref(), args.check);
    let mut base = Outputs::<F>::new(emit, n);
    let mut scratch = Outputs::<F>::new(emit, n);
    runner.run(Subject::Clip(baseline), &mut base);
    bar.inc(1);
    let mut checks = Vec::new();
    for &s in &clips {
        runner.run(s, &mut scratch);
        let differ = scratch.differences(&base);
        let verdict = check::check(s, rect, &sample, emit, &scratch);
        checks.push((differ, verdict));
        bar.inc(1);
    }

    // Timed: the clips, then the ceilings and (class codes) the read-only pass. Class codes
    // are 1 byte out per 16 in: the streaming variant writes them as the plain one does (see
    // `measure.rs`), so it gets no row of its own.
    let mut subjects = clips;
    subjects.extend(stores.iter().map(|&s| Subject::Ceiling(s)));
    if emit == Emit::Class {
        subjects.push(Subject::ReadOnly);
    }
    let sample_time = Duration::from_millis(args.sample_ms.into());
    bar.set_message(format!("timing, {} rounds", args.repeat));
    let timings = runner.time(&subjects, &mut scratch, args.repeat, sample_time, &|| {
        bar.inc(1)
    });
    bar.finish_and_clear();
    let medians: Vec<f64> = timings
        .iter()
        .map(|t| median(&t.per_pass).as_secs_f64())
        .collect();
    let at = |s: Subject| medians[subjects.iter().position(|&x| x == s).expect("timed")];
    let base_t = at(Subject::Clip(baseline));
    let ceiling_t = stores
        .iter()
        .map(|&s| at(Subject::Ceiling(s)))
        .fold(f64::INFINITY, f64::min);
    let read_only_t = (emit == Emit::Class).then(|| at(Subject::ReadOnly));

    let rows = subjects
        .iter()
        .zip(&medians)
        .zip(&timings)
        .enumerate()
        .map(|(i, ((s, &t), timing))| {
            let kind = match s {
                Subject::Clip(_) => Kind::Algorithm,
                Subject::Naive => Kind::NaiveBaseline,
                Subject::Ceiling(_) => Kind::MemoryCeiling,
                Subject::ReadOnly => Kind::ReadOnly,
            };
            let check = checks.get(i);
            Row {
                name: s.name().to_string(),
                kind,
                outside_contract: kind == Kind::NaiveBaseline,
                mseg_per_s: n as f64 / t / 1e6,
                ns_per_segment: t / n as f64 * 1e9,
                speedup_vs_liang_barsky: base_t / t,
                percent_of_ceiling: 100.0 * ceiling_t / t,
                percent_of_read_only: read_only_t.map(|r| 100.0 * r / t),
                reference_mismatches: check.map(|c| c.1.mismatches),
                first_mismatch: check.and_then(|c| c.1.first.clone()),
                differ_from_liang_barsky: check.map(|c| c.0),
                passes_per_sample: timing.passes,
                times_s: timing.per_pass.iter().map(|d| d.as_secs_f64()).collect(),
            }
        })
        .collect();
    let w = WorkloadReport {
        name,
        dtype: F::DTYPE,
        n,
        rect: [rect.xmin(), rect.ymin(), rect.xmax(), rect.ymax()].map(F::to_f64),
        seed: None,
        bytes_in: 4 * size_of::<F>(),
        bytes_out: emit.bytes_out::<F>(),
        checked: sample.len(),
        rows,
    };
    crate::cli::print(&format!("{}\n", w.table(report)));
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(parse_bounds("-1,0,2,3.5"), Ok([-1.0, 0.0, 2.0, 3.5]));
        assert!(parse_bounds("0,0,1").unwrap_err().contains("found 3"));
        assert!(parse_bounds("1,0,0,1").is_err());
        assert!(parse_bounds("0,0,x,1").is_err());
    }
}
