"""A fused elementwise Op: a tree of elementwise Ops computed in one loop, without temporaries."""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Result, value_of
from .ops import Op

#: The step of a gather joined into the loop: ``source[indices[i]]`` (see aotbuild/rewrite/fuse.py).
TAKE = "take"

#: The step of an ``np.roll`` by constants joined into the loop: its input read at rolled positions.
ROLL = "roll"


@dataclass(frozen=True)
class FusedStep:
    """One original elementwise Op inside a fused one.

    ``args`` index the fused Op's inputs (``0 .. n_inputs - 1``) and then the results of earlier
    steps (``n_inputs + j`` is step ``j``); ``ndims`` are those values' dimensions (NumPy takes
    some fast paths only for scalar operands).
    ``fn`` is a ufunc's name, or :data:`TAKE`: its first argument, an input of the fused Op, is
    read at the value of its second (a gather by constant indices); or :data:`ROLL`: its one
    argument, an input of the fused Op, read at the loop's position rolled by ``shifts``.
    """

    fn: str
    in_dtypes: tuple[str, ...]
    out_dtype: str
    args: tuple[int, ...]
    ndims: tuple[int, ...]
    shifts: tuple[int, ...] = ()
    """For :data:`ROLL`: ``np.roll``'s shift along each axis of the input (0: not rolled)."""


@dataclass(frozen=True)
class Fused(Op):
    """Elementwise steps applied with broadcasting over the inputs, the last step's value stored.

    Its key is the structure of the steps, so the same expression in two graphs is one Op.
    """

    steps: tuple[FusedStep, ...]

    @property
    def name(self) -> str:
        return "fused"

    @property
    def key(self) -> str:
        parts = ";".join(
            f"{s.fn}{list(s.shifts) if s.fn == ROLL else ''}"
            f"({','.join(map(str, s.args))}:{','.join(s.in_dtypes)}->{s.out_dtype})"
            for s in self.steps
        )
        return f"Fused({parts})"

    @property
    def gathered(self) -> frozenset[int]:
        """The inputs read at indices (by :data:`TAKE` steps), not at the loop's position."""
        return frozenset(step.args[0] for step in self.steps if step.fn == TAKE)

    @property
    def rolled(self) -> dict[int, tuple[int, ...]]:
        """The inputs read at rolled positions (by :data:`ROLL` steps), with their shifts."""
        return {step.args[0]: step.shifts for step in self.steps if step.fn == ROLL}

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        ndim = max((getattr(t, "ndim", 0) for k, t in enumerate(inputs) if k not in self.gathered), default=0)
        return value_of(self.steps[-1].out_dtype, ndim)


@dataclass(frozen=True)
class FusedReduce(Op):
    """A reduction of a fused elementwise value, computed element by element as it is reduced:
    ``np.sum((x - y) ** 2)`` in one loop, without the temporary ``(x - y) ** 2``."""

    kind: str
    axes: tuple[int, ...]
    keepdims: bool
    out_dtype: str
    steps: tuple[FusedStep, ...]
    """The reduced value, as :class:`Fused`'s steps over this Op's inputs."""

    @property
    def name(self) -> str:
        return self.kind

    @property
    def key(self) -> str:
        reduce = f"{self.kind}, axes={list(self.axes)}, keepdims={self.keepdims}, ->{self.out_dtype}"
        return f"FusedReduce({reduce}, {Fused(self.steps).key})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        ndim = max((getattr(t, "ndim", 0) for t in inputs), default=0)
        return value_of(self.out_dtype, ndim if self.keepdims else ndim - len(self.axes))
