"""Turning whatever a traced function combines — tracers, Python numbers, NumPy scalars and
arrays — into graph nodes, remembering which operands are *weak* in NumPy 2's sense (NEP 50).

A Python ``int``/``float``/``complex`` (and an integer computed from sizes, such as
``x.shape[0]``) does not decide the result dtype: ``float32_array * 2.5`` stays float32.
NumPy scalars and arrays are strong: ``float32_array * np.float64(2.5)`` is float64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import TraceError
from ..graph import Constant, ConstValue, Node
from ..types import SUPPORTED_DTYPES, Array, Scalar, Value


@dataclass(frozen=True)
class Operand:
    """A node, and whether it is weakly typed (see the module docstring).

    ``python_type`` is ``int``, ``float`` or ``complex`` for weak operands: what NumPy's dtype
    resolution is given in their place.
    """

    node: Node
    weak: bool = False
    python_type: type | None = None

    @property
    def value_type(self) -> Value:
        value = self.node.type
        assert isinstance(value, (Scalar, Array)), value
        return value

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.value_type.dtype)

    @property
    def ndim(self) -> int:
        return self.value_type.ndim

    @property
    def resolution_dtype(self) -> np.dtype | type:
        """What ``ufunc.resolve_dtypes`` should see for this operand."""
        if self.weak and self.python_type is not None:
            return self.python_type
        return self.dtype

    def probe(self, value: int = 0) -> Any:
        """``value`` typed as this operand, for NumPy to work out a result dtype from.

        A Python number for weak operands, so ``np.result_type`` treats it as weak; a NumPy
        scalar of the operand's dtype otherwise.
        """
        if self.weak and self.python_type is not None:
            return self.python_type(value)
        return self.dtype.type(value)

    @property
    def constant(self) -> ConstValue | None:
        op = self.node.op
        return op.value if isinstance(op, Constant) else None


def check_dtype(dtype: np.dtype, what: str | Callable[[], str]) -> None:
    """Reject dtypes numba cannot compile (float16, strings, objects, datetimes...).

    ``what`` names the value in the message; a function giving the name is called only for
    the message.
    """
    if dtype.name not in SUPPORTED_DTYPES:
        raise TraceError(
            f"{what if isinstance(what, str) else what()} has dtype {dtype.name}, which aotbuild "
            f"does not support (supported: {', '.join(SUPPORTED_DTYPES)})"
        )


def constant_node(value: object, dtype: npt.DTypeLike | None = None, what: str | None = None) -> Node:
    """The node of a constant; ``what`` names it in errors (else its repr, slow to build)."""
    const = ConstValue.of(value, dtype)
    check_dtype(np.dtype(const.dtype), what or (lambda: f"the constant {value!r}"))
    return Node.make(Constant(const))


def as_operand(value: object) -> Operand:
    """The operand for ``value``: a tracer's node, or a constant node for concrete values."""
    from .tracer import Tracer

    if isinstance(value, Operand):
        return value
    if isinstance(value, Tracer):
        return value.operand
    if isinstance(value, (np.generic, np.ndarray)):
        # Before the Python types: np.float64 and np.complex128 subclass float and complex,
        # yet NumPy scalars are strong.
        return Operand(constant_node(value, what="a constant"))
    if isinstance(value, bool):
        # NEP 50 treats Python bool like np.bool_: it is not weak.
        return Operand(constant_node(value, np.bool_))
    if isinstance(value, int):
        return Operand(_python_int_node(value), weak=True, python_type=int)
    if isinstance(value, float):
        return Operand(constant_node(value, np.float64), weak=True, python_type=float)
    if isinstance(value, complex):
        return Operand(constant_node(value, np.complex128), weak=True, python_type=complex)
    if isinstance(value, (list, tuple)):
        from .movement import array_operand  # NumPy reads a sequence as the array of its items

        return array_operand(value)
    raise TraceError(
        f"cannot use a value of type {type(value).__name__} in a traced computation "
        "(expected an array, a NumPy scalar or a Python number)"
    )


def _python_int_node(value: int) -> Node:
    try:
        return constant_node(value, np.int64)
    except OverflowError:
        raise TraceError(f"the Python integer {value} does not fit in int64") from None


def integer_entry(value: object, what: str) -> tuple[int | None, Node | None]:
    """An integer parameter (a size, an index, a slice bound): known now, or a run-time input.

    Returns ``(value, None)`` for an integer known at trace time and ``(None, node)`` for one
    computed at run time (from sizes, say).
    """
    from .tracer import Tracer

    if isinstance(value, (bool, np.bool_)):
        raise TraceError(f"{what} must be an integer, not a bool")
    if isinstance(value, (int, np.integer)):
        return int(value), None
    if isinstance(value, (Tracer, Operand)):
        operand = value.operand if isinstance(value, Tracer) else value
        if operand.ndim != 0 or operand.dtype.kind not in "iu":
            raise TraceError(f"{what} must be an integer, got a traced {operand.node.type}")
        if operand.constant is not None:
            return int(operand.constant.array), None
        return None, operand.node
    raise TraceError(f"{what} must be an integer (known now or computed from sizes), got {value!r}")


def normalize_axis(axis: object, ndim: int, expected: str = "an integer") -> int:
    """``axis`` as an axis (``0 <= axis < ndim``) of an array of ``ndim`` dimensions, checked."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TraceError(f"axis must be {expected} known at trace time, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise TraceError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def normalize_axes(
    axis: object, ndim: int, expected: str = "an integer", repeated: str = "repeated axis"
) -> tuple[int, ...]:
    """``axis`` (an int, or a tuple or list of them) as checked axes, in the order given."""
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(normalize_axis(item, ndim, expected) for item in items)
    if len(set(axes)) != len(axes):
        raise TraceError(repeated)
    return axes


def cast_constant(operand: Operand, dtype: np.dtype) -> Operand:
    """A constant operand converted to ``dtype`` at trace time, as NumPy converts it.

    A weak Python integer that does not fit the target integer dtype is an ``OverflowError`` in
    NumPy 2; it is a trace error here.
    """
    const = operand.constant
    assert const is not None
    if np.dtype(const.dtype) == dtype:
        return operand
    value = const.array
    if operand.weak and operand.python_type is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        number = int(value)
        if not info.min <= number <= info.max:
            raise TraceError(f"Python integer {number} out of bounds for {dtype.name}")
    with np.errstate(all="ignore"):
        converted = value.astype(dtype)
    return Operand(constant_node(converted), operand.weak, operand.python_type)
