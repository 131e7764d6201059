//! `slabclip info`: what this binary can do.

use slabclip::{Algorithm, Real};

/// Prints the version, the algorithms (and what `auto` picks) and the precisions.
pub fn run() {
    let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    println!("slabclip {}", env!("CARGO_PKG_VERSION"));
    println!(
        "algorithms: {} (auto: {})",
        names.join(", "),
        Algorithm::Auto.resolve().name()
    );
    println!("precisions: {}, {}", f32::DTYPE, f64::DTYPE);
}
