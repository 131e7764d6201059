//! Shared test support: the exact rational reference, the contract checker every algorithm goes
//! through, and generators aimed at the hard places.
#![allow(dead_code)]

pub mod cases;
pub mod cast_cases;
pub mod cast_reference;
pub mod levels;
pub mod reference;
pub mod runner;

use slabclip::{Algorithm, ClipOutput, ClipResults, Real, Rect, SegmentSource, Segments};

/// How many cases a heavy property test runs: all `full` of them when `SLABCLIP_TEST_HEAVY=1`,
/// an eighth by default, so that the everyday test command stays short. Both draw from the
/// same generators; the heavy run only looks longer.
pub fn budget(full: u32) -> u32 {
    if heavy() {
        full
    } else {
        (full / 8).max(1)
    }
}

/// Whether `SLABCLIP_TEST_HEAVY=1` asks for the heavy runs in full.
pub fn heavy() -> bool {
    std::env::var("SLABCLIP_TEST_HEAVY").is_ok_and(|v| v == "1")
}

/// `alg`'s pairwise clip (segment `i` against `rects[i]`) into fresh buffers: every output,
/// clipped segments included.
pub fn pairwise<F: Real, S: SegmentSource<F> + ?Sized>(
    alg: Algorithm,
    rects: &[Rect<F>],
    segs: &S,
) -> ClipResults<F> {
    let n = segs.len();
    let (mut te, mut tx, mut cl) = (vec![F::NAN; n], vec![F::NAN; n], vec![0u8; n]);
    let mut clipped = Segments::nan(n);
    let mut out = ClipOutput {
        t_entry: Some(&mut te),
        t_exit: Some(&mut tx),
        class: Some(&mut cl),
        segments: Some(clipped.as_mut()),
    };
    alg.clip_pairwise(rects, segs, &mut out).unwrap();
    ClipResults {
        t_entry: te,
        t_exit: tx,
        class: cl,
        segments: Some(clipped),
    }
}
