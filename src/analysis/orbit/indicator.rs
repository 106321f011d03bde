//! The single-orbit indicators a spec names by `lyapunov.estimator` (MEGNO, FLI, and any added
//! later), and how their results reach the front ends without being named there.
//!
//! An indicator is a [`ChainRun`] estimator on [`IndicatorOptions`] that is [`Registered`] (its
//! name and tangent vectors), listed as an [`Indicator`] in [`INDICATORS`](super::INDICATORS);
//! its result is a [`OrbitFinding`], which describes itself as plain data: the variables and
//! attributes of its result group ([`OrbitRecord`]), its own JSON fields, its text report and its
//! figure ([`Chart`]). The spec, [`crate::run`], the store, the plots, the CLI and the Python
//! package serve every indicator through these, and add what all of them share ([`IndicatorEnd`]:
//! the run's end, the energy balance, the work counts, the integrator).

use super::driver::End;
use super::{chain_run, ChainRun, EnergyCheck, LyapunovError};
use crate::finding::{self, Attr, Figure, Finding, Panel, RunPart, Scalar};
use crate::format::num;
use crate::integrate::Method;
use crate::model::Chain;
use crate::observe::Observer;
use serde::Serialize;
use serde_json::json;
use std::fmt::Write;

/// Options of an indicator that runs from t = 0 with one renormalisation grid (MEGNO, FLI).
/// Defaults: `tau = 0.01` s, `time = 200` s, `max_history = 10_000`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IndicatorOptions {
    /// Renormalisation interval τ of the tangent vector (s): a whole multiple of dt for the
    /// fixed-step methods; also the sampling interval of what an indicator samples per interval
    /// (FLI, and MEGNO's r under DOP853, whose steps are not on a grid).
    pub tau: f64,
    /// End time (s): the run starts at 0 with no transient.
    pub time: f64,
    /// Most history points kept (≥ 16), thinned evenly.
    pub max_history: usize,
    /// The start deviation vector; `None`: [`Deviation::DEFAULT`], the maps' start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<Deviation>,
    /// Which samples MEGNO's slope of ⟨Y⟩ is fitted over in the run's second half; `None`:
    /// [`SlopeSamples::DEFAULT`], the MEGNO map's rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slope_samples: Option<SlopeSamples>,
}

impl Default for IndicatorOptions {
    fn default() -> Self {
        IndicatorOptions {
            tau: 0.01,
            time: 200.0,
            max_history: 10_000,
            deviation: None,
            slope_samples: None,
        }
    }
}

impl IndicatorOptions {
    /// The start deviation as run: `deviation`, or [`Deviation::DEFAULT`] where unset.
    pub fn start_deviation(&self) -> Deviation {
        self.deviation.unwrap_or(Deviation::DEFAULT)
    }
}

/// The samples of ⟨Y⟩ MEGNO's second-half slope is fitted over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlopeSamples {
    /// Every sample: every step of a fixed-step method.
    Step,
    /// The renormalisation times (multiples of τ) and t_end: the MEGNO map's rule, and the
    /// default.
    Tau,
}

impl SlopeSamples {
    /// The single-orbit MEGNO's default: the map's rule, so that `pendula lyapunov --estimator
    /// megno` and a one-pixel `pendula map --kind megno` give one slope by default (issue 48).
    pub const DEFAULT: SlopeSamples = SlopeSamples::Tau;

    /// The names the spec takes (`lyapunov.slope_samples`).
    pub const NAMES: &'static str = "step|tau";

    pub fn name(self) -> &'static str {
        match self {
            SlopeSamples::Step => "step",
            SlopeSamples::Tau => "tau",
        }
    }

    pub fn parse(s: &str) -> Option<SlopeSamples> {
        match s {
            "step" => Some(SlopeSamples::Step),
            "tau" => Some(SlopeSamples::Tau),
            _ => None,
        }
    }
}

/// The start deviation vector δ(0) of a one-vector indicator, in the coordinates the method
/// integrates ((θ, θ̇), or (θ, p) for Gauss–Legendre).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Deviation {
    /// e₁ = (1, 0, …, 0) (before issue 48 the single-orbit MEGNO's and tangent estimator's
    /// default).
    Unit,
    /// (1, …, 1)/√n: the start of every one-vector map kind (lyapunov, megno, fli), and the
    /// default of every single-orbit one-vector estimator (tangent, MEGNO, FLI).
    Diagonal,
}

