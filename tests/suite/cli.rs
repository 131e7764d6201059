//! The `slabclip` binary end to end: every `--emit` mode in both precisions and every input
//! format, every algorithm on the sample data, thread counts, usage errors and help. Bad input
//! files have their own table in `bad_input.rs`.

use crate::files;

use std::fs;
use std::path::Path;

use files::{
    dict, le_bytes, listing, mixed_rows, npy, read_npy, sample, segments_csv, segments_npy,
    slabclip, stderr,
};
use slabclip::{Algorithm, Class, Real};

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

/// `rows::<F>()` in every format that holds `F`: `.npy` little- and big-endian, raw, and (for
/// `f64`) CSV. Returns the file names.
fn write_inputs<F: Real>(dir: &Path) -> Vec<String> {
    let rows = rows::<F>();
    let (descr, raw) = if F::DTYPE == "float32" {
        (">f4", "in.f32")
    } else {
        (">f8", "in.f64")
    };
    let be: Vec<u8> = le_bytes(&rows.concat())
        .chunks(std::mem::size_of::<F>())
        .flat_map(|c| c.iter().rev().copied().collect::<Vec<_>>())
        .collect();
    let mut names = vec![write_input::<F>(dir).to_string()];
    fs::write(dir.join("be.npy"), npy(2, &dict(descr, "(6, 4)"), &be)).unwrap();
    fs::write(dir.join(raw), le_bytes(&rows.concat())).unwrap();
    names.extend(["be.npy".to_string(), raw.to_string()]);
    if F::DTYPE == "float64" {
        let rows: Vec<[f64; 4]> = rows.iter().map(|r| r.map(F::to_f64)).collect();
        fs::write(dir.join("in.csv"), segments_csv(&rows)).unwrap();
        names.push("in.csv".into());
    }
    names
}

/// Runs `clip --rect 0,0,1,1 --emit EMIT` on every format of `rows::<F>()`; the output's shape,
/// type string and values, the same for every format.
fn clip_every_format<F: Real, T: npyz::Deserialize + PartialEq + std::fmt::Debug>(
    emit: &str,
) -> (Vec<u64>, String, Vec<T>) {
    let dir = tempfile::tempdir().unwrap();
    let mut results = Vec::new();
    for input in write_inputs::<F>(dir.path()) {
        let o = slabclip(
            dir.path(),
            &[
                "clip", "--rect", "0,0,1,1", "--emit", emit, &input, "-o", "out.npy",
            ],
        );
        assert!(o.status.success(), "{input}: {}", stderr(&o));
        assert_eq!(o.stderr, b"", "{input}: nothing on stderr");
        let bytes = fs::read(dir.path().join("out.npy")).unwrap();
        results.push((input, bytes));
    }
    for (input, bytes) in &results[1..] {
        assert!(
            *bytes == results[0].1,
            "{input} differs from {}",
            results[0].0
        );
    }
    read_npy::<T>(&dir.path().join("out.npy"))
}

