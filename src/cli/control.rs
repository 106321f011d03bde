//! `control`: the cart chain's LQR and closed loop ([`pendula::kinds::control`]). The library's
//! [`pendula::run::execute`] does not run it (the Python package does not offer it), so the
//! command runs the kind itself and hands its result on as [`super::run_library`] does.

use super::output::{finish_found, CliError, Run};
use super::progress::Bar;
use pendula::spec::{Analysis, Model};
use std::time::Instant;

pub fn run(ctx: &Run) -> Result<(), CliError> {
    let (Model::Cart(sys), Analysis::Control(opts)) = (&ctx.spec.model, &ctx.spec.analysis) else {
        unreachable!("control is validated for the cart chain only")
    };
    let start = Instant::now();
    let mut bar = Bar::new("control");
    let result = pendula::kinds::control::run(ctx.spec, sys, opts, &mut bar)?;
    finish_found(ctx, None, Box::new(result), start)
}
