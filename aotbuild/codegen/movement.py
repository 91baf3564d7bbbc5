"""Render Ops that create or move data: reshape, broadcast_to, pack, and numba expressions."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from ..graph import Node
from ..graph.array_ops import ArgSort, Bincount, BroadcastTo, Expr, Pack, Reshape, Scan, SumTo
from ..trace.movement import transpose_permutation
from .module import OpModule, template_op
from .slots import Slot, entry_text, input_slots


def _shape(shape: tuple[object, ...], dynamic: Iterator[str]) -> list[str]:
    return [entry_text(entry, dynamic) for entry in shape]


def render_reshape(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Reshape)
    slots = input_slots(node)
    shape = _shape(op.shape, iter(s.name for s in slots[1:]))
    return template_op(
        "ops/reshape.py.j2",
        node,
        slots,
        name="reshape",
        title=f"reshape({slots[0].describe()}, ({', '.join(shape)})) -> {node.type}",
        source=slots[0].name,
        shape=shape,
    )


def _source_and_shape(node: Node) -> tuple[list[Slot], Slot, list[str]]:
    """A broadcast_to or sum_to node's slots, its source's slot and the target shape's texts."""
    op = node.op
    assert isinstance(op, (BroadcastTo, SumTo))
    slots = input_slots(node)
    return slots, slots[0], _shape(op.shape, iter(s.name for s in slots[1:]))


def render_broadcast_to(node: Node) -> OpModule:
    slots, source, shape = _source_and_shape(node)
    ndim = len(shape)
    offset = ndim - source.ndim
    steps = [
        {"name": f"s{e}", "length": f"{source.name}.shape[{e}]", "extent": f"n{e + offset}"}
        for e in range(source.ndim)
    ]
    index = ", ".join(f"i{e + offset} * s{e}" for e in range(source.ndim))
    return template_op(
        "ops/broadcast_to.py.j2",
        node,
        slots,
        name="broadcast_to",
        title=f"broadcast_to({source.describe()}, ({', '.join(shape)})) -> {node.type}",
        source=source.name,
        dtype=node.type.dtype,  # type: ignore[union-attr]
        ndim=ndim,
        shape=shape,
        steps=steps,
        extents=[f"n{d}" for d in range(ndim)],
        indices=[f"i{d}" for d in range(ndim)],
        source_index=f"[{index}]" if source.ndim else "",
    )


def render_sum_to(node: Node) -> OpModule:
    slots, source, shape = _source_and_shape(node)
    offset = source.ndim - len(shape)
    index = ", ".join(f"i{e + offset} * s{e}" for e in range(len(shape)))
    return template_op(
        "ops/sum_to.py.j2",
        node,
        slots,
        name="sum_to",
        title=f"sum_to({source.describe()}, ({', '.join(shape)})) -> {node.type}",
        source=source.name,
        dtype=node.type.dtype,  # type: ignore[union-attr]
        source_ndim=source.ndim,
        shape=shape,
        offset=offset,
        # The same shape returns the input itself, where its type is the result's (a SumTo's
        # result, like a view, is never written in place: aotbuild/codegen/buffers.py).
        passthrough=offset == 0 and bool(shape) and not source.is_constant and source.type == node.type,
        target_index=f"[{index}]" if shape else "",
    )


def render_pack(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Pack)
    slots = input_slots(node)
    names = [s.name for s in slots]
    return template_op(
        "ops/pack.py.j2",
        node,
        slots,
        name="pack",
        title=f"pack({', '.join(s.describe() for s in slots)}) -> {node.type}",
        values=names,
        dtype=op.dtype,
    )


def render_expression(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Expr)
    slots = input_slots(node)
    code, intrinsics = _compiled_code(op, slots[0].ndim if slots else 0)
    return template_op(
        "ops/expression.py.j2",
        node,
        slots,
        name=op.fn,
        title=f"{op.fn}: {op.code.format(*(s.describe() for s in slots))} -> {node.type}",
        code=code.format(*(s.name for s in slots)),
        intrinsics=intrinsics,
    )


