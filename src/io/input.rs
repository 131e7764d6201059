//! Opening an input file of any supported format, and reading its rows whole or in chunks
//! through a memory map.
//!
//! ```text
//! open:   format from the extension → the header (npy: preamble and dict, csv: the first line)
//!         → the data's extent, checked against the file's size (binary formats)
//! chunks: map the next window of the file → view it as rows in place (binary, native order,
//!         aligned) or decode it into a reused buffer (byte-swapped, unaligned, csv)
//!         → drop the window before mapping the next, so at most one window is resident
//! ```

use std::fs::File;
use std::io::Read;
use std::mem::size_of;
use std::path::{Path, PathBuf};

use memmap2::{Advice, Mmap, MmapOptions};

use super::{csv, npy};
use crate::buffers::rows_from_interleaved;
use crate::error::Error;
use crate::geom::Segment;
use crate::real::Real;

/// The file formats segments are read from, chosen by the file's extension (any case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `.npy`: a NumPy array of shape `(N, 4)`, `float32` or `float64`, C order.
    Npy,
    /// `.csv`: the header `x0,y0,x1,y1`, then rows of four finite numbers, read as `float64`.
    Csv,
    /// `.f32`: raw little-endian `float32`, rows of four values back to back.
    F32,
    /// `.f64`: raw little-endian `float64`, rows of four values back to back.
    F64,
}

impl Format {
    /// Every format, in the order messages list them.
    pub const ALL: [Format; 4] = [Format::Npy, Format::Csv, Format::F32, Format::F64];

    /// The extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Npy => "npy",
            Format::Csv => "csv",
            Format::F32 => "f32",
            Format::F64 => "f64",
        }
    }

    /// The format `path`'s extension names; an [`Error::File`] listing the known ones otherwise.
    pub fn of_path(path: &Path) -> Result<Format, Error> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase());
        Format::ALL
            .into_iter()
            .find(|f| ext.as_deref() == Some(f.extension()))
            .ok_or_else(|| {
                let found = match ext {
                    Some(e) => format!("extension .{e}"),
                    None => "no extension".into(),
                };
                Error::file(
                    path,
                    format!("unknown input format ({found}), expected .npy, .csv, .f32 or .f64"),
                )
            })
    }
}

/// The element type of a file's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// `float32`.
    F32,
    /// `float64`.
    F64,
}

impl Dtype {
    /// Bytes per value.
    pub fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }

    /// The NumPy name, `"float32"` or `"float64"`.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => f32::DTYPE,
            Dtype::F64 => f64::DTYPE,
        }
    }

    /// The dtype of `F`.
    pub fn of<F: Real>() -> Dtype {
        if size_of::<F>() == 4 {
            Dtype::F32
        } else {
            Dtype::F64
        }
    }
}

/// Segment rows read whole from a file, interleaved `[x0, y0, x1, y1, …]`, in the file's dtype.
///
/// View the rows zero-copy with [`rows_from_interleaved`](crate::rows_from_interleaved); the
/// length is always a multiple of four.
#[derive(Clone, Debug, PartialEq)]
pub enum Batch {
    /// A `float32` file.
    F32(Vec<f32>),
    /// A `float64` file (every CSV file).
    F64(Vec<f64>),
}

