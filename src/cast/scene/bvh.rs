//! The scene's tree: a 4-wide bounding volume hierarchy over the walls, built from Morton codes.
//!
//! ```text
//! build:  centroid of each wall → 16 + 16 bit Morton code → radix sort
//!         top-down over the sorted codes: a range splits where its highest differing bit
//!         flips (the middle where all codes agree); a node takes the two halves and splits
//!         the larger of its parts again until it has 4 children or every part is a leaf
//!         (at most LEAF walls, contiguous in the sorted order)
//!         boxes bottom-up, exact (min / max of the wall coordinates, no rounding)
//! store:  the walls in leaf order, each as a hot row (P0 and E = P1 − P0: what a ray reads
//!         first, 4 to a cache line for f32) and a cold one (P1 and the index), both followed
//!         by LEAF − 1 NaN walls, so that a leaf's test reads whole fours of rows from its start
//!         whatever its count
//! refit:  the same topology, every box recomputed from the walls (children before parents:
//!         nodes are stored parents first)
//! ```

use super::super::ray_segments::Row;
use crate::real::Real;

/// Children per node.
pub(crate) const WIDTH: usize = 4;
/// Most walls in a leaf, tested four at a time. Eight measured 5–12 % more closest and any
/// hits than four at 10⁵–10⁶ walls (fewer nodes to test), lidar scans the same; sixteen more
/// still at 10⁶ walls but 8 % fewer lidar beams (`docs/guide/scenes.md`).
pub(crate) const LEAF: usize = 8;
/// A child slot without a child.
pub(crate) const EMPTY: u32 = u32::MAX;
/// Child references with this bit are leaves: `start << 4 | (count − 1)`.
const LEAF_BIT: u32 = 1 << 31;
/// How many walls ahead a gather in the tree's order prefetches: the rows are read at random,
/// and each read waits on a cache miss and a page walk.
const GATHER_AHEAD: usize = 32;
/// The most walls a tree can hold (the leaf start's 27 bits).
pub(crate) const MAX_WALLS: usize = 1 << 27;
/// The deepest a traversal stack can need: three siblings pushed per level of a tree whose
/// depth is at most the code's 32 bits plus the 27 of a range of equal codes halved.
pub(crate) const STACK: usize = 3 * (32 + 27) + 2;

/// A leaf reference for walls `start .. start + count` (`1 ≤ count ≤ LEAF`).
#[inline(always)]
fn leaf_ref(start: usize, count: usize) -> u32 {
    LEAF_BIT | ((start as u32) << 4) | (count as u32 - 1)
}

/// The walls of a leaf reference, or `None` for an inner node's.
#[inline(always)]
pub(crate) fn as_leaf(child: u32) -> Option<core::ops::Range<usize>> {
    (child & LEAF_BIT != 0 && child != EMPTY).then(|| {
        let start = ((child & !LEAF_BIT) >> 4) as usize;
        start..start + (child & 15) as usize + 1
    })
}

/// Four children's boxes (structure of arrays, for one vector compare per bound) and
/// references. An empty slot has the empty box `lo = +∞`, `hi = −∞`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub(crate) struct Node<F> {
    pub lo_x: [F; WIDTH],
    pub lo_y: [F; WIDTH],
    pub hi_x: [F; WIDTH],
    pub hi_y: [F; WIDTH],
    pub child: [u32; WIDTH],
}

/// A box `[lo_x, hi_x] × [lo_y, hi_y]`; the empty box is `+∞ … −∞`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds<F> {
    pub lo_x: F,
    pub lo_y: F,
    pub hi_x: F,
    pub hi_y: F,
}

impl<F: Real> Bounds<F> {
    pub(crate) fn empty() -> Self {
        Bounds {
            lo_x: F::INFINITY,
            lo_y: F::INFINITY,
            hi_x: -F::INFINITY,
            hi_y: -F::INFINITY,
        }
    }

    fn of_rows(rows: impl Iterator<Item = Row<F>>) -> Self {
        let mut b = Self::empty();
        for r in rows {
            b.add(r.sx, r.sy);
            b.add(r.x1, r.y1);
        }
        b
    }

