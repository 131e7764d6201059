//! Polylines and tiles (SPEC §7, `slabclip::polyline`) against an obviously right joiner
//! written here: each segment clipped alone by the crate's scalar clip (`SlabScalar::clip_one`,
//! checked against the exact rational clip, `Exact::verify_clipped`), the pieces joined by
//! §7's rule in a few plain loops; tiles against the same joiner over every cell (and every
//! buffered cell); watertight joints between tiles; 1, 2 and 3 threads; a named table of
//! edge cases with hand-written answers; proptest scenes in both precisions.

use crate::common;
use proptest::prelude::*;
use slabclip::grid::{Grid, GridOptions, Lines};
use slabclip::reference::exact;
use slabclip::workload::SplitMix64;
use slabclip::{
    Clip, ClipKernel, Coords, Error, MultiPolylines, PartOptions, Parts, Polylines, Real, Rect,
    Segment, SegmentSource, SlabScalar, TileOptions,
};

// ---------------------------------------------------------------------------------------------
// The reference: per-segment clips, joined in plain loops.

/// A part (or a point, one vertex) as the tests compare them: owner, cell, vertex bits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    polyline: i64,
    geometry: i64,
    cell: (i64, i64),
    bits: Vec<(u64, u64)>,
}

fn bits<F: Real>(x: F, y: F) -> (u64, u64) {
    (x.to_bits_u64(), y.to_bits_u64())
}

/// The library's answer as rows: parts, then points.
fn rows_of<F: Real>(p: &Parts<F>) -> (Vec<Row>, Vec<Row>) {
    assert_eq!(p.offsets.len(), p.len() + 1);
    assert_eq!(p.offsets[0], 0);
    assert_eq!(*p.offsets.last().unwrap() as usize * 2, p.coords.len());
    let parts = p
        .iter()
        .map(|part| {
            assert!(part.coords.len() >= 4, "a part has two vertices or more");
            Row {
                polyline: part.polyline,
                geometry: part.geometry.unwrap_or(-1),
                cell: part.cell.unwrap_or((-1, -1)),
                bits: part.coords.chunks(2).map(|v| bits(v[0], v[1])).collect(),
            }
        })
        .collect();
    let q = &p.points;
    let points = (0..q.len())
        .map(|k| Row {
            polyline: q.polyline[k],
            geometry: q.geometry.get(k).copied().unwrap_or(-1),
            cell: (
                q.ix.get(k).copied().unwrap_or(-1),
                q.iy.get(k).copied().unwrap_or(-1),
            ),
            bits: vec![bits(q.coords[2 * k], q.coords[2 * k + 1])],
        })
        .collect();
    (parts, points)
}

/// One clipped piece: segment index, parameters, clipped endpoints.
#[derive(Clone, Copy, Debug)]
struct Piece<F> {
    seg: usize,
    t_entry: F,
    t_exit: F,
    s: Segment<F>,
}

/// SPEC §7's joining, written plainly: pieces (in segment order) into runs, runs into parts or
/// points, pushed with `owner`.
fn join_ref<F: Real>(
    pieces: &[Piece<F>],
    owner: (i64, i64, (i64, i64)),
    parts: &mut Vec<Row>,
    points: &mut Vec<Row>,
) {
    let mut runs: Vec<Vec<Piece<F>>> = Vec::new();
    for p in pieces {
        let follows = match runs.last().and_then(|r| r.last()) {
            Some(q) => q.seg + 1 == p.seg && q.t_exit == F::ONE && p.t_entry == F::ZERO,
            None => false,
        };
        if follows {
            runs.last_mut().unwrap().push(*p);
        } else {
            runs.push(vec![*p]);
        }
    }
    for run in runs {
        let mut v = vec![(run[0].s.x0, run[0].s.y0)];
        for p in &run {
            if p.t_entry < p.t_exit {
                v.push((p.s.x1, p.s.y1));
            }
        }
        let all_one = v.iter().all(|&(x, y)| x == v[0].0 && y == v[0].1);
        let row = Row {
            polyline: owner.0,
            geometry: owner.1,
            cell: owner.2,
            bits: v.iter().map(|&(x, y)| bits(x, y)).collect(),
        };
        if all_one {
            points.push(Row {
                bits: vec![row.bits[0]],
                ..row
            });
        } else {
            parts.push(row);
        }
    }
}

/// Checks one clip against the exact rational clip (SPEC §1), then returns it as a piece.
fn clip_checked<F: Real>(rect: &Rect<F>, s: &Segment<F>, seg: usize) -> Option<Piece<F>> {
    let c = SlabScalar::clip_one(rect, s);
    let cs = c.segment(rect, s);
    if let Err(e) = exact(rect, s).verify_clipped(rect, s, c.t_entry, c.t_exit, c.class, &cs) {
        panic!("segment {seg} {s:?} by {rect:?}: {e}");
    }
    c.is_hit().then_some(Piece {
        seg,
        t_entry: c.t_entry,
        t_exit: c.t_exit,
        s: cs,
    })
}

/// A scene: vertices, offsets (one polyline per pair), optional geometry offsets.
#[derive(Clone, Debug)]
struct Scene<F> {
    xy: Vec<F>,
    offsets: Vec<i64>,
}

impl<F: Real> Scene<F> {
    fn vertex(&self, i: usize) -> (F, F) {
        (self.xy[2 * i], self.xy[2 * i + 1])
    }
    fn seg(&self, i: usize) -> Segment<F> {
        let ((a, b), (c, d)) = (self.vertex(i), self.vertex(i + 1));
        Segment::new(a, b, c, d)
    }
    fn lines(&self) -> Polylines<'_, F> {
        Polylines::interleaved(&self.xy, &self.offsets).unwrap()
    }
    /// The `x` and `y` columns.
    fn columns(&self) -> (Vec<F>, Vec<F>) {
        self.xy.chunks(2).map(|p| (p[0], p[1])).unzip()
    }
    fn count(&self) -> usize {
        self.offsets.len() - 1
    }
}

/// The reference clip of every polyline by `rect_of(j)`.
fn clip_ref<F: Real>(
    sc: &Scene<F>,
    rect_of: impl Fn(usize) -> Rect<F>,
    check: bool,
) -> (Vec<Row>, Vec<Row>) {
    let (mut parts, mut points) = (Vec::new(), Vec::new());
    for j in 0..sc.count() {
        let (a, b) = (sc.offsets[j] as usize, sc.offsets[j + 1] as usize);
        let rect = rect_of(j);
        let mut pieces = Vec::new();
        for i in a..b.saturating_sub(1).max(a) {
            let s = sc.seg(i);
            let p = if check {
                clip_checked(&rect, &s, i)
            } else {
                let c = SlabScalar::clip_one(&rect, &s);
                c.is_hit().then(|| Piece {
                    seg: i,
                    t_entry: c.t_entry,
                    t_exit: c.t_exit,
                    s: c.segment(&rect, &s),
                })
            };
            pieces.extend(p);
        }
        join_ref(&pieces, (j as i64, -1, (-1, -1)), &mut parts, &mut points);
    }
    (parts, points)
}

/// The per-cell clip of buffered cells: SPEC §1's, as `slab-scalar` gives it.
fn clip_by_rect<F: Real>(_: usize, _: usize, r: &Rect<F>, s: &Segment<F>) -> Clip<F> {
    SlabScalar::clip_one(r, s)
}

/// The reference tiling: every segment by every cell `cell(ix, iy)` (all of them) with `clip`
/// (the grid's `cell_clip` for unbuffered cells: SPEC §1 with the grid's slivers kept, so that
/// the tiles are watertight), joined per (polyline, cell); ordered by polyline, then cell index,
/// then along.
fn tiles_ref<F: Real>(
    sc: &Scene<F>,
    nx: usize,
    ny: usize,
    cell: impl Fn(usize, usize) -> Rect<F>,
    clip: impl Fn(usize, usize, &Rect<F>, &Segment<F>) -> Clip<F>,
) -> (Vec<Row>, Vec<Row>) {
    let (mut parts, mut points) = (Vec::new(), Vec::new());
    for j in 0..sc.count() {
        let (a, b) = (sc.offsets[j] as usize, sc.offsets[j + 1] as usize);
        for iy in 0..ny {
            for ix in 0..nx {
                let r = cell(ix, iy);
                let pieces: Vec<Piece<F>> = (a..b.saturating_sub(1).max(a))
                    .filter_map(|i| {
                        let s = sc.seg(i);
                        let c = clip(ix, iy, &r, &s);
                        c.is_hit().then(|| Piece {
                            seg: i,
                            t_entry: c.t_entry,
                            t_exit: c.t_exit,
                            s: c.segment(&r, &s),
                        })
                    })
                    .collect();
                let owner = (j as i64, -1, (ix as i64, iy as i64));
                join_ref(&pieces, owner, &mut parts, &mut points);
            }
        }
    }
    (parts, points)
}