impl Batch {
    /// How many segments (rows).
    pub fn len(&self) -> usize {
        match self {
            Batch::F32(v) => v.len() / 4,
            Batch::F64(v) => v.len() / 4,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dtype.
    pub fn dtype(&self) -> Dtype {
        match self {
            Batch::F32(_) => Dtype::F32,
            Batch::F64(_) => Dtype::F64,
        }
    }
}

/// Reads every row of a file of any [`Format`] into memory: [`Input::open`] then
/// [`Input::read_all`]. The memory needed is the size of the rows (for `.npy` and raw files,
/// about the file's size); use [`Input::chunks`] for files that may not fit.
pub fn read_segments(path: impl AsRef<Path>) -> Result<Batch, Error> {
    Input::open(path.as_ref())?.read_all()
}

/// How the values after the header are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Rows of four values of `dtype`, back to back, in little- or big-endian byte order.
    Binary { big_endian: bool },
    /// CSV lines, the header already checked.
    Csv,
}

/// An input file, opened and checked, ready to be read whole or in chunks.
///
/// Holds the file open; nothing is mapped or read until [`Input::chunks`] or
/// [`Input::read_all`].
#[derive(Debug)]
pub struct Input {
    path: PathBuf,
    file: File,
    format: Format,
    dtype: Dtype,
    layout: Layout,
    /// Where the rows start: after the `.npy` header or the CSV header line.
    data_start: u64,
    /// The file's length: where the rows end.
    data_end: u64,
    /// The row count, when the header or the size says it (not for CSV).
    rows: Option<u64>,
    /// The CSV header's column names (segments or rects).
    names: csv::Names,
}

/// How many leading bytes are read to check a header: the largest `.npy` preamble and header
/// slabclip accepts, or the longest CSV line.
const HEADER_PREFIX: u64 = 16 + npy::MAX_HEADER as u64;

impl Input {
    /// Opens `path` and checks its header and size; see the [module docs](crate::io) for what
    /// each format accepts. Errors name `path`: an unknown extension, a missing or unreadable
    /// file, a folder, and every problem the header or size shows.
    pub fn open(path: impl AsRef<Path>) -> Result<Input, Error> {
        Self::open_with(path.as_ref(), csv::SEGMENT_NAMES)
    }

