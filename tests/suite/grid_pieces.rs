//! Grid traversal (`slabclip::grid`) against brute force: every segment clipped by every cell
//! separately with the grid's one-cell clip (`Grid::cell_clip`: the library's SPEC §1 clip, with
//! the slivers kept), compared bit for bit, on random and on adversarial scenes (through
//! vertices, along lines, endpoints on lines and within ulps of vertices, leaving and entering
//! the grid, passing beside it, zero length, NaN and ±∞, ±0.0, coordinate differences that
//! overflow), for both precisions and every option; the batch under 1, 2 and 3 threads; and the
//! watertight property stated directly, every piece held to SPEC §1 against exact arithmetic.

use core::ops::RangeInclusive;

use proptest::prelude::*;
use slabclip::grid::{Grid, GridOptions, Lines, Piece};
use slabclip::reference::exact;
use slabclip::workload::SplitMix64;
use slabclip::{Class, ClipKernel, Real, Rect, Segment, SlabScalar};

const OPTIONS: [GridOptions; 4] = [
    GridOptions {
        lines: Lines::Closed,
        touches: true,
    },
    GridOptions {
        lines: Lines::Closed,
        touches: false,
    },
    GridOptions {
        lines: Lines::HalfOpen,
        touches: true,
    },
    GridOptions {
        lines: Lines::HalfOpen,
        touches: false,
    },
];

/// The pieces by brute force: the clip of each segment by each cell, kept by the documented
/// rules, in the documented order (t_entry, t_exit, then cell index).
fn brute<F: Real>(grid: &Grid<F>, segs: &[Segment<F>], o: &GridOptions) -> Vec<Piece<F>> {
    brute_over(grid, segs, o, |_| (0..=grid.nx() - 1, 0..=grid.ny() - 1))
}

/// [`brute`] over the cells `near(segment)` gives (columns, rows) only: for grids too large to
/// clip every cell, with ranges that hold every cell a segment can meet.
fn brute_over<F: Real>(
    grid: &Grid<F>,
    segs: &[Segment<F>],
    o: &GridOptions,
    near: impl Fn(&Segment<F>) -> (RangeInclusive<usize>, RangeInclusive<usize>),
) -> Vec<Piece<F>> {
    let (xs, ys, nx, ny) = (grid.xs(), grid.ys(), grid.nx(), grid.ny());
    let mut out = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        let mut mine = Vec::new();
        let (columns, rows) = near(s);
        for iy in rows {
            for ix in columns.clone() {
                let c = grid.cell_clip(ix, iy, s);
                if !c.is_hit() || (!o.touches && c.class == Class::Touches) {
                    continue;
                }
                if o.lines == Lines::HalfOpen {
                    let right = s.x0 == s.x1 && s.x0 == xs[ix + 1] && ix + 1 < nx;
                    let top = s.y0 == s.y1 && s.y0 == ys[iy + 1] && iy + 1 < ny;
                    if right || top {
                        continue;
                    }
                }
                mine.push(Piece {
                    segment: i,
                    ix: ix as u32,
                    iy: iy as u32,
                    t_entry: c.t_entry,
                    t_exit: c.t_exit,
                    class: c.class,
                });
            }
        }
        mine.sort_by(|a, b| {
            (a.t_entry, a.t_exit, a.iy, a.ix)
                .partial_cmp(&(b.t_entry, b.t_exit, b.iy, b.ix))
                .unwrap()
        });
        out.extend(mine);
    }
    out
}

/// The cells within two of `[a, b]` on an axis of `n` cells of width `1/per_unit` from 0.
fn near_cells<F: Real>(a: F, b: F, per_unit: f64, n: usize) -> RangeInclusive<usize> {
    let (lo, hi) = (a.to_f64().min(b.to_f64()), a.to_f64().max(b.to_f64()));
    let i = |v: f64| ((v * per_unit).floor() as i64).clamp(0, n as i64 - 1);
    ((i(lo) - 2).max(0) as usize)..=((i(hi) + 2).min(n as i64 - 1) as usize)
}

type Key = (usize, u32, u32, u64, u64, u8);

fn keys<F: Real>(p: &[Piece<F>]) -> Vec<Key> {
    p.iter()
        .map(|p| {
            (
                p.segment,
                p.ix,
                p.iy,
                p.t_entry.to_bits_u64(),
                p.t_exit.to_bits_u64(),
                p.class as u8,
            )
        })
        .collect()
}

/// Asserts the traversal equals brute force for every option, naming the first difference,
/// and every piece's ends (`Grid::piece_segment`) are its cell clip's (`Clip::segment`), bit
/// for bit.
fn check<F: Real>(grid: &Grid<F>, segs: &[Segment<F>], what: &str) {
    for o in &OPTIONS {
        let pieces = grid.pieces(segs, o);
        for p in &pieces {
            let s = &segs[p.segment];
            let cell = grid.cell(p.ix as usize, p.iy as usize);
            let want = grid
                .cell_clip(p.ix as usize, p.iy as usize, s)
                .segment(&cell, s);
            let got = grid.piece_segment(p, s);
            let bits = |s: &Segment<F>| [s.x0, s.y0, s.x1, s.y1].map(|v| v.to_bits_u64());
            assert_eq!(
                bits(&got),
                bits(&want),
                "{what} ({}, {o:?}): ends of {p:?} of {s:?}: {got:?}, the cell clip's {want:?}",
                F::DTYPE
            );
        }
        let (got, want) = (keys(&pieces), keys(&brute(grid, segs, o)));
        if got != want {
            let first = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            let seg = got.get(first).or(want.get(first)).map(|k| segs[k.0]);
            panic!(
                "{what} ({}, {o:?}): {} pieces, brute force {}; first difference at {first}: \
                 {:?} vs {:?}, segment {seg:?}",
                F::DTYPE,
                got.len(),
                want.len(),
                got.get(first),
                want.get(first)
            );
        }
    }
}

