"""Polylines clipped to rects and cut into grid tiles (SPEC §7), in the ecosystem's own types.

Three layers over one Rust call each:

* **ragged numpy arrays** (:func:`clip_lines`, :func:`clip_lines_each`, :func:`tile_lines`):
  coordinates ``(V, 2)`` float32/float64 (or a tuple ``(x, y)`` of 1-D columns) and ``L + 1``
  int32/int64 offsets, polyline ``j`` being vertices ``offsets[j] … offsets[j+1]``;
  MultiLineStrings add ``geometry_offsets`` (shapely's ``to_ragged_array`` layout: geometry
  offsets into the part offsets). The arrays are read in place, never converted: a wrong
  dtype, shape or a strided array raises and says what to pass instead.
* **shapely and geopandas** (:func:`clip_by_rect`, a drop-in for ``shapely.clip_by_rect`` on
  line geometries, and :func:`tile_geometries`): the geometries' coordinates read into ragged
  arrays, the answer made straight from them by the GEOS library shapely loaded.
* **GeoArrow** (:func:`clip_geoarrow`): any ``geoarrow.linestring`` or
  ``geoarrow.multilinestring`` array that speaks the Arrow PyCapsule interface
  (``__arrow_c_array__`` or ``__arrow_c_stream__``: pyarrow, geoarrow-pyarrow, geopandas'
  ``to_arrow(geometry_encoding="geoarrow")``), interleaved or separated coordinates, read in
  place through pyarrow.

The answer (SPEC §7): each polyline's **parts**, the maximal runs of its clipped segments that
follow one another without a gap, in order along the polyline. Input vertices in the rect come
back bit for bit; a vertex made by the clip lies exactly on the edge that cut and in the closed
rect. A piece along the boundary is inside (the rect is closed). A run that is a single point
(a touch at a corner or a vertex) is a **point of contact**: dropped, or reported apart with
``points=True``. A closed polyline is not joined across its first vertex. The same bits at any
``threads=``.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Mapping
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from . import _args, _native

__all__ = [
    "clip_lines",
    "clip_lines_each",
    "tile_lines",
    "clip_by_rect",
    "tile_geometries",
    "clip_geoarrow",
]


# --------------------------------------------------------------------------------------------
# Checks: nothing is converted, a wrong argument says what to pass.


def _coords(coords):
    """``coords`` as the extension takes it: a C-contiguous ``(V, 2)`` array, or a tuple of two
    contiguous 1-D columns; float32 or float64 in native byte order."""
    if isinstance(coords, Mapping):
        missing = [k for k in ("x", "y") if k not in coords]
        if missing:
            raise ValueError(f"coords as columns needs the keys x and y; missing {', '.join(missing)}")
        coords = (coords["x"], coords["y"])
    if isinstance(coords, tuple):
        if len(coords) != 2:
            raise ValueError(f"coords as columns must be a tuple (x, y) of two 1-D arrays, got {len(coords)}")
        for name, c in zip("xy", coords):
            if not isinstance(c, np.ndarray):
                raise TypeError(f"coords column {name} must be a numpy array, got {type(c).__name__}")
            _float(c.dtype, f"coords column {name}")
            if c.ndim != 1:
                raise ValueError(f"coords column {name} must be 1-D, got shape {c.shape}")
            if not c.flags.c_contiguous:
                raise ValueError(f"coords column {name} must be contiguous "
                                 "(np.ascontiguousarray makes a contiguous copy)")
        if coords[0].dtype != coords[1].dtype:
            raise TypeError(f"coords columns x and y must have one dtype, got {coords[0].dtype} "
                            f"and {coords[1].dtype}")
        if len(coords[0]) != len(coords[1]):
            raise ValueError(f"coords columns x and y must have one length, got {len(coords[0])} "
                             f"and {len(coords[1])}")
        return coords, coords[0].dtype
    if not isinstance(coords, np.ndarray):
        raise TypeError(
            "coords must be a float32 or float64 numpy array of shape (V, 2) or a tuple (x, y) of "
            f"1-D arrays, got {type(coords).__name__} (np.asarray(coords, dtype=np.float64) makes one)"
        )
    _float(coords.dtype, "coords")
    if coords.ndim != 2 or coords.shape[1] != 2:
        hint = ""
        if coords.ndim == 2 and coords.shape[1] == 3:
            hint = ": these are 3-D coordinates, and the clip is 2-D (drop z explicitly)"
        raise ValueError(f"coords must have shape (V, 2), got {coords.shape}{hint}")
    if not coords.flags.c_contiguous:
        raise ValueError("coords must be C-contiguous (np.ascontiguousarray makes a contiguous copy)")
    return coords, coords.dtype


def _float(dt: np.dtype, what: str) -> None:
    if dt.kind != "f" or dt.itemsize not in (4, 8):
        raise TypeError(f"{what} must be float32 or float64, got {dt} "
                        "(convert explicitly, e.g. .astype(np.float64))")
    if not dt.isnative:
        raise TypeError(f"{what} must be in the machine's byte order, got {dt} "
                        f"(.astype({dt.newbyteorder('=')!s}) converts)")


def _offsets(offsets, what: str) -> np.ndarray:
    if not isinstance(offsets, np.ndarray):
        raise TypeError(f"{what} must be an int32 or int64 numpy array, got {type(offsets).__name__} "
                        "(np.asarray(..., dtype=np.int64) makes one)")
    dt = offsets.dtype
    if dt.kind != "i" or dt.itemsize not in (4, 8) or not dt.isnative:
        raise TypeError(f"{what} must be int32 or int64 (native byte order), got {dt}")
    if offsets.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {offsets.shape}")
    if not offsets.flags.c_contiguous:
        raise ValueError(f"{what} must be contiguous (np.ascontiguousarray makes a contiguous copy)")
    return offsets


def _rect(rect) -> list:
    r = np.asarray(rect)
    if r.shape != (4,):
        raise ValueError(f"rect must be (xmin, ymin, xmax, ymax), got shape {r.shape}")
    if r.dtype.kind not in "biuf":
        raise TypeError(f"rect must hold real numbers, got dtype {r.dtype}")
    return [float(v) for v in r]


def _inputs(coords, offsets, geometry_offsets):
    c, dt = _coords(coords)
    o = _offsets(offsets, "offsets")
    g = None if geometry_offsets is None else _offsets(geometry_offsets, "geometry_offsets")
    return c, o, g, dt


_PARTS_DOC = """
    Returns
    -------
    dict of numpy arrays (moved out of the library without a copy):

    * ``coords`` ``(n, 2)``, the coordinates' dtype: the vertices of every part;
    * ``offsets`` ``(P + 1,)`` int64: part ``k`` is ``coords[offsets[k]:offsets[k+1]]`` (at
      least two vertices);
    * ``polyline`` ``(P,)`` int64: the polyline each part came from (an index into
      ``offsets`` of the input, also for MultiLineStrings);
    * ``geometry`` ``(P,)`` int64, with ``geometry_offsets`` only: the geometry it came from;{tiles}
    * with ``points=True``: ``points`` ``(K, 2)``, the single points of contact, and
      ``point_polyline`` (and ``point_geometry``{point_tiles}), their owners.