    /// [`Input::open`] for rows of four numbers with other names: the CSV header `names`.
    pub(crate) fn open_with(path: &Path, names: csv::Names) -> Result<Input, Error> {
        let format = Format::of_path(path)?;
        let file = File::open(path).map_err(|e| Error::file(path, format!("cannot read: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| Error::file(path, format!("cannot read: {e}")))?;
        if meta.is_dir() {
            return Err(Error::file(path, "cannot read: it is a folder"));
        }
        let len = meta.len();
        let bad = |msg: String| Error::file(path, msg);
        let (dtype, layout, data_start, rows) = match format {
            Format::Npy => {
                let prefix = read_prefix(&file, path)?;
                let h = npy::parse_header(&prefix, len).map_err(bad)?;
                let dtype = h.dtype;
                (
                    dtype,
                    Layout::Binary {
                        big_endian: h.big_endian,
                    },
                    h.data_start,
                    Some(h.rows),
                )
            }
            Format::F32 | Format::F64 => {
                let dtype = if format == Format::F32 {
                    Dtype::F32
                } else {
                    Dtype::F64
                };
                let row = 4 * dtype.size() as u64;
                if len % row != 0 {
                    return Err(bad(format!(
                        "size {len} bytes is not a whole number of {row}-byte rows of four {}: \
                         {} rows and {} bytes too many",
                        dtype.name(),
                        len / row,
                        len % row
                    )));
                }
                (
                    dtype,
                    Layout::Binary { big_endian: false },
                    0,
                    Some(len / row),
                )
            }
            Format::Csv => {
                let prefix = read_prefix(&file, path)?;
                let start = csv::parse_header(&prefix, len, &names).map_err(bad)?;
                (Dtype::F64, Layout::Csv, start, None)
            }
        };
        Ok(Input {
            path: path.to_path_buf(),
            file,
            format,
            dtype,
            layout,
            data_start,
            data_end: len,
            rows,
            names,
        })
    }

    /// The path it was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The dtype the rows are read in (`float64` for CSV).
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// The number of rows, when known before reading: from the `.npy` header or the raw file's
    /// size; `None` for CSV (count the rows as they are read).
    pub fn rows(&self) -> Option<u64> {
        self.rows
    }

    /// The file's size in bytes (what [`Chunks::bytes_done`] reaches at the end).
    pub fn size(&self) -> u64 {
        self.data_end
    }

    /// Reads the rows in chunks of at most `max_rows` (at least one) rows of `F`, which must be
    /// the file's [`dtype`](Input::dtype) (an [`Error::File`] otherwise).
    ///
    /// Only one chunk's window of the file is mapped at a time, so memory stays bounded by the
    /// chunk size whatever the file's size. Chunks may hold fewer rows than asked (CSV windows
    /// end at a line); every row is read exactly once, in order.
    pub fn chunks<F: Real>(&self, max_rows: usize) -> Result<Chunks<'_, F>, Error> {
        if Dtype::of::<F>() != self.dtype {
            return Err(Error::file(
                &self.path,
                format!(
                    "the rows are {}, not {} as the reader asked",
                    self.dtype.name(),
                    F::DTYPE
                ),
            ));
        }
        Ok(Chunks {
            input: self,
            max_rows: max_rows.max(1),
            csv_window: csv::WINDOW,
            pos: self.data_start,
            rows_done: 0,
            next_line: 2,
            values: Vec::new(),
            window: None,
        })
    }

    /// Reads every row into memory, in the file's dtype. Chunk by chunk under the hood, so a
    /// malformed row deep in a CSV file is found with the memory used so far.
    pub fn read_all(&self) -> Result<Batch, Error> {
        Ok(match self.dtype {
            Dtype::F32 => Batch::F32(self.read_all_as()?),
            Dtype::F64 => Batch::F64(self.read_all_as()?),
        })
    }

    fn read_all_as<F: Real>(&self) -> Result<Vec<F>, Error> {
        // The row count was checked against the file's size, so this is at most its size.
        let capacity = self.rows.map_or(0, |r| r as usize * 4);
        let mut values = Vec::with_capacity(capacity);
        let mut chunks = self.chunks::<F>(super::DEFAULT_CHUNK_ROWS)?;
        while let Some(rows) = chunks.next_chunk() {
            values.extend_from_slice(bytemuck::cast_slice(rows?));
        }
        Ok(values)
    }
}

/// Up to [`HEADER_PREFIX`] bytes from the start of the file.
fn read_prefix(file: &File, path: &Path) -> Result<Vec<u8>, Error> {
    let mut prefix = Vec::new();
    let reader = file;
    reader
        .take(HEADER_PREFIX)
        .read_to_end(&mut prefix)
        .map_err(|e| Error::file(path, format!("cannot read: {e}")))?;
    Ok(prefix)
}

/// The rows of an [`Input`], one bounded chunk at a time ([`Input::chunks`]).
///
/// Not an [`Iterator`]: each chunk borrows the reader's window of the file, which the next call
/// unmaps. Use `while let Some(rows) = chunks.next_chunk() { let rows = rows?; … }`.
#[derive(Debug)]
pub struct Chunks<'a, F> {
    input: &'a Input,
    max_rows: usize,
    /// The most bytes a CSV window maps (a line must fit in one).
    csv_window: usize,
    /// The next byte to read.
    pos: u64,
    rows_done: u64,
    /// CSV: the number of the next line (the header is line 1).
    next_line: u64,
    /// Decoded values, for rows that cannot be viewed in place.
    values: Vec<F>,
    /// The window of the file the current chunk came from.
    window: Option<Mmap>,
}

impl<F: Real> Chunks<'_, F> {
    /// The next chunk of rows, `None` after the last, or the error that stopped reading (after
    /// which it returns `None`).
    pub fn next_chunk(&mut self) -> Option<Result<&[Segment<F>], Error>> {
        // Unmap the previous window before mapping the next: one resident at a time.
        self.window = None;
        if self.pos >= self.input.data_end {
            return None;
        }
        let step = match self.input.layout {
            Layout::Binary { big_endian } => self.next_binary(big_endian),
            Layout::Csv => self.next_csv().map(|()| false),
        };
        Some(match step {
            Ok(true) => {
                let bytes: &[u8] = self.window.as_deref().unwrap_or_default();
                // `next_binary` checked that the cast succeeds.
                bytemuck::try_cast_slice(bytes).map_err(|_| Error::RaggedRows(bytes.len()))
            }
            Ok(false) => rows_from_interleaved(&self.values),
            Err(e) => {
                self.pos = self.input.data_end;
                Err(e)
            }
        })
    }

