"""A slice assignment whose value is elementwise, computed straight into the slice.

``h[k] += mu * np.conj(err) * window`` traces to ``SetIndex(h, fused(h[k], err, window), k)``:
the fused value is a new array, copied into ``h[k]`` after. Fused into the update
(:mod:`aotbuild.rewrite.updates`), the value is computed element by element into the slice
itself: no temporary, one pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from .array_ops import IndexItem, _Update, index_text
from .fused import Fused, FusedStep


@dataclass(frozen=True)
class FusedSetIndex(_Update):
    """``z[items] = value`` with ``value`` the fused ``steps``.

    Inputs: ``z``, then the ``indices`` run-time index values of ``items``, then the value's
    inputs (which the steps' arguments number from 0). ``target``: the value's input that is
    the slice written itself (``z[k] += ...`` reads ``z[k]``), read and written at the same
    element; -1 when there is none.
    """

    items: tuple[IndexItem, ...]
    steps: tuple[FusedStep, ...]
    indices: int
    target: int = -1

    @property
    def key(self) -> str:
        value = Fused(self.steps).key
        return self._keyed(
            f"FusedSetIndex{index_text(self.items)}({value}, indices={self.indices}, target={self.target})"
        )
