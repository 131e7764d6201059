//! Writes the inputs and the library's own answers that `tests/test_capi.c` compares the C
//! interface with, byte for byte: `cargo run --release --example expected -- DIR`.
//!
//! Every input comes from the crate's seeded workloads (`slabclip::workload`), in `f32` and
//! `f64`, at batch lengths 1, 15, 17, 1000 and 65537 (not multiples of the SIMD width), with a
//! few NaN and infinite coordinates put in. Every answer is computed through the Rust API, by a
//! route other than the C wrapper's where the library has one (the grid's columns, the brute
//! force N × M list for the rect set, the plain closest-hit query for the scene). Each array is
//! one file `DIR/{f32,f64}_{n}_{name}.bin` of raw native-endian values.

use std::path::Path;

use slabclip::cast::{
    cast_polygon, cast_rect, cast_rects, cast_segments, InsideMode, PolygonCastOutput,
    RectCastOutput, SegmentsCastOutput,
};
use slabclip::workload::{Dist, SceneKind, SplitMix64};
use slabclip::{
    Algorithm, ClipOutput, ConvexPolygon, Grid, GridOptions, Lines, RaysRef, Real, Rect, RectSet,
    Scene, Segment, Segments, SegmentsRef, SightEnds,
};

/// The batch lengths of the C test (`LENGTHS` in `tests/test_capi.c`).
const LENGTHS: [usize; 5] = [1, 15, 17, 1000, 65537];

/// Walls of the scene queries.
const WALLS: usize = 200;

/// Rects of the rect set.
const SET_RECTS: usize = 300;

/// The convex polygon of the polygon queries: an octagon over the unit square.
const OCTAGON: [(f64, f64); 8] = [
    (0.25, -0.125),
    (0.75, -0.125),
    (1.125, 0.25),
    (1.125, 0.75),
    (0.75, 1.125),
    (0.25, 1.125),
    (-0.125, 0.75),
    (-0.125, 0.25),
];

struct Out<'a> {
    dir: &'a Path,
    prefix: String,
}

impl Out<'_> {
    fn put<T: bytemuck::Pod>(&self, name: &str, values: &[T]) {
        let path = self.dir.join(format!("{}_{name}.bin", self.prefix));
        std::fs::write(&path, bytemuck::cast_slice(values))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    fn columns<F: Real>(&self, name: &str, s: &Segments<F>) {
        let (x0, y0, x1, y1) = s.as_ref().columns();
        for (c, v) in ["x0", "y0", "x1", "y1"].into_iter().zip([x0, y0, x1, y1]) {
            self.put(&format!("{name}_{c}"), v);
        }
    }
}

/// `n` segments of `dist` with a NaN or an infinity in one segment of every 101.
fn segments<F: Real>(dist: Dist, n: usize, seed: u64) -> Segments<F> {
    let w = dist.generate::<F>(n, seed);
    let (x0, y0, x1, y1) = w.segments.as_ref().columns();
    let mut out = Segments::new();
    for i in 0..n {
        let mut s = Segment::new(x0[i], y0[i], x1[i], y1[i]);
        match i % 101 {
            50 => s.x1 = F::NAN,
            51 => s.y0 = F::INFINITY,
            _ => {}
        }
        out.push(s);
    }
    out
}

/// `count` valid rects of sides `lo` to `hi` around the unit square, as rows.
fn rects<F: Real>(count: usize, lo: f64, hi: f64, seed: u64) -> (Vec<Rect<F>>, Vec<F>) {
    let mut rng = SplitMix64::new(seed);
    let mut list = Vec::new();
    let mut rows = Vec::new();
    for _ in 0..count {
        let (x, y) = (rng.range(-0.2, 1.2), rng.range(-0.2, 1.2));
        let (w, h) = (rng.range(lo, hi), rng.range(lo, hi));
        let b = [x, y, x + w, y + h].map(F::from_f64);
        list.push(Rect::new(b[0], b[1], b[2], b[3]).expect("finite, min below max"));
        rows.extend(b);
    }
    (list, rows)
}