fn grid<F: Real>(b: [f64; 4], nx: usize, ny: usize) -> Grid<F> {
    let r = Rect::new(
        F::from_f64(b[0]),
        F::from_f64(b[1]),
        F::from_f64(b[2]),
        F::from_f64(b[3]),
    )
    .unwrap();
    Grid::new(r, nx, ny).unwrap()
}

fn seg<F: Real>(v: [f64; 4]) -> Segment<F> {
    Segment::new(
        F::from_f64(v[0]),
        F::from_f64(v[1]),
        F::from_f64(v[2]),
        F::from_f64(v[3]),
    )
}

/// Grids of several shapes: the unit square, off-centre and negative bounds, a zero line inside,
/// uneven float spacing, one row, one column.
fn grids<F: Real>() -> Vec<Grid<F>> {
    vec![
        grid([0.0, 0.0, 1.0, 1.0], 7, 5),
        grid([-3.7, -0.3, 1e-3, 2.9], 9, 8),
        grid([-1.0, -1.0, 1.0, 1.0], 4, 6),
        grid([1000.0, -0.001, 1000.7, 0.0], 7, 3),
        grid([0.0, 0.0, 1.0, 1.0], 1, 6),
        grid([0.0, 0.0, 3.0, 1.0], 10, 1),
    ]
}

/// Adversarial segments for `g`: every kind the module docs name.
fn adversarial<F: Real>(g: &Grid<F>, rng: &mut SplitMix64) -> Vec<Segment<F>> {
    let xs: Vec<f64> = g.xs().iter().map(|v| v.to_f64()).collect();
    let ys: Vec<f64> = g.ys().iter().map(|v| v.to_f64()).collect();
    let pick = |rng: &mut SplitMix64, v: &[f64]| v[rng.below(v.len() as u64) as usize];
    let (w, h) = (xs[xs.len() - 1] - xs[0], ys[ys.len() - 1] - ys[0]);
    let around = |rng: &mut SplitMix64| {
        [
            xs[0] + w * rng.range(-0.3, 1.3),
            ys[0] + h * rng.range(-0.3, 1.3),
        ]
    };
    let vertex = |rng: &mut SplitMix64| [pick(rng, &xs), pick(rng, &ys)];
    let mut out = Vec::new();
    for _ in 0..60 {
        let (a, b, c) = (vertex(rng), vertex(rng), around(rng));
        // Vertex to vertex (diagonals through more vertices), and beyond, both ways.
        out.push(seg([a[0], a[1], b[0], b[1]]));
        out.push(seg([
            2.0 * a[0] - b[0],
            2.0 * a[1] - b[1],
            2.0 * b[0] - a[0],
            2.0 * b[1] - a[1],
        ]));
        // Along grid lines (and beyond the grid), on the grid's own edges too.
        out.push(seg([a[0], c[1], a[0], b[1]]));
        out.push(seg([c[0], a[1], b[0], a[1]]));
        out.push(seg([a[0], ys[0] - h, a[0], ys[ys.len() - 1] + h]));
        // Endpoints on lines, the other end anywhere (pointing either way).
        out.push(seg([a[0], c[1], c[0], b[1]]));
        out.push(seg([c[0], c[1], c[0], a[1]]));
        out.push(seg([c[0], a[1], b[0], c[1]]));
        // Zero length: on a vertex, on a line, anywhere.
        out.push(seg([a[0], a[1], a[0], a[1]]));
        out.push(seg([a[0], c[1], a[0], c[1]]));
        out.push(seg([c[0], c[1], c[0], c[1]]));
        // Anywhere, entering and leaving the grid.
        let d = around(rng);
        out.push(seg([c[0], c[1], d[0], d[1]]));
        // A 45° diagonal through a vertex (exact in the grid's own float steps).
        let k = rng.range(0.1, 2.0) * w.min(h);
        out.push(seg([a[0] - k, a[1] - k, a[0] + k, a[1] + k]));
        out.push(seg([a[0] + k, a[1] - k, a[0] - k, a[1] + k]));
        // Just off a line by one ulp of F, and leaving a vertex.
        let off = F::from_f64(a[0]).next_up().to_f64();
        out.push(seg([off, c[1], off, d[1]]));
        out.push(seg([a[0], a[1], d[0], d[1]]));
        // Very long, through the grid or from inside it: the parameters of neighbouring lines
        // round onto each other (ties along one axis).
        let reach = |s: f64| [c[0] + (d[0] - c[0]) * s, c[1] + (d[1] - c[1]) * s];
        for s in [1e4, 1e7, 1e12] {
            let (p, q) = (reach(-s), reach(s));
            out.push(seg([p[0], p[1], q[0], q[1]]));
            out.push(seg([c[0], c[1], q[0], q[1]]));
            out.push(seg([p[0], p[1], a[0], a[1]]));
        }
    }
    // Signed zeros on the zero lines, NaN and ±∞.
    let z = [0.0, -0.0];
    for &u in &z {
        for &v in &z {
            out.push(seg([u, v, u, v]));
            out.push(seg([u, -0.5, v, 0.5]));
            out.push(seg([-0.5, u, 0.5, v]));
            out.push(seg([u, v, 0.3, 0.2]));
        }
    }
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        out.push(seg([bad, 0.5, 0.5, 0.5]));
        out.push(seg([0.2, 0.1, 0.5, bad]));
    }
    out
}

