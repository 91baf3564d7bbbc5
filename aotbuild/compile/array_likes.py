"""Tuples and lists of numbers taken as arrays in kernels, as NumPy takes them.

NumPy reads ``(1, 0, 1)`` as an array wherever it expects one: ``np.bitwise_and(mask, row)``,
``mask == row``, ``x * weights`` with ``weights = (0.2, 0.5, 0.3)``, ``np.max((a, b, c))``. numba's
ufuncs, array operators and reductions take arrays and scalars only. These overloads convert such
a tuple or list with ``np.asarray`` (which numba has) and call numba's own code with the array:

- every NumPy ufunc numba compiles, called with at least one tuple or list (``out`` too);
- the binary operators, with an array on the other side (``tuple + tuple`` stays Python's
  concatenation, ``tuple * 2`` its repetition; ``arr += tuple`` writes into ``arr``);
- the reductions aotbuild gives ``axis`` and ``keepdims`` (:mod:`.overloads`).

numba's array-expression rewrite would fold such a call into a loop over elements, where a tuple
is no element: expressions with a tuple or list operand are left to the overloads.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

#: The binary operators NumPy applies elementwise when one side is an array.
BINARY = (
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow, operator.lshift, operator.rshift, operator.and_, operator.or_, operator.xor,
    operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
)  # fmt: skip
IN_PLACE = (
    operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
    operator.imod, operator.ipow, operator.ilshift, operator.irshift, operator.iand, operator.ior,
    operator.ixor,
)  # fmt: skip


def is_array_like(value: Any) -> bool:
    """Whether numba type ``value`` is a tuple (nested ones too) or a list of numbers or booleans,
    which NumPy reads as an array."""
    from numba.core import types

    if isinstance(value, types.List):
        return isinstance(value.dtype, (types.Number, types.Boolean))
    if isinstance(value, types.BaseTuple) and len(value) > 0:
        items: tuple[Any, ...] = tuple(value.types)  # type: ignore[attr-defined]
        return all(isinstance(item, (types.Number, types.Boolean)) or is_array_like(item) for item in items)
    return False


def as_array(value):  # noqa: ANN001, ANN201 (numba compiles its overload)
    """``np.asarray(value)`` for a tuple or list of numbers, ``value`` itself otherwise."""
    return value


def _omitted(value: Any) -> bool:
    from numba.core import types

    return value is None or isinstance(value, (types.NoneType, types.Omitted))


def register() -> None:
    """Register the overloads, and keep such operands out of numba's array expressions."""
    from numba.extending import overload
    from numba.np.ufunc.array_exprs import RewriteArrayExprs
    from numba.np.ufunc_db import get_ufuncs

    @overload(as_array, target="cpu")
    def as_array_overload(value):
        if is_array_like(value):
            return lambda value: np.asarray(value)
        return lambda value: value

    for ufunc in sorted(get_ufuncs(), key=lambda u: u.__name__):
        if isinstance(ufunc, np.ufunc) and ufunc.nout == 1 and ufunc.nin in (1, 2):
            overload(ufunc, target="cpu")(_ufunc(ufunc))

    for function in BINARY:
        overload(function, target="cpu")(_binary(function))
    for function in IN_PLACE:
        overload(function, target="cpu")(_in_place(function))

    numba_match = RewriteArrayExprs._match_array_expr

    def match_array_expr(self: Any, instr: Any, expr: Any, target_name: str) -> Any:
        if any(is_array_like(self.typemap.get(var.name)) for var in expr.list_vars()):
            return None  # lowered as typed: through the overloads here
        return numba_match(self, instr, expr, target_name)

    RewriteArrayExprs._match_array_expr = match_array_expr  # type: ignore[method-assign]


def _ufunc(ufunc: np.ufunc) -> Any:
    """The overload of ``ufunc`` for calls with a tuple or list among the inputs."""
    if ufunc.nin == 1:

        def unary(x, out=None):
            if not is_array_like(x):
                return None
            if _omitted(out):
                return lambda x, out=None: ufunc(np.asarray(x))
            return lambda x, out=None: ufunc(np.asarray(x), out)

        return unary

    def binary(x1, x2, out=None):
        if not (is_array_like(x1) or is_array_like(x2)):
            return None
        if _omitted(out):
            return lambda x1, x2, out=None: ufunc(as_array(x1), as_array(x2))
        return lambda x1, x2, out=None: ufunc(as_array(x1), as_array(x2), out)

    return binary


def _binary(function: Any) -> Any:
    """``tuple OP array`` and ``array OP tuple``: NumPy's elementwise operator."""

    def typer(left, right):
        from numba.core import types

        if (is_array_like(left) and isinstance(right, types.Array)) or (
            is_array_like(right) and isinstance(left, types.Array)
        ):
            return lambda left, right: function(as_array(left), as_array(right))
        return None

    return typer


def _in_place(function: Any) -> Any:
    """``array OP= tuple``: into the array, as NumPy writes it."""

    def typer(target, value):
        from numba.core import types

        if not (isinstance(target, types.Array) and is_array_like(value)):
            return None

        def impl(target, value):
            function(target, np.asarray(value))
            return target

        return impl

    return typer
