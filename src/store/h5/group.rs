//! What a [`GroupWriter`] writes (subgroups, coordinates, variables over named dimensions)
//! and what a [`Var`] does after (its description, its rows).

use super::dataset::DEFLATE_LEVEL;
use super::*;

impl<'f> GroupWriter<'f> {
    /// The group's path in the file, e.g. `/trajectory` (an image's subgroup: its name).
    pub fn name(&self) -> String {
        match &self.at {
            At::File(g, _) => g.name(),
            At::Mem(image, i) => image.borrow().path(*i),
        }
    }

    /// Creates the subgroup `name` (one path component).
    pub fn group(&self, name: &str) -> Result<GroupWriter<'f>, StoreError> {
        check_name(name)?;
        let at = match &self.at {
            At::File(g, cancel) => {
                let group = g.create_group(name).map_err(hdf5_ctx(|| {
                    format!("creating group {name} in {}", g.name())
                }))?;
                At::File(group, cancel)
            }
            At::Mem(image, i) => {
                let added = image.borrow_mut().add_group(*i, name);
                let k = added.ok_or_else(|| StoreError::Name {
                    name: name.into(),
                    what: format!("already exists in {}", self.name()),
                })?;
                At::Mem(image, k)
            }
        };
        Ok(GroupWriter { at })
    }

    /// Writes a floating-point coordinate: a 1-D variable that is also the dimension
    /// `name` (an HDF5 dimension scale), which later variables in this group name.
    pub fn coord(
        &self,
        name: &str,
        values: &[f64],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        self.coord_of(name, values, units, long_name)
    }

    /// Writes an integer coordinate, e.g. link indices `1..=n` (`units = "1"`).
    pub fn coord_i64(
        &self,
        name: &str,
        values: &[i64],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        self.coord_of(name, values, units, long_name)
    }

    /// Writes a coordinate of any element type (see [`coord`](GroupWriter::coord)).
    pub fn coord_of<T: Elem>(
        &self,
        name: &str,
        values: &[T],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        check_name(name)?;
        let var = match &self.at {
            At::File(g, cancel) => {
                let ds = write_dataset(g, name, ArrayView::from(values), cancel)?;
                dimscale::set_scale(&ds, name)?;
                Var {
                    at: VarAt::File(ds, PhantomData),
                }
            }
            At::Mem(image, i) => {
                mem_var(image, *i, MemVar::coord(name, T::values(values.to_vec())))?
            }
        };
        var.described(units, long_name)
    }

    /// Writes a run's initial state as the variable `initial_state` over its own coordinate
    /// `state_component` (1..=len): its length grows with the links, so it is a dataset, never
    /// an attribute (HDF5 caps an object header message at 64 KiB).
    pub fn initial_state(&self, x0: &[f64]) -> Result<(), StoreError> {
        let index: Vec<i64> = (1..=x0.len() as i64).collect();
        self.coord_i64(
            "state_component",
            &index,
            "1",
            "component of the state vector, in the model's coordinates (planar chain: theta_1..theta_N, then omega_1..omega_N)",
        )?;
        self.var(
            "initial_state",
            &["state_component"],
            x0,
            "1",
            "initial state in the model's coordinates (rad and rad/s for a planar chain)",
        )?;
        Ok(())
    }

    /// Checks that `dims` are coordinates of this group whose lengths are `shape`; returns
    /// the HDF5 scales to attach (none for an image).
    fn check_dims(
        &self,
        name: &str,
        dims: &[&str],
        shape: &[usize],
    ) -> Result<Vec<Dataset>, StoreError> {
        let group_name = self.name();
        let dims_err = |what: String| StoreError::Dims {
            var: format!("{}/{name}", group_name.trim_end_matches('/')),
            what,
        };
        if dims.len() != shape.len() {
            return Err(dims_err(format!(
                "{} dimension names {dims:?} for {}-d data of shape {shape:?}",
                dims.len(),
                shape.len(),
            )));
        }
        let not_coord = |dim: &str| {
            dims_err(format!(
                "dimension {dim:?} is not a coordinate of group {group_name} (write it with .coord first)"
            ))
        };
        let bad_len = |i: usize, dim: &str, len: &[usize]| {
            dims_err(format!(
                "axis {i} has length {} but coordinate {dim:?} has shape {len:?}",
                shape[i]
            ))
        };
        let mut scales = Vec::with_capacity(dims.len());
        for (i, &dim) in dims.iter().enumerate() {
            if dim.is_empty() || dim.contains('/') {
                return Err(not_coord(dim));
            }
            match &self.at {
                At::File(g, _) => {
                    if !g.link_exists(dim) {
                        return Err(not_coord(dim));
                    }
                    let scale = g
                        .dataset(dim)
                        .map_err(hdf5_ctx(|| format!("opening coordinate {dim}")))?;
                    if !dimscale::is_scale(&scale)? {
                        return Err(dims_err(format!("{dim:?} is a variable, not a coordinate")));
                    }
                    let len = scale.shape();
                    if len.len() != 1 || len[0] != shape[i] {
                        return Err(bad_len(i, dim, &len));
                    }
                    scales.push(scale);
                }
                At::Mem(image, k) => {
                    let im = image.borrow();
                    let Some(v) = im.group(*k).var(dim) else {
                        return Err(not_coord(dim));
                    };
                    if !v.coord {
                        return Err(dims_err(format!("{dim:?} is a variable, not a coordinate")));
                    }
                    if v.shape != [shape[i]] {
                        return Err(bad_len(i, dim, &v.shape));
                    }
                }
            }
        }
        Ok(scales)
    }

    /// Writes a variable whose axes are the coordinates `dims` of this group, in order.
    ///
    /// Each dimension must already exist here as a coordinate of the same length; the
    /// dataset's axis `i` is attached to the scale `dims[i]`, so netCDF tools see named
    /// dimensions. `units` and `long_name` follow CF (`"1"` for dimensionless). Any
    /// element type works (f64, i64, i32, u8, …); any layout (copied if not contiguous).
    pub fn var<'d, T, D>(
        &self,
        name: &str,
        dims: &[&str],
        data: impl Into<ArrayView<'d, T, D>>,
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError>
    where
        T: Elem + 'd,
        D: Dimension,
    {
        check_name(name)?;
        let data = data.into();
        let scales = self.check_dims(name, dims, data.shape())?;
        let var = match &self.at {
            At::File(g, cancel) => attached(write_dataset(g, name, data, cancel)?, &scales)?,
            At::Mem(image, i) => {
                let values = T::values(row_major(&data));
                mem_var(image, *i, MemVar::data(name, dims, data.shape(), values))?
            }
        };
        var.described(units, long_name)
    }

    /// Creates a variable of `shape` over `dims` (`fill` where nothing is written: HDF5
    /// allocates no chunk for it) to be filled row band by row band with [`Var::write_rows`],
    /// or tile by tile with [`Var::write_tiles`]: a map, chunked as `chunk` (its tile).
    #[allow(clippy::too_many_arguments)]
    pub fn var_rows<T: Elem>(
        &self,
        name: &str,
        dims: &[&str],
        shape: &[usize],
        chunk: &[usize],
        fill: T,
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        check_name(name)?;
        let scales = self.check_dims(name, dims, shape)?;
        let var = match &self.at {
            At::File(g, _) => {
                let chunk: Vec<usize> = chunk
                    .iter()
                    .zip(shape)
                    .map(|(&c, &n)| c.min(n).max(1))
                    .collect();
                let b = g
                    .new_dataset::<T>()
                    .shape(shape)
                    .chunk(chunk)
                    .fill_value(fill);
                let b = if hdf5::filters::deflate_available() {
                    b.shuffle().deflate(DEFLATE_LEVEL)
                } else {
                    b
                };
                let ds = b
                    .create(name)
                    .map_err(hdf5_ctx(|| format!("creating dataset {name}")))?;
                attached(ds, &scales)?
            }
            At::Mem(image, i) => {
                let filled = T::values(vec![fill; shape.iter().product()]);
                mem_var(image, *i, MemVar::data(name, dims, shape, filled))?
            }
        };
        var.described(units, long_name)
    }
}

