//! `pendula map`, `pendula merge`, `pendula render` and `pendula bench flip`.
//!
//! A map run keeps finished tiles in the checkpoint `OUT.h5.tiles/` and assembles `OUT.h5`
//! at the end (see `store::map` for why); `--resume` continues a killed or interrupted run,
//! `--shard i/n` computes every n-th tile into its own file, `merge` joins shard files. The run
//! is the map kind's ([`pendula::kinds::map::stream`]); this file translates the flags.

use super::output::{planar, CliError, Common};
use super::progress::Bar;
use clap::Args;
use pendula::kinds::{
    self,
    map::{Stream, StreamError, Target},
};
use pendula::plot::map::{draw_map_data, ColourMap, Show, COLOUR_MAPS};
use pendula::spec::{self, Spec};
use pendula::store::map::{write_map, Assembly, MapReader};
use pendula::store::Provenance;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard files of one map (`pendula map --shard i/n`).
    #[arg(required = true, value_name = "SHARD.h5")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A map file written by `pendula map` or `pendula merge`.
    pub input: PathBuf,
    /// The figure (.png or .svg).
    #[arg(short = 'o', long = "output", value_name = "FILE.png|svg")]
    pub output: PathBuf,
    /// Overwrite an existing figure.
    #[arg(long)]
    pub force: bool,
    /// What to draw: the map's main variable (default), or for final-state maps `basins`
    /// (default), `settle_time` or `final_angle<j>`.
    #[arg(long, value_name = "VARIABLE")]
    pub show: Option<String>,
    /// Colour map: viridis, magma, cividis or cyclic (default: by variable; cyclic for angles).
    #[arg(long, value_name = "NAME")]
    pub cmap: Option<String>,
}

/// What `map --help` says after the flags: where the map is written, and what an interrupted
/// run leaves on disk.
const MAP_HELP: &str = "\
The map file: -o FILE.h5, else the spec's [output] file, else the --plot figure's path with .h5
(--plot m.png writes m.h5 beside it), refused like -o if it exists (pass -o or --force). A map
always has its file: it is what render and merge read, and its checkpoint lives beside it.

Interrupting: each finished tile is kept in FILE.h5.tiles/ as it completes; FILE.h5 is written
(as FILE.h5.partial, renamed when complete) only once every tile is done. Ctrl-C finishes the
tiles in flight, keeps them there and exits 1, with no FILE.h5 and no .partial; a SIGTERM or
kill -9 loses at most the tiles in flight. Rerun the same command with --resume: it computes only
the missing tiles, and the file is bit-identical to an uninterrupted run's. --resume on a finished
file of the same spec and shard does nothing (exit 0); another spec or shard is refused (exit 2).";

