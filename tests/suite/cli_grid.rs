//! `slabclip clip --grid … --cells …`: the `.npz` read back and compared with the library, and
//! bad grids in the table style of `tests/suite/bad_input.rs`: a usage error (exit 2) or a data error
//! (exit 1) with one line naming the problem, and no output file.

use crate::files;
use files::npz_array as array;

use files::{listing, segments_npy, slabclip, stderr};
use slabclip::{Grid, GridOptions, Lines, Rect, Segment};

const ROWS: [[f32; 4]; 6] = [
    [0.05, 0.05, 0.95, 0.95],  // the diagonal: through every vertex on it
    [0.5, -0.2, 0.5, 1.2],     // along the line x = 0.5
    [0.25, 0.25, 0.25, 0.25],  // a point on a vertex
    [-1.0, -1.0, -0.5, 2.0],   // misses the grid
    [f32::NAN, 0.0, 1.0, 1.0], // invalid
    [0.12, 0.83, 0.61, 0.07],  // anywhere
];

#[test]
fn grid_pieces_match_the_library() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.npy"), segments_npy(&ROWS)).unwrap();
    let grid = Grid::new(Rect::new(0.0f32, 0.0, 1.0, 1.0).unwrap(), 4, 4).unwrap();
    let segs: Vec<Segment<f32>> = ROWS
        .iter()
        .map(|r| Segment::new(r[0], r[1], r[2], r[3]))
        .collect();
    for (flags, options) in [
        (&[][..], GridOptions::default()),
        (
            &["--half-open", "--no-touches"][..],
            GridOptions {
                lines: Lines::HalfOpen,
                touches: false,
            },
        ),
    ] {
        let mut args = vec![
            "clip",
            "--grid",
            "0,0,1,1",
            "--cells",
            "4,4",
            "--threads",
            "2",
        ];
        args.extend(flags);
        args.extend(["in.npy", "-o", "pieces.npz"]);
        let o = slabclip(dir.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = dir.path().join("pieces.npz");
        let want = grid.pieces(&segs[..], &options);
        assert!(want.len() > 10, "{} pieces", want.len());
        let col = |f: fn(&slabclip::Piece<f32>) -> i64| want.iter().map(f).collect::<Vec<_>>();
        assert_eq!(array::<i64>(&out, "segment"), col(|p| p.segment as i64));
        assert_eq!(array::<i64>(&out, "ix"), col(|p| p.ix.into()));
        assert_eq!(array::<i64>(&out, "iy"), col(|p| p.iy.into()));
        let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let te: Vec<f32> = want.iter().map(|p| p.t_entry).collect();
        let tx: Vec<f32> = want.iter().map(|p| p.t_exit).collect();
        assert_eq!(bits(array(&out, "t_entry")), bits(te));
        assert_eq!(bits(array(&out, "t_exit")), bits(tx));
        let class: Vec<u8> = want.iter().map(|p| p.class as u8).collect();
        assert_eq!(array::<u8>(&out, "class"), class);
    }
}

#[test]
fn bad_grids_exit_with_a_message_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.npy"), segments_npy(&ROWS)).unwrap();
    let rows: Vec<(Vec<&str>, &str, i32, &str)> = vec![
        (vec!["--grid", "0,0,1,1"], "out.npz", 2, "--cells"),
        (
            vec!["--cells", "4,4", "--rect", "0,0,1,1"],
            "out.npz",
            2,
            "cannot be used with",
        ),
        (vec!["--cells", "4,4"], "out.npz", 2, "--grid"),
        (
            vec!["--grid", "0,0,nan,1", "--cells", "4,4"],
            "out.npz",
            2,
            "not finite",
        ),
        (
            vec!["--grid", "0,0,inf,1", "--cells", "4,4"],
            "out.npz",
            2,
            "not finite",
        ),
        (
            vec!["--grid", "2,0,1,1", "--cells", "4,4"],
            "out.npz",
            2,
            "greater than",
        ),
        (
            vec!["--grid", "0,0,1", "--cells", "4,4"],
            "out.npz",
            2,
            "found 3",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "0,4"],
            "out.npz",
            2,
            "nx: \"0\": expected a count from 1 to",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "4,0"],
            "out.npz",
            2,
            "ny: \"0\": expected a count from 1 to",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "4"],
            "out.npz",
            2,
            "found 1",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "4,x"],
            "out.npz",
            2,
            "ny: \"x\" is not a count",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "99999999999,4"],
            "out.npz",
            2,
            "expected a count from 1 to 16777216",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "4,4", "--rect", "0,0,1,1"],
            "out.npz",
            2,
            "--rect",
        ),
        (
            vec!["--half-open", "--rect", "0,0,1,1"],
            "out.npy",
            2,
            "cannot be used with",
        ),
        (vec!["--no-touches"], "out.npy", 2, "--grid"),
        (
            vec!["--grid", "0,0,1,1", "--cells", "4,4", "--emit", "class"],
            "out.npz",
            2,
            "cannot be used with",
        ),
        (
            vec![
                "--grid",
                "0,0,1,1",
                "--cells",
                "4,4",
                "--algorithm",
                "hybrid",
            ],
            "out.npz",
            2,
            "cannot be used with",
        ),
        // Data errors: they depend on the input's dtype or on the output's name.
        (
            vec!["--grid", "0,0,0,1", "--cells", "4,4"],
            "out.npz",
            1,
            "no extent along x",
        ),
        (
            vec!["--grid", "0,1,1,1", "--cells", "4,4"],
            "out.npz",
            1,
            "no extent along y",
        ),
        (
            vec!["--grid", "1000,0,1001,1", "--cells", "1000000,4"],
            "out.npz",
            1,
            "too narrow for float32",
        ),
        (
            vec!["--grid", "0,0,1e39,1", "--cells", "4,4"],
            "out.npz",
            1,
            "does not fit float32",
        ),
        (
            vec!["--grid", "0,0,1,1", "--cells", "4,4"],
            "out.npy",
            1,
            "ending in .npz",
        ),
        (vec!["--rect", "0,0,1,1"], "out.npz", 1, "ending in .npy"),
    ];
    for (args, output, code, says) in rows {
        let mut all = vec!["clip"];
        all.extend(&args);
        all.extend(["in.npy", "-o", output]);
        let o = slabclip(dir.path(), &all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(
            err.contains(says),
            "{args:?}: {err:?} does not say {says:?}"
        );
        if code == 1 {
            assert_eq!(err.lines().count(), 1, "one line: {err:?}");
            assert!(err.starts_with("slabclip: error: "), "{err:?}");
        }
        assert_eq!(listing(dir.path()), ["in.npy"], "{args:?}");
    }
    // A missing input is named too.
    let o = slabclip(
        dir.path(),
        &[
            "clip", "--grid", "0,0,1,1", "--cells", "2,2", "nope.npy", "-o", "out.npz",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nope.npy"), "{}", stderr(&o));
}
