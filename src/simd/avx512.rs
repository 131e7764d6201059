//! AVX-512 vectors as [`Lane`]s with mask registers: 16 `f32` ([`F32x16`]) and 8 `f64`
//! ([`F64x8`]) lanes, whose comparisons give a `k` register ([`Mask16`], [`Mask8`]) and whose
//! `select` is one masked blend; the range test of the slab is one class test per axis.
//!
//! `wide`'s AVX-512 vectors keep masks as vectors: every comparison is a compare into a `k`
//! register and a move back to a vector, every `&` a vector `and`, every select a move into a
//! `k` register and a blend. The kernels' exact decisions are mostly such mask work, so there it
//! cost as much as the arithmetic. The operations here are the same IEEE operations lane by lane
//! (`vminps`/`vmaxps` with the operands in order for `min_any`/`max_any`), so the bits are those
//! of every other lane type.
//!
//! Safety: these lanes run only at level v4, on CPUs with AVX-512 F, BW, CD, DQ and VL
//! (`x86.rs`); every intrinsic below needs some of those.

use super::x86::{x86_lane_fns, x86_load, x86_ops};
use super::Load;
use crate::real::{Lane, INDEX_BITS};
use core::arch::x86_64::*;
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

/// 16 `f32` lanes in a `zmm` register.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F32x16(__m512);

/// 8 `f64` lanes in a `zmm` register.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F64x8(__m512d);

/// One bit per lane of an [`F32x16`], as in a `k` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask16(__mmask16);

/// One bit per lane of an [`F64x8`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask8(__mmask8);

macro_rules! mask_ops {
    ($m:ident) => {
        impl BitAnd for $m {
            type Output = $m;
            #[inline(always)]
            fn bitand(self, o: $m) -> $m {
                $m(self.0 & o.0)
            }
        }
        impl BitOr for $m {
            type Output = $m;
            #[inline(always)]
            fn bitor(self, o: $m) -> $m {
                $m(self.0 | o.0)
            }
        }
        impl Not for $m {
            type Output = $m;
            #[inline(always)]
            fn not(self) -> $m {
                $m(!self.0)
            }
        }
    };
}
mask_ops!(Mask16);
mask_ops!(Mask8);

/// `vrange`'s immediate for the smaller magnitude (bits 1:0 = 10), its sign cleared (bits 3:2 =
/// 10).
const MIN_ABS: i32 = 0b1010;
/// `vrange`'s immediate for the larger magnitude (bits 1:0 = 11), its sign cleared.
const MAX_ABS: i32 = 0b1011;

