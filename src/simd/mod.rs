//! SIMD lanes, and the instruction-set level this build uses.
//!
//! The level is a build setting ([`BUILT_LEVEL`]; `slabclip info` prints it beside what the CPU
//! could do, [`detected_level`]). The kernels run on `wide`'s vectors ([`wide`](mod@self::wide)):
//! 16 `f32` (8 `f64`) lanes with AVX-512, else 8 (4), two SSE halves or one AVX2 register.
//! (`wide` picks its backend when it is compiled, from the target features: a
//! `#[target_feature]` function around it changes nothing.) They run the kernels' generic code,
//! one IEEE operation per lane, so every level gives the scalar path's bits. Another vector type
//! (one instruction set's intrinsics, say) is one more file here implementing [`Lane`](crate::Lane) and
//! [`Load`], named by the aliases below.

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub mod avx512;
pub mod wide;

/// Loading full vectors from the front of a slice (what `Real::load` and `Real::load_rows`
/// call).
pub trait Load: crate::real::Lane {
    /// The first `WIDTH` values of `s`. Panics if `s` is shorter.
    fn load(s: &[Self::Scalar]) -> Self;
    /// The four columns of the `WIDTH` rows of four values at the front of `s`. Panics if `s`
    /// is shorter than `4 · WIDTH`. This default builds each column lane by lane; vector types
    /// with a shuffle for it override it.
    #[inline(always)]
    fn load_rows(s: &[Self::Scalar]) -> [Self; 4] {
        rows_each(s)
    }
}

/// [`Load::load_rows`] lane by lane: each column built from every fourth value.
#[inline(always)]
pub(crate) fn rows_each<L: crate::real::Lane>(s: &[L::Scalar]) -> [L; 4] {
    let s = &s[..4 * L::WIDTH];
    core::array::from_fn(|c| L::from_fn(|l| s[4 * l + c]))
}

/// How far ahead of their reads the column loops prefetch large columns, in bytes
/// (`buffers::for_each_column_chunk`, where the measurements are); `slabclip compare`'s
/// ceilings prefetch as far, so that they read as fast as the kernels can.
pub const PREFETCH_AHEAD: isize = 2048;

/// Asks the CPU to bring the cache line `bytes` from `p` (before it when negative) into the
/// cache, ahead of a loop that will read it. A hint: it never faults, so the address may lie
/// outside any allocation.
#[inline(always)]
pub fn prefetch<T>(p: *const T, bytes: isize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = p.cast::<i8>().wrapping_offset(bytes);
        // SAFETY: `prefetch` reads nothing and never faults, whatever the address; the pointer
        // is formed with `wrapping_offset`, which is defined wherever it points.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, bytes);
}

/// Orders the streaming stores of [`Lane::write_stream`](crate::Lane::write_stream) before
/// whatever follows (they are weakly ordered): once at the end of a loop that streams.
#[inline]
pub(crate) fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` is part of SSE, which every x86-64 CPU has; it only orders stores.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// The `f32` vector of this build: 16 lanes with AVX-512, else 8.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub type F32s = avx512::F32x16;
/// The `f32` vector of this build: 16 lanes with AVX-512, else 8.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
pub type F32s = ::wide::f32x8;
/// The `f64` vector of this build: 8 lanes with AVX-512, else 4.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub type F64s = avx512::F64x8;
/// The `f64` vector of this build: 8 lanes with AVX-512, else 4.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
pub type F64s = ::wide::f64x4;

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
