"""Graphs that apply every supported ufunc to one dtype at a time (see tests/test_ufuncs.py).

The loops below run while tracing: each graph is a flat tuple of elementwise Ops.
"""

import numpy as np

from aotbuild.trace.ufuncs import SUPPORTED_UFUNCS

#: Left out of the all-in-one integer graph: a negative exponent raises for the whole call.
RAISING = {"int64": {"power"}, "int32": {"power"}}


def ufunc_names(nin, dtype):
    """Supported ufuncs taking ``nin`` inputs that NumPy runs on ``dtype`` (no float16)."""
    names = []
    for name in sorted(SUPPORTED_UFUNCS):
        ufunc = getattr(np, name)
        if ufunc.nin != nin or name in RAISING.get(np.dtype(dtype).name, ()):
            continue
        try:
            loop = ufunc.resolve_dtypes((np.dtype(dtype),) * nin + (None,))
        except Exception:
            continue
        if all(d.name != "float16" for d in loop):
            names.append(name)
    return names


def unary(x):
    return tuple(getattr(np, name)(x) for name in ufunc_names(1, x.dtype))


def binary(x, y):
    return tuple(getattr(np, name)(x, y) for name in ufunc_names(2, x.dtype))


def operators(x, y):
    """Python operators, reflected ones and NumPy-2 scalar promotion."""
    return (
        x + y,
        x - y,
        x * y,
        x / y,
        -x,
        +x,
        abs(x),
        x < y,
        x >= y,
        x == y,
        x != y,
        2 + x,
        2.5 * x,
        1 - x,
        3.0 / x,
        x * np.float64(2.0),
        np.float32(3.0) * x,
        x**2,
        x**0.5,
        x**-1.0,
        x**1,
        x**0,
        2.0**x,
        x**3,
        x**8,
        x**-3.0,
    )


def integer_power(x, y):
    return x**y, x**2, 3**y


def where_and_cast(x, y):
    return (
        np.where(x > y, x, y),
        np.where(x > 0, x, 0.0),
        np.where(x > 0, 1, 0),
        x.astype(np.float32),
        x.astype(np.int32),
        (x > 0).astype(np.float64),
    )
