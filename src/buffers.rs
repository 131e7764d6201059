//! Structure-of-arrays segment buffers, zero-copy views of interleaved rows, and output buffers.
//!
//! Kernels read segments through [`SegmentSource`]: four parallel slices ([`SegmentsRef`], the
//! fast layout), an owned [`Segments`], or interleaved `[x0, y0, x1, y1]` rows viewed in place as
//! `&[Segment<F>]` ([`rows_from_interleaved`], [`rows_from_bytes`]).

use std::borrow::Cow;

use crate::error::Error;
use crate::geom::Segment;
use crate::real::Real;

/// Anything a batch of segments can be read from, by index.
pub trait SegmentSource<F>: Sync {
    /// How many segments.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Segment `i`. Panics if `i >= len()`; batch drivers only ask for indices they checked.
    fn segment(&self, i: usize) -> Segment<F>;
    /// The four coordinate columns, where the source is structure-of-arrays (the SIMD kernels
    /// load these directly; other sources are gathered lane by lane).
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        None
    }
    /// The rows, where the source is a slice of them (interleaved `x0, y0, x1, y1` values, as
    /// `.npy` files and numpy `(N, 4)` arrays hold them): the SIMD kernels transpose them a
    /// chunk at a time ([`Load::load_rows`](crate::simd::Load::load_rows)).
    fn rows(&self) -> Option<&[Segment<F>]> {
        None
    }
    /// The length of the whole batch this source is a piece of: its own, unless it is a
    /// [`Window`] (a piece that a batch driver such as `auto` hands to one of its threads). The
    /// vector kernels choose streaming stores by it: the pieces of a batch beyond the caches,
    /// written at once by several threads, are beyond the caches together.
    fn batch_len(&self) -> usize {
        self.len()
    }
}

/// A reference to a source is the source: how any source, sized or not, is seen through
/// `dyn SegmentSource` ([`Batch::of`]).
impl<F: Real, S: SegmentSource<F> + ?Sized> SegmentSource<F> for &S {
    #[inline(always)]
    fn len(&self) -> usize {
        (**self).len()
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        (**self).segment(i)
    }
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        (**self).columns()
    }
    fn rows(&self) -> Option<&[Segment<F>]> {
        (**self).rows()
    }
    fn batch_len(&self) -> usize {
        (**self).batch_len()
    }
}

/// Any [`SegmentSource`] as one concrete type, which the batch kernels are compiled for once
/// per precision in this crate (`simd::entries`), instead of once per source type in every
/// crate that calls them: columns and rows as they are (loaded as vectors), any other source
/// behind `dyn` (gathered, one call per segment).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum Batch<'a, F> {
    /// Structure-of-arrays columns, and the whole batch's length ([`SegmentSource::batch_len`]).
    Columns(SegmentsRef<'a, F>, usize),
    /// Rows, and the whole batch's length.
    Rows(&'a [Segment<F>], usize),
    /// Anything else.
    Other(&'a (dyn SegmentSource<F> + 'a)),
}

impl<'a, F: Real> Batch<'a, F> {
    /// `input` as columns or rows where it has them, else behind `dyn`.
    #[inline]
    pub fn of<S: SegmentSource<F> + ?Sized>(input: &'a &'a S) -> Self {
        let batch = input.batch_len();
        if let Some(c) = input.columns() {
            Batch::Columns(c, batch)
        } else if let Some(r) = input.rows() {
            Batch::Rows(r, batch)
        } else {
            Batch::Other(input)
        }
    }
}

impl<F: Real> SegmentSource<F> for Batch<'_, F> {
    #[inline(always)]
    fn len(&self) -> usize {
        match self {
            Batch::Columns(c, _) => c.len(),
            Batch::Rows(r, _) => r.len(),
            Batch::Other(s) => s.len(),
        }
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        match self {
            Batch::Columns(c, _) => c.segment(i),
            Batch::Rows(r, _) => r[i],
            Batch::Other(s) => s.segment(i),
        }
    }
    #[inline(always)]
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        match self {
            Batch::Columns(c, _) => Some(*c),
            _ => None,
        }
    }
    #[inline(always)]
    fn rows(&self) -> Option<&[Segment<F>]> {
        match self {
            Batch::Rows(r, _) => Some(r),
            _ => None,
        }
    }
    #[inline(always)]
    fn batch_len(&self) -> usize {
        match self {
            Batch::Columns(_, n) | Batch::Rows(_, n) => *n,
            Batch::Other(s) => s.batch_len(),
        }
    }
}

