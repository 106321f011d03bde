//! `kind = "simulate"`: a sampled trajectory with its energy balance, of the planar chain
//! ([`Simulated`]) or of the cart chain ([`CartSimulated`]).
//!
//! Its result describes itself ([`crate::finding::Finding`]): the group `trajectory`, the JSON
//! summary, the figure and a sweep's scalars; a planar run also draws the spec's still figures
//! (`[figures]`: spirograph, phase portraits, energy budget), which `animate` draws from its
//! trajectory too ([`draw_stills`]). The spec's table and validation still live in `spec/`.

mod cart;
mod found;

pub use cart::{cart_record, draw_cart, CartSimulated};
pub use found::{draw_stills, trajectory_record, Simulated};

use crate::finding::Record;

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
