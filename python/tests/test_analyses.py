"""map, modes, poincare and the cart chain from Python against the CLI: same numbers bit for bit,
same messages, closed forms, GIL released while a map computes, Ctrl-C, and the map's speed."""

import json
import os
import pathlib
import resource
import subprocess
import tempfile
import time

import h5py
import numpy as np
import pytest

import pendula
from counting import count_while, interrupted_once_under_way

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "pendula"
if os.environ.get("PENDULA_REQUIRE_PYTHON") and not CLI.exists():
    raise RuntimeError(f"{CLI} missing: run cargo build --release first")
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula (cargo build --release)")
DOUBLE = pendula.Chain.preset("double")


def run_cli(tmp_path, text):
    """Runs `pendula run` on a spec; returns the process and the output file's path."""
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    out = tmp_path / "out.h5"
    if out.exists():
        out.unlink()
    done = subprocess.run([str(CLI), "run", str(spec), "-o", str(out)], capture_output=True, text=True)
    return done, out


def read_group(g):
    """A group's variables and attributes (h5py), subgroups left out."""
    vars_ = {k: g[k][()] for k in g.keys() if isinstance(g[k], h5py.Dataset)}
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
    return vars_, attrs


def assert_same(g, ds, skip_attrs=()):
    """Every variable of the CLI's group equals the Dataset's bit for bit (NaN = NaN), and every
    attribute of the group too."""
    vars_, attrs = read_group(g)
    assert set(vars_) == set(ds.variables), set(vars_) ^ set(ds.variables)
    for name, v in vars_.items():
        got = ds[name].values
        assert got.dtype == v.dtype, (name, got.dtype, v.dtype)
        assert np.array_equal(v, got, equal_nan=v.dtype.kind == "f"), name
    for k, v in attrs.items():
        if k in skip_attrs:
            continue
        got = ds.attrs[k]
        # A one-element array attribute reads back as its element (as xarray reads it).
        a, b = np.asarray(v).ravel(), np.asarray(got).ravel()
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (k, v, got)


FLIP32 = """kind = "map"
[model]
preset = "double"
[integrator]
dt = 0.01
[map]
kind = "flip-time"
resolution = 32
t_end = 10.0
kernel = "{kernel}"
"""


@needs_cli
@pytest.mark.parametrize("kernel", ["auto", "scalar"])
def test_flip_map_matches_cli_bit_for_bit(tmp_path, kernel):
    done, out = run_cli(tmp_path, FLIP32.format(kernel=kernel))
    assert done.returncode == 0, done.stderr
    ds = pendula.map(DOUBLE, kind="flip-time", resolution=32, t_end=10.0, dt=0.01, kernel=kernel)
    with h5py.File(out, "r") as f:
        assert_same(f["map"], ds)
    assert ds.attrs["kernel"] == kernel and ds.attrs["fnv1a64"]
    assert ds["flip_time"].dims == ("theta2", "theta1")
    # Independent check: from rest, no arm can pass ±π where the energy is below the lowest
    # flipped state's, 2 cos θ1 + cos θ2 > 1 (m = l = 1, either arm): those pixels never flip.
    t1, t2 = np.meshgrid(ds["theta1"].values, ds["theta2"].values)
    forbidden = 2 * np.cos(t1) + np.cos(t2) > 1
    assert forbidden.sum() > 100
    assert np.all(np.isnan(ds["flip_time"].values[forbidden]))
    assert np.isfinite(ds["flip_time"].values[~forbidden]).sum() > 300
    # Point symmetry of the model: (θ1, θ2) → (−θ1, −θ2) flips at the same time.
    ft = ds["flip_time"].values
    assert np.array_equal(ft, ft[::-1, ::-1], equal_nan=True)


# Each kind's extra [map] keys; final-state needs a damped chain (the same one on both sides).
MAP_KINDS = {
    "energy-error": {"t_end": 2.0},
    "lyapunov": {"t_end": 4.0, "tau": 0.25, "blocks": 8, "tolerance": 0.5},
    "megno": {"t_end": 2.0, "tau": 0.5},
    "ftle": {"t_end": 2.0},
    "sali": {"t_end": 2.0, "tau": 0.5},
    "gali": {"t_end": 2.0, "tau": 0.5, "gali_order": 3},
    "final-state": {"t_end": 20.0},
    "fli": {"t_end": 2.0, "tau": 0.5},
    # descriptor_p is no keyword of map(): it goes through as the spec's [map] key.
    "lagrangian-descriptor": {"t_end": 2.0, "descriptor_p": 0.25},
    "frequency": {"t_end": 6.4, "samples": 64, "window_order": 2},
}
DAMPED_TOML = """[model]
gravity = 9.81
damping = { joint = 0.5 }
link = [{ length = 1.0, mass = 1.0, shape = "point" }, { length = 1.0, mass = 1.0, shape = "point" }]
"""


