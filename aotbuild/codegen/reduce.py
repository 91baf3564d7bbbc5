"""Render a reduction node — or a reduction of a fused elementwise value — into its Op module."""

from __future__ import annotations

import numpy as np

from ..graph import Node, Reduce
from ..graph.fused import FusedReduce
from ..types import Array
from .elementwise import broadcast, fused_body, helper_sources
from .module import OpModule, template_op
from .slots import input_slots

#: Elements summed in order before a block sum joins the pairwise combination (NumPy: 128).
PAIRWISE_BLOCK = 128

_NUMPY_NAMES = {"min": "minimum", "max": "maximum"}


def _context(op: Reduce | FusedReduce, ndim: int) -> dict[str, object]:
    """What ``ops/reduce.py.j2`` needs to reduce a value of ``ndim`` dimensions as ``op`` says."""
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
    return {
        "kind": op.kind,
        "numpy_name": _NUMPY_NAMES.get(op.kind, op.kind),
        "out_dtype": op.out_dtype,
        "ndim": ndim,
        "reduced": reduced,
        "kept": kept,
        "indices": [f"i{axis}" for axis in range(ndim)],
        # The index of an element of the innermost reduced axis at "{k}" (pairwise sums).
        "run_index": ["{k}" if reduced and axis == reduced[-1] else f"i{axis}" for axis in range(ndim)],
        "first_index": first_index,
        "reduced_count": " * ".join(f"n{axis}" for axis in reduced) or "1",
        "out_index": out_index,
        "out_shape": out_shape,
        "scalar_result": not op.keepdims and not kept,
        "pairwise": op.kind in ("sum", "mean") and np.dtype(op.out_dtype).kind in "fc",
        "block": PAIRWISE_BLOCK,
        "wide_dtype": "complex128" if np.dtype(op.out_dtype).kind == "c" else "float64",
    }


def render_reduce(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Reduce)
    slots = input_slots(node)
    (slot,) = slots
    assert isinstance(slot.type, Array) and not slot.is_constant
    title = f"{op.kind}({slot.type}, axis={tuple(op.axes)}, keepdims={op.keepdims}) -> {node.type}"
    return template_op(
        "ops/reduce.py.j2",
        node,
        slots,
        name=op.kind,
        title=title,
        element=None,
        **_context(op, slot.ndim),
    )


def render_fused_reduce(node: Node) -> OpModule:
    """The reduction reads ``element(inputs..., steps..., i0, i1, ...)``: the fused value at that
    index (:func:`~aotbuild.codegen.elementwise.fused_body`), computed as it is read."""
    op = node.op
    assert isinstance(op, FusedReduce)
    slots = input_slots(node)
    ndim = max(slot.ndim for slot in slots)
    plan = broadcast(slots, ndim)
    body = fused_body(op.steps, slots, plan.reads)
    indices = [f"i{d}" for d in range(ndim)]
    arguments = [slot.name for slot in slots if not slot.is_constant] + [str(s["name"]) for s in plan.steps]
    value_dtype = op.steps[-1].out_dtype
    fns = [step.fn for step in op.steps]
    element = "\n".join(
        [
            "@register_jitable",
            f"def element({', '.join(arguments + indices)}):",
            f'    """The reduced value ({"·".join(fns)}) at ({", ".join(indices)}), in {value_dtype}."""',
            *(f"    {statement}" for statement in body.statements),
            f"    return np.{value_dtype}({body.value})",
        ]
    )
    title = (
        f"{op.kind}(fused {'·'.join(fns)}({', '.join(s.describe() for s in slots)}), "
        f"axis={tuple(op.axes)}, keepdims={op.keepdims}) -> {node.type}"
    )
    return template_op(
        "ops/reduce.py.j2",
        node,
        slots,
        name=f"{op.kind}_fused",
        title=title,
        element=element,
        element_args=", ".join(arguments),
        helpers=helper_sources(body.helpers),
        axis_sources=plan.axis_sources,
        steps=plan.steps,
        **_context(op, ndim),
    )
