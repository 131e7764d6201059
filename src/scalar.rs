//! `f32` and `f64` as lanes of width one, and as the two [`Real`] types: their constants and
//! which SIMD vector each uses in this build ([`crate::simd`]).

use crate::real::{Lane, Real};

macro_rules! scalar_lane {
    ($t:ty, $int:ty, $dtype:literal, $simd:ty, $mul_up:path) => {
        impl Lane for $t {
            type Mask = bool;
            type Scalar = $t;
            const WIDTH: usize = 1;
            #[inline(always)]
            fn splat(x: $t) -> $t {
                x
            }
            #[inline(always)]
            fn select(m: bool, a: $t, b: $t) -> $t {
                if m {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn lt(self, o: $t) -> bool {
                self < o
            }
            #[inline(always)]
            fn le(self, o: $t) -> bool {
                self <= o
            }
            #[inline(always)]
            fn eq_(self, o: $t) -> bool {
                self == o
            }
            #[inline(always)]
            fn min_bits(self, o: $t) -> $t {
                if self.le_bits(o) {
                    self
                } else {
                    o
                }
            }
            #[inline(always)]
            fn le_bits(self, o: $t) -> bool {
                (self.to_bits() as $int) <= (o.to_bits() as $int)
            }
            #[inline(always)]
            fn finite(self) -> bool {
                self.is_finite()
            }
            #[inline(always)]
            fn any(m: bool) -> bool {
                m
            }
            #[inline(always)]
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn min_any(self, o: $t) -> $t {
                if self < o {
                    self
                } else {
                    o
                }
            }
            #[inline(always)]
            fn max_any(self, o: $t) -> $t {
                if self > o {
                    self
                } else {
                    o
                }
            }
            #[inline(always)]
            fn write(self, out: &mut [$t]) {
                out[0] = self;
            }
            #[inline(always)]
            fn write_low_bytes(self, out: &mut [u8]) {
                out[0] = self.to_bits() as u8;
            }
            #[inline(always)]
            fn from_fn(mut f: impl FnMut(usize) -> $t) -> $t {
                f(0)
            }
            #[inline(always)]
            fn mul_up(self, o: $t) -> $t {
                $mul_up(self, o)
            }
        }

        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const HALF: $t = 0.5;
            const ONE_BELOW: $t = 1.0 - <$t>::EPSILON / 2.0;
            const GRAZE_TOP: $t = 1.0 - 2.0 * <$t>::EPSILON;
            const ONE_REACH: $t = 1.0 + 4.0 * <$t>::EPSILON;
            const TINY: $t = <$t>::from_bits(1);
            const NAN: $t = <$t>::NAN;
            const INFINITY: $t = <$t>::INFINITY;
            const RANGE_LO: $t = <$t>::MIN_POSITIVE;
            const RANGE_HI: $t = 1.0 / <$t>::MIN_POSITIVE;
            const CODE_BIAS: $t = (1u64 << (<$t>::MANTISSA_DIGITS - 1)) as $t;
            const DTYPE: &'static str = $dtype;

            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn to_bits_u64(self) -> u64 {
                self.to_bits() as u64
            }
            #[inline(always)]
            fn next_up(self) -> $t {
                <$t>::next_up(self)
            }

            type Simd = $simd;
            const LANES: usize = core::mem::size_of::<$simd>() / core::mem::size_of::<$t>();
            #[inline(always)]
            fn load(s: &[$t]) -> $simd {
                <$simd as crate::simd::Load>::load(s)
            }
            #[inline(always)]
            fn load_rows(s: &[$t]) -> [$simd; 4] {
                <$simd as crate::simd::Load>::load_rows(s)
            }
        }
    };
}

scalar_lane!(f32, i32, "float32", crate::simd::F32s, mul_up_f32);
scalar_lane!(f64, i64, "float64", crate::simd::F64s, mul_up_f64);

/// [`Lane::mul_up`] for `f32`: the product is exact in `f64` (24 + 24 bits, and the exponents
/// fit), so rounding it to nearest and stepping up where that fell below is the upward rounding,
/// subnormals and overflow included (`-∞` steps up to `-MAX`).
#[inline(always)]
fn mul_up_f32(a: f32, b: f32) -> f32 {
    let p = a as f64 * b as f64;
    let q = p as f32;
    // Branch-free: the rounding direction is a coin toss, which a branch mispredicts half the
    // time.
    let bits = step_up(q.to_bits(), ((q as f64) < p) as u32);
    // An exact zero is +0: the sign bit cleared.
    f32::from_bits(bits & !(((p == 0.0) as u32) << 31))
}

/// The bits of the next float up from the `f32` with `bits` when `up` is 1 (toward zero for a
/// negative one: `-∞` to `-MAX`, `-TINY` to `-0`), unchanged when it is 0.
#[inline(always)]
fn step_up(bits: u32, up: u32) -> u32 {
    bits.wrapping_add((((bits as i32) >> 31) as u32 | 1).wrapping_mul(up))
}

/// [`step_up`] for `f64` bits.
#[inline(always)]
fn step_up64(bits: u64, up: u64) -> u64 {
    bits.wrapping_add((((bits as i64) >> 63) as u64 | 1).wrapping_mul(up))
}

/// [`Lane::mul_up`] for `f64`. Where the rounded product is at least `2^-969` its error is
/// exactly `fma(a, b, −p)`, whose sign says whether to step up. Below that (tiny products,
/// underflow) the product of the two 53-bit significands is formed in a `u128` and cut to the
/// quantum of the result by hand; overflow rounds up to `+∞` or to `-MAX`.
#[inline(always)]
fn mul_up_f64(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p.is_finite() && p.abs() >= f64::from_bits((1023 - 969) << 52) {
        let e = a.mul_add(b, -p);
        return f64::from_bits(step_up64(p.to_bits(), (e > 0.0) as u64));
    }
    // Exact as they are (common in the slab: a bound through `p0`, a parallel axis).
    if p.is_nan() || a.is_infinite() || b.is_infinite() {
        return p;
    }
    if a == 0.0 || b == 0.0 {
        return 0.0;
    }
    mul_up_f64_rare(a, b, p)
}

/// [`mul_up_f64`] for overflowing and tiny products of finite nonzero factors.
#[cold]
#[inline(never)]
fn mul_up_f64_rare(a: f64, b: f64, p: f64) -> f64 {
    if p.is_infinite() {
        return if p > 0.0 { p } else { -f64::MAX };
    }
    let negative = (a < 0.0) != (b < 0.0);
    // |x| = significand · 2^exponent, the significand an integer below 2^53.
    let parts = |x: f64| {
        let bits = x.to_bits() & !(1u64 << 63);
        let (e, f) = ((bits >> 52) as i32, bits & ((1u64 << 52) - 1));
        if e == 0 {
            (f, -1074)
        } else {
            (f | 1u64 << 52, e - 1075)
        }
    };
    let ((ma, ea), (mb, eb)) = (parts(a), parts(b));
    let (m, e) = (ma as u128 * mb as u128, ea + eb);
    let len = 128 - m.leading_zeros() as i32;
    // The result's quantum: 53 significant bits, but never below the subnormal one.
    let q = (len - 53 + e).max(-1074);
    let shift = q - e;
    let (mut k, cut) = if shift <= 0 {
        (m << -shift, false)
    } else if shift >= 128 {
        (0, true)
    } else {
        (m >> shift, m & ((1u128 << shift) - 1) != 0)
    };
    if cut && !negative {
        k += 1;
    }
    // k ≤ 2^53 quanta of 2^q: exact as a float, and the product with the power of two is exact.
    let quantum = if q >= -1022 {
        f64::from_bits(((q + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (q + 1074))
    };
    let magnitude = k as f64 * quantum;
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_neighbours_of_zero_and_one() {
        assert_eq!(f32::ONE_BELOW, f32::from_bits(1.0f32.to_bits() - 1));
        assert_eq!(f64::ONE_BELOW, f64::from_bits(1.0f64.to_bits() - 1));
        assert_eq!(f32::TINY.to_bits(), 1);
        assert_eq!(f64::TINY.to_bits(), 1);
        assert_eq!(f32::RANGE_LO, 2f32.powi(-126));
        assert_eq!(f64::RANGE_LO, 2f64.powi(-1022));
        assert_eq!(f32::RANGE_HI, 2f32.powi(126));
        assert_eq!(f64::RANGE_HI, 2f64.powi(1022));
        // 1/d stays normal for |d| ≤ RANGE_HI and finite for |d| ≥ RANGE_LO.
        let recip = |d: f64| 1.0 / std::hint::black_box(d);
        assert!(recip(f64::RANGE_HI) >= f64::MIN_POSITIVE && recip(f64::RANGE_LO).is_finite());
        let recip = |d: f32| 1.0 / std::hint::black_box(d);
        assert!(recip(f32::RANGE_HI) >= f32::MIN_POSITIVE && recip(f32::RANGE_LO).is_finite());
    }

    #[test]
    fn min_and_max_follow_the_x86_rule() {
        let nan = f32::NAN;
        assert!(nan.min_any(1.0) == 1.0 && 1.0f32.min_any(nan).is_nan());
        assert!(nan.max_any(1.0) == 1.0 && 1.0f32.max_any(nan).is_nan());
        assert_eq!((-0.0f32).min_any(0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(0.0f32.max_any(-0.0).to_bits(), (-0.0f32).to_bits());
    }
}
