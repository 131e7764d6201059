"""slabclip.Scene, lidar_rays, cast_segments' methods and slabclip.dask.cast: bit for bit against
the brute force (cast_segments(method="brute-force")) on random and adversarial scenes, line of
sight against an exact rational reference and against the visibility polygons, thread counts,
pickling, ragged polylines, bad arguments, and the docstrings' examples."""

import doctest
import math
import pickle
import pydoc
import sys
import threading
from fractions import Fraction

import numpy as np
import pytest

import slabclip
import slabclip.scene
from conftest import same_bits

OUTS = ("t", "s", "index", "nx", "ny")
DTYPES = [np.float32, np.float64]


def brute(rays, walls, t_max=math.inf):
    return slabclip.cast_segments(rays, walls, t_max=t_max, method="brute-force")


def assert_same(got, want, what=""):
    assert list(got) == list(want), what
    for k in want:
        assert same_bits(got[k], want[k]), f"{what} {k}: first difference at " + str(
            np.flatnonzero(np.ascontiguousarray(got[k]).view(np.uint8).reshape(len(got[k]), -1).any(1)
                           != np.ascontiguousarray(want[k]).view(np.uint8).reshape(len(want[k]), -1).any(1))[:3])


def check(walls, rays, t_max=math.inf, threads=None):
    """Scene.cast and any_hit against the brute force, with each index; returns the hit
    count."""
    want = None
    for index in INDICES:
        scene = slabclip.Scene(walls, index=index)
        if want is None:
            want = brute(rays, scene.walls, t_max)
        got = scene.cast(rays, t_max=t_max, threads=threads)
        assert_same(got, want, f"{len(walls)} walls, t_max {t_max}, index {index}")
        hit = scene.any_hit(rays, t_max=t_max, threads=threads)
        assert same_bits(hit, want["index"] >= 0), index
    return int((want["index"] >= 0).sum())


INDICES = ("auto", "tree", "grid")


# ------------------------------------------------------------------------------------------
# Scenes


def city(n_blocks, dtype, seed=1):
    """Building outlines: rectangles on a grid of blocks, some turned, some with doors."""
    rng = np.random.default_rng(seed)
    walls = []
    for bx in range(n_blocks):
        for by in range(n_blocks):
            cx, cy = bx * 10 + 5 + rng.uniform(-1, 1), by * 10 + 5 + rng.uniform(-1, 1)
            w, h = rng.uniform(3, 8, 2)
            a = 0.0 if rng.random() < 0.7 else rng.uniform(-0.1, 0.1)
            c, s = math.cos(a), math.sin(a)
            pts = [(cx + c * x - s * y, cy + s * x + c * y)
                   for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]
            for k in range(4):
                walls.append([*pts[k], *pts[(k + 1) % 4]])
    return np.array(walls, dtype=dtype)


def random_rays(n, lo, hi, dtype, seed=2):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([rng.uniform(lo, hi, n), rng.uniform(lo, hi, n),
                            np.cos(a), np.sin(a)]).astype(dtype)


def adversarial(dtype, seed):
    """Walls on a small integer grid (exact products, many ties) with zero-length, NaN, ±inf,
    collinear, shared-endpoint and crossing walls; rays through endpoints, along walls,
    grazing, of zero direction and non-finite; scaled to huge or tiny magnitudes."""
    rng = np.random.default_rng(seed)
    scale = rng.choice([1.0, 1.0, 1e-3, 1e6, 1e-30, 1e20, 2.0 ** -45])
    m = int(rng.integers(1, 90))
    walls = rng.integers(-6, 7, size=(m, 4)).astype(np.float64)
    k = rng.random(m)
    walls[k < 0.1, 2:] = walls[k < 0.1, :2]  # zero length
    walls[(k >= 0.1) & (k < 0.15), 1] = np.nan
    walls[(k >= 0.15) & (k < 0.18), 2] = np.inf
    col = (k >= 0.18) & (k < 0.35)  # collinear along y = 1, overlapping
    walls[col, 1] = walls[col, 3] = 1.0
    for i in np.flatnonzero((k >= 0.35) & (k < 0.5))[1:]:  # shares an endpoint with the previous
        walls[i, :2] = walls[i - 1, 2:]
    n = int(rng.integers(1, 200))
    rays = np.empty((n, 4))
    ends = np.concatenate([walls[:, :2], walls[:, 2:]])
    for i in range(n):
        o = rng.integers(-8, 9, 2).astype(np.float64)
        kind = rng.integers(0, 6)
        if kind == 0:  # through an endpoint
            d = ends[rng.integers(len(ends))] - o
        elif kind == 1:  # along y = 1
            o[1] = 1.0
            d = np.array([rng.choice([-1.0, 1.0, 0.5]), 0.0])
        elif kind == 2:
            d = np.array([0.0, 0.0])
        elif kind == 3:
            d = np.array([np.nan, 1.0]) if rng.random() < 0.5 else np.array([np.inf, 0.0])
        else:
            d = rng.integers(-3, 4, 2).astype(np.float64)
        rays[i] = [*o, *d]
    with np.errstate(invalid="ignore", over="ignore"):
        walls, rays = (walls * scale).astype(dtype), (rays * scale).astype(dtype)
    t_max = float(rng.choice([np.inf, np.inf, 0.0, 0.5, 1.0, 3.0]))
    return walls, rays, t_max


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_and_city_scenes_are_the_brute_force(dtype):
    rng = np.random.default_rng(5)
    walls = rng.uniform(0, 100, (3000, 4)).astype(dtype)
    walls[:, 2:] = walls[:, :2] + rng.uniform(-3, 3, (3000, 2)).astype(dtype)
    assert check(walls, random_rays(4000, 0, 100, dtype)) > 1000
    assert check(walls, random_rays(2000, 0, 100, dtype, seed=3), t_max=2.5) > 100
    assert check(city(12, dtype), random_rays(4000, 0, 120, dtype)) > 2000


