//! A map figure composed from a map's header and data (what `pendula map --plot` and
//! `pendula render` draw): which variable is shown, its colour scale and swatches, the basin
//! colours of final-state maps, the axis labels and the subtitle naming the model and run.

use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

use plotters::style::RGBColor;

use super::{
    draw_map, draw_map_panels, ColourMap, ColourScale, MapAxis, MapFigure, DIVERGED_COLOR,
    FORBIDDEN_COLOR, MISSING_COLOR, NEVER_COLOR,
};
use crate::analysis::map::basins::{describe, label};
use crate::analysis::map::class::{self, NOT_COMPUTED};
use crate::analysis::map::kinds::{Figure, Scale};
use crate::analysis::map::{MapData, MapHeader, MapKindId};
use crate::plot::frequency_map::{draw_frequency_map, FrequencyMapFigure};
use crate::plot::{nice_range, subscript, PlotError};

/// Which variable of a map a figure shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// The kind's main figure (basins for final-state maps).
    Default,
    Basins,
    SettleTime,
    /// Link j (0-based).
    FinalAngle(usize),
    /// Lyapunov maps: λ alone (the default draws λ beside its standard error).
    Lyapunov,
    /// Lyapunov maps: the per-pixel standard error of λ alone; frequency maps: the error of
    /// the diffusion index alone ([`error_column`]).
    StandardError,
    /// Frequency maps: ω₂ against ω₁ coloured by the diffusion index
    /// ([`crate::plot::frequency_map`]) instead of the index over the initial conditions.
    FrequencyMap,
}

/// A variable name a map cannot draw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShowError {
    /// `final_angle<j>` with j outside the chain.
    #[error("`{name}`: expected final_angle1..final_angle{links}")]
    NoSuchLink { name: String, links: usize },
    /// Not a variable of this kind of map.
    #[error("`{name}` is not a variable this {kind} map can draw{hint}")]
    Unknown {
        name: String,
        kind: String,
        hint: &'static str,
    },
}

impl Show {
    /// The variable named `name` (`None`: the default) of a map with header `h`: final-state
    /// maps have `basins`, `settle_time` and `final_angle<j>` (j from 1); other kinds only their
    /// main variable.
    pub fn parse(name: Option<&str>, h: &MapHeader) -> Result<Show, ShowError> {
        let final_state = h.kind.facts().figure == Figure::Basins;
        let lyapunov = h.kind == MapKindId::Lyapunov;
        let frequency = h.kind == MapKindId::Frequency;
        Ok(match name {
            None => Show::Default,
            Some("frequency_map") if frequency => Show::FrequencyMap,
            Some("lyapunov") if lyapunov => Show::Lyapunov,
            Some("lyapunov_standard_error") if lyapunov => Show::StandardError,
            Some("diffusion_index_error") if frequency => Show::StandardError,
            Some("basins") if final_state => Show::Basins,
            Some("settle_time") if final_state => Show::SettleTime,
            Some(v) if final_state && v.starts_with("final_angle") => {
                let n = h.link_length.len();
                match v["final_angle".len()..].parse::<usize>() {
                    Ok(j) if (1..=n).contains(&j) => Show::FinalAngle(j - 1),
                    _ => {
                        return Err(ShowError::NoSuchLink {
                            name: v.into(),
                            links: n,
                        })
                    }
                }
            }
            Some(v) => {
                return Err(ShowError::Unknown {
                    name: v.into(),
                    kind: h.kind.name().to_string(),
                    hint: if final_state {
                        " (basins, settle_time, final_angle<j>)"
                    } else if lyapunov {
                        " (lyapunov, lyapunov_standard_error)"
                    } else if frequency {
                        " (frequency_map, diffusion_index_error, or leave --show out for the diffusion map beside its error)"
                    } else {
                        " (leave --show out)"
                    },
                })
            }
        })
    }
}

