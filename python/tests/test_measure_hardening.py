"""pendula.measure and pendula.chaotic_fraction against hostile sizes and Ctrl-C (issue 37):
sizes go through the library's memory estimate and budget before anything is copied or
measured (a ValueError naming the keyword, never an aborted interpreter), and Ctrl-C stops
a running measure or chaotic fraction promptly with KeyboardInterrupt."""


import numpy as np
import pytest

import pendula
from counting import interrupted_once_under_way


def bands(n):
    """Three labels in wiggling bands, indexed [y, x]: a boundary everywhere."""
    y, x = np.mgrid[0:n, 0:n]
    v = np.sin(x * 0.37 + np.cos(y * 0.21) * 3.0) * 1.5 + 1.5
    return (v.astype(np.int32) % 3).astype(np.int32)


@pytest.mark.parametrize("keyword, value", [
    ("shifts", 10**12),
    ("shifts", 2**64 - 1),
    ("max_eps", 2**61),
    ("entropy_eps", [2**61]),
    ("entropy_eps", [2, 3, 2]),
    ("entropy_eps", list(range(2, 100_002))),
    ("wada_radius", 2**63),
])
def test_sizes_raise_value_error_naming_the_keyword(keyword, value):
    with pytest.raises(ValueError, match=f"^{keyword}"):
        pendula.measure(bands(128), **{keyword: value})


@pytest.mark.parametrize("samples", [10**12, 2**64 - 1])
def test_samples_raise_value_error_naming_the_keyword(samples):
    with pytest.raises(ValueError, match="^samples"):
        pendula.chaotic_fraction(pendula.Chain.preset("double"), energies=[5], samples=samples)


def test_the_step_is_limited():
    with pytest.raises(ValueError, match="^dt: .*steps"):
        pendula.chaotic_fraction(pendula.Chain.preset("double"), energies=[5], samples=2,
                                 dt=1e-300)


def interrupted_within(call, seconds):
    """Sends SIGINT to this process once `call` is under way and checks that it raised within
    `seconds` of CPU from its start."""
    took = interrupted_once_under_way(call, cpu=1.0)
    assert took < seconds, took


def test_ctrl_c_stops_measure():
    labels = bands(512)
    interrupted_within(lambda: pendula.measure(labels, shifts=200_000), 5.0)


def test_ctrl_c_stops_chaotic_fraction():
    double = pendula.Chain.preset("double")
    interrupted_within(
        lambda: pendula.chaotic_fraction(double, energies=[-15], samples=64, t_end=100_000),
        5.0)
