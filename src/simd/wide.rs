//! `wide` vectors as [`Lane`]s: 8 and 16 `f32`, 4 and 8 `f64` lanes (the baseline level runs
//! 8 and 4: `simd/levels.rs`).
//!
//! Every operation is an IEEE operation per lane (no approximate reciprocals), `Neg` only flips
//! the sign bit, and `min_any`/`max_any` follow x86's `minps`/`maxps` rule on every architecture
//! (on x86 `wide`'s `fast_min`/`fast_max`, one instruction with the operands in order; elsewhere
//! a compare and a select), so a kernel run on these lanes gives the bits it gives on scalars.

use super::Load;
use crate::real::Lane;

macro_rules! wide_lane {
    ($v:ty, $t:ty, $int:ty, $low_bytes:path $(, $load_rows:path)?) => {
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
            fn le_bits(self, o: $v) -> $v {
                let (a, b) = (bytemuck::cast::<$v, $int>(self), bytemuck::cast::<$v, $int>(o));
                bytemuck::cast::<$int, $v>(!a.simd_gt(b))
            }
            #[inline(always)]
            fn eq_bits(self, o: $v) -> $v {
                let (a, b) = (bytemuck::cast::<$v, $int>(self), bytemuck::cast::<$v, $int>(o));
                bytemuck::cast::<$int, $v>(a.simd_eq(b))
            }
            #[inline(always)]
            fn mul_plus_zero(self, o: $v) -> $v {
                // `wide`'s `mul_add` is one FMA where the build has FMA, else `self * o + 0`.
                self.mul_add(o, <$v>::splat(0.0))
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
            fn bits(m: $v) -> u64 {
                u64::from(m.to_bitmask())
            }
            #[inline(always)]
            fn abs(self) -> $v {
                <$v>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $v {
                <$v>::sqrt(self)
            }
            // x86: `fast_min`/`fast_max` are one `minps`/`maxps`, whose rule is the contract's.
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            #[inline(always)]
            fn min_any(self, o: $v) -> $v {
                self.fast_min(o)
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            #[inline(always)]
            fn max_any(self, o: $v) -> $v {
                self.fast_max(o)
            }
            // Elsewhere (NEON's `fmin` returns NaN, `fminnm` the number) the rule is spelled
            // out: a compare and a select.
            #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
            #[inline(always)]
            fn min_any(self, o: $v) -> $v {
                self.simd_lt(o).select(self, o)
            }
            #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
            #[inline(always)]
            fn max_any(self, o: $v) -> $v {
                self.simd_gt(o).select(self, o)
            }
            #[inline(always)]
            fn write(self, out: &mut [$t]) {
                out[..Self::WIDTH].copy_from_slice(self.as_array());
            }
            #[inline(always)]
            fn write_low_bytes(self, out: &mut [u8]) {
                $low_bytes(self, out)
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $t) -> $v {
                <$v>::new(core::array::from_fn(f))
            }
            /// With SSE4.1 (and AVX) `select` is a `blendv`, which reads only the sign bit of
            /// each mask lane: `s` itself is the mask, one instruction per select where the
            /// default compares first. (Plain SSE2 selects bitwise and needs whole-lane masks.)
            #[cfg(target_feature = "sse4.1")]
            #[inline(always)]
            fn order_by_sign(s: $v, a: $v, b: $v) -> ($v, $v) {
                (Self::select(s, b, a), Self::select(s, a, b))
            }
        }

        impl Load for $v {
            #[inline(always)]
            fn load(s: &[$t]) -> $v {
                <$v>::new(s[..Self::WIDTH].try_into().expect("a full vector"))
            }
            $(
                #[inline(always)]
                fn load_rows(s: &[$t]) -> [$v; 4] {
                    $load_rows(s)
                }
            )?
        }
    };
}

wide_lane!(wide::f32x8, f32, wide::i32x8, low_bytes_f32x8, rows_f32x8);
wide_lane!(wide::f64x4, f64, wide::i64x4, low_bytes_each, rows_f64x4);
wide_lane!(wide::f32x16, f32, wide::i32x16, low_bytes_each);
wide_lane!(wide::f64x8, f64, wide::i64x8, low_bytes_each);
wide_lane!(wide::f32x4, f32, wide::i32x4, low_bytes_each);

/// [`Lane::write_low_bytes`] lane by lane.
#[inline(always)]
fn low_bytes_each<L: Lane>(v: L, out: &mut [u8]) {
    use crate::real::Real;
    crate::real::write_as(v, &mut out[..L::WIDTH], |x| x.to_bits_u64() as u8);
}

/// [`Lane::write_low_bytes`] for 8 `f32` lanes with two packs (32 → 16 → 8 bits), which AVX2
/// does in three instructions, where the lane-by-lane loop became eight byte extracts and
/// inserts (class codes, 64K mixed f32, one thread, on a busy machine: 429 -> 492 Mseg/s).
#[inline(always)]
fn low_bytes_f32x8(v: wide::f32x8, out: &mut [u8]) {
    let bits = bytemuck::cast::<_, wide::i32x8>(v) & wide::i32x8::splat(0xFF);
    let half = wide::i16x8::from_i32x8_truncate(bits);
    let bytes = wide::u8x16::narrow_i16x8(half, half);
    out[..8].copy_from_slice(&bytes.as_array()[..8]);
}

/// [`Load::load_rows`] for 4 `f64` lanes: four rows are a 4 × 4 block, and `wide` transposes it
/// (with AVX, eight unpacks).
#[inline(always)]
fn rows_f64x4(s: &[f64]) -> [wide::f64x4; 4] {
    let s = &s[..16];
    wide::f64x4::transpose(core::array::from_fn(|r| wide::f64x4::load(&s[4 * r..])))
}

/// [`Load::load_rows`] for 8 `f32` lanes in a build for AVX, which `wide` cannot say (its
/// transpose is 8 × 8): the AVX2 lanes' transpose (`avx2.rs`), the same registers.
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
#[inline(always)]
fn rows_f32x8(s: &[f32]) -> [wide::f32x8; 4] {
    super::avx2::rows_f32(s).map(bytemuck::cast::<core::arch::x86_64::__m256, wide::f32x8>)
}

/// [`Load::load_rows`] for 8 `f32` lanes without AVX (two SSE halves): lane by lane.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
#[inline(always)]
fn rows_f32x8(s: &[f32]) -> [wide::f32x8; 4] {
    super::rows_each(s)
}
