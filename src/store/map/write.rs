//! Assembling the map file from finished tiles, tile by tile: the variables and their legend
//! ([`MapVars`]), each tile written as one chunk of every variable (compressed on every core,
//! see [`Var::write_tiles`]), the running totals ([`Totals`]) and the group's attributes.
//!
//! Memory is bounded by one band of tile rows (its tiles and their compressed chunks, and for a
//! complete flip map the band's flip steps, which the row-major checksum needs), whatever the
//! map's size; a shard file writes only its own tiles (the others are the variables' fill
//! values: not computed, NaN, 0), so it costs time and disk in proportion to its tiles.

use super::codec::tile_checksum;
use super::{bad, coord_long_name, coord_name, coord_units, MapInfo, MapSummary, NOT_COMPUTED};
use crate::analysis::map::class::FORBIDDEN;
use crate::analysis::map::kinds::{Attr, Var as MapVar};
use crate::analysis::map::{FlipStats, Fnv, MapKind, MapOptions, TileRect, TileResult};
use crate::model::{Chain, System};
use crate::store::h5::Tile;
use crate::store::memory::MemGroup;
use crate::store::{GroupWriter, H5Out, Provenance, StoreError, Var};
use ndarray::Array2;
use std::path::{Path, PathBuf};

/// What a map file is assembled from: the chain, the map's self-description, which tiles are
/// done (`have[t]`; the others are marked not done, as in a shard file), where tile `t` comes
/// from (`source(t)`), and the provenance.
pub struct Assembly<'a> {
    pub chain: &'a Chain,
    pub info: &'a MapInfo,
    pub have: &'a [bool],
    pub source: &'a mut dyn FnMut(usize) -> Result<TileResult, StoreError>,
    pub prov: &'a Provenance,
}

/// Writes the map file `path` (as `.partial`, renamed at the end) from `a`, streaming one band
/// of tiles at a time.
pub fn write_map(path: &Path, force: bool, a: Assembly<'_>) -> Result<MapSummary, StoreError> {
    let out = H5Out::create(path, force)?;
    let mut summary = assemble(&out, a)?;
    summary.path = out.finish()?;
    super::abort_point("assembled");
    Ok(summary)
}

/// The map file's image in memory (as [`write_map`] would write it) and its summary (with an
/// empty path): the Python package's map, whose arrays NumPy then takes over.
pub fn map_image(a: Assembly<'_>) -> Result<(MemGroup, MapSummary), StoreError> {
    let out = H5Out::memory();
    let summary = assemble(&out, a)?;
    Ok((out.into_memory().expect("a memory image"), summary))
}

