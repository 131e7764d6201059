//! `liang-barsky` (seed 001): the four boundaries one at a time, with an early out.
//!
//! For boundary `k` with `p_k = ∓d` and `q_k = ±(p0 − bound)`, the line crosses the boundary at
//! `t_k = q_k / p_k`, inward where `p_k < 0` and outward where `p_k > 0`:
//!
//! ```text
//! near = −∞, far = +∞
//! for k in left, right, bottom, top:
//!     p_k == 0:  q_k < 0 → miss (parallel and outside), else no constraint
//!     p_k < 0:   near = max(near, t_k)        p_k > 0:  far = min(far, t_k)
//!     max(near, 0) > min(far, 1) → miss (early out, unless an endpoint is inside)
//! entry = max(near, 0), exit = min(far, 1)
//! ```
//!
//! Points on an edge count as inside (seed 001's comment, case A): `q_k < 0` is strict. The
//! comment's corner cases (entry = exit at a corner, the line meeting the rect while the segment
//! does not) fall out of the final comparison, done once in `contract::finish`.

use super::contract::{plane_t, Raw, RectLanes};
use super::{clip_with, Clip, ClipKernel};
use crate::geom::{Rect, Segment};
use crate::real::Real;

/// Liang–Barsky with an early out, one segment at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct LiangBarsky;

fn raw<F: Real>(r: &RectLanes<F>, s: &Segment<F>) -> Raw<F> {
    // (bound, p0, p1, the boundary is a low bound, on axis y)
    let boundaries = [
        (r.xmin, s.x0, s.x1, true, false),
        (r.xmax, s.x0, s.x1, false, false),
        (r.ymin, s.y0, s.y1, true, true),
        (r.ymax, s.y0, s.y1, false, true),
    ];
    // The early out trusts rounded parameters, which is safe only for a sure miss: with an
    // endpoint inside, two parameters within rounding of 1 (or 0) may cross, and the answer
    // needs every boundary (for the axis the clipped point is cut on).
    let sure_miss_possible = !(r.contains(s.x0, s.y0) | r.contains(s.x1, s.y1));
    let (mut near, mut far) = (-F::INFINITY, F::INFINITY);
    let (mut near_y, mut far_y) = (false, false);
    for (bound, p0, p1, low, on_y) in boundaries {
        if p0 == p1 {
            // p_k = 0: parallel. q_k < 0 means p0 is beyond this boundary.
            let outside = if low { p0 < bound } else { p0 > bound };
            if outside {
                return Raw::MISS;
            }
            continue;
        }
        let t = plane_t(bound, p0, p1);
        // p_k < 0 (entering) for a low bound with d > 0, or a high bound with d < 0.
        let entering = low == (p0 < p1);
        if entering && t > near {
            (near, near_y) = (t, on_y);
        } else if !entering && t < far {
            (far, far_y) = (t, on_y);
        }
        let sofar = Raw::from_planes(near, far, near_y, far_y);
        if sure_miss_possible && sofar.entry > sofar.exit {
            return Raw::MISS;
        }
    }
    Raw::from_planes(near, far, near_y, far_y)
}

impl ClipKernel for LiangBarsky {
    const NAME: &'static str = "liang-barsky";

    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        clip_with(rect, seg, raw::<F>)
    }
}