    /// Rows returned so far.
    pub fn rows_done(&self) -> u64 {
        self.rows_done
    }

    /// How far into the file the chunks returned so far reach, in bytes (header included).
    pub fn bytes_done(&self) -> u64 {
        self.pos
    }

    /// Maps `len` bytes at `self.pos` into `self.window`.
    fn map(&mut self, len: usize) -> Result<(), Error> {
        let pos = self.pos;
        // SAFETY: the map is read-only and lives in `self.window`, so the slices handed out
        // borrow `self` and end before the window is replaced or dropped. Undefined behaviour
        // would need another process to change the file while it is mapped; the module docs
        // state that inputs must not change while they are read.
        let map = unsafe {
            MmapOptions::new()
                .offset(pos)
                .len(len)
                .populate()
                .map(&self.input.file)
        }
        .map_err(|e| {
            Error::file(
                &self.input.path,
                format!("cannot map {len} bytes at offset {pos}: {e}"),
            )
        })?;
        // Only a hint: the window is read front to back once.
        let _ = map.advise(Advice::Sequential);
        self.window = Some(map);
        Ok(())
    }

    /// Maps the next rows; `true` if they can be viewed in place in the window, `false` if
    /// they were decoded into `self.values`.
    fn next_binary(&mut self, big_endian: bool) -> Result<bool, Error> {
        let row = size_of::<Segment<F>>();
        // `open` checked that the data is a whole number of rows.
        let rows_left = (self.input.data_end - self.pos) / row as u64;
        let rows = rows_left
            .min(self.max_rows as u64)
            .min((isize::MAX as usize / row) as u64);
        let len = rows as usize * row;
        let start = self.pos;
        self.map(len)?;
        self.pos = start + len as u64;
        self.rows_done += rows;
        let bytes: &[u8] = self.window.as_deref().unwrap_or_default();
        let native = big_endian == cfg!(target_endian = "big");
        if native && bytemuck::try_cast_slice::<u8, Segment<F>>(bytes).is_ok() {
            return Ok(true);
        }
        // Unaligned or foreign byte order: copy, then swap each value's bytes if needed.
        self.values.clear();
        self.values.resize(len / size_of::<F>(), F::ZERO);
        let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut self.values);
        dst.copy_from_slice(bytes);
        if !native {
            dst.chunks_exact_mut(size_of::<F>())
                .for_each(<[u8]>::reverse);
        }
        Ok(false)
    }

