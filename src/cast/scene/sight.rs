//! Line of sight: whether a wall meets the closed segment `A → B`, decided exactly.
//!
//! ```text
//! o1 = orient(A, B, C)  o2 = orient(A, B, D)  o3 = orient(C, D, A)  o4 = orient(C, D, B)
//! wall a point (C = D):   it meets AB iff o1 = 0 and C lies in AB's box; the contact is C
//! collinear (o1 = o2 = 0): the overlap of the two intervals along AB's longer axis;
//!                          a piece of positive length always blocks, a single point is the
//!                          contact
//! otherwise:              they meet iff o1, o2 have no common strict sign and neither do
//!                          o3, o4; the contact is A iff o3 = 0, B iff o4 = 0 (AB is not on
//!                          the wall's line, so it meets that line once)
//! blocked iff they meet and the contact is not an excluded end
//! ```
//!
//! `orient` is the exact sign of `(b − a) × (c − a)`: Shewchuk's adaptive predicate (the
//! `robust` crate) on `f64`, exact when no product of coordinate differences can overflow or
//! underflow, which holds for coordinates that are zero or between `2^-400` and `2^400` in
//! magnitude (every `f32`, and nearly every `f64`); others go through rationals.

use core::cmp::Ordering;

use num_bigint::BigInt;
use num_rational::BigRational;

/// A point in `f64` (exact for `f32` inputs).
pub(crate) type P = (f64, f64);

/// Which ends of `A → B` a contact may touch without blocking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SightEnds {
    /// A wall that meets the segment only at exactly `A` does not block.
    pub exclude_a: bool,
    /// A wall that meets the segment only at exactly `B` does not block.
    pub exclude_b: bool,
}

/// Whether `x` is in the range where [`robust::orient2d`] is exact.
#[inline(always)]
fn tame(x: f64) -> bool {
    let a = x.abs();
    a == 0.0
        || (a >= f64::from_bits(0x26f0_0000_0000_0000)
            && a <= f64::from_bits(0x58f0_0000_0000_0000))
}

/// The exact orientation of `c` against the line `a → b`: `Greater` counter-clockwise,
/// `Less` clockwise, `Equal` collinear.
#[inline]
pub(crate) fn orient(a: P, b: P, c: P) -> Ordering {
    if [a.0, a.1, b.0, b.1, c.0, c.1].iter().all(|&x| tame(x)) {
        let v = robust::orient2d(
            robust::Coord { x: a.0, y: a.1 },
            robust::Coord { x: b.0, y: b.1 },
            robust::Coord { x: c.0, y: c.1 },
        );
        return v.partial_cmp(&0.0).unwrap_or(Ordering::Equal);
    }
    let q = |x: f64| {
        BigRational::from_float(x).unwrap_or_else(|| BigRational::from_integer(BigInt::from(0)))
    };
    let (ax, ay, bx, by, cx, cy) = (q(a.0), q(a.1), q(b.0), q(b.1), q(c.0), q(c.1));
    let det = (&bx - &ax) * (&cy - &ay) - (&by - &ay) * (&cx - &ax);
    det.cmp(&BigRational::from_integer(BigInt::from(0)))
}

/// Whether the wall `c → d` blocks the closed segment `a → b` (`a ≠ b`, all finite).
pub(crate) fn blocks(a: P, b: P, c: P, d: P, ends: SightEnds) -> bool {
    let excluded = |p: P| (ends.exclude_a && p == a) || (ends.exclude_b && p == b);
    let o1 = orient(a, b, c);
    if c == d {
        let inside = |v: f64, p: f64, q: f64| p.min(q) <= v && v <= p.max(q);
        return o1 == Ordering::Equal
            && inside(c.0, a.0, b.0)
            && inside(c.1, a.1, b.1)
            && !excluded(c);
    }
    let o2 = orient(a, b, d);
    if o1 == Ordering::Equal && o2 == Ordering::Equal {
        // Positions along AB's axis of larger extent (AB is not a point, so it has one where
        // its ends differ; collinear points are ordered by it).
        let along_x = a.0 != b.0;
        let at = |p: P| if along_x { p.0 } else { p.1 };
        let (s0, s1) = (at(a).min(at(b)), at(a).max(at(b)));
        let (w0, w1) = (at(c).min(at(d)), at(c).max(at(d)));
        let (lo, hi) = (s0.max(w0), s1.min(w1));
        return match lo.partial_cmp(&hi) {
            Some(Ordering::Less) => true,
            Some(Ordering::Equal) => {
                let p = if at(a) == lo {
                    a
                } else if at(b) == lo {
                    b
                } else {
                    return true;
                };
                !excluded(p)
            }
            _ => false,
        };
    }
    if o1 != Ordering::Equal && o1 == o2 {
        return false;
    }
    let o3 = orient(c, d, a);
    let o4 = orient(c, d, b);
    if o3 != Ordering::Equal && o3 == o4 {
        return false;
    }
    let at_a = o3 == Ordering::Equal;
    let at_b = o4 == Ordering::Equal;
    !((at_a && ends.exclude_a) || (at_b && ends.exclude_b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tame_range_and_rational_fallback_agree() {
        assert!(tame(0.0) && tame(1.0) && tame(-3e100) && !tame(1e300) && !tame(1e-300));
        let huge = 1e300;
        assert_eq!(
            orient((0.0, 0.0), (huge, huge), (2.0 * huge, 2.0 * huge)),
            Ordering::Equal
        );
        assert_eq!(
            orient((0.0, 0.0), (huge, 0.0), (1.0, 1e-300)),
            Ordering::Greater
        );
        assert_eq!(
            orient((0.0, 0.0), (1.0, 0.0), (0.5, -1e-300)),
            Ordering::Less
        );
    }
}