fn with_points() -> PartOptions {
    PartOptions { points: true }
}

fn clip_lib<F: Real>(sc: &Scene<F>, rect: &Rect<F>) -> (Vec<Row>, Vec<Row>) {
    let mut out = Parts::new();
    sc.lines().clip(rect, &with_points(), &mut out);
    rows_of(&out)
}

/// The tiles of the scene's polylines, from interleaved coordinates; checked to be the same
/// from separated columns.
fn tiles_lib<F: Real>(sc: &Scene<F>, g: &Grid<F>, o: &TileOptions<F>) -> (Vec<Row>, Vec<Row>) {
    let mut out = Parts::new();
    sc.lines().tiles(g, o, &mut out).unwrap();
    let got = rows_of(&out);
    let (x, y) = sc.columns();
    Polylines::separated(&x, &y, &sc.offsets)
        .unwrap()
        .tiles(g, o, &mut out)
        .unwrap();
    assert_eq!(rows_of(&out), got, "separated columns against interleaved");
    got
}

/// Every part vertex in its closed rect; vertices not taken from the polyline lie on an edge.
fn check_vertices<F: Real>(sc: &Scene<F>, rows: &[Row], rect_of: impl Fn(&Row) -> Rect<F>) {
    let inputs: std::collections::HashSet<(u64, u64)> = (0..sc.xy.len() / 2)
        .map(|i| {
            let (x, y) = sc.vertex(i);
            bits(x, y)
        })
        .collect();
    for row in rows {
        let r = rect_of(row);
        for &(bx, by) in &row.bits {
            let (x, y) = (F::from_f64(f64_of::<F>(bx)), F::from_f64(f64_of::<F>(by)));
            assert!(r.contains(x, y), "{row:?}: vertex in the closed rect {r:?}");
            if !inputs.contains(&(bx, by)) {
                let on = x == r.xmin() || x == r.xmax() || y == r.ymin() || y == r.ymax();
                assert!(on, "{row:?}: a cut vertex lies on an edge of {r:?}");
            }
        }
    }
}

fn f64_of<F: Real>(b: u64) -> f64 {
    if core::mem::size_of::<F>() == 4 {
        f32::from_bits(b as u32) as f64
    } else {
        f64::from_bits(b)
    }
}

/// Whether the library's vertex `got` may stand for the reference's `want` as a sealed joint
/// does (the tiles' module docs): `got` is a grid vertex, and `want` lies within a few
/// roundings of it (8 ulps at the grid's magnitude: the cell beyond a vertex lands an ulp or
/// two off it). A cut vertex that is wrong but happens to fall on a grid vertex is not excused.
fn sealed<F: Real>(g: &Grid<F>, got: (u64, u64), want: (u64, u64)) -> bool {
    let (x, y) = (f64_of::<F>(got.0), f64_of::<F>(got.1));
    let on_vertex =
        g.xs().iter().any(|v| v.to_f64() == x) && g.ys().iter().any(|v| v.to_f64() == y);
    let scale = [g.xs(), g.ys()]
        .iter()
        .flat_map(|l| [l[0], l[l.len() - 1]])
        .fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
    let tol = 8.0 * 2.0 * (1.0 - F::ONE_BELOW.to_f64()) * scale;
    let near = |a: f64, b: f64| (a - b).abs() <= tol;
    on_vertex && near(x, f64_of::<F>(want.0)) && near(y, f64_of::<F>(want.1))
}

// ---------------------------------------------------------------------------------------------
// Scenes.

fn fl<F: Real>(v: f64) -> F {
    F::from_f64(v)
}

/// A value near `v`: exactly it, or a few ulps of F to either side.
fn near<F: Real>(v: F, rng: &mut SplitMix64) -> F {
    let mut x = v;
    match rng.below(4) {
        0 => x,
        1 => {
            for _ in 0..=rng.below(3) {
                x = x.next_up();
            }
            x
        }
        2 => {
            for _ in 0..=rng.below(3) {
                x = -((-x).next_up());
            }
            x
        }
        _ => fl(v.to_f64() + rng.range(-0.3, 0.3)),
    }
}

/// Random polylines around a rect or grid over `[lo, hi]²`: vertices on lines (`lines`), a few
/// ulps off them, anywhere; axis-parallel runs, repeated vertices, back-tracking, zero-length
/// and empty polylines, rarely a NaN or ±∞.
fn scene<F: Real>(rng: &mut SplitMix64, lines: &[f64], n_lines: usize, odd: bool) -> Scene<F> {
    let mut xy = Vec::new();
    let mut offsets = vec![0i64];
    let pick = |rng: &mut SplitMix64| -> F {
        if rng.chance(0.6) {
            let v = fl(lines[rng.below(lines.len() as u64) as usize]);
            near(v, rng)
        } else {
            fl(rng.range(lines[0] - 0.5, lines[lines.len() - 1] + 0.5))
        }
    };
    for _ in 0..n_lines {
        let k = match rng.below(10) {
            0 => 0,
            1 => 2,
            _ => 2 + rng.below(12) as usize,
        };
        let (mut x, mut y) = (pick(rng), pick(rng));
        for _ in 0..k {
            xy.extend_from_slice(&[x, y]);
            match rng.below(6) {
                0 => {}             // repeated vertex
                1 => x = pick(rng), // horizontal run
                2 => y = pick(rng), // vertical run
                3 => {
                    // through a grid vertex, diagonally
                    let (vx, vy) = (
                        lines[rng.below(lines.len() as u64) as usize],
                        lines[rng.below(lines.len() as u64) as usize],
                    );
                    let (dx, dy) = (x.to_f64() - vx, y.to_f64() - vy);
                    let s = rng.range(0.2, 1.5);
                    (x, y) = (fl(vx - s * dx), fl(vy - s * dy));
                }
                _ => (x, y) = (pick(rng), pick(rng)),
            }
        }
        if odd && k > 2 && rng.chance(0.05) {
            let at = xy.len() - 2 * (1 + rng.below(k as u64 - 1) as usize);
            let bad = [F::NAN, F::INFINITY, -F::INFINITY][rng.below(3) as usize];
            xy[at + rng.below(2) as usize] = bad;
        }
        offsets.push((xy.len() / 2) as i64);
    }
    Scene { xy, offsets }
}

fn grid<F: Real>(lo: f64, hi: f64, nx: usize, ny: usize) -> Grid<F> {
    Grid::new(Rect::new(fl(lo), fl(lo), fl(hi), fl(hi)).unwrap(), nx, ny).unwrap()
}

fn lines_of<F: Real>(g: &Grid<F>) -> Vec<f64> {
    let mut v: Vec<f64> = g.xs().iter().chain(g.ys()).map(|x| x.to_f64()).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

// ---------------------------------------------------------------------------------------------
// (a), (b): the rect clip against the reference.

fn clip_matches_reference<F: Real>(seed: u64, scenes: usize) {
    let mut rng = SplitMix64::new(seed);
    let rect = Rect::new(fl::<F>(0.0), fl(0.0), fl(1.0), fl(1.0)).unwrap();
    let flat = Rect::new(fl::<F>(0.0), fl(0.5), fl(1.0), fl(0.5)).unwrap();
    for k in 0..scenes {
        let sc = scene::<F>(&mut rng, &[0.0, 0.5, 1.0], 40, true);
        for r in [rect, flat] {
            let want = clip_ref(&sc, |_| r, k % 4 == 0);
            assert_eq!(clip_lib(&sc, &r), want, "scene {k}, rect {r:?}");
            check_vertices(&sc, &want.0, |_| r);
            // Separated columns give the same answer.
            let (x, y) = sc.columns();
            let lines = Polylines::separated(&x, &y, &sc.offsets).unwrap();
            let mut out = Parts::new();
            lines.clip(&r, &with_points(), &mut out);
            assert_eq!(rows_of(&out), want, "scene {k}, separated");
            // Without points: the same parts, no points.
            lines.clip(&r, &PartOptions::default(), &mut out);
            assert_eq!(rows_of(&out), (want.0.clone(), vec![]), "scene {k}");
        }
    }
}

#[test]
fn clip_matches_reference_f32() {
    clip_matches_reference::<f32>(1, 300);
}

#[test]
fn clip_matches_reference_f64() {
    clip_matches_reference::<f64>(2, 300);
}

/// Every polyline length from 2 to 140 (windows of 32 vertices overlap by one; the last window
/// is padded, or filled from the next polyline's values), each a walk in and out of the rect
/// with long inside runs, ±0.0 and ulps-off values on the bounds, rarely a NaN or ±∞ (also at
/// window edges), at every start offset modulo 32: interleaved and separated, against the
/// reference, at every SIMD level this CPU runs (the windows' codes are made on its vectors).
fn clip_windows<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let rect = Rect::new(fl::<F>(0.0), fl(0.0), fl(1.0), fl(1.0)).unwrap();
    let (mut xy, mut offsets) = (Vec::new(), vec![0i64]);
    let pick = |rng: &mut SplitMix64, inside: bool| -> F {
        match rng.below(8) {
            0 => near(fl(0.0), rng),
            1 => near(fl(1.0), rng),
            2 => -F::ZERO,
            _ if inside => fl(rng.range(0.0, 1.0)),
            _ => fl(rng.range(-1.0, 2.0)),
        }
    };
    for len in (2..=140).chain(2..=140) {
        let mut inside = rng.chance(0.5);
        for k in 0..len {
            if rng.chance(0.1) {
                inside = !inside;
            }
            let (mut x, y) = (pick(&mut rng, inside), pick(&mut rng, inside));
            if rng.chance(0.01) || (k % 31 == 0 && rng.chance(0.05)) {
                x = [F::NAN, F::INFINITY, -F::INFINITY][rng.below(3) as usize];
            }
            xy.extend_from_slice(&[x, y]);
        }
        offsets.push((xy.len() / 2) as i64);
        if rng.chance(0.3) {
            // A short polyline of one repeated point (a point of contact), or none.
            for _ in 0..[0, 2, 3][rng.below(3) as usize] {
                xy.extend_from_slice(&[fl(0.5), fl(0.5)]);
            }
            let end = (xy.len() / 2) as i64;
            offsets.push(end);
        }
    }
    let sc = Scene { xy, offsets };
    let want = clip_ref(&sc, |_| rect, false);
    assert!(want.0.len() > 500, "{} parts", want.0.len());
    assert_eq!(clip_lib(&sc, &rect), want, "interleaved");
    let (x, y) = sc.columns();
    let mut out = Parts::new();
    Polylines::separated(&x, &y, &sc.offsets)
        .unwrap()
        .clip(&rect, &with_points(), &mut out);
    assert_eq!(rows_of(&out), want, "separated");
}

