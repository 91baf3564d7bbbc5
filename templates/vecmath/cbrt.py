"""cbrt (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cbrt_float64(d):
    """Cube root: SLEEF xcbrt's estimate (inverse-cube-root polynomial, Newton steps,
    2**(1/3) factors), then one Newton step y - (y**3 - s) / (3 y**2) with the residual
    computed exactly in double-double on the scaled argument s = |d| 2**-3k in [0.5, 4)
    (so nothing under- or overflows); the result is scaled back by 2**k exactly.
    Bound: 1.0 ulp (measured 0.5)."""
    a = abs(d)
    e = _ilogbk(a) + np.int64(1)
    t = _i64_to_f64_small(e) + 6144.0
    qu = _trunc_small(t * (1.0 / 3.0))
    k = _rint_small_i64(qu) - np.int64(2048)
    # a = ds 2**(3k) with ds in [0.5, 4): both scalings exact
    ds = _ldexp2k(a, -3 * k)
    re = t - qu * 3.0
    q = 1.2599210498948731647672106 if re == 1.0 else (1.5874010519681994747517056 if re == 2.0 else 1.0)
    m = _ldexp2k(a, -e)
    x = -0.640245898480692909870982
    x = _mla(x, m, 2.96155103020039511818595)
    x = _mla(x, m, -5.73353060922947843636166)
    x = _mla(x, m, 6.03990368989458747961407)
    x = _mla(x, m, -3.85841935510444988821632)
    x = _mla(x, m, 2.2307275302496609725722)
    y = x * x
    y = y * y
    x = x - (m * y - x) * (1.0 / 3.0)
    y = m * x * x
    y = (y - (2.0 / 3.0) * y * _mla(y, x, -1.0)) * q
    # one Newton step with the exact residual y**3 - ds
    y2h, y2l = _dd_mul_d_d(y, y)
    y3h, y3l = _dd_mul_dd_d(y2h, y2l, y)
    r = (y3h - ds) + y3l
    y = y - _div(r, 3.0 * y2h)
    r = _mulsign(_ldexp2k(y, k), d)
    return d if (d == 0.0) | (a == np.inf) | (d != d) else r


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
    """float32 cube root via SLEEF xcbrt (u35, plain float64), computed in float64 with a
    cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double rounding.
    Bound: 1.0 ulp."""
    d = np.float64(x)
    r = _cbrt_fast(d)
    return np.float32(d if (d == 0.0) | (abs(d) == np.inf) | (d != d) else r)
