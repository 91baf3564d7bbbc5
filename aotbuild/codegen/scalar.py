"""The scalar code of an elementwise Op: one ufunc applied to already-loaded values.

numba's scalar ufuncs give NumPy's answers for most operations; where they do not, a helper
from ``templates/ops/scalar/`` reproduces NumPy's loop (the list below says which and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph.ops import SPECIAL_PREFIX, TRANSCENDENTAL
from .vecmath import range_check, vector_function


@dataclass(frozen=True)
class Helper:
    """A scalar helper template rendered into the module, under the name ``<name>_<dtype>``."""

    template: str
    dtype: str
    context: tuple[tuple[str, object], ...] = field(default=())
    library: tuple[str, ...] = ()
    """The vector math functions its code calls (they come with it)."""

    suffix: str = ""
    """Tells apart two renderings of one template in a module: a loop's exact rerun calls the C
    library where its first run calls the vector math (``power_scalar_exponent_float64_exact``)."""

    @property
    def function(self) -> str:
        base = (
            self.template.rsplit("_", 1)[0] if self.template.endswith(("_float", "_int")) else self.template
        )
        return f"{base}_{self.dtype}{self.suffix}"

    def render_context(self) -> dict[str, object]:
        return {"dtype": self.dtype, "function": self.function, **dict(self.context)}


def _integer_context(dtype: np.dtype) -> tuple[tuple[str, object], ...]:
    # (int)(1.0 / 0): x86-64 converts infinity to the minimum of int32/int64 and truncates.
    zero_result = int(np.iinfo(dtype).min) if dtype.kind == "i" and dtype.itemsize >= 4 else 0
    return (
        ("signed", dtype.kind == "i"),
        ("unsigned", dtype.kind == "u"),
        ("bits", dtype.itemsize * 8),
        ("zero_result", zero_result),
    )


@dataclass(frozen=True)
class ScalarCode:
    """The code of one ufunc applied to loaded values."""

    expression: str
    helpers: list[Helper]
    """Templates and vector math functions the expression calls (rendered into the module)."""

    library: list[str]
    """Vector math functions the expression calls."""

    checks: list[str]
    """Conditions under which the vector math is right: where one fails (a sine of an argument
    beyond the vector code's range) the loop must run again with ``exact`` code."""


def scalar_expression(
    fn: str,
    in_dtypes: tuple[str, ...],
    args: list[str],
    scalar_inputs: tuple[bool, ...],
    exact: bool = False,
    plain: bool = False,
    constants: tuple[np.ndarray | None, ...] = (),
) -> ScalarCode:
    """The expression computing ``fn`` on ``args`` (already cast to ``in_dtypes``).

    ``scalar_inputs[i]`` says whether input ``i`` is a scalar (not broadcast from an array):
    NumPy's float ``power`` takes fast paths only for a scalar exponent. Transcendental functions
    of floats use the vector math library (so loops vectorise) unless ``exact``: then the C
    library's, as numba calls them. ``plain``: the code of ``abs_squared`` without its special
    case, which gives NaN where the exact one gives inf (a part infinite, the other NaN), so a
    loop that sees no NaN has the exact values (a fused argmin's fast scan). ``constants[i]``:
    input ``i``'s value where it is a constant of the module (a power's exponent picks its path
    once, here, rather than at every element of code compiled for every path).
    """
    dtype = np.dtype(in_dtypes[0]) if in_dtypes else None
    kind = dtype.kind if dtype is not None else ""
    joined = ", ".join(args)

    if fn == "cast":
        return ScalarCode(args[0], [], [], [])
    if fn in ("real", "imag"):
        return ScalarCode(f"({args[0]}).{fn}", [], [], [])
    if fn == "abs_squared":
        # |z| ** 2 of a complex z (aotbuild/rewrite/norms.py): the parts' squares added; an
        # infinite part gives inf beside a NaN, as NumPy's hypot does
        z = f"({args[0]})"
        infinite = f"np.isinf({z}.real) or np.isinf({z}.imag)"
        squares = f"{z}.real * {z}.real + {z}.imag * {z}.imag"
        if plain:
            return ScalarCode(f"({squares})", [], [], [])
        return ScalarCode(f"(np.inf if {infinite} else {squares})", [], [], [])
    if fn == "where":
        return ScalarCode(f"({args[1]} if {args[0]} else {args[2]})", [], [], [])

    assert dtype is not None
    if fn.startswith(SPECIAL_PREFIX):
        return _special(fn.removeprefix(SPECIAL_PREFIX), dtype.name, args)
    vector = None if exact else vector_function(fn, dtype.name) if fn in TRANSCENDENTAL else None
    if fn == "absolute" and kind == "c" and not exact:
        # NumPy's complex abs is hypot(real, imag).
        hypot = vector_function("hypot", np.dtype(dtype.char.lower()).name)
        if hypot is not None:
            return ScalarCode(f"{hypot}(({args[0]}).real, ({args[0]}).imag)", [], [hypot], [])
    helper: Helper | None = None
    if fn in ("floor_divide", "remainder") and kind == "f":
        # numba's float floor division is not NumPy's divmod-based one (1.0 // 0.1 == 10.0).
        helper = Helper(f"{fn}_float", dtype.name)
    elif (
        fn in ("floor_divide", "remainder") and kind in "iu" and dtype.itemsize <= 4 and not scalar_inputs[1]
    ):
        # By an array: in floating point, exactly, which vectorises (x86 has no vector integer
        # division); by a scalar, LLVM divides a vector by multiplying, as below.
        context = (*_integer_context(dtype), ("by_array", True))
        helper = Helper(f"{fn}_int", dtype.name, context, suffix="_by_array")
    elif fn in ("floor_divide", "remainder", "fmod") and kind in "iu":
        # numba traps on MIN // -1 (SIGFPE) and its integer fmod has Python's sign.
        helper = Helper(f"{fn}_int", dtype.name, (*_integer_context(dtype), ("by_array", False)))
    elif fn == "power" and kind in "iu":
        helper = Helper("power_int", dtype.name, _integer_context(dtype))
    elif fn == "power" and kind == "f" and not exact and (path := _constant_power(dtype, args, constants)):
        return path
    elif fn == "power" and kind == "f" and scalar_inputs[1]:
        general = vector or "np.power"
        suffix = "_exact" if exact and vector_function(fn, dtype.name) else ""
        integer = None if exact else vector_function("power_integer", dtype.name)
        negative = None if exact else vector_function("power_negative_integer", dtype.name)
        helper = Helper(
            "power_scalar_exponent",
            dtype.name,
            (("general", general), ("integer", integer), ("negative", negative)),
            tuple(f for f in (vector, integer, negative) if f),
            suffix,
        )
    elif fn in ("left_shift", "right_shift") and kind in "iu":
        # Shifting by the bit width or more is undefined in LLVM; NumPy defines it.
        helper = Helper(fn, dtype.name, _integer_context(dtype))
    elif fn == "sign" and kind in "fu":
        # numba gives -0.0 for sign(-0.0) and MAX for sign of an unsigned value.
        helper = Helper("sign", dtype.name, (("unsigned", kind == "u"),))
    elif fn == "reciprocal" and kind in "iu":
        helper = Helper("reciprocal_int", dtype.name, _integer_context(dtype))
    if helper is not None:
        return ScalarCode(f"{helper.function}({joined})", [helper], list(helper.library), [])
    if exact and fn in ("sin", "cos", "tan") and dtype.name == "float32":
        # The loop met an argument past the vector code's range: the C library's double function,
        # rounded once (tanf is 1.26 ulp off near its poles; this keeps the documented bound).
        return ScalarCode(f"np.float32(np.{fn}(np.float64({args[0]})))", [], [], [])
    if vector is not None:
        check = range_check(fn, dtype.name)
        checks = [f"{check}({args[0]})"] if check else []
        return ScalarCode(f"{vector}({joined})", [], [vector, *([check] if check else [])], checks)
    return ScalarCode(f"np.{fn}({joined})", [], [], [])


def _constant_power(
    dtype: np.dtype, args: list[str], constants: tuple[np.ndarray | None, ...]
) -> ScalarCode | None:
    """``x ** c`` for a constant scalar ``c``: the one path ``power_scalar_exponent.py.j2`` would
    take for it at run time, alone. numba types and lowers every path of that helper, the
    general vector power's ~300 lines among them, whatever the exponent: a fused
    ``(x + 2.0) ** 3.0`` took 2.4 s to compile. None where the exponent is not a constant."""
    exponent = constants[1] if len(constants) > 1 else None
    if exponent is None or exponent.ndim != 0:
        return None
    c = dtype.type(exponent[()])
    x, one = f"({args[0]})", f"np.{dtype.name}(1.0)"
    fast = {-1.0: f"{one} / {x}", 0.0: one, 0.5: f"np.sqrt({x})", 1.0: x, 2.0: f"{x} * {x}"}
    if float(c) in fast:  # -0.0 too, as the helper's y == 0.0
        return ScalarCode(f"({fast[float(c)]})", [], [], [])
    for low, high, name, n in ((3, 8, "power_integer", c), (-8, -2, "power_negative_integer", -c)):
        function = vector_function(name, dtype.name)
        if function is not None and low <= c <= high and c == int(c):
            return ScalarCode(f"{function}({x}, {int(n)})", [], [function], [])
    general = vector_function("power", dtype.name)
    return ScalarCode(f"{general or 'np.power'}({', '.join(args)})", [], [general] if general else [], [])


def _special(name: str, dtype: str, args: list[str]) -> ScalarCode:
    """scipy.special ``name``: a call of SciPy's C export (:mod:`aotbuild.trace.special`)."""
    from ..trace.special import export_for

    export, widened = export_for(name, dtype)
    context = (
        ("name", name),
        ("module", export.module),
        ("export", export.export),
        ("signature", str(export.signature)),
        ("export_dtype", export.result),
        ("widened", widened),
        ("nin", len(args)),
    )
    helper = Helper("cython_special", dtype, context, suffix=f"_{name}")
    return ScalarCode(f"{helper.function}({', '.join(args)})", [helper], [], [])


def load_expression(value: str, source_dtype: str, loop_dtype: str) -> str:
    """``value`` converted to the loop dtype, when NumPy's loop casts it."""
    if source_dtype == loop_dtype:
        return value
    return f"np.{loop_dtype}({value})"
