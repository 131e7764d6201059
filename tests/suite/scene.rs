//! Scenes (`cast::scene`) against the brute force and an exact reference.
//!
//! * Closest hit: every output bit for bit what `cast_segments` gives on the same walls —
//!   random and city scenes, adversarial scenes (rays through endpoints and shared vertices,
//!   along collinear walls, grazing, zero-length and crossing walls, ties, walls nearly
//!   parallel to the ray anywhere along its line, NaN and ±∞, huge and tiny coordinates,
//!   `t_max`), both precisions, 1, 2 and 3 threads, shuffled rays, refits.
//! * Any hit: the closest hit's hit-or-miss.
//! * Line of sight: an exact rational reference written here (parametric, unlike the
//!   library's orientation predicates), with every combination of excluded ends.
//! * Lidar: the poses × angles form against `lidar_rays` cast as rays.
//! * `cast_segments_with`: every method the brute force's bits, on both sides of `index_pays`.
//! * Bad input is an error, never a panic.

use crate::common;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use proptest::prelude::*;
use slabclip::cast::{
    cast_segments, cast_segments_one, cast_segments_with, index_pays, lidar_rays, CastMethod,
    PosesRef, Scene, SceneIndex, SegmentsCastOutput, SightEnds, INDEX_MIN_RAYS, INDEX_MIN_WALLS,
    SIGHT_BLOCKED, SIGHT_INVALID, SIGHT_VISIBLE,
};
use slabclip::workload::{SceneKind, SplitMix64};
use slabclip::{Error, Ray, Rays, Real, Segment, SegmentSource, Segments, NO_HIT};

/// Every output of a closest-hit batch.
#[derive(Debug, PartialEq)]
struct Answers {
    t: Vec<u64>,
    s: Vec<u64>,
    index: Vec<u32>,
    nx: Vec<u64>,
    ny: Vec<u64>,
}

