//! Bad input, nothing lost: every malformed input, missing file and impossible output is a data
//! error (exit 1) with one line on stderr naming the file and the problem (with the line and
//! column for CSV); no output file appears, an existing output keeps every byte, and the input
//! is untouched.

use crate::files;

use std::fs;
use std::path::Path;
use std::process::Output;

use files::{dict, le_bytes, listing, npy, slabclip, stderr};

/// Asserts a data error that names `file` and says each of `problem`.
fn assert_data_error(o: &Output, file: &str, problem: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "exit code; stderr: {err}");
    assert!(err.starts_with("slabclip: error: "), "{err:?}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.contains(file), "{err:?} does not name {file}");
    for p in problem {
        assert!(err.contains(p), "{err:?} does not say {p:?}");
    }
}

fn clip(dir: &Path, emit: &str, input: &str, output: &str) -> Output {
    slabclip(
        dir,
        &[
            "clip", "--rect", "0,0,1,1", "--emit", emit, input, "-o", output,
        ],
    )
}

/// Malformed input files: the name (its extension picks the reader), the bytes, and what the
/// error must say.
fn malformed() -> Vec<(&'static str, Vec<u8>, Vec<&'static str>)> {
    let d = vec![0u8; 48]; // 3 rows of float32
    let fortran = "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }";
    let csv = |body: &str| format!("x0,y0,x1,y1\n{body}").into_bytes();
    let mut oversized = npy(1, &dict("<f4", "(3, 4)"), &[]);
    oversized.truncate(8);
    oversized[6..8].copy_from_slice(&[2, 0]);
    oversized.extend(0x20_0001u32.to_le_bytes());
    oversized.extend(vec![b' '; 0x20_0001]);
    vec![
        // .npy
        (
            "empty.npy",
            vec![],
            vec!["not an .npy file: the file is empty"],
        ),
        (
            "bad-magic.npy",
            b"x0,y0,x1,y1\n0,0,1,1\n".to_vec(),
            vec!["bad magic"],
        ),
        (
            "version.npy",
            npy(9, &dict("<f4", "(3, 4)"), &d),
            vec!["unsupported .npy format version 9.0"],
        ),
        (
            "short-header.npy",
            npy(1, &dict("<f4", "(3, 4)"), &d)[..40].to_vec(),
            vec!["truncated header"],
        ),
        (
            "oversized-header.npy",
            oversized,
            vec!["header of 2097153 bytes is larger than the 1048576-byte limit"],
        ),
        (
            "garbage.npy",
            npy(
                1,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)",
                &d,
            ),
            vec!["garbage header"],
        ),
        (
            "garbage2.npy",
            npy(1, "\x01\x02 hello \x7f", &d),
            vec!["garbage header"],
        ),
        (
            "binary-header.npy",
            npy(1, "{'descr': '\u{ff}'}", &d),
            vec!["garbage header", "not ASCII"],
        ),
        (
            "shape-n3.npy",
            npy(1, &dict("<f4", "(4, 3)"), &d),
            vec!["wrong shape (4, 3), expected (N, 4)"],
        ),
        (
            "shape-n41.npy",
            npy(1, &dict("<f4", "(3, 4, 1)"), &d),
            vec!["wrong shape (3, 4, 1)"],
        ),
        (
            "shape-4.npy",
            npy(1, &dict("<f4", "(4,)"), &d[..16]),
            vec!["wrong shape (4,)"],
        ),
        (
            "int32.npy",
            npy(1, &dict("<i4", "(3, 4)"), &d),
            vec!["wrong dtype int32 ('<i4')"],
        ),
        (
            "float16.npy",
            npy(1, &dict("<f2", "(3, 4)"), &d[..24]),
            vec!["wrong dtype float16 ('<f2')"],
        ),
        (
            "complex.npy",
            npy(1, &dict("<c16", "(3, 4)"), &[0; 192]),
            vec!["wrong dtype complex128 ('<c16')"],
        ),
        (
            "structured.npy",
            npy(
                1,
                "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (3, 4)}",
                &d,
            ),
            vec!["structured dtype"],
        ),
        (
            "fortran.npy",
            npy(1, fortran, &d),
            vec!["Fortran (column-major) order is not supported"],
        ),
        (
            "truncated.npy",
            npy(1, &dict("<f4", "(3, 4)"), &d[..44]),
            vec![
                "truncated data",
                "needs 48 bytes (3 rows)",
                "found 44 (2 whole rows)",
            ],
        ),
        (
            "trailing.npy",
            npy(1, &dict("<f4", "(3, 4)"), &[0; 52]),
            vec!["4 trailing bytes after the data"],
        ),
        (
            "huge-shape.npy",
            npy(1, &dict("<f8", "(1000000000000, 4)"), &d),
            vec!["truncated data", "needs 32000000000000 bytes"],
        ),
        // .csv
        (
            "no-header.csv",
            b"0,0,1,1\n2,2,3,3\n".to_vec(),
            vec!["missing header", "line 1"],
        ),
        (
            "wrong-header.csv",
            b"a,b,c,d\n0,0,1,1\n".to_vec(),
            vec!["line 1: wrong header \"a,b,c,d\""],
        ),
        (
            "short-header.csv",
            b"x0,y0,x1\n0,0,1\n".to_vec(),
            vec!["line 1: wrong header"],
        ),
        (
            "three-fields.csv",
            csv("0,0,1,1\n0,0,1\n"),
            vec!["line 3: 3 fields, expected 4"],
        ),
        (
            "five-fields.csv",
            csv("0,0,1,1,1\n"),
            vec!["line 2: 5 fields, expected 4"],
        ),
        ("semicolons.csv", csv("0;0;1;1\n"), vec!["line 2: 1 fields"]),
        (
            "non-numeric.csv",
            csv("0,0,1,1\n0,0,1,1\n0,zero,1,1\n"),
            vec!["line 4, column 2 (y0)", "\"zero\" is not a number"],
        ),
        (
            "empty-field.csv",
            csv("0,0,,1\n"),
            vec!["line 2, column 3 (x1): empty field"],
        ),
        (
            "quoted.csv",
            csv("0,0,1,\"1\"\n"),
            vec!["line 2, column 4 (y1)", "is not a number"],
        ),
        (
            "not-utf8.csv",
            csv("0,0,1,\u{1}\n0,\u{ff}\n")
                .into_iter()
                .map(|b| if b == 1 { 0xfe } else { b })
                .collect(),
            vec!["line 2, column 4 (y1)", "is not a number"],
        ),
        (
            "blank-line.csv",
            csv("0,0,1,1\n\n0,0,1,1\n"),
            vec!["line 3: blank line"],
        ),
        (
            "trailing-blank.csv",
            csv("0,0,1,1\n0,0,1,1\n\n"),
            vec!["line 4: blank line"],
        ),
        (
            "blank-first.csv",
            b"\n0,0,1,1\n".to_vec(),
            vec!["line 1: blank line, expected the header"],
        ),
        (
            "nan.csv",
            csv("0,0,1,1\nnan,0,1,1\n"),
            vec!["line 3, column 1 (x0)", "\"nan\" is not finite"],
        ),
        (
            "inf.csv",
            csv("0,inf,1,1\n"),
            vec!["line 2, column 2 (y0)", "\"inf\" is not finite"],
        ),
        (
            "minus-infinity.csv",
            csv("0,0,-Infinity,1\n"),
            vec!["column 3 (x1)", "is not finite"],
        ),
        (
            "out-of-range.csv",
            csv("0,0,1,1e400\n"),
            vec![
                "line 2, column 4 (y1)",
                "\"1e400\" is out of the float64 range",
            ],
        ),
        // raw
        (
            "odd.f32",
            le_bytes(&[0.5f32; 4]).into_iter().chain([0]).collect(),
            vec![
                "size 17 bytes is not a whole number of 16-byte rows",
                "1 rows and 1 bytes too many",
            ],
        ),
        (
            "odd.f64",
            le_bytes(&[0.5f64; 5]),
            vec![
                "size 40 bytes is not a whole number of 32-byte rows",
                "1 rows and 8 bytes too many",
            ],
        ),
        (
            "tiny.f64",
            vec![0; 7],
            vec!["size 7 bytes", "0 rows and 7 bytes too many"],
        ),
        // any extension slabclip does not read
        (
            "segments.txt",
            b"0,0,1,1\n".to_vec(),
            vec!["unknown input format (extension .txt), expected .npy, .csv, .f32 or .f64"],
        ),
    ]
}

