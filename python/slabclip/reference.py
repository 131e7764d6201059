"""The exact reference: slabclip's rational-arithmetic clip (slow, obviously right), for
checking any clipper's answers against SPEC §1."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _native
from . import _rect, _rows_or_columns, _threads, Segments, RectLike


def exact_class(segments: Segments, rect: RectLike, *, threads: Optional[int] = None) -> np.ndarray:
    """The exact :class:`slabclip.Class` code of every segment (uint8), computed in rational
    arithmetic from the segments' float values (float32 data stays float32).

    Parameters as :func:`slabclip.clip` (``segments`` rows or columns, ``rect``, ``threads``).
    Raises ``ValueError`` for a wrong shape or a bad rect, ``TypeError`` for a non-numeric
    dtype.

    Example
    -------
    >>> exact_class(np.array([[-1.0, 0.5, 0.5, 0.5]]), (0, 0, 1, 1))
    array([2], dtype=uint8)
    """
    segs, _, _ = _rows_or_columns(segments, "segments")
    return _native.exact_class(segs, _rect(rect), threads=_threads(threads))


def violations(
    segments: Segments,
    rect: RectLike,
    t_entry: np.ndarray,
    t_exit: np.ndarray,
    class_: np.ndarray,
    *,
    threads: Optional[int] = None,
) -> np.ndarray:
    """1 where ``(t_entry, t_exit, class_)`` breaks SPEC §1 for that segment, else 0 (uint8):
    the class must be the exact one (away from a corner graze), ``t == 0`` / ``t == 1``
    exactly when the endpoint is inside, NaN on a miss, ``t`` within the contract's ulps of
    the exact value. ``t_entry``/``t_exit`` are converted to the segments' dtype.

    Raises ``ValueError`` when the arrays' lengths differ or the rect is bad, ``TypeError`` for
    a non-numeric dtype.

    Example
    -------
    >>> import slabclip
    >>> segs = slabclip.workload("edge-grazing", 1000)
    >>> r = slabclip.clip(segs, (0, 0, 1, 1), algorithm="liang-barsky")
    >>> int(violations(segs, (0, 0, 1, 1), r["t_entry"], r["t_exit"], r["class"]).sum())
    0
    """
    segs, dt, _ = _rows_or_columns(segments, "segments")
    te = np.ascontiguousarray(t_entry, dtype=dt)
    tx = np.ascontiguousarray(t_exit, dtype=dt)
    cl = np.ascontiguousarray(class_, dtype=np.uint8)
    return _native.violations(segs, _rect(rect), te, tx, cl, threads=_threads(threads))


# --------------------------------------------------------------------------------------------
# Polylines (SPEC §7), in Python's exact rationals: slow, for tests and the benchmark's
# wrong-answer counts on a subsample.


class ExactLine:
    """The exact clip of one polyline: ``parts`` (lists of vertices) and ``points`` (single
    points of contact), each vertex ``("v", k)`` (input vertex ``k``, to come back bit for bit)
    or ``("c", X, Y)`` (a cut vertex, exact ``Fraction`` coordinates); ``graze`` when a segment
    with both ends outside passes within a few ulps of a corner, where SPEC §1 allows hit,
    touch or miss (the polyline is then checked loosely)."""

    __slots__ = ("parts", "points", "graze")

    def __init__(self, parts, points, graze):
        self.parts, self.points, self.graze = parts, points, graze


def _segment_interval(p0, p1, rect, eps):
    """The exact ``[t0, t1]`` of a segment in the closed rect (None on a miss), and whether it
    is within §1's graze allowance."""
    from fractions import Fraction as Q

    t_lo, t_hi = Q(0), Q(1)
    for a in range(2):
        d = p1[a] - p0[a]
        b0, b1 = rect[a], rect[a + 2]
        if d == 0:
            if not b0 <= p0[a] <= b1:
                return None, False
            continue
        ta, tb = (b0 - p0[a]) / d, (b1 - p0[a]) / d
        if ta > tb:
            ta, tb = tb, ta
        t_lo, t_hi = max(t_lo, ta), min(t_hi, tb)

    def inside(p):
        return rect[0] <= p[0] <= rect[2] and rect[1] <= p[1] <= rect[3]

    both_out = not inside(p0) and not inside(p1)
    scale = max(abs(t_lo), abs(t_hi), Q(1, 2**20))
    graze = both_out and abs(t_hi - t_lo) <= 16 * eps * scale
    if t_lo > t_hi:
        return None, graze
    return (t_lo, t_hi), graze


