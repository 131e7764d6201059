//! The clip algorithms, one file each, behind one face: [`ClipKernel`].
//!
//! | name | file | idea |
//! | --- | --- | --- |
//! | `liang-barsky` | `liang_barsky.rs` | per boundary `p_k`, `q_k`, early out |
//! | `slab-scalar` | `slab.rs` | branch-free min/max of the two slabs |
//! | `sector-lut` | `sector_lut.rs` | 3×3 sectors of both ends index a table of the edges worth testing |
//! | `cohen-sutherland` | `cohen_sutherland.rs` | outcodes, trivial accept/reject, edge by edge |
//! | `simd-slab` | `simd_slab.rs` | `slab.rs` run on `wide` vectors across segments |
//! | `hybrid` | `hybrid.rs` | a vector outcode prefilter; the undecided rest packed for `simd-slab` |
//! | `auto` | `auto.rs` | picks `simd-slab` or `hybrid` per batch; rayon for large batches |
//!
//! Beside them, outside the contract and outside [`Algorithm`]: [`NaiveSlab`] (`naive.rs`), the
//! textbook slab with no exactness, the baseline `compare` and the benches measure against.
//!
//! Each finds the *raw* entry and exit parameters; `contract.rs` turns them into SPEC §1's exact
//! answer, the same way for all. A new algorithm is a new file here with a `ClipKernel` impl and
//! a row in [`Algorithm`]; the shared tests then run it through the whole differential suite.

pub(crate) mod contract;

pub(crate) mod auto;
mod cohen_sutherland;
mod hybrid;
mod liang_barsky;
mod naive;
mod sector_lut;
pub(crate) mod simd_slab;
pub(crate) mod slab;

pub use auto::{auto_rule, PARALLEL_MIN};
pub use cohen_sutherland::CohenSutherland;
pub use hybrid::Hybrid;
pub use liang_barsky::LiangBarsky;
pub use naive::NaiveSlab;
pub use sector_lut::{SectorLut, SECTOR_TABLE};
pub use simd_slab::SimdSlab;
pub use slab::SlabScalar;

use crate::buffers::{ClipOutput, ClipResults, SegmentSource};
use crate::error::Error;
use crate::geom::{Axis, Class, Rect, Segment};
use crate::real::Real;
use contract::{Finished, Raw, RectLanes};

/// The clip of one segment by one rect (SPEC §1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clip<F> {
    /// Where the segment enters the rect: `0` exactly iff `P0` is inside; NaN on a miss.
    pub t_entry: F,
    /// Where it leaves: `1` exactly iff `P1` is inside; NaN on a miss.
    pub t_exit: F,
    /// How the segment meets the rect.
    pub class: Class,
    /// The pair of edges `t_entry` came from (meaningful when `0 < t_entry < 1`).
    pub entry_axis: Axis,
    /// The pair of edges `t_exit` came from (meaningful when `0 < t_exit < 1`).
    pub exit_axis: Axis,
}

impl<F: Real> Clip<F> {
    pub(crate) fn from_finished(f: Finished<F>) -> Self {
        Clip {
            t_entry: f.t_entry,
            t_exit: f.t_exit,
            class: Class::of(f.valid, f.t_entry, f.t_exit),
            entry_axis: if f.entry_y { Axis::Y } else { Axis::X },
            exit_axis: if f.exit_y { Axis::Y } else { Axis::X },
        }
    }

    /// Whether the clip is non-empty.
    pub fn is_hit(&self) -> bool {
        self.class.is_hit()
    }

    /// The clipped segment `P(t_entry) → P(t_exit)` of `seg` (the segment this clip came from).
    ///
    /// An endpoint inside comes back bit for bit; an endpoint cut by an edge has exactly that
    /// edge's bound as one coordinate; every point lies in the closed rect. `Touches` gives the
    /// same point twice; a miss gives a row of NaN.
    #[inline(always)]
    pub fn segment(&self, rect: &Rect<F>, seg: &Segment<F>) -> Segment<F> {
        let f = Finished {
            valid: self.class != Class::Invalid,
            t_entry: self.t_entry,
            t_exit: self.t_exit,
            hit_t: (self.t_entry, self.t_exit),
            entry_y: self.entry_axis == Axis::Y,
            exit_y: self.exit_axis == Axis::Y,
            hit: self.class.is_hit(),
            end_in: self.class.is_hit() && self.t_exit == F::ONE,
        };
        contract::clipped(&RectLanes::splat(rect), seg, &f)
    }
}

/// The face every clip algorithm has: a name, a one-segment clip, and a batch clip.
///
/// Results follow SPEC §1 whichever kernel computes them; kernels differ only in speed.
pub trait ClipKernel {
    /// The name used on the command line and in reports.
    const NAME: &'static str;

    /// Clips one segment.
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F>;

    /// Clips a batch into the requested outputs.
    ///
    /// Errors, before any output is written, when an output's length differs from the input's.
    fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
        rect: &Rect<F>,
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) -> Result<(), Error> {
        let n = input.len();
        out.check_len(n)?;
        for i in 0..n {
            let seg = input.segment(i);
            out.put(i, rect, &seg, &Self::clip_one(rect, &seg));
        }
        Ok(())
    }
}

