//! [`lines_file`]: polylines from a file clipped to a rect or cut into tiles (SPEC §7), into a
//! file; `slabclip lines` runs it. See [`lines_file`] for the formats.

use std::path::{Path, PathBuf};

use super::geojson::{FeatureInfo, GeoJsonFile, GeoJsonWriter};
use super::npz::{write_npz, Column, NpzArray, NpzReader};
use crate::error::Error;
use crate::grid::{Grid, Lines};
use crate::polyline::{MultiPolylines, Offsets, PartOptions, Parts, Polylines, TileOptions};
use crate::real::Real;
use crate::Rect;

/// Vertices per batch of GeoJSON features (whole features: a batch holds at least this many
/// unless the file ends).
pub const DEFAULT_BATCH_VERTICES: usize = 1 << 18;

/// A file format for lines, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinesFormat {
    /// `.geojson` or `.json`.
    GeoJson,
    /// `.npz`, ragged arrays.
    Npz,
}

impl LinesFormat {
    /// The format of `path` by its extension (any case), if it is one of these.
    pub fn of(path: &Path) -> Option<LinesFormat> {
        let e = path.extension()?.to_str()?.to_ascii_lowercase();
        match e.as_str() {
            "geojson" | "json" => Some(LinesFormat::GeoJson),
            "npz" => Some(LinesFormat::Npz),
            _ => None,
        }
    }

    fn of_file(path: &Path) -> Result<LinesFormat, Error> {
        LinesFormat::of(path).ok_or_else(|| {
            Error::file(
                path,
                "expected a .geojson (or .json) or .npz file name for lines",
            )
        })
    }
}

/// What the lines are cut by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinesTarget {
    /// One closed rect `[xmin, ymin, xmax, ymax]`.
    Rect([f64; 4]),
    /// The cells of a regular grid over `bounds`, `cells = [nx, ny]`.
    Grid {
        /// `[xmin, ymin, xmax, ymax]`.
        bounds: [f64; 4],
        /// `[nx, ny]`.
        cells: [usize; 2],
    },
}

/// How [`lines_file`] cuts. Bounds and the buffer are `f64`, rounded to the data's dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinesSettings {
    /// A rect or a grid.
    pub target: LinesTarget,
    /// Report single points of contact too.
    pub points: bool,
    /// Tiles only: the grid's half-open cells (no buffer then).
    pub half_open: bool,
    /// Tiles only: grow every cell by this much (see [`TileOptions::buffer`]).
    pub buffer: Option<f64>,
    /// GeoJSON input: vertices per batch.
    pub batch_vertices: usize,
}

impl Default for LinesSettings {
    /// The unit square, no points, no buffer, [`DEFAULT_BATCH_VERTICES`].
    fn default() -> Self {
        LinesSettings {
            target: LinesTarget::Rect([0.0, 0.0, 1.0, 1.0]),
            points: false,
            half_open: false,
            buffer: None,
            batch_vertices: DEFAULT_BATCH_VERTICES,
        }
    }
}

/// What [`lines_file`] read and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinesSummary {
    /// Features (GeoJSON), geometries (an `.npz` with `geometry_offsets`) or polylines.
    pub features: usize,
    /// Polylines (a MultiLineString holds several).
    pub polylines: usize,
    /// Input vertices.
    pub vertices: usize,
    /// Parts written.
    pub parts: usize,
    /// Single points of contact written.
    pub points: usize,
}

/// Ragged lines read from an `.npz`: `coords` is [`NpzArray::F32`] or [`NpzArray::F64`] of
/// `(V, 2)` values interleaved, the offsets [`NpzArray::I32`] or [`NpzArray::I64`].
#[derive(Clone, Debug, PartialEq)]
pub struct RaggedLines {
    /// The vertices, interleaved `x, y`.
    pub coords: NpzArray,
    /// `L + 1` offsets into the vertices.
    pub offsets: NpzArray,
    /// `G + 1` offsets into the polylines (MultiLineStrings), if the file has them.
    pub geometry_offsets: Option<NpzArray>,
}

