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


def column_sums(a):
    return a.sum(axis=0)


def weighted(a, w):
    return a * w


def diagonal_sum(a):
    total = 0.0
    for i in range(min(a.shape[0], a.shape[1])):
        total += a[i, i]
    return total


def number_cells(a):
    for j in range(a.shape[1]):
        for i in range(a.shape[0]):
            a[i, j] = i * 10 + j


def project(a, b):
    return a @ b
