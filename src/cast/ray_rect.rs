//! Ray × rect: the slab method of segment clipping, on the range `[0, t_max]`.
//!
//! ```text
//! (t(xmin), t(xmax)) = axis_t(xmin, xmax, ox, dx)     (bound − o)·(1/d), within 6 ulps
//! (t(ymin), t(ymax)) = axis_t(ymin, ymax, oy, dy)     d == 0: all or nothing (slab)
//! raw                = from_slabs(slab(x), slab(y))   [max(near, 0), min(far, t_max)]
//! finish_ends        : t_entry = 0 iff O in the closed rect, t_exit = 0 only when the ray
//!                      leaves exactly at O; NaN on a miss or an invalid ray
//! ```
//!
//! The boundary parameter, the slab, the intersection of the two slabs and the finishing step
//! are the functions segment clipping uses (`kernels/contract.rs`, `kernels/slab.rs`); only the
//! denominator differs: a ray's direction `D` is exact, where a segment's `P1 − P0` is rounded.
//!
//! A hit whose entry parameter lies beyond the float range cannot be reported and is a miss:
//! once both parameters overflow to `∞`, a hit and a miss look alike, so none is claimed.

use super::{check_len, check_opt, check_t_max, put, RayLanes, RaysRef};
use crate::error::Error;
use crate::geom::{Axis, Class, Rect};
use crate::kernels::contract::{
    axis_t, axis_t_fast, fast_range, finish_ends, in_range, in_range_both, on_exit_edge,
    ray_axis_careful, slab, Ends, FarEnds, Finished, Raw, RectLanes,
};
use crate::kernels::simd_slab::{Broadcast, Placement, RectSource};
use crate::real::{Lane, Real};
use crate::simd::{dispatch, Vector};

/// One ray against one rect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayRect<F> {
    /// Where the ray enters the rect: `0` exactly iff `O` is inside; NaN on a miss.
    pub t_entry: F,
    /// Where it leaves it, at most `t_max`; NaN on a miss.
    pub t_exit: F,
    /// As for segments, with `t_max` in the place of `1` (e.g. `Exits`: `O` inside, leaves
    /// before `t_max`; `Touches`: one point in common). `Invalid` for a non-finite ray or
    /// `D = (0, 0)`.
    pub class: Class,
    /// The pair of edges `t_entry` came from (meaningful when `t_entry > 0`). Through a corner,
    /// x wins.
    pub entry_axis: Axis,
}

impl<F: Real> RayRect<F> {
    /// The outward unit normal of the edge the ray enters through, facing the ray: `(∓1, 0)` or
    /// `(0, ∓1)`. NaN on a miss or when `O` is inside (`t_entry == 0`).
    pub fn entry_normal(&self, dx: F, dy: F) -> (F, F) {
        if self.t_entry.to_f64().is_nan() || self.t_entry == F::ZERO {
            return (F::NAN, F::NAN);
        }
        let away = |d: F| if d > F::ZERO { -F::ONE } else { F::ONE };
        match self.entry_axis {
            Axis::X => (away(dx), F::ZERO),
            Axis::Y => (F::ZERO, away(dy)),
        }
    }
}

/// The finished ray × rect answer, lane by lane.
#[inline(always)]
pub(crate) fn ray_rect_lanes<L: Lane>(
    r: &RectLanes<L>,
    ray: &RayLanes<L>,
    t_max: L,
) -> Finished<L> {
    ray_rect_fast(r, ray, t_max).unwrap_or_else(|| ray_rect_careful(r, ray, t_max))
}

