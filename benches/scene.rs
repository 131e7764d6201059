//! Scenes: closest hit through the index against the brute force (`cast_segments`) and
//! parry2d's `Polyline` (its BVH) in the same groups; the index at 10⁵ and 10⁶ walls on one and
//! two threads (10⁶ rays, also sorted by origin beforehand; the tree alone, without the grid;
//! and the sorted rays through a plain uniform
//! grid, not exact, as a measuring stick: `uniform_grid.rs`); any hit; lidar scans; line of sight
//! between point pairs; the build
//! and the refit. Walls from
//! `workload::SceneKind` (city blocks, random), rays incoherent (origins anywhere in the scene,
//! directions at random). Throughput is in rays. Inputs are made before timing; hit counts are
//! checked in setup (the index against the brute force bit for bit where the brute force is
//! affordable, against parry2d's count within 1 % elsewhere). Setup prints the index's bytes
//! per wall.
//!
//! ```sh
//! cargo bench --bench scene
//! cargo bench --bench scene -- scene_large   # one group
//! ```

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parry2d::math::Vec2;
use parry2d::query::{Ray as PRay, RayCast};
use parry2d::shape::Polyline;
use slabclip::cast::{
    cast_segments, lidar_rays, PosesRef, Scene, SceneIndex, SegmentsCastOutput, SightEnds,
    SIGHT_BLOCKED,
};
use slabclip::workload::{SceneKind, SplitMix64};
use slabclip::{Rays, Segment, SegmentSource, Segments, NO_HIT};
use std::time::Duration;

mod uniform_grid;
use uniform_grid::UniformGrid;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
}

/// Every output buffer of a closest-hit batch.
struct Out {
    t: Vec<f32>,
    s: Vec<f32>,
    index: Vec<u32>,
    nx: Vec<f32>,
    ny: Vec<f32>,
}

impl Out {
    fn new(n: usize) -> Self {
        Out {
            t: vec![0.0; n],
            s: vec![0.0; n],
            index: vec![0; n],
            nx: vec![0.0; n],
            ny: vec![0.0; n],
        }
    }
    fn all(&mut self) -> SegmentsCastOutput<'_, f32> {
        SegmentsCastOutput {
            t: Some(&mut self.t),
            s: Some(&mut self.s),
            index: Some(&mut self.index),
            nx: Some(&mut self.nx),
            ny: Some(&mut self.ny),
        }
    }
    fn hits(&self) -> usize {
        self.index.iter().filter(|&&k| k != NO_HIT).count()
    }
}

fn polyline(walls: &Segments<f32>) -> Polyline {
    let mut vertices = Vec::with_capacity(2 * walls.len());
    let mut indices = Vec::with_capacity(walls.len());
    for i in 0..walls.len() {
        let s = walls.segment(i);
        let k = vertices.len() as u32;
        vertices.push(Vec2::new(s.x0, s.y0));
        vertices.push(Vec2::new(s.x1, s.y1));
        indices.push([k, k + 1]);
    }
    Polyline::new(vertices, Some(indices))
}

fn parry_rays(rays: &Rays<f32>) -> Vec<PRay> {
    (0..rays.len())
        .map(|i| {
            let r = rays.as_ref().ray(i);
            PRay::new(Vec2::new(r.ox, r.oy), Vec2::new(r.dx, r.dy))
        })
        .collect()
}

fn parry_cast(p: &Polyline, rays: &[PRay]) -> usize {
    rays.iter()
        .filter(|r| {
            p.cast_local_ray_and_get_normal(r, f32::MAX, false)
                .is_some()
        })
        .count()
}

/// Within 1 %: parry2d decides edges and ties its own way.
fn close(a: usize, b: usize) -> bool {
    a.abs_diff(b) * 100 <= a.max(b) + 100
}

