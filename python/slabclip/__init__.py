"""slabclip: batch clipping of 2D segments against rectangles, exact at every edge and corner.

numpy arrays in and out. Segments are rows ``x0, y0, x1, y1``: anything ``np.asarray`` reads
as an ``(N, 4)`` array (an array, a list or tuple of rows), read exactly as numpy reads it, so
a list of four rows is four segments. Columns (the structure-of-arrays layout the SIMD kernels
read best) are passed by name only: a dict ``{"x0": ..., "y0": ..., "x1": ..., "y1": ...}`` of
1-D arrays (or anything with those keys: a pandas DataFrame, a numpy structured array). Rays
are rows ``ox, oy, dx, dy``, or columns by those names. ``float32`` and ``float64`` are
computed in their own precision.

*Zero copy*: a C-contiguous ``(N, 4)`` array (or contiguous columns, or a Fortran-ordered
``(N, 4)`` array, whose columns are contiguous) of ``float32``/``float64`` is read in place.
Anything else (another dtype such as integers, a strided view, big-endian data) is converted
once, as numpy functions do. Outputs are new arrays, or the arrays passed in ``out=``, written
in place. The kernels run with the GIL released; ``threads=N`` (1 to :data:`MAX_THREADS`)
runs the call in a pool of N threads (by default rayon's global pool, one thread per core),
``threads=1`` on the calling thread alone. The pool of the last ``threads=N`` asked for is kept
for the next call; another N builds its pool anew (0.1–0.2 ms measured on a loaded 2-core
AMD EPYC, against 0.04–0.05 ms for a whole call on 1,000 segments in a kept pool) and the old
one's threads end, so a process keeps no more threads than its last pool's. As in the Rust library,
only
``algorithm="auto"`` and the ray queries split a batch across threads; the results are the same
bits for any thread count.

Errors: a wrong shape, length, rect, polygon, algorithm name or output raises ``ValueError``
(with the library's message), a dtype that is not a real number ``TypeError``. NaN or ±inf
coordinates are not errors: such a segment is ``Class.INVALID`` with NaN parameters.

The contract (SPEC §1 of the repository): ``t_entry == 0`` exactly iff the start is in the
closed rect, ``t_exit == 1`` exactly iff the end is, NaN parameters on a miss, ``t`` within a
few ulps of the exact value, and clipped endpoints that lie exactly on the cutting edge and
never outside the rect.
"""

from __future__ import annotations

import enum
import math
from typing import Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _args, _native

__all__ = [
    "Class",
    "NO_HIT",
    "MAX_THREADS",
    "algorithms",
    "info",
    "simd_levels",
    "set_simd_level",
    "clip",
    "clip_pairwise",
    "clip_grid",
    "clip_rect_set",
    "grid_pieces",
    "clip_in_place",
    "cast_rect",
    "cast_segments",
    "cast_polygon",
    "clip_polygon",
    "workload",
    "reference",
    "Scene",
    "Sight",
    "lidar_rays",
]

__version__ = _native.info()["version"]

#: Index reported for "no segment / no edge" (a miss) by ``cast_segments`` and ``cast_polygon``:
#: ``-1`` in their ``int64`` ``index`` / ``edge`` outputs, as in the ``.npz`` files of
#: ``slabclip cast`` (numpy's "no index"; the Rust library's ``u32`` outputs use ``u32::MAX``).
NO_HIT: int = _native.NO_HIT

#: The most threads ``threads=`` may ask for: a fixed cap (not a multiple of the CPU count), so
#: that a script that runs on one machine runs on every other.
MAX_THREADS: int = _args.MAX_THREADS

ArrayLike = Union[np.ndarray, Sequence]
Segments = Union[np.ndarray, Sequence, Mapping[str, ArrayLike]]
RectLike = Sequence[float]

#: The names of the columns of segments (and of clipped segments), and of rays.
_SEGMENT_COLUMNS = ("x0", "y0", "x1", "y1")
_RAY_COLUMNS = ("ox", "oy", "dx", "dy")


class Class(enum.IntEnum):
    """How a segment meets the rect: the ``uint8`` codes of the ``class`` output."""

    OUTSIDE = 0
    """The clip is empty."""
    INSIDE = 1
    """The whole segment is in the rect (``t_entry == 0``, ``t_exit == 1``)."""
    ENTERS = 2
    """Starts outside, ends inside."""
    EXITS = 3
    """Starts inside, ends outside."""
    CROSSES = 4
    """Both ends outside, a piece of positive length inside."""
    TOUCHES = 5
    """Meets the rect in one point only (``t_entry == t_exit``)."""
    INVALID = 255
    """Some coordinate is NaN or ±inf."""


def algorithms() -> list:
    """The algorithm names ``algorithm=`` accepts: every concrete algorithm, then ``"auto"``.

    Example
    -------
    >>> "simd-slab" in algorithms() and algorithms()[-1] == "auto"
    True
    """
    return list(_native.algorithms())


