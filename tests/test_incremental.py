"""Incremental builds, decided per compiled Op key: nothing changed compiles and links nothing;
an edit recompiles only the Ops whose keys changed; the cache is bypassed, capped and repaired."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aotbuild.build import BuildResult, build
from aotbuild.cache.store import ObjectCache
from aotbuild.codegen.templates import CompiledTemplates, environment
from aotbuild.progress import Progress

from .conftest import PROJECTS


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ObjectCache:
    """A cache of this test's own: what other tests compiled must not decide what this one does."""
    cache = ObjectCache(tmp_path / "cache")
    monkeypatch.setenv("AOTBUILD_CACHE_DIR", str(cache.root))
    return cache


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(
        PROJECTS / "incremental", tmp_path / "project", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path / "project" / "graphs.toml"


def quiet_build(path: Path, **options) -> BuildResult:
    return build(path, progress=Progress(quiet=True), jobs=1, **options)


def ops_of(result: BuildResult) -> dict[str, list[str]]:
    manifest = json.loads((result.package_dir / "manifest.json").read_text())
    return {name: graph["ops"] for name, graph in manifest["graphs"].items()}


def call(result: BuildResult, graph: str, values: list[float]) -> list[float]:
    """The graph's result, in a new process (this one may hold an earlier build of the package)."""
    code = (
        f"import sys, numpy as np; sys.path.insert(0, {str(result.package_dir.parent)!r}); "
        f"import {result.package_dir.name} as p; print(list(p.{graph}(np.array({values!r}))))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return eval(output.stdout)


def test_no_change_rebuild_compiles_links_and_writes_nothing(project: Path) -> None:
    first = quiet_build(project)
    assert first.compiled == first.modules and first.changed
    native_written = first.native.stat().st_mtime_ns
    second = quiet_build(project)
    assert (second.compiled, second.linked, second.changed) == (0, False, False)
    assert second.native.stat().st_mtime_ns == native_written
    assert second.timings == ()


def test_editing_an_imported_function_recompiles_only_the_ops_it_affects(project: Path) -> None:
    first = quiet_build(project)
    before, first_native = ops_of(first), first.native.read_bytes()
    helpers = project.parent / "helpers.py"
    helpers.write_text(helpers.read_text().replace("return x * 2.0", "return x * 3.0"))
    second = quiet_build(project)
    after = ops_of(second)
    new_symbols = {s for ops in after.values() for s in ops} - {s for ops in before.values() for s in ops}
    assert 0 < second.compiled == len(new_symbols)
    assert {s for s in new_symbols if s.startswith("aot_graph_")} == {after["scaled"][-1]}
    assert after["shifted"] == before["shifted"] and after["normed"] == before["normed"]
    assert second.linked and second.changed
    assert call(second, "scaled", [0.5]) == pytest.approx([np.exp(1.5) - 1.0])
    # Editing it back: every object is in the cache again, and so is the shared object.
    helpers.write_text(helpers.read_text().replace("return x * 3.0", "return x * 2.0"))
    third = quiet_build(project)
    assert (third.compiled, third.linked, third.changed) == (0, False, True)
    assert third.native.read_bytes() == first_native


def test_editing_one_graph_recompiles_only_that_graph(project: Path) -> None:
    before = ops_of(quiet_build(project))
    model = project.parent / "model.py"
    model.write_text(
        model.read_text().replace("np.log1p(np.abs(shift(x)))", "np.log1p(np.abs(shift(x))) * 0.5")
    )
    second = quiet_build(project)
    after = ops_of(second)
    assert after["scaled"] == before["scaled"] and after["normed"] == before["normed"]
    changed = set(after["shifted"]) - set(before["shifted"])
    assert second.compiled == len(changed) == 2  # the new multiply, and the graph's entry


def test_no_cache_neither_reads_nor_writes(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet_build(project)  # the session cache now has every object
    monkeypatch.setenv("AOTBUILD_CACHE_DIR", str(tmp_path / "empty-cache"))
    result = quiet_build(project, use_cache=False)
    assert result.compiled == result.modules and result.linked
    assert not (tmp_path / "empty-cache").exists()
    assert environment().bytecode_cache is None  # nor templates compiled by Jinja


def test_the_cache_keeps_the_templates_jinja_compiled(project: Path, own_cache: ObjectCache) -> None:
    quiet_build(project)
    kept = environment().bytecode_cache
    assert isinstance(kept, CompiledTemplates) and kept.folder == own_cache.templates


def test_damaged_entry_is_rebuilt_not_linked(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ObjectCache(tmp_path / "cache")
    monkeypatch.setenv("AOTBUILD_CACHE_DIR", str(cache.root))
    first = quiet_build(project)
    first_native = first.native.read_bytes()
    op_entries = [stored.path for stored in cache.files() if b'"kind":"op"' in stored.path.read_bytes()[:300]]
    assert len(op_entries) == first.modules
    victim = op_entries[0]
    raw = victim.read_bytes()
    victim.write_bytes(raw[:-100] + bytes(100))  # zeroed tail: same size, wrong bytes
    shutil.rmtree(first.package_dir)
    with pytest.warns(UserWarning, match="damaged cache entry"):
        second = quiet_build(project)
    assert second.compiled == 1 and second.linked is False  # the same object again: same link
    assert second.native.read_bytes() == first_native
    assert victim.read_bytes() == raw


def test_cache_cap_evicts_other_builds_entries_first(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_cache: ObjectCache
) -> None:
    cache = own_cache
    monkeypatch.setenv("AOTBUILD_CACHE_SIZE", "1")
    first = quiet_build(project)
    assert cache.info().entries > first.modules  # a build keeps all it used, whatever the cap
    kept = {stored.path.name for stored in cache.files()}
    other = tmp_path / "other"
    shutil.copytree(project.parent, other, ignore=shutil.ignore_patterns("build", "__pycache__"))
    (other / "helpers.py").write_text((other / "helpers.py").read_text().replace("2.0", "4.0"))
    (other / "model.py").write_text((other / "model.py").read_text().replace("1.0", "7.0"))
    quiet_build(other / "graphs.toml")
    remaining = {stored.path.name for stored in cache.files()}
    assert kept - remaining, "the second build should have evicted entries only the first used"
    project.write_text(project.read_text() + "# edited: a build, not the unchanged inputs' shortcut\n")
    again = quiet_build(project)
    assert again.compiled > 0
