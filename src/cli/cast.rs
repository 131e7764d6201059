//! `slabclip cast`: every ray of a file against a rect, a segments file, or a convex polygon.

use std::path::PathBuf;

use clap::{ArgGroup, Args};

use super::args::{parse_polygon, Vertices};
use slabclip::cast::signed_index;
use slabclip::cast::{
    cast_polygon, cast_rect, cast_segments_with, CastMethod, PolygonCastOutput, RectCastOutput,
    SegmentsCastOutput,
};
use slabclip::io::{self, Batch, Column};
use slabclip::{ConvexPolygon, Error, InsideMode, Rays, Real, Rect, Segments, NO_HIT};

/// Arguments of `slabclip cast`.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("target").required(true).args(["rect", "segments", "polygon"])),
    after_help = "Output arrays (np.load(OUTPUT)[name]), one row per ray, NaN (or -1) on a miss:\n  \
    --rect:     t_entry, t_exit (input dtype), class (uint8, as in `clip --emit class`)\n  \
    --segments: t, s, nx, ny (input dtype), index (int64, -1 on a miss)\n  \
    --polygon:  t, x, y, nx, ny (input dtype), edge (int64, -1 for none), inside (uint8 0/1)\n\
    The Python package gives the same values and dtypes (inside as bool: the same bytes).\n\n\
    Exit status: 0 on success, 1 on a data error (one line on stderr), 2 on a usage error."
)]
pub struct CastArgs {
    /// Cast against the closed rectangle XMIN,YMIN,XMAX,YMAX.
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", allow_hyphen_values = true, value_parser = parse_rect)]
    rect: Option<Bounds>,

    /// Cast against the segments of this .npy ((M, 4), rows x0, y0, x1, y1, the rays' dtype);
    /// the closest hit per ray. The segments are built into a scene index first where that
    /// pays (see --method): the same bits either way.
    #[arg(long, value_name = "FILE")]
    segments: Option<PathBuf>,

    /// With --segments: how the closest hits are found. auto: a scene index (a tree over the
    /// segments, built for the call) from 1024 segments and 256 rays, where it was measured to
    /// beat the brute force; brute-force: every ray against every segment; scene: always the
    /// index. The output is the same, bit for bit. [default: auto]
    #[arg(long, value_name = "METHOD", value_parser = parse_method, conflicts_with_all = ["rect", "polygon"])]
    method: Option<CastMethod>,

    /// Cast against the convex polygon with these vertices, in order, either orientation:
    /// "X,Y X,Y X,Y ...".
    #[arg(long, value_name = "\"X,Y X,Y ...\"", allow_hyphen_values = true, value_parser = parse_polygon)]
    polygon: Option<Vertices>,

    /// The rays' end, in units of their direction (inf: unbounded).
    #[arg(
        long,
        value_name = "T",
        default_value = "inf",
        allow_hyphen_values = true
    )]
    t_max: f64,

    /// With --polygon: for an origin inside, report where the ray leaves instead of t = 0.
    #[arg(long)]
    exit: bool,

    /// Input .npy: shape (N, 4), float32 or float64, C order, rows ox, oy, dx, dy.
    input: PathBuf,

    /// Output .npz, written whole or not at all; must not be the input.
    #[arg(short, long, value_name = "OUTPUT")]
    output: PathBuf,
}

/// Runs `slabclip cast`. Nothing is written unless every step before the write succeeded.
pub fn run(args: &CastArgs) -> Result<(), Error> {
    for other in [Some(&args.input), args.segments.as_ref()]
        .into_iter()
        .flatten()
    {
        if io::same_file(other, &args.output) {
            return Err(Error::file(
                &args.output,
                "output is an input file; refusing to overwrite it",
            ));
        }
    }
    io::output_folder(&args.output)?;
    match io::read_segments(&args.input)? {
        Batch::F32(v) => cast_as(args, &v, |b| match b {
            Batch::F32(s) => Some(s),
            Batch::F64(_) => None,
        }),
        Batch::F64(v) => cast_as(args, &v, |b| match b {
            Batch::F64(s) => Some(s),
            Batch::F32(_) => None,
        }),
    }
}

/// A column of `F` as an `.npz` column of its dtype.
pub(super) fn col<F: Real>(v: &[F]) -> Column<'_> {
    match (bytemuck::try_cast_slice(v), bytemuck::try_cast_slice(v)) {
        (Ok(s), _) if F::DTYPE == "float32" => Column::F32(s),
        (_, Ok(d)) => Column::F64(d),
        // `Real` is sealed to f32 and f64: one of the two casts holds.
        _ => Column::U8(&[]),
    }
}

