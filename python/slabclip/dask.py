"""Clipping a ``dask.array`` of segments, block by block: data beyond one machine.

The segments are an ``(N, 4)`` dask array chunked by rows (a chunking of the 4 columns is
undone first). Each block is clipped once by :func:`slabclip.clip` on whichever worker holds
it; the outputs come back as lazy dask arrays with the same row chunks, so nothing runs until
they are computed or stored. The same code runs on a laptop's threads, a
``distributed.LocalCluster`` or a cluster of many machines: only the ``Client`` differs.

    >>> import dask.array as da, slabclip.dask
    >>> segs = da.from_array(np.random.rand(1000, 4), chunks=(250, 4))
    >>> out = slabclip.dask.clip(segs, (0.25, 0.25, 0.75, 0.75))
    >>> out["class"].compute().shape
    (1000,)
"""

from __future__ import annotations

import operator
from typing import Dict, Iterable, Optional, Sequence

import numpy as np

import slabclip

__all__ = ["clip"]


def _record_dtype(dt: np.dtype, outputs: Sequence[str]) -> np.dtype:
    fields = {"t_entry": dt, "t_exit": dt, "class": np.uint8, "segments": (dt, (4,))}
    return np.dtype([(name, fields[name]) for name in outputs])


def _clip_block(block: np.ndarray, rect, algorithm: str, outputs: Sequence[str], threads):
    """One block's outputs as one structured array, so that a block is clipped once whatever
    the number of outputs."""
    res = slabclip.clip(block, rect, algorithm=algorithm, outputs=outputs, threads=threads)
    rec = np.empty(len(block), dtype=_record_dtype(block.dtype, outputs))
    for name in outputs:
        rec[name] = res[name]
    return rec


def clip(
    segments,
    rect,
    *,
    algorithm: str = "auto",
    outputs: Iterable[str] = ("t_entry", "t_exit", "class"),
    threads: Optional[int] = None,
) -> Dict[str, "dask.array.Array"]:  # noqa: F821
    """Lazy :func:`slabclip.clip` of an ``(N, 4)`` float32/float64 dask array (``map_blocks``
    over its row chunks).

    Returns a dict of dask arrays, one per requested output, chunked like the rows of the
    input: ``t_entry``, ``t_exit`` ``(N,)``, ``class`` ``(N,)`` uint8, ``segments`` ``(N, 4)``.
    Their values are the bits of ``slabclip.clip`` on the whole array in memory. ``threads``
    is the pool size used inside each block's call (on each worker).
    """
    import dask.array as da

    outputs = tuple(dict.fromkeys(outputs))
    if not outputs:
        raise ValueError("ask for at least one output")
    for name in outputs:
        if name not in ("t_entry", "t_exit", "class", "segments"):
            raise ValueError(
                f"unknown output {name!r} (expected one of: t_entry, t_exit, class, segments)"
            )
    if not isinstance(segments, da.Array):
        segments = da.asarray(segments)
    if segments.ndim != 2 or segments.shape[1] != 4:
        raise ValueError(f"segments must have shape (N, 4), got shape {segments.shape}")
    dt = np.dtype(segments.dtype)
    if dt not in (np.float32, np.float64):
        if dt.kind not in "biuf":
            raise TypeError(f"segments must hold real numbers, got dtype {dt}")
        dt = np.dtype(np.float64)
        segments = segments.astype(dt)
    if len(segments.chunks[1]) != 1:
        segments = segments.rechunk({1: 4})
    rect = [float(v) for v in rect]
    rec_dt = _record_dtype(dt, outputs)
    rec = segments.map_blocks(
        _clip_block,
        rect,
        algorithm,
        outputs,
        threads,
        dtype=rec_dt,
        drop_axis=1,
        chunks=(segments.chunks[0],),
        meta=np.empty(0, dtype=rec_dt),
    )
    result = {}
    for name in outputs:
        field = rec_dt[name]
        if name == "segments":
            result[name] = rec.map_blocks(
                operator.itemgetter(name),
                dtype=dt,
                new_axis=1,
                chunks=(rec.chunks[0], (4,)),
                meta=np.empty((0, 4), dtype=dt),
            )
        else:
            result[name] = rec.map_blocks(
                operator.itemgetter(name), dtype=field, meta=np.empty(0, dtype=field)
            )
    return result
