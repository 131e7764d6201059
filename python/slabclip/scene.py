"""Scenes: walls built once into an index, then any number of ray batches against them.

A :class:`Scene` holds M walls (segments) in a tree built once. Its queries cost about
``log M`` per ray instead of ``M``, and every answer is bit for bit what
:func:`slabclip.cast_segments` (every ray against every wall) gives on the same walls: the
same ``t``, ``s``, index, normal, ties to the lowest index, whatever the tree's shape, the
thread count and the order of the rays. Walls with a NaN or infinite coordinate are never hit.

* :meth:`Scene.cast`: each ray's closest hit; :meth:`Scene.any_hit`: whether there is one;
* :meth:`Scene.line_of_sight`: whether a wall meets the segment ``A → B``, decided exactly;
* :meth:`Scene.lidar`: poses × beam angles (:func:`lidar_rays` gives the beams);
* :meth:`Scene.visibility_polygon`, :meth:`Scene.visibility_polygons`: the part of a rect
  seen from a viewpoint;
* :meth:`Scene.refit`: the walls moved, the tree keeps its shape.

A scene pickles as its walls and is built again where it is unpickled (so it can be sent to
the workers of :mod:`slabclip.dask`).
"""

from __future__ import annotations

import enum
import math
from typing import Dict, Iterable, Mapping, Optional, Tuple

import numpy as np

from . import (
    _args,
    _finish,
    _float_dtype,
    _native,
    _outputs,
    _rect,
    _rows_or_columns,
    _t_max,
    _threads,
)

__all__ = ["Scene", "Sight", "lidar_rays"]

_CAST_KINDS = {"t": None, "s": None, "index": np.int64, "nx": None, "ny": None}
_CAST_OUTPUTS = ("t", "s", "index", "nx", "ny")
_POSE_COLUMNS = ("x", "y", "heading")

#: How many scenes this process has built from a pickle (:mod:`slabclip.dask` ships a scene
#: to each worker once: its tests count here).
_unpickled = 0


class Sight(enum.IntEnum):
    """The ``uint8`` codes of :meth:`Scene.line_of_sight`."""

    VISIBLE = 0
    """No wall meets the segment ``A → B`` (but at an excluded end)."""
    BLOCKED = 1
    """Some wall meets the segment."""
    INVALID = 255
    """``A == B``, or a NaN or infinite coordinate."""


def _walls_dtype(dtypes, dtype) -> np.dtype:
    if dtype is None:
        return _float_dtype(dtypes, "walls")
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    return dt


def _column(x, name: str, dt: np.dtype) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    _float_dtype([a.dtype], name)
    return np.ascontiguousarray(a, dtype=dt)


