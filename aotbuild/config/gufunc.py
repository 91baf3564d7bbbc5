"""The keys of a generalized ufunc (``gufunc = "(n),(n)->()"``), as numba's ``@guvectorize``
takes them, checked.

The layout is NumPy's gufunc signature: the core dimensions of each operand, inputs before
``->``, outputs after, each a name (``n``) or a fixed size (``3``). The function's parameters are
the inputs then the outputs (numba's convention: it returns nothing and writes into its outputs),
so each signature returns ``void`` and declares, per operand, an array of as many dimensions as
its core dimensions (any layout: NumPy's strides are passed as they are); an input of no core
dimension (``()``) may be a scalar, and an output of none is a 1-element array written at ``[0]``
(numba's convention, again).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..types import Array, NoneType, Scalar, Signature

_NAME = r"(?:[A-Za-z_]\w*|\d+)"
_OPERAND = rf"\((?:{_NAME}(?:,{_NAME})*)?\)"
_SIDE = re.compile(rf"{_OPERAND}(?:,{_OPERAND})*")


@dataclass(frozen=True)
class GufuncLayout:
    """A parsed gufunc signature: each operand's core dimensions (names, or sizes as text)."""

    inputs: tuple[tuple[str, ...], ...]
    outputs: tuple[tuple[str, ...], ...]

    @property
    def operands(self) -> tuple[tuple[str, ...], ...]:
        return (*self.inputs, *self.outputs)

    def __str__(self) -> str:
        def side(operands: tuple[tuple[str, ...], ...]) -> str:
            return ",".join("(" + ",".join(dims) + ")" for dims in operands)

        return f"{side(self.inputs)}->{side(self.outputs)}"


def parse_layout(text: str) -> GufuncLayout:
    """``"(m,n),(n)->(m)"``; a ValueError saying what is wrong."""
    compact = re.sub(r"\s+", "", text)
    if compact.count("->") != 1:
        raise ValueError("expected inputs, '->' and outputs, e.g. '(n),(n)->()'")
    sides = []
    for part in compact.split("->"):
        if not _SIDE.fullmatch(part):
            raise ValueError(
                f"{part!r}: expected operands' core dimensions in parentheses, separated by commas, "
                "each dimension a name or a size: '(m,n),(n)'"
            )
        sides.append(
            tuple(tuple(d for d in group.split(",") if d) for group in re.findall(r"\(([^()]*)\)", part))
        )
    return GufuncLayout(sides[0], sides[1])


def check_gufunc(
    table: Mapping[str, Any],
    signatures: tuple[Signature, ...],
    texts: tuple[str, ...],
    error: Callable[[str, str], ConfigError],
) -> str:
    """Check a gufunc's table against its signatures; its layout, normalised."""
    value = table["gufunc"]
    if not isinstance(value, str):
        raise error(f"expected a layout such as '(n),(n)->()', got {value!r}", "gufunc")
    try:
        layout = parse_layout(value)
    except ValueError as exc:
        raise error(f"{value!r}: {exc}", "gufunc") from None
    if table.get("ufunc"):
        raise error("a graph is a ufunc or a gufunc, not both", "gufunc")
    seen: dict[tuple[str, ...], str] = {}
    for text, signature in zip(texts, signatures, strict=True):
        _check_signature(layout, value, text, signature, error)
        inputs = tuple(arg.dtype for arg in signature.args[: len(layout.inputs)])  # type: ignore[union-attr]
        if inputs in seen:
            raise error(
                f"{text!r} and {seen[inputs]!r} take the same input types: NumPy would only ever run "
                "the first; keep one",
                "signature",
            )
        seen[inputs] = text
    for key, instead in (
        ("identity", "a gufunc has no identity (NumPy reduces ufuncs of two scalars only)"),
        ("out", "NumPy's own out= works on every gufunc"),
        ("grad", "gradients are of traced graphs"),
        ("cast", "NumPy casts a gufunc's inputs itself (casting=, dtype=)"),
        ("parallel", "NumPy runs a gufunc's loop on one thread"),
    ):
        if table.get(key) or (key == "identity" and key in table):
            raise error(f"is not a setting of a gufunc: {instead}", key)
    if table.get("mode", "auto") == "trace":
        raise error(
            "a gufunc's function writes into its outputs, so it is compiled as a kernel "
            '(mode "auto" or "kernel")',
            "mode",
        )
    return str(layout)


def _check_signature(
    layout: GufuncLayout,
    value: str,
    text: str,
    signature: Signature,
    error: Callable[[str, str], ConfigError],
) -> None:
    if not isinstance(signature.result, NoneType):
        raise error(
            f"{text!r}: a gufunc's function returns nothing (void) and writes into its outputs, "
            "its last parameters",
            "signature",
        )
    if len(signature.args) != len(layout.operands):
        raise error(
            f"{text!r} declares {len(signature.args)} parameter(s) and the layout {value!r} "
            f"{len(layout.operands)} operands (inputs, then outputs)",
            "signature",
        )
    for position, (declared, dims) in enumerate(zip(signature.args, layout.operands, strict=True)):
        output = position >= len(layout.inputs)
        what = (
            f"{'output' if output else 'input'} {position} ({declared}, core dimensions ({','.join(dims)}))"
        )
        if isinstance(declared, Scalar):
            if dims or output:
                raise error(
                    f"{text!r}: {what}: a scalar is an input of no core dimensions, '()'; "
                    "outputs are arrays (of 1 element for '()')",
                    "signature",
                )
            continue
        assert isinstance(declared, Array)
        ndim = max(len(dims), 1)
        if declared.ndim != ndim:
            raise error(f"{text!r}: {what}: expected an array of {ndim} dimension(s)", "signature")
        if declared.layout != "A":
            raise error(
                f"{text!r}: {what}: declare any layout ('[:]'): NumPy passes each operand's core "
                "with the strides it has",
                "signature",
            )
        if output and declared.readonly:
            raise error(f"{text!r}: {what}: an output is written into; it cannot be readonly", "signature")
