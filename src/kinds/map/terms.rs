//! What a map run holds in memory ([`map_terms`]): the map's own settings
//! ([`crate::kinds::Settings::memory`]) and a measure spec's map count it the same way.

use crate::analysis::map::{MapKind, MapOptions};
use crate::kinds::memory::{solver, threads, Term, F64};
use crate::store::map::FIGURE_EDGE;

/// A map run (or shard `shard`, `(i, n)`): its tiles in flight, the band of tiles the
/// assembly holds, the per-tile bookkeeping and the figure; a measure's label grids besides.
///
/// The map itself is never in memory: tiles stream to the checkpoint, and the file is
/// assembled from it one band of tile rows at a time, of which a shard holds only its own
/// tiles (every n-th), so the band term is ~1/n of the whole run's, and `--shard` is what
/// lowers it; the figure reads at most [`FIGURE_EDGE`]² pixels (a decimated read).
pub fn map_terms(
    o: &MapOptions,
    measure: bool,
    shard: Option<(usize, usize)>,
    n: usize,
    dim: f64,
    terms: &mut Vec<Term>,
) {
    let (w, h) = (o.grid.width as f64, o.grid.height as f64);
    let px = w * h;
    let pixels = format!("{}×{} pixels", o.grid.width, o.grid.height);
    if measure {
        // The label grid (u32), two Wada masks (u64) and the box-count flags.
        terms.push(Term {
            bytes: px * (4.0 + 16.0 + 2.0),
            field: "map.resolution",
            driver: pixels.clone(),
            what: "the measures' label grid and masks",
        });
    }
    let flip = matches!(o.kind, MapKind::FlipTime { .. });
    let aux = o.kind.aux_columns(n) as f64;
    // A pixel as a tile holds it, and as the file stores it.
    let per_px = (if flip { 4.0 + 1.0 } else { 8.0 }) + 1.0 + aux * F64;
    let tile = o.tile.max(1) as f64;
    let cols = (w / tile).ceil();
    let tiles_total = cols * (h / tile).ceil();
    let parts = shard.map_or(1.0, |(_, k)| k as f64);
    let band_tiles = (cols / parts).ceil();
    // The band's tiles, their variables' columns, and each tile's padded, shuffled and
    // deflated chunk; a whole flip map also the band's flip steps (the row-major checksum).
    let band_k = if flip && shard.is_none() {
        tile * w * 4.0
    } else {
        0.0
    };
    terms.push(Term {
        bytes: band_tiles * tile * tile * per_px * 4.0 + band_k,
        field: "map.resolution",
        driver: pixels.clone(),
        what: "the assembly's band of tiles (--shard i/n holds 1/n of it)",
    });
    // Which tiles are done, and per tile its steps and checksum (whole-map arrays of a
    // number a tile), this run's tile list.
    terms.push(Term {
        bytes: tiles_total * 32.0 + (tiles_total / parts).ceil() * 16.0,
        field: "map.tile",
        driver: format!("{tiles_total:.0} tiles"),
        what: "the tiles' bookkeeping",
    });
    // The figure: the map read decimated to at most FIGURE_EDGE a side, its values, classes
    // and colours.
    let step = (w.max(h) / FIGURE_EDGE as f64).ceil().max(1.0);
    terms.push(Term {
        bytes: (w / step).ceil() * (h / step).ceil() * (per_px + 8.0 + 1.0 + 4.0)
            + 16.0 * 1024.0 * 1024.0,
        field: "map.resolution",
        driver: pixels,
        what: "the figure",
    });
    // Tiles in flight: every pixel's state (and tangent vectors) through the kernel.
    let tangents = match o.kind {
        MapKind::Lyapunov { .. } | MapKind::Ftle => dim,
        MapKind::Sali { .. } => 2.0,
        MapKind::Megno { .. } => 1.0,
        MapKind::Gali { k, .. } => k as f64,
        _ => 0.0,
    };
    terms.push(Term {
        bytes: threads() * tile * tile * solver(dim * (1.0 + tangents)) / 4.0,
        field: "map.tile",
        driver: format!("tiles of {}×{} pixels", o.tile, o.tile),
        what: "the tiles in flight",
    });
    if let MapKind::Frequency { samples, .. } = o.kind {
        // Each tile in flight holds its pixels' sampled orbits and the NAFF workspaces of the
        // whole run and of a half: per sample ≈ 136 B (FFT buffer, window and time weights,
        // five complex work vectors) + 68 B (the half) + 16 B (the link signal), and the
        // samples of θ and θ̇ of a lane group (8 lanes × 2 links × 16 B) or of one pixel of
        // an N-link chain (16·N B). Independent of the resolution: `samples` drives it.
        let per_sample = 220.0 + (16.0 * n as f64).max(256.0);
        let in_flight = threads().min(tiles_total).max(1.0);
        terms.push(Term {
            bytes: in_flight * f64::from(samples) * per_sample,
            field: "map.samples",
            driver: format!("{samples} samples per pixel"),
            what: "the sampled orbits and frequency analyses in flight",
        });
    }
}
