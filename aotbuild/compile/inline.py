"""Ops and regions compiled into the module that calls them, rather than called by declaration.

A kernel's region (:mod:`aotbuild.trace.regions`) runs once per iteration of the kernel's loop,
often on a few values (a row, a small table): there a call from one compiled object into
another, and the array it returns, cost more than the work. So a region's entry holds the text of
each Op it computes and calls it as a numba function of its own module, which LLVM inlines:

    fused_0 = inline_op(r'''<the Op's generated module>''', error_model="numpy")

The region's module text still determines its code (the Ops' texts are in it), and each Op is
compiled with the options its own module would have been. A process keeps each Op it compiled in
for later regions, once per FMA setting of the target (``has_fma()`` is folded when the Op is
compiled: one kept for a target with FMA would put ``fma`` calls into a generic object), with the
vector math it pastes shared (:mod:`aotbuild.compile.helpers`).

A kernel compiles each of its regions in too (:func:`compile_in`): the region runs once per
iteration of the kernel's loop, and compiled in, LLVM optimises the loop and the region's work
as one function (a quantiser's per-row table scan took 1.5x the time as a call between objects).
The region's module text holds ``r'''`` literals, so the kernel's text cannot: it names the region
by symbol, a hash of the region's text, and the compile request carries the text
(:class:`~aotbuild.compile.compiler.CompiledIn`; the cache key covers it). The region is not
compiled on its own: its code is only in the kernel's object.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
from collections.abc import Iterator
from typing import Any

from .compiler import GENERATED_PACKAGE, CompiledIn
from .declare import Variant, declaration
from .helpers import exec_generated, share_vector_math
from .intrinsics import fma_target


def inline_op(text: str, *, function: str = "op", error_model: str = "numpy", fastmath: bool = False) -> Any:
    """The ``function`` of the generated module ``text``, callable (and inlined) from numba code."""
    from numba.extending import register_jitable

    fma = fma_target()
    # Kept per process by everything its compiled code depends on: one Op's text may be compiled
    # in with other options (its fastmath variant), or for another FMA setting.
    key = f"{text}\0{function}\0{error_model}\0{fastmath}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    name = f"{GENERATED_PACKAGE}.inline_{digest}{'_fma' if fma else ''}"
    module = sys.modules.get(name)
    if module is None:
        module = exec_generated(name, f"{name}.py", compile(text, f"{name}.py", "exec"))
        share_vector_math(module, text, fma)
    inlined = module.__dict__.get("_aot_inlined")
    if inlined is None:
        options: dict[str, Any] = {"forceinline": True, "error_model": error_model}
        if fastmath:
            options["fastmath"] = True
        inlined = module.__dict__["_aot_inlined"] = register_jitable(**options)(module.__dict__[function])
    return inlined


#: The modules the request being compiled carries to compile in, by symbol (:func:`compiled_in`).
_COMPILED_IN: dict[str, CompiledIn] = {}


@contextlib.contextmanager
def compiled_in(modules: tuple[CompiledIn, ...]) -> Iterator[None]:
    """While a request's module loads: the modules it compiles in, for :func:`compile_in`."""
    saved = dict(_COMPILED_IN)
    _COMPILED_IN.update((module.symbol, module) for module in modules)
    try:
        yield
    finally:
        _COMPILED_IN.clear()
        _COMPILED_IN.update(saved)


class _CompiledInVariant(Variant):
    """A ``"symbol: signature"`` whose module is compiled into the caller: a call is typed by the
    declared signature, as a declaration's is (arguments converted to it), then lowered as a
    call of the module's function, which LLVM inlines."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        module = _COMPILED_IN.get(self.symbol)
        if module is None:
            raise LookupError(
                f"{self.symbol}: compiled in, but the compile request does not carry its module"
            )
        self.function = inline_op(
            module.text,
            function=module.function,
            error_model=module.flags.error_model,
            fastmath=module.flags.fastmath,
        )
        self.typed: Any = None

    def chosen(self, typingctx: Any) -> None:
        function_type = typingctx.resolve_value_type(self.function)
        signature = typingctx.resolve_function_type(function_type, self.argtypes, {})
        if signature is None:
            raise TypeError(f"{self.symbol}: its function does not accept its declared signature")
        self.typed = (function_type, signature)

    def codegen(self, context: Any, builder: Any, signature: Any, args: Any) -> Any:
        function_type, typed = self.typed
        return context.get_function(function_type, typed)(builder, args)


def compile_in(*variants: str, parameters: str | None = None) -> Any:
    """As :func:`~aotbuild.compile.declare.declare`, but each ``"symbol: signature"`` is compiled
    into the calling module from the text its compile request carries (:func:`compiled_in`)."""
    return declaration([_CompiledInVariant(text) for text in variants], parameters)