/// A borrowed structure-of-arrays batch: four caller slices of equal length, never copied.
#[derive(Clone, Copy, Debug)]
pub struct SegmentsRef<'a, F> {
    x0: &'a [F],
    y0: &'a [F],
    x1: &'a [F],
    y1: &'a [F],
}

impl<'a, F: Real> SegmentsRef<'a, F> {
    /// Views `x0[i], y0[i], x1[i], y1[i]` as segment `i`.
    ///
    /// Slices of different lengths are an [`Error::LengthMismatch`] naming the first that differs
    /// from `x0`.
    pub fn new(x0: &'a [F], y0: &'a [F], x1: &'a [F], y1: &'a [F]) -> Result<Self, Error> {
        check_len("y0", x0.len(), y0.len())?;
        check_len("x1", x0.len(), x1.len())?;
        check_len("y1", x0.len(), y1.len())?;
        Ok(SegmentsRef { x0, y0, x1, y1 })
    }

    /// The four coordinate slices `(x0, y0, x1, y1)`.
    pub fn columns(&self) -> (&'a [F], &'a [F], &'a [F], &'a [F]) {
        (self.x0, self.y0, self.x1, self.y1)
    }

    /// Segments `range` of this batch. Panics if the range is out of bounds.
    pub fn slice(&self, range: core::ops::Range<usize>) -> SegmentsRef<'a, F> {
        SegmentsRef {
            x0: &self.x0[range.clone()],
            y0: &self.y0[range.clone()],
            x1: &self.x1[range.clone()],
            y1: &self.y1[range],
        }
    }
}

/// Segments `range` of another source, as a source of its own: how a batch is cut into pieces
/// for threads without copying.
#[derive(Debug)]
pub struct Window<'a, S: ?Sized> {
    inner: &'a S,
    start: usize,
    len: usize,
}

impl<'a, S: ?Sized> Window<'a, S> {
    /// Segments `range` of `inner`. Panics if the range is reversed; the caller keeps it within
    /// `inner`'s length (reads beyond it panic in `segment`).
    pub fn new(inner: &'a S, range: core::ops::Range<usize>) -> Self {
        assert!(range.start <= range.end, "reversed range {range:?}");
        Window {
            inner,
            start: range.start,
            len: range.end - range.start,
        }
    }

    /// Where the window starts in `inner`.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The first `mid` segments and the rest. Panics if `mid > len`.
    pub fn split_at(&self, mid: usize) -> (Window<'a, S>, Window<'a, S>) {
        assert!(mid <= self.len, "split at {mid} of {}", self.len);
        let a = self.start..self.start + mid;
        let b = self.start + mid..self.start + self.len;
        (Window::new(self.inner, a), Window::new(self.inner, b))
    }
}

impl<F: Real, S: SegmentSource<F> + ?Sized> SegmentSource<F> for Window<'_, S> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        assert!(i < self.len, "segment {i} of a window of {}", self.len);
        self.inner.segment(self.start + i)
    }
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        let c = self.inner.columns()?;
        Some(c.slice(self.start..self.start + self.len))
    }
    fn rows(&self) -> Option<&[Segment<F>]> {
        Some(&self.inner.rows()?[self.start..self.start + self.len])
    }
    fn batch_len(&self) -> usize {
        self.inner.batch_len()
    }
}

impl<F: Real> SegmentSource<F> for SegmentsRef<'_, F> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.x0.len()
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        Segment::new(self.x0[i], self.y0[i], self.x1[i], self.y1[i])
    }
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        Some(*self)
    }
}

impl<F: Real> SegmentSource<F> for [Segment<F>] {
    #[inline(always)]
    fn len(&self) -> usize {
        <[Segment<F>]>::len(self)
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        self[i]
    }
    fn rows(&self) -> Option<&[Segment<F>]> {
        Some(self)
    }
}

impl<F: Real> SegmentSource<F> for Segments<F> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.x0.len()
    }
    #[inline(always)]
    fn segment(&self, i: usize) -> Segment<F> {
        self.as_ref().segment(i)
    }
    fn columns(&self) -> Option<SegmentsRef<'_, F>> {
        Some(self.as_ref())
    }
}

/// An owned structure-of-arrays batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segments<F> {
    x0: Vec<F>,
    y0: Vec<F>,
    x1: Vec<F>,
    y1: Vec<F>,
}

