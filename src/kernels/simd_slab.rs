//! `simd-slab`: the slab method of `slab.rs`, across segments in SIMD vectors.
//!
//! ```text
//! for each chunk of LANES segments (loaded straight from SoA columns, or gathered):
//!     finished = slab_fast(rect, chunk)         the very function slab-scalar runs:
//!                                               the slab and SPEC §1's finishing step
//!     store t_entry, t_exit, class codes, clipped segments as asked
//! the last len % LANES segments: the same functions on scalar lanes
//! ```
//!
//! Branch-free but for one branch per chunk: the careful path (`slab::slab_careful`) for
//! coordinates out of the fast range (NaN, ±∞, extreme or tiny magnitudes: never on ordinary
//! data).
//!
//! From 64K segments the loop starts at the first segment whose columns lie on a vector
//! boundary, so that no load is split across two cache lines, and batches from 16 MiB of input
//! write `t_entry` and `t_exit` (or the clipped segments) with streaming stores where those lie
//! on the boundary too ([`Placement`], where the measurements are).
//!
//! Because scalar and vector lanes run the same IEEE operations, this kernel gives the same bits
//! as `slab-scalar` at every batch length.

use super::contract::{clipped, Finished, RectLanes};
use super::slab::{slab_careful, slab_fast};
use super::{Clip, ClipKernel, SlabScalar};
use crate::buffers::{for_each_column_chunk, Batch, ClipOutput, SegmentSource};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::real::{Lane, Real};
use crate::simd::{dispatch, Vector};

/// The branch-free slab method on SIMD vectors (the width is a build setting: see
/// [`crate::simd`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct SimdSlab;

/// Up to 16 lanes of scratch, for gathers and class codes (`f32` on AVX-512).
pub(crate) const MAX_LANES: usize = 16;

/// Calls `body(i, chunk)` for every full chunk of `LANES` segments starting at `i = from +
/// k·LANES`, in the order `at` says, and returns where the tail begins; `at.head` is where
/// the loop starts ([`Placement`]; `Placement::default()` for the whole batch in order).
/// Columns are loaded straight from the four slices (`buffers::for_each_column_chunk`), rows
/// transposed a chunk at a time; other sources are gathered lane by lane (those two always in
/// order).
#[inline(always)]
pub(crate) fn for_each_chunk<F: Real, V: Vector<F>, S: SegmentSource<F> + ?Sized>(
    input: &S,
    at: Placement,
    mut body: impl FnMut(usize, Segment<V>),
) -> usize {
    let from = at.head;
    let n = input.len();
    let full = from + (n - from) / V::WIDTH * V::WIDTH;
    if let Some(cols) = input.columns() {
        let (x0, y0, x1, y1) = cols.columns();
        for_each_column_chunk(
            [x0, y0, x1, y1],
            from,
            at.backward,
            #[inline(always)]
            |i, [x0, y0, x1, y1]| body(i, Segment { x0, y0, x1, y1 }),
        );
    } else if let Some(rows) = input.rows() {
        for (k, rows) in rows[from..full].chunks_exact(V::WIDTH).enumerate() {
            body(from + k * V::WIDTH, load_rows(rows));
        }
    } else {
        for i in (from..full).step_by(V::WIDTH) {
            body(i, load_chunk(input, i));
        }
    }
    full
}

/// The first `LANES` rows of `rows` as a chunk, transposed in vectors.
#[inline(always)]
fn load_rows<F: Real, V: Vector<F>>(rows: &[Segment<F>]) -> Segment<V> {
    let [x0, y0, x1, y1] = V::load_rows(bytemuck::cast_slice(rows));
    Segment { x0, y0, x1, y1 }
}

/// The chunk of `LANES` segments starting at `i`: from the columns when there are columns, from
/// the rows by a transpose when there are rows, else gathered lane by lane. Panics past the end.
#[inline(always)]
pub(crate) fn load_chunk<F: Real, V: Vector<F>, S: SegmentSource<F> + ?Sized>(
    input: &S,
    i: usize,
) -> Segment<V> {
    if let Some(cols) = input.columns() {
        let (x0, y0, x1, y1) = cols.columns();
        return Segment {
            x0: V::load(&x0[i..]),
            y0: V::load(&y0[i..]),
            x1: V::load(&x1[i..]),
            y1: V::load(&y1[i..]),
        };
    }
    if let Some(rows) = input.rows() {
        return load_rows(&rows[i..]);
    }
    gather_chunk(input, i, V::WIDTH)
}

