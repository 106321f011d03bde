"""pendula: chaos in pendulum chains, from Python.

Every call goes through the same spec validation, analysis code and HDF5 store writers as the
``pendula`` command line (the writers fill an in-memory image of the file, whose vectors NumPy
takes over without a copy), so results match the CLI's files bit for bit and a bad value raises
``ValueError`` with the CLI's one-line message naming the spec field (a run that fails raises
``RuntimeError``). Long runs release the GIL and compute on rayon's threads; Ctrl-C raises
``KeyboardInterrupt`` and discards the partial result (nothing is returned). Every analysis
function takes ``plot=`` (a ``.png`` or ``.svg`` path): the figure the CLI's ``--plot`` draws
for the same run, drawn by the same code.
"""

# The modules the package uses, under private names: `dir(pendula)` lists its API only.
import base64 as _base64
import contextvars as _contextvars
import html as _html
import json as _json
import math as _math
import numbers as _numbers
import os as _os

try:
    import tomllib as _tomllib
except ImportError:  # Python < 3.11
    _tomllib = None

import numpy as _numpy
import xarray as _xarray

from . import _core

__all__ = ["Link", "Chain", "CartChain", "Figure", "load_spec", "simulate", "lyapunov", "modes",
           "poincare", "map", "measure", "chaotic_fraction", "orbits", "frequencies", "control",
           "manifolds", "sweep"]


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
        self.name, self.links = _core.check(_json.dumps(self._checked()))

    def _checked(self):
        """The least spec that holds the chain: what the library validates it in."""
        return _spec(self, "simulate", {"theta": [0.0] * _links(self.table)}, {"t_end": 1.0})

    @classmethod
    def preset(cls, name, links=None, length=None, mass=None, gravity=9.81, damping=None,
               drive=None):
        """A preset chain (``simple``, ``double``, ``triple``, ``chain``, ``rods``) as in specs;
        ``damping`` and ``drive`` as for ``Chain``."""
        t = {"preset": name, "gravity": gravity}
        for k, v in (("links", links), ("length", length), ("mass", mass), ("damping", damping),
                     ("drive", drive)):
            if v is not None:
                t[k] = v
        return cls(_table=t)

    @classmethod
    def textbook(cls, name, **parameters):
        """A textbook pendulum from the textbook's own parameters (docs/textbooks.md):
        ``Chain.textbook("taylor", gamma=1.07)`` (also ``beta``, ``omega0``, ``omega``),
        ``Chain.textbook("baker-gollub", g=1.07)`` (``q``, ``omega_d``),
        ``Chain.textbook("kapitza", a=0.05, omega="60 Hz")`` (``l``, ``g``): the spec's
        ``preset = name`` with its ``[model.<name>]`` table. A run varies them by their spec
        names (``parameter="model.taylor.gamma"``)."""
        return cls(_table={"preset": name, name: dict(parameters)})

    def __repr__(self):
        return f"Chain({self.name!r}, links={self.links})"

    @property
    def parameters(self):
        """The chain as the library resolved it (a dict): ``links``, each with its ``length`` (m),
        ``mass`` (kg), ``com`` (its centre of mass from the upper joint, m) and ``inertia``
        (about the centre of mass, kg m²); ``gravity`` (m/s²); ``damping`` and ``drive`` as the
        model holds them."""
        return _json.loads(_core.describe(_json.dumps(self._checked())))

    def _repr_html_(self):
        p = self.parameters
        head = "<tr><th>link</th><th>length (m)</th><th>mass (kg)</th><th>c.o.m. (m)</th><th>inertia (kg m²)</th></tr>"
        rows = "".join(f"<tr><td>{j}</td><td>{l['length']:.6g}</td><td>{l['mass']:.6g}</td>"
                       f"<td>{l['com']:.6g}</td><td>{l['inertia']:.6g}</td></tr>"
                       for j, l in enumerate(p["links"], 1))
        extra = f"g = {p['gravity']:.6g} m/s²"
        damping = {k: v for k, v in p["damping"].items() if any(v)}
        if damping:
            extra += f"; damping {_html.escape(_json.dumps(damping))} (N m s)"
        drive = {k: v for k, v in p["drive"].items() if v is not None}
        if drive:
            extra += f"; drive {_html.escape(_json.dumps(drive))}"
        return (f"<div style='display:flex;gap:1em;align-items:flex-start'>{_sketch(p['links'])}"
                f"<div><b>Chain {_html.escape(self.name)}</b>, {self.links} links<table>{head}{rows}"
                f"</table><p>{extra}</p></div></div>")


