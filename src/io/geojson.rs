//! GeoJSON lines: a FeatureCollection of LineString and MultiLineString features read one
//! feature at a time into ragged batches ([`GeoJsonFile::batches`]), and parts written back
//! as features ([`GeoJsonWriter`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::atomic::AtomicFile;
use crate::error::Error;
use crate::polyline::{MultiPolylines, Parts, Polylines};
use crate::real::Real;

/// The property keys the output adds to every feature. An input feature's properties of these
/// names (as in a file slabclip wrote) are replaced, not repeated: each key appears once.
pub const RESERVED: [&str; 4] = ["feature", "part", "ix", "iy"];

/// One input feature as the output needs it: its index and its raw `id` and properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureInfo<'a> {
    /// Its index in the `features` array, from 0.
    pub index: usize,
    /// Its `id` as written (a JSON string with its quotes, or a number), if it has one.
    pub id: Option<&'a str>,
    /// Its `properties` object as written, if it has one (not `null`).
    pub properties: Option<&'a str>,
    /// Whether the properties hold a key of [`RESERVED`] (which the output replaces).
    pub has_reserved: bool,
}

impl fmt::Display for FeatureInfo<'_> {
    /// `feature 12`, or `feature 12 (id "a7")`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "feature {}", self.index)?;
        if let Some(id) = self.id {
            write!(f, " (id {})", super::excerpt_raw(id, 40))?;
        }
        Ok(())
    }
}

/// Whole features' lines in the ragged layout of [`MultiPolylines`]: one geometry per feature
/// (a LineString is a geometry of one polyline), `f64`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeatureBatch<'a> {
    /// Every vertex, interleaved `x, y`.
    pub coords: Vec<f64>,
    /// `L + 1` offsets into the vertices (starting at 0).
    pub offsets: Vec<i64>,
    /// `G + 1` offsets into the polylines, geometry `g` being feature `features[g]`.
    pub geometry_offsets: Vec<i64>,
    /// The features, in file order.
    pub features: Vec<FeatureInfo<'a>>,
}

impl<'a> FeatureBatch<'a> {
    fn new() -> Self {
        FeatureBatch {
            coords: Vec::new(),
            offsets: vec![0],
            geometry_offsets: vec![0],
            features: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.coords.clear();
        self.offsets.truncate(1);
        self.geometry_offsets.truncate(1);
        self.features.clear();
    }

    /// How many vertices.
    pub fn vertices(&self) -> usize {
        self.coords.len() / 2
    }

    /// The batch as the library takes it.
    pub fn lines(&self) -> Result<MultiPolylines<'_, f64>, Error> {
        let lines = Polylines::interleaved(&self.coords, &self.offsets)?;
        MultiPolylines::new(lines, &self.geometry_offsets)
    }
}

/// A GeoJSON file opened for reading (memory-mapped).
///
/// The file is memory-mapped and parsed by `serde_json` as a stream: the collection's
/// `features` array is visited element by element, each feature deserialized on its own with
/// its `id`, `properties` and `geometry` kept as raw JSON text borrowed from the map (so a file
/// larger than memory is read in bounded memory, and properties come back byte for byte). Whole
/// features are gathered into a [`FeatureBatch`] of at least the asked number of vertices,
/// handed to the caller, and cleared.
///
/// Coordinates are parsed here, not by `serde_json`: each number token goes through Rust's
/// `f64::from_str`, which rounds correctly (the nearest `f64` to the decimal written), so a file
/// written with shortest round-trip numbers reads back bit for bit. A position is exactly two
/// numbers `[x, y]`.
///
/// Everything else is an [`Error::File`](crate::Error::File) naming the file and the feature
/// (its index from 0 in the `features` array, and its `id` when it has one), with the line and
/// column for broken JSON: a top level that is not a FeatureCollection, a Point, MultiPoint,
/// Polygon, MultiPolygon or GeometryCollection (slabclip cuts lines only: nothing is dropped
/// silently), a LineString (or a line of a MultiLineString) of a single position, a position of
/// other than two numbers, a number beyond the `f64` range, `properties` that are not an object
/// or `null`, an `id` that is neither a string nor a number. A feature
/// whose `geometry` is `null` (or absent) holds no line and gives no output. An empty
/// `coordinates` array is a line with no vertices, which clips to nothing.
pub struct GeoJsonFile {
    path: PathBuf,
    map: Mmap,
}

