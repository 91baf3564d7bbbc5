"""Graphs for the run-time tests: exceptions of every kind, outputs, threads and memory.

Kernels here are compared with ``numba.njit`` of the same function; traced graphs with NumPy.
"""

import math

import numpy as np
from numba import njit
from runtime_errors import OutOfRange


def static_error(x):
    if x.shape[0] == 0:
        raise ValueError("static_error: empty input")
    return x[0]


def runtime_values(x, i):
    if i < 0 or i >= x.shape[0]:
        raise IndexError("runtime_values: index", i, "outside", x.shape[0], x[0])
    return x[i]


def user_class(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            raise OutOfRange("user_class: above the limit", i, x[i])
    if x.shape[0] == 0:
        raise OutOfRange("user_class: empty")
    return x.sum()


@njit
def _log_positive(value):
    if value <= 0.0:
        raise ValueError("_log_positive: not positive", value)
    return math.log(value)


def through_helper(x):
    total = 0.0
    for value in x:
        total += _log_positive(value)
    return total


@njit(boundscheck=True)
def bounds_checked(x, i):
    return x[i]


def int_division(a, b):
    return a // b


def float_division(a, b):
    return a / b


def int_modulo(a, b):
    return a % b


def asserted(x):
    assert x.shape[0] > 1, "asserted: needs two values"
    return x[1] - x[0]


def flagged(x, strict, level):
    if strict and level > 2:
        raise ValueError("flagged: strict at level", level, strict)
    return x.sum() * level


def broadcast_add(a, b):
    return a + b


def matrix_product(a, b):
    return a @ b


def scaled(x, factor):
    return x * factor


def summary(x, y):
    return np.sum((x - y) ** 2), np.max(x), x - y


def smooth(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = 0.5 * (x[i] + out[i - 1])
    return out


def heavy(x, rounds):
    total = 0.0
    for _ in range(rounds):
        for value in x:
            total += math.sin(value) * math.cos(value)
    return total


# Memory planning: chains that fusion cannot merge, their steps separated by reductions (each
# step's input dies at an elementwise Op) or by gathers (which read out of order: a new array).
def _centred(x, steps):
    y = np.exp(x)
    for _ in range(steps):
        y = y - y.sum() / y.size
        y = y * (1.0 / (np.abs(y).max() + 1.0))
    return y.sum()


def _shuffled(x, order, steps):
    y = np.exp(x)
    for _ in range(steps):
        y = y[order] * 0.5 + 1.0
        y = y - y.mean()
    return y.sum()


def centred_4(x, order):
    return _centred(x, 4)


def centred_16(x, order):
    return _centred(x, 16)


def shuffled_4(x, order):
    return _shuffled(x, order, 4)


def shuffled_16(x, order):
    return _shuffled(x, order, 16)


# The contiguous fast path: called with arrays of every layout, it must give NumPy's values.
def centred_rows(m):
    return m - m.mean(axis=1, keepdims=True)


# Updates in place: an array built by np.zeros and slice assignments is allocated once.
def grid(x, y):
    z = np.zeros((x.shape[0], y.shape[0], 3))
    z[:, :, 0] = x[:, None] * 2.0
    z[:, :, 1] = y[None, :] - 1.0
    z[:, :, 2] = 0.5
    z[0, 0, 0] = -1.0
    return z


def masked_in_place(x):
    z = np.zeros_like(x)
    z[x > 0.5] = 1.0
    z[::2] = z[::2] * 3.0 + x[::2]
    return z


# Products with transposed operands go to BLAS as they lie (a transpose flag, no copy).
def transposed_products(x1, x2, m):
    return np.dot(x1, x2.T), m.T @ m, np.einsum("ji,jk->ik", m, m)