/// Writes the map file's content into `out` (provenance, then the `map` group band by band);
/// the summary's path is left empty.
pub fn assemble(out: &H5Out, a: Assembly<'_>) -> Result<MapSummary, StoreError> {
    let Assembly {
        chain,
        info,
        have,
        source,
        prov,
    } = a;
    let opts = &info.opts;
    let tiling = opts.tiling();
    out.provenance(prov, &info.title)?;
    let g = out.group("map")?;
    write_coords(&g, info, chain.links())?;
    let vars = MapVars::create(&g, info, chain.links())?;
    let mut totals = Totals::new(tiling.count(), opts.dt);
    // The checksum runs over the flip steps row-major, so a complete flip map keeps its band's.
    let whole = have.iter().all(|&h| h);
    let mut band_k = Vec::new();
    let mut band: Vec<(TileRect, TileResult)> = Vec::with_capacity(tiling.cols());
    for ti in 0..tiling.rows() {
        let first = tiling.rect(ti * tiling.cols());
        band.clear();
        for tj in 0..tiling.cols() {
            let index = ti * tiling.cols() + tj;
            if !have[index] {
                continue;
            }
            let t = source(index)?;
            let r = tiling.rect(index);
            if t.index != index
                || t.class.len() != r.pixels()
                || t.aux.len() != r.pixels() * vars.aux_width
                || (vars.flip.is_some()
                    && (t.flip_step.len() != r.pixels() || t.flip_link.len() != r.pixels()))
                || (vars.value.is_some() && t.value.len() != r.pixels())
            {
                return Err(bad(out.path(), format!("tile {index} has the wrong shape")));
            }
            totals.tile(&t, &info.spec_hash);
            band.push((r, t));
        }
        vars.write_tiles(&band, opts.dt, chain.links(), &mut totals)?;
        if whole && vars.flip.is_some() {
            band_k.clear();
            band_k.resize(first.rows() * opts.grid.width, 0i32);
            for (r, t) in &band {
                for i in 0..r.rows() {
                    let row = &t.flip_step[i * r.cols()..(i + 1) * r.cols()];
                    band_k[i * opts.grid.width + r.c0..][..r.cols()].copy_from_slice(row);
                }
            }
            totals.fnv.i32s(&band_k);
        }
        super::abort_point("assembly");
    }
    let complete = totals.done.iter().all(|&d| d == 1);
    write_tile_vars(&g, &totals, tiling.rows(), tiling.cols())?;
    totals.stats.sum_flip_time = totals.stats.sum_flip_steps as f64 * opts.dt;
    totals.stats.fnv1a64 = if complete {
        totals.fnv.hex()
    } else {
        String::new()
    };
    write_attrs(&g, info, chain, complete, &totals)?;
    {
        let m = g.group("model")?;
        let n = chain.links() as i64;
        m.coord_i64("link", &(1..=n).collect::<Vec<_>>(), "1", "link index")?;
        crate::store::write_model(&m, chain)?;
    }
    Ok(MapSummary {
        path: PathBuf::new(),
        tiles: tiling.count(),
        tiles_done: totals.done.iter().filter(|&&d| d == 1).count(),
        complete,
        steps: totals.steps,
        flip: vars.flip.is_some().then_some(totals.stats),
        value_range: totals.vrange,
        class_counts: vars
            .legend
            .iter()
            .filter(|l| totals.counts[l.0 as usize] > 0 && l.0 != NOT_COMPUTED)
            .map(|l| (l.1.clone(), totals.counts[l.0 as usize]))
            .collect(),
    })
}

/// The pixel-centre coordinates of the two map axes, the tile indices, and `link` when a
/// variable has one column per link.
fn write_coords(g: &GroupWriter<'_>, info: &MapInfo, n_links: usize) -> Result<(), StoreError> {
    let opts = &info.opts;
    let tiling = opts.tiling();
    let (xn, yn) = (info.x_name.as_str(), info.y_name.as_str());
    g.coord(
        xn,
        &opts.grid.x_centres(),
        coord_units(xn),
        &coord_long_name(xn),
    )?;
    g.coord(
        yn,
        &opts.grid.y_centres(),
        coord_units(yn),
        &coord_long_name(yn),
    )?;
    let tr: Vec<i64> = (0..tiling.rows() as i64).collect();
    let tc: Vec<i64> = (0..tiling.cols() as i64).collect();
    g.coord_i64("tile_row", &tr, "1", "tile row index")?;
    g.coord_i64("tile_col", &tc, "1", "tile column index")?;
    if opts.kind.id().aux().iter().any(|a| a.per_link) {
        let links: Vec<i64> = (1..=n_links as i64).collect();
        g.coord_i64("link", &links, "1", "link index")?;
    }
    Ok(())
}

/// The legend of the class variable: (value, flag word, description), as CF flags.
type Legend = Vec<(u8, String, String)>;

/// The class legend of a map: its kind's classes, "off the energy shell" for shell grids,
/// and the tiles a shard file does not hold.
fn legend(opts: &MapOptions, n_links: usize) -> Legend {
    let mut legend = opts.kind.legend(n_links);
    if opts.grid.shell.is_some() && !legend.iter().any(|l| l.0 == FORBIDDEN) {
        legend.push((
            FORBIDDEN,
            "energetically_forbidden".into(),
            "off the energy shell: no real velocity ≥ 0 reaches E".into(),
        ));
        legend.sort_by_key(|l| l.0);
    }
    legend.push((
        NOT_COMPUTED,
        "not_computed".into(),
        "not in this (shard) file".into(),
    ));
    legend
}

/// The map's (y, x) variables.
struct MapVars<'f> {
    class: Var<'f>,
    legend: Legend,
    aux_defs: &'static [MapVar],
    aux: Vec<Var<'f>>,
    aux_width: usize,
    /// Flip-time maps: flip_step, flip_time, flip_link.
    flip: Option<[Var<'f>; 3]>,
    /// Other maps: the value variable.
    value: Option<Var<'f>>,
}

