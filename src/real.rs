//! The two number types slabclip computes in, and the lane abstraction the kernels are written over.
//!
//! Every kernel is written once, over [`Lane`]: a scalar `f32` or `f64` is a lane of width one,
//! and a SIMD vector (added with the SIMD kernels) is a lane of width 8 or 4. Because the scalar
//! and vector paths run the *same* sequence of IEEE operations per lane, they give the same bits.
//! `Lane::mul_add` (fused, one rounding) exists only in builds with the `fma` target feature;
//! without it the kernels use an exact product that gives the same bits (`contract::residual`).

use core::fmt::{Debug, Display};
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// One or more values of a float type, with the branch-free operations the kernels need.
///
/// Comparisons return a [`Lane::Mask`]; [`Lane::select`] picks per lane. For the scalar lanes the
/// mask is a `bool` and `select` is an `if`, which the compiler turns into a conditional move.
pub trait Lane:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Per-lane truth values.
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;
    /// The scalar type of one lane.
    type Scalar: Real;
    /// How many lanes: 1 for a scalar.
    const WIDTH: usize;

    /// Every lane set to `x`.
    fn splat(x: Self::Scalar) -> Self;
    /// `a` where `m` is true, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// `self < o`; false where either is NaN.
    fn lt(self, o: Self) -> Self::Mask;
    /// `self <= o`; false where either is NaN.
    fn le(self, o: Self) -> Self::Mask;
    /// `self == o`; `0.0 == -0.0` is true, NaN equals nothing.
    fn eq_(self, o: Self) -> Self::Mask;
    /// Neither NaN nor ±∞.
    fn finite(self) -> Self::Mask;
    /// Whether any lane of `m` is true.
    fn any(m: Self::Mask) -> bool;
    /// `self · m + a` rounded once: one fused multiply-add instruction (FMA builds only).
    #[cfg(target_feature = "fma")]
    fn mul_add(self, m: Self, a: Self) -> Self;
    /// `|self|` (clears the sign bit; NaN stays NaN).
    fn abs(self) -> Self;
    /// The square root, correctly rounded (IEEE), lane by lane.
    fn sqrt(self) -> Self;
    /// The smaller of the two, lane by lane; which one comes back where either is NaN is not
    /// specified (one `minps`), so use it only where NaN lanes do not matter.
    fn min_any(self, o: Self) -> Self;
    /// The larger of the two, lane by lane; NaN as for [`Lane::min_any`].
    fn max_any(self, o: Self) -> Self;
    /// Writes the lanes to `out[..WIDTH]`. Panics if `out` is shorter.
    fn write(self, out: &mut [Self::Scalar]);
    /// Lane `l` set to `f(l)`.
    fn from_fn(f: impl FnMut(usize) -> Self::Scalar) -> Self;

    /// `self > o`.
    #[inline(always)]
    fn gt(self, o: Self) -> Self::Mask {
        o.lt(self)
    }
    /// `self >= o`.
    #[inline(always)]
    fn ge(self, o: Self) -> Self::Mask {
        o.le(self)
    }
}

/// A scalar float type slabclip supports: `f32` or `f64`. Sealed: these two only.
pub trait Real:
    Lane<Mask = bool, Scalar = Self>
    + sealed::Sealed
    + PartialOrd
    + PartialEq
    + Debug
    + Display
    + Default
    + Send
    + Sync
    + bytemuck::Pod
    + 'static
{
    /// `0.0`.
    const ZERO: Self;
    /// `1.0`.
    const ONE: Self;
    /// `0.5`, the scale used when coordinate differences would overflow.
    const HALF: Self;
    /// The largest value below one, `1 − ε/2`: the ceiling of `t_exit` when `P1` is outside.
    const ONE_BELOW: Self;
    /// The smallest positive (subnormal) value: what a nonzero boundary parameter that underflows
    /// becomes, so that it keeps its sign.
    const TINY: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// `+∞`.
    const INFINITY: Self;
    /// `2^-40` (`f32`) or `2^-200` (`f64`): [`plane_t`](crate::kernels)'s fast path stays where
    /// every magnitude lies between this and its inverse, far from underflow and overflow.
    const FAST_MIN: Self;
    /// `1 / FAST_MIN`.
    const FAST_MAX: Self;
    /// `2^23` (`f32`) or `2^52` (`f64`): the ulp is 1 there, so `CODE_BIAS + k` for a byte `k`
    /// has `k` as the low byte of its bits (how class codes leave the float lanes).
    const CODE_BIAS: Self;
    /// Veltkamp's splitting constant `2^⌈p/2⌉ + 1` (4097 for `f32`, 134217729 for `f64`): splits
    /// a float into two halves whose products are exact (Dekker's exact product).
    const SPLIT: Self;
    /// The NumPy dtype name, `"float32"` or `"float64"`.
    const DTYPE: &'static str;

    /// Converts from `f64`, rounding to nearest.
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// The IEEE bits, widened to 64.
    fn to_bits_u64(self) -> u64;
    /// The least value greater than `self` (`+∞` stays `+∞`).
    fn next_up(self) -> Self;

    /// The SIMD vector of this type in this build (see [`crate::simd`]).
    type Simd: Lane<Scalar = Self, Mask = Self::Simd>;
    /// Lanes in [`Real::Simd`].
    const LANES: usize;
    /// Loads the first [`Real::LANES`] values of `s` into a vector. Panics if `s` is shorter.
    fn load(s: &[Self]) -> Self::Simd;
}