/// `$v` over `$r` with `$t` lanes: the arithmetic, [`Lane`] and [`Load`]. `$i` names the
/// intrinsics' type suffix (`ps`, `pd`).
macro_rules! avx512_lane {
    ($v:ident, $r:ty, $t:ty, $m:ident, $width:literal,
     add $add:ident, sub $sub:ident, mul $mul:ident, div $div:ident, xor $xor:ident,
     set1 $set1:ident, blend $blend:ident, cmp $cmp:ident, mask_cmp $mask_cmp:ident, abs $abs:ident, sqrt $sqrt:ident,
     min $min:ident, max $max:ident, fma $fma:ident, loadu $loadu:ident, storeu $storeu:ident,
     stream $stream:ident,
     fpclass $fpclass:ident, range $range:ident, cmp_int $cmp_int:ident, to_int $to_int:ident,
     fixup $fixup:ident, set1_int $set1_int:ident, from_int $from_int:ident,
     srai $srai:ident, sign_shift $sign_shift:literal, ternlog $ternlog:ident,
     low_bytes $low_bytes:path, rows $rows:path, gather $gather:path) => {
        x86_ops!($v, add $add, sub $sub, mul $mul, div $div, xor $xor);

        impl $v {
            #[inline(always)]
            fn cmp<const P: i32>(self, o: $v) -> $m {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $m(unsafe { $cmp::<P>(self.0, o.0) })
            }

            /// The smaller or larger magnitude of `self` and `o` (`vrange` with `RANGE`:
            /// [`MIN_ABS`] or [`MAX_ABS`]) compared with zero by predicate `P`.
                    #[inline(always)]
            fn magnitude_vs_zero<const RANGE: i32, const P: i32>(self, o: $v) -> $m {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                let m = unsafe { $v($range::<RANGE>(self.0, o.0)) };
                m.cmp::<P>(<$v>::splat(0.0))
            }

            /// `m &` [`Lane::in_range_both`]: neither is NaN, ±∞, `-0` or subnormal (one
            /// `vfpclass` each), and the larger magnitude (one `vrange`) is at most `hi`, in a
            /// compare under the mask: the default's meaning in five instructions where it took
            /// eleven.
                    #[inline(always)]
            fn in_range_under(self, o: $v, hi: $t, m: $m) -> $m {
                // QNaN 0x01, −0 0x04, +∞ 0x08, −∞ 0x10, subnormal 0x20, SNaN 0x80.
                const BAD: i32 = 0x01 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80;
                let hi = <$v>::splat(hi);
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe {
                    let bad = $fpclass::<BAD>(self.0) | $fpclass::<BAD>(o.0);
                    $m($mask_cmp::<_CMP_LE_OQ>(
                        !bad & m.0,
                        $range::<MAX_ABS>(self.0, o.0),
                        hi.0,
                    ))
                }
            }

            /// `m &` [`Lane::not_tiny_both`]: each made `+1` where it is `±0` (one `vfixupimm`:
            /// the table's nibble for class 2, zero, is token 10, `+1`; the others are 0, keep
            /// it), then the smaller magnitude (one `vrange`) compared with `FAST_LO`, unordered
            /// passing. Four instructions where integer arithmetic on the bits took six, and
            /// none that moves a mask out of its register (`simd-slab`, 64K `mixed`, scratch
            /// harness, alternated: 1,854–1,888 → 1,887–1,938 Mseg/s).
                    #[inline(always)]
            fn not_tiny_under(self, o: $v, m: $m) -> $m {
                const ZERO_TO_ONE: i32 = 0xA00;
                let lo = <$v>::splat(<$t as crate::Real>::FAST_LO);
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe {
                    let table = $set1_int(ZERO_TO_ONE as _);
                    let (a, b) = (
                        $fixup::<0>(self.0, self.0, table),
                        $fixup::<0>(o.0, o.0, table),
                    );
                    $m($mask_cmp::<_CMP_NLT_UQ>(m.0, $range::<MIN_ABS>(a, b), lo.0))
                }
            }
        }

        impl Lane for $v {
            type Mask = $m;
            type Scalar = $t;
            const WIDTH: usize = $width;

            x86_lane_fns!($v, $t, $width, set1 $set1, sqrt $sqrt, min $min, max $max,
                fma $fma, storeu $storeu);

            #[inline(always)]
            fn select(m: $m, a: $v, b: $v) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $v(unsafe { $blend(m.0, b.0, a.0) })
            }
            #[inline(always)]
            fn lt(self, o: $v) -> $m {
                self.cmp::<_CMP_LT_OQ>(o)
            }
            #[inline(always)]
            fn le(self, o: $v) -> $m {
                self.cmp::<_CMP_LE_OQ>(o)
            }
            #[inline(always)]
            fn gt(self, o: $v) -> $m {
                self.cmp::<_CMP_GT_OQ>(o)
            }
            #[inline(always)]
            fn ge(self, o: $v) -> $m {
                self.cmp::<_CMP_GE_OQ>(o)
            }
            #[inline(always)]
            fn le_and(self, o: $v, m: $m) -> $m {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $m(unsafe { $mask_cmp::<_CMP_LE_OQ>(m.0, self.0, o.0) })
            }
            #[inline(always)]
            fn eq_and(self, o: $v, m: $m) -> $m {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $m(unsafe { $mask_cmp::<_CMP_EQ_OQ>(m.0, self.0, o.0) })
            }
            #[inline(always)]
            fn eq_(self, o: $v) -> $m {
                self.cmp::<_CMP_EQ_OQ>(o)
            }
            #[inline(always)]
            fn le_bits(self, o: $v) -> $m {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $m(unsafe { $cmp_int::<_MM_CMPINT_LE>($to_int(self.0), $to_int(o.0)) })
            }
            #[inline(always)]
            fn eq_bits(self, o: $v) -> $m {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $m(unsafe { $cmp_int::<_MM_CMPINT_EQ>($to_int(self.0), $to_int(o.0)) })
            }
            #[inline(always)]
            fn finite(self) -> $m {
                self.abs().cmp::<_CMP_LT_OQ>(<$v>::splat(<$t>::INFINITY))
            }
            #[inline(always)]
            fn any(m: $m) -> bool {
                m.0 != 0
            }
            #[inline(always)]
            fn bits(m: $m) -> u64 {
                u64::from(m.0)
            }
            #[inline(always)]
            fn abs(self) -> $v {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                $v(unsafe { $abs(self.0) })
            }
            #[inline(always)]
            fn write_stream(self, out: &mut [$t]) {
                let out = &mut out[..$width];
                if out.as_ptr() as usize % 64 == 0 {
                    // SAFETY: `out` holds `$width` values (64 bytes, the slice above panics
                    // otherwise) and starts on a 64-byte boundary, as the streaming store
                    // requires; these lanes run only on CPUs with AVX-512.
                    unsafe { $stream(out.as_mut_ptr(), self.0) }
                } else {
                    self.write(out)
                }
            }
            #[inline(always)]
            fn write_low_bytes(self, out: &mut [u8]) {
                $low_bytes(self, &mut out[..$width])
            }
            #[inline(always)]
            fn not_tiny_both(self, o: $v) -> $m {
                self.not_tiny_under(o, $m(!0))
            }
            #[inline(always)]
            fn gather_biased(self, table: &[$t]) -> $v {
                $gather(self, table)
            }
            /// One `vfixupimm`: by the class of `w`, `+∞` for `±0`, else `self` (the table's
            /// nibble for class 2, zero, is token 5, `+∞`; the others are 0, keep `self`).
            #[inline(always)]
            fn inf_where_zero(self, w: $v) -> $v {
                const ZERO_TO_INF: i32 = 0x500;
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe { $v($fixup::<0>(self.0, w.0, $set1_int(ZERO_TO_INF as _))) }
            }
            /// The smaller magnitude (one `vrange`) compared with zero.
                    #[inline(always)]
            fn either_zero(self, o: $v) -> $m {
                self.magnitude_vs_zero::<MIN_ABS, _CMP_EQ_OQ>(o)
            }
            /// The larger magnitude (one `vrange`, which passes over a NaN operand) compared with
            /// zero.
                    #[inline(always)]
            fn any_nonzero(self, o: $v) -> $m {
                self.magnitude_vs_zero::<MAX_ABS, _CMP_NEQ_OQ>(o)
            }
                    #[inline(always)]
            fn in_range_both(self, o: $v, hi: $t) -> $m {
                self.in_range_under(o, hi, $m(!0))
            }
            /// Two compares chained under masks, and no other instruction that writes a mask
            /// register (a scratch kernel whose range test took four more of them ran 15–20%
            /// slower, `mixed` 64K): the larger magnitude of `self`, `o` (one `vrange`) at most
            /// `hi`, then the smallest magnitude of the coordinates, each made `+1` where zero
            /// and `+0` where NaN or ±∞ (`vfixupimm`: token 10 for class 2, token 8 for classes
            /// 0, 1, 4 and 5), at least `FAST_LO`. `vrange` passes over a NaN operand, but the
            /// differences are NaN only where a coordinate is, which the second test fails.
                    #[inline(always)]
            fn fast_range_both(self, o: $v, p: [$v; 4], hi: $t, m: $m) -> $m {
                const COORD: i32 = 0x0088_0A88;
                let (hi, lo) = (<$v>::splat(hi), <$v>::splat(<$t as crate::Real>::FAST_LO));
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe {
                    let m = $mask_cmp::<_CMP_LE_OQ>(m.0, $range::<MAX_ABS>(self.0, o.0), hi.0);
                    let table = $set1_int(COORD as _);
                    let [a, b, c, d] = p.map(|v| $fixup::<0>(v.0, v.0, table));
                    let least = $range::<MIN_ABS>($range::<MIN_ABS>(a, b), $range::<MIN_ABS>(c, d));
                    $m($mask_cmp::<_CMP_GE_OQ>(m, least, lo.0))
                }
            }
            #[inline(always)]
            fn within<R>(f: impl FnOnce() -> R) -> R {
                // SAFETY: these lanes run only on CPUs with x86-64-v4 (the module's header).
                unsafe { <super::isa::Avx512 as super::isa::Isa>::run(f) }
            }
            /// The sign bit broadcast to the whole lane (`vpsra`), a bitwise select for the
            /// first (`vpternlog` 0xCA: `s ? b : a`), and the second as `first ^ a ^ b`.
            #[inline(always)]
            fn order_by_sign(s: $v, a: $v, b: $v) -> ($v, $v) {
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe {
                    let m = $srai::<$sign_shift>($to_int(s.0));
                    let (a, b) = ($to_int(a.0), $to_int(b.0));
                    let first = $ternlog::<0xCA>(m, b, a);
                    let second = $ternlog::<0x96>(first, a, b);
                    ($v($from_int(first)), $v($from_int(second)))
                }
            }
            /// One `vfixupimm`: by the class of `w`, token 10 (`+1`) for QNaN, SNaN, zero, `+1`,
            /// `+∞` and positive (nibbles 0, 1, 2, 3, 5, 7), 0 (keep `self`) for `−∞` and
            /// negative (4, 6).
            #[inline(always)]
            fn one_unless_negative(self, w: $v) -> $v {
                const ONE_UNLESS_NEGATIVE: u32 = 0xA0A0_AAAA;
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe {
                    $v($fixup::<0>(
                        self.0,
                        w.0,
                        $set1_int(ONE_UNLESS_NEGATIVE as _),
                    ))
                }
            }
            /// The smaller magnitude of `a`, `b` (one `vrange`), then one `vfixupimm`: token 10
            /// (`+1`) for its class zero, keep `self` for the others.
                    #[inline(always)]
            fn one_where_either_zero(self, a: $v, b: $v) -> $v {
                const ZERO_TO_ONE: i32 = 0xA00;
                // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
                unsafe {
                    let smaller = $range::<MIN_ABS>(a.0, b.0);
                    $v($fixup::<0>(self.0, smaller, $set1_int(ZERO_TO_ONE as _)))
                }
            }
        }

        impl Load for $v {
            x86_load!($v, $t, $width, loadu $loadu);
            #[inline(always)]
            fn load_rows(s: &[$t]) -> [$v; 4] {
                $rows(&s[..4 * $width])
            }
        }
    };
}

