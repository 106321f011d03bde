//! `modes`: the equilibria of a chain and their small-oscillation normal modes, as results
//! that describe themselves ([`crate::finding::Finding`]): the planar chain's ([`PlanarModes`]:
//! the group `modes` with its formula checks and nonlinear measurements, the mode-shape
//! figure) and the cart chain's ([`CartChainModes`]: the group `modes`, no figure).
//!
//! The spec's `[modes]` table and its validation stay in `spec/` ([`ModesOptions`]); the
//! analysis is [`crate::analysis::modes`] and [`crate::analysis::cart`].

mod cart;
mod found;
mod report;

pub use cart::CartChainModes;
pub use found::PlanarModes;

use crate::analysis::cart::{cart_modes, CartError};
use crate::analysis::modes::{modes_cancellable, ModesOptions};
use crate::error::FieldError;
use crate::kinds::RunError;
use crate::model::{CartChain, Chain};
use crate::observe::Observer;

/// The modes of the planar `chain` at the equilibria of `opts`, with their checks; a stop
/// during the checks keeps the modes, marked incomplete. `title` is the figure's.
pub fn run_planar(
    title: &str,
    chain: &Chain,
    opts: &ModesOptions,
    obs: &mut dyn Observer,
) -> Result<PlanarModes, RunError> {
    Ok(PlanarModes {
        title: title.to_string(),
        chain: chain.clone(),
        result: modes_cancellable(chain, opts, &obs.cancel())?,
    })
}

/// The modes of the cart chain `sys` at the equilibria of `opts`.
pub fn run_cart(sys: &CartChain, opts: &ModesOptions) -> Result<CartChainModes, RunError> {
    let signs: Vec<Vec<f64>> = opts
        .equilibria
        .iter()
        .map(|e| e.signs.iter().map(|&s| f64::from(s)).collect())
        .collect();
    let modes = signs
        .iter()
        .map(|s| cart_modes(sys, s))
        .collect::<Result<_, _>>()
        .map_err(|e| {
            // The message names its fields itself.
            let field = match e {
                CartError::MassMatrix(_) => "model.mass",
                _ => "modes.equilibria",
            };
            FieldError::unled(field).text(e.to_string())
        })?;
    Ok(CartChainModes {
        sys: sys.clone(),
        signs,
        modes,
    })
}
