//! The `slabclip` binary end to end: every `--emit` mode in both precisions, every algorithm on
//! the sample data, and every kind of bad input, each of which must exit 1 with one line naming
//! the file and the problem, and leave no output behind and an existing output untouched.
//!
//! The `.npy` inputs are built byte by byte here (header text included), so that the malformed
//! ones do not depend on any npy writer; outputs are read back with `npyz`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use slabclip::{Algorithm, Class, Real};

// ---------------------------------------------------------------------------------------------
// Helpers

/// Runs the binary in `dir`.
fn slabclip(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabclip"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// An `.npy` file laid out as NumPy writes it: magic, version, header length, the dict padded with
/// spaces and a newline to a multiple of 64 bytes, then `data`.
fn npy(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
    let len_field = if version == 1 { 2 } else { 4 };
    let mut text = dict.as_bytes().to_vec();
    while !(8 + len_field + text.len() + 1).is_multiple_of(64) {
        text.push(b' ');
    }
    text.push(b'\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend([version, 0]);
    out.extend(&(text.len() as u32).to_le_bytes()[..len_field]);
    out.extend(text);
    out.extend(data);
    out
}

/// The header dict NumPy writes.
fn dict(descr: &str, shape: &str) -> String {
    format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}")
}

/// A good `(N, 4)` file of `F` rows.
fn segments_npy<F: Real>(rows: &[[F; 4]]) -> Vec<u8> {
    let descr = if F::DTYPE == "float32" { "<f4" } else { "<f8" };
    let data: Vec<u8> = rows.iter().flatten().flat_map(|x| le_bytes(*x)).collect();
    npy(1, &dict(descr, &format!("({}, 4)", rows.len())), &data)
}

fn le_bytes<F: Real>(x: F) -> Vec<u8> {
    let bits = x.to_bits_u64();
    bits.to_le_bytes()[..std::mem::size_of::<F>()].to_vec()
}

/// An output file: its shape, its type string, and its values.
fn read_npy<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, String, Vec<T>) {
    let bytes = fs::read(path).expect("the output exists");
    let file = npyz::NpyFile::new(&bytes[..]).expect("the output is a valid npy file");
    let shape = file.shape().to_vec();
    let descr = match file.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => panic!("unexpected dtype {other:?}"),
    };
    (shape, descr, file.into_vec().expect("the data reads back"))
}

/// Everything in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join("sample.npy")
}

fn same<F: Real>(a: F, b: F) -> bool {
    a.to_bits_u64() == b.to_bits_u64() || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

// ---------------------------------------------------------------------------------------------
// Successful clips

/// Against the rect 0,0,1,1: one segment of each kind, with their exact answers.
fn rows<F: Real>() -> Vec<[F; 4]> {
    let f = F::from_f64;
    vec![
        [f(-1.0), f(0.5), f(0.5), f(0.5)],    // enters at x = 0: t = 2/3
        [f(0.25), f(0.25), f(0.75), f(0.75)], // inside
        [f(0.5), f(0.5), f(3.0), f(0.5)],     // exits at x = 1: t = 0.2
        [f(2.0), f(2.0), f(3.0), f(3.0)],     // outside
        [f(-1.0), f(0.5), f(2.0), f(0.5)],    // crosses: t = 1/3 .. 2/3
        [f(1.0), f(1.0), f(2.0), f(0.0)],     // starts on the corner, points away: touches
    ]
}

fn write_input<F: Real>(dir: &Path) -> &'static str {
    let name = if F::DTYPE == "float32" {
        "in32.npy"
    } else {
        "in64.npy"
    };
    fs::write(dir.join(name), segments_npy(&rows::<F>())).unwrap();
    name
}

