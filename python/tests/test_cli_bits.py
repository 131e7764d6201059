"""Bit for bit against the Rust library's command line (`slabclip clip`, `slabclip cast`) on
the same `.npy` files, at run time: never against stored numbers."""

import numpy as np
import pytest

import slabclip
from conftest import run_cli, same_bits, specials

RECTS = [(0.0, 0.0, 1.0, 1.0), (-0.25, 0.5, 0.75, 0.5), (0.1, 0.2, 0.3, 0.9)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("algorithm", ["auto", "liang-barsky", "sector-lut", "cohen-sutherland", "hybrid"])
def test_clip_matches_slabclip_clip(tmp_path, slabclip_bin, dtype, algorithm):
    segs = np.concatenate([specials(dtype, 3001), slabclip.workload("mixed", 150_000, dtype=dtype)])
    src = tmp_path / "in.npy"
    np.save(src, segs)
    for rect in RECTS:
        r = slabclip.clip(segs, rect, algorithm=algorithm, outputs=("t_entry", "t_exit", "class", "segments"))
        for emit, want in [("t", np.stack([r["t_entry"], r["t_exit"]], axis=1)),
                           ("class", r["class"]),
                           ("segments", np.ascontiguousarray(r["segments"]))]:
            dst = tmp_path / f"{emit}.npy"
            run_cli(slabclip_bin, "clip", "--quiet", "--rect", ",".join(map(repr, rect)),
                    "--algorithm", algorithm, "--emit", emit, src, "-o", dst)
            assert same_bits(np.load(dst), want), (rect, emit)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_casts_match_slabclip_cast(tmp_path, slabclip_bin, dtype):
    rng = np.random.default_rng(5)
    rays = np.concatenate([rng.uniform(-2, 3, (5000, 4)), (rng.integers(-4, 9, (2000, 4)) / 4)]).astype(dtype)
    rays[::97, 2:] = 0  # D = (0, 0): invalid
    walls = rng.uniform(-1, 2, (40, 4)).astype(dtype)
    src, wfile, dst = tmp_path / "rays.npy", tmp_path / "walls.npy", tmp_path / "hits.npz"
    np.save(src, rays)
    np.save(wfile, walls)

    for t_max in ("inf", "1.5"):
        run_cli(slabclip_bin, "cast", "--rect", "0,0,1,1", "--t-max", t_max, src, "-o", dst)
        want, got = np.load(dst), slabclip.cast_rect(rays, (0, 0, 1, 1), t_max=float(t_max))
        for k in ("t_entry", "t_exit", "class"):
            assert same_bits(got[k], want[k]), k
        run_cli(slabclip_bin, "cast", "--segments", wfile, "--t-max", t_max, src, "-o", dst)
        want, got = np.load(dst), slabclip.cast_segments(rays, walls, t_max=float(t_max))
        for k in ("t", "s", "nx", "ny"):
            assert same_bits(got[k], want[k]), k
        # One convention for a miss: int64 -1 in Python and in the file alike.
        assert got["index"].dtype == want["index"].dtype == np.int64
        assert same_bits(got["index"], want["index"])
        assert (got["index"] == -1).any() and (got["index"] == slabclip.NO_HIT).sum() == np.isnan(got["t"]).sum()
        for exit in (False, True):
            run_cli(slabclip_bin, "cast", "--polygon", "0,0 2,0 2.5,1 1,2 0,1", "--t-max", t_max,
                    *(["--exit"] if exit else []), src, "-o", dst)
            want = np.load(dst)
            got = slabclip.cast_polygon(rays, [[0, 0], [2, 0], [2.5, 1], [1, 2], [0, 1]],
                                        t_max=float(t_max), exit=exit)
            for k in ("t", "x", "y", "nx", "ny"):
                assert same_bits(got[k], want[k]), k
            assert got["edge"].dtype == want["edge"].dtype == np.int64
            assert same_bits(got["edge"], want["edge"])
            assert (got["edge"] == -1).any() and not (got["edge"] < -1).any()
            # Flags: bool in Python, uint8 0/1 in the file; the same bytes.
            assert got["inside"].dtype == np.bool_ and want["inside"].dtype == np.uint8
            assert same_bits(got["inside"].view(np.uint8), want["inside"])
    # Columns give the same answers as rows, and threads change nothing.
    cols = {k: rays[:, i].copy() for i, k in enumerate(("ox", "oy", "dx", "dy"))}
    a = slabclip.cast_segments(rays, walls, threads=1)
    b = slabclip.cast_segments(cols, {k: walls[:, i].copy() for i, k in enumerate(("x0", "y0", "x1", "y1"))},
                               threads=2)
    for k in a:
        assert same_bits(a[k], b[k])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_polygon_of_a_rect_is_the_rect_clip_on_grid_points(dtype):
    # On a coarse grid every decision is exact, so a rect given as a polygon gives the same
    # classes as the rect clip, and the same exact 0 / 1 ends.
    rng = np.random.default_rng(9)
    segs = (rng.integers(-4, 9, (20000, 4)) / 4).astype(dtype)
    poly = slabclip.clip_polygon(segs, [[0, 0], [1, 0], [1, 1], [0, 1]], outputs=("t_entry", "t_exit", "class", "segments"))
    rect = slabclip.clip(segs, (0, 0, 1, 1))
    assert same_bits(poly["class"], rect["class"])
    for k in ("t_entry", "t_exit"):
        assert same_bits(poly[k] == 0, rect[k] == 0) and same_bits(poly[k] == 1, rect[k] == 1)
