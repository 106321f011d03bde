//! What a planar chain's modes analysis found, described for the front ends: the group
//! `modes`, the JSON summary, the mode-shape figure and a sweep's scalars (the text report is
//! [`super::report`]).
//!
//! The group: coordinates `equilibrium` (index), `link`, `mode` (1 = lowest ω²) and `link_k`
//! (a second link axis for matrices); `signs(equilibrium, link)` (+1 hanging, −1 inverted),
//! `omega2(equilibrium, mode)`, `frequency`, `period` and `growth_rate` (NaN where not
//! applicable), `shape(equilibrium, mode, link)` (M-orthonormal), `mass_matrix` and
//! `stiffness(equilibrium, link, link_k)`, `unstable(equilibrium)` (Morse index); the damped
//! eigenvalues where the chain is damped; one subgroup `check_<i>` per closed-form comparison
//! and `nonlinear` for the large-amplitude measurements.

use crate::analysis::modes::{
    modes_at, DampedMode, Equilibrium, EquilibriumModes, ModesResult, NonlinearCheck, PeriodRoute,
    PERIODIC_SPREAD,
};
use crate::finding::{Finding, Record, RunPart, Scalar};
use crate::kinds::Found;
use crate::model::Chain;
use crate::plot::PlotError;
use ndarray::{Array2, Array3};
use serde_json::json;
use std::path::Path;

/// The modes of a planar chain at its equilibria, with the checks.
#[derive(Debug, Clone)]
pub struct PlanarModes {
    /// The run's title (the figure's).
    pub title: String,
    /// The chain they are modes of (the figure's link lengths, and its hanging modes when the
    /// run did not keep them).
    pub chain: Chain,
    pub result: ModesResult,
}

impl PlanarModes {
    /// Which equilibrium each row is (`signs`) and its modes' frequencies in the four forms a
    /// reader asks for: ω², ω, period and, for unstable modes, growth rate.
    fn record_frequencies(&self, g: &mut Record, e: usize, n: usize) {
        let eq = &self.result.equilibria;
        let signs = Array2::from_shape_fn((e, n), |(i, j)| eq[i].equilibrium.signs[j]);
        g.var(
            "signs",
            &["equilibrium", "link"],
            signs,
            "1",
            "cos of the equilibrium angle: +1 hanging, -1 inverted",
        );
        let per_mode = |f: &dyn Fn(&EquilibriumModes) -> Vec<f64>| {
            Array2::from_shape_fn((e, n), |(i, k)| f(&eq[i])[k])
        };
        g.var(
            "omega2",
            &["equilibrium", "mode"],
            per_mode(&|m| m.omega2.clone()),
            "rad2 s-2",
            "squared mode frequency (negative: unstable)",
        )
        .var(
            "frequency",
            &["equilibrium", "mode"],
            per_mode(&|m| m.frequencies()),
            "rad s-1",
            "mode frequency (NaN for unstable modes)",
        )
        .var(
            "period",
            &["equilibrium", "mode"],
            per_mode(&|m| m.periods()),
            "s",
            "mode period (NaN for unstable modes)",
        )
        .var(
            "growth_rate",
            &["equilibrium", "mode"],
            per_mode(&|m| m.growth_rates()),
            "s-1",
            "growth rate of unstable modes (NaN for stable ones)",
        );
    }

    /// Mode shapes and the two matrices they diagonalise, so a reader can check
    /// `v^T M v = 1` and `K v = ω² M v` without the model; plus the Morse index.
    fn record_matrices(&self, g: &mut Record, e: usize, n: usize) {
        let eq = &self.result.equilibria;
        g.var(
            "shape",
            &["equilibrium", "mode", "link"],
            Array3::from_shape_fn((e, n, n), |(i, k, j)| eq[i].shapes[(j, k)]),
            "rad",
            "mode shape, mass-normalized (v^T M v = 1)",
        )
        .var(
            "mass_matrix",
            &["equilibrium", "link", "link_k"],
            Array3::from_shape_fn((e, n, n), |(i, j, k)| eq[i].mass[(j, k)]),
            "kg m2",
            "mass matrix M at the equilibrium",
        )
        .var(
            "stiffness",
            &["equilibrium", "link", "link_k"],
            Array3::from_shape_fn((e, n, n), |(i, j, k)| eq[i].stiffness[(j, k)]),
            "N m",
            "stiffness matrix K = diag(g b_j cos theta_j)",
        )
        .var(
            "unstable",
            &["equilibrium"],
            eq.iter().map(|m| m.unstable as i64).collect::<Vec<_>>(),
            "1",
            "number of unstable directions (Morse index)",
        );
    }