"""


def clip_lines(
    coords,
    offsets: np.ndarray,
    rect: Sequence[float],
    *,
    geometry_offsets: Optional[np.ndarray] = None,
    points: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Clips every polyline of a ragged batch to one closed rect (SPEC §7).

    Parameters
    ----------
    coords : ``(V, 2)`` float32 or float64 array, C-contiguous (shapely's ``to_ragged_array``
        coordinates, GeoArrow's interleaved ones), or a tuple ``(x, y)`` of contiguous 1-D
        arrays of one dtype (GeoArrow's separated ones). Read in place, computed in its dtype.
    offsets : ``(L + 1,)`` int32 or int64: polyline ``j`` is vertices ``offsets[j]`` to
        ``offsets[j+1]`` (excluded). The first may be above 0 and the last below ``V`` (a
        slice). A polyline of no vertices clips to nothing; one of a single vertex is an error.
    rect : ``(xmin, ymin, xmax, ymax)``, rounded to the coordinates' dtype.
    geometry_offsets : ``(G + 1,)`` int32 or int64, for MultiLineStrings: geometry ``g`` is
        polylines ``geometry_offsets[g]`` to ``geometry_offsets[g+1]``. Only the polylines the
        geometries hold are clipped.
    points : also report single points of contact (a graze of a corner, a touch at a vertex).
    threads : run in a pool of this many threads (1 to ``MAX_THREADS``); 1: on the calling
        thread alone. The answer is the same bits at any count.
    {parts}
    Raises
    ------
    TypeError
        ``coords`` not a float32/float64 numpy array, offsets not int32/int64.
    ValueError
        A wrong shape, a strided array, an invalid rect, or offsets that are negative,
        decrease, overrun the coordinates or make a polyline of one vertex (the message names
        the polyline or geometry).

    Example
    -------
    >>> xy = np.array([[-1.0, 0.5], [0.5, 0.5], [0.5, 2.0], [2.0, 2.0]])
    >>> r = clip_lines(xy, np.array([0, 4]), (0, 0, 1, 1))
    >>> r["coords"].tolist(), r["offsets"].tolist(), r["polyline"].tolist()
    ([[0.0, 0.5], [0.5, 0.5], [0.5, 1.0]], [0, 3], [0])
    """
    c, o, g, _ = _inputs(coords, offsets, geometry_offsets)
    return dict(_native.clip_lines(c, o, g, rect=_rect(rect), points=bool(points),
                                   threads=_args.threads(threads)))