impl<'f> MapVars<'f> {
    fn create(
        g: &GroupWriter<'f>,
        info: &MapInfo,
        n_links: usize,
    ) -> Result<MapVars<'f>, StoreError> {
        let opts = &info.opts;
        let (xn, yn) = (info.x_name.as_str(), info.y_name.as_str());
        let (w, h) = (opts.grid.width, opts.grid.height);
        let dims = [yn, xn];
        let chunk = [opts.tile, opts.tile];
        let shape = [h, w];
        let nan = f64::NAN;
        let var =
            |name, units, long| g.var_rows::<f64>(name, &dims, &shape, &chunk, nan, units, long);
        let class = g.var_rows::<u8>(
            "class",
            &dims,
            &shape,
            &chunk,
            NOT_COMPUTED,
            "1",
            "pixel class",
        )?;
        let legend = legend(opts, n_links);
        let values: Vec<u8> = legend.iter().map(|l| l.0).collect();
        let words: Vec<&str> = legend.iter().map(|l| l.1.as_str()).collect();
        let lines: Vec<String> = legend
            .iter()
            .map(|(v, w, d)| format!("{v} {w}: {d}"))
            .collect();
        class
            .attr_u8s("flag_values", &values)?
            .attr_str("flag_meanings", &words.join(" "))?
            .attr_str("legend", &lines.join("\n"))?;
        let aux_defs = opts.kind.id().aux();
        let aux = aux_defs
            .iter()
            .map(
                |&MapVar {
                     name,
                     per_link,
                     units,
                     long_name: long,
                 }| {
                    if per_link {
                        g.var_rows::<f64>(
                            name,
                            &[yn, xn, "link"],
                            &[h, w, n_links],
                            &[opts.tile, opts.tile, n_links],
                            nan,
                            units,
                            long,
                        )
                    } else {
                        var(name, units, long)
                    }
                },
            )
            .collect::<Result<Vec<_>, _>>()?;
        // The converged column is a CF flag variable (f64, so that NaN can mean untested).
        for (v, def) in aux.iter().zip(aux_defs) {
            if def.name == "converged" {
                v.attr_f64s("flag_values", &[0.0, 1.0])?
                    .attr_str("flag_meanings", "not_converged converged")?;
            }
            if def.name == "verdict" {
                use crate::analysis::frequency::{Verdict, VERDICT_RULE};
                let flags: Vec<f64> = Verdict::ALL.iter().map(|v| f64::from(v.flag())).collect();
                v.attr_f64s("flag_values", &flags)?
                    .attr_str("flag_meanings", Verdict::FLAG_MEANINGS)?
                    .attr_str("verdict_rule", VERDICT_RULE)?;
            }
        }
        let (mut flip, mut value) = (None, None);
        if matches!(opts.kind, MapKind::FlipTime { .. }) {
            flip = Some([
                g.var_rows::<i32>(
                    "flip_step",
                    &dims,
                    &shape,
                    &chunk,
                    0,
                    "1",
                    "first RK4 step after which a watched link is beyond ±π (0 = never)",
                )?,
                var(
                    "flip_time",
                    "s",
                    "first flip time flip_step·dt (NaN = never flipped or not computed)",
                )?,
                g.var_rows::<u8>(
                    "flip_link",
                    &dims,
                    &shape,
                    &chunk,
                    0,
                    "1",
                    "link that flipped first (1-based; 3 = links 1 and 2 in the same step; 0 = none)",
                )?,
            ]);
        } else {
            let v = opts.kind.id().value().expect("a value map");
            let made = var(v.name, v.units, v.long_name)?;
            // A kind with an error column beside its value names it (CF).
            let error = format!("{}_error", v.name);
            if aux_defs.iter().any(|a| a.name == error) {
                made.attr_str("ancillary_variables", &error)?;
            }
            value = Some(made);
        }
        Ok(MapVars {
            class,
            legend,
            aux_defs,
            aux,
            aux_width: info.aux_width(),
            flip,
            value,
        })
    }

    /// Writes the tiles of one band (each a chunk of every variable) and adds their pixels
    /// to `totals`.
    fn write_tiles(
        &self,
        band: &[(TileRect, TileResult)],
        dt: f64,
        n_links: usize,
        totals: &mut Totals,
    ) -> Result<(), StoreError> {
        let classes: Vec<_> = band.iter().map(|(r, t)| tile(r, &t.class[..])).collect();
        self.class.write_tiles(&classes)?;
        for (_, t) in band {
            for &c in &t.class {
                totals.counts[c as usize] += 1;
            }
        }
        let m = self.aux_width;
        let mut c0 = 0;
        for (ds, def) in self.aux.iter().zip(self.aux_defs) {
            let width = if def.per_link { n_links } else { 1 };
            let columns: Vec<Vec<f64>> = band
                .iter()
                .map(|(_, t)| {
                    t.aux
                        .chunks_exact(m)
                        .flat_map(|px| &px[c0..c0 + width])
                        .copied()
                        .collect()
                })
                .collect();
            let tiles: Vec<_> = band
                .iter()
                .zip(&columns)
                .map(|((r, _), v)| tile(r, &v[..]))
                .collect();
            ds.write_tiles(&tiles)?;
            c0 += width;
        }
        if let Some([k_ds, t_ds, l_ds]) = &self.flip {
            let ks: Vec<_> = band
                .iter()
                .map(|(r, t)| tile(r, &t.flip_step[..]))
                .collect();
            k_ds.write_tiles(&ks)?;
            let times: Vec<Vec<f64>> = band
                .iter()
                .map(|(_, t)| {
                    t.flip_step
                        .iter()
                        .map(|&k| if k > 0 { f64::from(k) * dt } else { f64::NAN })
                        .collect()
                })
                .collect();
            let ts: Vec<_> = band
                .iter()
                .zip(&times)
                .map(|((r, _), v)| tile(r, &v[..]))
                .collect();
            t_ds.write_tiles(&ts)?;
            let ls: Vec<_> = band
                .iter()
                .map(|(r, t)| tile(r, &t.flip_link[..]))
                .collect();
            l_ds.write_tiles(&ls)?;
            for (_, t) in band {
                let b = FlipStats::of(&t.flip_step, &t.class, dt);
                let stats = &mut totals.stats;
                stats.n_flipped += b.n_flipped;
                stats.sum_flip_steps += b.sum_flip_steps;
                stats.n_forbidden += b.n_forbidden;
                stats.n_forbidden_flipped += b.n_forbidden_flipped;
                stats.n_diverged += b.n_diverged;
            }
        } else {
            let vs: Vec<_> = band.iter().map(|(r, t)| tile(r, &t.value[..])).collect();
            self.value.as_ref().expect("a value map").write_tiles(&vs)?;
            for (_, t) in band {
                for &v in t.value.iter().filter(|v| v.is_finite()) {
                    totals.vrange = Some(match totals.vrange {
                        None => (v, v),
                        Some((a, b)) => (a.min(v), b.max(v)),
                    });
                }
            }
        }
        Ok(())
    }
}

