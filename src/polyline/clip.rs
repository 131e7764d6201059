//! Polylines clipped to one rect, or to one rect per polyline (per geometry for
//! MultiLineStrings).
//!
//! ```text
//! for each block of polylines (rayon), for each polyline, 32 vertices at a time:
//!     one bit per coordinate: below the rect's lower bound (or NaN), above its upper bound
//!     segments with both ends inside      → Inside [0, 1]: runs of them copied at once
//!     both ends beyond one bound          → a miss (§1), skipped
//!     the rest (they cross an edge)       → the segment clip (slab-scalar's body), its cut
//!                                           vertices Clip::segment's; joined into parts
//!                                           (join.rs); two or more in a window: clipped
//!                                           together on the level's vectors first
//! ```

use core::ops::Range;

use super::join::{Joiner, Tag};
use super::window::{self, EVEN, WINDOW};
use super::{Coords, Layout, MultiPolylines, PartOptions, Parts, Polylines};
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::kernels::contract::{clipped, RectLanes};
use crate::kernels::simd_slab::MAX_LANES;
use crate::kernels::slab::slab_clip;
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
        let mut cut = Cuts::default();
        // One dispatch a block: the loop over its polylines is compiled at each level.
        dispatch!(I => match rects {
            // The block's polylines as one stream of windows.
            RectsFor::One(rect) => {
                let geo = layout.geometry_of(block.start);
                clip_lines::<F, F::Simd<I>>(&mut cut, layout, block, geo, &rect, options, out);
            }
            RectsFor::Each(rects) => layout.for_each_line(
                block,
                #[inline(always)]
                |line| {
                    let (j, rect) = (line.index, &rects[line.item]);
                    clip_lines::<F, F::Simd<I>>(&mut cut, layout, j..j + 1, line.item, rect, options, out);
                }
            ),
        });
    });
}

/// Where a window of vertices lies against the rect ([`window::bits`], not strict): `lo` is
/// set where the coordinate is below the rect's lower bound or NaN, `hi` where it is above the
/// upper bound or NaN (`!(v ≥ lo)`, `!(v ≤ hi)`).
#[derive(Clone, Copy)]
struct Codes {
    lo: u64,
    hi: u64,
}

