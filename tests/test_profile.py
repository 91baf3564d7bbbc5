"""Per-Op profiles: ``aotbuild compile --profile`` compiles timers in, ``pkg.profile()`` reads them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from aotbuild.build import build
from aotbuild.cli import main
from aotbuild.progress import Progress

from .conftest import PROJECTS, load_package, reached


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
m = np.linspace(0.0, 1.0, 60_000).reshape(200, 300)
m = m if {contiguous} else np.asfortranarray(m)
printed = io.StringIO()
started = time.perf_counter()
with runtime_ext.profile(file=printed) as report:
    for _ in range(50):
        runtime_ext.summary(x, y)
        runtime_ext.centred_rows(m)
wall = time.perf_counter() - started
if {saved!r}:
    report.save({saved!r})
print(json.dumps({{"rows": report.rows, "wall": wall, "table": printed.getvalue()}}))
"""


def profiled_run(profiled, contiguous: bool, saved: str = "") -> tuple[dict, dict]:
    """In a process of its own (this session imports the runtime package built without timers):
    what the profile saw (saved to ``saved`` too, if given), and the package's manifest."""
    script = SCRIPT.format(folder=str(profiled.package_dir.parent), contiguous=contiguous, saved=saved)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), json.loads((profiled.package_dir / "manifest.json").read_text())


def rows_of(seen: dict, graph: str) -> dict[str, tuple[int, float]]:
    return {
        symbol: (calls, seconds)
        for scope, symbol, _, calls, seconds in seen["rows"]
        if scope == f"graph {graph}"
    }


def test_the_table_lists_every_op_and_adds_up_to_no_more_than_the_wall_time(profiled) -> None:
    seen, manifest = profiled_run(profiled, contiguous=True)
    graph = manifest["graphs"]["summary"]
    rows = rows_of(seen, "summary")
    ran = reached(manifest, graph["entry"]) - {graph["entry"]}
    assert set(rows) == set(graph["ops"]), "every Op of the graph, and the graph's own total"
    assert all(calls == 50 for calls, _ in rows.values())
    whole = rows[graph["entry"]][1]
    ops = sum(seconds for symbol, (_, seconds) in rows.items() if symbol != graph["entry"])
    assert 0 < ops <= whole <= seen["wall"]
    table = seen["table"]
    assert any(line.startswith("graph summary: 50 call(s)") for line in table.splitlines())
    for symbol in ran:
        assert manifest["ops"][symbol]["title"][:56] in table
    assert "share" in table and "%" in table


@pytest.mark.parametrize("contiguous, variant", [(True, "contiguous_entry"), (False, "entry")])
def test_each_call_runs_the_variant_its_arrays_allow(profiled, contiguous: bool, variant: str) -> None:
    """A C-contiguous matrix runs the graph's contiguous variant, a Fortran-ordered one the graph
    as declared: the Ops each calls are the ones the profile saw."""
    seen, manifest = profiled_run(profiled, contiguous)
    graph = manifest["graphs"]["centred_rows"]
    assert graph["contiguous_entry"] is not None
    ran = reached(manifest, graph[variant]) - {graph[variant]}
    assert set(rows_of(seen, "centred_rows")) == ran | {graph["entry"]}  # and the graph's total
    assert all(calls == 50 for calls, _ in rows_of(seen, "centred_rows").values())


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
    manifest = json.loads((profiled.package_dir / "manifest.json").read_text())
    graph = manifest["graphs"]["summary"]
    text = (profiled.package_dir / "_modules" / f"{graph['entry']}.py").read_text()
    calls = len(reached(manifest, graph["entry"])) - 1  # every Op but the entry itself
    assert text.count("_aot_t = _aot_clock()") == text.count("_aot_record(") == calls >= 2


