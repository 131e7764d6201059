//! What `compare` found: the rows of the table, printed on stdout and written by `--json`.

use std::fmt::Write as _;

use serde::Serialize;

use super::measure::Emit;

/// Everything one `compare` invocation measured.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `slabclip` version.
    pub version: &'static str,
    /// The SIMD level this binary's code outside the kernels was built for.
    pub simd_built: &'static str,
    /// The best level the CPU supports.
    pub simd_cpu: &'static str,
    /// The CPU's model and clock (`/proc/cpuinfo`): in-cache figures follow the clock.
    pub cpu: String,
    /// The level the kernels ran at (`SLABCLIP_SIMD` lowers it).
    pub simd_runs: &'static str,
    /// Threads in the pool the timed runs used.
    pub threads: usize,
    /// The output mode.
    pub emit: Emit,
    /// Timed samples per row; the median is reported.
    pub repeat: usize,
    /// Each sample lasts at least this long (milliseconds): its passes are calibrated per row.
    pub sample_ms: u32,
    /// Rows checked against the exact reference, at most, per workload.
    pub check: usize,
    /// One entry per workload.
    pub workloads: Vec<WorkloadReport>,
}

/// The rows measured on one workload.
#[derive(Debug, Serialize)]
pub struct WorkloadReport {
    /// The `--dist` name, or the input file.
    pub name: String,
    /// `float32` or `float64`.
    pub dtype: &'static str,
    /// Segments.
    pub n: usize,
    /// The rect, `[xmin, ymin, xmax, ymax]`.
    pub rect: [f64; 4],
    /// The seed (generated workloads only).
    pub seed: Option<u64>,
    /// Bytes read and written per segment.
    pub bytes_in: usize,
    /// Bytes written per segment.
    pub bytes_out: usize,
    /// Rows checked against the exact reference.
    pub checked: usize,
    /// One row per algorithm, then the baselines.
    pub rows: Vec<Row>,
}

/// What a row measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A clip algorithm (SPEC §1 holds).
    Algorithm,
    /// `naive-slab`: the textbook slab, outside the contract; a baseline of speed, whose
    /// reference mismatches are expected and do not fail the run.
    NaiveBaseline,
    /// Read every input byte and write every output byte (plain or streaming stores).
    MemoryCeiling,
    /// Read every input byte.
    ReadOnly,
}

/// One row of the table.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The algorithm's name, or which baseline.
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// Whether the row is outside SPEC §1 (`naive-slab`): its mismatches are what exactness
    /// buys, not a failure.
    pub outside_contract: bool,
    /// Median throughput, millions of segments per second.
    pub mseg_per_s: f64,
    /// Median nanoseconds per segment.
    pub ns_per_segment: f64,
    /// `liang-barsky`'s median time over this row's, same run.
    pub speedup_vs_liang_barsky: f64,
    /// The memory ceiling's median time (the faster of plain and streaming stores) over this
    /// row's, in percent.
    pub percent_of_ceiling: f64,
    /// The read-only pass's median time over this row's, in percent (`--emit class` only).
    pub percent_of_read_only: Option<f64>,
    /// Sampled rows that broke SPEC §1 against the exact reference (clips only).
    pub reference_mismatches: Option<usize>,
    /// The first such row, described.
    pub first_mismatch: Option<String>,
    /// Rows of the whole batch whose output bits differ from `liang-barsky`'s (clips only).
    /// Not an error by itself: SPEC §1 allows some ulps, and a graze either way.
    pub differ_from_liang_barsky: Option<usize>,
    /// Passes over the whole batch per timed sample (calibrated to `sample_ms`).
    pub passes_per_sample: usize,
    /// Every timed sample, as seconds per pass.
    pub times_s: Vec<f64>,
}

impl Report {
    /// Reference mismatches over all workloads and algorithms (not the naive baseline's).
    pub fn mismatches(&self) -> usize {
        self.workloads
            .iter()
            .flat_map(|w| &w.rows)
            .filter(|r| !r.outside_contract)
            .filter_map(|r| r.reference_mismatches)
            .sum()
    }
}

impl WorkloadReport {
    /// The table for this workload, as printed on stdout.
    pub fn table(&self, report: &Report) -> String {
        let mut s = String::new();
        let threads = match report.threads {
            1 => "1 thread".to_string(),
            t => format!("{t} threads"),
        };
        let seed = self.seed.map(|s| format!(", seed {s}")).unwrap_or_default();
        let [x0, y0, x1, y1] = self.rect;
        let _ = writeln!(
            s,
            "{}: {} segments, {}{seed}, rect {x0},{y0},{x1},{y1}, --emit {} ({} B in + {} B out per segment), {threads}, median of {} samples of at least {} ms, SIMD {} (CPU's best: {}), {}",
            self.name,
            self.n,
            self.dtype,
            emit_name(report.emit),
            self.bytes_in,
            self.bytes_out,
            report.repeat,
            report.sample_ms,
            report.simd_runs,
            report.simd_cpu,
            report.cpu,
        );
        let class = report.emit == Emit::Class;
        let _ = write!(
            s,
            "  {:<33} {:>9} {:>8} {:>9} {:>10}",
            "", "Mseg/s", "ns/seg", "speed-up", "% ceiling"
        );
        if class {
            let _ = write!(s, " {:>11}", "% read-only");
        }
        let _ = writeln!(
            s,
            " {:>22} {:>16}",
            format!("ref. mismatches/{}", self.checked),
            "≠ liang-barsky"
        );
        for r in &self.rows {
            let _ = write!(
                s,
                "  {:<33} {:>9.1} {:>8.3} {:>8.2}x {:>9.1}%",
                r.name,
                r.mseg_per_s,
                r.ns_per_segment,
                r.speedup_vs_liang_barsky,
                r.percent_of_ceiling
            );
            if class {
                let p = r.percent_of_read_only.unwrap_or(f64::NAN);
                let _ = write!(s, " {:>10.1}%", p);
            }
            let opt = |v: Option<usize>| v.map_or("-".to_string(), |v| v.to_string());
            let _ = writeln!(
                s,
                " {:>22} {:>16}",
                opt(r.reference_mismatches),
                opt(r.differ_from_liang_barsky)
            );
        }
        for line in [
            "speed-up: against liang-barsky; % ceiling: of reading the input and writing the output once",
            "ref. mismatches: checked rows that break the contract (against the exact reference)",
            "≠ liang-barsky: rows whose bits differ from liang-barsky's (the contract allows 6 ulps)",
        ] {
            let _ = writeln!(s, "  {line}");
        }
        for r in &self.rows {
            if r.outside_contract {
                let _ = writeln!(
                    s,
                    "  {}: a baseline OUTSIDE the contract (no exactness); its mismatches show what exactness buys, and do not fail the run",
                    r.name
                );
            }
        }
        for r in &self.rows {
            if let Some(m) = &r.first_mismatch {
                let _ = writeln!(s, "  first mismatch: {m}");
            }
        }
        s
    }
}

/// The `--emit` value as typed.
pub fn emit_name(e: Emit) -> &'static str {
    match e {
        Emit::T => "t",
        Emit::Class => "class",
        Emit::Segments => "segments",
    }
}