class CartChain:
    """Spherical pendulums in a chain on a cart (the spec's ``[model] kind = "cart-chain"``).

    Keywords are the spec's: ``length``, ``mass`` and ``joint_damping`` one value or one per
    link, ``cart_mass`` (or ``fixed=True`` for an inertial pivot), ``cart_damping``, ``input``
    (``{"kind": "harmonic", "amplitude": [a, b], "omega": w}``). Offers ``simulate``, ``modes``
    and ``lyapunov``; start states are the spec's ``q``/``omega``/``x``/``v`` or
    ``equilibrium``/``tilt`` keywords.
    """

    def __init__(self, links=2, length=None, mass=None, cart_mass=None, fixed=None, gravity=9.81,
                 cart_damping=None, joint_damping=None, input=None):
        t = {"kind": "cart-chain", "links": links, "gravity": gravity}
        for k, v in (("length", length), ("mass", mass), ("cart_mass", cart_mass),
                     ("fixed", fixed), ("cart_damping", cart_damping),
                     ("joint_damping", joint_damping), ("input", input)):
            if v is not None:
                t[k] = v
        self.table = t
        self.name, self.links = _core.check(_json.dumps(_spec(self, "modes", None, {})))

    def __repr__(self):
        return f"CartChain(links={self.links})"

    def _repr_html_(self):
        rows = "".join(f"<tr><th style='text-align:left'>{_html.escape(str(k))}</th>"
                       f"<td style='text-align:left'>{_html.escape(_short(v))}</td></tr>"
                       for k, v in self.table.items() if k != "kind")
        return f"<b>CartChain</b>, {self.links} spherical links on a cart<table>{rows}</table>"


def _sketch(links, size=160):
    """An SVG sketch of a planar chain: the links (a point mass as a dot at its end, a rigid
    link as a bar with its centre of mass marked) in a pose that shows every link, θ_j = 0.3 +
    0.25 (j − 1) rad from the downward vertical, the pivot at the top."""
    total = sum(l["length"] for l in links) or 1.0
    scale = 0.45 * size / total
    x, y, angle = size / 2, 0.1 * size, 0.3
    heaviest = max(l["mass"] for l in links) or 1.0
    shapes = [f"<line x1='{x - 15}' y1='{y}' x2='{x + 15}' y2='{y}' stroke='black' stroke-width='3'/>"]
    for l in links:
        dx, dy = _math.sin(angle) * scale, _math.cos(angle) * scale
        x1, y1 = x + dx * l["length"], y + dy * l["length"]
        point = l["inertia"] == 0.0 and l["com"] == l["length"]
        width = 2 if point else 6
        shapes.append(f"<line x1='{x:.1f}' y1='{y:.1f}' x2='{x1:.1f}' y2='{y1:.1f}' "
                      f"stroke='#555' stroke-width='{width}' stroke-linecap='round'/>")
        r = 3 + 5 * (l["mass"] / heaviest) ** (1 / 3)
        cx, cy = x + dx * l["com"], y + dy * l["com"]
        shapes.append(f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='{r if point else 3:.1f}' "
                      f"fill='{'#c33' if point else 'white'}' stroke='#c33'/>")
        x, y, angle = x1, y1, angle + 0.25
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{size}' height='{size}' "
            f"viewBox='0 0 {size} {size}'>{''.join(shapes)}</svg>")


def _links(table):
    if "link" in table:
        return max(len(table["link"]), 1)
    return {"simple": 1, "double": 2, "triple": 3}.get(table.get("preset"), table.get("links", 1))


def load_spec(path):
    """The model and initial state of a spec file: ``(Chain, theta, omega)``."""
    if _tomllib is None:
        raise RuntimeError("load_spec needs Python >= 3.11 (tomllib)")
    with open(path, "rb") as f:
        spec = _tomllib.load(f)
    # The CLI's parser and validation: a spec `pendula run` refuses raises its message.
    _core.check(_json.dumps(spec))
    init = spec.get("initial", {})
    if spec["model"].get("kind") == "cart-chain":
        m = dict(spec["model"])
        del m["kind"]
        return CartChain(**m), init.get("q"), init.get("omega")
    return Chain(_table=spec["model"]), init.get("theta"), init.get("omega")


def _floats(v):
    return [float(x) for x in v] if v is not None and not isinstance(v, (int, float)) else v


def _initial(theta=None, omega=None, **cart):
    """The spec's ``[initial]`` table from the keywords that were given."""
    t = {}
    if theta is not None:
        t["theta"] = _floats(theta)
    if omega is not None:
        t["omega"] = [(_floats(w) if not isinstance(w, (int, float)) else float(w)) for w in omega]
    t.update({k: v for k, v in cart.items() if v is not None})
    return t or None


def _spec(model, kind, initial, table, integrator=None):
    # No title: the CLI's default title of each kind, so the files' attributes agree too.
    spec = {"kind": kind, "model": model.table}
    if initial:
        spec["initial"] = initial
    if integrator:
        spec["integrator"] = integrator
    spec[kind] = {k: v for k, v in table.items() if v is not None}
    return spec


def _integrator(**kw):
    return {k: v for k, v in kw.items() if v is not None}


# The [sweep] table that pendula.sweep lays over the spec its analysis call builds.
_SWEEP = _contextvars.ContextVar("pendula_sweep", default=None)


