//! The map run that streams each finished tile to its checkpoint on disk (`pendula map`, and
//! `pendula run` on a map spec): the checkpoint `OUT.h5.tiles/` beside the map file, `--resume`
//! of a killed or interrupted run, `--shard i/n`, then the file's assembly and its figure (see
//! [`crate::store::map`] for why). The front end translates its flags into a [`Stream`] and a
//! [`Target`], makes the progress observer and prints what the run returns.

use crate::analysis::map::{estimate, point_symmetric, run_tiles, MapOptions, RunSummary};
use crate::error::FieldError;
use crate::model::Chain;
use crate::observe::Observer;
use crate::plot::map::{draw_map_data, Show};
use crate::plot::PlotError;
use crate::spec::{format_bytes, Spec};
use crate::store::map::{prepare_run, MapInfo, MapPlan, MapReader, MapSummary, PlanError, RunPlan};
use crate::store::{Provenance, StoreError};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Why a streamed map run wrote no map.
#[derive(Debug)]
pub enum StreamError {
    /// Refused before any work, in the words of the flag that fixes it (bad input).
    Refused(String),
    /// Bad input about a field of a spec (the one a map file holds), spelled by the front end.
    Field(FieldError),
    /// Failed or interrupted while running; the finished tiles stay in the checkpoint.
    Failed(String),
    /// A map file or checkpoint that could not be read or written, after `prefix` (the flag or
    /// command it belongs to): bad input when `refused`, else a failed run. The store's error
    /// keeps the fields it names as data (the memory budget), for the front end to spell.
    Store {
        prefix: String,
        error: Box<dyn Spelled>,
        refused: bool,
    },
}

/// A store error whose message names fields as data, spelled by the front end.
pub trait Spelled: std::fmt::Debug + Send + Sync {
    /// The message with the fields it names spelled by `name`.
    fn render(&self, name: &dyn Fn(&str) -> String) -> String;
}

impl Spelled for StoreError {
    fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        StoreError::render(self, name)
    }
}

impl Spelled for PlanError {
    fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        PlanError::render(self, name)
    }
}

impl StreamError {
    /// The store's `error` as bad input, after `prefix`.
    pub fn refused(prefix: impl Into<String>, error: impl Spelled + 'static) -> StreamError {
        StreamError::Store {
            prefix: prefix.into(),
            error: Box::new(error),
            refused: true,
        }
    }

    /// The message with the fields it names spelled by `name`.
    pub fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            StreamError::Refused(m) | StreamError::Failed(m) => m.clone(),
            StreamError::Field(e) => e.render(name),
            StreamError::Store { prefix, error, .. } => format!("{prefix}{}", error.render(name)),
        }
    }
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(&|s| s.to_string()))
    }
}

impl From<FieldError> for StreamError {
    fn from(e: FieldError) -> Self {
        StreamError::Field(e)
    }
}

impl From<StoreError> for StreamError {
    fn from(e: StoreError) -> Self {
        StreamError::Store {
            prefix: String::new(),
            error: Box::new(e),
            refused: false,
        }
    }
}

impl From<PlotError> for StreamError {
    fn from(e: PlotError) -> Self {
        StreamError::Failed(e.to_string())
    }
}

/// A map run of a validated map spec: this run's tiles (a shard's, or all) and the file's
/// self-description.
pub struct Stream<'a> {
    spec: &'a Spec,
    chain: &'a Chain,
    opts: &'a MapOptions,
    shard: Option<(usize, usize)>,
    tiles: Vec<usize>,
    info: MapInfo,
}

/// Where and how a map run writes: its file and its figure (checked by the front end), and
/// its run-control flags.
pub struct Target<'a> {
    /// The map file (its checkpoint lives beside it).
    pub out: &'a Path,
    /// The figure, if any.
    pub plot: Option<&'a Path>,
    /// Whether `out` was derived from the figure's path (no `-o` given): a refusal of it then
    /// names `--plot`.
    pub derived: bool,
    /// Continue the checkpoint (or accept a finished file of the same map).
    pub resume: bool,
    /// Start over.
    pub force: bool,
    /// Return the run's JSON summary.
    pub json: bool,
}

