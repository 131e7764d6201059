"""Type stubs of the Rust extension ``slabclip._native``: the library's batch calls on numpy
arrays. Use the documented wrappers in :mod:`slabclip`; these take pre-checked arrays only:
segments/rays as one C-contiguous (N, 4) float32/float64 array or a tuple of four contiguous
1-D columns, outputs as contiguous writeable arrays of the input's length."""

from typing import Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_F = npt.NDArray[np.floating]
_Input = Union[_F, Tuple[_F, _F, _F, _F]]
_Cols = Tuple[_F, _F, _F, _F]

PARALLEL_MIN: int
MAX_THREADS: int
MAX_CELLS_PER_AXIS: int
NO_HIT: int

def clip(
    segments: _Input,
    rect: Sequence[float],
    algorithm: str,
    t_entry: Optional[_F] = None,
    t_exit: Optional[_F] = None,
    class_: Optional[npt.NDArray[np.uint8]] = None,
    clipped: Optional[_Cols] = None,
    threads: Optional[int] = None,
) -> None:
    """Clips every segment by one rect into the given outputs (GIL released)."""

def clip_pairwise(
    segments: _Input,
    rects: _F,
    algorithm: str,
    t_entry: Optional[_F] = None,
    t_exit: Optional[_F] = None,
    class_: Optional[npt.NDArray[np.uint8]] = None,
    clipped: Optional[_Cols] = None,
    threads: Optional[int] = None,
) -> None:
    """Clips segment i by rect i (rects: C-contiguous (N, 4), the segments' dtype)."""

def clip_rects(
    segments: _Input,
    rects: _F,
    algorithm: str,
    broad_phase: bool,
    threads: Optional[int] = None,
) -> dict:
    """Every non-empty clip of N segments by M rects: columns segment, rect, t_entry, t_exit,
    class; every rect for every segment, or through the rect set's broad phase."""

def grid_pieces(
    segments: _Input,
    bounds: Sequence[float],
    cells: Sequence[int],
    half_open: bool,
    touches: bool,
    threads: Optional[int] = None,
) -> dict:
    """Pieces in the cells of a regular grid: columns segment, ix, iy, t_entry, t_exit, class."""

def clip_in_place(
    segments: Union[_F, _Cols],
    rect: Sequence[float],
    algorithm: str,
    class_: Optional[npt.NDArray[np.uint8]] = None,
    threads: Optional[int] = None,
) -> None:
    """Writes the clipped segments over a writeable C-contiguous (N, 4) array or four columns."""

def cast_rect(
    rays: _Input,
    rect: Optional[Sequence[float]],
    rects: Optional[_F],
    t_max: float,
    t_entry: Optional[_F] = None,
    t_exit: Optional[_F] = None,
    class_: Optional[npt.NDArray[np.uint8]] = None,
    threads: Optional[int] = None,
) -> None:
    """Rays against one rect, or rect i for ray i."""

def cast_segments(
    rays: _Input,
    segments: _Input,
    t_max: float,
    method: str = "auto",
    t: Optional[_F] = None,
    s: Optional[_F] = None,
    index: Optional[npt.NDArray[np.int64]] = None,
    nx: Optional[_F] = None,
    ny: Optional[_F] = None,
    threads: Optional[int] = None,
) -> bool:
    """Each ray's closest hit among the segments, by method "auto" (a scene index built for
    the call where it pays), "brute-force" or "scene"; returns whether an index was built."""

def cast_polygon(
    rays: _Input,
    vertices: _F,
    t_max: float,
    exit: bool,
    t: Optional[_F] = None,
    x: Optional[_F] = None,
    y: Optional[_F] = None,
    nx: Optional[_F] = None,
    ny: Optional[_F] = None,
    edge: Optional[npt.NDArray[np.int64]] = None,
    inside: Optional[npt.NDArray[np.uint8]] = None,
    threads: Optional[int] = None,
) -> None:
    """Rays against a convex polygon ((K, 2) C-contiguous vertices, the rays' dtype)."""

def clip_polygon(
    segments: _Input,
    vertices: _F,
    t_entry: Optional[_F] = None,
    t_exit: Optional[_F] = None,
    class_: Optional[npt.NDArray[np.uint8]] = None,
    clipped: Optional[_Cols] = None,
    threads: Optional[int] = None,
) -> None:
    """Segments against a convex polygon (Cyrus-Beck)."""

def violations(
    segments: _Input,
    rect: Sequence[float],
    t_entry: _F,
    t_exit: _F,
    class_: npt.NDArray[np.uint8],
    threads: Optional[int] = None,
) -> npt.NDArray[np.uint8]:
    """1 where a result breaks the contract against the exact reference."""

def exact_class(
    segments: _Input, rect: Sequence[float], threads: Optional[int] = None
) -> npt.NDArray[np.uint8]:
    """The exact class code of every segment."""

def generate(dist: str, n: int, seed: int, double: bool) -> _F:
    """n segments of a named workload as an (n, 4) array."""

def algorithms() -> list: ...
def workloads() -> list: ...
def info() -> dict: ...
def simd_levels() -> list[str]: ...
def set_simd_level(level: str) -> None: ...

_Offsets = Union[npt.NDArray[np.int32], npt.NDArray[np.int64]]
_Coords = Union[_F, Tuple[_F, _F]]

