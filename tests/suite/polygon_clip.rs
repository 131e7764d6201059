//! Segments × convex polygon (Cyrus–Beck) against the exact rational clip, under SPEC §1's
//! contract with the rect replaced by the polygon.
//!
//! Grid cases must be exact: class, `t_entry == 0` iff `P0` inside and `t_exit == 1` iff `P1`
//! inside (bit for bit), the far ends (`t_entry == 1` iff the exact entry is 1, `t_exit == +0.0`
//! iff the exact exit is 0), parameters correctly rounded, clipped endpoints inside bit for bit.
//! General cases are held to the rounding bounds, and to the far-end rule where an endpoint is
//! inside by more than the rounding (one general case in three aims at it: an endpoint just
//! inside an edge, the other far beyond it). Then batches against the one-segment path.

use crate::common;

use common::cases::TestFloat;
use common::cast_cases::polygon_segment;
use common::cast_reference::{eps, quotient_bound, segment_polygon, side_bound, QPoly, QSeg};
use common::reference::{ulp, ulps, Q};
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;
use slabclip::cast::{clip_polygon, clip_polygon_one};
use slabclip::{Class, Clip, ClipOutput, ConvexPolygon, Real, Segment, Segments};

/// Random cases per precision (each test function runs one precision).
const CASES: u32 = 100_000;

fn q<F: Real>(x: F) -> Q {
    common::reference::q(x)
}