def info() -> dict:
    """What this build is and runs on: a dict with ``version``, the algorithms and what
    ``auto`` does, the SIMD level the extension's code outside the kernels was built for
    (``simd_built``), the best this CPU supports (``simd_cpu``) and the one the kernels run at
    (``simd_runs``; the environment variable ``SLABCLIP_SIMD=v1|v3|v4`` lowers it), lanes per
    vector, and the number of threads of rayon's global pool (``threads``).

    Example
    -------
    >>> sorted(k for k in info() if k.startswith("simd"))
    ['simd_built', 'simd_cpu', 'simd_runs']
    """
    return dict(_native.info())


def simd_levels() -> list:
    """The SIMD levels this CPU runs, lowest first: ``"v1"`` (x86-64's SSE2, or the portable
    vectors of other architectures), then ``"v3"`` (AVX2 and FMA) and ``"v4"`` (AVX-512) where
    the CPU has them. Every level gives the same bits; the best runs unless lowered.

    Raises
    ------
    Nothing: every CPU runs ``"v1"``.

    Example
    -------
    >>> simd_levels()[0]
    'v1'
    """
    return list(_native.simd_levels())


def set_simd_level(level: str) -> None:
    """Run the kernels at ``level`` (``"v1"``, ``"v3"`` or ``"v4"``) from now on, in this
    process: the call form of the environment variable ``SLABCLIP_SIMD``, to compare levels or
    to rule one out. The answers are the same bits at every level.

    Raises
    ------
    ValueError
        ``level`` is no level's name, or this CPU lacks it (nothing changes then).

    Example
    -------
    >>> best = simd_levels()[-1]
    >>> set_simd_level("v1"); info()["simd_runs"].split()[0]
    'v1'
    >>> set_simd_level(best)
    """
    _native.set_simd_level(level)


# --------------------------------------------------------------------------------------------
# Arguments to the arrays the extension takes.


def _float_dtype(dtypes: Iterable[np.dtype], what: str) -> np.dtype:
    """float32 when every input is float32, else float64; TypeError for non-real dtypes."""
    dtypes = list(dtypes)
    for dt in dtypes:
        if dt.kind not in "biuf":
            raise TypeError(f"{what} must hold real numbers (float32 or float64), got dtype {dt}")
    if dtypes and all(dt.kind == "f" and dt.itemsize == 4 for dt in dtypes):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _columns(x, names: Tuple[str, str, str, str], what: str):
    """The four named columns of a mapping (a dict, a pandas DataFrame, anything with
    ``keys()``) or of a numpy structured array, else None: the one explicit way to pass
    columns."""
    if isinstance(x, np.ndarray):
        if x.dtype.names is None:
            return None
        keys = x.dtype.names
    elif isinstance(x, Mapping) or callable(getattr(x, "keys", None)):
        keys = list(x.keys())
    else:
        return None
    missing = [k for k in names if k not in keys]
    if missing:
        raise ValueError(
            f"{what} as columns needs the keys {', '.join(names)}; missing {', '.join(missing)}"
        )
    return [np.asarray(x[k]) for k in names]


def _rows_or_columns(x: Segments, what: str, dtype: Optional[np.dtype] = None, rays: bool = False):
    """Rows (anything else, read as ``np.asarray`` reads it: an ``(N, 4)`` array, a list of
    rows, ...) or named columns (:func:`_columns`), as the extension takes them: one
    C-contiguous 2-D array, or a tuple of four contiguous 1-D arrays, all of one float dtype.
    No copy when the input already is so."""
    names = _RAY_COLUMNS if rays else _SEGMENT_COLUMNS
    cols = _columns(x, names, what)
    if cols is not None:
        for name, c in zip(names, cols):
            if c.ndim != 1:
                raise ValueError(f"{what} column {name} must be 1-D, got shape {c.shape}")
        dt = dtype or _float_dtype((c.dtype for c in cols), what)
        return tuple(np.ascontiguousarray(c, dtype=dt) for c in cols), dt, len(cols[0])
    try:
        a = np.asarray(x)
    except ValueError as e:  # ragged nesting
        raise ValueError(f"{what} cannot be read as an (N, 4) array: {e}") from None
    if a.ndim != 2 or a.shape[1] != 4:
        hint = ""
        if a.ndim == 2 and a.shape[0] == 4:
            hint = (f"; four columns are passed by name, as a dict "
                    f"{{{', '.join(repr(k) + ': ...' for k in names)}}}")
        raise ValueError(
            f"{what} must have shape (N, 4), rows {', '.join(names)}, got shape {a.shape}{hint}"
        )
    dt = dtype or _float_dtype([a.dtype], what)
    if a.dtype == dt and a.flags.f_contiguous and not a.flags.c_contiguous:
        # Fortran order: the columns are contiguous, the kernels' own layout.
        return tuple(a[:, k] for k in range(4)), dt, a.shape[0]
    return np.ascontiguousarray(a, dtype=dt), dt, a.shape[0]


