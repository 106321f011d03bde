//! `kind = "orbits"`: periodic orbits and their Floquet stability (`find`), branches with
//! located bifurcations (`continue`), orbit diagrams with λ_max (`diagram`).
//!
//! The whole kind: its table and validation ([`table`], [`validation`] with what a branch or
//! a diagram varies (`varied`), and the bounds on its integrations, [`steps`]), its run
//! ([`mod@run`]) and its result, which describes itself ([`PeriodicOrbits`]: the group
//! `orbits` ([`mod@record`]), the JSON summary and the text report ([`mod@report`]) and the
//! figure ([`figure`], drawn by `plot/orbits/`)); [`KIND`] is its registry entry and its
//! validated settings are the table's [`OrbitsRun`].

mod curve_figure;
mod curve_record;
mod curve_report;
pub mod curve_spec;
pub mod curves;
mod fields;
pub mod figure;
mod found;
pub mod record;
pub mod report;
pub mod run;
pub mod steps;
pub mod table;
pub mod validation;
mod varied;

pub use found::PeriodicOrbits;
pub use run::{MapPixel, OrbitsResult};
pub use steps::MAX_ORBIT_TURNS;
pub use table::{OrbitsAction, OrbitsRun, OrbitsSpec};

use super::kind::{table_of, Executed, Input, Kind, Settings, PLANAR_ONLY};
use super::memory::{Term, F64};
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "orbits",
    about: "Periodic orbits and their Floquet stability (find), branches with located bifurcations (continue), orbit diagrams with λ_max (diagram).",
    table: table_of::<OrbitsSpec>(),
    models: PLANAR_ONLY,
    reports: true,
    swept: false,
};

impl Settings for OrbitsRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    /// None: the shooting's integrations are bounded by their own checks ([`steps`]).
    fn time_span(&self) -> Option<(f64, &'static str)> {
        None
    }

    /// The shooting equations' Jacobian and its solve, and each kept orbit (its shape and
    /// monodromy) along the branches; or the orbit diagram's samples. The kept orbits and the
    /// samples count twice: the result and the copy its file's record holds while it is
    /// written.
    fn memory(&self, _links: usize, dim: f64) -> Vec<Term> {
        let s = &self.shooting;
        let unknowns = s.segments as f64 * dim + 1.0;
        let mut terms = vec![Term {
            bytes: 4.0 * F64 * unknowns * unknowns,
            field: "orbits.segments",
            driver: format!("{} segments of {dim} states", s.segments),
            what: "the shooting equations",
        }];
        let orbit = F64 * (dim * dim + dim * (s.segments * s.samples + 1) as f64);
        match &self.diagram {
            Some(d) => {
                let values = d.parameters.len() as f64 * d.starts.len() as f64;
                terms.push(Term {
                    bytes: F64 * values * (d.samples as f64 * dim + 1.0) * 2.0,
                    field: "orbits.sampled_periods",
                    driver: format!(
                        "{} parameter values × {} starts × {} periods",
                        d.parameters.len(),
                        d.starts.len(),
                        d.samples
                    ),
                    what: "the orbit diagram's samples",
                });
            }
            None => {
                // A followed bifurcation's branch or two: bounded like two more levels.
                let followed = if self.follow.any() { 2.0 } else { 0.0 };
                let branches = 1.0 + self.doublings as f64 + followed;
                let points = match self.action {
                    OrbitsAction::Continue | OrbitsAction::Curve => self.continuation.points as f64,
                    _ => 1.0,
                };
                terms.push(Term {
                    bytes: orbit * points * branches * 2.0,
                    field: "orbits.points",
                    driver: format!("{points} points × {branches} branches"),
                    what: "the orbits kept",
                });
            }
        }
        terms
    }

    fn varied(&self) -> Option<super::kind::Swept<'_>> {
        let p = self.parameter.as_ref()?;
        let range = match &self.diagram {
            Some(d) => [*d.parameters.first()?, *d.parameters.last()?],
            None => [self.continuation.min, self.continuation.max],
        };
        Some(super::kind::Swept {
            name: &p.name,
            long_name: &p.long_name,
            units: &p.units,
            range,
        })
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        Ok(Box::new(PeriodicOrbits {
            title: input.title.to_string(),
            chain: input.planar(KIND.name)?.clone(),
            result: run::run(input, self, observer)?,
            run: self.clone(),
        }))
    }
}
