//! The two number types slabclip computes in, and the lane abstraction the kernels are written over.
//!
//! Every kernel is written once, over [`Lane`]: a scalar `f32` or `f64` is a lane of width one,
//! and a SIMD vector (added with the SIMD kernels) is a lane of width 8 or 4. Because the scalar
//! and vector paths run the *same* sequence of IEEE operations per lane, they give the same bits.
//! Nothing here uses fused multiply-add: whether `mul_add` fuses depends on the build's target
//! features, and the results must not.

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
    /// The square root, correctly rounded (IEEE), lane by lane.
    fn sqrt(self) -> Self;

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
    /// The NumPy dtype name, `"float32"` or `"float64"`.
    const DTYPE: &'static str;

    /// Converts from `f64`, rounding to nearest.
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// The IEEE bits, widened to 64.
    fn to_bits_u64(self) -> u64;

    /// The SIMD vector of this type in this build (see [`crate::simd`]).
    type Simd: Lane<Scalar = Self, Mask = Self::Simd>;
    /// Lanes in [`Real::Simd`].
    const LANES: usize;
    /// Loads the first [`Real::LANES`] values of `s` into a vector. Panics if `s` is shorter.
    fn load(s: &[Self]) -> Self::Simd;
    /// Stores a vector into the first [`Real::LANES`] values of `out`. Panics if `out` is shorter.
    fn store(v: Self::Simd, out: &mut [Self]);
}

macro_rules! scalar_lane {
    ($t:ty, $dtype:literal, $simd:ty) => {
        impl Lane for $t {
            type Mask = bool;
            type Scalar = $t;
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
            #[inline(always)]
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
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

            type Simd = $simd;
            const LANES: usize = core::mem::size_of::<$simd>() / core::mem::size_of::<$t>();
            #[inline(always)]
            fn load(s: &[$t]) -> $simd {
                let a: [$t; Self::LANES] = s[..Self::LANES].try_into().expect("a full vector");
                <$simd>::new(a)
            }
            #[inline(always)]
            fn store(v: $simd, out: &mut [$t]) {
                out[..Self::LANES].copy_from_slice(v.as_array());
            }
        }
    };
}

scalar_lane!(f32, "float32", crate::simd::F32s);
scalar_lane!(f64, "float64", crate::simd::F64s);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_neighbours_of_zero_and_one() {
        assert_eq!(f32::ONE_BELOW, f32::from_bits(1.0f32.to_bits() - 1));
        assert_eq!(f64::ONE_BELOW, f64::from_bits(1.0f64.to_bits() - 1));
        assert_eq!(f32::TINY.to_bits(), 1);
        assert_eq!(f64::TINY.to_bits(), 1);
    }
}
