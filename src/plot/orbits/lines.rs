//! Lines in device pixels: solid (stamped on raster surfaces) and dashed, the dash pattern cut
//! along the curve's length.

use plotters::prelude::*;

use crate::plot::{stamp_polyline, Area, Drawn, Surface};

/// Cuts the polyline `points` (device pixels) into dashes `on` long with gaps `off` long,
/// measured along the line, so the pattern runs on across vertices. Each dash is a polyline of
/// at least two points; a line shorter than `on` is one dash.
pub fn dashes(points: &[(f64, f64)], on: f64, off: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    let Some(&first) = points.first() else {
        return out;
    };
    if !(on > 0.0 && off > 0.0) {
        return if points.len() >= 2 {
            vec![points.to_vec()]
        } else {
            out
        };
    }
    let mut phase = 0.0; // distance into the current dash or gap
    let mut drawing = true;
    let mut current = vec![first];
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = (b.0 - a.0).hypot(b.1 - a.1);
        let mut t = 0.0;
        while t < len {
            let limit = if drawing { on } else { off };
            let step = (limit - phase).min(len - t);
            t += step;
            phase += step;
            let f = t / len;
            let p = (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
            if drawing {
                current.push(p);
            }
            if phase >= limit - 1e-9 {
                phase = 0.0;
                if drawing {
                    out.push(std::mem::take(&mut current));
                } else {
                    current = vec![p];
                }
                drawing = !drawing;
            }
        }
    }
    if drawing && current.len() >= 2 {
        out.push(current);
    }
    out
}

/// Draws a polyline of device pixels `w` device pixels wide (stamped on raster surfaces, one
/// stroked path on vector ones; see [`crate::plot::draw_polyline`]).
pub(super) fn line<DB: DrawingBackend>(
    area: &Area<DB>,
    pixels: Vec<(i32, i32)>,
    colour: RGBColor,
    w: u32,
    surface: Surface,
) -> Drawn {
    if surface.raster {
        stamp_polyline(area, pixels, colour, w)
    } else {
        area.draw(&PathElement::new(pixels, colour.stroke_width(w)))?;
        Ok(())
    }
}

/// Draws the polyline `pixels` dashed (dash and gap lengths in logical pixels).
pub(super) fn dashed_line<DB: DrawingBackend>(
    area: &Area<DB>,
    pixels: &[(i32, i32)],
    colour: RGBColor,
    w: u32,
    (on, off): (f64, f64),
    surface: Surface,
) -> Drawn {
    let pts: Vec<(f64, f64)> = pixels
        .iter()
        .map(|&(x, y)| (f64::from(x), f64::from(y)))
        .collect();
    for dash in dashes(&pts, on * surface.scale, off * surface.scale) {
        let px = dash
            .iter()
            .map(|&(x, y)| (x.round() as i32, y.round() as i32))
            .collect();
        line(area, px, colour, w, surface)?;
    }
    Ok(())
}

/// Dash and gap of unstable branches (logical pixels).
pub(super) const DASH: (f64, f64) = (7.0, 5.0);

/// The reference lines' colour (zero line, style rows of legends).
pub(super) const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashes_follow_the_length_across_vertices() {
        let pts = [(0.0, 0.0), (10.0, 0.0), (10.0, 14.0)];
        let d = dashes(&pts, 7.0, 5.0);
        // 24 px long: dashes over [0,7], [12,19], [24,24] (the last is empty, dropped).
        assert_eq!(d.len(), 2);
        assert_eq!(d[0], vec![(0.0, 0.0), (7.0, 0.0)]);
        assert_eq!(d[1], vec![(10.0, 2.0), (10.0, 9.0)]);
        // A dash that turns a corner keeps the corner.
        let d = dashes(&[(0.0, 0.0), (3.0, 0.0), (3.0, 10.0)], 7.0, 5.0);
        assert_eq!(d[0], vec![(0.0, 0.0), (3.0, 0.0), (3.0, 4.0)]);
    }
}
