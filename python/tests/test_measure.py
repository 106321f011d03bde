"""pendula.measure and pendula.chaotic_fraction against `pendula measure`: every variable and
attribute of the measure group bit for bit, and bad input refused with the CLI's message."""

import os
import pathlib
import subprocess

import h5py
import numpy as np
import pytest
import xarray

import pendula

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "pendula"
if os.environ.get("PENDULA_REQUIRE_PYTHON") and not CLI.exists():
    raise RuntimeError(f"{CLI} missing: run cargo build --release first")
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula (cargo build --release)")

# The set's `source` names the CLI's input file (the Python side has none).
SKIP = {"source"}

MAP64 = """kind = "map"
[model]
preset = "double"
[integrator]
dt = 0.01
[map]
kind = "flip-time"
resolution = 64
t_end = 10.0
"""


def cli(*args):
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)


def assert_tree_same(g, node, path="measure"):
    """Every dataset and attribute of the CLI's HDF5 group `g` (and its subgroups) equals the
    DataTree node's, bit for bit (NaN = NaN), and the node has no others."""
    ds = node.to_dataset(inherit=False)
    here = {k for k in g.keys() if isinstance(g[k], h5py.Dataset)}
    assert here == set(ds.variables), (path, here ^ set(ds.variables))
    for k in here:
        v, got = g[k][()], ds[k].values
        assert got.dtype == v.dtype, (path, k, got.dtype, v.dtype)
        assert np.array_equal(v, got, equal_nan=v.dtype.kind == "f"), (path, k)
    attrs = {k: v for k, v in g.attrs.items() if k not in SKIP}
    assert set(attrs) == set(node.attrs) - SKIP, (path, set(attrs) ^ (set(node.attrs) - SKIP))
    for k, v in attrs.items():
        v = v.decode() if isinstance(v, bytes) else v
        a, b = np.asarray(v).ravel(), np.asarray(node.attrs[k]).ravel()
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (path, k, v, node.attrs[k])
    subs = {k for k in g.keys() if isinstance(g[k], h5py.Group)}
    assert subs == set(node.children), (path, subs ^ set(node.children))
    for k in subs:
        assert_tree_same(g[k], node[k], f"{path}/{k}")


@pytest.fixture(scope="module")
def flip_map(tmp_path_factory):
    """The CLI's 64² flip map file and pendula.map's Dataset of the same spec."""
    d = tmp_path_factory.mktemp("measure")
    spec = d / "map.toml"
    spec.write_text(MAP64)
    done = cli("run", spec, "-o", d / "map.h5")
    assert done.returncode == 0, done.stderr
    ds = pendula.map(pendula.Chain.preset("double"), kind="flip-time", resolution=64,
                     t_end=10.0, dt=0.01)
    return d, ds


@needs_cli
@pytest.mark.parametrize("args,kw", [
    ([], {}),
    (["--variable", "flip_link", "--flip-before", "3,10"], {"variable": "flip_link", "flip_before": [3, 10]}),
    (["--variable", "class", "--what", "basin-entropy", "--shifts", "4", "--seed", "7"],
     {"variable": "class", "what": "basin-entropy", "shifts": 4, "seed": 7}),
])
def test_map_measure_matches_cli_bit_for_bit(flip_map, args, kw):
    d, ds = flip_map
    out = d / "m.h5"
    if out.exists():
        out.unlink()
    done = cli("measure", d / "map.h5", "--max-eps", 8, *args, "-o", out)
    assert done.returncode == 0, done.stderr
    tree = pendula.measure(ds, max_eps=8, **kw)
    assert isinstance(tree, xarray.DataTree)
    with h5py.File(out, "r") as f:
        assert_tree_same(f["measure"], tree)
        # One set per flip time: the loop above compared something.
        assert f["measure"].attrs["sets"] == len(kw.get("flip_before", [1]))


