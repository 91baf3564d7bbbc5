"""Shapes and data movement on traced arrays: views, joins, repeats, scans, sorts, statistics.

Where NumPy's own algorithm is a composition (``roll``, ``tile``, ``repeat``, ``diff``, ``var``,
``average``), the same composition is traced, so results match NumPy's step for step.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph import Node
from ..graph.array_ops import (
    DYNAMIC,
    ArgSort,
    Bincount,
    BroadcastTo,
    Expr,
    IndexSlice,
    NewAxis,
    Pack,
    Reshape,
    Roll,
    Scan,
    Squeeze,
)
from ..types import Array, Scalar
from .indexing import WHOLE, getitem, view
from .operands import (
    Operand,
    as_operand,
    check_dtype,
    constant_node,
    integer_entry,
    normalize_axes,
    normalize_axis,
)
from .reductions import apply_reduction, reduction_axes
from .ufuncs import apply_cast, apply_ufunc, copy, elementwise, unsupported


def expression(fn: str, code: str, result: Array | Scalar, *inputs: Operand) -> Operand:
    return Operand(Node.make(Expr(fn, code, result), tuple(i.node for i in inputs)))


def shape_spec(shape: object, what: str) -> tuple[tuple[Any, ...], list[Node]]:
    """A shape as Op parameters: known ints, DYNAMIC for sizes computed at run time."""
    entries = shape if isinstance(shape, (tuple, list)) else (shape,)
    spec: list[Any] = []
    nodes: list[Node] = []
    for entry in entries:
        known, node = integer_entry(entry, what)
        if node is None:
            spec.append(known)
        else:
            spec.append(DYNAMIC)
            nodes.append(node)
    return tuple(spec), nodes


def spec_code(spec: Sequence[Any], nodes: list[Node], first: int = 0) -> tuple[list[str], list[Operand]]:
    """A :func:`shape_spec` as code for an :class:`Expr`: each number, or ``{k}`` for the ``k``-th
    input (counted from ``first``) where it is computed at run time; and those inputs."""
    numbers = itertools.count(first)
    codes = [f"{{{next(numbers)}}}" if entry is DYNAMIC else str(entry) for entry in spec]
    return codes, [Operand(node) for node in nodes]


def dims(x: Operand) -> list[Any]:
    """``x.shape``: known ints for constants, else symbolic sizes (tracers, usable in arithmetic)."""
    from .tracer import Tracer

    return list(Tracer(x).shape)


# -- views ----------------------------------------------------------------------------------------


def transpose(x: Operand, axes: Sequence[int] | None = None) -> Operand:
    perm = tuple(reversed(range(x.ndim))) if axes is None else tuple(normalize_axis(a, x.ndim) for a in axes)
    if sorted(perm) != list(range(x.ndim)):
        raise TraceError("axes don't match array")
    if perm == tuple(range(x.ndim)):
        return x
    if x.constant is not None:
        return as_operand(np.transpose(x.constant.array, perm))
    return expression("transpose", transpose_code(perm), Array(x.dtype.name, x.ndim, "A"), x)


def transpose_code(perm: tuple[int, ...]) -> str:
    """numba's code for the view ``np.transpose(x, perm)``: the attribute ``x.T`` for the full
    reversal, the method ``x.transpose(perm)`` otherwise. Both are the view NumPy gives; numba's
    ``np.transpose`` overload types through some fifty jitted helpers the first time a process
    compiles it (3.2 s for a 2-d float32 transpose, against 0.03 s for ``x.T`` and 0.6 s for
    the method)."""
    if perm == tuple(reversed(range(len(perm)))):
        return "{0}.T"
    return f"{{0}}.transpose({perm!r})"


def transpose_permutation(code: str, ndim: int) -> tuple[int, ...]:
    """The permutation :func:`transpose_code` wrote ``code`` for."""
    if code == "{0}.T":
        return tuple(reversed(range(ndim)))
    inside = code.removeprefix("{0}.transpose((").removesuffix("))")
    return tuple(int(axis) for axis in inside.split(",") if axis.strip())


def swapaxes(x: Operand, axis1: object, axis2: object) -> Operand:
    perm = list(range(x.ndim))
    a, b = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def moveaxis(x: Operand, source: object, destination: object) -> Operand:
    sources, destinations = normalize_axes(source, x.ndim), normalize_axes(destination, x.ndim)
    if len(sources) != len(destinations):
        raise TraceError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(x.ndim) if n not in sources]
    for dest, src in sorted(zip(destinations, sources, strict=True)):
        order.insert(dest, src)
    return transpose(x, order)


def expand_dims(x: Operand, axis: object) -> Operand:
    out_ndim = x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = set(normalize_axes(axis, out_ndim))
    return view(x, [NewAxis() if d in axes else WHOLE for d in range(out_ndim)])


def squeeze(x: Operand, axis: object = None) -> Operand:
    if axis is None:
        if x.ndim == 0:
            return x
        raise TraceError(
            "np.squeeze without axis= would drop the axes of length 1, but lengths are only known at "
            "run time; name the axes (np.squeeze(x, axis=1))"
        )
    axes = set(normalize_axes(axis, x.ndim))
    return view(x, [Squeeze() if d in axes else WHOLE for d in range(x.ndim)])


def flip(x: Operand, axis: object = None) -> Operand:
    axes = set(range(x.ndim)) if axis is None else set(normalize_axes(axis, x.ndim))
    return view(x, [IndexSlice(None, None, -1) if d in axes else WHOLE for d in range(x.ndim)])


# -- reshaping -------------------------------------------------------------------------------------


def reshape(x: Operand, shape: object) -> Operand:
    spec, nodes = shape_spec(shape, "a reshape length")
    if spec.count(-1) > 1:
        raise TraceError("can only specify one unknown dimension")
    if x.constant is not None and not nodes:
        return as_operand(x.constant.array.reshape(spec))
    if x.ndim == 0:
        x = Operand(Node.make(Pack(x.dtype.name), (x.node,)))
    return Operand(Node.make(Reshape(spec), (x.node, *nodes)))


def ravel(x: Operand) -> Operand:
    if x.ndim == 1:
        return x
    return reshape(x, (-1,))


def broadcast_to(x: Operand, shape: object) -> Operand:
    spec, nodes = shape_spec(shape, "a broadcast length")
    if len(spec) < x.ndim:
        raise TraceError("input operand has more dimensions than allowed by the axis remapping")
    return Operand(Node.make(BroadcastTo(spec), (x.node, *nodes)))


# -- joining ---------------------------------------------------------------------------------------


def array_operand(item: object) -> Operand:
    """An array from a tracer, an ndarray, or a list of scalars (some traced): ``[s]``."""
    from .tracer import Tracer

    if isinstance(item, (list, tuple)) and any(isinstance(v, (Tracer, Operand)) for v in item):
        operands = [as_operand(v) for v in item]
        if any(op.ndim for op in operands):
            raise TraceError("a list of traced arrays is not an array here; use np.stack or np.concatenate")
        dtype = np.asarray([op.probe() for op in operands]).dtype
        check_dtype(dtype, "a list of values")
        return Operand(Node.make(Pack(dtype.name), tuple(op.node for op in operands)))
    if isinstance(item, (list, tuple)):
        return as_operand(np.asarray(item))
    return as_operand(item)


def concatenate(arrays: Sequence[object], axis: object = 0, dtype: object = None) -> Operand:
    operands = [array_operand(a) for a in arrays]
    if not operands:
        raise TraceError("need at least one array to concatenate")
    if axis is None:
        operands, axis = [ravel(op) for op in operands], 0
    if any(op.ndim == 0 for op in operands):
        raise TraceError("zero-dimensional arrays cannot be concatenated")
    ndim = operands[0].ndim
    if any(op.ndim != ndim for op in operands):
        raise TraceError("all the input arrays must have same number of dimensions")
    axis = normalize_axis(axis, ndim)
    result = np.dtype(dtype) if dtype is not None else np.result_type(*(op.dtype for op in operands))  # type: ignore[call-overload]
    check_dtype(result, "the result of concatenate")
    operands = [apply_cast(op, result) for op in operands]
    if all(op.constant is not None for op in operands):
        return as_operand(np.concatenate([op.constant.array for op in operands], axis=axis))  # type: ignore[union-attr]
    names = ", ".join(f"{{{i}}}" for i in range(len(operands)))
    code = f"np.concatenate(({names},), axis={axis})"
    return expression("concatenate", code, Array(result.name, ndim, "C"), *operands)


def stack(arrays: Sequence[object], axis: object = 0) -> Operand:
    operands = [array_operand(a) for a in arrays]
    if not operands:
        raise TraceError("need at least one array to stack")
    if all(op.ndim == 0 for op in operands) and normalize_axis(axis, 1) == 0:
        return array_operand(list(arrays))  # scalars: a 1-d array of them
    ndim = operands[0].ndim
    if any(op.ndim != ndim for op in operands):
        raise TraceError("all input arrays must have the same shape")
    axis = normalize_axis(axis, ndim + 1)
    return concatenate([expand_dims(op, axis) for op in operands], axis=axis)


def at_least(x: Operand, ndim: int) -> Operand:
    """``x`` with leading axes of length 1 added up to ``ndim`` (``np.atleast_1d``, ...)."""
    if x.ndim == 0:
        x = array_operand([x])
    if x.ndim >= ndim:
        return x
    return view(x, [NewAxis()] * (ndim - x.ndim) + [WHOLE] * x.ndim)


def hstack(arrays: Sequence[object]) -> Operand:
    operands = [at_least(array_operand(a), 1) for a in arrays]
    return concatenate(operands, axis=0 if operands and operands[0].ndim == 1 else 1)


def vstack(arrays: Sequence[object]) -> Operand:
    return concatenate([at_least(array_operand(a), 2) for a in arrays], axis=0)


# -- repeating and rolling -------------------------------------------------------------------------


def tile(x: Operand, reps: object) -> Operand:
    """``np.tile``: each count known now or computed at run time (``len(x)``, an integer
    argument); a negative one raises ``ValueError``, now or at run time."""
    from .tracer import Tracer

    given = reps if isinstance(reps, (tuple, list)) else (reps,)
    counts: list[Any] = [1] * (x.ndim - len(given))
    for r in given:
        known, node = integer_entry(r, "a repetition count of np.tile")
        if known is not None and known < 0:
            raise TraceError("negative dimensions are not allowed")
        counts.append(known if node is None else Tracer(Operand(node)))
    x = at_least(x, len(counts))
    if all(isinstance(r, int) and r == 1 for r in counts):
        return copy(x)
    # x[None, :, None, :] broadcast to (r0, n0, r1, n1), then merged to (r0 * n0, r1 * n1).
    sizes = dims(x)
    spread = view(x, [item for _ in range(x.ndim) for item in (NewAxis(), WHOLE)])
    target = [entry for r, n in zip(counts, sizes, strict=True) for entry in (r, n)]
    merged = [n * r for r, n in zip(counts, sizes, strict=True)]
    return reshape(broadcast_to(spread, target), merged)


def repeat(x: Operand, repeats: object, axis: object = None) -> Operand:
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
        raise unsupported("np.repeat with an array of counts (data-dependent length)")
    if repeats < 0:
        raise TraceError("negative dimensions are not allowed")
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    sizes = dims(x)
    spread = view(x, [WHOLE] * (axis + 1) + [NewAxis()] + [WHOLE] * (x.ndim - axis - 1))
    target = sizes[: axis + 1] + [int(repeats)] + sizes[axis + 1 :]
    merged = sizes[:axis] + [sizes[axis] * int(repeats)] + sizes[axis + 1 :]
    return reshape(broadcast_to(spread, target), merged)


def roll(x: Operand, shift: object, axis: object = None) -> Operand:
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), dims(x))
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1:
        shifts = tuple(shifts) * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = tuple(axes) * len(shifts)
    if len(shifts) != len(axes):
        raise TraceError("'shift' and 'axis' should be scalars or 1D sequences of the same length")
    axes = tuple(normalize_axis(ax, x.ndim) for ax in axes)
    if all(isinstance(amount, (int, np.integer)) for amount in shifts):
        return _roll_known(x, [int(amount) for amount in shifts], axes)  # type: ignore[call-overload]
    result = x
    for amount, ax in zip(shifts, axes, strict=True):
        result = _roll_axis(result, amount, ax)
    return result


def _roll_known(x: Operand, shifts: list[int], axes: tuple[int, ...]) -> Operand:
    """A :class:`~aotbuild.graph.array_ops.Roll`: NumPy adds the shifts given for one axis, then
    rolls each axis by its total modulo the axis's length (known only at run time)."""
    totals = [0] * x.ndim
    for amount, ax in zip(shifts, axes, strict=True):
        totals[ax] += amount
    limit = np.iinfo(np.int64)
    if any(not limit.min <= total <= limit.max for total in totals):
        raise TraceError(f"np.roll: the shifts {tuple(totals)} do not fit in int64")
    if not any(totals):
        return copy(x)  # NumPy's result is a new array all the same
    return Operand(Node.make(Roll(tuple(totals)), (x.node,)))


