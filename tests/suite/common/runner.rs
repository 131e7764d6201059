//! The one contract checker every algorithm, in both precisions, goes through.
//!
//! Given a rect, a segment and what an algorithm returned, it checks SPEC §1 against the exact
//! reference, with SPEC's tolerances and no looser:
//! * validity: NaN or ±∞ in, `Invalid` and NaN out;
//! * `t_entry == +0.0` iff `P0` is inside, `t_exit == 1.0` iff `P1` is inside, bit for bit, and an
//!   endpoint inside is always a hit;
//! * the far ends: `t_entry == 1.0` iff the exact entry is 1, `t_exit == +0.0` iff the exact exit
//!   is 0;
//! * hit versus miss, and the class, as in exact arithmetic, except at a graze with both
//!   endpoints outside (exact entry and exit within `GRAZE_ULPS` ulps of each other); the class
//!   agrees with the returned parameters;
//! * `t_entry`, `t_exit` within `T_ULPS` (6) ulps of the exact values;
//! * the clipped segment: inside endpoints bit for bit, cut endpoints exactly on an edge, every
//!   point in the closed rect, and close to the exact point; NaN on a miss.

use super::reference::{exact, Exact};
use slabclip::{Algorithm, Clip, Real, Rect, Segment};

/// NaN test through `f64` (exact for both types).
pub fn is_nan<F: Real>(x: F) -> bool {
    x.to_f64().is_nan()
}

/// Checks one result; the error names the algorithm, the inputs and the broken rule.
///
/// The rules are the library's [`slabclip::reference::Exact::verify_clipped`].
pub fn check<F: Real>(
    alg: Algorithm,
    r: &Rect<F>,
    s: &Segment<F>,
    c: &Clip<F>,
    cs: &Segment<F>,
) -> Result<(), String> {
    check_against(&exact(r, s), alg, r, s, c, cs)
}

/// [`check`] with the exact answer `e` for `r` and `s` computed once, for several algorithms.
pub fn check_against<F: Real>(
    e: &Exact,
    alg: Algorithm,
    r: &Rect<F>,
    s: &Segment<F>,
    c: &Clip<F>,
    cs: &Segment<F>,
) -> Result<(), String> {
    e.verify_clipped(r, s, c.t_entry, c.t_exit, c.class, cs)
        .map_err(|rule| {
            format!(
                "{alg} broke '{rule}'\n  rect {r:?}\n  seg  {s:?}\n  got  {c:?}\n  clipped {cs:?}\n  exact {e:?}"
            )
        })
}
