//! `kind = "simulate"`: a sampled trajectory with its energy balance, of the planar chain
//! ([`Simulated`]) or of the cart chain ([`CartSimulated`]).
//!
//! Its result describes itself ([`crate::finding::Finding`]): the group `trajectory`, the JSON
//! summary, the figure and a sweep's scalars; a planar run also draws the spec's still figures
//! (`[figures]`: spirograph, phase portraits, energy budget), which `animate` draws from its
//! trajectory too ([`draw_stills`]). Its table and validation are [`table`]'s, [`KIND`] is its
//! registry entry and [`SimulateRun`] its validated settings.

mod cart;
mod found;
pub mod table;

pub use cart::{cart_record, draw_cart, CartSimulated};
pub use found::{draw_stills, trajectory_record, Simulated};
pub use table::{SimulateRun, SimulateSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings, EITHER_MODEL};
use super::memory::{links_driver, samples_term, solver, Term, F64};
use crate::finding::Record;
use crate::model::Model;
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "simulate",
    about: "Integrate a model from an initial state and write the sampled trajectory.",
    table: table_of::<SimulateSpec>(),
    models: EITHER_MODEL,
    reports: false,
    swept: true,
};

impl Settings for SimulateRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.options.t_end, "simulate.t_end"))
    }

    /// Its samples as integrated, the trajectory's arrays and the figures' positions, and the
    /// integrator.
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        let o = &self.options;
        let nf = n as f64;
        let samples = (o.t_end / o.dt_out).floor() + 2.0;
        // The samples as integrated, the trajectory's arrays and the figures' positions, and
        // the copy of its arrays the file's record holds while it is written (planar: time, θ,
        // θ̇, the energies, the energy error and each link's kinetic energy; the cart chain's:
        // as many as its trajectory).
        let per = if self.cart {
            2.0 * (2.0 * dim + 3.0 * (nf + 1.0) + 4.0) * F64
        } else {
            (3.0 * dim + 8.0 + 1.5 * dim + 5.0) * F64
        };
        vec![
            samples_term(samples, per, n, "simulate.t_end", "the trajectory"),
            Term {
                bytes: solver(dim),
                field: "model.links",
                driver: links_driver(n),
                what: "the integrator",
            },
        ]
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        Ok(match input.model {
            Model::Planar(chain) => {
                Box::new(Simulated::run(input, chain, &self.options, observer)?)
            }
            Model::Cart(sys) => Box::new(CartSimulated::run(input, sys, &self.options, observer)?),
        })
    }
}

/// The variables `energy` (T + V) and `work` (its meaning: which forces) over `time`, as both
/// chains' trajectories write them.
fn energy_and_work(rec: &mut Record, energy: &[f64], work: &[f64], meaning: &'static str) {
    rec.var(
        "energy",
        &["time"],
        energy,
        "J",
        "total mechanical energy T + V",
    )
    .var("work", &["time"], work, "J", meaning);
}
