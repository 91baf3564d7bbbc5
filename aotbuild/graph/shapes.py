"""What the graph knows about array sizes before run time: the axes that are surely of length 1.

Signatures give no sizes, so a loop over inputs that may broadcast reads each at run-time steps
(0 along an axis of length 1). Some length-1 axes are certain, though: ``x[:, None]``, the kept
axes of ``m.max(axis=1, keepdims=True)``, a constant's. Code generation reads those at index 0
with no step at all, so the common broadcasts — a column against a row, a row statistic against
its rows — compile to loops LLVM vectorises, with nothing to check at run time.
"""

from __future__ import annotations

from functools import lru_cache

from ..types import Array
from .array_ops import BasicIndex, IndexInt, IndexSlice, NewAxis, Squeeze
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