@pytest.mark.parametrize("dtype", DTYPES)
def test_adversarial_scenes_are_the_brute_force(dtype):
    hits = 0
    for seed in range(150):
        walls, rays, t_max = adversarial(dtype, seed)
        with np.errstate(invalid="ignore", over="ignore"):
            hits += check(walls, rays, t_max)
    assert hits > 1500


@pytest.mark.parametrize("dtype", DTYPES)
def test_named_edge_cases(dtype):
    nan, inf = np.nan, np.inf
    walls = np.array([
        [2, -1, 2, 1],      # 0: x = 2
        [2, -1, 2, 1],      # 1: the same wall again: ties go to 0
        [3, 0, 5, 0],       # 2: along the x axis (collinear with the first ray)
        [4, 4, 4, 4],       # 3: zero length, on the diagonal
        [nan, 0, 1, 1],     # 4: NaN: never hit
        [-inf, -5, inf, -5],  # 5: infinite: never hit
        [6, -1, 6, 1],      # 6
    ], dtype=dtype)
    rays = np.array([
        [0, 0, 1, 0],       # hits wall 0 at t = 2 (not 1, its twin)
        [2.5, 0, 1, 0],     # origin past x = 2, runs along wall 2: hit at its start, t = 0.5
        [0, 0, 1, 1],       # through the zero-length wall at (4, 4)
        [0, 1, 1, 0],       # through wall 0's endpoint (2, 1)
        [0, -5, 1, 0],      # along the infinite wall: miss
        [0, 0, 0, 0],       # zero direction: miss
        [nan, 0, 1, 0],     # NaN origin: miss
        [-0.0, -0.0, 1, 0],  # signed zeros
    ], dtype=dtype)
    scene = slabclip.Scene(walls)
    got = scene.cast(rays)
    assert_same(got, brute(rays, walls))
    assert got["index"].tolist() == [0, 2, 3, 0, -1, -1, -1, 0]
    assert got["t"][:4].tolist() == [2.0, 0.5, 4.0, 2.0]
    for t_max in (0.0, 0.5, 2.0, 1e30):
        assert_same(scene.cast(rays, t_max=t_max), brute(rays, walls, t_max))


def test_threads_one_and_two_give_the_same_bits():
    walls = city(15, np.float32)
    rays = random_rays(20_000, 0, 150, np.float32)
    scene = slabclip.Scene(walls)
    a, b = scene.cast(rays, threads=1), scene.cast(rays, threads=2)
    assert_same(a, b)
    assert_same(a, scene.cast(rays))
    assert same_bits(scene.any_hit(rays, threads=1), scene.any_hit(rays, threads=2))
    pairs = np.concatenate([rays[:, :2], rays[:, :2] + 20 * rays[:, 2:]], axis=1)
    assert same_bits(scene.line_of_sight(pairs, threads=1), scene.line_of_sight(pairs, threads=2))
    poses = np.column_stack([rays[:64, :2], rays[:64, 2]])
    angles = np.linspace(0, 2 * np.pi, 512, endpoint=False)
    la, lb = scene.lidar(poses, angles, threads=1), scene.lidar(poses, angles, threads=2)
    assert_same(la, lb)
    views = np.array([[x + 0.5, y + 0.5] for x in range(1, 140, 17) for y in range(1, 140, 23)])
    ca, oa = scene.visibility_polygons(views, (0, 0, 150, 150), threads=1)
    cb, ob = scene.visibility_polygons(views, (0, 0, 150, 150), threads=2)
    assert same_bits(ca, cb) and same_bits(oa, ob)


def test_gil_is_released_while_casting():
    scene = slabclip.Scene(city(40, np.float64))
    rays = random_rays(400_000, 0, 400, np.float64)
    counter, done, seen = [0], threading.Event(), {}

    def work():
        c0 = counter[0]
        scene.cast(rays, threads=1)
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


