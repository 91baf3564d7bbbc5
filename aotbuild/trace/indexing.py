"""Indexing traced arrays: ``a[...]`` reads and ``a[...] = v`` functional updates.

Basic indexing (integers, slices, ``None``, ``...``) is a view. Integer arrays gather (a copy),
boolean masks select (a copy whose length is known only at run time), as ``np.nonzero`` does.
Integers known at trace time stay parameters of the Op; integers computed from sizes become
run-time inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph import Node
from ..graph.array_ops import (
    DYNAMIC,
    BasicIndex,
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
)
from .operands import Operand, as_operand, constant_node, integer_entry
from .ufuncs import KERNEL_HINT, apply_cast

WHOLE = IndexSlice(None, None, None)


def _entry(value: object, what: str) -> Any:
    """A slice bound or an integer index: an int, None, or the node computing it at run time."""
    if value is None:
        return None
    known, node = integer_entry(value, what)
    return known if node is None else node


def _freeze(items: Sequence[IndexItem]) -> tuple[tuple[IndexItem, ...], tuple[Node, ...]]:
    """Items with run-time values replaced by DYNAMIC, and those values' nodes in order."""
    nodes: list[Node] = []

    def spec(value: Any) -> Any:
        if isinstance(value, Node):
            nodes.append(value)
            return DYNAMIC
        return value

    frozen: list[IndexItem] = []
    for item in items:
        if isinstance(item, IndexInt):
            frozen.append(IndexInt(spec(item.value)))
        elif isinstance(item, IndexSlice):
            frozen.append(IndexSlice(spec(item.start), spec(item.stop), spec(item.step)))
        else:
            frozen.append(item)
    return tuple(frozen), tuple(nodes)


def _index_operand(item: object) -> Operand | None:
    """The operand of an array used as an index (a tracer, an ndarray or a list), else None."""
    from .tracer import Tracer

    if isinstance(item, Tracer) and item.ndim > 0:
        return item.operand
    if isinstance(item, (np.ndarray, list)):
        return as_operand(np.asarray(item))
    return None


@dataclass(frozen=True)
class _Parsed:
    items: list[IndexItem]
    """One item per axis of the result's source (``...`` expanded); arrays become whole slices."""

    arrays: dict[int, Operand]
    """Integer index arrays by position in ``items``."""

    mask: Operand | None


def _parse(key: object, ndim: int) -> _Parsed:
    from .tracer import Tracer

    raw = key if isinstance(key, tuple) else (key,)
    if sum(1 for item in raw if item is Ellipsis) > 1:
        raise TraceError("an index can only have a single ellipsis ('...')")
    operands = [_index_operand(item) for item in raw]
    consuming = sum(
        (op.ndim if op is not None and op.dtype == bool else 1)
        for item, op in zip(raw, operands, strict=True)
        if item is not None and item is not Ellipsis
    )
    if consuming > ndim:
        raise TraceError(
            f"too many indices for array: array is {ndim}-dimensional, but {consuming} were indexed"
        )
    items: list[IndexItem] = []
    arrays: dict[int, Operand] = {}
    mask: Operand | None = None
    for item, operand in zip(raw, operands, strict=True):
        if item is Ellipsis:
            items.extend([WHOLE] * (ndim - consuming))
        elif item is None:
            items.append(NewAxis())
        elif isinstance(item, slice):
            step = _entry(item.step, "a slice step")
            if step == 0:
                raise TraceError("slice step cannot be zero")
            items.append(
                IndexSlice(_entry(item.start, "a slice start"), _entry(item.stop, "a slice stop"), step)
            )
        elif operand is not None and operand.dtype == bool:
            if items or mask is not None:
                raise TraceError(
                    f"a boolean mask is supported as the first index only (a[mask, ...]); {KERNEL_HINT}"
                )
            mask = operand
            items.extend([WHOLE] * operand.ndim)
        elif operand is not None:
            if operand.dtype.kind not in "iu":
                raise TraceError(
                    f"arrays used as indices must be of integer or boolean type, not {operand.dtype}"
                )
            arrays[len(items)] = operand
            items.append(WHOLE)
        elif isinstance(item, (Tracer, int, np.integer)):
            items.append(IndexInt(_entry(item, "an index")))
        else:
            raise TraceError(
                "only integers, slices, None, ..., and integer or boolean arrays are valid indices, "
                f"got {item!r}"
            )
    consumed = sum(1 for item in items if not isinstance(item, NewAxis))
    items.extend([WHOLE] * (ndim - consumed))
    return _Parsed(items, arrays, mask)


def view(source: Operand, items: Sequence[IndexItem]) -> Operand:
    """``source`` indexed by basic ``items`` (one per axis, plus new axes): a view."""
    if all(item == WHOLE for item in items):
        return source
    spec, nodes = _freeze(items)
    if source.constant is not None and not nodes:
        array = source.constant.array
        axes = [
            axis
            for axis, item in enumerate(i for i in spec if not isinstance(i, NewAxis))
            if isinstance(item, Squeeze)
        ]
        if any(array.shape[axis] != 1 for axis in axes):
            raise TraceError("cannot select an axis to squeeze out which has size not equal to one")
        return as_operand(array[_numpy_index(spec)])
    return Operand(Node.make(BasicIndex(spec), (source.node, *nodes)))


def _numpy_index(items: tuple[IndexItem, ...]) -> tuple[Any, ...]:
    result: list[Any] = []
    for item in items:
        if isinstance(item, NewAxis):
            result.append(None)
        elif isinstance(item, IndexInt):
            result.append(item.value)
        elif isinstance(item, Squeeze):
            result.append(0)
        else:
            result.append(slice(item.start, item.stop, item.step))
    return tuple(result)


