"""A rebuild whose inputs are the last build's does nothing (aotbuild/unchanged.py), and any
change to what the package is made from builds it again."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aotbuild.build import build
from aotbuild.progress import Progress

from .conftest import write_project

GRAPHS = """
[package]
name = "steady_ext"

[graphs.total]
function = "steady:total"
signature = "float64(float64[:])"
"""

SOURCE = "import helper\n\n\ndef total(x):\n    return helper.scale(x).sum()\n"
HELPER = "def scale(x):\n    return x * 2.0\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "p", GRAPHS, {"steady.py": SOURCE, "helper.py": HELPER})


def run(graphs: Path, **options):
    return build(graphs, out_dir=str(graphs.parent / "out"), progress=Progress(quiet=True), jobs=1, **options)


def skipped(result) -> bool:
    return result.seconds == 0.0 and not result.changed and not result.linked


def test_nothing_changed_is_skipped_and_any_change_builds(project: Path) -> None:
    first = run(project)
    assert not skipped(first) and first.changed
    assert skipped(run(project))
    time.sleep(0.01)
    (project.parent / "helper.py").write_text(HELPER)  # touched, the same bytes: still skipped
    assert skipped(run(project))
    (project.parent / "helper.py").write_text(HELPER.replace("2.0", "3.0"))  # a module it imports
    assert not skipped(again := run(project)) and again.changed
    assert skipped(run(project))
    project.write_text(GRAPHS + "nogil = true\n")  # graphs.toml
    assert not skipped(run(project))
    assert not skipped(run(project, regions=False))  # another build option
    assert skipped(run(project, regions=False))


def test_a_package_changed_or_removed_since_is_built_again(project: Path) -> None:
    first = run(project)
    manifest = first.package_dir / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"graphs"', '"edited": true,\n  "graphs"', 1))
    assert not skipped(run(project))
    second = run(project)
    second.native.unlink()
    assert not skipped(third := run(project))
    assert third.native.exists()


def test_no_cache_always_builds(project: Path) -> None:
    run(project)
    assert not skipped(run(project, use_cache=False))
