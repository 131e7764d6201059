//! SIMD lanes, and the instruction-set level they run at.
//!
//! One build carries every level ([`Level`]: x86-64 baseline, v3, v4) and picks the best the
//! CPU has when the first batch runs ([`level`]; `SLABCLIP_SIMD=v1|v3|v4` or [`force`] pick a
//! lower one). The kernels are written once over [`Lane`](crate::Lane); each level names its
//! lane types and compiles the kernels inside one `#[target_feature]` function (`levels.rs`,
//! whose `dispatch!` is the one list of levels):
//!
//! * v1: `wide`'s vectors ([`wide`](mod@self::wide)), 8 `f32` / 4 `f64` lanes, two SSE halves
//!   (`wide` picks its backend when it is compiled, from the build's target features, so it
//!   serves the baseline; other architectures run it too);
//! * v3: `avx2.rs`, 8 / 4 lanes in `ymm` registers;
//! * v4: `avx512.rs`, 16 / 8 lanes in `zmm` registers with `k`-register masks.
//!
//! Every level runs the kernels' generic code, one IEEE operation per lane, so every level
//! gives the scalar path's bits.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod entries;
mod levels;
pub mod wide;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use entries::Kernels;
pub(crate) use levels::dispatch;
pub use levels::{available, detected, force, level, Level};

/// The level markers `dispatch!` names (crate-internal).
pub(crate) mod isa {
    #[cfg(target_arch = "x86_64")]
    pub use super::levels::{keep, Avx2, Avx512};
    pub use super::levels::{Baseline, Isa};
}

/// A vector of `F` lanes the batch kernels run on: a [`Lane`](crate::Lane) that loads.
pub trait Vector<F: crate::Real>: crate::real::Lane<Scalar = F> + Load {}
impl<F: crate::Real, V: crate::real::Lane<Scalar = F> + Load> Vector<F> for V {}

/// Loading full vectors from the front of a slice: how the kernels load a chunk of columns or
/// transpose a chunk of rows.
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

/// The x86-64 instruction-set level this binary's code outside the dispatched kernels was
/// compiled for (the build's target features; the kernels run at [`level`]).
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
