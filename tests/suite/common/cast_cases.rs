//! Generators for rays, segment scenes and convex polygons, aimed at the hard places: rays
//! through vertices and shared endpoints, along edges, collinear and parallel segments, origins
//! on an edge or a vertex, zero-length segments, duplicated segments (ties), `t_max` landing on
//! a hit, and invalid rays.
//!
//! Each case is built either on a **grid** (small integers times one power of two, so that every
//! cross product the kernels compute is exact and every answer must be exact or correctly
//! rounded) or from **general** floats (any magnitudes, the same constructions rounded, where the
//! kernels are held to rounding bounds).

use super::cases::Rng;
use slabclip::{Ray, Real, Segment};

/// Coordinates used by one case: grid integers scaled by `scale`, or general floats.
pub struct Space {
    pub grid: bool,
    /// Half the grid's extent, in grid units.
    pub half: i64,
    pub scale: f64,
}

impl Space {
    pub fn new<F: Real>(g: &mut Rng, grid: bool) -> Space {
        let f32 = core::mem::size_of::<F>() == 4;
        let half = if f32 { 96 } else { 1 << 18 };
        let scale = if grid {
            2f64.powi(g.int(-20, 20) as i32)
        } else {
            10f64.powf(g.unit() * 12.0 - 6.0)
        };
        Space { grid, half, scale }
    }

    /// A coordinate in `[−half, half]` grid units (or a general float of that size).
    pub fn coord<F: Real>(&self, g: &mut Rng) -> F {
        self.at::<F>(if self.grid {
            g.int(-self.half, self.half) as f64
        } else {
            (g.unit() * 2.0 - 1.0) * self.half as f64
        })
    }

    /// `v` grid units, rounded to `F` (exact on a grid).
    pub fn at<F: Real>(&self, v: f64) -> F {
        F::from_f64(v * self.scale)
    }

    /// A small step: an integer in `[−k, k]` grid units, or a general float of that size.
    pub fn step<F: Real>(&self, g: &mut Rng, k: i64) -> F {
        self.at::<F>(if self.grid {
            g.int(-k, k) as f64
        } else {
            (g.unit() * 2.0 - 1.0) * k as f64
        })
    }
}

/// `a + k·b`, in `F` (exact on a grid).
pub fn along<F: Real>(a: F, k: f64, b: F) -> F {
    F::from_f64(a.to_f64() + k * b.to_f64())
}

/// A `t_max`: `+∞` mostly, else a small integer (hits at integer `t` abound) or a fraction.
pub fn t_max<F: Real>(g: &mut Rng) -> F {
    match g.below(8) {
        0..=3 => F::INFINITY,
        4 => F::ZERO,
        5 | 6 => F::from_f64(g.int(1, 4) as f64),
        _ => F::from_f64(g.unit() * 3.0),
    }
}

/// A direction: small integers, at a point, along an axis, or (rarely) zero.
pub fn direction<F: Real>(g: &mut Rng, sp: &Space, ox: F, oy: F) -> (F, F) {
    match g.below(10) {
        0 => (F::ZERO, F::ZERO),
        1 => (sp.step(g, 4), F::ZERO),
        2 => (F::ZERO, sp.step(g, 4)),
        3..=5 => {
            let (px, py) = (sp.coord::<F>(g), sp.coord::<F>(g));
            (
                F::from_f64(px.to_f64() - ox.to_f64()),
                F::from_f64(py.to_f64() - oy.to_f64()),
            )
        }
        _ => (sp.step(g, 6), sp.step(g, 6)),
    }
}

