//! The same bits at every SIMD level: `simd-slab` (broadcast and pairwise) and ray × rect
//! (broadcast and pairwise) on fixed workloads, every output folded into one FNV-1a digest per
//! precision and compared with a constant, at every level this CPU runs (x86-64's SSE2 with no
//! FMA, where `Lane::mul_plus_zero` is emulated; v3's AVX2 lanes; v4's AVX-512 lanes), each
//! forced in turn in this one binary. So a level whose arithmetic parts from the others fails
//! here even when it agrees with its own `slab-scalar`.
//!
//! The constants change only when the contract's answers change on purpose: then print the new
//! digests (`cargo test --test suite levels:: -- --nocapture`) at one level and check the others.

use crate::common;

use common::cases::{case, TestFloat};
use slabclip::cast::{cast_rect, cast_rects, RectCastOutput};
use slabclip::workload::Dist;
use slabclip::{Algorithm, RaysRef, Real, Rect, Segment, Segments};

/// FNV-1a, 64 bits: stable across Rust versions and platforms (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: impl IntoIterator<Item = u8>) {
        for x in b {
            self.0 = (self.0 ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    fn floats<F: Real>(&mut self, v: &[F]) {
        for x in v {
            self.bytes(x.to_bits_u64().to_le_bytes());
        }
    }
}

/// Every output of a clip (`t`, class codes, the clipped segment) and of a ray cast (`t`, class
/// codes) of `segs`, pairwise against `rects` or against `rects[0]` alone.
fn fold<F: Real>(h: &mut Fnv, rects: &[Rect<F>], segs: &Segments<F>, pairwise: bool) {
    let clip = if pairwise {
        common::pairwise(Algorithm::SimdSlab, rects, &segs.as_ref())
    } else {
        Algorithm::SimdSlab.clip_to_vec(&rects[0], &segs.as_ref(), true)
    };
    h.floats(&clip.t_entry);
    h.floats(&clip.t_exit);
    h.bytes(clip.class.iter().copied());
    h.floats(&clip.segments.expect("asked for").to_interleaved());
    // The same columns as rays: origin `P0`, direction `P1` (not `P1 − P0`: any values do).
    let (ox, oy, dx, dy) = segs.as_ref().columns();
    let rays = RaysRef::new(ox, oy, dx, dy).unwrap();
    let n = ox.len();
    let (mut te, mut tx, mut cl) = (vec![F::NAN; n], vec![F::NAN; n], vec![0u8; n]);
    let mut out = RectCastOutput {
        t_entry: Some(&mut te),
        t_exit: Some(&mut tx),
        class: Some(&mut cl),
    };
    let t_max = F::from_f64(1.5);
    if pairwise {
        cast_rects(rects, &rays, t_max, &mut out)
    } else {
        cast_rect(&rects[0], &rays, t_max, &mut out)
    }
    .unwrap();
    h.floats(&te);
    h.floats(&tx);
    h.bytes(cl);
}

/// The digest of this build's answers: every generated workload (one rect each, 4,099
/// segments: no multiple of any SIMD width) and 20,000 adversarial cases aimed at edges,
/// corners, ulp neighbours, signed zeros, NaN, ±∞ and extreme magnitudes, each with its own rect.
fn digest<F: TestFloat>() -> u64 {
    let mut h = Fnv(0xCBF2_9CE4_8422_2325);
    for dist in Dist::ALL {
        let w = dist.generate::<F>(4099, 11);
        fold(&mut h, &[w.rect], &w.segments, false);
    }
    let (rects, rows): (Vec<Rect<F>>, Vec<Segment<F>>) = (0..20_000u64)
        .map(|i| case::<F>(0x001E_7E15 ^ (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .unzip();
    fold(&mut h, &rects, &Segments::from_rows(&rows), true);
    h.0
}

/// The digest at every level this CPU runs, each against `want`.
fn at_every_level<F: TestFloat>(want: u64) {
    let ran = common::levels::each(|level| {
        let got = digest::<F>();
        println!("{} digest at {level}: {got:#018x}", F::DTYPE);
        assert_eq!(got, want, "{} digest at {level}: {got:#018x}", F::DTYPE);
        level
    });
    println!("levels run: {ran:?}");
}

#[test]
fn f32_answers_are_the_same_bits_at_every_level() {
    at_every_level::<f32>(0xC18B_CD72_0A25_ADD7);
}

#[test]
fn f64_answers_are_the_same_bits_at_every_level() {
    at_every_level::<f64>(0x154C_F73B_06C9_AFC2);
}
