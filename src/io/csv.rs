//! CSV rows of four numbers: a header line naming them (`x0,y0,x1,y1` for segments,
//! `xmin,ymin,xmax,ymax` for rects), then one row of four finite numbers per line.
//!
//! Parsed by hand rather than with the `csv` crate, because:
//! - the `csv` crate silently skips blank lines (measured: `x0,y0,x1,y1\n0,0,1,1\n\n0,0,1,1\n`
//!   reads as two rows, no error), which we must report with their line (`tests/suite/bad_input.rs`
//!   checks it): a blank line in the middle of a file often means two files were pasted
//!   together;
//! - it is not faster: 1,000,000 rows (`slabclip gen --dist mixed --precision f64`, written as
//!   a 67 MB CSV), the `csv` crate reading `ByteRecord`s and parsing four finite `f64` with
//!   line numbers took 0.95 s (median of 5 runs of median-of-7), while `slabclip clip --emit
//!   class --threads 1` on the same CSV took 0.94 s in total, 0.05 s of it the clip and write
//!   (the same rows from `.npy`), so about 0.89 s reading (2-core machine under load, noisy);
//! - the format is four numeric fields and no quoting, and counting lines ourselves gives exact
//!   line numbers across the windows of a memory-mapped file.
//!
//! Accepted: an optional UTF-8 byte-order mark; `\n` or `\r\n` line ends, the last line with or
//! without one; spaces and tabs around fields and header names; numbers as Rust's `f64` parser
//! reads them (`1`, `-0.5`, `.5`, `1e-3`, `+2E10`), rounded correctly to `float64`, an underflow
//! to zero or a subnormal included. Refused, with the line and column: a missing or wrong
//! header, blank lines, a row without exactly four fields, empty fields, anything not a number,
//! `nan` and `inf` (a CSV file is often typed or exported by hand, where these are mistakes;
//! use `.npy` to pass NaN rows), and numbers beyond the `float64` range.

use crate::real::Real;

/// The most bytes mapped at once; a line must fit in one window.
pub(crate) const WINDOW: usize = 16 << 20;

/// The column names of a file of four-number rows, in order: the header it must have.
pub(crate) type Names = [&'static str; 4];

/// The header of a segments file.
pub(crate) const SEGMENT_NAMES: Names = ["x0", "y0", "x1", "y1"];

/// The header of a rects file (`slabclip clip --rects`).
pub(crate) const RECT_NAMES: Names = ["xmin", "ymin", "xmax", "ymax"];

/// Checks the first line of a CSV file (`prefix` holds its first bytes, the whole file if
/// shorter) against the header `names` and returns the offset of the first data line. An empty
/// file has no rows.
pub(crate) fn parse_header(prefix: &[u8], file_len: u64, names: &Names) -> Result<u64, String> {
    let header = names.join(",");
    if prefix.is_empty() {
        return Ok(0);
    }
    let bom = if prefix.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let rest = &prefix[bom..];
    let (line, next) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], bom + i + 1),
        None if prefix.len() as u64 == file_len => (rest, prefix.len()),
        None => {
            return Err(format!(
                "line 1: longer than {} bytes, expected the header {header}",
                prefix.len()
            ))
        }
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let found: Vec<&[u8]> = line.split(|&b| b == b',').map(trim).collect();
    if found
        .iter()
        .map(|n| &n[..])
        .eq(names.iter().map(|n| n.as_bytes()))
    {
        return Ok(next as u64);
    }
    if is_blank(line) {
        return Err(format!("line 1: blank line, expected the header {header}"));
    }
    if parse_row(line, 1, names).is_ok() {
        return Err(format!(
            "missing header: line 1 is a row of numbers, expected the header {header} first"
        ));
    }
    Err(format!(
        "line 1: wrong header {}, expected {header}",
        excerpt(line)
    ))
}