def getitem(source: Operand, key: object) -> Operand:
    return subscript(source, key)[0]


def subscript(source: Operand, key: object) -> tuple[Operand, bool]:
    """``source[key]``, and whether NumPy returns it as a view of ``source``.

    Basic indexing gives a view (``a[:]`` and ``a[...]`` too, though the value is ``source``
    itself), except where every axis gets an integer: that is a scalar, a copy. Gathers and
    masks are copies.
    """
    if source.ndim == 0:
        raise TraceError("a traced scalar cannot be indexed")
    parsed = _parse(key, source.ndim)
    if parsed.mask is not None:
        if any(item != WHOLE for item in parsed.items):
            raise TraceError(f"a boolean mask is supported alone (a[mask], a[mask, ...]); {KERNEL_HINT}")
        return Operand(Node.make(MaskSelect(), (source.node, parsed.mask.node))), False
    if not parsed.arrays:
        result = view(source, parsed.items)
        return result, result.ndim > 0
    return _gather(source, parsed), False


def _gather(source: Operand, parsed: _Parsed) -> Operand:
    """Advanced indexing. With an index array present, integers are advanced indices too: each
    is a 0-d index, broadcast with the arrays. Every remaining item keeps one axis of the view."""
    items = list(parsed.items)
    indices: dict[int, Node] = {position: array.node for position, array in parsed.arrays.items()}
    for position, item in enumerate(items):
        if isinstance(item, IndexInt):
            value = item.value
            indices[position] = value if isinstance(value, Node) else constant_node(np.int64(value))  # type: ignore[arg-type]
            items[position] = WHOLE
    selected = view(source, items)
    axes = sorted(indices)
    if axes != list(range(axes[0], axes[0] + len(axes))):
        # Advanced indices separated by a slice or None: NumPy puts their dimensions first.
        from .movement import transpose

        rest = [axis for axis in range(selected.ndim) if axis not in axes]
        selected = transpose(selected, tuple(axes + rest))
        indices = {new: indices[old] for new, old in enumerate(axes)}
        axes = list(range(len(axes)))
    return Operand(Node.make(Gather(axes[0], len(axes)), (selected.node, *(indices[a] for a in axes))))


def nonzero(source: Operand) -> tuple[Operand, ...]:
    """``np.nonzero(a)`` (and ``np.where(a)``): for each axis, the int64 indices along it of the
    entries that are not zero, in C order; their length is known only at run time. Each is that
    axis's ``arange`` broadcast to ``a``'s shape, selected by ``a != 0`` as ``x[mask]`` selects."""
    from .creation import arange
    from .movement import broadcast_to, dims
    from .ufuncs import apply_ufunc

    if source.ndim == 0:
        raise TraceError(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead."
        )
    if source.constant is not None:
        return tuple(as_operand(indices) for indices in np.nonzero(source.constant.array))
    mask = source if source.dtype == bool else apply_ufunc(np.not_equal, (source, 0), {})
    sizes = dims(source)
    result = []
    for axis in range(source.ndim):
        spread = [NewAxis()] * axis + [WHOLE] + [NewAxis()] * (source.ndim - axis - 1)
        along = view(arange(sizes[axis]), spread)
        indices = broadcast_to(along, sizes)
        result.append(Operand(Node.make(MaskSelect(), (indices.node, mask.node))))
    return tuple(result)


def take(source: Operand, indices: object, axis: object = None) -> Operand:
    from .movement import ravel
    from .tracer import Tracer

    index = as_operand(np.asarray(indices) if isinstance(indices, list) else indices)
    if index.dtype.kind not in "iu":
        raise TraceError("np.take needs integer indices")
    if axis is None:
        source, axis = ravel(source), 0
    if not isinstance(axis, (int, np.integer)) or not -source.ndim <= axis < source.ndim:
        raise TraceError(f"axis {axis} is out of bounds for array of dimension {source.ndim}")
    return getitem(source, (slice(None),) * (int(axis) % source.ndim) + (Tracer(index),))


def setitem(base: Operand, key: object, value: object) -> Operand:
    """The new value of ``base`` after ``base[key] = value`` (``base`` itself is not changed)."""
    parsed = _parse(key, base.ndim)
    new = as_operand(value)
    if new.dtype != base.dtype:
        new = apply_cast(new, base.dtype)
    if parsed.mask is not None:
        if any(item != WHOLE for item in parsed.items):
            raise TraceError(
                f"assigning through a boolean mask is supported as z[mask] = value only; {KERNEL_HINT}"
            )
        if new.ndim > 1 or (new.ndim == 1 and parsed.mask.ndim != base.ndim):
            raise TraceError(
                "z[mask] = value takes a scalar value, or a 1-d array with one entry per True when the "
                f"mask covers every axis; {KERNEL_HINT}"
            )
        return Operand(Node.make(SetMask(), (base.node, parsed.mask.node, new.node)))
    if parsed.arrays:
        (position, index), *others = parsed.arrays.items()
        if others or any(item != WHOLE for p, item in enumerate(parsed.items) if p != position):
            raise TraceError(
                "assigning through integer arrays is supported with one index array and whole axes "
                f"elsewhere (z[idx] = v, z[:, idx] = v); {KERNEL_HINT}"
            )
        if new.ndim > base.ndim - 1 + index.ndim:
            raise TraceError(f"could not broadcast a {new.ndim}-d value into the indexed region")
        return Operand(Node.make(SetGather(position), (base.node, index.node, new.node)))
    if any(isinstance(item, NewAxis) for item in parsed.items):
        raise TraceError(f"assigning through None/np.newaxis is not supported; {KERNEL_HINT}")
    spec, nodes = _freeze(parsed.items)
    return Operand(Node.make(SetIndex(spec), (base.node, new.node, *nodes)))
