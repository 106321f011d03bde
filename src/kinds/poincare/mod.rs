//! `kind = "poincare"`: Poincaré sections of a planar chain, on energy shells, from explicit
//! initial states or stroboscopic (once per drive period), each orbit's crossings with its
//! finite-time exponent and the chaotic / not shown chaotic verdict drawn from it.
//!
//! The whole kind: its table and validation ([`table`]), its run ([`run`]) and its result,
//! which describes itself ([`PoincareSection`]: the group `poincare` with one subgroup per
//! shell ([`record`]), the JSON summary, the text report, the section figure and a sweep's
//! scalars ([`found`])); [`KIND`] is its registry entry and its validated settings are the
//! section's [`PoincareOptions`].

pub mod found;
pub mod record;
pub mod table;

pub use found::PoincareSection;
pub use table::{OneOrMany, PoincareSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings, PLANAR_ONLY};
use super::memory::{links_driver, solver, threads, Term, F64};
use crate::analysis::poincare::{self, PoincareOptions, Sampling};
use crate::error::FieldError;
use crate::kinds::RunError;
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "poincare",
    about: "Poincaré sections on energy shells (or stroboscopic sections of a driven chain).",
    table: table_of::<PoincareSpec>(),
    models: PLANAR_ONLY,
    reports: true,
    swept: true,
};

impl Settings for PoincareOptions {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.orbit.t_end, "poincare.t_end"))
    }

    /// The points on the section and the integrators.
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        let shells = self.energies.len().max(1) as f64;
        let points = if self.energies.is_empty() {
            self.initial.len().max(1) as f64
        } else {
            match self.sampling.sampling {
                Sampling::Grid { angles, speeds } => angles as f64 * speeds as f64,
                Sampling::Random { count, .. } => count as f64,
            }
        };
        let crossings = self.orbit.crossings as f64;
        // Each crossing keeps its state (a Vec), time and energy error, and the file's record
        // copies the state, time and error while it is written.
        let per = dim * F64 + 24.0 + 16.0 + (dim + 2.0) * F64;
        let (field, driver) = if crossings >= points * shells {
            (
                "poincare.crossings",
                format!("{} crossings", self.orbit.crossings),
            )
        } else {
            ("poincare.grid", format!("{:.0} orbits", points * shells))
        };
        vec![
            Term {
                bytes: shells * points * crossings * per,
                field,
                driver: format!("{driver} of {n} links"),
                what: "the section's points",
            },
            Term {
                bytes: threads() * solver(dim * 2.0),
                field: "model.links",
                driver: links_driver(n),
                what: "the integrators",
            },
        ]
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        Ok(Box::new(run(input, self, observer)?))
    }
}

/// Runs the section `opts` on `input`'s chain. A run that went to its end without a single
/// crossing is refused, naming `poincare.t_end` (a stopped one keeps what it has, even none).
pub fn run(
    input: &Input<'_>,
    opts: &PoincareOptions,
    obs: &mut dyn Observer,
) -> Result<PoincareSection, RunError> {
    let chain = input.planar(KIND.name)?;
    let result = poincare::poincare(chain, opts, obs)?;
    if result.complete && result.crossings() == 0 {
        return Err(FieldError::new(
            "poincare.t_end",
            format!(
                "no orbit crossed the section {} within t_end = {} s (raise --t-end or check the section)",
                opts.section.describe(chain),
                opts.orbit.t_end
            ),
        )
        .into());
    }
    Ok(PoincareSection {
        title: input.title.to_string(),
        chain: chain.clone(),
        opts: opts.clone(),
        result,
        wall: 0.0,
    })
}