# The driven damped pendulum of analyses/damped-driven-basin-entropy.toml at F = 1.66 N·m on
# a 32² grid (tests/measure_cli.rs uses it too): coexisting attractors that share a class.
BASINS = """kind = "map"
[model]
gravity = 1.0
[[model.link]]
length = 1.0
mass = 1.0
[model.damping]
absolute = 0.2
[model.drive.torque]
amplitude = 1.66
frequency = 1.0
[integrator]
method = "rk4"
dt = 0.06283185307179587
[map]
kind = "final-state"
resolution = 32
x = "theta1"
y = "omega1"
window = [-3.14159265, 3.14159265, -3.0, 3.0]
t_end = 400.0
angle_tol = 0.001
omega_tol = 0.001
max_period = 8
repeats = 3
"""


@needs_cli
def test_attractor_labels_match_cli_bit_for_bit(tmp_path):
    """A final-state map's `attractor` labels (class with turns or winding per link) from the
    Dataset's aux variables equal those the CLI reads from the map file."""
    spec = tmp_path / "basins.toml"
    spec.write_text(BASINS)
    done = cli("run", spec, "-o", tmp_path / "basins.h5")
    assert done.returncode == 0, done.stderr
    chain = pendula.Chain(links=[pendula.Link(length=1.0, mass=1.0)], gravity=1.0,
                          damping={"absolute": 0.2},
                          drive={"torque": {"amplitude": 1.66, "frequency": 1.0}})
    ds = pendula.map(chain, kind="final-state", resolution=32, x="theta1", y="omega1",
                     window=[-3.14159265, 3.14159265, -3.0, 3.0], t_end=400.0, angle_tol=0.001,
                     omega_tol=0.001, max_period=8, repeats=3, dt=0.06283185307179587)
    sizes = {}
    for variable in ("attractor", "class"):
        out = tmp_path / f"{variable}.h5"
        done = cli("measure", tmp_path / "basins.h5", "--variable", variable, "--what",
                   "basin-entropy", "--entropy-eps", "2,4", "-o", out)
        assert done.returncode == 0, done.stderr
        tree = pendula.measure(ds, variable=variable, what="basin-entropy", entropy_eps=[2, 4])
        with h5py.File(out, "r") as f:
            assert_tree_same(f["measure"], tree)
        sizes[variable] = tree["set_1"].sizes["label"]
    # The attractors split classes (rotating left, right, librating at one period).
    assert sizes["attractor"] > sizes["class"], sizes
    # Without the aux variables the attractor labels are not offered, as for a flip map.
    with pytest.raises(ValueError, match="variable: `attractor` is not a label variable"):
        pendula.measure(ds.drop_vars("turns"), variable="attractor")