@needs_cli
@pytest.mark.parametrize("kind", sorted(MAP_KINDS))
def test_every_map_kind_matches_cli(tmp_path, kind):
    extra = MAP_KINDS[kind]
    model = DAMPED_TOML if kind == "final-state" else "[model]\npreset = \"double\"\n"
    keys = "".join(f"{k} = {v}\n" for k, v in extra.items())
    text = f"kind = \"map\"\n{model}[integrator]\ndt = 0.01\n[map]\nkind = \"{kind}\"\nresolution = 8\n{keys}"
    done, out = run_cli(tmp_path, text)
    assert done.returncode == 0, done.stderr
    chain = DOUBLE
    if kind == "final-state":
        chain = pendula.Chain(links=[pendula.Link(), pendula.Link()], damping={"joint": 0.5})
    ds = pendula.map(chain, kind=kind, resolution=8, dt=0.01, **extra)
    with h5py.File(out, "r") as f:
        assert_same(f["map"], ds)
    assert ds.attrs["kind"] == kind and ds.sizes["theta1"] == ds.sizes["theta2"] == 8
    if kind == "lyapunov":
        # The error bars and the early stop came through (some pixels stop before t_end).
        assert ds.attrs["blocks"] == 8 and ds.attrs["tolerance"] == 0.5
        used = ds["time_used"].values
        assert np.all(used <= 4.0) and np.any(used < 4.0), used
        assert np.all(np.isfinite(ds["lyapunov_standard_error"].values))


def test_map_window_coordinates_and_rk4_order():
    """An energy-error map over (θ2, ω1): pixel centres of the window, and RK4's error falls
    as dt⁴ (halving dt divides it by about 16)."""
    kw = dict(kind="energy-error", resolution=[6, 4], x="theta2", y="omega1",
              window=[-1.0, 1.0, -2.0, 2.0], t_end=0.5)
    coarse = pendula.map(DOUBLE, dt=0.01, **kw)
    fine = pendula.map(DOUBLE, dt=0.005, **kw)
    assert coarse["energy_error"].dims == ("omega1", "theta2")
    assert coarse.sizes["theta2"] == 6 and coarse.sizes["omega1"] == 4
    assert np.allclose(coarse["theta2"].values, -1.0 + (np.arange(6) + 0.5) * 2.0 / 6, rtol=0, atol=1e-15)
    assert np.allclose(coarse["omega1"].values, -2.0 + (np.arange(4) + 0.5) * 4.0 / 4, rtol=0, atol=1e-15)
    e1, e2 = coarse["energy_error"].values, fine["energy_error"].values
    assert np.all(e1 < 1e-5) and np.all(e2 > 0)
    ratio = np.median(e1 / e2)
    assert 8 < ratio < 32, ratio


DAMPED = {"link": [{"length": 1.0, "mass": 1.0}] * 2, "damping": {"joint": 0.5}}
CART = {"kind": "cart-chain", "links": 2, "cart_mass": 1.0}
READER_CASES = {
    "flip-map": ({"preset": "double"}, "map", None, {"kind": "flip-time", "resolution": 16, "t_end": 3.0}),
    "basins": (DAMPED, "map", None, {"kind": "final-state", "resolution": 8, "t_end": 10.0}),
    "simulate": ({"preset": "double"}, "simulate", {"theta": [1.0, 0.5]}, {"t_end": 1.0, "dt_out": 0.1}),
    "lyapunov": ({"preset": "double"}, "lyapunov", {"theta": [1.0, 0.5]}, {"t_end": 2.0, "transient": 0.5}),
    "modes": ({"preset": "triple"}, "modes", None, {"equilibria": "all"}),
    "cart-simulate": (CART, "simulate", {"equilibrium": "inverted", "tilt": 0.1}, {"t_end": 1.0}),
    "cart-modes": (CART, "modes", None, {"equilibria": "all"}),
    "covariant": ({"preset": "double"}, "lyapunov", {"theta": [2.0, 2.0]},
                  {"t_end": 12.0, "transient": 2.0, "vectors": "covariant", "vector_samples": 50,
                   "vector_pairs": [[1, 4], [2, 3]]}),
}


