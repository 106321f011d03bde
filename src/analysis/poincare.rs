//! Poincaré sections: where orbits of a planar chain cross a surface, located on DOP853's dense
//! output to near round-off, for many orbits in parallel (physics.md §5).
//!
//! A [`Section`] is a signed-distance function kept out of the model: a coordinate hyperplane
//! (on an angle it is taken modulo 2π: g = sin(θ − c) on the branch cos(θ − c) > 0, so the ±π
//! cut never makes a crossing), a general hyperplane a·x = b, or a stroboscopic section
//! t = t₀ + k·T for driven chains. [`shell_initial_conditions`] starts orbits on an angle section
//! at one energy; [`section_orbits`] runs them; [`poincare`] does both for several energies.
//!
//! Crossings inside one step are never lost to a coarse step: each step is split so that the
//! section angle moves by at most π/4 per piece, and a piece whose ends lie on one side but whose
//! end slopes say g approached and then receded (a graze) is searched for its extremum; if that
//! dips across the section, both roots are located. Reference for the method: M. Hénon, "On the
//! numerical computation of Poincaré maps", Physica D 5 (1982) 412, and Hairer–Nørsett–Wanner I
//! §II.6 (dense output for events).

use super::AnalysisError;
use crate::integrate::{locate, Direction, Dop853, Flow, Solver};
use crate::integrate::{Ode, Stats};
use crate::model::{Chain, System};
use crate::observe::{Control, Observer};
use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::Serialize;
use std::f64::consts::PI;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use thiserror::Error;

/// A surface of section on the state x = (θ, ω) of a chain.
#[derive(Debug, Clone, PartialEq)]
pub enum Section {
    /// `x[index] = value`; on an angle (`index < N`) modulo 2π.
    Coordinate {
        index: usize,
        value: f64,
        direction: Direction,
    },
    /// `normal · x = offset` on the raw (unwrapped) state.
    Hyperplane {
        normal: Vec<f64>,
        offset: f64,
        direction: Direction,
    },
    /// Samples at `t0 + k·period`, k = 1, 2, … (a driven chain's stroboscopic map).
    Stroboscopic { t0: f64, period: f64 },
}

impl Section {
    /// θ_link = value (rad, mod 2π), crossed in `direction`.
    pub fn angle(link: usize, value: f64, direction: Direction) -> Section {
        Section::Coordinate {
            index: link,
            value,
            direction,
        }
    }

    /// Whether this is a coordinate section on an angle of a chain with `links` links.
    pub fn angle_link(&self, links: usize) -> Option<(usize, f64, Direction)> {
        match *self {
            Section::Coordinate {
                index,
                value,
                direction,
            } if index < links => Some((index, value, direction)),
            _ => None,
        }
    }

    /// A short description ("theta[1] = 0 (+)").
    pub fn describe<S: System>(&self, sys: &S) -> String {
        let dir = |d: &Direction| match d {
            Direction::Rising => "+",
            Direction::Falling => "-",
            Direction::Either => "both",
        };
        match self {
            Section::Coordinate {
                index,
                value,
                direction,
            } => format!(
                "{} = {value} ({})",
                sys.component_name(*index),
                dir(direction)
            ),
            Section::Hyperplane {
                normal,
                offset,
                direction,
            } => format!("a·x = {offset}, a = {normal:?} ({})", dir(direction)),
            Section::Stroboscopic { t0, period } => {
                format!("t = {t0} + k·{period:.6} s (stroboscopic)")
            }
        }
    }

    fn direction(&self) -> Direction {
        match self {
            Section::Coordinate { direction, .. } | Section::Hyperplane { direction, .. } => {
                *direction
            }
            Section::Stroboscopic { .. } => Direction::Either,
        }
    }
}

/// Which momentum-like coordinate is sampled and plotted beside an angle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variables {
    /// Canonical momentum p = M(θ) θ̇ (the section map is symplectic in (θ, p)); default.
    #[default]
    Momentum,
    /// Angular velocity θ̇.
    Velocity,
}

