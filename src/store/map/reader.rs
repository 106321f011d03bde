//! Reading a map file back: its header, tile by tile (merge) or whole (render, measure).
//!
//! A map file is input, and input may be corrupt or hostile: [`MapReader::open`] checks all of
//! it before anything uses it, so that every later read only meets I/O errors. It refuses a path
//! that is not a regular file (a FIFO would block), links that leave the file or point elsewhere
//! in it (soft and external links, external or virtual storage), a header whose sizes are out of
//! range, a variable of the wrong element type or shape (before a byte of it is read, so a 20 KB
//! file declaring a 10⁶ × 10⁶ dataset costs nothing), a map too large for the memory budget, a
//! `tile_done` that does not say 0 or 1, tiles outside the file's shard, and totals (`complete`,
//! `steps`, the flip counts, `fnv1a64`) that the tiles present do not reproduce. Files written
//! since per-tile checksums exist (`tile_checksum`) have every tile verified against its
//! checksum, which covers the tile's values, steps and index and the map's spec hash: a tile
//! edited, moved, or taken from another map is refused naming it. Older files, without
//! checksums, are read with a [`MapReader::warning`]. What the file holds outside its tiles
//! (tiles not done) is never read: those pixels read as not computed.

use super::codec::tile_checksum;
use super::*;
use crate::analysis::map::kinds::Var;
use crate::analysis::map::Kind;
use crate::limits::{format_bytes, Budget};
use crate::store::h5::{one_line, open_input};
use hdf5::{Group, H5Type, LinkType};

/// The largest tile edge a map file may declare (the spec's `map.tile` limit).
pub const MAX_TILE: usize = 1024;
/// The most pixels a map file may declare, whatever the budget (2³⁶; `map.resolution` allows
/// at most 65 536² = 2³²).
pub const MAX_PIXELS: usize = 1 << 36;

/// The largest edge (pixels) a figure reads of a map: its raster is about 740 pixels a side
/// in the figure, so a larger map is drawn from a decimated read
/// ([`MapReader::read_for_figure`]), which keeps the figure's memory bounded (~50 MB).
pub const FIGURE_EDGE: usize = 1024;

/// How much of a map file [`MapReader::open`] could verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verified {
    /// Structure, totals and every tile against its checksum.
    Tiles,
    /// Structure and totals: the file predates per-tile checksums (no `tile_checksum`).
    NoChecksums,
}

/// An open map file, read tile by tile (merge) or whole (render).
pub struct MapReader {
    file: File,
    path: PathBuf,
    pub header: MapHeader,
    verified: Verified,
    /// The memory budget (bytes) [`MapReader::read_all`] must fit; tile reads, decimated reads
    /// and the symmetry check hold a band or a tile at a time, whatever the map's size.
    budget: f64,
}

impl std::fmt::Debug for MapReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapReader")
            .field("path", &self.path)
            .field("header", &self.header)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

/// `e` as a one-line refusal of `path`: "`what`: the HDF5 error".
fn h5_bad(path: &Path, what: impl Into<String>) -> impl FnOnce(hdf5::Error) -> StoreError {
    let (path, what) = (path.to_path_buf(), what.into());
    move |e| bad(&path, format!("{what}: {}", one_line(&e)))
}

/// Refuses soft and external links in `g` (`at`: its path with a trailing `/`): a map file
/// holds its groups and variables itself.
fn check_links(g: &Group, path: &Path, at: &str) -> Result<(), StoreError> {
    let mut odd = None;
    g.iter_visit_default(|name, info| {
        if odd.is_none() && info.link_type != LinkType::Hard {
            odd = Some((name.to_string(), info.link_type));
        }
        Ok(())
    })
    .map_err(h5_bad(path, format!("listing {at}")))?;
    match odd {
        None => Ok(()),
        Some((name, t)) => Err(bad(
            path,
            format!(
                "{at}{} is {} link; a map file holds its variables itself",
                name.escape_debug(),
                if t == LinkType::Soft {
                    "a soft"
                } else {
                    "an external"
                }
            ),
        )),
    }
}

/// Dataset `name` of `g` (`at`: the group's path with a trailing `/`), checked before anything
/// is read from it: its storage is in this file, its elements are `T`, its shape is `shape`.
fn checked<T: H5Type>(
    g: &Group,
    path: &Path,
    at: &str,
    name: &str,
    shape: &[usize],
) -> Result<Dataset, StoreError> {
    if !g.link_exists(name) {
        return Err(bad(path, format!("has no variable {at}{name}")));
    }
    let ds = g
        .dataset(name)
        .map_err(|_| bad(path, format!("{at}{name} is not a dataset")))?;
    let plist = ds
        .create_plist()
        .map_err(h5_bad(path, format!("reading {at}{name}")))?;
    if !plist.external().is_empty()
        || !matches!(
            plist.layout(),
            hdf5::dataset::Layout::Compact
                | hdf5::dataset::Layout::Contiguous
                | hdf5::dataset::Layout::Chunked
        )
    {
        return Err(bad(
            path,
            format!("{at}{name} keeps its values outside the file (external or virtual storage)"),
        ));
    }
    let want = T::type_descriptor();
    let got = ds
        .dtype()
        .and_then(|t| t.to_descriptor())
        .map_err(h5_bad(path, format!("reading the type of {at}{name}")))?;
    if got != want {
        return Err(bad(
            path,
            format!("{at}{name} holds {got} values, expected {want}"),
        ));
    }
    let got = ds.shape();
    if got != shape {
        return Err(bad(
            path,
            format!("{at}{name} has shape {got:?}, expected {shape:?}"),
        ));
    }
    Ok(ds)
}

