//! Geometry at the ground floor: rectangles, segments, and the class of a clip.

use crate::error::Error;
use crate::real::{Lane, Real};

/// A closed axis-aligned rectangle `[xmin, xmax] × [ymin, ymax]`.
///
/// Always valid once built: every bound is finite and `xmin ≤ xmax`, `ymin ≤ ymax`. A zero width
/// or height is allowed; the rect is then a segment or a point, and still closed.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Rect<F> {
    xmin: F,
    ymin: F,
    xmax: F,
    ymax: F,
}

// SAFETY: `Rect<F>` is `repr(C)` with four fields of one `Pod` float type: no padding, so its
// bytes are always initialised. Only this direction: not every four floats are a valid rect,
// so it is not `Pod` (the pairwise kernels read rects as floats, `simd_slab::RectSource`).
unsafe impl<F: Real> bytemuck::NoUninit for Rect<F> {}

impl<F: Real> Rect<F> {
    /// A rect from bounds the caller has already checked (finite, `min ≤ max`), such as two
    /// neighbouring lines of a validated grid: no checks on the hot path.
    #[inline(always)]
    pub(crate) fn from_checked(xmin: F, ymin: F, xmax: F, ymax: F) -> Self {
        debug_assert!(Rect::new(xmin, ymin, xmax, ymax).is_ok());
        Rect {
            xmin,
            ymin,
            xmax,
            ymax,
        }
    }

    /// Builds the rect, or an [`Error::InvalidRect`] naming the bad bound.
    ///
    /// Corner cases: `-0.0` and `0.0` are equal bounds; NaN or ±∞ anywhere is an error.
    pub fn new(xmin: F, ymin: F, xmax: F, ymax: F) -> Result<Self, Error> {
        let named = [
            ("xmin", xmin),
            ("ymin", ymin),
            ("xmax", xmax),
            ("ymax", ymax),
        ];
        if let Some((name, v)) = named.iter().find(|(_, v)| !v.finite()) {
            return Err(Error::InvalidRect(format!("{name} = {v} is not finite")));
        }
        if xmin > xmax {
            return Err(Error::InvalidRect(format!(
                "xmin = {xmin} is greater than xmax = {xmax}"
            )));
        }
        if ymin > ymax {
            return Err(Error::InvalidRect(format!(
                "ymin = {ymin} is greater than ymax = {ymax}"
            )));
        }
        Ok(Rect {
            xmin,
            ymin,
            xmax,
            ymax,
        })
    }

    /// The left bound.
    #[inline(always)]
    pub fn xmin(&self) -> F {
        self.xmin
    }
    /// The bottom bound.
    #[inline(always)]
    pub fn ymin(&self) -> F {
        self.ymin
    }
    /// The right bound.
    #[inline(always)]
    pub fn xmax(&self) -> F {
        self.xmax
    }
    /// The top bound.
    #[inline(always)]
    pub fn ymax(&self) -> F {
        self.ymax
    }

    /// Whether `(x, y)` lies in the closed rect (edges and corners count as inside).
    #[inline(always)]
    pub fn contains(&self, x: F, y: F) -> bool {
        self.xmin <= x && x <= self.xmax && self.ymin <= y && y <= self.ymax
    }
}

/// A segment `P(t) = P0 + t·(P1 − P0)`, `t ∈ [0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct Segment<F> {
    /// `P0.x`
    pub x0: F,
    /// `P0.y`
    pub y0: F,
    /// `P1.x`
    pub x1: F,
    /// `P1.y`
    pub y1: F,
}

// SAFETY: `Segment<F>` is `repr(C)` with four fields of one `Pod` float type: no padding, and
// every bit pattern of four floats is a valid segment.
unsafe impl<F: Real> bytemuck::Zeroable for Segment<F> {}
// SAFETY: as above.
unsafe impl<F: Real> bytemuck::Pod for Segment<F> {}

const _: () = assert!(core::mem::size_of::<Segment<f32>>() == 16);
const _: () = assert!(core::mem::align_of::<Segment<f32>>() == 4);
const _: () = assert!(core::mem::size_of::<Segment<f64>>() == 32);
const _: () = assert!(core::mem::align_of::<Segment<f64>>() == 8);

impl<F: Real> Segment<F> {
    /// The segment from `(x0, y0)` to `(x1, y1)`.
    #[inline(always)]
    pub fn new(x0: F, y0: F, x1: F, y1: F) -> Self {
        Segment { x0, y0, x1, y1 }
    }

    /// A segment whose four coordinates are NaN: what a miss clips to.
    pub const fn nan() -> Self {
        Segment {
            x0: F::NAN,
            y0: F::NAN,
            x1: F::NAN,
            y1: F::NAN,
        }
    }

    /// Whether every coordinate is finite (else the clip is [`Class::Invalid`]).
    #[inline(always)]
    pub fn is_finite(&self) -> bool {
        self.x0.finite() && self.y0.finite() && self.x1.finite() && self.y1.finite()
    }
}

