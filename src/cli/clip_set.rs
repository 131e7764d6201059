//! `slabclip clip --rects FILE [--pairwise]` and `slabclip clip --polygon "X,Y ..."`: the
//! segments of a file against many rects or a convex polygon, into an `.npz` of named columns.

use std::path::{Path, PathBuf};

use clap::Args;
use slabclip::cast::clip_polygon;
use slabclip::io::{self, Batch, Column, RectBatch};
use slabclip::{Algorithm, ClipOutput, Error, Real, RectSet, Segments};

use super::args::{parse_polygon, Vertices};

/// The targets of `slabclip clip` beyond one `--rect` (flattened into its arguments).
#[derive(Debug, Args)]
pub struct SetArgs {
    /// Clip against every rect of FILE: .npy of shape (M, 4), float32 or float64, or .csv with
    /// the header xmin,ymin,xmax,ymax; rounded to the input's dtype. Output: the hit list of
    /// every (segment, rect) pair that meets, ordered by segment then rect.
    #[arg(long, value_name = "FILE")]
    pub rects: Option<PathBuf>,

    /// With --rects: clip segment i by rect i only (the file must hold one rect per segment).
    #[arg(long, requires = "rects")]
    pub pairwise: bool,

    /// Clip against the convex polygon with these vertices, in order, either orientation
    /// (Cyrus–Beck): "X,Y X,Y X,Y ...".
    #[arg(long, value_name = "\"X,Y X,Y ...\"", allow_hyphen_values = true, value_parser = parse_polygon)]
    pub polygon: Option<Vertices>,
}

/// What the `.npz` outputs hold, for `--help`.
pub const OUTPUTS: &str = "Output of --rects and --polygon: an .npz (np.load(OUTPUT)[name]):\n  \
    --rects:            segment, rect (int64), t_entry, t_exit (input dtype), class (uint8),\n                      \
    one row per hit, ordered by segment then rect\n  \
    --rects --pairwise, --polygon:\n                      \
    t_entry, t_exit (input dtype), class (uint8), one row per segment, NaN on a miss";

impl SetArgs {
    /// Whether one of these targets was given (else `--rect` was).
    pub fn given(&self) -> bool {
        self.rects.is_some() || self.polygon.is_some()
    }
}

/// Runs `slabclip clip` with `--rects` or `--polygon`: reads the whole input, clips, writes the
/// `.npz` whole or not at all.
pub fn run(args: &SetArgs, algorithm: Algorithm, input: &Path, output: &Path) -> Result<(), Error> {
    match output.extension() {
        Some(e) if e.eq_ignore_ascii_case("npz") => {}
        _ => {
            return Err(Error::file(
                output,
                "--rects and --polygon write .npz; give the output a name ending in .npz",
            ))
        }
    }
    for other in [Some(input), args.rects.as_deref()].into_iter().flatten() {
        if io::same_file(other, output) {
            return Err(Error::file(
                output,
                "output is an input file; refusing to overwrite it",
            ));
        }
    }
    io::output_folder(output)?;
    let rects = args.rects.as_deref().map(io::read_rects).transpose()?;
    match io::read_segments(input)? {
        Batch::F32(v) => clip_as(args, algorithm, &v, rects.as_ref(), input, output),
        Batch::F64(v) => clip_as(args, algorithm, &v, rects.as_ref(), input, output),
    }
}

/// A column of `F` as an `.npz` column of its dtype.
fn col<F: Real>(v: &[F]) -> Column<'_> {
    match (bytemuck::try_cast_slice(v), bytemuck::try_cast_slice(v)) {
        (Ok(s), _) if F::DTYPE == "float32" => Column::F32(s),
        (_, Ok(d)) => Column::F64(d),
        // `Real` is sealed to f32 and f64: one of the two casts holds.
        _ => Column::U8(&[]),
    }
}

fn clip_as<F: Real>(
    args: &SetArgs,
    algorithm: Algorithm,
    values: &[F],
    rects: Option<&RectBatch>,
    input: &Path,
    output: &Path,
) -> Result<(), Error> {
    let segs = Segments::from_interleaved(values)?;
    let n = segs.len();
    let (mut t_entry, mut t_exit, mut class) = (vec![F::NAN; n], vec![F::NAN; n], vec![0u8; n]);
    let mut out = ClipOutput {
        t_entry: Some(&mut t_entry),
        t_exit: Some(&mut t_exit),
        class: Some(&mut class),
        segments: None,
    };
    match (rects, &args.polygon) {
        (Some(batch), _) => {
            let path = args.rects.as_deref().unwrap_or(Path::new("--rects"));
            let rects = batch.to_dtype::<F>(path)?;
            if !args.pairwise {
                let set = RectSet::new(rects).map_err(|e| Error::file(path, e.to_string()))?;
                let hits = algorithm.clip_rect_set(&set, &segs.as_ref());
                let index = |f: fn(&slabclip::Hit<F>) -> usize| -> Vec<i64> {
                    hits.iter().map(|h| f(h) as i64).collect()
                };
                let (segment, rect) = (index(|h| h.segment), index(|h| h.rect));
                let te: Vec<F> = hits.iter().map(|h| h.t_entry).collect();
                let tx: Vec<F> = hits.iter().map(|h| h.t_exit).collect();
                let cl: Vec<u8> = hits.iter().map(|h| h.class as u8).collect();
                return io::write_npz(
                    output,
                    &[
                        ("segment", Column::I64(&segment)),
                        ("rect", Column::I64(&rect)),
                        ("t_entry", col(&te)),
                        ("t_exit", col(&tx)),
                        ("class", Column::U8(&cl)),
                    ],
                );
            }
            if rects.len() != n {
                return Err(Error::file(
                    path,
                    format!(
                        "{} rects for the {n} segments of {}: --pairwise needs one rect per \
                         segment",
                        rects.len(),
                        input.display()
                    ),
                ));
            }
            algorithm.clip_pairwise(&rects, &segs.as_ref(), &mut out)?;
        }
        (None, Some(vertices)) => {
            let poly = vertices
                .polygon::<F>()
                .map_err(|e| Error::InvalidArgument(format!("--polygon: {e}")))?;
            clip_polygon(&poly, &segs.as_ref(), &mut out)?;
        }
        (None, None) => {
            return Err(Error::InvalidArgument(
                "clip needs --rect, --rects or --polygon".into(),
            ))
        }
    }
    io::write_npz(
        output,
        &[
            ("t_entry", col(&t_entry)),
            ("t_exit", col(&t_exit)),
            ("class", Column::U8(&class)),
        ],
    )
}
