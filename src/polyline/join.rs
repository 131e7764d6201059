//! Joining clipped pieces into parts (SPEC §7), the one place the rule lives: the rect clip and
//! both tilings feed it the pieces of one polyline in one rect (or cell), in segment order.
//!
//! ```text
//! for each piece (segment i, t_entry, t_exit), in order:
//!     continues = a run is open, its last piece was segment i − 1 with t_exit == 1,
//!                 and this one has t_entry == 0          (both at Vi, bit for bit)
//!     otherwise close the open run, open one at this piece's start
//!     t_entry < t_exit: add this piece's end             (a Touches piece adds nothing)
//! a segment with no piece closes the run (the caller just skips it: i − 1 no longer matches)
//! close: all vertices one point → a point of contact (or nothing), else a part
//! ```
//!
//! A run of `Inside` pieces (`[0, 1]`: segments with both ends in the rect) continues itself
//! piece after piece and adds each segment's end: [`Joiner::inside`] copies those vertices in
//! one slice, the same answer as the pieces one by one. Whether a run is one point is kept as
//! it grows (each vertex against the run's first, until one differs), not found at the close.

use core::ops::Range;

use super::{Coords, Parts};
use crate::real::Real;

/// Whom a run's part belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tag {
    pub polyline: usize,
    /// The geometry, for MultiLineStrings.
    pub geometry: Option<usize>,
    /// The cell `(ix, iy)`, for tilings.
    pub cell: Option<(u32, u32)>,
}

/// The run being built for one (polyline, rect or cell).
pub(crate) struct Joiner {
    tag: Tag,
    points: bool,
    open: bool,
    /// The segment of the run's last piece.
    last: usize,
    /// That piece ended at its `P1` (`t_exit == 1`).
    end_in: bool,
    /// Where the run's vertices start in the output (in vertices).
    start: usize,
    /// Some vertex of the run differs from its first: the run is a part, not a point.
    distinct: bool,
}

impl Joiner {
    /// A joiner for `tag`'s pieces; `points` keeps single points of contact.
    pub fn new(tag: Tag, points: bool) -> Self {
        Joiner {
            tag,
            points,
            open: false,
            last: 0,
            end_in: false,
            start: 0,
            distinct: false,
        }
    }

    /// Ends the open run, if any, and tags the runs after it with `tag`: a polyline clipped in
    /// one stream with its neighbours starts its own runs.
    #[inline]
    pub fn retag<F: Real>(&mut self, out: &mut Parts<F>, tag: Tag) {
        self.close(out);
        self.tag = tag;
    }

    /// The piece of segment `seg` (after those of earlier segments), with `t_entry < t_exit`
    /// or a single point (`t_entry == t_exit`); `ends(false)` and `ends(true)` give its clipped
    /// start and end, asked for only when a vertex is taken from them.
    #[inline]
    pub fn piece<F: Real>(
        &mut self,
        out: &mut Parts<F>,
        seg: usize,
        t_entry: F,
        t_exit: F,
        mut ends: impl FnMut(bool) -> (F, F),
    ) {
        let continues = self.open && self.end_in && self.last + 1 == seg && t_entry == F::ZERO;
        if !continues {
            self.close(out);
            self.open = true;
            self.distinct = false;
            self.start = out.coords.len() / 2;
            let (x, y) = ends(false);
            out.coords.extend_from_slice(&[x, y]);
        }
        if t_entry < t_exit {
            let (x, y) = ends(true);
            out.coords.extend_from_slice(&[x, y]);
            self.note(out, 2);
        }
        self.last = seg;
        self.end_in = t_exit == F::ONE;
    }

    /// The `Inside` pieces (`[0, 1]`) of segments `segs` of `coords`, in order: the same as
    /// [`Joiner::piece`] for each, with the vertices after the first piece's copied at once.
    #[inline]
    pub fn inside<F: Real>(
        &mut self,
        out: &mut Parts<F>,
        segs: Range<usize>,
        coords: &Coords<'_, F>,
    ) {
        let Some(first) = segs.clone().next() else {
            return;
        };
        self.piece(out, first, F::ZERO, F::ONE, |end| {
            coords.vertex(first + usize::from(end))
        });
        // Each later piece continues the run (the last ended at its `P1`, this one starts at
        // its `P0`) and adds its end: vertices `first + 2 ..= segs.end`.
        let (a, b) = (first + 2, segs.end + 1);
        if a < b {
            match coords {
                Coords::Interleaved(v) => out.coords.extend_from_slice(&v[2 * a..2 * b]),
                Coords::Separated { x, y } => out
                    .coords
                    .extend(x[a..b].iter().zip(&y[a..b]).flat_map(|(&x, &y)| [x, y])),
            }
            self.note(out, 2 * (b - a));
            self.last = segs.end - 1;
        }
    }

    /// Notes whether the last `added` values (whole vertices) hold a vertex that differs from
    /// the run's first.
    #[inline(always)]
    fn note<F: Real>(&mut self, out: &Parts<F>, added: usize) {
        if !self.distinct {
            let c = &out.coords;
            let (x, y) = (c[2 * self.start], c[2 * self.start + 1]);
            self.distinct = c[c.len() - added..]
                .chunks_exact(2)
                .any(|p| p[0] != x || p[1] != y);
        }
    }

    /// Ends the open run, if any: a part, or a single point of contact.
    pub fn close<F: Real>(&mut self, out: &mut Parts<F>) {
        if !self.open {
            return;
        }
        self.open = false;
        let (x, y) = (out.coords[2 * self.start], out.coords[2 * self.start + 1]);
        let t = self.tag;
        if !self.distinct {
            out.coords.truncate(2 * self.start);
            if self.points {
                let p = &mut out.points;
                p.coords.extend_from_slice(&[x, y]);
                p.polyline.push(t.polyline as i64);
                if let Some(g) = t.geometry {
                    p.geometry.push(g as i64);
                }
                if let Some((ix, iy)) = t.cell {
                    p.ix.push(ix as i64);
                    p.iy.push(iy as i64);
                }
            }
            return;
        }
        out.offsets.push((out.coords.len() / 2) as i64);
        out.polyline.push(t.polyline as i64);
        if let Some(g) = t.geometry {
            out.geometry.push(g as i64);
        }
        if let Some((ix, iy)) = t.cell {
            out.ix.push(ix as i64);
            out.iy.push(iy as i64);
        }
    }
}
