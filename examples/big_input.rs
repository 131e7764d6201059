//! Writes a large `.npy` input for measuring `slabclip clip` on files bigger than memory would
//! comfortably hold, in bounded memory itself (rows are streamed through `NpyWriter`).
//!
//! ```sh
//! cargo run --release --example big_input -- big.npy 2      # 2 GiB of float32 rows
//! /usr/bin/time -v target/release/slabclip clip --rect 0,0,1,1 big.npy -o out.npy
//! rm big.npy out.npy
//! ```
//!
//! Arguments: the output path and the size in GiB (default 2; fractions allowed). The rows are
//! seeded pseudo-random segments over `[-1, 2]²` (splitmix64), so about half touch the unit
//! square. Not committed anywhere: generate, measure, delete.

use slabclip::io::NpyWriter;

fn main() -> Result<(), slabclip::Error> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "big.npy".into());
    let gib: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let rows = (gib * (1u64 << 30) as f64 / 16.0) as u64;
    let mut state = 0x5EED_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut out = NpyWriter::<f32>::create(path.as_ref(), Some(rows), &[4])?;
    let mut block = Vec::with_capacity(4 << 16);
    let mut left = rows;
    while left > 0 {
        let n = left.min(1 << 16);
        block.clear();
        block.extend((0..4 * n).map(|_| (next() >> 40) as f32 / (1u32 << 24) as f32 * 3.0 - 1.0));
        out.write(&block)?;
        left -= n;
    }
    out.finish()?;
    println!("wrote {rows} float32 segments ({gib} GiB) to {path}");
    Ok(())
}
