"""Render indexing Ops: basic indexing (views), gathers, masks and their functional updates."""

from __future__ import annotations

from collections.abc import Iterator

from ..graph import Node
from ..graph.array_ops import (
    DYNAMIC,
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
)
from .module import OpModule, template_op
from .slots import input_slots


def _index_code(items: tuple[IndexItem, ...], dynamic: Iterator[str]) -> tuple[str, list[dict[str, object]]]:
    """The index expression, and the checks its integer indices need."""

    def entry(value: Entry) -> str:
        if value is None:
            return ""
        return next(dynamic) if value is DYNAMIC else str(value)

    parts: list[str] = []
    checks: list[dict[str, object]] = []
    axis = 0
    for item in items:
        if isinstance(item, NewAxis):
            parts.append("None")
            continue
        if isinstance(item, Squeeze):
            checks.append({"var": f"i{axis}", "value": "0", "axis": axis, "squeeze": True})
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


def render_set_index(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, SetIndex)
    slots = input_slots(node)
    base, value = slots[0], slots[1]
    index, checks = _index_code(op.items, iter(s.name for s in slots[2:]))
    title = f"{base.describe()}{index_text(op.items)} = {value.describe()} -> {node.type}"
    return template_op(
        "ops/setindex.py.j2",
        node,
        slots,
        name="setitem",
        title=title,
        base=base.name,
        checks=checks,
        index=index,
        value=value.name,
    )


def _broadcast_lines(target: str, sources: list[str], message: str) -> list[str]:
    """Lines computing ``target`` as the broadcast length of ``sources`` (NumPy's rule)."""
    if len(sources) == 1:
        return [f"{target} = {sources[0]}"]
    return [
        f"{target} = 1",
        f"for length in ({', '.join(sources)},):",
        f"    if length != {target}:",
        f"        if {target} == 1:",
        f"            {target} = length",
        "        elif length != 1:",
        f'            raise IndexError("{message}")',
    ]


def _checked_index(var: str, value: str, size: str, axis: int) -> list[str]:
    return [
        f"{var} = {value}",
        f"if {var} < 0:",
        f"    {var} += {size}",
        f"if {var} < 0 or {var} >= {size}:",
        f'    raise IndexError("index out of bounds for axis {axis}")',
    ]


def render_gather(node: Node) -> OpModule:
    op = node.op
    assert isinstance(op, Gather)
    slots = input_slots(node)
    source, indices = slots[0], slots[1:]
    ndim = source.ndim
    index_ndim = max(s.ndim for s in indices)
    setup: list[str] = []
    for d in range(index_ndim):
        aligned = [
            f"{s.name}.shape[{d - (index_ndim - s.ndim)}]" for s in indices if d >= index_ndim - s.ndim
        ]
        setup += _broadcast_lines(
            f"b{d}", aligned, "shape mismatch: indexing arrays could not be broadcast together"
        )
    steps = {}
    for k, s in enumerate(indices):
        for e in range(s.ndim):
            steps[(k, e)] = name = f"t{k}_{e}"
            setup.append(f"{name} = 0 if {s.name}.shape[{e}] == 1 else 1")
    before = [f"{source.name}.shape[{d}]" for d in range(op.axis)]
    after = [f"{source.name}.shape[{d}]" for d in range(op.axis + op.count, ndim)]
    broadcast = [f"b{d}" for d in range(index_ndim)]
    dims = before + broadcast + after
    loop_vars = [f"o{i}" for i in range(len(dims))]
    pre_vars = loop_vars[: len(before)]
    b_vars = loop_vars[len(before) : len(before) + index_ndim]
    post_vars = loop_vars[len(before) + index_ndim :]

    picks: list[str] = []
    for k, s in enumerate(indices):
        if s.ndim:
            offset = index_ndim - s.ndim
            position = ", ".join(f"{b_vars[offset + e]} * {steps[(k, e)]}" for e in range(s.ndim))
            value = f"{s.name}[{position}]"
        else:
            value = s.name
        picks += _checked_index(f"j{k}", value, f"{source.name}.shape[{op.axis + k}]", op.axis + k)

    loops = [{"var": v, "extent": extent, "after": []} for v, extent in zip(loop_vars, dims, strict=True)]
    if b_vars:
        last_b = loop_vars.index(b_vars[-1])
        loops[last_b]["after"] = picks  # the indices are known once every broadcast axis is
    else:
        setup += picks
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
        setup=setup,
        out_shape=dims,
        loops=loops,
        out_index=loop_vars,
        source_index=source_index,
    )


def render_set_gather(node: Node) -> OpModule:
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
    setup = [
        f"{name} = {extent}"
        for name, extent in zip([f"m{i}" for i in range(len(region))], region, strict=True)
    ]
    value_code = value.name
    if value.ndim:
        offset = len(region) - value.ndim
        if offset < 0:
            raise AssertionError("the tracer checks the value fits the indexed region")
        for e in range(value.ndim):
            setup += [
                f"if {value.name}.shape[{e}] != m{offset + e} and {value.name}.shape[{e}] != 1:",
                '    raise ValueError("could not broadcast the value to the indexed shape")',
                f"v{e} = 0 if {value.name}.shape[{e}] == 1 else 1",
            ]
        value_code = (
            f"{value.name}[{', '.join(f'{loop_vars[offset + e]} * v{e}' for e in range(value.ndim))}]"
        )
    index_vars = loop_vars[op.axis : op.axis + index.ndim]
    pick = _checked_index(
        "j", f"{index.name}[{', '.join(index_vars)}]" if index.ndim else index.name, "size", op.axis
    )
    loops = [{"var": v, "extent": f"m{i}", "after": []} for i, v in enumerate(loop_vars)]
    if index_vars:
        loops[loop_vars.index(index_vars[-1])]["after"] = pick
    else:
        setup += pick
    target = loop_vars[: op.axis] + ["j"] + loop_vars[op.axis + index.ndim :]
    title = f"{base.describe()}[axis {op.axis}: {index.describe()}] = {value.describe()} -> {node.type}"
    return template_op(
        "ops/setgather.py.j2",
        node,
        slots,
        name="setitem",
        title=title,
        base=base.name,
        axis=op.axis,
        setup=setup,
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
    )


def render_set_mask(node: Node) -> OpModule:
    assert isinstance(node.op, SetMask)
    slots = input_slots(node)
    base, mask, value = slots
    return template_op(
        "ops/setmask.py.j2",
        node,
        slots,
        name="setitem",
        title=f"{base.describe()}[{mask.describe()}] = {value.describe()} -> {node.type}",
        base=base.name,
        mask=mask.name,
        value=value.name,
        mask_ndim=mask.ndim,
        mask_index=[f"i{d}" for d in range(mask.ndim)],
        value_ndim=value.ndim,
    )
