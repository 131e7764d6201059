//! The pieces of a batch kept as blocks ([`PieceBlocks`]), for callers that cut a batch every
//! step of a simulation: the blocks' lists are reused from one call to the next, so a step
//! after the first allocates nothing and touches no fresh page, and the blocks are cut on the
//! pool's threads with nothing to join afterwards.
//!
//! A fresh list per call ([`Grid::pieces`]) pays for first touching its memory (page faults:
//! about 1 ms per MB in this virtual machine), and then for joining the threads' blocks into
//! it; a list kept across calls on one thread ([`Grid::pieces_into`]) pays neither but uses
//! one thread. These blocks are both kept and cut in parallel.

use rayon::prelude::*;

use super::{Grid, GridOptions, Piece, BLOCK};
use crate::buffers::SegmentSource;
use crate::real::Real;

/// Every piece of a batch, as blocks of consecutive segments' pieces (`4,096` segments a
/// block): in order, block after block, they are [`Grid::pieces`]' list. Filled by
/// [`Grid::pieces_into_blocks`], which reuses the blocks' memory on every call.
#[derive(Clone, Debug)]
pub struct PieceBlocks<F> {
    lists: Vec<Vec<Piece<F>>>,
    /// How many of `lists` hold this batch's blocks; those past it keep their memory for a
    /// later, larger batch.
    used: usize,
}

impl<F> Default for PieceBlocks<F> {
    fn default() -> Self {
        PieceBlocks {
            lists: Vec::new(),
            used: 0,
        }
    }
}

impl<F: Real> PieceBlocks<F> {
    /// No blocks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The blocks, in order: each holds the pieces of `4,096` consecutive segments (fewer in
    /// the last), in the order of [`Grid::pieces`].
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = &[Piece<F>]> + '_ {
        self.lists[..self.used].iter().map(Vec::as_slice)
    }

    /// Every piece, in the order of [`Grid::pieces`].
    pub fn iter(&self) -> impl Iterator<Item = &Piece<F>> + '_ {
        self.blocks().flatten()
    }

    /// How many pieces.
    pub fn len(&self) -> usize {
        self.blocks().map(<[_]>::len).sum()
    }

    /// Whether there are no pieces.
    pub fn is_empty(&self) -> bool {
        self.blocks().all(<[_]>::is_empty)
    }

    /// The pieces as one list, copied: [`Grid::pieces`]' answer.
    pub fn to_vec(&self) -> Vec<Piece<F>> {
        let total = self.len();
        let mut out = Vec::with_capacity(total);
        let mut parts = Vec::with_capacity(self.used);
        let mut rest = &mut out.spare_capacity_mut()[..total];
        for b in self.blocks() {
            let (part, tail) = rest.split_at_mut(b.len());
            parts.push(part);
            rest = tail;
        }
        // Copied in parallel, so that the first touch of the list's pages (the page faults) is
        // shared by the threads too.
        parts
            .into_par_iter()
            .zip(self.lists[..self.used].par_iter())
            .for_each(|(part, block)| {
                for (dst, p) in part.iter_mut().zip(block) {
                    dst.write(*p);
                }
            });
        // SAFETY: the parts tile the first `total` slots of the spare capacity (their lengths
        // are the blocks' lengths, which sum to `total`), and each slot was written above.
        unsafe { out.set_len(total) };
        out
    }
}

impl<F: Real> Grid<F> {
    /// Every piece of every segment of `input` into `out`, replacing what it held: the pieces
    /// of [`Grid::pieces`], in blocks of `4,096` segments cut on rayon's current pool (with the
    /// same pieces at any thread count). The blocks' lists are kept and reused: a caller that
    /// cuts a batch every step allocates only while a block outgrows its list.
    pub fn pieces_into_blocks<S: SegmentSource<F> + ?Sized>(
        &self,
        input: &S,
        options: &GridOptions,
        out: &mut PieceBlocks<F>,
    ) {
        let n = input.len();
        let blocks = n.div_ceil(BLOCK);
        if out.lists.len() < blocks {
            out.lists.resize_with(blocks, Vec::new);
        }
        out.used = blocks;
        let cut = |(b, list): (usize, &mut Vec<Piece<F>>)| {
            list.clear();
            self.pieces_into(input, b * BLOCK..((b + 1) * BLOCK).min(n), options, list);
        };
        let lists = &mut out.lists[..blocks];
        if blocks > 1 && crate::threads::available() > 1 {
            lists.par_iter_mut().enumerate().for_each(cut);
        } else {
            lists.iter_mut().enumerate().for_each(cut);
        }
    }
}
