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

Rays against a :class:`slabclip.Scene` (:func:`cast`) go the same way, the scene sent to each
worker once (not once per block).
"""

from __future__ import annotations

import operator
from typing import Dict, Iterable, Optional, Sequence

import numpy as np

import slabclip

__all__ = ["clip", "grid_pieces", "clip_by_rect", "tile_geometries", "cast"]


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
_cast_fields = ("t", "s", "index", "nx", "ny")


def _cast_block(block: np.ndarray, scene, t_max: float, outputs: Sequence[str], threads):
    """One block of rays against the scene, all outputs in one structured array."""
    res = scene.cast(block, t_max=t_max, outputs=outputs, threads=threads)
    rec = np.empty(len(block), dtype=_cast_dtype(block.dtype, outputs))
    for name in outputs:
        rec[name] = res[name]
    return rec


def _cast_dtype(dt: np.dtype, outputs: Sequence[str]) -> np.dtype:
    fields = {"t": dt, "s": dt, "index": np.int64, "nx": dt, "ny": dt}
    return np.dtype([(name, fields[name]) for name in outputs])


def _shipped(scene):
    """The scene as the graph refers to it: with a ``distributed`` client, scattered to every
    worker once (``broadcast=True``: each worker unpickles it once, the scheduler never does);
    without one, one delayed value that every block's task depends on (never pickled by the
    local schedulers)."""
    import dask

    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        return dask.delayed(scene, pure=True)
    return client.scatter(scene, broadcast=True, hash=False)


def cast(
    rays,
    scene: "slabclip.Scene",
    *,
    t_max: float = float("inf"),
    outputs: Iterable[str] = _cast_fields,
    threads: Optional[int] = None,
) -> Dict[str, "dask.array.Array"]:  # noqa: F821
    """Lazy :meth:`slabclip.Scene.cast` of an ``(N, 4)`` dask array of rays (rows ``ox, oy,
    dx, dy``), block by block, against one scene.

    The scene is sent to each worker once, not once per block: with a ``distributed`` client
    it is scattered to every worker when this function is called (``client.scatter(scene,
    broadcast=True)``: the workers each unpickle it, rebuilding its index, once); with a local
    scheduler (threads, sync) it is one value every block's task shares, never copied. Compute
    the outputs together (``dask.compute(result)``): between separate computations,
    distributed's active memory manager may drop the extra copies, and the next computation
    sends the scene again. Rays are converted to the scene's dtype.

    Parameters
    ----------
    rays : ``(N, 4)`` dask array (or anything ``dask.array.asarray`` takes), chunked by rows
        (a chunking of the 4 columns is undone first).
    scene : a :class:`slabclip.Scene`.
    t_max, outputs, threads : as for :meth:`slabclip.Scene.cast` (``threads`` is the pool of
        each block's call, on its worker).

    Returns
    -------
    dict of 1-D dask arrays, one per output, chunked like the rays' rows: the bits of
    ``scene.cast`` on the whole array in memory.

    Raises
    ------
    ValueError, TypeError
        At the call, before anything runs: rays of a wrong shape or dtype, an unknown output,
        ``t_max`` NaN or negative, a bad ``threads``, a scene that is not a Scene.

    Example
    -------
    >>> import dask.array as da
    >>> scene = slabclip.Scene(np.array([[2.0, -1.0, 2.0, 1.0]]))
    >>> rays = da.from_array(np.array([[0.0, 0.0, 1.0, 0.0]] * 4), chunks=(2, 4))
    >>> cast(rays, scene, outputs=["t"])["t"].compute().tolist()
    [2.0, 2.0, 2.0, 2.0]
    """
    if not isinstance(scene, slabclip.Scene):
        raise TypeError(f"scene must be a slabclip.Scene, got {type(scene).__name__}")
    outputs = tuple(dict.fromkeys(slabclip._args.output_names(outputs, _cast_fields)))
    if not outputs:
        raise ValueError("ask for at least one output")
    import dask.array as da

    if not isinstance(rays, da.Array):
        rays = da.asarray(rays)
    if rays.ndim != 2 or rays.shape[1] != 4:
        raise ValueError(f"rays must have shape (N, 4), rows ox, oy, dx, dy, got shape {rays.shape}")
    if np.dtype(rays.dtype).kind not in "biuf":
        raise TypeError(f"rays must hold real numbers, got dtype {rays.dtype}")
    dt = scene.dtype
    if rays.dtype != dt:
        rays = rays.astype(dt)
    if len(rays.chunks[1]) != 1:
        rays = rays.rechunk({1: 4})
    # Every argument is checked now, on an empty batch, rather than on a worker.
    scene.cast(np.empty((0, 4), dt), t_max=t_max, outputs=outputs, threads=threads)
    t_max = float(t_max)
    rec_dt = _cast_dtype(dt, outputs)
    rec = rays.map_blocks(
        _cast_block,
        _shipped(scene),
        t_max,
        outputs,
        threads,
        dtype=rec_dt,
        drop_axis=1,
        chunks=(rays.chunks[0],),
        meta=np.empty(0, dtype=rec_dt),
    )
    return {
        name: rec.map_blocks(operator.itemgetter(name), dtype=rec_dt[name],
                             meta=np.empty(0, dtype=rec_dt[name]))
        for name in outputs
    }
