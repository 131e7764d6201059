//! `slabclip lines` and `slabclip gen --lines` end to end: the GeoJSON path, the ragged `.npz`
//! path and the library's own call give the same parts bit for bit (every target: rect, tiles,
//! buffered tiles, half-open tiles, points), batches of any size give the same file, a
//! multi-megabyte file streams, and bad input is a one-line error naming the feature or
//! polyline with nothing written.

use crate::files;

use std::fs;
use std::path::Path;

use files::{listing, npz_array, slabclip, stderr};
use serde_json::Value;
use slabclip::io::{write_npz, Column, GeoJsonFile};
use slabclip::workload::LineKind;
use slabclip::{Grid, Lines, MultiPolylines, PartOptions, Parts, Polylines, Rect, TileOptions};

/// The targets tried, as flags and as the library's call.
fn targets() -> Vec<(Vec<&'static str>, Target)> {
    let grid = Target::Grid {
        lines: Lines::Closed,
        buffer: None,
    };
    vec![
        (vec!["--rect", "0.1,0.2,0.9,0.7"], Target::Rect),
        (vec!["--grid", "0,0,1,1", "--cells", "7,5"], grid),
        (
            vec!["--grid", "0,0,1,1", "--cells", "7,5", "--half-open"],
            Target::Grid {
                lines: Lines::HalfOpen,
                buffer: None,
            },
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "7,5", "--buffer", "0.01"],
            Target::Grid {
                lines: Lines::Closed,
                buffer: Some(0.01),
            },
        ),
    ]
}

#[derive(Clone, Copy)]
enum Target {
    Rect,
    Grid { lines: Lines, buffer: Option<f64> },
}

/// The library's answer on the whole batch.
fn library(lines: &MultiPolylines<'_, f64>, t: Target, points: bool) -> Parts<f64> {
    let mut out = Parts::new();
    match t {
        Target::Rect => {
            let r = Rect::new(0.1, 0.2, 0.9, 0.7).unwrap();
            lines.clip(&r, &PartOptions { points }, &mut out);
        }
        Target::Grid { lines: l, buffer } => {
            let g = Grid::new(Rect::new(0.0, 0.0, 1.0, 1.0).unwrap(), 7, 5).unwrap();
            let o = TileOptions {
                lines: l,
                points,
                buffer,
            };
            lines.tiles(&g, &o, &mut out).unwrap();
        }
    }
    out
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The parts of an `.npz` output against the library's, array by array.
fn check_npz(out: &Path, want: &Parts<f64>, tiles: bool, points: bool) {
    assert_eq!(bits(&npz_array::<f64>(out, "coords")), bits(&want.coords));
    assert_eq!(npz_array::<i64>(out, "offsets"), want.offsets);
    assert_eq!(npz_array::<i64>(out, "polyline"), want.polyline);
    assert_eq!(npz_array::<i64>(out, "geometry"), want.geometry);
    if tiles {
        assert_eq!(npz_array::<i64>(out, "ix"), want.ix);
        assert_eq!(npz_array::<i64>(out, "iy"), want.iy);
    }
    if points {
        let p = &want.points;
        assert_eq!(
            bits(&npz_array::<f64>(out, "point_coords")),
            bits(&p.coords)
        );
        assert_eq!(npz_array::<i64>(out, "point_polyline"), p.polyline);
        assert_eq!(npz_array::<i64>(out, "point_geometry"), p.geometry);
        if tiles {
            assert_eq!(npz_array::<i64>(out, "point_ix"), p.ix);
            assert_eq!(npz_array::<i64>(out, "point_iy"), p.iy);
        }
    }
}

/// The features of a GeoJSON output: (properties, geometry type, raw coordinates text).
fn features(path: &Path) -> Vec<(serde_json::Map<String, Value>, String, String)> {
    #[derive(serde::Deserialize)]
    struct F<'a> {
        properties: serde_json::Map<String, Value>,
        #[serde(borrow)]
        geometry: G<'a>,
    }
    #[derive(serde::Deserialize)]
    struct G<'a> {
        #[serde(rename = "type")]
        kind: String,
        #[serde(borrow)]
        coordinates: &'a serde_json::value::RawValue,
    }
    #[derive(serde::Deserialize)]
    struct C<'a> {
        #[serde(borrow)]
        features: Vec<F<'a>>,
    }
    let text = fs::read_to_string(path).unwrap();
    let c: C<'_> = serde_json::from_str(&text).unwrap();
    c.features
        .into_iter()
        .map(|f| {
            (
                f.properties,
                f.geometry.kind,
                f.geometry.coordinates.get().to_string(),
            )
        })
        .collect()
}