fn adversarial_scenes<F: Real>() {
    let mut rng = SplitMix64::new(13);
    for (k, g) in grids::<F>().iter().enumerate() {
        let segs = adversarial(g, &mut rng);
        check(g, &segs, &format!("adversarial scene, grid {k}"));
    }
}

#[test]
fn adversarial_scenes_match_brute_force_f32() {
    adversarial_scenes::<f32>();
}

#[test]
fn adversarial_scenes_match_brute_force_f64() {
    adversarial_scenes::<f64>();
}

/// Random segments of every length around the grid, and huge and tiny ones.
fn random_scenes<F: Real>() {
    let mut rng = SplitMix64::new(7);
    for (k, g) in grids::<F>().iter().enumerate() {
        let r = g.rect();
        let (x0, y0) = (r.xmin().to_f64(), r.ymin().to_f64());
        let (w, h) = (r.xmax().to_f64() - x0, r.ymax().to_f64() - y0);
        let segs: Vec<Segment<F>> = (0..400)
            .map(|i| {
                let spread = [0.01, 0.2, 1.5][i % 3];
                let (cx, cy) = (rng.range(-0.2, 1.2), rng.range(-0.2, 1.2));
                seg([
                    x0 + w * cx,
                    y0 + h * cy,
                    x0 + w * (cx + spread * rng.range(-1.0, 1.0)),
                    y0 + h * (cy + spread * rng.range(-1.0, 1.0)),
                ])
            })
            .chain([
                seg([-1e30, -1e30, 1e30, 1e30]),
                seg([-1e30, 0.5, 1e30, 0.5]),
                seg([
                    x0 + 0.5 * w,
                    y0 + 0.5 * h,
                    x0 + 0.5 * w + 1e-30,
                    y0 + 0.5 * h,
                ]),
            ])
            .collect();
        check(g, &segs, &format!("random scene, grid {k}"));
    }
}

#[test]
fn random_scenes_match_brute_force_f32() {
    random_scenes::<f32>();
}

#[test]
fn random_scenes_match_brute_force_f64() {
    random_scenes::<f64>();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any segment against any small grid, with endpoints drawn on grid lines half of the time.
    #[test]
    fn any_segment_any_grid(
        b in prop::array::uniform4(-4.0f64..4.0),
        nx in 1usize..9, ny in 1usize..9,
        u in prop::array::uniform4(-0.5f64..1.5),
        snap in prop::array::uniform4(any::<bool>()),
    ) {
        let (xmin, xmax) = (b[0].min(b[1]), b[0].max(b[1]) + 0.01);
        let (ymin, ymax) = (b[2].min(b[3]), b[2].max(b[3]) + 0.01);
        for f64_grid in [false, true] {
            let mut p = [0.0; 4];
            for k in 0..4 {
                let (lo, hi, n) = if k % 2 == 0 { (xmin, xmax, nx) } else { (ymin, ymax, ny) };
                let v = lo + (hi - lo) * u[k];
                p[k] = if snap[k] { lo + (hi - lo) * ((u[k] * n as f64).round() / n as f64) } else { v };
            }
            if f64_grid {
                let g = grid::<f64>([xmin, ymin, xmax, ymax], nx, ny);
                // Snap onto the grid's own boundary floats.
                let q = snap_to(&g, p, snap);
                check(&g, &[seg(q)], "proptest f64");
            } else {
                let g = grid::<f32>([xmin, ymin, xmax, ymax], nx, ny);
                let q = snap_to(&g, p, snap);
                check(&g, &[seg(q)], "proptest f32");
            }
        }
    }
}

/// `p` with each snapped coordinate replaced by the nearest boundary of `g`.
fn snap_to<F: Real>(g: &Grid<F>, mut p: [f64; 4], snap: [bool; 4]) -> [f64; 4] {
    for k in 0..4 {
        if snap[k] {
            let lines = if k % 2 == 0 { g.xs() } else { g.ys() };
            p[k] = lines
                .iter()
                .map(|v| v.to_f64())
                .min_by(|a, b| (a - p[k]).abs().total_cmp(&(b - p[k]).abs()))
                .unwrap();
        }
    }
    p
}

