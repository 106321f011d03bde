//! What a run will hold in memory and how many steps one trajectory takes, estimated from the
//! validated spec before anything is allocated, and the budgets they must fit.
//!
//! The estimates are deliberately coarse upper-ish bounds (the dominant arrays of each analysis
//! times a small safety factor): their job is to refuse `--links 1000000` for modes (terabytes)
//! in a millisecond with a line naming the flag, not to predict RSS to the megabyte. Each
//! analysis has one function here saying what it allocates; [`Spec::memory_estimate`] picks it.

use super::{
    Analysis, LyapunovEstimator, LyapunovRun, Model, ModelFile, Spec, SpecError, SpecFile,
};
use crate::analysis::map::{MapKind, MapOptions};
use crate::analysis::measure::{MeasureOptions, What};
use crate::analysis::poincare::{PoincareOptions, Sampling};
use crate::analysis::AnimateOptions;
use crate::integrate::dop853::MAX_ATTEMPTS;
use crate::integrate::Method;
use crate::kinds::memory::{links_driver, samples_term, solver, Term, F64, PLANAR_LINK_BYTES};
use crate::model::System;
use crate::store::map::FIGURE_EDGE;

#[cfg(test)]
use crate::limits::GIB;
pub use crate::limits::{format_bytes, Budget, MAX_LINKS, MAX_STEPS};

/// An estimate of a run's memory: its total and the term that dominates it.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Bytes in memory at once (total over the terms).
    pub bytes: f64,
    /// The spec field that drives the largest term (`model.links`, `map.resolution`, …).
    pub field: String,
    /// What drives it, as the message's subject: `1000000 links`, `4.3e9 pixels`.
    pub driver: String,
    /// What the bytes are for: `the modes' matrices`.
    pub what: String,
}

fn estimate(terms: Vec<Term>) -> Estimate {
    let bytes = terms.iter().map(|t| t.bytes).sum::<f64>();
    let top = terms
        .into_iter()
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
        .expect("every analysis has a model term");
    Estimate {
        bytes,
        field: top.field.to_string(),
        driver: top.driver,
        what: top.what.to_string(),
    }
}

/// What the model itself holds: the planar chain O(N); the cart chain its N × N inertia table
/// and the (3N + 2)² linear system of its workspace.
fn model_bytes(model: &ModelFile, n: usize) -> f64 {
    let n = n as f64;
    match model {
        ModelFile::Planar(_) => n * PLANAR_LINK_BYTES,
        ModelFile::Cart(_) => n * PLANAR_LINK_BYTES + F64 * (n * n + (3.0 * n + 2.0).powi(2)),
    }
}

/// What the modes of `n` links need at the least, whatever the options: the dense matrices of
/// one equilibrium (M, K, the shapes and the eigen-solver's copies).
fn modes_floor(n: usize) -> f64 {
    9.0 * F64 * (n as f64).powi(2)
}

impl SpecFile {
    /// Refuses a model whose link count alone cannot fit, before any per-link array exists.
    pub(super) fn check_links(&self, budget: &Budget) -> Result<(), SpecError> {
        let n = self.model.link_count();
        if n > MAX_LINKS {
            return Err(SpecError::new(
                "model.links",
                format!("at most {MAX_LINKS} links (got {n})"),
            ));
        }
        let modes = self.kind.as_deref() == Some("modes");
        let (bytes, what) = if modes {
            (
                model_bytes(&self.model, n) + modes_floor(n),
                "the modes' matrices",
            )
        } else {
            (model_bytes(&self.model, n), "the model")
        };
        over_budget(
            &Estimate {
                bytes,
                field: "model.links".into(),
                driver: links_driver(n),
                what: what.into(),
            },
            budget,
        )
    }

    /// Refuses a fixed step that takes more than [`MAX_STEPS`] steps over one trajectory,
    /// naming the field the step came from.
    pub(super) fn check_steps(&self, spec: &Spec) -> Result<(), SpecError> {
        if let Analysis::Orbits(r) = &spec.analysis {
            return check_orbit_segments(r, &spec.model);
        }
        let Some(span) = spec.time_span() else {
            return Ok(());
        };
        let (step, field) = match spec.method {
            Method::Rk4 { dt } | Method::Gauss { dt, .. } => {
                let field = match &spec.analysis {
                    Analysis::Animate(_) => "animate.substeps",
                    _ if self.integrator.substeps.is_some() => "integrator.substeps",
                    _ if self.integrator.dt.is_some() => "integrator.dt",
                    _ => spec.span_field(),
                };
                (dt, field)
            }
            Method::Dop853 { h_max, .. } => {
                check_adaptive(&spec.model, span, spec.span_field())?;
                if !h_max.is_finite() {
                    return Ok(());
                }
                (h_max, "integrator.h_max")
            }
        };
        let steps = span / step;
        if steps > MAX_STEPS {
            let stuck = span + step == span;
            return Err(SpecError::new(
                field,
                format!(
                    "a step of {step:e} s takes {steps:.1e} steps to reach t = {span} s{}; the limit is {MAX_STEPS:.0e} steps per trajectory",
                    if stuck { " (it does not even advance t in binary64)" } else { "" }
                ),
            ));
        }
        Ok(())
    }
}

