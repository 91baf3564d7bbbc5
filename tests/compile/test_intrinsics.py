"""Intrinsics the generated modules import (aotbuild.compile.intrinsics), against NumPy."""

import numba
import numpy as np
import pytest

from aotbuild.compile.intrinsics import all_unit, broadcast_steps, broadcast_view, unit_strides


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


@numba.njit
def _layout_checks(a, b):
    return broadcast_steps(a), broadcast_steps(b)[1], all_unit(*broadcast_steps(a)), unit_strides(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.zeros((3, 4)), np.zeros((2, 5))),
        (np.zeros((1, 4)), np.zeros((2, 1))),
        (np.zeros((3, 1)), np.zeros((0, 0))),
        (np.zeros((3, 8))[:, ::2], np.zeros((2, 5))),  # a strided row
        (np.zeros((3, 8))[:, :1], np.zeros((5, 2)).T),  # one element per row; a transposed matrix
        (np.zeros((3, 4))[::-1], np.zeros((2, 5))[:, ::-1]),  # reversed rows, reversed columns
    ],
)
def test_layout_checks_are_what_the_conditionals_they_replace_compute(a: np.ndarray, b: np.ndarray) -> None:
    """``broadcast_steps``: 0 where an axis has length 1, else 1; ``all_unit``: every step 1;
    ``unit_strides``: every array's last axis of unit stride or at most one element long."""
    steps_a, step_b, unbroadcast, unit = _layout_checks(a, b)
    assert steps_a == tuple(0 if n == 1 else 1 for n in a.shape)
    assert step_b == (0 if b.shape[1] == 1 else 1)
    assert unbroadcast == all(n != 1 for n in a.shape)
    assert unit == all(x.shape[-1] <= 1 or x.strides[-1] == x.itemsize for x in (a, b))
