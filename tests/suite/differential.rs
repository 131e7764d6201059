//! Every algorithm, in both precisions, against the exact rational reference: random cases aimed
//! at the hard places (proptest), and every batch length from 0 to 67 through the batch API.
//! The batch tests run at every SIMD level this CPU has (`common::levels::each`).

use crate::common;

use common::cases::{case, case_in, TestFloat};
use common::reference::exact;
use common::runner::{check, check_against};
use proptest::prelude::*;
use slabclip::{rows_from_interleaved, Algorithm, ClipOutput, Real, Rect, Segment, Segments};

/// Cases per precision; each runs every algorithm, so each algorithm sees this many.
const CASES: u32 = 100_000;

fn check_all<F: TestFloat>(seed: u64) -> Result<(), TestCaseError> {
    let (r, s) = case::<F>(seed);
    let e = exact(&r, &s);
    for alg in Algorithm::ALL {
        let c = alg.clip_one(&r, &s);
        let cs = c.segment(&r, &s);
        check_against(&e, alg, &r, &s, &c, &cs)
            .map_err(|m| TestCaseError::fail(format!("seed {seed:#x}: {m}")))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_algorithm_f32_meets_the_contract(seed in any::<u64>()) {
        check_all::<f32>(seed)?;
    }

    #[test]
    fn every_algorithm_f64_meets_the_contract(seed in any::<u64>()) {
        check_all::<f64>(seed)?;
    }
}

/// A batch of segments generated for one rect (the first case's) through the vector kernels
/// (`simd-slab`, `hybrid`'s prefilter and queue, `auto`): the same bits as `slab-scalar`, and the
/// contract.
fn simd_batch<F: TestFloat>(seeds: &[u64]) -> Result<(), TestCaseError> {
    let Some(&first) = seeds.first() else {
        return Ok(());
    };
    let (r, _) = case::<F>(first);
    let rows: Vec<Segment<F>> = seeds.iter().map(|&s| case_in::<F>(s, &r)).collect();
    let want: Vec<_> = rows
        .iter()
        .map(|s| {
            let c = Algorithm::SlabScalar.clip_one(&r, s);
            (c, c.segment(&r, s))
        })
        .collect();
    for alg in [Algorithm::SimdSlab, Algorithm::Hybrid, Algorithm::Auto] {
        let got = alg.clip_to_vec(&r, &Segments::from_rows(&rows).as_ref(), true);
        let segs = got.segments.as_ref().unwrap();
        let (x0, y0, x1, y1) = segs.as_ref().columns();
        for (i, (s, (w, ws))) in rows.iter().zip(&want).enumerate() {
            let same = bits(&[got.t_entry[i], got.t_exit[i], x0[i], y0[i], x1[i], y1[i]])
                == bits(&[w.t_entry, w.t_exit, ws.x0, ws.y0, ws.x1, ws.y1])
                && got.class[i] == w.class as u8;
            prop_assert!(
                same,
                "{alg} lane {i} differs from slab-scalar: rect {r:?} seg {s:?}"
            );
        }
    }
    // The same bits for all: the contract once per row.
    for (s, (w, ws)) in rows.iter().zip(&want) {
        check(Algorithm::SimdSlab, &r, s, w, ws).map_err(|m| {
            TestCaseError::fail(format!("vector kernels (slab-scalar's bits): {m}"))
        })?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(3_000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn vector_kernels_give_slab_scalar_bits_f32(seeds in proptest::collection::vec(any::<u64>(), 0..70)) {
        at_every_level(|| simd_batch::<f32>(&seeds))?;
    }

    #[test]
    fn vector_kernels_give_slab_scalar_bits_f64(seeds in proptest::collection::vec(any::<u64>(), 0..70)) {
        at_every_level(|| simd_batch::<f64>(&seeds))?;
    }
}

/// `case()` at every SIMD level this CPU runs; the first failure names its level.
fn at_every_level(
    mut case: impl FnMut() -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    common::levels::each(|level| {
        case().map_err(|e| TestCaseError::fail(format!("at SIMD level {level}: {e}")))
    })
    .into_iter()
    .collect()
}

/// A batch of `n` cases against one rect (the rect of the first case).
fn batch<F: TestFloat>(n: usize, seed: u64) -> (Rect<F>, Vec<Segment<F>>) {
    let (r, _) = case::<F>(seed);
    let segs = (0..n as u64)
        .map(|i| case_in::<F>(seed ^ (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15), &r))
        .collect();
    (r, segs)
}

fn bits<F: Real>(v: &[F]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits_u64()).collect()
}

fn batches_match_single_clips<F: TestFloat>() {
    for n in 0..=67usize {
        let (r, rows) = batch::<F>(n, 0xC11F + n as u64);
        let soa = Segments::from_rows(&rows);
        let flat: Vec<F> = soa.to_interleaved();
        let view = rows_from_interleaved(&flat).unwrap();
        for alg in Algorithm::ALL.into_iter().chain([Algorithm::Auto]) {
            let want: Vec<_> = rows.iter().map(|s| alg.clip_one(&r, s)).collect();
            let from_soa = alg.clip_to_vec(&r, &soa.as_ref(), true);
            let from_rows = alg.clip_to_vec(&r, view, true);
            for got in [&from_soa, &from_rows] {
                assert_eq!(
                    bits(&got.t_entry),
                    bits(&want.iter().map(|c| c.t_entry).collect::<Vec<_>>()),
                    "{alg} n={n}"
                );
                assert_eq!(
                    bits(&got.t_exit),
                    bits(&want.iter().map(|c| c.t_exit).collect::<Vec<_>>()),
                    "{alg} n={n}"
                );
                assert_eq!(
                    got.class,
                    want.iter().map(|c| c.class as u8).collect::<Vec<_>>(),
                    "{alg} n={n}"
                );
                let segs = got.segments.as_ref().unwrap();
                for (i, s) in rows.iter().enumerate() {
                    let c = want[i];
                    let cs = c.segment(&r, s);
                    let got_row = Segment::new(
                        segs.as_ref().columns().0[i],
                        segs.as_ref().columns().1[i],
                        segs.as_ref().columns().2[i],
                        segs.as_ref().columns().3[i],
                    );
                    assert_eq!(
                        bits(&[got_row.x0, got_row.y0, got_row.x1, got_row.y1]),
                        bits(&[cs.x0, cs.y0, cs.x1, cs.y1])
                    );
                }
            }
            // Both sources gave `want`'s bits: `want` against the exact reference, once.
            for (s, c) in rows.iter().zip(&want) {
                check(alg, &r, s, c, &c.segment(&r, s)).unwrap();
            }
        }
    }
}

#[test]
fn every_batch_length_0_to_67_f32() {
    common::levels::each(|_| batches_match_single_clips::<f32>());
}

#[test]
fn every_batch_length_0_to_67_f64() {
    common::levels::each(|_| batches_match_single_clips::<f64>());
}

#[test]
fn output_length_mismatch_is_an_error_before_any_write() {
    let r = Rect::new(0.0f32, 0.0, 1.0, 1.0).unwrap();
    let soa = Segments::from_rows(&[Segment::new(0.5, 0.5, 0.6, 0.6); 3]);
    let mut t = vec![7.0f32; 2];
    let mut out = ClipOutput {
        t_entry: Some(&mut t),
        ..Default::default()
    };
    for alg in Algorithm::ALL {
        let err = alg.clip(&r, &soa.as_ref(), &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch: t_entry has 2 elements, expected 3"
        );
    }
    assert_eq!(t, [7.0, 7.0]);
}
