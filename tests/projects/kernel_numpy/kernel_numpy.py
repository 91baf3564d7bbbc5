"""NumPy calls numba refuses, in kernels (tests/test_kernel_numpy.py): reductions with axis and
keepdims, abs() of an array, Python types as dtypes; and issue 30's programs that numba alone does
not build (masks of two dimensions, imports inside, np.tile, tuples used as arrays)."""

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


# --- issue 30's programs, as kernels: what numba alone does not build ----------------------


def escape_counts(x0, x1, y0, y1, n, iterations, horizon):
    """Boolean masks of two dimensions, read and written (numba asserted while lowering them)."""
    xs = np.linspace(x0, x1, int(n))
    ys = np.linspace(y0, y1, int(n))
    c = xs[np.newaxis, :] + 1j * ys[:, np.newaxis]
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    for it in range(iterations):
        alive = np.abs(z) < horizon
        count[alive] = it
        z[alive] = z[alive] ** 2 + c[alive]
    return count


def group_means(keys, values):
    """An import inside the function (lifted into the kernel's module)."""
    import numpy as np
    from numpy import concatenate as join

    change = np.diff(keys) != 0
    starts = join((np.array([0]), np.where(change)[0] + 1))
    ends = join((starts[1:], np.array([keys.shape[0]])))
    sums = np.cumsum(values)
    totals = sums[ends - 1] - join((np.array([0.0]), sums[starts[1:] - 1]))
    return starts, totals / (ends - starts)


def pair_offsets(x, length, wrap):
    """np.tile with a count known at run time."""
    n = len(x)
    t = np.tile(x, (n, 1))
    d = t - t.T
    if wrap:
        half = length / 2
        d[d > half] -= length
        d[d < -half] += length
    return d


def matching_rows(db, mask=(1, 0, 1)):
    """A tuple default used as an array; enumerate over the rows of a 2-d array."""
    found = np.zeros(db.shape[0], dtype=np.bool_)
    for i, row in enumerate(db):
        head, rest = row[0], row[1:]
        found[i] = head >= 0 and (mask == np.bitwise_and(mask, rest)).all()
    return found


def wrap(i, n):
    return i % n


def neighbour_sums(a, mode=wrap):
    """The generator expressions of issue 30's program written out, as the refusal says."""
    out = np.empty_like(a)
    for pos in np.ndindex(a.shape):
        right = (mode(pos[0], a.shape[0]), mode(pos[1] + 1, a.shape[1]))
        down = (mode(pos[0] + 1, a.shape[0]), mode(pos[1], a.shape[1]))
        out[pos] = a[pos] + a[right] + a[down]
    return out
