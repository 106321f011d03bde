//! The `poincare` figure: surfaces of section as small-point scatters, one panel per energy
//! shell, the angle axis labelled in multiples of π.

use std::f64::consts::PI;
use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    begin_subtitled_figure, caption_font, draw_foot_legend, font, house_mesh, save, Area, Axis,
    DataError, Drawn, Header, PlotError, Render, Surface,
};
use crate::analysis::poincare::{
    describe_times, energy_bounds, PoincareOptions, PoincareResult, Variables, CHAOTIC_CLASS,
    NOT_SHOWN_CHAOTIC_CLASS,
};
use crate::model::Chain;

/// How points are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colouring {
    /// A distinct hue per orbit (golden-angle steps, so neighbours differ).
    Orbit,
    /// Chaotic orbits (λ_T above the threshold) in one grey (the sea), the ones not shown
    /// chaotic within their T in a hue each, drawn on top.
    Chaos,
}

/// One section: the crossings of each orbit in the (angle, speed) plane.
pub struct PoincarePanel {
    pub title: String,
    pub orbits: Vec<Vec<(f64, f64)>>,
    /// Per orbit, for [`Colouring::Chaos`].
    pub chaotic: Option<Vec<bool>>,
}

/// The figure: panels in a grid (up to 3 columns), shared labels.
pub struct PoincareFigure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub panels: Vec<PoincarePanel>,
    pub colouring: Colouring,
    /// Shown under the title, e.g. the criterion used for the chaos colouring.
    pub subtitle: String,
    /// The chaos colouring's legend: (chaotic, not shown chaotic) entries with their criterion.
    pub legend: (String, String),
}

impl PoincareFigure {
    /// The figure of a Poincaré result of `chain` run with `opts`, titled `title`: one panel
    /// per energy shell, in the plane of the sampled link.
    pub fn of_result(
        title: &str,
        chain: &Chain,
        opts: &PoincareOptions,
        r: &PoincareResult,
    ) -> PoincareFigure {
        let (x_label, y_label) = plane_labels(opts);
        let lyap = opts.orbit.lyapunov;
        let panels = r
            .shells
            .iter()
            .map(|s| PoincarePanel {
                title: panel_title(chain, s.energy),
                orbits: s
                    .orbits
                    .iter()
                    .map(|o| o.plane(chain, opts.sampling.link, opts.sampling.variables))
                    .collect(),
                chaotic: lyap.then(|| {
                    s.orbits
                        .iter()
                        .map(|o| o.chaotic(opts.chaos_threshold).unwrap_or(false))
                        .collect()
                }),
            })
            .collect();
        // The time the exponents were taken over, across all shells.
        let times = r
            .shells
            .iter()
            .filter_map(|s| s.lyapunov_times())
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
        let within = times.map_or(String::new(), |t| format!(" within {}", describe_times(t)));
        let threshold = opts.chaos_threshold;
        PoincareFigure {
            legend: (
                format!("{CHAOTIC_CLASS}: λ(T) > {threshold} s⁻¹"),
                format!(
                    "{NOT_SHOWN_CHAOTIC_CLASS}{within}: λ(T) ≤ {threshold} s⁻¹ (one colour each)"
                ),
            ),
            title: title.to_string(),
            x_label,
            y_label,
            panels,
            colouring: if lyap {
                Colouring::Chaos
            } else {
                Colouring::Orbit
            },
            subtitle: format!(
                "section {}; {} crossings per orbit{}{}",
                opts.section.describe(chain),
                opts.orbit.crossings,
                if opts.energies.is_empty() {
                    ""
                } else {
                    "; energy fraction (E − E_hanging)/(E_inverted − E_hanging)"
                },
                if lyap {
                    format!(
                        "; colour: finite-time Lyapunov exponent λ(T) over each orbit's own T{}: grey if > {} s⁻¹ (chaotic), else not shown chaotic within T",
                        times.map_or(String::new(), |t| format!(" ({})", describe_times(t))),
                        opts.chaos_threshold
                    )
                } else {
                    String::new()
                }
            ),
        }
    }
}

/// The axis labels of the sampled link's plane: angle, and momentum or velocity.
fn plane_labels(opts: &PoincareOptions) -> (String, String) {
    let j = super::subscript(&(opts.sampling.link + 1).to_string());
    let x = format!("θ{j} / rad");
    let y = match opts.sampling.variables {
        Variables::Momentum => format!("p{j} / (J s)"),
        Variables::Velocity => format!("dθ{j}/dt / (rad/s)"),
    };
    (x, y)
}

