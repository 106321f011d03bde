//! What an orbits run found, described for the front ends: its group ([`super::record`]), the
//! JSON summary and the text report ([`super::report`]) and the figure ([`super::figure`]).

use super::run::OrbitsResult;
use super::table::OrbitsRun;
use crate::finding::{Finding, Record};
use crate::kinds::Found;
use crate::model::Chain;
use crate::plot::PlotError;
use std::path::Path;

/// An orbits run's orbit, branches or diagram with what they were computed on.
#[derive(Debug, Clone)]
pub struct PeriodicOrbits {
    /// The run's title (the figure's).
    pub title: String,
    pub chain: Chain,
    pub run: OrbitsRun,
    pub result: OrbitsResult,
}

/// The run's fields an orbits summary has: no integrator (the orbits are shot with the
/// shooting's tolerances, which the file records).
const RUN_FIELDS: &[&str] = &["kind", "title", "model", "wall_s", "output", "plot"];

impl Finding for PeriodicOrbits {
    fn group(&self) -> &'static str {
        "orbits"
    }

    fn complete(&self) -> bool {
        self.result.complete
    }

    fn record(&self) -> Record {
        super::record::orbits(self)
    }

    fn summary(&self) -> serde_json::Value {
        super::report::summary(self.chain.links(), &self.run, &self.result)
    }

    fn report(&self) -> String {
        super::report::table(&self.run, &self.result)
    }

    fn run_fields(&self) -> &'static [&'static str] {
        RUN_FIELDS
    }
}

impl Found for PeriodicOrbits {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        super::figure::draw(&self.title, &self.chain, &self.run, &self.result, path)
    }
}
