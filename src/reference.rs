//! The slow, obviously-right clip: SPEC §1 in exact rational arithmetic, and the check of a
//! kernel's answer against it.
//!
//! Floats convert to [`BigRational`] exactly, so nothing here rounds. It is thousands of times
//! slower than the kernels (microseconds per segment): the differential tests run every
//! algorithm through it, and `slabclip compare` checks a subsample with it. Use the kernels
//! ([`Algorithm`](crate::Algorithm)) for real work.
//!
//! ```
//! use slabclip::reference::exact;
//! use slabclip::{Algorithm, Class, Rect, Segment};
//!
//! let rect = Rect::new(0.0f32, 0.0, 1.0, 1.0)?;
//! let s = Segment::new(-1.0f32, 0.5, 0.5, 0.5);
//! let e = exact(&rect, &s);
//! assert_eq!(e.class, Class::Enters);
//! let c = Algorithm::LiangBarsky.clip_one(&rect, &s);
//! assert!(e.verify(c.t_entry, c.t_exit, c.class).is_ok());
//! assert!(e.verify(0.0, 1.0, Class::Inside).is_err());
//! # Ok::<(), slabclip::Error>(())
//! ```

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::geom::{Class, Rect, Segment};
use crate::real::Real;

/// An exact rational number.
pub type Q = BigRational;

/// How close (in ulps of the larger) the exact entry and exit must be for a kernel's hit versus
/// miss to be allowed to differ from exact arithmetic: SPEC §1's "graze of a corner".
pub const GRAZE_ULPS: i32 = 12;
/// SPEC §1: `t_entry` and `t_exit` within this many ulps of the exact values.
pub const T_ULPS: f64 = 6.0;

/// A float as an exact rational. Panics on NaN or ±∞: call it on finite values only.
pub fn q<F: Real>(x: F) -> Q {
    Q::from_float(x.to_f64()).expect("q() takes finite values only")
}

/// An interval of the line parameter from one axis; `None` bounds are ±∞.
#[derive(Clone, Debug)]
pub struct Slab {
    /// Where the line enters the slab (`None`: parallel, no bound).
    pub near: Option<Q>,
    /// Where it leaves (`None`: parallel, no bound).
    pub far: Option<Q>,
    /// Parallel and outside the slab: no parameter is in it.
    pub empty: bool,
}

/// The slab `lo ≤ p0 + t·(p1 − p0) ≤ hi` of one axis, exactly.
pub fn slab(lo: &Q, hi: &Q, p0: &Q, p1: &Q) -> Slab {
    let d = p1 - p0;
    if d.is_zero() {
        let inside = lo <= p0 && p0 <= hi;
        return Slab {
            near: None,
            far: None,
            empty: !inside,
        };
    }
    let a = (lo - p0) / &d;
    let b = (hi - p0) / &d;
    let (near, far) = if d.is_positive() { (a, b) } else { (b, a) };
    Slab {
        near: Some(near),
        far: Some(far),
        empty: false,
    }
}

/// The exact answer for one segment and one rect.
#[derive(Clone, Debug)]
pub struct Exact {
    /// Every coordinate is finite (else the class is `Invalid`).
    pub valid: bool,
    /// `P0` lies in the closed rect.
    pub p0_in: bool,
    /// `P1` lies in the closed rect.
    pub p1_in: bool,
    /// `max(0, nears)`, whether or not it forms a hit with `exit`.
    pub entry: Q,
    /// `min(1, fars)`, whether or not it forms a hit with `entry`.
    pub exit: Q,
    /// A parallel axis outside its slab: a miss no rounding can turn into a hit.
    pub parallel_miss: bool,
    /// The exact class.
    pub class: Class,
}

/// SPEC §1's class of the exact interval `[entry, exit]` of `[0, 1]` (`sure_miss` for an axis
/// that rules out every `t`): the one definition the exact references share.
pub fn class_of(sure_miss: bool, entry: &Q, exit: &Q) -> Class {
    if sure_miss || entry > exit {
        Class::Outside
    } else if entry == exit {
        Class::Touches
    } else {
        match (entry.is_zero(), exit.is_one()) {
            (true, true) => Class::Inside,
            (false, true) => Class::Enters,
            (true, false) => Class::Exits,
            (false, false) => Class::Crosses,
        }
    }
}

