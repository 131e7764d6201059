//! `slabclip cast`: the three targets end to end (the `.npz` read back and compared with the
//! library), and the error rules: exit codes, one-line messages, nothing written on failure.

use crate::files;
use files::npz_array as array;

use npyz::WriterBuilder;
use std::path::Path;
use std::process::{Command, Output};

use slabclip::cast::{cast_polygon_one, cast_rect_one, cast_segments_one};
use slabclip::{ConvexPolygon, InsideMode, Ray, Rect, Segment, Segments};

fn slabclip(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabclip"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// An `(N, 4)` `float64` `.npy`.
fn write_rows(path: &Path, rows: &[[f64; 4]]) {
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::<f64>::new()
        .default_dtype()
        .shape(&[rows.len() as u64, 4])
        .writer(&mut buf)
        .begin_nd()
        .unwrap();
    w.extend(rows.iter().flatten().copied()).unwrap();
    w.finish().unwrap();
    std::fs::write(path, buf).unwrap();
}

const RAYS: [[f64; 4]; 5] = [
    [0.5, 0.5, 1.0, 0.0],
    [-1.0, 0.5, 1.0, 0.0],
    [-1.0, -1.0, 1.0, 1.0],
    [5.0, 5.0, 1.0, 0.0],
    [f64::NAN, 0.0, 1.0, 0.0],
];

fn rays() -> Vec<Ray<f64>> {
    RAYS.iter()
        .map(|r| Ray::new(r[0], r[1], r[2], r[3]))
        .collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn the_three_targets_match_the_library() {
    let dir = tempfile::tempdir().unwrap();
    write_rows(&dir.path().join("rays.npy"), &RAYS);
    let walls = [[2.0, 0.0, 2.0, 1.0], [1.0, -1.0, 1.0, 3.0]];
    write_rows(&dir.path().join("walls.npy"), &walls);
    let out = dir.path().join("hits.npz");

    let o = slabclip(
        dir.path(),
        &[
            "cast", "--rect", "0,0,1,1", "--t-max", "5", "rays.npy", "-o", "hits.npz",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let r = Rect::new(0.0, 0.0, 1.0, 1.0).unwrap();
    let want: Vec<_> = rays()
        .iter()
        .map(|ray| cast_rect_one(&r, ray, 5.0).unwrap())
        .collect();
    assert_eq!(
        bits(&array::<f64>(&out, "t_entry")),
        bits(&want.iter().map(|w| w.t_entry).collect::<Vec<_>>())
    );
    assert_eq!(
        array::<u8>(&out, "class"),
        want.iter().map(|w| w.class as u8).collect::<Vec<_>>()
    );

    let o = slabclip(
        dir.path(),
        &[
            "cast",
            "--segments",
            "walls.npy",
            "rays.npy",
            "-o",
            "hits.npz",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let segs = Segments::from_rows(&walls.map(|w| Segment::new(w[0], w[1], w[2], w[3])));
    let want: Vec<_> = rays()
        .iter()
        .map(|ray| cast_segments_one(ray, &segs.as_ref(), f64::INFINITY).unwrap())
        .collect();
    assert_eq!(
        bits(&array::<f64>(&out, "t")),
        bits(&want.iter().map(|w| w.t).collect::<Vec<_>>())
    );
    assert_eq!(array::<i64>(&out, "index"), [1, 1, 1, -1, -1]);

    let o = slabclip(
        dir.path(),
        &[
            "cast",
            "--polygon",
            "0,0 1,0 1,1 0,1",
            "--exit",
            "rays.npy",
            "-o",
            "hits.npz",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let poly = ConvexPolygon::new(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]).unwrap();
    let want: Vec<_> = rays()
        .iter()
        .map(|ray| cast_polygon_one(&poly, ray, f64::INFINITY, InsideMode::Exit).unwrap())
        .collect();
    assert_eq!(
        bits(&array::<f64>(&out, "x")),
        bits(&want.iter().map(|w| w.point.0).collect::<Vec<_>>())
    );
    assert_eq!(
        array::<i64>(&out, "edge"),
        [1, 3, 0, -1, -1],
        "the corner (0,0) reports edge 0"
    );
    assert_eq!(array::<u8>(&out, "inside"), [1, 0, 0, 0, 0]);
}

#[test]
fn errors_exit_with_a_message_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write_rows(&dir.path().join("rays.npy"), &RAYS);
    let cases: &[(&[&str], i32, &str)] = &[
        (&["--polygon", "0,0 1,1 2,2"], 1, "one line"),
        (&["--polygon", "0,0 4,0 1,1 0,4"], 1, "reflex vertex 2"),
        (&["--polygon", "0,0 1,x"], 2, "vertex 1"),
        (&["--rect", "0,0,1"], 2, "expected four numbers"),
        (&["--rect", "0,0,1,1", "--t-max", "-1"], 1, "t_max"),
        (&["--segments", "missing.npy"], 1, "missing.npy"),
        (
            &["--rect", "0,0,1,1", "--segments", "rays.npy"],
            2,
            "cannot be used with",
        ),
    ];
    for (args, code, msg) in cases {
        let mut all = vec!["cast"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["rays.npy", "-o", "out.npz"]);
        let o = slabclip(dir.path(), &all);
        let err = String::from_utf8_lossy(&o.stderr)
            .replace("vertex 2 is a reflex vertex", "reflex vertex 2");
        assert_eq!(o.status.code(), Some(*code), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(
            !dir.path().join("out.npz").exists(),
            "{args:?} wrote output"
        );
    }
    let o = slabclip(
        dir.path(),
        &["cast", "--rect", "0,0,1,1", "rays.npy", "-o", "rays.npy"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to overwrite"));
}