    #[inline(always)]
    pub(crate) fn add(&mut self, x: F, y: F) {
        let min = |a: F, b: F| if b < a { b } else { a };
        let max = |a: F, b: F| if b > a { b } else { a };
        self.lo_x = min(self.lo_x, x);
        self.lo_y = min(self.lo_y, y);
        self.hi_x = max(self.hi_x, x);
        self.hi_y = max(self.hi_y, y);
    }

    fn union(&mut self, o: &Self) {
        self.add(o.lo_x, o.lo_y);
        self.add(o.hi_x, o.hi_y);
    }
}

impl<F: Real> Node<F> {
    fn empty() -> Self {
        let e = Bounds::<F>::empty();
        Node {
            lo_x: [e.lo_x; WIDTH],
            lo_y: [e.lo_y; WIDTH],
            hi_x: [e.hi_x; WIDTH],
            hi_y: [e.hi_y; WIDTH],
            child: [EMPTY; WIDTH],
        }
    }

    fn set(&mut self, k: usize, b: &Bounds<F>) {
        self.lo_x[k] = b.lo_x;
        self.lo_y[k] = b.lo_y;
        self.hi_x[k] = b.hi_x;
        self.hi_y[k] = b.hi_y;
    }

    fn bounds(&self) -> Bounds<F> {
        let mut b = Bounds::empty();
        for k in 0..WIDTH {
            if self.child[k] != EMPTY {
                b.add(self.lo_x[k], self.lo_y[k]);
                b.add(self.hi_x[k], self.hi_y[k]);
            }
        }
        b
    }
}

/// The tree: the walls in leaf order (`hot`: each wall's `(sx, sy, ex, ey)`, `cold`: its
/// `(x1, y1, j)`; both padded with `LEAF − 1` NaN walls), `nodes` parents first, `root` a child
/// reference ([`EMPTY`] for no walls, a leaf reference for a few).
#[derive(Clone, Debug)]
pub(crate) struct Bvh<F> {
    pub hot: Vec<[F; 4]>,
    pub cold: Vec<[F; 3]>,
    /// How many walls.
    pub len: usize,
    pub nodes: Vec<Node<F>>,
    pub root: u32,
}

/// A wall's midpoint, in `f64` (exact for `f32` walls), which orders the tree.
#[inline(always)]
pub(crate) fn mid<F: Real>(r: &Row<F>) -> (f64, f64) {
    (
        (r.sx.to_f64() + r.x1.to_f64()) * 0.5,
        (r.sy.to_f64() + r.y1.to_f64()) * 0.5,
    )
}

/// A Morton code of 16 + 16 bits: `x`'s bits in the even places.
pub(crate) fn morton(x: u32, y: u32) -> u32 {
    fn spread(mut v: u32) -> u32 {
        v &= 0xFFFF;
        v = (v | (v << 8)) & 0x00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333;
        v = (v | (v << 1)) & 0x5555_5555;
        v
    }
    spread(x) | (spread(y) << 1)
}

/// Sorts `items` by `code` (stable), in four passes of a byte (the 256 places a pass writes
/// to stay in the first-level cache; 11-bit digits in three passes measured slower): the
/// histograms in one read, and a pass skipped where every code has the same digit. An item
/// carries what its place is needed for, so that nothing is looked up at random after.
pub(crate) fn radix_sort<T: Copy>(items: &mut Vec<T>, code: impl Fn(&T) -> u32) {
    const DIGIT: u32 = 8;
    const MASK: u32 = (1 << DIGIT) - 1;
    let mut count = vec![[0usize; 1 << DIGIT]; 4];
    for item in items.iter() {
        let c = code(item);
        for (pass, h) in count.iter_mut().enumerate() {
            h[((c >> (pass as u32 * DIGIT)) & MASK) as usize] += 1;
        }
    }
    let mut tmp = Vec::new();
    for (pass, h) in count.iter_mut().enumerate() {
        // Every item has this digit (an empty list too: nothing to sort).
        if h.contains(&items.len()) {
            continue;
        }
        let mut sum = 0;
        for c in h.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        tmp.resize(items.len(), items[0]);
        let shift = pass as u32 * DIGIT;
        for item in items.iter() {
            let b = ((code(item) >> shift) & MASK) as usize;
            tmp[h[b]] = *item;
            h[b] += 1;
        }
        core::mem::swap(items, &mut tmp);
    }
}

