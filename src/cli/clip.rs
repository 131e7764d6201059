//! `slabclip clip`: one rectangle against every segment of a file.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use slabclip::io::{self, Batch};
use slabclip::{rows_from_interleaved, Algorithm, ClipOutput, Error, Real, Rect, Segments};

/// Arguments of `slabclip clip`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 on success, 1 on a data error (one line on stderr), 2 on a usage error."
)]
pub struct ClipArgs {
    /// The closed rectangle XMIN,YMIN,XMAX,YMAX (zero width or height allowed). Parsed as
    /// float64, then rounded to the input's dtype.
    #[arg(long, value_name = "XMIN,YMIN,XMAX,YMAX", allow_hyphen_values = true, value_parser = parse_rect)]
    rect: RectArg,

    /// The algorithm. All give the same answer; they differ only in speed.
    #[arg(long, value_name = "NAME", default_value = "auto", value_parser = algorithm_parser())]
    algorithm: Algorithm,

    /// What to write, in the input's row order.
    #[arg(long, value_enum, default_value_t = Emit::T)]
    emit: Emit,

    /// Input .npy: shape (N, 4), float32 or float64, C order, rows x0, y0, x1, y1.
    input: PathBuf,

    /// Output .npy, written whole or not at all; must not be the input.
    #[arg(short, long, value_name = "OUTPUT")]
    output: PathBuf,
}

/// The output of `slabclip clip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// Shape (N, 2), the input's dtype: t_entry, t_exit; NaN on a miss or an invalid row.
    T,
    /// Shape (N,), uint8: 0 outside, 1 inside, 2 enters, 3 exits, 4 crosses, 5 touches, 255 invalid.
    Class,
    /// Shape (N, 4), the input's dtype: the clipped segment; a NaN row on a miss.
    Segments,
}

/// `--rect` as given: checked in `f64`, converted to the input's dtype once that is known.
#[derive(Clone, Debug)]
struct RectArg {
    bounds: [f64; 4],
    text: String,
}

impl RectArg {
    /// The rect in `F`, rounded to nearest; an error if rounding made a bound infinite.
    fn to_rect<F: Real>(&self) -> Result<Rect<F>, Error> {
        let [xmin, ymin, xmax, ymax] = self.bounds.map(F::from_f64);
        Rect::new(xmin, ymin, xmax, ymax)
    }
}

/// Four comma-separated finite numbers with `min ≤ max` on both axes; otherwise a usage error.
fn parse_rect(s: &str) -> Result<RectArg, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 4 {
        return Err(format!(
            "expected four numbers XMIN,YMIN,XMAX,YMAX, found {}",
            parts.len()
        ));
    }
    let mut bounds = [0.0f64; 4];
    for ((slot, text), name) in bounds
        .iter_mut()
        .zip(&parts)
        .zip(["xmin", "ymin", "xmax", "ymax"])
    {
        *slot = text
            .parse()
            .map_err(|_| format!("{name} = {text:?} is not a number"))?;
    }
    let [xmin, ymin, xmax, ymax] = bounds;
    Rect::new(xmin, ymin, xmax, ymax).map_err(|e| e.to_string())?;
    Ok(RectArg {
        bounds,
        text: s.to_string(),
    })
}

/// The names of [`Algorithm::ALL`] and `auto`, listed in `--help` and in the error for others.
fn algorithm_parser() -> impl TypedValueParser<Value = Algorithm> {
    let names = Algorithm::ALL
        .into_iter()
        .chain([Algorithm::Auto])
        .map(Algorithm::name);
    PossibleValuesParser::new(names).try_map(|name| Algorithm::from_name(&name))
}

/// Runs `slabclip clip`. Nothing is written unless every step before the write succeeded.
pub fn run(args: &ClipArgs) -> Result<(), Error> {
    if io::same_file(&args.input, &args.output) {
        return Err(Error::file(
            &args.output,
            "output is the input file; refusing to overwrite it",
        ));
    }
    // Fail before the work if the result could not be written.
    io::output_folder(&args.output)?;
    match io::read_segments(&args.input)? {
        Batch::F32(values) => clip_as(args, &values),
        Batch::F64(values) => clip_as(args, &values),
    }
}

/// The clip in the input's own dtype `F`, and the write.
fn clip_as<F: Real>(args: &ClipArgs, values: &[F]) -> Result<(), Error> {
    let rect = args.rect.to_rect::<F>().map_err(|e| {
        Error::file(
            &args.input,
            format!(
                "--rect {} does not fit {}, the input's dtype ({e})",
                args.rect.text,
                F::DTYPE
            ),
        )
    })?;
    let segments = rows_from_interleaved(values)?;
    let n = segments.len();
    let output = &args.output;
    match args.emit {
        Emit::T => {
            let (mut t_entry, mut t_exit) = (vec![F::NAN; n], vec![F::NAN; n]);
            let mut out = ClipOutput {
                t_entry: Some(&mut t_entry),
                t_exit: Some(&mut t_exit),
                ..Default::default()
            };
            args.algorithm.clip(&rect, segments, &mut out)?;
            io::write_columns(output, &[&t_entry, &t_exit])
        }
        Emit::Class => {
            let mut class = vec![0u8; n];
            args.algorithm.clip(
                &rect,
                segments,
                &mut ClipOutput {
                    class: Some(&mut class),
                    ..Default::default()
                },
            )?;
            io::write_u8(output, &class)
        }
        Emit::Segments => {
            let mut clipped = Segments::nan(n);
            let mut out = ClipOutput {
                segments: Some(clipped.as_mut()),
                ..Default::default()
            };
            args.algorithm.clip(&rect, segments, &mut out)?;
            let (x0, y0, x1, y1) = clipped.as_ref().columns();
            io::write_columns(output, &[x0, y0, x1, y1])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_parsing() {
        assert_eq!(parse_rect("0,0,1,1").unwrap().bounds, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(
            parse_rect(" -1.5, -2 ,3e0,4").unwrap().bounds,
            [-1.5, -2.0, 3.0, 4.0]
        );
        assert_eq!(
            parse_rect("1,1,1,1").unwrap().bounds,
            [1.0; 4],
            "a point is a rect"
        );
        assert!(parse_rect("0,0,1").unwrap_err().contains("found 3"));
        assert!(parse_rect("0,0,1,x")
            .unwrap_err()
            .contains("ymax = \"x\" is not a number"));
        assert!(parse_rect("nan,0,1,1").unwrap_err().contains("not finite"));
        assert!(parse_rect("0,0,inf,1").unwrap_err().contains("not finite"));
        assert!(parse_rect("2,0,1,1").unwrap_err().contains("greater than"));
        let big = parse_rect("0,0,1e39,1").unwrap();
        assert!(big.to_rect::<f64>().is_ok());
        assert!(big.to_rect::<f32>().is_err());
    }
}
