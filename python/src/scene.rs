//! `slabclip._native.Scene`: walls built once into the library's [`Scene`] index, then closest
//! hits, any hits, lines of sight, lidar scans and visibility polygons against them; and
//! `lidar_rays`, the rays of a scan.
//!
//! The conventions of the crate root's functions hold here too: the Python layer
//! (`slabclip/scene.py`) hands over C-contiguous arrays of the scene's dtype (or four contiguous
//! columns), every output allocated or given by the user; this layer checks them again (dtype,
//! shape, contiguity, writeability, lengths), reads and writes them in place, and runs the
//! queries with the GIL released, in `threads` threads when asked.
//!
//! The scene owns a copy of its walls (columns): pickling sends them, and the receiving
//! process builds the index again (the build is a radix sort and a pass; the index is larger
//! than the walls). Queries take a read lock and `refit` a write lock, both with the GIL
//! released, so Python threads may query one scene at once.

use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use numpy::prelude::*;
use numpy::{Element, PyArray1, PyReadonlyArray1, PyUntypedArray};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use slabclip::cast::{
    lidar_rays, PosesRef, SceneIndex, SegmentsCastOutput, SightEnds, VisibilityWalls,
    SIGHT_BLOCKED, SIGHT_INVALID, SIGHT_VISIBLE,
};
use slabclip::polyline::{Coords, Offsets, Polylines};
use slabclip::{Real, Scene, Segment, SegmentSource, Segments};

use crate::lines::{CoordsIn, OffsetsIn};
use crate::{
    in_pool, is_f64, out1, rect_of, slice_mut, value_err, with_cast_outputs, Indices, Input,
    RaysIn, View,
};

/// Registers the class and the module's functions and constants.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScene>()?;
    m.add_function(wrap_pyfunction!(lidar_rays_py, m)?)?;
    m.add_function(wrap_pyfunction!(line_walls, m)?)?;
    m.add("SIGHT_VISIBLE", SIGHT_VISIBLE)?;
    m.add("SIGHT_BLOCKED", SIGHT_BLOCKED)?;
    m.add("SIGHT_INVALID", SIGHT_INVALID)?;
    m.add("INDEX_MIN_WALLS", slabclip::cast::INDEX_MIN_WALLS)?;
    m.add("INDEX_MIN_RAYS", slabclip::cast::INDEX_MIN_RAYS)?;
    Ok(())
}

/// The visibility walls prepared for the bounds of these bits, if any.
type Prepared<F> = Option<([u64; 4], Arc<VisibilityWalls<F>>)>;

/// One precision's scene: the walls, their index, and the visibility walls of the last
/// bounds asked for (their preparation splits the walls where they cross: kept for the next
/// call with the same bounds).
struct Walls<F> {
    walls: Segments<F>,
    scene: Scene<F>,
    visibility: Mutex<Prepared<F>>,
}

impl<F: Real> Walls<F> {
    fn build(walls: Segments<F>, index: SceneIndex) -> PyResult<Self> {
        let scene = Scene::with_index(&walls, index).map_err(value_err)?;
        Ok(Walls {
            walls,
            scene,
            visibility: Mutex::new(None),
        })
    }
}

enum Inner {
    F32(Walls<f32>),
    F64(Walls<f64>),
}

/// The precisions a scene comes in, and how to find a scene's walls of that precision.
trait Precision: Real + Element {
    fn walls(inner: &Inner) -> &Walls<Self>;
    fn walls_mut(inner: &mut Inner) -> &mut Walls<Self>;
    fn wrap(w: Walls<Self>) -> Inner;
}

impl Precision for f32 {
    fn walls(inner: &Inner) -> &Walls<f32> {
        match inner {
            Inner::F32(w) => w,
            Inner::F64(_) => unreachable!("the dtype is checked before"),
        }
    }
    fn walls_mut(inner: &mut Inner) -> &mut Walls<f32> {
        match inner {
            Inner::F32(w) => w,
            Inner::F64(_) => unreachable!("the dtype is checked before"),
        }
    }
    fn wrap(w: Walls<f32>) -> Inner {
        Inner::F32(w)
    }
}