/// A shell's panel title: its energy and energy fraction (empty without an energy).
fn panel_title(chain: &Chain, energy: Option<f64>) -> String {
    match energy {
        Some(e) => {
            let (lo, hi) = energy_bounds(chain);
            format!(
                "E = {} J  (energy fraction {:.3})",
                format!("{e:.2}").replace('-', "\u{2212}"),
                (e - lo) / (hi - lo)
            )
        }
        None => String::new(),
    }
}

/// Draws the sections to `path` (`.png` or `.svg`); the size follows the panel count.
pub fn draw_poincare(fig: &PoincareFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, fig.size())
}

const CHAOTIC: RGBColor = RGBColor(0x80, 0x80, 0x80);

impl PoincareFigure {
    fn grid(&self) -> (usize, usize) {
        let k = self.panels.len().max(1);
        let cols = if k == 4 { 2 } else { k.min(3) };
        (cols, k.div_ceil(cols))
    }

    /// Logical size: 560 × 520 per panel plus title and legend bands.
    pub fn size(&self) -> (u32, u32) {
        let (c, r) = self.grid();
        if self.panels.len() == 1 {
            return (900, 860);
        }
        (c as u32 * 560 + 20, r as u32 * 520 + 110)
    }

    fn colour(&self, panel: &PoincarePanel, orbit: usize) -> RGBColor {
        match (self.colouring, &panel.chaotic) {
            (Colouring::Chaos, Some(c)) if c.get(orbit) == Some(&true) => CHAOTIC,
            _ => hue_colour(orbit),
        }
    }
}

/// A saturated, mid-lightness colour whose hue steps by the golden angle with `i`.
pub fn hue_colour(i: usize) -> RGBColor {
    let h = (i as f64 * 0.618_033_988_75).fract();
    hsl(h, 0.72, 0.42)
}

fn hsl(h: f64, s: f64, l: f64) -> RGBColor {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h * 6.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let u = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    RGBColor(u(r), u(g), u(b))
}

fn pi_label(v: f64) -> String {
    let k = (v / (PI / 2.0)).round() as i64;
    match k {
        0 => "0".into(),
        1 => "π/2".into(),
        -1 => "\u{2212}π/2".into(),
        2 => "π".into(),
        -2 => "\u{2212}π".into(),
        k if k % 2 == 0 => format!("{}π", k / 2).replace('-', "\u{2212}"),
        k => format!("{k}π/2").replace('-', "\u{2212}"),
    }
}

