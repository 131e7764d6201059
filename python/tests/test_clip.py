"""Segments × rect in every shape, against the exact reference and against each other."""

import threading
import sys

import numpy as np
import pytest

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
    cols = tuple(segs[:, k].copy() for k in range(4))
    variants = {
        "columns": cols,
        "fortran": np.asfortranarray(segs),
        "strided": np.repeat(segs, 2, axis=0)[::2],
        "read-only": segs.copy(),
        "big-endian": segs.astype(segs.dtype.newbyteorder(">")),
        "list of lists": segs.tolist() if dtype == np.float64 else segs,
    }
    variants["read-only"].flags.writeable = False
    for name, v in variants.items():
        got = slabclip.clip(v, RECT, outputs=("t_entry", "t_exit", "class", "segments"))
        for k in want:
            assert same_bits(got[k], want[k]), (name, k)


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
    slabclip.clip_in_place(cols, RECT, class_out=out)
    assert same_bits(np.stack(cols, axis=1), np.ascontiguousarray(want["segments"]))
    assert same_bits(out, want["class"])


def test_gil_is_released_while_clipping():
    """Another Python thread runs while a call is in the kernels: with the GIL held it could not
    advance its counter at all during the call."""
    segs = slabclip.workload("mixed", 300_000, dtype=np.float64)
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