def sweep(analysis, model, over, combine=None, directory=None, **kwargs):
    """Runs ``analysis(model, **kwargs)`` (``simulate``, ``lyapunov``, ``modes``, ``poincare``,
    ``map`` or ``frequencies``) once per value of the spec fields in ``over`` and returns the
    ``sweep`` group of ``pendula run`` with a ``[sweep]`` table: one Dataset, each scalar result
    over the dimension ``sweep``, the swept fields as coordinates.

    ``over`` maps a field, named as in a spec (``"model.drive.torque.amplitude"``,
    ``"model.link[2].mass"``), to its values (a list) or to ``(from, to, count)``; several fields
    make every combination (``combine="product"``) or go side by side (``"zip"``). Each point is
    the single run of its spec, number for number; with ``directory`` each point's file is kept
    there and a rerun reuses the finished points."""
    axes = []
    for field, values in over.items():
        if isinstance(values, tuple):
            if len(values) != 3:
                raise ValueError(f"sweep over {field}: give a list of values or (from, to, count)")
            # The count goes as given (an integer, else a float): the spec's one rule checks
            # it as it checks the CLI's, never rounded here (2.5 is refused, not run as 2).
            count = values[2]
            count = int(count) if isinstance(count, _numbers.Integral) else float(count)
            axes.append({"parameter": field, "range": [float(values[0]), float(values[1])],
                         "count": count})
        else:
            axes.append({"parameter": field, "values": _floats(values)})
    table = {"axis": axes}
    if combine is not None:
        table["combine"] = combine
    if directory is not None:
        table["directory"] = _os.fspath(directory)
    token = _SWEEP.set(table)
    try:
        return analysis(model, **kwargs)
    finally:
        _SWEEP.reset(token)


def _run(spec, tree=False, call=None, plot=None):
    """Runs a spec (or ``call``, which returns the image itself and takes the figure's path) and
    gives its result group as the CLI's file would read: a Dataset, or with ``tree`` a DataTree.
    With ``plot`` (a ``.png`` or ``.svg`` path) the run also draws the figure the CLI's
    ``--plot`` draws for it there. The result's ``pendula`` accessor holds the figure and the
    CLI's summary and report of the run."""
    if plot is not None:
        if not isinstance(plot, (str, _os.PathLike)):
            raise ValueError(f"plot: must be a path ending in .png or .svg (got {plot!r})")
        plot = _os.fspath(plot)
    summary = report = None
    swept = _SWEEP.get() if call is None else None
    if call is None:
        text = _json.dumps(spec if swept is None else dict(spec, sweep=swept))
        group, image, summary, report = _core.run(text, plot=plot)
        summary = _json.loads(summary)
    else:
        group, image = "measure", call(plot)
    node = next(g for g in image["groups"] if g["name"] == group)
    result = _tree(node) if tree and swept is None else _dataset(node)
    about = result.pendula
    about.summary, about.report = summary, report
    about.figure = None if plot is None else Figure(plot)
    return result


class Figure:
    """A figure pendula drew (``plot=``): its ``path``. In a notebook it shows itself."""

    def __init__(self, path):
        self.path = _os.fspath(path)

    def _repr_png_(self):
        if self.path.lower().endswith(".png"):
            with open(self.path, "rb") as f:
                return f.read()
        return None

    def _repr_svg_(self):
        if self.path.lower().endswith(".svg"):
            with open(self.path, encoding="utf-8") as f:
                return f.read()
        return None

    def _html(self):
        png = self._repr_png_()
        if png is not None:
            return f'<img src="data:image/png;base64,{_base64.b64encode(png).decode()}" style="max-width:100%">'
        return self._repr_svg_() or ""

    def __repr__(self):
        return f"Figure({self.path!r})"


class _About:
    """``result.pendula``: what pendula says of a result it returned. ``summary`` is the CLI's
    ``--json`` summary of the run (a dict; ``None`` for ``measure`` and ``chaotic_fraction``),
    ``report`` its text report, ``figure`` the ``Figure`` that ``plot=`` drew (else ``None``).
    In a notebook, ``result.pendula`` shows the figure, the summary and the report. A result
    derived from it (``result.sel(...)``, arithmetic) is another object and holds none of them."""

    def __init__(self, obj):
        self._obj = obj
        self.summary = self.report = self.figure = None

    def _repr_html_(self):
        parts = []
        if self.figure is not None:
            parts.append(self.figure._html())
        if self.summary:
            rows = "".join(
                f"<tr><th style='text-align:left'>{_html.escape(str(k))}</th>"
                f"<td style='text-align:left'>{_html.escape(_short(v))}</td></tr>"
                for k, v in self.summary.items())
            parts.append(f"<table>{rows}</table>")
        if self.report:
            parts.append(f"<pre>{_html.escape(self.report)}</pre>")
        return "".join(parts) or "<p>pendula: no figure, summary or report kept for this object</p>"

    def __repr__(self):
        if self.report:
            return self.report
        return _json.dumps(self.summary, indent=1) if self.summary else "pendula: nothing kept"

    def decoded(self):
        """A copy in which every CF flag variable (one with ``flag_values`` and
        ``flag_meanings``: an orbit's ``stability``, a bifurcation's ``kind``, a frequency
        analysis's ``motion``, …) holds its meanings' words instead of the integer codes the
        file stores for CF tools. Works on this object whether it came from a pendula function
        or from ``xarray.open_dataset``/``open_datatree`` of a pendula file."""
        if isinstance(self._obj, _xarray.DataTree):
            return self._obj.map_over_datasets(_decode_flags)
        return _decode_flags(self._obj)