/// How initial points are spread over the sampled plane.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "sampling", rename_all = "lowercase")]
pub enum Sampling {
    /// Cell centres of an `angles × speeds` grid over the ranges.
    Grid { angles: usize, speeds: usize },
    /// `count` candidates uniform over the ranges (SplitMix64 from `seed`).
    Random { count: usize, seed: u64 },
}

/// Where orbits start: the plane (θ_j, p_j or θ̇_j) of one link j, all other free coordinates at
/// zero, the section's own velocity solved from the energy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShellSampling {
    /// The plotted link j (0-based), not the section's link.
    pub link: usize,
    pub variables: Variables,
    pub sampling: Sampling,
    /// θ_j range (rad); default (−π, π).
    pub angle_range: (f64, f64),
    /// p_j (J·s) or θ̇_j (rad/s) range; `None`: the energy shell's full extent.
    pub speed_range: Option<(f64, f64)>,
}

/// Initial conditions on one energy shell.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellStart {
    pub energy: f64,
    /// States (θ, θ̇) on the section at `energy`.
    pub states: Vec<Vec<f64>>,
    /// Candidate (θ_j, p_j or θ̇_j) where the energy is not reachable, skipped.
    pub skipped: Vec<(f64, f64)>,
    /// The sampled ranges (the speed range resolved from the shell).
    pub angle_range: (f64, f64),
    pub speed_range: (f64, f64),
}

/// Errors of the Poincaré analysis that depend on the input values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PoincareError {
    #[error("energy {energy} J is not above the least energy on the section ({min} J)")]
    BelowMinimum { energy: f64, min: f64 },
    #[error("energy-shell sampling needs a section on an angle (theta[i] = c)")]
    NotAngleSection,
    #[error("link {link} is the section's link; sample another link's plane")]
    SameLink { link: usize },
    #[error("no sampled point reaches energy {energy} J on the section")]
    NoneReachable { energy: f64 },
    #[error("orbit {orbit}: {message}")]
    Failed { orbit: usize, message: String },
}

/// Energies bounding the chain's potential: all hanging (−g Σ b_j) and all inverted (+g Σ b_j).
pub fn energy_bounds(chain: &Chain) -> (f64, f64) {
    let e = chain.gravity() * chain.b().iter().sum::<f64>();
    (-e, e)
}

/// The least energy on the section θ_i = c (the other links hanging, at rest).
pub fn section_min_energy(chain: &Chain, link: usize, value: f64) -> f64 {
    let g = chain.gravity();
    let b = chain.b();
    -g * (0..b.len())
        .map(|k| if k == link { b[k] * value.cos() } else { b[k] })
        .sum::<f64>()
}

