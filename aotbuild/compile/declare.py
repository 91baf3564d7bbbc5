"""Calling a separately compiled Op by declaration.

Generated modules write ``exp_f8 = declare("aot_exp_1a2b...: float64[::1](float64[:])")``.
The result is a numba intrinsic: where the module calls it, the compiled object only *declares*
the symbol (``nm`` shows it as ``U``) and calls it with numba's own calling convention,
propagating exceptions — the callee's machine code exists once, in its own object.

Several ``"symbol: signature"`` variants may be given (a kernel helper called with different
argument types); the first whose argument types fit the call is used. ``parameters`` gives the
callee's parameter list as written (``"x, k=2.0"``), so that calls may name arguments and leave
defaulted ones out, as in Python: numba fills them in at the call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from numba.core import cgutils
from numba.core import types as nbtypes
from numba.extending import intrinsic

from ..config.signature import parse_signature
from .numba_types import signature_to_numba


class Variant:
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


def declare(*variants: str, parameters: str | None = None) -> Any:
    """An intrinsic calling the compiled symbol(s) described by ``"symbol: signature"``."""
    if not variants:
        raise ValueError("declare() needs at least one 'symbol: signature'")
    return declaration([Variant(text) for text in variants], parameters)


def declaration(parsed: list[Variant], parameters: str | None) -> Any:
    """The intrinsic of :func:`declare`, over variants already parsed (a variant decides how a
    call of it is compiled: :mod:`aotbuild.compile.inline` compiles some in)."""
    arity = len(parsed[0].argtypes)
    if any(len(v.argtypes) != arity for v in parsed):
        raise ValueError("all variants of a declaration take the same number of arguments")

    def typing(typingctx: Any, *args: Any) -> Any:
        args = tuple(value_type(typingctx, arg) for arg in args)
        for exact in (True, False):
            for variant in parsed:
                if variant.accepts(typingctx, args, exact):
                    return variant.restype(*variant.argtypes), variant.codegen
        return None

    name = re.sub(r"\W", "_", parsed[0].symbol)  # aotbuild.stats_ext.f.<digest>: a Python name
    if parameters is None:
        parameters = ", ".join(f"arg{i}" for i in range(arity))
    return intrinsic(typing_function(name, parameters, typing))


def itself(function: Any, signature: str, parameters: str) -> Any:
    """An intrinsic calling the function being compiled: ``function``'s calls of itself.

    A module rebinds the function's name to it (``fact = itself(fact, ...)``), so numba types
    those calls by the declared ``signature`` and lowers each to a call of the function whose
    body holds it; :func:`aotbuild.compile.compiler.compile_request` compiles ``function``.
    """
    argtypes, restype = signature_to_numba(parse_signature(signature))

    def typing(typingctx: Any, *args: Any) -> Any:
        args = tuple(value_type(typingctx, arg) for arg in args)
        if any(
            typingctx.can_convert(given, wanted) is None for given, wanted in zip(args, argtypes, strict=True)
        ):
            return None
        return restype(*argtypes), codegen

    def codegen(context: Any, builder: Any, signature_: Any, args: Any) -> Any:
        call_conv = context.call_conv
        status, result = call_conv.call_function(builder, builder.function, restype, argtypes, args)
        with cgutils.if_unlikely(builder, status.is_error):
            call_conv.return_status_propagate(builder, status)
        if restype is nbtypes.none:
            return context.get_dummy_value()
        return result

    declaration = intrinsic(typing_function(function.__name__, parameters, typing))
    declaration.compiled_function = function  # type: ignore[attr-defined]
    return declaration


def value_type(typingctx: Any, value: Any) -> Any:
    """A call's argument as numba types it: an omitted argument arrives as its default value."""
    if isinstance(value, nbtypes.Type):
        return value
    return nbtypes.unliteral(typingctx.resolve_value_type(value))


def typing_function(name: str, parameters: str, typing: Callable[..., Any], defaults: Any = None) -> Any:
    """``def name(typingctx, <parameters>): return typing(typingctx, <each parameter>)``.

    numba folds a call's keyword and omitted arguments into an intrinsic by its typing
    function's own parameters (and cannot fold star-args), so the typing function takes the
    callee's: ``parameters`` as written in a ``def`` (``"x, k=2.0"``); default expressions
    are evaluated with NumPy as ``np`` and the names in ``defaults``.
    """
    import ast

    import numpy as np

    names = [arg.arg for arg in ast.parse(f"def f({parameters}): pass").body[0].args.args]  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"typing": typing, "np": np, **(defaults or {})}
    separator = ", " if parameters else ""
    exec(
        f"def {name}(typingctx{separator}{parameters}):\n    return typing(typingctx, {', '.join(names)})\n",
        namespace,
    )
    return namespace[name]