impl Precision for f64 {
    fn walls(inner: &Inner) -> &Walls<f64> {
        match inner {
            Inner::F64(w) => w,
            Inner::F32(_) => unreachable!("the dtype is checked before"),
        }
    }
    fn walls_mut(inner: &mut Inner) -> &mut Walls<f64> {
        match inner {
            Inner::F64(w) => w,
            Inner::F32(_) => unreachable!("the dtype is checked before"),
        }
    }
    fn wrap(w: Walls<f64>) -> Inner {
        Inner::F64(w)
    }
}

/// Walls built into an index (the library's `Scene`), of one dtype for life.
#[pyclass(name = "Scene", module = "slabclip._native", frozen)]
pub(crate) struct PyScene {
    double: bool,
    /// The index asked for (kept for pickling).
    index: SceneIndex,
    inner: RwLock<Inner>,
}

/// Runs `$body` with `F` the scene's float type.
macro_rules! by_dtype {
    ($self:expr, $F:ident => $body:expr) => {
        if $self.double {
            type $F = f64;
            $body
        } else {
            type $F = f32;
            $body
        }
    };
}

/// Owned columns of `view`'s segments.
fn owned<F: Real>(view: View<'_, F>) -> Segments<F> {
    match view {
        View::Rows(r) => Segments::from_rows(r),
        View::Cols(c) => {
            let mut s = Segments::new();
            (0..c.len()).for_each(|i| s.push(c.segment(i)));
            s
        }
    }
}

/// A 1-D contiguous input of `F`, named in errors.
fn col_of<'py, F: Element>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<PyReadonlyArray1<'py, F>> {
    let a: PyReadonlyArray1<'py, F> = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a 1-D {} array",
            std::any::type_name::<F>()
        ))
    })?;
    if !a.is_contiguous() {
        return Err(value_err(format!("{what} must be contiguous")));
    }
    Ok(a)
}

/// The values of an input [`col_of`] checked contiguous.
fn slice<'a, F: Element>(a: &'a PyReadonlyArray1<'_, F>) -> &'a [F] {
    a.as_slice().expect("checked contiguous")
}

/// The walls of polylines: wall `k` is vertex `k` → vertex `k + 1` where both are of one
/// polyline, and NaN (never hit, never blocking) where they are not.
fn line_walls_of<F: Real>(coords: Coords<'_, F>, offsets: Offsets<'_>) -> PyResult<Segments<F>> {
    let lines = Polylines::new(coords, offsets).map_err(value_err)?;
    let mut rows =
        vec![Segment::new(F::NAN, F::NAN, F::NAN, F::NAN); coords.len().saturating_sub(1)];
    for j in 0..lines.len() {
        let v = lines.vertices(j);
        let walls = v.start..v.end.saturating_sub(1).max(v.start);
        for (row, k) in rows[walls.clone()].iter_mut().zip(walls) {
            *row = coords.segment(k);
        }
    }
    Ok(Segments::from_rows(&rows))
}

impl PyScene {
    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    /// A `TypeError` unless `obj` holds the scene's dtype.
    fn same_dtype(&self, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
        if is_f64(obj)? != self.double {
            let dt = if self.double { "float64" } else { "float32" };
            return Err(PyTypeError::new_err(format!(
                "{what} must be {dt}, the scene's dtype"
            )));
        }
        Ok(())
    }

    fn of<F: Precision>(walls: Segments<F>, index: SceneIndex) -> PyResult<Self> {
        Ok(PyScene {
            double: F::DTYPE == "float64",
            index,
            inner: RwLock::new(F::wrap(Walls::build(walls, index)?)),
        })
    }
}

#[pymethods]
impl PyScene {
    /// Builds the index over `walls`: a C-contiguous `(M, 4)` array or four contiguous
    /// columns, float32 or float64 (the scene's dtype); `index` is `"auto"` (the default),
    /// `"tree"` or `"grid"` (`SceneIndex`: the same answers, only the speed differs).
    #[new]
    #[pyo3(signature = (walls, index="auto"))]
    fn new(py: Python<'_>, walls: &Bound<'_, PyAny>, index: &str) -> PyResult<Self> {
        fn run<F: Precision>(
            py: Python<'_>,
            walls: &Bound<'_, PyAny>,
            index: SceneIndex,
        ) -> PyResult<PyScene> {
            let input = Input::<F>::extract(walls, "walls")?;
            let view = input.view("walls")?;
            py.allow_threads(|| PyScene::of(owned(view), index))
        }
        let index = match index {
            "auto" => SceneIndex::Auto,
            "tree" => SceneIndex::Tree,
            "grid" => SceneIndex::Grid,
            other => {
                return Err(value_err(format!(
                    "index must be 'auto', 'tree' or 'grid', got {other:?}"
                )))
            }
        };
        if is_f64(walls)? {
            run::<f64>(py, walls, index)
        } else {
            run::<f32>(py, walls, index)
        }
    }