def _decode_flags(ds):
    """``ds`` with each CF flag variable as words (an unknown code reads ``""``)."""
    out = ds.copy()
    for name, var in ds.variables.items():
        if "flag_values" not in var.attrs or "flag_meanings" not in var.attrs:
            continue
        codes = [int(v) for v in _numpy.atleast_1d(var.attrs["flag_values"])]
        words = dict(zip(codes, str(var.attrs["flag_meanings"]).split()))
        values = _numpy.asarray(var.values)
        decoded = _numpy.array([words.get(int(c), "") for c in values.ravel()], dtype=object)
        attrs = {k: v for k, v in var.attrs.items() if k not in ("flag_values", "flag_meanings")}
        out[name] = _xarray.Variable(var.dims, decoded.reshape(values.shape), attrs)
    return out


def _short(v, width=120):
    """A summary value on one line, cut at ``width`` characters."""
    text = _json.dumps(v) if not isinstance(v, str) else v
    return text if len(text) <= width else text[: width - 1] + "…"


_xarray.register_dataset_accessor("pendula")(_About)
_xarray.register_datatree_accessor("pendula")(_About)


# The NumPy type h5py reads each attribute type as.
_ATTR_TYPES = {"f64": _numpy.float64, "i64": _numpy.int64, "i8": _numpy.int8, "str": str}


def _attr(kind, v):
    if kind in _ATTR_TYPES:
        return _ATTR_TYPES[kind](v)
    # A one-element array attribute reads as its element, as xarray reads it.
    return v[0] if v.shape == (1,) else v


def _attrs(d):
    return {k: _attr(*d[k]) for k in sorted(d)}


def _dataset(node):
    """One group of the run's in-memory file image as ``xarray.Dataset``: what
    ``xarray.open_dataset(FILE, group=..., engine="h5netcdf")`` gives for the CLI's file (the
    tests check ``identical``, variable order, dtypes and attribute types). Each variable's
    values are the Rust vector, owned by NumPy (moved, not copied) and reshaped (a view).
    HDF5 lists a group's members by name, so the variables are sorted as there."""
    coords, data, named = {}, {}, set()
    for name, dims, shape, values, attrs, coord in sorted(node["vars"], key=lambda v: v[0]):
        values = values.reshape(shape)
        attrs = _attrs(attrs)
        # CF's `coordinates` attribute (a sweep's swept fields): xarray decodes it into
        # coordinates and drops the attribute.
        named.update(attrs.pop("coordinates", "").split())
        (coords if coord else data)[name] = (dims, values, attrs)
    ds = _xarray.Dataset(data, coords=coords, attrs=_attrs(node["attrs"]))
    return ds.set_coords(sorted(n for n in named if n in ds.data_vars))


def _tree(node):
    """A group and its subgroups as ``xarray.DataTree``, as ``xarray.open_datatree`` gives it."""
    nodes = {}

    def walk(n, path):
        nodes[path] = _dataset(n)
        for c in sorted(n["groups"], key=lambda c: c["name"]):
            walk(c, f"{path.rstrip('/')}/{c['name']}")

    walk(node, "/")
    return _xarray.DataTree.from_dict(nodes)


def simulate(model, theta=None, omega=None, t_end=None, dt_out=None, method=None, rtol=None,
             atol=None, dt=None, q=None, x=None, v=None, equilibrium=None, tilt=None, plot=None):
    """A sampled trajectory: ``xarray.Dataset`` of the CLI's ``trajectory`` group.

    Same variables, dims (``time``, ``link``), units and attributes as ``pendula run`` writes.
    Keywords are the spec's (``[initial]``, ``[simulate]`` and ``[integrator]``); a
    ``CartChain`` starts from ``q``/``omega``/``x``/``v`` or ``equilibrium``/``tilt``.
    """
    init = _initial(theta, omega, q=q, x=x, v=v, equilibrium=equilibrium, tilt=tilt)
    integ = _integrator(method=method, rtol=rtol, atol=atol, dt=dt)
    return _run(_spec(model, "simulate", init, {"t_end": t_end, "dt_out": dt_out}, integ), plot=plot)


def lyapunov(model, theta=None, omega=None, estimator=None, exponents=None, tau=None,
             transient=None, t_end=None, tolerance=None, blocks=None, d0=None, method=None,
             rtol=None, atol=None, dt=None, q=None, x=None, v=None, equilibrium=None, tilt=None,
             deviation=None, slope_samples=None, vectors=None, backward_transient=None,
             vector_samples=None, vector_pairs=None, tangency_angle=None, plot=None):
    """Lyapunov exponents: ``xarray.Dataset`` of the CLI's ``lyapunov`` group.

    Holds ``exponents`` and ``standard_error`` (dim ``exponent``, 1/s; the error from block
    averages), ``history`` (``time`` × ``exponent``: the running estimates), pair sums and the
    energy drift. Keywords are the spec's (``[lyapunov]`` and ``[integrator]``); estimators
    ``spectrum``, ``tangent``, ``two-trajectory``, and ``sali``, ``megno`` and ``fli``, which give
    the CLI's ``indicators``, ``megno`` and ``fli`` groups (ensembles: the CLI). ``deviation``
    (``"unit"`` or ``"diagonal"``) and ``slope_samples`` (``"step"`` or ``"tau"``) give the
    single orbit the maps' definitions (README, "One definition per indicator").
    ``vectors="covariant"`` gives the CLI's ``covariant`` group instead: the covariant
    Lyapunov vectors (``time`` × ``vector`` × ``state_component``), their local growth rates,
    the unstable–stable angle ``min_angle`` and the angles of ``vector_pairs`` (1-based pairs
    such as ``[(1, 4)]``), with ``backward_transient``, ``vector_samples`` and
    ``tangency_angle`` as in the spec.
    """
    if vector_pairs is not None:
        vector_pairs = [list(p) for p in vector_pairs]
    table = {"estimator": estimator, "exponents": exponents, "tau": tau, "transient": transient,
             "t_end": t_end, "tolerance": tolerance, "blocks": blocks, "d0": d0,
             "deviation": deviation, "slope_samples": slope_samples, "vectors": vectors,
             "backward_transient": backward_transient, "vector_samples": vector_samples,
             "vector_pairs": vector_pairs, "tangency_angle": tangency_angle}
    init = _initial(theta, omega, q=q, x=x, v=v, equilibrium=equilibrium, tilt=tilt)
    integ = _integrator(method=method, rtol=rtol, atol=atol, dt=dt)
    return _run(_spec(model, "lyapunov", init, table, integ), plot=plot)


