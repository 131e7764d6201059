//! N segments × M rects through the broad phase (`RectSet`, `Algorithm::clip_rect_set`): the
//! same hit list as the brute force `Algorithm::clip_grid`, bit for bit and in the same order,
//! for every algorithm, on random scenes (proptest), on named edge cases, and under 1/2/3 threads.

use crate::common;

use common::cases::{case, Rng, TestFloat};
use proptest::prelude::*;
use slabclip::{Algorithm, Hit, Real, Rect, RectSet, Segment, Segments};

/// A hit as comparable bits.
fn key<F: Real>(h: &Hit<F>) -> (usize, usize, u8, u64, u64) {
    (
        h.segment,
        h.rect,
        h.class as u8,
        h.t_entry.to_bits_u64(),
        h.t_exit.to_bits_u64(),
    )
}

/// Every algorithm through the rect set against its own brute force; returns the hit count.
fn check<F: Real>(rects: &[Rect<F>], rows: &[Segment<F>], what: &str) -> usize {
    let segs = Segments::from_rows(rows);
    let set = RectSet::new(rects.to_vec()).unwrap();
    let mut count = 0;
    for alg in Algorithm::ALL.into_iter().chain([Algorithm::Auto]) {
        let want: Vec<_> = alg
            .clip_grid(rects, &segs.as_ref())
            .iter()
            .map(key)
            .collect();
        for got in [
            alg.clip_rect_set(&set, &segs.as_ref()),
            alg.clip_rect_set(&set, rows), // a row source (no columns) too
        ] {
            let got: Vec<_> = got.iter().map(key).collect();
            if got != want {
                let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).take(3).collect();
                let extra: Vec<_> = got.iter().filter(|g| !want.contains(g)).take(3).collect();
                panic!(
                    "{what}, {alg}: {} hits, brute force {}; missing {missing:?}, extra \
                     {extra:?}; bins {:?}",
                    got.len(),
                    want.len(),
                    set.bins()
                );
            }
        }
        count = want.len();
    }
    // The bins' size is a tuning knob only: any scale gives the same list.
    let want: Vec<_> = Algorithm::SimdSlab
        .clip_grid(rects, &segs.as_ref())
        .iter()
        .map(key)
        .collect();
    for scale in [0.1, 1.0, 4.0] {
        let set = RectSet::with_bin_scale(rects.to_vec(), scale).unwrap();
        let got: Vec<_> = Algorithm::SimdSlab
            .clip_rect_set(&set, &segs.as_ref())
            .iter()
            .map(key)
            .collect();
        assert!(
            got == want,
            "{what}, bins {scale}x the mean rect ({:?}): {} hits, brute force {}",
            set.bins(),
            got.len(),
            want.len()
        );
    }
    count
}

