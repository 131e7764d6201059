//! Rays × segments, closest hit, against the exact rational reference.
//!
//! Grid cases (every product exact) must be exact: hit versus miss as in exact arithmetic, `t`
//! and `s` correctly rounded, the index the lowest among the segments whose exact `t` rounds to
//! the reported one. General cases are held to rounding bounds: a hit whose every decision has a
//! margin larger than the error bound of the float cross products must be found, a sure miss
//! must not be reported, and the reported `t` may not be farther than any sure hit.
//! Then the batch path (SIMD lanes, scalar tail, rayon chunks) against the one-ray path, bit for
//! bit, at every length 0..=67, on one thread and on many.

use crate::common;

use common::cases::TestFloat;
use common::cast_cases::ray_scene;
use common::cast_reference::{
    cross, cross_bound, eps, l1, quotient_bound, ray_segment, QRay, QSeg,
};
use common::reference::{ulps, Q};
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use slabclip::cast::{cast_segments, cast_segments_one, SegmentHit, SegmentsCastOutput};
use slabclip::{Ray, Rays, Real, Segment, Segments, NO_HIT};

/// Random cases per precision (each test function runs one precision).
const CASES: u32 = 100_000;

fn q<F: Real>(x: F) -> Q {
    common::reference::q(x)
}

/// The normal is a unit vector perpendicular to the segment, facing the ray.
fn check_normal<F: Real>(ray: &QRay, g: &QSeg, h: &SegmentHit<F>) -> Result<(), String> {
    let (nx, ny) = (q(h.normal.0), q(h.normal.1));
    let tol = eps::<F>() * Q::from_integer(8.into());
    if (&nx * &nx + &ny * &ny - Q::from_integer(1.into())).abs() > tol {
        return Err("the normal has unit length".into());
    }
    let (ex, ey) = (&g.x1 - &g.x0, &g.y1 - &g.y0);
    let nd = &nx * &ray.dx + &ny * &ray.dy;
    if ex.is_zero() && ey.is_zero() {
        let back = -&nx * &ray.dy + &ny * &ray.dx;
        if nd.is_positive() || back.abs() > tol.clone() * l1(&ray.dx, &ray.dy) {
            return Err("a zero-length segment's normal is −D/|D|".into());
        }
        return Ok(());
    }
    if (&nx * &ex + &ny * &ey).abs() > tol.clone() * l1(&ex, &ey) {
        return Err("the normal is perpendicular to the segment".into());
    }
    if nd > tol * l1(&ray.dx, &ray.dy) {
        return Err("the normal faces the ray".into());
    }
    Ok(())
}