fn check<F: Real>(
    v: &[(F, F)],
    s: &Segment<F>,
    grid: bool,
    c: &Clip<F>,
    cs: &Segment<F>,
) -> Result<(), String> {
    let fail = |rule: &str| {
        Err(format!("broke '{rule}' (grid {grid})\n  poly {v:?}\n  seg {s:?}\n  got {c:?}\n  clipped {cs:?}"))
    };
    let nan = |x: F| x.to_f64().is_nan();
    let same = |a: F, b: F| a.to_bits_u64() == b.to_bits_u64();
    let Some(g) = QSeg::new(s.x0, s.y0, s.x1, s.y1) else {
        return if c.class == Class::Invalid && nan(c.t_entry) && nan(cs.x0) {
            Ok(())
        } else {
            fail("invalid input is Invalid")
        };
    };
    if c.class != Class::of(true, c.t_entry, c.t_exit) {
        return fail("the class agrees with the parameters");
    }
    let hit = c.class.is_hit();
    let all_nan =
        nan(c.t_entry) && nan(c.t_exit) && [cs.x0, cs.y0, cs.x1, cs.y1].into_iter().all(nan);
    if !hit && !all_nan {
        return fail("a miss is NaN");
    }
    if hit {
        if !(F::ZERO <= c.t_entry && c.t_entry <= c.t_exit && c.t_exit <= F::ONE)
            || same(c.t_entry, -F::ZERO)
        {
            return fail("+0 <= t_entry <= t_exit <= 1");
        }
        // Clipped endpoints: the endpoint itself at t = 0 or 1, else P(t) within rounding.
        for (x, y, t) in [(cs.x0, cs.y0, c.t_entry), (cs.x1, cs.y1, c.t_exit)] {
            if t == F::ZERO && !(same(x, s.x0) && same(y, s.y0))
                || t == F::ONE && !(same(x, s.x1) && same(y, s.y1))
            {
                return fail("an endpoint inside comes back bit for bit");
            }
            let tol = eps::<F>() * Q::from_integer(4.into());
            for (got, a, b) in [(x, s.x0, s.x1), (y, s.y0, s.y1)] {
                let want = q(a) + q(t) * (q(b) - q(a));
                if (q(got) - &want).abs()
                    > tol.clone() * (q(a).abs() + q(b).abs()) + ulp::<F>(&Q::zero())
                {
                    return fail("a clipped point is P(t) within rounding");
                }
            }
        }
        if c.class == Class::Touches && !(same(cs.x0, cs.x1) && same(cs.y0, cs.y1)) {
            return fail("Touches clips to one point");
        }
    }
    let p = QPoly::new(v);
    let e = segment_polygon(&p, &g);
    let starts_in = hit && same(c.t_entry, F::ZERO);
    let ends_in = hit && same(c.t_exit, F::ONE);
    if grid {
        if starts_in != e.p0_in || ends_in != e.p1_in {
            return fail("t_entry == 0 iff P0 inside, t_exit == 1 iff P1 inside");
        }
        // The far ends, exact on a grid: t_entry == 1 iff the segment enters exactly at P1,
        // t_exit == +0.0 iff it leaves exactly at P0.
        if hit && e.class.is_hit() {
            if (c.t_entry == F::ONE) != e.entry.is_one() {
                return fail("t_entry == 1 iff the segment enters exactly at P1");
            }
            if (c.t_exit == F::ZERO) != e.exit.is_zero() || same(c.t_exit, -F::ZERO) {
                return fail("t_exit == +0.0 iff the segment leaves exactly at P0");
            }
        }
        if c.class != e.class {
            return fail(&format!("the exact class {:?}", e.class));
        }
        if hit && (ulps(c.t_entry, &e.entry) > 0.5 || ulps(c.t_exit, &e.exit) > 0.5) {
            return fail("parameters correctly rounded");
        }
        return Ok(());
    }
    // General floats: per-edge rounding bounds on f0 and f1.
    let (mut in0, mut out0, mut in1, mut out1) = (true, false, true, false);
    let (mut all_robust, mut sure_miss) = (true, false);
    let mut tol = Q::zero();
    for k in 0..p.edges.len() {
        let f0 = p.side(k, &g.x0, &g.y0);
        let f1 = p.side(k, &g.x1, &g.y1);
        let b0 = side_bound::<F>(&p, k, &g.x0, &g.y0);
        let b1 = side_bound::<F>(&p, k, &g.x1, &g.y1);
        in0 &= f0 > b0;
        out0 |= f0 < -&b0;
        in1 &= f1 > b1;
        out1 |= f1 < -&b1;
        sure_miss |= f0 < -&b0 && f1 < -&b1;
        if f0.abs() <= b0 || f1.abs() <= b1 {
            all_robust = false;
        } else if f0.is_negative() != f1.is_negative() {
            let tk = quotient_bound::<F>(&f0, &(&f0 - &f1), &b0, &(&b0 + &b1));
            if tk > tol {
                tol = tk;
            }
        }
    }
    if in0 && !starts_in || out0 && starts_in || in1 && !ends_in || out1 && ends_in {
        return fail("endpoint tests, away from the boundary");
    }
    if sure_miss && hit {
        return fail("a sure miss is a miss");
    }
    // The far ends where the decision is sure: P1 strictly inside every edge by more than the
    // rounding is on no edge line, so the segment does not enter at P1; likewise P0.
    if in1 && hit && c.t_entry == F::ONE {
        return fail(
            "t_entry == 1 only when the segment enters exactly at P1 (P1 strictly inside)",
        );
    }
    if in0 && hit && c.t_exit == F::ZERO {
        return fail("t_exit == 0 only when the segment leaves exactly at P0 (P0 strictly inside)");
    }
    let two = Q::from_integer(2.into());
    if all_robust && !sure_miss && (&e.exit - &e.entry).abs() > &tol * &two {
        if hit != e.class.is_hit() {
            return fail("hit versus miss away from a graze");
        }
        if hit && ((q(c.t_entry) - &e.entry).abs() > tol || (q(c.t_exit) - &e.exit).abs() > tol) {
            return fail("parameters within the rounding bound");
        }
    }
    Ok(())
}

/// The clipped segment of `s` alone, through the batch path (a batch of one).
fn clipped_one<F: TestFloat>(poly: &ConvexPolygon<F>, s: &Segment<F>) -> Segment<F> {
    let mut cs = Segments::nan(1);
    let mut out = ClipOutput {
        segments: Some(cs.as_mut()),
        ..Default::default()
    };
    clip_polygon(poly, &Segments::from_rows(&[*s]), &mut out).unwrap();
    let (x0, y0, x1, y1) = cs.as_ref().columns();
    Segment::new(x0[0], y0[0], x1[0], y1[0])
}

