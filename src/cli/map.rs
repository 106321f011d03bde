//! `pendula map`, `pendula merge`, `pendula render` and `pendula bench flip`.
//!
//! A map run keeps finished tiles in the checkpoint `OUT.h5.tiles/` and assembles `OUT.h5`
//! at the end (see `store::map` for why); `--resume` continues a killed or interrupted run,
//! `--shard i/n` computes every n-th tile into its own file, `merge` joins shard files.

use super::output::{planar, CliError, Common};
use super::progress::Bar;
use clap::Args;
use pendula::analysis::map::{self, MapOptions};
use pendula::plot::map::{draw_map_data, ColourMap, Show, COLOUR_MAPS};
use pendula::spec::{self, Analysis, Spec};
use pendula::store::map::{write_map, Assembly, MapInfo, MapPlan, MapReader, RunPlan};
use pendula::store::{self, Provenance};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

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

fn map_options(spec: &Spec) -> &MapOptions {
    match &spec.analysis {
        Analysis::Map(o) => o,
        _ => unreachable!("run_map is only called for map specs"),
    }
}

fn info_of(spec: &Spec, shard: Option<(usize, usize)>) -> Result<MapInfo, CliError> {
    let (chain, opts) = (planar(spec)?, map_options(spec));
    let title = pendula::spec::map_title(spec, chain, opts);
    Ok(MapInfo::of(
        title,
        &spec.model_name,
        &spec.text,
        chain,
        opts,
        shard,
    ))
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

/// `--dry-run`: what the run would compute and write, without computing it.
fn dry_run(
    spec: &Spec,
    chain: &pendula::model::Chain,
    tiles: &[usize],
    info: &MapInfo,
    shard: Option<(usize, usize)>,
    json: bool,
) {
    let opts = map_options(spec);
    let (w, h) = (opts.grid.width, opts.grid.height);
    let e = map::estimate(chain, opts, tiles);
    // What the run (this shard) holds at once; the map itself streams to disk.
    let memory = spec.memory_estimate_for(shard).bytes;
    let v = json!({
        "kind": "map", "dry_run": true, "map": opts.kind.name(),
        "width": w, "height": h, "tile": opts.tile, "tiles": e.tiles,
        "tiles_total": opts.tiling().count(), "pixels": e.pixels,
        "energy_skip": opts.energy_skip, "forbidden_skipped": e.forbidden_skipped,
        "n_steps": opts.n_steps(), "max_rk4_steps": e.max_rk4_steps,
        "output_bytes_uncompressed": e.output_bytes, "kernel": e.kernel,
        "threads": rayon::current_num_threads(), "spec_hash": info.spec_hash,
        "memory_bytes": memory,
    });
    if json {
        println!("{v}");
    } else {
        println!(
            "{} map {w}x{h}: {} pixels in {} tiles, {} skipped as forbidden, at most {:.3e} RK4 steps ({} kernel), output ≤ {:.1} MiB uncompressed, memory ~{}",
            opts.kind.name(), e.pixels, e.tiles, e.forbidden_skipped, e.max_rk4_steps as f64,
            e.kernel, e.output_bytes as f64 / (1u64 << 20) as f64, spec::format_bytes(memory)
        );
    }
}

/// A finished map run, as `--json` reports it.
struct Finished<'a> {
    spec: &'a Spec,
    info: &'a MapInfo,
    shard: Option<(usize, usize)>,
    /// Tiles of this run (its shard's).
    tiles: usize,
    resumed: usize,
    summary: &'a map::RunSummary,
    written: &'a store::map::MapSummary,
    wall: f64,
    /// Seconds spent writing the map file from the checkpoint.
    assembly: f64,
    out: &'a Path,
    plot: Option<&'a Path>,
}

impl Finished<'_> {
    fn json(
        &self,
        chain: &pendula::model::Chain,
        opts: &MapOptions,
    ) -> Result<serde_json::Value, CliError> {
        let (w, h) = (opts.grid.width, opts.grid.height);
        let mut v = json!({
            "kind": "map",
            "map": opts.kind.name(),
            "title": self.info.title,
            "model": self.spec.model_name,
            "width": w, "height": h, "tile": opts.tile,
            "tiles": self.tiles, "tiles_total": opts.tiling().count(),
            "tiles_computed": self.summary.tiles_done, "tiles_resumed": self.resumed,
            "complete": self.written.complete,
            "shard": self.shard.map(|(i, n)| format!("{i}/{n}")),
            "t_max": opts.t_max, "dt": opts.dt, "n_steps": opts.n_steps(),
            "energy_skip": opts.energy_skip, "kernel": opts.kernel_name(chain),
            "steps_this_run": self.summary.steps, "steps_total": self.written.steps,
            "wall_s": self.wall, "assembly_s": self.assembly, "steps_per_s": self.summary.steps as f64 / self.wall.max(1e-12),
            "threads": rayon::current_num_threads(),
            "spec_hash": self.info.spec_hash,
            "output": self.out.display().to_string(),
            "plot": self.plot.map(|p| p.display().to_string()),
        });
        if let Some(f) = &self.written.flip {
            v["checksum"] = json!({
                "n_flipped": f.n_flipped, "sum_flip_steps": f.sum_flip_steps,
                "sum_flip_time": f.sum_flip_time,
                "fnv1a64": if self.written.complete { Some(&f.fnv1a64) } else { None },
            });
            v["n_forbidden"] = json!(f.n_forbidden);
            v["n_forbidden_flipped"] = json!(f.n_forbidden_flipped);
            v["n_diverged"] = json!(f.n_diverged);
        }
        if let Some((lo, hi)) = self.written.value_range {
            v["value_min"] = json!(lo);
            v["value_max"] = json!(hi);
        }
        if self.written.complete && map::point_symmetric(chain, opts) {
            let start = Instant::now();
            let r = MapReader::open(self.out)?;
            let (pairs, matched) = r.symmetry()?;
            v["point_symmetry"] = json!({"pairs": pairs, "matched": matched,
                "seconds": start.elapsed().as_secs_f64()});
        }
        if self.written.flip.is_none() {
            v["class_counts"] = self
                .written
                .class_counts
                .iter()
                .map(|(w, c)| (w.clone(), json!(c)))
                .collect::<serde_json::Map<_, _>>()
                .into();
        }
        Ok(v)
    }
}

