//! `compare --svg`: one group of bars per workload, one bar per algorithm (median Mseg/s), and
//! the memory ceiling (the faster of its two rows; for `--emit class` also the read-only pass)
//! as a line across each group.
//! Drawn with plotters' SVG backend; the legend sits beside the plot so it never covers a bar.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::report::{emit_name, Kind, Report, WorkloadReport};

const FONT: &str = "sans-serif";
const HEIGHT: u32 = 620;
const LEGEND_WIDTH: u32 = 260;
/// The colour of the memory ceiling line, and of the read-only line.
const CEILING: RGBColor = BLACK;
const READ_ONLY: RGBColor = RGBColor(120, 120, 120);

/// The chart as SVG text.
pub fn chart(report: &Report) -> String {
    let mut svg = String::new();
    let groups = report.workloads.len().max(1);
    let bars = report.workloads.first().map_or(1, |w| {
        w.rows.iter().filter(|r| r.kind == Kind::Algorithm).count()
    });
    let group_px = (bars as u32 * 24 + 50).max(150);
    let width = 110 + groups as u32 * group_px + LEGEND_WIDTH;
    {
        let root = SVGBackend::with_string(&mut svg, (width, HEIGHT)).into_drawing_area();
        // Drawing into a string cannot fail for want of space or a file; an error here would be
        // a bug in the layout, and shows as an empty chart rather than a lost comparison.
        let _ = draw(&root, report, bars);
        let _ = root.present();
    }
    svg
}

fn draw(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    report: &Report,
    bars: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let (plot, legend) = root.split_horizontally(w - LEGEND_WIDTH);
    let first = report.workloads.first();
    let threads = match report.threads {
        1 => "1 thread".to_string(),
        t => format!("{t} threads"),
    };
    let title = format!(
        "slabclip compare: --emit {}, {}, {}, median of {} runs",
        emit_name(report.emit),
        first.map_or("", |w| w.dtype),
        threads,
        report.repeat
    );
    let plot = plot.titled(&title, (FONT, 20))?;

    let groups = report.workloads.len().max(1);
    let top = report
        .workloads
        .iter()
        .flat_map(|w| &w.rows)
        .map(|r| r.mseg_per_s)
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.12;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(64)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..groups as f64, 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_max_light_lines(1)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("throughput (million segments per second, Mseg/s)")
        .x_desc("workload (segments per workload)")
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 14))
        .draw()?;

    let colour = |i: usize| Palette99::pick(i).to_rgba();
    let slot = 0.84 / bars as f64;
    for (g, w) in report.workloads.iter().enumerate() {
        let g0 = g as f64 + 0.08;
        let algs = w.rows.iter().filter(|r| r.kind == Kind::Algorithm);
        for (i, r) in algs.enumerate() {
            let x0 = g0 + i as f64 * slot;
            let bar = [(x0, 0.0), (x0 + slot * 0.82, r.mseg_per_s)];
            chart.draw_series(std::iter::once(Rectangle::new(bar, colour(i).filled())))?;
            // The value, written upwards from just above the bar, so short bars stay readable.
            let (px, py) = chart.backend_coord(&(x0 + slot * 0.41, r.mseg_per_s));
            let value = TextStyle::from((FONT, 11).into_font().transform(FontTransform::Rotate270))
                .pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(
                format!("{:.0}", r.mseg_per_s),
                (px, py - 4),
                value,
            ))?;
        }
        for (kind, colour) in [(Kind::MemoryCeiling, CEILING), (Kind::ReadOnly, READ_ONLY)] {
            if let Some(v) = fastest(w, kind) {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(g as f64 + 0.03, v), (g as f64 + 0.97, v)],
                    colour.stroke_width(3),
                )))?;
            }
        }
        // The workload's name and size under its group.
        let (cx, cy) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
        let centred =
            TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
        root.draw(&Text::new(w.name.clone(), (cx, cy + 8), centred.clone()))?;
        let size = TextStyle::from((FONT, 12).into_font())
            .color(&READ_ONLY)
            .pos(Pos::new(HPos::Center, VPos::Top));
        root.draw(&Text::new(format!("{} segments", w.n), (cx, cy + 27), size))?;
    }

    // The legend, beside the plot.
    legend.fill(&WHITE)?;
    let label = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = 70;
    if let Some(w) = first {
        let algs = w.rows.iter().filter(|r| r.kind == Kind::Algorithm);
        for (i, r) in algs.enumerate() {
            legend.draw(&Rectangle::new(
                [(10, y - 8), (28, y + 8)],
                colour(i).filled(),
            ))?;
            legend.draw(&Text::new(r.name.clone(), (40, y), label.clone()))?;
            y += 28;
        }
        for (kind, c, name) in [
            (Kind::MemoryCeiling, CEILING, "memory ceiling"),
            (Kind::ReadOnly, READ_ONLY, "read-only pass"),
        ] {
            if fastest(w, kind).is_some() {
                legend.draw(&PathElement::new(vec![(6, y), (32, y)], c.stroke_width(3)))?;
                legend.draw(&Text::new(name.to_string(), (40, y), label.clone()))?;
                y += 28;
            }
        }
    }
    let note = TextStyle::from((FONT, 12).into_font())
        .color(&READ_ONLY)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let bytes = first.map_or(String::new(), |w| {
        format!("ceiling: {} B read + {} B written", w.bytes_in, w.bytes_out)
    });
    legend.draw(&Text::new(bytes, (10, y + 12), note.clone()))?;
    legend.draw(&Text::new(
        "per segment; the faster of plain".to_string(),
        (10, y + 30),
        note.clone(),
    ))?;
    y += 18;
    legend.draw(&Text::new(
        "and streaming stores".to_string(),
        (10, y + 30),
        note.clone(),
    ))?;
    legend.draw(&Text::new(
        format!("simd: {}", report.simd_built),
        (10, y + 56),
        note,
    ))?;
    Ok(())
}

/// The highest Mseg/s among a workload's rows of `kind`.
fn fastest(w: &WorkloadReport, kind: Kind) -> Option<f64> {
    w.rows
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| r.mseg_per_s)
        .reduce(f64::max)
}
