"""Exits 0 when two map files hold the same datasets under /map, bit for bit, else 1 naming the first
difference. Used by tests/slurm/test.sh: a merged SLURM map against a single `pendula map` run."""
import sys

import h5py
import numpy as np


def datasets(f):
    out = {}
    f["map"].visititems(lambda name, obj: out.__setitem__(name, obj) if isinstance(obj, h5py.Dataset) else None)
    return out


def main(a_path, b_path):
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        da, db = datasets(a), datasets(b)
        if not da:
            print(f"{a_path}: no datasets under /map")
            return 1
        if sorted(da) != sorted(db):
            print(f"dataset names differ: {sorted(set(da) ^ set(db))}")
            return 1
        for name in sorted(da):
            x, y = da[name], db[name]
            if x.dtype != y.dtype or x.shape != y.shape:
                print(f"/map/{name}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
                return 1
            xa, ya = np.asarray(x[()]), np.asarray(y[()])
            # Variable-length strings are objects: compare their values, not pointers.
            same = xa.tolist() == ya.tolist() if xa.dtype.kind == "O" else xa.tobytes() == ya.tobytes()
            if not same:
                print(f"/map/{name}: contents differ")
                return 1
        print(f"same: {len(da)} datasets under /map")
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