fn scene_vs_brute(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_vs_brute");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    let one = pool(1);
    let n = 4096;
    for kind in SceneKind::ALL {
        for m in [100usize, 1_000, 10_000] {
            let walls = kind.walls::<f32>(m, 1);
            let rays = kind.rays::<f32>(m, n, 2);
            let scene = Scene::new(&walls).unwrap();
            let p = polyline(&walls);
            let prays = parry_rays(&rays);
            let (mut a, mut b) = (Out::new(n), Out::new(n));
            one.install(|| {
                cast_segments(&rays.as_ref(), &walls.as_ref(), f32::INFINITY, a.all()).unwrap();
                scene.cast(&rays.as_ref(), f32::INFINITY, b.all()).unwrap();
            });
            assert!(
                a.t.iter()
                    .zip(&b.t)
                    .all(|(x, y)| x.to_bits() == y.to_bits())
                    && a.index == b.index
            );
            assert!(close(a.hits(), parry_cast(&p, &prays)), "{} hits", a.hits());
            group.throughput(Throughput::Elements(n as u64));
            let id = |what: &str| BenchmarkId::new(format!("{}/{what}", kind.name()), m);
            group.bench_function(id("brute"), |bench| {
                bench.iter(|| {
                    one.install(|| {
                        cast_segments(&rays.as_ref(), &walls.as_ref(), f32::INFINITY, a.all())
                            .unwrap()
                    })
                })
            });
            group.bench_function(id("scene"), |bench| {
                bench.iter(|| {
                    one.install(|| scene.cast(&rays.as_ref(), f32::INFINITY, b.all()).unwrap())
                })
            });
            group.bench_function(id("parry2d"), |bench| {
                bench.iter(|| black_box(parry_cast(&p, &prays)))
            });
        }
    }
    group.finish();
}

/// `rays` sorted by the Morton code of their origins (16 bits a coordinate over their box).
fn by_origin(rays: &Rays<f32>) -> Rays<f32> {
    let r = rays.as_ref();
    let all: Vec<_> = (0..rays.len()).map(|i| r.ray(i)).collect();
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [-f32::INFINITY; 2]);
    for a in &all {
        lo = [lo[0].min(a.ox), lo[1].min(a.oy)];
        hi = [hi[0].max(a.ox), hi[1].max(a.oy)];
    }
    let q = |v: f32, k: usize| (((v - lo[k]) / (hi[k] - lo[k]).max(1e-30)) * 65535.0) as u32;
    let spread = |mut v: u32| {
        v = (v | (v << 8)) & 0x00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    };
    let mut keyed: Vec<_> = all
        .into_iter()
        .map(|a| (spread(q(a.ox, 0)) | (spread(q(a.oy, 1)) << 1), a))
        .collect();
    keyed.sort_by_key(|k| k.0);
    let rows: Vec<_> = keyed.into_iter().map(|k| k.1).collect();
    Rays::from_rows(&rows)
}

