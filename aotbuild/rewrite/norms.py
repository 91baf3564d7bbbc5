"""``abs(z) ** 2`` of complex values as ``re * re + im * im``, not a square root squared.

NumPy computes ``np.abs(z) ** 2`` (and ``np.square(np.abs(z))``, ``np.abs(z) * np.abs(z)``) as a
hypot, then its square: a root that vectorises poorly (aotbuild's 1-ulp hypot costs 2.7 ns a
complex128 value) and two roundings. The squared modulus is the sum of the parts' squares,
which is what the expression means; computed so, it is within 1 ulp of the true value where
NumPy's is within 2.5 (a hypot within 1 ulp, then squared), it vectorises with the loop around
it, and it keeps NumPy's special values: an infinite part gives inf even beside a NaN, as hypot
does; otherwise a NaN gives NaN. Overflow and underflow happen where NumPy's do, as both square
the modulus. So results may differ from NumPy's in the last bits, as the vector math's do
(docs/tracing.md, the numerical contract), and are never less accurate.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..graph import Elementwise, Graph, Node
from .calls import node_by_node


def squared_moduli(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    """``graph`` with the squares of complex moduli as sums of squares (subgraphs too)."""
    return node_by_node(graph, done, squared_moduli, "complex-abs-squared", _rewrite)


def _rewrite(new: Node, old: Node, uses: Counter[int], rebuilt: dict[int, Node]) -> Node:
    z = _squared_modulus_of(new)
    return _sum_of_squares(z, new.op.out_dtype) if z is not None else new  # type: ignore[attr-defined]


def _squared_modulus_of(node: Node) -> Node | None:
    """The complex ``z`` when ``node`` is ``|z| * |z|`` or ``square(|z|)``, else None."""
    op = node.op
    if not isinstance(op, Elementwise) or op.fn not in ("multiply", "square"):
        return None
    inputs = node.inputs
    if op.fn == "multiply" and (len(inputs) != 2 or inputs[0] is not inputs[1]):
        return None
    modulus = inputs[0]
    if not isinstance(modulus.op, Elementwise) or modulus.op.fn != "absolute":
        return None
    if np.dtype(modulus.op.in_dtypes[0]).kind != "c" or modulus.op.out_dtype != op.out_dtype:
        return None
    return modulus.inputs[0]


def _sum_of_squares(z: Node, dtype: str) -> Node:
    """One elementwise step, :data:`ABS_SQUARED`, which the loop computes as the sum of squares
    (aotbuild/codegen/scalar.py): one step, so it fuses with what reads ``z`` and what it feeds."""
    complex_dtype = "complex64" if dtype == "float32" else "complex128"
    return Node.make(Elementwise(ABS_SQUARED, (complex_dtype,), dtype), (z,))


#: The elementwise step ``|z| ** 2`` of a complex ``z`` (no NumPy ufunc of that name).
ABS_SQUARED = "abs_squared"