impl<F: Real> Segments<F> {
    /// An empty batch.
    pub fn new() -> Self {
        Segments {
            x0: Vec::new(),
            y0: Vec::new(),
            x1: Vec::new(),
            y1: Vec::new(),
        }
    }

    /// `n` segments of NaN, to be overwritten (an output buffer).
    pub fn nan(n: usize) -> Self {
        Segments {
            x0: vec![F::NAN; n],
            y0: vec![F::NAN; n],
            x1: vec![F::NAN; n],
            y1: vec![F::NAN; n],
        }
    }

    /// Appends one segment.
    pub fn push(&mut self, s: Segment<F>) {
        self.x0.push(s.x0);
        self.y0.push(s.y0);
        self.x1.push(s.x1);
        self.y1.push(s.y1);
    }

    /// Copies rows into columns.
    pub fn from_rows(rows: &[Segment<F>]) -> Self {
        let mut s = Self::new();
        rows.iter().for_each(|r| s.push(*r));
        s
    }

    /// Copies interleaved `[x0, y0, x1, y1, …]` values into columns.
    pub fn from_interleaved(values: &[F]) -> Result<Self, Error> {
        Ok(Self::from_rows(rows_from_interleaved(values)?))
    }

    /// The rows, interleaved `[x0, y0, x1, y1, …]`.
    pub fn to_interleaved(&self) -> Vec<F> {
        (0..self.x0.len())
            .flat_map(|i| {
                let s = self.segment(i);
                [s.x0, s.y0, s.x1, s.y1]
            })
            .collect()
    }

    /// Borrows the batch.
    pub fn as_ref(&self) -> SegmentsRef<'_, F> {
        SegmentsRef {
            x0: &self.x0,
            y0: &self.y0,
            x1: &self.x1,
            y1: &self.y1,
        }
    }

    /// Borrows the batch for writing.
    pub fn as_mut(&mut self) -> SegmentsMut<'_, F> {
        SegmentsMut {
            x0: &mut self.x0,
            y0: &mut self.y0,
            x1: &mut self.x1,
            y1: &mut self.y1,
        }
    }

    /// Makes this batch a copy of the first `len` segments of `src`.
    pub(crate) fn copy_from(&mut self, src: &SegmentsMut<'_, F>, len: usize) {
        for (dst, col) in [
            (&mut self.x0, &src.x0),
            (&mut self.y0, &src.y0),
            (&mut self.x1, &src.x1),
            (&mut self.y1, &src.y1),
        ] {
            dst.clear();
            dst.extend_from_slice(&col[..len]);
        }
    }

    /// How many segments.
    pub fn len(&self) -> usize {
        self.x0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.x0.is_empty()
    }
}

/// Four caller slices of equal length to write segments into, e.g. clipped segments.
#[derive(Debug)]
pub struct SegmentsMut<'a, F> {
    x0: &'a mut [F],
    y0: &'a mut [F],
    x1: &'a mut [F],
    y1: &'a mut [F],
}

impl<'a, F: Real> SegmentsMut<'a, F> {
    /// Views four mutable slices as one output batch; lengths must agree.
    pub fn new(
        x0: &'a mut [F],
        y0: &'a mut [F],
        x1: &'a mut [F],
        y1: &'a mut [F],
    ) -> Result<Self, Error> {
        check_len("y0", x0.len(), y0.len())?;
        check_len("x1", x0.len(), x1.len())?;
        check_len("y1", x0.len(), y1.len())?;
        Ok(SegmentsMut { x0, y0, x1, y1 })
    }

    /// How many segments fit.
    pub fn len(&self) -> usize {
        self.x0.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.x0.is_empty()
    }

    /// The four columns `[x0, y0, x1, y1]` for reading (where they lie: `simd_slab::Placement`).
    pub(crate) fn columns_ref(&self) -> [&[F]; 4] {
        [&*self.x0, &*self.y0, &*self.x1, &*self.y1]
    }

    /// The four columns `(x0, y0, x1, y1)` for writing.
    pub fn columns_mut(&mut self) -> (&mut [F], &mut [F], &mut [F], &mut [F]) {
        (self.x0, self.y0, self.x1, self.y1)
    }

