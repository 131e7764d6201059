//! `.npy` files: segment batches in, results out.
//!
//! What is accepted, and in which order it is checked, is on [`read_segments`]. The header dict
//! goes to `py_literal` directly rather than through `npyz::NpyHeader`, because the latter
//! allocates whatever header length the file announces and multiplies the shape without overflow
//! checks (a panic in debug builds). `npyz` parses the type string and writes the output.

use std::mem::size_of;
use std::path::Path;

use npyz::{Endianness, TypeChar, TypeStr, WriterBuilder};
use py_literal::Value;

use crate::error::Error;
use crate::io::atomic::write_atomically;
use crate::real::Real;

/// The first six bytes of every `.npy` file.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The largest header accepted. NumPy writes a few hundred bytes for a plain array.
const MAX_HEADER: usize = 1 << 20;
/// The deepest bracket nesting accepted in the header, so the parser's recursion stays shallow.
const MAX_NESTING: usize = 16;
/// What a good `descr` looks like, for the error messages.
const EXPECTED_DTYPE: &str = "expected float32 ('<f4') or float64 ('<f8')";

/// Segment rows read from a file, interleaved `[x0, y0, x1, y1, …]`, in the file's own dtype.
///
/// View the rows zero-copy with [`rows_from_interleaved`](crate::rows_from_interleaved); the
/// length is always a multiple of four.
#[derive(Clone, Debug, PartialEq)]
pub enum Batch {
    /// A `float32` file.
    F32(Vec<f32>),
    /// A `float64` file.
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

    /// Whether there are none (a `(0, 4)` file).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The NumPy dtype name: `"float32"` or `"float64"`.
    pub fn dtype(&self) -> &'static str {
        match self {
            Batch::F32(_) => f32::DTYPE,
            Batch::F64(_) => f64::DTYPE,
        }
    }
}

/// Reads an `(N, 4)` `float32` or `float64` `.npy` file.
///
/// Accepted: what `numpy.save` writes for such an array, format version 1.0, 2.0 or 3.0, dtype
/// `<f4` or `<f8`, C order, and exactly `N · 4` values after the header. Everything else is an
/// [`Error::File`] for `path` that says what was found and what was expected: a bad magic string,
/// an unknown version, a header cut short or not a Python dict literal, a wrong shape or dtype,
/// Fortran order, big-endian data (refused rather than converted, so a file is never silently
/// reinterpreted), truncated data, or bytes after the data. The checks run in this order, each
/// before anything it guards is touched, so no input makes the reader panic or over-allocate:
///
/// ```text
/// magic, version, header length → the header lies inside the file and is at most 1 MiB
/// header text                   → ASCII (UTF-8 for 3.0), brackets nested at most 16 deep
/// dict                          → exactly the keys descr, fortran_order, shape
/// descr                         → '<f4' or '<f8'
/// fortran_order                 → False
/// shape                         → (N, 4), every size an integer that fits u64
/// data length                   → exactly N · 4 · itemsize bytes, computed in u128
/// ```
///
/// The whole file is read into memory, then the rows are copied out: the peak is about twice
/// the file's size.
pub fn read_segments(path: impl AsRef<Path>) -> Result<Batch, Error> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::file(path, format!("cannot read: {e}")))?;
    parse_segments(&bytes).map_err(|msg| Error::file(path, msg))
}

/// Writes equal-length columns as one `.npy` array of shape `(N, columns.len())` in `F`'s dtype
/// (`<f4` or `<f8`), C order: row `i` is `columns[0][i], columns[1][i], …`.
///
/// E.g. `[t_entry, t_exit]` gives `(N, 2)`; the four columns of a
/// [`Segments`](crate::Segments) give `(N, 4)`. The file is written whole or not at all
/// ([`write_atomically`]). No columns is an [`Error::File`]; columns of different lengths are an
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
    // `Real` is sealed to `f32` and `f64`, so the size says which one `F` is, and the cast to
    // that same type cannot fail.
    let cast_failed = || Error::file(path, "internal error: column type is neither f32 nor f64");
    if size_of::<F>() == size_of::<f32>() {
        let cols: Option<Vec<&[f32]>> = columns
            .iter()
            .map(|c| bytemuck::try_cast_slice(c).ok())
            .collect();
        write_table(path, &cols.ok_or_else(cast_failed)?)
    } else {
        let cols: Option<Vec<&[f64]>> = columns
            .iter()
            .map(|c| bytemuck::try_cast_slice(c).ok())
            .collect();
        write_table(path, &cols.ok_or_else(cast_failed)?)
    }
}