READER_CASES["poincare"] = ({"preset": "double"}, "poincare", None,
                             {"energy": [-10.0], "grid": [3, 2], "crossings": 20})
TREES = {"poincare"}


def toml(spec):
    """A spec dict as TOML (scalars, arrays and inline tables: JSON's spelling suits them)."""
    def value(v):
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)
    top = [f"{k} = {value(v)}" for k, v in spec.items() if not isinstance(v, dict)]
    tables = [f"[{k}]\n" + "\n".join(f"{a} = {value(b)}" for a, b in v.items())
              for k, v in spec.items() if isinstance(v, dict)]
    return "\n".join(top + tables) + "\n"


def assert_types_equal(ours, ref, where):
    assert list(ours.data_vars) == list(ref.data_vars) and list(ours.coords) == list(ref.coords), where
    for name in ref.variables:
        assert ours[name].dtype == ref[name].dtype, (where, name)
        assert {k: type(v) for k, v in ours[name].attrs.items()} == \
            {k: type(v) for k, v in ref[name].attrs.items()}, (where, name)
    assert {k: type(v) for k, v in ours.attrs.items()} == {k: type(v) for k, v in ref.attrs.items()}, where


@needs_cli
@pytest.mark.parametrize("case", sorted(READER_CASES))
def test_result_is_xarrays_reading_of_the_cli_file(tmp_path, case):
    """What the package returns (built from the writers' in-memory image, no file) is exactly
    what xarray.open_dataset / open_datatree(engine="h5netcdf") gives for the CLI's file of the
    same spec: same variables in the same order, dims, values, dtypes and attribute types."""
    import xarray
    model, kind, initial, table = READER_CASES[case]
    spec = {"kind": kind, "model": model, kind: table}
    if initial:
        spec["initial"] = initial
    done, out = run_cli(tmp_path, toml(spec))
    assert done.returncode == 0, done.stderr
    group = {"simulate": "trajectory"}.get(kind, kind)
    if case == "covariant":
        group = "covariant"
    if case in TREES:
        ours = pendula._run(spec, tree=True)
        with xarray.open_datatree(out, group=group, engine="h5netcdf") as ref:
            ref.load()
        assert ours.identical(ref)
        for node in ref.subtree:
            assert_types_equal(ours[node.path].to_dataset(), node.to_dataset(), node.path)
        return
    ours = pendula._run(spec)
    with xarray.open_dataset(out, group=group, engine="h5netcdf") as ref:
        ref.load()
    # The provenance's time stamp is the only attribute that may differ, and it is on the root.
    assert ours.identical(ref)
    assert_types_equal(ours, ref, case)


def test_gil_released_while_a_map_computes():
    """A Python thread keeps counting while a map computes on rayon's threads (sized to run
    well over 0.2 s even on a many-core machine)."""
    took, during = count_while(lambda: pendula.map(
        DOUBLE, kind="flip-time", resolution=256, t_end=40.0, energy_skip=False))
    assert took > 0.2, "map too short to tell"
    # A held GIL would let the counter run only at the 50 ms signal polls (< 20 per second).
    assert during > 100 * took, (during, took)