def labels_grid():
    """Three basins with a wiggly boundary (an independent grid, no map)."""
    y, x = np.mgrid[0:80, 0:96]
    return ((x + 6 * np.sin(y / 3.0)) // 32 + (y > 60)).astype(np.int64)


@needs_cli
def test_array_measure_matches_cli_labels_bit_for_bit(tmp_path):
    lab = labels_grid()
    with h5py.File(tmp_path / "l.h5", "w") as f:
        f["labels"] = lab
    out = tmp_path / "m.h5"
    done = cli("measure", "--labels", f"{tmp_path / 'l.h5'}:/labels", "--extent", "0,3,-1,1",
               "--max-eps", 8, "--wada-radius", 4, "-o", out)
    assert done.returncode == 0, done.stderr
    tree = pendula.measure(lab, extent=[0, 3, -1, 1], max_eps=8, wada_radius=4)
    with h5py.File(out, "r") as f:
        assert_tree_same(f["measure"], tree)
        assert "wada" in f["measure/set_1"]
    # int32 (read in place) and uint8 (converted) arrays are the same labels.
    for dtype in (np.int32, np.uint8):
        t = pendula.measure(lab.astype(dtype), extent=[0, 3, -1, 1], max_eps=8, wada_radius=4)
        for sub, attr in (("boundary_dimension", "dimension"), ("uncertainty_exponent", "alpha")):
            assert t[f"set_1/{sub}"].attrs[attr] == tree[f"set_1/{sub}"].attrs[attr], (dtype, sub)
        assert np.array_equal(t["set_1/wada"]["wada_fraction"].values, tree["set_1/wada"]["wada_fraction"].values)


@needs_cli
@pytest.mark.parametrize("arr", [
    np.linspace(0, 1, 64).reshape(8, 8),   # float labels
    np.arange(8),                          # 1-D
    np.zeros((8, 8), dtype=np.int32),      # one label
])
def test_bad_labels_refused_with_the_cli_message(tmp_path, arr):
    with h5py.File(tmp_path / "l.h5", "w") as f:
        f["labels"] = arr
    done = cli("measure", "--labels", f"{tmp_path / 'l.h5'}:/labels")
    assert done.returncode == 2, done.stderr
    with pytest.raises(ValueError) as e:
        pendula.measure(arr)
    got = str(e.value)
    assert got.startswith("labels: ")
    # The CLI names the dataset where Python names the array; the reason is the same words.
    msg = done.stderr.strip().splitlines()[-1]
    reason = got[len("labels: "):]
    reason = reason[len("array "):] if reason.startswith("array ") else reason
    assert msg.endswith(reason), (got, msg)


def test_bad_options_name_the_keyword():
    lab = labels_grid()
    for kw, word in (({"what": "dimension"}, "what: unknown"), ({"shifts": 0}, "shifts: must be >= 1"),
                     ({"wada_radius": 0}, "wada_radius: must be >= 1"),
                     ({"max_eps": 64}, "max_eps: "), ({"variable": "class"}, "variable: applies")):
        with pytest.raises(ValueError, match=word):
            pendula.measure(lab, **kw)


@needs_cli
def test_chaotic_fraction_matches_cli_bit_for_bit(tmp_path):
    out = tmp_path / "c.h5"
    done = cli("measure", "--chaotic-fraction", "--energies", "5,30", "--samples", 12,
               "--t-end", 20, "--seed", 3, "-o", out)
    assert done.returncode == 0, done.stderr
    tree = pendula.chaotic_fraction(pendula.Chain.preset("double"), energies=[5, 30], samples=12,
                                    t_end=20, seed=3)
    with h5py.File(out, "r") as f:
        assert_tree_same(f["measure"], tree)
        assert f["measure/chaotic_fraction"]["energy"].shape == (2,)
    with pytest.raises(ValueError, match="samples: give"):
        pendula.chaotic_fraction(pendula.Chain.preset("double"), energies=[5])
    with pytest.raises(ValueError, match="tau: must be a whole multiple"):
        pendula.chaotic_fraction(pendula.Chain.preset("double"), energies=[5], samples=2,
                                 dt=0.01, tau=0.015)


def test_refusals_are_the_librarys_naming_the_keyword():
    lab = labels_grid()
    # Beside an array (its own labels) the map options are refused as beside --labels.
    with pytest.raises(ValueError, match=r"^flip_before: thresholds a flip-time map"):
        pendula.measure(lab, flip_before=2.0)
    with pytest.raises(ValueError, match=r"^labels: array holds labels beyond the 32-bit range"):
        pendula.measure(lab * (1 << 40))
    # A Dataset that is no map of pendula.map.
    ds = xarray.Dataset({"class": (("y", "x"), lab.astype(np.uint8))})
    with pytest.raises(ValueError, match=r"^labels: the Dataset is not a map .*\(no kind\)"):
        pendula.measure(ds)
    with pytest.raises(ValueError, match=r"^labels: .*\(no class\)"):
        pendula.measure(xarray.Dataset(attrs={"kind": "flip-time"}))
    # The chaotic fraction of anything but a planar chain, as the CLI's --model refuses it.
    for model in (pendula.CartChain(links=2), "double"):
        with pytest.raises(ValueError, match=r"^model: the chaotic fraction needs a planar chain"):
            pendula.chaotic_fraction(model, energies=[5], samples=2)