impl Deviation {
    /// The single-orbit one-vector estimators' default start: the maps' (issue 48: a
    /// finite-time MEGNO or λ depends on δ(0), and one indicator must give one value by
    /// default, from `pendula lyapunov` and from a one-pixel `pendula map` alike). A system
    /// whose state is embedded in more coordinates than its phase space (a cart chain's unit
    /// vectors) starts the tangent estimator from its own tangent basis instead.
    pub const DEFAULT: Deviation = Deviation::Diagonal;

    /// The names the spec takes (`lyapunov.deviation`).
    pub const NAMES: &'static str = "unit|diagonal";

    pub fn name(self) -> &'static str {
        match self {
            Deviation::Unit => "unit",
            Deviation::Diagonal => "diagonal",
        }
    }

    pub fn parse(s: &str) -> Option<Deviation> {
        match s {
            "unit" => Some(Deviation::Unit),
            "diagonal" => Some(Deviation::Diagonal),
            _ => None,
        }
    }

    /// δ(0) of length `n`.
    pub fn vector(self, n: usize) -> Vec<f64> {
        match self {
            Deviation::Unit => {
                let mut v = vec![0.0; n];
                v[0] = 1.0;
                v
            }
            Deviation::Diagonal => vec![1.0 / (n as f64).sqrt(); n],
        }
    }
}

/// A single-orbit indicator as the spec names it: an entry of
/// [`INDICATORS`](super::INDICATORS), made by [`Indicator::of`].
#[derive(Clone, Copy)]
pub struct Indicator {
    /// Its `lyapunov.estimator` name, also its result group and the summary's `estimator`.
    pub name: &'static str,
    /// Tangent vectors integrated with the state (the memory estimate counts them).
    pub vectors: usize,
    /// Runs it on a planar chain from `x0 = (θ, θ̇)` (in canonical coordinates for
    /// Gauss–Legendre).
    pub run: RunFn,
}

/// How an [`Indicator`] runs: `(chain, method, x0, options, observer)`.
pub type RunFn = fn(
    &Chain,
    &Method,
    &[f64],
    &IndicatorOptions,
    &mut dyn Observer,
) -> Result<Box<dyn OrbitFinding>, LyapunovError>;

impl Indicator {
    /// The entry of the estimator `E`.
    pub const fn of<E>() -> Indicator
    where
        E: Registered + ChainRun<Options = IndicatorOptions>,
        E::Output: OrbitFinding + 'static,
    {
        Indicator {
            name: E::NAME,
            vectors: E::VECTORS,
            run: |chain, method, x0, opts, observer| {
                Ok(Box::new(chain_run::<E>(chain, method, x0, opts, observer)?))
            },
        }
    }
}

impl PartialEq for Indicator {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for Indicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// What a single-orbit estimator (a [`ChainRun`] on [`IndicatorOptions`] whose result is a
/// [`OrbitFinding`]) adds to be an [`Indicator`]: its name and its tangent vectors.
pub trait Registered {
    const NAME: &'static str;
    const VECTORS: usize = 1;
}

/// The result of an [`Indicator`], described for the front ends.
pub trait OrbitFinding: Send {
    /// Its result group's own content, with what every indicator run reports.
    fn record(&self) -> OrbitRecord<'_>;
    /// Its own fields of the JSON summary.
    fn summary(&self) -> serde_json::Value;
    /// The head of the text report (the energy line follows, from [`OrbitFinding::end`]).
    fn report(&self) -> String;
    /// Its figure against time.
    fn chart(&self) -> Chart<'_>;
    /// What every indicator run reports besides its own numbers.
    fn end(&self) -> &IndicatorEnd {
        self.record().end
    }
}

/// What every indicator run reports besides its own numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndicatorEnd {
    /// The indicator's name ([`Indicator::name`]).
    pub estimator: &'static str,
    /// Where the run ended (s): `options.time`, or earlier when it was stopped.
    pub t_end: f64,
    /// False when the observer stopped the run.
    pub complete: bool,
    pub options: IndicatorOptions,
    pub energy: EnergyCheck,
    pub method: Method,
    pub counts: OrbitCounts,
}

/// An indicator run's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct OrbitCounts {
    pub steps: u64,
    pub rejected_steps: u64,
    /// The solver's evaluations plus the indicator's own one per sample (f for OFLI's w⊥,
    /// J·δ for MEGNO's r).
    pub rhs_evaluations: u64,
    pub renormalizations: u64,
    /// Samples fed to an accumulator that samples apart from the renormalisations (MEGNO's r,
    /// t = 0 included); absent where every sample is an interval end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
}

