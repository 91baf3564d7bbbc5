"""Fortran-ordered results where NumPy gives them (a traced graph with ``float64[::1, :]``
parameters, see ``GraphConfig.fortran``).

NumPy lays an elementwise result out as its operands are (its ``K`` order): ``a * 2`` of an
F-contiguous ``a`` is F-contiguous. The graph traced ``a`` as the transpose ``c.T`` of the
C-contiguous array ``c`` the package passes, so ``a * 2`` is ``c.T * 2``, which the pipeline
would compute into a new C-contiguous array, reading ``c`` across its rows. Computed as
``(c * 2).T`` instead, the loop reads ``c`` as it lies and the result is the transpose view of a
C-contiguous array: F-contiguous, as NumPy's. That is what happens here, for each result that
is elementwise all the way down to transposed parameters (or scalars), and declared with any
layout (a result declared C-contiguous stays so).
"""

from __future__ import annotations

from dataclasses import replace

from ..graph import Elementwise, Graph, Node
from ..graph.array_ops import Expr
from ..types import Array
from .movement import transpose, transpose_code
from .operands import Operand


def fortran_results(graph: Graph) -> Graph:
    """``graph`` with its elementwise results of Fortran-ordered parameters made F-contiguous."""
    declared = graph.config.signature.results
    if not graph.config.fortran or len(declared) != len(graph.returned):
        return graph
    outputs = list(graph.outputs)
    for index, (node, wanted) in enumerate(zip(graph.returned, declared, strict=True)):
        if isinstance(wanted, Array) and wanted.layout == "A" and isinstance(node.op, Elementwise):
            inner = _transposed(node)
            if inner is not None:
                outputs[index] = transpose(Operand(inner)).node
    return replace(graph, outputs=tuple(outputs))


def _transposed(node: Node) -> Node | None:
    """A node computing ``node``'s transpose in C order, or None where there is none to hand:
    ``node`` is the full transpose of an array, or elementwise of such and of scalars."""
    ndim = getattr(node.type, "ndim", 0)
    if ndim < 2:
        return None
    if isinstance(node.op, Expr) and node.op.fn == "transpose":
        full = transpose_code(tuple(reversed(range(ndim))))
        return node.inputs[0] if node.op.code == full else None
    if not isinstance(node.op, Elementwise):
        return None
    inputs = []
    for item in node.inputs:
        item_ndim = getattr(item.type, "ndim", 0)
        if item_ndim == 0:
            inputs.append(item)
            continue
        if item_ndim != ndim:
            return None  # a broadcast operand: NumPy's order would depend on its strides
        inner = _transposed(item)
        if inner is None:
            return None
        inputs.append(inner)
    return Node.make(node.op, tuple(inputs))