impl<F: Real> ClipOutput<'_, F> {
    /// Writes the clip of segment `i` into whichever outputs were asked for.
    #[inline(always)]
    pub(crate) fn put(&mut self, i: usize, rect: &Rect<F>, seg: &Segment<F>, c: &Clip<F>) {
        if let Some(t) = self.t_entry.as_deref_mut() {
            t[i] = c.t_entry;
        }
        if let Some(t) = self.t_exit.as_deref_mut() {
            t[i] = c.t_exit;
        }
        if let Some(k) = self.class.as_deref_mut() {
            k[i] = c.class as u8;
        }
        if let Some(s) = self.segments.as_mut() {
            s.set(i, c.segment(rect, seg));
        }
    }
}

/// Runs an algorithm's raw step through the shared contract: how scalar kernels implement
/// [`ClipKernel::clip_one`].
#[inline(always)]
fn clip_with<F: Real>(
    rect: &Rect<F>,
    seg: &Segment<F>,
    raw: fn(&RectLanes<F>, &Segment<F>) -> Raw<F>,
) -> Clip<F> {
    let r = RectLanes::splat(rect);
    let raw = Raw {
        valid: seg.is_finite(),
        ..raw(&r, seg)
    };
    Clip::from_finished(contract::finish(&r, seg, raw))
}

/// Every algorithm by name, for the library, the benches and the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// [`LiangBarsky`].
    LiangBarsky,
    /// [`SlabScalar`].
    SlabScalar,
    /// [`SectorLut`].
    SectorLut,
    /// [`CohenSutherland`].
    CohenSutherland,
    /// [`SimdSlab`].
    SimdSlab,
    /// [`Hybrid`].
    Hybrid,
    /// The engine's own choice for the batch: `hybrid` when a sample of the batch is mostly
    /// trivial, else `simd-slab`; split across rayon's threads when the batch is large.
    Auto,
}

impl Algorithm {
    /// Every concrete algorithm (not `Auto`), in the order reports list them.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::LiangBarsky,
        Algorithm::SlabScalar,
        Algorithm::SectorLut,
        Algorithm::CohenSutherland,
        Algorithm::SimdSlab,
        Algorithm::Hybrid,
    ];

    /// The name, as accepted by [`Algorithm::from_name`] and `--algorithm`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::LiangBarsky => LiangBarsky::NAME,
            Algorithm::SlabScalar => SlabScalar::NAME,
            Algorithm::SectorLut => SectorLut::NAME,
            Algorithm::CohenSutherland => CohenSutherland::NAME,
            Algorithm::SimdSlab => SimdSlab::NAME,
            Algorithm::Hybrid => Hybrid::NAME,
            Algorithm::Auto => "auto",
        }
    }

    /// The algorithm called `name`, or [`Error::UnknownAlgorithm`] listing the names there are.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .chain([Algorithm::Auto])
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL
                    .iter()
                    .chain(&[Algorithm::Auto])
                    .map(|a| a.name())
                    .collect();
                Error::UnknownAlgorithm(name.to_string(), names.join(", "))
            })
    }

    /// The kernel this algorithm runs: `simd-slab` for `Auto` (on one thread or several), itself
    /// for the others.
    pub fn resolve(self) -> Algorithm {
        match self {
            Algorithm::Auto => Algorithm::SimdSlab,
            a => a,
        }
    }

    /// Clips one segment with this algorithm.
    pub fn clip_one<F: Real>(self, rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        match self {
            Algorithm::LiangBarsky => LiangBarsky::clip_one(rect, seg),
            Algorithm::SectorLut => SectorLut::clip_one(rect, seg),
            Algorithm::CohenSutherland => CohenSutherland::clip_one(rect, seg),
            Algorithm::SimdSlab | Algorithm::Hybrid | Algorithm::Auto => {
                SimdSlab::clip_one(rect, seg)
            }
            Algorithm::SlabScalar => SlabScalar::clip_one(rect, seg),
        }
    }

    /// Clips a batch into the requested outputs (see [`ClipKernel::clip`]) on the calling
    /// thread; only `Auto` splits a large batch across rayon's current pool.
    pub fn clip<F: Real, S: SegmentSource<F> + ?Sized>(
        self,
        rect: &Rect<F>,
        input: &S,
        out: &mut ClipOutput<'_, F>,
    ) -> Result<(), Error> {
        match self {
            Algorithm::LiangBarsky => LiangBarsky::clip(rect, input, out),
            Algorithm::SlabScalar => SlabScalar::clip(rect, input, out),
            Algorithm::SectorLut => SectorLut::clip(rect, input, out),
            Algorithm::CohenSutherland => CohenSutherland::clip(rect, input, out),
            Algorithm::SimdSlab => SimdSlab::clip(rect, input, out),
            Algorithm::Hybrid => Hybrid::clip(rect, input, out),
            Algorithm::Auto => auto::clip(rect, input, out),
        }
    }

    /// Clips a batch into freshly allocated buffers; clipped segments only when `segments`.
    pub fn clip_to_vec<F: Real, S: SegmentSource<F> + ?Sized>(
        self,
        rect: &Rect<F>,
        input: &S,
        segments: bool,
    ) -> ClipResults<F> {
        ClipResults::filled(input.len(), segments, |out| self.clip(rect, input, out))
    }
}

impl core::str::FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Algorithm::from_name(s)
    }
}

impl core::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