def test_ctrl_c_interrupts_a_map_and_leaves_nothing(tmp_path, monkeypatch):
    """SIGINT from outside (as a terminal's Ctrl-C) during a long map: KeyboardInterrupt within
    a fraction of the map's time, no temporary file left behind, and the next call works."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # Signalled once the map is 0.5 s of CPU in; CPU time, not wall time, bounds the stop: on a
    # busy machine the wall clock runs on while other processes hold the cores.
    # About 15 s on two idle cores (30 CPU seconds) if it ran to the end.
    took = interrupted_once_under_way(lambda: pendula.map(
        DOUBLE, kind="flip-time", resolution=512, t_end=100.0, energy_skip=False))
    assert took < 5.0, took
    assert list(tmp_path.iterdir()) == []
    ds = pendula.map(DOUBLE, kind="flip-time", resolution=8, t_end=1.0)
    assert ds.attrs["complete"] == 1


FLIP256 = """kind = "map"
[model]
preset = "double"
[integrator]
dt = 0.01
[map]
kind = "flip-time"
resolution = 256
t_end = 10.0
"""


@needs_cli
def test_map_256_time_within_10_percent_of_cli(tmp_path):
    """The same 256² flip map from Python and from the CLI, best of 3 each (interleaved, so
    that load from other processes falls on both): Python may not be more than 10 % slower."""
    spec = tmp_path / "spec.toml"
    spec.write_text(FLIP256)
    out = tmp_path / "out.h5"
    # CPU seconds (the CLI child's from its rusage, this process's own), not wall time: other
    # processes on a busy machine stretch the wall clock of either run, not the work it does.
    def children_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime
    cli_t, py_t = [], []
    for _ in range(3):
        t0 = children_cpu()
        done = subprocess.run([str(CLI), "run", str(spec), "-o", str(out), "--force"], capture_output=True, text=True)
        cli_t.append(children_cpu() - t0)
        assert done.returncode == 0, done.stderr
        t0 = time.process_time()
        ds = pendula.map(DOUBLE, kind="flip-time", resolution=256, t_end=10.0, dt=0.01)
        py_t.append(time.process_time() - t0)
    with h5py.File(out, "r") as f:
        assert read_group(f["map"])[1]["fnv1a64"] == ds.attrs["fnv1a64"]
    ratio = min(py_t) / min(cli_t)
    print(f"256² flip map: python {min(py_t):.3f} s, cli {min(cli_t):.3f} s, ratio {ratio:.3f}")
    assert ratio < 1.10, (py_t, cli_t)


def test_map_bad_input_names_the_field():
    with pytest.raises(ValueError, match=r"^map\.kind: unknown"):
        pendula.map(DOUBLE, kind="fractal", resolution=8)
    with pytest.raises(ValueError, match=r"`t_max` was renamed to `t_end`"):
        pendula.map(DOUBLE, resolution=8, t_max=5.0)
    with pytest.raises(ValueError, match=r"^map\.kernel: unknown kernel `simd`"):
        pendula.map(DOUBLE, resolution=8, kernel="simd")
    with pytest.raises(ValueError, match=r"^map\.y: must differ from map\.x"):
        pendula.map(DOUBLE, resolution=8, x="theta1", y="theta1")
    with pytest.raises(ValueError, match=r"^map\.resolution: 10000x10000"):
        pendula.map(DOUBLE, resolution=10000, t_end=1.0)
    # A keyword that is no [map] key is refused by the spec's parser, which names it.
    with pytest.raises(ValueError, match=r"unknown field `descriptor_q`"):
        pendula.map(DOUBLE, kind="lagrangian-descriptor", resolution=8, descriptor_q=0.5)


@needs_cli
def test_map_bad_input_message_is_the_clis(tmp_path):
    done, out = run_cli(tmp_path, FLIP32.format(kernel="simd"))
    assert done.returncode == 2 and not out.exists()
    with pytest.raises(ValueError) as e:
        pendula.map(DOUBLE, kind="flip-time", resolution=32, t_end=10.0, dt=0.01, kernel="simd")
    assert done.stderr.strip() == f"error: {e.value}"


def test_modes_closed_form_and_all_equilibria():
    """Equal double pendulum: ω² = (g/l)(2 ∓ √2) hanging; one unstable direction per link up."""
    ds = pendula.modes(DOUBLE, equilibria="all")
    g = 9.81
    assert ds.sizes["equilibrium"] == 4
    hanging = ds["omega2"].values[0]
    assert np.allclose(hanging, [g * (2 - np.sqrt(2)), g * (2 + np.sqrt(2))], rtol=1e-12, atol=0)
    assert list(ds["unstable"].values) == [0, 1, 1, 2]
    assert np.allclose(ds["period"].values[0], 2 * np.pi / np.sqrt(hanging), rtol=1e-12)


@needs_cli
def test_modes_match_cli(tmp_path):
    done, out = run_cli(tmp_path, "kind = \"modes\"\n[model]\npreset = \"triple\"\n[modes]\nequilibria = [\"+++\", \"+-+\"]\n")
    assert done.returncode == 0, done.stderr
    ds = pendula.modes(pendula.Chain.preset("triple"), equilibria=["+++", "+-+"])
    with h5py.File(out, "r") as f:
        assert_same(f["modes"], ds)


def test_modes_bad_input():
    with pytest.raises(ValueError, match=r"^modes\.equilibria"):
        pendula.modes(DOUBLE, equilibria="+++")
    with pytest.raises(ValueError, match=r"^modes\.equilibria: is an empty list"):
        pendula.modes(DOUBLE, equilibria=[])


POINCARE = """kind = "poincare"
[model]
preset = "double"
[poincare]
energy = [-10.0]
grid = [3, 2]
crossings = 40
t_end = 500.0
"""


@needs_cli
def test_poincare_matches_cli_and_lies_on_the_section(tmp_path):
    done, out = run_cli(tmp_path, POINCARE)
    assert done.returncode == 0, done.stderr
    dt = pendula.poincare(DOUBLE, energy=[-10.0], grid=[3, 2], crossings=40, t_end=500.0)
    with h5py.File(out, "r") as f:
        assert_same(f["poincare"], dt.to_dataset())
        assert_same(f["poincare/shell_1"], dt["shell_1"].to_dataset())
    sh = dt["shell_1"]
    theta = sh["theta"].values[..., 0]
    ok = np.isfinite(theta)
    assert ok.sum() >= 40
    # Every crossing is on θ1 = 0 (mod 2π) and on the shell E = −10 J (DOP853 at 1e-12).
    assert np.max(np.abs(np.angle(np.exp(1j * theta[ok])))) < 1e-9
    assert np.nanmax(np.abs(sh["energy_error"].values)) < 1e-9


def test_poincare_bad_input():
    with pytest.raises(ValueError, match=r"^poincare\.direction: unknown direction `up`"):
        pendula.poincare(DOUBLE, energy=-10.0, direction="up")
    with pytest.raises(ValueError, match=r"^poincare\.t_end: no orbit crossed"):
        # Released at θ1 = 0.1 the first arm falls through θ1 = 0.05 only after ~0.3 s.
        pendula.poincare(DOUBLE, theta=[0.1, 0.1], section="theta1", value=0.05, direction="-",
                         t_end=0.05)


SALI = """kind = "lyapunov"
[model]
preset = "double"
[initial]
theta = [2.0, 2.0]
[lyapunov]
estimator = "sali"
t_end = 20.0
"""


@needs_cli
def test_sali_matches_cli(tmp_path):
    """estimator="sali" gives the CLI's `indicators` group (SALI/GALI) bit for bit."""
    done, out = run_cli(tmp_path, SALI)
    assert done.returncode == 0, done.stderr
    ds = pendula.lyapunov(DOUBLE, [2.0, 2.0], estimator="sali", t_end=20.0)
    with h5py.File(out, "r") as f:
        assert_same(f["indicators"], ds)
    assert ds.attrs["regularity"] in ("chaotic", "regular", "undecided")


