"""Kernel analysis: lifted globals, helpers found by typing, and clear refusals."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from aotbuild.config.signature import parse_signature
from aotbuild.errors import KernelError
from aotbuild.trace.kernels import KernelAnalyser

SOURCE = """
import math
import numpy as np
from numba import njit
from numpy import sqrt as square_root

SCALE = 2.5
TABLE = np.array([1.0, 2.0])
SETTINGS = {"a": 1}


def helper(v):
    return v * SCALE


@njit
def jitted(v, w):
    return helper(v) + w


def kernel(x, n):
    total = 0.0
    for i in range(n):
        total += jitted(x[i], TABLE[0]) + square_root(math.fabs(x[i]))
    return total + helper(n)


def uses_module(x):
    m = mod  # a project module used other than as mod.attribute
    return np.sum(x) + m.helper(x)


def uses_dict(x):
    return x[0] + SETTINGS["a"]


def recursive(n):
    if n <= 0:
        return 0
    return recursive(n - 1) + 1


def returns_list(x):
    return [x[0]]


@njit(parallel=True)
def parallel(x):
    return x.sum()
"""


@pytest.fixture()
def module(tmp_path: Path, monkeypatch):
    name = f"kernel_source_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text(SOURCE)
    (tmp_path / "mod.py").write_text("def helper(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = importlib.import_module(name)
    loaded.mod = importlib.import_module("mod")
    yield loaded, tmp_path
    sys.modules.pop(name, None)


def analyse(module, function: str, signature: str):
    loaded, root = module
    return KernelAnalyser(root).kernel(getattr(loaded, function), parse_signature(signature))


def test_globals_are_lifted_and_helpers_found(module) -> None:
    unit = analyse(module, "kernel", "float64(float64[:], int64)")
    assert unit.origin == f"{module[0].__name__}.py:21"
    assert "import math" in unit.imports and "import numpy as np" in unit.imports
    assert "from numpy import sqrt as square_root" in unit.imports
    assert "TABLE = np.array([1.0, 2.0], dtype=np.float64)" in unit.constants
    helpers = dict(unit.helpers)
    assert set(helpers) == {"jitted", "helper"}
    (jitted,) = helpers["jitted"]
    assert str(jitted.signature) == "float64(float64, float64)"
    # jitted calls helper with a float; the kernel calls it with an int: two variants.
    assert str(dict(jitted.helpers)["helper"][0].signature) == "float64(float64)"
    assert [str(v.signature) for v in helpers["helper"]] == ["float64(int64)"]
    assert "SCALE = 2.5" in helpers["helper"][0].constants
    assert unit.source.startswith("def kernel(x, n):")


def test_declared_result_must_match(module) -> None:
    with pytest.raises(KernelError, match=r"returns float64, but its signature declares int64"):
        analyse(module, "kernel", "int64(float64[:], int64)")


@pytest.mark.parametrize(
    ("function", "signature", "message"),
    [
        (
            "uses_module",
            "float64(float64[:])",
            r"uses the module `mod` \(mod\) other than as `mod.function\(...\)` or `mod.CONSTANT`",
        ),
        (
            "uses_dict",
            "float64(float64[:])",
            r"uses the global `SETTINGS` \(dict\), which aotbuild cannot lift",
        ),
        ("recursive", "int64(int64)", r"calls itself .* recursive helpers are not supported"),
        ("returns_list", "float64(float64[:])", r"returns list\(float64\)"),
        ("parallel", "float64(float64[:])", r"parallel=True"),
    ],
)
def test_refusals(module, function: str, signature: str, message: str) -> None:
    with pytest.raises(KernelError, match=message):
        analyse(module, function, signature)


def test_modules_installed_in_any_site_packages_on_the_path_are_libraries(tmp_path, monkeypatch) -> None:
    """pip's isolated build environments install NumPy and numba into a site-packages of their
    own, on sys.path but not among sysconfig's folders: their modules are still libraries."""
    import importlib
    import sys

    from aotbuild.trace.lifting import _is_library_module

    site = tmp_path / "pip-build-env" / "overlay" / "lib" / "site-packages"
    (site / "isolated_lib").mkdir(parents=True)
    (site / "isolated_lib" / "__init__.py").write_text("")
    (tmp_path / "project").mkdir()
    monkeypatch.syspath_prepend(str(site))
    module = importlib.import_module("isolated_lib")
    assert _is_library_module(module, tmp_path / "project")
    monkeypatch.delitem(sys.modules, "isolated_lib")
