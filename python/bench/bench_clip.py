"""slabclip from Python against what Python users have, on the same 1M mixed segments, in one run.

    python bench/bench_clip.py [--n 1000000] [--repeat 7] [--dtype float64] [--rust ../target/release/slabclip]
                               [--rust-calls ../target/release/examples/clip_calls]

Contenders (all on the unit square, the workload's rect):
  * slabclip.clip, algorithm auto and simd-slab, on (N, 4) rows and on four columns, with one
    thread and with the default pool; outputs t_entry, t_exit, class;
  * shapely 2.x ``clip_by_rect`` on LineStrings built before the timing (its output is the
    clipped geometry; no class);
  * a plain vectorized numpy slab: (bound - p) / d, min/max, parallel axes with np.where.
The Rust library's own figures, for the "within 10%" comparison, on the same workload (same
seed, dtype, size, thread count, columns, t_entry and t_exit only) in the same rounds:
  * ``--rust-calls``: the ``clip_calls`` example (``cargo build --release --example
    clip_calls``), which calls ``Algorithm::clip`` from its main thread one call at a time,
    timed per call, exactly as this script calls ``slabclip.clip``: call for call;
  * ``--rust``: ``slabclip compare``, which times passes inside a pool entered once (no
    hand-off to the pool's threads per call, so more than a caller from outside sees).

Wrong answers are counted against slabclip's exact rational reference: for slabclip and the
numpy slab every rule of the contract (class, exact 0/1 ends, NaN misses, t within the ulp
bound); for shapely whether it reports a hit exactly when the exact clip is non-empty (a
touching contact is a hit).

In each of --repeat rounds every contender runs back to back for about 20 ms (one call for
shapely), each call timed on its own; a contender's time is the median of all its calls, as
``slabclip compare`` reports the median of samples of about 1 ms; Mseg/s = N / median.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import slabclip

RECT = (0.0, 0.0, 1.0, 1.0)


def numpy_slab(x0, y0, x1, y1, rect):
    """The slab method as one writes it with numpy: no exactness rules."""
    xmin, ymin, xmax, ymax = rect
    dx, dy = x1 - x0, y1 - y0
    with np.errstate(divide="ignore", invalid="ignore"):
        ax, bx = (xmin - x0) / dx, (xmax - x0) / dx
        ay, by = (ymin - y0) / dy, (ymax - y0) / dy
    inx = (x0 >= xmin) & (x0 <= xmax)
    iny = (y0 >= ymin) & (y0 <= ymax)
    big = np.asarray(np.inf, dtype=x0.dtype)
    nx = np.where(dx == 0, np.where(inx, -big, big), np.minimum(ax, bx))
    fx = np.where(dx == 0, np.where(inx, big, -big), np.maximum(ax, bx))
    ny = np.where(dy == 0, np.where(iny, -big, big), np.minimum(ay, by))
    fy = np.where(dy == 0, np.where(iny, big, -big), np.maximum(ay, by))
    te = np.maximum(np.maximum(nx, ny), 0)
    tx = np.minimum(np.minimum(fx, fy), 1)
    hit = te <= tx
    cls = np.select(
        [~hit, te == tx, (te == 0) & (tx == 1), tx == 1, te == 0],
        [0, 5, 1, 2, 3], default=4).astype(np.uint8)
    te = np.where(hit, te, np.nan).astype(x0.dtype)
    tx = np.where(hit, tx, np.nan).astype(x0.dtype)
    return te, tx, cls


def rust_compare(binary, n, dtype, repeat, threads):
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "c.json"
        cmd = [binary, "compare", "--dist", "mixed", "--n", str(n), "--precision",
               "f32" if dtype == np.float32 else "f64", "--repeat", str(repeat),
               "--threads", str(threads), "--json", str(out)]
        subprocess.run(cmd, check=True, capture_output=True)
        rep = json.loads(out.read_text())
    return {r["name"]: r["mseg_per_s"] for r in rep["workloads"][0]["rows"]}


def rust_calls(binary, n, dtype, algorithm, threads):
    cmd = [binary, str(n), "f32" if dtype == np.float32 else "f64", algorithm,
           ",".join(map(str, threads)), "1"]
    got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return {int(k): v for k, v in got["seconds"].items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    ap.add_argument("--rust", help="path of the slabclip binary, for `compare`'s figure")
    ap.add_argument("--rust-calls", help="path of the clip_calls example, for the Rust call's figure")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    import shapely

    dt = np.dtype(args.dtype)
    n = args.n
    rows = slabclip.workload("mixed", n, seed=1, dtype=dt)
    cols = {k: np.ascontiguousarray(rows[:, i]) for i, k in enumerate(("x0", "y0", "x1", "y1"))}
    ncpu = slabclip.info()["threads"]
    figures = {}

    print(f"{n} mixed segments, {dt}, rect {RECT}, {ncpu} threads in the pool, "
          f"SIMD {slabclip.info()['simd_built']}; {args.repeat} rounds, every contender about "
          f"20 ms per round (so that a busy machine slows them alike), medians of the calls")
    lines = shapely.linestrings(rows.reshape(n, 2, 2).astype(np.float64))
    t_only = {"t_entry": np.zeros(n, dt), "t_exit": np.zeros(n, dt)}  # touched once, reused
    contenders = {}
    for algorithm in ("auto", "simd-slab"):
        for layout, data in (("rows", rows), ("columns", cols)):
            for threads in (1, ncpu):
                contenders[f"slabclip {algorithm} {layout} threads={threads}"] = (
                    lambda d=data, a=algorithm, t=threads: slabclip.clip(d, RECT, algorithm=a, threads=t))
        for threads in (1, ncpu):
            # What `slabclip compare --emit t` times: t_entry, t_exit into buffers made once.
            contenders[f"slabclip {algorithm} columns out=t threads={threads}"] = (
                lambda a=algorithm, t=threads: slabclip.clip(cols, RECT, algorithm=a, threads=t,
                                                             outputs=(), out=t_only))
    contenders["shapely clip_by_rect"] = lambda: shapely.clip_by_rect(lines, *RECT)
    contenders["numpy slab"] = lambda: numpy_slab(*cols.values(), RECT)
    times = {k: [] for k in contenders}
    results = {}
    rust_rounds = {}
    rust_call_times = {}
    # Calls per sample: enough back-to-back calls for about 20 ms, as `slabclip compare` times
    # samples of many passes; a single call after the others have run would time a cold cache.
    calls = {}
    for name, fn in contenders.items():
        t0 = time.perf_counter()
        results[name] = fn()
        calls[name] = max(1, round(0.02 / (time.perf_counter() - t0)))
    for _ in range(args.repeat):
        for name, fn in contenders.items():
            for _ in range(calls[name]):
                t0 = time.perf_counter()
                results[name] = fn()
                times[name].append(time.perf_counter() - t0)
        if args.rust_calls:
            for algorithm in ("auto", "simd-slab"):
                got = rust_calls(args.rust_calls, n, dt, algorithm, (1, ncpu))
                for threads, secs in got.items():
                    rust_call_times.setdefault((algorithm, threads), []).extend(secs)
        if args.rust:
            for threads in (1, ncpu):
                got = rust_compare(args.rust, n, dt, 3, threads)
                for algorithm in ("auto", "simd-slab"):
                    rust_rounds.setdefault((algorithm, threads), []).append(got[algorithm])
    for name in contenders:
        t = float(np.median(times[name]))
        figures[name] = {"seconds": t, "mseg_per_s": n / t / 1e6}
        print(f"  {name:44s} {n / t / 1e6:10.1f} Mseg/s  ({t * 1e3:8.2f} ms)", flush=True)
    ours = results["slabclip auto rows threads=1"]
    shp = results["shapely clip_by_rect"]
    nps = results["numpy slab"]

    exact = slabclip.reference.exact_class(rows, RECT)
    exact_hit = (exact >= 1) & (exact <= 5)
    wrong = {
        "slabclip": int(slabclip.reference.violations(rows, RECT, ours["t_entry"], ours["t_exit"], ours["class"]).sum()),
        "numpy slab": int(slabclip.reference.violations(rows, RECT, *nps).sum()),
        "shapely (hit vs miss)": int((~shapely.is_empty(shp) != exact_hit).sum()),
    }
    touches = exact == slabclip.Class.TOUCHES
    print(f"exact reference: {int(exact_hit.sum())} hits, {int(touches.sum())} touching contacts")
    print(f"  shapely misses {int((shapely.is_empty(shp) & touches).sum())} of the touching contacts")
    for k, v in wrong.items():
        print(f"  wrong answers, {k}: {v}")

    best1 = max(v["mseg_per_s"] for k, v in figures.items() if k.startswith("slabclip") and k.endswith("threads=1"))
    best = max(v["mseg_per_s"] for k, v in figures.items() if k.startswith("slabclip"))
    print(f"speed-up over shapely: {best1 / figures['shapely clip_by_rect']['mseg_per_s']:.0f}x one thread, "
          f"{best / figures['shapely clip_by_rect']['mseg_per_s']:.0f}x all threads")
    print(f"speed-up over the numpy slab: {best1 / figures['numpy slab']['mseg_per_s']:.1f}x one thread, "
          f"{best / figures['numpy slab']['mseg_per_s']:.1f}x all threads")
    result = {"n": n, "dtype": str(dt), "figures": figures, "wrong": wrong}
    rust = {}
    for (algorithm, threads), v in rust_call_times.items():
        rs = n / float(np.median(v)) / 1e6
        rust[f"calls {algorithm} threads={threads}"] = rs
        py = figures[f"slabclip {algorithm} columns out=t threads={threads}"]["mseg_per_s"]
        print(f"Rust library, the same calls (clip_calls, {algorithm}, {threads} threads): {rs:.1f} Mseg/s; "
              f"Python, out= t_entry, t_exit: {py:.1f} = {py / rs:.0%}")
    for (algorithm, threads), v in rust_rounds.items():
        rs = float(np.median(v))
        rust[f"compare {algorithm} threads={threads}"] = rs
        py = figures[f"slabclip {algorithm} columns out=t threads={threads}"]["mseg_per_s"]
        py_new = figures[f"slabclip {algorithm} columns threads={threads}"]["mseg_per_s"]
        print(f"Rust library, slabclip compare --emit t ({algorithm}, {threads} threads): {rs:.1f} Mseg/s; "
              f"Python, same outputs into out= buffers: {py:.1f} = {py / rs:.0%}; "
              f"Python, new t_entry, t_exit, class arrays: {py_new:.1f} = {py_new / rs:.0%}")
    if rust:
        result["rust"] = rust
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
