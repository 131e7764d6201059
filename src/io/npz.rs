//! `.npz` output: several named arrays in one file, as `numpy.savez` writes them (a zip of
//! `.npy` files, stored uncompressed), written whole or not at all.

use std::io::{Cursor, Write};
use std::path::Path;

use npyz::{AutoSerialize, WriterBuilder};

use crate::error::Error;
use crate::io::atomic::write_atomically;

/// One named 1-D array of an `.npz` file.
pub enum Column<'a> {
    /// `float32`
    F32(&'a [f32]),
    /// `float64`
    F64(&'a [f64]),
    /// `uint8`
    U8(&'a [u8]),
    /// `int64`
    I64(&'a [i64]),
}

/// The `.npy` bytes of one 1-D array.
fn npy<T: AutoSerialize + Copy>(values: &[T]) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[values.len() as u64])
        .writer(&mut buf)
        .begin_nd()?;
    w.extend(values.iter().copied())?;
    w.finish()?;
    Ok(buf)
}

/// Writes `arrays` (name, column) to `path` as an `.npz`, whole or not at all: the archive is
/// built in memory, then written through [`write_atomically`]. `np.load(path)[name]` gives each
/// array back.
pub fn write_npz(path: impl AsRef<Path>, arrays: &[(&str, Column<'_>)]) -> Result<(), Error> {
    let path = path.as_ref();
    let failed =
        |e: &dyn std::fmt::Display| Error::file(path, format!("cannot build the .npz: {e}"));
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, column) in arrays {
        let bytes = match column {
            Column::F32(v) => npy(v),
            Column::F64(v) => npy(v),
            Column::U8(v) => npy(v),
            Column::I64(v) => npy(v),
        }
        .map_err(|e| failed(&e))?;
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(format!("{name}.npy"), options)
            .map_err(|e| failed(&e))?;
        zip.write_all(&bytes).map_err(|e| failed(&e))?;
    }
    let bytes = zip.finish().map_err(|e| failed(&e))?.into_inner();
    write_atomically(path, |w| w.write_all(&bytes))
}