/// Wraps an angle into (−π, π].
pub fn wrap_angle(a: f64) -> f64 {
    let w = a.rem_euclid(2.0 * PI);
    if w > PI {
        w - 2.0 * PI
    } else {
        w
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so results do not depend on
/// a random-number crate's version.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The state at which the section link i has θ_i = c, link j has (θ_j, s_j) with s_j a momentum
/// or velocity, every other link θ = 0 and zero momentum/velocity, and the energy is `energy`:
/// the section's own p_i (or θ̇_i) solves the quadratic T = E − V. The root is the one whose
/// θ̇_i has the direction's sign (momentum: θ̇_i = ±√disc, so exactly one; velocity: the larger
/// |θ̇_i| of the right sign). `None` where the energy is not reachable with that sign.
#[allow(clippy::too_many_arguments)]
pub fn shell_state(
    chain: &Chain,
    link_i: usize,
    value: f64,
    direction: Direction,
    link_j: usize,
    angle: f64,
    speed: f64,
    variables: Variables,
    energy: f64,
) -> Option<Vec<f64>> {
    let n = chain.links();
    let mut theta = vec![0.0; n];
    theta[link_i] = value;
    theta[link_j] = angle;
    let avail = energy - chain.potential_energy(&theta);
    let m = DMatrix::from_row_slice(n, n, &chain.mass_matrix(&theta));
    let q = match variables {
        Variables::Momentum => m.clone().try_inverse()?,
        Variables::Velocity => m.clone(),
    };
    // ½ q_ii s_i² + s_i q_ij s_j + ½ q_jj s_j² = avail.
    let a = 0.5 * q[(link_i, link_i)];
    let b = q[(link_i, link_j)] * speed;
    let c = 0.5 * q[(link_j, link_j)] * speed * speed - avail;
    let disc = b * b - 4.0 * a * c;
    if disc.is_nan() || disc <= 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    // Cancellation-free roots.
    let qq = -0.5 * (b + if b >= 0.0 { sq } else { -sq });
    let (r1, r2) = if qq != 0.0 {
        (qq / a, c / qq)
    } else {
        (sq / (2.0 * a), -sq / (2.0 * a))
    };
    let (hi, lo) = (r1.max(r2), r1.min(r2));
    let s_i = match (variables, direction) {
        (Variables::Momentum, Direction::Falling) => lo,
        (Variables::Momentum, _) => hi,
        (Variables::Velocity, Direction::Falling) => {
            if lo < 0.0 {
                lo
            } else {
                return None;
            }
        }
        (Variables::Velocity, Direction::Rising) => {
            if hi > 0.0 {
                hi
            } else {
                return None;
            }
        }
        (Variables::Velocity, Direction::Either) => {
            if hi > 0.0 {
                hi
            } else {
                lo
            }
        }
    };
    let mut s = vec![0.0; n];
    s[link_i] = s_i;
    s[link_j] = speed;
    let mut x = theta.clone();
    match variables {
        Variables::Velocity => x.extend_from_slice(&s),
        Variables::Momentum => {
            x.extend_from_slice(&s);
            x = chain.from_canonical(&x);
        }
    }
    Some(x)
}

/// The largest |s_j| on the shell at angle θ_j (minimum kinetic energy over the section link's
/// velocity): |s_j| ≤ √(2 (E − V) / (q_jj − q_ij²/q_ii)), q = M⁻¹ (momenta) or M (velocities).
fn speed_extent(
    chain: &Chain,
    link_i: usize,
    value: f64,
    link_j: usize,
    variables: Variables,
    energy: f64,
) -> f64 {
    let n = chain.links();
    let mut best = 0.0f64;
    for k in 0..=720 {
        let mut theta = vec![0.0; n];
        theta[link_i] = value;
        theta[link_j] = -PI + 2.0 * PI * k as f64 / 720.0;
        let avail = energy - chain.potential_energy(&theta);
        if avail <= 0.0 {
            continue;
        }
        let m = DMatrix::from_row_slice(n, n, &chain.mass_matrix(&theta));
        let q = match variables {
            Variables::Momentum => match m.try_inverse() {
                Some(q) => q,
                None => continue,
            },
            Variables::Velocity => m,
        };
        let schur = q[(link_j, link_j)] - q[(link_i, link_j)].powi(2) / q[(link_i, link_i)];
        best = best.max((2.0 * avail / schur).sqrt());
    }
    best
}

/// Candidate points of `sampling` over the two ranges.
fn candidates(s: &Sampling, ar: (f64, f64), sr: (f64, f64)) -> Vec<(f64, f64)> {
    match *s {
        Sampling::Grid { angles, speeds } => {
            let mut out = Vec::with_capacity(angles * speeds);
            for a in 0..angles {
                for v in 0..speeds {
                    out.push((
                        ar.0 + (a as f64 + 0.5) / angles as f64 * (ar.1 - ar.0),
                        sr.0 + (v as f64 + 0.5) / speeds as f64 * (sr.1 - sr.0),
                    ));
                }
            }
            out
        }
        Sampling::Random { count, seed } => {
            let mut rng = SplitMix64(seed);
            (0..count)
                .map(|_| {
                    let u = rng.next_f64();
                    let v = rng.next_f64();
                    (ar.0 + u * (ar.1 - ar.0), sr.0 + v * (sr.1 - sr.0))
                })
                .collect()
        }
    }
}

/// Initial states on the section θ_i = c at `energy` (J), sampled over (θ_j, p_j or θ̇_j).
///
/// Errors: [`PoincareError::NotAngleSection`], [`PoincareError::SameLink`],
/// [`PoincareError::BelowMinimum`] (E not above [`section_min_energy`]),
/// [`PoincareError::NoneReachable`]. Unreachable candidates are listed in `skipped`.
pub fn shell_initial_conditions(
    chain: &Chain,
    section: &Section,
    energy: f64,
    sampling: &ShellSampling,
) -> Result<ShellStart, PoincareError> {
    let (li, c, dir) = section
        .angle_link(chain.links())
        .ok_or(PoincareError::NotAngleSection)?;
    let lj = sampling.link;
    if lj == li || lj >= chain.links() {
        return Err(PoincareError::SameLink { link: lj + 1 });
    }
    let min = section_min_energy(chain, li, c);
    if energy.is_nan() || energy <= min {
        return Err(PoincareError::BelowMinimum { energy, min });
    }
    let sr = sampling.speed_range.unwrap_or_else(|| {
        let e = speed_extent(chain, li, c, lj, sampling.variables, energy);
        (-e, e)
    });
    let mut start = ShellStart {
        energy,
        states: vec![],
        skipped: vec![],
        angle_range: sampling.angle_range,
        speed_range: sr,
    };
    for (a, s) in candidates(&sampling.sampling, sampling.angle_range, sr) {
        match shell_state(chain, li, c, dir, lj, a, s, sampling.variables, energy) {
            Some(x) => start.states.push(x),
            None => start.skipped.push((a, s)),
        }
    }
    if start.states.is_empty() {
        return Err(PoincareError::NoneReachable { energy });
    }
    Ok(start)
}

/// Options of [`section_orbits`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OrbitOptions {
    /// Crossings recorded per orbit (the start does not count); default 500.
    pub crossings: usize,
    /// Time limit per orbit (s); an orbit stops there with what it has. Default 10⁴.
    pub t_max: f64,
    /// DOP853 tolerances; default 1e-12 both.
    pub rtol: f64,
    pub atol: f64,
    /// Largest DOP853 step (s); default ∞.
    pub h_max: f64,
    /// Least number of pieces each step is split into for the crossing search; default 1
    /// (angle sections split further so the angle moves ≤ π/4 per piece).
    pub pieces: usize,
    /// Finite-time maximal Lyapunov exponent per orbit (one tangent vector); default false.
    pub lyapunov: bool,
}

impl Default for OrbitOptions {
    fn default() -> Self {
        OrbitOptions {
            crossings: 500,
            t_max: 1e4,
            rtol: 1e-12,
            atol: 1e-12,
            h_max: Dop853::default().h_max,
            pieces: 1,
            lyapunov: false,
        }
    }
}

/// Why an orbit stopped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OrbitEnd {
    /// All requested crossings found.
    Complete,
    /// `t_max` reached first.
    TimeLimit,
    /// The observer asked to stop.
    Stopped,
    /// The integration failed (message).
    Failed(String),
}

