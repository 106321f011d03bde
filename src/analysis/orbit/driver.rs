//! The one loop under every single-orbit tangent estimator.
//!
//! [`drive`] owns what each estimator used to write for itself: the input checks (x0, τ, the
//! run's length, the history bound), the augmented flow `[x | W | V]` and its [`Stepper`], the
//! grid of samples and renormalisation times, the naming of a blow-up, the energy balance
//! `E − E₀ − W` at history points and at the end, progress (about 1000 reports a run), stop
//! requests, and the interval count a stopped run ended on. A [`Reducer`] only reduces: it says
//! how many tangent vectors it wants and from where ([`Reducer::tangent`]), sees each sample
//! ([`Reducer::init`] at t = 0, [`Reducer::interval`] at every grid point) and builds its result
//! from the run's [`End`] ([`Reducer::finish`]). This is argmin's `next_iter` shape (a solver
//! state advanced by one driver) and ChaosTools' two layers (a tangent integrator, then the
//! quantity computed from it).
//!
//! [`Thinned`] is the evenly thinned history the reducers keep: a point every `stride`-th
//! sample, the stride doubling (and every other point dropped) once `2·half` points are held.

use super::stepper::Stepper;
use super::LyapunovError;
use crate::analysis::energy::EnergyBalance;
use crate::analysis::AnalysisError;
use crate::integrate::{Flow, IntegrateError, Method, Ode, Stats};
use crate::model::System;
use crate::observe::{Control, Observer};
use serde::Serialize;

/// The energy balance along the reference orbit, `E − E₀ − W` ([`EnergyBalance`]): the
/// integrator's error for any chain, since the work W of damping and drive is integrated with
/// the state (W ≡ 0 for a conservative one).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnergyCheck {
    /// E at t = 0 (J).
    pub initial: f64,
    /// E at the last interval end (J).
    pub last: f64,
    /// W at the last interval end: the work of the non-conservative forces since t = 0 (J).
    pub work: f64,
    /// The energy relative figures are measured against (J; [`System::energy_scale`]).
    pub scale: f64,
    /// |E_end − E₀ − W_end| (J).
    pub abs_drift: f64,
    /// |E_end − E₀ − W_end| / scale.
    pub relative_drift: f64,
    /// max |E − E₀ − W| over the history points and the end (J).
    pub max_abs_error: f64,
}

impl EnergyCheck {
    /// The balance as the named numbers a result file and summary carry, the same names for
    /// every estimator.
    pub fn attrs(&self) -> [(&'static str, f64); 7] {
        [
            ("energy0", self.initial),
            ("energy_end", self.last),
            ("energy_work", self.work),
            ("energy_scale", self.scale),
            ("abs_energy_drift", self.abs_drift),
            ("relative_energy_drift", self.relative_drift),
            ("max_abs_energy_error", self.max_abs_error),
        ]
    }
}

/// The energy balance of a run as it goes: the largest |E − E₀ − W| seen at the recorded
/// samples, and at the end the run's [`EnergyCheck`].
pub(crate) struct EnergyWatch {
    balance: EnergyBalance,
    max_err: f64,
}

impl EnergyWatch {
    /// The watch of a run of `sys` from `x0` at t = 0.
    pub(crate) fn new<S: System + ?Sized>(sys: &S, x0: &[f64]) -> EnergyWatch {
        EnergyWatch {
            balance: EnergyBalance::new(sys, sys.energy(0.0, x0)),
            max_err: 0.0,
        }
    }

    /// A recorded sample at energy `energy` with work `work` done so far.
    pub(crate) fn sample(&mut self, energy: f64, work: f64) {
        let err = self.balance.error(energy, work);
        self.max_err = self.max_err.max(err.abs());
    }