fn run<F: Real>(n: usize, f: impl FnOnce(SegmentsCastOutput<'_, F>)) -> Answers {
    let (mut t, mut s, mut nx, mut ny) = (
        vec![F::ZERO; n],
        vec![F::ZERO; n],
        vec![F::ZERO; n],
        vec![F::ZERO; n],
    );
    let mut index = vec![0u32; n];
    f(SegmentsCastOutput {
        t: Some(&mut t),
        s: Some(&mut s),
        index: Some(&mut index),
        nx: Some(&mut nx),
        ny: Some(&mut ny),
    });
    let bits = |v: Vec<F>| v.into_iter().map(|x| x.to_bits_u64()).collect();
    Answers {
        t: bits(t),
        s: bits(s),
        index,
        nx: bits(nx),
        ny: bits(ny),
    }
}

fn brute<F: Real>(rays: &Rays<F>, walls: &Segments<F>, t_max: F) -> Answers {
    run(rays.len(), |o| {
        cast_segments(&rays.as_ref(), &walls.as_ref(), t_max, o).unwrap()
    })
}

fn indexed<F: Real>(scene: &Scene<F>, rays: &Rays<F>, t_max: F) -> Answers {
    run(rays.len(), |o| {
        scene.cast(&rays.as_ref(), t_max, o).unwrap()
    })
}

/// The first ray where two answers differ, described.
fn first_difference<F: Real>(
    a: &Answers,
    b: &Answers,
    rays: &Rays<F>,
    walls: &Segments<F>,
) -> String {
    for i in 0..a.t.len() {
        let row = |x: &Answers| (x.t[i], x.s[i], x.index[i], x.nx[i], x.ny[i]);
        if row(a) != row(b) {
            let r = rays.as_ref().ray(i);
            let show = |x: &Answers| {
                let j = x.index[i];
                let wall = (j != NO_HIT).then(|| walls.segment(j as usize));
                format!(
                    "t {:e} index {j} wall {wall:?}",
                    f64::from_bits(x.t[i]).max(-1.0)
                )
            };
            return format!("ray {i} {r:?}\n  brute {}\n  scene {}", show(a), show(b));
        }
    }
    String::new()
}

/// Every choice of index a scene can be built with.
const INDICES: [SceneIndex; 3] = [SceneIndex::Auto, SceneIndex::Tree, SceneIndex::Grid];

/// The scene's closest hits equal the brute force's, bit for bit; any hit agrees with them;
/// `cast_one` is the same answer; with every choice of index. Returns how many rays hit.
fn check_scene<F: Real>(walls: &Segments<F>, rays: &Rays<F>, t_max: F) -> usize {
    let want = brute(rays, walls, t_max);
    for index in INDICES {
        check_index(walls, rays, t_max, &want, index);
    }
    want.index.iter().filter(|&&k| k != NO_HIT).count()
}

fn check_index<F: Real>(
    walls: &Segments<F>,
    rays: &Rays<F>,
    t_max: F,
    want: &Answers,
    index: SceneIndex,
) {
    let scene = Scene::with_index(walls, index).unwrap();
    let got = indexed(&scene, rays, t_max);
    assert!(
        *want == got,
        "closest hit differs, t_max {t_max}, {index:?} (grid: {}):\n{}",
        scene.has_grid(),
        first_difference(want, &got, rays, walls)
    );
    let mut any = vec![false; rays.len()];
    scene.any_hit(&rays.as_ref(), t_max, &mut any).unwrap();
    for (i, (&a, &k)) in any.iter().zip(&want.index).enumerate() {
        assert_eq!(
            a,
            k != NO_HIT,
            "any hit of ray {i} {:?}, {index:?}",
            rays.as_ref().ray(i)
        );
    }
    for i in (0..rays.len()).step_by(7) {
        let r = rays.as_ref().ray(i);
        let one = scene.cast_one(&r, t_max).unwrap();
        let brute_one = cast_segments_one(&r, &walls.as_ref(), t_max).unwrap();
        assert_eq!(
            format!("{one:?}"),
            format!("{brute_one:?}"),
            "cast_one of ray {i}, {index:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Adversarial scenes

struct Gen(SplitMix64);

impl Gen {
    fn unit(&mut self) -> f64 {
        self.0.unit()
    }
    fn int(&mut self, n: i64) -> f64 {
        (self.0.below(2 * n as u64 + 1) as i64 - n) as f64
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.0.below(v.len() as u64) as usize]
    }
    fn chance(&mut self, p: f64) -> bool {
        self.0.chance(p)
    }
}

/// A point near `p` in one of several ways: itself, a neighbouring float, a grid step away.
fn nudge<F: Real>(g: &mut Gen, v: F) -> F {
    match g.0.below(4) {
        0 => v,
        1 => v.next_up(),
        2 => -(-v).next_up(),
        _ => F::from_f64(v.to_f64() + g.int(2)),
    }
}

/// Walls and rays aimed at the hard places; `scale` multiplies every coordinate (huge and tiny
/// magnitudes), `grid` keeps coordinates on small integers (exact products, many ties).
fn adversarial<F: Real>(seed: u64) -> (Segments<F>, Rays<F>, F) {
    let g = &mut Gen(SplitMix64::new(seed));
    let scale = g.pick(&[1.0, 1.0, 1.0, 1e-3, 1e6, 1e-30, 1e20, 2f64.powi(-45)]);
    let grid = g.chance(0.5);
    let c = |g: &mut Gen| -> f64 {
        if grid {
            g.int(8)
        } else {
            g.unit() * 16.0 - 8.0
        }
    };
    let f = |x: f64| F::from_f64(x * scale);
    let mut walls: Vec<Segment<F>> = Vec::new();
    let n_walls = 1 + g.0.below(40) as usize;
    for _ in 0..n_walls {
        let kind = g.0.below(10);
        let w = match kind {
            // A chain: starts where the previous wall ends (shared vertices).
            0 if !walls.is_empty() => {
                let p = walls[walls.len() - 1];
                Segment::new(p.x1, p.y1, f(c(g)), f(c(g)))
            }
            // Zero length.
            1 => {
                let (x, y) = (f(c(g)), f(c(g)));
                Segment::new(x, y, x, y)
            }
            // Collinear with an earlier wall, overlapping or not.
            2 if !walls.is_empty() => {
                let p = g.pick(&walls);
                let (a, b) = (g.int(3) * 0.5, g.int(3) * 0.5);
                let at = |t: f64| {
                    let (x0, y0, x1, y1) =
                        (p.x0.to_f64(), p.y0.to_f64(), p.x1.to_f64(), p.y1.to_f64());
                    (
                        F::from_f64(x0 + t * (x1 - x0)),
                        F::from_f64(y0 + t * (y1 - y0)),
                    )
                };
                let (u, v) = (at(a), at(b));
                Segment::new(u.0, u.1, v.0, v.1)
            }
            // Axis-parallel.
            3 => {
                let (x, y, l) = (f(c(g)), f(c(g)), f(c(g)));
                if g.chance(0.5) {
                    Segment::new(x, y, l, y)
                } else {
                    Segment::new(x, y, x, l)
                }
            }
            // Non-finite coordinates.
            4 if g.chance(0.3) => {
                let bad = g.pick(&[F::NAN, F::INFINITY, -F::INFINITY]);
                let mut v = [f(c(g)), f(c(g)), f(c(g)), f(c(g))];
                v[g.0.below(4) as usize] = bad;
                Segment::new(v[0], v[1], v[2], v[3])
            }
            // A duplicate of an earlier wall, possibly reversed (ties of t).
            5 if !walls.is_empty() => {
                let p = g.pick(&walls);
                if g.chance(0.5) {
                    p
                } else {
                    Segment::new(p.x1, p.y1, p.x0, p.y0)
                }
            }
            _ => Segment::new(f(c(g)), f(c(g)), f(c(g)), f(c(g))),
        };
        walls.push(w);
    }
    // Walls nearly parallel to one line, strung along it behind and ahead of an origin: the
    // per-pair arithmetic reports hits on them in odd places.
    let line_o = (f(c(g)), f(c(g)));
    let line_d = (
        F::from_f64(g.unit() + 0.1),
        F::from_f64(g.unit() * 2.0 - 1.0),
    );
    if g.chance(0.5) {
        for _ in 0..g.0.below(12) {
            let (a, b) = (g.unit() * 40.0 - 20.0, g.unit() * 40.0 - 20.0);
            let at = |t: f64| {
                (
                    F::from_f64(line_o.0.to_f64() + t * line_d.0.to_f64()),
                    F::from_f64(line_o.1.to_f64() + t * line_d.1.to_f64()),
                )
            };
            let (u, v) = (at(a), at(b));
            walls.push(Segment::new(u.0, u.1, v.0, v.1));
        }
    }

    let finite: Vec<Segment<F>> = walls
        .iter()
        .copied()
        .filter(|w| {
            [w.x0, w.y0, w.x1, w.y1]
                .iter()
                .all(|v| v.to_f64().is_finite())
        })
        .collect();
    let mut rays = Vec::new();
    for _ in 0..64 {
        let ray = match g.0.below(9) {
            // Through a wall's endpoint, from anywhere.
            0 | 1 if !finite.is_empty() => {
                let w = g.pick(&finite);
                let (px, py) = if g.chance(0.5) {
                    (w.x0, w.y0)
                } else {
                    (w.x1, w.y1)
                };
                let (ox, oy) = (f(c(g)), f(c(g)));
                Ray::new(ox, oy, nudge(g, px) - ox, nudge(g, py) - oy)
            }
            // Along a wall (collinear), from one of its points or beyond it.
            2 if !finite.is_empty() => {
                let w = g.pick(&finite);
                let (ex, ey) = (w.x1 - w.x0, w.y1 - w.y0);
                let k = F::from_f64(g.int(2));
                let (ox, oy) = (w.x0 - k * ex, w.y0 - k * ey);
                let sign = if g.chance(0.5) { F::ONE } else { -F::ONE };
                Ray::new(ox, oy, sign * ex, sign * ey)
            }
            // From a wall's endpoint, any direction (origin on a wall).
            3 if !finite.is_empty() => {
                let w = g.pick(&finite);
                Ray::new(w.x0, w.y0, f(c(g)), f(c(g)))
            }
            // The near-parallel line's own ray, or its direction nudged by an ulp.
            4 | 5 => Ray::new(
                nudge(g, line_o.0),
                nudge(g, line_o.1),
                nudge(g, line_d.0),
                if g.chance(0.5) {
                    line_d.1
                } else {
                    line_d.1.next_up()
                },
            ),
            // Axis-parallel, signed zeros.
            6 => {
                let z = if g.chance(0.5) { F::ZERO } else { -F::ZERO };
                let d = f(c(g));
                if g.chance(0.5) {
                    Ray::new(f(c(g)), f(c(g)), d, z)
                } else {
                    Ray::new(f(c(g)), f(c(g)), z, d)
                }
            }
            // Invalid: NaN, infinite, zero direction.
            7 if g.chance(0.3) => g.pick(&[
                Ray::new(F::NAN, F::ZERO, F::ONE, F::ONE),
                Ray::new(F::ZERO, F::ZERO, F::ZERO, -F::ZERO),
                Ray::new(F::ZERO, F::ZERO, F::INFINITY, F::ONE),
            ]),
            // Directions of extreme magnitude.
            8 => {
                let m = F::from_f64(g.pick(&[1e-20, 1e-35, 1e25, 1e-300, 1e300]));
                Ray::new(f(c(g)), f(c(g)), m * f(c(g)), f(c(g)))
            }
            _ => Ray::new(f(c(g)), f(c(g)), f(c(g)), f(c(g))),
        };
        rays.push(ray);
    }
    let t_max = F::from_f64(g.pick(&[f64::INFINITY, f64::INFINITY, 0.0, 0.5, 1.0, 3.0, 1e-30]));
    (Segments::from_rows(&walls), Rays::from_rows(&rays), t_max)
}

fn adversarial_case<F: Real>(seed: u64) -> usize {
    let (walls, rays, t_max) = adversarial::<F>(seed);
    check_scene(&walls, &rays, t_max)
}

#[test]
fn adversarial_scenes_f32() {
    let hits: usize = (0..3000).map(adversarial_case::<f32>).sum();
    assert!(hits > 30_000, "{hits} hits: the cases aim at walls");
}

#[test]
fn adversarial_scenes_f64() {
    let hits: usize = (0..3000).map(adversarial_case::<f64>).sum();
    assert!(hits > 30_000, "{hits} hits: the cases aim at walls");
}

/// The adversarial scenes above do walk the grid when asked: most have walls whose box has an
/// area (the others: one wall, or walls all on one line).
#[test]
fn adversarial_scenes_build_the_grid() {
    fn grids<F: Real>() -> usize {
        (0..300)
            .filter(|&seed| {
                let (walls, _, _) = adversarial::<F>(seed);
                Scene::with_index(&walls, SceneIndex::Grid)
                    .unwrap()
                    .has_grid()
            })
            .count()
    }
    let (a, b) = (grids::<f32>(), grids::<f64>());
    assert!(a > 200 && b > 200, "{a} and {b} of 300 scenes with a grid");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::budget(2000)))]

    #[test]
    fn adversarial_scenes_proptest(seed in any::<u64>(), wide in any::<bool>()) {
        if wide {
            adversarial_case::<f64>(seed);
        } else {
            adversarial_case::<f32>(seed);
        }
    }
}

/// How many of `want`'s hits lie more than `10⁻³` outside the box of the wall they hit: hits
/// that only the per-pair arithmetic on a nearly parallel wall puts there.
fn off_box_hits<F: Real>(rays: &Rays<F>, walls: &Segments<F>, want: &Answers) -> usize {
    let mut odd = 0;
    for i in 0..rays.len() {
        if want.index[i] == NO_HIT {
            continue;
        }
        let r = rays.as_ref().ray(i);
        let t = value::<F>(want.t[i]);
        let (hx, hy) = (
            r.ox.to_f64() + t * r.dx.to_f64(),
            r.oy.to_f64() + t * r.dy.to_f64(),
        );
        let w = walls.segment(want.index[i] as usize);
        let (x0, x1) = (
            w.x0.to_f64().min(w.x1.to_f64()),
            w.x0.to_f64().max(w.x1.to_f64()),
        );
        let (y0, y1) = (
            w.y0.to_f64().min(w.y1.to_f64()),
            w.y0.to_f64().max(w.y1.to_f64()),
        );
        let off = (x0 - hx).max(hx - x1).max(y0 - hy).max(hy - y1);
        odd += (off > 1e-3) as usize;
    }
    odd
}

