"""The symbolic value a traced function computes with.

A :class:`Tracer` stands for an array or scalar whose value is only known at run time. It speaks
NumPy's protocols (``__array_ufunc__``, ``__array_function__``, operators, reductions), so users
write ordinary NumPy code; each operation adds a node to the graph. Whatever needs the value
itself — ``if x > 0:``, ``float(x)``, ``range(len(x))`` — fails with an error that says why and
suggests compiling the function as a kernel.
"""

from __future__ import annotations

import builtins
from typing import Any, NoReturn

import numpy as np

from ..errors import TraceError
from ..graph import Dim, Node, Size
from .operands import Operand, as_operand
from .reductions import apply_reduction
from .ufuncs import KERNEL_HINT, apply_cast, apply_ufunc, apply_where, unsupported


def _run_time_value(what: str) -> TraceError:
    return TraceError(
        f"{what} needs the value of a traced array, which is only known at run time; "
        f"Python control flow and conversions cannot depend on it ({KERNEL_HINT})"
    )


class Tracer:
    """A traced array or scalar. Create tracers with ``Tracer(operand)``."""

    __slots__ = ("operand",)
    # Make NumPy defer to us in mixed operations such as ``ndarray * tracer``.
    __array_priority__ = 1000

    def __init__(self, operand: Operand) -> None:
        self.operand = operand

    # -- what the value is -------------------------------------------------------------------
    @property
    def node(self) -> Node:
        return self.operand.node

    @property
    def dtype(self) -> np.dtype:
        return self.operand.dtype

    @property
    def ndim(self) -> int:
        return self.operand.ndim

    @property
    def shape(self) -> tuple[Tracer, ...]:
        """Sizes are run-time values: each is a symbolic integer usable in arithmetic."""
        return tuple(_symbolic_int(Node.make(Dim(axis), (self.node,))) for axis in range(self.ndim))

    @property
    def size(self) -> Tracer:
        if self.ndim == 0:
            return _symbolic_int(None)
        return _symbolic_int(Node.make(Size(), (self.node,)))

    def __repr__(self) -> str:
        weak = ", weak" if self.operand.weak else ""
        return f"<traced {self.node.type}{weak}>"

    # -- NumPy protocols ---------------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__":
            return Tracer(apply_ufunc(ufunc, inputs, kwargs))
        if method == "reduce" and ufunc.__name__ in _UFUNC_REDUCTIONS:
            (array,) = inputs
            kwargs.setdefault("axis", 0)
            return Tracer(apply_reduction(_UFUNC_REDUCTIONS[ufunc.__name__], array, **kwargs))
        raise unsupported(f"np.{ufunc.__name__}.{method}")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        handler = _FUNCTIONS.get(func)
        if handler is None:
            raise unsupported(_public_name(func))
        return handler(*args, **kwargs)

    def __array__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise _run_time_value("converting a traced value to a concrete NumPy array")

    # -- conversions that need a concrete value ----------------------------------------------
    def __bool__(self) -> NoReturn:
        raise _run_time_value("`if`, `while`, `and`, `or` or `bool()` on a traced value")

    def __index__(self) -> NoReturn:
        raise _run_time_value("using a traced value as a Python integer (e.g. in range())")

    def __int__(self) -> NoReturn:
        raise _run_time_value("int() of a traced value")

    def __float__(self) -> NoReturn:
        raise _run_time_value("float() (or a math.* function) of a traced value")

    def __complex__(self) -> NoReturn:
        raise _run_time_value("complex() of a traced value")

    def __iter__(self) -> NoReturn:
        raise _run_time_value("iterating over a traced array")

    def __len__(self) -> NoReturn:
        raise _run_time_value("len() of a traced array outside the traced function")

    def __getitem__(self, index: Any) -> NoReturn:
        raise unsupported("indexing a traced array")

    def __setitem__(self, index: Any, value: Any) -> NoReturn:
        raise unsupported("assigning into a traced array")

    __hash__ = None  # type: ignore[assignment]

    # -- methods -----------------------------------------------------------------------------
    def astype(self, dtype: Any, copy: bool = True) -> Tracer:
        return Tracer(apply_cast(self.operand, dtype))

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("sum", self.operand, axis, dtype, out, keepdims))

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("prod", self.operand, axis, dtype, out, keepdims))

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("mean", self.operand, axis, dtype, out, keepdims))

    def min(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("min", self.operand, axis, None, out, keepdims))

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("max", self.operand, axis, None, out, keepdims))

    # -- operators ---------------------------------------------------------------------------
    def _binary(self, ufunc: np.ufunc, other: Any, reflected: bool = False) -> Tracer:
        args = (other, self) if reflected else (self, other)
        return Tracer(apply_ufunc(ufunc, args, {}))

    def __add__(self, other: Any) -> Tracer:
        return self._binary(np.add, other)

    def __radd__(self, other: Any) -> Tracer:
        return self._binary(np.add, other, True)

    def __sub__(self, other: Any) -> Tracer:
        return self._binary(np.subtract, other)

    def __rsub__(self, other: Any) -> Tracer:
        return self._binary(np.subtract, other, True)

    def __mul__(self, other: Any) -> Tracer:
        return self._binary(np.multiply, other)

    def __rmul__(self, other: Any) -> Tracer:
        return self._binary(np.multiply, other, True)

    def __truediv__(self, other: Any) -> Tracer:
        return self._binary(np.true_divide, other)

    def __rtruediv__(self, other: Any) -> Tracer:
        return self._binary(np.true_divide, other, True)

    def __floordiv__(self, other: Any) -> Tracer:
        return self._binary(np.floor_divide, other)

    def __rfloordiv__(self, other: Any) -> Tracer:
        return self._binary(np.floor_divide, other, True)

    def __mod__(self, other: Any) -> Tracer:
        return self._binary(np.remainder, other)

    def __rmod__(self, other: Any) -> Tracer:
        return self._binary(np.remainder, other, True)

    def __pow__(self, other: Any) -> Tracer:
        return self._binary(np.power, other)

    def __rpow__(self, other: Any) -> Tracer:
        return self._binary(np.power, other, True)

    def __and__(self, other: Any) -> Tracer:
        return self._binary(np.bitwise_and, other)

    def __rand__(self, other: Any) -> Tracer:
        return self._binary(np.bitwise_and, other, True)

    def __or__(self, other: Any) -> Tracer:
        return self._binary(np.bitwise_or, other)

    def __ror__(self, other: Any) -> Tracer:
        return self._binary(np.bitwise_or, other, True)

    def __xor__(self, other: Any) -> Tracer:
        return self._binary(np.bitwise_xor, other)

    def __rxor__(self, other: Any) -> Tracer:
        return self._binary(np.bitwise_xor, other, True)

    def __lshift__(self, other: Any) -> Tracer:
        return self._binary(np.left_shift, other)

    def __rlshift__(self, other: Any) -> Tracer:
        return self._binary(np.left_shift, other, True)

    def __rshift__(self, other: Any) -> Tracer:
        return self._binary(np.right_shift, other)

    def __rrshift__(self, other: Any) -> Tracer:
        return self._binary(np.right_shift, other, True)

    def __lt__(self, other: Any) -> Tracer:
        return self._binary(np.less, other)

    def __le__(self, other: Any) -> Tracer:
        return self._binary(np.less_equal, other)

    def __gt__(self, other: Any) -> Tracer:
        return self._binary(np.greater, other)

    def __ge__(self, other: Any) -> Tracer:
        return self._binary(np.greater_equal, other)

    def __eq__(self, other: Any) -> Tracer:  # type: ignore[override]
        return self._binary(np.equal, other)

    def __ne__(self, other: Any) -> Tracer:  # type: ignore[override]
        return self._binary(np.not_equal, other)

    def __neg__(self) -> Tracer:
        return Tracer(apply_ufunc(np.negative, (self,), {}))

    def __pos__(self) -> Tracer:
        return Tracer(apply_ufunc(np.positive, (self,), {}))

    def __abs__(self) -> Tracer:
        return Tracer(apply_ufunc(np.absolute, (self,), {}))

    def __invert__(self) -> Tracer:
        return Tracer(apply_ufunc(np.invert, (self,), {}))

    def __matmul__(self, other: Any) -> NoReturn:
        raise unsupported("the @ operator")

    __rmatmul__ = __matmul__


