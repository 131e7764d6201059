//! A 2D lidar in a city: blocks of buildings (rectangles, L shapes, courtyards, turned and
//! many-sided footprints) and parks of trees between streets, some thousands of walls built
//! once into a [`Scene`]. A robot drives along a street and scans at every pose (poses × beams
//! in one call); the scans are drawn over the city with the visibility polygon of the last
//! pose, which the last scan's hit points outline. Checks that the scene's answers are the
//! brute force's bit for bit, and prints the times of both.
//!
//! ```sh
//! cargo run --release --example lidar -- lidar.svg [BEAMS]
//! rsvg-convert lidar.svg -o lidar.png      # Debian: librsvg2-bin
//! ```

use std::fmt::Write as _;
use std::time::Instant;

use slabclip::cast::{
    cast_segments, lidar_rays, PosesRef, Scene, SegmentsCastOutput, VisibilityWalls,
};
use slabclip::workload::SplitMix64;
use slabclip::{Rect, Segment, Segments, NO_HIT};

/// Blocks across and up, their size and the streets' width (metres).
const BLOCKS: (usize, usize) = (9, 6);
const BLOCK: (f64, f64) = (74.0, 52.0);
const STREET: f64 = 16.0;
/// The lidar's range (metres).
const RANGE: f64 = 140.0;

type Pt = (f64, f64);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "lidar.svg".into());
    let beams: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(720);

    let outlines = city(&mut SplitMix64::new(2024));
    let walls = walls_of(&outlines);
    let m = walls.len();

    let start = Instant::now();
    let scene = Scene::new(&walls)?;
    let built = start.elapsed();

    // The robot's path: along the street above the second row of blocks, turning up the
    // street after the sixth column. Headings follow the path.
    let pitch = (BLOCK.0 + STREET, BLOCK.1 + STREET);
    let y0 = STREET / 2.0 + 2.0 * pitch.1;
    let x_turn = STREET / 2.0 + 6.0 * pitch.0;
    let mut route: Vec<(f64, f64, f64)> = (0..12)
        .map(|i| (STREET / 2.0 + 30.0 + i as f64 * 45.0, y0, 0.0))
        .take_while(|p| p.0 < x_turn)
        .collect();
    route.extend((0..=4).map(|i| {
        let up = i as f64 * pitch.1 / 4.0;
        (x_turn, y0 + up, core::f64::consts::FRAC_PI_2)
    }));
    let (px, py, ph): (Vec<f64>, Vec<f64>, Vec<f64>) = (
        route.iter().map(|p| p.0).collect(),
        route.iter().map(|p| p.1).collect(),
        route.iter().map(|p| p.2).collect(),
    );
    let poses = PosesRef::new(&px, &py, &ph)?;
    let angles: Vec<f64> = (0..beams)
        .map(|k| -core::f64::consts::PI + k as f64 * core::f64::consts::TAU / beams as f64)
        .collect();

    // One scan per pose, every beam, through the index.
    let n = poses.len() * beams;
    let (mut t, mut index) = (vec![0.0; n], vec![0u32; n]);
    let start = Instant::now();
    scene.lidar(
        &poses,
        &angles,
        RANGE,
        SegmentsCastOutput {
            t: Some(&mut t),
            index: Some(&mut index),
            ..Default::default()
        },
    )?;
    let scanned = start.elapsed();

    // The same beams against every wall: the same bits, at a cost of every wall per beam.
    let rays = lidar_rays(&poses, &angles)?;
    let (mut bt, mut bi) = (vec![0.0; n], vec![0u32; n]);
    let start = Instant::now();
    cast_segments(
        &rays.as_ref(),
        &walls.as_ref(),
        RANGE,
        SegmentsCastOutput {
            t: Some(&mut bt),
            index: Some(&mut bi),
            ..Default::default()
        },
    )?;
    let brute = start.elapsed();
    let same = t.iter().zip(&bt).all(|(a, b)| a.to_bits() == b.to_bits()) && index == bi;
    assert!(same, "the scene's answers differ from the brute force's");

    // What the last pose sees, within the city's bounds (the outer streets' edges).
    let (w, h) = extent();
    let bounds = Rect::new(0.0, 0.0, w, h)?;
    let start = Instant::now();
    let seen = VisibilityWalls::new(&bounds, &walls.as_ref())?;
    let last = route.len() - 1;
    let polygon = seen.polygon((px[last], py[last]))?;
    let visible = start.elapsed();

    let hits: Vec<Option<Pt>> = (0..n)
        .map(|i| {
            (index[i] != NO_HIT).then(|| {
                let r = rays.as_ref().ray(i);
                (r.ox + t[i] * r.dx, r.oy + t[i] * r.dy)
            })
        })
        .collect();
    let svg = draw(&outlines, &route, beams, &hits, &polygon, m);
    std::fs::write(&out, svg)?;
    let hit = index.iter().filter(|&&k| k != NO_HIT).count();
    println!(
        "{m} walls ({} buildings and trees), index {:.0} bytes per wall, built in {:.2} ms",
        outlines.len(),
        scene.index_bytes() as f64 / m as f64,
        built.as_secs_f64() * 1e3
    );
    println!(
        "{} poses x {beams} beams: {hit} hits; scene {:.1} ms, brute force {:.1} ms, the same bits",
        route.len(),
        scanned.as_secs_f64() * 1e3,
        brute.as_secs_f64() * 1e3
    );
    println!(
        "visibility polygon of the last pose: {} vertices in {:.1} ms (walls prepared and swept); wrote {out}",
        polygon.len(),
        visible.as_secs_f64() * 1e3
    );
    Ok(())
}