def modes(model, equilibria=None, check=None, verify_nonlinear=None, amplitude=None,
          periods=None, amplitudes=None, plot=None):
    """Equilibria and small-oscillation normal modes: ``xarray.Dataset`` of the ``modes`` group.

    ``equilibria`` is the spec's: ``"hanging"`` (default), ``"all"`` (all 2^N up/down
    equilibria), one sign string (``"+-"``) or a list of them. For a planar chain the Dataset
    holds ``omega2`` (equilibrium × mode, (rad/s)², negative = unstable), frequencies, growth
    rates, mode shapes and the formula checks; for a ``CartChain``, the CLI's cart modes.
    """
    if isinstance(equilibria, tuple):
        equilibria = list(equilibria)
    table = {"equilibria": equilibria, "check": check, "verify_nonlinear": verify_nonlinear,
             "amplitude": amplitude, "periods": periods, "amplitudes": amplitudes}
    return _run(_spec(model, "modes", None, table), plot=plot)


def poincare(model, theta=None, omega=None, section=None, value=None, normal=None, offset=None,
             direction=None, stroboscopic=None, period=None, t0=None, energy=None,
             energy_fraction=None, link=None, variables=None, grid=None, random=None, seed=None,
             angle_range=None, speed_range=None, crossings=None, t_end=None, lyapunov=None,
             chaos_threshold=None, rtol=None, atol=None, t_max=None, plot=None):
    """Poincaré sections: ``xarray.DataTree`` of the CLI's ``poincare`` group.

    The root holds the section's description and the model; one child ``shell_k`` per energy
    shell (or one for an explicit start ``theta``/``omega``) holds every orbit's crossings, as
    the CLI's file does. Keywords are the spec's ``[poincare]`` table (DOP853, ``rtol``/``atol``
    default 1e-12). No crossing at all raises ``ValueError`` naming ``poincare.t_end``.
    """
    table = {"section": section, "value": value, "normal": normal, "offset": offset,
             "direction": direction, "stroboscopic": stroboscopic, "period": period, "t0": t0,
             "energy": energy, "energy_fraction": energy_fraction, "link": link,
             "variables": variables, "grid": grid, "random": random, "seed": seed,
             "angle_range": angle_range, "speed_range": speed_range, "crossings": crossings,
             "t_end": t_end, "lyapunov": lyapunov, "chaos_threshold": chaos_threshold,
             "t_max": t_max}
    integ = _integrator(rtol=rtol, atol=atol)
    return _run(_spec(model, "poincare", _initial(theta, omega), table, integ), tree=True, plot=plot)


def map(model, kind=None, resolution=None, x=None, y=None, window=None, t_end=None, flip=None,
        energy_skip=None, tile=None, kernel=None, tau=None, blocks=None, tolerance=None,
        gali_order=None, angle_tol=None,
        omega_tol=None, dwell=None, max_period=None, repeats=None, energy=None, solve=None,
        dt=None, theta=None, omega=None, t_max=None, plot=None, **options):
    """An initial-condition map: ``xarray.Dataset`` of the CLI's ``map`` group.

    Keywords are the spec's ``[map]`` table: ``kind`` (``flip-time``, ``energy-error``,
    ``lyapunov``, ``ftle``, ``megno``, ``final-state``, ``sali``, ``gali``, ``fli``,
    ``lagrangian-descriptor``, ``frequency``: the diffusion map, with ``samples`` and
    ``window_order``), ``resolution``
    (W or [W, H]), ``x``/``y`` (``theta1``, ``omega2``, …), ``window`` ([x_lo, x_hi, y_lo,
    y_hi]), ``t_end``,
    ``kernel`` (``auto``: the SIMD lanes where they apply; ``lanes``: also for ``fli`` and
    ``lagrangian-descriptor``; or ``scalar``), …; ``dt`` is
    the RK4 step (``[integrator] dt``); ``theta``/``omega`` the other coordinates' start. A
    Lyapunov map's ``blocks`` and ``tolerance`` give its per-pixel standard error and early stop.
    Any other ``[map]`` key of a kind (``descriptor_p``, …) is passed on as the spec file names
    it; the library refuses a key it does not know, naming it.
    The Dataset has dims (``y``, ``x``) named after the two coordinates and the kind's variables
    (a flip-time map: ``flip_time``, ``flip_link``, ``class``, …), bit for bit the CLI's
    ``pendula map`` file. Tiles run on rayon's threads with the GIL released; Ctrl-C abandons
    them and raises ``KeyboardInterrupt`` (no partial map).
    """
    table = {"kind": kind, "resolution": resolution, "x": x, "y": y, "window": window,
             "t_end": t_end, "flip": flip, "energy_skip": energy_skip, "tile": tile,
             "kernel": kernel, "tau": tau, "blocks": blocks, "tolerance": tolerance,
             "gali_order": gali_order, "angle_tol": angle_tol,
             "omega_tol": omega_tol, "dwell": dwell, "max_period": max_period,
             "repeats": repeats, "energy": energy, "solve": solve, "t_max": t_max, **options}
    return _run(_spec(model, "map", _initial(theta, omega), table, _integrator(dt=dt)), plot=plot)


