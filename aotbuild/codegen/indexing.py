"""Render indexing Ops: basic indexing (views), gathers, masks and their functional updates."""

from __future__ import annotations

from collections.abc import Iterator

from ..graph import Node
from ..graph.array_ops import (
    BasicIndex,
    Entry,
    Gather,
    IndexInt,
    IndexItem,
    IndexSlice,
    MaskSelect,
    NewAxis,
    SetGather,
    SetIndex,
    SetMask,
    Squeeze,
    index_text,
    trimmed,
)
from .module import OpModule, template_op
from .slots import Slot, entry_text, input_slots


def _index_code(items: tuple[IndexItem, ...], dynamic: Iterator[str]) -> tuple[str, list[dict[str, object]]]:
    """The index expression, and the checks its integer indices need."""

    def entry(value: Entry) -> str:
        return "" if value is None else entry_text(value, dynamic)

    parts: list[str] = []
    checks: list[dict[str, object]] = []
    axis = 0
    for item in trimmed(items):  # as BasicIndex.keeps_contiguity reads them
        if isinstance(item, NewAxis):
            parts.append("None")
            continue
        if isinstance(item, Squeeze):
            checks.append({"axis": axis, "squeeze": True})
            parts.append("0")
        elif isinstance(item, IndexInt):
            var = f"i{axis}"
            checks.append({"var": var, "value": entry(item.value), "axis": axis, "squeeze": False})
            parts.append(var)
        else:
            assert isinstance(item, IndexSlice)
            text = f"{entry(item.start)}:{entry(item.stop)}"
            if item.step is not None:
                text += f":{entry(item.step)}"
            parts.append(text)
        axis += 1
    return ", ".join(parts) if parts else "()", checks


def render_basic_index(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, BasicIndex)
    slots = input_slots(node)
    index, checks = _index_code(op.items, iter(s.name for s in slots[1:]))
    title = f"{slots[0].describe()}{index_text(op.items)} -> {node.type}"
    return template_op(
        "ops/index.py.j2",
        node,
        slots,
        name="index",
        title=title,
        source=slots[0].name,
        checks=checks,
        index=index,
    )


def _update_op(
    template: str, node: Node, slots: list[Slot], title: str, inplace: Node | None, **context: object
) -> OpModule:
    """A functional update ``base[...] = value``: into a copy of the base, or, with ``inplace``
    (the base, a temporary of the graph that dies here), into the base itself."""
    written = inplace is not None
    return template_op(
        template,
        node,
        slots,
        inplace=written,
        name="setitem_inplace" if written else "setitem",
        title=f"{title}, in place" if written else title,
        **context,
    )


def render_set_index(node: Node, inplace: Node | None = None) -> OpModule:
    """``inplace``: the base, a temporary that dies here, written into instead of a copy."""
    op = node.op
    assert isinstance(op, SetIndex)
    slots = input_slots(node)
    base, value = slots[0], slots[1]
    index, checks = _index_code(op.items, iter(s.name for s in slots[2:]))
    title = f"{base.describe()}{index_text(op.items)} = {value.describe()} -> {node.type}"
    view_ndim = base.ndim - sum(isinstance(item, (IndexInt, Squeeze)) for item in op.items)
    copy = None
    if 0 < value.ndim <= view_ndim:
        # an array value: copied by a loop nest, with NumPy's broadcasting of the value (numba's
        # array assignment compiles its broadcasting machinery: 3-5 s in each compile worker)
        loop_vars = [f"r{d}" for d in range(view_ndim)]
        extents = [f"view.shape[{d}]" for d in range(view_ndim)]
        steps, read = _broadcast_value(value, loop_vars, extents)
        loops, _ = _loop_nest(loop_vars, extents, [], None)
        copy = {"steps": steps, "loops": loops, "target": ", ".join(loop_vars), "read": read}
    return _update_op(
        "ops/setindex.py.j2",
        node,
        slots,
        title,
        inplace,
        base=base.name,
        checks=checks,
        index=index,
        value=value.name,
        copy=copy,
    )


