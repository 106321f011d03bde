//! `pendula map`, `pendula merge`, `pendula render` and `pendula bench flip`.
//!
//! A map run keeps finished tiles in the checkpoint `OUT.h5.tiles/` and assembles `OUT.h5`
//! at the end (see `store::map` for why); `--resume` continues a killed or interrupted run,
//! `--shard i/n` computes every n-th tile into its own file, `merge` joins shard files.

use super::output::{planar, CliError, Common};
use super::progress::Bar;
use clap::Args;
use pendula::analysis::map::{self, class, spec_hash, MapKind, MapOptions};
use pendula::model::System;
use pendula::plot::map::{
    draw_map, ColourMap, ColourScale, MapAxis, MapFigure, COLOUR_MAPS, DIVERGED_COLOR,
    FORBIDDEN_COLOR, MISSING_COLOR, NEVER_COLOR,
};
use pendula::spec::{self, Analysis, Spec};
use pendula::store::map::{
    coord_name, write_map, Checkpoint, MapHeader, MapInfo, MapReader, NOT_COMPUTED,
};
use pendula::store::{self, Provenance};
use plotters::style::RGBColor;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Above this many pixels (or this edge) a map needs --force: it would take hours and GBs.
const LARGE_PIXELS: usize = 1 << 26;
const LARGE_EDGE: usize = 16_384;

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
    let opts = map_options(spec);
    let chain = planar(spec)?;
    let default_title = format!("map: {} chain", spec.model_name);
    let title = if spec.title == default_title {
        match opts.kind {
            MapKind::FlipTime { .. } => format!("First-flip time, {} pendulum", spec.model_name),
            MapKind::EnergyError => format!("RK4 energy error, {} pendulum", spec.model_name),
            MapKind::Ftle => format!(
                "Finite-time Lyapunov exponent (flow map), {} pendulum",
                spec.model_name
            ),
            MapKind::Lyapunov { .. } => {
                format!(
                    "Finite-time Lyapunov exponent, {} pendulum",
                    spec.model_name
                )
            }
            MapKind::FinalState { .. } => format!("Final states, {} pendulum", spec.model_name),
            MapKind::Sali { .. } => format!("SALI, {} pendulum", spec.model_name),
            MapKind::Gali { k, .. } => format!("GALI_{k}, {} pendulum", spec.model_name),
        }
    } else {
        spec.title.clone()
    };
    Ok(MapInfo {
        title,
        model_name: spec.model_name.clone(),
        spec_hash: spec_hash(chain, opts),
        opts: opts.clone(),
        x_name: coord_name(&chain.component_name(opts.grid.x.index)),
        y_name: coord_name(&chain.component_name(opts.grid.y.index)),
        shard,
        spec_text: spec.text.clone(),
    })
}

