//! A plain uniform grid walked cell by cell (Amanatides–Woo), closest hit, `f32`: the
//! measuring stick for the scene's choice of index (`docs/guide/scenes.md`). It is **not
//! exact**: no margins for the per-pair arithmetic's error, no index for the nearly parallel
//! walls, its own crossing test rather than `cast_segments`' (no collinear case). So it
//! measures what the walk itself costs, and the setup counts how many answers differ from the
//! scene's.

use slabclip::{SegmentSource, Segments};

pub struct UniformGrid {
    /// The grid's lower corner, its cell side and `1 / side`, its cells per axis.
    lo: (f32, f32),
    side: f32,
    inv: f32,
    n: (i32, i32),
    /// Cell `c` holds entries `start[c] .. start[c + 1]`.
    start: Vec<u32>,
    /// Each entry's wall as `(x0, y0, x1 − x0, y1 − y0)`, and its index.
    wall: Vec<[f32; 4]>,
    index: Vec<u32>,
}

impl UniformGrid {
    /// The walls in cells of about `per_cell` walls each over the walls' box; a wall goes to
    /// every cell its box meets.
    pub fn new(walls: &Segments<f32>, per_cell: f32) -> Self {
        let rows: Vec<[f32; 4]> = (0..walls.len())
            .map(|i| {
                let s = walls.segment(i);
                [s.x0, s.y0, s.x1, s.y1]
            })
            .collect();
        let (mut lo, mut hi) = ((f32::MAX, f32::MAX), (f32::MIN, f32::MIN));
        for w in &rows {
            lo = (lo.0.min(w[0]).min(w[2]), lo.1.min(w[1]).min(w[3]));
            hi = (hi.0.max(w[0]).max(w[2]), hi.1.max(w[1]).max(w[3]));
        }
        let cells = (rows.len() as f32 / per_cell).max(1.0);
        let side = ((hi.0 - lo.0) * (hi.1 - lo.1) / cells)
            .sqrt()
            .max(f32::MIN_POSITIVE);
        let n = (
            ((hi.0 - lo.0) / side) as i32 + 1,
            ((hi.1 - lo.1) / side) as i32 + 1,
        );
        let inv = 1.0 / side;
        let cell = |v: f32, lo: f32, n: i32| (((v - lo) * inv) as i32).clamp(0, n - 1);
        let span = |w: &[f32; 4]| {
            (
                cell(w[0].min(w[2]), lo.0, n.0)..=cell(w[0].max(w[2]), lo.0, n.0),
                cell(w[1].min(w[3]), lo.1, n.1)..=cell(w[1].max(w[3]), lo.1, n.1),
            )
        };
        let mut start = vec![0u32; (n.0 * n.1) as usize + 1];
        for w in &rows {
            let (xs, ys) = span(w);
            for y in ys {
                for x in xs.clone() {
                    start[(y * n.0 + x) as usize + 1] += 1;
                }
            }
        }
        for c in 1..start.len() {
            start[c] += start[c - 1];
        }
        let total = start[start.len() - 1] as usize;
        let (mut wall, mut index) = (vec![[0f32; 4]; total], vec![0u32; total]);
        let mut fill = start.clone();
        for (k, w) in rows.iter().enumerate() {
            let (xs, ys) = span(w);
            for y in ys {
                for x in xs.clone() {
                    let at = &mut fill[(y * n.0 + x) as usize];
                    wall[*at as usize] = [w[0], w[1], w[2] - w[0], w[3] - w[1]];
                    index[*at as usize] = k as u32;
                    *at += 1;
                }
            }
        }
        UniformGrid {
            lo,
            side,
            inv,
            n,
            start,
            wall,
            index,
        }
    }

    /// Entries (walls counted once per cell they are in).
    pub fn entries(&self) -> usize {
        self.wall.len()
    }

    /// The closest hit `(t, index)` of the ray from `(ox, oy)` along `(dx, dy)`, `(∞, u32::MAX)`
    /// for none; ties to the lowest index.
    #[inline(always)]
    pub fn cast(&self, (ox, oy): (f32, f32), (dx, dy): (f32, f32)) -> (f32, u32) {
        let (mut best, mut best_k) = (f32::INFINITY, u32::MAX);
        // Enter the grid's box.
        let (w, h) = (self.n.0 as f32 * self.side, self.n.1 as f32 * self.side);
        let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
        for (o, d, lo, len) in [(ox, dx, self.lo.0, w), (oy, dy, self.lo.1, h)] {
            let (a, b) = ((lo - o) / d, (lo + len - o) / d);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
        // NaN (a zero direction component on the box's bound) counts as a miss.
        if t0 > t1 || t0.is_nan() || t1.is_nan() {
            return (best, best_k);
        }
        let fx = (ox + t0 * dx - self.lo.0) * self.inv;
        let fy = (oy + t0 * dy - self.lo.1) * self.inv;
        let (mut ix, mut iy) = (
            (fx as i32).clamp(0, self.n.0 - 1),
            (fy as i32).clamp(0, self.n.1 - 1),
        );
        let (sx, sy) = (if dx > 0.0 { 1 } else { -1 }, if dy > 0.0 { 1 } else { -1 });
        let (tdx, tdy) = ((self.side / dx).abs(), (self.side / dy).abs());
        let next = |f: f32, i: i32, d: f32, td: f32| {
            t0 + if d > 0.0 {
                ((i + 1) as f32 - f) * td
            } else {
                (f - i as f32) * td
            }
        };
        let (mut tx, mut ty) = (next(fx, ix, dx, tdx), next(fy, iy, dy, tdy));
        loop {
            let c = (iy * self.n.0 + ix) as usize;
            for e in self.start[c] as usize..self.start[c + 1] as usize {
                let [x0, y0, ex, ey] = self.wall[e];
                let (wx, wy) = (x0 - ox, y0 - oy);
                let den = dx * ey - dy * ex;
                let t = (wx * ey - wy * ex) / den;
                let s = (wx * dy - wy * dx) / den;
                let k = self.index[e];
                if den != 0.0
                    && t >= 0.0
                    && (0.0..=1.0).contains(&s)
                    && (t < best || (t == best && k < best_k))
                {
                    (best, best_k) = (t, k);
                }
            }
            if best <= tx.min(ty) {
                break;
            }
            if tx < ty {
                ix += sx;
                tx += tdx;
                if ix < 0 || ix >= self.n.0 {
                    break;
                }
            } else {
                iy += sy;
                ty += tdy;
                if iy < 0 || iy >= self.n.1 {
                    break;
                }
            }
        }
        (best, best_k)
    }
}
