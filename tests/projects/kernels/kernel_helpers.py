"""Helpers a kernel reaches as `kernel_helpers.f(...)` (tests/test_kernels.py)."""

import numpy as np

SCALE = 2.5


def clamp_scaled(v, low, high):
    return min(max(v * SCALE, low), high)


def smooth(x, width=3, weight=1.0):
    """Defaulted parameters, called positionally, by keyword and with them left out."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        lo = max(i - width // 2, 0)
        hi = min(i + width // 2 + 1, x.shape[0])
        out[i] = weight * x[lo:hi].mean()
    return out


def wrap(i, n):
    return i % n


def clip_index(i, n):
    return min(max(i, 0), n - 1)


def shifted(x, k, mode=wrap):
    """A function-valued default: compiled in, as the call leaves it out."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[mode(i + k, x.shape[0])]
    return out


def shifted_clipped(x, k, mode=clip_index):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[mode(i + k, x.shape[0])]
    return out


def binomial(n, k):
    """Direct self-recursion."""
    if k == 0 or k == n:
        return 1
    return binomial(n - 1, k - 1) + binomial(n - 1, k)
