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
pub use axis::{format_decimal, format_sci, format_value, nice_range, subscript, Axis};

pub mod animation;
pub mod cart;
pub mod convergence;
pub mod lab;
pub mod map;
pub mod measure;
pub mod modes;
pub mod poincare;
pub mod timeseries;
pub mod trajectory;

pub use cart::{draw_cart_chain, CartFigure};
pub use convergence::{draw_convergence, draw_indicators, draw_megno};
pub use measure::{draw_measure, MeasureFigure};
pub use modes::{draw_modes, ModesFigure};
pub use poincare::{draw_poincare, Colouring, PoincareFigure, PoincarePanel};
pub use timeseries::{draw_timeseries, Figure, Panel, Series};
pub use trajectory::draw_trajectory;

use std::fs;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};
use thiserror::Error;

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

/// Problems with the data handed to a figure; found before any file is created.
#[derive(Debug, Error)]
pub enum DataError {
    #[error("{what} is empty")]
    Empty { what: String },
    #[error("{what} has no finite values (all NaN or infinite)")]
    NoFiniteValues { what: String },
    #[error("{what} has no positive finite values to show on a log axis")]
    NoPositiveValues { what: String },
    #[error("{what} has {found} values, expected {expected}")]
    LengthMismatch {
        what: String,
        expected: usize,
        found: usize,
    },
}

/// Failure inside a [`Render`] implementation, before a path is attached.
#[derive(Debug, Error)]
pub enum DrawError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("font registration failed: {0}")]
    Font(String),
    #[error("drawing failed: {0}")]
    Backend(String),
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        DrawError::Backend(e.to_string())
    }
}

/// Error of the plotting layer; always names the output file.
#[derive(Debug, Error)]
pub enum PlotError {
    #[error("cannot plot to {}: unsupported extension {extension:?} (use .png or .svg)", path.display())]
    UnsupportedFormat { path: PathBuf, extension: String },
    #[error("cannot plot to {}: {source}", path.display())]
    Data { path: PathBuf, source: DataError },
    #[error("cannot plot to {}: font registration failed: {message}", path.display())]
    Font { path: PathBuf, message: String },
    #[error("cannot plot to {}: drawing failed: {message}", path.display())]
    Draw { path: PathBuf, message: String },
    #[error("cannot write {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl PlotError {
    fn from_draw(path: &Path, e: DrawError) -> Self {
        let path = path.to_path_buf();
        match e {
            DrawError::Data(source) => PlotError::Data { path, source },
            DrawError::Font(message) => PlotError::Font { path, message },
            DrawError::Backend(message) => PlotError::Draw { path, message },
        }
    }
}

/// Registers DejaVu Sans (normal, bold, oblique) as [`FONT_FAMILY`].
///
/// plotters' `ab_glyph` feature has no system fonts, so text drawing fails until this
/// ran; [`save`] and [`render_rgb`] call it. Thread-safe and idempotent.
pub fn ensure_fonts() -> Result<(), DrawError> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let fonts = [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
                (FontStyle::Oblique, dejavu::sans::oblique()),
                (FontStyle::Italic, dejavu::sans::oblique()),
            ];
            for (style, bytes) in fonts {
                register_font(FONT_FAMILY, style, bytes)
                    .map_err(|_| format!("DejaVu Sans {} is not a valid font", style.as_str()))?;
            }
            Ok(())
        })
        .clone()
        .map_err(DrawError::Font)
}

/// Output image format, chosen from the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
}

