"""Spellings the generated C shares: NumPy's type numbers and C types, C string literals."""

from __future__ import annotations

import json

#: NumPy type numbers and C types by dtype name.
NPY_TYPES = {
    "bool": ("NPY_BOOL", "uint8_t"),
    "int8": ("NPY_INT8", "int8_t"),
    "int16": ("NPY_INT16", "int16_t"),
    "int32": ("NPY_INT32", "int32_t"),
    "int64": ("NPY_INT64", "int64_t"),
    "uint8": ("NPY_UINT8", "uint8_t"),
    "uint16": ("NPY_UINT16", "uint16_t"),
    "uint32": ("NPY_UINT32", "uint32_t"),
    "uint64": ("NPY_UINT64", "uint64_t"),
    "float32": ("NPY_FLOAT32", "float"),
    "float64": ("NPY_FLOAT64", "double"),
    "complex64": ("NPY_COMPLEX64", "float"),
    "complex128": ("NPY_COMPLEX128", "double"),
}


def c_string(text: str) -> str:
    """A C string literal (JSON escaping is valid C for the characters docstrings use)."""
    return json.dumps(text, ensure_ascii=True)


#: ``order`` of an array argument by its layout (``aot_array_arg`` in _entry_common.h.j2).
ORDERS = {"A": 0, "C": 1, "F": 2}

#: ``order`` of a traced graph's Fortran-ordered array, passed as its C-contiguous transpose.
F_TRANSPOSED = 3
