//! Seeded, reproducible workloads: the segment batches that tests, benches, `slabclip gen` and
//! `slabclip compare` share.
//!
//! A workload is a [`Dist`] (what kind of segments), a count and a seed; [`Dist::generate`]
//! returns the segments together with the rect they are meant for ([`Workload`]). Every
//! workload today is drawn around the unit square `[0, 1]²`, so `--rect 0,0,1,1` fits them all.
//!
//! | name | what | class mix (seed-independent, checked by tests) |
//! | --- | --- | --- |
//! | `mixed` | eight kinds in equal parts: anywhere, inside, beyond one side, crossing, an end on an edge, at a corner, axis-parallel, zero-length | every class but `Invalid` |
//! | `mostly-inside` | 90 % both ends in the rect, 10 % `mixed` | ≥ 80 % `Inside` |
//! | `mostly-outside` | 80 % both ends beyond one side, 10 % passing a corner outside (not trivially rejected by outcodes), 10 % `mixed` | ≥ 80 % `Outside` |
//! | `edge-grazing` | endpoints exactly on edges and corners, segments along edges, diagonals that only touch a corner, segments leaving from the boundary | every segment has an end on the boundary, lies on an edge line, or only touches |
//! | `axis-parallel` | horizontal or vertical, half of them exactly on an edge line | `dx == 0` or `dy == 0` everywhere |
//! | `random-walk` | [`WALKERS`] particles taking persistent random steps (about 0.02 long) in `[-1, 2]²`, reflected at its border; 2 % never move; one segment per particle per step, step-major (all particles' step 0, then step 1, …) | chained: segment `i + WALKERS` starts where `i` ends |
//! | `tracks` | particle tracks for a 1000 × 1000 grid over the unit square: 100 to 1000 persistent random steps each (about 0.004 long, so four cells), starting anywhere in `[-0.05, 1.05]²` and reflected at its border, so a few leave and re-enter the grid; track-major (each track's steps in a row) | chained within a track; ≥ 75 % have both ends in the unit square |
//! | `road-like` | polylines of 50 to 500 pieces 0.002 to 0.03 long, heading along an axis (30 % of pieces exactly, the rest within ±3°), turning by 90° now and then; half of the pieces that cross a tile border line (`x` or `y` equal to 0 or 1) end exactly on it, as tiled map data does | ≥ 80 % near-axis pieces; chained within a road |
//!
//! [`SceneKind`] makes walls (city blocks or random) and rays for the scene index. [`LineKind`]
//! makes whole polylines (roads, river systems) in the ragged layout of SPEC §7.
//!
//! **Reproducible.** The generator is [`SplitMix64`] seeded with the seed, and every coordinate
//! is computed in `f64` and rounded once to `F`: the same `(dist, n, seed)` gives the same bits on
//! every machine, and the `f32` workload is the `f64` one rounded to `f32`. A workload of `n`
//! segments is a prefix of the same workload of `m > n` segments, except `random-walk`, whose
//! step-major order depends on how many particles fit (`min(n, WALKERS)`).
//!
//! **Fast.** About 10–30 ns per segment on one core, so 16M segments take well under a second or
//! two (no threads: the order of random draws is part of the definition).

use crate::buffers::Segments;
use crate::error::Error;
use crate::geom::{Rect, Segment};
use crate::real::Real;

/// splitmix64 (Steele, Lea and Flood, 2014): a tiny, fast 64-bit generator, good enough for test
/// data and the same sequence on every machine. Not for cryptography.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, on the grid of 2⁻⁵³.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    #[inline]
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// An integer below `n` (`n > 0`; the tiny modulo bias does not matter here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// The kinds of workload; see the [module docs](self) for what each holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dist {
    /// Every kind of segment in equal parts: every class occurs.
    Mixed,
    /// Nine in ten segments lie wholly in the rect.
    MostlyInside,
    /// Nine in ten segments miss the rect.
    MostlyOutside,
    /// Endpoints exactly on edges and corners, segments along edges, corner grazes.
    EdgeGrazing,
    /// Horizontal and vertical segments, half of them on an edge line.
    AxisParallel,
    /// Consecutive steps of many particles, as a simulation produces.
    RandomWalk,
    /// Long near-axis polylines crossing tile borders, as map data does.
    RoadLike,
    /// Particle tracks across a 1000 × 1000 grid over the unit square (`slabclip::grid`).
    Tracks,
}

/// How many particles `random-walk` moves (fewer when `n` is smaller).
pub const WALKERS: usize = 1000;

impl Dist {
    /// Every workload, in the order reports list them.
    pub const ALL: [Dist; 8] = [
        Dist::Mixed,
        Dist::MostlyInside,
        Dist::MostlyOutside,
        Dist::EdgeGrazing,
        Dist::AxisParallel,
        Dist::RandomWalk,
        Dist::RoadLike,
        Dist::Tracks,
    ];

