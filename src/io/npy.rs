//! `.npy` headers: what an input file's preamble and header dict must say.
//!
//! The header dict goes to `py_literal` directly rather than through `npyz::NpyHeader`, because
//! the latter allocates whatever header length the file announces and multiplies the shape
//! without overflow checks (a panic in debug builds). `npyz` parses the type string.
//!
//! Accepted: what `numpy.save` writes for an `(N, 4)` array, format version 1.0, 2.0 or 3.0,
//! dtype `<f4`, `<f8`, `>f4` or `>f8` (big-endian data is converted as it is read), C order, and
//! exactly `N · 4` values after the header. Everything else is refused with a message that says
//! what was found and what was expected: a bad magic string, an unknown version, a header cut
//! short, too large or not a Python dict literal, a wrong shape or dtype, Fortran order,
//! truncated data, or bytes after the data. The checks run in this order, each before anything
//! it guards is touched, so no input makes the reader panic or over-allocate:
//!
//! ```text
//! magic, version, header length → the header lies inside the file and is at most 1 MiB
//! header text                   → ASCII (UTF-8 for 3.0), brackets nested at most 16 deep
//! dict                          → exactly the keys descr, fortran_order, shape
//! descr                         → '<f4', '<f8', '>f4' or '>f8'
//! fortran_order                 → False
//! shape                         → (N, 4), every size an integer that fits u64
//! data length                   → exactly N · 4 · itemsize bytes, computed in u128
//! ```

use npyz::{Endianness, TypeChar, TypeStr};
use py_literal::Value;

use super::Dtype;

/// The first six bytes of every `.npy` file.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The largest header accepted. NumPy writes a few hundred bytes for a plain array.
pub(crate) const MAX_HEADER: usize = 1 << 20;
/// The deepest bracket nesting accepted in the header, so the parser's recursion stays shallow.
const MAX_NESTING: usize = 16;
/// What a good `descr` looks like, for the error messages.
const EXPECTED_DTYPE: &str = "expected float32 ('<f4') or float64 ('<f8')";

/// A header that passed every check, with a data length that matches it.
#[derive(Debug, PartialEq)]
pub(crate) struct Header {
    pub(crate) dtype: Dtype,
    /// Whether the values are stored big-endian (`'>f4'`, `'>f8'`).
    pub(crate) big_endian: bool,
    /// `N`.
    pub(crate) rows: u64,
    /// Where the data starts.
    pub(crate) data_start: u64,
}

/// Checks an `.npy` file of `file_len` bytes whose first bytes are `prefix` (at least
/// `16 + MAX_HEADER` of them, or the whole file if shorter). The error is the message for
/// [`Error::File`](crate::Error::File).
pub(crate) fn parse_header(prefix: &[u8], file_len: u64) -> Result<Header, String> {
    let header = parse_dict_header(prefix, file_len)?;
    let data = file_len - header.data_start;
    let (shape, dtype) = (format!("({}, 4)", header.rows), header.dtype.name());
    let row = 4 * header.dtype.size() as u128;
    // In u128 the product cannot overflow: rows < 2^64, 4 · itemsize ≤ 32.
    let needed = u128::from(header.rows) * row;
    let found = u128::from(data);
    if found < needed {
        return Err(format!(
            "truncated data: shape {shape} {dtype} needs {needed} bytes ({} rows) after the header, found {found} \
             ({} whole rows)",
            header.rows,
            found / row
        ));
    }
    if found > needed {
        return Err(format!(
            "{} trailing bytes after the data: shape {shape} {dtype} needs exactly {needed} bytes after the header, \
             found {found}",
            found - needed
        ));
    }
    Ok(header)
}

