//! Lidar scans: P poses `(x, y, heading)` × K beam angles, one ray per pair.
//!
//! Beam `k` of pose `p` is the ray from `(x[p], y[p])` along
//!
//! ```text
//! (ch, sh) = (cos h, sin h)    h = heading[p] as f64      (std's f64 sin_cos)
//! (ca, sa) = (cos a, sin a)    a = angles[k] as f64
//! dx = (ch·ca − sh·sa) rounded to F     dy = (sh·ca + ch·sa) rounded to F
//! ```
//!
//! every operation in `f64`: the rotation of the beam's unit vector by the heading, so a scan
//! takes `P + K` sines and cosines rather than `P·K`. `|D|` is 1 within a few ulps, so `t` is
//! the range. [`lidar_rays`] returns these rays; a scan answers exactly what
//! [`Scene::cast`](super::Scene::cast) answers on them. A pose's beams walk the tree together
//! (`fan.rs`: a node is tested once for the whole fan, not once per beam), each beam keeping its
//! own search, so the bits are those of casting each beam alone; `benches/scene.rs` measured
//! the scan at about twice the rate of casting the same rays as a batch.

use crate::cast::{check_len, Rays};
use crate::error::Error;
use crate::real::Real;

/// A borrowed batch of poses: three caller slices of equal length.
#[derive(Clone, Copy, Debug)]
pub struct PosesRef<'a, F> {
    pub(crate) x: &'a [F],
    pub(crate) y: &'a [F],
    pub(crate) heading: &'a [F],
}

impl<'a, F: Real> PosesRef<'a, F> {
    /// Pose `i` is at `(x[i], y[i])` facing `heading[i]` (radians, counter-clockwise from +x);
    /// slices of different lengths are an [`Error::LengthMismatch`].
    pub fn new(x: &'a [F], y: &'a [F], heading: &'a [F]) -> Result<Self, Error> {
        check_len("y", x.len(), y.len())?;
        check_len("heading", x.len(), heading.len())?;
        Ok(PosesRef { x, y, heading })
    }

    /// How many poses.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Poses `start..end`.
    pub(crate) fn slice(&self, start: usize, end: usize) -> Self {
        PosesRef {
            x: &self.x[start..end],
            y: &self.y[start..end],
            heading: &self.heading[start..end],
        }
    }
}

/// The cosines and sines of the beam angles, in `f64`.
pub(crate) fn beam_table<F: Real>(angles: &[F]) -> Vec<(f64, f64)> {
    angles
        .iter()
        .map(|a| {
            let (s, c) = a.to_f64().sin_cos();
            (c, s)
        })
        .collect()
}

/// `(ca, sa)` turned by `(ch, sh)`, rounded to `F`.
#[inline(always)]
pub(crate) fn rotate<F: Real>((ch, sh): (f64, f64), (ca, sa): (f64, f64)) -> (F, F) {
    (
        F::from_f64(ch * ca - sh * sa),
        F::from_f64(sh * ca + ch * sa),
    )
}

/// The rays of a scan, pose-major (beam `k` of pose `p` is ray `p·K + k`), as the module docs
/// compute them. Errors: more rays than `usize` counts.
pub fn lidar_rays<F: Real>(poses: &PosesRef<'_, F>, angles: &[F]) -> Result<Rays<F>, Error> {
    let n = ray_count(poses.len(), angles.len())?;
    let table = beam_table(angles);
    let mut rows = Vec::with_capacity(n);
    for p in 0..poses.len() {
        let (sh, ch) = poses.heading[p].to_f64().sin_cos();
        for &a in &table {
            let (dx, dy) = rotate((ch, sh), a);
            rows.push(crate::cast::Ray::new(poses.x[p], poses.y[p], dx, dy));
        }
    }
    Ok(Rays::from_rows(&rows))
}

/// `poses · beams`, or an error when it overflows.
pub(crate) fn ray_count(poses: usize, beams: usize) -> Result<usize, Error> {
    poses.checked_mul(beams).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{poses} poses × {beams} beams overflows the ray count"
        ))
    })
}