/// Endpoints within a few ulps of grid lines and vertices, on both sides, pointing every way:
/// where the walk's parameters round across `0` and `1` (a cell holding `P1` whose two intervals
/// miss each other by one float, an exit rounded below a line the endpoint is on, a touch or a
/// tiny piece at a vertex passed at a distance of an ulp).
fn near_ulp_scenes<F: Real>() {
    let mut rng = SplitMix64::new(29);
    let nudge = nudge::<F>;
    for (g_index, g) in grids::<F>().iter().enumerate() {
        let xs: Vec<f64> = g.xs().iter().map(|v| v.to_f64()).collect();
        let ys: Vec<f64> = g.ys().iter().map(|v| v.to_f64()).collect();
        let r = g.rect();
        let (x0, y0) = (r.xmin().to_f64(), r.ymin().to_f64());
        let (w, h) = (r.xmax().to_f64() - x0, r.ymax().to_f64() - y0);
        let mut segs = Vec::new();
        for _ in 0..300 {
            let v = [
                xs[rng.below(xs.len() as u64) as usize],
                ys[rng.below(ys.len() as u64) as usize],
            ];
            let k = [rng.below(7) as i64 - 3, rng.below(7) as i64 - 3];
            let near = [nudge(v[0], k[0]), nudge(v[1], k[1])];
            let far = [x0 + w * rng.range(-0.2, 1.2), y0 + h * rng.range(-0.2, 1.2)];
            // Short and long, ending and starting near the vertex, and passing it.
            let f = [1e-3, 0.3, 1.0][rng.below(3) as usize];
            let a = [
                near[0] + (far[0] - near[0]) * f,
                near[1] + (far[1] - near[1]) * f,
            ];
            segs.push(seg([a[0], a[1], near[0], near[1]]));
            segs.push(seg([near[0], near[1], a[0], a[1]]));
            segs.push(seg([
                a[0],
                a[1],
                2.0 * near[0] - a[0],
                2.0 * near[1] - a[1],
            ]));
        }
        check(g, &segs, &format!("near-ulp scene, grid {g_index}"));
    }
}

#[test]
fn near_ulp_endpoints_match_brute_force_f32() {
    near_ulp_scenes::<f32>();
}

#[test]
fn near_ulp_endpoints_match_brute_force_f64() {
    near_ulp_scenes::<f64>();
}

/// The bench's own scene (`tracks` through 1000 × 1000 cells), against the clip of every cell
/// near each segment (its bounding box and two cells around it: no farther cell can meet it).
fn tracks_scene<F: Real>() {
    let g = grid::<F>([0.0, 0.0, 1.0, 1.0], 1000, 1000);
    let w = slabclip::workload::Dist::Tracks.generate::<F>(20_000, 11);
    let segs: Vec<Segment<F>> = (0..w.segments.len())
        .map(|i| slabclip::SegmentSource::segment(&w.segments, i))
        .collect();
    let near = |s: &Segment<F>| {
        (
            near_cells(s.x0, s.x1, 1000.0, 1000),
            near_cells(s.y0, s.y1, 1000.0, 1000),
        )
    };
    for o in &OPTIONS {
        let got = keys(&g.pieces(&segs[..], o));
        let want = brute_over(&g, &segs, o, near);
        let want = keys(&want);
        assert!(want.len() > 80_000, "{} pieces", want.len());
        if got != want {
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            panic!(
                "{} {o:?}: {} pieces, brute force {}; first difference at {first:?}",
                F::DTYPE,
                got.len(),
                want.len()
            );
        }
    }
}

#[test]
fn tracks_match_brute_force_near_each_segment_f32() {
    tracks_scene::<f32>();
}

#[test]
fn tracks_match_brute_force_near_each_segment_f64() {
    tracks_scene::<f64>();
}

/// Consecutive pieces of positive length share their parameter exactly, the first starts where
/// the segment enters the grid and the last ends where it leaves: no gap, no overlap.
#[test]
fn consecutive_pieces_share_their_parameters() {
    let g = grid::<f32>([0.0, 0.0, 1.0, 1.0], 100, 100);
    let w = slabclip::workload::Dist::Tracks.generate::<f32>(20_000, 3);
    let segs: Vec<Segment<f32>> = (0..w.segments.len())
        .map(|i| slabclip::SegmentSource::segment(&w.segments, i))
        .collect();
    let o = GridOptions {
        lines: Lines::Closed,
        touches: false,
    };
    let pieces = g.pieces(&segs[..], &o);
    let mut checked = 0;
    for (i, s) in segs.iter().enumerate() {
        let mine: Vec<&Piece<f32>> = pieces
            .iter()
            .filter(|p| p.segment == i && p.t_entry < p.t_exit)
            .collect();
        let whole = SlabScalar::clip_one(g.rect(), s);
        if !whole.is_hit() || whole.t_entry == whole.t_exit {
            assert!(mine.is_empty(), "segment {i}");
            continue;
        }
        assert_eq!(mine[0].t_entry, whole.t_entry, "segment {i}");
        assert_eq!(mine[mine.len() - 1].t_exit, whole.t_exit, "segment {i}");
        for pair in mine.windows(2) {
            assert_eq!(pair[0].t_exit, pair[1].t_entry, "segment {i}: {pair:?}");
        }
        checked += mine.len();
    }
    assert!(checked > 20_000, "{checked} pieces checked");
}

