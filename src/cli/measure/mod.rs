//! `pendula measure`: boundary box dimension, uncertainty exponent, basin entropy and the Wada
//! test of a label grid: a pendula map file (flip maps thresholded at flip times, or classes)
//! or any 2-D integer dataset of any HDF5 file (`--labels FILE.h5:/path`).

use super::output::{f64_json, CliError, Common};
use clap::Args;
use pendula::analysis::indicators::{SALI_CHAOTIC, SALI_REGULAR};
use pendula::analysis::measure::chaotic::{chaotic_fraction, ChaoticOptions, ShellFraction};
use pendula::analysis::measure::labels::{map_labels, refusal, Labelled, MapGrids};
use pendula::analysis::measure::{
    label_counts, measure, LabelGrid, MeasureError, MeasureOptions, MeasuredSet, What,
};
use pendula::integrate::Method;
use pendula::store::map::MapReader;
use pendula::store::{self, ChaoticRun, Provenance};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// A map file written by `pendula map` or `pendula merge`.
    #[arg(
        value_name = "FILE.h5",
        required_unless_present_any = ["labels", "chaotic_fraction"],
        conflicts_with = "labels"
    )]
    pub input: Option<PathBuf>,
    /// Any HDF5 file's 2-D integer dataset as the labels: FILE.h5:/path/to/dataset.
    #[arg(long, value_name = "FILE.h5:/DATASET")]
    pub labels: Option<String>,
    /// The map variable the labels come from: flip_step (flip maps' default: flipped or not),
    /// flip_link (which link flipped first) or class (every other map's default).
    #[arg(long, value_name = "V")]
    pub variable: Option<String>,
    /// Flip maps: label a pixel flipped when it flipped at or before T seconds; several
    /// thresholds (comma-separated) measure one label grid each (default: t_max).
    #[arg(long, value_name = "T[,T…]", value_delimiter = ',')]
    pub flip_before: Vec<f64>,
    /// Physical extent of the grid's pixel edges, overriding its dimension scales.
    #[arg(long, value_name = "x0,x1,y0,y1", allow_hyphen_values = true)]
    pub extent: Option<String>,
    /// What to measure: boundary-dimension, uncertainty-exponent, basin-entropy, wada or all.
    #[arg(long, value_name = "WHAT", default_value = "all", value_parser = parse_what)]
    pub what: What,
    /// Largest ε (pixels) of the uncertainty exponent; ε = 1 … K are fitted.
    #[arg(long, value_name = "K", default_value_t = 16)]
    pub max_eps: usize,
    /// Box sides ε (pixels) of the basin entropy, comma-separated.
    #[arg(
        long,
        value_name = "E[,E…]",
        value_delimiter = ',',
        default_value = "2,3,5,8"
    )]
    pub entropy_eps: Vec<usize>,
    /// Random box-grid shifts of box counting and basin entropy (their intervals' spread).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub shifts: usize,
    /// Seed of the box-grid shifts, or of the starts of --chaotic-fraction.
    #[arg(long, value_name = "S", default_value_t = 0x5eed)]
    pub seed: u64,
    /// Largest Wada neighbourhood radius in pixels (default: shorter side / 64).
    #[arg(long, value_name = "R")]
    pub wada_radius: Option<usize>,
    #[command(flatten)]
    pub chaotic: ChaoticArgs,
    #[command(flatten)]
    pub common: Common,
}

/// The chaotic fraction of energy shells (issue 16, item 5): no label grid, a model instead.
/// The model and run flags keep the names the spec commands give them (src/cli/flags.rs).
#[derive(Debug, Args)]
pub struct ChaoticArgs {
    /// Measure the chaotic fraction of energy shells of a chain (SALI on Liouville-uniform
    /// starts) instead of a label grid.
    #[arg(
        long,
        conflicts_with_all = ["input", "labels", "variable", "flip_before", "extent", "wada_radius"]
    )]
    pub chaotic_fraction: bool,
    /// Shell energies (J), comma-separated; each must be above the hanging rest's.
    #[arg(
        long,
        value_name = "E1,E2,…",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub energies: Vec<f64>,
    /// Starts sampled per energy shell.
    #[arg(long, value_name = "S")]
    pub samples: Option<usize>,
    /// End of each SALI run (s), default 200; a fraction belongs to its t_end.
    #[arg(long, value_name = "S")]
    pub t_end: Option<f64>,
    /// Fixed RK4 step (s), default 0.005.
    #[arg(long, value_name = "S")]
    pub dt: Option<f64>,
    /// SALI renormalisation interval τ (s), a multiple of --dt, default 0.1.
    #[arg(long, value_name = "S")]
    pub tau: Option<f64>,
    /// Model preset (default double).
    #[arg(long, value_name = "simple|double|triple|chain|rods")]
    pub preset: Option<String>,
    /// Read the model from this TOML file (the fields of a spec's [model]).
    #[arg(long, value_name = "MODEL.toml", conflicts_with = "preset")]
    pub model: Option<PathBuf>,
    /// Number of links (chain and rods presets).
    #[arg(long, value_name = "N")]
    pub links: Option<usize>,
    /// Link length (m) of a preset.
    #[arg(long, value_name = "M")]
    pub length: Option<f64>,
    /// Link mass (kg) of a preset.
    #[arg(long, value_name = "KG")]
    pub mass: Option<f64>,
    /// Gravity (m/s²).
    #[arg(long, value_name = "G")]
    pub gravity: Option<f64>,
}

