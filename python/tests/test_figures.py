"""Figures from Python: every analysis function's ``plot=`` draws the figure the CLI's ``--plot``
draws for the same run, byte for byte; a bad path or a run that draws no figure is refused before
the run, naming ``plot``; and the package's namespace holds its API only."""

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