/// One ray and `1..=8` segments built around it, with a `t_max`.
pub fn ray_scene<F: Real>(seed: u64) -> (Ray<F>, Vec<Segment<F>>, F, bool) {
    let g = &mut Rng(seed);
    let grid = g.below(4) != 0;
    let sp = Space::new::<F>(g, grid);
    let (ox, oy) = (sp.coord::<F>(g), sp.coord::<F>(g));
    let (dx, dy) = direction(g, &sp, ox, oy);
    let on_ray = |g: &mut Rng| {
        let k = g.int(-2, 4) as f64;
        (along(ox, k, dx), along(oy, k, dy))
    };
    let m = g.int(1, 8) as usize;
    let mut segs: Vec<Segment<F>> = Vec::with_capacity(m);
    for _ in 0..m {
        let free = |g: &mut Rng| (sp.coord::<F>(g), sp.coord::<F>(g));
        let s = match g.below(9) {
            // Through a vertex on the ray (hit at an endpoint).
            0 | 1 => {
                let (a, b) = (on_ray(g), free(g));
                if g.below(2) == 0 {
                    Segment::new(a.0, a.1, b.0, b.1)
                } else {
                    Segment::new(b.0, b.1, a.0, a.1)
                }
            }
            // Collinear with the ray, any overlap.
            2 => {
                let (a, b) = (on_ray(g), on_ray(g));
                Segment::new(a.0, a.1, b.0, b.1)
            }
            // Parallel, offset by a small step.
            3 => {
                let (a, b) = (on_ray(g), on_ray(g));
                let (px, py) = (sp.step::<F>(g, 2), sp.step::<F>(g, 2));
                Segment::new(
                    along(a.0, 1.0, px),
                    along(a.1, 1.0, py),
                    along(b.0, 1.0, px),
                    along(b.1, 1.0, py),
                )
            }
            // Zero length, on the ray or anywhere.
            4 => {
                let a = if g.below(2) == 0 { on_ray(g) } else { free(g) };
                Segment::new(a.0, a.1, a.0, a.1)
            }
            // A copy, reversed or not, of an earlier segment (a tie), or chained to it (a
            // shared endpoint).
            5 if !segs.is_empty() => {
                let p = segs[g.below(segs.len() as u64) as usize];
                match g.below(3) {
                    0 => p,
                    1 => Segment::new(p.x1, p.y1, p.x0, p.y0),
                    _ => {
                        let b = free(g);
                        Segment::new(p.x1, p.y1, b.0, b.1)
                    }
                }
            }
            // Through the origin.
            6 => {
                let (ex, ey) = (sp.step::<F>(g, 5), sp.step::<F>(g, 5));
                let (a, b) = (g.int(0, 3) as f64, g.int(0, 3) as f64);
                Segment::new(
                    along(ox, -a, ex),
                    along(oy, -a, ey),
                    along(ox, b, ex),
                    along(oy, b, ey),
                )
            }
            _ => {
                let (a, b) = (free(g), free(g));
                Segment::new(a.0, a.1, b.0, b.1)
            }
        };
        segs.push(s);
    }
    if g.below(60) == 0 {
        let bad = [F::NAN, F::INFINITY][g.below(2) as usize];
        let k = g.below(segs.len() as u64) as usize;
        segs[k].x1 = bad;
    }
    let mut ray = Ray::new(ox, oy, dx, dy);
    if g.below(60) == 0 {
        ray.oy = F::NAN;
    }
    (ray, segs, t_max(g), grid)
}

/// The convex hull (counter-clockwise, no collinear points) of integer points.
fn hull(mut pts: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    pts.sort();
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut h: Vec<(i64, i64)> = Vec::new();
    for pass in 0..2 {
        let start = h.len();
        let iter: Vec<_> = if pass == 0 {
            pts.clone()
        } else {
            pts.iter().rev().copied().collect()
        };
        for p in iter {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], p) <= 0 {
                h.pop();
            }
            h.push(p);
        }
        h.pop();
    }
    h
}

/// A convex polygon's vertices (as given to `ConvexPolygon::new`: either orientation, maybe a
/// repeated vertex or a closing copy), and whether it is on a grid.
pub fn polygon<F: Real>(g: &mut Rng, sp: &Space) -> Vec<(F, F)> {
    let r = 40;
    let mut v: Vec<(F, F)> = loop {
        let k = g.int(3, 8) as usize;
        let pts: Vec<(i64, i64)> = if g.below(4) == 0 {
            // An axis-aligned rect, the most common obstacle.
            let (x0, y0) = (g.int(-r, r - 1), g.int(-r, r - 1));
            let (x1, y1) = (g.int(x0 + 1, r), g.int(y0 + 1, r));
            vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        } else {
            (0..k).map(|_| (g.int(-r, r), g.int(-r, r))).collect()
        };
        let h = hull(pts);
        if h.len() >= 3 {
            break h
                .iter()
                .map(|&(x, y)| (sp.at::<F>(x as f64), sp.at::<F>(y as f64)))
                .collect();
        }
    };
    if g.below(2) == 0 {
        v.reverse();
    }
    let n = v.len();
    v.rotate_left(g.below(n as u64) as usize);
    match g.below(10) {
        0 => v.push(v[0]),
        1 => {
            let k = g.below(n as u64) as usize;
            v.insert(k, v[k]);
        }
        _ => {}
    }
    v
}

/// A point aimed at the polygon's hard places: a vertex, the middle or any grid point of an
/// edge, a point just inside or outside, or anywhere.
pub fn point_near<F: Real>(g: &mut Rng, sp: &Space, v: &[(F, F)]) -> (F, F) {
    let n = v.len();
    let a = v[g.below(n as u64) as usize];
    let b = v[(g.below(n as u64) as usize + 1) % n];
    match g.below(8) {
        0 | 1 => a,
        2 | 3 => {
            // On the edge a→b (or its line) at a dyadic fraction: exact on a grid.
            let k = [0.5, 0.25, 0.75, -0.5, 1.5][g.below(5) as usize];
            (
                F::from_f64(a.0.to_f64() + k * (b.0.to_f64() - a.0.to_f64())),
                F::from_f64(a.1.to_f64() + k * (b.1.to_f64() - a.1.to_f64())),
            )
        }
        4 => {
            // The centroid of three vertices: inside.
            let c = v[(g.below(n as u64) as usize + 2) % n];
            (
                F::from_f64(
                    (a.0.to_f64() + b.0.to_f64() + c.0.to_f64()) / 4.0 + c.0.to_f64() / 4.0,
                ),
                F::from_f64(
                    (a.1.to_f64() + b.1.to_f64() + c.1.to_f64()) / 4.0 + c.1.to_f64() / 4.0,
                ),
            )
        }
        5 => (
            along(a.0, 1.0, sp.step(g, 1)),
            along(a.1, 1.0, sp.step(g, 1)),
        ),
        _ => (sp.coord(g), sp.coord(g)),
    }
}