/// One outline of the city: a building (one ring, or two for a courtyard) or a tree.
struct Outline {
    rings: Vec<Vec<Pt>>,
    tree: bool,
}

/// The city's width and height (metres): streets all around.
fn extent() -> (f64, f64) {
    (
        STREET + BLOCKS.0 as f64 * (BLOCK.0 + STREET),
        STREET + BLOCKS.1 as f64 * (BLOCK.1 + STREET),
    )
}

/// The lower left corner of block `(bx, by)`.
fn block_at(bx: usize, by: usize) -> Pt {
    (
        STREET + bx as f64 * (BLOCK.0 + STREET),
        STREET + by as f64 * (BLOCK.1 + STREET),
    )
}

/// Whether block `(bx, by)` is a park (drawn green, trees instead of buildings).
fn is_park(bx: usize, by: usize) -> bool {
    (bx * 7 + by * 3) % 9 == 4
}

/// The city's outlines: in each block two rows of lots along its long sides, a building on
/// each lot, set back from the lot's edges; parks hold trees and a pavilion.
fn city(rng: &mut SplitMix64) -> Vec<Outline> {
    let mut out = Vec::new();
    for by in 0..BLOCKS.1 {
        for bx in 0..BLOCKS.0 {
            let (x0, y0) = block_at(bx, by);
            if is_park(bx, by) {
                park(rng, (x0, y0), &mut out);
                continue;
            }
            let depth = BLOCK.1 / 2.0;
            for row in 0..2 {
                let ly = y0 + row as f64 * depth;
                let mut lx = x0;
                while lx < x0 + BLOCK.0 - 1.0 {
                    let mut lw = rng.range(12.0, 26.0);
                    if x0 + BLOCK.0 - (lx + lw) < 10.0 {
                        lw = x0 + BLOCK.0 - lx;
                    }
                    let g = rng.range(1.0, 3.5);
                    let b = [lx + g, ly + g, lx + lw - g, ly + depth - g];
                    out.push(building(rng, b));
                    lx += lw;
                }
            }
        }
    }
    out
}