    /// The index asked for: `"auto"`, `"tree"` or `"grid"`.
    #[getter]
    fn index(&self) -> &'static str {
        match self.index {
            SceneIndex::Auto => "auto",
            SceneIndex::Tree => "tree",
            SceneIndex::Grid => "grid",
        }
    }

    /// Whether the grid is built now (`Scene::has_grid`): `"auto"` builds it once the scene
    /// has cast enough rays, where it serves.
    #[getter]
    fn has_grid(&self) -> bool {
        by_dtype!(self, F => F::walls(&self.read()).scene.has_grid())
    }

    /// `"float32"` or `"float64"`.
    #[getter]
    fn dtype(&self) -> &'static str {
        if self.double {
            "float64"
        } else {
            "float32"
        }
    }

    fn __len__(&self) -> usize {
        by_dtype!(self, F => F::walls(&self.read()).scene.len())
    }

    /// The bytes the index holds (not counting the copy of the walls).
    #[getter]
    fn index_bytes(&self) -> usize {
        by_dtype!(self, F => F::walls(&self.read()).scene.index_bytes())
    }

    /// A copy of the walls as an `(M, 4)` array.
    fn walls(&self, py: Python<'_>) -> PyResult<PyObject> {
        by_dtype!(self, F => {
            let (v, m) = {
                let g = self.read();
                let w = &F::walls(&g).walls;
                (w.to_interleaved(), w.len())
            };
            Ok(PyArray1::from_vec(py, v).reshape([m, 4])?.into_any().unbind())
        })
    }

    /// Replaces the walls by `walls` (as many, same dtype, same layout as the constructor's),
    /// keeping the tree's topology.
    fn refit(&self, py: Python<'_>, walls: &Bound<'_, PyAny>) -> PyResult<()> {
        self.same_dtype(walls, "walls")?;
        by_dtype!(self, F => {
            let input = Input::<F>::extract(walls, "walls")?;
            let view = input.view("walls")?;
            py.allow_threads(|| {
                let new = owned(view);
                let mut g = self.inner.write().unwrap_or_else(|p| p.into_inner());
                let w = F::walls_mut(&mut g);
                w.scene.refit(&new).map_err(value_err)?;
                w.walls = new;
                *w.visibility.get_mut().unwrap_or_else(|p| p.into_inner()) = None;
                Ok(())
            })
        })
    }

    /// The closest hit of every ray, into the outputs given.
    #[pyo3(signature = (rays, t_max, t=None, s=None, index=None, nx=None, ny=None, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn cast(
        &self,
        py: Python<'_>,
        rays: &Bound<'_, PyAny>,
        t_max: f64,
        t: Option<&Bound<'_, PyAny>>,
        s: Option<&Bound<'_, PyAny>>,
        index: Option<&Bound<'_, PyAny>>,
        nx: Option<&Bound<'_, PyAny>>,
        ny: Option<&Bound<'_, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        self.same_dtype(rays, "rays")?;
        by_dtype!(self, F => {
            let input = Input::<F>::extract(rays, "rays")?;
            let rays = RaysIn::of(input.view("rays")?)?;
            let rays = rays.as_ref();
            let t_max = F::from_f64(t_max);
            with_cast_outputs([t, s, index, nx, ny], |out| {
                py.allow_threads(|| {
                    let g = self.read();
                    in_pool(threads, || F::walls(&g).scene.cast(&rays, t_max, out))
                })?
                .map_err(value_err)
            })
        })
    }

    /// Per ray, whether `cast` would report a hit, into `out` (bool).
    #[pyo3(signature = (rays, t_max, out, threads=None))]
    fn any_hit(
        &self,
        py: Python<'_>,
        rays: &Bound<'_, PyAny>,
        t_max: f64,
        out: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        self.same_dtype(rays, "rays")?;
        by_dtype!(self, F => {
            let input = Input::<F>::extract(rays, "rays")?;
            let rays = RaysIn::of(input.view("rays")?)?;
            let rays = rays.as_ref();
            let mut o = out1::<bool>(Some(out), "out")?;
            let o = slice_mut(&mut o, "out")?.expect("given");
            let t_max = F::from_f64(t_max);
            py.allow_threads(|| {
                let g = self.read();
                in_pool(threads, || F::walls(&g).scene.any_hit(&rays, t_max, o))
            })?
            .map_err(value_err)
        })
    }

    /// Line of sight of every pair `A = (x0, y0)` → `B = (x1, y1)`, into `out` (uint8 codes).
    #[pyo3(signature = (pairs, exclude_a, exclude_b, out, threads=None))]
    fn line_of_sight(
        &self,
        py: Python<'_>,
        pairs: &Bound<'_, PyAny>,
        exclude_a: bool,
        exclude_b: bool,
        out: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        self.same_dtype(pairs, "pairs")?;
        let ends = SightEnds {
            exclude_a,
            exclude_b,
        };
        by_dtype!(self, F => {
            let input = Input::<F>::extract(pairs, "pairs")?;
            let view = input.view("pairs")?;
            let mut o = out1::<u8>(Some(out), "out")?;
            let o = slice_mut(&mut o, "out")?.expect("given");
            py.allow_threads(|| {
                let g = self.read();
                let scene = &F::walls(&g).scene;
                in_pool(threads, || match view {
                    View::Rows(r) => scene.line_of_sight(r, ends, o),
                    View::Cols(c) => scene.line_of_sight(&c, ends, o),
                })
            })?
            .map_err(value_err)
        })
    }

    /// A lidar scan: poses `(x, y, heading)` × beam `angles`, beam `k` of pose `p` into slot
    /// `p·K + k` of the outputs given.
    #[pyo3(signature = (x, y, heading, angles, max_range, t=None, s=None, index=None, nx=None, ny=None, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn lidar(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        heading: &Bound<'_, PyAny>,
        angles: &Bound<'_, PyAny>,
        max_range: f64,
        t: Option<&Bound<'_, PyAny>>,
        s: Option<&Bound<'_, PyAny>>,
        index: Option<&Bound<'_, PyAny>>,
        nx: Option<&Bound<'_, PyAny>>,
        ny: Option<&Bound<'_, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        by_dtype!(self, F => {
            let (x, y) = (col_of::<F>(x, "x")?, col_of::<F>(y, "y")?);
            let (h, a) = (col_of::<F>(heading, "heading")?, col_of::<F>(angles, "angles")?);
            let poses = PosesRef::new(slice(&x), slice(&y), slice(&h)).map_err(value_err)?;
            let angles = slice(&a);
            let (mut t, mut s) = (out1::<F>(t, "t")?, out1::<F>(s, "s")?);
            let mut index = out1::<i64>(index, "index")?;
            let (mut nx, mut ny) = (out1::<F>(nx, "nx")?, out1::<F>(ny, "ny")?);
            let mut index = Indices::of(slice_mut(&mut index, "index")?);
            let out = SegmentsCastOutput {
                t: slice_mut(&mut t, "t")?,
                s: slice_mut(&mut s, "s")?,
                index: index.library(),
                nx: slice_mut(&mut nx, "nx")?,
                ny: slice_mut(&mut ny, "ny")?,
            };
            let max_range = F::from_f64(max_range);
            py.allow_threads(|| {
                let g = self.read();
                in_pool(threads, || F::walls(&g).scene.lidar(&poses, angles, max_range, out))
            })?
            .map_err(value_err)?;
            index.widen();
            Ok(())
        })
    }

    /// The visibility polygons of the viewpoints `(ox[i], oy[i])` inside `bounds`: their
    /// vertices as one `(K, 2)` array and `P + 1` int64 offsets into it.
    #[pyo3(signature = (ox, oy, bounds, threads=None))]
    fn visibility<'py>(
        &self,
        py: Python<'py>,
        ox: &Bound<'py, PyAny>,
        oy: &Bound<'py, PyAny>,
        bounds: [f64; 4],
        threads: Option<usize>,
    ) -> PyResult<(PyObject, PyObject)> {
        by_dtype!(self, F => {
            let rect = rect_of::<F>(bounds)?;
            let (ox, oy) = (col_of::<F>(ox, "ox")?, col_of::<F>(oy, "oy")?);
            let (ox, oy) = (slice(&ox), slice(&oy));
            let key = [rect.xmin(), rect.ymin(), rect.xmax(), rect.ymax()].map(|v| v.to_bits_u64());
            let polys = py.allow_threads(|| {
                let g = self.read();
                let w = F::walls(&g);
                let prepared = {
                    let mut cache = w.visibility.lock().unwrap_or_else(|p| p.into_inner());
                    match &*cache {
                        Some((k, v)) if *k == key => Arc::clone(v),
                        _ => {
                            let v = Arc::new(
                                VisibilityWalls::new(&rect, &w.walls.as_ref()).map_err(value_err)?,
                            );
                            *cache = Some((key, Arc::clone(&v)));
                            v
                        }
                    }
                };
                in_pool(threads, || prepared.polygons(ox, oy))?.map_err(value_err)
            })?;
            let k = polys.coords.len();
            let flat: Vec<F> = polys.coords.iter().flat_map(|&(x, y)| [x, y]).collect();
            let offsets: Vec<i64> = polys.offsets.iter().map(|&o| o as i64).collect();
            let coords = PyArray1::from_vec(py, flat).reshape([k, 2])?.into_any().unbind();
            Ok((coords, PyArray1::from_vec(py, offsets).into_any().unbind()))
        })
    }
}