impl<'f> Var<'f> {
    /// This variable with its CF `units` and `long_name` attributes.
    fn described(self, units: &str, long_name: &str) -> Result<Var<'f>, StoreError> {
        self.attr_str("units", units)?
            .attr_str("long_name", long_name)?;
        Ok(self)
    }

    /// The dataset's path in the file, e.g. `/trajectory/theta`.
    pub fn name(&self) -> String {
        match &self.at {
            VarAt::File(ds, _) => ds.name(),
            VarAt::Mem(image, g, v) => {
                let im = image.borrow();
                format!(
                    "{}/{}",
                    im.path(*g).trim_end_matches('/'),
                    im.group(*g).vars[*v].name
                )
            }
        }
    }

    /// Writes `band` as the rows from `r0` of a variable made by
    /// [`GroupWriter::var_rows`] (2-D or 3-D; the other axes whole).
    pub fn write_rows<T: Elem, D: Dimension>(
        &self,
        r0: usize,
        band: ArrayView<'_, T, D>,
    ) -> Result<(), StoreError> {
        let r1 = r0 + band.shape()[0];
        let what = || format!("writing rows {r0}..{r1} of {}", self.name());
        match &self.at {
            VarAt::File(ds, _) => {
                let res = if band.ndim() == 3 {
                    ds.write_slice(band, s![r0..r1, .., ..])
                } else {
                    ds.write_slice(band, s![r0..r1, ..])
                };
                res.map_err(hdf5_ctx(what))
            }
            VarAt::Mem(image, g, v) => {
                let fits = {
                    let im = image.borrow();
                    let var = &im.group(*g).vars[*v];
                    band.ndim() == var.shape.len()
                        && band.shape()[1..] == var.shape[1..]
                        && r1 <= var.shape[0]
                };
                let misfit = || StoreError::Dims {
                    var: what(),
                    what: format!("a band of shape {:?} does not fit", band.shape()),
                };
                if !fits {
                    return Err(misfit());
                }
                let mut im = image.borrow_mut();
                let var = &mut im.group_mut(*g).vars[*v];
                let row: usize = var.shape[1..].iter().product();
                let Some(slot) = T::slot(&mut var.values) else {
                    drop(im);
                    return Err(misfit());
                };
                for (dst, src) in slot[r0 * row..r1 * row].iter_mut().zip(band.iter()) {
                    *dst = *src;
                }
                Ok(())
            }
        }
    }
}
