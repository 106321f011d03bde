//! Final-state (basin) classification of one pixel of a damped or driven chain.
//!
//! **Undriven chains** end at rest in one of the 2^N vertical equilibria θ*_j ∈ {0, π}. After
//! every RK4 step (and at t = 0) each link's angle is reduced mod 2π to w_j ∈ [−π, π] and
//! compared with the nearer of 0 and π; the state is *near* equilibrium `mask` (bit j set: link
//! j + 1 points up) when every |w_j − θ*_j| < `angle_tol` and every |θ̇_j| < `omega_tol`. It
//! has *settled* once it stayed near the same equilibrium for `dwell_steps` consecutive steps;
//! the settle time is the time of the first step of that stretch, and the net turns
//! n_j = round((θ_j − θ*_j)/2π) are recorded (θ ≡ θ* mod 2π: winding is allowed).
//!
//! **Driven chains** (a torque or a moving pivot) are sampled stroboscopically every drive
//! period T (an integer number of steps). The orbit is a period-k orbit once every sample
//! matched the sample k periods earlier (wrapped angles within `angle_tol`, velocities within
//! `omega_tol`) for `repeats · k` consecutive samples, for the least such k ≤ `max_period`; the
//! settle time is the time of the first sample of the matching stretch minus k periods, and the
//! rotation number of link j is round((θ_j(t) − θ_j(t − kT))/2π) / k turns per period.
//!
//! A pixel that meets neither by t_max is *unsettled*. Integration stops at classification:
//! the final angles are the wrapped angles at that moment (or at t_max).

use crate::integrate::rk4::Rk4Solver;
use crate::integrate::Flow;
use crate::model::angle::wrap_nearest;
use crate::model::Chain;
use serde::Serialize;
use std::f64::consts::{PI, TAU};

/// Labels of a final-state map's `class`.
pub mod label {
    /// Neither at rest nor periodic by t_max.
    pub const UNSETTLED: u8 = 0;
    /// Equilibrium with inverted-link mask m has label `EQUILIBRIUM + m` (m < 2^N, N ≤ 6).
    pub const EQUILIBRIUM: u8 = 1;
    /// A period-k stroboscopic orbit has label `PERIODIC + k` (1 ≤ k ≤ 64).
    pub const PERIODIC: u8 = 100;
    /// The state became non-finite.
    pub const DIVERGED: u8 = 254;
}

/// Most links a final-state map classifies (2^6 equilibrium labels).
pub const MAX_LINKS: usize = 6;
/// Largest stroboscopic period searched.
pub const MAX_PERIOD: u32 = 64;

/// Stroboscopic sampling of a driven chain.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Strobe {
    /// RK4 steps per drive period.
    pub period_steps: u32,
    /// Largest period k searched (≤ [`MAX_PERIOD`]).
    pub max_period: u32,
    /// A period-k orbit must repeat this many times.
    pub repeats: u32,
}

/// The settling criteria (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Settle {
    /// rad.
    pub angle_tol: f64,
    /// rad/s.
    pub omega_tol: f64,
    /// Undriven chains: consecutive steps the state must stay near one equilibrium.
    pub dwell_steps: u32,
    /// Driven chains: the stroboscopic test instead of the equilibrium test.
    pub strobe: Option<Strobe>,
}

impl Settle {
    /// The stroboscopic test of a driven chain with one tolerance `tol` for angles (rad) and
    /// rates (rad/s): one sample every `period_steps` RK4 steps, orbits of period up to
    /// `max_period` that repeat `repeats` times.
    pub fn stroboscopic(tol: f64, period_steps: u32, max_period: u32, repeats: u32) -> Settle {
        Settle {
            angle_tol: tol,
            omega_tol: tol,
            dwell_steps: 0,
            strobe: Some(Strobe {
                period_steps,
                max_period,
                repeats,
            }),
        }
    }
}