def test_out_buffers_are_written_in_place():
    walls = city(5, np.float64)
    rays = random_rays(500, 0, 50, np.float64)
    scene = slabclip.Scene(walls)
    out = {"t": np.empty(500), "index": np.empty(500, np.int64)}
    got = scene.cast(rays, out=out, outputs=())
    assert got["t"] is out["t"] and got["index"] is out["index"] and list(got) == ["t", "index"]
    want = brute(rays, walls)
    assert same_bits(out["t"], want["t"]) and same_bits(out["index"], want["index"])
    hit = np.zeros(500, bool)
    assert scene.any_hit(rays, out=hit) is hit and same_bits(hit, want["index"] >= 0)
    # Columns in, read in place.
    cols = {k: np.ascontiguousarray(rays[:, i]) for i, k in enumerate(("ox", "oy", "dx", "dy"))}
    assert_same(scene.cast(cols), want)


# ------------------------------------------------------------------------------------------
# cast_segments: the index by itself where it pays


@pytest.mark.parametrize("dtype", DTYPES)
def test_cast_segments_methods_agree_across_the_crossover(dtype):
    mw, mr = slabclip._native.INDEX_MIN_WALLS, slabclip._native.INDEX_MIN_RAYS
    assert (mw, mr) == (1024, 256)  # docs/guide/scenes.md's table
    base_walls = city(20, dtype)
    base_rays = random_rays(2 * mr, 0, 200, dtype)
    for m in (1, mw - 1, mw, mw + 1, len(base_walls)):
        for n in (1, mr - 1, mr, mr + 1, 2 * mr):
            walls, rays = base_walls[:m], base_rays[:n]
            want = brute(rays, walls)
            for method in ("auto", "scene"):
                assert_same(slabclip.cast_segments(rays, walls, method=method), want, f"{method} {m} {n}")
    for seed in range(40):
        walls, rays, t_max = adversarial(dtype, 500 + seed)
        walls = np.resize(walls, (max(len(walls), mw + seed % 3), 4))
        rays = np.resize(rays, (max(len(rays), mr + seed % 5), 4))
        with np.errstate(invalid="ignore", over="ignore"):
            want = brute(rays, walls, t_max)
            for method in ("auto", "scene"):
                assert_same(slabclip.cast_segments(rays, walls, t_max=t_max, method=method), want)


def test_cast_segments_docstring_says_it_indexes():
    doc = slabclip.cast_segments.__doc__
    assert "Scene" in doc and "method" in doc and "same bits" in doc
    with pytest.raises(ValueError, match="auto, brute-force, scene"):
        slabclip.cast_segments(np.zeros((1, 4)), np.zeros((1, 4)), method="bvh")
    with pytest.raises(TypeError, match="method"):
        slabclip.cast_segments(np.zeros((1, 4)), np.zeros((1, 4)), method=1)


# ------------------------------------------------------------------------------------------
# Line of sight


def orient(a, b, c):
    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (v > 0) - (v < 0)


def sight_reference(a, b, c, d, exclude_a, exclude_b):
    """Exact: 1 iff the wall c-d meets the closed segment a-b at a point that is not an
    excluded end (rationals; a different method from the library's)."""
    a, b, c, d = ([Fraction(float(v)) for v in p] for p in (a, b, c, d))
    if c == d:
        pts = [c] if orient(a, b, c) == 0 and min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) \
            and min(a[1], b[1]) <= c[1] <= max(a[1], b[1]) else []
    else:
        o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
        if o1 == 0 and o2 == 0:
            ax = 0 if abs(b[0] - a[0]) >= abs(b[1] - a[1]) else 1
            lo_ab, hi_ab = sorted((a, b), key=lambda p: p[ax])
            lo_cd, hi_cd = sorted((c, d), key=lambda p: p[ax])
            lo = max(lo_ab, lo_cd, key=lambda p: p[ax])
            hi = min(hi_ab, hi_cd, key=lambda p: p[ax])
            if lo[ax] > hi[ax]:
                pts = []
            elif lo[ax] < hi[ax]:
                return 1
            else:
                pts = [lo]
        elif o1 * o2 <= 0 and o3 * o4 <= 0:
            # The crossing point, exactly.
            den = (b[0] - a[0]) * (d[1] - c[1]) - (b[1] - a[1]) * (d[0] - c[0])
            t = ((c[0] - a[0]) * (d[1] - c[1]) - (c[1] - a[1]) * (d[0] - c[0])) / den
            pts = [(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))]
        else:
            pts = []
    for p in pts:
        if not ((exclude_a and tuple(p) == tuple(a)) or (exclude_b and tuple(p) == tuple(b))):
            return 1
    return 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_line_of_sight_against_the_exact_reference(dtype):
    rng = np.random.default_rng(3)
    for trial in range(20):
        m = int(rng.integers(1, 12))
        walls = rng.integers(-4, 5, (m, 4)).astype(dtype)
        z = rng.random(m) < 0.15
        walls[z, 2:] = walls[z, :2]
        n = 60
        a = rng.integers(-5, 6, (n, 2)).astype(dtype)
        b = rng.integers(-5, 6, (n, 2)).astype(dtype)
        ends = np.concatenate([walls[:, :2], walls[:, 2:]])
        b[::3] = ends[rng.integers(0, len(ends), len(b[::3]))]  # targets on wall ends
        a[1::4] = ends[rng.integers(0, len(ends), len(a[1::4]))]
        scene = slabclip.Scene(walls)
        for ea in (False, True):
            for eb in (False, True):
                got = scene.line_of_sight(a, b, exclude_a=ea, exclude_b=eb)
                for i in range(n):
                    if (a[i] == b[i]).all():
                        assert got[i] == slabclip.Sight.INVALID
                        continue
                    want = max(sight_reference(a[i], b[i], w[:2], w[2:], ea, eb) for w in walls)
                    assert got[i] == want, (trial, i, ea, eb, a[i], b[i], walls)


