//! The workloads of `pendula bench` (docs/benchmarks.md): each one call returning the fields of
//! its JSON line, so that the CLI only checks its flags, calls and prints. The analyses keep
//! their timing loops ([`crate::analysis::map::bench`], …); this layer picks the workload a
//! command names and turns its failures into a [`RunError`].

mod visual;

pub use crate::analysis::map::bench::{bench_flip as flip, bench_map as map};
pub use crate::analysis::modes::structured::benchmark_m as modes;
pub use visual::{animate, viewer};

use crate::analysis::lyapunov::{bench_lyapunov, BenchLyapunov};
use crate::analysis::map::{Kernel, MapKind, MapKindId};
use crate::kinds::RunError;
use serde_json::Value;

/// The map kind `bench map --kind` names: one of the indicator kinds the tangent lanes serve,
/// with `tau_steps` (and for Lyapunov maps the default 10 blocks where the run holds that many
/// intervals). A name it does not serve: what it takes (`expected …`).
pub fn indicator_kind(
    name: &str,
    t_max: f64,
    tau_steps: u32,
    gali_order: usize,
) -> Result<MapKind, String> {
    let served = [
        MapKindId::Lyapunov,
        MapKindId::Ftle,
        MapKindId::Megno,
        MapKindId::Sali,
        MapKindId::Gali,
        MapKindId::Fli,
        MapKindId::LagrangianDescriptor,
    ];
    let id = MapKindId::parse(name)
        .filter(|k| served.contains(k))
        .ok_or_else(|| format!("expected {} (got `{name}`)", MapKindId::expected(&served)))?;
    Ok(match id {
        MapKindId::Lyapunov => MapKind::Lyapunov {
            renorm_steps: tau_steps,
            blocks: crate::analysis::map::blocks::max_blocks(
                (t_max / 0.01).round() as u32,
                tau_steps,
            )
            .clamp(1, 10),
            tolerance: None,
        },
        MapKindId::Ftle => MapKind::Ftle,
        MapKindId::Megno => MapKind::Megno { tau_steps },
        MapKindId::Sali => MapKind::Sali { tau_steps },
        MapKindId::Fli => MapKind::Fli { tau_steps },
        MapKindId::LagrangianDescriptor => MapKind::LagrangianDescriptor { p: 0.5 },
        // MapKindId::Gali, the last one served.
        _ => MapKind::Gali {
            k: gali_order,
            tau_steps,
        },
    })
}

/// The kernel `bench map --kernel` names; another name: what it takes (`expected …`).
pub fn kernel(name: &str) -> Result<Kernel, String> {
    match name {
        "auto" => Ok(Kernel::Auto),
        "lanes" => Ok(Kernel::Lanes),
        "scalar" => Ok(Kernel::Scalar),
        k => Err(format!("expected auto, lanes or scalar (got `{k}`)")),
    }
}

/// Benchmark L ([`bench_lyapunov`]): an option the estimator refuses is bad input naming its
/// field, anything else a failed run (as every Lyapunov run's).
pub fn lyapunov(
    links: usize,
    t_trans: f64,
    t: f64,
    repeats: usize,
) -> Result<BenchLyapunov, RunError> {
    Ok(bench_lyapunov(links, t_trans, t, repeats)?)
}

/// Issue 51's manifold growth, one JSON line per branch and one for all
/// ([`crate::analysis::manifold::bench::bench_manifolds`]).
pub fn manifolds(arclength: f64, accuracy: f64, resolution: f64) -> Result<Vec<Value>, RunError> {
    use crate::analysis::manifold::ManifoldError;
    crate::analysis::manifold::bench::bench_manifolds(arclength, accuracy, resolution).map_err(
        |e| match e {
            ManifoldError::Invalid(f) => RunError::Input(f),
            e => RunError::Failed(e.to_string()),
        },
    )
}

/// The periodic-orbit workloads, one JSON line each
/// ([`crate::analysis::periodic::bench::bench_orbits`]); a failure is a failed run.
pub fn orbits() -> Result<Vec<Value>, RunError> {
    use crate::analysis::periodic::PeriodicError;
    crate::analysis::periodic::bench::bench_orbits().map_err(|e| match e {
        PeriodicError::Run(a) => RunError::Analysis(a),
        e => RunError::Failed(e.to_string()),
    })
}
