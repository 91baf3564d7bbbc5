"""Functions written on scalars, as numba's @vectorize takes them: the fixture's ufuncs."""

import math


def logistic(x, k):
    return 1.0 / (1.0 + math.exp(-k * x))


def addf(a, b):
    return a + b


def clip(x, low, high):
    return min(max(x, low), high)


def relu(x):
    return max(x, 0.0)


def hypot_scaled(x, y, s):
    return s * math.sqrt(x * x + y * y)


def rotate(z, c):
    return z * c + 1j


def maxabs(a, b):
    return max(abs(a), abs(b))


def mixed_kinds(x, n):
    return x * n + 0.5


def divide(a, b):
    return a / b


def scaled(x):
    return x * 2.5
