//! `simd-slab`: the slab method of `slab.rs`, across segments in SIMD vectors.
//!
//! ```text
//! for each chunk of LANES segments (loaded straight from SoA columns, or gathered):
//!     raw      = slab_raw(rect, chunk)          the very function slab-scalar runs
//!     finished = finish_slab(rect, chunk, raw)  the shared contract
//!     store t_entry, t_exit, class codes, clipped segments as asked
//! the last len % LANES segments: the same functions on scalar lanes
//! ```
//!
//! Branch-free but for two branches per chunk: the careful path for coordinates out of the
//! fast range (NaN, ±∞, `-0` differences, extreme or tiny magnitudes: never on ordinary data),
//! and, on batches below 16 MiB, the far end at `P1` for chunks with a lane near it
//! (`contract::FarEnd`: larger batches settle it for every chunk, where a mispredicted branch
//! would also drop the loads in flight).
//!
//! Batches from 16 MiB of input write `t_entry` and `t_exit` with streaming stores
//! ([`Lane::write_stream`](crate::Lane::write_stream)), from the first segment whose `t_entry`
//! is on a vector boundary: such outputs are far larger than the caches, and a plain store
//! reads each line before writing it. `mixed` 16M, f32, one thread: 1.10–1.17 against
//! 0.78–0.87 Gseg/s.
//!
//! Because scalar and vector lanes run the same IEEE operations, this kernel gives the same bits
//! as `slab-scalar` at every batch length.

use super::contract::{clipped, finish_slab, FarEnd, Finished, RectLanes};
use super::slab::{slab_raw_careful, slab_raw_fast};
use super::{Clip, ClipKernel, SlabScalar};
use crate::buffers::{for_each_column_chunk, ClipOutput, SegmentSource, Window};
use crate::error::Error;
use crate::geom::{Class, Rect, Segment};
use crate::real::{Lane, Real};

/// The branch-free slab method on SIMD vectors (the width is a build setting: see
/// [`crate::simd`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct SimdSlab;

/// Up to 16 lanes of scratch, for gathers and class codes.
const MAX_LANES: usize = 16;

/// Calls `body(i, chunk)` for every full chunk of `LANES` segments starting at `i`, in order,
/// and returns where the tail begins. Columns are loaded straight from the four slices (cut to
/// whole chunks first, so no load is bounds-checked), rows transposed a chunk at a time; other
/// sources are gathered lane by lane.
#[inline(always)]
pub(crate) fn for_each_chunk<F: Real, S: SegmentSource<F> + ?Sized>(
    input: &S,
    mut body: impl FnMut(usize, Segment<F::Simd>),
) -> usize {
    let n = input.len();
    let full = n - n % F::LANES;
    if let Some(cols) = input.columns() {
        let (x0, y0, x1, y1) = cols.columns();
        for_each_column_chunk(
            [x0, y0, x1, y1],
            #[inline(always)]
            |i, [x0, y0, x1, y1]| body(i, Segment { x0, y0, x1, y1 }),
        );
    } else if let Some(rows) = input.rows() {
        for (k, rows) in rows[..full].chunks_exact(F::LANES).enumerate() {
            body(k * F::LANES, load_rows(rows));
        }
    } else {
        for i in (0..full).step_by(F::LANES) {
            body(i, load_chunk(input, i));
        }
    }
    full
}

/// The first `LANES` rows of `rows` as a chunk, transposed in vectors.
#[inline(always)]
fn load_rows<F: Real>(rows: &[Segment<F>]) -> Segment<F::Simd> {
    let [x0, y0, x1, y1] = F::load_rows(bytemuck::cast_slice(rows));
    Segment { x0, y0, x1, y1 }
}