#[test]
fn clip_windows_of_every_length_f32() {
    common::levels::each(|_| clip_windows::<f32>(71));
}

#[test]
fn clip_windows_of_every_length_f64() {
    common::levels::each(|_| clip_windows::<f64>(72));
}

/// Long polylines: wholly inside, wholly beyond an edge, several in a row, crossing the
/// blocks' boundaries.
#[test]
fn road_like_batches_match_reference() {
    let w = slabclip::workload::Dist::RoadLike.generate::<f32>(60_000, 7);
    // The workload's segments are chained: vertex i + 1 is segment i's end.
    let mut xy = Vec::new();
    let mut offsets = vec![0i64];
    let segs = &w.segments;
    let mut i = 0;
    let mut rng = SplitMix64::new(3);
    while i < slabclip::SegmentSource::len(segs) {
        let n = 2 + rng.below(80) as usize;
        let s0 = slabclip::SegmentSource::segment(segs, i);
        xy.extend_from_slice(&[s0.x0, s0.y0]);
        for k in i..(i + n).min(slabclip::SegmentSource::len(segs)) {
            let s = slabclip::SegmentSource::segment(segs, k);
            xy.extend_from_slice(&[s.x1, s.y1]);
        }
        i += n;
        offsets.push((xy.len() / 2) as i64);
    }
    let sc = Scene { xy, offsets };
    for r in [w.rect, Rect::new(0.25, 0.25, 0.5, 0.75).unwrap()] {
        let want = clip_ref(&sc, |_| r, false);
        assert!(want.0.len() > 100, "{} parts", want.0.len());
        assert_eq!(clip_lib(&sc, &r), want);
    }
    // One rect per polyline.
    let rects: Vec<Rect<f32>> = (0..sc.count())
        .map(|j| {
            let a = (j % 7) as f32 / 8.0;
            Rect::new(a, a / 2.0, a + 0.5, a + 0.25).unwrap()
        })
        .collect();
    let want = clip_ref(&sc, |j| rects[j], false);
    let mut out = Parts::new();
    sc.lines()
        .clip_each(&rects, &with_points(), &mut out)
        .unwrap();
    assert_eq!(rows_of(&out), want);
}

// ---------------------------------------------------------------------------------------------
// MultiLineStrings.

