//! A 2D lidar: an agent in a room of walls and convex obstacles casts a ring of rays; each ray
//! keeps the closest hit among the walls (rays × segments) and the obstacles (rays × convex
//! polygons). Writes an SVG of the scene, the rays, the hits with their surface normals, and the
//! visibility polygon (the hit points in angle order).
//!
//! ```sh
//! cargo run --release --example lidar -- lidar.svg [RAYS]
//! rsvg-convert lidar.svg -o lidar.png      # Debian: librsvg2-bin
//! ```

use std::fmt::Write as _;

use slabclip::cast::{cast_polygon, cast_segments, PolygonCastOutput, SegmentsCastOutput};
use slabclip::{ConvexPolygon, InsideMode, Ray, Rays, Segment, Segments, NO_HIT};

/// The closest hit of one ray: `t`, normal, and what was hit.
#[derive(Clone, Copy)]
struct Hit {
    t: f64,
    n: (f64, f64),
    what: &'static str,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "lidar.svg".into());
    let count: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(360);

    // The room: outer walls and two inner walls with a doorway.
    let walls = [
        (0.0, 0.0, 20.0, 0.0),
        (20.0, 0.0, 20.0, 14.0),
        (20.0, 14.0, 0.0, 14.0),
        (0.0, 14.0, 0.0, 0.0),
        (12.0, 0.0, 12.0, 6.0),
        (12.0, 8.5, 12.0, 14.0),
        (12.0, 8.5, 16.0, 8.5),
    ];
    let segs = Segments::from_rows(&walls.map(|(a, b, c, d)| Segment::new(a, b, c, d)));
    // Convex obstacles, given in either orientation.
    let obstacles = [
        vec![(3.0, 9.0), (6.0, 9.0), (6.0, 11.5), (3.0, 11.5)],
        vec![(8.0, 2.0), (10.0, 5.0), (7.0, 5.5)],
        vec![
            (15.0, 3.0),
            (16.5, 2.2),
            (18.0, 3.0),
            (18.0, 4.6),
            (16.5, 5.4),
            (15.0, 4.6),
        ],
        vec![(8.0, 10.0), (9.5, 11.5), (8.0, 13.0), (6.5, 11.5)],
    ];
    let polys = obstacles
        .iter()
        .map(|v| ConvexPolygon::new(v))
        .collect::<Result<Vec<_>, _>>()?;

    // A ring of unit-length rays from the agent.
    let (ax, ay) = (4.0, 5.0);
    let rows: Vec<Ray<f64>> = (0..count)
        .map(|i| {
            let a = i as f64 / count as f64 * std::f64::consts::TAU;
            Ray::new(ax, ay, a.cos(), a.sin())
        })
        .collect();
    let rays = Rays::from_rows(&rows);

    // Walls: one call for all rays and all walls.
    let n = rows.len();
    let (mut t, mut nx, mut ny, mut idx) =
        (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0u32; n]);
    cast_segments(
        &rays.as_ref(),
        &segs.as_ref(),
        f64::INFINITY,
        SegmentsCastOutput {
            t: Some(&mut t),
            index: Some(&mut idx),
            nx: Some(&mut nx),
            ny: Some(&mut ny),
            ..Default::default()
        },
    )?;
    let mut hits: Vec<Option<Hit>> = (0..n)
        .map(|i| {
            (idx[i] != NO_HIT).then_some(Hit {
                t: t[i],
                n: (nx[i], ny[i]),
                what: "wall",
            })
        })
        .collect();
    // Obstacles: one call per polygon, keep the closer hit.
    for p in &polys {
        let (mut t, mut nx, mut ny, mut edge) =
            (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0u32; n]);
        let out = PolygonCastOutput {
            t: Some(&mut t),
            nx: Some(&mut nx),
            ny: Some(&mut ny),
            edge: Some(&mut edge),
            ..Default::default()
        };
        cast_polygon(p, &rays.as_ref(), f64::INFINITY, InsideMode::Origin, out)?;
        for i in 0..n {
            if edge[i] != NO_HIT && hits[i].is_none_or(|h| t[i] < h.t) {
                hits[i] = Some(Hit {
                    t: t[i],
                    n: (nx[i], ny[i]),
                    what: "obstacle",
                });
            }
        }
    }

    let svg = draw(&walls, &obstacles, (ax, ay), &rows, &hits);
    std::fs::write(&path, svg)?;
    let on = |w: &str| hits.iter().flatten().filter(|h| h.what == w).count();
    println!(
        "{n} rays: {} hit walls, {} hit obstacles; wrote {path}",
        on("wall"),
        on("obstacle")
    );
    Ok(())
}