fn check<F: Real>(
    ray: &Ray<F>,
    segs: &[Segment<F>],
    t_max: F,
    grid: bool,
    h: &SegmentHit<F>,
) -> Result<(), String> {
    let fail = |rule: &str| {
        Err(format!("broke '{rule}' (grid {grid})\n  ray {ray:?} t_max {t_max}\n  segs {segs:?}\n  got {h:?}"))
    };
    let Some(qr) = QRay::new(ray.ox, ray.oy, ray.dx, ray.dy, t_max) else {
        return if h.index == NO_HIT && h.t.to_f64().is_nan() {
            Ok(())
        } else {
            fail("an invalid ray hits nothing")
        };
    };
    let qs: Vec<Option<QSeg>> = segs
        .iter()
        .map(|s| QSeg::new(s.x0, s.y0, s.x1, s.y1))
        .collect();
    let exact: Vec<_> = qs
        .iter()
        .map(|g| g.as_ref().and_then(|g| ray_segment(&qr, g)))
        .collect();
    let hit = h.index != NO_HIT;
    let all_nan = h.t.to_f64().is_nan() && h.s.to_f64().is_nan() && h.normal.0.to_f64().is_nan();
    if !hit && !all_nan {
        return fail("a miss has NaN t, s and normal");
    }
    if hit {
        let j = h.index as usize;
        if j >= segs.len() || qs[j].is_none() {
            return fail("the index names a finite segment");
        }
        if !(F::ZERO <= h.t && h.t <= t_max && F::ZERO <= h.s && h.s <= F::ONE) {
            return fail("t in [0, t_max] and s in [0, 1]");
        }
        if h.t.to_bits_u64() == (-F::ZERO).to_bits_u64()
            || h.s.to_bits_u64() == (-F::ZERO).to_bits_u64()
        {
            return fail("no -0.0");
        }
        if let Err(rule) = check_normal(&qr, qs[j].as_ref().unwrap(), h) {
            return fail(&rule);
        }
    }
    if grid {
        let best = exact.iter().flatten().map(|e| e.t.clone()).min();
        let Some(best) = best else {
            return if hit {
                fail("exact miss is a miss")
            } else {
                Ok(())
            };
        };
        if !hit {
            return fail("exact hit is a hit");
        }
        if ulps(h.t, &best) > 0.5 {
            return fail(&format!(
                "t is the correctly rounded closest t (off by {:.3} ulps)",
                ulps(h.t, &best)
            ));
        }
        let want = exact
            .iter()
            .position(|e| e.as_ref().is_some_and(|e| ulps(h.t, &e.t) <= 0.5))
            .unwrap();
        if h.index as usize != want {
            return fail(&format!("the lowest index among equal t ({want})"));
        }
        let e = exact[want].as_ref().unwrap();
        if ulps(h.s, &e.s) > 0.5 {
            return fail(&format!(
                "s is correctly rounded (off by {:.3} ulps)",
                ulps(h.s, &e.s)
            ));
        }
        return Ok(());
    }
    // General floats: rounding bounds.
    let mut sure_hits = Vec::new();
    for (j, g) in qs.iter().enumerate() {
        let Some(g) = g else { continue };
        let (ex, ey) = (&g.x1 - &g.x0, &g.y1 - &g.y0);
        let (wx, wy) = (&g.x0 - &qr.ox, &g.y0 - &qr.oy);
        let den = cross(&qr.dx, &qr.dy, &ex, &ey);
        let bden = cross_bound::<F>((&qr.dx, &qr.dy), (&ex, &ey));
        let btn = cross_bound::<F>((&wx, &wy), (&ex, &ey));
        let bsn = cross_bound::<F>((&wx, &wy), (&qr.dx, &qr.dy));
        let two = Q::from_integer(2.into());
        if den.abs() <= &bden * &two {
            continue; // nearly parallel: no sure answer
        }
        let sg = if den.is_negative() {
            Q::from_integer((-1).into())
        } else {
            Q::from_integer(1.into())
        };
        let ad = den.abs();
        let tp = cross(&wx, &wy, &ex, &ey) * &sg;
        let sp = cross(&wx, &wy, &qr.dx, &qr.dy) * &sg;
        let tmax_ok = |m: &Q| &(m * &ad) - &tp > &btn + m * &bden;
        let tmax_out = |m: &Q| &tp - &(m * &ad) > &btn + m * &bden;
        let sure_hit = tp > btn
            && sp > bsn
            && &ad - &sp > &bsn + &bden
            && qr.t_max.as_ref().is_none_or(tmax_ok);
        let sure_miss = tp < -&btn
            || sp < -&bsn
            || &sp - &ad > &bsn + &bden
            || qr.t_max.as_ref().is_some_and(tmax_out);
        let t = &tp / &ad;
        let tol_t = quotient_bound::<F>(&tp, &ad, &btn, &bden);
        if sure_hit {
            sure_hits.push((j, t.clone(), tol_t.clone()));
        }
        if hit && h.index as usize == j {
            if sure_miss {
                return fail("a sure miss is never the hit");
            }
            if sure_hit {
                if (q(h.t) - &t).abs() > tol_t {
                    return fail("t within the rounding bound");
                }
                let tol_s = quotient_bound::<F>(&sp, &ad, &bsn, &bden);
                if (q(h.s) - &sp / &ad).abs() > tol_s {
                    return fail("s within the rounding bound");
                }
            }
        }
    }
    if !hit && !sure_hits.is_empty() {
        return fail("a sure hit is found");
    }
    if hit {
        for (j, t, tol) in &sure_hits {
            if q(h.t) > t + tol {
                return fail(&format!(
                    "no sure hit (segment {j}) is closer than the reported one"
                ));
            }
        }
    }
    Ok(())
}

