"""Every refusal of the Python package names its keyword, as the spec field it sets."""

import inspect
import math
import pathlib
import re

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


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_orbits_non_finite_keywords_are_named(bad):
    simple = pendula.Chain.preset("simple")
    shown = repr(bad)
    with pytest.raises(ValueError, match=r"^orbits\.amplitude: must be a finite number \(got " + shown):
        pendula.orbits(simple, start="mode", amplitude=bad)
    with pytest.raises(ValueError, match=r"^orbits\.range\[2\]: must be a finite number"):
        pendula.orbits(simple, action="continue", start="mode", parameter="orbits.energy",
                       range=[-9.8, bad])
    with pytest.raises(ValueError, match=r"^orbits\.starts\[1\]\[2\]: must be a finite number"):
        pendula.orbits(simple, action="diagram", theta=[0.0], starts=[[0.0, bad]])
    with pytest.raises(ValueError, match=r"^integrator\.rtol: must be a finite number"):
        pendula.orbits(simple, start="mode", rtol=bad)


# `plot` is where the figure goes, not a field of the spec.
ORBITS_KEYWORDS = [p for p in inspect.signature(pendula.orbits).parameters
                   if p not in ("model", "theta", "omega", "plot")]


@pytest.mark.parametrize("name", ORBITS_KEYWORDS)
def test_every_orbits_keyword_is_its_spec_field(name):
    """Each keyword of pendula.orbits sets the spec field of its name: a value of the wrong
    type is refused naming `orbits.<keyword>` (`integrator.rtol`, `integrator.atol`)."""
    field = f"integrator.{name}" if name in ("rtol", "atol") else f"orbits.{name}"
    words = ("action", "start", "parameter", "direction", "map_file", "attractor", "parameter2",
             "bifurcation", "branch_file", "follow")
    bad = 1 if name in words else "x"
    with pytest.raises(ValueError, match=r"(^|: )" + re.escape(field) + ": invalid type"):
        pendula.orbits(pendula.Chain.preset("simple"), **{name: bad})


SRC_DIR = pathlib.Path(__file__).resolve().parents[2] / "src"
# The file of the crate that declares the `[orbits]` table, the orbits kind's (None outside a
# checkout).
SPEC_SOURCE = next((p for p in sorted(SRC_DIR.rglob("*.rs"))
                    if "pub struct OrbitsSpec {" in p.read_text()), None)


@pytest.mark.skipif(SPEC_SOURCE is None and not SRC_DIR.exists(),
                    reason="needs the crate's src/")
def test_every_orbits_field_is_a_keyword():
    """The `[orbits]` table's fields (the library's OrbitsSpec) and the keywords agree."""
    assert SPEC_SOURCE is not None, "no file of src/ declares OrbitsSpec"
    text = SPEC_SOURCE.read_text()
    body = text[text.index("pub struct OrbitsSpec {"):]
    body = body[:body.index("\n}")]
    fields = re.findall(r"^\s*pub (\w+): Option<", body, re.M)
    assert fields and sorted(fields) == sorted(set(ORBITS_KEYWORDS) - {"rtol", "atol"})
