//! The cart-chain front end: `pendula control`, and `simulate`/`modes`/`lyapunov`/`run` when the
//! spec or model file says `kind = "cart-chain"`.

use super::output::{f64_json, prepare_path, report};
use super::progress::Bar;
use super::{set_threads, CliError, Common};
use clap::Args;
use pendula::analysis::cart::{self, cart_modes, closed_loop, CartModes};
use pendula::analysis::lyapunov::{lyapunov_spectrum, LyapunovError};
use pendula::model::System;
use pendula::spec::cart::{
    is_cart_chain, parse_cart, parse_cart_model, CartAnalysis, CartSpec, CartSpecFile, ControlSpec,
};
use pendula::store::{self, Provenance};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `pendula control`: LQR about a vertical equilibrium of a cart chain and the nonlinear closed
/// loop from a tilted start.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct ControlArgs {
    /// A cart-chain spec (kind = "control"); the flags below override it.
    #[arg(long, value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    /// A cart-chain model table (kind = "cart-chain"), instead of a spec.
    #[arg(long, value_name = "MODEL.toml", conflicts_with = "spec")]
    pub model: Option<PathBuf>,
    /// Equilibrium to stabilize: inverted (default), hanging, folded or signs like +-.
    #[arg(long, allow_hyphen_values = true)]
    pub equilibrium: Option<String>,
    /// Start tilted from the equilibrium by this angle (rad) per link (default 0.05).
    #[arg(long)]
    pub tilt: Option<f64>,
    /// Closed-loop run time (s, default 20).
    #[arg(long)]
    pub t_end: Option<f64>,
    /// Sampling interval (s, default 0.01).
    #[arg(long)]
    pub dt_out: Option<f64>,
    /// LQR weight on the cart position.
    #[arg(long)]
    pub q_cart: Option<f64>,
    /// LQR weight on the link tilts (Cᵀq_i).
    #[arg(long)]
    pub q_angle: Option<f64>,
    /// LQR weight on all rates.
    #[arg(long)]
    pub q_rate: Option<f64>,
    /// LQR weight on the force.
    #[arg(long)]
    pub r: Option<f64>,
    #[command(flatten)]
    pub common: Common,
}

fn read(path: &Path, flag: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("{flag}: cannot read `{}`: {e}", path.display())))
}

/// The cart-chain spec file named by `--spec` (kind must be `kind`) or built around the model of
/// `--model`, or `None` when neither is a cart chain (the planar path then takes over).
pub fn detect(
    spec: &Option<PathBuf>,
    model: &Option<PathBuf>,
    kind: &str,
) -> Result<Option<CartSpecFile>, CliError> {
    if let Some(p) = spec {
        let text = read(p, "--spec")?;
        if !is_cart_chain(&text) {
            return Ok(None);
        }
        let file = parse_cart(&text, &p.display().to_string())?;
        if file.kind.as_deref() != Some(kind) {
            return Err(CliError::Input(format!(
                "--spec: the spec's kind is `{}`, not {kind} (use `pendula run`)",
                file.kind.as_deref().unwrap_or("missing")
            )));
        }
        return Ok(Some(file));
    }
    if let Some(p) = model {
        let text = read(p, "--model")?;
        if !is_cart_chain(&text) {
            return Ok(None);
        }
        return Ok(Some(CartSpecFile {
            kind: Some(kind.into()),
            model: parse_cart_model(&text, &p.display().to_string())?,
            ..Default::default()
        }));
    }
    Ok(None)
}

/// `pendula run SPEC` for a cart-chain spec text.
pub fn run_text(text: &str, origin: &str, common: &Common, cl: &str) -> Result<(), CliError> {
    let file = parse_cart(text, origin)?;
    let spec = file.validate(text)?;
    execute(&spec, common, cl)
}

/// Validates a spec file (serialized for provenance) and runs it.
pub fn run_file(file: &CartSpecFile, common: &Common, cl: &str) -> Result<(), CliError> {
    let text = toml::to_string(file).unwrap_or_default();
    let spec = file.validate(&text)?;
    execute(&spec, common, cl)
}

