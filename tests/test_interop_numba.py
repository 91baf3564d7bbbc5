"""Calls from ``@numba.njit`` code into a generated package's graphs, by declaration
(templates/package/_numba.py.j2): typed from the declared signatures, the graph's symbol only
declared in the caller, exceptions as numba raises them, and a caller numba loads from its cache
in a new process running before anything else."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from .conftest import PROJECTS, cached_caller_runs, load_package

sys.path.insert(0, str(PROJECTS / "runtime"))
import runtime_graphs  # noqa: E402


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


def test_jitted_code_calls_graphs_by_declaration(package) -> None:
    @numba.njit
    def caller(x, y):
        total, largest, difference = package.summary(x, y)
        return total + largest + package.scaled(difference, 2.0).sum()

    x, y = np.arange(5.0), np.linspace(0.0, 1.0, 5)
    total, largest, difference = package.summary(x, y)
    assert caller(x, y) == total + largest + package.scaled(difference, 2.0).sum()
    assert caller(x[::2], y[::2]) == pytest.approx(caller(x[::2].copy(), y[::2].copy()))  # any layout
    text = caller.inspect_llvm(caller.signatures[0])
    for graph in ("summary", "scaled"):
        # declared by package, graph and signature (not by the code's hash: a rebuild keeps it)
        named = [
            line for line in text.splitlines() if re.search(rf'@"?aotbuild\.runtime_ext\.{graph}\.', line)
        ]
        assert any(line.startswith("declare") for line in named), graph
        assert not any(line.startswith("define") for line in named), graph
    assert "aot_graph_" not in text  # no compiled graph's code in the caller


def test_wrong_argument_types_are_typing_errors(package) -> None:
    @numba.njit
    def caller(x):
        return package.scaled(x, 2.0)

    with pytest.raises(numba.core.errors.TypingError, match=r"runtime_ext\.scaled: x is array\(float32"):
        caller(np.ones(3, np.float32))

    @numba.njit
    def complex_factor(x):
        return package.scaled(x, 1j)

    with pytest.raises(numba.core.errors.TypingError, match=r"runtime_ext\.scaled: factor is complex128"):
        complex_factor(np.ones(3))
    np.testing.assert_array_equal(caller(np.ones(3)), np.full(3, 2.0))


def test_exceptions_propagate_as_numba_raises_them(package) -> None:
    @numba.njit
    def first(x):
        return package.static_error(x)

    @numba.njit
    def at(x, i):
        return package.runtime_values(x, i)

    x = np.array([3.0, 1.0, 2.0])
    for call, reference, args in (
        (first, runtime_graphs.static_error, (np.zeros(0),)),
        (at, runtime_graphs.runtime_values, (x, 7)),  # args known at run time only
    ):
        with pytest.raises(Exception) as raised:  # noqa: PT011 - compared with numba's below
            call(*args)
        with pytest.raises(Exception) as expected:  # noqa: PT011
            numba.njit(reference)(*args)
        assert type(raised.value) is type(expected.value) and raised.value.args == expected.value.args
    assert at(x, 1) == numba.njit(runtime_graphs.runtime_values)(x, 1)


def test_nogil_graphs_from_nogil_code(package) -> None:
    @numba.njit(nogil=True)
    def caller(x):
        return package.smooth(x)

    x = np.random.default_rng(1).normal(size=50)
    np.testing.assert_array_equal(caller(x), package.smooth(x))


CALLER = """
{first}
import numpy as np

@numba.njit(cache=True)
def caller(x):
    total, largest, difference = runtime_ext.summary(x, x * 2.0)
    return total + largest + runtime_ext.scaled(difference, 3.0).sum()
"""


@pytest.mark.parametrize(
    "first",
    [
        "import numba\nimport runtime_ext",
        "import runtime_ext\nimport numba",
        # a look-up of numba's spec before its import leaves the registration waiting for it
        "import runtime_ext\nimport importlib.util\nimportlib.util.find_spec('numba')\nimport numba",
    ],
)
def test_a_cached_caller_runs_first_in_a_new_process(runtime_build, tmp_path, first) -> None:
    """The caller compiled and cached in one process, loaded from numba's cache in another and
    called before anything else; the package imported before numba (an import hook registers
    its symbols once numba is imported) and after."""
    (tmp_path / "jit_caller.py").write_text(CALLER.format(first=first))
    value, again = cached_caller_runs(
        tmp_path, runtime_build.package_dir.parent, "jit_caller.caller(np.arange(4.0))"
    )
    assert value == again
    assert (tmp_path / "cache").exists()


def test_importing_the_package_does_not_import_numba(runtime_build) -> None:
    script = "import sys, runtime_ext; print('numba' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(runtime_build.package_dir.parent)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"


def test_runtime_values_reach_the_caller_after_numba_raised_its_own(runtime_build) -> None:
    """numba's C helper keeps the merge function it first used: an exception with run-time
    values raised by numba's own code before the package is imported must not stop the graph's
    from being rebuilt."""
    script = textwrap.dedent(
        """
        import numba, numpy as np

        @numba.njit
        def own(i):
            raise ValueError("own", i)

        try:
            own(3)
        except ValueError as error:
            assert error.args == ("own", 3)
        import runtime_ext

        @numba.njit
        def caller(x, i):
            return runtime_ext.runtime_values(x, i)

        try:
            caller(np.array([3.0, 1.0]), 5)
        except IndexError as error:
            print(error.args)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(runtime_build.package_dir.parent)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "('runtime_values: index', 5, 'outside', 2, 3.0)"