/// Segments `i..i + m` of `input` (`m ≤ LANES`) gathered lane by lane, zeros in the lanes past
/// `m`: the chunk of a source with neither columns nor rows, or a batch's last, partial chunk.
#[inline(always)]
pub(crate) fn gather_chunk<F: Real, V: Vector<F>, S: SegmentSource<F> + ?Sized>(
    input: &S,
    i: usize,
    m: usize,
) -> Segment<V> {
    let mut g = [[F::ZERO; MAX_LANES]; 4];
    for l in 0..m {
        let s = input.segment(i + l);
        for (column, v) in g.iter_mut().zip([s.x0, s.y0, s.x1, s.y1]) {
            column[l] = v;
        }
    }
    Segment {
        x0: V::load(&g[0]),
        y0: V::load(&g[1]),
        x1: V::load(&g[2]),
        y1: V::load(&g[3]),
    }
}

/// Writes the answers of the `L::WIDTH` segments from `i` (a vector, or one scalar) into
/// whichever outputs were asked for; `clipped` makes the clipped segments when they are.
/// Shared with `naive-slab` and the polygon clip (`cast/segment_polygon.rs`).
///
/// # Safety
///
/// `t_entry` and `t_exit`, where `out` has them, hold at least `i + L::WIDTH` values (the
/// callers check every output's length against the batch's before the loop, and `i` is a
/// chunk or tail index of the batch).
#[inline(always)]
pub(crate) unsafe fn store_lanes<F: Real, L: Lane<Scalar = F>>(
    out: &mut ClipOutput<'_, F>,
    i: usize,
    f: &Finished<L>,
    clipped: impl FnOnce() -> Segment<L>,
) {
    // SAFETY: the caller's promise, passed on.
    unsafe { store_as::<F, L, true, true, true, false>(out, i, f, clipped) }
}

/// [`store_lanes`] for the outputs a loop was built for: `T` parameters, `C` class codes, `S`
/// clipped segments. The others are neither computed nor stored, which is how [`drive`]
/// keeps a `--emit t` loop free of the class and clipped-point work. The parameters are
/// stored with no bounds check: a checked slice per store cost `simd-slab` and `naive-slab`
/// 2–3% at 64K (`compare --dist mixed`, alternated: 3.68–3.81 against 3.62–3.71 Gseg/s, and
/// 4.57–4.66 against 4.37–4.55).
///
/// # Safety
///
/// As [`store_lanes`]: `t_entry` and `t_exit`, where `out` has them, hold at least
/// `i + L::WIDTH` values.
#[inline(always)]
unsafe fn store_as<
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
    // The `L::WIDTH` values of a float output from `i`.
    let lanes = |t: &mut [F]| {
        // SAFETY: `t` holds at least `i + L::WIDTH` values (this function's contract), so the
        // `L::WIDTH` values from `i` lie in it.
        unsafe { core::slice::from_raw_parts_mut(t.as_mut_ptr().add(i), L::WIDTH) }
    };
    if T {
        if let Some(t) = out.t_entry.as_deref_mut() {
            if NT {
                f.t_entry.write_stream(lanes(t));
            } else {
                f.t_entry.write(lanes(t));
            }
        }
        if let Some(t) = out.t_exit.as_deref_mut() {
            if NT {
                f.t_exit.write_stream(lanes(t));
            } else {
                f.t_exit.write(lanes(t));
            }
        }
    }
    if C {
        if let Some(k) = out.class.as_deref_mut() {
            f.class_codes().write_low_bytes(&mut k[i..]);
        }
    }
    if S {
        if let Some(segs) = out.segments.as_mut() {
            let c = clipped();
            let (x0, y0, x1, y1) = segs.columns_mut();
            for (v, o) in [(c.x0, x0), (c.y0, y0), (c.x1, x1), (c.y1, y1)] {
                if NT {
                    v.write_stream(&mut o[i..]);
                } else {
                    v.write(&mut o[i..]);
                }
            }
        }
    }
}

