"""Updates of an array by elementwise values, computed straight into the array.

``h[k] += mu * np.conj(err) * window`` traces to ``SetIndex(h, fused(h[k], err, window), k)``:
the fused value is a new array, copied into ``h[k]`` after. Fused into the update
(:mod:`aotbuild.rewrite.updates`), the value is computed element by element into the slice
itself: no temporary, one pass. ``z[mask] = value`` (:class:`FusedSetMask`) likewise computes
the mask and the value at each element of ``z``, with no boolean array or gather stored.
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


@dataclass(frozen=True)
class FusedSetMask(_Update):
    """``z[mask] = value`` with the mask and the value computed element by element: for each
    element ``e`` of ``z``, ``if mask(e): z[e] = value(e)``.

    ``d[d > half] -= length`` traces to ``SetMask(d, m, MaskSelect(d, m) - length)`` with ``m =
    d > half``: a boolean array, a gather of the selected elements and the value, each a new
    array. Here each gather ``x[mask]`` is ``x`` read at ``e`` (every ``x`` has ``z``'s shape).

    Inputs: ``z``, then the arrays and scalars the mask and the value read. ``steps`` are fused
    elementwise steps over them, whose arguments number the inputs from 0 (``z`` itself, read at
    ``e`` before ``e`` is written) and then the steps' results (:class:`FusedStep`). ``mask`` and
    ``value`` are such arguments: an input (a boolean array, a scalar or an array read at ``e``)
    or a step's result.
    """

    steps: tuple[FusedStep, ...]
    mask: int
    value: int

    @property
    def key(self) -> str:
        steps = Fused(self.steps).key if self.steps else "()"
        return self._keyed(f"FusedSetMask({steps}, mask={self.mask}, value={self.value})")