/// Walls along one line (nearly parallel to the rays cast down it), behind and ahead of the
/// origins: the brute force's arithmetic reports hits at parameters far from any wall, which
/// the tree's boxes alone would never reach. Checked to hit at least sometimes behind.
#[test]
fn near_parallel_walls_anywhere_along_the_line() {
    fn case<F: Real>(seed: u64) -> (usize, usize) {
        let g = &mut Gen(SplitMix64::new(seed));
        let (ox, oy) = (g.unit() * 100.0, g.unit() * 100.0);
        let (dx, dy) = (0.3 + g.unit(), g.unit() * 2.0 - 1.0);
        let at = |t: f64| (F::from_f64(ox + t * dx), F::from_f64(oy + t * dy));
        let mut walls = Vec::new();
        for _ in 0..200 {
            let (a, b) = (g.unit() * 2000.0 - 1000.0, g.unit() * 2000.0 - 1000.0);
            let (u, v) = (at(a), at(b));
            walls.push(Segment::new(u.0, u.1, v.0, v.1));
        }
        // Other walls far from the line, so the tree has depth.
        for _ in 0..300 {
            let (x, y) = (g.unit() * 4000.0 - 2000.0, g.unit() * 4000.0 - 2000.0);
            walls.push(Segment::new(
                F::from_f64(x),
                F::from_f64(y),
                F::from_f64(x + 3.0),
                F::from_f64(y - 2.0),
            ));
        }
        let mut rays = Vec::new();
        for _ in 0..200 {
            let t = g.unit() * 1000.0 - 500.0;
            let (px, py) = at(t);
            let (mut rdx, mut rdy) = (F::from_f64(dx), F::from_f64(dy));
            for _ in 0..g.0.below(3) {
                rdx = rdx.next_up();
            }
            if g.chance(0.3) {
                rdy = -(-rdy).next_up();
            }
            rays.push(Ray::new(px, py, rdx, rdy));
        }
        let (walls, rays) = (Segments::from_rows(&walls), Rays::from_rows(&rays));
        let hits = check_scene(&walls, &rays, F::INFINITY);
        let want = brute(&rays, &walls, F::INFINITY);
        (hits, off_box_hits(&rays, &walls, &want))
    }
    let (mut hits, mut odd) = (0, 0);
    for seed in 0..40 {
        let (h, o) = case::<f32>(seed);
        let (h2, o2) = case::<f64>(seed);
        hits += h + h2;
        odd += o + o2;
    }
    assert!(hits > 1000, "{hits}");
    assert!(
        odd > 0,
        "no hit off its wall's box: the case does not test the near index"
    );
}

/// A scene large enough (2^18 walls of nonzero length) and a batch large enough (8,192 rays)
/// that the rays' nearly parallel walls are found in a pass of their own, with the rays by
/// direction, before the walks in the order of the rays' origins: bundles of walls along a few
/// lines among many short ones, rays down those lines (an ulp or two off their direction, from
/// anywhere along them) and across the scene. Every answer is still the brute force's, and
/// some hits are ones only the nearly parallel walls give (off the hit wall's box).
#[test]
fn near_parallel_walls_in_a_large_batch() {
    fn case<F: Real>(seed: u64) -> (usize, usize) {
        let g = &mut Gen(SplitMix64::new(seed));
        let lines: Vec<((f64, f64), (f64, f64))> = (0..6)
            .map(|_| {
                let o = (g.unit() * 1000.0, g.unit() * 1000.0);
                let a = g.unit() * core::f64::consts::TAU;
                (o, (a.cos(), a.sin()))
            })
            .collect();
        let at = |((ox, oy), (dx, dy)): ((f64, f64), (f64, f64)), t: f64| {
            (F::from_f64(ox + t * dx), F::from_f64(oy + t * dy))
        };
        let mut walls = Vec::with_capacity(1 << 18);
        for &line in &lines {
            for _ in 0..64 {
                let (a, b) = (g.unit() * 1600.0 - 800.0, g.unit() * 1600.0 - 800.0);
                let (u, v) = (at(line, a), at(line, b));
                walls.push(Segment::new(u.0, u.1, v.0, v.1));
            }
        }
        while walls.len() < 1 << 18 {
            let (x, y) = (g.unit() * 1000.0, g.unit() * 1000.0);
            let a = g.unit() * core::f64::consts::TAU;
            let (dx, dy) = (a.cos() * 1.5, a.sin() * 1.5);
            let w = Segment::new(
                F::from_f64(x),
                F::from_f64(y),
                F::from_f64(x + dx),
                F::from_f64(y + dy),
            );
            if w.x0 != w.x1 || w.y0 != w.y1 {
                walls.push(w);
            }
        }
        let mut rays = Vec::with_capacity(8192);
        for k in 0..8192 {
            if k % 2 == 0 {
                let line = lines[g.0.below(lines.len() as u64) as usize];
                let (px, py) = at(line, g.unit() * 1000.0 - 500.0);
                let (mut rdx, mut rdy) = (F::from_f64(line.1 .0), F::from_f64(line.1 .1));
                for _ in 0..g.0.below(3) {
                    rdx = rdx.next_up();
                }
                if g.chance(0.3) {
                    rdy = -(-rdy).next_up();
                }
                if g.chance(0.5) {
                    (rdx, rdy) = (-rdx, -rdy);
                }
                rays.push(Ray::new(px, py, rdx, rdy));
            } else {
                let a = g.unit() * core::f64::consts::TAU;
                rays.push(Ray::new(
                    F::from_f64(g.unit() * 1000.0),
                    F::from_f64(g.unit() * 1000.0),
                    F::from_f64(a.cos()),
                    F::from_f64(a.sin()),
                ));
            }
        }
        let (walls, rays) = (Segments::from_rows(&walls), Rays::from_rows(&rays));
        let want = brute(&rays, &walls, F::INFINITY);
        let scene = Scene::new(&walls).unwrap();
        let got = indexed(&scene, &rays, F::INFINITY);
        assert!(
            want == got,
            "closest hit differs:\n{}",
            first_difference(&want, &got, &rays, &walls)
        );
        // Hits off their wall's box: only the nearly parallel walls' arithmetic puts them there.
        let odd = off_box_hits(&rays, &walls, &want);
        (want.index.iter().filter(|&&k| k != NO_HIT).count(), odd)
    }
    for seed in 0..2 {
        let (hits, odd) = case::<f32>(seed);
        assert!(hits > 4000, "{hits}");
        assert!(
            odd > 0,
            "no hit off its wall's box: the nearly parallel walls are not tested"
        );
        let (hits, _) = case::<f64>(seed);
        assert!(hits > 4000, "{hits}");
    }
}

/// Long walls at a shallow angle to the ray (just outside the near index's window and its buckets: 2^-9.5 to
/// 2^-8.5 radians in `f32`, 2^-20.5 to 2^-19.5 in `f64`) that end just behind the ray's origin: the per-pair arithmetic, off by about
/// `u·|W| / sin θ` along the ray, reports some of them hit at a small `t ≥ 0` although the
/// exact crossing is behind the origin, farther than the boxes' widening. The walk reaches
/// them through its backward reach `e`.
#[test]
fn shallow_walls_ending_behind_the_origin() {
    fn case<F: Real>(seed: u64) -> usize {
        let g = &mut Gen(SplitMix64::new(seed));
        // The unit roundoff, and the near index's angle (the library's w) in log2.
        let (u, w) = if core::mem::size_of::<F>() == 4 {
            (2f64.powi(-24), -13.0)
        } else {
            (2f64.powi(-53), -24.0)
        };
        let (px, py) = (g.unit() * 200.0 - 100.0, g.unit() * 200.0 - 100.0);
        let phi = g.pick(&[0.35, 1.2, 2.0, 2.8, 3.5, 4.3, 5.1, 5.9]) + g.unit() * 0.1;
        let len = 1000.0 + g.unit() * 1000.0;
        let (c, s) = (phi.cos(), phi.sin());
        let (sx, sy) = (px - len * c, py - len * s);
        let mut walls = vec![Segment::new(
            F::from_f64(sx),
            F::from_f64(sy),
            F::from_f64(px),
            F::from_f64(py),
        )];
        // Small walls around the far end, so that the long one sits in a leaf of a tree, and
        // enough of them for the direction index's finest buckets (whose width is 4w).
        for k in 0..3000 {
            let (x, y) = (
                sx + (k % 60) as f64 * 0.5 - 40.0,
                sy + (k / 60) as f64 * 0.5 - 40.0,
            );
            walls.push(Segment::new(
                F::from_f64(x),
                F::from_f64(y),
                F::from_f64(x + 0.25),
                F::from_f64(y + 0.1),
            ));
        }
        let mut rays = Vec::new();
        let (mut x, mut y, mut heading) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..2000 {
            let theta = 2f64.powf(w + 3.5 + g.unit()) * if g.chance(0.5) { 1.0 } else { -1.0 };
            // Up to the arithmetic's reach behind the origin, u·|W| / sin θ.
            let d = g.unit() * u * len / theta.abs();
            let (dc, ds) = ((phi + theta).cos(), (phi + theta).sin());
            let (ox, oy) = (F::from_f64(px + d * dc), F::from_f64(py + d * ds));
            rays.push(Ray::new(ox, oy, F::from_f64(dc), F::from_f64(ds)));
            // The same beam from a lidar pose, among others.
            x.push(ox);
            y.push(oy);
            heading.push(F::from_f64(phi + theta));
        }
        let walls = Segments::from_rows(&walls);
        let hits = check_scene(&walls, &Rays::from_rows(&rays), F::INFINITY);
        let poses = PosesRef::new(&x, &y, &heading).unwrap();
        let angles = [F::ZERO, F::from_f64(0.5), F::from_f64(-2.0)];
        let beams = lidar_rays(&poses, &angles).unwrap();
        let scene = Scene::new(&walls).unwrap();
        let want = brute(&beams, &walls, F::INFINITY);
        let got = run(beams.len(), |o| {
            scene.lidar(&poses, &angles, F::INFINITY, o).unwrap()
        });
        assert!(
            want == got,
            "{}",
            first_difference(&want, &got, &beams, &walls)
        );
        hits
    }
    let hits: usize = (0..40).map(|s| case::<f32>(s) + case::<f64>(s)).sum();
    assert!(hits > 100, "{hits}");
}