#[test]
fn malformed_inputs_are_data_errors_and_write_nothing() {
    let table = malformed();
    assert!(table.len() >= 25);
    for (name, bytes, problem) in table {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(name), &bytes).unwrap();
        for emit in ["t", "class", "segments"] {
            let o = clip(dir.path(), emit, name, "out.npy");
            assert_data_error(&o, name, &problem);
            assert_eq!(
                listing(dir.path()),
                [name],
                "{name}: nothing may be left behind"
            );
        }
        // A file already at the output path keeps every byte.
        let precious: Vec<u8> = (0..=255).cycle().take(10_000).collect();
        fs::write(dir.path().join("out.npy"), &precious).unwrap();
        let o = clip(dir.path(), "t", name, "out.npy");
        assert_data_error(&o, name, &problem);
        assert_eq!(
            fs::read(dir.path().join("out.npy")).unwrap(),
            precious,
            "{name}: the old output was touched"
        );
        assert_eq!(
            fs::read(dir.path().join(name)).unwrap(),
            bytes,
            "{name}: the input was touched"
        );
        let mut want = vec![name, "out.npy"];
        want.sort();
        assert_eq!(
            listing(dir.path()),
            want,
            "{name}: nothing may be left behind"
        );
    }
}

#[test]
fn a_bad_line_after_the_first_chunks_were_written_loses_nothing() {
    // Well past the first chunk of rows, so the output was already being streamed.
    let mut text = String::from("x0,y0,x1,y1\n");
    for i in 0..1_200_000u32 {
        text += &format!("{},0.5,{},0.25\n", i % 3, i % 5);
    }
    text += "1,2,3\n";
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("long.csv"), &text).unwrap();
    fs::write(dir.path().join("out.npy"), b"precious").unwrap();
    for emit in ["t", "class", "segments"] {
        let o = clip(dir.path(), emit, "long.csv", "out.npy");
        assert_data_error(&o, "long.csv", &["line 1200002: 3 fields, expected 4"]);
        assert_eq!(fs::read(dir.path().join("out.npy")).unwrap(), b"precious");
        assert_eq!(listing(dir.path()), ["long.csv", "out.npy"]);
    }
}