/// Steps an adaptive integration takes at the least per turn (2π) of the fastest phase it
/// must follow: one. An explicit Runge–Kutta step spans at most a fraction of a period of
/// the forces it samples (DOP853 takes ~10–50 at its usual tolerances), so one per turn is a
/// bound no run beats, not an estimate of its cost.
pub const ADAPTIVE_STEPS_PER_TURN: f64 = 1.0;

/// The fastest phase an integration of `model` must follow whatever its tolerance (rad/s),
/// with the field that sets it and a phrase saying what it is; `None` when nothing but the
/// state's own motion sets the pace (an undriven chain, a cart chain).
///
/// A torque at Ω turns at Ω. A pivot at Ω with amplitude a is, in the pivot's frame, a
/// gravity of up to aΩ² that swings the chain at √(aΩ²/L) (L the chain's whole length, its
/// slowest pendulum) when that is faster than Ω itself. A drive of zero amplitude acts on
/// nothing and sets no pace. (A chain hanging exactly at rest under a purely vertical pivot
/// stays at rest and may be integrated in fewer steps: the only exception, a measure-zero
/// one.)
pub fn fastest_rate(model: &Model) -> Option<(f64, &'static str, String)> {
    let Model::Planar(chain) = model else {
        return None;
    };
    let params = chain.params();
    let drive = &params.drive;
    let mut fastest: Option<(f64, &'static str, String)> = None;
    let mut consider = |rate: f64, field: &'static str, what: String| {
        if rate.is_finite() && rate > fastest.as_ref().map_or(0.0, |f| f.0) {
            fastest = Some((rate, field, what));
        }
    };
    if let Some(t) = drive.torque.filter(|t| t.amplitude != 0.0) {
        consider(
            t.frequency.abs(),
            "model.drive.torque.frequency",
            format!("a torque at {:e} rad/s", t.frequency.abs()),
        );
    }
    let reach = drive.pivot_reach();
    if let Some(p) = drive.pivot.filter(|_| reach > 0.0) {
        let w = p.frequency.abs();
        let length: f64 = params.links.iter().map(|l| l.length).sum();
        let swing = if length > 0.0 {
            w * (reach / length).sqrt()
        } else {
            0.0
        };
        if swing > w {
            consider(
                swing,
                "model.drive.pivot.frequency",
                format!(
                    "a pivot at {w:e} rad/s and {reach:e} m swinging the chain at √(aΩ²/L) = {swing:.3e} rad/s"
                ),
            );
        } else {
            consider(
                w,
                "model.drive.pivot.frequency",
                format!("a pivot at {w:e} rad/s"),
            );
        }
    }
    fastest
}

/// The fewest steps an adaptive (DOP853) integration of `model` over `span` seconds takes
/// ([`ADAPTIVE_STEPS_PER_TURN`] per turn of [`fastest_rate`]), with the field that sets the
/// pace and what it is; `None` when nothing bounds it from below.
pub fn adaptive_steps_floor(model: &Model, span: f64) -> Option<(f64, &'static str, String)> {
    let (rate, field, what) = fastest_rate(model)?;
    // Turns per second first: 1e308 rad/s over 10 s is 1.6e308 turns, not an overflow.
    let steps = rate / std::f64::consts::TAU * span.abs() * ADAPTIVE_STEPS_PER_TURN;
    Some((steps, field, what))
}

/// Refuses an adaptive integration over `span` seconds (one trajectory, one solver) whose
/// fewest steps ([`adaptive_steps_floor`]) exceed the integrator's hard cap
/// ([`MAX_ATTEMPTS`]): it could only end there, minutes or hours later, with nothing to show.
/// The error names the drive field that sets the pace; `span_field` is the time it covers.
pub fn check_adaptive(model: &Model, span: f64, span_field: &str) -> Result<(), SpecError> {
    let Some((steps, field, what)) = adaptive_steps_floor(model, span) else {
        return Ok(());
    };
    let cap = MAX_ATTEMPTS as f64;
    if steps > cap {
        let count = if steps.is_finite() {
            format!("at least {steps:.1e}")
        } else {
            format!("more than {:.1e}", f64::MAX)
        };
        // The span as a person writes it (19.99, not 19.990000000000002).
        let span = (span * 1e9).round() / 1e9;
        return Err(SpecError::new(
            field,
            format!("{what} takes {count} adaptive steps to reach t = {span} s ("),
        )
        .name(span_field)
        .text(format!(
            "); the adaptive integrator stops at {cap:.0e} steps per trajectory"
        )));
    }
    Ok(())
}

