//! Polylines clipped to one rect, or to one rect per polyline (per geometry for
//! MultiLineStrings).
//!
//! ```text
//! for each block of polylines (rayon), for each polyline, 32 vertices at a time:
//!     one bit per coordinate: below the rect's lower bound (or NaN), above its upper bound
//!     segments with both ends inside      → Inside [0, 1]: runs of them copied at once
//!     both ends beyond one bound          → a miss (§1), skipped
//!     the rest (they cross an edge)       → the segment clip (slab-scalar), its cut vertices
//!                                           Clip::segment's; joined into parts (join.rs)
//! ```

use core::ops::Range;

use super::join::{Joiner, Tag};
use super::{Coords, Layout, MultiPolylines, PartOptions, Parts, Polylines};
use crate::error::Error;
use crate::geom::Rect;
use crate::kernels::{ClipKernel, SlabScalar};
use crate::real::Real;
use crate::simd::{dispatch, Vector};

/// The rect of each item.
#[derive(Clone, Copy)]
pub(crate) enum RectsFor<'r, F> {
    /// One rect for every polyline.
    One(Rect<F>),
    /// `rects[item]`.
    Each(&'r [Rect<F>]),
}

impl<F: Real> RectsFor<'_, F> {
    #[inline(always)]
    fn get(&self, item: usize) -> &Rect<F> {
        match self {
            RectsFor::One(r) => r,
            RectsFor::Each(r) => &r[item],
        }
    }
}

impl<'a, F: Real> Polylines<'a, F> {
    /// Clips every polyline to `rect` (SPEC §7), replacing what `out` held: the parts, and the
    /// single points of contact when `options.points` (see the [module docs](super)).
    pub fn clip(&self, rect: &Rect<F>, options: &PartOptions, out: &mut Parts<F>) {
        clip_layout(&self.layout(), RectsFor::One(*rect), options, out);
    }

    /// Clips polyline `j` to `rects[j]`, for every `j`. `rects` must hold one rect per
    /// polyline ([`Error::LengthMismatch`] naming `rects`, before any work).
    pub fn clip_each(
        &self,
        rects: &[Rect<F>],
        options: &PartOptions,
        out: &mut Parts<F>,
    ) -> Result<(), Error> {
        check_rects(rects, self.len())?;
        clip_layout(&self.layout(), RectsFor::Each(rects), options, out);
        Ok(())
    }
}

impl<'a, F: Real> MultiPolylines<'a, F> {
    /// Clips every polyline of every geometry to `rect`; parts carry both indices.
    pub fn clip(&self, rect: &Rect<F>, options: &PartOptions, out: &mut Parts<F>) {
        clip_layout(&self.layout(), RectsFor::One(*rect), options, out);
    }

    /// Clips the polylines of geometry `g` to `rects[g]`, for every `g`: one rect per
    /// *geometry* ([`Error::LengthMismatch`] naming `rects` otherwise).
    pub fn clip_each(
        &self,
        rects: &[Rect<F>],
        options: &PartOptions,
        out: &mut Parts<F>,
    ) -> Result<(), Error> {
        check_rects(rects, self.len())?;
        clip_layout(&self.layout(), RectsFor::Each(rects), options, out);
        Ok(())
    }
}

fn check_rects<F>(rects: &[Rect<F>], n: usize) -> Result<(), Error> {
    if rects.len() == n {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what: "rects",
            expected: n,
            found: rects.len(),
        })
    }
}

fn clip_layout<F: Real>(
    layout: &Layout<'_, '_, F>,
    rects: RectsFor<'_, F>,
    options: &PartOptions,
    out: &mut Parts<F>,
) {
    F::clip_polylines(layout, rects, options, out);
}

/// [`clip_layout`] itself, compiled once per precision (`simd::entries`): each block of
/// polylines at the chosen level (their windows' codes on that level's vectors).
pub(crate) fn clip_layout_at<F: Real>(
    layout: &Layout<'_, '_, F>,
    rects: RectsFor<'_, F>,
    options: &PartOptions,
    out: &mut Parts<F>,
) {
    layout.run(out, |block, out| {
        let coords = layout.lines.coords();
        // One dispatch a block: the loop over its polylines is compiled at each level.
        dispatch!(I => layout.for_each_line(
            block,
            #[inline(always)]
            |line| {
                if line.vertices.len() < 2 {
                    return;
                }
                let tag = Tag {
                    polyline: line.index,
                    geometry: layout.geometry.map(|_| line.item),
                    cell: None,
                };
                let mut j = Joiner::new(tag, options.points);
                let (rect, vertices) = (rects.get(line.item), line.vertices);
                clip_line::<F, F::Simd<I>>(&coords, vertices, rect, &mut j, out);
                j.close(out);
            }
        ));
    });
}