/// Where each segment's rect comes from: one rect for the whole batch, or one per segment.
pub(crate) trait RectSource<F: Real, V: Vector<F>> {
    /// The rects of segments `i..i + LANES`, as lanes.
    fn lanes(&self, i: usize) -> RectLanes<V>;
    /// The rect of segment `i`.
    fn rect(&self, i: usize) -> Rect<F>;
}

/// One rect broadcast to every segment.
pub(crate) struct Broadcast<F: Real, V: Vector<F>> {
    rect: Rect<F>,
    lanes: RectLanes<V>,
}

impl<F: Real, V: Vector<F>> Broadcast<F, V> {
    pub(crate) fn new(rect: &Rect<F>) -> Self {
        Broadcast {
            rect: *rect,
            lanes: RectLanes::splat(rect),
        }
    }
}

impl<F: Real, V: Vector<F>> RectSource<F, V> for Broadcast<F, V> {
    #[inline(always)]
    fn lanes(&self, _: usize) -> RectLanes<V> {
        self.lanes
    }
    #[inline(always)]
    fn rect(&self, _: usize) -> Rect<F> {
        self.rect
    }
}

/// Rect `i` for segment `i` (the pairwise shape): rows of four bounds, transposed as segment
/// rows are ([`Load::load_rows`](crate::simd::Load::load_rows)).
impl<F: Real, V: Vector<F>> RectSource<F, V> for [Rect<F>] {
    #[inline(always)]
    fn lanes(&self, i: usize) -> RectLanes<V> {
        let [xmin, ymin, xmax, ymax] = V::load_rows(bytemuck::cast_slice(&self[i..]));
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
pub(crate) fn drive<
    F: Real,
    V: Vector<F>,
    R: RectSource<F, V> + ?Sized,
    S: SegmentSource<F> + ?Sized,
>(
    rects: &R,
    input: &S,
    out: &mut ClipOutput<'_, F>,
    chunk: impl Fn(&RectLanes<V>, &Segment<V>) -> (Finished<V>, bool),
) {
    let t = out.t_entry.is_some() || out.t_exit.is_some();
    let at = Placement::of(input, out, V::WIDTH);
    let stream = at.stream;
    match (t, out.class.is_some(), out.segments.is_some()) {
        (_, false, false) if stream => {
            drive_as::<F, V, R, S, true, false, false, true>(rects, input, out, at, &chunk)
        }
        (_, false, false) => {
            drive_as::<F, V, R, S, true, false, false, false>(rects, input, out, at, &chunk)
        }
        (false, true, false) => {
            drive_as::<F, V, R, S, false, true, false, false>(rects, input, out, at, &chunk)
        }
        (false, false, true) if stream => {
            drive_as::<F, V, R, S, false, false, true, true>(rects, input, out, at, &chunk)
        }
        (false, false, true) => {
            drive_as::<F, V, R, S, false, false, true, false>(rects, input, out, at, &chunk)
        }
        _ => drive_as::<F, V, R, S, true, true, true, false>(rects, input, out, at, &chunk),
    }
}

/// Where the vector loop starts, whether it streams its parameters, and in which direction
/// it goes.
///
/// * **The head.** The loop starts at the first segment whose `x0` lies on a vector boundary,
///   so that no load of the loop is split across two cache lines (`malloc` puts large arrays 16
///   bytes past a page boundary, so without it every load is split); the segments before it
///   are the chunk from 0 ([`careful_chunk`]). `simd-slab` on `mixed` `f32`, columns 16 bytes past
///   a boundary (scratch harness, alternated): 64K 1.75–1.80 → 1.79–1.83 Gseg/s, 256K about
///   the same (1.76–1.87 against 1.78–1.81), classes at 16M 0.90–0.93 → 1.08–1.14.
/// * **Streaming** ([`Lane::write_stream`]): from 16 MiB of input, far larger than the caches,
///   the loops that write `t` or clipped segments alone, when the first of those outputs and
///   the other columns are on a boundary at the head as well (from the same allocator they
///   are). Clipped segments at 16M: 0.48–0.50 → 0.52–0.54 Gseg/s. Measured at 16M (Mseg/s; columns and outputs placed 0, 16 or 48
///   bytes past a boundary): all on boundaries, plain stores 1,056, streaming 1,266; all 16
///   bytes past, no head and plain stores 805, head and streaming 1,177–1,295; inputs on
///   boundaries and outputs 16 bytes past, streaming from the outputs' boundary (splitting
///   every load) 556, plain stores 1,054. Streaming from 128K segments cost a third at 512K
///   (outputs the caches would have kept went to memory). A piece of a larger batch (a
///   `Window`, as `auto` hands its threads) counts the whole batch (`SegmentSource::
///   batch_len`): `auto`'s pieces of 2M and 4M segments (256K and 512K each) did not stream,
///   and two threads ran slower than one at 4M. `clip_calls` example, `mixed` `f32`, medians,
///   two threads, Mseg/s, three alternated runs: 2M 3,116–3,202 → 3,444–3,495, 4M 2,164–2,439
///   → 2,861–2,882 (one thread 2,516–2,610); 8M, whose pieces streamed already, unchanged.
/// * **Backward** ([`Placement::backward`]) when an output column lies a little *ahead* of an
///   input column modulo 4 KiB: see there.
///
/// Batches below [`HEAD_MIN`] segments start at 0 and never stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The first segment of the loop (`< LANES`); the chunk from 0 covers those before it.
    pub head: usize,
    /// Whether the loop writes its parameters (or clipped segments) with streaming stores.
    pub stream: bool,
    /// Whether the loop goes from the last chunk down to the head.
    pub backward: bool,
}

/// The batch length from which the loop starts on a boundary: 64K segments. Below, the extra
/// chunk and call cost about what the whole loads save (`mixed` `f32`, alternated, Gseg/s: 4K
/// 1.55–1.63 against 1.67–1.69 with a head from 256 segments, 32K 1.73–1.76 against
/// 1.77–1.79; with it from 64K: 64K 1.79–1.83 against 1.75–1.80).
pub(crate) const HEAD_MIN: usize = 1 << 16;

impl Placement {
    /// The placement of `input` into `out`, for a loop over vectors of `lanes` values.
    pub(crate) fn of<F: Real, S: SegmentSource<F> + ?Sized>(
        input: &S,
        out: &ClipOutput<'_, F>,
        lanes: usize,
    ) -> Placement {
        let columns = input.columns().map(|c| {
            let (x0, y0, x1, y1) = c.columns();
            [x0, y0, x1, y1]
        });
        // The parameters, then the clipped segments: the first is the one that streams.
        let mut outputs: [&[F]; 6] = [&[]; 6];
        let mut k = 0;
        let segments = out.segments.as_ref().map(|s| s.columns_ref());
        let all = [out.t_entry.as_deref(), out.t_exit.as_deref()]
            .into_iter()
            .flatten();
        for o in all.chain(segments.into_iter().flatten()) {
            outputs[k] = o;
            k += 1;
        }
        Placement::of_columns(
            input.len(),
            input.batch_len(),
            columns,
            &outputs[..k],
            lanes,
        )
    }

