//! Running and timing: output buffers for one `--emit` mode, the batch split across a rayon
//! pool, and the two baselines every algorithm is judged against (the memory ceiling and the
//! read-only pass).

use std::time::{Duration, Instant};

use bytemuck::Pod;
use rayon::prelude::*;
use slabclip::kernels::NaiveSlab;
use slabclip::simd::{prefetch, PREFETCH_AHEAD};
use slabclip::{
    Algorithm, ClipOutput, Real, Rect, SegmentSource, Segments, SegmentsMut, SegmentsRef,
};

pub use crate::cli::args::Emit;

/// What one timed run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// Clip with this algorithm.
    Clip(Algorithm),
    /// Clip with [`NaiveSlab`], the baseline outside the contract.
    Naive,
    /// Read every input byte, write every output byte, no arithmetic to speak of.
    Ceiling(Stores),
    /// Read every input byte, write nothing.
    ReadOnly,
}

impl Subject {
    /// The row's name: the algorithm's, or which baseline.
    pub fn name(self) -> &'static str {
        match self {
            Subject::Clip(a) => a.name(),
            Subject::Naive => NaiveSlab::NAME,
            Subject::Ceiling(stores) => stores.label(),
            Subject::ReadOnly => "read-only pass",
        }
    }

    /// Every output of `input` (clipped segments too) from this subject, when it clips.
    pub fn clip_to_vec<F: Real>(
        self,
        rect: &Rect<F>,
        input: &Segments<F>,
    ) -> Option<slabclip::ClipResults<F>> {
        match self {
            Subject::Clip(a) => Some(a.clip_to_vec(rect, input, true)),
            Subject::Naive => Some(NaiveSlab::clip_to_vec(rect, input, true)),
            Subject::Ceiling(_) | Subject::ReadOnly => None,
        }
    }
}

/// How the memory ceiling writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stores {
    /// Ordinary stores, as the kernels write: each output cache line is read before it is
    /// written.
    Plain,
    /// Non-temporal (streaming) stores: no read of the output lines, often the faster for
    /// batches far beyond the caches. Plain stores on other targets than x86-64.
    Streaming,
}

impl Stores {
    /// Both, in the order rows list them.
    pub const ALL: [Stores; 2] = [Stores::Plain, Stores::Streaming];

    /// How the row is named.
    pub fn label(self) -> &'static str {
        match self {
            Stores::Plain => "memory ceiling (plain stores)",
            Stores::Streaming => "memory ceiling (streaming stores)",
        }
    }
}

/// The output buffers of one `--emit` mode (the others stay empty), allocated and touched once.
pub struct Outputs<F> {
    emit: Emit,
    t_entry: Vec<F>,
    t_exit: Vec<F>,
    class: Vec<u8>,
    /// Clipped segments' columns `x0, y0, x1, y1`.
    segments: [Vec<F>; 4],
}

impl<F: Real> Outputs<F> {
    /// Buffers for `n` segments, written once so that no timed run pays for page faults.
    pub fn new(emit: Emit, n: usize) -> Self {
        let n_if = |e: Emit| if emit == e { n } else { 0 };
        Outputs {
            emit,
            t_entry: vec![F::NAN; n_if(Emit::T)],
            t_exit: vec![F::NAN; n_if(Emit::T)],
            class: vec![0xAA; n_if(Emit::Class)],
            segments: core::array::from_fn(|_| vec![F::NAN; n_if(Emit::Segments)]),
        }
    }

