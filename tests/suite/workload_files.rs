//! The workload files: `data/*.npy` are what `slabclip gen` makes today (the commands in
//! `data/README.md`), and `slabclip gen` writes exactly what the library generates.

use std::path::{Path, PathBuf};
use std::process::Command;

use slabclip::workload::Dist;
use slabclip::Real;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// An `(N, 4)` `.npy` file's shape and values, read with `npyz` (not slabclip's reader).
fn read<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, Vec<T>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = npyz::NpyFile::new(&bytes[..]).expect("a valid npy file");
    let shape = file.shape().to_vec();
    (
        shape,
        file.into_vec().expect("values of the expected dtype"),
    )
}

fn generated<F: Real>(dist: Dist, n: usize, seed: u64) -> Vec<F> {
    dist.generate::<F>(n, seed).segments.to_interleaved()
}

#[test]
fn data_files_match_the_generator() {
    for d in Dist::ALL {
        let (shape, values) = read::<f32>(&data(&format!("{}.npy", d.name())));
        assert_eq!(shape, [25_000, 4], "{d}");
        assert!(
            values == generated::<f32>(d, 25_000, 1),
            "data/{d}.npy differs from `slabclip gen --dist {d} --n 25000 --seed 1`"
        );
    }
    let (shape, values) = read::<f32>(&data("sample.npy"));
    assert_eq!(shape, [20_000, 4]);
    assert!(values == generated::<f32>(Dist::Mixed, 20_000, 1));
}

fn slabclip(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_slabclip"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn gen_writes_what_the_library_generates() {
    let dir = tempfile::tempdir().unwrap();
    for (d, precision) in [(Dist::RoadLike, "f64"), (Dist::EdgeGrazing, "f32")] {
        let out = dir.path().join(format!("{d}.npy"));
        let o = slabclip(&[
            "gen",
            "--dist",
            d.name(),
            "--n",
            "3000",
            "--seed",
            "42",
            "--precision",
            precision,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if precision == "f64" {
            let (shape, values) = read::<f64>(&out);
            assert_eq!(shape, [3000, 4]);
            assert!(values == generated::<f64>(d, 3000, 42));
        } else {
            let (shape, values) = read::<f32>(&out);
            assert_eq!(shape, [3000, 4]);
            assert!(values == generated::<f32>(d, 3000, 42));
        }
    }
}

#[test]
fn gen_refuses_bad_arguments_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.npy");
    let out = out.to_str().unwrap();
    let o = slabclip(&["gen", "--dist", "uniform", "--n", "10", "-o", out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("road-like"));
    let o = slabclip(&["gen", "--dist", "mixed", "--n", "-3", "-o", out]);
    assert_eq!(o.status.code(), Some(2));
    let missing = dir.path().join("no/such/folder/x.npy");
    let o = slabclip(&[
        "gen",
        "--dist",
        "mixed",
        "--n",
        "10",
        "-o",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("does not exist") && msg.lines().count() == 1,
        "{msg}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
}