fn check_plot_path(plot: &Option<PathBuf>, overwrite: bool) -> Result<(), CliError> {
    if let Some(p) = plot {
        match p.extension().and_then(|e| e.to_str()) {
            Some("png") | Some("svg") => {}
            _ => {
                return Err(CliError::Input(format!(
                    "--plot: `{}` must end in .png or .svg",
                    p.display()
                )))
            }
        }
        super::output::prepare_path(p, overwrite)
            .map_err(|m| CliError::Input(format!("--plot: {m}")))?;
    }
    Ok(())
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
    let (w, h) = (opts.grid.width, opts.grid.height);
    if !common.force && (w * h > LARGE_PIXELS || w.max(h) > LARGE_EDGE) {
        return Err(CliError::Input(format!(
            "--resolution: {w}x{h} is {:.2e} pixels, above {LARGE_PIXELS} (or an edge above {LARGE_EDGE}); add --force if you mean it",
            (w * h) as f64
        )));
    }
    super::output::set_threads(common.threads)?;
    let tiling = opts.tiling();
    let tiles: Vec<usize> = match run.shard {
        Some((i, n)) => tiling.shard(i, n),
        None => (0..tiling.count()).collect(),
    };
    let info = info_of(spec, run.shard)?;
    if run.dry_run {
        let e = map::estimate(chain, opts, &tiles);
        let v = json!({
            "kind": "map", "dry_run": true, "map": opts.kind.name(),
            "width": w, "height": h, "tile": opts.tile, "tiles": e.tiles,
            "tiles_total": tiling.count(), "pixels": e.pixels,
            "energy_skip": opts.energy_skip, "forbidden_skipped": e.forbidden_skipped,
            "n_steps": opts.n_steps(), "max_rk4_steps": e.max_rk4_steps,
            "output_bytes_uncompressed": e.output_bytes, "kernel": e.kernel,
            "threads": rayon::current_num_threads(), "spec_hash": info.spec_hash,
        });
        if common.json {
            println!("{v}");
        } else {
            println!(
                "{} map {w}x{h}: {} pixels in {} tiles, {} skipped as forbidden, at most {:.3e} RK4 steps ({} kernel), output ≤ {:.1} MiB uncompressed",
                opts.kind.name(), e.pixels, e.tiles, e.forbidden_skipped, e.max_rk4_steps as f64,
                e.kernel, e.output_bytes as f64 / (1u64 << 20) as f64
            );
        }
        return Ok(());
    }
    let out = common
        .output
        .clone()
        .or_else(|| spec.output.file.clone())
        .ok_or_else(|| {
            CliError::Input(
                "-o: a map needs an output file FILE.h5 (its checkpoint lives beside it)".into(),
            )
        })?;
    let plot = common.plot.clone().or_else(|| spec.output.plot.clone());
    check_plot_path(&plot, common.force || run.resume)?;
    let ckpt_dir = Checkpoint::dir_for(&out);
    let out_exists = out.exists();
    if out_exists && !common.force {
        if run.resume && !ckpt_dir.exists() {
            // A finished run asked to resume (a requeued job): nothing to do if it is this map.
            let r = MapReader::open(&out).map_err(|e| CliError::Input(format!("-o: {e}")))?;
            if r.header.spec_hash == info.spec_hash && r.header.complete == run.shard.is_none() {
                if let Some(p) = &plot {
                    render_file(&r, p)?;
                }
                if common.json {
                    println!(
                        "{}",
                        json!({"kind": "map", "output": out.display().to_string(), "already_complete": true})
                    );
                }
                return Ok(());
            }
            return Err(CliError::Input(format!(
                "-o: {} exists and belongs to another map (spec hash {}); use --force to overwrite it",
                out.display(),
                r.header.spec_hash
            )));
        }
        if !run.resume {
            return Err(CliError::Input(format!(
                "-o: output file {} already exists (use --force to overwrite it)",
                out.display()
            )));
        }
    }
    super::output::prepare_path(&out, true).map_err(|m| CliError::Input(format!("-o: {m}")))?;
    let ckpt = if ckpt_dir.exists() && !common.force {
        if !run.resume {
            return Err(CliError::Input(format!(
                "-o: checkpoint {} of an unfinished run exists; add --resume to continue it or --force to start over",
                ckpt_dir.display()
            )));
        }
        Checkpoint::open(&ckpt_dir, &info).map_err(|e| CliError::Input(format!("--resume: {e}")))?
    } else {
        Checkpoint::create(&ckpt_dir, &info).map_err(|e| CliError::Run(e.to_string()))?
    };
    let mut have = ckpt
        .finished(tiling.count())
        .map_err(|e| CliError::Run(e.to_string()))?;
    let resumed = tiles.iter().filter(|&&t| have[t]).count();
    let todo: Vec<usize> = tiles.iter().copied().filter(|&t| !have[t]).collect();

    let start = Instant::now();
    let mut bar = Bar::new("map");
    let summary = map::run_tiles(chain, opts, &todo, &mut bar, &mut |t| {
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
    })?;
    let wall = start.elapsed().as_secs_f64();
    if summary.stopped {
        let done = tiles.iter().filter(|&&t| have[t]).count();
        return Err(CliError::Run(format!(
            "interrupted: {done} of {} tiles are in {}; rerun the same command with --resume to finish",
            tiles.len(),
            ckpt_dir.display()
        )));
    }
    let mine: Vec<bool> = {
        let mut m = vec![false; tiling.count()];
        for &t in &tiles {
            m[t] = have[t];
        }
        m
    };
    let prov = Provenance::now(command_line, &spec.text);
    let written = write_map(
        &out,
        true,
        chain,
        &info,
        &mine,
        &mut |t| {
            ckpt.read_tile(t).ok_or_else(|| store::StoreError::Dims {
                var: ckpt_dir.display().to_string(),
                what: format!("tile {t} vanished from the checkpoint"),
            })
        },
        &prov,
    )
    .map_err(|e| CliError::Run(e.to_string()))?;
    ckpt.remove().map_err(|e| CliError::Run(e.to_string()))?;
    if let Some(p) = &plot {
        let r = MapReader::open(&out).map_err(|e| CliError::Run(e.to_string()))?;
        render_file(&r, p)?;
    }
    if common.json {
        let mut v = json!({
            "kind": "map",
            "map": opts.kind.name(),
            "title": info.title,
            "model": spec.model_name,
            "width": w, "height": h, "tile": opts.tile,
            "tiles": tiles.len(), "tiles_total": tiling.count(),
            "tiles_computed": summary.tiles_done, "tiles_resumed": resumed,
            "complete": written.complete,
            "shard": run.shard.map(|(i, n)| format!("{i}/{n}")),
            "t_max": opts.t_max, "dt": opts.dt, "n_steps": opts.n_steps(),
            "energy_skip": opts.energy_skip, "kernel": opts.kernel_name(chain),
            "steps_this_run": summary.steps, "steps_total": written.steps,
            "wall_s": wall, "steps_per_s": summary.steps as f64 / wall.max(1e-12),
            "threads": rayon::current_num_threads(),
            "spec_hash": info.spec_hash,
            "output": out.display().to_string(),
            "plot": plot.as_ref().map(|p| p.display().to_string()),
        });
        if let Some(f) = &written.flip {
            v["checksum"] = json!({
                "n_flipped": f.n_flipped, "sum_flip_steps": f.sum_flip_steps,
                "sum_flip_time": f.sum_flip_time,
                "fnv1a64": if written.complete { Some(&f.fnv1a64) } else { None },
            });
            v["n_forbidden"] = json!(f.n_forbidden);
            v["n_forbidden_flipped"] = json!(f.n_forbidden_flipped);
            v["n_diverged"] = json!(f.n_diverged);
        }
        if let Some((lo, hi)) = written.value_range {
            v["value_min"] = json!(lo);
            v["value_max"] = json!(hi);
        }
        if written.complete && map::point_symmetric(chain, opts) {
            let r = MapReader::open(&out).map_err(|e| CliError::Run(e.to_string()))?;
            let (pairs, matched) = r.symmetry().map_err(|e| CliError::Run(e.to_string()))?;
            v["point_symmetry"] = json!({"pairs": pairs, "matched": matched});
        }
        if written.flip.is_none() {
            v["class_counts"] = written
                .class_counts
                .iter()
                .map(|(w, c)| (w.clone(), json!(c)))
                .collect::<serde_json::Map<_, _>>()
                .into();
        }
        println!("{v}");
    }
    Ok(())
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
    check_plot_path(&a.common.plot, a.common.force)?;
    let mut readers = Vec::new();
    for p in &a.inputs {
        let r = MapReader::open(p).map_err(|e| CliError::Input(format!("merge: {e}")))?;
        readers.push(r);
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
    let written = write_map(
        &out,
        a.common.force,
        planar(&spec)?,
        &info,
        &have,
        &mut |t| readers[owner[t].expect("checked complete")].read_tile(t),
        &prov,
    )
    .map_err(|e| CliError::Run(e.to_string()))?;
    if let Some(p) = &a.common.plot {
        let r = MapReader::open(&out).map_err(|e| CliError::Run(e.to_string()))?;
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
    match a.output.extension().and_then(|e| e.to_str()) {
        Some("png") | Some("svg") => {}
        _ => {
            return Err(CliError::Input(format!(
                "-o: `{}` must end in .png or .svg",
                a.output.display()
            )))
        }
    }
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
    let show = match a.show.as_deref() {
        None => Show::Default,
        Some("basins") if r.header.kind == "final-state" => Show::Basins,
        Some("settle_time") if r.header.kind == "final-state" => Show::SettleTime,
        Some(v) if r.header.kind == "final-state" && v.starts_with("final_angle") => {
            let n = r.header.link_length.len();
            match v["final_angle".len()..].parse::<usize>() {
                Ok(j) if (1..=n).contains(&j) => Show::FinalAngle(j - 1),
                _ => {
                    return Err(CliError::Input(format!(
                        "--show: `{v}`: expected final_angle1..final_angle{n}"
                    )))
                }
            }
        }
        Some(v) => {
            return Err(CliError::Input(format!(
                "--show: `{v}` is not a variable this {} map can draw{}",
                r.header.kind,
                if r.header.kind == "final-state" {
                    " (basins, settle_time, final_angle<j>)"
                } else {
                    " (leave --show out)"
                }
            )))
        }
    };
    super::output::prepare_path(&a.output, a.force)
        .map_err(|m| CliError::Input(format!("-o: {m}")))?;
    render_with(&r, &a.output, show, cmap)
}

/// Which variable of a map file a figure shows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Show {
    /// The kind's main figure (basins for final-state maps).
    Default,
    Basins,
    SettleTime,
    /// Link j (0-based).
    FinalAngle(usize),
}

/// Most categories a basin figure colours; the rarer ones share one swatch.
const MAX_CATEGORIES: usize = 10;

/// Colours each pixel of a final-state map by its attractor: the class together with the net
/// turns (equilibria) or rotation numbers (periodic orbits), the most common first.
fn basin_colours(h: &MapHeader, data: &map::MapData) -> (Vec<RGBColor>, Vec<(String, RGBColor)>) {
    use pendula::analysis::map::basins::{describe, label};
    let nl = h.link_length.len();
    let m = data.aux_width;
    let key = |p: usize| -> (u8, Vec<i64>) {
        let c = data.class[p];
        let off = if c >= label::PERIODIC && c != label::DIVERGED {
            2 * nl
        } else {
            nl
        };
        let w = if c == label::UNSETTLED || c == label::DIVERGED || c == NOT_COMPUTED {
            vec![]
        } else {
            (0..nl)
                .map(|j| (data.aux[p * m + off + j] * 1e6).round() as i64)
                .collect()
        };
        (c, w)
    };
    let np = data.class.len();
    let mut counts: std::collections::BTreeMap<(u8, Vec<i64>), u64> = Default::default();
    for p in 0..np {
        *counts.entry(key(p)).or_default() += 1;
    }
    let mut order: Vec<_> = counts
        .into_iter()
        .filter(|(k, _)| ![label::UNSETTLED, label::DIVERGED, NOT_COMPUTED].contains(&k.0))
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette = colorous::TABLEAU10;
    let other = RGBColor(0x5a, 0x5a, 0x5a);
    let mut colour_of: std::collections::BTreeMap<(u8, Vec<i64>), RGBColor> = Default::default();
    let mut swatches = Vec::new();
    for (i, (k, n)) in order.iter().enumerate() {
        let frac = 100.0 * *n as f64 / np as f64;
        if i < MAX_CATEGORIES - 1 || order.len() == MAX_CATEGORIES {
            let c = palette[i % palette.len()];
            let c = RGBColor(c.r, c.g, c.b);
            colour_of.insert(k.clone(), c);
            let nums: Vec<String> = k.1.iter().map(|&v| format!("{}", v as f64 / 1e6)).collect();
            let what = if k.0 >= label::PERIODIC {
                "rotation"
            } else {
                "turns"
            };
            swatches.push((
                format!(
                    "{}, {what} ({}): {frac:.1}%",
                    describe(k.0),
                    nums.join(", ")
                ),
                c,
            ));
        } else {
            colour_of.insert(k.clone(), other);
        }
    }
    if order.len() > MAX_CATEGORIES {
        let rest: u64 = order[MAX_CATEGORIES - 1..].iter().map(|x| x.1).sum();
        swatches.push((
            format!(
                "{} other states: {:.1}%",
                order.len() - (MAX_CATEGORIES - 1),
                100.0 * rest as f64 / np as f64
            ),
            other,
        ));
    }
    let unsettled = data
        .class
        .iter()
        .filter(|&&c| c == label::UNSETTLED)
        .count();
    if unsettled > 0 {
        swatches.push((
            format!(
                "{}: {:.1}%",
                describe(label::UNSETTLED),
                100.0 * unsettled as f64 / np as f64
            ),
            FORBIDDEN_COLOR,
        ));
    }
    if data.class.contains(&label::DIVERGED) {
        swatches.push(("diverged".into(), DIVERGED_COLOR));
    }
    let rgb = (0..np)
        .map(|p| match data.class[p] {
            label::UNSETTLED => FORBIDDEN_COLOR,
            label::DIVERGED => DIVERGED_COLOR,
            NOT_COMPUTED => MISSING_COLOR,
            _ => colour_of[&key(p)],
        })
        .collect();
    (rgb, swatches)
}

fn axis_label(name: &str) -> (String, bool) {
    let sub = |s: &str| {
        s.chars()
            .map(|c| match c {
                '0'..='9' => char::from_u32(0x2080 + c as u32 - '0' as u32).unwrap_or(c),
                _ => c,
            })
            .collect::<String>()
    };
    if let Some(i) = name.strip_prefix("theta") {
        (format!("θ{} at release / rad", sub(i)), true)
    } else if let Some(i) = name.strip_prefix("omega") {
        (format!("ω{} at release / (rad/s)", sub(i)), false)
    } else {
        (name.to_string(), false)
    }
}

fn fmt_list(v: &[f64], unit: &str) -> String {
    let mut u = v.to_vec();
    u.dedup();
    let s: Vec<String> = u.iter().map(|x| format!("{x}")).collect();
    if u.len() == 1 && v.len() > 1 {
        format!("{} {unit} each", s[0])
    } else {
        format!("{} {unit}", s.join(", "))
    }
}

/// Draws a map file's default figure.
fn render_file(r: &MapReader, path: &Path) -> Result<(), CliError> {
    render_with(r, path, Show::Default, None)
}

/// Draws variable `show` of a map file, with colour map `cmap` (else the variable's own).
fn render_with(
    r: &MapReader,
    path: &Path,
    show: Show,
    cmap: Option<ColourMap>,
) -> Result<(), CliError> {
    let h: &MapHeader = &r.header;
    let data = r.read_all().map_err(|e| CliError::Run(e.to_string()))?;
    let values: Vec<f64>;
    let (mut scale, mut swatches);
    let mut rgb = None;
    let mut class = data.class.clone();
    let n_links = h.link_length.len();
    let show = match (show, h.kind.as_str()) {
        (Show::Default, "final-state") => Show::Basins,
        (s, _) => s,
    };
    if h.kind == "final-state" {
        use pendula::analysis::map::basins::label;
        // The figure's own classes: 0 (a value or NaN), 3 diverged, 255 missing.
        for c in class.iter_mut() {
            *c = match *c {
                label::DIVERGED => class::DIVERGED,
                NOT_COMPUTED => NOT_COMPUTED,
                _ => 0,
            };
        }
        match show {
            Show::FinalAngle(j) => {
                values = (0..data.class.len())
                    .map(|p| data.aux[p * data.aux_width + j])
                    .collect();
                scale = ColourScale {
                    lo: -std::f64::consts::PI,
                    hi: std::f64::consts::PI,
                    log: false,
                    label: format!("final θ{} mod 2π / rad", j + 1),
                    map: ColourMap::Cyclic,
                };
                swatches = vec![];
            }
            _ => {
                values = data.value.clone();
                let finite = values.iter().copied().filter(|v| v.is_finite());
                let (lo, hi) = pendula::plot::nice_range(finite, 0.0).unwrap_or((0.0, 1.0));
                scale = ColourScale {
                    lo: lo.min(0.0),
                    hi,
                    log: false,
                    label: "settle time / s".into(),
                    map: ColourMap::Viridis,
                };
                swatches = vec![(format!("unsettled by t = {} s", h.t_max), NEVER_COLOR)];
                if show == Show::Basins {
                    let (c, s) = basin_colours(h, &data);
                    rgb = Some(c);
                    swatches = s;
                }
            }
        }
    } else if h.is_flip() {
        values = data
            .flip_step
            .iter()
            .zip(&data.class)
            .map(|(&k, &c)| {
                if k > 0 && c != class::FORBIDDEN {
                    k as f64 * h.dt
                } else {
                    f64::NAN
                }
            })
            .collect();
        let min = values
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .fold(f64::INFINITY, f64::min);
        let lo = if min.is_finite() {
            min.min(h.t_max * 0.5)
        } else {
            h.dt
        };
        let target = if h.flip_target == "any" {
            "any link".to_string()
        } else {
            format!("link {}", h.flip_target)
        };
        scale = ColourScale {
            lo,
            hi: h.t_max,
            log: true,
            label: format!("time of first flip ({target}) / s"),
            map: ColourMap::Viridis,
        };
        swatches = vec![
            (format!("no flip by t = {} s", h.t_max), NEVER_COLOR),
            ("energetically forbidden".to_string(), FORBIDDEN_COLOR),
        ];
    } else {
        values = data.value.clone();
        let finite = values.iter().copied().filter(|v| v.is_finite());
        if h.kind == "energy-error" {
            let pos: Vec<f64> = finite.filter(|v| *v > 0.0).collect();
            let hi = pos.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
            let lo = pos
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .max(hi * 1e-12);
            let lo = if lo.is_finite() && lo < hi {
                lo
            } else {
                hi / 10.0
            };
            scale = ColourScale {
                lo,
                hi,
                log: true,
                label: format!("relative energy error at t = {} s", h.t_max),
                map: ColourMap::Magma,
            };
        } else if h.kind == "sali" || h.kind == "gali" {
            // Log scale from round-off (1e-16) to the largest value (SALI ≤ √2, GALI ≤ 1).
            let hi = finite.fold(1e-15f64, f64::max).max(1.0);
            scale = ColourScale {
                lo: 1e-16,
                hi,
                log: true,
                label: format!(
                    "{} at t = {} s (or where SALI < 1e-14)",
                    h.kind.to_uppercase(),
                    h.t_max
                ),
                map: ColourMap::Magma,
            };
            for c in class.iter_mut() {
                if ![class::DIVERGED, class::FORBIDDEN, NOT_COMPUTED].contains(c) {
                    *c = 0;
                }
            }
        } else {
            let (lo, hi) = pendula::plot::nice_range(finite, 0.0).unwrap_or((0.0, 1.0));
            scale = ColourScale {
                lo,
                hi,
                log: false,
                label: if h.kind == "ftle" {
                    format!("FTLE over {} s / (1/s)", h.t_max)
                } else {
                    format!("Lyapunov exponent over {} s / (1/s)", h.t_max)
                },
                map: ColourMap::Cividis,
            };
        }
        swatches = vec![];
    }
    if let Some(c) = cmap {
        scale.map = c;
    }
    if !h.is_flip() && class.contains(&class::FORBIDDEN) {
        swatches.push(("energetically forbidden".to_string(), FORBIDDEN_COLOR));
    }
    let (xl, xa) = axis_label(&h.x_name);
    let (yl, ya) = axis_label(&h.y_name);
    let at_rest = h.base_state[n_links..].iter().all(|&w| w == 0.0)
        && h.shell.is_none()
        && !h.x_name.starts_with("omega")
        && !h.y_name.starts_with("omega");
    let shell = h.shell.as_ref().map_or(String::new(), |(e, v)| {
        format!(
            ", on the energy shell E = {e} J ({} ≥ 0 solved)",
            axis_label(v).0.split(' ').next().unwrap_or(v)
        )
    });
    let mut forcing = String::new();
    for (v, what) in [
        (&h.damping_absolute, "γ"),
        (&h.damping_joint, "joint damping"),
    ] {
        if v.iter().any(|&c| c != 0.0) {
            forcing += &format!(", {what} = {}", fmt_list(v, "N·m·s"));
        }
    }
    if let Some((a, w)) = h.torque {
        forcing += &format!(", torque {a} cos({w} t) N·m");
    }
    if let Some((x, y, w)) = h.pivot {
        forcing += &format!(", pivot ({x}, {y}) cos({w} t) m");
    }
    let subtitle = format!(
        "{} pendulum ({} link{}: m = {}, l = {}, g = {} m/s²{forcing}){}  ·  RK4 dt = {} s, t ≤ {} s  ·  {} × {} pixels",
        h.model_name,
        n_links,
        if n_links == 1 { "" } else { "s" },
        fmt_list(&h.link_mass, "kg"),
        fmt_list(&h.link_length, "m"),
        h.gravity,
        if at_rest { ", released from rest" } else { shell.as_str() },
        h.dt,
        h.t_max,
        h.width,
        h.height
    );
    let fig = MapFigure {
        title: h.title.clone(),
        subtitle,
        width: h.width,
        height: h.height,
        class: &class,
        values: &values,
        x: MapAxis {
            lo: h.window[0],
            hi: h.window[1],
            label: xl,
            angle: xa,
        },
        y: MapAxis {
            lo: h.window[2],
            hi: h.window[3],
            label: yl,
            angle: ya,
        },
        scale,
        swatches,
        rgb,
    };
    draw_map(&fig, path).map_err(|e| CliError::Run(e.to_string()))
}
