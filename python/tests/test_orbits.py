"""pendula.orbits: the simple pendulum's family against the elliptic integral, the Baker–Gollub
pendulum's first period doubling, an orbit diagram, the CLI's file, and refusals naming their
keyword."""

import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import pendula
from counting import interrupted_once_under_way

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "pendula"
if os.environ.get("PENDULA_REQUIRE_PYTHON") and not CLI.exists():
    raise RuntimeError(f"{CLI} missing: run cargo build --release first")
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula (cargo build --release)")

SIMPLE = pendula.Chain.preset("simple")  # l = 1 m, m = 1 kg, g = 9.81 m/s²
# Baker & Gollub's driven damped pendulum: q = 2 (damping 0.5), ω_D = 2/3, g = l = m = 1.
BAKER_GOLLUB = pendula.Chain([pendula.Link(length=1.0, mass=1.0)], gravity=1.0,
                             damping={"absolute": 0.5},
                             drive={"torque": {"amplitude": 1.05, "frequency": 2.0 / 3.0}})
AMPLITUDE = "model.drive.torque.amplitude"




def elliptic_k_complement(kp):
    """K(k) from k' = √(1 − k²), by the arithmetic-geometric mean: K = π / (2 AGM(1, k'))."""
    a, b = np.ones_like(kp), np.asarray(kp, dtype=float)
    for _ in range(40):
        a, b = (a + b) / 2, np.sqrt(a * b)
    return math.pi / (2 * a)


def test_simple_pendulum_family_period_is_the_elliptic_integral():
    """Continued in energy from the mode seed up to θ₀ > 179°, every point's period is
    4√(l/g)·K(sin(θ₀/2)) to 1e-10 relative (the issue's bar; 5e-11 measured, at the mode
    seed's orbit), θ₀ from the orbit's energy E = −mgl·cos θ₀."""
    g = 9.81
    # The branch ends on the range's end: E = 9.809 J is θ₀ = 179.18°.
    t = pendula.orbits(SIMPLE, action="continue", start="mode", parameter="orbits.energy",
                       range=[-9.81, 9.809], points=300, step=0.05, max_step=0.5)
    assert t.attrs["closure"] == "energy" and t.attrs["parameter"] == "orbits.energy"
    b = t["branch_1"]
    assert b.attrs["label"] == "family" and b.attrs["ended"] == "range"
    energy, period = b["energy"].values, b["period"].values
    assert len(energy) > 40
    # cos(θ₀/2)² = (1 + cos θ₀)/2 = (1 − E/mgl)/2, without the angle (exact near θ₀ = π).
    kp = np.sqrt((1 - energy / g) / 2)
    exact = 4 * math.sqrt(1 / g) * elliptic_k_complement(kp)
    theta0 = np.degrees(np.arccos(np.clip(-energy / g, -1, 1)))
    assert theta0.min() < 3 and theta0.max() > 179
    rel = np.abs(period / exact - 1)
    assert rel.max() < 1e-10, (rel.max(), theta0[rel.argmax()])
    # Below the separatrix every orbit of the family is elliptic (multipliers on the circle).
    # `stability` is a CF flag variable (integer codes); the accessor decodes it to words.
    assert b["stability"].attrs["flag_meanings"].split()[0] == "stable"
    assert set(b.to_dataset().pendula.decoded()["stability"].values) == {"elliptic"}
    assert len(t["bifurcations"]["bifurcation"]) == 0


def test_baker_gollub_first_period_doubling():
    """The period-1 attractor at torque 1.05, continued up in the torque amplitude, doubles at
    1.0663729 (located to 1e-10), and the doubled branch has twice the drive period."""
    t = pendula.orbits(BAKER_GOLLUB, action="continue", theta=[0.0], start="settle",
                       parameter=AMPLITUDE, range=[1.0, 1.1], points=400, step=0.002,
                       max_step=0.01, locate_tolerance=1e-10, doublings=1)
    drive = t.attrs["drive_period"]
    assert drive == pytest.approx(3 * math.pi, rel=1e-15)
    assert t.attrs["parameter_units"] == "N m"
    assert t["branch_1"].attrs["label"] == "period-1" and t["branch_2"].attrs["label"] == "period-2"
    assert np.allclose(t["branch_2"]["period"].values, 2 * drive, rtol=1e-12)
    bif = t["bifurcations"].to_dataset().pendula.decoded()
    first = bif.isel(bifurcation=0)
    assert int(first["branch"]) == 1
    assert first["kind"].item() == "period_doubling"
    # The same decoding on the whole tree, as `xarray.open_datatree` of the CLI's file gives it.
    assert t.pendula.decoded()["bifurcations"]["kind"].values[0] == "period_doubling"
    assert abs(float(first["parameter"]) - 1.0663729) < 1e-6
    assert float(first["uncertainty"]) < 1e-9
    assert abs(float(first["multiplier_real"]) + 1) < 1e-6
    assert first["stability_before"].item() == "stable"
    assert first["stability_after"].item() == "unstable"
    # The doubled branch's own doubling (period 2 → 4) lies beyond, at 1.07931.
    second = bif.where(bif["branch"] == 2, drop=True)
    assert second["kind"].values[0] == "period_doubling"
    assert float(second["parameter"][0]) == pytest.approx(1.0793139, abs=1e-6)


