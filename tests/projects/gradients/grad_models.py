"""Functions whose gradients tests/test_gradients.py checks against finite differences: each
exercises some vector-Jacobian rules (elementwise, broadcasting, reductions, indexing, moves,
products)."""

import numpy as np
import scipy.special as sc

import aotbuild

IDX = np.array([0, 2, 2, 4, -1, 1])


def unary(x):
    """Every unary rule, on values where each function is smooth."""
    p = np.abs(x) + 1.5  # > 1: log, arccosh, sqrt...
    u = np.tanh(x) * 0.9  # in (-1, 1): arcsin, arccos, arctanh
    terms = (
        np.exp(x)
        + np.exp2(x)
        + np.expm1(x)
        + np.log(p)
        + np.log2(p)
        + np.log10(p)
        + np.log1p(p)
        + np.sqrt(p)
        + np.cbrt(p)
        + np.square(x)
        + np.reciprocal(p)
        + np.sin(x)
        + np.cos(x)
        + np.tan(u)
        + np.arcsin(u)
        + np.arccos(u)
        + np.arctan(x)
        + np.sinh(x)
        + np.cosh(x)
        + np.arcsinh(x)
        + np.arccosh(p)
        + np.arctanh(u)
        + -x
        + +x
        + np.floor(x) * x
        + (x // 0.3712) * x
        + np.conjugate(x)
    )
    return np.sum(terms)


def binary(a, b):
    """Binary rules with broadcasting: b may be (n,) or (1,) against a's (m, n)."""
    q = np.abs(b) + 0.5
    return np.sum(
        a * b
        - a / q
        + np.hypot(a, b)
        + np.arctan2(a, q)
        + np.logaddexp(a, b)
        + np.power(q, a)
        + (a + 2.0) ** 3
        + np.maximum(a, b)
        + np.minimum(a, 0.1)
        + np.where(a > b, a * a, b)
    )


def sum_of_both(x, y):
    """Both gradients are sums of one cotangent to their shapes: two arrays, not one."""
    return np.sum(x + y)


def reductions(x):
    """Sums, means, products and extremes along axes, kept and dropped."""
    return (
        np.sum(x.mean(axis=0) ** 2)
        + np.prod(x[:, :2] + 2.0, axis=1).sum()
        + np.max(x, axis=1).sum()
        + np.min(x)
        + np.sum(x.sum(axis=1, keepdims=True) * x)
        + np.mean(x)
    )


def indexing(x):
    """Slices, integers, integer arrays (negative ones too), cumsum, concatenate, sort."""
    head = x[1:4]
    joined = np.concatenate([x[::2], x[:2] * 3.0])
    return (
        np.sum(head**2)
        + x[0] * x[2]
        + np.sum(x[IDX] * np.arange(6.0))
        + np.cumsum(x)[-1] * 2.0
        + np.sum(joined * joined)
        + np.sum(x[::-1][:3] * x[:3])
        + np.sum(np.sort(x) * np.arange(x.shape[0]))
    )


def layers(w, b, x, y):
    """A two-layer perceptron's squared error: matmul, a broadcast bias, tanh, reshape."""
    h = np.tanh(x @ w + b)
    out = (h @ w.T).reshape(-1)
    return np.mean((out[: y.shape[0]] - y) ** 2) + 0.01 * np.sum(w * w)


def scaled(x, s):
    """A float32 array and a float32 scalar."""
    return np.sum((x - s) ** 2) / s


def partial(x, n):
    """An integer parameter beside the differentiated one: it carries no gradient."""
    return np.sum(x * n) + np.sum(x[:n] ** 2)


def moves(x, w):
    """clip, dot, a batched matmul, swapaxes, flip, stack (of arrays and of scalars), roll."""
    batch = np.stack([x, x * 2.0])  # (2, 3, 3)
    product = batch @ w  # batched, w broadcast over the batch
    turned = np.swapaxes(product, 1, 2)
    scalars = np.stack([x[0, 0], x[1, 2]])
    return (
        np.sum(np.clip(x, -0.5, 0.5) * np.dot(x, w))
        + np.sum(turned * np.flip(product, 1))
        + np.sum(scalars**2)
        + np.sum(np.roll(x, (1, -2), axis=(0, 1)) * w)
    )


def special(x, y):
    """scipy.special's ufuncs, each where it is smooth."""
    p = sc.expit(x) * 0.8 + 0.1  # in (0.1, 0.9)
    q = np.abs(y) + 0.5
    return np.sum(
        sc.erf(x)
        + sc.erfc(x)
        + sc.erfcx(np.abs(x))
        + sc.erfinv(p - 0.5)
        + sc.ndtr(x)
        + sc.ndtri(p)
        + sc.log_ndtr(x)
        + sc.gammaln(q)
        + sc.gamma(q)
        + sc.betaln(q, q + 1)
        + sc.expit(x)
        + sc.logit(p)
        + sc.log_expit(x)
        + sc.xlogy(q, q)
        + sc.xlog1py(q, q)
        + sc.entr(p)
        + sc.rel_entr(p, q)
        + sc.i0e(x)
        + sc.i1e(x)
    )


def linear_algebra(a, b):
    m = a @ a.T + 3.0 * np.eye(3)
    sign, logabsdet = np.linalg.slogdet(m - 4.0 * np.eye(3))  # negative determinants too
    return (
        np.sum(np.linalg.solve(m, b)) + 0.01 * np.linalg.det(m) + np.sum(np.linalg.inv(m)) + sign * logabsdet
    )


def gradient_step(w, x, y):
    """One gradient step inside the graph: aotbuild.value_and_grad while tracing (finite
    differences when this runs as plain Python)."""

    def loss(w):
        return np.sum((x @ w - y) ** 2)

    value, g = aotbuild.value_and_grad(loss, "w")(w)
    return value + np.sum(w - 0.01 * g)


@aotbuild.subgraph
def layer(x, w, b):
    return np.tanh(x @ w + b)


def through_subgraphs(x, w, b):
    """A subgraph called twice, once with the same array in two places."""
    return np.sum(layer(layer(x, w, b), w, b) ** 2) + np.sum(layer(w, w, b))


REPEATED = np.array([1, 3, 1, -1])
COLUMNS = np.array([2, 0, 2])


def scans(x):
    """cumprod (rule not defined at 0: values kept away from it), np.full of a traced value."""
    p = np.abs(x) + 0.5
    return np.sum(np.cumprod(p) * np.arange(x.shape[0])) + np.sum(np.full(3, x[0]) * x[:3])


def writes(x, v):
    """z[idx] = v with a repeated index (the later write wins: x[0]'s is lost), along an axis of
    a matrix, and through boolean masks (a scalar and one value per True)."""
    z = np.zeros(x.shape[0] + 2)
    z[REPEATED] = x[:4] * 2.0
    m = np.zeros((2, x.shape[0]))
    m[:, COLUMNS] = v[:, None] * x[:3]
    masked = x.copy()
    masked[x > 0.2] = v[0] ** 2
    chosen = x * 1.5
    chosen[x < 0] = x[x < 0] ** 2
    return np.sum(z * np.arange(z.shape[0])) + np.sum(m * m) + np.sum(masked * x) + np.sum(chosen**3)


def gathers(x, k):
    """Integer-array indexing of matrices: two axes (a scalar among them), a column axis, rows by
    a 2-d index, run-time indices; np.bincount's weights."""
    rows = np.array([[0, 1], [-1, 0]])
    return (
        np.sum(x[[0, 2, -1], [1, 1, 0]] ** 2)
        + np.sum(x[:, COLUMNS] * x[:, :3])
        + np.sum(x[1, [0, 2]] * 3.0)
        + np.sum(x[rows] ** 3)
        + np.sum(x[k, k] * x[k, 0])
        + np.sum(np.bincount(k, weights=x[k, 1] * x[k, 2], minlength=3) ** 2)
    )


def masks(x):
    """a[mask] of a whole matrix and of its leading axis (a mask of rows)."""
    return np.sum(x[x > 0] ** 2) + np.sum(x[x[:, 0] < 0.5] * x[0])


def einsums(a, b):
    """np.einsum: a matrix-vector product, an elementwise product summed, a letter only one
    operand has (summed within it) and a three-operand sum."""
    return (
        np.sum(np.einsum("ij,j->i", a, b) ** 2)
        + np.einsum("ij,ij->", a, a * b)
        + np.sum(np.einsum("ij,j->j", a, b) * b)
        + np.einsum("i,ij,j->", a[:, 0], a, b)
    )


def cholesky(a):
    """np.linalg.cholesky of a positive definite matrix built from ``a``."""
    m = a @ a.T + 3.0 * np.eye(a.shape[0])
    low = np.linalg.cholesky(m)
    small = a[:2, :2] @ a[:2, :2].T + np.eye(2)
    return np.sum(low * np.arange(1.0, 1.0 + a.shape[0])) + np.sum(np.linalg.cholesky(small) ** 2)


def digamma(x):
    """scipy.special.psi, on both sides of 0 (away from its poles)."""
    return np.sum(sc.psi(np.abs(x) + 0.3) * x + sc.psi(-np.abs(x) - 0.4))


@aotbuild.subgraph
def moments(x):
    mean = np.mean(x)
    return mean, np.mean((x - mean) ** 2)


@aotbuild.subgraph
def twice(x):
    y = np.sin(x)
    return y, y


def through_tuples(x):
    """A subgraph returning a tuple, both items used, and one of another call alone; one
    returning the same value twice (both items' gradients add up)."""
    mean, var = moments(x)
    first, second = twice(x)
    return mean * var + moments(x * x)[1] + np.sum(first * 2.0 + second)
