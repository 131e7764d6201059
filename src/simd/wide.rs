//! `wide` vectors as [`Lane`]s: 8 and 16 `f32`, 4 and 8 `f64` lanes (the build picks one width
//! per type: [`F32s`](super::F32s), [`F64s`](super::F64s)).
//!
//! Every operation is an IEEE operation per lane (no approximate reciprocals), `Neg` only flips
//! the sign bit, and `min_any`/`max_any` are `wide`'s `fast_min`/`fast_max` (one `minps`/`maxps`
//! with the operands in order), so a kernel run on these lanes gives the bits it gives on scalars.

use super::Load;
use crate::real::Lane;

macro_rules! wide_lane {
    ($v:ty, $t:ty) => {
        impl Lane for $v {
            type Mask = $v;
            type Scalar = $t;
            const WIDTH: usize = core::mem::size_of::<$v>() / core::mem::size_of::<$t>();
            #[inline(always)]
            fn splat(x: $t) -> $v {
                <$v>::splat(x)
            }
            #[inline(always)]
            fn select(m: $v, a: $v, b: $v) -> $v {
                wide::Select::select(m, a, b)
            }
            #[inline(always)]
            fn lt(self, o: $v) -> $v {
                self.simd_lt(o)
            }
            #[inline(always)]
            fn le(self, o: $v) -> $v {
                self.simd_le(o)
            }
            #[inline(always)]
            fn eq_(self, o: $v) -> $v {
                self.simd_eq(o)
            }
            #[inline(always)]
            fn finite(self) -> $v {
                self.is_finite()
            }
            #[inline(always)]
            fn any(m: $v) -> bool {
                m.any()
            }
            #[inline(always)]
            fn abs(self) -> $v {
                <$v>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $v {
                <$v>::sqrt(self)
            }
            #[inline(always)]
            fn min_any(self, o: $v) -> $v {
                self.fast_min(o)
            }
            #[inline(always)]
            fn max_any(self, o: $v) -> $v {
                self.fast_max(o)
            }
            #[inline(always)]
            fn write(self, out: &mut [$t]) {
                out[..Self::WIDTH].copy_from_slice(self.as_array());
            }
            #[inline(always)]
            fn write_low_bytes(self, out: &mut [u8]) {
                for (dst, x) in out[..Self::WIDTH].iter_mut().zip(self.as_array()) {
                    *dst = x.to_bits() as u8;
                }
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $t) -> $v {
                <$v>::new(core::array::from_fn(f))
            }
        }

        impl Load for $v {
            #[inline(always)]
            fn load(s: &[$t]) -> $v {
                <$v>::new(s[..Self::WIDTH].try_into().expect("a full vector"))
            }
        }
    };
}

wide_lane!(wide::f32x8, f32);
wide_lane!(wide::f64x4, f64);
wide_lane!(wide::f32x16, f32);
wide_lane!(wide::f64x8, f64);
