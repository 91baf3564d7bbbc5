"""Arithmetic-heavy programs for bench_targets.py: where the CPU target (vector width, FMA)
decides the speed, not memory or BLAS."""

import numpy as np


def gauss_poly(x):
    """A reduction of exp times a polynomial (Horner): exp, multiplies and adds per element."""
    return np.sum(np.exp(-0.5 * x * x) * (1.0 + x * (0.5 + x * (0.25 + x * 0.125))))


def blend(x, y):
    """An elementwise chain with a square root and absolute values."""
    return 1.5 * x + 0.5 * y * y - np.sqrt(np.abs(x * y) + 1.0)


def row_energy(m):
    """Row sums of squares of a matrix."""
    return np.sum(m * m, axis=1)
