//! The fast Lyapunov indicator (Froeschlé, Lega & Gonczi, Celest. Mech. Dyn. Astron. 67, 41
//! (1997)) and its orthogonal variant OFLI (Fouchard, Lega, Froeschlé & Froeschlé, Celest. Mech.
//! Dyn. Astron. 83, 205 (2002)) as a reducer on the single-orbit [`driver`](super::driver).
//!
//! One tangent vector w, of unit length at t = 0 along (1, …, 1)/√n, is integrated with the state
//! and renormalised every τ, the logs of the norms summed, so that `ln‖w(t)‖` is known however
//! large w grows. At every interval end
//!
//! * `FLI(t) = sup_{s ≤ t} ln‖w(s)‖`;
//! * `OFLI(t) = sup_{s ≤ t} ln‖w⊥(s)‖`, w⊥ the part of w orthogonal to the flow ẋ = f(t, x)
//!   (one evaluation of f per interval; w⊥ = w where f = 0).
//!
//! On a chaotic orbit FLI grows linearly, `FLI(t) ≈ λ_max t`, so `FLI(t)/t → λ_max` (the
//! [`FliOrbit::rate`]); on a regular orbit of a Hamiltonian system w grows linearly in t (the
//! shear between neighbouring tori), so FLI grows like ln t, and OFLI, which drops the growth
//! along the flow, stays bounded on a periodic orbit. The sup is taken over the interval ends.

use super::driver::{drive, End, Plan, Reducer, Sampling, Step, Tangent, Thinned, Tick};
use super::indicator::{status, Chart, IndicatorEnd, Line, OrbitFinding, OrbitRecord, Registered};
use super::{IndicatorOptions, LyapunovError};
use crate::format::{f64_json, format_value, num};
use crate::integrate::Method;
use crate::model::System;
use crate::observe::Observer;
use serde_json::json;

/// Options of [`fli_orbit`]: τ is the renormalisation and sampling interval; the run starts
/// at 0.
pub type FliOptions = IndicatorOptions;

/// FLI(t) and OFLI(t) at evenly spaced interval ends (thinned), starting at t = 0.
#[derive(Debug, Clone, Default)]
pub struct FliHistory {
    pub time: Vec<f64>,
    pub fli: Vec<f64>,
    pub ofli: Vec<f64>,
}

/// A fast Lyapunov indicator with its history and diagnostics.
#[derive(Debug, Clone)]
pub struct FliOrbit {
    /// FLI(t_end) = sup ln‖w‖.
    pub fli: f64,
    /// OFLI(t_end) = sup ln‖w⊥‖.
    pub ofli: f64,
    /// `FLI(t_end) / t_end` (1/s): → λ_max on a chaotic orbit, → 0 (as ln t / t) on a regular one.
    pub rate: f64,
    /// `ln‖w(t_end)‖` (the last value, not the sup).
    pub log_norm: f64,
    pub history: FliHistory,
    /// The run's end, energy balance, work and options.
    pub end: IndicatorEnd,
}

/// FLI and OFLI along the orbit of `sys` from `x0` (see the module docs). Errors:
/// [`LyapunovError::Invalid`] for bad options (τ ≤ 0 or not a multiple of dt, time < τ, …)
/// before any work; [`AnalysisError::Blowup`](crate::analysis::AnalysisError) for NaN/Inf.
pub fn fli_orbit<S: System>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &FliOptions,
    observer: &mut dyn Observer,
) -> Result<FliOrbit, LyapunovError> {
    let plan = Plan::timed(
        opts.tau,
        opts.time,
        Sampling::Interval,
        opts.max_history,
        true,
    );
    let n = sys.dim();
    let reducer = Fli {
        method,
        opts,
        ws: sys.workspace(),
        f: vec![0.0; n],
        log_growth: 0.0,
        fli: 0.0,
        ofli: f64::NEG_INFINITY,
        hist: Thinned::new(opts.max_history, &[0.0, 0.0, 0.0]),
        renorm: 0,
    };
    drive(sys, method, x0, &plan, reducer, observer)
}

/// FLI's running state; a history row is (t, FLI, OFLI).
struct Fli<'a, S: System> {
    method: &'a Method,
    opts: &'a FliOptions,
    ws: S::Workspace,
    f: Vec<f64>,
    /// Σ ln‖w‖ at the renormalisations so far.
    log_growth: f64,
    fli: f64,
    ofli: f64,
    hist: Thinned,
    renorm: u64,
}

impl<S: System> Fli<'_, S> {
    /// ln‖w⊥‖ − log_growth: the log of the part of `v` orthogonal to f(t, x).
    fn log_orthogonal(&mut self, sys: &S, t: f64, x: &[f64], v: &[f64]) -> f64 {
        sys.rhs(t, x, &mut self.f, &mut self.ws);
        let ff: f64 = self.f.iter().map(|a| a * a).sum();
        let c = if ff > 0.0 {
            v.iter().zip(&self.f).map(|(a, b)| a * b).sum::<f64>() / ff
        } else {
            0.0
        };
        let perp: f64 = v
            .iter()
            .zip(&self.f)
            .map(|(a, b)| (a - c * b) * (a - c * b))
            .sum();
        0.5 * perp.ln()
    }
}

