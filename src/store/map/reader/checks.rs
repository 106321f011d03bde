//! The structure of a map file, checked before anything reads it: no links that leave the
//! file, every variable of the element type, shape and storage the header says.

use super::*;
use crate::analysis::map::kinds::Var;
use hdf5::{Group, H5Type, LinkType};

/// `e` as a one-line refusal of `path`: "`what`: the HDF5 error".
pub(super) fn h5_bad(
    path: &Path,
    what: impl Into<String>,
) -> impl FnOnce(hdf5::Error) -> StoreError {
    let (path, what) = (path.to_path_buf(), what.into());
    move |e| bad(&path, format!("{what}: {}", one_line(&e)))
}

/// Refuses soft and external links in `g` (`at`: its path with a trailing `/`): a map file
/// holds its groups and variables itself.
pub(super) fn check_links(g: &Group, path: &Path, at: &str) -> Result<(), StoreError> {
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
pub(super) fn checked<T: H5Type>(
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
pub(super) fn bytes_per_pixel(kind: MapKindId, aux_columns: usize) -> f64 {
    let main = if kind.is_flip() { 4.0 + 1.0 + 8.0 } else { 8.0 };
    1.0 + main + 8.0 * aux_columns as f64
}

/// Checks every variable of the map `h` (element type, shape, storage) before anything reads
/// it; returns the per-tile checksums, `None` for a file written before they existed.
pub(super) fn check_vars(
    g: &Group,
    path: &Path,
    h: &MapHeader,
) -> Result<Option<Vec<u64>>, StoreError> {
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
        let name = stored_name(g, name);
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
/// maps' `flip_time_located`, Lyapunov maps' error columns, frequency maps' error).
/// Variables renamed since files were first written: (name, the name older files use), read
/// under either. The frequency map's angular frequencies were `nu_*` (ν is for Hz).
pub(super) const RENAMED: [(&str, &str); 2] =
    [("omega_first", "nu_first"), ("omega_second", "nu_second")];

/// The name `name` is stored under in the map group `g`: its own, or the older one
/// ([`RENAMED`]) where only that exists.
pub(super) fn stored_name<'a>(g: &Group, name: &'a str) -> &'a str {
    match RENAMED.iter().find(|(new, _)| *new == name) {
        Some((_, old)) if !g.link_exists(name) && g.link_exists(old) => old,
        _ => name,
    }
}

pub(super) const LATE: [&str; 8] = [
    "flip_time_located",
    "lyapunov_standard_error",
    "time_used",
    "converged",
    "diffusion_index_error",
    "diffusion_index_quarter",
    "diffusion_index_half",
    "verdict",
];
