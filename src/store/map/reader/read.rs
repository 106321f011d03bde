//! Reading a checked map file's pixels: a tile, the whole map, a decimated map for a figure,
//! and the point-symmetry check that reads it band by band.

use super::checks::{bytes_per_pixel, LATE};
use super::*;
use crate::analysis::map::kinds::Var;
use crate::limits::format_bytes;
use std::ops::Range;

impl MapReader {
    /// Reads the aux variables over rows r0..r1, columns c0..c1 into pixel-major columns.
    fn read_aux(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Result<Vec<f64>, StoreError> {
        let m = self.header.kind.aux_columns(self.header.link_length.len());
        let mut out = vec![f64::NAN; (r1 - r0) * (c1 - c0) * m];
        self.read_aux_into(r0..r1, c0..c1, 1, &mut out, |name| {
            format!("reading {name}")
        })?;
        Ok(out)
    }

    /// Reads the aux variables over every `step`th row of `rows` and column of `cols` into
    /// `out`, pixel-major ([`MapData::aux`]'s layout); `what` names the read of a variable in an
    /// error. One home for the whole-map, tile and decimated reads, so they lay out alike.
    fn read_aux_into(
        &self,
        rows: Range<usize>,
        cols: Range<usize>,
        step: usize,
        out: &mut [f64],
        what: impl Fn(&str) -> String,
    ) -> Result<(), StoreError> {
        let nl = self.header.link_length.len();
        let m = self.header.kind.aux_columns(nl);
        let mut off = 0;
        for &Var { name, per_link, .. } in self.header.kind.aux() {
            // Flip maps written before flip_time_located existed read it as NaN.
            // So are Lyapunov maps' error columns written before they existed.
            if LATE.contains(&name) && !self.file.link_exists(&format!("map/{name}")) {
                off += 1;
                continue;
            }
            let name = self.stored_name(name);
            let ds = self.ds(name)?;
            let err = h5_err(what(name));
            if per_link {
                let a = ds
                    .read_slice::<f64, _, ndarray::Ix3>(
                        s![rows.clone();step, cols.clone();step, ..],
                    )
                    .map_err(err)?;
                for (q, v) in a.iter().enumerate() {
                    out[(q / nl) * m + off + q % nl] = *v;
                }
                off += nl;
            } else {
                let a = ds
                    .read_slice_2d::<f64, _>(s![rows.clone();step, cols.clone();step])
                    .map_err(err)?;
                for (q, v) in a.iter().enumerate() {
                    out[q * m + off] = *v;
                }
                off += 1;
            }
        }
        Ok(())
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
                let t = if h.kind == MapKindId::FinalState {
                    self.read_aux(r0, r1, 0, w)?
                } else {
                    vec![]
                };
                Ok((c.iter().map(|&v| i64::from(v)).collect(), t))
            }
        };
        // Only final-state maps have turns to compare (other kinds compare their class).
        let m = if h.kind == MapKindId::FinalState {
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
            let band_aux = &mut d.aux[i0 * w * m..i1 * w * m];
            self.read_aux_into(rows, 0..h.width, step, band_aux, |n| {
                format!("reading every {step}th pixel of {n}")
            })?;
            i0 = i1;
        }
        // Pixels of tiles the file does not hold are not computed (as in read_all).
        let tiling = h.tiling();
        let tile = h.tile.max(1);
        for i in 0..ht {
            for j in 0..w {
                let index = (i * step / tile) * tiling.cols() + j * step / tile;
                if !h.tile_done[index] {
                    not_computed(&mut d, i * w + j, h.is_flip());
                }
            }
        }
        Ok(d)
    }

    /// Reads the whole map.
    /// Refuses (before reading) a map whose whole arrays exceed the budget the reader was
    /// opened with; merge, render and the symmetry check never read it whole.
    pub fn read_all(&self) -> Result<MapData, StoreError> {
        let h = &self.header;
        let links = h.link_length.len();
        let (width, height) = (h.width, h.height);
        let need = (width * height) as f64 * bytes_per_pixel(h.kind, h.kind.aux_columns(links));
        if need > self.budget {
            return Err(over_budget(
                &self.path,
                format!(
                    "reading its {width}x{height} pixels whole needs {}, more than the memory budget of {}",
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
        for (index, _) in h.tile_done.iter().enumerate().filter(|(_, &done)| !done) {
            let r = tiling.rect(index);
            for i in r.r0..r.r1 {
                for p in i * h.width + r.c0..i * h.width + r.c1 {
                    not_computed(&mut d, p, h.is_flip());
                }
            }
        }
        Ok(d)
    }
}

/// Marks pixel `p` of `d` not computed, as a pixel outside the file's tiles reads: its class
/// [`NOT_COMPUTED`], no flip (`flip`) or a NaN value, NaN aux columns.
fn not_computed(d: &mut MapData, p: usize, flip: bool) {
    let m = d.aux_width;
    d.class[p] = NOT_COMPUTED;
    if flip {
        d.flip_step[p] = 0;
        d.flip_link[p] = 0;
    } else {
        d.value[p] = f64::NAN;
    }
    d.aux[p * m..(p + 1) * m].fill(f64::NAN);
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
