//! [`cast_segments_with`]: the closest hit of every ray among a set of walls, through a
//! [`Scene`] built for the call when the index pays for its build ([`CastMethod::Auto`]), else by the brute force
//! ([`cast_segments`]). Both give the same bits (the scene's contract), so the choice changes
//! only the time.
//!
//! The rule ([`index_pays`]) was read off `benches/scene_auto.rs`: the brute force costs about
//! `N·M` ray × wall tests, the index a build of about `M` and then about `log M` per ray, so the
//! index wins once there are enough walls for one ray's walk to beat a pass over all of them,
//! and enough rays to pay back the build. `docs/guide/scenes.md` has the measured table.

use super::{bvh, Scene};
use crate::buffers::{SegmentSource, SegmentsRef};
use crate::cast::ray_segments::check_count_n;
use crate::cast::{cast_segments, check_t_max, RaysRef, SegmentsCastOutput};
use crate::error::Error;
use crate::real::Real;

/// Fewer walls than this: the brute force, whatever the number of rays. Measured: one ray's
/// walk of the index (about 1 µs) costs as much as a vector pass over some 500 walls (about
/// 2 ns a wall), so below about 500 walls the index never pays and at 512 it breaks even.
pub const INDEX_MIN_WALLS: usize = 1024;

/// Fewer rays than this: the brute force, whatever the number of walls. Measured: the build
/// (about 0.3 µs a wall) is paid back from about 150 rays (many walls) to 250 (1,024 walls).
pub const INDEX_MIN_RAYS: usize = 256;

/// How [`cast_segments_with`] finds the closest hits: by the rule, or one way always.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CastMethod {
    /// A scene where [`index_pays`], else the brute force.
    #[default]
    Auto,
    /// [`cast_segments`]: every ray against every wall.
    BruteForce,
    /// A [`Scene`] built for the call.
    Scene,
}

impl CastMethod {
    /// Every method, in the order their names are listed.
    pub const ALL: [CastMethod; 3] = [CastMethod::Auto, CastMethod::BruteForce, CastMethod::Scene];

    /// `"auto"`, `"brute-force"` or `"scene"`.
    pub fn name(self) -> &'static str {
        match self {
            CastMethod::Auto => "auto",
            CastMethod::BruteForce => "brute-force",
            CastMethod::Scene => "scene",
        }
    }

    /// The method of that name; an [`Error::InvalidArgument`] listing the names otherwise.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown cast method {name:?} (expected one of: auto, brute-force, scene)"
                ))
            })
    }
}

/// Whether [`CastMethod::Auto`] builds a scene for `rays` rays against `walls` walls.
pub fn index_pays(rays: usize, walls: usize) -> bool {
    walls >= INDEX_MIN_WALLS && rays >= INDEX_MIN_RAYS && walls <= bvh::MAX_WALLS
}

/// [`cast_segments`]'s answer, bit for bit, by `method`: through a scene index built for
/// this call ([`CastMethod::Scene`], or [`CastMethod::Auto`] where [`index_pays`]) or by the
/// brute force. Returns whether it built a scene.
///
/// Errors before any work, as [`cast_segments`]: `t_max` NaN or negative, an output of the
/// wrong length, more walls than the float type indexes exactly (or, for
/// [`CastMethod::Scene`], than a scene holds).
pub fn cast_segments_with<F: Real>(
    method: CastMethod,
    rays: &RaysRef<'_, F>,
    walls: &SegmentsRef<'_, F>,
    t_max: F,
    out: SegmentsCastOutput<'_, F>,
) -> Result<bool, Error> {
    check_t_max(t_max)?;
    check_count_n::<F>(walls.len())?;
    out.check(rays.len())?;
    let index = match method {
        CastMethod::Auto => index_pays(rays.len(), walls.len()),
        CastMethod::BruteForce => false,
        CastMethod::Scene => true,
    };
    if index {
        Scene::new(walls)?.cast(rays, t_max, out)?;
    } else {
        cast_segments(rays, walls, t_max, out)?;
    }
    Ok(index)
}