/// The chunk of `LANES` segments starting at `i`: from the columns when there are columns, from
/// the rows by a transpose when there are rows, else gathered lane by lane. Panics past the end.
#[inline(always)]
pub(crate) fn load_chunk<F: Real, S: SegmentSource<F> + ?Sized>(
    input: &S,
    i: usize,
) -> Segment<F::Simd> {
    if let Some(cols) = input.columns() {
        let (x0, y0, x1, y1) = cols.columns();
        return Segment {
            x0: F::load(&x0[i..]),
            y0: F::load(&y0[i..]),
            x1: F::load(&x1[i..]),
            y1: F::load(&y1[i..]),
        };
    }
    if let Some(rows) = input.rows() {
        return load_rows(&rows[i..]);
    }
    let mut g = [[F::ZERO; MAX_LANES]; 4];
    for l in 0..F::LANES {
        let s = input.segment(i + l);
        for (column, v) in g.iter_mut().zip([s.x0, s.y0, s.x1, s.y1]) {
            column[l] = v;
        }
    }
    Segment {
        x0: F::load(&g[0]),
        y0: F::load(&g[1]),
        x1: F::load(&g[2]),
        y1: F::load(&g[3]),
    }
}

/// Writes the answers of the `L::WIDTH` segments from `i` (a vector, or one scalar) into
/// whichever outputs were asked for; `clipped` makes the clipped segments when they are.
/// Shared with the polygon clip (`cast/segment_polygon.rs`).
#[inline(always)]
pub(crate) fn store_lanes<F: Real, L: Lane<Scalar = F>>(
    out: &mut ClipOutput<'_, F>,
    i: usize,
    f: &Finished<L>,
    clipped: impl FnOnce() -> Segment<L>,
) {
    store_as::<F, L, true, true, true, false>(out, i, f, clipped)
}

/// [`store_lanes`] for the outputs a loop was built for: `T` parameters, `C` class codes, `S`
/// clipped segments. The others are neither computed nor stored, which is how [`drive`]
/// keeps a `--emit t` loop free of the class and clipped-point work.
#[inline(always)]
fn store_as<
    F: Real,
    L: Lane<Scalar = F>,
    const T: bool,
    const C: bool,
    const S: bool,
    const NT: bool,
>(
    out: &mut ClipOutput<'_, F>,
    i: usize,
    f: &Finished<L>,
    clipped: impl FnOnce() -> Segment<L>,
) {
    if T {
        if let Some(t) = out.t_entry.as_deref_mut() {
            if NT {
                f.t_entry.write_stream(&mut t[i..]);
            } else {
                f.t_entry.write(&mut t[i..]);
            }
        }
        if let Some(t) = out.t_exit.as_deref_mut() {
            if NT {
                f.t_exit.write_stream(&mut t[i..]);
            } else {
                f.t_exit.write(&mut t[i..]);
            }
        }
    }
    if C {
        if let Some(k) = out.class.as_deref_mut() {
            Class::code_lanes(f.valid, f.t_entry, f.t_exit).write_low_bytes(&mut k[i..]);
        }
    }
    if S {
        if let Some(segs) = out.segments.as_mut() {
            let c = clipped();
            let (x0, y0, x1, y1) = segs.columns_mut();
            c.x0.write(&mut x0[i..]);
            c.y0.write(&mut y0[i..]);
            c.x1.write(&mut x1[i..]);
            c.y1.write(&mut y1[i..]);
        }
    }
}

/// Where each segment's rect comes from: one rect for the whole batch, or one per segment.
pub(crate) trait RectSource<F: Real> {
    /// The rects of segments `i..i + LANES`, as lanes.
    fn lanes(&self, i: usize) -> RectLanes<F::Simd>;
    /// The rect of segment `i`.
    fn rect(&self, i: usize) -> Rect<F>;
}

/// One rect broadcast to every segment.
pub(crate) struct Broadcast<F: Real> {
    rect: Rect<F>,
    lanes: RectLanes<F::Simd>,
}

