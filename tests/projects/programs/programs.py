"""NumPy programs beyond single ufuncs, one function per operation family (tests/test_programs.py).

Each function is plain NumPy: run on arrays it gives the expected results, traced it is the
compiled graph under test. Inputs of any shape the tests generate are valid for every line.
"""

import numpy as np

import aotbuild


def indexing(x, i, idx):
    """Basic indexing (views), gathers and masks. x: (n >= 1, m >= 1); 0 <= i < n; idx in [-n, n)."""
    n = x.shape[0]
    return (
        x[1:, ::-1],
        x[i],
        x[-1],
        x[:, None, -1],
        x[..., 0],
        x[n - 1 :],
        x[::2, 0],
        x[i : i + 2, ::3],
        x[idx],
        x[:, idx % x.shape[1]],
        x[idx, 0],
        x[idx[:, None], idx % x.shape[1]],
        np.take(x, idx % x.shape[1], axis=1),
        x[x > 0],
        x[x[:, 0] > 0],
    )


def updates(x, v, idx):
    """Functional updates; the input is never modified. x: (n >= 1, m >= 1), v: (n,), idx: (k,) in [0, n)."""
    z = np.zeros((x.shape[0], 3))
    z[:, 0] = v
    z[0] = 2.0
    w = x.copy()
    w[w < 0] = 0.0
    w[idx] = -1.0
    u = x.copy()
    u[:, -1] = u[:, 0] * 2
    return z, w, u, x


def movement(x, y):
    """Views, joins, repeats. x, y: same shape (n, m)."""
    n, m = x.shape
    return (
        x.T,
        x.reshape(-1),
        x.reshape(m, n),
        np.ravel(x.T),
        x.flatten(),
        np.concatenate([x, y], axis=1),
        np.concatenate([x, y], axis=None),
        np.stack([x, y]),
        np.stack([x, y], axis=-1),
        np.hstack([x, y]),
        np.vstack([x, y]),
        np.expand_dims(x, (0, 2)),
        np.squeeze(x[:, :1], axis=1),
        np.broadcast_to(x, (2, n, m)),
        np.broadcast_to(x[:1], (n, m)),
        np.tile(x, (2, 3)),
        np.repeat(x, 2, axis=1),
        np.repeat(x, 3),
        np.roll(x, 2, axis=0),
        np.roll(x, -1),
        np.flip(x, 1),
        np.diff(x, axis=0),
        np.diff(x, n=2),
        np.swapaxes(x, 0, 1),
        np.moveaxis(np.stack([x, y]), 0, -1),
    )


def _sorted_in_place(x, axis):
    y = x.copy()
    y.sort(axis=axis)
    return y


def ordering(x):
    """Scans, sorts, arg-reductions, clip. x: (n, m)."""
    return (
        np.cumsum(x, axis=0),
        np.cumsum(x),
        np.cumprod(x, axis=1),
        np.sort(x, axis=0),
        np.sort(x),
        np.sort(x, axis=None),
        np.argsort(x, axis=1, kind="stable"),
        np.argsort(x, axis=0, kind="stable"),
        np.clip(x, -0.5, 0.75),
        x.clip(min=0.1),
        _sorted_in_place(x, 0),
        _sorted_in_place(x, -1),
    )


def arg_reductions(x):
    """x: (n >= 1, m >= 1)."""
    return np.argmax(x), np.argmin(x, axis=0), x.argmax(axis=1), np.argmax(x, axis=1, keepdims=True)


def statistics(x, w):
    """x: (n, m); w: (m,) positive weights."""
    return (
        np.var(x),
        np.var(x, axis=0),
        np.std(x, axis=1, ddof=1),
        x.var(axis=0, keepdims=True),
        np.average(x, axis=1, weights=w),
        np.average(x),
        np.any(x > 1.0, axis=1),
        np.all(x > -5.0),
        (x > 0).any(),
        np.abs(x).max(axis=0),
    )


