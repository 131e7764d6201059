//! A [`Plan`]'s geometries made by the GEOS library that shapely loaded, without WKB.
//!
//! The GEOS functions are looked up in the dependencies of shapely's own extension module
//! (found from the address of its C API's first function), never by a library name: a process
//! may hold several GEOS builds (pyogrio and others ship their own), and a geometry must be
//! made by the GEOS that shapely will later free it with. Each geometry is then wrapped as a
//! shapely object by `PyGEOS_CreateGeometry`, entry 0 of the `shapely.lib._C_API` capsule
//! (shapely 2). Where any of this is missing (another platform, GEOS before 3.10, shapely 1),
//! [`Geos::get`] is `None` and the caller uses WKB.

use std::ffi::{c_int, c_uint, c_void};

use numpy::PyArray1;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;

use super::{Held, Plan};
use crate::value_err;

/// A GEOS context handle.
type Ctx = *mut c_void;
/// A GEOS geometry (or coordinate sequence) pointer.
type Geom = *mut c_void;

const MULTIPOINT: c_int = 4;
const MULTILINESTRING: c_int = 5;
const COLLECTION: c_int = 7;

type Wrap = unsafe extern "C" fn(Geom, Ctx) -> *mut pyo3::ffi::PyObject;
type Init = unsafe extern "C" fn() -> Ctx;
type Finish = unsafe extern "C" fn(Ctx);
type Sequence = unsafe extern "C" fn(Ctx, *const f64, c_uint, c_int, c_int) -> Geom;
type Line = unsafe extern "C" fn(Ctx, Geom) -> Geom;
type Point = unsafe extern "C" fn(Ctx, f64, f64) -> Geom;
type Collection = unsafe extern "C" fn(Ctx, c_int, *mut Geom, c_uint) -> Geom;
type Destroy = unsafe extern "C" fn(Ctx, Geom);

/// The functions used, resolved once per process.
pub(super) struct Geos {
    /// `PyGEOS_CreateGeometry(geometry, ctx)`: a new reference owning the geometry, or NULL
    /// with a Python error set (the geometry still ours).
    wrap: Wrap,
    /// `GEOS_init_r`.
    init: Init,
    /// `GEOS_finish_r`.
    finish: Finish,
    /// `GEOSCoordSeq_copyFromBuffer_r(ctx, xy, size, has_z, has_m)` (GEOS 3.10).
    sequence: Sequence,
    /// `GEOSGeom_createLineString_r`: takes the sequence.
    line: Line,
    /// `GEOSGeom_createPointFromXY_r` (GEOS 3.8).
    point: Point,
    /// `GEOSGeom_createCollection_r`: takes the geometries (not the array).
    collection: Collection,
    /// `GEOSGeom_destroy_r`.
    destroy: Destroy,
}

static GEOS: GILOnceCell<Option<Geos>> = GILOnceCell::new();

impl Geos {
    /// The functions, or `None` where they cannot all be found.
    pub(super) fn get(py: Python<'_>) -> Option<&'static Geos> {
        GEOS.get_or_init(py, || Self::load(py)).as_ref()
    }

    #[cfg(any(target_os = "linux", target_os = "macos"))]
    fn load(py: Python<'_>) -> Option<Geos> {
        // SAFETY: `PyCapsule_Import` is called with the GIL held and a NUL-terminated name;
        // it imports `shapely.lib` and returns the capsule's pointer or NULL with an error set.
        let table = unsafe { pyo3::ffi::PyCapsule_Import(c"shapely.lib._C_API".as_ptr(), 0) };
        if table.is_null() {
            drop(PyErr::take(py));
            return None;
        }
        // SAFETY: the capsule holds shapely's table of C API function pointers, of which
        // entry 0 is `PyGEOS_CreateGeometry` in every shapely 2 release.
        let wrap = unsafe { *table.cast::<*mut c_void>() };
        if wrap.is_null() {
            return None;
        }
        // SAFETY: `dladdr` only reads the loader's tables; `info` is written on success.
        let mut info: libc::Dl_info = unsafe { core::mem::zeroed() };
        if unsafe { libc::dladdr(wrap, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: `RTLD_NOLOAD` returns a handle to the module only if it is loaded (it is:
        // its function was just found in it), loading nothing and running no initialiser.
        let lib = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        if lib.is_null() {
            return None;
        }
        let sym = |name: &core::ffi::CStr| -> Option<*mut c_void> {
            // SAFETY: `lib` is a live handle; a handle's lookup searches the module and the
            // libraries it was linked with, so these are the GEOS shapely uses.
            let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
            (!p.is_null()).then_some(p)
        };
        use core::mem::transmute;
        // SAFETY (every transmute): each symbol is the GEOS C API function of that name,
        // whose signature in `geos_c.h` is the one its type alias writes.
        unsafe {
            Some(Geos {
                wrap: transmute::<*mut c_void, Wrap>(wrap),
                init: transmute::<*mut c_void, Init>(sym(c"GEOS_init_r")?),
                finish: transmute::<*mut c_void, Finish>(sym(c"GEOS_finish_r")?),
                sequence: transmute::<*mut c_void, Sequence>(sym(
                    c"GEOSCoordSeq_copyFromBuffer_r",
                )?),
                line: transmute::<*mut c_void, Line>(sym(c"GEOSGeom_createLineString_r")?),
                point: transmute::<*mut c_void, Point>(sym(c"GEOSGeom_createPointFromXY_r")?),
                collection: transmute::<*mut c_void, Collection>(sym(
                    c"GEOSGeom_createCollection_r",
                )?),
                destroy: transmute::<*mut c_void, Destroy>(sym(c"GEOSGeom_destroy_r")?),
            })
        }
    }

    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    fn load(_py: Python<'_>) -> Option<Geos> {
        None
    }
}

/// A GEOS context for one call, finished when dropped.
struct Context<'g> {
    geos: &'g Geos,
    ctx: Ctx,
}

impl Drop for Context<'_> {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from `GEOS_init_r` and every geometry made with it has been
        // handed to shapely or destroyed.
        unsafe { (self.geos.finish)(self.ctx) }
    }
}

/// Geometries made and not yet handed on: destroyed if the making stops half-way.
struct Made<'c, 'g> {
    c: &'c Context<'g>,
    geoms: Vec<Geom>,
}

impl Made<'_, '_> {
    fn push(&mut self, g: Geom, what: impl FnOnce() -> String) -> PyResult<()> {
        if g.is_null() {
            return Err(value_err(format!("GEOS could not make {}", what())));
        }
        self.geoms.push(g);
        Ok(())
    }