/// The exact clip of `s` by `r` (SPEC §1).
pub fn exact<F: Real>(r: &Rect<F>, s: &Segment<F>) -> Exact {
    if !s.is_finite() {
        return Exact {
            valid: false,
            p0_in: false,
            p1_in: false,
            entry: Q::zero(),
            exit: Q::zero(),
            parallel_miss: false,
            class: Class::Invalid,
        };
    }
    let (xmin, ymin, xmax, ymax) = (q(r.xmin()), q(r.ymin()), q(r.xmax()), q(r.ymax()));
    let (x0, y0, x1, y1) = (q(s.x0), q(s.y0), q(s.x1), q(s.y1));
    let inside = |x: &Q, y: &Q| &xmin <= x && x <= &xmax && &ymin <= y && y <= &ymax;
    let sx = slab(&xmin, &xmax, &x0, &x1);
    let sy = slab(&ymin, &ymax, &y0, &y1);
    let mut entry = Q::zero();
    let mut exit = Q::one();
    for s in [&sx, &sy] {
        if let Some(n) = &s.near {
            if n > &entry {
                entry = n.clone();
            }
        }
        if let Some(f) = &s.far {
            if f < &exit {
                exit = f.clone();
            }
        }
    }
    let parallel_miss = sx.empty || sy.empty;
    let class = class_of(parallel_miss, &entry, &exit);
    Exact {
        valid: true,
        p0_in: inside(&x0, &y0),
        p1_in: inside(&x1, &y1),
        entry,
        exit,
        parallel_miss,
        class,
    }
}

impl Exact {
    /// Whether the exact clip is non-empty.
    pub fn hit(&self) -> bool {
        self.class.is_hit()
    }

    /// Whether exact entry and exit are within [`GRAZE_ULPS`] ulps (of `F`) of each other, where
    /// hit versus miss may differ from exact arithmetic. A parallel miss is never a graze.
    pub fn near_graze<F: Real>(&self) -> bool {
        if self.parallel_miss {
            return false;
        }
        let big = self.entry.abs().max(self.exit.abs());
        (&self.entry - &self.exit).abs() <= ulp::<F>(&big) * Q::from_integer(GRAZE_ULPS.into())
    }

    /// Checks a kernel's `t_entry`, `t_exit` and class for this segment against SPEC §1, with its
    /// tolerances and no looser; the error names the broken rule.
    ///
    /// * non-finite input: `Invalid` with NaN parameters; finite input: never `Invalid`;
    /// * the class agrees with the returned parameters;
    /// * `t_entry == +0.0` iff `P0` is inside and `t_exit == 1.0` iff `P1` is, bit for bit, and an
    ///   endpoint inside is always a hit;
    /// * a miss has NaN parameters; hit versus miss as in exact arithmetic except near a graze
    ///   ([`Exact::near_graze`]); the class equals the exact class away from a graze;
    /// * `0 ≤ t_entry ≤ t_exit ≤ 1`, each within [`T_ULPS`] ulps of the exact value.
    ///
    /// The clipped segment has more rules (the differential tests check those too).
    pub fn verify<F: Real>(&self, t_entry: F, t_exit: F, class: Class) -> Result<(), String> {
        let nan = |x: F| x.to_f64().is_nan();
        let bits = |a: F, b: F| a.to_bits_u64() == b.to_bits_u64();
        let hit = class.is_hit();
        if !self.valid {
            return if class == Class::Invalid && nan(t_entry) && nan(t_exit) {
                Ok(())
            } else {
                Err("non-finite input is Invalid with NaN outputs".into())
            };
        }
        if class == Class::Invalid {
            return Err("finite input is never Invalid".into());
        }
        if class != Class::of(true, t_entry, t_exit) {
            return Err("class agrees with the returned parameters".into());
        }
        if self.p0_in && !(hit && bits(t_entry, F::ZERO)) {
            return Err("P0 inside gives a hit with t_entry == +0.0".into());
        }
        if self.p1_in && !(hit && bits(t_exit, F::ONE)) {
            return Err("P1 inside gives a hit with t_exit == 1.0".into());
        }
        if !hit {
            if !nan(t_entry) || !nan(t_exit) {
                return Err("a miss has NaN parameters".into());
            }
            if self.hit() && !self.near_graze::<F>() {
                return Err("exact hit (not a graze) is a hit".into());
            }
            return Ok(());
        }
        if !(F::ZERO <= t_entry && t_entry <= t_exit && t_exit <= F::ONE) {
            return Err("0 <= t_entry <= t_exit <= 1".into());
        }
        if !self.p0_in && t_entry == F::ZERO {
            return Err("P0 outside never gets t_entry == 0".into());
        }
        if !self.p1_in && t_exit == F::ONE {
            return Err("P1 outside never gets t_exit == 1".into());
        }
        let graze = self.near_graze::<F>();
        if !self.hit() && !graze {
            return Err("exact miss (not a graze) is a miss".into());
        }
        if self.hit() && !graze && class != self.class {
            return Err("class equals the exact class away from a graze".into());
        }
        for (name, got, want) in [
            ("t_entry", t_entry, &self.entry),
            ("t_exit", t_exit, &self.exit),
        ] {
            let off = ulps(got, want);
            if off > T_ULPS {
                return Err(format!("{name} within 6 ulps (off by {off:.3})"));
            }
        }
        Ok(())
    }
}