def integers(a, b):
    """Integer arrays: a (n, m), b (k >= 1,) with values in [0, 10)."""
    return (
        np.cumsum(a, axis=1),
        np.sort(a, axis=0),
        np.bincount(b),
        np.bincount(b, weights=b * 0.5, minlength=12),
        np.var(a, axis=0),
        np.clip(a, 0, 5),
        a[a > 2],
        np.repeat(b, 2),
    )


def creation(x):
    """Arrays whose sizes come from x's sizes. x: (n, m)."""
    n, m = x.shape
    return (
        np.zeros((n, 2)),
        np.ones(m, dtype=np.int32),
        np.full((2, n), 7.5),
        np.full((n,), 3),
        np.empty((0, m)),
        np.arange(n),
        np.arange(1, 2 * m + 1, 2),
        np.arange(0.5, n, 0.25),
        np.linspace(0.0, 1.0, n),
        np.linspace(-1.0, 1.0, m, endpoint=False),
        np.linspace(0.0, 1.0, 5, endpoint=False),
        np.linspace(np.float32(-1), np.float32(1), n),
        np.linspace(np.float32(-1), np.float32(1), m, endpoint=False),
        np.full((n,), 1.5, np.float32),
        np.arange(0, m, 1, np.float32),
        np.eye(n),
        np.eye(n, m, 1, dtype=np.int64),
        np.zeros_like(x),
        np.ones_like(x, dtype=np.float32),
        np.full_like(x, 2.5),
        np.array([x.sum(), x.mean()]),
    )


def linalg(a, b, batch):
    """a: (n, n), b: (n,), batch: (k, n, n)."""
    return (
        a @ a.T,
        a @ b,
        b @ a,
        b @ b,
        np.dot(a, b),
        np.outer(b, b[::-1]),
        batch @ a,
        np.matmul(batch, batch.transpose(0, 2, 1)),
        np.einsum("ij,jk->ik", a, a),
        np.einsum("ij,kj->ik", a, a),
        np.einsum("ij->ji", a),
        np.einsum("i,i->", b, b),
        np.einsum("ii->i", a),
        np.einsum("ij,j->i", a, b),
        np.einsum("bij,bjk->bik", batch, batch),
    )


def linalg_lapack(a, b):
    """a: (n, n) symmetric positive definite, b: (n,)."""
    return (
        np.linalg.solve(a, b),
        np.linalg.inv(a),
        np.linalg.det(a),
        *np.linalg.slogdet(a),
        np.linalg.slogdet(-a).sign,
        np.linalg.cholesky(a),
        np.linalg.norm(b),
        np.linalg.norm(a),
        np.linalg.norm(a, axis=1),
        np.linalg.norm(b, ord=1),
        np.linalg.norm(b, ord=np.inf),
        np.linalg.norm(a, ord="fro"),
        np.linalg.norm(a, ord=1),
        np.linalg.norm(a, ord=np.inf),
        np.linalg.norm(a, ord=2),
    )


def integer_matmul(a, b):
    """a: (n, m), b: (m, k) integer; no BLAS for integers."""
    return a @ b, a @ b[:, 0]


def complex_parts(z):
    """z: complex128 (n,)."""
    return (
        z.real,
        z.imag,
        np.real(z),
        np.imag(z),
        np.conj(z),
        np.abs(z),
        np.angle(z),
        np.angle(z, deg=True),
        z.conj().real,
    )


@aotbuild.subgraph
def affine(x, w, b):
    return x @ w + b


@aotbuild.subgraph
def split(x):
    return x.sum(axis=0), x.max(axis=0)


def layers(x, w0, b0, w1, b1, w2, b2):
    """The same subgraph called three times, and one returning a tuple. x: (n, 4), w: (4, 4), b: (4,)."""
    h = np.tanh(affine(x, w0, b0))
    h = np.tanh(affine(h, w1, b1))
    h = affine(h, w2, b2)
    total, peak = split(h)
    return h, total, peak