def _poses(poses, dt: np.dtype) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P, 3)`` rows ``x, y, heading`` or a mapping with those three columns."""
    if isinstance(poses, Mapping) or callable(getattr(poses, "keys", None)) or (
        isinstance(poses, np.ndarray) and poses.dtype.names is not None
    ):
        keys = poses.dtype.names if isinstance(poses, np.ndarray) else list(poses.keys())
        missing = [k for k in _POSE_COLUMNS if k not in keys]
        if missing:
            raise ValueError(f"poses as columns needs the keys x, y, heading; missing {', '.join(missing)}")
        return tuple(_column(poses[k], f"poses column {k}", dt) for k in _POSE_COLUMNS)
    a = np.asarray(poses)
    if a.ndim == 1 and a.shape == (3,):
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"poses must have shape (P, 3), rows x, y, heading, got shape {a.shape}")
    _float_dtype([a.dtype], "poses")
    a = a.astype(dt, copy=False)
    return tuple(np.ascontiguousarray(a[:, k]) for k in range(3))


def _angles(angles, dt: np.dtype) -> np.ndarray:
    a = np.asarray(angles)
    if a.ndim == 0:
        a = a[None]
    return _column(a, "angles", dt)


def _points(p, name: str, dt: np.dtype) -> np.ndarray:
    a = np.asarray(p)
    if a.ndim == 1 and a.shape == (2,):
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"{name} must have shape (N, 2) or (2,), got shape {a.shape}")
    _float_dtype([a.dtype], name)
    return a.astype(dt, copy=False)


def lidar_rays(poses, angles, *, dtype=None) -> np.ndarray:
    """The rays of a lidar scan: beam ``k`` of pose ``p`` is row ``p·K + k`` ``ox, oy, dx, dy``.

    Parameters
    ----------
    poses : ``(P, 3)`` rows ``x, y, heading`` (radians, counter-clockwise from +x), one pose
        ``(3,)``, or a mapping with columns ``x``, ``y``, ``heading``.
    angles : ``(K,)`` beam angles in radians, relative to the heading.
    dtype : float32 or float64 (default: float32 when both inputs are float32, else float64).

    Returns
    -------
    ``(P·K, 4)`` array of rays: the origin is the pose's position, the direction
    ``(cos(h + a), sin(h + a))`` computed as the heading's unit vector turned by the beam's, in
    float64, rounded once (so ``t`` is the range within a few ulps). :meth:`Scene.lidar`
    casts exactly these rays.

    Raises
    ------
    ValueError
        Poses or angles of a wrong shape, pose columns of different lengths.
    TypeError
        A dtype that is not a real number.

    Example
    -------
    >>> lidar_rays([[0.0, 0.0, 0.0]], [0.0, math.pi / 2]).round(12).tolist()
    [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    """
    ang = np.asarray(angles)
    if dtype is None:
        pa = poses if isinstance(poses, np.ndarray) and poses.dtype.names is None else None
        dts = [ang.dtype] + ([pa.dtype] if pa is not None else [np.dtype(np.float64)])
        dt = _float_dtype(dts, "poses")
    else:
        dt = _walls_dtype([], dtype)
    x, y, h = _poses(poses, dt)
    return _native.lidar_rays(x, y, h, _angles(angles, dt))


class Scene:
    """Walls built once into an index for ray casts, any-hit queries, lines of sight, lidar
    scans and visibility polygons (SPEC §2 of the repository: bit for bit
    :func:`slabclip.cast_segments` on the same walls).

    Parameters
    ----------
    walls : rows ``x0, y0, x1, y1`` (an ``(M, 4)`` array or anything ``np.asarray`` reads as
        one), or a dict of four 1-D columns ``{"x0": ..., "y0": ..., "x1": ..., "y1": ...}``.
        Wall ``i`` is reported as index ``i``. NaN or infinite walls are kept (and never hit),
        so indices stay those of the input.
    dtype : the scene's precision, float32 or float64 (default: float32 when the walls are
        float32, else float64). Every query's inputs are converted to it.
    index : which index closest and any hits walk: ``"auto"`` (the default: a uniform grid
        beside the tree where the walls spread over their box, built once the scene has cast
        one ray per eight walls), ``"tree"`` (the tree alone) or ``"grid"`` (the grid built at
        once wherever it can be). The answers are the same bits with each; only the speed
        and :attr:`index_bytes` differ. Lidar scans and lines of sight walk the tree.

    The scene keeps a copy of its walls (16 or 32 bytes each) besides the index
    (:attr:`index_bytes`).

    Raises
    ------
    ValueError
        Walls of a wrong shape; more walls than the dtype indexes exactly (2^24 for float32);
        an index other than the three.
    TypeError
        A dtype that is not a real number.

    Example
    -------
    >>> scene = Scene(np.array([[2.0, -1.0, 2.0, 1.0], [0.0, 3.0, 4.0, 3.0]]))
    >>> hit = scene.cast(np.array([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]]))
    >>> hit["t"].tolist(), hit["index"].tolist()
    ([2.0, 3.0], [0, 1])
    """

    __slots__ = ("_native", "_offsets", "_lines_shape")

    def __init__(self, walls, *, dtype=None, index="auto"):
        cols = None
        if isinstance(walls, Mapping) or (isinstance(walls, np.ndarray) and walls.dtype.names):
            from . import _columns, _SEGMENT_COLUMNS

            cols = _columns(walls, _SEGMENT_COLUMNS, "walls")
        if cols is not None:
            dt = _walls_dtype([c.dtype for c in cols], dtype)
        else:
            a = np.asarray(walls)
            dt = _walls_dtype([a.dtype], dtype)
            walls = a
        w, _, _ = _rows_or_columns(walls, "walls", dtype=dt)
        self._native = _native.Scene(w, _index(index))
        self._offsets = None
        self._lines_shape = None

    @classmethod
    def from_lines(cls, coords, offsets, *, dtype=None, index="auto") -> "Scene":
        """A scene whose walls are the segments of polylines in the ragged layout of GeoArrow
        and ``shapely.to_ragged_array``.

        Parameters
        ----------
        coords : ``(V, 2)`` vertices ``x, y`` (float32 or float64; other reals become
            float64).
        offsets : ``L + 1`` int32 or int64 offsets: polyline ``j`` is vertices
            ``offsets[j] .. offsets[j + 1]`` (the first offset may be above 0 and the last
            below V). A polygon's rings are closed polylines: the ring offsets of
            ``shapely.to_ragged_array(polygons)`` (``offsets[0]``) work as they are.
        dtype, index : as for :class:`Scene`.

        Wall ``k`` is the segment from vertex ``k`` to vertex ``k + 1`` (``V − 1`` walls), so
        a hit's ``index`` is the vertex where the hit segment starts. Walls that would join
        two polylines (and vertices outside every polyline) are NaN walls, never hit.
        :meth:`line_vertex` turns indices into ``(polyline, vertex within it)``.

        Raises
        ------
        ValueError
            ``coords`` not ``(V, 2)``; offsets that are negative, decrease, point beyond the
            vertices, or give a polyline a single vertex (the message names the polyline).
        TypeError
            Offsets that are not integers, coordinates that are not real numbers.

        Example
        -------
        >>> square = np.array([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], float)
        >>> scene = Scene.from_lines(square, np.array([0, 5]))
        >>> hit = scene.cast(np.array([[2.0, 2.0, 1.0, 0.0]]))
        >>> hit["t"].tolist(), scene.line_vertex(hit["index"])
        ([2.0], (array([0]), array([1])))
        """
        c = np.asarray(coords)
        if c.ndim != 2 or c.shape[1] != 2:
            raise ValueError(f"coords must have shape (V, 2), got shape {c.shape}")
        dt = _walls_dtype([c.dtype], dtype)
        c = np.ascontiguousarray(c, dtype=dt)
        o = np.asarray(offsets)
        if o.ndim != 1:
            raise ValueError(f"offsets must be 1-D, got shape {o.shape}")
        if o.dtype.kind not in "iu":
            raise TypeError(f"offsets must be int32 or int64, got dtype {o.dtype}")
        if o.dtype != np.int32:
            if o.dtype.kind == "u" and o.size and o.max() > np.iinfo(np.int64).max:
                raise ValueError("offsets must fit int64")
            o = o.astype(np.int64, copy=False)
        o = np.ascontiguousarray(o)
        self = cls.__new__(cls)
        self._native = _native.Scene(_native.line_walls(c, o), _index(index))
        self._offsets = o.astype(np.int64, copy=True)
        self._lines_shape = c.shape
        return self

    # ----------------------------------------------------------------------------------------
    # What the scene holds.

    @property
    def dtype(self) -> np.dtype:
        """The scene's precision (float32 or float64): every query is computed in it."""
        return np.dtype(self._native.dtype)

    def __len__(self) -> int:
        return len(self._native)

    @property
    def index(self) -> str:
        """The index asked for: ``"auto"``, ``"tree"`` or ``"grid"``."""
        return self._native.index

    @property
    def has_grid(self) -> bool:
        """Whether the grid is built now (``"auto"`` builds it where it serves, once the scene
        has cast one ray per eight walls; ``"grid"`` wherever it can be built)."""
        return self._native.has_grid

    @property
    def index_bytes(self) -> int:
        """The bytes the index holds (tree, direction index, bookkeeping), besides the walls."""
        return self._native.index_bytes

    @property
    def walls(self) -> np.ndarray:
        """A copy of the walls as an ``(M, 4)`` array of the scene's dtype (for a scene from
        lines, with the NaN rows between polylines)."""
        return self._native.walls()

    @property
    def offsets(self) -> Optional[np.ndarray]:
        """The polyline offsets (int64) of a scene made by :meth:`from_lines`, else None."""
        return None if self._offsets is None else self._offsets.copy()

    def line_vertex(self, index) -> Tuple[np.ndarray, np.ndarray]:
        """For a scene made by :meth:`from_lines`: the polyline of each wall index and the
        vertex within that polyline where the wall starts (wall ``k`` joins vertices ``j``
        and ``j + 1`` of polyline ``line``). ``-1`` (:data:`slabclip.NO_HIT`) gives ``-1``
        for both.

        Raises ``ValueError`` for a scene made from walls, or an index that is not a wall of
        some polyline.
        """
        if self._offsets is None:
            raise ValueError("line_vertex needs a scene made by Scene.from_lines")
        k = np.asarray(index)
        if k.dtype.kind not in "iu":
            raise TypeError(f"index must hold integers, got dtype {k.dtype}")
        k = k.astype(np.int64, copy=False)
        miss = k == _native.NO_HIT
        line = np.searchsorted(self._offsets, k, side="right") - 1
        ok = miss | ((line >= 0) & (line < len(self._offsets) - 1))
        safe = np.clip(line, 0, max(len(self._offsets) - 2, 0))
        if len(self._offsets) > 1:
            ok &= miss | (k + 1 < self._offsets[safe + 1])
        if not ok.all():
            bad = k[~ok].ravel()[0]
            raise ValueError(f"index {bad} is not a wall of any polyline")
        vertex = np.where(miss, -1, k - self._offsets[safe] if len(self._offsets) else k)
        return np.where(miss, -1, line), vertex

    def __repr__(self) -> str:
        kind = f", {len(self._offsets) - 1} polylines" if self._offsets is not None else ""
        return f"<slabclip.Scene: {len(self)} walls{kind}, {self.dtype}>"

    def __reduce__(self):
        # The walls, not the index: the index is larger than the walls and is rebuilt in one
        # radix sort where the scene is unpickled (docs/guide/scenes.md has the sizes and
        # times).
        return (_rebuild, (self.walls, self._offsets, self._lines_shape, self.index))

    # ----------------------------------------------------------------------------------------
    # Queries.

    def _rays(self, rays):
        return _rows_or_columns(rays, "rays", dtype=self.dtype, rays=True)

    def cast(
        self,
        rays,
        *,
        t_max: float = math.inf,
        outputs: Iterable[str] = _CAST_OUTPUTS,
        out: Optional[Mapping[str, np.ndarray]] = None,
        threads: Optional[int] = None,
    ) -> Dict[str, np.ndarray]:
        """Each ray's closest hit among the walls: :func:`slabclip.cast_segments`' answer, bit
        for bit.

        Parameters
        ----------
        rays : rows ``ox, oy, dx, dy`` (an ``(N, 4)`` array), or a dict of those four 1-D
            columns; converted to the scene's dtype (read in place when they have it and are
            contiguous). A ray is ``O + t·D``, ``t ∈ [0, t_max]``.
        t_max : the rays' end, in units of ``D`` (default: unbounded).
        outputs : any of ``"t"``, ``"s"``, ``"index"``, ``"nx"``, ``"ny"`` (default all).
        out : arrays to write into, by output name: ``(N,)`` of the scene's dtype, ``index``
            ``(N,)`` int64; contiguous, writeable, sharing no memory with ``rays`` or each
            other.
        threads : a pool of this many threads (1: the calling thread alone).

        Returns
        -------
        dict: ``t`` (NaN on a miss), ``s`` (the wall's own parameter in [0, 1]), ``index``
        (int64, the lowest on a tie, -1 on a miss), ``nx``, ``ny`` (the wall's unit normal
        facing the ray). A ray with ``D = (0, 0)`` or a non-finite coordinate misses.

        Raises
        ------
        ValueError
            Rays of a wrong shape, ``t_max`` NaN or negative, an ``out`` array of a wrong
            shape or shared memory, a bad ``threads``.
        TypeError
            A non-real dtype, an ``out`` array of a wrong dtype.

        Example
        -------
        >>> scene = Scene(np.array([[2.0, -1.0, 2.0, 1.0]]))
        >>> scene.cast(np.array([[0.0, 0.0, 1.0, 0.0]]), outputs=["t", "nx"])
        {'t': array([2.]), 'nx': array([-1.])}
        """
        r, dt, n = self._rays(rays)
        result, native, after, written = _outputs(_CAST_KINDS, outputs, out, n, dt)
        _args.disjoint(written, [("rays", r)])
        self._native.cast(r, _t_max(t_max), threads=_threads(threads), **native)
        return _finish(result, after)

    def any_hit(
        self,
        rays,
        *,
        t_max: float = math.inf,
        out: Optional[np.ndarray] = None,
        threads: Optional[int] = None,
    ) -> np.ndarray:
        """Per ray, whether :meth:`cast` would report a hit, found without looking for the
        closest (it stops at the first wall that the ray meets): occlusion tests.

        Parameters
        ----------
        rays, t_max, threads : as for :meth:`cast`.
        out : a ``(N,)`` bool array to write into.

        Returns
        -------
        ``(N,)`` bool array.

        Raises
        ------
        ValueError, TypeError
            As :meth:`cast`; ``out`` not a contiguous writeable ``(N,)`` bool array.

        Example
        -------
        >>> Scene(np.array([[2.0, -1.0, 2.0, 1.0]])).any_hit(
        ...     np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, -1.0, 0.0]])).tolist()
        [True, False]
        """
        r, dt, n = self._rays(rays)
        if out is None:
            out = np.empty(n, np.bool_)
        else:
            from . import _out_array

            out = _out_array(out, "out", np.dtype(np.bool_), n)
            _args.disjoint([("out", out)], [("rays", r)])
        self._native.any_hit(r, _t_max(t_max), out, threads=_threads(threads))
        return out

    def line_of_sight(
        self,
        a,
        b=None,
        *,
        exclude_a: bool = False,
        exclude_b: bool = False,
        out: Optional[np.ndarray] = None,
        threads: Optional[int] = None,
    ) -> np.ndarray:
        """Whether each segment ``A → B`` is blocked: some wall meets the closed segment,
        decided with exact orientation predicates on the input coordinates (not through the
        rounded direction ``B − A``).

        Parameters
        ----------
        a, b : the two ends, each ``(N, 2)`` (or one point ``(2,)``, used for every pair);
            or ``a`` alone as ``(N, 4)`` rows ``ax, ay, bx, by`` (read in place when of the
            scene's dtype and C-contiguous).
        exclude_a, exclude_b : a wall that meets the segment only at exactly ``A`` (or
            ``B``) does not block: an observer standing on a wall, a target on a wall's
            corner. A wall that overlaps the segment beyond the excluded end still blocks.
        out : a ``(N,)`` uint8 array to write the codes into.
        threads : as for :meth:`cast`.

        Returns
        -------
        ``(N,)`` uint8 codes of :class:`Sight`: VISIBLE (0), BLOCKED (1), INVALID (255:
        ``A == B`` or a non-finite coordinate). Walls with a NaN or infinite coordinate never
        block.

        Raises
        ------
        ValueError
            Ends of a wrong shape or of different lengths; a bad ``out`` or ``threads``.
        TypeError
            A non-real dtype.

        Example
        -------
        >>> scene = Scene(np.array([[2.0, -1.0, 2.0, 1.0]]))
        >>> scene.line_of_sight([0.0, 0.0], [[4.0, 0.0], [2.0, 0.0], [0.0, 4.0]]).tolist()
        [1, 1, 0]
        >>> scene.line_of_sight([0.0, 0.0], [2.0, 0.0], exclude_b=True).tolist()
        [0]
        """
        dt = self.dtype
        if b is None:
            pairs, _, n = _rows_or_columns(a, "pairs", dtype=dt)
        else:
            pa, pb = _points(a, "a", dt), _points(b, "b", dt)
            if len(pa) != len(pb) and 1 not in (len(pa), len(pb)):
                raise ValueError(f"a and b must have the same length (or one point), got {len(pa)} and {len(pb)}")
            pa, pb = np.broadcast_arrays(pa, pb)
            pairs = np.ascontiguousarray(np.concatenate([pa, pb], axis=1))
            n = len(pairs)
        if out is None:
            out = np.empty(n, np.uint8)
        else:
            from . import _out_array

            out = _out_array(out, "out", np.dtype(np.uint8), n)
            _args.disjoint([("out", out)], [("pairs", pairs)])
        self._native.line_of_sight(pairs, bool(exclude_a), bool(exclude_b), out,
                                   threads=_threads(threads))
        return out

    def lidar(
        self,
        poses,
        angles,
        *,
        max_range: float = math.inf,
        outputs: Iterable[str] = _CAST_OUTPUTS,
        out: Optional[Mapping[str, np.ndarray]] = None,
        threads: Optional[int] = None,
    ) -> Dict[str, np.ndarray]:
        """A lidar scan: every pose casts every beam; the closest hit of each.

        Parameters
        ----------
        poses : ``(P, 3)`` rows ``x, y, heading`` (radians), one pose ``(3,)``, or a mapping
            with columns ``x``, ``y``, ``heading``; converted to the scene's dtype.
        angles : ``(K,)`` beam angles in radians, relative to the heading.
        max_range : the beams' length (default: unbounded). The beams' directions are unit
            vectors, so ``t`` is the range.
        outputs, out : as for :meth:`cast`, every array ``(P, K)`` (C-contiguous when given).
        threads : as for :meth:`cast`.

        Returns
        -------
        dict of ``(P, K)`` arrays: beam ``k`` of pose ``p`` at ``[p, k]``; the bits of
        :meth:`cast` on :func:`lidar_rays` ``(poses, angles)`` with ``t_max = max_range``.

        Raises
        ------
        ValueError, TypeError
            Poses or angles of a wrong shape or dtype, ``max_range`` NaN or negative, a bad
            ``out`` or ``threads``.

        Example
        -------
        >>> room = Scene.from_lines(np.array([[-2, -2], [2, -2], [2, 2], [-2, 2], [-2, -2]], float),
        ...                         np.array([0, 5]))
        >>> room.lidar([0.0, 0.0, 0.0], np.linspace(0, np.pi, 3), outputs=["t"])["t"].round(6)
        array([[2., 2., 2.]])
        """
        dt = self.dtype
        x, y, h = _poses(poses, dt)
        ang = _angles(angles, dt)
        p, k = len(x), len(ang)
        flat_out = None
        if out is not None:
            flat_out = {}
            for name, arr in _args.out_mapping(out).items():
                if isinstance(arr, np.ndarray) and arr.shape == (p, k) and arr.flags.c_contiguous:
                    flat_out[name] = arr.reshape(-1)
                elif isinstance(arr, np.ndarray):
                    raise ValueError(f"out[{name!r}] must be a C-contiguous array of shape ({p}, {k}), got {arr.shape}")
                else:
                    flat_out[name] = arr
        result, native, after, written = _outputs(_CAST_KINDS, outputs, flat_out, p * k, dt)
        _args.disjoint(written, [("poses", (x, y, h)), ("angles", ang)])
        self._native.lidar(x, y, h, ang, _t_max(max_range), threads=_threads(threads), **native)
        result = _finish(result, after)
        given = _args.out_mapping(out)
        return {name: given.get(name, arr.reshape(p, k)) for name, arr in result.items()}

    def visibility_polygon(self, viewpoint, bounds) -> np.ndarray:
        """The visibility polygon of one viewpoint: the part of the rect ``bounds`` seen from
        it past the walls (the closure of the interior of the set of points ``P`` such that
        no wall meets ``viewpoint → P`` before ``P``).

        Parameters
        ----------
        viewpoint : ``(x, y)``, strictly inside ``bounds``, on no wall.
        bounds : ``(xmin, ymin, xmax, ymax)`` of positive width and height, rounded to the
            scene's dtype.

        Returns
        -------
        ``(K, 2)`` array of the scene's dtype: a simple polygon, counter-clockwise, starting
        at the first vertex at or after the direction +x; not closed (the last vertex is not
        the first again). Vertices are wall endpoints and rect corners bit for bit, or made
        points (crossings, cuts) within a few ulps. A wall of zero length or collinear with
        the viewpoint hides nothing; walls may cross.

        Raises
        ------
        ValueError
            ``bounds`` of zero width or height, reversed or not finite; a viewpoint that is
            not finite, not strictly inside ``bounds``, or on a wall (named by index).

        The walls' preparation for ``bounds`` (clipped and split where they cross) is kept
        for the next call with the same bounds.

        Example
        -------
        >>> Scene(np.empty((0, 4))).visibility_polygon((1.0, 1.0), (0, 0, 2, 2)).tolist()
        [[2.0, 2.0], [0.0, 2.0], [0.0, 0.0], [2.0, 0.0]]
        """
        v = _points(viewpoint, "viewpoint", self.dtype)
        if len(v) != 1:
            raise ValueError(f"viewpoint must be one point (x, y), got {len(v)}")
        coords, _ = self._native.visibility(np.ascontiguousarray(v[:, 0]),
                                            np.ascontiguousarray(v[:, 1]), _rect(bounds))
        return coords

    def visibility_polygons(
        self, viewpoints, bounds, *, threads: Optional[int] = None
    ) -> Tuple[np.ndarray, np.ndarray]:
        """The visibility polygons of many viewpoints (see :meth:`visibility_polygon`), in
        the ragged layout of GeoArrow: polygon ``i`` is ``coords[offsets[i]:offsets[i + 1]]``.

        Parameters
        ----------
        viewpoints : ``(P, 2)`` points.
        bounds : as for :meth:`visibility_polygon`.
        threads : a pool of this many threads (viewpoints in blocks); the same polygons for
            any count.

        Returns
        -------
        ``(coords, offsets)``: ``(K, 2)`` of the scene's dtype and ``(P + 1,)`` int64. For
        shapely: ``shapely.polygons(coords[offsets[i]:offsets[i + 1]])`` per polygon.

        Raises
        ------
        ValueError
            As :meth:`visibility_polygon`, naming the first bad viewpoint by index.

        Example
        -------
        >>> scene = Scene(np.array([[1.0, 0.5, 1.0, 1.5]]))
        >>> coords, offsets = scene.visibility_polygons([[0.5, 1.0], [1.5, 1.0]], (0, 0, 2, 2))
        >>> offsets.tolist()
        [0, 6, 12]
        """
        v = _points(viewpoints, "viewpoints", self.dtype)
        return self._native.visibility(np.ascontiguousarray(v[:, 0]),
                                       np.ascontiguousarray(v[:, 1]), _rect(bounds),
                                       threads=_threads(threads))

    def refit(self, walls=None, *, coords=None) -> None:
        """The walls moved: replaces them (as many, wall ``i`` the same wall), keeping the
        tree's topology and recomputing its boxes. The answers are those of a scene built
        anew from the new walls; only the speed may suffer if walls moved far.

        Parameters
        ----------
        walls : the new walls, as for :class:`Scene` (converted to the scene's dtype).
        coords : for a scene made by :meth:`from_lines`: the new ``(V, 2)`` vertices, the
            same offsets (give ``walls`` or ``coords``, not both).

        Raises
        ------
        ValueError
            A different number of walls or vertices (the scene is left as it was), both or
            neither argument given, ``coords`` for a scene made from walls.

        Example
        -------
        >>> scene = Scene(np.array([[2.0, -1.0, 2.0, 1.0]]))
        >>> scene.refit(np.array([[3.0, -1.0, 3.0, 1.0]]))
        >>> scene.cast(np.array([[0.0, 0.0, 1.0, 0.0]]), outputs=["t"])["t"].tolist()
        [3.0]
        """
        if (walls is None) == (coords is None):
            raise ValueError("refit takes walls or coords (for a scene made by from_lines), one of them")
        if coords is not None:
            if self._offsets is None:
                raise ValueError("refit(coords=...) needs a scene made by Scene.from_lines; pass walls")
            c = np.asarray(coords)
            if c.shape != self._lines_shape:
                raise ValueError(f"coords must have shape {self._lines_shape}, the scene's, got {c.shape}")
            _float_dtype([c.dtype], "coords")
            c = np.ascontiguousarray(c, dtype=self.dtype)
            walls = _native.line_walls(c, self._offsets)
        w, _, _ = _rows_or_columns(walls, "walls", dtype=self.dtype)
        self._native.refit(w)


def _index(index) -> str:
    """``index`` checked: one of the three names."""
    if not isinstance(index, str) or index not in ("auto", "tree", "grid"):
        raise ValueError(f"index must be 'auto', 'tree' or 'grid', got {index!r}")
    return index


def _rebuild(walls: np.ndarray, offsets, lines_shape, index="auto") -> Scene:
    """A pickled scene: its walls built into the index it asked for again."""
    global _unpickled
    s = Scene.__new__(Scene)
    s._native = _native.Scene(walls, index)
    s._offsets = offsets
    s._lines_shape = lines_shape
    _unpickled += 1
    return s
