"""Algebraic simplification that keeps NumPy's results bit for bit.

Only identities that hold exactly, for every value including NaN, infinities and -0.0:

* ``x * 1``, ``1 * x``, ``x / 1`` and ``x ** 1`` → ``x`` (any dtype: each is exact, and NumPy's
  ``power`` returns ``x`` itself for an exponent of 1);
* ``x + 0``, ``0 + x`` and ``x - 0`` → ``x`` for integers only (for floats ``-0.0 + 0.0`` is
  ``0.0``);
* ``-(-x)`` → ``x`` (negation is exact; integers wrap the same way twice);
* ``x ** 2`` → ``x * x`` (NumPy's ``power`` takes that very path for a scalar exponent of 2).

The constant must be a scalar (an array of ones could broadcast ``x`` to a larger shape), and the
result must have ``x``'s dtype (``int_array * 1.0`` is a cast, not an identity). A value the graph
returns is never replaced by one of its inputs: NumPy returns a new array, never ``x`` itself.
Not done, because NumPy's answer differs: ``x ** 0.5`` → ``sqrt(x)`` (at -0.0 and -inf), ``x / c``
→ ``x * (1 / c)``, reassociation (:mod:`.fastmath` does the first two in graphs that opt in).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..graph import Constant, Elementwise, Graph, Node
from ..graph.calls import Call
from .calls import rewritten_call


def simplify_graph(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    done = {} if done is None else done
    returned = {id(node) for node in graph.outputs}
    rebuilt: dict[int, Node] = {}
    for node in graph.nodes():
        op = node.op
        if isinstance(op, Call):
            op = rewritten_call(op, done, simplify_graph, "simplify")
        inputs = tuple(rebuilt[id(item)] for item in node.inputs)
        new = Node.make(op, inputs)
        if isinstance(op, Elementwise):
            new = _simplified(new, keep_identity=id(node) in returned)
        rebuilt[id(node)] = new
    return replace(graph, outputs=tuple(rebuilt[id(node)] for node in graph.outputs))


def _scalar_constant(node: Node) -> float | int | None:
    if isinstance(node.op, Constant) and node.op.value.ndim == 0:
        value = node.op.value.array[()]
        if not np.iscomplexobj(value):
            return value.item()
    return None


def _simplified(node: Node, keep_identity: bool) -> Node:
    op = node.op
    assert isinstance(op, Elementwise)
    inputs = node.inputs
    # Replacing the node by an input needs the input's dtype and dimensions (its layout may
    # differ: consumers are generated for the types they get).
    same = [
        item
        for item in inputs
        if getattr(item.type, "dtype", None) == op.out_dtype
        and getattr(item.type, "ndim", 0) == getattr(node.type, "ndim", 0)
    ]
    kind = np.dtype(op.out_dtype).kind
    integer = kind in "iu"
    squares = op.fn == "power" and kind in "iuf" and op.in_dtypes == (op.out_dtype, op.out_dtype)
    if squares and _scalar_constant(inputs[1]) == 2 and inputs[0] in same:
        return Node.make(Elementwise("multiply", op.in_dtypes, op.out_dtype), (inputs[0], inputs[0]))
    if keep_identity:
        return node
    if op.fn == "multiply" and len(inputs) == 2:
        for x, one in ((inputs[0], inputs[1]), (inputs[1], inputs[0])):
            if x in same and _scalar_constant(one) == 1:
                return x
    if op.fn in ("divide", "true_divide", "power") and inputs[0] in same and _scalar_constant(inputs[1]) == 1:
        return inputs[0]
    if op.fn in ("add", "subtract") and integer and len(inputs) == 2:
        pairs = [(inputs[0], inputs[1])] + ([(inputs[1], inputs[0])] if op.fn == "add" else [])
        for x, zero in pairs:
            if x in same and _scalar_constant(zero) == 0:
                return x
    if op.fn == "negative" and isinstance(inputs[0].op, Elementwise) and inputs[0].op.fn == "negative":
        inner = inputs[0].inputs[0]
        if getattr(inner.type, "dtype", None) == op.out_dtype:
            return inner
    return node