/// The bitwise xor of two vectors (on the integer view: 512-bit `vxorps` is AVX-512DQ).
///
/// # Safety
///
/// The CPU has AVX-512F.
#[inline(always)]
unsafe fn xor_ps(a: __m512, b: __m512) -> __m512 {
    // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
    unsafe {
        _mm512_castsi512_ps(_mm512_xor_si512(
            _mm512_castps_si512(a),
            _mm512_castps_si512(b),
        ))
    }
}

/// The bitwise xor of two vectors (on the integer view: 512-bit `vxorpd` is AVX-512DQ).
///
/// # Safety
///
/// The CPU has AVX-512F.
#[inline(always)]
unsafe fn xor_pd(a: __m512d, b: __m512d) -> __m512d {
    // SAFETY: these lanes run only on CPUs with AVX-512 (the module's header).
    unsafe {
        _mm512_castsi512_pd(_mm512_xor_si512(
            _mm512_castpd_si512(a),
            _mm512_castpd_si512(b),
        ))
    }
}

avx512_lane!(F32x16, __m512, f32, Mask16, 16,
    add _mm512_add_ps, sub _mm512_sub_ps, mul _mm512_mul_ps, div _mm512_div_ps, xor xor_ps,
    set1 _mm512_set1_ps, blend _mm512_mask_blend_ps, cmp _mm512_cmp_ps_mask, mask_cmp _mm512_mask_cmp_ps_mask,
    abs _mm512_abs_ps, sqrt _mm512_sqrt_ps, min _mm512_min_ps, max _mm512_max_ps, fma _mm512_fmadd_ps,
    loadu _mm512_loadu_ps, storeu _mm512_storeu_ps, stream _mm512_stream_ps, fpclass _mm512_fpclass_ps_mask, range _mm512_range_ps,
    cmp_int _mm512_cmp_epi32_mask, to_int _mm512_castps_si512,
    fixup _mm512_fixupimm_ps, set1_int _mm512_set1_epi32, from_int _mm512_castsi512_ps,
    srai _mm512_srai_epi32, sign_shift 31, ternlog _mm512_ternarylogic_epi32,
    low_bytes low_bytes_f32, rows rows_f32, gather gather_f32);

