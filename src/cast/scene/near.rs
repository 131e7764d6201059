//! The walls nearly parallel to a ray, wherever they lie along its line.
//!
//! The tree finds a wall through a box around the ray's part `[0, t]`, widened by a bound on
//! how far the per-pair arithmetic can move a hit (`mod.rs`, "Why the tree misses no hit").
//! That bound grows as `1/sin θ` (θ the angle between the ray and the wall): for a wall within
//! `w` of the ray's direction the arithmetic can report a hit anywhere along the line, behind
//! the origin too. What it cannot do is report a wall farther than `β` (a few rounding errors
//! of the coordinates) from the ray's infinite line. So those walls come from here:
//!
//! ```text
//! build:  each wall of nonzero length by the pseudo-angle ψ ∈ [0, 2) of its direction taken
//!         modulo π (ψ = 1 − x / (|x| + y) with y ≥ 0: monotone in the angle, |Δψ| ≤ |Δθ|)
//!         into one of NB buckets; in bucket b, with n_b the normal of the bucket's middle
//!         direction, the walls sorted by their offset n_b · P0, and ext_b the largest
//!         |n_b · (P1 − P0)| of the bucket
//! query:  the ray's line clipped to the scene's box widened by β; for each bucket within
//!         w of the ray's ψ, the offsets n_b · X of that piece of line widened by β + ext_b:
//!         the walls whose key lies in it (a binary search over every 16th key, then a scan;
//!         or over the bucket's keys, where a batch asks by bucket and they are in the cache)
//! ```
//!
//! Offsets are computed in `f64` and keys kept in the walls' precision; the caller's `β`
//! covers those roundings too.

use super::super::ray_segments::Row;
use crate::real::Real;

/// The pseudo-angle of the direction `(x, y)` modulo π, in `[0, 2]` (`2` only where rounding
/// meets the wrap-around, the same direction as `0`); NaN for `(0, 0)`.
#[inline(always)]
pub(crate) fn pseudo_angle(x: f64, y: f64) -> f64 {
    let (x, y) = if y < 0.0 || (y == 0.0 && x < 0.0) {
        (-x, -y)
    } else {
        (x, y)
    };
    1.0 - x / (x.abs() + y)
}

/// The walls of nonzero length in buckets by direction, each bucket sorted by offset.
#[derive(Clone, Debug, Default)]
pub(crate) struct Near<F> {
    /// Bucket count, a power of two.
    nb: usize,
    /// Bucket `b` holds entries `start[b] .. start[b + 1]`.
    start: Vec<u32>,
    /// `n_b · P0` of each entry, ascending within a bucket.
    key: Vec<F>,
    /// The wall (its place in the tree's rows) of each entry.
    slot: Vec<u32>,
    /// The largest `|n_b · (P1 − P0)|` of each bucket.
    ext: Vec<f64>,
    /// [`Near::normal`] of each bucket.
    normals: Vec<(f64, f64)>,
    /// `key[FENCE·i]`: a binary search runs over these (a few cache lines for the whole
    /// index), then one line of keys.
    fence: Vec<F>,
}

/// The bits of `x` as an integer that orders as the numbers do (`-0.0` just below `0.0`).
#[inline(always)]
fn f32_order(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 != 0 {
        !b
    } else {
        b | 1 << 31
    }
}

/// The `f32` whose [`f32_order`] is `b`.
#[inline(always)]
fn f32_unorder(b: u32) -> f32 {
    f32::from_bits(if b >> 31 != 0 { b & !(1 << 31) } else { !b })
}

/// Keys per fence entry: one cache line of `f32` keys.
const FENCE: usize = 16;

impl<F: Real> Near<F> {
    /// The unit normal of bucket `b`'s middle direction.
    #[inline(always)]
    fn normal(&self, b: usize) -> (f64, f64) {
        let psi = (b as f64 + 0.5) * 2.0 / self.nb as f64;
        let (x, y) = (1.0 - psi, 1.0 - (1.0 - psi).abs());
        // `x, y ∈ [−1, 1]`: no overflow to guard against (`hypot` costs several times more).
        let len = (x * x + y * y).sqrt();
        (-y / len, x / len)
    }

    #[inline(always)]
    fn bucket(&self, psi: f64) -> usize {
        ((psi * (self.nb / 2) as f64) as usize).min(self.nb - 1)
    }

