"""sinh, cosh, tanh, arcsinh, arccosh, arctanh (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).

sinh, cosh and tanh (float64) are built on exp.py's double-double e**x - 1 (fdlibm's
formulas) instead of SLEEF's expk2, which is twice as fast; sinh/cosh use
2**(q-1) (1 + p) above 20 so that results up to DBL_MAX (|x| <= 710.4758600739439) are
finite. Changes from SLEEF: arcsinh/arccosh use log(x) + ln 2 above
2**500 instead of returning inf above sqrt(DBL_MAX); arcsinh works on |x| (no
cancellation for negative x). Their arguments, x + sqrt(x**2 +- 1), take one double-double
square root of x**2 +- 1 (no reciprocal, one root for arccosh where SLEEF takes two), and their
logarithm one power of two to scale (2**-600 x above 2**500, 601 ln 2 added back): float64
arcsinh of 10^5 values 1175 -> 714 us and arccosh 914 -> 593 us against NumPy's AVX2 loops'
1124 and 607 (an x86-64-v3 build on a Zen 4 EPYC, NumPy with NPY_DISABLE_CPU_FEATURES="X86_V4
AVX512_ICL", one process), with common.py's double-double reciprocals and quotients by FMA.
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _exp_half_big(ph, pl, q):
    """e**y / 2 = 2**(q-1) (1 + p), by two exact scalings (finite up to DBL_MAX)."""
    return _ldexp2k(1.0 + (ph + pl), q - np.int64(1))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def sinh_float64(x):
    """sinh: with D = e**|x| - 1 as a double-double (exp.py's _expm1_parts),
    sinh = (D + D / (D + 1)) / 2 (fdlibm's formula) up to 20, e**|x| / 2 =
    2**(q-1) (1 + p) above (finite up to |x| = 710.4758600739439). Bound: 1.0 ulp."""
    y = abs(x)
    ph, pl, q = _expm1_parts(710.5 if y > 710.5 else y)
    dh, dl = _expm1_combine(ph, pl, np.int64(64) if y > 20.0 else q)
    # F = D / (D + 1), corrected by its exact residual
    eh, el = _dd_add2_d_d(dh, 1.0)
    el = el + dl
    fh = _div(dh, eh)
    mh, me = _dd_mul_d_d(fh, eh)
    fl = _div(((dh - mh) - me) + (dl - fh * el), eh)
    sh, sl = _dd_add2_d_d(dh, fh)
    r = (sh + (sl + (dl + fl))) * 0.5
    r = _exp_half_big(ph, pl, q) if y > 20.0 else r
    r = np.inf if y > 710.4758600739439 else r
    r = y if y < 1e-9 else r
    r = _mulsign(r, x)
    return x if x != x else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cosh_float64(x):
    """cosh: (E + 1/E) / 2 with E = 1 + D, D = e**|x| - 1 as a double-double, up to 20;
    e**|x| / 2 = 2**(q-1) (1 + p) above. Bound: 1.0 ulp."""
    y = abs(x)
    ph, pl, q = _expm1_parts(710.5 if y > 710.5 else y)
    dh, dl = _expm1_combine(ph, pl, np.int64(64) if y > 20.0 else q)
    eh, el = _dd_add2_d_d(1.0, dh)
    el = el + dl
    rh, rl = _dd_rec_dd(eh, el)
    sh, sl = _dd_add_dd_dd(eh, el, rh, rl)
    r = (sh + sl) * 0.5
    r = _exp_half_big(ph, pl, q) if y > 20.0 else r
    r = np.inf if y > 710.4758600739439 else r
    return x if x != x else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def tanh_float64(x):
    """tanh = D / (D + 2) with D = e**(2|x|) - 1 as a double-double, the quotient
    corrected by its exact residual. Bound: 1.0 ulp (measured 0.56)."""
    y = abs(x)
    dh, dl = _expm1_dd(2.0 * (19.5 if y > 19.5 else y))
    mh, ml = _dd_add2_d_d(dh, 2.0)
    ml = ml + dl
    qh = _div(dh, mh)
    ph, pe = _dd_mul_d_d(qh, mh)
    r = qh + _div(((dh - ph) - pe) + (dl - qh * ml), mh)
    # 1 - tanh(y) < 2**-54 above 19.06: the result rounds to 1
    r = 1.0 if y > 19.1 else r
    r = y if y < 1e-9 else r
    r = _mulsign(r, x)
    return x if x != x else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _asinh_arg(y):
    """|x| + sqrt(x**2 + 1) as a normalised double-double, for y = |x| <= 2**500 (y**2 cannot
    overflow there); 2**-600 y above. SLEEF's xasinh takes 1/y above 1 to keep y**2 finite up to
    DBL_MAX: with the logarithm of 2y above 2**500 that costs a division for nothing."""
    sh, sl = _dd_mul_d_d(y, y)
    sh, sl = _dd_add2_dd_d(sh, sl, 1.0)
    dh, dl = _dd_sqrt_dd(sh, sl)
    dh, dl = _dd_add2_dd_d(dh, dl, y)
    dh, dl = _dd_normalize(dh, dl)
    big = y > 3.273390607896142e150
    return (y * 2.409919865102884e-181 if big else dh), (0.0 if big else dl)  # 2**-600 y


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log_plus_ln2_if(dh, dl, big):
    """log(d) (+ 601 ln 2 when big: d is 2**-600 x there, so that the logarithm's argument is
    within 2**+-1000 and its scaling one power of two), rounded to a double."""
    lh, ll = _logk2_normal(dh, dl)
    sh, sl = _dd_add2_dd_dd(lh, ll, 416.5814555165271 if big else 0.0, 1.649098430785412e-14 if big else 0.0)
    return sh + sl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arcsinh_float64(x):
    """arcsinh; port of SLEEF xasinh (u10), on |x|, with log(2|x|) above 2**500.
    Bound: 1.0 ulp."""
    y = abs(x)
    dh, dl = _asinh_arg(y)
    r = _log_plus_ln2_if(dh, dl, y > 3.273390607896142e150)
    r = np.inf if y == np.inf else r
    r = y if y < 1e-9 else r
    r = _mulsign(r, x)
    return x if x != x else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _acosh_arg(x):
    """x + sqrt((x + 1) (x - 1)) as a double-double, 2**-600 x above 2**500. SLEEF's xacosh takes
    the two roots and multiplies them: one double-double root of the product costs a square root
    and a division less, to the same precision."""
    ah, al = _dd_add2_d_d(x, 1.0)
    bh, bl = _dd_add2_d_d(x, -1.0)
    ph, pl = _dd_mul_dd_dd(ah, al, bh, bl)
    ph, pl = _dd_sqrt_dd(ph, pl)
    dh, dl = _dd_add2_dd_d(ph, pl, x)
    big = x > 3.273390607896142e150
    return (x * 2.409919865102884e-181 if big else dh), (0.0 if big else dl)  # 2**-600 x


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arccosh_float64(x):
    """arccosh; port of SLEEF xacosh (u10), with log(2x) above 2**500. Bound: 1.0 ulp."""
    dh, dl = _acosh_arg(x)
    r = _log_plus_ln2_if(dh, dl, x > 3.273390607896142e150)
    r = np.inf if x == np.inf else r
    r = 0.0 if x == 1.0 else r
    return np.nan if (x < 1.0) | (x != x) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _atanh_kernel(y):
    """log((1 + y) / (1 - y)) / 2 in double-double (SLEEF xatanh)."""
    nh, nl = _dd_add2_d_d(1.0, y)
    dh, dl = _dd_add2_d_d(1.0, -y)
    qh, ql = _dd_div(nh, nl, dh, dl)
    lh, ll = _logk2(qh, ql)
    return (lh + ll) * 0.5


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arctanh_float64(x):
    """arctanh; port of SLEEF xatanh (u10). Bound: 1.0 ulp."""
    y = abs(x)
    r = _atanh_kernel(y)
    r = np.inf if y == 1.0 else r
    r = y if y < 1e-9 else r
    r = np.nan if y > 1.0 else r
    r = _mulsign(r, x)
    return x if x != x else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def sinh_float32(x):
    """float32 sinh: (e - 1/e) / 2 with e = exp_float64(|x|) (x + x**3/6 below 1e-5),
    computed in float64 with a cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp
    + a double rounding. Bound: 1.0 ulp."""
    d = np.float64(x)
    y = abs(d)
    e = exp_float64(y)
    r = 0.5 * (e - _div(1.0, e))
    r = _mla(y * y * y, 1.0 / 6.0, y) if y < 1e-5 else r
    return np.float32(_mulsign(r, d))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def cosh_float32(x):
    """float32 cosh: (e + 1/e) / 2 with e = exp_float64(|x|), computed in float64 with a
    cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double rounding.
    Bound: 1.0 ulp."""
    d = np.float64(x)
    e = exp_float64(abs(d))
    return np.float32(0.5 * (e + _div(1.0, e)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def tanh_float32(x):
    """float32 tanh, native float32: y + y**3 P(y**2) below 0.625 (minimax fit for this
    library), else d / (2 + d) with d = e**(2y) - 1 (SLEEF xtanhf's formula), y = |x|.
    d is expm1's 2**q u + (2**q - 1), e**(2y) = 2**q (1 + u), made for this range only:
    y is clamped to 9.1, where d / (2 + d) rounds to 1, so q <= 27 needs one exact
    scaling and none of expm1's range checks; 2**q - 1 is inexact above q = 24, which
    moves 1 - 2 / (2 + d) by far less than an ulp. Bound: 1.5 ulp."""
    y = abs(x)
    z = y * y
    p = np.float32(-0.00571700232103467)
    p = _mla_f32(p, z, np.float32(0.020650546997785568))
    p = _mla_f32(p, z, np.float32(-0.05374348536133766))
    p = _mla_f32(p, z, np.float32(0.13331490755081177))
    p = _mla_f32(p, z, np.float32(-0.3333328366279602))
    rs = _mla_f32(y * z, p, y)
    yc = np.float32(9.1) if y > np.float32(9.1) else y
    s, q = _exp_reduce_f32(yc + yc)
    t = _pow2i_f32(q)
    d = _mla_f32(_expm1_poly_f32(s) + s, t, t - np.float32(1.0))
    r = _div_f32(d, np.float32(2.0) + d)
    r = rs if y < np.float32(0.625) else r
    r = _mulsign_f32(r, x)
    return x if x != x else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arcsinh_float32(x):
    """float32 arcsinh: log1p(y + y**2 / (1 + sqrt(1 + y**2))) in float64, y = |x|,
    computed in float64 with a cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp
    + a double rounding. Bound: 1.0 ulp."""
    d = np.float64(x)
    y = abs(d)
    r = log1p_float64(y + _div(y * y, 1.0 + np.sqrt(1.0 + y * y)))
    r = np.inf if y == np.inf else r
    return np.float32(_mulsign(r, d))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arccosh_float32(x):
    """float32 arccosh: log1p(t + sqrt(t (x + 1))) in float64, t = x - 1, computed in
    float64 with a cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double
    rounding. Bound: 1.0 ulp."""
    d = np.float64(x)
    t = d - 1.0
    r = log1p_float64(t + np.sqrt(t * (d + 1.0)))
    r = np.inf if d == np.inf else r
    return np.float32(np.nan if (d < 1.0) | (d != d) else r)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arctanh_float32(x):
    """float32 arctanh: log1p(2y / (1 - y)) / 2 in float64, y = |x|, computed in float64
    with a cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double
    rounding. Bound: 1.0 ulp."""
    d = np.float64(x)
    y = abs(d)
    r = 0.5 * log1p_float64(_div(y + y, 1.0 - y))
    r = np.nan if y > 1.0 else r
    return np.float32(_mulsign(r, d) if d == d else d)