def test_a_saved_profile_is_drawn_as_bars_and_on_the_graph(profiled, tmp_path, capsys) -> None:
    saved = tmp_path / "profile.json"
    seen, manifest = profiled_run(profiled, contiguous=True, saved=str(saved))
    data = json.loads(saved.read_text())
    assert data["format"] == "aotbuild profile 1" and data["package"] == "runtime_ext"
    assert [[r["scope"], r["symbol"], r["title"], r["calls"], r["seconds"]] for r in data["rows"]] == seen[
        "rows"
    ]

    package = str(profiled.package_dir)
    assert main(["inspect", package, "--profile", str(saved), "-o", str(tmp_path / "bars.svg")]) == 0
    assert "bars.svg" in capsys.readouterr().err
    bars = ElementTree.parse(tmp_path / "bars.svg").getroot()
    drawn = {g.get("id") for g in bars.iter("{http://www.w3.org/2000/svg}g")}
    assert drawn == {f"bar-{scope.replace(' ', '-')}-{symbol}" for scope, symbol, *_ in seen["rows"]} - {
        f"bar-graph-{name}-{graph['entry']}" for name, graph in manifest["graphs"].items()
    }, "a bar per Op of each graph that ran; each graph's total heads its section"
    assert "graph summary: 50 call(s)" in (tmp_path / "bars.svg").read_text()

    # centred_rows ran on a C-contiguous matrix: its contiguous variant's Ops are the ones coloured
    assert (
        main(["inspect", package, "--graph", "centred_rows", "--profile", str(saved), "--format", "dot"]) == 0
    )
    coloured = capsys.readouterr().out
    assert "the variant for C-contiguous arrays" in coloured
    assert coloured.count('class="op timed"') == len(rows_of(seen, "centred_rows")) - 1

    assert main(["inspect", package, "--graph", "summary", "--profile", str(saved), "--format", "dot"]) == 0
    dot = capsys.readouterr().out
    timed = rows_of(seen, "summary")
    graph = manifest["graphs"]["summary"]
    assert dot.count('class="op timed"') == len(timed) - 1, "every Op the graph called, coloured"
    for symbol, (calls, _) in timed.items():
        if symbol != graph["entry"]:
            assert re.search(rf'tooltip="[^"]*{symbol}"[^\n]*{calls} call\(s\)', dot), symbol


def test_a_profile_of_nothing_is_not_saved(profiled, tmp_path) -> None:
    script = (
        f"import sys; sys.path.insert(0, {str(profiled.package_dir.parent)!r}); import runtime_ext\n"
        "with runtime_ext.profile(file=None) as report: pass\n"
        f"report.save({str(tmp_path / 'p.json')!r})"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "ValueError: nothing to save: no graph ran inside `with runtime_ext.profile():`" in done.stderr
    assert not (tmp_path / "p.json").exists()


OVERLOADED_TOML = """
[package]
name = "overloaded_profile"

[graphs.doubled_sum]
function = "model:doubled_sum"
signature = ["float64(float64[::1])", "float32(float32[::1])"]
"""

OVERLOADED_SCRIPT = """
import io, json, sys
sys.path.insert(0, {folder!r})
import numpy as np
import overloaded_profile

printed = io.StringIO()
with overloaded_profile.profile(file=printed) as report:
    for _ in range(30):
        overloaded_profile.doubled_sum(np.ones(1000))
    for _ in range(20):
        overloaded_profile.doubled_sum(np.ones(1000, np.float32))
print(json.dumps({{"rows": report.rows, "table": printed.getvalue()}}))
"""


def test_the_table_totals_a_graph_over_every_signatures_entry(tmp_path) -> None:
    """Each signature's entry times its own calls: the graph's line adds them up, and neither
    is listed among the Ops (as ``aotbuild inspect --profile`` counts them)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "graphs.toml").write_text(OVERLOADED_TOML)
    (project / "model.py").write_text(
        "import numpy as np\n\n\ndef doubled_sum(x):\n    return np.sum(x * 2)\n"
    )
    result = build(
        project / "graphs.toml", out_dir=str(tmp_path / "out"), profile=True, progress=Progress(quiet=True)
    )
    script = OVERLOADED_SCRIPT.format(folder=str(result.package_dir.parent))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    manifest = json.loads((result.package_dir / "manifest.json").read_text())
    graph = manifest["graphs"]["doubled_sum"]
    entries = {record["entry"] for record in graph["overloads"]}
    assert len(entries) == 2 and set(graph["entries"]) == entries
    totals = {symbol: (calls, seconds) for _, symbol, _, calls, seconds in seen["rows"] if symbol in entries}
    assert sorted(calls for calls, _ in totals.values()) == [20, 30]
    lines = seen["table"].splitlines()
    assert lines[0].startswith("graph doubled_sum: 50 call(s)"), lines[0]
    titles = {manifest["ops"][symbol]["title"][:56] for symbol in entries}
    assert not [line for line in lines[1:] if any(title in line for title in titles)], (
        "an entry listed as an Op"
    )