/// Short walls far from the rays' origins, each the corner of its leaf's box, and rays aimed
/// within a few roundings of `|W|` of a wall's end: the per-pair arithmetic, off by about
/// `u·|W|` across the ray, reports some of them hit although the exact ray passes beside the
/// wall, farther from its box than a widening by the walls' own lengths. The walk reaches them
/// through the widening by `r`, the distance to the box's far corner.
#[test]
fn short_walls_far_from_the_origin() {
    fn case<F: Real>(seed: u64) -> usize {
        let g = &mut Gen(SplitMix64::new(seed));
        let u = if core::mem::size_of::<F>() == 4 {
            2f64.powi(-24)
        } else {
            2f64.powi(-53)
        };
        let far = 2f64.powi(14 + (seed % 8) as i32);
        // Clusters of short walls, far apart: each cluster a leaf or two.
        let mut walls = Vec::new();
        let mut ends = Vec::new();
        for _ in 0..64 {
            let (cx, cy) = ((g.unit() - 0.5) * far, (g.unit() - 0.5) * far);
            for _ in 0..8 {
                let (x, y) = (cx + g.unit() * 0.5, cy + g.unit() * 0.5);
                let a = g.unit() * std::f64::consts::TAU;
                let len = 0.01 + g.unit() * 0.5;
                let w = Segment::new(
                    F::from_f64(x),
                    F::from_f64(y),
                    F::from_f64(x + len * a.cos()),
                    F::from_f64(y + len * a.sin()),
                );
                ends.push((w.x0.to_f64(), w.y0.to_f64()));
                ends.push((w.x1.to_f64(), w.y1.to_f64()));
                walls.push(w);
            }
        }
        let mut rays = Vec::new();
        for _ in 0..4000 {
            let (ex, ey) = g.pick(&ends);
            let a = g.unit() * std::f64::consts::TAU;
            let dist = far * (0.5 + g.unit());
            let (ox, oy) = (ex - dist * a.cos(), ey - dist * a.sin());
            // Beside the end, across the ray, by up to a few roundings of |W|.
            let off = (g.unit() - 0.5) * 16.0 * u * (dist + ox.abs() + oy.abs());
            let (tx, ty) = (ex - off * a.sin(), ey + off * a.cos());
            let (ox, oy) = (F::from_f64(ox), F::from_f64(oy));
            rays.push(Ray::new(
                ox,
                oy,
                F::from_f64(tx - ox.to_f64()),
                F::from_f64(ty - oy.to_f64()),
            ));
        }
        check_scene(
            &Segments::from_rows(&walls),
            &Rays::from_rows(&rays),
            F::INFINITY,
        )
    }
    let hits: usize = (0..24).map(|s| case::<f32>(s) + case::<f64>(s)).sum();
    assert!(hits > 1000, "{hits}");
}

/// The value of `F` bits as `f64`.
fn value<F: Real>(b: u64) -> f64 {
    if core::mem::size_of::<F>() == 4 {
        f32::from_bits(b as u32) as f64
    } else {
        f64::from_bits(b)
    }
}

