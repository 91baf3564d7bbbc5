"""Traced graphs beyond single ufuncs: reductions, sizes, constants (tests/test_traced.py)."""

import numpy as np

AXES = [(None, False), (1, False), ((0, 2), True), (-1, False), ((1, 2), True)]
KINDS = ("sum", "prod", "mean", "min", "max")

#: A module-level constant array and a closure constant are lifted into the Ops that use them.
WEIGHTS = np.linspace(0.5, 2.0, 6)

#: Over a megabyte: numba's JIT would read it through its address in the compiling process; an
#: Op holds it in the shared object.
TABLE = np.arange(140_000, dtype=np.int64) % 977


def reductions(x):
    """Every reduction along several axes, with and without keepdims (x is 3-d)."""
    return tuple(
        getattr(np, kind)(x, axis=axis, keepdims=keepdims) for kind in KINDS for axis, keepdims in AXES
    )


def methods(x):
    return x.sum(axis=0), x.mean(axis=(0, 1)), x.max(axis=1, keepdims=True), x.min(), x.prod(axis=2)


def total(x):
    return np.sum(x)


def column_sums(x):
    return x.sum(axis=0)


def empty_max(x):
    return np.max(x, axis=0)


def sizes(x):
    n, m = x.shape
    return x.sum() / x.size, x.sum(axis=0) / len(x), x * n + m, x.mean(axis=1) * x.ndim


def make_scaler(offset):
    def scaled(x):
        return x * WEIGHTS + offset

    return scaled


scaled = make_scaler(np.float32(1.5))


def passthrough(x):
    return x, np.float64(3.0), WEIGHTS


def spread(t):
    """A vector gathered at a large constant's indices."""
    return t[TABLE] * 2.0 - 1.0


def lookup(i):
    """A large constant read at run-time indices (compiled as a kernel)."""
    return TABLE[i]
