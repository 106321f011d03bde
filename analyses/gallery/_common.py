"""What every gallery script shares: where its figures go (``PENDULA_GALLERY_OUT``, else
``out/gallery`` under the working folder) and a check that prints what it compares."""

import os
import pathlib

OUT = pathlib.Path(os.environ.get("PENDULA_GALLERY_OUT", "out/gallery"))
OUT.mkdir(parents=True, exist_ok=True)


def figure(name):
    """The path of the figure ``name`` (a ``.png``) in the gallery's folder."""
    return OUT / name


def check(what, got, want, tol):
    """Prints ``what`` with its number and the reference, and fails unless |got − want| ≤ tol."""
    ok = abs(got - want) <= tol
    print(f"{'ok ' if ok else 'BAD'} {what}: {got:.12g} against {want:.12g} (|Δ| = {abs(got - want):.2e} ≤ {tol:.0e})")
    assert ok, what
