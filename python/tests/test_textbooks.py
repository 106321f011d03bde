"""The textbook presets from Python (docs/textbooks.md): ``Chain.textbook`` builds the spec's
``preset = "taylor"`` chain from Taylor's own parameters; the chain the library resolved is
his equation's, checked against the mapping written out by hand."""

import math

import pendula


def test_taylors_chain_has_his_coefficients():
    c = pendula.Chain.textbook("taylor", gamma=1.07)
    assert c.links == 1
    p = c.parameters
    link = p["links"][0]
    w0, beta, omega = 3 * math.pi, 0.75 * math.pi, 2 * math.pi
    inertia = link["mass"] * link["length"] ** 2
    # θ̈ + 2β θ̇ + ω₀² sin θ = γ ω₀² cos ωt: each coefficient of m l² θ̈ + c θ̇ + m g l sin θ = A cos Ωt
    # divided by m l².
    assert math.isclose(p["damping"]["absolute"][0] / inertia, 2 * beta, rel_tol=1e-14)
    assert math.isclose(p["gravity"] / link["length"], w0 ** 2, rel_tol=1e-14)
    torque = p["drive"]["torque"]
    assert math.isclose(torque["amplitude"] / inertia, 1.07 * w0 ** 2, rel_tol=1e-14)
    assert math.isclose(torque["frequency"], omega, rel_tol=1e-15)


def test_kapitzas_chain_takes_hertz_and_a_bad_table_is_named():
    c = pendula.Chain.textbook("kapitza", a=0.05, omega="60 Hz")
    pivot = c.parameters["drive"]["pivot"]
    assert math.isclose(pivot["frequency"], 2 * math.pi * 60, rel_tol=1e-15)
    assert pivot["y_amplitude"] == 0.05
    try:
        pendula.Chain.textbook("kapitza", a=0.05)
    except ValueError as e:
        assert str(e).startswith("model.kapitza"), e
    else:
        raise AssertionError("a Kapitza pendulum without its frequency was accepted")