def test_line_of_sight_shapes_and_special_values():
    scene = slabclip.Scene(np.array([[2.0, -1.0, 2.0, 1.0], [np.nan, 0, 5, 5]]))
    pairs = np.array([[0, 0, 4, 0], [0, 0, 1, 0], [0, 0, 0, 0], [np.inf, 0, 1, 1], [0, 0, 2, 1]])
    want = [1, 0, 255, 255, 1]
    assert scene.line_of_sight(pairs).tolist() == want
    assert scene.line_of_sight(pairs[:, :2], pairs[:, 2:]).tolist() == want
    assert scene.line_of_sight(pairs[:, :2], pairs[:, 2:], exclude_b=True).tolist() == [1, 0, 255, 255, 0]
    assert scene.line_of_sight([0.0, 0.0], pairs[:, 2:]).tolist()[:2] == [1, 0]
    out = np.full(5, 7, np.uint8)
    assert scene.line_of_sight(pairs, out=out) is out and out.tolist() == want
    assert [slabclip.Sight(v).name for v in want[:3]] == ["BLOCKED", "VISIBLE", "INVALID"]


# ------------------------------------------------------------------------------------------
# Lidar and visibility


@pytest.mark.parametrize("dtype", DTYPES)
def test_lidar_is_its_rays_cast(dtype):
    scene = slabclip.Scene(city(8, dtype))
    rng = np.random.default_rng(4)
    poses = np.column_stack([rng.uniform(0, 80, (20, 2)), rng.uniform(-4, 4, 20)]).astype(dtype)
    angles = np.linspace(-np.pi, np.pi, 360, endpoint=False).astype(dtype)
    got = scene.lidar(poses, angles, max_range=30.0)
    assert got["t"].shape == (20, 360) and got["index"].dtype == np.int64
    rays = slabclip.lidar_rays(poses, angles)
    assert rays.shape == (20 * 360, 4) and rays.dtype == dtype
    want = scene.cast(rays, t_max=30.0)
    for k in OUTS:
        assert same_bits(got[k].reshape(-1), want[k]), k
    assert same_bits(brute(rays, scene.walls, 30.0)["t"], want["t"])
    # Columns, one pose, out arrays of shape (P, K).
    cols = {"x": poses[:, 0], "y": poses[:, 1], "heading": poses[:, 2]}
    out = {"t": np.empty((20, 360), dtype)}
    r = scene.lidar(cols, angles, max_range=30.0, out=out, outputs=())
    assert r["t"] is out["t"] and same_bits(out["t"], got["t"])
    one = scene.lidar(poses[3], angles, max_range=30.0, outputs=["t"])["t"]
    assert one.shape == (1, 360) and same_bits(one[0], got["t"][3])
    # Directions are unit vectors: t is the range.
    assert np.allclose(np.hypot(rays[:, 2], rays[:, 3]), 1, atol=4 * np.finfo(dtype).eps)


def test_visibility_polygons_agree_with_line_of_sight():
    shapely = pytest.importorskip("shapely")
    walls = city(4, np.float64)
    scene = slabclip.Scene(walls)
    bounds = (0.0, 0.0, 40.0, 40.0)
    rng = np.random.default_rng(8)
    views = np.array([[1.0, 1.0], [10.0, 0.5], [20.0, 20.0], [39.5, 5.0]])
    coords, offsets = scene.visibility_polygons(views, bounds)
    assert offsets[0] == 0 and offsets[-1] == len(coords) and len(offsets) == 5
    for i, v in enumerate(views):
        poly = coords[offsets[i]:offsets[i + 1]]
        assert same_bits(poly, scene.visibility_polygon(v, bounds))
        shape = shapely.Polygon(poly)
        assert shape.is_valid and shape.exterior.is_ccw
        pts = rng.uniform(0, 40, (3000, 2))
        inside = shapely.contains_xy(shape, pts[:, 0], pts[:, 1])
        margin = shapely.distance(shape.exterior, shapely.points(pts)) > 1e-6
        sight = scene.line_of_sight(v, pts)
        seen = sight == slabclip.Sight.VISIBLE
        assert (seen[margin] == inside[margin]).all(), i
        assert inside.sum() > 100
    # No walls: the rect itself, counter-clockwise from +x.
    empty = slabclip.Scene(np.empty((0, 4)))
    assert empty.visibility_polygon((1, 1), (0, 0, 2, 2)).tolist() == [[2, 2], [0, 2], [0, 0], [2, 0]]


