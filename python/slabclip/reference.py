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
