"""A kernel calling scipy.special's C function as numba code does: through its Cython export.

aotbuild finds which export the pointer is (scipy.special.cython_special's ndtri) and the package
looks it up again in SciPy when the graph first runs: no address is compiled in.
"""

import ctypes

import numpy as np
from numba.extending import get_cython_function_address

_ndtri = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(
    get_cython_function_address("scipy.special.cython_special", "ndtri")
)


def normal_quantiles(p, mu, sigma):
    """The quantiles of Normal(mu, sigma) at probabilities ``p``, by a loop calling SciPy's ndtri;
    the package finds ndtri again in SciPy when it first runs."""
    out = np.empty_like(p)
    for i in range(p.shape[0]):
        out[i] = mu + sigma * _ndtri(p[i])
    return out