    /// The name used on the command line (`--dist`) and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Dist::Mixed => "mixed",
            Dist::MostlyInside => "mostly-inside",
            Dist::MostlyOutside => "mostly-outside",
            Dist::EdgeGrazing => "edge-grazing",
            Dist::AxisParallel => "axis-parallel",
            Dist::RandomWalk => "random-walk",
            Dist::RoadLike => "road-like",
            Dist::Tracks => "tracks",
        }
    }

    /// The workload called `name`, or an error listing the names there are.
    pub fn from_name(name: &str) -> Result<Dist, Error> {
        Dist::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = Dist::ALL.iter().map(|d| d.name()).collect();
                Error::UnknownWorkload(name.to_string(), names.join(", "))
            })
    }

    /// The rect this workload is drawn around: the unit square `[0, 1]²` for all of them.
    pub fn rect<F: Real>(self) -> Rect<F> {
        Rect::new(F::ZERO, F::ZERO, F::ONE, F::ONE).expect("the unit square is a valid rect")
    }

    /// `n` segments of this workload from `seed`, with the rect they are meant for.
    pub fn generate<F: Real>(self, n: usize, seed: u64) -> Workload<F> {
        let mut segments = Segments::nan(n);
        {
            let mut out = segments.as_mut();
            let mut rng = SplitMix64::new(seed);
            let mut put = |i: usize, [x0, y0, x1, y1]: [f64; 4]| {
                out.set(
                    i,
                    Segment::new(
                        F::from_f64(x0),
                        F::from_f64(y0),
                        F::from_f64(x1),
                        F::from_f64(y1),
                    ),
                )
            };
            match self {
                Dist::Mixed => (0..n).for_each(|i| put(i, mixed(&mut rng))),
                Dist::MostlyInside => (0..n).for_each(|i| put(i, mostly_inside(&mut rng))),
                Dist::MostlyOutside => (0..n).for_each(|i| put(i, mostly_outside(&mut rng))),
                Dist::EdgeGrazing => (0..n).for_each(|i| put(i, edge_grazing(&mut rng))),
                Dist::AxisParallel => (0..n).for_each(|i| put(i, axis_parallel(&mut rng))),
                Dist::RandomWalk => random_walk(&mut rng, n, &mut put),
                Dist::RoadLike => road_like(&mut rng, n, &mut put),
                Dist::Tracks => tracks(&mut rng, n, &mut put),
            }
        }
        Workload {
            dist: self,
            rect: self.rect(),
            segments,
        }
    }
}

impl core::str::FromStr for Dist {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Dist::from_name(s)
    }
}

