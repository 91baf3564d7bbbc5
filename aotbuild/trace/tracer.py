"""The symbolic value a traced function computes with.

A :class:`Tracer` stands for an array or scalar whose value is only known at run time. It speaks
NumPy's protocols (``__array_ufunc__``, ``__array_function__``, operators, indexing, methods), so
users write ordinary NumPy code; each operation adds a node to the graph. Whatever needs the value
itself — ``if x > 0:``, ``float(x)``, ``range(len(x))`` — fails with an error that says why and
suggests compiling the function as a kernel.

Writing into a traced array (``z[0] = x``) gives the tracer a new value and leaves the old one as
it was. NumPy would also change every *view* of ``z``; here a view taken before the write keeps
the old values, so using one afterwards is an error rather than a silent difference.
"""

from __future__ import annotations

import builtins
from typing import Any, NoReturn

import numpy as np

from ..errors import RunTimeValueError, TraceError
from ..graph import Dim, Node, Size
from ..graph.shapes import known_shape
from . import linalg, movement
from .indexing import setitem, subscript, take
from .operands import Operand, as_operand
from .reductions import apply_reduction
from .special import apply_special, is_special
from .ufuncs import KERNEL_HINT, apply_cast, apply_ufunc, copy, unsupported


def _run_time_value(what: str) -> RunTimeValueError:
    return RunTimeValueError(
        f"{what} needs a traced value (computed from array values or sizes), known only at run time; "
        f"Python control flow and conversions cannot depend on it ({KERNEL_HINT})"
    )


