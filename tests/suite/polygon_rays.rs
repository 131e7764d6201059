//! Rays × convex polygons against the exact rational reference, in both inside modes.
//!
//! Grid cases must be exact: the inside flag, hit versus miss, `t` correctly rounded, the edge
//! the lowest index among those whose exact `t` rounds to the reported one (at a corner: the
//! lower of the two edges), its real outward unit normal. General cases are held to the
//! rounding bounds of the float cross products. Then batches (SIMD, tail, rayon) against the
//! one-ray path, bit for bit.

use crate::common;

use common::cases::TestFloat;
use common::cast_cases::polygon_ray;
use common::cast_reference::{
    cross_bound, eps, l1, quotient_bound, ray_polygon, side_bound, QPoly, QRay,
};
use common::reference::{ulps, Q};
use num_traits::Signed;
use proptest::prelude::*;
use slabclip::cast::{cast_polygon, cast_polygon_one, PolygonCastOutput, PolygonHit};
use slabclip::{ConvexPolygon, InsideMode, Ray, Rays, Real, NO_HIT};

/// Random cases per precision (each test function runs one precision; each case runs both
/// inside modes).
const CASES: u32 = 100_000;

fn q<F: Real>(x: F) -> Q {
    common::reference::q(x)
}

/// The reported normal is edge `edge`'s outward unit normal.
fn check_normal<F: Real>(p: &QPoly, edge: u32, n: (F, F)) -> Result<(), String> {
    let Some(k) = p.edges.iter().position(|e| e.0 == edge) else {
        return Err(format!("edge {edge} is an edge of the polygon"));
    };
    let (_, a, b) = &p.edges[k];
    let (ex, ey) = (&b.0 - &a.0, &b.1 - &a.1);
    let (nx, ny) = (q(n.0), q(n.1));
    let tol = eps::<F>() * Q::from_integer(8.into());
    if (&nx * &nx + &ny * &ny - Q::from_integer(1.into())).abs() > tol {
        return Err("the normal has unit length".into());
    }
    if (&nx * &ex + &ny * &ey).abs() > tol * l1(&ex, &ey) {
        return Err("the normal is perpendicular to its edge".into());
    }
    // Outward: the interior is left of E, so the normal points right: n · (ey, −ex) > 0.
    if !(&nx * &ey - &ny * &ex).is_positive() {
        return Err("the normal points out of the polygon".into());
    }
    Ok(())
}