/// [`ray_rect_lanes`] where every direction is in `axis_t`'s range and every origin finite
/// (`ox + oy` is finite only then, or where it overflows), else `None`: as for segments
/// (`slab::slab_fast`), the vector loop then redoes the chunk from its index
/// ([`cast_with`]), so that the hot loop passes no vector to a call. Here only `D = (0, 0)`
/// is invalid.
#[inline(always)]
fn ray_rect_fast<L: Lane>(r: &RectLanes<L>, ray: &RayLanes<L>, t_max: L) -> Option<Finished<L>> {
    // `+ 0`, as the careful path adds it (`contract::delta`): a parallel axis has `+0.0`.
    let zero = L::splat(L::Scalar::ZERO);
    let (dx, dy) = (ray.dx + zero, ray.dy + zero);
    // The origin is finite (`ox + oy` is finite only then, or where it overflows): the
    // default `fast_range` tests the differences for that, and a ray's are its direction.
    let (ox, oy) = (ray.ox, ray.oy);
    let ok = fast_range(r, (dx, dy), [ox, oy, ox, oy]) & in_range_both(dx, dy);
    if L::any(!(ok & (ox + oy).finite())) {
        return None;
    }
    let tx = axis_t_fast(r.xmin, r.xmax, ray.ox, dx);
    let ty = axis_t_fast(r.ymin, r.ymax, ray.oy, dy);
    let valid = dx.any_nonzero(dy);
    // `finish_ray`'s answers from the signs of the parameters, as `contract::finish_slab` reads
    // them for segments: the entry is `+0` where no boundary is crossed inward after the
    // origin, else positive (`fast_range`: no underflow); the exit is 0 only when
    // the ray leaves exactly at the origin, and negative when the origin is beyond a bound it
    // moves away from. So a hit has `t_entry == 0` iff the origin is in the rect, and
    // `t_exit == 0` iff it leaves there, with no test of the origin; the far end
    // `O + t_max·D` is no input point and is decided on the rounded parameters, as there.
    let raw = Raw::from_slabs(slab(tx), slab(ty), t_max, valid);
    // A hit is `entry ≤ exit` with an entry below `t_max`, or at a finite `t_max` (the far
    // end in the rect, where the exit is `t_max` too): as the exit is at most `t_max`, one
    // compare with the exit capped at the largest finite value.
    let cap = raw.exit.min_any(L::splat(L::Scalar::LARGEST));
    let hit = raw.entry.le_and(cap, valid);
    let nan = L::splat(L::Scalar::NAN);
    Some(Finished {
        valid,
        t_entry: L::select(hit, raw.entry, nan),
        t_exit: L::select(hit, raw.exit, nan),
        hit_t: (raw.entry, raw.exit),
        entry_y: raw.entry_y,
        exit_y: raw.exit_y,
        hit,
        end_in: hit & raw.exit.ge(t_max),
    })
}

/// [`ray_rect_lanes`] for lanes out of the fast test: their parameters by `careful_t`, and
/// which lanes are valid found here.
#[inline(never)]
#[cold]
fn ray_rect_careful<L: Lane>(r: &RectLanes<L>, ray: &RayLanes<L>, t_max: L) -> Finished<L> {
    L::within(
        #[inline(always)]
        || {
            let zero = L::splat(L::Scalar::ZERO);
            let (dx, dy) = (ray.dx + zero, ray.dy + zero);
            let (ok_x, ok_y) = (in_range(dx), in_range(dy));
            let tx = axis_t(r.xmin, r.xmax, ray.ox, dx);
            let ty = axis_t(r.ymin, r.ymax, ray.oy, dy);
            let tx = ray_axis_careful((r.xmin, r.xmax), ray.ox, dx, ok_x, tx);
            let ty = ray_axis_careful((r.ymin, r.ymax), ray.oy, dy, ok_y, ty);
            finish_ray(r, ray, (dx, dy), (tx, ty), t_max, ray.valid())
        },
    )
}

/// Both slabs to the finished answer on `[0, t_max]`.
#[inline(always)]
fn finish_ray<L: Lane>(
    r: &RectLanes<L>,
    ray: &RayLanes<L>,
    (dx, dy): (L, L),
    (tx, ty): ((L, L), (L, L)),
    t_max: L,
    valid: L::Mask,
) -> Finished<L> {
    let zero = L::splat(L::Scalar::ZERO);
    let raw = Raw::from_slabs(slab(tx), slab(ty), t_max, valid);
    let start_in = r.contains(ray.ox, ray.oy);
    // From outside, the entry is positive even where it underflowed (as `finish_range` reports
    // it), so that `t_max = 0` never puts an outside origin in the rect.
    let entry = L::select(
        start_in,
        raw.entry,
        raw.entry.max_any(L::splat(L::Scalar::TINY)),
    );
    let ends = Ends {
        start_in,
        // t_max lies in [entry, exit]: the ray ends in the rect. Never for t_max = ∞ (no point
        // there), so parameters that overflowed to ∞ on both sides stay a miss.
        end_in: raw.exit.ge(t_max) & entry.le(t_max) & t_max.finite(),
        top: t_max,
        below_top: t_max,
        graze_top: t_max,
    };
    // For every chunk, as for segments (`contract::finish`): on rays starting on the edges a
    // branch on the rare lanes mispredicted (criterion `ray_rect_vs_segments`, 64K: 355 M rays/s
    // with the branch, against 526 M segments/s).
    let far = FarEnds {
        // The far end of a ray is no input point: decided on the rounded parameters above.
        end_on_entry: zero.lt(zero),
        start_on_exit: on_exit_edge(r, (ray.ox, ray.oy), (dx, dy)),
    };
    finish_ends(valid, ends, raw, |_| Some(far))
}