impl GeoJsonFile {
    /// Opens and maps `path`; an empty or unreadable file is an error naming it.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| Error::file(path, e.to_string()))?;
        let len = file
            .metadata()
            .map_err(|e| Error::file(path, e.to_string()))?
            .len();
        if len == 0 {
            return Err(Error::file(
                path,
                "the file is empty, expected a GeoJSON FeatureCollection",
            ));
        }
        // SAFETY: the map is read-only; like every input of slabclip (see the `io` module
        // docs), the file is assumed not to change while it is read.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::file(path, e.to_string()))?;
        Ok(GeoJsonFile {
            path: path.to_path_buf(),
            map,
        })
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.map.len() as u64
    }

    /// Reads the features in order, calling `each` with batches of whole features holding at
    /// least `batch_vertices` vertices (the last may hold fewer; a batch is never empty of
    /// features). Returns how many features there were. Stops at the first error, its own or
    /// `each`'s.
    pub fn batches<'s>(
        &'s self,
        batch_vertices: usize,
        mut each: impl FnMut(&FeatureBatch<'s>) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        let mut sink = Sink {
            path: &self.path,
            batch: FeatureBatch::new(),
            batch_vertices,
            each: &mut each,
            failed: None,
            at: At::Before,
            features: 0,
        };
        let mut de = serde_json::Deserializer::from_slice(&self.map);
        let read = Collection { sink: &mut sink }
            .deserialize(&mut de)
            .and_then(|()| de.end());
        if let Some(e) = sink.failed.take() {
            return Err(e);
        }
        if let Err(e) = read {
            let msg = match sink.at {
                At::Feature(i) => format!("feature {i}: {e}"),
                _ => e.to_string(),
            };
            return Err(Error::file(&self.path, msg));
        }
        if !sink.batch.features.is_empty() {
            (sink.each)(&sink.batch)?;
        }
        Ok(sink.features)
    }

    /// Every feature in one batch.
    pub fn read_all(&self) -> Result<FeatureBatch<'_>, Error> {
        let mut all = FeatureBatch::new();
        self.batches(usize::MAX, |b| {
            all = b.clone();
            Ok(())
        })?;
        Ok(all)
    }
}

/// Where the reader is, for the messages of `serde_json`'s errors.
#[derive(Clone, Copy, PartialEq)]
enum At {
    Before,
    Feature(usize),
    After,
}

struct Sink<'p, 'a, 'f> {
    path: &'p Path,
    batch: FeatureBatch<'a>,
    batch_vertices: usize,
    each: &'f mut dyn FnMut(&FeatureBatch<'a>) -> Result<(), Error>,
    /// An error of ours (not a JSON one), which ends the parse.
    failed: Option<Error>,
    at: At,
    features: usize,
}

impl<'a> Sink<'_, 'a, '_> {
    fn fail<E: de::Error>(&mut self, e: Error) -> E {
        self.failed = Some(e);
        E::custom("stopped")
    }

