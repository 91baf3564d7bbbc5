"""What a ufunc's C file (``templates/native/entry_ufunc.c.j2``) is rendered from: its loops,
their variants' adapters (see :mod:`aotbuild.trace.ufunc_loops`), its identity and docstring."""

from __future__ import annotations

import numpy as np

from ..codegen.buffers import inplace_inputs, written_in_place
from ..codegen.plan import GraphPlan
from ..compile.adapter import ADAPTER_SUFFIX
from ..graph.updates import FusedSetIndex
from ..trace.ufunc_loops import broadcast_sets
from .c_names import NPY_TYPES, c_string


def ufunc_doc(plan: GraphPlan) -> str:
    """What ``help()`` shows under NumPy's own first line for a ufunc."""
    config = plan.graph.config
    lines = [
        f"Compiled by aotbuild from {config.function}"
        + (f", defined at {plan.graph.source}" if plan.graph.source else "")
        + ": a NumPy ufunc with the loops "
        + ", ".join(config.signature_texts)
        + " (NumPy runs the first its inputs cast to safely).",
    ]
    if config.identity is not None:
        lines.append(f"Identity: {config.identity!r}.")
    return "\n".join(lines)


def _identity(value: int | float | str | None) -> tuple[str, str]:
    """NumPy's identity constant for ``value`` and, for any other number, the object to pass."""
    if value is None:
        return "PyUFunc_None", ""
    if value == "reorderable":
        return "PyUFunc_ReorderableNone", ""
    if isinstance(value, int) and value in (0, 1):
        return ("PyUFunc_Zero", "") if value == 0 else ("PyUFunc_One", "")
    if isinstance(value, int):
        return "PyUFunc_IdentityValue", f'PyLong_FromString("{value}", NULL, 10)'
    return "PyUFunc_IdentityValue", f"PyFloat_FromDouble({float(value)!r})"


def in_order_loop(plan: GraphPlan) -> bool:
    """Whether a ufunc's in-order variant came out as one in-order loop over the caller's
    output, as it does unless its function has steps that cannot be fused into the update
    (see :mod:`aotbuild.rewrite.updates`): else each element is a call of the general loop."""
    graph = plan.graph
    (final,) = graph.outputs
    fused = isinstance(final.op, FusedSetIndex) and final.op.in_order
    return fused and written_in_place(graph, inplace_inputs(graph)) == (True,)


def ufunc_entry(plan: GraphPlan) -> dict[str, object]:
    config = plan.graph.config
    identity, identity_value = _identity(config.identity)
    nin = len(config.signature.args) - 1
    loops = []
    for index, text in enumerate(config.signature_texts):
        general, in_order, *broadcast = plan.loops_of(index)
        assert general.contiguous is not None and in_order.graph.config.in_order
        values = general.graph.config.signature.args
        # By the mask of inputs read as scalars (bit k: input k); mask 0 is the contiguous loop.
        by_mask = {sum(1 << k for k in v.graph.config.scalars): v.entry for v in broadcast}
        by_mask[0] = general.contiguous
        loops.append(
            {
                "index": index,
                "signature": text,
                "adapter": general.entry.symbol + ADAPTER_SUFFIX,
                "in_order_adapter": in_order.entry.symbol + ADAPTER_SUFFIX
                if in_order_loop(in_order)
                else None,
                "contiguous_adapters": [
                    by_mask[mask].symbol + ADAPTER_SUFFIX for mask in range(len(by_mask))
                ],
                "itemsizes": [np.dtype(value.dtype).itemsize for value in values],
                "typenums": [NPY_TYPES[value.dtype][0] for value in values],
            }
        )
    return {
        "name": config.name,
        "nin": nin,
        "broadcast": bool(broadcast_sets(nin)),
        "loops": loops,
        "identity": identity,
        "identity_value": identity_value.replace("inf", "HUGE_VAL").replace("nan", "NAN"),
        "doc": c_string(ufunc_doc(plan)),
    }