impl IndicatorEnd {
    /// The end of a run from the driver's `end`, with `renormalizations` made by the reducer;
    /// `samples` where it samples apart from them.
    pub(crate) fn new(
        estimator: &'static str,
        end: &End<'_>,
        options: &IndicatorOptions,
        method: &Method,
        renormalizations: u64,
        samples: Option<u64>,
    ) -> IndicatorEnd {
        IndicatorEnd {
            estimator,
            t_end: end.t_end,
            complete: end.complete,
            options: *options,
            energy: end.energy,
            method: *method,
            counts: OrbitCounts {
                steps: end.stats.steps,
                rejected_steps: end.stats.rejected,
                rhs_evaluations: end.stats.evals + end.done + 1,
                renormalizations,
                samples,
            },
        }
    }
}

/// A result group's content: what every indicator run reports, the `time` coordinate (s, from
/// 0), the indicator's variables over it and its attributes.
pub struct OrbitRecord<'a> {
    pub end: &'a IndicatorEnd,
    pub time: &'a [f64],
    pub vars: Vec<Var<'a>>,
    pub attrs: Vec<(&'static str, Attr)>,
}

/// A variable over `time`.
pub struct Var<'a> {
    pub name: &'static str,
    pub values: &'a [f64],
    pub units: &'static str,
    pub long_name: &'static str,
}

impl<'a> OrbitRecord<'a> {
    /// The record of a run that ended as `end`, sampled at `time`; its variables and
    /// attributes follow.
    pub fn over(end: &'a IndicatorEnd, time: &'a [f64]) -> OrbitRecord<'a> {
        OrbitRecord {
            end,
            time,
            vars: Vec::new(),
            attrs: Vec::new(),
        }
    }

    /// Adds a dimensionless variable over `time`.
    pub fn var(mut self, name: &'static str, values: &'a [f64], long_name: &'static str) -> Self {
        self.vars.push(Var {
            name,
            values,
            units: "1",
            long_name,
        });
        self
    }

    /// Adds an attribute.
    pub fn attr(mut self, name: &'static str, value: impl Into<Attr>) -> Self {
        self.attrs.push((name, value.into()));
        self
    }
}

/// A figure of lines against time t / s.
pub struct Chart<'a> {
    /// What follows the title in parentheses (name, method, the headline number).
    pub caption: String,
    pub y_label: &'static str,
    pub lines: Vec<Line<'a>>,
}

/// One line of a [`Chart`].
pub struct Line<'a> {
    pub label: String,
    pub x: std::borrow::Cow<'a, [f64]>,
    pub y: std::borrow::Cow<'a, [f64]>,
}

impl<'a> Line<'a> {
    /// A line through borrowed samples.
    pub fn of(label: impl Into<String>, x: &'a [f64], y: &'a [f64]) -> Line<'a> {
        Line {
            label: label.into(),
            x: x.into(),
            y: y.into(),
        }
    }

    /// A line through two points of its own.
    pub fn segment(label: impl Into<String>, x: [f64; 2], y: [f64; 2]) -> Line<'static> {
        Line {
            label: label.into(),
            x: x.to_vec().into(),
            y: y.to_vec().into(),
        }
    }
}

/// `", stopped early"` for a run that did not reach its end, for a figure's caption.
pub fn status(complete: bool) -> &'static str {
    if complete {
        ""
    } else {
        ", stopped early"
    }
}

/// The JSON summary of `f`: what every indicator shares, then its own fields.
pub fn summary(f: &dyn OrbitFinding) -> serde_json::Value {
    let e = f.end();
    let mut j = json!({
        "kind": "lyapunov",
        "estimator": e.estimator,
        "energy_initial": e.energy.initial, "energy_end": e.energy.last,
        "energy_work": e.energy.work, "abs_energy_drift": e.energy.abs_drift,
        "relative_energy_drift": e.energy.relative_drift,
        "tau": e.options.tau, "t_end": e.t_end,
        "counts": e.counts, "integrator": e.method, "complete": e.complete,
    });
    if let (Some(map), serde_json::Value::Object(own)) = (j.as_object_mut(), f.summary()) {
        map.extend(own);
    }
    if let (Some(map), Some(d)) = (j.as_object_mut(), e.options.deviation) {
        map.insert("deviation".into(), d.name().into());
    }
    if let (Some(map), Some(s)) = (j.as_object_mut(), e.options.slope_samples) {
        map.insert("slope_samples".into(), s.name().into());
    }
    j
}

