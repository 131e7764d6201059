//! What the lane types over `std::arch` (`avx2.rs`, `avx512.rs`) write alike: the arithmetic
//! operators, and the [`Lane`](crate::Lane) and [`Load`](super::Load) functions that are one
//! intrinsic each.
//!
//! Safety, for both files: a value of these lane types exists only inside code that runs at
//! its level (`simd::dispatch!`, `Lane::within`), which `simd::level` picks only where the CPU
//! has the level's instructions; the types cannot be named outside the crate. So every
//! intrinsic call on them runs on a CPU that has it.

/// `Add`, `Sub`, `Mul`, `Div` (one intrinsic each) and `Neg` (an exclusive or with `-0.0`:
/// only the sign bit flips, as `-x` does) for the vector `$v` over intrinsics whose type
/// suffix the caller names.
macro_rules! x86_ops {
    ($v:ident, add $add:path, sub $sub:path, mul $mul:path, div $div:path, xor $xor:path) => {
        macro_rules! binop {
            ($tr:ident, $f:ident, $intr:path) => {
                impl $tr for $v {
                    type Output = $v;
                    #[inline(always)]
                    fn $f(self, o: $v) -> $v {
                        // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
                        $v(unsafe { $intr(self.0, o.0) })
                    }
                }
            };
        }
        binop!(Add, add, $add);
        binop!(Sub, sub, $sub);
        binop!(Mul, mul, $mul);
        binop!(Div, div, $div);

        impl Neg for $v {
            type Output = $v;
            /// Flips the sign bit only (NaN stays NaN, `0.0` becomes `-0.0`), as `-x` does.
            #[inline(always)]
            fn neg(self) -> $v {
                // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
                $v(unsafe { $xor(self.0, <$v as Lane>::splat(-0.0).0) })
            }
        }
    };
}
pub(super) use x86_ops;

/// Inside `impl Lane for $v`: `splat`, `sqrt`, `min_any`, `max_any` (`vminps a, b` is
/// `a < b ? a : b`: `b` where either is NaN or both are zeros, the order the kernels rely
/// on), `mul_plus_zero` (one FMA), `write`, `from_fn`.
macro_rules! x86_lane_fns {
    ($v:ident, $t:ty, $width:literal, set1 $set1:path, sqrt $sqrt:path, min $min:path,
     max $max:path, fma $fma:path, storeu $storeu:path) => {
        #[inline(always)]
        fn splat(x: $t) -> $v {
            // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
            $v(unsafe { $set1(x) })
        }
        #[inline(always)]
        fn sqrt(self) -> $v {
            // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
            $v(unsafe { $sqrt(self.0) })
        }
        #[inline(always)]
        fn min_any(self, o: $v) -> $v {
            // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
            $v(unsafe { $min(self.0, o.0) })
        }
        #[inline(always)]
        fn max_any(self, o: $v) -> $v {
            // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
            $v(unsafe { $max(self.0, o.0) })
        }
        #[inline(always)]
        fn mul_plus_zero(self, o: $v) -> $v {
            // SAFETY: these lanes run only on CPUs with their level (`simd/x86.rs`).
            $v(unsafe { $fma(self.0, o.0, <$v as Lane>::splat(0.0).0) })
        }
        #[inline(always)]
        fn write(self, out: &mut [$t]) {
            let out = &mut out[..$width];
            // SAFETY: `out` holds `$width` values (the slice above panics otherwise), the
            // store is unaligned; these lanes run only on CPUs with their level.
            unsafe { $storeu(out.as_mut_ptr().cast(), self.0) }
        }
        #[inline(always)]
        fn from_fn(f: impl FnMut(usize) -> $t) -> $v {
            let a: [$t; $width] = core::array::from_fn(f);
            <$v as Load>::load(&a)
        }
    };
}
pub(super) use x86_lane_fns;

/// Inside `impl Load for $v`: `load`, one unaligned load.
macro_rules! x86_load {
    ($v:ident, $t:ty, $width:literal, loadu $loadu:path) => {
        #[inline(always)]
        fn load(s: &[$t]) -> $v {
            let s = &s[..$width];
            // SAFETY: `s` holds `$width` values (the slice above panics otherwise), the load
            // is unaligned; these lanes run only on CPUs with their level.
            $v(unsafe { $loadu(s.as_ptr().cast()) })
        }
    };
}
pub(super) use x86_load;
