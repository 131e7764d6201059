//! SIMD lanes: `wide` vectors as [`Lane`]s, and the instruction-set level this build uses.
//!
//! `wide` picks its backend when it is compiled, from the enabled target features: with the
//! default x86-64 flags an `f32x8` is two SSE halves, with AVX2 one register, and with AVX-512
//! the kernels use 16 `f32` (8 `f64`) lanes. A `#[target_feature]` function around it does not
//! change that, so the level is a build setting ([`BUILT_LEVEL`]), and `slabclip info` prints it
//! beside what the CPU could do ([`detected_level`]).
//!
//! Every operation used here is an IEEE operation per lane (no approximate reciprocals), `Neg`
//! only flips the sign bit, and `mul_add` exists only where the build has FMA (where `wide`'s
//! fuses), so a kernel run on these lanes gives the bits the same kernel gives on scalars.

use crate::real::Lane;

/// The `f32` vector of this build: 16 lanes with AVX-512, else 8.
#[cfg(target_feature = "avx512f")]
pub type F32s = wide::f32x16;
/// The `f32` vector of this build: 16 lanes with AVX-512, else 8.
#[cfg(not(target_feature = "avx512f"))]
pub type F32s = wide::f32x8;
/// The `f64` vector of this build: 8 lanes with AVX-512, else 4.
#[cfg(target_feature = "avx512f")]
pub type F64s = wide::f64x8;
/// The `f64` vector of this build: 8 lanes with AVX-512, else 4.
#[cfg(not(target_feature = "avx512f"))]
pub type F64s = wide::f64x4;

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
            #[cfg(target_feature = "fma")]
            #[inline(always)]
            fn mul_add(self, m: $v, a: $v) -> $v {
                <$v>::mul_add(self, m, a)
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
            fn from_fn(f: impl FnMut(usize) -> $t) -> $v {
                <$v>::new(core::array::from_fn(f))
            }
        }
    };
}

wide_lane!(F32s, f32);
wide_lane!(F64s, f64);

/// The x86-64 instruction-set level this binary's SIMD code was compiled for.
pub const BUILT_LEVEL: &str = if cfg!(target_feature = "avx512f") {
    "x86-64-v4 (AVX-512)"
} else if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
    "x86-64-v3 (AVX2)"
} else if cfg!(target_feature = "avx") {
    "AVX"
} else if cfg!(target_feature = "sse4.2") {
    "x86-64-v2 (SSE4.2)"
} else if cfg!(target_arch = "x86_64") {
    "x86-64 (SSE2)"
} else {
    "portable (no x86 SIMD)"
};

/// The best level this CPU supports, detected at run time.
pub fn detected_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
            return "x86-64-v4 (AVX-512)";
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return "x86-64-v3 (AVX2)";
        }
        if is_x86_feature_detected!("sse4.2") {
            return "x86-64-v2 (SSE4.2)";
        }
        "x86-64 (SSE2)"
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "not x86-64"
    }
}