def float32_linalg(a, b):
    """NumPy computes float32 linear algebra in float64 and rounds the result back."""
    return (
        np.linalg.solve(a, b),
        np.linalg.det(a),
        *np.linalg.slogdet(a),
        a @ b,
        np.var(a, axis=0),
        a.mean(axis=1),
    )


def views(x, u):
    """Loops over views and broadcasts, each versioned at run time (direct indexing, contiguous
    rows, short runs): pairwise differences of x's rows and their sums, a stencil from slices of
    u, a scan over a reversed view, vector math reduced along rows. x: (n, k), u: (m, p)."""
    difference = x[:, None, :] - x[None, :, :]
    distances = np.sqrt(np.sum(difference**2, axis=-1))
    stencil = u[1:-1, 2:] + u[1:-1, :-2] - 2.0 * u[1:-1, 1:-1]
    scan = np.cumsum(u[::-1], axis=0)[::-1]
    soft = np.log(np.sum(np.exp(u), axis=1)) + np.tanh(u[:, ::-1]).sum(axis=-1)
    return distances, difference.max(axis=1), stencil, scan, soft


def bias_tanh(x, b):
    """Vector math over a 1-d input of any layout (read as C-contiguous: retyped, or copied when
    strided). x: (n, m); b: (m,)."""
    return np.tanh(x + b), np.exp(b) * 2.0


def rolls(x, k):
    """np.roll by constants, joined into the elementwise loop around it or on its own: shifts
    negative, beyond the axis, 0, on two axes and on one twice, flattened (axis=None), beside
    a broadcast value, under vector math and reduced; and integer stencils, of rolls and of
    slices, that wrap as NumPy's uint32 does (``4 * k`` stays uint32). x: (n, m); k: (p, q)."""
    lap = np.roll(k, 1, axis=0) + np.roll(k, -1, axis=0) + np.roll(k, 1, axis=1) + np.roll(k, -1, axis=1)
    sharpen = (
        k[:-2, :-2]
        + k[:-2, 1:-1]
        + k[:-2, 2:]
        + k[1:-1, :-2]
        - 9 * k[1:-1, 1:-1]
        + k[1:-1, 2:]
        + k[2:, :-2]
        + k[2:, 1:-1]
        + k[2:, 2:]
    )
    return (
        np.roll(x, 1, axis=0),
        np.roll(x, -7, axis=1) * 2.0 + x,
        np.roll(x, (2, -3), axis=(0, 1)) - x[::-1],
        np.roll(x, 5) + 1.0,
        np.roll(x, 0, axis=1),
        np.roll(x, (1, 1), axis=(1, 1)) + np.roll(x, 100, axis=0),
        np.exp(np.roll(x, 3, axis=1)) + x,
        np.roll(x, 2, axis=1) + x[:1, :],
        np.sum(np.roll(x, 1, axis=1) * x),
        lap - 4 * k,
        sharpen,
        np.roll(k[:1].ravel(), -2) * 3,
    )


def run_lengths(keys, values, x, k):
    """Lengths known only at run time: np.where/np.nonzero, np.tile by run-time counts; and an
    import inside the function (tracing runs it). keys: (n >= 1,) sorted, values: (n,), k >= 0."""
    import numpy as np

    change = np.diff(keys) != 0
    starts = np.concatenate((np.array([0]), np.where(change)[0] + 1))
    ends = np.concatenate((starts[1:], np.array([keys.shape[0]])))
    sums = np.cumsum(values)
    totals = sums[ends - 1] - np.concatenate((np.array([0.0]), sums[starts[1:] - 1]))
    rows, cols = np.nonzero(x > 0)
    return (
        starts,
        totals / (ends - starts),
        rows,
        cols,
        np.flatnonzero(x),
        np.nonzero(keys)[0],
        x[np.nonzero(x)],
        np.tile(values, (len(values), 1)),
        np.tile(x, k),
        np.tile(x, (2, k, 1)),
    )
