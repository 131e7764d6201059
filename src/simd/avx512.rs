//! AVX-512 vectors as [`Lane`]s, through `std::arch`: 16 `f32` or 8 `f64` lanes whose masks are
//! mask registers (`__mmask16`, `__mmask8`), so a comparison is one instruction and a select
//! one masked blend, where `wide`'s masks are whole vectors converted at every use.
//!
//! Thin wrappers only: each method is the one instruction its name says, in the operand order
//! the scalar lane documents (`vminps a, b` is `a < b ? a : b`), so the kernels' generic code
//! gives the scalar path's bits. Compiled only when the build enables `avx512f` (the
//! instruction set is a build setting: see [`crate::simd`]), which is also why calling the
//! intrinsics needs no run-time check.

use core::arch::x86_64::*;
use core::ops::{Add, Div, Mul, Neg, Sub};

use super::Load;
use crate::real::Lane;

/// Sixteen `f32` lanes in one `zmm` register.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F32x16(__m512);

/// Eight `f64` lanes in one `zmm` register.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F64x8(__m512d);

/// The arithmetic, the lane operations and the loads of one vector type; `$s` names the
/// intrinsics' element suffix (`ps`, `pd`).
macro_rules! avx512_lane {
    (
        $v:ident, $t:ty, $mask:ty, $width:literal,
        add: $add:ident, sub: $sub:ident, mul: $mul:ident, div: $div:ident,
        set1: $set1:ident, blend: $blend:ident, cmp: $cmp:ident, abs: $abs:ident,
        sqrt: $sqrt:ident, min: $min:ident, max: $max:ident, loadu: $loadu:ident,
        storeu: $storeu:ident, to_int: $to_int:ident, from_int: $from_int:ident,
        sign: $sign:expr, set1_int: $set1_int:ident,
    ) => {
        impl Add for $v {
            type Output = $v;
            #[inline(always)]
            fn add(self, o: $v) -> $v {
                $v($add(self.0, o.0))
            }
        }
        impl Sub for $v {
            type Output = $v;
            #[inline(always)]
            fn sub(self, o: $v) -> $v {
                $v($sub(self.0, o.0))
            }
        }
        impl Mul for $v {
            type Output = $v;
            #[inline(always)]
            fn mul(self, o: $v) -> $v {
                $v($mul(self.0, o.0))
            }
        }
        impl Div for $v {
            type Output = $v;
            #[inline(always)]
            fn div(self, o: $v) -> $v {
                $v($div(self.0, o.0))
            }
        }
        impl Neg for $v {
            type Output = $v;
            /// Flips the sign bit (so `-(0.0)` is `-0.0`, as for scalars).
            #[inline(always)]
            fn neg(self) -> $v {
                $v($from_int(_mm512_xor_si512(
                    $to_int(self.0),
                    $set1_int($sign),
                )))
            }
        }

        impl Lane for $v {
            type Mask = $mask;
            type Scalar = $t;
            const WIDTH: usize = $width;
            #[inline(always)]
            fn splat(x: $t) -> $v {
                $v($set1(x))
            }
            #[inline(always)]
            fn select(m: $mask, a: $v, b: $v) -> $v {
                $v($blend(m, b.0, a.0))
            }
            #[inline(always)]
            fn lt(self, o: $v) -> $mask {
                $cmp::<_CMP_LT_OQ>(self.0, o.0)
            }
            #[inline(always)]
            fn le(self, o: $v) -> $mask {
                $cmp::<_CMP_LE_OQ>(self.0, o.0)
            }
            #[inline(always)]
            fn eq_(self, o: $v) -> $mask {
                $cmp::<_CMP_EQ_OQ>(self.0, o.0)
            }
            #[inline(always)]
            fn finite(self) -> $mask {
                $cmp::<_CMP_LT_OQ>($abs(self.0), $set1(<$t>::INFINITY))
            }
            #[inline(always)]
            fn any(m: $mask) -> bool {
                m != 0
            }
            #[inline(always)]
            fn abs(self) -> $v {
                $v($abs(self.0))
            }
            #[inline(always)]
            fn sqrt(self) -> $v {
                $v($sqrt(self.0))
            }
            #[inline(always)]
            fn min_any(self, o: $v) -> $v {
                $v($min(self.0, o.0))
            }
            #[inline(always)]
            fn max_any(self, o: $v) -> $v {
                $v($max(self.0, o.0))
            }
            #[inline(always)]
            fn write(self, out: &mut [$t]) {
                let out = &mut out[..$width];
                // SAFETY: `out` has exactly `$width` elements (the slice above panics otherwise);
                // `storeu` takes any alignment.
                unsafe { $storeu(out.as_mut_ptr(), self.0) }
            }
            #[inline(always)]
            fn write_low_bytes(self, out: &mut [u8]) {
                low_bytes(self, &mut out[..$width]);
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $t) -> $v {
                let a: [$t; $width] = core::array::from_fn(f);
                <$v as Load>::load(&a)
            }
        }

        impl Load for $v {
            #[inline(always)]
            fn load(s: &[$t]) -> $v {
                let s = &s[..$width];
                // SAFETY: `s` has exactly `$width` elements (the slice above panics otherwise);
                // `loadu` takes any alignment.
                $v(unsafe { $loadu(s.as_ptr()) })
            }
        }
    };
}