fn check_seed<F: TestFloat>(seed: u64) -> Result<(), TestCaseError> {
    let (v, s, grid) = polygon_segment::<F>(seed);
    let poly =
        ConvexPolygon::new(&v).map_err(|e| TestCaseError::fail(format!("seed {seed:#x}: {e}")))?;
    let c = clip_polygon_one(&poly, &s);
    let cs = clipped_one(&poly, &s);
    check(&v, &s, grid, &c, &cs).map_err(|m| TestCaseError::fail(format!("seed {seed:#x}: {m}")))
}

/// The same case moved by a power of two to the top or the bottom of `F`'s range (polygon and
/// segment alike: every exact `t` stays, a grid case stays on a grid). At the top the largest
/// coordinate lands in `[2^(emax−3), 2^(emax−2))`: differences of two coordinates, their cross
/// products and `f0 − f1` overflow unless the polygon is scaled down.
fn at_scale<F: Real>(
    (v, s, grid): (Vec<(F, F)>, Segment<F>, bool),
    huge: bool,
) -> (Vec<(F, F)>, Segment<F>, bool) {
    let f32 = core::mem::size_of::<F>() == 4;
    let m = v
        .iter()
        .flat_map(|&(x, y)| [x, y])
        .chain([s.x0, s.y0, s.x1, s.y1])
        .map(|c| c.to_f64().abs())
        .filter(|c| c.is_finite())
        .fold(0.0f64, f64::max);
    let e = if m > 0.0 { m.log2().floor() as i32 } else { 0 };
    let target = match (huge, f32) {
        (true, true) => 125,
        (true, false) => 1021,
        (false, true) => -70,
        (false, false) => -850,
    };
    // In two steps: the whole factor may be beyond the range of f64 (2^(1021 + 20) for a
    // case on a grid of 2^-20).
    let d = target - e;
    let (k1, k2) = (2f64.powi(d / 2), 2f64.powi(d - d / 2));
    let sc = |c: F| F::from_f64(c.to_f64() * k1 * k2);
    let v = v.iter().map(|&(x, y)| (sc(x), sc(y))).collect();
    (
        v,
        Segment::new(sc(s.x0), sc(s.y0), sc(s.x1), sc(s.y1)),
        grid,
    )
}

