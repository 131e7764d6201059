//! Clipping a file into a file, in bounded memory: what `slabclip clip` runs.
//!
//! ```text
//! check: output is not the input, its folder exists
//! for each chunk of at most chunk_rows rows (a window of the input's memory map):
//!     clip it with the algorithm into reused output buffers
//!     interleave the outputs into rows and append them to the temporary .npy
//!     report progress
//! finish: the header's row count (CSV), sync, rename over the destination
//! ```
//!
//! Memory is a few chunks' worth (the mapped window, the outputs, their interleaved copy),
//! whatever the file's size. Every kernel works row by row, so the output does not depend on
//! the chunk size, and it is the same bytes as clipping the whole file at once.

use std::path::Path;

use super::input::Input;
use super::npy_writer::NpyWriter;
use super::same_file;
use crate::buffers::{ClipOutput, SegmentsMut};
use crate::error::Error;
use crate::geom::Rect;
use crate::kernels::Algorithm;
use crate::real::Real;

/// Rows per chunk when the caller has no reason to choose: 16 MiB of `float32` input
/// (32 MiB of `float64`), large enough for the kernels and rayon to run at full speed.
pub const DEFAULT_CHUNK_ROWS: usize = 1 << 20;

/// What [`clip_file`] writes, in the input's row order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Emit {
    /// Shape `(N, 2)`, the input's dtype: `t_entry, t_exit`, NaN on a miss or an invalid row.
    #[default]
    T,
    /// Shape `(N,)`, `uint8`: the [`Class`](crate::Class) codes.
    Class,
    /// Shape `(N, 4)`, the input's dtype: the clipped segment, a NaN row on a miss.
    Segments,
}

/// How [`clip_file`] clips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClipSettings {
    /// The algorithm (all give the same answer).
    pub algorithm: Algorithm,
    /// What to write.
    pub emit: Emit,
    /// The most rows clipped at once (at least one is used): memory grows with it.
    pub chunk_rows: usize,
}

impl Default for ClipSettings {
    fn default() -> Self {
        ClipSettings {
            algorithm: Algorithm::Auto,
            emit: Emit::T,
            chunk_rows: DEFAULT_CHUNK_ROWS,
        }
    }
}

/// How far [`clip_file`] has got, reported after every chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Rows clipped and written.
    pub rows: u64,
    /// Bytes of the input read (header included).
    pub bytes: u64,
    /// The input's size in bytes.
    pub total_bytes: u64,
}

/// Clips every row of `input` against `rect` and writes the result to `output` as `.npy`,
/// whole or not at all; returns the number of rows. `F` must be the input's dtype.
///
/// Before any work, `output` naming the input file (under any spelling) or a folder that does
/// not exist is an [`Error::File`] naming `output`. A malformed row found on the way (CSV) is an
/// error naming the input, line and column; the partial output is then deleted and an existing
/// file at `output` is untouched. `progress` is called after every chunk.
pub fn clip_file<F: Real>(
    input: &Input,
    rect: &Rect<F>,
    output: &Path,
    settings: &ClipSettings,
    progress: &mut dyn FnMut(Progress),
) -> Result<u64, Error> {
    if same_file(input.path(), output) {
        return Err(Error::file(
            output,
            "output is the input file; refusing to overwrite it",
        ));
    }
    let mut chunks = input.chunks::<F>(settings.chunk_rows)?;
    let rows = input.rows();
    match settings.emit {
        Emit::T => {
            let mut out = NpyWriter::<F>::create(output, rows, &[2])?;
            let (mut t_entry, mut t_exit, mut rows_out) = (Vec::new(), Vec::new(), Vec::new());
            while let Some(segments) = chunks.next_chunk() {
                let segments = segments?;
                let n = segments.len();
                t_entry.resize(n, F::NAN);
                t_exit.resize(n, F::NAN);
                settings.algorithm.clip(
                    rect,
                    segments,
                    &mut ClipOutput {
                        t_entry: Some(&mut t_entry[..n]),
                        t_exit: Some(&mut t_exit[..n]),
                        ..Default::default()
                    },
                )?;
                interleave(&[&t_entry[..n], &t_exit[..n]], &mut rows_out);
                out.write(&rows_out)?;
                report(progress, &chunks, input);
            }
            out.finish()?;
        }
        Emit::Class => {
            let mut out = NpyWriter::<u8>::create(output, rows, &[])?;
            let mut class = Vec::new();
            while let Some(segments) = chunks.next_chunk() {
                let segments = segments?;
                let n = segments.len();
                class.resize(n, 0u8);
                settings.algorithm.clip(
                    rect,
                    segments,
                    &mut ClipOutput {
                        class: Some(&mut class[..n]),
                        ..Default::default()
                    },
                )?;
                out.write(&class[..n])?;
                report(progress, &chunks, input);
            }
            out.finish()?;
        }
        Emit::Segments => {
            let mut out = NpyWriter::<F>::create(output, rows, &[4])?;
            let mut columns: [Vec<F>; 4] = Default::default();
            let mut rows_out = Vec::new();
            while let Some(segments) = chunks.next_chunk() {
                let segments = segments?;
                let n = segments.len();
                columns.iter_mut().for_each(|c| c.resize(n, F::NAN));
                let [x0, y0, x1, y1] = &mut columns;
                let clipped =
                    SegmentsMut::new(&mut x0[..n], &mut y0[..n], &mut x1[..n], &mut y1[..n])?;
                settings.algorithm.clip(
                    rect,
                    segments,
                    &mut ClipOutput {
                        segments: Some(clipped),
                        ..Default::default()
                    },
                )?;
                interleave(&columns.each_ref().map(|c| &c[..n]), &mut rows_out);
                out.write(&rows_out)?;
                report(progress, &chunks, input);
            }
            out.finish()?;
        }
    }
    Ok(chunks.rows_done())
}

fn report<F: Real>(
    progress: &mut dyn FnMut(Progress),
    chunks: &super::Chunks<'_, F>,
    input: &Input,
) {
    progress(Progress {
        rows: chunks.rows_done(),
        bytes: chunks.bytes_done(),
        total_bytes: input.size(),
    });
}

/// `columns` (of equal length) as rows, into `out`.
fn interleave<F: Copy>(columns: &[&[F]], out: &mut Vec<F>) {
    out.clear();
    let n = columns.first().map_or(0, |c| c.len());
    out.extend((0..n).flat_map(|i| columns.iter().map(move |c| c[i])));
}