fn check<F: Real>(
    v: &[(F, F)],
    ray: &Ray<F>,
    t_max: F,
    grid: bool,
    mode: InsideMode,
    h: &PolygonHit<F>,
) -> Result<(), String> {
    let fail = |rule: &str| {
        Err(format!("broke '{rule}' (grid {grid}, {mode:?})\n  poly {v:?}\n  ray {ray:?} t_max {t_max}\n  got {h:?}"))
    };
    let nan = |x: F| x.to_f64().is_nan();
    let Some(qr) = QRay::new(ray.ox, ray.oy, ray.dx, ray.dy, t_max) else {
        return if nan(h.t) && h.edge == NO_HIT && !h.inside {
            Ok(())
        } else {
            fail("an invalid ray: NaN, no edge, not inside")
        };
    };
    let p = QPoly::new(v);
    let e = ray_polygon(&p, &qr);
    if nan(h.t) != (h.edge == NO_HIT) && !(h.inside && mode == InsideMode::Origin) {
        return fail("an edge exactly when a t");
    }
    if nan(h.t) && !(nan(h.point.0) && nan(h.point.1) && nan(h.normal.0)) {
        return fail("a miss has NaN point and normal");
    }
    if h.inside && mode == InsideMode::Origin {
        let same = |a: F, b: F| a.to_bits_u64() == b.to_bits_u64();
        if !(same(h.t, F::ZERO)
            && same(h.point.0, ray.ox)
            && same(h.point.1, ray.oy)
            && h.edge == NO_HIT
            && nan(h.normal.0))
        {
            return fail("an origin inside: t = +0, the origin bit for bit, no edge");
        }
    }
    if !nan(h.t) {
        if !(F::ZERO <= h.t && h.t <= t_max) {
            return fail("t in [0, t_max]");
        }
        if h.edge != NO_HIT {
            if let Err(rule) = check_normal(&p, h.edge, h.normal) {
                return fail(&rule);
            }
        }
        if !h.inside && h.t == F::ZERO {
            return fail("t = 0 only for an origin inside");
        }
        // The point is O + t·D within rounding.
        let tol = eps::<F>() * Q::from_integer(4.into());
        for (p, o, d) in [(h.point.0, &qr.ox, &qr.dx), (h.point.1, &qr.oy, &qr.dy)] {
            let want = o + q(h.t) * d;
            if (q(p) - &want).abs()
                > tol.clone() * (o.abs() + (q(h.t) * d).abs())
                    + common::reference::ulp::<F>(&Q::from_integer(0.into()))
            {
                return fail("the point is O + t·D");
            }
        }
    }
    // Which exact t and edge set the result must match.
    let (want_t, edges): (Option<Q>, &Vec<(u32, Q)>) = if e.inside {
        match mode {
            InsideMode::Origin => (None, &e.exit_edges),
            InsideMode::Exit => (e.exit.clone().filter(|x| qr.within(x)), &e.exit_edges),
        }
    } else {
        (e.hit.then(|| e.entry.clone()), &e.entry_edges)
    };
    if grid {
        if h.inside != e.inside {
            return fail("the inside flag is exact");
        }
        if e.inside && mode == InsideMode::Origin {
            return Ok(());
        }
        let Some(t) = want_t else {
            return if nan(h.t) {
                Ok(())
            } else {
                fail("exact miss is a miss")
            };
        };
        if nan(h.t) {
            return fail("exact hit is a hit");
        }
        if ulps(h.t, &t) > 0.5 {
            return fail(&format!(
                "t correctly rounded (off by {:.3} ulps)",
                ulps(h.t, &t)
            ));
        }
        let want = edges
            .iter()
            .filter(|(_, te)| ulps(h.t, te) <= 0.5)
            .map(|(i, _)| *i)
            .min();
        if Some(h.edge) != want {
            return fail(&format!("the lowest edge among equal t ({want:?})"));
        }
        return Ok(());
    }
    // General floats: rounding bounds per edge.
    let mut robust_in = true;
    let mut robust_out = false;
    let mut all_robust = true;
    let mut sure_miss = false;
    let mut tols = Vec::new();
    for k in 0..p.edges.len() {
        let (idx, a, b) = &p.edges[k];
        let (ex, ey) = (&b.0 - &a.0, &b.1 - &a.1);
        let f0 = p.side(k, &qr.ox, &qr.oy);
        let fd = p.rate(k, &qr.dx, &qr.dy);
        let b0 = side_bound::<F>(&p, k, &qr.ox, &qr.oy);
        let bd = cross_bound::<F>((&ex, &ey), (&qr.dx, &qr.dy));
        robust_in &= f0 > b0;
        robust_out |= f0 < -&b0;
        if f0.abs() <= b0 || fd.abs() <= &bd * Q::from_integer(2.into()) {
            all_robust = false;
            continue;
        }
        sure_miss |= f0.is_negative() && fd.is_negative();
        tols.push((*idx, -&f0 / &fd, quotient_bound::<F>(&f0, &fd, &b0, &bd)));
    }
    if robust_in && !h.inside || robust_out && h.inside {
        return fail("the inside flag, away from the boundary");
    }
    if robust_out && sure_miss && !nan(h.t) {
        return fail("a sure miss is a miss");
    }
    if !(robust_out && all_robust) {
        return Ok(());
    }
    let tol_of = |set: &Vec<(u32, Q)>| {
        set.iter()
            .map(|(i, _)| {
                tols.iter()
                    .find(|t| t.0 == *i)
                    .map(|t| t.2.clone())
                    .unwrap_or_default()
            })
            .max()
            .unwrap_or_default()
    };
    let (te, tx) = (tol_of(&e.entry_edges), tol_of(&e.exit_edges));
    let clear = e
        .exit
        .as_ref()
        .is_none_or(|x| (x - &e.entry).abs() > &te + &tx)
        && qr.t_max.as_ref().is_none_or(|m| (m - &e.entry).abs() > te);
    if !clear {
        return Ok(());
    }
    match want_t {
        None if !nan(h.t) => fail("a sure miss is a miss"),
        Some(_) if nan(h.t) => fail("a sure hit is a hit"),
        Some(t) => {
            let Some((_, tk, tol)) = tols.iter().find(|x| x.0 == h.edge) else {
                return fail("the edge is an entering edge");
            };
            if (q(h.t) - tk).abs() > *tol || (q(h.t) - &t).abs() > tol + te {
                return fail("t within the rounding bound of its edge and of the entry");
            }
            Ok(())
        }
        None => Ok(()),
    }
}