/// Vertices per window of [`Codes`]: 32 interleaved `(x, y)` pairs fill a 64-bit mask.
const WINDOW: usize = 32;

/// Where a window of vertices lies against the rect, one bit per coordinate: bit `2k` for
/// vertex `k`'s `x`, `2k + 1` for its `y`. `lo` is set where the coordinate is below the rect's
/// lower bound or NaN, `hi` where it is above the upper bound or NaN (`!(v ≥ lo)`,
/// `!(v ≤ hi)`).
#[derive(Clone, Copy)]
struct Codes {
    lo: u64,
    hi: u64,
}

/// Every `x` bit (the even ones).
const EVEN: u64 = 0x5555_5555_5555_5555;

impl Codes {
    /// The codes of the interleaved values `v` (at most 64), bounds `lo = [xmin, ymin]`,
    /// `hi = [xmax, ymax]`: 64 values at once on vectors ([`below_above`]), a shorter window
    /// padded.
    #[inline(always)]
    fn of_interleaved<F: Real, V: Vector<F>>(v: &[F], lo: [F; 2], hi: [F; 2]) -> Codes {
        let (lo, hi) = match <&[F; 2 * WINDOW]>::try_from(v) {
            Ok(w) => below_above::<F, V, 64>(w, lo, hi),
            Err(_) => Self::of_short::<F, V>(v, lo, hi),
        };
        Codes { lo, hi }
    }

    /// The bits of fewer than 64 values (an array's last window), padded with zeros: out of the
    /// loop, so that full windows do not clear a pad. Bits past `v.len()` are not read.
    #[cold]
    #[inline(never)]
    fn of_short<F: Real, V: Vector<F>>(v: &[F], lo: [F; 2], hi: [F; 2]) -> (u64, u64) {
        let mut pad = [F::ZERO; 2 * WINDOW];
        pad[..v.len()].copy_from_slice(v);
        below_above::<F, V, 64>(&pad, lo, hi)
    }

    /// The codes of vertices `x[k], y[k]` (at most 32 of them): each column's bits, spread to
    /// the even (`x`) and odd (`y`) positions.
    #[inline(always)]
    fn of_columns<F: Real, V: Vector<F>>(x: &[F], y: &[F], lo: [F; 2], hi: [F; 2]) -> Codes {
        let (xl, xh) = Self::column::<F, V>(x, lo[0], hi[0]);
        let (yl, yh) = Self::column::<F, V>(y, lo[1], hi[1]);
        Codes {
            lo: xl | yl << 1,
            hi: xh | yh << 1,
        }
    }

    /// One column's bits at the even positions. A function, not a closure: closures are not
    /// always inlined, and the level's lanes must be, into the dispatched loop.
    #[inline(always)]
    fn column<F: Real, V: Vector<F>>(c: &[F], lo: F, hi: F) -> (u64, u64) {
        let (l, h) = match <&[F; WINDOW]>::try_from(c) {
            Ok(w) => below_above::<F, V, 32>(w, [lo; 2], [hi; 2]),
            Err(_) => Self::of_short::<F, V>(c, [lo; 2], [hi; 2]),
        };
        (spread(l as u32), spread(h as u32))
    }

    /// Segment `k` (vertex `k` to `k + 1`) at bit `2k`: `(inside, careful)`. Inside: both ends
    /// in the closed rect (SPEC §1: `[0, 1]`, the ends bit for bit). A miss: both ends below
    /// (or both above) the same bound, or a NaN coordinate with the other end outside: no
    /// piece. Careful: the rest, which the segment clip decides.
    #[inline(always)]
    fn segments(self, segments: usize) -> (u64, u64) {
        let valid = EVEN & (u64::MAX >> (64 - 2 * segments));
        let out = self.lo | self.hi;
        let out_v = (out | out >> 1) & EVEN;
        let inside = !out_v & !(out_v >> 2) & valid;
        let share = (self.lo & self.lo >> 2) | (self.hi & self.hi >> 2);
        let miss = (share | share >> 1) & EVEN;
        (inside, valid & !inside & !miss)
    }
}