/// The tile at `r` of a variable, with its values `data`.
fn tile<'a, T>(r: &TileRect, data: &'a [T]) -> Tile<'a, T> {
    Tile {
        r0: r.r0,
        c0: r.c0,
        rows: r.rows(),
        cols: r.cols(),
        data,
    }
}

/// What the file says about all its tiles, accumulated band by band.
struct Totals {
    done: Vec<u8>,
    tile_steps: Vec<i64>,
    /// Per tile: its [`tile_checksum`] (0 where the tile is not in the file).
    checksums: Vec<u64>,
    steps: u64,
    fnv: Fnv,
    stats: FlipStats,
    vrange: Option<(f64, f64)>,
    counts: [u64; 256],
}

impl Totals {
    fn new(tiles: usize, dt: f64) -> Totals {
        Totals {
            done: vec![0u8; tiles],
            tile_steps: vec![0i64; tiles],
            checksums: vec![0u64; tiles],
            steps: 0,
            fnv: Fnv::new(),
            stats: FlipStats::of(&[], &[], dt),
            vrange: None,
            counts: [0u64; 256],
        }
    }

    fn tile(&mut self, t: &TileResult, spec_hash: &str) {
        self.done[t.index] = 1;
        self.checksums[t.index] = tile_checksum(t, spec_hash);
        self.tile_steps[t.index] = t.steps as i64;
        self.steps += t.steps;
    }
}

