//! Rays × segments and rays × convex polygons: slabclip's batch (SIMD across rays, on one
//! thread and under rayon), its scalar path (the same kernel, one ray at a time), and parry2d's
//! per-shape ray casts with normals, in the same criterion groups. Throughput is in ray × edge
//! tests. Inputs are seeded and made before timing; the hit counts of slabclip and parry2d are
//! checked against each other in setup.
//!
//! ```sh
//! cargo bench --bench rays
//! RUSTFLAGS="-C target-cpu=x86-64-v3" cargo bench --bench rays   # AVX2 lanes
//! ```

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parry2d::math::Vec2;
use parry2d::query::{Ray as PRay, RayCast};
use parry2d::shape::{ConvexPolygon as PPolygon, Segment as PSegment};
use slabclip::cast::{
    cast_polygon, cast_polygon_one, cast_rect, cast_segments, cast_segments_one, PolygonCastOutput,
    RectCastOutput, SegmentsCastOutput,
};
use slabclip::workload::Dist;
use slabclip::{
    Algorithm, ClipOutput, ConvexPolygon, InsideMode, Ray, Rays, Segment, Segments, NO_HIT,
};

/// SplitMix64, for seeded scenes.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

const RAYS: usize = 4096;

fn rays(g: &mut Rng) -> Vec<Ray<f32>> {
    (0..RAYS)
        .map(|_| {
            let a = g.unit() * std::f32::consts::TAU;
            Ray::new(g.unit() * 100.0, g.unit() * 100.0, a.cos(), a.sin())
        })
        .collect()
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool")
}

fn rays_x_segments(c: &mut Criterion) {
    let mut group = c.benchmark_group("rays_x_segments");
    let pool = one_thread();
    for m in [16usize, 64, 256] {
        let g = &mut Rng(m as u64);
        let rows = rays(g);
        let segs: Vec<Segment<f32>> = (0..m)
            .map(|_| {
                let (x, y) = (g.unit() * 100.0, g.unit() * 100.0);
                Segment::new(x, y, x + g.unit() * 30.0 - 15.0, y + g.unit() * 30.0 - 15.0)
            })
            .collect();
        let soa = Segments::from_rows(&segs);
        let batch = Rays::from_rows(&rows);
        let p_rays: Vec<PRay> = rows
            .iter()
            .map(|r| PRay::new(Vec2::new(r.ox, r.oy), Vec2::new(r.dx, r.dy)))
            .collect();
        let p_segs: Vec<PSegment> = segs
            .iter()
            .map(|s| PSegment::new(Vec2::new(s.x0, s.y0), Vec2::new(s.x1, s.y1)))
            .collect();

        // Every answer of the query (parry2d's casts give `t` and the normal).
        let (mut t, mut idx) = (vec![0.0f32; RAYS], vec![0u32; RAYS]);
        let (mut s, mut nx, mut ny) = (vec![0.0f32; RAYS], vec![0.0f32; RAYS], vec![0.0f32; RAYS]);
        let mut cast = |t: &mut [f32], idx: &mut [u32]| {
            let out = SegmentsCastOutput {
                t: Some(t),
                index: Some(idx),
                s: Some(&mut s),
                nx: Some(&mut nx),
                ny: Some(&mut ny),
            };
            cast_segments(&batch.as_ref(), &soa.as_ref(), f32::INFINITY, out).expect("cast");
        };
        let parry = |pr: &PRay| {
            let mut best: Option<(f32, Vec2)> = None;
            for s in &p_segs {
                if let Some(h) = s.cast_local_ray_and_get_normal(pr, f32::MAX, true) {
                    if best.is_none_or(|b| h.time_of_impact < b.0) {
                        best = Some((h.time_of_impact, h.normal));
                    }
                }
            }
            best
        };
        // Setup check: both find (nearly) the same hits.
        cast(&mut t, &mut idx);
        let ours = idx.iter().filter(|&&i| i != NO_HIT).count();
        let theirs = p_rays.iter().filter(|r| parry(r).is_some()).count();
        assert!(
            ours > RAYS / 10 && ours.abs_diff(theirs) <= RAYS / 100,
            "hits: slabclip {ours}, parry2d {theirs}"
        );

        group.throughput(Throughput::Elements((RAYS * m) as u64));
        group.bench_function(BenchmarkId::new("slabclip-simd-1-thread", m), |b| {
            pool.install(|| b.iter(|| cast(&mut t, &mut idx)))
        });
        group.bench_function(BenchmarkId::new("slabclip-simd-rayon", m), |b| {
            b.iter(|| cast(&mut t, &mut idx))
        });
        group.bench_function(BenchmarkId::new("slabclip-scalar", m), |b| {
            b.iter(|| {
                for r in &rows {
                    black_box(cast_segments_one(r, &soa.as_ref(), f32::INFINITY).expect("cast"));
                }
            })
        });
        group.bench_function(BenchmarkId::new("parry2d", m), |b| {
            b.iter(|| {
                for r in &p_rays {
                    black_box(parry(r));
                }
            })
        });
    }
    group.finish();
}

