"""Kernels whose loops and branches hold NumPy array statements: each run of them is traced
(aotbuild/trace/regions). Run as plain Python, each gives the expected result."""

import numpy as np


def row_offsets(points):
    out = np.empty_like(points)
    for r in range(points.shape[0]):
        out[r, :] = np.sum(points - points[r, :], axis=0)
    return out


def nearest_codeword(signal, codebook):
    out = np.empty_like(signal)
    for i in range(signal.shape[0]):
        k = np.argmin(np.abs(signal[i] - codebook) ** 2)
        out[i] = codebook[k]
    return out


def diffuse(field, steps):
    u = field.copy()
    for _ in range(steps):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += 0.1 * np.abs(lap)
        scale = max(1.0, np.max(u))
        u /= scale
    return u


def spring_chain(pos, k, rest):
    force = np.zeros_like(pos)
    for i in range(1, pos.shape[0]):
        dx = pos[i, 0] - pos[i - 1, 0]
        dy = pos[i, 1] - pos[i - 1, 1]
        length = np.sqrt(dx * dx + dy * dy)
        magnitude = k * (length - rest) / length
        f = np.array([magnitude * dx, magnitude * dy])
        force[i - 1] += f
        force[i] -= f
    return force


def escape_counts(c, iterations, horizon):
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    for it in range(iterations):
        alive = np.abs(z) < horizon
        count[alive] = it
        z[alive] = z[alive] ** 2 + c[alive]
    return count


def shift_right(x, times):
    """Each step moves the array one place right: the value read overlaps what is written."""
    u = x.copy()
    for _ in range(times):
        u[1:] = u[:-1]
    return u


def smear(a, b, times):
    """Writes into ``b`` from ``a``; called with the same array twice (aliases)."""
    for _ in range(times):
        b[1:] = a[:-1] * 0.5 + b[1:] * 0.5


def normalise_rows(a):
    """Writes into the caller's array, row by row."""
    for r in range(a.shape[0]):
        a[r] /= np.sqrt(np.sum(a[r] ** 2))


def folded_offsets(x, length, wrap):
    n = x.shape[0]
    d = np.empty((n, n))
    for i in range(n):
        d[i, :] = x - x[i]
    if wrap:
        half = length / 2
        d[d > half] -= length
        d[d < -half] += length
    return d


def shifted_rows(a):
    """Reads the row after each row: the last one is out of range (IndexError, as NumPy)."""
    out = np.empty_like(a)
    for r in range(a.shape[0]):
        out[r, :] = a[r + 1, :] * 2.0
    return out


def convolved_rows(a, w):
    """np.convolve is numba's, not the tracer's: that statement stays as written."""
    out = np.empty((a.shape[0], a.shape[1] + w.shape[0] - 1))
    total = 0.0
    for r in range(a.shape[0]):
        row = np.convolve(a[r], w)
        out[r] = row * 2.0
        total += np.sum(row * row)
    return out, total


def float32_scaled(x, steps):
    """``x * 2.5`` is float32 to NumPy 2 and float64 to numba: that statement is left to numba,
    so the kernel's types (and results) are numba's."""
    total = 0.0
    for _ in range(steps):
        y = x * 2.5
        total += np.sum(y)
    return total


def python_scalars(x, n, s):
    """Traced whole: Python's max, min, int, float, round and math on traced scalars."""
    import math

    grid = np.linspace(0.0, 1.0, int(n))
    scale = max(1.0, np.max(np.abs(x)))
    low = min(np.min(x), 0.0, s)
    extra = float(x.shape[0]) + math.sqrt(abs(s)) + math.floor(s) + round(s) + int(s)
    return grid * scale + low + extra + np.ones(int(n), dtype=int) + max(x.shape[0], 3)


def slice_updates(x, y, col):
    """Traced whole: slices assigned elementwise values, computed into the slices."""
    z = np.zeros((x.shape[0], x.shape[1]))
    z[1:, :] = x[1:] * 2.0 + y[1:]
    z[::2] += 1.5
    z[:2] = col[:2] * 3.0 - 1.0  # col has one column: broadcast into the slice
    w = x.copy()
    w[:, 1:] += w[:, :-1] * 0.5  # reads another view of w: NumPy's order, not fused
    return z + w


def arg_extremes(x, y, k):
    """Traced whole: argmin/argmax of elementwise values (never stored), 1-d and broadcast 2-d."""
    return (
        np.argmin((x - 0.5) ** 2),
        np.argmax(np.abs(x * y)),
        np.argmin(x[:, None] * y[None, :]),
        np.argmax(k * 3 - k % 5),
    )


def last_pair(x):
    """The small array of the last iteration leaves its region (the kernel reads it after the
    loop): it is made on the heap, the spring chain's on the stack."""
    last = np.zeros(2)
    for i in range(x.shape[0]):
        last = np.array([x[i], x[i] * 2.0])
    return last + 1.0


def matching_rows(db, mask=(1, 0, 1)):
    """A tuple default used as an array, and `and` of traced booleans, in a loop over rows."""
    found = np.zeros(db.shape[0], dtype=np.bool_)
    for i, row in enumerate(db):
        head, rest = row[0], row[1:]
        found[i] = head >= 0 and (mask == np.bitwise_and(mask, rest)).all()
    return found


def masked_updates(x, y, m, s):
    """Traced whole: masked updates computed at each element of the array they update."""
    z = x.copy()
    z[~(y <= s * x)] = s  # a scalar value, the mask of two arrays (y may broadcast); NaN: selected
    z[z > s] -= s  # the mask computed from z, the value reading z
    z[m] = x[m] * 2.0 + z[m]  # a mask given, the value reading another array too
    return z


def masked_blend(a, b, m, times):
    """Writes into ``b`` through a mask, reading ``a``: called with overlapping views of one
    array (aliases), NumPy reads every selected element before it writes."""
    for _ in range(times):
        b[m] = a[m] * 0.5 + b[m]


def squared_moduli(z, w):
    """Traced whole: |z|**2 three ways, of complex128 and complex64 values."""
    return np.abs(z) ** 2, np.square(np.abs(z)), np.abs(w) * np.abs(w), np.sum(np.abs(z) ** 2)


def trailing_view(x, steps):
    """Views the kernel makes of its copy, each updated by a region that borrows it (counts no
    reference), the last returned: it must hold its own reference to the copy's memory."""
    rest = x.copy()
    for _ in range(steps):
        tail = rest[1:]
        tail += 1.0
        rest = tail
    return rest
