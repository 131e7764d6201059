"""Segments × rect in every shape, against the exact reference and against each other."""

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import slabclip
from slabclip import Class
from conftest import same_bits, specials

RECT = (0.0, 0.0, 1.0, 1.0)
DTYPES = [np.float32, np.float64]
ALL = slabclip.algorithms()


def test_algorithms_and_info():
    assert ALL[-1] == "auto"
    assert {"liang-barsky", "slab-scalar", "sector-lut", "cohen-sutherland", "simd-slab",
            "hybrid"} <= set(ALL)
    i = slabclip.info()
    assert i["version"] == slabclip.__version__
    assert i["threads"] >= 1 and i["simd_built"] and i["simd_cpu"]
    assert [c.value for c in Class] == [0, 1, 2, 3, 4, 5, 255]


def test_simd_levels_give_the_same_bits():
    """Every level the CPU runs, forced by the call, gives the bits of the level running when the
    test starts (the best, or the one SLABCLIP_SIMD names); a name that is no level and a level
    the CPU lacks are refused and change nothing."""
    import os
    levels = slabclip.simd_levels()
    assert levels[0] == "v1" and levels == sorted(levels)
    start = slabclip.info()["simd_runs"].split()[0]
    env = os.environ.get("SLABCLIP_SIMD")
    assert start == (env if env in levels else levels[-1])
    segs = slabclip.workload("mixed", 1003, seed=7)
    rays = np.concatenate([segs[:, :2], segs[:, 2:] - segs[:, :2]], axis=1)
    walls = slabclip.workload("mixed", 97, seed=8)

    walk = 0.5 + np.cumsum(np.random.default_rng(9).normal(size=(600, 2)) * 0.05, axis=0)
    offsets = np.array([0, 2, 250, 600])
    scene = slabclip.Scene(walls)

    def outputs():
        return [slabclip.clip(segs, RECT), slabclip.grid_pieces(segs, (0, 0, 1, 1), (7, 5)),
                slabclip.cast_rect(rays, RECT), slabclip.cast_segments(rays, walls),
                slabclip.clip_lines(walk, offsets, RECT), scene.cast(rays)]

    try:
        want = outputs()
        for level in levels:
            slabclip.set_simd_level(level)
            assert slabclip.info()["simd_runs"].startswith(level)
            for w, g in zip(want, outputs()):
                for k in w:
                    assert same_bits(w[k], g[k]), (level, k)
        for bad in ("v2", "avx", ""):
            with pytest.raises(ValueError, match="unknown SIMD level"):
                slabclip.set_simd_level(bad)
        if "v4" not in levels:
            with pytest.raises(ValueError, match="v4"):
                slabclip.set_simd_level("v4")
        assert slabclip.info()["simd_runs"].startswith(levels[-1])
    finally:
        slabclip.set_simd_level(start)


def test_docstring_example():
    r = slabclip.clip(np.array([[-1.0, 0.5, 0.5, 0.5], [0.25, 0.25, 0.75, 0.75],
                                [0.5, 0.5, 3.0, 0.5], [2.0, 2.0, 3.0, 2.0]]), RECT)
    assert list(r["class"]) == [Class.ENTERS, Class.INSIDE, Class.EXITS, Class.OUTSIDE]
    assert r["t_entry"][0] == 2.0 / 3.0
    assert (r["t_entry"][1], r["t_exit"][1]) == (0.0, 1.0)
    assert r["t_exit"][2] == 0.2
    assert np.isnan(r["t_entry"][3])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("algorithm", ALL)
