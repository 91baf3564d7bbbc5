"""cbrt (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _cbrt_kernel(d):
    """cbrt for finite non-zero d (SLEEF xcbrt_u1): d = m * 2**e, e = 3 qu + re,
    polynomial guess refined by one Newton step and a double-double correction."""
    e = _ilogbk(abs(d)) + np.int64(1)
    d = _ldexp2k(d, -e)
    t = _i64_to_f64_small(e) + 6144.0
    qu = _trunc_small(t * (1.0 / 3.0))
    re = t - qu * 3.0
    q2h = 1.2599210498948731907 if re == 1.0 else (1.5874010519681995834 if re == 2.0 else 1.0)
    q2l = -2.5899333753005069177e-17 if re == 1.0 else (-1.0869008194197822986e-16 if re == 2.0 else 0.0)
    q2h = _mulsign(q2h, d)
    q2l = _mulsign(q2l, d)
    d = abs(d)
    x = -0.640245898480692909870982
    x = _mla(x, d, 2.96155103020039511818595)
    x = _mla(x, d, -5.73353060922947843636166)
    x = _mla(x, d, 6.03990368989458747961407)
    x = _mla(x, d, -3.85841935510444988821632)
    x = _mla(x, d, 2.2307275302496609725722)
    y = x * x
    y = y * y
    x = x - (d * y - x) * (1.0 / 3.0)
    z = x
    uh, ul = _dd_mul_d_d(x, x)
    uh, ul = _dd_squ(uh, ul)
    uh, ul = _dd_mul_dd_d(uh, ul, d)
    uh, ul = _dd_add2_dd_d(uh, ul, -x)
    y = uh + ul
    y = (-2.0 / 3.0 * y) * z
    vh, vl = _dd_mul_d_d(z, z)
    vh, vl = _dd_add2_dd_d(vh, vl, y)
    vh, vl = _dd_mul_dd_d(vh, vl, d)
    vh, vl = _dd_mul_dd_dd(vh, vl, q2h, q2l)
    return _ldexp2k(vh + vl, _rint_small_i64(qu) - np.int64(2048))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cbrt_float64(d):
    """Cube root; port of SLEEF xcbrt_u1. Bound: 1.0 ulp."""
    r = _cbrt_kernel(d)
    return d if (d == 0.0) | (abs(d) == np.inf) | (d != d) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _cbrt_fast(d):
    """cbrt in plain float64 (SLEEF xcbrt, u35: a few float64 ulps) for finite non-zero d."""
    e = _ilogbk(abs(d)) + np.int64(1)
    d = _ldexp2k(d, -e)
    t = _i64_to_f64_small(e) + 6144.0
    qu = _trunc_small(t * (1.0 / 3.0))
    re = t - qu * 3.0
    q = 1.2599210498948731647672106 if re == 1.0 else (1.5874010519681994747517056 if re == 2.0 else 1.0)
    q = _ldexp2k(q, _rint_small_i64(qu) - np.int64(2048))
    q = _mulsign(q, d)
    d = abs(d)
    x = -0.640245898480692909870982
    x = _mla(x, d, 2.96155103020039511818595)
    x = _mla(x, d, -5.73353060922947843636166)
    x = _mla(x, d, 6.03990368989458747961407)
    x = _mla(x, d, -3.85841935510444988821632)
    x = _mla(x, d, 2.2307275302496609725722)
    y = x * x
    y = y * y
    x = x - (d * y - x) * (1.0 / 3.0)
    y = d * x * x
    return (y - (2.0 / 3.0) * y * _mla(y, x, -1.0)) * q


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cbrt_float32(x):
    """float32 cube root via SLEEF xcbrt (u35, plain float64), computed in float64 with a cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double rounding. Bound: 1.0 ulp."""
    d = np.float64(x)
    r = _cbrt_fast(d)
    return np.float32(d if (d == 0.0) | (abs(d) == np.inf) | (d != d) else r)