impl<F: Real> Broadcast<F> {
    pub(crate) fn new(rect: &Rect<F>) -> Self {
        Broadcast {
            rect: *rect,
            lanes: RectLanes::splat(rect),
        }
    }
}

impl<F: Real> RectSource<F> for Broadcast<F> {
    #[inline(always)]
    fn lanes(&self, _: usize) -> RectLanes<F::Simd> {
        self.lanes
    }
    #[inline(always)]
    fn rect(&self, _: usize) -> Rect<F> {
        self.rect
    }
}

/// Rect `i` for segment `i` (the pairwise shape): rows of four bounds, transposed as segment
/// rows are ([`Real::load_rows`]).
impl<F: Real> RectSource<F> for [Rect<F>] {
    #[inline(always)]
    fn lanes(&self, i: usize) -> RectLanes<F::Simd> {
        let [xmin, ymin, xmax, ymax] = F::load_rows(bytemuck::cast_slice(&self[i..]));
        RectLanes {
            xmin,
            ymin,
            xmax,
            ymax,
        }
    }
    #[inline(always)]
    fn rect(&self, i: usize) -> Rect<F> {
        self[i]
    }
}

/// The vector loop over any rect source, `chunk` answering each full chunk (the slab, or
/// `hybrid`'s prefilter in front of it); the tail is the scalar slab, which gives the same bits.
/// Lengths are checked by the caller. The loop is built for the outputs asked for (the usual
/// one alone: `t`, class or segments), so a chunk computes nothing else.
#[inline(always)]
pub(crate) fn drive<F: Real, R: RectSource<F> + ?Sized, S: SegmentSource<F> + ?Sized>(
    rects: &R,
    input: &S,
    out: &mut ClipOutput<'_, F>,
    chunk: impl Fn(&RectLanes<F::Simd>, &Segment<F::Simd>) -> Option<Finished<F::Simd>>,
) {
    let t = out.t_entry.is_some() || out.t_exit.is_some();
    let stream = streams::<F>(input.len());
    match (t, out.class.is_some(), out.segments.is_some()) {
        (_, false, false) if stream => {
            drive_as::<F, R, S, true, false, false, true>(rects, input, out, &chunk)
        }
        (_, false, false) => {
            drive_as::<F, R, S, true, false, false, false>(rects, input, out, &chunk)
        }
        (false, true, false) => {
            drive_as::<F, R, S, false, true, false, false>(rects, input, out, &chunk)
        }
        (false, false, true) => {
            drive_as::<F, R, S, false, false, true, false>(rects, input, out, &chunk)
        }
        _ => drive_as::<F, R, S, true, true, true, false>(rects, input, out, &chunk),
    }
}

/// Whether a batch of `n` segments of `F` writes its parameters with streaming stores: from
/// 16 MiB of input, where the output is far larger than the caches.
fn streams<F: Real>(n: usize) -> bool {
    n.saturating_mul(4 * core::mem::size_of::<F>()) >= 16 << 20
}

#[inline(always)]
fn drive_as<
    F: Real,
    R: RectSource<F> + ?Sized,
    S: SegmentSource<F> + ?Sized,
    const T: bool,
    const C: bool,
    const SEGS: bool,
    const NT: bool,
