//! The boxed legend of the bifurcation diagram: rows of mixed glyphs (lines, dashes, markers)
//! in the plot corner that hides the fewest drawn pixels.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::lines::{dashed_line, line, DASH};
use super::marks::MarkShape;
use crate::plot::{font, text_width, Area, Drawn, Surface};

/// What a legend row shows before its label.
#[derive(Debug, Clone, Copy)]
pub(super) enum Glyph {
    Line(RGBColor),
    Dashed(RGBColor),
    Mark(MarkShape, RGBColor),
}

/// A framed legend of `rows` (glyph, label) in the corner of `frame` (a plot area with its own
/// pixel origin) that hides the fewest `occupied` pixels; upper right preferred.
pub(super) fn boxed_legend<DB: DrawingBackend>(
    frame: &Area<DB>,
    surface: Surface,
    rows: &[(Glyph, String)],
    occupied: &[(i32, i32)],
    font_size: f64,
) -> Drawn {
    if rows.is_empty() {
        return Ok(());
    }
    let px = |v: f64| surface.px(v);
    let (pad, glyph, gap, row) = (px(8.0), px(30.0), px(8.0), px(font_size * 1.45));
    let text_w = rows
        .iter()
        .map(|(_, l)| text_width(l, font_size, false, surface.scale))
        .fold(0.0, f64::max);
    let w = pad + glyph + gap + px(text_w) + pad;
    let h = 2 * pad + row * rows.len() as i32 - px(font_size * 0.3);
    let (aw, ah) = frame.dim_in_pixel();
    let (aw, ah) = (aw as i32, ah as i32);
    let inset = px(8.0);
    let corners = [
        (aw - inset - w, inset),
        (inset, inset),
        (aw - inset - w, ah - inset - h),
        (inset, ah - inset - h),
    ];
    let m = px(4.0);
    let hidden = |(x0, y0): (i32, i32)| {
        occupied
            .iter()
            .filter(|(x, y)| *x >= x0 - m && *x <= x0 + w + m && *y >= y0 - m && *y <= y0 + h + m)
            .count()
    };
    let (x0, y0) = corners
        .iter()
        .enumerate()
        .min_by_key(|(i, c)| (hidden(**c), *i))
        .map(|(_, c)| *c)
        .unwrap_or((inset, inset));
    let thin = surface.stroke(1.0);
    frame.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        WHITE.mix(0.9).filled(),
    ))?;
    frame.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        RGBColor(0xbb, 0xbb, 0xbb).stroke_width(thin),
    ))?;
    let text = font(font_size, surface.scale, false);
    let stroke = surface.stroke(2.0);
    for (i, (g, label)) in rows.iter().enumerate() {
        let cy = y0 + pad + row * i as i32 + px(font_size * 0.55);
        let gx = x0 + pad;
        match *g {
            Glyph::Line(c) => line(frame, vec![(gx, cy), (gx + glyph, cy)], c, stroke, surface)?,
            Glyph::Dashed(c) => dashed_line(
                frame,
                &[(gx, cy), (gx + glyph, cy)],
                c,
                stroke,
                DASH,
                surface,
            )?,
            Glyph::Mark(s, c) => {
                s.draw(frame, (gx + glyph / 2, cy), px(6.0), c, surface.stroke(1.0))?
            }
        }
        frame.draw(&Text::new(
            label.clone(),
            (gx + glyph + gap, cy),
            text.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// Appends the pixels of the polyline `pixels` to `out`, with points every `step` device pixels
/// between its vertices: what a legend must not hide, however sparse the curve's points.
pub(super) fn trace(pixels: &[(i32, i32)], step: i32, out: &mut Vec<(i32, i32)>) {
    out.extend(pixels.first());
    for w in pixels.windows(2) {
        let (a, b) = (w[0], w[1]);
        let n = ((b.0 - a.0).abs().max((b.1 - a.1).abs()) / step).max(1);
        out.extend((1..=n).map(|k| (a.0 + (b.0 - a.0) * k / n, a.1 + (b.1 - a.1) * k / n)));
    }
}
