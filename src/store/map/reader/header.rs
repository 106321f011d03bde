//! A map file's header: the attributes of group `/map` and its `model`, with the tile arrays
//! `tile_done` and `tile_steps`, each checked as input before anything divides by, allocates
//! from or indexes with it.

use super::checks::{check_links, checked, h5_bad};
use super::*;
use crate::analysis::map::Tiling;
use hdf5::Group;

/// The attributes of a group of the map file at `path`, read as input: a missing attribute
/// or one of another type is refused naming it.
struct Attrs<'a> {
    g: &'a Group,
    path: &'a Path,
}

impl Attrs<'_> {
    fn err(&self, name: &str) -> impl FnOnce(hdf5::Error) -> StoreError {
        h5_bad(self.path, format!("attribute {name}"))
    }

    fn s(&self, name: &str) -> Result<String, StoreError> {
        self.g
            .attr(name)
            .and_then(|a| a.read_scalar::<VarLenUnicode>())
            .map(|v| v.as_str().to_string())
            .map_err(self.err(name))
    }

    fn i(&self, name: &str) -> Result<i64, StoreError> {
        self.g
            .attr(name)
            .and_then(|a| a.read_scalar::<i64>())
            .map_err(self.err(name))
    }

    fn f(&self, name: &str) -> Result<f64, StoreError> {
        self.g
            .attr(name)
            .and_then(|a| a.read_scalar::<f64>())
            .map_err(self.err(name))
    }

    fn b(&self, name: &str) -> Result<bool, StoreError> {
        self.g
            .attr(name)
            .and_then(|a| a.read_scalar::<i8>())
            .map(|v| v != 0)
            .map_err(self.err(name))
    }

    fn f64s(&self, name: &str) -> Result<Vec<f64>, StoreError> {
        self.g
            .attr(name)
            .and_then(|a| a.read_raw::<f64>())
            .map_err(self.err(name))
    }

    /// A size the tiling divides by and allocates from: 1 to `max`.
    fn size(&self, name: &str, max: usize) -> Result<usize, StoreError> {
        match self.i(name)? {
            v if v >= 1 && v as u64 <= max as u64 => Ok(v as usize),
            v => Err(bad(
                self.path,
                format!("attribute {name} must be between 1 and {max} (got {v})"),
            )),
        }
    }

    fn positive(&self, name: &str) -> Result<f64, StoreError> {
        match self.f(name)? {
            v if v.is_finite() && v > 0.0 => Ok(v),
            v => Err(bad(
                self.path,
                format!("attribute {name} must be a finite number > 0 (got {v})"),
            )),
        }
    }

    /// The window xlo < xhi, ylo < yhi, checked before anything indexes or divides by it.
    fn window(&self) -> Result<[f64; 4], StoreError> {
        let window = self.f64s("window")?;
        match window[..] {
            [x0, x1, y0, y1] if x0 < x1 && y0 < y1 && (x1 - x0).is_finite() && (y1 - y0).is_finite() => {
                Ok([x0, x1, y0, y1])
            }
            _ => Err(bad(
                self.path,
                format!(
                    "attribute window must hold 4 finite numbers xlo < xhi, ylo < yhi (got {window:?})"
                ),
            )),
        }
    }

    /// Width and height, within [`MAX_PIXELS`] together.
    fn pixels(&self) -> Result<(usize, usize), StoreError> {
        let (width, height) = (
            self.size("width", MAX_PIXELS)?,
            self.size("height", MAX_PIXELS)?,
        );
        if width.saturating_mul(height) > MAX_PIXELS {
            return Err(bad(
                self.path,
                format!("attributes width and height declare {width}x{height} pixels, above the limit of {MAX_PIXELS}"),
            ));
        }
        Ok((width, height))
    }

    fn n_steps(&self) -> Result<u32, StoreError> {
        match self.i("n_steps")? {
            v if (0..=i64::from(i32::MAX)).contains(&v) => Ok(v as u32),
            v => Err(bad(
                self.path,
                format!("attribute n_steps must be between 0 and 2^31 - 1 (got {v})"),
            )),
        }
    }

    /// The base state: 2 numbers a link, at least one link.
    fn base_state(&self) -> Result<Vec<f64>, StoreError> {
        let base_state = self.f64s("base_state")?;
        if base_state.len() < 2 || !base_state.len().is_multiple_of(2) {
            return Err(bad(
                self.path,
                format!(
                    "attribute base_state must hold 2 numbers per link (got {})",
                    base_state.len()
                ),
            ));
        }
        Ok(base_state)
    }

    /// The shard `(i, n)` the file holds, `None` for a whole map (an empty attribute).
    fn shard(&self) -> Result<Option<(usize, usize)>, StoreError> {
        Ok(match self.s("shard")?.as_str() {
            "" => None,
            text => Some(
                text.split_once('/')
                    .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
                    .filter(|&(i, n)| 1 <= i && i <= n)
                    .ok_or_else(|| {
                        bad(
                            self.path,
                            format!("attribute shard must be empty or i/n with 1 <= i <= n (got {text:?})"),
                        )
                    })?,
            ),
        })
    }
}

