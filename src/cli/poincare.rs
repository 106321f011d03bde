//! `pendula poincare`: its flags, and running the analysis with its exports.

use super::args::{FlagMap, ModelArgs};
use super::progress::Bar;
use super::{CliError, Common, Outputs};
use clap::Args;
use pendula::analysis::poincare::{self, OrbitEnd, PoincareOptions, PoincareResult};
use pendula::plot::PoincareFigure;
use pendula::spec::{OneOrMany, PoincareSpec, Spec, SpecFile};
use pendula::store::{self, Provenance};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct PoincareArgs {
    /// Start from this analysis spec (kind = "poincare"); the flags below override it.
    #[arg(long, value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Section coordinate: theta1..thetaN (mod 2π) or omega1..omegaN (default theta1).
    #[arg(long, value_name = "thetaI|omegaI")]
    pub section: Option<String>,
    /// Section position (rad or rad/s, default 0).
    #[arg(long, allow_hyphen_values = true)]
    pub value: Option<f64>,
    /// A general hyperplane a·x = offset on (θ, θ̇) instead of --section.
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "a1,a2,…"
    )]
    pub normal: Option<Vec<f64>>,
    #[arg(long, allow_hyphen_values = true)]
    pub offset: Option<f64>,
    /// Crossing direction: + (default), - or both.
    #[arg(long, allow_hyphen_values = true, value_name = "+|-|both")]
    pub direction: Option<String>,
    /// Stroboscopic section t = t0 + k·period (driven chains; period defaults to 2π/Ω).
    #[arg(long)]
    pub stroboscopic: bool,
    /// Stroboscopic period (s), default 2π/Ω of the drive.
    #[arg(long, allow_hyphen_values = true)]
    pub period: Option<f64>,
    /// Stroboscopic phase: the first sample time t0 (s), default 0.
    #[arg(long, allow_hyphen_values = true)]
    pub t0: Option<f64>,
    /// Shell energies (J), comma-separated: one panel each.
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "E1,E2,…"
    )]
    pub energy: Option<Vec<f64>>,
    /// Energies as fractions between hanging (0) and inverted (1), comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        conflicts_with = "energy"
    )]
    pub energy_fraction: Option<Vec<f64>>,
    /// Link (1-based) whose plane (θ, p or θ̇) is sampled and plotted.
    #[arg(long)]
    pub link: Option<usize>,
    /// momentum (p = M θ̇, default) or velocity (θ̇).
    #[arg(long, value_name = "momentum|velocity")]
    pub variables: Option<String>,
    /// Grid of initial points: angles,speeds (default 8,5).
    #[arg(long, value_delimiter = ',', value_name = "NA,NS")]
    pub grid: Option<Vec<usize>>,
    /// Random initial points instead of a grid.
    #[arg(long, value_name = "N", conflicts_with = "grid")]
    pub random: Option<usize>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// θ range of the initial points (rad, default -π,π).
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "LO,HI"
    )]
    pub angle_range: Option<Vec<f64>>,
    /// p or θ̇ range of the initial points (default: the shell's extent).
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "LO,HI"
    )]
    pub speed_range: Option<Vec<f64>>,
    /// Crossings per orbit (default 300).
    #[arg(long)]
    pub crossings: Option<usize>,
    /// Time limit per orbit (s, default 5000).
    #[arg(long, allow_hyphen_values = true)]
    pub t_max: Option<f64>,
    /// Finite-time Lyapunov exponent per orbit; colours the figure regular/chaotic.
    #[arg(long)]
    pub lyapunov: bool,
    /// Exponent (1/s) above which an orbit counts as chaotic (default 0.05).
    #[arg(long, allow_hyphen_values = true)]
    pub chaos_threshold: Option<f64>,
    /// Initial angles (rad) of a single orbit (instead of --energy).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub theta: Option<Vec<f64>>,
    /// Initial angular velocities (rad/s) of that orbit.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub omega: Option<Vec<f64>>,
    /// DOP853 tolerances (default 1e-12) and largest step (s).
    #[arg(long, allow_hyphen_values = true)]
    pub rtol: Option<f64>,
    #[arg(long, allow_hyphen_values = true)]
    pub atol: Option<f64>,
    #[arg(long, allow_hyphen_values = true)]
    pub h_max: Option<f64>,
    #[command(flatten)]
    pub common: Common,
}