    /// The first `mid` segments and the rest. Panics if `mid > len()`.
    pub fn split_at(self, mid: usize) -> (SegmentsMut<'a, F>, SegmentsMut<'a, F>) {
        let (x0a, x0b) = self.x0.split_at_mut(mid);
        let (y0a, y0b) = self.y0.split_at_mut(mid);
        let (x1a, x1b) = self.x1.split_at_mut(mid);
        let (y1a, y1b) = self.y1.split_at_mut(mid);
        (
            SegmentsMut::new(x0a, y0a, x1a, y1a).expect("equal lengths"),
            SegmentsMut::new(x0b, y0b, x1b, y1b).expect("equal lengths"),
        )
    }

    /// A shorter-lived view of the same columns.
    pub fn reborrow(&mut self) -> SegmentsMut<'_, F> {
        SegmentsMut {
            x0: self.x0,
            y0: self.y0,
            x1: self.x1,
            y1: self.y1,
        }
    }

    /// Writes segment `i`. Panics if `i >= len()`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, s: Segment<F>) {
        self.x0[i] = s.x0;
        self.y0[i] = s.y0;
        self.x1[i] = s.x1;
        self.y1[i] = s.y1;
    }
}

/// The column length from which [`for_each_column_chunk`] prefetches: 256K values (1 MiB of
/// `f32`, this machine's L2).
pub(crate) const PREFETCH_MIN: usize = 1 << 18;

/// Calls `body(i, [a, b, c, d])` with the vectors of every full chunk of `LANES` values from
/// `i = from + k·LANES` of four equally long columns (segments' `x0 y0 x1 y1`, rays' `ox oy dx
/// dy`), in order — from the last chunk down when `backward` — and returns where the tail
/// begins. `from` and `backward` come from `simd_slab::Placement` (`0` and `false` for the
/// whole columns in order).
///
/// The columns are cut to the whole chunks once (a panic if one is shorter than the first),
/// then each chunk is loaded through a pointer with no bounds check, and the index steps by
/// `±LANES`: once the kernel lost its mask-register work (`slab::slab_fast`) the loop's own
/// instructions showed. Against four bounds-checked slices per chunk and an index chosen per
/// chunk for the direction (`compare --dist mixed --n 64K`, alternated): `simd-slab`
/// 3,373–3,547 → 3,606–3,750 Mseg/s, `naive-slab` 4,149–4,410 → 4,406–4,646 (with the
/// unchecked stores of `simd_slab::store_as`).
///
/// Columns of at least [`PREFETCH_MIN`] values are prefetched 2 KiB ahead (behind, going
/// backward) ([`crate::simd::prefetch`]): the hardware prefetcher alone left `simd-slab` about
/// 15% below that at 1M and 16M segments (`mixed` 1M: 0.89 -> 1.03 Gseg/s; road-like 16M: 0.76
/// -> 0.90). The distance follows the kernel's speed: with a kernel twice as slow per chunk,
/// 512 bytes beat 1 KiB (`mixed` 16M, f32: 1.11–1.17 against 0.91–0.97 Gseg/s; 2 and 4 KiB slower); with
/// `slab::slab_fast`, which takes half the time per chunk, 2 KiB beats 512 bytes (`compare`,
/// alternated, Gseg/s: `mixed` 16M 1.59–1.63 → 1.83–1.85 (1 KiB 1.62–1.73, 4 KiB 1.86–1.93 against
/// 2.00–2.13 in the same runs), 2M 1.89 → 2.67, 1M 2.87 → 3.45, `road-like` 16M 1.51 → 2.05,
/// classes at 16M 1.91 → 2.25; 256K and 512K within the noise).
/// Shorter columns are not, where the four extra instructions per chunk cost the plain slab a
/// sixth at 64K (and, measured again with this loop, `naive-slab` 4.41–4.65 → 4.25–4.47 Gseg/s,
/// `simd-slab` 3.73–3.79 → 3.62–3.73).
#[inline(always)]
pub(crate) fn for_each_column_chunk<F: Real, V: crate::simd::Vector<F>>(
    columns: [&[F]; 4],
    from: usize,
    backward: bool,
    mut body: impl FnMut(usize, [V; 4]),
) -> usize {
    let n = columns[0].len() - from;
    let full = n - n % V::WIDTH;
    let cols = columns.map(|col| &col[from..from + full]);
    let prefetch_at: isize = match (n >= PREFETCH_MIN, backward) {
        (false, _) => 0,
        (true, false) => crate::simd::PREFETCH_AHEAD,
        (true, true) => -crate::simd::PREFETCH_AHEAD,
    };
    let chunks = full / V::WIDTH;
    let (mut at, step) = if backward {
        (chunks.saturating_sub(1) * V::WIDTH, -(V::WIDTH as isize))
    } else {
        (0, V::WIDTH as isize)
    };
    // One loop for both directions: with the body (the whole kernel, inlined) called from two
    // loops, it was kept out of line and each chunk passed through memory (1.35 Gseg/s).
    for _ in 0..chunks {
        let ptrs = cols.map(|col| col.as_ptr().wrapping_add(at));
        if prefetch_at != 0 {
            for p in ptrs {
                crate::simd::prefetch(p, prefetch_at);
            }
        }
        // SAFETY: `at` is `k·LANES` for one `k < chunks` (counted up from 0 or down from
        // `chunks − 1`, one step per pass), so `at + LANES ≤ full`, the length of each of `cols`:
        // the `LANES` values from `ptrs` lie in their column.
        let v = ptrs.map(|p| V::load(unsafe { core::slice::from_raw_parts(p, V::WIDTH) }));
        body(from + at, v);
        at = at.wrapping_add_signed(step);
    }
    from + full
}