def exact_line(xy, rect, eps: float) -> ExactLine:
    """SPEC §7's clip of one polyline (an ``(n, 2)`` float array) by ``rect`` (4 floats), in
    rationals: §1's exact interval per segment, joined into parts and points of contact.
    ``eps`` is the unit roundoff of the data's dtype (half its machine epsilon). Raises
    ``ValueError`` for a rect that is not four numbers.

    Example
    -------
    >>> e = exact_line(np.array([[-1.0, 0.5], [0.5, 0.5]]), (0, 0, 1, 1), 2.0**-53)
    >>> e.parts      # the cut vertex (0, 1/2), then input vertex 1
    [[('c', Fraction(0, 1), Fraction(1, 2)), ('v', 1)]]
    """
    import math
    from fractions import Fraction as Q

    r = [Q(v) for v in rect]
    n = len(xy)
    finite = [math.isfinite(x) and math.isfinite(y) for x, y in xy]
    P = [(Q(float(x)), Q(float(y))) if f else None for (x, y), f in zip(xy, finite)]
    parts, points, graze = [], [], False
    run, last = None, None

    def value(v):
        if v[0] == "v":
            return P[v[1]]
        return (v[1], v[2])

    def close():
        if run:
            first = value(run[0])
            if all(value(v) == first for v in run[1:]):
                points.append(run[0])
            else:
                parts.append(run)

    for i in range(n - 1):
        if P[i] is None or P[i + 1] is None:
            close()
            run, last = None, None
            continue
        p0, p1 = P[i], P[i + 1]
        iv, g = _segment_interval(p0, p1, r, Q(eps))
        graze = graze or g
        if iv is None:
            close()
            run, last = None, None
            continue
        t0, t1 = iv

        def at(t, k):
            if t == 0:
                return ("v", k)
            if t == 1:
                return ("v", k + 1)
            return ("c", p0[0] + t * (p1[0] - p0[0]), p0[1] + t * (p1[1] - p0[1]))

        start, end = at(t0, i), at(t1, i)
        if not (run is not None and last == i - 1 and t0 == 0):
            close()
            run = [start]
        if t0 < t1:
            run.append(end)
        last = i if t1 == 1 else None
    close()
    return ExactLine(parts, points, graze)


def _vertex_ok(got, want, xy, rect, tol):
    """A returned vertex against the exact one: input vertices bit for bit; cut vertices in
    the closed rect, exactly on an edge line the exact point lies on, within ``tol``."""
    from fractions import Fraction as Q

    gx, gy = float(got[0]), float(got[1])
    if want[0] == "v":
        a = np.asarray(xy[want[1]], dtype=np.asarray(got).dtype)
        return np.asarray(got).tobytes() == a.tobytes()
    X, Y = want[1], want[2]
    if not (rect[0] <= gx <= rect[2] and rect[1] <= gy <= rect[3]):
        return False
    edges = [(0, rect[0]), (0, rect[2]), (1, rect[1]), (1, rect[3])]
    on = [(a, b) for a, b in edges if (X, Y)[a] == Q(b)]
    if on and not any((gx, gy)[a] == b for a, b in on):
        return False
    return abs(Q(gx) - X) <= tol and abs(Q(gy) - Y) <= tol


