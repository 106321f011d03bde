//! Poincaré sections: where orbits of a planar chain cross a surface, located on DOP853's dense
//! output to near round-off, for many orbits in parallel (docs/physics.md §5).
//!
//! One orbit's run (integration, crossing location, energy check, the optional exponent) reads
//! as one sequence of steps (`OrbitRun`) in the child `run`; the shell sampling is the child
//! `shell`; this file keeps the section geometry, the options and results, and the drivers.
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

mod run;
mod shell;

pub use shell::{
    energy_bounds, plane_initial_conditions, section_min_energy, shell_initial_conditions,
    shell_state, Sampling, ShellSampling, ShellStart, Variables,
};

/// The section's angles wrapped into (−π, π] (by `rem_euclid`; the name callers know).
pub use crate::model::angle::wrap_open_closed as wrap_angle;

use crate::integrate::{Direction, Dop853, Stats};
use crate::model::angle::wrap_open_closed;
use crate::model::{Chain, System};
use crate::observe::{Control, Observer};
use rayon::prelude::*;
use run::OrbitRun;
use serde::Serialize;
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
    /// Samples at `t0 + k·period`, k = transient + 1, transient + 2, … (a driven chain's
    /// stroboscopic map): the first `transient` drive periods are integrated but not sampled,
    /// and each sample time is the one a run without a transient computes for the same k.
    Stroboscopic {
        t0: f64,
        period: f64,
        transient: u64,
    },
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
            Section::Stroboscopic {
                t0,
                period,
                transient,
            } => {
                if *transient > 0 {
                    format!(
                        "t = {t0} + k·{period:.6} s, k > {transient} (stroboscopic, after a transient of {transient} drive periods)"
                    )
                } else {
                    format!("t = {t0} + k·{period:.6} s (stroboscopic)")
                }
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

/// Errors of the Poincaré analysis that depend on the input values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PoincareError {
    #[error("energy {energy} J is not above the least energy on the section ({min} J)")]
    BelowMinimum { energy: f64, min: f64 },
    #[error("energy-shell sampling needs a section on an angle (theta[i] = c)")]
    NotAngleSection,
    #[error("link {link} is the section's link; sample another link's plane")]
    SameLink { link: usize },
    #[error("no sampled point reaches energy {energy} J on the section: link {link}'s angle reaches it only on [{:.4}, {:.4}] rad, the grid sampled [{:.4}, {:.4}] rad at speeds up to the shell's; sample the reach (angle_range within it, or more points) or raise the energy", angles.0, angles.1, sampled.0, sampled.1)]
    NoneReachable {
        energy: f64,
        link: usize,
        angles: (f64, f64),
        sampled: (f64, f64),
    },
    #[error("orbit {orbit}: {message}")]
    Failed { orbit: usize, message: String },
}

/// Options of [`section_orbits`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SectionOptions {
    /// Crossings recorded per orbit (the start does not count); default 500.
    pub crossings: usize,
    /// Time limit per orbit (s); an orbit stops there with what it has. Default 10⁴. Written
    /// `t_max` in a run's JSON options, as it always was.
    #[serde(rename = "t_max")]
    pub t_end: f64,
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

