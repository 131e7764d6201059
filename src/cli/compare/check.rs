//! The check against the exact reference, on a deterministic subsample.
//!
//! Exact rationals take microseconds per segment, too slow for millions, so `compare` checks
//! rows `0, k, 2k, …` with `k` the smallest **odd** stride that keeps at most `--check` rows (odd,
//! so the rows fall on every lane position of every SIMD width). Those rows are clipped again
//! as one small batch with every output, each result is checked against
//! [`Exact::verify_clipped`] (SPEC §1: 6 ulps, exact 0 and 1 and far ends, the class, the
//! clipped segment),
//! and the row the timed run wrote for the same segment must hold the same bits, so the bits
//! checked are the bits timed.

use rayon::prelude::*;
use slabclip::reference::{exact, Exact};
use slabclip::{Class, Real, Rect, SegmentSource, Segments, SegmentsRef};

use super::measure::{Emit, Outputs, Subject};

/// The subsample and its exact answers, computed once for all algorithms.
pub struct Sample<F> {
    rows: Vec<usize>,
    segments: Segments<F>,
    exact: Vec<Exact>,
}

/// The rows checked out of `n` when at most `check` may be: every row, or an odd stride.
pub fn sample_rows(n: usize, check: usize) -> Vec<usize> {
    if check == 0 || n == 0 {
        return Vec::new();
    }
    let mut k = n.div_ceil(check);
    if k > 1 && k.is_multiple_of(2) {
        k += 1;
    }
    (0..n).step_by(k).collect()
}

impl<F: Real> Sample<F> {
    /// Picks the rows and computes their exact answers (on all cores: this is not timed).
    pub fn new(rect: &Rect<F>, input: &SegmentsRef<'_, F>, check: usize) -> Self {
        let rows = sample_rows(input.len(), check);
        let mut segments = Segments::new();
        rows.iter().for_each(|&i| segments.push(input.segment(i)));
        let exact = rows
            .par_iter()
            .map(|&i| exact(rect, &input.segment(i)))
            .collect();
        Sample {
            rows,
            segments,
            exact,
        }
    }

    /// How many rows are checked.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
}

/// What the check of one algorithm found.
pub struct Verdict {
    /// Rows that broke SPEC §1, or whose timed output differs from the checked one.
    pub mismatches: usize,
    /// The first of them, described.
    pub first: Option<String>,
}

/// Checks `subject` (an algorithm, or the naive baseline) on the sample, and the timed
/// outputs `timed` at the sampled rows.
pub fn check<F: Real>(
    subject: Subject,
    rect: &Rect<F>,
    sample: &Sample<F>,
    emit: Emit,
    timed: &Outputs<F>,
) -> Verdict {
    let full = subject
        .clip_to_vec(rect, &sample.segments)
        .expect("only clips are checked");
    let name = subject.name();
    let clipped = full.segments.as_ref().expect("asked for segments");
    let problems: Vec<String> = (0..sample.len())
        .into_par_iter()
        .filter_map(|k| {
            let row = sample.rows[k];
            let seg = sample.segments.segment(k);
            let class = Class::from_code(full.class[k]).unwrap_or(Class::Invalid);
            let verdict = sample.exact[k].verify_clipped(
                rect,
                &seg,
                full.t_entry[k],
                full.t_exit[k],
                class,
                &clipped.segment(k),
            );
            let verdict = verdict.and_then(|()| {
                if timed.same_row(row, &Outputs::from_full(emit, &full, k), 0) {
                    Ok(())
                } else {
                    Err("the timed run wrote other bits for this row than the checked run".into())
                }
            });
            verdict
                .err()
                .map(|rule| format!("{name} broke '{rule}' at row {row}: {seg:?}"))
        })
        .collect();
    Verdict {
        mismatches: problems.len(),
        first: problems.into_iter().next(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_an_odd_stride_of_at_most_check_rows() {
        assert_eq!(sample_rows(10, 100), (0..10).collect::<Vec<_>>());
        assert_eq!(sample_rows(10, 0), Vec::<usize>::new());
        assert_eq!(
            sample_rows(100, 50),
            (0..100).step_by(3).collect::<Vec<_>>()
        );
        for (n, check) in [(16 << 20, 100_000), (1_000_003, 7), (64, 64), (65, 64)] {
            let rows = sample_rows(n, check);
            assert!(rows.len() <= check && !rows.is_empty(), "{n} {check}");
            let k = rows.get(1).map_or(1, |r| r - rows[0]);
            assert!(k == 1 || k % 2 == 1, "stride {k}");
            let lanes: std::collections::HashSet<_> = rows.iter().map(|r| r % 16).collect();
            assert!(rows.len() < 16 || lanes.len() == 16, "{n} {check}");
        }
    }
}
