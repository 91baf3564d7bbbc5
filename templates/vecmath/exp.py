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
def _expm1_parts(a):
    """a = q ln2 + s (s exactly as sh + sl, Cody-Waite + two-sum) and e**s - 1 as a
    double-double (ph, pl) = s + s**2/2 + s**3 P(s) with the first two terms exact
    (two-prod, two-sum); SLEEF xexp's polynomial. Returns (ph, pl, q)."""
    qf, q = _rint_small_both(a * 1.442695040888963407359924681001892137426645954152985934135449406931)
    s1 = _mla(qf, -0.69314718055966295651160180568695068359375, a)
    sh, sl = _dd_add2_d_d(s1, qf * -0.28235290563031577122588448175013436025525412068e-12)
    p = 2.08860621107283687536341e-09
    p = _mla(p, sh, 2.51112930892876518610661e-08)
    p = _mla(p, sh, 2.75573911234900471893338e-07)
    p = _mla(p, sh, 2.75572362911928827629423e-06)
    p = _mla(p, sh, 2.4801587159235472998791e-05)
    p = _mla(p, sh, 0.000198412698960509205564975)
    p = _mla(p, sh, 0.00138888888889774492207962)
    p = _mla(p, sh, 0.00833333333331652721664984)
    p = _mla(p, sh, 0.0416666666666665047591422)
    p = _mla(p, sh, 0.166666666666666851703837)
    s2h, s2l = _dd_mul_d_d(sh, sh)
    ph, pl = _dd_add2_d_d(sh, 0.5 * s2h)
    pl = pl + (0.5 * s2l + _mla(s2h * sh, p, sl * (1.0 + sh)))
    return ph, pl, q


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _expm1_dd(a):
    """e**a - 1 as a normalised double-double for -40 <= a <= 700 (see _expm1_combine)."""
    ph, pl, q = _expm1_parts(a)
    return _expm1_combine(ph, pl, q)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _expm1_combine(ph, pl, q):
    """2**q (1 + p) - 1 = (2**q - 1) + 2**q p as a normalised double-double, with 2**q - 1
    exact for |q| <= 52 (2**q and -1 kept apart above); needs q <= 1023."""
    t = _pow2i(q)
    exact = q <= np.int64(52)
    rh, rl = _dd_add2_d_d(t - 1.0 if exact else t, t * ph)
    return _dd_normalize(rh, rl + (t * pl + (0.0 if exact else -1.0)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def expm1_float64(a):
    """e**a - 1: a = q ln2 + s exactly, e**s - 1 as a double-double from SLEEF xexp's
    polynomial with exact leading terms, then (2**q - 1) + 2**q (e**s - 1) (the same
    reduction as fdlibm expm1; cheaper than SLEEF xexpm1's expk2). Bound: 1.0 ulp."""
    ac = -40.0 if a < -40.0 else (709.8 if a > 709.8 else a)
    ph, pl, q = _expm1_parts(ac)
    big = q > np.int64(1000)
    t = _pow2i(np.int64(1000) if big else q)
    exact = q <= np.int64(52)
    rh, rl = _dd_add2_d_d(t - 1.0 if exact else t, t * ph)
    x = rh + (rl + (t * pl + (0.0 if exact else -1.0)))
    # above 693 the -1 is negligible: 2**q (1 + p) by two exact scalings
    x = _ldexp2k(1.0 + (ph + pl), q) if big else x
    x = np.inf if a > 709.782712893383996732223 else x
    x = -1.0 if a < -38.0 else x
    return a if (abs(a) < 1e-300) | (a != a) else x


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
    qf, q = _rint_small_both_f32(d * np.float32(1.4426950408889634073599246810018921374266))
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
    """float32 2**x: float64 polynomial of degree 8 on the fraction (no double-double
    step), computed in float64 with a cheap kernel (a few float64 ulps) and rounded: <=
    0.5 ulp + a double rounding. Bound: 1.0 ulp."""
    d = np.float64(x)
    u, q = _rint_small_both(d)
    s = d - u
    p = 0.1525273353517584730e-4
    p = _mla(p, s, 0.1540353045101147808e-3)
    p = _mla(p, s, 0.1333355814670499073e-2)
    p = _mla(p, s, 0.9618129107597600536e-2)
    p = _mla(p, s, 0.5550410866482046596e-1)
    p = _mla(p, s, 0.2402265069591012214e+0)
    p = _mla(p, s, 0.6931471805599452862e+0)
    p = _mla(p, s, 1.0)
    r = _ldexp2k(p, q)
    r = np.inf if d >= 128.0 else r
    return np.float32(0.0 if d < -160.0 else r)


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