impl Exact {
    /// [`Exact::verify`], and the clipped segment `clipped` that came with those parameters
    /// (SPEC §1): a miss or an invalid input is a row of NaN; on a hit an endpoint at `t = 0` or
    /// `t = 1` is that endpoint bit for bit, an endpoint cut by an edge lies exactly on an edge
    /// and within a few roundings of the exact point, every point lies in the closed rect, and
    /// `Touches` gives one point twice.
    pub fn verify_clipped<F: Real>(
        &self,
        rect: &Rect<F>,
        seg: &Segment<F>,
        t_entry: F,
        t_exit: F,
        class: Class,
        clipped: &Segment<F>,
    ) -> Result<(), String> {
        self.verify(t_entry, t_exit, class)?;
        let cs = clipped;
        let bits = |a: F, b: F| a.to_bits_u64() == b.to_bits_u64();
        if !class.is_hit() {
            return if [cs.x0, cs.y0, cs.x1, cs.y1]
                .iter()
                .all(|v| v.to_f64().is_nan())
            {
                Ok(())
            } else {
                Err("a miss or an invalid input clips to a NaN segment".into())
            };
        }
        let (s, r) = (seg, rect);
        let ends = [
            (cs.x0, cs.y0, t_entry, &self.entry, (s.x0, s.y0)),
            (cs.x1, cs.y1, t_exit, &self.exit, (s.x1, s.y1)),
        ];
        // ε/2, the unit roundoff.
        let unit = Q::one() - q(F::ONE_BELOW);
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
                if !(bits(x, wx) && bits(y, wy)) {
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
            // Close to the exact point P(t_exact): within a few roundings of the coordinates.
            for (v, a, b, lo, hi) in [
                (x, s.x0, s.x1, r.xmin(), r.xmax()),
                (y, s.y0, s.y1, r.ymin(), r.ymax()),
            ] {
                let want = q(a) + t_exact * (q(b) - q(a));
                let scale = q(a).abs() + q(b).abs() + q(lo).abs() + q(hi).abs();
                let tol = &unit * Q::from_integer(16.into()) * scale + ulp::<F>(&Q::zero());
                if (q(v) - &want).abs() > tol {
                    return Err(format!(
                        "clipped {end} point is within rounding of the exact point"
                    ));
                }
            }
        }
        if class == Class::Touches && !(bits(cs.x0, cs.x1) && bits(cs.y0, cs.y1)) {
            return Err("Touches clips to one point".into());
        }
        Ok(())
    }
}

/// The spacing of `F` at the magnitude of `x`: `2^(e − p + 1)` for `2^e ≤ |x| < 2^(e+1)`, and
/// the subnormal spacing below the normal range.
pub fn ulp<F: Real>(x: &Q) -> Q {
    let (digits, min_exp) = if core::mem::size_of::<F>() == 4 {
        (24i32, -126i32)
    } else {
        (53, -1022)
    };
    let a = x.abs();
    let tiny = pow2(min_exp - digits + 1);
    if a < pow2(min_exp) {
        return tiny;
    }
    let approx = a.to_f64().unwrap_or(f64::MAX);
    let mut e = if approx.is_finite() && approx > 0.0 {
        approx.log2().floor() as i32
    } else {
        1024
    };
    while pow2(e) > a {
        e -= 1;
    }
    while pow2(e + 1) <= a {
        e += 1;
    }
    pow2(e - digits + 1)
}