impl Format {
    /// `.png` or `.svg` (case-insensitive); anything else is
    /// [`PlotError::UnsupportedFormat`] naming the extension.
    pub fn from_path(path: &Path) -> Result<Format, PlotError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext.to_ascii_lowercase().as_str() {
            "png" => Ok(Format::Png),
            "svg" => Ok(Format::Svg),
            _ => Err(PlotError::UnsupportedFormat {
                path: path.to_path_buf(),
                extension: ext.to_string(),
            }),
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
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

/// Where [`save`] writes before renaming: `PATH.partial.EXT` (the image encoder picks
/// the format from the last extension, so a bare `PATH.partial` is not possible).
pub fn partial_path(path: &Path) -> Result<PathBuf, PlotError> {
    let format = Format::from_path(path)?;
    let mut name = path.as_os_str().to_owned();
    name.push(".partial.");
    name.push(format.extension());
    Ok(PathBuf::from(name))
}

/// Draws `figure` to `path` at `size` (logical pixels; also the PNG's pixel size),
/// PNG or SVG by extension. Validates first, writes [`partial_path`], renames on
/// success and removes the partial file on failure.
pub fn save<R: Render>(figure: &R, path: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let format = Format::from_path(path)?;
    figure.validate().map_err(|source| PlotError::Data {
        path: path.to_path_buf(),
        source,
    })?;
    ensure_fonts().map_err(|e| PlotError::from_draw(path, e))?;
    let partial = partial_path(path)?;
    let written = match format {
        Format::Png => write_png(figure, &partial, size),
        Format::Svg => write_svg(figure, &partial, size),
    };
    let result = written.and_then(|()| {
        fs::rename(&partial, path).map_err(|source| PlotError::Io {
            path: path.to_path_buf(),
            source,
        })
    });
    if result.is_err() {
        let _ = fs::remove_file(&partial);
    }
    result
}

/// Renders `figure` to an RGB buffer (`3·w·h` bytes, row-major), supersampled and
/// anti-aliased exactly as PNG output is; useful for tests and embedding.
pub fn render_rgb<R: Render>(figure: &R, (w, h): (u32, u32)) -> Result<Vec<u8>, DrawError> {
    ensure_fonts()?;
    let s = SUPERSAMPLE;
    let (bw, bh) = (w * s, h * s);
    let mut big = vec![255u8; 3 * bw as usize * bh as usize];
    {
        let root = BitMapBackend::with_buffer(&mut big, (bw, bh)).into_drawing_area();
        let surface = Surface {
            scale: f64::from(s),
            raster: true,
        };
        figure.render(&root, surface)?;
        root.present()?;
    }
    Ok(downsample(&big, (w, h), s))
}

/// Box filter of an `s`-times larger RGB buffer down to `w × h`.
fn downsample(big: &[u8], (w, h): (u32, u32), s: u32) -> Vec<u8> {
    let (w, h, s) = (w as usize, h as usize, s as usize);
    let bw = w * s;
    let n = (s * s) as u32;
    let mut out = vec![0u8; 3 * w * h];
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0u32; 3];
            for dy in 0..s {
                let row = (y * s + dy) * bw;
                for dx in 0..s {
                    let i = 3 * (row + x * s + dx);
                    for c in 0..3 {
                        acc[c] += u32::from(big[i + c]);
                    }
                }
            }
            let o = 3 * (y * w + x);
            for c in 0..3 {
                out[o + c] = ((acc[c] + n / 2) / n) as u8;
            }
        }
    }
    out
}

fn write_png<R: Render>(figure: &R, partial: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let draw = |e| PlotError::from_draw(partial, e);
    let rgb = render_rgb(figure, size).map_err(draw)?;
    let mut backend = BitMapBackend::new(partial, size);
    backend
        .blit_bitmap((0, 0), size, &rgb)
        .and_then(|()| backend.present())
        .map_err(|e| PlotError::Draw {
            path: partial.to_path_buf(),
            message: e.to_string(),
        })
}

fn write_svg<R: Render>(figure: &R, partial: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        figure
            .render(
                &root,
                Surface {
                    scale: 1.0,
                    raster: false,
                },
            )
            .and_then(|()| root.present().map_err(DrawError::from))
            .map_err(|e| PlotError::from_draw(partial, e))?;
    }
    fs::write(partial, svg).map_err(|source| PlotError::Io {
        path: partial.to_path_buf(),
        source,
    })
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

/// What [`begin_figure`] leaves: the logical canvas size and the title's extra height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    pub w: f64,
    pub h: f64,
    /// Height (logical pixels) the title takes beyond one line; 0 for a title that fits.
    pub extra: f64,
}

/// Line height of wrapped text, in font sizes.
pub const LINE_SPACING: f64 = 1.25;

/// Fewest-lines layout of a title or caption: lines at `\n` and at spaces (a word wider than
/// the space is broken between characters), balanced in width, at `size` logical pixels; when more
/// than `max_lines` would be needed the font shrinks (to 60 %, then further only if a
/// line still cannot fit). Every line is then at most `max_w` logical pixels wide, by the
/// font's own metrics, so no text is ever cut by the canvas edge.
#[derive(Debug, Clone, PartialEq)]
pub struct TextFit {
    pub lines: Vec<String>,
    /// Font size (logical pixels).
    pub size: f64,
}

