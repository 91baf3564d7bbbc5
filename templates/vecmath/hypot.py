"""hypot (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _hypot_kernel(x, y):
    """max * sqrt(1 + (min/max)**2) in double-double (SLEEF xhypot_u05), so no
    intermediate overflows or underflows."""
    x = abs(x)
    y = abs(y)
    mn = x if x < y else y
    mx = y if x < y else x
    n = mn
    d = mx
    o = mx < 2.2250738585072014e-308
    n = n * 18014398509481984.0 if o else n
    d = d * 18014398509481984.0 if o else d
    th, tl = _dd_div(n, 0.0, d, 0.0)
    th, tl = _dd_squ(th, tl)
    th, tl = _dd_add2_dd_d(th, tl, 1.0)
    th, tl = _dd_sqrt_dd(th, tl)
    # multiply by the scaled max and scale back at the end: a subnormal result is
    # rounded once
    th, tl = _dd_mul_dd_d(th, tl, d)
    r = (th + tl) * (5.551115123125783e-17 if o else 1.0)
    r = np.inf if r != r else r
    return mx if mn == 0.0 else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def hypot_float64(x, y):
    """sqrt(x**2 + y**2); port of SLEEF xhypot_u05. Bound: 1.0 ulp (SLEEF: 0.5 + eps)."""
    r = _hypot_kernel(x, y)
    r = np.nan if (x != x) | (y != y) else r
    return np.inf if (abs(x) == np.inf) | (abs(y) == np.inf) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def hypot_float32(x, y):
    """hypot for float32 via float64 (exact squares: float32**2 fits float64)."""
    return np.float32(hypot_float64(np.float64(x), np.float64(y)))
