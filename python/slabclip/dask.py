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

__all__ = ["clip", "grid_pieces", "clip_by_rect", "tile_geometries"]


_record_fields = ("t_entry", "t_exit", "class", "segments")


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


def _rows(segments):
    """``segments`` as an ``(N, 4)`` float32/float64 dask array chunked by rows only, and its
    dtype."""
    import dask.array as da

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
    return segments, dt


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
    is the pool size used inside each block's call (on each worker). Every argument is checked
    here, before anything runs: a reversed rect, an unknown algorithm or output, a bad thread
    count raise at once, as :func:`slabclip.clip` would, not on a worker at compute time.

    Raises
    ------
    ValueError
        what :func:`slabclip.clip` raises for the same arguments; an input that is not
        ``(N, 4)`` or is chunked across its columns.
    TypeError
        a dtype other than float32 or float64.

    Example
    -------
    >>> import dask.array as da, slabclip
    >>> segs = da.from_array(slabclip.workload("mixed", 1000), chunks=(250, 4))
    >>> r = clip(segs, (0, 0, 1, 1))
    >>> np.array_equal(r["class"].compute(), slabclip.clip(segs.compute(), (0, 0, 1, 1))["class"])
    True
    """
    outputs = tuple(dict.fromkeys(slabclip._args.output_names(outputs, _record_fields)))
    if not outputs:
        raise ValueError("ask for at least one output")
    segments, dt = _rows(segments)
    # Every argument is checked now, on an empty batch, rather than on a worker when the
    # result is computed: a bad rect, algorithm, output name or thread count raises here.
    slabclip.clip(np.empty((0, 4), dt), rect, algorithm=algorithm, outputs=outputs,
                  threads=threads)
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


def _pieces_block(block: np.ndarray, bounds, cells, half_open, touches, threads, block_info=None):
    """One block's pieces as one structured array, their segment numbers counted from the
    whole array's first row."""
    rec = slabclip.grid_pieces(block, bounds, cells, half_open=half_open, touches=touches,
                               structured=True, threads=threads)
    rec["segment"] += block_info[0]["array-location"][0][0]
    return rec


def grid_pieces(
    segments,
    bounds,
    cells,
    *,
    half_open: bool = False,
    touches: bool = True,
    threads: Optional[int] = None,
) -> Dict[str, "dask.array.Array"]:  # noqa: F821
    """Lazy :func:`slabclip.grid_pieces` of an ``(N, 4)`` float32/float64 dask array, block by
    block (each block's pieces are those of its segments, numbered in the whole array).

    Returns a dict of 1-D dask arrays ``segment``, ``ix``, ``iy`` (int64), ``t_entry``,
    ``t_exit`` (the segments' dtype) and ``class`` (uint8), one chunk per row chunk of the
    input. How many pieces a block makes is known only once it has run, so their chunk lengths
    are unknown (NaN) until computed (``compute_chunk_sizes()``). Computed together, they are
    the columns of ``slabclip.grid_pieces`` on the whole array in memory, bit for bit and in the
    same order. The grid and the thread count are checked here, before anything runs.

    Raises
    ------
    ValueError
        what :func:`slabclip.grid_pieces` raises for the same grid; an input that is not
        ``(N, 4)``.
    TypeError
        a dtype other than float32 or float64.

    Example
    -------
    >>> import dask.array as da, slabclip
    >>> segs = da.from_array(slabclip.workload("tracks", 1000), chunks=(250, 4))
    >>> p = grid_pieces(segs, (0, 0, 1, 1), (100, 100))
    >>> ix = p["ix"].compute()
    >>> np.array_equal(ix, slabclip.grid_pieces(segs.compute(), (0, 0, 1, 1), (100, 100))["ix"])
    True
    """
    segments, dt = _rows(segments)
    # A bad grid or thread count raises now, on an empty batch, rather than on a worker; the
    # empty answer's fields are the blocks' record type.
    rec_dt = slabclip.grid_pieces(np.empty((0, 4), dt), bounds, cells, half_open=half_open,
                                  touches=touches, structured=True, threads=threads).dtype
    bounds = [float(v) for v in bounds]
    cells = [int(v) for v in cells]
    rec = segments.map_blocks(
        _pieces_block,
        bounds,
        cells,
        half_open,
        touches,
        threads,
        dtype=rec_dt,
        drop_axis=1,
        chunks=((np.nan,) * len(segments.chunks[0]),),
        meta=np.empty(0, dtype=rec_dt),
    )
    return {
        name: rec.map_blocks(operator.itemgetter(name), dtype=rec_dt[name],
                             meta=np.empty(0, dtype=rec_dt[name]))
        for name in rec_dt.names
    }


