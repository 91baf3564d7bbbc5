"""Render a fused ``np.argmin``/``np.argmax`` (:class:`FusedArgReduce`) into its Op module.

The value is computed over the broadcast shape of the inputs, in C order. A 1-d value without
vector math is scanned as it is computed, the least value and its index kept by selects, the
values summed, and scanned again with the exact code where the sum is NaN (a NaN among them, or
infinities of both signs: one add per value, where testing each value for NaN took three
instructions, 0.91x the time at a codebook of 16 on an AVX-512 Xeon; a complex codebook's 16
distances per row: 0.76 -> 0.27 ms in numba JIT experiments, where a rarely taken branch in the
loop kept it at 0.84). From 16 values on, two chains of selects scan the even and the odd
values, each waiting only for its own (a codebook of 200 entries per sample: 0.62x the time of
one chain, 64 entries 0.72x; below 16 the second chain cost about what it saved). With vector
math the value is computed 64 elements at a time into a buffer on the stack (a loop LLVM
vectorises), then each block scanned. The first least (greatest) value wins, and a NaN wins
over every number (NumPy's rule); an empty value is NumPy's ValueError.
"""

from __future__ import annotations

import numpy as np

from ..graph import Node
from ..graph.arg_reduce import FusedArgReduce
from .elementwise import broadcast, fused_body, helper_sources
from .module import OpModule, template_op
from .slots import input_slots


def render_fused_arg_reduce(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, FusedArgReduce)
    slots = input_slots(node)
    ndim = max((slot.ndim for slot in slots), default=0)
    plan = broadcast(slots, ndim)
    body = fused_body(op.steps, slots, plan.reads)
    exact = fused_body(op.steps, slots, plan.reads, exact=True) if body.checks else None
    # where no input is broadcast, each is read at the index itself (a multiplied index makes
    # LLVM gather every load)
    direct = fused_body(op.steps, slots, plan.direct_reads, exact=exact is not None)
    # Without vector math, a 1-d value is scanned as it is computed, with selects (no branch):
    # plain code first, and the exact scan again only where a NaN turned up
    single = ndim == 1 and not body.library and exact is None
    fast = fused_body(op.steps, slots, plan.reads, plain=True) if single else None
    dtype = np.dtype(op.steps[-1].out_dtype)
    title = (
        f"{op.kind}(fused {'·'.join(step.fn for step in op.steps)}"
        f"({', '.join(s.describe() for s in slots)})) -> int64"
    )
    return template_op(
        "ops/argreduce.py.j2",
        node,
        slots,
        name=f"{op.kind}_fused",
        title=title,
        kind=op.kind,
        comparison="<" if op.kind == "argmin" else ">",
        floating=dtype.kind == "f",
        value_dtype=dtype.name,
        ndim=ndim,
        extents=plan.extents,
        axis_sources=plan.axis_sources,
        steps=plan.steps,
        step_statements=plan.step_statements,
        step_imports=plan.step_imports(plan.all_direct),
        body=exact if exact is not None else body,  # a range-checked function: the C library's
        direct=direct if plan.steps else None,
        all_direct=plan.all_direct,
        fast=fast,
        helpers=helper_sources(body.helpers, body.library if exact is None else exact.library),
    )