fn parse_what(s: &str) -> Result<What, String> {
    What::parse(s).ok_or_else(|| format!("expected one of {}", What::NAMES.join(", ")))
}

/// Where the labels come from, after the flags are checked.
#[derive(Debug, Clone)]
pub enum Input {
    Map(PathBuf),
    Labels { file: PathBuf, dataset: String },
}

/// The labels' source and how to read them.
#[derive(Debug, Clone)]
pub struct Source {
    pub input: Input,
    pub variable: Option<String>,
    pub flip_before: Vec<f64>,
    pub extent: Option<[f64; 4]>,
}

impl MeasureArgs {
    fn source(&self) -> Result<Source, CliError> {
        let input = match (&self.input, &self.labels) {
            (Some(p), None) => Input::Map(p.clone()),
            (None, Some(l)) => {
                let (f, d) = l.split_once(":/").ok_or_else(|| {
                    CliError::Input(format!(
                        "--labels: expected FILE.h5:/path/to/dataset (got `{l}`)"
                    ))
                })?;
                Input::Labels {
                    file: PathBuf::from(f),
                    dataset: format!("/{d}"),
                }
            }
            // clap refuses both; neither passes its check (a switch's default counts as given).
            _ => {
                return Err(CliError::Input(
                    "measure: give a map FILE.h5, --labels FILE.h5:/path or --chaotic-fraction"
                        .into(),
                ))
            }
        };
        let extent = self.extent.as_deref().map(parse_extent).transpose()?;
        Ok(Source {
            input,
            variable: self.variable.clone(),
            flip_before: self.flip_before.clone(),
            extent,
        })
    }

    fn options(&self) -> Result<MeasureOptions, CliError> {
        if self.shifts == 0 {
            return Err(CliError::Input("--shifts: must be >= 1 (got 0)".into()));
        }
        if self.entropy_eps.is_empty() {
            return Err(CliError::Input(
                "--entropy-eps: give at least one box side".into(),
            ));
        }
        let mut o = MeasureOptions {
            what: self.what,
            entropy_eps: self.entropy_eps.clone(),
            entropy_shifts: self.shifts,
            ..Default::default()
        };
        o.boxes.shifts = self.shifts;
        o.boxes.seed = self.seed;
        o.uncertainty.max_eps = self.max_eps;
        o.wada.max_radius = self.wada_radius.unwrap_or(0);
        if self.wada_radius == Some(0) {
            return Err(CliError::Input(
                "--wada-radius: must be >= 1 (got 0)".into(),
            ));
        }
        Ok(o)
    }
}