/// Writes bytes as a `.npy` array of shape `(N,)`, dtype `uint8` (e.g. class codes), whole or
/// not at all.
pub fn write_u8(path: impl AsRef<Path>, values: &[u8]) -> Result<(), Error> {
    write_atomically(path.as_ref(), |w| {
        let mut out = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&[values.len() as u64])
            .writer(w)
            .begin_nd()?;
        out.extend(values.iter().copied())?;
        out.finish()
    })
}

/// Writes `(rows, columns.len())` values of one npyz element type; the columns have equal lengths.
fn write_table<T: npyz::AutoSerialize + Copy>(path: &Path, columns: &[&[T]]) -> Result<(), Error> {
    let rows = columns.first().map_or(0, |c| c.len());
    let shape = [rows as u64, columns.len() as u64];
    write_atomically(path, |w| {
        let mut out = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&shape)
            .writer(w)
            .begin_nd()?;
        for i in 0..rows {
            for c in columns {
                out.push(&c[i])?;
            }
        }
        out.finish()
    })
}

/// Which of the two accepted dtypes a file holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Float {
    F32,
    F64,
}

impl Float {
    fn size(self) -> usize {
        match self {
            Float::F32 => 4,
            Float::F64 => 8,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Float::F32 => f32::DTYPE,
            Float::F64 => f64::DTYPE,
        }
    }
}

/// A header that passed every check: the dtype, the row count `N`, and where the data starts.
#[derive(Debug)]
struct Header {
    float: Float,
    rows: u64,
    data_start: usize,
}

/// The whole reader, on the file's bytes; the error is the message for [`Error::File`].
fn parse_segments(bytes: &[u8]) -> Result<Batch, String> {
    let header = parse_header(bytes)?;
    let data = bytes.get(header.data_start..).unwrap_or_default();
    let (shape, dtype) = (format!("({}, 4)", header.rows), header.float.name());
    // In u128 the product cannot overflow: rows < 2^64, 4 · itemsize ≤ 32.
    let needed = u128::from(header.rows) * 4 * header.float.size() as u128;
    let found = data.len() as u128;
    if found < needed {
        let whole_rows = found / (4 * header.float.size() as u128);
        return Err(format!(
            "truncated data: shape {shape} {dtype} needs {needed} bytes ({} rows) after the header, found {found} \
             ({whole_rows} whole rows)",
            header.rows
        ));
    }
    if found > needed {
        return Err(format!(
            "{} trailing bytes after the data: shape {shape} {dtype} needs exactly {needed} bytes after the header, \
             found {found}",
            found - needed
        ));
    }
    Ok(match header.float {
        Float::F32 => Batch::F32(floats(data)),
        Float::F64 => Batch::F64(floats(data)),
    })
}

/// Little-endian bytes to floats; `data.len()` is a multiple of the float's size.
fn floats<F: Real>(data: &[u8]) -> Vec<F> {
    let mut values = vec![F::ZERO; data.len() / size_of::<F>()];
    let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
    dst.copy_from_slice(data);
    if cfg!(target_endian = "big") {
        dst.chunks_exact_mut(size_of::<F>())
            .for_each(<[u8]>::reverse);
    }
    values
}

/// Checks the preamble and the header dict, in the order listed on [`read_segments`].
fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    if bytes.is_empty() {
        return Err("not an .npy file: the file is empty".into());
    }
    if !bytes.starts_with(MAGIC) {
        return Err(if MAGIC.starts_with(bytes) {
            format!("not an .npy file: only {} bytes long", bytes.len())
        } else {
            "not an .npy file: bad magic, it does not start with \\x93NUMPY".into()
        });
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => {
            return Err(format!(
                "truncated .npy preamble: the file ends after {} bytes",
                bytes.len()
            ))
        }
    };
    let len_field = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(format!(
                "unsupported .npy format version {major}.{minor} (expected 1.0, 2.0 or 3.0)"
            ))
        }
    };
    let text_start = 8 + len_field;
    let Some(field) = bytes.get(8..text_start) else {
        return Err(format!(
            "truncated .npy preamble: the file ends after {} bytes",
            bytes.len()
        ));
    };
    let text_len = field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let after_preamble = bytes.len() - text_start;
    if text_len > after_preamble {
        return Err(format!(
            "truncated header: the preamble announces a {text_len}-byte header but only {after_preamble} bytes follow"
        ));
    }
    if text_len > MAX_HEADER {
        return Err(format!(
            "header of {text_len} bytes is larger than the {MAX_HEADER}-byte limit"
        ));
    }
    let data_start = text_start + text_len;
    let text = header_text(&bytes[text_start..data_start], major)?;
    let dict = parse_dict(text)?;

    let float = float_of(dict.descr)?;
    match dict.fortran_order {
        Value::Boolean(false) => {}
        Value::Boolean(true) => {
            return Err(
                "Fortran (column-major) order is not supported, expected C order \
                        (save np.ascontiguousarray(a))"
                    .into(),
            )
        }
        other => {
            return Err(format!(
                "garbage header: 'fortran_order' is {}, expected True or False",
                kind(&other)
            ))
        }
    }
    let shape = shape_of(dict.shape)?;
    match shape[..] {
        [rows, 4] => Ok(Header {
            float,
            rows,
            data_start,
        }),
        _ => Err(format!(
            "wrong shape {}, expected (N, 4)",
            shape_text(&shape)
        )),
    }
}