/// Width in logical pixels of `text` in the house font at `size` (measured at `scale`
/// device pixels per logical pixel, where glyph widths are rounded).
pub fn text_width(text: &str, size: f64, bold: bool, scale: f64) -> f64 {
    let style = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    let desc = FontDesc::new(FontFamily::SansSerif, size * scale, style);
    match desc.box_size(text) {
        Ok((w, _)) => f64::from(w) / scale,
        // Unmeasurable (fonts not registered): a generous estimate, so fitting still errs on
        // the side of smaller text.
        Err(_) => text.chars().count() as f64 * size * 0.75,
    }
}

/// Lays `text` out in at most `max_lines` lines of at most `max_w` logical pixels; see
/// [`TextFit`].
pub fn fit_text(
    text: &str,
    max_w: f64,
    size: f64,
    bold: bool,
    scale: f64,
    max_lines: usize,
) -> TextFit {
    // Without the fonts every width is the estimate of `text_width`; fitting still works.
    let _ = ensure_fonts();
    let max_w = max_w.max(1.0);
    let max_lines = max_lines.max(1);
    let mut sz = size;
    loop {
        let measure = |l: &str| text_width(l, sz, bold, scale);
        let paragraphs: Vec<Vec<String>> =
            text.split('\n').map(|p| wrap(p, max_w, &measure)).collect();
        let count: usize = paragraphs.iter().map(Vec::len).sum();
        let too_many = count > max_lines && sz > size * 0.6;
        let too_wide = paragraphs.iter().flatten().any(|l| measure(l) > max_w);
        if !(too_many || too_wide) || sz <= 1.0 {
            let lines = text
                .split('\n')
                .zip(paragraphs)
                .flat_map(|(p, lines)| balance(p, lines, max_w, &measure))
                .collect();
            return TextFit { lines, size: sz };
        }
        sz = (sz * 0.94).max(1.0);
    }
}