/// The legend of a final-state map: (label, CF flag meaning, description).
pub fn legend(n_links: usize, settle: &Settle) -> Vec<(u8, String, String)> {
    let mut out = vec![(
        label::UNSETTLED,
        "unsettled".to_string(),
        "neither at rest nor periodic by t_max".to_string(),
    )];
    match settle.strobe {
        None => {
            for m in 0..1u32 << n_links {
                let up: Vec<String> = (0..n_links)
                    .filter(|j| m >> j & 1 == 1)
                    .map(|j| (j + 1).to_string())
                    .collect();
                let theta: Vec<&str> = (0..n_links)
                    .map(|j| if m >> j & 1 == 1 { "π" } else { "0" })
                    .collect();
                let (word, text) = if up.is_empty() {
                    ("hanging".to_string(), "at rest hanging".to_string())
                } else {
                    (
                        format!("inverted_{}", up.join("_")),
                        format!(
                            "at rest with link{} {} inverted",
                            if up.len() > 1 { "s" } else { "" },
                            up.join(", ")
                        ),
                    )
                };
                out.push((
                    label::EQUILIBRIUM + m as u8,
                    word,
                    format!("{text} (θ* = ({}) mod 2π)", theta.join(", ")),
                ));
            }
        }
        Some(s) => {
            for k in 1..=s.max_period {
                out.push((
                    label::PERIODIC + k as u8,
                    format!("period_{k}"),
                    format!("period-{k} orbit of the stroboscopic map (drive period T)"),
                ));
            }
        }
    }
    out.push((
        label::DIVERGED,
        "diverged".to_string(),
        "the state became non-finite".to_string(),
    ));
    out
}

/// A short description of `label` for figure legends.
pub fn describe(label: u8) -> String {
    match label {
        label::UNSETTLED => "unsettled by t_max".into(),
        label::DIVERGED => "diverged".into(),
        l if l >= label::PERIODIC => format!("period-{} orbit", l - label::PERIODIC),
        l => {
            let m = u32::from(l - label::EQUILIBRIUM);
            let up: Vec<String> = (0..8)
                .filter(|j| m >> j & 1 == 1)
                .map(|j| (j + 1).to_string())
                .collect();
            match up.len() {
                0 => "hanging".into(),
                1 => format!("link {} inverted", up[0]),
                _ => format!("links {} inverted", up.join(", ")),
            }
        }
    }
}

/// The nearer vertical equilibrium of the angles `theta`: (inverted-link mask, whether every
/// link is within `tol` of it).
#[inline]
fn nearest_vertical(theta: &[f64], tol: f64) -> (u32, bool) {
    let mut mask = 0;
    let mut near = true;
    for (j, &th) in theta.iter().enumerate() {
        let w = wrap_nearest(th);
        let dev = if w.abs() <= 0.5 * PI {
            w
        } else {
            mask |= 1 << j;
            w - PI.copysign(w)
        };
        near &= dev.abs() < tol;
    }
    (mask, near)
}

/// Whether the state `x` (θ, θ̇) is near a vertical equilibrium; its mask if so.
#[inline]
pub fn near_equilibrium(x: &[f64], settle: &Settle) -> Option<u32> {
    let n = x.len() / 2;
    let (mask, near) = nearest_vertical(&x[..n], settle.angle_tol);
    (near && x[n..].iter().all(|w| w.abs() < settle.omega_tol)).then_some(mask)
}

/// The classification of one pixel. `aux` receives, per link, the wrapped final angle, the
/// net turns (equilibria; NaN otherwise) and the rotation number (periodic; NaN otherwise):
/// `[angle_1..N, turns_1..N, rotation_1..N]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub label: u8,
    /// s; NaN when unsettled or diverged.
    pub settle_time: f64,
    pub steps: u64,
}

impl Outcome {
    /// Unsettled or diverged after `steps` steps.
    fn ended(label: u8, steps: u32) -> Outcome {
        Outcome {
            label,
            settle_time: f64::NAN,
            steps: u64::from(steps),
        }
    }
}

