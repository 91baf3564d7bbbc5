"""Calling a separately compiled Op by declaration.

Generated modules write ``exp_f8 = declare("aot_exp_1a2b...: float64[::1](float64[:])")``.
The result is a numba intrinsic: where the module calls it, the compiled object only *declares*
the symbol (``nm`` shows it as ``U``) and calls it with numba's own calling convention,
propagating exceptions — the callee's machine code exists once, in its own object.

Several ``"symbol: signature"`` variants may be given (a kernel helper called with different
argument types); the first whose argument types fit the call is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import cgutils
from numba.core import types as nbtypes
from numba.extending import intrinsic

from ..config.signature import parse_signature
from .numba_types import signature_to_numba


class _Variant:
    def __init__(self, text: str) -> None:
        symbol, sep, signature = text.partition(":")
        if not sep or not symbol.strip():
            raise ValueError(f"expected 'symbol: signature', got {text!r}")
        self.symbol = symbol.strip()
        self.argtypes, self.restype = signature_to_numba(parse_signature(signature.strip()))

    def accepts(self, typingctx: Any, actual: tuple[nbtypes.Type, ...], exact: bool) -> bool:
        if len(actual) != len(self.argtypes):
            return False
        for given, wanted in zip(actual, self.argtypes, strict=True):
            given = nbtypes.unliteral(given)
            if exact and given != wanted:
                return False
            if not exact and typingctx.can_convert(given, wanted) is None:
                return False
        return True

    def codegen(self, context: Any, builder: Any, signature: Any, args: Any) -> Any:
        call_conv = context.call_conv
        function_type = call_conv.get_function_type(self.restype, self.argtypes)
        callee = cgutils.get_or_insert_function(builder.module, function_type, self.symbol)
        status, result = call_conv.call_function(builder, callee, self.restype, self.argtypes, args)
        with cgutils.if_unlikely(builder, status.is_error):
            call_conv.return_status_propagate(builder, status)
        if self.restype is nbtypes.none:
            return context.get_dummy_value()
        return result


def declare(*variants: str) -> Any:
    """An intrinsic calling the compiled symbol(s) described by ``"symbol: signature"``."""
    if not variants:
        raise ValueError("declare() needs at least one 'symbol: signature'")
    parsed = [_Variant(text) for text in variants]
    arity = len(parsed[0].argtypes)
    if any(len(v.argtypes) != arity for v in parsed):
        raise ValueError("all variants of a declaration take the same number of arguments")

    def typing(typingctx: Any, *args: nbtypes.Type) -> Any:
        for exact in (True, False):
            for variant in parsed:
                if variant.accepts(typingctx, args, exact):
                    return variant.restype(*variant.argtypes), variant.codegen
        return None

    return intrinsic(fixed_arity(parsed[0].symbol, arity, typing))


def fixed_arity(name: str, arity: int, typing: Callable[..., Any]) -> Callable[..., Any]:
    """``def name(typingctx, arg0, ..., argN): return typing(typingctx, arg0, ..., argN)``.

    numba cannot fold star-args into an intrinsic, so its typing function needs named
    parameters, as many as the callee takes.
    """
    params = "".join(f", arg{i}" for i in range(arity))
    namespace: dict[str, Any] = {"typing": typing}
    exec(f"def {name}(typingctx{params}):\n    return typing(typingctx{params})\n", namespace)
    return namespace[name]
