//! The scene's uniform grid: the tree's walls listed by square cells of about one wall each, so
//! that a ray starting among them is walked cell by cell from its origin rather than down the
//! tree from the root.
//!
//! ```text
//! build:  the tree walls' box, grown by G on every side, cut into cells of side about
//!         sqrt(area / walls); wall p listed (by its slot in the tree's order) in every cell
//!         its box, grown by G, meets. G = the largest pad a ray starting in the box can need
//!         (mod.rs: 80u(R + ℓ), R the box's L1 size, doubled) + 2δ, δ a bound far above the
//!         walk's own roundings (f64)
//! walk:   the ray's line from τ = −back to the closest hit's reach (T + e(T)), clipped to the
//!         grid: the cells it passes through in order, each cell's walls offered four at a
//!         time; the next cell's entry τ recomputed from its boundary (no running sums)
//! ```
//!
//! Why it misses no wall the brute force reports (the tree's argument, `mod.rs`): a wall
//! reported at `t ≤ T` has a point within `pad` of `Q = O + τD` for some `τ ∈ [−e, T + e]`.
//! `Q` lies in the wall's box grown by `pad ≤ G − 2δ`, so inside the grid, and within `δ` of a
//! cell the walk visits (a walk's rounding, or its stepping past a diagonal neighbour at a grid
//! vertex, moves it by less than `δ`); that cell lists the wall, its box being grown by `G`.
//! Behind the origin, `e` grows with the distance to the wall by `3·ext_r·|D|₁ < 1` for each
//! unit of `|τ|`, so `|τ| ≤ back = ext_r·(5ℓ + 5·pad) / (1 − 3·ext_r·|D|₁)`: a fraction of a
//! cell. Only rays whose origin lies in the walls' box walk the grid (`R` bounds `|W|`
//! there); the others walk the tree.

use super::super::ray_segments::Row;
use super::{Extent, Prec};
use crate::real::Real;

/// From this many walls [`SceneIndex::Auto`](super::SceneIndex) builds the grid.
const GRID_MIN_WALLS: usize = 256;
/// The most entries a grid may hold per wall (walls listed in many cells: long ones across the
/// scene); beyond it the scene has no grid.
const MOST_ENTRIES_PER_WALL: usize = 16;
/// [`SceneIndex::Auto`](super::SceneIndex) builds no grid where a cell would hold more walls
/// (dense clusters, which the tree splits further).
const MOST_PER_CELL: u32 = 64;
/// [`SceneIndex::Auto`](super::SceneIndex) builds no grid where fewer of its cells list a wall
/// (walls along a few curves, a coastline's: rays cross many empty cells, which the tree skips
/// at once). Measured on 10⁵ walls in random walks of short steps, closest hits, grid ÷ tree:
/// 0.52 at 11 % of the cells listing walls, 0.62 at 16 %, 0.77 at 22 %, 0.96 at 27 %, 1.21 at
/// 39 %, 1.35 at 51 %; city and random scenes list walls in 91–93 % (`docs/guide/scenes.md`).
const LEAST_OCCUPIED: f64 = 0.35;

/// The grid (module docs).
#[derive(Clone, Debug)]
pub(crate) struct Cells {
    /// The grid's lower corner, its cells' side and its inverse, its cells per axis.
    lo: [f64; 2],
    side: f64,
    inv: f64,
    n: [usize; 2],
    /// Cell `iy·nx + ix` lists `slot[start[c] .. start[c + 1]]`.
    start: Vec<u32>,
    slot: Vec<u32>,
    /// The box a ray's origin must lie in to walk the grid: the tree walls' box.
    origins: [f64; 4],
    /// The largest pad the walk's argument allows for (the tree's `pad` for any such ray).
    pub(super) pad: f64,
}

/// The cells `[a, b]` of one axis that `[lo, hi]` meets (clamped to the grid).
#[inline(always)]
fn span(lo: f64, hi: f64, origin: f64, inv: f64, n: usize) -> (usize, usize) {
    (cell_of(lo, origin, inv, n), cell_of(hi, origin, inv, n))
}

/// The cell of one axis that holds `v` (clamped to the grid; the conversion truncates, which
/// is the floor from 0 on).
#[inline(always)]
fn cell_of(v: f64, origin: f64, inv: f64, n: usize) -> usize {
    (((v - origin) * inv) as i64).clamp(0, n as i64 - 1) as usize
}

