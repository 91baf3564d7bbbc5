"""The example MLP under numba's JIT, for bench_models.py: the same layer, ``@njit`` instead of
``@aotbuild.subgraph``; and bench/training_step.py's step with its gradient by hand. The radon
functions and the image pipeline have no peer here: numba does not compile them as written
(plain Python helpers, a dataclass of options, ``mean`` over a tuple of axes with ``keepdims``).
``NUMBA_PEER_CACHE=1`` compiles them with ``cache=True``."""

import os

import numpy as np
import training_step
from numba import njit

CACHE = os.environ.get("NUMBA_PEER_CACHE") == "1"


@njit(cache=CACHE)
def dense(x, w, b):
    return np.tanh(x @ w + b)


@njit(cache=CACHE)
def mlp(x, w0, b0, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5, w6, b6, w7, b7):
    h = dense(np.ascontiguousarray(x), w0, b0)
    h = dense(h, w1, b1)
    h = dense(h, w2, b2)
    h = dense(h, w3, b3)
    h = dense(h, w4, b4)
    h = dense(h, w5, b5)
    h = dense(h, w6, b6)
    return dense(h, w7, b7)


#: bench/training_step.py's step_by_hand, the same code under numba's JIT.
step_by_hand = njit(cache=CACHE)(training_step.step_by_hand)
