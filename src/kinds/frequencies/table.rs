//! The `[frequencies]` table of a spec and its validation into a [`FrequenciesRun`].

use crate::analysis::frequency::{NaffOptions, MAX_FUNDAMENTALS, MAX_WINDOW_ORDER, MIN_SAMPLES};
use crate::error::{positive, FieldError as SpecError};
use crate::integrate::Method;
use crate::kinds::kind::{planar_chain, Registered, SpecParts, Table, Validation};
use crate::model::{Chain, Model};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrequenciesSpec {
    /// End of the run (s); required.
    pub t_end: Option<f64>,
    /// Sampling interval (s), default 0.01: the samples are k·dt_out ≤ t_end, an even number of
    /// them (the last one dropped if needed, so that the two halves have the same length).
    pub dt_out: Option<f64>,
    /// Order p of the Hann window (default 1).
    pub window_order: Option<u32>,
    /// Lines extracted per link (default 10).
    pub terms: Option<usize>,
    /// Largest Σ|k_i| of the integer combinations that explain lines (default
    /// [`DEFAULT_COMBINATION_ORDER`], or lower where the combinations of many fundamentals
    /// would exceed [`MAX_COMBINATIONS`]).
    pub combination_order: Option<u32>,
    /// ω_ref (rad/s) of the signal θ − iθ̇/ω_ref (default the lowest small-oscillation
    /// frequency about the hanging equilibrium).
    pub omega_ref: Option<f64>,
}

/// Most samples of a run (each takes ~200 bytes per link in the trajectory and workspaces).
pub const MAX_SAMPLES: f64 = 1e10;
/// Most lines per link.
pub const MAX_TERMS: usize = 100;
/// Most integer vectors (2·order + 1)^fundamentals accepted per line (the search itself tries
/// (2·order + 1)^(fundamentals − 1) of them, [`crate::analysis::frequency::identify`]).
pub const MAX_COMBINATIONS: f64 = 1e6;

/// The default combination order (capped by [`MAX_COMBINATIONS`]: 15 up to four fundamentals).
/// It was 6, which could not name the 7th and 9th harmonics that a strongly nonlinear
/// oscillator's ten leading lines reach (`--preset simple --theta 2`: ±ν, ±3ν, …, 9ν); 15 covers
/// the odd harmonics of the default ten terms with margin, at (2·15 + 1)³ ≈ 3·10⁴ trials per
/// line for four fundamentals.
pub const DEFAULT_COMBINATION_ORDER: u32 = 15;

/// A validated frequency analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FrequenciesRun {
    /// The time of the last sample used, (samples − 1)·dt_out (s).
    pub t_end: f64,
    pub dt_out: f64,
    /// Samples analysed (even; each half has samples / 2).
    pub samples: usize,
    #[serde(skip)]
    pub naff: NaffOptions,
    pub window_order: u32,
    pub terms: usize,
    pub combination_order: u32,
    /// ω_ref as given; None: the lowest small-oscillation frequency (found by the run).
    pub omega_ref: Option<f64>,
}

impl Table for FrequenciesSpec {
    /// [`validate`] of the table as the spec holds it, for the registry ([`super::KIND`]); the
    /// run starts from the spec's `[initial]` state.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let chain = planar_chain(super::KIND.name, model)?;
        let s = self;
        let (run, method) = validate(&s, chain, &|dt| spec.integrator().method(dt))?;
        Ok((Registered(Box::new(run)), method, spec.start()?))
    }
}

/// Checks the table `s` of a run on `chain`; `method` is the spec's integrator for a sampling
/// interval (its `[integrator]` table). Returns the run and its integrator.
pub fn validate(
    s: &FrequenciesSpec,
    chain: &Chain,
    method: &dyn Fn(Option<f64>) -> Result<Method, SpecError>,
) -> Result<(FrequenciesRun, Method), SpecError> {
    let t_end = positive(
        "frequencies.t_end",
        s.t_end
            .ok_or_else(|| SpecError::new("frequencies.t_end", "missing"))?,
    )?;
    let dt_out = positive("frequencies.dt_out", s.dt_out.unwrap_or(0.01))?;
    let grid = (t_end / dt_out * (1.0 + 1e-12)).floor();
    let least = 2 * MIN_SAMPLES;
    if grid + 1.0 < least as f64 {
        return Err(SpecError::new(
            "frequencies.t_end",
            format!(
                "gives {} samples at dt_out = {dt_out} s; the analysis needs at least {least} (raise t_end or lower dt_out)",
                grid as u64 + 1
            ),
        ));
    }
    // Far more than any memory budget allows (the budget refuses it with its size);
    // capped here only so that the count stays an exact integer.
    if grid > MAX_SAMPLES {
        return Err(SpecError::new(
            "frequencies.t_end",
            format!(
                "gives {:.3e} samples at dt_out = {dt_out} s; at most {MAX_SAMPLES:e} (lower t_end or raise dt_out)",
                grid + 1.0
            ),
        ));
    }
    let count = grid as usize + 1;
    let samples = count - count % 2;
    let window_order = s.window_order.unwrap_or(1);
    if window_order > MAX_WINDOW_ORDER {
        return Err(SpecError::new(
            "frequencies.window_order",
            format!("must be 0..={MAX_WINDOW_ORDER} (got {window_order})"),
        ));
    }
    let terms = s.terms.unwrap_or(10);
    if !(1..=MAX_TERMS).contains(&terms) {
        return Err(SpecError::new(
            "frequencies.terms",
            format!("must be 1..={MAX_TERMS} (got {terms})"),
        ));
    }
    let fundamentals = chain.links().min(MAX_FUNDAMENTALS) as i32;
    let count = |o: u32| (2.0 * o as f64 + 1.0).powi(fundamentals);
    let combination_order = match s.combination_order {
        Some(o) if count(o) > MAX_COMBINATIONS => {
            return Err(SpecError::new(
                "frequencies.combination_order",
                format!(
                    "{o} gives {:.3e} integer combinations of {fundamentals} fundamentals; at most {MAX_COMBINATIONS:e} (lower it)",
                    count(o)
                ),
            ))
        }
        Some(o) => o,
        None => (0..=DEFAULT_COMBINATION_ORDER)
            .rev()
            .find(|&o| count(o) <= MAX_COMBINATIONS)
            .unwrap_or(0),
    };
    let omega_ref = s
        .omega_ref
        .map(|w| positive("frequencies.omega_ref", w))
        .transpose()?;
    let t_last = (samples - 1) as f64 * dt_out;
    let method = method(Some(dt_out))?;
    if let Some(dt) = method.fixed_dt() {
        if dt > t_last {
            return Err(SpecError::new(
                "integrator.dt",
                format!("is longer than t_end ({dt} > {t_last})"),
            ));
        }
    }
    let naff = NaffOptions {
        window_order,
        terms,
        ..NaffOptions::default()
    };
    let run = FrequenciesRun {
        t_end: t_last,
        dt_out,
        samples,
        naff,
        window_order,
        terms,
        combination_order,
        omega_ref,
    };
    Ok((run, method))
}
