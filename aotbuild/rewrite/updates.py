"""Slice assignments of elementwise values, computed straight into the slice.

``h[k] += mu * np.conj(err) * window`` is ``SetIndex(h, value, k)`` with ``value`` fused:
a new array of the slice's shape, then copied into it. When that value is the update's alone
(no other Op reads it) and has the slice's dimensions, the two become one
:class:`~aotbuild.graph.updates.FusedSetIndex`, which computes each element into the slice.

NumPy evaluates the value before it writes, so the value must not read what the write changes:
an input that is the slice itself (``h[k] += ...`` reads ``h[k]``) is read at each element before
that element is written, which gives NumPy's result; an input that may be another view of the
array updated (``u[1:] = u[:-1] * 2``) keeps the update as it was. Arrays of the caller may
alias each other in ways the graph cannot see: the fused update checks at run time that its
inputs do not overlap the slice (other than the slice itself), and computes the value into a new
array first where they may.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..codegen.buffers import makes_new_array
from ..graph import Elementwise, Graph, Node
from ..graph.array_ops import BasicIndex, SetIndex
from ..graph.calls import Call
from ..graph.fused import Fused, FusedStep
from ..graph.updates import FusedSetIndex
from ..types import Array
from .calls import rewritten_call


def fuse_updates(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    """``graph`` with its slice assignments of elementwise values fused (subgraphs too)."""
    done = {} if done is None else done
    nodes = graph.nodes()
    uses: Counter[int] = Counter(id(item) for node in nodes for item in set(node.inputs))
    uses.update(id(node) for node in graph.outputs)
    rebuilt: dict[int, Node] = {}
    for node in nodes:
        op = node.op
        if isinstance(op, Call):
            op = rewritten_call(op, done, fuse_updates, "fuse-updates")
        inputs = tuple(rebuilt[id(item)] for item in node.inputs)
        new = Node.make(op, inputs)
        if isinstance(op, SetIndex) and uses[id(node.inputs[1])] == 1:
            new = _fused_update(new)
        rebuilt[id(node)] = new
    return replace(graph, outputs=tuple(rebuilt[id(node)] for node in graph.outputs))


def _fused_update(node: Node) -> Node:
    op = node.op
    assert isinstance(op, SetIndex)
    base, value, *indices = node.inputs
    if not isinstance(value.op, (Fused, Elementwise)) or not isinstance(value.type, Array):
        return node
    steps = value.op.steps if isinstance(value.op, Fused) else (_step(value),)
    if any(step.fn in ("take", "roll") for step in steps):
        return node  # gathers and rolls read elsewhere than at the element: kept as they are
    target_node = Node.make(BasicIndex(op.items), (base, *indices))
    if target_node.type != getattr(value, "type", None) and (
        not isinstance(target_node.type, Array) or target_node.type.ndim != value.type.ndim
    ):
        return node  # a value broadcast into a larger slice: copied as before
    shared = _views(base)
    target = -1
    for position, item in enumerate(value.inputs):
        if item is target_node:
            target = position
        elif _may_view(item, shared):
            return node  # reads another view of what it writes
    fused = FusedSetIndex(op.items, steps, len(indices), target, keeps_layout=op.keeps_layout)
    return Node.make(fused, (base, *indices, *value.inputs))


def _step(node: Node) -> FusedStep:
    op = node.op
    assert isinstance(op, Elementwise)
    ndims = tuple(getattr(item.type, "ndim", 0) for item in node.inputs)
    return FusedStep(op.fn, op.in_dtypes, op.out_dtype, tuple(range(len(node.inputs))), ndims)


def _views(base: Node) -> set[str]:
    """``base``'s key and those of the arrays it may be a view of (a view of a view is the same
    memory)."""
    keys = {base.key}
    stack = [base]
    while stack:
        node = stack.pop()
        if not makes_new_array(node):
            for item in node.inputs:
                if isinstance(item.type, Array) and item.key not in keys:
                    keys.add(item.key)
                    stack.append(item)
    return keys


def _may_view(item: Node, shared: set[str]) -> bool:
    """Whether ``item`` may share memory with one of ``shared``: it is one, or a view of one."""
    if item.key in shared:
        return True
    if makes_new_array(item) or not isinstance(item.type, Array):
        return False
    return any(_may_view(source, shared) for source in item.inputs)
