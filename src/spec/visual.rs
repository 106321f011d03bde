//! The visual lab's spec tables: `[animate]` (kind = "animate") and `[figures]` (the still
//! figures a `simulate` or `animate` run can draw besides its own).

use super::{positive, SpecError};
use crate::analysis::{AnimateOptions, AnimateStyle};
use crate::plot::lab::TraceColour;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Largest image side (pixels).
pub const MAX_SIDE: u32 = 4096;
/// Smallest image side (pixels).
pub const MIN_SIDE: u32 = 16;
/// Most frames an animation may have.
pub const MAX_FRAMES: usize = 20_000;
/// Most pixels over all frames (width × height × frames): about 1 GB of RGB to render.
pub const MAX_FRAME_PIXELS: f64 = 1.0e9;
/// Highest frame rate: GIF delays are whole centiseconds, and browsers slow down delays
/// under 2 cs.
pub const MAX_FPS: f64 = 50.0;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnimateSpec {
    /// Frames per second (default 25).
    pub fps: Option<f64>,
    /// Length of the animation, s of wall time (default 10).
    pub duration: Option<f64>,
    /// Speed multiplier α: model seconds per second of animation (default 1).
    pub speed: Option<f64>,
    /// Sub-steps S per frame: δt = α / (fps · S) (default 10).
    pub substeps: Option<u64>,
    /// Link ends (1-based) that leave a fading trace (default: the tip).
    pub trace: Option<Vec<usize>>,
    /// Model time (s) a trace takes to fade out (default 2).
    pub trace_time: Option<f64>,
    /// Image size in pixels (default 600 × 600).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Colours as "#rrggbb".
    pub background: Option<String>,
    pub chain_colour: Option<String>,
    pub bob_colour: Option<String>,
    pub trace_colours: Option<Vec<String>>,
    /// Animated GIF to write.
    pub gif: Option<PathBuf>,
    /// Folder for the PNG frame sequence.
    pub frames: Option<PathBuf>,
}

/// Parses "#rrggbb" (or "rrggbb").
pub fn parse_colour(field: &str, s: &str) -> Result<[u8; 3], SpecError> {
    let hex = s.strip_prefix('#').unwrap_or(s);
    let bad = || SpecError::new(field, format!("`{s}` is not a colour (expected #rrggbb)"));
    if hex.len() != 6 || !hex.is_ascii() {
        return Err(bad());
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok([byte(0)?, byte(2)?, byte(4)?])
}

/// Checks a 1-based link list against a chain of `n` links; returns 0-based indices.
fn links(field: &str, list: &[usize], n: usize) -> Result<Vec<usize>, SpecError> {
    list.iter()
        .enumerate()
        .map(|(i, &l)| {
            if l == 0 || l > n {
                Err(SpecError::new(
                    format!("{field}[{}]", i + 1),
                    format!("there is no link {l}: the chain has links 1 to {n}"),
                ))
            } else {
                Ok(l - 1)
            }
        })
        .collect()
}

impl AnimateSpec {
    /// The validated options for a chain of `n` links.
    pub fn options(&self, n: usize) -> Result<AnimateOptions, SpecError> {
        let fps = positive("animate.fps", self.fps.unwrap_or(25.0))?;
        if fps > MAX_FPS {
            return Err(SpecError::new(
                "animate.fps",
                format!("must be <= {MAX_FPS} (got {fps}): GIF delays are whole centiseconds"),
            ));
        }
        let duration = positive("animate.duration", self.duration.unwrap_or(10.0))?;
        let speed = positive("animate.speed", self.speed.unwrap_or(1.0))?;
        let substeps = self.substeps.unwrap_or(10);
        if substeps == 0 || substeps > 100_000 {
            return Err(SpecError::new(
                "animate.substeps",
                format!("must be between 1 and 100000 (got {substeps})"),
            ));
        }
        let frames = (duration * fps).round();
        if frames > MAX_FRAMES as f64 {
            return Err(SpecError::new(
                "animate.duration",
                format!("duration × fps = {frames} frames; the limit is {MAX_FRAMES}"),
            ));
        }
        let width = self.width.unwrap_or(600);
        let height = self.height.unwrap_or(600);
        for (field, v) in [("animate.width", width), ("animate.height", height)] {
            if !(MIN_SIDE..=MAX_SIDE).contains(&v) {
                return Err(SpecError::new(
                    field,
                    format!("must be between {MIN_SIDE} and {MAX_SIDE} pixels (got {v})"),
                ));
            }
        }
        let pixels = f64::from(width) * f64::from(height) * frames.max(1.0);
        if pixels > MAX_FRAME_PIXELS {
            return Err(SpecError::new(
                "animate.width",
                format!(
                    "width × height × frames = {pixels:.3e} pixels; the limit is {MAX_FRAME_PIXELS:.0e} (make it smaller or shorter)"
                ),
            ));
        }
        let traces = links("animate.trace", self.trace.as_deref().unwrap_or(&[n]), n)?;
        let trace_time = self.trace_time.unwrap_or(2.0);
        if !(trace_time.is_finite() && trace_time >= 0.0) {
            return Err(SpecError::new(
                "animate.trace_time",
                format!("must be finite and >= 0 (got {trace_time})"),
            ));
        }
        let samples = frames * substeps as f64;
        if samples > 1e8 {
            return Err(SpecError::new(
                "animate.substeps",
                format!("frames × substeps = {samples:.3e} samples; the limit is 1e8"),
            ));
        }
        let mut style = AnimateStyle::default();
        for (field, value, target) in [
            (
                "animate.background",
                &self.background,
                &mut style.background,
            ),
            ("animate.chain_colour", &self.chain_colour, &mut style.chain),
            ("animate.bob_colour", &self.bob_colour, &mut style.bob),
        ] {
            if let Some(v) = value {
                *target = parse_colour(field, v)?;
            }
        }
        if let Some(list) = &self.trace_colours {
            if list.is_empty() {
                return Err(SpecError::new("animate.trace_colours", "is empty"));
            }
            style.traces = list
                .iter()
                .enumerate()
                .map(|(i, c)| parse_colour(&format!("animate.trace_colours[{}]", i + 1), c))
                .collect::<Result<_, _>>()?;
        }
        for (field, p) in [("animate.gif", &self.gif), ("animate.frames", &self.frames)] {
            if p.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
                return Err(SpecError::new(field, "is empty"));
            }
            if let Some(p) = p {
                super::no_nul(field, p)?;
            }
        }
        if let Some(g) = &self.gif {
            if g.extension().and_then(|e| e.to_str()) != Some("gif") {
                return Err(SpecError::new(
                    "animate.gif",
                    format!("`{}` must end in .gif", g.display()),
                ));
            }
        }
        Ok(AnimateOptions {
            fps,
            duration,
            speed,
            substeps,
            traces,
            trace_time,
            size: (width, height),
            style,
            gif: self.gif.clone(),
            frames: self.frames.clone(),
        })
    }
}

