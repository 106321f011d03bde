//! How a dataset is laid out and created: checked names, chunk shapes, shuffle and deflate,
//! written band by band so a stop request ends a long write; and a dataset made a variable
//! (scales attached) in a file or in an image.

use super::*;

/// Chunks are at most this many bytes: the default HDF5 chunk cache is 1 MiB, so a whole
/// chunk fits in it, and it is large enough for deflate to work well.
pub(super) const CHUNK_TARGET_BYTES: usize = 1 << 20;
/// zlib level 4: close to level 9 in size on floating-point data, much faster.
pub(super) const DEFLATE_LEVEL: u8 = 4;

pub(super) fn check_name(name: &str) -> Result<(), StoreError> {
    let what = if name.is_empty() {
        "empty"
    } else if name.contains('/') {
        "contains '/' (nest groups with .group() instead)"
    } else if name.contains('\0') {
        "contains a NUL byte"
    } else if name == "." {
        "is '.'"
    } else {
        return Ok(());
    };
    Err(StoreError::Name {
        name: name.into(),
        what: what.into(),
    })
}

/// Chunk shape for `shape`: the whole array if it is at most [`CHUNK_TARGET_BYTES`],
/// otherwise the longest axis is halved until it fits. Keeping whole rows of short axes
/// (links, exponents) in one chunk suits reading a time series or a map at once.
pub(super) fn chunk_shape(shape: &[usize], elem_bytes: usize) -> Vec<usize> {
    let mut c = shape.to_vec();
    let bytes = |c: &[usize]| c.iter().product::<usize>() * elem_bytes.max(1);
    while bytes(&c) > CHUNK_TARGET_BYTES {
        let (i, &longest) = c
            .iter()
            .enumerate()
            .max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i)))
            .expect("non-empty shape: 0-d data is never chunked");
        if longest <= 1 {
            break;
        }
        c[i] = longest.div_ceil(2);
    }
    c
}

/// Writes `data` as dataset `name` of `group`: chunked, shuffled and deflated unless it is
/// 0-d or empty (which HDF5 cannot chunk usefully), or deflate is unavailable.
///
/// Data of more than one chunk along its first axis is written band of chunks by band,
/// polling `cancel` before each band: a stop request ends a long write (a 10⁶-sample
/// trajectory takes seconds to compress) within one band, with [`StoreError::Interrupted`].
pub(super) fn write_dataset<T: H5Type + Clone, D: Dimension>(
    group: &Group,
    name: &str,
    data: ArrayView<'_, T, D>,
    cancel: &Cancel,
) -> Result<Dataset, StoreError> {
    let shape = data.shape().to_vec();
    let data = data.as_standard_layout();
    let what = || {
        format!(
            "writing dataset {}/{name}",
            group.name().trim_end_matches('/')
        )
    };
    let interrupted = || StoreError::Interrupted { what: what() };
    if cancel.is_set() {
        return Err(interrupted());
    }
    let compress = !shape.is_empty() && shape.iter().all(|&n| n > 0);
    if !(compress && hdf5::filters::deflate_available()) {
        return group
            .new_dataset_builder()
            .with_data(data.view())
            .create(name)
            .map_err(hdf5_ctx(what));
    }
    let chunk = chunk_shape(&shape, std::mem::size_of::<T>());
    if chunk[0] >= shape[0] {
        return group
            .new_dataset_builder()
            .with_data(data.view())
            .chunk(chunk)
            .shuffle()
            .deflate(DEFLATE_LEVEL)
            .create(name)
            .map_err(hdf5_ctx(what));
    }
    let ds = group
        .new_dataset::<T>()
        .shape(shape.as_slice())
        .chunk(chunk.as_slice())
        .shuffle()
        .deflate(DEFLATE_LEVEL)
        .create(name)
        .map_err(hdf5_ctx(what))?;
    // A band of four whole chunks (about 4 MiB): a poll every few tens of milliseconds.
    let band = 4 * chunk[0];
    let mut r0 = 0;
    while r0 < shape[0] {
        if cancel.is_set() {
            return Err(interrupted());
        }
        let r1 = (r0 + band).min(shape[0]);
        let mut sel: Vec<hdf5::SliceOrIndex> = vec![(r0..r1).into()];
        sel.extend(shape[1..].iter().map(|&n| hdf5::SliceOrIndex::from(0..n)));
        ds.write_slice(
            data.slice_axis(ndarray::Axis(0), (r0..r1).into()),
            hdf5::Hyperslab::from(sel),
        )
        .map_err(hdf5_ctx(what))?;
        r0 = r1;
    }
    Ok(ds)
}

/// Dataset `ds` with its axes attached to the coordinates `scales`, as a variable.
pub(super) fn attached<'f>(ds: Dataset, scales: &[Dataset]) -> Result<Var<'f>, StoreError> {
    for (i, scale) in scales.iter().enumerate() {
        dimscale::attach_scale(&ds, scale, i)?;
    }
    Ok(Var {
        at: VarAt::File(ds, PhantomData),
    })
}

/// `var` added to image group `i` as a variable, refused when its name is taken (as HDF5
/// refuses it).
pub(super) fn mem_var(
    image: &RefCell<Image>,
    i: usize,
    var: MemVar,
) -> Result<Var<'_>, StoreError> {
    let mut im = image.borrow_mut();
    let name = var.name.clone();
    match im.add_var(i, var) {
        Some(v) => Ok(Var {
            at: VarAt::Mem(image, i, v),
        }),
        None => Err(StoreError::Name {
            what: format!("already exists in {}", im.path(i)),
            name,
        }),
    }
}

/// The elements of `data` in row-major order.
pub(super) fn row_major<T: Clone, D: Dimension>(data: &ArrayView<'_, T, D>) -> Vec<T> {
    match data.as_slice() {
        Some(s) => s.to_vec(),
        None => data.iter().cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::chunk_shape;

    #[test]
    fn small_arrays_are_one_chunk() {
        assert_eq!(chunk_shape(&[5, 3], 8), vec![5, 3]);
        assert_eq!(chunk_shape(&[1], 8), vec![1]);
    }

    #[test]
    fn long_series_keep_short_axes_whole() {
        let c = chunk_shape(&[1_000_000, 3], 8);
        assert_eq!(c[1], 3);
        assert!(c[0] * 3 * 8 <= super::CHUNK_TARGET_BYTES);
        assert!(c[0] * 3 * 8 > super::CHUNK_TARGET_BYTES / 2);
    }

    #[test]
    fn square_maps_are_split_on_both_axes() {
        let c = chunk_shape(&[2000, 2000], 8);
        assert!(c.iter().product::<usize>() * 8 <= super::CHUNK_TARGET_BYTES);
        assert!(c[0] < 2000 && c[1] < 2000);
    }
}
