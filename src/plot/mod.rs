//! Plotting layer: figures drawn from result data (never from systems).
//!
//! Every figure implements [`Render`] once, generically over the plotters backend, and
//! [`save`] picks PNG or SVG from the file extension. Shared pieces live here so later
//! figure kinds (chain shapes, maps with a colour bar) look the same: embedded DejaVu
//! fonts ([`ensure_fonts`]), a line palette ([`PALETTE`]), axes with our own ticks and
//! labels ([`Axis`]), per-pixel decimation ([`decimate_minmax`]) and a legend that
//! picks the emptiest corner ([`Legend`]).
//!
//! Files are written to [`partial_path`] and renamed on success, so an interrupted or
//! failed draw never leaves a broken image under the requested name.

mod axis;
mod error;
mod font;
mod legend;
mod save;
mod text;
pub use crate::format::format_value;
pub use axis::{format_decimal, format_sci, nice_range, subscript, Axis};
pub use error::{DataError, DrawError, PlotError};
pub use font::{ensure_fonts, font};
pub use legend::{draw_foot_legend, draw_legend_row, Legend, LegendEntry, Marker};
pub use save::{partial_path, render_rgb, save, Format};
pub use text::{caption_font, draw_centred, fit_text, text_width, TextFit, LINE_SPACING};

pub mod animation;
pub mod cart;
pub mod convergence;
pub mod figure;
pub mod frequency_map;
pub mod lab;
pub mod labels;
pub mod map;
pub mod measure;
pub mod modes;
pub mod orbits;
pub mod poincare;
pub mod timeseries;
pub mod trajectory;

pub use cart::{draw_cart_chain, CartFigure};
pub use convergence::{draw_convergence, draw_covariant, draw_indicators};
pub use figure::draw_figure;
pub use measure::{draw_measure, MeasureFigure};
pub use modes::{draw_modes, ModesFigure};
pub use orbits::{
    draw_bifurcation, draw_orbit_diagram, draw_orbit_shape, BifurcationFigure, BifurcationMark,
    BranchCurve, OrbitDiagramFigure, OrbitShapeFigure,
};
pub use poincare::{draw_poincare, Colouring, PoincareFigure, PoincarePanel};
pub use timeseries::{draw_timeseries, Figure, Panel, Series};
pub use trajectory::draw_trajectory;

use std::ops::Range;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Font family every figure uses; registered from the embedded DejaVu Sans.
pub const FONT_FAMILY: &str = "sans-serif";

/// PNG figures are drawn at this multiple of the requested size and box-filtered down,
/// because plotters' bitmap lines are not anti-aliased.
pub const SUPERSAMPLE: u32 = 3;

/// Line colours (matplotlib's `tab10`): distinguishable, familiar from papers.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The `i`-th palette colour, cycling.
pub fn series_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// How a figure is being drawn: sizes are given in logical pixels and multiplied by
/// `scale` (device pixels per logical pixel); `raster` says whether thick lines must
/// be rasterised by us (bitmap) or can be left to the viewer (SVG).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    pub scale: f64,
    pub raster: bool,
}

impl Surface {
    /// A logical length in device pixels.
    pub fn px(&self, logical: f64) -> i32 {
        (logical * self.scale).round() as i32
    }

    /// A logical stroke width in device pixels, at least 1.
    pub fn stroke(&self, logical: f64) -> u32 {
        self.px(logical).max(1) as u32
    }
}

/// A figure drawn once for every backend (PNG bitmap, SVG, in-memory buffers).
///
/// A generic trait method rather than a closure, because a closure cannot be generic
/// over the backend type.
pub trait Render {
    /// Checks the data; [`save`] calls this before creating any file.
    fn validate(&self) -> Result<(), DataError> {
        Ok(())
    }

    /// Draws onto `root` (which it fills with the background itself).
    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn;
}

/// The drawing area a figure renders onto.
pub type Area<DB> = DrawingArea<DB, Shift>;

/// What drawing returns.
pub type Drawn = Result<(), DrawError>;

