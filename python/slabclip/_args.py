"""Argument checks shared by every function of the package, so that a wrong argument gets the
same kind of message wherever it is passed: what was wrong, which argument, what is allowed."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Optional

import numpy as np

from . import _native

#: The most threads ``threads=`` may ask for (``slabclip.MAX_THREADS``).
MAX_THREADS: int = _native.MAX_THREADS


def integer(value, name: str, lo: int, hi: int) -> int:
    """``value`` as a Python int in ``[lo, hi]``: ``TypeError`` for what is not an integer (a
    bool, a float, a string), ``ValueError`` naming ``name`` and the range otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {v}")
    return v


def threads(value) -> Optional[int]:
    """``threads=``: None (rayon's global pool) or a thread count from 1 to
    :data:`MAX_THREADS`."""
    if value is None:
        return None
    return integer(value, "threads", 1, MAX_THREADS)


#: The most cells a grid may have along one axis (``grid_pieces``' ``cells``).
MAX_CELLS_PER_AXIS: int = _native.MAX_CELLS_PER_AXIS
#: The most segments :func:`slabclip.workload` makes in one call.
MAX_WORKLOAD: int = 1 << 40


def text(value, name: str, choices) -> str:
    """A string argument (``algorithm=``, a workload name): ``TypeError`` listing the choices
    for anything else (an unknown string is left to the library's own message)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of: {', '.join(choices)}; got {value!r}")
    return value


def number(value, name: str) -> float:
    """A real number argument as a float (``t_max=``)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r}") from None


def out_mapping(out) -> dict:
    """``out=``: None, or a mapping of output names to arrays."""
    if out is None:
        return {}
    if not isinstance(out, Mapping):
        raise TypeError(
            "out= must be a dict of output names to numpy arrays, such as "
            f"out={{'t_entry': array, 'class': codes}}; got {type(out).__name__}"
        )
    for k in out:
        if not isinstance(k, str):
            raise TypeError(f"out= keys must be output names (str), got {k!r}")
    return dict(out)


def output_names(outputs, known) -> list:
    """``outputs=``: a sequence of output names (one name alone is taken as itself); unknown
    names raise ``ValueError`` listing the known ones."""
    if isinstance(outputs, str):
        outputs = (outputs,)
    try:
        names = list(outputs)
    except TypeError:
        raise TypeError(
            f"outputs must be a sequence of output names (of: {', '.join(known)}), "
            f"got {type(outputs).__name__}"
        ) from None
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"outputs must be output names (str), got {name!r}")
    return names


def cells(value) -> list:
    """``cells=(nx, ny)``: two integers from 1 to :data:`MAX_CELLS_PER_AXIS`."""
    what = f"cells must be two integers (nx, ny), each from 1 to {MAX_CELLS_PER_AXIS}"
    try:
        pair = list(value)
    except TypeError:
        raise TypeError(f"{what}; got {value!r}") from None
    if len(pair) != 2:
        raise ValueError(f"{what}; got {value!r}")
    out = []
    for v in pair:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{what}; got {value!r}")
        if not 1 <= int(v) <= MAX_CELLS_PER_AXIS:
            raise ValueError(f"{what}; got ({', '.join(str(int(x)) for x in pair)})")
        out.append(int(v))
    return out


def _arrays(x):
    """The numpy arrays of an argument as the extension gets it: one array, or a tuple of
    columns."""
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, (tuple, list)):
        return [c for c in x if isinstance(c, np.ndarray)]
    return []


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays share an element: their bounds first (exact for contiguous arrays),
    then numpy's exact test for interleaved views (such as two columns of one C-ordered
    array), within a bounded effort (beyond it, taken as shared)."""
    if not np.may_share_memory(a, b):
        return False
    try:
        return bool(np.shares_memory(a, b, max_work=10_000))
    except np.exceptions.TooHardError if hasattr(np, "exceptions") else Exception:
        return True


def disjoint(written, read) -> None:
    """Refuses outputs that overlap one another or an input, naming both: ``written`` and
    ``read`` are ``(name, array or tuple of arrays)`` pairs as the extension gets them. (Inputs
    may overlap each other: they are only read.)"""
    w = [(name, a) for name, x in written for a in _arrays(x)]
    r = [(name, a) for name, x in read for a in _arrays(x)]
    for i, (na, a) in enumerate(w):
        for nb, b in w[i + 1:] + r:
            if na != nb and a.size and b.size and _overlap(a, b):
                raise ValueError(
                    f"{na} and {nb} share memory: every output must be an array of its own, "
                    "apart from the inputs and the other outputs"
                )
