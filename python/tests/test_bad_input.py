"""Bad input raises ValueError/TypeError with the library's message; nothing crashes."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import slabclip
from slabclip import Class

RECT = (0.0, 0.0, 1.0, 1.0)
SEGS = np.array([[-1.0, 0.5, 2.0, 0.5]] * 3)
RAYS = np.array([[-1.0, 0.5, 1.0, 0.0]] * 3)
SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
ro = SEGS.copy()
ro.flags.writeable = False
O = np.empty(3)
COLS = {k: SEGS[:, i].copy() for i, k in enumerate(("x0", "y0", "x1", "y1"))}
RAY_COLS = {k: RAYS[:, i].copy() for i, k in enumerate(("ox", "oy", "dx", "dy"))}
BLOCK = np.zeros((3, 4))

# (call, exception, words in the message)
CASES = {
    "1-D segments": (lambda: slabclip.clip(np.zeros(4), RECT), ValueError, "shape (N, 4)"),
    "(N, 3) segments": (lambda: slabclip.clip(np.zeros((2, 3)), RECT), ValueError, "shape (N, 4)"),
    "3-D segments": (lambda: slabclip.clip(np.zeros((2, 4, 1)), RECT), ValueError, "shape (N, 4)"),
    "complex dtype": (lambda: slabclip.clip(SEGS.astype(complex), RECT), TypeError, "real numbers"),
    "string dtype": (lambda: slabclip.clip(np.array([["a"] * 4]), RECT), TypeError, "real numbers"),
    "object dtype": (lambda: slabclip.clip(np.array([[None] * 4]), RECT), TypeError, "real numbers"),
    "columns of different lengths": (lambda: slabclip.clip({"x0": np.zeros(3), "y0": np.zeros(3), "x1": np.zeros(2), "y1": np.zeros(3)}, RECT),
                                     ValueError, "length mismatch: x1 has 2 elements, expected 3"),
    "2-D column": (lambda: slabclip.clip(dict.fromkeys(("x0", "y0", "x1", "y1"), np.zeros((3, 1))), RECT), ValueError, "1-D"),
    "a column missing": (lambda: slabclip.clip({"x0": np.zeros(3), "y0": np.zeros(3), "x1": np.zeros(3)}, RECT), ValueError, "missing y1"),
    "four unnamed columns": (lambda: slabclip.clip((np.zeros(3),) * 4, RECT), ValueError, "got shape (4, 3); four columns are passed by name"),
    "ragged rows": (lambda: slabclip.clip([[0, 0, 1, 1], [0, 0, 1]], RECT), ValueError, "cannot be read as an (N, 4) array"),
    "NaN rect": (lambda: slabclip.clip(SEGS, (0, 0, np.nan, 1)), ValueError, "invalid rect"),
    "inf rect": (lambda: slabclip.clip(SEGS, (0, 0, np.inf, 1)), ValueError, "invalid rect"),
    "xmin > xmax": (lambda: slabclip.clip(SEGS, (2, 0, 1, 1)), ValueError, "invalid rect"),
    "rect too big for float32": (lambda: slabclip.clip(SEGS.astype(np.float32), (0, 0, 1e300, 1)), ValueError, "invalid rect"),
    "rect of 3": (lambda: slabclip.clip(SEGS, (0, 0, 1)), ValueError, "rect must be"),
    "unknown algorithm": (lambda: slabclip.clip(SEGS, RECT, algorithm="fast"), ValueError, "unknown algorithm \"fast\""),
    "unknown output": (lambda: slabclip.clip(SEGS, RECT, outputs=("t",)), ValueError, "unknown output"),
    "out of wrong length": (lambda: slabclip.clip(SEGS, RECT, out={"t_entry": np.empty(2)}), ValueError, "shape (3,)"),
    "out of wrong dtype": (lambda: slabclip.clip(SEGS, RECT, out={"t_entry": np.empty(3, np.float32)}), TypeError, "dtype float64"),
    "non-contiguous out": (lambda: slabclip.clip(SEGS, RECT, out={"t_exit": np.empty(6)[::2]}), ValueError, "contiguous"),
    "threads=0": (lambda: slabclip.clip(SEGS, RECT, threads=0), ValueError, "threads must be an integer from 1 to 256, got 0"),
    "threads='2'": (lambda: slabclip.clip(SEGS, RECT, threads="2"), TypeError, "threads"),
    "threads=2.0": (lambda: slabclip.clip(SEGS, RECT, threads=2.0), TypeError, "threads must be an integer"),
    "threads=True": (lambda: slabclip.clip(SEGS, RECT, threads=True), TypeError, "threads must be an integer"),
    "threads=-1": (lambda: slabclip.cast_rect(RAYS, RECT, threads=-1), ValueError, "threads must be an integer from 1 to 256, got -1"),
    "threads=10**9": (lambda: slabclip.clip(SEGS, RECT, threads=10**9), ValueError, "threads must be an integer from 1 to 256"),
    "threads=2**64": (lambda: slabclip.clip_grid(SEGS, np.array([RECT]), threads=2**64), ValueError, "threads must be an integer from 1 to 256"),
    "threads=257 (numpy int)": (lambda: slabclip.clip_polygon(SEGS, SQUARE, threads=np.int64(257)), ValueError, "from 1 to 256, got 257"),
    "pairwise rects too few": (lambda: slabclip.clip_pairwise(SEGS, np.array([[0, 0, 1, 1]] * 2)), ValueError, "length mismatch: rects has 2 elements, expected 3"),
    "pairwise bad rect row": (lambda: slabclip.clip_pairwise(SEGS, np.array([[0, 0, 1, 1], [0, 0, 1, 1], [1, 0, 0, 1]])), ValueError, "rects row 2: invalid rect"),
    "grid rects (M, 3)": (lambda: slabclip.clip_grid(SEGS, np.zeros((2, 3))), ValueError, "shape (M, 4)"),
    "in place read-only": (lambda: slabclip.clip_in_place(ro, RECT), ValueError, "read-only"),
    "in place int": (lambda: slabclip.clip_in_place(np.zeros((2, 4), int), RECT), TypeError, "float32 or float64"),
    "in place list": (lambda: slabclip.clip_in_place([[0, 0, 1, 1]], RECT), TypeError, "numpy"),
    "in place read-only column": (lambda: slabclip.clip_in_place(dict(zip(("x0", "y0", "x1", "y1"), (ro[:, k] for k in range(4)))), RECT), ValueError, "segments x0"),
    "in place tuple of columns": (lambda: slabclip.clip_in_place(tuple(SEGS.T.copy()), RECT), TypeError, "dict of four numpy columns"),
    "non-convex polygon": (lambda: slabclip.cast_polygon(RAYS, [[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]), ValueError, "invalid polygon"),
    "two-vertex polygon": (lambda: slabclip.clip_polygon(SEGS, [[0, 0], [1, 1]]), ValueError, "invalid polygon"),
    "NaN polygon": (lambda: slabclip.clip_polygon(SEGS, [[0, 0], [1, np.nan], [1, 1]]), ValueError, "invalid polygon"),
    "polygon (K, 3)": (lambda: slabclip.clip_polygon(SEGS, np.zeros((4, 3))), ValueError, "(K, 2)"),
    "negative t_max": (lambda: slabclip.cast_rect(RAYS, RECT, t_max=-1), ValueError, "t_max"),
    "NaN t_max": (lambda: slabclip.cast_segments(RAYS, SEGS, t_max=np.nan), ValueError, "t_max"),
    "rays (N, 2)": (lambda: slabclip.cast_rect(np.zeros((3, 2)), RECT), ValueError, "shape (N, 4)"),
    "workload name": (lambda: slabclip.workload("nope", 10), ValueError, "unknown workload"),
    # Outputs that alias each other or an input: both named.
    "one array for two outputs": (lambda: slabclip.clip(SEGS, RECT, out={"t_entry": O, "t_exit": O}), ValueError,
                                  "out['t_entry'] and out['t_exit'] share memory"),
    "an input column as out": (lambda: slabclip.clip(COLS, RECT, out={"t_exit": COLS["y1"]}), ValueError,
                               "out['t_exit'] and segments share memory"),
    "input rows under out": (lambda: slabclip.clip(BLOCK, RECT, out={"t_entry": BLOCK.reshape(-1)[4:7]}), ValueError,
                             "out['t_entry'] and segments share memory"),
    "a ray column as out": (lambda: slabclip.cast_rect(RAY_COLS, RECT, out={"t_entry": RAY_COLS["dx"]}), ValueError,
                            "out['t_entry'] and rays share memory"),
    "cast_segments out on walls": (lambda: slabclip.cast_segments(RAYS, COLS, out={"t": COLS["x0"]}), ValueError,
                                   "out['t'] and segments share memory"),
    "clip_polygon out segments over input": (lambda: slabclip.clip_polygon(COLS, SQUARE, out={"segments": np.asfortranarray(np.stack(list(COLS.values()), axis=1)), "t_entry": COLS["x1"]}),
                                             ValueError, "out['t_entry'] and segments share memory"),
    "in place: one column twice": (lambda: slabclip.clip_in_place({"x0": O, "y0": O, "x1": COLS["x1"], "y1": COLS["y1"]}, RECT), ValueError,
                                   "segments['x0'] and segments['y0'] share memory"),
    "in place: class_out over segments": (lambda: slabclip.clip_in_place(BLOCK, RECT, class_out=BLOCK.view(np.uint8).reshape(-1)[:3]), ValueError,
                                          "segments and class_out share memory"),
    # out= and outputs= of the wrong kind.
    "out=[arr]": (lambda: slabclip.clip(SEGS, RECT, out=[O]), TypeError, "out= must be a dict of output names to numpy arrays"),
    "out of a list": (lambda: slabclip.clip(SEGS, RECT, out={"t_entry": [0.0] * 3}), TypeError, "out['t_entry'] must be a numpy array"),
    "outputs=5": (lambda: slabclip.clip(SEGS, RECT, outputs=5), TypeError, "outputs must be a sequence of output names"),
    "outputs of ints": (lambda: slabclip.cast_rect(RAYS, RECT, outputs=(1,)), TypeError, "outputs must be output names"),
    # Numbers out of range or of the wrong type, each named with its range.
    "workload n=-1": (lambda: slabclip.workload("mixed", -1), ValueError, "n must be an integer from 0 to 1099511627776, got -1"),
    "workload n=2**70": (lambda: slabclip.workload("mixed", 2**70), ValueError, "n must be an integer from 0 to"),
    "workload n=1.5": (lambda: slabclip.workload("mixed", 1.5), TypeError, "n must be an integer"),
    "workload seed=-1": (lambda: slabclip.workload("mixed", 3, seed=-1), ValueError, "seed must be an integer from 0 to 18446744073709551615"),
    "workload name=3": (lambda: slabclip.workload(3, 10), TypeError, "name must be a str, one of: mixed"),
    "grid cells 2**63": (lambda: slabclip.grid_pieces(SEGS, RECT, (2**63, 1)), ValueError, "each from 1 to 16777216; got (9223372036854775808, 1)"),
    "grid cells -1": (lambda: slabclip.grid_pieces(SEGS, RECT, (-1, 4)), ValueError, "each from 1 to 16777216"),
    "grid cells floats": (lambda: slabclip.grid_pieces(SEGS, RECT, (1.5, 2)), ValueError, "two integers (nx, ny)"),
    "grid cells not a pair": (lambda: slabclip.grid_pieces(SEGS, RECT, 4), TypeError, "two integers (nx, ny)"),
    "algorithm=3": (lambda: slabclip.clip(SEGS, RECT, algorithm=3), TypeError, "algorithm must be a str, one of: liang-barsky"),
    "algorithm=None in place": (lambda: slabclip.clip_in_place(SEGS.copy(), RECT, algorithm=None), TypeError, "algorithm must be a str"),
    "t_max='far'": (lambda: slabclip.cast_rect(RAYS, RECT, t_max="far"), TypeError, "t_max must be a number"),
    "t_max=None": (lambda: slabclip.cast_polygon(RAYS, SQUARE, t_max=None), TypeError, "t_max must be a number"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises(name):
    call, exc, words = CASES[name]
    with pytest.raises(exc) as e:
        call()
    assert words in str(e.value), str(e.value)


def test_one_output_name_alone_is_that_output():
    assert list(slabclip.clip(SEGS, RECT, outputs="class")) == ["class"]


def test_read_only_out_array():
    out = np.zeros(3, np.uint8)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        slabclip.clip(SEGS, RECT, out={"class": out})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_inputs_give_empty_outputs(dtype):
    e = np.empty((0, 4), dtype)
    for r in [slabclip.clip(e, RECT, outputs=("t_entry", "t_exit", "class", "segments")),
              slabclip.clip_pairwise(e, np.empty((0, 4))),
              slabclip.cast_rect(e, RECT), slabclip.cast_segments(e, e),
              slabclip.cast_polygon(e, [[0, 0], [1, 0], [0, 1]]),
              slabclip.clip_polygon(e, [[0, 0], [1, 0], [0, 1]])]:
        assert all(len(v) == 0 for v in r.values())
    assert len(slabclip.clip_grid(e, np.array([[0, 0, 1, 1]]))["segment"]) == 0
    assert slabclip.clip_in_place(e.copy(), RECT, return_class=True).shape == (0,)
    # rays against an empty segment set: every ray misses
    r = slabclip.cast_segments(np.array([[0, 0, 1, 0]], dtype), e)
    assert r["index"][0] == slabclip.NO_HIT and np.isnan(r["t"][0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_non_finite_is_invalid_not_an_error(dtype):
    s = np.array([[np.nan, 0, 1, 1], [0, np.inf, 1, 1], [0, 0, -np.inf, 1], [0.5, 0.5, 0.5, 0.5]], dtype)
    for algorithm in slabclip.algorithms():
        r = slabclip.clip(s, RECT, algorithm=algorithm)
        assert list(r["class"]) == [Class.INVALID] * 3 + [Class.INSIDE]
        assert np.isnan(r["t_entry"][:3]).all() and np.isnan(r["t_exit"][:3]).all()
    rays = np.array([[0, 0, 0, 0], [np.nan, 0, 1, 0], [0.5, 0.5, np.inf, 0]], dtype)
    assert list(slabclip.cast_rect(rays, RECT)["class"]) == [Class.INVALID] * 3
    assert (slabclip.cast_polygon(rays, SQUARE)["edge"] == slabclip.NO_HIT).all()


finite = st.floats(allow_nan=True, allow_infinity=True, width=32)


@settings(max_examples=200, deadline=None)
@given(a=hnp.arrays(np.float32, st.tuples(st.integers(0, 40), st.just(4)), elements=finite),
       rect=st.tuples(*[st.floats(-2, 2, width=32)] * 4),
       algorithm=st.sampled_from(slabclip.algorithms()))
def test_random_arrays_meet_the_contract_or_raise_value_error(a, rect, algorithm):
    try:
        r = slabclip.clip(a, rect, algorithm=algorithm)
    except ValueError as e:
        assert "invalid rect" in str(e)
        assert rect[0] > rect[2] or rect[1] > rect[3]
        return
    bad = slabclip.reference.violations(a, rect, r["t_entry"], r["t_exit"], r["class"])
    assert bad.sum() == 0
