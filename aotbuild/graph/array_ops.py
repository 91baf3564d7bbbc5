"""Ops that build, select and move array data: indexing, views, functional updates, creation.

Sizes are only known at run time, so an Op's parameters mix constants with *dynamic* entries
(:data:`DYNAMIC`) whose values come from scalar inputs, in order, after the Op's array inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..types import Array, Result, Scalar, Value, value_of
from .ops import Op


class _Dynamic:
    """Marks a parameter whose value is a run-time scalar input of the node."""

    def __repr__(self) -> str:
        return "?"


DYNAMIC = _Dynamic()

Entry = int | None | _Dynamic


@dataclass(frozen=True)
class IndexInt:
    """An integer index (checked against the axis length, negative counts from the end)."""

    value: int | _Dynamic


@dataclass(frozen=True)
class IndexSlice:
    start: Entry
    stop: Entry
    step: Entry


@dataclass(frozen=True)
class NewAxis:
    """``None`` / ``np.newaxis``: a new axis of length 1."""


@dataclass(frozen=True)
class Squeeze:
    """An axis dropped by ``np.squeeze``: it must have length 1 (else ValueError, as NumPy)."""


IndexItem = IndexInt | IndexSlice | NewAxis | Squeeze


def index_text(items: tuple[IndexItem, ...]) -> str:
    """``[1:?, ::-1, None, ?]``-style text for keys and titles (``?`` is a run-time value)."""

    def entry(value: Entry) -> str:
        return "" if value is None else repr(value)

    parts = []
    for item in items:
        if isinstance(item, IndexInt):
            parts.append(repr(item.value))
        elif isinstance(item, NewAxis):
            parts.append("None")
        elif isinstance(item, Squeeze):
            parts.append("squeeze")
        else:
            text = f"{entry(item.start)}:{entry(item.stop)}"
            if item.step is not None:
                text += f":{entry(item.step)}"
            parts.append(text)
    return "[" + ", ".join(parts) + "]"


def indexed_ndim(ndim: int, items: tuple[IndexItem, ...]) -> int:
    consumed = sum(1 for item in items if not isinstance(item, NewAxis))
    kept = sum(1 for item in items if isinstance(item, IndexSlice))
    added = sum(1 for item in items if isinstance(item, NewAxis))
    return ndim - consumed + kept + added


def trimmed(items: tuple[IndexItem, ...]) -> list[IndexItem]:
    """``items`` without trailing whole slices (one item kept): the same view, which numba types
    C-contiguous where the full index is not (``w[i]``, not ``w[i, :, :]``)."""
    kept = list(items)
    while len(kept) > 1 and kept[-1] == IndexSlice(None, None, None):
        kept.pop()
    return kept


@dataclass(frozen=True)
class BasicIndex(Op):
    """``a[1:, ::-1, None, i]``: a view (or, when every axis gets an integer, a scalar).

    ``items`` covers every axis of ``a`` (an Ellipsis is expanded while tracing).
    """

    items: tuple[IndexItem, ...]

    @property
    def name(self) -> str:
        return "index"

    @property
    def key(self) -> str:
        return f"BasicIndex{index_text(self.items)}"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        source = inputs[0]
        assert isinstance(source, Array)
        ndim = indexed_ndim(source.ndim, self.items)
        return value_of(source.dtype, ndim, "C" if source.layout == "C" and self.keeps_contiguity else "A")

    @property
    def keeps_contiguity(self) -> bool:
        """Whether the view of a C-contiguous array is C-contiguous: integers, then at most one
        slice without a step, then whole axes (``w[i]``, ``x[2:5]``, ``b[i, :]``). numba types the
        generated index (trailing whole slices dropped) so too, and loops over it vectorise."""
        items = trimmed(self.items)
        leading = 0
        while leading < len(items) and isinstance(items[leading], IndexInt):
            leading += 1
        rest = items[leading:]
        return not rest or (len(rest) == 1 and isinstance(rest[0], IndexSlice) and rest[0].step is None)


@dataclass(frozen=True)
class Gather(Op):
    """Integer-array indexing of ``count`` consecutive axes starting at ``axis``.

    Inputs: the array, then ``count`` index arrays or integers, broadcast together; their
    broadcast dimensions replace the indexed axes. (Advanced indices that NumPy separates are
    moved to the front by a transpose first, which is where NumPy puts their dimensions.)
    """

    axis: int
    count: int

    @property
    def name(self) -> str:
        return "gather"

    @property
    def key(self) -> str:
        return f"Gather(axis={self.axis}, count={self.count})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        source = inputs[0]
        assert isinstance(source, Array)
        index_ndim = max(getattr(t, "ndim", 0) for t in inputs[1:])
        return value_of(source.dtype, source.ndim - self.count + index_ndim, "C")


@dataclass(frozen=True)
class MaskSelect(Op):
    """``a[mask]`` with a boolean mask over the leading axes: a copy, its length known at run time."""

    @property
    def name(self) -> str:
        return "mask"

    @property
    def key(self) -> str:
        return "MaskSelect()"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        source, mask = inputs
        assert isinstance(source, Array) and isinstance(mask, Array)
        return value_of(source.dtype, source.ndim - mask.ndim + 1, "C")


class _NewArray(Op):
    """An Op whose result is a new C-ordered array of its first input's type."""

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        source = inputs[0]
        assert isinstance(source, Array)
        return source.with_layout("C")


@dataclass(frozen=True)
class _Shaped(Op):
    """An Op whose result has its first input's dtype and the Op's ``shape`` (C-ordered)."""

    shape: tuple[int | _Dynamic, ...]

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        source = inputs[0]
        assert isinstance(source, (Array, Scalar))
        return value_of(source.dtype, len(self.shape), "C")