#[test]
fn multi_polylines_carry_both_indices() {
    let mut rng = SplitMix64::new(11);
    let sc = scene::<f64>(&mut rng, &[0.0, 0.5, 1.0], 30, false);
    // Geometries of 0 to 4 polylines, sliced: polylines 2 .. 27 only.
    let mut geo = vec![2i32];
    while *geo.last().unwrap() < 27 {
        let next = (geo.last().unwrap() + rng.below(5) as i32).min(27);
        geo.push(next);
    }
    let lines = sc.lines();
    let multi = MultiPolylines::new(lines, &geo).unwrap();
    let rect = Rect::new(0.0, 0.0, 1.0, 1.0).unwrap();
    let mut out = Parts::new();
    multi.clip(&rect, &with_points(), &mut out);
    let (parts, points) = rows_of(&out);
    let (want_parts, want_points) = clip_ref(&sc, |_| rect, false);
    let geometry_of =
        |j: i64| (0..geo.len() - 1).find(|&g| (geo[g]..geo[g + 1]).contains(&(j as i32)));
    let keep = |rows: Vec<Row>| -> Vec<Row> {
        rows.into_iter()
            .filter_map(|r| {
                let g = geometry_of(r.polyline)?;
                Some(Row {
                    geometry: g as i64,
                    ..r
                })
            })
            .collect()
    };
    assert_eq!(parts, keep(want_parts));
    assert_eq!(points, keep(want_points));
    // One rect per geometry.
    let rects: Vec<Rect<f64>> = (0..geo.len() - 1)
        .map(|g| Rect::new(0.0, 0.0, 0.5 + g as f64 / 20.0, 1.0).unwrap())
        .collect();
    multi.clip_each(&rects, &with_points(), &mut out).unwrap();
    let (parts, _) = rows_of(&out);
    let want: Vec<Row> = (2..27)
        .flat_map(|j| {
            let g = geometry_of(j).unwrap();
            let (p, _) = clip_ref(&sc, |_| rects[g], false);
            p.into_iter()
                .filter(move |r| r.polyline == j)
                .map(move |r| Row {
                    geometry: g as i64,
                    ..r
                })
        })
        .collect();
    assert_eq!(parts, want);
    assert!(matches!(
        multi.clip_each(&rects[1..], &with_points(), &mut out),
        Err(Error::LengthMismatch { what: "rects", .. })
    ));
    // Bad geometry offsets name the geometry.
    for (bad, says) in [
        (vec![0i64, 3, 2], "geometry 1: geometry_offsets decrease"),
        (
            vec![0i64, 31],
            "geometry 0: geometry_offsets[1] = 31 is beyond",
        ),
        (vec![-1i64, 2], "geometry_offsets[0] = -1 is negative"),
    ] {
        let e = MultiPolylines::new(lines, &bad).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// (c) tiles: against the reference over every cell, watertight joints, buffers.

/// Unbuffered tiles against the per-cell reference. Cut vertices may differ only where the
/// library sealed a joint through a grid vertex: such a vertex is a grid vertex itself.
fn tiles_match_reference<F: Real>(g: &Grid<F>, sc: &Scene<F>, lines: Lines, what: &str) {
    let o = TileOptions {
        lines,
        points: true,
        buffer: None,
    };
    let got = tiles_lib(sc, g, &o);
    let (mut want, want_points) = tiles_ref(
        sc,
        g.nx(),
        g.ny(),
        |ix, iy| g.cell(ix, iy),
        |ix, iy, _, s| g.cell_clip(ix, iy, s),
    );
    if lines == Lines::HalfOpen {
        // The half-open rule is the grid's, tested in tests/suite/grid_pieces.rs: here only that
        // every part lies in its closed cell and the parts are a subset of the closed ones'.
        for row in &got.0 {
            let c = g.cell(row.cell.0 as usize, row.cell.1 as usize);
            check_vertices(sc, core::slice::from_ref(row), |_| c);
        }
        return;
    }
    assert_eq!(got.1, want_points, "{what}: points of contact");
    assert_eq!(got.0.len(), want.len(), "{what}: part count");
    for (a, b) in got.0.iter().zip(&mut want) {
        assert_eq!(
            (a.polyline, a.cell, a.bits.len()),
            (b.polyline, b.cell, b.bits.len()),
            "{what}"
        );
        for (va, vb) in a.bits.iter().zip(&b.bits) {
            assert!(
                va == vb || sealed(g, *va, *vb),
                "{what}: {a:?} against {b:?}: only a sealed joint moves a vertex, onto a grid vertex"
            );
        }
    }
    for row in &got.0 {
        let c = g.cell(row.cell.0 as usize, row.cell.1 as usize);
        check_vertices(sc, core::slice::from_ref(row), |_| c);
    }
}

/// Watertight: for every polyline that stays inside the grid, every part end that the clip
/// made is the start of another of its parts, and every made part start the end of one.
/// Returns how many made ends were checked, and the open joints found.
fn watertight<F: Real>(g: &Grid<F>, sc: &Scene<F>, what: &str) -> (usize, Vec<Open>) {
    let o = TileOptions {
        lines: Lines::Closed,
        points: false,
        buffer: None,
    };
    let (parts, _) = tiles_lib(sc, g, &o);
    let r = g.rect();
    let (mut checked, mut open) = (0, Vec::new());
    for j in 0..sc.count() {
        let (a, b) = (sc.offsets[j] as usize, sc.offsets[j + 1] as usize);
        let inside = (a..b).all(|i| {
            let (x, y) = sc.vertex(i);
            x > r.xmin() && x < r.xmax() && y > r.ymin() && y < r.ymax()
        });
        if !inside || b - a < 2 {
            continue;
        }
        let inputs: Vec<(u64, u64)> = (a..b)
            .map(|i| {
                let (x, y) = sc.vertex(i);
                bits(x, y)
            })
            .collect();
        // Whether the grid's own pieces of some segment leave a gap in t (a sliver dropped).
        let grid_gap = (a..b - 1).any(|i| {
            let pieces = g.segment_pieces(&sc.seg(i), &slabclip::GridOptions::default());
            let long: Vec<_> = pieces.iter().filter(|p| p.t_entry < p.t_exit).collect();
            long.windows(2).any(|w| w[0].t_exit != w[1].t_entry)
        });
        let mine: Vec<&Row> = parts.iter().filter(|p| p.polyline == j as i64).collect();
        let starts: Vec<(u64, u64)> = mine.iter().map(|p| p.bits[0]).collect();
        let ends: Vec<(u64, u64)> = mine.iter().map(|p| *p.bits.last().unwrap()).collect();
        for (made, other, kind) in [(&ends, &starts, "end"), (&starts, &ends, "start")] {
            for e in made.iter().filter(|e| !inputs.contains(e)) {
                checked += 1;
                if !other.contains(e) {
                    open.push(Open {
                        what: format!(
                            "{what}: polyline {j}: a made part {kind} {e:?} meets no part"
                        ),
                        ulps_from_vertex: ulps_from_vertex(g, *e),
                        grid_gap,
                    });
                }
            }
        }
    }
    (checked, open)
}

/// An open joint, and how far (in ulps, the larger of x and y) its vertex is from the
/// nearest grid vertex.
#[derive(Debug)]
struct Open {
    what: String,
    ulps_from_vertex: u64,
    /// The grid's pieces of one of the polyline's segments leave a gap in `t`.
    grid_gap: bool,
}

impl Open {
    fn say(&self) -> String {
        format!(
            "{} ({} ulps from a grid vertex, gap in the grid's pieces: {})",
            self.what, self.ulps_from_vertex, self.grid_gap
        )
    }
}

fn ulps_from_vertex<F: Real>(g: &Grid<F>, (bx, by): (u64, u64)) -> u64 {
    let nearest = |b: u64, lines: &[F]| {
        lines
            .iter()
            .map(|l| (l.to_bits_u64() as i64 - b as i64).unsigned_abs())
            .min()
            .unwrap()
    };
    nearest(bx, g.xs()).max(nearest(by, g.ys()))
}

/// Fails with the open joints, saying how many lie within 4 ulps of a grid vertex and how many
/// are on polylines whose grid pieces leave a gap in `t` (a sliver piece the grid dropped near
/// a vertex: SPEC §7 says it must be kept).
fn assert_watertight(checked: usize, open: &[Open]) {
    let near = open.iter().filter(|o| o.ulps_from_vertex <= 4).count();
    let gap = open.iter().filter(|o| o.grid_gap).count();
    assert!(
        open.is_empty(),
        "{} of {checked} made part ends meet no part ({near} within 4 ulps of a grid vertex; \
         {gap} on polylines whose grid pieces leave a gap in t); first: {:?}; first with no \
         gap in the grid's pieces: {:?}",
        open.len(),
        open.iter().take(3).map(Open::say).collect::<Vec<_>>(),
        open.iter()
            .filter(|o| !o.grid_gap)
            .take(3)
            .map(Open::say)
            .collect::<Vec<_>>()
    );
}

fn tile_scenes<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let grids = [
        grid::<F>(0.0, 1.0, 4, 4),
        grid::<F>(-1.0, 2.0, 3, 5),
        grid::<F>(0.0, 10.0, 7, 3),
    ];
    for k in 0..60 {
        let g = &grids[k % grids.len()];
        let sc = scene::<F>(&mut rng, &lines_of(g), 20, true);
        tiles_match_reference(g, &sc, Lines::Closed, &format!("scene {k}"));
        tiles_match_reference(g, &sc, Lines::HalfOpen, &format!("scene {k}"));
    }
}

#[test]
fn tiles_match_reference_f32() {
    tile_scenes::<f32>(21);
}

#[test]
fn tiles_match_reference_f64() {
    tile_scenes::<f64>(22);
}

/// Every polyline length from 2 to 140, at every start offset modulo 32 (the fast paths find
/// runs a window of 32 vertices at a time): walks that dwell in one cell for long stretches
/// (small steps, now and then onto a line or an ulp beside it), leave the grid and stay beyond
/// one outer edge or a corner, cross to other cells; ±0.0, rarely a NaN or ±∞ (also at window
/// edges). Against the reference with no buffer and with one, interleaved and separated, at
/// every SIMD level this CPU runs.
fn tile_windows<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let g = grid::<F>(0.0, 1.0, 4, 3);
    let (xs, ys) = (lines_of_axis(g.xs()), lines_of_axis(g.ys()));
    let (mut xy, mut offsets) = (Vec::new(), vec![0i64]);
    // A place to dwell: inside cell (i, j), or beyond the grid's edges (-1, 0, 1 per axis).
    let inside = |rng: &mut SplitMix64, l: &[f64], i: usize| -> F {
        let (a, b) = (l[i], l[i + 1]);
        match rng.below(40) {
            0 => near(fl(a), rng),
            1 => near(fl(b), rng),
            _ => fl(rng.range(a, b)),
        }
    };
    let beyond = |rng: &mut SplitMix64, l: &[f64], side: i64| -> F {
        let (lo, hi) = (l[0], l[l.len() - 1]);
        match side {
            -1 if rng.chance(0.05) => near(fl(lo), rng),
            -1 => fl(rng.range(lo - 1.0, lo)),
            1 if rng.chance(0.05) => near(fl(hi), rng),
            1 => fl(rng.range(hi, hi + 1.0)),
            _ => fl(rng.range(lo - 0.2, hi + 0.2)),
        }
    };
    for len in 2..=140 {
        let mut at: Option<(usize, usize)> = Some((0, 0));
        let mut side = (0i64, 0i64);
        for k in 0..len {
            if k == 0 || rng.chance(0.04) {
                if rng.chance(0.7) {
                    at = Some((rng.below(4) as usize, rng.below(3) as usize));
                } else {
                    at = None;
                    side = (rng.below(3) as i64 - 1, rng.below(3) as i64 - 1);
                    if side == (0, 0) {
                        side.0 = 1;
                    }
                }
            }
            let (mut x, y) = match at {
                Some((i, j)) => (inside(&mut rng, &xs, i), inside(&mut rng, &ys, j)),
                None => (beyond(&mut rng, &xs, side.0), beyond(&mut rng, &ys, side.1)),
            };
            if rng.chance(0.005) || (k % 31 == 0 && rng.chance(0.03)) {
                x = [F::NAN, F::INFINITY, -F::INFINITY, -F::ZERO][rng.below(4) as usize];
            }
            xy.extend_from_slice(&[x, y]);
        }
        offsets.push((xy.len() / 2) as i64);
    }
    let sc = Scene { xy, offsets };
    tiles_match_reference(&g, &sc, Lines::Closed, "windows");
    for b in [0.0, 0.02] {
        let b: F = fl(b);
        let cell = buffered_cell(&g, b);
        let o = TileOptions {
            lines: Lines::Closed,
            points: true,
            buffer: Some(b),
        };
        let want = tiles_ref(&sc, g.nx(), g.ny(), cell, clip_by_rect);
        assert!(want.0.len() > 1000, "{} parts", want.0.len());
        assert_eq!(tiles_lib(&sc, &g, &o), want, "windows, buffer {b}");
    }
}