def measure(labels, what=None, extent=None, variable=None, flip_before=None, max_eps=None,
            entropy_eps=None, shifts=None, seed=None, wada_radius=None, plot=None):
    """Fractal measures of a label grid: ``xarray.DataTree`` of the CLI's ``measure`` group.

    ``labels`` is a 2-D integer NumPy array indexed ``[y, x]`` (as ``pendula measure --labels``
    reads a dataset) or the Dataset of ``pendula.map`` (as ``pendula measure FILE.h5`` reads a
    map file: ``variable`` ``flip_step``, ``flip_link`` or ``class``, and ``flip_before`` times
    for flip maps; ``class`` or ``attractor`` for final-state maps). ``what`` is ``boundary-dimension``, ``uncertainty-exponent``,
    ``basin-entropy``, ``wada`` or ``all`` (default); ``extent`` ``[x0, x1, y0, y1]`` gives the
    pixel edges' physical extent (a map's window by default). The other keywords are the
    spec's ``[measure]`` ones. The tree holds one ``set_k`` child per label grid, as the file.
    """
    if isinstance(entropy_eps, int):
        entropy_eps = [entropy_eps]
    if isinstance(flip_before, (int, float)):
        flip_before = [float(flip_before)]
    opts = dict(what=what, extent=None if extent is None else [float(v) for v in extent],
                max_eps=max_eps, entropy_eps=entropy_eps, shifts=shifts, seed=seed,
                wada_radius=wada_radius)
    flip_before = None if flip_before is None else [float(t) for t in flip_before]
    if isinstance(labels, _xarray.Dataset):
        # The map's attributes as the map file holds them; the library refuses a Dataset
        # that lacks one (None), as the CLI refuses a file that is no map.
        a = labels.attrs

        def attr(name, conv):
            return conv(a[name]) if name in a else None

        header = (attr("kind", str), attr("complete", bool), attr("t_max", float),
                  attr("dt", float), attr("window", lambda w: [float(v) for v in w]),
                  attr("x_coordinate", str), attr("y_coordinate", str))

        def grid(name, dtype):
            return _numpy.ascontiguousarray(labels[name].values, dtype=dtype) if name in labels else None

        # A final-state map's per-pixel columns (final_angle, turns, rotation per link), stacked
        # pixel-major as the map file's reader gives them: the `attractor` labels need them.
        cols = _core.aux_vars(header[0] or "")
        aux = None
        if cols and all(n in labels for n, _ in cols):
            stack = [labels[n].values if per_link else labels[n].values[..., None] for n, per_link in cols]
            aux = (_numpy.ascontiguousarray(_numpy.concatenate(stack, axis=-1), dtype=_numpy.float64),
                   int(labels.sizes.get("link", 1)))

        call = lambda plot: _core.measure_map(
            header, grid("class", _numpy.uint8), grid("flip_step", _numpy.int32),
            grid("flip_link", _numpy.uint8), aux=aux, variable=variable,
            flip_before=flip_before, plot=plot, **opts)
    else:
        arr = labels if isinstance(labels, _numpy.ndarray) else _numpy.asarray(labels)
        call = lambda plot: _core.measure_labels(arr, variable=variable, flip_before=flip_before,
                                                 plot=plot, **opts)
    return _run(None, tree=True, call=call, plot=plot)


def chaotic_fraction(model, energies=None, samples=None, seed=None, t_end=None, dt=None,
                     tau=None, plot=None):
    """The chaotic fraction of energy shells: ``xarray.DataTree`` of the CLI's ``measure`` group
    with its ``chaotic_fraction`` child, as ``pendula measure --chaotic-fraction`` writes it.

    ``samples`` Liouville-uniform starts per shell energy (J) of a planar ``Chain``, each
    classified by SALI (RK4 step ``dt``, renormalised every ``tau``, to ``t_end``); per shell
    the chaotic/regular/undecided counts, the fraction and its Wilson 95 % interval.
    """
    if isinstance(energies, (int, float)):
        energies = [energies]
    # The model's table as the CLI's --model file gives it; the library refuses any but a
    # planar chain.
    table = getattr(model, "table", None)
    model_json = None if table is None else _json.dumps(table)
    energies = [float(e) for e in (energies or [])]
    call = lambda plot: _core.chaotic_fraction(model_json, energies, samples, seed=seed,
                                               t_end=t_end, dt=dt, tau=tau, plot=plot)
    return _run(None, tree=True, call=call, plot=plot)


