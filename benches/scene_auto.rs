//! Where the scene index pays: `cast_segments` (every ray against every wall) against
//! `Scene::new` + `Scene::cast` (the build counted), on the calling thread alone (as Python's
//! `threads=1`: no hand-off to a pool, whose cost would swamp the small batches), over a grid
//! of ray and wall counts. `cast_segments_auto`'s rule (`slabclip::cast::index_pays`) is read off this grid;
//! `docs/guide/scenes.md` has the table. Walls from `workload::SceneKind` (city blocks,
//! random), rays incoherent. Setup checks that both give the same bits.
//!
//! ```sh
//! cargo bench --bench scene_auto
//! ```

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slabclip::cast::{cast_segments, Scene, SegmentsCastOutput};
use slabclip::on_calling_thread;
use slabclip::workload::SceneKind;
use std::time::Duration;

/// The outputs `slabclip cast --segments` writes.
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
}

/// One batch both ways, checked to give the same bits, then timed both ways.
fn pair(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    kind: SceneKind,
    m: usize,
    n: usize,
) {
    let walls = kind.walls::<f32>(m, 1);
    let rays = kind.rays::<f32>(m, n, 2);
    let (mut a, mut b) = (Out::new(n), Out::new(n));
    on_calling_thread(|| {
        cast_segments(&rays.as_ref(), &walls.as_ref(), f32::INFINITY, a.all()).unwrap();
        let scene = Scene::new(&walls).unwrap();
        scene.cast(&rays.as_ref(), f32::INFINITY, b.all()).unwrap();
    });
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(bits(&a.t) == bits(&b.t) && a.index == b.index);
    group.throughput(Throughput::Elements(n as u64));
    let id = |what: &str| BenchmarkId::new(format!("{}/{what}/{m}", kind.name()), n);
    group.bench_function(id("brute"), |bench| {
        bench.iter(|| {
            on_calling_thread(|| {
                cast_segments(&rays.as_ref(), &walls.as_ref(), f32::INFINITY, a.all()).unwrap()
            })
        })
    });
    group.bench_function(id("index"), |bench| {
        bench.iter(|| {
            on_calling_thread(|| {
                let scene = Scene::new(&walls).unwrap();
                scene.cast(&rays.as_ref(), f32::INFINITY, b.all()).unwrap()
            })
        })
    });
}

fn crossover(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_auto");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for m in [64usize, 128, 256, 512, 1024, 2048, 8192] {
        for n in [16usize, 64, 256, 1024, 4096, 16384] {
            pair(&mut group, SceneKind::City, m, n);
        }
    }
    for m in [256usize, 1024, 4096] {
        for n in [256usize, 4096] {
            pair(&mut group, SceneKind::Random, m, n);
        }
    }
    group.finish();
}

criterion_group!(benches, crossover);
criterion_main!(benches);
