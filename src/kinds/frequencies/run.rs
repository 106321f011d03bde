//! The run: one orbit integrated and sampled uniformly, then the frequency analysis (NAFF) of
//! each link's signal, the fundamentals and the diffusion between the halves.

use super::{FrequenciesResult, FrequenciesRun};
use crate::analysis::frequency::{FrequencyOptions, FrequencyWorkspace};
use crate::analysis::modes::{modes_at, Equilibrium};
use crate::analysis::{self, SimulateOptions};
use crate::error::FieldError;
use crate::kinds::kind::Input;
use crate::kinds::RunError;
use crate::model::Chain;
use crate::observe::Observer;
use ndarray::s;

/// A line is explained by a combination of the fundamentals when they differ by at most this
/// fraction of ω_ref; a line that no combination (Σ|k_i| ≤ the order) comes that close to is
/// *unexplained* and gets no label. The same threshold decides which lines are new fundamentals
/// (a strong line the fundamentals so far do not explain), so that a line is never both.
///
/// Why 1e-7 ω_ref. On a torus NAFF (Hann p ≥ 1, polished) finds a line's frequency to ~1e-12
/// relative at a few hundred periods and to ~1e-10 at ~50 (the module's tests and
/// tests/frequencies.rs), and a combination of order K carries at most K times the
/// fundamentals' error: the residual of a true combination of order ≤ 15 stays two orders or
/// more below the threshold down to runs of a few dozen periods. A false label needs one of the
/// C combinations tried to fall within ±1e-7 ω_ref of the line by chance: they are spread over
/// ≈ ±K·max ν, so the chance is ≈ 2e-7·ω_ref·C / (2K·max ν) — below 1e-4 per line even for four
/// fundamentals at order 15 (C ≈ 4·10⁴). And it is ~10⁴–10⁵ times finer than the window's
/// resolution 2π/T of any run long enough to resolve the lines (T of a few hundred periods), so
/// an explained line coincides with its combination far beyond what the spectrum alone could
/// separate. A chaotic orbit's lines drift (the diffusion index says by how much) and are
/// mostly left unexplained: they are not combinations of fixed frequencies.
pub const IDENTIFY_TOLERANCE: f64 = 1e-7;

/// ω_ref: the given one, or the chain's lowest small-oscillation frequency about the hanging
/// equilibrium.
pub fn omega_ref(chain: &Chain, run: &FrequenciesRun) -> Result<(f64, bool), RunError> {
    if let Some(w) = run.omega_ref {
        return Ok((w, false));
    }
    let w = modes_at(chain, &Equilibrium::hanging(chain.links()))?
        .frequencies()
        .first()
        .copied()
        .unwrap_or(f64::NAN);
    if w.is_finite() && w > 0.0 {
        Ok((w, true))
    } else {
        Err(FieldError::new(
            "frequencies.omega_ref",
            "the chain has no stable small oscillation to take it from; give it",
        )
        .into())
    }
}

/// Runs `run` on `input`.
pub fn run(
    input: &Input<'_>,
    run: &FrequenciesRun,
    obs: &mut dyn Observer,
) -> Result<FrequenciesResult, RunError> {
    let chain = input.planar(super::KIND.name)?;
    let (w_ref, derived) = omega_ref(chain, run)?;
    let sim = SimulateOptions {
        t_end: run.t_end,
        dt_out: run.dt_out,
    };
    let tr = analysis::simulate(chain, input.method, input.x0, &sim, obs)?;
    let n = tr.len().min(run.samples) / 2 * 2;
    if n < 2 * crate::analysis::frequency::MIN_SAMPLES {
        return Err(RunError::Interrupted);
    }
    if !tr.complete {
        // Stopped: the analysis of the samples so far would not stop at once.
        return Err(RunError::Interrupted);
    }
    let tolerance = IDENTIFY_TOLERANCE * w_ref;
    let opts = FrequencyOptions {
        naff: run.naff,
        omega_ref: w_ref,
        fundamentals: chain.links(),
        order: run.combination_order,
        tolerance,
    };
    let mut ws = FrequencyWorkspace::new(n, run.dt_out, opts)?;
    let orbit = ws
        .analyse_observed(
            tr.theta.slice(s![..n, ..]),
            tr.omega.slice(s![..n, ..]),
            tr.t[0],
            true,
            obs,
        )
        .ok_or(RunError::Interrupted)?;
    Ok(FrequenciesResult {
        title: input.title.to_string(),
        run: *run,
        omega_ref: w_ref,
        omega_ref_derived: derived,
        samples: n,
        dt_out: run.dt_out,
        orbit,
        tolerance,
        max_relative_energy_error: tr.max_relative_energy_error(),
        stats: tr.stats,
        complete: tr.complete,
    })
}