    /// Parses the next lines into `self.values`.
    fn next_csv(&mut self) -> Result<(), Error> {
        let start = self.pos;
        let end = self.input.data_end;
        let len = (end - start).min(self.csv_window as u64) as usize;
        let reaches_end = start + len as u64 == end;
        let (max_rows, first_line) = (self.max_rows, self.next_line);
        self.values.clear();
        self.map(len)?;
        let bytes: &[u8] = self.window.as_deref().unwrap_or_default();
        let names = &self.input.names;
        let parsed = csv::parse_rows(
            bytes,
            reaches_end,
            first_line,
            max_rows,
            names,
            &mut self.values,
        );
        let (consumed, lines) = parsed.map_err(|msg| Error::file(&self.input.path, msg))?;
        if lines == 0 {
            return Err(Error::file(
                &self.input.path,
                format!(
                    "line {first_line}: longer than {} bytes, not a row of four numbers",
                    self.csv_window
                ),
            ));
        }
        self.pos = start + consumed as u64;
        self.next_line += lines;
        self.rows_done += lines;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every row of `input`, read in chunks of `max_rows` with CSV windows of `window` bytes.
    pub(crate) fn read_chunked<F: Real>(
        input: &Input,
        max_rows: usize,
        window: usize,
    ) -> Result<Vec<F>, Error> {
        let mut chunks = input.chunks::<F>(max_rows)?;
        chunks.csv_window = window;
        let mut values = Vec::new();
        let mut last = chunks.bytes_done();
        while let Some(rows) = chunks.next_chunk() {
            let rows = rows?;
            assert!(!rows.is_empty() && rows.len() <= max_rows.max(1));
            values.extend_from_slice(bytemuck::cast_slice(rows));
            assert!(chunks.bytes_done() > last);
            last = chunks.bytes_done();
        }
        assert_eq!(chunks.rows_done() as usize, values.len() / 4);
        Ok(values)
    }

    fn file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn formats_come_from_extensions() {
        assert_eq!(Format::of_path(Path::new("a.NPY")).unwrap(), Format::Npy);
        assert_eq!(Format::of_path(Path::new("a.b.csv")).unwrap(), Format::Csv);
        assert_eq!(Format::of_path(Path::new("x.f32")).unwrap(), Format::F32);
        assert_eq!(Format::of_path(Path::new("x.F64")).unwrap(), Format::F64);
        let e = Format::of_path(Path::new("x.txt")).unwrap_err().to_string();
        assert_eq!(
            e,
            "x.txt: unknown input format (extension .txt), expected .npy, .csv, .f32 or .f64"
        );
        assert!(Format::of_path(Path::new("x"))
            .unwrap_err()
            .to_string()
            .contains("no extension"));
    }

    #[test]
    fn raw_files_in_any_chunking() {
        let values: Vec<f64> = (0..4 * 7).map(|i| i as f64 * 0.5 - 3.0).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let (_dir, path) = file("r.f64", &bytes);
        let input = Input::open(&path).unwrap();
        assert_eq!((input.rows(), input.dtype()), (Some(7), Dtype::F64));
        for max_rows in [0, 1, 2, 3, 6, 7, 8, usize::MAX] {
            let got = read_chunked::<f64>(&input, max_rows, 64).unwrap();
            assert_eq!(bits(&got), bits(&values), "max_rows {max_rows}");
        }
        assert!(input.chunks::<f32>(4).is_err(), "the dtype must match");
        let (_dir, path) = file("r.f64", &bytes[..bytes.len() - 3]);
        let e = Input::open(&path).unwrap_err().to_string();
        assert!(
            e.ends_with("size 221 bytes is not a whole number of 32-byte rows of four float64: 6 rows and 29 bytes too many"),
            "{e}"
        );
    }

    #[test]
    fn csv_lines_split_across_windows_read_the_same() {
        let mut text = String::from("x0,y0,x1,y1\r\n");
        let mut want = Vec::new();
        for i in 0..40 {
            let row = [i as f64, -0.1 * i as f64, 1e-300, 12345.678e10];
            want.extend(row);
            text += &format!("{}, {:e},{:?} ,{}\n", row[0], row[1], row[2], row[3]);
        }
        text.pop(); // no newline at the very end
        let (_dir, path) = file("c.csv", text.as_bytes());
        let input = Input::open(&path).unwrap();
        assert_eq!(input.rows(), None);
        for window in [60, 61, 64, 100, 1000, 1 << 20] {
            for max_rows in [1, 3, 40, 41] {
                let got = read_chunked::<f64>(&input, max_rows, window).unwrap();
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "window {window} max_rows {max_rows}"
                );
            }
        }
        // A window smaller than a line is an error naming the line.
        let e = read_chunked::<f64>(&input, 5, 20).unwrap_err().to_string();
        assert!(
            e.ends_with("line 2: longer than 20 bytes, not a row of four numbers"),
            "{e}"
        );
    }

    #[test]
    fn csv_errors_name_the_line_in_any_window() {
        let mut text = String::from("x0,y0,x1,y1\n");
        for _ in 0..30 {
            text += "1,2,3,4\n";
        }
        text += "1,2,x,4\n";
        let (_dir, path) = file("c.csv", text.as_bytes());
        let input = Input::open(&path).unwrap();
        for window in [8, 9, 17, 50, 4096] {
            for max_rows in [1, 4, 100] {
                let e = read_chunked::<f64>(&input, max_rows, window)
                    .unwrap_err()
                    .to_string();
                assert!(
                    e.contains("line 32, column 3 (x1): \"x\" is not a number"),
                    "{window} {max_rows}: {e}"
                );
            }
        }
    }
}
