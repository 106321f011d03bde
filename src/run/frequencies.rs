//! `kind = "frequencies"`: one orbit integrated and sampled uniformly, then the frequency
//! analysis (NAFF) of each link's signal, the fundamentals and the diffusion between the halves.

use super::RunError;
use crate::analysis::frequency::{FrequencyOptions, FrequencyWorkspace, OrbitFrequencies};
use crate::analysis::modes::{modes_at, Equilibrium};
use crate::analysis::{self, SimulateOptions};
use crate::error::FieldError;
use crate::integrate::Stats;
use crate::model::Chain;
use crate::observe::Observer;
use crate::spec::{FrequenciesRun, Spec};
use ndarray::s;

/// A line is explained by a combination of the fundamentals when they differ by less than this
/// fraction of ω_ref (far above NAFF's error on a regular orbit of a few hundred periods, far
/// below the spacing of low-order combinations).
pub const IDENTIFY_TOLERANCE: f64 = 1e-7;

/// What a frequency analysis found.
#[derive(Debug, Clone)]
pub struct FrequenciesResult {
    /// ω_ref of the libration signals (rad/s) and whether it was derived (the lowest
    /// small-oscillation frequency) rather than given.
    pub omega_ref: f64,
    pub omega_ref_derived: bool,
    /// Samples analysed and their interval (s).
    pub samples: usize,
    pub dt_out: f64,
    pub orbit: OrbitFrequencies,
    /// The largest relative energy error over the samples (of the integration).
    pub max_relative_energy_error: f64,
    pub stats: Stats,
    /// False when a stop cut the run short (the samples up to then were analysed).
    pub complete: bool,
}

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

pub fn run(
    spec: &Spec,
    chain: &Chain,
    run: &FrequenciesRun,
    obs: &mut dyn Observer,
) -> Result<FrequenciesResult, RunError> {
    let (w_ref, derived) = omega_ref(chain, run)?;
    let sim = SimulateOptions {
        t_end: run.t_end,
        dt_out: run.dt_out,
    };
    let tr = analysis::simulate(chain, &spec.method, &spec.x0, &sim, obs)?;
    let n = tr.len().min(run.samples) / 2 * 2;
    if n < 2 * crate::analysis::frequency::MIN_SAMPLES {
        return Err(RunError::Interrupted);
    }
    let opts = FrequencyOptions {
        naff: run.naff,
        omega_ref: w_ref,
        fundamentals: chain.links(),
        order: run.combination_order,
        tolerance: IDENTIFY_TOLERANCE * w_ref,
    };
    let mut ws = FrequencyWorkspace::new(n, run.dt_out, opts)
        .map_err(|e| RunError::Failed(e.to_string()))?;
    let orbit = ws.analyse(
        tr.theta.slice(s![..n, ..]),
        tr.omega.slice(s![..n, ..]),
        tr.t[0],
        true,
    );
    Ok(FrequenciesResult {
        omega_ref: w_ref,
        omega_ref_derived: derived,
        samples: n,
        dt_out: run.dt_out,
        orbit,
        max_relative_energy_error: tr.max_relative_energy_error(),
        stats: tr.stats,
        complete: tr.complete,
    })
}