def clip_lines_each(
    coords,
    offsets: np.ndarray,
    rects,
    *,
    geometry_offsets: Optional[np.ndarray] = None,
    points: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Clips polyline ``j`` to rect ``j`` (with ``geometry_offsets``: the polylines of geometry
    ``g`` to rect ``g``), SPEC §7.

    Parameters
    ----------
    coords, offsets, geometry_offsets, points, threads : as in :func:`clip_lines`.
    rects : ``(L, 4)`` rows ``xmin, ymin, xmax, ymax``, one per polyline (``(G, 4)``, one per
        geometry, with ``geometry_offsets``); converted to the coordinates' dtype.
    {parts}
    Raises
    ------
    As :func:`clip_lines`; also ``ValueError`` for a rect count that is not one per polyline
    (or geometry), or an invalid rect (naming its row).

    Example
    -------
    >>> xy = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 1.0], [4.0, 1.0]])
    >>> r = clip_lines_each(xy, np.array([0, 2, 4]), np.array([[1.0, -1, 2, 2], [3, 0, 5, 2]]))
    >>> r["coords"].tolist()
    [[1.0, 0.0], [2.0, 0.0], [3.0, 1.0], [4.0, 1.0]]
    """
    c, o, g, dt = _inputs(coords, offsets, geometry_offsets)
    r = np.asarray(rects)
    if r.ndim != 2 or r.shape[1] != 4:
        raise ValueError(f"rects must have shape (L, 4), got shape {r.shape}")
    if r.dtype.kind not in "biuf":
        raise TypeError(f"rects must hold real numbers, got dtype {r.dtype}")
    r = np.ascontiguousarray(r, dtype=dt)
    return dict(_native.clip_lines(c, o, g, rects=r, points=bool(points),
                                   threads=_args.threads(threads)))


def _buffer(buffer) -> Optional[float]:
    if buffer is None:
        return None
    return _args.number(buffer, "buffer")


def tile_lines(
    coords,
    offsets: np.ndarray,
    bounds: Sequence[float],
    cells: Tuple[int, int],
    *,
    geometry_offsets: Optional[np.ndarray] = None,
    buffer: Optional[float] = None,
    half_open: bool = False,
    points: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Cuts every polyline into the cells of a regular grid of ``cells = (nx, ny)`` cells over
    ``bounds = (xmin, ymin, xmax, ymax)`` (SPEC §7, tiles): per (polyline, cell), the parts of
    the runs of pieces that cell gets.

    Order: polylines in input order; a polyline's parts by cell ``iy * nx + ix``, then along
    the polyline. Without a buffer the tiles are watertight: where a polyline crosses from one
    cell into the next, the cut vertex ending a part in one is bit for bit the vertex starting
    a part in the other (even through a grid vertex). Cells are closed: a piece on a shared
    line goes to the cells on both sides; ``half_open=True`` gives it to one cell only (the
    grid's rule, ``[lo, hi)`` but closed at the grid's upper bounds). ``buffer=b`` (finite,
    ``≥ 0``, rounded to the coordinates' dtype) grows every cell to
    ``[xs[i] - b, xs[i+1] + b] × [ys[j] - b, ys[j+1] + b]`` (each bound rounded once), cells
    at the grid's edge past it; buffered cells are closed and overlap, so a buffer with
    ``half_open`` is an error.

    Parameters
    ----------
    coords, offsets, geometry_offsets, points, threads : as in :func:`clip_lines`.
    bounds : the grid's rect, rounded to the coordinates' dtype.
    cells : ``(nx, ny)``, each from 1 to ``MAX_CELLS_PER_AXIS``.
    buffer, half_open : see above.
    {parts}
    Raises
    ------
    As :func:`clip_lines`; also ``ValueError`` for a bad grid, a negative or non-finite
    buffer, or a buffer with ``half_open``.

    Example
    -------
    >>> xy = np.array([[0.25, 0.5], [1.75, 0.5]])
    >>> r = tile_lines(xy, np.array([0, 2]), (0, 0, 2, 1), (2, 1))
    >>> r["coords"].tolist(), r["ix"].tolist()
    ([[0.25, 0.5], [1.0, 0.5], [1.0, 0.5], [1.75, 0.5]], [0, 1])
    """
    c, o, g, _ = _inputs(coords, offsets, geometry_offsets)
    return dict(_native.tile_lines(c, o, g, _rect(bounds), _args.cells(cells), bool(half_open),
                                   bool(points), buffer=_buffer(buffer),
                                   threads=_args.threads(threads)))


