//! What a run will hold in memory and how many steps one trajectory takes, estimated from the
//! validated spec before anything is allocated, and the budgets they must fit.
//!
//! The estimates are deliberately coarse upper-ish bounds (the dominant arrays of each analysis
//! times a small safety factor): their job is to refuse `--links 1000000` for modes (terabytes)
//! in a millisecond with a line naming the flag, not to predict RSS to the megabyte. Each
//! analysis has one function here saying what it allocates; [`Spec::memory_estimate`] picks it.

use super::{Model, ModelFile, Spec, SpecError, SpecFile};
use crate::kinds::memory::{links_driver, threads, Term, F64, PLANAR_LINK_BYTES};
use crate::model::System;

mod steps;
mod terms;

pub(crate) use steps::check_adaptive;
pub(crate) use terms::measure_terms;
pub use terms::{chaotic_estimate, measure_estimate, LabelGrids};

#[cfg(test)]
use crate::limits::GIB;
pub use crate::limits::{format_bytes, Budget, MAX_LINKS, MAX_STEPS};

/// An estimate of a run's memory: its total and the term that dominates it.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Bytes in memory at once (total over the terms).
    pub bytes: f64,
    /// The spec field that drives the largest term (`model.links`, `map.resolution`, …).
    pub field: String,
    /// What drives it, as the message's subject: `1000000 links`, `4.3e9 pixels`.
    pub driver: String,
    /// What the bytes are for: `the modes' matrices`.
    pub what: String,
}

fn estimate(terms: Vec<Term>) -> Estimate {
    let bytes = terms.iter().map(|t| t.bytes).sum::<f64>();
    let top = terms
        .into_iter()
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
        .expect("every analysis has a model term");
    Estimate {
        bytes,
        field: top.field.to_string(),
        driver: top.driver,
        what: top.what.to_string(),
    }
}

/// What the model itself holds: the planar chain O(N); the cart chain its N × N inertia table
/// and the (3N + 2)² linear system of its workspace.
fn model_bytes(cart: bool, n: usize) -> f64 {
    let n = n as f64;
    if cart {
        n * PLANAR_LINK_BYTES + F64 * (n * n + (3.0 * n + 2.0).powi(2))
    } else {
        n * PLANAR_LINK_BYTES
    }
}

/// What the modes of `n` links need at the least, whatever the options: the dense matrices of
/// one equilibrium (M, K, the shapes and the eigen-solver's copies).
fn modes_floor(n: usize) -> f64 {
    9.0 * F64 * (n as f64).powi(2)
}

impl SpecFile {
    /// Refuses a model whose link count alone cannot fit, before any per-link array exists.
    pub(super) fn check_links(&self, budget: &Budget) -> Result<(), SpecError> {
        let n = self.model.link_count();
        if n > MAX_LINKS {
            return Err(SpecError::new(
                "model.links",
                format!("at most {MAX_LINKS} links (got {n})"),
            ));
        }
        let cart = matches!(self.model, ModelFile::Cart(_));
        let modes = self.kind.as_deref() == Some("modes");
        let (bytes, what) = if modes {
            (model_bytes(cart, n) + modes_floor(n), "the modes' matrices")
        } else {
            (model_bytes(cart, n), "the model")
        };
        over_budget(
            &Estimate {
                bytes,
                field: "model.links".into(),
                driver: links_driver(n),
                what: what.into(),
            },
            budget,
        )
    }
}

/// The one-line refusal of an estimate over the budget, naming the field that drives it.
pub fn over_budget(e: &Estimate, budget: &Budget) -> Result<(), SpecError> {
    if e.bytes > budget.bytes {
        return Err(SpecError::new(
            e.field.clone(),
            format!(
                "{} need ~{} for {}, over the {} budget (",
                e.driver,
                format_bytes(e.bytes),
                e.what,
                format_bytes(budget.bytes)
            ),
        )
        .name(crate::limits::MEMORY_BUDGET)
        .text(")"));
    }
    Ok(())
}

impl ModelFile {
    /// The number of links the model will have, read without building anything.
    pub fn link_count(&self) -> usize {
        match self {
            ModelFile::Planar(m) => match (&m.preset, &m.link) {
                (_, Some(list)) => list.len(),
                (Some(p), None) => match p.as_str() {
                    "simple" => 1,
                    "double" => 2,
                    "triple" => 3,
                    _ => m.links.unwrap_or(0),
                },
                (None, None) => 0,
            },
            ModelFile::Cart(c) => {
                use super::PerLink::Each;
                match (c.links, &c.length, &c.mass) {
                    (Some(n), _, _) => n,
                    (None, Some(Each(v)), _) | (None, None, Some(Each(v))) => v.len(),
                    _ => 2,
                }
            }
        }
    }
}