fn scene_large(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_large");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    let (one, two) = (pool(1), pool(2));
    let n = 1_000_000;
    for kind in SceneKind::ALL {
        for m in [100_000usize, 1_000_000] {
            let walls = kind.walls::<f32>(m, 3);
            let rays = kind.rays::<f32>(m, n, 4);
            let scene = Scene::new(&walls).unwrap();
            let p = polyline(&walls);
            let prays = parry_rays(&rays);
            let mut out = Out::new(n);
            let mut any = vec![false; n];
            one.install(|| {
                scene
                    .cast(&rays.as_ref(), f32::INFINITY, out.all())
                    .unwrap()
            });
            scene
                .any_hit(&rays.as_ref(), f32::INFINITY, &mut any)
                .unwrap();
            assert_eq!(any.iter().filter(|&&a| a).count(), out.hits());
            // After a cast, which built the grid (`SceneIndex::Auto`).
            eprintln!(
                "{} {m} walls: index {:.1} bytes per wall (grid: {})",
                kind.name(),
                scene.index_bytes() as f64 / m as f64,
                scene.has_grid()
            );
            assert!(
                close(out.hits(), parry_cast(&p, &prays[..10_000]) * 100),
                "{} hits",
                out.hits()
            );
            group.throughput(Throughput::Elements(n as u64));
            let id = |what: &str| BenchmarkId::new(format!("{}/{what}", kind.name()), m);
            group.bench_function(id("scene-1t"), |bench| {
                bench.iter(|| {
                    one.install(|| {
                        scene
                            .cast(&rays.as_ref(), f32::INFINITY, out.all())
                            .unwrap()
                    })
                })
            });
            // The same scene walked by its tree alone (no grid).
            let tree = Scene::with_index(&walls, SceneIndex::Tree).unwrap();
            group.bench_function(id("tree-1t"), |bench| {
                bench.iter(|| {
                    one.install(|| tree.cast(&rays.as_ref(), f32::INFINITY, out.all()).unwrap())
                })
            });
            group.bench_function(id("tree-any-hit-1t"), |bench| {
                bench.iter(|| {
                    one.install(|| {
                        tree.any_hit(&rays.as_ref(), f32::INFINITY, &mut any)
                            .unwrap()
                    })
                })
            });
            group.bench_function(id("scene-2t"), |bench| {
                bench.iter(|| {
                    two.install(|| {
                        scene
                            .cast(&rays.as_ref(), f32::INFINITY, out.all())
                            .unwrap()
                    })
                })
            });
            group.bench_function(id("any-hit-1t"), |bench| {
                bench.iter(|| {
                    one.install(|| {
                        scene
                            .any_hit(&rays.as_ref(), f32::INFINITY, &mut any)
                            .unwrap()
                    })
                })
            });
            // The same rays in the Morton order of their origins (nearby rays after each other).
            let sorted = by_origin(&rays);
            group.bench_function(id("scene-1t-rays-by-origin"), |bench| {
                bench.iter(|| {
                    one.install(|| {
                        scene
                            .cast(&sorted.as_ref(), f32::INFINITY, out.all())
                            .unwrap()
                    })
                })
            });
            group.bench_function(id("parry2d-1t"), |bench| {
                bench.iter(|| black_box(parry_cast(&p, &prays)))
            });
            // The same sorted rays through a plain uniform grid of about one wall a cell (not
            // exact: `uniform_grid.rs`), to see what a grid walk costs beside the tree's.
            let grid = UniformGrid::new(&walls, 1.0);
            let sr = sorted.as_ref();
            let grid_cast = |k: usize| {
                let r = sr.ray(k);
                grid.cast((r.ox, r.oy), (r.dx, r.dy))
            };
            one.install(|| scene.cast(&sr, f32::INFINITY, out.all()).unwrap());
            let differ = (0..n)
                .filter(|&k| {
                    let (t, i) = grid_cast(k);
                    i != out.index[k] || (i != NO_HIT && t != out.t[k])
                })
                .count();
            eprintln!(
                "{} {m} walls: uniform grid {:.2} entries a wall, {differ} of {n} answers differ from the scene's",
                kind.name(),
                grid.entries() as f64 / m as f64
            );
            group.bench_function(id("uniform-grid-inexact-1t"), |bench| {
                bench.iter(|| {
                    for (k, slot) in out.t.iter_mut().enumerate() {
                        *slot = grid_cast(k).0;
                    }
                })
            });
        }
    }
    group.finish();
}