fn lines_of_axis<F: Real>(v: &[F]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

#[test]
fn tile_windows_of_every_length_f32() {
    common::levels::each(|_| tile_windows::<f32>(73));
}

#[test]
fn tile_windows_of_every_length_f64() {
    common::levels::each(|_| tile_windows::<f64>(74));
}

/// Polylines through grid vertices and along lines, wholly inside the grid.
fn watertight_scenes<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let g = grid::<F>(0.0, 1.0, 10, 10);
    let lines: Vec<f64> = lines_of(&g)[1..10].to_vec();
    let (mut checked, mut open) = (0, Vec::new());
    for k in 0..200 {
        let mut sc = scene::<F>(&mut rng, &lines, 20, false);
        for v in sc.xy.iter_mut() {
            *v = fl(v.to_f64().clamp(0.01, 0.99));
        }
        let (c, o) = watertight(&g, &sc, &format!("scene {k}"));
        checked += c;
        open.extend(o);
    }
    assert!(checked > 1000, "{checked} joints");
    assert_watertight(checked, &open);
}

/// Polylines hopping through grid vertices in short steps: from a point in one of the four
/// cells around a vertex, straight through the vertex (as nearly as the type rounds it) to a
/// point in the cell across, and on to the next vertex: each segment meets at most four
/// cells, crossing both axes' lines at one point, where the cells clamp their cut points apart
/// unless the joint is sealed.
fn short_hops_through_vertices<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let g = grid::<F>(0.0, 1.0, 10, 10);
    let (mut xy, mut offsets) = (Vec::new(), vec![0i64]);
    for _ in 0..400 {
        let (mut k, mut m) = (1 + rng.below(9) as usize, 1 + rng.below(9) as usize);
        let mut p = (fl::<F>(0.0), fl::<F>(0.0));
        for step in 0..8 {
            let (vx, vy) = (g.xs()[k].to_f64(), g.ys()[m].to_f64());
            let (dx, dy) = (rng.range(0.005, 0.09), rng.range(0.005, 0.09));
            let (sx, sy) = (
                if rng.chance(0.5) { 1.0 } else { -1.0 },
                if rng.chance(0.5) { 1.0 } else { -1.0 },
            );
            let a = rng.range(0.1, 0.9);
            let start = (fl(vx - sx * a * dx), fl(vy - sy * a * dy));
            if step == 0 || p != start {
                xy.extend_from_slice(&[start.0, start.1]);
            }
            p = (fl(vx + sx * (1.0 - a) * dx), fl(vy + sy * (1.0 - a) * dy));
            xy.extend_from_slice(&[p.0, p.1]);
            k = (k as i64 + if sx > 0.0 { 1 } else { -1 }).clamp(1, 9) as usize;
            m = (m as i64 + if sy > 0.0 { 1 } else { -1 }).clamp(1, 9) as usize;
        }
        offsets.push((xy.len() / 2) as i64);
    }
    let sc = Scene { xy, offsets };
    let (checked, open) = watertight(&g, &sc, "short hops");
    assert!(checked > 1000, "{checked} joints");
    assert_watertight(checked, &open);
}

#[test]
fn short_hops_through_vertices_are_watertight_f32() {
    short_hops_through_vertices::<f32>(35);
}

#[test]
fn short_hops_through_vertices_are_watertight_f64() {
    short_hops_through_vertices::<f64>(36);
}

#[test]
fn tiles_are_watertight_f32() {
    watertight_scenes::<f32>(31);
}

#[test]
fn tiles_are_watertight_f64() {
    watertight_scenes::<f64>(32);
}

/// Diagonals through grid vertices: the cells beyond the vertex would clamp the cut vertex
/// into themselves an ulp or two apart (278 of 22,500 such joints in `f64` before the joints
/// were sealed); the sealed joint is the grid vertex in both.
#[test]
fn joints_through_grid_vertices_are_sealed() {
    let g = grid::<f64>(0.0, 1.0, 10, 10);
    let mut rng = SplitMix64::new(5);
    let mut xy = Vec::new();
    let mut offsets = vec![0i64];
    for _ in 0..2000 {
        let (k, m) = (1 + rng.below(8) as usize, 1 + rng.below(8) as usize);
        let (vx, vy) = (g.xs()[k], g.ys()[m]);
        let (dx, dy) = (rng.range(0.01, 0.05), rng.range(0.01, 0.05));
        let a = rng.range(0.1, 0.9);
        xy.extend_from_slice(&[
            vx - a * dx,
            vy - a * dy,
            vx + (1.0 - a) * dx,
            vy + (1.0 - a) * dy,
        ]);
        offsets.push((xy.len() / 2) as i64);
    }
    let sc = Scene { xy, offsets };
    let (checked, open) = watertight(&g, &sc, "diagonals");
    assert!(checked > 1000, "{checked} joints");
    assert_watertight(checked, &open);
}

// ---------------------------------------------------------------------------------------------
// The tiling's fast paths (a segment in one cell, beyond the grid, or along one row or column)
// against the grid's own walks and the reference over every cell.

/// The tiling from the grid's pieces alone (`Grid::segment_pieces`, which never takes the
/// polyline fast paths), with `Grid::piece_segment`'s ends, joined per (polyline, cell) in
/// plain loops. Joints through grid vertices are not sealed here: scenes compared with it have
/// no segment crossing both axes' lines at one point.
fn tiles_grid_ref<F: Real>(sc: &Scene<F>, g: &Grid<F>, lines: Lines) -> (Vec<Row>, Vec<Row>) {
    let o = GridOptions {
        lines,
        touches: true,
    };
    let (mut parts, mut points) = (Vec::new(), Vec::new());
    for j in 0..sc.count() {
        let (a, b) = (sc.offsets[j] as usize, sc.offsets[j + 1] as usize);
        let mut all: Vec<(usize, (i64, i64), Piece<F>)> = Vec::new();
        for i in a..b.saturating_sub(1).max(a) {
            let s = sc.seg(i);
            for p in g.segment_pieces(&s, &o) {
                let cell = p.iy as usize * g.nx() + p.ix as usize;
                all.push((
                    cell,
                    (p.ix as i64, p.iy as i64),
                    Piece {
                        seg: i,
                        t_entry: p.t_entry,
                        t_exit: p.t_exit,
                        s: g.piece_segment(&p, &s),
                    },
                ));
            }
        }
        all.sort_by_key(|&(cell, _, p)| (cell, p.seg));
        for group in all.chunk_by(|a, b| a.0 == b.0) {
            let pieces: Vec<Piece<F>> = group.iter().map(|&(_, _, p)| p).collect();
            join_ref(&pieces, (j as i64, -1, group[0].1), &mut parts, &mut points);
        }
    }
    (parts, points)
}

/// Polylines of axis-parallel segments (and a few in one cell or crossing it) whose
/// coordinates are grid lines, a few ulps off them, ±0.0, inside cells or beyond the grid.
fn axis_scene<F: Real>(rng: &mut SplitMix64, g: &Grid<F>, n_lines: usize) -> Scene<F> {
    let (xs, ys) = (g.xs().to_vec(), g.ys().to_vec());
    let pick = |rng: &mut SplitMix64, lines: &[F]| -> F {
        let n = lines.len();
        let (lo, hi) = (lines[0].to_f64(), lines[n - 1].to_f64());
        match rng.below(6) {
            0 => lines[rng.below(n as u64) as usize],
            1 => near(lines[rng.below(n as u64) as usize], rng),
            2 => [F::ZERO, -F::ZERO][rng.below(2) as usize],
            3 => fl(lo - (hi - lo) * rng.range(0.0, 0.3)),
            4 => fl(hi + (hi - lo) * rng.range(0.0, 0.3)),
            _ => fl(lo + (hi - lo) * rng.range(0.0, 1.0)),
        }
    };
    let mut xy = Vec::new();
    let mut offsets = vec![0i64];
    for _ in 0..n_lines {
        let k = 2 + rng.below(10) as usize;
        let (mut x, mut y) = (pick(rng, &xs), pick(rng, &ys));
        for _ in 0..k {
            xy.extend_from_slice(&[x, y]);
            match rng.below(10) {
                0 => {}
                1 => (x, y) = (pick(rng, &xs), pick(rng, &ys)),
                2..=5 => x = pick(rng, &xs),
                _ => y = pick(rng, &ys),
            }
            if rng.chance(0.1) {
                // The same row or column with the other sign of zero's difference.
                x = if x == F::ZERO { -x } else { x };
            }
        }
        offsets.push((xy.len() / 2) as i64);
    }
    Scene { xy, offsets }
}

/// `got` is `want` but for sealed joints: a vertex may differ only where `got` has it on a
/// grid vertex (the joint through a grid vertex that the library seals and the plain
/// reference does not).
fn same_but_sealed<F: Real>(
    g: &Grid<F>,
    got: &(Vec<Row>, Vec<Row>),
    want: &(Vec<Row>, Vec<Row>),
    what: &str,
) {
    assert_eq!(got.1, want.1, "{what}: points of contact");
    assert_eq!(got.0.len(), want.0.len(), "{what}: part count");
    for (a, b) in got.0.iter().zip(&want.0) {
        assert_eq!(
            (a.polyline, a.cell, a.bits.len()),
            (b.polyline, b.cell, b.bits.len()),
            "{what}"
        );
        for (va, vb) in a.bits.iter().zip(&b.bits) {
            assert!(
                va == vb || sealed(g, *va, *vb),
                "{what}: {a:?} against {b:?}"
            );
        }
    }
}