impl core::fmt::Display for Dist {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A generated batch and the rect it is meant for.
#[derive(Clone, Debug)]
pub struct Workload<F> {
    /// What kind of segments.
    pub dist: Dist,
    /// The rect to clip them against.
    pub rect: Rect<F>,
    /// The segments.
    pub segments: Segments<F>,
}

// ---------------------------------------------------------------------------------------------
// The kinds of segment, around the unit square. Points are `[x, y]`, segments `[x0, y0, x1, y1]`.

type P = [f64; 2];

const CORNERS: [P; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];

fn seg(p: P, q: P) -> [f64; 4] {
    [p[0], p[1], q[0], q[1]]
}

/// Either direction, at random: no workload favours `P0` over `P1`.
fn either_way(rng: &mut SplitMix64, p: P, q: P) -> [f64; 4] {
    if rng.chance(0.5) {
        seg(p, q)
    } else {
        seg(q, p)
    }
}

/// Anywhere in `[-1, 2]²`: the rect and a margin as wide as the rect around it.
fn near(rng: &mut SplitMix64) -> P {
    [rng.range(-1.0, 2.0), rng.range(-1.0, 2.0)]
}

fn inside(rng: &mut SplitMix64) -> P {
    [rng.unit(), rng.unit()]
}

/// A point exactly on the boundary: one coordinate is exactly 0 or 1.
fn on_edge(rng: &mut SplitMix64) -> P {
    let t = rng.unit();
    match rng.below(4) {
        0 => [0.0, t],
        1 => [1.0, t],
        2 => [t, 0.0],
        _ => [t, 1.0],
    }
}

/// A point strictly beyond side `side` (0 left, 1 right, 2 below, 3 above), within `[-2, 3]²`.
fn beyond(rng: &mut SplitMix64, side: u64) -> P {
    let any = rng.range(-2.0, 3.0);
    match side {
        0 => [rng.range(-2.0, -0.001), any],
        1 => [rng.range(1.001, 3.0), any],
        2 => [any, rng.range(-2.0, -0.001)],
        _ => [any, rng.range(1.001, 3.0)],
    }
}

/// Both ends beyond the same side: a miss outcodes reject at once.
fn same_side_miss(rng: &mut SplitMix64) -> [f64; 4] {
    let side = rng.below(4);
    seg(beyond(rng, side), beyond(rng, side))
}

/// A miss that passes a corner outside, from the region beside the rect to the region above or
/// below it: the ends' outcodes share no side, so outcodes alone cannot reject it.
///
/// Around the corner `(0, 1)` the line `y = x + 1 + d` (`d > 0`) stays above the rect (whose
/// points all have `y − x ≤ 1`); the other corners are its mirror images.
fn corner_miss(rng: &mut SplitMix64) -> [f64; 4] {
    let d = rng.range(0.001, 0.5);
    let (a, b) = (rng.range(-2.0, -d - 0.001), rng.range(0.001, 1.0));
    let (p, q) = ([a, a + 1.0 + d], [b, b + 1.0 + d]);
    let mirror = rng.below(4);
    let m = |p: P| {
        [
            if mirror & 1 == 1 { 1.0 - p[0] } else { p[0] },
            if mirror & 2 == 2 { 1.0 - p[1] } else { p[1] },
        ]
    };
    either_way(rng, m(p), m(q))
}

/// A diagonal through a corner from outside to outside: it touches the rect in that point only.
/// Offsets are multiples of 1/16, exact in every precision.
fn corner_graze(rng: &mut SplitMix64) -> [f64; 4] {
    let c = CORNERS[rng.below(4) as usize];
    let d = (1 + rng.below(16)) as f64 / 16.0;
    let sx = if c[0] == 0.0 { -1.0 } else { 1.0 };
    let sy = if c[1] == 0.0 { -1.0 } else { 1.0 };
    either_way(
        rng,
        [c[0] + sx * d, c[1] - sy * d],
        [c[0] - sx * d, c[1] + sy * d],
    )
}

/// Horizontal or vertical; on an edge line (`x` or `y` exactly 0 or 1) half the time.
fn axis_parallel(rng: &mut SplitMix64) -> [f64; 4] {
    let level = if rng.chance(0.5) {
        rng.below(2) as f64
    } else {
        rng.range(-0.5, 1.5)
    };
    let (a, b) = (rng.range(-1.0, 2.0), rng.range(-1.0, 2.0));
    if rng.chance(0.5) {
        seg([a, level], [b, level])
    } else {
        seg([level, a], [level, b])
    }
}

fn mixed(rng: &mut SplitMix64) -> [f64; 4] {
    match rng.below(8) {
        0 => {
            let p = [rng.range(-0.5, 1.5), rng.range(-0.5, 1.5)];
            seg(p, [rng.range(-0.5, 1.5), rng.range(-0.5, 1.5)])
        }
        1 => seg(inside(rng), inside(rng)),
        2 => same_side_miss(rng),
        3 => {
            // Across the rect, left to right or bottom to top.
            let (a, b) = (rng.unit(), rng.unit());
            let (lo, hi) = (rng.range(-2.0, -0.001), rng.range(1.001, 3.0));
            if rng.chance(0.5) {
                either_way(rng, [lo, a], [hi, b])
            } else {
                either_way(rng, [a, lo], [b, hi])
            }
        }
        4 => {
            let (p, q) = (on_edge(rng), near(rng));
            either_way(rng, p, q)
        }
        5 => {
            if rng.chance(0.5) {
                let (c, q) = (CORNERS[rng.below(4) as usize], near(rng));
                either_way(rng, c, q)
            } else {
                corner_graze(rng)
            }
        }
        6 => axis_parallel(rng),
        _ => {
            let p = match rng.below(3) {
                0 => inside(rng),
                1 => on_edge(rng),
                _ => {
                    let side = rng.below(4);
                    beyond(rng, side)
                }
            };
            seg(p, p)
        }
    }
}

fn mostly_inside(rng: &mut SplitMix64) -> [f64; 4] {
    if rng.chance(0.9) {
        seg(inside(rng), inside(rng))
    } else {
        mixed(rng)
    }
}

fn mostly_outside(rng: &mut SplitMix64) -> [f64; 4] {
    match rng.below(10) {
        0..=7 => same_side_miss(rng),
        8 => corner_miss(rng),
        _ => mixed(rng),
    }
}

fn edge_grazing(rng: &mut SplitMix64) -> [f64; 4] {
    match rng.below(6) {
        // From the boundary to anywhere near.
        0 => {
            let (p, q) = (on_edge(rng), near(rng));
            either_way(rng, p, q)
        }
        // Boundary to boundary: along an edge when both land on the same one.
        1 => seg(on_edge(rng), on_edge(rng)),
        // Along an edge line, overlapping the edge or not.
        2 => {
            let level = rng.below(2) as f64;
            let (a, b) = (rng.range(-1.0, 2.0), rng.range(-1.0, 2.0));
            if rng.chance(0.5) {
                seg([a, level], [b, level])
            } else {
                seg([level, a], [level, b])
            }
        }
        // From a corner.
        3 => {
            let (c, q) = (CORNERS[rng.below(4) as usize], near(rng));
            either_way(rng, c, q)
        }
        // Touching a corner only.
        4 => corner_graze(rng),
        // From a point on an edge straight away from the rect: touches in that point only.
        _ => {
            let t = rng.unit();
            let (away, along) = (rng.range(0.001, 1.0), rng.range(-1.0, 1.0));
            let (p, q) = match rng.below(4) {
                0 => ([0.0, t], [-away, t + along]),
                1 => ([1.0, t], [1.0 + away, t + along]),
                2 => ([t, 0.0], [t + along, -away]),
                _ => ([t, 1.0], [t + along, 1.0 + away]),
            };
            either_way(rng, p, q)
        }
    }
}

/// `random-walk`: see the module docs. Velocities change a little every step (persistent
/// motion), positions reflect at the border of `[-1, 2]²`.
fn random_walk(rng: &mut SplitMix64, n: usize, put: &mut impl FnMut(usize, [f64; 4])) {
    const LO: f64 = -1.0;
    const HI: f64 = 2.0;
    let walkers = n.min(WALKERS);
    let mut pos: Vec<P> = (0..walkers)
        .map(|_| [rng.range(LO, HI), rng.range(LO, HI)])
        .collect();
    let mut vel: Vec<P> = (0..walkers)
        .map(|_| {
            if rng.chance(0.02) {
                [0.0, 0.0] // stuck: zero-length segments
            } else {
                [rng.range(-0.02, 0.02), rng.range(-0.02, 0.02)]
            }
        })
        .collect();
    let reflect = |x: &mut f64, v: &mut f64| {
        if *x < LO {
            *x = 2.0 * LO - *x;
            *v = -*v;
        } else if *x > HI {
            *x = 2.0 * HI - *x;
            *v = -*v;
        }
    };
    let mut i = 0;
    while i < n {
        for (p, v) in pos.iter_mut().zip(vel.iter_mut()).take(n - i) {
            if v[0] != 0.0 || v[1] != 0.0 {
                v[0] = (0.95 * v[0] + rng.range(-0.004, 0.004)).clamp(-0.03, 0.03);
                v[1] = (0.95 * v[1] + rng.range(-0.004, 0.004)).clamp(-0.03, 0.03);
            }
            let mut q = [p[0] + v[0], p[1] + v[1]];
            reflect(&mut q[0], &mut v[0]);
            reflect(&mut q[1], &mut v[1]);
            put(i, seg(*p, q));
            *p = q;
            i += 1;
        }
    }
}

/// `road-like`: see the module docs. Roads stay in `[-1, 2]²` (they turn back at its border).
fn road_like(rng: &mut SplitMix64, n: usize, put: &mut impl FnMut(usize, [f64; 4])) {
    roads(rng, n, put, |_| {});
}

/// The roads of `road-like`, `n` segments in all; `start(i)` is called before segment `i`
/// when it begins a new road.
fn roads(
    rng: &mut SplitMix64,
    n: usize,
    put: &mut impl FnMut(usize, [f64; 4]),
    mut start: impl FnMut(usize),
) {
    const LO: f64 = -1.0;
    const HI: f64 = 2.0;
    const DIRS: [P; 4] = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
    let mut i = 0;
    while i < n {
        let mut p = [rng.range(-0.5, 1.5), rng.range(-0.5, 1.5)];
        let mut dir = rng.below(4) as usize;
        let pieces = 50 + rng.below(451) as usize;
        start(i);
        for _ in 0..pieces.min(n - i) {
            if rng.chance(0.02) {
                dir = (dir + if rng.chance(0.5) { 1 } else { 3 }) % 4;
            }
            let len = rng.range(0.002, 0.03);
            // Within ±3° of the heading (tan 3° ≈ 0.052), or exactly on it.
            let side = if rng.chance(0.3) {
                0.0
            } else {
                len * rng.range(-0.052, 0.052)
            };
            let (d, perp) = (DIRS[dir], DIRS[(dir + 1) % 4]);
            let mut q = [
                p[0] + d[0] * len + perp[0] * side,
                p[1] + d[1] * len + perp[1] * side,
            ];
            if !(LO..=HI).contains(&q[0]) || !(LO..=HI).contains(&q[1]) {
                dir = (dir + 2) % 4;
                q = [p[0] - d[0] * len, p[1] - d[1] * len];
            }
            if rng.chance(0.5) {
                q = snap_to_border(p, q);
            }
            put(i, seg(p, q));
            p = q;
            i += 1;
        }
    }
}

/// `tracks`: see the module docs. Velocities change a little every step (no trigonometry, so the
/// same bits on every machine), positions reflect at the border of `[-0.05, 1.05]²`.
fn tracks(rng: &mut SplitMix64, n: usize, put: &mut impl FnMut(usize, [f64; 4])) {
    const LO: f64 = -0.05;
    const HI: f64 = 1.05;
    let reflect = |x: &mut f64, v: &mut f64| {
        if *x < LO {
            *x = 2.0 * LO - *x;
            *v = -*v;
        } else if *x > HI {
            *x = 2.0 * HI - *x;
            *v = -*v;
        }
    };
    let mut i = 0;
    while i < n {
        let mut p = [rng.range(LO, HI), rng.range(LO, HI)];
        let mut v = [rng.range(-0.004, 0.004), rng.range(-0.004, 0.004)];
        let steps = 100 + rng.below(901) as usize;
        for _ in 0..steps.min(n - i) {
            for v in &mut v {
                *v = (0.97 * *v + rng.range(-0.0013, 0.0013)).clamp(-0.008, 0.008);
            }
            let mut q = [p[0] + v[0], p[1] + v[1]];
            reflect(&mut q[0], &mut v[0]);
            reflect(&mut q[1], &mut v[1]);
            put(i, seg(p, q));
            p = q;
            i += 1;
        }
    }
}

/// Where `p → q` first crosses a tile border line (`x` or `y` equal to 0 or 1), that point, with
/// the crossed coordinate set exactly; else `q`.
fn snap_to_border(p: P, q: P) -> P {
    for axis in 0..2 {
        for b in [0.0, 1.0] {
            if (p[axis] - b) * (q[axis] - b) < 0.0 {
                let t = (b - p[axis]) / (q[axis] - p[axis]);
                let mut r = [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
                r[axis] = b;
                return r;
            }
        }
    }
    q
}

/// Polyline workloads (SPEC §7): whole lines in the ragged layout, for `slabclip lines`, its
/// benches and its pictures. Drawn around the unit square like the segment workloads, every
/// coordinate computed in `f64` (no trigonometry: only `+ − × ÷` and `sqrt`, so the same bits
/// on every machine) and rounded once to `F`.
///
/// | name | what | geometries |
/// | --- | --- | --- |
/// | `roads` | the roads of `road-like`, each one polyline: 50 to 500 near-axis pieces, turning by 90° now and then, half the pieces crossing a tile border line ending on it | one polyline each (a GeoJSON LineString) |
/// | `rivers` | river systems: a meandering stem of 150 to 600 pieces 0.004 to 0.012 long whose curvature drifts, and up to three tributaries, each of 20 to 150 pieces, flowing into a vertex of the stem (its last vertex is that stem vertex, bit for bit) | the stem and its tributaries (a GeoJSON MultiLineString) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// Road-like polylines, one per geometry.
    Roads,
    /// Meandering river systems, a stem and tributaries per geometry.
    Rivers,
}

impl LineKind {
    /// Both kinds.
    pub const ALL: [LineKind; 2] = [LineKind::Roads, LineKind::Rivers];