/// One ray against one rect. `t_max` NaN or negative is an [`Error::InvalidArgument`].
pub fn cast_rect_one<F: Real>(
    rect: &Rect<F>,
    ray: &super::Ray<F>,
    t_max: F,
) -> Result<RayRect<F>, Error> {
    check_t_max(t_max)?;
    Ok(one(rect, RayLanes::from(*ray), t_max))
}

#[inline(always)]
fn one<F: Real>(rect: &Rect<F>, ray: RayLanes<F>, t_max: F) -> RayRect<F> {
    let f = ray_rect_lanes(&RectLanes::splat(rect), &ray, t_max);
    let code = f.class_codes();
    RayRect {
        t_entry: f.t_entry,
        t_exit: f.t_exit,
        class: Class::from_code(code.to_bits_u64() as u8).unwrap_or(Class::Invalid),
        entry_axis: if f.entry_y { Axis::Y } else { Axis::X },
    }
}

/// Where ray × rect results go; `None` outputs are not computed into. Each buffer must be as
/// long as the batch.
#[derive(Debug, Default)]
pub struct RectCastOutput<'a, F> {
    /// `t_entry` per ray (NaN on a miss).
    pub t_entry: Option<&'a mut [F]>,
    /// `t_exit` per ray (NaN on a miss).
    pub t_exit: Option<&'a mut [F]>,
    /// Class codes per ray (see [`RayRect::class`]).
    pub class: Option<&'a mut [u8]>,
}

impl<F: Real> RectCastOutput<'_, F> {
    fn check(&self, n: usize) -> Result<(), Error> {
        check_opt("t_entry", n, &self.t_entry)?;
        check_opt("t_exit", n, &self.t_exit)?;
        check_opt("class", n, &self.class)
    }

    /// Writes the answers of the `L::WIDTH` rays from `i`.
    #[inline(always)]
    fn store<L: Lane<Scalar = F>>(&mut self, i: usize, f: &Finished<L>) {
        self.store_as::<L, true, false>(i, f)
    }

    /// [`store`](Self::store) for a loop built with (`CLASS`) or without class codes, and with
    /// streaming stores of the parameters (`NT`) or plain ones.
    #[inline(always)]
    fn store_as<L: Lane<Scalar = F>, const CLASS: bool, const NT: bool>(
        &mut self,
        i: usize,
        f: &Finished<L>,
    ) {
        for (out, t) in [(&mut self.t_entry, f.t_entry), (&mut self.t_exit, f.t_exit)] {
            match out.as_deref_mut() {
                Some(o) if NT => t.write_stream(&mut o[i..]),
                _ => put(out, i, t),
            }
        }
        if !CLASS {
            return;
        }
        if let Some(k) = self.class.as_deref_mut() {
            let codes = f.class_codes();
            codes.write_low_bytes(&mut k[i..]);
        }
    }
}

/// Ray `i` against `rects.rect(i)`, for every ray: SIMD lanes with a scalar tail. The loop is
/// built with class codes only when they are asked for (as `simd_slab::drive` builds its own):
/// one loop for both, the `t` loop measured 1.28 G rays/s against 1.45 now (criterion
/// `ray_rect_vs_segments`, 64K). It starts and streams as `simd-slab`'s does
/// (`simd_slab::Placement`: whole-line loads from 64K rays, streaming stores from 16 MiB).
#[inline(always)]
fn cast_with<F: Real, V: Vector<F>, R: RectSource<F, V> + ?Sized>(
    rects: &R,
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
) {
    let at = placement(rays, out, V::WIDTH);
    match (out.class.is_some(), at.stream) {
        (true, _) => cast_as::<F, V, R, true, false>(rects, rays, t_max, out, at),
        (false, true) => cast_as::<F, V, R, false, true>(rects, rays, t_max, out, at),
        (false, false) => cast_as::<F, V, R, false, false>(rects, rays, t_max, out, at),
    }
}

