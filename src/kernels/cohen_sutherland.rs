//! `cohen-sutherland`: outcodes, trivial accept and reject, then one edge at a time — in
//! parametric form, so every `t` is relative to the original segment.
//!
//! ```text
//! c0, c1 = outcodes of P0, P1          (bits LEFT, RIGHT, BOTTOM, TOP; 0 = in the closed rect)
//! t0, t1 = 0, 1
//! loop:
//!     c0 | c1 == 0 → accept [t0, t1]        c0 & c1 != 0 → reject
//!     move the end with a nonzero code to its lowest edge: t = parameter of that edge
//!     its new code: the moved end lies exactly on that edge, so only the other axis can be
//!     outside, and that is read off the parameter (t before or after the other slab)
//! ```
//!
//! The classic version recomputes the moved point's coordinates and compares them with the
//! bounds; rounding there can be many ulps of `t` off for a short segment far from the origin.
//! Comparing parameters instead keeps this algorithm's decisions those of the slab method.

use super::contract::{axis_slab, plane_t, Raw, RectLanes};
use super::sector_lut::{BOTTOM, LEFT, RIGHT, TOP};
use super::{clip_with, Clip, ClipKernel};
use crate::geom::{Rect, Segment};
use crate::real::Real;

/// Cohen–Sutherland in parametric form, one segment at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct CohenSutherland;

#[inline(always)]
fn outcode<F: Real>(r: &RectLanes<F>, x: F, y: F) -> u8 {
    let mut c = 0;
    if x < r.xmin {
        c |= LEFT;
    } else if x > r.xmax {
        c |= RIGHT;
    }
    if y < r.ymin {
        c |= BOTTOM;
    } else if y > r.ymax {
        c |= TOP;
    }
    c
}

/// The outcode bits `(low, high)` on one axis of the point at parameter `t`, given that axis's
/// slab `(near, far)` and direction. `other_in`: the other endpoint is inside, so the moved one
/// cannot pass the slab's far side (moving `P0`) or its near side (moving `P1`); only rounding
/// could say so, near `t = 1` or `0`, and such a bit would send the clip to a wrong edge.
#[inline(always)]
fn axis_code<F: Real>(
    t: F,
    (near, far): (F, F),
    rising: bool,
    (low, high): (u8, u8),
    (at_start, other_in): (bool, bool),
) -> u8 {
    let (before, after) = if rising { (low, high) } else { (high, low) };
    let before_ok = !other_in || at_start;
    let after_ok = !other_in || !at_start;
    (if before_ok && t < near { before } else { 0 }) | (if after_ok && t > far { after } else { 0 })
}

fn raw<F: Real>(r: &RectLanes<F>, s: &Segment<F>) -> Raw<F> {
    let (mut c0, mut c1) = (outcode(r, s.x0, s.y0), outcode(r, s.x1, s.y1));
    let ends_in = (c0 == 0, c1 == 0);
    let (mut t0, mut t1) = (F::ZERO, F::ONE);
    let (mut t0_y, mut t1_y) = (false, false);
    let slab_x = || axis_slab(r.xmin, r.xmax, s.x0, s.x1);
    let slab_y = || axis_slab(r.ymin, r.ymax, s.y0, s.y1);
    // Each pass clears the moved end's bits on one axis; 8 passes is more than enough.
    for _ in 0..8 {
        if c0 | c1 == 0 {
            break;
        }
        if c0 & c1 != 0 {
            return Raw::MISS;
        }
        let (code, at_start) = if c0 != 0 { (c0, true) } else { (c1, false) };
        let other_in = if at_start { ends_in.1 } else { ends_in.0 };
        let edge = code & code.wrapping_neg();
        let (t, on_y, new_code) = match edge {
            LEFT | RIGHT => {
                let bound = if edge == LEFT { r.xmin } else { r.xmax };
                let t = plane_t(bound, s.x0, s.x1);
                (
                    t,
                    false,
                    axis_code(
                        t,
                        slab_y(),
                        s.y0 < s.y1,
                        (BOTTOM, TOP),
                        (at_start, other_in),
                    ),
                )
            }
            _ => {
                let bound = if edge == BOTTOM { r.ymin } else { r.ymax };
                let t = plane_t(bound, s.y0, s.y1);
                (
                    t,
                    true,
                    axis_code(
                        t,
                        slab_x(),
                        s.x0 < s.x1,
                        (LEFT, RIGHT),
                        (at_start, other_in),
                    ),
                )
            }
        };
        if at_start {
            (t0, t0_y, c0) = (t, on_y, new_code);
        } else {
            (t1, t1_y, c1) = (t, on_y, new_code);
        }
    }
    Raw {
        entry: t0,
        exit: t1,
        entry_y: t0_y,
        exit_y: t1_y,
        valid: true,
    }
}

impl ClipKernel for CohenSutherland {
    const NAME: &'static str = "cohen-sutherland";

    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        clip_with(rect, seg, raw::<F>)
    }
}
