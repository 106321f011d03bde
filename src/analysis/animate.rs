//! `animate`: the time-scaled engine of docs/physics.md §6. A frame lasts Δt = 1/fps of wall time and advances
//! the model by Δt_eff = α·Δt (α the speed multiplier), split into S sub-steps δt = Δt_eff/S.
//! The trajectory is sampled at every sub-step, so traces are smooth however large α is, and
//! frame k shows sample k·S, at t_k = k·Δt_eff.

use super::{simulate, AnalysisError, SimulateOptions, Trajectory};
use crate::integrate::Method;
use crate::model::{Chain, System};
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

/// What an animation draws of a trajectory, evaluated once: the lab-frame joint positions at
/// every sample (for the chain and its traces) and, at every frame, each link's kinetic energy
/// and the total energy (for the side panel).
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationKinematics {
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Joints per sample: the pivot (where a drive has moved it), then each link's lower end.
    pub joints_per_sample: usize,
    /// Joint positions (m, lab frame, y up), sample-major: sample i's joints are
    /// `joints[i * joints_per_sample..(i + 1) * joints_per_sample]`.
    pub joints: Vec<[f64; 2]>,
    /// Per link: whether it is a rod (a body with its own moment of inertia) rather than a point.
    pub rods: Vec<bool>,
    /// The chain's total length plus the pivot drive's reach (m): the radius the view must hold.
    pub reach: f64,
    /// Per frame, each link's kinetic energy (J).
    pub link_kinetic: Vec<Vec<f64>>,
    /// Per frame, the total mechanical energy (J).
    pub energy: Vec<f64>,
}

impl AnimationKinematics {
    /// Evaluates the kinematics of `tr`, a trajectory of `chain` sampled for `opts`
    /// ([`animation_trajectory`]); frames past the last sample are left out.
    pub fn new(chain: &Chain, tr: &Trajectory, opts: &AnimateOptions) -> AnimationKinematics {
        let per = chain.links() + 1;
        let mut joints = Vec::with_capacity(tr.len() * per);
        for i in 0..tr.len() {
            let theta = tr.theta.row(i).to_vec();
            joints.extend(chain.joint_positions(tr.t[i], &theta));
        }
        let last = (tr.len() - 1) / opts.substeps as usize + 1;
        let frames = opts.frame_count().min(last);
        let (mut link_kinetic, mut energy) = (Vec::new(), Vec::new());
        for k in 0..frames {
            let i = opts.frame_sample(k);
            let x: Vec<f64> = tr
                .theta
                .row(i)
                .iter()
                .chain(tr.omega.row(i).iter())
                .copied()
                .collect();
            link_kinetic.push(chain.link_kinetic_energies(&x));
            energy.push(chain.energy(tr.t[i], &x));
        }
        let links = &chain.params().links;
        AnimationKinematics {
            t: tr.t.clone(),
            joints_per_sample: per,
            joints,
            rods: links.iter().map(|l| l.inertia > 0.0).collect(),
            reach: links.iter().map(|l| l.length).sum::<f64>() + chain.params().drive.pivot_reach(),
            link_kinetic,
            energy,
        }
    }

    /// Frames with a sample (the animation's frame count, bounded by the samples integrated).
    pub fn frames(&self) -> usize {
        self.energy.len()
    }

    /// The joints (m) at sample i: the pivot first.
    pub fn joints_at(&self, i: usize) -> &[[f64; 2]] {
        &self.joints[i * self.joints_per_sample..(i + 1) * self.joints_per_sample]
    }
}

/// The path of one link's lower end over a trajectory, in the lab frame (a driven pivot's
/// motion included): what the visual lab's spirograph draws.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkEndPath {
    /// The link (0-based) whose lower end is traced.
    pub link: usize,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Position (m, y up) at every sample.
    pub position: Vec<[f64; 2]>,
    /// Speed |ṙ| (m/s) at every sample.
    pub speed: Vec<f64>,
    /// Length of the links down to the traced one plus the pivot drive's reach (m).
    pub reach: f64,
}

impl LinkEndPath {
    /// The path of link `link`'s lower end over `tr`, a trajectory of `chain`.
    pub fn new(chain: &Chain, tr: &Trajectory, link: usize) -> LinkEndPath {
        let n = chain.links();
        let links = &chain.params().links;
        let pivot = chain.params().drive.pivot;
        let mut position = Vec::with_capacity(tr.len());
        let mut speed = Vec::with_capacity(tr.len());
        for k in 0..tr.len() {
            let t = tr.t[k];
            let ([mut x, mut y], [mut vx, mut vy]) =
                pivot.map_or(([0.0; 2], [0.0; 2]), |p| (p.position(t), p.velocity(t)));
            for j in 0..=link.min(n - 1) {
                let (s, c) = tr.theta[[k, j]].sin_cos();
                let w = tr.omega[[k, j]];
                let l = links[j].length;
                x += l * s;
                y -= l * c;
                vx += l * c * w;
                vy += l * s * w;
            }
            position.push([x, y]);
            speed.push(vx.hypot(vy));
        }
        LinkEndPath {
            link,
            t: tr.t.clone(),
            position,
            speed,
            reach: links[..=link].iter().map(|l| l.length).sum::<f64>()
                + chain.params().drive.pivot_reach(),
        }
    }
}