fn emit_t<F: Real + npyz::Deserialize>(descr: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<F>(dir.path());
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1,1", input, "-o", "t.npy"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (shape, got_descr, t) = read_npy::<F>(&dir.path().join("t.npy"));
    assert_eq!((shape, got_descr.as_str()), (vec![6, 2], descr));
    let f = F::from_f64;
    let (third, two_thirds) = (F::ONE / f(3.0), f(2.0) / f(3.0));
    let want = [
        [two_thirds, F::ONE],
        [F::ZERO, F::ONE],
        [F::ZERO, f(0.2)],
        [F::NAN, F::NAN],
        [third, two_thirds],
        [F::ZERO, F::ZERO],
    ];
    for (i, w) in want.iter().enumerate() {
        assert!(
            same(t[2 * i], w[0]) && same(t[2 * i + 1], w[1]),
            "row {i}: {:?}, want {w:?}",
            &t[2 * i..2 * i + 2]
        );
    }
}

fn emit_class<F: Real>() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<F>(dir.path());
    let o = slabclip(
        dir.path(),
        &[
            "clip", "--rect", "0,0,1,1", "--emit", "class", input, "-o", "c.npy",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (shape, descr, class) = read_npy::<u8>(&dir.path().join("c.npy"));
    assert_eq!((shape, descr.as_str()), (vec![6], "|u1"));
    let want = [
        Class::Enters,
        Class::Inside,
        Class::Exits,
        Class::Outside,
        Class::Crosses,
        Class::Touches,
    ];
    assert_eq!(class, want.map(|c| c as u8));
    assert_eq!(class[0], 2, "Enters is code 2");
}

fn emit_segments<F: Real + npyz::Deserialize>(descr: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<F>(dir.path());
    let o = slabclip(
        dir.path(),
        &[
            "clip", "--rect", "0,0,1,1", "--emit", "segments", input, "-o", "s.npy",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (shape, got_descr, s) = read_npy::<F>(&dir.path().join("s.npy"));
    assert_eq!((shape, got_descr.as_str()), (vec![6, 4], descr));
    let f = F::from_f64;
    let want = [
        [F::ZERO, f(0.5), f(0.5), f(0.5)],
        [f(0.25), f(0.25), f(0.75), f(0.75)],
        [f(0.5), f(0.5), F::ONE, f(0.5)],
        [F::NAN; 4],
        [F::ZERO, f(0.5), F::ONE, f(0.5)],
        [F::ONE, F::ONE, F::ONE, F::ONE],
    ];
    for (i, w) in want.iter().enumerate() {
        let row = &s[4 * i..4 * i + 4];
        assert!(
            row.iter().zip(w).all(|(a, b)| same(*a, *b)),
            "row {i}: {row:?}, want {w:?}"
        );
    }
}

#[test]
fn emit_t_f32() {
    emit_t::<f32>("<f4");
}

#[test]
fn emit_t_f64() {
    emit_t::<f64>("<f8");
}

#[test]
fn emit_t_is_exactly_two_thirds_in_f32() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("one.npy"),
        segments_npy(&[[-1.0f32, 0.5, 0.5, 0.5]]),
    )
    .unwrap();
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1,1", "one.npy", "-o", "t.npy"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, _, t) = read_npy::<f32>(&dir.path().join("t.npy"));
    assert_eq!(t, [2.0f32 / 3.0, 1.0]);
}

#[test]
fn emit_class_f32() {
    emit_class::<f32>();
}

#[test]
fn emit_class_f64() {
    emit_class::<f64>();
}

#[test]
fn emit_segments_f32() {
    emit_segments::<f32>("<f4");
}

#[test]
fn emit_segments_f64() {
    emit_segments::<f64>("<f8");
}

#[test]
fn every_algorithm_writes_the_same_bytes_on_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample();
    let input = input.to_str().unwrap();
    let names: Vec<&str> = Algorithm::ALL
        .iter()
        .chain(&[Algorithm::Auto])
        .map(|a| a.name())
        .collect();
    for emit in ["t", "class", "segments"] {
        let mut outputs = Vec::new();
        for name in &names {
            let out = format!("{name}-{emit}.npy");
            let o = slabclip(
                dir.path(),
                &[
                    "clip",
                    "--rect",
                    "0,0,1,1",
                    "--algorithm",
                    name,
                    "--emit",
                    emit,
                    input,
                    "-o",
                    &out,
                ],
            );
            assert!(o.status.success(), "{name} {emit}: {}", stderr(&o));
            outputs.push((name, fs::read(dir.path().join(out)).unwrap()));
        }
        for (name, bytes) in &outputs[1..] {
            assert!(
                *bytes == outputs[0].1,
                "--emit {emit}: {name} differs from {}",
                outputs[0].0
            );
        }
    }
    let (shape, descr, class) = read_npy::<u8>(&dir.path().join("auto-class.npy"));
    assert_eq!((shape, descr.as_str()), (vec![20_000], "|u1"));
    // The sample holds every class but `Invalid` (it has no NaN rows).
    for c in Class::ALL.into_iter().filter(|c| *c != Class::Invalid) {
        assert!(
            class.contains(&(c as u8)),
            "the sample has no {c:?} segment"
        );
    }
}