/// A polygon and a ray aimed at it, with a `t_max`.
pub fn polygon_ray<F: Real>(seed: u64) -> (Vec<(F, F)>, Ray<F>, F, bool) {
    let g = &mut Rng(seed);
    let grid = g.below(4) != 0;
    let sp = Space::new::<F>(g, grid);
    let v = polygon::<F>(g, &sp);
    let (ox, oy) = point_near(g, &sp, &v);
    let (dx, dy) = match g.below(6) {
        // At a vertex or an edge point.
        0..=2 => {
            let (px, py) = point_near(g, &sp, &v);
            let k = [1.0, 0.5, 2.0, -1.0][g.below(4) as usize];
            (
                F::from_f64(k * (px.to_f64() - ox.to_f64())),
                F::from_f64(k * (py.to_f64() - oy.to_f64())),
            )
        }
        // Along an edge.
        3 => {
            let n = v.len();
            let i = g.below(n as u64) as usize;
            let (a, b) = (v[i], v[(i + 1) % n]);
            (
                F::from_f64(b.0.to_f64() - a.0.to_f64()),
                F::from_f64(b.1.to_f64() - a.1.to_f64()),
            )
        }
        _ => direction(g, &sp, ox, oy),
    };
    let mut ray = Ray::new(ox, oy, dx, dy);
    if g.below(80) == 0 {
        ray.dx = F::INFINITY;
    }
    (v, ray, t_max(g), grid)
}

/// A polygon and a segment aimed at it.
pub fn polygon_segment<F: Real>(seed: u64) -> (Vec<(F, F)>, Segment<F>, bool) {
    let g = &mut Rng(seed);
    let grid = g.below(4) != 0;
    let sp = Space::new::<F>(g, grid);
    let v = polygon::<F>(g, &sp);
    let a = point_near(g, &sp, &v);
    let b = match g.below(6) {
        0 => a,
        1 => (a.0, point_near(g, &sp, &v).1),
        2 => (point_near(g, &sp, &v).0, a.1),
        _ => point_near(g, &sp, &v),
    };
    let mut s = if !grid && g.below(3) == 0 {
        far_end_segment(g, &v)
    } else {
        Segment::new(a.0, a.1, b.0, b.1)
    };
    if g.below(80) == 0 {
        s.y1 = F::NAN;
    }
    (v, s, grid)
}

/// SPEC §1's far ends with a polygon (general floats): from the midpoint `m` of an edge toward
/// the vertices' mean `c` (inside), `P_in = m + λ·(c − m)` strictly inside by far more than the
/// rounding of the cross products, `P_out = m − μ·(c − m)` far outside beyond that edge
/// (`λ = 2^-k`, `μ = 2^j`); either way round. Entries `1 − λ/μ` and exits `λ/μ` far below an ulp
/// must still not round to 1 or 0.
pub fn far_end_segment<F: Real>(g: &mut Rng, v: &[(F, F)]) -> Segment<F> {
    let f32 = core::mem::size_of::<F>() == 4;
    let n = v.len();
    let i = g.below(n as u64) as usize;
    let (a, b) = (v[i], v[(i + 1) % n]);
    let m = (
        (a.0.to_f64() + b.0.to_f64()) / 2.0,
        (a.1.to_f64() + b.1.to_f64()) / 2.0,
    );
    let c = (
        v.iter().map(|p| p.0.to_f64()).sum::<f64>() / n as f64,
        v.iter().map(|p| p.1.to_f64()).sum::<f64>() / n as f64,
    );
    let (k, j) = if f32 {
        (g.int(4, 16), g.int(0, 40))
    } else {
        (g.int(4, 40), g.int(0, 90))
    };
    let (lambda, mu) = (2f64.powi(-k as i32), 2f64.powi(j as i32));
    let at = |s: f64| {
        (
            F::from_f64(m.0 + s * (c.0 - m.0)),
            F::from_f64(m.1 + s * (c.1 - m.1)),
        )
    };
    let (p_in, p_out) = (at(lambda), at(-mu));
    if g.below(2) == 0 {
        Segment::new(p_out.0, p_out.1, p_in.0, p_in.1)
    } else {
        Segment::new(p_in.0, p_in.1, p_out.0, p_out.1)
    }
}