>(
    rects: &R,
    input: &S,
    out: &mut ClipOutput<'_, F>,
    chunk: &impl Fn(&RectLanes<F::Simd>, &Segment<F::Simd>) -> Option<Finished<F::Simd>>,
) {
    let n = input.len();
    // Streaming stores need `t_entry` on a vector boundary: the segments before it are scalar.
    let head = match out.t_entry.as_deref() {
        Some(t) if NT => t
            .as_ptr()
            .align_offset(core::mem::size_of::<F::Simd>())
            .min(n),
        _ => 0,
    };
    for i in 0..head {
        let (rect, seg) = (rects.rect(i), input.segment(i));
        out.put(i, &rect, &seg, &SlabScalar::clip_one(&rect, &seg));
    }
    // Inlined by hand: `for_each_chunk` calls the body from two loops, and LLVM otherwise
    // keeps it out of line, passing each chunk through memory.
    let full = head
        + for_each_chunk(
            &Window::new(input, head..n),
            #[inline(always)]
            |i, s| {
                let i = i + head;
                let r = rects.lanes(i);
                match chunk(&r, &s) {
                    Some(f) => {
                        store_as::<F, F::Simd, T, C, SEGS, NT>(out, i, &f, || clipped(&r, &s, &f))
                    }
                    None => careful_chunk::<F, R, S, T, C, SEGS>(rects, input, out, i),
                }
            },
        );
    if NT {
        crate::simd::stream_fence();
    }
    for i in full..n {
        let (rect, seg) = (rects.rect(i), input.segment(i));
        out.put(i, &rect, &seg, &SlabScalar::clip_one(&rect, &seg));
    }
}

/// The chunk from `i` with a lane out of `axis_t`'s range (NaN, ±∞, extreme magnitudes),
/// loaded again from the input: `slab_raw_careful`, then stored as [`drive_as`] would.
#[inline(never)]
#[cold]
fn careful_chunk<
    F: Real,
    R: RectSource<F> + ?Sized,
    S: SegmentSource<F> + ?Sized,
    const T: bool,
    const C: bool,
    const SEGS: bool,
>(
    rects: &R,
    input: &S,
    out: &mut ClipOutput<'_, F>,
    i: usize,
) {
    let (r, s) = (rects.lanes(i), load_chunk(input, i));
    let f = finish_slab(&r, &s, slab_raw_careful(&r, &s), FarEnd::WhenNear);
    store_as::<F, F::Simd, T, C, SEGS, false>(out, i, &f, || clipped(&r, &s, &f));
}

/// `simd-slab`'s answer for one chunk, the far end settled as `far` says. Callers pass it to
/// [`drive`] inside a closure (`|r, s| slab_chunk(r, s, far)`): passed as a function item (when
/// it took two arguments), the loop measured about 30% slower
/// (`compare --dist mixed --n 64K`: 297–318 against 426–463 Mseg/s).
#[inline(always)]
pub(super) fn slab_chunk<L: Lane>(
    r: &RectLanes<L>,
    s: &Segment<L>,
    far: FarEnd,
) -> Option<Finished<L>> {
    slab_raw_fast(r, s).map(|raw| finish_slab(r, s, raw, far))
}

impl SimdSlab {
    /// Segment `i` by `rects[i]`; lengths are checked by the caller.
    pub(crate) fn clip_pairwise<F: Real, S: SegmentSource<F> + ?Sized>(
        rects: &[Rect<F>],
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) {
        let far = FarEnd::for_batch::<F>(input.len());
        drive(
            rects,
            input,
            out,
            #[inline(always)]
            |r, s| slab_chunk(r, s, far),
        );
    }
}

impl ClipKernel for SimdSlab {
    const NAME: &'static str = "simd-slab";

