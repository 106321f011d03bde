"""pendula.manifolds: the undamped driven pendulum's saddle near the top, its branches on the
separatrix's neighbourhood, the CLI's numbers, and a refusal naming its keyword."""

import math

import pytest

import pendula

# θ'' + sin θ = γ cos 2t (l = m = g = 1): the saddle near (π, 0), a tangle of any γ > 0.
TANGLE = pendula.Chain([pendula.Link(length=1.0, mass=1.0)], gravity=1.0,
                       drive={"torque": {"amplitude": 0.1, "frequency": 2.0}})


def test_the_undamped_tangle_has_equal_lobes_and_the_melnikov_form():
    t = pendula.manifolds(TANGLE, theta=[math.pi], omega=[0.0], resolution=0.02,
                          max_angle=0.1, arclength=12.0)
    a = t.attrs
    assert abs(abs(a["saddle_theta"]) - math.pi) < 0.05
    # Area preservation: the turnstile's lobes are equal and opposite (at arclength 7.5 the
    # branch crosses too few times past the middle for two lobes: the file says so instead).
    lobes = a["lobe_areas"]
    assert abs(lobes[0] + lobes[1]) < 1e-8
    # The Melnikov form of this chain is the chain itself: δ = 0, γ = 0.1, ω = 2.
    assert a["melnikov_gamma"] == pytest.approx(0.1) and a["melnikov_omega"] == pytest.approx(2.0)
    u = t["unstable_plus"]
    assert u.ds.sizes["point"] > 10
    gaps = ((u.ds.theta.diff("point") ** 2 + u.ds.omega.diff("point") ** 2) ** 0.5).max()
    assert float(gaps) <= 0.02


def test_a_bad_resolution_names_its_keyword():
    with pytest.raises(ValueError, match="manifolds.resolution"):
        pendula.manifolds(TANGLE, theta=[math.pi], resolution=-1.0)


def test_the_double_pendulums_poincare_map_keeps_the_shell_and_its_area():
    # The hyperbolic orbit released at θ = (2, 2) (orbits find --start return): its section
    # point on θ₁ = 0 (upward) in (θ₂, p₂), with multipliers whose product is 1 (area).
    t = pendula.manifolds(pendula.Chain.preset("double"), theta=[2.0, 2.0], start="return",
                          resolution=0.02, arclength=2.0)
    a = t.attrs
    assert a["map_kind"] == "poincare" and a["section_returns"] == 1
    assert a["orbit_period"] == pytest.approx(2.9949264, abs=1e-6)
    assert a["lambda_unstable"] * a["lambda_stable"] == pytest.approx(1.0, abs=1e-5)
    assert a["energy_error"] < 1e-10
    u = t["unstable_plus"]
    assert "momentum" in u.ds and u.ds.sizes["point"] > 10


def test_a_damped_double_pendulum_is_refused_naming_the_model():
    damped = pendula.Chain.preset("double", damping={"joint": 0.1})
    with pytest.raises(ValueError, match="damped or driven"):
        pendula.manifolds(damped, theta=[2.0, 2.0], start="return")


def test_growth_to_an_accuracy_records_its_measured_interpolation_error():
    # accuracy= inserts points where the chord departs from the manifold by more than it; each
    # branch records the departure measured at the middles of sampled pieces, within it.
    t = pendula.manifolds(TANGLE, theta=[math.pi], omega=[0.0], resolution=0.05,
                          arclength=6.0, accuracy=1e-5)
    assert t.attrs["accuracy"] == pytest.approx(1e-5)
    for name in ("unstable_plus", "unstable_minus", "stable_plus", "stable_minus"):
        b = t[name]
        assert b.attrs["interpolation_sampled"] > 0
        assert 0.0 < b.attrs["interpolation_error"] <= 1e-5