impl Render for PoincareFigure {
    fn validate(&self) -> Result<(), DataError> {
        if self.panels.is_empty() {
            return Err(DataError::Empty {
                what: "Poincaré sections".into(),
            });
        }
        for p in &self.panels {
            if p.orbits.iter().all(|o| o.is_empty()) {
                return Err(DataError::Empty {
                    what: format!("section `{}` (no crossings)", p.title),
                });
            }
            if let Some(c) = &p.chaotic {
                if c.len() != p.orbits.len() {
                    return Err(DataError::LengthMismatch {
                        what: "chaos flags".into(),
                        expected: p.orbits.len(),
                        found: c.len(),
                    });
                }
            }
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let px = |v: f64| surface.px(v);
        let (Header { w, h, extra }, sub_h) =
            begin_subtitled_figure(root, surface, &self.title, &self.subtitle)?;
        let legend_h = if self.colouring == Colouring::Chaos {
            36.0
        } else {
            0.0
        };
        let top = 50.0 + extra + sub_h.max(8.0) - 2.0;
        let (cols, rows) = self.grid();
        let cell_w = (w - 10.0) / cols as f64;
        let cell_h = (h - top - legend_h - 6.0) / rows as f64;
        for (k, panel) in self.panels.iter().enumerate() {
            let (r, c) = (k / cols, k % cols);
            let area = root.clone().shrink(
                (px(5.0 + c as f64 * cell_w), px(top + r as f64 * cell_h)),
                (px(cell_w) as u32, px(cell_h) as u32),
            );
            self.draw_panel(root, &area, surface, panel, cell_w)?;
        }
        if self.colouring == Colouring::Chaos {
            draw_foot_legend(
                root,
                surface,
                &self.legend_entries(),
                (w, h),
                (legend_h, 2.0),
                16.0,
            )?;
        }
        Ok(())
    }
}

impl PoincareFigure {
    /// The chaos colouring's legend: the regular orbits' entry shows the colours of the first
    /// (up to four) regular orbits drawn, the chaotic entry their grey; an entry no orbit has
    /// is left out.
    fn legend_entries(&self) -> Vec<(Vec<RGBColor>, String)> {
        let mut regular: Vec<RGBColor> = Vec::new();
        let mut chaotic = false;
        for panel in &self.panels {
            for i in 0..panel.orbits.len() {
                let colour = self.colour(panel, i);
                if colour == CHAOTIC {
                    chaotic = true;
                } else if regular.len() < 4 && !regular.contains(&colour) {
                    regular.push(colour);
                }
            }
        }
        let mut entries = Vec::new();
        if !regular.is_empty() {
            entries.push((regular, self.legend.1.clone()));
        }
        if chaotic {
            entries.push((vec![CHAOTIC], self.legend.0.clone()));
        }
        entries
    }
}

impl PoincareFigure {
    /// One section in `area` (`cell_w` logical pixels wide): its captioned chart, the angle
    /// axis in multiples of π/2, then the crossings.
    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        area: &Area<DB>,
        surface: Surface,
        panel: &PoincarePanel,
        cell_w: f64,
    ) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let thin = surface.stroke(1.0);
        let ys = panel.orbits.iter().flatten().map(|p| p.1);
        let y_axis = Axis::fit(ys, false, 0.04, 7, "momentum")?;
        let x_axis = Axis::linear(-PI, PI, 4);
        let mut chart = ChartBuilder::on(area)
            .caption(
                panel.title.clone(),
                caption_font(&panel.title, cell_w - 20.0, 17.0, scale),
            )
            .margin(px(8.0))
            .x_label_area_size(px(48.0))
            .y_label_area_size(px(70.0))
            .build_cartesian_2d(x_axis, y_axis.clone())?;
        let y_fmt = |v: &f64| y_axis.label(*v);
        let x_fmt = |_: &f64| String::new();
        house_mesh(&mut chart, thin, scale, (14.0, 16.0))
            .disable_x_mesh()
            .x_labels(0)
            .y_label_formatter(&y_fmt)
            .x_label_formatter(&x_fmt)
            .x_desc(crate::plot::labels::x_desc(self.x_label.clone()))
            .y_desc(crate::plot::labels::y_desc(self.y_label.clone()))
            .draw()?;
        angle_axis(root, &chart, surface, y_axis.bounds())?;
        self.crossings(chart.plotting_area(), surface, panel)
    }

    /// Every crossing as one dot (a square of about one logical pixel on bitmaps), chaotic
    /// orbits first so the regular curves stay visible on top of the sea.
    fn crossings<DB: DrawingBackend>(
        &self,
        plot: &DrawingArea<DB, Cartesian2d<Axis, Axis>>,
        surface: Surface,
        panel: &PoincarePanel,
    ) -> Drawn {
        let dot = (surface.scale * 1.15).round().max(1.0) as i32;
        // Chaotic orbits first, so the regular curves stay visible on top of the sea.
        let mut order: Vec<usize> = (0..panel.orbits.len()).collect();
        if let Some(ch) = &panel.chaotic {
            order.sort_by_key(|&i| !ch[i]);
        }
        let screen = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        for i in order {
            let colour = self.colour(panel, i).filled();
            for p in &panel.orbits[i] {
                if !(p.0.is_finite() && p.1.is_finite()) {
                    continue;
                }
                let (x, y) = plot.map_coordinate(p);
                let (x, y) = (x - ox, y - oy);
                if surface.raster {
                    screen.draw(&Rectangle::new(
                        [
                            (x - dot / 2, y - dot / 2),
                            (x - dot / 2 + dot, y - dot / 2 + dot),
                        ],
                        colour,
                    ))?;
                } else {
                    screen.draw(&Circle::new((x, y), 1, colour))?;
                }
            }
        }
        Ok(())
    }
}

/// The angle axis in multiples of π/2: grid lines, tick marks and labels drawn by hand
/// (plotters would label it in decimals); `(ylo, yhi)` is the y axis' range.
fn angle_axis<DB: DrawingBackend>(
    root: &Area<DB>,
    chart: &ChartContext<'_, DB, Cartesian2d<Axis, Axis>>,
    surface: Surface,
    (ylo, yhi): (f64, f64),
) -> Drawn {
    let scale = surface.scale;
    let px = |v: f64| surface.px(v);
    let thin = surface.stroke(1.0);
    let plot = chart.plotting_area();
    for i in -2..=2 {
        let v = f64::from(i) * PI / 2.0;
        plot.draw(&PathElement::new(
            vec![(v, ylo), (v, yhi)],
            RGBColor(0xe4, 0xe4, 0xe4).stroke_width(thin),
        ))?;
        let (sx, sy) = chart.backend_coord(&(v, ylo));
        root.draw(&Text::new(
            pi_label(v),
            (sx, sy + px(8.0)),
            font(14.0, scale, false).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
        root.draw(&PathElement::new(
            vec![(sx, sy), (sx, sy + px(4.0))],
            RGBColor(0x44, 0x44, 0x44).stroke_width(thin),
        ))?;
    }
    Ok(())
}