fn write<F: Real>(dir: &Path, n: usize) {
    let o = Out {
        dir,
        prefix: format!("f{}_{n}", 8 * core::mem::size_of::<F>()),
    };
    let mixed = segments::<F>(Dist::Mixed, n, 7);
    let segs = mixed.as_ref();
    let rect = Dist::Mixed.rect::<F>();
    o.columns("seg", &mixed);
    o.put(
        "rect",
        &[rect.xmin(), rect.ymin(), rect.xmax(), rect.ymax()],
    );

    // The clip against one rect, all outputs.
    let r = Algorithm::Auto.clip_to_vec(&rect, &segs, true);
    o.put("clip_t_entry", &r.t_entry);
    o.put("clip_t_exit", &r.t_exit);
    o.put("clip_class", &r.class);
    o.columns("clip", r.segments.as_ref().expect("asked for"));

    // Pairwise.
    let (pair_rects, pair_rows) = rects::<F>(n, 0.0, 0.8, 11);
    o.put("pw_rects", &pair_rows);
    let (mut te, mut tx, mut class) = (vec![F::ZERO; n], vec![F::ZERO; n], vec![0u8; n]);
    let mut clipped = Segments::nan(n);
    let mut out = ClipOutput {
        t_entry: Some(&mut te),
        t_exit: Some(&mut tx),
        class: Some(&mut class),
        segments: Some(clipped.as_mut()),
    };
    Algorithm::Auto
        .clip_pairwise(&pair_rects, &segs, &mut out)
        .expect("lengths agree");
    o.put("pw_t_entry", &te);
    o.put("pw_t_exit", &tx);
    o.put("pw_class", &class);
    o.columns("pw", &clipped);

    // Segments against a convex polygon.
    let vertices: Vec<(F, F)> = OCTAGON
        .iter()
        .map(|&(x, y)| (F::from_f64(x), F::from_f64(y)))
        .collect();
    let flat: Vec<F> = vertices.iter().flat_map(|&(x, y)| [x, y]).collect();
    o.put("poly", &flat);
    let poly = ConvexPolygon::new(&vertices).expect("a convex octagon");
    let mut clipped = Segments::nan(n);
    let mut out = ClipOutput {
        t_entry: Some(&mut te),
        t_exit: Some(&mut tx),
        class: Some(&mut class),
        segments: Some(clipped.as_mut()),
    };
    slabclip::cast::clip_polygon(&poly, &segs, &mut out).expect("lengths agree");
    o.put("cp_t_entry", &te);
    o.put("cp_t_exit", &tx);
    o.put("cp_class", &class);
    o.columns("cp", &clipped);

    // Grid pieces: closed cells with touches on the mixed segments, half-open cells without
    // touches on particle tracks.
    let tracks = segments::<F>(Dist::Tracks, n, 5);
    o.columns("tracks", &tracks);
    let grids = [
        ("ga", &mixed, 7, 5, GridOptions::default()),
        (
            "gb",
            &tracks,
            100,
            100,
            GridOptions {
                lines: Lines::HalfOpen,
                touches: false,
            },
        ),
    ];
    for (name, input, nx, ny, options) in grids {
        let grid = Grid::new(rect, nx, ny).expect("a valid grid");
        let c = grid.piece_columns(&input.as_ref(), &options);
        o.put(&format!("{name}_segment"), &c.segment);
        o.put(&format!("{name}_ix"), &c.ix);
        o.put(&format!("{name}_iy"), &c.iy);
        o.put(&format!("{name}_t_entry"), &c.t_entry);
        o.put(&format!("{name}_t_exit"), &c.t_exit);
        o.put(&format!("{name}_class"), &c.class);
        let mut pieces = Segments::new();
        for p in grid.pieces(&input.as_ref(), &options) {
            let s = input.as_ref();
            let (x0, y0, x1, y1) = s.columns();
            let k = p.segment;
            let seg = Segment::new(x0[k], y0[k], x1[k], y1[k]);
            pieces.push(grid.piece_segment(&p, &seg));
        }
        o.columns(&format!("{name}_piece"), &pieces);
    }

    // A rect set: the brute force's list, which the set gives bit for bit.
    let (set_rects, set_rows) = rects::<F>(SET_RECTS, 0.01, 0.08, 13);
    o.put("rs_rects", &set_rows);
    let hits = Algorithm::Auto.clip_grid(&set_rects, &segs);
    assert_eq!(
        hits,
        Algorithm::Auto.clip_rect_set(&RectSet::new(set_rects).expect("valid"), &segs)
    );
    let col = |f: &dyn Fn(&slabclip::Hit<F>) -> i64| hits.iter().map(f).collect::<Vec<_>>();
    o.put("rs_segment", &col(&|h| h.segment as i64));
    o.put("rs_rect", &col(&|h| h.rect as i64));
    o.put(
        "rs_t_entry",
        &hits.iter().map(|h| h.t_entry).collect::<Vec<_>>(),
    );
    o.put(
        "rs_t_exit",
        &hits.iter().map(|h| h.t_exit).collect::<Vec<_>>(),
    );
    o.put(
        "rs_class",
        &hits.iter().map(|h| h.class as u8).collect::<Vec<_>>(),
    );

    // Rays from the mixed segments: O = P0, D = P1 − P0 (zero-length segments make D = 0).
    let (x0, y0, x1, y1) = segs.columns();
    let dx: Vec<F> = x1.iter().zip(x0).map(|(&b, &a)| b - a).collect();
    let dy: Vec<F> = y1.iter().zip(y0).map(|(&b, &a)| b - a).collect();
    o.put("ray_dx", &dx);
    o.put("ray_dy", &dy);
    let rays = RaysRef::new(x0, y0, &dx, &dy).expect("equal lengths");
    let mut out = RectCastOutput {
        t_entry: Some(&mut te),
        t_exit: Some(&mut tx),
        class: Some(&mut class),
    };
    cast_rect(&rect, &rays, F::INFINITY, &mut out).expect("lengths agree");
    o.put("cr_t_entry", &te);
    o.put("cr_t_exit", &tx);
    o.put("cr_class", &class);
    let mut out = RectCastOutput {
        t_entry: Some(&mut te),
        t_exit: Some(&mut tx),
        class: Some(&mut class),
    };
    cast_rects(&pair_rects, &rays, F::from_f64(0.75), &mut out).expect("lengths agree");
    o.put("crs_t_entry", &te);
    o.put("crs_t_exit", &tx);
    o.put("crs_class", &class);
    for (name, mode) in [("po", InsideMode::Origin), ("px", InsideMode::Exit)] {
        let mut f: [Vec<F>; 5] = core::array::from_fn(|_| vec![F::ZERO; n]);
        let (mut edge, mut inside) = (vec![0u32; n], vec![0u8; n]);
        let [t, x, y, nx, ny] = f.each_mut().map(|v| Some(v.as_mut_slice()));
        let out = PolygonCastOutput {
            t,
            x,
            y,
            nx,
            ny,
            edge: Some(&mut edge),
            inside: Some(&mut inside),
        };
        cast_polygon(&poly, &rays, F::INFINITY, mode, out).expect("lengths agree");
        for (c, v) in ["t", "x", "y", "nx", "ny"].into_iter().zip(&f) {
            o.put(&format!("{name}_{c}"), v);
        }
        o.put(&format!("{name}_edge"), &edge);
        o.put(&format!("{name}_inside"), &inside);
    }

    // Scenes: city walls and rays among them; the plain closest-hit query's answers.
    let walls = SceneKind::City.walls::<F>(WALLS, 3);
    o.columns("wall", &walls);
    let scene_rays = SceneKind::City.rays::<F>(WALLS, n, 9);
    let sr = scene_rays.as_ref();
    let ray_cols: Vec<Vec<F>> = (0..4)
        .map(|c| {
            (0..n)
                .map(|i| {
                    let r = sr.ray(i);
                    [r.ox, r.oy, r.dx, r.dy][c]
                })
                .collect()
        })
        .collect();
    for (c, v) in ["ox", "oy", "dx", "dy"].into_iter().zip(&ray_cols) {
        o.put(&format!("sr_{c}"), v);
    }
    let t_max = F::from_f64(40.0);
    let mut f: [Vec<F>; 4] = core::array::from_fn(|_| vec![F::ZERO; n]);
    let mut index = vec![0u32; n];
    let [t, s, nx, ny] = f.each_mut().map(|v| Some(v.as_mut_slice()));
    let out = SegmentsCastOutput {
        t,
        s,
        index: Some(&mut index),
        nx,
        ny,
    };
    cast_segments(&sr, &walls.as_ref(), t_max, out).expect("lengths agree");
    for (c, v) in ["t", "s", "nx", "ny"].into_iter().zip(&f) {
        o.put(&format!("cs_{c}"), v);
    }
    o.put("cs_index", &index);
    let scene = Scene::new(&walls).expect("a small scene");
    let mut any = vec![false; n];
    scene.any_hit(&sr, t_max, &mut any).expect("lengths agree");
    o.put(
        "ah_hit",
        &any.iter().map(|&b| u8::from(b)).collect::<Vec<_>>(),
    );
    // Line of sight from each ray's origin to 8 units along it, the end point excluded.
    let bx: Vec<F> = (0..n)
        .map(|i| ray_cols[0][i] + F::from_f64(8.0) * ray_cols[2][i])
        .collect();
    let by: Vec<F> = (0..n)
        .map(|i| ray_cols[1][i] + F::from_f64(8.0) * ray_cols[3][i])
        .collect();
    o.put("los_bx", &bx);
    o.put("los_by", &by);
    let pairs = SegmentsRef::new(&ray_cols[0], &ray_cols[1], &bx, &by).expect("equal lengths");
    let mut sight = vec![0u8; n];
    let ends = SightEnds {
        exclude_a: false,
        exclude_b: true,
    };
    scene
        .line_of_sight(&pairs, ends, &mut sight)
        .expect("lengths agree");
    o.put("los_out", &sight);
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: expected DIR (the folder to write the files into)");
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).expect("create the output folder");
    for n in LENGTHS {
        write::<f32>(dir, n);
        write::<f64>(dir, n);
    }
    println!(
        "wrote the inputs and expected outputs of {} batch lengths × 2 types to {}",
        LENGTHS.len(),
        dir.display()
    );
}
