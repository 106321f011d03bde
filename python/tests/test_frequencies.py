"""pendula.frequencies and the frequency map kind: the simple pendulum's frequency against the
elliptic integral (K by the arithmetic-geometric mean), the double pendulum's two fundamentals
against the small-angle normal modes, and a small diffusion map's dims, coordinates and
values."""

import math

import numpy as np

import pendula

G = 9.81
SIMPLE = pendula.Chain.preset("simple")  # l = 1 m, m = 1 kg
DOUBLE = pendula.Chain.preset("double")


def elliptic_k(k):
    """K(k) = π / (2 AGM(1, √(1 − k²)))."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    for _ in range(40):
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def test_simple_pendulum_frequency_is_the_elliptic_integrals():
    theta0 = 1.0
    nu = math.pi * math.sqrt(G) / (2 * elliptic_k(math.sin(theta0 / 2)))
    ds = pendula.frequencies(SIMPLE, theta=[theta0], t_end=400.0, dt_out=0.05, rtol=1e-12,
                             atol=1e-12)
    got = float(ds["fundamental_frequency"].values[0])
    assert abs(got - nu) < 1e-9 * nu, (got, nu)
    # Both halves see the same frequency: a torus, far below the chaotic sea's −4.
    assert ds.attrs["diffusion_index"] < -8
    halves = ds["half_fundamental_frequency"].values
    assert halves.shape == (2, 1) and np.allclose(halves[:, 0], nu, rtol=1e-9, atol=0)
    # The leading line of the link is the fundamental itself.
    lines = ds["frequency"].values[0]
    amps = ds["amplitude"].values[0]
    assert abs(lines[np.nanargmax(amps)] - nu) < 1e-9 * nu
    assert ds.attrs["window_order"] == 1 and ds.attrs["terms"] == 10


def test_double_pendulum_fundamentals_are_the_normal_modes():
    eps = 0.02
    linear = sorted(math.sqrt(G * (2 + s * math.sqrt(2))) for s in (-1, 1))
    slow = 2 * math.pi / linear[0]
    ds = pendula.frequencies(DOUBLE, theta=[eps, 0.0], t_end=500 * slow, dt_out=0.05,
                             window_order=2, rtol=1e-12, atol=1e-12)
    nu = np.sort(ds["fundamental_frequency"].values)
    assert nu.shape == (2,)
    # The nonlinear shift is of second order in the amplitude.
    for got, want in zip(nu, linear):
        assert abs(got - want) < eps * eps * want, (got, want)
    assert ds.attrs["window_order"] == 2


def test_frequency_map_dims_coords_and_values():
    # Small amplitudes about the hanging state, 1 024 samples 0.1 s apart (t_end = 102.4 s).
    window = [-0.3, 0.3, -0.2, 0.2]
    ds = pendula.map(DOUBLE, kind="frequency", resolution=[6, 4], window=window, samples=1024,
                     window_order=2)
    assert ds.attrs["kind"] == "frequency"
    assert ds["diffusion_index"].dims == ("theta2", "theta1")
    assert ds.sizes["theta1"] == 6 and ds.sizes["theta2"] == 4
    # Pixel centres of the window.
    x = window[0] + (np.arange(6) + 0.5) * (window[1] - window[0]) / 6
    y = window[2] + (np.arange(4) + 0.5) * (window[3] - window[2]) / 4
    assert np.allclose(ds["theta1"].values, x, rtol=0, atol=1e-12)
    assert np.allclose(ds["theta2"].values, y, rtol=0, atol=1e-12)
    assert ds.attrs["samples"] == 1024 and ds.attrs["window_order"] == 2
    # Both fundamentals (ascending) near the normal modes, with a nonlinear shift of a few %,
    # the same in both halves of the run: tori.
    first = ds["omega_first"].values
    second = ds["omega_second"].values
    assert first.shape == (4, 6, 2)
    linear = np.array([math.sqrt(G * (2 - math.sqrt(2))), math.sqrt(G * (2 + math.sqrt(2)))])
    assert np.all(np.abs(first / linear - 1) < 0.06), first
    assert np.allclose(first, second, rtol=1e-5, atol=0)
    idx = ds["diffusion_index"].values
    assert np.all(idx < -6), idx
    assert np.all(idx[:, 2:4] < -8), idx
    # The model's point symmetry (θ1, θ2) → (−θ1, −θ2) holds pixel for pixel (the index, a
    # log of differences near round-off, only to its leading digits).
    assert np.allclose(first, first[::-1, ::-1], rtol=1e-9, atol=0)
    assert np.allclose(idx, idx[::-1, ::-1], rtol=0, atol=1e-3)
