//! Pictures of trajectories: named series grouped into panels, drawn as SVG or PNG.
//!
//! A [`Figure`] is a title and panels stacked vertically over one shared x axis
//! (time); each [`Panel`] holds named series and gets its own y axis and a legend
//! beside it (outside the plot, so no curve is ever hidden behind it). The API knows
//! nothing of models: `simulate --plot` groups a trajectory's columns by kind
//! ([`trajectory`]), and a comparison of runs or a documentation page can build
//! its own panels (several runs' series in one panel, each with its own time grid).
//!
//! SVG text is left to the viewer (`<text>` elements); PNG text is rasterized from
//! DejaVu Sans, embedded in the tool by the `dejavu` crate, because no system
//! font may be assumed. Both formats lay text out with that font's metrics.

pub mod trajectory;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::Once;

/// One curve: `(x, y)` points in increasing x. Non-finite points break the line.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One y axis with its curves.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Drawn above the panel (what the curves are, and what was left out).
    pub title: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

/// Panels stacked vertically, sharing the x range.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub panels: Vec<Panel>,
}

/// Output format, chosen by the file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// `.svg` or `.png` (any case); anything else is refused before any work is done.
    pub fn from_path(path: &Path) -> Result<Format, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("svg") => Ok(Format::Svg),
            Some(e) if e.eq_ignore_ascii_case("png") => Ok(Format::Png),
            _ => Err(format!(
                "{}: the plot file must end in .svg or .png",
                path.display()
            )),
        }
    }
}

/// Series colours (Tableau 10): distinguishable, and none is the grey of the grid
/// or the black of the axes, so a series' lines can be told from the mesh's.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

const WIDTH: u32 = 1000;
const PANEL_HEIGHT: u32 = 240;
const TITLE_HEIGHT: u32 = 40;
const FONT: &str = "sans-serif";
/// Points kept per series: min/max decimation into this many x buckets (a few per
/// pixel column) keeps every spike of a nonsmooth trajectory and bounds the SVG size.
const BUCKETS: usize = 1500;

/// The figure's size in pixels (the same for both formats).
pub fn size(fig: &Figure) -> (u32, u32) {
    (
        WIDTH,
        TITLE_HEIGHT + PANEL_HEIGHT * fig.panels.len().max(1) as u32,
    )
}

/// The figure as an SVG document.
pub fn render_svg(fig: &Figure) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size(fig)).into_drawing_area();
        draw(&root, fig)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The figure as a PNG file's bytes (8-bit RGB).
pub fn render_png(fig: &Figure) -> Result<Vec<u8>, String> {
    let (w, h) = size(fig);
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, fig)?;
        root.present().map_err(|e| e.to_string())?;
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let encoded = encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&rgb));
    encoded.map_err(|e| format!("PNG encoding: {e}"))?;
    Ok(bytes)
}

/// Renders in the format the extension names, then writes: a failed rendering
/// leaves no file behind.
pub fn write(fig: &Figure, path: &Path) -> Result<(), crate::error::Error> {
    let plot = crate::error::Error::Plot;
    let bytes = match Format::from_path(path).map_err(plot)? {
        Format::Svg => render_svg(fig).map(String::into_bytes),
        Format::Png => render_png(fig),
    }
    .map_err(|e| plot(format!("{}: {e}", path.display())))?;
    std::fs::write(path, bytes).map_err(|source| crate::error::Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// plotters built with `ab_glyph` knows only registered fonts, for layout (both
/// formats) and for rasterizing (PNG).
fn register_font() -> Result<(), String> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded font could not be read".to_string());
    });
    result
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), String> {
    register_font()?;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let body = root
        .titled(&fig.title, (FONT, 22).into_font().color(&BLACK))
        .map_err(err)?;
    if fig.panels.is_empty() {
        return Ok(());
    }
    let (x0, x1) = padded(
        fig.panels
            .iter()
            .flat_map(|p| &p.series)
            .flat_map(|s| s.points.iter().map(|p| p.0)),
        0.0,
    );
    let legend_style = (FONT, 14)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let longest = fig
        .panels
        .iter()
        .flat_map(|p| &p.series)
        .map(|s| {
            root.estimate_text_size(&s.name, &legend_style)
                .map_or(0, |(w, _)| w)
        })
        .max()
        .unwrap_or(0);
    // Room for the swatch, the longest name and a margin, but never most of the width.
    let legend_width = (longest + 50).clamp(120, WIDTH / 3);
    let rows = body.split_evenly((fig.panels.len(), 1));
    for (i, (area, panel)) in rows.iter().zip(&fig.panels).enumerate() {
        let (plot_area, legend_area) = area.split_horizontally(WIDTH - legend_width);
        let (y0, y1) = padded(
            panel
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1)),
            0.05,
        );
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(8)
            .caption(&panel.title, (FONT, 16))
            .x_label_area_size(36)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        // The x axis is shared: every panel keeps its tick labels (no ruler needed
        // to read a time off a middle panel) but only the bottom one says what it is.
        let last = i + 1 == fig.panels.len();
        chart
            .configure_mesh()
            .x_desc(if last { fig.x_label.as_str() } else { "" })
            .y_desc(&panel.y_label)
            .bold_line_style(RGBColor(220, 220, 220))
            // No minor grid: it would be most of an SVG's elements and add nothing.
            .light_line_style(TRANSPARENT)
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 12))
            .x_label_formatter(&|v| tick_label(*v, x1 - x0))
            .y_label_formatter(&|v| tick_label(*v, y1 - y0))
            .draw()
            .map_err(err)?;
        for (k, s) in panel.series.iter().enumerate() {
            let style = PALETTE[k % PALETTE.len()].stroke_width(2);
            for segment in segments(&s.points) {
                let points = decimate(segment, x0, x1, BUCKETS);
                chart
                    .draw_series(LineSeries::new(points, style))
                    .map_err(err)?;
            }
        }
        // The legend: a filled swatch (a rectangle, not a line, so that the only
        // coloured lines are the series) and the name, one row per series.
        for (k, s) in panel.series.iter().enumerate() {
            let y = 40 + 20 * k as i32;
            let colour = PALETTE[k % PALETTE.len()];
            legend_area
                .draw(&Rectangle::new([(8, y - 2), (30, y + 2)], colour.filled()))
                .map_err(err)?;
            legend_area
                .draw(&Text::new(s.name.as_str(), (36, y), legend_style.clone()))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// The finite range of `values`, widened by `pad` of its span on each side (never
/// empty: a constant gets a unit-sized window, no values give [-1, 1]).
fn padded(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return (-1.0, 1.0);
    }
    let span = hi - lo;
    if !(span > 1e-12 * lo.abs().max(hi.abs())) || !span.is_finite() {
        let half = (0.1 * lo.abs()).max(1.0);
        return (lo - half, hi + half);
    }
    (lo - pad * span, hi + pad * span)
}

