"""Polylines and tiles from Python (SPEC §7): ragged numpy arrays against the exact rational
reference (slabclip.reference.exact_line), the same bits at every thread count and layout,
shapely.clip_by_rect compared difference by difference, geopandas, GeoArrow through the Arrow
PyCapsule interface, dask on a 2-worker LocalCluster, and every bad argument's message."""

import doctest
import math

import numpy as np
import pytest
import shapely

import slabclip
import slabclip.lines
from slabclip import reference as R
from conftest import same_bits

RECT = (0.0, 0.0, 1.0, 1.0)


def ragged(lines, dtype=np.float64, offset_dtype=np.int64):
    """Coordinates and offsets of a list of (n, 2) vertex lists."""
    coords = np.concatenate([np.asarray(v, dtype=dtype).reshape(-1, 2) for v in lines]) \
        if lines else np.empty((0, 2), dtype)
    offsets = np.zeros(len(lines) + 1, offset_dtype)
    offsets[1:] = np.cumsum([len(v) for v in lines])
    return np.ascontiguousarray(coords), offsets


def walks(rng, n, m, dtype=np.float64, step=0.1):
    """n random walks of m vertices starting around the unit square, crossing its edges."""
    start = rng.uniform(-0.5, 1.5, (n, 1, 2))
    xy = start + np.cumsum(rng.normal(0, step, (n, m, 2)), axis=1)
    return [v for v in xy.astype(dtype)]


NAMED = {
    "crosses": [(-1, 0.5), (2, 0.5)],
    "touches a corner from outside": [(-1, 1), (0, 1)],
    "along the bottom edge": [(0, 0), (1, 0)],
    "along an edge beyond both corners": [(-1, 0), (2, 0)],
    "touches at a vertex": [(-1, -1), (0, 0), (-1, 1)],
    "there and back": [(0.5, -1), (0.5, 0.5), (0.5, -1)],
    "diagonal through two corners": [(-1, 2), (2, -1)],
    "grazes a corner between vertices": [(-1, 0), (0.5, 1.5)],
    "zero-length inside": [(0.5, 0.5), (0.5, 0.5)],
    "zero-length on a corner": [(1, 1), (1, 1)],
    "zero-length segment inside a run": [(-1, 0.5), (0.5, 0.5), (0.5, 0.5), (2, 0.5)],
    "NaN vertex breaks the run": [(0.1, 0.1), (0.2, 0.2), (np.nan, 0.5), (0.7, 0.7), (0.8, 0.8)],
    "inf coordinate": [(0.2, 0.2), (np.inf, 0.2), (0.4, 0.4)],
    "outside": [(2, 2), (3, 3)],
    "signed zeros": [(-0.0, 0.5), (0.5, -0.0)],
    "one ulp above the top": [(0.25, np.nextafter(1.0, 2.0)), (0.75, np.nextafter(1.0, 2.0))],
    "huge": [(-1e300, 0.5), (1e300, 0.5)],
    "huge start": [(-1e300, 0.5), (0.5, 0.5)],
    "tiny": [(1e-300, 1e-300), (2e-300, -1e-300)],
    "closed ring starting inside": [(0.5, 0.5), (2, 0.5), (2, 2), (0.5, 2), (0.5, 0.5)],
    "closed ring inside": [(0.2, 0.2), (0.8, 0.2), (0.5, 0.8), (0.2, 0.2)],
    "no vertices": np.empty((0, 2)),
}

# Hand-written answers (SPEC §7): parts as vertex lists, then points of contact.
NAMED_ANSWERS = {
    "crosses": ([[(0, 0.5), (1, 0.5)]], []),
    "touches a corner from outside": ([], [(0, 1)]),
    "along the bottom edge": ([[(0, 0), (1, 0)]], []),
    "along an edge beyond both corners": ([[(0, 0), (1, 0)]], []),
    "touches at a vertex": ([], [(0, 0)]),
    "there and back": ([[(0.5, 0), (0.5, 0.5), (0.5, 0)]], []),
    "zero-length inside": ([], [(0.5, 0.5)]),  # all one point: a point of contact
    "zero-length on a corner": ([], [(1, 1)]),
    "zero-length segment inside a run": ([[(0, 0.5), (0.5, 0.5), (0.5, 0.5), (1, 0.5)]], []),
    "NaN vertex breaks the run": ([[(0.1, 0.1), (0.2, 0.2)], [(0.7, 0.7), (0.8, 0.8)]], []),
    "inf coordinate": ([], []),
    "outside": ([], []),
    "one ulp above the top": ([], []),
    # (-1e300 → 1e300 is a graze: its exact piece is 1e-300 of its length, below an ulp of t.)
    "huge start": ([[(0, 0.5), (0.5, 0.5)]], []),
    # Not joined across its first vertex: two parts, not (0.5, 1), (0.5, 0.5), (1, 0.5).
    "closed ring starting inside": ([[(0.5, 0.5), (1, 0.5)], [(0.5, 1), (0.5, 0.5)]], []),
    "closed ring inside": ([[(0.2, 0.2), (0.8, 0.2), (0.5, 0.8), (0.2, 0.2)]], []),
    "no vertices": ([], []),
}


