"""Segments through a regular grid of cells (`grid_pieces`) and through many rects
(`clip_rect_set`): against clipping every cell and every rect one by one, and bit for bit
against the command line."""

import numpy as np
import pytest

import slabclip
from slabclip import Class
from conftest import run_cli, same_bits, specials

DTYPES = [np.float32, np.float64]
# Boundaries 0, 0.25, ..., 2 along x and 0, 0.25, ..., 1 along y: exact in both dtypes, and
# the `specials` land on them, their corners and just beside them.
BOUNDS, CELLS = (0.0, 0.0, 2.0, 1.0), (8, 4)
HITS = [Class.INSIDE, Class.ENTERS, Class.EXITS, Class.CROSSES, Class.TOUCHES]


def cell_rect(ix, iy):
    (x0, y0, x1, y1), (nx, ny) = BOUNDS, CELLS
    return (x0 + (x1 - x0) * ix / nx, y0 + (y1 - y0) * iy / ny,
            x0 + (x1 - x0) * (ix + 1) / nx, y0 + (y1 - y0) * (iy + 1) / ny)


def segments(dtype):
    return np.concatenate([specials(dtype, 3000), 2 * slabclip.workload("tracks", 3000, dtype=dtype)])


def rows(cols, names):
    """The pieces as sortable tuples of bits."""
    return sorted(zip(*(cols[k].view(f"u{cols[k].itemsize}") if cols[k].dtype.kind == "f" else cols[k]
                        for k in names)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_grid_pieces_are_the_clips_of_every_cell(dtype):
    segs = segments(dtype)
    p = slabclip.grid_pieces(segs, BOUNDS, CELLS)
    want = {k: [] for k in ("segment", "ix", "iy", "t_entry", "t_exit", "class")}
    for ix in range(CELLS[0]):
        for iy in range(CELLS[1]):
            r = slabclip.clip(segs, cell_rect(ix, iy))
            hit = np.flatnonzero(np.isin(r["class"], HITS))
            for k, v in (("segment", hit), ("ix", np.full(len(hit), ix)), ("iy", np.full(len(hit), iy)),
                         ("t_entry", r["t_entry"][hit]), ("t_exit", r["t_exit"][hit]), ("class", r["class"][hit])):
                want[k].append(v)
    want = {k: np.concatenate(v).astype(p[k].dtype) for k, v in want.items()}
    names = ("segment", "ix", "iy", "t_entry", "t_exit", "class")
    assert len(p["segment"]) > 10_000
    got, want = rows(p, names), rows(want, names)
    # Every cell's clip is a piece; the grid adds only the slivers SPEC section 1's graze allowance
    # lets a clip drop (Grid::cell_clip): crossings within 2 eps of the segment's end.
    extra = sorted(set(got) - set(want))
    assert set(want) <= set(got)
    top = dtype(1) - 4 * np.finfo(dtype).eps
    for r in extra:
        t_entry = np.array([r[3]], dtype=f"u{np.dtype(dtype).itemsize}").view(dtype)[0]
        assert r[5] == Class.CROSSES and t_entry >= top, r
    # In segment order, and along each segment: entries never go back.
    seg, te = p["segment"], p["t_entry"].astype(np.float64)
    assert np.all(np.diff(seg) >= 0)
    same = seg[1:] == seg[:-1]
    assert np.all(te[1:][same] >= te[:-1][same])


@pytest.mark.parametrize("dtype", DTYPES)
def test_grid_options_and_threads(dtype):
    segs = segments(dtype)
    closed = slabclip.grid_pieces(segs, BOUNDS, CELLS, threads=1)
    assert np.any(closed["class"] == Class.TOUCHES)
    no_touch = slabclip.grid_pieces(segs, BOUNDS, CELLS, touches=False, threads=2)
    keep = closed["class"] != Class.TOUCHES
    for k in closed:
        assert same_bits(no_touch[k], closed[k][keep]), k
    half = slabclip.grid_pieces(segs, BOUNDS, CELLS, half_open=True)
    # Half-open cells: each point of a segment in exactly one cell, so fewer pieces, and
    # a subset of the closed cells' pieces.
    assert 0 < len(half["segment"]) < len(closed["segment"])
    names = ("segment", "ix", "iy")
    assert set(rows(half, names)) <= set(rows(closed, names))
    cols = {k: segs[:, i].copy() for i, k in enumerate(("x0", "y0", "x1", "y1"))}
    rec = slabclip.grid_pieces(cols, BOUNDS, CELLS, structured=True, threads=2)
    assert rec.dtype.names == ("segment", "ix", "iy", "t_entry", "t_exit", "class")
    for k in closed:
        assert same_bits(rec[k], closed[k]), k


@pytest.mark.parametrize("dtype", DTYPES)
def test_grid_pieces_match_slabclip_clip_grid(tmp_path, slabclip_bin, dtype):
    segs = segments(dtype)
    src, dst = tmp_path / "in.npy", tmp_path / "pieces.npz"
    np.save(src, segs)
    for flags, kw in [((), {}), (("--half-open", "--no-touches"), {"half_open": True, "touches": False})]:
        run_cli(slabclip_bin, "clip", "--quiet", "--grid", ",".join(map(repr, BOUNDS)),
                "--cells", ",".join(map(str, CELLS)), *flags, src, "-o", dst)
        want, got = np.load(dst), slabclip.grid_pieces(segs, BOUNDS, CELLS, **kw)
        assert set(want.files) == set(got)
        for k in got:
            assert same_bits(got[k], want[k]), (flags, k)


def test_bad_grids_raise():
    segs = specials(np.float32, 10)
    with pytest.raises(ValueError, match="cells"):
        slabclip.grid_pieces(segs, BOUNDS, (0, 4))
    with pytest.raises(ValueError, match="cells"):
        slabclip.grid_pieces(segs, BOUNDS, (8,))
    with pytest.raises(ValueError, match="extent"):
        slabclip.grid_pieces(segs, (0, 0, 0, 1), (8, 4))
    with pytest.raises(ValueError, match="too narrow"):
        slabclip.grid_pieces(segs, (1, 0, 1.0000001, 1), (1000, 4))
    with pytest.raises(ValueError, match="rect"):
        slabclip.grid_pieces(segs, (0, 0, 1), (8, 4))


@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_rect_set_is_clip_grid(dtype):
    rng = np.random.default_rng(11)
    segs = np.concatenate([specials(dtype, 2000), slabclip.workload("road-like", 20_000, dtype=dtype)])
    lo = rng.uniform(-0.2, 1.1, (3000, 2))
    size = rng.uniform(0.0, 0.05, (3000, 2))
    rects = np.concatenate([lo, lo + size], axis=1).astype(dtype)
    rects[:200] = (rng.integers(0, 9, (200, 4)) / 8).astype(dtype)  # grid-aligned, some degenerate
    rects[:200, 2:] = np.maximum(rects[:200, 2:], rects[:200, :2])
    want = slabclip.clip_grid(segs, rects, threads=1)
    assert len(want["segment"]) > 1000
    for threads in (1, 2):
        got = slabclip.clip_rect_set(segs, rects, threads=threads)
        assert list(got) == list(want)
        for k in want:
            assert same_bits(got[k], want[k]), (threads, k)
    rec = slabclip.clip_rect_set(segs, rects, structured=True)
    assert rec.dtype.names == tuple(want)
    assert same_bits(rec["t_entry"], want["t_entry"])
    with pytest.raises(ValueError, match="rects row 1"):
        slabclip.clip_rect_set(segs, np.array([[0, 0, 1, 1], [1, 0, 0, 1]], dtype))