/// A building inside the box `[x0, y0, x1, y1]`.
fn building(rng: &mut SplitMix64, [x0, y0, x1, y1]: [f64; 4]) -> Outline {
    let (w, h) = (x1 - x0, y1 - y0);
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let rect = |a: f64, b: f64, c: f64, d: f64| vec![(a, b), (c, b), (c, d), (a, d)];
    let pick = rng.unit();
    let rings = if pick < 0.42 {
        vec![rect(x0, y0, x1, y1)]
    } else if pick < 0.62 {
        // An L: the box without one corner.
        let (fx, fy) = (rng.range(0.35, 0.6), rng.range(0.35, 0.6));
        let (ax, ay) = (x0 + fx * w, y0 + fy * h);
        let l = match rng.below(4) {
            0 => vec![(x0, y0), (x1, y0), (x1, ay), (ax, ay), (ax, y1), (x0, y1)],
            1 => vec![(x0, y0), (x1, y0), (x1, y1), (ax, y1), (ax, ay), (x0, ay)],
            2 => vec![(x0, y0), (ax, y0), (ax, ay), (x1, ay), (x1, y1), (x0, y1)],
            _ => vec![(x0, ay), (ax, ay), (ax, y0), (x1, y0), (x1, y1), (x0, y1)],
        };
        vec![l]
    } else if pick < 0.74 && w > 13.0 && h > 13.0 {
        // A courtyard: the yard is a ring of its own.
        let (ix, iy) = (w * rng.range(0.25, 0.33), h * rng.range(0.25, 0.33));
        vec![
            rect(x0, y0, x1, y1),
            rect(x0 + ix, y0 + iy, x1 - ix, y1 - iy),
        ]
    } else if pick < 0.88 {
        // Turned, shrunk to stay in its lot.
        let a = rng.range(5.0, 18.0).to_radians() * if rng.chance(0.5) { 1.0 } else { -1.0 };
        let (c, s) = (a.cos(), a.sin());
        let k = 1.0 / (c.abs() + s.abs() * (w.max(h) / w.min(h)));
        let (hw, hh) = (w / 2.0 * k, h / 2.0 * k);
        let at = |x: f64, y: f64| (cx + c * x - s * y, cy + s * x + c * y);
        vec![vec![at(-hw, -hh), at(hw, -hh), at(hw, hh), at(-hw, hh)]]
    } else {
        // Many-sided: vertices on the ellipse inscribed in the box, at sorted angles.
        let k = 5 + rng.below(4) as usize;
        let mut a: Vec<f64> = (0..k)
            .map(|i| (i as f64 + rng.range(0.15, 0.85)) * core::f64::consts::TAU / k as f64)
            .collect();
        a.sort_by(f64::total_cmp);
        vec![a
            .iter()
            .map(|t| (cx + w / 2.0 * t.cos(), cy + h / 2.0 * t.sin()))
            .collect()]
    };
    Outline { rings, tree: false }
}

/// A park: a pavilion and trees (octagons) scattered on a jittered grid.
fn park(rng: &mut SplitMix64, (x0, y0): Pt, out: &mut Vec<Outline>) {
    let (cx, cy) = (x0 + BLOCK.0 / 2.0, y0 + BLOCK.1 / 2.0);
    let hex = (0..6)
        .map(|i| {
            let a = i as f64 * core::f64::consts::TAU / 6.0;
            (cx + 6.0 * a.cos(), cy + 6.0 * a.sin())
        })
        .collect();
    out.push(Outline {
        rings: vec![hex],
        tree: false,
    });
    for gx in 0..7 {
        for gy in 0..5 {
            let (x, y) = (
                x0 + 5.0 + gx as f64 * 10.6 + rng.range(-2.5, 2.5),
                y0 + 5.0 + gy as f64 * 10.5 + rng.range(-2.5, 2.5),
            );
            if (x - cx).hypot(y - cy) < 10.0 || rng.chance(0.25) {
                continue;
            }
            let r = rng.range(0.8, 1.6);
            let ring = (0..8)
                .map(|i| {
                    let a = (i as f64 + 0.5) * core::f64::consts::TAU / 8.0;
                    (x + r * a.cos(), y + r * a.sin())
                })
                .collect();
            out.push(Outline {
                rings: vec![ring],
                tree: true,
            });
        }
    }
}