def _rect(rect: RectLike) -> list:
    r = np.asarray(rect)
    if r.shape != (4,):
        raise ValueError(f"rect must be (xmin, ymin, xmax, ymax), got shape {r.shape}")
    _float_dtype([r.dtype], "rect")
    return [float(v) for v in r]


def _rects(rects: ArrayLike, dt: np.dtype) -> np.ndarray:
    r = np.asarray(rects)
    if r.ndim != 2 or r.shape[1] != 4:
        raise ValueError(f"rects must have shape (M, 4), got shape {r.shape}")
    _float_dtype([r.dtype], "rects")
    return np.ascontiguousarray(r, dtype=dt)


def _polygon(vertices: ArrayLike, dt: np.dtype) -> np.ndarray:
    v = np.asarray(vertices)
    if v.ndim != 2 or v.shape[1] != 2:
        raise ValueError(f"polygon vertices must have shape (K, 2), got shape {v.shape}")
    _float_dtype([v.dtype], "polygon")
    return np.ascontiguousarray(v, dtype=dt)


_threads = _args.threads


def _algorithm(algorithm) -> str:
    return _args.text(algorithm, "algorithm", algorithms())


def _out_array(a, name: str, dtype: np.dtype, n: int) -> np.ndarray:
    """A user's ``out=`` array for a 1-D output: exactly ``(n,)`` of ``dtype``, contiguous and
    writeable (it is written in place, never copied)."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"out[{name!r}] must be a numpy array, got {type(a).__name__}")
    if a.dtype != dtype:
        raise TypeError(f"out[{name!r}] must have dtype {dtype}, got {a.dtype}")
    if a.shape != (n,):
        raise ValueError(f"out[{name!r}] must have shape ({n},), got {a.shape}")
    if not a.flags.writeable:
        raise ValueError(f"out[{name!r}] is read-only")
    if not a.flags.c_contiguous:
        raise ValueError(f"out[{name!r}] must be contiguous")
    return a


def _outputs(
    kinds: Mapping[str, np.dtype],
    outputs: Iterable[str],
    out: Optional[Mapping[str, np.ndarray]],
    n: int,
    dt: np.dtype,
):
    """The requested outputs (``outputs`` plus the keys of ``out``), each the user's array or a
    new one; ``"segments"`` is ``(n, 4)`` and goes to the extension as four columns. Also the
    user's arrays the extension writes, by name, for :func:`_args.disjoint`."""
    out = _args.out_mapping(out)
    names = list(dict.fromkeys([*_args.output_names(outputs, kinds), *out]))
    for name in names:
        if name not in kinds:
            raise ValueError(f"unknown output {name!r} (expected one of: {', '.join(kinds)})")
    result, native, after, written = {}, {}, [], []
    for name in names:
        kind = kinds[name]
        if name == "segments":
            given = out.get(name)
            if given is None:
                # One row more than needed when n == 0: four empty views at distinct addresses
                # (the extension refuses outputs that share memory).
                cols = np.empty((4, max(n, 1)), dtype=dt)[:, :n]
                result[name] = cols.T  # (n, 4), rows of the clipped segments, no copy
            else:
                if not isinstance(given, np.ndarray):
                    raise TypeError("out['segments'] must be a numpy array")
                if given.dtype != dt:
                    raise TypeError(f"out['segments'] must have dtype {dt}, got {given.dtype}")
                if given.shape != (n, 4):
                    raise ValueError(f"out['segments'] must have shape ({n}, 4), got {given.shape}")
                if not given.flags.writeable:
                    raise ValueError("out['segments'] is read-only")
                if given.flags.f_contiguous:
                    cols = given.T
                    written.append(("out['segments']", tuple(cols)))
                else:
                    cols = np.empty((4, max(n, 1)), dtype=dt)[:, :n]
                    after.append((given, cols))
                result[name] = given
            native["clipped"] = tuple(cols[k] for k in range(4))
            continue
        dtype = dt if kind is None else np.dtype(kind)
        given = out.get(name)
        if name == "inside" and given is not None and given.dtype == np.bool_:
            arr = _out_array(given, name, np.dtype(np.bool_), n).view(np.uint8)
            result[name] = given
        else:
            arr = _out_array(given, name, dtype, n) if given is not None else np.empty(n, dtype)
            result[name] = arr.view(np.bool_) if name == "inside" and given is None else arr
        if given is not None:
            written.append((f"out[{name!r}]", arr))
        native["class_" if name == "class" else name] = arr
    return result, native, after, written


def _finish(result, after):
    for given, cols in after:
        given[...] = cols.T
    return result


_CLIP_OUTPUTS = {"t_entry": None, "t_exit": None, "class": np.uint8, "segments": None}
_DEFAULT_CLIP = ("t_entry", "t_exit", "class")


# --------------------------------------------------------------------------------------------
# Segments against rects.