    /// The buffers cut into pieces of `chunk` rows, each a [`ClipOutput`] of the requested mode.
    fn views(&mut self, chunk: usize) -> Vec<ClipOutput<'_, F>> {
        let chunk = chunk.max(1);
        match self.emit {
            Emit::T => self
                .t_entry
                .chunks_mut(chunk)
                .zip(self.t_exit.chunks_mut(chunk))
                .map(|(a, b)| ClipOutput {
                    t_entry: Some(a),
                    t_exit: Some(b),
                    ..Default::default()
                })
                .collect(),
            Emit::Class => self
                .class
                .chunks_mut(chunk)
                .map(|c| ClipOutput {
                    class: Some(c),
                    ..Default::default()
                })
                .collect(),
            Emit::Segments => {
                let [x0, y0, x1, y1] = &mut self.segments;
                x0.chunks_mut(chunk)
                    .zip(y0.chunks_mut(chunk))
                    .zip(x1.chunks_mut(chunk).zip(y1.chunks_mut(chunk)))
                    .map(|((x0, y0), (x1, y1))| ClipOutput {
                        segments: Some(
                            SegmentsMut::new(x0, y0, x1, y1).expect("chunks of equal columns"),
                        ),
                        ..Default::default()
                    })
                    .collect()
            }
        }
    }

    /// Whether row `i` here and row `j` of `other` hold the same bits (any NaN equals any NaN:
    /// kernels need not agree on a NaN's payload).
    pub fn same_row(&self, i: usize, other: &Outputs<F>, j: usize) -> bool {
        let same = |a: F, b: F| {
            a.to_bits_u64() == b.to_bits_u64() || (a.to_f64().is_nan() && b.to_f64().is_nan())
        };
        match self.emit {
            Emit::T => {
                same(self.t_entry[i], other.t_entry[j]) && same(self.t_exit[i], other.t_exit[j])
            }
            Emit::Class => self.class[i] == other.class[j],
            Emit::Segments => (0..4).all(|c| same(self.segments[c][i], other.segments[c][j])),
        }
    }

    /// How many rows differ from `other`'s (same length), bit for bit.
    pub fn differences(&self, other: &Outputs<F>) -> usize {
        let n = self.len();
        (0..n).filter(|&i| !self.same_row(i, other, i)).count()
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        match self.emit {
            Emit::T => self.t_entry.len(),
            Emit::Class => self.class.len(),
            Emit::Segments => self.segments[0].len(),
        }
    }

    /// The outputs of one row of full results, in this mode, as one-row [`Outputs`].
    pub fn from_full(emit: Emit, r: &slabclip::ClipResults<F>, k: usize) -> Outputs<F> {
        let mut o = Outputs::new(emit, 1);
        match emit {
            Emit::T => {
                o.t_entry[0] = r.t_entry[k];
                o.t_exit[0] = r.t_exit[k];
            }
            Emit::Class => o.class[0] = r.class[k],
            Emit::Segments => {
                let s = r.segments.as_ref().expect("full results hold segments");
                let s = s.segment(k);
                for (col, v) in o.segments.iter_mut().zip([s.x0, s.y0, s.x1, s.y1]) {
                    col[0] = v;
                }
            }
        }
        o
    }
}

/// The batch and the pool a subject runs on.
pub struct Runner<'a, F> {
    rect: Rect<F>,
    input: SegmentsRef<'a, F>,
    pool: rayon::ThreadPool,
    threads: usize,
}

/// How long each subject runs untimed before each of its samples ([`Runner::time`]).
const WARM_UP: Duration = Duration::from_millis(30);

/// Pieces per thread when a batch is split: a few, so a slow thread does not hold up the rest.
const PIECES_PER_THREAD: usize = 4;

/// The passes that fill `sample` when `k` passes took `took` (one at least).
fn passes_for(sample: Duration, took: Duration, k: usize) -> usize {
    let scaled = sample.as_secs_f64() / took.as_secs_f64().max(1e-9) * k as f64;
    (scaled.ceil() as usize).clamp(1, 1 << 30)
}

/// How one subject was timed: `passes` passes over the batch per sample, and per sample the
/// time of one pass (the sample's time over `passes`).
pub struct Timing {
    /// Passes per sample, calibrated so that a sample lasts at least `--sample-ms`.
    pub passes: usize,
    /// One entry per sample (`--repeat` of them): seconds per pass.
    pub per_pass: Vec<Duration>,
}