def check_line(xy, rect, got_parts, got_points, eps: float, want: Optional[ExactLine] = None):
    """Why one polyline's answer breaks SPEC §7 (a short reason), or None when it is right:
    ``got_parts`` a list of ``(m, 2)`` arrays in order, ``got_points`` a list of ``(x, y)``
    (None: not checked). Near a corner graze (:class:`ExactLine`'s ``graze``) only the
    vertices are checked (in the closed rect, input vertices unchanged). Raises nothing on a
    wrong answer: the reason is the return value.

    Example
    -------
    >>> xy = np.array([[-1.0, 0.5], [0.5, 0.5]])
    >>> check_line(xy, (0, 0, 1, 1), [np.array([[0.0, 0.5], [0.5, 0.5]])], [], 2.0**-53) is None
    True
    """
    from fractions import Fraction as Q

    want = want or exact_line(xy, rect, eps)
    finite = np.isfinite(xy).all(axis=1)
    mag = max([abs(v) for v in rect] + [float(np.abs(xy[finite]).max()) if finite.any() else 0.0])
    tol = Q(8 * eps) * Q(max(mag, 1e-300))
    if want.graze:
        for p in got_parts:
            for gx, gy in p:
                if not (rect[0] <= gx <= rect[2] and rect[1] <= gy <= rect[3]):
                    return "vertex outside the rect"
        return None
    if len(got_parts) != len(want.parts):
        return f"{len(got_parts)} parts, exactly {len(want.parts)}"
    for k, (g, w) in enumerate(zip(got_parts, want.parts)):
        if len(g) != len(w):
            return f"part {k}: {len(g)} vertices, exactly {len(w)}"
        for v, (gv, wv) in enumerate(zip(g, w)):
            if not _vertex_ok(gv, wv, xy, rect, tol):
                return f"part {k} vertex {v}: {tuple(map(float, gv))} is not the exact {wv[0]} vertex"
    if got_points is not None:
        if len(got_points) != len(want.points):
            return f"{len(got_points)} points of contact, exactly {len(want.points)}"
        for g, w in zip(got_points, want.points):
            if not _vertex_ok(np.asarray(g), w, xy, rect, tol):
                return f"point of contact {tuple(map(float, g))} is not the exact one"
    return None


def wrong_lines(coords, offsets, rect: RectLike, result, *, sample=None, points: bool = False):
    """Checks :func:`slabclip.clip_lines`' ``result`` (or any answer in its layout: ``coords``,
    ``offsets``, ``polyline``, and ``points``, ``point_polyline`` when ``points``) against
    the exact clip of each polyline in ``sample`` (all by default). Returns ``{polyline:
    reason}`` for the wrong ones. Raises ``ValueError`` for a bad rect.

    Example
    -------
    >>> import slabclip
    >>> xy, off = np.array([[-1.0, 0.5], [0.5, 0.5], [0.5, 2.0]]), np.array([0, 3])
    >>> wrong_lines(xy, off, (0, 0, 1, 1), slabclip.clip_lines(xy, off, (0, 0, 1, 1)))
    {}
    """
    coords = np.asarray(coords)
    eps = float(np.finfo(coords.dtype).eps) / 2
    rect = [float(coords.dtype.type(v)) for v in _rect(rect)]
    L = len(offsets) - 1
    sample = range(L) if sample is None else sample
    po, pc, pl = result["offsets"], result["coords"], result["polyline"]
    first = np.searchsorted(pl, np.arange(L + 1))
    if points:
        qpl = result["point_polyline"]
        qfirst = np.searchsorted(qpl, np.arange(L + 1))
    bad = {}
    for j in sample:
        xy = coords[offsets[j]:offsets[j + 1]]
        got = [pc[po[k]:po[k + 1]] for k in range(first[j], first[j + 1])]
        gp = list(result["points"][qfirst[j]:qfirst[j + 1]]) if points else None
        why = check_line(xy, rect, got, gp, eps)
        if why:
            bad[int(j)] = why
    return bad
