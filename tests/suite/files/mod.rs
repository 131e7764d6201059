//! Shared by the file and command-line tests: input files built byte by byte (so malformed ones
//! do not depend on any writer), running the binary, and reading outputs back with `npyz`.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use slabclip::Real;

/// Runs the binary in `dir`.
pub fn slabclip(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabclip"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// An `.npy` file laid out as NumPy writes it: magic, version, header length, the dict padded with
/// spaces and a newline to a multiple of 64 bytes, then `data`.
pub fn npy(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
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
pub fn dict(descr: &str, shape: &str) -> String {
    format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}")
}

/// Little-endian bytes of `F` values.
pub fn le_bytes<F: Real>(values: &[F]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|x| x.to_bits_u64().to_le_bytes()[..std::mem::size_of::<F>()].to_vec())
        .collect()
}

/// A good `(N, 4)` little-endian file of `F` rows.
pub fn segments_npy<F: Real>(rows: &[[F; 4]]) -> Vec<u8> {
    let descr = if F::DTYPE == "float32" { "<f4" } else { "<f8" };
    let data = le_bytes(&rows.concat());
    npy(1, &dict(descr, &format!("({}, 4)", rows.len())), &data)
}

/// A CSV file of `f64` rows, with the header, each number in Rust's shortest round-trip form.
pub fn segments_csv(rows: &[[f64; 4]]) -> Vec<u8> {
    let mut text = String::from("x0,y0,x1,y1\n");
    for r in rows {
        text += &format!("{:?},{:?},{:?},{:?}\n", r[0], r[1], r[2], r[3]);
    }
    text.into_bytes()
}

/// An output file: its shape, its type string, and its values.
pub fn read_npy<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, String, Vec<T>) {
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
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join("sample.npy")
}

/// Seeded pseudo-random rows around the unit square: hits, misses, edges, corners, repeats.
pub fn mixed_rows(n: usize, seed: u64) -> Vec<[f64; 4]> {
    let mut state = seed;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut coord = move || match next() % 8 {
        0 => 0.0,
        1 => 1.0,
        2 => -0.0,
        _ => (next() >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.0,
    };
    (0..n)
        .map(|_| [coord(), coord(), coord(), coord()])
        .collect()
}

/// Array `name` of an `.npz` (the outputs of `cast` and `clip --grid`).
pub fn npz_array<T: npyz::Deserialize>(path: &Path, name: &str) -> Vec<T> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    let mut bytes = Vec::new();
    zip.by_name(&format!("{name}.npy"))
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}