def clip(
    segments: Segments,
    rect: RectLike,
    *,
    algorithm: str = "auto",
    outputs: Iterable[str] = _DEFAULT_CLIP,
    out: Optional[Mapping[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Clips N segments against one rect.

    Parameters
    ----------
    segments : rows ``x0, y0, x1, y1`` (an ``(N, 4)`` array, or anything ``np.asarray`` reads
        as one, such as a list of rows), or a dict of four 1-D columns ``{"x0": ..., "y0": ...,
        "x1": ..., "y1": ...}``. float32 or float64 (read in place when contiguous); other real
        dtypes become float64.
    rect : ``(xmin, ymin, xmax, ymax)``, the closed rect, rounded to the segments' dtype.
    algorithm : one of :func:`algorithms` (default ``"auto"``).
    outputs : which outputs to compute: any of ``"t_entry"``, ``"t_exit"``, ``"class"``,
        ``"segments"`` (default the first three).
    out : arrays to write into, by output name (their names are requested too): ``t_entry`` and
        ``t_exit`` ``(N,)`` of the segments' dtype, ``class`` ``(N,)`` uint8, ``segments``
        ``(N, 4)`` (written directly when Fortran-ordered, else through one temporary).
    threads : run in a pool of this many threads (``auto`` splits large batches); 1: on the
        calling thread alone.

    Returns
    -------
    dict of arrays: ``t_entry``, ``t_exit`` (NaN on a miss or invalid segment), ``class``
    (uint8 codes of :class:`Class`), ``segments`` (the clipped segments, a NaN row on a miss;
    a Fortran-ordered (N, 4) array when allocated here).

    Raises
    ------
    ValueError
        a wrong shape or length, a bad rect or polygon (naming its row or vertex), an unknown
        algorithm or output, an ``out=`` array of the wrong shape, dtype or one that overlaps
        an input, ``threads`` outside 1..=MAX_THREADS. NaN or ±inf coordinates are not errors:
        they give INVALID.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> r = clip(np.array([[-1.0, 0.5, 0.5, 0.5]]), (0, 0, 1, 1))
    >>> float(r["t_entry"][0]), Class(r["class"][0]).name
    (0.6666666666666666, 'ENTERS')
    """
    segs, dt, n = _rows_or_columns(segments, "segments")
    result, native, after, written = _outputs(_CLIP_OUTPUTS, outputs, out, n, dt)
    _args.disjoint(written, [("segments", segs)])
    _native.clip(segs, _rect(rect), _algorithm(algorithm), threads=_threads(threads), **native)
    return _finish(result, after)


def clip_pairwise(
    segments: Segments,
    rects: ArrayLike,
    *,
    algorithm: str = "auto",
    outputs: Iterable[str] = _DEFAULT_CLIP,
    out: Optional[Mapping[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Clips segment ``i`` against rect ``i``.

    Parameters
    ----------
    segments : ``(N, 4)`` rows ``x0, y0, x1, y1`` or four named columns, as in :func:`clip`.
    rects : ``(N, 4)`` rows ``xmin, ymin, xmax, ymax``, converted to the segments' dtype.
    algorithm, outputs, out, threads : as in :func:`clip`.

    Returns
    -------
    dict of arrays, as :func:`clip`: ``t_entry``, ``t_exit``, ``class``, ``segments``.

    Raises
    ------
    ValueError
        a wrong shape or length, a bad rect or polygon (naming its row or vertex), an unknown
        algorithm or output, an ``out=`` array of the wrong shape, dtype or one that overlaps
        an input, ``threads`` outside 1..=MAX_THREADS. NaN or ±inf coordinates are not errors:
        they give INVALID.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> segs = np.array([[-1, .5, 2, .5], [0, 0, 3, 3]], np.float32)
    >>> clip_pairwise(segs, [[0, 0, 1, 1], [2, 2, 4, 4]])["t_entry"]
    array([0.33333334, 0.6666667 ], dtype=float32)
    """
    segs, dt, n = _rows_or_columns(segments, "segments")
    r = _rects(rects, dt)
    result, native, after, written = _outputs(_CLIP_OUTPUTS, outputs, out, n, dt)
    _args.disjoint(written, [("segments", segs), ("rects", r)])
    _native.clip_pairwise(segs, r, _algorithm(algorithm), threads=_threads(threads), **native)
    return _finish(result, after)


def _records(cols: Dict[str, np.ndarray], structured: bool):
    """The columns as they came, or as one structured array with the same fields in order."""
    if not structured:
        return cols
    rec = np.empty(len(cols["segment"]), dtype=[(k, v.dtype) for k, v in cols.items()])
    for k, v in cols.items():
        rec[k] = v
    return rec


def _hits(segments, rects, algorithm, structured, threads, broad_phase):
    segs, dt, _ = _rows_or_columns(segments, "segments")
    r = _rects(rects, dt)
    cols = _native.clip_rects(segs, r, _algorithm(algorithm), bool(broad_phase),
                              threads=_threads(threads))
    return _records(dict(cols), structured)


def clip_grid(
    segments: Segments,
    rects: ArrayLike,
    *,
    algorithm: str = "auto",
    structured: bool = False,
    threads: Optional[int] = None,
):
    """Every non-empty clip of N segments by M rects, ordered by segment, then rect.

    Every rect is tried for every segment, a cost of N × M; for many rects
    :func:`clip_rect_set` gives the same rows through a broad phase.

    Parameters
    ----------
    segments : ``(N, 4)`` rows or four named columns, as in :func:`clip`.
    rects : ``(M, 4)`` rows ``xmin, ymin, xmax, ymax``, converted to the segments' dtype.
    algorithm : one of :func:`algorithms`.
    structured : return one structured array instead of a dict of columns.
    threads : as in :func:`clip`.

    Returns
    -------
    dict of equal-length columns ``segment`` (int64), ``rect`` (int64), ``t_entry``, ``t_exit``
    (the segments' dtype) and ``class`` (uint8, never OUTSIDE or INVALID); or with
    ``structured=True`` one structured array with those fields.

    Raises
    ------
    ValueError
        a wrong shape or length, a bad rect or polygon (naming its row or vertex), an unknown
        algorithm or output, an ``out=`` array of the wrong shape, dtype or one that overlaps
        an input, ``threads`` outside 1..=MAX_THREADS. NaN or ±inf coordinates are not errors:
        they give INVALID.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> h = clip_grid(np.array([[-1, .5, 9, .5]]), [[0, 0, 1, 1], [5, 5, 6, 6], [2, 0, 3, 1]])
    >>> h["rect"], h["t_entry"]
    (array([0, 2]), array([0.1, 0.3]))
    """
    return _hits(segments, rects, algorithm, structured, threads, broad_phase=False)


def clip_rect_set(
    segments: Segments,
    rects: ArrayLike,
    *,
    algorithm: str = "auto",
    structured: bool = False,
    threads: Optional[int] = None,
):
    """:func:`clip_grid`'s rows (the same rows in the same order, bit for bit) at a cost
    that grows as N + M + hits instead of N × M.

    The rects go into a uniform bin grid first (the broad phase), and each segment is clipped
    only by the rects of the bins it passes through. For many rects (sensor zones, footprints,
    query windows); with a handful, :func:`clip_grid` is as quick. Parameters, returns and
    errors as :func:`clip_grid`.

    Raises
    ------
    ValueError
        a wrong shape or length, a bad rect or polygon (naming its row or vertex), an unknown
        algorithm or output, an ``out=`` array of the wrong shape, dtype or one that overlaps
        an input, ``threads`` outside 1..=MAX_THREADS. NaN or ±inf coordinates are not errors:
        they give INVALID.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> segs = workload("road-like", 1000)
    >>> corners = workload("mostly-inside", 200)[:, :2]
    >>> rects = np.hstack([corners, corners + 0.05])
    >>> a, b = clip_rect_set(segs, rects), clip_grid(segs, rects)
    >>> all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    True
    """
    return _hits(segments, rects, algorithm, structured, threads, broad_phase=True)


def grid_pieces(
    segments: Segments,
    bounds: RectLike,
    cells: Tuple[int, int],
    *,
    half_open: bool = False,
    touches: bool = True,
    structured: bool = False,
    threads: Optional[int] = None,
):
    """The pieces every segment makes in the cells of a regular grid, in segment order and
    along each segment.

    Each piece is bit for bit the clip of its segment by its cell's rect (neighbouring cells
    share one boundary value), so consecutive pieces share their ``t`` exactly: no gap, no
    overlap; a sliver of a cell near a grid vertex that a per-cell clip could drop is kept as
    CROSSES. The cost grows with the pieces, not with ``nx × ny``.

    Parameters
    ----------
    segments : ``(N, 4)`` rows or four named columns, as in :func:`clip`.
    bounds : ``(xmin, ymin, xmax, ymax)`` of the grid.
    cells : ``(nx, ny)``, integers from 1 to 2^24.
    half_open : cells ``[lo, hi)`` (closed at the grid's upper bounds), so every point is in
        one cell; by default cells are closed and a point on a grid line is in the cells on
        both sides.
    touches : keep the TOUCHES pieces (single points, such as a segment passing a corner).
    structured : return one structured array instead of a dict of columns.
    threads : as in :func:`clip`.

    Returns
    -------
    dict of equal-length columns ``segment``, ``ix``, ``iy`` (int64), ``t_entry``, ``t_exit``
    (the segments' dtype) and ``class`` (uint8): what ``slabclip clip --grid ... --cells ...``
    writes. Segments with NaN or ±inf make no pieces.

    Raises
    ------
    ValueError
        a bad grid (non-finite or reversed bounds, zero or too many cells, cells too narrow
        for the dtype), a wrong shape, ``threads`` out of range.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> p = grid_pieces(np.array([[0.1, 0.1, 0.9, 0.2]]), (0, 0, 1, 1), (4, 4))
    >>> p["ix"], p["iy"]
    (array([0, 1, 2, 3]), array([0, 0, 0, 0]))
    """
    segs, dt, _ = _rows_or_columns(segments, "segments")
    b = _rect(bounds)
    c = _args.cells(cells)
    cols = dict(
        _native.grid_pieces(segs, b, c, bool(half_open), bool(touches), threads=_threads(threads))
    )
    return _records(cols, structured)


def clip_in_place(
    segments: Segments,
    rect: RectLike,
    *,
    algorithm: str = "auto",
    return_class: bool = False,
    class_out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> Optional[np.ndarray]:
    """Clips segments against one rect and writes each clipped segment over the input (a NaN
    row on a miss).

    Parameters
    ----------
    segments : a writeable float32/float64 ``(N, 4)`` array (C and Fortran order are clipped
        where they are, other layouts through one temporary), or a dict of four writeable
        contiguous 1-D columns ``{"x0": ..., "y0": ..., "x1": ..., "y1": ...}``.
    rect : ``(xmin, ymin, xmax, ymax)``.
    algorithm, threads : as in :func:`clip`.
    return_class : also return the class codes.
    class_out : a ``(N,)`` uint8 array to write the class codes into.

    Returns
    -------
    the class codes when ``return_class`` or ``class_out`` is given, else None.

    Raises
    ------
    TypeError
        not a numpy array (or dict of arrays), or not float32/float64.
    ValueError
        a read-only array, a wrong shape, a bad rect, ``class_out`` of the wrong length or
        overlapping the segments.

    Example
    -------
    >>> a = np.array([[-1.0, 0.5, 0.5, 0.5], [2.0, 2.0, 3.0, 3.0]])
    >>> clip_in_place(a, (0, 0, 1, 1), return_class=True)
    array([2, 0], dtype=uint8)
    >>> a[0]
    array([0. , 0.5, 0.5, 0.5])
    """
    cols = _columns(segments, _SEGMENT_COLUMNS, "segments")
    if cols is not None:
        if not all(isinstance(segments[k], np.ndarray) for k in _SEGMENT_COLUMNS):
            raise TypeError("columns for clip_in_place must be numpy arrays (they are written in place)")
        cols = tuple(segments[k] for k in _SEGMENT_COLUMNS)
        target, dt, n, temp = cols, _float_dtype([c.dtype for c in cols], "segments"), len(cols[0]), None
        if any(c.dtype != dt for c in cols):
            raise TypeError("the four columns must all be float32 or all float64")
    else:
        if not isinstance(segments, np.ndarray):
            raise TypeError(
                "segments for clip_in_place must be a numpy array or a dict of four numpy "
                f"columns (it is written in place), got {type(segments).__name__}"
            )
        a = segments
        if a.ndim != 2 or a.shape[1] != 4:
            raise ValueError(f"segments must have shape (N, 4), got shape {a.shape}")
        if a.dtype not in (np.float32, np.float64) or not a.dtype.isnative:
            raise TypeError(f"segments for clip_in_place must be float32 or float64, got {a.dtype}")
        if not a.flags.writeable:
            raise ValueError("segments is read-only: clip_in_place writes into it")
        dt, n, temp = a.dtype, a.shape[0], None
        if a.flags.c_contiguous:
            target = a
        elif a.flags.f_contiguous:
            target = tuple(a[:, k] for k in range(4))
        else:
            temp = np.ascontiguousarray(a)
            target = temp
    cls = None
    if class_out is not None:
        cls = _out_array(class_out, "class", np.dtype(np.uint8), n)
    elif return_class:
        cls = np.empty(n, np.uint8)
    if isinstance(target, tuple):
        # Four columns are four outputs: none may be another, nor class_out.
        _args.disjoint([(f"segments[{k!r}]", c) for k, c in zip(_SEGMENT_COLUMNS, target)]
                       + [("class_out", cls)], [])
    else:
        _args.disjoint([("segments", target), ("class_out", cls)], [])
    _native.clip_in_place(target, _rect(rect), _algorithm(algorithm), class_=cls,
                          threads=_threads(threads))
    if temp is not None:
        segments[...] = temp
    return cls


# --------------------------------------------------------------------------------------------
# Rays and convex polygons.


def _t_max(t_max: float) -> float:
    t = _args.number(t_max, "t_max")
    if math.isnan(t) or t < 0:
        raise ValueError(f"invalid argument: t_max must be a non-negative number, got {t_max}")
    return t


def cast_rect(
    rays: Segments,
    rect: Union[RectLike, ArrayLike],
    *,
    t_max: float = math.inf,
    outputs: Iterable[str] = ("t_entry", "t_exit", "class"),
    out: Optional[Mapping[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Rays ``O + t·D``, ``t ∈ [0, t_max]``, against a rect.

    Parameters
    ----------
    rays : ``(N, 4)`` rows ``ox, oy, dx, dy``, or a dict of those four columns; float32 or
        float64 (read in place when contiguous).
    rect : one ``(xmin, ymin, xmax, ymax)`` for every ray, or an ``(N, 4)`` array, rect ``i``
        for ray ``i``.
    t_max : the rays' length in units of ``D`` (a non-negative number, default infinity).
    outputs, out, threads : as in :func:`clip`, with the outputs ``t_entry``, ``t_exit``,
        ``class``.

    Returns
    -------
    dict of arrays: ``t_entry`` (``0`` exactly iff the origin is in the closed rect),
    ``t_exit`` (at most ``t_max``), NaN on a miss, and ``class`` codes with ``t_max`` in the
    place of 1. ``D = (0, 0)`` or a non-finite ray is INVALID.

    Raises
    ------
    ValueError
        a wrong shape or length, a bad rect or polygon (naming its row or vertex), an unknown
        algorithm or output, an ``out=`` array of the wrong shape, dtype or one that overlaps
        an input, ``threads`` outside 1..=MAX_THREADS. NaN or ±inf coordinates are not errors:
        they give INVALID.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> cast_rect(np.array([[-1.0, 0.5, 2.0, 0.0]]), (0, 0, 1, 1))["t_entry"]
    array([0.5])
    """
    r, dt, n = _rows_or_columns(rays, "rays", rays=True)
    result, native, after, written = _outputs(
        {"t_entry": None, "t_exit": None, "class": np.uint8}, outputs, out, n, dt
    )
    rect_arr = np.asarray(rect)
    single, many = (_rect(rect), None) if rect_arr.ndim == 1 else (None, _rects(rect, dt))
    _args.disjoint(written, [("rays", r), ("rects", many)])
    _native.cast_rect(r, single, many, _t_max(t_max), threads=_threads(threads), **native)
    return _finish(result, after)


def cast_segments(
    rays: Segments,
    segments: Segments,
    *,
    t_max: float = math.inf,
    outputs: Iterable[str] = ("t", "s", "index", "nx", "ny"),
    out: Optional[Mapping[str, np.ndarray]] = None,
    method: str = "auto",
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Each ray's closest hit among a set of M segments (walls).

    Parameters
    ----------
    rays : rows ``ox, oy, dx, dy`` (an ``(N, 4)`` array) or a dict of those four columns;
        float32 or float64. A ray is ``O + t·D``, ``t ∈ [0, t_max]``.
    segments : rows ``x0, y0, x1, y1`` (``(M, 4)``) or a dict of four columns, converted to
        the rays' dtype (and, given as rows, copied once to columns).
    t_max : the rays' end in units of ``D`` (default unbounded).
    outputs, out : which outputs, and arrays to write them into (``(N,)``, the rays' dtype;
        ``index`` int64).
    method : ``"auto"`` (default): a :class:`Scene` index is built over the segments for the
        call where that pays (from 1024 segments and 256 rays, where it was measured to beat
        the brute force, build included: ``docs/guide/scenes.md``), else every ray is tested
        against every segment; ``"brute-force"`` or ``"scene"`` force one way. The answers are
        the same bits whichever way; for many batches against the same segments, build a
        :class:`Scene` once instead.
    threads : a pool of this many threads; 1: the calling thread alone.

    Returns
    -------
    dict: ``t`` (the ray parameter, NaN on a miss), ``s`` (the segment's own parameter of the
    hit point in [0, 1]), ``index`` (int64, the lowest on a tie, -1 (:data:`NO_HIT`) on a
    miss) and ``nx``, ``ny`` (the segment's unit normal facing the ray). A segment collinear
    with the ray is hit at the first point of overlap.

    Raises
    ------
    ValueError
        Wrong shapes, ``t_max`` NaN or negative, an unknown ``method``, bad ``out`` arrays or
        ``threads``.
    TypeError
        A dtype that is not a real number.

    Example
    -------
    >>> cast_segments(np.array([[0.0, 0.0, 1.0, 0.0]]), np.array([[2.0, -1.0, 2.0, 1.0]]),
    ...               outputs=["t", "index"])
    {'t': array([2.]), 'index': array([0])}
    """
    r, dt, n = _rows_or_columns(rays, "rays", rays=True)
    s, _, _ = _rows_or_columns(segments, "segments", dtype=dt)
    kinds = {"t": None, "s": None, "index": np.int64, "nx": None, "ny": None}
    result, native, after, written = _outputs(kinds, outputs, out, n, dt)
    _args.disjoint(written, [("rays", r), ("segments", s)])
    method = _args.text(method, "method", ("auto", "brute-force", "scene"))
    _native.cast_segments(r, s, _t_max(t_max), method, threads=_threads(threads), **native)
    return _finish(result, after)


def cast_polygon(
    rays: Segments,
    polygon: ArrayLike,
    *,
    t_max: float = math.inf,
    exit: bool = False,
    outputs: Iterable[str] = ("t", "x", "y", "nx", "ny", "edge", "inside"),
    out: Optional[Mapping[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Rays against one convex polygon.

    Parameters
    ----------
    rays : ``(N, 4)`` rows ``ox, oy, dx, dy`` or four named columns, as in :func:`cast_rect`.
    polygon : ``(K, 2)`` vertices in order, either orientation.
    t_max : as in :func:`cast_rect`.
    exit : for a ray whose origin is in the polygon, report where it leaves instead of
        ``t = 0``.
    outputs, out, threads : as in :func:`clip`, with the outputs ``t``, ``x``, ``y``, ``nx``,
        ``ny``, ``edge``, ``inside``.

    Returns
    -------
    dict of arrays: ``t``, the hit point ``x``, ``y``, the outward unit normal ``nx``, ``ny``
    of the edge hit and its index ``edge`` (int64, -1 (:data:`NO_HIT`) for none), and
    ``inside`` (bool): the origin lies in the closed polygon, reported with ``t = 0`` and no
    edge, or with ``exit=True`` where the ray leaves. (``slabclip cast`` writes ``inside`` as
    uint8 0/1.)

    Raises
    ------
    ValueError
        a polygon that is not convex, has fewer than 3 distinct vertices, or a non-finite
        vertex (naming the vertex); a wrong shape; a negative or NaN ``t_max``; bad ``out=``.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> h = cast_polygon(np.array([[-1.0, 1.0, 1.0, 0.0]]), [[0, 0], [4, 0], [4, 2], [0, 2]])
    >>> h["t"], h["edge"], h["inside"]
    (array([1.]), array([3]), array([False]))
    """
    r, dt, n = _rows_or_columns(rays, "rays", rays=True)
    v = _polygon(polygon, dt)
    kinds = {"t": None, "x": None, "y": None, "nx": None, "ny": None, "edge": np.int64,
             "inside": np.uint8}
    result, native, after, written = _outputs(kinds, outputs, out, n, dt)
    _args.disjoint(written, [("rays", r), ("polygon", v)])
    _native.cast_polygon(r, v, _t_max(t_max), bool(exit), threads=_threads(threads), **native)
    return _finish(result, after)


def clip_polygon(
    segments: Segments,
    polygon: ArrayLike,
    *,
    outputs: Iterable[str] = _DEFAULT_CLIP,
    out: Optional[Mapping[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Clips N segments against a convex polygon (Cyrus–Beck), with the contract and outputs
    of :func:`clip`.

    Parameters
    ----------
    segments : ``(N, 4)`` rows or four named columns, as in :func:`clip`.
    polygon : ``(K, 2)`` vertices in order, either orientation, as in :func:`cast_polygon`.
    outputs, out, threads : as in :func:`clip`.

    Returns
    -------
    dict of arrays: ``t_entry``, ``t_exit``, ``class``, ``segments``, as :func:`clip`.

    Raises
    ------
    ValueError
        a polygon that is not convex, has fewer than 3 distinct vertices, or a non-finite
        vertex; a wrong shape; bad ``out=``.
    TypeError
        a non-numeric dtype.

    Example
    -------
    >>> r = clip_polygon(np.array([[-1.0, 0.5, 0.5, 0.5]]), [[0, 0], [1, 0], [1, 1], [0, 1]])
    >>> Class(r["class"][0]).name
    'ENTERS'
    """
    segs, dt, n = _rows_or_columns(segments, "segments")
    v = _polygon(polygon, dt)
    result, native, after, written = _outputs(_CLIP_OUTPUTS, outputs, out, n, dt)
    _args.disjoint(written, [("segments", segs), ("polygon", v)])
    _native.clip_polygon(segs, v, threads=_threads(threads), **native)
    return _finish(result, after)


def workload(name: str = "mixed", n: int = 1 << 20, *, seed: int = 1, dtype=np.float32) -> np.ndarray:
    """``n`` segments of one of ``slabclip gen``'s seeded workloads, drawn around the unit
    square ``(0, 0, 1, 1)``: the same values as ``slabclip gen --dist NAME --n N --seed S``.

    Parameters
    ----------
    name : ``mixed``, ``mostly-inside``, ``mostly-outside``, ``edge-grazing``,
        ``axis-parallel``, ``random-walk``, ``road-like`` or ``tracks``.
    n : how many segments, 0 to 2^40.
    seed : 0 to 2^64 - 1.
    dtype : float32 or float64.

    Returns
    -------
    an ``(n, 4)`` array of rows ``x0, y0, x1, y1``.

    Raises
    ------
    ValueError
        an unknown name, ``n`` or ``seed`` out of range.
    TypeError
        a dtype other than float32 or float64.

    Example
    -------
    >>> workload("tracks", 3).shape
    (3, 4)
    """
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    name = _args.text(name, "name", _native.workloads())
    n = _args.integer(n, "n", 0, _args.MAX_WORKLOAD)
    seed = _args.integer(seed, "seed", 0, 2**64 - 1)
    return _native.generate(name, n, seed, dt == np.float64)


from . import reference  # noqa: E402  (uses the helpers above)
from .lines import (  # noqa: E402
    clip_by_rect, clip_geoarrow, clip_lines, clip_lines_each, tile_geometries, tile_lines,
)

__all__ += ["clip_lines", "clip_lines_each", "tile_lines", "clip_by_rect", "tile_geometries",
            "clip_geoarrow"]
from .scene import Scene, Sight, lidar_rays  # noqa: E402  (uses the helpers above)