/// A settling rule applied to one pixel after every RK4 step: what [`classify`] and the SIMD
/// kernel share, so that both classify by the same rule. `aux` is filled as [`classify`]
/// documents once the pixel ends.
pub trait Rule {
    /// Starts a pixel at `x0` (`n` steps at most); its outcome if it ends there.
    fn start(&mut self, x0: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome>;
    /// Counts one more step, which reached `x`; the outcome once the pixel ends.
    fn advance(&mut self, x: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome>;
    /// Steps taken: the next one starts at t = steps · h.
    fn steps(&self) -> u32;
}

/// The equilibrium rule (undriven chains; see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct Dwell {
    settle: Settle,
    /// Steps the pixel has taken.
    k: u32,
    /// Consecutive samples near equilibrium `mask`, from step `start` on.
    run: u32,
    mask: u32,
    start: u32,
}

impl Dwell {
    pub fn new(settle: Settle) -> Dwell {
        Dwell {
            settle,
            k: 0,
            run: 0,
            mask: 0,
            start: 0,
        }
    }

    /// The rule at the state `x` (θ, θ̇) after step `self.k` (the start when 0).
    #[inline(always)]
    fn check(&mut self, x: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome> {
        let settle = &self.settle;
        let nl = x.len() / 2;
        if self.k > 0 && !x.iter().all(|v| v.is_finite()) {
            return Some(Outcome::ended(label::DIVERGED, self.k));
        }
        match near_equilibrium(x, settle) {
            Some(mask) if self.run > 0 && mask == self.mask => self.run += 1,
            Some(mask) => (self.run, self.mask, self.start) = (1, mask, self.k),
            None => self.run = 0,
        }
        if self.run > settle.dwell_steps {
            // Held for dwell_steps steps after the first one near it.
            for j in 0..nl {
                let star = if self.mask >> j & 1 == 1 { PI } else { 0.0 };
                aux[j] = wrap_nearest(x[j]);
                aux[nl + j] = ((x[j] - star) / TAU).round();
            }
            return Some(Outcome {
                label: label::EQUILIBRIUM + self.mask as u8,
                settle_time: f64::from(self.start) * h,
                steps: u64::from(self.k),
            });
        }
        if self.k == n {
            for j in 0..nl {
                aux[j] = wrap_nearest(x[j]);
            }
            return Some(Outcome::ended(label::UNSETTLED, n));
        }
        None
    }
}

impl Rule for Dwell {
    #[inline(always)]
    fn start(&mut self, x0: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome> {
        *self = Dwell::new(self.settle);
        self.check(x0, n, h, aux)
    }

    #[inline(always)]
    fn advance(&mut self, x: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome> {
        self.k += 1;
        self.check(x, n, h, aux)
    }

    fn steps(&self) -> u32 {
        self.k
    }
}

/// One pixel's progress through the stroboscopic rule (driven chains; see the module doc),
/// shared by [`classify`] and the SIMD lanes. It owns its ring of samples (reused from pixel to
/// pixel: [`Rule::start`] only clears it).
#[derive(Debug, Clone)]
pub struct Stroboscope {
    settle: Settle,
    strobe: Strobe,
    /// Steps the pixel has taken.
    k: u32,
    /// Stroboscopic samples taken after the start.
    m: usize,
    /// The last kmax + 1 samples (θ unwrapped, θ̇), then per period p the length of the current
    /// run of samples matching the one p periods earlier.
    ring: Vec<f64>,
}

impl Stroboscope {
    pub fn new(ring: Vec<f64>, settle: Settle, strobe: Strobe) -> Stroboscope {
        Stroboscope {
            settle,
            strobe,
            k: 0,
            m: 0,
            ring,
        }
    }

    /// The rule at the state `x` after step `self.k` ≥ 1.
    #[inline]
    fn check(&mut self, x: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome> {
        let (s, settle) = (&self.strobe, &self.settle);
        let dim = x.len();
        let nl = dim / 2;
        let kmax = s.max_period as usize;
        let k = self.k;
        if !x.iter().all(|v| v.is_finite()) {
            return Some(Outcome::ended(label::DIVERGED, k));
        }
        if k.is_multiple_of(s.period_steps) {
            self.m += 1;
            let m = self.m;
            let (samples, runs) = self.ring.split_at_mut((kmax + 1) * dim);
            let slot = m % (kmax + 1);
            samples[slot * dim..(slot + 1) * dim].copy_from_slice(x);
            for p in 1..=kmax.min(m) {
                let old = &samples[((m - p) % (kmax + 1)) * dim..][..dim];
                let same = (0..nl).all(|j| {
                    wrap_nearest(x[j] - old[j]).abs() < settle.angle_tol
                        && (x[nl + j] - old[nl + j]).abs() < settle.omega_tol
                });
                runs[p - 1] = if same { runs[p - 1] + 1.0 } else { 0.0 };
            }
            if let Some(p) = (1..=kmax).find(|&p| runs[p - 1] >= f64::from(s.repeats) * p as f64) {
                let old = &samples[((m - p) % (kmax + 1)) * dim..][..dim];
                for j in 0..nl {
                    aux[j] = wrap_nearest(x[j]);
                    aux[2 * nl + j] = ((x[j] - old[j]) / TAU).round() / p as f64;
                }
                let first = m as f64 - runs[p - 1] + 1.0 - p as f64;
                return Some(Outcome {
                    label: label::PERIODIC + p as u8,
                    settle_time: first * f64::from(s.period_steps) * h,
                    steps: u64::from(k),
                });
            }
        }
        if k == n {
            for j in 0..nl {
                aux[j] = wrap_nearest(x[j]);
            }
            return Some(Outcome::ended(label::UNSETTLED, n));
        }
        None
    }
}

impl Rule for Stroboscope {
    fn start(&mut self, x0: &[f64], n: u32, _h: f64, aux: &mut [f64]) -> Option<Outcome> {
        let (dim, kmax) = (x0.len(), self.strobe.max_period as usize);
        self.ring.clear();
        self.ring.resize((kmax + 1) * dim + kmax, 0.0);
        self.ring[..dim].copy_from_slice(x0);
        (self.k, self.m) = (0, 0);
        if n > 0 {
            return None;
        }
        for j in 0..dim / 2 {
            aux[j] = wrap_nearest(x0[j]);
        }
        Some(Outcome::ended(label::UNSETTLED, 0))
    }

    #[inline]
    fn advance(&mut self, x: &[f64], n: u32, h: f64, aux: &mut [f64]) -> Option<Outcome> {
        self.k += 1;
        self.check(x, n, h, aux)
    }

    fn steps(&self) -> u32 {
        self.k
    }
}

/// Integrates `x0` with RK4 (steps at t_k = k·h) until it settles or `n` steps pass.
/// `y` and `ring` are scratch (no allocation per pixel once sized).
#[allow(clippy::too_many_arguments)]
pub fn classify(
    flow: &mut Flow<'_, Chain>,
    solver: &mut Rk4Solver,
    settle: &Settle,
    x0: &[f64],
    n: u32,
    h: f64,
    y: &mut Vec<f64>,
    ring: &mut Vec<f64>,
    aux: &mut [f64],
) -> Outcome {
    y.clear();
    y.extend_from_slice(x0);
    aux.fill(f64::NAN);
    match settle.strobe {
        None => run_rule(&mut Dwell::new(*settle), flow, solver, n, h, y, aux),
        Some(s) => {
            let mut rule = Stroboscope::new(std::mem::take(ring), *settle, s);
            let o = run_rule(&mut rule, flow, solver, n, h, y, aux);
            *ring = rule.ring;
            o
        }
    }
}

/// Steps `y` with RK4 until `rule` ends the pixel.
fn run_rule(
    rule: &mut impl Rule,
    flow: &mut Flow<'_, Chain>,
    solver: &mut Rk4Solver,
    n: u32,
    h: f64,
    y: &mut [f64],
    aux: &mut [f64],
) -> Outcome {
    if let Some(o) = rule.start(y, n, h, aux) {
        return o;
    }
    loop {
        solver.rk4_step(flow, f64::from(rule.steps()) * h, h, y);
        if let Some(o) = rule.advance(y, n, h, aux) {
            return o;
        }
    }
}
