"""Exceptions from compiled code, in a process where numba and llvmlite cannot be imported.

Kernels raise what ``numba.njit`` raises for the same function and arguments — same type, same
args — including args only known at run time, index errors under ``boundscheck=True`` and
division by zero under numba's error model. A user's exception class is raised as itself when
its module is importable, else as ``RuntimeError`` naming it. Traced graphs raise NumPy's type.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from .conftest import PROJECTS

sys.path.insert(0, str(PROJECTS / "runtime"))
import runtime_graphs  # noqa: E402

X = [3.0, 1.0, 2.0]

#: (graph, args as JSON-able values: lists become float64 arrays)
KERNEL_CASES = [
    ("static_error", ([],)),
    ("runtime_values", (X, 7)),
    ("runtime_values", (X, -1)),
    ("user_class", (X, 2.5)),
    ("user_class", ([], 2.5)),
    ("through_helper", ([1.0, -2.0],)),
    ("bounds_checked", (X, 3)),
    ("bounds_checked", (X, -4)),
    ("int_division", (7, 0)),
    ("float_division", (1.0, 0.0)),
    ("int_modulo", (7, 0)),
    ("asserted", ([1.0],)),
    ("flagged", (X, True, 3)),
]

TRACED_CASES = [
    ("broadcast_add", (np.ones((2, 3)), np.ones((4, 3)))),
    ("matrix_product", (np.ones((2, 3)), np.ones((2, 3)))),
]

SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.modules["numba"] = None
    sys.modules["llvmlite"] = None
    sys.path[:0] = {paths!r}
    import numpy as np
    import runtime_ext

    def value(arg):
        return np.array(arg, dtype=np.float64) if isinstance(arg, list) else arg

    seen = []
    for name, args in {cases!r}:
        try:
            getattr(runtime_ext, name)(*map(value, args))
        except Exception as exc:
            seen.append([type(exc).__module__ + "." + type(exc).__qualname__, repr(exc.args)])
        else:
            seen.append(None)
    assert not [m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite") and sys.modules[m]]
    print(json.dumps(seen))
    """
)


def raised_without_numba(package_folder: str, *, project_importable: bool) -> list:
    paths = [package_folder] + ([str(PROJECTS / "runtime")] if project_importable else [])
    script = SCRIPT.format(paths=paths, cases=KERNEL_CASES)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def njit_raises(name: str, args: tuple) -> tuple[str, str]:
    function = getattr(runtime_graphs, name)
    compiled = function if hasattr(function, "py_func") else njit(function)
    values = [np.array(a, dtype=np.float64) if isinstance(a, list) else a for a in args]
    with pytest.raises(Exception) as caught:
        compiled(*values)
    kind = type(caught.value)
    return f"{kind.__module__}.{kind.__qualname__}", repr(caught.value.args)


@pytest.fixture(scope="module")
def package_folder(runtime_build) -> str:
    return str(runtime_build.package_dir.parent)


def test_kernels_raise_what_njit_raises(package_folder: str) -> None:
    seen = raised_without_numba(package_folder, project_importable=True)
    for (name, args), got in zip(KERNEL_CASES, seen, strict=True):
        assert got is not None, f"{name}{args} raised nothing"
        assert tuple(got) == njit_raises(name, args), f"{name}{args}"


def test_unimportable_exception_classes_become_runtime_errors(package_folder: str) -> None:
    cases = [f"{name}{args}" for name, args in KERNEL_CASES]
    seen = dict(zip(cases, raised_without_numba(package_folder, project_importable=False), strict=True))
    kind, args = seen[f"user_class{(X, 2.5)}"]
    assert kind == "builtins.RuntimeError"
    assert "runtime_errors.OutOfRange('user_class: above the limit', 0, 3.0)" in args
    assert "cannot be imported here" in args and "runtime_errors" in args
    kind, args = seen[f"user_class{([], 2.5)}"]
    assert kind == "builtins.RuntimeError" and "OutOfRange('user_class: empty')" in args
    # Builtin exception classes need no project module.
    assert seen[f"runtime_values{(X, -1)}"] == list(njit_raises("runtime_values", (X, -1)))


def test_the_traceback_shows_the_kernel_line(runtime_build) -> None:
    from .conftest import load_package

    package = load_package(runtime_build)
    with pytest.raises(IndexError) as caught:
        package.runtime_values(np.array(X), 9)
    import traceback

    frames = traceback.extract_tb(caught.value.__traceback__)
    assert ("runtime_graphs.py", "runtime_values") in [(f.filename, f.name) for f in frames]


@pytest.mark.parametrize(("name", "args"), TRACED_CASES, ids=[c[0] for c in TRACED_CASES])
def test_traced_graphs_raise_numpys_exception_type(runtime_build, name: str, args: tuple) -> None:
    from .conftest import load_package

    package = load_package(runtime_build)
    with pytest.raises(Exception) as numpy_raised:
        getattr(runtime_graphs, name)(*args)
    with pytest.raises(type(numpy_raised.value)):
        getattr(package, name)(*args)
