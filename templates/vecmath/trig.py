"""sin, cos, tan (float64 and float32) with their range guards.

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).

The float64 paths reduce by pi/2 (or pi) with SLEEF's 4-part constant and a split of
the quotient into dqh (multiple of 2**24) + dql, so every product is exact up to
|x| <= 1e14; the native float32 sin/cos are valid up to |x| <= 25000 and tan_float32
up to 1e6. Beyond that (finite) the result is wrong: ``<fn>_<dtype>_in_range(x)`` says
whether x is handled; the code generator reruns a loop with libm when any element is
not. NaN and +-inf are in range (the result is NaN).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _sin_cos_poly(sh, sl):
    """sin(s) for a reduced double-double s (|s| <= pi/2), as a double (SLEEF xsin_u1's
    tail)."""
    th, tl = sh, sl
    s2h, s2l = _dd_squ(sh, sl)
    u = 2.72052416138529567917983e-15
    u = _mla(u, s2h, -7.6429259411395447190023e-13)
    u = _mla(u, s2h, 1.60589370117277896211623e-10)
    u = _mla(u, s2h, -2.5052106814843123359368e-08)
    u = _mla(u, s2h, 2.75573192104428224777379e-06)
    u = _mla(u, s2h, -0.000198412698412046454654947)
    u = _mla(u, s2h, 0.00833333333333318056201922)
    ah, al = _dd_add_d_d(-0.166666666666666657414808, u * s2h)
    ah, al = _dd_mul_dd_dd(ah, al, s2h, s2l)
    xh, xl = _dd_add_d_dd(1.0, ah, al)
    return _dd_mul_dd_dd_to_d(th, tl, xh, xl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _subtract_pi_rest(sh, sl, dqh, dql, scale):
    """(sh, sl) - (dqh + dql) * scale * (pi's three low parts in SLEEF's four-part split), in
    double-double: the tail of every Cody-Waite reduction here (scale 1 or 0.5: exact)."""
    sh, sl = _dd_add2_dd_d(sh, sl, dqh * (-3.1786509424591713469e-08 * scale))
    sh, sl = _dd_add2_dd_d(sh, sl, dql * (-3.1786509424591713469e-08 * scale))
    sh, sl = _dd_add2_dd_d(sh, sl, dqh * (-1.2246467864107188502e-16 * scale))
    sh, sl = _dd_add2_dd_d(sh, sl, dql * (-1.2246467864107188502e-16 * scale))
    return _dd_add_dd_d(sh, sl, (dqh + dql) * (-1.2736634327021899816e-24 * scale))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _reduce_pi(d):
    """d - q*pi as a double-double and q's parity, exact products for |d| <= 1e14
    (SLEEF xsin_u1 middle range)."""
    dqh = _trunc_small(d * (0.3183098861837906715377675 / 16777216.0)) * 16777216.0
    dql, ql = _rint_small_both(_mla(d, 0.3183098861837906715377675, -dqh))
    u = _mla(dqh, -3.1415926218032836914, d)
    sh, sl = _dd_add_d_d(u, dql * -3.1415926218032836914)
    sh, sl = _subtract_pi_rest(sh, sl, dqh, dql, 1.0)
    return sh, sl, ql


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _reduce_pi_half_odd(d):
    """d - (2q+1)*pi/2 as a double-double and 2q+1 (SLEEF xcos_u1 middle range)."""
    dqh = _trunc_small(d * (0.3183098861837906715377675 / 8388608.0)
                       - 0.3183098861837906715377675 / 16777216.0)
    qf, q = _rint_small_both(_mla(d, 0.3183098861837906715377675, _mla(dqh, -8388608.0, -0.5)))
    dqh = dqh * 16777216.0
    ql = q + q + np.int64(1)
    dql = qf + qf + 1.0
    u = _mla(dqh, -3.1415926218032836914 * 0.5, d)
    sh, sl = _dd_add2_d_d(u, dql * (-3.1415926218032836914 * 0.5))
    sh, sl = _subtract_pi_rest(sh, sl, dqh, dql, 0.5)
    return sh, sl, ql


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _negate_if(x, cond):
    """``-x`` where cond, else ``x`` (a sign-bit flip)."""
    return _f64_from_bits(_f64_bits(x) ^ (np.int64(-9223372036854775808) if cond else np.int64(0)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def sin_float64(d):
    """sin; port of SLEEF xsin_u1 (middle-range reduction used for all |d| <= 1e14).
    Bound: 1.0 ulp for |d| <= 1e14 (see sin_float64_in_range)."""
    sh, sl, ql = _reduce_pi(d)
    u = _sin_cos_poly(sh, sl)
    u = _negate_if(u, (ql & np.int64(1)) == np.int64(1))
    u = d if d == 0.0 else u
    return _trig_special(d, u)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cos_float64(d):
    """cos; port of SLEEF xcos_u1 (middle-range reduction for all |d| <= 1e14).
    Bound: 1.0 ulp for |d| <= 1e14 (see cos_float64_in_range)."""
    sh, sl, ql = _reduce_pi_half_odd(d)
    u = _sin_cos_poly(sh, sl)
    u = _negate_if(u, (ql & np.int64(2)) == np.int64(0))
    return _trig_special(d, u)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _trig_special(d, u):
    """NaN for +-inf and NaN inputs."""
    return u if abs(d) < np.inf else np.nan


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _reduce_pi_half(d):
    """d - q*pi/2 as a double-double and q (SLEEF xtan_u1 middle range)."""
    dqh = _trunc_small(d * (0.63661977236758134307553505 / 16777216.0)) * 16777216.0
    ph, pl = _dd_mul_dd_d(0.63661977236758138243, -3.9357353350364971764e-17, d)
    sh, sl = _dd_add2_dd_d(ph, pl, (-0.5 if d < 0.0 else 0.5) - dqh)
    dql = _trunc_small(sh + sl)
    ql = _rint_small_i64(dql)
    u = _mla(dqh, -3.1415926218032836914 * 0.5, d)
    sh, sl = _dd_add_d_d(u, dql * (-3.1415926218032836914 * 0.5))
    sh, sl = _subtract_pi_rest(sh, sl, dqh, dql, 0.5)
    return sh, sl, ql


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _tan_kernel(sh, sl, ql):
    """tan(s + q*pi/2) for a reduced double-double s: tan(s/2) by polynomial, then the
    double-angle formula in double-double (SLEEF xtan_u1's tail)."""
    th, tl = sh * 0.5, sl * 0.5
    s2h, s2l = _dd_squ(th, tl)
    u = 0.3245098826639276316e-3
    u = _mla(u, s2h, 0.5619219738114323735e-3)
    u = _mla(u, s2h, 0.1460781502402784494e-2)
    u = _mla(u, s2h, 0.3591611540792499519e-2)
    u = _mla(u, s2h, 0.8863268409563113126e-2)
    u = _mla(u, s2h, 0.2186948728185535498e-1)
    u = _mla(u, s2h, 0.5396825399517272970e-1)
    u = _mla(u, s2h, 0.1333333333330500581e+0)
    u = _mla(u, s2h, 0.3333333333333343695e+0)
    ah, al = _dd_mul_dd_dd(s2h, s2l, th, tl)
    ah, al = _dd_mul_dd_d(ah, al, u)
    xh, xl = _dd_add_dd_dd(th, tl, ah, al)
    yh, yl = _dd_squ(xh, xl)
    yh, yl = _dd_add_d_dd(-1.0, yh, yl)
    xh, xl = xh * -2.0, xl * -2.0
    odd = (ql & np.int64(1)) == np.int64(1)
    nh = -yh if odd else xh
    nl = -yl if odd else xl
    dh = xh if odd else yh
    dl = xl if odd else yl
    qh, qlo = _dd_div(nh, nl, dh, dl)
    return qh + qlo


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def tan_float64(d):
    """tan; port of SLEEF xtan_u1 (middle-range reduction for all |d| <= 1e14).
    Bound: 1.0 ulp for |d| <= 1e14 (see tan_float64_in_range)."""
    sh, sl, ql = _reduce_pi_half(d)
    u = _tan_kernel(sh, sl, ql)
    # tan(d) rounds to d for |d| < 2**-30; also keeps zeros' signs and subnormals
    u = d if abs(d) < 1e-9 else u
    return _trig_special(d, u)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def sin_float64_in_range(x):
    """Whether sin_float64(x) is valid: |x| <= 1e14, or x is inf/nan."""
    a = abs(x)
    return not ((a > 1e14) & (a < np.inf))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cos_float64_in_range(x):
    """Whether cos_float64(x) is valid: |x| <= 1e14, or x is inf/nan."""
    a = abs(x)
    return not ((a > 1e14) & (a < np.inf))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def tan_float64_in_range(x):
    """Whether tan_float64(x) is valid: |x| <= 1e14, or x is inf/nan."""
    a = abs(x)
    return not ((a > 1e14) & (a < np.inf))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _reduce_pi_half_f32(d):
    """float32 d - q pi/2 as a float-float (x, xl) and q (int32), with SLEEF's 4-part
    constant: parts A, B, C have <= 9 significant bits, so q * part is exact for
    |q| < 2**15 (|d| <= 25000) and the differences are summed exactly by two-sums."""
    uq, q = _rint_small_both_f32(d * np.float32(0.636619772367581343075535053490057448))
    t = _mla_f32(uq, np.float32(-3.140625 * 0.5), d)
    h, l1 = _two_sum_f32(t, uq * np.float32(-0.0009670257568359375 * 0.5))
    h, l2 = _two_sum_f32(h, uq * np.float32(-6.2771141529083251953e-07 * 0.5))
    lo = _mla_f32(uq, np.float32(-1.2154201256553420762e-10 * 0.5), l1 + l2)
    x, xl = _two_sum_f32(h, lo)
    return x, xl, q


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _sin_cos_f32(x, xl, odd):
    """sin(x + xl) (odd False) or cos(x + xl) (odd True) for |x| <= pi/4, xl the low
    part of the reduced argument (SLEEF xsincosf's polynomials)."""
    s = x * x
    us = np.float32(-0.000195169282960705459117889)
    us = _mla_f32(us, s, np.float32(0.00833215750753879547119141))
    us = _mla_f32(us, s, np.float32(-0.166666537523269653320312))
    rs = x + _mla_f32(us * s, x, xl)
    uc = np.float32(-2.71811842367242206819355e-07)
    uc = _mla_f32(uc, s, np.float32(2.47990446951007470488548e-05))
    uc = _mla_f32(uc, s, np.float32(-0.00138888787478208541870117))
    uc = _mla_f32(uc, s, np.float32(0.0416666641831398010253906))
    uc = _mla_f32(uc, s, np.float32(-0.5))
    rc = np.float32(1.0) + _mla_f32(s, uc, -(x * xl))
    return rc if odd else rs


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def sin_float32(d):
    """float32 sin, native float32: reduction by pi/2 into a float-float, sin or cos
    polynomial by quadrant (SLEEF xsincosf). Bound: 1.0 ulp for |d| <= 25000 (see
    sin_float32_in_range)."""
    x, xl, q = _reduce_pi_half_f32(d)
    r = _sin_cos_f32(x, xl, (q & np.int32(1)) == np.int32(1))
    r = -r if (q & np.int32(2)) == np.int32(2) else r
    r = d if d == np.float32(0.0) else r
    return r if abs(d) < np.float32(np.inf) else np.float32(np.nan)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cos_float32(d):
    """float32 cos, native float32 (see sin_float32). Bound: 1.0 ulp for |d| <= 25000
    (see cos_float32_in_range)."""
    x, xl, q = _reduce_pi_half_f32(d)
    r = _sin_cos_f32(x, xl, (q & np.int32(1)) == np.int32(0))
    r = -r if ((q + np.int32(1)) & np.int32(2)) == np.int32(2) else r
    return r if abs(d) < np.float32(np.inf) else np.float32(np.nan)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def tan_float32(x):
    """float32 tan in float64: reduction by pi/2 split into 33-bit parts (q * part exact
    for |q| < 2**20, i.e. |x| <= 1e6), then tan_float64's kernel. Bound: 1.0 ulp for
    |x| <= 1e6 (see tan_float32_in_range)."""
    d = np.float64(x)
    qf, q = _rint_small_both(d * 0.63661977236758134307553505)
    s = _mla(qf, -1.5707963267341256, d)
    s = _mla(qf, -6.077100506303966e-11, s)
    s = _mla(qf, -2.0222662487959506e-21, s)
    r = _tan_kernel(s, 0.0, q)
    r = d if abs(d) < 1e-9 else r
    return np.float32(r if abs(d) < np.inf else np.nan)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def sin_float32_in_range(x):
    """Whether sin_float32(x) is valid: |x| <= 25000, or x is inf/nan."""
    a = abs(x)
    return not ((a > np.float32(25000.0)) & (a < np.float32(np.inf)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cos_float32_in_range(x):
    """Whether cos_float32(x) is valid: |x| <= 25000, or x is inf/nan."""
    a = abs(x)
    return not ((a > np.float32(25000.0)) & (a < np.float32(np.inf)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def tan_float32_in_range(x):
    """Whether tan_float32(x) is valid: |x| <= 1e6, or x is inf/nan."""
    a = abs(x)
    return not ((a > np.float32(1e6)) & (a < np.float32(np.inf)))