impl Cells {
    /// The grid over `rows` (the tree's walls, in its order; `extent` their box), or `None`
    /// where it cannot serve: no walls, a box without area, more than
    /// [`MOST_ENTRIES_PER_WALL`] entries a wall, and unless `always`, fewer than
    /// [`GRID_MIN_WALLS`] walls, a cell of more than [`MOST_PER_CELL`] or fewer cells with
    /// walls than [`LEAST_OCCUPIED`].
    pub(crate) fn build<F: Real>(
        rows: impl Iterator<Item = Row<F>>,
        len: usize,
        extent: &Extent,
        prec: &Prec,
        always: bool,
    ) -> Option<Self> {
        if len == 0 || (!always && len < GRID_MIN_WALLS) {
            return None;
        }
        let [xl, yl, xh, yh] = extent.bx;
        let (w, h) = (xh - xl, yh - yl);
        if !(w > 0.0 && h > 0.0 && w.is_finite() && h.is_finite()) {
            return None;
        }
        // The pad of the tree's walk for any origin in the box (|W| ≤ w + h there), with room.
        let pad = (80.0 * prec.u * (2.0 * (w + h) + extent.ell) + prec.floor) * 1.01;
        // The walk's f64 roundings are a few ulps of the scene's magnitudes (2^-52 of them).
        let delta = (w + h + extent.cmax) * 2f64.powi(-40);
        let grow = pad + 2.0 * delta;
        let lo = [xl - grow - delta, yl - grow - delta];
        let (gw, gh) = (w + 2.0 * (grow + delta), h + 2.0 * (grow + delta));
        // About one wall a cell; a long, thin box gets at most `len` cells along it.
        let side = (gw * gh / len as f64).sqrt().max(gw.max(gh) / len as f64);
        if !(side > 0.0 && side.is_finite()) {
            return None;
        }
        let inv = 1.0 / side;
        let n = [(gw * inv) as usize + 1, (gh * inv) as usize + 1];
        let cells = n[0] * n[1];
        // Each wall's cells, then a counting sort of (cell, wall): the counts, their sums
        // (each cell's end), the walls dealt from each cell's end down to its start.
        let mut spans = Vec::with_capacity(len);
        let mut start = vec![0u32; cells + 1];
        let mut entries = 0usize;
        for r in rows {
            let (sx, sy, x1, y1) = (r.sx.to_f64(), r.sy.to_f64(), r.x1.to_f64(), r.y1.to_f64());
            let (x0, x1) = span(sx.min(x1) - grow, sx.max(x1) + grow, lo[0], inv, n[0]);
            let (y0, y1) = span(sy.min(y1) - grow, sy.max(y1) + grow, lo[1], inv, n[1]);
            entries += (x1 - x0 + 1) * (y1 - y0 + 1);
            if entries > MOST_ENTRIES_PER_WALL * len {
                return None;
            }
            for y in y0..=y1 {
                for x in x0..=x1 {
                    start[y * n[0] + x] += 1;
                }
            }
            spans.push([x0 as u32, x1 as u32, y0 as u32, y1 as u32]);
        }
        if !always {
            let (occupied, most) = start[..cells].iter().fold((0usize, 0u32), |(o, m), &c| {
                (o + usize::from(c > 0), m.max(c))
            });
            if most > MOST_PER_CELL || (occupied as f64) < LEAST_OCCUPIED * cells as f64 {
                return None;
            }
        }
        for c in 1..cells {
            start[c] += start[c - 1];
        }
        start[cells] = entries as u32;
        let mut slot = vec![0u32; entries];
        for (p, &[x0, x1, y0, y1]) in spans.iter().enumerate() {
            for y in y0 as usize..=y1 as usize {
                for x in x0 as usize..=x1 as usize {
                    let end = &mut start[y * n[0] + x];
                    *end -= 1;
                    slot[*end as usize] = p as u32;
                }
            }
        }
        Some(Cells {
            lo,
            side,
            inv,
            n,
            start,
            slot,
            origins: extent.bx,
            pad,
        })
    }

    /// Whether a ray from `(ox, oy)` walks the grid.
    #[inline(always)]
    pub(crate) fn serves(&self, (ox, oy): (f64, f64)) -> bool {
        let [xl, yl, xh, yh] = self.origins;
        xl <= ox && ox <= xh && yl <= oy && oy <= yh
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        (self.start.capacity() + self.slot.capacity()) * 4
    }