fn check_seed<F: TestFloat>(seed: u64) -> Result<(), TestCaseError> {
    let (ray, segs, t_max, grid) = ray_scene::<F>(seed);
    let soa = Segments::from_rows(&segs);
    let h = cast_segments_one(&ray, &soa.as_ref(), t_max)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    check(&ray, &segs, t_max, grid, &h)
        .map_err(|m| TestCaseError::fail(format!("seed {seed:#x}: {m}")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn rays_segments_f32_closest_hit(seed in any::<u64>()) {
        check_seed::<f32>(seed)?;
    }

    #[test]
    fn rays_segments_f64_closest_hit(seed in any::<u64>()) {
        check_seed::<f64>(seed)?;
    }
}

/// A scene's segments and `n` rays: the scene's own ray and rays from other scenes.
fn batch_case<F: TestFloat>(seed: u64, n: usize) -> (Vec<Segment<F>>, Vec<Ray<F>>, F) {
    let (ray, mut segs, t_max, _) = ray_scene::<F>(seed);
    let mut rays = vec![ray];
    for k in 1..n as u64 {
        let (r, more, _, _) = ray_scene::<F>(seed.wrapping_mul(31).wrapping_add(k));
        if segs.len() < 40 {
            segs.extend(more);
        }
        rays.push(r);
    }
    rays.truncate(n);
    (segs, rays, t_max)
}

fn batch_bits<F: TestFloat>(seed: u64, n: usize) {
    let (segs, rows, t_max) = batch_case::<F>(seed, n);
    let soa = Segments::from_rows(&segs);
    let rays = Rays::from_rows(&rows);
    let run = || {
        let (mut t, mut s, mut idx) = (vec![F::ZERO; n], vec![F::ZERO; n], vec![0u32; n]);
        let (mut nx, mut ny) = (vec![F::ZERO; n], vec![F::ZERO; n]);
        let out = SegmentsCastOutput {
            t: Some(&mut t),
            s: Some(&mut s),
            index: Some(&mut idx),
            nx: Some(&mut nx),
            ny: Some(&mut ny),
        };
        cast_segments(&rays.as_ref(), &soa.as_ref(), t_max, out).unwrap();
        (t, s, idx, nx, ny)
    };
    let (t, s, idx, nx, ny) = run();
    for i in 0..n {
        let w = cast_segments_one(&rows[i], &soa.as_ref(), t_max).unwrap();
        let bits = |v: [F; 4]| v.map(|x| x.to_bits_u64());
        assert_eq!(
            (bits([t[i], s[i], nx[i], ny[i]]), idx[i]),
            (bits([w.t, w.s, w.normal.0, w.normal.1]), w.index),
            "n {n} ray {i}: the batch differs from the one-ray path"
        );
    }
    // One thread gives the same bits as many.
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(run);
    assert!(
        single
            .0
            .iter()
            .zip(&t)
            .all(|(a, b)| a.to_bits_u64() == b.to_bits_u64())
            && single.2 == idx
    );
}

#[test]
fn batches_give_the_one_ray_bits() {
    for n in 0..=67 {
        batch_bits::<f32>(n as u64 + 1, n);
        batch_bits::<f64>(n as u64 + 1000, n);
    }
    batch_bits::<f32>(77, 2500);
    batch_bits::<f64>(78, 2500);
}

#[test]
fn bad_arguments_are_errors_before_any_work() {
    let soa = Segments::from_rows(&[Segment::new(0.0f32, 0.0, 1.0, 1.0)]);
    let rays = Rays::from_rows(&[Ray::new(0.0f32, 0.0, 1.0, 0.0); 2]);
    let mut t = vec![5.0f32; 3];
    let e = cast_segments(
        &rays.as_ref(),
        &soa.as_ref(),
        f32::INFINITY,
        SegmentsCastOutput {
            t: Some(&mut t),
            ..Default::default()
        },
    );
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("t has 3 elements, expected 2"));
    assert_eq!(t, [5.0; 3]);
    let e = cast_segments_one(&Ray::new(0.0f32, 0.0, 1.0, 0.0), &soa.as_ref(), -0.5).unwrap_err();
    assert!(e.to_string().contains("t_max"));
}
