"""Reductions whose order decides their bits: NumPy's pairwise sums, row by row and column by
column (tests/test_reductions.py)."""

import numpy as np


def total(x):
    return np.sum(x)


def total32(x):
    return np.sum(x)


def total_complex(z):
    return np.sum(z)


def row_sums(m):
    return m.sum(axis=1)


def column_sums(m):
    return m.sum(axis=0)


def row_means32(m):
    return m.mean(axis=1, keepdims=True)


def plane_sums(c):
    return c.sum(axis=(1, 2))


def outer_inner_sums(c):
    return c.sum(axis=(0, 2))


def leading_sums(c):
    return c.sum(axis=(0, 1))


def grand_total(c):
    return c.sum()


def squared_distance(x, y):
    return np.sum((x - y) ** 2)


def centred_square_means(m, centre):
    return ((m - centre) ** 2).mean(axis=1)


def plane_deviations(c, m):
    """A fused value over two trailing axes: read as one row of each plane where c and m are
    C-contiguous there and m is not broadcast along them."""
    return ((c - m) ** 2).mean(axis=(1, 2))


def plane_variances32(c):
    """The plane's mean is one value per run (its axes are known to be 1 there)."""
    centred = c - c.mean(axis=(1, 2), keepdims=True)
    return (centred * centred).sum(axis=(1, 2))


def sum_of_squares(x):
    """A fused sum of one any-layout array: read as C-contiguous, a copy where strided."""
    return np.sum(x * x)


def largest_deviations(x, y):
    """Fused maxima of 1-d arrays (no pairwise sum: not read as C-contiguous rows)."""
    return np.max(np.abs(x - 1.0)), np.max(x * y)


def row_square_sums(m):
    """Declared C order: every run is a row known to be contiguous (no checked path)."""
    return (m * m).sum(axis=1)


def row_doubled_sums(z):
    """Complex: z * z is not NumPy's bits in numba (its complex product), z + z is."""
    return (z + z).sum(axis=1)


def plane_square_means(c):
    return (c * c).mean(axis=(1, 2))


def column_products(m):
    return np.prod(m, axis=0)


def row_extremes(m):
    return m.max(axis=1), m.min(axis=1), (m > 0).any(axis=1), (m > -3).all(axis=1)


def column_extremes(m):
    return m.max(axis=0), m.min(axis=0)


def integer_sums(k):
    return k.sum(axis=1), k.sum(axis=0), k.sum()


def means_of_others(k, b):
    return k.mean(axis=1), b.mean(axis=0), np.sum(k, axis=1, dtype=np.float64)


# Indices known when compiling (the radon model's counties): checked once, not at every call.
SORTED_GROUPS = np.repeat(np.arange(6), [3, 1, 0, 5, 2, 4])
SHUFFLED_GROUPS = np.array([4, 0, 2, 0, 4, 1, 7, 2])


def constant_groups(w, v):
    """Weighted bincounts and gathers by constant indices (sorted and not)."""
    return (
        np.bincount(SORTED_GROUPS, weights=w),
        np.bincount(SHUFFLED_GROUPS, weights=w[:8], minlength=10),
        v[SORTED_GROUPS] * 2.0,
        v[SHUFFLED_GROUPS],
    )


# Long enough for lanes (aotbuild.codegen.movement.bincount_lanes): values in runs, one per value,
# not sorted, one value absent, one run of 400 across where lanes would split, runs of 1.
_RUN_VALUES = np.array([7, 3, 0, 12, 5, 9, 1, 11, 2, 8, 4, 10])
GROUPED = np.repeat(_RUN_VALUES, [40, 400, 1, 90, 130, 1, 77, 64, 3, 150, 99, 45])


def grouped_bincount(w):
    """A weighted bincount by constant grouped values, and by the same values' first 100."""
    return np.bincount(GROUPED, weights=w), np.bincount(GROUPED[:100], weights=w[:100], minlength=15)


def rows_of_column_five(x, rows):
    """A constant index beside a run-time one: NumPy checks neither when ``rows`` is empty."""
    return x[rows, [5]]


def bincounts(k, w):
    return np.bincount(k), np.bincount(k, weights=w, minlength=k.shape[0] // 2)