#[test]
fn named_cases() {
    let w = |v: &[[f64; 4]]| {
        Segments::<f64>::from_rows(
            &v.iter()
                .map(|s| Segment::new(s[0], s[1], s[2], s[3]))
                .collect::<Vec<_>>(),
        )
    };
    let r = |v: &[[f64; 4]]| {
        Rays::<f64>::from_rows(
            &v.iter()
                .map(|s| Ray::new(s[0], s[1], s[2], s[3]))
                .collect::<Vec<_>>(),
        )
    };
    let inf = f64::INFINITY;
    // (walls, rays, t_max, expected indices)
    type Case = (Segments<f64>, Rays<f64>, f64, Vec<u32>);
    let cases: Vec<Case> = vec![
        // Through a shared vertex: both walls at t = 1; the lower index wins, whichever is
        // built first.
        (
            w(&[[1.0, -1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0]]),
            r(&[[0.0, 0.0, 1.0, 0.0]]),
            inf,
            vec![0],
        ),
        (
            w(&[[1.0, 0.0, 1.0, 1.0], [1.0, -1.0, 1.0, 0.0]]),
            r(&[[0.0, 0.0, 1.0, 0.0]]),
            inf,
            vec![0],
        ),
        // Along a collinear wall: hit at its first point; from inside it: t = 0.
        (
            w(&[[2.0, 0.0, 5.0, 0.0]]),
            r(&[
                [0.0, 0.0, 1.0, 0.0],
                [3.0, 0.0, 1.0, 0.0],
                [6.0, 0.0, 1.0, 0.0],
            ]),
            inf,
            vec![0, 0, NO_HIT],
        ),
        // Grazing a corner, zero-length wall, crossing walls.
        (
            w(&[
                [1.0, 1.0, 2.0, 2.0],
                [3.0, 0.0, 3.0, 0.0],
                [4.0, -1.0, 4.0, 1.0],
                [3.5, -1.0, 4.5, 1.0],
            ]),
            r(&[
                [0.0, 2.0, 1.0, -1.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.5, 1.0, 0.0],
                [3.9, 0.0, 1.0, 0.0],
            ]),
            inf,
            vec![0, 1, 2, 2],
        ),
        // t_max: a wall at exactly t_max is hit, beyond it not.
        (
            w(&[[2.0, -1.0, 2.0, 1.0]]),
            r(&[[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.5, 0.0]]),
            2.0,
            vec![0, NO_HIT],
        ),
        // NaN and ∞ walls never hit; invalid rays miss.
        (
            w(&[
                [f64::NAN, 0.0, 1.0, 1.0],
                [1.0, -inf, 1.0, inf],
                [2.0, -1.0, 2.0, 1.0],
            ]),
            r(&[
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.0, 0.0, 0.0],
                [f64::NAN, 0.0, 1.0, 0.0],
            ]),
            inf,
            vec![2, NO_HIT, NO_HIT],
        ),
        // Huge and tiny coordinates (outside the tree's range: the short list).
        (
            w(&[[1e300, -1e300, 1e300, 1e300], [1e-300, -1.0, 1e-300, 1.0]]),
            r(&[[0.0, 0.0, 1.0, 0.0], [-1.0, 0.0, 1.0, 0.0]]),
            inf,
            vec![1, 1],
        ),
        // Empty scene.
        (w(&[]), r(&[[0.0, 0.0, 1.0, 0.0]]), inf, vec![NO_HIT]),
    ];
    for (k, (walls, rays, t_max, want)) in cases.iter().enumerate() {
        check_scene(walls, rays, *t_max);
        for index in INDICES {
            let got = indexed(&Scene::with_index(walls, index).unwrap(), rays, *t_max);
            assert_eq!(&got.index, want, "case {k}, {index:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Large scenes, threads, order, refit

fn scene_workload<F: Real>(
    kind: SceneKind,
    m: usize,
    n: usize,
    seed: u64,
) -> (Segments<F>, Rays<F>) {
    (kind.walls(m, seed), kind.rays(m, n, seed + 1))
}

/// At every SIMD level this CPU runs: batches from 4,096 rays walk the tree compiled at the
/// chosen level.
#[test]
fn city_and_random_scenes_match_the_brute_force() {
    common::levels::each(|_| city_and_random_scenes());
}

fn city_and_random_scenes() {
    for kind in SceneKind::ALL {
        for &(m, n) in &[
            (1usize, 100usize),
            (7, 300),
            (100, 2000),
            (5000, 3000),
            (2000, 5000),
        ] {
            let (w, r) = scene_workload::<f32>(kind, m, n, m as u64);
            let hits = check_scene(&w, &r, f32::INFINITY);
            check_scene(&w, &r, 4.0);
            if m >= 100 {
                assert!(hits > n / 4, "{} {m}: {hits} hits", kind.name());
            }
            let (w, r) = scene_workload::<f64>(kind, m, n, m as u64);
            check_scene(&w, &r, f64::INFINITY);
        }
    }
}

#[test]
fn threads_and_ray_order_do_not_change_a_bit() {
    let (walls, rays) = scene_workload::<f32>(SceneKind::City, 20_000, 9_000, 5);
    let scene = Scene::new(&walls).unwrap();
    let want = brute(&rays, &walls, f32::INFINITY);
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| indexed(&scene, &rays, f32::INFINITY));
        assert!(
            want == got,
            "{threads} threads:\n{}",
            first_difference(&want, &got, &rays, &walls)
        );
        let mut any = vec![false; rays.len()];
        pool.install(|| scene.any_hit(&rays.as_ref(), f32::INFINITY, &mut any))
            .unwrap();
        assert!(any
            .iter()
            .zip(&want.index)
            .all(|(&a, &k)| a == (k != NO_HIT)));
    }
    // Shuffled: each ray's answer follows it.
    let n = rays.len();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut g = SplitMix64::new(9);
    for i in (1..n).rev() {
        perm.swap(i, g.below(i as u64 + 1) as usize);
    }
    let rows: Vec<Ray<f32>> = perm.iter().map(|&i| rays.as_ref().ray(i)).collect();
    let shuffled = indexed(&scene, &Rays::from_rows(&rows), f32::INFINITY);
    for (k, &i) in perm.iter().enumerate() {
        assert_eq!(
            (
                shuffled.t[k],
                shuffled.s[k],
                shuffled.index[k],
                shuffled.nx[k],
                shuffled.ny[k]
            ),
            (want.t[i], want.s[i], want.index[i], want.nx[i], want.ny[i])
        );
    }
}

#[test]
fn refit_after_walls_move() {
    for seed in 0..6u64 {
        let (walls, rays) = scene_workload::<f64>(SceneKind::Random, 3000, 1500, seed);
        let mut scene = Scene::new(&walls).unwrap();
        let mut g = SplitMix64::new(seed);
        let mut rows: Vec<Segment<f64>> = (0..walls.len()).map(|i| walls.segment(i)).collect();
        for step in 0..3 {
            for s in rows.iter_mut() {
                // Most walls drift, some jump across the scene, some turn.
                let (dx, dy) = if g.chance(0.05) {
                    (g.range(-100.0, 100.0), g.range(-100.0, 100.0))
                } else {
                    (g.range(-1.0, 1.0), g.range(-1.0, 1.0))
                };
                s.x0 += dx;
                s.y0 += dy;
                s.x1 += dx
                    + if g.chance(0.2) {
                        g.range(-2.0, 2.0)
                    } else {
                        0.0
                    };
                s.y1 += dy;
            }
            if seed == 3 && step == 1 {
                // A wall turns NaN and another huge: the class changes, the scene rebuilds.
                rows[0].x0 = f64::NAN;
                rows[1].y1 = 1e300;
            }
            if seed == 3 && step == 2 {
                rows[0].x0 = 1.0;
            }
            let moved = Segments::from_rows(&rows);
            scene.refit(&moved).unwrap();
            let want = brute(&rays, &moved, f64::INFINITY);
            let got = indexed(&scene, &rays, f64::INFINITY);
            assert!(
                want == got,
                "seed {seed} step {step}:\n{}",
                first_difference(&want, &got, &rays, &moved)
            );
        }
        let fewer = Segments::from_rows(&rows[1..]);
        assert!(matches!(
            scene.refit(&fewer),
            Err(Error::LengthMismatch { .. })
        ));
    }
}

#[test]
fn rows_and_columns_build_the_same_scene() {
    let (walls, rays) = scene_workload::<f32>(SceneKind::City, 2000, 500, 3);
    let rows: Vec<Segment<f32>> = (0..walls.len()).map(|i| walls.segment(i)).collect();
    let a = indexed(&Scene::new(&walls.as_ref()).unwrap(), &rays, f32::INFINITY);
    let b = indexed(&Scene::new(rows.as_slice()).unwrap(), &rays, f32::INFINITY);
    assert!(a == b);
}

#[test]
fn index_size_per_wall() {
    let walls = SceneKind::City.walls::<f32>(100_000, 1);
    // With the grid, which `SceneIndex::Auto` builds once the rays cast pay for it.
    let scene = Scene::with_index(&walls, SceneIndex::Grid).unwrap();
    assert!(scene.has_grid());
    let per = scene.index_bytes() as f64 / walls.len() as f64;
    assert!(per <= 64.0, "{per} bytes per wall");
    let auto = Scene::new(&walls).unwrap();
    assert!(!auto.has_grid(), "no grid before any cast");
    let rays = SceneKind::City.rays::<f32>(walls.len(), walls.len() / 8, 2);
    indexed(&auto, &rays, f32::INFINITY);
    assert!(auto.has_grid(), "the grid once a cast pays for it");
    assert_eq!(auto.index_bytes(), scene.index_bytes());
}

/// `SceneIndex::Auto` builds the grid for walls spread over their box (a city), not for walls
/// along a few curves (a coastline's random walks of short steps: most cells empty) nor for a
/// dense cluster with a few walls far away; the answers are the brute force's either way.
#[test]
fn the_automatic_index_builds_the_grid_where_walls_spread() {
    let mut g = SplitMix64::new(11);
    let mut coast = Vec::new();
    for _ in 0..12 {
        let (mut x, mut y, mut a) = (g.range(0.0, 1000.0), g.range(0.0, 1000.0), 0.0f64);
        for _ in 0..500 {
            a += g.range(-0.3, 0.3);
            let (nx, ny) = (x + a.cos(), y + a.sin());
            coast.push(Segment::new(x as f32, y as f32, nx as f32, ny as f32));
            (x, y) = (nx, ny);
        }
    }
    let mut cluster: Vec<Segment<f32>> = (0..3000)
        .map(|_| {
            let (x, y) = (g.range(0.0, 10.0) as f32, g.range(0.0, 10.0) as f32);
            Segment::new(x, y, x + 0.1, y + 0.05)
        })
        .collect();
    cluster.push(Segment::new(5000.0, 5000.0, 5001.0, 5000.0));
    let city = SceneKind::City.walls::<f32>(6000, 3);
    let city: Vec<Segment<f32>> = (0..city.len()).map(|i| city.segment(i)).collect();
    for (name, walls, grid) in [
        ("coast", coast, false),
        ("cluster", cluster, false),
        ("city", city, true),
    ] {
        let walls = Segments::from_rows(&walls);
        let scene = Scene::new(&walls).unwrap();
        let rays = SceneKind::City.rays::<f32>(walls.len(), walls.len() / 4, 5);
        let want = brute(&rays, &walls, f32::INFINITY);
        assert!(indexed(&scene, &rays, f32::INFINITY) == want, "{name}");
        assert_eq!(scene.has_grid(), grid, "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// Line of sight

type Q = BigRational;

fn q(x: f64) -> Q {
    BigRational::from_float(x).unwrap()
}

/// The exact answer by parameters: `A + t(B − A) = C + s(D − C)`, or the collinear overlap in
/// `t` along AB.
fn sight_reference(
    a: (f64, f64),
    b: (f64, f64),
    c: (f64, f64),
    d: (f64, f64),
    ends: SightEnds,
) -> bool {
    // Boxes apart (exact comparisons): no contact.
    let apart = |p: f64, q: f64, r: f64, s: f64| p.max(q) < r.min(s) || r.max(s) < p.min(q);
    if apart(a.0, b.0, c.0, d.0) || apart(a.1, b.1, c.1, d.1) {
        return false;
    }
    let (ax, ay, bx, by) = (q(a.0), q(a.1), q(b.0), q(b.1));
    let (cx, cy, dx, dy) = (q(c.0), q(c.1), q(d.0), q(d.1));
    let (ux, uy) = (&bx - &ax, &by - &ay);
    let (vx, vy) = (&dx - &cx, &dy - &cy);
    let (wx, wy) = (&cx - &ax, &cy - &ay);
    let cross = |px: &Q, py: &Q, qx: &Q, qy: &Q| px * qy - py * qx;
    let den = cross(&ux, &uy, &vx, &vy);
    let zero = Q::zero();
    let one = Q::from_integer(BigInt::from(1));
    let contact = |t: &Q| !((t.is_zero() && ends.exclude_a) || (*t == one && ends.exclude_b));
    if !den.is_zero() {
        let t = cross(&wx, &wy, &vx, &vy) / &den;
        let s = cross(&wx, &wy, &ux, &uy) / &den;
        return t >= zero && t <= one && s >= zero && s <= one && contact(&t);
    }
    if !cross(&wx, &wy, &ux, &uy).is_zero() {
        return false; // parallel, apart
    }
    // Collinear (or the wall a point on the line): parameters along AB.
    let len2 = &ux * &ux + &uy * &uy;
    let tc = (&wx * &ux + &wy * &uy) / &len2;
    let (ex, ey) = (&dx - &ax, &dy - &ay);
    let td = (&ex * &ux + &ey * &uy) / &len2;
    let (lo, hi) = if tc <= td { (tc, td) } else { (td, tc) };
    let lo = if lo > zero { lo } else { zero.clone() };
    let hi = if hi < one { hi } else { one.clone() };
    match lo.cmp(&hi) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal => contact(&lo),
        std::cmp::Ordering::Greater => false,
    }
}

fn sight_all<F: Real>(scene: &Scene<F>, pairs: &Segments<F>, ends: SightEnds) -> Vec<u8> {
    let mut out = vec![7u8; pairs.len()];
    scene
        .line_of_sight(&pairs.as_ref(), ends, &mut out)
        .unwrap();
    out
}

const ALL_ENDS: [SightEnds; 4] = [
    SightEnds {
        exclude_a: false,
        exclude_b: false,
    },
    SightEnds {
        exclude_a: true,
        exclude_b: false,
    },
    SightEnds {
        exclude_a: false,
        exclude_b: true,
    },
    SightEnds {
        exclude_a: true,
        exclude_b: true,
    },
];

fn check_sight<F: Real>(walls: &Segments<F>, pairs: &Segments<F>) -> [usize; 3] {
    let scene = Scene::new(walls).unwrap();
    let mut counts = [0; 3];
    for ends in ALL_ENDS {
        let got = sight_all(&scene, pairs, ends);
        for (i, &code) in got.iter().enumerate() {
            let p = pairs.segment(i);
            let (a, b) = (
                (p.x0.to_f64(), p.y0.to_f64()),
                (p.x1.to_f64(), p.y1.to_f64()),
            );
            let want = if ![a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) || a == b {
                SIGHT_INVALID
            } else {
                let blocked = (0..walls.len()).any(|j| {
                    let w = walls.segment(j);
                    let v = [w.x0, w.y0, w.x1, w.y1].map(|x| x.to_f64());
                    v.iter().all(|x| x.is_finite())
                        && sight_reference(a, b, (v[0], v[1]), (v[2], v[3]), ends)
                });
                if blocked {
                    SIGHT_BLOCKED
                } else {
                    SIGHT_VISIBLE
                }
            };
            assert_eq!(code, want, "pair {i} {p:?} {ends:?}");
            counts[match code {
                SIGHT_VISIBLE => 0,
                SIGHT_BLOCKED => 1,
                _ => 2,
            }] += 1;
        }
    }
    counts
}

/// The walls of `walls` whose coordinates are all finite.
fn finite_walls<F: Real>(walls: &Segments<F>) -> Vec<Segment<F>> {
    (0..walls.len())
        .map(|i| walls.segment(i))
        .filter(|w| {
            [w.x0, w.y0, w.x1, w.y1]
                .iter()
                .all(|v| v.to_f64().is_finite())
        })
        .collect()
}

/// Pairs aimed at the walls: ends on wall endpoints and on walls' lines, along walls, through
/// vertices, A == B, non-finite ends.
fn sight_case<F: Real>(seed: u64) -> [usize; 3] {
    let (walls, _, _) = adversarial::<F>(seed);
    let g = &mut Gen(SplitMix64::new(seed ^ 0xABCD));
    let finite = finite_walls(&walls);
    let mut pairs = Vec::new();
    let any = |g: &mut Gen| F::from_f64(g.int(8));
    for _ in 0..48 {
        let p = match g.0.below(8) {
            0 | 1 if !finite.is_empty() => {
                // From or to a wall endpoint (contact exactly at A or B).
                let w = g.pick(&finite);
                let (ax, ay) = (any(g), any(g));
                if g.chance(0.5) {
                    Segment::new(w.x0, w.y0, ax, ay)
                } else {
                    Segment::new(ax, ay, w.x1, w.y1)
                }
            }
            2 if !finite.is_empty() => {
                // Along a wall: its own endpoints, a piece of it, or beyond it.
                let w = g.pick(&finite);
                let (ex, ey) = (w.x1 - w.x0, w.y1 - w.y0);
                let k = F::from_f64(g.pick(&[0.0, 1.0, 2.0, -1.0]));
                let m = F::from_f64(g.pick(&[0.5, 1.0, 3.0]));
                Segment::new(
                    w.x0 + k * ex,
                    w.y0 + k * ey,
                    w.x0 + (k + m) * ex,
                    w.y0 + (k + m) * ey,
                )
            }
            3 if !finite.is_empty() => {
                // From a point inside a wall (its midpoint when exact).
                let w = g.pick(&finite);
                let half = F::from_f64(0.5);
                Segment::new(
                    w.x0 + half * (w.x1 - w.x0),
                    w.y0 + half * (w.y1 - w.y0),
                    any(g),
                    any(g),
                )
            }
            4 => {
                let (x, y) = (any(g), any(g));
                Segment::new(x, y, x, y)
            }
            5 if g.chance(0.3) => Segment::new(F::NAN, F::ZERO, F::ONE, F::ONE),
            6 => Segment::new(
                F::from_f64(g.unit() * 16.0 - 8.0),
                F::from_f64(g.unit() * 16.0 - 8.0),
                F::from_f64(g.unit() * 16.0 - 8.0),
                F::from_f64(g.unit() * 16.0 - 8.0),
            ),
            _ => Segment::new(any(g), any(g), any(g), any(g)),
        };
        pairs.push(p);
    }
    check_sight(&walls, &Segments::from_rows(&pairs))
}

/// At every SIMD level this CPU runs (the pairs' walks are compiled at the chosen level).
#[test]
fn line_of_sight_against_the_exact_reference() {
    common::levels::each(|_| line_of_sight_cases());
}

fn line_of_sight_cases() {
    let mut counts = [0; 3];
    let seeds = common::budget(400);
    for seed in 0..seeds as u64 {
        for (k, c) in sight_case::<f32>(seed)
            .iter()
            .chain(&sight_case::<f64>(seed))
            .enumerate()
        {
            counts[k % 3] += c;
        }
    }
    assert!(
        counts.iter().all(|&c| 2 * c > 5 * seeds as usize),
        "visible / blocked / invalid: {counts:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::budget(500)))]

    #[test]
    fn line_of_sight_proptest(seed in any::<u64>()) {
        sight_case::<f64>(seed);
    }
}

#[test]
fn line_of_sight_named_cases() {
    let walls = Segments::<f64>::from_rows(&[
        Segment::new(0.0, 0.0, 4.0, 0.0), // 0: along the x axis
        Segment::new(2.0, 1.0, 2.0, 3.0), // 1: vertical, x = 2
    ]);
    let scene = Scene::new(&walls).unwrap();
    let none = ALL_ENDS[0];
    let both = ALL_ENDS[3];
    let cases: &[([f64; 4], SightEnds, u8)] = &[
        ([-1.0, 1.0, 5.0, 1.0], none, SIGHT_BLOCKED), // touches wall 1's endpoint (2, 1)
        ([-1.0, 0.5, 5.0, 0.5], none, SIGHT_VISIBLE), // between the walls
        ([2.0, 1.0, 2.0, -1.0], none, SIGHT_BLOCKED), // from wall 1's end, crossing wall 0
        ([2.0, 1.0, 5.0, 1.0], both, SIGHT_VISIBLE),  // contact only at A, excluded
        ([2.0, 1.0, 5.0, 1.0], none, SIGHT_BLOCKED),  // not excluded
        ([2.0, 0.0, 2.0, 0.5], ALL_ENDS[1], SIGHT_VISIBLE), // A on wall 0, excluded
        ([2.0, 0.0, 2.0, 0.5], ALL_ENDS[2], SIGHT_BLOCKED), // B excluded, A not
        ([-1.0, 0.0, 0.0, 0.0], ALL_ENDS[2], SIGHT_VISIBLE), // collinear, meets wall 0 at B only
        ([-1.0, 0.0, 1.0, 0.0], both, SIGHT_BLOCKED), // collinear, overlaps beyond B
        ([4.0, 0.0, 9.0, 0.0], both, SIGHT_VISIBLE),  // collinear, from wall 0's end outward
        ([1.0, 0.0, 3.0, 0.0], both, SIGHT_BLOCKED),  // inside wall 0
        ([1.0, 1.0, 1.0, 1.0], none, SIGHT_INVALID),  // A == B
        ([f64::INFINITY, 1.0, 1.0, 1.0], none, SIGHT_INVALID),
    ];
    for (k, &(p, ends, want)) in cases.iter().enumerate() {
        let pairs = Segments::from_rows(&[Segment::new(p[0], p[1], p[2], p[3])]);
        assert_eq!(
            sight_all(&scene, &pairs, ends),
            vec![want],
            "case {k} {p:?}"
        );
        check_sight(&walls, &pairs);
    }
    // Huge and tiny f64 coordinates go through rationals.
    let walls = Segments::<f64>::from_rows(&[
        Segment::new(1e300, -1e300, 1e300, 1e300),
        Segment::new(1e-310, -1.0, 1e-310, 1.0),
    ]);
    let pairs = Segments::from_rows(&[
        Segment::new(0.0, 0.0, 2e300, 0.0),
        Segment::new(0.0, 0.0, 1e-310, 0.0),
        Segment::new(-1.0, 0.0, 5e-311, 0.0),
    ]);
    let got = check_sight(&walls, &pairs);
    assert!(got[1] > 0 && got[0] > 0);
}

#[test]
fn line_of_sight_in_a_city_at_threads() {
    let walls = SceneKind::City.walls::<f32>(3000, 4);
    let scene = Scene::new(&walls).unwrap();
    let side = SceneKind::City.side(3000) as f32;
    let mut g = SplitMix64::new(4);
    let pairs: Vec<Segment<f32>> = (0..2500)
        .map(|_| {
            let (x, y) = (g.unit() as f32 * side, g.unit() as f32 * side);
            Segment::new(
                x,
                y,
                x + (g.unit() as f32 - 0.5) * 40.0,
                y + (g.unit() as f32 - 0.5) * 40.0,
            )
        })
        .collect();
    let pairs = Segments::from_rows(&pairs);
    let counts = check_sight(&walls, &pairs);
    assert!(counts[0] > 1000 && counts[1] > 1000, "{counts:?}");
    let one = sight_all(&scene, &pairs, ALL_ENDS[0]);
    for threads in [2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| sight_all(&scene, &pairs, ALL_ENDS[0])), one);
    }
}

// ---------------------------------------------------------------------------------------------
// Lidar

#[test]
fn lidar_equals_its_rays_cast() {
    let walls = SceneKind::City.walls::<f32>(2000, 8);
    let scene = Scene::new(&walls).unwrap();
    let side = SceneKind::City.side(2000);
    let mut g = SplitMix64::new(8);
    let p = 37;
    let (x, y, h): (Vec<f32>, Vec<f32>, Vec<f32>) = (
        (0..p).map(|_| (g.unit() * side) as f32).collect(),
        (0..p).map(|_| (g.unit() * side) as f32).collect(),
        (0..p)
            .map(|k| {
                if k == 3 {
                    f32::NAN
                } else {
                    (g.unit() * 7.0 - 3.5) as f32
                }
            })
            .collect(),
    );
    let angles: Vec<f32> = (0..101).map(|k| (k as f32 / 101.0 - 0.5) * 6.0).collect();
    let poses = PosesRef::new(&x, &y, &h).unwrap();
    let rays = lidar_rays(&poses, &angles).unwrap();
    assert_eq!(rays.len(), p * angles.len());
    // The documented formula, beam by beam.
    let r = rays.as_ref().ray(5 * 101 + 17);
    let (sh, ch) = (h[5] as f64).sin_cos();
    let (sa, ca) = (angles[17] as f64).sin_cos();
    assert_eq!(
        (r.ox, r.oy, r.dx, r.dy),
        (
            x[5],
            y[5],
            (ch * ca - sh * sa) as f32,
            (sh * ca + ch * sa) as f32
        )
    );
    for max_range in [f32::INFINITY, 12.5] {
        let want = brute(&rays, &walls, max_range);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| {
                run(rays.len(), |o| {
                    scene.lidar(&poses, &angles, max_range, o).unwrap()
                })
            });
            assert!(
                want == got,
                "{}",
                first_difference(&want, &got, &rays, &walls)
            );
        }
        assert!(want.index.iter().filter(|&&k| k != NO_HIT).count() > rays.len() / 3);
    }
}