    /// Walks the line `O + τD` from `τ = from` through the grid, calling `cell(slots)` for each
    /// cell it passes through that lists walls, in order, while the cell's entry `τ` is at most
    /// `reach`; `cell` returns the reach from then on, or `None` to stop.
    #[inline(always)]
    pub(crate) fn walk(
        &self,
        (ox, oy): (f64, f64),
        (dx, dy): (f64, f64),
        from: f64,
        mut reach: f64,
        mut cell: impl FnMut(&[u32]) -> Option<f64>,
    ) {
        // The line's parameters inside the grid.
        let hi = [
            self.lo[0] + self.n[0] as f64 * self.side,
            self.lo[1] + self.n[1] as f64 * self.side,
        ];
        let Some((ta, tb)) = super::line_in_box(
            (ox, oy),
            (dx, dy),
            [self.lo[0], self.lo[1], hi[0], hi[1]],
            from,
        ) else {
            return;
        };
        let at = |v: f64, k: usize| cell_of(v, self.lo[k], self.inv, self.n[k]);
        let mut i = [at(ox + ta * dx, 0), at(oy + ta * dy, 1)];
        // The parameter where the line leaves cell `i` along axis `k` (∞ along neither).
        let exit = |i: usize, k: usize, o: f64, d: f64| {
            if d > 0.0 {
                (self.lo[k] + (i + 1) as f64 * self.side - o) / d
            } else if d < 0.0 {
                (self.lo[k] + i as f64 * self.side - o) / d
            } else {
                f64::INFINITY
            }
        };
        let (o, d) = ([ox, oy], [dx, dy]);
        let mut t = [exit(i[0], 0, ox, dx), exit(i[1], 1, oy, dy)];
        loop {
            let c = i[1] * self.n[0] + i[0];
            let (a, b) = (self.start[c] as usize, self.start[c + 1] as usize);
            if a < b {
                match cell(&self.slot[a..b]) {
                    Some(r) => reach = r,
                    None => return,
                }
            }
            let k = usize::from(t[1] < t[0]);
            if t[k] > tb || t[k] > reach {
                return;
            }
            if d[k] > 0.0 {
                if i[k] + 1 == self.n[k] {
                    return;
                }
                i[k] += 1;
            } else {
                if i[k] == 0 {
                    return;
                }
                i[k] -= 1;
            }
            t[k] = exit(i[k], k, o[k], d[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The grid's own margins, each at the one place a walk needs it: a wall whose hit the
    //! per-pair arithmetic reports from a cell the wall's box does not reach. The suite's
    //! scenes (`tests/suite/scene.rs`) rarely put a cell line there, so these cases place the
    //! wall against one: a first scene shows the grid's lines, and the wall is then moved
    //! against a line, the grid staying the same (the same box, wall count and lengths).
    use super::super::{Scene, SceneIndex};
    use super::Cells;
    use crate::cast::{cast_segments_one, Ray};
    use crate::real::Real;
    use crate::workload::SplitMix64;
    use crate::{Segment, Segments};

    /// Four corner walls making the box `[−1000, 1000]²`, a long wall along its bottom, 300
    /// short walls above `y = 300`, and `special` (shorter than 1,300 in L1) last.
    fn scene<F: Real>(rng: &mut SplitMix64, special: [f64; 4]) -> (Segments<F>, Scene<F>) {
        let mut rows = Vec::new();
        let f = |x: f64| F::from_f64(x);
        for (x, y) in [
            (-1000.0, -1000.0),
            (999.0, -1000.0),
            (-1000.0, 999.0),
            (999.0, 999.0),
        ] {
            rows.push(Segment::new(f(x), f(y), f(x + 1.0), f(y + 1.0)));
        }
        // The longest wall (ℓ, which the grid's pad depends on) whatever `special` is.
        rows.push(Segment::new(f(-900.0), f(-995.0), f(400.0), f(-995.0)));
        for _ in 0..300 {
            let (x, y) = (rng.range(-900.0, 900.0), rng.range(300.0, 900.0));
            let a = rng.range(0.0, core::f64::consts::PI);
            rows.push(Segment::new(f(x), f(y), f(x + a.cos()), f(y + a.sin())));
        }
        let [x0, y0, x1, y1] = special;
        rows.push(Segment::new(f(x0), f(y0), f(x1), f(y1)));
        let walls = Segments::from_rows(&rows);
        let scene = Scene::with_index(&walls, SceneIndex::Grid).unwrap();
        (walls, scene)
    }

    fn cells<F: Real>(scene: &Scene<F>) -> &Cells {
        scene
            .grid
            .cells
            .get()
            .and_then(Option::as_ref)
            .expect("a grid")
    }

    /// The same grid (lines, cells, pad) in both scenes.
    fn same_grid<F: Real>(a: &Scene<F>, b: &Scene<F>) {
        let (a, b) = (cells(a), cells(b));
        assert_eq!((a.lo, a.side, a.n, a.pad), (b.lo, b.side, b.n, b.pad));
    }

    /// `ray` cast through the scene is the brute force's answer; whether the brute force hits
    /// the last wall.
    fn agrees<F: Real>(scene: &Scene<F>, walls: &Segments<F>, ray: &Ray<F>) -> bool {
        let want = cast_segments_one(ray, &walls.as_ref(), F::INFINITY).unwrap();
        let got = scene.cast_one(ray, F::INFINITY).unwrap();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{ray:?}");
        want.index as usize == walls.len() - 1
    }

    /// A wall ending just short of a grid vertex (`η` left of the column line, `η` above the
    /// row line), and rays from far below and left aimed just right of its end: the line
    /// crosses the column line below the row line, so it never enters the wall's own cell,
    /// yet the arithmetic (off by about `u·|W|` across the ray) reports some of them hit. Only
    /// the walls' widening by `G` lists the wall where those rays walk.
    fn beside_a_vertex<F: Real>(seed: u64) -> usize {
        let rng = &mut SplitMix64::new(seed);
        let u = super::super::Prec::of::<F>().u;
        let (_, first) = scene::<F>(rng, [-10.0, 5.0, -9.0, 5.0]);
        let c = cells(&first);
        let line = |lo: f64, v: f64| lo + ((v - lo) / c.side).round() * c.side;
        let (bx, by) = (line(c.lo[0], 0.0), line(c.lo[1], 0.0));
        // A few of F's ulps there: the end rounds to F on its side of both lines.
        let ulp = F::from_f64(bx.abs().max(by.abs()).max(1.0))
            .next_up()
            .to_f64()
            - bx.abs().max(by.abs()).max(1.0);
        let eta = 4.0 * ulp;
        let end = (bx - eta, by + eta);
        let rng = &mut SplitMix64::new(seed);
        let (walls, scene) = scene::<F>(rng, [end.0 - 1.0, end.1, end.0, end.1]);
        same_grid(&first, &scene);
        let mut hits = 0;
        for _ in 0..2000 {
            let a = rng.range(30.0f64.to_radians(), 75.0f64.to_radians());
            let dist = rng.range(500.0, 1000.0);
            let off = rng.unit() * rng.unit() * 4.0 * u * dist;
            let target = (bx + off, end.1);
            let (ox, oy) = (target.0 - dist * a.cos(), target.1 - dist * a.sin());
            let (ox, oy) = (F::from_f64(ox), F::from_f64(oy));
            let (dx, dy) = (target.0 - ox.to_f64(), target.1 - oy.to_f64());
            let ray = Ray::new(ox, oy, F::from_f64(dx), F::from_f64(dy));
            // Where the line (as rounded) meets the row line: right of the column line means
            // it never enters the wall's cell.
            let (dx, dy) = (ray.dx.to_f64(), ray.dy.to_f64());
            let across = ox.to_f64() + (by - oy.to_f64()) * dx / dy;
            let hit = agrees(&scene, &walls, &ray);
            hits += usize::from(hit && across > bx + 1e-9 * (1.0 + bx.abs()));
        }
        hits
    }

    #[test]
    fn walls_beside_a_grid_vertex() {
        let hits: usize = (0..16).map(beside_a_vertex::<f32>).sum();
        assert!(hits > 20, "{hits} rays hit the wall beside the vertex");
        // In f64 the arithmetic's reach (about 1e-13 here) is far inside δ: the case holds,
        // but no ray is hit from beside.
        (0..4).for_each(|s| {
            beside_a_vertex::<f64>(s);
        });
    }
}
