//! Map tiles from lines: roads and rivers (`slabclip::workload::LineKind`) cut into a 4 × 4
//! grid of tiles (`Polylines::tiles`), each part drawn in its tile's colour, without a buffer
//! and with one. Writes two SVGs: the whole grid side by side, and a zoom into a tile corner
//! that a line passes exactly through, where the parts of the tiles meet (no buffer) or
//! overlap (buffer). Checks in numbers too: without a buffer, every part that ends on a tile
//! border is met there, bit for bit, by the part beginning in the next tile.
//!
//! ```sh
//! cargo run --release --example lines_tiles -- docs/lines-tiles.svg docs/lines-tiles-zoom.svg
//! rsvg-convert docs/lines-tiles.svg -o lines-tiles.png      # Debian: librsvg2-bin
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use slabclip::workload::LineKind;
use slabclip::{Grid, Parts, Polylines, Rect, TileOptions};

/// Colours for tiles, chosen so that neighbours (ix + 3·iy mod 8) differ.
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

fn colour(ix: i64, iy: i64) -> &'static str {
    PALETTE[((ix + 3 * iy) % 8) as usize]
}

/// A square window `[x0, x0 + w] × [y0, y0 + w]` drawn at `px` pixels, y upwards, at offset
/// `(ox, oy)` in the picture.
#[derive(Clone, Copy)]
struct View {
    x0: f64,
    y0: f64,
    w: f64,
    px: f64,
    ox: f64,
    oy: f64,
}

impl View {
    fn x(&self, x: f64) -> f64 {
        self.ox + (x - self.x0) / self.w * self.px
    }
    fn y(&self, y: f64) -> f64 {
        self.oy + (1.0 - (y - self.y0) / self.w) * self.px
    }
}

/// One panel: the tiles (and their buffered outlines), the parts in their tiles' colours,
/// the points of contact as rings, the title above.
#[allow(clippy::too_many_arguments)]
fn panel(
    s: &mut String,
    v: View,
    grid: &Grid<f64>,
    buffer: f64,
    parts: &Parts<f64>,
    stroke: f64,
    dots: bool,
    title: &str,
) {
    let clip = format!("c{}{}", v.ox as i64, v.oy as i64);
    let _ = writeln!(
        s,
        r#"<clipPath id="{clip}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>"#,
        v.ox, v.oy, v.px, v.px
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-family="sans-serif" font-size="15">{title}</text>"#,
        v.ox,
        v.oy - 8.0
    );
    let _ = writeln!(s, r#"<g clip-path="url(#{clip})">"#);
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#fafafa"/>"##,
        v.ox, v.oy, v.px, v.px
    );
    if buffer > 0.0 {
        // Every tile's buffered outline, dashed, in its colour.
        for iy in 0..grid.ny() {
            for ix in 0..grid.nx() {
                let c = grid.cell(ix, iy);
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="none" stroke="{}" stroke-width="1" stroke-dasharray="5 4" opacity="0.7"/>"#,
                    v.x(c.xmin() - buffer),
                    v.y(c.ymax() + buffer),
                    v.x(c.xmax() + buffer) - v.x(c.xmin() - buffer),
                    v.y(c.ymin() - buffer) - v.y(c.ymax() + buffer),
                    colour(ix as i64, iy as i64)
                );
            }
        }
    }
    for &x in grid.xs() {
        let _ = writeln!(
            s,
            r##"<line x1="{0:.2}" y1="{1}" x2="{0:.2}" y2="{2}" stroke="#999" stroke-width="1.2"/>"##,
            v.x(x),
            v.oy,
            v.oy + v.px
        );
    }
    for &y in grid.ys() {
        let _ = writeln!(
            s,
            r##"<line x1="{1}" y1="{0:.2}" x2="{2}" y2="{0:.2}" stroke="#999" stroke-width="1.2"/>"##,
            v.y(y),
            v.ox,
            v.ox + v.px
        );
    }
    // One path per colour; with a buffer, half transparent so that overlaps show both. In a
    // zoom (`dots`) with a buffer, where the parts of several tiles lie on one line, each part
    // is drawn narrower than the one before, so every tile's part shows as a band.
    let mut paths: BTreeMap<(usize, &str), String> = BTreeMap::new();
    let nested = dots && buffer > 0.0;
    let (mut ends, mut starts) = (String::new(), String::new());
    for (k, p) in parts.iter().enumerate() {
        let (ix, iy) = p.cell.expect("tiles have cells");
        let d = paths
            .entry((if nested { k } else { 0 }, colour(ix, iy)))
            .or_default();
        for (k, xy) in p.coords.chunks_exact(2).enumerate() {
            let _ = write!(
                d,
                "{}{:.2} {:.2}",
                if k == 0 { "M" } else { "L" },
                v.x(xy[0]),
                v.y(xy[1])
            );
        }
        if dots {
            // Ends as large dots under starts as small ones: where a part ends and the next
            // begins, both colours show.
            let n = p.coords.len();
            for (out, xy, r) in [
                (&mut starts, &p.coords[..2], 3.5),
                (&mut ends, &p.coords[n - 2..], 6.5),
            ] {
                let _ = writeln!(
                    out,
                    r#"<circle cx="{:.2}" cy="{:.2}" r="{r}" fill="{}" stroke="white" stroke-width="1"/>"#,
                    v.x(xy[0]),
                    v.y(xy[1]),
                    colour(ix, iy)
                );
            }
        }
    }
    let count = paths.len() as f64;
    for (k, ((_, c), d)) in paths.into_iter().enumerate() {
        let (width, opacity) = if nested {
            (stroke * (1.0 + 1.6 * (count - 1.0 - k as f64)), 1.0)
        } else if buffer > 0.0 {
            (stroke, 0.75)
        } else {
            (stroke, 1.0)
        };
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="{width}" stroke-linejoin="round" stroke-opacity="{opacity}"/>"#
        );
    }
    s.push_str(&ends);
    s.push_str(&starts);
    // Points of contact as rings, wider for each one more at the same place.
    let pts = &parts.points;
    for q in 0..pts.len() {
        let (x, y) = (pts.coords[2 * q], pts.coords[2 * q + 1]);
        let before = (0..q)
            .filter(|&r| (pts.coords[2 * r], pts.coords[2 * r + 1]) == (x, y))
            .count();
        let _ = writeln!(
            s,
            r#"<circle cx="{:.2}" cy="{:.2}" r="{}" fill="none" stroke="{}" stroke-width="2.5"/>"#,
            v.x(x),
            v.y(y),
            9.0 + 4.0 * before as f64,
            colour(pts.ix[q], pts.iy[q])
        );
    }
    let _ = writeln!(
        s,
        r##"</g><rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>"##,
        v.ox, v.oy, v.px, v.px
    );
}

