//! The batch shapes (pairwise, N × M hit lists, in place) and `auto`'s threads: each against
//! one-segment clips, bit for bit, and the same output under any number of threads.

use crate::common;

use common::cases::{case, TestFloat};
use common::pairwise;
use slabclip::{
    Algorithm, ClipOutput, ClipResults, Error, Hit, Real, Rect, Segment, Segments, PARALLEL_MIN,
};

fn bits<F: Real>(v: &[F]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits_u64()).collect()
}

/// `n` generated segments and, for each, its own generated rect.
fn cases<F: TestFloat>(n: usize, seed: u64) -> (Vec<Rect<F>>, Vec<Segment<F>>) {
    (0..n as u64)
        .map(|i| case::<F>(seed ^ (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .unzip()
}

/// The results as bits, for comparing whole runs.
fn fingerprint<F: Real>(r: &ClipResults<F>) -> (Vec<u64>, Vec<u64>, Vec<u8>, Vec<u64>) {
    let segs = r
        .segments
        .as_ref()
        .map(|s| s.to_interleaved())
        .unwrap_or_default();
    (
        bits(&r.t_entry),
        bits(&r.t_exit),
        r.class.clone(),
        bits(&segs),
    )
}

fn pairwise_matches_single_clips<F: TestFloat>() {
    for n in [0, 1, 7, 16, 17, 63, 64, 65, 1000] {
        let (rects, rows) = cases::<F>(n, 0x9A1E + n as u64);
        let segs = Segments::from_rows(&rows);
        // From columns, and from rows (the vector kernel transposes them a chunk at a time).
        for (alg, from_rows) in Algorithm::ALL
            .into_iter()
            .chain([Algorithm::Auto])
            .flat_map(|a| [(a, false), (a, true)])
        {
            let got = if from_rows {
                pairwise(alg, &rects, rows.as_slice())
            } else {
                pairwise(alg, &rects, &segs)
            };
            let got_rows = got.segments.as_ref().unwrap().to_interleaved();
            for i in 0..n {
                let want = alg.clip_one(&rects[i], &rows[i]);
                let ws = want.segment(&rects[i], &rows[i]);
                assert_eq!(
                    bits(&[got.t_entry[i], got.t_exit[i]]),
                    bits(&[want.t_entry, want.t_exit]),
                    "{alg} n={n} i={i}"
                );
                assert_eq!(got.class[i], want.class as u8, "{alg} n={n} i={i}");
                assert_eq!(
                    bits(&got_rows[4 * i..4 * i + 4]),
                    bits(&[ws.x0, ws.y0, ws.x1, ws.y1]),
                    "{alg} n={n} i={i}"
                );
            }
        }
    }
}

#[test]
fn pairwise_matches_single_clips_f32() {
    pairwise_matches_single_clips::<f32>();
}

#[test]
fn pairwise_matches_single_clips_f64() {
    pairwise_matches_single_clips::<f64>();
}

#[test]
fn pairwise_refuses_a_wrong_number_of_rects_before_writing() {
    let (rects, rows) = cases::<f32>(5, 1);
    let segs = Segments::from_rows(&rows);
    let mut t = vec![7.0f32; 5];
    let mut out = ClipOutput {
        t_entry: Some(&mut t),
        ..Default::default()
    };
    for alg in Algorithm::ALL.into_iter().chain([Algorithm::Auto]) {
        let err = alg
            .clip_pairwise(&rects[..4], &segs.as_ref(), &mut out)
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::LengthMismatch {
                    what: "rects",
                    expected: 5,
                    found: 4
                }
            ),
            "{alg}: {err}"
        );
    }
    assert_eq!(t, [7.0; 5]);
}

/// A tile grid over [-1, 2]², with segments from the generator (which aims at the unit square).
fn grid<F: TestFloat>(side: usize) -> Vec<Rect<F>> {
    let step = 3.0 / side as f64;
    let mut rects = Vec::new();
    for j in 0..side {
        for i in 0..side {
            let x = -1.0 + step * i as f64;
            let y = -1.0 + step * j as f64;
            rects.push(
                Rect::new(
                    F::from_f64(x),
                    F::from_f64(y),
                    F::from_f64(x + step),
                    F::from_f64(y + step),
                )
                .unwrap(),
            );
        }
    }
    rects
}

fn grid_matches_brute_force<F: TestFloat>() {
    let rects = grid::<F>(6);
    for n in [0, 5, 33, 4100] {
        let (_, rows) = cases::<F>(n, 0x6E1D + n as u64);
        let segs = Segments::from_rows(&rows);
        let mut want = Vec::new();
        for (i, s) in rows.iter().enumerate() {
            for (k, r) in rects.iter().enumerate() {
                let c = Algorithm::SlabScalar.clip_one(r, s);
                if c.is_hit() {
                    want.push(Hit {
                        segment: i,
                        rect: k,
                        t_entry: c.t_entry,
                        t_exit: c.t_exit,
                        class: c.class,
                    });
                }
            }
        }
        if n > 1000 {
            assert!(
                want.len() > n / 2,
                "the grid should see hits: {}",
                want.len()
            );
        }
        for alg in [
            Algorithm::SimdSlab,
            Algorithm::Hybrid,
            Algorithm::Auto,
            Algorithm::LiangBarsky,
        ] {
            let got = alg.clip_grid(&rects, &segs.as_ref());
            assert_eq!(got.len(), want.len(), "{alg} n={n}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(
                    (g.segment, g.rect, g.class, bits(&[g.t_entry, g.t_exit])),
                    (w.segment, w.rect, w.class, bits(&[w.t_entry, w.t_exit])),
                    "{alg} n={n}"
                );
            }
        }
    }
}

