//! `kind = "manifolds"`: the stable and unstable manifolds of a saddle of a driven one-link
//! chain's stroboscopic map, their homoclinic intersections, the first tangency in a
//! parameter, the turnstile's lobes and the Melnikov prediction (the numerics in
//! [`crate::analysis::manifold`]).
//!
//! The whole kind: its table and validation ([`table`]), its run ([`run`]) and its result,
//! which describes itself ([`found`]); [`KIND`] is its registry entry and [`ManifoldsRun`]
//! its validated settings.

pub mod found;
mod over_map;
pub mod run;
pub mod table;

pub use found::Manifolds;
pub use table::{ManifoldsRun, ManifoldsSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings, PLANAR_ONLY};
use super::memory::{Term, F64};
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "manifolds",
    about: "Stable and unstable manifolds of a driven pendulum's saddle: homoclinic points, first tangency, turnstile lobes, Melnikov threshold.",
    table: table_of::<ManifoldsSpec>(),
    models: PLANAR_ONLY,
    reports: true,
    swept: false,
};

impl Settings for ManifoldsRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    /// None: each map application integrates one drive period (k of them), bounded by the
    /// map's own step limit.
    fn time_span(&self) -> Option<(f64, &'static str)> {
        None
    }

    /// Four branches of at most `max_points` points (position, arclength, generation and
    /// parameter: 5 numbers each), twice: the result and its file record.
    fn memory(&self, _links: usize, _dim: f64) -> Vec<Term> {
        let points = self.growth.max_points as f64;
        vec![Term {
            bytes: 4.0 * points * 5.0 * F64 * 2.0,
            field: "manifolds.max_points",
            driver: format!("4 branches × {points} points"),
            what: "the manifolds' points",
        }]
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        Ok(Box::new(Manifolds {
            title: input.title.to_string(),
            chain: input.planar(KIND.name)?.clone(),
            result: run::run(input, self, observer)?,
            run: self.clone(),
        }))
    }
}