    /// Adds feature `index` to the batch, and hands the batch over when it is full.
    fn feature(&mut self, index: usize, f: RawFeature<'a>) -> Result<(), Error> {
        let path = self.path;
        let id = f.id.map(RawValue::get).filter(|t| *t != "null");
        let name = FeatureInfo {
            index,
            id,
            properties: None,
            has_reserved: false,
        };
        let bad = |msg: String| Error::file(path, format!("{name}: {msg}"));
        if f.kind != "Feature" {
            return Err(bad(format!(
                "\"type\" is {:?}, expected \"Feature\"",
                f.kind
            )));
        }
        if let Some(id) = id {
            if !(id.starts_with('"')
                || id.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']))
            {
                return Err(bad(format!(
                    "\"id\" is {}, expected a string or a number",
                    super::excerpt_raw(id, 40)
                )));
            }
        }
        let mut has_reserved = false;
        let properties = match f.properties.map(RawValue::get) {
            None | Some("null") => None,
            Some(p) if p.starts_with('{') => {
                // Only the keys' text is looked at, and only where one could be reserved.
                if RESERVED.iter().any(|k| p.contains(k)) {
                    let keys: HashMap<Cow<'_, str>, IgnoredAny> =
                        serde_json::from_str(p).map_err(|e| bad(format!("properties: {e}")))?;
                    has_reserved = RESERVED.iter().any(|k| keys.contains_key(*k));
                }
                Some(p)
            }
            Some(p) => {
                return Err(bad(format!(
                    "\"properties\" is {}, expected an object or null",
                    super::excerpt_raw(p, 40)
                )))
            }
        };
        let b = &mut self.batch;
        let (v0, l0) = (b.coords.len(), b.offsets.len());
        let added = match f.geometry.map(RawValue::get) {
            None | Some("null") => Ok(()),
            Some(g) => add_geometry(g, &mut b.coords, &mut b.offsets),
        };
        if let Err(msg) = added {
            b.coords.truncate(v0);
            b.offsets.truncate(l0);
            return Err(bad(msg));
        }
        b.geometry_offsets.push(b.offsets.len() as i64 - 1);
        b.features.push(FeatureInfo {
            index,
            id,
            properties,
            has_reserved,
        });
        self.features += 1;
        if b.vertices() >= self.batch_vertices {
            (self.each)(&self.batch)?;
            self.batch.clear();
        }
        Ok(())
    }
}

/// A feature with its members raw (unknown members, such as `bbox`, are skipped).
#[derive(Deserialize)]
struct RawFeature<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    properties: Option<&'a RawValue>,
    #[serde(borrow, default)]
    geometry: Option<&'a RawValue>,
}

/// A geometry's type and raw coordinates.
#[derive(Deserialize)]
struct RawGeometry<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    coordinates: Option<&'a RawValue>,
}

/// Parses geometry `text` (a LineString or MultiLineString) onto the ragged arrays.
fn add_geometry(text: &str, coords: &mut Vec<f64>, offsets: &mut Vec<i64>) -> Result<(), String> {
    let g: RawGeometry<'_> = serde_json::from_str(text).map_err(|e| format!("geometry: {e}"))?;
    let depth = match &*g.kind {
        "LineString" => 1,
        "MultiLineString" => 2,
        "Point" | "MultiPoint" | "Polygon" | "MultiPolygon" | "GeometryCollection" => {
            return Err(format!(
                "a {} geometry: slabclip lines cuts LineString and MultiLineString \
                 geometries only",
                g.kind
            ))
        }
        other => return Err(format!("unknown geometry type {other:?}")),
    };
    let Some(c) = g.coordinates else {
        return Err(format!("the {} has no \"coordinates\"", g.kind));
    };
    let mut p = Coordinates {
        text: c.get().as_bytes(),
        at: 0,
    };
    if depth == 1 {
        p.line(coords, offsets, None)
    } else {
        p.open("a list of lines")?;
        let mut k = 0;
        while p.next_item()? {
            p.line(coords, offsets, Some(k))?;
            k += 1;
        }
        Ok(())
    }
}

/// The text of a `coordinates` value, already checked to be valid JSON by `serde_json`.
struct Coordinates<'t> {
    text: &'t [u8],
    at: usize,
}

