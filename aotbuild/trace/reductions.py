"""Reductions: ``sum``, ``prod``, ``mean``, ``min``, ``max`` with ``axis`` and ``keepdims``.

The result dtype is the one NumPy gives for the same call (NumPy is run on a one-element array
of the input's dtype and dimension count). Elements are accumulated in that dtype, as NumPy
does: ``mean`` of integers in float64, of float32 in float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph import Node, Reduce
from .operands import Operand, as_operand, check_dtype, constant_node, normalize_axes
from .ufuncs import apply_cast, unsupported

_NUMPY_FUNCTION: dict[str, Callable[..., Any]] = {
    "sum": np.sum,
    "prod": np.prod,
    "mean": np.mean,
    "min": np.min,
    "max": np.max,
    "any": np.any,
    "all": np.all,
}


def reduction_axes(axis: object, ndim: int) -> tuple[int, ...]:
    """``axis`` of a reduction (None, an int or a tuple of ints) as sorted axes, checked."""
    if axis is None:
        return tuple(range(ndim))
    # A tuple, not a list, and NumPy's wording for reductions.
    items = axis if isinstance(axis, tuple) else (axis,)
    axes = normalize_axes(items, ndim, "an int or a tuple of ints", "duplicate value in 'axis'")
    return tuple(sorted(axes))


def apply_reduction(
    kind: str,
    x: object,
    axis: object = None,
    dtype: object = None,
    out: object = None,
    keepdims: bool = False,
    **other: Any,
) -> Operand:
    """``np.<kind>(x, axis=..., dtype=..., keepdims=...)``; ``initial=``/``where=`` are not."""
    for key in other:
        raise unsupported(f"np.{kind}(..., {key}=...)")
    if out is not None:
        raise unsupported(f"np.{kind}(..., out=...)")
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TraceError(f"keepdims must be True or False at trace time, got {keepdims!r}")
    if dtype is not None and kind in ("min", "max", "any", "all"):
        raise TraceError(f"np.{kind} does not take a dtype")
    operand = as_operand(x)
    check_dtype(operand.dtype, f"the argument of np.{kind}")
    if kind in ("min", "max") and operand.dtype.kind == "c":
        raise unsupported(f"np.{kind} of complex values")
    ndim = operand.ndim
    axes = reduction_axes(axis, ndim)
    kwargs: dict[str, Any] = {"axis": axes, "keepdims": bool(keepdims)}
    if dtype is not None:
        kwargs["dtype"] = np.dtype(dtype)  # type: ignore[call-overload]
    function = _NUMPY_FUNCTION[kind]
    sample = np.ones((1,) * ndim, dtype=operand.dtype)
    out_dtype = np.asarray(function(sample, **kwargs)).dtype
    check_dtype(out_dtype, f"the result of np.{kind}")

    if operand.constant is not None:
        with np.errstate(all="ignore"):
            value = function(operand.constant.array, **kwargs)
        return Operand(constant_node(np.asarray(value, dtype=out_dtype)))
    if not axes:
        # Reducing over no axis is an elementwise conversion (and a copy in NumPy).
        return apply_cast(operand, out_dtype)

    op = Reduce(kind, axes, bool(keepdims), out_dtype.name)
    return Operand(Node.make(op, (operand.node,)))