_TILES_DOC = """
    * ``ix``, ``iy`` ``(P,)`` int64: the cell of each part;"""

clip_lines.__doc__ = clip_lines.__doc__.format(parts=_PARTS_DOC.format(tiles="", point_tiles=""))
clip_lines_each.__doc__ = clip_lines_each.__doc__.format(
    parts=_PARTS_DOC.format(tiles="", point_tiles=""))
tile_lines.__doc__ = tile_lines.__doc__.format(
    parts=_PARTS_DOC.format(tiles=_TILES_DOC, point_tiles=", ``point_ix``, ``point_iy``"))


# --------------------------------------------------------------------------------------------
# shapely and geopandas.


def _shapely():
    try:
        import shapely
    except ImportError:
        raise ImportError("this function needs shapely >= 2 (pip install shapely)") from None
    return shapely


def _geoseries(x):
    """``x`` when it is a geopandas GeoSeries (without importing geopandas otherwise)."""
    gpd = sys.modules.get("geopandas")
    if gpd is not None and isinstance(x, gpd.GeoSeries):
        return x
    return None


_LINESTRING, _MULTILINESTRING = 1, 5


def _where(i: int, labels) -> str:
    return f"position {i}" if labels is None else f"position {i} (index {labels[i]!r})"


def _line_array(geometry, what: str):
    """The geometries as a flat object array, the input's shape (None for a scalar), the
    GeoSeries (or None), and the positions of the line geometries to clip; every other
    geometry must be missing (None) or empty. Raises naming the first bad position."""
    shapely = _shapely()
    gs = _geoseries(geometry)
    if gs is not None:
        arr, shape, labels = np.asarray(gs.values, dtype=object), None, gs.index
    else:
        labels = None
        if isinstance(geometry, shapely.Geometry) or geometry is None:
            arr, shape = np.array([geometry], dtype=object), None
        else:
            arr = np.asarray(geometry, dtype=object)
            shape = arr.shape
            arr = arr.ravel()
        foreign = np.flatnonzero(~shapely.is_valid_input(arr)) if shape is not None else ()
        if len(foreign):
            i = int(foreign[0])
            raise TypeError(f"{what}: {_where(i, labels)} is a {type(arr[i]).__name__}, not a shapely geometry")
    kind = shapely.get_type_id(arr)
    empty = shapely.is_empty(arr)
    lines = np.flatnonzero((kind == _LINESTRING) | (kind == _MULTILINESTRING))
    bad = np.flatnonzero((kind >= 0) & (kind != _LINESTRING) & (kind != _MULTILINESTRING) & ~empty)
    if len(bad):
        i = int(bad[0])
        raise TypeError(
            f"{what}: the geometry at {_where(i, labels)} is a {arr[i].geom_type}; only LineString "
            "and MultiLineString geometries are clipped as lines (missing and empty geometries "
            f"pass through; {len(bad)} such geometr{'y' if len(bad) == 1 else 'ies'} in all)"
        )
    z = lines[shapely.has_z(arr[lines])]
    if len(z):
        i = int(z[0])
        raise ValueError(f"{what}: the geometry at {_where(i, labels)} has z coordinates; the clip "
                         "is 2-D (shapely.force_2d drops z)")
    return arr, shape, gs, lines, kind


