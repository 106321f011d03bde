//! Reading a map file back: its header, tile by tile (merge) or whole (render, measure).

use super::*;
use crate::analysis::map::kinds::Var;
use crate::analysis::map::Kind;

/// An open map file, read tile by tile (merge) or whole (render).
pub struct MapReader {
    file: File,
    path: PathBuf,
    pub header: MapHeader,
}

impl std::fmt::Debug for MapReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapReader")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl MapReader {
    /// Opens `path` and reads its header; refuses files that are not pendula maps.
    pub fn open(path: &Path) -> Result<MapReader, StoreError> {
        let file = File::open(path).map_err(h5_err(format!("opening {}", path.display())))?;
        let g = file
            .group("map")
            .map_err(|_| bad(path, "is not a pendula map file (no /map group)"))?;
        let s = |name: &str| -> Result<String, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<VarLenUnicode>())
                .map(|v| v.as_str().to_string())
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let i = |name: &str| -> Result<i64, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<i64>())
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let f = |name: &str| -> Result<f64, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<f64>())
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let b = |name: &str| -> Result<bool, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<i8>())
                .map(|v| v != 0)
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        // Sizes the tiling divides by and allocates from.
        let size = |name: &str| -> Result<usize, StoreError> {
            match i(name)? {
                v if v >= 1 => Ok(v as usize),
                v => Err(bad(
                    path,
                    format!("attribute {name} must be >= 1 (got {v})"),
                )),
            }
        };
        let window: Vec<f64> = g
            .attr("window")
            .and_then(|a| a.read_raw::<f64>())
            .map_err(h5_err("reading attribute window"))?;
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
        let base_state: Vec<f64> = g
            .attr("base_state")
            .and_then(|a| a.read_raw::<f64>())
            .map_err(h5_err("reading attribute base_state"))?;
        let shard = s("shard")?;
        let shard = shard
            .split_once('/')
            .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
        let done: Vec<u8> = g
            .dataset("tile_done")
            .and_then(|d| d.read_raw::<u8>())
            .map_err(h5_err("reading tile_done"))?;
        let steps: Vec<i64> = g
            .dataset("tile_steps")
            .and_then(|d| d.read_raw::<i64>())
            .map_err(h5_err("reading tile_steps"))?;
        let model = g.group("model").map_err(h5_err("opening /map/model"))?;
        let col = |name: &str| -> Result<Vec<f64>, StoreError> {
            model
                .dataset(name)
                .and_then(|d| d.read_raw::<f64>())
                .map_err(h5_err(format!("reading {name}")))
        };
        let mf = |name: &str| model.attr(name).and_then(|a| a.read_scalar::<f64>()).ok();
        let gravity = model
            .attr("gravity")
            .and_then(|a| a.read_scalar::<f64>())
            .map_err(h5_err("reading gravity"))?;
        let header = MapHeader {
            title: s("title")?,
            model_name: s("model")?,
            kind: {
                let k = s("kind")?;
                Kind::parse(&k).ok_or_else(|| bad(path, format!("unknown map kind `{k}`")))?
            },
            spec_hash: s("spec_hash")?,
            width: size("width")?,
            height: size("height")?,
            tile: size("tile")?,
            t_max: f("t_max")?,
            dt: f("dt")?,
            n_steps: i("n_steps")? as u32,
            energy_skip: b("energy_skip")?,
            kernel: s("kernel")?,
            flip_target: s("flip_target").unwrap_or_default(),
            x_name: s("x_coordinate")?,
            y_name: s("y_coordinate")?,
            window,
            shard,
            complete: b("complete")?,
            tile_done: done.iter().map(|&d| d == 1).collect(),
            tile_steps: steps.iter().map(|&v| v as u64).collect(),
            link_length: col("link_length")?,
            link_mass: col("link_mass")?,
            gravity,
            base_state,
            shell: f("shell_energy").ok().zip(s("shell_solve").ok()),
            damping_absolute: col("damping_absolute").unwrap_or_default(),
            damping_joint: col("damping_joint").unwrap_or_default(),
            torque: mf("torque_amplitude").zip(mf("torque_frequency")),
            pivot: mf("pivot_x_amplitude")
                .zip(mf("pivot_y_amplitude"))
                .zip(mf("pivot_frequency"))
                .map(|((x, y), w)| (x, y, w)),
        };
        if header.tile_done.len() != header.tiling().count() {
            return Err(bad(path, "tile_done does not match the tiling"));
        }
        Ok(MapReader {
            file,
            path: path.to_path_buf(),
            header,
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
            let late = matches!(
                name,
                "flip_time_located" | "lyapunov_standard_error" | "time_used" | "converged"
            );
            if late && !self.file.link_exists(&format!("map/{name}")) {
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
    /// `class` and turns of final-state maps (turns negate), one pair of rows at a time.
    pub fn symmetry(&self) -> Result<(u64, u64), StoreError> {
        let h = &self.header;
        let (w, ht) = (h.width, h.height);
        let row = |i: usize| -> Result<(Vec<i64>, Vec<f64>), StoreError> {
            let err = h5_err(format!("reading row {i}"));
            if h.is_flip() {
                let k = self
                    .ds("flip_step")?
                    .read_slice_1d::<i32, _>(s![i, ..])
                    .map_err(err)?;
                Ok((k.iter().map(|&v| i64::from(v)).collect(), vec![]))
            } else {
                let c = self
                    .ds("class")?
                    .read_slice_1d::<u8, _>(s![i, ..])
                    .map_err(err)?;
                let t = self.read_aux(i, i + 1, 0, w)?;
                Ok((c.iter().map(|&v| i64::from(v)).collect(), t))
            }
        };
        let m = if h.is_flip() {
            0
        } else {
            h.kind.aux().len() * h.link_length.len()
        };
        let nl = h.link_length.len();
        let (mut pairs, mut same) = (0u64, 0u64);
        for i in 0..ht.div_ceil(2) {
            let (a, ta) = row(i)?;
            let (b, tb) = row(ht - 1 - i)?;
            let cols = if i == ht - 1 - i { w / 2 } else { w };
            for j in 0..cols {
                let jj = w - 1 - j;
                pairs += 1;
                // Turns (columns nl..2nl) of the mirror pixel are the negatives.
                let turns_ok = m == 0
                    || (0..nl).all(|l| {
                        let (x, y) = (ta[j * m + nl + l], tb[jj * m + nl + l]);
                        x == -y || (x.is_nan() && y.is_nan())
                    });
                same += u64::from(a[j] == b[jj] && turns_ok);
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
    pub fn read_all(&self) -> Result<MapData, StoreError> {
        let h = &self.header;
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
        Ok(d)
    }
}

/// Checks that a map file can be written at `path` before work starts (as for every result).
pub fn check_map_output(path: &Path, force: bool) -> Result<(), StoreError> {
    check_output_path(path, force)
}