impl Coordinates<'_> {
    fn skip_space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// What the next value is, for messages.
    fn found(&mut self) -> &'static str {
        self.skip_space();
        match self.text.get(self.at) {
            Some(b'[') => "an array",
            Some(b'{') => "an object",
            Some(b'"') => "a string",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            Some(_) => "a number",
            None => "nothing",
        }
    }

    /// `[`, or an error saying what was expected.
    fn open(&mut self, what: &str) -> Result<(), String> {
        self.skip_space();
        if self.text.get(self.at) == Some(&b'[') {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {what}, found {}", self.found()))
        }
    }

    /// Inside an array: `true` before another item (after its `,` if not the first), `false`
    /// after the closing `]`.
    fn next_item(&mut self) -> Result<bool, String> {
        self.skip_space();
        match self.text.get(self.at) {
            Some(b']') => {
                self.at += 1;
                Ok(false)
            }
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(_) if self.text[self.at - 1] == b'[' => Ok(true),
            _ => Err("unexpected end of coordinates".into()),
        }
    }

    /// A number, correctly rounded to `f64`.
    fn number(&mut self) -> Result<f64, String> {
        self.skip_space();
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b"+-0123456789.eE".contains(b))
        {
            self.at += 1;
        }
        let token = std::str::from_utf8(&self.text[start..self.at]).unwrap_or("");
        if token.is_empty() {
            self.at = start;
            return Err(format!("expected a number, found {}", self.found()));
        }
        match token.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(format!("{token} is beyond the range of float64")),
        }
    }

    /// One line (an array of positions) onto the ragged arrays; `k` is its index in a
    /// MultiLineString.
    fn line(
        &mut self,
        coords: &mut Vec<f64>,
        offsets: &mut Vec<i64>,
        k: Option<usize>,
    ) -> Result<(), String> {
        let line = || k.map_or(String::new(), |k| format!("line {k}, "));
        self.open("a list of positions")
            .map_err(|e| format!("{}{e}", line()))?;
        let mut n = 0usize;
        while self.next_item()? {
            let pos = |e: String| format!("{}position {n}: {e}", line());
            self.open("a position [x, y]").map_err(pos)?;
            let x = self.number().map_err(pos)?;
            if !self.next_item()? {
                return Err(pos("one number, expected two (x, y)".into()));
            }
            let y = self.number().map_err(pos)?;
            if self.next_item()? {
                return Err(pos(
                    "more than two numbers: slabclip lines reads x, y only (no z)".into(),
                ));
            }
            coords.extend_from_slice(&[x, y]);
            n += 1;
        }
        if n == 1 {
            return Err(format!(
                "{}a line of a single position: a line needs two or more",
                line()
            ));
        }
        offsets.push((coords.len() / 2) as i64);
        Ok(())
    }
}

/// The top level: a FeatureCollection, its `features` streamed.
struct Collection<'s, 'p, 'a, 'f> {
    sink: &'s mut Sink<'p, 'a, 'f>,
}

impl<'de> DeserializeSeed<'de> for Collection<'_, '_, 'de, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Collection<'_, '_, 'de, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a GeoJSON FeatureCollection (an object)")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let (mut kind, mut features) = (None::<String>, false);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "type" => kind = Some(map.next_value()?),
                "features" => {
                    if features {
                        return Err(de::Error::custom("\"features\" appears twice"));
                    }
                    features = true;
                    map.next_value_seed(Features {
                        sink: &mut *self.sink,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match kind.as_deref() {
            Some("FeatureCollection") => {}
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "the top level is a {other:?}, expected a \"FeatureCollection\""
                )))
            }
            None => {
                return Err(de::Error::custom(
                    "the top level has no \"type\", expected a FeatureCollection",
                ))
            }
        }
        if !features {
            return Err(de::Error::custom(
                "the FeatureCollection has no \"features\" array",
            ));
        }
        Ok(())
    }
}

struct Features<'s, 'p, 'a, 'f> {
    sink: &'s mut Sink<'p, 'a, 'f>,
}

impl<'de> DeserializeSeed<'de> for Features<'_, '_, 'de, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Features<'_, '_, 'de, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of features")
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        let mut index = 0;
        loop {
            self.sink.at = At::Feature(index);
            let Some(f) = seq.next_element::<RawFeature<'de>>()? else {
                break;
            };
            if let Err(e) = self.sink.feature(index, f) {
                return Err(self.sink.fail(e));
            }
            index += 1;
        }
        self.sink.at = At::After;
        Ok(())
    }
}

/// A GeoJSON FeatureCollection being written: parts and points as features, staged in memory
/// and written to a temporary file in pieces; renamed into place by
/// [`finish`](GeoJsonWriter::finish), deleted if dropped unfinished.
///
/// [`GeoJsonWriter`] writes a FeatureCollection, one feature per line of text: each part a
/// LineString feature, each single point of contact a Point feature, with the source feature's
/// `id` and properties (raw, as read) followed by the keys of [`RESERVED`]: `feature` (the
/// source feature's index), `part` (the part's number among its feature's parts in its tile,
/// from 0), and for tiles `ix`, `iy` (input properties of these names, as in a file slabclip
/// wrote, are replaced). Numbers are written in the shortest form that reads
/// back to the same `f64`. The file is written to a temporary name and renamed when complete.
pub struct GeoJsonWriter {
    out: AtomicFile,
    staged: Vec<u8>,
    written: u64,
}