    /// The name used on the command line (`slabclip gen --lines`).
    pub fn name(self) -> &'static str {
        match self {
            LineKind::Roads => "roads",
            LineKind::Rivers => "rivers",
        }
    }

    /// The kind called `name`, or an error listing the names there are.
    pub fn from_name(name: &str) -> Result<LineKind, Error> {
        LineKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = LineKind::ALL.iter().map(|k| k.name()).collect();
                Error::UnknownWorkload(name.to_string(), names.join(", "))
            })
    }

    /// Lines of this kind with `n` segments in all (so `n` plus one vertex per polyline),
    /// from `seed`. The last geometry is cut short where the count runs out; every polyline
    /// has at least two vertices.
    pub fn generate<F: Real>(self, n: usize, seed: u64) -> LineWorkload<F> {
        let mut rng = SplitMix64::new(seed);
        let mut w = LineWorkload {
            kind: self,
            coords: Vec::new(),
            offsets: vec![0],
            geometry_offsets: vec![0],
        };
        match self {
            LineKind::Roads => {
                let mut xy: Vec<f64> = Vec::with_capacity(2 * n + 2 * n / 50);
                let mut ends: Vec<usize> = Vec::new();
                let new_road = core::cell::Cell::new(false);
                roads(
                    &mut rng,
                    n,
                    &mut |_, s| {
                        if new_road.replace(false) {
                            if !xy.is_empty() {
                                ends.push(xy.len() / 2);
                            }
                            xy.extend_from_slice(&s[..2]);
                        }
                        xy.extend_from_slice(&s[2..]);
                    },
                    |_| new_road.set(true),
                );
                if !xy.is_empty() {
                    ends.push(xy.len() / 2);
                }
                w.coords = xy.into_iter().map(F::from_f64).collect();
                for e in ends {
                    w.offsets.push(e as i64);
                    w.geometry_offsets.push(w.geometry_offsets.len() as i64);
                }
            }
            LineKind::Rivers => {
                let mut left = n;
                while left > 0 {
                    let system = river_system(&mut rng, &mut left);
                    for line in system {
                        w.coords
                            .extend(line.iter().flatten().map(|&v| F::from_f64(v)));
                        w.offsets.push((w.coords.len() / 2) as i64);
                    }
                    w.geometry_offsets.push((w.offsets.len() - 1) as i64);
                }
            }
        }
        w
    }
}

