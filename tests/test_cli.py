"""The command line: exit codes, one-line errors, progress, --version, python -m aotbuild."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aotbuild import __version__
from aotbuild.cli import main

from .conftest import write_project

MODEL = "import numpy as np\n\ndef f(x):\n    return np.exp(x)\n"
GOOD = (
    '[package]\nname = "cli_ext"\n\n[graphs.f]\nfunction = "model:f"\nsignature = "float64[:](float64[:])"\n'
)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("graphs", "modules", "expected"),
    [
        (
            GOOD.replace('function = "model:f"\n', ""),
            {"model.py": MODEL},
            "[graphs.f] missing required key 'function'",
        ),
        (GOOD + "colour = 1\n", {"model.py": MODEL}, "[graphs.f] unknown key 'colour'"),
        (
            GOOD.replace("float64[:](float64[:])", "float64[:](float64[)"),
            {"model.py": MODEL},
            "signature: 'float64[:](float64[)': at position",
        ),
        (
            GOOD.replace("model:f", "missing_module:f"),
            {"model.py": MODEL},
            "[graphs.f] function: cannot import module 'missing_module'",
        ),
        (
            GOOD.replace("model:f", "model:g"),
            {"model.py": MODEL},
            "[graphs.f] function: module 'model' has no attribute 'g'",
        ),
        (GOOD, {"model.py": "raise RuntimeError('boom')\n"}, "importing 'model' raised RuntimeError: boom"),
        (
            GOOD + 'mode = "trace"\n',  # the default, "auto", would compile it as a kernel
            {"model.py": "import numpy as np\n\ndef f(x):\n    return x if x.sum() > 0 else -x\n"},
            "model.py:4 (`return x if x.sum() > 0 else -x`): `if`, `while`, `and`, `or`",
        ),
        (
            GOOD,
            {"model.py": "import numpy as np\n\ndef f(x):\n    return np.unique(x)\n"},
            'np.unique is not supported by the tracer; declare the graph with mode = "kernel"',
        ),
        (
            GOOD,
            {"model.py": "import numpy as np\n\ndef f(x):\n    return x.astype(np.float32)\n"},
            "the result is float32[::1] but the signature declares float64[:]",
        ),
        (
            GOOD,
            {"model.py": "def f(x, y):\n    return x\n"},
            "parameter 'y' of 'model:f' is not covered by the signature and has no default",
        ),
    ],
)
def test_build_errors_are_one_line_and_exit_1(
    tmp_path: Path, capsys, graphs: str, modules: dict[str, str], expected: str
) -> None:
    path = write_project(tmp_path, graphs, modules)
    code, out, err = run(["compile", str(path), "-q"], capsys)
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("aotbuild: error: ")
    assert expected in lines[0]


def test_kernel_typing_errors_point_at_the_source(tmp_path: Path, capsys) -> None:
    model = "import numpy as np\n\ndef f(x):\n    y = x + 'a'\n    return x\n"
    path = write_project(tmp_path, GOOD + 'mode = "kernel"\n', {"model.py": model})
    code, _, err = run(["compile", str(path), "-q"], capsys)
    assert code == 1
    assert "numba cannot compile `model.f` (model.py:3)" in err
    assert "model.py" in err and "line 4" in err


def test_verbose_shows_the_traceback(tmp_path: Path, capsys) -> None:
    path = write_project(tmp_path, GOOD.replace("model:f", "model:g"), {"model.py": MODEL})
    code, _, err = run(["compile", str(path), "-v"], capsys)
    assert code == 1
    assert "Traceback" in err and "aotbuild: error:" in err


def test_usage_errors_exit_2(capsys) -> None:
    assert run([], capsys)[0] == 2
    assert run(["compile"], capsys)[0] == 2
    assert run(["compile", "x", "--target", "pentium"], capsys)[0] == 2
    assert run(["frobnicate"], capsys)[0] == 2


def test_version(capsys) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip() == f"aotbuild {__version__}"


def test_progress_and_python_dash_m(tmp_path: Path) -> None:
    path = write_project(tmp_path, GOOD, {"model.py": MODEL})
    result = subprocess.run(
        [sys.executable, "-m", "aotbuild", "compile", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    stages = [line.split()[1] for line in result.stderr.splitlines() if line.startswith("aotbuild: ")]
    # Not a terminal: the Op count is plain lines of the compile stage, no carriage returns.
    assert list(dict.fromkeys(stages)) == ["config", "trace", "codegen", "compile", "link", "package"]
    assert "\r" not in result.stderr
    assert Path(result.stdout.strip()) == tmp_path / "build" / "cli_ext"
    assert (tmp_path / "build" / "cli_ext" / "py.typed").exists()


EXITS = """
import atexit, pathlib, sys
from aotbuild.cli import run
atexit.register(pathlib.Path(sys.argv[1]).write_text, "exit handlers ran")
sys.argv[1:] = sys.argv[2:]
run()
"""


@pytest.mark.parametrize(("argv", "code"), [(["--version"], 0), (["frobnicate"], 2)])
def test_the_command_exits_fast_yet_runs_exit_handlers(tmp_path: Path, argv: list[str], code: int) -> None:
    """``run`` skips the interpreter's teardown, not what a normal exit does: exit handlers run,
    output reaches a pipe, the exit code is main's."""
    marker = tmp_path / "marker"
    result = subprocess.run(
        [sys.executable, "-c", EXITS, str(marker), *argv], capture_output=True, text=True, check=False
    )
    assert result.returncode == code, result.stderr
    assert marker.read_text() == "exit handlers ran"
    if code == 0:
        assert result.stdout.strip() == f"aotbuild {__version__}"
    else:
        assert "invalid choice" in result.stderr


def test_cache_info_and_clear(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AOTBUILD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("AOTBUILD_CACHE_SIZE", "2G")
    path = write_project(tmp_path / "p", GOOD, {"model.py": MODEL})
    code, out, err = run(["compile", str(path), "-q", "-j", "1", "--timings"], capsys)
    assert code == 0, err
    assert "aotbuild: the slowest of 2 compiled Ops" in err and "aot_graph_f_" in err
    code, out, _ = run(["cache", "info"], capsys)
    assert code == 0
    assert f"location  {tmp_path / 'cache'}" in out
    assert "entries   8" in out  # 2 Ops, the C module and its graph, 3 runtime objects, the .so
    assert "of 2.0 GiB" in out
    entry = next((tmp_path / "cache" / "objects").glob("*/*"))
    entry.write_bytes(entry.read_bytes()[:-1])
    code, _, err = run(["compile", str(path), "-q", "-j", "1", "--out", str(tmp_path / "again")], capsys)
    assert code == 0, err
    assert f"aotbuild: warning: damaged cache entry {entry} removed; building it again\n" in err
    assert "UserWarning" not in err
    code, out, _ = run(["cache", "clear"], capsys)
    assert code == 0 and "emptied" in out
    assert "entries   0" in run(["cache", "info"], capsys)[1]


def test_bad_jobs_and_cache_size(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(["compile", "x", "-j", "0"], capsys)
    assert code == 2 and "expected a whole number of at least 1, not '0'" in err
    assert run(["cache", "drop"], capsys)[0] == 2
    monkeypatch.setenv("AOTBUILD_CACHE_SIZE", "huge")
    path = write_project(tmp_path / "p", GOOD, {"model.py": MODEL})
    code, _, err = run(["compile", str(path), "-q"], capsys)
    assert code == 1 and "aotbuild: error: AOTBUILD_CACHE_SIZE: 'huge' is not a size" in err