def test_orbit_diagram_dims_and_lyapunov():
    """A diagram over 7 torque amplitudes from two starts: the samples' dims, angles wrapped to
    (−π, π], and λ_max finite at every value and start."""
    t = pendula.orbits(BAKER_GOLLUB, action="diagram", theta=[0.0], parameter=AMPLITUDE,
                       range=[0.9, 1.5], points=7, starts=[[1.0, 0.0]], transient_periods=50,
                       sampled_periods=20, steps_per_period=100)
    d = t["diagram"]
    assert dict(d["samples"].sizes) == {"parameter": 7, "start": 2, "sample": 20,
                                         "state_component": 2}
    assert np.allclose(d["parameter"].values, np.linspace(0.9, 1.5, 7), rtol=0, atol=1e-15)
    assert d["starts"].values.tolist() == [[0.0, 0.0], [1.0, 0.0]]
    theta = d["samples"].values[..., 0]
    assert np.all((theta > -math.pi) & (theta <= math.pi))
    lyap = d["lyapunov"]
    assert lyap.dims == ("parameter", "start") and lyap.attrs["units"] == "s-1"
    assert np.all(np.isfinite(lyap.values))
    assert "orbit" not in t.children and "branch_1" not in t.children


def toml(spec):
    """A spec dict as TOML (scalars, arrays and inline tables: JSON's spelling suits them)."""
    import json

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


CLI_CASES = {
    # One orbit of the driven pendulum: the `orbit` child (monodromy, shape, Newton history).
    "find": (BAKER_GOLLUB, {"theta": [0.0]},
             dict(start="settle", transient_periods=50, shape_samples=16)),
    # A short family of the double pendulum: `orbit`, `branch_1` and `bifurcations`.
    "continue": (pendula.Chain.preset("double"), None,
                 dict(action="continue", start="mode", mode=2, parameter="orbits.energy",
                      range=[-30.0, -25.0], points=12, step=0.2, max_step=0.5)),
    # The period-doubled branch too (`branch_2`).
    "doublings": (BAKER_GOLLUB, {"theta": [0.0]},
                  dict(action="continue", start="settle", parameter=AMPLITUDE,
                       range=[1.04, 1.07], points=30, step=0.002, max_step=0.01,
                       doublings=1)),
    "diagram": (BAKER_GOLLUB, {"theta": [0.0]},
                dict(action="diagram", parameter=AMPLITUDE, range=[1.0, 1.2], points=3,
                     transient_periods=10, sampled_periods=4, steps_per_period=50)),
}


