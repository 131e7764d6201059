//! Rays × convex polygons against the exact rational reference, in both inside modes.
//!
//! Grid cases must be exact: the inside flag, hit versus miss, `t` correctly rounded, the edge
//! the lowest index among those whose exact `t` rounds to the reported one (at a corner: the
//! lower of the two edges), its real outward unit normal. General cases are held to the
//! rounding bounds of the float cross products. Then batches (SIMD, tail, rayon) against the
//! one-ray path, bit for bit.

mod common;

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

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

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
            "more than once",
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
