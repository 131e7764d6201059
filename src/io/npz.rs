//! `.npz` files: several named arrays in one file, as `numpy.savez` writes them (a zip of
//! `.npy` files, stored uncompressed). Output is written whole or not at all; input
//! ([`read_npz_array`]) reads one named array at a time, checked as any `.npy` input is.

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
    /// `float32` of shape `(n / 2, 2)`: interleaved `x, y` pairs (an odd length is an error).
    F32Pairs(&'a [f32]),
    /// `float64` of shape `(n / 2, 2)`, likewise.
    F64Pairs(&'a [f64]),
}

/// The `.npy` bytes of one 1-D array.
fn npy<T: AutoSerialize + Copy>(values: &[T]) -> std::io::Result<Vec<u8>> {
    npy_shaped(values, &[values.len() as u64])
}

/// The `.npy` bytes of `(n / 2, 2)` pairs.
fn npy_pairs<T: AutoSerialize + Copy>(values: &[T]) -> std::io::Result<Vec<u8>> {
    if values.len() % 2 == 1 {
        return Err(std::io::Error::other(format!(
            "{} values are not whole (x, y) pairs",
            values.len()
        )));
    }
    npy_shaped(values, &[values.len() as u64 / 2, 2])
}

fn npy_shaped<T: AutoSerialize + Copy>(values: &[T], shape: &[u64]) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
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
            Column::F32Pairs(v) => npy_pairs(v),
            Column::F64Pairs(v) => npy_pairs(v),
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

/// One array read from an `.npz`: its values in their own type.
#[derive(Clone, Debug, PartialEq)]
pub enum NpzArray {
    /// `float32`
    F32(Vec<f32>),
    /// `float64`
    F64(Vec<f64>),
    /// `int32`
    I32(Vec<i32>),
    /// `int64`
    I64(Vec<i64>),
}

/// An `.npz` opened for reading its arrays by name.
pub struct NpzReader {
    path: std::path::PathBuf,
    zip: zip::ZipArchive<std::fs::File>,
}

impl NpzReader {
    /// Opens `path` as a zip archive; errors name the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| Error::file(path, e.to_string()))?;
        let zip = zip::ZipArchive::new(file)
            .map_err(|e| Error::file(path, format!("not an .npz (zip) file: {e}")))?;
        Ok(NpzReader {
            path: path.to_path_buf(),
            zip,
        })
    }

    /// The names of the arrays (entries ending in `.npy`, without it), in archive order.
    pub fn names(&self) -> Vec<String> {
        self.zip
            .file_names()
            .filter_map(|n| n.ok()?.strip_suffix(".npy").map(str::to_string))
            .collect()
    }

    /// Array `name` (entry `name.npy`), or `None` when there is none. Its dtype must be
    /// float32, float64, int32 or int64 (either byte order) and its shape one of `dims`
    /// (`None` in `dims`: any size there; a 1-D array has one dimension); errors name the
    /// file and the array. Compressed entries (`numpy.savez_compressed`) are refused.
    pub fn array(
        &mut self,
        name: &str,
        dims: &[&[Option<u64>]],
    ) -> Result<Option<(NpzArray, Vec<u64>)>, Error> {
        use std::io::Read;
        let path = self.path.clone();
        let fail = |msg: String| Error::file(&path, format!("array '{name}': {msg}"));
        let mut entry = match self.zip.by_name(&format!("{name}.npy")) {
            Ok(e) => e,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(fail(e.to_string())),
        };
        if entry.compression() != zip::CompressionMethod::Stored {
            return Err(fail(format!(
                "stored {:?}-compressed (numpy.savez_compressed); save it with numpy.savez",
                entry.compression()
            )));
        }
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| fail(format!("cannot read: {e}")))?;
        let h = super::npy::parse_array_header(&bytes).map_err(fail)?;
        let fits = dims.iter().any(|want| {
            want.len() == h.shape.len()
                && want
                    .iter()
                    .zip(&h.shape)
                    .all(|(w, d)| w.is_none_or(|w| w == *d))
        });
        if !fits {
            let want: Vec<String> = dims
                .iter()
                .map(|d| {
                    let parts: Vec<String> = d
                        .iter()
                        .map(|x| x.map_or("N".into(), |v| v.to_string()))
                        .collect();
                    if parts.len() == 1 {
                        format!("({},)", parts[0])
                    } else {
                        format!("({})", parts.join(", "))
                    }
                })
                .collect();
            return Err(fail(format!(
                "wrong shape {}, expected {}",
                h.shape_text(),
                want.join(" or ")
            )));
        }
        let data = &bytes[h.data_start..];
        let big = h.dtype.endianness() == npyz::Endianness::Big;
        macro_rules! decode {
            ($t:ty, $n:expr) => {
                data.chunks_exact($n)
                    .map(|c| {
                        let b: [u8; $n] = c.try_into().expect("chunks of the size");
                        if big {
                            <$t>::from_be_bytes(b)
                        } else {
                            <$t>::from_le_bytes(b)
                        }
                    })
                    .collect()
            };
        }
        use npyz::TypeChar;
        let values = match (h.dtype.type_char(), h.dtype.size_field()) {
            (TypeChar::Float, 4) => NpzArray::F32(decode!(f32, 4)),
            (TypeChar::Float, 8) => NpzArray::F64(decode!(f64, 8)),
            (TypeChar::Int, 4) => NpzArray::I32(decode!(i32, 4)),
            (TypeChar::Int, 8) => NpzArray::I64(decode!(i64, 8)),
            _ => {
                return Err(fail(format!(
                    "wrong dtype {}, expected float32, float64, int32 or int64",
                    h.dtype_name()
                )))
            }
        };
        Ok(Some((values, h.shape)))
    }
}
