"""Kernels written as numba code: loops, in-place updates, a shared helper."""

import numpy as np
from numba import njit


@njit
def lu_factor_inplace(a):
    """LU-factorise the square matrix ``a`` in place with partial pivoting.

    Returns the sign of the row permutation, or 0.0 if ``a`` is singular.
    """
    n = a.shape[0]
    sign = 1.0
    for k in range(n):
        pivot = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[pivot, k]):
                pivot = i
        if a[pivot, k] == 0.0:
            return 0.0
        if pivot != k:
            for j in range(n):
                a[k, j], a[pivot, j] = a[pivot, j], a[k, j]
            sign = -sign
        for i in range(k + 1, n):
            factor = a[i, k] / a[k, k]
            a[i, k] = factor
            for j in range(k + 1, n):
                a[i, j] -= factor * a[k, j]
    return sign


def det(a):
    """The determinant of the square matrix ``a``."""
    if a.shape[0] != a.shape[1]:
        raise ValueError("det: the matrix must be square")
    lu = a.copy()
    result = lu_factor_inplace(lu)
    for i in range(lu.shape[0]):
        result *= lu[i, i]
    return result


def slogdet(a):
    """(sign, log|det|) of the square matrix ``a``, as np.linalg.slogdet."""
    if a.shape[0] != a.shape[1]:
        raise ValueError("slogdet: the matrix must be square")
    lu = a.copy()
    sign = lu_factor_inplace(lu)
    if sign == 0.0:
        return 0.0, -np.inf
    logdet = 0.0
    for i in range(lu.shape[0]):
        d = lu[i, i]
        if d < 0.0:
            sign = -sign
        logdet += np.log(abs(d))
    return sign, logdet
