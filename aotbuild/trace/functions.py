"""The NumPy functions a tracer handles through ``__array_function__``, and how.

Each entry takes the arguments NumPy was called with (tracers among them) and returns tracers.
Results that NumPy returns as views of an argument are marked as views of that tracer, so that a
later write to the argument makes them stale (see :class:`~aotbuild.trace.tracer.Tracer`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.linalg._linalg import SlogdetResult

from ..errors import TraceError
from . import creation, linalg, movement
from .indexing import nonzero, take
from .operands import Operand, as_operand
from .reductions import apply_reduction
from .tracer import Tracer
from .ufuncs import apply_where, copy


def slogdet(a: object) -> SlogdetResult:
    """``np.linalg.slogdet``: NumPy's named pair ``(sign, logabsdet)``, both read from one
    traced LAPACK call (``logabsdet`` real for a complex matrix, as NumPy's)."""
    pair = Tracer(linalg.linalg_function("slogdet", a))
    logabsdet = pair[1]
    return SlogdetResult(pair[0], logabsdet.real if pair.dtype.kind == "c" else logabsdet)


def _view(source: Any, result: Operand) -> Tracer:
    """``result`` as a view of ``source`` when ``source`` is a tracer (NumPy returns a view)."""
    return source.view(result) if isinstance(source, Tracer) else Tracer(result)


def _reduction(kind: str) -> Callable[..., Any]:
    def handler(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Tracer:
        return Tracer(apply_reduction(kind, a, axis, *args, **kwargs))

    return handler


def _where(condition: Any, *xy: Any) -> Any:
    if not xy:  # np.where(condition) is np.nonzero(condition)
        return _nonzero(condition)
    if len(xy) != 2:
        raise TraceError("either both or neither of x and y should be given")
    return Tracer(apply_where(condition, *xy))


def _nonzero(a: Any) -> tuple[Tracer, ...]:
    return tuple(Tracer(indices) for indices in nonzero(as_operand(a)))


def _on_array(function: Callable[..., Operand]) -> Callable[..., Any]:
    """A handler applying ``function`` to the array argument's operand (a copy)."""

    def handler(a: Any, *args: Any, **kwargs: Any) -> Tracer:
        return Tracer(function(as_operand(a), *args, **kwargs))

    return handler


def _view_of_array(function: Callable[..., Operand]) -> Callable[..., Any]:
    """A handler whose result NumPy returns as a view of the array argument."""

    def handler(a: Any, *args: Any, **kwargs: Any) -> Tracer:
        return _view(a, function(as_operand(a), *args, **kwargs))

    return handler


def _sequence(function: Callable[..., Operand]) -> Callable[..., Any]:
    def handler(arrays: Any, *args: Any, **kwargs: Any) -> Tracer:
        return Tracer(function(arrays, *args, **kwargs))

    return handler


def _like(kind: str) -> Callable[..., Any]:
    def handler(
        prototype: Any, dtype: Any = None, order: Any = "K", subok: bool = True, shape: Any = None
    ) -> Tracer:
        return Tracer(creation.filled_like(kind, prototype, dtype, shape=shape))

    return handler


def _full_like(
    prototype: Any,
    fill_value: Any,
    dtype: Any = None,
    order: Any = "K",
    subok: bool = True,
    shape: Any = None,
) -> Tracer:
    return Tracer(creation.filled_like("full", prototype, dtype, fill=fill_value, shape=shape))


def _shape(a: Any) -> tuple[Any, ...]:
    return tuple(movement.dims(as_operand(a)))


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    # reductions and statistics
    np.sum: _reduction("sum"),
    np.prod: _reduction("prod"),
    np.mean: _reduction("mean"),
    np.min: _reduction("min"),
    np.max: _reduction("max"),
    np.amin: _reduction("min"),
    np.amax: _reduction("max"),
    np.any: _reduction("any"),
    np.all: _reduction("all"),
    np.argmin: _on_array(lambda a, *args, **kw: movement.arg_reduction("argmin", a, *args, **kw)),
    np.argmax: _on_array(lambda a, *args, **kw: movement.arg_reduction("argmax", a, *args, **kw)),
    np.var: _on_array(movement.variance),
    np.std: _on_array(lambda a, *args, **kw: movement.variance(a, *args, std=True, **kw)),
    np.average: _on_array(movement.average),
    np.cumsum: _on_array(lambda a, *args, **kw: movement.scan("sum", a, *args, **kw)),
    np.cumprod: _on_array(lambda a, *args, **kw: movement.scan("prod", a, *args, **kw)),
    # elementwise helpers
    np.where: _where,
    np.nonzero: _nonzero,
    np.flatnonzero: lambda a: Tracer(nonzero(movement.ravel(as_operand(a)))[0]),
    np.clip: _on_array(movement.clip),
    np.copy: _on_array(lambda a, order="K", subok=False: copy(a)),
    np.real: _view_of_array(lambda a: movement.complex_part("real", a)),
    np.imag: _on_array(lambda a: movement.complex_part("imag", a)),
    np.angle: _on_array(movement.angle),
    # sizes
    np.ndim: lambda a: as_operand(a).ndim,
    np.shape: _shape,
    np.size: lambda a, axis=None: Tracer(as_operand(a)).size if axis is None else _shape(a)[axis],
    # views and reshaping
    np.reshape: _view_of_array(movement.reshape),
    np.ravel: _view_of_array(lambda a, order="C": movement.ravel(a)),
    np.transpose: _view_of_array(movement.transpose),
    np.swapaxes: _view_of_array(movement.swapaxes),
    np.moveaxis: _view_of_array(movement.moveaxis),
    np.expand_dims: _view_of_array(movement.expand_dims),
    np.squeeze: _view_of_array(movement.squeeze),
    np.flip: _view_of_array(movement.flip),
    np.broadcast_to: _on_array(movement.broadcast_to),
    # joining, repeating, reordering
    np.concatenate: _sequence(movement.concatenate),
    np.stack: _sequence(movement.stack),
    np.hstack: _sequence(movement.hstack),
    np.vstack: _sequence(movement.vstack),
    np.tile: _on_array(movement.tile),
    np.repeat: _on_array(movement.repeat),
    np.roll: _on_array(movement.roll),
    np.diff: _on_array(movement.diff),
    np.sort: _on_array(movement.sort),
    np.argsort: _on_array(movement.argsort),
    np.take: _on_array(take),
    np.bincount: _on_array(movement.bincount),
    # creation from other arrays
    np.zeros_like: _like("zeros"),
    np.ones_like: _like("ones"),
    np.empty_like: _like("empty"),
    np.full_like: _full_like,
    np.linspace: lambda *args, **kwargs: Tracer(creation.linspace(*args, **kwargs)),
    # linear algebra
    np.dot: lambda a, b, out=None: Tracer(linalg.dot(as_operand(a), as_operand(b))),
    np.outer: lambda a, b, out=None: Tracer(linalg.outer(as_operand(a), as_operand(b))),
    np.einsum: lambda *args, **kwargs: Tracer(linalg.einsum(*args, **kwargs)),
    np.linalg.solve: lambda a, b: Tracer(linalg.linalg_function("solve", a, b)),
    np.linalg.inv: lambda a: Tracer(linalg.linalg_function("inv", a)),
    np.linalg.det: lambda a: Tracer(linalg.linalg_function("det", a)),
    np.linalg.slogdet: slogdet,
    np.linalg.cholesky: lambda a, upper=False: Tracer(linalg.linalg_function("cholesky", a)),
    np.linalg.norm: lambda *args, **kwargs: Tracer(linalg.norm(*args, **kwargs)),
}
