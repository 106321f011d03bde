//! The single-orbit MEGNO estimator (Cincotta & Simó, A&AS 147, 205 (2000)): one tangent
//! vector integrated with the state on the single-orbit [`driver`](super::driver), and
//! `r = δ̇·δ / δ·δ` with `δ̇ = J(x, t)·δ` (the exact tangent flow, no differences) fed to the
//! [`Megno`] accumulator.
//!
//! r is sampled at every step of a fixed-step method (RK4, Gauss–Legendre) and every τ for DOP853,
//! whose steps are not on a grid; δ is renormalised every τ (r is scale invariant, so this only
//! keeps it finite). The result is ⟨Y⟩(t_end), Y(t_end) and the least-squares slope of ⟨Y⟩(t)
//! over the second half of the run, `[t_end/2, t_end]`, fitted by default at the multiples of τ
//! there and t_end (the MEGNO map's rule; `SlopeSamples::Step`: every sample): on a chaotic
//! orbit ⟨Y⟩ ≈ (λ_max/2) t, so `λ ≈ 2·slope`; ⟨Y⟩ → 2 on a quasi-periodic orbit and → 0 on a
//! stable periodic one (an isochronous oscillator), whose slopes tend to 0.
//!
//! δ(0) is by default the maps' (1, …, 1)/√n ([`Deviation::DEFAULT`](super::Deviation)): a
//! finite-time ⟨Y⟩ depends on δ(0), and the single orbit and a one-pixel `map --kind megno`
//! give one value by default (tests/indicator_agreement.rs).

use super::driver::{drive, End, Plan, Reducer, Sampling, Step, Tangent, Thinned, Tick};
use super::indicator::{status, Chart, IndicatorEnd, Line, OrbitFinding, OrbitRecord, Registered};
use super::{IndicatorOptions, LyapunovError};
use crate::format::{f64_json, format_value, num};
use crate::integrate::Method;
use crate::model::System;
use crate::observe::Observer;
use serde::Serialize;
use serde_json::json;

/// Options of [`megno_orbit`]: τ renormalises δ (and is the sampling interval of r for
/// DOP853); the run starts at 0 with no transient (the weight s in ∫ s r ds already discounts
/// the start).
pub type MegnoOptions = IndicatorOptions;

/// Y(t) and ⟨Y⟩(t) at evenly spaced sample times (thinned), starting at t = 0.
#[derive(Debug, Clone, Default)]
pub struct MegnoHistory {
    pub time: Vec<f64>,
    pub y: Vec<f64>,
    pub mean: Vec<f64>,
}

/// The fit ⟨Y⟩ ≈ intercept + slope·t over the second half of the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MegnoFit {
    /// d⟨Y⟩/dt (1/s): λ_max/2 on a chaotic orbit, → 0 on a regular one.
    pub slope: f64,
    pub intercept: f64,
    /// The window `[start, end]` (s) and the samples in it.
    pub start: f64,
    pub end: f64,
    pub samples: u64,
    /// True when fitted over every sample of the window; false for a run stopped early, fitted
    /// over the (thinned) history's second half.
    pub every_sample: bool,
}

/// A MEGNO estimate with its history and diagnostics.
#[derive(Debug, Clone)]
pub struct MegnoOrbit {
    /// ⟨Y⟩(t_end).
    pub mean: f64,
    /// Y(t_end).
    pub y: f64,
    pub fit: MegnoFit,
    /// `2·slope` (1/s): the maximal exponent MEGNO implies.
    pub lyapunov: f64,
    /// `ln(|δ(t_end)| / |δ(0)|) / t_end` (1/s): the tangent estimator's exponent on the same
    /// vector, for comparison.
    pub finite_time_exponent: f64,
    pub history: MegnoHistory,
    /// Time between samples of r (s): dt, or τ for DOP853.
    pub sample_interval: f64,
    /// The run's end, energy balance, work (with the samples of r) and options.
    pub end: IndicatorEnd,
}

/// Running MEGNO integrals by the trapezoid rule over samples (t, r(t)) fed in time order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Megno {
    t: f64,
    /// s·r(s) at the last sample.
    sr: f64,
    /// ∫₀ᵗ s r(s) ds.
    int_sr: f64,
    /// Y at the last sample and ∫₀ᵗ Y ds.
    y: f64,
    int_y: f64,
    started: bool,
}

impl Megno {
    pub fn new() -> Megno {
        Megno::default()
    }

    /// Adds the sample r(t) (t after the previous sample's; the first sample fixes t₀ = its t,
    /// normally 0).
    pub fn push(&mut self, t: f64, r: f64) {
        let sr = t * r;
        if !self.started {
            *self = Megno {
                t,
                sr,
                started: true,
                ..Megno::default()
            };
            return;
        }
        let h = t - self.t;
        self.int_sr += 0.5 * h * (self.sr + sr);
        let y = if t > 0.0 { 2.0 * self.int_sr / t } else { 0.0 };
        self.int_y += 0.5 * h * (self.y + y);
        (self.t, self.sr, self.y) = (t, sr, y);
    }