def _broadcast_value(
    value: Slot, loop_vars: list[str], extents: list[str]
) -> tuple[list[dict[str, str]], str]:
    """An array value broadcast into a region (NumPy's rule: its axes are the region's last),
    read by the region's loop variables: the steps (0 along an axis of length 1, checked against
    the region's ``extents``) and the index the value is read at."""
    offset = len(loop_vars) - value.ndim
    if offset < 0:
        raise AssertionError("the tracer checks the value fits the indexed region")
    steps = [
        {"name": f"v{e}", "length": f"{value.name}.shape[{e}]", "extent": extents[offset + e]}
        for e in range(value.ndim)
    ]
    return steps, ", ".join(f"{loop_vars[offset + e]} * v{e}" for e in range(value.ndim))


def _checked_index(
    var: str, value: str, size: str, axis: int, source: Slot | None = None
) -> dict[str, object]:
    """An integer index for ``checked_index`` in ``templates/ops/_checks.j2``, ``value`` an entry of
    ``source``. When that is a constant of non-negative indices, ``top`` is its largest entry: the
    Op checks it against ``size`` once (``known_bound``), and the loop reads indices unchecked, a
    loop LLVM can vectorise (the radon model's gathers of 919 county indices: 0.85 -> 0.66 us)."""
    top = None if source is None else source.largest_index
    return {"var": var, "value": value, "size": size, "axis": axis, "top": top}


def _bounds(picks: list[dict[str, object]]) -> list[dict[str, object]]:
    """The picks whose bound is checked once, before the loops."""
    return [pick for pick in picks if pick["top"] is not None and pick["top"] >= 0]  # type: ignore[operator]