/// Runs a validated map spec: checkpoint, tiles, assembly, figure, summary.
pub fn run_map(
    spec: &Spec,
    common: &Common,
    run: &RunFlags,
    command_line: &str,
) -> Result<(), CliError> {
    let opts = map_options(spec);
    let chain = planar(spec)?;
    super::output::set_threads(common.threads)?;
    let tiling = opts.tiling();
    let tiles: Vec<usize> = match run.shard {
        Some((i, n)) => tiling.shard(i, n),
        None => (0..tiling.count()).collect(),
    };
    let info = info_of(spec, run.shard)?;
    if run.dry_run {
        dry_run(spec, chain, &tiles, &info, run.shard, common.json);
        return Ok(());
    }
    let paths = MapPaths::of(spec, common, run)?;
    let mut plan = match paths.prepare(&info, tiles, common, run)? {
        MapPlan::AlreadyComplete(r) => return paths.already_complete(&r, common.json),
        MapPlan::Run(plan) => plan,
    };
    let resumed = plan.resumed;
    let start = Instant::now();
    let summary = compute_tiles(chain, opts, &mut plan)?;
    let wall = start.elapsed().as_secs_f64();
    let n_tiles = plan.tiles.len();
    if summary.stopped {
        return Err(CliError::Run(format!(
            "interrupted: {} of {n_tiles} tiles are in {}; rerun the same command with --resume to finish",
            plan.done(),
            plan.checkpoint.dir().display()
        )));
    }
    let MapPaths { out, plot, .. } = &paths;
    let prov = Provenance::now(command_line, &spec.text);
    let assembly_start = Instant::now();
    let written = plan.assemble(out, chain, &info, &prov)?;
    let assembly = assembly_start.elapsed().as_secs_f64();
    if let Some(p) = plot {
        let r = MapReader::open(out)?;
        render_file(&r, p)?;
    }
    if common.json {
        let finished = Finished {
            spec,
            info: &info,
            shard: run.shard,
            tiles: n_tiles,
            resumed,
            summary: &summary,
            written: &written,
            wall,
            assembly,
            out,
            plot: plot.as_deref(),
        };
        println!("{}", finished.json(chain, opts)?);
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

    /// Plans the run of `tiles` into the checkpoint beside the map file, a store error named
    /// by the flag that fixes it (the figure's, when the map file was derived from it).
    fn prepare(
        &self,
        info: &MapInfo,
        tiles: Vec<usize>,
        common: &Common,
        run: &RunFlags,
    ) -> Result<MapPlan, CliError> {
        let out = &self.out;
        store::map::prepare_run(out, info, tiles, run.resume, common.force).map_err(|e| {
            let text = e.render(&super::flags::spell);
            match e.flag() {
                Some("-o") if self.derived => CliError::Input(format!(
                    "--plot (map file {} derived from it): {text}",
                    out.display()
                )),
                Some(flag) => CliError::Input(format!("{flag}: {text}")),
                None => CliError::Run(text),
            }
        })
    }

    /// A finished run asked to resume (a requeued job): nothing to compute; the figure is drawn
    /// from the file and the JSON says so.
    fn already_complete(&self, r: &MapReader, json: bool) -> Result<(), CliError> {
        if let Some(p) = &self.plot {
            render_file(r, p)?;
        }
        if json {
            println!(
                "{}",
                json!({"kind": "map", "output": self.out.display().to_string(), "already_complete": true})
            );
        }
        Ok(())
    }
}

/// Computes the plan's tiles still to do, each written to the checkpoint as it finishes; an
/// error says where the finished tiles are kept.
fn compute_tiles(
    chain: &pendula::model::Chain,
    opts: &MapOptions,
    plan: &mut RunPlan,
) -> Result<map::RunSummary, CliError> {
    let ckpt_dir = plan.checkpoint.dir().to_path_buf();
    let todo = std::mem::take(&mut plan.todo);
    let mut bar = Bar::new("map");
    let (ckpt, have) = (&plan.checkpoint, &mut plan.have);
    map::run_tiles(chain, opts, &todo, &mut bar, &mut |t| {
        let index = t.index;
        ckpt.write_tile(&t).map_err(|e| e.to_string())?;
        have[index] = true;
        Ok(())
    })
    .map_err(|e| {
        CliError::Run(format!(
            "{e}; the finished tiles are kept in {}, rerun with --resume",
            ckpt_dir.display()
        ))
    })
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
            .map_err(|e| CliError::Input(format!("merge: {}", e.render(&super::flags::spell))))?;
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
    let mut info = info_of(&spec, None)?;
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
        let r = MapReader::open(&out)?;
        render_file(&r, p)?;
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
    let r = MapReader::open(&a.input)
        .map_err(|e| CliError::Input(format!("render: {}", e.render(&super::flags::spell))))?;
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

/// Draws a map file's default figure.
fn render_file(r: &MapReader, path: &Path) -> Result<(), CliError> {
    let data = r.read_for_figure()?;
    Ok(draw_map_data(&r.header, &data, Show::Default, None, path)?)
}
