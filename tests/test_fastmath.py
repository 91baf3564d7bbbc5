"""``fastmath = true``: a traced graph's Ops compiled with LLVM fast-math, as their own Ops."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aotbuild.build import build
from aotbuild.errors import ConfigError
from aotbuild.progress import Progress

from .conftest import load_package, write_project

SOURCE = """
import numpy as np


def energy(x, y):
    return np.sum((x - y) ** 2) + np.sum(np.sqrt(np.abs(x)))


def powers(x):
    return np.abs(x) ** 0.5 + x**3 - x / 3.0
"""

GRAPHS = """[package]
name = "fastmath_ext"

[graphs.exact]
function = "energy:energy"
signature = "float64(float64[:], float64[:])"

[graphs.fast]
function = "energy:energy"
signature = "float64(float64[:], float64[:])"
fastmath = true

[graphs.fast_powers]
function = "energy:powers"
signature = "float64[:](float64[:])"
fastmath = true
"""


def test_fast_graphs_get_ops_of_their_own(tmp_path) -> None:
    project = write_project(tmp_path / "p", GRAPHS, {"energy.py": SOURCE})
    result = build(project, out_dir=str(tmp_path / "out"), progress=Progress(quiet=True))
    manifest = json.loads((result.package_dir / "manifest.json").read_text())
    exact, fast = (set(manifest["graphs"][name]["ops"]) for name in ("exact", "fast"))
    assert not exact & fast, "the same expression, compiled twice: with and without fast-math"
    assert all(manifest["ops"][symbol]["flags"]["fastmath"] for symbol in fast)
    assert not any(manifest["ops"][symbol]["flags"]["fastmath"] for symbol in exact)
    package = load_package(result)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=10_000), rng.normal(size=10_000)
    expected = np.sum((x - y) ** 2) + np.sum(np.sqrt(np.abs(x)))
    assert package.exact(x, y) == pytest.approx(expected, rel=1e-14)  # pairwise sums, like NumPy's
    assert package.fast(x, y) == pytest.approx(expected, rel=1e-12)
    # The inexact rewrites: sqrt for ** 0.5, products for ** 3, a multiplication for / 3.0.
    ops = [manifest["ops"][symbol] for symbol in manifest["graphs"]["fast_powers"]["ops"]]
    titles = " ".join(op["title"] for op in ops if op["kind"] == "op")
    assert "sqrt" in titles and "power" not in titles and "divide" not in titles
    np.testing.assert_allclose(
        package.fast_powers(x), np.abs(x) ** 0.5 + x**3 - x / 3.0, rtol=1e-13, atol=1e-12
    )


def test_kernels_keep_numbas_own_option(tmp_path) -> None:
    graphs = GRAPHS.replace(
        '[graphs.fast]\nfunction = "energy:energy"',
        '[graphs.fast]\nfunction = "energy:energy"\nmode = "kernel"',
    )
    project = write_project(tmp_path / "k", graphs, {"energy.py": SOURCE})
    with pytest.raises(ConfigError, match=r"fastmath = true is for traced graphs.*@njit\(fastmath=True\)"):
        build(project, out_dir=str(tmp_path / "out"))
