"""Several signatures under one name: the C tests by which the package picks one for the
arguments given (``templates/native/entry_overloads.c.j2``), as numba's dispatcher picks among
the signatures of ``@njit([...])``: exact matches first, in the declared order, then the first
every argument converts to.

An argument matches a scalar parameter exactly when its type is the declared one: a Python float
is float64, a Python int int64, a bool bool, a Python complex complex128, and NumPy scalars their
own dtype. It converts to it as the call's own checks allow (any real number for a float, any
integer for an integer, any number for a complex). An array matches when its dtype, dimensions
and layout are the declared ones; with ``cast = "same_kind"`` it converts when NumPy's
``same_kind`` casting allows its dtype.
"""

from __future__ import annotations

import numpy as np

from ..types import Array, Scalar, Signature, Value
from .c_names import NPY_TYPES, ORDERS

#: NumPy's scalar types of each dtype (their C names, for ``PyArray_IsScalar``).
_NUMPY_SCALARS = {
    "bool": ("Bool",),
    "int8": ("Byte",),
    "int16": ("Short",),
    "int32": ("Int",),
    "int64": ("Long", "LongLong"),
    "uint8": ("UByte",),
    "uint16": ("UShort",),
    "uint32": ("UInt",),
    "uint64": ("ULong", "ULongLong"),
    "float32": ("Float",),
    "float64": ("Double",),
    "complex64": ("CFloat",),
    "complex128": ("CDouble",),
}

#: Python's own types that are exactly a dtype.
_PYTHON_EXACT = {
    "bool": "PyBool_Check({v})",
    "int64": "(PyLong_Check({v}) && !PyBool_Check({v}))",
    "float64": "PyFloat_Check({v})",
    "complex128": "PyComplex_Check({v})",
}

#: What converts to a scalar of each kind (the call's own checks accept these).
_CONVERTS = {
    kind: "(" + " || ".join(tests) + ")"
    for kind, tests in {
        "b": ("PyBool_Check({v})", "PyArray_IsScalar({v}, Bool)", 'aot_is_0d({v}, "b")'),
        "i": (
            "PyLong_Check({v})",
            "PyArray_IsScalar({v}, Integer)",
            "PyArray_IsScalar({v}, Bool)",
            'aot_is_0d({v}, "iub")',
        ),
        "f": (
            "PyFloat_Check({v})",
            "PyLong_Check({v})",
            "PyArray_IsScalar({v}, Integer)",
            "PyArray_IsScalar({v}, Floating)",
            "PyArray_IsScalar({v}, Bool)",
            'aot_is_0d({v}, "iubf")',
        ),
        "c": (
            "PyComplex_Check({v})",
            "PyFloat_Check({v})",
            "PyLong_Check({v})",
            "PyArray_IsScalar({v}, Number)",
            'aot_is_0d({v}, "iubfc")',
        ),
    }.items()
}
_CONVERTS["u"] = _CONVERTS["i"]


def exact_test(value: Value, argument: str) -> str:
    """C: whether ``argument`` is exactly of type ``value``."""
    if isinstance(value, Array):
        dtype = np.dtype(value.dtype)
        order = ORDERS[value.layout]
        return f"aot_array_is({argument}, '{dtype.kind}', {dtype.itemsize}, {value.ndim}, {order})"
    tests = [f"PyArray_IsScalar({argument}, {name})" for name in _NUMPY_SCALARS[value.dtype]]
    if value.dtype in _PYTHON_EXACT:
        tests.insert(0, _PYTHON_EXACT[value.dtype].format(v=argument))
    return tests[0] if len(tests) == 1 else "(" + " || ".join(tests) + ")"


def converts_test(value: Value, argument: str, cast: bool) -> str:
    """C: whether ``argument`` converts to ``value`` for the call."""
    if isinstance(value, Array):
        if cast:
            return f"aot_array_casts({argument}, {NPY_TYPES[value.dtype][0]}, {value.ndim})"
        return exact_test(value, argument)
    assert isinstance(value, Scalar)
    return _CONVERTS[np.dtype(value.dtype).kind].format(v=argument)


def overload_tests(signature: Signature, cast: bool) -> dict[str, list[str]]:
    """The tests of one signature's arguments (``given[k]``), exact and converting."""
    return {
        "exact": [exact_test(value, f"given[{k}]") for k, value in enumerate(signature.args)],
        "converts": [converts_test(value, f"given[{k}]", cast) for k, value in enumerate(signature.args)],
    }