/// Interleaved `[x0, y0, x1, y1, …]` values viewed in place as rows: never a copy.
///
/// `Segment<F>` has the alignment of `F`, so only the length can be wrong: a count that is not
/// a multiple of four is [`Error::RaggedRows`].
pub fn rows_from_interleaved<F: Real>(values: &[F]) -> Result<&[Segment<F>], Error> {
    bytemuck::try_cast_slice(values).map_err(|_| Error::RaggedRows(values.len()))
}

/// Raw bytes of interleaved rows (in this machine's byte order) viewed as rows: zero-copy when
/// the bytes are aligned for `F`, else copied into an aligned buffer. Never undefined behaviour.
pub fn rows_from_bytes<F: Real>(bytes: &[u8]) -> Result<Cow<'_, [Segment<F>]>, Error> {
    let row = core::mem::size_of::<Segment<F>>();
    if !bytes.len().is_multiple_of(row) {
        return Err(Error::RaggedRows(bytes.len() / core::mem::size_of::<F>()));
    }
    Ok(match bytemuck::try_cast_slice(bytes) {
        Ok(rows) => Cow::Borrowed(rows),
        Err(_) => Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
    })
}

/// Where a batch clip writes: any subset of the four outputs, each as long as the input.
///
/// Unrequested outputs are `None` and cost nothing. `t_entry`/`t_exit` are NaN on a miss or an
/// invalid segment; `class` holds [`Class`](crate::Class) codes; `segments` the clipped segments.
#[derive(Debug, Default)]
pub struct ClipOutput<'a, F> {
    /// Entry parameters.
    pub t_entry: Option<&'a mut [F]>,
    /// Exit parameters.
    pub t_exit: Option<&'a mut [F]>,
    /// Class codes, one byte per segment.
    pub class: Option<&'a mut [u8]>,
    /// Clipped segments (a NaN row on a miss).
    pub segments: Option<SegmentsMut<'a, F>>,
}

impl<'a, F: Real> ClipOutput<'a, F> {
    /// Checks every requested output against the input length `n`.
    pub fn check_len(&self, n: usize) -> Result<(), Error> {
        if let Some(t) = &self.t_entry {
            check_len("t_entry", n, t.len())?;
        }
        if let Some(t) = &self.t_exit {
            check_len("t_exit", n, t.len())?;
        }
        if let Some(c) = &self.class {
            check_len("class", n, c.len())?;
        }
        if let Some(s) = &self.segments {
            check_len("segments", n, s.len())?;
        }
        Ok(())
    }

