"""Render updates by elementwise values into their Op modules: a slice assignment
(:class:`FusedSetIndex`) and a masked update (:class:`FusedSetMask`).

The value is computed element by element into the slice, where each input is either the slice
itself (``h[k] += ...``), a scalar, or an array of the slice's shape that does not overlap it
(checked at run time: arrays of the caller may alias). Rows of unit stride are read as
C-contiguous rows, which LLVM vectorises. Anything else — an input broadcast into the slice, or
one whose memory overlaps it — takes the general path: the value into a new array first, then
copied, which is NumPy's order of effects.

A masked update is one loop over ``z`` in the same three versions: at each element the mask and
the value are computed and the element written as a select (the value where the mask holds, the
element as it was elsewhere). Its general path computes the mask (its inputs broadcast as NumPy
broadcasts them), checks each gathered array's shape and ``z``'s against it (NumPy's
``IndexError``), computes the mask and the value into new arrays, then writes.
"""

from __future__ import annotations

from ..graph import Node
from ..graph.array_ops import IndexInt, Squeeze, index_text
from ..graph.fused import FusedStep
from ..graph.updates import FusedSetIndex, FusedSetMask
from .elementwise import FusedBody, fused_body, helper_sources
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
        title=f"{title}, in place" + (", in order" if op.in_order else "") if written else title,
        inplace=written,
        in_order=op.in_order,
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


def render_fused_set_mask(node: Node, inplace: Node | None = None) -> OpModule:
    """``z[mask] = value`` computed at each element of ``z`` (:class:`FusedSetMask`);
    ``inplace``: the base, written into rather than copied (see aotbuild/codegen/buffers.py).

    Every element is written: the value where the mask holds, the element read back where not
    (a select, which LLVM vectorises; a store under a branch took 2.5x as long for complex128)."""
    op = node.op
    assert isinstance(op, FusedSetMask)
    slots = input_slots(node)
    count = len(slots)
    ndim = slots[0].ndim
    loops = [f"e{d}" for d in range(ndim)]
    element = f"[{', '.join(loops)}]"
    arrays = [k for k in range(1, count) if slots[k].ndim]
    # the steps compute the mask first (up to op.mask, when it is a step), then the value
    split = op.mask - count + 1 if op.mask >= count else 0
    mask_reads = _inputs_read(op.steps, op.mask, count)
    gathered = _inputs_read(op.steps, op.value, count, split)  # each x of value(x[mask], ...)
    mask_arrays = [k for k in mask_reads if slots[k].ndim]

    def body(reads: list[str]) -> tuple[FusedBody, str, str]:
        code = fused_body(op.steps, slots, reads)
        if code.checks:
            raise AssertionError("the fuse-updates pass keeps functions with range checks out")
        last = count + len(op.steps) - 1

        def name(arg: int) -> str:
            if arg < count:
                return f"x{arg}" if slots[arg].ndim else slots[arg].name
            return code.value if arg == last else f"t{arg - count}"

        return code, name(op.mask), name(op.value)

    rows = {0: "rv", **{k: f"r{k}" for k in arrays}}
    at_row = ", ".join([*loops[:-1], "j"])

    def row_read(k: int) -> str:
        slot = slots[k]
        if not slot.ndim:
            return slot.name
        return f"{slot.name}[{at_row}]" if slot.is_constant else f"{rows[k]}[j]"

    by_rows = body([row_read(k) for k in range(count)])
    direct = body([f"out{element}" if k == 0 else f"{slots[k].name}{element}" for k in range(count)])
    general = body(
        [f"out{element}"] + [_broadcast_read(slot, loops) if slot.ndim else slot.name for slot in slots[1:]]
    )
    fns = "·".join(step.fn for step in op.steps)
    mask_text = _describe_arg(op.mask, slots, "mask")
    value_text = _describe_arg(op.value, slots, "value")
    title = (
        f"{slots[0].describe()}[{mask_text}] = {value_text}, fused {fns or 'reads'}"
        f"({', '.join(s.describe() for s in slots[1:])}) -> {node.type}"
    )
    written = inplace is not None
    helpers = by_rows[0].helpers + direct[0].helpers + general[0].helpers
    library = by_rows[0].library + direct[0].library + general[0].library
    return template_op(
        "ops/setmaskfused.py.j2",
        node,
        slots,
        name="setmask_fused_inplace" if written else "setmask_fused",
        title=f"{title}, in place" if written else title,
        inplace=written,
        base=slots[0].name,
        ndim=ndim,
        loops=loops,
        arrays=[{"name": slots[k].name, "constant": slots[k].is_constant, "row": rows[k]} for k in arrays],
        mask_input=slots[op.mask].name if op.mask < count else None,
        mask_lengths=[[f"{slots[k].name}.shape[{d}]" for k in mask_arrays] for d in range(ndim)],
        gathered=[slots[k].name for k in dict.fromkeys([*gathered, 0]) if slots[k].ndim],
        broadcast=[slots[k].name for k in arrays],
        by_rows=by_rows,
        direct=direct,
        general=general,
        out_dtype=node.type.dtype,  # type: ignore[union-attr]
        helpers=helper_sources(helpers, library),
    )


def _inputs_read(steps: tuple[FusedStep, ...], result: int, count: int, first: int = 0) -> list[int]:
    """The inputs (in order of first use) read to compute ``result`` (an input, or the result of
    a step, numbered after the ``count`` inputs) by the steps from ``first`` on."""
    found: list[int] = []
    pending = [result]
    while pending:
        arg = pending.pop(0)
        if arg < count:
            if arg not in found:
                found.append(arg)
        elif arg - count >= first:
            pending[:0] = steps[arg - count].args
    return found


def _describe_arg(arg: int, slots: list[Slot], what: str) -> str:
    if arg < len(slots):
        return "itself" if arg == 0 else slots[arg].describe()
    return what
