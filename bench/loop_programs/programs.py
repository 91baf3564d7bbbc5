"""NumPy programs of the kind Pythran was made for: array expressions inside Python loops and
branches, and the NumPy idioms that come with them (sizes computed from scalars, data-dependent
lengths, `np.tile`, imports inside functions, rows iterated with `enumerate`, `np.ndindex`).

Written for ``bench/bench_runtime.py`` (aotbuild against Pythran, numba's JIT and NumPy) and the
tests; each is ordinary NumPy code as users write it, one of each shape issue 30 names.
``inputs()`` makes each one's arguments.
"""

import numpy as np

# --- array expressions inside loops ------------------------------------------------------


def nearest_codeword(signal, codebook):
    """Each complex sample replaced by the nearest entry of a small codebook (a quantiser)."""
    out = np.empty_like(signal)
    for i in range(signal.shape[0]):
        k = np.argmin(np.abs(signal[i] - codebook) ** 2)
        out[i] = codebook[k]
    return out


def diffuse_3d(field, steps):
    """A few steps of 3-d diffusion by slices, each rescaled by its largest magnitude."""
    u = field.copy()
    for _ in range(steps):
        lap = (
            u[2:, 1:-1, 1:-1]
            + u[:-2, 1:-1, 1:-1]
            + u[1:-1, 2:, 1:-1]
            + u[1:-1, :-2, 1:-1]
            + u[1:-1, 1:-1, 2:]
            + u[1:-1, 1:-1, :-2]
            - 6.0 * u[1:-1, 1:-1, 1:-1]
        )
        u[1:-1, 1:-1, 1:-1] += 0.1 * np.abs(lap)
        scale = max(1.0, np.max(u))
        u /= scale
    return u


def row_offsets(points):
    """For each row, the column sums of every row's offset from it."""
    out = np.empty_like(points)
    for r in range(points.shape[0]):
        out[r, :] = np.sum(points - points[r, :], axis=0)
    return out


def lms_filter(x, taps, hop, mu):
    """An LMS adaptive filter over sliding windows of complex channels, one weight vector per
    window position modulo the number of taps (taken in turn); returns the final weights and the
    errors."""
    channels, length = x.shape
    k_count = taps.shape[0]
    width = taps.shape[2]
    h = taps.copy()
    windows = (length - width) // hop + 1
    errors = np.empty(windows, dtype=x.dtype)
    # k counts round rather than being i % k_count: Pythran 0.19 rewrites `k = i % k_count` into
    # a counter advanced once per use of k (twice an iteration here), which updates the wrong
    # weights (h[1] where h[0] is due: the benchmark's check stopped on it)
    k = 0
    for i in range(windows):
        window = x[:, i * hop : i * hop + width]
        y = np.sum(window * np.conj(h[k]))
        err = x[0, i * hop + width - 1] - y
        errors[i] = err
        h[k] += mu * np.conj(err) * window
        k = k + 1 if k + 1 < k_count else 0
    return h, errors


def weighted_column_distances(a, b, w):
    """Distances between every column of ``a`` and every column of ``b``, weighted per row."""
    d = np.empty((a.shape[1], b.shape[1]))
    for i in range(a.shape[1]):
        for j in range(b.shape[1]):
            d[i, j] = np.sqrt((((a[:, i] - b[:, j]) / w[:, i]) ** 2).sum())
    return d


def spring_chain(pos, k, rest):
    """Forces along a chain of particles joined by springs, one 2-vector per spring."""
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


# --- traced stencils -----------------------------------------------------------------------


def sharpen_u32(image):
    """An integer sharpening stencil on an 8-bit image held as uint32."""
    return (
        image[:-2, :-2]
        + image[:-2, 1:-1]
        + image[:-2, 2:]
        + image[1:-1, :-2]
        - 9 * image[1:-1, 1:-1]
        + image[1:-1, 2:]
        + image[2:, :-2]
        + image[2:, 1:-1]
        + image[2:, 2:]
    )


