"""The Python package against the CLI: same numbers bit for bit, same messages, GIL released."""

import os
import pathlib
import subprocess

import h5py
import numpy as np
import pytest

import pendula
from counting import count_while

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "pendula"
if os.environ.get("PENDULA_REQUIRE_PYTHON") and not CLI.exists():
    raise RuntimeError(f"{CLI} missing: run cargo build --release first")


def cli(tmp_path, spec_text, group):
    """Runs the CLI on a spec and reads its result group back with h5py."""
    spec = tmp_path / "spec.toml"
    spec.write_text(spec_text)
    out = tmp_path / "out.h5"
    done = subprocess.run([str(CLI), "run", str(spec), "-o", str(out)], capture_output=True, text=True)
    return done, (h5py.File(out, "r")[group] if out.exists() else None)


DOUBLE = """kind = "simulate"
[model]
preset = "double"
gravity = 9.81
[initial]
theta = [2.0, 1.5]
omega = [0.0, 0.5]
[integrator]
method = "dop853"
rtol = 1e-11
atol = 1e-11
[simulate]
t_end = 5.0
dt_out = 0.05
"""


@pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula (cargo build --release)")
def test_trajectory_matches_cli_bit_for_bit(tmp_path):
    done, g = cli(tmp_path, DOUBLE, "trajectory")
    assert done.returncode == 0, done.stderr
    ds = pendula.simulate(pendula.Chain.preset("double"), [2.0, 1.5], [0.0, 0.5], t_end=5.0, dt_out=0.05,
                          method="dop853", rtol=1e-11, atol=1e-11)
    names = set(k for k in g.keys())
    assert names == set(ds.variables), names ^ set(ds.variables)
    for name in ("theta", "omega", "energy", "work", "energy_error", "time", "kinetic_energy"):
        assert np.array_equal(g[name][()], ds[name].values), name
        assert g[name].attrs["units"].decode() if isinstance(g[name].attrs["units"], bytes) else True
        assert str(ds[name].attrs["units"]) == (g[name].attrs["units"].decode()
                                                if isinstance(g[name].attrs["units"], bytes)
                                                else str(g[name].attrs["units"])), name
    assert ds["theta"].dims == ("time", "link")
    assert ds.attrs["t_end"] == 5.0 and ds.attrs["dt_out"] == 0.05
    assert ds.sizes["time"] == 101


def test_custom_links_equal_preset():
    """Two point links of 1 m, 1 kg are the `double` preset: same trajectory."""
    links = [pendula.Link(length=1, mass=1, shape="point")] * 2
    a = pendula.simulate(pendula.Chain(links=links, gravity=9.81), [1.0, 0.5], t_end=1.0, dt_out=0.1)
    b = pendula.simulate(pendula.Chain.preset("double"), [1.0, 0.5], t_end=1.0, dt_out=0.1)
    assert np.array_equal(a["theta"].values, b["theta"].values)
    # Energy is conserved to the integrator's tolerance (independent check of the physics).
    assert float(abs(a["energy_error"]).max()) < 1e-8


def test_rod_chain_differs_from_point_chain():
    rod = pendula.Chain(links=[pendula.Link(shape="rod"), pendula.Link(shape="rod")])
    pt = pendula.Chain.preset("double")
    a = pendula.simulate(rod, [1.0, 0.5], t_end=1.0, dt_out=0.5)
    b = pendula.simulate(pt, [1.0, 0.5], t_end=1.0, dt_out=0.5)
    assert not np.array_equal(a["theta"].values, b["theta"].values)
    assert np.allclose(a["link_com"].values, [0.5, 0.5])