/// The header bytes as text: ASCII for versions 1 and 2, UTF-8 for 3; padding trimmed; nesting
/// bounded.
fn header_text(raw: &[u8], major: u8) -> Result<&str, String> {
    if major < 3 {
        if let Some(at) = raw.iter().position(|b| !b.is_ascii()) {
            return Err(format!(
                "garbage header: byte {:#04x} at header offset {at} is not ASCII",
                raw[at]
            ));
        }
    }
    let text = std::str::from_utf8(raw)
        .map_err(|e| {
            format!(
                "garbage header: not UTF-8 text (at header offset {})",
                e.valid_up_to()
            )
        })?
        .trim_end_matches(|c: char| c.is_ascii_whitespace() || c == '\0');
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => continue,
        }
        if depth > MAX_NESTING {
            return Err(format!(
                "garbage header: brackets nested more than {MAX_NESTING} deep"
            ));
        }
    }
    Ok(text)
}

/// The three values of the header dict, each still to be checked.
struct Dict {
    descr: Value,
    fortran_order: Value,
    shape: Value,
}

fn parse_dict(text: &str) -> Result<Dict, String> {
    let value: Value = text
        .parse()
        .map_err(|_| format!("garbage header: not a Python literal: {}", excerpt(text)))?;
    let Value::Dict(items) = value else {
        return Err(format!(
            "garbage header: {}, expected a dict: {}",
            kind(&value),
            excerpt(text)
        ));
    };
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, v) in items {
        let Value::String(key) = key else {
            return Err(format!(
                "garbage header: a key is {}, expected a string",
                kind(&key)
            ));
        };
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran_order,
            "shape" => &mut shape,
            _ => return Err(format!("garbage header: unexpected key {key:?}")),
        };
        if slot.replace(v).is_some() {
            return Err(format!("garbage header: key '{key}' appears twice"));
        }
    }
    let missing = |k: &str| format!("garbage header: no '{k}' key");
    Ok(Dict {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran_order.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

/// `'<f4'` or `'<f8'`; anything else is named (NumPy's name and the type string).
fn float_of(descr: Value) -> Result<Float, String> {
    let s = match descr {
        Value::String(s) => s,
        Value::List(_) => return Err(format!("wrong dtype: a structured dtype, {EXPECTED_DTYPE}")),
        other => {
            return Err(format!(
                "garbage header: 'descr' is {}, expected a type string",
                kind(&other)
            ))
        }
    };
    let ts: TypeStr = s
        .parse()
        .map_err(|_| format!("wrong dtype {s:?}, {EXPECTED_DTYPE}"))?;
    let name = numpy_name(&ts);
    let float = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 4) => Float::F32,
        (TypeChar::Float, 8) => Float::F64,
        _ => return Err(format!("wrong dtype {name} ('{ts}'), {EXPECTED_DTYPE}")),
    };
    match ts.endianness() {
        Endianness::Little => Ok(float),
        Endianness::Big => Err(format!(
            "big-endian {name} ('{ts}') is not supported, expected little-endian '<f{}' (convert with a.astype('<f{0}'))",
            float.size()
        )),
        _ => Err(format!("wrong dtype {name} ('{ts}'), {EXPECTED_DTYPE}")),
    }
}

/// NumPy's name for a type string, e.g. `int32` for `<i4`.
fn numpy_name(ts: &TypeStr) -> String {
    let bits = ts.size_field().saturating_mul(8);
    match ts.type_char() {
        TypeChar::Bool => "bool".into(),
        TypeChar::Int => format!("int{bits}"),
        TypeChar::Uint => format!("uint{bits}"),
        TypeChar::Float => format!("float{bits}"),
        TypeChar::Complex => format!("complex{bits}"),
        TypeChar::TimeDelta => "timedelta64".into(),
        TypeChar::DateTime => "datetime64".into(),
        TypeChar::ByteStr => "bytes".into(),
        TypeChar::UnicodeStr => "str".into(),
        TypeChar::RawData => "void".into(),
        _ => "an unknown type".into(),
    }
}

