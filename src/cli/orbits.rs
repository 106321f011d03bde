//! `orbits`' own part of a run ([`pendula::run::execute`] finds the orbit, continues its
//! branches or sweeps the orbit diagram, and writes them): its figure and its report, both
//! from its kind ([`pendula::kinds::orbits`]).

use super::output::{report, CliError, Run};
use pendula::kinds::orbits::{figure, report as orbits_report};
use pendula::model::Chain;
use pendula::run::OrbitsResult;
use pendula::spec::OrbitsRun;
use serde_json::json;

/// The report of an orbits run (already written to its file).
pub fn report_orbits(
    ctx: &Run,
    chain: &Chain,
    run: &OrbitsRun,
    result: &OrbitsResult,
    wall: f64,
) -> Result<(), CliError> {
    let spec = ctx.spec;
    if let Some(path) = &ctx.outputs.plot {
        figure::draw(&spec.title, chain, run, result, path)?;
    }
    let links = spec.model.links();
    let mut summary = orbits_report::summary(&spec.title, &spec.model_name, links, run, result);
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    summary["wall_s"] = json!(wall);
    summary["output"] = json!(path(&ctx.outputs.file));
    summary["plot"] = json!(path(&ctx.outputs.plot));
    let table = orbits_report::table(run, result);
    report(&summary, ctx.common.json, Some(table), result.complete)
}
