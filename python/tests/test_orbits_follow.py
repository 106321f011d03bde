"""pendula.orbits(follow=…): the new branch born at the Kapitza double pendulum's lower edge (a
symmetry-breaking pitchfork of the upright orbit) appears as its own branch, its mirror half is
noted, and a bad follow word is refused naming the keyword."""

import math

import numpy as np
import pytest

import pendula

DOUBLE = pendula.Chain.preset("double", length=1.0, mass=1.0, gravity=9.81,
                              drive={"pivot": {"y_amplitude": 0.065, "frequency": 200.0}})
AMPLITUDE = "model.drive.pivot.y_amplitude"


def test_branch_point_branch_is_followed():
    """Continued down from a = 0.065 m, the upright orbit meets the branch point at
    a* = 0.0289386 m; `follow` switches there: the new branch starts at a*, its orbits tilt
    (θ₁ ≠ π) on the window's side a > a*, and they are unstable (hyperbolic)."""
    t = pendula.orbits(DOUBLE, action="continue", theta=[math.pi, math.pi], parameter=AMPLITUDE,
                       range=[0.02, 0.07], direction="down", points=200, step=1e-3,
                       max_step=0.005, newton_tolerance=1e-11, locate_tolerance=1e-12,
                       rtol=1e-13, atol=1e-13, follow=["branch-point"])
    assert t["branch_1"].attrs["label"] == "period-1"
    b = t["branch_2"]
    assert b.attrs["label"] == "branch-point-1"
    a = b["parameter"].values
    a_star = a[0]
    assert a_star == pytest.approx(0.0289386, rel=1e-5)
    assert np.all(a[1:] > a_star)
    tilt = np.abs(np.angle(np.exp(1j * (b["initial_state"].values[1:, 0] - math.pi))))
    assert tilt.min() > 1e-4
    decoded = b.to_dataset().pendula.decoded()["stability"].values
    assert set(decoded[1:]) == {"hyperbolic"}
    assert "mirror image" in t.attrs["notes"]


def test_bad_follow_word_is_named():
    with pytest.raises(ValueError, match=r"^orbits\.follow: unknown bifurcation `fold`"):
        pendula.orbits(DOUBLE, action="continue", theta=[math.pi, math.pi], parameter=AMPLITUDE,
                       range=[0.02, 0.07], follow="fold")
