"""NumPy calls numba refuses, in kernels (tests/test_kernel_numpy.py): reductions with axis and
keepdims, abs() of an array, Python types as dtypes."""

import numpy as np


def channel_stats(images):
    mean = np.mean(images, axis=(1, 2), keepdims=True)
    peak = images.max(axis=2)
    low = np.min(images, axis=0)
    total = np.sum(images, axis=1, keepdims=True)
    positive = np.zeros(images.shape[0], dtype=bool)
    for c in range(images.shape[0]):
        positive[c] = mean[c, 0, 0] > 0
    return mean, peak, low, total, positive


def logic_and_products(m):
    return (
        np.any(m > 0, axis=1),
        (m > -1).all(axis=0),
        np.prod(m, axis=-1),
        np.amax(m, axis=(0, 1), keepdims=True),
        m.mean(1).max(0),
    )


def magnitudes(z):
    return abs(z)


def counts(x):
    return x.astype(int), np.ones(x.shape[0], dtype=complex), np.full(3, 7, dtype=int)


def conversions(x):
    """astype with NumPy dtypes as before: every spelling numba takes."""
    return (
        x.astype(np.float32),
        x.astype(np.int32),
        x.astype("int16"),
        x.astype(np.dtype("uint8")),
        x.astype(bool),
    )


def sums(x):
    """x.sum(...) as NumPy takes it: keepdims, dtype, and numba's own forms."""
    return (
        x.sum(1, keepdims=True),
        x.sum(),
        x.sum(0),
        x.sum(axis=1, dtype=np.float32),
        x.sum(axis=(0, 1), keepdims=True),
        x.sum(axis=0, dtype=np.float32, keepdims=True),
    )
