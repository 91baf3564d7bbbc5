"""Vector-Jacobian rules of reductions, scans and Ops that move, reshape, broadcast or join
arrays, and of numba's NumPy functions (``Expr``: transpose, concatenate, sort, np.full,
``np.linalg``'s through :data:`~.linalg.LINALG`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TraceError
from ...graph import Node, Reduce
from ...graph.array_ops import BroadcastTo, Expr, Pack, Reshape, Roll, Scan, SumTo
from ..movement import transpose_permutation
from ..tracer import Tracer
from .common import Contributions, describe, sum_to, traced
from .linalg import LINALG


def _kept(g: Tracer, node: Node) -> Tracer:
    """A reduction's cotangent with its reduced axes back (length 1)."""
    op = node.op
    assert isinstance(op, Reduce)
    kept: Any = g if op.keepdims or not op.axes or g.ndim == 0 else np.expand_dims(g, op.axes)  # type: ignore[call-overload]
    return kept


def _reduce(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, Reduce)
    (source,) = node.inputs
    x = traced(source)
    whole = g.ndim == 0 and not op.keepdims  # every axis reduced: g stands for every element
    kept = _kept(g, node)
    if op.kind == "sum":
        return (g if whole else np.broadcast_to(kept, x.shape),)
    if op.kind == "mean":
        count = 1
        for axis in op.axes:
            count = count * x.shape[axis]
        return (g / count if whole else np.broadcast_to(kept / count, x.shape),)
    out = _kept(traced(node), node)
    if op.kind == "prod":
        return (np.broadcast_to(kept * out, x.shape) / x,)
    if op.kind in ("max", "min"):
        chosen = x == out
        share = chosen / np.sum(chosen, axis=op.axes, keepdims=True)
        return (kept * share,)
    return (None,)


def _reshape(node: Node, g: Tracer) -> Contributions:
    source = traced(node.inputs[0])
    return (g.reshape(source.shape) if source.ndim else g.reshape(()), *(None for _ in node.inputs[1:]))


def _broadcast_to(node: Node, g: Tracer) -> Contributions:
    return (sum_to(g, node.inputs[0]), *(None for _ in node.inputs[1:]))


def _sum_to(node: Node, g: Tracer) -> Contributions:
    return (np.broadcast_to(g, traced(node.inputs[0]).shape), *(None for _ in node.inputs[1:]))


def _pack(node: Node, g: Tracer) -> Contributions:
    return tuple(g[i] for i in range(len(node.inputs)))


def _scan(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, Scan)
    if op.kind == "sum":
        return (_reverse_cumsum(g, op.axis),)
    # cumprod: d out[j] / d x[i] = out[j] / x[i] for j >= i (as prod's rule, not where x == 0)
    return (_reverse_cumsum(g * traced(node), op.axis) / traced(node.inputs[0]),)


def _roll(node: Node, g: Tracer) -> Contributions:
    """Each element goes back where it came from: ``g`` rolled the other way."""
    op = node.op
    assert isinstance(op, Roll)
    back = tuple(-shift for shift in op.shifts)
    return (np.roll(g, back, axis=tuple(range(len(back)))),)  # type: ignore[call-overload]


def _reverse_cumsum(g: Tracer, axis: int) -> Any:
    """The sums of ``g`` from each position to the end of ``axis``."""
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def _expression(node: Node, g: Tracer) -> Contributions:
    """numba's NumPy functions: ``transpose`` (transposed back), ``concatenate`` (the cotangent
    cut back into its pieces), a 1-d ``sort`` (the cotangent put back in the input's order),
    ``np.linalg``'s ``inv``, ``det`` and ``solve``."""
    op = node.op
    assert isinstance(op, Expr)
    if op.fn == "transpose":  # back by the inverse permutation
        permutation = transpose_permutation(op.code, node.type.ndim)  # type: ignore[union-attr]
        return (np.transpose(g, np.argsort(permutation)),)
    if op.fn == "zeros_like":
        return (None,)
    if op.fn == "full":  # np.full(shape, v): v is in every element (the lengths carry none)
        return (*(None for _ in node.inputs[:-1]), sum_to(g, node.inputs[-1]))
    if op.fn == "sort" and node.type.ndim == 1:  # type: ignore[union-attr]
        # each value goes back where it came from: stable, as np.sort orders ties
        back: Any = np.zeros_like(traced(node))
        back[np.argsort(traced(node.inputs[0]), kind="stable")] = g
        return (back,)
    if op.fn in LINALG:
        return LINALG[op.fn](g, traced(node), *(traced(i) for i in node.inputs))
    if op.fn != "concatenate":
        raise TraceError(f"{describe(node)} has no gradient rule")
    axis = int(op.code.rsplit("axis=", 1)[1].rstrip(")"))
    pieces = []
    start: Any = 0
    for item in node.inputs:
        stop = start + traced(item).shape[axis]
        pieces.append(g[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return tuple(pieces)


RULES: dict[type, Callable[[Node, Tracer], Contributions]] = {
    Reduce: _reduce,
    Reshape: _reshape,
    BroadcastTo: _broadcast_to,
    SumTo: _sum_to,
    Pack: _pack,
    Scan: _scan,
    Roll: _roll,
    Expr: _expression,
}
