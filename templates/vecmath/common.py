"""Shared helpers of the vectorisable math library: bit casts, rounding without SSE4.1,
ldexp/ilogb variants and double-double ("dd") arithmetic.

Adapted from SLEEF (shibatch/sleef, src/libm/sleefsimddp.c, src/common/dd.h,
src/common/commonfuncs.h), Copyright Naoki Shibata and contributors 2010 - 2024,
distributed under the Boost Software License, Version 1.0 (see LICENSE.sleef beside
this file).

Rules every function here follows (the code generator pastes function sources into one
module):

* decorated exactly ``@register_jitable(fastmath={"contract"}, error_model="numpy")``, no calls except LLVM
  intrinsics that vectorise (``np.sqrt``, ``abs``, ``np.copysign``, ``fma`` behind
  ``has_fma()``) and other vecmath functions by their plain global name;
* no module-level constants: literals are written inline;
* no ``np.floor``/``np.trunc``/``np.rint``: on the 'generic' x86-64 target (SSE2, no
  ``roundpd``) LLVM lowers them to libm calls, so rounding uses the 1.5 * 2**52 trick;
* double-double products split operands with a bit mask (Dekker with SLEEF's
  ``vupper``: 26 and 27 bits), whose error terms are exact but where the low halves' product
  needs 54 bits (about 4% of products), and within 2^-103 of the product there, whether or
  not LLVM contracts ``a*b + c`` into an FMA, so results meet their bounds both on FMA
  targets and on 'generic'; the products ``_dd_mul_*`` and ``_dd_squ`` take ``fma`` instead
  where the target has it (``has_fma()``, decided when the module is compiled for a target:
  aotbuild/compile/intrinsics.py), with exact error terms.

A double-double value is a pair ``(hi, lo)`` of float64 with ``|lo| <= ulp(hi)/2``;
functions take and return the parts as separate values / tuples.
"""

import numpy as np
from numba.extending import register_jitable

from aotbuild.compile.intrinsics import fma, has_fma

# --- bit casts --------------------------------------------------------------------------

@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _f64_bits(x):
    """The IEEE bits of float64 ``x`` as int64."""
    return np.float64(x).view(np.int64)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _f64_from_bits(b):
    """The float64 whose IEEE bits are int64 ``b``."""
    return np.int64(b).view(np.float64)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _f32_bits(x):
    """The IEEE bits of float32 ``x`` as int32."""
    return np.float32(x).view(np.int32)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _f32_from_bits(b):
    """The float32 whose IEEE bits are int32 ``b``."""
    return np.int32(b).view(np.float32)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _mla(x, y, z):
    """``x * y + z``, fused into one FMA where the target has it (this primitive keeps
    its own ``contract`` flag when LLVM inlines it into a caller compiled without)."""
    return x * y + z


# --- rounding to integers (valid for |x| < 2**51) --------------------------------------