def _compiled_code(op: Expr, ndim: int) -> tuple[str, list[str]]:
    """The code compiled for ``op`` and the intrinsics it imports: its own code, but for a
    transpose by axes, which is :func:`aotbuild.compile.intrinsics.permuted` (the same view,
    without numba's run-time permutation helper and the fifty functions it types)."""
    if op.fn != "transpose" or op.code == "{0}.T":
        return op.code, []
    axes = ",".join(str(axis) for axis in transpose_permutation(op.code, ndim))
    return f'permuted({{0}}, "{axes}")', ["permuted"]


def render_scan(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Scan)
    slots = input_slots(node)
    (source,) = slots
    outer = [axis for axis in range(source.ndim) if axis != op.axis]
    return template_op(
        "ops/scan.py.j2",
        node,
        slots,
        name=f"cum{op.kind}",
        title=f"cum{op.kind}({source.describe()}, axis={op.axis}) -> {node.type}",
        kind=op.kind,
        axis=op.axis,
        source=source.name,
        outer=outer,
        index=[f"i{axis}" for axis in range(source.ndim)],
        identity="0" if op.kind == "sum" else "1",
        operator="+" if op.kind == "sum" else "*",
    )


def render_argsort(node: Node) -> OpModule:
    assert isinstance(node.op, ArgSort)
    slots = input_slots(node)
    return template_op(
        "ops/argsort.py.j2",
        node,
        slots,
        name="argsort",
        title=f"argsort rows of {slots[0].describe()} -> {node.type}",
        source=slots[0].name,
    )


#: Lanes of a weighted bincount by constant grouped values: independent chains of additions the
#: processor overlaps. 8 measured best for the radon model's 919 values in 85 runs (one chain:
#: 1.27 us, 4 lanes 0.79, 8 lanes 0.69 on a Zen 1 core); a lane gets at least LANE_VALUES values.
BINCOUNT_LANES = 8
LANE_VALUES = 64


def bincount_lanes(values: np.ndarray | None) -> list[tuple[int, int]] | None:
    """Where each lane of a weighted bincount by constant ``values`` starts and ends.

    Only for values that come in runs, one per value (sorted data, or grouped): a lane then starts
    at a run's first value and no value is added to in two lanes, so each lane keeps NumPy's order
    of additions for its values. None where there would be fewer than two lanes.
    """
    if values is None or values.ndim != 1:
        return None
    n = len(values)
    lanes = min(BINCOUNT_LANES, n // LANE_VALUES)
    if lanes < 2:
        return None
    run_starts = np.flatnonzero(np.diff(values)) + 1  # every run's but the first
    if len(run_starts) + 1 != len(np.unique(values)):
        return None  # a value in two runs
    starts = [0]
    for lane in range(1, lanes):
        run = np.searchsorted(run_starts, n * lane // lanes)  # the first run starting there or after
        if run < len(run_starts) and run_starts[run] > starts[-1]:
            starts.append(int(run_starts[run]))
    return list(itertools.pairwise([*starts, n])) if len(starts) >= 2 else None


def render_bincount(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Bincount)
    slots = input_slots(node)
    lanes = bincount_lanes(slots[0].array) if op.weighted else None
    return template_op(
        "ops/bincount.py.j2",
        node,
        slots,
        name="bincount",
        title=f"bincount({', '.join(s.describe() for s in slots)}) -> {node.type}",
        weighted=op.weighted,
        known_top=slots[0].largest_index,  # constant values: checked here, once, not at every call
        dtype="float64" if op.weighted else "int64",
        x=slots[0].name,
        minlength=slots[1].name,
        weights=slots[2].name if op.weighted else "",
        lanes=lanes,
        lane_steps=None if lanes is None else min(end - start for start, end in lanes),
    )