def _assemble(n: int, coords, offsets, owner: np.ndarray, order=None, point_xy=None,
              point_owner=None, wkb: Optional[bool] = None):
    """``n`` geometries from the parts of a ragged answer (``coords``, ``offsets``): geometry
    ``g`` gets the parts ``order[k]`` (``k`` when ``order`` is None) for which ``owner[k] ==
    g`` (nondecreasing), in that order. None → ``GEOMETRYCOLLECTION EMPTY``
    (shapely.clip_by_rect's empty answer), one → that LineString, several → a MultiLineString;
    with points of contact (``point_owner`` nondecreasing), a Point or MultiPoint alone, or a
    GeometryCollection of the lines and the points. Made by the GEOS shapely loaded, straight
    from the coordinates, or (``wkb=True``, or where that GEOS cannot be reached) from one WKB
    value per geometry: either way no part is made twice."""
    shapely = _shapely()
    if wkb is None:
        wkb = not _native.shapely_geos()
    # shapely geometries are tracked by Python's cycle collector, which would otherwise run
    # its collections again and again while hundreds of thousands of them are made (a fifth
    # of a tiling's time); they hold no references, so there is no cycle to find meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        made = _native.parts_geometries(
            np.ascontiguousarray(coords, dtype=np.float64), np.asarray(offsets, dtype=np.int64),
            None if order is None else np.asarray(order, dtype=np.int64),
            np.asarray(owner, dtype=np.int64), n,
            None if point_xy is None else np.ascontiguousarray(point_xy, dtype=np.float64),
            None if point_owner is None else np.asarray(point_owner, dtype=np.int64), wkb=wkb,
            empty=shapely.GeometryCollection())
        if wkb:
            values = np.empty(n, dtype=object)
            values[:] = made
            made = shapely.from_wkb(values)
            made[shapely.is_missing(made)] = shapely.GeometryCollection()
    finally:
        if collecting:
            gc.enable()
    return made


def _ragged_lines(arr, lines):
    """shapely's ragged arrays of the line geometries ``arr[lines]``: coords, offsets and the
    geometry offsets (None when all are LineStrings). LineStrings alone need no part index:
    their vertex counts give the offsets (about half the time of ``to_ragged_array``)."""
    shapely = _shapely()
    geoms = arr[lines]
    if not (shapely.get_type_id(geoms) == _MULTILINESTRING).any():
        coords = shapely.get_coordinates(geoms, include_z=False)
        offs = np.zeros(len(geoms) + 1, dtype=np.int64)
        np.cumsum(shapely.get_num_coordinates(geoms), out=offs[1:])
        return np.ascontiguousarray(coords, dtype=np.float64), offs, None
    kind, coords, offs = shapely.to_ragged_array(geoms, include_z=False)
    coords = np.ascontiguousarray(coords, dtype=np.float64)
    if kind == shapely.GeometryType.LINESTRING:
        return coords, offs[0], None
    return coords, offs[0], offs[1]


def clip_by_rect(geometry, xmin: float, ymin: float, xmax: float, ymax: float, *,
                 points: bool = False, threads: Optional[int] = None):
    """``shapely.clip_by_rect`` for line geometries, by slabclip's exact clip (SPEC §7).

    Parameters
    ----------
    geometry : a shapely LineString / MultiLineString, an array (any shape) or sequence of
        them, or a geopandas ``GeoSeries``. ``None`` (missing) gives ``None``; an empty
        geometry of any type gives ``GEOMETRYCOLLECTION EMPTY``.
    xmin, ymin, xmax, ymax : the closed rect.
    points : keep single points of contact (see below).
    threads : as in :func:`clip_lines`.

    Returns
    -------
    What ``shapely.clip_by_rect`` returns, in the same container: a geometry for a geometry,
    an object array of the input's shape, a ``GeoSeries`` with the input's index, name and
    CRS. Per geometry: its parts in order, one part as a ``LineString``, several as a
    ``MultiLineString``, none as ``GEOMETRYCOLLECTION EMPTY`` (as shapely).

    Where it differs from ``shapely.clip_by_rect`` (on purpose, SPEC §7):

    * the rect is closed: a line along its boundary is kept (shapely drops it);
    * a line that meets the rect in one point only (a corner graze, a touch at a vertex)
      gives nothing, as in shapely; with ``points=True`` that point comes back, as a
      ``Point`` (``MultiPoint`` for several), or beside the parts in a
      ``GeometryCollection``;
    * input vertices come back bit for bit, cut vertices lie exactly on the cutting edge.

    Raises
    ------
    TypeError
        A non-empty geometry that is not a LineString or MultiLineString (the message names
        its position, and its index label for a GeoSeries).
    ValueError
        Geometries with z coordinates, an invalid rect.

    Example
    -------
    >>> import shapely
    >>> str(clip_by_rect(shapely.LineString([(-1, 0.5), (2, 0.5)]), 0, 0, 1, 1))
    'LINESTRING (0 0.5, 1 0.5)'
    """
    shapely = _shapely()
    rect = _rect((xmin, ymin, xmax, ymax))
    arr, shape, gs, lines, _ = _line_array(geometry, "clip_by_rect")
    out = np.empty(len(arr), dtype=object)
    present = np.flatnonzero(~shapely.is_missing(arr))
    out[present] = shapely.GeometryCollection()
    if len(lines):
        coords, offs, geo = _ragged_lines(arr, lines)
        r = _native.clip_lines(coords, offs, geo, rect=rect, points=bool(points),
                               threads=_args.threads(threads))
        owner = r["polyline"] if geo is None else r["geometry"]
        p_xy = p_owner = None
        if points:
            p_xy = r["points"]
            p_owner = r["point_polyline"] if geo is None else r["point_geometry"]
        out[lines] = _assemble(len(lines), r["coords"], r["offsets"], owner, None, p_xy, p_owner)
    else:  # nothing to clip: the rect and thread count are still checked
        _native.clip_lines(np.empty((0, 2)), np.zeros(1, np.int64), None, rect=rect,
                           threads=_args.threads(threads))
    if gs is not None:
        import geopandas
        return geopandas.GeoSeries(out, index=gs.index, crs=gs.crs, name=gs.name)
    if shape is None:
        return out[0]
    return out.reshape(shape)