@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _rint_small(x):
    """Round to nearest even for ``|x| < 2**51`` (SLEEF vrint), as a float64; no libm call."""
    return (x + 6755399441055744.0) - 6755399441055744.0


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _rint_small_i64(x):
    """``_rint_small(x)`` as an int64, read from the bits of ``x + 1.5 * 2**52``."""
    return _f64_bits(x + 6755399441055744.0) - np.int64(4843621399236968448)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _rint_small_both(x):
    """``x`` rounded to nearest (``|x| < 2**51``) as (float64, int64)."""
    u = x + 6755399441055744.0
    return u - 6755399441055744.0, _f64_bits(u) - np.int64(4843621399236968448)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _div(a, b):
    """a / b (kept in a primitive so that it never gets a ZeroDivisionError check)."""
    return a / b


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _trunc_small(x):
    """Round toward zero for ``|x| < 2**51`` (SLEEF vtruncate)."""
    a = abs(x)
    r = _rint_small(a)
    r = r - 1.0 if r > a else r
    return np.copysign(r, x)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _i64_to_f64_small(i):
    """int64 ``i`` (``|i| < 2**51``) as float64 through the bits of 1.5 * 2**52 + i
    (an int64 -> float64 conversion does not vectorise before AVX-512)."""
    return _f64_from_bits(i + np.int64(4843621399236968448)) - 6755399441055744.0


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _rint_small_f32(x):
    """float32 round to nearest even for ``|x| < 2**22``."""
    return (x + np.float32(12582912.0)) - np.float32(12582912.0)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _rint_small_i32(x):
    """float32 ``x`` rounded to nearest as an int32 (``|x| < 2**22``)."""
    return _f32_bits(x + np.float32(12582912.0)) - np.int32(1262485504)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _i32_to_f32_small(i):
    """int32 ``i`` (``|i| < 2**22``) as float32."""
    return _f32_from_bits(i + np.int32(1262485504)) - np.float32(12582912.0)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _rint_small_both_f32(x):
    """float32 ``x`` rounded to nearest (``|x| < 2**22``) as (float32, int32)."""
    u = x + np.float32(12582912.0)
    return u - np.float32(12582912.0), np.int32(_f32_bits(u) - np.int32(1262485504))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _two_sum_f32(x, y):
    """float32 x + y exactly as (sum, error) (Knuth two-sum)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _mla_f32(x, y, z):
    """float32 ``x * y + z`` (fused where the target has FMA)."""
    return x * y + z


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _pow2i_f32(q):
    """float32 2.0**q for int32 ``q`` in [-126, 127]."""
    return _f32_from_bits(np.int32((q + np.int32(0x7f)) << np.int32(23)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ldexp2k_f32(x, q):
    """float32 ``x * 2**q`` by two exact scalings, int32 q in [-252, 254]."""
    h = np.int32(q >> np.int32(1))
    return x * _pow2i_f32(h) * _pow2i_f32(np.int32(q - h))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ilogb2k_f32(d):
    """The unbiased exponent of normal float32 ``d`` as int32."""
    return np.int32(((_f32_bits(d) >> np.int32(23)) & np.int32(0xff)) - np.int32(0x7f))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ldexp3k_f32(x, q):
    """float32 ``x * 2**q`` by adding q to the exponent field (normal x and result)."""
    return _f32_from_bits(np.int32(_f32_bits(x) + (q << np.int32(23))))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _mulsign_f32(x, y):
    """float32 ``x`` with its sign flipped when ``y``'s sign bit is set."""
    return _f32_from_bits(np.int32(_f32_bits(x) ^ (_f32_bits(y) & np.int32(-2147483648))))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _div_f32(a, b):
    """float32 a / b."""
    return a / b


# --- powers of two, ldexp, ilogb (SLEEF vpow2i, vldexp2, vldexp3, vilogbk, vilogb2k) ----

