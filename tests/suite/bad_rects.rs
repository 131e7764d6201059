//! Bad rect files and polygons for `slabclip clip --rects` / `--polygon`, in the table style of
//! `bad_input.rs`: a data error (exit 1) with one line naming the file and the problem (row,
//! line and column where there is one), or a usage error (exit 2) for what clap sees; no output
//! file appears and an existing one keeps every byte.

use crate::files;

use std::fs;
use std::path::Path;
use std::process::Output;

use files::{dict, le_bytes, listing, npy, segments_npy, slabclip, stderr};

/// Asserts exit `code`, one line on stderr saying each of `problem` (and, for a data error,
/// naming `file`).
fn assert_error(o: &Output, code: i32, file: &str, problem: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "exit code; stderr: {err}");
    if code == 1 {
        assert!(err.starts_with("slabclip: error: "), "{err:?}");
        assert_eq!(err.lines().count(), 1, "one line: {err:?}");
        assert!(err.contains(file), "{err:?} does not name {file}");
    }
    for p in problem {
        assert!(err.contains(p), "{err:?} does not say {p:?}");
    }
}

/// Three good float64 segments (`seg.npy`).
fn segments() -> Vec<u8> {
    segments_npy(&[
        [0.0f64, 0.0, 1.0, 1.0],
        [-1.0, 0.5, 2.0, 0.5],
        [5.0, 5.0, 6.0, 6.0],
    ])
}

/// Malformed rect files: the name (its extension picks the reader), the bytes, and what the
/// error must say.
fn malformed() -> Vec<(&'static str, Vec<u8>, Vec<&'static str>)> {
    let rects = |v: &[f64]| {
        npy(
            1,
            &dict("<f8", &format!("({}, 4)", v.len() / 4)),
            &le_bytes(v),
        )
    };
    let csv = |body: &str| format!("xmin,ymin,xmax,ymax\n{body}").into_bytes();
    vec![
        (
            "empty.npy",
            vec![],
            vec!["not an .npy file: the file is empty"],
        ),
        (
            "no_rows.npy",
            rects(&[]),
            vec!["no rects", "expected at least one"],
        ),
        ("no_rows.csv", csv(""), vec!["no rects"]),
        ("empty.csv", vec![], vec!["no rects"]),
        (
            "three_columns.npy",
            npy(1, &dict("<f8", "(4, 3)"), &le_bytes(&[0.0f64; 12])),
            vec!["wrong shape (4, 3), expected (N, 4)"],
        ),
        (
            "flat.npy",
            npy(1, &dict("<f8", "(4,)"), &le_bytes(&[0.0f64; 4])),
            vec!["wrong shape (4,)"],
        ),
        (
            "ints.npy",
            npy(1, &dict("<i4", "(1, 4)"), &[0; 16]),
            vec!["wrong dtype int32 ('<i4')"],
        ),
        (
            "halves.npy",
            npy(1, &dict("<f2", "(1, 4)"), &[0; 8]),
            vec!["wrong dtype float16 ('<f2')"],
        ),
        (
            "truncated.npy",
            npy(1, &dict("<f8", "(2, 4)"), &le_bytes(&[0.0f64; 5])),
            vec!["truncated data"],
        ),
        (
            "nan.npy",
            rects(&[0.0, 0.0, 1.0, 1.0, 0.0, f64::NAN, 1.0, 1.0]),
            vec!["row 1: invalid rect: ymin = NaN is not finite"],
        ),
        (
            "inf.npy",
            rects(&[0.0, 0.0, f64::INFINITY, 1.0]),
            vec!["row 0: invalid rect: xmax = inf is not finite"],
        ),
        (
            "min_above_max.npy",
            rects(&[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0]),
            vec!["row 2: invalid rect: xmin = 2 is greater than xmax = 1"],
        ),
        (
            "min_above_max.csv",
            csv("0,0,1,1\n0,3,1,2\n"),
            vec!["row 1 (line 3): invalid rect: ymin = 3 is greater than ymax = 2"],
        ),
        (
            "nan.csv",
            csv("0,0,1,1\n0,nan,1,1\n"),
            vec!["line 3, column 2 (ymin)", "\"nan\" is not finite"],
        ),
        (
            "segment_header.csv",
            b"x0,y0,x1,y1\n0,0,1,1\n".to_vec(),
            vec!["line 1: wrong header", "expected xmin,ymin,xmax,ymax"],
        ),
        (
            "no_header.csv",
            b"0,0,1,1\n".to_vec(),
            vec![
                "missing header",
                "expected the header xmin,ymin,xmax,ymax first",
            ],
        ),
        (
            "short_row.csv",
            csv("0,0,1,1\n0,0,1\n"),
            vec!["line 3: 3 fields, expected 4 (xmin,ymin,xmax,ymax)"],
        ),
        (
            "word.csv",
            csv("0,0,one,1\n"),
            vec!["line 2, column 3 (xmax)", "\"one\" is not a number"],
        ),
        (
            "truncated.csv",
            csv("0,0,1,1\n0,0,1,"),
            vec!["line 3, column 4 (ymax): empty field"],
        ),
        (
            "blank.csv",
            csv("0,0,1,1\n\n0,0,1,1\n"),
            vec!["line 3: blank line"],
        ),
        (
            "raw.f64",
            le_bytes(&[0.0f64, 0.0, 1.0, 1.0]),
            vec!["rect files are .npy or .csv, not .f64"],
        ),
        ("missing.npy", Vec::new(), vec!["cannot read"]),
    ]
}