/// Draws variable `show` of a map (header `h`, arrays `data`) to `path` (`.png` or `.svg`),
/// with colour map `cmap`, else the variable's own.
pub fn draw_map_data(
    h: &MapHeader,
    data: &MapData,
    show: Show,
    cmap: Option<ColourMap>,
    path: &Path,
) -> Result<(), PlotError> {
    if show == Show::FrequencyMap {
        return draw_frequency_map(&frequency_map_figure(h, data), path);
    }
    let panels = compose_panels(h, data, show, cmap);
    let figures: Vec<MapFigure<'_>> = panels.iter().map(ComposedMap::figure).collect();
    if let [one] = figures.as_slice() {
        draw_map(one, path)
    } else {
        draw_map_panels(&figures, path)
    }
}

/// A frequency map's ω₂-against-ω₁ figure: the first half's two lowest fundamentals of every
/// computed pixel that has both (class 0: neither diverged nor forbidden nor missing), with its
/// diffusion index.
pub fn frequency_map_figure(h: &MapHeader, data: &MapData) -> FrequencyMapFigure {
    let w = data.aux_width;
    let n = w / 2;
    let points = if n >= 2 {
        (0..data.class.len())
            .filter(|&p| data.class[p] == class::NEVER)
            .map(|p| (data.aux[p * w], data.aux[p * w + 1], data.value[p]))
            .filter(|q| q.0.is_finite() && q.1.is_finite() && !q.2.is_nan())
            .collect()
    } else {
        Vec::new()
    };
    FrequencyMapFigure {
        title: format!("{}: ω₂ against ω₁", h.title),
        subtitle: format!(
            "{}\neach pixel at its fundamental angular frequencies ω₁ < ω₂ of the first half of the run, \
             coloured by its diffusion index (axes fit the middle 96 % of the pixels below {}); grey: resonances \
             ω₁:ω₂ of order ≤ 10",
            subtitle(h),
            crate::plot::frequency_map::REGULAR_BELOW
        ),
        points,
        order: 10,
    }
}

/// The panels of a figure: a Lyapunov map's default figure is λ with its standard error
/// beside it (where the file has the error: maps written before it existed have NaN there),
/// so the reader sees at once where the exponent can be trusted; every other figure is one
/// panel.
pub fn compose_panels(
    h: &MapHeader,
    data: &MapData,
    show: Show,
    cmap: Option<ColourMap>,
) -> Vec<ComposedMap> {
    let has_error = error_column(h).is_some_and(|c| {
        data.aux_width > c
            && (0..data.class.len()).any(|p| data.aux[p * data.aux_width + c].is_finite())
    });
    if show == Show::Default && has_error {
        let main = if h.kind == MapKindId::Lyapunov {
            Show::Lyapunov
        } else {
            Show::Default
        };
        vec![
            compose_map(h, data, main, cmap),
            compose_map(h, data, Show::StandardError, cmap),
        ]
    } else {
        vec![compose_map(h, data, show, cmap)]
    }
}

/// The aux column of a map's error beside its value: a Lyapunov map's standard error of λ, a
/// frequency map's `diffusion_index_error` (after ω of both halves); `None` for other kinds.
fn error_column(h: &MapHeader) -> Option<usize> {
    match h.kind {
        MapKindId::Lyapunov => Some(0),
        MapKindId::Frequency => Some(2 * h.link_length.len()),
        _ => None,
    }
}

/// A map figure's content, owned: [`ComposedMap::figure`] is what [`draw_map_data`] draws
/// (also for drawing into memory, [`crate::plot::render_rgb`]).
pub struct ComposedMap {
    title: String,
    subtitle: String,
    width: usize,
    height: usize,
    layers: Layers,
    x: MapAxis,
    y: MapAxis,
}

impl ComposedMap {
    pub fn figure(&self) -> MapFigure<'_> {
        MapFigure {
            title: self.title.clone(),
            subtitle: self.subtitle.clone(),
            width: self.width,
            height: self.height,
            class: &self.layers.class,
            values: &self.layers.values,
            x: self.x.clone(),
            y: self.y.clone(),
            scale: self.layers.scale.clone(),
            swatches: self.layers.swatches.clone(),
            rgb: self.layers.rgb.clone(),
        }
    }
}