/// Parses whole lines of `bytes` (numbered from `first_line`) into `out`, four values each, up
/// to `max_rows` lines; `names` name the columns in messages. The last line counts as whole without a newline only if `reaches_end`
/// (the file ends there). Returns the bytes consumed and the lines (= rows) parsed, or the
/// message for the first bad line.
pub(crate) fn parse_rows<F: Real>(
    bytes: &[u8],
    reaches_end: bool,
    first_line: u64,
    max_rows: usize,
    names: &Names,
    out: &mut Vec<F>,
) -> Result<(usize, u64), String> {
    let mut consumed = 0;
    let mut lines = 0u64;
    while consumed < bytes.len() && (lines as usize) < max_rows {
        let rest = &bytes[consumed..];
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], consumed + i + 1),
            None if reaches_end => (rest, bytes.len()),
            None => break,
        };
        let row = parse_row(line, first_line + lines, names)?;
        out.extend(row.map(F::from_f64));
        consumed = next;
        lines += 1;
    }
    Ok((consumed, lines))
}

/// One data line (without its `\n`) as four finite `f64`.
fn parse_row(line: &[u8], line_no: u64, names: &Names) -> Result<[f64; 4], String> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if is_blank(line) {
        return Err(format!(
            "line {line_no}: blank line, expected a row {}",
            names.join(",")
        ));
    }
    let fields = line.iter().filter(|&&b| b == b',').count() + 1;
    if fields != 4 {
        return Err(format!(
            "line {line_no}: {fields} fields, expected 4 ({})",
            names.join(",")
        ));
    }
    let mut row = [0.0; 4];
    for (i, field) in line.split(|&b| b == b',').enumerate() {
        row[i] = number(trim(field)).map_err(|problem| {
            format!("line {line_no}, column {} ({}): {problem}", i + 1, names[i])
        })?;
    }
    Ok(row)
}

/// A field as a finite `f64`, or what is wrong with it.
fn number(field: &[u8]) -> Result<f64, String> {
    if field.is_empty() {
        return Err("empty field".into());
    }
    let parsed = std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse::<f64>().ok());
    match parsed {
        Some(v) if v.is_finite() => Ok(v),
        Some(_) if field.iter().any(u8::is_ascii_alphabetic) && !is_exponent_form(field) => {
            Err(format!(
                "{} is not finite (NaN and infinities are refused in CSV)",
                excerpt(field)
            ))
        }
        Some(_) => Err(format!("{} is out of the float64 range", excerpt(field))),
        None => Err(format!("{} is not a number", excerpt(field))),
    }
}

/// Whether a number's only letter is an exponent `e`/`E` (as in `1e999`).
fn is_exponent_form(field: &[u8]) -> bool {
    field
        .iter()
        .filter(|b| b.is_ascii_alphabetic())
        .all(|&b| b == b'e' || b == b'E')
}

fn trim(field: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = field.iter().position(|b| !blank(b)).unwrap_or(field.len());
    let end = field
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    &field[start..end]
}

fn is_blank(line: &[u8]) -> bool {
    trim(line).is_empty()
}