def _plain(v):
    """A keyword's value as JSON writes it: NumPy arrays and tuples as lists, NumPy scalars as
    Python numbers; anything else as given, for the library to refuse naming its field."""
    if isinstance(v, (list, tuple, _numpy.ndarray)):
        return [_plain(x) for x in v]
    if isinstance(v, _numpy.generic):
        return v.item()
    return v


def orbits(model, action=None, theta=None, omega=None, start=None, mode=None, amplitude=None,
           drive_periods=None, energy=None, period=None, transient_periods=None,
           scan_periods=None, map_file=None, attractor=None, segments=None,
           newton_tolerance=None, max_iterations=None, shape_samples=None, parameter=None,
           range=None, points=None, direction=None, step=None, min_step=None, max_step=None,
           locate_tolerance=None, doublings=None, starts=None, sampled_periods=None,
           steps_per_period=None, parameter2=None, range2=None, bifurcation=None,
           branch_file=None, chart_grid=None, rtol=None, atol=None, plot=None, follow=None):
    """Periodic orbits: ``xarray.DataTree`` of the CLI's ``orbits`` group.

    ``action`` ``"find"`` (default: child ``orbit``, with its period, multipliers, monodromy
    and shape), ``"continue"`` (also ``branch_1``, ``branch_2``, … over dim ``point`` and the
    located ``bifurcations``) or ``"diagram"`` (child ``diagram``: stroboscopic ``samples``
    and ``lyapunov`` against ``parameter``). The seed is ``theta``/``omega`` (``start``
    ``"initial"``), a normal mode (``"mode"``, ``mode``, ``amplitude``), the state after
    ``transient_periods`` drive periods (``"settle"``) or, after them, the stroboscopic point
    of the next ``scan_periods`` that returns nearest after k periods (``"return"``; an
    undriven chain's: the crossing of θ₁ = 0 upward whose next one lands nearest), or the
    start of the pixel of class ``attractor`` (``"period_K"``) that settled first in the
    final-state map file ``map_file``, after ``transient_periods`` (``"map"``). A driven chain's orbits have period
    ``drive_periods``·T_drive; an undriven one's are closed by ``energy`` or ``period``.
    ``parameter`` is the varied spec field (``"model.drive.torque.amplitude"``,
    ``"orbits.energy"``, …) over ``range`` [min, max]. The other keywords are the spec's
    ``[orbits]`` table (``follow``: ``"all"`` or a list of ``"period-doubling"``,
    ``"branch-point"``, ``"neimark-sacker"``: the new branches born at those located
    bifurcations); ``rtol``/``atol`` DOP853's (default 1e-12). ``"curve"`` continues the
    branch's located bifurcations in ``parameter`` and ``parameter2`` over ``range`` ×
    ``range2`` (children ``curve_1``, … over dim ``point``, and the stability ``chart``). A
    Newton that does not converge raises ``RuntimeError``.
    """
    table = {"action": action, "start": start, "mode": mode, "amplitude": amplitude,
             "drive_periods": drive_periods, "energy": energy, "period": period,
             "transient_periods": transient_periods, "scan_periods": scan_periods,
             "map_file": _os.fspath(map_file) if isinstance(map_file, _os.PathLike) else map_file,
             "attractor": attractor,
             "segments": segments,
             "newton_tolerance": newton_tolerance, "max_iterations": max_iterations,
             "shape_samples": shape_samples, "parameter": parameter, "range": range,
             "points": points, "direction": direction, "step": step, "min_step": min_step,
             "max_step": max_step, "locate_tolerance": locate_tolerance, "doublings": doublings,
             "follow": follow, "starts": starts, "sampled_periods": sampled_periods,
             "steps_per_period": steps_per_period, "parameter2": parameter2, "range2": range2,
             "bifurcation": bifurcation,
             "branch_file": _os.fspath(branch_file) if isinstance(branch_file, _os.PathLike) else branch_file,
             "chart_grid": chart_grid}
    table = {k: _plain(v) for k, v in table.items()}
    integ = _integrator(rtol=_plain(rtol), atol=_plain(atol))
    return _run(_spec(model, "orbits", _initial(theta, omega), table, integ), tree=True, plot=plot)