impl<F: Real> Bvh<F> {
    /// The tree over `rows` (finite walls), `mids` the box of their midpoints ([`mid`]);
    /// [`Bvh::rows`] gives them back in the tree's order.
    pub(crate) fn build(rows: Vec<Row<F>>, mids: &Bounds<f64>) -> Self {
        let n = rows.len();
        let (lx, ly, hx, hy) = (mids.lo_x, mids.lo_y, mids.hi_x, mids.hi_y);
        let scale = |lo: f64, hi: f64| if hi > lo { 65535.0 / (hi - lo) } else { 0.0 };
        let (sx, sy) = (scale(lx, hx), scale(ly, hy));
        let mut keys: Vec<(u32, u32)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (x, y) = mid(r);
                let qx = ((x - lx) * sx).clamp(0.0, 65535.0) as u32;
                let qy = ((y - ly) * sy).clamp(0.0, 65535.0) as u32;
                (morton(qx, qy), i as u32)
            })
            .collect();
        radix_sort(&mut keys, |k| k.0);
        let ahead = |q: usize| keys.get(q + GATHER_AHEAD).map(|k| k.1 as usize);
        let mut bvh = Bvh::store(keys.iter().enumerate().map(|(q, &(_, i))| {
            if let Some(p) = ahead(q) {
                // A row may straddle two cache lines: both are fetched.
                let row = rows.as_ptr().wrapping_add(p);
                crate::simd::prefetch(row, 0);
                crate::simd::prefetch(row, core::mem::size_of::<Row<F>>() as isize - 1);
            }
            rows[i as usize]
        }));
        drop(rows);
        if n == 0 {
            return bvh;
        }
        let mut b = Builder {
            keys: &keys,
            bvh: &bvh,
            nodes: Vec::with_capacity(n / 3 + 1),
        };
        let (root, _) = b.subtree(0, n);
        let mut nodes = b.nodes;
        nodes.shrink_to_fit();
        (bvh.nodes, bvh.root) = (nodes, root);
        bvh
    }

    /// `rows` in leaf order, without nodes yet.
    fn store(rows: impl ExactSizeIterator<Item = Row<F>>) -> Self {
        let nan = F::NAN;
        let (len, pad) = (rows.len(), LEAF - 1);
        let mut hot = Vec::with_capacity(len + pad);
        let mut cold = Vec::with_capacity(len + pad);
        for r in rows {
            hot.push([r.sx, r.sy, r.ex, r.ey]);
            cold.push([r.x1, r.y1, r.j]);
        }
        hot.resize(len + pad, [nan; 4]);
        cold.resize(len + pad, [nan; 3]);
        Bvh {
            hot,
            cold,
            len,
            nodes: Vec::new(),
            root: EMPTY,
        }
    }

    /// Wall `p` of the tree's order.
    #[inline(always)]
    pub(crate) fn row(&self, p: usize) -> Row<F> {
        let ([sx, sy, ex, ey], [x1, y1, j]) = (self.hot[p], self.cold[p]);
        Row {
            sx,
            sy,
            x1,
            y1,
            ex,
            ey,
            j,
        }
    }

    /// Replaces wall `p` of the tree's order (the boxes wait for [`Bvh::refit`]).
    pub(crate) fn set_row(&mut self, p: usize, r: &Row<F>) {
        self.hot[p] = [r.sx, r.sy, r.ex, r.ey];
        self.cold[p] = [r.x1, r.y1, r.j];
    }

    /// Every wall, in the tree's order.
    pub(crate) fn rows(&self) -> impl ExactSizeIterator<Item = Row<F>> + Clone + '_ {
        (0..self.len).map(|p| self.row(p))
    }

    /// The walls of `range` (of the tree's order).
    pub(crate) fn rows_of(
        &self,
        range: core::ops::Range<usize>,
    ) -> impl Iterator<Item = Row<F>> + '_ {
        range.map(|p| self.row(p))
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.hot.capacity() * core::mem::size_of::<[F; 4]>()
            + self.cold.capacity() * core::mem::size_of::<[F; 3]>()
            + self.nodes.capacity() * core::mem::size_of::<Node<F>>()
    }

    /// Recomputes every box from `rows` (changed in place, same order), keeping the topology.
    pub(crate) fn refit(&mut self) {
        for i in (0..self.nodes.len()).rev() {
            for k in 0..WIDTH {
                let c = self.nodes[i].child[k];
                let b = if c == EMPTY {
                    continue;
                } else if let Some(r) = as_leaf(c) {
                    Bounds::of_rows(self.rows_of(r))
                } else {
                    self.nodes[c as usize].bounds()
                };
                self.nodes[i].set(k, &b);
            }
        }
    }
}

