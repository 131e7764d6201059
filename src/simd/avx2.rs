//! AVX2 vectors as [`Lane`]s for x86-64-v3: 8 `f32` ([`F32x8`]) and 4 `f64` ([`F64x4`]) lanes
//! in a `ymm` register, masks as vectors (all ones or all zeros per lane).
//!
//! The instructions `wide`'s vectors compile to when a whole build targets AVX2 (`vcmpps`,
//! `vblendvps`, `vminps`/`vmaxps` with the operands in order, `vfmadd`, and the blend on the
//! sign bit for `order_by_sign`), over `std::arch` so that they are AVX2 code inside the
//! v3 function of a baseline build (`simd/levels.rs`), where `wide` would be SSE2. The same
//! IEEE operation lane by lane as every other lane type, so the same bits.
//!
//! Safety: these lanes run only at level v3 or above, on CPUs with AVX2 and FMA (`x86.rs`).

use super::x86::{x86_lane_fns, x86_load, x86_ops};
use super::Load;
use crate::real::Lane;
use core::arch::x86_64::*;
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

/// 8 `f32` lanes in a `ymm` register.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F32x8(__m256);

/// 4 `f64` lanes in a `ymm` register.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F64x4(__m256d);

/// `$v` over `$r`: the arithmetic, the mask operators (masks are `$v` themselves), [`Lane`] and
/// [`Load`]. The paths name the intrinsics of the lane width.
macro_rules! avx2_lane {
    ($v:ident, $t:ty, $width:literal, $int:ty,
     add $add:path, sub $sub:path, mul $mul:path, div $div:path, and $and:path, or $or:path,
     xor $xor:path, set1 $set1:path, blendv $blendv:path, cmp $cmp:ident, movemask $movemask:path,
     sqrt $sqrt:path, min $min:path, max $max:path, fma $fma:path, loadu $loadu:path,
     storeu $storeu:path, to_int $to_int:path, from_int $from_int:path,
     cmpeq_int $cmpeq_int:path, cmpgt_int $cmpgt_int:path, set1_int $set1_int:path,
     low_bytes $low_bytes:path, rows $rows:path) => {
        x86_ops!($v, add $add, sub $sub, mul $mul, div $div, xor $xor);

        impl BitAnd for $v {
            type Output = $v;
            #[inline(always)]
            fn bitand(self, o: $v) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $and(self.0, o.0) })
            }
        }
        impl BitOr for $v {
            type Output = $v;
            #[inline(always)]
            fn bitor(self, o: $v) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $or(self.0, o.0) })
            }
        }
        impl Not for $v {
            type Output = $v;
            #[inline(always)]
            fn not(self) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $xor(self.0, $from_int($set1_int(-1))) })
            }
        }

        impl $v {
            #[inline(always)]
            fn cmp<const P: i32>(self, o: $v) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $cmp::<P>(self.0, o.0) })
            }
        }

        impl Lane for $v {
            type Mask = $v;
            type Scalar = $t;
            const WIDTH: usize = $width;

            x86_lane_fns!($v, $t, $width, set1 $set1, sqrt $sqrt, min $min, max $max,
                fma $fma, storeu $storeu);

            #[inline(always)]
            fn select(m: $v, a: $v, b: $v) -> $v {
                // `vblendv` reads the sign bit of each mask lane (all ones or zeros here).
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $blendv(b.0, a.0, m.0) })
            }
            #[inline(always)]
            fn lt(self, o: $v) -> $v {
                self.cmp::<_CMP_LT_OQ>(o)
            }
            #[inline(always)]
            fn le(self, o: $v) -> $v {
                self.cmp::<_CMP_LE_OQ>(o)
            }
            #[inline(always)]
            fn eq_(self, o: $v) -> $v {
                self.cmp::<_CMP_EQ_OQ>(o)
            }
            #[inline(always)]
            fn le_bits(self, o: $v) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                !$v(unsafe { $from_int($cmpgt_int($to_int(self.0), $to_int(o.0))) })
            }
            #[inline(always)]
            fn eq_bits(self, o: $v) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $from_int($cmpeq_int($to_int(self.0), $to_int(o.0))) })
            }
            #[inline(always)]
            fn finite(self) -> $v {
                self.abs().lt(<$v>::splat(<$t>::INFINITY))
            }
            #[inline(always)]
            fn any(m: $v) -> bool {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                unsafe { $movemask(m.0) != 0 }
            }
            #[inline(always)]
            fn bits(m: $v) -> u64 {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                unsafe { $movemask(m.0) as u32 as u64 }
            }
            #[inline(always)]
            fn abs(self) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX2 (the module's header).
                $v(unsafe { $and(self.0, $from_int($set1_int(<$int>::MAX))) })
            }
            #[inline(always)]
            fn write_low_bytes(self, out: &mut [u8]) {
                $low_bytes(self, out)
            }
            /// `select` is a `vblendv`, which reads only the sign bit of each mask lane: `s`
            /// itself is the mask, one instruction per select where the default compares first.
            #[inline(always)]
            fn order_by_sign(s: $v, a: $v, b: $v) -> ($v, $v) {
                (Self::select(s, b, a), Self::select(s, a, b))
            }
            #[inline(always)]
            fn within<R>(f: impl FnOnce() -> R) -> R {
                // SAFETY: these lanes run only on CPUs with x86-64-v3 (the module's header).
                unsafe { <super::isa::Avx2 as super::isa::Isa>::run(f) }
            }
        }

        impl Load for $v {
            x86_load!($v, $t, $width, loadu $loadu);
            #[inline(always)]
            fn load_rows(s: &[$t]) -> [$v; 4] {
                $rows(s).map($v)
            }
        }
    };
}

