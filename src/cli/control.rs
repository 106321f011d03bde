//! `control`: LQR about a vertical equilibrium of a cart chain and the nonlinear closed loop;
//! HDF5 (gain, Riccati checks, trajectory, error), the 3-D figure, JSON summary.

use super::output::{report, CliError, Run};
use super::progress::Bar;
use pendula::analysis::cart::{self, closed_loop};
use pendula::kinds::simulate::{cart_record, draw_cart};
use pendula::spec::{ControlOptions, Model};
use pendula::store::{self};
use serde_json::json;
use std::time::Instant;

pub fn run(ctx: &Run, opts: &ControlOptions) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    let Model::Cart(sys) = &spec.model else {
        unreachable!("control is validated for the cart chain only")
    };
    let start = Instant::now();
    let mut bar = Bar::new("control");
    let run = closed_loop(
        sys,
        &opts.signs,
        &opts.weights,
        opts.x_ref,
        &spec.method,
        &spec.x0,
        opts.t_end,
        opts.dt_out,
        &mut bar,
    )
    .map_err(|e| match e {
        // A weight that drives the Riccati solver's failure is named as the flag or field
        // it came from (`--q-cart`, `control.q_cart`).
        cart::ClosedLoopError::Design(cart::CartError::Weight {
            field,
            value,
            others,
            why,
        }) => CliError::Field(pendula::spec::SpecError::new(
            format!("control.{field}"),
            cart::weight_text(value, &others, &why),
        )),
        cart::ClosedLoopError::Design(d) => CliError::Input(d.to_string()),
        cart::ClosedLoopError::Run(r) => CliError::Run(r.to_string()),
    })?;
    ctx.write(|out| {
        let g = out.group("lqr")?;
        store::cart::write_lqr(&g, &run.lqr)?;
        let g = out.group("trajectory")?;
        store::write_entries(&g, &cart_record(sys, &run.trajectory, &spec.method))?;
        store::cart::write_closed_loop_error(&g, &run)
    })?;
    if let Some(path) = &outputs.plot {
        draw_cart(&spec.title, sys, &run.trajectory, path)?;
    }
    let slowest = run
        .lqr
        .closed_loop
        .iter()
        .map(|z| z.0)
        .fold(f64::MIN, f64::max);
    let summary = json!({
        "kind": "control", "model": "cart-chain", "title": spec.title,
        "equilibrium": run.lqr.equilibrium,
        "gain": run.lqr.gain,
        "closed_loop_max_re": slowest,
        "riccati_residual": run.lqr.riccati_residual,
        "controllability_margin": run.lqr.controllability_margin,
        "initial_error": run.error[0],
        "final_error": run.error.last(),
        "final_direction_error": run.final_direction_error,
        "constraint_drift": run.trajectory.constraint_drift,
        "complete": run.trajectory.complete, "wall_s": start.elapsed().as_secs_f64(),
    });
    report(&summary, common.json, None, run.trajectory.complete)
}