/// Bytes per pixel of reading a whole map (class, flip or value arrays, the aux columns),
/// with the flip times the verification reads.
fn bytes_per_pixel(kind: Kind, aux_columns: usize) -> f64 {
    let main = if kind.is_flip() { 4.0 + 1.0 + 8.0 } else { 8.0 };
    1.0 + main + 8.0 * aux_columns as f64
}

/// Checks every variable of the map `h` (element type, shape, storage) before anything reads
/// it; returns the per-tile checksums, `None` for a file written before they existed.
fn check_vars(g: &Group, path: &Path, h: &MapHeader) -> Result<Option<Vec<u64>>, StoreError> {
    let at = "/map/";
    let hw = [h.height, h.width];
    let links = h.link_length.len();
    checked::<u8>(g, path, at, "class", &hw)?;
    if h.is_flip() {
        checked::<i32>(g, path, at, "flip_step", &hw)?;
        checked::<f64>(g, path, at, "flip_time", &hw)?;
        checked::<u8>(g, path, at, "flip_link", &hw)?;
    } else if let Some(v) = h.kind.value() {
        checked::<f64>(g, path, at, v.name, &hw)?;
    }
    for &Var { name, per_link, .. } in h.kind.aux() {
        if LATE.contains(&name) && !g.link_exists(name) {
            continue;
        }
        if per_link {
            checked::<f64>(g, path, at, name, &[h.height, h.width, links])?;
        } else {
            checked::<f64>(g, path, at, name, &hw)?;
        }
    }
    // The coordinates are what xarray and h5py show: they must be the pixel centres of the
    // window pendula reads, and the tile indices.
    let [x0, x1, y0, y1] = h.window;
    for (name, lo, hi, n) in [(&h.x_name, x0, x1, h.width), (&h.y_name, y0, y1, h.height)] {
        let axis = crate::analysis::map::GridAxis { index: 0, lo, hi };
        let c = checked::<f64>(g, path, at, name, &[n])?
            .read_raw::<f64>()
            .map_err(h5_bad(path, format!("reading {at}{name}")))?;
        if let Some(j) = (0..n).find(|&j| c[j].to_bits() != axis.centre(j, n).to_bits()) {
            return Err(bad(
                path,
                format!(
                    "coordinate {at}{name} is not the pixel centres of attribute window (at {j}: {}, expected {})",
                    c[j],
                    axis.centre(j, n)
                ),
            ));
        }
    }
    let t = h.tiling();
    for (name, n) in [("tile_row", t.rows()), ("tile_col", t.cols())] {
        let c = checked::<i64>(g, path, at, name, &[n])?
            .read_raw::<i64>()
            .map_err(h5_bad(path, format!("reading {at}{name}")))?;
        if c.iter().enumerate().any(|(i, &v)| v != i as i64) {
            return Err(bad(
                path,
                format!("coordinate {at}{name} is not 0, 1, … {}", n - 1),
            ));
        }
    }
    if !g.link_exists("tile_checksum") {
        return Ok(None);
    }
    let sums = checked::<u64>(g, path, at, "tile_checksum", &[t.rows(), t.cols()])?
        .read_raw::<u64>()
        .map_err(h5_bad(path, "reading tile_checksum"))?;
    Ok(Some(sums))
}

/// Variables added after the first map files: a file without them reads them as NaN (flip
/// maps' `flip_time_located`, Lyapunov maps' error columns).
const LATE: [&str; 4] = [
    "flip_time_located",
    "lyapunov_standard_error",
    "time_used",
    "converged",
];

impl MapReader {
    /// Opens `path`, checks it (see the module doc) within the machine's default memory
    /// budget; refuses files that are not pendula maps, or not intact ones.
    pub fn open(path: &Path) -> Result<MapReader, StoreError> {
        MapReader::open_within(path, Budget::machine().bytes)
    }

