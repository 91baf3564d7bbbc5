"""Render an elementwise node (ufunc, ``where``, ``astype``) into its Op module."""

from __future__ import annotations

from ..graph import Elementwise, Node
from ..types import Array
from .module import OpModule, template_op
from .scalar import load_expression, scalar_expression
from .slots import input_slots
from .templates import render


def render_elementwise(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Elementwise)
    result = node.type
    ndim = result.ndim if isinstance(result, Array) else 0
    slots = input_slots(node)
    extents = [f"n{d}" for d in range(ndim)]
    # The input lengths each axis of the result is broadcast from (inputs align at the right).
    axis_sources: list[list[str]] = [[] for _ in range(ndim)]
    for slot in slots:
        for axis in range(slot.ndim):
            axis_sources[ndim - slot.ndim + axis].append(f"{slot.name}.shape[{axis}]")
    steps = []
    loads = []
    for k, slot in enumerate(slots):
        value = slot.name
        if slot.ndim:
            offset = ndim - slot.ndim
            index = []
            for axis in range(slot.ndim):
                position = f"i{axis + offset}"
                # An axis only this input spans has its length: no step needed, it is never broadcast.
                if len(axis_sources[axis + offset]) > 1:
                    step = f"s{k}_{axis}"
                    steps.append({"name": step, "source": slot.name, "axis": axis})
                    position += f" * {step}"
                index.append(position)
            value = f"{slot.name}[{', '.join(index)}]"
        loads.append(load_expression(value, slot.dtype, op.in_dtypes[k]))
    scalar_inputs = tuple(slot.ndim == 0 for slot in slots)
    body, helpers = scalar_expression(op.fn, op.in_dtypes, loads, scalar_inputs)

    title = f"{op.fn}({', '.join(s.describe() for s in slots)}) -> {result}"
    return template_op(
        "ops/elementwise.py.j2",
        node,
        slots,
        name=op.fn,
        title=title,
        out_dtype=op.out_dtype,
        helpers=[render(f"ops/scalar/{h.template}.py.j2", **h.render_context()).rstrip() for h in helpers],
        ndim=ndim,
        extents=extents,
        steps=steps,
        indices=[f"i{d}" for d in range(ndim)],
        axis_sources=axis_sources,
        body=body,
    )