impl Spec {
    /// The model time one trajectory of the run integrates (None: no time integration to
    /// speak of, as in modes).
    pub fn time_span(&self) -> Option<f64> {
        self.analysis.time_span().map(|(t, _)| t)
    }

    /// The field that sets [`Spec::time_span`].
    fn span_field(&self) -> &'static str {
        let r = &self.analysis;
        r.time_span().map_or(r.kind().name, |(_, f)| f)
    }

    /// What the run will hold in memory at once, and the field that drives most of it.
    pub fn memory_estimate(&self) -> Estimate {
        self.memory_estimate_for(None)
    }

    /// [`Spec::memory_estimate`] of shard `shard` (`(i, n)`) of a map run: it holds only its
    /// own tiles of each band ([`crate::kinds::Settings::memory_of_shard`]; other analyses
    /// ignore `shard`).
    pub fn memory_estimate_for(&self, shard: Option<(usize, usize)>) -> Estimate {
        let n = self.model.links();
        let dim = match &self.model {
            Model::Planar(c) => c.dim(),
            Model::Cart(c) => c.dim(),
        } as f64;
        let model = Term {
            bytes: model_bytes(matches!(self.model, Model::Cart(_)), n),
            field: "model.links",
            driver: links_driver(n),
            what: "the model",
        };
        let mut terms = vec![model];
        terms.extend(self.analysis.memory_of_shard(n, dim, shard));
        estimate(terms)
    }

    /// Refuses the run (shard `shard` of a map) when [`Spec::memory_estimate_for`] exceeds
    /// `budget`.
    pub fn check_memory(
        &self,
        budget: &Budget,
        shard: Option<(usize, usize)>,
    ) -> Result<(), SpecError> {
        over_budget(&self.memory_estimate_for(shard), budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::measure::MeasureOptions;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(Budget::parse("64G").unwrap().bytes, 64.0 * GIB);
        assert_eq!(
            Budget::parse("512MiB").unwrap().bytes,
            512.0 * 1024.0 * 1024.0
        );
        assert_eq!(Budget::parse("1.5t").unwrap().bytes, 1.5 * 1024.0 * GIB);
        assert_eq!(Budget::parse("1000").unwrap().bytes, 1000.0);
        for bad in ["", "0", "-1G", "12X", "G", "nan", "inf", "1e400"] {
            assert!(Budget::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bytes_read_as_short_units() {
        assert_eq!(format_bytes(12.0 * GIB), "12 GB");
        assert_eq!(format_bytes(8.0 * 1024.0 * GIB), "8.0 TB");
        assert_eq!(format_bytes(100.0), "100 B");
    }

    #[test]
    fn the_machine_budget_is_positive() {
        let b = Budget::machine();
        assert!(b.bytes.is_finite() && b.bytes >= 1.0);
    }

    #[test]
    fn measure_and_chaotic_estimates_name_their_driver_without_overflow() {
        let o = MeasureOptions::default();
        let grids = |n: usize| LabelGrids {
            nx: n,
            ny: n,
            count: 1,
            read_per_px: 8.0,
            field: "labels",
        };
        let budget = Budget { bytes: 16.0 * GIB };
        assert!(over_budget(&measure_estimate(&grids(1024), &o), &budget).is_ok());
        let e = over_budget(&measure_estimate(&grids(1_000_000), &o), &budget).unwrap_err();
        assert_eq!(e.field(), "labels");
        let mut shifts = o.clone();
        shifts.boxes.shifts = usize::MAX;
        shifts.entropy_shifts = usize::MAX;
        let e = over_budget(&measure_estimate(&grids(128), &shifts), &budget).unwrap_err();
        assert_eq!(e.field(), "shifts");
        let mut k = o.clone();
        k.uncertainty.max_eps = usize::MAX;
        let e = over_budget(&measure_estimate(&grids(128), &k), &budget).unwrap_err();
        assert_eq!(e.field(), "max_eps");
        let many = LabelGrids {
            count: 100_000,
            ..grids(4096)
        };
        let e = over_budget(&measure_estimate(&many, &o), &budget).unwrap_err();
        assert_eq!(e.field(), "flip_before");
        assert!(over_budget(&chaotic_estimate(2, 64, 4), &budget).is_ok());
        for (est, field) in [
            (chaotic_estimate(2, usize::MAX, 1), "samples"),
            (chaotic_estimate(2, 1_000_000_000_000, 1), "samples"),
            (chaotic_estimate(100_000, 2, 1), "links"),
        ] {
            assert_eq!(over_budget(&est, &budget).unwrap_err().field(), field);
        }
    }
}