#[test]
fn grid_matches_brute_force_f32() {
    grid_matches_brute_force::<f32>();
}

#[test]
fn grid_matches_brute_force_f64() {
    grid_matches_brute_force::<f64>();
}

fn in_place_matches_clip<F: TestFloat>() {
    for n in [0, 3, 64, 2049, 5000] {
        let (rects, rows) = cases::<F>(n, 0x1A9 + n as u64);
        let Some(rect) = rects.first().copied() else {
            continue;
        };
        for alg in Algorithm::ALL.into_iter().chain([Algorithm::Auto]) {
            let want = alg.clip_to_vec(&rect, &Segments::from_rows(&rows).as_ref(), true);
            let mut segs = Segments::from_rows(&rows);
            let mut class = vec![0u8; n];
            alg.clip_in_place(&rect, &mut segs.as_mut(), Some(&mut class))
                .unwrap();
            assert_eq!(class, want.class, "{alg} n={n}");
            assert_eq!(
                bits(&segs.to_interleaved()),
                bits(&want.segments.as_ref().unwrap().to_interleaved()),
                "{alg} n={n}"
            );
        }
    }
}

#[test]
fn in_place_matches_clip_f32() {
    in_place_matches_clip::<f32>();
}

#[test]
fn in_place_matches_clip_f64() {
    in_place_matches_clip::<f64>();
}

/// `auto` on a batch large enough to split, under 1, 2 and 3 threads and on the calling thread
/// alone: the same bits as `simd-slab` on one thread, for every shape.
fn threads_do_not_change_results<F: TestFloat>() {
    let n = 5 * PARALLEL_MIN / 2 + 13;
    let (rects, rows) = cases::<F>(n, 0x7E4D);
    let segs = Segments::from_rows(&rows);
    let rect = rects[0];
    let serial = fingerprint(&Algorithm::SimdSlab.clip_to_vec(&rect, &segs.as_ref(), true));
    let serial_pairs = fingerprint(&pairwise(Algorithm::SimdSlab, &rects, &segs));
    let tiles = grid::<F>(3);
    let serial_grid = Algorithm::Hybrid.clip_grid(&tiles, &segs.as_ref());
    // `threads` names the run in messages; 0 is the calling thread alone, inside a 3-thread pool.
    let check = |threads: usize| {
        let got = Algorithm::Auto.clip_to_vec(&rect, &segs.as_ref(), true);
        assert!(fingerprint(&got) == serial, "clip, {threads} threads");
        let got = pairwise(Algorithm::Auto, &rects, &segs);
        assert!(
            fingerprint(&got) == serial_pairs,
            "pairwise, {threads} threads"
        );
        let mut in_place = Segments::from_rows(&rows);
        let mut class = vec![0u8; n];
        Algorithm::Auto
            .clip_in_place(&rect, &mut in_place.as_mut(), Some(&mut class))
            .unwrap();
        assert!(class == serial.2, "in place, {threads} threads");
        assert!(
            bits(&in_place.to_interleaved()) == serial.3,
            "in place, {threads} threads"
        );
        let got = Algorithm::Auto.clip_grid(&tiles, &segs.as_ref());
        assert!(got == serial_grid, "grid, {threads} threads");
    };
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| check(threads));
        if threads == 3 {
            pool.install(|| slabclip::on_calling_thread(|| check(0)));
        }
    }
}

#[test]
fn threads_do_not_change_results_f32() {
    threads_do_not_change_results::<f32>();
}

#[test]
fn threads_do_not_change_results_f64() {
    threads_do_not_change_results::<f64>();
}
