//! Items listed by the cells of a uniform grid that their boxes meet, all in one array: the
//! rect sets' bins and the visibility check's grid.

/// The cell `v` falls in on an axis of `n` cells from `origin`, `inv` cells a unit:
/// `floor((v − origin) · inv)` clamped to `[0, n)`. Monotone in `v` (each step rounds
/// monotonically), so an item listed from the cells of its box's bounds is listed in the cell
/// of every point between them.
#[inline(always)]
pub(crate) fn cell_of(v: f64, origin: f64, inv: f64, n: usize) -> usize {
    let f = ((v - origin) * inv).floor();
    if f >= (n - 1) as f64 {
        n - 1
    } else if f > 0.0 {
        f as usize
    } else {
        0 // also NaN (an infinite difference times a zero `inv`)
    }
}

/// Cell `c = j · nx + i`'s items are `items[start[c] .. start[c + 1]]`, in increasing order.
#[derive(Clone, Debug, Default)]
pub(crate) struct CellLists {
    start: Vec<usize>,
    items: Vec<u32>,
}

impl CellLists {
    /// Item `k` in every cell of `ranges[k] = [i0, j0, i1, j1]` (inclusive, each below
    /// `nx` or `ny`) of an `nx × ny` grid; fewer than `u32::MAX` items.
    pub(crate) fn build(ranges: &[[usize; 4]], nx: usize, ny: usize) -> Self {
        let mut start = vec![0; nx * ny + 1];
        for &[i0, j0, i1, j1] in ranges {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    start[j * nx + i + 1] += 1;
                }
            }
        }
        for c in 0..nx * ny {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut items = vec![0; start[nx * ny]];
        for (k, &[i0, j0, i1, j1]) in ranges.iter().enumerate() {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    let c = j * nx + i;
                    items[fill[c]] = k as u32;
                    fill[c] += 1;
                }
            }
        }
        CellLists { start, items }
    }

    /// Cell `c`'s items.
    #[inline(always)]
    pub(crate) fn cell(&self, c: usize) -> &[u32] {
        &self.items[self.start[c]..self.start[c + 1]]
    }

    /// Whether no cell lists anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