def _roll_axis(x: Operand, shift: Any, axis: int) -> Operand:
    # A shift known only at run time: NumPy's offset = shift % (n or 1); the result is x[-offset:]
    # followed by x[:-offset].
    length = dims(x)[axis]
    offset = np.remainder(shift, np.maximum(length, 1))
    cut = length - offset
    lead = (slice(None),) * axis
    return concatenate(
        [getitem(x, lead + (slice(cut, None),)), getitem(x, lead + (slice(None, cut),))], axis=axis
    )


def diff(x: Operand, n: int = 1, axis: int = -1, prepend: object = None, append: object = None) -> Operand:
    if prepend is not None or append is not None:
        raise unsupported("np.diff(..., prepend=/append=)")
    if x.ndim == 0:
        raise TraceError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, x.ndim)
    subtract = np.not_equal if x.dtype == bool else np.subtract
    for _ in range(int(n)):
        lead = (slice(None),) * axis
        later, earlier = getitem(x, lead + (slice(1, None),)), getitem(x, lead + (slice(None, -1),))
        x = apply_ufunc(subtract, (later, earlier), {})
    return x


# -- scans, sorts, arg-reductions --------------------------------------------------------------------


def scan(kind: str, x: Operand, axis: object = None, dtype: Any = None) -> Operand:
    function = np.cumsum if kind == "sum" else np.cumprod
    result = np.asarray(function(np.ones((1,) * max(x.ndim, 1), x.dtype), dtype=dtype)).dtype
    check_dtype(result, f"the result of np.cum{kind}")
    if axis is None or x.ndim == 0:
        x, axis = ravel(x if x.ndim else at_least(x, 1)), 0
    x = apply_cast(x, result)
    return Operand(Node.make(Scan(kind, normalize_axis(axis, x.ndim)), (x.node,)))  # type: ignore[arg-type]