/// Half-open cells put every point of the grid in exactly one cell.
#[test]
fn half_open_puts_each_point_in_one_cell() {
    let g = grid::<f64>([-1.0, 0.0, 1.0, 2.0], 4, 4);
    let o = GridOptions {
        lines: Lines::HalfOpen,
        touches: true,
    };
    for &x in g.xs() {
        for &y in g.ys() {
            for (px, py) in [(x, y), (x, y + 0.1), (x + 0.1, y)] {
                if px > 1.0 || py > 2.0 {
                    continue;
                }
                let p = g.segment_pieces(&Segment::new(px, py, px, py), &o);
                assert_eq!(p.len(), 1, "({px}, {py}): {p:?}");
                let (ix, iy) = (p[0].ix as usize, p[0].iy as usize);
                assert!(g.xs()[ix] <= px && (px < g.xs()[ix + 1] || ix == 3));
                assert!(g.ys()[iy] <= py && (py < g.ys()[iy + 1] || iy == 3));
            }
        }
    }
    // A segment along the line x = 0 runs through column 2 only, along x = 1 (the edge) column 3.
    for (x, col) in [(0.0, 2), (1.0, 3), (-1.0, 0)] {
        let p = g.segment_pieces(&Segment::new(x, -1.0, x, 3.0), &o);
        assert_eq!(p.len(), 4, "{p:?}");
        assert!(p.iter().all(|p| p.ix == col), "{p:?}");
    }
}

/// The batch is the same list at any thread count, and the same as one segment at a time.
#[test]
fn same_pieces_at_any_thread_count() {
    let g = grid::<f32>([0.0, 0.0, 1.0, 1.0], 1000, 1000);
    let w = slabclip::workload::Dist::Tracks.generate::<f32>(30_000, 5);
    let o = GridOptions::default();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| g.pieces(&w.segments, &o));
    assert!(one.len() > 100_000, "{} pieces", one.len());
    for threads in [2, 3] {
        let many = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| g.pieces(&w.segments, &o));
        assert!(keys(&many) == keys(&one), "{threads} threads");
    }
    let mut each = Vec::new();
    for i in 0..w.segments.len() {
        let s = slabclip::SegmentSource::segment(&w.segments, i);
        each.extend(g.segment_pieces(&s, &o).into_iter().map(|mut p| {
            p.segment = i;
            p
        }));
    }
    assert!(keys(&each) == keys(&one));
}

/// The pieces as columns, by hand, for [`Grid::piece_columns`] to match: `t`s by their bits.
fn columns_of<F: Real>(p: &[Piece<F>]) -> Vec<(i64, i64, i64, u64, u64, u8)> {
    p.iter()
        .map(|p| {
            let (a, b) = (p.t_entry.to_bits_u64(), p.t_exit.to_bits_u64());
            (
                p.segment as i64,
                p.ix.into(),
                p.iy.into(),
                a,
                b,
                p.class as u8,
            )
        })
        .collect()
}

/// `piece_columns` gives `pieces` column by column, at any thread count and batch length
/// (around the block of 4,096 segments, and over several rounds of blocks).
fn columns_match<F: Real>(dist: slabclip::workload::Dist, cells: usize) {
    let g = grid::<F>([0.0, 0.0, 1.0, 1.0], cells, cells);
    let w = dist.generate::<F>(40_000, 11);
    let rows: Vec<Segment<F>> = (0..40_000)
        .map(|i| slabclip::SegmentSource::segment(&w.segments, i))
        .collect();
    for o in OPTIONS {
        for n in [0, 1, 17, 4095, 4096, 4097, 40_000] {
            let segs = &rows[..n];
            let want = columns_of(&g.pieces(segs, &o));
            for threads in [1, 2, 3] {
                let c = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| g.piece_columns(segs, &o));
                let got: Vec<_> = (0..c.len())
                    .map(|k| {
                        let (a, b) = (c.t_entry[k].to_bits_u64(), c.t_exit[k].to_bits_u64());
                        (c.segment[k], c.ix[k], c.iy[k], a, b, c.class[k])
                    })
                    .collect();
                let lens = [c.ix.len(), c.iy.len(), c.t_entry.len(), c.t_exit.len()];
                assert!(lens.iter().chain([&c.class.len()]).all(|&l| l == c.len()));
                assert!(got == want, "{dist:?} n = {n}, {threads} threads, {o:?}");
            }
        }
    }
}

#[test]
fn piece_columns_are_the_pieces_f32() {
    columns_match::<f32>(slabclip::workload::Dist::Tracks, 1000);
}

#[test]
fn piece_columns_are_the_pieces_f64() {
    columns_match::<f64>(slabclip::workload::Dist::Mixed, 16);
}

/// `pieces_into_blocks` gives `pieces_into`'s list on one thread, at any thread count, with
/// the same blocks reused across batches that grow and shrink (no piece of an earlier, larger
/// batch shows), and its `iter`, `to_vec`, `len`, `is_empty` and `blocks` agree.
fn blocks_match<F: Real>(dist: slabclip::workload::Dist, cells: usize) {
    let g = grid::<F>([0.0, 0.0, 1.0, 1.0], cells, cells);
    let w = dist.generate::<F>(40_000, 12);
    let rows: Vec<Segment<F>> = (0..40_000)
        .map(|i| slabclip::SegmentSource::segment(&w.segments, i))
        .collect();
    for o in OPTIONS {
        let mut blocks = slabclip::PieceBlocks::new();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for n in [40_000, 4097, 0, 17, 4096, 40_000, 4095] {
                let segs = &rows[..n];
                let mut want = Vec::new();
                g.pieces_into(segs, 0..n, &o, &mut want);
                pool.install(|| g.pieces_into_blocks(segs, &o, &mut blocks));
                let case = format!("{dist:?} n = {n}, {threads} threads, {o:?}");
                let iterated: Vec<Piece<F>> = blocks.iter().copied().collect();
                assert!(columns_of(&iterated) == columns_of(&want), "iter: {case}");
                assert!(
                    columns_of(&blocks.to_vec()) == columns_of(&want),
                    "to_vec: {case}"
                );
                assert_eq!(blocks.len(), want.len(), "{case}");
                assert_eq!(blocks.is_empty(), want.is_empty(), "{case}");
                assert_eq!(blocks.blocks().len(), n.div_ceil(4096), "{case}");
            }
        }
    }
}