/// The orbits' shooting: each segment of each Newton iteration is one adaptive trajectory over
/// T / segments, T the period (k drive periods, the fixed period or the period guess); the
/// orbit diagram steps RK4 on its own grid and is bounded by its own fields.
fn check_orbit_segments(r: &crate::spec::OrbitsRun, model: &Model) -> Result<(), SpecError> {
    use super::orbits::OrbitClosure;
    if r.diagram.is_some() {
        return Ok(());
    }
    let (period, field) = match r.closure {
        OrbitClosure::Driven { k } => {
            let Model::Planar(chain) = model else {
                return Ok(());
            };
            match chain.params().drive.period() {
                Ok(Some(t)) => (k as f64 * t, "orbits.drive_periods"),
                _ => return Ok(()),
            }
        }
        OrbitClosure::Period(t) => (t, "orbits.period"),
        OrbitClosure::Energy(_) => match r.period_guess {
            Some(t) => (t, "orbits.period"),
            None => return Ok(()),
        },
    };
    let segment = period / r.shooting.segments.max(1) as f64;
    check_adaptive(model, segment, field)?;
    if field == "orbits.period" {
        check_orbit_turns(model, period)?;
    }
    Ok(())
}

/// The most turns of a chain's slowest pendulum an undriven orbit search takes on: 10⁴.
///
/// Every Newton step of the search integrates the whole period with its 2N tangent vectors
/// (DOP853 at 1e-12 takes some 50 steps a turn), so a period of 10⁴ turns costs ~5·10⁵ steps
/// per evaluation and tens of evaluations; far beyond it (a period guess of 10⁶ s is 3.5·10⁵
/// turns of the double pendulum) the search runs for hours, and the accumulated error of so
/// long an integration exceeds what the closure check accepts. Long-period orbits near a
/// separatrix stay far below it (their period grows like the logarithm of the energy gap,
/// ~40 turns at the gap's round-off).
pub const MAX_ORBIT_TURNS: f64 = 1e4;

/// Refuses an undriven orbit whose period (the guess or the fixed one) spans more than
/// [`MAX_ORBIT_TURNS`] turns of the chain's slowest pendulum, ω = √(g/L) with L its whole
/// length (the lowest rate its small oscillations can have, so the count is a lower bound).
/// A chain without gravity has no such scale and is not checked.
fn check_orbit_turns(model: &Model, period: f64) -> Result<(), SpecError> {
    let Model::Planar(chain) = model else {
        return Ok(());
    };
    let params = chain.params();
    let length: f64 = params.links.iter().map(|l| l.length).sum();
    if !(params.gravity > 0.0 && length > 0.0) {
        return Ok(());
    }
    let scale = std::f64::consts::TAU * (length / params.gravity).sqrt();
    let turns = period / scale;
    if turns > MAX_ORBIT_TURNS {
        return Err(SpecError::new(
            "orbits.period",
            format!(
                "a period of {period:e} s is {turns:.1e} turns of the chain's slowest pendulum (2π√(L/g) = {scale:.3} s); an orbit search integrates every Newton step over it with the tangent vectors: at most {MAX_ORBIT_TURNS:.0e} turns ({:.3e} s)",
                MAX_ORBIT_TURNS * scale
            ),
        ));
    }
    Ok(())
}

/// The one-line refusal of an estimate over the budget, naming the field that drives it.
pub fn over_budget(e: &Estimate, budget: &Budget) -> Result<(), SpecError> {
    if e.bytes > budget.bytes {
        return Err(SpecError::new(
            e.field.clone(),
            format!(
                "{} need ~{} for {}, over the {} budget (--max-memory)",
                e.driver,
                format_bytes(e.bytes),
                e.what,
                format_bytes(budget.bytes)
            ),
        ));
    }
    Ok(())
}

impl ModelFile {
    /// The number of links the model will have, read without building anything.
    pub fn link_count(&self) -> usize {
        match self {
            ModelFile::Planar(m) => match (&m.preset, &m.link) {
                (_, Some(list)) => list.len(),
                (Some(p), None) => match p.as_str() {
                    "simple" => 1,
                    "double" => 2,
                    "triple" => 3,
                    _ => m.links.unwrap_or(0),
                },
                (None, None) => 0,
            },
            ModelFile::Cart(c) => {
                use super::PerLink::Each;
                match (c.links, &c.length, &c.mass) {
                    (Some(n), _, _) => n,
                    (None, Some(Each(v)), _) | (None, None, Some(Each(v))) => v.len(),
                    _ => 2,
                }
            }
        }
    }
}

/// Threads that run members, orbits or tiles at once.
fn threads() -> f64 {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as f64
}

impl Spec {
    /// The model time one trajectory of the run integrates (None: no time integration to
    /// speak of, as in modes).
    pub fn time_span(&self) -> Option<f64> {
        match &self.analysis {
            Analysis::Simulate(o) => Some(o.t_end),
            Analysis::Lyapunov(r) => Some(r.options.transient + r.options.time),
            Analysis::Poincare(o) => Some(o.orbit.t_max),
            Analysis::Map(o) => Some(o.t_max),
            Analysis::Measure(r) => Some(r.map.t_max),
            Analysis::Animate(o) => Some(o.frame_count() as f64 * o.frame_dt()),
            Analysis::Control(o) => Some(o.t_end),
            Analysis::Registered(r) => r.time_span().map(|(t, _)| t),
            Analysis::Modes(_) | Analysis::Orbits(_) => None,
        }
    }