/// Bit `k` of `(below, above)`: `!(v[k] ≥ lo[k % 2])`, `!(v[k] ≤ hi[k % 2])` (both set for
/// NaN), for `N` = 32 or 64 values: a compare and a move-mask per vector of `V` (the level's
/// lanes), the same bits as the scalar compares.
#[inline(always)]
fn below_above<F: Real, V: Vector<F>, const N: usize>(
    v: &[F; N],
    lo: [F; 2],
    hi: [F; 2],
) -> (u64, u64) {
    // `V::WIDTH` is even: lane `l` holds an `x` where `l` is even, as the values do.
    let (l, h) = (V::from_fn(|k| lo[k % 2]), V::from_fn(|k| hi[k % 2]));
    let (mut b, mut a) = (0u64, 0u64);
    for (c, x) in v.chunks_exact(V::WIDTH).enumerate() {
        let x = V::load(x);
        b |= V::bits(x.ge(l)) << (V::WIDTH * c);
        a |= V::bits(x.le(h)) << (V::WIDTH * c);
    }
    // The compares found `v ≥ lo` and `v ≤ hi` (both false for NaN): their complements, over
    // the `N` values.
    let all = u64::MAX >> (64 - N);
    (!b & all, !a & all)
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

/// Clips the polyline of `vertices` to `rect` into `j`: windows of [`WINDOW`] vertices
/// (overlapping by one) classified by [`Codes`]; runs of inside segments copied at once
/// ([`Joiner::inside`]), misses skipped, every other segment clipped by
/// [`SlabScalar::clip_one`] (the vector slab's bits: both run one body), its cut vertices
/// [`Clip::segment`](crate::Clip::segment)'s.
#[inline(always)]
fn clip_line<F: Real, V: Vector<F>>(
    coords: &Coords<'_, F>,
    vertices: Range<usize>,
    rect: &Rect<F>,
    j: &mut Joiner,
    out: &mut Parts<F>,
) {
    let (lo, hi) = ([rect.xmin(), rect.ymin()], [rect.xmax(), rect.ymax()]);
    let mut w = vertices.start;
    while w + 1 < vertices.end {
        let e = (w + WINDOW).min(vertices.end);
        let codes = match coords {
            // Values past the window's end (when the array has them) only fill the vectors:
            // their bits are not read.
            Coords::Interleaved(v) => {
                Codes::of_interleaved::<F, V>(&v[2 * w..(2 * (w + WINDOW)).min(v.len())], lo, hi)
            }
            Coords::Separated { x, y } => {
                let end = (w + WINDOW).min(x.len());
                Codes::of_columns::<F, V>(&x[w..end], &y[w..end], lo, hi)
            }
        };
        let (inside, careful) = codes.segments(e - w - 1);
        let mut todo = inside | careful;
        while todo != 0 {
            let k = todo.trailing_zeros() as usize;
            let i = w + k / 2;
            if inside >> k & 1 == 1 {
                // The run of inside segments from `k`.
                let n = (!(inside >> k) & EVEN).trailing_zeros() as usize / 2;
                j.inside(out, i..i + n, coords);
                todo &= !(u64::MAX >> (64 - 2 * n) << k);
            } else {
                clip_piece(coords, i, rect, j, out);
                todo &= todo - 1;
            }
        }
        w = e - 1;
    }
}

/// Segment `i` clipped alone and given to `j` (no piece on a miss or a non-finite coordinate).
#[inline(never)]
fn clip_piece<F: Real>(
    coords: &Coords<'_, F>,
    i: usize,
    rect: &Rect<F>,
    j: &mut Joiner,
    out: &mut Parts<F>,
) {
    let seg = coords.segment(i);
    let c = SlabScalar::clip_one(rect, &seg);
    if !c.is_hit() {
        return;
    }
    let ends = c.segment(rect, &seg);
    j.piece(out, i, c.t_entry, c.t_exit, |end| {
        if end {
            (ends.x1, ends.y1)
        } else {
            (ends.x0, ends.y0)
        }
    });
}