/// A tick value with as many decimals as ticks about a tenth of `span` apart need,
/// in exponent form when that would be long, and never "-0".
fn tick_label(v: f64, span: f64) -> String {
    let magnitude = v.abs().max(span);
    if !(1e-3..1e6).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    let decimals = (-(span / 10.0).log10()).ceil().clamp(0.0, 6.0) as usize;
    let text = format!("{v:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => text,
    }
}

/// Runs of consecutive finite points: a NaN or an infinity leaves a gap.
fn segments(points: &[(f64, f64)]) -> impl Iterator<Item = &[(f64, f64)]> {
    points
        .split(|(x, y)| !(x.is_finite() && y.is_finite()))
        .filter(|s| !s.is_empty())
}

/// Keeps, for each of `buckets` equal x intervals, its first, lowest, highest and
/// last point, in order: the drawn line is the same at plot resolution, spikes
/// included, for any number of samples.
fn decimate(points: &[(f64, f64)], x0: f64, x1: f64, buckets: usize) -> Vec<(f64, f64)> {
    if points.len() <= 4 * buckets {
        return points.to_vec();
    }
    let bucket = |x: f64| (((x - x0) / (x1 - x0) * buckets as f64) as usize).min(buckets);
    let mut out = Vec::with_capacity(4 * buckets + 4);
    let mut start = 0;
    while start < points.len() {
        let b = bucket(points[start].0);
        let mut end = start;
        let (mut lo, mut hi) = (start, start);
        while end < points.len() && bucket(points[end].0) == b {
            if points[end].1 < points[lo].1 {
                lo = end;
            }
            if points[end].1 > points[hi].1 {
                hi = end;
            }
            end += 1;
        }
        let mut keep = [start, lo, hi, end - 1];
        keep.sort_unstable();
        let mut last = None;
        for i in keep {
            if last != Some(i) {
                out.push(points[i]);
                last = Some(i);
            }
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_ends_and_spikes() {
        let mut points: Vec<(f64, f64)> = (0..100_000).map(|i| (i as f64 * 1e-4, 0.0)).collect();
        points[54_321].1 = 7.0;
        points[12_345].1 = -3.0;
        let kept = decimate(&points, 0.0, 10.0, 100);
        assert!(kept.len() <= 400, "{}", kept.len());
        assert_eq!(kept.first(), points.first());
        assert_eq!(kept.last(), points.last());
        assert!(kept.contains(&points[54_321]) && kept.contains(&points[12_345]));
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
        // Short series are left alone.
        assert_eq!(decimate(&points[..10], 0.0, 10.0, 100), &points[..10]);
    }

    #[test]
    fn ranges_and_gaps() {
        assert_eq!(padded([1.0, 3.0].into_iter(), 0.5), (0.0, 4.0));
        assert_eq!(padded([2.0, 2.0].into_iter(), 0.5), (1.0, 3.0));
        assert_eq!(padded([f64::NAN].into_iter(), 0.5), (-1.0, 1.0));
        let points = [(0.0, 1.0), (1.0, f64::NAN), (2.0, 1.0), (3.0, 2.0)];
        let runs: Vec<usize> = segments(&points).map(|s| s.len()).collect();
        assert_eq!(runs, [1, 2]);
        assert_eq!(Format::from_path(Path::new("a.SVG")), Ok(Format::Svg));
        assert_eq!(Format::from_path(Path::new("a.png")), Ok(Format::Png));
        assert!(Format::from_path(Path::new("a.pdf")).is_err());
        assert_eq!(tick_label(-1e-17, 2.0), "0.0");
        assert_eq!(tick_label(0.25, 0.5), "0.25");
        assert_eq!(tick_label(-10000.0, 20000.0), "-10000");
        assert_eq!(tick_label(2e-5, 4e-5), "2.00e-5");
    }
}