#[test]
fn piece_blocks_are_the_pieces_f32() {
    blocks_match::<f32>(slabclip::workload::Dist::Tracks, 1000);
}

#[test]
fn piece_blocks_are_the_pieces_f64() {
    blocks_match::<f64>(slabclip::workload::Dist::Mixed, 16);
}

/// Bad grids are errors, never panics.
#[test]
fn bad_grids_are_errors() {
    let error = |r: Rect<f32>, nx: usize, ny: usize| match Grid::new(r, nx, ny) {
        Ok(_) => panic!("{r:?} {nx} x {ny} was accepted"),
        Err(e) => e.to_string(),
    };
    let unit = Rect::new(0.0f32, 0.0, 1.0, 1.0).unwrap();
    let far = Rect::new(1000.0f32, 0.0, 1001.0, 1.0).unwrap();
    for (r, nx, ny, what) in [
        (unit, 0, 4, "nx = 0"),
        (unit, 4, 0, "ny = 0"),
        (unit, 1 << 25, 4, "expected 1 to"),
        (far, 1_000_000, 1, "too narrow for float32"),
        (
            Rect::new(0.0f32, 0.0, 0.0, 1.0).unwrap(),
            2,
            2,
            "no extent along x",
        ),
        (
            Rect::new(0.0f32, 2.0, 1.0, 2.0).unwrap(),
            2,
            2,
            "no extent along y",
        ),
    ] {
        let e = error(r, nx, ny);
        assert!(e.contains(what), "{e}");
    }
}

/// A grid with more lines than the lanes take (`2²³` columns) walks one segment at a time: the
/// same pieces as the clip of every cell near each segment (short random segments, some along
/// lines, through vertices and beyond the grid's ends).
fn big_grid_scene<F: Real>() {
    let n = 1 << 23;
    let g = grid::<F>([0.0, 0.0, n as f64, 4.0], n, 4);
    let mut rng = SplitMix64::new(23);
    let mut segs = Vec::new();
    for k in 0..3000 {
        let x = [8.0, n as f64 / 2.0, n as f64 - 6.0][k % 3] + rng.range(-8.0, 8.0);
        let y = rng.range(-1.0, 5.0);
        let mut p = [x, y, x + rng.range(-9.0, 9.0), y + rng.range(-3.0, 3.0)];
        if k % 7 == 0 {
            p = p.map(f64::round); // ends on lines and vertices
        }
        segs.push(seg::<F>(p));
    }
    let near = |s: &Segment<F>| {
        (
            near_cells(s.x0, s.x1, 1.0, n),
            near_cells(s.y0, s.y1, 1.0, 4),
        )
    };
    for o in &OPTIONS {
        let got = keys(&g.pieces(&segs[..], o));
        let want = brute_over(&g, &segs, o, near);
        let want = keys(&want);
        assert!(want.len() > 10_000, "{} pieces", want.len());
        assert!(
            got == want,
            "{} {o:?}: {} pieces, brute force {}",
            F::DTYPE,
            got.len(),
            want.len()
        );
    }
}

#[test]
fn big_grids_walk_alone_and_match_brute_force() {
    big_grid_scene::<f32>();
    big_grid_scene::<f64>();
}

/// `v` moved by `k` floats of `F` (up for `k > 0`).
fn nudge<F: Real>(v: f64, k: i64) -> f64 {
    let mut x = F::from_f64(v);
    for _ in 0..k.unsigned_abs() {
        x = if k > 0 {
            x.next_up()
        } else {
            -((-x).next_up())
        };
    }
    x.to_f64()
}

