"""scipy.special on tracers: its ufuncs as elementwise steps calling SciPy's own C functions, and
``logsumexp``, ``softmax``, ``log_softmax`` as the NumPy operations they are.

A ufunc (``erf``, ``gammaln``, ``xlogy``...) becomes an :class:`~aotbuild.graph.Elementwise`
step named ``special.<name>``, in the loop ``ufunc.resolve_dtypes`` picks, as NumPy ufuncs do:
its code calls the function's export from ``scipy.special.cython_special`` (the same C code
SciPy's ufunc loops run), resolved when the package first runs the graph. It fuses with the
steps around it like any ufunc.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph.ops import SPECIAL_PREFIX
from ..types import CythonExport
from .operands import Operand
from .ufuncs import elementwise, fold, ufunc_loop

MODULE = "scipy.special.cython_special"

#: The scipy.special ufuncs a traced graph may call (``ufunc.__name__``: ``digamma`` is ``psi``).
SPECIAL_UFUNCS = frozenset(
    (
        *("erf", "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr"),
        *("gammaln", "gamma", "psi", "betaln"),
        *("expit", "logit", "log_expit", "xlogy", "xlog1py", "entr", "rel_entr", "i0e", "i1e"),
    )
)


def is_special(ufunc: np.ufunc) -> bool:
    """Whether ``ufunc`` is one of scipy.special's that the tracer records."""
    if ufunc.__name__ not in SPECIAL_UFUNCS:
        return False
    import scipy.special

    return getattr(scipy.special, ufunc.__name__, None) is ufunc


@cache
def export_for(name: str, dtype: str) -> tuple[CythonExport, bool]:
    """The export computing scipy.special ``name`` in ``dtype``, and whether it computes in
    float64 instead (a float32 loop without a float export: SciPy's rounds the double result)."""
    import scipy.special.cython_special as exports

    from ..errors import KernelError
    from .cython import lookup_export

    found = []
    for candidate in [name, *(f"__pyx_fuse_{k}{name}" for k in range(4))]:
        if candidate in exports.__pyx_capi__:
            try:
                found.append(lookup_export(MODULE, candidate))
            except KernelError:  # complex or long double
                continue
    for wanted in (dtype, "float64"):
        for export in found:
            if export.result == wanted and all(arg == wanted for arg in export.args):
                return export, wanted != dtype
    raise TraceError(f"scipy.special.{name} has no C export for {dtype} in {MODULE}")


def apply_special(ufunc: np.ufunc, args: Sequence[object], kwargs: dict[str, object]) -> Operand:
    name = ufunc.__name__
    operands, in_dtypes, out_dtype = ufunc_loop(
        ufunc,
        f"scipy.special.{name}",
        args,
        kwargs,
        lambda what: TraceError(f"{what} is not supported while tracing"),
    )
    if all(op.constant is not None for op in operands):
        return fold(ufunc, operands, out_dtype)
    if any(np.dtype(d).name not in ("float32", "float64") for d in (*in_dtypes, out_dtype)):
        raise TraceError(
            f"scipy.special.{name} in its {'/'.join(np.dtype(d).name for d in in_dtypes)} loop is not "
            "supported while tracing (float32 and float64 are); compute it in float64"
        )
    export_for(name, np.dtype(out_dtype).name)  # refused now, at the call, if SciPy lacks it
    return elementwise(SPECIAL_PREFIX + name, operands, in_dtypes, out_dtype)


# ---------------------------------------------------------------------------------------------
# Functions written in NumPy: traced as the operations they are
# ---------------------------------------------------------------------------------------------


def logsumexp(
    a: Any, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False
) -> Any:
    """scipy.special.logsumexp: ``log(sum(b * exp(a)))`` over ``axis``, shifted by the maximum
    (a maximum that is not finite shifts by 0), as SciPy computes it up to rounding."""
    if return_sign:
        raise TraceError("scipy.special.logsumexp(..., return_sign=True) is not supported while tracing")
    a = np.asarray(a)
    if b is not None:  # a broadcast against b, as SciPy does (adding zeros of a's dtype)
        a = a + np.zeros_like(b, dtype=a.dtype)
    a_max = np.max(a, axis=axis, keepdims=True)
    a_max = np.where(np.isfinite(a_max), a_max, 0)
    shifted = np.exp(a - a_max)
    if b is not None:
        shifted = b * shifted
    total = np.sum(shifted, axis=axis, keepdims=keepdims)
    if not keepdims:
        a_max = np.squeeze(a_max, axis=tuple(range(a.ndim)) if axis is None else axis)
    return np.log(total) + a_max


def softmax(x: Any, axis: Any = None) -> Any:
    """scipy.special.softmax: ``exp(x) / sum(exp(x))`` over ``axis``, shifted by the maximum."""
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> Any:
    """scipy.special.log_softmax: ``x - logsumexp(x)`` over ``axis``, as SciPy computes it."""
    x_max = np.max(x, axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(x_max), x_max, 0)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


#: scipy.special's NumPy-written functions and their traced versions.
TRACED_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "logsumexp": logsumexp,
    "softmax": softmax,
    "log_softmax": log_softmax,
}