fn check_seed<F: TestFloat>(seed: u64) -> Result<(), TestCaseError> {
    let (v, ray, t_max, grid) = polygon_ray::<F>(seed);
    let poly = ConvexPolygon::new(&v)
        .map_err(|e| TestCaseError::fail(format!("seed {seed:#x}: {e}: {v:?}")))?;
    for mode in [InsideMode::Origin, InsideMode::Exit] {
        let h = cast_polygon_one(&poly, &ray, t_max, mode)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        check(&v, &ray, t_max, grid, mode, &h)
            .map_err(|m| TestCaseError::fail(format!("seed {seed:#x}: {m}")))?;
    }
    Ok(())
}

/// The same case moved by a power of two to the top or the bottom of `F`'s range: polygon,
/// origin and direction scaled alike, which leaves every exact `t` as it was (and a grid case
/// on a grid), so the same checks apply. At the top, the largest input lands in
/// `[2^(emax−3), 2^(emax−2))`, where differences and cross products of unscaled inputs
/// overflow; at the bottom, in `[2^(emin+170), …)`, small enough to reach the subnormals.
fn at_scale<F: Real>(
    (v, ray, t_max, grid): (Vec<(F, F)>, Ray<F>, F, bool),
    huge: bool,
) -> (Vec<(F, F)>, Ray<F>, F, bool) {
    let f32 = core::mem::size_of::<F>() == 4;
    let m = v
        .iter()
        .flat_map(|&(x, y)| [x, y])
        .chain([ray.ox, ray.oy, ray.dx, ray.dy])
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
    let s = |c: F| F::from_f64(c.to_f64() * k1 * k2);
    let v = v.iter().map(|&(x, y)| (s(x), s(y))).collect();
    (
        v,
        Ray::new(s(ray.ox), s(ray.oy), s(ray.dx), s(ray.dy)),
        t_max,
        grid,
    )
}

fn check_seed_at_scale<F: TestFloat>(seed: u64, huge: bool) -> Result<(), TestCaseError> {
    let (v, ray, t_max, grid) = at_scale(polygon_ray::<F>(seed), huge);
    let poly = ConvexPolygon::new(&v)
        .map_err(|e| TestCaseError::fail(format!("seed {seed:#x}: {e}: {v:?}")))?;
    for mode in [InsideMode::Origin, InsideMode::Exit] {
        let h = cast_polygon_one(&poly, &ray, t_max, mode)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        check(&v, &ray, t_max, grid, mode, &h)
            .map_err(|m| TestCaseError::fail(format!("seed {seed:#x} huge {huge}: {m}")))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES / 4), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn rays_polygon_at_extreme_scales_f32(seed in any::<u64>(), huge in any::<bool>()) {
        check_seed_at_scale::<f32>(seed, huge)?;
    }

    #[test]
    fn rays_polygon_at_extreme_scales_f64(seed in any::<u64>(), huge in any::<bool>()) {
        check_seed_at_scale::<f64>(seed, huge)?;
    }
}