/// The watertight property of one segment's pieces, and every piece held to SPEC §1 against the
/// exact clip of its cell: the pieces of positive length (one per distinct interval: a segment
/// on a line has the same piece in both cells beside it) follow one another with no gap and no
/// overlap, the first starting and the last ending where the grid rect's own clip (as a 1 × 1
/// grid, slivers kept) does.
fn assert_watertight<F: Real>(g: &Grid<F>, s: &Segment<F>, pieces: &[Piece<F>]) {
    let whole = Grid::new(*g.rect(), 1, 1).unwrap().cell_clip(0, 0, s);
    let mut spans: Vec<(F, F)> = pieces
        .iter()
        .filter(|p| p.t_entry < p.t_exit)
        .map(|p| (p.t_entry, p.t_exit))
        .collect();
    spans.dedup();
    for p in pieces {
        let cell = g.cell(p.ix as usize, p.iy as usize);
        exact(&cell, s)
            .verify(p.t_entry, p.t_exit, p.class)
            .unwrap_or_else(|e| panic!("{} {s:?} in cell {p:?}: {e}", F::DTYPE));
    }
    if !whole.is_hit() || whole.t_entry == whole.t_exit {
        assert!(
            spans.is_empty(),
            "{} {s:?}: {spans:?} outside the grid's clip",
            F::DTYPE
        );
        return;
    }
    let gap = |what: &str| {
        panic!(
            "{} {s:?}: {what} in {spans:?} (grid clip {whole:?})",
            F::DTYPE
        )
    };
    if spans.first().map(|p| p.0) != Some(whole.t_entry) {
        gap("the first piece does not start where the segment enters the grid");
    }
    if spans.last().map(|p| p.1) != Some(whole.t_exit) {
        gap("the last piece does not end where the segment leaves the grid");
    }
    if spans.windows(2).any(|w| w[0].1 != w[1].0) {
        gap("a gap or an overlap between consecutive pieces");
    }
}

/// Segments that end (or start) within four floats of a grid vertex in both coordinates, from
/// every direction, the other end near another vertex or anywhere: where the cell passed just
/// before the end's cell can be a sliver whose rounded entry lies within `2ε` of 1, which SPEC
/// §1's graze allowance would let a per-cell clip drop. The pieces are the brute force's (with
/// the slivers) and watertight, in both precisions.
fn near_vertex_ends<F: Real>(seed: u64, per_grid: usize) {
    let mut rng = SplitMix64::new(seed);
    for (k, g) in grids::<F>().iter().enumerate() {
        let xs: Vec<f64> = g.xs().iter().map(|v| v.to_f64()).collect();
        let ys: Vec<f64> = g.ys().iter().map(|v| v.to_f64()).collect();
        let r = g.rect();
        let (x0, y0) = (r.xmin().to_f64(), r.ymin().to_f64());
        let (w, h) = (r.xmax().to_f64() - x0, r.ymax().to_f64() - y0);
        let vertex = |rng: &mut SplitMix64, spread: i64| {
            let (i, j) = (rng.below(xs.len() as u64), rng.below(ys.len() as u64));
            let k = |rng: &mut SplitMix64| rng.below(2 * spread as u64 + 1) as i64 - spread;
            [
                nudge::<F>(xs[i as usize], k(rng)),
                nudge::<F>(ys[j as usize], k(rng)),
            ]
        };
        let mut segs = Vec::new();
        for _ in 0..per_grid {
            let end = vertex(&mut rng, 4);
            let other = match rng.below(3) {
                0 => vertex(&mut rng, 4),
                1 => vertex(&mut rng, 0),
                _ => [x0 + w * rng.range(-0.3, 1.3), y0 + h * rng.range(-0.3, 1.3)],
            };
            segs.push(seg::<F>([other[0], other[1], end[0], end[1]]));
            segs.push(seg::<F>([end[0], end[1], other[0], other[1]]));
        }
        check(g, &segs, &format!("near-vertex ends, grid {k}"));
        let o = GridOptions {
            lines: Lines::Closed,
            touches: true,
        };
        let pieces = g.pieces(&segs[..], &o);
        for (i, s) in segs.iter().enumerate() {
            let mine: Vec<Piece<F>> = pieces.iter().filter(|p| p.segment == i).copied().collect();
            assert_watertight(g, s, &mine);
        }
    }
}

#[test]
fn near_vertex_ends_are_watertight_f32() {
    near_vertex_ends::<f32>(41, 600);
}

#[test]
fn near_vertex_ends_are_watertight_f64() {
    near_vertex_ends::<f64>(43, 600);
}

/// Named cases: a segment ending a few ulps from a grid vertex whose last-but-one cell is a
/// sliver of about one ulp (the exact clip crosses cell (2, 3) over `[1 − 2.2·10⁻¹⁶,
/// 1 − 4.4·10⁻¹⁷]`); it is kept, between the pieces of cells (2, 2) and (1, 3).
#[test]
fn sliver_before_the_end_is_kept() {
    let g = grid::<f64>([0.0, 0.0, 1.0, 1.0], 8, 8);
    let s = seg::<f64>([
        0.8750000000000006,
        0.12499999999999999,
        0.24999999999999997,
        0.37500000000000006,
    ]);
    let p = g.segment_pieces(&s, &GridOptions::default());
    let cells: Vec<(u32, u32)> = p.iter().map(|p| (p.ix, p.iy)).collect();
    assert_eq!(&cells[cells.len() - 3..], [(2, 2), (2, 3), (1, 3)], "{p:?}");
    let n = p.len();
    assert_eq!(p[n - 3].t_exit, p[n - 2].t_entry);
    assert_eq!(p[n - 2].t_exit, p[n - 1].t_entry);
    assert_eq!(p[n - 2].class, Class::Crosses);
    assert_watertight(&g, &s, &p);
    // Reversed, the sliver is at the start: there the rounding is exact in sign, no sliver.
    let r = Segment::new(s.x1, s.y1, s.x0, s.y0);
    assert_watertight(&g, &r, &g.segment_pieces(&r, &GridOptions::default()));
}

