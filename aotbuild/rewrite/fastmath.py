"""Inexact rewrites, for ``fastmath = true`` graphs only: what fast-math allows and NumPy does not.

A graph that opted into fast-math no longer promises NumPy's results to the bit, so these
cheaper forms of floating-point expressions become fair:

* ``x ** 0.5`` → ``sqrt(x)`` (``pow`` and ``sqrt`` differ at -0.0 and -inf; ``sqrt`` is one
  instruction, ``pow`` a library call);
* ``x ** 3`` → ``x * x * x`` (``pow`` rounds once, the products twice);
* ``x / c`` → ``x * (1 / c)`` for a finite, non-zero scalar constant ``c`` (a division costs
  several multiplications; ``1 / c`` is rounded once, at build time).

Floats only, and only where ``x`` has the result's dtype (no cast hides in the rewrite). Graphs
without ``fastmath = true`` are returned as they are; so are the subgraphs they call, which are
shared with exact callers.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..graph import Constant, Elementwise, Graph, Node
from ..graph.ops import ConstValue


def fastmath_graph(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    if not graph.config.fastmath:
        return graph
    rebuilt: dict[int, Node] = {}
    for node in graph.nodes():
        new = Node.make(node.op, tuple(rebuilt[id(item)] for item in node.inputs))
        if isinstance(new.op, Elementwise):
            new = _rewritten(new)
        rebuilt[id(node)] = new
    return replace(graph, outputs=tuple(rebuilt[id(node)] for node in graph.outputs))


def _scalar(node: Node) -> float | None:
    if isinstance(node.op, Constant) and node.op.value.ndim == 0:
        value = node.op.value.array[()]
        if np.issubdtype(value.dtype, np.floating) or np.issubdtype(value.dtype, np.integer):
            return float(value)
    return None


def _rewritten(node: Node) -> Node:
    op = node.op
    assert isinstance(op, Elementwise)
    if np.dtype(op.out_dtype).kind != "f" or len(node.inputs) != 2:
        return node
    x, operand = node.inputs
    if getattr(x.type, "dtype", None) != op.out_dtype or op.in_dtypes != (op.out_dtype, op.out_dtype):
        return node
    constant = _scalar(operand)
    if constant is None:
        return node
    loop = (op.out_dtype, op.out_dtype)
    if op.fn == "power" and constant == 0.5:
        return Node.make(Elementwise("sqrt", (op.out_dtype,), op.out_dtype), (x,))
    if op.fn == "power" and constant == 3.0:
        square = Node.make(Elementwise("multiply", loop, op.out_dtype), (x, x))
        return Node.make(Elementwise("multiply", loop, op.out_dtype), (square, x))
    if op.fn == "divide" and constant != 0.0 and np.isfinite(constant):
        reciprocal = ConstValue.of(np.array(1.0, dtype=op.out_dtype) / np.array(constant, dtype=op.out_dtype))
        return Node.make(Elementwise("multiply", loop, op.out_dtype), (x, Node.make(Constant(reciprocal))))
    return node