/// The top-down build over the sorted codes (`keys`) and the walls stored in their order.
struct Builder<'a, F> {
    keys: &'a [(u32, u32)],
    bvh: &'a Bvh<F>,
    nodes: Vec<Node<F>>,
}

impl<F: Real> Builder<'_, F> {
    /// Where range `lo..hi` (more than one wall) splits: at the highest bit in which its first
    /// and last codes differ, or in the middle when they are equal.
    fn split(&self, lo: usize, hi: usize) -> usize {
        let (a, b) = (self.keys[lo].0, self.keys[hi - 1].0);
        if a == b {
            return (lo + hi) / 2;
        }
        let bit = 31 - (a ^ b).leading_zeros();
        lo + self.keys[lo..hi].partition_point(|&(c, _)| (c >> bit) & 1 == 0)
    }

    /// The subtree over walls `lo..hi`: its reference and box.
    fn subtree(&mut self, lo: usize, hi: usize) -> (u32, Bounds<F>) {
        if hi - lo <= LEAF {
            let rows = self.bvh.rows_of(lo..hi);
            return (leaf_ref(lo, hi - lo), Bounds::of_rows(rows));
        }
        let mut parts = [(0usize, 0usize); WIDTH];
        parts[0] = (lo, hi);
        let mut count = 1;
        while count < WIDTH {
            // Split the largest part that is not a leaf yet.
            let Some(k) = (0..count)
                .filter(|&k| parts[k].1 - parts[k].0 > LEAF)
                .max_by_key(|&k| parts[k].1 - parts[k].0)
            else {
                break;
            };
            let (a, b) = parts[k];
            let m = self.split(a, b);
            parts[k] = (a, m);
            parts[count] = (m, b);
            count += 1;
        }
        parts[..count].sort_unstable();
        let me = self.nodes.len();
        self.nodes.push(Node::empty());
        let mut node = Node::empty();
        let mut all = Bounds::empty();
        for (k, &(a, b)) in parts[..count].iter().enumerate() {
            let (c, bounds) = self.subtree(a, b);
            node.child[k] = c;
            node.set(k, &bounds);
            all.union(&bounds);
        }
        self.nodes[me] = node;
        (me as u32, all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_orders_codes_stably() {
        // Codes with every byte varying, then codes whose high bytes (or low byte) are all
        // the same, so that those passes are skipped.
        fn spread(i: u32) -> u32 {
            i.wrapping_mul(2_654_435_761)
        }
        let codes: [fn(u32) -> u32; 3] = [
            |i| spread(i) >> 3,
            |i| spread(i) & 0xFF,
            |i| 0xAB00_0000 | (spread(i) & 0xFF_FF00),
        ];
        for code in codes {
            let mut keys: Vec<(u32, u32)> = (0..5000u32).map(|i| (code(i), i)).collect();
            let mut want = keys.clone();
            want.sort_by_key(|k| k.0);
            radix_sort(&mut keys, |k| k.0);
            assert_eq!(keys, want);
        }
        let mut none: Vec<(u32, u32)> = Vec::new();
        radix_sort(&mut none, |k| k.0);
        assert!(none.is_empty());
    }

    #[test]
    fn leaf_references_round_trip() {
        for (start, count) in [(0, 1), (5, 4), ((1 << 27) - 4, 4)] {
            assert_eq!(as_leaf(leaf_ref(start, count)), Some(start..start + count));
        }
        assert_eq!(as_leaf(EMPTY), None);
        assert_eq!(as_leaf(7), None);
    }
}