fn axis_parallel_tiles<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let grids: Vec<Grid<F>> = [
        (0.0, 1.0, 4, 4),
        (-1.0, 1.0, 3, 5), // 0 inside a row and a column: ±0.0 strictly in a cell
        (-1.0, 2.0, 8, 8), // 0 on a line
        (-0.5, 1.5, 1000, 7), // narrow columns, long crossings
        (1.0e-30, 3.0e-30, 5, 6),
        (-1.0e30, 1.0e30, 6, 3),
        (-1.0e300, 1.0e300, 4, 4), // beyond f32: infinite bounds, an error, skipped there
        (1.0e6, 1.0e6 + 1.0, 3, 3), // cells a few ulps of f32 wide
    ]
    .iter()
    .filter_map(|&(lo, hi, nx, ny)| {
        let r = Rect::new(fl::<F>(lo), fl(lo), fl(hi), fl(hi)).ok()?;
        Grid::new(r, nx, ny).ok()
    })
    .collect();
    assert!(grids.len() >= 6);
    let mut compared = 0;
    for k in 0..240 {
        let g = &grids[k % grids.len()];
        let sc = axis_scene::<F>(&mut rng, g, 12);
        for lines in [Lines::Closed, Lines::HalfOpen] {
            let o = TileOptions {
                lines,
                points: true,
                buffer: None,
            };
            let (got, want) = (tiles_lib(&sc, g, &o), tiles_grid_ref(&sc, g, lines));
            let what = format!(
                "scene {k}, {lines:?}, grid {:?} {}x{}",
                g.rect(),
                g.nx(),
                g.ny()
            );
            same_but_sealed(g, &got, &want, &what);
            compared += sc.count();
        }
        if g.nx() * g.ny() <= 64 {
            tiles_match_reference(g, &sc, Lines::Closed, &format!("axis scene {k}"));
        }
    }
    assert!(compared > 4000);
}

#[test]
fn axis_parallel_tiles_match_the_grid_and_the_reference_f32() {
    axis_parallel_tiles::<f32>(61);
}

#[test]
fn axis_parallel_tiles_match_the_grid_and_the_reference_f64() {
    axis_parallel_tiles::<f64>(62);
}

/// Road-like polylines (the benches' data: 30 % axis-parallel, vertices snapped onto the lines
/// 0 and 1) tiled into 8 × 8 and 200 × 200 cells: the fast paths take most segments here; the
/// answer is the grid walks' one.
#[test]
fn road_like_tiles_match_the_grid() {
    let w = slabclip::workload::Dist::RoadLike.generate::<f32>(20_000, 9);
    let s = &w.segments;
    let (mut xy, mut offsets) = (Vec::new(), vec![0i64]);
    for i in (0..s.len() - 50).step_by(49) {
        let first = s.segment(i);
        xy.extend_from_slice(&[first.x0, first.y0]);
        for k in i..i + 49 {
            let seg = s.segment(k);
            xy.extend_from_slice(&[seg.x1, seg.y1]);
        }
        offsets.push((xy.len() / 2) as i64);
    }
    let sc = Scene { xy, offsets };
    for (nx, ny) in [(8, 8), (200, 200)] {
        let g = Grid::new(Rect::new(-0.5f32, -0.5, 1.5, 1.5).unwrap(), nx, ny).unwrap();
        let o = TileOptions {
            points: true,
            ..TileOptions::default()
        };
        let (got, want) = (
            tiles_lib(&sc, &g, &o),
            tiles_grid_ref(&sc, &g, Lines::Closed),
        );
        same_but_sealed(&g, &got, &want, &format!("{nx} x {ny}"));
        assert!(got.0.len() > 1000, "{} parts", got.0.len());
    }
}

/// Buffered tiles against the reference over every buffered cell, bit for bit.
/// Cell `(ix, iy)` of `g` grown by `b` on every side (each bound one operation in `F`).
fn buffered_cell<F: Real>(g: &Grid<F>, b: F) -> impl Fn(usize, usize) -> Rect<F> + '_ {
    move |ix, iy| {
        Rect::new(
            g.xs()[ix] - b,
            g.ys()[iy] - b,
            g.xs()[ix + 1] + b,
            g.ys()[iy + 1] + b,
        )
        .unwrap()
    }
}

fn buffered_scenes<F: Real>(seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let g = grid::<F>(0.0, 1.0, 5, 4);
    for k in 0..80 {
        let b: F = match k % 4 {
            0 => F::ZERO,
            1 => fl(0.01),
            2 => fl(0.1),
            _ => fl(0.3),
        };
        let cell = buffered_cell(&g, b);
        let mut lines = lines_of(&g);
        lines.extend(lines_of(&g).iter().map(|v| v + b.to_f64()));
        lines.extend(lines_of(&g).iter().map(|v| v - b.to_f64()));
        let sc = scene::<F>(&mut rng, &lines, 15, true);
        let o = TileOptions {
            lines: Lines::Closed,
            points: true,
            buffer: Some(b),
        };
        let want = tiles_ref(&sc, g.nx(), g.ny(), cell, clip_by_rect);
        assert_eq!(tiles_lib(&sc, &g, &o), want, "scene {k}, buffer {b}");
    }
}

#[test]
fn buffered_tiles_match_every_buffered_cell_f32() {
    buffered_scenes::<f32>(41);
}

#[test]
fn buffered_tiles_match_every_buffered_cell_f64() {
    buffered_scenes::<f64>(42);
}

#[test]
fn bad_tile_options_are_errors() {
    let sc = Scene::<f64> {
        xy: vec![0.0, 0.0, 1.0, 1.0],
        offsets: vec![0, 2],
    };
    let g = grid::<f64>(0.0, 1.0, 2, 2);
    let mut out = Parts::new();
    for (b, lines, says) in [
        (-1.0, Lines::Closed, "buffer = -1"),
        (f64::NAN, Lines::Closed, "buffer = NaN"),
        (f64::INFINITY, Lines::Closed, "buffer = inf"),
        (0.1, Lines::HalfOpen, "half-open"),
    ] {
        let o = TileOptions {
            lines,
            points: false,
            buffer: Some(b),
        };
        let e = sc.lines().tiles(&g, &o, &mut out).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// (d) threads.

#[test]
fn same_answers_at_one_two_three_threads() {
    let mut rng = SplitMix64::new(51);
    let g = grid::<f32>(0.0, 1.0, 8, 8);
    let sc = scene::<f32>(&mut rng, &lines_of(&g), 6000, true);
    assert!(sc.xy.len() / 2 > 4 * slabclip::polyline::BLOCK_VERTICES);
    let rect = Rect::new(0.25f32, 0.25, 0.75, 0.75).unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut a, mut b, mut c) = (Parts::new(), Parts::new(), Parts::new());
            sc.lines().clip(&rect, &with_points(), &mut a);
            let o = TileOptions {
                points: true,
                ..TileOptions::default()
            };
            sc.lines().tiles(&g, &o, &mut b).unwrap();
            let o = TileOptions {
                buffer: Some(0.05),
                ..o
            };
            sc.lines().tiles(&g, &o, &mut c).unwrap();
            (a, b, c)
        })
    };
    let one = run(1);
    assert_eq!(rows_of(&one.0), clip_ref(&sc, |_| rect, false));
    for t in [2, 3] {
        assert!(run(t) == one, "{t} threads");
    }
}

// ---------------------------------------------------------------------------------------------
// (e) the named table.

type P = (f64, f64);

/// A case: name, polylines (vertex lists), rect, expected parts (polyline, vertices) and
/// points, for one direction; `reversible` when the answer reversed is the reversed input's.
struct Case {
    name: &'static str,
    lines: Vec<Vec<P>>,
    rect: [f64; 4],
    parts: Vec<(i64, Vec<P>)>,
    points: Vec<(i64, P)>,
    reversible: bool,
}

fn scene_of<F: Real>(lines: &[Vec<P>]) -> Scene<F> {
    let mut xy = Vec::new();
    let mut offsets = vec![0i64];
    for l in lines {
        for &(x, y) in l {
            xy.extend_from_slice(&[fl::<F>(x), fl(y)]);
        }
        offsets.push((xy.len() / 2) as i64);
    }
    Scene { xy, offsets }
}