def sort(x: Operand, axis: object = -1, kind: object = None) -> Operand:
    if axis is None:
        x, axis = ravel(x), -1
    axis = normalize_axis(axis, x.ndim)
    last = moveaxis(x, axis, -1)
    ordered = expression("sort", "np.sort({0})", Array(x.dtype.name, x.ndim, "C"), last)
    return moveaxis(ordered, -1, axis)


def argsort(x: Operand, axis: object = -1, kind: object = None) -> Operand:
    if axis is None:
        x, axis = ravel(x), -1
    axis = normalize_axis(axis, x.ndim)
    last = moveaxis(x, axis, -1)
    sizes = dims(last)
    rows = reshape(last, (-1, sizes[-1]))
    order = Operand(Node.make(ArgSort(), (rows.node,)))
    return moveaxis(reshape(order, sizes), -1, axis)


def arg_reduction(
    kind: str, x: Operand, axis: object = None, out: object = None, keepdims: bool = False
) -> Operand:
    if out is not None:
        raise unsupported(f"np.{kind}(..., out=...)")
    if axis is None:
        return keep_axes(expression(kind, f"np.{kind}({{0}})", Scalar("int64"), x), x.ndim, keepdims)
    axis = normalize_axis(axis, x.ndim)
    result_type = Scalar("int64") if x.ndim == 1 else Array("int64", x.ndim - 1, "C")
    result = expression(kind, f"np.{kind}({{0}}, axis={axis})", result_type, x)
    return expand_dims(result, axis) if keepdims else result