@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _pow2i(q):
    """2.0**q for int64 ``q`` in [-1022, 1023] (SLEEF vpow2i)."""
    return _f64_from_bits((q + np.int64(1023)) << np.int64(52))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ldexp2k(x, q):
    """``x * 2**q`` for int64 ``q`` in [-2044, 2046] by two exact scalings, so results
    reaching the subnormal or overflow range round once (SLEEF vldexp2)."""
    h = q >> np.int64(1)
    return x * _pow2i(h) * _pow2i(q - h)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ldexp3k(x, q):
    """``x * 2**q`` by adding ``q`` to the exponent field; only for normal ``x`` and
    normal results (SLEEF vldexp3)."""
    return _f64_from_bits(_f64_bits(x) + (q << np.int64(52)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ilogb2k(d):
    """The unbiased exponent of normal ``d`` as int64 (SLEEF vilogb2k)."""
    return ((_f64_bits(d) >> np.int64(52)) & np.int64(0x7ff)) - np.int64(0x3ff)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _ilogbk(d):
    """The unbiased exponent of positive ``d``, subnormals included (SLEEF vilogbk)."""
    small = d < 4.9090934652977266e-91
    d = 2.037035976334486e90 * d if small else d
    e = (_f64_bits(d) >> np.int64(52)) & np.int64(0x7ff)
    return e - np.int64(300 + 0x3ff) if small else e - np.int64(0x3ff)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _mulsign(x, y):
    """``x`` with its sign flipped when ``y`` has its sign bit set (SLEEF vmulsign)."""
    return _f64_from_bits(_f64_bits(x) ^ (_f64_bits(y) & np.int64(-9223372036854775808)))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _is_neg_zero(x):
    """Whether ``x`` is -0.0."""
    return _f64_bits(x) == np.int64(-9223372036854775808)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _sign_bit(x):
    """Whether the sign bit of float64 ``x`` is set (true for -0.0 and negative NaNs)."""
    return _f64_bits(x) < np.int64(0)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _is_integer(y):
    """Whether float64 ``y`` is an integer (inf counts as one, nan does not)."""
    a = abs(y)
    return (a >= 4503599627370496.0) | ((a + 4503599627370496.0) - 4503599627370496.0 == a)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _is_odd_integer(y):
    """Whether float64 ``y`` is an odd integer: below 2**53 the parity is the low bit
    of a + 2**52 (or of a itself above 2**52, where the spacing is 1)."""
    a = abs(y)
    t = a if a >= 4503599627370496.0 else a + 4503599627370496.0
    return ((_f64_bits(t) & np.int64(1)) == np.int64(1)) & (a < 9007199254740992.0) & _is_integer(y)


# --- double-double arithmetic (SLEEF dd.h, non-FMA forms, exact under contraction) -----

@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _upper(d):
    """``d`` with the low 27 significand bits cleared (SLEEF vupper): the high half of
    a Dekker split; ``d - _upper(d)`` is exact."""
    return _f64_from_bits(_f64_bits(d) & np.int64(-134217728))


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_normalize(xh, xl):
    """Renormalise a double-double (SLEEF ddnormalize)."""
    s = xh + xl
    return s, xh - s + xl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add_d_d(x, y):
    """``x + y`` exactly as a double-double, needs ``|x| >= |y|`` (SLEEF ddadd_vd2_vd_vd)."""
    s = x + y
    return s, x - s + y


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add2_d_d(x, y):
    """``x + y`` exactly as a double-double, any magnitudes (Knuth two-sum, ddadd2)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add_dd_d(xh, xl, y):
    """double-double + double, ``|x| >= |y|`` (SLEEF ddadd_vd2_vd2_vd)."""
    s = xh + y
    return s, xh - s + y + xl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add2_dd_d(xh, xl, y):
    """double-double + double, any magnitudes (SLEEF ddadd2_vd2_vd2_vd)."""
    s = xh + y
    v = s - xh
    w = (xh - (s - v)) + (y - v)
    return s, w + xl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add_d_dd(x, yh, yl):
    """double + double-double, ``|x| >= |y|`` (SLEEF ddadd_vd2_vd_vd2)."""
    s = x + yh
    return s, x - s + yh + yl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add2_d_dd(x, yh, yl):
    """double + double-double, any magnitudes (SLEEF ddadd2_vd2_vd_vd2)."""
    s = x + yh
    v = s - x
    return s, (x - (s - v)) + (yh - v) + yl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add_dd_dd(xh, xl, yh, yl):
    """double-double + double-double, ``|x| >= |y|`` (SLEEF ddadd_vd2_vd2_vd2)."""
    s = xh + yh
    return s, xh - s + yh + xl + yl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_add2_dd_dd(xh, xl, yh, yl):
    """double-double + double-double, any magnitudes (SLEEF ddadd2_vd2_vd2_vd2)."""
    s = xh + yh
    v = s - xh
    t = (xh - (s - v)) + (yh - v)
    return s, t + (xl + yl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_sub_dd_dd(xh, xl, yh, yl):
    """double-double - double-double, ``|x| >= |y|`` (SLEEF ddsub_vd2_vd2_vd2)."""
    s = xh - yh
    return s, xh - s - yh + xl - yl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_mul_d_d(x, y):
    """``x * y`` exactly as a double-double (SLEEF ddmul_vd2_vd_vd): the product's error by one
    FMA where the target has it, else by Dekker's split (eight operations), exact but where the
    low halves' product needs 54 bits (about 4% of products: within 2^-103 of the product)."""
    s = x * y
    if has_fma():
        return s, fma(x, y, -s)
    xh = _upper(x)
    xl = x - xh
    yh = _upper(y)
    yl = y - yh
    return s, xh * yh - s + xl * yh + xh * yl + xl * yl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_mul_dd_d(xh, xl, y):
    """double-double * double (SLEEF ddmul_vd2_vd2_vd); FMA as in ``_dd_mul_d_d``."""
    s = xh * y
    if has_fma():
        return s, fma(xl, y, fma(xh, y, -s))
    xhh = _upper(xh)
    xhl = xh - xhh
    yh = _upper(y)
    yl = y - yh
    return s, xhh * yh - s + xhl * yh + xhh * yl + xhl * yl + xl * y


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_mul_dd_dd(xh, xl, yh, yl):
    """double-double * double-double (SLEEF ddmul_vd2_vd2_vd2); FMA as in ``_dd_mul_d_d``."""
    s = xh * yh
    if has_fma():
        return s, fma(xl, yh, fma(xh, yl, fma(xh, yh, -s)))
    xhh = _upper(xh)
    xhl = xh - xhh
    yhh = _upper(yh)
    yhl = yh - yhh
    return s, xhh * yhh - s + xhl * yhh + xhh * yhl + xhl * yhl + xh * yl + xl * yh


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_mul_dd_dd_to_d(xh, xl, yh, yl):
    """double-double * double-double rounded to a double (SLEEF ddmul_vd_vd2_vd2); FMA where the
    target has it, as SLEEF's FMA build computes it."""
    if has_fma():
        return fma(xh, yh, fma(xl, yh, xh * yl))
    xhh = _upper(xh)
    xhl = xh - xhh
    yhh = _upper(yh)
    yhl = yh - yhh
    return xl * yhh + xhh * yl + xhl * yhl + xhh * yhl + xhl * yhh + xhh * yhh


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_squ(xh, xl):
    """double-double squared (SLEEF ddsqu_vd2_vd2); FMA as in ``_dd_mul_d_d``."""
    s = xh * xh
    if has_fma():
        return s, fma(xh, xl + xl, fma(xh, xh, -s))
    xhh = _upper(xh)
    xhl = xh - xhh
    return s, xhh * xhh - s + (xhh + xhh) * xhl + xhl * xhl + xh * (xl + xl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_squ_to_d(xh, xl):
    """double-double squared, rounded to a double (SLEEF ddsqu_vd_vd2); FMA where the target has
    it, as SLEEF's FMA build computes it."""
    if has_fma():
        return fma(xh, xh, xh * xl + xh * xl)
    xhh = _upper(xh)
    xhl = xh - xhh
    return xhh * xl + xhh * xl + xhl * xhl + (xhh * xhl + xhh * xhl) + xhh * xhh


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_sub_dd_d(xh, xl, y):
    """double-double - double, ``|x| >= |y|`` (SLEEF ddsub_vd2_vd2_vd)."""
    s = xh - y
    return s, xh - s - y + xl


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_scale(xh, xl, s):
    """double-double times a power of two (SLEEF ddscale)."""
    return xh * s, xl * s


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_rec_d(d):
    """1 / d as a double-double (SLEEF ddrec_vd2_vd): the residual 1 - d t by one FMA where the
    target has it (exact), else from Dekker's split."""
    t = 1.0 / d
    if has_fma():
        return t, t * fma(-d, t, 1.0)
    dh = _upper(d)
    dl = d - dh
    th = _upper(t)
    tl = t - th
    return t, t * (1.0 - dh * th - dh * tl - dl * th - dl * tl)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_rec_dd(dh0, dl0):
    """1 / d for a double-double d (SLEEF ddrec_vd2_vd2); FMA as in ``_dd_rec_d``."""
    t = 1.0 / dh0
    if has_fma():
        return t, t * fma(-dl0, t, fma(-dh0, t, 1.0))
    dh = _upper(dh0)
    dl = dh0 - dh
    th = _upper(t)
    tl = t - th
    return t, t * (1.0 - dh * th - dh * tl - dl * th - dl * tl - dl0 * t)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_div(nh, nl, dh0, dl0):
    """double-double n / double-double d (SLEEF dddiv_vd2_vd2_vd2): the same terms by FMA where
    the target has it (SLEEF's FMA build), else from Dekker's splits."""
    t = 1.0 / dh0
    if has_fma():
        qh = nh * t
        u = fma(t, nh, -qh)
        v = fma(-dl0, t, fma(-dh0, t, 1.0))
        return qh, fma(qh, v, fma(nl, t, u))
    dh = _upper(dh0)
    dl = dh0 - dh
    th = _upper(t)
    tl = t - th
    nhh = _upper(nh)
    nhl = nh - nhh
    qh = nh * t
    u = nhh * th - qh + nhh * tl + nhl * th + nhl * tl \
        + qh * (1.0 - dh * th - dh * tl - dl * th - dl * tl)
    return qh, t * (nl - qh * dl0) + u


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_sqrt_dd(dh, dl):
    """sqrt of a double-double: t = sqrt(dh + dl), corrected once by the exact residual,
    (dh - t**2 + dl) / 2t (t**2 as an exact pair; dh - its high part is exact, the two within a
    factor 2). One division: SLEEF's ddsqrt_vd2_vd2 multiplies d + t**2 by 1/2t as a
    double-double (a division, a reciprocal's residual and a product of pairs)."""
    t = np.sqrt(dh + dl)
    ph, pl = _dd_mul_d_d(t, t)
    return t, (((dh - ph) - pl) + dl) / (t + t)


@register_jitable(forceinline=True, fastmath={"contract"}, error_model="numpy")
def _dd_sqrt_d(d):
    """sqrt of a double as a double-double (SLEEF ddsqrt_vd2_vd)."""
    t = np.sqrt(d)
    ph, pl = _dd_mul_d_d(t, t)
    ah, al = _dd_add2_d_dd(d, ph, pl)
    rh, rl = _dd_rec_d(t)
    mh, ml = _dd_mul_dd_dd(ah, al, rh, rl)
    return mh * 0.5, ml * 0.5