#[test]
fn empty_input_gives_empty_output() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("empty.npy"),
        npy(1, &dict("<f8", "(0, 4)"), &[]),
    )
    .unwrap();
    for (emit, shape, descr) in [
        ("t", vec![0, 2], "<f8"),
        ("class", vec![0], "|u1"),
        ("segments", vec![0, 4], "<f8"),
    ] {
        let out = format!("{emit}.npy");
        let o = slabclip(
            dir.path(),
            &[
                "clip",
                "--rect",
                "0,0,1,1",
                "--emit",
                emit,
                "empty.npy",
                "-o",
                &out,
            ],
        );
        assert!(o.status.success(), "{emit}: {}", stderr(&o));
        let path = dir.path().join(&out);
        if emit == "class" {
            assert_eq!(read_npy::<u8>(&path), (shape, descr.to_string(), vec![]));
        } else {
            assert_eq!(read_npy::<f64>(&path), (shape, descr.to_string(), vec![]));
        }
    }
}

#[test]
fn negative_and_degenerate_rects_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f64>(dir.path());
    for rect in ["-1,-1,2,2", "0.5,0.5,0.5,0.5", " -1 , 0 , 1 , 0 "] {
        let o = slabclip(
            dir.path(),
            &["clip", "--rect", rect, input, "-o", "out.npy"],
        );
        assert!(o.status.success(), "--rect {rect:?}: {}", stderr(&o));
    }
    let o = slabclip(
        dir.path(),
        &[
            "clip",
            "--rect=-1,-1,2,2",
            "--emit",
            "class",
            input,
            "-o",
            "out.npy",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Against [-1, 2]²: ends on the edges x = -1 and x = 2 are inside; (2, 2) is a corner.
    assert_eq!(
        read_npy::<u8>(&dir.path().join("out.npy")).2,
        [1, 1, 3, 5, 1, 1]
    );
}

#[test]
fn existing_output_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f32>(dir.path());
    fs::write(dir.path().join("out.npy"), vec![0xAB; 100_000]).unwrap();
    let o = slabclip(
        dir.path(),
        &[
            "clip", "--rect", "0,0,1,1", "--emit", "class", input, "-o", "out.npy",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_npy::<u8>(&dir.path().join("out.npy")).0, [6]);
    assert_eq!(listing(dir.path()), [input, "out.npy"]);
}

// ---------------------------------------------------------------------------------------------
// Data errors: exit 1, one line naming the file and the problem, nothing written

/// Asserts a data error that names `file` and says `problem`.
fn assert_data_error(o: &Output, file: &str, problem: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "exit code; stderr: {err}");
    assert!(err.starts_with("slabclip: error: "), "{err:?}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.contains(file), "{err:?} does not name {file}");
    assert!(err.contains(problem), "{err:?} does not say {problem:?}");
}

/// Malformed input files, each with the words its error must contain.
fn malformed() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let d = vec![0u8; 48]; // 3 rows of float32
    let fortran = "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }";
    vec![
        ("empty.npy", vec![], "not an .npy file"),
        (
            "bad-magic.npy",
            b"x0,y0,x1,y1\n0,0,1,1\n".to_vec(),
            "bad magic",
        ),
        (
            "version.npy",
            npy(9, &dict("<f4", "(3, 4)"), &d),
            "unsupported .npy format version 9.0",
        ),
        (
            "short-header.npy",
            npy(1, &dict("<f4", "(3, 4)"), &d)[..40].to_vec(),
            "truncated header",
        ),
        (
            "garbage.npy",
            npy(
                1,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)",
                &d,
            ),
            "garbage header",
        ),
        (
            "garbage2.npy",
            npy(1, "\x01\x02 hello \x7f", &d),
            "garbage header",
        ),
        (
            "binary-header.npy",
            npy(1, "{'descr': '\u{ff}'}", &d),
            "garbage header",
        ),
        (
            "shape-n3.npy",
            npy(1, &dict("<f4", "(4, 3)"), &d),
            "wrong shape (4, 3), expected (N, 4)",
        ),
        (
            "shape-n41.npy",
            npy(1, &dict("<f4", "(3, 4, 1)"), &d),
            "wrong shape (3, 4, 1), expected (N, 4)",
        ),
        (
            "shape-4.npy",
            npy(1, &dict("<f4", "(4,)"), &d[..16]),
            "wrong shape (4,), expected (N, 4)",
        ),
        (
            "int32.npy",
            npy(1, &dict("<i4", "(3, 4)"), &d),
            "wrong dtype int32 ('<i4')",
        ),
        (
            "float16.npy",
            npy(1, &dict("<f2", "(3, 4)"), &d[..24]),
            "wrong dtype float16 ('<f2')",
        ),
        (
            "complex.npy",
            npy(1, &dict("<c16", "(3, 4)"), &[0; 192]),
            "wrong dtype complex128 ('<c16')",
        ),
        (
            "fortran.npy",
            npy(1, fortran, &d),
            "Fortran (column-major) order is not supported",
        ),
        (
            "big-endian.npy",
            npy(1, &dict(">f8", "(3, 4)"), &[0; 96]),
            "big-endian float64 ('>f8') is not supported",
        ),
        (
            "truncated.npy",
            npy(1, &dict("<f4", "(3, 4)"), &d[..44]),
            "truncated data",
        ),
        (
            "trailing.npy",
            npy(1, &dict("<f4", "(3, 4)"), &[0; 52]),
            "4 trailing bytes after the data",
        ),
    ]
}