fn rows_want<F: Real>(parts: &[(i64, Vec<P>)], points: &[(i64, P)]) -> (Vec<Row>, Vec<Row>) {
    let row = |j: i64, v: &[P]| Row {
        polyline: j,
        geometry: -1,
        cell: (-1, -1),
        bits: v
            .iter()
            .map(|&(x, y)| bits(fl::<F>(x), fl::<F>(y)))
            .collect(),
    };
    (
        parts.iter().map(|(j, v)| row(*j, v)).collect(),
        points.iter().map(|(j, p)| row(*j, &[*p])).collect(),
    )
}

fn table() -> Vec<Case> {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let unit = [0.0, 0.0, 1.0, 1.0];
    vec![
        Case {
            name: "inside, copied whole",
            lines: vec![vec![(0.25, 0.25), (0.5, 0.75), (0.75, 0.25)]],
            rect: unit,
            parts: vec![(0, vec![(0.25, 0.25), (0.5, 0.75), (0.75, 0.25)])],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "crosses, cut on both edges",
            lines: vec![vec![(-1.0, 0.5), (0.5, 0.5), (2.0, 0.5)]],
            rect: unit,
            parts: vec![(0, vec![(0.0, 0.5), (0.5, 0.5), (1.0, 0.5)])],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "along an edge (the rect is closed)",
            lines: vec![vec![(-1.0, 0.0), (0.5, 0.0), (2.0, 0.0)]],
            rect: unit,
            parts: vec![(0, vec![(0.0, 0.0), (0.5, 0.0), (1.0, 0.0)])],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "through a corner: a point of contact",
            lines: vec![vec![(-1.0, 1.0), (1.0, -1.0)]],
            rect: unit,
            parts: vec![],
            points: vec![(0, (0.0, 0.0))],
            reversible: true,
        },
        Case {
            name: "touching a corner at a vertex",
            lines: vec![vec![(-1.0, 0.5), (0.0, 0.0), (-1.0, -0.5)]],
            rect: unit,
            parts: vec![],
            points: vec![(0, (0.0, 0.0))],
            reversible: true,
        },
        Case {
            name: "touching an edge at a vertex, then back in: two parts",
            lines: vec![vec![
                (0.5, 0.5),
                (1.0, 0.5),
                (1.5, 0.5),
                (1.0, 0.75),
                (0.5, 0.75),
            ]],
            rect: unit,
            parts: vec![
                (0, vec![(0.5, 0.5), (1.0, 0.5)]),
                (0, vec![(1.0, 0.75), (0.5, 0.75)]),
            ],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "a touch at a vertex joins: the part starts at the vertex, doubled by nothing",
            lines: vec![vec![(-1.0, -1.0), (0.0, 0.0), (0.5, 0.5)]],
            rect: unit,
            parts: vec![(0, vec![(0.0, 0.0), (0.5, 0.5)])],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "closed ring: not joined across V0",
            lines: vec![vec![
                (0.5, 0.5),
                (2.0, 0.5),
                (2.0, 0.75),
                (0.5, 0.75),
                (0.5, 0.5),
            ]],
            rect: unit,
            parts: vec![
                (0, vec![(0.5, 0.5), (1.0, 0.5)]),
                (0, vec![(1.0, 0.75), (0.5, 0.75), (0.5, 0.5)]),
            ],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "repeated vertices are kept",
            lines: vec![vec![(0.25, 0.25), (0.25, 0.25), (0.75, 0.25), (2.0, 0.25)]],
            rect: unit,
            parts: vec![(
                0,
                vec![(0.25, 0.25), (0.25, 0.25), (0.75, 0.25), (1.0, 0.25)],
            )],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "zero-length segments alone: a point of contact, inside or on the boundary",
            lines: vec![
                vec![(0.5, 0.5), (0.5, 0.5)],
                vec![(1.0, 0.5), (1.0, 0.5), (1.0, 0.5)],
                vec![(2.0, 0.5), (2.0, 0.5)],
            ],
            rect: unit,
            parts: vec![],
            points: vec![(0, (0.5, 0.5)), (1, (1.0, 0.5))],
            reversible: true,
        },
        Case {
            name: "empty polylines clip to nothing",
            lines: vec![vec![], vec![(0.25, 0.25), (0.5, 0.5)], vec![]],
            rect: unit,
            parts: vec![(1, vec![(0.25, 0.25), (0.5, 0.5)])],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "a NaN vertex breaks the runs on both its sides",
            lines: vec![vec![
                (0.25, 0.25),
                (0.5, 0.5),
                (nan, 0.5),
                (0.75, 0.75),
                (0.5, 0.75),
            ]],
            rect: unit,
            parts: vec![
                (0, vec![(0.25, 0.25), (0.5, 0.5)]),
                (0, vec![(0.75, 0.75), (0.5, 0.75)]),
            ],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "±inf vertices break runs too",
            lines: vec![
                vec![
                    (0.25, 0.25),
                    (0.5, 0.5),
                    (inf, 0.5),
                    (0.75, 0.75),
                    (0.5, 0.75),
                ],
                vec![(0.25, 0.25), (0.5, -inf), (0.75, 0.75), (0.5, 0.75)],
            ],
            rect: unit,
            parts: vec![
                (0, vec![(0.25, 0.25), (0.5, 0.5)]),
                (0, vec![(0.75, 0.75), (0.5, 0.75)]),
                (1, vec![(0.75, 0.75), (0.5, 0.75)]),
            ],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "NaN everywhere: nothing",
            lines: vec![vec![(nan, nan), (nan, nan), (0.5, nan)]],
            rect: unit,
            parts: vec![],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "huge coordinates, differences that overflow",
            lines: vec![vec![(-1.7e308, 0.0), (1.7e308, 0.0)]],
            rect: [-1e300, -1.0, 1e300, 1.0],
            parts: vec![(0, vec![(-1e300, 0.0), (1e300, 0.0)])],
            points: vec![],
            reversible: true,
        },
        Case {
            name: "tiny coordinates",
            lines: vec![vec![(-1e-300, 5e-301), (2e-300, 5e-301), (2e-300, 2e-300)]],
            rect: [0.0, 0.0, 1e-300, 1e-300],
            parts: vec![(0, vec![(0.0, 5e-301), (1e-300, 5e-301)])],
            points: vec![],
            reversible: true,
        },
    ]
}

/// The table's cases in `F`; those beyond `f32`'s range (huge, tiny) in `f64` only.
fn run_table<F: Real>() {
    for case in table() {
        let beyond_f32 = case
            .lines
            .iter()
            .flatten()
            .any(|p| p.0.abs() > 1e38 || (p.0 != 0.0 && p.0.abs() < 1e-37));
        if beyond_f32 && core::mem::size_of::<F>() == 4 {
            continue;
        }
        let r = case.rect.map(fl::<F>);
        let rect = Rect::new(r[0], r[1], r[2], r[3]).unwrap();
        let sc = scene_of::<F>(&case.lines);
        let want = rows_want::<F>(&case.parts, &case.points);
        assert_eq!(clip_lib(&sc, &rect), want, "{}", case.name);
        assert_eq!(
            clip_ref(&sc, |_| rect, true),
            want,
            "{} (reference)",
            case.name
        );
        if case.reversible {
            let rev: Vec<Vec<P>> = case
                .lines
                .iter()
                .map(|l| l.iter().rev().copied().collect())
                .collect();
            let mut parts: Vec<(i64, Vec<P>)> = Vec::new();
            for j in 0..case.lines.len() as i64 {
                let mut mine: Vec<(i64, Vec<P>)> = case
                    .parts
                    .iter()
                    .filter(|p| p.0 == j)
                    .map(|(j, v)| (*j, v.iter().rev().copied().collect()))
                    .collect();
                mine.reverse();
                parts.extend(mine);
            }
            let mut points: Vec<(i64, P)> = Vec::new();
            for j in 0..case.lines.len() as i64 {
                let mut mine: Vec<(i64, P)> =
                    case.points.iter().filter(|p| p.0 == j).copied().collect();
                mine.reverse();
                points.extend(mine);
            }
            let sc = scene_of::<F>(&rev);
            assert_eq!(
                clip_lib(&sc, &rect),
                rows_want::<F>(&parts, &points),
                "{} reversed",
                case.name
            );
        }
    }
}

#[test]
fn named_cases_f64() {
    run_table::<f64>();
}

#[test]
fn named_cases_f32() {
    run_table::<f32>();
    // f32's own extremes.
    let rect = Rect::new(-1e38f32, -1.0, 1e38, 1.0).unwrap();
    for line in [
        vec![(-3e38, 0.0), (3e38, 0.0)],
        vec![(3e38, 0.0), (-3e38, 0.0)],
    ] {
        let sc = scene_of::<f32>(core::slice::from_ref(&line));
        let x = if line[0].0 < 0.0 {
            [-1e38, 1e38]
        } else {
            [1e38, -1e38]
        };
        let want = rows_want::<f32>(&[(0, vec![(x[0], 0.0), (x[1], 0.0)])], &[]);
        assert_eq!(clip_lib(&sc, &rect), want);
    }
    let rect = Rect::new(0.0f32, 0.0, 1e-38, 1e-38).unwrap();
    let sc = scene_of::<f32>(&[vec![(-1e-38, 5e-39), (2e-38, 5e-39)]]);
    let want = rows_want::<f32>(&[(0, vec![(0.0, 5e-39), (1e-38, 5e-39)])], &[]);
    assert_eq!(clip_lib(&sc, &rect), want);
}