def manifolds(model, theta=None, omega=None, start=None, drive_periods=None,
              transient_periods=None, scan_periods=None, newton_tolerance=None,
              map_tolerance=None, steps_per_period=None, d0=None, resolution=None,
              max_angle=None, arclength=None, max_points=None, linear_tolerance=None,
              intersection_tolerance=None, window=None, parameter=None, range=None,
              tangency_tolerance=None, rtol=None, atol=None, plot=None, section=None,
              value=None, direction=None, energy=None, period=None, map_file=None,
              accuracy=None):
    """Stable and unstable manifolds of a saddle of a driven one-link chain's stroboscopic
    map, or of a conservative two-link chain's Poincaré map on an energy shell
    (``section`` ``"theta1"``/``"theta2"``, ``value``, ``direction`` ``"+"``/``"-"``,
    ``energy``, ``period`` the orbit's guess for ``start="initial"``; the branches' second
    variable is then ``momentum``): ``xarray.DataTree`` of the CLI's ``manifolds`` group, as
    ``pendula manifolds`` writes it.

    The saddle is shot from ``theta``/``omega`` (``start`` ``"initial"``, or ``"settle"``,
    ``"return"`` as in ``orbits``) and polished by Newton on the map; its attributes hold the
    point, the multipliers, the splitting and the Melnikov threshold, its children one branch
    each (``unstable_plus``, ``unstable_minus``, ``stable_plus``, ``stable_minus``: ``theta``,
    ``omega``, ``arclength`` over dim ``point``), the ``intersections`` and, with
    ``parameter`` and ``range``, the first ``tangency``. The keywords are the spec's
    ``[manifolds]`` table; ``rtol``/``atol`` the shooting's DOP853 (default 1e-12);
    ``map_file`` a map file of the same model (``pendula map``) that the figure is drawn over.
    """
    table = {"start": start, "drive_periods": drive_periods,
             "transient_periods": transient_periods, "scan_periods": scan_periods,
             "newton_tolerance": newton_tolerance, "map_tolerance": map_tolerance,
             "steps_per_period": steps_per_period, "d0": d0, "resolution": resolution,
             "max_angle": max_angle, "arclength": arclength, "max_points": max_points,
             "linear_tolerance": linear_tolerance,
             "intersection_tolerance": intersection_tolerance, "window": window,
             "parameter": parameter, "range": range, "tangency_tolerance": tangency_tolerance,
             "section": section, "value": value, "direction": direction, "energy": energy,
             "map_file": map_file, "accuracy": accuracy,
             "period": period}
    table = {k: _plain(v) for k, v in table.items()}
    integ = _integrator(rtol=_plain(rtol), atol=_plain(atol))
    return _run(_spec(model, "manifolds", _initial(theta, omega), table, integ), tree=True,
                plot=plot)


def frequencies(model, theta=None, omega=None, t_end=None, dt_out=None, window_order=None,
                terms=None, combination_order=None, omega_ref=None, method=None, rtol=None,
                atol=None, dt=None, plot=None):
    """The frequency analysis (NAFF) of one orbit: ``xarray.Dataset`` of the CLI's
    ``frequencies`` group, as ``pendula frequencies`` writes it.

    Holds each link's lines (``frequency``, ``amplitude``, ``phase`` over ``link`` × ``term``,
    rad/s), the integer ``combination`` of the fundamentals explaining each line, the
    ``fundamental_frequency`` of the whole run and the ``half_fundamental_frequency`` of each
    half (``half`` × ``fundamental``), and the attributes ``diffusion`` and ``diffusion_index``
    (log₁₀ of the change of the fundamentals between the halves: below −8 on a torus).
    Error bars (README, "Error bars"): ``fundamental_frequency_error`` beside each fundamental
    (the window law), ``half_difference``, and the attributes ``diffusion_error`` and
    ``diffusion_index_error``; a frequency map has ``diffusion_index_error`` per pixel.
    The verdict (README, "Verdict"): the scalar ``verdict`` (CF flags 0 regular, 1 chaotic,
    2 undecided), the attributes ``diffusion_index_ladder`` (the index at T/4, T/2, T),
    ``ladder_slope``, ``verdict_rule`` and, for a chaotic orbit, ``warning``; a frequency map has
    ``verdict``, ``diffusion_index_quarter`` and ``diffusion_index_half`` per pixel.
    Keywords are the spec's ``[frequencies]`` table (``t_end`` required; ``dt_out`` default
    0.01 s, ``window_order`` 1, ``terms`` 10, ``omega_ref`` the lowest small-oscillation
    frequency) and ``[integrator]`` (DOP853 by default). A map of the diffusion index is
    ``map(model, kind="frequency", samples=..., window_order=...)``.
    """
    table = {"t_end": t_end, "dt_out": dt_out, "window_order": window_order, "terms": terms,
             "combination_order": combination_order, "omega_ref": omega_ref}
    integ = _integrator(method=method, rtol=rtol, atol=atol, dt=dt)
    return _run(_spec(model, "frequencies", _initial(theta, omega), table, integ), plot=plot)


def control(model, equilibrium=None, q_cart=None, q_angle=None, q_rate=None, r=None, x_ref=None,
            t_end=None, dt_out=None, q=None, omega=None, x=None, v=None, tilt=None, method=None,
            rtol=None, atol=None, dt=None, plot=None):
    """An LQR design about a vertical equilibrium of a ``CartChain`` and its closed loop:
    ``xarray.Dataset`` of the CLI's ``lqr`` group, as ``pendula control`` writes it.

    Keywords are the spec's ``[control]`` table (``equilibrium`` ``"inverted"`` by default, the
    weights ``q_cart``, ``q_angle``, ``q_rate``, ``r``, the rest position ``x_ref``, ``t_end``
    20 s, ``dt_out`` 0.01 s) and ``[integrator]``. The loop starts from ``q``/``omega``/``x``/
    ``v``, else at the stabilized equilibrium tilted by ``tilt`` rad (0.05 by default).
    """
    init = _initial(None, omega, q=q, x=x, v=v, tilt=tilt)
    table = {"equilibrium": equilibrium, "q_cart": q_cart, "q_angle": q_angle, "q_rate": q_rate,
             "r": r, "x_ref": _floats(x_ref), "t_end": t_end, "dt_out": dt_out}
    integ = _integrator(method=method, rtol=rtol, atol=atol, dt=dt)
    return _run(_spec(model, "control", init, table, integ), plot=plot)
