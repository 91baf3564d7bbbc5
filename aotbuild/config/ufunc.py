"""The keys of a ufunc graph (``ufunc = true``): what numba's ``@vectorize`` takes, checked.

A ufunc's function is written on scalars, so each of its signatures is scalars only, all with
the same number of arguments and one scalar result; NumPy tries its loops in the declared order.
Settings that make no sense for a loop NumPy drives (``out``: NumPy's own ``out=`` does it;
``grad``, ``cast``, ``parallel``; a kernel) are refused with what to do instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError
from ..types import Scalar, Signature

#: ``identity`` values besides numbers (numba's spelling).
IDENTITIES = ("reorderable",)


def check_ufunc(
    table: Mapping[str, Any],
    signatures: tuple[Signature, ...],
    texts: tuple[str, ...],
    error: Callable[[str, str], ConfigError],
) -> int | float | str | None:
    """Check a ufunc's table; its identity. ``error(message, key)`` makes the error to raise."""
    for text, signature in zip(texts, signatures, strict=True):
        values = [*signature.args, signature.result]
        if not all(isinstance(value, Scalar) for value in values):
            raise error(
                f"{text!r}: a ufunc's function is written on scalars, so its signatures are scalar "
                "types (e.g. 'float64(float64, float64)'); NumPy applies it to every element of "
                'the arrays passed. For array parameters, declare a gufunc (gufunc = "(n)->()")',
                "signature",
            )
        if not signature.args:
            raise error(f"{text!r}: a ufunc takes at least one argument", "signature")
    arities = {len(signature.args) for signature in signatures}
    if len(arities) > 1:
        raise error(
            "every signature of a ufunc takes the same number of arguments (NumPy's loops share "
            f"one arity); got {', '.join(map(repr, texts))}",
            "signature",
        )
    seen: dict[tuple[str, ...], str] = {}
    for text, signature in zip(texts, signatures, strict=True):
        inputs = tuple(value.dtype for value in signature.args)  # type: ignore[union-attr]
        if inputs in seen:
            raise error(
                f"{text!r} and {seen[inputs]!r} take the same argument types: NumPy would only ever "
                "run the first; keep one",
                "signature",
            )
        seen[inputs] = text
    for key, instead in (
        ("out", "NumPy's own out= works on every ufunc"),
        ("grad", "gradients are of traced graphs over arrays"),
        ("cast", "NumPy casts a ufunc's inputs itself (casting=, dtype=)"),
        ("parallel", "NumPy runs a ufunc's loop on one thread"),
    ):
        if table.get(key):
            raise error(f"is not a setting of a ufunc: {instead}", key)
    if table.get("mode", "auto") == "kernel":
        raise error("a ufunc's loops are traced from its scalar function (mode 'auto' or 'trace')", "mode")
    return _identity(table.get("identity"), error)


def _identity(value: Any, error: Callable[[str, str], ConfigError]) -> int | float | str | None:
    if value is None or value in IDENTITIES:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"expected a number or 'reorderable', got {value!r}", "identity")
    if isinstance(value, float) and math.isnan(value):
        raise error("NaN is no identity (NaN op x is NaN, never x)", "identity")
    return value