    /// Y(t) at the last sample.
    pub fn y(&self) -> f64 {
        self.y
    }

    /// ⟨Y⟩(t) at the last sample (0 before any time has passed).
    pub fn mean(&self) -> f64 {
        if self.t > 0.0 {
            self.int_y / self.t
        } else {
            0.0
        }
    }
}

/// Least-squares slope of `ys` over `ts` (the MEGNO slope over the second half → λ_max/2).
pub fn slope(ts: &[f64], ys: &[f64]) -> f64 {
    let n = ts.len().min(ys.len()) as f64;
    let (mt, my) = (ts.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (t, y) in ts.iter().zip(ys) {
        sxy += (t - mt) * (y - my);
        sxx += (t - mt) * (t - mt);
    }
    sxy / sxx
}

/// Running least-squares slope (Welford's updates: no cancellation at t ~ 1e4 over 1e7 samples).
#[derive(Debug, Clone, Copy, Default)]
struct SlopeFit {
    n: u64,
    mt: f64,
    my: f64,
    sxx: f64,
    sxy: f64,
}

impl SlopeFit {
    fn push(&mut self, t: f64, y: f64) {
        self.n += 1;
        let n = self.n as f64;
        let dt = t - self.mt;
        self.mt += dt / n;
        self.my += (y - self.my) / n;
        self.sxx += dt * (t - self.mt);
        self.sxy += dt * (y - self.my);
    }
    fn slope(&self) -> f64 {
        self.sxy / self.sxx
    }
}

/// MEGNO along the orbit of `sys` from `x0` (see the module docs). Errors:
/// [`LyapunovError::Invalid`] for bad options (τ ≤ 0 or not a multiple of dt, time < τ, …)
/// before any work; [`AnalysisError::Blowup`](crate::analysis::AnalysisError) for NaN/Inf.
pub fn megno_orbit<S: System>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &MegnoOptions,
    observer: &mut dyn Observer,
) -> Result<MegnoOrbit, LyapunovError> {
    let plan = Plan::timed(opts.tau, opts.time, Sampling::Step, opts.max_history, true);
    let n = sys.dim();
    let reducer = MegnoRun {
        method,
        opts,
        ws: sys.workspace(),
        dx: vec![0.0; n],
        dv: vec![0.0; n],
        megno: Megno::new(),
        fit: SlopeFit::default(),
        hist: Thinned::new(opts.max_history, &[0.0, 0.0, 0.0]),
        log_growth: 0.0,
        renorm: 0,
    };
    drive(sys, method, x0, &plan, reducer, observer)
}

/// MEGNO's running state: the accumulator, the second-half fit and the history (t, Y, ⟨Y⟩).
struct MegnoRun<'a, S: System> {
    method: &'a Method,
    opts: &'a MegnoOptions,
    ws: S::Workspace,
    dx: Vec<f64>,
    dv: Vec<f64>,
    megno: Megno,
    fit: SlopeFit,
    hist: Thinned,
    log_growth: f64,
    renorm: u64,
}

impl<S: System> MegnoRun<'_, S> {
    /// r = δ̇·δ / δ·δ with δ̇ = J(x, t)·δ.
    fn rate(&mut self, sys: &S, t: f64, x: &[f64], v: &[f64]) -> f64 {
        sys.rhs_tangent(t, x, v, &mut self.dx, &mut self.dv, &mut self.ws);
        let vv: f64 = v.iter().map(|a| a * a).sum();
        self.dv.iter().zip(v).map(|(a, b)| a * b).sum::<f64>() / vv
    }
}

