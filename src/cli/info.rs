//! `slabclip info`: what this binary can do.

use std::fmt::Write as _;

use slabclip::io::Format;
use slabclip::{Algorithm, Real};

/// Prints the version, the algorithms (and what `auto` picks), the precisions, the SIMD level
/// this binary was built for beside the best the CPU supports, the input formats, and the
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
    let _ = writeln!(
        s,
        "simd built: {} ({} f32 / {} f64 lanes)",
        slabclip::simd::BUILT_LEVEL,
        f32::LANES,
        f64::LANES
    );
    let _ = writeln!(s, "simd cpu:   {}", slabclip::simd::detected_level());
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
