//! The one contract checker every algorithm, in both precisions, goes through.
//!
//! Given a rect, a segment and what an algorithm returned, it checks SPEC §1 against the exact
//! reference, with SPEC's tolerances and no looser:
//! * validity: NaN or ±∞ in, `Invalid` and NaN out;
//! * `t_entry == +0.0` iff `P0` is inside, `t_exit == 1.0` iff `P1` is inside, bit for bit, and an
//!   endpoint inside is always a hit;
//! * hit versus miss as in exact arithmetic, except near a graze (exact entry and exit within
//!   `GRAZE_ULPS` ulps of each other);
//! * the class agrees with the exact class away from a graze, and with the returned parameters;
//! * `t_entry`, `t_exit` within 2 ulps of the exact values;
//! * the clipped segment: inside endpoints bit for bit, cut endpoints exactly on an edge, every
//!   point in the closed rect, and close to the exact point; NaN on a miss.

use super::reference::{exact, q, ulp, Exact, Q};
use num_traits::Signed;
use slabclip::{Algorithm, Class, Clip, Real, Rect, Segment};

/// NaN test through `f64` (exact for both types).
pub fn is_nan<F: Real>(x: F) -> bool {
    x.to_f64().is_nan()
}

fn same_bits<F: Real>(a: F, b: F) -> bool {
    a.to_bits_u64() == b.to_bits_u64()
}

/// Checks one result; the error names the algorithm, the inputs and the broken rule.
///
/// The parameters and the class go through the library's [`Exact::verify`]; the clipped segment
/// is checked here.
pub fn check<F: Real>(
    alg: Algorithm,
    r: &Rect<F>,
    s: &Segment<F>,
    c: &Clip<F>,
    cs: &Segment<F>,
) -> Result<(), String> {
    let e = exact(r, s);
    let fail = |rule: &str| {
        Err(format!(
            "{alg} broke '{rule}'\n  rect {r:?}\n  seg  {s:?}\n  got  {c:?}\n  clipped {cs:?}\n  exact {e:?}"
        ))
    };
    if let Err(rule) = e.verify(c.t_entry, c.t_exit, c.class) {
        return fail(&rule);
    }
    if !c.class.is_hit() {
        if ![cs.x0, cs.y0, cs.x1, cs.y1].into_iter().all(is_nan) {
            return fail("a miss or an invalid input clips to a NaN segment");
        }
        return Ok(());
    }
    check_clipped(r, s, c, cs, &e).or_else(|rule| fail(&rule))
}

fn check_clipped<F: Real>(
    r: &Rect<F>,
    s: &Segment<F>,
    c: &Clip<F>,
    cs: &Segment<F>,
    e: &Exact,
) -> Result<(), String> {
    let ends = [
        (cs.x0, cs.y0, c.t_entry, &e.entry, (s.x0, s.y0)),
        (cs.x1, cs.y1, c.t_exit, &e.exit, (s.x1, s.y1)),
    ];
    for (i, (x, y, t, t_exact, (px, py))) in ends.into_iter().enumerate() {
        let end = if i == 0 { "entry" } else { "exit" };
        if !r.contains(x, y) {
            return Err(format!("clipped {end} point lies in the closed rect"));
        }
        let inside_end = if i == 0 { t == F::ZERO } else { t == F::ONE };
        let other_inside_end = if i == 0 { t == F::ONE } else { t == F::ZERO };
        if inside_end || other_inside_end {
            // At t = 0 the point is P0 and at t = 1 it is P1, bit for bit.
            let (wx, wy) = if inside_end {
                (px, py)
            } else if i == 0 {
                (s.x1, s.y1)
            } else {
                (s.x0, s.y0)
            };
            if !(same_bits(x, wx) && same_bits(y, wy)) {
                return Err(format!(
                    "clipped {end} point at t = 0 or 1 is the endpoint, bit for bit"
                ));
            }
            continue;
        }
        let on_edge = x == r.xmin() || x == r.xmax() || y == r.ymin() || y == r.ymax();
        if !on_edge {
            return Err(format!(
                "clipped {end} point cut by an edge lies exactly on an edge"
            ));
        }
        // Close to the exact point P(t_exact): within a few roundings of the coordinates involved.
        let eps = q(F::ONE_BELOW);
        let eps = Q::from_integer(1.into()) - eps; // ε/2
        for (v, a, b, lo, hi) in [
            (x, s.x0, s.x1, r.xmin(), r.xmax()),
            (y, s.y0, s.y1, r.ymin(), r.ymax()),
        ] {
            let want = q(a) + t_exact * (q(b) - q(a));
            let scale = q(a).abs() + q(b).abs() + q(lo).abs() + q(hi).abs();
            let tol = eps.clone() * Q::from_integer(16.into()) * scale
                + ulp::<F>(&Q::from_integer(0.into()));
            if (q(v) - &want).abs() > tol {
                return Err(format!(
                    "clipped {end} point is within rounding of the exact point"
                ));
            }
        }
    }
    if c.class == Class::Touches && !(same_bits(cs.x0, cs.x1) && same_bits(cs.y0, cs.y1)) {
        return Err("Touches clips to one point".into());
    }
    Ok(())
}