/// Composes the figure of variable `show` of a map (see [`draw_map_data`]). A map without all
/// its tiles (a shard file) says so in the subtitle and gets a "not computed" swatch for its
/// hatched holes.
pub fn compose_map(
    h: &MapHeader,
    data: &MapData,
    show: Show,
    cmap: Option<ColourMap>,
) -> ComposedMap {
    let mut layers = layers(h, data, show);
    if let Some(c) = cmap {
        layers.scale.map = c;
    }
    if !h.is_flip() && layers.class.contains(&class::FORBIDDEN) {
        layers
            .swatches
            .push(("energetically forbidden".to_string(), FORBIDDEN_COLOR));
    }
    let mut subtitle = subtitle(h);
    if data.width < h.width || data.height < h.height {
        let step = h.width.div_ceil(data.width.max(1));
        subtitle += &format!(
            "\ndrawn from 1 pixel in {step} along each axis ({}x{} of {}x{})",
            data.width, data.height, h.width, h.height
        );
    }
    let done = h.tile_done.iter().filter(|&&d| d).count();
    if done < h.tile_done.len() {
        let shard = h
            .shard
            .map_or(String::new(), |(i, n)| format!(" (shard {i}/{n})"));
        subtitle += &format!(
            "\nincomplete: {done} of {} tiles{shard}, the hatched ones are not computed",
            h.tile_done.len()
        );
    }
    if layers.class.contains(&NOT_COMPUTED) {
        layers
            .swatches
            .push(("not computed (not in this file)".to_string(), MISSING_COLOR));
    }
    let (xl, xa) = axis_label(&h.x_name);
    let (yl, ya) = axis_label(&h.y_name);
    let title = if show == Show::StandardError && h.kind == MapKindId::Frequency {
        format!("{}: error of the diffusion index", h.title)
    } else if show == Show::StandardError {
        format!("{}: standard error", h.title)
    } else {
        h.title.clone()
    };
    ComposedMap {
        title,
        subtitle,
        width: data.width,
        height: data.height,
        layers,
        x: MapAxis {
            lo: h.window[0],
            hi: h.window[1],
            label: crate::plot::labels::x_desc(xl),
            angle: xa,
        },
        y: MapAxis {
            lo: h.window[2],
            hi: h.window[3],
            label: crate::plot::labels::y_desc(yl),
            angle: ya,
        },
    }
}

/// What a figure draws of a map: the values and the figure's own classes, the colour scale,
/// the swatches, and for categorical figures each pixel's colour.
struct Layers {
    values: Vec<f64>,
    class: Vec<u8>,
    scale: ColourScale,
    swatches: Vec<(String, RGBColor)>,
    rgb: Option<Vec<RGBColor>>,
}

fn layers(h: &MapHeader, data: &MapData, show: Show) -> Layers {
    match h.kind.facts().figure {
        Figure::Basins => final_state_layers(h, data, show),
        Figure::Flip => flip_layers(h, data),
        Figure::Value(_) if show == Show::StandardError => standard_error_layers(h, data),
        Figure::Value(scale) => value_layers(h, data, scale),
    }
}

/// Final-state maps: basins (the default), settle time, or a link's final angle.
fn final_state_layers(h: &MapHeader, data: &MapData, show: Show) -> Layers {
    // The figure's own classes: 0 (a value or NaN), 3 diverged, 255 missing.
    let class = data
        .class
        .iter()
        .map(|&c| match c {
            label::DIVERGED => class::DIVERGED,
            NOT_COMPUTED => NOT_COMPUTED,
            _ => 0,
        })
        .collect();
    if let Show::FinalAngle(j) = show {
        return Layers {
            values: (0..data.class.len())
                .map(|p| data.aux[p * data.aux_width + j])
                .collect(),
            class,
            scale: ColourScale {
                lo: -PI,
                hi: PI,
                log: false,
                label: format!("final θ{} mod 2π / rad", j + 1),
                map: ColourMap::Cyclic,
            },
            swatches: vec![],
            rgb: None,
        };
    }
    let values = data.value.clone();
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = nice_range(finite, 0.0).unwrap_or((0.0, 1.0));
    let scale = ColourScale {
        lo: lo.min(0.0),
        hi,
        log: false,
        label: "settle time / s".into(),
        map: ColourMap::Viridis,
    };
    let (rgb, swatches) = if show == Show::SettleTime {
        let never = (format!("unsettled by t = {} s", h.t_max), NEVER_COLOR);
        (None, vec![never])
    } else {
        let (c, s) = basin_colours(h, data);
        (Some(c), s)
    };
    Layers {
        values,
        class,
        scale,
        swatches,
        rgb,
    }
}

