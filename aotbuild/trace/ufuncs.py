"""Elementwise operations: NumPy ufuncs, ``np.where`` and ``astype``, recorded as graph nodes.

Dtypes are decided by NumPy itself — ``ufunc.resolve_dtypes`` and ``np.result_type`` — with weak
Python scalars passed as Python types, so results follow NumPy 2's promotion exactly. When every
operand is a constant the operation is evaluated now, by NumPy, and becomes a constant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import TraceError
from ..graph import Elementwise, Node
from .operands import Operand, as_operand, cast_constant, check_dtype, constant_node

#: ufuncs with one output that the tracer records (names as ``ufunc.__name__``).
SUPPORTED_UFUNCS = frozenset(
    (
        # arithmetic
        *("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod"),
        *("power", "float_power", "negative", "positive", "absolute", "fabs", "sign"),
        *("reciprocal", "square", "sqrt", "cbrt", "conjugate"),
        # exponents and logarithms
        *("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2"),
        # trigonometry
        *("sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot"),
        *("sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"),
        *("deg2rad", "rad2deg", "degrees", "radians"),
        # rounding, extrema, floating-point functions
        *("floor", "ceil", "trunc", "rint", "maximum", "minimum", "fmax", "fmin", "copysign"),
        *("isnan", "isinf", "isfinite", "signbit"),
        # comparisons and logic
        *("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"),
        *("logical_and", "logical_or", "logical_xor", "logical_not"),
        *("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"),
    )
)

KERNEL_HINT = 'declare the graph with mode = "kernel" to compile the function as written'


def unsupported(what: str) -> TraceError:
    return TraceError(f"{what} is not supported by the tracer; {KERNEL_HINT}")


def _result_operand(node: Node, operands: Sequence[Operand]) -> Operand:
    """Operations among weak operands only stay weak (Python number arithmetic)."""
    if operands and all(op.weak for op in operands):
        kind = Operand(node).dtype.kind
        python_type = {"b": None, "i": int, "u": int, "f": float, "c": complex}[kind]
        return Operand(node, weak=python_type is not None, python_type=python_type)
    return Operand(node)


def fold(function, operands: Sequence[Operand], out_dtype: np.dtype) -> Operand:
    """Evaluate with NumPy now: every operand is a constant."""
    values = []
    for op in operands:
        const = op.constant
        assert const is not None
        value = const.array
        values.append(value.item() if op.weak else value)
    with np.errstate(all="ignore"):
        result = np.asarray(function(*values))
    return _result_operand(constant_node(result.astype(out_dtype, copy=False)), operands)


def elementwise(
    fn: str, operands: list[Operand], in_dtypes: Sequence[np.dtype], out_dtype: np.dtype
) -> Operand:
    """An :class:`Elementwise` node computing ``fn`` in NumPy's loop ``in_dtypes -> out_dtype``."""
    check_dtype(out_dtype, f"the result of {fn}")
    cast = [
        cast_constant(op, np.dtype(dt)) if op.constant is not None else op
        for op, dt in zip(operands, in_dtypes, strict=True)
    ]
    op = Elementwise(fn, tuple(np.dtype(d).name for d in in_dtypes), np.dtype(out_dtype).name)
    return _result_operand(Node.make(op, tuple(o.node for o in cast)), operands)


def ufunc_loop(
    ufunc: np.ufunc,
    shown: str,
    args: Sequence[object],
    kwargs: dict[str, object],
    refuse: Callable[[str], TraceError],
) -> tuple[list[Operand], tuple[np.dtype, ...], np.dtype]:
    """The operands of ``ufunc`` (``shown``: ``np.exp``) called on ``args``, and the loop NumPy
    picks for them: its input dtypes and its output dtype. ``refuse`` makes the error for a
    keyword other than ``out=None``."""
    for key, value in kwargs.items():
        if key == "out" and (value is None or isinstance(value, tuple) and all(v is None for v in value)):
            continue
        raise refuse(f"{shown}(..., {key}=...)")
    if len(args) != ufunc.nin:
        raise TraceError(f"{shown} takes {ufunc.nin} argument(s), got {len(args)}")
    operands = [as_operand(arg) for arg in args]
    for op in operands:
        check_dtype(op.dtype, f"an argument of {shown}")
    # Python numbers among themselves (sizes, say) compute in their default dtypes, as NumPy
    # converts them: resolving the Python types alone would pick an object loop for comparisons.
    weak_only = all(op.weak for op in operands)
    seen = tuple(op.dtype if weak_only else op.resolution_dtype for op in operands)
    try:
        loop = ufunc.resolve_dtypes(seen + (None,))
    except Exception as exc:  # NumPy's own "no loop" / casting errors
        types = ", ".join(getattr(t, "name", getattr(t, "__name__", str(t))) for t in seen)
        raise TraceError(f"{shown}({types}): {exc}") from None
    return operands, loop[: ufunc.nin], loop[-1]


def apply_ufunc(ufunc: np.ufunc, args: Sequence[object], kwargs: dict[str, object]) -> Operand:
    name = ufunc.__name__
    if ufunc.nout != 1 or name not in SUPPORTED_UFUNCS:
        raise unsupported(f"np.{name}")
    operands, in_dtypes, out_dtype = ufunc_loop(ufunc, f"np.{name}", args, kwargs, unsupported)
    if all(op.constant is not None for op in operands):
        return fold(ufunc, operands, out_dtype)
    return elementwise(name, operands, in_dtypes, out_dtype)


def apply_where(condition: object, x: object, y: object) -> Operand:
    operands = [as_operand(condition), as_operand(x), as_operand(y)]
    for op in operands:
        check_dtype(op.dtype, "an argument of np.where")
    out_dtype = np.result_type(operands[1].probe(), operands[2].probe())
    dtypes = (np.dtype(bool), out_dtype, out_dtype)
    if all(op.constant is not None for op in operands):
        return fold(np.where, operands, out_dtype)
    result = elementwise("where", operands, dtypes, out_dtype)
    # np.where never returns a weak scalar.
    return Operand(result.node)


def copy(x: Operand) -> Operand:
    """A copy (``x.copy()``, ``np.copy``): a new array even where the dtype is unchanged."""
    if x.constant is not None or x.ndim == 0:
        return Operand(x.node)
    return elementwise("cast", [Operand(x.node)], (x.dtype,), x.dtype)


def apply_cast(x: object, dtype: object) -> Operand:
    op = as_operand(x)
    target = np.dtype(dtype)  # type: ignore[call-overload]
    check_dtype(target, "the target of astype")
    if op.dtype == target:
        return Operand(op.node)
    if op.constant is not None:
        with np.errstate(all="ignore"):
            return Operand(constant_node(op.constant.array.astype(target)))
    return elementwise("cast", [Operand(op.node)], (op.dtype,), target)
