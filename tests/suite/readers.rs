//! The readers on arbitrary bytes (they must never panic, and chunked reading must agree with
//! whole reading), on random valid files in every format and byte order (they must give back
//! the values bit for bit), and streamed clipping against clipping in memory (the same bytes,
//! whatever the chunk size).

use crate::files;

use std::fs;
use std::path::Path;

use files::{dict, le_bytes, mixed_rows, npy};
use proptest::prelude::*;
use slabclip::io::{self, Batch, ClipSettings, Emit, Input};
use slabclip::{Algorithm, Rect, Segment};

/// Every row of `input` in chunks of `max_rows`, as one batch.
fn read_chunked(input: &Input, max_rows: usize) -> Result<Batch, slabclip::Error> {
    fn go<F: slabclip::Real>(input: &Input, max_rows: usize) -> Result<Vec<F>, slabclip::Error> {
        let mut chunks = input.chunks::<F>(max_rows)?;
        let mut values = Vec::new();
        while let Some(rows) = chunks.next_chunk() {
            let rows = rows?;
            assert!(!rows.is_empty() && rows.len() <= max_rows.max(1));
            values.extend_from_slice(bytemuck::cast_slice(rows));
        }
        assert_eq!(chunks.bytes_done(), input.size());
        Ok(values)
    }
    Ok(match input.dtype() {
        io::Dtype::F32 => Batch::F32(go(input, max_rows)?),
        io::Dtype::F64 => Batch::F64(go(input, max_rows)?),
    })
}

/// Bit patterns, so that NaN payloads and signed zeros are compared exactly.
fn bits(b: &Batch) -> Vec<u64> {
    match b {
        Batch::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Batch::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
    }
}

/// Reads `bytes` as a file called `name`; every outcome but a panic is fine, and a success must
/// read the same in chunks. Returns the error message, if any.
fn read_any(dir: &Path, name: &str, bytes: &[u8], max_rows: usize) -> Option<String> {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    let result = Input::open(&path).and_then(|input| {
        let whole = input.read_all()?;
        let chunked = read_chunked(&input, max_rows);
        let chunked = chunked.expect("whole reading succeeded, chunked must too");
        assert_eq!(bits(&whole), bits(&chunked));
        if let Some(rows) = input.rows() {
            assert_eq!(rows as usize, whole.len());
        }
        Ok(())
    });
    let err = result.err()?.to_string();
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    assert!(!err.contains('\n'), "one line: {err:?}");
    Some(err)
}