fn emit_t<F: Real + npyz::Deserialize + PartialEq>(descr: &str) {
    let (shape, got_descr, t) = clip_every_format::<F, F>("t");
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
    let (shape, descr, class) = clip_every_format::<F, u8>("class");
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

fn emit_segments<F: Real + npyz::Deserialize + PartialEq>(descr: &str) {
    let (shape, got_descr, s) = clip_every_format::<F, F>("segments");
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
    let inputs: [(&str, &[u8], &str); 6] = [
        ("empty.npy", &npy(1, &dict("<f8", "(0, 4)"), &[]), "<f8"),
        ("empty32.npy", &npy(3, &dict("<f4", "(0, 4)"), &[]), "<f4"),
        ("empty.csv", b"", "<f8"),
        ("header-only.csv", b"x0,y0,x1,y1\n", "<f8"),
        ("empty.f32", b"", "<f4"),
        ("empty.f64", b"", "<f8"),
    ];
    for (name, bytes, float) in inputs {
        fs::write(dir.path().join(name), bytes).unwrap();
        for (emit, shape, descr) in [
            ("t", vec![0, 2], float),
            ("class", vec![0], "|u1"),
            ("segments", vec![0, 4], float),
        ] {
            let o = slabclip(
                dir.path(),
                &[
                    "clip", "--rect", "0,0,1,1", "--emit", emit, name, "-o", "out.npy",
                ],
            );
            assert!(o.status.success(), "{name} {emit}: {}", stderr(&o));
            let path = dir.path().join("out.npy");
            let got = match descr {
                "|u1" => {
                    let (shape, d, v) = read_npy::<u8>(&path);
                    (shape, d, v.len())
                }
                "<f4" => {
                    let (shape, d, v) = read_npy::<f32>(&path);
                    (shape, d, v.len())
                }
                _ => {
                    let (shape, d, v) = read_npy::<f64>(&path);
                    (shape, d, v.len())
                }
            };
            assert_eq!(got, (shape, descr.to_string(), 0), "{name} {emit}");
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
        (
            vec!["--rect", "0,0,1,1", "--threads", "0"],
            "expected a count from 1 to 65535",
        ),
        (vec!["--rect", "0,0,1,1", "--threads", "two"], "--threads"),
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
    let o = slabclip(
        dir.path(),
        &["clip", "--rect", "0,0,1,1", input, "-o", "out.csv"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("ending in .npy"), "{}", stderr(&o));
    assert_eq!(listing(dir.path()), [input]);
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
        "--threads",
        "--quiet",
        ".csv",
        ".f32",
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
    assert!(out.contains(".npy, .csv, .f32, .f64"), "{out}");
    let threads = |o: &std::process::Output| {
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let line = out
            .lines()
            .find(|l| l.starts_with("threads:"))
            .unwrap_or_default();
        line.split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<usize>().ok())
    };
    assert!(threads(&o).is_some_and(|n| n >= 1), "{out}");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_slabclip"))
        .arg("info")
        .env("RAYON_NUM_THREADS", "3")
        .output()
        .unwrap();
    assert_eq!(threads(&o), Some(3), "rayon's thread count is reported");
}

#[test]
fn thread_counts_and_chunks_do_not_change_the_output() {
    // Enough rows for the batch to be split across threads and several chunks.
    let rows = mixed_rows(2_500_000, 7);
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.npy"), segments_npy(&rows)).unwrap();
    for emit in ["t", "segments"] {
        let mut outputs = Vec::new();
        for threads in ["1", "2", "3"] {
            let out = format!("{emit}-{threads}.npy");
            let o = slabclip(
                dir.path(),
                &[
                    "clip",
                    "--rect",
                    "0,0,1,1",
                    "--emit",
                    emit,
                    "--threads",
                    threads,
                    "in.npy",
                    "-o",
                    &out,
                ],
            );
            assert!(o.status.success(), "{}", stderr(&o));
            outputs.push(fs::read(dir.path().join(out)).unwrap());
        }
        assert!(outputs.iter().all(|o| *o == outputs[0]), "--emit {emit}");
    }
    // And the same as clipping in memory, whole.
    let (_, _, t) = read_npy::<f64>(&dir.path().join("t-1.npy"));
    let segs: Vec<slabclip::Segment<f64>> = rows
        .iter()
        .map(|r| slabclip::Segment::new(r[0], r[1], r[2], r[3]))
        .collect();
    let rect = slabclip::Rect::new(0.0, 0.0, 1.0, 1.0).unwrap();
    let want = Algorithm::SlabScalar.clip_to_vec(&rect, &segs[..], false);
    for (i, pair) in t.chunks(2).enumerate() {
        assert!(
            same(pair[0], want.t_entry[i]) && same(pair[1], want.t_exit[i]),
            "row {i}"
        );
    }
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input::<f32>(dir.path());
    for quiet in [&[][..], &["--quiet"], &["-q"]] {
        let mut args = vec!["clip", "--rect", "0,0,1,1", input, "-o", "out.npy"];
        args.extend(quiet);
        let o = slabclip(dir.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(o.stderr, b"", "{quiet:?}");
        assert_eq!(o.stdout, b"", "{quiet:?}");
    }
}

/// `slabclip info | head -1`: a reader that closes the pipe early ends the output quietly (exit
/// 0, nothing on stderr), where `println!` panicked on the broken pipe.
#[test]
fn a_closed_stdout_pipe_is_no_error() {
    use std::process::{Command, Stdio};
    for args in [&["info"][..], &["compare", "--n", "4K", "--repeat", "1"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_slabclip"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        drop(child.stdout.take()); // the reader goes away before the first line
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

// ---------------------------------------------------------------------------------------------
// cast --segments: the scene index where it pays, the same bytes either way

/// Walls of a city with the hard ones mixed in: NaN, zero length, repeated, collinear
/// neighbours, rays aimed at their endpoints.
fn walls_and_rays<F: Real>(m: usize, n: usize, seed: u64) -> (Vec<[F; 4]>, Vec<[F; 4]>) {
    use slabclip::workload::SceneKind;
    let w = SceneKind::City.walls::<F>(m, seed);
    let mut walls: Vec<[F; 4]> = (0..w.len())
        .map(|i| {
            let s = slabclip::SegmentSource::segment(&w, i);
            [s.x0, s.y0, s.x1, s.y1]
        })
        .collect();
    let f = F::from_f64;
    for (i, w) in walls.iter_mut().enumerate() {
        match i % 13 {
            3 => w[1] = F::NAN,
            5 => (w[2], w[3]) = (w[0], w[1]),
            7 if i > 0 => *w = [w[0], w[1], w[0] + f(2.0), w[1]],
            _ => {}
        }
    }
    let r = SceneKind::City.rays::<F>(m, n, seed + 1);
    let mut rays: Vec<[F; 4]> = (0..r.len())
        .map(|i| {
            let x = r.as_ref().ray(i);
            [x.ox, x.oy, x.dx, x.dy]
        })
        .collect();
    for (i, ray) in rays.iter_mut().enumerate().step_by(3) {
        let w = walls[(i * 7) % walls.len()];
        (ray[2], ray[3]) = (w[0] - ray[0], w[1] - ray[1]);
    }
    (walls, rays)
}

fn cast_methods_write_the_same_bytes<F: Real + npyz::Deserialize>() {
    let dir = tempfile::tempdir().unwrap();
    let (mw, mr) = (
        slabclip::cast::INDEX_MIN_WALLS,
        slabclip::cast::INDEX_MIN_RAYS,
    );
    let mut built = [false; 2];
    for (m, n) in [(mw - 1, 4 * mr), (mw, mr - 1), (mw, mr), (4 * mw, 5 * mr)] {
        let (walls, rays) = walls_and_rays::<F>(m, n, (m + n) as u64);
        fs::write(dir.path().join("walls.npy"), segments_npy(&walls)).unwrap();
        fs::write(dir.path().join("rays.npy"), segments_npy(&rays)).unwrap();
        let mut outputs = Vec::new();
        for method in ["auto", "brute-force", "scene"] {
            let name = format!("{method}.npz");
            let o = slabclip(
                dir.path(),
                &[
                    "cast",
                    "--segments",
                    "walls.npy",
                    "--method",
                    method,
                    "rays.npy",
                    "-o",
                    &name,
                ],
            );
            assert!(o.status.success(), "{method}: {}", stderr(&o));
            outputs.push(fs::read(dir.path().join(&name)).unwrap());
        }
        assert!(
            outputs.iter().all(|b| *b == outputs[0]),
            "{m} walls, {n} rays"
        );
        // And the library's brute force, bit for bit.
        let segs = slabclip::Segments::from_rows(
            &walls
                .iter()
                .map(|w| slabclip::Segment::new(w[0], w[1], w[2], w[3]))
                .collect::<Vec<_>>(),
        );
        let t: Vec<F> = files::npz_array(&dir.path().join("auto.npz"), "t");
        let index: Vec<i64> = files::npz_array(&dir.path().join("auto.npz"), "index");
        for (i, r) in rays.iter().enumerate() {
            let want = slabclip::cast::cast_segments_one(
                &slabclip::Ray::new(r[0], r[1], r[2], r[3]),
                &segs.as_ref(),
                F::INFINITY,
            )
            .unwrap();
            assert!(same(t[i], want.t), "ray {i}");
            assert_eq!(
                index[i],
                slabclip::cast::signed_index(want.index),
                "ray {i}"
            );
        }
        assert!(index.iter().filter(|&&k| k >= 0).count() > n / 4);
        built[slabclip::cast::index_pays(n, m) as usize] = true;
    }
    assert_eq!(built, [true, true], "both sides of the crossover");
}

#[test]
fn cast_segments_methods_write_the_same_bytes_f32() {
    cast_methods_write_the_same_bytes::<f32>();
}

#[test]
fn cast_segments_methods_write_the_same_bytes_f64() {
    cast_methods_write_the_same_bytes::<f64>();
}

#[test]
fn cast_method_usage_and_help() {
    let dir = tempfile::tempdir().unwrap();
    let (walls, rays) = walls_and_rays::<f32>(10, 10, 1);
    fs::write(dir.path().join("walls.npy"), segments_npy(&walls)).unwrap();
    fs::write(dir.path().join("rays.npy"), segments_npy(&rays)).unwrap();
    let o = slabclip(
        dir.path(),
        &[
            "cast",
            "--segments",
            "walls.npy",
            "--method",
            "bvh",
            "rays.npy",
            "-o",
            "o.npz",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("auto, brute-force, scene"),
        "{}",
        stderr(&o)
    );
    let o = slabclip(
        dir.path(),
        &[
            "cast", "--rect", "0,0,1,1", "--method", "scene", "rays.npy", "-o", "o.npz",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "--method goes with --segments only"
    );
    assert!(
        stderr(&o).contains("cannot be used with '--method <METHOD>'"),
        "{}",
        stderr(&o)
    );
    assert_eq!(listing(dir.path()), ["rays.npy", "walls.npy"]);
    let o = slabclip(dir.path(), &["cast", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout).into_owned();
    for words in ["--method", "scene index", "brute-force", "bit for bit"] {
        assert!(help.contains(words), "cast --help does not say {words:?}");
    }
}