def heat_roll(grid, alpha):
    """One step of the heat equation on a periodic grid, written with ``np.roll``."""
    lap = (
        np.roll(grid, 1, axis=0)
        + np.roll(grid, -1, axis=0)
        + np.roll(grid, 1, axis=1)
        + np.roll(grid, -1, axis=1)
        - 4.0 * grid
    )
    return grid + alpha * lap


# --- programs that need more than numba alone --------------------------------------------


def escape_counts(x0, x1, y0, y1, n, iterations, horizon):
    """Escape-time counts over an n x n grid of the complex plane, updated through masks."""
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
    """The mean of ``values`` over each run of equal ``keys`` (sorted), and the run starts."""
    import numpy as np

    change = np.diff(keys) != 0
    starts = np.concatenate((np.array([0]), np.where(change)[0] + 1))
    ends = np.concatenate((starts[1:], np.array([keys.shape[0]])))
    sums = np.cumsum(values)
    totals = sums[ends - 1] - np.concatenate((np.array([0.0]), sums[starts[1:] - 1]))
    return starts, totals / (ends - starts)


def pair_offsets(x, length, wrap):
    """Every pairwise offset of positions on a line, folded onto a periodic box if ``wrap``."""
    n = len(x)
    t = np.tile(x, (n, 1))
    d = t - t.T
    if wrap:
        half = length / 2
        d[d > half] -= length
        d[d < -half] += length
    return d


def matching_rows(db, mask=(1, 0, 1)):
    """Indices of the rows whose tail has every bit of ``mask`` set (the first column is an id)."""
    found = np.zeros(db.shape[0], dtype=np.bool_)
    for i, row in enumerate(db):
        head, rest = row[0], row[1:]
        found[i] = head >= 0 and (mask == np.bitwise_and(mask, rest)).all()
    return found


def wrap(i, n):
    return i % n


def neighbour_sums(a, mode=wrap):
    """Each cell's sum with its right and lower neighbours on a torus, through an index map."""
    out = np.empty_like(a)
    for pos in np.ndindex(a.shape):
        right = tuple(mode(p + (1 if d == 1 else 0), a.shape[d]) for d, p in enumerate(pos))
        down = tuple(mode(p + (1 if d == 0 else 0), a.shape[d]) for d, p in enumerate(pos))
        out[pos] = a[pos] + a[right] + a[down]
    return out


def inputs():
    """Every program's arguments, by name."""
    rng = np.random.default_rng(30)
    angle = rng.uniform(0, 2 * np.pi, 16)
    return {
        "nearest_codeword": (
            rng.normal(size=20_000) + 1j * rng.normal(size=20_000),
            np.cos(angle) + 1j * np.sin(angle),
        ),
        "diffuse_3d": (rng.normal(size=(64, 64, 64)), 4),
        "row_offsets": (rng.normal(size=(400, 64)),),
        "lms_filter": (
            rng.normal(size=(4, 20_000)) + 1j * rng.normal(size=(4, 20_000)),
            np.zeros((3, 4, 32), dtype=np.complex128),
            8,
            0.001,
        ),
        "weighted_column_distances": (
            rng.normal(size=(200, 60)),
            rng.normal(size=(200, 80)),
            rng.uniform(0.5, 2.0, (200, 60)),
        ),
        "spring_chain": (np.cumsum(rng.normal(size=(100_000, 2)), axis=0), 2.0, 0.5),
        "sharpen_u32": (rng.integers(0, 256, (1000, 1000)).astype(np.uint32),),
        "heat_roll": (rng.normal(size=(1000, 1000)), 0.1),
        "escape_counts": (-2.0, 1.0, -1.5, 1.5, 300.0, 40, 2.0),
        "group_means": (np.sort(rng.integers(0, 2000, 100_000)), rng.normal(size=100_000)),
        "pair_offsets": (rng.uniform(0, 10.0, 600), 10.0, True),
        "matching_rows": (rng.integers(0, 8, (50_000, 4)),),
        "neighbour_sums": (rng.normal(size=(200, 200)),),
    }