fn svg(width: f64, height: f64, body: &str, caption: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n{body}<text x=\"20\" y=\"{}\" font-family=\"sans-serif\" \
         font-size=\"13\" fill=\"#444\">{caption}</text>\n</svg>\n",
        height - 12.0
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let whole = args.next().unwrap_or_else(|| "lines-tiles.svg".into());
    let zoom = args.next().unwrap_or_else(|| "lines-tiles-zoom.svg".into());

    // Roads and rivers as one batch of polylines (each river system's lines separately).
    let (roads, rivers) = (
        LineKind::Roads.generate::<f64>(3000, 4),
        LineKind::Rivers.generate::<f64>(2400, 2),
    );
    let mut xy = roads.coords.clone();
    let mut offsets = roads.offsets.clone();
    let base = (xy.len() / 2) as i64;
    xy.extend_from_slice(&rivers.coords);
    offsets.extend(rivers.offsets[1..].iter().map(|o| o + base));

    let cells = 4;
    let grid = Grid::new(Rect::new(0.0, 0.0, 1.0, 1.0)?, cells, cells)?;
    let buffer = 1.0 / 32.0;

    // A line through a tile corner exactly: the midpoint of a segment whose offsets are powers
    // of two is the corner (vx, vy) = (0.5, 0.25).
    let (vx, vy, a) = (grid.xs()[2], grid.ys()[1], 1.0 / 64.0);
    xy.extend_from_slice(&[
        vx - 3.0 * a,
        vy - 2.5 * a,
        vx - a,
        vy - 0.5 * a,
        vx + a,
        vy + 0.5 * a,
        vx + 2.0 * a,
        vy + 2.5 * a,
    ]);
    offsets.push((xy.len() / 2) as i64);

    let lines = Polylines::interleaved(&xy, &offsets)?;
    let tile = |buffer: Option<f64>| -> Result<Parts<f64>, slabclip::Error> {
        let mut out = Parts::new();
        let o = TileOptions {
            points: true,
            buffer,
            ..TileOptions::default()
        };
        lines.tiles(&grid, &o, &mut out)?;
        Ok(out)
    };
    let (plain, buffered) = (tile(None)?, tile(Some(buffer))?);

    // Watertight: a part ending on a tile border (not the grid's edge) is met there by a part of
    // the same polyline beginning in a neighbouring tile, at the same bits.
    let starts: std::collections::HashSet<(i64, u64, u64)> = plain
        .iter()
        .map(|p| (p.polyline, p.coords[0].to_bits(), p.coords[1].to_bits()))
        .collect();
    let on_border = |x: f64, y: f64| {
        (grid.xs()[1..cells].contains(&x) && (0.0..=1.0).contains(&y))
            || (grid.ys()[1..cells].contains(&y) && (0.0..=1.0).contains(&x))
    };
    let (mut cuts, mut met) = (0, 0);
    for p in plain.iter() {
        let n = p.coords.len();
        let (x, y) = (p.coords[n - 2], p.coords[n - 1]);
        if on_border(x, y) {
            cuts += 1;
            met += starts.contains(&(p.polyline, x.to_bits(), y.to_bits())) as usize;
        }
    }
    println!(
        "{} polylines, {} vertices, {cells}x{cells} tiles: {} parts without a buffer, {} with \
         a buffer of {buffer}; {cuts} parts end on a tile border, {met} of them met there bit \
         for bit by the next tile's part",
        lines.len(),
        xy.len() / 2,
        plain.len(),
        buffered.len()
    );

    let px = 520.0;
    let mut body = String::new();
    let whole_view = |ox: f64| View {
        x0: 0.0,
        y0: 0.0,
        w: 1.0,
        px,
        ox,
        oy: 34.0,
    };
    panel(
        &mut body,
        whole_view(20.0),
        &grid,
        0.0,
        &plain,
        2.0,
        false,
        &format!("no buffer: {} parts", plain.len()),
    );
    panel(
        &mut body,
        whole_view(px + 50.0),
        &grid,
        buffer,
        &buffered,
        2.0,
        false,
        &format!(
            "buffer 1/32 (dashed): {} parts, overlapping",
            buffered.len()
        ),
    );
    std::fs::write(
        &whole,
        svg(
            2.0 * px + 70.0,
            px + 70.0,
            &body,
            &format!(
                "roads and rivers ({} polylines, {} vertices) cut into 4 x 4 tiles, each part in \
                 its tile's colour",
                lines.len(),
                xy.len() / 2
            ),
        ),
    )?;

    // The zoom: the corner (vx, vy), with the parts' ends as dots and the points of contact
    // (the line touching the two other tiles at the corner) as rings.
    let half = 1.5 * a + buffer;
    let zoom_view = |ox: f64| View {
        x0: vx - half,
        y0: vy - half,
        w: 2.0 * half,
        px,
        ox,
        oy: 34.0,
    };
    let near = |parts: &Parts<f64>| {
        let mut out = Parts::new();
        for p in parts
            .iter()
            .filter(|p| p.polyline == lines.len() as i64 - 1)
        {
            out.coords.extend_from_slice(p.coords);
            out.offsets.push((out.coords.len() / 2) as i64);
            out.polyline.push(p.polyline);
            let (ix, iy) = p.cell.unwrap();
            out.ix.push(ix);
            out.iy.push(iy);
        }
        let pts = &parts.points;
        for q in (0..pts.len()).filter(|&q| pts.polyline[q] == lines.len() as i64 - 1) {
            out.points
                .coords
                .extend_from_slice(&pts.coords[2 * q..2 * q + 2]);
            out.points.polyline.push(pts.polyline[q]);
            out.points.ix.push(pts.ix[q]);
            out.points.iy.push(pts.iy[q]);
        }
        out
    };
    let (zp, zb) = (near(&plain), near(&buffered));
    for (name, z) in [("no buffer", &zp), ("buffer", &zb)] {
        println!(
            "zoom, {name}: parts {:?}, points of contact {:?}",
            z.iter()
                .map(|p| (p.cell.unwrap(), p.coords.to_vec()))
                .collect::<Vec<_>>(),
            (0..z.points.len())
                .map(|q| (z.points.ix[q], z.points.iy[q]))
                .collect::<Vec<_>>()
        );
    }
    let mut body = String::new();
    panel(
        &mut body,
        zoom_view(20.0),
        &grid,
        0.0,
        &zp,
        4.0,
        true,
        &format!(
            "no buffer: {} parts meet at the corner ({vx}, {vy})",
            zp.len()
        ),
    );
    panel(
        &mut body,
        zoom_view(px + 50.0),
        &grid,
        buffer,
        &zb,
        4.0,
        true,
        &format!(
            "buffer 1/32: {} parts (one band per tile), each past the corner",
            zb.len()
        ),
    );
    std::fs::write(
        &zoom,
        svg(
            2.0 * px + 70.0,
            px + 70.0,
            &body,
            "one line through a tile corner. Dots: where each part starts (small) and ends \
             (large). Rings: points of contact, in the two tiles the line only touches",
        ),
    )?;
    Ok(())
}
