//! Visibility polygons in a city of boxes: per viewpoint with the walls prepared once (the
//! sweep alone, buffers reused), the one-call form (preparation included), and a batch of
//! viewpoints on one and two threads; and among 10⁵ walls. Scenes and viewpoints are seeded
//! and made before timing.
//!
//! ```sh
//! cargo bench --bench visibility
//! ```

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slabclip::workload::{SceneKind, SplitMix64};
use slabclip::{visibility_polygon, Rect, Segment, Segments, VisibilityScratch, VisibilityWalls};

/// SplitMix64, for seeded scenes.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `boxes` boxes (four walls and four vertices each) on a jittered grid over [0, 100]², a
/// third of them turned, and viewpoints in the streets.
/// A scene: walls, bounds and viewpoints.
type City = (Vec<Segment<f64>>, Rect<f64>, Vec<(f64, f64)>);

fn city(boxes: usize, seed: u64) -> City {
    let mut g = Rng(seed);
    let n = (boxes as f64).sqrt().ceil() as usize;
    let cell = 100.0 / n as f64;
    let mut walls = Vec::new();
    for k in 0..boxes {
        let (i, j) = (k % n, k / n);
        let (cx, cy) = ((i as f64 + 0.5) * cell, (j as f64 + 0.5) * cell);
        let h = cell * (0.15 + 0.2 * g.unit());
        let a = if g.unit() < 0.3 { g.unit() } else { 0.0 };
        let (c, s) = (a.cos() * h, a.sin() * h);
        let p = [
            (cx - c + s, cy - s - c),
            (cx + c + s, cy + s - c),
            (cx + c - s, cy + s + c),
            (cx - c - s, cy - s + c),
        ];
        for e in 0..4 {
            let (u, v) = (p[e], p[(e + 1) % 4]);
            walls.push(Segment::new(u.0, u.1, v.0, v.1));
        }
    }
    let rect = Rect::new(0.0, 0.0, 100.0, 100.0).expect("a rect");
    // Viewpoints on the streets between the boxes.
    let views = (0..64)
        .map(|_| {
            let (i, j) = (
                (g.unit() * n as f64) as usize,
                (g.unit() * n as f64) as usize,
            );
            (i as f64 * cell + 0.02 * cell, (j as f64 + g.unit()) * cell)
        })
        .filter(|&(x, y)| x > 0.0 && y > 0.0 && y < 100.0)
        .collect();
    (walls, rect, views)
}

fn visibility(c: &mut Criterion) {
    let mut group = c.benchmark_group("visibility");
    for boxes in [16usize, 64, 250] {
        let (walls, rect, views) = city(boxes, boxes as u64);
        let segs = Segments::from_rows(&walls);
        let prepared = VisibilityWalls::new(&rect, &segs.as_ref()).expect("walls");
        let mut scratch = VisibilityScratch::default();
        let mut out = Vec::new();
        let mut verts = 0;
        for &v in &views {
            prepared
                .polygon_into(v, &mut scratch, &mut out)
                .expect("a polygon");
            verts += out.len();
        }
        assert!(verts > 3 * views.len());
        let label = format!("{} vertices", 4 * boxes);
        group.throughput(Throughput::Elements(views.len() as u64));
        group.bench_function(BenchmarkId::new("prepared", &label), |b| {
            b.iter(|| {
                for &v in &views {
                    prepared
                        .polygon_into(black_box(v), &mut scratch, &mut out)
                        .expect("a polygon");
                }
            })
        });
        group.bench_function(BenchmarkId::new("one-call", &label), |b| {
            b.iter(|| {
                for &v in &views {
                    black_box(visibility_polygon(v, &rect, &segs.as_ref()).expect("a polygon"));
                }
            })
        });
        let (ox, oy): (Vec<f64>, Vec<f64>) = views.iter().copied().unzip();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            group.bench_function(
                BenchmarkId::new(format!("batch-{threads}-thread"), &label),
                |b| b.iter(|| pool.install(|| black_box(prepared.polygons(&ox, &oy).expect("ok")))),
            );
        }
    }
    group.finish();
}

/// Polygons among 10⁵ walls (the scenes' city and random walls, `workload`), walls prepared
/// once: what a viewpoint costs when the scene is far larger than what it sees.
fn visibility_large(c: &mut Criterion) {
    let mut group = c.benchmark_group("visibility_large");
    group.sample_size(10);
    let m = 100_000;
    for kind in SceneKind::ALL {
        let walls = kind.walls::<f64>(m, 5);
        let side = kind.side(m);
        let rect = Rect::new(-1.0, -1.0, side + 1.0, side + 1.0).expect("a rect");
        let prepared = VisibilityWalls::new(&rect, &walls.as_ref()).expect("walls");
        let mut g = SplitMix64::new(6);
        let views: Vec<(f64, f64)> = (0..64)
            .map(|_| (g.unit() * side, g.unit() * side))
            .filter(|&v| prepared.polygon(v).is_ok())
            .collect();
        assert!(views.len() > 48, "{} viewpoints", views.len());
        let (mut scratch, mut out) = (VisibilityScratch::default(), Vec::new());
        group.throughput(Throughput::Elements(views.len() as u64));
        group.bench_function(BenchmarkId::new("prepared", kind.name()), |b| {
            b.iter(|| {
                for &v in &views {
                    prepared
                        .polygon_into(black_box(v), &mut scratch, &mut out)
                        .expect("a polygon");
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, visibility, visibility_large);
criterion_main!(benches);