/// Where [`cast_with`]'s loop starts, whether it streams, which way it goes
/// ([`Placement`], the parameters being the outputs it places).
fn placement<F: Real>(
    rays: &RaysRef<'_, F>,
    out: &RectCastOutput<'_, F>,
    lanes: usize,
) -> Placement {
    let (e, x) = (out.t_entry.as_deref(), out.t_exit.as_deref());
    let columns = Some(rays.columns());
    let n = rays.len();
    match (e, x) {
        (Some(e), Some(x)) => Placement::of_columns(n, n, columns, &[e, x], lanes),
        (e, x) => Placement::of_columns(n, n, columns, e.or(x).as_slice(), lanes),
    }
}

/// [`cast_with`] with (`CLASS`) or without class codes, streaming (`NT`) or not, the loop
/// placed by `at`.
#[inline(always)]
fn cast_as<
    F: Real,
    V: Vector<F>,
    R: RectSource<F, V> + ?Sized,
    const CLASS: bool,
    const NT: bool,
>(
    rects: &R,
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
    at: Placement,
) {
    let n = rays.len();
    let tm = V::splat(t_max);
    if at.head > 0 {
        // The rays before the loop: the whole chunk from 0 (the same bits by the careful path;
        // the loop writes them again over its overlap).
        careful_chunk(rects, rays, t_max, out, 0);
    }
    let full = rays.for_each_chunk(
        at.head,
        at.backward,
        #[inline(always)]
        |i, ray| {
            let r = rects.lanes(i);
            match ray_rect_fast(&r, &ray, tm) {
                Some(f) => out.store_as::<_, CLASS, NT>(i, &f),
                None => careful_chunk(rects, rays, t_max, out, i),
            }
        },
    );
    if NT {
        crate::simd::stream_fence();
    }
    for i in full..n {
        let r = RectLanes::splat(&rects.rect(i));
        out.store(i, &ray_rect_lanes(&r, &RayLanes::from(rays.ray(i)), t_max));
    }
}

/// The chunk from `i` with a lane out of the fast test, loaded again: [`ray_rect_careful`].
/// Also the chunk before a loop that starts past 0: its bits are the fast path's.
#[inline(never)]
#[cold]
fn careful_chunk<F: Real, V: Vector<F>, R: RectSource<F, V> + ?Sized>(
    rects: &R,
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
    i: usize,
) {
    V::within(
        #[inline(always)]
        || {
            let tm = V::splat(t_max);
            let f = ray_rect_careful(&rects.lanes(i), &rays.lanes(i), tm);
            out.store(i, &f);
        },
    )
}

/// One rect against every ray of a batch (broadcast), on SIMD lanes with a scalar tail; the
/// same bits as [`cast_rect_one`] ray by ray.
///
/// Errors before any work: `t_max` NaN or negative, an output of the wrong length.
pub fn cast_rect<F: Real>(
    rect: &Rect<F>,
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
) -> Result<(), Error> {
    check_t_max(t_max)?;
    let n = rays.len();
    out.check(n)?;
    F::cast_rect(rect, rays, t_max, out);
    Ok(())
}

/// [`cast_rect`] at the chosen level, its arguments checked (`simd::entries`).
pub(crate) fn cast_rect_checked<F: Real>(
    rect: &Rect<F>,
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
) {
    dispatch!(I => cast_with::<F, F::Simd<I>, _>(&Broadcast::new(rect), rays, t_max, out));
}

/// Ray `i` against rect `i` (pairwise), on SIMD lanes with a scalar tail.
///
/// Errors before any work: `rects.len() != rays.len()`, `t_max` NaN or negative, an output of
/// the wrong length.
pub fn cast_rects<F: Real>(
    rects: &[Rect<F>],
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
) -> Result<(), Error> {
    check_t_max(t_max)?;
    let n = rays.len();
    check_len("rects", n, rects.len())?;
    out.check(n)?;
    F::cast_rects(rects, rays, t_max, out);
    Ok(())
}

