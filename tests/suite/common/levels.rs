//! Running a test at every SIMD level this CPU has, inside one test binary
//! (`slabclip::simd::force`).

use std::sync::Mutex;

use slabclip::simd::{self, Level};

/// Held by whichever test is forcing levels, so that no other test in the binary changes the
/// level under it. (Tests that do not force a level run at whatever level is forced: every
/// level gives the same bits.)
static FORCING: Mutex<()> = Mutex::new(());

/// Puts back the level that ran before, also when the test panics.
struct Restore(Level);

impl Drop for Restore {
    fn drop(&mut self) {
        simd::force(self.0).expect("the level that ran before");
    }
}

/// `f(level)` with the batch kernels forced to each level this CPU runs, lowest first; the
/// answers in order.
pub fn each<T>(mut f: impl FnMut(Level) -> T) -> Vec<T> {
    let _held = FORCING.lock().unwrap_or_else(|e| e.into_inner());
    let _restore = Restore(simd::level());
    simd::available()
        .map(|level| {
            simd::force(level).expect("a level this CPU runs");
            assert_eq!(simd::level(), level);
            f(level)
        })
        .collect()
}