/// The arrays of a ragged `.npz`: `coords` `(V, 2)` float32 or float64, `offsets` `(L + 1,)`
/// int32 or int64, optionally `geometry_offsets` `(G + 1,)`; other arrays are ignored. Errors
/// name the file and the array. The offsets are checked when the lines are used
/// ([`Polylines::new`]).
pub fn read_ragged_npz(path: impl AsRef<Path>) -> Result<RaggedLines, Error> {
    let path = path.as_ref();
    let mut z = NpzReader::open(path)?;
    let names = z.names();
    let missing = |name: &str| {
        Error::file(
            path,
            format!(
                "no array '{name}': a ragged .npz holds coords (V, 2) float32 or float64 and \
                 offsets (L + 1,) int32 or int64, optionally geometry_offsets (G + 1,); \
                 found {}",
                if names.is_empty() {
                    "no arrays".into()
                } else {
                    names.join(", ")
                }
            ),
        )
    };
    let (coords, _) = z
        .array("coords", &[&[None, Some(2)]])?
        .ok_or_else(|| missing("coords"))?;
    let (offsets, _) = z
        .array("offsets", &[&[None]])?
        .ok_or_else(|| missing("offsets"))?;
    let geometry_offsets = z.array("geometry_offsets", &[&[None]])?.map(|(a, _)| a);
    let kind = |a: &NpzArray| match a {
        NpzArray::F32(_) => "float32",
        NpzArray::F64(_) => "float64",
        NpzArray::I32(_) => "int32",
        NpzArray::I64(_) => "int64",
    };
    if matches!(coords, NpzArray::I32(_) | NpzArray::I64(_)) {
        return Err(Error::file(
            path,
            format!(
                "array 'coords': wrong dtype {}, expected float32 or float64",
                kind(&coords)
            ),
        ));
    }
    for (name, a) in [
        ("offsets", Some(&offsets)),
        ("geometry_offsets", geometry_offsets.as_ref()),
    ] {
        if let Some(a @ (NpzArray::F32(_) | NpzArray::F64(_))) = a {
            return Err(Error::file(
                path,
                format!(
                    "array '{name}': wrong dtype {}, expected int32 or int64",
                    kind(a)
                ),
            ));
        }
    }
    Ok(RaggedLines {
        coords,
        offsets,
        geometry_offsets,
    })
}

fn offsets_of(a: &NpzArray) -> Offsets<'_> {
    match a {
        NpzArray::I32(v) => Offsets::I32(v),
        NpzArray::I64(v) => Offsets::I64(v),
        _ => unreachable!("checked by read_ragged_npz"),
    }
}

/// Reads `input`, clips or tiles its lines as `settings` say, and writes `output`, each in the
/// format its extension names. Nothing is written unless all went well.
///
/// | format | extension | in | out |
/// | --- | --- | --- | --- |
/// | GeoJSON | `.geojson`, `.json` | a FeatureCollection of LineString / MultiLineString features, read one feature at a time and clipped in batches of whole features ([`GeoJsonFile`]) | a FeatureCollection, one feature per part, with its source's id and properties ([`GeoJsonWriter`]) |
/// | ragged `.npz` | `.npz` | `coords` `(V, 2)` float32/float64, `offsets` `(L + 1,)` int32/int64, optionally `geometry_offsets` `(G + 1,)` (MultiLineStrings), as GeoArrow and shapely's `to_ragged_array` lay them out; read whole | `coords` `(P, 2)` in the input's dtype, `offsets` `(parts + 1,)`, `polyline`, `geometry` (with geometries), `ix`, `iy` (tiles), and with points `point_coords` `(Q, 2)`, `point_polyline`, `point_geometry`, `point_ix`, `point_iy`: every index int64 |
///
/// GeoJSON is `f64`; an `.npz` keeps its dtype. In the `.npz` output from GeoJSON, `geometry`
/// is the feature's index and `polyline` counts the lines of every feature in file order. A
/// NaN or infinite coordinate (possible in an `.npz` only: JSON has none) is what SPEC §7 says
/// it is: the segments on either side of it have no piece, so a part ends before it and the
/// next begins after it. Parts are bit for bit the library's on the whole file, whatever the
/// batch size or thread count.
///
/// Outputs are written whole or not at all. The `.npz` output is built in memory (the parts
/// are held until the end); the GeoJSON output is written as the batches come.
///
pub fn lines_file(
    input: &Path,
    output: &Path,
    settings: &LinesSettings,
) -> Result<LinesSummary, Error> {
    let (fin, fout) = (LinesFormat::of_file(input)?, LinesFormat::of_file(output)?);
    if super::same_file(input, output) {
        return Err(Error::file(
            output,
            "output is the input file; refusing to overwrite it",
        ));
    }
    super::output_folder(output)?;
    match fin {
        LinesFormat::GeoJson => {
            let file = GeoJsonFile::open(input)?;
            let target = Target::<f64>::new(settings, input)?;
            let mut out = Out::<f64>::create(output, fout, true, settings)?;
            let mut parts = Parts::new();
            let mut summary = LinesSummary::default();
            file.batches(settings.batch_vertices, |batch| {
                let lines = batch.lines()?;
                target.apply(Ragged::Multi(lines), &mut parts)?;
                out.take(&parts, Some(&batch.features), &summary)?;
                summary.features += batch.features.len();
                summary.polylines += batch.offsets.len() - 1;
                summary.vertices += batch.vertices();
                summary.parts += parts.len();
                summary.points += parts.points.len();
                Ok(())
            })?;
            out.finish()?;
            Ok(summary)
        }
        LinesFormat::Npz => {
            let r = read_ragged_npz(input)?;
            match &r.coords {
                NpzArray::F32(c) => ragged_file(c, &r, input, output, fout, settings),
                NpzArray::F64(c) => ragged_file(c, &r, input, output, fout, settings),
                _ => unreachable!("checked by read_ragged_npz"),
            }
        }
    }
}

