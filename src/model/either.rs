//! The validated model a run evolves: one of the models of this module, as a value that the
//! layers above (a kind's validation and run, the store, the front ends) hand around.

use super::{CartChain, Chain};

/// The validated model: what evolves. A third model is a third variant here and in the
/// spec's `ModelFile`; the CLI does not change.
#[derive(Debug, Clone)]
pub enum Model {
    /// Planar chain of general links (angles from the downward vertical).
    Planar(Chain),
    /// Chain of spherical pendulums on a cart, on (S²)ⁿ × R².
    Cart(CartChain),
}

impl Model {
    /// The model's name in specs (`[model] kind`) and files.
    pub fn kind(&self) -> &'static str {
        match self {
            Model::Planar(_) => "planar-chain",
            Model::Cart(_) => "cart-chain",
        }
    }
    /// The planar chain, for the analyses only it supports.
    pub fn planar(&self) -> Option<&Chain> {
        match self {
            Model::Planar(c) => Some(c),
            Model::Cart(_) => None,
        }
    }
    pub fn links(&self) -> usize {
        match self {
            Model::Planar(c) => c.links(),
            Model::Cart(c) => c.links(),
        }
    }
}