/// One orbit's crossings. States are (θ, θ̇), angles not wrapped.
#[derive(Debug, Clone, PartialEq)]
pub struct Orbit {
    pub initial: Vec<f64>,
    pub t: Vec<f64>,
    /// Crossing states, `t.len()` rows of length 2N.
    pub states: Vec<Vec<f64>>,
    /// |E − E₀ − W| / energy_scale at each crossing.
    pub energy_error: Vec<f64>,
    /// Finite-time maximal Lyapunov exponent over the orbit (1/s), if asked for.
    pub lyapunov: Option<f64>,
    pub end: OrbitEnd,
    /// Time integrated.
    pub t_end: f64,
    pub stats: Stats,
}

impl Orbit {
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
    /// The crossings in the plane of link j: (θ_j wrapped to (−π, π], p_j or θ̇_j).
    pub fn plane(&self, chain: &Chain, link: usize, variables: Variables) -> Vec<(f64, f64)> {
        let n = chain.links();
        self.states
            .iter()
            .map(|x| {
                let s = match variables {
                    Variables::Velocity => x[n + link],
                    Variables::Momentum => chain.to_canonical(x)[n + link],
                };
                (wrap_angle(x[link]), s)
            })
            .collect()
    }
}

/// Signed distance and its time derivative, given the state and (when needed) its derivative.
struct Gfun<'a> {
    section: &'a Section,
    n: usize,
    /// g needs f(x) for its slope (ω or general hyperplane with ω components).
    needs_rhs: bool,
}

