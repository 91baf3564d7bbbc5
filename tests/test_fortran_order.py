"""Fortran-ordered arrays in signatures: ``float64[::1, :]`` and ``Array(float64, 2, 'F')``.

The fixture project (projects/numpy_surface) declares graphs of ``array_functions.py`` that
take F-contiguous arrays: traced (the graph traces the transpose of the C-contiguous array the
package passes in their place) and kernels (numba's own F arrays). Each takes F-contiguous
arrays and refuses others with the layout TypeError, and gives NumPy's values.
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

RNG = np.random.default_rng(31)


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "numpy_surface" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def fortran(shape: tuple[int, ...], dtype=np.float64) -> np.ndarray:
    return np.asfortranarray(RNG.normal(size=shape).astype(dtype))


def test_traced_graphs_of_fortran_arrays_give_numpys_values(package) -> None:
    a = fortran((5, 7))
    np.testing.assert_allclose(package.column_sums(a), a.sum(axis=0), rtol=1e-14)
    w = RNG.normal(size=7)
    np.testing.assert_array_equal(package.weighted(a, w), a * w)
    np.testing.assert_array_equal(package.weighted(a, w[::-1]), a * w[::-1])
    b = RNG.normal(size=(7, 3))
    np.testing.assert_allclose(package.project(a, b), a @ b, rtol=1e-13)
    empty = np.zeros((0, 4), order="F")
    np.testing.assert_array_equal(package.column_sums(empty), np.zeros(4))


def test_elementwise_results_are_fortran_ordered_as_numpys(package) -> None:
    a = fortran((4, 6))
    result = package.scaled_matrix(a, 2.5)
    np.testing.assert_array_equal(result, a * 2.5)
    assert result.flags.f_contiguous and not result.flags.c_contiguous  # NumPy's layout
    assert (a * 2.5).flags.f_contiguous
    del a
    np.testing.assert_array_equal(result + 0, result)  # the result owns its memory
    assert package.column_sums(fortran((3, 2))).flags.c_contiguous  # a reduction: C, as NumPy's


def test_kernels_take_numbas_fortran_arrays(package) -> None:
    a = fortran((4, 6))
    assert package.diagonal_sum(a) == pytest.approx(np.trace(a), rel=1e-14)
    assert package.diagonal_sum(a) == numba.njit("float64(float64[::1, :])")(fns.diagonal_sum)(a)
    cells = np.zeros((3, 4), dtype=np.int64, order="F")
    package.number_cells(cells)  # written in place, column by column
    np.testing.assert_array_equal(cells, np.arange(3)[:, None] * 10 + np.arange(4))


@pytest.mark.parametrize("graph", ["column_sums", "diagonal_sum"])
def test_other_layouts_are_refused_with_the_layout_error(package, graph) -> None:
    a = fortran((4, 4))
    for wrong in (np.ascontiguousarray(a), a[:, ::2], a[::2, :]):
        with pytest.raises(
            TypeError,
            match=r"argument 'a' must be F-contiguous \(float64\[::1, :\]\); pass np.asfortranarray\(a\)",
        ):
            getattr(package, graph)(wrong)


def test_one_name_for_c_and_fortran_arrays(package) -> None:
    a = fortran((3, 5))
    np.testing.assert_allclose(package.column_sums_either(a), a.sum(axis=0), rtol=1e-14)
    np.testing.assert_allclose(package.column_sums_either(np.ascontiguousarray(a)), a.sum(axis=0), rtol=1e-14)
    with pytest.raises(TypeError, match="no signature matches the arguments"):
        package.column_sums_either(a[:, ::2])


def test_signatures_keep_the_declared_spelling(package, built) -> None:
    assert package.__graphs__["column_sums"]["signature"] == "float64[:](float64[::1, :])"
    manifest = json.loads((built.package_dir / "manifest.json").read_text())
    assert manifest["graphs"]["column_sums"]["fortran_parameters"] == ["a"]
    assert manifest["graphs"]["diagonal_sum"]["fortran_parameters"] == []  # a kernel: numba's F
    assert "column_sums(float64[::1, :]) -> float64[:]" in package.column_sums.__doc__


def test_numba_callers_get_a_clear_refusal_for_traced_fortran_graphs(package) -> None:
    column_sums, diagonal_sum = package.column_sums, package.diagonal_sum

    @numba.njit
    def call_kernel(a):
        return diagonal_sum(a)

    a = fortran((3, 3))
    assert call_kernel(a) == pytest.approx(np.trace(a))
    with pytest.raises(numba.core.errors.TypingError, match="parameter 'a' is Fortran-ordered"):
        numba.njit(lambda x: column_sums(x))(a)


@pytest.mark.parametrize(
    ("signature", "extra", "message"),
    [
        (
            "float64[::1, :](float64[::1, :])",
            "",
            r"a traced graph's array results are new C-contiguous arrays: declare float64\[:, :\]",
        ),
        ("float64(float64[::1, :])", 'grad = ["a"]\n', "grad: 'a' is Fortran-ordered"),
    ],
)
def test_what_traced_graphs_refuse(tmp_path, signature: str, extra: str, message: str) -> None:
    from aotbuild.config import load_config
    from aotbuild.errors import TraceError
    from aotbuild.trace.driver import project_imports, trace_project

    (tmp_path / "functions.py").write_text("def total(a):\n    return a * 2.0 if False else a.sum()\n")
    (tmp_path / "graphs.toml").write_text(
        f'[package]\nname = "f_ext"\n\n[graphs.f]\nfunction = "functions:total"\nmode = "trace"\n'
        f'signature = "{signature}"\n{extra}'
    )
    project = load_config(tmp_path / "graphs.toml")
    with project_imports(project.root), pytest.raises(TraceError, match=message):
        trace_project(project)


def matrices(rows: int, columns: int, dtype=np.float64) -> list[np.ndarray]:
    """One matrix of each way of lying in memory: C, Fortran, rows or columns reversed, a slice of
    a wider matrix (rows further apart than their length), every other row and column (neither
    contiguous: a copy goes to BLAS), a transposed slice."""
    wide = RNG.normal(size=(rows + 4, 2 * columns + 3)).astype(dtype)
    base = RNG.normal(size=(rows, columns)).astype(dtype)
    return [
        base,
        np.asfortranarray(base),
        base[::-1],
        base[:, ::-1],
        wide[2 : 2 + rows, 1 : 1 + columns],
        wide[::2, ::2][:rows, :columns],
        np.ascontiguousarray(wide.T)[1 : 1 + columns, :rows].T,
    ]


def test_matrix_products_of_every_layout_give_numpys_values(package) -> None:
    """One BLAS call reads each matrix as it lies (rows or columns contiguous, rows further apart
    than their length) and a copy of the others: every pair, complex ones, empty ones and a
    stack of matrices, as NumPy's matmul."""
    for a in matrices(5, 3):
        for b in matrices(3, 4):
            np.testing.assert_allclose(package.product_any(a, b), a @ b, rtol=1e-13)
    for rows, inner, columns in [(1, 3, 1), (4, 1, 2), (0, 3, 2), (3, 0, 2), (2, 3, 0)]:
        a, b = RNG.normal(size=(rows, inner)), RNG.normal(size=(inner, columns))
        np.testing.assert_array_equal(package.product_any(a, b), a @ b)
    c = (RNG.normal(size=(4, 3)) + 1j * RNG.normal(size=(4, 3))).astype(np.complex64)
    d = np.asfortranarray((RNG.normal(size=(3, 2)) + 1j * RNG.normal(size=(3, 2))).astype(np.complex64))
    for left in (c, c[::-1], c.T.copy().T):
        np.testing.assert_allclose(package.product_complex(left, d), left @ d, rtol=1e-5)
    stack = RNG.normal(size=(3, 4, 6)).astype(np.float32)[:, :, ::2]
    right = RNG.normal(size=(3, 2)).astype(np.float32)
    np.testing.assert_allclose(package.product_stacked(stack, right), stack @ right, rtol=1e-5)
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        package.product_any(np.ones((2, 3)), np.ones((2, 3)))
    # declared C and F: passed to BLAS without a look at their strides
    for rows, inner, columns in [(5, 3, 4), (1, 3, 1), (4, 1, 2), (0, 3, 2), (3, 0, 2), (2, 3, 0)]:
        a, b = RNG.normal(size=(rows, inner)), fortran((inner, columns))
        np.testing.assert_allclose(package.product_c_f(a, b), a @ b, rtol=1e-13)
    left, right = RNG.normal(size=(3, 4, 5)).astype(np.float32), RNG.normal(size=(3, 5, 2)).astype(np.float32)
    np.testing.assert_allclose(package.product_stacked_c(left, right), left @ right, rtol=1e-5)
    np.testing.assert_allclose(package.product_stacked_c(left[:1], right), left[:1] @ right, rtol=1e-5)
