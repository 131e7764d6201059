//! `Lane::mul_up` (the slab's parameter product, rounded toward +∞) against exact rationals:
//! the scalar software versions, and the build's vector lanes, which must give the same bits.

use proptest::prelude::*;
use slabclip::reference::q;
use slabclip::{Lane, Real};

/// Checks `got` is `a·b` rounded up: the least float at or above the exact product (`+0` for an
/// exact zero; `-0` for a negative product that rounds up to zero; `-MAX` below `-MAX`).
fn check<F: Down>(a: F, b: F, got: F) {
    if a.to_f64().is_nan() || b.to_f64().is_nan() {
        assert!(got.to_f64().is_nan(), "{a} · {b} gave {got}");
        return;
    }
    let inf = |x: F| x.to_f64().is_infinite();
    if inf(a) || inf(b) {
        let want = a.to_f64() * b.to_f64();
        assert!(
            want.is_nan() == got.to_f64().is_nan(),
            "{a} · {b} gave {got}"
        );
        if !want.is_nan() {
            assert_eq!(got.to_f64(), want, "{a} · {b}");
        }
        return;
    }
    let exact = q(a) * q(b);
    let zero = F::ZERO;
    if exact == q(zero) {
        assert_eq!(
            got.to_bits_u64(),
            zero.to_bits_u64(),
            "{a} · {b} must be +0, got {got}"
        );
        return;
    }
    if got.to_f64().is_infinite() {
        assert!(got > zero, "{a} · {b} rounded up to -inf");
        assert!(
            q(F::INFINITY.next_down_finite()) < exact,
            "{a} · {b} overflowed too early"
        );
        return;
    }
    assert!(
        q(got) >= exact,
        "{a} · {b}: {got} is below the exact product"
    );
    let below = got.next_down_finite();
    if !below.to_f64().is_infinite() {
        assert!(
            q(below) < exact,
            "{a} · {b}: {got} is not the least float above"
        );
    }
    if got == zero {
        assert!(
            exact < q(zero) && got.to_bits_u64() != zero.to_bits_u64(),
            "{a}·{b}: {got}"
        );
    }
}

trait Down: Real {
    /// The greatest float below `self` (`-MAX` below `-MAX`'s neighbour stays finite).
    fn next_down_finite(self) -> Self;
}
impl Down for f32 {
    fn next_down_finite(self) -> f32 {
        if self == f32::INFINITY {
            f32::MAX
        } else {
            self.next_down()
        }
    }
}
impl Down for f64 {
    fn next_down_finite(self) -> f64 {
        if self == f64::INFINITY {
            f64::MAX
        } else {
            self.next_down()
        }
    }
}

/// Scalar, then every lane of the build's vector with the same operands in every position.
fn both<F: Down>(a: F, b: F) {
    let got = a.mul_up(b);
    check(a, b, got);
    let va = F::Simd::from_fn(|l| if l % 2 == 0 { a } else { b });
    let vb = F::Simd::from_fn(|l| if l % 2 == 0 { b } else { a });
    let mut out = [F::ZERO; 16];
    va.mul_up(vb).write(&mut out);
    for (l, x) in out[..F::LANES].iter().enumerate() {
        assert_eq!(
            x.to_bits_u64(),
            got.to_bits_u64(),
            "{a} · {b}, lane {l}: {x} against {got}"
        );
    }
}

/// The values every table of products needs, in `F`, then `extra`, the type's own.
fn edges<F: Real>(extra: &[F]) -> Vec<F> {
    let common = [0.0, -0.0, 1.0, -1.0, 3.0, 1.0 / 3.0, 0.1, 1e20, -3.5e19];
    let mut v: Vec<F> = common.iter().map(|&x| F::from_f64(x)).collect();
    v.extend([F::INFINITY, -F::INFINITY, F::NAN, F::TINY, -F::TINY]);
    v.extend([F::RANGE_LO, F::RANGE_HI, F::ONE_BELOW, F::ONE_REACH]);
    v.extend_from_slice(extra);
    v
}

fn edges_f32() -> Vec<f32> {
    let (max, eps) = (f32::MAX, f32::EPSILON);
    edges(&[
        max,
        -max,
        f32::from_bits(0x007f_ffff),
        1e-30,
        7e-39,
        1.0 - eps,
        1.0 + eps,
    ])
}

fn edges_f64() -> Vec<f64> {
    let (max, eps) = (f64::MAX, f64::EPSILON);
    let p = |k: i32| 2f64.powi(k);
    edges(&[
        max,
        -max,
        f64::from_bits(0x000f_ffff_ffff_ffff),
        1.0 - eps,
        1.0 + eps,
        1e200,
        -3.5e150,
        1e-300,
        p(-969),
        1.5 * p(-520),
        -1.25 * p(-500),
        1e-160,
        3e-170,
    ])
}

#[test]
fn every_pair_of_edge_values() {
    for &a in &edges_f32() {
        for &b in &edges_f32() {
            both(a, b);
        }
    }
    for &a in &edges_f64() {
        for &b in &edges_f64() {
            both(a, b);
        }
    }
}

/// Products that round onto or next to a power of two, from either side and with either sign
/// (where the vector emulation's step up has the least room), at several scales.
#[test]
fn products_next_to_powers_of_two() {
    for scale in [-120, -60, -1, 0, 1, 60, 100] {
        for i in -4i32..=4 {
            for j in -4i32..=4 {
                let a = (1.0 + i as f32 * f32::EPSILON / 2.0) * 2f32.powi(scale);
                let b = 1.0 + j as f32 * f32::EPSILON;
                both(a, b);
                both(-a, b);
                let a = (1.0 + i as f64 * f64::EPSILON / 2.0) * 2f64.powi(scale * 8);
                let b = 1.0 + j as f64 * f64::EPSILON;
                both(a, b);
                both(-a, b);
            }
        }
    }
}

/// Any bits: NaN, infinities, subnormals, overflow and underflow all come up.
fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (-1e3f32..1e3),
        (-1.0f32..1.0)
    ]
}
fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        (-1e3f64..1e3),
        // Products near the underflow and overflow edges.
        (-1100i32..1100, any::<u64>()).prop_map(|(e, m)| f64::from_bits(m >> 12 | 1023u64 << 52)
            * 2f64.powi(e / 2)
            * 2f64.powi(e - e / 2)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]
    #[test]
    fn random_f32(a in any_f32(), b in any_f32()) {
        both(a, b);
    }
    #[test]
    fn random_f64(a in any_f64(), b in any_f64()) {
        both(a, b);
    }
}