/// Draws a polyline `points` (data coordinates of `plot`) `width` logical pixels wide.
///
/// On raster surfaces the line is stamped as 1-pixel polylines offset over a disc:
/// plotters' own wide-line polygons grow long spikes at the hairpin turns that
/// decimated data is full of. Vector surfaces get one ordinary stroked path.
pub fn draw_polyline<DB, X, Y>(
    plot: &DrawingArea<DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    color: RGBColor,
    width: f64,
    surface: Surface,
) -> Result<(), DrawError>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let w = surface.stroke(width);
    if !surface.raster || w <= 1 {
        plot.draw(&PathElement::new(points.to_vec(), color.stroke_width(w)))?;
        return Ok(());
    }
    let pixels: Vec<(i32, i32)> = points.iter().map(|p| plot.map_coordinate(p)).collect();
    stamp_polyline(&plot.use_screen_coord(), pixels, color, w)
}

/// Draws a polyline through device `pixels` `w` device pixels wide by stamping 1-pixel
/// polylines over a disc (see [`draw_polyline`]; also used by the animation frames).
pub fn stamp_polyline<DB: DrawingBackend>(
    screen: &DrawingArea<DB, Shift>,
    mut pixels: Vec<(i32, i32)>,
    color: RGBColor,
    w: u32,
) -> Result<(), DrawError> {
    pixels.dedup();
    if w <= 1 {
        screen.draw(&PathElement::new(pixels, color.stroke_width(1)))?;
        return Ok(());
    }
    let r = (f64::from(w) - 1.0) / 2.0;
    let ri = r.ceil() as i32;
    for dy in -ri..=ri {
        for dx in -ri..=ri {
            if f64::from(dx * dx + dy * dy) > r * r + 0.5 {
                continue;
            }
            let shifted: Vec<(i32, i32)> = pixels.iter().map(|&(x, y)| (x + dx, y + dy)).collect();
            screen.draw(&PathElement::new(shifted, color.stroke_width(1)))?;
        }
    }
    Ok(())
}

/// Per-pixel-column decimation ("M4") of `points`, which are `(x, y)` in data units.
///
/// Consecutive points falling into the same device column (`column(x)`) are reduced to
/// the first, minimum, maximum and last of them, in their original order: the drawn
/// polyline is identical at pixel resolution, while 10⁶ points become ≈ 4 per column.
/// Works for unsorted x too (columns are then just shorter runs).
pub fn decimate_minmax(
    points: impl IntoIterator<Item = (f64, f64)>,
    column: impl Fn(f64) -> i64,
) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    /// (index, point) of the first, minimum, maximum and last point of a column.
    type Picks = [(usize, (f64, f64)); 4];
    let mut bucket: Option<(i64, Picks)> = None;
    let flush = |b: &Picks, out: &mut Vec<(f64, f64)>| {
        let mut picks = *b;
        picks.sort_by_key(|p| p.0);
        let mut last = usize::MAX;
        for (i, p) in picks {
            if i != last {
                out.push(p);
                last = i;
            }
        }
    };
    for (i, p) in points.into_iter().enumerate() {
        let col = column(p.0);
        match &mut bucket {
            Some((c, b)) if *c == col => {
                // b = [first, min, max, last]
                if p.1 < b[1].1 .1 {
                    b[1] = (i, p);
                }
                if p.1 > b[2].1 .1 {
                    b[2] = (i, p);
                }
                b[3] = (i, p);
            }
            _ => {
                if let Some((_, b)) = &bucket {
                    flush(b, &mut out);
                }
                bucket = Some((col, [(i, p); 4]));
            }
        }
    }
    if let Some((_, b)) = &bucket {
        flush(b, &mut out);
    }
    out
}

/// Splits indices `0..n` into maximal runs where `keep(i)` holds; gaps (NaN, values a
/// log axis cannot show) break a line instead of being bridged.
pub fn runs(n: usize, keep: impl Fn(usize) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for i in 0..n {
        match (keep(i), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..n);
    }
    out
}

