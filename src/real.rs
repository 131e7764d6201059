//! The two number types slabclip computes in, and the lane abstraction the kernels are written over.
//!
//! Every kernel is written once, over [`Lane`]: a scalar `f32` or `f64` is a lane of width one
//! (`scalar.rs`), and a SIMD vector is a lane of width 4 to 16 (`simd/`). Because the scalar and
//! vector paths run the *same* sequence of IEEE operations per lane, they give the same bits.
//!
//! The layers point one way: this file holds the two traits (naming only `simd`'s level marker
//! and vector traits); `simd/` implements [`Lane`] for the vectors; `scalar.rs` implements both
//! traits for `f32` and `f64` and names each one's vector type at each level.

use core::fmt::{Debug, Display};
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The bits of a lane value `CODE_BIAS + i` that hold `i` ([`Lane::gather_biased`]).
pub(crate) const INDEX_BITS: u64 = (1 << 23) - 1;

/// The `i` of a lane value `CODE_BIAS + i`: integers (positions, line indices) ride in float
/// lanes that way, exact for `0 ≤ i < 2²³` ([`INDEX_BITS`]).
#[inline(always)]
pub(crate) fn biased_index<F: Real>(x: F) -> usize {
    (x.to_bits_u64() & INDEX_BITS) as usize
}