fn rays_x_polygons(c: &mut Criterion) {
    let mut group = c.benchmark_group("rays_x_polygons");
    let pool = one_thread();
    for k in [4usize, 8, 32] {
        let g = &mut Rng(1000 + k as u64);
        let rows = rays(g);
        let batch = Rays::from_rows(&rows);
        // A regular k-gon in the middle of the field.
        let v: Vec<(f32, f32)> = (0..k)
            .map(|i| {
                let a = i as f32 / k as f32 * std::f32::consts::TAU + 0.1;
                (50.0 + 20.0 * a.cos(), 50.0 + 20.0 * a.sin())
            })
            .collect();
        let poly = ConvexPolygon::new(&v).expect("convex");
        let p_poly =
            PPolygon::from_convex_polyline(v.iter().map(|&(x, y)| Vec2::new(x, y)).collect())
                .expect("convex");
        let p_rays: Vec<PRay> = rows
            .iter()
            .map(|r| PRay::new(Vec2::new(r.ox, r.oy), Vec2::new(r.dx, r.dy)))
            .collect();

        let (mut t, mut nx, mut ny, mut edge) = (
            vec![0.0f32; RAYS],
            vec![0.0f32; RAYS],
            vec![0.0f32; RAYS],
            vec![0u32; RAYS],
        );
        let cast = |t: &mut [f32], nx: &mut [f32], ny: &mut [f32], edge: &mut [u32]| {
            let out = PolygonCastOutput {
                t: Some(t),
                nx: Some(nx),
                ny: Some(ny),
                edge: Some(edge),
                ..Default::default()
            };
            cast_polygon(&poly, &batch.as_ref(), f32::INFINITY, InsideMode::Exit, out)
                .expect("cast");
        };
        cast(&mut t, &mut nx, &mut ny, &mut edge);
        let ours = edge.iter().filter(|&&e| e != NO_HIT).count();
        let theirs = p_rays
            .iter()
            .filter(|r| {
                p_poly
                    .cast_local_ray_and_get_normal(r, f32::MAX, false)
                    .is_some()
            })
            .count();
        assert!(
            ours > RAYS / 10 && ours.abs_diff(theirs) <= RAYS / 100,
            "hits: slabclip {ours}, parry2d {theirs}"
        );

        group.throughput(Throughput::Elements((RAYS * k) as u64));
        group.bench_function(BenchmarkId::new("slabclip-simd-1-thread", k), |b| {
            pool.install(|| b.iter(|| cast(&mut t, &mut nx, &mut ny, &mut edge)))
        });
        group.bench_function(BenchmarkId::new("slabclip-simd-rayon", k), |b| {
            b.iter(|| cast(&mut t, &mut nx, &mut ny, &mut edge))
        });
        group.bench_function(BenchmarkId::new("slabclip-scalar", k), |b| {
            b.iter(|| {
                for r in &rows {
                    black_box(
                        cast_polygon_one(&poly, r, f32::INFINITY, InsideMode::Exit).expect("cast"),
                    );
                }
            })
        });
        group.bench_function(BenchmarkId::new("parry2d", k), |b| {
            b.iter(|| {
                for r in &p_rays {
                    black_box(p_poly.cast_local_ray_and_get_normal(r, f32::MAX, false));
                }
            })
        });
    }
    group.finish();
}

/// Ray × rect against `simd-slab` on the same geometry (SPEC §2's ray × rect is the segment
/// clip's slab on `[0, t_max]`): the 64K `mixed` segments, and the rays `O = P0`, `D = P1 − P0`,
/// `t_max = 1`; both asked for `t_entry`, `t_exit`, on one thread. Throughput in rays (segments).
fn ray_rect_vs_segments(c: &mut Criterion) {
    let mut group = c.benchmark_group("ray_rect_vs_segments");
    let pool = one_thread();
    let n = 1 << 16;
    let w = Dist::Mixed.generate::<f32>(n, 1);
    let segs = w.segments.as_ref();
    let (x0, y0, x1, y1) = segs.columns();
    let rows: Vec<Ray<f32>> = (0..n)
        .map(|i| Ray::new(x0[i], y0[i], x1[i] - x0[i], y1[i] - y0[i]))
        .collect();
    let rays = Rays::from_rows(&rows);
    let (mut a, mut b) = (vec![0f32; n], vec![0f32; n]);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("simd-slab segments", n), |bench| {
        pool.install(|| {
            bench.iter(|| {
                let mut out = ClipOutput {
                    t_entry: Some(&mut a),
                    t_exit: Some(&mut b),
                    ..Default::default()
                };
                Algorithm::SimdSlab
                    .clip(&w.rect, black_box(&segs), &mut out)
                    .expect("sized outputs")
            })
        })
    });
    group.bench_function(BenchmarkId::new("ray x rect", n), |bench| {
        pool.install(|| {
            bench.iter(|| {
                let mut out = RectCastOutput {
                    t_entry: Some(&mut a),
                    t_exit: Some(&mut b),
                    ..Default::default()
                };
                cast_rect(&w.rect, black_box(&rays.as_ref()), 1.0, &mut out).expect("sized outputs")
            })
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    rays_x_segments,
    rays_x_polygons,
    ray_rect_vs_segments
);
criterion_main!(benches);