/// The tile arrays of `/map` (`g`): which tiles the file holds (`tile_done`, 0 or 1) and the
/// steps each took (`tile_steps`, >= 0).
fn tile_arrays(g: &Group, path: &Path, tiling: &Tiling) -> Result<(Vec<u8>, Vec<i64>), StoreError> {
    let tile_shape = [tiling.rows(), tiling.cols()];
    let done: Vec<u8> = checked::<u8>(g, path, "/map/", "tile_done", &tile_shape)?
        .read_raw::<u8>()
        .map_err(h5_bad(path, "reading tile_done"))?;
    if let Some((t, v)) = done.iter().enumerate().find(|(_, &v)| v > 1) {
        return Err(bad(
            path,
            format!("tile_done holds {v} for tile {t}; expected 0 (not in the file) or 1"),
        ));
    }
    let steps: Vec<i64> = checked::<i64>(g, path, "/map/", "tile_steps", &tile_shape)?
        .read_raw::<i64>()
        .map_err(h5_bad(path, "reading tile_steps"))?;
    if let Some((t, v)) = steps.iter().enumerate().find(|(_, &v)| v < 0) {
        return Err(bad(
            path,
            format!("tile_steps holds {v} for tile {t}; expected a count >= 0"),
        ));
    }
    Ok((done, steps))
}

/// Group `/map/model`: the chain's columns (one value a link) and its optional parameters.
struct Model<'a> {
    g: Group,
    path: &'a Path,
    links: usize,
}

impl<'a> Model<'a> {
    fn open(map: &Group, path: &'a Path, links: usize) -> Result<Model<'a>, StoreError> {
        if !map.link_exists("model") {
            return Err(bad(path, "has no group /map/model"));
        }
        let g = map
            .group("model")
            .map_err(|_| bad(path, "/map/model is not a group"))?;
        check_links(&g, path, "/map/model/")?;
        Ok(Model { g, path, links })
    }

    fn col(&self, name: &str) -> Result<Vec<f64>, StoreError> {
        checked::<f64>(&self.g, self.path, "/map/model/", name, &[self.links])?
            .read_raw::<f64>()
            .map_err(h5_bad(self.path, format!("reading /map/model/{name}")))
    }

    /// A column files may lack (empty then).
    fn optional_col(&self, name: &str) -> Result<Vec<f64>, StoreError> {
        if self.g.link_exists(name) {
            self.col(name)
        } else {
            Ok(vec![])
        }
    }

    /// An optional scalar parameter.
    fn f(&self, name: &str) -> Option<f64> {
        self.g.attr(name).and_then(|a| a.read_scalar::<f64>()).ok()
    }
}

/// Refuses an attribute `complete` that does not say whether every tile is done.
fn check_complete(a: &Attrs<'_>, tile_done: &[bool]) -> Result<bool, StoreError> {
    let all_done = tile_done.iter().all(|&d| d);
    let complete_attr = a.b("complete")?;
    if complete_attr != all_done {
        let n = tile_done.iter().filter(|&&d| d).count();
        return Err(bad(
            a.path,
            format!(
                "attribute complete = {} but the file holds {n} of {} tiles (tile_done)",
                u8::from(complete_attr),
                tile_done.len()
            ),
        ));
    }
    Ok(all_done)
}

/// Refuses a tile marked done that is not a tile of the file's shard.
fn check_shard(
    path: &Path,
    shard: Option<(usize, usize)>,
    tile_done: &[bool],
) -> Result<(), StoreError> {
    if let Some((i, n)) = shard {
        if let Some(t) = (0..tile_done.len()).find(|&t| tile_done[t] && t % n != i - 1) {
            return Err(bad(
                path,
                format!(
                    "tile {t} is marked done but is not a tile of shard {i}/{n} (attribute shard)"
                ),
            ));
        }
    }
    Ok(())
}

/// Reads and checks the header of the map group `g` of the file at `path` (see the module
/// doc of [`super`]), in the order a corrupt file meets its first refusal.
pub(super) fn read_header(g: &Group, path: &Path) -> Result<MapHeader, StoreError> {
    let a = Attrs { g, path };
    let window = a.window()?;
    let (width, height) = a.pixels()?;
    let tile = a.size("tile", MAX_TILE)?;
    let n_steps = a.n_steps()?;
    let base_state = a.base_state()?;
    let links = base_state.len() / 2;
    let shard = a.shard()?;
    let tiling = Tiling::new(width, height, tile);
    let (done, steps) = tile_arrays(g, path, &tiling)?;
    let model = Model::open(g, path, links)?;
    let gravity = model
        .g
        .attr("gravity")
        .and_then(|a| a.read_scalar::<f64>())
        .map_err(h5_bad(path, "attribute gravity of /map/model"))?;
    let tile_done: Vec<bool> = done.iter().map(|&d| d == 1).collect();
    let all_done = check_complete(&a, &tile_done)?;
    check_shard(path, shard, &tile_done)?;
    let header = MapHeader {
        title: a.s("title")?,
        model_name: a.s("model")?,
        kind: {
            let k = a.s("kind")?;
            MapKindId::parse(&k).ok_or_else(|| bad(path, format!("unknown map kind {k:?}")))?
        },
        spec_hash: a.s("spec_hash")?,
        width,
        height,
        tile,
        t_max: a.positive("t_max")?,
        dt: a.positive("dt")?,
        n_steps,
        energy_skip: a.b("energy_skip")?,
        kernel: a.s("kernel")?,
        flip_target: a.s("flip_target").unwrap_or_default(),
        x_name: a.s("x_coordinate")?,
        y_name: a.s("y_coordinate")?,
        window,
        shard,
        complete: all_done,
        tile_done,
        tile_steps: steps.iter().map(|&v| v as u64).collect(),
        link_length: model.col("link_length")?,
        link_mass: model.col("link_mass")?,
        gravity,
        base_state,
        shell: a.f("shell_energy").ok().zip(a.s("shell_solve").ok()),
        damping_absolute: model.optional_col("damping_absolute")?,
        damping_joint: model.optional_col("damping_joint")?,
        torque: model.f("torque_amplitude").zip(model.f("torque_frequency")),
        pivot: model
            .f("pivot_x_amplitude")
            .zip(model.f("pivot_y_amplitude"))
            .zip(model.f("pivot_frequency"))
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
    Ok(header)
}
