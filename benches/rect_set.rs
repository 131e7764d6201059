//! N segments × M arbitrary rects (`RectSet`, `Algorithm::clip_rect_set`) against the brute
//! force `Algorithm::clip_grid` and an R-tree broad phase (`rstar`) in the same run, and how the
//! cost grows with the hits.
//!
//! ```text
//! cargo bench --bench rect_set                          everything (a few minutes)
//! cargo bench --bench rect_set -- 'rects-100K'          the 1M × 100K comparison
//! cargo bench --bench rect_set -- 'growth'              M = 1K … 1M (setup of the other group too)
//! ```
//!
//! Segments: `Dist::RoadLike` (f32, seeded), 1M of them. Rects: centres uniform over the
//! workload's area widened by 0.2, width and height uniform in [0.5, 1.5] × 0.027, about ten
//! hits per road segment at M = 100K. Throughput is in segments (criterion's "elements"), so
//! rates compare directly: `clip_grid` is timed on a subsample of the segments (its cost is
//! N × M, so its rate in segments per second is the whole run's), the others on all of them.
//! Single-thread entries run inside a one-thread rayon pool. Hit counts are checked against each
//! other (and printed) before timing.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};
use slabclip::workload::{Dist, SplitMix64};
use slabclip::{Algorithm, Class, ClipOutput, Hit, Rect, RectSet, SegmentSource, Segments};

const SEED: u64 = 0x5EED_4EC7;
const N: usize = 1 << 20;
/// The mean side of a rect.
const SIDE: f64 = 0.027;

/// `m` random rects over the road-like workload's area.
fn rects(m: usize, seed: u64) -> Vec<Rect<f32>> {
    let mut rng = SplitMix64::new(seed);
    (0..m)
        .map(|_| {
            let (x, y) = (rng.range(-1.2, 2.2), rng.range(-1.2, 2.2));
            let (w, h) = (SIDE * rng.range(0.5, 1.5), SIDE * rng.range(0.5, 1.5));
            Rect::new(x as f32, y as f32, (x + w) as f32, (y + h) as f32).unwrap()
        })
        .collect()
}

type Tree = RTree<GeomWithData<Rectangle<[f64; 2]>, u32>>;

fn rtree(rects: &[Rect<f32>]) -> Tree {
    RTree::bulk_load(
        rects
            .iter()
            .enumerate()
            .map(|(k, r)| {
                GeomWithData::new(
                    Rectangle::from_corners(
                        [r.xmin() as f64, r.ymin() as f64],
                        [r.xmax() as f64, r.ymax() as f64],
                    ),
                    k as u32,
                )
            })
            .collect(),
    )
}

/// The R-tree broad phase: each segment's bounding box (widened by a margin as the bins are)
/// queried in the tree, the candidates sorted, then the same pairwise clip as `clip_rect_set`.
fn rstar_hits(tree: &Tree, rects: &[Rect<f32>], segs: &Segments<f32>) -> Vec<Hit<f32>> {
    let mut hits = Vec::new();
    let mut cand: Vec<u32> = Vec::new();
    for start in (0..segs.len()).step_by(4096) {
        let end = (start + 4096).min(segs.len());
        let (mut ps, mut pr, mut pairs) = (Segments::new(), Vec::new(), Vec::new());
        for i in start..end {
            let s = segs.segment(i);
            if !s.is_finite() {
                continue;
            }
            let m = 1e-5;
            let lo = [(s.x0.min(s.x1)) as f64 - m, (s.y0.min(s.y1)) as f64 - m];
            let hi = [(s.x0.max(s.x1)) as f64 + m, (s.y0.max(s.y1)) as f64 + m];
            cand.clear();
            cand.extend(
                tree.locate_in_envelope_intersecting(AABB::from_corners(lo, hi))
                    .map(|g| g.data),
            );
            cand.sort_unstable();
            for &k in &cand {
                ps.push(s);
                pr.push(rects[k as usize]);
                pairs.push((i, k as usize));
            }
        }
        let len = pairs.len();
        let (mut te, mut tx, mut cl) = (vec![f32::NAN; len], vec![f32::NAN; len], vec![0; len]);
        let mut out = ClipOutput {
            t_entry: Some(&mut te),
            t_exit: Some(&mut tx),
            class: Some(&mut cl),
            segments: None,
        };
        Algorithm::SimdSlab
            .clip_pairwise(&pr, &ps, &mut out)
            .unwrap();
        for (p, &(segment, rect)) in pairs.iter().enumerate() {
            let class = Class::from_code(cl[p]).unwrap();
            if class.is_hit() {
                hits.push(Hit {
                    segment,
                    rect,
                    t_entry: te[p],
                    t_exit: tx[p],
                    class,
                });
            }
        }
    }
    hits
}