impl<S: System> Reducer<S> for Fli<'_, S> {
    type Output = FliOrbit;

    fn tangent(&self, n: usize) -> Tangent {
        Tangent::one(self.opts.start_deviation(), n)
    }

    fn init(&mut self, sys: &S, x: &[f64], v: &mut [f64]) {
        self.ofli = self.log_orthogonal(sys, 0.0, x, v);
        self.hist = Thinned::new(self.opts.max_history, &[0.0, 0.0, self.ofli]);
    }

    fn interval(&mut self, sys: &S, tick: Tick, x: &[f64], v: &mut [f64]) -> Step {
        let Tick { e, t, total, .. } = tick;
        let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        let perp = self.log_growth + self.log_orthogonal(sys, t, x, v);
        self.fli = self.fli.max(self.log_growth + norm.ln());
        self.ofli = self.ofli.max(perp);
        v.iter_mut().for_each(|a| *a /= norm);
        self.log_growth += norm.ln();
        self.renorm += 1;
        let recorded = self.hist.due(e) || e == total;
        if recorded {
            self.hist.push(e, &[t, self.fli, self.ofli]);
        }
        Step {
            recorded,
            stop: false,
        }
    }

    fn finish(mut self, _sys: &S, end: End<'_>) -> FliOrbit {
        let (done, t_end) = (end.done, end.t_end);
        if self.hist.index.last() != Some(&done) {
            self.hist
                .push_unthinned(done, &[t_end, self.fli, self.ofli]);
        }
        let log_norm = self.log_growth + end.v.iter().map(|a| a * a).sum::<f64>().sqrt().ln();
        FliOrbit {
            fli: self.fli,
            ofli: self.ofli,
            rate: if t_end > 0.0 {
                self.fli / t_end
            } else {
                f64::NAN
            },
            log_norm,
            history: FliHistory {
                time: self.hist.column(0),
                fli: self.hist.column(1),
                ofli: self.hist.column(2),
            },
            end: IndicatorEnd::new(
                FliEstimator::NAME,
                &end,
                // As run: the default start resolved, so that the result says which it used.
                &FliOptions {
                    deviation: Some(self.opts.start_deviation()),
                    ..*self.opts
                },
                self.method,
                self.renorm,
                None,
            ),
        }
    }
}

/// FLI as the spec names it (`lyapunov.estimator = "fli"`).
pub struct FliEstimator;

super::chain_estimator!(
    /// [`fli_orbit`] for a planar chain from `(θ, θ̇)`; Gauss–Legendre runs in canonical
    /// coordinates (w and the flow direction then refer to (θ, p); FLI's growth rate is
    /// coordinate independent).
    chain_fli,
    FliEstimator,
    FliOptions,
    FliOrbit,
    fli_orbit
);

impl Registered for FliEstimator {
    const NAME: &'static str = "fli";
}

/// The `fli` group: variables `fli(time)` and `ofli(time)`; as attributes FLI and OFLI at
/// t_end, the rate FLI/t_end and ln|w(t_end)|.
impl OrbitFinding for FliOrbit {
    fn record(&self) -> OrbitRecord<'_> {
        let h = &self.history;
        OrbitRecord::over(&self.end, &h.time)
            .var("fli", &h.fli, "fast Lyapunov indicator FLI(t) = sup_(s<=t) ln|w(s)|, |w(0)| = 1 (~ lambda t chaotic, ~ ln t regular)")
            .var("ofli", &h.ofli, "orthogonal FLI: sup_(s<=t) ln|w_perp(s)|, w_perp the part of w orthogonal to the flow")
            .attr("fli", self.fli)
            .attr("ofli", self.ofli)
            .attr("fli_rate", self.rate)
            .attr("log_norm_end", self.log_norm)
    }

    fn summary(&self) -> serde_json::Value {
        json!({
            "fli": f64_json(self.fli), "ofli": f64_json(self.ofli),
            "fli_rate": f64_json(self.rate), "log_norm_end": f64_json(self.log_norm),
        })
    }

    fn report(&self) -> String {
        format!(
            "FLI over 0..{} s ({}, tau = {} s): FLI = {}, OFLI = {}\n  FLI / t = {} (1/s): ~ lambda_max on a chaotic orbit, ~ ln(t)/t on a regular one\n",
            self.end.t_end,
            self.end.method.name(),
            self.end.options.tau,
            num(self.fli),
            num(self.ofli),
            num(self.rate)
        )
    }

    /// FLI(t) and OFLI(t) with the line (FLI/t)·t.
    fn chart(&self) -> Chart<'_> {
        let h = &self.history;
        Chart {
            caption: format!(
                "FLI, {}, FLI/t = {} s⁻¹{}",
                self.end.method.name(),
                format_value(self.rate, 4),
                status(self.end.complete)
            ),
            y_label: "FLI, OFLI",
            lines: vec![
                Line::of("FLI(t) = sup ln|w|", &h.time, &h.fli),
                Line::of("OFLI(t) = sup ln|w⊥|", &h.time, &h.ofli),
                Line::segment("(FLI/t)·t", [0.0, self.end.t_end], [0.0, self.fli]),
            ],
        }
    }
}
