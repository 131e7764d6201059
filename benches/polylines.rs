//! Polylines per second (SPEC §7): `road-like` segments chained into polylines of 50 vertices,
//! clipped to the workload's rect, and cut into tiles of 8 × 8 and 1000 × 1000 cells over
//! `[-0.5, 1.5]²`, `f32`, one thread and two.
//!
//! ```text
//! cargo bench --bench polylines
//! ```
//!
//! The polylines are built once, outside the timed loop; the answer is written into one
//! [`Parts`] reused between iterations, as a caller that clips every frame would. Throughput
//! is in input vertices (criterion's "elements"). One thread is the calling thread
//! ([`on_calling_thread`]); two are a rayon pool of two. The part counts are checked to be the same on
//! both thread counts before timing.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slabclip::workload::Dist;
use slabclip::{
    on_calling_thread, ClipKernel, ClipOutput, Coords, Grid, PartOptions, Parts, Polylines, Rect,
    SegmentSource, SimdSlab, TileOptions, VertexPairs,
};

const SEED: u64 = 0x5EED_C11B;
/// Input vertices.
const N: usize = 1 << 20;
const VERTICES: usize = 50;

/// `road-like` segments chained into polylines of [`VERTICES`] vertices: each polyline is the
/// start of its first segment and the ends of the next 49 (the workload's roads are chained,
/// so these are its roads cut into pieces).
fn roads() -> (Vec<f32>, Vec<i64>) {
    let w = Dist::RoadLike.generate::<f32>(N, SEED);
    let s = &w.segments;
    let (mut xy, mut offsets) = (Vec::with_capacity(2 * N), vec![0i64]);
    let mut i = 0;
    while i + VERTICES - 1 <= s.len() {
        let first = s.segment(i);
        xy.extend_from_slice(&[first.x0, first.y0]);
        for k in i..i + VERTICES - 1 {
            let seg = s.segment(k);
            xy.extend_from_slice(&[seg.x1, seg.y1]);
        }
        offsets.push((xy.len() / 2) as i64);
        i += VERTICES - 1;
    }
    (xy, offsets)
}

