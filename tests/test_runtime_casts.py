"""``cast = "same_kind"``: arrays of another dtype are converted for the call, never written."""

from __future__ import annotations

import numpy as np
import pytest

from aotbuild.build import build
from aotbuild.errors import ConfigError, KernelError

from .conftest import load_package, write_project


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


def test_arrays_of_another_kind_are_converted(package) -> None:
    x = np.linspace(0.0, 1.0, 7)
    for given in (x.astype(np.float32), np.arange(7), x.astype(">f8"), x[::2].astype(np.float32)):
        expected = given.astype(np.float64) * 3.0
        np.testing.assert_array_equal(package.scaled_any(given, 3.0), expected)
    np.testing.assert_array_equal(
        package.smooth_any(x[::2].astype(np.float32)),
        package.smooth(x[::2].astype(np.float32).astype(np.float64)),
    )
    assert package.scaled_any(x, 2.0).base is not x  # a float64 array goes straight through


def test_casts_are_same_kind_only(package) -> None:
    with pytest.raises(
        TypeError, match=r"scaled_any\(\) argument 'x' must have dtype float64 .* or one that casts"
    ):
        package.scaled_any(np.ones(3, np.complex128), 1.0)
    with pytest.raises(TypeError, match=r"must have dtype float64 \(float64\[:\]\), got float32"):
        package.scaled(np.ones(3, np.float32), 1.0)  # the same function without cast
    with pytest.raises(TypeError, match=r"must be C-contiguous"):
        package.smooth_any(
            np.ones(6)[::2],
        )  # cast converts dtypes, not layouts


def test_a_cast_copy_keeps_no_reference(package) -> None:
    import sys

    x = np.ones(5, np.float32)
    count = sys.getrefcount(x)
    for _ in range(100):
        package.scaled_any(x, 2.0)
    assert sys.getrefcount(x) == count


WRITER = """
def fill_ones(out, values):
    for i in range(out.shape[0]):
        out[i] = values[i]


def reads(values):
    return values.sum()
"""


def test_casting_an_array_a_kernel_writes_is_refused(tmp_path) -> None:
    graphs = """[package]\nname = "casts_ext"\n
[graphs.fill]\nfunction = "writer:fill_ones"\nsignature = "none(float64[:], float64[:])"\nmode = "kernel"\ncast = "same_kind"
"""
    project = write_project(tmp_path / "writer", graphs, {"writer.py": WRITER})
    with pytest.raises(KernelError) as raised:
        build(project, out_dir=str(tmp_path / "out"))
    message = str(raised.value)
    assert "[graphs.fill] cast = 'same_kind' would hand the kernel a converted copy of 'out'" in message
    assert "writer.py:4: `out[i]` is assigned" in message


def test_cast_values_are_checked(tmp_path) -> None:
    graphs = """[package]\nname = "casts_ext"\n
[graphs.reads]\nfunction = "writer:reads"\nsignature = "float64(float64[:])"\nmode = "kernel"\ncast = "unsafe"
"""
    project = write_project(tmp_path / "bad", graphs, {"writer.py": WRITER})
    with pytest.raises(
        ConfigError, match=r"\[graphs.reads\].*cast.*expected one of 'no', 'same_kind', got 'unsafe'"
    ):
        build(project, out_dir=str(tmp_path / "out"))
