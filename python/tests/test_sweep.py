"""pendula.sweep: one call runs an analysis over the values of spec fields and returns one
Dataset with the fields as coordinates; every point is the single run of its spec."""

import numpy
import pytest

import pendula


def driven():
    return pendula.Chain.preset(
        "double", damping={"absolute": 0.1}, drive={"torque": {"amplitude": 1.0, "frequency": 2.0}})


def test_lyapunov_sweep_over_drive_amplitudes_matches_single_runs():
    amps = [0.5, 1.2, 2.5]
    ds = pendula.sweep(pendula.lyapunov, driven(), {"model.drive.torque.amplitude": amps},
                       theta=[2.0, 2.0], t_end=40.0)
    assert ds.sizes["sweep"] == 3
    assert list(ds["sweep"].values) == amps
    assert "model_drive_torque_amplitude" in ds.coords
    assert ds["sweep"].attrs["parameter"] == "model.drive.torque.amplitude"
    for k, a in enumerate(amps):
        one = pendula.lyapunov(
            pendula.Chain.preset("double", damping={"absolute": 0.1},
                                 drive={"torque": {"amplitude": a, "frequency": 2.0}}),
            theta=[2.0, 2.0], t_end=40.0)
        # Bit for bit: the point is the single run of its spec.
        assert numpy.array_equal(ds["lambda"].values[k], one["exponents"].values)
        assert ds["lambda_max"].values[k] == one["exponents"].values[0]


def test_range_and_product_make_every_combination():
    ds = pendula.sweep(pendula.simulate, pendula.Chain.preset("double"),
                       {"model.gravity": (1.0, 3.0, 3), "model.length": [1.0, 2.0]},
                       theta=[1.0, 0.0], t_end=1.0)
    assert ds.sizes["sweep"] == 6
    assert list(ds["model_gravity"].values) == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert list(ds["model_length"].values) == [1.0, 2.0] * 3
    assert ds["theta_end"].dims == ("sweep", "link")


def test_a_bad_field_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="model.colour"):
        pendula.sweep(pendula.lyapunov, pendula.Chain.preset("double"),
                      {"model.colour": [1.0, 2.0]}, theta=[1.0, 1.0])


def test_a_count_is_checked_as_the_cli_checks_it():
    # (1, 2, 2.5) used to run int(2.5) = 2 points where the CLI refuses 1:2:2.5: the spec's one
    # rule refuses both, in the same words.
    with pytest.raises(ValueError, match=r"must be a whole number from 2 to 100000 \(got 2\.5\)"):
        pendula.sweep(pendula.simulate, pendula.Chain.preset("double"),
                      {"model.gravity": (1.0, 2.0, 2.5)}, theta=[1.0, 0.0], t_end=1.0)


def test_a_sweep_over_frequencies_gives_the_fundamentals():
    # It used to raise: the variable `fundamental` and its dimension shared the name.
    ds = pendula.sweep(pendula.frequencies, pendula.Chain.preset("double"),
                       {"model.gravity": [9.0, 10.0]}, theta=[0.3, 0.2], t_end=100.0)
    assert ds["fundamental_frequency"].dims == ("sweep", "fundamental")
    one = pendula.frequencies(pendula.Chain.preset("double", gravity=10.0), theta=[0.3, 0.2],
                              t_end=100.0)
    assert numpy.array_equal(ds["fundamental_frequency"].values[1],
                             one["fundamental_frequency"].values)


def test_a_sweep_over_poincare_ends():
    # It used to deadlock at 0 % CPU: the point's observer loop held a thread of the pool.
    ds = pendula.sweep(pendula.poincare, pendula.Chain.preset("double"),
                       {"model.gravity": [9.0, 9.5, 10.0]}, energy=[-20.0], grid=[2, 2],
                       crossings=20)
    assert ds.sizes["sweep"] == 3
