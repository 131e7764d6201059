//! Ray × rect against the exact rational slab on `[0, t_max]`: random cases aimed at edges,
//! corners, ulp neighbours, signed zeros, extreme magnitudes and invalid rays (the segment
//! generators, a segment `P0 → P1` read as the ray `O = P0`, `D = P1 − P0`), and every batch
//! length from 0 to 67 through both batch shapes, bit for bit against the one-ray path. The
//! checker is `common::cast_reference::check_ray_rect` (6 ulps, `t_exit == 0` only at `O`).

use crate::common;

use common::cases::{case, Rng, TestFloat};
use common::cast_reference::check_ray_rect as check;
use proptest::prelude::*;
use slabclip::cast::{cast_rect, cast_rect_one, cast_rects, RectCastOutput};
use slabclip::{Ray, Rays, Rect};

/// Cases per precision (each precision runs this many: 2 × 100,000 for the query).
const CASES: u32 = 100_000;

fn ray_case<F: TestFloat>(seed: u64) -> (Rect<F>, Ray<F>, F) {
    let (r, s) = case::<F>(seed);
    let g = &mut Rng(seed ^ 0x5eed);
    let t_max = match g.below(4) {
        0 => F::ONE,
        1 => F::from_f64(g.int(0, 3) as f64),
        2 => F::from_f64(g.unit() * 2.0),
        _ => F::INFINITY,
    };
    (r, Ray::new(s.x0, s.y0, s.x1 - s.x0, s.y1 - s.y0), t_max)
}

fn check_seed<F: TestFloat>(seed: u64) -> Result<(), TestCaseError> {
    let (r, ray, t_max) = ray_case::<F>(seed);
    let c = cast_rect_one(&r, &ray, t_max).map_err(|e| TestCaseError::fail(e.to_string()))?;
    check(&r, &ray, t_max, &c).map_err(|m| TestCaseError::fail(format!("seed {seed:#x}: {m}")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ray_rect_f32_meets_the_contract(seed in any::<u64>()) {
        check_seed::<f32>(seed)?;
    }

    #[test]
    fn ray_rect_f64_meets_the_contract(seed in any::<u64>()) {
        check_seed::<f64>(seed)?;
    }
}

/// Both batch shapes at every length 0..=67: SIMD lanes and the scalar tail give the one-ray
/// answer bit for bit.
fn batches<F: TestFloat>() {
    for n in 0..=67usize {
        let cases: Vec<_> = (0..n as u64)
            .map(|i| ray_case::<F>(i * 7919 + n as u64))
            .collect();
        let t_max = if n % 3 == 0 { F::INFINITY } else { F::ONE };
        let rows: Vec<Ray<F>> = cases.iter().map(|c| c.1).collect();
        let rects: Vec<Rect<F>> = cases.iter().map(|c| c.0).collect();
        let rays = Rays::from_rows(&rows);
        let first = rects
            .first()
            .copied()
            .unwrap_or(Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap());
        for pairwise in [false, true] {
            let (mut te, mut tx, mut k) = (vec![F::ZERO; n], vec![F::ZERO; n], vec![0u8; n]);
            let mut out = RectCastOutput {
                t_entry: Some(&mut te),
                t_exit: Some(&mut tx),
                class: Some(&mut k),
            };
            if pairwise {
                cast_rects(&rects, &rays.as_ref(), t_max, &mut out).unwrap();
            } else {
                cast_rect(&first, &rays.as_ref(), t_max, &mut out).unwrap();
            }
            for i in 0..n {
                let r = if pairwise { rects[i] } else { first };
                let want = cast_rect_one(&r, &rows[i], t_max).unwrap();
                assert_eq!(
                    (te[i].to_bits_u64(), tx[i].to_bits_u64(), k[i]),
                    (
                        want.t_entry.to_bits_u64(),
                        want.t_exit.to_bits_u64(),
                        want.class as u8
                    ),
                    "n {n} lane {i} pairwise {pairwise}: batch differs from one ray"
                );
                check(&r, &rows[i], t_max, &want).unwrap();
            }
        }
    }
}

#[test]
fn batches_give_the_one_ray_bits_f32() {
    batches::<f32>();
}

#[test]
fn batches_give_the_one_ray_bits_f64() {
    batches::<f64>();
}

#[test]
fn bad_arguments_are_errors_before_any_work() {
    let r = Rect::new(0.0f64, 0.0, 1.0, 1.0).unwrap();
    let rays = Rays::from_rows(&[Ray::new(0.5f64, 0.5, 1.0, 0.0); 3]);
    let mut short = vec![7.0; 2];
    let err = cast_rect(
        &r,
        &rays.as_ref(),
        f64::INFINITY,
        &mut RectCastOutput {
            t_entry: Some(&mut short),
            ..Default::default()
        },
    );
    assert!(err
        .unwrap_err()
        .to_string()
        .contains("t_entry has 2 elements, expected 3"));
    assert_eq!(short, [7.0, 7.0], "nothing written");
    for bad in [f64::NAN, -1.0] {
        let e = cast_rect_one(&r, &Ray::new(0.0, 0.0, 1.0, 0.0), bad).unwrap_err();
        assert!(e.to_string().contains("t_max"), "{e}");
    }
    let e = cast_rects(&[r], &rays.as_ref(), 1.0, &mut RectCastOutput::default()).unwrap_err();
    assert!(
        e.to_string().contains("rects has 1 elements, expected 3"),
        "{e}"
    );
}
