//! The manifolds drawn over a map of `pendula map` (`map_file`): the map exactly as the map
//! kinds draw it ([`compose_map`]: its basin colours, swatches and subtitle), with the
//! branches, intersections and saddle stroked over its raster in the map's own (θ, θ̇) axes.
//! Stable branches are white and unstable ones black, so that both read over any basin
//! colour (the map's palette has blue and red, the plain figure's manifold colours).

use super::found::{wrapped, Manifolds};
use super::run::Background;
use crate::plot::map::{compose_map, MapFigure, Show};
use crate::plot::{save, stamp_polyline, Area, DataError, Drawn, PlotError, Render, Surface};
use plotters::prelude::*;
use plotters::style::RGBColor;
use std::f64::consts::{PI, TAU};
use std::path::Path;

const STABLE: RGBColor = RGBColor(0xff, 0xff, 0xff);
const UNSTABLE: RGBColor = RGBColor(0x00, 0x00, 0x00);
const CROSSING: RGBColor = RGBColor(0xff, 0xd7, 0x00);
const SADDLE: RGBColor = RGBColor(0xe0, 0x00, 0xe0);

/// A polyline over the map: its points in the map's data coordinates (NaN breaking it), its
/// colour and its width in logical pixels.
type Stroke = (Vec<(f64, f64)>, RGBColor, f64);

/// A map figure with polylines over its raster.
struct OverMap<'a> {
    map: MapFigure<'a>,
    lines: Vec<Stroke>,
}

impl Render for OverMap<'_> {
    fn validate(&self) -> Result<(), DataError> {
        self.map.validate()
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        self.map.render(root, surface)?;
        let sc = surface.scale;
        let (dw, dh) = root.dim_in_pixel();
        // The raster's device rectangle, as MapFigure::render places it.
        let [left, top, pw, ph] = self
            .map
            .raster_rect((f64::from(dw) / sc, f64::from(dh) / sc));
        let (x0, y0) = (surface.px(left), surface.px(top));
        let (pwd, phd) = (
            f64::from(surface.px(pw).max(1)),
            f64::from(surface.px(ph).max(1)),
        );
        let (x, y) = (&self.map.x, &self.map.y);
        let inside = |p: &(f64, f64)| {
            p.0.is_finite()
                && p.1.is_finite()
                && (x.lo..=x.hi).contains(&p.0)
                && (y.lo..=y.hi).contains(&p.1)
        };
        let device = |p: &(f64, f64)| {
            (
                x0 + ((p.0 - x.lo) / (x.hi - x.lo) * pwd).round() as i32,
                y0 + phd as i32 - ((p.1 - y.lo) / (y.hi - y.lo) * phd).round() as i32,
            )
        };
        for (points, colour, width) in &self.lines {
            // Runs of points inside the window: a line leaving it is cut at its last point
            // inside (the points are a resolution apart, a pixel or two on the figure).
            for run in crate::plot::runs(points.len(), |i| inside(&points[i])) {
                if run.len() >= 2 {
                    let px: Vec<(i32, i32)> = points[run].iter().map(device).collect();
                    stamp_polyline(root, px, *colour, surface.stroke(*width))?;
                }
            }
        }
        Ok(())
    }
}

/// A cross of half-widths (dx, dy) at (t, w), as a NaN-broken polyline.
fn cross(out: &mut Vec<(f64, f64)>, (t, w): (f64, f64), (dx, dy): (f64, f64), diagonal: bool) {
    let nan = (f64::NAN, f64::NAN);
    if diagonal {
        out.extend([(t - dx, w - dy), (t + dx, w + dy), nan]);
        out.extend([(t - dx, w + dy), (t + dx, w - dy), nan]);
    } else {
        out.extend([(t - dx, w), (t + dx, w), nan, (t, w - dy), (t, w + dy), nan]);
    }
}

fn wrap(theta: f64) -> f64 {
    theta - TAU * ((theta + PI) / TAU).floor()
}

/// Draws `m`'s branches over its map `bg` to `path` (`.png` or `.svg`).
pub fn draw_over_map(m: &Manifolds, bg: &Background, path: &Path) -> Result<(), PlotError> {
    let r = &m.result;
    let composed = compose_map(&bg.header, &bg.data, Show::Default, None);
    let mut map = composed.figure();
    let sd = &r.saddle;
    map.title = m.title.clone();
    map.subtitle = format!(
        "manifolds of the saddle ({:.4}, {:.4}), λu = {:.4}, λs = {:.4}, over the map {} (release at t = 0, the stroboscopic phase): {}",
        sd.point[0], sd.point[1], sd.lambda_u, sd.lambda_s, bg.file, map.subtitle
    );
    let mut lines = Vec::new();
    for unstable in [false, true] {
        let mut pts = Vec::new();
        for b in r.branches.iter().filter(|b| b.curve.unstable == unstable) {
            let (x, y) = wrapped(b);
            pts.extend(x.into_iter().zip(y));
            pts.push((f64::NAN, f64::NAN));
        }
        let (colour, width) = if unstable {
            (UNSTABLE, 1.4)
        } else {
            (STABLE, 1.8)
        };
        lines.push((pts, colour, width));
    }
    let half = (0.012 * (map.x.hi - map.x.lo), 0.012 * (map.y.hi - map.y.lo));
    let mut marks = Vec::new();
    for c in &r.crossings {
        cross(
            &mut marks,
            (wrap(c.at.point[0]), c.at.point[1]),
            half,
            false,
        );
    }
    let mut saddle = Vec::new();
    cross(&mut saddle, (wrap(sd.point[0]), sd.point[1]), half, true);
    lines.push((marks, CROSSING, 2.0));
    lines.push((saddle, SADDLE, 2.5));
    for (label, colour) in [
        ("stable manifold".to_string(), STABLE),
        ("unstable manifold".to_string(), UNSTABLE),
        (format!("intersections ({})", r.crossings.len()), CROSSING),
        ("saddle".to_string(), SADDLE),
    ] {
        map.swatches.push((label, colour));
    }
    save(&OverMap { map, lines }, path, (1100, 900))
}
