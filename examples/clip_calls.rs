//! The Rust side of `python/bench/bench_clip.py`: `Algorithm::clip` on the benchmark's batch,
//! called the way the Python package calls it, so that the two are compared call for call.
//!
//! ```text
//! cargo run --release --example clip_calls -- N f32|f64 ALGORITHM THREADS[,THREADS...] ROUNDS
//! ```
//!
//! The batch is `slabclip gen --dist mixed --n N --seed 1` (the same bits as
//! `slabclip.workload("mixed", N, seed=1)`), as four columns; `t_entry` and `t_exit` go into
//! buffers made once (Python's `out=`). Each call starts on the main thread, outside any rayon
//! pool, as a Python call does: `THREADS` 1 runs it on the calling thread alone
//! (`slabclip::on_calling_thread`, Python's `threads=1`), `THREADS` n installs it in a pool of
//! n threads built once (Python's `threads=n`). In each of `ROUNDS` rounds every thread count
//! runs back to back for about 20 ms, each call timed; prints one JSON object: the seconds of
//! every call, per thread count.

use std::time::Instant;

use slabclip::{workload::Dist, Algorithm, ClipOutput, Real};

fn run<F: Real>(n: usize, algorithm: Algorithm, threads: &[usize], rounds: usize) -> String {
    let w = Dist::Mixed.generate::<F>(n, 1);
    let (mut t_entry, mut t_exit) = (vec![F::ZERO; n], vec![F::ZERO; n]);
    let pools: Vec<_> = threads
        .iter()
        .map(|&k| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(k)
                .build()
                .expect("a thread pool")
        })
        .collect();
    let mut call = |k: usize| {
        let t0 = Instant::now();
        let go = || {
            let mut out = ClipOutput {
                t_entry: Some(&mut t_entry),
                t_exit: Some(&mut t_exit),
                ..Default::default()
            };
            algorithm
                .clip(&w.rect, &w.segments, &mut out)
                .expect("clip");
        };
        if threads[k] == 1 {
            slabclip::on_calling_thread(go);
        } else {
            pools[k].install(go);
        }
        t0.elapsed().as_secs_f64()
    };
    let calls: Vec<usize> = (0..threads.len())
        .map(|k| (0.02 / call(k)).round().max(1.0) as usize)
        .collect();
    let mut seconds = vec![Vec::new(); threads.len()];
    for _ in 0..rounds {
        for (k, &c) in calls.iter().enumerate() {
            for _ in 0..c {
                seconds[k].push(call(k));
            }
        }
    }
    let per: serde_json::Map<_, _> = threads
        .iter()
        .zip(seconds)
        .map(|(t, s)| (t.to_string(), serde_json::json!(s)))
        .collect();
    serde_json::json!({ "n": n, "algorithm": algorithm.name(), "seconds": per }).to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: clip_calls N f32|f64 ALGORITHM THREADS[,THREADS...] ROUNDS";
    let [n, precision, algorithm, threads, rounds] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let parse = |s: &str| s.parse::<usize>().ok().filter(|&v| v > 0);
    let (Some(n), Ok(algorithm), Some(threads), Some(rounds)) = (
        parse(n),
        Algorithm::from_name(algorithm),
        threads.split(',').map(parse).collect::<Option<Vec<_>>>(),
        parse(rounds),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let json = match precision.as_str() {
        "f32" => run::<f32>(n, algorithm, &threads, rounds),
        "f64" => run::<f64>(n, algorithm, &threads, rounds),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    println!("{json}");
}