/// The map from data coordinates of the chart area `plot` to the device pixels of the same area
/// as a frame with its own pixel origin (its top left corner; the frame is
/// `plot.strip_coord_spec()`): for figures that draw in pixels (stamped lines, dashes, markers)
/// over a chart's data.
pub fn frame_pixels<'a, DB, X, Y>(
    plot: &'a DrawingArea<DB, Cartesian2d<X, Y>>,
) -> impl Fn(&(f64, f64)) -> (i32, i32) + Copy + 'a
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (ox, oy) = plot.get_base_pixel();
    move |p: &(f64, f64)| {
        let (x, y) = plot.map_coordinate(p);
        (x - ox, y - oy)
    }
}

/// Clears the canvas and draws the centred bold title (wrapped and, if need be, shrunk to the
/// canvas width by [`fit_text`], never cut) with its centre line at `y` (logical pixels): the
/// header every multi-panel figure starts with. Returns the figure's logical size and how far
/// the title reaches below a one-line title at the same `y` (logical pixels), so the caller
/// moves its panels down by that much.
pub fn begin_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    title: &str,
    y: f64,
) -> Result<Header, DrawError> {
    let (dw, dh) = root.dim_in_pixel();
    let (w, h) = (f64::from(dw) / surface.scale, f64::from(dh) / surface.scale);
    root.fill(&WHITE)?;
    let used = draw_centred(root, surface, title, (w / 2.0, y), w - 24.0, 22.0, true)?;
    let one = 22.0 * LINE_SPACING;
    Ok(Header {
        w,
        h,
        extra: (used - one).max(0.0),
    })
}

/// [`begin_figure`] with the title's centre line at 24 logical pixels, then `subtitle` in regular
/// 15 px type centred at 50 (below a title that wraps, lower by as much) and at most 30 logical
/// pixels narrower than the canvas: the header of the figures with a subtitle line. Returns the
/// header and the subtitle's height (logical pixels).
pub fn begin_subtitled_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    title: &str,
    subtitle: &str,
) -> Result<(Header, f64), DrawError> {
    let header = begin_figure(root, surface, title, 24.0)?;
    let Header { w, extra, .. } = header;
    let sub_h = draw_centred(
        root,
        surface,
        subtitle,
        (w / 2.0, 50.0 + extra),
        w - 30.0,
        15.0,
        false,
    )?;
    Ok((header, sub_h))
}

/// [`begin_figure`] for a figure of one chart: the title at 26 logical pixels and the area
/// below it, inset 10 px left, 10 px right and 8 px at the bottom, where the chart goes.
pub fn begin_chart_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, DrawError> {
    let px = |v: f64| surface.px(v);
    let Header { w, h, extra } = begin_figure(root, surface, title, 26.0)?;
    let top = 50.0 + extra;
    Ok(root.clone().shrink(
        (px(10.0), px(top)),
        (px(w - 20.0) as u32, px(h - top - 8.0) as u32),
    ))
}

/// What [`begin_figure`] leaves: the logical canvas size and the title's extra height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    pub w: f64,
    pub h: f64,
    /// Height (logical pixels) the title takes beyond one line; 0 for a title that fits.
    pub extra: f64,
}

/// A chart's mesh in the house style: light grid lines and dark axes `thin` device pixels
/// wide, tick labels of `label` and axis descriptions of `desc` logical pixels; the caller adds
/// formatters and descriptions, then draws it.
pub fn house_mesh<'a, 'b, X, Y, DB>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    thin: u32,
    scale: f64,
    (label, desc): (f64, f64),
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged + ValueFormatter<X::ValueType>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
    DB: DrawingBackend,
{
    let mut mesh = chart.configure_mesh();
    mesh.bold_line_style(RGBColor(0xe4, 0xe4, 0xe4).stroke_width(thin))
        .light_line_style(RGBColor(0xf2, 0xf2, 0xf2).stroke_width(thin))
        .axis_style(RGBColor(0x44, 0x44, 0x44).stroke_width(thin))
        .label_style(font(label, scale, false))
        .axis_desc_style(font(desc, scale, false));
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_extremes_in_order() {
        let pts: Vec<(f64, f64)> = (0..1000).map(|i| (i as f64, (i % 7) as f64)).collect();
        let d = decimate_minmax(pts, |x| (x / 100.0) as i64);
        assert!(d.len() <= 40);
        assert!(d.iter().any(|p| p.1 == 6.0) && d.iter().any(|p| p.1 == 0.0));
        assert!(d.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