/// The completion mask and the steps per tile.
fn write_tile_vars(
    g: &GroupWriter<'_>,
    totals: &Totals,
    rows: usize,
    cols: usize,
) -> Result<(), StoreError> {
    g.var(
        "tile_done",
        &["tile_row", "tile_col"],
        &Array2::from_shape_vec((rows, cols), totals.done.clone()).expect("shape"),
        "1",
        "completion mask: 1 where the tile is in this file",
    )?;
    g.var(
        "tile_steps",
        &["tile_row", "tile_col"],
        &Array2::from_shape_vec((rows, cols), totals.tile_steps.clone()).expect("shape"),
        "1",
        "RK4 steps integrated for the tile",
    )?;
    g.var(
        "tile_checksum",
        &["tile_row", "tile_col"],
        &Array2::from_shape_vec((rows, cols), totals.checksums.clone()).expect("shape"),
        "1",
        "FNV-1a 64 of the tile's values, steps, index and spec hash (0 = not in this file); merge, render and measure verify it",
    )?;
    Ok(())
}

/// The group's attributes: the run's parameters, completeness, and the kind's own.
fn write_attrs(
    g: &GroupWriter<'_>,
    info: &MapInfo,
    chain: &Chain,
    complete: bool,
    totals: &Totals,
) -> Result<(), StoreError> {
    let opts = &info.opts;
    let grid = &opts.grid;
    g.attr_str("kind", opts.kind.name())?
        .attr_str("title", &info.title)?
        .attr_str("model", &info.model_name)?
        .attr_str("spec_hash", &info.spec_hash)?
        .attr_i64("width", grid.width as i64)?
        .attr_i64("height", grid.height as i64)?
        .attr_i64("tile", opts.tile as i64)?
        .attr_f64("t_max", opts.t_max)?
        .attr_f64("dt", opts.dt)?
        .attr_i64("n_steps", i64::from(opts.n_steps()))?
        .attr_str("integrator", opts.kind.integrator())?
        .attr_bool("energy_skip", opts.energy_skip)?
        .attr_str("kernel", &format!("{:?}", opts.kernel).to_lowercase())?
        .attr_str("x_coordinate", &info.x_name)?
        .attr_str("y_coordinate", &info.y_name)?
        .attr_f64s("window", &[grid.x.lo, grid.x.hi, grid.y.lo, grid.y.hi])?
        .attr_f64s("base_state", &grid.base)?
        .attr_str(
            "shard",
            &info
                .shard
                .map(|(i, n)| format!("{i}/{n}"))
                .unwrap_or_default(),
        )?
        .attr_bool("complete", complete)?
        .attr_i64("steps", totals.steps as i64)?;
    if let Some(sh) = grid.shell {
        g.attr_f64("shell_energy", sh.energy)?
            .attr_str("shell_solve", &coord_name(&chain.component_name(sh.omega)))?;
    }
    write_kind_attrs(g, &opts.kind, &totals.stats)
}

/// The attributes of the map's kind: its parameters ([`MapKind::attributes`]) and, for
/// flip-time maps, the counts and checksum.
fn write_kind_attrs(
    g: &GroupWriter<'_>,
    kind: &MapKind,
    stats: &FlipStats,
) -> Result<(), StoreError> {
    for (name, value) in kind.attributes() {
        match value {
            Attr::Int(v) => g.attr_i64(name, v)?,
            Attr::Float(v) => g.attr_f64(name, v)?,
            Attr::Text(v) => g.attr_str(name, &v)?,
        };
    }
    if kind.id().is_flip() {
        g.attr_i64("n_flipped", stats.n_flipped as i64)?
            .attr_i64("sum_flip_steps", stats.sum_flip_steps as i64)?
            .attr_i64("n_forbidden", stats.n_forbidden as i64)?
            .attr_i64("n_forbidden_flipped", stats.n_forbidden_flipped as i64)?
            .attr_i64("n_diverged", stats.n_diverged as i64)?
            .attr_str("fnv1a64", &stats.fnv1a64)?;
    }
    Ok(())
}
