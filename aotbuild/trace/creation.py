"""Creating arrays while tracing: ``np.zeros``, ``np.full``, ``np.arange``, ``np.linspace``, ...

Sizes may be computed from other arrays' sizes, so they are run-time inputs of the Op. A small
result whose every parameter is known at trace time is computed by NumPy now, as a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph.array_ops import DYNAMIC
from ..types import Array
from .indexing import setitem
from .movement import dims, expression, shape_spec, spec_code
from .operands import Operand, as_operand, check_dtype, integer_entry
from .ufuncs import apply_cast, apply_ufunc, unsupported

#: Results up to this many elements, fully known at trace time, become constants.
FOLD_LIMIT = 256


def _shape_code(shape: object) -> tuple[list[str], list[Operand], list[int] | None]:
    """Source text for each length ({k} for run-time ones), their operands, and the shape if known."""
    spec, nodes = shape_spec(shape, "an array length")
    if any(entry is not DYNAMIC and entry < 0 for entry in spec):
        raise TraceError("negative dimensions are not allowed")
    codes, inputs = spec_code(spec, nodes)
    return codes, inputs, list(spec) if not nodes else None


def _dtype(dtype: Any, default: Any) -> np.dtype:
    result = np.dtype(default if dtype is None else dtype)
    check_dtype(result, "the requested dtype")
    return result


def _tuple_text(codes: list[str]) -> str:
    return f"({codes[0]},)" if len(codes) == 1 else f"({', '.join(codes)})"


def filled(
    kind: str, shape: object, dtype: object = None, fill: object = None, order: object = "C"
) -> Operand:
    """``np.zeros/ones/empty/full(shape, ...)``."""
    if order not in ("C", None):
        raise unsupported(f"np.{kind}(..., order={order!r})")
    codes, inputs, known = _shape_code(shape)
    value = as_operand(fill) if kind == "full" else None
    if value is not None:
        # A Python number's dtype is its default one (int64, float64, complex128), as NumPy's.
        result = _dtype(dtype, value.dtype)
        if value.ndim:
            raise unsupported("np.full with an array fill value")
    else:
        result = _dtype(dtype, np.float64)
    if known is not None and int(np.prod(known)) <= FOLD_LIMIT:
        if value is None:
            return as_operand((np.ones if kind == "ones" else np.zeros)(known, dtype=result))
        if value.constant is not None:
            # The constant's array, not ``fill``: np.full is patched while tracing.
            return as_operand(np.full(known, value.constant.array, dtype=result))
    shape_text = _tuple_text(codes)
    if value is not None:
        inputs.append(apply_cast(value, result))
        code = f"np.full({shape_text}, {{{len(inputs) - 1}}}, dtype=np.{result.name})"
    else:
        function = "zeros" if kind == "empty" else kind  # deterministic contents, same cost
        code = f"np.{function}({shape_text}, dtype=np.{result.name})"
    return expression(kind, code, Array(result.name, len(codes), "C"), *inputs)


def filled_like(
    kind: str, prototype: object, dtype: object = None, fill: object = None, shape: object = None
) -> Operand:
    """``np.zeros_like/ones_like/empty_like/full_like(a, ...)``."""
    source = as_operand(prototype)
    if shape is not None:
        return filled(kind, shape, dtype if dtype is not None else source.dtype, fill)
    if source.ndim == 0:
        return filled(kind, (), dtype if dtype is not None else source.dtype, fill)
    return filled(kind, dims(source), dtype if dtype is not None else source.dtype, fill)


def arange(*args: Any, dtype: Any = None, **kwargs: Any) -> Operand:
    if kwargs:
        raise unsupported(f"np.arange(..., {next(iter(kwargs))}=...)")
    if len(args) == 4 and dtype is None:  # np.arange(start, stop, step, dtype)
        dtype, args = args[3], args[:3]
    if not 1 <= len(args) <= 3:
        raise TraceError("np.arange takes 1 to 3 positional arguments")
    operands = [as_operand(a) for a in args]
    result = np.arange(*(op.probe(1) for op in operands), dtype=dtype).dtype
    check_dtype(result, "the result of np.arange")
    if all(op.constant is not None for op in operands):
        # The constants' values, not ``args``: np.arange is patched while tracing.
        values = np.arange(*(op.constant.array.item() for op in operands), dtype=result)  # type: ignore[union-attr]
        if values.size <= FOLD_LIMIT:
            return as_operand(values)
    names = ", ".join(f"{{{i}}}" for i in range(len(operands)))
    return expression(
        "arange", f"np.arange({names}, dtype=np.{result.name})", Array(result.name, 1, "C"), *operands
    )


def linspace(
    start: object,
    stop: object,
    num: object = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: object = None,
    axis: int = 0,
) -> Operand:
    """``np.linspace`` between scalars; ``num`` may be computed from sizes.

    In float64 and complex128 with the endpoint, numba's linspace gives NumPy's values (the same
    formula, the last value set to ``stop``); numba computes nothing else in float32 or complex64,
    so otherwise NumPy's formula is traced as written.
    """
    if retstep or axis != 0:
        raise unsupported("np.linspace with retstep= or axis=")
    low, high = as_operand(start), as_operand(stop)
    if low.ndim or high.ndim:
        raise unsupported("np.linspace between arrays")
    known, node = integer_entry(num, "num")
    if known is not None and known < 0:
        raise TraceError(f"Number of samples, {known}, must be non-negative.")
    # A size: weak, like the Python int NumPy is given.
    count = Operand(node, weak=True, python_type=int) if node is not None else as_operand(known)
    # NumPy: the result type of start and stop (Python numbers weak), made inexact.
    kind = np.result_type(low.probe(), high.probe(), 0.0)
    low, high = apply_cast(low, kind), apply_cast(high, kind)
    if endpoint and kind in (np.float64, np.complex128):
        values = expression(
            "linspace", "np.linspace({0}, {1}, {2})", Array(kind.name, 1, "C"), low, high, count
        )
    else:
        values = _linspace_formula(low, high, count, known, endpoint, kind)
    if dtype is None:
        return values
    target = np.dtype(dtype)  # type: ignore[call-overload]
    if target.kind in "iu":
        values = apply_ufunc(np.floor, (values,), {})
    return apply_cast(values, target)


def _linspace_formula(
    low: Operand, high: Operand, count: Operand, known: int | None, endpoint: bool, kind: np.dtype
) -> Operand:
    """NumPy's linspace, step by step, in ``kind``: ``arange(num) * step + start``, where
    ``step = (stop - start) / div``; with the endpoint ``div`` is ``num - 1`` and the last value
    is set to ``stop``."""
    delta = apply_ufunc(np.subtract, (high, low), {})
    ramp = apply_cast(arange(count), kind)
    if not endpoint:
        step = apply_ufunc(np.true_divide, (delta, count), {})
        return apply_ufunc(np.add, (apply_ufunc(np.multiply, (ramp, step), {}), low), {})
    # For one sample NumPy multiplies by delta instead of dividing by 0: the same as by 1.
    div = apply_ufunc(np.maximum, (apply_ufunc(np.subtract, (count, 1), {}), 1), {})
    step = apply_ufunc(np.true_divide, (delta, div), {})
    values = apply_ufunc(np.add, (apply_ufunc(np.multiply, (ramp, step), {}), low), {})
    if known is not None and known < 2:
        return values
    if values.constant is not None and high.constant is not None:
        array = np.array(values.constant.array)
        array[-1] = high.constant.array
        return as_operand(array)
    # values[div:] = stop: the last value, or none for fewer than two samples.
    return setitem(values, (slice(div, None),), high)


def eye(n: object, m: object = None, k: object = 0, dtype: object = float, order: object = "C") -> Operand:
    if order != "C":
        raise unsupported(f"np.eye(..., order={order!r})")
    result = _dtype(dtype, float)
    spec, nodes = shape_spec((n, m if m is not None else n, k), "a size of np.eye")
    if not nodes and spec[0] * spec[1] <= FOLD_LIMIT:
        return as_operand(np.eye(*spec, dtype=result))
    codes, inputs = spec_code(spec, nodes)
    code = f"np.eye({codes[0]}, {codes[1]}, {codes[2]}, dtype=np.{result.name})"
    return expression("eye", code, Array(result.name, 2, "C"), *inputs)