/// `i/n` with 1 ≤ i ≤ n.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected i/n with 1 <= i <= n (got `{s}`)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if n == 0 || i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Run-control flags of `map` (not part of the spec).
#[derive(Debug, Clone, Default, Args)]
#[command(after_help = MAP_HELP)]
pub struct RunFlags {
    /// Continue a killed or interrupted run from its checkpoint (OUT.h5.tiles/).
    #[arg(long)]
    pub resume: bool,
    /// Compute only shard i of n (every n-th tile) into its own file; join with `merge`.
    #[arg(long, value_name = "i/n", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Print what the run would cost (pixels, RK4 steps, output size) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// A map run's failure as the CLI says it: a refusal before any work exit 2, a failed or
/// interrupted run exit 1.
impl From<StreamError> for CliError {
    fn from(e: StreamError) -> Self {
        match e {
            StreamError::Refused(m) => CliError::Input(m),
            StreamError::Failed(m) => CliError::Run(m),
        }
    }
}

/// `flag` names where the path came from: `--plot`, or the spec's `output.plot`.
fn check_plot_path(plot: &Option<PathBuf>, overwrite: bool, flag: &str) -> Result<(), CliError> {
    if let Some(p) = plot {
        super::output::check_figure_path(p, flag)?;
        super::output::prepare_path(p, overwrite)
            .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
    }
    Ok(())
}

/// Runs a validated map spec ([`Stream`]): checkpoint, tiles, assembly, figure, summary.
pub fn run_map(
    spec: &Spec,
    common: &Common,
    run: &RunFlags,
    command_line: &str,
) -> Result<(), CliError> {
    let chain = planar(spec)?;
    super::output::set_threads(common.threads)?;
    let stream = Stream::new(spec, chain, run.shard);
    if run.dry_run {
        println!("{}", stream.dry_run(common.json));
        return Ok(());
    }
    let paths = MapPaths::of(spec, common, run)?;
    let target = Target {
        out: &paths.out,
        plot: paths.plot.as_deref(),
        derived: paths.derived,
        resume: run.resume,
        force: common.force,
        json: common.json,
    };
    if let Some(v) = stream.run(&target, command_line, || Bar::new("map"))? {
        println!("{v}");
    }
    Ok(())
}

/// Where a map run writes: its file and its figure.
struct MapPaths {
    /// The map file: `-o`, else `output.file`, else the figure's path with `.h5`.
    out: PathBuf,
    /// The figure: `--plot`, else `output.plot`.
    plot: Option<PathBuf>,
    /// Whether `out` was derived from the figure's path (no `-o` given).
    derived: bool,
}

impl MapPaths {
    /// The paths of a run, checked: a map always has its file (the checkpoint's anchor, what
    /// render and merge read), so without -o it is the figure's path with `.h5`, which must not
    /// exist unless forced or resumed; the figure's path must be free likewise.
    fn of(spec: &Spec, common: &Common, run: &RunFlags) -> Result<MapPaths, CliError> {
        let plot = common.plot.clone().or_else(|| spec.output.plot.clone());
        let given = common.output.clone().or_else(|| spec.output.file.clone());
        let derived = given.is_none();
        let out = match (given, &plot) {
            (Some(o), _) => o,
            (None, Some(p)) => p.with_extension("h5"),
            (None, None) => {
                return Err(CliError::Input(
                    "-o: a map needs an output file FILE.h5 (its checkpoint lives beside it), or --plot FIG.png to write FIG.h5 beside the figure".into(),
                ))
            }
        };
        if derived && out.exists() && !common.force && !run.resume {
            return Err(CliError::Input(format!(
                "--plot: the map file {} (the figure's path with .h5, as no -o was given) already exists; pass -o FILE.h5 to write another, or --force to overwrite it",
                out.display()
            )));
        }
        let plot_flag = if common.plot.is_some() {
            "--plot"
        } else {
            "output.plot"
        };
        check_plot_path(&plot, common.force || run.resume, plot_flag)?;
        Ok(MapPaths { out, plot, derived })
    }
}

/// Rebuilds the validated spec stored in a map file (root attribute `spec`).
fn spec_of_file(path: &Path) -> Result<Spec, CliError> {
    let file = hdf5::File::open(path)
        .map_err(|e| CliError::Input(format!("cannot open {}: {e}", path.display())))?;
    let text = file
        .attr("spec")
        .and_then(|a| a.read_scalar::<hdf5::types::VarLenUnicode>())
        .map_err(|e| CliError::Input(format!("{}: no spec attribute ({e})", path.display())))?;
    let sf = spec::parse(text.as_str(), &path.display().to_string())?;
    Ok(sf.validate()?)
}

pub fn merge_command(a: &MergeArgs, command_line: &str) -> Result<(), CliError> {
    let out = a
        .common
        .output
        .clone()
        .ok_or_else(|| CliError::Input("-o: give the merged map file -o OUT.h5".into()))?;
    check_plot_path(&a.common.plot, a.common.force, "--plot")?;
    // merge takes the common flags: --threads is bounded here as everywhere.
    super::output::set_threads(a.common.threads)?;
    let mut readers = Vec::new();
    for p in &a.inputs {
        let r = MapReader::open_within(p, a.common.budget().bytes)
            .map_err(|e| CliError::Input(format!("merge: {e}")))?;
        readers.push(r);
    }
    for r in &readers {
        if let Some(w) = r.warning() {
            eprintln!("{w}");
        }
    }
    let first = &readers[0].header;
    for (r, p) in readers.iter().zip(&a.inputs).skip(1) {
        if r.header.spec_hash != first.spec_hash {
            return Err(CliError::Input(format!(
                "merge: {} (spec hash {}) is not a shard of the same map as {} (spec hash {})",
                p.display(),
                r.header.spec_hash,
                a.inputs[0].display(),
                first.spec_hash
            )));
        }
    }
    let count = first.tile_done.len();
    let mut owner: Vec<Option<usize>> = vec![None; count];
    for (f, r) in readers.iter().enumerate() {
        for (t, &d) in r.header.tile_done.iter().enumerate() {
            if !d {
                continue;
            }
            if let Some(g) = owner[t] {
                return Err(CliError::Input(format!(
                    "merge: tile {t} is in both {} and {} (duplicate or overlapping shards)",
                    a.inputs[g].display(),
                    a.inputs[f].display()
                )));
            }
            owner[t] = Some(f);
        }
    }
    let missing: Vec<usize> = (0..count).filter(|&t| owner[t].is_none()).collect();
    if let Some(&t) = missing.first() {
        let shards: Vec<String> = readers
            .iter()
            .map(|r| {
                r.header
                    .shard
                    .map(|(i, n)| format!("{i}/{n}"))
                    .unwrap_or_else(|| "whole".into())
            })
            .collect();
        return Err(CliError::Input(format!(
            "merge: incomplete: {} of {count} tiles missing (first: tile {t}); shards given: {}",
            missing.len(),
            shards.join(", ")
        )));
    }
    let spec = spec_of_file(&a.inputs[0])?;
    let mut info = kinds::map::info(&spec, planar(&spec)?, None);
    if info.spec_hash != first.spec_hash {
        return Err(CliError::Input(format!(
            "merge: {} was written by another pendula version (spec hash {} here, {} in the file)",
            a.inputs[0].display(),
            info.spec_hash,
            first.spec_hash
        )));
    }
    info.title = first.title.clone();
    super::output::prepare_path(&out, a.common.force)
        .map_err(|m| CliError::Input(format!("-o: {m}")))?;
    let prov = Provenance::now(command_line, &spec.text);
    let have = vec![true; count];
    let mut source = |t: usize| readers[owner[t].expect("checked complete")].read_tile(t);
    let assembly = Assembly {
        chain: planar(&spec)?,
        info: &info,
        have: &have,
        source: &mut source,
        prov: &prov,
    };
    let written = write_map(&out, a.common.force, assembly)?;
    if let Some(p) = &a.common.plot {
        kinds::map::draw(&out, p)?;
    }
    if a.common.json {
        let mut v = json!({
            "kind": "merge", "inputs": a.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "output": out.display().to_string(), "tiles": count, "complete": written.complete,
            "steps_total": written.steps, "spec_hash": info.spec_hash,
        });
        if let Some(f) = &written.flip {
            v["checksum"] = json!({"n_flipped": f.n_flipped, "sum_flip_steps": f.sum_flip_steps,
                "sum_flip_time": f.sum_flip_time, "fnv1a64": f.fnv1a64});
            v["n_forbidden"] = json!(f.n_forbidden);
            v["n_forbidden_flipped"] = json!(f.n_forbidden_flipped);
        }
        println!("{v}");
    }
    Ok(())
}

pub fn render_command(a: &RenderArgs) -> Result<(), CliError> {
    super::output::check_figure_path(&a.output, "-o")?;
    let cmap = a
        .cmap
        .as_deref()
        .map(|c| {
            ColourMap::parse(c).ok_or_else(|| {
                CliError::Input(format!(
                    "--cmap: unknown colour map `{c}` (expected {})",
                    COLOUR_MAPS.join(", ")
                ))
            })
        })
        .transpose()?;
    let r = MapReader::open(&a.input).map_err(|e| CliError::Input(format!("render: {e}")))?;
    if let Some(w) = r.warning() {
        eprintln!("{w}");
    }
    let show = Show::parse(a.show.as_deref(), &r.header)
        .map_err(|e| CliError::Input(format!("--show: {e}")))?;
    super::output::prepare_path(&a.output, a.force)
        .map_err(|m| CliError::Input(format!("-o: {m}")))?;
    let data = r.read_for_figure()?;
    Ok(draw_map_data(&r.header, &data, show, cmap, &a.output)?)
}
