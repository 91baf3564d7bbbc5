"""Vector-Jacobian rules of indexing: views and writes by slices and integers, integer-array
gathers and writes, boolean masks, ``np.bincount``'s weights."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph import Constant, Node
from ...graph.array_ops import (
    DYNAMIC,
    BasicIndex,
    Bincount,
    Gather,
    IndexInt,
    MaskSelect,
    NewAxis,
    SetGather,
    SetIndex,
    SetMask,
    Squeeze,
)
from ..creation import arange, filled
from ..indexing import WHOLE
from ..tracer import Tracer
from .common import Contributions, is_float, product, scalar, sum_to, traced


def _basic_index(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, BasicIndex)
    source = node.inputs[0]
    if all(item == WHOLE or isinstance(item, (NewAxis, Squeeze)) for item in op.items):
        # Every element seen once, only axes of length 1 added or dropped (``x[None]``,
        # ``np.squeeze``): the cotangent is ``g`` viewed back, axes added dropped and dropped
        # ones added, not written into zeros (a setitem that took numba 3.7 s to compile).
        back = tuple(
            IndexInt(0) if isinstance(i, NewAxis) else NewAxis() if isinstance(i, Squeeze) else i
            for i in op.items
        )
        return (traced(Node.make(BasicIndex(back), (g.node,))), *(None for _ in node.inputs[1:]))
    zeros: Any = np.zeros_like(traced(source))
    update = Node.make(SetIndex(op.items), (zeros.node, g.node, *node.inputs[1:]))
    return (traced(update), *(None for _ in node.inputs[1:]))


def _set_index(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, SetIndex)
    target, value, *dynamic = node.inputs
    cleared = Node.make(SetIndex(op.items), (g.node, scalar(0.0, g).node, *dynamic))
    picked = traced(Node.make(BasicIndex(op.items), (g.node, *dynamic)))
    return (traced(cleared), sum_to(picked, value) if is_float(value) else None, *(None for _ in dynamic))


def _gather(node: Node, g: Tracer) -> Contributions:
    """Integer-array indexing: the cotangent added back where each value was read (``np.add.at``),
    repeated indices adding up."""
    op = node.op
    assert isinstance(op, Gather)
    source, *indices = node.inputs
    x = traced(source)
    nones = tuple(None for _ in indices)
    lengths = x.shape[op.axis : op.axis + op.count]
    if all(i.type.ndim == 0 for i in indices):  # type: ignore[union-attr]  # one place: written there
        items = (WHOLE,) * op.axis + (IndexInt(DYNAMIC),) * op.count
        zeros: Any = np.zeros_like(x)
        return (traced(Node.make(SetIndex(items), (zeros.node, g.node, *indices))), *nones)
    wrapped = [_wrapped(i, length) for i, length in zip(indices, lengths, strict=True)]
    if source.type.ndim == 1 and len(wrapped) == 1 and wrapped[0].ndim == 1:  # type: ignore[union-attr]
        return (np.bincount(wrapped[0], weights=g, minlength=lengths[0]), None)
    # the general case: one bincount over (flat index into the indexed axes) x (every other
    # position), the index axes of g moved to the front
    cell = wrapped[0]
    for index, length in zip(wrapped[1:], lengths[1:], strict=True):
        cell = cell * length + index
    width = node.type.ndim - source.type.ndim + op.count  # type: ignore[union-attr]
    index_axes = list(range(op.axis, op.axis + width))
    front: Any = np.moveaxis(g, index_axes, list(range(width)))  # type: ignore[type-var]
    rows, columns = product(front.shape[:width]), product(front.shape[width:])
    cells = np.broadcast_to(cell, front.shape[:width]).reshape(rows)
    every = cells[:, None] * columns + Tracer(arange(columns))[None, :]
    added = np.bincount(
        every.reshape(rows * columns),
        weights=front.reshape(rows * columns),
        minlength=product(lengths) * columns,
    )
    moved = added.reshape((*lengths, *x.shape[: op.axis], *x.shape[op.axis + op.count :]))
    return (np.moveaxis(moved, list(range(op.count)), list(range(op.axis, op.axis + op.count))), *nones)


def _wrapped(index: Node, length: Any) -> Any:
    """An int64 index with negative values counted from the end of an axis ``length`` long
    (constant non-negative indices as they are)."""
    constant = index.op.value.array if isinstance(index.op, Constant) else None
    i = traced(index)
    if i.dtype != np.int64:  # (uint64 would promote the flat positions to float64)
        i = i.astype(np.int64)
    return i if constant is not None and (constant >= 0).all() else np.where(i < 0, i + length, i)


def _set_gather(node: Node, g: Tracer) -> Contributions:
    """``z[idx] = v`` along an axis: ``z`` gets the cotangent with the written places cleared;
    ``v`` what was read back from them, where its write was the last to a place (later writes
    win, so an overwritten value has no effect)."""
    op = node.op
    assert isinstance(op, SetGather)
    base, index, value = node.inputs
    cleared = Node.make(SetGather(op.axis), (g.node, index, scalar(0.0, g).node))
    if not is_float(value):
        return (traced(cleared), None, None)
    picked: Any = traced(Node.make(Gather(op.axis, 1), (g.node, index)))
    if index.type.ndim and not _unique_constant(index):  # type: ignore[union-attr]
        flat = traced(index).reshape(-1)
        order = Tracer(arange(flat.shape[0]))
        size = traced(base).shape[op.axis]
        last = Node.make(
            SetGather(0), (Tracer(filled("zeros", (size,), np.int64)).node, flat.node, order.node)
        )
        won = (traced(Node.make(Gather(0, 1), (last, flat.node))) == order).reshape(traced(index).shape)
        trailing = base.type.ndim - op.axis - 1  # type: ignore[union-attr]
        picked = np.where(won[(..., *(None,) * trailing)] if trailing else won, picked, 0)
    return (traced(cleared), None, sum_to(picked, value))


def _unique_constant(index: Node) -> bool:
    """Constant non-negative indices, none repeated: every write is the last to its place."""
    if not isinstance(index.op, Constant):
        return False
    values = index.op.value.array
    return bool((values >= 0).all()) and len(np.unique(values)) == values.size


def _set_mask(node: Node, g: Tracer) -> Contributions:
    """``z[mask] = v``: ``z`` gets the cotangent with the masked places cleared, ``v`` the
    masked part (summed to a scalar ``v``)."""
    base, mask, value = node.inputs
    cleared = traced(Node.make(SetMask(), (g.node, mask, scalar(0.0, g).node)))
    if not is_float(value):
        return (cleared, None, None)
    return (cleared, None, sum_to(traced(Node.make(MaskSelect(), (g.node, mask))), value))


def _mask_select(node: Node, g: Tracer) -> Contributions:
    """``a[mask]``: the cotangent written back at the masked places. A mask of the leading axes
    is spread over the others: ``g``'s elements in order are then the True places in order."""
    source, mask = node.inputs
    x = traced(source)
    spread: Any = traced(mask)
    if mask.type.ndim < source.type.ndim:  # type: ignore[union-attr]
        trailing = source.type.ndim - mask.type.ndim  # type: ignore[union-attr]
        spread = np.broadcast_to(spread[(..., *(None,) * trailing)], x.shape)
    zeros: Any = np.zeros_like(x)
    return (traced(Node.make(SetMask(), (zeros.node, spread.node, g.reshape(-1).node))), None)


def _bincount(node: Node, g: Tracer) -> Contributions:
    """A weighted ``np.bincount``: each weight gets the cotangent of its bin."""
    op = node.op
    assert isinstance(op, Bincount)
    if not op.weighted:
        return (None, None)
    x = node.inputs[0]
    return (None, None, traced(Node.make(Gather(0, 1), (g.node, x))))


RULES: dict[type, Callable[[Node, Tracer], Contributions]] = {
    BasicIndex: _basic_index,
    SetIndex: _set_index,
    Gather: _gather,
    SetGather: _set_gather,
    SetMask: _set_mask,
    MaskSelect: _mask_select,
    Bincount: _bincount,
}
