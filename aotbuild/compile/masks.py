"""Boolean masks of several dimensions in kernels: ``a[mask]`` and ``a[mask] = value``.

numba types ``count[alive] = it`` for a 2-d ``alive`` and then fails an assertion while lowering
it (its boolean indexing takes 1-d masks only). These overloads give NumPy's meaning: ``mask``
covers the leading axes of ``a`` (its shape must be theirs, else ``IndexError``), ``a[mask]`` is a
C-ordered copy of the selected elements (or subarrays), one row per ``True`` in C order, and
``a[mask] = value`` writes a scalar, or an array broadcast to that shape, into them. A mask of
several dimensions combined with other indices (``a[mask, 0]``) is refused while typing, with
what to write instead; numba's 1-d masks are left to numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_MIXED = (
    "a boolean mask of {ndim} dimensions is supported alone as an index (a[mask], "
    "a[mask] = value); select the other axes first (a[:, :, 0][mask] for a[mask, 0])"
)


def is_mask(index: Any) -> bool:
    """Whether numba type ``index`` is a boolean array of more than one dimension."""
    from numba.core import types

    return isinstance(index, types.Array) and isinstance(index.dtype, types.Boolean) and index.ndim > 1


def register() -> None:
    """Register the overloads, and the refusal of such masks among other indices."""
    import operator

    from numba.core import types
    from numba.core.typing import arraydecl
    from numba.extending import overload

    numba_index_type = arraydecl.get_array_index_type

    def get_array_index_type(ary: Any, idx: Any) -> Any:
        items = tuple(idx.types) if isinstance(idx, types.BaseTuple) else (idx,)  # type: ignore[attr-defined]
        masks = [item for item in items if is_mask(item)]
        if masks:  # alone, the overloads below take it first; numba would assert when lowering
            raise arraydecl.NumbaTypeError(_MIXED.format(ndim=masks[0].ndim))
        return numba_index_type(ary, idx)

    arraydecl.get_array_index_type = get_array_index_type

    @overload(operator.getitem, target="cpu")
    def getitem(a, mask):
        if not (isinstance(a, types.Array) and is_mask(mask)):
            return None
        if mask.ndim > a.ndim:
            return _too_many
        return _select(a.ndim, mask.ndim)

    @overload(operator.setitem, target="cpu")
    def setitem(a, mask, value):
        if not (isinstance(a, types.Array) and is_mask(mask)):
            return None
        if mask.ndim > a.ndim:
            return _too_many_to_assign
        if isinstance(value, types.Array):
            return _assign_array(a.ndim, mask.ndim)
        if isinstance(value, (types.Number, types.Boolean)):
            return _assign_scalar(a.ndim, mask.ndim)
        return None


def _too_many(a, mask):  # noqa: ANN001, ANN202 (numba compiles it)
    raise IndexError("too many indices for array")


def _too_many_to_assign(a, mask, value):  # noqa: ANN001, ANN202
    raise IndexError("too many indices for array")


def _checks() -> tuple[Any, Any]:
    from numba.extending import register_jitable

    @register_jitable
    def check_shape(shape, mask_shape):
        for d in range(len(mask_shape)):
            if mask_shape[d] != shape[d]:
                raise IndexError("boolean index did not match indexed array")

    @register_jitable
    def overlaps(a, b):  # as np.may_share_memory (which numba lacks): do the extents meet?
        if a.size == 0 or b.size == 0:
            return False
        a_low = a_high = a.ctypes.data
        for d in range(a.ndim):
            step = (a.shape[d] - 1) * a.strides[d]
            a_low, a_high = a_low + min(step, 0), a_high + max(step, 0)
        b_low = b_high = b.ctypes.data
        for d in range(b.ndim):
            step = (b.shape[d] - 1) * b.strides[d]
            b_low, b_high = b_low + min(step, 0), b_high + max(step, 0)
        return a_low <= b_high + b.itemsize - 1 and b_low <= a_high + a.itemsize - 1

    return check_shape, overlaps


def _select(ndim: int, mask_ndim: int) -> Any:
    check_shape, _ = _checks()
    first = mask_ndim  # the axes the rows keep: a.shape[first:], a constant

    def select(a, mask):
        check_shape(a.shape, mask.shape)
        count = np.count_nonzero(mask)
        out = np.empty((count,) + a.shape[first:], a.dtype)
        j = 0
        for index in np.ndindex(mask.shape):
            if mask[index]:
                out[j] = a[index]
                j += 1
        return out

    return select


def _assign_scalar(ndim: int, mask_ndim: int) -> Any:
    check_shape, _ = _checks()

    def assign(a, mask, value):
        check_shape(a.shape, mask.shape)
        for index in np.ndindex(mask.shape):
            if mask[index]:
                a[index] = value

    return assign


def _assign_array(ndim: int, mask_ndim: int) -> Any:
    check_shape, overlaps = _checks()
    first = mask_ndim  # the axes the rows keep: a.shape[first:], a constant
    rest = ndim - mask_ndim

    def assign(a, mask, value):
        check_shape(a.shape, mask.shape)
        count = np.count_nonzero(mask)
        if value.ndim > rest and value.shape[value.ndim - rest - 1] not in (1, count):
            raise ValueError(
                "NumPy boolean array indexing assignment cannot assign the input values to the "
                "output values where the mask is true"
            )
        source = value.copy() if overlaps(a, value) else value  # all read first, as numba's 1-d masks
        rows = np.broadcast_to(source, (count,) + a.shape[first:])
        j = 0
        for index in np.ndindex(mask.shape):
            if mask[index]:
                a[index] = rows[j]
                j += 1

    return assign