impl core::fmt::Display for LineKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A generated batch of lines: [`MultiPolylines`](crate::MultiPolylines)' ragged arrays, owned.
#[derive(Clone, Debug)]
pub struct LineWorkload<F> {
    /// What kind of lines.
    pub kind: LineKind,
    /// Every vertex, interleaved `x, y`.
    pub coords: Vec<F>,
    /// `L + 1` offsets into the vertices, one polyline each.
    pub offsets: Vec<i64>,
    /// `G + 1` offsets into the polylines, one geometry each (a road, a river system).
    pub geometry_offsets: Vec<i64>,
}

impl<F: Real> LineWorkload<F> {
    /// The lines as the library takes them.
    pub fn lines(&self) -> crate::MultiPolylines<'_, F> {
        let lines = crate::Polylines::interleaved(&self.coords, &self.offsets)
            .expect("generated offsets are valid");
        crate::MultiPolylines::new(lines, &self.geometry_offsets)
            .expect("generated geometry offsets are valid")
    }

    /// How many vertices.
    pub fn vertices(&self) -> usize {
        self.coords.len() / 2
    }
}

/// One river system (see [`LineKind`]): the stem, then its tributaries, each reversed so that
/// it flows into the stem; `left` segments at most, taken from it.
fn river_system(rng: &mut SplitMix64, left: &mut usize) -> Vec<Vec<P>> {
    const LO: f64 = -1.0;
    const HI: f64 = 2.0;
    let unit = |v: P| {
        let l = (v[0] * v[0] + v[1] * v[1]).sqrt();
        [v[0] / l, v[1] / l]
    };
    // A meandering line of `pieces` pieces from `p` heading `h`, steps in `step`.
    let meander = |rng: &mut SplitMix64, p: P, h: P, pieces: usize, step: (f64, f64)| {
        let (mut p, mut h, mut bend) = (p, unit(h), 0.0f64);
        let mut line = vec![p];
        for _ in 0..pieces {
            bend = (0.9 * bend + rng.range(-0.08, 0.08)).clamp(-0.3, 0.3);
            h = unit([h[0] - bend * h[1], h[1] + bend * h[0]]);
            let len = rng.range(step.0, step.1);
            let mut q = [p[0] + h[0] * len, p[1] + h[1] * len];
            for axis in 0..2 {
                if !(LO..=HI).contains(&q[axis]) {
                    h[axis] = -h[axis];
                    q[axis] = p[axis] + h[axis] * len;
                }
            }
            line.push(q);
            p = q;
        }
        line
    };
    let start = [rng.range(-0.5, 1.5), rng.range(-0.5, 1.5)];
    let heading = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
    let heading = if heading == [0.0, 0.0] {
        [1.0, 0.0]
    } else {
        heading
    };
    let pieces = (150 + rng.below(451) as usize).min(*left);
    *left -= pieces;
    let stem = meander(rng, start, heading, pieces, (0.004, 0.012));
    let mut system = vec![stem];
    for _ in 0..rng.below(4) {
        let pieces = (20 + rng.below(131) as usize).min(*left);
        if pieces == 0 {
            break;
        }
        *left -= pieces;
        let stem = &system[0];
        let k = 1 + rng.below(stem.len() as u64 - 1) as usize;
        let (a, b) = (stem[k - 1], stem[k]);
        // Off to one side of the stem's direction at the junction, a little upstream.
        let side = if rng.chance(0.5) { 1.0 } else { -1.0 };
        let h = [
            -(b[0] - a[0]) + side * -(b[1] - a[1]) * 2.0,
            -(b[1] - a[1]) + side * (b[0] - a[0]) * 2.0,
        ];
        let mut t = meander(rng, b, h, pieces, (0.003, 0.008));
        t.reverse();
        system.push(t);
    }
    system
}

/// Scenes of walls for [`Scene`](crate::cast::Scene) and the rays to cast against them:
/// `n` walls, seeded, every coordinate computed in `f64` and rounded once to `F` (as the
/// segment workloads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SceneKind {
    /// Building outlines on a city grid: a lot of 10 × 10 per building, each a rectangle of
    /// sides 3 to 8 (four walls, or five where a door leaves a gap of 1), 70 % exactly
    /// axis-aligned and the rest turned by up to ±5°; the city is square, about
    /// `10·sqrt(n/4.5)` on a side.
    City,
    /// Walls of length 0.5 to 5 at any angle, centres uniform in a square of side
    /// `3·sqrt(n)` (about the city's density).
    Random,
}