impl Gfun<'_> {
    fn new(section: &Section, n: usize) -> Gfun<'_> {
        let needs_rhs = match section {
            Section::Coordinate { index, .. } => *index >= n / 2,
            Section::Hyperplane { normal, .. } => normal[n / 2..].iter().any(|&a| a != 0.0),
            Section::Stroboscopic { .. } => false,
        };
        Gfun {
            section,
            n,
            needs_rhs,
        }
    }
    #[inline]
    fn g(&self, x: &[f64]) -> f64 {
        match self.section {
            Section::Coordinate { index, value, .. } => {
                if *index < self.n / 2 {
                    (x[*index] - value).sin()
                } else {
                    x[*index] - value
                }
            }
            Section::Hyperplane { normal, offset, .. } => {
                normal.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - offset
            }
            Section::Stroboscopic { .. } => 0.0,
        }
    }
    /// ġ; `f` is f(x) when `needs_rhs`, else ignored (θ̇ = ω is in the state).
    #[inline]
    fn gdot(&self, x: &[f64], f: &[f64]) -> f64 {
        let h = self.n / 2;
        match self.section {
            Section::Coordinate { index, value, .. } => {
                if *index < h {
                    (x[*index] - value).cos() * x[h + index]
                } else {
                    f[*index]
                }
            }
            Section::Hyperplane { normal, .. } => {
                let mut s = 0.0;
                for k in 0..h {
                    s += normal[k] * x[h + k];
                }
                if self.needs_rhs {
                    for k in h..self.n {
                        s += normal[k] * f[k];
                    }
                }
                s
            }
            Section::Stroboscopic { .. } => 0.0,
        }
    }
    /// Whether a located root is on the section's branch (cos(θ − c) > 0 for angles).
    fn on_branch(&self, x: &[f64]) -> bool {
        match self.section {
            Section::Coordinate { index, value, .. } if *index < self.n / 2 => {
                (x[*index] - value).cos() > 0.0
            }
            _ => true,
        }
    }
    /// How far the section angle moved over a step (0 for other sections).
    fn angle_travel(&self, x0: &[f64], x1: &[f64]) -> f64 {
        match self.section {
            Section::Coordinate { index, .. } if *index < self.n / 2 => {
                (x1[*index] - x0[*index]).abs()
            }
            _ => 0.0,
        }
    }
}

/// Golden-section search for the minimum of `h` on [a, b] to ~1e-10 relative width.
fn golden_min(mut h: impl FnMut(f64) -> f64, mut a: f64, mut b: f64) -> (f64, f64) {
    let r = 0.5 * (5f64.sqrt() - 1.0);
    let mut c = b - r * (b - a);
    let mut d = a + r * (b - a);
    let (mut fc, mut fd) = (h(c), h(d));
    for _ in 0..60 {
        if (b - a).abs() <= 1e-12 * (1.0 + a.abs()) {
            break;
        }
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = h(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = h(d);
        }
    }
    if fc < fd {
        (c, fc)
    } else {
        (d, fd)
    }
}