def clip_lines(
    coords: _Coords,
    offsets: _Offsets,
    geometry_offsets: Optional[_Offsets] = None,
    rect: Optional[Sequence[float]] = None,
    rects: Optional[_F] = None,
    points: bool = False,
    threads: Optional[int] = None,
) -> dict:
    """Polylines (coords: C-contiguous (V, 2) or contiguous (x, y) columns, float32/float64;
    offsets: contiguous int32/int64) clipped to one rect or one rect per polyline (geometry):
    columns coords (n, 2), offsets, polyline, [geometry], [points, point_polyline,
    point_geometry]. GIL released."""

def tile_lines(
    coords: _Coords,
    offsets: _Offsets,
    geometry_offsets: Optional[_Offsets],
    bounds: Sequence[float],
    cells: Sequence[int],
    half_open: bool,
    points: bool,
    buffer: Optional[float] = None,
    threads: Optional[int] = None,
) -> dict:
    """Polylines cut into the cells of a regular grid: clip_lines' columns plus ix, iy (and
    point_ix, point_iy)."""
def parts_geometries(
    coords: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    parts: Optional[npt.NDArray[np.int64]],
    owner: npt.NDArray[np.int64],
    n: int,
    points: Optional[npt.NDArray[np.float64]] = None,
    point_owner: Optional[npt.NDArray[np.int64]] = None,
    wkb: bool = False,
    empty: object = None,
) -> Union[npt.NDArray[np.object_], list]:
    """One shapely geometry (``empty`` where nothing) per geometry 0..n-1 from parts and points
    of contact grouped by a nondecreasing owner: a LineString or MultiLineString, a Point or
    MultiPoint, or a GeometryCollection of both; made by the GEOS shapely loaded, as an object
    array; or with wkb=True a list of WKB values (None where nothing)."""
def shapely_geos() -> bool:
    """Whether parts_geometries can make geometries through shapely's own GEOS."""
SIGHT_VISIBLE: int
SIGHT_BLOCKED: int
SIGHT_INVALID: int
#: cast_segments(method="auto") builds a scene from this many walls and rays.
INDEX_MIN_WALLS: int
INDEX_MIN_RAYS: int

class Scene:
    """Walls built into the library's scene index (one dtype for life); pickled by the Python
    class :class:`slabclip.Scene`, which wraps it. Queries run with the GIL released under a
    read lock, ``refit`` under a write lock."""

    def __init__(self, walls: _Input, index: str = "auto") -> None:
        """Builds the index ("auto", "tree" or "grid") over C-contiguous (M, 4) walls or four
        contiguous columns."""
    @property
    def dtype(self) -> str:
        """"float32" or "float64"."""
    @property
    def index(self) -> str:
        """The index asked for: "auto", "tree" or "grid"."""
    @property
    def has_grid(self) -> bool:
        """Whether the grid is built now."""
    @property
    def index_bytes(self) -> int:
        """The bytes the index holds, besides the copy of the walls."""
    def __len__(self) -> int: ...
    def walls(self) -> _F:
        """A copy of the walls, (M, 4)."""
    def refit(self, walls: _Input) -> None:
        """New walls, as many, the scene's dtype: the tree's boxes recomputed."""
    def cast(
        self,
        rays: _Input,
        t_max: float,
        t: Optional[_F] = None,
        s: Optional[_F] = None,
        index: Optional[npt.NDArray[np.int64]] = None,
        nx: Optional[_F] = None,
        ny: Optional[_F] = None,
        threads: Optional[int] = None,
    ) -> None:
        """Each ray's closest hit (rays of the scene's dtype)."""
    def any_hit(
        self, rays: _Input, t_max: float, out: npt.NDArray[np.bool_], threads: Optional[int] = None
    ) -> None:
        """Per ray, whether it hits a wall, into `out`."""
    def line_of_sight(
        self,
        pairs: _Input,
        exclude_a: bool,
        exclude_b: bool,
        out: npt.NDArray[np.uint8],
        threads: Optional[int] = None,
    ) -> None:
        """Per pair (x0, y0) -> (x1, y1): SIGHT_VISIBLE, SIGHT_BLOCKED or SIGHT_INVALID."""
    def lidar(
        self,
        x: _F,
        y: _F,
        heading: _F,
        angles: _F,
        max_range: float,
        t: Optional[_F] = None,
        s: Optional[_F] = None,
        index: Optional[npt.NDArray[np.int64]] = None,
        nx: Optional[_F] = None,
        ny: Optional[_F] = None,
        threads: Optional[int] = None,
    ) -> None:
        """Poses x beams, beam k of pose p in slot p*K + k of the (P*K,) outputs."""
    def visibility(
        self, ox: _F, oy: _F, bounds: Sequence[float], threads: Optional[int] = None
    ) -> Tuple[_F, npt.NDArray[np.int64]]:
        """Visibility polygons of the viewpoints: (K, 2) vertices and P + 1 offsets."""

def line_walls(coords: _F, offsets: Union[npt.NDArray[np.int32], npt.NDArray[np.int64]]) -> _F:
    """The (V - 1, 4) walls of ragged polylines: wall k joins vertices k and k + 1, NaN where
    they are not of one polyline."""

def lidar_rays(x: _F, y: _F, heading: _F, angles: _F) -> _F:
    """The (P*K, 4) rays of a lidar scan, the inputs' dtype."""