@needs_cli
@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_result_is_xarrays_reading_of_the_cli_file(tmp_path, case):
    """pendula.orbits returns exactly what xarray.open_datatree gives for the file `pendula run`
    writes from the same spec: every group, variable, dim, value, dtype and attribute."""
    import xarray
    model, initial, kw = CLI_CASES[case]
    spec = {"kind": "orbits", "model": model.table, "orbits": kw}
    if initial:
        spec["initial"] = initial
    path = tmp_path / "spec.toml"
    path.write_text(toml(spec))
    out = tmp_path / "out.h5"
    done = subprocess.run([str(CLI), "run", str(path), "-o", str(out)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    ours = pendula.orbits(model, **(initial or {}), **kw)
    with xarray.open_datatree(out, group="orbits", engine="h5netcdf") as ref:
        ref.load()
    assert ours.identical(ref)
    assert sorted(ours.children) == sorted(ref.children)
    for node in ref.subtree:
        mine = ours[node.path].to_dataset()
        theirs = node.to_dataset()
        assert list(mine.variables) == list(theirs.variables), node.path
        for name in theirs.variables:
            assert mine[name].dtype == theirs[name].dtype, (node.path, name)
            assert {k: type(v) for k, v in mine[name].attrs.items()} == \
                {k: type(v) for k, v in theirs[name].attrs.items()}, (node.path, name)


@pytest.mark.parametrize("model, kw, message", [
    (SIMPLE, dict(action="continue", start="mode", parameter="orbits.energy", range=[1.0]),
     r"^orbits\.range: must be two different finite values"),
    (SIMPLE, dict(action="continue", start="mode", parameter="model.nope", range=[0.0, 1.0]),
     r"^orbits\.parameter: `model\.nope` is not a field a run can vary"),
    (BAKER_GOLLUB, dict(action="continue", theta=[0.0], parameter="orbits.energy",
                        range=[0.0, 1.0]),
     r"^orbits\.parameter: orbits\.energy varies an undriven chain's energy"),
    (pendula.Chain([pendula.Link(), pendula.Link()], damping={"joint": 0.1}),
     dict(start="mode"), r"^model\.damping: an undriven damped chain has no periodic orbits"),
    (SIMPLE, dict(start="settle", theta=[0.1]), r"^orbits\.start: \"settle\" integrates drive"),
    (SIMPLE, dict(action="bogus"), r"^orbits\.action: unknown `bogus`"),
    (SIMPLE, dict(start="mode", mode=2), r"^orbits\.mode: must be 1 \.\.= 1"),
    (SIMPLE, dict(theta=[0.5], period=-1.0), r"^orbits\.period: "),
    (SIMPLE, dict(theta=[0.5]), r"^orbits\.period: missing"),
    (SIMPLE, dict(start="mode", step=0.1), r"^orbits\.step: applies to action"),
    (SIMPLE, dict(start="mode", drive_periods=2), r"^orbits\.drive_periods: applies to a driven"),
    (BAKER_GOLLUB, dict(theta=[0.0], period=3.0), r"^orbits\.period: a driven chain"),
    (BAKER_GOLLUB, dict(theta=[0.0], rtol=-1.0), r"^integrator\.rtol: "),
    (SIMPLE, dict(action="diagram", start="mode", parameter="model.gravity", range=[9.0, 10.0]),
     r"^model\.drive: an orbit diagram samples a driven chain"),
    (BAKER_GOLLUB, dict(action="diagram", theta=[0.0], parameter=AMPLITUDE, range=[1.0, 1.1],
                        starts=[[0.0]]), r"^orbits\.starts\[1\]: must be a whole state"),
])
def test_bad_keywords_are_named(model, kw, message):
    with pytest.raises(ValueError, match=message):
        pendula.orbits(model, **kw)


@pytest.mark.parametrize("kw, field", [
    (dict(range=1.0), "orbits.range"),
    (dict(points="many"), "orbits.points"),
    (dict(doublings=-1), "orbits.doublings"),
])
def test_wrong_types_are_named(kw, field):
    """A value of the wrong type gets the spec parser's message, naming the field."""
    with pytest.raises(ValueError, match=field.replace(".", r"\.") + ": invalid"):
        pendula.orbits(SIMPLE, action="continue", start="mode", parameter="orbits.energy",
                       **{"range": [-9.8, 0.0], **kw})


def test_newton_that_does_not_converge_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"^orbits: Newton did not converge"):
        pendula.orbits(SIMPLE, theta=[2.5], period=1.0, max_iterations=2)


def test_driven_preset_is_the_driven_chain():
    """Chain.preset takes the spec's damping and drive tables: the simple preset so driven
    has the same orbit as the one-link chain built link by link."""
    preset = pendula.Chain.preset("simple", length=1.0, mass=1.0, gravity=1.0,
                                  damping={"absolute": 0.5},
                                  drive={"torque": {"amplitude": 1.05, "frequency": 2.0 / 3.0}})
    kw = dict(theta=[0.0], start="settle", transient_periods=50)
    a = pendula.orbits(preset, **kw)["orbit"].to_dataset()
    b = pendula.orbits(BAKER_GOLLUB, **kw)["orbit"].to_dataset()
    assert a.identical(b)
    assert a.attrs["stability"] == "stable" and a.attrs["period"] == pytest.approx(3 * math.pi)


LONG_RUNS = {
    # About 40 000 branch points if it ran to the end: far longer than the 5 s bound below.
    "continue": lambda: pendula.orbits(
        pendula.Chain.preset("double"), action="continue", start="mode",
        parameter="orbits.energy", range=[-30.0, 12.0], points=100000, step=1e-4, max_step=1e-4),
    # 20 000 parameter values × 300 drive periods: tens of seconds on two cores.
    "diagram": lambda: pendula.orbits(
        BAKER_GOLLUB, action="diagram", theta=[0.0], parameter=AMPLITUDE, range=[0.9, 1.5],
        points=20000),
}


@pytest.mark.parametrize("action", sorted(LONG_RUNS))
def test_ctrl_c_interrupts_a_long_run(action):
    """SIGINT from outside (as a terminal's Ctrl-C) during a long branch or diagram:
    KeyboardInterrupt within a fraction of the run's time, and the next call works."""
    # Signalled once the run is 0.5 s of CPU in; CPU time bounds the stop (a busy machine
    # stretches the wall clock, not the work done before the stop).
    took = interrupted_once_under_way(LONG_RUNS[action])
    assert took < 5.0, took
    assert pendula.orbits(SIMPLE, start="mode")["orbit"].attrs["stability"] == "elliptic"


@pytest.mark.parametrize("amplitude, k", [(1.05, 1), (1.07, 2)])
def test_diagram_samples_are_the_stable_orbits_points(amplitude, k):
    """Where the period-k orbit is stable (k = 1 at torque 1.05, k = 2 at 1.07), every diagram
    sample (RK4, 1000 steps per drive period, after 300 periods) is one of the orbit's k points
    x(j·T_drive) as the shooting finds them (DOP853 at 1e-12) to 1e-8 (3.5e-10 measured)."""
    model = pendula.Chain.preset("simple", gravity=1.0, damping={"absolute": 0.5},
                                 drive={"torque": {"amplitude": amplitude, "frequency": 2.0 / 3.0}})
    orbit = pendula.orbits(model, theta=[0.0], start="settle", drive_periods=k,
                           shape_samples=64)["orbit"]
    assert orbit.attrs["stability"] == "stable"
    # The shape holds 65 states over one period k·T_drive: x(j·T_drive) is state 64·j/k.
    points = orbit["shape"].values[[64 * j // k for j in range(k)]]
    d = pendula.orbits(model, action="diagram", theta=[0.0], parameter=AMPLITUDE,
                       range=[amplitude, amplitude + 0.01], points=2, transient_periods=300,
                       sampled_periods=6, steps_per_period=1000)["diagram"]
    samples = d["samples"].values[0, 0]

    def distance(a, b):
        dtheta = (a[0] - b[0] + math.pi) % (2 * math.pi) - math.pi
        return max(abs(dtheta), abs(a[1] - b[1]))

    gaps = [min(distance(s, p) for p in points) for s in samples]
    assert max(gaps) < 1e-8, gaps
    # Each of the k points is visited.
    assert all(min(distance(s, p) for s in samples) < 1e-8 for p in points)


def test_numpy_values_are_keywords_too():
    """NumPy arrays, tuples and NumPy scalars are taken as the lists and numbers they hold."""
    kw = dict(action="continue", start="mode", parameter="orbits.energy", step=0.05)
    a = pendula.orbits(SIMPLE, range=[-9.81, -9.0], points=5, amplitude=0.1, **kw)
    b = pendula.orbits(SIMPLE, range=np.array([-9.81, -9.0]), points=np.int64(5),
                       amplitude=np.float64(0.1), **kw)
    c = pendula.orbits(SIMPLE, range=(-9.81, -9), points=5, amplitude=0.1, **kw)
    assert a.identical(b) and a.identical(c)
    assert len(a["branch_1"]["point"]) == 5


@needs_cli
def test_a_final_state_maps_attractor_seeds_the_orbit(tmp_path):
    # The CLI's final-state map of the Baker–Gollub pendulum at A = 1.07 (period 2), then the
    # search seeded from its period-2 attractor: period 2·T_drive, stable.
    spec = tmp_path / "map.toml"
    spec.write_text(
        'kind = "map"\n[model]\npreset = "simple"\ngravity = 1.0\nlength = 1.0\nmass = 1.0\n'
        '[model.damping]\nabsolute = 0.5\n[model.drive.torque]\namplitude = 1.07\n'
        f'frequency = {2.0 / 3.0!r}\n[integrator]\nmethod = "rk4"\ndt = {3 * math.pi / 200!r}\n'
        '[map]\nkind = "final-state"\nresolution = 24\nt_end = 600.0\nmax_period = 4\n')
    subprocess.run([str(CLI), "run", str(spec), "-o", str(tmp_path / "map.h5")], check=True,
                   capture_output=True)
    chain = pendula.Chain([pendula.Link(length=1.0, mass=1.0)], gravity=1.0,
                          damping={"absolute": 0.5},
                          drive={"torque": {"amplitude": 1.07, "frequency": 2.0 / 3.0}})
    t = pendula.orbits(chain, start="map", map_file=tmp_path / "map.h5", attractor="period_2")
    orbit = t["orbit"]
    assert abs(float(orbit.attrs["period"]) - 6 * math.pi) < 1e-8
    assert orbit.attrs["stability"] == "stable"
    assert t.attrs["seed_attractor"] == "period_2" and t.attrs["seed_map_settle_time"] > 0
    with pytest.raises(ValueError, match="orbits.attractor"):
        pendula.orbits(chain, start="map", map_file=tmp_path / "map.h5", attractor="period_0")
