//! Writing `.npy` files, whole or streamed, atomically.
//!
//! The header is the one `npyz` (and so earlier slabclip versions) writes: the dict
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (N, 2, ), }`, padded with spaces and a
//! newline so the data starts at a multiple of 64 bytes (format 1.0). When the row count is not
//! known up front, room for a 20-digit count is reserved and the header is rewritten in place at
//! the end, with extra spaces (which NumPy ignores) where the digits are fewer.

use std::io::{Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::mem::size_of;
use std::path::Path;

use super::atomic::AtomicFile;
use crate::error::Error;
use crate::real::Real;

/// A value type `.npy` files are written in: `f32` (`'<f4'`), `f64` (`'<f8'`), `u8` (`'|u1'`).
pub trait NpyElement: bytemuck::Pod {
    /// The NumPy type string, little-endian.
    const DESCR: &'static str;
}

impl<F: Real> NpyElement for F {
    const DESCR: &'static str = if size_of::<F>() == 4 { "<f4" } else { "<f8" };
}

impl NpyElement for u8 {
    const DESCR: &'static str = "|u1";
}

/// Staged bytes are written to the file once there are this many.
const STAGE: usize = 1 << 20;

/// An `.npy` array being written: rows of a fixed shape, appended in any number of pieces,
/// in C order, then [`finish`](NpyWriter::finish)ed. Until then it lives under a temporary name
/// in the destination folder; dropped unfinished (an error on the way), it is deleted and an
/// existing file at the destination is untouched.
#[derive(Debug)]
pub struct NpyWriter<T: NpyElement> {
    out: AtomicFile,
    /// The dimensions after the first: `[2]` for `(N, 2)`, `[]` for `(N,)`.
    row_shape: Vec<u64>,
    /// The row count promised at creation, if any.
    rows: Option<u64>,
    header_len: usize,
    /// Values written so far.
    values: u64,
    staged: Vec<u8>,
    _element: PhantomData<T>,
}

impl<T: NpyElement> NpyWriter<T> {
    /// Starts writing `path` as an array of shape `(rows, row_shape…)`. With `rows` `None` the
    /// count is whatever was written when [`finish`](NpyWriter::finish) is called.
    ///
    /// Errors (a missing folder, a folder at `path`, no permission) name `path`.
    pub fn create(path: &Path, rows: Option<u64>, row_shape: &[u64]) -> Result<Self, Error> {
        let mut out = AtomicFile::create(path)?;
        let header = match rows {
            Some(n) => header::<T>(n, row_shape, 0),
            None => header::<T>(0, row_shape, header::<T>(u64::MAX, row_shape, 0).len()),
        };
        out.file().write_all(&header).map_err(|e| out.failed(e))?;
        Ok(NpyWriter {
            out,
            row_shape: row_shape.to_vec(),
            rows,
            header_len: header.len(),
            values: 0,
            staged: Vec::new(),
            _element: PhantomData,
        })
    }

    /// Appends values in C order (a piece need not end on a row boundary).
    pub fn write(&mut self, values: &[T]) -> Result<(), Error> {
        let bytes: &[u8] = bytemuck::cast_slice(values);
        let start = self.staged.len();
        self.staged.extend_from_slice(bytes);
        if cfg!(target_endian = "big") {
            self.staged[start..]
                .chunks_exact_mut(size_of::<T>())
                .for_each(<[u8]>::reverse);
        }
        self.values += values.len() as u64;
        if self.staged.len() >= STAGE {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        let written = self.out.file().write_all(&self.staged);
        written.map_err(|e| self.out.failed(e))?;
        self.staged.clear();
        Ok(())
    }

    /// Completes the file and moves it over the destination.
    ///
    /// An error if the values written are not a whole number of rows, or not the row count
    /// promised at creation; the destination is then untouched.
    pub fn finish(mut self) -> Result<(), Error> {
        self.flush()?;
        let per_row = self.row_shape.iter().product::<u64>().max(1);
        let rows = self.values / per_row;
        let whole = self.values.is_multiple_of(per_row) && self.rows.is_none_or(|n| n == rows);
        if !whole {
            let promised = self
                .rows
                .map_or(String::new(), |n| format!(" of the {n} promised"));
            return Err(self.out.failed(std::io::Error::other(format!(
                "internal error: {} values written, not a whole number of {per_row}-value rows{promised}",
                self.values
            ))));
        }
        if self.rows.is_none() {
            let header = header::<T>(rows, &self.row_shape, self.header_len);
            let file = self.out.file();
            let rewritten = file
                .seek(SeekFrom::Start(0))
                .and_then(|_| file.write_all(&header));
            rewritten.map_err(|e| self.out.failed(e))?;
        }
        self.out.commit()
    }
}

/// The preamble and header for shape `(rows, row_shape…)`, padded with spaces to a multiple of
/// 64 bytes and to at least `min_len` bytes.
fn header<T: NpyElement>(rows: u64, row_shape: &[u64], min_len: usize) -> Vec<u8> {
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': (",
        T::DESCR
    );
    for d in std::iter::once(&rows).chain(row_shape) {
        dict += &format!("{d}, ");
    }
    dict += "), }";
    // Preamble: magic (6), version (2), header length (2); the text ends with a newline.
    let unpadded = 10 + dict.len() + 1;
    let len = unpadded.max(min_len).next_multiple_of(64);
    let text_len = (len - 10) as u16;
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&text_len.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(len - 1, b' ');
    out.push(b'\n');
    out
}

/// Writes equal-length columns as one `.npy` array of shape `(N, columns.len())` in `F`'s dtype
/// (`<f4` or `<f8`), C order: row `i` is `columns[0][i], columns[1][i], …`.
///
/// E.g. `[t_entry, t_exit]` gives `(N, 2)`; the four columns of a
/// [`Segments`](crate::Segments) give `(N, 4)`. The file is written whole or not at all. No
/// columns is an [`Error::File`]; columns of different lengths are an
/// [`Error::LengthMismatch`], both before anything is written.
pub fn write_columns<F: Real>(path: impl AsRef<Path>, columns: &[&[F]]) -> Result<(), Error> {
    let path = path.as_ref();
    let Some(first) = columns.first() else {
        return Err(Error::file(path, "nothing to write: no columns"));
    };
    if let Some(c) = columns.iter().find(|c| c.len() != first.len()) {
        return Err(Error::LengthMismatch {
            what: "column",
            expected: first.len(),
            found: c.len(),
        });
    }
    let n = first.len();
    let mut out = NpyWriter::<F>::create(path, Some(n as u64), &[columns.len() as u64])?;
    // Interleave a block of rows at a time.
    let mut block = Vec::new();
    for start in (0..n).step_by(1 << 16) {
        block.clear();
        for i in start..n.min(start + (1 << 16)) {
            block.extend(columns.iter().map(|c| c[i]));
        }
        out.write(&block)?;
    }
    out.finish()
}

/// Writes bytes as a `.npy` array of shape `(N,)`, dtype `uint8` (e.g. class codes), whole or
/// not at all.
pub fn write_u8(path: impl AsRef<Path>, values: &[u8]) -> Result<(), Error> {
    let mut out = NpyWriter::<u8>::create(path.as_ref(), Some(values.len() as u64), &[])?;
    out.write(values)?;
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{read_segments, Batch};

    #[test]
    fn headers_are_what_numpy_and_npyz_write() {
        let h = header::<f32>(20_000, &[4], 0);
        assert_eq!(h.len(), 128);
        let text = std::str::from_utf8(&h[10..]).unwrap();
        assert_eq!(
            text.trim_end(),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (20000, 4, ), }"
        );
        assert!(text.ends_with(" \n"));
        // The same bytes npyz writes for the same array.
        let mut npyz_bytes = Vec::new();
        {
            use npyz::WriterBuilder;
            let mut w = npyz::WriteOptions::<u8>::new()
                .default_dtype()
                .shape(&[3])
                .writer(&mut npyz_bytes)
                .begin_nd()
                .unwrap();
            w.extend([7u8, 8, 9]).unwrap();
            w.finish().unwrap();
        }
        let mut ours = header::<u8>(3, &[], 0);
        ours.extend([7, 8, 9]);
        assert_eq!(ours, npyz_bytes);
        // Room reserved for any count: the largest fits the same length.
        let reserved = header::<f64>(u64::MAX, &[2], 0).len();
        assert_eq!(header::<f64>(0, &[2], reserved).len(), reserved);
        assert_eq!(header::<f64>(5, &[2], 300).len(), 320);
    }

    #[test]
    fn streamed_files_read_back_bit_for_bit_with_or_without_a_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.npy");
        let values = [1.0f64, 2.0, 3.0, 4.0, f64::NAN, -0.0, f64::INFINITY, 1e-310];
        let mut bytes = Vec::new();
        for rows in [Some(2), None] {
            let mut w = NpyWriter::<f64>::create(&path, rows, &[4]).unwrap();
            for piece in [&values[..3], &values[3..3], &values[3..]] {
                w.write(piece).unwrap();
            }
            w.finish().unwrap();
            let Batch::F64(v) = read_segments(&path).unwrap() else {
                panic!("not f64")
            };
            assert_eq!(
                v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                values.map(f64::to_bits)
            );
            bytes.push(std::fs::read(&path).unwrap());
        }
        assert_eq!(bytes[0].len(), bytes[1].len());
    }

    #[test]
    fn broken_promises_and_bad_columns_leave_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.npy");
        write_columns::<f32>(&path, &[&[], &[], &[], &[]]).unwrap();
        assert_eq!(read_segments(&path).unwrap(), Batch::F32(vec![]));
        let old = std::fs::read(&path).unwrap();

        let mut w = NpyWriter::<f32>::create(&path, Some(2), &[4]).unwrap();
        w.write(&[0.0; 4]).unwrap();
        assert!(w
            .finish()
            .unwrap_err()
            .to_string()
            .contains("of the 2 promised"));
        let mut w = NpyWriter::<f32>::create(&path, None, &[4]).unwrap();
        w.write(&[0.0; 5]).unwrap();
        assert!(w
            .finish()
            .unwrap_err()
            .to_string()
            .contains("5 values written, not a whole number of 4-value rows"));
        let mut w = NpyWriter::<f32>::create(&path, None, &[4]).unwrap();
        w.write(&[0.0; 4]).unwrap();
        drop(w);
        assert!(matches!(
            write_columns(&path, &[&[1.0f32][..], &[]]),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(write_columns::<f32>(&path, &[]).is_err());
        assert_eq!(
            std::fs::read(&path).unwrap(),
            old,
            "the old file is untouched"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left behind");
    }
}