def _public_name(func: Any) -> str:
    """``np.linalg.solve`` for numpy.linalg's solve (private submodules left out)."""
    parts = (getattr(func, "__module__", None) or "numpy").split(".")
    if parts[0] == "numpy":
        parts = ["np"] + [part for part in parts[1:] if not part.startswith("_")]
    return ".".join(parts + [getattr(func, "__name__", repr(func))])


def _symbolic_int(node: Node | None) -> Tracer:
    """An integer known only at run time (a size): weak, like a Python int in NumPy 2."""
    if node is None:
        return Tracer(as_operand(1))
    return Tracer(Operand(node, weak=True, python_type=int))


def traced_len(obj: Any) -> Any:
    """``len()`` while tracing: the first dimension, symbolic, for tracers."""
    if isinstance(obj, Tracer):
        if obj.ndim == 0:
            raise TraceError("len() of a traced scalar")
        return obj.shape[0]
    return _builtin_len(obj)


_builtin_len = builtins.len

_UFUNC_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}


def _reduction(kind: str) -> Any:
    def handler(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Tracer:
        return Tracer(apply_reduction(kind, a, axis, *args, **kwargs))

    return handler


def _where(condition: Any, *xy: Any) -> Tracer:
    if len(xy) != 2:
        raise unsupported("np.where with one argument (np.nonzero)")
    return Tracer(apply_where(condition, *xy))


def _dimension_count(a: Any) -> int:
    return Tracer(as_operand(a)).ndim


def _shape(a: Any) -> tuple[Any, ...]:
    return Tracer(as_operand(a)).shape


_FUNCTIONS: dict[Any, Any] = {
    np.sum: _reduction("sum"),
    np.prod: _reduction("prod"),
    np.mean: _reduction("mean"),
    np.min: _reduction("min"),
    np.max: _reduction("max"),
    np.amin: _reduction("min"),
    np.amax: _reduction("max"),
    np.where: _where,
    np.ndim: _dimension_count,
    np.shape: _shape,
}
