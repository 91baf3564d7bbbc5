"""Intrinsics the generated modules import (aotbuild.compile.intrinsics), against NumPy."""

import numba
import numpy as np
import pytest

from aotbuild.compile.intrinsics import broadcast_view


@numba.njit
def _view_2d(a, n0, n1):
    return broadcast_view(a, (n0, n1))


@pytest.mark.parametrize(
    ("source", "shape"),
    [
        (np.arange(12.0).reshape(3, 4), (3, 4)),  # nothing broadcast
        (np.arange(3.0).reshape(3, 1), (3, 5)),  # a length-1 axis
        (np.arange(4.0), (2, 4)),  # a missing leading axis
        (np.arange(1.0), (6, 1)),
        (np.arange(40.0).reshape(5, 8)[::2, ::-3], (3, 3)),  # strided and reversed
        (np.arange(40.0).reshape(5, 8)[1:2, ::2], (7, 4)),
        (np.zeros((0, 1)), (0, 9)),
    ],
)
def test_broadcast_view_is_numpys_view(source: np.ndarray, shape: tuple[int, int]) -> None:
    """The view ``np.broadcast_to`` gives: the same shape, strides (0 along a broadcast axis)
    and memory, so the same values."""
    view, expected = _view_2d(source, *shape), np.broadcast_to(source, shape)
    assert view.shape == expected.shape
    assert all(s == e for s, e, n in zip(view.strides, expected.strides, shape, strict=True) if n > 1)
    assert np.array_equal(view, expected) and (source.size == 0 or np.shares_memory(view, source))
