//! `slabclip info`: what this binary can do.

use slabclip::io::Format;
use slabclip::{Algorithm, Real};

/// Prints the version, the algorithms (and what `auto` picks), the precisions, the SIMD level
/// this binary was built for beside the best the CPU supports, the input formats, and the
/// number of threads rayon would use (one per core unless `RAYON_NUM_THREADS` says otherwise).
pub fn run() {
    let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    println!("slabclip {}", env!("CARGO_PKG_VERSION"));
    println!(
        "algorithms: {} (auto: {})",
        names.join(", "),
        slabclip::kernels::auto_rule()
    );
    println!("precisions: {}, {}", f32::DTYPE, f64::DTYPE);
    println!(
        "simd built: {} ({} f32 / {} f64 lanes)",
        slabclip::simd::BUILT_LEVEL,
        f32::LANES,
        f64::LANES
    );
    println!("simd cpu:   {}", slabclip::simd::detected_level());
    let formats: Vec<String> = Format::ALL
        .iter()
        .map(|f| format!(".{}", f.extension()))
        .collect();
    println!("inputs:     {} (output: .npy)", formats.join(", "));
    println!(
        "threads:    {} (clip --threads N to change)",
        rayon::current_num_threads()
    );
}
