"""Python source text for constants lifted into a generated module's scope.

The text must reproduce the value bit for bit (``-0.0``, NaN, ``inf``) and be the same in every
build, since module text is the Op's identity. Small arrays are written as lists a person can
read; large ones as hex of their bytes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Arrays up to this many elements are written out as a list literal.
READABLE_ARRAY_LIMIT = 64


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "np.nan"
    if math.isinf(value):
        return "np.inf" if value > 0 else "-np.inf"
    return repr(float(value))


def _element_text(value: Any) -> str:
    kind = value.dtype.kind
    if kind == "b":
        return "True" if bool(value) else "False"
    if kind in "iu":
        return repr(int(value))
    if kind == "f":
        return _float_text(float(value))
    if kind == "c":
        return f"complex({_float_text(float(value.real))}, {_float_text(float(value.imag))})"
    raise TypeError(f"no literal for dtype {value.dtype}")


def _canonical_nans(array: np.ndarray) -> bool:
    """Whether every NaN in ``array`` is the one ``np.nan`` reproduces (sign and payload)."""
    if array.dtype.kind not in "fc":
        return True
    flat = np.array(array, order="C").reshape(-1)
    if array.dtype.kind == "c":
        flat = flat.view(np.dtype(f"f{array.dtype.itemsize // 2}"))
    nans = flat[np.isnan(flat)]
    reference = np.array(np.nan, dtype=flat.dtype).tobytes()
    return all(item.tobytes() == reference for item in nans)


def scalar_literal(value: np.generic | np.ndarray) -> str:
    """``np.float32(2.5)``-style text for a NumPy scalar."""
    array = np.asarray(value)
    if not _canonical_nans(array):
        return f"{array_literal(array.reshape(1))}[0]"
    return f"np.{value.dtype.name}({_element_text(value)})"


def array_literal(array: np.ndarray) -> str:
    """Text building ``array`` (read-only, C order) exactly."""
    dtype = array.dtype.name
    if array.size <= READABLE_ARRAY_LIMIT and _canonical_nans(array):
        items = ", ".join(_element_text(item) for item in array.reshape(-1))
        text = f"np.array([{items}], dtype=np.{dtype})"
    else:
        hexdata = np.array(array, order="C").tobytes().hex()
        text = f"np.frombuffer(bytes.fromhex({hexdata!r}), dtype=np.{dtype})"
    if array.ndim != 1:
        text += f".reshape({tuple(int(n) for n in array.shape)!r})"
    return text


def constant_literal(value: np.ndarray) -> str:
    """A scalar literal for 0-d values, an array literal otherwise."""
    if value.ndim == 0:
        return scalar_literal(value[()])
    return array_literal(value)