avx512_lane!(F64x8, __m512d, f64, Mask8, 8,
    add _mm512_add_pd, sub _mm512_sub_pd, mul _mm512_mul_pd, div _mm512_div_pd, xor xor_pd,
    set1 _mm512_set1_pd, blend _mm512_mask_blend_pd, cmp _mm512_cmp_pd_mask, mask_cmp _mm512_mask_cmp_pd_mask,
    abs _mm512_abs_pd, sqrt _mm512_sqrt_pd, min _mm512_min_pd, max _mm512_max_pd, fma _mm512_fmadd_pd,
    loadu _mm512_loadu_pd, storeu _mm512_storeu_pd, stream _mm512_stream_pd, fpclass _mm512_fpclass_pd_mask, range _mm512_range_pd,
    cmp_int _mm512_cmp_epi64_mask, to_int _mm512_castpd_si512,
    fixup _mm512_fixupimm_pd, set1_int _mm512_set1_epi64, from_int _mm512_castsi512_pd,
    srai _mm512_srai_epi64, sign_shift 63, ternlog _mm512_ternarylogic_epi64,
    low_bytes low_bytes_f64, rows rows_f64, gather gather_f64);

/// [`Lane::gather_biased`]: the index bits masked out, clamped to the table (unsigned `min`),
/// and one gather (`vgatherdps`, `vgatherqpd`).
macro_rules! gather_fn {
    ($name:ident, $v:ident, $t:ty, $int:ty, $cast:ident, $set1:ident, $min:ident,
     $gather:ident, $scale:literal) => {
        #[inline(always)]
        fn $name(v: $v, table: &[$t]) -> $v {
            let last = table.len() - 1;
            // SAFETY: these lanes run only on CPUs with AVX-512; every index is at
            // most `last` (the `min` below), so each lane reads within `table`, which is not
            // empty (`last` did not underflow).
            unsafe {
                let i = _mm512_and_si512($cast(v.0), $set1(INDEX_BITS as $int));
                let i = $min(i, $set1(last.min(INDEX_BITS as usize) as $int));
                $v($gather::<$scale>(i, table.as_ptr()))
            }
        }
    };
}
gather_fn!(
    gather_f32,
    F32x16,
    f32,
    i32,
    _mm512_castps_si512,
    _mm512_set1_epi32,
    _mm512_min_epu32,
    _mm512_i32gather_ps,
    4
);
gather_fn!(
    gather_f64,
    F64x8,
    f64,
    i64,
    _mm512_castpd_si512,
    _mm512_set1_epi64,
    _mm512_min_epu64,
    _mm512_i64gather_pd,
    8
);

