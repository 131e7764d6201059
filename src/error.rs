//! The one error type of the library. Every message names what was wrong and where.

use std::path::PathBuf;

/// What went wrong. Nothing in slabclip panics on bad input; it returns one of these.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A rect with a non-finite bound or `min > max`.
    #[error("invalid rect: {0}")]
    InvalidRect(String),
    /// Buffers of one batch whose lengths disagree; found before any work starts.
    #[error("length mismatch: {what} has {found} elements, expected {expected}")]
    LengthMismatch {
        /// Which buffer.
        what: &'static str,
        /// The length the batch needs.
        expected: usize,
        /// The length it has.
        found: usize,
    },
    /// Interleaved data that is not a whole number of `[x0, y0, x1, y1]` rows.
    #[error("interleaved buffer of {0} values is not a whole number of 4-value rows")]
    RaggedRows(usize),
    /// A convex polygon that cannot be built: non-finite, degenerate or not convex.
    #[error("invalid polygon: {0}")]
    InvalidPolygon(String),
    /// A query argument out of its domain (a negative or NaN `t_max`, a batch too large for the
    /// float type's exact indices).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An algorithm name no kernel has.
    #[error("unknown algorithm {0:?} (expected one of: {1})")]
    UnknownAlgorithm(String, String),
    /// A workload name [`Dist`](crate::workload::Dist) does not have.
    #[error("unknown workload {0:?} (expected one of: {1})")]
    UnknownWorkload(String, String),
    /// A check or a resource a command needed failed; the message says which.
    #[error("{0}")]
    Failed(String),
    /// A file that cannot be read or written as asked; the message names the problem.
    #[error("{}: {msg}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, with the row and column where there is one.
        msg: String,
    },
}

impl Error {
    /// A file error for `path`.
    pub fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::File {
            path: path.into(),
            msg: msg.into(),
        }
    }
}
