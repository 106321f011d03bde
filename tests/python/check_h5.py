#!/usr/bin/env python3
"""Check that a pendula HDF5 file reads cleanly with h5py and xarray (h5netcdf).

Usage: check_h5.py FILE GROUP

h5py: reads every dataset and attribute; every dataset must carry `units` and
`long_name` as `str`; non-empty n-d datasets must be chunked and gzip-compressed;
each axis of a variable must have exactly one attached dimension scale.
xarray: opens GROUP with engine="h5netcdf"; each variable's dimensions must be the
names of its attached scales, and each dimension must be a coordinate.

Exit status 0 on success, 1 with a message on the first failure. Prints the xarray
repr of GROUP.
"""

import sys

import h5py
import numpy as np
import xarray as xr


def fail(msg):
    print(f"check_h5.py: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


# Written by the HDF5 HL dimension-scale API itself (fixed-length ASCII or references).
HL_ATTRS = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST"}


def check_attrs(obj):
    for key in obj.attrs:
        value = obj.attrs[key]  # must decode without error
        if isinstance(value, bytes) and key not in HL_ATTRS:
            fail(f"{obj.name}: attribute {key!r} reads as bytes, not str")
    return obj.attrs


def main():
    if len(sys.argv) != 3:
        fail("usage: check_h5.py FILE GROUP")
    path, group = sys.argv[1], sys.argv[2]

    scale_dims = {}  # variable path -> names of its attached scales, by axis
    with h5py.File(path, "r") as f:
        check_attrs(f)
        if group not in f:
            fail(f"group {group!r} not in {path}")
        datasets = []

        def visit(_name, obj):
            if isinstance(obj, h5py.Dataset):
                datasets.append(obj)
            else:
                check_attrs(obj)
            return None  # anything else stops the visit

        f.visititems(visit)
        if not datasets:
            fail("no datasets in file")
        for ds in datasets:
            ds[()]  # read it all
            attrs = check_attrs(ds)
            for key in ("units", "long_name"):
                if key not in attrs:
                    fail(f"{ds.name}: no {key!r} attribute")
                if not isinstance(attrs[key], str):
                    fail(f"{ds.name}: {key!r} is {type(attrs[key]).__name__}, not str")
            if ds.ndim > 0 and ds.size > 0:
                if ds.chunks is None or ds.compression != "gzip":
                    fail(f"{ds.name}: not chunked+gzip (chunks={ds.chunks}, compression={ds.compression})")
            if ds.is_scale:
                continue
            names = []
            for axis in range(ds.ndim):
                scales = list(ds.dims[axis].values())
                if len(scales) != 1:
                    fail(f"{ds.name}: axis {axis} has {len(scales)} dimension scales, want 1")
                names.append(scales[0].name.rsplit("/", 1)[-1])
            scale_dims[ds.name] = names

    root = xr.open_dataset(path, engine="h5netcdf")
    if "Conventions" in root.attrs and root.attrs["Conventions"] != "CF-1.8":
        fail(f"root Conventions = {root.attrs['Conventions']!r}")
    for key, value in root.attrs.items():
        if isinstance(value, bytes):
            fail(f"xarray reads root attribute {key!r} as bytes")
    root.close()

    ds = xr.open_dataset(path, group=group, engine="h5netcdf")
    prefix = "/" + group.strip("/") + "/"
    if not ds.data_vars and not ds.coords:
        fail(f"xarray sees nothing in group {group!r}")
    for name, var in ds.variables.items():
        for key in ("units", "long_name"):
            if not isinstance(var.attrs.get(key), str):
                fail(f"xarray {name}: {key!r} missing or not str ({var.attrs.get(key)!r})")
    for name, var in ds.data_vars.items():
        want = tuple(scale_dims.get(prefix + name, ()))
        if var.dims != want:
            fail(f"xarray {name}: dims {var.dims} != attached scales {want}")
        for dim in var.dims:
            if dim not in ds.coords:
                fail(f"xarray {name}: dimension {dim!r} has no coordinate")
            if ds.coords[dim].dims != (dim,):
                fail(f"xarray coordinate {dim!r} has dims {ds.coords[dim].dims}")
    for name, coord in ds.coords.items():
        if not np.all(np.isfinite(coord.values.astype(float))):
            fail(f"coordinate {name} has non-finite values")
    print(repr(ds))
    ds.close()
    print("check_h5.py: OK")


if __name__ == "__main__":
    main()
