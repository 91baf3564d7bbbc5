"""Creating arrays while tracing: ``np.zeros``, ``np.full``, ``np.arange``, ``np.linspace``, ...

Sizes may be computed from other arrays' sizes, so they are run-time inputs of the Op. A small
result whose every parameter is known at trace time is computed by NumPy now, as a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TraceError
from ..types import Array
from .movement import expression
from .operands import Operand, as_operand, check_dtype, integer_entry
from .ufuncs import _weak_probe, apply_cast, apply_ufunc, unsupported

#: Results up to this many elements, fully known at trace time, become constants.
FOLD_LIMIT = 256


def _tracer(x: Operand) -> Any:
    from .tracer import Tracer

    return Tracer(x)


def _shape_code(shape: object) -> tuple[list[str], list[Operand], list[int] | None]:
    """Source text for each length ({k} for run-time ones), their operands, and the shape if known."""
    entries = shape if isinstance(shape, (tuple, list)) else (shape,)
    codes: list[str] = []
    inputs: list[Operand] = []
    known: list[int] = []
    for entry in entries:
        value, node = integer_entry(entry, "an array length")
        if node is None:
            if value is not None and value < 0:
                raise TraceError("negative dimensions are not allowed")
            codes.append(str(value))
            known.append(int(value))  # type: ignore[arg-type]
        else:
            codes.append(f"{{{len(inputs)}}}")
            inputs.append(Operand(node))
    return codes, inputs, known if not inputs else None


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
    if kind == "full":
        value = as_operand(fill)
        result = _dtype(dtype, value.dtype if not value.weak else np.asarray(fill).dtype)
        if value.ndim:
            raise unsupported("np.full with an array fill value")
    else:
        result = _dtype(dtype, np.float64)
    if (
        known is not None
        and int(np.prod(known)) <= FOLD_LIMIT
        and (kind != "full" or as_operand(fill).constant is not None)
    ):
        if kind == "full":
            # The constant's array, not ``fill``: np.full is patched while tracing.
            return as_operand(np.full(known, as_operand(fill).constant.array, dtype=result))  # type: ignore[union-attr]
        return as_operand(np.zeros(known, dtype=result) if kind != "ones" else np.ones(known, dtype=result))
    shape_text = _tuple_text(codes)
    if kind == "full":
        inputs.append(apply_cast(as_operand(fill), result))
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
    return filled(kind, _tracer(source).shape, dtype if dtype is not None else source.dtype, fill)


def arange(*args: Any, dtype: Any = None, **kwargs: Any) -> Operand:
    if kwargs:
        raise unsupported(f"np.arange(..., {next(iter(kwargs))}=...)")
    if len(args) == 4 and dtype is None:  # np.arange(start, stop, step, dtype)
        dtype, args = args[3], args[:3]
    if not 1 <= len(args) <= 3:
        raise TraceError("np.arange takes 1 to 3 positional arguments")
    operands = [as_operand(a) for a in args]
    samples = [op.python_type(1) if op.weak else op.dtype.type(1) for op in operands]  # type: ignore[misc]
    result = np.arange(*samples, dtype=dtype).dtype  # type: ignore[call-overload]
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

    With the endpoint, numba's linspace gives NumPy's values (the same formula, the last value
    set to ``stop``); without it, NumPy's ``arange(num) * step + start`` is traced as written.
    """
    if retstep or axis != 0:
        raise unsupported("np.linspace with retstep= or axis=")
    low, high = as_operand(start), as_operand(stop)
    if low.ndim or high.ndim:
        raise unsupported("np.linspace between arrays")
    known, node = integer_entry(num, "num")
    if known is not None and known < 0:
        raise TraceError(f"Number of samples, {known}, must be non-negative.")
    count = Operand(node) if node is not None else as_operand(known)
    # NumPy: the result type of start and stop (Python numbers weak), made inexact.
    kind = np.result_type(_weak_probe(low), _weak_probe(high), 0.0)
    low, high = apply_cast(low, kind), apply_cast(high, kind)
    if endpoint:
        values = expression(
            "linspace", "np.linspace({0}, {1}, {2})", Array(kind.name, 1, "C"), low, high, count
        )
    else:
        step = apply_ufunc(
            np.true_divide,
            (_tracer(apply_ufunc(np.subtract, (_tracer(high), _tracer(low)), {})), _tracer(count)),
            {},
        )
        ramp = apply_cast(arange(_tracer(count)), kind)
        values = apply_ufunc(
            np.add, (_tracer(apply_ufunc(np.multiply, (_tracer(ramp), _tracer(step)), {})), _tracer(low)), {}
        )
    if dtype is None:
        return values
    target = np.dtype(dtype)  # type: ignore[call-overload]
    if target.kind in "iu":
        values = apply_ufunc(np.floor, (_tracer(values),), {})
    return apply_cast(values, target)


def eye(n: object, m: object = None, k: object = 0, dtype: object = float, order: object = "C") -> Operand:
    if order != "C":
        raise unsupported(f"np.eye(..., order={order!r})")
    result = _dtype(dtype, float)
    inputs: list[Operand] = []
    codes = []
    for value in (n, m if m is not None else n, k):
        entry, node = integer_entry(value, "a size of np.eye")
        if node is None:
            codes.append(str(entry))
        else:
            codes.append(f"{{{len(inputs)}}}")
            inputs.append(Operand(node))
    if not inputs and int(codes[0]) * int(codes[1]) <= FOLD_LIMIT:
        return as_operand(np.eye(int(codes[0]), int(codes[1]), int(codes[2]), dtype=result))
    code = f"np.eye({codes[0]}, {codes[1]}, {codes[2]}, dtype=np.{result.name})"
    return expression("eye", code, Array(result.name, 2, "C"), *inputs)
