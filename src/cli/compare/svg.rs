//! `compare --svg`: one group of bars per workload, one bar per algorithm and one for the
//! `naive-slab` baseline (median Mseg/s, hatched grey: outside the contract), and the memory
//! ceiling (the faster of its two rows; for `--emit class` also the read-only pass) as a line
//! across each group.
//!
//! The throughput axis is logarithmic, decades labelled: the scalar algorithms and the ceiling
//! lie 100× or more apart, and on a linear axis the slow bars would be slivers. Every bar also
//! carries its value. Drawn with plotters' SVG backend; the legend sits beside the plot so it
//! never covers a bar.

use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::report::{emit_name, Kind, Report, WorkloadReport};

const FONT: &str = "sans-serif";
const HEIGHT: u32 = 620;
const LEGEND_WIDTH: u32 = 260;
/// The colour of the memory ceiling line, and of the read-only line.
const CEILING: RGBColor = BLACK;
const READ_ONLY: RGBColor = RGBColor(120, 120, 120);
/// The fill of the `naive-slab` bar (outside the contract), with darker hatching.
const NAIVE: RGBColor = RGBColor(200, 200, 200);

/// Whether a row is drawn as a bar: the algorithms and the naive baseline.
fn is_bar(kind: Kind) -> bool {
    matches!(kind, Kind::Algorithm | Kind::NaiveBaseline)
}

/// The log axis' ends: whole decades around every finite positive value, so the smallest bar
/// is still a visible stub and the highest line has room for its label.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if hi == 0.0 {
        return (1.0, 10.0);
    }
    let bottom = 10f64.powf((lo / 2.0).log10().floor());
    let top = 10f64.powf((hi * 2.0).log10().ceil());
    (bottom, top)
}

/// Axis labels: every decade, and 2 and 5 within one; the other light lines unlabelled.
fn axis_label(v: f64) -> String {
    let mantissa = v / 10f64.powf(v.log10().floor());
    let near = |m: f64| (mantissa - m).abs() < 1e-6 * m;
    if near(1.0) || near(2.0) || near(5.0) {
        // The decades below 1 are 0.1, 0.2, …; at or above 1 whole numbers.
        if v >= 1.0 {
            format!("{v:.0}")
        } else {
            format!("{v}")
        }
    } else {
        String::new()
    }
}

/// A throughput as written on the chart: no more digits than it deserves.
fn value_label(v: f64) -> String {
    match v {
        v if v >= 10.0 => format!("{v:.0}"),
        v if v >= 1.0 => format!("{v:.1}"),
        v => format!("{v:.2}"),
    }
}

/// Diagonal hatching over the bar from `(x0, bottom)` to `(x1, top)`: thin dark strokes
/// climbing a fixed pixel step, clipped by plotters to the bar's own width.
fn hatch(x0: f64, x1: f64, bottom: f64, top: f64) -> impl Iterator<Item = PathElement<(f64, f64)>> {
    // In log space a fixed ratio is a fixed height: strokes every ×1.25 up the bar.
    let ratio: f64 = 1.25;
    let steps = ((top / bottom).ln() / ratio.ln()).floor().max(0.0) as usize;
    (0..steps).map(move |k| {
        let y = bottom * ratio.powi(k as i32);
        let y_end = (y * ratio).min(top);
        PathElement::new(
            vec![(x0, y), (x1, y_end)],
            RGBColor(90, 90, 90).stroke_width(1),
        )
    })
}

/// The chart as SVG text.
pub fn chart(report: &Report) -> String {
    let mut svg = String::new();
    let groups = report.workloads.len().max(1);
    let bars = report
        .workloads
        .first()
        .map_or(1, |w| w.rows.iter().filter(|r| is_bar(r.kind)).count())
        .max(1);
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
        "slabclip compare: --emit {}, {}, {}, median of {} samples of at least {} ms",
        emit_name(report.emit),
        first.map_or("", |w| w.dtype),
        threads,
        report.repeat,
        report.sample_ms
    );
    let plot = plot.titled(&title, (FONT, 20))?;

    let groups = report.workloads.len().max(1);
    let (bottom, top) = decades(
        report
            .workloads
            .iter()
            .flat_map(|w| &w.rows)
            .map(|r| r.mseg_per_s),
    );
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(64)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..groups as f64, (bottom..top).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_max_light_lines(8)
        .y_labels(40)
        .y_label_formatter(&|v| axis_label(*v))
        .y_desc("throughput, Mseg/s (million segments per second, log scale)")
        .x_desc("workload (segments per workload)")
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 14))
        .draw()?;

    let colour = |i: usize| Palette99::pick(i).to_rgba();
    let slot = 0.84 / bars as f64;
    for (g, w) in report.workloads.iter().enumerate() {
        let g0 = g as f64 + 0.08;
        let algs = w.rows.iter().filter(|r| is_bar(r.kind));
        for (i, r) in algs.enumerate() {
            let x0 = g0 + i as f64 * slot;
            let x1 = x0 + slot * 0.82;
            let bar = [(x0, bottom), (x1, r.mseg_per_s.max(bottom))];
            if r.outside_contract {
                chart.draw_series(std::iter::once(Rectangle::new(bar, NAIVE.filled())))?;
                chart.draw_series(hatch(x0, x1, bottom, r.mseg_per_s))?;
            } else {
                chart.draw_series(std::iter::once(Rectangle::new(bar, colour(i).filled())))?;
            }
            // The value, written upwards from just above the bar, so short bars stay readable.
            let (px, py) = chart.backend_coord(&(x0 + slot * 0.41, r.mseg_per_s));
            let value = TextStyle::from((FONT, 11).into_font().transform(FontTransform::Rotate270))
                .pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(value_label(r.mseg_per_s), (px, py - 4), value))?;
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
        let (cx, cy) = chart.backend_coord(&(g as f64 + 0.5, bottom));
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
        let algs = w.rows.iter().filter(|r| is_bar(r.kind));
        for (i, r) in algs.enumerate() {
            let fill = if r.outside_contract {
                NAIVE.to_rgba()
            } else {
                colour(i)
            };
            legend.draw(&Rectangle::new([(10, y - 8), (28, y + 8)], fill.filled()))?;
            legend.draw(&Text::new(r.name.clone(), (40, y), label.clone()))?;
            if r.outside_contract {
                let note = TextStyle::from((FONT, 12).into_font())
                    .color(&READ_ONLY)
                    .pos(Pos::new(HPos::Left, VPos::Center));
                let why = "outside the contract (no exactness)";
                legend.draw(&Text::new(why.to_string(), (40, y + 17), note))?;
                y += 17;
            }
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
        format!("simd: {}", report.simd_runs),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_axis_spans_whole_decades_around_every_bar() {
        // A 400× spread: both ends inside, with room below the smallest bar.
        assert_eq!(decades([5.8, 317.0, 2526.0].into_iter()), (1.0, 10_000.0));
        assert_eq!(decades([0.3, 40.0].into_iter()), (0.1, 100.0));
        assert_eq!(
            decades([f64::NAN, 0.0, f64::INFINITY].into_iter()),
            (1.0, 10.0)
        );
        assert_eq!(axis_label(1000.0), "1000");
        assert_eq!(axis_label(5.0), "5");
        assert_eq!(axis_label(0.2), "0.2");
        assert_eq!(axis_label(3000.0), "");
        assert_eq!(value_label(2526.4), "2526");
        assert_eq!(value_label(5.84), "5.8");
    }
}
