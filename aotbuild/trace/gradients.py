"""Reverse mode over a traced graph: the gradient of a float scalar with respect to arguments.

Each Op's vector-Jacobian product is written as traced NumPy on tracers, so the backward pass is
a graph like any other: hash-consed with the forward pass (the forward values a rule needs are the
forward nodes themselves, computed once), then fused and memory-planned with it. Only nodes on a
path from a differentiated argument to the value are visited; integer and boolean values
(indices, comparisons, ``argmax``) carry no gradient.

The cotangent of a full ``sum`` or ``mean``'s input is one scalar for every element: it stays a
scalar (a 0-d cotangent of an array node stands for itself broadcast to the node's shape) through
the elementwise rules of one array and scalars, which compute with it as a scalar, until a rule
needs the array (the radon gradient: no array of ones multiplied along its likelihood).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph import Argument, Constant, Elementwise, Node, topological_order
from ..graph.array_ops import Expr, IndexInt, IndexSlice, SetIndex, SumTo
from ..graph.calls import Call, TupleItem
from ..graph.ops import SPECIAL_PREFIX
from ..types import Array, TupleOf
from .tracer import Tracer
from .vjp import arrays, indexing, linalg
from .vjp.common import Contributions, as_dtype, describe, is_float, scalar, traced
from .vjp.elementwise import ELEMENTWISE, SPECIAL, elementwise, keeps_scalar


def gradients(value: Node, wrt: tuple[Node, ...]) -> tuple[Node, ...]:
    """The gradient of the float scalar ``value`` with respect to each of ``wrt`` (argument nodes),
    each of its argument's shape and dtype, C-contiguous."""
    results = []
    for node, total in zip(wrt, backward([(value, scalar(1.0, value))], wrt), strict=True):
        if total is None:
            total = np.zeros_like(traced(node)) if node.type.ndim else scalar(0.0, node)  # type: ignore[union-attr]
        elif total.ndim < node.type.ndim:  # type: ignore[union-attr]  # a scalar for every element
            total = np.zeros_like(traced(node)) + total
        elif isinstance(total.node.type, Array) and (
            total.node.type.layout != "C" or isinstance(total.node.op, SumTo)
        ):  # a view, or a sum_to, which returns its input where nothing is summed: a new array
            total = total.copy()
        results.append(total.node)
    return tuple(results)


def backward(seeds: list[tuple[Node, Tracer]], wrt: tuple[Node, ...]) -> list[Any]:
    """The cotangent of each of ``wrt`` given ``seeds``, (output, its cotangent) pairs (None where
    no output depends on it). Propagation stops at ``wrt``: a subgraph call's inputs, or values
    ``value_and_grad`` was given, may be computed from one another."""
    order = topological_order(tuple(output for output, _ in seeds))
    targets = {id(node) for node in wrt}
    reaches = set(targets)
    for node in order:
        carries = is_float(node) or isinstance(node.type, TupleOf)
        if id(node) not in reaches and carries and any(id(i) in reaches for i in node.inputs):
            reaches.add(id(node))
    cotangents: dict[int, Any] = {}
    for output, seed in seeds:
        if id(output) in reaches:  # one node returned twice (``return y, y``) gets both seeds
            earlier = cotangents.get(id(output))
            cotangents[id(output)] = seed if earlier is None else _accumulate(earlier, seed)
    for node in reversed(order):
        g = cotangents.get(id(node))
        if g is None or id(node) in targets or isinstance(node.op, (Argument, Constant)):
            continue  # a target's cotangent is the answer: what it depends on is not asked
        del cotangents[id(node)]
        if isinstance(node.op, TupleItem):  # one item of a tuple's cotangent: the call takes them all
            (call,) = node.inputs
            items = cotangents.setdefault(id(call), [None] * len(call.type.items))  # type: ignore[union-attr]
            items[node.op.index] = g
            continue
        rule = _rule(node)
        if not isinstance(g, list) and g.ndim < getattr(node.type, "ndim", 0) and not keeps_scalar(node):
            every: Any = np.broadcast_to(g, traced(node).shape)  # a scalar for every element, made an array
            g = every
        contributions = rule(node, g)
        for item, contribution in zip(node.inputs, contributions, strict=True):
            if contribution is None or id(item) not in reaches:
                continue
            contribution = as_dtype(contribution, item)
            earlier = cotangents.get(id(item))
            cotangents[id(item)] = contribution if earlier is None else _accumulate(earlier, contribution)
    return [cotangents.get(id(node)) for node in wrt]