#[test]
fn bad_rect_files_are_data_errors_and_write_nothing() {
    let table = malformed();
    for (name, bytes, problem) in table {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("seg.npy"), segments()).unwrap();
        if name != "missing.npy" {
            fs::write(d.join(name), &bytes).unwrap();
        }
        let mut before = listing(d);
        for pairwise in [false, true] {
            let mut args = vec!["clip", "--rects", name];
            if pairwise {
                args.push("--pairwise");
            }
            args.extend(["seg.npy", "-o", "out.npz"]);
            let o = slabclip(d, &args);
            assert_error(&o, 1, name, &problem);
            assert_eq!(listing(d), before, "{name}: nothing may be left behind");
        }
        // A file already at the output path keeps every byte.
        let precious: Vec<u8> = (0..=255).cycle().take(5_000).collect();
        fs::write(d.join("out.npz"), &precious).unwrap();
        let o = slabclip(d, &["clip", "--rects", name, "seg.npy", "-o", "out.npz"]);
        assert_error(&o, 1, name, &problem);
        assert_eq!(fs::read(d.join("out.npz")).unwrap(), precious, "{name}");
        before.push("out.npz".into());
        before.sort();
        assert_eq!(listing(d), before, "{name}: nothing may be left behind");
    }
}

/// One row of the arguments table: the arguments before the input, the input, the exit code,
/// the file the message names, what it says.
type ArgCase<'a> = (&'a [&'a str], &'a str, i32, &'a str, &'a [&'a str]);

/// Arguments that cannot work: bad polygons, mismatched pairwise lengths, wrong output names,
/// flags that need another.
#[test]
fn bad_polygons_and_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let d: &Path = dir.path();
    fs::write(d.join("seg.npy"), segments()).unwrap();
    fs::write(
        d.join("two.csv"),
        b"xmin,ymin,xmax,ymax\n0,0,1,1\n1,1,2,2\n",
    )
    .unwrap();
    fs::write(
        d.join("huge.csv"),
        b"xmin,ymin,xmax,ymax\n0,0,1e300,1\n0,0,1,1\n0,0,1,1\n",
    )
    .unwrap();
    fs::write(
        d.join("seg32.npy"),
        segments_npy(&[[0.0f32, 0.0, 1.0, 1.0]; 3]),
    )
    .unwrap();
    let cases: &[ArgCase] = &[
        (
            &["--polygon", "0,0 1,1 2,2"],
            "seg.npy",
            1,
            "--polygon",
            &["invalid polygon"],
        ),
        (
            &["--polygon", "0,0 1,0"],
            "seg.npy",
            1,
            "--polygon",
            &["invalid polygon"],
        ),
        (
            &["--polygon", "0,0"],
            "seg.npy",
            1,
            "--polygon",
            &["invalid polygon"],
        ),
        (
            &["--polygon", ""],
            "seg.npy",
            1,
            "--polygon",
            &["invalid polygon"],
        ),
        (
            &["--polygon", "0,0 4,0 1,1 0,4"],
            "seg.npy",
            1,
            "--polygon",
            &["not convex"],
        ),
        (
            &["--polygon", "0,0 1,1 1,0 0,1"],
            "seg.npy",
            1,
            "--polygon",
            &["not convex", "crosses itself"],
        ),
        (
            &["--polygon", "-1e308,-1e308 1e308,1e308 5e307,5e307"],
            "seg.npy",
            1,
            "--polygon",
            &["one line"],
        ),
        (
            &["--polygon", "0,0 1,x 0,1"],
            "seg.npy",
            2,
            "",
            &["vertex 1", "\"x\" is not a finite number"],
        ),
        (
            &["--polygon", "0,0 1,inf 0,1"],
            "seg.npy",
            2,
            "",
            &["vertex 1", "not a finite number"],
        ),
        (
            &["--polygon", "0,0 1,nan 0,1"],
            "seg.npy",
            2,
            "",
            &["vertex 1"],
        ),
        (
            &["--polygon", "0,0 1 0,1"],
            "seg.npy",
            2,
            "",
            &["vertex 1: expected 2"],
        ),
        (
            &["--polygon", "0,0 1e39,0 0,1"],
            "seg32.npy",
            1,
            "--polygon",
            &["not finite"],
        ),
        (
            &["--rects", "two.csv", "--pairwise"],
            "seg.npy",
            1,
            "two.csv",
            &["2 rects for the 3 segments", "one rect per segment"],
        ),
        (
            &["--rects", "huge.csv"],
            "seg32.npy",
            1,
            "huge.csv",
            &["row 0: does not fit float32"],
        ),
        (&["--pairwise"], "seg.npy", 2, "", &["--rects"]),
        (
            &["--rects", "two.csv", "--emit", "class"],
            "seg.npy",
            2,
            "",
            &["cannot be used with"],
        ),
        (
            &["--rects", "two.csv", "--rect", "0,0,1,1"],
            "seg.npy",
            2,
            "",
            &["cannot be used with"],
        ),
        (
            &["--rects", "two.csv", "--polygon", "0,0 1,0 0,1"],
            "seg.npy",
            2,
            "",
            &["cannot be used with"],
        ),
        (&[], "seg.npy", 2, "", &["required"]),
        (
            &["--rects", "two.csv"],
            "missing.npy",
            1,
            "missing.npy",
            &["cannot read"],
        ),
        (
            &["--rects", "two.csv"],
            "seg.npy",
            1,
            "out.npy",
            &["write .npz"],
        ),
        (
            &["--rect", "0,0,1,1"],
            "seg.npy",
            1,
            "out.npz",
            &["writes .npy"],
        ),
    ];
    for (args, input, code, file, problem) in cases {
        let out = if args.contains(&"--rects") && file == &"out.npy" || file == &"out.npz" {
            *file
        } else {
            "out.npz"
        };
        let mut all = vec!["clip"];
        all.extend_from_slice(args);
        all.extend([*input, "-o", out]);
        let before = listing(d);
        let o = slabclip(d, &all);
        assert_error(&o, *code, file, problem);
        assert_eq!(listing(d), before, "{args:?} wrote output");
    }
    // The output may not be an input.
    let o = slabclip(
        d,
        &["clip", "--rects", "two.csv", "seg.npy", "-o", "two.csv"],
    );
    assert_error(&o, 2, "", &["ending in .npy or .npz"]);
    let o = slabclip(
        d,
        &[
            "clip",
            "--polygon",
            "0,0 1,0 0,1",
            "seg.npy",
            "-o",
            "seg.npy",
        ],
    );
    assert_error(&o, 1, "seg.npy", &["write .npz"]);
}