    /// A shorter-lived view of the same outputs.
    pub fn reborrow(&mut self) -> ClipOutput<'_, F> {
        ClipOutput {
            t_entry: self.t_entry.as_deref_mut(),
            t_exit: self.t_exit.as_deref_mut(),
            class: self.class.as_deref_mut(),
            segments: self.segments.as_mut().map(SegmentsMut::reborrow),
        }
    }

    /// The outputs of the first `mid` segments and of the rest. Panics if an output is shorter
    /// than `mid`.
    pub fn split_at(self, mid: usize) -> (ClipOutput<'a, F>, ClipOutput<'a, F>) {
        fn halves<T>(s: Option<&mut [T]>, mid: usize) -> (Option<&mut [T]>, Option<&mut [T]>) {
            match s.map(|s| s.split_at_mut(mid)) {
                Some((a, b)) => (Some(a), Some(b)),
                None => (None, None),
            }
        }
        let (te_a, te_b) = halves(self.t_entry, mid);
        let (tx_a, tx_b) = halves(self.t_exit, mid);
        let (cl_a, cl_b) = halves(self.class, mid);
        let (sg_a, sg_b) = match self.segments.map(|s| s.split_at(mid)) {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        (
            ClipOutput {
                t_entry: te_a,
                t_exit: tx_a,
                class: cl_a,
                segments: sg_a,
            },
            ClipOutput {
                t_entry: te_b,
                t_exit: tx_b,
                class: cl_b,
                segments: sg_b,
            },
        )
    }
}

/// Owned results of a batch clip, for callers who do not bring their own buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipResults<F> {
    /// Entry parameters (NaN on a miss).
    pub t_entry: Vec<F>,
    /// Exit parameters (NaN on a miss).
    pub t_exit: Vec<F>,
    /// Class codes.
    pub class: Vec<u8>,
    /// Clipped segments, when asked for.
    pub segments: Option<Segments<F>>,
}

impl<F: Real> ClipResults<F> {
    /// Buffers for `n` segments (clipped segments only when `segments`), filled by `clip`,
    /// which gets every buffer `n` long: how the `clip_to_vec`s of every kernel allocate.
    pub(crate) fn filled(
        n: usize,
        segments: bool,
        clip: impl FnOnce(&mut ClipOutput<'_, F>) -> Result<(), Error>,
    ) -> Self {
        let mut t_entry = vec![F::NAN; n];
        let mut t_exit = vec![F::NAN; n];
        let mut class = vec![0u8; n];
        let mut segs = segments.then(|| Segments::nan(n));
        let mut out = ClipOutput {
            t_entry: Some(&mut t_entry),
            t_exit: Some(&mut t_exit),
            class: Some(&mut class),
            segments: segs.as_mut().map(|s| s.as_mut()),
        };
        // Every buffer was made `n` long just above, so the length check cannot fail.
        clip(&mut out).expect("buffers sized to the input");
        ClipResults {
            t_entry,
            t_exit,
            class,
            segments: segs,
        }
    }
}

fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_rows_are_viewed_not_copied() {
        let v = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let rows = rows_from_interleaved(&v).unwrap();
        assert_eq!(rows.as_ptr() as *const f32, v.as_ptr());
        assert_eq!(rows[1], Segment::new(5.0, 6.0, 7.0, 8.0));
        assert!(matches!(
            rows_from_interleaved(&v[..7]),
            Err(Error::RaggedRows(7))
        ));
    }

    #[test]
    fn unaligned_bytes_are_copied_aligned_bytes_are_not() {
        let v = [1.0f64, 2.0, 3.0, 4.0];
        let bytes: &[u8] = bytemuck::cast_slice(&v);
        let rows = rows_from_bytes::<f64>(bytes).unwrap();
        assert!(matches!(rows, Cow::Borrowed(_)));
        let mut shifted = vec![0u8; bytes.len() + 1];
        shifted[1..].copy_from_slice(bytes);
        let rows = rows_from_bytes::<f64>(&shifted[1..]).unwrap();
        assert!(matches!(rows, Cow::Owned(_)));
        assert_eq!(rows[0], Segment::new(1.0, 2.0, 3.0, 4.0));
        assert!(rows_from_bytes::<f64>(&bytes[..31]).is_err());
    }

    #[test]
    fn mismatched_columns_are_errors() {
        let a = [0.0f32; 3];
        let b = [0.0f32; 2];
        let e = SegmentsRef::new(&a, &a, &b, &a).unwrap_err();
        assert_eq!(
            e.to_string(),
            "length mismatch: x1 has 2 elements, expected 3"
        );
    }

    #[test]
    fn soa_round_trips_interleaved() {
        let v = [1.0f32, 2.0, 3.0, 4.0, -0.0, 6.0, 7.0, 8.0];
        let s = Segments::from_interleaved(&v).unwrap();
        assert_eq!(s.len(), 2);
        let back = s.to_interleaved();
        assert_eq!(
            bytemuck::cast_slice::<f32, u32>(&back),
            bytemuck::cast_slice::<f32, u32>(&v)
        );
    }
}
