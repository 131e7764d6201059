//! The pieces as columns ([`PieceColumns`]): what the command line writes to `.npz` and the
//! Python package hands to numpy, built without a list of [`Piece`]s the size of the answer.
//!
//! A fresh list of 32-byte pieces, then six columns copied out of it, touches every page of
//! both: on a machine where first touching memory is slow (page faults in a virtual machine
//! cost about 1 ms per MB here) that dominated the Python call. Instead blocks of segments are
//! cut into small lists that are reused (they stay in the cache), a round of blocks at a time on
//! the pool's threads, and each round's pieces are written straight into the columns, each
//! block by one thread, so the columns' first touch is shared by the threads too.

use core::mem::MaybeUninit;

use rayon::prelude::*;

use super::{Grid, GridOptions, Piece, BLOCK};
use crate::buffers::SegmentSource;
use crate::real::Real;

/// The pieces of a batch as equal-length columns, in the order of [`Grid::pieces`]: the piece
/// `k` is `(segment[k], ix[k], iy[k], t_entry[k], t_exit[k], class[k])`. Indices are `i64`,
/// numpy's integer, as the `.npz` files of `slabclip clip --grid` and the Python package's
/// `grid_pieces` have them; `class` holds the [`Class`](crate::Class) codes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieceColumns<F> {
    /// Index of the segment in the input batch.
    pub segment: Vec<i64>,
    /// Column of the cell.
    pub ix: Vec<i64>,
    /// Row of the cell.
    pub iy: Vec<i64>,
    /// Where the segment enters the cell.
    pub t_entry: Vec<F>,
    /// Where it leaves.
    pub t_exit: Vec<F>,
    /// How it meets the cell, as its `u8` code.
    pub class: Vec<u8>,
}

impl<F: Real> PieceColumns<F> {
    /// How many pieces.
    pub fn len(&self) -> usize {
        self.segment.len()
    }

    /// Whether there are no pieces.
    pub fn is_empty(&self) -> bool {
        self.segment.is_empty()
    }

    /// Room for `additional` more pieces in every column; `Err` when it cannot be allocated.
    fn try_reserve(&mut self, additional: usize) -> Result<(), std::collections::TryReserveError> {
        self.segment.try_reserve(additional)?;
        self.ix.try_reserve(additional)?;
        self.iy.try_reserve(additional)?;
        self.t_entry.try_reserve(additional)?;
        self.t_exit.try_reserve(additional)?;
        self.class.try_reserve(additional)
    }

    /// Room for `additional` more pieces in every column.
    fn reserve(&mut self, additional: usize) {
        self.segment.reserve(additional);
        self.ix.reserve(additional);
        self.iy.reserve(additional);
        self.t_entry.reserve(additional);
        self.t_exit.reserve(additional);
        self.class.reserve(additional);
    }

    /// The next `n` slots past the end of every column (reserved before).
    fn spare(&mut self, n: usize) -> Slots<'_, F> {
        Slots {
            segment: &mut self.segment.spare_capacity_mut()[..n],
            ix: &mut self.ix.spare_capacity_mut()[..n],
            iy: &mut self.iy.spare_capacity_mut()[..n],
            t_entry: &mut self.t_entry.spare_capacity_mut()[..n],
            t_exit: &mut self.t_exit.spare_capacity_mut()[..n],
            class: &mut self.class.spare_capacity_mut()[..n],
        }
    }

    /// Counts `n` more pieces in every column.
    ///
    /// # Safety
    ///
    /// The `n` slots past the end of every column are written (by [`Slots::write`]).
    unsafe fn grow(&mut self, n: usize) {
        let len = self.len() + n;
        // SAFETY: the caller wrote the `n` slots past the old length of each column, which
        // `spare` took within their capacity.
        unsafe {
            self.segment.set_len(len);
            self.ix.set_len(len);
            self.iy.set_len(len);
            self.t_entry.set_len(len);
            self.t_exit.set_len(len);
            self.class.set_len(len);
        }
    }
}

/// Equal-length runs of slots, one per column, for some pieces.
struct Slots<'a, F> {
    segment: &'a mut [MaybeUninit<i64>],
    ix: &'a mut [MaybeUninit<i64>],
    iy: &'a mut [MaybeUninit<i64>],
    t_entry: &'a mut [MaybeUninit<F>],
    t_exit: &'a mut [MaybeUninit<F>],
    class: &'a mut [MaybeUninit<u8>],
}