/// Bytes that get past the first checks of each format often enough to reach the later ones.
fn hostile() -> impl Strategy<Value = Vec<u8>> {
    let csvish = proptest::collection::vec(
        prop::sample::select(b"0123456789.,-+eEnaif \t\r\n\n\n,,,".to_vec()),
        0..300,
    );
    let header = npy(1, &dict("<f4", "(2, 4)"), &[]);
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..400),
        csvish
            .clone()
            .prop_map(|b| [b"x0,y0,x1,y1\n".to_vec(), b].concat()),
        csvish,
        (
            0..header.len(),
            proptest::collection::vec(any::<u8>(), 0..64)
        )
            .prop_map(move |(cut, tail)| {
                let mut b = header.clone();
                b.truncate(cut.max(6));
                b.extend(tail);
                b
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn readers_never_panic_on_arbitrary_bytes(bytes in hostile(), max_rows in 1usize..5) {
        let dir = tempfile::tempdir().unwrap();
        for name in ["in.npy", "in.csv", "in.f32", "in.f64"] {
            read_any(dir.path(), name, &bytes, max_rows);
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn a_byte_flipped_npy_never_panics(at in 0usize..160, v in any::<u8>(), max_rows in 1usize..4) {
        let mut b = npy(1, &dict("<f8", "(2, 4)"), &le_bytes(&[0.25f64; 8]));
        if at < b.len() {
            b[at] = v;
        }
        let dir = tempfile::tempdir().unwrap();
        read_any(dir.path(), "in.npy", &b, max_rows);
    }

    #[test]
    fn binary_files_read_back_bit_for_bit(
        raw in proptest::collection::vec(any::<u64>(), 0..40),
        version in 1u8..4,
        big_endian in any::<bool>(),
        max_rows in 1usize..9,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let rows = raw.len() / 4;
        let f64s: Vec<f64> = raw[..rows * 4].iter().map(|b| f64::from_bits(*b)).collect();
        let f32s: Vec<f32> = raw[..rows * 4].iter().map(|b| f32::from_bits(*b as u32)).collect();
        let swap = |le: Vec<u8>, size: usize| -> Vec<u8> {
            if big_endian {
                le.chunks(size).flat_map(|c| c.iter().rev().copied().collect::<Vec<_>>()).collect()
            } else {
                le
            }
        };
        let e = if big_endian { '>' } else { '<' };
        let shape = format!("({rows}, 4)");
        let files = [
            ("a.npy", npy(version, &dict(&format!("{e}f8"), &shape), &swap(le_bytes(&f64s), 8)), Batch::F64(f64s.clone())),
            ("b.npy", npy(version, &dict(&format!("{e}f4"), &shape), &swap(le_bytes(&f32s), 4)), Batch::F32(f32s.clone())),
            ("c.f64", le_bytes(&f64s), Batch::F64(f64s.clone())),
            ("d.f32", le_bytes(&f32s), Batch::F32(f32s.clone())),
        ];
        for (name, bytes, want) in files {
            let path = dir.path().join(name);
            fs::write(&path, bytes).unwrap();
            let input = Input::open(&path).unwrap();
            prop_assert_eq!(input.rows(), Some(rows as u64));
            prop_assert_eq!(bits(&input.read_all().unwrap()), bits(&want));
            prop_assert_eq!(bits(&read_chunked(&input, max_rows).unwrap()), bits(&want));
        }
    }

    #[test]
    fn csv_reads_back_every_finite_f64(
        raw in proptest::collection::vec(any::<u64>(), 0..40),
        style in 0u8..4,
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        max_rows in 1usize..9,
    ) {
        let values: Vec<f64> = raw.iter().map(|b| f64::from_bits(*b)).filter(|v| v.is_finite()).collect();
        let values = &values[..values.len() / 4 * 4];
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("x0,y0,x1,y1{end}");
        for (i, row) in values.chunks(4).enumerate() {
            let cells: Vec<String> = row.iter().map(|v| match style {
                0 => format!("{v:?}"),
                1 => format!("{v:e}"),
                2 => format!(" {v:E}\t"),
                _ => format!("{v}"),
            }).collect();
            text += &cells.join(",");
            if final_newline || i + 1 < values.len() / 4 {
                text += end;
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.csv");
        fs::write(&path, &text).unwrap();
        let input = Input::open(&path).unwrap();
        let want = Batch::F64(values.to_vec());
        prop_assert_eq!(bits(&input.read_all().unwrap()), bits(&want));
        prop_assert_eq!(bits(&read_chunked(&input, max_rows).unwrap()), bits(&want));
    }

}

// Every clip syncs its output to disk: fewer cases.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn streamed_clips_are_the_whole_clip_byte_for_byte(
        n in 0usize..120,
        seed in any::<u64>(),
        chunk_rows in 1usize..50,
        emit in prop::sample::select(vec![Emit::T, Emit::Class, Emit::Segments]),
        algorithm in prop::sample::select(Algorithm::ALL.to_vec()),
    ) {
        let rows = mixed_rows(n, seed);
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        for (name, bytes) in [
            ("in.npy", files::segments_npy(&rows)),
            ("in.f64", le_bytes(&rows.concat())),
            ("in.csv", files::segments_csv(&rows)),
        ] {
            fs::write(dir.path().join(name), bytes).unwrap();
            inputs.push(Input::open(dir.path().join(name)).unwrap());
        }
        let rect = Rect::new(0.0, 0.0, 1.0, 1.0).unwrap();
        // In memory, whole, written with `write_columns` / `write_u8`.
        let segs: Vec<Segment<f64>> = rows.iter().map(|r| Segment::new(r[0], r[1], r[2], r[3])).collect();
        let whole = algorithm.clip_to_vec(&rect, &segs[..], emit == Emit::Segments);
        let want_path = dir.path().join("want.npy");
        match emit {
            Emit::T => io::write_columns(&want_path, &[&whole.t_entry, &whole.t_exit]).unwrap(),
            Emit::Class => io::write_u8(&want_path, &whole.class).unwrap(),
            Emit::Segments => {
                let s = whole.segments.as_ref().unwrap().as_ref();
                let (x0, y0, x1, y1) = s.columns();
                io::write_columns(&want_path, &[x0, y0, x1, y1]).unwrap()
            }
        }
        let want = fs::read(&want_path).unwrap();
        let out = dir.path().join("out.npy");
        for input in &inputs {
            for chunk in [chunk_rows, n.max(1), io::DEFAULT_CHUNK_ROWS] {
                let settings = ClipSettings { algorithm, emit, chunk_rows: chunk };
                let mut reports = Vec::new();
                let done = io::clip_file(input, &rect, &out, &settings, &mut |p| reports.push(p)).unwrap();
                prop_assert_eq!(done, n as u64);
                prop_assert!(fs::read(&out).unwrap() == want, "{:?} chunk {}", input.format(), chunk);
                prop_assert_eq!(reports.len(), n.div_ceil(chunk));
                if let Some(last) = reports.last() {
                    prop_assert_eq!((last.rows, last.bytes), (n as u64, input.size()));
                }
            }
        }
    }
}

#[test]
fn clip_file_refuses_a_dtype_that_is_not_the_input_s() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.f64");
    fs::write(&path, le_bytes(&[0.5f64; 4])).unwrap();
    let input = Input::open(&path).unwrap();
    let rect = Rect::new(0.0f32, 0.0, 1.0, 1.0).unwrap();
    let e = io::clip_file(
        &input,
        &rect,
        &dir.path().join("o.npy"),
        &ClipSettings::default(),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("the rows are float64, not float32"), "{e}");
    assert!(!dir.path().join("o.npy").exists());
}
