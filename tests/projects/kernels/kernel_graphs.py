"""Kernels: numba code compiled as written (tests/test_kernels.py)."""

import math

import kernel_helpers
import numpy as np
from kernel_helpers import binomial, shifted_clipped, smooth
from numba import njit

COEFFS = np.array([1.0, -2.0, 0.5, 3.0])
LIMIT = 1e6


def clamp(value, low, high):
    """A plain-Python helper: compiled once, called by declaration from two kernels."""
    return min(max(value, low), high)


@njit
def dot(x, y):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * y[i]
    return total


@njit
def norm2(x):
    """An @njit helper that calls another helper."""
    return math.sqrt(dot(x, x))


def clip_inplace(x, low, high):
    for i in range(x.shape[0]):
        x[i] = clamp(x[i], low, high)


def count_clipped(x, low, high):
    count = 0
    for i in range(x.shape[0]):
        if clamp(x[i], low, high) != x[i]:
            count += 1
    return count


def scale_rows(a, factors):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] *= factors[i]


def tail(x):
    return x[1:]


def identity(x):
    return x


def mean_and_norm(x):
    total = 0.0
    for value in x:
        total += value
    return total / x.shape[0], norm2(x)


def polyval(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        acc = 0.0
        for c in COEFFS:
            acc = acc * x[i] + c
        out[i] = min(acc, LIMIT)
    return out


def checked_sqrt(value):
    if value < 0.0:
        raise ValueError("checked_sqrt: negative input")
    return math.sqrt(value)


def row_sums(a):
    out = np.zeros(a.shape[0], dtype=np.float32)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] += a[i, j]
    return out


def mixed(flags, n, scale):
    """Booleans, a narrow integer and float32 scalars in and out."""
    out = np.empty(flags.shape[0], dtype=np.int32)
    for i in range(flags.shape[0]):
        out[i] = n if flags[i] else -n
    return out, np.float32(scale * 2)


def scaled_clip(x, high):
    """Helpers and constants reached through a module of the project, as written."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = kernel_helpers.clamp_scaled(x[i], 0.0, high) + kernel_helpers.SCALE
    return out


WEIGHTS = {"trend": 0.75, "noise": 0.25, 2: 10.0}


def smoothed(x):
    """A helper's defaulted parameters left out, given by position and by keyword, through
    a module of the project and by name."""
    return (
        kernel_helpers.smooth(x)
        + kernel_helpers.smooth(x, 5)
        + smooth(x, weight=WEIGHTS["trend"])
        + smooth(x, width=1, weight=WEIGHTS["noise"])
    )


def rolled(x, k):
    return kernel_helpers.shifted(x, k) - shifted_clipped(x, k)


def weighted(x, key):
    """A module-level dict read with constant keys and with one known only at run time."""
    total = WEIGHTS["trend"] * x.sum() + WEIGHTS[key] + len(WEIGHTS)
    return total if "noise" in WEIGHTS else -total


def pascal_row(n):
    out = np.empty(n + 1, dtype=np.int64)
    for k in range(n + 1):
        out[k] = binomial(n, k)
    return out


def gcd(a, b):
    """A kernel calling itself."""
    return a if b == 0 else gcd(b, a % b)