    /// [`MapReader::open`] with a memory budget of `budget` bytes for [`MapReader::read_all`].
    pub fn open_within(path: &Path, budget: f64) -> Result<MapReader, StoreError> {
        let file = open_input(path)?;
        check_links(&file, path, "/")?;
        if !file.link_exists("map") {
            return Err(bad(path, "is not a pendula map file (no /map group)"));
        }
        let g = file
            .group("map")
            .map_err(|_| bad(path, "is not a pendula map file (/map is not a group)"))?;
        check_links(&g, path, "/map/")?;
        let attr_err = |name: &str| h5_bad(path, format!("attribute {name}"));
        let s = |name: &str| -> Result<String, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<VarLenUnicode>())
                .map(|v| v.as_str().to_string())
                .map_err(attr_err(name))
        };
        let i = |name: &str| -> Result<i64, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<i64>())
                .map_err(attr_err(name))
        };
        let f = |name: &str| -> Result<f64, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<f64>())
                .map_err(attr_err(name))
        };
        let b = |name: &str| -> Result<bool, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<i8>())
                .map(|v| v != 0)
                .map_err(attr_err(name))
        };
        // Sizes the tiling divides by and allocates from.
        let size = |name: &str, max: usize| -> Result<usize, StoreError> {
            match i(name)? {
                v if v >= 1 && v as u64 <= max as u64 => Ok(v as usize),
                v => Err(bad(
                    path,
                    format!("attribute {name} must be between 1 and {max} (got {v})"),
                )),
            }
        };
        let positive = |name: &str| -> Result<f64, StoreError> {
            match f(name)? {
                v if v.is_finite() && v > 0.0 => Ok(v),
                v => Err(bad(
                    path,
                    format!("attribute {name} must be a finite number > 0 (got {v})"),
                )),
            }
        };
        let window: Vec<f64> = g
            .attr("window")
            .and_then(|a| a.read_raw::<f64>())
            .map_err(attr_err("window"))?;
        // A file is input: its window is checked before anything indexes or divides by it.
        let window: [f64; 4] = match window[..] {
            [x0, x1, y0, y1] if x0 < x1 && y0 < y1 && (x1 - x0).is_finite() && (y1 - y0).is_finite() => {
                [x0, x1, y0, y1]
            }
            _ => {
                return Err(bad(
                    path,
                    format!(
                        "attribute window must hold 4 finite numbers xlo < xhi, ylo < yhi (got {window:?})"
                    ),
                ))
            }
        };
        let (width, height) = (size("width", MAX_PIXELS)?, size("height", MAX_PIXELS)?);
        if width.saturating_mul(height) > MAX_PIXELS {
            return Err(bad(
                path,
                format!("attributes width and height declare {width}x{height} pixels, above the limit of {MAX_PIXELS}"),
            ));
        }
        let tile = size("tile", MAX_TILE)?;
        let n_steps = match i("n_steps")? {
            v if (0..=i64::from(i32::MAX)).contains(&v) => v as u32,
            v => {
                return Err(bad(
                    path,
                    format!("attribute n_steps must be between 0 and 2^31 - 1 (got {v})"),
                ))
            }
        };
        let base_state: Vec<f64> = g
            .attr("base_state")
            .and_then(|a| a.read_raw::<f64>())
            .map_err(attr_err("base_state"))?;
        if base_state.len() < 2 || !base_state.len().is_multiple_of(2) {
            return Err(bad(
                path,
                format!(
                    "attribute base_state must hold 2 numbers per link (got {})",
                    base_state.len()
                ),
            ));
        }
        let links = base_state.len() / 2;
        let shard = match s("shard")?.as_str() {
            "" => None,
            text => Some(
                text.split_once('/')
                    .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
                    .filter(|&(i, n)| 1 <= i && i <= n)
                    .ok_or_else(|| {
                        bad(
                            path,
                            format!("attribute shard must be empty or i/n with 1 <= i <= n (got {text:?})"),
                        )
                    })?,
            ),
        };
        let tiling = crate::analysis::map::Tiling::new(width, height, tile);
        let tile_shape = [tiling.rows(), tiling.cols()];
        let done: Vec<u8> = checked::<u8>(&g, path, "/map/", "tile_done", &tile_shape)?
            .read_raw::<u8>()
            .map_err(h5_bad(path, "reading tile_done"))?;
        if let Some((t, v)) = done.iter().enumerate().find(|(_, &v)| v > 1) {
            return Err(bad(
                path,
                format!("tile_done holds {v} for tile {t}; expected 0 (not in the file) or 1"),
            ));
        }
        let steps: Vec<i64> = checked::<i64>(&g, path, "/map/", "tile_steps", &tile_shape)?
            .read_raw::<i64>()
            .map_err(h5_bad(path, "reading tile_steps"))?;
        if let Some((t, v)) = steps.iter().enumerate().find(|(_, &v)| v < 0) {
            return Err(bad(
                path,
                format!("tile_steps holds {v} for tile {t}; expected a count >= 0"),
            ));
        }
        if !g.link_exists("model") {
            return Err(bad(path, "has no group /map/model"));
        }
        let model = g
            .group("model")
            .map_err(|_| bad(path, "/map/model is not a group"))?;
        check_links(&model, path, "/map/model/")?;
        let col = |name: &str| -> Result<Vec<f64>, StoreError> {
            checked::<f64>(&model, path, "/map/model/", name, &[links])?
                .read_raw::<f64>()
                .map_err(h5_bad(path, format!("reading /map/model/{name}")))
        };
        let optional_col = |name: &str| -> Result<Vec<f64>, StoreError> {
            if model.link_exists(name) {
                col(name)
            } else {
                Ok(vec![])
            }
        };
        let mf = |name: &str| model.attr(name).and_then(|a| a.read_scalar::<f64>()).ok();
        let gravity = model
            .attr("gravity")
            .and_then(|a| a.read_scalar::<f64>())
            .map_err(h5_bad(path, "attribute gravity of /map/model"))?;
        let tile_done: Vec<bool> = done.iter().map(|&d| d == 1).collect();
        let all_done = tile_done.iter().all(|&d| d);
        let complete_attr = b("complete")?;
        if complete_attr != all_done {
            let n = tile_done.iter().filter(|&&d| d).count();
            return Err(bad(
                path,
                format!(
                    "attribute complete = {} but the file holds {n} of {} tiles (tile_done)",
                    u8::from(complete_attr),
                    tile_done.len()
                ),
            ));
        }
        if let Some((i, n)) = shard {
            if let Some(t) = (0..tile_done.len()).find(|&t| tile_done[t] && t % n != i - 1) {
                return Err(bad(
                    path,
                    format!("tile {t} is marked done but is not a tile of shard {i}/{n} (attribute shard)"),
                ));
            }
        }
        let header = MapHeader {
            title: s("title")?,
            model_name: s("model")?,
            kind: {
                let k = s("kind")?;
                Kind::parse(&k).ok_or_else(|| bad(path, format!("unknown map kind {k:?}")))?
            },
            spec_hash: s("spec_hash")?,
            width,
            height,
            tile,
            t_max: positive("t_max")?,
            dt: positive("dt")?,
            n_steps,
            energy_skip: b("energy_skip")?,
            kernel: s("kernel")?,
            flip_target: s("flip_target").unwrap_or_default(),
            x_name: s("x_coordinate")?,
            y_name: s("y_coordinate")?,
            window,
            shard,
            complete: all_done,
            tile_done,
            tile_steps: steps.iter().map(|&v| v as u64).collect(),
            link_length: col("link_length")?,
            link_mass: col("link_mass")?,
            gravity,
            base_state,
            shell: f("shell_energy").ok().zip(s("shell_solve").ok()),
            damping_absolute: optional_col("damping_absolute")?,
            damping_joint: optional_col("damping_joint")?,
            torque: mf("torque_amplitude").zip(mf("torque_frequency")),
            pivot: mf("pivot_x_amplitude")
                .zip(mf("pivot_y_amplitude"))
                .zip(mf("pivot_frequency"))
                .map(|((x, y), w)| (x, y, w)),
        };
        if (header.t_max / header.dt).round() != f64::from(header.n_steps) {
            return Err(bad(
                path,
                format!(
                    "attributes t_max = {} and dt = {} do not give attribute n_steps = {}",
                    header.t_max, header.dt, header.n_steps
                ),
            ));
        }
        // Whatever the map's size, its readers hold a band of tile rows at a time (two for the
        // symmetry check), and read_all checks the whole map against the budget itself.
        let band = (2 * header.tile.min(height) * width) as f64
            * bytes_per_pixel(header.kind, header.kind.aux_columns(links));
        if band > budget {
            return Err(bad(
                path,
                format!(
                    "reading its {width}x{height} pixels a band of {}-pixel tiles at a time needs {}, more than the memory budget of {} (--max-memory)",
                    header.tile,
                    format_bytes(band),
                    format_bytes(budget)
                ),
            ));
        }
        let sums = check_vars(&g, path, &header)?;
        let r = MapReader {
            file,
            path: path.to_path_buf(),
            header,
            budget,
            verified: if sums.is_some() {
                Verified::Tiles
            } else {
                Verified::NoChecksums
            },
        };
        r.verify(sums.as_deref(), &g)?;
        Ok(r)
    }

    /// How much of the file [`MapReader::open`] verified.
    pub fn verified(&self) -> Verified {
        self.verified
    }

    /// The line to print before using a file whose tiles could not be verified (one written
    /// before per-tile checksums), else `None`.
    pub fn warning(&self) -> Option<String> {
        (self.verified == Verified::NoChecksums).then(|| {
            format!(
                "warning: {} has no tile checksums (written by an older pendula), so its tiles are not verified; rerun its map (or shards) to regenerate it with checksums",
                self.path.display()
            )
        })
    }

    /// Reads every tile the file holds once: its checksum (when the file has them), its flip
    /// times, and the totals the attributes state (`steps`, the flip counts, `fnv1a64`).
    fn verify(&self, sums: Option<&[u64]>, g: &Group) -> Result<(), StoreError> {
        let h = &self.header;
        let tiling = h.tiling();
        let path = &self.path;
        let flip = h.is_flip();
        let mut steps: u128 = 0;
        let mut fnv = Fnv::new();
        let mut stats = FlipStats::of(&[], &[], h.dt);
        let flip_time = if flip {
            Some(self.ds("flip_time")?)
        } else {
            None
        };
        for ti in 0..tiling.rows() {
            let first = tiling.rect(ti * tiling.cols());
            let mut band_k = if flip && h.complete {
                vec![0i32; first.rows() * h.width]
            } else {
                vec![]
            };
            for tj in 0..tiling.cols() {
                let index = ti * tiling.cols() + tj;
                if !h.tile_done[index] {
                    continue;
                }
                let t = self
                    .read_tile(index)
                    .map_err(|e| bad(path, format!("tile {index} cannot be read ({e})")))?;
                if let Some(sums) = sums {
                    if tile_checksum(&t, &h.spec_hash) != sums[index] {
                        return Err(bad(
                            path,
                            format!(
                                "tile {index} (tile row {ti}, column {tj}) does not match its checksum: changed after pendula wrote it, or taken from another map"
                            ),
                        ));
                    }
                }
                steps += u128::from(t.steps);
                let Some(ft) = &flip_time else { continue };
                let s = FlipStats::of(&t.flip_step, &t.class, h.dt);
                stats.n_flipped += s.n_flipped;
                stats.sum_flip_steps += s.sum_flip_steps;
                stats.n_forbidden += s.n_forbidden;
                stats.n_forbidden_flipped += s.n_forbidden_flipped;
                stats.n_diverged += s.n_diverged;
                let r = tiling.rect(index);
                let times = ft
                    .read_slice_2d::<f64, _>(s![r.r0..r.r1, r.c0..r.c1])
                    .map_err(h5_bad(path, format!("reading tile {index} of flip_time")))?;
                for (q, (&k, &v)) in t.flip_step.iter().zip(times.iter()).enumerate() {
                    let want = if k > 0 { k as f64 * h.dt } else { f64::NAN };
                    if !(v == want || (v.is_nan() && want.is_nan())) {
                        let (i, j) = (r.r0 + q / r.cols(), r.c0 + q % r.cols());
                        return Err(bad(
                            path,
                            format!(
                                "flip_time at pixel ({i}, {j}) of tile {index} is {v}, not flip_step · dt = {want}"
                            ),
                        ));
                    }
                }
                if !band_k.is_empty() {
                    let mut q = 0;
                    for i in 0..r.rows() {
                        for j in r.c0..r.c1 {
                            band_k[i * h.width + j] = t.flip_step[q];
                            q += 1;
                        }
                    }
                }
            }
            fnv.i32s(&band_k);
        }
        let attr_i64 = |name: &str| g.attr(name).and_then(|a| a.read_scalar::<i64>()).ok();
        let total = |name: &str, found: u128| -> Result<(), StoreError> {
            match attr_i64(name) {
                Some(v) if i128::from(v) != found as i128 => Err(bad(
                    path,
                    format!("attribute {name} = {v} but the tiles in the file give {found}"),
                )),
                _ => Ok(()),
            }
        };
        total("steps", steps)?;
        if flip {
            total("n_flipped", stats.n_flipped.into())?;
            total("sum_flip_steps", stats.sum_flip_steps.into())?;
            total("n_forbidden", stats.n_forbidden.into())?;
            total("n_forbidden_flipped", stats.n_forbidden_flipped.into())?;
            total("n_diverged", stats.n_diverged.into())?;
            let stated = g
                .attr("fnv1a64")
                .and_then(|a| a.read_scalar::<VarLenUnicode>())
                .ok()
                .map(|v| v.as_str().to_string());
            let found = if h.complete { fnv.hex() } else { String::new() };
            if let Some(v) = stated {
                if v != found {
                    return Err(bad(
                        path,
                        format!("attribute fnv1a64 = {v:?} but the flip steps in the file give {found:?}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The spec the file was written from (root attribute `spec`; empty if absent).
    pub fn spec_text(&self) -> String {
        self.file
            .attr("spec")
            .and_then(|a| a.read_scalar::<VarLenUnicode>())
            .map(|v| v.as_str().to_string())
            .unwrap_or_default()
    }

    /// The path the reader was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn ds(&self, name: &str) -> Result<Dataset, StoreError> {
        self.file
            .dataset(&format!("map/{name}"))
            .map_err(h5_err(format!("opening {name} in {}", self.path.display())))
    }

    fn value_name(&self) -> &'static str {
        self.header.kind.value().map_or("", |v| v.name)
    }

    /// Reads the aux variables over rows r0..r1, columns c0..c1 into pixel-major columns.
    fn read_aux(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Result<Vec<f64>, StoreError> {
        let defs = self.header.kind.aux();
        let nl = self.header.link_length.len();
        let m = self.header.kind.aux_columns(nl);
        let np = (r1 - r0) * (c1 - c0);
        let mut out = vec![f64::NAN; np * m];
        let mut off = 0;
        for &Var { name, per_link, .. } in defs {
            // Flip maps written before flip_time_located existed read it as NaN.
            // So are Lyapunov maps' error columns written before they existed.
            if LATE.contains(&name) && !self.file.link_exists(&format!("map/{name}")) {
                off += 1;
                continue;
            }
            let ds = self.ds(name)?;
            let err = h5_err(format!("reading {name}"));
            if per_link {
                let a = ds
                    .read_slice::<f64, _, ndarray::Ix3>(s![r0..r1, c0..c1, ..])
                    .map_err(err)?;
                for (q, v) in a.iter().enumerate() {
                    out[(q / nl) * m + off + q % nl] = *v;
                }
                off += nl;
            } else {
                let a = ds
                    .read_slice_2d::<f64, _>(s![r0..r1, c0..c1])
                    .map_err(err)?;
                for (q, v) in a.iter().enumerate() {
                    out[q * m + off] = *v;
                }
                off += 1;
            }
        }
        Ok(out)
    }

    /// Point symmetry of a complete map (see [`point_symmetric`](crate::analysis::map::point_symmetric)):
    /// (pixel pairs p ↔ P−1−p compared, pairs equal), over `flip_step` of flip-time maps or
    /// `class` and turns of final-state maps (turns negate). Reads a band of tile rows from the
    /// top and its mirror band from the bottom at a time, so that each chunk is decompressed
    /// once or twice and memory stays two bands.
    pub fn symmetry(&self) -> Result<(u64, u64), StoreError> {
        let h = &self.header;
        let (w, ht) = (h.width, h.height);
        let rows = |r0: usize, r1: usize| -> Result<(Vec<i64>, Vec<f64>), StoreError> {
            let err = h5_err(format!("reading rows {r0}..{r1}"));
            if h.is_flip() {
                let k = self
                    .ds("flip_step")?
                    .read_slice_2d::<i32, _>(s![r0..r1, ..])
                    .map_err(err)?;
                Ok((k.iter().map(|&v| i64::from(v)).collect(), vec![]))
            } else {
                let c = self
                    .ds("class")?
                    .read_slice_2d::<u8, _>(s![r0..r1, ..])
                    .map_err(err)?;
                let t = if h.kind == Kind::FinalState {
                    self.read_aux(r0, r1, 0, w)?
                } else {
                    vec![]
                };
                Ok((c.iter().map(|&v| i64::from(v)).collect(), t))
            }
        };
        // Only final-state maps have turns to compare (other kinds compare their class).
        let m = if h.kind == Kind::FinalState {
            h.kind.aux_columns(h.link_length.len())
        } else {
            0
        };
        let nl = h.link_length.len();
        let (mut pairs, mut same) = (0u64, 0u64);
        let half = ht.div_ceil(2);
        let step = h.tile.max(1);
        for i0 in (0..half).step_by(step) {
            let i1 = (i0 + step).min(half);
            // Rows i0..i1 and their mirrors ht−i1..ht−i0.
            let (top, ttop) = rows(i0, i1)?;
            let (bottom, tbottom) = rows(ht - i1, ht - i0)?;
            for i in i0..i1 {
                let (pa, pb) = ((i - i0) * w, (ht - 1 - i - (ht - i1)) * w);
                let cols = if i == ht - 1 - i { w / 2 } else { w };
                for j in 0..cols {
                    let jj = w - 1 - j;
                    pairs += 1;
                    // Turns (columns nl..2nl) of the mirror pixel are the negatives.
                    let turns_ok = m == 0
                        || (0..nl).all(|l| {
                            let (x, y) =
                                (ttop[(pa + j) * m + nl + l], tbottom[(pb + jj) * m + nl + l]);
                            x == -y || (x.is_nan() && y.is_nan())
                        });
                    same += u64::from(top[pa + j] == bottom[pb + jj] && turns_ok);
                }
            }
        }
        Ok((pairs, same))
    }

    /// Reads tile `index` back as it was computed.
    pub fn read_tile(&self, index: usize) -> Result<TileResult, StoreError> {
        let r = self.header.tiling().rect(index);
        let sel = s![r.r0..r.r1, r.c0..r.c1];
        let flat = |a: Array2<u8>| a.iter().copied().collect::<Vec<u8>>();
        let read_err = |n: &str| h5_err(format!("reading tile {index} of {n}"));
        let class = flat(
            self.ds("class")?
                .read_slice_2d::<u8, _>(sel)
                .map_err(read_err("class"))?,
        );
        let mut t = TileResult {
            index,
            flip_step: vec![],
            flip_link: vec![],
            class,
            value: vec![],
            aux: self.read_aux(r.r0, r.r1, r.c0, r.c1)?,
            steps: self.header.tile_steps[index],
        };
        if self.header.is_flip() {
            t.flip_step = self
                .ds("flip_step")?
                .read_slice_2d::<i32, _>(sel)
                .map_err(read_err("flip_step"))?
                .iter()
                .copied()
                .collect();
            t.flip_link = flat(
                self.ds("flip_link")?
                    .read_slice_2d::<u8, _>(sel)
                    .map_err(read_err("flip_link"))?,
            );
        } else {
            t.value = self
                .ds(self.value_name())?
                .read_slice_2d::<f64, _>(sel)
                .map_err(read_err("value"))?
                .iter()
                .copied()
                .collect();
        }
        Ok(t)
    }

    /// Reads the whole map.
    /// The map's grids as `measure` labels them, from its data `d` (read by
    /// [`MapReader::read_all`]).
    pub fn grids<'a>(&'a self, d: &'a MapData) -> crate::analysis::measure::labels::MapGrids<'a> {
        let h = &self.header;
        crate::analysis::measure::labels::MapGrids {
            kind: h.kind,
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
            attractor: h
                .kind
                .facts()
                .labels
                .contains(&"attractor")
                .then_some((&d.aux[..], h.link_length.len())),
        }
    }

    /// What a figure of the map draws: the map itself up to [`FIGURE_EDGE`] pixels a side,
    /// else [`MapReader::read_decimated`] by the smallest step that brings it there.
    pub fn read_for_figure(&self) -> Result<MapData, StoreError> {
        let edge = self.header.width.max(self.header.height);
        self.read_decimated(edge.div_ceil(FIGURE_EDGE))
    }

    /// The map decimated by `step`: pixel (i, j) of the result is pixel (i·step, j·step) of the
    /// map (⌈H/step⌉ × ⌈W/step⌉ pixels), read with strided HDF5 selections, so memory is the
    /// result's, whatever the map's size (what a figure smaller than the map draws). Equal to
    /// [`decimate`] of [`MapReader::read_all`]; `step` 1 is the whole map.
    pub fn read_decimated(&self, step: usize) -> Result<MapData, StoreError> {
        let step = step.max(1);
        if step == 1 {
            return self.read_all();
        }
        let h = &self.header;
        let (w, ht) = (h.width.div_ceil(step), h.height.div_ceil(step));
        let nl = h.link_length.len();
        let m = h.kind.aux_columns(nl);
        let mut d = MapData {
            width: w,
            height: ht,
            flip_step: vec![],
            flip_link: vec![],
            class: Vec::with_capacity(w * ht),
            value: vec![],
            aux: vec![f64::NAN; w * ht * m],
            aux_width: m,
            done: h.tile_done.clone(),
            steps: h.tile_steps.iter().sum(),
        };
        // One band of tile rows at a time: HDF5 keeps a selection per chunk a read touches,
        // which for a strided read of a whole 10⁹-pixel map is gigabytes.
        let band = h.tile.max(1);
        let mut i0 = 0;
        while i0 < ht {
            // Result rows i0..i1 are map rows i0·step.. inside the band of row i0·step.
            let r0 = i0 * step;
            let end = (r0 / band + 1) * band;
            let i1 = end.div_ceil(step).clamp(i0 + 1, ht);
            let rows = r0..(i1 - 1) * step + 1;
            let sel = s![rows.clone();step, ..;step];
            let err = |n: &str| h5_err(format!("reading every {step}th pixel of {n}"));
            let ds = |n: &str| self.ds(n);
            d.class.extend(
                ds("class")?
                    .read_slice_2d::<u8, _>(sel)
                    .map_err(err("class"))?
                    .iter(),
            );
            if h.is_flip() {
                d.flip_step.extend(
                    ds("flip_step")?
                        .read_slice_2d::<i32, _>(sel)
                        .map_err(err("flip_step"))?
                        .iter(),
                );
                d.flip_link.extend(
                    ds("flip_link")?
                        .read_slice_2d::<u8, _>(sel)
                        .map_err(err("flip_link"))?
                        .iter(),
                );
            } else {
                d.value.extend(
                    ds(self.value_name())?
                        .read_slice_2d::<f64, _>(sel)
                        .map_err(err("the value map"))?
                        .iter(),
                );
            }
            let base = i0 * w * m;
            let mut off = 0;
            for &Var { name, per_link, .. } in h.kind.aux() {
                if LATE.contains(&name) && !self.file.link_exists(&format!("map/{name}")) {
                    off += 1;
                    continue;
                }
                let v = ds(name)?;
                if per_link {
                    let a = v
                        .read_slice::<f64, _, ndarray::Ix3>(s![rows.clone();step, ..;step, ..])
                        .map_err(err(name))?;
                    for (q, x) in a.iter().enumerate() {
                        d.aux[base + (q / nl) * m + off + q % nl] = *x;
                    }
                    off += nl;
                } else {
                    let a = v.read_slice_2d::<f64, _>(sel).map_err(err(name))?;
                    for (q, x) in a.iter().enumerate() {
                        d.aux[base + q * m + off] = *x;
                    }
                    off += 1;
                }
            }
            i0 = i1;
        }
        // Pixels of tiles the file does not hold are not computed (as in read_all).
        let tiling = h.tiling();
        let tile = h.tile.max(1);
        for i in 0..ht {
            for j in 0..w {
                let index = (i * step / tile) * tiling.cols() + j * step / tile;
                if h.tile_done[index] {
                    continue;
                }
                let p = i * w + j;
                d.class[p] = NOT_COMPUTED;
                if h.is_flip() {
                    d.flip_step[p] = 0;
                    d.flip_link[p] = 0;
                } else {
                    d.value[p] = f64::NAN;
                }
                d.aux[p * m..(p + 1) * m].fill(f64::NAN);
            }
        }
        Ok(d)
    }

    /// Refuses (before reading) a map whose whole arrays exceed the budget the reader was
    /// opened with; merge, render and the symmetry check never read it whole.
    pub fn read_all(&self) -> Result<MapData, StoreError> {
        let h = &self.header;
        let links = h.link_length.len();
        let (width, height) = (h.width, h.height);
        let need = (width * height) as f64 * bytes_per_pixel(h.kind, h.kind.aux_columns(links));
        if need > self.budget {
            return Err(bad(
                &self.path,
                format!(
                    "reading its {width}x{height} pixels whole needs {}, more than the memory budget of {} (--max-memory)",
                    format_bytes(need),
                    format_bytes(self.budget)
                ),
            ));
        }
        let raw_u8 = |n: &str| -> Result<Vec<u8>, StoreError> {
            self.ds(n)?
                .read_raw::<u8>()
                .map_err(h5_err(format!("reading {n}")))
        };
        let mut d = MapData {
            width: h.width,
            height: h.height,
            flip_step: vec![],
            flip_link: vec![],
            class: raw_u8("class")?,
            value: vec![],
            aux: self.read_aux(0, h.height, 0, h.width)?,
            aux_width: 0,
            done: h.tile_done.clone(),
            steps: h.tile_steps.iter().sum(),
        };
        d.aux_width = d.aux.len() / (h.width * h.height).max(1);
        if h.is_flip() {
            d.flip_step = self
                .ds("flip_step")?
                .read_raw::<i32>()
                .map_err(h5_err("reading flip_step"))?;
            d.flip_link = raw_u8("flip_link")?;
        } else {
            d.value = self
                .ds(self.value_name())?
                .read_raw::<f64>()
                .map_err(h5_err("reading the value map"))?;
        }
        // What the file holds outside its tiles was never verified: those pixels are not
        // computed (as the writer leaves them).
        let tiling = h.tiling();
        let m = d.aux_width;
        for (index, _) in h.tile_done.iter().enumerate().filter(|(_, &done)| !done) {
            let r = tiling.rect(index);
            for i in r.r0..r.r1 {
                for p in i * h.width + r.c0..i * h.width + r.c1 {
                    d.class[p] = NOT_COMPUTED;
                    if h.is_flip() {
                        d.flip_step[p] = 0;
                        d.flip_link[p] = 0;
                    } else {
                        d.value[p] = f64::NAN;
                    }
                    d.aux[p * m..(p + 1) * m].fill(f64::NAN);
                }
            }
        }
        Ok(d)
    }
}

/// Checks that a map file can be written at `path` before work starts (as for every result).
pub fn check_map_output(path: &Path, force: bool) -> Result<(), StoreError> {
    check_output_path(path, force)
}

/// `d` decimated by `step` as [`MapReader::read_decimated`] reads it: pixel (i, j) of the
/// result is pixel (i·step, j·step) of `d`.
pub fn decimate(d: &MapData, step: usize) -> MapData {
    let step = step.max(1);
    let (w, ht) = (d.width.div_ceil(step), d.height.div_ceil(step));
    let src = |i: usize, j: usize| i * step * d.width + j * step;
    let pick = |v: &[u8]| -> Vec<u8> {
        if v.is_empty() {
            return vec![];
        }
        (0..ht)
            .flat_map(|i| (0..w).map(move |j| (i, j)))
            .map(|(i, j)| v[src(i, j)])
            .collect()
    };
    let pixels = || (0..ht).flat_map(|i| (0..w).map(move |j| src(i, j)));
    let m = d.aux_width;
    MapData {
        width: w,
        height: ht,
        flip_step: if d.flip_step.is_empty() {
            vec![]
        } else {
            pixels().map(|p| d.flip_step[p]).collect()
        },
        flip_link: pick(&d.flip_link),
        class: pick(&d.class),
        value: if d.value.is_empty() {
            vec![]
        } else {
            pixels().map(|p| d.value[p]).collect()
        },
        aux: pixels()
            .flat_map(|p| d.aux[p * m..(p + 1) * m].iter().copied())
            .collect(),
        aux_width: m,
        done: d.done.clone(),
        steps: d.steps,
    }
}
