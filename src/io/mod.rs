//! Files: reading segment batches of any size, and writing results whole or not at all.
//!
//! # Reading
//!
//! [`Input::open`] takes a file of any supported [`Format`], chosen by its extension:
//!
//! | extension | contents | dtype |
//! | --- | --- | --- |
//! | `.npy` | NumPy array of shape `(N, 4)`, C order; little- or big-endian | `float32` or `float64`, from the header |
//! | `.csv` | a header line `x0,y0,x1,y1`, then one row of four finite numbers per line | `float64` |
//! | `.f32` | raw little-endian `float32`, rows `x0, y0, x1, y1` back to back | `float32` |
//! | `.f64` | raw little-endian `float64`, likewise | `float64` |
//!
//! Opening checks everything that can be checked up front (the `.npy` header and data length,
//! the CSV header line, the raw size being a whole number of rows) and reads nothing else. The
//! rows are then read through a memory map, whole ([`Input::read_all`], a [`Batch`] in the
//! file's own dtype) or in chunks of a bounded number of rows ([`Input::chunks`], each chunk a
//! `&[Segment<F>]` viewed in place where the bytes allow it), so a file larger than memory can
//! be processed in bounded memory:
//!
//! ```no_run
//! use slabclip::io::{Dtype, Input};
//!
//! let input = Input::open("big.npy")?;
//! if input.dtype() == Dtype::F32 {
//!     let mut chunks = input.chunks::<f32>(1 << 20)?;
//!     while let Some(rows) = chunks.next_chunk() {
//!         let rows = rows?; // &[Segment<f32>], at most 2^20 of them
//!         println!("{} rows, {} bytes read so far", rows.len(), chunks.bytes_done());
//!     }
//! }
//! # Ok::<(), slabclip::Error>(())
//! ```
//!
//! Rect files (`(M, 4)` `.npy` or a `.csv` with the header `xmin,ymin,xmax,ymax`) go through the
//! same readers: [`read_rects`] checks every row is a valid rect.
//!
//! Anything malformed is an [`Error::File`](crate::Error::File) naming the file and the problem,
//! with the line and column for CSV; no bytes, however malformed, make a reader panic, allocate
//! beyond the file's size, or read out of bounds. The one thing a memory map cannot defend
//! against is another process truncating or rewriting the file while it is read: slabclip
//! assumes its inputs do not change under it (a truncation would end the process with `SIGBUS`).
//!
//! # Writing
//!
//! Output is `.npy`, written by [`NpyWriter`] (streamed, in any number of pieces, the row count
//! given up front or found at the end) or [`write_columns`] / [`write_u8`] (whole arrays). Either
//! way it goes to a temporary file in the destination folder and is renamed into place only when
//! complete ([`write_atomically`]), so an existing file is never half-overwritten and a failed
//! write leaves nothing behind.
//!
//! Polylines (SPEC §7) come as GeoJSON ([`GeoJsonFile`], streamed feature by feature;
//! [`GeoJsonWriter`]) or as ragged arrays in an `.npz` ([`read_ragged_npz`]); [`lines_file`]
//! clips or tiles a file of them into either format, which is what `slabclip lines` runs.
//!
//! [`clip_file`] puts the two together: it clips a file chunk by chunk into an `.npy` output,
//! which is what `slabclip clip` runs. This layer knows nothing of the command line.

mod atomic;
mod clip;
mod csv;
mod geojson;
mod input;
mod lines;
mod npy;
mod npy_writer;
mod npz;
mod rects;

pub use atomic::{output_folder, same_file, write_atomically};
pub use clip::{clip_file, ClipSettings, Emit, Progress, DEFAULT_CHUNK_ROWS};
pub use geojson::{
    write_geojson_lines, FeatureBatch, FeatureInfo, GeoJsonFile, GeoJsonWriter, RESERVED,
};
pub use input::{read_segments, Batch, Chunks, Dtype, Format, Input};
pub use lines::{
    lines_file, read_ragged_npz, LinesFormat, LinesSettings, LinesSummary, LinesTarget,
    RaggedLines, DEFAULT_BATCH_VERTICES,
};
pub use npy_writer::{write_columns, write_u8, NpyElement, NpyWriter};
pub use npz::{write_npz, Column, NpzArray, NpzReader};
pub use rects::{read_rects, RectBatch};

/// The first `keep` characters of text from a file, quoted and escaped so that an error message
/// stays on one line whatever the file holds, with `…` when there was more.
pub(crate) fn excerpt(text: &str, keep: usize) -> String {
    let head: String = text.chars().take(keep).collect();
    let more = if text.chars().nth(keep).is_some() {
        "…"
    } else {
        ""
    };
    format!("{head:?}{more}")
}

/// The first `keep` characters of raw text from a file (JSON, already quoted where it is a
/// string), on one line, with `…` when there was more.
pub(crate) fn excerpt_raw(text: &str, keep: usize) -> String {
    let head: String = text
        .chars()
        .take(keep)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let more = if text.chars().nth(keep).is_some() {
        "…"
    } else {
        ""
    };
    format!("{head}{more}")
}
