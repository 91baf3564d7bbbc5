"""Conversion between aotbuild's types and numba's.

Only modules that run numba import this one: it imports numba (half a second).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numba.core import types as nbtypes
from numba.np.numpy_support import from_dtype

from ..types import NONE, SUPPORTED_DTYPES, Array, Result, Scalar, Signature, TupleOf, Value


def to_numba(value: Result) -> nbtypes.Type:
    if isinstance(value, Scalar):
        return from_dtype(np.dtype(value.dtype))
    if isinstance(value, Array):
        return nbtypes.Array(
            from_dtype(np.dtype(value.dtype)), value.ndim, value.layout, readonly=value.readonly
        )
    if isinstance(value, TupleOf):
        return nbtypes.Tuple(tuple(to_numba(item) for item in value.items))
    return nbtypes.none


def signature_to_numba(signature: Signature) -> tuple[tuple[nbtypes.Type, ...], nbtypes.Type]:
    """``(argument types, return type)`` as numba types."""
    return tuple(to_numba(arg) for arg in signature.args), to_numba(signature.result)


def omitted_defaults(function: Any, given: int) -> tuple[Any, ...]:
    """numba's ``Omitted`` type for each defaulted parameter the signature leaves out: the
    default is compiled in as a constant (numba's own treatment of an omitted argument), and
    the parameter takes no place in the compiled function's arguments."""
    import inspect

    parameters = list(inspect.signature(function).parameters.values())[given:]
    return tuple(nbtypes.Omitted(p.default) for p in parameters if p.default is not inspect.Parameter.empty)


class UnsupportedType(TypeError):
    """A numba type that aotbuild's calling convention cannot carry."""


def _value_from_numba(nbtype: nbtypes.Type) -> Value:
    nbtype = nbtypes.unliteral(nbtype)
    if isinstance(nbtype, nbtypes.Array):
        if nbtype.ndim == 0:
            raise UnsupportedType(f"{nbtype} (a 0-d array: return its value, a[()])")
        if not nbtype.aligned:
            raise UnsupportedType(f"{nbtype} (an unaligned array)")
        try:
            dtype = np.dtype(str(nbtype.dtype)).name
        except TypeError:
            raise UnsupportedType(str(nbtype)) from None
        # Fortran order is carried as "any layout": numba casts F to A at the call.
        layout: Literal["A", "C"] = "C" if nbtype.layout == "C" else "A"
        # A read-only array (declared readonly=True, or a global constant) stays read-only.
        return Array(_supported(dtype, nbtype), nbtype.ndim, layout, readonly=not nbtype.mutable)
    if isinstance(nbtype, nbtypes.Boolean):
        return Scalar("bool")
    if isinstance(nbtype, (nbtypes.Integer, nbtypes.Float, nbtypes.Complex)):
        return Scalar(_supported(np.dtype(str(nbtype)).name, nbtype))
    raise UnsupportedType(str(nbtype))


def _supported(dtype: str, nbtype: nbtypes.Type) -> str:
    if dtype not in SUPPORTED_DTYPES:
        raise UnsupportedType(str(nbtype))
    return dtype


def from_numba(nbtype: nbtypes.Type) -> Result:
    """aotbuild's type for a numba type; :class:`UnsupportedType` for lists, records, etc."""
    nbtype = nbtypes.unliteral(nbtype)
    if nbtype in (nbtypes.none, nbtypes.void):
        return NONE
    if isinstance(nbtype, (nbtypes.Tuple, nbtypes.UniTuple)):
        return TupleOf(tuple(_value_from_numba(item) for item in nbtype.types))
    return _value_from_numba(nbtype)