/// Rays whose origin or direction is near `f64::MAX` against polygons too small to be stored
/// scaled: `E × D` and `O − V` would overflow at the polygon's own scale. Checked against the
/// exact reference, in both inside modes.
#[test]
fn huge_rays_against_small_polygons() {
    let m = f64::MAX;
    let polys = [
        vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
        vec![(-3e306, -1e306), (4e306, 0.0), (0.0, 5e306)],
    ];
    let rays = [
        Ray::new(-m, 0.5, m, 0.0),
        Ray::new(-m, -m, m, m),
        Ray::new(0.25, 0.25, m, -m),
        Ray::new(0.5, m, 0.0, -m),
        Ray::new(m, 0.5, -1.0, 0.0),
        Ray::new(-m, m, m, -m),
        Ray::new(1e308, -1e308, -1e308, 1e308),
        Ray::new(-m, 0.5, m, 1e-300),
    ];
    for v in &polys {
        let poly = ConvexPolygon::new(v).unwrap();
        for ray in &rays {
            for mode in [InsideMode::Origin, InsideMode::Exit] {
                let hit = cast_polygon_one(&poly, ray, f64::INFINITY, mode).unwrap();
                check(v, ray, f64::INFINITY, false, mode, &hit).unwrap();
            }
        }
    }
}