    /// The check of a run that ended at energy `last` with work `work`.
    pub(crate) fn check(&self, last: f64, work: f64) -> EnergyCheck {
        let b = &self.balance;
        let abs_drift = b.error(last, work).abs();
        EnergyCheck {
            initial: b.initial,
            last,
            work,
            scale: b.scale,
            abs_drift,
            relative_drift: b.relative(last, work),
            max_abs_error: self.max_err.max(abs_drift),
        }
    }
}

/// Reports progress about 1000 times per run.
pub(crate) struct Progress {
    every: u64,
    total: u64,
}

impl Progress {
    pub(crate) fn new(observer: &mut dyn Observer, total: u64, unit: &'static str) -> Progress {
        observer.start(total, unit);
        Progress {
            every: (total / 1000).max(1),
            total,
        }
    }
    /// Reports sample `e` when due; true when the observer asks to stop.
    #[inline]
    pub(crate) fn stop(&self, observer: &mut dyn Observer, e: u64) -> bool {
        (e.is_multiple_of(self.every) || e == self.total) && observer.advance(e) == Control::Stop
    }
}

/// The interval loop of a run of `total` intervals (progress counted in `unit`): steps `ode`
/// from `y` through each interval with `stepper`, shows its end (index e, time t) to `each`
/// (true: the run is over there, complete), reports progress and polls a stop request. Returns
/// whether the run was complete (neither the observer nor a stop inside an interval ended it
/// early) and the last interval done; an integration error is named by `name` and returned
/// at once.
pub(crate) fn interval_loop<O: Ode, E>(
    stepper: &mut Stepper,
    ode: &mut O,
    y: &mut [f64],
    (total, unit): (u64, &'static str),
    observer: &mut dyn Observer,
    name: impl Fn(IntegrateError) -> E,
    mut each: impl FnMut(u64, f64, &mut [f64]) -> bool,
) -> Result<(bool, u64), E> {
    let progress = Progress::new(observer, total, unit);
    let mut complete = true;
    let mut done = 0u64;
    let cancel = observer.cancel();
    for e in 1..=total {
        if !stepper.interval(ode, e, y, &cancel).map_err(&name)? {
            complete = false;
            break;
        }
        done = e;
        if each(e, stepper.time(e), y) {
            break;
        }
        if progress.stop(observer, e) {
            complete = false;
            break;
        }
    }
    observer.finish();
    Ok((complete, done))
}

/// The check of a start state `x0` against the state dimension `n`.
pub(crate) fn check_x0(n: usize, x0: &[f64]) -> Result<(), LyapunovError> {
    if x0.len() != n {
        return Err(LyapunovError::invalid(
            "x0",
            x0.len() as f64,
            format!("must have the state dimension {n}"),
        ));
    }
    Ok(())
}

/// How long a run is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Span {
    /// From t = 0 to `time` (s), checked here: finite and at least one interval τ.
    Time(f64),
    /// A number of intervals τ the caller has already checked.
    Intervals(u64),
}

/// Where a reducer is shown the orbit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sampling {
    /// At every interval end τ (each one a renormalisation time).
    Interval,
    /// At every step of a fixed-step method (every τ for DOP853, whose steps are not on a
    /// grid); renormalisation every τ.
    Step,
}

/// The run a reducer asks the driver for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// Renormalisation interval τ (s): a whole multiple of dt for the fixed-step methods.
    pub tau: f64,
    pub span: Span,
    pub sampling: Sampling,
    /// Most history points (≥ 16).
    pub max_history: usize,
    /// Integrate the work W of damping and drive (when the system has any) for the energy
    /// balance; without it the flow is `[x | V]` alone.
    pub work: bool,
}

impl Plan {
    /// A run over `time` seconds from t = 0, sampled `sampling`, renormalised every `tau`, with
    /// the work of damping and drive integrated (`work`).
    pub fn timed(tau: f64, time: f64, sampling: Sampling, max_history: usize, work: bool) -> Plan {
        Plan {
            tau,
            span: Span::Time(time),
            sampling,
            max_history,
            work,
        }
    }
}

/// The start of the tangent block: `k` vectors, `v0` column-major (`None`: the first `k` unit
/// vectors).
pub(crate) struct Tangent {
    pub k: usize,
    pub v0: Option<Vec<f64>>,
}

impl Tangent {
    /// The one vector of a one-vector estimator (FLI, MEGNO), started along `start`.
    pub fn one(start: super::Deviation, n: usize) -> Tangent {
        Tangent {
            k: 1,
            v0: Some(start.vector(n)),
        }
    }
}