#[test]
fn missing_or_unreadable_inputs_are_data_errors() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("out.npy"), b"keep").unwrap();
    fs::create_dir(dir.path().join("folder.npy")).unwrap();
    for (input, problem) in [
        ("nope.npy", "cannot read"),
        ("nope.csv", "No such file"),
        ("folder.npy", "it is a folder"),
    ] {
        let o = clip(dir.path(), "t", input, "out.npy");
        assert_data_error(&o, input, &[problem]);
        assert_eq!(fs::read(dir.path().join("out.npy")).unwrap(), b"keep");
    }
    assert_eq!(listing(dir.path()), ["folder.npy", "out.npy"]);
}

#[test]
fn impossible_outputs_are_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let input = "in.csv";
    let good = b"x0,y0,x1,y1\n0,0,1,1\n";
    fs::write(dir.path().join(input), good).unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::create_dir(dir.path().join("taken.npy")).unwrap();
    let missing = Path::new("missing").join("out.npy");
    let missing = missing.to_str().unwrap();
    for (output, problem) in [
        (missing, "output folder missing does not exist"),
        ("taken.npy", "output path is a folder"),
    ] {
        let o = clip(dir.path(), "t", input, output);
        assert_data_error(&o, output, &[problem]);
    }
    // The input itself, under two spellings (the .npy rule on -o is not what stops these).
    fs::write(
        dir.path().join("in.npy"),
        npy(1, &dict("<f4", "(0, 4)"), &[]),
    )
    .unwrap();
    let before = fs::read(dir.path().join("in.npy")).unwrap();
    for output in ["in.npy", "sub/../in.npy"] {
        let o = clip(dir.path(), "t", "in.npy", output);
        assert_data_error(&o, output, &["output is the input file"]);
        assert_eq!(fs::read(dir.path().join("in.npy")).unwrap(), before);
    }
    assert_eq!(
        listing(dir.path()),
        ["in.csv", "in.npy", "sub", "taken.npy"]
    );
}

#[test]
fn a_rect_that_overflows_the_input_dtype_is_a_data_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.f32"), le_bytes(&[0.5f32; 8])).unwrap();
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1e39,1", "in.f32", "-o", "out.npy"],
    );
    assert_data_error(&o, "in.f32", &["does not fit float32"]);
    assert_eq!(listing(dir.path()), ["in.f32"]);
    fs::write(dir.path().join("in.f64"), le_bytes(&[0.5f64; 8])).unwrap();
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1e39,1", "in.f64", "-o", "out.npy"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}
