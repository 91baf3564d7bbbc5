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
def _log2_widened(d):
    """log2 of a positive float64 widened from a float32 (so never subnormal), to a relative
    2**-50: d = m 2**e with m in [sqrt(2)/2, sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1),
    the series up to s**17 (s**2 <= 0.0295: the rest is below 2**-51 relative)."""
    e = _ilogb2k(d * 1.4142135623730950488)
    m = _ldexp3k(d, -e)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    t = 2.0 / 17.0
    t = _mla(t, z, 2.0 / 15.0)
    t = _mla(t, z, 2.0 / 13.0)
    t = _mla(t, z, 2.0 / 11.0)
    t = _mla(t, z, 2.0 / 9.0)
    t = _mla(t, z, 2.0 / 7.0)
    t = _mla(t, z, 2.0 / 5.0)
    t = _mla(t, z, 2.0 / 3.0)
    ln = _mla(s * z, t, 2.0 * s)
    return _mla(ln, 1.4426950408889634, _i64_to_f64_small(e))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _exp2_widened(t):
    """2**t for float64 t in [-200, 200], to a relative 2**-37: t = k + r with |r| <= 1/2, 2**r
    by its Taylor polynomial to r**9 ((ln 2 / 2)**10 / 10! < 2**-37), times 2**k, one power of
    two (k is well within float64's exponents, so no second scaling is needed)."""
    kf, k = _rint_small_both(t)
    r = t - kf
    p = 1.0178086009239699e-07
    p = _mla(p, r, 1.3215486790144307e-06)
    p = _mla(p, r, 1.5252733804059841e-05)
    p = _mla(p, r, 0.00015403530393381608)
    p = _mla(p, r, 0.0013333558146428443)
    p = _mla(p, r, 0.009618129107628477)
    p = _mla(p, r, 0.05550410866482158)
    p = _mla(p, r, 0.2402265069591007)
    p = _mla(p, r, 0.6931471805599453)
    p = _mla(p, r, 1.0)
    return p * _pow2i(k)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _pow_special_f32(x, y, r):
    """:func:`_pow_special` on float32 ``x``, ``y`` and ``|x|**y`` rounded to float32, ``r``:
    the same cases on the same values (each float32 is a float64), decided with float32
    operations, twice as many to a vector as float64's."""
    a = abs(y)
    big = a >= np.float32(8388608.0)  # 2**23: every float32 from here on is an integer
    t = a if big else a + np.float32(8388608.0)
    yint = big | (t - np.float32(8388608.0) == a)
    yodd = yint & ((_f32_bits(t) & np.int32(1)) == np.int32(1)) & (a < np.float32(16777216.0))
    one = np.float32(1.0)
    r = r * (one if x > np.float32(0.0) else ((-one if yodd else one) if yint else np.float32(np.nan)))
    efx = _mulsign_f32(abs(x) - one, y)
    at_inf = np.float32(0.0) if efx < np.float32(0.0) else (one if efx == np.float32(0.0) else np.float32(np.inf))
    r = at_inf if a == np.float32(np.inf) else r
    zero_or_inf = (abs(x) == np.float32(np.inf)) | (x == np.float32(0.0))
    negative_y = _f32_bits(y) < np.int32(0)
    edge = np.float32(0.0) if negative_y ^ (x == np.float32(0.0)) else np.float32(np.inf)
    r = _mulsign_f32(edge, x if yodd else one) if zero_or_inf else r
    r = np.float32(np.nan) if (x != x) | (y != y) else r
    return one if (y == np.float32(0.0)) | (x == one) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def power_float32(x, y):
    """float32 x**y = 2**(y log2|x|) in float64, with kernels only as accurate as a float32
    result needs: |y log2 x| <= 150 for every result neither 0 nor inf, so log2 to 2**-50
    keeps the exponent's error below 2**-42, and 2**t to 2**-37 adds under 0.0001 ulp to the
    final rounding; NumPy's special cases, decided in float32. Bound: 1.0 ulp (measured
    0.50). It took the float64 functions log and exp (1 ulp of float64 each) and decided the
    special cases in float64: 1.3-1.5x the time."""
    dx = np.float64(x)
    t = np.float64(y) * _log2_widened(abs(dx))
    t = 200.0 if t > 200.0 else (-200.0 if t < -200.0 else t)  # 0 or inf in float32 anyway
    return _pow_special_f32(x, y, np.float32(_exp2_widened(t)))


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