/// Flip-time maps: the first flip's time on a log scale.
fn flip_layers(h: &MapHeader, data: &MapData) -> Layers {
    let values: Vec<f64> = data
        .flip_step
        .iter()
        .zip(&data.class)
        .map(|(&k, &c)| {
            if k > 0 && c != class::FORBIDDEN {
                k as f64 * h.dt
            } else {
                f64::NAN
            }
        })
        .collect();
    let min = values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(f64::INFINITY, f64::min);
    let lo = if min.is_finite() {
        min.min(h.t_max * 0.5)
    } else {
        h.dt
    };
    let target = if h.flip_target == "any" {
        "any link".to_string()
    } else {
        format!("link {}", h.flip_target)
    };
    Layers {
        values,
        class: data.class.clone(),
        scale: ColourScale {
            lo,
            hi: h.t_max,
            log: true,
            label: format!("time of first flip ({target}) / s"),
            map: ColourMap::Viridis,
        },
        swatches: vec![
            (format!("no flip by t = {} s", h.t_max), NEVER_COLOR),
            ("energetically forbidden".to_string(), FORBIDDEN_COLOR),
        ],
        rgb: None,
    }
}

/// Maps of one value per pixel (energy error, SALI/GALI, MEGNO, FTLE, Lyapunov exponents) on
/// their kind's colour scale.
fn value_layers(h: &MapHeader, data: &MapData, scale: Scale) -> Layers {
    let values = data.value.clone();
    let mut class = data.class.clone();
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let label = |l: &str| MapKindId::figure_label(l, h.t_max);
    let scale = match scale {
        Scale::LogPositive { label: l } => {
            let pos: Vec<f64> = finite.filter(|v| *v > 0.0).collect();
            let hi = pos.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
            let lo = pos
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .max(hi * 1e-12);
            let lo = if lo.is_finite() && lo < hi {
                lo
            } else {
                hi / 10.0
            };
            ColourScale {
                lo,
                hi,
                log: true,
                label: label(l),
                map: ColourMap::Magma,
            }
        }
        Scale::LogFromRoundOff { label: l } => {
            // Log scale from round-off (1e-16) to the largest value (SALI ≤ √2, GALI ≤ 1).
            let hi = finite.fold(1e-15f64, f64::max).max(1.0);
            for c in class.iter_mut() {
                if ![class::DIVERGED, class::FORBIDDEN, NOT_COMPUTED].contains(c) {
                    *c = 0;
                }
            }
            ColourScale {
                lo: 1e-16,
                hi,
                log: true,
                label: label(l),
                map: ColourMap::Magma,
            }
        }
        Scale::Megno { label: l } => {
            // ⟨Y⟩ is 0 on stable periodic orbits, 2 on quasi-periodic ones and grows like λt/2 on
            // chaotic ones: a linear scale from 0 that keeps 2 in its lower part (larger values
            // saturate at the top colour).
            let hi = finite.fold(4.0f64, f64::max).min(16.0);
            ColourScale {
                lo: 0.0,
                hi,
                log: false,
                label: label(l),
                map: ColourMap::Viridis,
            }
        }
        Scale::Linear { label: l } => {
            let (lo, hi) = nice_range(finite, 0.0).unwrap_or((0.0, 1.0));
            ColourScale {
                lo,
                hi,
                log: false,
                label: label(l),
                map: ColourMap::Cividis,
            }
        }
    };
    Layers {
        values,
        class,
        scale,
        swatches: vec![],
        rgb: None,
    }
}

