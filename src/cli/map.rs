//! `pendula map`, `pendula merge`, `pendula render` and `pendula bench flip`.
//!
//! A map run keeps finished tiles in the checkpoint `OUT.h5.tiles/` and assembles `OUT.h5`
//! at the end (see `store::map` for why); `--resume` continues a killed or interrupted run,
//! `--shard i/n` computes every n-th tile into its own file, `merge` joins shard files. The runs
//! are the map kind's ([`pendula::kinds::map`]); this file translates the flags into them.

use super::output::{planar, CliError, Common};
use super::progress::Bar;
use clap::Args;
use pendula::kinds::{
    self,
    map::{Merge, Stream, StreamError, Target},
};
use pendula::spec::Spec;
use std::path::PathBuf;

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
        let text = e.render(&super::flags::spell);
        match e {
            StreamError::Refused(_) | StreamError::Store { refused: true, .. } => {
                CliError::Input(text)
            }
            StreamError::Field(e) => CliError::Field(e),
            StreamError::Failed(_) | StreamError::Store { .. } => CliError::Run(text),
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
    let ran = pendula::plot::labels::with_labels(spec.output.labels(), || {
        stream.run(&target, command_line, || Bar::new("map"))
    });
    if let Some(v) = ran? {
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

pub fn merge_command(a: &MergeArgs, command_line: &str) -> Result<(), CliError> {
    let out = a
        .common
        .output
        .clone()
        .ok_or_else(|| CliError::Input("-o: give the merged map file -o OUT.h5".into()))?;
    check_plot_path(&a.common.plot, a.common.force, "--plot")?;
    // merge takes the common flags: --threads is bounded here as everywhere.
    super::output::set_threads(a.common.threads)?;
    let merge = Merge {
        inputs: &a.inputs,
        out: &out,
        plot: a.common.plot.as_deref(),
        budget: a.common.budget().bytes,
        force: a.common.force,
        json: a.common.json,
    };
    if let Some(v) = kinds::map::merge(&merge, command_line, &mut |w| eprintln!("{w}"))? {
        println!("{v}");
    }
    Ok(())
}

pub fn render_command(a: &RenderArgs) -> Result<(), CliError> {
    super::output::check_figure_path(&a.output, "-o")?;
    let (show, cmap) = (a.show.as_deref(), a.cmap.as_deref());
    let warn = &mut |w: &str| eprintln!("{w}");
    Ok(kinds::map::render(
        &a.input, &a.output, show, cmap, a.force, warn,
    )?)
}