impl<S: System> Reducer<S> for MegnoRun<'_, S> {
    type Output = MegnoOrbit;

    fn tangent(&self, n: usize) -> Tangent {
        Tangent::one(self.opts.start_deviation(), n)
    }

    fn init(&mut self, sys: &S, x: &[f64], v: &mut [f64]) {
        let r = self.rate(sys, 0.0, x, v);
        self.megno.push(0.0, r);
    }

    fn interval(&mut self, sys: &S, tick: Tick, x: &[f64], v: &mut [f64]) -> Step {
        let Tick {
            e,
            t,
            total,
            renorm,
        } = tick;
        let r = self.rate(sys, t, x, v);
        self.megno.push(t, r);
        // The map's rule (`SlopeSamples::Tau`, the default) keeps the interval ends, the last one
        // included.
        use super::indicator::SlopeSamples;
        let on_tau = self.opts.slope_samples.unwrap_or(SlopeSamples::DEFAULT) == SlopeSamples::Tau;
        if 2 * e >= total && (!on_tau || renorm || e == total) {
            self.fit.push(t, self.megno.mean());
        }
        if renorm {
            let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            v.iter_mut().for_each(|a| *a /= norm);
            self.log_growth += norm.ln();
            self.renorm += 1;
        }
        let recorded = self.hist.due(e) || e == total;
        if recorded {
            self.hist.push(e, &[t, self.megno.y(), self.megno.mean()]);
        }
        Step {
            recorded,
            stop: false,
        }
    }

    fn finish(mut self, _sys: &S, end: End<'_>) -> MegnoOrbit {
        let (done, total, t_end) = (end.done, end.total, end.t_end);
        if self.hist.index.last() != Some(&done) {
            self.hist
                .push_unthinned(done, &[t_end, self.megno.y(), self.megno.mean()]);
        }
        let hist = MegnoHistory {
            time: self.hist.column(0),
            y: self.hist.column(1),
            mean: self.hist.column(2),
        };
        // The part of δ grown since the last renormalisation.
        let log_growth = self.log_growth + end.v.iter().map(|a| a * a).sum::<f64>().sqrt().ln();
        let fit = if end.complete && done == total {
            let fit = &self.fit;
            MegnoFit {
                slope: fit.slope(),
                intercept: fit.my - fit.slope() * fit.mt,
                start: end.stepper.time(total.div_ceil(2)),
                end: end.stepper.time(total),
                samples: fit.n,
                every_sample: true,
            }
        } else {
            let from = hist.time.partition_point(|&s| s < 0.5 * t_end);
            let (ts, ms) = (&hist.time[from..], &hist.mean[from..]);
            let s = if ts.len() >= 2 {
                slope(ts, ms)
            } else {
                f64::NAN
            };
            let mt = ts.iter().sum::<f64>() / ts.len() as f64;
            let my = ms.iter().sum::<f64>() / ms.len() as f64;
            MegnoFit {
                slope: s,
                intercept: my - s * mt,
                start: ts.first().copied().unwrap_or(f64::NAN),
                end: t_end,
                samples: ts.len() as u64,
                every_sample: false,
            }
        };
        MegnoOrbit {
            mean: self.megno.mean(),
            y: self.megno.y(),
            lyapunov: 2.0 * fit.slope,
            fit,
            finite_time_exponent: if t_end > 0.0 {
                log_growth / t_end
            } else {
                f64::NAN
            },
            history: hist,
            sample_interval: end.sample_interval,
            end: IndicatorEnd::new(
                MegnoEstimator::NAME,
                &end,
                // As run: the defaults resolved, so that the result says which it used.
                &MegnoOptions {
                    deviation: Some(self.opts.start_deviation()),
                    slope_samples: Some(
                        self.opts
                            .slope_samples
                            .unwrap_or(super::indicator::SlopeSamples::DEFAULT),
                    ),
                    ..*self.opts
                },
                self.method,
                self.renorm,
                Some(done + 1),
            ),
        }
    }
}

/// MEGNO as the spec names it (`lyapunov.estimator = "megno"`).
pub struct MegnoEstimator;

super::chain_estimator!(
    /// [`megno_orbit`] for a planar chain from `(θ, θ̇)`; Gauss–Legendre runs in canonical
    /// coordinates (r then refers to (θ, p); ⟨Y⟩'s limits and slope are coordinate independent).
    chain_megno,
    MegnoEstimator,
    MegnoOptions,
    MegnoOrbit,
    megno_orbit
);

impl Registered for MegnoEstimator {
    const NAME: &'static str = "megno";
}

