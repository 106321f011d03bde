//! The closed loop of a cart chain, described for the front ends.

use super::ControlOptions;
use crate::analysis::cart::{
    closed_loop, weight_text, CartError, ClosedLoop, ClosedLoopError, Lqr,
};
use crate::error::FieldError;
use crate::finding::{Attr, Finding, Record};
use crate::integrate::Method;
use crate::kinds::simulate::{cart_record, draw_cart};
use crate::kinds::RunError;
use crate::kinds::{Found, Input};
use crate::model::CartChain;
use crate::observe::Observer;
use crate::plot::PlotError;
use ndarray::Array2;
use serde_json::json;
use std::path::Path;

/// A controlled cart chain: the design and the closed loop, with the chain and integrator
/// its file names.
#[derive(Debug, Clone)]
pub struct Controlled {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    pub sys: CartChain,
    pub method: Method,
    pub run: ClosedLoop,
}

/// Designs the LQR `opts` asks for on `sys` and runs the closed loop from `input`'s start,
/// reporting to `observer`. A weight that makes the Riccati solver fail is bad input naming
/// its field (`control.q_cart`); any other design error is bad input as the design says it;
/// a failed integration is a failed run.
pub fn run(
    input: &Input<'_>,
    sys: &CartChain,
    opts: &ControlOptions,
    observer: &mut dyn Observer,
) -> Result<Controlled, RunError> {
    let run = closed_loop(
        sys,
        &opts.signs,
        &opts.weights,
        opts.x_ref,
        input.method,
        input.x0,
        opts.t_end,
        opts.dt_out,
        observer,
    )
    .map_err(|e| match e {
        ClosedLoopError::Design(CartError::Weight {
            field,
            value,
            others,
            why,
        }) => RunError::Input(FieldError::new(
            format!("control.{field}"),
            weight_text(value, &others, &why),
        )),
        // Its text names no field of its own (a front end prints it as it is).
        ClosedLoopError::Design(d) => {
            RunError::Input(FieldError::unled("control").text(d.to_string()))
        }
        ClosedLoopError::Run(r) => RunError::Analysis(r),
    })?;
    Ok(Controlled {
        title: input.title.to_string(),
        sys: sys.clone(),
        method: *input.method,
        run,
    })
}

/// The group `lqr`: coordinates `input` (1..2), `state` (1..4n+4) and `eigenvalue`; the gain
/// over (input, state), the closed- and open-loop eigenvalues, the equilibrium, the Riccati
/// checks and the weights.
fn lqr_record(l: &Lqr) -> Record {
    let m = l.gain.len() / 2;
    let mut g = Record::new("lqr");
    g.index("input", 2, "cart force component: 1 = e1, 2 = e2")
        .index(
            "state",
            m,
            "linear coordinate (x, C^T q_i, x dot, C^T q_i dot)",
        )
        .index("eigenvalue", m, "eigenvalue index, by real part");
    let k = Array2::from_shape_vec((2, m), l.gain.clone()).expect("2 × m gain");
    g.var(
        "gain",
        &["input", "state"],
        k,
        "1",
        "LQR gain K (u = -K z; units of N per unit of z)",
    );
    let part = |v: &[(f64, f64)], re: bool| -> Vec<f64> {
        v.iter().map(|z| if re { z.0 } else { z.1 }).collect()
    };
    for (name, v, re, long) in [
        (
            "closed_loop_re",
            &l.closed_loop,
            true,
            "closed-loop eigenvalue, real part",
        ),
        (
            "closed_loop_im",
            &l.closed_loop,
            false,
            "closed-loop eigenvalue, imaginary part",
        ),
        (
            "open_loop_re",
            &l.open_loop,
            true,
            "open-loop eigenvalue, real part",
        ),
        (
            "open_loop_im",
            &l.open_loop,
            false,
            "open-loop eigenvalue, imaginary part",
        ),
    ] {
        g.var(name, &["eigenvalue"], part(v, re), "s-1", long);
    }
    let w = &l.weights;
    g.attr("equilibrium", l.equilibrium.as_str())
        .attr("riccati_residual", l.riccati_residual)
        .attr("controllability_margin", l.controllability_margin)
        .attr(
            "weights",
            Attr::F64s(vec![w.q_cart, w.q_angle, w.q_rate, w.r]),
        )
        .attr("weights_order", "q_cart, q_angle, q_rate, r");
    g
}

impl Finding for Controlled {
    fn group(&self) -> &'static str {
        "lqr"
    }

    fn complete(&self) -> bool {
        self.run.trajectory.complete
    }

    fn record(&self) -> Record {
        lqr_record(&self.run.lqr)
    }

    /// The closed loop: the cart chain's trajectory group with the error ‖z(t)‖ over its
    /// `time` and the final direction error.
    fn beside(&self) -> Vec<Record> {
        let mut g = cart_record(&self.sys, &self.run.trajectory, &self.method);
        g.var(
            "error",
            &["time"],
            self.run.error.as_slice(),
            "1",
            "norm of the linear-coordinate error z - z_ref",
        )
        .attr("final_direction_error", self.run.final_direction_error);
        vec![g]
    }

    /// Names its kind, model and title itself (the front end adds the wall time).
    fn summary(&self) -> serde_json::Value {
        let (run, lqr) = (&self.run, &self.run.lqr);
        let slowest = lqr.closed_loop.iter().map(|z| z.0).fold(f64::MIN, f64::max);
        json!({
            "kind": "control", "model": "cart-chain", "title": self.title,
            "equilibrium": lqr.equilibrium,
            "gain": lqr.gain,
            "closed_loop_max_re": slowest,
            "riccati_residual": lqr.riccati_residual,
            "controllability_margin": lqr.controllability_margin,
            "initial_error": run.error[0],
            "final_error": run.error.last(),
            "final_direction_error": run.final_direction_error,
            "constraint_drift": run.trajectory.constraint_drift,
            "complete": run.trajectory.complete,
        })
    }

    /// Its summary names its kind, model and title itself; the run adds its wall time only.
    fn run_fields(&self) -> &'static [&'static str] {
        &["wall_s"]
    }
}

impl Found for Controlled {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        draw_cart(&self.title, &self.sys, &self.run.trajectory, path)
    }
}
