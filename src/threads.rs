//! Where the batch shapes run: rayon's current pool, or only the calling thread.
//!
//! `auto` and the batch shapes split large batches across rayon's current pool (the global one
//! outside any pool). A caller that wants one thread could install its work in a one-thread
//! pool, but that hands every call to another thread and back: on a 1M-segment clip called
//! from Python, 370–401 Mseg/s through a one-thread pool against 422–454 on the calling thread
//! (medians of 200 calls). [`on_calling_thread`] says "one thread, this one"
//! instead. The answers are the same bits either way: no batch shape's output depends on the
//! split.

use std::cell::Cell;

thread_local! {
    static CALLING_THREAD_ONLY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with every batch shape of this crate on the calling thread: `auto`, the pairwise
/// and N × M shapes, the grid and the ray queries do not split their batches while `f` runs
/// (on this thread; other threads are not affected).
///
/// ```
/// use slabclip::{Algorithm, Rect, SegmentsRef};
/// let (x0, y0, x1, y1) = (vec![-1.0f32; 100_000], vec![0.5; 100_000], vec![2.0; 100_000], vec![0.5; 100_000]);
/// let segs = SegmentsRef::new(&x0, &y0, &x1, &y1)?;
/// let rect = Rect::new(0.0, 0.0, 1.0, 1.0)?;
/// let r = slabclip::on_calling_thread(|| Algorithm::Auto.clip_to_vec(&rect, &segs, false));
/// assert_eq!(r.t_entry[0], 1.0 / 3.0);
/// # Ok::<(), slabclip::Error>(())
/// ```
pub fn on_calling_thread<R>(f: impl FnOnce() -> R) -> R {
    /// Restores the previous setting, also when `f` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            CALLING_THREAD_ONLY.set(self.0);
        }
    }
    let _restore = Restore(CALLING_THREAD_ONLY.replace(true));
    f()
}

/// The threads a batch may be split across here: 1 inside [`on_calling_thread`], else rayon's
/// current pool's.
pub(crate) fn available() -> usize {
    if CALLING_THREAD_ONLY.get() {
        1
    } else {
        rayon::current_num_threads()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_inside_and_restored_after_even_a_panic() {
        let outside = available();
        assert_eq!(outside, rayon::current_num_threads());
        assert_eq!(on_calling_thread(available), 1);
        assert_eq!(on_calling_thread(|| on_calling_thread(available)), 1);
        assert_eq!(available(), outside);
        let caught = std::panic::catch_unwind(|| on_calling_thread(|| panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(available(), outside);
        // Another thread is not affected.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        on_calling_thread(|| assert_eq!(pool.install(available), 2));
    }
}
