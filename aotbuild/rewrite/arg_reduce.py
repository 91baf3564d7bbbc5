"""``np.argmin``/``np.argmax`` of a whole elementwise value, fused (see
:mod:`aotbuild.graph.arg_reduce`): the value is then never stored.

Only a value no other Op reads, over every axis (``axis=None``), of a real or integer dtype
(NumPy orders complex values lexicographically; those keep their Op). A gather or roll inside
the value reads elsewhere than at the element: such a value keeps its own loop.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..graph import Elementwise, Graph, Node
from ..graph.arg_reduce import FusedArgReduce
from ..graph.array_ops import Expr
from ..graph.fused import Fused, FusedStep
from ..types import Array
from .calls import node_by_node

#: The Expr functions fused, as NumPy calls them for a whole array.
KINDS = {"argmin": "np.argmin({0})", "argmax": "np.argmax({0})"}


def fuse_arg_reductions(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    """``graph`` with its whole-array argmin/argmax of elementwise values fused (subgraphs too)."""
    return node_by_node(graph, done, fuse_arg_reductions, "fuse-arg-reductions", _rewrite)


def _rewrite(new: Node, old: Node, uses: Counter[int], rebuilt: dict[int, Node]) -> Node:
    op = new.op
    if isinstance(op, Expr) and KINDS.get(op.fn) == op.code and uses[id(old.inputs[0])] == 1:
        return _fused(new)
    return new


def _fused(node: Node) -> Node:
    (value,) = node.inputs
    if not isinstance(value.op, (Fused, Elementwise)) or not isinstance(value.type, Array):
        return node
    if np.dtype(value.type.dtype).kind not in "biuf":
        return node
    if isinstance(value.op, Fused):
        steps = value.op.steps
    else:
        ndims = tuple(getattr(item.type, "ndim", 0) for item in value.inputs)
        op = value.op
        steps = (FusedStep(op.fn, op.in_dtypes, op.out_dtype, tuple(range(len(value.inputs))), ndims),)
    if any(step.fn in ("take", "roll") for step in steps):
        return node
    return Node.make(FusedArgReduce(node.op.fn, steps), value.inputs)  # type: ignore[attr-defined]
