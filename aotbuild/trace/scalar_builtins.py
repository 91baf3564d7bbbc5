"""Python's own functions on traced scalars: ``max``, ``min``, ``int``, ``float``, ``complex``,
``bool``, ``round`` and the ``math`` module.

``scale = max(1.0, np.max(u))`` or ``n = int(count)`` is ordinary numeric Python; on a traced
value Python would ask the tracer for a concrete number (``__float__``, ``__bool__`` for the
comparison inside ``max``), which only exists at run time. Here each becomes a traced value:

* ``max(a, b, ...)`` / ``min(...)`` keep Python's rule — the first item no other item is
  greater (less) than, so ``max(1.0, nan)`` is 1.0 and ``max(nan, 1.0)`` is nan — as a chain of
  ``np.where(b > a, b, a)``; the result's dtype is NumPy's promotion of the items (Python's
  would depend on which item wins);
* ``int(x)`` truncates toward zero to int64, ``float(x)`` converts to float64, ``complex(x, y)``
  to complex128, ``round(x)`` rounds half to even to int64 (``round(x, n)`` is refused),
  ``bool(x)`` is ``x != 0`` — each result *weak*, as the Python number it stands for (NEP 50:
  ``float32_array * float(s)`` stays float32). An integer made so is a run-time size like
  ``x.shape[0]``: ``np.linspace(a, b, int(n))``, ``np.zeros(int(k))``;
* ``math.sqrt``, ``math.exp``, ``math.floor``... are the float64 ufuncs (``floor``, ``ceil`` and
  ``trunc`` give weak ints, as Python's give ints).

Differences from Python, where the value only exists at run time: ``int(nan)`` and
``math.sqrt(-1.0)`` do not raise (they give what the C conversion and the ufunc give), and a
Python int has no bound where these are int64.

Python looks ``int`` and ``float`` up as *types* too (``dtype=int``, ``isinstance(v, float)``),
so they cannot be replaced by functions in ``builtins``: :func:`with_traced_builtins` gives the
traced function itself a copy of its globals in which each is a :class:`_TracedType` (called, it
converts; NumPy reads its ``dtype``; ``isinstance`` asks the real type). ``max``, ``min``,
``round`` and ``math``'s functions are plain functions, routed while tracing like ``len``
(:mod:`aotbuild.trace.patches`).
"""

from __future__ import annotations

import builtins
import math
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import RunTimeValueError, TraceError
from .operands import Operand, as_operand
from .patches import involves_tracer
from .ufuncs import KERNEL_HINT


def _tracer(operand: Operand, python_type: type | None = None) -> Any:
    from .tracer import Tracer

    if python_type is None:
        return Tracer(operand)
    return Tracer(Operand(operand.node, weak=True, python_type=python_type))


def _scalar(value: Any, what: str) -> Operand:
    operand = as_operand(value)
    if operand.ndim != 0:
        raise TraceError(
            f"{what} of a traced array of {operand.ndim} dimension(s): Python needs one number "
            "(index the array, or use the NumPy function on the whole array)"
        )
    return operand


def _cast(value: Any, dtype: str, python_type: type, what: str) -> Any:
    from .ufuncs import apply_cast

    operand = _scalar(value, what)
    if operand.dtype.kind == "c" and dtype != "complex128":
        raise TraceError(f"{what} of a complex value: Python refuses it too (take .real or abs())")
    return _tracer(apply_cast(operand, np.dtype(dtype)), python_type)


def traced_int(value: Any = 0, *args: Any) -> Any:
    if args or not involves_tracer(value):
        return builtins.int(value, *args)
    if _scalar(value, "int()").dtype == np.dtype("int64"):
        return _tracer(as_operand(value), builtins.int)
    return _cast(value, "int64", builtins.int, "int()")  # a float truncates toward zero


def traced_float(value: Any = 0.0) -> Any:
    if not involves_tracer(value):
        return builtins.float(value)
    return _cast(value, "float64", builtins.float, "float()")


