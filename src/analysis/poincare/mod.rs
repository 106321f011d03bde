//! Poincaré sections: where orbits of a planar chain cross a surface, located on DOP853's dense
//! output to near round-off, for many orbits in parallel (docs/physics.md §5).
//!
//! Over 800 lines on purpose: one orbit's run (integration, crossing location, energy check,
//! the optional exponent) reads as one sequence of steps (`OrbitRun`), beside the section
//! geometry it serves; the shell sampling is the child `shell`.
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

mod shell;

pub use shell::{
    energy_bounds, plane_initial_conditions, section_min_energy, shell_initial_conditions,
    shell_state, Sampling, ShellSampling, ShellStart, Variables,
};

/// The section's angles wrapped into (−π, π] (by `rem_euclid`; the name callers know).
pub use crate::model::angle::wrap_open_closed as wrap_angle;

use super::energy::EnergyBalance;
use super::AnalysisError;
use crate::integrate::{locate, Direction, Dop853, Dop853Solver, Flow, Solver};
use crate::integrate::{Ode, Stats};
use crate::model::angle::wrap_open_closed;
use crate::model::{Chain, System};
use crate::observe::{Control, Observer};
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
    let mut run = OrbitRun::new(chain, section, x0, opts, progress);
    run.steps(stop);
    run.finish()
}

/// g's slope ġ at `(t, ya)`, evaluating the right-hand side into `fbuf` only when the section
/// needs it (a free function so that callers can pass `y` or `buf` beside `flow`).
fn section_slope(
    gf: &Gfun<'_>,
    flow: &mut Flow<'_, Chain>,
    fbuf: &mut [f64],
    t: f64,
    ya: &[f64],
) -> f64 {
    if gf.needs_rhs {
        flow.eval(t, ya, fbuf);
    }
    gf.gdot(&ya[..gf.n], &fbuf[..gf.n])
}

/// One orbit in progress: the integrator, the section function at the last step's end, and the
/// crossings so far. Each step of [`orbit`] is one method, so the loop reads as
/// step → find crossings (stroboscopic or located) → renormalise the deviation vector.
struct OrbitRun<'a> {
    chain: &'a Chain,
    section: &'a Section,
    opts: &'a OrbitOptions,
    progress: &'a AtomicU64,
    n: usize,
    work: bool,
    k: usize,
    flow: Flow<'a, Chain>,
    solver: Dop853Solver,
    balance: EnergyBalance,
    gf: Gfun<'a>,
    dirn: Direction,
    /// The state at `t` and at the previous step's end.
    y: Vec<f64>,
    y0: Vec<f64>,
    /// Dense-output and right-hand-side scratch; `buf` holds the last recorded crossing.
    buf: Vec<f64>,
    fbuf: Vec<f64>,
    t: f64,
    /// g and ġ at `t`, so that each step evaluates them only at its new end.
    g0: f64,
    d0: f64,
    next_strobe: u64,
    /// Σ ln of the deviation-vector norms divided out so far.
    log_growth: f64,
    out: Orbit,
}