def _accumulate(earlier: Tracer, contribution: Tracer) -> Tracer:
    """``earlier + contribution``; but where each writes its own part of one array of zeros
    (``x[0]``, ``x[1:86]``, ``x[86]``... of a parameter vector), the contribution's part is
    written into ``earlier`` instead: one array, updated in place, not an array per part and
    their sum."""
    base, parts = _parts_of_zeros(earlier.node)
    other, added = _parts_of_zeros(contribution.node)
    node = contribution.node
    if base is None or other is not base or len(added) != 1 or earlier.dtype != contribution.dtype:
        return earlier + contribution
    (start, stop) = added[0]
    if any(start < end and begin < stop for begin, end in parts):
        return earlier + contribution
    return traced(Node.make(node.op, (earlier.node, *node.inputs[1:])))


def _parts_of_zeros(node: Node) -> tuple[Node | None, list[tuple[int, int]]]:
    """For ``zeros`` updated at static non-negative parts of its one axis (``z[3] = a``,
    ``z[2:86] = b``, one after the other): the zeros and the parts' [start, stop) ranges."""
    parts = []
    while isinstance(node.op, SetIndex) and len(node.op.items) == 1 and node.type.ndim == 1:  # type: ignore[union-attr]
        (item,) = node.op.items
        if isinstance(item, IndexInt) and isinstance(item.value, int) and item.value >= 0:
            parts.append((item.value, item.value + 1))
        elif (
            isinstance(item, IndexSlice)
            and (item.start is None or (isinstance(item.start, int) and item.start >= 0))
            and isinstance(item.stop, int)
            and item.stop >= 0
            and item.step in (None, 1)
        ):
            parts.append((item.start or 0, item.stop))
        else:
            return None, []
        node = node.inputs[0]
    zeros = isinstance(node.op, Expr) and node.op.fn in ("zeros", "zeros_like")
    return (node, parts) if zeros and parts else (None, [])


def _rule(node: Node) -> Callable[[Node, Tracer], Contributions]:
    op = node.op
    if isinstance(op, Elementwise):
        rule = ELEMENTWISE.get(op.fn) or SPECIAL.get(op.fn.removeprefix(SPECIAL_PREFIX))
        if rule is None:
            raise TraceError(f"`{op.fn}` has no gradient rule (in {describe(node)})")
        return elementwise(rule)
    rule = RULES.get(type(op))
    if rule is None:
        raise TraceError(f"{describe(node)} has no gradient rule")
    return rule


def _call(node: Node, g: Any) -> Contributions:
    """A subgraph call (``@aotbuild.subgraph``): differentiated through its graph, inlined. A
    call returning a tuple has a cotangent per item (``g`` a list, None for an item not used)."""
    op = node.op
    assert isinstance(op, Call)
    graph = op.graph
    inlined: dict[int, Node] = {}
    for inner in graph.nodes():
        if isinstance(inner.op, Argument):
            inlined[id(inner)] = node.inputs[inner.op.position]
        else:
            inlined[id(inner)] = Node.make(inner.op, tuple(inlined[id(i)] for i in inner.inputs))
    items = g if isinstance(g, list) else [g]
    seeds = [(inlined[id(out)], c) for out, c in zip(graph.outputs, items, strict=True) if c is not None]
    totals = backward(seeds, node.inputs)
    # an input passed twice got both uses' cotangent once: give it to the first place only
    first = {id(item): i for i, item in reversed(list(enumerate(node.inputs)))}
    return tuple(
        t if first[id(item)] == i else None
        for i, (item, t) in enumerate(zip(node.inputs, totals, strict=True))
    )


RULES: dict[type, Callable[[Node, Tracer], Contributions]] = {
    **arrays.RULES,
    **indexing.RULES,
    **linalg.RULES,
    Call: _call,
}