def _loop_nest(
    loop_vars: list[str], extents: list[str], picks: list[dict[str, object]], known_in: str | None
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The loops for ``loop_nest`` in ``templates/ops/_loops.j2``, and the picks made before them.

    The picks read the loop variables up to ``known_in``: they are made at the top of its loop,
    once per value they can take, or before the loops when ``known_in`` is None.
    """
    loops: list[dict[str, object]] = [
        {"var": var, "extent": extent, "after": picks if var == known_in else []}
        for var, extent in zip(loop_vars, extents, strict=True)
    ]
    return loops, picks if known_in is None else []


def render_gather(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Gather)
    slots = input_slots(node)
    source, indices = slots[0], slots[1:]
    ndim = source.ndim
    index_ndim = max(s.ndim for s in indices)
    broadcast = [
        {
            "target": f"b{d}",
            "sources": [
                f"{s.name}.shape[{d - (index_ndim - s.ndim)}]" for s in indices if d >= index_ndim - s.ndim
            ],
        }
        for d in range(index_ndim)
    ]
    steps = {}  # (index input, its axis) -> step, where another index input spans the axis too
    for k, s in enumerate(indices):
        for e in range(s.ndim):
            if len(broadcast[index_ndim - s.ndim + e]["sources"]) > 1:
                steps[(k, e)] = {"name": f"t{k}_{e}", "length": f"{s.name}.shape[{e}]"}
    before = [f"{source.name}.shape[{d}]" for d in range(op.axis)]
    after = [f"{source.name}.shape[{d}]" for d in range(op.axis + op.count, ndim)]
    dims = before + [f"b{d}" for d in range(index_ndim)] + after
    loop_vars = [f"o{i}" for i in range(len(dims))]
    pre_vars = loop_vars[: len(before)]
    b_vars = loop_vars[len(before) : len(before) + index_ndim]
    post_vars = loop_vars[len(before) + index_ndim :]

    picks = []
    for k, s in enumerate(indices):
        if s.ndim:
            offset = index_ndim - s.ndim
            position = ", ".join(
                f"{b_vars[offset + e]} * {steps[(k, e)]['name']}" if (k, e) in steps else b_vars[offset + e]
                for e in range(s.ndim)
            )
            value = f"{s.name}[{position}]"
        else:
            value = s.name
        picks.append(_checked_index(f"j{k}", value, f"{source.name}.shape[{op.axis + k}]", op.axis + k, s))

    bounds = _bounds(picks)
    loops, picks = _loop_nest(loop_vars, dims, picks, b_vars[-1] if b_vars else None)
    source_index = pre_vars + [f"j{k}" for k in range(op.count)] + post_vars
    title = f"gather {source.describe()} by {', '.join(s.describe() for s in indices)} -> {node.type}"
    return template_op(
        "ops/gather.py.j2",
        node,
        slots,
        name="gather",
        title=title,
        source=source.name,
        count=op.count,
        first_axis=op.axis,
        broadcast=broadcast,
        steps=list(steps.values()),
        bounds=bounds,
        # NumPy checks no index when the indices broadcast to nothing (x[[], [5]] is empty)
        bounds_guard=" * ".join(f"b{d}" for d in range(index_ndim)) if op.count > 1 else None,
        picks=picks,
        out_shape=dims,
        loops=loops,
        out_index=loop_vars,
        source_index=source_index,
    )


def render_set_gather(node: Node, inplace: Node | None = None) -> OpModule:
    """``inplace``: the base, a temporary that dies here, written into instead of a copy."""
    op = node.op
    assert isinstance(op, SetGather)
    slots = input_slots(node)
    base, index, value = slots
    ndim = base.ndim
    region = (
        [f"{base.name}.shape[{d}]" for d in range(op.axis)]
        + [f"{index.name}.shape[{e}]" for e in range(index.ndim)]
        + [f"{base.name}.shape[{d}]" for d in range(op.axis + 1, ndim)]
    )
    loop_vars = [f"r{i}" for i in range(len(region))]
    extents = [f"m{i}" for i in range(len(region))]
    value_steps: list[dict[str, str]] = []
    value_code = value.name
    if value.ndim:
        value_steps, read = _broadcast_value(value, loop_vars, extents)
        value_code = f"{value.name}[{read}]"
    index_vars = loop_vars[op.axis : op.axis + index.ndim]
    picks = [
        _checked_index(
            "j",
            f"{index.name}[{', '.join(index_vars)}]" if index.ndim else index.name,
            "size",
            op.axis,
            index,
        )
    ]
    bounds = _bounds(picks)
    loops, picks = _loop_nest(loop_vars, extents, picks, index_vars[-1] if index_vars else None)
    target = loop_vars[: op.axis] + ["j"] + loop_vars[op.axis + index.ndim :]
    title = f"{base.describe()}[axis {op.axis}: {index.describe()}] = {value.describe()} -> {node.type}"
    return _update_op(
        "ops/setgather.py.j2",
        node,
        slots,
        title,
        inplace,
        base=base.name,
        axis=op.axis,
        extents=[{"name": name, "length": length} for name, length in zip(extents, region, strict=True)],
        value_steps=value_steps,
        bounds=bounds,
        picks=picks,
        loops=loops,
        target_index=target,
        value=value_code,
    )


def render_mask(node: Node) -> OpModule:
    assert isinstance(node.op, MaskSelect)
    slots = input_slots(node)
    source, mask = slots
    rest = [f"{source.name}.shape[{d}]" for d in range(mask.ndim, source.ndim)]
    return template_op(
        "ops/mask.py.j2",
        node,
        slots,
        name="mask",
        title=f"{source.describe()}[{mask.describe()}] -> {node.type}",
        source=source.name,
        mask=mask.name,
        mask_ndim=mask.ndim,
        mask_index=[f"i{d}" for d in range(mask.ndim)],
        rest_shape=rest,
        rest_axes=list(range(mask.ndim, source.ndim)),
        rest_index=[f"j{d}" for d in range(source.ndim - mask.ndim)],
    )


def render_set_mask(node: Node, inplace: Node | None = None) -> OpModule:
    """``inplace``: the base, a temporary that dies here, written into instead of a copy."""
    assert isinstance(node.op, SetMask)
    slots = input_slots(node)
    base, mask, value = slots
    return _update_op(
        "ops/setmask.py.j2",
        node,
        slots,
        f"{base.describe()}[{mask.describe()}] = {value.describe()} -> {node.type}",
        inplace,
        base=base.name,
        mask=mask.name,
        value=value.name,
        mask_ndim=mask.ndim,
        mask_index=[f"i{d}" for d in range(mask.ndim)],
        value_ndim=value.ndim,
    )
