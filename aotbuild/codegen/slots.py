"""How an Op's inputs appear in its module: as parameters, or as constants in module scope."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..graph import Constant, Node
from ..graph.array_ops import DYNAMIC
from ..graph.shapes import largest_index, unit_axes
from ..types import Value
from .literals import constant_literal


@dataclass(frozen=True)
class Slot:
    """One input of an Op module."""

    name: str
    """``a0, a1, ...`` for parameters, ``C0, C1, ...`` for lifted constants."""

    type: Value
    literal: str | None
    """Source text of the constant, or None for a parameter."""

    units: frozenset[int] = frozenset()
    """Axes known to be of length 1 (see :mod:`aotbuild.graph.shapes`)."""

    array: np.ndarray | None = field(default=None, compare=False, repr=False)
    """The constant's value, for what the renderer can decide once instead of at every call."""

    @property
    def largest_index(self) -> int | None:
        """For constant indices, :func:`~aotbuild.graph.shapes.largest_index`; else None."""
        return None if self.array is None else largest_index(self.array)

    @property
    def is_constant(self) -> bool:
        return self.literal is not None

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:
        return self.type.dtype

    def describe(self) -> str:
        """For titles: the type of a parameter, the value of a short constant."""
        if self.literal is not None and len(self.literal) <= 40:
            return self.literal
        return str(self.type)


def input_slots(node: Node) -> list[Slot]:
    """Constants become module-scope names (the module text is the Op's identity)."""
    slots: list[Slot] = []
    params = constants = 0
    for item in node.inputs:
        assert not isinstance(item.type, tuple)
        if isinstance(item.op, Constant):
            literal = constant_literal(item.op.value.array)
            slots.append(Slot(f"C{constants}", item.type, literal, unit_axes(item), item.op.value.array))  # type: ignore[arg-type]
            constants += 1
        else:
            slots.append(Slot(f"a{params}", item.type, None, unit_axes(item)))  # type: ignore[arg-type]
            params += 1
    return slots


def parameters(slots: list[Slot]) -> list[Slot]:
    return [slot for slot in slots if not slot.is_constant]


def constants(slots: list[Slot]) -> list[Slot]:
    return [slot for slot in slots if slot.is_constant]


def entry_text(entry: object, dynamic: Iterator[str]) -> str:
    """A shape or index entry as source: its value, or the next run-time input if it is DYNAMIC."""
    return next(dynamic) if entry is DYNAMIC else str(entry)