/// A GeoJSON output's parts against the library's: coordinates read back exactly (the
/// crate's reader), properties `feature`, `part`, `ix`, `iy` and the source's own.
fn check_geojson(out: &Path, want: &Parts<f64>, tiles: bool) {
    let f = GeoJsonFile::open(out).unwrap();
    let b = f.read_all().unwrap();
    let lines: Vec<_> = features(out)
        .into_iter()
        .filter(|f| f.1 == "LineString")
        .collect();
    assert_eq!(lines.len(), want.len());
    assert_eq!(bits(&b.coords), bits(&want.coords));
    assert_eq!(b.offsets, want.offsets);
    let mut numbers = std::collections::HashMap::new();
    for (k, (props, _, _)) in lines.iter().enumerate() {
        let int = |key: &str| props[key].as_i64().unwrap();
        let g = want.geometry[k];
        assert_eq!(int("feature"), g);
        let cell = tiles.then(|| (want.ix[k], want.iy[k]));
        if let Some((ix, iy)) = cell {
            assert_eq!((int("ix"), int("iy")), (ix, iy));
        } else {
            assert!(!props.contains_key("ix"));
        }
        let n = numbers.entry((g, cell)).or_insert(0);
        assert_eq!(int("part"), *n, "part {k}");
        *n += 1;
    }
}