/// Runs one orbit from `x0` until `opts.crossings` crossings of `section` or `opts.t_max`.
///
/// `stop` is polled once per step; `progress` counts crossings for the caller's observer.
pub fn orbit(
    chain: &Chain,
    section: &Section,
    x0: &[f64],
    opts: &OrbitOptions,
    stop: &AtomicBool,
    progress: &AtomicU64,
) -> Orbit {
    let n = chain.dim();
    let work = !chain.is_conservative();
    let k = usize::from(opts.lyapunov);
    let mut flow = Flow::with_layout(chain, work, k);
    // The deviation vector stays out of the error norm, so the crossings are those of the plain
    // state flow; the exponent is an indicator, not a converged spectrum.
    flow.tangent_in_norm = false;
    let layout = flow.layout;
    let len = layout.len();
    let mut solver = Dop853 {
        rtol: opts.rtol,
        atol: opts.atol,
        h_max: opts.h_max,
        ..Default::default()
    }
    .solver(len);
    let v0: Vec<f64> = (0..n * k).map(|_| 1.0 / (n as f64).sqrt()).collect();
    let mut y = flow.initial(x0, if k > 0 { Some(&v0) } else { None });
    let e0 = chain.energy(0.0, x0);
    let (_, e_inv) = energy_bounds(chain);
    let scale = e0.abs().max(e_inv.abs()).max(f64::MIN_POSITIVE);
    let gf = Gfun::new(section, n);
    let dirn = section.direction();
    let mut out = Orbit {
        initial: x0.to_vec(),
        t: Vec::with_capacity(opts.crossings),
        states: Vec::with_capacity(opts.crossings),
        energy_error: Vec::with_capacity(opts.crossings),
        lyapunov: None,
        end: OrbitEnd::TimeLimit,
        t_end: 0.0,
        stats: Stats::default(),
    };
    let mut buf = vec![0.0; len];
    let mut fbuf = vec![0.0; len];
    let mut log_growth = 0.0;
    let slope = |flow: &mut Flow<'_, Chain>, fbuf: &mut [f64], t: f64, ya: &[f64]| -> f64 {
        if gf.needs_rhs {
            flow.eval(t, ya, fbuf);
        }
        gf.gdot(&ya[..n], &fbuf[..n])
    };
    let mut t = 0.0;
    let mut g0 = gf.g(&y[..n]);
    let mut d0 = slope(&mut flow, &mut fbuf, t, &y);
    let mut y0 = y.clone();
    let mut next_strobe = 1u64;
    let record = |tc: f64, ya: &[f64], out: &mut Orbit| {
        let x = &ya[..n];
        let w = if work { ya[n] } else { 0.0 };
        out.t.push(tc);
        out.states.push(x.to_vec());
        out.energy_error
            .push((chain.energy(tc, x) - e0 - w).abs() / scale);
        progress.fetch_add(1, Ordering::Relaxed);
    };
    'steps: while out.t.len() < opts.crossings {
        if stop.load(Ordering::Relaxed) {
            out.end = OrbitEnd::Stopped;
            break;
        }
        if t >= opts.t_max {
            out.end = OrbitEnd::TimeLimit;
            break;
        }
        let t1 = match solver.step(&mut flow, t, &mut y, opts.t_max) {
            Ok(t1) => t1,
            Err(e) => {
                let msg = AnalysisError::naming(chain, layout)(e).to_string();
                out.end = OrbitEnd::Failed(msg);
                break;
            }
        };
        if let Section::Stroboscopic { t0: ts, period } = section {
            loop {
                let tk = ts + next_strobe as f64 * period;
                if tk > t1 {
                    break;
                }
                if tk > t {
                    if tk == t1 {
                        buf.copy_from_slice(&y);
                    } else {
                        solver.dense(&mut flow, tk, &mut buf);
                    }
                    record(tk, &buf, &mut out);
                }
                next_strobe += 1;
                if out.t.len() >= opts.crossings {
                    t = tk;
                    break 'steps;
                }
            }
        } else {
            let g1 = gf.g(&y[..n]);
            let d1 = slope(&mut flow, &mut fbuf, t1, &y);
            let travel = gf.angle_travel(&y0[..n], &y[..n]);
            let pieces = opts
                .pieces
                .max((travel / (PI / 4.0)).ceil() as usize)
                .max(1);
            let (mut ta, mut ga, mut da) = (t, g0, d0);
            for p in 1..=pieces {
                let (tb, gb, db) = if p == pieces {
                    (t1, g1, d1)
                } else {
                    let tb = t + (t1 - t) * p as f64 / pieces as f64;
                    solver.dense(&mut flow, tb, &mut buf);
                    let gb = gf.g(&buf[..n]);
                    let db = slope(&mut flow, &mut fbuf, tb, &buf);
                    (tb, gb, db)
                };
                // Brackets in this piece: a sign change, or a graze found at the extremum.
                let mut brackets: [(f64, f64, f64, f64); 2] = [(0.0, 0.0, 0.0, 0.0); 2];
                let mut nb = 0;
                if Direction::Either.crosses(ga, gb) {
                    brackets[0] = (ta, ga, tb, gb);
                    nb = 1;
                } else if ga != 0.0 && ga.signum() == gb.signum() {
                    let s = ga.signum();
                    if s * da < 0.0 && s * db > 0.0 {
                        let (tm, hm) = golden_min(
                            |tt| {
                                solver.dense(&mut flow, tt, &mut buf);
                                s * gf.g(&buf[..n])
                            },
                            ta,
                            tb,
                        );
                        if hm < 0.0 {
                            brackets[0] = (ta, ga, tm, s * hm);
                            brackets[1] = (tm, s * hm, tb, gb);
                            nb = 2;
                        }
                    }
                }
                for &(a, fa, b, fb) in &brackets[..nb] {
                    if !dirn.crosses(fa, fb) {
                        continue;
                    }
                    if let Some(c) = locate(
                        &mut solver,
                        &mut flow,
                        a,
                        fa,
                        b,
                        fb,
                        |_, s| gf.g(&s[..n]),
                        &mut buf,
                        1e-14,
                    ) {
                        if gf.on_branch(&buf[..n]) {
                            record(c.t, &buf, &mut out);
                            if out.t.len() >= opts.crossings {
                                t = c.t;
                                break 'steps;
                            }
                        }
                    }
                }
                ta = tb;
                ga = gb;
                da = db;
            }
            g0 = g1;
            d0 = d1;
        }
        t = t1;
        if k > 0 {
            let off = layout.tangent_offset();
            let norm = y[off..].iter().map(|v| v * v).sum::<f64>().sqrt();
            if !(1e-8..=1e8).contains(&norm) {
                log_growth += norm.ln();
                y[off..].iter_mut().for_each(|v| *v /= norm);
            }
        }
        y0.copy_from_slice(&y);
    }
    if out.t.len() >= opts.crossings {
        out.end = OrbitEnd::Complete;
    }
    out.t_end = t;
    if k > 0 && t > 0.0 {
        // At the last crossing when the loop ended there, else at the last step.
        let src = if out.end == OrbitEnd::Complete {
            &buf
        } else {
            &y
        };
        let off = layout.tangent_offset();
        let norm = src[off..].iter().map(|v| v * v).sum::<f64>().sqrt();
        out.lyapunov = Some((log_growth + norm.ln()) / t);
    }
    out.stats = solver.stats();
    out
}