impl Codes {
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

/// Clips the polylines `lines` (`geo`: the geometry holding the first, for MultiLineStrings)
/// to `rect`, their vertices as one stream of windows of [`WINDOW`] vertices (overlapping by
/// one) classified by [`Codes`], the segments from one polyline to the next masked out: runs
/// of inside segments copied at once ([`Joiner::inside`]), misses skipped, every other segment
/// clipped by the slab's body (the bits of [`SlabScalar::clip_one`](crate::SlabScalar) and
/// [`Clip::segment`](crate::Clip::segment)): alone ([`clip_piece`]) when it is the window's only
/// one, else with the window's others on vectors ([`Cuts`]) before the window's pieces are
/// joined in order. Road-like polylines of 50 vertices (`f32`, in L2) clipped as one stream ran
/// 1.2× as fast as one polyline at a time (windows straddling two polylines, no loop a
/// polyline): docs/guide/polylines.md.
#[inline(always)]
fn clip_lines<F: Real, V: Vector<F>>(
    cut: &mut Cuts<F>,
    layout: &Layout<'_, '_, F>,
    lines: Range<usize>,
    mut geo: usize,
    rect: &Rect<F>,
    options: &PartOptions,
    out: &mut Parts<F>,
) {
    let poly = layout.lines;
    let coords = poly.coords();
    let start_of = |j: usize| poly.vertices(j).start;
    let (first, end) = (start_of(lines.start), poly.vertices(lines.end - 1).end);
    let tag = |j: usize, geo: usize| Tag {
        polyline: j,
        geometry: layout.geometry.map(|_| geo),
        cell: None,
    };
    let mut j = Joiner::new(tag(lines.start, geo), options.points);
    // The polyline whose runs `j` builds, and the vertex it ends before.
    let (mut line, mut line_end) = (lines.start, poly.vertices(lines.start).end);
    // The next polyline whose start cuts a window.
    let mut next = lines.start + 1;
    let (lo, hi) = ([rect.xmin(), rect.ymin()], [rect.xmax(), rect.ymax()]);
    let mut w = first;
    while w + 1 < end {
        let e = (w + WINDOW).min(end);
        let (below, above) = window::bits::<F, V, false>(&coords, w, lo, hi);
        let codes = Codes {
            lo: below,
            hi: above,
        };
        let (mut inside, mut careful) = codes.segments(e - w - 1);
        // The segment into each polyline's first vertex joins two polylines: none.
        let mut cuts = 0u64;
        while next < lines.end && start_of(next) < e {
            let s = start_of(next);
            if s > w {
                cuts |= 1 << (2 * (s - 1 - w));
            }
            next += 1;
        }
        inside &= !cuts;
        careful &= !cuts;
        let batched = careful & careful.wrapping_sub(1) != 0;
        if batched {
            cut.clip::<V>(&coords, w, careful, rect);
        }
        let mut k_cut = 0;
        let mut todo = inside | careful;
        while todo != 0 {
            let k = todo.trailing_zeros() as usize;
            let i = w + k / 2;
            if i + 1 >= line_end {
                // The first piece of a later polyline.
                while poly.vertices(line).end <= i + 1 {
                    line += 1;
                }
                line_end = poly.vertices(line).end;
                geo = layout.geometry_from(geo, line);
                j.retag(out, tag(line, geo));
            }
            if inside >> k & 1 == 1 {
                // The run of inside segments from `k`.
                let n = (!(inside >> k) & EVEN).trailing_zeros() as usize / 2;
                j.inside(out, i..i + n, &coords);
                todo &= !(u64::MAX >> (64 - 2 * n) << k);
            } else {
                if batched {
                    cut.give(k_cut, i, &mut j, out);
                    k_cut += 1;
                } else {
                    clip_piece(&coords, i, rect, &mut j, out);
                }
                todo &= todo - 1;
            }
        }
        w = e - 1;
    }
    j.close(out);
}

/// The clips of one window's careful segments, in their order: which are hits, `t_entry`,
/// `t_exit` and the clipped ends. Clipping them a vector at a time, rather than one by one
/// where the window finds them, made the `f64` clip of random walks faster (their windows that
/// have two or more hold 3.6 on average); a window's single one stays scalar, where a vector
/// measured slower on road-like `f32` lines (docs/guide/polylines.md).
struct Cuts<F> {
    hit: u64,
    t: [[F; WINDOW + MAX_LANES]; 2],
    ends: [[F; WINDOW + MAX_LANES]; 4],
}

impl<F: Real> Default for Cuts<F> {
    fn default() -> Self {
        Cuts {
            hit: 0,
            t: [[F::ZERO; WINDOW + MAX_LANES]; 2],
            ends: [[F::ZERO; WINDOW + MAX_LANES]; 4],
        }
    }
}

impl<F: Real> Cuts<F> {
    /// Clips the segments `w + k` whose bit `2k` is set in `careful`, a vector of them at a
    /// time: `slab_clip` and `clipped` on the level's lanes, the body `slab-scalar` runs on
    /// one, so the same bits (lanes past the last segment repeat the first).
    #[inline(always)]
    fn clip<V: Vector<F>>(
        &mut self,
        coords: &Coords<'_, F>,
        w: usize,
        careful: u64,
        rect: &Rect<F>,
    ) {
        let r = RectLanes::<V>::splat(rect);
        let (mut bits, mut n) = (careful, 0);
        self.hit = 0;
        while bits != 0 {
            let mut g = [[F::ZERO; MAX_LANES]; 4];
            let mut m = 0;
            while bits != 0 && m < V::WIDTH {
                let s = coords.segment(w + bits.trailing_zeros() as usize / 2);
                for (c, v) in g.iter_mut().zip([s.x0, s.y0, s.x1, s.y1]) {
                    c[m] = v;
                }
                m += 1;
                bits &= bits - 1;
            }
            for c in g.iter_mut() {
                let first = c[0];
                c[m..V::WIDTH].fill(first);
            }
            let s = Segment {
                x0: V::load(&g[0]),
                y0: V::load(&g[1]),
                x1: V::load(&g[2]),
                y1: V::load(&g[3]),
            };
            let f = slab_clip(&r, &s);
            let c = clipped(&r, &s, &f);
            self.hit |= (V::bits(f.hit) & ((1 << m) - 1)) << n;
            f.t_entry.write(&mut self.t[0][n..]);
            f.t_exit.write(&mut self.t[1][n..]);
            for (e, v) in self.ends.iter_mut().zip([c.x0, c.y0, c.x1, c.y1]) {
                v.write(&mut e[n..]);
            }
            n += m;
        }
    }

    /// The `k`-th clip, of segment `i`, given to `j` (nothing on a miss).
    #[inline(always)]
    fn give(&self, k: usize, i: usize, j: &mut Joiner, out: &mut Parts<F>) {
        if self.hit >> k & 1 == 0 {
            return;
        }
        let e = &self.ends;
        j.piece(out, i, self.t[0][k], self.t[1][k], |end| {
            if end {
                (e[2][k], e[3][k])
            } else {
                (e[0][k], e[1][k])
            }
        });
    }
}

/// Segment `i` clipped alone and given to `j` (no piece on a miss or a non-finite coordinate):
/// the slab's body on one lane, inlined into the window loop and so compiled at its level.
/// Called out of line, through `SlabScalar::clip_one` and `Clip::segment`, these segments took
/// 29 % of the road-like `f32` clip (docs/guide/polylines.md).
#[inline(always)]
fn clip_piece<F: Real>(
    coords: &Coords<'_, F>,
    i: usize,
    rect: &Rect<F>,
    j: &mut Joiner,
    out: &mut Parts<F>,
) {
    let (r, seg) = (RectLanes::<F>::splat(rect), coords.segment(i));
    let f = slab_clip(&r, &seg);
    if !f.hit {
        return;
    }
    let ends = clipped(&r, &seg, &f);
    j.piece(out, i, f.t_entry, f.t_exit, |end| {
        if end {
            (ends.x1, ends.y1)
        } else {
            (ends.x0, ends.y0)
        }
    });
}
