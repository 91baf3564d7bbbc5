"""Render matrix products and Einstein sums."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Node
from ..graph.linalg_ops import Einsum, MatMul
from .module import OpModule, template_op
from .scalar import load_expression
from .slots import Slot, input_slots


def _blas_operand(slot: Slot, item: str, rows: str, columns: str, batch: int) -> str:
    """What ``x, x_order, x_ld = ...`` reads for one operand of a product, ``item`` its matrix: a
    C-contiguous one (a constant, or declared C order, each matrix of a stack too) goes to BLAS
    row by row, an F-contiguous one column by column, their row or column lengths known; any
    other is looked at when called (``blas_operand``: a function numba compiles for each type of
    matrix, 0.2 s of a worker's first product)."""
    layout = "C" if slot.is_constant else getattr(slot.type, "layout", "A")
    if layout == "C":
        return f"{item}, ROWS, max({columns}, 1)"
    if layout == "F" and not batch:
        return f"{item}, COLUMNS, max({rows}, 1)"
    return f"blas_operand({item})"


def render_matmul(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, MatMul)
    slots = input_slots(node)
    a, b = slots
    batch = a.ndim - 2
    out_shape = [f"n{d}" for d in range(batch)] + ["m", "n"]
    a_batch = "".join(f"i{d} * sa{d}, " for d in range(batch))
    b_batch = "".join(f"i{d} * sb{d}, " for d in range(batch))
    x = _blas_operand(a, f"{a.name}[{a_batch}]" if batch else a.name, "m", "k", batch)
    y = _blas_operand(b, f"{b.name}[{b_batch}]" if batch else b.name, "k", "n", batch)
    imports = sorted({"gemm"} | {name for name in ("blas_operand", "ROWS", "COLUMNS") if name in x + y})
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
        a_batch=a_batch,
        b_batch=b_batch,
        operands=(x, y),
        imports=imports,
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
