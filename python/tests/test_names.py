"""Every refusal of the Python package names its keyword, as the spec field it sets."""

import math

import pytest

import pendula


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_keywords_are_named(bad):
    double = pendula.Chain.preset("double")
    shown = {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(bad)]
    with pytest.raises(ValueError, match=r"^lyapunov\.tau: must be a finite number \(got " + shown):
        pendula.lyapunov(double, [2.0, 2.0], tau=bad, t_end=5.0)
    with pytest.raises(ValueError, match=r"^initial\.theta\[2\]: must be a finite number"):
        pendula.simulate(double, [1.0, bad], t_end=1.0)
    with pytest.raises(ValueError, match=r"^simulate\.t_end: must be a finite number"):
        pendula.simulate(double, [1.0, 1.0], t_end=bad)
    with pytest.raises(ValueError, match=r"^model\.link\[2\]\.length: must be a finite number"):
        pendula.Chain([pendula.Link(), pendula.Link(length=bad)])
    with pytest.raises(ValueError, match=r"^map\.window\[3\]: must be a finite number"):
        pendula.map(double, resolution=8, window=[-1.0, 1.0, bad, 1.0], t_end=0.1)
