"""What a generated package tells about itself: ``__graphs__``, ``help()``, ``aotbuild inspect``."""

from __future__ import annotations

import inspect
import json

import pytest

from aotbuild.cli import main

from .conftest import PROJECTS, load_package


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


def test_graphs_describe_signature_ops_and_symbol(package, runtime_build) -> None:
    manifest = json.loads((runtime_build.package_dir / "manifest.json").read_text())
    assert list(package.__graphs__) == package.__all__  # graphs.toml order
    assert sorted(package.__graphs__) == sorted(manifest["graphs"])
    summary = package.__graphs__["summary"]
    assert summary["signature"] == "Tuple(float64, float64, float64[:])(float64[:], float64[:])"
    assert summary["function"] == "runtime_graphs:summary" and summary["mode"] == "trace"
    lines = (PROJECTS / "runtime" / "runtime_graphs.py").read_text().splitlines()
    assert summary["source"] == f"runtime_graphs.py:{lines.index('def summary(x, y):') + 1}"
    assert summary["symbol"] == summary["ops"][-1] == manifest["graphs"]["summary"]["entry"]
    assert summary["ops"] == tuple(manifest["graphs"]["summary"]["ops"])
    assert package.__graphs__["bounds_checked"]["source"].startswith("runtime_graphs.py:")


def test_help_shows_the_signature_and_where_the_function_is(package) -> None:
    assert str(inspect.signature(package.runtime_values)) == "(x, i)"
    text = package.runtime_values.__doc__
    assert "runtime_values(float64[:], int64) -> float64" in text
    assert package.__graphs__["runtime_values"]["source"] in text


def test_inspect_lists_each_graph_op_by_op(runtime_build, capsys) -> None:
    assert main(["inspect", str(runtime_build.package_dir), "--graph", "summary"]) == 0
    out = capsys.readouterr().out
    assert "summary(x, y): Tuple(float64, float64, float64[:])(float64[:], float64[:])" in out
    for symbol in json.loads((runtime_build.package_dir / "manifest.json").read_text())["graphs"]["summary"][
        "ops"
    ]:
        assert symbol in out
    assert "subtract(float64[:], float64[:]) -> float64[::1]" in out  # each Op with its types
    assert "runtime_values" not in out


def test_inspect_prints_an_ops_module(runtime_build, capsys) -> None:
    entry = json.loads((runtime_build.package_dir / "manifest.json").read_text())["graphs"]["smooth"]["entry"]
    assert main(["inspect", str(runtime_build.package_dir), "--op", entry]) == 0
    assert "def smooth(x):" in capsys.readouterr().out
    assert main(["inspect", str(runtime_build.package_dir), "--op", "aot_nothing"]) == 1
    assert "has no Op 'aot_nothing'" in capsys.readouterr().err
    assert main(["inspect", "no_such_package_anywhere"]) == 1
    assert "no package 'no_such_package_anywhere'" in capsys.readouterr().err


def test_inspect_lists_the_passes_in_order(capsys) -> None:
    assert main(["inspect", "--passes"]) == 0
    out = capsys.readouterr().out
    names = [line.split(": ", 1)[0] for line in out.splitlines()]
    assert names == [
        "1. simplify",
        "2. fastmath",
        "3. complex-abs-squared",
        "4. fuse-elementwise",
        "5. fuse-arg-reductions",
        "6. fuse-updates",
    ]
    assert main(["inspect"]) == 2
    assert "inspect needs a package" in capsys.readouterr().err


def test_inspect_draws_a_graph_and_says_what_it_needs(runtime_build, capsys, tmp_path) -> None:
    package = str(runtime_build.package_dir)
    out = tmp_path / "pictures" / "smooth.dot"
    assert main(["inspect", package, "--graph", "smooth", "-o", str(out)]) == 0
    assert out.read_text().startswith('digraph "smooth" {') and "smooth.dot" in capsys.readouterr().err
    assert main(["inspect", package, "--graph", "smooth", "--format", "dot"]) == 0
    assert capsys.readouterr().out == out.read_text(), "stdout without -o, the same text"
    for arguments, message in [
        (["--format", "svg"], "a picture is of one graph: give --graph NAME"),
        (["--graph", "smooth", "-o", str(tmp_path / "smooth.png")], "give --format svg, dot or html"),
        (["--op", "aot_x", "--format", "dot"], "--op prints an Op's module; it has no picture"),
        (["--graph", "smooth", "--contiguous"], "give --format svg, dot or html"),
    ]:
        assert main(["inspect", package, *arguments]) == 2, arguments
        assert message in capsys.readouterr().err
    assert main(["inspect", package, "--graph", "smoothe", "--format", "dot"]) == 1
    assert "has no graph 'smoothe'; it has" in capsys.readouterr().err
    assert main(["inspect", package, "--profile", str(tmp_path / "none.json"), "--format", "svg"]) == 1
    assert "no profile at" in capsys.readouterr().err
    assert not (tmp_path / "smooth.png").exists()
    assert main(["inspect", package, "--graph", "smooth", "--format", "dot", "-o", str(tmp_path)]) == 1
    assert f"cannot write {tmp_path}" in capsys.readouterr().err