impl<'a> Stream<'a> {
    /// The run of the map spec `spec` on `chain`, of shard `(i, n)` or of the whole map.
    pub fn new(spec: &'a Spec, chain: &'a Chain, shard: Option<(usize, usize)>) -> Stream<'a> {
        let opts = super::of_map_spec(spec);
        let tiling = opts.tiling();
        let tiles: Vec<usize> = match shard {
            Some((i, n)) => tiling.shard(i, n),
            None => (0..tiling.count()).collect(),
        };
        let info = super::info(spec, chain, shard);
        Stream {
            spec,
            chain,
            opts,
            shard,
            tiles,
            info,
        }
    }

    /// `--dry-run`: what the run would compute and write, without computing it: one JSON line
    /// (`json`) or one line of text.
    pub fn dry_run(&self, json: bool) -> String {
        let (spec, opts) = (self.spec, self.opts);
        let (w, h) = (opts.grid.width, opts.grid.height);
        let e = estimate(self.chain, opts, &self.tiles);
        // What the run (this shard) holds at once; the map itself streams to disk.
        let memory = spec.memory_estimate_for(self.shard).bytes;
        let v = json!({
            "kind": "map", "dry_run": true, "map": opts.kind.name(),
            "width": w, "height": h, "tile": opts.tile, "tiles": e.tiles,
            "tiles_total": opts.tiling().count(), "pixels": e.pixels,
            "energy_skip": opts.energy_skip, "forbidden_skipped": e.forbidden_skipped,
            "n_steps": opts.n_steps(), "max_rk4_steps": e.max_rk4_steps, "stepper": opts.kind.id().stepper(),
            "output_bytes_uncompressed": e.output_bytes, "kernel": e.kernel,
            "threads": rayon::current_num_threads(), "spec_hash": self.info.spec_hash,
            "memory_bytes": memory,
        });
        if json {
            v.to_string()
        } else {
            format!(
                "{} map {w}x{h}: {} pixels in {} tiles, {} skipped as forbidden, at most {:.3e} {} steps ({} kernel), output ≤ {:.1} MiB uncompressed, memory ~{}",
                opts.kind.name(), e.pixels, e.tiles, e.forbidden_skipped, e.max_rk4_steps as f64, opts.kind.id().stepper(),
                e.kernel, e.output_bytes as f64 / (1u64 << 20) as f64, format_bytes(memory)
            )
        }
    }

    /// Runs it into `target`: plans the checkpoint, computes the tiles still missing (each
    /// stored as it finishes, reported to the observer `observe` makes then), assembles the map
    /// file and draws its figure. Returns the JSON summary when `target.json` asks for it.
    pub fn run<O: Observer>(
        self,
        target: &Target<'_>,
        command_line: &str,
        observe: impl FnOnce() -> O,
    ) -> Result<Option<serde_json::Value>, StreamError> {
        let out = target.out;
        let tiles = self.tiles.clone();
        let mut plan = match prepare(&self.info, tiles, target)? {
            MapPlan::AlreadyComplete(r) => return already_complete(&r, target),
            MapPlan::Run(plan) => plan,
        };
        let resumed = plan.resumed;
        let start = Instant::now();
        let summary = compute_tiles(self.chain, self.opts, &mut plan, observe())?;
        let wall = start.elapsed().as_secs_f64();
        let n_tiles = plan.tiles.len();
        if summary.stopped {
            return Err(StreamError::Failed(format!(
                "interrupted: {} of {n_tiles} tiles are in {}; rerun the same command with --resume to finish",
                plan.done(),
                plan.checkpoint.dir().display()
            )));
        }
        let prov = Provenance::now(command_line, &self.spec.text);
        let assembly_start = Instant::now();
        let written = plan.assemble(out, self.chain, &self.info, &prov)?;
        let assembly = assembly_start.elapsed().as_secs_f64();
        if let Some(p) = target.plot {
            draw(out, p)?;
        }
        if !target.json {
            return Ok(None);
        }
        let finished = Finished {
            run: &self,
            tiles: n_tiles,
            resumed,
            summary: &summary,
            written: &written,
            wall,
            assembly,
            target,
        };
        Ok(Some(finished.json()?))
    }
}