#[test]
fn malformed_inputs_are_data_errors_and_write_nothing() {
    for (name, bytes, problem) in malformed() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(name), &bytes).unwrap();
        for emit in ["t", "class", "segments"] {
            let o = slabclip(
                dir.path(),
                &[
                    "clip", "--rect", "0,0,1,1", "--emit", emit, name, "-o", "out.npy",
                ],
            );
            assert_data_error(&o, name, problem);
            assert_eq!(
                listing(dir.path()),
                [name],
                "{name}: nothing may be left behind"
            );
        }
        // A file already at the output path keeps every byte.
        let precious: Vec<u8> = (0..=255).cycle().take(10_000).collect();
        fs::write(dir.path().join("out.npy"), &precious).unwrap();
        let o = slabclip(
            dir.path(),
            &["clip", "--rect", "0,0,1,1", name, "-o", "out.npy"],
        );
        assert_data_error(&o, name, problem);
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
fn missing_input_is_a_data_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("out.npy"), b"keep").unwrap();
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1,1", "nope.npy", "-o", "out.npy"],
    );
    assert_data_error(&o, "nope.npy", "cannot read");
    assert_eq!(fs::read(dir.path().join("out.npy")).unwrap(), b"keep");
    assert_eq!(listing(dir.path()), ["out.npy"]);
}