impl<'a> OrbitRun<'a> {
    /// The flow (with a deviation vector when a Lyapunov exponent is asked for), the solver and
    /// an empty [`Orbit`]; g and ġ at t = 0.
    fn new(
        chain: &'a Chain,
        section: &'a Section,
        x0: &[f64],
        opts: &'a OrbitOptions,
        progress: &'a AtomicU64,
    ) -> Self {
        let n = chain.dim();
        let work = !chain.is_conservative();
        let k = usize::from(opts.lyapunov);
        let mut flow = Flow::with_layout(chain, work, k);
        // The deviation vector stays out of the error norm, so the crossings are those of the plain
        // state flow; the exponent is an indicator, not a converged spectrum.
        flow.tangent_in_norm = false;
        let len = flow.layout.len();
        let solver = Dop853 {
            rtol: opts.rtol,
            atol: opts.atol,
            h_max: opts.h_max,
            ..Default::default()
        }
        .solver(len);
        let v0: Vec<f64> = (0..n * k).map(|_| 1.0 / (n as f64).sqrt()).collect();
        let y = flow.initial(x0, if k > 0 { Some(&v0) } else { None });
        let balance = EnergyBalance::new(chain, chain.energy(0.0, x0));
        let gf = Gfun::new(section, n);
        let dirn = section.direction();
        let out = Orbit {
            initial: x0.to_vec(),
            t: Vec::with_capacity(opts.crossings),
            states: Vec::with_capacity(opts.crossings),
            energy_error: Vec::with_capacity(opts.crossings),
            lyapunov: None,
            end: OrbitEnd::TimeLimit,
            t_end: 0.0,
            stats: Stats::default(),
        };
        let buf = vec![0.0; len];
        let mut fbuf = vec![0.0; len];
        let t = 0.0;
        let g0 = gf.g(&y[..n]);
        let d0 = section_slope(&gf, &mut flow, &mut fbuf, t, &y);
        let y0 = y.clone();
        OrbitRun {
            chain,
            section,
            opts,
            progress,
            n,
            work,
            k,
            flow,
            solver,
            balance,
            gf,
            dirn,
            y,
            y0,
            buf,
            fbuf,
            t,
            g0,
            d0,
            next_strobe: match section {
                Section::Stroboscopic { transient, .. } => transient + 1,
                _ => 1,
            },
            log_growth: 0.0,
            out,
        }
    }

    /// Whether the orbit has all the crossings it was asked for.
    fn done(&self) -> bool {
        self.out.t.len() >= self.opts.crossings
    }

    /// Appends the crossing held in `buf` at time `tc`, with its energy error.
    fn record(&mut self, tc: f64) {
        let n = self.n;
        let x = &self.buf[..n];
        let w = if self.work { self.buf[n] } else { 0.0 };
        self.out.t.push(tc);
        self.out.states.push(x.to_vec());
        self.out
            .energy_error
            .push(self.balance.relative(self.chain.energy(tc, x), w));
        self.progress.fetch_add(1, Ordering::Relaxed);
    }

    /// Steps until enough crossings, `t_max`, a failed step or `stop` (polled once per step).
    fn steps(&mut self, stop: &AtomicBool) {
        while self.out.t.len() < self.opts.crossings {
            if stop.load(Ordering::Relaxed) {
                self.out.end = OrbitEnd::Stopped;
                break;
            }
            if self.t >= self.opts.t_max {
                self.out.end = OrbitEnd::TimeLimit;
                break;
            }
            let t1 = match self
                .solver
                .step(&mut self.flow, self.t, &mut self.y, self.opts.t_max)
            {
                Ok(t1) => t1,
                Err(e) => {
                    let msg = AnalysisError::naming(self.chain, self.flow.layout)(e).to_string();
                    self.out.end = OrbitEnd::Failed(msg);
                    break;
                }
            };
            let finished = if let Section::Stroboscopic { t0: ts, period, .. } = self.section {
                self.strobe(*ts, *period, t1)
            } else {
                self.crossings_in_step(t1)
            };
            if finished {
                break;
            }
            self.t = t1;
            self.renormalise();
            self.y0.copy_from_slice(&self.y);
        }
    }

    /// Records the stroboscopic samples t₀ + k·T that fall in (t, t1]; true (with `t` at the
    /// last sample) once the orbit is complete.
    fn strobe(&mut self, ts: f64, period: f64, t1: f64) -> bool {
        loop {
            let tk = ts + self.next_strobe as f64 * period;
            if tk > t1 {
                return false;
            }
            if tk > self.t {
                if tk == t1 {
                    self.buf.copy_from_slice(&self.y);
                } else {
                    self.solver.dense(&mut self.flow, tk, &mut self.buf);
                }
                self.record(tk);
            }
            self.next_strobe += 1;
            if self.done() {
                self.t = tk;
                return true;
            }
        }
    }

