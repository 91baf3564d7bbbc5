"""The scalar code of an elementwise Op: one ufunc applied to already-loaded values.

numba's scalar ufuncs give NumPy's answers for most operations; where they do not, a helper
from ``templates/ops/scalar/`` reproduces NumPy's loop (the list below says which and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Helper:
    """A scalar helper template rendered into the module, under the name ``<name>_<dtype>``."""

    template: str
    dtype: str
    context: tuple[tuple[str, object], ...] = field(default=())

    @property
    def function(self) -> str:
        base = (
            self.template.rsplit("_", 1)[0] if self.template.endswith(("_float", "_int")) else self.template
        )
        return f"{base}_{self.dtype}"

    def render_context(self) -> dict[str, object]:
        return {"dtype": self.dtype, **dict(self.context)}


def _integer_context(dtype: np.dtype) -> tuple[tuple[str, object], ...]:
    # (int)(1.0 / 0): x86-64 converts infinity to the minimum of int32/int64 and truncates.
    zero_result = int(np.iinfo(dtype).min) if dtype.kind == "i" and dtype.itemsize >= 4 else 0
    return (
        ("signed", dtype.kind == "i"),
        ("unsigned", dtype.kind == "u"),
        ("bits", dtype.itemsize * 8),
        ("zero_result", zero_result),
    )


def scalar_expression(
    fn: str, in_dtypes: tuple[str, ...], args: list[str], scalar_inputs: tuple[bool, ...]
) -> tuple[str, list[Helper]]:
    """The expression computing ``fn`` on ``args`` (already cast to ``in_dtypes``).

    ``scalar_inputs[i]`` says whether input ``i`` is a scalar (not broadcast from an array):
    NumPy's float ``power`` takes fast paths only for a scalar exponent.
    """
    dtype = np.dtype(in_dtypes[0]) if in_dtypes else None
    kind = dtype.kind if dtype is not None else ""
    joined = ", ".join(args)

    if fn == "cast":
        return args[0], []
    if fn in ("real", "imag"):
        return f"({args[0]}).{fn}", []
    if fn == "where":
        return f"({args[1]} if {args[0]} else {args[2]})", []

    helper: Helper | None = None
    assert dtype is not None
    if fn in ("floor_divide", "remainder") and kind == "f":
        # numba's float floor division is not NumPy's divmod-based one (1.0 // 0.1 == 10.0).
        helper = Helper(f"{fn}_float", dtype.name)
    elif fn in ("floor_divide", "remainder", "fmod") and kind in "iu":
        # numba traps on MIN // -1 (SIGFPE) and its integer fmod has Python's sign.
        helper = Helper(f"{fn}_int", dtype.name, _integer_context(dtype))
    elif fn == "power" and kind in "iu":
        helper = Helper("power_int", dtype.name, _integer_context(dtype))
    elif fn == "power" and kind == "f" and scalar_inputs[1]:
        helper = Helper("power_scalar_exponent", dtype.name)
    elif fn in ("left_shift", "right_shift") and kind in "iu":
        # Shifting by the bit width or more is undefined in LLVM; NumPy defines it.
        helper = Helper(fn, dtype.name, _integer_context(dtype))
    elif fn == "sign" and kind in "fu":
        # numba gives -0.0 for sign(-0.0) and MAX for sign of an unsigned value.
        helper = Helper("sign", dtype.name, (("unsigned", kind == "u"),))
    elif fn == "reciprocal" and kind in "iu":
        helper = Helper("reciprocal_int", dtype.name, _integer_context(dtype))
    if helper is not None:
        return f"{helper.function}({joined})", [helper]
    return f"np.{fn}({joined})", []


def load_expression(value: str, source_dtype: str, loop_dtype: str) -> str:
    """``value`` converted to the loop dtype, when NumPy's loop casts it."""
    if source_dtype == loop_dtype:
        return value
    return f"np.{loop_dtype}({value})"