    /// The damped first-order system's 2n eigenvalues per equilibrium (NaN-padded where one
    /// has fewer).
    fn record_damped(&self, g: &mut Record, e: usize, n: usize) {
        let eq = &self.result.equilibria;
        let pick = |f: fn(&DampedMode) -> f64| {
            Array2::from_shape_fn((e, 2 * n), |(i, k)| eq[i].damped.get(k).map_or(f64::NAN, f))
        };
        g.index(
            "eigenvalue",
            2 * n,
            "eigenvalue of the damped first-order system",
        )
        .var(
            "damped_re",
            &["equilibrium", "eigenvalue"],
            pick(|d| d.re),
            "s-1",
            "real part of the damped eigenvalue",
        )
        .var(
            "damped_im",
            &["equilibrium", "eigenvalue"],
            pick(|d| d.im),
            "rad s-1",
            "imaginary part of the damped eigenvalue",
        )
        .var(
            "quality_factor",
            &["equilibrium", "eigenvalue"],
            pick(|d| d.quality_factor),
            "1",
            "quality factor |lambda| / (2 decay rate)",
        );
    }

    /// One group `check_<i>` per closed-form comparison, so that each keeps its own `mode`
    /// axis (a check may cover fewer modes than the chain has).
    fn record_checks(&self, g: &mut Record) {
        for (i, c) in self.result.checks.iter().enumerate() {
            let mut cg = Record::new(format!("check_{}", i + 1));
            cg.index("mode", c.expected.len(), "mode number")
                .var(
                    "computed",
                    &["mode"],
                    c.computed.clone(),
                    "rad s-1",
                    "computed frequency",
                )
                .var(
                    "expected",
                    &["mode"],
                    c.expected.clone(),
                    "rad s-1",
                    "closed-form frequency",
                )
                .var(
                    "relative_difference",
                    &["mode"],
                    c.relative_difference.clone(),
                    "1",
                    "|computed - expected| / expected",
                )
                .attr("formula", c.formula.as_str());
            g.group(cg);
        }
    }

    /// Group `nonlinear`: one row per large-amplitude measurement, the measured frequency
    /// beside the linear one (and the exact elliptic one where it exists), to show where
    /// linearity ends.
    fn record_nonlinear(&self, g: &mut Record) {
        let nl = &self.result.nonlinear;
        let col = |f: fn(&NonlinearCheck) -> f64| nl.iter().map(f).collect::<Vec<f64>>();
        // A single link is timed over a quarter period (see analysis::modes::nonlinear).
        let quarter = nl.iter().all(|c| c.route == PeriodRoute::QuarterPeriod);
        let mut ng = Record::new("nonlinear");
        ng.coord(
            "measurement",
            (0..nl.len() as i64).collect::<Vec<_>>(),
            "1",
            "measurement index",
        )
        .var(
            "mode",
            &["measurement"],
            nl.iter().map(|c| c.mode as i64 + 1).collect::<Vec<_>>(),
            "1",
            "mode number started in",
        )
        .var(
            "amplitude",
            &["measurement"],
            col(|c| c.amplitude),
            "rad",
            "largest link angle at release",
        )
        .var(
            "linear",
            &["measurement"],
            col(|c| c.linear),
            "rad s-1",
            "linear mode frequency",
        )
        .var(
            "measured",
            &["measurement"],
            col(|c| c.measured),
            "rad s-1",
            if quarter {
                "nonlinear frequency 2 pi / (4 x time from release at rest to the first zero)"
            } else {
                "nonlinear mean frequency from zero crossings"
            },
        )
        .var(
            "relative_difference",
            &["measurement"],
            col(|c| c.relative_difference),
            "1",
            "|measured - linear| / linear",
        )
        .var(
            "exact",
            &["measurement"],
            col(|c| c.exact),
            "rad s-1",
            "elliptic-integral frequency (single link; else NaN)",
        )
        .var(
            "interval_spread",
            &["measurement"],
            col(|c| c.interval_spread),
            "1",
            "standard deviation over mean of the intervals between upward crossings",
        )
        .var(
            "periodic",
            &["measurement"],
            nl.iter().map(|c| i8::from(c.periodic)).collect::<Vec<_>>(),
            "1",
            "1 where the interval spread is below the periodicity threshold, so that 'measured' is a frequency; 0 where it is only a mean crossing rate",
        )
        .var_attr("threshold", PERIODIC_SPREAD);
        g.group(ng);
    }
}