/// Writes `f` of each lane of `v` to `out[..L::WIDTH]` (for outputs that are not floats:
/// class bytes, indices). Panics if `out` is shorter.
#[inline(always)]
pub(crate) fn write_as<L: Lane, T>(v: L, out: &mut [T], f: impl Fn(L::Scalar) -> T) {
    let mut lanes = [L::Scalar::ZERO; 16];
    v.write(&mut lanes);
    for (dst, x) in out[..L::WIDTH].iter_mut().zip(lanes) {
        *dst = f(x);
    }
}

macro_rules! scalar_lane {
    ($t:ty, $dtype:literal, $simd:ty, $fast_exp:literal) => {
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
            fn finite(self) -> bool {
                self.is_finite()
            }
            #[inline(always)]
            fn any(m: bool) -> bool {
                m
            }
            #[cfg(target_feature = "fma")]
            #[inline(always)]
            fn mul_add(self, m: $t, a: $t) -> $t {
                <$t>::mul_add(self, m, a)
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
                if o < self {
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
            fn from_fn(mut f: impl FnMut(usize) -> $t) -> $t {
                f(0)
            }
        }

        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const HALF: $t = 0.5;
            const ONE_BELOW: $t = 1.0 - <$t>::EPSILON / 2.0;
            const TINY: $t = <$t>::from_bits(1);
            const NAN: $t = <$t>::NAN;
            const INFINITY: $t = <$t>::INFINITY;
            const FAST_MIN: $t = 1.0 / (1u128 << $fast_exp) as $t / (1u128 << $fast_exp) as $t;
            const FAST_MAX: $t = (1u128 << $fast_exp) as $t * (1u128 << $fast_exp) as $t;
            const CODE_BIAS: $t = (1u64 << (<$t>::MANTISSA_DIGITS - 1)) as $t;
            const SPLIT: $t = ((1u64 << <$t>::MANTISSA_DIGITS.div_ceil(2)) + 1) as $t;
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
                let a: [$t; Self::LANES] = s[..Self::LANES].try_into().expect("a full vector");
                <$simd>::new(a)
            }
        }
    };
}

scalar_lane!(f32, "float32", crate::simd::F32s, 20);
scalar_lane!(f64, "float64", crate::simd::F64s, 100);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_neighbours_of_zero_and_one() {
        assert_eq!(f32::ONE_BELOW, f32::from_bits(1.0f32.to_bits() - 1));
        assert_eq!(f64::ONE_BELOW, f64::from_bits(1.0f64.to_bits() - 1));
        assert_eq!(f32::TINY.to_bits(), 1);
        assert_eq!(f64::TINY.to_bits(), 1);
        assert_eq!(f32::FAST_MIN, 2f32.powi(-40));
        assert_eq!(f64::FAST_MIN, 2f64.powi(-200));
        assert_eq!(f32::FAST_MAX * f32::FAST_MIN, 1.0);
        assert_eq!(f64::FAST_MAX * f64::FAST_MIN, 1.0);
        assert_eq!((f32::SPLIT, f64::SPLIT), (4097.0, 134217729.0));
    }
}
