"""Functions declared under several signatures each (numba's ``@njit([sig1, sig2])``)."""

import numpy as np


def norm1(x):
    return np.abs(x).sum()


def scale(x, s):
    return x * s


def count_above(x, threshold):
    count = 0
    for value in x:
        if value > threshold:
            count += 1
    return count


def row_sums(a):
    return a.sum(axis=1)