avx2_lane!(F32x8, f32, 8, i32,
    add _mm256_add_ps, sub _mm256_sub_ps, mul _mm256_mul_ps, div _mm256_div_ps,
    and _mm256_and_ps, or _mm256_or_ps, xor _mm256_xor_ps, set1 _mm256_set1_ps,
    blendv _mm256_blendv_ps, cmp _mm256_cmp_ps, movemask _mm256_movemask_ps,
    sqrt _mm256_sqrt_ps, min _mm256_min_ps, max _mm256_max_ps, fma _mm256_fmadd_ps,
    loadu _mm256_loadu_ps, storeu _mm256_storeu_ps, to_int _mm256_castps_si256,
    from_int _mm256_castsi256_ps, cmpeq_int _mm256_cmpeq_epi32, cmpgt_int _mm256_cmpgt_epi32,
    set1_int _mm256_set1_epi32, low_bytes low_bytes_f32, rows rows_f32);

avx2_lane!(F64x4, f64, 4, i64,
    add _mm256_add_pd, sub _mm256_sub_pd, mul _mm256_mul_pd, div _mm256_div_pd,
    and _mm256_and_pd, or _mm256_or_pd, xor _mm256_xor_pd, set1 _mm256_set1_pd,
    blendv _mm256_blendv_pd, cmp _mm256_cmp_pd, movemask _mm256_movemask_pd,
    sqrt _mm256_sqrt_pd, min _mm256_min_pd, max _mm256_max_pd, fma _mm256_fmadd_pd,
    loadu _mm256_loadu_pd, storeu _mm256_storeu_pd, to_int _mm256_castpd_si256,
    from_int _mm256_castsi256_pd, cmpeq_int _mm256_cmpeq_epi64, cmpgt_int _mm256_cmpgt_epi64,
    set1_int _mm256_set1_epi64x, low_bytes low_bytes_f64, rows rows_f64);