/// One or more values of a float type, with the branch-free operations the kernels need.
///
/// Comparisons return a [`Lane::Mask`]; [`Lane::select`] picks per lane. For the scalar lanes the
/// mask is a `bool` and `select` is an `if`, which the compiler turns into a conditional move; for
/// AVX-512 vectors it is a mask register.
pub trait Lane:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Per-lane truth values.
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;
    /// The scalar type of one lane.
    type Scalar: Real;
    /// How many lanes: 1 for a scalar.
    const WIDTH: usize;

    /// Every lane set to `x`.
    fn splat(x: Self::Scalar) -> Self;
    /// `a` where `m` is true, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// `self < o`; false where either is NaN.
    fn lt(self, o: Self) -> Self::Mask;
    /// `self <= o`; false where either is NaN.
    fn le(self, o: Self) -> Self::Mask;
    /// `self == o`; `0.0 == -0.0` is true, NaN equals nothing.
    fn eq_(self, o: Self) -> Self::Mask;
    /// Neither NaN nor ±∞.
    fn finite(self) -> Self::Mask;
    /// `self ≤ o` comparing the bits as signed integers: the float order where `self` is `+0`
    /// or positive, with every `o` whose sign bit is set (`-0.0` included) below it. NaN
    /// lanes compare by their bits too.
    fn le_bits(self, o: Self) -> Self::Mask;
    /// Whether the bits are equal: `0.0` and `-0.0` differ, and a NaN equals its own bits.
    fn eq_bits(self, o: Self) -> Self::Mask;
    /// Whether any lane of `m` is true.
    fn any(m: Self::Mask) -> bool;
    /// Bit `l` set where lane `l` of `m` is true (a move-mask).
    fn bits(m: Self::Mask) -> u64;
    /// `|self|` (clears the sign bit; NaN stays NaN).
    fn abs(self) -> Self;
    /// The square root, correctly rounded (IEEE), lane by lane.
    fn sqrt(self) -> Self;
    /// `self < o ? self : o`, lane by lane: the x86 `minps` rule, so `o` comes back where either
    /// is NaN, and `o` for `min(-0.0, 0.0)`. Kernels rely on the operand order: a NaN in `self`
    /// drops out (see `contract::slab`).
    fn min_any(self, o: Self) -> Self;
    /// `self > o ? self : o`, lane by lane: the x86 `maxps` rule (`o` where either is NaN).
    fn max_any(self, o: Self) -> Self;
    /// Writes the lanes to `out[..WIDTH]`. Panics if `out` is shorter.
    fn write(self, out: &mut [Self::Scalar]);
    /// [`write`](Lane::write) for outputs far larger than the caches: a non-temporal
    /// (streaming) store where the lane type has one and `out` starts on a vector-aligned
    /// address, which writes the line without reading it first. Weakly ordered: the loop that
    /// streams ends with a store fence (`simd::stream_fence`). Panics if `out` is shorter than
    /// `WIDTH`. Only the AVX-512 lanes stream, a whole 64-byte line per store: 32-byte streaming
    /// stores in the AVX2 build (`wide`'s 8 lanes) made `simd-slab` 3× slower at 16M (`mixed`,
    /// 0.21 against 0.67–0.69 Gseg/s), and 16-byte ones were slower too.
    #[inline(always)]
    fn write_stream(self, out: &mut [Self::Scalar]) {
        self.write(out)
    }
    /// Writes the low byte of each lane's bits to `out[..WIDTH]` (class codes leave the float
    /// lanes this way: see `Class::code_lanes`). Panics if `out` is shorter.
    fn write_low_bytes(self, out: &mut [u8]);
    /// Lane `l` set to `f(l)`.
    fn from_fn(f: impl FnMut(usize) -> Self::Scalar) -> Self;

    /// `table[i]` in each lane that holds `CODE_BIAS + i` (an index riding in a float lane: its
    /// bits end in `i`, for `i < 2²³`), with `i` clamped to the table's last entry, so every
    /// read is in bounds whatever the lanes hold. One gather instruction on AVX-512. Panics if
    /// `table` is empty.
    #[inline(always)]
    fn gather_biased(self, table: &[Self::Scalar]) -> Self {
        let last = table.len() - 1;
        let mut idx = [Self::Scalar::ZERO; 16];
        self.write(&mut idx);
        Self::from_fn(|l| table[biased_index(idx[l]).min(last)])
    }

    /// `self · o + 0`, the product rounded once: one FMA where the build has one, else a
    /// product and a sum, which give the same bits unless the product underflows to zero
    /// (then the FMA keeps the exact product's sign). The slab's fast path
    /// (`contract::axis_t_fast`) uses it only where no product underflows.
    #[inline(always)]
    fn mul_plus_zero(self, o: Self) -> Self {
        self * o + Self::splat(Self::Scalar::ZERO)
    }

    /// Whether `self` and `o` (the coordinate differences of a segment's two axes) are each `+0`
    /// (not `-0`: the caller may skip `contract::delta`'s `+ 0`),
    /// or normal with a magnitude at most `hi` (at most [`RANGE_HI`](Real::RANGE_HI): where
    /// `(bound − p)·(1/d)` keeps its precision, `contract::in_range`). False for NaN and ±∞. This default compares,
    /// with one test of the larger magnitude against `RANGE_HI` (`max` in the order that keeps
    /// a NaN of either); AVX-512 classifies each (`vfpclassps`) and ranges both at once
    /// (`vrangeps`). On real data most chunks hold an axis-parallel or zero-length segment
    /// (`d == 0`): a cheaper first test that such lanes fail sent most chunks to a second one
    /// (`compare --dist mixed`: 690 against 720 Mseg/s).
    #[inline(always)]
    fn in_range_both(self, o: Self, hi: Self::Scalar) -> Self::Mask {
        let (ax, ay) = (self.abs(), o.abs());
        let zero = Self::splat(Self::Scalar::ZERO);
        let lo = Self::splat(Self::Scalar::RANGE_LO);
        let ok = |d: Self, a: Self| lo.le(a) | d.eq_bits(zero);
        ok(self, ax) & ok(o, ay) & ay.max_any(ax).le(Self::splat(hi))
    }

    /// `m &` the slab's fast-path test (`contract::fast_range`) of a chunk, whose lanes then have
    /// only finite coordinates, differences (`self`, `o`: a segment's, or a ray's direction)
    /// that are `±0` or normal and at most `hi`, and no parameter that can underflow. Lane
    /// types may test a little more or less, so long as every lane they pass has those
    /// properties (`slab::slab_fast` gives the careful path's bits on all of them): this default
    /// tests the differences ([`Lane::in_range_both`]: `+0` or normal, at most `hi`) and the
    /// start `p[0]`, `p[1]` ([`Lane::not_tiny_both`]), which a compare and a blend of vectors
    /// do cheaply; AVX-512, where a compare into a mask register is the scarce kind, tests the
    /// four coordinates `p` (zero, or finite and at least [`FAST_LO`](Real::FAST_LO): then no
    /// difference is subnormal) and the larger of `|self|`, `|o|` with two masked compares.
    #[inline(always)]
    fn fast_range_both(self, o: Self, p: [Self; 4], hi: Self::Scalar, m: Self::Mask) -> Self::Mask {
        m & self.in_range_both(o, hi) & p[0].not_tiny_both(p[1])
    }

    /// `(a, b)` where the sign bit of `s` is clear, `(b, a)` where it is set (`-0.0` counts as
    /// negative; the kernels never ask it of NaN): a segment axis's `(lo, hi)` bounds in the
    /// order it crosses them. AVX-512 broadcasts the sign bit and selects bitwise (`vpsrad`,
    /// `vpternlogd`), and gets the other one by an exclusive or with `a ^ b`: no mask register
    /// (on Zen 4 the instructions that write mask registers are the scarce ones:
    /// `slab::slab_fast`) and no copy of the sign for a second select.
    #[inline(always)]
    fn order_by_sign(s: Self, a: Self, b: Self) -> (Self, Self) {
        let zero = Self::splat(Self::Scalar::ZERO);
        let negative = s.lt(zero) | s.eq_bits(-zero);
        (Self::select(negative, b, a), Self::select(negative, a, b))
    }

    /// `self` where `w < 0` (`-∞` included), `1` where `w` is `±0`, positive or NaN: one
    /// `vfixupimm` with AVX-512, a compare and a blend elsewhere.
    #[inline(always)]
    fn one_unless_negative(self, w: Self) -> Self {
        let zero = Self::splat(Self::Scalar::ZERO);
        Self::select(w.lt(zero), self, Self::splat(Self::Scalar::ONE))
    }

    /// `1` where `a` or `b` is `±0`, else `self`. Neither is NaN where the kernels ask. One
    /// `vrange` (the smaller magnitude) and one `vfixupimm` with AVX-512.
    #[inline(always)]
    fn one_where_either_zero(self, a: Self, b: Self) -> Self {
        Self::select(a.either_zero(b), Self::splat(Self::Scalar::ONE), self)
    }

    /// `m & (self <= o)`: one compare under a mask with AVX-512, where a compare and an `and`
    /// of masks would be two instructions.
    #[inline(always)]
    fn le_and(self, o: Self, m: Self::Mask) -> Self::Mask {
        m & self.le(o)
    }

    /// Whether neither `self` nor `o` is nonzero and below [`FAST_LO`](Real::FAST_LO) in
    /// magnitude (the slab's fast path asks it of a segment's start: `contract::fast_range`).
    /// NaN and ±∞ pass: the range test of the differences turns those away. AVX-512 makes
    /// zeros `+1` and compares the smaller magnitude (one test for both).
    #[inline(always)]
    fn not_tiny_both(self, o: Self) -> Self::Mask {
        let zero = Self::splat(Self::Scalar::ZERO);
        let lo = Self::splat(Self::Scalar::FAST_LO);
        let tiny = |v: Self| {
            let a = v.abs();
            zero.lt(a) & a.lt(lo)
        };
        !(tiny(self) | tiny(o))
    }

    /// `self` where `w` is nonzero, `+∞` where `w` is `±0`: one `vfixupimm` with AVX-512, a
    /// compare and a blend elsewhere.
    #[inline(always)]
    fn inf_where_zero(self, w: Self) -> Self {
        let zero = Self::splat(Self::Scalar::ZERO);
        Self::select(w.eq_(zero), Self::splat(Self::Scalar::INFINITY), self)
    }

    /// Whether `self` or `o` is `±0`: the smaller magnitude (one `vrange`) against zero with
    /// AVX-512, two compares elsewhere. False for NaN.
    #[inline(always)]
    fn either_zero(self, o: Self) -> Self::Mask {
        let zero = Self::splat(Self::Scalar::ZERO);
        self.eq_(zero) | o.eq_(zero)
    }

    /// Whether `self` or `o` is a number other than `±0` (NaN counts as zero): the larger
    /// magnitude (one `vrange`) against zero with AVX-512, compares elsewhere.
    #[inline(always)]
    fn any_nonzero(self, o: Self) -> Self::Mask {
        let zero = Self::splat(Self::Scalar::ZERO);
        let nonzero = |v: Self| v.eq_(v) & !v.eq_(zero);
        nonzero(self) | nonzero(o)
    }

    /// `m & (self == o)`: one compare under a mask with AVX-512 (see [`Lane::le_and`]).
    #[inline(always)]
    fn eq_and(self, o: Self, m: Self::Mask) -> Self::Mask {
        m & self.eq_(o)
    }

    /// `f()`, inside a function compiled for the instruction set these lanes need (`Isa::run`
    /// in `simd/levels.rs`): out-of-line functions written over lanes (the careful paths,
    /// `#[inline(never)]`) wrap their bodies in it, so that their lane operations, inlined into
    /// `f`, are that instruction set's instructions rather than calls. `f()` itself for scalars
    /// and `wide`'s vectors.
    #[inline(always)]
    fn within<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// `self > o`.
    #[inline(always)]
    fn gt(self, o: Self) -> Self::Mask {
        o.lt(self)
    }
    /// `self >= o`.
    #[inline(always)]
    fn ge(self, o: Self) -> Self::Mask {
        o.le(self)
    }
}