/// A scan from poses at the adversarial scenes' hard places (wall endpoints, points along the
/// nearly parallel walls' line, the rays' origins), its beams aimed at wall endpoints (and an
/// ulp beside them), along walls both ways, along the axes, and at random: the same bits as
/// the brute force on the scan's rays. Returns how many beams hit.
fn lidar_adversarial_case<F: Real>(seed: u64) -> usize {
    let (walls, rays, t_max) = adversarial::<F>(seed);
    let scene = Scene::new(&walls).unwrap();
    let g = &mut Gen(SplitMix64::new(seed ^ 0x9E37));
    let finite = finite_walls(&walls);
    let mut hits = 0;
    for p in 0..4 {
        let r = rays.as_ref().ray(g.0.below(rays.len() as u64) as usize);
        let (px, py) = match (p, finite.is_empty()) {
            (0 | 1, false) => {
                let w = g.pick(&finite);
                if g.chance(0.5) {
                    (w.x0, w.y0)
                } else {
                    (w.x1, w.y1)
                }
            }
            _ => (r.ox, r.oy),
        };
        let turned = g.unit() * 6.0 - 3.0;
        let heading = F::from_f64(g.pick(&[0.0, 0.0, turned]));
        let (ox, oy) = (px.to_f64(), py.to_f64());
        let mut angles: Vec<F> = [0.0, 0.5, 1.0, 1.5, -1.0]
            .iter()
            .map(|&q| F::from_f64(q * core::f64::consts::PI))
            .collect();
        for w in &finite {
            let (x0, y0, x1, y1) = (w.x0.to_f64(), w.y0.to_f64(), w.x1.to_f64(), w.y1.to_f64());
            let h = heading.to_f64();
            for a in [
                (y0 - oy).atan2(x0 - ox) - h,
                (y1 - oy).atan2(x1 - ox) - h,
                (y1 - y0).atan2(x1 - x0) - h,
                (y0 - y1).atan2(x0 - x1) - h,
            ] {
                if a.is_finite() {
                    let a = F::from_f64(a);
                    angles.push(a);
                    if g.chance(0.3) {
                        angles.push(a.next_up());
                    }
                }
            }
        }
        for _ in 0..16 {
            angles.push(F::from_f64(g.unit() * 7.0 - 3.5));
        }
        // Any order: shuffled.
        for i in (1..angles.len()).rev() {
            angles.swap(i, g.0.below(i as u64 + 1) as usize);
        }
        let (x, y, h) = ([px], [py], [heading]);
        let poses = PosesRef::new(&x, &y, &h).unwrap();
        let beams = lidar_rays(&poses, &angles).unwrap();
        let want = brute(&beams, &walls, t_max);
        let got = run(beams.len(), |o| {
            scene.lidar(&poses, &angles, t_max, o).unwrap()
        });
        assert!(
            want == got,
            "seed {seed}, pose {p}, t_max {t_max}:\n{}",
            first_difference(&want, &got, &beams, &walls)
        );
        hits += want.index.iter().filter(|&&k| k != NO_HIT).count();
    }
    hits
}