/// The text report of `f`: its own lines, the energy check, and where a stopped run stopped.
pub fn report(f: &dyn OrbitFinding) -> String {
    let e = f.end();
    let mut s = f.report();
    let _ = writeln!(
        s,
        "  energy: E(0) = {} J, relative drift {}",
        num(e.energy.initial),
        num(e.energy.relative_drift)
    );
    if !e.complete {
        let _ = writeln!(s, "  (interrupted at t = {} s)", e.t_end);
    }
    s
}

/// An indicator's result as every analysis result describes itself ([`Finding`]): the group
/// named after the estimator (`megno`, `fli`, …): the chain's links, parameters and initial
/// state; coordinate `time` (the thinned samples from t = 0) and the variables and attributes
/// its [`OrbitRecord`] holds (MEGNO: `megno_y(time)`, `megno_mean(time)`, ⟨Y⟩ and Y at t_end,
/// the second-half fit, λ = 2·slope; FLI: `fli(time)`, `ofli(time)`, their values at t_end, the
/// rate FLI/t_end, ln|w(t_end)|); and what every indicator shares: the estimator, the
/// integrator, τ, the run's end, the energy balance (named as the spectrum's) and the work
/// counts. Then the JSON summary, the report, the figure against time and a sweep's scalars
/// (the numbers of its own summary).
pub struct IndicatorResult {
    /// The run's title (the figure's).
    pub title: String,
    /// The chain's link count (the group's `link` coordinate).
    pub links: usize,
    pub found: Box<dyn OrbitFinding>,
}

impl Finding for IndicatorResult {
    fn group(&self) -> &'static str {
        self.found.end().estimator
    }

    fn complete(&self) -> bool {
        self.found.end().complete
    }

    fn record(&self) -> finding::Record {
        let r = self.found.record();
        let mut g = finding::Record::new(r.end.estimator);
        g.index("link", self.links, "link index, counted from the pivot")
            .run_part(RunPart::Model)
            .run_part(RunPart::InitialState)
            .coord(
                "time",
                r.time,
                "s",
                "time of the sample (the run starts at 0)",
            );
        for v in &r.vars {
            g.var(v.name, &["time"], v.values, v.units, v.long_name);
        }
        for (name, value) in r.attrs {
            g.attr(name, value);
        }
        let e = r.end;
        g.attr("estimator", e.estimator);
        // As run, the defaults resolved (deviation diagonal; MEGNO's slope over the τ grid).
        if let Some(d) = e.options.deviation {
            g.attr("deviation", d.name());
        }
        if let Some(s) = e.options.slope_samples {
            g.attr("slope_samples", s.name());
        }
        g.run_part(RunPart::Method)
            .attr("tau", e.options.tau)
            .attr("t_end", e.t_end)
            .attr("time_requested", e.options.time)
            .attr("max_history", e.options.max_history as i64)
            .attr("complete", e.complete);
        for (name, v) in e.energy.attrs() {
            g.attr(name, v);
        }
        let c = &e.counts;
        g.attr("steps", c.steps)
            .attr("rejected_steps", c.rejected_steps)
            .attr("rhs_evaluations", c.rhs_evaluations)
            .attr("renormalizations", c.renormalizations);
        if let Some(n) = c.samples {
            g.attr("samples", n);
        }
        g
    }

    fn summary(&self) -> serde_json::Value {
        summary(self.found.as_ref())
    }

    fn report(&self) -> String {
        report(self.found.as_ref())
    }

    fn scalars(&self) -> Vec<Scalar> {
        let mut s = Vec::new();
        if let serde_json::Value::Object(map) = self.found.summary() {
            for (k, v) in map {
                if let Some(x) = v.as_f64() {
                    s.push(Scalar::one(
                        &k,
                        x,
                        "1",
                        &format!("{k} (the indicator's summary)"),
                    ));
                }
            }
        }
        s
    }
}

impl IndicatorResult {
    pub fn figure(&self) -> Figure {
        let c = self.found.chart();
        Figure {
            title: format!("{} ({})", self.title, c.caption),
            x_label: "time t / s".into(),
            panels: vec![Panel {
                y_label: c.y_label.into(),
                lines: c
                    .lines
                    .into_iter()
                    .map(|l| finding::Line {
                        label: l.label,
                        x: l.x.into_owned(),
                        y: l.y.into_owned(),
                    })
                    .collect(),
                log_y: false,
            }],
            log_x: false,
            size: (1200, 700),
        }
    }
}