@dataclass(frozen=True)
class _Update(_NewArray):
    """``z[...] = value``: a new array, or ``z`` itself where the update is done in place.

    ``keeps_layout``: an update of an array a kernel's region writes into
    (:mod:`aotbuild.trace.regions`), whose result has that array's own layout — it is that array
    when written in place, and any array converts to its layout otherwise.
    """

    keeps_layout: bool = field(default=False, kw_only=True)

    in_order: bool = field(default=False, kw_only=True)
    """Written element by element in order, each element's inputs read just before it is
    written, with no check for overlap: a ufunc's loop for NumPy's reduce and accumulate, whose
    output is read back as it is written (see :mod:`aotbuild.trace.ufunc_loops`)."""

    @property
    def name(self) -> str:
        return "setitem"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return inputs[0] if self.keeps_layout else super().result_type(inputs)

    def _keyed(self, key: str) -> str:
        key = f"{key}~layout" if self.keeps_layout else key
        return f"{key}~in_order" if self.in_order else key


@dataclass(frozen=True)
class SetIndex(_Update):
    """``z[items] = value`` as a new array (inputs: z, value, run-time index values)."""

    items: tuple[IndexItem, ...]

    @property
    def key(self) -> str:
        return self._keyed(f"SetIndex{index_text(self.items)}")


@dataclass(frozen=True)
class SetGather(_Update):
    """``z[idx] = value`` with an integer array along ``axis``, as a new array (later writes win)."""

    axis: int

    @property
    def key(self) -> str:
        return self._keyed(f"SetGather(axis={self.axis})")


@dataclass(frozen=True)
class SetMask(_Update):
    """``z[mask] = value`` as a new array; ``value`` is a scalar or has one entry per True."""

    @property
    def key(self) -> str:
        return self._keyed("SetMask()")


@dataclass(frozen=True)
class Reshape(_Shaped):
    """``a.reshape(shape)``: a view of C-ordered data, else a C-ordered copy (as NumPy)."""

    @property
    def name(self) -> str:
        return "reshape"

    @property
    def key(self) -> str:
        return f"Reshape({list(self.shape)})"


@dataclass(frozen=True)
class BroadcastTo(_Shaped):
    """``np.broadcast_to(a, shape)`` (a copy: numba's view of it is read-only)."""

    @property
    def name(self) -> str:
        return "broadcast_to"

    @property
    def key(self) -> str:
        return f"BroadcastTo({list(self.shape)})"


@dataclass(frozen=True)
class SumTo(_Shaped):
    """The sum of an array down to ``shape``, which broadcasts to it: leading axes summed away,
    and each axis of length 1 in ``shape`` summed over (a gradient through broadcasting)."""

    @property
    def name(self) -> str:
        return "sum_to"

    @property
    def key(self) -> str:
        return f"SumTo({list(self.shape)})"


@dataclass(frozen=True)
class Pack(Op):
    """A 1-d array of its scalar inputs: ``np.stack([s0, s1])``, ``[s]`` in ``concatenate``."""

    dtype: str

    @property
    def name(self) -> str:
        return "pack"

    @property
    def key(self) -> str:
        return f"Pack({self.dtype})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return Array(self.dtype, 1, "C")


@dataclass(frozen=True)
class Bincount(Op):
    """``np.bincount(x, minlength=m)`` (inputs x, m), or with ``weights`` (inputs x, m, w): per
    value of x its count (int64), or the sum of its weights (float64) added in order."""

    weighted: bool

    @property
    def name(self) -> str:
        return "bincount"

    @property
    def key(self) -> str:
        return f"Bincount(weighted={self.weighted})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return Array("float64" if self.weighted else "int64", 1, "C")


@dataclass(frozen=True)
class Scan(_NewArray):
    """``np.cumsum`` / ``np.cumprod`` along ``axis``, accumulating in order as NumPy does."""

    kind: Literal["sum", "prod"]
    axis: int

    @property
    def name(self) -> str:
        return f"cum{self.kind}"

    @property
    def key(self) -> str:
        return f"Scan({self.kind}, axis={self.axis})"


@dataclass(frozen=True)
class Roll(_NewArray):
    """``np.roll`` by shifts known when tracing, one per axis (0 where an axis is not rolled):
    ``out[..., i, ...] = a[..., (i - shift) mod n, ...]`` along each axis, NumPy's result. Rendered
    as an elementwise loop that reads its input at rolled positions, so it fuses with its consumer
    (see aotbuild/rewrite/fuse.py)."""

    shifts: tuple[int, ...]

    @property
    def name(self) -> str:
        return "roll"

    @property
    def key(self) -> str:
        return f"Roll({list(self.shifts)})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        source = inputs[0]
        assert isinstance(source, Array)
        return value_of(source.dtype, source.ndim, "C")  # a new array: writable, as a loop's result


@dataclass(frozen=True)
class ArgSort(Op):
    """Stable ``argsort`` of each row of a C-ordered 2-d array."""

    @property
    def name(self) -> str:
        return "argsort"

    @property
    def key(self) -> str:
        return "ArgSort(stable)"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return Array("int64", 2, "C")


@dataclass(frozen=True)
class Expr(Op):
    """A NumPy function as numba implements it — used only where numba's answer is NumPy's.

    ``code`` is the numba expression with ``{0}``, ``{1}``... standing for the inputs.
    """

    fn: str
    code: str
    result: Value

    @property
    def name(self) -> str:
        return self.fn

    @property
    def key(self) -> str:
        return f"Expr({self.fn}: {self.code} -> {self.result})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return self.result