/// Runs every initial state in parallel (rayon; results in input order, identical for any
/// thread count), reporting crossings to `observer` from the calling thread. Returns the
/// orbits and whether the observer let them finish.
pub fn section_orbits(
    chain: &Chain,
    section: &Section,
    initial: &[Vec<f64>],
    opts: &OrbitOptions,
    observer: &mut dyn Observer,
) -> (Vec<Orbit>, bool) {
    let stop = AtomicBool::new(false);
    let progress = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    observer.start((initial.len() * opts.crossings) as u64, "crossings");
    let mut stopped = false;
    let orbits = std::thread::scope(|s| {
        let handle = s.spawn(|| {
            let r: Vec<Orbit> = initial
                .par_iter()
                .map(|x0| orbit(chain, section, x0, opts, &stop, &progress))
                .collect();
            done.store(true, Ordering::SeqCst);
            r
        });
        while !done.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(50));
            if observer.advance(progress.load(Ordering::Relaxed)) == Control::Stop {
                stop.store(true, Ordering::SeqCst);
                stopped = true;
            }
        }
        handle.join().expect("a Poincaré worker panicked")
    });
    observer.advance(progress.load(Ordering::Relaxed));
    observer.finish();
    (orbits, !stopped)
}

/// What [`poincare`] computes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoincareOptions {
    #[serde(skip)]
    pub section: Section,
    /// Energies (J), one shell each; empty for explicit initial states.
    pub energies: Vec<f64>,
    pub sampling: ShellSampling,
    /// Explicit initial states (used when `energies` is empty).
    pub initial: Vec<Vec<f64>>,
    pub orbit: OrbitOptions,
    /// Orbits with a finite-time exponent above this (1/s) count as chaotic.
    pub chaos_threshold: f64,
}