def traced_complex(real: Any = 0, imag: Any = 0) -> Any:
    if not involves_tracer((real, imag)):
        return builtins.complex(real, imag)
    from .ufuncs import apply_cast, apply_ufunc

    parts = [apply_cast(_scalar(part, "complex()"), np.dtype("complex128")) for part in (real, imag)]
    value = apply_ufunc(np.add, (parts[0], apply_ufunc(np.multiply, (parts[1], 1j), {})), {})
    return _tracer(value, builtins.complex)


def traced_bool(value: Any = False) -> Any:
    if not involves_tracer(value):
        return builtins.bool(value)
    from .ufuncs import apply_ufunc

    return _tracer(apply_ufunc(np.not_equal, (_scalar(value, "bool()"), 0), {}))


def traced_round(value: Any, ndigits: Any = None) -> Any:
    if not involves_tracer(value):
        return builtins.round(value, ndigits)
    from .ufuncs import apply_cast, apply_ufunc

    operand = _scalar(value, "round()")
    if ndigits is not None:
        raise TraceError("round(x, ndigits) of a traced value is not supported; round(x) is")
    if operand.dtype.kind in "iub":
        return _tracer(apply_cast(operand, np.dtype("int64")), builtins.int)
    return _tracer(apply_cast(apply_ufunc(np.rint, (operand,), {}), np.dtype("int64")), builtins.int)


def _extreme(name: str, greater: Callable[..., Any], original: Callable[..., Any]) -> Callable[..., Any]:
    def extreme(*args: Any, **kwargs: Any) -> Any:
        if not involves_tracer(args):
            return original(*args, **kwargs)
        items = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        if "key" in kwargs or set(kwargs) - {"key", "default"}:
            raise RunTimeValueError(f"{name}() with key= on traced values is not supported ({KERNEL_HINT})")
        if not items:
            if "default" in kwargs:
                return kwargs["default"]
            raise ValueError(f"{name}() iterable argument is empty")
        from .ufuncs import apply_where

        operands = [_scalar(item, f"{name}()") for item in items]
        current = operands[0]
        for item in operands[1:]:
            weak = current.weak and item.weak
            chosen = apply_where(greater(item, current), item, current)
            python_type = current.python_type if current.python_type is item.python_type else None
            current = Operand(chosen.node, weak and python_type is not None, python_type)
        return _tracer(current)

    extreme.__name__ = name
    return extreme


def _greater(a: Operand, b: Operand) -> Operand:
    from .ufuncs import apply_ufunc

    return apply_ufunc(np.greater, (a, b), {})


def _less(a: Operand, b: Operand) -> Operand:
    from .ufuncs import apply_ufunc

    return apply_ufunc(np.less, (a, b), {})


traced_max = _extreme("max", _greater, builtins.max)
traced_min = _extreme("min", _less, builtins.min)


#: ``math`` functions -> the ufunc computing them on float64; those returning Python ints say so.
_MATH_UFUNCS: dict[str, tuple[np.ufunc, type]] = {
    **{
        name: (getattr(np, ufunc), builtins.float)
        for name, ufunc in {
            "sqrt": "sqrt",
            "exp": "exp",
            "expm1": "expm1",
            "log2": "log2",
            "log10": "log10",
            "log1p": "log1p",
            "sin": "sin",
            "cos": "cos",
            "tan": "tan",
            "asin": "arcsin",
            "acos": "arccos",
            "atan": "arctan",
            "atan2": "arctan2",
            "sinh": "sinh",
            "cosh": "cosh",
            "tanh": "tanh",
            "asinh": "arcsinh",
            "acosh": "arccosh",
            "atanh": "arctanh",
            "fabs": "fabs",
            "hypot": "hypot",
            "copysign": "copysign",
            "pow": "power",
            "cbrt": "cbrt",
            "exp2": "exp2",
            "degrees": "degrees",
            "radians": "radians",
        }.items()
    },
    "floor": (np.floor, builtins.int),
    "ceil": (np.ceil, builtins.int),
    "trunc": (np.trunc, builtins.int),
    "isnan": (np.isnan, builtins.bool),
    "isinf": (np.isinf, builtins.bool),
    "isfinite": (np.isfinite, builtins.bool),
}