    /// The field that sets [`Spec::time_span`].
    fn span_field(&self) -> &'static str {
        match &self.analysis {
            Analysis::Simulate(_) => "simulate.t_end",
            Analysis::Lyapunov(_) => "lyapunov.t_end",
            Analysis::Poincare(_) => "poincare.t_end",
            Analysis::Map(_) | Analysis::Measure(_) => "map.t_end",
            Analysis::Animate(_) => "animate.duration",
            Analysis::Control(_) => "control.t_end",
            Analysis::Registered(r) => r.time_span().map_or(r.kind().name, |(_, f)| f),
            Analysis::Modes(_) => "modes",
            Analysis::Orbits(_) => "orbits",
        }
    }

    /// What the run will hold in memory at once, and the field that drives most of it.
    pub fn memory_estimate(&self) -> Estimate {
        self.memory_estimate_for(None)
    }

    /// [`Spec::memory_estimate`] of shard `shard` (`(i, n)`) of a map run: it holds only its
    /// own tiles of each band (other analyses ignore `shard`).
    pub fn memory_estimate_for(&self, shard: Option<(usize, usize)>) -> Estimate {
        let n = self.model.links();
        let dim = match &self.model {
            Model::Planar(c) => c.dim(),
            Model::Cart(c) => c.dim(),
        } as f64;
        let nf = n as f64;
        let model = Term {
            bytes: match &self.model {
                Model::Planar(_) => nf * PLANAR_LINK_BYTES,
                Model::Cart(_) => {
                    nf * PLANAR_LINK_BYTES + F64 * (nf * nf + (3.0 * nf + 2.0).powi(2))
                }
            },
            field: "model.links",
            driver: links_driver(n),
            what: "the model",
        };
        let mut terms = vec![model];
        match &self.analysis {
            Analysis::Simulate(o) => {
                let samples = (o.t_end / o.dt_out).floor() + 2.0;
                // The samples as integrated, the trajectory's arrays and the figures' positions.
                let per = match &self.model {
                    Model::Planar(_) => (3.0 * dim + 8.0) * F64,
                    Model::Cart(_) => (2.0 * dim + 3.0 * (nf + 1.0) + 4.0) * F64,
                };
                terms.push(samples_term(
                    samples,
                    per,
                    n,
                    "simulate.t_end",
                    "the trajectory",
                ));
                terms.push(Term {
                    bytes: solver(dim),
                    field: "model.links",
                    driver: links_driver(n),
                    what: "the integrator",
                });
            }
            Analysis::Control(o) => {
                let samples = (o.t_end / o.dt_out).floor() + 2.0;
                let per = (2.0 * dim + 3.0 * (nf + 1.0) + 4.0) * F64;
                terms.push(samples_term(
                    samples,
                    per,
                    n,
                    "control.t_end",
                    "the closed loop",
                ));
                // The LQR: the Hamiltonian matrix of the 2(2N + 2) linear states, its Schur
                // form and the PBH test's copies.
                let m = 2.0 * (2.0 * nf + 2.0);
                terms.push(Term {
                    bytes: 40.0 * F64 * m * m,
                    field: "model.links",
                    driver: links_driver(n),
                    what: "the LQR's matrices",
                });
            }
            Analysis::Modes(o) => {
                let eqs = o.equilibria.len().max(1) as f64;
                let bytes = match &self.model {
                    Model::Planar(c) => {
                        let damped = if c.params().damping.is_zero() {
                            0.0
                        } else {
                            16.0
                        };
                        let check = if o.check { 3.0 } else { 0.0 };
                        F64 * nf * nf * (3.0 * eqs + 6.0 + damped + check)
                    }
                    Model::Cart(_) => {
                        let m = 2.0 * (nf + 1.0);
                        F64 * m * m * (3.0 + 40.0) * eqs
                    }
                };
                terms.push(Term {
                    bytes,
                    field: "model.links",
                    driver: links_driver(n),
                    what: "the modes' matrices",
                });
            }
            Analysis::Lyapunov(r) => lyapunov_terms(r, n, dim, &mut terms),
            Analysis::Poincare(o) => poincare_terms(o, n, dim, &mut terms),
            Analysis::Map(o) => map_terms(o, false, shard, n, dim, &mut terms),
            Analysis::Measure(r) => {
                map_terms(&r.map, true, None, n, dim, &mut terms);
                measure_spec_terms(r, &mut terms);
            }
            Analysis::Animate(o) => animate_terms(o, n, dim, &mut terms),
            Analysis::Orbits(r) => orbits_terms(r, dim, &mut terms),
            Analysis::Registered(r) => terms.extend(r.memory(n, dim)),
        }
        estimate(terms)
    }

    /// Refuses the run (shard `shard` of a map) when [`Spec::memory_estimate_for`] exceeds
    /// `budget`.
    pub fn check_memory(
        &self,
        budget: &Budget,
        shard: Option<(usize, usize)>,
    ) -> Result<(), SpecError> {
        over_budget(&self.memory_estimate_for(shard), budget)
    }
}

