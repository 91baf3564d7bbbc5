"""arcsin, arccos, arctan, arctan2 (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _asin_poly(x2):
    """The arcsin polynomial in x**2 (SLEEF xasin_u1)."""
    u = 0.3161587650653934628e-1
    u = _mla(u, x2, -0.1581918243329996643e-1)
    u = _mla(u, x2, 0.1929045477267910674e-1)
    u = _mla(u, x2, 0.6606077476277170610e-2)
    u = _mla(u, x2, 0.1215360525577377331e-1)
    u = _mla(u, x2, 0.1388715184501609218e-1)
    u = _mla(u, x2, 0.1735956991223614604e-1)
    u = _mla(u, x2, 0.2237176181932048341e-1)
    u = _mla(u, x2, 0.3038195928038132237e-1)
    u = _mla(u, x2, 0.4464285681377102438e-1)
    u = _mla(u, x2, 0.7500000000378581611e-1)
    u = _mla(u, x2, 0.1666666666666497543e+0)
    return u


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _asin_reduce(d):
    """(small, x2, xh, xl): for |d| < 0.5 x = |d|, x2 = d**2; else x = sqrt((1-|d|)/2)
    as a double-double and x2 = (1-|d|)/2 (SLEEF xasin_u1 / xacos_u1)."""
    a = abs(d)
    small = a < 0.5
    x2 = d * d if small else (1.0 - a) * 0.5
    rh, rl = _dd_sqrt_d(x2)
    xh = a if small else rh
    xl = 0.0 if small else rl
    one = a == 1.0
    return small, x2, (0.0 if one else xh), (0.0 if one else xl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _asin_tail(d, small, x2, xh, xl):
    """arcsin from the reduced argument: x + x**3 P(x**2), or pi/2 - 2 asin(sqrt((1-|d|)/2))."""
    u = _asin_poly(x2) * (x2 * xh)
    yh, yl = _dd_sub_dd_dd(3.141592653589793116 / 4, 1.2246467991473532072e-16 / 4, xh, xl)
    yh, yl = _dd_sub_dd_d(yh, yl, u)
    r = u + xh if small else (yh + yl) * 2.0
    return _mulsign(r, d)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arcsin_float64(d):
    """arcsin; port of SLEEF xasin_u1. Bound: 1.0 ulp."""
    small, x2, xh, xl = _asin_reduce(d)
    return _asin_tail(d, small, x2, xh, xl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _acos_tail(d, small, x2, xh, xl):
    """arccos from the reduced argument: pi/2 - asin(d), 2 asin(sqrt((1-|d|)/2)), or pi minus that."""
    u = _asin_poly(x2) * (x2 * xh)
    ah, al = _dd_add_d_d(_mulsign(xh, d), _mulsign(u, d))
    yh, yl = _dd_sub_dd_dd(3.141592653589793116 / 2, 1.2246467991473532072e-16 / 2, ah, al)
    xh, xl = _dd_add_dd_d(xh, xl, u)
    yh = yh if small else xh * 2.0
    yl = yl if small else xl * 2.0
    ph, pl = _dd_sub_dd_dd(3.141592653589793116, 1.2246467991473532072e-16, yh, yl)
    flip = (not small) & (d < 0.0)
    return (ph + pl) if flip else (yh + yl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arccos_float64(d):
    """arccos; port of SLEEF xacos_u1. Bound: 1.0 ulp."""
    small, x2, xh, xl = _asin_reduce(d)
    return _acos_tail(d, small, x2, xh, xl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _atan2k_u1(yh, yl, xh, xl):
    """atan2 of double-doubles y >= 0 and x, as a double-double (SLEEF atan2k_u1)."""
    q = -2.0 if _sign_bit(xh) else 0.0
    neg = xh < 0.0
    xh = -xh if neg else xh
    xl = -xl if neg else xl
    p = xh < yh
    q = q + 1.0 if p else q
    sh = -xh if p else yh
    sl = -xl if p else yl
    th = yh if p else xh
    tl = yl if p else xl
    sh, sl = _dd_div(sh, sl, th, tl)
    th, tl = _dd_squ(sh, sl)
    th, tl = _dd_normalize(th, tl)
    u = 1.06298484191448746607415e-05
    u = _mla(u, th, -0.000125620649967286867384336)
    u = _mla(u, th, 0.00070557664296393412389774)
    u = _mla(u, th, -0.00251865614498713360352999)
    u = _mla(u, th, 0.00646262899036991172313504)
    u = _mla(u, th, -0.0128281333663399031014274)
    u = _mla(u, th, 0.0208024799924145797902497)
    u = _mla(u, th, -0.0289002344784740315686289)
    u = _mla(u, th, 0.0359785005035104590853656)
    u = _mla(u, th, -0.041848579703592507506027)
    u = _mla(u, th, 0.0470843011653283988193763)
    u = _mla(u, th, -0.0524914210588448421068719)
    u = _mla(u, th, 0.0587946590969581003860434)
    u = _mla(u, th, -0.0666620884778795497194182)
    u = _mla(u, th, 0.0769225330296203768654095)
    u = _mla(u, th, -0.0909090442773387574781907)
    u = _mla(u, th, 0.111111108376896236538123)
    u = _mla(u, th, -0.142857142756268568062339)
    u = _mla(u, th, 0.199999999997977351284817)
    u = _mla(u, th, -0.333333333333317605173818)
    ah, al = _dd_mul_dd_dd(sh, sl, th, tl)
    ah, al = _dd_mul_dd_d(ah, al, u)
    th, tl = _dd_add_dd_dd(sh, sl, ah, al)
    # q is -2, -1, 0 or 1: q * (pi/2 as a double-double) is exact part by part
    return _dd_add_dd_dd(1.570796326794896557998982 * q, 6.12323399573676603586882e-17 * q, th, tl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arctan_float64(d):
    """arctan; port of SLEEF xatan_u1. Bound: 1.0 ulp."""
    rh, rl = _atan2k_u1(abs(d), 0.0, 1.0, 0.0)
    return _atan_finish(d, rh + rl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _atan_finish(d, r):
    """arctan's infinities, tiny arguments and sign."""
    r = 1.570796326794896557998982 if abs(d) == np.inf else r
    r = abs(d) if abs(d) < 1e-9 else r
    return _mulsign(r, d)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _atan2_finish(y, x, r):
    """atan2's special values (C99 table) and signs (SLEEF xatan2_u1's tail)."""
    # tiny quotients (results down to the subnormal range): atan(t) rounds to t = |y|/x
    t = _div(abs(y), x)
    r = t if (t > 0.0) & (t < 1e-9) else r
    r = _mulsign(r, x)
    xinf = abs(x) == np.inf
    r = (1.5707963267948966 - (np.copysign(1.5707963267948966, x) if xinf else 0.0)) \
        if xinf | (x == 0.0) else r
    r = (1.5707963267948966 - (np.copysign(0.7853981633974483, x) if xinf else 0.0)) \
        if abs(y) == np.inf else r
    r = (3.141592653589793 if _sign_bit(x) else 0.0) if y == 0.0 else r
    return np.nan if (x != x) | (y != y) else _mulsign(r, y)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arctan2_float64(y, x):
    """arctan2(y, x); port of SLEEF xatan2_u1. Bound: 1.0 ulp."""
    tiny = abs(x) < 5.5626846462680083984e-309
    xs = x * 9007199254740992.0 if tiny else x
    # (a huge y needs no scaling: the result is +-pi/2 either way)
    ys = y * 9007199254740992.0 if tiny & (abs(y) < 1e290) else y
    rh, rl = _atan2k_u1(abs(ys), 0.0, xs, 0.0)
    return _atan2_finish(y, x, rh + rl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _atan_core(s):
    """atan(s) for |s| <= 1 in float64 (SLEEF atan2k's polynomial, a few ulps)."""
    t = s * s
    u = -1.88796008463073496563746e-05
    u = _mla(u, t, 0.000209850076645816976906797)
    u = _mla(u, t, -0.00110611831486672482563471)
    u = _mla(u, t, 0.00370026744188713119232403)
    u = _mla(u, t, -0.00889896195887655491740809)
    u = _mla(u, t, 0.016599329773529201970117)
    u = _mla(u, t, -0.0254517624932312641616861)
    u = _mla(u, t, 0.0337852580001353069993897)
    u = _mla(u, t, -0.0407629191276836500001934)
    u = _mla(u, t, 0.0466667150077840625632675)
    u = _mla(u, t, -0.0523674852303482457616113)
    u = _mla(u, t, 0.0587666392926673580854313)
    u = _mla(u, t, -0.0666573579361080525984562)
    u = _mla(u, t, 0.0769219538311769618355029)
    u = _mla(u, t, -0.090908995008245008229153)
    u = _mla(u, t, 0.111111105648261418443745)
    u = _mla(u, t, -0.14285714266771329383765)
    u = _mla(u, t, 0.199999999996591265594148)
    u = _mla(u, t, -0.333333333333311110369124)
    return _mla(s, t * u, s)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _atan2k_fast(y, x):
    """atan2(y, x) for y >= 0 (SLEEF atan2k, plain float64)."""
    q = -2.0 if _sign_bit(x) else 0.0
    x = abs(x)
    p = x < y
    q = q + 1.0 if p else q
    s = _div(-x if p else y, y if p else x)
    return _mla(q, 1.5707963267948966, _atan_core(s))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _asin_fast(d):
    """(asin(|d|) as float64, the |d| < 0.5 flag) in plain float64 (SLEEF xasin)."""
    a = abs(d)
    small = a < 0.5
    x2 = d * d if small else (1.0 - a) * 0.5
    x = a if small else np.sqrt(x2)
    u = _asin_poly(x2)
    u = _mla(u, x * x2, x)
    return u, small


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arcsin_float32(x):
    """float32 arcsin via SLEEF xasin (u35, plain float64), computed in float64 with a
    cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double rounding.
    Bound: 1.0 ulp."""
    d = np.float64(x)
    u, small = _asin_fast(d)
    r = u if small else _mla(u, -2.0, 1.5707963267948966)
    return np.float32(_mulsign(r, d))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arccos_float32(x):
    """float32 arccos via SLEEF xacos (u35, plain float64), computed in float64 with a
    cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double rounding.
    Bound: 1.0 ulp."""
    d = np.float64(x)
    u, small = _asin_fast(d)
    r = 1.5707963267948966 - _mulsign(u, d) if small else u * 2.0
    r = 3.141592653589793 - r if (not small) & (d < 0.0) else r
    return np.float32(r)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arctan_float32(x):
    """float32 arctan via SLEEF atan2k (u35, plain float64), computed in float64 with a
    cheap kernel (a few float64 ulps) and rounded: <= 0.5 ulp + a double rounding.
    Bound: 1.0 ulp."""
    d = np.float64(x)
    r = _atan2k_fast(abs(d), 1.0)
    r = 1.5707963267948966 if abs(d) == np.inf else r
    return np.float32(_mulsign(r, d))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def arctan2_float32(y, x):
    """float32 arctan2 via SLEEF atan2k (u35, plain float64) and arctan2_float64's special
    cases, computed in float64 with a cheap kernel (a few float64 ulps) and rounded: <=
    0.5 ulp + a double rounding. Bound: 1.0 ulp."""
    dy = np.float64(y)
    dx = np.float64(x)
    r = _atan2k_fast(abs(dy), dx)
    return np.float32(_atan2_finish(dy, dx, r))
