"""Polylines clipped to a rect from Python: slabclip on ragged numpy arrays, slabclip from
shapely geometries to shapely geometries (``slabclip.clip_by_rect``), and
``shapely.clip_by_rect``, on the same lines in one run.

    python python/bench/bench_lines.py [--lines 20000] [--vertices 50] [--repeat 5]
        [--check 300] [--threads N] [--json out.json]

The lines: ``--lines`` random walks of ``--vertices`` vertices around the unit square, crossing
its edges many times, plus as many road-like lines (long runs of nearly axis-parallel steps
with turns). Reported per contender: the median time of ``--repeat`` runs, Mvertices/s (input
vertices), and the number of wrong answers on a subsample of ``--check`` lines against the
exact rational clip (``slabclip.reference.check_line``: SPEC §7's parts, input vertices bit
for bit, cut vertices exactly on the cutting edge and within a few ulps). For the
shapely→shapely call, its steps timed alone: the geometries' coordinates and offsets, slabclip's
own clip, and the answer's geometries (made by GEOS), and the share of the call spent
converting.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

import numpy as np


def random_walks(rng, n, m):
    start = rng.uniform(-0.5, 1.5, (n, 1, 2))
    return start + np.cumsum(rng.normal(0, 0.08, (n, m, 2)), axis=1)


def road_like(rng, n, m):
    """Nearly axis-parallel steps that turn now and then (a street network's look)."""
    heading = rng.integers(0, 4, (n, 1)) * (np.pi / 2)
    turns = np.where(rng.random((n, m)) < 0.15, rng.choice([-1, 1], (n, m)) * np.pi / 2, 0.0)
    angle = heading + np.cumsum(turns + rng.normal(0, 0.03, (n, m)), axis=1)
    step = rng.uniform(0.01, 0.06, (n, m))
    d = np.stack([np.cos(angle) * step, np.sin(angle) * step], axis=-1)
    start = rng.uniform(-0.5, 1.5, (n, 1, 2))
    return start + np.cumsum(d, axis=1)


def timed(f, repeat, free_first=False):
    """The median time of ``repeat`` calls, after one untimed call to warm up, and the last
    answer. Each time includes freeing the previous call's answer, as a loop that keeps one
    answer pays it; ``free_first`` frees it before the clock starts, leaving the call's own
    time."""
    gc.collect()  # no contender pays for the cycle collections another one left pending
    times, out = [], f()
    for _ in range(repeat):
        if free_first:
            out = None
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def parts_of_geometry(shapely, g):
    if g is None or g.is_empty:
        return []
    return [shapely.get_coordinates(p) for p in shapely.get_parts(g)
            if p.geom_type == "LineString"]


def main(argv=None) -> int:
    import shapely

    import slabclip
    from slabclip import _native
    from slabclip import lines as lines_mod
    from slabclip.reference import check_line

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=20000, help="random walks (and as many road-like)")
    ap.add_argument("--vertices", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--check", type=int, default=300, help="lines checked against the exact clip")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)

    rng = np.random.default_rng(a.seed)
    xy = np.concatenate([random_walks(rng, a.lines, a.vertices), road_like(rng, a.lines, a.vertices)])
    n_lines = len(xy)
    coords = np.ascontiguousarray(xy.reshape(-1, 2))
    offsets = np.arange(0, len(coords) + 1, a.vertices, dtype=np.int64)
    geoms = shapely.linestrings(xy)
    rect = (0.0, 0.0, 1.0, 1.0)
    V = len(coords)
    figures = {}

    t_ragged, ragged = timed(lambda: slabclip.clip_lines(coords, offsets, rect, threads=a.threads), a.repeat)
    t_ours, ours = timed(lambda: slabclip.clip_by_rect(geoms, *rect, threads=a.threads), a.repeat)
    t_theirs, theirs = timed(lambda: shapely.clip_by_rect(geoms, *rect), a.repeat)
    t_ours_own, _ = timed(lambda: slabclip.clip_by_rect(geoms, *rect, threads=a.threads), a.repeat, True)
    t_theirs_own, _ = timed(lambda: shapely.clip_by_rect(geoms, *rect), a.repeat, True)
    # The shapely→shapely call in its steps: to ragged arrays, slabclip's clip, the geometries.
    everything = np.arange(n_lines)
    t_to, (c2, o2, _) = timed(lambda: lines_mod._ragged_lines(geoms, everything), a.repeat)
    t_native, r2 = timed(lambda: _native.clip_lines(c2, o2, None, rect=list(rect), threads=a.threads), a.repeat)
    t_from, _ = timed(lambda: lines_mod._assemble(n_lines, r2["coords"], r2["offsets"], r2["polyline"]),
                      a.repeat)
    figures["slabclip ragged"] = {"seconds": t_ragged}
    figures["slabclip shapely"] = {"seconds": t_ours}
    figures["shapely.clip_by_rect"] = {"seconds": t_theirs}
    for f in figures.values():
        f["mvert_per_s"] = V / f["seconds"] / 1e6

    sample = np.random.default_rng(a.seed + 1).choice(n_lines, size=min(a.check, n_lines), replace=False)
    eps = float(np.finfo(np.float64).eps) / 2
    wrong = {"slabclip ragged": 0, "slabclip shapely": 0, "shapely.clip_by_rect": 0}
    po = ragged["offsets"]
    for j in sample:
        line = coords[offsets[j]:offsets[j + 1]]
        ks = np.flatnonzero(ragged["polyline"] == j)
        got = [ragged["coords"][po[k]:po[k + 1]] for k in ks]
        wrong["slabclip ragged"] += check_line(line, rect, got, None, eps) is not None
        wrong["slabclip shapely"] += check_line(line, rect, parts_of_geometry(shapely, ours[j]), None, eps) is not None
        wrong["shapely.clip_by_rect"] += check_line(line, rect, parts_of_geometry(shapely, theirs[j]), None, eps) is not None

    conv = t_ours - t_native
    result = {
        "lines": n_lines, "vertices": V, "threads": a.threads, "repeat": a.repeat,
        "figures": figures, "wrong": wrong, "checked": len(sample),
        "shapely_call": {"to_ragged": t_to, "slabclip_clip": t_native, "geometries": t_from,
                         "converting_share": conv / t_ours, "own_work_share": t_native / t_ours},
        "speedup_ragged_vs_shapely": t_theirs / t_ragged,
        "speedup_shapely_call_vs_shapely": t_theirs / t_ours,
        "freeing_left_out": {"slabclip shapely": t_ours_own, "shapely.clip_by_rect": t_theirs_own},
        "cpu": _cpu(), "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }
    print(f"{n_lines} lines, {V} vertices ({a.lines} random walks + {a.lines} road-like of "
          f"{a.vertices}), rect {rect}, threads={a.threads or 'all'}, median of {a.repeat}; "
          f"{result['cpu']}, load {result['load']:.2f} (a shared machine: figures are noisy)")
    for name, f in figures.items():
        print(f"  {name:22s} {f['seconds'] * 1e3:9.1f} ms  {f['mvert_per_s']:8.1f} Mvertices/s  "
              f"wrong {wrong[name]}/{len(sample)}")
    s = result["shapely_call"]
    print(f"  slabclip.clip_by_rect: geometries to ragged arrays {t_to * 1e3:.1f} ms, slabclip's "
          f"clip {t_native * 1e3:.1f} ms ({s['own_work_share']:.1%} of the call), the answer's "
          f"geometries {t_from * 1e3:.1f} ms; converting {s['converting_share']:.1%}")
    print(f"  ragged arrays vs shapely.clip_by_rect: {result['speedup_ragged_vs_shapely']:.0f}x "
          f"(target >= 50x); shapely->shapely: {result['speedup_shapely_call_vs_shapely']:.1f}x "
          f"(target > 1x with slabclip's own work under 15%)")
    print(f"  freeing the last answer left out: slabclip.clip_by_rect {t_ours_own * 1e3:.1f} ms, "
          f"shapely.clip_by_rect {t_theirs_own * 1e3:.1f} ms ({t_theirs_own / t_ours_own:.2f}x)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