/// An orbits run: the shooting equations' Jacobian and its solve, and each kept orbit (its
/// shape and monodromy) along the branches; or the orbit diagram's samples.
fn orbits_terms(r: &crate::spec::OrbitsRun, dim: f64, terms: &mut Vec<Term>) {
    let s = &r.shooting;
    let unknowns = s.segments as f64 * dim + 1.0;
    terms.push(Term {
        bytes: 4.0 * F64 * unknowns * unknowns,
        field: "orbits.segments",
        driver: format!("{} segments of {dim} states", s.segments),
        what: "the shooting equations",
    });
    let orbit = F64 * (dim * dim + dim * (s.segments * s.samples + 1) as f64);
    match &r.diagram {
        Some(d) => {
            let values = d.parameters.len() as f64 * d.starts.len() as f64;
            terms.push(Term {
                bytes: F64 * values * (d.samples as f64 * dim + 1.0) * 2.0,
                field: "orbits.sampled_periods",
                driver: format!(
                    "{} parameter values × {} starts × {} periods",
                    d.parameters.len(),
                    d.starts.len(),
                    d.samples
                ),
                what: "the orbit diagram's samples",
            });
        }
        None => {
            let branches = 1.0 + r.doublings as f64;
            let points = match r.action {
                crate::spec::OrbitsAction::Continue => r.continuation.points as f64,
                _ => 1.0,
            };
            terms.push(Term {
                bytes: orbit * points * branches * 2.0,
                field: "orbits.points",
                driver: format!("{points} points × {branches} branches"),
                what: "the orbits kept",
            });
        }
    }
}

/// The tangent vectors of a Lyapunov run (and of an ensemble's members, and their results).
fn lyapunov_terms(r: &LyapunovRun, n: usize, dim: f64, terms: &mut Vec<Term>) {
    let k = match r.estimator {
        LyapunovEstimator::Spectrum => r.options.k.unwrap_or(dim as usize) as f64,
        LyapunovEstimator::Tangent => 1.0,
        LyapunovEstimator::TwoTrajectory(_) => 1.0,
        LyapunovEstimator::Sali(ref s) => s.k as f64,
        LyapunovEstimator::Indicator(i, _) => i.vectors as f64,
    };
    let history = r.options.max_history as f64 * (2.0 * k + 6.0) * F64;
    // State and k tangent vectors through the solver, and the QR's copies.
    let run = solver(dim * (1.0 + k)) + 3.0 * F64 * dim * k;
    if let Some(cov) = &r.covariant {
        let o = &r.options;
        terms.push(Term {
            bytes: crate::analysis::orbit::covariant_bytes(
                dim as usize,
                k as usize,
                o.tau,
                o.time,
                cov,
            ),
            field: "lyapunov.t_end",
            driver: format!(
                "{:.0} s window and {} s backward transient at tau = {} s",
                o.time, cov.backward_transient, o.tau
            ),
            what: "the covariant vectors' R factors and samples",
        });
    }
    match &r.ensemble {
        None => terms.push(Term {
            bytes: run + history,
            field: "model.links",
            driver: links_driver(n),
            what: "the tangent vectors",
        }),
        Some(e) => {
            let m = e.members as f64;
            let at_once = threads().min(m);
            terms.push(Term {
                bytes: at_once * run,
                field: "model.links",
                driver: links_driver(n),
                what: "the tangent vectors",
            });
            terms.push(Term {
                bytes: m * (history + dim * F64 + 4096.0),
                field: "lyapunov.ensemble",
                driver: format!("{} members", e.members),
                what: "the ensemble's results",
            });
        }
    }
}

/// A Poincaré run's points on the section and its integrators.
fn poincare_terms(o: &PoincareOptions, n: usize, dim: f64, terms: &mut Vec<Term>) {
    let shells = o.energies.len().max(1) as f64;
    let points = if o.energies.is_empty() {
        o.initial.len().max(1) as f64
    } else {
        match o.sampling.sampling {
            Sampling::Grid { angles, speeds } => angles as f64 * speeds as f64,
            Sampling::Random { count, .. } => count as f64,
        }
    };
    let crossings = o.orbit.crossings as f64;
    // Each crossing keeps its state (a Vec), time and energy error.
    let per = dim * F64 + 24.0 + 16.0;
    let (field, driver) = if crossings >= points * shells {
        (
            "poincare.crossings",
            format!("{} crossings", o.orbit.crossings),
        )
    } else {
        ("poincare.grid", format!("{:.0} orbits", points * shells))
    };
    terms.push(Term {
        bytes: shells * points * crossings * per,
        field,
        driver: format!("{driver} of {n} links"),
        what: "the section's points",
    });
    terms.push(Term {
        bytes: threads() * solver(dim * 2.0),
        field: "model.links",
        driver: links_driver(n),
        what: "the integrators",
    });
}

