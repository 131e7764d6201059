//! `slabclip clip --rects` (the hit list and `--pairwise`) and `--polygon` end to end: the `.npz`
//! read back and compared, bit for bit, with the library on the same data, in both dtypes and
//! for rects given as `.npy` or `.csv`.

use crate::files;

use std::fs;
use std::io::Read;
use std::path::Path;

use files::{mixed_rows, segments_csv, segments_npy, slabclip, stderr};
use slabclip::cast::clip_polygon;
use slabclip::{Algorithm, ClipOutput, ConvexPolygon, Real, Rect, RectSet, Segments};

/// Array `name` of an `.npz`.
fn array<T: npyz::Deserialize>(path: &Path, name: &str) -> Vec<T> {
    let mut zip = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    let mut bytes = Vec::new();
    zip.by_name(&format!("{name}.npy"))
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}

fn bits<F: Real>(v: &[F]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits_u64()).collect()
}

/// Rects with shared edges, zero widths and overlaps around the unit square, as `f64` rows.
fn rect_rows(m: usize) -> Vec<[f64; 4]> {
    (0..m)
        .map(|k| {
            let (i, j) = ((k % 7) as f64 * 0.25 - 0.5, (k / 7 % 7) as f64 * 0.25 - 0.5);
            let w = [0.25, 0.0, 0.5][k % 3];
            [i, j, i + w, j + 0.25]
        })
        .collect()
}

fn rects_csv(rows: &[[f64; 4]]) -> Vec<u8> {
    let text = String::from_utf8(segments_csv(rows)).unwrap();
    text.replacen("x0,y0,x1,y1", "xmin,ymin,xmax,ymax", 1)
        .into_bytes()
}

fn run(dir: &Path, args: &[&str]) {
    let o = slabclip(dir, args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
}

/// The segments in dtype `F` from `in.npy`, the rects rounded to `F` as the command does.
fn check<F: Real + npyz::Deserialize>(
    segment_rows: &[[F; 4]],
    rect_file: &str,
    rects: &[[f64; 4]],
) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("in.npy"), segments_npy(segment_rows)).unwrap();
    fs::write(
        d.join(rect_file),
        if rect_file.ends_with(".csv") {
            rects_csv(rects)
        } else {
            segments_npy(&rects.iter().map(|r| r.map(F::from_f64)).collect::<Vec<_>>())
        },
    )
    .unwrap();
    let segs = Segments::from_rows(
        &segment_rows
            .iter()
            .map(|r| slabclip::Segment::new(r[0], r[1], r[2], r[3]))
            .collect::<Vec<_>>(),
    );
    let rects: Vec<Rect<F>> = rects
        .iter()
        .map(|r| {
            let [a, b, c, e] = r.map(F::from_f64);
            Rect::new(a, b, c, e).unwrap()
        })
        .collect();

    // The hit list, under every algorithm and thread count.
    let want = Algorithm::Auto.clip_rect_set(&RectSet::new(rects.clone()).unwrap(), &segs.as_ref());
    assert!(want.len() > segment_rows.len() / 2, "{} hits", want.len());
    for (alg, threads) in [("auto", "1"), ("auto", "3"), ("liang-barsky", "2")] {
        run(
            d,
            &[
                "clip",
                "--rects",
                rect_file,
                "--algorithm",
                alg,
                "--threads",
                threads,
                "in.npy",
                "-o",
                "hits.npz",
            ],
        );
        let out = d.join("hits.npz");
        let seg: Vec<i64> = array(&out, "segment");
        let rect: Vec<i64> = array(&out, "rect");
        let te: Vec<F> = array(&out, "t_entry");
        let tx: Vec<F> = array(&out, "t_exit");
        let class: Vec<u8> = array(&out, "class");
        assert_eq!(
            seg,
            want.iter().map(|h| h.segment as i64).collect::<Vec<_>>()
        );
        assert_eq!(rect, want.iter().map(|h| h.rect as i64).collect::<Vec<_>>());
        assert_eq!(
            bits(&te),
            bits(&want.iter().map(|h| h.t_entry).collect::<Vec<_>>())
        );
        assert_eq!(
            bits(&tx),
            bits(&want.iter().map(|h| h.t_exit).collect::<Vec<_>>())
        );
        assert_eq!(
            class,
            want.iter().map(|h| h.class as u8).collect::<Vec<_>>()
        );
    }

    // Pairwise: one rect per segment, the first `n` rects.
    let n = segment_rows.len();
    let per_segment = |clip: &dyn Fn(&mut ClipOutput<'_, F>)| {
        let (mut te, mut tx, mut cl) = (vec![F::NAN; n], vec![F::NAN; n], vec![0u8; n]);
        clip(&mut ClipOutput {
            t_entry: Some(&mut te),
            t_exit: Some(&mut tx),
            class: Some(&mut cl),
            segments: None,
        });
        (bits(&te), bits(&tx), cl)
    };
    let read = |name: &str| {
        let out = d.join(name);
        (
            bits(&array::<F>(&out, "t_entry")),
            bits(&array::<F>(&out, "t_exit")),
            array::<u8>(&out, "class"),
        )
    };
    let pair_rects: Vec<[f64; 4]> = rect_rows(n);
    fs::write(d.join("pairs.csv"), rects_csv(&pair_rects)).unwrap();
    let pair_rects: Vec<Rect<F>> = pair_rects
        .iter()
        .map(|r| {
            let [a, b, c, e] = r.map(F::from_f64);
            Rect::new(a, b, c, e).unwrap()
        })
        .collect();
    run(
        d,
        &[
            "clip",
            "--rects",
            "pairs.csv",
            "--pairwise",
            "in.npy",
            "-o",
            "pairs.npz",
        ],
    );
    let want = per_segment(&|out| {
        Algorithm::Auto
            .clip_pairwise(&pair_rects, &segs.as_ref(), out)
            .unwrap()
    });
    assert_eq!(read("pairs.npz"), want);
    assert!(want.2.contains(&4), "some segment crosses its rect");

    // A convex polygon (clockwise, as given).
    let poly_text = "0,0 -0.25,0.75 0.5,1.25 1.25,0.5 1,-0.25";
    run(
        d,
        &["clip", "--polygon", poly_text, "in.npy", "-o", "poly.npz"],
    );
    let vertices: Vec<(F, F)> = poly_text
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (
                F::from_f64(x.parse().unwrap()),
                F::from_f64(y.parse().unwrap()),
            )
        })
        .collect();
    let poly = ConvexPolygon::new(&vertices).unwrap();
    let want = per_segment(&|out| clip_polygon(&poly, &segs.as_ref(), out).unwrap());
    assert_eq!(read("poly.npz"), want);
    assert!(want.2.contains(&1) && want.2.contains(&0));
}

#[test]
fn rects_and_polygons_match_the_library_f64() {
    let rows = mixed_rows(2000, 0xAB);
    check::<f64>(&rows, "rects.npy", &rect_rows(49));
    check::<f64>(&rows, "rects.csv", &rect_rows(200));
}

#[test]
fn rects_and_polygons_match_the_library_f32() {
    let rows: Vec<[f32; 4]> = mixed_rows(1500, 0xCD)
        .iter()
        .map(|r| r.map(|v| v as f32))
        .collect();
    check::<f32>(&rows, "rects.npy", &rect_rows(49));
    // float64 rects from CSV, rounded to float32 (0.1 is not a float32).
    let mut odd = rect_rows(30);
    odd.push([0.1, 0.1, 0.3, 0.7]);
    check::<f32>(&rows, "rects.csv", &odd);
}