/// The standard error of λ per pixel (aux column 0 of a Lyapunov map) on a log scale: it
/// spans decades between regular pixels (tiny block-to-block spread) and chaotic ones.
fn standard_error_layers(h: &MapHeader, data: &MapData) -> Layers {
    let c = error_column(h).unwrap_or(0);
    let values: Vec<f64> = (0..data.class.len())
        .map(|p| data.aux[p * data.aux_width + c])
        .collect();
    let pos: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let hi = pos.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
    let lo = pos
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .max(hi * 1e-6);
    let (lo, hi) = if lo.is_finite() && lo < hi {
        (lo, hi)
    } else {
        (hi / 10.0, hi)
    };
    Layers {
        values,
        class: data.class.clone(),
        scale: ColourScale {
            lo,
            hi,
            log: true,
            label: if h.kind == MapKindId::Frequency {
                format!(
                    "error of the diffusion index over t ≤ {} s (halves' window-law errors)",
                    h.t_max
                )
            } else {
                format!("standard error of λ over {} s / (1/s)", h.t_max)
            },
            map: ColourMap::Magma,
        },
        swatches: vec![],
        rgb: None,
    }
}

const MAX_CATEGORIES: usize = 10;

/// Colours each pixel of a final-state map by its attractor: the class together with the net
/// turns (equilibria) or rotation numbers (periodic orbits), the most common first.
fn basin_colours(h: &MapHeader, data: &MapData) -> (Vec<RGBColor>, Vec<(String, RGBColor)>) {
    let nl = h.link_length.len();
    let m = data.aux_width;
    let key = |p: usize| -> (u8, Vec<i64>) {
        let c = data.class[p];
        let off = if c >= label::PERIODIC && c != label::DIVERGED {
            2 * nl
        } else {
            nl
        };
        let w = if c == label::UNSETTLED || c == label::DIVERGED || c == NOT_COMPUTED {
            vec![]
        } else {
            (0..nl)
                .map(|j| (data.aux[p * m + off + j] * 1e6).round() as i64)
                .collect()
        };
        (c, w)
    };
    let np = data.class.len();
    // Shares are of the computed pixels: a shard's holes are no state.
    let computed = data
        .class
        .iter()
        .filter(|&&c| c != NOT_COMPUTED)
        .count()
        .max(1) as f64;
    let mut counts: BTreeMap<(u8, Vec<i64>), u64> = Default::default();
    for p in 0..np {
        *counts.entry(key(p)).or_default() += 1;
    }
    let mut order: Vec<_> = counts
        .into_iter()
        .filter(|(k, _)| ![label::UNSETTLED, label::DIVERGED, NOT_COMPUTED].contains(&k.0))
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette = colorous::TABLEAU10;
    let other = RGBColor(0x5a, 0x5a, 0x5a);
    let mut colour_of: BTreeMap<(u8, Vec<i64>), RGBColor> = Default::default();
    let mut swatches = Vec::new();
    for (i, (k, n)) in order.iter().enumerate() {
        let frac = 100.0 * *n as f64 / computed;
        if i < MAX_CATEGORIES - 1 || order.len() == MAX_CATEGORIES {
            let c = palette[i % palette.len()];
            let c = RGBColor(c.r, c.g, c.b);
            colour_of.insert(k.clone(), c);
            let nums: Vec<String> = k.1.iter().map(|&v| format!("{}", v as f64 / 1e6)).collect();
            let what = if k.0 >= label::PERIODIC {
                "rotation"
            } else {
                "turns"
            };
            swatches.push((
                format!(
                    "{}, {what} ({}): {frac:.1}%",
                    describe(k.0),
                    nums.join(", ")
                ),
                c,
            ));
        } else {
            colour_of.insert(k.clone(), other);
        }
    }
    if order.len() > MAX_CATEGORIES {
        let rest: u64 = order[MAX_CATEGORIES - 1..].iter().map(|x| x.1).sum();
        swatches.push((
            format!(
                "{} other states: {:.1}%",
                order.len() - (MAX_CATEGORIES - 1),
                100.0 * rest as f64 / computed
            ),
            other,
        ));
    }
    let unsettled = data
        .class
        .iter()
        .filter(|&&c| c == label::UNSETTLED)
        .count();
    if unsettled > 0 {
        swatches.push((
            format!(
                "{}: {:.1}%",
                describe(label::UNSETTLED),
                100.0 * unsettled as f64 / computed
            ),
            FORBIDDEN_COLOR,
        ));
    }
    if data.class.contains(&label::DIVERGED) {
        swatches.push(("diverged".into(), DIVERGED_COLOR));
    }
    let rgb = (0..np)
        .map(|p| match data.class[p] {
            label::UNSETTLED => FORBIDDEN_COLOR,
            label::DIVERGED => DIVERGED_COLOR,
            NOT_COMPUTED => MISSING_COLOR,
            _ => colour_of[&key(p)],
        })
        .collect();
    (rgb, swatches)
}

