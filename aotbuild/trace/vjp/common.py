"""What every vector-Jacobian rule uses: tracers of nodes, constants of a node's dtype, the
sum of a cotangent back to a broadcast operand's shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...graph import Node
from ...graph.array_ops import SumTo
from ...types import Array, Scalar
from ..movement import shape_spec
from ..operands import Operand, as_operand
from ..tracer import Tracer

Contributions = tuple[Any, ...]
"""One cotangent (a Tracer, or None for none) per input of the node."""


def is_float(node: Node) -> bool:
    """Whether ``node`` is a float (or complex) scalar or array: the values that carry gradients."""
    value = node.type
    return isinstance(value, (Scalar, Array)) and np.dtype(value.dtype).kind in "fc"


def traced(node: Node) -> Tracer:
    """``node`` as a value the rules compute with in traced NumPy."""
    return Tracer(Operand(node))


def scalar(value: float, like: Node | Tracer) -> Tracer:
    """The constant ``value`` with the dtype of ``like`` (never ``x * 0``: that is NaN at NaN)."""
    dtype = like.dtype if isinstance(like, Tracer) else np.dtype(like.type.dtype)  # type: ignore[union-attr]
    return Tracer(as_operand(np.array(value, dtype=dtype)[()]))


def as_dtype(contribution: Tracer, item: Node) -> Tracer:
    """``contribution`` cast to ``item``'s dtype (a cast's rule, dtype promotion undone)."""
    dtype = np.dtype(item.type.dtype)  # type: ignore[union-attr]
    return contribution if contribution.dtype == dtype else contribution.astype(dtype)


def describe(node: Node) -> str:
    """The Op of ``node`` and its types, for errors."""
    items = ", ".join(str(i.type) for i in node.inputs)
    return f"the Op `{node.op.name}` ({node.op.key}) of ({items}) -> {node.type}"


def sum_to(g: Tracer, like: Node) -> Tracer:
    """``g`` summed down to the shape of ``like``, which broadcast to it."""
    ndim = like.type.ndim  # type: ignore[union-attr]
    if ndim == 0:
        return g.sum() if g.ndim else g
    spec, nodes = shape_spec(traced(like).shape, "a length")
    return traced(Node.make(SumTo(spec), (g.node, *nodes)))


def product(lengths: Any) -> Any:
    """The product of lengths (ints or traced ints)."""
    total: Any = 1
    for length in lengths:
        total = total * length
    return total