fn check_seed_at_scale<F: TestFloat>(seed: u64, huge: bool) -> Result<(), TestCaseError> {
    let (v, s, grid) = at_scale(polygon_segment::<F>(seed), huge);
    let poly = ConvexPolygon::new(&v)
        .map_err(|e| TestCaseError::fail(format!("seed {seed:#x}: {e}: {v:?}")))?;
    let c = clip_polygon_one(&poly, &s);
    let cs = clipped_one(&poly, &s);
    check(&v, &s, grid, &c, &cs)
        .map_err(|m| TestCaseError::fail(format!("seed {seed:#x} huge {huge}: {m}")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES / 4), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn segments_polygon_at_extreme_scales_f32(seed in any::<u64>(), huge in any::<bool>()) {
        check_seed_at_scale::<f32>(seed, huge)?;
    }

    #[test]
    fn segments_polygon_at_extreme_scales_f64(seed in any::<u64>(), huge in any::<bool>()) {
        check_seed_at_scale::<f64>(seed, huge)?;
    }
}

/// Cases the proptest above found: a segment near `2^1021` against a polygon too small to be
/// stored scaled, where `f0 − f1` overflowed and the segment was reported crossing at `t = 0`.
#[test]
fn huge_segments_against_small_polygons() {
    check_seed_at_scale::<f64>(0xe978b704f1029e8c, true).unwrap();
    let m = f64::MAX;
    let polys = [
        vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
        vec![(-3e306, -1e306), (4e306, 0.0), (0.0, 5e306)],
    ];
    let segs = [
        Segment::new(-m, 0.5, m, 0.5),
        Segment::new(-m, -m, m, m),
        Segment::new(m, -m, -m, m),
        Segment::new(0.5, m, 0.5, -m),
        Segment::new(0.25, 0.25, m, -m),
        Segment::new(-m, 0.5, 0.5, 0.5),
        Segment::new(2.3e307, -3e307, -2.8e307, 3.4e307),
        Segment::new(-m, m, m, m),
    ];
    for v in &polys {
        let poly = ConvexPolygon::new(v).unwrap();
        for s in &segs {
            let c = clip_polygon_one(&poly, s);
            check(v, s, false, &c, &clipped_one(&poly, s)).unwrap();
        }
    }
}

/// Segments against the square with corners at ±2^1023 (its sides' differences overflow) and
/// at ±1e308: classes and ends against the exact reference, the clipped points finite and on
/// the cutting edge.
#[test]
fn segments_against_squares_whose_sides_overflow() {
    for h in [2f64.powi(1023), 1e308] {
        let v = vec![(-h, -h), (h, -h), (h, h), (-h, h)];
        let poly = ConvexPolygon::new(&v).unwrap();
        let m = f64::MAX;
        let cases = [
            (Segment::new(-m, 0.0, m, 0.0), Class::Crosses),
            (Segment::new(0.0, 0.0, m, m), Class::Exits),
            (Segment::new(-m, -m, 0.5 * h, 0.25 * h), Class::Enters),
            (Segment::new(-h, -h, h, h), Class::Inside),
            (Segment::new(-m, h, m, h), Class::Crosses),
            (Segment::new(-m, m, m, m), Class::Outside),
            (Segment::new(-m, 0.0, -h, 0.0), Class::Touches),
        ];
        for (seg, class) in cases {
            let c = clip_polygon_one(&poly, &seg);
            let cs = clipped_one(&poly, &seg);
            check(&v, &seg, false, &c, &cs).unwrap_or_else(|e| panic!("h {h}: {e}"));
            assert_eq!(c.class, class, "h {h} {seg:?}: {c:?}");
            if class != Class::Outside {
                for p in [cs.x0, cs.y0, cs.x1, cs.y1] {
                    assert!(p.is_finite() && p.abs() <= h, "h {h} {seg:?}: {cs:?}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn segments_polygon_f32(seed in any::<u64>()) {
        check_seed::<f32>(seed)?;
    }

    #[test]
    fn segments_polygon_f64(seed in any::<u64>()) {
        check_seed::<f64>(seed)?;
    }
}

fn batch_bits<F: TestFloat>(seed: u64, n: usize) {
    let (v, _, _) = polygon_segment::<F>(seed);
    let poly = ConvexPolygon::new(&v).unwrap();
    let rows: Vec<Segment<F>> = (0..n as u64)
        .map(|k| polygon_segment::<F>(seed ^ (k << 24)).1)
        .collect();
    // Columns (SIMD loads) and rows (gathers).
    for columns in [true, false] {
        let got = {
            let (mut te, mut tx, mut k) = (vec![F::ZERO; n], vec![F::ZERO; n], vec![0u8; n]);
            let mut cs = Segments::nan(n);
            let mut out = ClipOutput {
                t_entry: Some(&mut te),
                t_exit: Some(&mut tx),
                class: Some(&mut k),
                segments: Some(cs.as_mut()),
            };
            if columns {
                clip_polygon(&poly, &Segments::from_rows(&rows), &mut out).unwrap();
            } else {
                clip_polygon(&poly, &rows[..], &mut out).unwrap();
            }
            (te, tx, k, cs)
        };
        let (x0, y0, x1, y1) = got.3.as_ref().columns();
        for i in 0..n {
            let w = clip_polygon_one(&poly, &rows[i]);
            let bits = |v: [F; 2]| v.map(|x| x.to_bits_u64());
            assert_eq!(
                (bits([got.0[i], got.1[i]]), got.2[i]),
                (bits([w.t_entry, w.t_exit]), w.class as u8),
                "n {n} segment {i} columns {columns}"
            );
            let c = clipped_one(&poly, &rows[i]);
            assert_eq!(
                [x0[i], y0[i], x1[i], y1[i]].map(|x| x.to_bits_u64()),
                [c.x0, c.y0, c.x1, c.y1].map(|x| x.to_bits_u64())
            );
        }
    }
}

#[test]
fn batches_give_the_one_segment_bits() {
    for n in 0..=67 {
        batch_bits::<f32>(n as u64 + 9, n);
        batch_bits::<f64>(n as u64 + 900, n);
    }
}
