"""The example project's functions under numba's JIT, for the benchmark (bench_pipeline.py).

``NUMBA_PEER_CACHE=1`` compiles them with ``cache=True``. normalize_channels has no numba peer:
numba rejects ``mean(axis=(1, 2), keepdims=True)``.
"""

import os
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "example_project"))
import linalg  # noqa: E402
import stats  # noqa: E402

CACHE = os.environ.get("NUMBA_PEER_CACHE") == "1"
LOG_SQRT_2PI = stats.LOG_SQRT_2PI


@njit(cache=CACHE)
def normal_logp(x, mu, sigma):
    z = (x - mu) / sigma
    return np.sum(-0.5 * z**2 - np.log(sigma) - LOG_SQRT_2PI)


lu_factor_inplace = njit(cache=CACHE)(linalg.lu_factor_inplace.py_func)


@njit(cache=CACHE)
def det(a):
    lu = a.copy()
    result = lu_factor_inplace(lu)
    for i in range(lu.shape[0]):
        result *= lu[i, i]
    return result
