"""Value types that flow through every stage: scalars, arrays, tuples and ``none``.

These are aotbuild's own frozen types, independent of numba, so that configuration, tracing and
code generation never import numba (which costs half a second). ``str()`` of a type is its
spelling in numba's signature syntax, and ``aotbuild.config.signature.parse_signature`` reads
that spelling back: the round trip is exact, which is how generated modules declare callees.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

#: dtype name -> spelling in signatures. Booleans are ``boolean`` in numba's syntax.
DTYPE_SPELLING = {
    "bool": "boolean",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "float32": "float32",
    "float64": "float64",
    "complex64": "complex64",
    "complex128": "complex128",
}

SUPPORTED_DTYPES = tuple(DTYPE_SPELLING)

LAYOUTS = ("A", "C", "F")

#: An array's layout: any strides, C order, Fortran order.
Layout = Literal["A", "C", "F"]


@dataclass(frozen=True)
class Scalar:
    """A scalar of a NumPy dtype (by name: ``"float64"``, ``"bool"``, ...)."""

    dtype: str

    def __post_init__(self) -> None:
        if self.dtype not in DTYPE_SPELLING:
            raise ValueError(f"unsupported dtype {self.dtype!r}")

    @property
    def ndim(self) -> int:
        return 0

    def __str__(self) -> str:
        return DTYPE_SPELLING[self.dtype]


@dataclass(frozen=True)
class Array:
    """An array of ``ndim >= 1`` dimensions.

    ``layout`` is ``"A"`` (any strides, ``float64[:, :]``), ``"C"`` (C order, ``[:, ::1]``) or
    ``"F"`` (Fortran order, ``[::1, :]``; two or more dimensions: a contiguous 1-d array is C).
    ``readonly`` (numba's ``Array(..., readonly=True)``): a kernel may not write into it (numba
    refuses the write when it types the kernel); read-only NumPy arrays are accepted either way.
    """

    dtype: str
    ndim: int
    layout: Layout = "A"
    readonly: bool = False

    def __post_init__(self) -> None:
        if self.dtype not in DTYPE_SPELLING:
            raise ValueError(f"unsupported dtype {self.dtype!r}")
        if self.ndim < 1:
            raise ValueError("arrays have at least one dimension; use a scalar type")
        if self.layout not in LAYOUTS:
            raise ValueError(f"unsupported layout {self.layout!r}")
        if self.layout == "F" and self.ndim == 1:
            raise ValueError("a contiguous 1-d array is C: declare its layout 'C'")

    def with_layout(self, layout: Layout) -> Array:
        return Array(self.dtype, self.ndim, layout, self.readonly)

    def __str__(self) -> str:
        if self.readonly:
            return f"Array({DTYPE_SPELLING[self.dtype]}, {self.ndim}, '{self.layout}', readonly=True)"
        dims = [":"] * self.ndim
        if self.layout == "C":
            dims[-1] = "::1"
        elif self.layout == "F":
            dims[0] = "::1"
        return f"{DTYPE_SPELLING[self.dtype]}[{', '.join(dims)}]"


Value = Scalar | Array


@dataclass(frozen=True)
class TupleOf:
    """Several return values, returned as a Python tuple."""

    items: tuple[Value, ...]

    def __str__(self) -> str:
        return "Tuple(" + ", ".join(str(item) for item in self.items) + ")"


@dataclass(frozen=True)
class NoneType:
    """No return value: kernels that only write into their arguments."""

    def __str__(self) -> str:
        return "none"


NONE = NoneType()

Result = Scalar | Array | TupleOf | NoneType


@dataclass(frozen=True)
class Signature:
    """Argument types and the result type of a graph, an Op or a kernel helper."""

    args: tuple[Value, ...]
    result: Result

    @property
    def results(self) -> tuple[Value, ...]:
        """The result as a tuple of values (empty for ``none``)."""
        if isinstance(self.result, TupleOf):
            return self.result.items
        if isinstance(self.result, NoneType):
            return ()
        return (self.result,)

    def contiguous(self) -> Signature:
        """The same signature with every any-layout array argument of two or more dimensions
        C-contiguous: where a loop nest indexed by shape alone runs faster (measured: 1.15-1.45x
        on 2-d reductions and elementwise loops). A 1-d loop over any strides runs as fast as a
        contiguous one: LLVM versions it on a unit stride at run time."""
        args = tuple(a.with_layout("C") if isinstance(a, Array) and a.ndim >= 2 else a for a in self.args)
        return Signature(args, self.result)

    def __str__(self) -> str:
        return f"{self.result}(" + ", ".join(str(arg) for arg in self.args) + ")"


def value_of(dtype: np.dtype | str, ndim: int, layout: Layout = "C") -> Value:
    """The type of a value with ``dtype`` and ``ndim`` (a scalar when ``ndim == 0``)."""
    name = np.dtype(dtype).name
    return Scalar(name) if ndim == 0 else Array(name, ndim, layout)


#: C types of Cython exports aotbuild can call, and their dtypes (on 64-bit Linux).
C_SCALARS = {"double": "float64", "float": "float32", "long": "int64", "Py_ssize_t": "int64", "int": "int32"}


def cython_symbol(module: str, export: str) -> str:
    """The symbol a compiled Op calls a Cython export by: ``aot_cy_scipy_special_cython_special_ndtri``
    (defined in the package's shared object, forwarding to the export it resolves at run time)."""
    return "aot_cy_" + re.sub(r"[^A-Za-z0-9_]", "_", module) + "_" + export


def exported_symbol(package: str, graph: str, signature: Signature | str) -> str:
    """The name a graph's entry of this ``signature`` is exported and called by, from numba's
    JIT and from packages that use this one: ``aotbuild.stats_ext.center.<digest>``. It says
    package, graph and a digest of the signature (which decides how it is called), not of its
    code: callers stay valid when the package is rebuilt with the same signatures, and two
    packages holding the same compiled graph never take each other's."""
    digest = hashlib.sha256(str(signature).encode()).hexdigest()[:16]
    return f"aotbuild.{package}.{graph}.{digest}"


@dataclass(frozen=True)
class CythonExport:
    """A C function a Cython module exports (its ``__pyx_capi__``), such as SciPy's
    ``scipy.special.cython_special.ndtri``: compiled code calls it by :func:`cython_symbol`; the
    package resolves that from the module's capsule on the first call of a graph needing it."""

    module: str
    export: str
    result: str
    """The result's dtype (a C double is ``float64``)."""

    args: tuple[str, ...]
    """The arguments' dtypes, without Cython's trailing ``int __pyx_skip_dispatch``."""

    skip_dispatch: bool
    """Whether the C function takes Cython's ``int __pyx_skip_dispatch`` last (passed 0)."""

    c_signature: str
    """The capsule's name: the C signature, ``double (double, int __pyx_skip_dispatch)``."""

    @property
    def symbol(self) -> str:
        return cython_symbol(self.module, self.export)

    @property
    def signature(self) -> Signature:
        return Signature(tuple(Scalar(dtype) for dtype in self.args), Scalar(self.result))

    def __str__(self) -> str:
        return f"{self.module}.{self.export}"
