"""Kernels may use NumPy calls numba refuses and the tracer understands: reductions with
``axis``/``keepdims`` (functions and array methods), ``abs()`` of an array, Python types as
dtypes; each gives NumPy's answer."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from .conftest import PROJECTS, load_package

sys.path.insert(0, str(PROJECTS / "kernel_numpy"))
import kernel_numpy  # noqa: E402


@pytest.fixture(scope="module")
def package(build_project):
    return load_package(build_project(PROJECTS / "kernel_numpy" / "graphs.toml"))


def same(got, expected) -> None:
    for g, e in zip(got, expected, strict=True):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        # float32 sums add in another order than NumPy's pairwise one
        np.testing.assert_allclose(g, e, rtol=1e-5 if np.asarray(e).dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 1, 1), (2, 7, 1)])
def test_reductions_with_axis_and_keepdims(package, shape) -> None:
    images = np.random.default_rng(sum(shape)).normal(size=shape)
    same(package.channel_stats(images), kernel_numpy.channel_stats(images))
    same(package.channel_stats(images[:, ::-1]), kernel_numpy.channel_stats(images[:, ::-1]))
    m = images.reshape(shape[0], -1)
    same(package.logic_and_products(m), kernel_numpy.logic_and_products(m))
    same(package.sums(m), kernel_numpy.sums(m))
    same(package.sums(m.T), kernel_numpy.sums(m.T))


def test_an_empty_maximum_raises_numpys_error(package) -> None:
    with pytest.raises(ValueError, match="zero-size array"):
        package.channel_stats(np.zeros((2, 3, 0)))


def test_abs_of_a_complex_array_and_python_types_as_dtypes(package) -> None:
    z = np.array([3 + 4j, -1j, 0j])
    same((package.magnitudes(z),), (kernel_numpy.magnitudes(z),))
    x = np.array([1.7, -2.2, 3.0, 0.0, np.nan])
    same(package.counts(x[:3]), kernel_numpy.counts(x[:3]))
    same(package.conversions(x[:4]), kernel_numpy.conversions(x[:4]))
    assert package.conversions(x)[4].tolist() == x.astype(bool).tolist()  # nan is True


def test_masks_of_two_dimensions_read_and_written(package) -> None:
    """numba alone stopped with an AssertionError (an internal error of the build)."""
    args = (-2.0, 1.0, -1.5, 1.5, 40.0, 25, 2.0)
    got = package.escape_counts(*args)
    np.testing.assert_array_equal(got, kernel_numpy.escape_counts(*args))
    assert got.shape == (40, 40) and len(np.unique(got)) > 5


def test_imports_inside_the_function(package) -> None:
    keys = np.sort(np.random.default_rng(3).integers(0, 9, 60))
    values = np.random.default_rng(4).normal(size=60)
    same(package.group_means(keys, values), kernel_numpy.group_means(keys, values))
    same(package.group_means(keys[:1], values[:1]), kernel_numpy.group_means(keys[:1], values[:1]))


@pytest.mark.parametrize("wrap", [True, False])
def test_tile_with_a_count_known_at_run_time(package, wrap) -> None:
    x = np.random.default_rng(5).uniform(0, 10.0, 7)
    same((package.pair_offsets(x, 10.0, wrap),), (kernel_numpy.pair_offsets(x, 10.0, wrap),))
    same((package.pair_offsets(x[::-2], 10.0, wrap),), (kernel_numpy.pair_offsets(x[::-2], 10.0, wrap),))
    assert package.pair_offsets(x[:0], 10.0, wrap).shape == (0, 0)


def test_tuple_default_as_an_array_and_rows_enumerated(package) -> None:
    db = np.random.default_rng(6).integers(-1, 8, (50, 4))
    np.testing.assert_array_equal(package.matching_rows(db), kernel_numpy.matching_rows(db))
    np.testing.assert_array_equal(package.matching_rows(db.T.copy().T), kernel_numpy.matching_rows(db))


def test_ndindex_with_tuple_indices_through_a_function_default(package) -> None:
    a = np.random.default_rng(7).normal(size=(4, 5))
    same((package.neighbour_sums(a),), (kernel_numpy.neighbour_sums(a),))
    same((package.neighbour_sums(a.T),), (kernel_numpy.neighbour_sums(a.T),))