/// `pendula control`.
pub fn control_command(a: &ControlArgs, cl: &str) -> Result<(), CliError> {
    let mut file = match detect(&a.spec, &a.model, "control")? {
        Some(f) => f,
        None if a.spec.is_none() && a.model.is_none() => return Err(CliError::Input(
            "--spec or --model: control needs a cart-chain spec or model (kind = \"cart-chain\")"
                .into(),
        )),
        None => {
            return Err(CliError::Input(
                "--spec/--model: not a cart-chain file ([model] kind = \"cart-chain\")".into(),
            ))
        }
    };
    let c = file.control.get_or_insert_with(ControlSpec::default);
    macro_rules! set {
        ($f:ident) => {
            if a.$f.is_some() {
                c.$f = a.$f.clone();
            }
        };
    }
    set!(equilibrium);
    set!(t_end);
    set!(dt_out);
    set!(q_cart);
    set!(q_angle);
    set!(q_rate);
    set!(r);
    if file.initial.q.is_none() {
        if file.initial.equilibrium.is_none() {
            file.initial.equilibrium = Some(
                file.control
                    .as_ref()
                    .and_then(|c| c.equilibrium.clone())
                    .unwrap_or_else(|| "inverted".into()),
            );
        }
        if a.tilt.is_some() {
            file.initial.tilt = a.tilt;
        } else if file.initial.tilt.is_none() {
            file.initial.tilt = Some(0.05);
        }
    } else if a.tilt.is_some() {
        return Err(CliError::Input("--tilt: the spec gives [initial] q".into()));
    }
    run_file(&file, &a.common, cl)
}

fn run_err(e: impl std::fmt::Display) -> CliError {
    CliError::Run(e.to_string())
}

fn modes_json(m: &CartModes) -> serde_json::Value {
    json!({
        "equilibrium": m.equilibrium,
        "omega2": m.omega2,
        "frequencies": m.frequencies.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
        "growth_rates": m.growth_rates,
        "zero_modes": m.zero_modes,
        "unstable": m.unstable,
        "stable": m.stable,
        "controllable": m.controllable,
        "controllability_margin": m.controllability_margin,
    })
}

