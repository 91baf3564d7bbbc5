"""log, log2, log10, log1p (float64 and float32), and the double-double log kernels.

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log_reduce(d):
    """Split positive ``d`` into ``m * 2**e`` with m in [sqrt(2)/2, sqrt(2)) (subnormals
    scaled by 2**64 first); returns (m, e as float64)."""
    small = d < 2.2250738585072014e-308
    d = d * 18446744073709551616.0 if small else d
    e = _ilogb2k(d * 1.4142135623730950488)
    m = _ldexp3k(d, -e)
    ef = _i64_to_f64_small(e)
    return m, (ef - 64.0 if small else ef)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log1p_parts(f):
    """For f in [sqrt(2)/2 - 1, sqrt(2) - 1): s = f / (2 + f), hfsq = f**2 / 2 and
    R = s**2 P(s**2) with log(1 + f) = 2 atanh(s) = 2s + s R = f - (hfsq - s (hfsq + R))
    (fdlibm's arrangement: the large term f is exact, only corrections are rounded).
    P is the atanh series 2/3 + 2z/5 + ... + 2z**9/21 (z = s**2 <= 0.0295; truncation
    error < 1e-16 relative)."""
    s = _div(f, 2.0 + f)
    z = s * s
    t = 2.0 / 21.0
    t = _mla(t, z, 2.0 / 19.0)
    t = _mla(t, z, 2.0 / 17.0)
    t = _mla(t, z, 2.0 / 15.0)
    t = _mla(t, z, 2.0 / 13.0)
    t = _mla(t, z, 2.0 / 11.0)
    t = _mla(t, z, 2.0 / 9.0)
    t = _mla(t, z, 2.0 / 7.0)
    t = _mla(t, z, 2.0 / 5.0)
    t = _mla(t, z, 2.0 / 3.0)
    return s, 0.5 * f * f, t * z


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log1p_assemble(e, f):
    """e ln 2 + log(1 + f), ln 2 split so that e * hi is exact."""
    s, hfsq, r = _log1p_parts(f)
    # f**2 / 2 exactly (two-product) and e ln2_hi + f exactly (two-sum), so only small
    # corrections are rounded before the final addition
    ah, al = _dd_add2_d_d(e * 0.693147180369123816490, f)
    return ah + (al - ((hfsq - s * (hfsq + r)) - e * 1.90821492927058770002e-10))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log1p_hi_lo(f):
    """log(1 + f) as hi + lo with hi having 26 significant bits, so hi times a 26-bit
    constant is exact (for log2 and log10)."""
    s, hfsq, r = _log1p_parts(f)
    hh, hl = _dd_mul_d_d(f, f * 0.5)
    hi = _upper(f - hh)
    lo = ((f - hi) - hh) - (hl - s * (hfsq + r))
    return hi, lo


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log_special(d, r):
    """log-family results at special inputs: +inf -> inf, negative or nan -> nan,
    +-0 -> -inf."""
    r = np.inf if d == np.inf else r
    r = np.nan if (d < 0.0) | (d != d) else r
    return -np.inf if d == 0.0 else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log_float64(d):
    """Natural log: d = (1 + f) 2**e, log(1 + f) by fdlibm's arrangement of SLEEF-style
    reduction, no double-double. Bound: 1.0 ulp (measured 0.93)."""
    m, e = _log_reduce(d)
    return _log_special(d, _log1p_assemble(e, m - 1.0))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log2_float64(d):
    """Base-2 log: e + log(1 + f) / ln 2 with log(1 + f) = hi + lo and 1/ln 2 split
    (hi * hi-part exact), as fdlibm's e_log2.c arranges it. Bound: 1.0 ulp."""
    m, e = _log_reduce(d)
    hi, lo = _log1p_hi_lo(m - 1.0)
    val_hi = hi * 1.4426950216293335
    val_lo = (lo + hi) * 1.9259629911266175e-08 + lo * 1.4426950216293335
    w = e + val_hi
    val_lo = val_lo + ((e - w) + val_hi)
    return _log_special(d, val_lo + w)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log10_float64(d):
    """Base-10 log: e log10(2) + log(1 + f) / ln 10 with exact hi products (fdlibm's
    e_log10.c arrangement). Bound: 1.0 ulp."""
    m, e = _log_reduce(d)
    hi, lo = _log1p_hi_lo(m - 1.0)
    y2 = e * 3.01029995663611771306e-01
    val_hi = hi * 0.4342944771051407
    val_lo = e * 3.694239077158931e-13 + (lo + hi) * 4.798111141615973e-09 + lo * 0.4342944771051407
    w = y2 + val_hi
    val_lo = val_lo + ((y2 - w) + val_hi)
    return _log_special(d, val_lo + w)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log1p_float64(d):
    """log(1 + d): 1 + d = (1 + m + c) 2**e with m + c = d 2**-e + (2**-e - 1) exactly (the
    reduction of SLEEF xlog1p, with an exact two-step scale factor so that the whole
    range is valid), then log(1 + m) as in log_float64 plus c / (1 + m) (fdlibm log1p's
    correction). Bound: 1.0 ulp."""
    dp1 = d + 1.0
    e = _ilogb2k(dp1 * 1.4142135623730950488)
    e = np.int64(-2) if dp1 < 1e-300 else e
    t = _ldexp2k(1.0, -e)
    # m + c = d 2**-e + (2**-e - 1) exactly (both terms are exact); log(1 + m + c) =
    # log(1 + m) + c / (1 + m) to first order
    m, c = _dd_add2_d_d(d * t, t - 1.0)
    ef = _i64_to_f64_small(e)
    sf, hfsq, rr = _log1p_parts(m)
    ah, al = _dd_add2_d_d(ef * 0.693147180369123816490, m)
    r = ah + (al - ((hfsq - sf * (hfsq + rr)) - (ef * 1.90821492927058770002e-10 + _div(c, 1.0 + m))))
    r = np.inf if d == np.inf else r
    r = np.nan if (d < -1.0) | (d != d) else r
    r = -np.inf if d == -1.0 else r
    # log1p(d) rounds to d for |d| < 2**-54 (also keeps zeros' signs and subnormals)
    return d if abs(d) < 1e-20 else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _logk(d):
    """log(d) as a double-double, for power (SLEEF logk)."""
    m, e = _log_reduce(d)
    nh, nl = _dd_add2_d_d(-1.0, m)
    dh, dl = _dd_add2_d_d(1.0, m)
    xh, xl = _dd_div(nh, nl, dh, dl)
    x2h, x2l = _dd_squ(xh, xl)
    t = 0.116255524079935043668677
    t = _mla(t, x2h, 0.103239680901072952701192)
    t = _mla(t, x2h, 0.117754809412463995466069)
    t = _mla(t, x2h, 0.13332981086846273921509)
    t = _mla(t, x2h, 0.153846227114512262845736)
    t = _mla(t, x2h, 0.181818180850050775676507)
    t = _mla(t, x2h, 0.222222222230083560345903)
    t = _mla(t, x2h, 0.285714285714249172087875)
    t = _mla(t, x2h, 0.400000000000000077715612)
    sh, sl = _dd_add_d_d(e * 0.693147180369123816490, e * 1.90821492927058770002e-10)
    sh, sl = _dd_add_dd_dd(sh, sl, xh * 2.0, xl * 2.0)
    x3h, x3l = _dd_mul_dd_dd(x2h, x2l, xh, xl)
    ph, pl = _dd_mul_dd_dd(x3h, x3l, 0.666666666666666629659233, 3.80554962542412056336616e-17)
    sh, sl = _dd_add_dd_dd(sh, sl, ph, pl)
    x5h, x5l = _dd_mul_dd_dd(x2h, x2l, x3h, x3l)
    ph, pl = _dd_mul_dd_d(x5h, x5l, t)
    return _dd_add_dd_dd(sh, sl, ph, pl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _logk2(dh, dl):
    """log of a positive normal double-double, as a double-double (SLEEF logk2)."""
    e = _ilogbk(dh * (1.0 / 0.75))
    return _logk2_reduced(_ldexp2k(dh, -e), _ldexp2k(dl, -e), e)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _logk2_normal(dh, dl):
    """_logk2 of a double-double from 2**-1000 to 2**1000 whose low part is 0 or not below
    2**-1000 (arcsinh's and arccosh's arguments): its exponent needs no subnormal step, and one
    power of two scales both parts exactly."""
    e = _ilogb2k(dh * (1.0 / 0.75))
    scale = _pow2i(-e)
    return _logk2_reduced(dh * scale, dl * scale, e)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _logk2_reduced(mh, ml, e):
    """log((mh + ml) 2**e) as a double-double, mh + ml in [0.75, 1.5) (the rest of SLEEF logk2)."""
    nh, nl = _dd_add2_dd_d(mh, ml, -1.0)
    ah, al = _dd_add2_dd_d(mh, ml, 1.0)
    xh, xl = _dd_div(nh, nl, ah, al)
    x2h, x2l = _dd_squ(xh, xl)
    t = 0.13860436390467167910856
    t = _mla(t, x2h, 0.131699838841615374240845)
    t = _mla(t, x2h, 0.153914168346271945653214)
    t = _mla(t, x2h, 0.181816523941564611721589)
    t = _mla(t, x2h, 0.22222224632662035403996)
    t = _mla(t, x2h, 0.285714285511134091777308)
    t = _mla(t, x2h, 0.400000000000914013309483)
    t = _mla(t, x2h, 0.666666666666664853302393)
    ef = _i64_to_f64_small(e)
    sh, sl = _dd_add_d_d(ef * 0.693147180369123816490, ef * 1.90821492927058770002e-10)
    sh, sl = _dd_add_dd_dd(sh, sl, xh * 2.0, xl * 2.0)
    x3h, x3l = _dd_mul_dd_dd(x2h, x2l, xh, xl)
    ph, pl = _dd_mul_dd_d(x3h, x3l, t)
    return _dd_add_dd_dd(sh, sl, ph, pl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log1p_parts_f32(f):
    """For f in [sqrt(2)/2 - 1, 0.5): s = f / (2 + f), f**2 / 2 and R with log(1 + f) =
    f - (f**2/2 - s (f**2/2 + R)) (the fdlibm arrangement: the large term f is exact),
    R = s**2 P(s**2) with SLEEF xlogf's polynomial."""
    s = _div_f32(f, np.float32(2.0) + f)
    z = s * s
    r = np.float32(0.2392828464508056640625)
    r = _mla_f32(r, z, np.float32(0.28518211841583251953125))
    r = _mla_f32(r, z, np.float32(0.400005877017974853515625))
    r = _mla_f32(r, z, np.float32(0.666666686534881591796875))
    return s, np.float32(0.5) * f * f, r * z


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log1p_assemble_f32(e, f):
    """e ln 2 + log(1 + f) in float32, ln 2 split so that e * hi is exact."""
    s, hfsq, r = _log1p_parts_f32(f)
    lo = e * np.float32(1.428606765330187045e-06)
    return e * np.float32(0.693145751953125) - ((hfsq - (s * (hfsq + r) + lo)) - f)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log_reduce_f32(d, top):
    """Split positive float32 ``d`` into ``m * 2**e`` with m in [top / 2, top) (subnormals
    scaled by 2**64 first); returns (m, e as float32)."""
    small = d < np.float32(1.17549435e-38)
    ds = d * np.float32(1.8446744073709552e19) if small else d
    e = _ilogb2k_f32(ds * (np.float32(2.0) / top))
    m = _ldexp3k_f32(ds, np.int32(-e))
    ef = _i32_to_f32_small(e)
    return m, (ef - np.float32(64.0) if small else ef)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log_special_f32(d, r):
    """float32 log-family results at special inputs: +inf -> inf, negative or nan -> nan,
    +-0 -> -inf."""
    r = np.float32(np.inf) if d == np.float32(np.inf) else r
    r = np.float32(np.nan) if (d < np.float32(0.0)) | (d != d) else r
    return np.float32(-np.inf) if d == np.float32(0.0) else r


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _log1p_hi_lo_f32(f):
    """log(1 + f) in float32 as hi + lo with hi's low 12 bits clear, so hi times a constant
    of 12 significant bits is exact (fdlibm's e_log2f.c and e_log10f.c), for f in
    [sqrt(2)/2 - 1, sqrt(2) - 1) as there: up to 0.5 it reached 1.39 ulps in log2."""
    s, hfsq, r = _log1p_parts_f32(f)
    hi = _f32_from_bits(_f32_bits(f - hfsq) & np.int32(-4096))
    lo = ((f - hi) - hfsq) + s * (hfsq + r)
    return hi, lo


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log_float32(d):
    """float32 natural log, native float32: d = (1 + f) 2**e with 1 + f in [0.75, 1.5).
    Bound: 1.0 ulp."""
    m, ef = _log_reduce_f32(d, np.float32(1.5))
    return _log_special_f32(d, _log1p_assemble_f32(ef, m - np.float32(1.0)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log2_float32(d):
    """float32 log2, native float32: e + log(1 + f) / ln 2 with log(1 + f) = hi + lo and 1/ln 2
    split so that hi times its high part is exact, as fdlibm's e_log2f.c arranges it (it was
    computed in float64, at 1.7x the time). Bound: 1.0 ulp."""
    m, ef = _log_reduce_f32(d, np.float32(1.4142135623730951))
    hi, lo = _log1p_hi_lo_f32(m - np.float32(1.0))
    r = (lo + hi) * np.float32(-0.00017605285393074155) + lo * np.float32(1.44287109375)
    r = r + hi * np.float32(1.44287109375) + ef
    return _log_special_f32(d, r)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log10_float32(d):
    """float32 log10, native float32: e log10(2) + log(1 + f) / ln 10 with the products of the
    high parts exact, as fdlibm's e_log10f.c arranges it (it was computed in float64, at 1.9x
    the time). Bound: 1.0 ulp."""
    m, ef = _log_reduce_f32(d, np.float32(1.4142135623730951))
    hi, lo = _log1p_hi_lo_f32(m - np.float32(1.0))
    r = ef * np.float32(7.903415166765626e-07) + (lo + hi) * np.float32(-3.168997136526741e-05)
    r = r + lo * np.float32(0.434326171875) + hi * np.float32(0.434326171875)
    r = r + ef * np.float32(0.3010292053222656)
    return _log_special_f32(d, r)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def log1p_float32(d):
    """float32 log(1 + d), native float32: 1 + d = (1 + m) 2**e with m computed as
    d 2**-e + (2**-e - 1). Bound: 1.0 ulp."""
    dp1 = d + np.float32(1.0)
    e = _ilogb2k_f32(dp1 * np.float32(1.0 / 0.75))
    e = np.int32(-2) if dp1 < np.float32(1e-30) else e
    t = _ldexp2k_f32(np.float32(1.0), np.int32(-e))
    m = _mla_f32(d, t, t - np.float32(1.0))
    r = _log1p_assemble_f32(_i32_to_f32_small(e), m)
    r = np.float32(np.inf) if d == np.float32(np.inf) else r
    r = np.float32(np.nan) if (d < np.float32(-1.0)) | (d != d) else r
    r = np.float32(-np.inf) if d == np.float32(-1.0) else r
    return d if abs(d) < np.float32(1e-9) else r