impl<'a, F: Real> Slots<'a, F> {
    /// The first `k` slots and the rest.
    fn split_at(self, k: usize) -> (Self, Self) {
        let (segment, segment_rest) = self.segment.split_at_mut(k);
        let (ix, ix_rest) = self.ix.split_at_mut(k);
        let (iy, iy_rest) = self.iy.split_at_mut(k);
        let (t_entry, t_entry_rest) = self.t_entry.split_at_mut(k);
        let (t_exit, t_exit_rest) = self.t_exit.split_at_mut(k);
        let (class, class_rest) = self.class.split_at_mut(k);
        (
            Slots {
                segment,
                ix,
                iy,
                t_entry,
                t_exit,
                class,
            },
            Slots {
                segment: segment_rest,
                ix: ix_rest,
                iy: iy_rest,
                t_entry: t_entry_rest,
                t_exit: t_exit_rest,
                class: class_rest,
            },
        )
    }

    /// Writes `pieces` (as many as the slots) into the slots, column by column.
    fn write(self, pieces: &[Piece<F>]) {
        debug_assert_eq!(self.segment.len(), pieces.len());
        fill(self.segment, pieces, |p| p.segment as i64);
        fill(self.ix, pieces, |p| p.ix.into());
        fill(self.iy, pieces, |p| p.iy.into());
        fill(self.t_entry, pieces, |p| p.t_entry);
        fill(self.t_exit, pieces, |p| p.t_exit);
        fill(self.class, pieces, |p| p.class as u8);
    }
}

/// `out[k] = f(pieces[k])`.
#[inline(always)]
fn fill<T, F>(out: &mut [MaybeUninit<T>], pieces: &[Piece<F>], f: impl Fn(&Piece<F>) -> T) {
    for (o, p) in out.iter_mut().zip(pieces) {
        o.write(f(p));
    }
}

/// Blocks per thread in a round: enough that a thread with a slow block is not the round's
/// tail for long, few enough that the round's lists stay small.
const BLOCKS_PER_THREAD: usize = 4;

impl<F: Real> Grid<F> {
    /// Every piece of every segment of `input` as columns: the same pieces, in the same order,
    /// as [`Grid::pieces`], at any thread count.
    pub fn piece_columns<S: SegmentSource<F> + ?Sized>(
        &self,
        input: &S,
        options: &GridOptions,
    ) -> PieceColumns<F> {
        let n = input.len();
        let blocks = n.div_ceil(BLOCK);
        let threads = if blocks < 2 {
            1
        } else {
            crate::threads::available()
        };
        let mut lists: Vec<Vec<Piece<F>>> = Vec::new();
        lists.resize_with((threads * BLOCKS_PER_THREAD).min(blocks), Vec::new);
        let mut columns = PieceColumns::default();
        let mut first = 0;
        while first < blocks {
            let round = &mut lists[..(blocks - first).min(threads * BLOCKS_PER_THREAD)];
            let cut = |(k, list): (usize, &mut Vec<Piece<F>>)| {
                let b = first + k;
                list.clear();
                self.pieces_into(input, b * BLOCK..((b + 1) * BLOCK).min(n), options, list);
            };
            if threads > 1 {
                round.par_iter_mut().enumerate().for_each(cut);
            } else {
                round.iter_mut().enumerate().for_each(cut);
            }
            let got: usize = round.iter().map(Vec::len).sum();
            first += round.len();
            if columns.is_empty() {
                // The first round's pieces per segment, and a quarter more, for the whole
                // batch: room never written is never touched, and the columns then seldom grow
                // by copying. Too much to allocate: grown as needed instead.
                let done = (first * BLOCK).min(n);
                let estimate = got as f64 / done as f64 * n as f64 * 1.25;
                let _ = columns.try_reserve(estimate.min(isize::MAX as f64 / 64.0) as usize);
            }
            columns.reserve(got);
            let mut rest = columns.spare(got);
            let mut parts = Vec::with_capacity(round.len());
            for list in round.iter() {
                let (part, tail) = rest.split_at(list.len());
                parts.push(part);
                rest = tail;
            }
            if threads > 1 {
                parts
                    .into_par_iter()
                    .zip(round.par_iter())
                    .for_each(|(part, list)| part.write(list));
            } else {
                for (part, list) in parts.into_iter().zip(round.iter()) {
                    part.write(list);
                }
            }
            // SAFETY: the parts tile the `got` slots past the end of every column (their
            // lengths are the lists' lengths, which sum to `got`), and each part was written.
            unsafe { columns.grow(got) };
        }
        columns
    }
}