def adversarial(rng, n, dtype=np.float64):
    """Lines on the quarter grid around the unit square (vertices on edges and corners,
    pieces along edges), repeated vertices, closed rings; then the named cases."""
    out = []
    for _ in range(n):
        m = int(rng.integers(2, 8))
        v = rng.integers(-2, 7, (m, 2)) / 4
        if rng.random() < 0.2:
            v = np.repeat(v, 2, axis=0)[: m + 1]
        if rng.random() < 0.1:
            v = np.vstack([v, v[:1]])
        out.append(v.astype(dtype))
    return out + [np.asarray(v, dtype=dtype).reshape(-1, 2) for v in NAMED.values()]


def parts_of(r, j=None, key="polyline"):
    """The parts of polyline j (all when None) as a list of (m, 2) arrays."""
    o = r["offsets"]
    ks = range(len(r[key])) if j is None else np.flatnonzero(r[key] == j)
    return [r["coords"][o[k]:o[k + 1]] for k in ks]


def test_docstring_examples_run():
    res = doctest.testmod(slabclip.lines, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 6 and res.failed == 0


@pytest.mark.parametrize("name", list(NAMED_ANSWERS))
def test_named_cases_have_the_hand_written_answer(name):
    parts, points = NAMED_ANSWERS[name]
    coords, offsets = ragged([NAMED[name]])
    r = slabclip.clip_lines(coords, offsets, RECT, points=True)
    got = [[tuple(map(float, v)) for v in p] for p in parts_of(r)]
    assert got == [[tuple(map(float, v)) for v in p] for p in parts]
    assert [tuple(map(float, p)) for p in r["points"]] == [tuple(map(float, p)) for p in points]
    # Without points=, the same parts and no points key.
    q = slabclip.clip_lines(coords, offsets, RECT)
    assert "points" not in q and same_bits(q["coords"], r["coords"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_and_adversarial_lines_against_the_exact_reference(dtype):
    rng = np.random.default_rng(5)
    lines = walks(rng, 150, 30, dtype) + adversarial(rng, 600, dtype)
    coords, offsets = ragged(lines, dtype)
    r = slabclip.clip_lines(coords, offsets, RECT, points=True)
    assert r["coords"].dtype == dtype and r["offsets"].dtype == np.int64
    assert np.all(np.diff(r["offsets"]) >= 2) and np.all(np.diff(r["polyline"]) >= 0)
    bad = R.wrong_lines(coords, offsets, RECT, r, points=True)
    assert bad == {}, list(bad.items())[:5]
    # A rect that is not the unit square, with bounds that are not dyadic.
    rect = (0.1, -0.3, 0.7, 0.9)
    r = slabclip.clip_lines(coords, offsets, rect, points=True)
    assert R.wrong_lines(coords, offsets, rect, r, points=True) == {}


def test_same_bits_at_every_thread_count_layout_and_offset_width():
    rng = np.random.default_rng(6)
    lines = walks(rng, 3000, 20) + adversarial(rng, 3000)
    coords, offsets = ragged(lines)
    want = slabclip.clip_lines(coords, offsets, RECT, points=True)
    assert len(coords) > 2 * 8192  # several blocks
    for threads in (1, 2, 3, None):
        got = slabclip.clip_lines(coords, offsets, RECT, points=True, threads=threads)
        assert all(same_bits(got[k], want[k]) for k in want), threads
    sep = (np.ascontiguousarray(coords[:, 0]), np.ascontiguousarray(coords[:, 1]))
    for c, o in [(sep, offsets), (coords, offsets.astype(np.int32)), ({"x": sep[0], "y": sep[1]}, offsets)]:
        got = slabclip.clip_lines(c, o, RECT, points=True, threads=2)
        assert all(same_bits(got[k], want[k]) for k in want)
    # clip_lines_each with the same rect for every polyline.
    each = slabclip.clip_lines_each(coords, offsets, np.tile(RECT, (len(lines), 1)), points=True)
    assert all(same_bits(each[k], want[k]) for k in want)


def test_slices_and_multilinestrings_carry_both_indices():
    rng = np.random.default_rng(7)
    lines = walks(rng, 40, 12) + adversarial(rng, 40)
    coords, offsets = ragged(lines)
    whole = slabclip.clip_lines(coords, offsets, RECT)
    # A slice of polylines 10..60 (first offset above 0, last below V): their parts, renumbered.
    sl = slabclip.clip_lines(coords, offsets[10:61], RECT)
    keep = (whole["polyline"] >= 10) & (whole["polyline"] < 60)
    assert same_bits(sl["polyline"], whole["polyline"][keep] - 10)
    assert [p.tobytes() for p in parts_of(sl)] == [
        p.tobytes() for p, k in zip(parts_of(whole), keep) if k]
    # Geometries of 0, 1, 3 polylines over polylines 5..75.
    geo = np.array([5, 5, 6, 9, 20, 20, 75], np.int32)
    m = slabclip.clip_lines(coords, offsets, RECT, geometry_offsets=geo)
    inside = (whole["polyline"] >= 5) & (whole["polyline"] < 75)
    assert same_bits(m["polyline"], whole["polyline"][inside])
    assert same_bits(m["geometry"], np.searchsorted(geo, m["polyline"], side="right") - 1)
    rects = np.array([RECT, RECT, (0, 0, 0.5, 0.5), RECT, (0.5, 0.5, 2, 2), RECT], float)
    e = slabclip.clip_lines_each(coords, offsets, rects, geometry_offsets=geo)
    for g in range(6):
        for j in range(geo[g], geo[g + 1]):
            one = slabclip.clip_lines(coords, offsets[j:j + 2], rects[g])
            assert [p.tobytes() for p in parts_of(e, j)] == [p.tobytes() for p in parts_of(one)]


def cell_rects(bounds, cells, buffer=0.0):
    xs = np.linspace(bounds[0], bounds[2], cells[0] + 1)
    ys = np.linspace(bounds[1], bounds[3], cells[1] + 1)
    return {(i, j): (xs[i] - buffer, ys[j] - buffer, xs[i + 1] + buffer, ys[j + 1] + buffer)
            for i in range(cells[0]) for j in range(cells[1])}


@pytest.mark.parametrize("buffer", [None, 0.0, 0.125])
def test_tiles_are_each_cells_exact_clip_and_watertight(buffer):
    rng = np.random.default_rng(8)
    lines = [2 * v for v in walks(rng, 60, 20)] + [2 * v for v in adversarial(rng, 200)]
    coords, offsets = ragged(lines)
    bounds, cells = (0.0, 0.0, 2.0, 2.0), (4, 4)  # dyadic lines: cells known exactly here
    r = slabclip.tile_lines(coords, offsets, bounds, cells, buffer=buffer, points=True)
    for threads in (1, 3):
        q = slabclip.tile_lines(coords, offsets, bounds, cells, buffer=buffer, points=True,
                                threads=threads)
        assert all(same_bits(q[k], r[k]) for k in r)
    key = r["polyline"] * 16 + r["iy"] * 4 + r["ix"]
    assert np.all(np.diff(key) >= 0)  # by polyline, then cell
    rects = cell_rects(bounds, cells, buffer or 0.0)
    for (i, j), rect in rects.items():
        # The parts of this cell only, in the layout wrong_lines reads.
        mine = (r["ix"] == i) & (r["iy"] == j)
        o = r["offsets"]
        ks = np.flatnonzero(mine)
        sub = {"coords": np.concatenate([r["coords"][o[k]:o[k + 1]] for k in ks]) if len(ks) else np.empty((0, 2)),
               "polyline": r["polyline"][ks]}
        sub["offsets"] = np.r_[0, np.cumsum(np.diff(o)[ks])]
        pm = (r["point_ix"] == i) & (r["point_iy"] == j)
        sub["points"], sub["point_polyline"] = r["points"][pm], r["point_polyline"][pm]
        bad = R.wrong_lines(coords, offsets, rect, sub, points=buffer is None or buffer == 0)
        assert bad == {}, (i, j, list(bad.items())[:3])
    if buffer is None:
        # Watertight: every cut vertex strictly inside the grid that ends a part starts another
        # (bit for bit), in the next cell along the polyline.
        inputs = {(coords[k].tobytes()) for k in range(len(coords))}
        o = r["offsets"]
        for j in range(len(lines)):
            ks = np.flatnonzero(r["polyline"] == j)
            ends = [r["coords"][o[k + 1] - 1].tobytes() for k in ks]
            starts = [r["coords"][o[k]].tobytes() for k in ks]
            for e in ends:
                v = np.frombuffer(e)
                if e in inputs or not (0 < v[0] < 2 and 0 < v[1] < 2):
                    continue
                assert e in starts, (j, v)


def test_half_open_gives_a_piece_on_a_shared_line_to_one_cell():
    coords, offsets = ragged([[(0.25, 0.5), (1.75, 0.5)], [(1.0, 0.25), (1.0, 0.75)]])
    closed = slabclip.tile_lines(coords, offsets, (0, 0, 2, 1), (2, 1))
    half = slabclip.tile_lines(coords, offsets, (0, 0, 2, 1), (2, 1), half_open=True)
    assert closed["polyline"].tolist() == [0, 0, 1, 1]  # the vertical line in both cells
    assert half["polyline"].tolist() == [0, 0, 1] and half["ix"].tolist() == [0, 1, 1]


def test_float32_computes_in_float32():
    rng = np.random.default_rng(9)
    coords, offsets = ragged(walks(rng, 50, 10, np.float32), np.float32)
    r = slabclip.clip_lines(coords, offsets, (0.1, 0.1, 0.9, 0.9))
    assert r["coords"].dtype == np.float32
    assert R.wrong_lines(coords, offsets, (0.1, 0.1, 0.9, 0.9), r) == {}


C2, O2 = ragged([[(0, 0), (1, 1)], [(0, 1), (1, 0)]])
BAD = {
    "coords a list": (lambda: slabclip.clip_lines([[0, 0], [1, 1]], O2, RECT), TypeError, "numpy array"),
    "coords int": (lambda: slabclip.clip_lines(C2.astype(int), O2, RECT), TypeError, "float32 or float64"),
    "coords big-endian": (lambda: slabclip.clip_lines(C2.astype(">f8"), O2, RECT), TypeError, "byte order"),
    "coords (V, 3)": (lambda: slabclip.clip_lines(np.zeros((4, 3)), O2, RECT), ValueError, "3-D coordinates"),
    "coords strided": (lambda: slabclip.clip_lines(np.zeros((4, 4))[:, :2], O2, RECT), ValueError, "C-contiguous"),
    "columns of two dtypes": (lambda: slabclip.clip_lines((C2[:, 0].copy(), C2[:, 1].astype(np.float32)), O2, RECT), TypeError, "one dtype"),
    "columns of two lengths": (lambda: slabclip.clip_lines((C2[:, 0].copy(), C2[:3, 1].copy()), O2, RECT), ValueError, "one length"),
    "offsets float": (lambda: slabclip.clip_lines(C2, O2.astype(float), RECT), TypeError, "offsets must be int32 or int64"),
    "offsets uint64": (lambda: slabclip.clip_lines(C2, O2.astype(np.uint64), RECT), TypeError, "offsets must be int32 or int64"),
    "offsets list": (lambda: slabclip.clip_lines(C2, [0, 2, 4], RECT), TypeError, "offsets must be an int32 or int64 numpy array"),
    "offsets strided": (lambda: slabclip.clip_lines(C2, np.arange(0, 10, 2)[::2], RECT), ValueError, "contiguous"),
    "offsets decrease": (lambda: slabclip.clip_lines(C2, np.array([0, 3, 2, 4]), RECT), ValueError, "polyline 1: offsets decrease"),
    "offsets overrun": (lambda: slabclip.clip_lines(C2, np.array([0, 2, 5]), RECT), ValueError, "polyline 1: offsets[2] = 5 is beyond"),
    "offsets negative": (lambda: slabclip.clip_lines(C2, np.array([-1, 2]), RECT), ValueError, "negative"),
    "single vertex": (lambda: slabclip.clip_lines(C2, np.array([0, 2, 3, 4]), RECT), ValueError, "polyline 1 has a single vertex"),
    "no offsets": (lambda: slabclip.clip_lines(C2, np.array([], np.int64), RECT), ValueError, "no values"),
    "geometry offsets overrun": (lambda: slabclip.clip_lines(C2, O2, RECT, geometry_offsets=np.array([0, 3])), ValueError, "geometry 0"),
    "reversed rect": (lambda: slabclip.clip_lines(C2, O2, (1, 0, 0, 1)), ValueError, "invalid rect"),
    "rect of 3": (lambda: slabclip.clip_lines(C2, O2, (0, 0, 1)), ValueError, "rect must be"),
    "threads 0": (lambda: slabclip.clip_lines(C2, O2, RECT, threads=0), ValueError, "threads must be an integer from 1 to"),
    "rects count": (lambda: slabclip.clip_lines_each(C2, O2, np.zeros((3, 4))), ValueError, "rects"),
    "rects bad row": (lambda: slabclip.clip_lines_each(C2, O2, np.array([RECT, (1, 1, 0, 0)])), ValueError, "rects row 1"),
    "negative buffer": (lambda: slabclip.tile_lines(C2, O2, RECT, (2, 2), buffer=-1), ValueError, "buffer"),
    "NaN buffer": (lambda: slabclip.tile_lines(C2, O2, RECT, (2, 2), buffer=math.nan), ValueError, "buffer"),
    "buffer with half_open": (lambda: slabclip.tile_lines(C2, O2, RECT, (2, 2), buffer=0.1, half_open=True), ValueError, "half"),
    "cells 0": (lambda: slabclip.tile_lines(C2, O2, RECT, (0, 2)), ValueError, "cells"),
    "shapely polygon": (lambda: slabclip.clip_by_rect([shapely.LineString([(0, 0), (1, 1)]), shapely.box(0, 0, 1, 1)], *RECT), TypeError, "position 1 is a Polygon"),
    "shapely z": (lambda: slabclip.clip_by_rect([shapely.LineString([(0, 0, 0), (1, 1, 1)])], *RECT), ValueError, "z coordinates"),
    "not a geometry": (lambda: slabclip.clip_by_rect([shapely.LineString([(0, 0), (1, 1)]), "LINESTRING (0 0, 1 1)"], *RECT), TypeError, "position 1 is a str"),
    "geoarrow points": (lambda: slabclip.clip_geoarrow(__import__("geoarrow.pyarrow").pyarrow.as_geoarrow(["POINT (0 0)"]), RECT), ValueError, "geoarrow.point"),
    "geoarrow not arrow": (lambda: slabclip.clip_geoarrow([1, 2], RECT), TypeError, "Arrow array"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_arguments_say_what_is_wrong(name):
    call, exc, words = BAD[name]
    with pytest.raises(exc) as e:
        call()
    assert words in str(e.value), str(e.value)


# ---------------------------------------------------------------------------------------------
# shapely and geopandas.


def _geom_parts(g):
    if g is None or g.is_empty:
        return []
    return [shapely.get_coordinates(p) for p in shapely.get_parts(g)]


def _close(a, b, tol):
    return len(a) == len(b) and all(p.shape == q.shape and np.all(np.abs(p - q) <= tol) for p, q in zip(a, b))


def _without_boundary_pieces(parts, rect):
    """What GEOS's rectangle intersection keeps of SPEC §7's parts: segments lying on the
    boundary (both ends on one edge line, zero-length ones on it too) removed, splitting the
    parts there."""
    out = []
    for p in parts:
        cur = [p[0]]
        for a, b in zip(p[:-1], p[1:]):
            on = any(a[k] == b[k] == v for k, v in ((0, rect[0]), (0, rect[2]), (1, rect[1]), (1, rect[3])))
            if on:
                if len(cur) > 1:
                    out.append(np.array(cur))
                cur = [b]
            else:
                cur.append(b)
        if len(cur) > 1:
            out.append(np.array(cur))
    return out


@pytest.mark.parametrize("kind", ["random walks", "adversarial"])
def test_clip_by_rect_against_shapely_every_difference_explained(kind):
    rng = np.random.default_rng(12)
    lines = walks(rng, 1500, 25) if kind == "random walks" else adversarial(rng, 3000)
    lines = [v for v in lines if len(v) >= 2 and np.isfinite(v).all()]  # GEOS: finite only
    geoms = np.array([shapely.LineString(v) for v in lines], dtype=object)
    ours = slabclip.clip_by_rect(geoms, *RECT)
    theirs = shapely.clip_by_rect(geoms, *RECT)
    coords, offsets = ragged(lines)
    r = slabclip.clip_lines(coords, offsets, RECT)
    assert R.wrong_lines(coords, offsets, RECT, r) == {}  # ours is SPEC §7's exact answer
    counts = {"same bits": 0, "cut vertices a few ulps apart": 0,
              "boundary pieces dropped by shapely": 0, "degenerate line kept by shapely": 0,
              "graze within SPEC §1's allowance": 0}
    for g, (a, b) in enumerate(zip(ours, theirs)):
        pa, pb = _geom_parts(a), _geom_parts(b)
        assert [p.tobytes() for p in pa] == [p.tobytes() for p in parts_of(r, g)]
        tol = 8 * np.finfo(float).eps * max(1.0, float(np.abs(lines[g]).max()))
        if len(pa) == len(pb) and all(p.tobytes() == q.tobytes() for p, q in zip(pa, pb)):
            counts["same bits"] += 1
        elif _close(pa, pb, tol):
            # Both within a few ulps of the exact cut (ours checked exactly above): rounding.
            counts["cut vertices a few ulps apart"] += 1
        elif not pa and all((p == p[0]).all() for p in pb):
            # A polyline whose vertices are all one point is a point of contact (SPEC §7),
            # dropped by default; GEOS keeps the degenerate LineString.
            counts["degenerate line kept by shapely"] += 1
        elif _close(_without_boundary_pieces(pa, RECT), pb, tol):
            # The rect is closed (SPEC §7): a piece along its boundary is inside; GEOS drops
            # it and splits the line there (and so drops a zero-length segment on the edge).
            counts["boundary pieces dropped by shapely"] += 1
        elif R.exact_line(lines[g], RECT, np.finfo(float).eps / 2).graze:
            # A segment with both ends outside whose exact piece is within a few ulps of t
            # (a corner graze, or -1e300 → 1e300 whose piece is 1e-300 of its length): SPEC §1
            # allows a hit, a touch or a miss there.
            counts["graze within SPEC §1's allowance"] += 1
        else:
            pytest.fail(f"unexplained difference at {g}: {lines[g].tolist()}: {a} vs {b}")
        assert not isinstance(b, (shapely.Point, shapely.MultiPoint))  # shapely drops touches too
    print(kind, counts)
    assert counts["same bits"] > len(lines) // 3
    if kind == "adversarial":
        assert counts["boundary pieces dropped by shapely"] > 0


def test_clip_by_rect_types_missing_empty_points_and_shapes():
    L = shapely.LineString
    M = shapely.MultiLineString
    geoms = np.array([
        L([(-1, 0.5), (2, 0.5)]),                           # one part
        M([[(-1, 0.5), (2, 0.5)], [(0.2, 0.2), (0.3, 0.3)]]),  # two parts
        L([(2, 2), (3, 3)]),                                # outside
        None,                                               # missing
        L(),                                                # empty line
        shapely.Point(),                                    # empty non-line: passes
        L([(-1, 1), (0, 1)]),                               # touches a corner
        L([(-1, 1), (0, 1), (0.5, 0.5)]),                   # touches, then a part
        M([[(2, 2), (3, 3)], [(-1, 0.5), (2, 0.5)]]),       # one of two lines hits
    ], dtype=object)
    out = slabclip.clip_by_rect(geoms, *RECT)
    assert [None if g is None else g.wkt for g in out] == [
        "LINESTRING (0 0.5, 1 0.5)",
        "MULTILINESTRING ((0 0.5, 1 0.5), (0.2 0.2, 0.3 0.3))",
        "GEOMETRYCOLLECTION EMPTY", None, "GEOMETRYCOLLECTION EMPTY",
        "GEOMETRYCOLLECTION EMPTY", "GEOMETRYCOLLECTION EMPTY",
        "LINESTRING (0 1, 0.5 0.5)",
        "LINESTRING (0 0.5, 1 0.5)",
    ]
    pts = slabclip.clip_by_rect(geoms, *RECT, points=True)
    assert pts[6].wkt == "POINT (0 1)"
    assert pts[7].wkt == "LINESTRING (0 1, 0.5 0.5)"  # the touch continues into the part
    touch_and_part = slabclip.clip_by_rect(L([(0.5, 0.5), (0.5, 2), (2, 2), (1, 1.5), (1, 1)]), *RECT,
                                           points=True)
    assert touch_and_part.wkt == "GEOMETRYCOLLECTION (LINESTRING (0.5 0.5, 0.5 1), POINT (1 1))"
    # A scalar in, a scalar out; a 2-D array keeps its shape; the same as shapely on these.
    assert slabclip.clip_by_rect(geoms[0], *RECT).wkt == "LINESTRING (0 0.5, 1 0.5)"
    grid = slabclip.clip_by_rect(geoms[:8].reshape(2, 4), *RECT)
    assert grid.shape == (2, 4) and grid[1, 3].wkt == "LINESTRING (0 1, 0.5 0.5)"
    assert slabclip.clip_by_rect([], *RECT).shape == (0,)


def test_geoseries_in_geoseries_out():
    gpd = pytest.importorskip("geopandas")
    rng = np.random.default_rng(13)
    lines = walks(rng, 200, 10)
    gs = gpd.GeoSeries([shapely.LineString(v) for v in lines], index=[f"r{k}" for k in range(200)],
                       crs="EPSG:3857", name="roads")
    gs.iloc[5] = None
    out = slabclip.clip_by_rect(gs, *RECT)
    assert isinstance(out, gpd.GeoSeries)
    assert out.index.equals(gs.index) and out.crs == gs.crs and out.name == "roads"
    assert out.iloc[5] is None
    want = slabclip.clip_by_rect(np.asarray(gs.values, dtype=object), *RECT)
    assert all((a is None and b is None) or a.equals_exact(b, 0) for a, b in zip(out.values, want))
    with pytest.raises(TypeError, match=r"position 3 \(index 'r3'\) is a Point"):
        g2 = gs.copy()
        g2.iloc[3] = shapely.Point(0.5, 0.5)
        slabclip.clip_by_rect(g2, *RECT)
    # Tiles: one row per (geometry, cell), labelled by the source's index.
    t = slabclip.tile_geometries(gs, (0, 0, 1, 1), (2, 2))
    assert isinstance(t, gpd.GeoDataFrame) and t.crs == gs.crs
    assert list(t.columns) == ["row", "ix", "iy", "geometry"]
    assert set(t["row"]) <= set(gs.index)
    coords, offsets = ragged([lines[k] for k in range(200) if k != 5])
    r = slabclip.tile_lines(coords, offsets, (0, 0, 1, 1), (2, 2))
    assert int(sum(len(_geom_parts(g)) for g in t.geometry)) == len(r["polyline"])


def test_tile_geometries_arrays():
    t = slabclip.tile_geometries(
        [shapely.LineString([(0.5, 0.5), (1.5, 0.5), (1.5, 0.25), (0.5, 0.25)]), None],
        (0, 0, 2, 1), (2, 1))
    assert [g.wkt for g in t["geometry"]] == [
        "MULTILINESTRING ((0.5 0.5, 1 0.5), (1 0.25, 0.5 0.25))",
        "LINESTRING (1 0.5, 1.5 0.5, 1.5 0.25, 1 0.25)"]
    assert t["row"].tolist() == [0, 0] and t["ix"].tolist() == [0, 1] and t["iy"].tolist() == [0, 0]


def _made_one_by_one(parts, pts):
    """What a geometry of these parts and points of contact is, by shapely's constructors."""
    lines = [shapely.LineString(p) for p in parts]
    points = [shapely.Point(p) for p in pts]
    g_lines = None if not lines else lines[0] if len(lines) == 1 else shapely.MultiLineString(lines)
    g_pts = None if not points else points[0] if len(points) == 1 else shapely.MultiPoint(points)
    if g_lines is not None and g_pts is not None:
        return shapely.GeometryCollection([g_lines, g_pts])
    return g_lines or g_pts or shapely.GeometryCollection()


@pytest.fixture(params=["geos", "wkb"])
def made_by(request, monkeypatch):
    """The shapely answers made both ways: straight by shapely's GEOS, and through WKB (as
    where that GEOS cannot be reached)."""
    from slabclip import _native
    if request.param == "geos":
        assert _native.shapely_geos(), "shapely 2 on Linux reaches its GEOS"
    else:
        monkeypatch.setattr(_native, "shapely_geos", lambda: False)
    return request.param


@pytest.mark.parametrize("points", [False, True])
def test_shapely_answers_are_the_ragged_answers_made_one_by_one(points, made_by):
    # Lines on a lattice of halves: corners touched, vertices on edges, several parts, several
    # points of contact in one geometry, MultiLineStrings; -0.0 kept.
    rng = np.random.default_rng(29)
    lines = [rng.integers(-2, 5, (int(rng.integers(2, 9)), 2)) / 2.0 for _ in range(400)]
    lines[0] = np.array([[-0.0, 0.5], [0.5, -0.0], [0.5, 0.5]])
    lines[2] = np.array([[-0.5, -0.5], [0, 0], [-0.5, 0.5], [-0.5, 1.5], [0, 1], [-0.5, 1.5]])
    lines[3] = np.array([[1.5, -0.5], [1, 0], [1.5, 0.5]])
    geoms = np.array([shapely.LineString(v) for v in lines], dtype=object)
    multi = np.array([shapely.MultiLineString([lines[k], lines[k + 1]])
                      for k in range(0, len(lines), 2)], dtype=object)
    coords, offsets = ragged(lines)
    r = slabclip.clip_lines(coords, offsets, RECT, points=points)
    po = r["offsets"]
    for source, per in ((geoms, 1), (multi, 2)):
        got = slabclip.clip_by_rect(source, *RECT, points=points)
        for g in range(len(source)):
            own = range(per * g, per * g + per)
            parts = [r["coords"][po[k]:po[k + 1]] for k in np.flatnonzero(np.isin(r["polyline"], own))]
            pts = r["points"][np.isin(r["point_polyline"], own)] if points else []
            want = _made_one_by_one(parts, pts)
            assert shapely.to_wkb(got[g]) == shapely.to_wkb(want), (g, got[g].wkt, want.wkt)
    kinds = {type(g).__name__ for g in slabclip.clip_by_rect(multi, *RECT, points=points)}
    assert {"LineString", "MultiLineString", "GeometryCollection"} <= kinds
    assert not points or {"Point", "MultiPoint"} <= kinds
    # Tiles: each (geometry, cell) row is that cell's parts and points in order along the
    # geometry (for MultiLineStrings, polyline by polyline), one row for every (geometry, cell)
    # that gets anything, rows by geometry then cell.
    for source, per in ((geoms, 1), (multi, 2)):
        t = slabclip.tile_geometries(source, (0, 0, 1, 1), (2, 2), points=points)
        r = slabclip.tile_lines(coords, offsets, (0, 0, 1, 1), (2, 2), points=points)
        po = r["offsets"]
        owner, p_owner = r["polyline"] // per, r["point_polyline"] // per if points else []
        rows = list(zip(t["row"].tolist(), (t["iy"] * 2 + t["ix"]).tolist()))
        assert rows == sorted(set(rows))
        every = set(zip(owner.tolist(), (r["iy"] * 2 + r["ix"]).tolist()))
        if points:
            every |= set(zip(p_owner.tolist(), (r["point_iy"] * 2 + r["point_ix"]).tolist()))
        assert set(rows) == every
        for g, row, ix, iy in zip(t["geometry"], t["row"], t["ix"], t["iy"]):
            mine = np.flatnonzero((owner == row) & (r["ix"] == ix) & (r["iy"] == iy))
            pts = []
            if points:
                pts = r["points"][(p_owner == row) & (r["point_ix"] == ix) & (r["point_iy"] == iy)]
            want = _made_one_by_one([r["coords"][po[k]:po[k + 1]] for k in mine], pts)
            assert shapely.to_wkb(g) == shapely.to_wkb(want), (row, ix, iy, g.wkt, want.wkt)


@pytest.mark.parametrize("wkb", [False, True])
def test_parts_geometries_checks_every_index(wkb):
    from slabclip import _native
    xy, offs = np.array([[0.0, 0], [1, 1], [2, 2], [3, -0.0]]), np.array([0, 2, 4], np.int64)
    ok = _native.parts_geometries(xy, offs, None, np.array([0, 1], np.int64), 2, wkb=wkb)
    ok = shapely.from_wkb(ok) if wkb else ok
    assert [g.geom_type for g in ok] == ["LineString", "LineString"]
    assert shapely.get_coordinates(ok).tobytes() == xy.tobytes()  # -0.0 kept
    bad = {
        "owner beyond n": (None, [0, 2], 2, "not a geometry index below 2"),
        "owner negative": (None, [-1, 0], 2, "not a geometry index"),
        "owner decreasing": (None, [1, 0], 2, "nondecreasing"),
        "owner too short": (None, [0], 2, "1 entries for 2 parts"),
        "part beyond": ([0, 2], [0, 1], 2, "parts\\[1\\] = 2 is not a part index"),
        "part negative": ([0, -1], [0, 1], 2, "parts\\[1\\] = -1 is not a part index"),
    }
    for name, (parts, owner, n, msg) in bad.items():
        parts = None if parts is None else np.array(parts, np.int64)
        with pytest.raises(ValueError, match=msg):
            _native.parts_geometries(xy, offs, parts, np.array(owner, np.int64), n, wkb=wkb)
    with pytest.raises(ValueError, match="spans vertices 2..9"):
        _native.parts_geometries(xy, np.array([0, 2, 9], np.int64), None,
                                 np.array([0, 1], np.int64), 2, wkb=wkb)
    with pytest.raises(ValueError, match="points and point_owner come together"):
        _native.parts_geometries(xy, offs, None, np.array([0, 1], np.int64), 2, xy, wkb=wkb)
    with pytest.raises(ValueError, match="point_owner\\[2\\] = 0 follows 1"):
        _native.parts_geometries(xy, offs, None, np.array([0, 1], np.int64), 2, xy,
                                 np.array([0, 1, 0, 1], np.int64), wkb=wkb)


def test_parts_geometries_one_vertex_part_is_an_error_not_a_crash():
    # A part of one vertex is no LineString to GEOS: the direct path says which, and frees
    # what it had made of the geometry (the MultiLineString's first part).
    from slabclip import _native
    xy = np.array([[0.0, 0], [1, 1], [2, 2]])
    with pytest.raises(ValueError, match="LineString of vertices 2..3"):
        _native.parts_geometries(xy, np.array([0, 2, 3], np.int64), None,
                                 np.array([0, 0], np.int64), 1)


# ---------------------------------------------------------------------------------------------
# GeoArrow.


def _ga():
    pytest.importorskip("pyarrow")
    return pytest.importorskip("geoarrow.pyarrow")


@pytest.mark.parametrize("coord_type", ["interleaved", "separated"])
@pytest.mark.parametrize("multi", [False, True])
def test_geoarrow_in_geoarrow_out(coord_type, multi):
    ga = _ga()
    import pyarrow as pa

    rng = np.random.default_rng(14)
    lines = walks(rng, 300, 8) + adversarial(rng, 100)
    lines = [v for v in lines if len(v) >= 2 and np.isfinite(v).all()]
    geoms = [shapely.LineString(v) for v in lines]
    if multi:
        geoms = [shapely.MultiLineString(geoms[k:k + 3]) for k in range(0, len(geoms), 3)]
    geoms[4] = None
    typ = ga.multilinestring() if multi else ga.linestring()
    ct = ga.CoordType.INTERLEAVED if coord_type == "interleaved" else ga.CoordType.SEPARATED
    arr = ga.as_geoarrow(ga.as_wkb(pa.array([None if g is None else g.wkb for g in geoms], pa.binary())),
                         type=typ.with_coord_type(ct))
    out = slabclip.clip_geoarrow(arr, RECT)
    assert out.type.extension_name == "geoarrow.multilinestring" and len(out) == len(geoms)
    assert out.is_null().to_pylist() == [g is None for g in geoms]
    want = slabclip.clip_by_rect(np.array(geoms, dtype=object), *RECT)
    got = ga.to_geopandas(out).values
    for a, b in zip(got, want):
        if b is None:
            assert a is None
        else:
            assert [p.tobytes() for p in _geom_parts(a)] == [p.tobytes() for p in _geom_parts(b)]
    # A slice (offsets starting above 0) and a chunked array (the stream interface).
    sl = slabclip.clip_geoarrow(arr.slice(7, 50), RECT)
    assert ga.to_geopandas(sl).to_wkb().tolist() == ga.to_geopandas(out.slice(7, 50)).to_wkb().tolist()
    ch = slabclip.clip_geoarrow(pa.chunked_array([arr.slice(0, 10), arr.slice(10)]), RECT)
    assert isinstance(ch, pa.ChunkedArray) and ch.num_chunks == 2
    assert ga.to_geopandas(ch).to_wkb().tolist() == ga.to_geopandas(out).to_wkb().tolist()


def test_geoarrow_from_geopandas_to_arrow_keeps_the_crs_and_reads_in_place():
    gpd = pytest.importorskip("geopandas")
    _ga()
    import pyarrow as pa

    gs = gpd.GeoSeries([shapely.LineString([(-1, 0.5), (2, 0.5)]), None,
                        shapely.LineString([(0.2, 0.2), (0.4, 0.4), (3, 3)])], crs="EPSG:3857")
    for interleaved in (True, False):
        a = gs.to_arrow(geometry_encoding="geoarrow", interleaved=interleaved)
        out = slabclip.clip_geoarrow(a, RECT)
        back = gpd.GeoSeries.from_arrow(out)
        assert back.crs == gs.crs and back.iloc[1] is None
        assert back.iloc[0].wkt == "MULTILINESTRING ((0 0.5, 1 0.5))"
        # (0.4, 0.4) → (3, 3) is cut at x = 1 exactly; its y is §1's rounded value.
        want = slabclip.clip_by_rect(gs, *RECT)
        assert shapely.get_coordinates(back.iloc[2]).tobytes() == \
            shapely.get_coordinates(want.iloc[2]).tobytes()
    # The coordinates handed to the kernel are the Arrow buffer itself.
    arr = pa.Array._import_from_c_capsule(*gs.to_arrow(geometry_encoding="geoarrow").__arrow_c_array__())
    child = arr.storage.values
    xy = slabclip.lines._coords_of(child, pa)
    assert xy.ctypes.data == child.values.buffers()[1].address


# ---------------------------------------------------------------------------------------------
# dask.


def test_dask_geoseries_on_a_two_worker_local_cluster():
    dgpd = pytest.importorskip("dask_geopandas")
    gpd = pytest.importorskip("geopandas")
    from distributed import Client, LocalCluster

    import slabclip.dask

    rng = np.random.default_rng(15)
    lines = walks(rng, 2000, 20) + adversarial(rng, 500)
    lines = [v for v in lines if len(v) >= 2]
    gs = gpd.GeoSeries([shapely.LineString(v) for v in lines], crs="EPSG:3857")
    want = slabclip.clip_by_rect(gs, *RECT)
    want_t = slabclip.tile_geometries(gs, (0, 0, 1, 1), (3, 3))
    d = dgpd.from_geopandas(gs, npartitions=5)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        lazy = slabclip.dask.clip_by_rect(d, *RECT)
        got = lazy.compute()
        got_t = slabclip.dask.tile_geometries(d, (0, 0, 1, 1), (3, 3)).compute()
    assert got.index.equals(want.index) and got.crs == want.crs
    assert got.to_wkb().tolist() == want.to_wkb().tolist()
    assert got_t.reset_index(drop=True).to_wkb().equals(want_t.to_wkb())
    with pytest.raises(ValueError, match="invalid rect"):
        slabclip.dask.clip_by_rect(d, 1, 0, 0, 1)  # at the call, before any task


# ---------------------------------------------------------------------------------------------
# The benchmark script on a tiny input.


def test_bench_lines_runs(tmp_path):
    import importlib.util
    import json

    from conftest import REPO

    spec = importlib.util.spec_from_file_location("bench_lines", REPO / "python" / "bench" / "bench_lines.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "lines.json"
    assert mod.main(["--lines", "300", "--vertices", "20", "--repeat", "1", "--check", "40",
                     "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["wrong"]["slabclip ragged"] == 0 and got["wrong"]["slabclip shapely"] == 0
    for name, fig in got["figures"].items():
        assert fig["mvert_per_s"] > 0, name