fn parse_extent(s: &str) -> Result<[f64; 4], CliError> {
    let bad = || {
        CliError::Input(format!(
            "--extent: expected four finite numbers x0,x1,y0,y1 with x0 != x1 and y0 != y1 (got `{s}`)"
        ))
    };
    let v: Vec<f64> = s
        .split(',')
        .map(|t| t.trim().parse::<f64>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    if v.len() != 4 || !v.iter().all(|x| x.is_finite()) || v[0] == v[1] || v[2] == v[3] {
        return Err(bad());
    }
    Ok([v[0], v[1], v[2], v[3]])
}

/// Reads the label grids `src` describes; every problem is bad input naming the flag.
fn load(src: &Source) -> Result<Vec<Labelled>, CliError> {
    match &src.input {
        Input::Labels { file, dataset } => {
            let flag = format!("--labels {}:{dataset}", file.display());
            if src.variable.is_some() {
                return Err(CliError::Input(
                    "--variable: applies to map files; --labels names its dataset".into(),
                ));
            }
            if !src.flip_before.is_empty() {
                return Err(CliError::Input(
                    "--flip-before: applies to flip-time map files, not --labels".into(),
                ));
            }
            let d = store::read_labels(file, dataset)
                .map_err(|m| CliError::Input(format!("--labels: {m}")))?;
            let grid = LabelGrid::new(d.nx, d.ny, &d.values)
                .map_err(|e| CliError::Input(format!("{flag}: {e}")))?;
            Ok(vec![Labelled {
                name: dataset.clone(),
                source: format!("dataset {dataset} of {}", file.display()),
                grid,
                extent: src.extent.or(d.extent),
                axes: d.axes,
            }])
        }
        Input::Map(path) => {
            let r = MapReader::open(path).map_err(|e| {
                CliError::Input(format!(
                    "measure: {e} (for a dataset of another file use --labels FILE.h5:/path)"
                ))
            })?;
            let h = &r.header;
            let d = r.read_all()?;
            let links = h.link_length.len();
            let grids = MapGrids {
                kind: &h.kind,
                complete: h.complete,
                t_max: h.t_max,
                dt: h.dt,
                width: h.width,
                height: h.height,
                axes: [&h.x_name, &h.y_name],
                window: h.window,
                class: &d.class,
                flip_step: &d.flip_step,
                flip_link: &d.flip_link,
                attractor: (h.kind == "final-state").then_some((&d.aux[..], links)),
            };
            map_labels(
                &grids,
                src.variable.as_deref(),
                &src.flip_before,
                src.extent,
                &path.display().to_string(),
                &flag,
            )
            .map_err(CliError::Input)
        }
    }
}

/// The CLI's spelling of a `[measure]` spec key: `max_eps` → `--max-eps`.
fn flag(key: &str) -> String {
    format!("--{}", key.replace('_', "-"))
}

/// Measures every grid of `src`; nothing is written when any is refused.
pub fn measure_sets(
    src: &Source,
    opts: &MeasureOptions,
) -> Result<(Vec<MeasuredSet>, Vec<String>), CliError> {
    let grids = load(src)?;
    let mut sets = Vec::new();
    let mut names = Vec::new();
    for l in grids {
        let m = measure(&l.grid, opts)
            .map_err(|(s, e)| CliError::Input(refusal(s, &e, &l.name, &flag)))?;
        sets.push(MeasuredSet {
            source: l.source,
            nx: l.grid.nx,
            ny: l.grid.ny,
            extent: l.extent,
            axes: l.axes,
            labels: label_counts(&l.grid),
            measures: m,
        });
        names.push(l.name);
    }
    Ok((sets, names))
}

/// Outputs and run description shared by the command and the `measure` spec kind.
pub struct Job<'a> {
    pub title: String,
    pub file: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub force: bool,
    pub json: bool,
    pub command_line: &'a str,
    pub spec_text: String,
}

