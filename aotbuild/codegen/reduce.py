"""Render a reduction node into its Op module."""

from __future__ import annotations

import numpy as np

from ..graph import Node, Reduce
from ..types import Array
from .module import OpModule, template_op
from .slots import input_slots

#: Elements summed in order before a block sum joins the pairwise combination (NumPy: 128).
PAIRWISE_BLOCK = 128

_NUMPY_NAMES = {"min": "minimum", "max": "maximum"}


def render_reduce(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Reduce)
    slots = input_slots(node)
    (slot,) = slots
    assert isinstance(slot.type, Array) and not slot.is_constant
    ndim = slot.ndim
    reduced = list(op.axes)
    kept = [axis for axis in range(ndim) if axis not in op.axes]
    # The first element reduced (min and max start from it); with keepdims, also the result's place.
    first_index = ["0" if axis in op.axes else f"i{axis}" for axis in range(ndim)]
    if op.keepdims:
        out_index = first_index
        out_shape = ["1" if axis in op.axes else f"n{axis}" for axis in range(ndim)]
    else:
        out_index = [f"i{axis}" for axis in kept]
        out_shape = [f"n{axis}" for axis in kept]
    pairwise = op.kind in ("sum", "mean") and np.dtype(op.out_dtype).kind in "fc"
    title = f"{op.kind}({slot.type}, axis={tuple(op.axes)}, keepdims={op.keepdims}) -> {node.type}"
    return template_op(
        "ops/reduce.py.j2",
        node,
        slots,
        name=op.kind,
        title=title,
        kind=op.kind,
        numpy_name=_NUMPY_NAMES.get(op.kind, op.kind),
        out_dtype=op.out_dtype,
        ndim=ndim,
        reduced=reduced,
        kept=kept,
        indices=[f"i{axis}" for axis in range(ndim)],
        first_index=first_index,
        reduced_count=" * ".join(f"n{axis}" for axis in reduced) or "1",
        out_index=out_index,
        out_shape=out_shape,
        scalar_result=not op.keepdims and not kept,
        pairwise=pairwise,
        block=PAIRWISE_BLOCK,
        wide_dtype="complex128" if np.dtype(op.out_dtype).kind == "c" else "float64",
    )