/// Text from the file, quoted and escaped, cut at 40 characters.
fn excerpt(bytes: &[u8]) -> String {
    super::excerpt(&String::from_utf8_lossy(bytes), 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Result<Vec<f64>, String> {
        let mut out = Vec::new();
        let (consumed, lines) = parse_rows(
            text.as_bytes(),
            true,
            2,
            usize::MAX,
            &SEGMENT_NAMES,
            &mut out,
        )?;
        assert_eq!(consumed, text.len());
        assert_eq!(lines as usize * 4, out.len());
        Ok(out)
    }

    #[test]
    fn headers() {
        let ok = |t: &str| parse_header(t.as_bytes(), t.len() as u64, &SEGMENT_NAMES);
        assert_eq!(ok(""), Ok(0));
        assert_eq!(ok("x0,y0,x1,y1"), Ok(11));
        assert_eq!(ok("x0,y0,x1,y1\n1,2,3,4\n"), Ok(12));
        assert_eq!(ok("\u{feff}x0, y0 ,x1,\ty1\r\n"), Ok(19));
        let err = |t: &str| ok(t).unwrap_err();
        assert_eq!(
            err("0,0,1,1\n"),
            "missing header: line 1 is a row of numbers, expected the header x0,y0,x1,y1 first"
        );
        assert_eq!(
            err("x0,y0,x1\n"),
            "line 1: wrong header \"x0,y0,x1\", expected x0,y0,x1,y1"
        );
        assert!(err("\"x0\",\"y0\",\"x1\",\"y1\"\n").contains("wrong header"));
        assert!(err("X0,Y0,X1,Y1\n").contains("wrong header"));
        assert!(err("x0,y0,x1,y1,t\n").contains("wrong header"));
        assert!(err("\n").contains("line 1: blank line"));
        // A first line longer than the prefix that was read.
        assert!(parse_header(b"x0,y0", 100, &SEGMENT_NAMES)
            .unwrap_err()
            .contains("longer than 5 bytes"));
    }

    #[test]
    fn numbers_in_every_spelling() {
        let got = rows("1,-2.5, .5 ,1e-3\n+2E10,\t-0,0.1,1e-400\r\n4.,5,6,7").unwrap();
        let want = [
            1.0, -2.5, 0.5, 1e-3, 2e10, -0.0, 0.1, 0.0, 4.0, 5.0, 6.0, 7.0,
        ];
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.map(f64::to_bits)
        );
        assert_eq!(rows("4.9e-324,0,0,0").unwrap()[0], 4.9e-324);
        assert!(rows("").unwrap().is_empty());
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            ("1,2,3,4\n\n", "line 3: blank line"),
            ("1,2,3,4\n  \r\n1,2,3,4", "line 3: blank line"),
            ("1,2,3\n", "line 2: 3 fields, expected 4"),
            ("1,2,3,4,5\n", "line 2: 5 fields, expected 4"),
            ("1;2;3;4\n", "line 2: 1 fields, expected 4"),
            ("1,2,,4\n", "line 2, column 3 (x1): empty field"),
            (
                "1,2,3,abc\n",
                "line 2, column 4 (y1): \"abc\" is not a number",
            ),
            ("1,0x10,3,4\n", "column 2 (y0): \"0x10\" is not a number"),
            (
                "1,\"2\",3,4\n",
                "column 2 (y0): \"\\\"2\\\"\" is not a number",
            ),
            ("1,2 3,3,4\n", "\"2 3\" is not a number"),
            ("nan,2,3,4\n", "column 1 (x0): \"nan\" is not finite"),
            ("1,-inf,3,4\n", "column 2 (y0): \"-inf\" is not finite"),
            ("1,2,Infinity,4\n", "\"Infinity\" is not finite"),
            (
                "1,2,3,1e999\n",
                "column 4 (y1): \"1e999\" is out of the float64 range",
            ),
            ("1,2,3,-2e308\n", "\"-2e308\" is out of the float64 range"),
            ("1,2,\u{e9},4\n", "\"é\" is not a number"),
        ];
        for (text, want) in cases {
            let e = rows(text).unwrap_err();
            assert!(
                e.contains(want),
                "{text:?}: {e:?} does not contain {want:?}"
            );
        }
        let long = format!("1,2,3,{}\n", "9".repeat(400));
        assert!(
            rows(&long).unwrap_err().contains("\"… is out of"),
            "cut to 40 characters"
        );
        let bytes = b"1,2,3,\xff\n";
        let e = parse_rows::<f64>(bytes, true, 7, 10, &SEGMENT_NAMES, &mut Vec::new()).unwrap_err();
        assert_eq!(e, "line 7, column 4 (y1): \"\u{fffd}\" is not a number");
    }

    #[test]
    fn rows_stop_at_a_partial_line_or_the_row_limit() {
        let mut out = Vec::<f64>::new();
        let text = b"1,2,3,4\n5,6,7,8\n9,10,1";
        assert_eq!(
            parse_rows(text, false, 2, 10, &SEGMENT_NAMES, &mut out),
            Ok((16, 2))
        );
        out.clear();
        assert_eq!(
            parse_rows(text, false, 2, 1, &SEGMENT_NAMES, &mut out),
            Ok((8, 1))
        );
        assert_eq!(out, [1.0, 2.0, 3.0, 4.0]);
        out.clear();
        assert!(parse_rows(text, true, 2, 10, &SEGMENT_NAMES, &mut out)
            .unwrap_err()
            .starts_with("line 4: 3 fields"));
    }
}