/// `2^e`, exactly.
pub fn pow2(e: i32) -> Q {
    let two = BigInt::from(2);
    if e >= 0 {
        Q::from_integer(two.pow(e.unsigned_abs()))
    } else {
        Q::new(BigInt::one(), two.pow(e.unsigned_abs()))
    }
}

/// `|got − want|` in units of `ulp(want)`, as a float for messages. `got` must be finite.
pub fn ulps<F: Real>(got: F, want: &Q) -> f64 {
    let diff = (q(got) - want).abs() / ulp::<F>(want);
    diff.to_f64().unwrap_or(f64::INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect() -> Rect<f32> {
        Rect::new(0.0, 0.0, 1.0, 1.0).unwrap()
    }

    #[test]
    fn verify_takes_six_ulps_and_no_more() {
        // Enters through x = 0 at exactly t = 1/3 in rationals.
        let s = Segment::new(-1.0f32, 0.5, 2.0, 0.5);
        let e = exact(&rect(), &s);
        assert_eq!(e.class, Class::Crosses);
        assert_eq!(e.entry, Q::new(1.into(), 3.into()));
        let near = 1.0f32 / 3.0;
        let up = |x: f32, k: u32| f32::from_bits(x.to_bits() + k);
        let exit = 2.0f32 / 3.0;
        assert!(e.verify(near, exit, Class::Crosses).is_ok());
        assert!(e.verify(up(near, 5), exit, Class::Crosses).is_ok()); // 5.33 ulps off
        let err = e.verify(up(near, 6), exit, Class::Crosses).unwrap_err();
        assert!(err.contains("t_entry within 6 ulps"), "{err}");
        assert!(e.verify(near, exit, Class::Enters).is_err());
        assert!(e.verify(f32::NAN, f32::NAN, Class::Outside).is_err());
    }

    #[test]
    fn verify_holds_endpoints_exact() {
        let s = Segment::new(0.5f32, 0.5, 2.0, 0.5);
        let e = exact(&rect(), &s);
        assert!(e.verify(0.0, 1.0 / 3.0, Class::Exits).is_ok());
        assert!(
            e.verify(-0.0, 1.0 / 3.0, Class::Exits).is_err(),
            "-0.0 is not +0.0"
        );
        assert!(e
            .verify(f32::from_bits(1), 1.0 / 3.0, Class::Crosses)
            .is_err());
        let bad = Segment::new(f32::NAN, 0.5, 2.0, 0.5);
        let e = exact(&rect(), &bad);
        assert!(e.verify(f32::NAN, f32::NAN, Class::Invalid).is_ok());
        assert!(e.verify(f32::NAN, f32::NAN, Class::Outside).is_err());
    }

    #[test]
    fn a_corner_graze_may_go_either_way_a_clear_miss_may_not() {
        let graze = exact(&rect(), &Segment::new(-0.5f32, 0.5, 0.5, 1.5));
        assert_eq!(graze.class, Class::Touches);
        assert!(graze.near_graze::<f32>());
        assert!(graze.verify(f32::NAN, f32::NAN, Class::Outside).is_ok());
        let miss = exact(&rect(), &Segment::new(-0.5f32, 0.6, 0.4, 1.5));
        assert!(!miss.near_graze::<f32>());
        assert!(miss.verify(0.5f32, 0.5, Class::Touches).is_err());
    }

    #[test]
    fn verify_clipped_catches_wrong_segments() {
        let s = Segment::new(0.5f32, 0.5, 2.0, 0.5);
        let e = exact(&rect(), &s);
        let t = 1.0f32 / 3.0;
        let good = Segment::new(0.5f32, 0.5, 1.0, 0.5);
        assert!(e
            .verify_clipped(&rect(), &s, 0.0, t, Class::Exits, &good)
            .is_ok());
        let off_edge = Segment::new(0.5f32, 0.5, 0.999, 0.5);
        assert!(e
            .verify_clipped(&rect(), &s, 0.0, t, Class::Exits, &off_edge)
            .is_err());
        let moved = Segment::new(0.5f32, 0.25, 1.0, 0.5);
        assert!(e
            .verify_clipped(&rect(), &s, 0.0, t, Class::Exits, &moved)
            .is_err());
    }
}
