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

use super::Parts;
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
        }
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
            self.start = out.coords.len() / 2;
            let (x, y) = ends(false);
            out.coords.extend_from_slice(&[x, y]);
        }
        if t_entry < t_exit {
            let (x, y) = ends(true);
            out.coords.extend_from_slice(&[x, y]);
        }
        self.last = seg;
        self.end_in = t_exit == F::ONE;
    }

    /// Ends the open run, if any: a part, or a single point of contact.
    pub fn close<F: Real>(&mut self, out: &mut Parts<F>) {
        if !self.open {
            return;
        }
        self.open = false;
        let v = &out.coords[2 * self.start..];
        let (x, y) = (v[0], v[1]);
        let one_point = v.chunks_exact(2).all(|p| p[0] == x && p[1] == y);
        let t = self.tag;
        if one_point {
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
