"""What the graph knows about array sizes before run time: the axes that are surely of length 1,
and the lengths fixed by constants.

Signatures give no sizes, so a loop over inputs that may broadcast reads each at run-time steps
(0 along an axis of length 1). Some length-1 axes are certain, though: ``x[:, None]``, the kept
axes of ``m.max(axis=1, keepdims=True)``, a constant's. Code generation reads those at index 0
with no step at all, so the common broadcasts — a column against a row, a row statistic against
its rows — compile to loops LLVM vectorises, with nothing to check at run time.

Some lengths are certain too: a constant's, a gather's by constant indices (the radon model's
919 rows, gathered from its 85 counties), what is computed elementwise from those alone. The
tracer gives them as ints (``x.shape``), so shapes built from them are constants, and the
gradient sees that two values have one shape without a run-time check.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..types import Array
from .array_ops import BasicIndex, Gather, IndexInt, IndexSlice, NewAxis, Pack, Roll, Squeeze, SumTo
from .fused import Fused, FusedReduce
from .node import Node
from .ops import Constant, Elementwise, Reduce


@lru_cache(maxsize=4096)
def unit_axes(node: Node) -> frozenset[int]:
    """The axes of ``node``'s array value that are of length 1 whatever the inputs are."""
    if not isinstance(node.type, Array):
        return frozenset()
    op = node.op
    if isinstance(op, Constant):
        shape = op.value.array.shape
        return frozenset(axis for axis, length in enumerate(shape) if length == 1)
    if isinstance(op, (Reduce, FusedReduce)) and op.keepdims:
        return frozenset(op.axes)
    if isinstance(op, BasicIndex):
        return _indexed(unit_axes(node.inputs[0]), op)
    if isinstance(op, (Elementwise, Fused)):
        return _broadcast(node)
    if isinstance(op, Roll):
        return unit_axes(node.inputs[0])
    return frozenset()


def _indexed(source: frozenset[int], op: BasicIndex) -> frozenset[int]:
    """The unit axes of ``a[items]``: new axes, and the source's own kept by a whole slice."""
    found = set()
    axis = out = 0
    for item in op.items:
        if isinstance(item, NewAxis):
            found.add(out)
            out += 1
        elif isinstance(item, (IndexInt, Squeeze)):
            axis += 1
        elif isinstance(item, IndexSlice):
            whole = item.start is None and item.stop is None and item.step in (None, 1)
            if whole and axis in source:
                found.add(out)
            axis += 1
            out += 1
    return frozenset(found)


def _broadcast(node: Node) -> frozenset[int]:
    """An axis of a broadcast result is of length 1 when every input spanning it is."""
    assert isinstance(node.type, Array)
    ndim = node.type.ndim
    found = set(range(ndim))
    for item in node.inputs:
        if not isinstance(item.type, Array):
            continue
        units = unit_axes(item)
        offset = ndim - item.type.ndim
        for axis in range(item.type.ndim):
            if axis not in units:
                found.discard(axis + offset)
    return frozenset(found)


def largest_index(values: np.ndarray) -> int | None:
    """The largest of constant integer indices, -1 if there are none; None if any is negative
    (it counts from the end) or they are not integers: then each is checked as it is read.
    Otherwise one check of the largest, before the loop, checks them all."""
    if values.dtype.kind not in "iu" or (values.size and values.min() < 0):
        return None
    return int(values.max()) if values.size else -1


@lru_cache(maxsize=4096)
def known_shape(node: Node) -> tuple[int | None, ...]:
    """Each axis's length where the graph fixes it whatever the inputs are, else None.

    Known: a constant's; a gather's by a constant index, along the index's axes (the source's
    length is not needed: a gather out of bounds raises when it runs, and one only measured never
    does); an elementwise result's when every array input's whole shape is known and they
    broadcast together (then broadcasting cannot fail); a reduction's kept axes; the shapes
    the gradient gives ``sum_to`` and ``pack``.
    """
    if not isinstance(node.type, Array):
        return ()
    ndim = node.type.ndim
    op = node.op
    found: tuple[int | None, ...] = (None,) * ndim
    if isinstance(op, Constant):
        found = tuple(int(length) for length in op.value.array.shape)
    elif isinstance(op, Gather) and op.count == 1 and isinstance(node.inputs[1].op, Constant):
        source = known_shape(node.inputs[0])
        index = tuple(int(length) for length in node.inputs[1].op.value.array.shape)
        found = source[: op.axis] + index + source[op.axis + 1 :]
    elif isinstance(op, Elementwise):
        found = _broadcast_shape(node) or found
    elif isinstance(op, Roll):
        found = known_shape(node.inputs[0])
    elif isinstance(op, Reduce):
        source = known_shape(node.inputs[0])
        if op.keepdims:
            found = tuple(1 if axis in op.axes else length for axis, length in enumerate(source))
        else:
            found = tuple(length for axis, length in enumerate(source) if axis not in op.axes)
    elif isinstance(op, SumTo):
        found = tuple(entry if isinstance(entry, int) else None for entry in op.shape)
    elif isinstance(op, Pack):
        found = (len(node.inputs),)
    return found


def _broadcast_shape(node: Node) -> tuple[int, ...] | None:
    """The broadcast shape of ``node``'s inputs if every array input's shape is known and they
    broadcast together, else None."""
    ndim = node.type.ndim  # type: ignore[union-attr]
    lengths = [1] * ndim
    for item in node.inputs:
        if not isinstance(item.type, Array):
            continue
        shape = known_shape(item)
        offset = ndim - len(shape)
        for axis, length in enumerate(shape):
            if length is None:
                return None
            current = lengths[axis + offset]
            if length != current and 1 not in (length, current):
                return None  # NumPy raises when it runs: the shape is not the graph's to fix
            lengths[axis + offset] = length if current == 1 else current
    return tuple(lengths)
