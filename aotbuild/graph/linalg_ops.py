"""Ops of linear algebra: matrix products and Einstein sums (``np.linalg`` goes through Expr)."""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Array, Result, value_of
from .ops import Op


@dataclass(frozen=True)
class MatMul(Op):
    """Matrix products of two arrays with the same number (>= 2) of dimensions.

    The last two axes are multiplied and the leading (batch) axes broadcast, as ``np.matmul``.
    Floating and complex products go to BLAS (numba's ``np.dot``, SciPy's BLAS at run time);
    integer and boolean ones are loops, since BLAS has none.
    """

    dtype: str

    @property
    def name(self) -> str:
        return "matmul"

    @property
    def key(self) -> str:
        return f"MatMul({self.dtype})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        a, b = inputs
        assert isinstance(a, Array) and isinstance(b, Array) and a.ndim == b.ndim >= 2
        return Array(self.dtype, a.ndim, "C")


@dataclass(frozen=True)
class Einsum(Op):
    """``np.einsum`` with explicit subscripts (no ellipsis), as loops over every index."""

    inputs: tuple[str, ...]
    output: str
    dtype: str

    @property
    def name(self) -> str:
        return "einsum"

    @property
    def key(self) -> str:
        return f"Einsum({','.join(self.inputs)}->{self.output}, {self.dtype})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return value_of(self.dtype, len(self.output), "C")