/// An axis label for a state component (`theta1` → "θ₁ at release / rad") and whether it is
/// an angle.
fn axis_label(name: &str) -> (String, bool) {
    if let Some(i) = name.strip_prefix("theta") {
        (format!("θ{} at release / rad", subscript(i)), true)
    } else if let Some(i) = name.strip_prefix("omega") {
        (format!("ω{} at release / (rad/s)", subscript(i)), false)
    } else {
        (name.to_string(), false)
    }
}

/// `1 kg, 2 kg` or, for a repeated value, `1 kg each`.
fn fmt_list(v: &[f64], unit: &str) -> String {
    let mut u = v.to_vec();
    u.dedup();
    let s: Vec<String> = u.iter().map(|x| format!("{x}")).collect();
    if u.len() == 1 && v.len() > 1 {
        format!("{} {unit} each", s[0])
    } else {
        format!("{} {unit}", s.join(", "))
    }
}

/// The run's description under the title: the model, its forcing, the release state and grid.
fn subtitle(h: &MapHeader) -> String {
    let n_links = h.link_length.len();
    let at_rest = h.base_state[n_links..].iter().all(|&w| w == 0.0)
        && h.shell.is_none()
        && !h.x_name.starts_with("omega")
        && !h.y_name.starts_with("omega");
    let shell = h.shell.as_ref().map_or(String::new(), |(e, v)| {
        format!(
            ", on the energy shell E = {e} J ({} ≥ 0 solved)",
            axis_label(v).0.split(' ').next().unwrap_or(v)
        )
    });
    format!(
        "{} pendulum ({} link{}: m = {}, l = {}, g = {} m/s²{}){}  ·  {} dt = {} s, {}  ·  {} × {} pixels",
        h.model_name,
        n_links,
        if n_links == 1 { "" } else { "s" },
        fmt_list(&h.link_mass, "kg"),
        fmt_list(&h.link_length, "m"),
        h.gravity,
        forcing(h),
        if at_rest { ", released from rest" } else { shell.as_str() },
        if h.kind == MapKindId::Frequency {
            "Gauss–Legendre (order 6)"
        } else {
            "RK4"
        },
        h.dt,
        h.kind.span(h.t_max),
        h.width,
        h.height
    )
}

/// Damping and drives, each as `, what = values` (empty for a free chain).
fn forcing(h: &MapHeader) -> String {
    let mut forcing = String::new();
    for (v, what) in [
        (&h.damping_absolute, "γ"),
        (&h.damping_joint, "joint damping"),
    ] {
        if v.iter().any(|&c| c != 0.0) {
            forcing += &format!(", {what} = {}", fmt_list(v, "N·m·s"));
        }
    }
    if let Some((a, w)) = h.torque {
        forcing += &format!(", torque {a} cos({w} t) N·m");
    }
    if let Some((x, y, w)) = h.pivot {
        forcing += &format!(", pivot ({x}, {y}) cos({w} t) m");
    }
    forcing
}