/// A map run (or shard `shard`, `(i, n)`): its tiles in flight, the band of tiles the
/// assembly holds, the per-tile bookkeeping and the figure; a measure's label grids besides.
///
/// The map itself is never in memory: tiles stream to the checkpoint, and the file is
/// assembled from it one band of tile rows at a time, of which a shard holds only its own
/// tiles (every n-th), so the band term is ~1/n of the whole run's, and `--shard` is what
/// lowers it; the figure reads at most [`FIGURE_EDGE`]² pixels (a decimated read).
fn map_terms(
    o: &MapOptions,
    measure: bool,
    shard: Option<(usize, usize)>,
    n: usize,
    dim: f64,
    terms: &mut Vec<Term>,
) {
    let (w, h) = (o.grid.width as f64, o.grid.height as f64);
    let px = w * h;
    let pixels = format!("{}×{} pixels", o.grid.width, o.grid.height);
    if measure {
        // The label grid (u32), two Wada masks (u64) and the box-count flags.
        terms.push(Term {
            bytes: px * (4.0 + 16.0 + 2.0),
            field: "map.resolution",
            driver: pixels.clone(),
            what: "the measures' label grid and masks",
        });
    }
    let flip = matches!(o.kind, MapKind::FlipTime { .. });
    let aux = o.kind.aux_columns(n) as f64;
    // A pixel as a tile holds it, and as the file stores it.
    let per_px = (if flip { 4.0 + 1.0 } else { 8.0 }) + 1.0 + aux * F64;
    let tile = o.tile.max(1) as f64;
    let cols = (w / tile).ceil();
    let tiles_total = cols * (h / tile).ceil();
    let parts = shard.map_or(1.0, |(_, k)| k as f64);
    let band_tiles = (cols / parts).ceil();
    // The band's tiles, their variables' columns, and each tile's padded, shuffled and
    // deflated chunk; a whole flip map also the band's flip steps (the row-major checksum).
    let band_k = if flip && shard.is_none() {
        tile * w * 4.0
    } else {
        0.0
    };
    terms.push(Term {
        bytes: band_tiles * tile * tile * per_px * 4.0 + band_k,
        field: "map.resolution",
        driver: pixels.clone(),
        what: "the assembly's band of tiles (--shard i/n holds 1/n of it)",
    });
    // Which tiles are done, and per tile its steps and checksum (whole-map arrays of a
    // number a tile), this run's tile list.
    terms.push(Term {
        bytes: tiles_total * 32.0 + (tiles_total / parts).ceil() * 16.0,
        field: "map.tile",
        driver: format!("{tiles_total:.0} tiles"),
        what: "the tiles' bookkeeping",
    });
    // The figure: the map read decimated to at most FIGURE_EDGE a side, its values, classes
    // and colours.
    let step = (w.max(h) / FIGURE_EDGE as f64).ceil().max(1.0);
    terms.push(Term {
        bytes: (w / step).ceil() * (h / step).ceil() * (per_px + 8.0 + 1.0 + 4.0)
            + 16.0 * 1024.0 * 1024.0,
        field: "map.resolution",
        driver: pixels,
        what: "the figure",
    });
    // Tiles in flight: every pixel's state (and tangent vectors) through the kernel.
    let tangents = match o.kind {
        MapKind::Lyapunov { .. } | MapKind::Ftle => dim,
        MapKind::Sali { .. } => 2.0,
        MapKind::Megno { .. } => 1.0,
        MapKind::Gali { k, .. } => k as f64,
        _ => 0.0,
    };
    terms.push(Term {
        bytes: threads() * tile * tile * solver(dim * (1.0 + tangents)) / 4.0,
        field: "map.tile",
        driver: format!("tiles of {}×{} pixels", o.tile, o.tile),
        what: "the tiles in flight",
    });
    if let MapKind::Frequency { samples, .. } = o.kind {
        // Each tile in flight holds its pixels' sampled orbits and the NAFF workspaces of the
        // whole run and of a half: per sample ≈ 136 B (FFT buffer, window and time weights,
        // five complex work vectors) + 68 B (the half) + 16 B (the link signal), and the
        // samples of θ and θ̇ of a lane group (8 lanes × 2 links × 16 B) or of one pixel of
        // an N-link chain (16·N B). Independent of the resolution: `samples` drives it.
        let per_sample = 220.0 + (16.0 * n as f64).max(256.0);
        let in_flight = threads().min(tiles_total).max(1.0);
        terms.push(Term {
            bytes: in_flight * f64::from(samples) * per_sample,
            field: "map.samples",
            driver: format!("{samples} samples per pixel"),
            what: "the sampled orbits and frequency analyses in flight",
        });
    }
}