    /// The index over `rows` (the tree's order).
    pub(crate) fn build(rows: impl ExactSizeIterator<Item = Row<F>> + Clone) -> Self {
        let nb = rows.len().next_power_of_two().clamp(16, 4096);
        let mut near = Near {
            nb,
            start: vec![0; nb + 1],
            key: Vec::new(),
            slot: Vec::new(),
            ext: vec![0.0; nb],
            normals: Vec::new(),
            fence: Vec::new(),
        };
        // Each wall's bucket and key, then one radix sort of every key at once (by the bits of
        // the key rounded to `f32`, which orders as the numbers do) and a stable deal into
        // the buckets; keys that round to the same `f32` are sorted exactly after. `f32` keys
        // are their sort bits, so only `f64` ones are kept aside. A sorted entry carries its
        // bucket, so that the deal reads no wall's bucket at random.
        let wide = core::mem::size_of::<F>() > 4;
        near.normals = (0..nb).map(|b| near.normal(b)).collect();
        let n = rows.len();
        let mut key = Vec::with_capacity(if wide { n } else { 0 });
        let mut order: Vec<(u32, u32, u16)> = Vec::with_capacity(n);
        for (slot, r) in rows.enumerate() {
            if r.ex == F::ZERO && r.ey == F::ZERO {
                if wide {
                    key.push(F::ZERO);
                }
                continue;
            }
            let b = near.bucket(pseudo_angle(r.ex.to_f64(), r.ey.to_f64()));
            let (nx, ny) = near.normals[b];
            let k0 = nx * r.sx.to_f64() + ny * r.sy.to_f64();
            let k1 = nx * r.x1.to_f64() + ny * r.y1.to_f64();
            near.ext[b] = near.ext[b].max((k1 - k0).abs());
            near.start[b + 1] += 1;
            let k = F::from_f64(k0);
            if wide {
                key.push(k);
            }
            order.push((f32_order(k.to_f64() as f32), slot as u32, b as u16));
        }
        super::bvh::radix_sort(&mut order, |e| e.0);
        for b in 0..nb {
            near.start[b + 1] += near.start[b];
        }
        let total = near.start[nb] as usize;
        let mut fill = near.start.clone();
        (near.key, near.slot) = (vec![F::ZERO; total], vec![0u32; total]);
        for &(bits, s, b) in &order {
            let b = b as usize;
            let at = fill[b] as usize;
            let k = if wide {
                key[s as usize]
            } else {
                F::from_f64(f32_unorder(bits) as f64)
            };
            (near.key[at], near.slot[at]) = (k, s);
            fill[b] += 1;
        }
        // `f64` keys that round to the same `f32` may be out of order: a stable sort of the
        // nearly sorted buckets (runs of sorted keys: about one pass each).
        if wide {
            for b in 0..nb {
                let (lo, hi) = (near.start[b] as usize, near.start[b + 1] as usize);
                let mut run: Vec<(F, u32)> =
                    (lo..hi).map(|q| (near.key[q], near.slot[q])).collect();
                run.sort_by(|p, q| p.0.to_f64().total_cmp(&q.0.to_f64()));
                for (q, (k, s)) in (lo..hi).zip(run) {
                    (near.key[q], near.slot[q]) = (k, s);
                }
            }
        }
        near.fence = near.key.iter().step_by(FENCE).copied().collect();
        near
    }