    /// The geometries from `from` on as one: itself when `one` and there is one, else a
    /// collection of `kind` that takes them.
    fn gather(&mut self, from: usize, kind: c_int, one: bool) -> PyResult<()> {
        if one && self.geoms.len() == from + 1 {
            return Ok(());
        }
        let count = (self.geoms.len() - from) as c_uint;
        let c = self.c;
        // SAFETY: the pointers from `from` on are live geometries of this context, handed to
        // the collection, which owns them from here on (they are taken off the list).
        let g = unsafe { (c.geos.collection)(c.ctx, kind, self.geoms[from..].as_mut_ptr(), count) };
        // A failed collection (out of memory only: the kinds are valid) has freed its members
        // in some GEOS versions and not in others: they are left alone, never freed twice.
        self.geoms.truncate(from);
        if g.is_null() {
            return Err(value_err(format!(
                "GEOS could not make a collection of {count}"
            )));
        }
        self.geoms.push(g);
        Ok(())
    }
}

impl Drop for Made<'_, '_> {
    fn drop(&mut self) {
        for &g in &self.geoms {
            // SAFETY: every pointer on the list is a live geometry owned by no one else.
            unsafe { (self.c.geos.destroy)(self.c.ctx, g) }
        }
    }
}

/// Geometry `g`'s GEOS geometry, as `Made`'s one entry.
fn make(plan: &Plan<'_>, held: &Held<'_>, made: &mut Made<'_, '_>) -> PyResult<()> {
    let c = made.c;
    for span in held.lines {
        // SAFETY: `span` was checked against the coordinates (`Plan::new`), so the buffer
        // holds its `2 · len` values.
        let seq = unsafe {
            (c.geos.sequence)(
                c.ctx,
                plan.xy.as_ptr().add(2 * span.start),
                span.len() as c_uint,
                0,
                0,
            )
        };
        if seq.is_null() {
            return Err(value_err(format!("GEOS could not copy vertices {span:?}")));
        }
        // SAFETY: the line takes the sequence (GEOS frees it on failure too).
        let line = unsafe { (c.geos.line)(c.ctx, seq) };
        made.push(line, || format!("a LineString of vertices {span:?}"))?;
    }
    if !held.lines.is_empty() {
        made.gather(0, MULTILINESTRING, true)?;
    }
    let from = made.geoms.len();
    for k in held.points.clone() {
        // SAFETY: `points` was checked against the points' coordinates.
        let p = unsafe { (c.geos.point)(c.ctx, plan.pxy[2 * k], plan.pxy[2 * k + 1]) };
        made.push(p, || format!("point {k}"))?;
    }
    if !held.points.is_empty() {
        made.gather(from, MULTIPOINT, true)?;
    }
    if from > 0 && !held.points.is_empty() {
        made.gather(0, COLLECTION, false)?;
    }
    Ok(())
}

/// One shapely geometry (or `empty`) per geometry of `plan`, as a numpy object array.
pub(super) fn geometries<'py>(
    py: Python<'py>,
    plan: &Plan<'_>,
    empty: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
    let Some(geos) = Geos::get(py) else {
        return Err(PyRuntimeError::new_err(
            "shapely's GEOS cannot be reached here (shapely 2 with GEOS 3.10 or later, on \
             Linux or macOS): use wkb=True",
        ));
    };
    // SAFETY: `GEOS_init_r` has no preconditions; the context is finished by `Context`.
    let c = Context {
        geos,
        ctx: unsafe { (geos.init)() },
    };
    if c.ctx.is_null() {
        return Err(PyRuntimeError::new_err("GEOS_init_r failed"));
    }
    let mut out: Vec<Py<PyAny>> = (0..plan.n).map(|_| empty.clone().unbind()).collect();
    plan.for_each(|g, held| {
        let mut made = Made {
            c: &c,
            geoms: Vec::with_capacity(held.lines.len() + 1),
        };
        make(plan, &held, &mut made)?;
        let geom = made.geoms[0];
        // SAFETY: `geom` is a live geometry of GEOS shapely's own build; the GIL is held.
        let obj = unsafe { (geos.wrap)(geom, c.ctx) };
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        made.geoms.clear();
        // SAFETY: `obj` is a new reference, now owned by `out`.
        out[g] = unsafe { Py::from_owned_ptr(py, obj) };
        Ok(())
    })?;
    Ok(PyArray1::from_vec(py, out))
}