/// An index column as the files hold it: `int64`, `-1` for [`NO_HIT`](slabclip::NO_HIT).
fn indices(v: &[u32]) -> Vec<i64> {
    v.iter().map(|&i| signed_index(i)).collect()
}

/// `--rect` as parsed, in `f64`.
#[derive(Clone, Debug)]
struct Bounds([f64; 4]);

/// `--rect`: four finite numbers with `min <= max` on both axes.
fn parse_rect(s: &str) -> Result<Bounds, String> {
    super::args::parse_bounds(s).map(Bounds)
}

/// `--method`: a [`CastMethod`] by name.
fn parse_method(s: &str) -> Result<CastMethod, String> {
    CastMethod::from_name(s).map_err(|e| e.to_string())
}

fn cast_as<F: Real>(
    args: &CastArgs,
    values: &[F],
    same_dtype: impl Fn(Batch) -> Option<Vec<F>>,
) -> Result<(), Error> {
    let t_max = F::from_f64(args.t_max);
    let rays = Rays::from_interleaved(values)?;
    let rays = rays.as_ref();
    let n = rays.len();
    let out = &args.output;
    if let Some(Bounds(b)) = &args.rect {
        let [xmin, ymin, xmax, ymax] = b.map(F::from_f64);
        let rect = Rect::new(xmin, ymin, xmax, ymax).map_err(|e| {
            Error::InvalidArgument(format!("--rect does not fit {}: {e}", F::DTYPE))
        })?;
        let (mut te, mut tx, mut class) = (vec![F::NAN; n], vec![F::NAN; n], vec![0u8; n]);
        let mut o = RectCastOutput {
            t_entry: Some(&mut te),
            t_exit: Some(&mut tx),
            class: Some(&mut class),
        };
        cast_rect(&rect, &rays, t_max, &mut o)?;
        return io::write_npz(
            out,
            &[
                ("t_entry", col(&te)),
                ("t_exit", col(&tx)),
                ("class", Column::U8(&class)),
            ],
        );
    }
    if let Some(path) = &args.segments {
        let batch = io::read_segments(path)?;
        let dtype = batch.dtype();
        let Some(seg_values) = same_dtype(batch) else {
            return Err(Error::file(
                path,
                format!("dtype {} differs from the rays' {}", dtype.name(), F::DTYPE),
            ));
        };
        let segs = Segments::from_interleaved(&seg_values)?;
        let mut c = vec![vec![F::NAN; n]; 4];
        let mut index = vec![NO_HIT; n];
        {
            let [t, s, nx, ny] = &mut c[..] else {
                unreachable!("four columns")
            };
            let o = SegmentsCastOutput {
                t: Some(t),
                s: Some(s),
                index: Some(&mut index),
                nx: Some(nx),
                ny: Some(ny),
            };
            cast_segments_with(
                args.method.unwrap_or_default(),
                &rays,
                &segs.as_ref(),
                t_max,
                o,
            )?;
        }
        let index = indices(&index);
        return io::write_npz(
            out,
            &[
                ("t", col(&c[0])),
                ("s", col(&c[1])),
                ("index", Column::I64(&index)),
                ("nx", col(&c[2])),
                ("ny", col(&c[3])),
            ],
        );
    }
    let poly: ConvexPolygon<F> = args
        .polygon
        .as_ref()
        .map_or_else(|| ConvexPolygon::new(&[]), Vertices::polygon)?;
    let mode = if args.exit {
        InsideMode::Exit
    } else {
        InsideMode::Origin
    };
    let mut c = vec![vec![F::NAN; n]; 5];
    let (mut edge, mut inside) = (vec![NO_HIT; n], vec![0u8; n]);
    {
        let [t, x, y, nx, ny] = &mut c[..] else {
            unreachable!("five columns")
        };
        let o = PolygonCastOutput {
            t: Some(t),
            x: Some(x),
            y: Some(y),
            nx: Some(nx),
            ny: Some(ny),
            edge: Some(&mut edge),
            inside: Some(&mut inside),
        };
        cast_polygon(&poly, &rays, t_max, mode, o)?;
    }
    let edge = indices(&edge);
    io::write_npz(
        out,
        &[
            ("t", col(&c[0])),
            ("x", col(&c[1])),
            ("y", col(&c[2])),
            ("nx", col(&c[3])),
            ("ny", col(&c[4])),
            ("edge", Column::I64(&edge)),
            ("inside", Column::U8(&inside)),
        ],
    )
}