#[test]
fn missing_output_folder_is_a_data_error_naming_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f32>(dir.path());
    let out = Path::new("missing").join("out.npy");
    let o = slabclip(
        dir.path(),
        &[
            "clip",
            "--rect",
            "0,0,1,1",
            input,
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_data_error(
        &o,
        out.to_str().unwrap(),
        "output folder missing does not exist",
    );
    assert_eq!(listing(dir.path()), [input]);
}

#[test]
fn output_equal_to_input_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f32>(dir.path());
    let before = fs::read(dir.path().join(input)).unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let other_spelling = format!("sub/../{input}");
    for out in [input, other_spelling.as_str()] {
        let o = slabclip(dir.path(), &["clip", "--rect", "0,0,1,1", input, "-o", out]);
        assert_data_error(&o, out, "output is the input file");
        assert_eq!(fs::read(dir.path().join(input)).unwrap(), before);
    }
    assert_eq!(listing(dir.path()), [input, "sub"]);
}

#[test]
fn a_rect_that_overflows_the_input_dtype_is_a_data_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f32>(dir.path());
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1e39,1", input, "-o", "out.npy"],
    );
    assert_data_error(&o, input, "does not fit float32");
    assert_eq!(listing(dir.path()), [input]);
    let input = write_input::<f64>(dir.path());
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1e39,1", input, "-o", "out.npy"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------------------------
// Usage errors: exit 2, nothing written; help everywhere

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f32>(dir.path());
    let bad: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--rect", "0,0,1"], "found 3"),
        (vec!["--rect", "0,0,1,1,1"], "found 5"),
        (vec!["--rect", "a,b,c,d"], "is not a number"),
        (vec!["--rect", ""], "--rect"),
        (vec!["--rect", "nan,0,1,1"], "not finite"),
        (vec!["--rect", "0,0,inf,1"], "not finite"),
        (
            vec!["--rect", "1,0,0,1"],
            "xmin = 1 is greater than xmax = 0",
        ),
        (
            vec!["--rect", "0,1,1,0"],
            "ymin = 1 is greater than ymax = 0",
        ),
        (
            vec!["--rect", "0,0,1,1", "--algorithm", "quick"],
            "possible values: liang-barsky",
        ),
        (
            vec!["--rect", "0,0,1,1", "--emit", "all"],
            "possible values: t, class, segments",
        ),
        (vec![], "--rect"),
    ];
    for (args, says) in bad {
        let mut all = vec!["clip"];
        all.extend(&args);
        all.extend([input, "-o", "out.npy"]);
        let o = slabclip(dir.path(), &all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(says),
            "{args:?}: {err:?} does not say {says:?}"
        );
        assert_eq!(listing(dir.path()), [input]);
    }
    let o = slabclip(dir.path(), &["clip", "--rect", "0,0,1,1", input]);
    assert_eq!(o.status.code(), Some(2), "a missing -o is a usage error");
    let o = slabclip(dir.path(), &["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_works_on_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--help"][..],
        &["clip", "--help"],
        &["info", "--help"],
        &["help", "clip"],
        &["clip", "-h"],
    ] {
        let o = slabclip(dir.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("Usage: slabclip"),
            "{args:?}"
        );
    }
    let o = slabclip(dir.path(), &["clip", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for word in [
        "--rect",
        "--algorithm",
        "--emit",
        "--output",
        "sector-lut",
        "auto",
        "segments",
    ] {
        assert!(help.contains(word), "clip --help does not mention {word}");
    }
}

#[test]
fn info_lists_the_algorithms_and_precisions() {
    let dir = tempfile::tempdir().unwrap();
    let o = slabclip(dir.path(), &["info"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
    for a in Algorithm::ALL {
        assert!(out.contains(a.name()), "{out}");
    }
    assert!(out.contains("float32") && out.contains("float64"), "{out}");
}