/// Every ring's edges as walls.
fn walls_of(outlines: &[Outline]) -> Segments<f64> {
    let mut walls = Segments::new();
    for ring in outlines.iter().flat_map(|o| &o.rings) {
        for (i, &(x0, y0)) in ring.iter().enumerate() {
            let (x1, y1) = ring[(i + 1) % ring.len()];
            walls.push(Segment::new(x0, y0, x1, y1));
        }
    }
    walls
}

/// The city, the scans and the visibility polygon as SVG: y up, `S` px per metre.
fn draw(
    outlines: &[Outline],
    route: &[(f64, f64, f64)],
    beams: usize,
    hits: &[Option<Pt>],
    polygon: &[Pt],
    walls: usize,
) -> String {
    const S: f64 = 1.5;
    const MARGIN: f64 = 12.0;
    const TOP: f64 = 64.0;
    let (cw, ch) = extent();
    let (w, h) = (cw * S + 2.0 * MARGIN, ch * S + 2.0 * MARGIN + TOP);
    let px = |(x, y): Pt| (MARGIN + x * S, h - MARGIN - y * S);
    let pts = |v: &[Pt]| {
        v.iter()
            .map(|&p| {
                let (x, y) = px(p);
                format!("{x:.1},{y:.1}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#
    );
    let _ = writeln!(o, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    // Streets, then blocks (lots or parks).
    let (sx, sy) = px((0.0, ch));
    let _ = writeln!(
        o,
        r##"<rect x="{sx}" y="{sy}" width="{}" height="{}" fill="#d7d4cc"/>"##,
        cw * S,
        ch * S
    );
    for by in 0..BLOCKS.1 {
        for bx in 0..BLOCKS.0 {
            let (x0, y0) = block_at(bx, by);
            let (x, y) = px((x0, y0 + BLOCK.1));
            let fill = if is_park(bx, by) {
                "#cfe8b8"
            } else {
                "#f3f1ea"
            };
            let _ = writeln!(
                o,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"/>"#,
                BLOCK.0 * S,
                BLOCK.1 * S
            );
        }
    }
    // What the last pose sees.
    let _ = writeln!(
        o,
        r##"<polygon points="{}" fill="#ffca28" fill-opacity="0.55" stroke="#f57f17" stroke-width="1.2" stroke-linejoin="round"/>"##,
        pts(polygon)
    );
    // Buildings (a courtyard is a second ring: even-odd fill) and trees.
    for b in outlines {
        let d: String = b
            .rings
            .iter()
            .map(|r| format!("M{}Z", pts(r).replace(' ', " L")))
            .collect();
        let (fill, stroke) = if b.tree {
            ("#43a047", "#1b5e20")
        } else {
            ("#9aa7b0", "#263238")
        };
        let _ = writeln!(
            o,
            r#"<path d="{d}" fill="{fill}" fill-rule="evenodd" stroke="{stroke}" stroke-width="0.9" stroke-linejoin="round"/>"#
        );
    }
    // The last pose's beams and range, the earlier poses' hit points, then the last pose's.
    let last = route.len() - 1;
    let (lx, ly, lh) = route[last];
    let (rx, ry) = px((lx, ly));
    let _ = writeln!(
        o,
        r##"<circle cx="{rx:.1}" cy="{ry:.1}" r="{:.1}" fill="none" stroke="#c62828" stroke-width="1" stroke-dasharray="5 4" stroke-opacity="0.7"/>"##,
        RANGE * S
    );
    for (k, hit) in hits[last * beams..].iter().enumerate().step_by(2) {
        let a = lh - core::f64::consts::PI + k as f64 * core::f64::consts::TAU / beams as f64;
        let end = hit.unwrap_or((lx + RANGE * a.cos(), ly + RANGE * a.sin()));
        let (x, y) = px(end);
        let colour = if hit.is_some() { "#e53935" } else { "#9e9e9e" };
        let _ = writeln!(
            o,
            r#"<line x1="{rx:.1}" y1="{ry:.1}" x2="{x:.1}" y2="{y:.1}" stroke="{colour}" stroke-opacity="0.35" stroke-width="0.6"/>"#
        );
    }
    // Hit points as dots of one path per colour (a zero-length stroke with round caps).
    let mut dots = [String::new(), String::new()];
    for (p, hit) in hits.iter().enumerate() {
        let Some(q) = hit else { continue };
        let (x, y) = px(*q);
        let _ = write!(dots[usize::from(p / beams == last)], "M{x:.1} {y:.1}h0");
    }
    for (d, (width, colour)) in dots.iter().zip([(2.2, "#1565c0"), (3.4, "#c62828")]) {
        let _ = writeln!(
            o,
            r#"<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width}" stroke-linecap="round"/>"#
        );
    }
    // The route: every pose, the last one larger with its heading.
    let line: Vec<Pt> = route.iter().map(|&(x, y, _)| (x, y)).collect();
    let _ = writeln!(
        o,
        r##"<polyline points="{}" fill="none" stroke="#212121" stroke-width="2" stroke-dasharray="6 4"/>"##,
        pts(&line)
    );
    for &(x, y, _) in &route[..last] {
        let (x, y) = px((x, y));
        let _ = writeln!(
            o,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="#1565c0" stroke="#fff" stroke-width="1"/>"##
        );
    }
    let (hx, hy) = px((lx + 9.0 * lh.cos(), ly + 9.0 * lh.sin()));
    let _ = writeln!(
        o,
        r##"<line x1="{rx:.1}" y1="{ry:.1}" x2="{hx:.1}" y2="{hy:.1}" stroke="#000" stroke-width="2.5"/>"##
    );
    let _ = writeln!(
        o,
        r##"<circle cx="{rx:.1}" cy="{ry:.1}" r="6" fill="#000" stroke="#fff" stroke-width="1.5"/>"##
    );
    // Title and legend above the map.
    let _ = writeln!(
        o,
        r##"<text x="{MARGIN}" y="24" font-size="17" font-weight="bold" fill="#212121">slabclip Scene: a lidar in a city of {walls} walls</text>"##
    );
    let legend = [
        (
            "#c62828",
            "circle",
            "last pose: hits of its beams (range dashed)",
        ),
        (
            "#1565c0",
            "circle",
            "earlier poses along the route: their hits",
        ),
        (
            "#ffca28",
            "rect",
            "visibility polygon of the last pose (exact)",
        ),
        ("#9aa7b0", "rect", "buildings"),
        ("#43a047", "rect", "trees"),
    ];
    let mut x = MARGIN;
    for (colour, shape, text) in legend {
        let y = 46.0;
        if shape == "circle" {
            let _ = writeln!(
                o,
                r#"<circle cx="{}" cy="{y}" r="5" fill="{colour}"/>"#,
                x + 5.0
            );
        } else {
            let _ = writeln!(
                o,
                r##"<rect x="{x}" y="{}" width="12" height="10" fill="{colour}" stroke="#555" stroke-width="0.6"/>"##,
                y - 5.0
            );
        }
        let _ = writeln!(
            o,
            r##"<text x="{}" y="{}" font-size="13" fill="#333">{text}</text>"##,
            x + 17.0,
            y + 4.5
        );
        x += 17.0 + 7.1 * text.len() as f64 + 18.0;
    }
    let _ = writeln!(
        o,
        r##"<text x="{}" y="24" font-size="13" fill="#555" text-anchor="end">{} poses × {beams} beams, range {RANGE} m</text>"##,
        w - MARGIN,
        route.len()
    );
    o.push_str("</svg>\n");
    o
}