    /// Locates the crossings in the step (t, t1], split into pieces over which the section
    /// angle moves at most π/4 so that no pair of crossings hides inside one piece; true (with
    /// `t` at the last crossing) once the orbit is complete.
    fn crossings_in_step(&mut self, t1: f64) -> bool {
        let n = self.n;
        let t = self.t;
        let g1 = self.gf.g(&self.y[..n]);
        let d1 = section_slope(&self.gf, &mut self.flow, &mut self.fbuf, t1, &self.y);
        let travel = self.gf.angle_travel(&self.y0[..n], &self.y[..n]);
        let pieces = self
            .opts
            .pieces
            .max((travel / (PI / 4.0)).ceil() as usize)
            .max(1);
        let (mut ta, mut ga, mut da) = (t, self.g0, self.d0);
        for p in 1..=pieces {
            let (tb, gb, db) = if p == pieces {
                (t1, g1, d1)
            } else {
                let tb = t + (t1 - t) * p as f64 / pieces as f64;
                self.solver.dense(&mut self.flow, tb, &mut self.buf);
                let gb = self.gf.g(&self.buf[..n]);
                let db = section_slope(&self.gf, &mut self.flow, &mut self.fbuf, tb, &self.buf);
                (tb, gb, db)
            };
            let (brackets, nb) = self.brackets((ta, ga, da), (tb, gb, db));
            if self.locate_crossings(&brackets[..nb]) {
                return true;
            }
            ta = tb;
            ga = gb;
            da = db;
        }
        self.g0 = g1;
        self.d0 = d1;
        false
    }

    /// Brackets in one piece from its ends' g and ġ: a sign change, or a graze (both ends on
    /// one side, g approaching then receding) whose extremum dips across, giving two.
    fn brackets(
        &mut self,
        (ta, ga, da): (f64, f64, f64),
        (tb, gb, db): (f64, f64, f64),
    ) -> ([(f64, f64, f64, f64); 2], usize) {
        let n = self.n;
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
                        self.solver.dense(&mut self.flow, tt, &mut self.buf);
                        s * self.gf.g(&self.buf[..n])
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
        (brackets, nb)
    }

    /// Locates the root in each bracket crossed in the section's direction and records those
    /// on the section's branch; true (with `t` at the crossing) once the orbit is complete.
    fn locate_crossings(&mut self, brackets: &[(f64, f64, f64, f64)]) -> bool {
        let n = self.n;
        for &(a, fa, b, fb) in brackets {
            if !self.dirn.crosses(fa, fb) {
                continue;
            }
            let gf = &self.gf;
            if let Some(c) = locate(
                &mut self.solver,
                &mut self.flow,
                a,
                fa,
                b,
                fb,
                |_, s| gf.g(&s[..n]),
                &mut self.buf,
                1e-14,
            ) {
                if self.gf.on_branch(&self.buf[..n]) {
                    self.record(c.t);
                    if self.done() {
                        self.t = c.t;
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Divides the deviation vector back to unit size when it strays outside [1e-8, 1e8],
    /// keeping the log of what was divided out (the exponent is then exact, not overflowed).
    fn renormalise(&mut self) {
        if self.k > 0 {
            let off = self.flow.layout.tangent_offset();
            let norm = self.y[off..].iter().map(|v| v * v).sum::<f64>().sqrt();
            if !(1e-8..=1e8).contains(&norm) {
                self.log_growth += norm.ln();
                self.y[off..].iter_mut().for_each(|v| *v /= norm);
            }
        }
    }

    /// How the orbit ended, the time reached, the finite-time exponent and the solver's counts.
    fn finish(self) -> Orbit {
        let mut out = self.out;
        if out.t.len() >= self.opts.crossings {
            out.end = OrbitEnd::Complete;
        }
        let t = self.t;
        out.t_end = t;
        if self.k > 0 && t > 0.0 {
            // At the last crossing when the loop ended there, else at the last step.
            let src = if out.end == OrbitEnd::Complete {
                &self.buf
            } else {
                &self.y
            };
            let off = self.flow.layout.tangent_offset();
            let norm = src[off..].iter().map(|v| v * v).sum::<f64>().sqrt();
            out.lyapunov = Some((self.log_growth + norm.ln()) / t);
        }
        out.stats = self.solver.stats();
        out
    }
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
    pub orbit: OrbitOptions,
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
        if let OrbitEnd::Failed(m) = &o.end {
            return Err(PoincareError::Failed {
                orbit: i + 1,
                message: m.clone(),
            });
        }
    }
    Ok(PoincareResult { shells, complete })
}
