"""Several signatures under one name (``signature = [...]``), as numba's ``@njit([sig1, sig2])``.

The fixture project (projects/numpy_surface) declares the functions of ``array_functions.py``
under several signatures each. The package picks one per call as numba's dispatcher does: the
first, in the declared order, that the arguments match exactly, else the first they convert to;
none: a TypeError listing every signature. Calls from numba's JIT pick likewise.
"""

from __future__ import annotations

import json
import sys

import numba
import numpy as np
import pytest

from .conftest import PROJECTS, load_package

sys.path.insert(0, str(PROJECTS / "numpy_surface"))
import array_functions as fns  # noqa: E402

NJIT = numba.njit(["float64(float64[:])", "float32(float32[:])", "int64(int64[:])"])(fns.norm1)


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "numpy_surface" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_each_signature_runs_for_its_own_types(package, dtype) -> None:
    x = np.array([1, -2, 3, -4], dtype=dtype)
    got = package.norm1(x)
    assert type(got) is np.dtype(dtype).type  # the signature's own result type
    assert got == fns.norm1(x) == NJIT(x)


def test_exact_matches_first_then_the_first_that_converts(package) -> None:
    x32, x64 = np.arange(4, dtype=np.float32), np.arange(4.0)
    assert package.scale(x32, np.float32(2)).dtype == np.float32  # exact
    assert package.scale(x32, 2.0).dtype == np.float32  # a Python float converts to float32
    assert package.scale(x64, np.float32(2)).dtype == np.float64  # the array decides
    assert package.scale(x64, 2).dtype == np.float64
    np.testing.assert_array_equal(package.scale(x64 + 0j, 1j), x64 * 1j)
    assert package.scale(x=x64, s=3.0)[1] == 3.0  # keywords bind before the choice


def test_strided_and_contiguous_signatures(package) -> None:
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(package.row_sums(a), a.sum(axis=1))  # [:, ::1]
    np.testing.assert_array_equal(package.row_sums(a[:, ::2]), a[:, ::2].sum(axis=1))  # [:, :]
    b = a.astype(np.float32)
    assert package.row_sums(b[::-1]).dtype == np.float32


def test_kernels_under_several_signatures(package) -> None:
    assert package.count_above(np.array([0.5, 2.0, 3.0]), 1.0) == 2
    assert package.count_above(np.array([1, 5, 7], dtype=np.int32), np.int32(4)) == 2
    assert package.count_above(np.array([1, 5, 7], dtype=np.int32), 4) == 2  # int converts


def test_cast_same_kind_converts_arrays_after_exact_matches(package) -> None:
    x32 = np.arange(3, dtype=np.float32)
    result = package.scale_cast(x32, 2.0)
    assert result.dtype == np.float64  # float32 casts to the first signature's float64
    out = np.zeros(3, dtype=np.complex128)
    assert package.scale_cast(np.arange(3.0) + 0j, 1j, out=out) is out
    np.testing.assert_array_equal(out, np.arange(3.0) * 1j)


def test_no_match_is_a_type_error_listing_every_signature(package) -> None:
    with pytest.raises(TypeError) as info:
        package.norm1(np.zeros(3, dtype=np.int8))
    message = str(info.value)
    assert "norm1(): no signature matches the arguments (array(int8, 1d, C))" in message
    assert "float64(float64[:]); float32(float32[:]); int64(int64[:])" in message
    with pytest.raises(TypeError, match=r"no signature matches the arguments \(list\)"):
        package.norm1([1.0, 2.0])
    with pytest.raises(TypeError, match="missing required argument 's'"):
        package.scale(np.zeros(2))
    with pytest.raises(TypeError, match="no signature matches the arguments"):
        package.scale(np.zeros((2, 2)), 1.0)  # dimensions decide too


def test_help_stubs_graphs_and_manifest_list_every_signature(package, built) -> None:
    assert package.norm1.__doc__.splitlines()[:3] == [
        "norm1(float64[:]) -> float64",
        "norm1(float32[:]) -> float32",
        "norm1(int64[:]) -> int64",
    ]
    assert package.__graphs__["norm1"]["signatures"] == (
        "float64(float64[:])",
        "float32(float32[:])",
        "int64(int64[:])",
    )
    manifest = json.loads((built.package_dir / "manifest.json").read_text())
    overloads = manifest["graphs"]["norm1"]["overloads"]
    assert [o["signature"] for o in overloads] == list(package.__graphs__["norm1"]["signatures"])
    assert len({o["entry"] for o in overloads}) == 3  # each its own symbol
    stub = (built.package_dir / "__init__.pyi").read_text()
    assert stub.count("@overload\ndef norm1(") == 3
    assert "def norm1(x: npt.NDArray[np.int64]) -> np.int64:" in stub


def test_numba_callers_pick_the_signature_by_declaration(package) -> None:
    norm1, scale = package.norm1, package.scale

    @numba.njit
    def caller(a, b, c):
        return norm1(a), norm1(b), norm1(c), scale(b, np.float32(2.0))

    a = np.array([1.0, -2.0])
    got = caller(a, a.astype(np.float32), np.array([3, -4]))
    assert got[:3] == (3.0, 3.0, 7)
    assert got[3].dtype == np.float32
    with pytest.raises(numba.core.errors.TypingError, match="norm1"):
        numba.njit(lambda x: norm1(x))(np.zeros(2, dtype=np.int8))


def test_inspect_lists_each_signature_and_its_entry(built) -> None:
    from aotbuild.inspect import describe_graphs

    text = describe_graphs(built.package_dir, "norm1")
    assert "norm1(x): float64(float64[:]) | float32(float32[:]) | int64(int64[:])" in text
    assert text.count("  signature ") == 3
    ufunc = describe_graphs(built.package_dir, "addf")
    assert "addf(a, b): int64(int64, int64) | float64(float64, float64)" in ufunc
    assert "numpy.ufunc, loops int64(int64, int64), float64(float64, float64), identity 0" in ufunc
    assert "(n),(n),(n)->() (generalized)" in describe_graphs(built.package_dir, "wdot")
