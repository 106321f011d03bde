"""The gallery (analyses/gallery/*.py, notebooks as `# %%` scripts): each runs to its end, its
own checks of its numbers against independent routes passing, and draws its figures."""

import os
import pathlib
import subprocess
import sys

import pytest

GALLERY = pathlib.Path(__file__).resolve().parents[2] / "analyses" / "gallery"
SCRIPTS = sorted(p.name for p in GALLERY.glob("[a-z]*.py"))


def test_the_gallery_is_there():
    assert len(SCRIPTS) >= 6, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_gallery_notebook_runs_and_checks_its_numbers(tmp_path, script):
    env = dict(os.environ, PENDULA_GALLERY_OUT=str(tmp_path))
    done = subprocess.run([sys.executable, script], cwd=GALLERY, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BAD" not in done.stdout
    figures = list(tmp_path.glob("*.png"))
    assert figures, "no figure drawn"
    for f in figures:
        assert f.read_bytes().startswith(b"\x89PNG"), f