fn polylines(c: &mut Criterion) {
    let (xy, offsets) = roads();
    let lines = Polylines::interleaved(&xy, &offsets).expect("valid offsets");
    let rect = Dist::RoadLike.generate::<f32>(1, SEED).rect;
    let pools: Vec<_> = [1, 2]
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .into();
    let vertices = (xy.len() / 2) as u64;
    let whole = Rect::new(-0.5f32, -0.5, 1.5, 1.5).unwrap();
    let grids = [
        ("tiles-8x8", Grid::new(whole, 8, 8).unwrap()),
        ("tiles-1000x1000", Grid::new(whole, 1000, 1000).unwrap()),
    ];
    let options = PartOptions::default();
    let counts: Vec<usize> = pools
        .iter()
        .map(|p| {
            let mut out = Parts::new();
            p.install(|| lines.clip(&rect, &options, &mut out));
            out.len()
        })
        .collect();
    assert_eq!(counts[0], counts[1]);
    assert!(counts[0] > 1000, "{} parts", counts[0]);

    // The first 32K vertices alone: input and output stay in L2.
    let k = offsets.partition_point(|&o| o <= 1 << 15);
    let small = Polylines::interleaved(&xy, &offsets[..k]).expect("valid offsets");
    let small_vertices = offsets[k - 1] as u64;
    {
        let mut out = Parts::new();
        let mut g = c.benchmark_group("polylines/road-like-50-in-l2/float32");
        g.throughput(Throughput::Elements(small_vertices));
        g.bench_function(BenchmarkId::new("clip-rect", "1-thread"), |b| {
            b.iter(|| on_calling_thread(|| small.clip(black_box(&rect), &options, &mut out)))
        });
        g.finish();
    }

    memory_ceiling(&xy, &offsets, &rect);

    let mut g = c.benchmark_group("polylines/road-like-50/float32");
    g.throughput(Throughput::Elements(vertices));
    g.measurement_time(Duration::from_secs(4));
    // A 1000 × 1000 tiling takes seconds per iteration on a shared machine: 20 samples.
    g.sample_size(20);
    // One thread: on the calling thread (`on_calling_thread`), one core with no hop to a pool.
    let on = |pool: &rayon::ThreadPool, threads: usize, f: &mut (dyn FnMut() + Send)| {
        if threads == 1 {
            on_calling_thread(f)
        } else {
            pool.install(f)
        }
    };
    for (pool, threads) in pools.iter().zip([1, 2]) {
        let mut out = Parts::new();
        g.bench_function(
            BenchmarkId::new("clip-rect", format!("{threads}-thread")),
            |b| {
                b.iter(|| {
                    on(pool, threads, &mut || {
                        lines.clip(black_box(&rect), &options, &mut out)
                    })
                })
            },
        );
        for (name, grid) in &grids {
            let o = TileOptions::default();
            g.bench_function(BenchmarkId::new(*name, format!("{threads}-thread")), |b| {
                b.iter(|| {
                    on(pool, threads, &mut || {
                        lines
                            .tiles(black_box(grid), &o, &mut out)
                            .expect("valid options")
                    })
                })
            });
        }
        let buffered = TileOptions {
            buffer: Some(0.01f32),
            ..TileOptions::default()
        };
        g.bench_function(
            BenchmarkId::new("tiles-8x8-buffer-0.01", format!("{threads}-thread")),
            |b| {
                b.iter(|| {
                    on(pool, threads, &mut || {
                        lines
                            .tiles(black_box(&grids[0].1), &buffered, &mut out)
                            .expect("valid options")
                    })
                })
            },
        );
    }
    g.finish();
}

/// 16M vertices (the 1M above repeated), far beyond the caches: the polyline clip against the
/// plain segment clip (`simd-slab`, `t_entry` and `t_exit` out) of the same vertices' segments,
/// read as columns, one thread each.
fn memory_ceiling(xy: &[f32], offsets: &[i64], rect: &Rect<f32>) {
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let copies = 16;
    let v = *offsets.last().unwrap();
    let big_xy: Vec<f32> = (0..copies).flat_map(|_| xy.iter().copied()).collect();
    let mut big_offsets = vec![0i64];
    for k in 0..copies as i64 {
        big_offsets.extend(offsets[1..].iter().map(|o| o + k * v));
    }
    let lines = Polylines::interleaved(&big_xy, &big_offsets).expect("valid offsets");
    let (x, y): (Vec<f32>, Vec<f32>) = big_xy.chunks(2).map(|p| (p[0], p[1])).unzip();
    let pairs = VertexPairs::new(Coords::Separated { x: &x, y: &y });
    let n = pairs.len();
    let (mut te, mut tx) = (vec![0f32; n], vec![0f32; n]);
    let options = PartOptions::default();
    let mut out = Parts::new();
    let mut g = c.benchmark_group("polylines/road-like-50-16M/float32");
    g.throughput(Throughput::Elements((big_xy.len() / 2) as u64));
    g.bench_function(BenchmarkId::new("clip-rect", "1-thread"), |b| {
        b.iter(|| on_calling_thread(|| lines.clip(black_box(rect), &options, &mut out)))
    });
    g.bench_function(
        BenchmarkId::new("segment-clip-simd-slab", "1-thread"),
        |b| {
            b.iter(|| {
                let mut o = ClipOutput {
                    t_entry: Some(&mut te),
                    t_exit: Some(&mut tx),
                    ..Default::default()
                };
                SimdSlab::clip(black_box(rect), &pairs, &mut o).expect("sized outputs")
            })
        },
    );
    g.finish();
}

criterion_group!(benches, polylines);
criterion_main!(benches);
