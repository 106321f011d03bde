//! `kind = "control"`: an LQR design about a vertical equilibrium of a cart chain and the
//! nonlinear closed loop from a tilted start ([`Controlled`]).
//!
//! Its result describes itself ([`crate::finding::Finding`]): the groups `lqr` (the design)
//! and `trajectory` (the cart chain's, as `simulate` writes it, with the closed-loop error),
//! the JSON summary and the 3-D figure. Its table and validation are [`table`]'s, [`KIND`] is
//! its registry entry and [`ControlOptions`] its validated settings.

mod found;
pub mod table;

pub use found::{run, Controlled};
pub use table::{ControlOptions, ControlSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings};
use super::memory::{links_driver, samples_term, Term, F64};
use crate::model::Model;
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "control",
    about: "LQR about a vertical equilibrium of a cart chain and the nonlinear closed loop from a tilted start.",
    table: table_of::<ControlSpec>(),
    models: &["cart-chain"],
    reports: false,
    swept: false,
};

impl Settings for ControlOptions {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.t_end, "control.t_end"))
    }

    /// The closed loop's samples and the LQR's matrices.
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        let nf = n as f64;
        let samples = (self.t_end / self.dt_out).floor() + 2.0;
        // The samples, their error ‖z‖, and the copy of both the file's record holds while it
        // is written (as a cart chain's simulation counts it).
        let per = 2.0 * (2.0 * dim + 3.0 * (nf + 1.0) + 4.0 + 1.0) * F64;
        // The LQR: the Hamiltonian matrix of the 2(2N + 2) linear states, its Schur form and
        // the PBH test's copies.
        let m = 2.0 * (2.0 * nf + 2.0);
        vec![
            samples_term(samples, per, n, "control.t_end", "the closed loop"),
            Term {
                bytes: 40.0 * F64 * m * m,
                field: "model.links",
                driver: links_driver(n),
                what: "the LQR's matrices",
            },
        ]
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        let Model::Cart(sys) = input.model else {
            unreachable!("control is validated for the cart chain only")
        };
        Ok(Box::new(run(input, sys, self, observer)?))
    }
}
