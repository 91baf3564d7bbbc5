"""Render matrix products and Einstein sums."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Node
from ..graph.linalg_ops import Einsum, MatMul
from .module import OpModule, template_op
from .scalar import load_expression
from .slots import input_slots


def render_matmul(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, MatMul)
    slots = input_slots(node)
    a, b = slots
    batch = a.ndim - 2
    out_shape = [f"n{d}" for d in range(batch)] + ["m", "n"]
    return template_op(
        "ops/matmul.py.j2",
        node,
        slots,
        name="matmul",
        title=f"matmul({a.describe()}, {b.describe()}) -> {node.type}",
        a=a.name,
        b=b.name,
        batch=batch,
        dtype=op.dtype,
        blas=np.dtype(op.dtype).kind in "fc",
        out_shape=out_shape,
        batch_lengths=[[f"{a.name}.shape[{d}]", f"{b.name}.shape[{d}]"] for d in range(batch)],
        out_batch="".join(f"i{d}, " for d in range(batch)),
        a_batch="".join(f"i{d} * sa{d}, " for d in range(batch)),
        b_batch="".join(f"i{d} * sb{d}, " for d in range(batch)),
    )


def render_einsum(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Einsum)
    slots = input_slots(node)
    sizes: dict[str, list[str]] = {}
    for slot, subscripts in zip(slots, op.inputs, strict=True):
        for axis, letter in enumerate(subscripts):
            sizes.setdefault(letter, []).append(f"{slot.name}.shape[{axis}]")
    letters: list[dict[str, Any]] = [
        {
            "letter": letter,
            "extent": f"n_{letter}",
            "first": shapes[0],
            "others": shapes[1:],
            "var": f"i_{letter}",
        }
        for letter, shapes in sizes.items()
    ]
    by_letter = {entry["letter"]: entry for entry in letters}
    free = [by_letter[letter] for letter in op.output]
    summed = [entry for entry in letters if entry["letter"] not in op.output]
    factors = [
        load_expression(
            f"{slot.name}[{', '.join(f'i_{letter}' for letter in subscripts)}]" if subscripts else slot.name,
            slot.dtype,
            op.dtype,
        )
        for slot, subscripts in zip(slots, op.inputs, strict=True)
    ]
    subscripts = f"{','.join(op.inputs)}->{op.output}"
    return template_op(
        "ops/einsum.py.j2",
        node,
        slots,
        name="einsum",
        title=f"einsum({subscripts!r}, {', '.join(s.describe() for s in slots)}) -> {node.type}",
        subscripts=subscripts,
        letters=letters,
        free=free,
        summed=summed,
        dtype=op.dtype,
        out_shape=[entry["extent"] for entry in free],
        out_index=", ".join(str(entry["var"]) for entry in free),
        product=" * ".join(factors),
    )