    /// The placement of `n` inputs held in four `columns` (segments, rays; `None` for other
    /// layouts) into float `outputs`, one value per input each, the first of which streams
    /// (`t_entry`, or the clipped segments' `x0`). `batch` is the length of the whole batch
    /// they are a piece of (`SegmentSource::batch_len`), which decides streaming; `lanes`, the
    /// loop's vector width.
    pub(crate) fn of_columns<F: Real>(
        n: usize,
        batch: usize,
        columns: Option<[&[F]; 4]>,
        outputs: &[&[F]],
        lanes: usize,
    ) -> Placement {
        let size = core::mem::size_of::<F>();
        let line = lanes * size;
        let large = n.max(batch).saturating_mul(4 * size) >= 16 << 20;
        let first = outputs.first().map(|o| o.as_ptr());
        let (head, aligned) = match columns {
            Some([a, rest @ ..]) => {
                let head = a.as_ptr().align_offset(line);
                let on_line =
                    |p: *const F| (p as usize).wrapping_add(head * size).is_multiple_of(line);
                let rest = rest.iter().all(|c| on_line(c.as_ptr()));
                (head, rest && first.is_some_and(on_line))
            }
            // Rows or gathered segments: only the parameters' stores can be lined up.
            None if large => (first.map_or(0, |t| t.align_offset(line)), first.is_some()),
            None => (0, false),
        };
        let backward = columns.is_some_and(|c| Placement::backward(&c, outputs));
        if n < HEAD_MIN || head >= lanes {
            return Placement {
                backward,
                ..Placement::default()
            };
        }
        Placement {
            head,
            stream: large && aligned,
            backward,
        }
    }

