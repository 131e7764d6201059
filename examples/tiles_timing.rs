//! The slabclip side of `scripts/bench_tiles_geojson_vt.sh`: lines from a GeoJSON file in web
//! mercator world coordinates (`[0, 1]²`, y down, as geojson-vt stores them) cut into the
//! tiles of one zoom level `z` (a `2^z × 2^z` grid over the world) with geojson-vt's buffer,
//! timed on one thread. Prints one JSON line (input vertices, median seconds, parts and their
//! vertices; and the same for every zoom from 0 to `z`, the pyramid geojson-vt builds on the
//! way), and writes the parts and vertices of each tile to a JSON file for the comparison.
//!
//! ```sh
//! cargo run --release --example tiles_timing -- world.geojson Z BUFFER EXTENT REPEATS counts.json
//! ```
//!
//! `BUFFER` and `EXTENT` are geojson-vt's options (64 and 4096 by default): the buffer in world
//! units is `BUFFER / EXTENT / 2^z`, exact for powers of two.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use slabclip::io::GeoJsonFile;
use slabclip::{Grid, Parts, Rect, TileOptions};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, z, buffer, extent, repeats, counts] = &args[..] else {
        return Err("usage: tiles_timing WORLD.geojson Z BUFFER EXTENT REPEATS COUNTS.json".into());
    };
    let (z, buffer, extent, repeats): (u32, f64, f64, usize) = (
        z.parse()?,
        buffer.parse()?,
        extent.parse()?,
        repeats.parse()?,
    );

    let file = GeoJsonFile::open(path)?;
    let batch = file.read_all()?;
    let lines = batch.lines()?;
    let vertices = batch.vertices();
    let world = Rect::new(0.0, 0.0, 1.0, 1.0)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;

    // One zoom level: `repeats` timed runs after one untimed one.
    let level = |zl: u32, out: &mut Parts<f64>| -> Result<f64, slabclip::Error> {
        let n = 1usize << zl;
        let grid = Grid::new(world, n, n)?;
        let options = TileOptions {
            buffer: Some(buffer / extent / n as f64),
            ..TileOptions::default()
        };
        let start = Instant::now();
        pool.install(|| lines.tiles(&grid, &options, out))?;
        Ok(start.elapsed().as_secs_f64())
    };
    let mut out = Parts::new();
    level(z, &mut out)?;
    let mut times = Vec::new();
    for _ in 0..repeats {
        times.push(level(z, &mut out)?);
    }
    let seconds = median(times);

    // The pyramid: every zoom from 0 to z, as geojson-vt's index holds them.
    let mut scratch = Parts::new();
    let mut pyramid = Vec::new();
    for _ in 0..repeats.max(1) {
        let mut total = 0.0;
        for zl in 0..=z {
            total += level(zl, &mut scratch)?;
        }
        pyramid.push(total);
    }
    let pyramid = median(pyramid);

    let mut per_tile: BTreeMap<(i64, i64), (usize, usize)> = BTreeMap::new();
    for p in out.iter() {
        let e = per_tile.entry(p.cell.expect("tiles")).or_default();
        e.0 += 1;
        e.1 += p.coords.len() / 2;
    }
    let mut json = String::from("{");
    for (k, ((x, y), (parts, v))) in per_tile.iter().enumerate() {
        let _ = write!(
            json,
            "{}\"{x}/{y}\":[{parts},{v}]",
            if k == 0 { "" } else { "," }
        );
    }
    json.push('}');
    std::fs::write(counts, json)?;
    println!(
        "{{\"vertices\":{vertices},\"seconds\":{seconds},\"parts\":{},\"part_vertices\":{},\
         \"tiles\":{},\"pyramid_seconds\":{pyramid}}}",
        out.len(),
        out.coords.len() / 2,
        per_tile.len()
    );
    Ok(())
}
