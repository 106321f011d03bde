"""pendula: chaos in pendulum chains, from Python.

Every call goes through the same spec validation, analysis code and HDF5 store writers as the
``pendula`` command line, so results match the CLI's files bit for bit and a bad value raises
``ValueError`` with the CLI's one-line message naming the spec field. Long runs release the GIL;
Ctrl-C raises ``KeyboardInterrupt`` and discards the partial result.
"""

import json
import os
import tempfile
import tomllib

import xarray

from . import _core

__all__ = ["Link", "Chain", "load_spec", "simulate", "lyapunov"]


class Link:
    """One link of a planar chain: ``shape`` is ``"point"`` (mass at the lower joint) or ``"rod"``."""

    def __init__(self, length=1.0, mass=1.0, shape="point", com=None, inertia=None):
        self.table = {"length": length, "mass": mass, "shape": shape}
        if com is not None:
            self.table["com"] = com
        if inertia is not None:
            self.table["inertia"] = inertia

    def __repr__(self):
        return f"Link({', '.join(f'{k}={v!r}' for k, v in self.table.items())})"


class Chain:
    """A planar chain: the spec's ``[model]`` table, validated by the library on construction.

    ``damping`` and ``drive`` are dicts with the spec's keys (``{"joint": 0.1}``,
    ``{"torque": {...}}``).
    """

    def __init__(self, links=None, gravity=9.81, damping=None, drive=None, _table=None):
        if _table is None:
            _table = {"link": [l.table if isinstance(l, Link) else dict(l) for l in links or []]}
            _table["gravity"] = gravity
            if damping is not None:
                _table["damping"] = damping
            if drive is not None:
                _table["drive"] = drive
        self.table = _table
        # The library validates the model (the error names the field, as the CLI does).
        self.name, self.links = _core.check(
            json.dumps(_spec(self, "simulate", [0.0] * _links(_table), None, {"t_end": 1.0}))
        )

    @classmethod
    def preset(cls, name, links=None, length=None, mass=None, gravity=9.81):
        """A preset chain (``simple``, ``double``, ``triple``, ``chain``, ``rods``) as in specs."""
        t = {"preset": name, "gravity": gravity}
        for k, v in (("links", links), ("length", length), ("mass", mass)):
            if v is not None:
                t[k] = v
        return cls(_table=t)

    def __repr__(self):
        return f"Chain({self.name!r}, links={self.links})"


def _links(table):
    if "link" in table:
        return max(len(table["link"]), 1)
    return {"simple": 1, "double": 2, "triple": 3}.get(table.get("preset"), table.get("links", 1))


def load_spec(path):
    """The model and initial state of a spec file: ``(Chain, theta, omega)``."""
    with open(path, "rb") as f:
        spec = tomllib.load(f)
    if "model" not in spec:
        raise ValueError("model: missing")
    init = spec.get("initial", {})
    return Chain(_table=spec["model"]), init.get("theta"), init.get("omega")


def _spec(model, kind, theta, omega, table, integrator=None):
    spec = {"kind": kind, "title": f"{kind} (python)", "model": model.table}
    spec["initial"] = {"theta": [float(x) for x in theta]}
    if omega is not None:
        spec["initial"]["omega"] = [float(x) for x in omega]
    if integrator:
        spec["integrator"] = integrator
    spec[kind] = {k: v for k, v in table.items() if v is not None}
    return spec


def _run(spec):
    fd, path = tempfile.mkstemp(suffix=".h5", prefix="pendula-")
    os.close(fd)
    try:
        group = _core.run(json.dumps(spec), path)
        with xarray.open_dataset(path, group=group, engine="h5netcdf") as ds:
            return ds.load()
    finally:
        os.unlink(path)


def simulate(model, theta, omega=None, t_end=None, dt_out=None, method=None, rtol=None, atol=None, dt=None):
    """A sampled trajectory as the CLI's ``trajectory`` group (variables, dims, units, attrs).

    Keywords are the spec's (``[simulate]`` and ``[integrator]``). Releases the GIL; Ctrl-C
    raises KeyboardInterrupt and discards the partial trajectory.
    """
    integ = {k: v for k, v in (("method", method), ("rtol", rtol), ("atol", atol), ("dt", dt)) if v is not None}
    return _run(_spec(model, "simulate", theta, omega, {"t_end": t_end, "dt_out": dt_out}, integ))


def lyapunov(model, theta, omega=None, estimator=None, exponents=None, tau=None, transient=None,
             t_end=None, tolerance=None, blocks=None, d0=None, method=None, rtol=None, atol=None,
             dt=None):
    """Lyapunov exponents, standard errors and convergence history as the CLI's ``lyapunov`` group.

    Keywords are the spec's (``[lyapunov]`` and ``[integrator]``); estimators ``spectrum``,
    ``tangent`` and ``two-trajectory``. Releases the GIL; Ctrl-C raises KeyboardInterrupt and
    discards the partial result.
    """
    table = {"estimator": estimator, "exponents": exponents, "tau": tau, "transient": transient,
             "t_end": t_end, "tolerance": tolerance, "blocks": blocks, "d0": d0}
    integ = {k: v for k, v in (("method", method), ("rtol", rtol), ("atol", atol), ("dt", dt)) if v is not None}
    return _run(_spec(model, "lyapunov", theta, omega, table, integ))
