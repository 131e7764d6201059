//! `slabclip compare` end to end: every algorithm (taken from `Algorithm::ALL`, so new ones are
//! expected without editing this file), `auto` and the `naive-slab` baseline on every workload,
//! the memory baselines, the calibrated passes, the JSON and SVG outputs, and bad arguments.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use slabclip::workload::Dist;
use slabclip::Algorithm;

fn slabclip(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabclip"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn names() -> Vec<&'static str> {
    Algorithm::ALL
        .iter()
        .chain(&[Algorithm::Auto])
        .map(|a| a.name())
        .collect()
}

/// The rows of one workload of a JSON report, by name.
fn rows(w: &Value) -> Vec<(String, &Value)> {
    w["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), r))
        .collect()
}

#[test]
fn every_algorithm_on_every_workload_with_json_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let (json, svg) = (dir.path().join("r.json"), dir.path().join("r.svg"));
    let o = slabclip(&[
        "compare",
        "--dist",
        "all",
        "--n",
        "3000",
        "--repeat",
        "1",
        "--check",
        "400",
        "--sample-ms",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let workloads = report["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), Dist::ALL.len());
    assert_eq!(report["sample_ms"], 3);
    let mut naive_mismatches = 0;
    for (w, d) in workloads.iter().zip(Dist::ALL) {
        assert_eq!(w["name"], d.name());
        assert_eq!(w["n"], 3000);
        assert_eq!(w["checked"], 334, "an odd stride of 9 through 3000 rows");
        let rows = rows(w);
        for name in names() {
            let (_, r) = rows
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{d}: no row for {name}"));
            assert_eq!(r["reference_mismatches"], 0, "{d} {name}");
            assert_eq!(r["kind"], "algorithm", "{d} {name}");
            assert_eq!(r["outside_contract"], false, "{d} {name}");
            assert!(r["mseg_per_s"].as_f64().unwrap() > 0.0);
            assert_eq!(r["times_s"].as_array().unwrap().len(), 1);
        }
        // The naive baseline: timed and checked like the rest, flagged as outside the contract.
        let naive: Vec<_> = rows.iter().filter(|(n, _)| n == "naive-slab").collect();
        assert_eq!(naive.len(), 1, "{d}: one naive-slab row");
        let naive = naive[0].1;
        assert_eq!(naive["kind"], "naive-baseline");
        assert_eq!(naive["outside_contract"], true);
        assert!(naive["mseg_per_s"].as_f64().unwrap() > 0.0);
        assert!(naive["differ_from_liang_barsky"].as_u64().is_some());
        naive_mismatches += naive["reference_mismatches"].as_u64().expect("checked");
        // 3000 segments take microseconds: each 3 ms sample runs many passes, and times one
        // (at least a sixth of the sample: the three tests of this file share two cores, and a
        // calibration slowed by the others can make a later, quieter sample shorter; a full
        // `cargo test` once saw one under half).
        for (name, r) in &rows {
            let passes = r["passes_per_sample"].as_u64().unwrap();
            assert!(passes >= 1, "{d} {name}");
            let per_pass = r["times_s"][0].as_f64().unwrap();
            assert!(
                per_pass * passes as f64 >= 0.0005,
                "{d} {name}: {passes} x {per_pass}"
            );
        }
        let ceiling = &rows
            .iter()
            .find(|(n, _)| n == "memory ceiling (plain stores)")
            .unwrap()
            .1;
        assert!(ceiling["passes_per_sample"].as_u64().unwrap() > 10, "{d}");
        let lb = &rows.iter().find(|(n, _)| n == "liang-barsky").unwrap().1;
        assert_eq!(lb["speedup_vs_liang_barsky"], 1.0);
        assert_eq!(lb["differ_from_liang_barsky"], 0);
        let ceilings: Vec<_> = rows
            .iter()
            .filter(|(_, r)| r["kind"] == "memory-ceiling")
            .collect();
        assert_eq!(ceilings.len(), 2, "plain and streaming stores");
        let best = ceilings
            .iter()
            .map(|(_, r)| r["percent_of_ceiling"].as_f64().unwrap());
        assert!((best.fold(0.0, f64::max) - 100.0).abs() < 1e-9);
        assert!(
            stdout.contains(&format!("{}: 3000 segments, float32", d.name())),
            "{stdout}"
        );
    }
    // The workloads aim at edges and corners: the naive slab breaks the contract on some, the
    // run still succeeds (checked above), and the table says why.
    assert!(
        naive_mismatches > 0,
        "naive-slab met the contract everywhere?"
    );
    assert!(
        stdout.contains("naive-slab: a baseline OUTSIDE the contract"),
        "{stdout}"
    );
    assert!(
        stdout.contains("first mismatch: naive-slab broke"),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("log scale") && svg.contains("outside the contract"));
    for label in names()
        .into_iter()
        .chain(["naive-slab"])
        .chain(Dist::ALL.map(Dist::name))
    {
        assert!(
            svg.contains(&format!("\n{label}\n</text>")),
            "the chart names {label}"
        );
    }
    assert!(svg.contains("Mseg/s") && svg.contains("memory ceiling"));
}

#[test]
fn class_output_on_a_file_has_a_read_only_row_and_threads_split_the_batch() {
    let o = slabclip(&[
        "compare",
        "--input",
        "data/sample.npy",
        "--emit",
        "class",
        "--repeat",
        "1",
        "--threads",
        "2",
        "--check",
        "1000",
        "--sample-ms",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("data/sample.npy: 20000 segments, float32, rect 0,0,1,1, --emit class"));
    assert!(
        out.contains("read-only pass") && out.contains("2 threads"),
        "{out}"
    );
    for name in names().into_iter().chain(["naive-slab"]) {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(name)),
            "{name}: {out}"
        );
    }
    let o = slabclip(&[
        "compare",
        "--dist",
        "edge-grazing",
        "--n",
        "2000",
        "--precision",
        "f64",
        "--emit",
        "segments",
        "--repeat",
        "2",
        "--check",
        "2000",
        "--sample-ms",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("float64") && text(&o.stdout).contains("/2000"));
}

#[test]
fn bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    // (arguments, words of the message): every count goes through one parser.
    let usage = [
        (vec!["compare", "--dist", "uniform"], "uniform"),
        (vec!["compare", "--n", "0"], "expected a count from 1 to"),
        (vec!["compare", "--n", "lots"], "\"lots\" is not a count"),
        (vec!["compare", "--n", "1.5M"], "is not a count"),
        (
            vec!["compare", "--n", "99999999999G"],
            "expected a count from 1 to",
        ),
        (vec!["compare", "--check", "1.5K"], "is not a count"),
        (
            vec!["compare", "--threads", "0"],
            "expected a count from 1 to 65535",
        ),
        (
            vec!["compare", "--threads", "64K"],
            "expected a count from 1 to 65535",
        ),
        (
            vec!["compare", "--repeat", "0"],
            "expected a count from 1 to 65535",
        ),
        (vec!["compare", "--sample-ms", "0"], "sample-ms"),
        (vec!["compare", "--sample-ms", "fast"], "sample-ms"),
        (vec!["compare", "--rect", "0,0,1,1"], "--input"),
        (
            vec!["compare", "--input", "data/sample.npy", "--rect", "1,0,0,1"],
            "greater than",
        ),
        (
            vec!["compare", "--input", "data/sample.npy", "--dist", "mixed"],
            "cannot be used with",
        ),
        (
            vec!["gen", "--dist", "mixed", "--n", "1.5K", "-o", "x.npy"],
            "is not a count",
        ),
        (
            vec!["gen", "--dist", "mixed", "--n=-3", "-o", "x.npy"],
            "is not a count",
        ),
        (
            vec![
                "clip",
                "--rect",
                "0,0,1,1",
                "--threads",
                "0",
                "a.npy",
                "-o",
                "b.npy",
            ],
            "expected a count from 1 to 65535",
        ),
        (
            vec![
                "clip", "--grid", "0,0,1,1", "--cells", "32M,1", "a.npy", "-o", "b.npz",
            ],
            "nx: \"32M\": expected a count from 1 to 16777216",
        ),
    ];
    for (args, words) in usage {
        let o = slabclip(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(words),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
    let o = slabclip(&["compare", "--input", "no/such.npy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("no/such.npy"),
        "{}",
        text(&o.stderr)
    );
    let missing = dir.path().join("none/r.json");
    let o = slabclip(&["compare", "--n", "100", "--json", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("does not exist"));
    assert!(o.stdout.is_empty(), "fails before measuring");
    assert!(!Path::new(&missing).exists());
}

/// Counts take the same suffixes everywhere: `gen --n 10K` as `compare --n 64K`, `--check`,
/// `--repeat`, `--threads` and `--cells`.
#[test]
fn counts_take_suffixes_in_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let gen = dir.path().join("g.npy");
    let o = slabclip(&[
        "gen",
        "--dist",
        "mixed",
        "--n",
        "10K",
        "-o",
        gen.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let bytes = std::fs::read(&gen).unwrap();
    let header = text(&bytes[..128.min(bytes.len())]);
    assert!(header.contains("'shape': (10240, 4"), "{header}");
    let o = slabclip(&[
        "compare",
        "--n",
        "2k",
        "--check",
        "1K",
        "--repeat",
        "1",
        "--threads",
        "1",
        "--sample-ms",
        "1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let pieces = dir.path().join("p.npz");
    let o = slabclip(&[
        "clip",
        "--grid",
        "0,0,1,1",
        "--cells",
        "1K,2",
        "--quiet",
        gen.to_str().unwrap(),
        "-o",
        pieces.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// With stderr not a terminal (a pipe here), `compare` writes nothing there; on a terminal it
/// shows its progress, unless `--quiet`.
#[test]
fn progress_only_on_a_terminal() {
    let args = [
        "compare",
        "--n",
        "4K",
        "--repeat",
        "3",
        "--sample-ms",
        "2",
        "--check",
        "0",
    ];
    let o = slabclip(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    // A terminal through script(1), where the system has it.
    let Ok(probe) = Command::new("script").arg("--version").output() else {
        eprintln!("no script(1) here: the terminal half is not run");
        return;
    };
    assert!(probe.status.success());
    let run = |extra: &[&str]| {
        let cmd = format!(
            "{} {} {}",
            env!("CARGO_BIN_EXE_slabclip"),
            args.join(" "),
            extra.join(" ")
        );
        let o = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("script runs");
        assert!(o.status.success(), "{}", text(&o.stdout));
        text(&o.stdout)
    };
    let shown = run(&[]);
    assert!(
        shown.contains("mixed") && shown.contains("timing, 3 rounds"),
        "{shown}"
    );
    let quiet = run(&["--quiet"]);
    assert!(!quiet.contains("timing, 3 rounds"), "{quiet}");
}
