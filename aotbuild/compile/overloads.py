"""NumPy in kernels where numba stops short: the calls the tracer understands, as numba overloads.

numba's ``np.max``/``np.min``/``np.mean``/``np.prod``/``np.any``/``np.all`` (and those array
methods) take no ``axis`` and none of them (nor ``np.sum``, ``x.sum``) ``keepdims``; ``abs()`` takes no array;
``np.zeros(n, dtype=bool)`` and ``x.astype(int)`` refuse Python types as dtypes; numba has no
``np.tile``. These overloads give those calls NumPy's meaning in kernels, as do boolean masks of
several dimensions (:mod:`.masks`) and tuples and lists of numbers used as arrays
(:mod:`.array_likes`). They only add what numba refused (a method without
arguments calls numba's own function), so code numba compiled before compiles as before; they
are registered in the processes that analyse and compile kernels.

Float sums along an axis add in C order, as numba's own ``np.sum(x, axis=k)`` does: a kernel
gives numba's answers, not NumPy's pairwise bits (traced graphs give those).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from . import array_likes, masks

REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")
"""The reductions given ``axis`` and ``keepdims`` (also as ``amax``/``amin``)."""

#: Python types NumPy accepts as dtypes, and the dtype each means.
PYTHON_DTYPES: dict[Any, Any] = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}

_registered = False


def register() -> None:
    """Register the overloads with numba (once per process)."""
    global _registered
    if _registered:
        return
    _registered = True
    from numba.core import types
    from numba.extending import overload, overload_method

    for kind in REDUCTIONS:
        function = getattr(np, kind)
        overload(function)(_reduction(kind))
        if kind in ("max", "min"):
            overload(getattr(np, f"a{kind}"))(_reduction(kind))
        # Tried before numba's own method (the attribute resolves to the first template that has
        # it), so it takes every call, plain ones included.
        method = _sum_method if kind == "sum" else _reduction(kind, method=True)
        overload_method(types.Array, kind, target="cpu")(method)

    @overload(abs)
    def array_abs(x):
        if isinstance(x, types.Array):
            return lambda x: np.abs(x)
        return None

    # Tried before numba's own, which takes a Python type as a dtype for some calls and gets it
    # wrong (np.full(3, 7, dtype=int) made float64); other dtypes fall through to numba's.
    for name in ("zeros", "ones", "empty"):
        overload(getattr(np, name), target="cpu")(_creation(name))

    @overload(np.full, target="cpu")
    def full(shape, fill_value, dtype=None):
        target = _python_dtype(dtype)
        if target is None:
            return None
        return lambda shape, fill_value, dtype=None: np.full(shape, fill_value, target)

    # Tried before numba's own astype (the attribute resolves to the first template that has it),
    # so it takes every call: a Python type as NumPy reads it, any other dtype as given.
    @overload_method(types.Array, "astype", target="cpu")
    def astype(array, dtype):
        target = _python_dtype(dtype)
        if target is not None:

            def from_python_type(array, dtype):
                out = np.empty(array.shape, target)
                out[...] = array
                return out

            return from_python_type

        def impl(array, dtype):  # not array.astype(dtype): that would resolve to this overload
            out = np.empty(array.shape, dtype)
            out[...] = array
            return out

        return impl

    overload(np.tile, target="cpu")(_tile)
    masks.register()
    array_likes.register()

    from numba.core.registry import cpu_target

    # Templates registered after numba loaded its registries reach typing at the next refresh.
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def _tile(A, reps):  # noqa: ANN001, ANN202, N803 (numba reads NumPy's parameter names)
    """``np.tile(A, reps)``: NumPy's result (always a new C-ordered array) for an array, a scalar
    or a tuple of numbers ``A`` and an integer or a tuple of integers ``reps``; ``A`` is given
    leading axes of length 1, or ``reps`` leading counts of 1, until they match."""
    from numba.core import types
    from numba.np.unsafe.ndarray import to_fixed_tuple

    if isinstance(reps, types.Integer):
        count = 1
    elif isinstance(reps, types.BaseTuple) and all(isinstance(r, types.Integer) for r in reps):
        count = len(reps)
    else:
        return None
    if isinstance(A, types.Array):
        given = A.ndim
    elif isinstance(A, (types.Number, types.Boolean)):
        given = 0
    elif array_likes.is_array_like(A):
        given = np.asarray(_example(A)).ndim
    else:
        return None
    ndim = max(count, given)
    wide = 2 * ndim  # a constant for to_fixed_tuple
    kind = "one" if isinstance(reps, types.Integer) else "tuple" if count else "none"
    read_counts = _counts_readers()[kind]

    def tile(A, reps):  # noqa: N803
        a = np.ascontiguousarray(np.asarray(A))
        counts = np.ones(ndim, np.intp)
        read_counts(counts, reps, ndim - count)
        sizes = np.ones(ndim, np.intp)
        for d in range(given):
            sizes[ndim - given + d] = a.shape[d]
        spread_out = np.empty(wide, np.intp)  # (r0, n0, r1, n1, ...): out, viewed
        spread_in = np.ones(wide, np.intp)  # (1, n0, 1, n1, ...): a, broadcast along it
        for d in range(ndim):
            if counts[d] < 0:
                raise ValueError("negative dimensions are not allowed")
            spread_out[2 * d] = counts[d]
            spread_out[2 * d + 1] = sizes[d]
            spread_in[2 * d + 1] = sizes[d]
        out = np.empty(to_fixed_tuple(sizes * counts, ndim), a.dtype)
        out.reshape(to_fixed_tuple(spread_out, wide))[...] = a.reshape(to_fixed_tuple(spread_in, wide))
        return out

    return tile


@lru_cache(maxsize=1)
def _counts_readers() -> dict[str, Any]:
    """``counts[first:] = reps`` for an integer, a tuple of integers, and an empty tuple."""
    from numba import literal_unroll
    from numba.extending import register_jitable

    @register_jitable
    def one(counts, reps, first):
        counts[first] = reps

    @register_jitable
    def of_tuple(counts, reps, first):
        k = first
        for r in literal_unroll(reps):
            counts[k] = r
            k += 1

    @register_jitable
    def none(counts, reps, first):
        pass

    return {"one": one, "tuple": of_tuple, "none": none}


def _example(value: Any) -> Any:
    """A Python value of numba tuple type ``value`` (zeros), for NumPy to read its shape."""
    from numba.core import types

    if isinstance(value, types.BaseTuple):
        return tuple(_example(item) for item in value.types)  # type: ignore[attr-defined]
    if isinstance(value, types.List):
        return [0]
    return 0


def _python_dtype(dtype: Any) -> Any:
    """The NumPy type a Python type passed as a dtype means (``bool``: ``np.bool_``), if it is one."""
    from numba.core import types

    if isinstance(dtype, types.Function):
        return PYTHON_DTYPES.get(dtype.typing_key)
    return None


def _creation(name: str) -> Any:
    function = getattr(np, name)

    def creation(shape, dtype=None):
        target = _python_dtype(dtype)
        if target is None:
            return None
        return lambda shape, dtype=None: function(shape, target)

    return creation


def _reduction(kind: str, method: bool = False) -> Any:
    """The overload of ``np.<kind>(a, axis=..., keepdims=...)``: None (numba's own) without
    them; as the method ``a.<kind>(...)``, NumPy's function without them."""
    function = getattr(np, kind)

    def typer(
        a, axis=None, keepdims=False
    ):  # unannotated: numba compares its signature with the implementation's
        from numba.core import types
        from numba.core.errors import TypingError

        no_axis = axis is None or isinstance(axis, (types.NoneType, types.Omitted))
        keep = _literal_bool(keepdims)
        if keep is None:  # typed again with literals: keepdims must be a constant there
            return None
        if not method and array_likes.is_array_like(a):  # np.max((x, y, z)): NumPy's array
            if no_axis and not keep:
                return lambda a, axis=None, keepdims=False: function(np.asarray(a))
            if no_axis:
                return lambda a, axis=None, keepdims=False: function(np.asarray(a), None, True)
            if keep:
                return lambda a, axis=None, keepdims=False: function(np.asarray(a), axis, True)
            return lambda a, axis=None, keepdims=False: function(np.asarray(a), axis)
        if not isinstance(a, types.Array):
            return None
        if no_axis and not keep:
            return (lambda a, axis=None, keepdims=False: function(a)) if method else None
        if kind == "sum" and isinstance(axis, types.Integer) and not keep:
            return None  # numba's own np.sum(x, axis=k)
        if no_axis:
            count = a.ndim
        elif isinstance(axis, types.Integer):
            count = 1
        elif isinstance(axis, types.BaseTuple) and all(isinstance(t, types.Integer) for t in axis):
            count = len(axis)
        else:
            raise TypingError(f"np.{kind}(..., axis=...) takes None, an integer or a tuple of integers")
        return _reduction_impl(kind, a, count, no_axis, keep, isinstance(axis, types.Integer))

    return typer


def _sum_method(a, axis=None, dtype=None, keepdims=False):  # noqa: ANN001, ANN202 (numba reads it)
    """``a.sum(...)``: numba's own ``np.sum(a, axis, dtype)``, which takes no ``keepdims``;
    with ``keepdims=True``, the reduction above (of ``a.astype(dtype)`` when a dtype is given)."""
    from numba.core import types

    if not isinstance(a, types.Array):
        return None
    keep = _literal_bool(keepdims)
    if keep is None:
        return None
    if not keep:
        return lambda a, axis=None, dtype=None, keepdims=False: np.sum(a, axis=axis, dtype=dtype)
    if dtype is None or isinstance(dtype, (types.NoneType, types.Omitted)):
        return lambda a, axis=None, dtype=None, keepdims=False: np.sum(a, axis=axis, keepdims=True)
    return lambda a, axis=None, dtype=None, keepdims=False: np.sum(a.astype(dtype), axis=axis, keepdims=True)


def _literal_bool(value: Any) -> bool | None:
    from numba.core import types

    if isinstance(value, types.Omitted):
        return bool(value.value)
    if isinstance(value, types.BooleanLiteral):
        return bool(value.literal_value)
    if value is None or isinstance(value, types.NoneType):
        return False
    if isinstance(value, bool):
        return value
    return None


def _result_dtype(kind: str, dtype: Any) -> Any:
    """NumPy's result dtype of ``kind`` over an array of ``dtype`` (a NumPy scalar type)."""
    if kind in ("any", "all"):
        return np.bool_
    return getattr(np, kind)(np.ones(1, dtype)).dtype.type


def _reduction_impl(kind: str, a: Any, count: int, all_axes: bool, keepdims: bool, one_axis: bool) -> Any:
    """The implementation for an array like ``a`` reducing ``count`` axes (all, or those given):
    the kept axes first, the reduced ones last (a C-contiguous copy, transposed), then one
    reduction per row, reshaped to the kept axes (or to ones where reduced, with keepdims)."""
    from numba.extending import register_jitable
    from numba.np.numpy_support import as_dtype
    from numba.np.unsafe.ndarray import to_fixed_tuple

    ndim = a.ndim
    out_ndim = ndim if keepdims else ndim - count
    row_reduce = _row_functions()[kind]
    mark = _row_functions()["all_axes" if all_axes else "one_axis" if one_axis else "axes"]
    out_dtype = _result_dtype(kind, as_dtype(a.dtype).type)

    @register_jitable
    def rows_of(a, axis):  # the kept axes as rows, the reduced ones along them
        reduced = np.zeros(ndim, np.bool_)
        mark(reduced, axis)
        order = np.empty(ndim, np.intp)
        j = 0
        outer = 1
        for d in range(ndim):
            if not reduced[d]:
                order[j] = d
                outer *= a.shape[d]
                j += 1
        inner = 1
        for d in range(ndim):
            if reduced[d]:
                order[j] = d
                inner *= a.shape[d]
                j += 1
        rows = np.ascontiguousarray(np.transpose(a, to_fixed_tuple(order, ndim))).reshape((outer, inner))
        return rows, reduced

    def impl(a, axis=None, keepdims=False):
        rows, reduced = rows_of(a, axis)
        out = np.empty(rows.shape[0], out_dtype)
        for i in range(rows.shape[0]):
            out[i] = row_reduce(rows[i])
        shape = np.empty(out_ndim, np.intp)
        j = 0
        for d in range(ndim):
            if keepdims:
                shape[d] = 1 if reduced[d] else a.shape[d]
            elif not reduced[d]:
                shape[j] = a.shape[d]
                j += 1
        return out.reshape(to_fixed_tuple(shape, out_ndim))

    def impl_scalar(a, axis=None, keepdims=False):  # every axis reduced: NumPy returns a scalar
        rows, _ = rows_of(a, axis)
        return row_reduce(rows[0])

    if out_ndim == 0:
        return impl_scalar
    return impl


@lru_cache(maxsize=1)
def _row_functions() -> dict[str, Any]:
    """The one-row reductions and the axis markers, jitted helpers made on first use."""
    from numba import literal_unroll
    from numba.extending import register_jitable

    @register_jitable
    def mark_one(reduced, given):
        ndim = reduced.shape[0]
        k = given + ndim if given < 0 else given
        if k < 0 or k >= ndim:
            raise ValueError("axis is out of bounds for the array")
        if reduced[k]:
            raise ValueError("duplicate value in 'axis'")
        reduced[k] = True

    @register_jitable
    def mark_axes(reduced, axes):
        for given in literal_unroll(axes):
            mark_one(reduced, given)

    @register_jitable
    def mark_all(reduced, axis):
        reduced[:] = True

    return {
        "one_axis": mark_one,
        "axes": mark_axes,
        "all_axes": mark_all,
        **{kind: register_jitable(_of_one_row(getattr(np, kind))) for kind in REDUCTIONS},
    }


def _of_one_row(function: Any) -> Any:
    """``np.max``-style ``function`` of a whole row (numba's own: no axis)."""
    return lambda row: function(row)