#[test]
fn bad_offsets_name_the_polyline() {
    let xy = [0.0f64, 0.0, 1.0, 1.0, 2.0, 2.0];
    let cases: [(&[i64], &str); 6] = [
        (
            &[0, 3, 2],
            "polyline 1: offsets decrease (offsets[1] = 3, offsets[2] = 2)",
        ),
        (&[0, 2, 5], "polyline 1: offsets[2] = 5 is beyond the 3"),
        (&[-1, 2], "offsets[0] = -1 is negative"),
        (&[0, 2, -1], "polyline 1: offsets[2] = -1 is negative"),
        (&[0, 1, 3], "polyline 0 has a single vertex (vertex 0)"),
        (&[], "offsets: no values"),
    ];
    for (o, says) in cases {
        let e = Polylines::interleaved(&xy, o).unwrap_err().to_string();
        assert!(e.contains(says), "{o:?}: {e}");
        let o32: Vec<i32> = o.iter().map(|&v| v as i32).collect();
        let e = Polylines::interleaved(&xy, &o32).unwrap_err().to_string();
        assert!(e.contains(says), "{o:?} (i32): {e}");
    }
    // A slice: first offset above 0, last below V.
    let p = Polylines::interleaved(&xy, &[1i32, 3]).unwrap();
    assert_eq!(p.len(), 1);
    assert!(Polylines::interleaved(&xy[..5], &[0i64, 2]).is_err());
    assert!(matches!(
        Polylines::separated(&xy[..3], &xy[..2], &[0i64, 2]),
        Err(Error::LengthMismatch { what: "y", .. })
    ));
    assert!(Polylines::new(Coords::Interleaved(&xy), &[0i64])
        .unwrap()
        .is_empty());
}

/// Tiles of a 2 × 2 grid over [0, 2]², hand-written.
#[test]
fn named_tile_cases() {
    let g = grid::<f64>(0.0, 2.0, 2, 2);
    let cell = |ix: i64, iy: i64, v: Vec<P>| Row {
        polyline: 0,
        geometry: -1,
        cell: (ix, iy),
        bits: v.iter().map(|&(x, y)| bits(x, y)).collect(),
    };
    let run = |line: Vec<P>, lines: Lines| {
        let sc = scene_of::<f64>(&[line]);
        let o = TileOptions {
            lines,
            points: true,
            buffer: None,
        };
        tiles_lib(&sc, &g, &o)
    };
    // Along the tile line x = 1: both columns when closed, the right one when half-open.
    let along = vec![(1.0, 0.5), (1.0, 1.5)];
    let low = vec![(1.0, 0.5), (1.0, 1.0)];
    let high = vec![(1.0, 1.0), (1.0, 1.5)];
    assert_eq!(
        run(along.clone(), Lines::Closed).0,
        vec![
            cell(0, 0, low.clone()),
            cell(1, 0, low.clone()),
            cell(0, 1, high.clone()),
            cell(1, 1, high.clone())
        ]
    );
    assert_eq!(
        run(along, Lines::HalfOpen).0,
        vec![cell(1, 0, low), cell(1, 1, high)]
    );
    // Along the grid's edge y = 0.
    assert_eq!(
        run(vec![(0.5, 0.0), (1.5, 0.0)], Lines::Closed).0,
        vec![
            cell(0, 0, vec![(0.5, 0.0), (1.0, 0.0)]),
            cell(1, 0, vec![(1.0, 0.0), (1.5, 0.0)])
        ]
    );
    // Through the tile corner (1, 1): parts in the two cells it crosses, points in the two
    // it touches.
    let (parts, points) = run(vec![(0.5, 0.5), (1.5, 1.5)], Lines::Closed);
    assert_eq!(
        parts,
        vec![
            cell(0, 0, vec![(0.5, 0.5), (1.0, 1.0)]),
            cell(1, 1, vec![(1.0, 1.0), (1.5, 1.5)])
        ]
    );
    assert_eq!(
        points,
        vec![cell(1, 0, vec![(1.0, 1.0)]), cell(0, 1, vec![(1.0, 1.0)])]
    );
    // Zigzag across x = 1, eight times, dyadic values so that every cut is exact: the cut of
    // segment k is at t = 1/2, (1, y_k + 1/32).
    let y = |k: usize| 0.0625 + 0.0625 * k as f64;
    let zig: Vec<P> = (0..9)
        .map(|k| (if k % 2 == 0 { 0.5 } else { 1.5 }, y(k)))
        .collect();
    let cut = |k: usize| (1.0, y(k) + 0.03125);
    let mut want = vec![cell(0, 0, vec![zig[0], cut(0)])];
    for k in [1, 3, 5] {
        want.push(cell(0, 0, vec![cut(k), zig[k + 1], cut(k + 1)]));
    }
    want.push(cell(0, 0, vec![cut(7), zig[8]]));
    for k in [0, 2, 4, 6] {
        want.push(cell(1, 0, vec![cut(k), zig[k + 1], cut(k + 1)]));
    }
    assert_eq!(run(zig.clone(), Lines::Closed).0, want);
    assert_eq!(run(zig, Lines::HalfOpen).0, want);
}

// ---------------------------------------------------------------------------------------------
// (f) proptest.

fn arb_scene<F: Real>(lines: &'static [f64]) -> impl Strategy<Value = Scene<F>> {
    any::<u64>().prop_map(move |seed| {
        let mut rng = SplitMix64::new(seed);
        scene::<F>(&mut rng, lines, 12, true)
    })
}

const LINES: &[f64] = &[0.0, 0.25, 0.5, 0.75, 1.0];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn prop_clip_f32(sc in arb_scene::<f32>(LINES), r in 0usize..3) {
        let rect = [
            Rect::new(0.0f32, 0.0, 1.0, 1.0).unwrap(),
            Rect::new(0.25f32, 0.5, 0.75, 0.5).unwrap(),
            Rect::new(0.25f32, 0.0, 0.5, 1.0).unwrap(),
        ][r];
        prop_assert_eq!(clip_lib(&sc, &rect), clip_ref(&sc, |_| rect, true));
    }

    #[test]
    fn prop_clip_f64(sc in arb_scene::<f64>(LINES), r in 0usize..3) {
        let rect = [
            Rect::new(0.0f64, 0.0, 1.0, 1.0).unwrap(),
            Rect::new(0.25f64, 0.5, 0.75, 0.5).unwrap(),
            Rect::new(0.25f64, 0.0, 0.5, 1.0).unwrap(),
        ][r];
        prop_assert_eq!(clip_lib(&sc, &rect), clip_ref(&sc, |_| rect, true));
    }

    #[test]
    fn prop_tiles_f32(sc in arb_scene::<f32>(LINES)) {
        let g = grid::<f32>(0.0, 1.0, 4, 4);
        tiles_match_reference(&g, &sc, Lines::Closed, "prop");
    }

    #[test]
    fn prop_tiles_f64(sc in arb_scene::<f64>(LINES)) {
        let g = grid::<f64>(0.0, 1.0, 4, 4);
        tiles_match_reference(&g, &sc, Lines::Closed, "prop");
    }

    #[test]
    fn prop_buffered_f32(sc in arb_scene::<f32>(LINES), b in 0.0f32..0.2) {
        let g = grid::<f32>(0.0, 1.0, 4, 4);
        let o = TileOptions { lines: Lines::Closed, points: true, buffer: Some(b) };
        let cell = |ix: usize, iy: usize| Rect::new(
            g.xs()[ix] - b, g.ys()[iy] - b, g.xs()[ix + 1] + b, g.ys()[iy + 1] + b).unwrap();
        prop_assert_eq!(tiles_lib(&sc, &g, &o), tiles_ref(&sc, 4, 4, cell, clip_by_rect));
    }

    #[test]
    fn prop_buffered_f64(sc in arb_scene::<f64>(LINES), b in 0.0f64..0.2) {
        let g = grid::<f64>(0.0, 1.0, 4, 4);
        let o = TileOptions { lines: Lines::Closed, points: true, buffer: Some(b) };
        let cell = |ix: usize, iy: usize| Rect::new(
            g.xs()[ix] - b, g.ys()[iy] - b, g.xs()[ix + 1] + b, g.ys()[iy + 1] + b).unwrap();
        prop_assert_eq!(tiles_lib(&sc, &g, &o), tiles_ref(&sc, 4, 4, cell, clip_by_rect));
    }
}
