"""Render a slice assignment of an elementwise value (:class:`FusedSetIndex`) into its Op module.

The value is computed element by element into the slice, where each input is either the slice
itself (``h[k] += ...``), a scalar, or an array of the slice's shape that does not overlap it
(checked at run time: arrays of the caller may alias). Rows of unit stride are read as
C-contiguous rows, which LLVM vectorises. Anything else — an input broadcast into the slice, or
one whose memory overlaps it — takes the general path: the value into a new array first, then
copied, which is NumPy's order of effects.
"""

from __future__ import annotations

from ..graph import Node
from ..graph.array_ops import IndexInt, Squeeze, index_text
from ..graph.updates import FusedSetIndex
from .elementwise import fused_body, helper_sources
from .indexing import _index_code
from .module import OpModule, template_op
from .slots import Slot, input_slots


def render_fused_set_index(node: Node, inplace: Node | None = None) -> OpModule:
    """``inplace``: the base, written into rather than copied (see aotbuild/codegen/buffers.py)."""
    op = node.op
    assert isinstance(op, FusedSetIndex)
    slots = input_slots(node)
    base = slots[0]
    index, checks = _index_code(op.items, iter(s.name for s in slots[1 : 1 + op.indices]))
    values = slots[1 + op.indices :]
    ndim = base.ndim - sum(isinstance(item, (IndexInt, Squeeze)) for item in op.items)
    loops = [f"e{d}" for d in range(ndim)]
    arrays = [k for k, slot in enumerate(values) if slot.ndim and k != op.target]

    # The fast path: every array input of the slice's shape, read at the slice's index (rows of
    # unit stride as C-contiguous rows).
    def read(k: int, at: str) -> str:
        slot = values[k]
        if not slot.ndim:
            return slot.name
        source = "view" if k == op.target else slot.name
        return f"{source}{at}"

    row_names = {k: f"r{k}" for k in arrays}
    if op.target >= 0:
        row_names[op.target] = "rv"  # the slice's own row, read and written
    element = f"[{', '.join(loops)}]"
    direct = fused_body(op.steps, values, [read(k, element) for k in range(len(values))])
    by_rows = fused_body(
        op.steps,
        values,
        [f"{row_names[k]}[j]" if k in row_names else values[k].name for k in range(len(values))],
    )
    general = fused_body(
        op.steps,
        values,
        [_broadcast_read(values[k], loops) if values[k].ndim else values[k].name for k in range(len(values))],
    )
    if direct.checks:
        raise AssertionError("the fuse-updates pass keeps functions with range checks out")
    title = (
        f"{base.describe()}{index_text(op.items)} = fused "
        f"{'·'.join(step.fn for step in op.steps)}({', '.join(s.describe() for s in values)}) -> {node.type}"
    )
    written = inplace is not None
    return template_op(
        "ops/setfused.py.j2",
        node,
        slots,
        name="setitem_fused_inplace" if written else "setitem_fused",
        title=f"{title}, in place" if written else title,
        inplace=written,
        base=base.name,
        checks=checks,
        index=index,
        ndim=ndim,
        loops=loops,
        same_shape=[values[k].name for k in arrays if values[k].ndim == ndim],
        broadcast=[
            {"name": values[k].name, "ndim": values[k].ndim} for k in range(len(values)) if values[k].ndim
        ],
        overlapping=[values[k].name for k in arrays],
        all_same=all(values[k].ndim == ndim for k in arrays),
        rows={**{values[k].name: row_names[k] for k in arrays}, "view": "rv"},
        direct=direct,
        by_rows=by_rows,
        general=general,
        out_dtype=node.type.dtype,  # type: ignore[union-attr]
        helpers=helper_sources(direct.helpers + general.helpers, direct.library + general.library),
    )


def _broadcast_read(slot: Slot, loops: list[str]) -> str:
    """``slot`` read at the slice's index, broadcast into it (its axes are the slice's last;
    ``b<name><e>`` is 0 along an axis of length 1)."""
    offset = len(loops) - slot.ndim
    return f"{slot.name}[{', '.join(f'{loops[offset + e]} * b{slot.name}{e}' for e in range(slot.ndim))}]"