    /// Calls `f(slot)` for every wall whose direction is within `w` (in pseudo-angle) of the
    /// ray's `(dx, dy)` and which may come within `beta` of the ray's line, inside the box
    /// `[xl, xh] × [yl, yh]` that holds every wall. May call it for others too. `cached`: the
    /// bucket's keys are likely in the cache (queries in [`Near::ray_key`]'s order), so a
    /// binary search over them beats one over the fences and a scan.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn query(
        &self,
        (ox, oy): (f64, f64),
        (dx, dy): (f64, f64),
        [xl, yl, xh, yh]: [f64; 4],
        beta: f64,
        w: f64,
        cached: bool,
        mut f: impl FnMut(u32),
    ) {
        if self.key.is_empty() {
            return;
        }
        // The line's parameters inside the widened box.
        let widened = [xl - beta, yl - beta, xh + beta, yh + beta];
        let Some((ta, tb)) = super::line_in_box((ox, oy), (dx, dy), widened, f64::NEG_INFINITY)
        else {
            return;
        };
        let psi = pseudo_angle(dx, dy);
        let half = (self.nb / 2) as f64;
        let b_lo = ((psi - w) * half).floor() as i64;
        let b_hi = ((psi + w) * half).floor() as i64;
        let nb = self.nb as i64;
        for b in b_lo..=b_hi.min(b_lo + nb - 1) {
            let b = b.rem_euclid(nb) as usize;
            let (lo, hi) = (self.start[b] as usize, self.start[b + 1] as usize);
            if lo == hi {
                continue;
            }
            let (nx, ny) = self.normals[b];
            let p0 = nx * ox + ny * oy;
            let pd = nx * dx + ny * dy;
            let (pa, pb) = (p0 + ta * pd, p0 + tb * pd);
            let reach = beta + self.ext[b];
            let (klo, khi) = (pa.min(pb) - reach, pa.max(pb) + reach);
            let from = if cached {
                lo + self.key[lo..hi].partition_point(|k| k.to_f64() < klo)
            } else {
                // The fence entries inside the bucket, then the keys from the last one below
                // klo.
                let (f_lo, f_hi) = (lo.div_ceil(FENCE), (hi - 1) / FENCE + 1);
                let below = self.fence[f_lo..f_hi.max(f_lo)].partition_point(|k| k.to_f64() < klo);
                if below == 0 {
                    lo
                } else {
                    (f_lo + below - 1) * FENCE
                }
            };
            for (k, &s) in self.key[from..hi].iter().zip(&self.slot[from..hi]) {
                let k = k.to_f64();
                if k > khi {
                    break;
                }
                if k >= klo {
                    f(s);
                }
            }
        }
    }

    /// A key that puts rays whose [`Near::query`] reads the same keys next to each other: the
    /// bucket of the ray's direction. Only an order: the queries' answers do not depend on it.
    #[inline(always)]
    pub(crate) fn ray_key(&self, (dx, dy): (f64, f64)) -> u32 {
        // NaN (a zero direction) lands in bucket 0: `as` saturates.
        self.bucket(pseudo_angle(dx, dy)) as u32
    }

    /// Walls held (those of nonzero length).
    pub(crate) fn len(&self) -> usize {
        self.key.len()
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.start.capacity() * 4
            + self.key.capacity() * core::mem::size_of::<F>()
            + self.slot.capacity() * 4
            + self.ext.capacity() * 8
            + self.normals.capacity() * 16
            + self.fence.capacity() * core::mem::size_of::<F>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_angle_is_monotone_and_wraps() {
        let mut last = -1.0;
        for k in 0..=1000 {
            let a = core::f64::consts::PI * k as f64 / 1000.0 * 0.999_999;
            let p = pseudo_angle(a.cos(), a.sin());
            assert!(p >= last && (0.0..2.0).contains(&p), "{k}: {p}");
            // |Δψ| ≤ |Δθ|.
            if k > 0 {
                assert!(p - last <= core::f64::consts::PI / 1000.0 * 1.000_001);
            }
            last = p;
        }
        assert_eq!(pseudo_angle(-1.0, 0.0), pseudo_angle(1.0, 0.0));
        assert_eq!(pseudo_angle(0.0, -3.0), 1.0);
    }

    /// Keys of both signs, zeros of both signs and magnitudes far apart come out ascending
    /// in every bucket, in both precisions.
    fn keys_ascend<F: Real>() {
        let mut rows = Vec::new();
        for k in 0..400 {
            let v = (k as f64 - 200.0) * 0.37;
            let c = match k % 5 {
                0 => v * 1e6,
                1 => v * 1e-6,
                2 => -0.0,
                // Keys one `f32` apart from none of the others, descending: only `f64` tells
                // them apart.
                3 => 1.0 + (400 - k) as f64 * 1e-12,
                _ => v,
            };
            // Horizontal walls at height c, and diagonal ones through (c, 0).
            let (x0, y0, x1, y1) = if k % 2 == 0 {
                (0.0, c, 1.0, c)
            } else {
                (c, 0.0, c + 1.0, 1.0)
            };
            let f = |x: f64| F::from_f64(x);
            rows.push(Row::new(f(x0), f(y0), f(x1), f(y1), f(k as f64)).unwrap());
        }
        let near = Near::<F>::build(rows.iter().copied());
        let mut filled = 0;
        let mut seen = vec![0; rows.len()];
        for b in 0..near.nb {
            let (lo, hi) = (near.start[b] as usize, near.start[b + 1] as usize);
            let keys = &near.key[lo..hi];
            assert!(
                keys.windows(2).all(|w| w[0] <= w[1]),
                "bucket {b}: {keys:?}"
            );
            filled += usize::from(keys.len() > 1);
            // Every entry is its wall's key in its own bucket, bit for bit.
            let (nx, ny) = near.normal(b);
            for q in lo..hi {
                let r = &rows[near.slot[q] as usize];
                seen[near.slot[q] as usize] += 1;
                assert_eq!(near.bucket(pseudo_angle(r.ex.to_f64(), r.ey.to_f64())), b);
                let k = F::from_f64(nx * r.sx.to_f64() + ny * r.sy.to_f64());
                assert_eq!(
                    near.key[q].to_bits_u64(),
                    k.to_bits_u64(),
                    "slot {}",
                    near.slot[q]
                );
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "every wall once: {seen:?}");
        assert!(filled >= 2, "both directions' buckets hold several walls");
    }

    #[test]
    fn keys_ascend_f32() {
        keys_ascend::<f32>();
    }

    #[test]
    fn keys_ascend_f64() {
        keys_ascend::<f64>();
    }
}