/// [`Lane::write_low_bytes`] for 8 `f32` lanes: the low bytes kept, then two packs (32 → 16 →
/// 8 bits, no saturation below 256) and one 8-byte store, as `wide`'s packs compile to with
/// AVX2.
#[inline(always)]
fn low_bytes_f32(v: F32x8, out: &mut [u8]) {
    let out = &mut out[..8];
    // SAFETY: `out` holds 8 bytes (the slice above panics otherwise) and `_mm_storel_epi64`
    // writes 8, unaligned; these lanes run only on CPUs with AVX2 (the module's header).
    unsafe {
        let bits = _mm256_and_si256(_mm256_castps_si256(v.0), _mm256_set1_epi32(0xFF));
        let (lo, hi) = (
            _mm256_castsi256_si128(bits),
            _mm256_extracti128_si256::<1>(bits),
        );
        let half = _mm_packus_epi32(lo, hi);
        _mm_storel_epi64(out.as_mut_ptr().cast(), _mm_packus_epi16(half, half));
    }
}

/// [`Lane::write_low_bytes`] for 4 `f64` lanes, lane by lane.
#[inline(always)]
fn low_bytes_f64(v: F64x4, out: &mut [u8]) {
    use crate::real::Real;
    crate::real::write_as(v, &mut out[..4], |x| x.to_bits_u64() as u8);
}

/// [`Load::load_rows`] for 8 `f32` lanes: rows `r` and `r + 4` loaded into the two halves of
/// one register, then the 4 × 4 transpose of each half (two rounds of unpacks) leaves `x0`,
/// `y0`, `x1`, `y1` of rows 0–7 in lane order. Four loads and eight shuffles where a lane-by-
/// lane build stored 32 floats to the stack and read them back as vectors (rows 463 against
/// columns 678 Mseg/s at 64K). `wide`'s 8 lanes use it too where a build has AVX.
#[inline(always)]
pub(super) fn rows_f32(s: &[f32]) -> [__m256; 4] {
    let s = &s[..32];
    let p = s.as_ptr();
    // SAFETY: `s` holds 32 floats (the slice above panics otherwise), so every 4-float load at
    // `p + 4·r`, r < 8, is in bounds, and the loads are unaligned ones; the callers run only
    // on CPUs with AVX (these lanes, or a build for AVX).
    unsafe {
        let half = |r: usize| _mm256_loadu2_m128(p.add(4 * (r + 4)), p.add(4 * r));
        let (a, b, c, d) = (half(0), half(1), half(2), half(3));
        // Per half: a b c d are rows; after the unpacks (x0 y0 of a, b), (x1 y1 of a, b), ...
        let ab_lo = _mm256_castps_pd(_mm256_unpacklo_ps(a, b));
        let ab_hi = _mm256_castps_pd(_mm256_unpackhi_ps(a, b));
        let cd_lo = _mm256_castps_pd(_mm256_unpacklo_ps(c, d));
        let cd_hi = _mm256_castps_pd(_mm256_unpackhi_ps(c, d));
        [
            _mm256_castpd_ps(_mm256_unpacklo_pd(ab_lo, cd_lo)),
            _mm256_castpd_ps(_mm256_unpackhi_pd(ab_lo, cd_lo)),
            _mm256_castpd_ps(_mm256_unpacklo_pd(ab_hi, cd_hi)),
            _mm256_castpd_ps(_mm256_unpackhi_pd(ab_hi, cd_hi)),
        ]
    }
}

