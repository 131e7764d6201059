//! Tiling map data: the `road-like` workload cut into the cells of a grid (`slabclip::grid`),
//! each piece drawn in its cell's colour. Writes two SVGs: the whole grid, and a zoom into the
//! grid vertex where most pieces of different cells meet, to see that they meet with no gap.
//! Also checks it in numbers: consecutive pieces of a segment share their parameter, and their
//! clipped endpoints, exactly.
//!
//! ```sh
//! cargo run --release --example tiles -- tiles.svg tiles-zoom.svg [SEGMENTS] [CELLS]
//! rsvg-convert tiles.svg -o tiles.png      # Debian: librsvg2-bin
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;

use slabclip::workload::Dist;
use slabclip::{Grid, GridOptions, Piece, Rect, Segment, SegmentSource};

/// Colours for cells, chosen so that neighbours (ix + 3·iy mod 8) differ.
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

fn colour(p: &Piece<f64>) -> &'static str {
    PALETTE[(p.ix as usize + 3 * p.iy as usize) % PALETTE.len()]
}

/// An SVG of the window `[x0, x0 + w] × [y0, y0 + w]` at `px` pixels: the grid lines, and the
/// pieces as one path per colour (`stroke` wide), y upwards.
fn svg(
    grid: &Grid<f64>,
    drawn: &[(Piece<f64>, Segment<f64>)],
    (x0, y0, w): (f64, f64, f64),
    px: f64,
    stroke: f64,
    title: &str,
) -> String {
    let sx = |x: f64| (x - x0) / w * px;
    let sy = |y: f64| (1.0 - (y - y0) / w) * px;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{px}" height="{h}" viewBox="0 0 {px} {h}">"#,
        h = px + 24.0
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for &x in grid.xs() {
        let _ = writeln!(
            s,
            r##"<line x1="{0:.2}" y1="0" x2="{0:.2}" y2="{px}" stroke="#bbb" stroke-width="1"/>"##,
            sx(x)
        );
    }
    for &y in grid.ys() {
        let _ = writeln!(
            s,
            r##"<line x1="0" y1="{0:.2}" x2="{px}" y2="{0:.2}" stroke="#bbb" stroke-width="1"/>"##,
            sy(y)
        );
    }
    let mut paths: HashMap<&str, String> = HashMap::new();
    let outside = |a: f64, b: f64, lo: f64| a.max(b) < lo || a.min(b) > lo + w;
    for (p, c) in drawn {
        if outside(c.x0, c.x1, x0) || outside(c.y0, c.y1, y0) {
            continue;
        }
        let d = paths.entry(colour(p)).or_default();
        let _ = write!(
            d,
            "M{:.2} {:.2}L{:.2} {:.2}",
            sx(c.x0),
            sy(c.y0),
            sx(c.x1),
            sy(c.y1)
        );
    }
    let mut colours: Vec<_> = paths.into_iter().collect();
    colours.sort();
    for (c, d) in colours {
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="{stroke}" stroke-linecap="butt"/>"#
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="6" y="{:.0}" font-family="sans-serif" font-size="14">{title}</text></svg>"#,
        px + 18.0
    );
    s
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let whole = args.next().unwrap_or_else(|| "tiles.svg".into());
    let zoom = args.next().unwrap_or_else(|| "tiles-zoom.svg".into());
    let n: usize = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(40_000);
    let cells: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(8);

    let roads = Dist::RoadLike.generate::<f64>(n, 1).segments;
    let grid = Grid::new(Rect::new(0.0, 0.0, 1.0, 1.0)?, cells, cells)?;
    let options = GridOptions {
        touches: false,
        ..GridOptions::default()
    };
    let pieces = grid.pieces(&roads, &options);
    let drawn: Vec<(Piece<f64>, Segment<f64>)> = pieces
        .iter()
        .map(|p| (*p, grid.piece_segment(p, &roads.segment(p.segment))))
        .collect();

    // Watertight in numbers: consecutive pieces of one segment share t and the endpoint.
    let (mut joints, mut t_gaps, mut point_gaps, mut max_gap) = (0, 0, 0, 0.0f64);
    for pair in drawn.windows(2) {
        let ((a, ca), (b, cb)) = (&pair[0], &pair[1]);
        if a.segment != b.segment {
            continue;
        }
        joints += 1;
        t_gaps += (a.t_exit != b.t_entry) as usize;
        let gap = (ca.x1 - cb.x0).abs().max((ca.y1 - cb.y0).abs());
        point_gaps += (gap != 0.0) as usize;
        max_gap = max_gap.max(gap);
    }
    println!(
        "{n} road segments, {cells}x{cells} cells: {} pieces; {joints} joints between consecutive \
         pieces, {t_gaps} with t_exit != next t_entry, {point_gaps} with clipped endpoints apart \
         (largest gap {max_gap:e})",
        pieces.len()
    );

    std::fs::write(
        &whole,
        svg(
            &grid,
            &drawn,
            (0.0, 0.0, 1.0),
            800.0,
            1.6,
            &format!(
                "road-like, {n} segments, {} pieces in {cells}x{cells} cells",
                pieces.len()
            ),
        ),
    )?;

    // The vertex with the most cells among the joints near it.
    let half = 0.01;
    let mut best = (0, 0.0, 0.0);
    for &x in &grid.xs()[1..cells] {
        for &y in &grid.ys()[1..cells] {
            let mut near: Vec<(u32, u32)> = drawn
                .iter()
                .filter(|(_, c)| {
                    let d = |px: f64, py: f64| (px - x).abs().max((py - y).abs());
                    d(c.x0, c.y0).min(d(c.x1, c.y1)) < half
                })
                .map(|(p, _)| (p.ix, p.iy))
                .collect();
            near.sort();
            near.dedup();
            if near.len() > best.0 {
                best = (near.len(), x, y);
            }
        }
    }
    let (count, vx, vy) = best;
    println!("zoom: vertex ({vx}, {vy}), pieces of {count} cells within {half}");

    // Probes through the vertex: two diagonals whose midpoint is exactly the vertex (the
    // offsets are powers of two), and a segment lying on the grid line y = vy.
    let a = 1.0 / 128.0;
    let probes = [
        Segment::new(vx - a, vy - a, vx + a, vy + a),
        Segment::new(vx + a, vy - 0.5 * a, vx - a, vy + 0.5 * a),
        Segment::new(vx - a, vy, vx + 0.5 * a, vy),
    ];
    let mut zoomed = drawn.clone();
    for (k, probe) in probes.iter().enumerate() {
        let mine = grid.segment_pieces(probe, &options);
        let ends: Vec<Segment<f64>> = mine.iter().map(|p| grid.piece_segment(p, probe)).collect();
        // Joints: a piece and a later one starting where it ends (on a grid line, closed cells
        // give the two sides each a piece with the same parameters).
        let mut apart = 0;
        for (i, p) in mine.iter().enumerate() {
            for (q, e) in mine.iter().zip(&ends).skip(i + 1) {
                if q.t_entry == p.t_exit && p.t_entry < p.t_exit {
                    apart += ((ends[i].x1, ends[i].y1) != (e.x0, e.y0)) as usize;
                }
            }
        }
        println!(
            "probe {k} {probe:?}: cells {:?}, {apart} joints with endpoints apart",
            mine.iter().map(|p| (p.ix, p.iy)).collect::<Vec<_>>()
        );
        zoomed.extend(mine.into_iter().zip(ends));
    }
    std::fs::write(
        &zoom,
        svg(
            &grid,
            &zoomed,
            (vx - half, vy - half, 2.0 * half),
            800.0,
            3.0,
            &format!(
                "zoom x{:.0} into the vertex ({vx}, {vy}), with three probe segments through it",
                0.5 / half
            ),
        ),
    )?;
    Ok(())
}
