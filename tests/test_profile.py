"""Per-Op profiles: ``aotbuild compile --profile`` compiles timers in, ``pkg.profile()`` reads them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from aotbuild.build import build
from aotbuild.progress import Progress

from .conftest import PROJECTS, load_package


@pytest.fixture(scope="module")
def profiled(tmp_path_factory: pytest.TempPathFactory):
    """The runtime project built with timers (its Ops come from the session's cache)."""
    out = tmp_path_factory.mktemp("profiled")
    result = build(
        PROJECTS / "runtime" / "graphs.toml", out_dir=str(out), profile=True, progress=Progress(quiet=True)
    )
    return result


SCRIPT = """
import io, json, sys, time
sys.path.insert(0, {folder!r})
import numpy as np
import runtime_ext

x, y = np.linspace(0.0, 1.0, 20_000), np.linspace(1.0, 2.0, 20_000)
printed = io.StringIO()
started = time.perf_counter()
with runtime_ext.profile(file=printed) as report:
    for _ in range(50):
        runtime_ext.summary(x, y)
wall = time.perf_counter() - started
print(json.dumps({{"rows": report.rows, "wall": wall, "table": printed.getvalue()}}))
"""


def test_the_table_lists_every_op_and_adds_up_to_no_more_than_the_wall_time(profiled) -> None:
    """In a process of its own: this session imports the runtime package built without timers."""
    script = SCRIPT.format(folder=str(profiled.package_dir.parent))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    manifest = json.loads((profiled.package_dir / "manifest.json").read_text())
    graph = manifest["graphs"]["summary"]
    rows = {
        symbol: (calls, seconds)
        for scope, symbol, _, calls, seconds in seen["rows"]
        if scope == "graph summary"
    }
    assert set(rows) == set(graph["ops"]), "every Op of the graph, and the graph's own total"
    assert all(calls == 50 for calls, _ in rows.values())
    whole = rows[graph["entry"]][1]
    ops = sum(seconds for symbol, (_, seconds) in rows.items() if symbol != graph["entry"])
    assert 0 < ops <= whole <= seen["wall"]
    table = seen["table"]
    assert table.startswith("graph summary: 50 call(s)")
    for symbol in graph["ops"][:-1]:
        assert manifest["ops"][symbol]["title"][:56] in table
    assert "share" in table and "%" in table


def test_without_the_flag_there_are_no_timers(runtime_build) -> None:
    package = load_package(runtime_build)
    with pytest.raises(
        RuntimeError, match=r"built without per-Op timers; rebuild it with `aotbuild compile --profile`"
    ):
        package.profile()
    assert package._native._profile_counts() == ()
    modules = runtime_build.package_dir / "_modules"
    assert not [path.name for path in modules.iterdir() if "_aot_clock" in path.read_text()]


def test_profiled_modules_time_each_op_call(profiled) -> None:
    graph = json.loads((profiled.package_dir / "manifest.json").read_text())["graphs"]["summary"]
    text = (profiled.package_dir / "_modules" / f"{graph['entry']}.py").read_text()
    calls = len(graph["ops"]) - 1  # every Op but the entry itself
    assert text.count("_aot_t = _aot_clock()") == text.count("_aot_record(") == calls >= 2
