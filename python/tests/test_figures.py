"""Figures from Python: every analysis function's ``plot=`` draws the figure the CLI's ``--plot``
draws for the same run, byte for byte; a bad path or a run that draws no figure is refused before
the run, naming ``plot``; and the package's namespace holds its API only."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import pendula

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "pendula"
if os.environ.get("PENDULA_REQUIRE_PYTHON") and not CLI.exists():
    raise RuntimeError(f"{CLI} missing: run cargo build --release first")
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="needs target/release/pendula (cargo build --release)")

DOUBLE = pendula.Chain.preset("double")
PNG = b"\x89PNG\r\n\x1a\n"

# Each case: the spec `pendula run` reads, and the same run from Python. The Python call sets no
# title, so both carry the kind's default title (which the figure shows).
CASES = {
    "simulate": (
        '[model]\npreset = "double"\n[initial]\ntheta = [2.0, 1.5]\n[simulate]\nt_end = 3.0\n',
        lambda plot: pendula.simulate(DOUBLE, [2.0, 1.5], t_end=3.0, plot=plot),
    ),
    "lyapunov": (
        '[model]\npreset = "double"\n[initial]\ntheta = [2.0, 2.0]\n[integrator]\nmethod = "rk4"\n'
        'dt = 0.002\n[lyapunov]\nestimator = "spectrum"\ntransient = 1.0\nt_end = 11.0\n',
        lambda plot: pendula.lyapunov(DOUBLE, [2.0, 2.0], method="rk4", dt=0.002,
                                      estimator="spectrum", transient=1.0, t_end=11.0, plot=plot),
    ),
    "modes": (
        '[model]\npreset = "triple"\n[modes]\nequilibria = "all"\n',
        lambda plot: pendula.modes(pendula.Chain.preset("triple"), equilibria="all", plot=plot),
    ),
    "frequencies": (
        '[model]\npreset = "double"\n[initial]\ntheta = [0.3, 0.2]\n[frequencies]\nt_end = 200.0\n',
        lambda plot: pendula.frequencies(DOUBLE, [0.3, 0.2], t_end=200.0, plot=plot),
    ),
    "map": (
        '[model]\npreset = "double"\n[integrator]\ndt = 0.01\n[map]\nkind = "flip-time"\n'
        'resolution = 48\nt_end = 10.0\n',
        lambda plot: pendula.map(DOUBLE, kind="flip-time", resolution=48, t_end=10.0, dt=0.01,
                                 plot=plot),
    ),
    "orbits": (
        '[model]\npreset = "double"\n[orbits]\nstart = "mode"\nmode = 1\namplitude = 0.5\n',
        lambda plot: pendula.orbits(DOUBLE, start="mode", mode=1, amplitude=0.5, plot=plot),
    ),
    "poincare": (
        '[model]\npreset = "double"\n[initial]\ntheta = [0.5, 0.5]\n[poincare]\ncrossings = 60\n',
        lambda plot: pendula.poincare(DOUBLE, [0.5, 0.5], crossings=60, plot=plot),
    ),
}


@needs_cli
@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_python_figure_is_the_clis(tmp_path, kind):
    text, call = CASES[kind]
    spec = tmp_path / "spec.toml"
    spec.write_text(f'kind = "{kind}"\n' + text)
    cli_png = tmp_path / "cli.png"
    done = subprocess.run([str(CLI), "run", str(spec), "--plot", str(cli_png)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # A missing folder is made, as the CLI makes it.
    py_png = tmp_path / "made" / "py.png"
    call(py_png)
    got, want = py_png.read_bytes(), cli_png.read_bytes()
    assert got.startswith(PNG) and len(got) > 5000
    assert got == want, f"{kind}: the Python figure differs from the CLI's"


def test_svg_and_path_like(tmp_path):
    out = tmp_path / "traj.svg"
    ds = pendula.simulate(DOUBLE, [1.0, 0.5], t_end=1.0, plot=out)
    assert ds.sizes["time"] > 10
    assert out.read_text().lstrip().startswith("<svg")


def test_a_sweep_draws_its_figure(tmp_path):
    out = tmp_path / "sweep.png"
    ds = pendula.sweep(pendula.lyapunov, DOUBLE, {"model.gravity": [9.0, 10.0]}, theta=[2.0, 2.0],
                       t_end=6.0, transient=1.0, plot=str(out))
    assert ds.sizes["sweep"] == 2
    assert out.read_bytes().startswith(PNG)


def test_measures_draw_their_figures(tmp_path):
    # Two labels in halves split by a sine curve: a boundary to measure.
    y, x = np.mgrid[0:96, 0:96]
    labels = (y > 48 + 10 * np.sin(x / 7.0)).astype(np.int32)
    out = tmp_path / "measure.png"
    pendula.measure(labels, what="boundary-dimension", plot=out)
    assert out.read_bytes().startswith(PNG)
    out = tmp_path / "fraction.png"
    pendula.chaotic_fraction(DOUBLE, energies=[0.0], samples=8, t_end=20.0, plot=out)
    assert out.read_bytes().startswith(PNG)


def test_bad_figures_are_refused_before_the_run(tmp_path):
    with pytest.raises(ValueError, match=r"^plot: .*must end in \.png or \.svg"):
        pendula.simulate(DOUBLE, [1.0, 0.5], t_end=1.0, plot=tmp_path / "x.jpg")
    with pytest.raises(ValueError, match=r"^plot: .*must end in \.png or \.svg"):
        pendula.measure(np.zeros((8, 8), dtype=np.int32), plot=tmp_path / "m.pdf")
    with pytest.raises(ValueError, match=r"^plot: must be a path ending in \.png or \.svg \(got 1\)"):
        pendula.simulate(DOUBLE, [1.0, 0.5], t_end=1.0, plot=1)
    cart = pendula.CartChain(links=2, cart_mass=1.0)
    with pytest.raises(ValueError, match=r"^plot: the cart-chain figure is drawn for simulate and control"):
        pendula.lyapunov(cart, equilibrium="inverted", tilt=0.05, t_end=3.0, transient=1.0,
                         plot=tmp_path / "sub" / "c.png")
    assert not any(tmp_path.iterdir())


def test_the_cart_chain_draws_simulate_and_control(tmp_path):
    cart = pendula.CartChain(links=2, cart_mass=1.0)
    for name, call in (("sim.png", pendula.simulate), ("lqr.png", pendula.control)):
        out = tmp_path / name
        call(cart, tilt=0.05, t_end=2.0, plot=out, **({"equilibrium": "inverted"} if call is pendula.simulate else {}))
        assert out.read_bytes().startswith(PNG)


def test_the_namespace_is_the_api():
    public = {n for n in dir(pendula) if not n.startswith("_")}
    assert public == set(pendula.__all__), public ^ set(pendula.__all__)


@needs_cli
def test_a_result_carries_the_clis_summary_report_and_figure(tmp_path):
    spec = tmp_path / "spec.toml"
    text, call = CASES["lyapunov"]
    spec.write_text('kind = "lyapunov"\n' + text)
    done = subprocess.run([str(CLI), "run", str(spec), "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = json.loads(done.stdout)
    shown = subprocess.run([str(CLI), "run", str(spec)], capture_output=True, text=True).stdout
    out = tmp_path / "x.png"
    ds = call(out)
    about = ds.pendula
    got = about.summary
    # The run's own numbers are the CLI's; the wall time and the paths are this run's.
    for k in ("wall_s", "output", "plot"):
        assert (k in want) == (k in got), k
        want.pop(k, None)
        got.pop(k, None)
    assert got == want
    # The text report is the CLI's but for its wall-time line.
    strip = lambda t: [l for l in t.splitlines() if "wall" not in l]
    assert strip(about.report) == strip(shown) and about.report.strip()
    assert about.figure._repr_png_() == out.read_bytes() and about.figure._repr_svg_() is None
    page = about._repr_html_()
    assert page.startswith("<img src=\"data:image/png;base64,") and "<table>" in page and "<pre>" in page
    # A result derived from it is another object, which holds none of it.
    assert ds.isel(exponent=[0]).pendula.summary is None


def test_without_plot_a_result_has_no_figure():
    ds = pendula.simulate(DOUBLE, [1.0, 0.5], t_end=1.0)
    assert ds.pendula.figure is None and ds.pendula.summary["samples"] == ds.sizes["time"]


def test_a_chain_shows_its_resolved_parameters():
    rods = pendula.Chain.preset("rods", links=3, length=0.6, mass=2.0)
    p = rods.parameters
    assert len(p["links"]) == 3 and p["gravity"] == 9.81
    for l in p["links"]:
        # A uniform rod: centre of mass at the middle, inertia m l²/12 about it.
        assert l["com"] == pytest.approx(0.3, rel=1e-15)
        assert l["inertia"] == pytest.approx(2.0 * 0.6**2 / 12, rel=1e-14)
    page = rods._repr_html_()
    assert "<svg" in page and page.count("<circle") == 3 and "0.06" in page
    point = pendula.Chain.preset("double")._repr_html_()
    assert point.count("<circle") == 2
    driven = pendula.Chain.preset("simple", damping={"joint": 0.1},
                                  drive={"torque": {"amplitude": 1.0, "frequency": 0.66}})
    assert "&quot;amplitude&quot;: 1.0" in driven._repr_html_()
    assert "spherical links" in pendula.CartChain(links=2, cart_mass=1.0)._repr_html_()
