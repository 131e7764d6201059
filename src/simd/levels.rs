//! The instruction-set levels one binary carries, the choice among them at run time, and
//! [`dispatch!`], the one place that lists them.
//!
//! Every batch kernel is written once, generic over its lane type. A level is a marker type
//! ([`Isa`]) naming the lane types of `f32` and `f64` at that level, and a function compiled
//! with the level's target features ([`Isa::run`]) into which the generic kernel is inlined:
//! `#[inline(always)]` all the way down to the lane operations, so that the intrinsics of the
//! AVX2 and AVX-512 lanes become their instructions there. (`wide`'s vectors pick their
//! implementation by `cfg(target_feature)` when `wide` is compiled, so they serve only the
//! baseline: inside an AVX2 function they would still be SSE2 code.)
//!
//! The level is chosen once, on the first batch: the best the CPU has
//! ([`detected`]), or lower if `SLABCLIP_SIMD` (`v1`, `v3`, `v4`) asks for less; [`force`]
//! changes it later. The choice is kept in an atomic, so each batch pays one load.

use core::sync::atomic::{AtomicU8, Ordering};

use crate::error::Error;
use crate::real::Real;

/// An x86-64 instruction-set level the batch kernels are compiled for.
///
/// On other architectures only [`Level::V1`] exists: `wide`'s portable vectors (NEON on
/// aarch64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// x86-64 baseline (SSE2): `wide`'s 8 `f32` / 4 `f64` lanes as two SSE halves. Also the
    /// portable level of other architectures.
    V1 = 1,
    /// x86-64-v3 (AVX2 and FMA): 8 `f32` / 4 `f64` lanes in one `ymm` register.
    V3 = 3,
    /// x86-64-v4 (AVX-512 F, BW, CD, DQ, VL): 16 `f32` / 8 `f64` lanes in one `zmm` register,
    /// masks in `k` registers.
    V4 = 4,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::V1, Level::V3, Level::V4];

    /// The short name `SLABCLIP_SIMD` and [`Level::from_name`] take: `v1`, `v3`, `v4`.
    pub fn name(self) -> &'static str {
        match self {
            Level::V1 => "v1",
            Level::V3 => "v3",
            Level::V4 => "v4",
        }
    }

    /// The level and its instruction sets, for reports: `v3 (x86-64-v3: AVX2, FMA)`.
    pub fn describe(self) -> &'static str {
        match self {
            Level::V1 if cfg!(target_arch = "x86_64") => "v1 (x86-64: SSE2)",
            Level::V1 => "v1 (portable vectors)",
            Level::V3 => "v3 (x86-64-v3: AVX2, FMA)",
            Level::V4 => "v4 (x86-64-v4: AVX-512)",
        }
    }

    /// The level named `name` (`v1`, `v3`, `v4`, any case), or [`Error::InvalidArgument`]
    /// listing the names.
    pub fn from_name(name: &str) -> Result<Level, Error> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown SIMD level {name:?} (expected one of: v1, v3, v4)"
                ))
            })
    }

    /// How many lanes of `F` a vector holds at this level.
    pub fn lanes<F: Real>(self) -> usize {
        use crate::real::Lane;
        match self {
            Level::V1 => <F::Simd<Baseline> as Lane>::WIDTH,
            #[cfg(target_arch = "x86_64")]
            Level::V3 => <F::Simd<Avx2> as Lane>::WIDTH,
            #[cfg(target_arch = "x86_64")]
            Level::V4 => <F::Simd<Avx512> as Lane>::WIDTH,
            #[cfg(not(target_arch = "x86_64"))]
            _ => <F::Simd<Baseline> as Lane>::WIDTH,
        }
    }
}

impl core::fmt::Display for Level {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.describe())
    }
}

/// The best level this CPU runs (what `is_x86_feature_detected!` finds, which includes the
/// operating system's support for the wider registers). Detected each call: [`level`] keeps
/// the choice.
pub fn detected() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let v3 = has!("avx")
            && has!("avx2")
            && has!("fma")
            && has!("bmi1")
            && has!("bmi2")
            && has!("f16c")
            && has!("lzcnt")
            && has!("movbe");
        let v4 = v3
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512cd")
            && has!("avx512dq")
            && has!("avx512vl");
        if v4 {
            Level::V4
        } else if v3 {
            Level::V3
        } else {
            Level::V1
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Level::V1
}

/// The levels this CPU runs, lowest first (what the tests loop over).
pub fn available() -> impl Iterator<Item = Level> {
    let best = detected();
    Level::ALL.into_iter().filter(move |l| *l <= best)
}

/// The level the batch kernels run: `0` until the first batch chooses it.
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// The level the batch kernels run at: the best the CPU has, unless `SLABCLIP_SIMD` or
/// [`force`] asked for a lower one. Chosen on the first call, then one atomic load.
#[inline]
pub fn level() -> Level {
    match CHOSEN.load(Ordering::Relaxed) {
        1 => Level::V1,
        3 => Level::V3,
        4 => Level::V4,
        _ => choose(),
    }
}

/// The first choice: `SLABCLIP_SIMD` where it names a level the CPU has, else the best. A
/// name that is no level, or a level above the CPU's, is reported once on stderr and the best
/// level runs (never an illegal instruction).
#[cold]
fn choose() -> Level {
    let best = detected();
    let level = match std::env::var("SLABCLIP_SIMD") {
        Ok(v) if !v.trim().is_empty() => match Level::from_name(&v).and_then(check) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("slabclip: SLABCLIP_SIMD ignored ({e}); running {best}");
                best
            }
        },
        _ => best,
    };
    // A `force` that came first wins.
    match CHOSEN.compare_exchange(0, level as u8, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => level,
        Err(_) => self::level(),
    }
}

