//! `kind = "poincare"`: Poincaré sections of a planar chain, on energy shells, from explicit
//! initial states or stroboscopic (once per drive period), each orbit's crossings with its
//! finite-time exponent and the chaotic / not shown chaotic verdict drawn from it.
//!
//! Its spec table and validation are still `spec/`'s ([`crate::spec::Analysis::Poincare`]);
//! here are its run ([`run`]) and its result, which describes itself ([`PoincareSection`]:
//! the group `poincare` with one subgroup per shell ([`record`]), the JSON summary, the text
//! report, the section figure and a sweep's scalars ([`found`])).

pub mod found;
pub mod record;

pub use found::PoincareSection;

use crate::analysis::poincare::{self, PoincareOptions};
use crate::error::{FieldError, RunError};
use crate::kinds::Input;
use crate::observe::Observer;

/// Runs the section `opts` on `input`'s chain. A run that went to its end without a single
/// crossing is refused, naming `poincare.t_end` (a stopped one keeps what it has, even none).
pub fn run(
    input: &Input<'_>,
    opts: &PoincareOptions,
    obs: &mut dyn Observer,
) -> Result<PoincareSection, RunError> {
    let chain = input.chain;
    let result = poincare::poincare(chain, opts, obs)?;
    if result.complete && result.crossings() == 0 {
        return Err(FieldError::new(
            "poincare.t_end",
            format!(
                "no orbit crossed the section {} within t_end = {} s (raise --t-end or check the section)",
                opts.section.describe(chain),
                opts.orbit.t_max
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
