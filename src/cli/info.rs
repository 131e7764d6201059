//! `slabclip info`: what this binary can do.

use std::fmt::Write as _;

use slabclip::io::Format;
use slabclip::{Algorithm, Real};

/// Prints the version, the algorithms (and what `auto` picks), the precisions, the best SIMD
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
