//! `f32` and `f64` as lanes of width one, and as the two [`Real`] types: their constants and
//! which SIMD vector each uses at each level ([`crate::simd`]).

use crate::real::{Lane, Real};

macro_rules! scalar_lane {
    ($t:ty, $int:ty, $dtype:literal, $simd:ident, $simd4:ty, $fast_hi:expr) => {
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
            fn le_bits(self, o: $t) -> bool {
                (self.to_bits() as $int) <= (o.to_bits() as $int)
            }
            #[inline(always)]
            fn eq_bits(self, o: $t) -> bool {
                self.to_bits() == o.to_bits()
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
            fn bits(m: bool) -> u64 {
                u64::from(m)
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
        }

        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const HALF: $t = 0.5;
            const ONE_BELOW: $t = 1.0 - <$t>::EPSILON / 2.0;
            const GRAZE_TOP: $t = 1.0 - 2.0 * <$t>::EPSILON;
            const ONE_REACH: $t = 1.0 + 4.0 * <$t>::EPSILON;
            const FAST_HI: $t = $fast_hi;
            const FAST_LO: $t = 1.0 / $fast_hi;
            const TINY: $t = <$t>::from_bits(1);
            const NAN: $t = <$t>::NAN;
            const INFINITY: $t = <$t>::INFINITY;
            const LARGEST: $t = <$t>::MAX;
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

            type Simd<I: crate::simd::isa::Isa> = I::$simd;
            type Simd4 = $simd4;
        }
    };
}

scalar_lane!(f32, i32, "float32", F32, ::wide::f32x4, (1u64 << 60) as f32);
scalar_lane!(
    f64,
    i64,
    "float64",
    F64,
    ::wide::f64x4,
    f64::from_bits((1023 + 400) << 52)
);

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
