"""pendula.orbits(action="curve"): the first Mathieu tongue's period-doubling edges of the
hanging pendulum on a vibrated pivot, as a DataTree and as the CLI's file read by h5py and
xarray."""

import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import pendula

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "pendula"
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula (cargo build --release)")

# l = 1 m, g = 9.81, pivot s(t) = a cos Ωt at Ω = 5.5 rad/s, a = 0.08 m; undamped.
VIBRATED = pendula.Chain([pendula.Link(length=1.0, mass=1.0)], gravity=9.81,
                         drive={"pivot": {"y_amplitude": 0.08, "frequency": 5.5}})
CURVE = dict(action="curve", parameter="model.drive.pivot.frequency", range=[5.0, 8.0],
             parameter2="model.drive.pivot.y_amplitude", range2=[0.04, 0.15],
             bifurcation="period-doubling", step=0.02, max_step=0.1, chart_grid=6,
             newton_tolerance=1e-11, rtol=1e-13, atol=1e-13)


def mathieu_a1_b1(q, terms=40):
    """Mathieu's a₁ and b₁ at q from the truncated Hill matrices of odd harmonics (the cos and
    sin series, tests/common/mathieu.rs)."""
    out = []
    for sign in (+1, -1):
        h = np.diag([(2.0 * r + 1) ** 2 for r in range(terms)])
        h += np.diag([q] * (terms - 1), 1) + np.diag([q] * (terms - 1), -1)
        h[0, 0] += sign * q
        out.append(np.linalg.eigvalsh(h)[0])
    return out


def test_curve_keywords_give_the_tongue_edges():
    """Two period-doubling curves, each point on Ω = √(4g / a₁(q)) or √(4g / b₁(q)), q = 2a,
    to 1e-8 relative."""
    t = pendula.orbits(VIBRATED, theta=[0.0], **CURVE)
    assert t.attrs["parameter2"] == "model.drive.pivot.y_amplitude"
    for k in (1, 2):
        c = t[f"curve_{k}"]
        assert c.attrs["kind"] == "period-doubling" and c.attrs["ended"] == "range"
        w, a = c["parameter1"].values, c["parameter2"].values
        assert a[0] == 0.04 and a[-1] == 0.15
        edges = np.array([[math.sqrt(4 * 9.81 / m) for m in mathieu_a1_b1(2 * x)] for x in a])
        which = np.argmin(np.abs(edges[0] - w[0]))
        rel = np.abs(w / edges[:, which] - 1)
        assert rel.max() < 1e-8, rel.max()
        assert c["multiplier_real"].dims == ("point", "multiplier")
    chart = t["chart"]["stability"]
    assert chart.dims == ("parameter2", "parameter1") and chart.shape == (6, 6)


@needs_cli
def test_the_cli_file_reads_with_h5py_and_xarray(tmp_path):
    """The file `pendula orbits curve` writes: h5py sees the curve groups with units, xarray
    the same values as the Python call."""
    import h5py
    import xarray
    spec = tmp_path / "c.toml"
    spec.write_text(
        'kind = "orbits"\n[model]\npreset = "simple"\ngravity = 9.81\nlength = 1.0\nmass = 1.0\n'
        '[model.drive.pivot]\ny_amplitude = 0.08\nfrequency = 5.5\n[initial]\ntheta = [0.0]\n'
        '[integrator]\nrtol = 1e-13\natol = 1e-13\n[orbits]\naction = "curve"\n'
        'parameter = "model.drive.pivot.frequency"\nrange = [5.0, 8.0]\n'
        'parameter2 = "model.drive.pivot.y_amplitude"\nrange2 = [0.04, 0.15]\n'
        'bifurcation = "period-doubling"\nstep = 0.02\nmax_step = 0.1\nchart_grid = 6\n'
        'newton_tolerance = 1e-11\n')
    out = tmp_path / "c.h5"
    done = subprocess.run([str(CLI), "run", str(spec), "-o", str(out)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    with h5py.File(out, "r") as f:
        g = f["orbits/curve_1"]
        assert g["parameter2"].attrs["units"] in ("m", b"m")
        assert g["codim2/arclength"].shape == (0,)
        a = g["parameter2"][()]
    with xarray.open_datatree(out, group="orbits", engine="h5netcdf") as ref:
        ref.load()
    np.testing.assert_array_equal(ref["curve_1"]["parameter2"].values, a)
    ours = pendula.orbits(VIBRATED, theta=[0.0], **CURVE)
    np.testing.assert_array_equal(ours["curve_1"]["parameter1"].values,
                                  ref["curve_1"]["parameter1"].values)