/// [`cast_rects`] at the chosen level, its arguments checked (`simd::entries`).
pub(crate) fn cast_rects_checked<F: Real>(
    rects: &[Rect<F>],
    rays: &RaysRef<'_, F>,
    t_max: F,
    out: &mut RectCastOutput<'_, F>,
) {
    dispatch!(I => cast_with::<F, F::Simd<I>, _>(rects, rays, t_max, out));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd_slab::tests::placed;
    use crate::kernels::simd_slab::HEAD_MIN;
    use crate::workload::SplitMix64;

    /// The ray loop gives `cast_rect_one`'s bits ray by ray wherever its columns and outputs
    /// lie (as `simd_slab::tests::placements_match_scalar` checks the segment loop): streamed
    /// from the first ray, streamed after a head, outputs out of step (a head, plain stores),
    /// a batch too small to stream; origins and directions on and beside the rect's edges.
    fn placements_match_one_by_one<F: Real>() {
        let large = (16 << 20) / (4 * core::mem::size_of::<F>()) + 37;
        let lanes = crate::simd::level().lanes::<F>();
        // (n, input and output offsets from a page, head, streamed, backward)
        let cases = [
            (large, 0, 0, 0, true, false),
            (large, 1, 1, lanes - 1, true, false),
            (large, 0, 1, 0, false, true),
            (HEAD_MIN + 5, 1, 1, lanes - 1, false, false),
            (HEAD_MIN + 5, 0, lanes, 0, false, true),
            (1000 + lanes - 1, 3, 5, 0, false, true),
        ];
        let table: Vec<F> = [0.0, 1.0, 0.5, -1.0, 2.0, -0.5]
            .into_iter()
            .flat_map(|v| {
                let v = F::from_f64(v);
                [v, v.next_up(), -(-v).next_up()]
            })
            .collect();
        let rect = Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap();
        let t_max = F::from_f64(1.5);
        let bits = |v: &[F]| v.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>();
        for (n, inputs, outputs, head, stream, backward) in cases {
            let mut rng = SplitMix64::new(0x5EED + n as u64);
            let cols: Vec<Vec<F>> = (0..4)
                .map(|_| {
                    (0..n)
                        .map(|_| table[rng.below(table.len() as u64) as usize])
                        .collect()
                })
                .collect();
            let placed_cols: Vec<_> = cols.iter().map(|c| placed(c, inputs)).collect();
            let c: Vec<&[F]> = placed_cols.iter().map(|(b, r)| &b[r.clone()]).collect();
            let rays = RaysRef::new(c[0], c[1], c[2], c[3]).unwrap();
            let (mut te, re) = placed(&vec![F::ZERO; n], outputs);
            let (mut tx, rx) = placed(&vec![F::ZERO; n], outputs);
            let mut out = RectCastOutput {
                t_entry: Some(&mut te[re.clone()]),
                t_exit: Some(&mut tx[rx.clone()]),
                class: None,
            };
            let case = format!("n {n}, inputs {inputs}, outputs {outputs}");
            let want = Placement {
                head,
                stream,
                backward,
            };
            assert_eq!(placement(&rays, &out, lanes), want, "{case}");
            cast_rect(&rect, &rays, t_max, &mut out).unwrap();
            let one: Vec<RayRect<F>> = (0..n)
                .map(|i| cast_rect_one(&rect, &rays.ray(i), t_max).unwrap())
                .collect();
            let want_e: Vec<F> = one.iter().map(|h| h.t_entry).collect();
            let want_x: Vec<F> = one.iter().map(|h| h.t_exit).collect();
            assert!(bits(&te[re]) == bits(&want_e), "t_entry differs: {case}");
            assert!(bits(&tx[rx]) == bits(&want_x), "t_exit differs: {case}");
        }
    }

    #[test]
    fn placements_match_one_by_one_f32() {
        placements_match_one_by_one::<f32>();
    }

    #[test]
    fn placements_match_one_by_one_f64() {
        placements_match_one_by_one::<f64>();
    }
}