/// Grids across most of the float range, where a segment's `x1 − x0` or `y1 − y0` overflows:
/// the pieces are still every cell's clip (the named case lost cell (2, 0)).
fn overflowing_differences<F: Real>(bounds: &[[f64; 4]], cells: &[(usize, usize)]) {
    let mut rng = SplitMix64::new(5);
    for (b, &(nx, ny)) in bounds.iter().zip(cells) {
        let g = grid::<F>(*b, nx, ny);
        let xs: Vec<f64> = g.xs().iter().map(|v| v.to_f64()).collect();
        let ys: Vec<f64> = g.ys().iter().map(|v| v.to_f64()).collect();
        let pick = |rng: &mut SplitMix64, v: &[f64]| v[rng.below(v.len() as u64) as usize];
        let mut segs = Vec::new();
        for _ in 0..300 {
            // Across the grid from edge to edge, between vertices, and from anywhere to
            // anywhere: most differences overflow.
            let u = |rng: &mut SplitMix64, lo: f64, hi: f64| lo + (hi - lo) * rng.range(0.0, 1.0);
            let a = [u(&mut rng, b[0], b[2]), u(&mut rng, b[1], b[3])];
            let c = [u(&mut rng, b[0], b[2]), u(&mut rng, b[1], b[3])];
            segs.push(seg::<F>([a[0], a[1], c[0], c[1]]));
            segs.push(seg::<F>([b[0], a[1], b[2], c[1]]));
            segs.push(seg::<F>([a[0], b[3], c[0], b[1]]));
            let (v, w) = (
                [pick(&mut rng, &xs), pick(&mut rng, &ys)],
                [pick(&mut rng, &xs), pick(&mut rng, &ys)],
            );
            segs.push(seg::<F>([v[0], v[1], w[0], w[1]]));
            segs.push(seg::<F>([v[0], a[1], w[0], a[1]]));
        }
        check(&g, &segs, &format!("overflowing differences, grid {b:?}"));
    }
}

#[test]
fn overflowing_differences_match_brute_force() {
    overflowing_differences::<f64>(
        &[
            [-1.5e308, -1e308, 1.6e308, 1e308],
            [-1.7e308, -1.7e308, 1.7e308, 1.7e308],
            [-1e308, 1e307, 1e308, 1.7e308],
        ],
        &[(5, 3), (7, 7), (6, 2)],
    );
    overflowing_differences::<f32>(
        &[[-3e38, -3e38, 3e38, 3e38], [-3.4e38, -1e38, 3.4e38, 2e38]],
        &[(6, 4), (5, 5)],
    );
    let g = grid::<f64>([-1.5e308, -1e308, 1.6e308, 1e308], 5, 3);
    let s = seg::<f64>([
        -1.5e308,
        3.3333333333333317e307,
        9.799999999999991e307,
        -7.777777777777778e307,
    ]);
    let p = g.segment_pieces(&s, &GridOptions::default());
    assert!(p.iter().any(|p| (p.ix, p.iy) == (2, 0)), "{p:?}");
}

/// Segments much longer than a fine grid, crossing one of its corners or passing beside it:
/// most lines they cross lie beside the grid, and are skipped by the walks (the cost follows
/// the pieces). The pieces are still the brute force's, and watertight.
fn beside_the_grid<F: Real>() {
    let g = grid::<F>([0.0, 0.0, 1.0, 1.0], 150, 130);
    let mut rng = SplitMix64::new(17);
    let mut segs = Vec::new();
    for _ in 0..60 {
        // Through a corner region: from far away on one side to far away on the other.
        let (cx, cy) = (
            [0.0, 1.0][rng.below(2) as usize],
            [0.0, 1.0][rng.below(2) as usize],
        );
        let (ax, ay) = (cx + rng.range(-0.05, 0.05), cy + rng.range(-0.05, 0.05));
        let dir = rng.range(0.0, core::f64::consts::TAU);
        let (dx, dy) = (dir.cos(), dir.sin());
        let (far, near) = (rng.range(20.0, 80.0), rng.range(0.0, 0.3));
        segs.push(seg::<F>([
            ax - far * dx,
            ay - far * dy,
            ax + far * dx,
            ay + far * dy,
        ]));
        segs.push(seg::<F>([
            ax - far * dx,
            ay - far * dy,
            ax + near * dx,
            ay + near * dy,
        ]));
        segs.push(seg::<F>([
            ax + near * dx,
            ay + near * dy,
            ax - far * dx,
            ay - far * dy,
        ]));
        // Through grid vertices extended (ties: the walk), from far outside.
        let (i, j) = (rng.below(151) as f64 / 150.0, rng.below(131) as f64 / 130.0);
        segs.push(seg::<F>([i - 40.0, j - 40.0, i + 0.5, j + 0.5]));
        segs.push(seg::<F>([-50.0, j, 60.0, j + 1e-3]));
    }
    check(&g, &segs, "beside the grid");
    let pieces = g.pieces(&segs[..], &GridOptions::default());
    for (i, s) in segs.iter().enumerate() {
        let mine: Vec<Piece<F>> = pieces.iter().filter(|p| p.segment == i).copied().collect();
        assert_watertight(&g, s, &mine);
    }
}

#[test]
fn segments_beside_the_grid_match_brute_force_f32() {
    beside_the_grid::<f32>();
}

#[test]
fn segments_beside_the_grid_match_brute_force_f64() {
    beside_the_grid::<f64>();
}
