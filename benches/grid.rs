//! Grid pieces per second: `tracks` (particle tracks of about four cells per
//! step) through a 1000 × 1000 grid over the unit square, on one and on two threads.
//!
//! ```text
//! cargo bench --bench grid
//! ```
//!
//! The segments are generated once per group, outside the timed loop; the piece count is
//! checked to be the same on both thread counts before timing, and throughput is in pieces
//! (criterion's "elements"). `pieces` returns a fresh list each iteration, as a caller gets it;
//! `piece_columns` fresh columns, as the command line and the Python package get them;
//! `pieces_into-reused-vec` writes the same pieces into one list cleared between iterations;
//! `pieces_into_blocks-reused` into the same blocks every iteration, on one and two threads.
//! Target: ≥ 200 M pieces/s on one thread, two threads ≥ 1.8× one.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slabclip::workload::Dist;
use slabclip::{Grid, GridOptions, Real, Rect};

const SEED: u64 = 0x5EED_C11B;
const N: usize = 1 << 18;

fn grid_group<F: Real>(c: &mut Criterion) {
    let w = Dist::Tracks.generate::<F>(N, SEED);
    let grid = Grid::new(
        Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).unwrap(),
        1000,
        1000,
    )
    .expect("a valid grid");
    let options = GridOptions::default();
    let pools: Vec<_> = [1, 2]
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .into();
    let counts: Vec<usize> = pools
        .iter()
        .map(|p| p.install(|| grid.pieces(&w.segments, &options).len()))
        .collect();
    assert_eq!(counts[0], counts[1]);
    let mut g = c.benchmark_group(format!("grid/tracks-1000x1000/{}", F::DTYPE));
    g.throughput(Throughput::Elements(counts[0] as u64));
    g.measurement_time(Duration::from_secs(4));
    for (pool, threads) in pools.iter().zip([1, 2]) {
        // What a simulation step takes: the blocks of the last step, refilled.
        let mut blocks = slabclip::PieceBlocks::new();
        g.bench_function(
            BenchmarkId::new("pieces_into_blocks-reused", format!("{threads}-thread")),
            |b| {
                b.iter(|| {
                    pool.install(|| {
                        grid.pieces_into_blocks(black_box(&w.segments), &options, &mut blocks)
                    });
                    black_box(blocks.blocks().len())
                })
            },
        );
        g.bench_function(
            BenchmarkId::new("pieces", format!("{threads}-thread")),
            |b| {
                b.iter(|| pool.install(|| black_box(grid.pieces(black_box(&w.segments), &options))))
            },
        );
        // What the command line and the Python package take: fresh columns per call.
        g.bench_function(
            BenchmarkId::new("piece_columns", format!("{threads}-thread")),
            |b| {
                b.iter(|| {
                    pool.install(|| black_box(grid.piece_columns(black_box(&w.segments), &options)))
                })
            },
        );
    }
    // The same work into one Vec kept across iterations: the walk and the writes without the
    // allocation and the page faults of a fresh 40 MB list per iteration.
    let mut out = Vec::with_capacity(counts[0]);
    g.bench_function(
        BenchmarkId::new("pieces_into-reused-vec", "1-thread"),
        |b| {
            b.iter(|| {
                out.clear();
                grid.pieces_into(black_box(&w.segments), 0..N, &options, &mut out);
                black_box(out.len())
            })
        },
    );
    g.finish();
}

fn groups(c: &mut Criterion) {
    grid_group::<f32>(c);
    grid_group::<f64>(c);
}

criterion_group!(benches, groups);
criterion_main!(benches);
