"""hypot (float64 and float32).

The float64 function is aotbuild's own: exact squares (one FMA each, or Dekker's split), their
double-double sum rounded once, and its square root. The sum is within half an ulp of x**2 + y**2,
so the root is within a quarter of an ulp before its own rounding: under 1 ulp in all (measured
0.85; python bench/vecmath_accuracy.py --functions hypot). It replaced SLEEF's xhypot_u05 (two
divisions and a double-double square root per element), then lost its Newton correction (a
division and a third exact product, for 0.5 ulp instead of 0.85): complex `abs` of 10^5 values
went 844 -> 416 us on a Zen 1 EPYC, where NumPy takes 300; with FMA squares and no NaN select
(the NaN reaches the root by itself), 588 -> 330 us, NumPy 350. The float32 function squares and
adds in float64, where nothing overflows or loses bits, with no scaling and no double-double: it
had called the float64 one (complex64 `abs` of 10^5 values on an AVX-512 EPYC, one process,
NumPy's AVX2 loop: 140 -> 57 us against 47). Its double-double helpers come from
SLEEF (shibatch/sleef, src/libm/sleefsimddp.c), Copyright Naoki Shibata and contributors
2010 - 2024, distributed under the Boost Software License, Version 1.0 (see LICENSE.sleef beside
this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _hypot_kernel(x, y):
    """sqrt(x**2 + y**2) of finite x, y: the squares of max and min (scaled by 2**-600 above
    2**500, by 2**600 below 2**-500) exactly as double-doubles, their sum rounded once, its
    square root, and the scale undone."""
    x = abs(x)
    y = abs(y)
    mx = x if x > y else y
    mn = y if x > y else x
    big = mx > 3.273390607896142e150
    small = mx < 3.054936363499605e-151
    scale = 2.409919865102884e-181 if big else (4.149515568880993e180 if small else 1.0)
    unscale = 4.149515568880993e180 if big else (2.409919865102884e-181 if small else 1.0)
    a = mx * scale
    b = mn * scale
    a2h, a2l = _dd_mul_d_d(a, a)
    b2h, b2l = _dd_mul_d_d(b, b)
    sh = a2h + b2h
    sl = (a2h - sh) + b2h + (a2l + b2l)  # a2h >= b2h: the sum's error exactly
    h = np.sqrt(sh + sl)
    return mx if mn == 0.0 else h * unscale


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def hypot_float64(x, y):
    """sqrt(x**2 + y**2) without intermediate overflow or underflow. Bound: 1.0 ulp
    (measured 0.85)."""
    r = _hypot_kernel(x, y)  # NaN if either is: the NaN is min or max, and reaches the root
    return np.inf if (abs(x) == np.inf) | (abs(y) == np.inf) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def hypot_float32(x, y):
    """hypot for float32 in float64: the squares are exact there (24-bit halves), never overflow
    or underflow (float32's range squared is within float64's normal range) and need no scaling;
    their sum and its root round once each (2**-53), so the result is within half an ulp and a
    hair of the true value before it is rounded to float32. Bound: 1.0 ulp (measured 0.50)."""
    a = np.float64(x)
    b = np.float64(y)
    r = np.float32(np.sqrt(a * a + b * b))  # NaN if either is, but for an infinity beside it
    return np.float32(np.inf) if (abs(x) == np.inf) | (abs(y) == np.inf) else r
