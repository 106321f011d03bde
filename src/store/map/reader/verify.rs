//! The tiles of a map file checked against what its attributes state: every tile's checksum,
//! its flip times, and the totals (`steps`, the flip counts, `fnv1a64`).

use super::checks::h5_bad;
use super::*;
use crate::analysis::map::TileRect;
use crate::store::map::codec::tile_checksum;
use hdf5::Group;

impl MapReader {
    /// Reads every tile the file holds once: its checksum (when the file has them), its flip
    /// times, and the totals the attributes state (`steps`, the flip counts, `fnv1a64`).
    pub(super) fn verify(&self, sums: Option<&[u64]>, g: &Group) -> Result<(), StoreError> {
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
                self.check_flip_times(ft, &t, &r)?;
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
        check_totals(g, path, steps, flip.then_some((&stats, h.complete, &fnv)))
    }

    /// Refuses tile `t` (at `r`) when a pixel's `flip_time` (dataset `ft`) is not its
    /// `flip_step · dt` (NaN where it never flipped).
    fn check_flip_times(
        &self,
        ft: &Dataset,
        t: &TileResult,
        r: &TileRect,
    ) -> Result<(), StoreError> {
        let (h, path, index) = (&self.header, &self.path, t.index);
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
        Ok(())
    }
}

/// Refuses totals that the attributes of `g` state and the tiles do not reproduce: `steps`,
/// and for a flip map (`flip`: its stats, whether it is complete, the hash of its flip steps)
/// the flip counts and `fnv1a64`.
fn check_totals(
    g: &Group,
    path: &Path,
    steps: u128,
    flip: Option<(&FlipStats, bool, &Fnv)>,
) -> Result<(), StoreError> {
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
    if let Some((stats, complete, fnv)) = flip {
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
        let found = if complete { fnv.hex() } else { String::new() };
        if let Some(v) = stated {
            if v != found {
                return Err(bad(
                    path,
                    format!(
                        "attribute fnv1a64 = {v:?} but the flip steps in the file give {found:?}"
                    ),
                ));
            }
        }
    }
    Ok(())
}