/// The dimensions, each a non-negative integer that fits `u64`.
fn shape_of(shape: Value) -> Result<Vec<u64>, String> {
    let dims = match shape {
        Value::Tuple(d) | Value::List(d) => d,
        other => {
            return Err(format!(
                "garbage header: 'shape' is {}, expected a tuple",
                kind(&other)
            ))
        }
    };
    dims.iter()
        .map(|d| match d {
            Value::Integer(i) => {
                u64::try_from(i).map_err(|_| format!("garbage header: shape has a size {i}"))
            }
            other => Err(format!(
                "garbage header: shape has {}, expected integers",
                kind(other)
            )),
        })
        .collect()
}

/// A shape as Python prints it: `()`, `(4,)`, `(3, 5)`.
fn shape_text(shape: &[u64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Bytes(_) => "bytes",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Complex(_) => "a complex number",
        Value::Tuple(_) => "a tuple",
        Value::List(_) => "a list",
        Value::Dict(_) => "a dict",
        Value::Set(_) => "a set",
        Value::Boolean(_) => "a boolean",
        Value::None => "None",
    }
}

/// The start of the header, quoted and escaped so the message stays on one line.
fn excerpt(text: &str) -> String {
    const KEEP: usize = 48;
    let head: String = text.chars().take(KEEP).collect();
    let more = if text.chars().nth(KEEP).is_some() {
        "…"
    } else {
        ""
    };
    format!("{head:?}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An npy file as NumPy lays it out: preamble, dict padded to 64 bytes with a newline, data.
    fn npy(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
        let len_field = if version == 1 { 2 } else { 4 };
        let mut text = dict.as_bytes().to_vec();
        while !(8 + len_field + text.len() + 1).is_multiple_of(64) {
            text.push(b' ');
        }
        text.push(b'\n');
        let mut out = MAGIC.to_vec();
        out.extend([version, 0]);
        out.extend(&(text.len() as u32).to_le_bytes()[..len_field]);
        out.extend(text);
        out.extend(data);
        out
    }

    fn dict(descr: &str, shape: &str) -> String {
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}")
    }

    fn le32(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn good_files_in_every_version() {
        let values = [1.0f32, -2.5, 0.0, f32::NAN, 5.0, 6.0, 7.0, -0.0];
        for version in [1, 2, 3] {
            let b = npy(version, &dict("<f4", "(2, 4)"), &le32(&values));
            let Batch::F32(got) = parse_segments(&b).unwrap() else {
                panic!("not f32")
            };
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&values));
        }
        let data: Vec<u8> = [0.1f64, 0.2, 0.3, 0.4]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let b = npy(1, &dict("<f8", "(1, 4)"), &data);
        assert_eq!(
            parse_segments(&b).unwrap(),
            Batch::F64(vec![0.1, 0.2, 0.3, 0.4])
        );
        let b = npy(1, &dict("<f8", "(0, 4)"), &[]);
        assert!(parse_segments(&b).unwrap().is_empty());
    }

    #[test]
    fn messages_name_the_problem() {
        let d = le32(&[0.0; 12]);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (vec![], "the file is empty"),
            (b"\x93NUM".to_vec(), "only 4 bytes"),
            (b"PK\x03\x04 zip".to_vec(), "bad magic"),
            (b"\x93NUMPY\x01".to_vec(), "truncated .npy preamble"),
            (
                b"\x93NUMPY\x02\x00\x10\x00".to_vec(),
                "truncated .npy preamble",
            ),
            (
                b"\x93NUMPY\x01\x00\xff\x00{".to_vec(),
                "announces a 255-byte header but only 1 bytes follow",
            ),
            (
                b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}".to_vec(),
                "announces a 4294967295-byte header",
            ),
            (npy(4, &dict("<f4", "(3, 4)"), &d), "version 4.0"),
            (
                npy(
                    1,
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)",
                    &d,
                ),
                "not a Python literal",
            ),
            (npy(1, "hello", &d), "not a Python literal"),
            (npy(1, "[1, 2]", &d), "a list, expected a dict"),
            (npy(1, &"(".repeat(5000), &d), "nested more than 16 deep"),
            (
                npy(1, "{'descr': '<f4', 'shape': (3, 4)}", &d),
                "no 'fortran_order' key",
            ),
            (
                npy(
                    1,
                    "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)}",
                    &d,
                ),
                "twice",
            ),
            (
                npy(
                    1,
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1}",
                    &d,
                ),
                "unexpected key \"x\"",
            ),
            (
                npy(
                    1,
                    "{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4)}",
                    &d,
                ),
                "'fortran_order' is an integer",
            ),
            (
                npy(1, &dict("<f4", "(3, 5)"), &d),
                "wrong shape (3, 5), expected (N, 4)",
            ),
            (
                npy(1, &dict("<f4", "(4,)"), &d),
                "wrong shape (4,), expected (N, 4)",
            ),
            (
                npy(1, &dict("<f4", "()"), &d),
                "wrong shape (), expected (N, 4)",
            ),
            (npy(1, &dict("<f4", "(-3, 4)"), &d), "shape has a size -3"),
            (npy(1, &dict("<f4", "(3.0, 4)"), &d), "shape has a float"),
            (
                npy(1, &dict("<f4", "(99999999999999999999999, 4)"), &d),
                "size 99999999999999999999999",
            ),
            (
                npy(1, &dict("<f4", "(18446744073709551615, 4)"), &d),
                "needs 295147905179352825840 bytes",
            ),
            (
                npy(1, &dict("<f4", "(4294967296, 4294967296, 4294967296)"), &d),
                "wrong shape",
            ),
            (
                npy(1, &dict("<i4", "(3, 4)"), &d),
                "wrong dtype int32 ('<i4')",
            ),
            (
                npy(1, &dict("<f2", "(3, 4)"), &d),
                "wrong dtype float16 ('<f2')",
            ),
            (
                npy(1, &dict("<c8", "(3, 4)"), &d),
                "wrong dtype complex64 ('<c8')",
            ),
            (npy(1, &dict("|O", "(3, 4)"), &d), "wrong dtype \"|O\""),
            (
                npy(
                    1,
                    "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3, 4)}",
                    &d,
                ),
                "structured",
            ),
            (
                npy(1, &dict(">f4", "(3, 4)"), &d),
                "big-endian float32 ('>f4') is not supported",
            ),
            (
                npy(
                    1,
                    "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4)}",
                    &d,
                ),
                "Fortran",
            ),
            (
                npy(1, &dict("<f4", "(3, 4)"), &d[..40]),
                "needs 48 bytes (3 rows) after the header, found 40 (2 whole",
            ),
            (
                npy(1, &dict("<f4", "(3, 4)"), &[&d[..], &[0; 5]].concat()),
                "5 trailing bytes",
            ),
            (
                npy(
                    1,
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)}\u{e9}",
                    &d,
                ),
                "not ASCII",
            ),
        ];
        for (bytes, want) in cases {
            let msg = parse_segments(&bytes).unwrap_err();
            assert!(msg.contains(want), "{msg:?} does not contain {want:?}");
            assert!(!msg.contains('\n'), "{msg:?} is not one line");
        }
    }

    #[test]
    fn no_truncation_or_byte_flip_panics() {
        let good = npy(1, &dict("<f4", "(3, 4)"), &le32(&[0.5; 12]));
        for cut in 0..good.len() {
            assert!(parse_segments(&good[..cut]).is_err());
        }
        // Every byte of the preamble and header set to a few hostile values.
        for at in 0..128 {
            for v in [0u8, b'(', b'9', b'\'', b'}', 0x80, 0xff] {
                let mut b = good.clone();
                b[at] = v;
                let _ = parse_segments(&b);
            }
        }
    }

    #[test]
    fn written_files_read_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.npy");
        let (x0, y0, x1, y1) = (
            [1.0f64, f64::NAN],
            [2.0, -0.0],
            [3.0, f64::INFINITY],
            [4.0, 1e-310],
        );
        write_columns(&path, &[&x0, &y0, &x1, &y1]).unwrap();
        let Batch::F64(v) = read_segments(&path).unwrap() else {
            panic!("not f64")
        };
        let want = [1.0, 2.0, 3.0, 4.0, f64::NAN, -0.0, f64::INFINITY, 1e-310];
        assert_eq!(
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.map(f64::to_bits)
        );

        write_columns::<f32>(&path, &[&[], &[], &[], &[]]).unwrap();
        assert_eq!(read_segments(&path).unwrap(), Batch::F32(vec![]));

        assert!(matches!(
            write_columns(&path, &[&[1.0f32][..], &[]]),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(write_columns::<f32>(&path, &[]).is_err());
        assert_eq!(
            read_segments(&path).unwrap(),
            Batch::F32(vec![]),
            "failed writes left the file alone"
        );
    }
}