fn ragged_file<F: Real>(
    coords: &[F],
    r: &RaggedLines,
    input: &Path,
    output: &Path,
    fout: LinesFormat,
    settings: &LinesSettings,
) -> Result<LinesSummary, Error> {
    let in_file = |e: Error| Error::file(input, e.to_string());
    let lines = Polylines::interleaved(coords, offsets_of(&r.offsets)).map_err(in_file)?;
    let ragged = match &r.geometry_offsets {
        None => Ragged::One(lines),
        Some(g) => Ragged::Multi(MultiPolylines::new(lines, offsets_of(g)).map_err(in_file)?),
    };
    let target = Target::<F>::new(settings, input)?;
    let mut parts = Parts::new();
    target.apply(ragged, &mut parts)?;
    let mut out = Out::<F>::create(output, fout, r.geometry_offsets.is_some(), settings)?;
    out.take(&parts, None, &LinesSummary::default())?;
    out.finish()?;
    let vertices = match ragged {
        Ragged::One(l) => (0..l.len()).map(|j| l.vertices(j).len()).sum(),
        Ragged::Multi(m) => (0..m.len())
            .flat_map(|g| m.parts(g))
            .map(|j| lines.vertices(j).len())
            .sum(),
    };
    Ok(LinesSummary {
        features: match ragged {
            Ragged::One(l) => l.len(),
            Ragged::Multi(m) => m.len(),
        },
        polylines: lines.len(),
        vertices,
        parts: parts.len(),
        points: parts.points.len(),
    })
}

