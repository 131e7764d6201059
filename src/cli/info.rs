//! `slabclip info`: what this binary can do.

use slabclip::{Algorithm, Real};

/// Prints the version, the algorithms (and what `auto` picks), the precisions, and the SIMD
/// level this binary was built for beside the best the CPU supports.
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
}
