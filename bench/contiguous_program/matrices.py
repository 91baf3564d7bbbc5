"""Matrix programs for bench_contiguous.py: loops whose speed depends on knowing the layout."""

import numpy as np


def row_energy(m):
    """Row sums of squares."""
    return np.sum(m * m, axis=1)


def standardise(m):
    """Columns centred and scaled."""
    return (m - m.mean(axis=0)) / (m.std(axis=0) + 1e-9)


def blend(a, b):
    """An elementwise chain over two matrices."""
    return np.sin(a) * np.cos(b) + 0.5 * a * b