/// Polylines, or MultiLineStrings.
#[derive(Clone, Copy)]
enum Ragged<'a, F> {
    One(Polylines<'a, F>),
    Multi(MultiPolylines<'a, F>),
}

/// The rect or grid in the data's dtype.
enum Target<F> {
    Rect(Rect<F>, PartOptions),
    Grid(Grid<F>, TileOptions<F>),
}

impl<F: Real> Target<F> {
    fn new(s: &LinesSettings, input: &Path) -> Result<Self, Error> {
        let rect = |b: [f64; 4]| {
            let [xmin, ymin, xmax, ymax] = b.map(F::from_f64);
            Rect::new(xmin, ymin, xmax, ymax)
        };
        let fit = |what: String, e: Error| {
            Error::file(
                input,
                format!("{what} does not fit {}, the input's dtype: {e}", F::DTYPE),
            )
        };
        match s.target {
            LinesTarget::Rect(b) => {
                let r = rect(b).map_err(|e| fit(format!("the rect {b:?}"), e))?;
                Ok(Target::Rect(r, PartOptions { points: s.points }))
            }
            LinesTarget::Grid { bounds, cells } => {
                let what = || format!("the grid {bounds:?} of {} × {} cells", cells[0], cells[1]);
                let grid = rect(bounds)
                    .and_then(|r| Grid::new(r, cells[0], cells[1]))
                    .map_err(|e| fit(what(), e))?;
                let buffer = match s.buffer {
                    None => None,
                    Some(b) => {
                        let v = F::from_f64(b);
                        if !v.to_f64().is_finite() {
                            return Err(fit(
                                format!("the buffer {b:?}"),
                                Error::InvalidArgument("not finite once rounded".into()),
                            ));
                        }
                        Some(v)
                    }
                };
                Ok(Target::Grid(
                    grid,
                    TileOptions {
                        lines: if s.half_open {
                            Lines::HalfOpen
                        } else {
                            Lines::Closed
                        },
                        points: s.points,
                        buffer,
                    },
                ))
            }
        }
    }

    fn apply(&self, lines: Ragged<'_, F>, out: &mut Parts<F>) -> Result<(), Error> {
        match (self, lines) {
            (Target::Rect(r, o), Ragged::One(l)) => l.clip(r, o, out),
            (Target::Rect(r, o), Ragged::Multi(m)) => m.clip(r, o, out),
            (Target::Grid(g, o), Ragged::One(l)) => l.tiles(g, o, out)?,
            (Target::Grid(g, o), Ragged::Multi(m)) => m.tiles(g, o, out)?,
        }
        Ok(())
    }
}

/// Where the parts go.
enum Out<F> {
    GeoJson(GeoJsonWriter),
    /// Every batch's parts gathered, indices made global.
    Npz {
        path: PathBuf,
        all: Box<Parts<F>>,
        /// Write `geometry`.
        multi: bool,
        /// Write `ix`, `iy`.
        tiles: bool,
        /// Write the points.
        points: bool,
    },
}

impl<F: Real> Out<F> {
    fn create(
        path: &Path,
        format: LinesFormat,
        multi: bool,
        settings: &LinesSettings,
    ) -> Result<Self, Error> {
        Ok(match format {
            LinesFormat::GeoJson => Out::GeoJson(GeoJsonWriter::create(path)?),
            LinesFormat::Npz => Out::Npz {
                path: path.to_path_buf(),
                all: Box::new(Parts::new()),
                multi,
                tiles: matches!(settings.target, LinesTarget::Grid { .. }),
                points: settings.points,
            },
        })
    }

    /// Takes one batch's parts; `before` counts the features and polylines of earlier
    /// batches (their indices in `parts` start from 0).
    fn take(
        &mut self,
        parts: &Parts<F>,
        features: Option<&[FeatureInfo<'_>]>,
        before: &LinesSummary,
    ) -> Result<(), Error> {
        match self {
            Out::GeoJson(w) => w.write_parts(parts, features),
            Out::Npz { all, .. } => {
                let (g0, l0) = (before.features as i64, before.polylines as i64);
                let base = (all.coords.len() / 2) as i64;
                all.coords.extend_from_slice(&parts.coords);
                all.offsets
                    .extend(parts.offsets[1..].iter().map(|o| o + base));
                all.polyline.extend(parts.polyline.iter().map(|j| j + l0));
                all.geometry.extend(parts.geometry.iter().map(|g| g + g0));
                all.ix.extend_from_slice(&parts.ix);
                all.iy.extend_from_slice(&parts.iy);
                let (p, q) = (&mut all.points, &parts.points);
                p.coords.extend_from_slice(&q.coords);
                p.polyline.extend(q.polyline.iter().map(|j| j + l0));
                p.geometry.extend(q.geometry.iter().map(|g| g + g0));
                p.ix.extend_from_slice(&q.ix);
                p.iy.extend_from_slice(&q.iy);
                Ok(())
            }
        }
    }

    fn finish(self) -> Result<(), Error> {
        match self {
            Out::GeoJson(w) => w.finish().map(|_| ()),
            Out::Npz {
                path,
                all,
                multi,
                tiles,
                points,
            } => {
                fn pairs<F: Real>(v: &[F]) -> Column<'_> {
                    match (bytemuck::try_cast_slice(v), bytemuck::try_cast_slice(v)) {
                        (Ok(s), _) if F::DTYPE == "float32" => Column::F32Pairs(s),
                        (_, Ok(d)) => Column::F64Pairs(d),
                        // `Real` is sealed to f32 and f64: one of the two casts holds.
                        _ => Column::U8(&[]),
                    }
                }
                let mut arrays = vec![
                    ("coords", pairs(&all.coords)),
                    ("offsets", Column::I64(&all.offsets)),
                    ("polyline", Column::I64(&all.polyline)),
                ];
                if multi {
                    arrays.push(("geometry", Column::I64(&all.geometry)));
                }
                if tiles {
                    arrays.push(("ix", Column::I64(&all.ix)));
                    arrays.push(("iy", Column::I64(&all.iy)));
                }
                let p = &all.points;
                if !points {
                    return write_npz(&path, &arrays);
                }
                arrays.push(("point_coords", pairs(&p.coords)));
                arrays.push(("point_polyline", Column::I64(&p.polyline)));
                if multi {
                    arrays.push(("point_geometry", Column::I64(&p.geometry)));
                }
                if tiles {
                    arrays.push(("point_ix", Column::I64(&p.ix)));
                    arrays.push(("point_iy", Column::I64(&p.iy)));
                }
                write_npz(&path, &arrays)
            }
        }
    }
}
