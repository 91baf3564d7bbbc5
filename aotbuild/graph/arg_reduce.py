"""``np.argmin``/``np.argmax`` of an elementwise value, computed as it is reduced.

``np.argmin(np.abs(e[i] - table) ** 2)`` makes the array of squared distances, then scans it. In
a loop over ``i`` that is an allocation per iteration for a few values. Fused
(:mod:`aotbuild.rewrite.arg_reduce`), the value is computed block by block on the stack and
scanned: no array.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Result, Scalar
from .fused import Fused, FusedStep
from .ops import Op


@dataclass(frozen=True)
class FusedArgReduce(Op):
    """``np.argmin`` (``kind``) or ``np.argmax`` of the whole of the fused ``steps`` over this
    Op's inputs (broadcast together): the index of the first least (greatest) value in C order,
    NaN counting as the least (greatest), as NumPy's."""

    kind: str
    steps: tuple[FusedStep, ...]

    @property
    def name(self) -> str:
        return self.kind

    @property
    def key(self) -> str:
        return f"FusedArgReduce({self.kind}, {Fused(self.steps).key})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return Scalar("int64")