/// The `megno` group: variables `megno_y(time)` (Y) and `megno_mean(time)` (⟨Y⟩); as
/// attributes ⟨Y⟩ and Y at t_end, the second-half fit (slope, intercept, window), λ = 2·slope,
/// the tangent vector's finite-time exponent and the sampling interval of r.
impl OrbitFinding for MegnoOrbit {
    fn record(&self) -> OrbitRecord<'_> {
        let h = &self.history;
        OrbitRecord::over(&self.end, &h.time)
            .var("megno_y", &h.y, "MEGNO Y(t) = (2/t) integral_0^t s r(s) ds, r = (J delta).delta / delta.delta")
            .var("megno_mean", &h.mean, "mean MEGNO <Y>(t) = (1/t) integral_0^t Y ds (-> 2 quasi-periodic, 0 stable periodic, (lambda/2) t chaotic)")
            .attr("megno", self.mean)
            .attr("megno_y_end", self.y)
            .attr("slope", self.fit.slope)
            .attr("slope_intercept", self.fit.intercept)
            .attr("slope_window", [self.fit.start, self.fit.end])
            // Not `slope_samples`: that is the option (which samples), written beside it.
            .attr("slope_sample_count", self.fit.samples)
            .attr("slope_over_every_sample", self.fit.every_sample)
            .attr("lyapunov_from_slope", self.lyapunov)
            .attr("finite_time_exponent", self.finite_time_exponent)
            .attr("sample_interval", self.sample_interval)
    }

    fn summary(&self) -> serde_json::Value {
        json!({
            "megno": f64_json(self.mean), "megno_y": f64_json(self.y),
            "slope": f64_json(self.fit.slope), "slope_window": [self.fit.start, self.fit.end],
            "slope_sample_count": self.fit.samples, "slope_over_every_sample": self.fit.every_sample,
            "lyapunov_from_slope": f64_json(self.lyapunov),
            "finite_time_exponent": f64_json(self.finite_time_exponent),
            "sample_interval": self.sample_interval,
        })
    }

    fn report(&self) -> String {
        format!(
            "MEGNO over 0..{} s ({}, r sampled every {} s): <Y> = {} (2: quasi-periodic, 0: stable periodic), Y = {}\n  slope of <Y> over {}..{} s: {} (1/s), so lambda ~ 2 slope = {} (1/s); ln|delta|/t = {} (1/s)\n",
            self.end.t_end,
            self.end.method.name(),
            self.sample_interval,
            num(self.mean),
            num(self.y),
            self.fit.start,
            self.fit.end,
            num(self.fit.slope),
            num(self.lyapunov),
            num(self.finite_time_exponent)
        )
    }

    /// ⟨Y⟩(t) and Y(t) with the reference lines ⟨Y⟩ = 2 (quasi-periodic) and 0 (stable
    /// periodic) and the second-half fit ⟨Y⟩ ≈ a + slope·t; the caption gives λ = 2·slope.
    fn chart(&self) -> Chart<'_> {
        let h = &self.history;
        let ends = [0.0, self.end.t_end];
        let mut lines = vec![
            Line::of("Y(t)", &h.time, &h.y),
            Line::of(
                format!(
                    "⟨Y⟩(t), {} at t = {} s",
                    format_value(self.mean, 4),
                    self.end.t_end
                ),
                &h.time,
                &h.mean,
            ),
            Line::segment("2 (quasi-periodic)", ends, [2.0, 2.0]),
            Line::segment("0 (stable periodic)", ends, [0.0, 0.0]),
        ];
        if self.fit.slope.is_finite() {
            let fit_x = [self.fit.start, self.fit.end];
            lines.push(Line::segment(
                format!(
                    "fit over the second half: slope {} s⁻¹",
                    format_value(self.fit.slope, 4)
                ),
                fit_x,
                fit_x.map(|t| self.fit.intercept + self.fit.slope * t),
            ));
        }
        Chart {
            caption: format!(
                "MEGNO, {}, λ ≈ 2·slope = {} s⁻¹{}",
                self.end.method.name(),
                format_value(self.lyapunov, 4),
                status(self.end.complete)
            ),
            y_label: "MEGNO",
            lines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn online_slope_matches_the_batch_fit() {
        let ts: Vec<f64> = (0..1000).map(|i| 500.0 + i as f64 * 0.5).collect();
        let ys: Vec<f64> = ts.iter().map(|t| 0.3 * t + (t * 1.7).sin()).collect();
        let mut f = SlopeFit::default();
        for (t, y) in ts.iter().zip(&ys) {
            f.push(*t, *y);
        }
        assert!((f.slope() - slope(&ts, &ys)).abs() < 1e-12);
    }

    /// A linear saddle's unstable direction, δ(t) = e^{λt}: r ≡ λ, Y = λt, ⟨Y⟩ = λt/2, so the
    /// slope over the second half is λ/2 (the trapezoid rule is exact on these integrands).
    #[test]
    fn saddle_gives_half_its_rate() {
        let (lam, h) = (0.7, 1e-2);
        let mut m = Megno::new();
        let (mut ts, mut ys) = (vec![], vec![]);
        for k in 0..=10_000 {
            let t = k as f64 * h;
            // r from the analytic δ = e^{λt} and δ̇ = λ e^{λt}, renormalised each sample.
            let (d, dd) = (1.0, lam);
            m.push(t, dd * d / (d * d));
            if k >= 5_000 {
                ts.push(t);
                ys.push(m.mean());
            }
        }
        assert!((slope(&ts, &ys) - lam / 2.0).abs() < 1e-6);
        assert!((m.y() - lam * 100.0).abs() < 1e-9);
    }

    /// A rotation-like regular tangent, |δ|² = 1 + t² (linear shear): ⟨Y⟩ → 2.
    #[test]
    fn shear_tends_to_two() {
        let h = 1e-2;
        let mut m = Megno::new();
        for k in 0..=100_000 {
            let t = k as f64 * h;
            m.push(t, t / (1.0 + t * t));
        }
        assert!((m.mean() - 2.0).abs() < 0.05, "{}", m.mean());
    }
}