/// The `[figures]` table: still figures drawn from a run's trajectory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FiguresSpec {
    /// The long-time trace of a link end (.png or .svg).
    pub spirograph: Option<PathBuf>,
    /// The traced link end (1-based; default the tip).
    pub spirograph_link: Option<usize>,
    /// "time" (default) or "speed".
    pub spirograph_colour: Option<String>,
    /// Phase portraits θ_j–θ̇_j.
    pub phase: Option<PathBuf>,
    /// Links of the phase portraits (1-based; default all, up to 6).
    pub phase_links: Option<Vec<usize>>,
    /// The energy budget over time.
    pub energy_plot: Option<PathBuf>,
    #[serde(
        default,
        deserialize_with = "super::retired::energy_plot",
        skip_serializing_if = "Option::is_none"
    )]
    pub energy: Option<super::retired::Retired>,
}

/// Validated still figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub spirograph: Option<PathBuf>,
    pub spirograph_link: usize,
    pub spirograph_colour: TraceColour,
    pub phase: Option<PathBuf>,
    pub phase_links: Vec<usize>,
    pub energy: Option<PathBuf>,
}

impl Figures {
    /// Every figure path with its spec field.
    pub fn paths(&self) -> Vec<(&'static str, &PathBuf)> {
        [
            ("figures.spirograph", &self.spirograph),
            ("figures.phase", &self.phase),
            ("figures.energy_plot", &self.energy),
        ]
        .into_iter()
        .filter_map(|(f, p)| p.as_ref().map(|p| (f, p)))
        .collect()
    }
}

impl FiguresSpec {
    pub fn figures(&self, n: usize) -> Result<Figures, SpecError> {
        for (field, p) in [
            ("figures.spirograph", &self.spirograph),
            ("figures.phase", &self.phase),
            ("figures.energy_plot", &self.energy_plot),
        ] {
            if let Some(p) = p {
                super::figure_format(field, p)?;
            }
        }
        let spirograph_link = links(
            "figures.spirograph_link",
            &[self.spirograph_link.unwrap_or(n)],
            n,
        )?[0];
        let spirograph_colour = match self.spirograph_colour.as_deref() {
            None | Some("time") => TraceColour::Time,
            Some("speed") => TraceColour::Speed,
            Some(other) => {
                return Err(SpecError::new(
                    "figures.spirograph_colour",
                    format!("unknown colouring `{other}` (expected time or speed)"),
                ))
            }
        };
        let default: Vec<usize> = (1..=n.min(6)).collect();
        let phase_links = links(
            "figures.phase_links",
            self.phase_links.as_deref().unwrap_or(&default),
            n,
        )?;
        if phase_links.is_empty() {
            return Err(SpecError::new("figures.phase_links", "is empty"));
        }
        if phase_links.len() > 12 {
            return Err(SpecError::new(
                "figures.phase_links",
                format!("at most 12 panels (got {})", phase_links.len()),
            ));
        }
        Ok(Figures {
            spirograph: self.spirograph.clone(),
            spirograph_link,
            spirograph_colour,
            phase: self.phase.clone(),
            phase_links,
            energy: self.energy_plot.clone(),
        })
    }
}