impl<'a, F: Real> Runner<'a, F> {
    /// A runner over `input` with a pool of `threads` threads.
    pub fn new(rect: Rect<F>, input: SegmentsRef<'a, F>, threads: usize) -> Result<Self, String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        Ok(Runner {
            rect,
            input,
            pool,
            threads,
        })
    }

    /// Rows per piece for `subject`: the whole batch on one thread and for `auto` (which splits
    /// it itself), else a multiple of 64 rows (whole SIMD vectors and cache lines) giving each
    /// thread a few pieces.
    fn chunk(&self, subject: Subject) -> usize {
        let n = self.input.len();
        if self.threads == 1 || subject == Subject::Clip(Algorithm::Auto) {
            return n.max(1);
        }
        n.div_ceil(self.threads * PIECES_PER_THREAD)
            .next_multiple_of(64)
    }

    /// Runs `subject` once over the whole batch into `out`, untimed (in the pool).
    pub fn run(&self, subject: Subject, out: &mut Outputs<F>) {
        self.pool.install(|| self.passes(subject, out, 1));
    }

    /// Times every subject: first the passes per sample of each (see `calibrate`), then
    /// `repeat` rounds, each taking one sample of every subject in turn (after [`WARM_UP`] of
    /// untimed passes of it), so that a slow spell of a busy machine hits all alike.
    ///
    /// Everything runs inside the pool, entered once: a pass pays for no hand-off to the pool
    /// (with one thread, for none at all), and the timer is read twice per sample, not per pass,
    /// so a small batch in the caches is timed at the speed of its loop.
    /// `done` is called after each subject's calibration and after each sample (for a progress
    /// bar): `subjects.len() × (repeat + 1)` calls in all.
    pub fn time(
        &self,
        subjects: &[Subject],
        out: &mut Outputs<F>,
        repeat: usize,
        sample: Duration,
        done: &(dyn Fn() + Sync),
    ) -> Vec<Timing> {
        self.pool.install(|| {
            let mut timings: Vec<Timing> = subjects
                .iter()
                .map(|&s| {
                    let passes = self.calibrate(s, out, sample);
                    done();
                    Timing {
                        passes,
                        per_pass: Vec::with_capacity(repeat),
                    }
                })
                .collect();
            for _ in 0..repeat {
                for (&s, t) in subjects.iter().zip(&mut timings) {
                    // Untimed passes first, for at least `WARM_UP`: with short samples (the
                    // default 1 ms is one or two passes of 1M segments) a vector kernel that
                    // ran right after a scalar one was up to a quarter slower, for longer than
                    // one pass. `mixed` 1M, `simd-slab` (after `cohen-sutherland`) against the
                    // same code in `auto`'s row (after `hybrid`), Mseg/s: no warm-up 1,088 /
                    // 1,379; one pass 896 / 976; 10 ms 1,229 / 1,311; 30 ms 1,213 / 1,250
                    // (road-like 1,427 / 1,423).
                    let mut warm = Duration::ZERO;
                    while warm < WARM_UP {
                        warm += self.passes(s, out, t.passes);
                    }
                    let mut took = self.passes(s, out, t.passes);
                    if took < sample / 2 {
                        // Calibrated during a busy spell (a trial slowed by the other tenants
                        // or test processes): scaled to this quieter sample, and taken again.
                        t.passes = passes_for(sample, took, t.passes);
                        took = self.passes(s, out, t.passes);
                    }
                    t.per_pass.push(took.div_f64(t.passes as f64));
                    done();
                }
            }
            timings
        })
    }

    /// Passes per sample for `subject` so that a sample lasts at least `sample` (one at least):
    /// doubling the passes until they take an eighth of it, then scaled from the fastest of
    /// three such trials (a busy machine only ever adds time, so the fastest is the loop's own).
    /// A batch whose first two passes each last `sample` gets one pass, without more trials.
    fn calibrate(&self, subject: Subject, out: &mut Outputs<F>, sample: Duration) -> usize {
        let mut k = 1usize;
        let mut took = self.passes(subject, out, k);
        if took >= sample {
            took = self.passes(subject, out, k);
            if took >= sample {
                return 1;
            }
        }
        while k < 1 << 30 && took < sample / 8 {
            k *= 2;
            took = self.passes(subject, out, k);
        }
        let fastest = (0..2)
            .map(|_| self.passes(subject, out, k))
            .fold(took, Duration::min);
        passes_for(sample, fastest, k)
    }

    /// Runs `subject` `k` times over the whole batch into `out` and returns how long the `k`
    /// passes took together. Call it inside the pool: with more than one thread the pieces go
    /// to the current pool's threads, and `auto` splits across it.
    fn passes(&self, subject: Subject, out: &mut Outputs<F>, k: usize) -> Duration {
        let rect = self.rect;
        let chunk = self.chunk(subject);
        let pieces = split(self.input, chunk);
        let mut views = out.views(chunk);
        let work = |(s, o): (&SegmentsRef<'_, F>, &mut ClipOutput<'_, F>)| match subject {
            Subject::Clip(alg) => alg
                .clip(&rect, s, o)
                .expect("output pieces match input pieces"),
            Subject::Naive => {
                NaiveSlab::clip(&rect, s, o).expect("output pieces match input pieces")
            }
            Subject::Ceiling(Stores::Plain) => ceiling(s, o),
            Subject::Ceiling(Stores::Streaming) => ceiling_streaming(s, o),
            Subject::ReadOnly => {
                std::hint::black_box(read_only(s));
            }
        };
        let start = Instant::now();
        for _ in 0..k {
            if pieces.len() == 1 {
                work((&pieces[0], &mut views[0]));
            } else {
                pieces.par_iter().zip(views.par_iter_mut()).for_each(work);
            }
            std::hint::black_box(&mut views);
        }
        start.elapsed()
    }
}