    /// Whether the loop should go backward: when fewer (output, input) column pairs are a
    /// hazard that way than forward.
    ///
    /// The CPU checks a load against the older stores still in flight by the low 12 bits of
    /// the address. An output column that lies a little ahead of an input column modulo 4 KiB
    /// (from 1 to 255 bytes: the stores of one chunk then match the loads of the next three)
    /// makes the next chunk's loads wait for this chunk's stores, which serialises the loop.
    /// Arrays allocated one after the other from the heap lie that way, outputs just after
    /// inputs: criterion's 64K `mixed` columns at 1104, 1120, 1136, 1152 and outputs at 1216,
    /// 1232 bytes past a page. Going backward, the loads that follow a store are the chunks
    /// before it, which such a layout leaves clear; an output a little behind an input is then
    /// the hazard instead. Measured (scratch harness, `simd-slab`, `mixed` `f32`, 64K, inputs
    /// 16 bytes past a page, both outputs moved, forward loop, medians of 31, several runs):
    /// outputs 0 bytes ahead 1,881–1,911 Mseg/s, 16 ahead 1,573–1,644, 64 ahead 908–1,152, 128
    /// ahead 1,620–1,749, 192 ahead 1,774–1,798, 256 ahead 1,894–1,897; 16 to 256 behind
    /// 1,826–1,868. With this choice: 16 ahead 1,844, 64 ahead 1,880–1,889, 128 ahead 1,917.
    /// Class bytes advance a quarter (`f32`) or an eighth (`f64`) as fast as the columns, so
    /// their distance sweeps through every value whichever the direction: they are not counted.
    fn backward<F>(inputs: &[&[F]; 4], outputs: &[&[F]]) -> bool {
        let (mut ahead, mut behind) = (0, 0);
        for o in outputs {
            for i in inputs {
                let d = (o.as_ptr() as usize).wrapping_sub(i.as_ptr() as usize) % 4096;
                ahead += usize::from((1..256).contains(&d));
                behind += usize::from((1..256).contains(&(4096 - d)));
            }
        }
        behind < ahead
    }
}

#[inline(always)]
fn drive_as<
    F: Real,
    V: Vector<F>,
    R: RectSource<F, V> + ?Sized,
    S: SegmentSource<F> + ?Sized,
    const T: bool,
    const C: bool,
    const SEGS: bool,
    const NT: bool,
>(
    rects: &R,
    input: &S,
    out: &mut ClipOutput<'_, F>,
    at: Placement,
    chunk: &impl Fn(&RectLanes<V>, &Segment<V>) -> (Finished<V>, bool),
) {
    let n = input.len();
    if at.head > 0 {
        // The segments before the loop: the whole chunk from 0, by the careful path (out of
        // line, the same bits; the loop writes them again over its overlap).
        careful_chunk::<F, V, R, S, T, C, SEGS>(rects, input, out, 0);
    }
    // Inlined by hand: `for_each_chunk` calls the body from two loops, and LLVM otherwise
    // keeps it out of line, passing each chunk through memory.
    let full = for_each_chunk(
        input,
        at,
        #[inline(always)]
        |i, s| {
            let r = rects.lanes(i);
            // The fast path's answer is stored before its range test is read, so that the
            // test's branch does not hold back the arithmetic; a chunk out of the fast range
            // is then written again by the careful path.
            let (f, ok) = chunk(&r, &s);
            // SAFETY: the outputs hold `n` values (checked by the callers of `drive`) and
            // `i + LANES ≤ n` for a chunk of the loop.
            unsafe { store_as::<F, V, T, C, SEGS, NT>(out, i, &f, clip_later(&r, &s, &f)) };
            if !ok {
                careful_chunk::<F, V, R, S, T, C, SEGS>(rects, input, out, i);
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
/// loaded again from the input: `slab_careful`, then stored as [`drive_as`] would. Also
/// the chunk before a loop that starts past 0 ([`Placement`]): its bits are the fast path's.
#[inline(never)]
#[cold]
fn careful_chunk<
    F: Real,
    V: Vector<F>,
    R: RectSource<F, V> + ?Sized,
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
    V::within(
        #[inline(always)]
        || {
            let (r, s) = (rects.lanes(i), load_chunk(input, i));
            let f = slab_careful(&r, &s);
            // SAFETY: the outputs hold `n` values (checked by the callers of `drive`) and the
            // chunk from `i` is a whole chunk of the batch (a chunk of the loop, or the head's
            // from 0).
            unsafe { store_as::<F, V, T, C, SEGS, false>(out, i, &f, clip_later(&r, &s, &f)) };
        },
    )
}

/// [`clipped`] of a chunk, made only if the outputs ask for clipped segments: a closure that
/// is inlined into the level's function (`simd::dispatch!`) like everything the loop calls, where
/// a closure left out of line would run its lane operations as calls.
#[inline(always)]
pub(crate) fn clip_later<'a, L: Lane>(
    r: &'a RectLanes<L>,
    s: &'a Segment<L>,
    f: &'a Finished<L>,
) -> impl FnOnce() -> Segment<L> + 'a {
    #[inline(always)]
    || clipped(r, s, f)
}

/// [`slab_fast`] as a closure for [`drive`]: inlined (a function item passed as `Fn` is called
/// through a shim, which LLVM kept out of the level's function).
#[inline(always)]
pub(crate) fn fast<L: Lane>() -> impl Fn(&RectLanes<L>, &Segment<L>) -> (Finished<L>, bool) {
    #[inline(always)]
    |r, s| slab_fast(r, s)
}

impl SimdSlab {
    /// Segment `i` by `rects[i]`; lengths are checked by the caller.
    pub(crate) fn clip_pairwise<F: Real, S: SegmentSource<F> + ?Sized>(
        rects: &[Rect<F>],
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) {
        F::simd_slab_pairwise(rects, Batch::of(&input), out)
    }

    /// [`SimdSlab::clip`] at the chosen level, the outputs' lengths checked (`simd::entries`).
    pub(crate) fn clip_batch<F: Real>(
        rect: &Rect<F>,
        input: &Batch<'_, F>,
        out: &mut ClipOutput<'_, F>,
    ) {
        dispatch!(I => drive::<F, F::Simd<I>, _, _>(&Broadcast::new(rect), input, out, fast::<F::Simd<I>>()))
    }

    /// [`SimdSlab::clip_pairwise`] at the chosen level (`simd::entries`).
    pub(crate) fn pairwise_batch<F: Real>(
        rects: &[Rect<F>],
        input: &Batch<'_, F>,
        out: &mut ClipOutput<'_, F>,
    ) {
        dispatch!(I => drive::<F, F::Simd<I>, _, _>(rects, input, out, fast::<F::Simd<I>>()))
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
        F::simd_slab(rect, Batch::of(&input), out);
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::buffers::{Segments, SegmentsMut, SegmentsRef};
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

    /// A copy of `v` that starts `off` values past a page (4 KiB) boundary, inside its buffer.
    pub(crate) fn placed<F: Real>(v: &[F], off: usize) -> (Vec<F>, core::ops::Range<usize>) {
        let page = 4096 / core::mem::size_of::<F>();
        let mut buf = vec![F::ZERO; v.len() + page + 2 * MAX_LANES];
        let at = buf.as_ptr().align_offset(4096) + off;
        buf[at..at + v.len()].copy_from_slice(v);
        (buf, at..at + v.len())
    }

    /// [`Placement`]'s loops give `slab-scalar`'s bits wherever the columns and outputs lie:
    /// on batches that stream, all on vector boundaries (streamed from the first segment), all
    /// one value past (streamed after a head), outputs out of step with the inputs (a head,
    /// plain stores), inputs out of step with each other (a head, plain stores); on a batch
    /// too small to stream, a head or none; outputs a little ahead of the inputs modulo a page
    /// (backward, with or without a head or streaming); each with a tail.
    fn placements_match_scalar<F: Real>() {
        let large = (16 << 20) / (4 * core::mem::size_of::<F>()) + 37;
        let lanes = crate::simd::level().lanes::<F>();
        // (n, input offsets x0 y0 x1 y1 and t_entry t_exit offsets from a page, the head,
        // streamed, backward)
        let cases = [
            (large, [0, 0, 0, 0], [0, 0], 0, true, false),
            (large, [1, 1, 1, 1], [1, 1], lanes - 1, true, false),
            (large, [1, 1, 1, 1], [1, 2], lanes - 1, true, true),
            (large, [0, 0, 0, 0], [1, 1], 0, false, true),
            (large, [1, 1, 2, 1], [1, 1], lanes - 1, false, false),
            (HEAD_MIN + 5, [1, 1, 1, 1], [1, 1], lanes - 1, false, false),
            (
                HEAD_MIN + 5,
                [1, 1, 1, 1],
                [lanes + 1, 1],
                lanes - 1,
                false,
                true,
            ),
            (HEAD_MIN - 1, [1, 1, 1, 1], [1, 1], 0, false, false),
            (HEAD_MIN - 1, [1, 2, 3, 4], [9, 9], 0, false, true),
            (HEAD_MIN - 1, [9, 9, 9, 9], [1, 2], 0, false, false),
        ];
        let rect = Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap();
        let bits = |v: &[F]| v.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>();
        for (n, ins, [oe, ox], head, stream, backward) in cases {
            let segs = on_edges::<F>(n);
            let (mut want_e, mut want_x) = (vec![F::ZERO; n], vec![F::ZERO; n]);
            let mut out = ClipOutput {
                t_entry: Some(&mut want_e),
                t_exit: Some(&mut want_x),
                ..Default::default()
            };
            SlabScalar::clip(&rect, &segs.as_ref(), &mut out).unwrap();
            let (x0, y0, x1, y1) = segs.as_ref().columns();
            let cols: Vec<_> = [x0, y0, x1, y1]
                .iter()
                .zip(ins)
                .map(|(c, off)| placed(c, off))
                .collect();
            let c: Vec<&[F]> = cols.iter().map(|(b, r)| &b[r.clone()]).collect();
            let input = SegmentsRef::new(c[0], c[1], c[2], c[3]).unwrap();
            let (mut te, re) = placed(&vec![F::ZERO; n], oe);
            let (mut tx, rx) = placed(&vec![F::ZERO; n], ox);
            let mut out = ClipOutput {
                t_entry: Some(&mut te[re.clone()]),
                t_exit: Some(&mut tx[rx.clone()]),
                ..Default::default()
            };
            let case = format!("n {n}, inputs {ins:?}, outputs {oe} {ox}");
            let want = Placement {
                head,
                stream,
                backward,
            };
            assert_eq!(Placement::of(&input, &out, lanes), want, "{case}");
            SimdSlab::clip(&rect, &input, &mut out).unwrap();
            assert!(
                bits(&te[re.clone()]) == bits(&want_e),
                "t_entry differs: {case}"
            );
            assert!(
                bits(&tx[rx.clone()]) == bits(&want_x),
                "t_exit differs: {case}"
            );
            // `hybrid` runs the same loop with its prefilter in front.
            te.fill(F::ZERO);
            let mut out = ClipOutput {
                t_entry: Some(&mut te[re.clone()]),
                t_exit: Some(&mut tx[rx.clone()]),
                ..Default::default()
            };
            super::super::Hybrid::clip(&rect, &input, &mut out).unwrap();
            assert!(
                bits(&te[re]) == bits(&want_e),
                "hybrid's t_entry differs: {case}"
            );
            assert!(
                bits(&tx[rx]) == bits(&want_x),
                "hybrid's t_exit differs: {case}"
            );
        }
    }

    /// Clipped segments alone stream too, with a head: `slab-scalar`'s bits.
    fn streamed_segments_match_scalar<F: Real>() {
        let n = (16 << 20) / (4 * core::mem::size_of::<F>()) + 37;
        let segs = on_edges::<F>(n);
        let rect = Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap();
        let mut want = Segments::new();
        let mut got = [(); 4].map(|_| placed(&vec![F::ZERO; n], 1));
        for _ in 0..n {
            want.push(Segment::new(F::ZERO, F::ZERO, F::ZERO, F::ZERO));
        }
        let mut out = ClipOutput {
            segments: Some(want.as_mut()),
            ..Default::default()
        };
        SlabScalar::clip(&rect, &segs.as_ref(), &mut out).unwrap();
        let (x0, y0, x1, y1) = segs.as_ref().columns();
        let cols: Vec<_> = [x0, y0, x1, y1].iter().map(|c| placed(c, 1)).collect();
        let c: Vec<&[F]> = cols.iter().map(|(b, r)| &b[r.clone()]).collect();
        let input = SegmentsRef::new(c[0], c[1], c[2], c[3]).unwrap();
        let [(a, ra), (b, rb), (d, rd), (e, re)] = &mut got;
        let mut out = ClipOutput {
            segments: Some(
                SegmentsMut::new(
                    &mut a[ra.clone()],
                    &mut b[rb.clone()],
                    &mut d[rd.clone()],
                    &mut e[re.clone()],
                )
                .unwrap(),
            ),
            ..Default::default()
        };
        let lanes = crate::simd::level().lanes::<F>();
        let at = Placement {
            head: lanes - 1,
            stream: true,
            backward: false,
        };
        assert_eq!(Placement::of(&input, &out, lanes), at);
        SimdSlab::clip(&rect, &input, &mut out).unwrap();
        let bits = |v: &[F]| v.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>();
        let (w0, w1, w2, w3) = want.as_ref().columns();
        for (k, ((buf, r), w)) in got.iter().zip([w0, w1, w2, w3]).enumerate() {
            assert!(
                bits(&buf[r.clone()]) == bits(w),
                "clipped column {k} differs"
            );
        }
    }

    #[test]
    fn streamed_segments_match_scalar_f32() {
        streamed_segments_match_scalar::<f32>();
    }

    #[test]
    fn streamed_segments_match_scalar_f64() {
        streamed_segments_match_scalar::<f64>();
    }

    /// A piece of a batch that streams (a `Window`, as `auto` hands its threads) streams too,
    /// though it is too small to stream alone; the same piece as a batch of its own does not.
    #[test]
    fn pieces_of_a_large_batch_stream() {
        let n = (16 << 20) / 16;
        let segs = on_edges::<f32>(n);
        let (x0, y0, x1, y1) = segs.as_ref().columns();
        let cols: Vec<_> = [x0, y0, x1, y1].iter().map(|c| placed(c, 0)).collect();
        let c: Vec<&[f32]> = cols.iter().map(|(b, r)| &b[r.clone()]).collect();
        let input = SegmentsRef::new(c[0], c[1], c[2], c[3]).unwrap();
        let (mut te, re) = placed(&vec![0f32; n], 0);
        let (mut tx, rx) = placed(&vec![0f32; n], 0);
        let piece = (n / 4)..(n / 4 + HEAD_MIN);
        let at = |r: &core::ops::Range<usize>| r.start + piece.start..r.start + piece.end;
        let mut out = ClipOutput {
            t_entry: Some(&mut te[at(&re)]),
            t_exit: Some(&mut tx[at(&rx)]),
            ..Default::default()
        };
        let window = crate::buffers::Window::new(&input, piece.clone());
        let alone = input.slice(piece);
        assert_eq!(window.batch_len(), n);
        let placement = |stream| Placement {
            head: 0,
            stream,
            backward: false,
        };
        let lanes = crate::simd::level().lanes::<f32>();
        assert_eq!(Placement::of(&window, &out, lanes), placement(true));
        assert_eq!(Placement::of(&alone, &out, lanes), placement(false));
        let rect = Rect::new(0.0, 0.0, 1.0, 1.0).unwrap();
        let mut want = vec![0f32; HEAD_MIN];
        let mut check = ClipOutput {
            t_entry: Some(&mut want),
            ..Default::default()
        };
        SlabScalar::clip(&rect, &alone, &mut check).unwrap();
        SimdSlab::clip(&rect, &window, &mut out).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(out.t_entry.as_deref().unwrap()) == bits(&want));
    }

    #[test]
    fn placements_match_scalar_f32() {
        placements_match_scalar::<f32>();
    }

    #[test]
    fn placements_match_scalar_f64() {
        placements_match_scalar::<f64>();
    }
}