fn lidar(c: &mut Criterion) {
    let mut group = c.benchmark_group("lidar");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    let one = pool(1);
    let m = 100_000;
    for kind in SceneKind::ALL {
        let walls = kind.walls::<f32>(m, 5);
        let scene = Scene::new(&walls).unwrap();
        let side = kind.side(m);
        let mut g = SplitMix64::new(6);
        let p = 64;
        let x: Vec<f32> = (0..p).map(|_| (g.unit() * side) as f32).collect();
        let y: Vec<f32> = (0..p).map(|_| (g.unit() * side) as f32).collect();
        let h: Vec<f32> = (0..p).map(|_| (g.unit() * 6.3) as f32).collect();
        let angles: Vec<f32> = (0..1024)
            .map(|k| (k as f32) * (std::f32::consts::TAU / 1024.0))
            .collect();
        let poses = PosesRef::new(&x, &y, &h).unwrap();
        let rays = lidar_rays(&poses, &angles).unwrap();
        let n = rays.len();
        let (mut a, mut b) = (Out::new(n), Out::new(n));
        one.install(|| {
            scene.lidar(&poses, &angles, 100.0, a.all()).unwrap();
            scene.cast(&rays.as_ref(), 100.0, b.all()).unwrap();
        });
        assert!(a.index == b.index && a.hits() > n / 4, "{} hits", a.hits());
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(
            BenchmarkId::new(kind.name(), "poses-x-1024-beams"),
            |bench| {
                bench.iter(|| one.install(|| scene.lidar(&poses, &angles, 100.0, a.all()).unwrap()))
            },
        );
        group.bench_function(BenchmarkId::new(kind.name(), "same-rays-cast"), |bench| {
            bench.iter(|| one.install(|| scene.cast(&rays.as_ref(), 100.0, b.all()).unwrap()))
        });
    }
    group.finish();
}

/// Line of sight between 10⁵ pairs of points at most 100 apart among 10⁵ walls: throughput in
/// pairs.
fn sight(c: &mut Criterion) {
    let mut group = c.benchmark_group("line_of_sight");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    let one = pool(1);
    let (m, n) = (100_000, 100_000);
    for kind in SceneKind::ALL {
        let walls = kind.walls::<f32>(m, 7);
        let scene = Scene::new(&walls).unwrap();
        let side = kind.side(m);
        let mut g = SplitMix64::new(8);
        let pairs: Vec<Segment<f32>> = (0..n)
            .map(|_| {
                let (x, y) = (g.unit() * side, g.unit() * side);
                let (r, a) = (g.unit() * 100.0, g.unit() * std::f64::consts::TAU);
                let (bx, by) = (x + r * a.cos(), y + r * a.sin());
                Segment::new(x as f32, y as f32, bx as f32, by as f32)
            })
            .collect();
        let pairs = Segments::from_rows(&pairs);
        let mut out = vec![0u8; n];
        one.install(|| {
            scene
                .line_of_sight(&pairs.as_ref(), SightEnds::default(), &mut out)
                .unwrap()
        });
        let blocked = out.iter().filter(|&&v| v == SIGHT_BLOCKED).count();
        assert!(blocked > n / 10 && blocked < n, "{blocked} blocked");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new(kind.name(), "pairs-1t"), |bench| {
            bench.iter(|| {
                one.install(|| {
                    scene
                        .line_of_sight(&pairs.as_ref(), SightEnds::default(), &mut out)
                        .unwrap()
                })
            })
        });
    }
    group.finish();
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("build");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    let m = 1_000_000;
    for kind in SceneKind::ALL {
        let walls = kind.walls::<f32>(m, 7);
        group.throughput(Throughput::Elements(m as u64));
        group.bench_function(BenchmarkId::new(kind.name(), "scene-new"), |bench| {
            bench.iter(|| black_box(Scene::new(&walls).unwrap()))
        });
        // With the grid built at once (`Scene::new` builds it when a cast first pays for it).
        group.bench_function(
            BenchmarkId::new(kind.name(), "scene-new-with-grid"),
            |bench| bench.iter(|| black_box(Scene::with_index(&walls, SceneIndex::Grid).unwrap())),
        );
        let mut scene = Scene::new(&walls).unwrap();
        group.bench_function(BenchmarkId::new(kind.name(), "scene-refit"), |bench| {
            bench.iter(|| scene.refit(&walls).unwrap())
        });
        group.bench_function(BenchmarkId::new(kind.name(), "parry2d-polyline"), |bench| {
            bench.iter(|| black_box(polyline(&walls)))
        });
    }
    group.finish();
}

criterion_group!(benches, scene_vs_brute, scene_large, lidar, sight, build);
criterion_main!(benches);