    /// One segment: the scalar lane of the same code, so the same bits as the batch.
    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        SlabScalar::clip_one(rect, seg)
    }

    fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
        rect: &Rect<F>,
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) -> Result<(), Error> {
        out.check_len(input.len())?;
        let far = FarEnd::for_batch::<F>(input.len());
        drive(
            &Broadcast::new(rect),
            input,
            out,
            #[inline(always)]
            |r, s| slab_chunk(r, s, far),
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffers::Segments;
    use crate::workload::SplitMix64;

    /// `n` segments whose coordinates come from the rect's bounds, their neighbours one ulp
    /// away and a few points outside: many endpoints on edges and corners, reached from
    /// outside and from inside, so that many lanes have `t_entry == 1`.
    fn on_edges<F: Real>(n: usize) -> Segments<F> {
        let near = |v: f64| {
            let v = F::from_f64(v);
            [v, v.next_up(), -(-v).next_up()]
        };
        let table: Vec<F> = [0.0, 1.0, 0.5, -1.0, 2.0, 0.25]
            .into_iter()
            .flat_map(near)
            .collect();
        let mut rng = SplitMix64::new(0x2545_F491);
        let mut pick = || table[rng.below(table.len() as u64) as usize];
        let mut segs = Segments::new();
        for _ in 0..n {
            segs.push(Segment::new(pick(), pick(), pick(), pick()));
        }
        segs
    }

    /// Both ways of settling the far end give the same bits in every output, on data where
    /// the branch of `FarEnd::WhenNear` is taken about half the time.
    fn far_end_modes_agree<F: Real>() {
        let n = 4099;
        let segs = on_edges::<F>(n);
        let rect = Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap();
        let run = |far: FarEnd| {
            let (mut te, mut tx, mut class) = (vec![F::ZERO; n], vec![F::ZERO; n], vec![0; n]);
            let mut out = ClipOutput {
                t_entry: Some(&mut te),
                t_exit: Some(&mut tx),
                class: Some(&mut class),
                segments: None,
            };
            drive(&Broadcast::new(&rect), &segs.as_ref(), &mut out, |r, s| {
                slab_chunk(r, s, far)
            });
            let bits = |v: &[F]| v.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>();
            (bits(&te), bits(&tx), class)
        };
        let (branch, every) = (run(FarEnd::WhenNear), run(FarEnd::EveryChunk));
        let at_p1 = branch
            .0
            .iter()
            .filter(|&&b| b == F::ONE.to_bits_u64())
            .count();
        assert!(at_p1 > n / 50, "too few entries at P1 to test: {at_p1}");
        assert!(branch == every, "the far-end modes differ");
    }

    /// Batches large enough to stream their parameters give `slab-scalar`'s bits, with the
    /// outputs starting at several offsets from a vector boundary (so the scalar head before
    /// the first streaming store has different lengths) and a tail after the last chunk.
    fn streaming_matches_scalar<F: Real>() {
        let n = (16 << 20) / (4 * core::mem::size_of::<F>()) + 37;
        assert!(streams::<F>(n) && !streams::<F>(n / 2));
        let segs = on_edges::<F>(n);
        let rect = Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap();
        let bits = |v: &[F]| v.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>();
        let (mut want_e, mut want_x) = (vec![F::ZERO; n], vec![F::ZERO; n]);
        let mut out = ClipOutput {
            t_entry: Some(&mut want_e),
            t_exit: Some(&mut want_x),
            ..Default::default()
        };
        SlabScalar::clip(&rect, &segs.as_ref(), &mut out).unwrap();
        let (want_e, want_x) = (bits(&want_e), bits(&want_x));
        for offset in [0, 1, 5] {
            let (mut te, mut tx) = (vec![F::ZERO; n + offset], vec![F::ZERO; n + 2 * offset]);
            let mut out = ClipOutput {
                t_entry: Some(&mut te[offset..]),
                t_exit: Some(&mut tx[2 * offset..]),
                ..Default::default()
            };
            SimdSlab::clip(&rect, &segs.as_ref(), &mut out).unwrap();
            assert!(
                bits(&te[offset..]) == want_e,
                "t_entry differs, offset {offset}"
            );
            assert!(
                bits(&tx[2 * offset..]) == want_x,
                "t_exit differs, offset {offset}"
            );
        }
    }

    #[test]
    fn streaming_matches_scalar_f32() {
        streaming_matches_scalar::<f32>();
    }

    #[test]
    fn streaming_matches_scalar_f64() {
        streaming_matches_scalar::<f64>();
    }

    #[test]
    fn far_end_modes_agree_f32() {
        far_end_modes_agree::<f32>();
    }

    #[test]
    fn far_end_modes_agree_f64() {
        far_end_modes_agree::<f64>();
    }
}