/// Runs a validated cart-chain spec: outputs are checked before any work, as everywhere.
pub fn execute(spec: &CartSpec, common: &Common, cl: &str) -> Result<(), CliError> {
    let file = common.output.clone().or_else(|| spec.output.file.clone());
    let plot = common.plot.clone().or_else(|| spec.output.plot.clone());
    if let Some(p) = &plot {
        if !matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("png") | Some("svg")
        ) {
            return Err(CliError::Input(format!(
                "--plot: `{}` must end in .png or .svg",
                p.display()
            )));
        }
        if matches!(
            spec.analysis,
            CartAnalysis::Modes { .. } | CartAnalysis::Lyapunov(_)
        ) {
            return Err(CliError::Input(
                "--plot: the cart-chain figure is drawn for simulate and control".into(),
            ));
        }
    }
    for (flag, p) in [("-o", &file), ("--plot", &plot)] {
        if let Some(p) = p {
            prepare_path(p, common.force).map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    set_threads(common.threads)?;
    let prov = Provenance::now(cl, &spec.text);
    let sys = &spec.chain;
    let start = Instant::now();
    let write =
        |body: &dyn Fn(&store::H5Out) -> Result<(), store::StoreError>| -> Result<(), CliError> {
            if let Some(path) = &file {
                let run = || -> Result<(), store::StoreError> {
                    let out = store::H5Out::create(path, common.force)?;
                    out.provenance(&prov)?;
                    out.root()?.attr_str("title", &spec.title)?;
                    body(&out)?;
                    out.finish()?;
                    Ok(())
                };
                run().map_err(run_err)?;
            }
            Ok(())
        };
    let draw = |tr: &cart::CartTrajectory| -> Result<(), CliError> {
        if let Some(path) = &plot {
            let frames: Vec<Vec<[f64; 3]>> =
                (0..tr.len()).map(|k| sys.positions(tr.sample(k))).collect();
            let fig = pendula::plot::CartFigure {
                title: spec.title.clone(),
                frames: &frames,
                snapshots: 6,
            };
            pendula::plot::draw_cart_chain(&fig, path).map_err(run_err)?;
        }
        Ok(())
    };
    let (summary, complete) = match &spec.analysis {
        CartAnalysis::Simulate { t_end, dt_out } => {
            let mut bar = Bar::new("simulate");
            let opts = pendula::analysis::SimulateOptions {
                t_end: *t_end,
                dt_out: *dt_out,
            };
            let tr: cart::CartTrajectory =
                pendula::analysis::simulate(sys, &spec.method, &spec.x0, &opts, &mut bar)
                    .map_err(run_err)?;
            write(&|out| {
                let g = out.group("trajectory")?;
                store::cart::write_cart_trajectory(&g, sys, &tr, &spec.method)
            })?;
            draw(&tr)?;
            let j = json!({
                "kind": "simulate", "model": "cart-chain", "title": spec.title,
                "samples": tr.len(), "t_end": tr.t.last(),
                "max_energy_error": tr.max_energy_error(),
                "constraint_drift": tr.constraint_drift,
                "final_state": tr.sample(tr.len() - 1),
                "steps": tr.stats.steps, "rhs_evaluations": tr.stats.evals,
                "complete": tr.complete, "wall_s": start.elapsed().as_secs_f64(),
            });
            (j, tr.complete)
        }
        CartAnalysis::Modes { equilibria } => {
            let modes: Vec<CartModes> = equilibria
                .iter()
                .map(|s| cart_modes(sys, s))
                .collect::<Result<_, _>>()
                .map_err(|e| CliError::Input(e.to_string()))?;
            write(&|out| {
                let g = out.group("modes")?;
                store::cart::write_cart_modes(&g, sys, &modes, equilibria)
            })?;
            let j = json!({
                "kind": "modes", "model": "cart-chain", "title": spec.title,
                "equilibria": modes.iter().map(modes_json).collect::<Vec<_>>(),
            });
            (j, true)
        }
        CartAnalysis::Lyapunov(opts) => {
            let mut bar = Bar::new("lyapunov");
            let r = lyapunov_spectrum(sys, &spec.method, &spec.x0, opts, &mut bar).map_err(
                |e| match e {
                    LyapunovError::Invalid { field, value, why } => {
                        CliError::Input(format!("lyapunov.{field}: {why} (got {value})"))
                    }
                    other => CliError::Run(other.to_string()),
                },
            )?;
            write(&|out| {
                let g = out.group("lyapunov")?;
                store::write_lyapunov(&g, &r)?;
                g.attr_f64s("initial_state", &spec.x0)?;
                g.attr_i64("phase_space_dimension", sys.manifold_dim() as i64)?;
                g.attr_str("model", "cart-chain")?;
                Ok(())
            })?;
            let j = json!({
                "kind": "lyapunov", "model": "cart-chain", "title": spec.title,
                "phase_space_dimension": sys.manifold_dim(),
                "exponents": r.exponents, "standard_error": r.standard_error,
                "sum_exponents": r.sum, "pair_sums": r.pair_sums,
                "closest_to_zero": r.closest_to_zero,
                "relative_energy_drift": r.energy.relative_drift,
                "averaged_time": r.averaged_time, "counts": r.counts,
                "complete": r.complete, "wall_s": start.elapsed().as_secs_f64(),
            });
            (j, r.complete)
        }
        CartAnalysis::Control {
            signs,
            weights,
            x_ref,
            t_end,
            dt_out,
        } => {
            let mut bar = Bar::new("control");
            let run = closed_loop(
                sys,
                signs,
                weights,
                *x_ref,
                &spec.method,
                &spec.x0,
                *t_end,
                *dt_out,
                &mut bar,
            )
            .map_err(|e| match e {
                cart::ClosedLoopError::Design(d) => CliError::Input(d.to_string()),
                cart::ClosedLoopError::Run(r) => CliError::Run(r.to_string()),
            })?;
            write(&|out| {
                let g = out.group("lqr")?;
                store::cart::write_lqr(&g, &run.lqr)?;
                let g = out.group("trajectory")?;
                store::cart::write_cart_trajectory(&g, sys, &run.trajectory, &spec.method)?;
                store::cart::write_closed_loop_error(&g, &run)
            })?;
            draw(&run.trajectory)?;
            let slowest = run
                .lqr
                .closed_loop
                .iter()
                .map(|z| z.0)
                .fold(f64::MIN, f64::max);
            let j = json!({
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
            (j, run.trajectory.complete)
        }
    };
    report(
        &summary,
        common.json,
        file.is_none() && plot.is_none(),
        complete,
    )
}

/// Flags every command shares, which a cart-chain run honours.
const COMMON_FLAGS: &[&str] = &["output", "force", "json", "plot", "threads"];

/// A cart-chain run of `simulate`, `modes` or `lyapunov` takes its model, initial state and
/// integrator from the spec; a planar-only flag given with it (`--theta`, `--links`, `--method`,
/// …) is refused, naming the flag, rather than silently ignored. `allowed` lists the clap ids
/// the cart path does apply.
pub fn refuse_planar_flags(
    given: Option<(&str, &clap::ArgMatches)>,
    allowed: &[&str],
) -> Result<(), CliError> {
    use clap::parser::ValueSource;
    use clap::CommandFactory;
    let Some((name, sub)) = given else {
        return Ok(());
    };
    let cmd = super::args::Cli::command();
    let Some(sub_cmd) = cmd.find_subcommand(name) else {
        return Ok(());
    };
    // Arguments only (the matches also hold the ids of the flattened structs' groups).
    for id in sub_cmd.get_arguments().map(|a| a.get_id().as_str()) {
        let given = matches!(sub.try_get_raw(id), Ok(Some(_)))
            && sub.value_source(id) == Some(ValueSource::CommandLine);
        if given && !allowed.contains(&id) && !COMMON_FLAGS.contains(&id) {
            return Err(CliError::Input(format!(
                "--{}: not used with a cart-chain model (set it in the spec's tables instead)",
                id.replace('_', "-")
            )));
        }
    }
    Ok(())
}