/// One sample of the run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tick {
    /// Sample index, 1..=total.
    pub e: u64,
    pub t: f64,
    pub total: u64,
    /// Whether this sample ends an interval τ (the reducer renormalises here).
    pub renorm: bool,
}

/// What a reducer tells the driver after a sample.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Step {
    /// A history point was recorded: the driver checks the energy balance here.
    pub recorded: bool,
    /// The reducer is done (converged, or its indicator reached round-off).
    pub stop: bool,
}

/// How the run ended, for [`Reducer::finish`].
pub(crate) struct End<'a> {
    /// The final state `x` and tangent block `V`.
    pub x: &'a [f64],
    pub v: &'a [f64],
    /// The last sample reached, the planned total and its time.
    pub done: u64,
    pub total: u64,
    pub t_end: f64,
    /// Time between samples (dt, or τ for DOP853 and for interval sampling).
    pub sample_interval: f64,
    /// False when a stop request ended the run.
    pub complete: bool,
    pub energy: EnergyCheck,
    pub stats: Stats,
    pub stepper: &'a Stepper,
}

/// A single-orbit estimator on the [`drive`] loop.
pub(crate) trait Reducer<S: System> {
    type Output;
    /// The tangent block for a state of dimension `n`.
    fn tangent(&self, n: usize) -> Tangent;
    /// Sees the start (t = 0, before any step).
    fn init(&mut self, _sys: &S, _x: &[f64], _v: &mut [f64]) {}
    /// Sees sample `tick` (`v` may be renormalised in place).
    fn interval(&mut self, sys: &S, tick: Tick, x: &[f64], v: &mut [f64]) -> Step;
    /// Builds the result.
    fn finish(self, sys: &S, end: End<'_>) -> Self::Output;
}

/// The driver's checks of x0 and `plan`, in the order users see them.
fn intervals(n: usize, x0: &[f64], plan: &Plan) -> Result<u64, LyapunovError> {
    check_x0(n, x0)?;
    let total = match plan.span {
        Span::Intervals(m) => m,
        Span::Time(time) => {
            if !(plan.tau.is_finite() && plan.tau > 0.0) {
                return Err(LyapunovError::invalid(
                    "tau",
                    plan.tau,
                    "must be finite and > 0",
                ));
            }
            let m = (time / plan.tau).round();
            if !(time.is_finite() && m >= 1.0) {
                return Err(LyapunovError::invalid(
                    "time",
                    time,
                    "must be finite and at least one interval tau",
                ));
            }
            m as u64
        }
    };
    if plan.max_history < 16 {
        return Err(LyapunovError::invalid(
            "max_history",
            plan.max_history as f64,
            "must be >= 16",
        ));
    }
    Ok(total)
}

/// Runs `reducer` along the orbit of `sys` from `x0` (see the module docs). Errors:
/// [`LyapunovError::Invalid`] for bad input before any work; [`AnalysisError::Blowup`] naming the
/// variable that became non-finite.
pub(crate) fn drive<S: System, R: Reducer<S>>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    plan: &Plan,
    mut reducer: R,
    observer: &mut dyn Observer,
) -> Result<R::Output, LyapunovError> {
    let n = sys.dim();
    let intervals = intervals(n, x0, plan)?;
    let Tangent { k, v0 } = reducer.tangent(n);
    // The work W rides in slot n when damping or a drive acts, for the balance E − E₀ − W.
    let mut flow = Flow::with_layout(sys, plan.work && sys.non_conservative(), k);
    let layout = flow.layout;
    let off = layout.tangent_offset();
    let work = |y: &[f64]| if layout.work { y[n] } else { 0.0 };
    let mut y = flow.initial(x0, v0.as_deref());
    // τ is checked against dt first (the same error for every sampling).
    let mut stepper = Stepper::new(method, plan.tau, y.len())?;
    let (h, per_tau) = match plan.sampling {
        Sampling::Interval => (plan.tau, 1),
        Sampling::Step => {
            let h = method.fixed_dt().unwrap_or(plan.tau);
            stepper = Stepper::new(method, h, y.len())?;
            (h, (plan.tau / h).round() as u64)
        }
    };
    let total = intervals * per_tau;
    let blowup = AnalysisError::naming(sys, layout);
    let name = |e| -> LyapunovError { blowup(e).into() };
    {
        let (head, v) = y.split_at_mut(off);
        reducer.init(sys, &head[..n], v);
    }
    let mut watch = EnergyWatch::new(sys, x0);
    let unit = match plan.sampling {
        Sampling::Interval => "intervals",
        Sampling::Step => "samples",
    };
    let each = |e: u64, t: f64, y: &mut [f64]| {
        let tick = Tick {
            e,
            t,
            total,
            renorm: e.is_multiple_of(per_tau),
        };
        let (head, v) = y.split_at_mut(off);
        let step = reducer.interval(sys, tick, &head[..n], v);
        if step.recorded {
            watch.sample(sys.energy(t, &y[..n]), work(y));
        }
        step.stop
    };
    let span = (total, unit);
    let (complete, done) =
        interval_loop(&mut stepper, &mut flow, &mut y, span, observer, name, each)?;
    let t_end = stepper.time(done);
    let energy = watch.check(sys.energy(t_end, &y[..n]), work(&y));
    let end = End {
        x: &y[..n],
        v: &y[off..],
        done,
        total,
        t_end,
        sample_interval: h,
        complete,
        energy,
        stats: stepper.stats(),
        stepper: &stepper,
    };
    Ok(reducer.finish(sys, end))
}

