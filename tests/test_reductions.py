"""Reductions give NumPy's answers to the bit for C-contiguous inputs: pairwise sums in NumPy's
recursion (1-d, rows, coalesced trailing axes, complex, fused values), columns added row by row,
and the other kinds in C order; any other layout gives the same values within rounding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .conftest import PROJECTS, load_package

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, for empty means

SIZES = [0, 1, 7, 8, 9, 127, 128, 129, 136, 255, 300, 1000, 4097, 100_003]


@pytest.fixture(scope="module")
def ext(build_project):
    return load_package(build_project(PROJECTS / "reductions" / "graphs.toml"))


@pytest.fixture(scope="module")
def reference():
    import importlib
    import sys

    sys.path.insert(0, str(PROJECTS / "reductions"))
    try:
        return importlib.import_module("reductions")
    finally:
        sys.path.remove(str(PROJECTS / "reductions"))


def same_bits(got, expected) -> None:
    if isinstance(expected, tuple):
        for g, e in zip(got, expected, strict=True):
            same_bits(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if got.dtype.kind in "fc":  # a NaN is a NaN, whatever its sign and payload
        nan = np.isnan(expected)
        assert np.array_equal(np.isnan(got), nan)
        got, expected = np.where(nan, 0, got), np.where(nan, 0, expected)
    assert got.tobytes() == expected.tobytes(), f"max difference {np.max(np.abs(got - expected))}"


@pytest.mark.parametrize("n", SIZES)
def test_one_dimensional_sums_are_numpys_bits(ext, reference, n: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
    same_bits(ext.total(x), reference.total(x))
    same_bits(ext.total32(x.astype(np.float32)), reference.total32(x.astype(np.float32)))
    z = x + 1j * rng.normal(size=n)
    same_bits(ext.total_complex(z), reference.total_complex(z))
    y = rng.normal(size=n)
    same_bits(ext.squared_distance(x, y), reference.squared_distance(x, y))
    for a, b in ((x, y[:1]), (x[:1], y), (x[::-1], y), (x[::2], y[::2])):  # broadcast, strided
        same_bits(ext.squared_distance(a, b), reference.squared_distance(a, b))
        if len(a) and len(b):
            same_bits(ext.largest_deviations(a, b), reference.largest_deviations(a, b))
    for v in (x, x[::2], x[::-1], x[1::3]):  # contiguous, strided, reversed
        same_bits(ext.sum_of_squares(v), reference.sum_of_squares(v))


@pytest.mark.parametrize("shape", [(3, 0), (1, 1), (5, 7), (4, 129), (3, 300), (2, 1000), (300, 3)])
def test_row_and_column_reductions_are_numpys_bits(ext, reference, shape) -> None:
    rng = np.random.default_rng(sum(shape))
    m = rng.normal(size=shape)
    for name in ("row_sums", "column_sums", "column_products", "column_extremes"):
        same_bits(getattr(ext, name)(m), getattr(reference, name)(m))
    same_bits(ext.row_means32(m.astype(np.float32)), reference.row_means32(m.astype(np.float32)))
    centre = rng.normal(size=shape[1])
    same_bits(ext.centred_square_means(m, centre), reference.centred_square_means(m, centre))
    if shape[1]:
        same_bits(ext.row_extremes(m), reference.row_extremes(m))
    k = rng.integers(-1000, 1000, size=shape).astype(np.int32)
    same_bits(ext.integer_sums(k), reference.integer_sums(k))
    # declared C order: each run summed from its row, unchecked (short rows too, in order)
    same_bits(ext.row_square_sums_c(m), reference.row_square_sums(m))
    same_bits(ext.row_square_sums_c_parallel(m), reference.row_square_sums(m))
    z = m + 1j * rng.normal(size=shape)
    same_bits(ext.complex_row_doubled_sums_c(z), reference.row_doubled_sums(z))


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 40, 50), (2, 17, 129), (1, 1, 1000), (4, 0, 3)])
def test_several_axes_are_numpys_bits(ext, reference, shape) -> None:
    c = np.random.default_rng(7).normal(size=shape)
    for name in ("plane_sums", "outer_inner_sums", "leading_sums", "grand_total"):
        same_bits(getattr(ext, name)(c), getattr(reference, name)(c))
    c32 = c.astype(np.float32)
    same_bits(ext.plane_variances32(c32), reference.plane_variances32(c32))
    same_bits(ext.plane_square_means32_c(c32), reference.plane_square_means(c32))
    c.flags.writeable = False  # declared readonly=True, in numba's spelling
    same_bits(ext.plane_sums_readonly(c), reference.plane_sums(c))
    for m in (c[0] * 0.5, c[0, :1] * 0.5, c[0, :, :1] * 0.5):  # whole planes, then broadcast along the run
        same_bits(ext.plane_deviations(c, m), reference.plane_deviations(c, m))


def test_other_layouts_agree_within_rounding(ext, reference) -> None:
    rng = np.random.default_rng(3)
    big = rng.normal(size=(60, 700))
    for m in (big[::2, ::3], big.T, big[:, ::-1], big[5:45, 100:600]):
        for name in ("row_sums", "column_sums", "centred_square_means"):
            args = (m, rng.normal(size=m.shape[1])) if name == "centred_square_means" else (m,)
            np.testing.assert_allclose(getattr(ext, name)(*args), getattr(reference, name)(*args), rtol=1e-12)
        np.testing.assert_allclose(ext.total(m[0]), reference.total(m[0]), rtol=1e-12)
    c = rng.normal(size=(4, 50, 60))[:, ::2, 1::2]
    for name in ("plane_sums", "outer_inner_sums", "leading_sums", "grand_total"):
        np.testing.assert_allclose(getattr(ext, name)(c), getattr(reference, name)(c), rtol=1e-12)
    planes = rng.normal(size=(50, 60))[::2, 1::2]
    for m in (planes, np.ascontiguousarray(planes)):  # c strided, then c and m
        np.testing.assert_allclose(ext.plane_deviations(c, m), reference.plane_deviations(c, m), rtol=1e-12)
    c32 = c.astype(np.float32)
    np.testing.assert_allclose(ext.plane_variances32(c32), reference.plane_variances32(c32), rtol=1e-5)


def test_special_values(ext, reference) -> None:
    x = np.array([1.0, np.inf, -np.inf] + [0.5] * 200)
    same_bits(ext.total(x), reference.total(x))
    m = np.array([[np.nan, 1.0, 2.0], [3.0, -1.0, 0.0]])  # NumPy's SIMD min of ±0 picks either
    same_bits(ext.row_extremes(m), reference.row_extremes(m))
    same_bits(ext.column_extremes(m), reference.column_extremes(m))
    same_bits(ext.column_sums(np.full((3, 4), -0.0)), reference.column_sums(np.full((3, 4), -0.0)))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        ext.row_extremes(np.zeros((2, 0)))


@pytest.mark.parametrize("shape", [(3, 5), (2, 300)])
def test_reductions_of_other_dtypes_convert_as_they_read(ext, reference, shape) -> None:
    rng = np.random.default_rng(11)
    k, b = rng.integers(-50, 50, size=shape).astype(np.int32), rng.random(shape) > 0.5
    for got, expected in zip(ext.means_of_others(k, b), reference.means_of_others(k, b), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-15)


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_bincounts_add_weights_in_numpys_order(ext, reference, order: str) -> None:
    rng = np.random.default_rng(12)
    k = rng.integers(0, 40, size=1000)
    k = np.sort(k) if order == "sorted" else k
    w = rng.normal(size=1000) * 10.0 ** rng.integers(-4, 5, size=1000)
    same_bits(ext.bincounts(k, w), reference.bincounts(k, w))
    same_bits(ext.bincounts(k[::-3], w[::3]), reference.bincounts(k[::-3], w[::3]))


def test_bincount_by_constant_groups_keeps_numpys_order_in_lanes(ext, reference) -> None:
    """Lanes of additions side by side, each value's weights in NumPy's order: the same bits,
    signed zeros, infinities and NaN included; a weight count other than the values' is NumPy's
    error."""
    rng = np.random.default_rng(21)
    n = len(reference.GROUPED)
    w = rng.normal(size=n) * 10.0 ** rng.integers(-8, 9, size=n)
    same_bits(ext.grouped_bincount(w), reference.grouped_bincount(w))
    special = w.copy()
    special[[0, 41, 440, 441, 900]] = [-0.0, np.inf, -0.0, np.nan, -np.inf]
    special[530:560] = -0.0  # a whole run of negative zeros: +0.0, as NumPy adds them to zeros
    same_bits(ext.grouped_bincount(special), reference.grouped_bincount(special))
    same_bits(ext.grouped_bincount(special[::-1].copy()[::-1]), reference.grouped_bincount(special))
    same_bits(ext.grouped_bincount(np.repeat(special, 2)[::2]), reference.grouped_bincount(special))
    with pytest.raises(ValueError, match="same length"):
        ext.grouped_bincount(w[:-1])
    modules = Path(ext.__file__).parent / "_modules"
    lanes = [
        path
        for path in modules.glob("aot_bincount_*.py")
        if "lanes, each starting at a run" in path.read_text()
    ]
    assert len(lanes) == 1  # GROUPED's bincount; its first 100 values are too few for lanes


def test_constant_indices_are_checked_once_as_numpy_checks_them(ext, reference) -> None:
    rng = np.random.default_rng(13)
    w = rng.normal(size=15) * 10.0 ** rng.integers(-4, 5, size=15)
    for v in (rng.normal(size=8), rng.normal(size=20)[::-2]):  # just long enough; strided
        same_bits(ext.constant_groups(w, v), reference.constant_groups(w, v))
    with pytest.raises(IndexError, match="index out of bounds for axis 0"):
        ext.constant_groups(w, np.ones(5))  # SORTED_GROUPS reaches 5
    with pytest.raises(ValueError, match="The weights and list don't have the same length."):
        ext.constant_groups(w[:-1], np.ones(8))


def test_constant_indices_broadcast_to_nothing_are_not_checked(ext, reference) -> None:
    x = np.arange(18.0).reshape(3, 6)
    same_bits(
        ext.rows_of_column_five(x, np.array([2, 0])), reference.rows_of_column_five(x, np.array([2, 0]))
    )
    empty = np.zeros(0, np.int64)
    assert ext.rows_of_column_five(x[:, :2], empty).shape == (0,)  # NumPy's: no index is checked
    with pytest.raises(IndexError, match="index out of bounds for axis 1"):
        ext.rows_of_column_five(x[:, :2], np.array([0]))


def test_bincount_errors_are_numpys(ext) -> None:
    with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
        ext.bincounts(np.array([1, -1]), np.ones(2))
    with pytest.raises(ValueError, match="The weights and list don't have the same length."):
        ext.bincounts(np.array([1, 2]), np.ones(3))
    counts, sums = ext.bincounts(np.zeros(0, np.int64), np.zeros(0))
    assert counts.shape == sums.shape == (0,)
