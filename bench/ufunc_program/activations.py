"""Scalar functions, as numba's @vectorize takes them: bench_ufuncs.py's ufuncs."""

import math

import numpy as np


def logistic(x, k):
    return 1.0 / (1.0 + math.exp(-k * x))


def addf(a, b):
    return a + b


def relu(x):
    return max(x, 0.0)


def norm1(x):
    return np.abs(x).sum()
