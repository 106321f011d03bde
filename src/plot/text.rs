//! Text that always fits: titles and captions wrapped into balanced lines and, when need be,
//! shrunk, by the font's own metrics, so no text is ever cut by the canvas edge.

use super::{ensure_fonts, font, DrawError, Surface};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