impl Finding for PlanarModes {
    fn group(&self) -> &'static str {
        "modes"
    }

    fn complete(&self) -> bool {
        self.result.complete
    }

    fn record(&self) -> Record {
        let r = &self.result;
        let n = self.chain.links();
        let e = r.equilibria.len();
        let labels: Vec<String> = r.equilibria.iter().map(|m| m.equilibrium.label()).collect();
        let mut g = Record::new("modes");
        g.coord(
            "equilibrium",
            (0..e as i64).collect::<Vec<_>>(),
            "1",
            "equilibrium index (see attribute equilibria)",
        )
        .index("link", n, "link index, counted from the pivot")
        .index("mode", n, "mode number, ascending omega2")
        .index("link_k", n, "link index (second matrix axis)")
        .attr("equilibria", labels.join(","))
        .attr("complete", r.complete);
        self.record_frequencies(&mut g, e, n);
        self.record_matrices(&mut g, e, n);
        if r.equilibria.iter().any(|m| !m.damped.is_empty()) {
            self.record_damped(&mut g, e, n);
        }
        g.run_part(RunPart::Model).run_part(RunPart::Names);
        self.record_checks(&mut g);
        if !r.nonlinear.is_empty() {
            self.record_nonlinear(&mut g);
        }
        g
    }

    fn summary(&self) -> serde_json::Value {
        let r = &self.result;
        let nan_null = |v: Vec<f64>| {
            v.into_iter()
                .map(|x| if x.is_finite() { Some(x) } else { None })
                .collect::<Vec<_>>()
        };
        let finite = |x: f64| if x.is_finite() { Some(x) } else { None };
        json!({
            "links": self.chain.links(),
            "equilibria": r.equilibria.iter().map(|m| json!({
                "label": m.equilibrium.label(),
                "unstable": m.unstable,
                "omega2": m.omega2,
                "frequency": nan_null(m.frequencies()),
                "growth_rate": nan_null(m.growth_rates()),
                "damped": m.damped,
            })).collect::<Vec<_>>(),
            "checks": r.checks.iter().map(|c| json!({
                "formula": c.formula,
                "computed": c.computed,
                "expected": c.expected,
                "max_relative_difference": c.relative_difference.iter().copied().fold(0.0, f64::max),
            })).collect::<Vec<_>>(),
            "nonlinear": r.nonlinear.iter().map(|c| json!({
                "mode": c.mode + 1, "amplitude": c.amplitude, "linear": c.linear, "measured": c.measured,
                "relative_difference": c.relative_difference, "exact": finite(c.exact),
                "route": c.route.name(), "period": c.period,
                "interval_spread": finite(c.interval_spread),
                "periodic": c.periodic,
                "reference_period": finite(c.reference_period),
            })).collect::<Vec<_>>(),
            "complete": r.complete,
        })
    }

    fn report(&self) -> String {
        super::report::planar(&self.result)
    }

    fn scalars(&self) -> Vec<Scalar> {
        let Some(e) = self.result.equilibria.first() else {
            return Vec::new();
        };
        vec![
            Scalar::vector(
                "frequency",
                "mode",
                e.frequencies(),
                "rad s-1",
                "small-oscillation angular frequencies at the first equilibrium (NaN: unstable direction)",
            ),
            Scalar::vector(
                "omega2",
                "mode",
                e.omega2.clone(),
                "rad2 s-2",
                "eigenvalues omega^2 at the first equilibrium (negative: unstable)",
            ),
        ]
    }

    /// A summary of modes without the integrator: they integrate nothing (the nonlinear
    /// checks integrate with their own method).
    fn run_fields(&self) -> &'static [&'static str] {
        &["kind", "title", "model", "wall_s", "output", "plot"]
    }

    fn interrupted(&self, written: bool) -> String {
        let kept = if written {
            "written, marked incomplete"
        } else {
            "reported"
        };
        format!("interrupted: the modes and checks so far were {kept}")
    }
}

impl Found for PlanarModes {
    /// The hanging equilibrium's mode shapes (computed here when the run was not asked for
    /// it), with the closed-form check that covers every mode.
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        let own;
        let hanging = match self.result.hanging() {
            Some(h) => h,
            None => {
                // The run found these modes before its checks, so they do not fail here.
                own = modes_at(&self.chain, &Equilibrium::hanging(self.chain.links())).map_err(
                    |e| PlotError::Draw {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    },
                )?;
                &own
            }
        };
        let lengths: Vec<f64> = self.chain.params().links.iter().map(|l| l.length).collect();
        let check = self
            .result
            .checks
            .iter()
            .find(|c| c.expected.len() == lengths.len());
        let fig = crate::plot::ModesFigure {
            title: self.title.clone(),
            lengths: &lengths,
            modes: hanging,
            check,
        };
        crate::plot::draw_modes(&fig, path)
    }
}