/// At every SIMD level this CPU runs (the fans' walks are compiled at the chosen level).
#[test]
fn lidar_adversarial_scenes() {
    common::levels::each(|_| lidar_adversarial_cases());
}

fn lidar_adversarial_cases() {
    let n = common::budget(600) as u64;
    let hits: usize = (0..n)
        .map(|seed| lidar_adversarial_case::<f32>(seed) + lidar_adversarial_case::<f64>(seed))
        .sum();
    assert!(
        hits > n as usize * 40,
        "{hits} hits: the beams aim at walls"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::budget(300)))]

    #[test]
    fn lidar_adversarial_proptest(seed in any::<u64>(), wide in any::<bool>()) {
        if wide {
            lidar_adversarial_case::<f64>(seed);
        } else {
            lidar_adversarial_case::<f32>(seed);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input

#[test]
fn bad_input_is_an_error() {
    let walls = SceneKind::City.walls::<f64>(50, 1);
    let scene = Scene::new(&walls).unwrap();
    let rays = SceneKind::City.rays::<f64>(50, 10, 2);
    let mut short = vec![0.0; 9];
    let out = SegmentsCastOutput {
        t: Some(&mut short),
        ..Default::default()
    };
    assert!(matches!(
        scene.cast(&rays.as_ref(), f64::INFINITY, out),
        Err(Error::LengthMismatch { what: "t", .. })
    ));
    for t_max in [f64::NAN, -1.0] {
        assert!(matches!(
            scene.cast(&rays.as_ref(), t_max, SegmentsCastOutput::default()),
            Err(Error::InvalidArgument(_))
        ));
        assert!(scene.cast_one(&rays.as_ref().ray(0), t_max).is_err());
        assert!(scene
            .any_hit(&rays.as_ref(), t_max, &mut [false; 10])
            .is_err());
    }
    assert!(scene
        .any_hit(&rays.as_ref(), 1.0, &mut [false; 11])
        .is_err());
    assert!(scene
        .line_of_sight(&walls.as_ref(), SightEnds::default(), &mut [0u8; 3])
        .is_err());
    assert!(PosesRef::new(&[0.0f64; 3], &[0.0; 2], &[0.0; 3]).is_err());
    let poses = PosesRef::new(&[0.0f64; 3], &[0.0; 3], &[0.0; 3]).unwrap();
    let mut t = vec![0.0; 8];
    let out = SegmentsCastOutput {
        t: Some(&mut t),
        ..Default::default()
    };
    assert!(scene.lidar(&poses, &[0.0, 1.0, 2.0], 5.0, out).is_err());
    assert!(scene
        .lidar(&poses, &[0.0], f64::NAN, SegmentsCastOutput::default())
        .is_err());
    // An empty scene and empty batches are fine.
    let empty = Scene::<f32>::new(&Segments::new()).unwrap();
    assert!(empty.is_empty());
    let hit = empty
        .cast_one(&Ray::new(0.0, 0.0, 1.0, 0.0), f32::INFINITY)
        .unwrap();
    assert_eq!(hit.index, NO_HIT);
    let none = Rays::<f32>::from_rows(&[]);
    empty
        .cast(&none.as_ref(), 1.0, SegmentsCastOutput::default())
        .unwrap();
    let mut out = [9u8; 1];
    empty
        .line_of_sight(
            &Segments::from_rows(&[Segment::new(0.0f32, 0.0, 1.0, 1.0)]).as_ref(),
            SightEnds::default(),
            &mut out,
        )
        .unwrap();
    assert_eq!(out, [SIGHT_VISIBLE]);
}

// ---------------------------------------------------------------------------------------------
// cast_segments_with: the brute force or a scene built for the call, by the rule

fn with<F: Real>(
    method: CastMethod,
    rays: &Rays<F>,
    walls: &Segments<F>,
    t_max: F,
) -> (Answers, bool) {
    let mut indexed = false;
    let a = run(rays.len(), |o| {
        indexed = cast_segments_with(method, &rays.as_ref(), &walls.as_ref(), t_max, o).unwrap()
    });
    (a, indexed)
}

/// Every method gives the brute force's bits; `auto` builds a scene exactly where
/// `index_pays`, and both sides of each threshold are crossed.
fn check_methods<F: Real>(walls: &Segments<F>, rays: &Rays<F>, t_max: F) -> bool {
    let want = brute(rays, walls, t_max);
    let pays = index_pays(rays.len(), walls.len());
    for (method, built) in [
        (CastMethod::Auto, pays),
        (CastMethod::BruteForce, false),
        (CastMethod::Scene, true),
    ] {
        let (got, indexed) = with(method, rays, walls, t_max);
        assert_eq!(
            indexed,
            built,
            "{method:?}: {} rays, {} walls",
            rays.len(),
            walls.len()
        );
        assert!(
            want == got,
            "{method:?}, {} rays x {} walls, t_max {t_max}:\n{}",
            rays.len(),
            walls.len(),
            first_difference(&want, &got, rays, walls)
        );
    }
    pays
}

/// The first `n` rays (cycled when there are fewer).
fn take_rays<F: Real>(rays: &Rays<F>, n: usize) -> Rays<F> {
    let r = rays.as_ref();
    let rows: Vec<Ray<F>> = (0..n).map(|i| r.ray(i % r.len().max(1))).collect();
    Rays::from_rows(&rows)
}

/// The first `m` walls (cycled when there are fewer: repeated walls tie to the lowest index).
fn take_walls<F: Real>(walls: &Segments<F>, m: usize) -> Segments<F> {
    let rows: Vec<Segment<F>> = (0..m)
        .map(|i| walls.segment(i % walls.len().max(1)))
        .collect();
    Segments::from_rows(&rows)
}

#[test]
fn cast_segments_with_is_the_brute_force_across_the_crossover() {
    let (mw, mr) = (INDEX_MIN_WALLS, INDEX_MIN_RAYS);
    let walls_at = [1, mw / 2, mw - 1, mw, mw + 1, 3 * mw];
    let rays_at = [1, mr - 1, mr, mr + 1, 2 * mr + 5];
    let mut sides = [0usize; 2];
    for &m in &walls_at {
        for &n in &rays_at {
            let (w, r) = scene_workload::<f32>(SceneKind::City, m, n, (m * 31 + n) as u64);
            sides[check_methods(&w, &r, f32::INFINITY) as usize] += 1;
            let (w, r) = scene_workload::<f64>(SceneKind::Random, m, n, (m * 37 + n) as u64);
            check_methods(&w, &r, 5.0);
        }
    }
    assert!(sides[0] > 0 && sides[1] > 0, "{sides:?}");
    // Adversarial walls and rays (endpoints, collinear, zero-length, NaN, huge and tiny),
    // stretched across the thresholds.
    for seed in 0..60u64 {
        let (walls, rays, t_max) = adversarial::<f64>(seed);
        let m = walls_at[seed as usize % walls_at.len()];
        let n = rays_at[(seed / 6) as usize % rays_at.len()];
        check_methods(&take_walls(&walls, m), &take_rays(&rays, n), t_max);
        let (walls, rays, t_max) = adversarial::<f32>(seed + 1000);
        check_methods(
            &take_walls(&walls, m.max(mw)),
            &take_rays(&rays, n.max(mr)),
            t_max,
        );
    }
}

#[test]
fn cast_segments_with_checks_its_arguments_first() {
    assert_eq!(
        CastMethod::from_name("brute-force").unwrap(),
        CastMethod::BruteForce
    );
    let e = CastMethod::from_name("bvh").unwrap_err().to_string();
    assert!(
        e.contains("\"bvh\"") && e.contains("auto, brute-force, scene"),
        "{e}"
    );
    for m in CastMethod::ALL {
        assert_eq!(CastMethod::from_name(m.name()).unwrap(), m);
    }
    let (walls, rays) = scene_workload::<f32>(SceneKind::City, 2000, 300, 9);
    assert!(index_pays(300, 2000));
    for method in CastMethod::ALL {
        let mut short = vec![0.0f32; 299];
        let out = SegmentsCastOutput {
            t: Some(&mut short),
            ..Default::default()
        };
        assert!(matches!(
            cast_segments_with(method, &rays.as_ref(), &walls.as_ref(), 1.0, out),
            Err(Error::LengthMismatch { what: "t", .. })
        ));
        for t_max in [f32::NAN, -1.0] {
            let r = cast_segments_with(
                method,
                &rays.as_ref(),
                &walls.as_ref(),
                t_max,
                SegmentsCastOutput::default(),
            );
            assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
        }
    }
}