const FLAGS: [(&str, &str); 31] = [
    ("model.preset", "--preset"),
    ("model.links", "--links"),
    ("model.length", "--length"),
    ("model.mass", "--mass"),
    ("model.gravity", "--gravity"),
    ("poincare.section", "--section"),
    ("poincare.value", "--value"),
    ("poincare.normal", "--normal"),
    ("poincare.offset", "--offset"),
    ("poincare.direction", "--direction"),
    ("poincare.stroboscopic", "--stroboscopic"),
    ("poincare.period", "--period"),
    ("poincare.t0", "--t0"),
    ("poincare.energy", "--energy"),
    ("poincare.energy_fraction", "--energy-fraction"),
    ("poincare.link", "--link"),
    ("poincare.variables", "--variables"),
    ("poincare.grid", "--grid"),
    ("poincare.random", "--random"),
    ("poincare.seed", "--seed"),
    ("poincare.angle_range", "--angle-range"),
    ("poincare.speed_range", "--speed-range"),
    ("poincare.crossings", "--crossings"),
    ("poincare.t_max", "--t-max"),
    ("poincare.chaos_threshold", "--chaos-threshold"),
    ("initial.theta", "--theta"),
    ("initial.omega", "--omega"),
    ("initial", "--theta"),
    ("integrator.rtol", "--rtol"),
    ("integrator.atol", "--atol"),
    ("integrator.h_max", "--h-max"),
];

impl PoincareArgs {
    /// The spec these flags describe, and which fields came from flags.
    pub fn to_spec_file(&self) -> Result<(SpecFile, FlagMap), CliError> {
        let mut file = match &self.spec {
            Some(p) => super::read_spec(p)?,
            None => SpecFile {
                kind: Some("poincare".into()),
                ..Default::default()
            },
        };
        if file.kind.as_deref() != Some("poincare") {
            return Err(CliError::Input(format!(
                "--spec: the spec's kind is `{}`, not poincare (use `pendula run`)",
                file.kind.as_deref().unwrap_or("missing")
            )));
        }
        let mut flags: FlagMap = vec![];
        self.model.apply(&mut file, &mut flags)?;
        let p: &mut PoincareSpec = file.poincare.get_or_insert_with(Default::default);
        macro_rules! set {
            ($value:expr, $target:expr) => {
                if let Some(v) = &$value {
                    $target = Some(v.clone());
                }
            };
        }
        if self.section.is_some() {
            p.normal = None;
        }
        if self.normal.is_some() {
            p.section = None;
        }
        set!(self.section, p.section);
        set!(self.value, p.value);
        set!(self.normal, p.normal);
        set!(self.offset, p.offset);
        set!(self.direction, p.direction);
        if self.stroboscopic {
            p.stroboscopic = Some(true);
        }
        set!(self.period, p.period);
        set!(self.t0, p.t0);
        if let Some(e) = &self.energy {
            p.energy = Some(OneOrMany::Many(e.clone()));
            p.energy_fraction = None;
        }
        if let Some(e) = &self.energy_fraction {
            p.energy_fraction = Some(OneOrMany::Many(e.clone()));
            p.energy = None;
        }
        set!(self.link, p.link);
        set!(self.variables, p.variables);
        if self.grid.is_some() {
            p.random = None;
        }
        if self.random.is_some() {
            p.grid = None;
        }
        set!(self.grid, p.grid);
        set!(self.random, p.random);
        set!(self.seed, p.seed);
        set!(self.angle_range, p.angle_range);
        set!(self.speed_range, p.speed_range);
        set!(self.crossings, p.crossings);
        set!(self.t_max, p.t_max);
        if self.lyapunov {
            p.lyapunov = Some(true);
        }
        set!(self.chaos_threshold, p.chaos_threshold);
        set!(self.theta, file.initial.theta);
        set!(self.omega, file.initial.omega);
        set!(self.rtol, file.integrator.rtol);
        set!(self.atol, file.integrator.atol);
        set!(self.h_max, file.integrator.h_max);
        if self.spec.is_none() {
            flags.extend(FLAGS);
        } else {
            // Only the fields the flags set are named by their flag.
            let given = [
                (self.section.is_some(), "poincare.section"),
                (self.value.is_some(), "poincare.value"),
                (self.energy.is_some(), "poincare.energy"),
                (self.energy_fraction.is_some(), "poincare.energy_fraction"),
                (self.crossings.is_some(), "poincare.crossings"),
                (self.t_max.is_some(), "poincare.t_max"),
                (self.direction.is_some(), "poincare.direction"),
                (self.link.is_some(), "poincare.link"),
                (self.grid.is_some(), "poincare.grid"),
            ];
            for (set, field) in given {
                if set {
                    if let Some(f) = FLAGS.iter().find(|(k, _)| *k == field) {
                        flags.push(*f);
                    }
                }
            }
        }
        Ok((file, flags))
    }
}

/// Largest section residual |g| over all crossings (angles mod 2π).
fn max_residual(spec: &Spec, opts: &PoincareOptions, r: &PoincareResult) -> f64 {
    use pendula::analysis::poincare::Section;
    let n = spec.chain.links();
    let mut m = 0.0f64;
    for x in r
        .shells
        .iter()
        .flat_map(|s| &s.orbits)
        .flat_map(|o| &o.states)
    {
        let g = match &opts.section {
            Section::Coordinate { index, value, .. } if *index < n => {
                poincare::wrap_angle(x[*index] - value)
            }
            Section::Coordinate { index, value, .. } => x[*index] - value,
            Section::Hyperplane { normal, offset, .. } => {
                normal.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - offset
            }
            Section::Stroboscopic { .. } => 0.0,
        };
        m = m.max(g.abs());
    }
    m
}