/// How a segment meets a rect (SPEC §1). The `u8` codes are the ones written by `--emit class`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Class {
    /// The clip is empty.
    Outside = 0,
    /// `t_entry = 0` and `t_exit = 1`: the whole segment lies in the rect (also a zero-length
    /// segment on or in the rect).
    Inside = 1,
    /// `0 < t_entry < t_exit = 1`: starts outside, ends inside.
    Enters = 2,
    /// `0 = t_entry < t_exit < 1`: starts inside, ends outside.
    Exits = 3,
    /// `0 < t_entry < t_exit < 1`: both ends outside, a piece of positive length inside.
    Crosses = 4,
    /// `t_entry = t_exit`: one point in common (a corner graze, or an end on the boundary pointing
    /// away).
    Touches = 5,
    /// Some coordinate is NaN or ±∞.
    Invalid = 255,
}

impl Class {
    /// Every class, in code order.
    pub const ALL: [Class; 7] = [
        Class::Outside,
        Class::Inside,
        Class::Enters,
        Class::Exits,
        Class::Crosses,
        Class::Touches,
        Class::Invalid,
    ];

    /// The class of a clip result, from its parameters alone.
    ///
    /// `t_entry`, `t_exit` are NaN on a miss; the exact values `0` and `1` mark endpoints inside.
    #[inline(always)]
    pub fn of<F: Real>(valid: bool, t_entry: F, t_exit: F) -> Class {
        let code = Class::code_lanes(valid, t_entry, t_exit).to_bits_u64() as u8;
        Class::from_code(code).unwrap_or(Class::Invalid)
    }

    /// [`Class::of`] lane by lane: the one definition of how parameters map to classes, for
    /// scalar and SIMD kernels alike.
    ///
    /// Each lane is the float [`CODE_BIAS`](Real::CODE_BIAS)` + code`, whose bits end in the
    /// code's byte, so a kernel stores class bytes by truncating bits, with no float conversion.
    #[inline(always)]
    pub(crate) fn code_lanes<L: Lane>(valid: L::Mask, t_entry: L, t_exit: L) -> L {
        let end_in = t_exit.eq_(L::splat(L::Scalar::ONE));
        Class::code_lanes_known(valid, t_entry.eq_(t_entry), end_in, t_entry, t_exit)
    }

    /// [`Class::code_lanes`] for a kernel that knows which lanes `hit` and which of those have
    /// `t_exit` at the end of the range (`end_in`), from its own tests rather than by comparing
    /// the parameters again (two compares fewer). `Inside` 1, `Enters` 2, `Exits` 3 and
    /// `Crosses` 4 are `4 − 2·[end in] − [start in]`: two subtractions under masks.
    #[inline(always)]
    pub(crate) fn code_lanes_known<L: Lane>(
        valid: L::Mask,
        hit: L::Mask,
        end_in: L::Mask,
        t_entry: L,
        t_exit: L,
    ) -> L {
        let c = |k: Class| {
            L::splat(L::Scalar::from_f64(
                L::Scalar::CODE_BIAS.to_f64() + k as u8 as f64,
            ))
        };
        let (one, two) = (L::splat(L::Scalar::ONE), L::splat(L::Scalar::from_f64(2.0)));
        let start_in = t_entry.eq_(L::splat(L::Scalar::ZERO));
        let mut v = c(Class::Crosses);
        v = L::select(end_in, v - two, v);
        v = L::select(start_in, v - one, v);
        v = L::select(t_entry.eq_(t_exit), c(Class::Touches), v);
        v = L::select(hit, v, c(Class::Outside));
        L::select(valid, v, c(Class::Invalid))
    }

    /// Whether the clip is non-empty.
    #[inline(always)]
    pub fn is_hit(self) -> bool {
        !matches!(self, Class::Outside | Class::Invalid)
    }

    /// The class for a code, or `None` for a code no class has.
    pub fn from_code(code: u8) -> Option<Class> {
        Some(match code {
            0 => Class::Outside,
            1 => Class::Inside,
            2 => Class::Enters,
            3 => Class::Exits,
            4 => Class::Crosses,
            5 => Class::Touches,
            255 => Class::Invalid,
            _ => return None,
        })
    }

    /// The lower-case name, as in SPEC §1.
    pub fn name(self) -> &'static str {
        match self {
            Class::Outside => "outside",
            Class::Inside => "inside",
            Class::Enters => "enters",
            Class::Exits => "exits",
            Class::Crosses => "crosses",
            Class::Touches => "touches",
            Class::Invalid => "invalid",
        }
    }
}

/// Which pair of rect edges a clip parameter came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The left or right edge (`x = xmin` or `x = xmax`).
    X,
    /// The bottom or top edge (`y = ymin` or `y = ymax`).
    Y,
}