/// Greedy wrap of `text` at spaces into lines of at most `limit` (by `width`); a word too wide
/// for a line of its own is broken between characters.
fn wrap(text: &str, limit: f64, width: &dyn Fn(&str) -> f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let joined = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if width(&joined) <= limit {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if width(word) <= limit {
            line = word.to_string();
            continue;
        }
        for c in word.chars() {
            let mut next = line.clone();
            next.push(c);
            if !line.is_empty() && width(&next) > limit {
                lines.push(std::mem::take(&mut line));
                next = c.to_string();
            }
            line = next;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `greedy`'s line count, but with the lines as even in width as the words allow (a
/// two-line title split 55/45 rather than 95/5): the narrowest wrap width that needs no
/// more lines, found by bisection.
fn balance(
    text: &str,
    greedy: Vec<String>,
    max_w: f64,
    width: &dyn Fn(&str) -> f64,
) -> Vec<String> {
    let n = greedy.len();
    if n < 2 {
        return greedy;
    }
    let (mut lo, mut hi) = (0.0, max_w);
    let mut best = greedy;
    for _ in 0..14 {
        let mid = 0.5 * (lo + hi);
        let lines = wrap(text, mid, width);
        if lines.len() <= n && lines.iter().all(|l| width(l) <= max_w) {
            best = lines;
            hi = mid;
        } else {
            lo = mid;
        }
    }
    best
}

/// Draws `text` fitted by [`fit_text`] (at most 3 lines) into `max_w` logical pixels, its
/// lines centred on `centre.0` and the block's middle at `centre.1` for a single line (more
/// lines extend downwards). Returns the block's height (logical pixels). Every figure's titles,
/// subtitles and free-standing captions go through here, so none is ever cut.
pub fn draw_centred<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    text: &str,
    centre: (f64, f64),
    max_w: f64,
    size: f64,
    bold: bool,
) -> Result<f64, DrawError> {
    if text.trim().is_empty() {
        return Ok(0.0);
    }
    let fit = fit_text(text, max_w, size, bold, surface.scale, 3);
    let line_h = fit.size * LINE_SPACING;
    let first = centre.1;
    for (i, line) in fit.lines.iter().enumerate() {
        root.draw(&Text::new(
            line.clone(),
            (surface.px(centre.0), surface.px(first + line_h * i as f64)),
            font(fit.size, surface.scale, bold).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
    }
    Ok(line_h * fit.lines.len() as f64)
}

/// A text style for a one-line caption (a panel caption drawn by plotters' `ChartBuilder`):
/// the house font at `size`, shrunk until `text` fits in `max_w` logical pixels.
pub fn caption_font(text: &str, max_w: f64, size: f64, scale: f64) -> TextStyle<'static> {
    let _ = ensure_fonts();
    let mut sz = size;
    while sz > 1.0 && text_width(text, sz, false, scale) > max_w {
        sz *= 0.94;
    }
    font(sz, scale, false)
}

/// Text style in [`FONT_FAMILY`] at `size` logical pixels.
pub fn font(size: f64, scale: f64, bold: bool) -> TextStyle<'static> {
    let style = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    FontDesc::new(FontFamily::SansSerif, size * scale, style).color(&RGBColor(0x22, 0x22, 0x22))
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

/// One legend row: a label and how its glyph is drawn.
#[derive(Debug, Clone)]
pub struct LegendEntry {
    pub label: String,
    pub color: RGBColor,
    /// Draw a shaded box behind the line (the series has an error band).
    pub band: bool,
    /// Draw this marker instead of a line (scatter series).
    pub marker: Option<Marker>,
}

/// A scatter marker, as drawn in a plot and in its legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// An open circle.
    Circle,
    /// A filled circle.
    Dot,
    /// A diagonal cross.
    Cross,
    /// A filled square (a colour swatch).
    Square,
}

impl Marker {
    /// Draws the marker centred at device pixel `c`, `r` device pixels in radius, strokes
    /// `stroke` device pixels wide.
    pub fn draw<DB: DrawingBackend>(
        self,
        area: &DrawingArea<DB, Shift>,
        c: (i32, i32),
        r: i32,
        color: RGBColor,
        stroke: u32,
    ) -> Result<(), DrawError> {
        match self {
            Marker::Circle => area.draw(&Circle::new(c, r, color.stroke_width(stroke)))?,
            Marker::Dot => area.draw(&Circle::new(c, r, color.filled()))?,
            Marker::Cross => area.draw(&Cross::new(c, r, color.stroke_width(stroke)))?,
            Marker::Square => area.draw(&Rectangle::new(
                [(c.0 - r, c.1 - r), (c.0 + r, c.1 + r)],
                color.filled(),
            ))?,
        }
        Ok(())
    }
}

/// Draws a one-row legend of `(marker colours, label)` entries centred at `centre` (logical
/// pixels) in at most `max_w`: each entry's swatch is a row of squares (several colours: "one
/// colour each") sized to the text, entries spaced by their measured widths, the font shrunk
/// if the row would not fit. Used below panel grids, where a boxed legend would hide data.
pub fn draw_legend_row<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    entries: &[(Vec<RGBColor>, String)],
    centre: (f64, f64),
    max_w: f64,
    size: f64,
) -> Result<(), DrawError> {
    let scale = surface.scale;
    let layout = |sz: f64| {
        let swatch = 0.8 * sz;
        let widths: Vec<f64> = entries
            .iter()
            .map(|(c, l)| c.len() as f64 * swatch + 0.5 * sz + text_width(l, sz, false, scale))
            .collect();
        let gap = 2.0 * sz;
        let total = widths.iter().sum::<f64>() + gap * entries.len().saturating_sub(1) as f64;
        (swatch, widths, gap, total)
    };
    let mut sz = size;
    while sz > 6.0 && layout(sz).3 > max_w {
        sz *= 0.95;
    }
    let (swatch, widths, gap, total) = layout(sz);
    let mut x = centre.0 - total / 2.0;
    let y = surface.px(centre.1);
    let half = surface.px(swatch / 2.0);
    for ((colours, label), w) in entries.iter().zip(widths) {
        for (i, c) in colours.iter().enumerate() {
            let cx = surface.px(x + (i as f64 + 0.5) * swatch);
            root.draw(&Rectangle::new(
                [(cx - half, y - half), (cx + half, y + half)],
                c.filled(),
            ))?;
        }
        root.draw(&Text::new(
            label.clone(),
            (surface.px(x + colours.len() as f64 * swatch + 0.5 * sz), y),
            font(sz, scale, false).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        x += w + gap;
    }
    Ok(())
}

/// A measured legend box; place it with [`Legend::place`], then [`Legend::draw`].
#[derive(Debug, Clone)]
pub struct Legend {
    entries: Vec<LegendEntry>,
    scale: f64,
    font_size: f64,
    w: i32,
    h: i32,
}

impl Legend {
    /// Measures `entries` at `font_size` logical pixels (any area of the target backend).
    pub fn new<DB: DrawingBackend>(
        area: &DrawingArea<DB, Shift>,
        entries: Vec<LegendEntry>,
        scale: f64,
        font_size: f64,
    ) -> Result<Legend, DrawError> {
        let text = font(font_size, scale, false);
        let mut text_w = 0;
        for e in &entries {
            text_w = text_w.max(area.estimate_text_size(&e.label, &text)?.0 as i32);
        }
        let mut legend = Legend {
            entries,
            scale,
            font_size,
            w: 0,
            h: 0,
        };
        let [pad, glyph, gap, row] = legend.metrics();
        legend.w = pad + glyph + gap + text_w + pad;
        legend.h = 2 * pad + row * legend.entries.len() as i32 - legend.px(font_size * 0.3);
        Ok(legend)
    }

    fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    /// Padding, glyph width, glyph–text gap, row height (device pixels).
    fn metrics(&self) -> [i32; 4] {
        [
            self.px(8.0),
            self.px(26.0),
            self.px(8.0),
            self.px(self.font_size * 1.45),
        ]
    }

    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Size of the box in device pixels.
    pub fn size(&self) -> (i32, i32) {
        (self.w, self.h)
    }

    /// Candidate top-left corners in an area of `dim` pixels, in order of preference:
    /// upper right, upper left, lower right, lower left.
    pub fn corners(&self, (aw, ah): (u32, u32)) -> [(i32, i32); 4] {
        let (aw, ah) = (aw as i32, ah as i32);
        let inset = self.px(8.0);
        let (w, h) = (self.w, self.h);
        [
            (aw - inset - w, inset),
            (inset, inset),
            (aw - inset - w, ah - inset - h),
            (inset, ah - inset - h),
        ]
    }

    /// How many of `occupied` (pixels relative to the area) the box at `corner` hides.
    pub fn coverage(&self, corner: (i32, i32), occupied: &[(i32, i32)]) -> usize {
        let m = self.px(4.0);
        let (x0, y0) = corner;
        occupied
            .iter()
            .filter(|(x, y)| {
                *x >= x0 - m && *x <= x0 + self.w + m && *y >= y0 - m && *y <= y0 + self.h + m
            })
            .count()
    }

    /// The preferred corner hiding the fewest `occupied` points, and how many it hides.
    pub fn place(&self, dim: (u32, u32), occupied: &[(i32, i32)]) -> ((i32, i32), usize) {
        self.corners(dim)
            .into_iter()
            .enumerate()
            .map(|(i, c)| (self.coverage(c, occupied), i, c))
            .min()
            .map(|(n, _, c)| (c, n))
            .unwrap_or(((0, 0), 0))
    }

    /// Draws the framed legend with its top-left corner at `corner` of `area`.
    pub fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        corner: (i32, i32),
    ) -> Result<(), DrawError> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let [pad, glyph, gap, row] = self.metrics();
        let (x0, y0) = corner;
        let (x1, y1) = (x0 + self.w, y0 + self.h);
        let thin = self.px(1.0).max(1) as u32;
        area.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            WHITE.mix(0.9).filled(),
        ))?;
        area.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            RGBColor(0xbb, 0xbb, 0xbb).stroke_width(thin),
        ))?;
        let text = font(self.font_size, self.scale, false);
        for (i, e) in self.entries.iter().enumerate() {
            let cy = y0 + pad + row * i as i32 + self.px(self.font_size * 0.55);
            let gx = x0 + pad;
            if e.band {
                area.draw(&Rectangle::new(
                    [(gx, cy - self.px(6.0)), (gx + glyph, cy + self.px(6.0))],
                    e.color.mix(0.25).filled(),
                ))?;
            }
            let stroke = self.px(2.0).max(1) as u32;
            match e.marker {
                Some(m) => m.draw(
                    area,
                    (gx + glyph / 2, cy),
                    self.px(self.font_size * 0.4),
                    e.color,
                    stroke,
                )?,
                None => area.draw(&PathElement::new(
                    vec![(gx, cy), (gx + glyph, cy)],
                    e.color.stroke_width(stroke),
                ))?,
            }
            area.draw(&Text::new(
                e.label.clone(),
                (gx + glyph + gap, cy),
                text.pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        Ok(())
    }
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
