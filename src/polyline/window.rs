//! Where a window of a polyline's vertices lies against two bounds per axis, one bit per
//! coordinate, on the level's vectors: how the rect clip and the tilings find the runs of
//! segments they settle at once.
//!
//! Bit `2k` is vertex `w + k`'s `x`, bit `2k + 1` its `y`. Each bit is one IEEE compare, the
//! same as the scalar one.

use super::Coords;
use crate::real::Real;
use crate::simd::{prefetch, Vector, PREFETCH_AHEAD};

/// Vertices per window: 32 interleaved `(x, y)` pairs fill a 64-bit mask.
pub(super) const WINDOW: usize = 32;

/// Every `x` bit (the even ones).
pub(super) const EVEN: u64 = 0x5555_5555_5555_5555;

/// The bits of the vertices `w .. w + WINDOW` (as many as the array has; past its end the
/// bits are zero, and bits of vertices past the polyline's end are the next polyline's: the
/// caller masks them), bounds `lo = [xmin, ymin]`, `hi = [xmax, ymax]`:
///
/// * `STRICT = false`: `(!(v ≥ lo), !(v ≤ hi))`, below or above the bound (both for NaN);
/// * `STRICT = true`: `(v > lo, v < hi)` (neither for NaN).
#[inline(always)]
pub(super) fn bits<F: Real, V: Vector<F>, const STRICT: bool>(
    coords: &Coords<'_, F>,
    w: usize,
    lo: [F; 2],
    hi: [F; 2],
) -> (u64, u64) {
    match coords {
        // Values past the window's end (when the array has them) only fill the vectors: their
        // bits are the next vertices'.
        Coords::Interleaved(v) => {
            prefetch_window(v[2 * w..].as_ptr(), 2 * WINDOW);
            let v = &v[2 * w..(2 * (w + WINDOW)).min(v.len())];
            match <&[F; 2 * WINDOW]>::try_from(v) {
                Ok(v) => compare::<F, V, 64, STRICT>(v, lo, hi),
                Err(_) => short::<F, V, STRICT>(v, lo, hi),
            }
        }
        Coords::Separated { x, y } => {
            prefetch_window(x[w..].as_ptr(), WINDOW);
            prefetch_window(y[w..].as_ptr(), WINDOW);
            let end = (w + WINDOW).min(x.len());
            let (xl, xh) = column::<F, V, STRICT>(&x[w..end], lo[0], hi[0]);
            let (yl, yh) = column::<F, V, STRICT>(&y[w..end], lo[1], hi[1]);
            (xl | yl << 1, xh | yh << 1)
        }
    }
}

/// Prefetches the lines of the `n` values from `p`, [`PREFETCH_AHEAD`] bytes on: the windows
/// read their coordinates in order, but between two windows lie the clips of the segments that
/// cross an edge, and the hardware prefetcher alone left the clip of 16M vertices (far beyond
/// the caches) at about half its speed in L2.
#[inline(always)]
fn prefetch_window<F>(p: *const F, n: usize) {
    let bytes = (n * core::mem::size_of::<F>()) as isize;
    let mut at = PREFETCH_AHEAD;
    while at < PREFETCH_AHEAD + bytes {
        prefetch(p, at);
        at += 64;
    }
}

/// One column's bits, spread to the even positions. A function, not a closure: closures are
/// not always inlined, and the level's lanes must be, into the dispatched loop.
#[inline(always)]
fn column<F: Real, V: Vector<F>, const STRICT: bool>(c: &[F], lo: F, hi: F) -> (u64, u64) {
    let (l, h) = match <&[F; WINDOW]>::try_from(c) {
        Ok(w) => compare::<F, V, 32, STRICT>(w, [lo; 2], [hi; 2]),
        Err(_) => short::<F, V, STRICT>(c, [lo; 2], [hi; 2]),
    };
    (spread(l as u32), spread(h as u32))
}

/// The bits of fewer than 64 values (an array's last window), padded with zeros (the pad's
/// bits are not read): out of the loop, so that full windows do not clear a pad.
#[cold]
#[inline(never)]
fn short<F: Real, V: Vector<F>, const STRICT: bool>(v: &[F], lo: [F; 2], hi: [F; 2]) -> (u64, u64) {
    let mut pad = [F::ZERO; 2 * WINDOW];
    pad[..v.len()].copy_from_slice(v);
    compare::<F, V, 64, STRICT>(&pad, lo, hi)
}

/// Bit `k` of the pair [`bits`] describes, for `N` = 32 or 64 values with the bounds of
/// `k % 2`: a compare and a move-mask per vector of `V` (the level's lanes).
#[inline(always)]
fn compare<F: Real, V: Vector<F>, const N: usize, const STRICT: bool>(
    v: &[F; N],
    lo: [F; 2],
    hi: [F; 2],
) -> (u64, u64) {
    // `V::WIDTH` is even: lane `l` holds an `x` where `l` is even, as the values do.
    let (l, h) = (V::from_fn(|k| lo[k % 2]), V::from_fn(|k| hi[k % 2]));
    let (mut b, mut a) = (0u64, 0u64);
    for (c, x) in v.chunks_exact(V::WIDTH).enumerate() {
        let x = V::load(x);
        if STRICT {
            b |= V::bits(x.gt(l)) << (V::WIDTH * c);
            a |= V::bits(x.lt(h)) << (V::WIDTH * c);
        } else {
            b |= V::bits(x.ge(l)) << (V::WIDTH * c);
            a |= V::bits(x.le(h)) << (V::WIDTH * c);
        }
    }
    if STRICT {
        (b, a)
    } else {
        // The compares found `v ≥ lo` and `v ≤ hi` (both false for NaN): their complements,
        // over the `N` values.
        let all = u64::MAX >> (64 - N);
        (!b & all, !a & all)
    }
}

/// Bit `k` of `x` moved to bit `2k`.
#[inline(always)]
fn spread(x: u32) -> u64 {
    let mut v = x as u64;
    v = (v | v << 16) & 0x0000_FFFF_0000_FFFF;
    v = (v | v << 8) & 0x00FF_00FF_00FF_00FF;
    v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    v = (v | v << 2) & 0x3333_3333_3333_3333;
    (v | v << 1) & EVEN
}

/// How many of the vertices whose bits `stay` holds at the even places are set, counted from
/// the first, at most `avail`; and whether the count reached `avail`.
#[inline(always)]
pub(super) fn leading_run(stay: u64, avail: usize) -> (usize, bool) {
    let n = ((!stay & EVEN).trailing_zeros() / 2) as usize;
    (n.min(avail), n >= avail)
}
