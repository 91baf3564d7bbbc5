"""power (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _expk(dh, dl):
    """e**(dh + dl) rounded to a double, for a double-double argument (SLEEF expk)."""
    dq, q = _rint_small_both((dh + dl) * 1.442695040888963407359924681001892137426645954152985934135449406931)
    sh, sl = _dd_add2_dd_d(dh, dl, dq * -0.69314718055966295651160180568695068359375)
    sh, sl = _dd_add2_dd_d(sh, sl, dq * -0.28235290563031577122588448175013436025525412068e-12)
    sh, sl = _dd_normalize(sh, sl)
    p = 2.51069683420950419527139e-08
    p = _mla(p, sh, 2.76286166770270649116855e-07)
    p = _mla(p, sh, 2.75572496725023574143864e-06)
    p = _mla(p, sh, 2.48014973989819794114153e-05)
    p = _mla(p, sh, 0.000198412698809069797676111)
    p = _mla(p, sh, 0.0013888888939977128960529)
    p = _mla(p, sh, 0.00833333333332371417601081)
    p = _mla(p, sh, 0.0416666666665409524128449)
    p = _mla(p, sh, 0.166666666666666740681535)
    p = _mla(p, sh, 0.500000000000000999200722)
    th, tl = _dd_add_d_dd(1.0, sh, sl)
    s2h, s2l = _dd_squ(sh, sl)
    ph, pl = _dd_mul_dd_d(s2h, s2l, p)
    th, tl = _dd_add_dd_dd(th, tl, ph, pl)
    r = _ldexp2k(th + tl, q)
    return 0.0 if dh < -1000.0 else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _pow_core(x, y):
    """|x|**y = e**(y log|x|) with the logarithm and the product in double-double."""
    lh, ll = _logk(abs(x))
    dh, dl = _dd_mul_dd_d(lh, ll, y)
    r = _expk(dh, dl)
    # above log(DBL_MAX) the scaling in _expk overflows to inf by itself
    return np.inf if dh > 709.79 else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _pow_special(x, y, r):
    """The C99/NumPy special cases of pow and the sign for negative x (SLEEF xpow)."""
    yint = _is_integer(y)
    yodd = _is_odd_integer(y)
    r = r * (1.0 if x > 0.0 else ((-1.0 if yodd else 1.0) if yint else np.nan))
    efx = _mulsign(abs(x) - 1.0, y)
    r = (0.0 if efx < 0.0 else (1.0 if efx == 0.0 else np.inf)) if abs(y) == np.inf else r
    zero_or_inf = (abs(x) == np.inf) | (x == 0.0)
    r = _mulsign(0.0 if _sign_bit(y) ^ (x == 0.0) else np.inf, x if yodd else 1.0) \
        if zero_or_inf else r
    r = np.nan if (x != x) | (y != y) else r
    return 1.0 if (y == 0.0) | (x == 1.0) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_float64(x, y):
    """x**y; port of SLEEF xpow (u10): exp(y log|x|) in double-double, NumPy's special
    cases. Bound: 1.0 ulp."""
    return _pow_special(x, y, _pow_core(x, y))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_float32(x, y):
    """float32 x**y: exp_float64(y log_float64|x|) (|y log x| < 104 for finite float32
    results, so the float64 product's error stays below 2**-45 relative), NumPy's
    special cases; computed in float64 with a cheap kernel (a few float64 ulps) and
    rounded: <= 0.5 ulp + a double rounding. Bound: 1.0 ulp."""
    dx = np.float64(x)
    dy = np.float64(y)
    ylogx = log_float64(abs(dx)) * dy
    r = exp_float64(ylogx)
    return np.float32(_pow_special(dx, dy, r))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_power(y, n):
    """y**n as a double-double: y multiplied in n - 1 times, each step exact to a relative
    2**-100 while the low parts stay normal (a constant n unrolls the loop)."""
    ph = y
    pl = 0.0
    for _ in range(n - 1):
        ph, pl = _dd_mul_dd_d(ph, pl, y)
    return ph, pl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_integer_float64(x, n):
    """x**n for an integer 2 <= n <= 8 (NumPy computes ``x ** 3`` with ``pow``): x multiplied in
    n - 1 times as a double-double (each step exact to a relative 2**-100), rounded once, so
    within half an ulp and a hair; a constant n unrolls the loop. Below 2**-100, x is scaled by
    2**100 first and the result by 2**(-100 n) last (one rounding, into the subnormals), so
    that the low parts stay normal, hence exact. Zeros keep their sign, infinities and
    overflow are the product's."""
    small = abs(x) < 7.888609052210118e-31
    y = x * 1.2676506002282294e30 if small else x
    ph, pl = _dd_power(y, n)
    r = ph if (pl == 0.0) | (abs(ph) == np.inf) | (ph != ph) else ph + pl
    return r * _f64_from_bits(np.int64(1023 - 100 * n) << 52) if small else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_integer_float32(x, n):
    """float32 x**n for an integer 2 <= n <= 8: the product in float64 (each step rounded to a
    relative 2**-53) rounded once to float32, within half an ulp and a hair."""
    dx = np.float64(x)
    p = dx
    for _ in range(n - 1):
        p = p * dx
    return np.float32(p)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_negative_integer_float64(x, n):
    """x**-n for an integer 2 <= n <= 8: x**n as in :func:`power_integer_float64`, its
    reciprocal, and one correction by the reciprocal's exact residual, so within half an ulp and
    a hair. Below 2**-100 and above 2**100, x is scaled first and the result last (one rounding,
    into the subnormals or to inf). Zeros give infinities and infinities zeros, signed as NumPy's."""
    ax = abs(x)
    small = ax < 7.888609052210118e-31
    big = ax > 1.2676506002282294e30
    y = x * 1.2676506002282294e30 if small else (x * 7.888609052210118e-31 if big else x)
    ph, pl = _dd_power(y, n)
    q = 1.0 / ph
    eh, el = _dd_mul_d_d(ph, q)
    r = q + q * (((1.0 - eh) - el) - pl * q)  # 1 - eh is exact: eh is within an ulp of 1
    r = q if (q == 0.0) | (abs(q) == np.inf) | (q != q) else r
    scale = 100 * n if small else (-100 * n if big else 0)
    return r * _f64_from_bits(np.int64(1023 + scale) << 52)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_negative_integer_float32(x, n):
    """float32 x**-n for an integer 2 <= n <= 8: the power and its reciprocal in float64 (a few
    float64 roundings) rounded once to float32, within half an ulp and a hair."""
    dx = np.float64(x)
    p = dx
    for _ in range(n - 1):
        p = p * dx
    return np.float32(1.0 / p)