# -- statistics --------------------------------------------------------------------------------------


def keep_axes(scalar: Operand, ndim: int, keepdims: bool) -> Operand:
    """A reduction's scalar result as an array of ``ndim`` axes of length 1 (``keepdims=True``)."""
    return reshape(scalar, (1,) * ndim) if keepdims else scalar


def _count(x: Operand, axis: object) -> Any:
    sizes = dims(x)
    count: Any = 1
    for a in reduction_axes(axis, x.ndim):
        count = count * sizes[a]
    return count


def variance(
    x: Operand,
    axis: object = None,
    dtype: object = None,
    out: object = None,
    ddof: object = 0,
    keepdims: bool = False,
    *,
    std: bool = False,
) -> Operand:
    """NumPy's ``_var``: the mean (kept dims), squared deviations, their sum over the count."""
    if out is not None:
        raise unsupported(f"np.{'std' if std else 'var'}(..., out=...)")
    mean = apply_reduction("mean", x, axis, dtype, None, True)
    deviation = apply_ufunc(np.subtract, (x, mean), {})
    if deviation.dtype.kind == "c":
        conjugate = apply_ufunc(np.conjugate, (deviation,), {})
        squared = complex_part("real", apply_ufunc(np.multiply, (deviation, conjugate), {}))
    else:
        squared = apply_ufunc(np.multiply, (deviation, deviation), {})
    total = apply_reduction("sum", squared, axis, dtype, None, keepdims)
    # NumPy divides by an intp count (strong): in float64, rounded back to the sum's dtype.
    count = apply_cast(as_operand(np.maximum(_count(x, axis) - ddof, 0)), np.dtype(np.int64))
    quotient = apply_ufunc(np.true_divide, (total, Operand(count.node)), {})
    result = apply_cast(quotient, total.dtype)
    return apply_ufunc(np.sqrt, (result,), {}) if std else result