/// Writes the workload as GeoJSON (through `gen`) and as a ragged `.npz` (from the library's
/// workload), both `f64`.
fn inputs(
    dir: &Path,
    kind: LineKind,
    n: usize,
    seed: u64,
) -> slabclip::workload::LineWorkload<f64> {
    let n_text = n.to_string();
    let seed_text = seed.to_string();
    let o = slabclip(
        dir,
        &[
            "gen",
            "--lines",
            kind.name(),
            "--n",
            &n_text,
            "--seed",
            &seed_text,
            "--precision",
            "f64",
            "-o",
            "in.geojson",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let w = kind.generate::<f64>(n, seed);
    write_npz(
        dir.join("in.npz"),
        &[
            ("coords", Column::F64Pairs(&w.coords)),
            ("offsets", Column::I64(&w.offsets)),
            ("geometry_offsets", Column::I64(&w.geometry_offsets)),
        ],
    )
    .unwrap();
    w
}

#[test]
fn geojson_npz_and_library_agree_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    for kind in LineKind::ALL {
        let w = inputs(dir.path(), kind, 6000, 11);
        // gen's GeoJSON reads back to the workload's bits.
        let file = GeoJsonFile::open(dir.path().join("in.geojson")).unwrap();
        let b = file.read_all().unwrap();
        assert_eq!(bits(&b.coords), bits(&w.coords));
        assert_eq!(
            (&b.offsets, &b.geometry_offsets),
            (&w.offsets, &w.geometry_offsets)
        );
        let lines = w.lines();
        for (flags, t) in targets() {
            for points in [false, true] {
                let want = library(&lines, t, points);
                assert!(want.len() > 5, "{kind} {flags:?}: {} parts", want.len());
                let tiles = matches!(t, Target::Grid { .. });
                for (input, output) in [
                    ("in.geojson", "out.npz"),
                    ("in.npz", "out.npz"),
                    ("in.npz", "out.geojson"),
                    ("in.geojson", "out.geojson"),
                ] {
                    let mut args = vec!["lines"];
                    args.extend(&flags);
                    if points {
                        args.push("--points");
                    }
                    args.extend(["--batch", "500", "--threads", "2", input, "-o", output]);
                    let o = slabclip(dir.path(), &args);
                    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
                    let out = dir.path().join(output);
                    if output.ends_with(".npz") {
                        check_npz(&out, &want, tiles, points);
                    } else if points {
                        // Point features besides the parts: compare the points' text.
                        let f = features(&out);
                        let pts: Vec<_> = f.iter().filter(|f| f.1 == "Point").collect();
                        assert_eq!(pts.len(), want.points.len());
                        for (q, p) in pts.iter().enumerate() {
                            let xy = &want.points.coords[2 * q..2 * q + 2];
                            let text = serde_json::to_string(&xy).unwrap();
                            assert_eq!(p.2, text);
                            assert_eq!(p.0["feature"].as_i64(), Some(want.points.geometry[q]));
                            assert!(!p.0.contains_key("part"));
                        }
                    } else {
                        check_geojson(&out, &want, tiles);
                    }
                }
            }
        }
    }
}

#[test]
fn properties_and_ids_carry_over_and_reserved_keys_are_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{"type": "FeatureCollection", "name": "x", "features": [
        {"type": "Feature", "id": "road-7", "properties": {"name": "High St", "lanes": [2, 1], "ix": 99},
         "geometry": {"type": "LineString", "coordinates": [[-1, 0.375], [0.25, 0.375], [0.75, 0.875], [2, 0.875]]}},
        {"type": "Feature", "properties": null,
         "geometry": {"type": "MultiLineString", "coordinates": [[[0.1, 0.1], [0.1, 0.9]], [[0.3, -1], [0.3, 2]]]}}
    ]}"#;
    fs::write(dir.path().join("in.geojson"), text).unwrap();
    let o = slabclip(
        dir.path(),
        &[
            "lines",
            "--grid",
            "0,0,1,1",
            "--cells",
            "2,2",
            "in.geojson",
            "-o",
            "t.geojson",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let raw = fs::read_to_string(dir.path().join("t.geojson")).unwrap();
    // The source's id and properties as written, then the added keys; each key once.
    assert!(raw.contains(r#"{"type":"Feature","id":"road-7","properties":{"name":"High St","lanes":[2, 1],"feature":0,"part":0,"ix":0,"iy":0},"geometry":{"type":"LineString","coordinates":[[0.0,0.375],[0.25,0.375],[0.375,0.5]]}}"#), "{raw}");
    assert_eq!(
        raw.matches("\"ix\"").count(),
        features(&dir.path().join("t.geojson")).len()
    );
    let f = features(&dir.path().join("t.geojson"));
    let summary: Vec<(i64, i64, i64, i64)> = f
        .iter()
        .map(|(p, _, _)| {
            let i = |k: &str| p[k].as_i64().unwrap();
            (i("feature"), i("ix"), i("iy"), i("part"))
        })
        .collect();
    // Feature 0 crosses (0, 0) → (0, 1) → (1, 1); feature 1's lines: x = 0.1 in (0, 0) and
    // (0, 1), then x = 0.3 in the same cells (part 1 of each).
    assert_eq!(
        summary,
        [
            (0, 0, 0, 0),
            (0, 0, 1, 0),
            (0, 1, 1, 0),
            (1, 0, 0, 0),
            (1, 0, 1, 0),
            (1, 0, 0, 1),
            (1, 0, 1, 1)
        ]
    );
    // Re-tiling the output replaces the added keys again.
    let o = slabclip(
        dir.path(),
        &[
            "lines",
            "--rect",
            "0,0,0.5,1",
            "t.geojson",
            "-o",
            "again.geojson",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let again = features(&dir.path().join("again.geojson"));
    assert!(again.iter().all(|(p, _, _)| !p.contains_key("ix")));
    assert_eq!(again[0].0["name"], "High St");
}

#[test]
fn a_multi_megabyte_file_streams_in_batches_with_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let w = inputs(dir.path(), LineKind::Roads, 150_000, 3);
    let size = fs::metadata(dir.path().join("in.geojson")).unwrap().len();
    assert!(size > 5 << 20, "{size} bytes");
    let run = |batch: &str, out: &str| {
        let o = slabclip(
            dir.path(),
            &[
                "lines",
                "--grid",
                "-0.5,-0.5,1.5,1.5",
                "--cells",
                "64,64",
                "--batch",
                batch,
                "--summary",
                "in.geojson",
                "-o",
                out,
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let small = run("1K", "small.geojson");
    let whole = run("1G", "whole.geojson");
    assert_eq!(small, whole);
    assert_eq!(
        fs::read(dir.path().join("small.geojson")).unwrap(),
        fs::read(dir.path().join("whole.geojson")).unwrap()
    );
    let roads = w.offsets.len() - 1;
    assert!(
        small.starts_with(&format!(
            "features {roads} polylines {roads} vertices {} parts ",
            w.coords.len() / 2
        )),
        "{small}"
    );
    let _ = run("1K", "small.npz");
    let mut want = Parts::new();
    let g = Grid::new(Rect::new(-0.5, -0.5, 1.5, 1.5).unwrap(), 64, 64).unwrap();
    w.lines()
        .tiles(&g, &TileOptions::default(), &mut want)
        .unwrap();
    check_npz(&dir.path().join("small.npz"), &want, true, false);
}

#[test]
fn npz_in_any_dtype_and_nan_vertices_break_lines() {
    let dir = tempfile::tempdir().unwrap();
    // Two polylines, no geometry offsets, int32 offsets; a NaN vertex in the first.
    let xy: [f32; 12] = [
        -0.5,
        0.5,
        0.25,
        0.5,
        f32::NAN,
        0.6,
        0.6,
        0.6,
        0.75,
        0.25,
        1.5,
        0.25,
    ];
    let xy = xy.map(|v| v as f64);
    let offsets = [0i64, 4, 6];
    write_npz(
        dir.path().join("a.npz"),
        &[
            ("coords", Column::F64Pairs(&xy)),
            ("offsets", Column::I64(&offsets)),
        ],
    )
    .unwrap();
    let xy32: Vec<f32> = xy.iter().map(|&v| v as f32).collect();
    write_npz(
        dir.path().join("b.npz"),
        &[
            ("coords", Column::F32Pairs(&xy32)),
            ("offsets", Column::I64(&offsets)),
        ],
    )
    .unwrap();
    for (input, output) in [("a.npz", "a-out.npz"), ("b.npz", "b-out.npz")] {
        let o = slabclip(
            dir.path(),
            &["lines", "--rect", "0,0,1,1", input, "-o", output],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // The NaN vertex leaves out both its segments: the first polyline's part ends at
    // (0.25, 0.5) and nothing of it resumes (its last segment touches the NaN vertex too).
    let want_xy = [0.0, 0.5, 0.25, 0.5, 0.75, 0.25, 1.0, 0.25];
    let out = dir.path().join("a-out.npz");
    assert_eq!(npz_array::<f64>(&out, "coords"), want_xy);
    assert_eq!(npz_array::<i64>(&out, "offsets"), [0, 2, 4]);
    assert_eq!(npz_array::<i64>(&out, "polyline"), [0, 1]);
    let lines = Polylines::interleaved(&xy, &offsets).unwrap();
    let mut want = Parts::new();
    lines.clip(
        &Rect::new(0.0, 0.0, 1.0, 1.0).unwrap(),
        &PartOptions::default(),
        &mut want,
    );
    assert_eq!(want.coords, want_xy);
    // float32 stays float32.
    let out = dir.path().join("b-out.npz");
    assert_eq!(npz_array::<f32>(&out, "coords"), want_xy.map(|v| v as f32));
    // Without geometry offsets, no geometry column.
    let names = {
        let z = zip::ZipArchive::new(fs::File::open(&out).unwrap()).unwrap();
        z.file_names()
            .map(|n| n.unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names, ["coords.npy", "offsets.npy", "polyline.npy"]);
}

/// Runs `lines` on `input` (written to `name`), expecting a data error containing `want`, and
/// nothing written (an existing output untouched).
fn data_error(name: &str, input: &[u8], extra: &[&str], want: &str) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(name), input).unwrap();
    fs::write(dir.path().join("out.geojson"), b"old").unwrap();
    let mut args = vec!["lines", "--grid", "0,0,1,1", "--cells", "2,2"];
    args.extend(extra);
    args.extend([name, "-o", "out.geojson"]);
    let o = slabclip(dir.path(), &args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{name}: {e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with(&format!("slabclip: error: {name}: ")), "{e}");
    assert!(e.contains(want), "{e}\n  wanted: {want}");
    assert_eq!(fs::read(dir.path().join("out.geojson")).unwrap(), b"old");
    let mut want_files = vec![name.to_string(), "out.geojson".to_string()];
    want_files.sort();
    assert_eq!(listing(dir.path()), want_files);
}

fn npz(arrays: &[(&str, Column<'_>)]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.npz");
    write_npz(&p, arrays).unwrap();
    fs::read(p).unwrap()
}

#[test]
fn bad_input_names_the_feature_or_polyline_and_writes_nothing() {
    let good = r#"{"type": "Feature", "properties": {"a": 1}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}"#;
    let fc = |bad: &str| {
        format!(r#"{{"type": "FeatureCollection", "features": [{good}, {good},{bad}]}}"#)
            .into_bytes()
    };
    // Many features before the bad one, so a batch or two have been written already.
    let many = {
        let mut f = vec![good; 5000].join(",\n");
        f += r#", {"type": "Feature", "id": 12, "geometry": {"type": "MultiPolygon", "coordinates": []}}"#;
        format!(r#"{{"type": "FeatureCollection", "features": [{f}]}}"#).into_bytes()
    };
    data_error("many.geojson", &many, &["--batch", "100"], "feature 5000 (id 12): a MultiPolygon geometry: slabclip lines cuts LineString and MultiLineString geometries only");
    data_error(
        "a.geojson",
        &fc(
            r#"{"type": "Feature", "id": "p1", "geometry": {"type": "Point", "coordinates": [0.5, 0.5]}}"#,
        ),
        &[],
        "feature 2 (id \"p1\"): a Point geometry",
    );
    data_error(
        "b.geojson",
        &fc(
            r#"{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 1], [0, 0]]]}}"#,
        ),
        &[],
        "feature 2: a Polygon geometry",
    );
    data_error(
        "c.geojson",
        &fc(
            r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1 1]]}}"#,
        ),
        &[],
        "feature 2: expected `,` or `]` at line 1 column",
    );
    data_error(
        "d.geojson",
        &fc(
            r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0.5, 0.5]]}}"#,
        ),
        &[],
        "feature 2: a line of a single position",
    );
    data_error(
        "e.geojson",
        &fc(
            r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [NaN, 1]]}}"#,
        ),
        &[],
        "feature 2: expected value at line 1",
    );
    data_error(
        "f.geojson",
        b"{\"type\": \"FeatureCollection\", \"features\": [",
        &[],
        "EOF while parsing",
    );
    data_error("g.geojson", b"", &[], "the file is empty");
    data_error(
        "h.json",
        b"[1, 2]",
        &[],
        "expected a GeoJSON FeatureCollection",
    );
    let xy = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0];
    data_error(
        "i.npz",
        &npz(&[
            ("coords", Column::F64Pairs(&xy)),
            ("offsets", Column::I64(&[0, 2, 1, 3])),
        ]),
        &[],
        "polyline 1: offsets decrease (offsets[1] = 2, offsets[2] = 1)",
    );
    data_error(
        "j.npz",
        &npz(&[
            ("coords", Column::F64Pairs(&xy)),
            ("offsets", Column::I64(&[0, 2, 7])),
        ]),
        &[],
        "polyline 1: offsets[2] = 7 is beyond the 3 items it indexes",
    );
    data_error(
        "k.npz",
        &npz(&[
            ("coords", Column::F64Pairs(&xy)),
            ("offsets", Column::I64(&[0, 2, 3])),
        ]),
        &[],
        "polyline 1 has a single vertex (vertex 2)",
    );
    data_error(
        "l.npz",
        &npz(&[
            ("coords", Column::F64(&xy)),
            ("offsets", Column::I64(&[0, 3])),
        ]),
        &[],
        "array 'coords': wrong shape (6,), expected (N, 2)",
    );
    data_error(
        "m.npz",
        &npz(&[
            ("coords", Column::F64Pairs(&xy)),
            ("offsets", Column::F64(&[0.0, 3.0])),
        ]),
        &[],
        "array 'offsets': wrong dtype float64, expected int32 or int64",
    );
    data_error(
        "n.npz",
        &npz(&[("xy", Column::F64Pairs(&xy))]),
        &[],
        "no array 'coords': a ragged .npz holds coords (V, 2)",
    );
    data_error(
        "o.npz",
        &npz(&[
            ("coords", Column::F64Pairs(&xy)),
            ("offsets", Column::I64(&[0, 3])),
            ("geometry_offsets", Column::I64(&[0, 2])),
        ]),
        &[],
        "geometry 0: geometry_offsets[1] = 2 is beyond the 1 items it indexes",
    );
    data_error("p.npz", b"PK not a zip", &[], "not an .npz (zip) file");
    let xy32 = [0.0f32, 0.0, 1.0, 1.0];
    data_error(
        "q.npz",
        &npz(&[
            ("coords", Column::F32Pairs(&xy32)),
            ("offsets", Column::I64(&[0, 2])),
        ]),
        &["--buffer", "1e39"],
        "the buffer 1e39 does not fit float32",
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for (args, want) in [
        (&["lines", "in.geojson", "-o", "o.geojson"][..], "--rect"),
        (
            &[
                "lines",
                "--cells",
                "2,2",
                "--rect",
                "0,0,1,1",
                "in.geojson",
                "-o",
                "o.geojson",
            ][..],
            "--grid",
        ),
        (
            &[
                "lines",
                "--rect",
                "0,0,1,1",
                "--buffer",
                "0.1",
                "in.geojson",
                "-o",
                "o.geojson",
            ][..],
            "--grid",
        ),
        (
            &[
                "lines",
                "--grid",
                "0,0,1,1",
                "--cells",
                "2,2",
                "--buffer",
                "-1",
                "in.geojson",
                "-o",
                "o.geojson",
            ][..],
            "not a finite number of at least 0",
        ),
        (
            &[
                "lines",
                "--grid",
                "0,0,1,1",
                "--cells",
                "2,2",
                "--buffer",
                "0.1",
                "--half-open",
                "in.geojson",
                "-o",
                "o.geojson",
            ][..],
            "cannot be used with",
        ),
        (
            &["lines", "--rect", "0,0,1,1", "in.geojson", "-o", "o.csv"][..],
            "ending in .geojson, .json or .npz",
        ),
        (
            &[
                "lines",
                "--grid",
                "0,0,1,1",
                "--cells",
                "0,2",
                "in.geojson",
                "-o",
                "o.npz",
            ][..],
            "expected a count from 1",
        ),
        (
            &["gen", "--lines", "lakes", "--n", "10", "-o", "x.geojson"][..],
            "possible values: roads, rivers",
        ),
        (
            &[
                "gen",
                "--lines",
                "roads",
                "--dist",
                "mixed",
                "--n",
                "10",
                "-o",
                "x.geojson",
            ][..],
            "cannot be used with",
        ),
    ] {
        let o = slabclip(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
    assert!(listing(dir.path()).is_empty());
    let o = slabclip(dir.path(), &["lines", "--help"]);
    let help = String::from_utf8(o.stdout).unwrap();
    for words in [
        "map tiles",
        "--buffer",
        "watertight",
        "geometry_offsets",
        "feature (its index",
    ] {
        assert!(help.contains(words), "{words}: {help}");
    }
}

#[test]
fn gen_lines_are_the_workload_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, precision) in [(LineKind::Rivers, "f32"), (LineKind::Roads, "f64")] {
        let o = slabclip(
            dir.path(),
            &[
                "gen",
                "--lines",
                kind.name(),
                "--n",
                "3000",
                "--seed",
                "9",
                "--precision",
                precision,
                "-o",
                "l.npz",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let o = slabclip(
            dir.path(),
            &[
                "gen",
                "--lines",
                kind.name(),
                "--n",
                "3000",
                "--seed",
                "9",
                "--precision",
                precision,
                "-o",
                "l.json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let (npz, json) = (dir.path().join("l.npz"), dir.path().join("l.json"));
        let file = GeoJsonFile::open(&json).unwrap();
        let b = file.read_all().unwrap();
        if precision == "f32" {
            let w = kind.generate::<f32>(3000, 9);
            assert_eq!(npz_array::<f32>(&npz, "coords"), w.coords);
            assert_eq!(
                npz_array::<i64>(&npz, "geometry_offsets"),
                w.geometry_offsets
            );
            // GeoJSON holds the float32 values exactly, widened.
            assert!(b.coords.iter().zip(&w.coords).all(|(&a, &b)| a == b as f64));
            assert_eq!(b.geometry_offsets, w.geometry_offsets);
        } else {
            let w = kind.generate::<f64>(3000, 9);
            assert_eq!(bits(&npz_array::<f64>(&npz, "coords")), bits(&w.coords));
            assert_eq!(bits(&b.coords), bits(&w.coords));
            assert_eq!(npz_array::<i64>(&npz, "offsets"), w.offsets);
        }
        let f = features(&json);
        assert_eq!(
            f[0].0["kind"],
            if kind == LineKind::Roads {
                "road"
            } else {
                "river"
            }
        );
    }
}

#[test]
fn the_shipped_sample_is_gen_output() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let shipped = fs::read(data.join("roads.geojson")).unwrap();
    assert!(shipped.len() < 200_000, "{} bytes", shipped.len());
    let dir = tempfile::tempdir().unwrap();
    let o = slabclip(
        dir.path(),
        &[
            "gen",
            "--lines",
            "roads",
            "--n",
            "4000",
            "--seed",
            "1",
            "--precision",
            "f32",
            "-o",
            "roads.geojson",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        fs::read(dir.path().join("roads.geojson")).unwrap() == shipped,
        "data/roads.geojson differs from gen's"
    );
}
