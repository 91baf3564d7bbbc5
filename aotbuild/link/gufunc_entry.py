"""What a gufunc's C file (``templates/native/entry_gufunc.c.j2``) is rendered from: its loops
(one compiled kernel per signature) and, per operand, where NumPy's gufunc loop puts its core
dimensions and strides.

NumPy calls a gufunc's loop with ``dimensions[0]`` the number of outer iterations and then one
size per distinct core dimension (in the order the layout first names them), and ``steps`` with
each operand's outer stride, then each operand's core strides in turn. Each iteration hands the
kernel, per operand, a numba array over that operand's core (no copy), or for a scalar input the
pointer to its value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..codegen.plan import GraphPlan
from ..compile.adapter import ADAPTER_SUFFIX
from ..config.gufunc import parse_layout
from ..types import Array
from .c_names import NPY_TYPES, c_string


def gufunc_doc(plan: GraphPlan) -> str:
    """What ``help()`` shows under NumPy's own first line for a gufunc."""
    config = plan.graph.config
    return (
        f"Compiled by aotbuild from {config.function}"
        + (f", defined at {plan.graph.source}" if plan.graph.source else "")
        + f": a NumPy generalized ufunc {config.gufunc} with the loops "
        + ", ".join(config.signature_texts)
        + " (NumPy runs the first its inputs cast to safely)."
    )


def gufunc_entry(plan: GraphPlan) -> dict[str, object]:
    config = plan.graph.config
    layout = parse_layout(config.gufunc)
    names = list(dict.fromkeys(name for dims in layout.operands for name in dims))
    nargs = len(layout.operands)
    operands: list[dict[str, Any]] = []
    offset = nargs  # steps[nargs:]: each operand's core strides in turn
    for position, dims in enumerate(layout.operands):
        declared = config.signature.args[position]
        operands.append(
            {
                "position": position,
                "scalar": not isinstance(declared, Array),
                "ndim": max(len(dims), 1),
                "shape": [f"dimensions[{1 + names.index(name)}]" for name in dims] or ["1"],
                "strides": [f"steps[{offset + k}]" for k in range(len(dims))] or ["0"],
            }
        )
        offset += len(dims)
    loops = [
        {
            "index": index,
            "signature": text,
            "adapter": loop.entry.symbol + ADAPTER_SUFFIX,
            "itemsizes": [np.dtype(value.dtype).itemsize for value in loop.graph.config.signature.args],
            "typenums": [NPY_TYPES[value.dtype][0] for value in loop.graph.config.signature.args],
        }
        for index, (text, loop) in enumerate(zip(config.signature_texts, plan.loops, strict=True))
    ]
    return {
        "name": config.name,
        "nin": len(layout.inputs),
        "nout": len(layout.outputs),
        "layout": str(layout),
        "operands": operands,
        "ndims": sorted({operand["ndim"] for operand in operands if not operand["scalar"]}),
        "loops": loops,
        "doc": c_string(gufunc_doc(plan)),
    }