/// One energy shell (or the explicit initial states) and its orbits.
#[derive(Debug, Clone)]
pub struct Shell {
    /// `None` for explicit initial states or a stroboscopic section.
    pub energy: Option<f64>,
    pub orbits: Vec<Orbit>,
    pub skipped: Vec<(f64, f64)>,
    pub angle_range: (f64, f64),
    pub speed_range: Option<(f64, f64)>,
}

/// The result of [`poincare`].
#[derive(Debug, Clone)]
pub struct PoincareResult {
    pub shells: Vec<Shell>,
    /// False when the observer stopped the run.
    pub complete: bool,
}

impl PoincareResult {
    pub fn crossings(&self) -> usize {
        self.shells
            .iter()
            .flat_map(|s| &s.orbits)
            .map(|o| o.len())
            .sum()
    }
    pub fn max_energy_error(&self) -> f64 {
        self.shells
            .iter()
            .flat_map(|s| &s.orbits)
            .flat_map(|o| &o.energy_error)
            .fold(0.0, |m, &e| m.max(e))
    }
}

/// Initial states for a stroboscopic section: a grid/random sample of (θ_j, p_j or θ̇_j) of
/// one link, everything else at zero.
pub fn plane_initial_conditions(chain: &Chain, sampling: &ShellSampling) -> Vec<Vec<f64>> {
    let n = chain.links();
    let j = sampling.link;
    let sr = sampling.speed_range.unwrap_or_else(|| {
        let a = chain.a()[j * n + j];
        let w = 2.0 * (chain.gravity() * chain.b()[j] / a).abs().sqrt();
        match sampling.variables {
            Variables::Velocity => (-w, w),
            Variables::Momentum => (-w * a, w * a),
        }
    });
    candidates(&sampling.sampling, sampling.angle_range, sr)
        .into_iter()
        .map(|(th, s)| {
            let mut x = vec![0.0; 2 * n];
            x[j] = th;
            x[n + j] = s;
            if sampling.variables == Variables::Momentum {
                x = chain.from_canonical(&x);
            }
            x
        })
        .collect()
}

/// Every shell of `opts`: initial conditions, then the orbits of all shells in one parallel run.
pub fn poincare(
    chain: &Chain,
    opts: &PoincareOptions,
    observer: &mut dyn Observer,
) -> Result<PoincareResult, PoincareError> {
    let mut shells = vec![];
    let mut starts: Vec<Vec<Vec<f64>>> = vec![];
    if !opts.energies.is_empty() {
        for &e in &opts.energies {
            let s = shell_initial_conditions(chain, &opts.section, e, &opts.sampling)?;
            shells.push(Shell {
                energy: Some(e),
                orbits: vec![],
                skipped: s.skipped,
                angle_range: s.angle_range,
                speed_range: Some(s.speed_range),
            });
            starts.push(s.states);
        }
    } else {
        let states = if opts.initial.is_empty() {
            plane_initial_conditions(chain, &opts.sampling)
        } else {
            opts.initial.clone()
        };
        shells.push(Shell {
            energy: None,
            orbits: vec![],
            skipped: vec![],
            angle_range: opts.sampling.angle_range,
            speed_range: opts.sampling.speed_range,
        });
        starts.push(states);
    }
    let all: Vec<Vec<f64>> = starts.iter().flatten().cloned().collect();
    let (mut orbits, complete) = section_orbits(chain, &opts.section, &all, &opts.orbit, observer);
    for (shell, st) in shells.iter_mut().zip(&starts).rev() {
        let rest = orbits.split_off(orbits.len() - st.len());
        shell.orbits = rest;
    }
    for (i, o) in shells.iter().flat_map(|s| &s.orbits).enumerate() {
        if let OrbitEnd::Failed(m) = &o.end {
            return Err(PoincareError::Failed {
                orbit: i + 1,
                message: m.clone(),
            });
        }
    }
    Ok(PoincareResult { shells, complete })
}