def _math_function(name: str, ufunc: np.ufunc, python_type: type) -> Callable[..., Any]:
    original = getattr(math, name)

    def function(*args: Any) -> Any:
        if not involves_tracer(args):
            return original(*args)
        from .ufuncs import apply_cast, apply_ufunc

        operands = [apply_cast(_scalar(a, f"math.{name}()"), np.dtype("float64")) for a in args]
        value = apply_ufunc(ufunc, operands, {})
        if python_type is builtins.int:
            return _tracer(apply_cast(value, np.dtype("int64")), builtins.int)
        if python_type is builtins.bool:
            return _tracer(value)
        return _tracer(value, builtins.float)

    function.__name__ = name
    return function


def _math_log(x: Any, base: Any = None) -> Any:
    if not involves_tracer((x, base)):
        return math.log(x) if base is None else math.log(x, base)
    from .ufuncs import apply_cast, apply_ufunc

    value = apply_ufunc(np.log, (apply_cast(_scalar(x, "math.log()"), np.dtype("float64")),), {})
    if base is not None:
        divisor = apply_ufunc(np.log, (apply_cast(as_operand(base), np.dtype("float64")),), {})
        value = apply_ufunc(np.true_divide, (value, divisor), {})
    return _tracer(value, builtins.float)


def routed_functions() -> dict[tuple[Any, str], Callable[..., Any]]:
    """``(namespace, name)`` -> traced version, for :func:`aotbuild.trace.patches.tracing_patches`."""
    routed: dict[tuple[Any, str], Callable[..., Any]] = {
        (builtins, "max"): traced_max,
        (builtins, "min"): traced_min,
        (builtins, "round"): traced_round,
        (math, "log"): _math_log,
    }
    for name, (ufunc, python_type) in _MATH_UFUNCS.items():
        if hasattr(math, name):
            routed[math, name] = _math_function(name, ufunc, python_type)
    return routed


def _names(code: types.CodeType) -> set[str]:
    """The names a code object and the code nested in it (comprehensions, lambdas) look up."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


class _TracedType:
    """``int``/``float``/``complex``/``bool`` in a traced function's globals: called, it converts
    (traced values too); as a type — ``dtype=int``, ``isinstance(v, float)`` — it is the real one."""

    def __init__(self, python_type: type, convert: Callable[..., Any]) -> None:
        self._type = python_type
        self._convert = convert
        self.dtype = np.dtype(python_type)  # NumPy reads a type-like object's ``dtype``
        self.__name__ = python_type.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return self._type(*args, **kwargs)
        return self._convert(*args)

    def __instancecheck__(self, value: Any) -> bool:
        return isinstance(value, self._type)

    def __subclasscheck__(self, cls: type) -> bool:
        return issubclass(cls, self._type)

    def __getattr__(self, name: str) -> Any:  # int.from_bytes, float.fromhex...
        return getattr(self._type, name)

    def __repr__(self) -> str:
        return repr(self._type)


TRACED_TYPES = {
    "int": _TracedType(builtins.int, traced_int),
    "float": _TracedType(builtins.float, traced_float),
    "complex": _TracedType(builtins.complex, traced_complex),
    "bool": _TracedType(builtins.bool, traced_bool),
}


def with_traced_builtins(function: Any) -> Any:
    """``function`` seeing :data:`TRACED_TYPES` for ``int``, ``float``, ``complex`` and ``bool``
    (where its module does not define those names itself): a copy sharing its code, defaults and
    closure, with a copy of its globals. Anything that is not a plain function is returned as is."""
    if not isinstance(function, types.FunctionType):
        return function
    names = _names(function.__code__)
    wanted = {k: v for k, v in TRACED_TYPES.items() if k in names and k not in function.__globals__}
    if not wanted:
        return function
    namespace = {**function.__globals__, **wanted}
    copy = types.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__qualname__ = function.__qualname__
    copy.__module__ = function.__module__
    copy.__dict__.update(function.__dict__)
    return copy
