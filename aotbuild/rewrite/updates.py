"""Slice assignments of elementwise values, computed straight into the slice.

``h[k] += mu * np.conj(err) * window`` is ``SetIndex(h, value, k)`` with ``value`` fused:
a new array of the slice's shape, then copied into it. When that value is the update's alone
(no other Op reads it) and has the slice's dimensions, the two become one
:class:`~aotbuild.graph.updates.FusedSetIndex`, which computes each element into the slice.

NumPy evaluates the value before it writes, so the value must not read what the write changes:
an input that is the slice itself (``h[k] += ...`` reads ``h[k]``) is read at each element before
that element is written, which gives NumPy's result; an input that may be another view of the
array updated (``u[1:] = u[:-1] * 2``) keeps the update as it was. Arrays of the caller may
alias each other in ways the graph cannot see: the fused update checks at run time that its
inputs do not overlap the slice (other than the slice itself), and computes the value into a new
array first where they may.

``z[mask] = value`` (``SetMask``) likewise becomes a :class:`~aotbuild.graph.updates.FusedSetMask`
when the mask covers every axis of ``z`` and the value is a scalar, a gather ``x[mask]`` or an
elementwise function (the update's alone) of such gathers and scalars, each ``x`` of ``z``'s
dimensions: each element ``e`` is then ``if mask(e): z[e] = value(e)``, each gather ``x[e]``.
The mask is computed at ``e`` too when it is elementwise and read by nothing else (``d[d >
half] -= length`` stores no boolean array); else it is an input. NumPy's order is kept as for
slices: ``z`` itself may be read (at ``e``, before ``e`` is written), another view of it may not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from ..codegen.buffers import makes_new_array
from ..codegen.vecmath import range_check
from ..graph import Elementwise, Graph, Node
from ..graph.array_ops import BasicIndex, MaskSelect, SetIndex, SetMask
from ..graph.fused import Fused, FusedStep
from ..graph.updates import FusedSetIndex, FusedSetMask
from ..types import Array
from .calls import node_by_node


def fuse_updates(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    """``graph`` with its slice assignments of elementwise values fused (subgraphs too)."""
    return node_by_node(graph, done, fuse_updates, "fuse-updates", _rewrite)


def _rewrite(new: Node, old: Node, uses: Counter[int], rebuilt: dict[int, Node]) -> Node:
    if isinstance(new.op, SetIndex) and uses[id(old.inputs[1])] == 1:
        return _fused_update(new)
    if isinstance(new.op, SetMask):
        return _fused_mask_update(old, uses, rebuilt) or new
    return new


def _fused_update(node: Node) -> Node:
    op = node.op
    assert isinstance(op, SetIndex)
    base, value, *indices = node.inputs
    if not isinstance(value.op, (Fused, Elementwise)) or not isinstance(value.type, Array):
        return node
    steps = value.op.steps if isinstance(value.op, Fused) else (_step(value),)
    if not _loop_steps(steps):
        return node  # gathers, rolls, vector math with a second loop: kept as they are
    target_node = Node.make(BasicIndex(op.items), (base, *indices))
    if target_node.type != getattr(value, "type", None) and (
        not isinstance(target_node.type, Array) or target_node.type.ndim != value.type.ndim
    ):
        return node  # a value broadcast into a larger slice: copied as before
    shared = _views(base)
    target = -1
    for position, item in enumerate(value.inputs):
        if item is target_node:
            target = position
        elif _may_view(item, shared):
            return node  # reads another view of what it writes
    fused = FusedSetIndex(
        op.items, steps, len(indices), target, keeps_layout=op.keeps_layout, in_order=op.in_order
    )
    return Node.make(fused, (base, *indices, *value.inputs))


def _step(node: Node) -> FusedStep:
    op = node.op
    assert isinstance(op, Elementwise)
    ndims = tuple(getattr(item.type, "ndim", 0) for item in node.inputs)
    return FusedStep(op.fn, op.in_dtypes, op.out_dtype, tuple(range(len(node.inputs))), ndims)


def _views(base: Node) -> set[str]:
    """``base``'s key and those of the arrays it may be a view of (a view of a view is the same
    memory)."""
    keys = {base.key}
    stack = [base]
    while stack:
        node = stack.pop()
        if not makes_new_array(node):
            for item in node.inputs:
                if isinstance(item.type, Array) and item.key not in keys:
                    keys.add(item.key)
                    stack.append(item)
    return keys


def _may_view(item: Node, shared: set[str]) -> bool:
    """Whether ``item`` may share memory with one of ``shared``: it is one, or a view of one."""
    if item.key in shared:
        return True
    if makes_new_array(item) or not isinstance(item.type, Array):
        return False
    return any(_may_view(source, shared) for source in item.inputs)


#: An argument of the fused steps: an input node, or the result of step ``j`` (an int).
_Ref = Node | int


def _fused_mask_update(node: Node, uses: Counter[int], rebuilt: dict[int, Node]) -> Node | None:
    """The :class:`FusedSetMask` of ``node``, a ``SetMask`` of the graph being rewritten (its
    inputs are the rebuilt nodes of ``rebuilt``); None where it does not fuse."""
    op = node.op
    assert isinstance(op, SetMask)
    base, mask, value = node.inputs
    if not (isinstance(base.type, Array) and isinstance(mask.type, Array) and base.type.ndim > 0):
        return None
    if mask.type.ndim != base.type.ndim or mask.type.dtype != "bool" or value.type.dtype != base.type.dtype:  # type: ignore[union-attr]
        return None  # a mask over leading axes only: rows selected, as before
    ndim = base.type.ndim
    shared = _views(base)

    def readable(item: Node) -> bool:
        """An array read at each element: ``z`` itself, or one that cannot be a view of it."""
        return item is base or not _may_view(item, shared)

    # The value: a scalar, a gather x[mask], or elementwise steps of such gathers and scalars.
    gathers: list[Node] = []

    def gathered(item: Node) -> bool:
        if not isinstance(item.type, Array):
            return True
        source = item.inputs[0] if isinstance(item.op, MaskSelect) else None
        if source is None or item.inputs[1] is not mask or getattr(source.type, "ndim", 0) != ndim:
            return False
        gathers.append(item)
        return readable(source)

    if isinstance(value.op, (Fused, Elementwise)) and isinstance(value.type, Array):
        if uses[id(value)] != 1 or not _loop_steps(_steps_of(value)):
            return None
        if not all(map(gathered, dict.fromkeys(value.inputs))):
            return None
    elif not gathered(value):
        return None
    # The mask: computed at each element if elementwise and read by nothing else, else an input.
    inline_mask = (
        isinstance(mask.op, (Fused, Elementwise))
        and uses[id(mask)] == 1 + len(gathers)
        and all(uses[id(item)] == 1 for item in gathers)
        and _loop_steps(_steps_of(mask))
        and all(_scalar(item) or (item.type.ndim == ndim and readable(item)) for item in mask.inputs)  # type: ignore[union-attr]
    )
    if not inline_mask and not readable(mask):
        return None

    inputs: list[Node] = [base]
    steps_out: list[tuple[FusedStep, tuple[_Ref, ...]]] = []

    def source(item: Node) -> _Ref:
        return item.inputs[0] if isinstance(item.op, MaskSelect) else item

    def inlined(top: Node, reads: list[_Ref]) -> _Ref:
        """``top``'s steps appended, their arguments the ``reads`` of its inputs: its result."""
        start = len(steps_out)
        for step in _steps_of(top):
            args = tuple(reads[a] if a < len(reads) else start + a - len(reads) for a in step.args)
            steps_out.append((step, args))
        return len(steps_out) - 1

    mask_ref = inlined(mask, list(mask.inputs)) if inline_mask else mask
    if isinstance(value.op, (Fused, Elementwise)) and isinstance(value.type, Array):
        value_ref = inlined(value, [source(item) for item in value.inputs])
    else:
        value_ref = source(value)
    for ref in [*(a for _, args in steps_out for a in args), mask_ref, value_ref]:
        if isinstance(ref, Node) and all(ref is not item for item in inputs):
            inputs.append(ref)

    def number(ref: _Ref) -> int:
        if isinstance(ref, int):
            return len(inputs) + ref
        return next(k for k, item in enumerate(inputs) if item is ref)

    steps = tuple(replace(step, args=tuple(number(a) for a in args)) for step, args in steps_out)
    fused = FusedSetMask(steps, number(mask_ref), number(value_ref), keeps_layout=op.keeps_layout)
    return Node.make(fused, tuple(rebuilt[id(item)] for item in inputs))


def _scalar(node: Node) -> bool:
    return not isinstance(node.type, Array)


def _steps_of(node: Node) -> tuple[FusedStep, ...]:
    return node.op.steps if isinstance(node.op, Fused) else (_step(node),)


def _loop_steps(steps: tuple[FusedStep, ...]) -> bool:
    """Whether ``steps`` compute each element from the inputs at that element alone, in one
    loop that cannot stop half way: no gathers or rolls (read elsewhere), no vector math whose
    range is checked (those loops run again with the C library's functions, see
    aotbuild/codegen/elementwise.py), no integer power (NumPy raises for a negative exponent
    before it writes anything; a masked update would compute it where the mask is False too)."""
    return not any(
        step.fn in ("take", "roll")
        or any(range_check(step.fn, dtype) for dtype in step.in_dtypes)
        or (step.fn == "power" and any(np.dtype(dtype).kind == "i" for dtype in step.in_dtypes))
        for step in steps
    )
