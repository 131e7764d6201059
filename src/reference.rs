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
/// miss to be allowed to differ from exact arithmetic: SPEC §1's "graze of a corner", allowed
/// only when both endpoints are outside the rect. Twice [`T_ULPS`]: entry and exit may each be
/// that far off, so their order is only sure beyond both.
pub const GRAZE_ULPS: i32 = 12;
/// SPEC §1: `t_entry` and `t_exit` within this many ulps of the exact values (room for rounding
/// `d`, its reciprocal, `bound − p` and their product, one of them upward).
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

    /// Whether this is a graze, where hit versus miss and `Touches` versus a piece of positive
    /// length may differ from exact arithmetic (SPEC §1, Rounding): both endpoints outside and
    /// the exact entry and exit within [`GRAZE_ULPS`] ulps (of `F`) of each other. A parallel miss
    /// is never a graze, and with an endpoint in the rect there is no allowance at all.
    pub fn near_graze<F: Real>(&self) -> bool {
        if self.parallel_miss || self.p0_in || self.p1_in {
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
    /// * the far ends: on a hit, `t_entry == 1.0` iff the exact entry is 1 (the segment enters
    ///   exactly at `P1`), and `t_exit == +0.0` iff the exact exit is 0 (it leaves exactly at
    ///   `P0`), so an entry of `1 − 10⁻⁹` may not round to 1 nor a tiny exit underflow to 0;
    /// * a miss has NaN parameters; hit versus miss, and the class, as in exact arithmetic except
    ///   at a graze with both endpoints outside ([`Exact::near_graze`]);
    /// * `0 ≤ t_entry ≤ t_exit ≤ 1`, each within [`T_ULPS`] ulps of the exact value.
    ///
    /// The clipped segment has more rules ([`Exact::verify_clipped`]).
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
        let graze = self.near_graze::<F>();
        if !hit {
            if !nan(t_entry) || !nan(t_exit) {
                return Err("a miss has NaN parameters".into());
            }
            if self.hit() && !graze {
                return Err("exact hit (not a graze with both ends outside) is a hit".into());
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
        if !self.hit() && !graze {
            return Err("exact miss (not a graze with both ends outside) is a miss".into());
        }
        // The far ends (both sides now hit; a graze hit has both ends outside, so t_entry > 0
        // and t_exit < 1 already).
        if self.hit() {
            let (entry_one, exit_zero) = (self.entry.is_one(), self.exit.is_zero());
            if t_entry == F::ONE && !entry_one {
                return Err(format!(
                    "t_entry == 1 only when the segment enters exactly at P1 (exact entry 1 - {})",
                    small(&(Q::one() - &self.entry))
                ));
            }
            if entry_one && !bits(t_entry, F::ONE) {
                return Err("entering exactly at P1 gives t_entry == 1.0".into());
            }
            if t_exit == F::ZERO && !exit_zero {
                return Err(format!(
                    "t_exit == 0 only when the segment leaves exactly at P0 (exact exit {})",
                    small(&self.exit)
                ));
            }
            if exit_zero && !bits(t_exit, F::ZERO) {
                return Err("leaving exactly at P0 gives t_exit == +0.0".into());
            }
        }
        if self.hit() && !graze && class != self.class {
            let why = if self.p0_in || self.p1_in {
                "an endpoint is inside: no graze allowance"
            } else {
                "away from a graze"
            };
            return Err(format!(
                "class equals the exact class {:?} ({why})",
                self.class
            ));
        }
        for (name, got, want) in [
            ("t_entry", t_entry, &self.entry),
            ("t_exit", t_exit, &self.exit),
        ] {
            let off = ulps(got, want);
            if off > T_ULPS {
                return Err(format!("{name} within {T_ULPS} ulps (off by {off:.3})"));
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

/// A small positive rational for a message: `1.234e-9`, or `~2^-1100` below `f64`'s range.
fn small(x: &Q) -> String {
    match x.to_f64() {
        Some(v) if v != 0.0 => format!("{v:.3e}"),
        _ => format!("~2^{}", x.numer().bits() as i64 - x.denom().bits() as i64),
    }
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
        // Enters through x = 0 at exactly t = 1/3 in rationals; f32's 1/3 is 1/3 ulp below it.
        let s = Segment::new(-1.0f32, 0.5, 2.0, 0.5);
        let e = exact(&rect(), &s);
        assert_eq!(e.class, Class::Crosses);
        assert_eq!(e.entry, Q::new(1.into(), 3.into()));
        let near = 1.0f32 / 3.0;
        let up = |x: f32, k: u32| f32::from_bits(x.to_bits() + k);
        let down = |x: f32, k: u32| f32::from_bits(x.to_bits() - k);
        let exit = 2.0f32 / 3.0;
        assert!(e.verify(near, exit, Class::Crosses).is_ok());
        assert!(e.verify(up(near, 5), exit, Class::Crosses).is_ok()); // 5.33 ulps off
        assert!(e.verify(down(near, 6), exit, Class::Crosses).is_ok()); // 5.67 ulps off
        for bad in [up(near, 6), down(near, 7)] {
            let err = e.verify(bad, exit, Class::Crosses).unwrap_err();
            assert!(err.contains("t_entry within 6 ulps"), "{err}");
        }
        let err = e.verify(near, up(exit, 7), Class::Crosses).unwrap_err();
        assert!(err.contains("t_exit within 6 ulps"), "{err}");
        assert!(e.verify(near, exit, Class::Enters).is_err());
        assert!(e.verify(f32::NAN, f32::NAN, Class::Outside).is_err());
    }

    #[test]
    fn an_entry_just_below_one_is_not_one() {
        // The far-end example: P1 is strictly inside, one ulp right of x = 0.25; the exact entry
        // 4 / (4 + 2^-25) = 1 − 7.45e-9 rounds to 1 in f32, but must stay below it.
        let r = Rect::new(0.25f32, 0.25, 0.75, 0.75).unwrap();
        let s = Segment::new(-3.75f32, 0.75, 0.250_000_03, 0.749_999_94);
        let e = exact(&r, &s);
        assert_eq!(e.class, Class::Enters);
        assert!(e.p1_in && !e.p0_in);
        assert_eq!(e.entry, Q::new(4.into(), 4.into()) / (Q::one() + pow2(-27)));
        let err = e.verify(1.0f32, 1.0, Class::Touches).unwrap_err();
        assert!(
            err.contains("t_entry == 1 only when the segment enters exactly at P1"),
            "{err}"
        );
        // 1 − 2^-24 is 0.875 ulps off, 1 − 6·2^-24 is 5.875.
        assert!(e.verify(1.0f32.next_down(), 1.0, Class::Enters).is_ok());
        let six_below = f32::from_bits(1.0f32.to_bits() - 6);
        assert!(e.verify(six_below, 1.0, Class::Enters).is_ok());
        let seven_below = f32::from_bits(1.0f32.to_bits() - 7);
        assert!(e.verify(seven_below, 1.0, Class::Enters).is_err());
    }

    #[test]
    fn an_exit_just_above_zero_is_not_zero() {
        // P0 one ulp inside x = 1, P1 at 2^127: the exact exit 2^-24 / (2^127 − 1 + 2^-24) is
        // below the smallest subnormal 2^-149, within a graze's few ulps of entry 0. Touches
        // (an exit underflowed to 0) is wrong all the same: P0 is inside, no graze allowance.
        let s = Segment::new(1.0f32.next_down(), 0.5, 2f32.powi(127), 0.5);
        let e = exact(&rect(), &s);
        assert_eq!(e.class, Class::Exits);
        assert!(e.exit.is_positive() && e.exit < pow2(-149));
        assert!(
            !e.near_graze::<f32>(),
            "an endpoint inside is never a graze"
        );
        let err = e.verify(0.0f32, 0.0, Class::Touches).unwrap_err();
        assert!(
            err.contains("t_exit == 0 only when the segment leaves exactly at P0"),
            "{err}"
        );
        assert!(e.verify(0.0f32, f32::from_bits(1), Class::Exits).is_ok());
        // A clear miss the other way round: from outside into a point one ulp inside.
        let back = exact(&rect(), &Segment::new(s.x1, s.y1, s.x0, s.y0));
        assert_eq!(back.class, Class::Enters);
        assert!(back.verify(1.0f32, 1.0, Class::Touches).is_err());
    }

    #[test]
    fn the_far_ends_are_exact_when_the_segment_meets_the_rect_at_them() {
        // Ends on the right edge coming from outside: exact entry 1, a real Touches.
        let s = Segment::new(2.0f32, 0.5, 1.0, 0.5);
        let e = exact(&rect(), &s);
        assert_eq!(e.class, Class::Touches);
        assert!(e.entry.is_one());
        assert!(e.verify(1.0f32, 1.0, Class::Touches).is_ok());
        let err = e
            .verify(1.0f32.next_down(), 1.0, Class::Enters)
            .unwrap_err();
        assert!(
            err.contains("entering exactly at P1 gives t_entry == 1.0"),
            "{err}"
        );
        // Starts on it going away: exact exit 0, and it must be +0.0.
        let e = exact(&rect(), &Segment::new(1.0f32, 0.5, 2.0, 0.5));
        assert!(e.exit.is_zero());
        assert!(e.verify(0.0f32, 0.0, Class::Touches).is_ok());
        let err = e.verify(0.0f32, -0.0, Class::Touches).unwrap_err();
        assert!(err.contains("t_exit == +0.0"), "{err}");
        let err = e
            .verify(0.0f32, f32::from_bits(1), Class::Exits)
            .unwrap_err();
        assert!(err.contains("leaving exactly at P0"), "{err}");
        // Ends on the top edge, entering through the left one: P1 is inside, not an entry at P1.
        let e = exact(&rect(), &Segment::new(-1.0f32, 0.0, 0.5, 1.0));
        assert_eq!(e.class, Class::Enters);
        assert!(e.verify(1.0f32, 1.0, Class::Touches).is_err());
        assert!(e.verify(2.0f32 / 3.0, 1.0, Class::Enters).is_ok());
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