def average(
    x: Operand, axis: object = None, weights: object = None, returned: bool = False, keepdims: bool = False
) -> Operand:
    if returned:
        raise unsupported("np.average(..., returned=True)")
    if weights is None:
        return apply_reduction("mean", x, axis, None, None, keepdims)
    w = array_operand(weights)
    if x.dtype.kind in "biu":
        result = np.result_type(x.dtype, w.dtype, "f8")
    else:
        result = np.result_type(x.dtype, w.dtype)
    if w.ndim != x.ndim:
        if axis is None or w.ndim != 1:
            raise TraceError("Axis must be specified when shapes of a and weights differ.")
        a = normalize_axis(axis, x.ndim)
        w = view(w, [WHOLE if d == a else NewAxis() for d in range(x.ndim)])
    x, w = apply_cast(x, result), apply_cast(w, result)
    scale = apply_reduction("sum", w, axis, None, None, keepdims)
    weighted = apply_reduction("sum", apply_ufunc(np.multiply, (x, w), {}), axis, None, None, keepdims)
    return apply_ufunc(np.true_divide, (weighted, scale), {})


def clip(x: Operand, a_min: object = None, a_max: object = None, out: object = None) -> Operand:
    """NumPy's clip: ``minimum(maximum(x, a_min), a_max)``, NaN propagating, NumPy's dtypes."""
    if out is not None:
        raise unsupported("np.clip(..., out=...)")
    if a_min is None and a_max is None:
        raise TraceError("One of max or min must be given")
    result = x
    if a_min is not None:
        result = apply_ufunc(np.maximum, (result, a_min), {})
    if a_max is not None:
        result = apply_ufunc(np.minimum, (result, a_max), {})
    return result


# -- complex parts and counting ----------------------------------------------------------------------


def complex_part(part: str, x: Operand) -> Operand:
    """``x.real`` / ``x.imag``: of a complex array an elementwise Op (not a view); of a real one
    ``x`` itself or zeros."""
    if x.dtype.kind == "c":
        if x.constant is not None:
            return Operand(constant_node(getattr(x.constant.array, part)))
        real = np.dtype(np.float32 if x.dtype == np.complex64 else np.float64)
        return elementwise(part, [Operand(x.node)], (x.dtype,), real)
    if part == "real":
        return x
    if x.ndim:
        return expression("zeros_like", "np.zeros_like({0})", Array(x.dtype.name, x.ndim, "C"), x)
    return as_operand(x.dtype.type(0))


def angle(x: Operand, deg: bool = False) -> Operand:
    radians = apply_ufunc(np.arctan2, (complex_part("imag", x), complex_part("real", x)), {})
    return apply_ufunc(np.multiply, (radians, 180 / np.pi), {}) if deg else radians


def bincount(x: Operand, weights: object = None, minlength: object = 0) -> Operand:
    if x.ndim != 1 or x.dtype.kind not in "biu":
        raise TraceError("np.bincount needs a 1-d array of non-negative integers")
    x = apply_cast(x, np.dtype(np.int64))
    length = apply_cast(as_operand(0 if minlength is None else minlength), np.dtype(np.int64))
    if length.ndim:
        raise TraceError("np.bincount: minlength must be an integer")
    inputs = [x.node, length.node]
    if weights is not None:
        inputs.append(apply_cast(array_operand(weights), np.dtype(np.float64)).node)
    return Operand(Node.make(Bincount(weighted=weights is not None), tuple(inputs)))