/// The square with corners at ±2^1023 (±8.99e307): every difference of two corners overflows
/// `f64`. Rays from inside, from outside, through a corner and missing, against the exact
/// reference (grid-exact: every answer here is a power of two or a small multiple of one).
#[test]
fn rays_against_a_square_whose_sides_overflow() {
    let h = 2f64.powi(1023);
    let v = vec![(-h, -h), (h, -h), (h, h), (-h, h)];
    let poly = ConvexPolygon::new(&v).unwrap();
    let origin = InsideMode::Origin;
    let cases = [
        (Ray::new(0.0, 0.0, 1.0, 0.0), InsideMode::Exit, h, Some(1)),
        (
            Ray::new(0.0, 0.0, 0.0, -2f64.powi(1000)),
            InsideMode::Exit,
            2f64.powi(23),
            Some(0),
        ),
        (Ray::new(-1.5 * h, 0.5 * h, h, 0.0), origin, 0.5, Some(3)),
        (Ray::new(-1.5 * h, 1.25 * h, h, 0.0), origin, f64::NAN, None),
        (
            Ray::new(1.75 * h, -1.75 * h, -1.0, 1.0),
            origin,
            0.75 * h,
            Some(0),
        ),
        (Ray::new(-h, -h, 1.0, 0.0), origin, 0.0, None),
    ];
    for (ray, mode, t, edge) in cases {
        let hit = cast_polygon_one(&poly, &ray, f64::INFINITY, mode).unwrap();
        check(&v, &ray, f64::INFINITY, true, mode, &hit).unwrap();
        if t.is_nan() {
            assert!(hit.t.is_nan(), "{ray:?}: {hit:?}");
        } else {
            assert_eq!(hit.t, t, "{ray:?}: {hit:?}");
            assert!(
                hit.point.0.is_finite() && hit.point.1.is_finite(),
                "{hit:?}"
            );
        }
        assert_eq!(hit.edge, edge.unwrap_or(NO_HIT), "{ray:?}: {hit:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::budget(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn rays_polygon_f32(seed in any::<u64>()) {
        check_seed::<f32>(seed)?;
    }

    #[test]
    fn rays_polygon_f64(seed in any::<u64>()) {
        check_seed::<f64>(seed)?;
    }
}

fn batch_bits<F: TestFloat>(seed: u64, n: usize) {
    let (v, _, t_max, _) = polygon_ray::<F>(seed);
    let poly = ConvexPolygon::new(&v).unwrap();
    let rows: Vec<Ray<F>> = (0..n as u64)
        .map(|k| polygon_ray::<F>(seed ^ (k << 20)).1)
        .collect();
    let rays = Rays::from_rows(&rows);
    for mode in [InsideMode::Origin, InsideMode::Exit] {
        let mut c: Vec<Vec<F>> = vec![vec![F::ZERO; n]; 5];
        let (mut edge, mut inside) = (vec![0u32; n], vec![0u8; n]);
        {
            let [t, x, y, nx, ny] = &mut c[..] else {
                unreachable!()
            };
            let out = PolygonCastOutput {
                t: Some(t),
                x: Some(x),
                y: Some(y),
                nx: Some(nx),
                ny: Some(ny),
                edge: Some(&mut edge),
                inside: Some(&mut inside),
            };
            cast_polygon(&poly, &rays.as_ref(), t_max, mode, out).unwrap();
        }
        for i in 0..n {
            let w = cast_polygon_one(&poly, &rows[i], t_max, mode).unwrap();
            let want = [w.t, w.point.0, w.point.1, w.normal.0, w.normal.1].map(|x| x.to_bits_u64());
            let got = [c[0][i], c[1][i], c[2][i], c[3][i], c[4][i]].map(|x| x.to_bits_u64());
            assert_eq!(
                (got, edge[i], inside[i]),
                (want, w.edge, w.inside as u8),
                "n {n} ray {i} {mode:?}"
            );
        }
    }
}

#[test]
fn batches_give_the_one_ray_bits() {
    for n in 0..=67 {
        batch_bits::<f32>(n as u64 + 5, n);
        batch_bits::<f64>(n as u64 + 500, n);
    }
    batch_bits::<f32>(3, 2100);
    // At least 64K ray × edge tests: the rayon path.
    batch_bits::<f32>(4, 25_000);
    batch_bits::<f64>(6, 25_000);
}

#[test]
fn building_refuses_what_is_not_a_convex_polygon() {
    type Case<'a> = (&'a str, &'a [(f64, f64)], &'a str);
    let bad: &[Case] = &[
        ("two points", &[(0.0, 0.0), (1.0, 0.0)], "at least 3"),
        (
            "three copies",
            &[(1.0, 1.0), (1.0, 1.0), (1.0, 1.0)],
            "at least 3",
        ),
        (
            "two distinct",
            &[(0.0, 0.0), (1.0, 0.0), (0.0, 0.0), (1.0, 0.0)],
            "at least 3",
        ),
        (
            "collinear",
            &[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)],
            "one line",
        ),
        (
            "reflex",
            &[(0.0, 0.0), (4.0, 0.0), (1.0, 1.0), (0.0, 4.0)],
            "reflex vertex",
        ),
        (
            "spike",
            &[(0.0, 0.0), (4.0, 0.0), (2.0, 0.0), (2.0, 2.0)],
            "not convex",
        ),
        (
            "pentagram",
            &[
                (0.0, 10.0),
                (5.9, -8.1),
                (-9.5, 3.1),
                (9.5, 3.1),
                (-5.9, -8.1),
            ],
            "winds around 2 times",
        ),
        (
            "bow tie (zero signed area)",
            &[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)],
            "crosses itself",
        ),
        (
            "bow tie, one loop larger",
            &[(0.0, 0.0), (2.0, 2.0), (2.0, 0.0), (0.0, 1.0)],
            "not convex",
        ),
        (
            "reflex at the first vertex",
            &[(1.0, 1.0), (0.0, 4.0), (0.0, 0.0), (4.0, 0.0)],
            "vertex 0 is a reflex vertex",
        ),
        (
            "reflex by one ulp below the diagonal",
            &[
                (0.0, 0.0),
                (2.0, 0.0),
                (2.0, 2.0),
                (1.0, 1.0 - f64::EPSILON / 2.0),
            ],
            "vertex 3 is a reflex vertex",
        ),
        (
            "collinear, huge",
            &[(-1e308, -1e308), (1e308, 1e308), (5e307, 5e307)],
            "one line",
        ),
        (
            "collinear, tiny and subnormal",
            &[(0.0, 0.0), (5e-324, 1e-323), (1e-323, 2e-323)],
            "one line",
        ),
        (
            "collinear with a huge spread (rational path)",
            &[(-1e300, -1e300), (1e-300, 1e-300), (1e300, 1e300)],
            "one line",
        ),
        (
            "reflex, huge",
            &[(0.0, 0.0), (1.6e308, 0.0), (4e307, 4e307), (0.0, 1.6e308)],
            "vertex 2 is a reflex vertex",
        ),
        (
            "reflex, tiny",
            &[(0.0, 0.0), (4e-300, 0.0), (1e-300, 1e-300), (0.0, 4e-300)],
            "vertex 2 is a reflex vertex",
        ),
        (
            "bow tie, huge",
            &[
                (-1e308, -1e308),
                (1e308, 1e308),
                (1e308, -1e308),
                (-1e308, 1e308),
            ],
            "crosses itself",
        ),
        (
            "nan",
            &[(0.0, 0.0), (f64::NAN, 0.0), (0.0, 1.0)],
            "vertex 1",
        ),
        (
            "inf",
            &[(0.0, 0.0), (1.0, 0.0), (0.0, f64::INFINITY)],
            "vertex 2",
        ),
    ];
    for (name, v, msg) in bad {
        let e = ConvexPolygon::new(v).expect_err(name).to_string();
        assert!(e.contains(msg), "{name}: {e}");
    }
    // Valid polygons at the ends of the range, and thin ones: exact predicates accept them
    // (an overflowing or underflowing area does not make them "one line").
    let square = |h: f64| vec![(-h, -h), (h, -h), (h, h), (-h, h)];
    let good: Vec<(&str, Vec<(f64, f64)>)> = vec![
        ("square ±1e308", square(1e308)),
        ("square ±f64::MAX", square(f64::MAX)),
        ("square ±1e200", square(1e200)),
        ("square ±1e-300", square(1e-300)),
        (
            "subnormal triangle",
            vec![(0.0, 0.0), (2e-323, 0.0), (0.0, 2e-323)],
        ),
        (
            "thin triangle",
            vec![(0.0, 0.0), (1.0, 1.0), (2.0, 2.0 + 4.0 * f64::EPSILON)],
        ),
        (
            "convex by one ulp above the diagonal",
            vec![
                (0.0, 0.0),
                (2.0, 0.0),
                (2.0, 2.0),
                (1.0, 1.0 + f64::EPSILON),
            ],
        ),
        (
            "straight vertex, huge",
            vec![
                (-1e308, -1e308),
                (0.0, -1e308),
                (1e308, -1e308),
                (0.0, 1e308),
            ],
        ),
    ];
    for (name, v) in &good {
        for v in [v.clone(), v.iter().rev().copied().collect()] {
            let p = ConvexPolygon::new(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                p.contains(v[0].0, v[0].1),
                "{name}: a vertex is in the closed polygon"
            );
        }
    }
    let f32_square: Vec<(f32, f32)> = [(-3e38, -3e38), (3e38, -3e38), (3e38, 3e38), (-3e38, 3e38)]
        .into_iter()
        .collect();
    ConvexPolygon::new(&f32_square).expect("f32 square ±3e38");
    let ok =
        ConvexPolygon::new(&[(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]).unwrap();
    assert!(!ok.is_counter_clockwise());
    assert_eq!(
        ok.edge_count(),
        4,
        "the closing copy's zero-length edge is dropped"
    );
    assert_eq!(
        ok.normal(0),
        Some((-1.0, 0.0)),
        "edge 0 runs up the left side"
    );
    assert_eq!(ok.normal(4), None);
}