pub fn run(
    spec: &Spec,
    opts: &PoincareOptions,
    outputs: &Outputs,
    common: &Common,
    command_line: &str,
) -> Result<(), CliError> {
    let start = Instant::now();
    let mut bar = Bar::new("poincare");
    let result = poincare::poincare(&spec.chain, opts, &mut bar)
        .map_err(|e| CliError::Run(e.to_string()))?;
    let wall = start.elapsed().as_secs_f64();
    if result.complete && result.crossings() == 0 {
        return Err(CliError::Input(format!(
            "poincare.t_max: no orbit crossed the section {} within t_max = {} s (raise --t-max or check the section)",
            opts.section.describe(&spec.chain),
            opts.orbit.t_max
        )));
    }
    let prov = Provenance::now(command_line, &spec.text);
    if let Some(path) = &outputs.file {
        store::write_file(path, common.force, &prov, &spec.title, |out| {
            store::write_poincare(out, &super::output::run_info(spec), opts, &result)
        })
        .map_err(|e| CliError::Run(e.to_string()))?;
    }
    if let Some(path) = &outputs.plot {
        if result.crossings() > 0 {
            pendula::plot::draw_poincare(
                &PoincareFigure::of_result(&spec.title, &spec.chain, opts, &result),
                path,
            )
            .map_err(|e| CliError::Run(e.to_string()))?;
        }
    }
    let res = max_residual(spec, opts, &result);
    if common.json {
        println!("{}", summary(spec, opts, &result, outputs, wall, res));
    } else {
        print!("{}", table(spec, opts, &result, wall, res));
    }
    if !result.complete {
        return Err(CliError::Run(
            "interrupted; the crossings so far were written, marked incomplete".into(),
        ));
    }
    Ok(())
}

fn shell_stats(s: &poincare::Shell, threshold: f64) -> (usize, usize, usize, Option<usize>) {
    let crossings = s.orbits.iter().map(|o| o.len()).sum();
    let short = s
        .orbits
        .iter()
        .filter(|o| o.end != OrbitEnd::Complete)
        .count();
    let chaotic = s
        .orbits
        .iter()
        .map(|o| o.lyapunov.map(|l| usize::from(l > threshold)))
        .sum::<Option<usize>>();
    (crossings, short, s.skipped.len(), chaotic)
}

fn table(
    spec: &Spec,
    opts: &PoincareOptions,
    r: &PoincareResult,
    wall: f64,
    residual: f64,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "section {}", opts.section.describe(&spec.chain));
    for (k, sh) in r.shells.iter().enumerate() {
        let (c, short, skipped, chaotic) = shell_stats(sh, opts.chaos_threshold);
        let e = sh.energy.map_or("-".into(), |e| format!("{e:.6} J"));
        let _ = writeln!(
            s,
            "shell {}: E = {e}, {} orbits, {c} crossings, {short} stopped at t_max, {skipped} unreachable points skipped{}",
            k + 1,
            sh.orbits.len(),
            chaotic.map_or(String::new(), |n| format!(", {n} chaotic"))
        );
    }
    let _ = writeln!(
        s,
        "max |section residual| {residual:.2e}, max relative energy error {:.2e}, {:.0} crossings/s ({wall:.2} s)",
        r.max_energy_error(),
        r.crossings() as f64 / wall.max(1e-9)
    );
    s
}

fn summary(
    spec: &Spec,
    opts: &PoincareOptions,
    r: &PoincareResult,
    outputs: &Outputs,
    wall: f64,
    residual: f64,
) -> serde_json::Value {
    json!({
        "kind": "poincare",
        "title": spec.title,
        "model": spec.model_name,
        "links": spec.chain.links(),
        "section": opts.section.describe(&spec.chain),
        "integrator": spec.method,
        "options": opts,
        "complete": r.complete,
        "shells": r.shells.iter().map(|sh| {
            let (c, short, skipped, chaotic) = shell_stats(sh, opts.chaos_threshold);
            json!({
                "energy": sh.energy,
                "orbits": sh.orbits.len(),
                "crossings": c,
                "stopped_at_t_max": short,
                "skipped_unreachable": skipped,
                "chaotic_orbits": chaotic,
                "lyapunov": sh.orbits.iter().map(|o| o.lyapunov).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
        "crossings": r.crossings(),
        "max_section_residual": residual,
        "max_relative_energy_error": r.max_energy_error(),
        "wall_s": wall,
        "crossings_per_s": r.crossings() as f64 / wall.max(1e-9),
        "output": outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": outputs.plot.as_ref().map(|p| p.display().to_string()),
    })
}
