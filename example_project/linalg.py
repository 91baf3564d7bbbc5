"""Kernels written as numba code: loops, in-place updates, helpers shared between kernels.

aotbuild compiles each helper once, as its own Op: ``square_lu`` (a plain function) and
``lu_factor_inplace`` (an ``@njit`` one) are called by declaration from both kernels.
"""

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


def square_lu(a):
    """A copy of the square matrix ``a``, LU-factorised, and the sign of its row permutation."""
    if a.shape[0] != a.shape[1]:
        raise ValueError("the matrix must be square")
    lu = a.copy()
    return lu, lu_factor_inplace(lu)


def det(a):
    """The determinant of the square matrix ``a``."""
    lu, result = square_lu(a)
    for i in range(lu.shape[0]):
        result *= lu[i, i]
    return result


def slogdet(a):
    """(sign, log|det|) of the square matrix ``a``, as np.linalg.slogdet."""
    lu, sign = square_lu(a)
    if sign == 0.0:
        return 0.0, -np.inf
    logdet = 0.0
    for i in range(lu.shape[0]):
        d = lu[i, i]
        if d < 0.0:
            sign = -sign
        logdet += np.log(abs(d))
    return sign, logdet
