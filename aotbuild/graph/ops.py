"""The Ops of the graph IR: frozen, hashable descriptions of one operation.

An Op holds its parameters (which ufunc, which axes, which dtypes) and knows its result type
from its input types. Its ``key`` is a stable text used in node keys; it must never depend on
object identity or Python's randomised ``hash()``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..types import Array, Result, Scalar, Value, value_of


class Op:
    """Base class. Subclasses are frozen dataclasses."""

    @property
    def name(self) -> str:
        """A short readable name, used in symbols and generated-module titles."""
        raise NotImplementedError

    @property
    def key(self) -> str:
        raise NotImplementedError

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        raise NotImplementedError


@dataclass(frozen=True)
class ConstValue:
    """A constant scalar or array, compared by dtype, shape and bit pattern.

    So ``0.0`` and ``-0.0`` differ, ``1``, ``1.0`` and ``True`` differ, and a NaN equals itself.
    """

    dtype: str
    shape: tuple[int, ...]
    data: bytes

    @staticmethod
    def of(value: object, dtype: npt.DTypeLike | None = None) -> ConstValue:
        # np.array, not np.ascontiguousarray: the latter turns 0-d values into 1-d arrays.
        array = np.array(value, dtype=dtype, order="C", copy=True)
        return ConstValue(array.dtype.name, tuple(array.shape), array.tobytes())

    @property
    def array(self) -> np.ndarray:
        """The value as a read-only array (0-d for scalars)."""
        return np.frombuffer(self.data, dtype=self.dtype).reshape(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def key(self) -> str:
        digest = hashlib.sha256(self.data).hexdigest()[:32]
        return f"{self.dtype}{list(self.shape)}:{digest}"


@dataclass(frozen=True)
class Argument(Op):
    """The graph's ``position``-th argument, of the declared type."""

    position: int
    type: Value

    @property
    def name(self) -> str:
        return f"arg{self.position}"

    @property
    def key(self) -> str:
        return f"Argument({self.position}, {self.type})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return self.type


@dataclass(frozen=True)
class Constant(Op):
    """A constant from the traced function or its closure (lifted into module scope)."""

    value: ConstValue

    @property
    def name(self) -> str:
        return "const"

    @property
    def key(self) -> str:
        return f"Constant({self.value.key})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return value_of(self.value.dtype, self.value.ndim)


#: An elementwise step ``special.erf`` computes ``scipy.special.erf`` (:mod:`aotbuild.trace.special`).
SPECIAL_PREFIX = "special."

#: ufuncs whose float loops run long code (vector math, :mod:`aotbuild.codegen.vecmath`): they
#: are not fused into reductions (see :mod:`aotbuild.rewrite.fuse`).
TRANSCENDENTAL = frozenset(
    {
        *("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan"),
        *("arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh"),
        *("arccosh", "arctanh", "power", "hypot", "cbrt"),
    }
)


@dataclass(frozen=True)
class Elementwise(Op):
    """A NumPy ufunc (or ``where`` / ``cast``) applied with broadcasting.

    ``in_dtypes`` are the dtypes of the loop NumPy selects (inputs are cast to them element by
    element) and ``out_dtype`` the result's dtype: exactly ``ufunc.resolve_dtypes``.
    """

    fn: str
    in_dtypes: tuple[str, ...]
    out_dtype: str

    @property
    def name(self) -> str:
        return self.fn

    @property
    def key(self) -> str:
        return f"Elementwise({self.fn}, {','.join(self.in_dtypes)}->{self.out_dtype})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        ndim = max((getattr(t, "ndim", 0) for t in inputs), default=0)
        return value_of(self.out_dtype, ndim)


@dataclass(frozen=True)
class Reduce(Op):
    """A reduction (sum, prod, mean, min, max, any, all) over ``axes`` (sorted) of one array.

    Elements are cast to ``out_dtype`` and accumulated in it, as NumPy does.
    """

    kind: str
    axes: tuple[int, ...]
    keepdims: bool
    out_dtype: str

    @property
    def name(self) -> str:
        return self.kind

    @property
    def key(self) -> str:
        return f"Reduce({self.kind}, axes={list(self.axes)}, keepdims={self.keepdims}, ->{self.out_dtype})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        (source,) = inputs
        assert isinstance(source, Array)
        ndim = source.ndim if self.keepdims else source.ndim - len(self.axes)
        return value_of(self.out_dtype, ndim)


@dataclass(frozen=True)
class Dim(Op):
    """``x.shape[axis]`` as an int64 scalar (sizes are only known at run time)."""

    axis: int

    @property
    def name(self) -> str:
        return "dim"

    @property
    def key(self) -> str:
        return f"Dim({self.axis})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return Scalar("int64")


@dataclass(frozen=True)
class Size(Op):
    """``x.size`` as an int64 scalar."""

    @property
    def name(self) -> str:
        return "size"

    @property
    def key(self) -> str:
        return "Size()"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return Scalar("int64")


@dataclass(frozen=True)
class Kernel(Op):
    """A function compiled as written (``mode = "kernel"``): one Op over the graph's arguments.

    ``unit`` is the analysed function (a :class:`~aotbuild.trace.kernels.KernelUnit`); its
    ``key`` hashes the code, the lifted globals and every helper, so it alone decides equality.
    """

    qualname: str
    source_key: str
    result: Result
    unit: Any = field(compare=False, hash=False, repr=False)

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        return f"Kernel({self.qualname}, {self.source_key}, {self.result})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return self.result