/// The walls of polylines in the ragged layout (`slabclip.Scene.from_lines`): `coords` a
/// C-contiguous `(V, 2)` array, `offsets` `L + 1` contiguous int32 or int64 values; returns
/// `(V − 1, 4)` walls, wall `k` joining vertices `k` and `k + 1` (NaN where they are not of one
/// polyline). The offsets are checked as the polyline clips check them.
#[pyfunction]
fn line_walls(
    py: Python<'_>,
    coords: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    fn run<F: Real + Element>(
        py: Python<'_>,
        coords: &Bound<'_, PyAny>,
        offsets: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        let (c, o) = (
            CoordsIn::<F>::extract(coords)?,
            OffsetsIn::extract(offsets, "offsets")?,
        );
        let (c, offs) = (c.view()?, o.view("offsets")?);
        let walls = py.allow_threads(|| line_walls_of(c, offs))?;
        let m = walls.len();
        Ok(PyArray1::from_vec(py, walls.to_interleaved())
            .reshape([m, 4])?
            .into_any()
            .unbind())
    }
    if is_f64(coords)? {
        run::<f64>(py, coords, offsets)
    } else {
        run::<f32>(py, coords, offsets)
    }
}

/// The rays of a lidar scan (`slabclip.lidar_rays`): `(P·K, 4)` rows `ox, oy, dx, dy`, beam
/// `k` of pose `p` in row `p·K + k`.
#[pyfunction]
#[pyo3(name = "lidar_rays")]
fn lidar_rays_py(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    heading: &Bound<'_, PyAny>,
    angles: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    fn run<F: Real + Element>(
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        heading: &Bound<'_, PyAny>,
        angles: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        let (x, y) = (col_of::<F>(x, "x")?, col_of::<F>(y, "y")?);
        let (h, a) = (
            col_of::<F>(heading, "heading")?,
            col_of::<F>(angles, "angles")?,
        );
        let poses = PosesRef::new(slice(&x), slice(&y), slice(&h)).map_err(value_err)?;
        let angles = slice(&a);
        let rays = py.allow_threads(|| lidar_rays(&poses, angles).map_err(value_err))?;
        let r = rays.as_ref();
        let n = r.len();
        let v: Vec<F> = (0..n)
            .flat_map(|i| {
                let ray = r.ray(i);
                [ray.ox, ray.oy, ray.dx, ray.dy]
            })
            .collect();
        Ok(PyArray1::from_vec(py, v)
            .reshape([n, 4])?
            .into_any()
            .unbind())
    }
    let first = x.downcast::<PyUntypedArray>()?;
    if first.dtype().is_equiv_to(&numpy::dtype::<f64>(py)) {
        run::<f64>(py, x, y, heading, angles)
    } else {
        run::<f32>(py, x, y, heading, angles)
    }
}
