"""``out = true``: a caller's array receives the result (checked before the graph runs)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from aotbuild.build import build
from aotbuild.errors import ConfigError

from .conftest import load_package, write_project


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


def test_the_result_lands_in_out_and_out_is_returned(package) -> None:
    x = np.linspace(0.0, 1.0, 9)
    out = np.full(9, np.nan)
    assert package.scaled_into(x, 2.0, out=out) is out
    np.testing.assert_array_equal(out, 2.0 * x)
    strided = np.zeros(18)[::2]  # any layout of the right shape
    assert package.scaled_into(x, 3.0, out=strided) is strided
    np.testing.assert_array_equal(strided, 3.0 * x)
    np.testing.assert_array_equal(package.scaled_into(x, 2.0), 2.0 * x)  # out is optional
    np.testing.assert_array_equal(package.scaled_into(x, 2.0, out=None), 2.0 * x)
    contiguous = np.ascontiguousarray(x)
    assert package.smooth_into(contiguous, out=out) is out
    np.testing.assert_array_equal(out, package.smooth(contiguous))


def test_in_place_on_an_input(package) -> None:
    x = np.arange(5.0)
    package.scaled_into(x, 2.0, out=x)
    np.testing.assert_array_equal(x, [0.0, 2.0, 4.0, 6.0, 8.0])


def test_tuples_take_one_entry_per_result(package) -> None:
    x, y = np.arange(4.0), np.ones(4)
    difference = np.empty(4)
    total, largest, got = package.summary_into(x, y, out=(None, None, difference))
    assert got is difference and (total, largest) == (6.0, 3.0)
    np.testing.assert_array_equal(difference, x - y)
    with pytest.raises(TypeError, match=r"summary_into\(\) out\[0\] must be None: result 0 is a scalar"):
        package.summary_into(x, y, out=(np.empty(()), None, difference))
    with pytest.raises(TypeError, match=r"out must be a tuple of 3"):
        package.summary_into(x, y, out=difference)


def test_out_is_checked_before_the_graph_runs(package) -> None:
    x = np.arange(4.0)
    for out, message in [
        (np.empty(4, np.float32), r"scaled_into\(\) out must have dtype float64, got float32"),
        (np.empty((4, 1)), r"out must have 1 dimension, got 2"),
        ([0.0] * 4, r"out must be a numpy.ndarray or None, not list"),
    ]:
        with pytest.raises(TypeError, match=message):
            package.scaled_into(x, 2.0, out=out)
    frozen = np.empty(4)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match=r"out must be writeable"):
        package.scaled_into(x, 2.0, out=frozen)
    with pytest.raises(ValueError, match=r"out has shape \(3,\), but the result has shape \(4,\)"):
        package.scaled_into(x, 2.0, out=np.empty(3))
    with pytest.raises(TypeError, match=r"takes 2 positional arguments but 3 were given"):
        package.scaled_into(x, 2.0, np.empty(4))  # keyword only
    with pytest.raises(TypeError, match=r"scaled\(\) got an unexpected keyword argument 'out'"):
        package.scaled(x, 2.0, out=np.empty(4))  # graphs without out = true


def test_signatures_show_out(package) -> None:
    assert str(inspect.signature(package.scaled_into)) == "(x, factor, *, out=None)"
    assert "out=" in package.scaled_into.__doc__


def test_out_needs_an_array_result(tmp_path) -> None:
    graphs = '[package]\nname = "outs_ext"\n\n[graphs.total]\nfunction = "m:total"\nsignature = "float64(float64[:])"\nout = true\n'
    project = write_project(tmp_path / "p", graphs, {"m.py": "def total(x):\n    return x.sum()\n"})
    with pytest.raises(
        ConfigError,
        match=r"\[graphs.total\].*out.*needs an array result to write into; the signature returns float64",
    ):
        build(project, out_dir=str(tmp_path / "out"))