/// [`Lane::write_low_bytes`] for 16 `f32` lanes: one truncating narrow (`vpmovdb`), one store.
#[inline(always)]
fn low_bytes_f32(v: F32x16, out: &mut [u8]) {
    let out = &mut out[..16];
    // SAFETY: `out` holds 16 bytes (the slice above panics otherwise) and the store is
    // unaligned; these lanes run only on CPUs with AVX-512.
    unsafe {
        let bytes = _mm512_cvtepi32_epi8(_mm512_castps_si512(v.0));
        _mm_storeu_si128(out.as_mut_ptr().cast(), bytes);
    }
}

/// [`Lane::write_low_bytes`] for 8 `f64` lanes: `vpmovqb`, then the low 8 bytes stored.
#[inline(always)]
fn low_bytes_f64(v: F64x8, out: &mut [u8]) {
    let out = &mut out[..8];
    // SAFETY: `out` holds 8 bytes (the slice above panics otherwise) and `_mm_storel_epi64`
    // writes 8 bytes, unaligned; these lanes run only on CPUs with AVX-512.
    unsafe {
        let bytes = _mm512_cvtepi64_epi8(_mm512_castpd_si512(v.0));
        _mm_storel_epi64(out.as_mut_ptr().cast(), bytes);
    }
}

/// [`Load::load_rows`] for 8 `f64` lanes: four loads of two rows each, then two rounds of
/// two-source permutes (`vpermt2pd`): columns 0–1 and 2–3 of the first and second half of the
/// rows, then each column.
#[inline(always)]
fn rows_f64(s: &[f64]) -> [F64x8; 4] {
    let s = &s[..32];
    // Round 1: from two registers of rows (indices 0..16), the first column of each of their
    // rows, then the second (or the third and the fourth).
    const fn pick2(first: i64) -> [i64; 8] {
        let mut idx = [0; 8];
        let mut j = 0;
        while j < 8 {
            idx[j] = 4 * (j as i64 % 4) + first + (j as i64 / 4);
            j += 1;
        }
        idx
    }
    // Round 2: the low or high half of each of two registers.
    const fn halves(high: i64) -> [i64; 8] {
        let mut idx = [0; 8];
        let mut j = 0;
        while j < 8 {
            idx[j] = 4 * high + (j as i64 % 4) + 8 * (j as i64 / 4);
            j += 1;
        }
        idx
    }
    // SAFETY: `s` holds 32 values (the slice above panics otherwise), so each 8-value
    // unaligned load at `8·k`, k < 4, is in bounds; these lanes run only on CPUs with AVX-512.
    unsafe {
        let p = s.as_ptr();
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| _mm512_loadu_pd(p.add(8 * k)));
        let idx = |i: [i64; 8]| _mm512_loadu_si512(i.as_ptr().cast());
        let (lo, hi) = (idx(pick2(0)), idx(pick2(2)));
        let (ab01, ab23) = (
            _mm512_permutex2var_pd(a, lo, b),
            _mm512_permutex2var_pd(a, hi, b),
        );
        let (cd01, cd23) = (
            _mm512_permutex2var_pd(c, lo, d),
            _mm512_permutex2var_pd(c, hi, d),
        );
        let (first, second) = (idx(halves(0)), idx(halves(1)));
        [
            F64x8(_mm512_permutex2var_pd(ab01, first, cd01)),
            F64x8(_mm512_permutex2var_pd(ab01, second, cd01)),
            F64x8(_mm512_permutex2var_pd(ab23, first, cd23)),
            F64x8(_mm512_permutex2var_pd(ab23, second, cd23)),
        ]
    }
}

