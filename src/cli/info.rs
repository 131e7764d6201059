//! `slabclip info`: what this binary can do.

use std::fmt::Write as _;

use slabclip::io::Format;
use slabclip::{Algorithm, Real};

/// Prints the version, the algorithms (and what `auto` picks), the precisions, the CPU, the best SIMD
/// level the CPU supports and the one the kernels run at, the input formats, and the
/// number of threads rayon would use (one per core unless `RAYON_NUM_THREADS` says otherwise).
pub fn run() {
    let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    let mut s = String::new();
    let _ = writeln!(s, "slabclip {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        s,
        "algorithms: {} (auto: {})",
        names.join(", "),
        slabclip::kernels::auto_rule()
    );
    let _ = writeln!(s, "precisions: {}, {}", f32::DTYPE, f64::DTYPE);
    let _ = writeln!(s, "cpu:        {}", cpu());
    let (detected, running) = (slabclip::simd::detected(), slabclip::simd::level());
    let _ = writeln!(s, "simd cpu:   {detected} (best this CPU runs)");
    let _ = writeln!(
        s,
        "simd runs:  {running} ({} f32 / {} f64 lanes; SLABCLIP_SIMD=v1|v3|v4 to lower)",
        running.lanes::<f32>(),
        running.lanes::<f64>()
    );
    let formats: Vec<String> = Format::ALL
        .iter()
        .map(|f| format!(".{}", f.extension()))
        .collect();
    let _ = writeln!(s, "inputs:     {} (output: .npy)", formats.join(", "));
    let _ = writeln!(
        s,
        "threads:    {} (clip --threads N to change)",
        rayon::current_num_threads()
    );
    crate::cli::print(&s);
}

/// The CPU's model and clock, as `/proc/cpuinfo` gives them (`AMD EPYC (family 25, model 17),
/// 2596 MHz`), for `info` and `compare`'s reports: speed figures depend on both. `unknown`
/// where that file is missing (not Linux) or says neither.
pub fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    // Family and model tell apart CPUs that one model name covers (AMD's `AMD EPYC` under a
    // hypervisor is Zen 4 as family 25, Zen 5 as 26).
    let model = match (field("model name"), field("cpu family"), field("model")) {
        (Some(m), Some(f), Some(k)) => Some(format!("{m} (family {f}, model {k})")),
        (m, _, _) => m,
    };
    match (model, field("cpu MHz")) {
        (Some(m), Some(mhz)) => format!("{m}, {} MHz", mhz.split('.').next().unwrap_or(&mhz)),
        (Some(m), None) => m,
        (None, Some(mhz)) => format!("{mhz} MHz"),
        (None, None) => "unknown".to_string(),
    }
}
