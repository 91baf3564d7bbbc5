"""The overloads kernels get beyond numba (aotbuild/compile/overloads.py, masks.py,
array_likes.py), compiled here by numba's JIT with them registered: NumPy's values, and numba's
own behaviour kept where it had one."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from aotbuild.compile.overloads import register

register()


def jit(function):
    return numba.njit(function)


def same(got, expected) -> None:
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected, strict=True):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)


# --- boolean masks of several dimensions ---------------------------------------------------------


def masked(a, m3, m2):
    b = a.copy()
    b[m3] = -1.0
    c = a.copy()
    c[m3] = a[m3] * 2
    d = a.copy()
    d[m2] = np.arange(4.0)  # one row per True, broadcast
    e = a.copy()
    e[m2] = 7
    f = a.copy()
    f[m3] = np.ones(1)
    return a[m3], a[m2], b, c, d, e, f


def test_masks_of_several_dimensions_give_numpys_values() -> None:
    a = np.ascontiguousarray(np.arange(24.0).reshape(2, 3, 4).transpose(2, 1, 0)).transpose(2, 1, 0)
    a = a[:, ::-1]  # strided both ways
    m3 = (a % 3) == 0
    function = jit(masked)
    same(function(a, m3, m3[:, :, 0]), masked(a, m3, m3[:, :, 0]))
    none = np.zeros_like(m3)
    same(function(a, none, none[:, :, 0]), masked(a, none, none[:, :, 0]))


def test_mask_errors() -> None:
    def select(a, m):
        return a[m]

    def assign(a, m, v):
        a[m] = v

    a = np.zeros((3, 4))
    with pytest.raises(IndexError, match="boolean index did not match indexed array"):
        jit(select)(a, np.ones((2, 4), bool))
    with pytest.raises(IndexError, match="too many indices for array"):
        jit(select)(a, np.ones((3, 4, 1), bool))
    with pytest.raises(IndexError, match="too many indices for array"):
        jit(assign)(a, np.ones((3, 4, 1), bool), 1.0)
    with pytest.raises(ValueError, match="boolean array indexing assignment cannot assign"):
        jit(assign)(a, np.ones((3, 4), bool), np.ones(5))


def test_mask_with_other_indices_is_refused_with_what_to_write() -> None:
    def mixed(a, m):
        return a[m, 0]

    with pytest.raises(
        TypingError, match=r"supported alone as an index .* \(a\[:, :, 0\]\[mask\] for a\[mask, 0\]\)"
    ):
        jit(mixed)(np.zeros((2, 3, 4)), np.ones((2, 3), bool))


def test_masked_assignment_reads_an_overlapping_value_first() -> None:
    """As numba's own 1-d masks: the value is read before any write."""

    def reverse(a, m):
        a[m] = a[0, ::-1]
        return a

    a = np.arange(8.0).reshape(2, 4)
    m = np.zeros((2, 4), bool)
    m[0] = True
    np.testing.assert_array_equal(jit(reverse)(a, m)[0], [3.0, 2.0, 1.0, 0.0])


# --- tuples and lists as arrays ----------------------------------------------------------------------


def as_arrays(m, a):
    return (
        np.bitwise_and(m, a),
        np.add(a, m),
        np.sqrt(m),
        m == a,
        a < m,
        a * [2, 3, 4],
        (m == np.bitwise_and(m, a)).all(),
        np.max(m),
        np.sum(((1.5, 2.0), (3.0, 4.0)), axis=0),
    )


def test_tuples_and_lists_are_numpys_arrays() -> None:
    a = np.arange(3)
    same(jit(as_arrays)((1, 0, 1), a), as_arrays((1, 0, 1), a))
    same(jit(as_arrays)((1, 0, 1), a[::-1]), as_arrays((1, 0, 1), a[::-1]))


def test_tuples_keep_their_python_meaning() -> None:
    def python(m, a):
        return m + m, m == m, m != (1, 0, 2)

    m = (1, 0, 1)
    assert jit(python)(m, np.arange(3)) == python(m, np.arange(3))


def test_tuples_into_arrays_in_place_and_as_out() -> None:
    def in_place(a, m):
        b = a.copy()
        b += m
        c = a.copy()
        np.add(m, a, c)
        return b, c

    a = np.arange(3.0)
    same(jit(in_place)(a, (1, 0, 1)), in_place(a, (1, 0, 1)))


# --- np.tile -------------------------------------------------------------------------------------

TILE = numba.njit(lambda a, reps: np.tile(a, reps))


@pytest.mark.parametrize(
    ("a", "reps"),
    [
        (np.arange(3.0), 2),
        (np.arange(6).reshape(2, 3)[:, ::2], (2, 1, 2)),
        (np.arange(3.0), ()),
        (np.arange(3.0), (0, 2)),
        (np.arange(3.0)[:0], (2, 2)),
        (5, 3),
        ((1, 2), (2, 2)),
        (np.arange(3.0), (2, np.int32(3))),
    ],
)
def test_tile_gives_numpys_array(a, reps) -> None:
    got = TILE(a, reps)
    same(got, np.tile(a, reps))
    assert got.flags.c_contiguous and (not isinstance(a, np.ndarray) or not np.shares_memory(got, a))


def test_tile_counts_known_at_run_time_and_negative_ones() -> None:
    x = np.arange(4.0)
    same(jit(lambda x: np.tile(x, (len(x), 1)))(x), np.tile(x, (4, 1)))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        TILE(x, (-1, 1))
