//! `kind = "frequencies"`: the frequency analysis (NAFF) of one orbit of a planar chain: each
//! link's lines, the fundamental frequencies, the integer combinations of them that explain
//! the lines, and the diffusion index between the run's halves.
//!
//! The whole kind: its table and validation ([`table`]), its run ([`run`]) and its result,
//! which describes itself ([`found`]); [`KIND`] is its registry entry and [`FrequenciesRun`]
//! its validated settings.

pub mod found;
pub mod run;
pub mod table;

pub use found::{FrequenciesResult, TOLERANCE_RULE};
pub use run::IDENTIFY_TOLERANCE;
pub use table::{validate, FrequenciesRun, FrequenciesSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings, PLANAR_ONLY};
use super::memory::{samples_term, solver_term, Term, F64};
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "frequencies",
    about: "Frequency analysis (NAFF) of one orbit: each link's lines, the fundamental frequencies, their combinations and the diffusion index.",
    table: table_of::<FrequenciesSpec>(),
    models: PLANAR_ONLY,
    reports: true,
    swept: true,
};

impl Settings for FrequenciesRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.t_end, "frequencies.t_end"))
    }

    fn memory(&self, links: usize, dim: f64) -> Vec<Term> {
        // The trajectory (as simulate keeps it), then per link one complex signal and the NAFF
        // workspaces of the whole run and a half (residual, windowed residual, FFT buffer and
        // scratch, weights: ≈ 5 complex per sample each).
        let per = (3.0 * dim + 8.0) * F64 + 16.0 * 8.0;
        vec![
            samples_term(
                self.samples as f64,
                per,
                links,
                "frequencies.t_end",
                "the samples and the NAFF workspaces",
            ),
            solver_term(links, dim),
        ]
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        Ok(Box::new(run::run(input, self, observer)?))
    }
}