/// The batch cut into pieces of `chunk` rows (one empty piece for an empty batch).
fn split<F: Real>(s: SegmentsRef<'_, F>, chunk: usize) -> Vec<SegmentsRef<'_, F>> {
    let (x0, y0, x1, y1) = s.columns();
    if x0.is_empty() {
        return vec![s];
    }
    x0.chunks(chunk)
        .zip(y0.chunks(chunk))
        .zip(x1.chunks(chunk).zip(y1.chunks(chunk)))
        .map(|((x0, y0), (x1, y1))| SegmentsRef::new(x0, y0, x1, y1).expect("equal chunks"))
        .collect()
}

/// An unsigned integer as wide as a float: the ceiling moves bits, not numbers, so the loops
/// are plain integer work the compiler vectorizes whatever the float rules.
trait Word: Pod + core::ops::BitXor<Output = Self> {
    fn low_byte(self) -> u8;
    fn widen(self) -> u64;
}
impl Word for u32 {
    #[inline(always)]
    fn low_byte(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn widen(self) -> u64 {
        self as u64
    }
}
impl Word for u64 {
    #[inline(always)]
    fn low_byte(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn widen(self) -> u64 {
        self
    }
}

/// A column of floats as words (of the same width, or bytes).
fn words<F: Real, W: Pod>(c: &[F]) -> &[W] {
    bytemuck::cast_slice(c)
}

/// The memory ceiling on one piece: reads all four input columns and writes every output byte
/// the mode asks for, with one XOR per value so that every input byte is really loaded and every
/// output depends on the input (nothing for the compiler to drop).
fn ceiling<F: Real>(s: &SegmentsRef<'_, F>, out: &mut ClipOutput<'_, F>) {
    if size_of::<F>() == 4 {
        ceiling_words::<F, u32>(s, out)
    } else {
        ceiling_words::<F, u64>(s, out)
    }
}

fn ceiling_words<F: Real, W: Word>(s: &SegmentsRef<'_, F>, out: &mut ClipOutput<'_, F>) {
    let (x0, y0, x1, y1) = s.columns();
    let (x0, y0, x1, y1) = (words::<F, W>(x0), words(y0), words(x1), words(y1));
    if let (Some(te), Some(tx)) = (out.t_entry.as_deref_mut(), out.t_exit.as_deref_mut()) {
        let (te, tx): (&mut [W], &mut [W]) =
            (bytemuck::cast_slice_mut(te), bytemuck::cast_slice_mut(tx));
        let mut k = 0;
        for_lines([x0, y0, x1, y1], |[a, b, c, d]| {
            let (te, tx) = (&mut te[k..k + a.len()], &mut tx[k..k + a.len()]);
            for ((e, x), ((a, b), (c, d))) in te
                .iter_mut()
                .zip(tx.iter_mut())
                .zip(a.iter().zip(b).zip(c.iter().zip(d)))
            {
                *e = *a ^ *b;
                *x = *c ^ *d;
            }
            k += a.len();
        });
    }
    if let Some(class) = out.class.as_deref_mut() {
        let mut k = 0;
        for_lines([x0, y0, x1, y1], |[a, b, c, d]| {
            let class = &mut class[k..k + a.len()];
            for (o, ((a, b), (c, d))) in class.iter_mut().zip(a.iter().zip(b).zip(c.iter().zip(d)))
            {
                *o = (*a ^ *b ^ *c ^ *d).low_byte();
            }
            k += a.len();
        });
    }
    if let Some(segs) = out.segments.as_mut() {
        let (o0, o1, o2, o3) = segs.columns_mut();
        for (o, i) in [(o0, x0), (o1, y0), (o2, x1), (o3, y1)] {
            let o: &mut [W] = bytemuck::cast_slice_mut(o);
            o.copy_from_slice(i);
        }
    }
}

/// The memory ceiling with streaming stores: one pass per output column, each reading the
/// input columns it depends on and streaming its bytes out ([`stream_xor`]). `t_entry` is
/// `x0 ^ y0` and `t_exit` is `x1 ^ y1`, bit for bit as [`ceiling`] writes them; clipped
/// segments are the input copied. Class codes (1 byte out per 16 in) are written as [`ceiling`]
/// does: skipping the read of so few output lines would change little (`compare` does not time
/// this variant for them).
fn ceiling_streaming<F: Real>(s: &SegmentsRef<'_, F>, out: &mut ClipOutput<'_, F>) {
    let (x0, y0, x1, y1) = s.columns();
    let (x0, y0, x1, y1) = (words::<F, u8>(x0), words(y0), words(x1), words(y1));
    match (out.t_entry.as_deref_mut(), out.t_exit.as_deref_mut()) {
        (Some(e), Some(x)) => {
            let (e, x) = (bytemuck::cast_slice_mut(e), bytemuck::cast_slice_mut(x));
            if !stream_xor_pair([e, x], [x0, y0, x1, y1]) {
                stream_xor(e, x0, Some(y0));
                stream_xor(x, x1, Some(y1));
            }
        }
        (e, x) => {
            if let Some(d) = e {
                stream_xor(bytemuck::cast_slice_mut(d), x0, Some(y0));
            }
            if let Some(d) = x {
                stream_xor(bytemuck::cast_slice_mut(d), x1, Some(y1));
            }
        }
    }
    if let Some(d) = out.segments.as_mut() {
        let (d0, d1, d2, d3) = d.columns_mut();
        for (dst, src) in [d0, d1, d2, d3].into_iter().zip([x0, y0, x1, y1]) {
            stream_xor(bytemuck::cast_slice_mut(dst), src, None);
        }
    }
    stream_fence();
    if out.class.is_some() {
        let mut class_only = ClipOutput {
            class: out.class.as_deref_mut(),
            ..Default::default()
        };
        ceiling(s, &mut class_only);
    }
}

/// `dst[0] = a ^ b` and `dst[1] = c ^ d` in one pass over the four inputs (all of one length),
/// as the kernels read them, with 64-byte non-temporal stores and the inputs prefetched as the
/// kernels prefetch them; plain stores before the first 64-byte boundary of the outputs and
/// after the last. `false` (nothing written) when AVX-512 is not built or the two outputs lie
/// differently across 64-byte lines, and [`stream_xor`] writes them one at a time.
fn stream_xor_pair(dst: [&mut [u8]; 2], [a, b, c, d]: [&[u8]; 4]) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    {
        use std::arch::x86_64::{
            __m512i, _mm512_loadu_si512, _mm512_stream_si512, _mm512_xor_si512,
        };
        let [e, x] = dst;
        let n = e.len();
        assert!(x.len() == n && [a, b, c, d].iter().all(|s| s.len() == n));
        let head = e.as_ptr().align_offset(64).min(n);
        if x.as_ptr().align_offset(64).min(n) != head {
            return false;
        }
        for i in 0..head {
            e[i] = a[i] ^ b[i];
            x[i] = c[i] ^ d[i];
        }
        let end = head + (n - head) / 64 * 64;
        for i in (head..end).step_by(64) {
            for src in [a, b, c, d] {
                prefetch(src.as_ptr().wrapping_add(i), PREFETCH_AHEAD);
            }
            // SAFETY: `i + 64 <= end <= n`, the length of all six slices (asserted), so each
            // 64-byte access is in bounds; both outputs are on a 64-byte boundary at `head`
            // (checked) and `i − head` is a multiple of 64, as the streaming store requires;
            // the loads are unaligned. AVX-512F is enabled for this build (the cfg).
            unsafe {
                let load = |s: &[u8]| _mm512_loadu_si512(s.as_ptr().add(i) as *const __m512i);
                _mm512_stream_si512(
                    e.as_mut_ptr().add(i) as *mut __m512i,
                    _mm512_xor_si512(load(a), load(b)),
                );
                _mm512_stream_si512(
                    x.as_mut_ptr().add(i) as *mut __m512i,
                    _mm512_xor_si512(load(c), load(d)),
                );
            }
        }
        for i in end..n {
            e[i] = a[i] ^ b[i];
            x[i] = c[i] ^ d[i];
        }
        true
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    {
        let _ = (dst, a, b, c, d);
        false
    }
}

/// Writes `a ^ b` (or `a` alone) into `dst`, all of one length, with non-temporal stores where
/// `dst` is 16-byte aligned, plain stores for the unaligned head and the tail.
#[cfg(target_arch = "x86_64")]
fn stream_xor(dst: &mut [u8], a: &[u8], b: Option<&[u8]>) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128, _mm_xor_si128};
    let n = dst.len();
    assert!(a.len() == n && b.is_none_or(|b| b.len() == n));
    let plain = |dst: &mut [u8], from: usize| {
        for (i, d) in dst.iter_mut().enumerate().skip(from) {
            *d = a[i] ^ b.map_or(0, |b| b[i]);
        }
    };
    let head = dst.as_ptr().align_offset(16).min(n);
    plain(&mut dst[..head], 0);
    let end = head + (n - head) / 16 * 16;
    let mut i = head;
    while i < end {
        // SAFETY: `i + 16 <= end <= n`, the length of all three slices (asserted), so each
        // 16-byte access is in bounds; `dst + i` is 16-byte aligned (`head` aligns it, and
        // `i − head` is a multiple of 16), as `_mm_stream_si128` requires; the loads are
        // unaligned. SSE2 is part of x86-64.
        unsafe {
            let mut v = _mm_loadu_si128(a.as_ptr().add(i) as *const __m128i);
            if let Some(b) = b {
                v = _mm_xor_si128(v, _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i));
            }
            _mm_stream_si128(dst.as_mut_ptr().add(i) as *mut __m128i, v);
        }
        i += 16;
    }
    plain(&mut dst[..], end);
}

