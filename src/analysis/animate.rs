//! `animate`: seed 002's time-scaled engine. A frame lasts Δt = 1/fps of wall time and advances
//! the model by Δt_eff = α·Δt (α the speed multiplier), split into S sub-steps δt = Δt_eff/S.
//! The trajectory is sampled at every sub-step, so traces are smooth however large α is, and
//! frame k shows sample k·S, at t_k = k·Δt_eff.

use super::{simulate, AnalysisError, SimulateOptions, Trajectory};
use crate::integrate::Method;
use crate::model::Chain;
use crate::observe::Observer;
use std::path::PathBuf;

/// An RGB colour.
pub type Rgb = [u8; 3];

/// Colours of an animation frame.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimateStyle {
    pub background: Rgb,
    /// Links and joints.
    pub chain: Rgb,
    /// The bobs (each link's lower end); a colour used nowhere else, so bobs can be found.
    pub bob: Rgb,
    /// One colour per traced link end, cycling.
    pub traces: Vec<Rgb>,
}

impl Default for AnimateStyle {
    fn default() -> Self {
        AnimateStyle {
            background: [0xff, 0xff, 0xff],
            chain: [0x33, 0x33, 0x33],
            bob: [0xd6, 0x27, 0x28],
            traces: vec![[0x1f, 0x77, 0xb4], [0x2c, 0xa0, 0x2c], [0xff, 0x7f, 0x0e]],
        }
    }
}

/// Options of an animation (validated by the spec).
#[derive(Debug, Clone, PartialEq)]
pub struct AnimateOptions {
    /// Frames per second of the animation (0 < fps ≤ 50).
    pub fps: f64,
    /// Length of the animation (s of wall time).
    pub duration: f64,
    /// Speed multiplier α: model seconds per wall second.
    pub speed: f64,
    /// Sub-steps S per frame.
    pub substeps: u64,
    /// Links (0-based) whose lower ends leave a trace.
    pub traces: Vec<usize>,
    /// Model time (s) over which a trace fades from full colour to the background.
    pub trace_time: f64,
    /// Image size in pixels (width, height).
    pub size: (u32, u32),
    pub style: AnimateStyle,
    /// Animated GIF to write.
    pub gif: Option<PathBuf>,
    /// Folder for a PNG frame sequence (frame-00000.png, …).
    pub frames: Option<PathBuf>,
}

impl AnimateOptions {
    /// Number of frames: duration × fps, rounded to the nearest whole frame.
    pub fn frame_count(&self) -> usize {
        (self.duration * self.fps).round().max(1.0) as usize
    }
    /// Δt_eff = α / fps: model time between frames (s).
    pub fn frame_dt(&self) -> f64 {
        self.speed / self.fps
    }
    /// δt = Δt_eff / S: model time between samples (and the RK4 step) (s).
    pub fn sample_dt(&self) -> f64 {
        self.frame_dt() / self.substeps as f64
    }
    /// The sample shown by frame k.
    pub fn frame_sample(&self, k: usize) -> usize {
        k * self.substeps as usize
    }
    /// Samples of trace behind the current one (those younger than `trace_time`).
    pub fn trace_samples(&self) -> usize {
        (self.trace_time / self.sample_dt()).round() as usize
    }
    /// Opacity of a trace point `age` model seconds old: 1 now, falling linearly to 0 at
    /// `trace_time` (the colour is blended towards the background by this weight).
    pub fn trace_alpha(&self, age: f64) -> f64 {
        if self.trace_time <= 0.0 {
            return 0.0;
        }
        (1.0 - age / self.trace_time).clamp(0.0, 1.0)
    }
}

/// Integrates the chain over the animation, sampled at every sub-step (see the module doc).
/// `method` is RK4 with dt = δt, or DOP853 sampled through its dense output.
pub fn animation_trajectory(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &AnimateOptions,
    observer: &mut dyn Observer,
) -> Result<Trajectory, AnalysisError> {
    let frames = opts.frame_count();
    // simulate needs t_end > 0; a one-frame animation integrates one frame and shows the first.
    let t_end = opts.frame_dt() * (frames.max(2) - 1) as f64;
    simulate(
        chain,
        method,
        x0,
        &SimulateOptions {
            t_end,
            dt_out: opts.sample_dt(),
        },
        observer,
    )
}