def test_covariant_vectors_keywords():
    """vectors="covariant" gives the `covariant` group: unit vectors over (time, vector,
    state_component), mean growth rates that agree with the exponents, pairs by 1-based index;
    a bad pair names its keyword."""
    ds = pendula.lyapunov(DOUBLE, [2.0, 2.0], t_end=60.0, vectors="covariant", vector_samples=100,
                          vector_pairs=[(1, 4)], backward_transient=20.0, tangency_angle=0.05)
    assert ds["vectors"].dims == ("time", "vector", "state_component")
    assert ds["vectors"].shape == (100, 4, 4)
    assert np.allclose((ds["vectors"] ** 2).sum("state_component"), 1.0, atol=1e-12)
    diff = abs(ds["growth_rate_mean"] - ds["exponents"])
    assert (diff < ds["growth_rate_standard_error"]).all(), diff.values
    assert list(ds["pair_first"].values) == [1] and list(ds["pair_second"].values) == [4]
    assert np.array_equal(ds["pair_angle"][:, 0].values, ds["min_angle"].values)
    assert ds.attrs["backward_transient"] == 20.0 and ds.attrs["tangency_angle"] == 0.05
    with pytest.raises(ValueError, match="vector_pairs"):
        pendula.lyapunov(DOUBLE, [2.0, 2.0], vectors="covariant", vector_pairs=[(1, 9)])
    with pytest.raises(ValueError, match="backward_transient"):
        pendula.lyapunov(DOUBLE, [2.0, 2.0], backward_transient=5.0)