/// The label grids `pendula measure` (or the Python package) measures: their size, how many
/// there are, what reading one costs, and the field that names them.
#[derive(Debug, Clone, Copy)]
pub struct LabelGrids {
    pub nx: usize,
    pub ny: usize,
    /// Label grids of this size (one per flip time of a flip map, else one).
    pub count: usize,
    /// Bytes per pixel the source holds while it is read (an HDF5 dataset read as i64, a map
    /// file's variables).
    pub read_per_px: f64,
    /// The field that gives the grid: `labels` (a dataset or array) or `measure` (a map file).
    pub field: &'static str,
}

/// What measuring `grids` with options `o` holds at once: the grids and their reading, the
/// measures' masks (the Wada test's three u64 masks, one box-count flag grid per thread), the
/// per-shift results of every grid (kept, then copied while written) and the uncertainty
/// exponent's counts, each term naming the option that drives it. Overflow-safe: every count is
/// taken as f64, so 10¹² × 10¹² is a number over any budget, not a wrapped product.
pub fn measure_estimate(grids: &LabelGrids, o: &MeasureOptions) -> Estimate {
    estimate(measure_terms(grids, o))
}

fn measure_terms(grids: &LabelGrids, o: &MeasureOptions) -> Vec<Term> {
    let px = grids.nx as f64 * grids.ny as f64;
    let count = grids.count.max(1) as f64;
    let pixels = format!("{}×{} pixels", grids.nx, grids.ny);
    let mut terms = vec![Term {
        // Reading, the i32 values and their sorted copy, the Wada masks, box-count flags.
        bytes: px * (grids.read_per_px + 8.0 + 24.0 + 1.5 * threads()),
        field: grids.field,
        driver: pixels.clone(),
        what: "the label grid and the measures' masks, held whole (the measures do not stream)",
    }];
    terms.push(Term {
        // Every grid's compacted labels (u32) exist before the first is measured.
        bytes: count * px * F64 / 2.0,
        field: "flip_before",
        driver: format!("{} label grids of {pixels}", grids.count),
        what: "the label grids",
    });
    let shifts = o.boxes.shifts.max(o.entropy_shifts) as f64;
    let short = grids.nx.min(grids.ny).max(1) as f64;
    let sizes = short.log2().max(1.0);
    let eps = if o.what == What::All || o.what == What::BasinEntropy {
        o.entropy_eps.len() as f64
    } else {
        0.0
    };
    // Per shift: its offsets, box counts per size and slope; per entropy side its offsets
    // and four values; twice (the results, then the arrays written).
    let per_shift = 2.0 * (48.0 + 16.0 * sizes + eps * 56.0);
    let (field, driver) = if eps > shifts {
        ("entropy_eps", format!("{} box sides", o.entropy_eps.len()))
    } else {
        (
            "shifts",
            format!("{} shifts", o.boxes.shifts.max(o.entropy_shifts)),
        )
    };
    terms.push(Term {
        bytes: count * (shifts * per_shift + eps * 256.0),
        field,
        driver,
        what: "the per-shift results",
    });
    terms.push(Term {
        // ε = 1 … K and a row of counts per ε in every thread's partial sums.
        bytes: o.uncertainty.max_eps as f64 * F64 * (2.0 * threads() + 4.0),
        field: "max_eps",
        driver: format!("{} values of ε", o.uncertainty.max_eps),
        what: "the uncertainty exponent's counts",
    });
    terms
}

/// A measure spec's results beyond its map's arrays: the per-shift results and counts of
/// [`measure_estimate`] for every label grid of every sweep point, and each point's spec.
fn measure_spec_terms(r: &super::MeasureRun, terms: &mut Vec<Term>) {
    let points = r.sweep.as_ref().map_or(1, |s| s.points.len());
    let grids = LabelGrids {
        nx: r.map.grid.width,
        ny: r.map.grid.height,
        count: r.flip_before.len().max(1),
        read_per_px: 0.0,
        field: "map.resolution",
    };
    for t in measure_terms(&grids, &r.options) {
        let field = match t.field {
            "shifts" => "measure.shifts",
            "entropy_eps" => "measure.entropy_eps",
            "max_eps" => "measure.max_eps",
            "flip_before" => "measure.flip_before",
            // The label grid and masks: map_terms counts them for the map's grid.
            _ => continue,
        };
        let scale = if field == "measure.max_eps" {
            1.0
        } else {
            points as f64
        };
        terms.push(Term {
            bytes: t.bytes * scale,
            field,
            ..t
        });
    }
    if let Some(s) = &r.sweep {
        terms.push(Term {
            // Each point's spec file and validated copy.
            bytes: points as f64 * 16384.0,
            field: "measure.sweep.values",
            driver: format!("{} sweep values", s.values.len()),
            what: "the sweep's points",
        });
    }
}