impl SceneKind {
    /// Both kinds.
    pub const ALL: [SceneKind; 2] = [SceneKind::City, SceneKind::Random];

    /// The name benches and reports use.
    pub fn name(self) -> &'static str {
        match self {
            SceneKind::City => "city",
            SceneKind::Random => "random",
        }
    }

    /// The side of the square the walls lie in (from the origin).
    pub fn side(self, n: usize) -> f64 {
        match self {
            SceneKind::City => 10.0 * (n as f64 / 4.5).sqrt().ceil().max(1.0),
            SceneKind::Random => 3.0 * (n as f64).sqrt().max(1.0),
        }
    }

    /// `n` walls of this kind.
    pub fn walls<F: Real>(self, n: usize, seed: u64) -> Segments<F> {
        let mut rng = SplitMix64::new(seed);
        let mut out = Segments::new();
        let mut put = |w: [f64; 4]| {
            out.push(Segment::new(
                F::from_f64(w[0]),
                F::from_f64(w[1]),
                F::from_f64(w[2]),
                F::from_f64(w[3]),
            ))
        };
        let side = self.side(n);
        match self {
            SceneKind::City => {
                let lots = (side / 10.0) as u64;
                let mut made = 0;
                'city: for k in 0.. {
                    let (lx, ly) = ((k % lots) as f64 * 10.0, ((k / lots) % lots) as f64 * 10.0);
                    let (w, h) = (rng.range(3.0, 8.0), rng.range(3.0, 8.0));
                    let (cx, cy) = (
                        lx + 5.0 + rng.range(-1.0, 1.0),
                        ly + 5.0 + rng.range(-1.0, 1.0),
                    );
                    let turn = if rng.chance(0.7) {
                        0.0
                    } else {
                        rng.range(-5.0, 5.0).to_radians()
                    };
                    let (c, s) = (turn.cos(), turn.sin());
                    let at = |x: f64, y: f64| [cx + c * x - s * y, cy + s * x + c * y];
                    let corners = [
                        at(-w / 2.0, -h / 2.0),
                        at(w / 2.0, -h / 2.0),
                        at(w / 2.0, h / 2.0),
                        at(-w / 2.0, h / 2.0),
                    ];
                    let door = rng.chance(0.5);
                    for e in 0..4 {
                        let (p, q) = (corners[e], corners[(e + 1) % 4]);
                        let pieces: &[(f64, f64)] = if door && e == 0 {
                            let g = 0.5 - 0.5 / w;
                            &[(0.0, g), (1.0 - g, 1.0)]
                        } else {
                            &[(0.0, 1.0)]
                        };
                        for &(a, b) in pieces {
                            if made == n {
                                break 'city;
                            }
                            let lerp =
                                |t: f64| [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
                            let (u, v) = (lerp(a), lerp(b));
                            put([u[0], u[1], v[0], v[1]]);
                            made += 1;
                        }
                    }
                }
            }
            SceneKind::Random => {
                for _ in 0..n {
                    let (x, y) = (rng.range(0.0, side), rng.range(0.0, side));
                    let a = rng.range(0.0, core::f64::consts::PI);
                    let l = rng.range(0.5, 5.0) / 2.0;
                    put([
                        x - l * a.cos(),
                        y - l * a.sin(),
                        x + l * a.cos(),
                        y + l * a.sin(),
                    ]);
                }
            }
        }
        out
    }

    /// `n` incoherent rays: origins uniform in the scene's square, unit directions at uniform
    /// angles.
    pub fn rays<F: Real>(self, walls: usize, n: usize, seed: u64) -> crate::cast::Rays<F> {
        let mut rng = SplitMix64::new(seed);
        let side = self.side(walls);
        let rows: Vec<crate::cast::Ray<F>> = (0..n)
            .map(|_| {
                let (x, y) = (rng.range(0.0, side), rng.range(0.0, side));
                let (s, c) = rng.range(0.0, core::f64::consts::TAU).sin_cos();
                crate::cast::Ray::new(
                    F::from_f64(x),
                    F::from_f64(y),
                    F::from_f64(c),
                    F::from_f64(s),
                )
            })
            .collect();
        crate::cast::Rays::from_rows(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffers::SegmentSource;
    use crate::geom::Class;
    use crate::kernels::Algorithm;

    const N: usize = 20_000;

    /// The share of each class in `dist`, by the scalar Liang–Barsky kernel (itself checked
    /// against the exact reference by the differential tests).
    fn shares(w: &Workload<f64>) -> [f64; 256] {
        let r = Algorithm::LiangBarsky.clip_to_vec(&w.rect, &w.segments, false);
        let mut count = [0.0; 256];
        for c in &r.class {
            count[*c as usize] += 1.0 / r.class.len() as f64;
        }
        count
    }

    fn share(w: &Workload<f64>, c: Class) -> f64 {
        shares(w)[c as usize]
    }

    #[test]
    fn names_round_trip() {
        for d in Dist::ALL {
            assert_eq!(Dist::from_name(d.name()).unwrap(), d);
        }
        let e = Dist::from_name("uniform").unwrap_err().to_string();
        assert!(e.contains("uniform") && e.contains("road-like"), "{e}");
    }

    #[test]
    fn same_seed_same_bits_other_seed_other_bits() {
        for d in Dist::ALL {
            let a = d.generate::<f64>(5000, 7);
            assert_eq!(a.segments, d.generate::<f64>(5000, 7).segments, "{d}");
            assert_ne!(a.segments, d.generate::<f64>(5000, 8).segments, "{d}");
            assert_eq!(a.segments.len(), 5000);
            assert!(d.generate::<f32>(0, 7).segments.is_empty());
        }
    }

    #[test]
    fn f32_is_f64_rounded_once() {
        for d in Dist::ALL {
            let (a, b) = (d.generate::<f32>(3000, 3), d.generate::<f64>(3000, 3));
            for i in 0..3000 {
                let (s, t) = (a.segments.segment(i), b.segments.segment(i));
                assert_eq!(
                    [s.x0, s.y0, s.x1, s.y1],
                    [t.x0, t.y0, t.x1, t.y1].map(|x| x as f32),
                    "{d} segment {i}"
                );
            }
        }
    }

    #[test]
    fn every_segment_is_finite() {
        for d in Dist::ALL {
            let w = d.generate::<f32>(N, 11);
            assert!((0..N).all(|i| w.segments.segment(i).is_finite()), "{d}");
        }
    }

    #[test]
    fn mixed_has_every_class_but_invalid() {
        let s = shares(&Dist::Mixed.generate(N, 1));
        for c in Class::ALL {
            let want_some = c != Class::Invalid;
            assert_eq!(s[c as usize] > 0.0, want_some, "{c:?}: {}", s[c as usize]);
        }
    }

    #[test]
    fn mostly_inside_and_mostly_outside_live_up_to_their_names() {
        for seed in [1, 2] {
            let inside = share(&Dist::MostlyInside.generate(N, seed), Class::Inside);
            assert!(inside >= 0.8, "mostly-inside is {inside} inside");
            let outside = share(&Dist::MostlyOutside.generate(N, seed), Class::Outside);
            assert!(outside >= 0.8, "mostly-outside is {outside} outside");
        }
    }

    #[test]
    fn corner_misses_miss_and_are_not_trivially_rejected() {
        let mut rng = SplitMix64::new(5);
        let rect = Dist::Mixed.rect::<f64>();
        for _ in 0..10_000 {
            let [x0, y0, x1, y1] = corner_miss(&mut rng);
            let s = Segment::new(x0, y0, x1, y1);
            assert_eq!(
                Algorithm::LiangBarsky.clip_one(&rect, &s).class,
                Class::Outside,
                "{s:?}"
            );
            let code = |x: f64, y: f64| {
                (x < 0.0) as u8
                    | ((x > 1.0) as u8) << 1
                    | ((y < 0.0) as u8) << 2
                    | ((y > 1.0) as u8) << 3
            };
            assert_eq!(code(x0, y0) & code(x1, y1), 0, "{s:?}");
        }
    }

    #[test]
    fn edge_grazing_segments_touch_the_boundary() {
        let w = Dist::EdgeGrazing.generate::<f32>(N, 4);
        let r = Algorithm::LiangBarsky.clip_to_vec(&w.rect, &w.segments, false);
        let on_boundary = |x: f32, y: f32| {
            w.rect.contains(x, y) && (x == 0.0 || x == 1.0 || y == 0.0 || y == 1.0)
        };
        let mut touches = 0;
        for i in 0..N {
            let s = w.segments.segment(i);
            let c = Class::from_code(r.class[i]).unwrap();
            touches += (c == Class::Touches) as usize;
            let on_edge_line = (s.x0 == s.x1 && (s.x0 == 0.0 || s.x0 == 1.0))
                || (s.y0 == s.y1 && (s.y0 == 0.0 || s.y0 == 1.0));
            assert!(
                on_boundary(s.x0, s.y0)
                    || on_boundary(s.x1, s.y1)
                    || on_edge_line
                    || c == Class::Touches,
                "segment {i} {s:?} is {c:?}"
            );
        }
        assert!(touches > N / 10, "only {touches} touch");
    }

    #[test]
    fn axis_parallel_is_axis_parallel() {
        let w = Dist::AxisParallel.generate::<f64>(N, 4);
        let mut on_line = 0;
        for i in 0..N {
            let s = w.segments.segment(i);
            assert!(s.x0 == s.x1 || s.y0 == s.y1, "{s:?}");
            on_line += [s.x0, s.y0, s.x1, s.y1].contains(&0.0) as usize
                | [s.x0, s.y0, s.x1, s.y1].contains(&1.0) as usize;
        }
        assert!(on_line > N * 4 / 10, "only {on_line} on an edge line");
    }

    #[test]
    fn random_walks_are_chained_and_cross_the_rect() {
        let w = Dist::RandomWalk.generate::<f32>(N, 9);
        for i in 0..N - WALKERS {
            let (a, b) = (w.segments.segment(i), w.segments.segment(i + WALKERS));
            assert_eq!(
                (a.x1, a.y1),
                (b.x0, b.y0),
                "walker {} step {}",
                i % WALKERS,
                i / WALKERS
            );
        }
        let s = shares(&Dist::RandomWalk.generate(N, 9));
        let inside = s[Class::Inside as usize];
        assert!((0.05..0.5).contains(&inside), "{inside} inside");
        assert!(s[Class::Enters as usize] > 0.001 && s[Class::Exits as usize] > 0.001);
        assert!(s[Class::Outside as usize] > 0.4);
    }

    #[test]
    fn tracks_are_chained_and_mostly_in_the_unit_square() {
        let w = Dist::Tracks.generate::<f64>(N, 2);
        let (mut chained, mut length) = (0, 0.0);
        for i in 0..N {
            let s = w.segments.segment(i);
            length += ((s.x1 - s.x0).powi(2) + (s.y1 - s.y0).powi(2)).sqrt();
            if i + 1 < N {
                let t = w.segments.segment(i + 1);
                chained += ((s.x1, s.y1) == (t.x0, t.y0)) as usize;
            }
        }
        assert!(chained > N * 99 / 100, "{chained} chained");
        let mean = length / N as f64;
        assert!((0.002..0.006).contains(&mean), "mean step {mean}");
        let s = shares(&w);
        assert!(
            s[Class::Inside as usize] > 0.75,
            "{} inside",
            s[Class::Inside as usize]
        );
        assert!(s[Class::Enters as usize] > 0.0 && s[Class::Exits as usize] > 0.0);
    }

    #[test]
    fn roads_are_near_axis_chained_and_cross_tile_borders() {
        let w = Dist::RoadLike.generate::<f64>(N, 2);
        let (mut near_axis, mut chained, mut on_border) = (0, 0, 0);
        for i in 0..N {
            let s = w.segments.segment(i);
            let (dx, dy) = ((s.x1 - s.x0).abs(), (s.y1 - s.y0).abs());
            near_axis += (dy <= 0.06 * dx || dx <= 0.06 * dy) as usize;
            on_border += [s.x1, s.y1].iter().any(|&c| c == 0.0 || c == 1.0) as usize;
            if i + 1 < N {
                let t = w.segments.segment(i + 1);
                chained += ((s.x1, s.y1) == (t.x0, t.y0)) as usize;
            }
        }
        assert!(near_axis >= N * 8 / 10, "{near_axis} near-axis");
        // Roads have 50 to 500 pieces, so at most one in 50 segments starts a new road.
        assert!(chained >= N - N / 50 - 1, "{chained} chained");
        assert!(on_border > N / 1000, "{on_border} end on a border line");
        let s = shares(&Dist::RoadLike.generate(N, 2));
        let crossing =
            s[Class::Enters as usize] + s[Class::Exits as usize] + s[Class::Crosses as usize];
        assert!(crossing > 0.002, "{crossing} cross a tile border");
    }
    #[test]
    fn line_workloads_are_valid_ragged_lines_of_n_segments() {
        for kind in LineKind::ALL {
            assert_eq!(LineKind::from_name(kind.name()).unwrap(), kind);
            for n in [0, 1, 7, 149, 5000] {
                let w = kind.generate::<f64>(n, 3);
                let lines = w.lines();
                let l = lines.lines();
                let segments: usize = (0..l.len()).map(|j| l.vertices(j).len() - 1).sum();
                assert_eq!(segments, n, "{kind} n = {n}");
                assert!((0..l.len()).all(|j| l.vertices(j).len() >= 2));
                assert!(w.coords.iter().all(|v| v.is_finite()));
                let w32 = kind.generate::<f32>(n, 3);
                assert!(w32
                    .coords
                    .iter()
                    .zip(&w.coords)
                    .all(|(&a, &b)| a == b as f32));
                assert_eq!(
                    (w32.offsets, w32.geometry_offsets),
                    (w.offsets, w.geometry_offsets)
                );
            }
        }
        assert!(LineKind::from_name("lakes").is_err());
    }

    #[test]
    fn roads_are_road_like_cut_at_road_starts() {
        let w = LineKind::Roads.generate::<f64>(N, 2);
        let seg = Dist::RoadLike.generate::<f64>(N, 2);
        let l = w.lines();
        let mut i = 0;
        for j in 0..l.lines().len() {
            let v = l.lines().vertices(j);
            assert_eq!(l.parts(j), j..j + 1, "one polyline per road");
            for k in v.start..v.end - 1 {
                let s = seg.segments.segment(i);
                assert_eq!(
                    [s.x0, s.y0, s.x1, s.y1],
                    [
                        w.coords[2 * k],
                        w.coords[2 * k + 1],
                        w.coords[2 * k + 2],
                        w.coords[2 * k + 3]
                    ]
                );
                i += 1;
            }
        }
        assert_eq!(i, N);
        assert!(
            l.len() >= N / 500 && l.len() <= N / 50 + 1,
            "{} roads",
            l.len()
        );
    }

    #[test]
    fn tributaries_flow_into_a_stem_vertex() {
        let w = LineKind::Rivers.generate::<f64>(N, 5);
        let l = w.lines();
        let (mut tributaries, mut systems) = (0, 0);
        for g in 0..l.len() {
            let lines = l.parts(g);
            systems += 1;
            let stem = l.lines().vertices(lines.start);
            let stem_xy = &w.coords[2 * stem.start..2 * stem.end];
            for j in lines.start + 1..lines.end {
                let v = l.lines().vertices(j);
                let end = &w.coords[2 * v.end - 2..2 * v.end];
                assert!(stem_xy.chunks_exact(2).any(|p| p == end), "system {g}");
                tributaries += 1;
            }
        }
        assert!(
            systems >= N / 1200 && tributaries >= systems / 2,
            "{systems}, {tributaries}"
        );
        // Rivers meander: they turn, but never sharply from one piece to the next.
        let xy = &w.coords;
        let stem = l.lines().vertices(0);
        let turns = (stem.start + 1..stem.end - 1)
            .map(|k| {
                let (a, b) = (
                    [xy[2 * k] - xy[2 * k - 2], xy[2 * k + 1] - xy[2 * k - 1]],
                    [xy[2 * k + 2] - xy[2 * k], xy[2 * k + 3] - xy[2 * k + 1]],
                );
                (a[0] * b[0] + a[1] * b[1])
                    / ((a[0] * a[0] + a[1] * a[1]) * (b[0] * b[0] + b[1] * b[1])).sqrt()
            })
            .collect::<Vec<_>>();
        // (A stem turns back sharply only where it meets the border of [-1, 2]².)
        let gentle = turns.iter().filter(|&&c| c > 0.9).count();
        assert!(
            gentle >= turns.len() * 98 / 100,
            "{gentle} of {} gentle",
            turns.len()
        );
        assert!(turns.iter().any(|&c| c < 0.999), "some bend");
    }
}
