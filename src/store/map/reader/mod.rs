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

use super::*;
use crate::analysis::map::MapKindId;
use crate::limits::{format_bytes, Budget};
use crate::store::h5::{one_line, open_input};
use checks::{bytes_per_pixel, check_links, check_vars};
use hdf5::Group;

mod checks;
mod header;
mod read;
mod verify;

pub use read::decimate;

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
impl MapReader {
    /// Opens `path`, checks it (see the module doc) within the machine's default memory
    /// budget; refuses files that are not pendula maps, or not intact ones.
    pub fn open(path: &Path) -> Result<MapReader, StoreError> {
        MapReader::open_within(path, Budget::machine().bytes)
    }

    /// [`MapReader::open`] with a memory budget of `budget` bytes for [`MapReader::read_all`].
    pub fn open_within(path: &Path, budget: f64) -> Result<MapReader, StoreError> {
        let file = open_input(path)?;
        let g = map_group(&file, path)?;
        let header = header::read_header(&g, path)?;
        check_band(&header, path, budget)?;
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

    /// The name `name` is stored under in this file (its own or an older one).
    fn stored_name<'a>(&self, name: &'a str) -> &'a str {
        match self.file.group("map") {
            Ok(g) => checks::stored_name(&g, name),
            Err(_) => name,
        }
    }

    fn ds(&self, name: &str) -> Result<Dataset, StoreError> {
        self.file
            .dataset(&format!("map/{name}"))
            .map_err(h5_err(format!("opening {name} in {}", self.path.display())))
    }

    fn value_name(&self) -> &'static str {
        self.header.kind.value().map_or("", |v| v.name)
    }
}

/// Group `/map` of `file`, refused when the file is not a map file or links out of itself.
fn map_group(file: &File, path: &Path) -> Result<Group, StoreError> {
    check_links(file, path, "/")?;
    if !file.link_exists("map") {
        return Err(bad(path, "is not a pendula map file (no /map group)"));
    }
    let g = file
        .group("map")
        .map_err(|_| bad(path, "is not a pendula map file (/map is not a group)"))?;
    check_links(&g, path, "/map/")?;
    Ok(g)
}

/// Refuses a map whose band of tile rows does not fit `budget`: whatever the map's size, its
/// readers hold a band at a time (two for the symmetry check), and read_all checks the whole
/// map against the budget itself.
fn check_band(header: &MapHeader, path: &Path, budget: f64) -> Result<(), StoreError> {
    let (width, height) = (header.width, header.height);
    let links = header.link_length.len();
    let band = (2 * header.tile.min(height) * width) as f64
        * bytes_per_pixel(header.kind, header.kind.aux_columns(links));
    if band > budget {
        return Err(over_budget(
            path,
            format!(
                "reading its {width}x{height} pixels a band of {}-pixel tiles at a time needs {}, more than the memory budget of {}",
                header.tile,
                format_bytes(band),
                format_bytes(budget)
            ),
        ));
    }
    Ok(())
}

/// Checks that a map file can be written at `path` before work starts (as for every result).
pub fn check_map_output(path: &Path, force: bool) -> Result<(), StoreError> {
    check_output_path(path, force)
}