/// An evenly thinned history of rows of `width` values, keyed by sample index.
#[derive(Debug, Clone)]
pub(crate) struct Thinned {
    /// Sample indices of the kept points.
    pub index: Vec<u64>,
    /// The kept rows, row-major.
    pub rows: Vec<f64>,
    width: usize,
    stride: u64,
    half: usize,
}

impl Thinned {
    /// Room for at most `max_history` points (at least 16), starting with `first` at sample 0.
    pub(crate) fn new(max_history: usize, first: &[f64]) -> Thinned {
        Thinned {
            index: vec![0],
            rows: first.to_vec(),
            width: first.len(),
            stride: 1,
            half: (max_history / 2).max(8),
        }
    }

    /// Room for at most `max_history` rows of `width` (at least 16), starting empty: the
    /// first kept sample is the first on the stride (the Lyapunov accumulator's history, whose
    /// sums start with the first interval).
    pub(crate) fn empty(max_history: usize, width: usize) -> Thinned {
        Thinned {
            index: Vec::new(),
            rows: Vec::new(),
            width,
            stride: 1,
            half: (max_history / 2).max(8),
        }
    }

    /// Row `r` of the kept rows.
    #[inline]
    pub(crate) fn row(&self, r: usize) -> &[f64] {
        &self.rows[r * self.width..(r + 1) * self.width]
    }

    /// Whether sample `e` is on the current stride.
    #[inline]
    pub(crate) fn due(&self, e: u64) -> bool {
        e.is_multiple_of(self.stride)
    }

    /// Keeps `row` as sample `e`; at `2·half` points the stride doubles and the points off it
    /// (but the start) are dropped.
    pub(crate) fn push(&mut self, e: u64, row: &[f64]) {
        let m = self.width;
        self.index.push(e);
        self.rows.extend_from_slice(row);
        if self.index.len() >= 2 * self.half {
            self.stride *= 2;
            let mut w = 0;
            for r in 0..self.index.len() {
                if self.index[r].is_multiple_of(self.stride) {
                    self.index[w] = self.index[r];
                    self.rows.copy_within(r * m..(r + 1) * m, w * m);
                    w += 1;
                }
            }
            self.index.truncate(w);
            self.rows.truncate(w * m);
        }
    }

    /// Appends `row` as sample `e` without thinning (a run's last point).
    pub(crate) fn push_unthinned(&mut self, e: u64, row: &[f64]) {
        self.index.push(e);
        self.rows.extend_from_slice(row);
    }

    /// Column `j` of the kept rows.
    pub(crate) fn column(&self, j: usize) -> Vec<f64> {
        self.rows.chunks_exact(self.width).map(|r| r[j]).collect()
    }

    /// Columns `from..` of the kept rows, row-major.
    pub(crate) fn columns_from(&self, from: usize) -> Vec<f64> {
        self.rows
            .chunks_exact(self.width)
            .flat_map(|r| r[from..].iter().copied())
            .collect()
    }
}