/// [`Load::load_rows`] for 4 `f64` lanes: four rows are a 4 × 4 block, transposed with
/// unpacks within halves and then the halves swapped across (`vperm2f128`), as `wide`'s
/// transpose does with AVX.
#[inline(always)]
fn rows_f64(s: &[f64]) -> [__m256d; 4] {
    let s = &s[..16];
    let p = s.as_ptr();
    // SAFETY: `s` holds 16 values (the slice above panics otherwise), so the four 4-value
    // unaligned loads at `p + 4·r` are in bounds; these lanes run only on CPUs with AVX2.
    unsafe {
        let [a, b, c, d] = [0, 1, 2, 3].map(|r| _mm256_loadu_pd(p.add(4 * r)));
        // (a0 b0 a2 b2), (a1 b1 a3 b3), (c0 d0 c2 d2), (c1 d1 c3 d3)
        let (ab0, ab1) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
        let (cd0, cd1) = (_mm256_unpacklo_pd(c, d), _mm256_unpackhi_pd(c, d));
        [
            _mm256_permute2f128_pd::<0x20>(ab0, cd0),
            _mm256_permute2f128_pd::<0x20>(ab1, cd1),
            _mm256_permute2f128_pd::<0x31>(ab0, cd0),
            _mm256_permute2f128_pd::<0x31>(ab1, cd1),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::{detected, Level};

    /// The transposes, the packs and the mask rules against the scalar lanes, where the CPU
    /// has AVX2 (inside the v3 function, as the kernels run them).
    #[test]
    fn lanes_follow_the_scalar_rules() {
        if detected() < Level::V3 {
            return;
        }
        F32x8::within(|| {
            let s: Vec<f32> = (0..32).map(|i| i as f32).collect();
            for (c, col) in F32x8::load_rows(&s).iter().enumerate() {
                let mut out = [0f32; 8];
                col.write(&mut out);
                let want: Vec<f32> = (0..8).map(|r| (4 * r + c) as f32).collect();
                assert_eq!(out.to_vec(), want, "f32 column {c}");
            }
            let s: Vec<f64> = (0..16).map(|i| i as f64).collect();
            for (c, col) in F64x4::load_rows(&s).iter().enumerate() {
                let mut out = [0f64; 4];
                col.write(&mut out);
                let want: Vec<f64> = (0..4).map(|r| (4 * r + c) as f64).collect();
                assert_eq!(out.to_vec(), want, "f64 column {c}");
            }
            let mut bytes = [0u8; 8];
            F32x8::from_fn(|l| f32::from_bits(0x4B00_00F8 + l as u32)).write_low_bytes(&mut bytes);
            assert_eq!(bytes.to_vec(), (0xF8..=0xFFu8).collect::<Vec<_>>());
            let vals = [
                0.0,
                -0.0,
                1.0,
                -1.0,
                f32::INFINITY,
                -f32::INFINITY,
                f32::NAN,
                1e-40,
            ];
            let a = F32x8::from_fn(|l| vals[l]);
            let b = F32x8::from_fn(|l| vals[(l + 3) % 8]);
            let lanes = |m: F32x8| {
                let mut o = [0f32; 8];
                m.write(&mut o);
                o.map(|x| x.to_bits() != 0)
            };
            let (mut mn, mut ng, mut ab) = ([0f32; 8], [0f32; 8], [0f32; 8]);
            a.min_any(b).write(&mut mn);
            (-a).write(&mut ng);
            a.abs().write(&mut ab);
            let (f, s) = F32x8::order_by_sign(a, b, a);
            let (mut first, mut second) = ([0f32; 8], [0f32; 8]);
            f.write(&mut first);
            s.write(&mut second);
            for l in 0..8 {
                let (x, y) = (vals[l], vals[(l + 3) % 8]);
                let want = [x < y, x <= y, x == y, x.is_finite(), Lane::le_bits(x, y)];
                let got = [a.lt(b), a.le(b), a.eq_(b), a.finite(), a.le_bits(b)].map(lanes);
                for (op, (g, w)) in got.iter().zip(want).enumerate() {
                    assert_eq!(g[l], w, "op {op} on {x:e}, {y:e}");
                }
                assert_eq!(lanes(a.eq_bits(b))[l], x.to_bits() == y.to_bits());
                assert_eq!(
                    mn[l].to_bits(),
                    Lane::min_any(x, y).to_bits(),
                    "min {x} {y}"
                );
                assert_eq!(ng[l].to_bits(), (-x).to_bits(), "neg {x}");
                assert_eq!(ab[l].to_bits(), x.abs().to_bits(), "abs {x}");
                if !x.is_nan() {
                    let (wf, ws) = Lane::order_by_sign(x, y, x);
                    assert_eq!(first[l].to_bits(), wf.to_bits(), "order {x} {y}");
                    assert_eq!(second[l].to_bits(), ws.to_bits(), "order {x} {y}");
                }
            }
        });
    }
}
