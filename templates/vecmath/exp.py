"""exp, exp2, expm1 (float64 and float32).

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c / sleefsimdsp.c),
Copyright Naoki Shibata and contributors 2010 - 2024, distributed under the Boost
Software License, Version 1.0 (see LICENSE.sleef beside this file).
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def exp_float64(d):
    """e**d; port of SLEEF xexp (u10, the non-FMA polynomial): Cody-Waite reduction by
    ln 2 with a split constant whose products are exact, degree-11 polynomial, result
    scaled by two exact powers of two. Bound: 1.0 ulp."""
    u, q = _rint_small_both(d * 1.442695040888963407359924681001892137426645954152985934135449406931)
    s = _mla(u, -0.69314718055966295651160180568695068359375, d)
    s = _mla(u, -0.28235290563031577122588448175013436025525412068e-12, s)
    p = 2.08860621107283687536341e-09
    p = _mla(p, s, 2.51112930892876518610661e-08)
    p = _mla(p, s, 2.75573911234900471893338e-07)
    p = _mla(p, s, 2.75572362911928827629423e-06)
    p = _mla(p, s, 2.4801587159235472998791e-05)
    p = _mla(p, s, 0.000198412698960509205564975)
    p = _mla(p, s, 0.00138888888889774492207962)
    p = _mla(p, s, 0.00833333333331652721664984)
    p = _mla(p, s, 0.0416666666666665047591422)
    p = _mla(p, s, 0.166666666666666851703837)
    p = _mla(p, s, 0.5)
    p = 1.0 + _mla(s * s, p, s)
    p = _ldexp2k(p, q)
    # above log(DBL_MAX) = 709.7827128933840 the scaling overflows to inf by itself
    p = np.inf if d > 709.79 else p
    return 0.0 if d < -1000.0 else p


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _expk2(dh, dl):
    """e**(dh + dl) as a double-double (SLEEF expk2), for dh > -1000; the result is
    scaled by 2**q on both parts, so it is valid while the result is normal."""
    dq, q = _rint_small_both((dh + dl) * 1.442695040888963407359924681001892137426645954152985934135449406931)
    sh, sl = _dd_add2_dd_d(dh, dl, dq * -0.69314718055966295651160180568695068359375)
    sh, sl = _dd_add2_dd_d(sh, sl, dq * -0.28235290563031577122588448175013436025525412068e-12)
    s2h, s2l = _dd_squ(sh, sl)
    s4h, s4l = _dd_squ(s2h, s2l)
    p = 0.1602472219709932072e-9
    p = _mla(p, sh, 0.2092255183563157007e-8)
    p = _mla(p, sh, 0.2505230023782644465e-7)
    p = _mla(p, sh, 0.2755724800902135303e-6)
    p = _mla(p, sh, 0.2755731892386044373e-5)
    p = _mla(p, sh, 0.2480158735605815065e-4)
    p = _mla(p, sh, 0.1984126984148071858e-3)
    p = _mla(p, sh, 0.1388888888886763255e-2)
    p = _mla(p, sh, 0.8333333333333347095e-2)
    p = _mla(p, sh, 0.4166666666666669905e-1)
    th, tl = _dd_mul_dd_d(sh, sl, 0.1666666666666666574)
    th, tl = _dd_add_d_dd(0.5, th, tl)
    th, tl = _dd_mul_dd_dd(th, tl, sh, sl)
    th, tl = _dd_add_d_dd(1.0, th, tl)
    th, tl = _dd_mul_dd_dd(th, tl, sh, sl)
    th, tl = _dd_add_d_dd(1.0, th, tl)
    ph, pl = _dd_mul_dd_d(s4h, s4l, p)
    th, tl = _dd_add_dd_dd(th, tl, ph, pl)
    th = _ldexp2k(th, q)
    tl = _ldexp2k(tl, q)
    small = dh < -1000.0
    return (0.0 if small else th), (0.0 if small else tl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def expm1_float64(a):
    """e**a - 1; port of SLEEF xexpm1 (u10): double-double e**a minus 1. Bound: 1.0 ulp."""
    eh, el = _expk2(a, 0.0)
    dh, dl = _dd_add2_dd_d(eh, el, -1.0)
    x = dh + dl
    x = np.inf if a > 709.782712893383996732223 else x
    x = -1.0 if a < -38.0 else x
    return a if (a == 0.0) | (a != a) else x


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def exp2_float64(d):
    """2**d; port of SLEEF xexp2 (u10): d = q + s, degree-11 polynomial, last step in
    double-double. Bound: 1.0 ulp."""
    u, q = _rint_small_both(d)
    s = d - u
    p = 0.4434359082926529454e-9
    p = _mla(p, s, 0.7073164598085707425e-8)
    p = _mla(p, s, 0.1017819260921760451e-6)
    p = _mla(p, s, 0.1321543872511327615e-5)
    p = _mla(p, s, 0.1525273353517584730e-4)
    p = _mla(p, s, 0.1540353045101147808e-3)
    p = _mla(p, s, 0.1333355814670499073e-2)
    p = _mla(p, s, 0.9618129107597600536e-2)
    p = _mla(p, s, 0.5550410866482046596e-1)
    p = _mla(p, s, 0.2402265069591012214e+0)
    p = _mla(p, s, 0.6931471805599452862e+0)
    ph, pl = _dd_mul_d_d(p, s)
    th, tl = _dd_add_d_dd(1.0, ph, pl)
    p = th + tl
    p = _ldexp2k(p, q)
    p = np.inf if d >= 1024.0 else p
    return 0.0 if d < -2000.0 else p


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _expm1_poly_f32(s):
    """e**s - 1 - s for |s| <= ln2/2 in float32, as s**2 P(s) (SLEEF xexpf / expm1fk)."""
    u = np.float32(0.000198527617612853646278381)
    u = _mla_f32(u, s, np.float32(0.00139304355252534151077271))
    u = _mla_f32(u, s, np.float32(0.00833336077630519866943359))
    u = _mla_f32(u, s, np.float32(0.0416664853692054748535156))
    u = _mla_f32(u, s, np.float32(0.166666671633720397949219))
    u = _mla_f32(u, s, np.float32(0.5))
    return s * s * u


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _exp_reduce_f32(d):
    """float32 d = q ln2 + s, |s| <= ln2/2, by Cody-Waite with SLEEF's split ln 2
    (q * hi exact); returns (s, q as int32)."""
    qf, q = _rint_small_both_f32(d * np.float32(1.442695040888963407359924681001892137426645954152985934135449406931))
    s = _mla_f32(qf, np.float32(-0.693145751953125), d)
    s = _mla_f32(qf, np.float32(-1.428606765330187045e-06), s)
    return s, q


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def exp_float32(d):
    """float32 e**d, native float32 (8 lanes per AVX2 register); port of SLEEF xexpf
    (u10). Bound: 1.0 ulp."""
    dc = np.float32(-150.0) if d < np.float32(-150.0) else d
    dc = np.float32(150.0) if dc > np.float32(150.0) else dc
    s, q = _exp_reduce_f32(dc)
    u = np.float32(1.0) + (_expm1_poly_f32(s) + s)
    u = _ldexp2k_f32(u, q)
    u = np.float32(0.0) if d < np.float32(-104.0) else u
    u = np.float32(np.inf) if d > np.float32(88.72284) else u
    return d if d != d else u


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def exp2_float32(x):
    """2**x for float32, computed in float64 and rounded."""
    return np.float32(exp2_float64(np.float64(x)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def expm1_float32(d):
    """float32 e**d - 1, native float32: with e**d = 2**q (1 + u) (SLEEF expm1fk's
    reduction and polynomial), e**d - 1 = 2**q u + (2**q - 1), where 2**q - 1 is exact
    for |q| <= 24; above, 2**q (1 + u) - 1. Bound: 1.0 ulp."""
    dc = np.float32(-30.0) if d < np.float32(-30.0) else d
    dc = np.float32(100.0) if dc > np.float32(100.0) else dc
    s, q = _exp_reduce_f32(dc)
    u = _expm1_poly_f32(s) + s
    big = q > np.int32(24)
    t = _ldexp2k_f32(np.float32(1.0), np.int32(24) if big else q)
    r = _mla_f32(u, t, t - np.float32(1.0))
    rb = _ldexp2k_f32(u + np.float32(1.0), q) - np.float32(1.0)
    r = rb if big else r
    r = np.float32(-1.0) if d < np.float32(-17.5) else r
    r = np.float32(np.inf) if d > np.float32(88.72284) else r
    return d if (abs(d) < np.float32(1e-10)) | (d != d) else r