/// The scene as SVG: y up, 40 px per unit.
fn draw(
    walls: &[(f64, f64, f64, f64)],
    obstacles: &[Vec<(f64, f64)>],
    agent: (f64, f64),
    rays: &[Ray<f64>],
    hits: &[Option<Hit>],
) -> String {
    let s = 40.0;
    let (w, h) = (20.0 * s + 40.0, 14.0 * s + 40.0);
    let px = |x: f64, y: f64| (20.0 + x * s, h - 20.0 - y * s);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    let _ = writeln!(o, r##"<rect width="100%" height="100%" fill="#fbfaf7"/>"##);
    // The visibility polygon: the hit points in angle order.
    let pts: Vec<String> = rays
        .iter()
        .zip(hits)
        .filter_map(|(r, h)| h.map(|h| px(r.ox + h.t * r.dx, r.oy + h.t * r.dy)))
        .map(|(x, y)| format!("{x:.2},{y:.2}"))
        .collect();
    let _ = writeln!(
        o,
        r##"<polygon points="{}" fill="#ffd54f" fill-opacity="0.35" stroke="none"/>"##,
        pts.join(" ")
    );
    for v in obstacles {
        let p: Vec<String> = v
            .iter()
            .map(|&(x, y)| px(x, y))
            .map(|(x, y)| format!("{x:.2},{y:.2}"))
            .collect();
        let _ = writeln!(
            o,
            r##"<polygon points="{}" fill="#90a4ae" stroke="#37474f" stroke-width="2"/>"##,
            p.join(" ")
        );
    }
    for &(a, b, c, d) in walls {
        let ((x0, y0), (x1, y1)) = (px(a, b), px(c, d));
        let _ = writeln!(
            o,
            r##"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#212121" stroke-width="5" stroke-linecap="round"/>"##
        );
    }
    for (r, h) in rays.iter().zip(hits) {
        let Some(h) = h else { continue };
        let (hx, hy) = (r.ox + h.t * r.dx, r.oy + h.t * r.dy);
        let ((x0, y0), (x1, y1)) = (px(r.ox, r.oy), px(hx, hy));
        let colour = if h.what == "wall" {
            "#e53935"
        } else {
            "#1e88e5"
        };
        let _ = writeln!(
            o,
            r#"<line x1="{x0:.2}" y1="{y0:.2}" x2="{x1:.2}" y2="{y1:.2}" stroke="{colour}" stroke-opacity="0.35" stroke-width="1"/>"#
        );
        let _ = writeln!(
            o,
            r#"<circle cx="{x1:.2}" cy="{y1:.2}" r="2.2" fill="{colour}"/>"#
        );
        let (nx, ny) = px(hx + 0.3 * h.n.0, hy + 0.3 * h.n.1);
        let _ = writeln!(
            o,
            r##"<line x1="{x1:.2}" y1="{y1:.2}" x2="{nx:.2}" y2="{ny:.2}" stroke="#2e7d32" stroke-width="1.2"/>"##
        );
    }
    let (cx, cy) = px(agent.0, agent.1);
    let _ = writeln!(o, r##"<circle cx="{cx}" cy="{cy}" r="7" fill="#000"/>"##);
    let _ = writeln!(
        o,
        r##"<text x="24" y="16" font-family="sans-serif" font-size="13">slabclip lidar: {} rays; red: walls, blue: obstacles, green: normals, yellow: visibility polygon</text>"##,
        rays.len()
    );
    o.push_str("</svg>\n");
    o
}