/// Measures, then writes the HDF5 group, the figure and the summary.
pub fn run_job(src: &Source, opts: &MeasureOptions, job: &Job) -> Result<(), CliError> {
    for (flag, p) in [("-o", &job.file), ("--plot", &job.plot)] {
        if let Some(p) = p {
            if flag == "-o" {
                super::output::check_result_path(p, flag)?;
            } else {
                super::output::check_figure_path(p, flag)?;
            }
        }
    }
    let start = Instant::now();
    let (sets, names) = measure_sets(src, opts)?;
    let wall = start.elapsed().as_secs_f64();
    if job.plot.is_some() && sets.iter().all(no_curve) {
        return Err(CliError::Input(
            "--plot: nothing measured has a figure (the Wada test of a two-label grid is skipped)"
                .into(),
        ));
    }
    for (flag, p) in [("-o", &job.file), ("--plot", &job.plot)] {
        if let Some(p) = p {
            super::output::prepare_path(p, job.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    if let Some(path) = &job.file {
        let prov = Provenance::now(job.command_line, &job.spec_text);
        store::write_file(path, job.force, &prov, &job.title, |out| {
            store::write_measure(out, opts, &sets)
        })?;
    }
    if let Some(path) = &job.plot {
        let fig = pendula::plot::MeasureFigure::new(&job.title, &sets, &names);
        pendula::plot::draw_measure(&fig, path)?;
    }
    if job.json {
        println!("{}", summary(src, opts, &sets, job, wall));
    } else {
        print!("{}", table(&sets, wall));
    }
    Ok(())
}

fn no_curve(s: &MeasuredSet) -> bool {
    let m = &s.measures;
    m.boundary.is_none() && m.uncertainty.is_none() && m.entropy.is_empty() && m.wada.is_none()
}

fn pair(p: (f64, f64)) -> serde_json::Value {
    json!([f64_json(p.0), f64_json(p.1)])
}

fn set_json(s: &MeasuredSet) -> serde_json::Value {
    let m = &s.measures;
    let mut v = json!({
        "source": s.source,
        "width": s.nx,
        "height": s.ny,
        "extent": s.extent,
        "labels": s.labels.iter().map(|(l, c)| json!({"label": l, "pixels": c})).collect::<Vec<_>>(),
    });
    if let Some(b) = &m.boundary {
        v["boundary_dimension"] = json!({
            "dimension": f64_json(b.dimension),
            "ci": pair(b.ci),
            "box_sizes_px": b.sizes,
            "box_counts": b.counts,
            "slope_se": f64_json(b.fit.slope_se),
            "intercept": f64_json(b.fit.intercept),
            "scaling_range_px": [b.sizes.first(), b.sizes.last()],
            "scaling_rule": pendula::analysis::measure::BOX_RULE,
            "ci_method": pendula::analysis::measure::BOX_CI,
            "shifts": b.shift_counts.len(),
            "shift_slopes": b.shift_slopes,
        });
    }
    if let Some(u) = &m.uncertainty {
        v["uncertainty_exponent"] = json!({
            "alpha": f64_json(u.alpha),
            "ci": pair(u.ci),
            "dimension": f64_json(u.dimension),
            "dimension_ci": pair(u.dimension_ci),
            "eps_px": u.eps,
            "fraction": u.fraction,
            "tested_pixels": u.tested,
            "slope_se": f64_json(u.fit.slope_se),
            "scaling_rule": pendula::analysis::measure::UNCERTAINTY_RULE,
        });
    }
    if !m.entropy.is_empty() {
        v["basin_entropy"] = m
            .entropy
            .iter()
            .map(|e| {
                json!({
                    "eps_px": e.eps, "sb": f64_json(e.sb), "sb_ci": pair(e.sb_ci),
                    "sbb": f64_json(e.sbb), "sbb_ci": pair(e.sbb_ci),
                    "fractal_by_log2": e.fractal_by_log2,
                    "boxes": e.shift_values.first().map(|s| s.2),
                    "boundary_boxes": e.shift_values.first().map(|s| s.3),
                })
            })
            .collect::<Vec<_>>()
            .into();
    }
    if let Some(w) = &m.wada {
        v["wada"] = json!({
            "labels": w.labels, "radii_px": w.radii, "boundary_points": w.boundary_points,
            "wada_points": w.wada_points, "fraction": w.fraction, "wada": w.wada,
        });
    } else if let Some(why) = &m.wada_skipped {
        v["wada_skipped"] = json!(why);
    }
    v
}

fn summary(
    src: &Source,
    opts: &MeasureOptions,
    sets: &[MeasuredSet],
    job: &Job,
    wall: f64,
) -> serde_json::Value {
    let input = match &src.input {
        Input::Map(p) => p.display().to_string(),
        Input::Labels { file, dataset } => format!("{}:{dataset}", file.display()),
    };
    json!({
        "kind": "measure",
        "title": job.title,
        "input": input,
        "what": opts.what.name(),
        "seed": opts.boxes.seed,
        "sets": sets.iter().map(set_json).collect::<Vec<_>>(),
        "wall_s": wall,
        "threads": rayon::current_num_threads(),
        "output": job.file.as_ref().map(|p| p.display().to_string()),
        "plot": job.plot.as_ref().map(|p| p.display().to_string()),
    })
}

fn table(sets: &[MeasuredSet], wall: f64) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for (k, set) in sets.iter().enumerate() {
        let m = &set.measures;
        let _ = writeln!(
            s,
            "set {}: {} ({}x{}, {} labels)",
            k + 1,
            set.source,
            set.nx,
            set.ny,
            set.labels.len()
        );
        if let Some(b) = &m.boundary {
            let _ = writeln!(
                s,
                "  box-counting dimension D = {:.4}  95% [{:.4}, {:.4}]  (boxes {}..{} px, {} shifts)",
                b.dimension, b.ci.0, b.ci.1, b.sizes[0], b.sizes[b.sizes.len() - 1], b.shift_counts.len()
            );
        }
        if let Some(u) = &m.uncertainty {
            let _ = writeln!(
                s,
                "  uncertainty exponent α = {:.4}  95% [{:.4}, {:.4}]  →  D = 2 − α = {:.4}  (ε = 1..{} px)",
                u.alpha, u.ci.0, u.ci.1, u.dimension, u.eps.len()
            );
        }
        for e in &m.entropy {
            let _ = writeln!(
                s,
                "  ε = {:>3} px: S_b = {:.4} [{:.4}, {:.4}], S_bb = {:.4} [{:.4}, {:.4}]{}",
                e.eps,
                e.sb,
                e.sb_ci.0,
                e.sb_ci.1,
                e.sbb,
                e.sbb_ci.0,
                e.sbb_ci.1,
                if e.fractal_by_log2 {
                    "  > ln 2: fractal"
                } else {
                    ""
                }
            );
        }
        if let Some(w) = &m.wada {
            let _ = writeln!(
                s,
                "  Wada test: W(r) = {:?} for r = {:?} px → {}",
                w.fraction
                    .iter()
                    .map(|f| (f * 1e4).round() / 1e4)
                    .collect::<Vec<_>>(),
                w.radii,
                if w.wada { "Wada" } else { "not Wada" }
            );
        } else if let Some(why) = &m.wada_skipped {
            let _ = writeln!(s, "  Wada test skipped: {why}");
        }
    }
    let _ = writeln!(s, "measured in {wall:.2} s");
    s
}

/// `pendula measure …`.
pub fn measure_command(a: &MeasureArgs, command_line: &str) -> Result<(), CliError> {
    super::output::set_threads(a.common.threads)?;
    if a.chaotic.chaotic_fraction {
        return chaotic_command(a, command_line);
    }
    if let Some(flag) = a.chaotic.given() {
        return Err(CliError::Input(format!(
            "{flag}: applies to --chaotic-fraction only (a label grid has no model or run)"
        )));
    }
    let src = a.source()?;
    let opts = a.options()?;
    let title = match &src.input {
        Input::Map(p) => format!("Measures of {}", file_name(p)),
        Input::Labels { file, dataset } => format!("Measures of {}:{dataset}", file_name(file)),
    };
    let job = Job {
        title,
        file: a.common.output.clone(),
        plot: a.common.plot.clone(),
        force: a.common.force,
        json: a.common.json,
        command_line,
        spec_text: String::new(),
    };
    run_job(&src, &opts, &job)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `pendula run` of a `kind = "measure"` spec: computes its map into `measure.map_file` (a
/// complete map of the same spec there is reused, an interrupted one resumed; `--force`
/// recomputes it), then measures that file as `pendula measure` does.
pub fn run_spec(
    spec: &pendula::spec::Spec,
    common: &Common,
    r: &pendula::spec::MeasureRun,
    command_line: &str,
) -> Result<(), CliError> {
    let file = common.output.clone().or_else(|| spec.output.file.clone());
    let plot = common.plot.clone().or_else(|| spec.output.plot.clone());
    // Refuse an existing result before the map's work, not after it.
    for (flag, p) in [("output.file", &file), ("output.plot", &plot)] {
        if let Some(p) = p {
            super::output::prepare_path(p, common.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    if let Some(sweep) = &r.sweep {
        return run_sweep(spec, common, r, sweep, (file, plot), command_line);
    }
    compute_map(spec, common, r, command_line)?;
    let src = Source {
        input: Input::Map(r.map_file.clone()),
        variable: r.variable.clone(),
        flip_before: r.flip_before.clone(),
        extent: None,
    };
    let job = Job {
        title: spec.title.clone(),
        file,
        plot,
        force: common.force,
        json: common.json,
        command_line,
        spec_text: spec.text.clone(),
    };
    run_job(&src, &r.options, &job)
}

/// Computes the measure spec's map into `r.map_file` as `pendula run` of its `[map]` would,
/// resuming an interrupted one and reusing a complete one.
fn compute_map(
    spec: &pendula::spec::Spec,
    common: &Common,
    r: &pendula::spec::MeasureRun,
    command_line: &str,
) -> Result<(), CliError> {
    use pendula::spec::{Analysis, OutputSpec};
    let mut table: toml::Table = spec
        .text
        .parse()
        .map_err(|e| CliError::Run(format!("the spec cannot be read back as TOML: {e}")))?;
    table.insert("kind".into(), "map".into());
    table.remove("measure");
    table.remove("title");
    let mut out = toml::Table::new();
    out.insert("file".into(), r.map_file.display().to_string().into());
    table.insert("output".into(), out.into());
    let map_spec = pendula::spec::Spec {
        title: format!("map: {} chain", spec.model_name),
        analysis: Analysis::Map(r.map.clone()),
        output: OutputSpec {
            file: Some(r.map_file.clone()),
            plot: None,
        },
        text: toml::to_string(&table).unwrap_or_default(),
        ..spec.clone()
    };
    let map_common = Common {
        output: Some(r.map_file.clone()),
        plot: None,
        json: false,
        ..common.clone()
    };
    let flags = super::map::RunFlags {
        resume: true,
        ..Default::default()
    };
    super::map::run_map(&map_spec, &map_common, &flags, command_line)
}

/// A `[measure.sweep]`: every point's map (its own file and checkpoint, so a rerun reuses
/// the finished maps and resumes the interrupted one) and measures, then one HDF5 group
/// `measure` over the dimension `sweep`, one figure of each measure against the parameter
/// and one summary. Nothing is written before every point was measured.
fn run_sweep(
    spec: &pendula::spec::Spec,
    common: &Common,
    r: &pendula::spec::MeasureRun,
    sweep: &pendula::spec::Sweep,
    (file, plot): (Option<PathBuf>, Option<PathBuf>),
    command_line: &str,
) -> Result<(), CliError> {
    use pendula::spec::Analysis;
    if let Some(p) = &file {
        super::output::check_result_path(p, "output.file")?;
    }
    if let Some(p) = &plot {
        super::output::check_figure_path(p, "output.plot")?;
    }
    let start = Instant::now();
    let mut points = Vec::with_capacity(sweep.points.len());
    let mut names = Vec::new();
    for (k, pf) in sweep.points.iter().enumerate() {
        let field = format!("measure.sweep.values[{}]", k + 1);
        let ps = pf
            .validate()
            .map_err(|e| CliError::Input(format!("{field}: {}: {}", e.field, e.message)))?;
        let Analysis::Measure(pr) = &ps.analysis else {
            unreachable!("a sweep point is a measure spec")
        };
        compute_map(&ps, common, pr, command_line)?;
        let src = Source {
            input: Input::Map(pr.map_file.clone()),
            variable: pr.variable.clone(),
            flip_before: pr.flip_before.clone(),
            extent: None,
        };
        let (sets, n) = measure_sets(&src, &pr.options).map_err(|e| {
            let at = format!("{field} ({} = {})", sweep.parameter, sweep.values[k]);
            match e {
                CliError::Input(m) => CliError::Input(format!("{at}: {m}")),
                CliError::Run(m) => CliError::Run(format!("{at}: {m}")),
            }
        })?;
        names = n;
        points.push(sets);
    }
    let wall = start.elapsed().as_secs_f64();
    let fig = pendula::plot::MeasureFigure::sweep(
        &spec.title,
        &sweep.parameter,
        &sweep.units,
        &sweep.values,
        &points,
        &names,
    );
    if plot.is_some() && fig.is_empty() {
        return Err(CliError::Input(
            "output.plot: nothing measured has a figure (the Wada test of a two-label grid is skipped)".into(),
        ));
    }
    let run = store::SweepRun {
        parameter: &sweep.parameter,
        units: &sweep.units,
        values: &sweep.values,
        points: &points,
    };
    if let Some(path) = &file {
        let prov = Provenance::now(command_line, &spec.text);
        store::write_file(path, common.force, &prov, &spec.title, |out| {
            store::write_measure_sweep(out, &r.options, &run)
        })?;
    }
    if let Some(path) = &plot {
        pendula::plot::draw_measure(&fig, path)?;
    }
    if common.json {
        let v = json!({
            "kind": "measure",
            "title": spec.title,
            "what": r.options.what.name(),
            "seed": r.options.boxes.seed,
            "sweep": {
                "parameter": sweep.parameter,
                "units": sweep.units,
                "values": sweep.values,
                "map_files": sweep.points.iter().map(|p| p.measure.as_ref().and_then(|m| m.map_file.as_ref()).map(|f| f.display().to_string())).collect::<Vec<_>>(),
            },
            "points": points.iter().zip(&sweep.values).map(|(sets, v)| json!({
                "value": v,
                "sets": sets.iter().map(set_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "wall_s": wall,
            "threads": rayon::current_num_threads(),
            "output": file.as_ref().map(|p| p.display().to_string()),
            "plot": plot.as_ref().map(|p| p.display().to_string()),
        });
        println!("{v}");
    } else {
        use std::fmt::Write;
        let mut s = String::new();
        for (sets, v) in points.iter().zip(&sweep.values) {
            let _ = writeln!(s, "{} = {v} {}:", sweep.parameter, sweep.units);
            s.push_str(&table(sets, wall));
        }
        print!("{s}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The chaotic fraction of energy shells.

impl ChaoticArgs {
    /// The first chaotic-fraction flag given (clap's `requires` is met by a switch's default).
    fn given(&self) -> Option<&'static str> {
        [
            ("--energies", !self.energies.is_empty()),
            ("--samples", self.samples.is_some()),
            ("--t-end", self.t_end.is_some()),
            ("--dt", self.dt.is_some()),
            ("--tau", self.tau.is_some()),
            ("--preset", self.preset.is_some()),
            ("--model", self.model.is_some()),
            ("--links", self.links.is_some()),
            ("--length", self.length.is_some()),
            ("--mass", self.mass.is_some()),
            ("--gravity", self.gravity.is_some()),
        ]
        .into_iter()
        .find_map(|(f, g)| g.then_some(f))
    }
}

/// The chain `--model`/`--preset` and the other model flags describe, as the spec commands
/// build it (default: the equal double pendulum); errors name the flag.
fn chaotic_chain(c: &ChaoticArgs) -> Result<(pendula::model::Chain, String), CliError> {
    use pendula::spec::{self, Model, ModelFile, ModelSpec};
    let mut file = match &c.model {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                CliError::Input(format!("--model: cannot read `{}`: {e}", p.display()))
            })?;
            spec::parse_model(&text, &p.display().to_string())
                .map_err(|e| CliError::Input(format!("--model: {e}")))?
        }
        None => ModelFile::Planar(ModelSpec::default()),
    };
    let ModelFile::Planar(m) = &mut file else {
        return Err(CliError::Input(
            "--model: the chaotic fraction needs a planar chain (kind = \"planar-chain\")".into(),
        ));
    };
    if c.preset.is_some() {
        m.preset = c.preset.clone();
    }
    if m.preset.is_none() && m.link.is_none() {
        m.preset = Some("double".into());
    }
    m.links = c.links.or(m.links);
    m.length = c.length.or(m.length);
    m.mass = c.mass.or(m.mass);
    m.gravity = c.gravity.or(m.gravity);
    let (model, name) = file.build().map_err(|e| {
        // A field a flag set is named by the flag; the rest came from the --model file.
        let flag = match e.field.as_str() {
            "model.preset" if c.preset.is_some() => "--preset",
            "model.links" if c.links.is_some() => "--links",
            "model.length" if c.length.is_some() => "--length",
            "model.mass" if c.mass.is_some() => "--mass",
            "model.gravity" if c.gravity.is_some() => "--gravity",
            _ if c.model.is_some() => "--model",
            _ => "--preset",
        };
        CliError::Input(format!("{flag}: {}", e.message))
    })?;
    match model {
        Model::Planar(chain) => Ok((chain, name)),
        Model::Cart(_) => unreachable!("a planar model file builds a planar chain"),
    }
}

/// The SALI run of every start from `--dt`, `--tau`, `--t-end` (library defaults otherwise).
fn chaotic_options(c: &ChaoticArgs) -> Result<ChaoticOptions, CliError> {
    let mut o = ChaoticOptions::default();
    let dt = c.dt.unwrap_or(match o.method {
        Method::Rk4 { dt } => dt,
        _ => 0.005,
    });
    let positive = |flag: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(CliError::Input(format!(
                "{flag}: must be finite and > 0 (got {v})"
            )))
        }
    };
    let dt = positive("--dt", dt)?;
    let tau = positive("--tau", c.tau.unwrap_or(o.indicators.tau))?;
    let t_end = positive("--t-end", c.t_end.unwrap_or(o.indicators.time))?;
    let steps = tau / dt;
    if steps < 0.5 || (steps - steps.round()).abs() > 1e-9 * steps.max(1.0) {
        return Err(CliError::Input(format!(
            "--tau: must be a whole multiple of --dt = {dt} s (got {tau} s)"
        )));
    }
    if t_end < tau {
        return Err(CliError::Input(format!(
            "--t-end: must be at least one interval --tau = {tau} s (got {t_end} s)"
        )));
    }
    o.method = Method::Rk4 { dt };
    o.indicators.tau = tau;
    o.indicators.time = t_end;
    Ok(o)
}

/// A library refusal as bad input naming the flag its field comes from.
fn chaotic_refused(e: MeasureError) -> CliError {
    let m = e.to_string();
    let named = [
        ("energies: ", "--energies: "),
        ("samples: ", "--samples: "),
        ("indicators: tau", "--tau: tau"),
        ("indicators: time", "--t-end: t_end"),
    ]
    .iter()
    .find_map(|(field, flag)| m.strip_prefix(field).map(|rest| format!("{flag}{rest}")));
    CliError::Input(named.unwrap_or_else(|| {
        if m.contains("conservative") {
            format!("--model: {m}")
        } else {
            format!("--chaotic-fraction: {m}")
        }
    }))
}

/// `pendula measure --chaotic-fraction …`: samples, classifies, then writes the HDF5 group
/// `measure/chaotic_fraction`, the figure and the JSON line or text table. Every check runs
/// before any output is touched.
fn chaotic_command(a: &MeasureArgs, command_line: &str) -> Result<(), CliError> {
    let c = &a.chaotic;
    if c.energies.is_empty() {
        return Err(CliError::Input(
            "--energies: give at least one shell energy (J)".into(),
        ));
    }
    let samples = match c.samples {
        None => {
            return Err(CliError::Input(
                "--samples: give the number of starts per energy shell".into(),
            ))
        }
        Some(0) => return Err(CliError::Input("--samples: must be >= 1 (got 0)".into())),
        Some(s) => s,
    };
    let (chain, name) = chaotic_chain(c)?;
    let opts = chaotic_options(c)?;
    // The library's own checks (conservative chain, energies above the hanging rest) on no
    // work at all, so a refusal comes before any output path is prepared.
    pendula::analysis::measure::chaotic::shell_samples(&chain, c.energies[0], 0, a.seed)
        .map_err(chaotic_refused)?;
    for &e in &c.energies[1..] {
        pendula::analysis::measure::chaotic::shell_samples(&chain, e, 0, a.seed)
            .map_err(chaotic_refused)?;
    }
    let (file, plot) = (&a.common.output, &a.common.plot);
    if let Some(p) = file {
        super::output::check_result_path(p, "-o")?;
    }
    if let Some(p) = plot {
        super::output::check_figure_path(p, "--plot")?;
    }
    for (flag, p) in [("-o", file), ("--plot", plot)] {
        if let Some(p) = p {
            super::output::prepare_path(p, a.common.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    let start = Instant::now();
    let rows =
        chaotic_fraction(&chain, &c.energies, samples, a.seed, &opts).map_err(chaotic_refused)?;
    let wall = start.elapsed().as_secs_f64();
    let title = format!(
        "Chaotic fraction of the energy shells, model {name}, {} links (t_end = {} s)",
        chain.links(),
        opts.indicators.time
    );
    let run = ChaoticRun {
        model: name,
        links: chain.links(),
        samples,
        seed: a.seed,
        options: opts,
    };
    if let Some(path) = file {
        let prov = Provenance::now(command_line, "");
        store::write_file(path, a.common.force, &prov, &title, |out| {
            store::write_chaotic_fraction(out, &run, &rows)
        })?;
    }
    if let Some(path) = plot {
        let fig = pendula::plot::MeasureFigure::chaotic_fraction(&title, &rows);
        pendula::plot::draw_measure(&fig, path)?;
    }
    if a.common.json {
        println!(
            "{}",
            chaotic_json(&title, &run, &rows, file.as_deref(), plot.as_deref(), wall)
        );
    } else {
        print!("{}", chaotic_table(&run, &rows, wall));
    }
    Ok(())
}

fn chaotic_json(
    title: &str,
    run: &ChaoticRun,
    rows: &[ShellFraction],
    file: Option<&Path>,
    plot: Option<&Path>,
    wall: f64,
) -> serde_json::Value {
    let o = &run.options;
    json!({
        "kind": "measure",
        "what": "chaotic-fraction",
        "title": title,
        "model": run.model,
        "links": run.links,
        "samples": run.samples,
        "seed": run.seed,
        "t_end": o.indicators.time,
        "dt": run.dt(),
        "tau": o.indicators.tau,
        "integrator": o.method.name(),
        "deviation_vectors": o.indicators.k,
        "sali_chaotic": SALI_CHAOTIC,
        "sali_regular": SALI_REGULAR,
        "sampling": store::CHAOTIC_SAMPLING,
        "rows": rows.iter().map(|r| json!({
            "energy": r.energy,
            "chaotic": r.chaotic,
            "regular": r.regular,
            "undecided": r.undecided,
            "failed": r.failed,
            "fraction": f64_json(r.fraction),
            "wilson": pair(r.wilson),
            "proposals": r.proposals,
        })).collect::<Vec<_>>(),
        "wall_s": wall,
        "threads": rayon::current_num_threads(),
        "output": file.map(|p| p.display().to_string()),
        "plot": plot.map(|p| p.display().to_string()),
    })
}

fn chaotic_table(run: &ChaoticRun, rows: &[ShellFraction], wall: f64) -> String {
    use std::fmt::Write;
    let o = &run.options;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "chaotic fraction of the energy shells, model {} ({} links): {} Liouville-uniform starts per shell, SALI to t_end = {} s (rk4 dt = {} s, tau = {} s), seed {}",
        run.model, run.links, run.samples, o.indicators.time, run.dt(), o.indicators.tau, run.seed
    );
    let _ = writeln!(
        s,
        "  {:>10}  {:>7}  {:>7}  {:>9}  {:>6}  {:>8}  {:>17}",
        "E / J", "chaotic", "regular", "undecided", "failed", "fraction", "Wilson 95 %"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "  {:>10}  {:>7}  {:>7}  {:>9}  {:>6}  {:>8.3}  [{:.3}, {:.3}]",
            r.energy,
            r.chaotic,
            r.regular,
            r.undecided,
            r.failed,
            r.fraction,
            r.wilson.0,
            r.wilson.1
        );
    }
    let _ = writeln!(s, "measured in {wall:.2} s");
    s
}