#[cfg(not(target_arch = "x86_64"))]
fn stream_xor(dst: &mut [u8], a: &[u8], b: Option<&[u8]>) {
    for (i, d) in dst.iter_mut().enumerate() {
        *d = a[i] ^ b.map_or(0, |b| b[i]);
    }
}

/// Orders the streaming stores before whatever follows (they are weakly ordered).
fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` has no preconditions; SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

/// The read-only pass on one piece: folds every input value into one word (integer XOR, which
/// the compiler vectorizes), returned so that it cannot be dropped.
fn read_only<F: Real>(s: &SegmentsRef<'_, F>) -> u64 {
    if size_of::<F>() == 4 {
        read_words::<F, u32>(s).widen()
    } else {
        read_words::<F, u64>(s).widen()
    }
}

fn read_words<F: Real, W: Word>(s: &SegmentsRef<'_, F>) -> W {
    let (x0, y0, x1, y1) = s.columns();
    let cols: [&[W]; 4] = [words(x0), words(y0), words(x1), words(y1)];
    // The whole 64-byte lines in vectors (AVX-512: four loads and two three-way XORs a line),
    // prefetched as the kernels prefetch; the rest word by word.
    let (done, folded) = read_lines(cols.map(bytemuck::cast_slice::<W, u8>));
    let mut acc: W = folded
        .chunks_exact(size_of::<W>())
        .fold(W::zeroed(), |acc, w| {
            acc ^ bytemuck::pod_read_unaligned::<W>(w)
        });
    let rest = done / size_of::<W>();
    for (((a, b), c), d) in cols[0][rest..]
        .iter()
        .zip(&cols[1][rest..])
        .zip(&cols[2][rest..])
        .zip(&cols[3][rest..])
    {
        acc = acc ^ *a ^ *b ^ *c ^ *d;
    }
    acc
}

/// XORs the whole 64-byte lines of four equally long byte columns together, prefetching
/// ahead as the kernels do: how many bytes of each it covered, and the XOR of the lines
/// (nothing without AVX-512: the caller's word loop then reads everything).
fn read_lines(cols: [&[u8]; 4]) -> (usize, [u8; 64]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    {
        use std::arch::x86_64::{
            __m512i, _mm512_loadu_si512, _mm512_setzero_si512, _mm512_storeu_si512,
            _mm512_ternarylogic_epi64,
        };
        let n = cols[0].len();
        assert!(cols.iter().all(|c| c.len() == n));
        let end = n / 64 * 64;
        // SAFETY: AVX-512F is enabled for this build (the cfg); `setzero` has no precondition.
        let mut acc = unsafe { _mm512_setzero_si512() };
        for i in (0..end).step_by(64) {
            for c in cols {
                prefetch(c.as_ptr().wrapping_add(i), PREFETCH_AHEAD);
            }
            // SAFETY: `i + 64 <= end <= n`, the length of every column (asserted), so each
            // 64-byte load is in bounds; the loads are unaligned. AVX-512F is enabled (cfg).
            unsafe {
                let load = |c: &[u8]| _mm512_loadu_si512(c.as_ptr().add(i) as *const __m512i);
                let ab = _mm512_ternarylogic_epi64::<0x96>(acc, load(cols[0]), load(cols[1]));
                acc = _mm512_ternarylogic_epi64::<0x96>(ab, load(cols[2]), load(cols[3]));
            }
        }
        let mut out = [0u8; 64];
        // SAFETY: `out` holds 64 bytes; the store is unaligned. AVX-512F is enabled (cfg).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr() as *mut __m512i, acc) };
        (end, out)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    {
        let _ = cols;
        (0, [0; 64])
    }
}

/// Calls `f` with the same 64-byte stretch of each of four equally long columns in turn (the
/// last stretch shorter), having asked for the stretches `PREFETCH_AHEAD` bytes ahead first,
/// as the kernels' loops prefetch large columns (`buffers::for_each_column_chunk`): the
/// ceilings read the input as fast as the kernels can, not slower.
#[inline(always)]
fn for_lines<W: Pod>(cols: [&[W]; 4], mut f: impl FnMut([&[W]; 4])) {
    let line = (64 / size_of::<W>()).max(1);
    let n = cols[0].len();
    let mut i = 0;
    while i < n {
        let end = (i + line).min(n);
        for c in cols {
            prefetch(c.as_ptr().wrapping_add(i), PREFETCH_AHEAD);
        }
        f(cols.map(|c| &c[i..end]));
        i = end;
    }
}

/// The median of some durations (the mean of the middle two for an even count).
pub fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    match t.len() {
        0 => Duration::ZERO,
        n if !n.is_multiple_of(2) => t[n / 2],
        n => (t[n / 2 - 1] + t[n / 2]) / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slabclip::workload::Dist;

    /// The read-only pass folds every input value, whole lines and tail: its answer is the
    /// XOR of all the words, at lengths around a line.
    #[test]
    fn the_read_only_pass_reads_every_value() {
        let w = Dist::Mixed.generate::<f32>(1000, 5);
        let (x0, y0, x1, y1) = w.segments.as_ref().columns();
        for n in [0, 1, 15, 16, 17, 33, 1000] {
            let s = SegmentsRef::new(&x0[..n], &y0[..n], &x1[..n], &y1[..n]).unwrap();
            let want = [x0, y0, x1, y1]
                .iter()
                .flat_map(|c| c[..n].iter())
                .fold(0u64, |acc, v| acc ^ u64::from(v.to_bits()));
            assert_eq!(read_only(&s), want, "n = {n}");
        }
    }

    #[test]
    fn every_subject_fills_every_piece_at_any_thread_count() {
        let w = Dist::Mixed.generate::<f32>(10_007, 3);
        for emit in [Emit::T, Emit::Class, Emit::Segments] {
            let one = Runner::new(w.rect, w.segments.as_ref(), 1).unwrap();
            let mut want = Outputs::new(emit, 10_007);
            one.run(Subject::Clip(Algorithm::SlabScalar), &mut want);
            let mut naive_one = Outputs::new(emit, 10_007);
            one.run(Subject::Naive, &mut naive_one);
            let mut ceiling_one = Outputs::new(emit, 10_007);
            one.run(Subject::Ceiling(Stores::Plain), &mut ceiling_one);
            let mut streamed = Outputs::new(emit, 10_007);
            one.run(Subject::Ceiling(Stores::Streaming), &mut streamed);
            assert_eq!(streamed.differences(&ceiling_one), 0, "{emit:?}");
            assert!(
                want.differences(&Outputs::new(emit, 10_007)) > 0,
                "{emit:?}"
            );
            for threads in [2, 3] {
                let r = Runner::new(w.rect, w.segments.as_ref(), threads).unwrap();
                for alg in [Algorithm::SlabScalar, Algorithm::Auto] {
                    let mut got = Outputs::new(emit, 10_007);
                    r.run(Subject::Clip(alg), &mut got);
                    assert_eq!(got.differences(&want), 0, "{emit:?} {alg} {threads}");
                }
                let mut naive = Outputs::new(emit, 10_007);
                r.run(Subject::Naive, &mut naive);
                assert_eq!(naive.differences(&naive_one), 0, "{emit:?} {threads}");
                for stores in Stores::ALL {
                    let mut c = Outputs::new(emit, 10_007);
                    r.run(Subject::Ceiling(stores), &mut c);
                    assert_eq!(
                        c.differences(&ceiling_one),
                        0,
                        "{stores:?} {emit:?} {threads}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_ceiling_writes_what_it_read() {
        let w = Dist::Mixed.generate::<f64>(1000, 3);
        let r = Runner::new(w.rect, w.segments.as_ref(), 1).unwrap();
        let (x0, y0, x1, y1) = w.segments.as_ref().columns();
        for stores in Stores::ALL {
            let mut out = Outputs::new(Emit::Segments, 1000);
            r.run(Subject::Ceiling(stores), &mut out);
            assert!(out.segments == [x0, y0, x1, y1].map(|c| c.to_vec()));
            let mut t = Outputs::<f64>::new(Emit::T, 1000);
            r.run(Subject::Ceiling(stores), &mut t);
            assert_eq!(t.t_entry[7].to_bits(), x0[7].to_bits() ^ y0[7].to_bits());
        }
        // Every head length and tail of the streaming writer.
        let src: Vec<u8> = (0..100).collect();
        let key: Vec<u8> = (0..100).map(|i| 0x5A ^ i).collect();
        for a in 0..17 {
            for b in a..100 {
                let mut dst = [0u8; 100];
                stream_xor(&mut dst[a..b], &src[a..b], None);
                stream_fence();
                assert_eq!(dst[a..b], src[a..b]);
                assert!(dst[..a].iter().chain(&dst[b..]).all(|&x| x == 0));
                stream_xor(&mut dst[a..b], &src[a..b], Some(&key[a..b]));
                stream_fence();
                assert!((a..b).all(|i| dst[i] == src[i] ^ key[i]));
            }
        }
    }

    #[test]
    fn a_sample_of_a_small_batch_runs_many_passes_and_reports_one() {
        let w = Dist::Mixed.generate::<f32>(256, 3);
        let subjects = [
            Subject::Clip(Algorithm::LiangBarsky),
            Subject::Naive,
            Subject::Ceiling(Stores::Plain),
        ];
        for threads in [1, 2] {
            let r = Runner::new(w.rect, w.segments.as_ref(), threads).unwrap();
            let mut out = Outputs::new(Emit::T, 256);
            let sample = Duration::from_millis(4);
            let steps = std::sync::atomic::AtomicUsize::new(0);
            let timings = r.time(&subjects, &mut out, 3, sample, &|| {
                steps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
            assert_eq!(timings.len(), 3);
            // The progress callback: one calibration and 3 samples per subject.
            assert_eq!(steps.into_inner(), 3 * (3 + 1));
            for (s, t) in subjects.iter().zip(&timings) {
                // A pass over 256 segments takes microseconds: a sample needs many.
                assert!(t.passes > 10, "{s:?} {threads}: {} passes", t.passes);
                assert_eq!(t.per_pass.len(), 3);
                for &p in &t.per_pass {
                    // One pass, not the sample: well under the sample's time.
                    assert!(p > Duration::ZERO && p * 4 < sample, "{s:?} {p:?}");
                }
            }
        }
        // A batch whose one pass outlasts the sample gets one pass per sample.
        let big = Dist::Mixed.generate::<f32>(1 << 16, 3);
        let r = Runner::new(big.rect, big.segments.as_ref(), 1).unwrap();
        let mut out = Outputs::new(Emit::T, 1 << 16);
        let t = r.time(
            &[Subject::Clip(Algorithm::LiangBarsky)],
            &mut out,
            1,
            Duration::from_nanos(1),
            &|| {},
        );
        assert_eq!(t[0].passes, 1);
    }

    #[test]
    fn medians() {
        let ms = Duration::from_millis;
        assert_eq!(median(&[ms(5), ms(1), ms(3)]), ms(3));
        assert_eq!(median(&[ms(4), ms(1), ms(2), ms(9)]), ms(3));
    }
}