/// `level` if this CPU runs it, else [`Error::InvalidArgument`] naming both.
fn check(level: Level) -> Result<Level, Error> {
    let best = detected();
    if level <= best {
        Ok(level)
    } else {
        Err(Error::InvalidArgument(format!(
            "SIMD level {level} asked for, but this CPU runs at most {best}"
        )))
    }
}

/// Runs every later batch at `level` (the same bits at every level; only the speed differs).
///
/// Errors, changing nothing, when the CPU lacks the level's instructions
/// ([`Error::InvalidArgument`] naming the level asked for and the best there is).
pub fn force(level: Level) -> Result<(), Error> {
    let level = check(level)?;
    CHOSEN.store(level as u8, Ordering::Relaxed);
    Ok(())
}

/// A level's lane types and the function its kernels are compiled in. Nominally public, in a
/// module no one outside the crate can name (so its lane types cannot be made outside code
/// that runs at their level).
pub trait Isa: 'static {
    /// Which level.
    const LEVEL: Level;
    /// The `f32` lanes.
    type F32: super::Vector<f32>;
    /// The `f64` lanes.
    type F64: super::Vector<f64>;

    /// `f()` inside a function compiled with this level's target features; `f` (a closure
    /// marked `#[inline(always)]`) is inlined there with everything it calls that is
    /// `#[inline(always)]`.
    ///
    /// # Safety
    ///
    /// The CPU has the level's instructions (the level is at most [`detected`]).
    unsafe fn run<R>(f: impl FnOnce() -> R) -> R;
}

/// The baseline: `wide`'s vectors, as the build's target features make them.
pub struct Baseline;

impl Isa for Baseline {
    const LEVEL: Level = Level::V1;
    type F32 = ::wide::f32x8;
    type F64 = ::wide::f64x4;
    #[inline(always)]
    unsafe fn run<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// x86-64-v3: `avx2.rs`'s lanes.
#[cfg(target_arch = "x86_64")]
pub struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Isa for Avx2 {
    const LEVEL: Level = Level::V3;
    type F32 = super::avx2::F32x8;
    type F64 = super::avx2::F64x4;
    #[inline(always)]
    unsafe fn run<R>(f: impl FnOnce() -> R) -> R {
        // SAFETY: the caller's promise: the CPU has x86-64-v3.
        unsafe { run_v3(f) }
    }
}

/// x86-64-v4: `avx512.rs`'s lanes.
#[cfg(target_arch = "x86_64")]
pub struct Avx512;

#[cfg(target_arch = "x86_64")]
impl Isa for Avx512 {
    const LEVEL: Level = Level::V4;
    type F32 = super::avx512::F32x16;
    type F64 = super::avx512::F64x8;
    #[inline(always)]
    unsafe fn run<R>(f: impl FnOnce() -> R) -> R {
        // SAFETY: the caller's promise: the CPU has x86-64-v4.
        unsafe { run_v4(f) }
    }
}

/// `f()` compiled for x86-64-v3 (the features `-C target-cpu=x86-64-v3` enables).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe")]
#[inline]
unsafe fn run_v3<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` compiled for x86-64-v4 (the features `-C target-cpu=x86-64-v4` enables).
#[cfg(target_arch = "x86_64")]
#[target_feature(
    enable = "avx,avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
)]
#[inline]
unsafe fn run_v4<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Returns `f`: lets [`dispatch!`] mark its closure `#[inline(always)]` (an attribute allowed
/// on a closure that is an argument, not on one bound by `let`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn keep<R, F: FnOnce() -> R>(f: F) -> F {
    f
}

/// Runs `$body` at the chosen level ([`level`]) with `$isa` naming that level's [`Isa`]
/// (`F::Simd<$isa>` is the lane type of `F` there): the one list of levels, used at every
/// batch entry point. `$body` is compiled once per level, inside the level's
/// `#[target_feature]` function.
///
/// ```ignore
/// dispatch!(I => drive::<F, F::Simd<I>, _, _>(&Broadcast::new(rect), input, out, slab_fast))
/// ```
///
/// `dispatch!(at level, I => body)` runs `body` at `level`, which must be at most
/// [`detected`] (the tests run each of [`available`] so).
macro_rules! dispatch {
    ($isa:ident => $body:expr) => {
        $crate::simd::dispatch!(at $crate::simd::level(), $isa => $body)
    };
    (at $level:expr, $isa:ident => $body:expr) => {
        match $level {
            #[cfg(target_arch = "x86_64")]
            $crate::simd::Level::V4 => {
                #[allow(dead_code)]
                type $isa = $crate::simd::isa::Avx512;
                let f = $crate::simd::isa::keep(
                    #[inline(always)]
                    || $body,
                );
                // SAFETY: `level()` is V4 only where the CPU has x86-64-v4 (`force` and the
                // first choice check it against `detected`); `at` levels are at most that.
                unsafe { <$crate::simd::isa::Avx512 as $crate::simd::isa::Isa>::run(f) }
            }
            #[cfg(target_arch = "x86_64")]
            $crate::simd::Level::V3 => {
                #[allow(dead_code)]
                type $isa = $crate::simd::isa::Avx2;
                let f = $crate::simd::isa::keep(
                    #[inline(always)]
                    || $body,
                );
                // SAFETY: `level()` is V3 only where the CPU has x86-64-v3 (as above).
                unsafe { <$crate::simd::isa::Avx2 as $crate::simd::isa::Isa>::run(f) }
            }
            _ => {
                #[allow(dead_code)]
                type $isa = $crate::simd::isa::Baseline;
                $body
            }
        }
    };
}
pub(crate) use dispatch;