def _in_key_order(key: np.ndarray):
    """The stable order of ``key`` (None when it is in order already) and the keys in it."""
    if len(key) < 2 or (key[1:] >= key[:-1]).all():
        return None, key
    order = np.argsort(key, kind="stable")
    return order, key[order]


def _firsts(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal keys of a sorted array starts."""
    first = np.ones(len(sorted_keys), dtype=bool)
    first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return first


def _distinct(sorted_keys: np.ndarray) -> np.ndarray:
    """The distinct keys of a sorted array, in order (``np.unique`` without its sort)."""
    return sorted_keys[_firsts(sorted_keys)]


def tile_geometries(geometry, bounds: Sequence[float], cells: Tuple[int, int], *,
                    buffer: Optional[float] = None, half_open: bool = False,
                    points: bool = False, threads: Optional[int] = None):
    """Cuts line geometries into the cells of a regular grid (:func:`tile_lines` on shapely
    or geopandas input): one row per (geometry, cell) that gets a part (or, with
    ``points=True``, a point of contact).

    Parameters
    ----------
    geometry : LineString / MultiLineString geometries as for :func:`clip_by_rect`.
    bounds, cells, buffer, half_open, points, threads : as in :func:`tile_lines`.

    Returns
    -------
    For a ``GeoSeries``: a ``GeoDataFrame`` with columns ``row`` (the source's index label),
    ``ix``, ``iy`` (int64) and ``geometry`` (the source's CRS). Otherwise a dict of arrays
    ``geometry`` (object), ``row`` (int64 position in the flattened input), ``ix``, ``iy``.
    Rows come by source geometry, then cell ``iy * nx + ix``; a row's geometry is its parts in
    order along the source (a ``LineString`` for one, a ``MultiLineString`` for several),
    with points of contact as in :func:`clip_by_rect`.

    Raises
    ------
    As :func:`clip_by_rect` and :func:`tile_lines`.

    Example
    -------
    >>> import shapely
    >>> t = tile_geometries([shapely.LineString([(0.5, 0.5), (1.5, 0.5)])], (0, 0, 2, 1), (2, 1))
    >>> [str(g) for g in t["geometry"]], t["ix"].tolist()
    (['LINESTRING (0.5 0.5, 1 0.5)', 'LINESTRING (1 0.5, 1.5 0.5)'], [0, 1])
    """
    shapely = _shapely()
    b, c = _rect(bounds), _args.cells(cells)
    arr, _, gs, lines, _ = _line_array(geometry, "tile_geometries")
    nx = c[0]
    if len(lines):
        coords, offs, geo = _ragged_lines(arr, lines)
        r = _native.tile_lines(coords, offs, geo, b, c, bool(half_open), bool(points),
                               buffer=_buffer(buffer), threads=_args.threads(threads))
    else:
        e = np.empty((0, 2))
        r = _native.tile_lines(e, np.zeros(1, np.int64), None, b, c, bool(half_open),
                               bool(points), buffer=_buffer(buffer), threads=_args.threads(threads))
        geo = None
    owner = r["polyline"] if geo is None else r["geometry"]
    key = owner * (nx * c[1]) + r["iy"] * nx + r["ix"]
    # Parts come by polyline, then cell, then along the polyline: for LineStrings the keys
    # are already in order. A MultiLineString's polylines each start over at its first cell,
    # so there a stable sort by key puts each (geometry, cell)'s parts together, in order
    # along the geometry. Points of contact likewise, apart.
    order, key = _in_key_order(key)
    p_xy = p_group = None
    if points:
        p_owner = r["point_polyline"] if geo is None else r["point_geometry"]
        p_order, p_key = _in_key_order(p_owner * (nx * c[1]) + r["point_iy"] * nx + r["point_ix"])
        keys = _distinct(np.sort(np.concatenate([_distinct(key), _distinct(p_key)]), kind="stable"))
        group = np.searchsorted(keys, key)
        p_xy = r["points"] if p_order is None else r["points"][p_order]
        p_group = np.searchsorted(keys, p_key)
    else:
        first = _firsts(key)
        keys, group = key[first], np.cumsum(first) - 1
    geoms = _assemble(len(keys), r["coords"], r["offsets"], group, order, p_xy, p_group)
    src = lines[keys // (nx * c[1])]
    cell = keys % (nx * c[1])
    ix, iy = cell % nx, cell // nx
    if gs is not None:
        import geopandas
        return geopandas.GeoDataFrame(
            {"row": gs.index[src], "ix": ix, "iy": iy}, geometry=geoms, crs=gs.crs)
    return {"geometry": geoms, "row": src.astype(np.int64), "ix": ix, "iy": iy}


# --------------------------------------------------------------------------------------------
# GeoArrow, through the Arrow PyCapsule interface (pyarrow reads the buffers in place).

_EXT_NAME = b"ARROW:extension:name"
_EXT_META = b"ARROW:extension:metadata"


def _pyarrow():
    try:
        import pyarrow as pa
    except ImportError:
        raise ImportError("clip_geoarrow needs pyarrow (pip install pyarrow geoarrow-pyarrow)") from None
    try:
        import geoarrow.pyarrow  # noqa: F401  (registers the geoarrow.* extension types)
    except ImportError:
        raise ImportError("clip_geoarrow returns a geoarrow-pyarrow array: pip install "
                          "geoarrow-pyarrow") from None
    return pa


def _import_arrow(obj, pa):
    """``(chunks, extension name, extension metadata, chunked)`` of an object speaking the Arrow
    PyCapsule interface; the chunks are the storage arrays."""
    if hasattr(obj, "__arrow_c_array__"):
        schema, _ = obj.__arrow_c_array__()
        field = pa.Field._import_from_c_capsule(schema)
        arr = pa.Array._import_from_c_capsule(*obj.__arrow_c_array__())
        chunks, chunked = [arr], False
    elif hasattr(obj, "__arrow_c_stream__"):
        ca = obj if isinstance(obj, pa.ChunkedArray) else \
            pa.ChunkedArray._import_from_c_capsule(obj.__arrow_c_stream__())
        field, chunks, chunked = pa.field("", ca.type), ca.chunks, True
        if not chunks:
            chunks = [pa.array([], type=ca.type)]
    else:
        raise TypeError("clip_geoarrow takes an Arrow array (an object with __arrow_c_array__ or "
                        f"__arrow_c_stream__), got {type(obj).__name__}")
    t = chunks[0].type
    if isinstance(t, pa.ExtensionType):
        name, meta = t.extension_name, t.__arrow_ext_serialize__()
        chunks = [c.storage for c in chunks]
    else:
        md = field.metadata or {}
        name, meta = md.get(_EXT_NAME, b"").decode(), md.get(_EXT_META, b"")
    return chunks, name, meta, chunked


def _coords_of(child, pa):
    """The coordinate array of a GeoArrow vertex array, in place: ``(V, 2)`` for interleaved
    ``fixed_size_list<double>[2]``, ``(x, y)`` for separated ``struct<x, y>``."""
    t = child.type
    if child.null_count:
        raise ValueError("GeoArrow coordinates must not be null")
    if pa.types.is_fixed_size_list(t):
        if t.list_size != 2:
            raise ValueError(f"GeoArrow coordinates of {t.list_size} dimensions: the clip is 2-D (xy)")
        flat = child.values.slice(child.offset * 2, len(child) * 2)
        v = flat.to_numpy(zero_copy_only=True)
        return v.reshape(-1, 2)
    if pa.types.is_struct(t):
        names = [t.field(k).name for k in range(t.num_fields)]
        if names != ["x", "y"]:
            raise ValueError(f"GeoArrow separated coordinates must be struct<x, y>, got fields {names}")
        x, y = child.flatten()
        return (x.to_numpy(zero_copy_only=True), y.to_numpy(zero_copy_only=True))
    raise ValueError(f"GeoArrow coordinates must be fixed_size_list[2] or struct<x, y>, got {t}")


def _list_parts(arr, pa):
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        raise ValueError(f"expected a GeoArrow list array, got {arr.type}")
    return arr.offsets.to_numpy(zero_copy_only=True), arr.values


def _geoarrow_types(pa, big: bool):
    lst = pa.large_list if big else pa.list_
    xy = pa.list_(pa.field("xy", pa.float64(), nullable=False), 2)
    vertices = lst(pa.field("vertices", xy, nullable=False))
    return xy, vertices, lst(pa.field("linestrings", vertices, nullable=False))


def _clip_chunk(arr, name, rect, threads, pa):
    """One storage array clipped: the geoarrow.multilinestring storage array of its parts."""
    if name == "geoarrow.linestring":
        offs, child = _list_parts(arr, pa)
        geo = None
    elif name == "geoarrow.multilinestring":
        geo, lines = _list_parts(arr, pa)
        offs, child = _list_parts(lines, pa)
    else:
        raise ValueError("clip_geoarrow takes geoarrow.linestring or geoarrow.multilinestring "
                         f"arrays, got {name or 'an array without a GeoArrow extension type'} "
                         f"(storage {arr.type})")
    coords = _coords_of(child, pa)
    if isinstance(coords, np.ndarray) and not coords.flags.c_contiguous:
        raise ValueError("GeoArrow coordinates are not contiguous")
    r = _native.clip_lines(coords, offs, geo, rect=rect, points=False, threads=threads)
    owner = r["polyline"] if geo is None else r["geometry"]
    g_off = np.zeros(len(arr) + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=len(arr)), out=g_off[1:])
    p_off = r["offsets"]
    big = max(int(p_off[-1]), int(g_off[-1])) >= 2**31
    if not big:
        p_off, g_off = p_off.astype(np.int32), g_off.astype(np.int32)
    xy_t, vert_t, mls_t = _geoarrow_types(pa, big)
    xy = pa.FixedSizeListArray.from_arrays(pa.array(r["coords"].reshape(-1)), type=xy_t)
    parts = (pa.LargeListArray if big else pa.ListArray).from_arrays(pa.array(p_off), xy, type=vert_t)
    mask = None
    if arr.null_count:
        mask = arr.is_null()
    cls = pa.LargeListArray if big else pa.ListArray
    return cls.from_arrays(pa.array(g_off), parts, type=mls_t, mask=mask)


def clip_geoarrow(array, rect: Sequence[float], *, threads: Optional[int] = None):
    """Clips a GeoArrow line array to one closed rect (SPEC §7): :func:`clip_lines` on its
    buffers, read in place.

    Parameters
    ----------
    array : a ``geoarrow.linestring`` or ``geoarrow.multilinestring`` array, as any object
        with ``__arrow_c_array__`` (a pyarrow or geoarrow-pyarrow array, geopandas'
        ``GeoSeries.to_arrow(geometry_encoding="geoarrow")``) or ``__arrow_c_stream__`` (a
        chunked array: each chunk is clipped on its own). Interleaved (``xy``) or separated
        (``struct<x, y>``) float64 coordinates, ``list`` or ``large_list`` offsets.
    rect : ``(xmin, ymin, xmax, ymax)``.
    threads : as in :func:`clip_lines`.

    Returns
    -------
    A geoarrow-pyarrow ``geoarrow.multilinestring`` array (a ``pyarrow.ChunkedArray`` of
    them for stream input) with interleaved coordinates: one entry per input geometry, its
    parts in order (no parts: an empty MultiLineString), null where the input was null,
    the input's extension metadata (CRS, edges) kept. Points of contact are dropped.

    Raises
    ------
    ImportError
        Without pyarrow or geoarrow-pyarrow.
    TypeError
        Not an Arrow array.
    ValueError
        Another geometry type, coordinates of 3 or 4 dimensions, null coordinates, an
        invalid rect or offsets (naming the polyline or geometry).

    Example
    -------
    >>> import geoarrow.pyarrow as ga
    >>> a = ga.as_geoarrow(["LINESTRING (-1 0.5, 2 0.5)"])
    >>> clip_geoarrow(a, (0, 0, 1, 1)).to_pylist()[0]
    [[[0.0, 0.5], [1.0, 0.5]]]
    """
    pa = _pyarrow()
    rect = _rect(rect)
    threads = _args.threads(threads)
    chunks, name, meta, chunked = _import_arrow(array, pa)
    out = [_clip_chunk(c, name, rect, threads, pa) for c in chunks]
    field = pa.field("geometry", out[0].type,
                     metadata={_EXT_NAME: b"geoarrow.multilinestring", _EXT_META: meta or b"{}"})
    schema = field.__arrow_c_schema__()
    res = [pa.Array._import_from_c_capsule(field.__arrow_c_schema__() if k else schema,
                                           o.__arrow_c_array__()[1]) for k, o in enumerate(out)]
    if chunked:
        return pa.chunked_array(res, type=res[0].type)
    return res[0]