avx512_lane!(
    F32x16, f32, __mmask16, 16,
    add: _mm512_add_ps, sub: _mm512_sub_ps, mul: _mm512_mul_ps, div: _mm512_div_ps,
    set1: _mm512_set1_ps, blend: _mm512_mask_blend_ps, cmp: _mm512_cmp_ps_mask,
    abs: _mm512_abs_ps, sqrt: _mm512_sqrt_ps, min: _mm512_min_ps, max: _mm512_max_ps,
    loadu: _mm512_loadu_ps, storeu: _mm512_storeu_ps, to_int: _mm512_castps_si512,
    from_int: _mm512_castsi512_ps, sign: i32::MIN, set1_int: _mm512_set1_epi32,
);

avx512_lane!(
    F64x8, f64, __mmask8, 8,
    add: _mm512_add_pd, sub: _mm512_sub_pd, mul: _mm512_mul_pd, div: _mm512_div_pd,
    set1: _mm512_set1_pd, blend: _mm512_mask_blend_pd, cmp: _mm512_cmp_pd_mask,
    abs: _mm512_abs_pd, sqrt: _mm512_sqrt_pd, min: _mm512_min_pd, max: _mm512_max_pd,
    loadu: _mm512_loadu_pd, storeu: _mm512_storeu_pd, to_int: _mm512_castpd_si512,
    from_int: _mm512_castsi512_pd, sign: i64::MIN, set1_int: _mm512_set1_epi64,
);

/// The low byte of each lane's bits, packed by one truncating move (`vpmovdb`, `vpmovqb`).
trait LowBytes: Copy {
    fn low_bytes(self, out: &mut [u8]);
}

#[inline(always)]
fn low_bytes<V: LowBytes>(v: V, out: &mut [u8]) {
    v.low_bytes(out)
}

impl LowBytes for F32x16 {
    #[inline(always)]
    fn low_bytes(self, out: &mut [u8]) {
        let out: &mut [u8; 16] = out.try_into().expect("16 bytes");
        let bytes = _mm512_cvtepi32_epi8(_mm512_castps_si512(self.0));
        // SAFETY: `out` is 16 bytes, the size of the `__m128i` stored; `storeu` takes any
        // alignment.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), bytes) }
    }
}

impl LowBytes for F64x8 {
    #[inline(always)]
    fn low_bytes(self, out: &mut [u8]) {
        let out: &mut [u8; 8] = out.try_into().expect("8 bytes");
        let bytes = _mm512_cvtepi64_epi8(_mm512_castpd_si512(self.0));
        // SAFETY: `out` is 8 bytes, and `storel_epi64` writes the low 8 bytes of the register
        // only, at any alignment.
        unsafe { _mm_storel_epi64(out.as_mut_ptr().cast(), bytes) }
    }
}