# ------------------------------------------------------------------------------------------
# Polylines, refit, pickle


@pytest.mark.parametrize("odt", [np.int32, np.int64])
def test_from_lines_walls_and_their_vertices(odt):
    # A closed square, an empty polyline, a wall inside the square, and a vertex of no
    # polyline at the end.
    coords = np.array([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0], [1, 2], [3, 2], [9, 9]], float)
    offsets = np.array([0, 5, 5, 7], odt)
    scene = slabclip.Scene.from_lines(coords, offsets)
    assert len(scene) == 7
    w = scene.walls
    assert np.isnan(w[4]).all() and np.isnan(w[6]).all()
    assert w[5].tolist() == [1, 2, 3, 2] and w[1].tolist() == [4, 0, 4, 4]
    rays = np.array([[2, 1, 0, 1], [2, 3, 1, 0], [-1, 3, 1, 0], [2, 1, 0, -1], [10, 10, 1, 0]], float)
    hit = scene.cast(rays)
    assert hit["index"].tolist() == [5, 1, 3, 0, -1]
    line, vertex = scene.line_vertex(hit["index"])
    assert line.tolist() == [2, 0, 0, 0, -1] and vertex.tolist() == [0, 1, 3, 0, -1]
    assert_same(hit, brute(rays, w))
    with pytest.raises(ValueError, match="not a wall of any polyline"):
        scene.line_vertex([4])
    with pytest.raises(ValueError, match="from_lines"):
        slabclip.Scene(w).line_vertex([0])


def test_from_lines_takes_shapely_polygons():
    shapely = pytest.importorskip("shapely")
    polys = [shapely.box(0, 0, 2, 2), shapely.box(5, 0, 6, 8).buffer(0.5, quad_segs=2)]
    kind, coords, (rings, _) = shapely.to_ragged_array(polys)
    scene = slabclip.Scene.from_lines(coords, rings)
    hit = scene.cast(np.array([[1.0, 1.0, 1.0, 0.0], [3.0, 4.0, 1.0, 0.0]]))
    assert hit["t"][0] == 1.0 and scene.line_vertex(hit["index"])[0].tolist() == [0, 1]


BAD_LINES = {
    "decreasing": (np.zeros((4, 2)), [0, 3, 2, 4], "polyline 1"),
    "beyond": (np.zeros((4, 2)), [0, 5], "beyond"),
    "negative": (np.zeros((4, 2)), [-1, 2], "negative"),
    "single vertex": (np.zeros((4, 2)), [0, 2, 3, 4], "single vertex"),
    "no offsets": (np.zeros((4, 2)), np.array([], np.int64), "offsets"),
    "coords (V, 3)": (np.zeros((4, 3)), [0, 4], "coords must have shape (V, 2)"),
}


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_from_lines_bad_offsets_name_the_polyline(name):
    coords, offsets, words = BAD_LINES[name]
    with pytest.raises(ValueError) as e:
        slabclip.Scene.from_lines(coords, np.asarray(offsets, np.int64))
    assert words in str(e.value), str(e.value)
    with pytest.raises(TypeError, match="offsets must be int32 or int64"):
        slabclip.Scene.from_lines(np.zeros((4, 2)), np.array([0.0, 4.0]))


def test_refit_answers_as_a_new_scene():
    walls = city(6, np.float32)
    rays = random_rays(3000, 0, 60, np.float32)
    scene = slabclip.Scene(walls)
    rng = np.random.default_rng(1)
    for step in range(3):
        walls = walls + rng.normal(0, 0.3, walls.shape).astype(np.float32)
        if step == 2:
            walls[::17] = np.nan  # finite to not: rebuilt inside, same answers
        scene.refit(walls)
        assert_same(scene.cast(rays), brute(rays, walls))
        assert same_bits(scene.walls, walls)
    with pytest.raises(ValueError, match="walls"):
        scene.refit(walls[:-1])
    assert same_bits(scene.walls, walls)  # left as it was
    lines = slabclip.Scene.from_lines(np.array([[0, 0], [4, 0], [4, 4]], float), [0, 3])
    lines.refit(coords=np.array([[0, 0], [5, 0], [5, 4]], float))
    assert lines.cast(np.array([[1, 1, 1, 0.0]]), outputs=["t"])["t"].tolist() == [4.0]
    with pytest.raises(ValueError, match="shape"):
        lines.refit(coords=np.zeros((4, 2)))
    with pytest.raises(ValueError, match="one of them"):
        lines.refit()