/// What the chaotic fraction of `energies` shells of `samples` starts on a chain of `links`
/// links holds at once: the model, every start's state, verdict and proposal count, and per
/// thread a start's mass matrix and Cholesky factor and its SALI run (the state and two
/// deviation vectors through RK4). Overflow-safe as [`measure_estimate`].
pub fn chaotic_estimate(links: usize, samples: usize, energies: usize) -> Estimate {
    let n = links as f64;
    let dim = 2.0 * n;
    let mut terms = vec![Term {
        bytes: n * PLANAR_LINK_BYTES
            + threads() * (2.0 * F64 * n * n + solver(dim * 3.0) + 64.0 * dim * F64),
        field: "links",
        driver: links_driver(links),
        what: "the model and each start's matrices and tangent vectors",
    }];
    terms.push(Term {
        bytes: samples as f64 * (dim * F64 + 24.0 + 48.0),
        field: "samples",
        driver: format!("{samples} samples of {links} links"),
        what: "the starts and their verdicts",
    });
    terms.push(Term {
        bytes: energies as f64 * 512.0,
        field: "energies",
        driver: format!("{energies} energies"),
        what: "the shells' rows",
    });
    estimate(terms)
}

/// An animation's samples and frame buffers.
fn animate_terms(o: &AnimateOptions, n: usize, dim: f64, terms: &mut Vec<Term>) {
    let nf = n as f64;
    let samples = o.frame_count() as f64 * o.substeps as f64 + 1.0;
    // The trajectory, the joints' positions and the kinetic energy per link.
    let per = (3.0 * dim + 8.0) * F64 + (nf + 1.0) * 16.0 + nf * F64;
    let mut t = samples_term(
        samples,
        per,
        n,
        "animate.duration",
        "the animation's samples",
    );
    if t.field == "animate.duration" {
        t.driver = format!(
            "{} frames × {} substeps of {n} links",
            o.frame_count(),
            o.substeps
        );
    }
    terms.push(t);
    let (w, h) = (f64::from(o.size.0), f64::from(o.size.1));
    terms.push(Term {
        bytes: 8.0 * w * h,
        field: "animate.width",
        driver: format!("{}×{} pixel frames", o.size.0, o.size.1),
        what: "the frame buffers",
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(Budget::parse("64G").unwrap().bytes, 64.0 * GIB);
        assert_eq!(
            Budget::parse("512MiB").unwrap().bytes,
            512.0 * 1024.0 * 1024.0
        );
        assert_eq!(Budget::parse("1.5t").unwrap().bytes, 1.5 * 1024.0 * GIB);
        assert_eq!(Budget::parse("1000").unwrap().bytes, 1000.0);
        for bad in ["", "0", "-1G", "12X", "G", "nan", "inf", "1e400"] {
            assert!(Budget::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bytes_read_as_short_units() {
        assert_eq!(format_bytes(12.0 * GIB), "12 GB");
        assert_eq!(format_bytes(8.0 * 1024.0 * GIB), "8.0 TB");
        assert_eq!(format_bytes(100.0), "100 B");
    }

    #[test]
    fn the_machine_budget_is_positive() {
        let b = Budget::machine();
        assert!(b.bytes.is_finite() && b.bytes >= 1.0);
    }

    #[test]
    fn measure_and_chaotic_estimates_name_their_driver_without_overflow() {
        let o = MeasureOptions::default();
        let grids = |n: usize| LabelGrids {
            nx: n,
            ny: n,
            count: 1,
            read_per_px: 8.0,
            field: "labels",
        };
        let budget = Budget { bytes: 16.0 * GIB };
        assert!(over_budget(&measure_estimate(&grids(1024), &o), &budget).is_ok());
        let e = over_budget(&measure_estimate(&grids(1_000_000), &o), &budget).unwrap_err();
        assert_eq!(e.field(), "labels");
        let mut shifts = o.clone();
        shifts.boxes.shifts = usize::MAX;
        shifts.entropy_shifts = usize::MAX;
        let e = over_budget(&measure_estimate(&grids(128), &shifts), &budget).unwrap_err();
        assert_eq!(e.field(), "shifts");
        let mut k = o.clone();
        k.uncertainty.max_eps = usize::MAX;
        let e = over_budget(&measure_estimate(&grids(128), &k), &budget).unwrap_err();
        assert_eq!(e.field(), "max_eps");
        let many = LabelGrids {
            count: 100_000,
            ..grids(4096)
        };
        let e = over_budget(&measure_estimate(&many, &o), &budget).unwrap_err();
        assert_eq!(e.field(), "flip_before");
        assert!(over_budget(&chaotic_estimate(2, 64, 4), &budget).is_ok());
        for (est, field) in [
            (chaotic_estimate(2, usize::MAX, 1), "samples"),
            (chaotic_estimate(2, 1_000_000_000_000, 1), "samples"),
            (chaotic_estimate(100_000, 2, 1), "links"),
        ] {
            assert_eq!(over_budget(&est, &budget).unwrap_err().field(), field);
        }
    }
}