def _partitioned(geoseries, what: str):
    """A dask-geopandas GeoSeries (or any dask Series of shapely geometries), checked."""
    import dask.dataframe as dd

    if not isinstance(geoseries, dd.Series):
        raise TypeError(f"{what} takes a dask-geopandas GeoSeries (dask_geopandas.from_geopandas), "
                        f"got {type(geoseries).__name__}")
    return geoseries


def clip_by_rect(geoseries, xmin: float, ymin: float, xmax: float, ymax: float, *,
                 points: bool = False, threads: Optional[int] = None):
    """Lazy :func:`slabclip.clip_by_rect` of a dask-geopandas ``GeoSeries``, partition by
    partition (``map_partitions``): a dask GeoSeries with the same partitions, index and CRS.
    Computed, it is the in-memory call on the whole series, bit for bit (each geometry is
    clipped on its own, so the partitioning plays no part). The rect, the thread count and the
    geometry types of the meta are checked at the call, before anything runs; a non-line
    geometry in a partition raises when that partition is computed (naming its index label).

    Raises
    ------
    TypeError
        not a dask-geopandas GeoSeries; a geometry type other than lines.
    ValueError
        a bad rect or thread count.

    Example
    -------
    >>> import dask_geopandas, geopandas, shapely
    >>> gs = geopandas.GeoSeries([shapely.LineString([(-1, 0.5), (2, 0.5)])] * 8)
    >>> d = dask_geopandas.from_geopandas(gs, npartitions=4)
    >>> clip_by_rect(d, 0, 0, 1, 1).compute().iloc[0].wkt
    'LINESTRING (0 0.5, 1 0.5)'
    """
    geoseries = _partitioned(geoseries, "clip_by_rect")
    meta = slabclip.clip_by_rect(geoseries._meta, xmin, ymin, xmax, ymax, points=points,
                                 threads=threads)
    return geoseries.map_partitions(slabclip.clip_by_rect, float(xmin), float(ymin), float(xmax),
                                    float(ymax), points=bool(points), threads=threads, meta=meta)


def tile_geometries(geoseries, bounds, cells, *, buffer: Optional[float] = None,
                    half_open: bool = False, points: bool = False,
                    threads: Optional[int] = None):
    """Lazy :func:`slabclip.tile_geometries` of a dask-geopandas ``GeoSeries``: a dask
    GeoDataFrame (columns ``row``, ``ix``, ``iy``, ``geometry``), one partition per input
    partition, each row's ``row`` the source's index label. Computed and concatenated, its
    rows are the in-memory call's, in the same order and bit for bit (its index restarts at 0
    in every partition). The grid, buffer and thread count are checked at the call.

    Raises
    ------
    TypeError
        not a dask-geopandas GeoSeries; a geometry type other than lines.
    ValueError
        a bad grid, buffer or thread count.

    Example
    -------
    >>> import dask_geopandas, geopandas, shapely
    >>> gs = geopandas.GeoSeries([shapely.LineString([(0.1, 0.25), (0.9, 0.25)])] * 4)
    >>> t = tile_geometries(dask_geopandas.from_geopandas(gs, npartitions=2), (0, 0, 1, 1), (2, 2))
    >>> t.compute()[["row", "ix", "iy"]].values.tolist()[:2]
    [[0, 0, 0], [0, 1, 0]]
    """
    geoseries = _partitioned(geoseries, "tile_geometries")
    kw = dict(buffer=buffer, half_open=bool(half_open), points=bool(points), threads=threads)
    meta = slabclip.tile_geometries(geoseries._meta, bounds, cells, **kw)
    bounds = [float(v) for v in bounds]
    cells = [int(v) for v in cells]
    return geoseries.map_partitions(slabclip.tile_geometries, bounds, cells, meta=meta, **kw)
