//! `sector-lut` (seed 000): the 3×3 sectors of both endpoints index a table of the only edges
//! worth testing, so trivially inside and trivially outside segments cost no division at all.
//!
//! ```text
//!   6 | 7 | 8        sector = 3·row + col, where col is 0 / 1 / 2 for x < xmin / in / > xmax
//!  ---+---+---       and row likewise for y (row 0 below ymin). Sector 4 is the closed rect.
//!   3 | 4 | 5
//!  ---+---+---       table[s0][s1] = (edges the segment can enter through,
//!   0 | 1 | 2                         edges it can leave through), or "reject"
//! ```
//!
//! The edges `P0` lies beyond are the only ones it can enter through, the edges `P1` lies beyond
//! the only ones it can leave through, and two endpoints beyond the same edge can never meet the
//! rect. [`SECTOR_TABLE`] is generated from that rule at compile time; a test checks it against
//! a brute-force search over segments between every pair of sectors.

use super::contract::{plane_t, Raw, RectLanes};
use super::{clip_with, Clip, ClipKernel};
use crate::geom::{Rect, Segment};
use crate::real::Real;

/// Edge bit: the left edge `x = xmin`.
pub const LEFT: u8 = 1;
/// Edge bit: the right edge `x = xmax`.
pub const RIGHT: u8 = 2;
/// Edge bit: the bottom edge `y = ymin`.
pub const BOTTOM: u8 = 4;
/// Edge bit: the top edge `y = ymax`.
pub const TOP: u8 = 8;
/// Flag in the entry byte: the segment cannot meet the rect.
pub const REJECT: u8 = 0x80;

/// The 9×9×2 table: `SECTOR_TABLE[s0 * 9 + s1] = [entry edges | REJECT, exit edges]`.
pub const SECTOR_TABLE: [[u8; 2]; 81] = build_table();

/// The edges a point in `sector` lies beyond.
pub const fn beyond(sector: usize) -> u8 {
    let (row, col) = (sector / 3, sector % 3);
    let x = match col {
        0 => LEFT,
        2 => RIGHT,
        _ => 0,
    };
    let y = match row {
        0 => BOTTOM,
        2 => TOP,
        _ => 0,
    };
    x | y
}

const fn build_table() -> [[u8; 2]; 81] {
    let mut t = [[0u8; 2]; 81];
    let mut i = 0;
    while i < 81 {
        let (b0, b1) = (beyond(i / 9), beyond(i % 9));
        t[i] = if b0 & b1 != 0 { [REJECT, 0] } else { [b0, b1] };
        i += 1;
    }
    t
}

/// The sector of `(x, y)` around the rect (NaN lands in the middle column or row).
#[inline(always)]
fn sector<F: Real>(r: &RectLanes<F>, x: F, y: F) -> usize {
    let col = if x < r.xmin {
        0
    } else if x > r.xmax {
        2
    } else {
        1
    };
    let row = if y < r.ymin {
        0
    } else if y > r.ymax {
        2
    } else {
        1
    };
    3 * row + col
}

/// The sector-lookup-table clipper, one segment at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SectorLut;

/// The boundary parameter of `edge` and whether that edge is horizontal.
#[inline(always)]
fn edge_t<F: Real>(r: &RectLanes<F>, s: &Segment<F>, edge: u8) -> (F, bool) {
    match edge {
        LEFT => (plane_t(r.xmin, s.x0, s.x1), false),
        RIGHT => (plane_t(r.xmax, s.x0, s.x1), false),
        BOTTOM => (plane_t(r.ymin, s.y0, s.y1), true),
        _ => (plane_t(r.ymax, s.y0, s.y1), true),
    }
}

fn raw<F: Real>(r: &RectLanes<F>, s: &Segment<F>) -> Raw<F> {
    let [enter, leave] = SECTOR_TABLE[sector(r, s.x0, s.y0) * 9 + sector(r, s.x1, s.y1)];
    if enter & REJECT != 0 {
        return Raw::MISS;
    }
    let (mut near, mut near_y) = (-F::INFINITY, false);
    let (mut far, mut far_y) = (F::INFINITY, false);
    for edge in [LEFT, RIGHT, BOTTOM, TOP] {
        if enter & edge != 0 {
            let (t, y) = edge_t(r, s, edge);
            if t > near {
                (near, near_y) = (t, y);
            }
        }
        if leave & edge != 0 {
            let (t, y) = edge_t(r, s, edge);
            if t < far {
                (far, far_y) = (t, y);
            }
        }
    }
    Raw::from_planes(near, far, near_y, far_y)
}

impl ClipKernel for SectorLut {
    const NAME: &'static str = "sector-lut";

    #[inline]
    fn clip_one<F: Real>(rect: &Rect<F>, seg: &Segment<F>) -> Clip<F> {
        clip_with(rect, seg, raw::<F>)
    }
}