fn one_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(f)
}

/// 1M road-like segments × 100K rects: the bins, the R-tree and the brute force.
fn compare_groups(c: &mut Criterion) {
    let segs = Dist::RoadLike.generate::<f32>(N, SEED).segments;
    let rects = rects(100_000, SEED);
    let set = RectSet::new(rects.clone()).unwrap();
    let tree = rtree(&rects);
    let want = Algorithm::SimdSlab.clip_rect_set(&set, &segs);
    eprintln!(
        "rects-100K: {} hits, {:.2} per segment, bins {:?}",
        want.len(),
        want.len() as f64 / N as f64,
        set.bins()
    );
    assert!(
        rstar_hits(&tree, &rects, &segs) == want,
        "rstar's hits differ"
    );
    let sub = N / 512;
    let subsample = Segments::from_rows(&(0..sub).map(|i| segs.segment(i)).collect::<Vec<_>>());
    let sub_want: Vec<_> = want.iter().filter(|h| h.segment < sub).copied().collect();
    assert!(Algorithm::Hybrid.clip_grid(&rects, &subsample) == sub_want);

    let mut group = c.benchmark_group("rects-100K/road-like-1M");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(N as u64));
    for scale in [0.25, 0.5, 1.0, 2.0] {
        let set = RectSet::with_bin_scale(rects.clone(), scale).unwrap();
        group.bench_function(BenchmarkId::new("bins-1-thread/scale", scale), |b| {
            b.iter(|| one_thread(|| black_box(Algorithm::SimdSlab.clip_rect_set(&set, &segs))))
        });
    }
    group.bench_function("bins-auto-all-threads", |b| {
        b.iter(|| black_box(Algorithm::Auto.clip_rect_set(&set, &segs)))
    });
    group.bench_function("rstar-1-thread", |b| {
        b.iter(|| one_thread(|| black_box(rstar_hits(&tree, &rects, &segs))))
    });
    group.bench_function("build-bins", |b| {
        b.iter(|| black_box(RectSet::new(black_box(rects.clone())).unwrap()))
    });
    group.bench_function("build-rstar", |b| b.iter(|| black_box(rtree(&rects))));
    group.throughput(Throughput::Elements(sub as u64));
    group.bench_function(format!("clip_grid-hybrid-1-thread/subsample-{sub}"), |b| {
        b.iter(|| one_thread(|| black_box(Algorithm::Hybrid.clip_grid(&rects, &subsample))))
    });
    group.finish();
}

/// M = 1K … 1M rects of the same size against 64K road-like segments (fewer than above: at
/// M = 1M there are about 100 hits per segment, and the hit list is kept in memory): the time
/// follows the hits (printed), not M.
fn growth_groups(c: &mut Criterion) {
    let n = 1 << 16;
    let segs = Dist::RoadLike.generate::<f32>(n, SEED).segments;
    let mut group = c.benchmark_group("growth/road-like-64K");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(n as u64));
    for m in [1_000, 10_000, 100_000, 1_000_000] {
        let set = RectSet::new(rects(m, SEED ^ m as u64)).unwrap();
        let hits = Algorithm::SimdSlab.clip_rect_set(&set, &segs).len();
        eprintln!(
            "growth: M = {m}: {hits} hits, {:.3} per segment, bins {:?}",
            hits as f64 / n as f64,
            set.bins()
        );
        group.bench_function(BenchmarkId::new("bins-1-thread/M", m), |b| {
            b.iter(|| one_thread(|| black_box(Algorithm::SimdSlab.clip_rect_set(&set, &segs))))
        });
    }
    group.finish();
}

criterion_group!(benches, compare_groups, growth_groups);
criterion_main!(benches);