/// A scalar float type slabclip supports: `f32` or `f64`. Sealed: these two only.
pub trait Real:
    Lane<Mask = bool, Scalar = Self>
    + sealed::Sealed
    + crate::simd::Kernels
    + PartialOrd
    + PartialEq
    + Debug
    + Display
    + Default
    + Send
    + Sync
    + bytemuck::Pod
    + 'static
{
    /// `0.0`.
    const ZERO: Self;
    /// `1.0`.
    const ONE: Self;
    /// `0.5`, the scale used when coordinate differences would overflow.
    const HALF: Self;
    /// The largest value below one, `1 − ε/2`: the ceiling of `t_entry` and `t_exit` unless an
    /// endpoint makes them exactly 1.
    const ONE_BELOW: Self;
    /// `1 + 4ε`: a boundary parameter (`contract::line_t`, four roundings to nearest) whose
    /// exact value is at most 1 is at most this. The grid walk visits the cells of lines up to
    /// here: a line with an exact parameter of 1 or a hair below can round above 1, and the cell
    /// beyond it may hold `P1`.
    const ONE_REACH: Self;
    /// `1 − 2ε`: with both ends outside, a rounded entry at or above this is no hit (see
    /// `contract::Ends::graze_top`).
    const GRAZE_TOP: Self;
    /// The smallest positive (subnormal) value: the floor of a boundary parameter that is not
    /// exactly 0, so that an underflow never passes for an endpoint.
    const TINY: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// `+∞`.
    const INFINITY: Self;
    /// The largest finite value.
    const LARGEST: Self;
    /// The smallest positive normal value (`2^-126`, `2^-1022`): a coordinate difference at
    /// least this large has a finite reciprocal.
    const RANGE_LO: Self;
    /// `2^126` (`f32`) or `2^1022` (`f64`): a coordinate difference at most this large has a
    /// normal reciprocal, so `(bound − p)·(1/d)` keeps its precision.
    const RANGE_HI: Self;
    /// `2^60` (`f32`) or `2^400` (`f64`): the slab's fast path takes coordinate differences up to
    /// this, with coordinates and bounds zero or at least [`FAST_LO`](Real::FAST_LO). Then a
    /// nonzero `bound − p` is at least `2^-83` (`2^-452`) and `1/d` at least `2^-60`
    /// (`2^-400`), so no parameter underflows to zero (`contract::fast_range`).
    const FAST_HI: Self;
    /// `2^-60` (`f32`) or `2^-400` (`f64`): see [`FAST_HI`](Real::FAST_HI).
    const FAST_LO: Self;
    /// `2^23` (`f32`) or `2^52` (`f64`): the ulp is 1 there, so `CODE_BIAS + k` for a byte `k`
    /// has `k` as the low byte of its bits (how class codes leave the float lanes).
    const CODE_BIAS: Self;
    /// The NumPy dtype name, `"float32"` or `"float64"`.
    const DTYPE: &'static str;

    /// Converts from `f64`, rounding to nearest.
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// The IEEE bits, widened to 64.
    fn to_bits_u64(self) -> u64;
    /// The least value greater than `self` (`+∞` stays `+∞`).
    fn next_up(self) -> Self;

    /// The SIMD vector of this type at one instruction-set level (crate-internal: the levels
    /// are `simd::Level`'s, and `simd::dispatch!` picks one per batch).
    #[doc(hidden)]
    type Simd<I: crate::simd::isa::Isa>: crate::simd::Vector<Self>;
    /// A vector of four lanes of this type at the baseline level, whatever the CPU's (the
    /// scene's 4-wide nodes and leaves).
    type Simd4: Lane<Scalar = Self> + crate::simd::Load;
}

/// Writes `f` of each lane of `v` to `out[..L::WIDTH]` (for outputs that are not floats:
/// indices). Panics if `out` is shorter.
#[inline(always)]
pub(crate) fn write_as<L: Lane, T>(v: L, out: &mut [T], f: impl Fn(L::Scalar) -> T) {
    let mut lanes = [L::Scalar::ZERO; 16];
    v.write(&mut lanes);
    for (dst, x) in out[..L::WIDTH].iter_mut().zip(lanes) {
        *dst = f(x);
    }
}