/// [`Load::load_rows`] for 16 `f32` lanes: the rows of four registers (four segments each,
/// one per 128-bit lane) interleaved within lanes (`vunpcklps`, `vunpckhps`: `x0 y0` and
/// `x1 y1` of two segments side by side), then one two-source permute per column.
#[inline(always)]
fn rows_f32(s: &[f32]) -> [F32x16; 4] {
    let s = &s[..64];
    // Column `c` (0: x, 1: y) of segment `s`: from the first unpacked pair for s < 8, else
    // the second (16 + …); lane `s % 4`, place `2c + (s % 8) / 4`.
    const fn column(c: i32) -> [i32; 16] {
        let mut idx = [0; 16];
        let mut s = 0;
        while s < 16 {
            let r = s as i32 % 8;
            idx[s] = 16 * (s as i32 / 8) + 4 * (r % 4) + 2 * c + r / 4;
            s += 1;
        }
        idx
    }
    // SAFETY: `s` holds 64 values (the slice above panics otherwise), so each 16-value
    // unaligned load at `16·k`, k < 4, is in bounds; these lanes run only on CPUs with AVX-512.
    unsafe {
        let p = s.as_ptr();
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| _mm512_loadu_ps(p.add(16 * k)));
        let (ab0, ab1) = (_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
        let (cd0, cd1) = (_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
        let idx = |i: [i32; 16]| _mm512_loadu_si512(i.as_ptr().cast());
        let (x, y) = (idx(column(0)), idx(column(1)));
        [
            F32x16(_mm512_permutex2var_ps(ab0, x, cd0)),
            F32x16(_mm512_permutex2var_ps(ab0, y, cd0)),
            F32x16(_mm512_permutex2var_ps(ab1, x, cd1)),
            F32x16(_mm512_permutex2var_ps(ab1, y, cd1)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_transpose_into_columns() {
        if crate::simd::detected() < crate::simd::Level::V4 {
            return;
        }
        let s: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let cols = rows_f32(&s);
        for (c, col) in cols.iter().enumerate() {
            let mut out = [0f32; 16];
            col.write(&mut out);
            let want: Vec<f32> = (0..16).map(|r| (4 * r + c) as f32).collect();
            assert_eq!(out.to_vec(), want, "f32 column {c}");
        }
        let s: Vec<f64> = (0..32).map(|i| i as f64).collect();
        let cols = rows_f64(&s);
        for (c, col) in cols.iter().enumerate() {
            let mut out = [0f64; 8];
            col.write(&mut out);
            let want: Vec<f64> = (0..8).map(|r| (4 * r + c) as f64).collect();
            assert_eq!(out.to_vec(), want, "f64 column {c}");
        }
    }

    #[test]
    fn masks_select_and_min_max_follow_the_lane_rules() {
        if crate::simd::detected() < crate::simd::Level::V4 {
            return;
        }
        let a = F32x16::from_fn(|l| if l % 3 == 0 { f32::NAN } else { l as f32 });
        let b = F32x16::splat(5.0);
        let mut out = [0f32; 16];
        a.min_any(b).write(&mut out);
        for (l, x) in out.iter().enumerate() {
            let want = if l % 3 == 0 { 5.0 } else { (l as f32).min(5.0) };
            assert_eq!(*x, want, "lane {l}");
        }
        let m = a.lt(b) | a.eq_(a).not();
        F32x16::select(m, b, a).write(&mut out);
        for (l, x) in out.iter().enumerate() {
            let want = if l % 3 == 0 || l < 5 { 5.0 } else { l as f32 };
            assert_eq!(*x, want, "lane {l}");
        }
        let mut bytes = [0u8; 16];
        F32x16::from_fn(|l| f32::from_bits(0x4b00_0000 + l as u32)).write_low_bytes(&mut bytes);
        assert_eq!(bytes.to_vec(), (0..16u8).collect::<Vec<_>>());
        assert_eq!((-F64x8::splat(0.0)).lt(F64x8::splat(0.0)), Mask8(0));
    }

    /// Values at the edges of the fast path's tests: zeros of both signs, subnormals, the
    /// neighbours of `FAST_LO`, `RANGE_LO`, `FAST_HI` and `RANGE_HI`, ±∞ and NaN.
    fn edge_values<F: crate::Real>() -> Vec<F> {
        let mut v = vec![
            F::ZERO,
            -F::ZERO,
            F::ONE,
            -F::ONE,
            F::INFINITY,
            -F::INFINITY,
            F::NAN,
        ];
        // The least subnormal of the type, and values just above it.
        let tiny = F::ZERO.next_up();
        for x in [F::FAST_LO, F::RANGE_LO, F::FAST_HI, F::RANGE_HI, tiny] {
            let below = -((-x).next_up());
            for y in [x, x.next_up(), below] {
                v.extend([y, -y]);
            }
        }
        v
    }

    /// Where the CPU has AVX-512 (the tests call the intrinsics out of line: slow, the same
    /// answers). The overriding operations (`vfpclass`, `vrange`, `vfixupimm`, `vpternlog`, masked
    /// compares, the FMA) give what the scalar lanes' plain definitions give, lane by lane, on
    /// every pair of edge values (and a third operand where they take one).
    macro_rules! overrides_match_scalar_lanes {
        ($name:ident, $v:ident, $t:ty, $w:literal) => {
            #[test]
            fn $name() {
                if crate::simd::detected() < crate::simd::Level::V4 {
                    return;
                }
                let vals = edge_values::<$t>();
                let lanes = |m: u32, l: usize| m >> l & 1 == 1;
                for (i, &a0) in vals.iter().enumerate() {
                    let a: Vec<$t> = (0..$w).map(|l| vals[(i + l) % vals.len()]).collect();
                    for k in 0..vals.len() {
                        let b: Vec<$t> = (0..$w).map(|l| vals[(k + 3 * l) % vals.len()]).collect();
                        let (va, vb) = (<$v as Load>::load(&a), <$v as Load>::load(&b));
                        let hi = <$t as crate::Real>::FAST_HI;
                        let m = va.lt(vb);
                        let got = [
                            va.in_range_both(vb, hi).0 as u32,
                            va.not_tiny_both(vb).0 as u32,
                            va.eq_bits(vb).0 as u32,
                            va.le_and(vb, m).0 as u32,
                            va.eq_and(vb, m).0 as u32,
                        ];
                        let mut prod = [0 as $t; $w];
                        va.mul_plus_zero(vb).write(&mut prod);
                        let mut inf_at_zero = [0 as $t; $w];
                        va.inf_where_zero(vb).write(&mut inf_at_zero);
                        let either_zero = va.either_zero(vb).0 as u32;
                        // The fast range: its own test here (the default tests differently).
                        let fast = va.fast_range_both(vb, [vb, va, vb, va], hi, !va.eq_bits(vb));
                        let any_nonzero = va.any_nonzero(vb).0 as u32;
                        // A third operand: the values in another order.
                        let c: Vec<$t> = (0..$w)
                            .map(|l| vals[(i + k + 5 * l) % vals.len()])
                            .collect();
                        let vc = <$v as Load>::load(&c);
                        let [mut first, mut second, mut unless_neg, mut either] =
                            [[0 as $t; $w]; 4];
                        let (f, s) = <$v>::order_by_sign(va, vb, vc);
                        f.write(&mut first);
                        s.write(&mut second);
                        vc.one_unless_negative(va).write(&mut unless_neg);
                        vc.one_where_either_zero(va, vb).write(&mut either);
                        for l in 0..$w {
                            let (x, y) = (a[l], b[l]);
                            let want = [
                                Lane::in_range_both(x, y, hi),
                                Lane::not_tiny_both(x, y),
                                x.to_bits() == y.to_bits(),
                                x < y && x <= y,
                                x < y && x == y,
                            ];
                            for (op, (g, w)) in got.iter().zip(want).enumerate() {
                                assert_eq!(lanes(*g, l), w, "op {op} on {x:e}, {y:e} ({a0:e})");
                            }
                            let want = Lane::inf_where_zero(x, y);
                            assert_eq!(inf_at_zero[l].to_bits(), want.to_bits(), "{x:e} at {y:e}");
                            assert_eq!(
                                lanes(either_zero, l),
                                Lane::either_zero(x, y),
                                "{x:e}, {y:e}"
                            );
                            assert_eq!(
                                lanes(any_nonzero, l),
                                Lane::any_nonzero(x, y),
                                "{x:e}, {y:e}"
                            );
                            // Passed where the lanes differ, |x|, |y| ≤ hi and each of x, y is
                            // zero, or finite and at least FAST_LO in magnitude.
                            let lo = <$t as crate::Real>::FAST_LO;
                            let coord = |v: $t| v == 0.0 || (v.is_finite() && v.abs() >= lo);
                            let want = x.to_bits() != y.to_bits()
                                && x.abs() <= hi
                                && y.abs() <= hi
                                && coord(x)
                                && coord(y);
                            assert_eq!(lanes(fast.0 as u32, l), want, "fast range {x:e}, {y:e}");
                            let z = c[l];
                            // Never asked of a NaN sign (the kernels' differences have none).
                            if !x.is_nan() {
                                let (f, s) = <$t as Lane>::order_by_sign(x, y, z);
                                assert_eq!(
                                    first[l].to_bits(),
                                    f.to_bits(),
                                    "order {x:e} {y:e} {z:e}"
                                );
                                assert_eq!(
                                    second[l].to_bits(),
                                    s.to_bits(),
                                    "order {x:e} {y:e} {z:e}"
                                );
                            }
                            let want = Lane::one_unless_negative(z, x);
                            assert_eq!(
                                unless_neg[l].to_bits(),
                                want.to_bits(),
                                "{z:e} unless {x:e} < 0"
                            );
                            if !x.is_nan() && !y.is_nan() {
                                let want = Lane::one_where_either_zero(z, x, y);
                                assert_eq!(
                                    either[l].to_bits(),
                                    want.to_bits(),
                                    "{z:e} at {x:e}, {y:e}"
                                );
                            }
                            // The FMA differs from `x·y + 0` only where the product underflows.
                            let p = x * y + 0.0;
                            if !(p == 0.0 && x != 0.0 && y != 0.0) {
                                assert_eq!(prod[l].to_bits(), p.to_bits(), "{x:e} · {y:e}");
                            }
                        }
                    }
                }
            }
        };
    }
    overrides_match_scalar_lanes!(f32_overrides_match_scalar_lanes, F32x16, f32, 16);
    overrides_match_scalar_lanes!(f64_overrides_match_scalar_lanes, F64x8, f64, 8);

    /// The gather reads what the scalar lanes' plain definition reads, on biased indices in and
    /// past the table (clamped), the index `−1` (`CODE_BIAS − 1`), and the edge values (whose
    /// low bits are arbitrary indices), for tables of 1, 2 and 37 values.
    macro_rules! gather_matches_scalar_lanes {
        ($name:ident, $v:ident, $t:ty, $w:literal) => {
            #[test]
            fn $name() {
                if crate::simd::detected() < crate::simd::Level::V4 {
                    return;
                }
                let bias = <$t as crate::Real>::CODE_BIAS;
                let mut idx: Vec<$t> = (0..45).map(|i| bias + i as $t).collect();
                idx.push(bias - 1.0);
                idx.extend(edge_values::<$t>());
                for len in [1, 2, 37] {
                    let table: Vec<$t> = (0..len).map(|i| 0.5 + i as $t).collect();
                    for i in 0..idx.len() {
                        let a: Vec<$t> = (0..$w).map(|l| idx[(i + 5 * l) % idx.len()]).collect();
                        let mut got = [0 as $t; $w];
                        <$v as Load>::load(&a).gather_biased(&table).write(&mut got);
                        for l in 0..$w {
                            let want = Lane::gather_biased(a[l], &table);
                            assert_eq!(got[l].to_bits(), want.to_bits(), "{:e} in {len}", a[l]);
                        }
                    }
                }
                // A biased index reads its entry.
                let table: Vec<$t> = (0..37).map(|i| i as $t).collect();
                assert_eq!(Lane::gather_biased(bias + 36.0, &table), 36.0);
                assert_eq!(Lane::gather_biased(bias + 99.0, &table), 36.0);
            }
        };
    }
    gather_matches_scalar_lanes!(f32_gather_matches_scalar_lanes, F32x16, f32, 16);
    gather_matches_scalar_lanes!(f64_gather_matches_scalar_lanes, F64x8, f64, 8);
}