def test_pickle_sends_the_walls_and_rebuilds():
    walls = city(20, np.float32)
    scene = slabclip.Scene(walls)
    data = pickle.dumps(scene)
    # The walls (16 bytes each) and a little framing; not the index.
    assert len(data) < walls.nbytes + 1000 < scene.index_bytes
    before = slabclip.scene._unpickled
    back = pickle.loads(data)
    assert slabclip.scene._unpickled == before + 1
    rays = random_rays(2000, 0, 200, np.float32)
    assert_same(back.cast(rays), scene.cast(rays))
    assert back.dtype == np.float32 and len(back) == len(scene)
    lines = slabclip.Scene.from_lines(np.array([[0, 0], [4, 0], [4, 4]], float), [0, 3])
    back = pickle.loads(pickle.dumps(lines))
    assert back.offsets.tolist() == [0, 3] and back.line_vertex([1])[1].tolist() == [1]


def test_the_index_asked_for_is_built_and_kept_through_pickling():
    rng = np.random.default_rng(5)
    walls = rng.uniform(0, 100, (3000, 4))
    walls[:, 2:] = walls[:, :2] + rng.uniform(-3, 3, (3000, 2))
    rays = random_rays(1000, 0, 100, np.float64)
    tree, grid, auto = (slabclip.Scene(walls, index=i) for i in ("tree", "grid", "auto"))
    assert (tree.index, grid.index, auto.index) == ("tree", "grid", "auto")
    assert grid.has_grid and not tree.has_grid and not auto.has_grid
    assert grid.index_bytes > tree.index_bytes
    want = tree.cast(rays)
    for scene in (grid, auto):
        assert_same(scene.cast(rays), want)
    # 1,000 rays against 3,000 walls spread over their box: the automatic index pays.
    assert auto.has_grid and not tree.has_grid
    for scene in (tree, grid):
        back = pickle.loads(pickle.dumps(scene))
        assert back.index == scene.index and back.has_grid == scene.has_grid
        assert_same(back.cast(rays), want)
    lines = slabclip.Scene.from_lines(walls.reshape(-1, 2), np.arange(0, 6001, 2), index="grid")
    assert lines.index == "grid" and lines.has_grid
    got = lines.cast(rays)  # wall k of the lines is wall k / 2 of the rows, with NaN between
    assert same_bits(got["t"], want["t"])
    assert (got["index"] == np.where(want["index"] >= 0, 2 * want["index"], want["index"])).all()
    for bad in ("bvh", "", None, 1):
        with pytest.raises(ValueError, match="index must be 'auto', 'tree' or 'grid'"):
            slabclip.Scene(walls, index=bad)


# ------------------------------------------------------------------------------------------
# Bad arguments