impl Default for SectionOptions {
    fn default() -> Self {
        SectionOptions {
            crossings: 500,
            t_end: 1e4,
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
pub enum SectionEnd {
    /// All requested crossings found.
    Complete,
    /// `t_end` reached first.
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
    pub end: SectionEnd,
    /// Time integrated.
    pub t_end: f64,
    pub stats: Stats,
}

impl Orbit {
    pub fn len(&self) -> usize {
        self.t.len()
    }
    /// The λ colouring's verdict: `Some(true)` chaotic (λ_T above `threshold`, 1/s),
    /// `Some(false)` not shown chaotic within this orbit's T = `t_end` (which does not make it
    /// regular: a sticky or weakly chaotic orbit can stay below the threshold for a long
    /// time), `None` without an exponent.
    pub fn chaotic(&self, threshold: f64) -> Option<bool> {
        self.lyapunov.filter(|l| !l.is_nan()).map(|l| l > threshold)
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
                (wrap_open_closed(x[link]), s)
            })
            .collect()
    }
}

/// Runs one orbit from `x0` until `opts.crossings` crossings of `section` or `opts.t_end`.
///
/// `stop` is polled once per step; `progress` counts crossings for the caller's observer.
pub fn orbit(
    chain: &Chain,
    section: &Section,
    x0: &[f64],
    opts: &SectionOptions,
    stop: &AtomicBool,
    progress: &AtomicU64,
) -> Orbit {
    let mut run = OrbitRun::new(chain, section, x0, opts, progress);
    run.steps(stop);
    run.finish()
}

/// Runs every initial state in parallel (rayon; results in input order, identical for any
/// thread count), reporting crossings to `observer` from the calling thread. Returns the
/// orbits and whether the observer let them finish.
pub fn section_orbits(
    chain: &Chain,
    section: &Section,
    initial: &[Vec<f64>],
    opts: &SectionOptions,
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
            // Not a plain sleep: nested in a sweep's point this thread is one of the pool's.
            crate::observe::pause(std::time::Duration::from_millis(50));
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
    pub orbit: SectionOptions,
    /// Orbits with a finite-time exponent above this (1/s) count as chaotic; the others are
    /// *not shown chaotic* within their integration time, not "regular" ([`chaos_criterion`]).
    pub chaos_threshold: f64,
}

/// The λ colouring's two classes, as the figure, the file and the summary name them.
pub const CHAOTIC_CLASS: &str = "chaotic";
pub const NOT_SHOWN_CHAOTIC_CLASS: &str = "not shown chaotic";

/// The criterion of the λ colouring at `threshold` (1/s), in words (plain ASCII, for the HDF5
/// attribute `chaos_criterion` and the JSON summary).
pub fn chaos_criterion(threshold: f64) -> String {
    format!(
        "chaotic: finite-time maximal Lyapunov exponent lambda_T = ln(|delta(T)|/|delta(0)|)/T > {threshold} s-1, T the orbit's own integration time (its t_end: to its last crossing or the time limit); otherwise not shown chaotic within T (a small lambda_T does not show an orbit regular)"
    )
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

impl Shell {
    /// The shortest and longest T over which its orbits' exponents were taken (s); `None`
    /// when no orbit has one.
    pub fn lyapunov_times(&self) -> Option<(f64, f64)> {
        self.orbits
            .iter()
            .filter(|o| o.lyapunov.is_some())
            .map(|o| o.t_end)
            .fold(None, |r, t| match r {
                None => Some((t, t)),
                Some((a, b)) => Some((f64::min(a, t), f64::max(b, t))),
            })
    }

    /// (chaotic, not shown chaotic) orbits at `threshold`; `None` without exponents.
    pub fn chaos_counts(&self, threshold: f64) -> Option<(usize, usize)> {
        let verdicts: Option<Vec<bool>> =
            self.orbits.iter().map(|o| o.chaotic(threshold)).collect();
        let v = verdicts?;
        let chaotic = v.iter().filter(|&&c| c).count();
        Some((chaotic, v.len() - chaotic))
    }
}

/// "T = a s" or "T = a–b s" for the time range of exponents.
pub fn describe_times((a, b): (f64, f64)) -> String {
    // To the millisecond, without trailing zeros (5000, 1234.567).
    let f = |t: f64| format!("{}", (t * 1e3).round() / 1e3);
    if a == b {
        format!("T = {} s", f(a))
    } else {
        format!("T = {}–{} s", f(a), f(b))
    }
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
            angle_range: opts
                .sampling
                .angle_range
                .unwrap_or((-std::f64::consts::PI, std::f64::consts::PI)),
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
        if let SectionEnd::Failed(m) = &o.end {
            return Err(PoincareError::Failed {
                orbit: i + 1,
                message: m.clone(),
            });
        }
    }
    Ok(PoincareResult { shells, complete })
}
