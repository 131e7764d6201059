//! Argument types more than one subcommand takes: `--emit`, `--rect`, `--polygon`, and counts
//! (`--n`, `--check`, `--cells`, `--threads`, `--repeat`: one parser, one suffix rule).

use clap::ValueEnum;
use slabclip::{io, ConvexPolygon, Error, Real, Rect};

/// What is written per segment (`--emit`), in the input's row order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Emit {
    /// Shape (N, 2), the input's dtype: t_entry, t_exit; NaN on a miss or an invalid row.
    T,
    /// Shape (N,), uint8: 0 outside, 1 inside, 2 enters, 3 exits, 4 crosses, 5 touches, 255 invalid.
    Class,
    /// Shape (N, 4), the input's dtype: the clipped segment; a NaN row on a miss.
    Segments,
}

impl Emit {
    /// The library's output mode.
    pub fn to_io(self) -> io::Emit {
        match self {
            Emit::T => io::Emit::T,
            Emit::Class => io::Emit::Class,
            Emit::Segments => io::Emit::Segments,
        }
    }

    /// Bytes written per segment in precision `F`.
    pub fn bytes_out<F: Real>(self) -> usize {
        match self {
            Emit::T => 2 * size_of::<F>(),
            Emit::Class => 1,
            Emit::Segments => 4 * size_of::<F>(),
        }
    }
}

/// `XMIN,YMIN,XMAX,YMAX`: four comma-separated finite numbers with `min ≤ max` on both axes,
/// parsed as `f64` (each subcommand rounds them to its data's dtype); otherwise a usage error
/// naming the bound.
pub fn parse_bounds(s: &str) -> Result<[f64; 4], String> {
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
    Ok(bounds)
}

/// A count: digits, then optionally `K`, `M` or `G` (any case) for ×2^10, 2^20, 2^30 — `1000`,
/// `64K`, `16M`, `1G` — within `lo..=hi`; otherwise a message naming the range.
pub fn parse_count(s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    let t = s.trim().to_ascii_uppercase();
    let (digits, shift) = match t.as_bytes().last() {
        Some(b'K') => (&t[..t.len() - 1], 10),
        Some(b'M') => (&t[..t.len() - 1], 20),
        Some(b'G') => (&t[..t.len() - 1], 30),
        _ => (&t[..], 0),
    };
    let range = || format!("expected a count from {lo} to {hi}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{s:?} is not a count (digits, then optionally K, M or G); {}",
            range()
        ));
    }
    let n = digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift));
    match n {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("{s:?}: {}", range())),
    }
}

/// [`parse_count`] within `lo..=hi`, as a clap value parser.
pub fn count(lo: usize, hi: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    move |s| parse_count(s, lo, hi)
}

/// `n` finite numbers separated by commas; otherwise a usage error.
fn numbers(text: &str, what: &str, n: usize) -> Result<Vec<f64>, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != n {
        return Err(format!(
            "{what}: expected {n} comma-separated numbers, found {}",
            parts.len()
        ));
    }
    parts
        .iter()
        .map(|p| match p.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(format!("{what}: {p:?} is not a finite number")),
        })
        .collect()
}

/// `--polygon` as parsed, in `f64`.
#[derive(Clone, Debug)]
pub struct Vertices(Vec<(f64, f64)>);

impl Vertices {
    /// The convex polygon in the data's dtype `F` (vertices rounded to nearest); an
    /// [`Error::InvalidPolygon`] if it is not convex, has fewer than 3 distinct vertices, or
    /// rounding made a vertex infinite.
    pub fn polygon<F: Real>(&self) -> Result<ConvexPolygon<F>, Error> {
        let vertices: Vec<(F, F)> = self
            .0
            .iter()
            .map(|&(x, y)| (F::from_f64(x), F::from_f64(y)))
            .collect();
        ConvexPolygon::new(&vertices)
    }
}

/// `--polygon`: vertices `X,Y` separated by spaces, each two finite numbers; otherwise a usage
/// error naming the vertex (convexity is checked later, in the data's dtype).
pub fn parse_polygon(s: &str) -> Result<Vertices, String> {
    s.split_whitespace()
        .enumerate()
        .map(|(i, pair)| numbers(pair, &format!("vertex {i}"), 2).map(|v| (v[0], v[1])))
        .collect::<Result<_, _>>()
        .map(Vertices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let any = |s| parse_count(s, 0, usize::MAX);
        assert_eq!(any("1000"), Ok(1000));
        assert_eq!(any("64K"), Ok(65_536));
        assert_eq!(any("10k"), Ok(10_240));
        assert_eq!(any("16m"), Ok(16 << 20));
        assert_eq!(any(" 1G "), Ok(1 << 30));
        assert_eq!(any("0"), Ok(0));
        for bad in ["", "K", "1.5M", "-1", "+3", "1e3", "12KB", "0x10", "١٢"] {
            assert!(any(bad).unwrap_err().contains("is not a count"), "{bad:?}");
        }
        assert!(any("99999999999G")
            .unwrap_err()
            .contains("expected a count from 0 to"));
        assert_eq!(
            parse_count("0", 1, 10),
            Err("\"0\": expected a count from 1 to 10".into())
        );
        assert_eq!(
            parse_count("1K", 1, 1000),
            Err("\"1K\": expected a count from 1 to 1000".into())
        );
        assert_eq!(parse_count("1K", 1, 1024), Ok(1024));
    }

    #[test]
    fn bounds_parsing() {
        assert_eq!(parse_bounds("0,0,1,1").unwrap(), [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(
            parse_bounds(" -1.5, -2 ,3e0,4").unwrap(),
            [-1.5, -2.0, 3.0, 4.0]
        );
        assert_eq!(
            parse_bounds("1,1,1,1").unwrap(),
            [1.0; 4],
            "a point is a rect"
        );
        assert!(parse_bounds("0,0,1").unwrap_err().contains("found 3"));
        assert!(parse_bounds("0,0,1,x")
            .unwrap_err()
            .contains("ymax = \"x\" is not a number"));
        assert!(parse_bounds("nan,0,1,1")
            .unwrap_err()
            .contains("not finite"));
        assert!(parse_bounds("0,0,inf,1")
            .unwrap_err()
            .contains("not finite"));
        assert!(parse_bounds("2,0,1,1")
            .unwrap_err()
            .contains("greater than"));
    }
}