class Tracer:
    """A traced array or scalar. Create tracers with ``Tracer(operand)``."""

    __slots__ = ("_operand", "_view_of", "_version")
    # Make NumPy defer to us in mixed operations such as ``ndarray * tracer``.
    __array_priority__ = 1000

    def __init__(self, operand: Operand, view_of: tuple[Tracer, int] | None = None) -> None:
        self._operand = operand
        self._view_of = view_of
        self._version = 0

    # -- what the value is -------------------------------------------------------------------
    @property
    def operand(self) -> Operand:
        """The current value; an error for a view whose base was written after it was taken."""
        tracer: Tracer | None = self
        while tracer is not None and tracer._view_of is not None:
            base, version = tracer._view_of
            if base._version != version:
                raise TraceError(
                    "this array is a view of another traced array that was written to after the view "
                    "was taken; NumPy would show the write, the traced graph would not. Take the view "
                    "after writing, or .copy() it before"
                )
            tracer = base
        return self._operand

    def view(self, result: Operand) -> Tracer:
        """``result`` as a view of this array (stale once this array is written to)."""
        return Tracer(result, (self, self._version))

    @property
    def node(self) -> Node:
        return self.operand.node

    @property
    def dtype(self) -> np.dtype:
        return self._operand.dtype

    @property
    def ndim(self) -> int:
        return self._operand.ndim

    @property
    def shape(self) -> tuple[Any, ...]:
        """Sizes are run-time values: each is a symbolic integer usable in arithmetic."""
        operand = self.operand
        if operand.constant is not None:
            return tuple(int(n) for n in operand.constant.shape)
        known = known_shape(operand.node)  # lengths constants fix (aotbuild/graph/shapes.py)
        return tuple(
            known[axis]
            if known and known[axis] is not None
            else _symbolic_int(Node.make(Dim(axis), (operand.node,)))
            for axis in range(self.ndim)
        )

    @property
    def size(self) -> Any:
        operand = self.operand
        if operand.constant is not None:
            return int(np.prod(operand.constant.shape))
        if self.ndim == 0:
            return 1
        lengths = [length for length in known_shape(operand.node) if length is not None]
        if len(lengths) == self.ndim:
            return int(np.prod(lengths))
        return _symbolic_int(Node.make(Size(), (operand.node,)))

    @property
    def T(self) -> Tracer:  # noqa: N802 (NumPy's name)
        return self.view(movement.transpose(self.operand))

    @property
    def real(self) -> Tracer:
        return self.view(movement.complex_part("real", self.operand))

    @property
    def imag(self) -> Tracer:
        return Tracer(movement.complex_part("imag", self.operand))

    def __repr__(self) -> str:
        weak = ", weak" if self._operand.weak else ""
        return f"<traced {self._operand.node.type}{weak}>"

    # -- NumPy protocols ---------------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__":
            if ufunc is np.matmul:
                return self._matmul(*inputs, **kwargs)
            if is_special(ufunc):
                return Tracer(apply_special(ufunc, inputs, kwargs))
            return Tracer(apply_ufunc(ufunc, inputs, kwargs))
        if method == "reduce" and ufunc.__name__ in _UFUNC_REDUCTIONS:
            (array,) = inputs
            kwargs.setdefault("axis", 0)
            return Tracer(apply_reduction(_UFUNC_REDUCTIONS[ufunc.__name__], array, **kwargs))
        if method == "accumulate" and ufunc.__name__ in ("add", "multiply"):
            (array,) = inputs
            kind = "sum" if ufunc.__name__ == "add" else "prod"
            return Tracer(movement.scan(kind, as_operand(array), kwargs.pop("axis", 0), **kwargs))
        raise unsupported(f"np.{ufunc.__name__}.{method}")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        from .functions import FUNCTIONS  # functions.py builds on this module

        handler = FUNCTIONS.get(func)
        if handler is None:
            raise unsupported(_public_name(func))
        return handler(*args, **kwargs)

    def __array__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise _run_time_value("converting a traced value to a concrete NumPy array")

    # -- conversions that need a concrete value ----------------------------------------------
    def __bool__(self) -> NoReturn:
        raise _run_time_value("`if`, `while`, `and`, `or` or `bool()` on a traced value")

    def __index__(self) -> NoReturn:
        raise _run_time_value(
            "using a traced value as a Python integer (e.g. in range(), or in a NumPy function "
            "imported by name: call np.zeros(...) rather than zeros(...))"
        )

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

    __hash__ = None  # type: ignore[assignment]

    # -- indexing ----------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Tracer:
        result, is_view = subscript(self.operand, key)
        return self.view(result) if is_view else Tracer(result)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._write(setitem(self.operand, key, value))

    def _write(self, operand: Operand) -> None:
        """Give this array a new value in place (views taken before become stale)."""
        if self._view_of is not None:
            raise TraceError(
                "writing into a view of another traced array: NumPy would change that array too "
                "(or the caller's input). Write into the array itself, or .copy() the view first"
            )
        self._operand = operand
        self._version += 1

    # -- methods -----------------------------------------------------------------------------
    def astype(self, dtype: Any, copy: bool = True) -> Tracer:
        return Tracer(apply_cast(self.operand, dtype))

    def copy(self, order: str = "C") -> Tracer:
        return Tracer(copy(self.operand))

    def reshape(self, *shape: Any, order: str = "C") -> Tracer:
        if order != "C":
            raise unsupported(f"reshape(..., order={order!r})")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return self.view(movement.reshape(self.operand, shape))

    def ravel(self, order: str = "C") -> Tracer:
        return self.view(movement.ravel(self.operand))

    def flatten(self, order: str = "C") -> Tracer:
        return Tracer(copy(movement.ravel(self.operand)))

    def transpose(self, *axes: Any) -> Tracer:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return self.view(movement.transpose(self.operand, axes or None))

    def swapaxes(self, axis1: int, axis2: int) -> Tracer:
        return self.view(movement.swapaxes(self.operand, axis1, axis2))

    def squeeze(self, axis: Any = None) -> Tracer:
        return self.view(movement.squeeze(self.operand, axis))

    def repeat(self, repeats: Any, axis: Any = None) -> Tracer:
        return Tracer(movement.repeat(self.operand, repeats, axis))

    def take(self, indices: Any, axis: Any = None) -> Tracer:
        return Tracer(take(self.operand, indices, axis))

    def clip(self, min: Any = None, max: Any = None, out: Any = None) -> Tracer:  # noqa: A002
        return Tracer(movement.clip(self.operand, min, max, out))

    def cumsum(self, axis: Any = None, dtype: Any = None) -> Tracer:
        return Tracer(movement.scan("sum", self.operand, axis, dtype))

    def cumprod(self, axis: Any = None, dtype: Any = None) -> Tracer:
        return Tracer(movement.scan("prod", self.operand, axis, dtype))

    def sort(self, axis: int = -1, kind: Any = None) -> None:
        """In place, as NumPy's method: the tracer takes the sorted value."""
        if axis is None:
            raise TraceError("x.sort() takes an integer axis (NumPy's method does not flatten)")
        self._write(movement.sort(self.operand, axis, kind))

    def argsort(self, axis: Any = -1, kind: Any = None) -> Tracer:
        return Tracer(movement.argsort(self.operand, axis, kind))

    def argmin(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(movement.arg_reduction("argmin", self.operand, axis, out, keepdims))

    def argmax(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(movement.arg_reduction("argmax", self.operand, axis, out, keepdims))

    def conj(self) -> Tracer:
        return Tracer(apply_ufunc(np.conjugate, (self,), {}))

    conjugate = conj

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

    def any(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("any", self.operand, axis, None, out, keepdims))

    def all(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Tracer:
        return Tracer(apply_reduction("all", self.operand, axis, None, out, keepdims))

    def var(
        self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0, keepdims: bool = False
    ) -> Tracer:
        return Tracer(movement.variance(self.operand, axis, dtype, out, ddof, keepdims))

    def std(
        self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0, keepdims: bool = False
    ) -> Tracer:
        return Tracer(movement.variance(self.operand, axis, dtype, out, ddof, keepdims, std=True))

    def dot(self, other: Any) -> Tracer:
        return Tracer(linalg.dot(self.operand, as_operand(other)))

    def _matmul(self, a: Any, b: Any, **kwargs: Any) -> Tracer:
        if kwargs:
            raise unsupported(f"np.matmul(..., {next(iter(kwargs))}=...)")
        return Tracer(linalg.matmul(as_operand(a), as_operand(b)))

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

    def __matmul__(self, other: Any) -> Tracer:
        return self._matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tracer:
        return self._matmul(other, self)

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


def _public_name(func: Any) -> str:
    """``np.linalg.solve`` for numpy.linalg's solve (private submodules left out)."""
    parts = (getattr(func, "__module__", None) or "numpy").split(".")
    if parts[0] == "numpy":
        parts = ["np"] + [part for part in parts[1:] if not part.startswith("_")]
    return ".".join(parts + [getattr(func, "__name__", repr(func))])


def _symbolic_int(node: Node) -> Tracer:
    """An integer known only at run time (a size): weak, like a Python int in NumPy 2."""
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
