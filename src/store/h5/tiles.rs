//! A map's variables written tile by tile: each tile one chunk, encoded on every thread and
//! stored as it is, or through HDF5's pipeline when the tiles are not the chunks.

use super::*;

/// One tile of a variable made by [`GroupWriter::var_rows`]: its first row and column, its
/// size, and its values row-major over (rows, cols, the variable's other axes).
#[derive(Debug, Clone, Copy)]
pub struct Tile<'a, T> {
    pub r0: usize,
    pub c0: usize,
    pub rows: usize,
    pub cols: usize,
    pub data: &'a [T],
}

impl<'f> Var<'f> {
    /// Writes `tiles` of a variable made by [`GroupWriter::var_rows`] whose chunk is the tile:
    /// each tile is one chunk, shuffled and deflated as the dataset's filters say, on every
    /// thread of the pool at once, and written as it is with `H5Dwrite_chunk` (HDF5's filter
    /// pipeline would compress on this thread alone). Tiles not aligned to the chunks, or a
    /// dataset with other filters, are written through HDF5's own pipeline.
    pub fn write_tiles<T: Elem>(&self, tiles: &[Tile<'_, T>]) -> Result<(), StoreError> {
        let what = || format!("writing tiles of {}", self.name());
        match &self.at {
            VarAt::File(ds, _) => {
                let shape = ds.shape();
                let chunk = ds.chunk().unwrap_or_default();
                let rest: usize = shape.iter().skip(2).product();
                let plan = chunk_filters(ds);
                let aligned = chunk.len() == shape.len()
                    && shape.len() >= 2
                    && chunk[2..] == shape[2..]
                    && tiles.iter().all(|t| {
                        t.r0 % chunk[0] == 0
                            && t.c0 % chunk[1] == 0
                            && t.rows <= chunk[0]
                            && t.cols <= chunk[1]
                            && t.r0 + t.rows <= shape[0]
                            && t.c0 + t.cols <= shape[1]
                            && t.data.len() == t.rows * t.cols * rest
                    });
                let Some(level) = plan.filter(|_| aligned) else {
                    for t in tiles {
                        self.write_tile_slice(ds, t, &shape)
                            .map_err(hdf5_ctx(what))?;
                    }
                    return Ok(());
                };
                use rayon::prelude::*;
                let encoded: Vec<Vec<u8>> = tiles
                    .par_iter()
                    .map(|t| encode_chunk(t, &chunk, level))
                    .collect();
                for (t, bytes) in tiles.iter().zip(&encoded) {
                    let mut offset = vec![t.r0 as u64, t.c0 as u64];
                    offset.resize(shape.len(), 0);
                    write_raw_chunk(ds, &offset, bytes).map_err(hdf5_ctx(what))?;
                }
                Ok(())
            }
            VarAt::Mem(image, g, v) => {
                let mut im = image.borrow_mut();
                let var = &mut im.group_mut(*g).vars[*v];
                let (w, rest) = (var.shape[1], var.shape[2..].iter().product::<usize>());
                let h = var.shape[0];
                let Some(slot) = T::slot(&mut var.values) else {
                    drop(im);
                    return Err(StoreError::Dims {
                        var: what(),
                        what: "another element type".into(),
                    });
                };
                for t in tiles {
                    if t.r0 + t.rows > h
                        || t.c0 + t.cols > w
                        || t.data.len() != t.rows * t.cols * rest
                    {
                        return Err(StoreError::Dims {
                            var: what(),
                            what: format!(
                                "a {}x{} tile at ({}, {}) does not fit",
                                t.rows, t.cols, t.r0, t.c0
                            ),
                        });
                    }
                    let row = t.cols * rest;
                    for i in 0..t.rows {
                        let at = ((t.r0 + i) * w + t.c0) * rest;
                        slot[at..at + row].copy_from_slice(&t.data[i * row..(i + 1) * row]);
                    }
                }
                Ok(())
            }
        }
    }

    /// One tile through HDF5's filter pipeline.
    fn write_tile_slice<T: Elem>(
        &self,
        ds: &Dataset,
        t: &Tile<'_, T>,
        shape: &[usize],
    ) -> hdf5::Result<()> {
        let mut dims = vec![t.rows, t.cols];
        dims.extend_from_slice(&shape[2..]);
        let a = ndarray::ArrayView::from_shape(ndarray::IxDyn(&dims), t.data)
            .map_err(|e| hdf5::Error::Internal(e.to_string()))?;
        let (r, c) = (t.r0..t.r0 + t.rows, t.c0..t.c0 + t.cols);
        if shape.len() == 3 {
            let a = a.into_dimensionality::<ndarray::Ix3>().expect("3-D");
            ds.write_slice(a, s![r, c, ..])
        } else {
            let a = a.into_dimensionality::<ndarray::Ix2>().expect("2-D");
            ds.write_slice(a, s![r, c])
        }
    }
}

/// The deflate level of a dataset whose filters are exactly shuffle then deflate (what
/// [`GroupWriter::var_rows`] sets), `Some(0)` for no filters (chunks stored raw), else `None`.
fn chunk_filters(ds: &Dataset) -> Option<u8> {
    use hdf5::filters::Filter;
    match ds.filters().as_slice() {
        [] => Some(0),
        [Filter::Shuffle, Filter::Deflate(level)] => Some((*level).max(1)),
        _ => None,
    }
}

/// Tile `t` as the stored bytes of a chunk of shape `chunk` (padded with zeros past the
/// dataset's edge, which no reader sees): byte-shuffled and zlib-deflated at `level` as HDF5's
/// shuffle and deflate filters do, or raw for `level` 0.
fn encode_chunk<T: Elem>(t: &Tile<'_, T>, chunk: &[usize], level: u8) -> Vec<u8> {
    use std::io::Write;
    let n: usize = chunk.iter().product();
    let rest: usize = chunk[2..].iter().product();
    let size = std::mem::size_of::<T>();
    let mut padded = vec![T::default(); n];
    let (row, stride) = (t.cols * rest, chunk[1] * rest);
    for i in 0..t.rows {
        padded[i * stride..i * stride + row].copy_from_slice(&t.data[i * row..(i + 1) * row]);
    }
    let bytes: &[u8] = bytemuck::cast_slice(&padded);
    if level == 0 {
        return bytes.to_vec();
    }
    let mut shuffled = vec![0u8; bytes.len()];
    if size == 1 {
        shuffled.copy_from_slice(bytes);
    } else {
        for (i, e) in bytes.chunks_exact(size).enumerate() {
            for (b, &v) in e.iter().enumerate() {
                shuffled[b * n + i] = v;
            }
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(bytes.len() / 2 + 64),
        flate2::Compression::new(u32::from(level)),
    );
    // Writing into a Vec cannot fail.
    z.write_all(&shuffled).expect("deflating into memory");
    z.finish().expect("deflating into memory")
}

/// Stores `bytes` (already filtered) as the chunk at element offset `offset` of `ds`.
fn write_raw_chunk(ds: &Dataset, offset: &[u64], bytes: &[u8]) -> hdf5::Result<()> {
    let rc = hdf5::sync::sync(|| unsafe {
        // SAFETY: `offset` has one entry per dimension of `ds` and `bytes` outlives the call;
        // HDF5 copies the buffer into the file before returning.
        hdf5_sys::h5d::H5Dwrite_chunk(
            ds.id(),
            hdf5_sys::h5p::H5P_DEFAULT,
            0,
            offset.as_ptr(),
            bytes.len(),
            bytes.as_ptr().cast(),
        )
    });
    if rc < 0 {
        return Err(hdf5::Error::query().unwrap_or_else(|e| e));
    }
    Ok(())
}