/// Staged bytes are written to the file once there are this many.
const STAGE: usize = 1 << 20;

impl GeoJsonWriter {
    /// Starts writing `path` (errors name it).
    pub fn create(path: &Path) -> Result<Self, Error> {
        let out = AtomicFile::create(path)?;
        Ok(GeoJsonWriter {
            out,
            staged: b"{\"type\":\"FeatureCollection\",\"features\":[".to_vec(),
            written: 0,
        })
    }

    /// How many features were written so far.
    pub fn features(&self) -> u64 {
        self.written
    }

    /// Writes the parts and points of one batch: each feature's parts, then its points, in
    /// the order the library gives them. The source of part `k` is feature
    /// `features[geometry[k]]` when `features` is given (a [`FeatureBatch`]'s), else the
    /// geometry (or, without geometries, the polyline) index itself, with no id or
    /// properties.
    pub fn write_parts<F: Real>(
        &mut self,
        parts: &Parts<F>,
        features: Option<&[FeatureInfo<'_>]>,
    ) -> Result<(), Error> {
        let source = |geometry: &[i64], polyline: &[i64], k: usize| -> FeatureInfo<'_> {
            let g = if geometry.is_empty() {
                polyline[k]
            } else {
                geometry[k]
            };
            match features {
                Some(f) => f[g as usize],
                None => FeatureInfo {
                    index: g as usize,
                    id: None,
                    properties: None,
                    has_reserved: false,
                },
            }
        };
        let pts = &parts.points;
        let (mut k, mut q) = (0, 0);
        let mut numbers: HashMap<(i64, i64), u64> = HashMap::new();
        let mut current = usize::MAX;
        while k < parts.len() || q < pts.len() {
            let fk = (k < parts.len()).then(|| source(&parts.geometry, &parts.polyline, k));
            let fq = (q < pts.len()).then(|| source(&pts.geometry, &pts.polyline, q));
            let take_part = match (fk, fq) {
                (Some(a), Some(b)) => a.index <= b.index,
                (a, _) => a.is_some(),
            };
            if take_part {
                let f = fk.expect("a part");
                if f.index != current {
                    current = f.index;
                    numbers.clear();
                }
                let cell = parts.ix.get(k).map(|&ix| (ix, parts.iy[k]));
                let n = numbers.entry(cell.unwrap_or((0, 0))).or_insert(0);
                let p = parts.part(k);
                self.feature(&f, Some(*n), cell, p.coords, "LineString");
                *n += 1;
                k += 1;
            } else {
                let f = fq.expect("a point");
                let cell = pts.ix.get(q).map(|&ix| (ix, pts.iy[q]));
                self.feature(&f, None, cell, &pts.coords[2 * q..2 * q + 2], "Point");
                q += 1;
            }
            if self.staged.len() >= STAGE {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn feature<F: Real>(
        &mut self,
        f: &FeatureInfo<'_>,
        part: Option<u64>,
        cell: Option<(i64, i64)>,
        xy: &[F],
        kind: &str,
    ) {
        let s = &mut self.staged;
        s.extend_from_slice(if self.written == 0 { b"\n" } else { b",\n" });
        s.extend_from_slice(b"{\"type\":\"Feature\",");
        if let Some(id) = f.id {
            s.extend_from_slice(b"\"id\":");
            s.extend_from_slice(id.as_bytes());
            s.push(b',');
        }
        s.extend_from_slice(b"\"properties\":{");
        if let Some(p) = f.properties {
            if f.has_reserved {
                for (k, v) in without_reserved(p) {
                    let _ = serde_json::to_writer(&mut *s, &k);
                    s.push(b':');
                    s.extend_from_slice(v.get().as_bytes());
                    s.push(b',');
                }
            } else {
                let inner = p[1..p.len() - 1].trim();
                if !inner.is_empty() {
                    s.extend_from_slice(inner.as_bytes());
                    s.push(b',');
                }
            }
        }
        let _ = write!(s, "\"feature\":{}", f.index);
        if let Some(n) = part {
            let _ = write!(s, ",\"part\":{n}");
        }
        if let Some((ix, iy)) = cell {
            let _ = write!(s, ",\"ix\":{ix},\"iy\":{iy}");
        }
        let _ = write!(s, "}},\"geometry\":{{\"type\":\"{kind}\",\"coordinates\":");
        let point = |s: &mut Vec<u8>, x: F, y: F| {
            s.push(b'[');
            number(s, x);
            s.push(b',');
            number(s, y);
            s.push(b']');
        };
        if kind == "Point" {
            point(s, xy[0], xy[1]);
        } else {
            s.push(b'[');
            for (i, v) in xy.chunks_exact(2).enumerate() {
                if i > 0 {
                    s.push(b',');
                }
                point(s, v[0], v[1]);
            }
            s.push(b']');
        }
        s.extend_from_slice(b"}}");
        self.written += 1;
    }

    fn flush(&mut self) -> Result<(), Error> {
        let r = self.out.file().write_all(&self.staged);
        self.staged.clear();
        r.map_err(|e| self.out.failed(e))
    }

    /// Closes the collection, syncs the file and renames it into place.
    pub fn finish(mut self) -> Result<u64, Error> {
        self.staged.extend_from_slice(b"\n]}\n");
        self.flush()?;
        let n = self.written;
        self.out.commit()?;
        Ok(n)
    }
}

/// The members of properties object `p` (checked when read) but those of [`RESERVED`], in
/// order.
fn without_reserved(p: &str) -> Vec<(Cow<'_, str>, &RawValue)> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(Cow<'de, str>, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
            let mut out = Vec::new();
            while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                let v: &'de RawValue = map.next_value()?;
                if !RESERVED.contains(&&*k) {
                    out.push((k, v));
                }
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(p);
    de::Deserializer::deserialize_map(&mut de, Members).unwrap_or_default()
}

/// `v` widened to `f64`, in the shortest decimal that reads back to it (`serde_json`'s
/// formatting); finite values only (parts hold no others).
fn number<F: Real>(s: &mut Vec<u8>, v: F) {
    let _ = serde_json::to_writer(&mut *s, &v.to_f64());
}

/// Writes `lines` to `path` as a GeoJSON FeatureCollection, whole or not at all: geometry `g`
/// as feature `g` with `"id": g`, a LineString when it holds one polyline and a
/// MultiLineString otherwise, and the properties `properties(g)` gives (a JSON object's text).
/// Coordinates are widened to `f64` and written in the shortest form that reads back to them.
pub fn write_geojson_lines<F: Real>(
    path: &Path,
    lines: &MultiPolylines<'_, F>,
    properties: impl Fn(usize) -> String,
) -> Result<(), Error> {
    let coords = lines.lines().coords();
    super::write_atomically(path, |w| {
        w.write_all(b"{\"type\":\"FeatureCollection\",\"features\":[")?;
        let mut s = Vec::new();
        for g in 0..lines.len() {
            s.clear();
            s.extend_from_slice(if g == 0 { b"\n" } else { b",\n" });
            let members = lines.parts(g);
            let multi = members.len() != 1;
            let _ = write!(
                s,
                "{{\"type\":\"Feature\",\"id\":{g},\"properties\":{},\"geometry\":{{\"type\":\"{}\",\"coordinates\":",
                properties(g),
                if multi { "MultiLineString" } else { "LineString" }
            );
            if multi {
                s.push(b'[');
            }
            for (k, j) in members.enumerate() {
                if k > 0 {
                    s.push(b',');
                }
                s.push(b'[');
                for (n, v) in lines.lines().vertices(j).enumerate() {
                    if n > 0 {
                        s.push(b',');
                    }
                    let (x, y) = coords.vertex(v);
                    s.push(b'[');
                    number(&mut s, x);
                    s.push(b',');
                    number(&mut s, y);
                    s.push(b']');
                }
                s.push(b']');
            }
            if multi {
                s.push(b']');
            }
            s.extend_from_slice(b"}}");
            w.write_all(&s)?;
        }
        w.write_all(b"\n]}\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coordinates, offsets, geometry offsets, and (index, id, properties) per feature.
    type Read = (
        Vec<f64>,
        Vec<i64>,
        Vec<i64>,
        Vec<(usize, Option<String>, Option<String>)>,
    );

    fn read(text: &str) -> Result<Read, Error> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.geojson");
        std::fs::write(&path, text).unwrap();
        let f = GeoJsonFile::open(&path)?;
        let b = f.read_all()?;
        let info = b
            .features
            .iter()
            .map(|f| {
                (
                    f.index,
                    f.id.map(str::to_string),
                    f.properties.map(str::to_string),
                )
            })
            .collect();
        Ok((b.coords, b.offsets, b.geometry_offsets, info))
    }

    fn error(text: &str) -> String {
        let e = read(text).unwrap_err().to_string();
        assert!(e.contains("in.geojson: "), "{e}");
        e
    }

    fn fc(features: &str) -> String {
        format!(r#"{{"type": "FeatureCollection", "features": [{features}]}}"#)
    }

    #[test]
    fn lines_and_multilines_become_ragged_geometries() {
        let text = fc(r#"
            {"type": "Feature", "id": 7, "properties": {"name": "a"},
             "geometry": {"type": "LineString", "coordinates": [[0, 0], [1.5, -2e-3]]}},
            {"geometry": {"coordinates": [[[1,1],[2,2],[3,3]], [], [[4,4],[5,5]]], "type": "MultiLineString"},
             "type": "Feature", "properties": null},
            {"type": "Feature", "geometry": null, "properties": {}},
            {"type": "Feature", "id": "x", "bbox": [0, 0, 1, 1],
             "geometry": {"type": "LineString", "coordinates": []}}
        "#);
        let (xy, off, geo, info) = read(&fc("")).unwrap();
        assert!(xy.is_empty() && off == [0] && geo == [0] && info.is_empty());
        let (xy, off, geo, info) = read(&text).unwrap();
        assert_eq!(
            xy,
            [0.0, 0.0, 1.5, -2e-3, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0]
        );
        assert_eq!(off, [0, 2, 5, 5, 7, 7]);
        assert_eq!(geo, [0, 1, 4, 4, 5]);
        assert_eq!(
            info[0],
            (0, Some("7".into()), Some(r#"{"name": "a"}"#.into()))
        );
        assert_eq!(
            without_reserved(r#"{"ix": 1, "a\u0041": [2], "part": 0, "z": null}"#)
                .iter()
                .map(|(k, v)| (k.to_string(), v.get().to_string()))
                .collect::<Vec<_>>(),
            [
                ("aA".to_string(), "[2]".to_string()),
                ("z".into(), "null".into())
            ]
        );
        assert_eq!(info[1], (1, None, None));
        assert_eq!(info[2], (2, None, Some("{}".into())));
        assert_eq!(info[3], (3, Some("\"x\"".into()), None));
    }

    #[test]
    fn numbers_are_correctly_rounded() {
        // Each is the decimal halfway between two f64 neighbours plus a tiny bit, or long.
        let cases = [
            "0.1",
            "2.2250738585072011e-308",
            "9007199254740993",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.000000000000000111022302462515654042363166809082031250000001",
            "-0.0",
            "5e-324",
            "1.7976931348623157e308",
            "123456789012345678901234567890",
        ];
        for c in cases {
            let text = fc(&format!(
                r#"{{"type": "Feature", "properties": null,
                    "geometry": {{"type": "LineString", "coordinates": [[{c}, 0], [0, {c}]]}}}}"#
            ));
            let (xy, ..) = read(&text).unwrap();
            let want: f64 = c.parse().unwrap();
            assert_eq!(xy[0].to_bits(), want.to_bits(), "{c}");
            assert_eq!(xy[3].to_bits(), want.to_bits(), "{c}");
        }
    }

    #[test]
    fn bad_features_are_named() {
        let line = r#""geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#;
        let ok = format!(r#"{{"type": "Feature", "properties": null, {line}}}"#);
        let with = |bad: &str| fc(&format!("{ok}, {ok}, {bad}"));
        for (bad, want) in [
            (
                r#"{"type": "Feature", "id": "r9", "properties": null, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}}"#,
                r#"feature 2 (id "r9"): a Polygon geometry: slabclip lines cuts LineString and MultiLineString geometries only"#,
            ),
            (
                r#"{"type": "Feature", "properties": null, "geometry": {"type": "Point", "coordinates": [0, 0]}}"#,
                "feature 2: a Point geometry",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0]]}}"#,
                "feature 2: a line of a single position",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2]]]}}"#,
                "feature 2: line 1, a line of a single position",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0, 5], [1, 1, 5]]}}"#,
                "feature 2: position 0: more than two numbers",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, "1"]]}}"#,
                "feature 2: position 1: expected a number, found a string",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1e999, 1]]}}"#,
                "feature 2: position 1: 1e999 is beyond the range of float64",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[[0, 0], [1, 1]]]}}"#,
                "feature 2: position 0: expected a number, found an array",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString"}}"#,
                "feature 2: the LineString has no \"coordinates\"",
            ),
            (
                r#"{"type": "Feature", "geometry": {"type": "Curve", "coordinates": []}}"#,
                "feature 2: unknown geometry type \"Curve\"",
            ),
            (
                r#"{"type": "Feature", "properties": [1], "geometry": null}"#,
                "feature 2: \"properties\" is [1], expected an object or null",
            ),
            (
                r#"{"type": "Feature", "id": [1], "geometry": null}"#,
                "feature 2 (id [1]): \"id\" is [1], expected a string or a number",
            ),
            (
                r#"{"type": "Geometry", "geometry": null}"#,
                "feature 2: \"type\" is \"Geometry\", expected \"Feature\"",
            ),
            (r#"{"geometry": null}"#, "feature 2: missing field `type`"),
            (
                r#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [NaN, 1]]}}"#,
                "feature 2: expected value at line 1",
            ),
            (
                r#"{"type": "Feature" "geometry": null}"#,
                "feature 2: expected `,` or `}` at line 1",
            ),
        ] {
            let e = error(&with(bad));
            assert!(e.contains(want), "{e}\n  wanted: {want}");
        }
        for (text, want) in [
            (
                r#"{"type": "Feature", "geometry": null}"#.to_string(),
                "the top level is a \"Feature\", expected a \"FeatureCollection\"",
            ),
            (
                r#"{"features": []}"#.into(),
                "the top level has no \"type\"",
            ),
            (
                r#"{"type": "FeatureCollection"}"#.into(),
                "has no \"features\" array",
            ),
            (
                "[]".into(),
                "expected a GeoJSON FeatureCollection (an object)",
            ),
            (fc(&ok) + " x", "trailing characters at line 1"),
            (fc(&ok)[..60].to_string(), "feature 0: EOF while parsing"),
            (String::new(), "the file is empty"),
        ] {
            let e = error(&text);
            assert!(e.contains(want), "{e}\n  wanted: {want}");
        }
    }

    #[test]
    fn batches_hold_whole_features_of_at_least_the_asked_vertices() {
        let feature = |n: usize| {
            let pos: Vec<String> = (0..n).map(|i| format!("[{i}, {i}]")).collect();
            format!(
                r#"{{"type": "Feature", "geometry": {{"type": "LineString", "coordinates": [{}]}}}}"#,
                pos.join(",")
            )
        };
        let text = fc(&[3, 5, 2, 0, 4, 2].map(feature).join(","));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.geojson");
        std::fs::write(&path, text).unwrap();
        let f = GeoJsonFile::open(&path).unwrap();
        let mut seen = Vec::new();
        let n = f
            .batches(6, |b| {
                seen.push((
                    b.features.iter().map(|f| f.index).collect::<Vec<_>>(),
                    b.vertices(),
                ));
                Ok(())
            })
            .unwrap();
        assert_eq!(n, 6);
        assert_eq!(seen, [(vec![0, 1], 8), (vec![2, 3, 4], 6), (vec![5], 2)]);
        // An error of the callback stops the read and comes back as it was.
        let e = f
            .batches(1, |_| Err(Error::Failed("full".into())))
            .unwrap_err();
        assert_eq!(e.to_string(), "full");
    }
}