/// Checks the preamble and reads the header dict (not yet its values); returns it and where
/// the data starts.
fn parse_preamble(bytes: &[u8], file_len: u64) -> Result<(Dict, usize), String> {
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
    let after_preamble = file_len.saturating_sub(text_start as u64);
    if text_len as u64 > after_preamble {
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
    // The caller read at least `16 + MAX_HEADER` bytes, or the whole file.
    let Some(raw) = bytes.get(text_start..data_start) else {
        return Err(format!(
            "truncated header: the {text_len}-byte header could not be read whole"
        ));
    };
    let text = header_text(raw, major)?;
    Ok((parse_dict(text)?, data_start))
}

/// Checks the preamble and the header dict of a segments file, in the order listed in the
/// module docs.
fn parse_dict_header(bytes: &[u8], file_len: u64) -> Result<Header, String> {
    let (dict, data_start) = parse_preamble(bytes, file_len)?;
    let (dtype, big_endian) = dtype_of(dict.descr)?;
    check_c_order(dict.fortran_order)?;
    let shape = shape_of(dict.shape)?;
    match shape[..] {
        [rows, 4] => Ok(Header {
            dtype,
            big_endian,
            rows,
            data_start: data_start as u64,
        }),
        _ => Err(format!(
            "wrong shape {}, expected (N, 4)",
            shape_text(&shape)
        )),
    }
}

/// The header of any plain array (the arrays of an `.npz`): its type string, its shape and
/// where its data starts, after the same checks as a segments file's but for the dtype and
/// shape, which the caller checks. The data length is checked against the shape.
pub(crate) struct ArrayHeader {
    pub(crate) dtype: TypeStr,
    pub(crate) shape: Vec<u64>,
    pub(crate) data_start: usize,
}

impl ArrayHeader {
    /// NumPy's name for the dtype (`int32`, `float64`, …).
    pub(crate) fn dtype_name(&self) -> String {
        numpy_name(&self.dtype)
    }

    /// The shape as Python prints it.
    pub(crate) fn shape_text(&self) -> String {
        shape_text(&self.shape)
    }
}

/// Checks an `.npy` file held whole in `bytes` as any plain C-order array (see
/// [`ArrayHeader`]).
pub(crate) fn parse_array_header(bytes: &[u8]) -> Result<ArrayHeader, String> {
    let (dict, data_start) = parse_preamble(bytes, bytes.len() as u64)?;
    let dtype: TypeStr = match dict.descr {
        Value::String(s) => s
            .parse()
            .map_err(|_| format!("wrong dtype {s:?}, not a NumPy type string"))?,
        Value::List(_) => return Err("wrong dtype: a structured dtype".into()),
        other => {
            return Err(format!(
                "garbage header: 'descr' is {}, expected a type string",
                kind(&other)
            ))
        }
    };
    check_c_order(dict.fortran_order)?;
    let shape = shape_of(dict.shape)?;
    let values = shape
        .iter()
        .try_fold(1u128, |n, &d| n.checked_mul(u128::from(d)));
    let needed = values.and_then(|n| n.checked_mul(dtype.size_field() as u128));
    let found = (bytes.len() - data_start) as u128;
    if needed != Some(found) {
        return Err(format!(
            "shape {} of {} needs {} bytes after the header, found {found}",
            shape_text(&shape),
            numpy_name(&dtype),
            needed.map_or("more than 2^128".into(), |n| n.to_string())
        ));
    }
    Ok(ArrayHeader {
        dtype,
        shape,
        data_start,
    })
}

fn check_c_order(fortran_order: Value) -> Result<(), String> {
    match fortran_order {
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
    Ok(())
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

/// `'<f4'`, `'<f8'`, `'>f4'` or `'>f8'` (the dtype, and whether it is big-endian); anything else
/// is named (NumPy's name and the type string).
fn dtype_of(descr: Value) -> Result<(Dtype, bool), String> {
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
    let dtype = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 4) => Dtype::F32,
        (TypeChar::Float, 8) => Dtype::F64,
        _ => return Err(format!("wrong dtype {name} ('{ts}'), {EXPECTED_DTYPE}")),
    };
    match ts.endianness() {
        Endianness::Little => Ok((dtype, false)),
        Endianness::Big => Ok((dtype, true)),
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

/// The start of the header, quoted and escaped, cut at 48 characters.
fn excerpt(text: &str) -> String {
    super::excerpt(text, 48)
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

    /// The header check on a whole file's bytes; the error message.
    fn check(bytes: &[u8]) -> Result<Header, String> {
        parse_header(bytes, bytes.len() as u64)
    }

    /// Every row of an `.npy` file's bytes, through [`Input`](crate::io::Input).
    fn read(bytes: &[u8]) -> crate::io::Batch {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.npy");
        std::fs::write(&path, bytes).unwrap();
        crate::io::read_segments(&path).unwrap()
    }

    #[test]
    fn good_files_in_every_version_and_byte_order() {
        use crate::io::Batch;
        let values = [1.0f32, -2.5, 0.0, f32::NAN, 5.0, 6.0, 7.0, -0.0];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for version in [1, 2, 3] {
            let b = npy(version, &dict("<f4", "(2, 4)"), &le32(&values));
            let Batch::F32(got) = read(&b) else {
                panic!("not f32")
            };
            assert_eq!(bits(&got), bits(&values));
        }
        let be: Vec<u8> = values.iter().flat_map(|x| x.to_be_bytes()).collect();
        let b = npy(1, &dict(">f4", "(2, 4)"), &be);
        assert_eq!(check(&b).map(|h| (h.big_endian, h.rows)), Ok((true, 2)));
        let Batch::F32(got) = read(&b) else {
            panic!("not f32")
        };
        assert_eq!(bits(&got), bits(&values), "big-endian is converted");
        let data: Vec<u8> = [0.1f64, 0.2, 0.3, 0.4]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        let b = npy(2, &dict(">f8", "(1, 4)"), &data);
        assert_eq!(read(&b), Batch::F64(vec![0.1, 0.2, 0.3, 0.4]));
        let b = npy(1, &dict("<f8", "(0, 4)"), &[]);
        assert!(read(&b).is_empty());
        // A header whose length is not a multiple of 8 leaves the data unaligned: copied.
        let mut b = npy(1, &dict("<f8", "(1, 4)"), &[]);
        let text_len = u16::from_le_bytes([b[8], b[9]]) + 3;
        b[8..10].copy_from_slice(&text_len.to_le_bytes());
        b.splice(b.len() - 1..b.len() - 1, *b"   ");
        b.extend([0.5f64, 1.5, 2.5, 3.5].iter().flat_map(|x| x.to_le_bytes()));
        assert_eq!(check(&b).unwrap().data_start % 8, 3);
        assert_eq!(read(&b), Batch::F64(vec![0.5, 1.5, 2.5, 3.5]));
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
                npy(1, &dict(">f2", "(3, 4)"), &d),
                "wrong dtype float16 ('>f2')",
            ),
            (
                npy(1, &dict(">i8", "(3, 4)"), &d),
                "wrong dtype int64 ('>i8')",
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
            let msg = check(&bytes).unwrap_err();
            assert!(msg.contains(want), "{msg:?} does not contain {want:?}");
            assert!(!msg.contains('\n'), "{msg:?} is not one line");
        }
    }

    #[test]
    fn no_truncation_or_byte_flip_panics() {
        let good = npy(1, &dict("<f4", "(3, 4)"), &le32(&[0.5; 12]));
        for cut in 0..good.len() {
            assert!(check(&good[..cut]).is_err());
        }
        // Every byte of the preamble and header set to a few hostile values.
        for at in 0..128 {
            for v in [0u8, b'(', b'9', b'\'', b'}', 0x80, 0xff] {
                let mut b = good.clone();
                b[at] = v;
                let _ = check(&b);
            }
        }
    }
}