SCENE = slabclip.Scene(np.array([[2.0, -1.0, 2.0, 1.0]]))
RAYS = np.array([[0.0, 0.0, 1.0, 0.0]])
COLS = {k: RAYS[:, i].copy() for i, k in enumerate(("ox", "oy", "dx", "dy"))}
BAD = {
    "walls (M, 3)": (lambda: slabclip.Scene(np.zeros((3, 3))), ValueError, "walls must have shape (N, 4)"),
    "walls strings": (lambda: slabclip.Scene(np.array([["a"] * 4])), TypeError, "walls"),
    "walls dtype": (lambda: slabclip.Scene(np.zeros((1, 4)), dtype=np.int32), TypeError, "dtype"),
    "rays (N, 2)": (lambda: SCENE.cast(np.zeros((3, 2))), ValueError, "rays must have shape"),
    "t_max nan": (lambda: SCENE.cast(RAYS, t_max=np.nan), ValueError, "t_max"),
    "t_max negative": (lambda: SCENE.any_hit(RAYS, t_max=-1), ValueError, "t_max"),
    "t_max string": (lambda: SCENE.cast(RAYS, t_max="far"), TypeError, "t_max"),
    "unknown output": (lambda: SCENE.cast(RAYS, outputs=["u"]), ValueError, "unknown output 'u'"),
    "out dtype": (lambda: SCENE.cast(RAYS, out={"t": np.empty(1, np.float32)}), TypeError, "out['t']"),
    "out shape": (lambda: SCENE.cast(RAYS, out={"index": np.empty(2, np.int64)}), ValueError, "out['index']"),
    "any_hit out dtype": (lambda: SCENE.any_hit(RAYS, out=np.empty(1, np.uint8)), TypeError, "out"),
    "out not an array": (lambda: SCENE.cast(RAYS, out={"s": [0.0]}), TypeError, "out['s']"),
    "out strided": (lambda: SCENE.cast(np.zeros((2, 4)), out={"t": np.empty(4)[::2]}), ValueError, "must be contiguous"),
    "out shares rays": (lambda: SCENE.cast(COLS, out={"t": COLS["ox"]}), ValueError, "share memory"),
    "threads 0": (lambda: SCENE.cast(RAYS, threads=0), ValueError, "threads must be an integer from 1"),
    "threads float": (lambda: SCENE.cast(RAYS, threads=1.5), TypeError, "threads"),
    "sight a (N, 3)": (lambda: SCENE.line_of_sight(np.zeros((2, 3)), np.zeros((2, 2))), ValueError, "a must have shape"),
    "sight lengths": (lambda: SCENE.line_of_sight(np.zeros((2, 2)), np.ones((3, 2))), ValueError, "same length"),
    "sight pairs (N, 2)": (lambda: SCENE.line_of_sight(np.zeros((2, 2))), ValueError, "pairs must have shape"),
    "sight out": (lambda: SCENE.line_of_sight(np.zeros((2, 4)), out=np.empty(2, np.int8)), TypeError, "out"),
    "poses (P, 2)": (lambda: SCENE.lidar(np.zeros((2, 2)), [0.0]), ValueError, "poses must have shape (P, 3)"),
    "poses keys": (lambda: SCENE.lidar({"x": [0.0], "y": [0.0]}, [0.0]), ValueError, "heading"),
    "pose columns lengths": (lambda: SCENE.lidar({"x": [0.0], "y": [0.0, 1.0], "heading": [0.0]}, [0.0]), ValueError, "y"),
    "angles 2-D": (lambda: SCENE.lidar([0.0, 0.0, 0.0], np.zeros((2, 2))), ValueError, "angles must be 1-D"),
    "max_range nan": (lambda: SCENE.lidar([0.0, 0.0, 0.0], [0.0], max_range=np.nan), ValueError, "t_max"),
    "lidar out shape": (lambda: SCENE.lidar([0.0, 0.0, 0.0], [0.0, 1.0], out={"t": np.empty(2)}), ValueError, "out['t']"),
    "viewpoint outside": (lambda: SCENE.visibility_polygon((5, 5), (0, 0, 4, 4)), ValueError, "viewpoint"),
    "viewpoint on a wall": (lambda: SCENE.visibility_polygon((2, 0), (-4, -4, 4, 4)), ValueError, "wall 0"),
    "viewpoint shape": (lambda: SCENE.visibility_polygon((1, 1, 1), (0, 0, 4, 4)), ValueError, "viewpoint must have shape"),
    "bounds zero area": (lambda: SCENE.visibility_polygon((1, 1), (0, 0, 4, 0)), ValueError, "zero area"),
    "bounds reversed": (lambda: SCENE.visibility_polygon((1, 1), (4, 0, 0, 4)), ValueError, "invalid rect"),
    "bounds of 3": (lambda: SCENE.visibility_polygon((1, 1), (0, 0, 4)), ValueError, "rect must be"),
    "viewpoints index": (lambda: SCENE.visibility_polygons([[1, 1], [9, 9]], (0, 0, 4, 4)), ValueError, "viewpoint 1"),
    "refit count": (lambda: SCENE.refit(np.zeros((2, 4))), ValueError, "walls"),
    "refit coords": (lambda: SCENE.refit(coords=np.zeros((2, 2))), ValueError, "from_lines"),
    "lidar_rays poses": (lambda: slabclip.lidar_rays(np.zeros((2, 4)), [0.0]), ValueError, "poses"),
    "f32 walls, too many": (lambda: slabclip.Scene(np.zeros(((1 << 24) + 1, 4), np.float32)), ValueError, "float32"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_arguments_name_the_argument(name):
    call, exc, words = BAD[name]
    with pytest.raises(exc) as e:
        call()
    assert words in str(e.value), str(e.value)


def test_rays_are_converted_to_the_scenes_dtype():
    s32 = slabclip.Scene(np.array([[2, -1, 2, 1]], np.float32))
    assert s32.dtype == np.float32
    got = s32.cast([[0, 0, 1, 0]])  # a list of ints
    assert got["t"].dtype == np.float32 and got["t"].tolist() == [2.0]
    s64 = slabclip.Scene(np.array([[2, -1, 2, 1]], np.float32), dtype=np.float64)
    assert s64.cast(np.array([[0, 0, 1, 0]], np.float32))["t"].dtype == np.float64
    assert repr(s64) == "<slabclip.Scene: 1 walls, float64>"


def test_empty_scene_and_empty_batches():
    empty = slabclip.Scene(np.empty((0, 4)))
    r = empty.cast(RAYS)
    assert r["index"].tolist() == [-1] and np.isnan(r["t"]).all()
    assert SCENE.cast(np.empty((0, 4)))["t"].shape == (0,)
    assert SCENE.any_hit(np.empty((0, 4))).shape == (0,)
    assert SCENE.line_of_sight(np.empty((0, 4))).shape == (0,)
    assert SCENE.lidar(np.empty((0, 3)), [0.0])["t"].shape == (0, 1)
    c, o = SCENE.visibility_polygons(np.empty((0, 2)), (0, 0, 4, 4))
    assert c.shape == (0, 2) and o.tolist() == [0]


# ------------------------------------------------------------------------------------------
# Docstrings


PUBLIC = [slabclip.Scene, slabclip.Scene.from_lines, slabclip.Scene.cast, slabclip.Scene.any_hit,
          slabclip.Scene.line_of_sight, slabclip.Scene.lidar, slabclip.Scene.visibility_polygon,
          slabclip.Scene.visibility_polygons, slabclip.Scene.refit, slabclip.lidar_rays,
          slabclip.cast_segments]


@pytest.mark.parametrize("f", PUBLIC, ids=lambda f: f.__qualname__)
def test_help_shows_parameters_errors_and_an_example(f):
    text = pydoc.render_doc(f, renderer=pydoc.plaintext)
    for word in ("Parameters", "Raises", "Example", ">>>"):
        assert word in text, f"{f.__qualname__}: no {word}"


def test_docstring_examples_run():
    import slabclip.dask

    for mod in (slabclip.scene, slabclip.dask):
        r = doctest.testmod(mod, extraglobs={"np": np, "math": math, "slabclip": slabclip},
                            optionflags=doctest.NORMALIZE_WHITESPACE)
        assert r.failed == 0 and r.attempted > 5, (mod.__name__, r)
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(slabclip.cast_segments, globs={"np": np, "cast_segments": slabclip.cast_segments}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0

# ------------------------------------------------------------------------------------------
# Dask


def test_dask_cast_is_the_in_memory_cast_on_the_threads_scheduler():
    import dask
    import dask.array as da
    import slabclip.dask

    scene = slabclip.Scene(city(10, np.float32))
    rays = random_rays(30_000, 0, 100, np.float64)
    want = scene.cast(rays)
    arr = da.from_array(rays, chunks=((5000, 12000, 13000), (2, 2)))
    got = slabclip.dask.cast(arr, scene)
    assert all(isinstance(v, da.Array) for v in got.values()) and got["t"].dtype == np.float32
    with dask.config.set(scheduler="threads"):
        computed = dask.compute(got)[0]
    assert_same(computed, want)
    # The scene is one key of the graph, which every block's task depends on.
    graph = dict(got["t"].__dask_graph__())
    held = [k for k, v in graph.items() if "Scene" in repr(v)[:400] and "cast_block" not in repr(v)[:400]]
    assert len(held) <= 1, held


DASK_BAD = {
    "rays (N, 3)": (lambda s, da: slabclip.dask.cast(da.zeros((4, 3)), s), ValueError, "rays must have shape"),
    "not a scene": (lambda s, da: slabclip.dask.cast(da.zeros((4, 4)), "walls"), TypeError, "slabclip.Scene"),
    "output": (lambda s, da: slabclip.dask.cast(da.zeros((4, 4)), s, outputs=["q"]), ValueError, "unknown output"),
    "t_max": (lambda s, da: slabclip.dask.cast(da.zeros((4, 4)), s, t_max=-1), ValueError, "t_max"),
    "threads": (lambda s, da: slabclip.dask.cast(da.zeros((4, 4)), s, threads=0), ValueError, "threads"),
}


@pytest.mark.parametrize("name", list(DASK_BAD))
def test_dask_cast_checks_its_arguments_at_the_call(name):
    import dask.array as da
    import slabclip.dask

    call, exc, words = DASK_BAD[name]
    with pytest.raises(exc) as e:
        call(SCENE, da)
    assert words in str(e.value), str(e.value)


def _unpickled():
    import slabclip.scene

    return slabclip.scene._unpickled


def test_dask_cast_ships_the_scene_once_per_worker_on_a_local_cluster():
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster
    import slabclip.dask

    scene = slabclip.Scene(city(12, np.float64))
    rays = random_rays(40_000, 0, 120, np.float64, seed=9)
    want = scene.cast(rays)
    arr = da.from_array(rays, chunks=(2500, 4))  # 16 blocks
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        here = _unpickled()  # the client's process, which also runs the LocalCluster's scheduler
        got = slabclip.dask.cast(arr, scene)
        computed = dask.compute(got)[0]  # the five outputs in one computation
        counts = client.run(_unpickled)
        on_scheduler = client.run_on_scheduler(_unpickled) - here
    assert_same(computed, want)
    # Every worker built the scene from its pickle once (the scatter), not once per block (8
    # each) or per output; the scheduler never did. distributed may deserialize a scattered
    # value once more when it moves a copy between workers (seen once on a loaded machine),
    # so a second build is allowed, an eighth is not.
    assert all(1 <= c <= 2 for c in counts.values()) and len(counts) == 2, counts
    assert on_scheduler == 0
