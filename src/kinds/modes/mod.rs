//! `modes`: the equilibria of a chain and their small-oscillation normal modes, as results
//! that describe themselves ([`crate::finding::Finding`]): the planar chain's ([`PlanarModes`]:
//! the group `modes` with its formula checks and nonlinear measurements, the mode-shape
//! figure) and the cart chain's ([`CartChainModes`]: the group `modes`, no figure).
//!
//! Its `[modes]` table and validation are [`table`]'s ([`ModesRun`] its validated settings,
//! [`KIND`] its registry entry); the analysis is [`crate::analysis::modes`] and
//! [`crate::analysis::cart`].

mod cart;
mod found;
mod report;
pub mod table;

pub use cart::CartChainModes;
pub use found::PlanarModes;
pub use table::{EquilibriaSpec, ModesRun, ModesSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings, EITHER_MODEL};
use super::memory::{links_driver, Term, F64};
use crate::analysis::cart::{cart_modes, CartError};
use crate::analysis::modes::{modes_cancellable, ModesOptions};
use crate::error::FieldError;
use crate::kinds::RunError;
use crate::model::{CartChain, Chain, Model};
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "modes",
    about: "Equilibria, small-oscillation normal modes and the small-angle formula checks.",
    table: table_of::<ModesSpec>(),
    models: EITHER_MODEL,
    reports: true,
    swept: true,
};

impl Settings for ModesRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        None
    }

    /// The dense matrices of every equilibrium (a damped chain's and the check's besides).
    fn memory(&self, n: usize, _dim: f64) -> Vec<Term> {
        let nf = n as f64;
        let o = &self.options;
        let eqs = o.equilibria.len().max(1) as f64;
        let bytes = if self.cart {
            let m = 2.0 * (nf + 1.0);
            F64 * m * m * (3.0 + 40.0) * eqs
        } else {
            let damped = if self.damped { 16.0 } else { 0.0 };
            let check = if o.check { 3.0 } else { 0.0 };
            F64 * nf * nf * (3.0 * eqs + 6.0 + damped + check)
        };
        vec![Term {
            bytes,
            field: "model.links",
            driver: links_driver(n),
            what: "the modes' matrices",
        }]
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        Ok(match input.model {
            Model::Planar(chain) => {
                Box::new(run_planar(input.title, chain, &self.options, observer)?)
            }
            Model::Cart(sys) => Box::new(run_cart(sys, &self.options)?),
        })
    }
}

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
