//! Files: reading segment batches and writing results, atomically.
//!
//! Input is a `.npy` array of shape `(N, 4)` (rows `x0, y0, x1, y1`), `float32` or `float64`,
//! little-endian, C order; its dtype is found at run time and kept ([`Batch`]). Anything else
//! is an [`Error::File`](crate::Error::File) that names the problem, and no bytes, however
//! malformed, make the reader panic or read out of bounds. Output is written to a temporary file
//! in the destination folder and renamed into place only when complete ([`write_atomically`]),
//! so an existing file is never half-overwritten and a failed write leaves nothing behind. This
//! layer knows nothing of the command line.

mod atomic;
mod npy;
mod npz;

pub use atomic::{output_folder, same_file, write_atomically};
pub use npy::{read_segments, write_columns, write_u8, Batch};
pub use npz::{write_npz, Column};