fn rect<F: Real>(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect<F> {
    Rect::new(
        F::from_f64(x0),
        F::from_f64(y0),
        F::from_f64(x1),
        F::from_f64(y1),
    )
    .unwrap()
}

fn seg<F: Real>(x0: f64, y0: f64, x1: f64, y1: f64) -> Segment<F> {
    Segment::new(
        F::from_f64(x0),
        F::from_f64(y0),
        F::from_f64(x1),
        F::from_f64(y1),
    )
}

/// A random scene from one seed: rects of mixed sizes (some zero-width, some sharing edges on a
/// lattice, some huge), segments of every kind (short, much longer than the bins, along rect
/// edges, through corners, zero length, NaN/±∞), all at a random scale and offset; plus the
/// hard-place generator's rects and segments.
fn scene<F: TestFloat>(seed: u64) -> (Vec<Rect<F>>, Vec<Segment<F>>) {
    let g = &mut Rng(seed);
    let scale = 2f64.powi(g.int(-40, 40) as i32);
    let offset = if g.below(3) == 0 { g.wide() } else { 0.0 };
    let at = |v: f64| offset + v * scale;
    let m = g.below(120) as usize;
    let mut rects: Vec<Rect<F>> = Vec::new();
    for _ in 0..m {
        let (cx, cy) = (g.unit() * 10.0, g.unit() * 10.0);
        let r = match g.below(8) {
            // On a lattice of 0.5: neighbours share edges and corners exactly.
            0 | 1 => {
                let (i, j) = (g.int(0, 19) as f64 * 0.5, g.int(0, 19) as f64 * 0.5);
                [i, j, i + 0.5, j + 0.5]
            }
            // Zero width, zero height, or a point.
            2 => [cx, cy, cx, cy + g.unit()],
            3 => [cx, cy, cx + g.unit() * (g.below(2) as f64), cy],
            // Large.
            4 => [cx - 8.0, cy - 8.0, cx + g.unit() * 8.0, cy + 1.0],
            _ => {
                let (w, h) = (g.unit() * 0.7, g.unit() * 0.7);
                [cx, cy, cx + w, cy + h]
            }
        };
        let [a, b, c, d] = r.map(|v| F::from_f64(at(v)));
        // Rounding at the scale can swap nothing (the map is monotone), but stay safe.
        if let Ok(r) = Rect::new(a, b, c.max_any_of(a), d.max_any_of(b)) {
            rects.push(r);
        }
    }
    let n = g.below(200) as usize;
    let mut rows: Vec<Segment<F>> = Vec::new();
    for _ in 0..n {
        let p = |g: &mut Rng| (g.unit() * 12.0 - 1.0, g.unit() * 12.0 - 1.0);
        let (x0, y0) = p(g);
        // Scene units (mapped to the world below), or world coordinates (`world`).
        let (world, s) = match g.below(9) {
            // Short.
            0 | 1 => (false, [x0, y0, x0 + g.unit() * 0.3, y0 - g.unit() * 0.3]),
            // Much longer than the bins, any direction.
            2 => {
                let (x1, y1) = p(g);
                (false, [x0 - 50.0, y0, x1 + 40.0, y1])
            }
            // Along an edge of a rect, on its diagonal's line, or out of its corner.
            3 | 4 if !rects.is_empty() => {
                let r = rects[g.below(rects.len() as u64) as usize];
                let [a, b, c, d] = [r.xmin(), r.ymin(), r.xmax(), r.ymax()].map(|v| v.to_f64());
                let k = (c - a + d - b + scale) * g.unit() * 3.0;
                let s = match g.below(4) {
                    0 => [a - k, b, c + k, b],
                    1 => [c, b - k, c, d],
                    2 => [a - k, b - k, c + k, d + k],
                    _ => [c, d, c + k, d - k],
                };
                (true, s)
            }
            // Along a lattice line, across the scene.
            5 => {
                let (i, j) = (g.int(0, 20) as f64 * 0.5, g.int(0, 20) as f64 * 0.5);
                if g.below(2) == 0 {
                    (false, [i, -1.0, i, 11.0])
                } else {
                    (false, [-1.0, j, 12.0, j])
                }
            }
            // Zero length.
            6 => (false, [x0, y0, x0, y0]),
            _ => {
                let (x1, y1) = p(g);
                (false, [x0, y0, x1, y1])
            }
        };
        let s = if world { s } else { s.map(at) };
        let mut s = Segment::new(
            F::from_f64(s[0]),
            F::from_f64(s[1]),
            F::from_f64(s[2]),
            F::from_f64(s[3]),
        );
        if g.below(40) == 0 {
            let bad = [F::NAN, F::INFINITY, -F::INFINITY][g.below(3) as usize];
            s.x1 = bad;
        }
        rows.push(s);
    }
    // The hard-place generator: its rects join the set, its segments the batch.
    for _ in 0..g.below(30) {
        let (r, s) = case::<F>(g.next());
        rects.push(r);
        rows.push(s);
    }
    (rects, rows)
}

/// `max` that keeps a valid rect when rounding at the scale made `c < a` (it cannot, as the map
/// is monotone, but `Rect::new` is the judge).
trait MaxOf {
    fn max_any_of(self, o: Self) -> Self;
}
impl<F: Real> MaxOf for F {
    fn max_any_of(self, o: F) -> F {
        if self < o {
            o
        } else {
            self
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn rect_set_matches_brute_force_f32(seed in any::<u64>()) {
        let (rects, rows) = scene::<f32>(seed);
        check(&rects, &rows, &format!("seed {seed}"));
    }

    #[test]
    fn rect_set_matches_brute_force_f64(seed in any::<u64>()) {
        let (rects, rows) = scene::<f64>(seed);
        check(&rects, &rows, &format!("seed {seed}"));
    }
}

/// `n × n` unit tiles from the origin: neighbours share edges and corners exactly.
fn tiles<F: Real>(n: usize, size: f64) -> Vec<Rect<F>> {
    let mut v = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (x, y) = (i as f64 * size, j as f64 * size);
            v.push(rect(x, y, x + size, y + size));
        }
    }
    v
}

/// A named scene: rects, segments, and the fewest hits it must have.
type Scene<F> = (&'static str, Vec<Rect<F>>, Vec<Segment<F>>, usize);

/// Named scenes at one precision: each checked against the brute force, with the hit count it
/// must at least reach (so a scene that stopped hitting anything would fail).
fn edge_cases<F: TestFloat>() {
    let big = F::MAX.to_f64();
    let tiny = F::TINY.to_f64();
    let lattice = tiles::<F>(4, 1.0);
    let lines: Vec<Segment<F>> = (0..=4)
        .flat_map(|k| {
            let k = k as f64;
            [
                seg(k, -1.0, k, 5.0),              // along a vertical grid line
                seg(-1.0, k, 5.0, k),              // along a horizontal one
                seg(k, 0.0, k, 4.0),               // exactly its length
                seg(k, k, 4.0 - k, k),             // through vertices
                seg(-1.0, -1.0 + k, 5.0, 5.0 + k), // diagonals through vertices
            ]
        })
        .collect();
    let point_rects: Vec<Rect<F>> = vec![
        rect(0.5, 0.5, 0.5, 0.5),
        rect(1.0, 0.0, 1.0, 2.0),
        rect(0.0, 1.0, 2.0, 1.0),
        rect(3.0, 3.0, 3.0, 3.0),
    ];
    let through_points: Vec<Segment<F>> = vec![
        seg(0.0, 0.0, 1.0, 1.0),
        seg(0.5, 0.0, 0.5, 2.0),
        seg(-1.0, 1.0, 3.0, 1.0),
        seg(3.0, 3.0, 3.0, 3.0),
        seg(3.0, 3.0, 4.0, 4.0),
        seg(2.0, 4.0, 4.0, 2.0),
    ];
    let bad: Vec<Segment<F>> = vec![
        seg(f64::NAN, 0.5, 0.5, 0.5),
        seg(0.5, 0.5, f64::INFINITY, 0.5),
        seg(-f64::INFINITY, 0.5, f64::INFINITY, 0.5),
        seg(0.5, f64::NEG_INFINITY, 0.5, 0.5),
        seg(0.5, 0.5, 0.6, 0.6),
    ];
    // Many small rects, segments far longer than the bins.
    let small: Vec<Rect<F>> = (0..900)
        .map(|k| {
            let (x, y) = ((k % 30) as f64, (k / 30) as f64);
            rect(x, y, x + 0.25, y + 0.25)
        })
        .collect();
    let long: Vec<Segment<F>> = vec![
        seg(-10.0, -10.0, 40.0, 40.0),
        seg(-10.0, 40.0, 40.0, -10.0),
        seg(0.1, -5.0, 0.2, 35.0),
        seg(-5.0, 0.1, 35.0, 0.2),
        seg(29.25, 29.25, 0.0, 0.0),
        seg(-1e6, 0.125, 1e6, 0.125),
    ];
    let mut with_huge = small.clone();
    with_huge.push(rect(-100.0, -100.0, 100.0, 100.0));
    let scenes: Vec<Scene<F>> = vec![
        ("empty set", vec![], lines.clone(), 0),
        ("empty batch", lattice.clone(), vec![], 0),
        ("both empty", vec![], vec![], 0),
        (
            "grid lines and vertices",
            lattice.clone(),
            lines.clone(),
            60,
        ),
        (
            "zero-width rects and points",
            point_rects,
            through_points,
            8,
        ),
        ("NaN and infinite segments", lattice.clone(), bad, 1),
        (
            "segments far longer than the bins",
            small.clone(),
            long.clone(),
            100,
        ),
        ("one huge rect among small ones", with_huge, long, 100),
        (
            "huge coordinates, overflowing differences",
            vec![
                rect(-big, -big, -big / 2.0, big),
                rect(0.0, 0.0, big, big),
                rect(big / 2.0, -1.0, big, 1.0),
            ],
            vec![
                seg(-big, -big, big, big),
                seg(-big, 0.0, big, 0.0),
                seg(big, -big, -big, big),
                seg(-big, big, big, -big),
                seg(0.0, 0.0, 0.0, 0.0),
            ],
            5,
        ),
        (
            "tiny coordinates",
            vec![
                rect(0.0, 0.0, tiny, tiny),
                rect(tiny, 0.0, 2.0 * tiny, tiny),
                rect(-tiny, -tiny, 0.0, 0.0),
                rect(0.0, 0.0, 1e-30, 1e-30),
            ],
            vec![
                seg(-tiny, -tiny, 2.0 * tiny, 2.0 * tiny),
                seg(0.0, tiny, 2.0 * tiny, tiny),
                seg(-1.0, -1.0, 1.0, 1.0),
                seg(tiny, -1.0, tiny, 1.0),
            ],
            4,
        ),
        (
            "a lattice far from the origin",
            tiles::<F>(4, 1.0)
                .iter()
                .map(|r| {
                    let o = 1024.0;
                    rect(
                        r.xmin().to_f64() + o,
                        r.ymin().to_f64() + o,
                        r.xmax().to_f64() + o,
                        r.ymax().to_f64() + o,
                    )
                })
                .collect(),
            lines
                .iter()
                .map(|s| {
                    let o = 1024.0;
                    seg(
                        s.x0.to_f64() + o,
                        s.y0.to_f64() + o,
                        s.x1.to_f64() + o,
                        s.y1.to_f64() + o,
                    )
                })
                .collect(),
            60,
        ),
    ];
    for (name, rects, rows, min_hits) in scenes {
        let hits = check(&rects, &rows, name);
        assert!(
            hits >= min_hits,
            "{name}: {hits} hits, expected {min_hits} or more"
        );
    }
}

#[test]
fn edge_cases_f32() {
    edge_cases::<f32>();
}

#[test]
fn edge_cases_f64() {
    edge_cases::<f64>();
}

/// Many segments and rects (every block length, several blocks): the brute force, and `auto`
/// under 1, 2 and 3 threads gives the one-thread list. 1,000 rects by default, 3,000 in the
/// heavy run.
fn at_scale<F: TestFloat>() {
    let g = &mut Rng(0x5CA1E);
    let rects: Vec<Rect<F>> = (0..if common::heavy() { 3000 } else { 1000 })
        .map(|_| {
            let (x, y) = (g.unit() * 100.0, g.unit() * 100.0);
            rect(x, y, x + g.unit() * 2.0, y + g.unit() * 2.0)
        })
        .collect();
    let rows: Vec<Segment<F>> = (0..4096 * 3 + 17)
        .map(|_| {
            let (x, y) = (g.unit() * 100.0, g.unit() * 100.0);
            let len = if g.below(20) == 0 { 60.0 } else { 3.0 };
            seg(x, y, x + (g.unit() - 0.5) * len, y + (g.unit() - 0.5) * len)
        })
        .collect();
    let hits = check(&rects, &rows, "at scale");
    // As many hits as segments at 3,000 rects, in proportion at fewer.
    assert!(hits * 3000 > rows.len() * rects.len(), "{hits} hits");
    let set = RectSet::new(rects).unwrap();
    let segs = Segments::from_rows(&rows);
    let serial: Vec<_> = Algorithm::SimdSlab
        .clip_rect_set(&set, &segs.as_ref())
        .iter()
        .map(key)
        .collect();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got: Vec<_> = pool.install(|| {
            Algorithm::Auto
                .clip_rect_set(&set, &segs.as_ref())
                .iter()
                .map(key)
                .collect()
        });
        assert!(got == serial, "{threads} threads");
    }
}

#[test]
fn at_scale_f32() {
    at_scale::<f32>();
}

#[test]
fn at_scale_f64() {
    at_scale::<f64>();
}