def test_load_spec(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(DOUBLE)
    chain, theta, omega = pendula.load_spec(p)
    assert chain.links == 2 and theta == [2.0, 1.5] and omega == [0.0, 0.5]
    # A spec the CLI refuses is refused with the CLI's message, naming the field.
    q = tmp_path / "no-model.toml"
    q.write_text('kind = "simulate"\n')
    with pytest.raises(ValueError, match=r"^model: missing"):
        pendula.load_spec(q)


@pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula")
def test_bad_input_has_the_cli_message(tmp_path):
    done, _ = cli(tmp_path, DOUBLE.replace("t_end = 5.0", "t_end = -1.0"), "trajectory")
    assert done.returncode == 2
    with pytest.raises(ValueError) as e:
        pendula.simulate(pendula.Chain.preset("double"), [2.0, 1.5], t_end=-1.0)
    assert done.stderr.strip() == f"error: {e.value}"
    assert str(e.value).startswith("simulate.t_end:")


def test_bad_model_names_the_field():
    with pytest.raises(ValueError, match=r"^model\.preset: unknown preset `quad`"):
        pendula.Chain.preset("quad")
    with pytest.raises(ValueError, match=r"^initial\.theta"):
        pendula.simulate(pendula.Chain.preset("double"), [1.0], t_end=1.0)


def test_messages_name_the_keyword_not_a_place_or_a_flag():
    """A misspelt key of a keyword's dict is named by its field, with no location in the TOML
    text the wrapper made (`<python>:6:1:`); an over-budget run names the machine's budget, not
    the CLI's --max-memory."""
    with pytest.raises(ValueError) as e:
        pendula.Chain.preset("double", damping={"absolut": 1.0})
    assert str(e.value) == "model.damping.absolut: unknown field `absolut`, expected `absolute` or `joint`"
    with pytest.raises(ValueError) as e:
        pendula.simulate(pendula.Chain.preset("double"), [1.0, 1.0], t_end=1e7, dt_out=1e-3)
    assert str(e.value).startswith("simulate.t_end: ")
    assert str(e.value).endswith("budget (half of this machine's memory)")
    assert "--" not in str(e.value) and "<python>" not in str(e.value)
    # A map held in memory (the package's) has a size limit of its own, and says what streams.
    with pytest.raises(ValueError) as e:
        pendula.map(pendula.Chain.preset("double"), resolution=60000)
    assert str(e.value).startswith("map.resolution: ")
    assert "pendula map" in str(e.value)
    assert "--" not in str(e.value) and "<python>" not in str(e.value)


def test_gil_released_during_a_run():
    """A Python thread keeps counting while a long simulation computes."""
    took, during = count_while(lambda: pendula.simulate(
        pendula.Chain.preset("triple"), [2.0, 2.0, 2.0], t_end=2000.0, dt_out=1.0,
        method="dop853", rtol=1e-13, atol=1e-13))
    assert took > 0.2, "run too short to tell"
    assert during > 100, during


LYAP = """kind = "lyapunov"
[model]
preset = "double"
[initial]
theta = [2.0, 2.0]
[integrator]
method = "rk4"
dt = 0.001
[lyapunov]
estimator = "spectrum"
tau = 0.1
transient = 1.0
t_end = 21.0
"""


@pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula")
def test_spectrum_matches_cli_bit_for_bit(tmp_path):
    done, g = cli(tmp_path, LYAP, "lyapunov")
    assert done.returncode == 0, done.stderr
    ds = pendula.lyapunov(pendula.Chain.preset("double"), [2.0, 2.0], method="rk4", dt=0.001,
                          estimator="spectrum", tau=0.1, transient=1.0, t_end=21.0)
    assert set(g.keys()) == set(ds.variables)
    for name in ("exponents", "standard_error", "history", "time"):
        assert np.array_equal(g[name][()], ds[name].values, equal_nan=True), name
    # Hamiltonian: the spectrum is symmetric, λ1 + λ4 ≈ 0 within 3 of its standard errors.
    lam = ds["exponents"].values
    se = ds["pair_sums_standard_error"].values[0]
    assert lam[0] > 0.5 and abs(lam[0] + lam[-1]) < 3 * se < 1.0
    assert ds["history"].dims == ("time", "exponent")


def test_lyapunov_bad_input():
    with pytest.raises(ValueError, match=r"^lyapunov\.tau"):
        pendula.lyapunov(pendula.Chain.preset("double"), [2.0, 2.0], tau=-1.0, t_end=5.0)