def test_cart_chain_spherical_pendulum_modes():
    """One spherical pendulum on a fixed pivot: two modes at ω² = g/l; hanging stable."""
    ds = pendula.modes(pendula.CartChain(links=1, length=2.0, fixed=True), equilibria="all")
    w2 = ds["omega2"].values[0]
    w2 = w2[np.abs(w2) > 1e-9]
    assert np.allclose(w2, [9.81 / 2.0] * 2, rtol=1e-12)
    assert list(ds["stable"].values) == [1, 0]


@needs_cli
def test_cart_chain_simulate_and_lyapunov_match_cli(tmp_path):
    cart = "[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n[initial]\nequilibrium = \"inverted\"\ntilt = 0.05\n"
    done, out = run_cli(tmp_path, "kind = \"simulate\"\n" + cart + "[simulate]\nt_end = 2.0\ndt_out = 0.1\n")
    assert done.returncode == 0, done.stderr
    model = pendula.CartChain(links=2, cart_mass=1.0)
    ds = pendula.simulate(model, equilibrium="inverted", tilt=0.05, t_end=2.0, dt_out=0.1)
    with h5py.File(out, "r") as f:
        assert_same(f["trajectory"], ds)
    # Free cart, no input: horizontal momentum and energy are conserved.
    assert np.max(np.abs(ds["momentum"].values)) < 1e-9
    assert ds.attrs["max_energy_error"] < 1e-8
    done, out = run_cli(tmp_path, "kind = \"lyapunov\"\n" + cart + "[lyapunov]\nt_end = 3.0\ntransient = 1.0\n")
    assert done.returncode == 0, done.stderr
    ds = pendula.lyapunov(model, equilibrium="inverted", tilt=0.05, t_end=3.0, transient=1.0)
    with h5py.File(out, "r") as f:
        assert_same(f["lyapunov"], ds)


@needs_cli
def test_cart_chain_control_matches_cli(tmp_path):
    """pendula.control is `pendula run` of a control spec: the same `lqr` group, bit for bit,
    and a closed loop that brings the tilted inverted chain back up."""
    spec = ("kind = \"control\"\n[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n"
            "[control]\nt_end = 5.0\ndt_out = 0.05\nx_ref = [0.5, 0.0]\n")
    done, out = run_cli(tmp_path, spec)
    assert done.returncode == 0, done.stderr
    model = pendula.CartChain(links=2, cart_mass=1.0)
    ds = pendula.control(model, t_end=5.0, dt_out=0.05, x_ref=[0.5, 0.0])
    with h5py.File(out, "r") as f:
        assert_same(f["lqr"], ds)
    with pytest.raises(ValueError, match=r"^control\.r: must be"):
        pendula.control(model, r=-1.0)
    with pytest.raises(ValueError, match=r"^kind: `control` is not offered for the planar"):
        pendula.control(pendula.Chain.preset("double"))


def test_cart_chain_bad_input():
    with pytest.raises(ValueError, match=r"^model\."):
        pendula.CartChain(links=2, cart_mass=-1.0)
    with pytest.raises(ValueError, match=r"^kind: `map` is not offered for the cart-chain"):
        pendula.map(pendula.CartChain(links=2, cart_mass=1.0), resolution=8)


def _root(a):
    """The object that owns an array's memory, following NumPy's view chain."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a


@pytest.mark.parametrize("case", sorted(READER_CASES))
def test_result_arrays_are_the_rust_vectors_not_copies(case):
    """Every data variable of a result (a map's grids and tiles, a trajectory, modes, a
    section's crossings) is a view of a NumPy array owning the Rust vector the store writer
    filled (rust-numpy's PySliceContainer), not an array read back from a file. The dimension
    coordinates are left out: xarray keeps them as pandas indexes of its own."""
    model, kind, initial, table = READER_CASES[case]
    spec = {"kind": kind, "model": model, kind: table}
    if initial:
        spec["initial"] = initial
    result = pendula._run(spec, tree=case in TREES)
    datasets = [n.to_dataset(inherit=False) for n in result.subtree] if case in TREES else [result]
    names = 0
    for ds in datasets:
        for name, var in ds.data_vars.items():
            v = var.values
            assert not v.flags.owndata, (case, name)
            assert type(_root(v)).__name__ == "PySliceContainer", (case, name, type(_root(v)))
            names += 1
    assert names >= 3, case
    # An array NumPy made itself is not such a view: the check tells them apart.
    assert type(_root(np.arange(3.0).reshape(3, 1))).__name__ != "PySliceContainer"
