//! Times `Scene::new` over 10⁶ float32 walls of each `SceneKind` (city, random), built again and
//! again in one process, and prints the fastest and the median build. A build's memory is
//! fresh or reused depending on what the allocator kept from the last one, so the two differ
//! by the page faults (`docs/guide/scenes.md`).
//!
//! ```sh
//! cargo run --release --example scene_build -- [WALLS] [BUILDS]   # default 1000000 15
//! ```

use std::time::Instant;

use slabclip::cast::Scene;
use slabclip::workload::SceneKind;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut count = |name: &str, default: usize| match args.next() {
        None => Ok(default),
        Some(a) => a.parse::<usize>().map_err(|e| format!("{name} {a:?}: {e}")),
    };
    let walls = count("WALLS", 1_000_000)?;
    let builds = count("BUILDS", 15)?;
    if builds == 0 {
        return Err("BUILDS must be at least 1".into());
    }
    for kind in SceneKind::ALL {
        let segments = kind.walls::<f32>(walls, 7);
        let mut ms = Vec::with_capacity(builds);
        for _ in 0..builds {
            let t = Instant::now();
            let scene = Scene::new(&segments)?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            drop(scene);
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "{} {walls} walls: fastest {:.1} ms, median {:.1} ms of {builds} builds",
            kind.name(),
            ms[0],
            ms[builds / 2]
        );
    }
    Ok(())
}