/// Plans the run of `tiles` into the checkpoint beside the map file, a store error named by
/// the flag that fixes it (the figure's, when the map file was derived from it).
fn prepare(info: &MapInfo, tiles: Vec<usize>, target: &Target<'_>) -> Result<MapPlan, StreamError> {
    let out = target.out;
    prepare_run(out, info, tiles, target.resume, target.force).map_err(|e| match e.flag() {
        Some("-o") if target.derived => StreamError::refused(
            format!("--plot (map file {} derived from it): ", out.display()),
            e,
        ),
        Some(flag) => StreamError::refused(format!("{flag}: "), e),
        None => StreamError::Store {
            prefix: String::new(),
            error: Box::new(e),
            refused: false,
        },
    })
}

/// A finished run asked to resume (a requeued job): nothing to compute; the figure is drawn
/// from the file and the JSON says so.
fn already_complete(
    r: &MapReader,
    target: &Target<'_>,
) -> Result<Option<serde_json::Value>, StreamError> {
    if let Some(p) = target.plot {
        draw_reader(r, p)?;
    }
    Ok(target.json.then(|| {
        json!({"kind": "map", "output": target.out.display().to_string(), "already_complete": true})
    }))
}

/// Computes the plan's tiles still to do, each written to the checkpoint as it finishes; an
/// error says where the finished tiles are kept.
fn compute_tiles(
    chain: &Chain,
    opts: &MapOptions,
    plan: &mut RunPlan,
    mut observer: impl Observer,
) -> Result<RunSummary, StreamError> {
    let ckpt_dir = plan.checkpoint.dir().to_path_buf();
    let todo = std::mem::take(&mut plan.todo);
    let (ckpt, have) = (&plan.checkpoint, &mut plan.have);
    run_tiles(chain, opts, &todo, &mut observer, &mut |t| {
        let index = t.index;
        ckpt.write_tile(&t).map_err(|e| e.to_string())?;
        have[index] = true;
        Ok(())
    })
    .map_err(|e| {
        StreamError::Failed(format!(
            "{e}; the finished tiles are kept in {}, rerun with --resume",
            ckpt_dir.display()
        ))
    })
}

/// Draws the default figure of the map file `map` to `figure`.
pub fn draw(map: &Path, figure: &Path) -> Result<(), StreamError> {
    let r = MapReader::open(map)?;
    draw_reader(&r, figure)
}

fn draw_reader(r: &MapReader, figure: &Path) -> Result<(), StreamError> {
    let data = r.read_for_figure()?;
    Ok(draw_map_data(
        &r.header,
        &data,
        Show::Default,
        None,
        figure,
    )?)
}

/// A finished map run, as `--json` reports it.
struct Finished<'a> {
    run: &'a Stream<'a>,
    /// Tiles of this run (its shard's).
    tiles: usize,
    resumed: usize,
    summary: &'a RunSummary,
    written: &'a MapSummary,
    wall: f64,
    /// Seconds spent writing the map file from the checkpoint.
    assembly: f64,
    target: &'a Target<'a>,
}

impl Finished<'_> {
    fn json(&self) -> Result<serde_json::Value, StreamError> {
        let (chain, opts, info) = (self.run.chain, self.run.opts, &self.run.info);
        let (w, h) = (opts.grid.width, opts.grid.height);
        let mut v = json!({
            "kind": "map",
            "map": opts.kind.name(),
            "title": info.title,
            "model": self.run.spec.model_name,
            "width": w, "height": h, "tile": opts.tile,
            "tiles": self.tiles, "tiles_total": opts.tiling().count(),
            "tiles_computed": self.summary.tiles_done, "tiles_resumed": self.resumed,
            "complete": self.written.complete,
            "shard": self.run.shard.map(|(i, n)| format!("{i}/{n}")),
            "t_max": opts.t_max, "dt": opts.dt, "n_steps": opts.n_steps(),
            "energy_skip": opts.energy_skip, "kernel": opts.kernel_name(chain),
            "steps_this_run": self.summary.steps, "steps_total": self.written.steps,
            "wall_s": self.wall, "assembly_s": self.assembly, "steps_per_s": self.summary.steps as f64 / self.wall.max(1e-12),
            "threads": rayon::current_num_threads(),
            "spec_hash": info.spec_hash,
            "output": self.target.out.display().to_string(),
            "plot": self.target.plot.map(|p| p.display().to_string()),
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
        if self.written.complete && point_symmetric(chain, opts) {
            let start = Instant::now();
            let r = MapReader::open(self.target.out)?;
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