def test_every_algorithm_meets_the_contract(dtype, algorithm):
    segs = np.concatenate([specials(dtype), slabclip.workload("edge-grazing", 2048, dtype=dtype)])
    r = slabclip.clip(segs, RECT, algorithm=algorithm, outputs=("t_entry", "t_exit", "class", "segments"))
    bad = slabclip.reference.violations(segs, RECT, r["t_entry"], r["t_exit"], r["class"])
    assert bad.sum() == 0, segs[bad.astype(bool)][:5]
    # Clipped endpoints: inside endpoints unchanged, every endpoint in the closed rect.
    s, hit = r["segments"], np.isin(r["class"], [1, 2, 3, 4, 5])
    assert np.all(np.isnan(s[~hit]))
    assert np.all((s[hit] >= 0) & (s[hit] <= 1))
    keep0 = r["t_entry"] == 0
    assert same_bits(s[keep0, :2], segs[keep0, :2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts_give_the_same_bits(dtype):
    segs = specials(dtype, 1003)
    want = slabclip.clip(segs, RECT, outputs=("t_entry", "t_exit", "class", "segments"))
    cols = {k: segs[:, i].copy() for i, k in enumerate(("x0", "y0", "x1", "y1"))}
    structured = np.empty(len(segs), dtype=[(k, dtype) for k in ("y1", "x0", "x1", "y0")])
    for k in cols:
        structured[k] = cols[k]
    variants = {
        "dict of columns": cols,
        "dict of columns, other key order, extra key": {"y1": cols["y1"], "id": np.arange(len(segs)),
                                                       **{k: cols[k] for k in ("x1", "x0", "y0")}},
        "structured array": structured,
        "fortran": np.asfortranarray(segs),
        "strided": np.repeat(segs, 2, axis=0)[::2],
        "read-only": segs.copy(),
        "big-endian": segs.astype(segs.dtype.newbyteorder(">")),
        "list of lists": segs.tolist() if dtype == np.float64 else segs,
        "list of row arrays": list(segs),
        "tuple of row arrays": tuple(segs),
    }
    variants["read-only"].flags.writeable = False
    for name, v in variants.items():
        got = slabclip.clip(v, RECT, outputs=("t_entry", "t_exit", "class", "segments"))
        for k in want:
            assert same_bits(got[k], want[k]), (name, k)


# Every function that takes segments or rays, as (name, call on rows): a list of four rows must
# give what the (4, 4) array of those rows gives (numpy's reading), never four columns.
ROWS_TAKERS = {
    "clip": lambda s: slabclip.clip(s, RECT, outputs=("t_entry", "t_exit", "class", "segments")),
    "clip_pairwise": lambda s: slabclip.clip_pairwise(s, np.array([RECT] * len(np.asarray(s)))),
    "clip_grid": lambda s: slabclip.clip_grid(s, np.array([RECT, (0.5, 0, 2, 1)])),
    "clip_rect_set": lambda s: slabclip.clip_rect_set(s, np.array([RECT, (0.5, 0, 2, 1)])),
    "grid_pieces": lambda s: slabclip.grid_pieces(s, (0, 0, 2, 2), (4, 4)),
    "clip_polygon": lambda s: slabclip.clip_polygon(s, [[0, 0], [1, 0], [1, 1], [0, 1]]),
    "cast_rect (rays)": lambda s: slabclip.cast_rect(s, RECT),
    "cast_segments (rays)": lambda s: slabclip.cast_segments(s, [[0.5, -1, 0.5, 2], [2, 0, 2, 3]]),
    "cast_segments (walls)": lambda s: slabclip.cast_segments([[0, 0.5, 1, 0], [0.75, -5, 0, 1]], s),
    "cast_polygon (rays)": lambda s: slabclip.cast_polygon(s, [[0, 0], [1, 0], [1, 1], [0, 1]]),
    "exact_class": lambda s: {"class": slabclip.reference.exact_class(s, RECT)},
}


ROWS_FOUR = [(-1, .5, .5, .5), (.25, .25, .75, .75), (.5, .5, 3, .5), (2, 2, 3, 3)]


def _same_result(got, want, what):
    assert list(got) == list(want), what
    for k in want:
        assert same_bits(np.ascontiguousarray(got[k]), np.ascontiguousarray(want[k])), (what, k)


def test_a_list_of_four_rows_is_four_rows():
    r = slabclip.clip(ROWS_FOUR, RECT)
    assert list(r["class"]) == [Class.ENTERS, Class.INSIDE, Class.EXITS, Class.OUTSIDE]
    arr = np.array(ROWS_FOUR, dtype=np.float64)
    containers = {
        "list of tuples": ROWS_FOUR,
        "tuple of tuples": tuple(ROWS_FOUR),
        "list of lists": [list(r) for r in ROWS_FOUR],
        "list of row arrays": list(arr),
        "tuple of row arrays": tuple(arr),
    }
    for name, call in ROWS_TAKERS.items():
        want = call(arr)
        for kind, c in containers.items():
            _same_result(call(c), want, (name, kind))


def test_columns_are_passed_by_name():
    arr = np.array(ROWS_FOUR, dtype=np.float64)
    want = slabclip.clip(arr, RECT)
    _same_result(slabclip.clip({k: arr[:, i] for i, k in enumerate(("x0", "y0", "x1", "y1"))}, RECT),
                 want, "dict")
    rays = {k: arr[:, i] for i, k in enumerate(("ox", "oy", "dx", "dy"))}
    _same_result(slabclip.cast_rect(rays, RECT), slabclip.cast_rect(arr, RECT), "rays dict")
    # Four unnamed columns of another length than 4 are a (4, N) array: refused, with the way
    # to pass columns in the message.
    with pytest.raises(ValueError, match=r"shape \(N, 4\).*got shape \(4, 5\).*dict"):
        slabclip.clip(tuple(np.zeros(5) for _ in range(4)), RECT)
    with pytest.raises(ValueError, match="missing y1"):
        slabclip.clip({"x0": arr[:, 0], "y0": arr[:, 1], "x1": arr[:, 2]}, RECT)
    with pytest.raises(ValueError, match="missing ox, oy"):
        slabclip.cast_rect({"x0": arr[:, 0], "y0": arr[:, 1], "dx": arr[:, 2], "dy": arr[:, 3]}, RECT)


# Containers numpy reads as rows: each a function of an (N, 4) array.
CONTAINERS = {
    "list of lists": lambda a: a.tolist(),
    "tuple of tuples": lambda a: tuple(map(tuple, a.tolist())),
    "list of row arrays": list,
    "tuple of row arrays": tuple,
    "array": lambda a: a,
}


@settings(max_examples=150, deadline=None)
@given(a=hnp.arrays(np.float64, st.tuples(st.sampled_from([1, 2, 3, 4, 4, 4, 5, 8, 17]), st.just(4)),
                    elements=st.floats(-3, 4, allow_nan=False) | st.sampled_from([0.0, 1.0, 0.5, np.nan])),
       kind=st.sampled_from(sorted(CONTAINERS)),
       taker=st.sampled_from(sorted(ROWS_TAKERS)))
def test_any_container_of_rows_reads_as_numpy_reads_it(a, kind, taker):
    call = ROWS_TAKERS[taker]
    _same_result(call(CONTAINERS[kind](a)), call(np.asarray(a)), (taker, kind))


def test_integer_input_is_converted_to_float64():
    r = slabclip.clip(np.array([[-1, 0, 2, 0]]), (0, 0, 1, 1))
    assert r["t_entry"].dtype == np.float64 and r["t_entry"][0] == 1 / 3


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_arrays_are_written_in_place(dtype):
    segs = specials(dtype, 777)
    want = slabclip.clip(segs, RECT, outputs=("t_entry", "t_exit", "class", "segments"))
    out = {"t_entry": np.empty(777, dtype), "class": np.empty(777, np.uint8),
           "segments": np.empty((777, 4), dtype)}
    fortran = np.empty((777, 4), dtype, order="F")
    got = slabclip.clip(segs, RECT, out=out, outputs=())
    assert set(got) == set(out) and all(got[k] is out[k] for k in out)
    got2 = slabclip.clip(segs, RECT, out={"segments": fortran}, outputs=())
    for k in out:
        assert same_bits(out[k], want[k]), k
    assert same_bits(np.ascontiguousarray(fortran), np.ascontiguousarray(want["segments"]))
    assert got2["segments"] is fortran


@pytest.mark.parametrize("dtype", DTYPES)
def test_vector_kernels_identical_and_threads_do_not_change_bits(dtype):
    segs = slabclip.workload("mixed", 300_000, dtype=dtype)
    base = slabclip.clip(segs, RECT, algorithm="slab-scalar", outputs=("t_entry", "t_exit", "class", "segments"))
    for algorithm in ("simd-slab", "hybrid", "auto"):
        for threads in (None, 1, 2, 3):
            got = slabclip.clip(segs, RECT, algorithm=algorithm, threads=threads,
                                outputs=("t_entry", "t_exit", "class", "segments"))
            for k in base:
                assert same_bits(got[k], base[k]), (algorithm, threads, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pairwise_equals_one_rect_at_a_time(dtype):
    rng = np.random.default_rng(3)
    segs = specials(dtype, 2000)
    choices = np.array([[0, 0, 1, 1], [0.25, 0.25, 0.5, 2], [-1, 0.5, 1, 0.5], [0.5, 0.5, 0.5, 0.5]], dtype)
    which = rng.integers(0, len(choices), 2000)
    for algorithm in ALL:
        got = slabclip.clip_pairwise(segs, choices[which], algorithm=algorithm,
                                     outputs=("t_entry", "t_exit", "class", "segments"))
        for k, rect in enumerate(choices):
            sel = which == k
            want = slabclip.clip(segs[sel], rect, algorithm=algorithm,
                                 outputs=("t_entry", "t_exit", "class", "segments"))
            for name in want:
                assert same_bits(got[name][sel], want[name]), (algorithm, k, name)


@pytest.mark.parametrize("dtype", DTYPES)
def test_grid_is_every_hit_in_order(dtype):
    segs = specials(dtype, 5000)
    rects = np.array([[0, 0, 1, 1], [0.5, 0.5, 2, 2], [-1, -1, 0, 0], [0.25, 0, 0.25, 1]], dtype)
    for threads in (1, 2):
        g = slabclip.clip_grid(segs, rects, threads=threads)
        rows = []
        for k, rect in enumerate(rects):
            r = slabclip.clip(segs, rect)
            for i in np.flatnonzero(np.isin(r["class"], [1, 2, 3, 4, 5])):
                rows.append((i, k, r["t_entry"][i], r["t_exit"][i], r["class"][i]))
        rows.sort(key=lambda h: (h[0], h[1]))
        assert list(g["segment"]) == [h[0] for h in rows]
        assert list(g["rect"]) == [h[1] for h in rows]
        assert same_bits(g["t_entry"], np.array([h[2] for h in rows], dtype))
        assert same_bits(g["t_exit"], np.array([h[3] for h in rows], dtype))
        assert list(g["class"]) == [h[4] for h in rows]
    s = slabclip.clip_grid(segs, rects, structured=True)
    assert s.dtype.names == ("segment", "rect", "t_entry", "t_exit", "class")
    assert same_bits(s["t_exit"], g["t_exit"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 4099, 200_000])
def test_in_place_every_layout(dtype, n):
    segs = np.concatenate([specials(dtype, min(n, 4096)), slabclip.workload("mixed", max(0, n - 4096), dtype=dtype)])[:n]
    want = slabclip.clip(segs, RECT, outputs=("class", "segments"))
    c = segs.copy()
    cls = slabclip.clip_in_place(c, RECT, return_class=True)
    assert same_bits(c, np.ascontiguousarray(want["segments"])) and same_bits(cls, want["class"])
    f = np.array(segs, order="F", copy=True)
    slabclip.clip_in_place(f, RECT, algorithm="simd-slab", threads=2)
    assert same_bits(np.ascontiguousarray(f), np.ascontiguousarray(want["segments"]))
    big = np.repeat(segs, 2, axis=0)
    strided = big[::2]
    slabclip.clip_in_place(strided, RECT)
    assert same_bits(np.ascontiguousarray(strided), np.ascontiguousarray(want["segments"]))
    assert same_bits(big[1::2], segs)  # the rows between were not touched
    cols = tuple(segs[:, k].copy() for k in range(4))
    out = np.empty(n, np.uint8)
    slabclip.clip_in_place(dict(zip(("x0", "y0", "x1", "y1"), cols)), RECT, class_out=out)
    assert same_bits(np.stack(cols, axis=1), np.ascontiguousarray(want["segments"]))
    assert same_bits(out, want["class"])


def test_gil_is_released_while_clipping():
    """Another Python thread runs while a call is in the kernels: with the GIL held it could not
    advance its counter at all during the call."""
    segs = slabclip.workload("mixed", 60_000, dtype=np.float64)
    counter, done = [0], threading.Event()
    seen = {}

    def work():
        c0 = counter[0]
        slabclip.reference.exact_class(segs, RECT, threads=1)  # rational arithmetic: slow
        seen["during"] = counter[0] - c0
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.05)
    try:
        t = threading.Thread(target=work)
        t.start()
        while not done.is_set():
            counter[0] += 1
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert seen["during"] > 1000


def test_threads_clip_at_once():
    segs = slabclip.workload("mixed", 100_000)
    want = slabclip.clip(segs, RECT)
    results = [None] * 4

    def work(i):
        results[i] = slabclip.clip(segs, RECT, threads=1 + i % 2)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    for r in results:
        for k in want:
            assert same_bits(r[k], want[k])


THREAD_COUNT = textwrap.dedent("""
    import time
    import numpy as np
    import slabclip

    def threads_now():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("Threads:"))

    segs = slabclip.workload("mixed", 10_000)
    slabclip.clip(segs, (0, 0, 1, 1), threads=2)
    base = threads_now()  # the calling thread, rayon's global pool if started, a 2-thread pool
    for rounds in range(3):
        for n in range(2, 18):
            slabclip.clip(segs, (0, 0, 1, 1), threads=n)
            slabclip.cast_rect(segs, (0, 0, 1, 1), threads=n)
    slabclip.clip(segs, (0, 0, 1, 1), threads=2)
    # A dropped pool's threads end on their own: give them a moment.
    for _ in range(100):
        if threads_now() <= base:
            break
        time.sleep(0.05)
    print(base, threads_now())
""")


def test_threads_values_do_not_pile_up_pools():
    """Many different threads= values leave the process with the threads of one pool, not one
    pool per value ever used (16 values, 3 rounds: 456 threads if every pool were kept)."""
    r = subprocess.run([sys.executable, "-c", THREAD_COUNT], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    base, after = map(int, r.stdout.split())
    assert after <= base, (base, after)
