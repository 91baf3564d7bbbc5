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
import linecache
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

from ..errors import CompileError
from .compiler import GENERATED_PACKAGE, NUMBA_LOCATION, CompiledIn
from .declare import Variant, declaration
from .helpers import exec_generated, share_vector_math
from .intrinsics import fma_target


def inline_op(
    text: str,
    *,
    function: str = "op",
    error_model: str = "numpy",
    fastmath: bool = False,
    filename: str = "",
) -> Any:
    """The ``function`` of the generated module ``text``, callable (and inlined) from numba code;
    ``filename``: the module's file in the package's modules folder, where numba's errors in it
    then point (a region's), else a name of its own."""
    from numba.extending import register_jitable

    fma = fma_target()
    # Kept per process by everything its compiled code depends on: one Op's text may be compiled
    # in with other options (its fastmath variant), or for another FMA setting.
    key = f"{text}\0{function}\0{error_model}\0{fastmath}\0{filename}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    name = f"{GENERATED_PACKAGE}.inline_{digest}{'_fma' if fma else ''}"
    module = sys.modules.get(name)
    if module is None:
        filename = filename or f"{name}.py"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        module = exec_generated(name, filename, compile(text, filename, "exec"))
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
    call of the module's function, which LLVM inlines, its result converted to the declared type.

    The function is typed for the declared argument types when the caller's module loads, so
    numba's complaint about it points at the region's own module and line (typed inside the
    caller's typing, it would be reported as the caller's line, the region's error lost)."""

    def __init__(self, text: str) -> None:
        from numba.core.registry import cpu_target

        super().__init__(text)
        module = _COMPILED_IN.get(self.symbol)
        if module is None:
            raise LookupError(
                f"{self.symbol}: compiled in, but the compile request does not carry its module"
            )
        filename = f"{self.symbol}.py"
        self.function = inline_op(
            module.text,
            function=module.function,
            error_model=module.flags.error_model,
            fastmath=module.flags.fastmath,
            filename=filename,
        )
        typingctx = cpu_target.typing_context
        typingctx.refresh()  # the overload register_jitable just registered
        self.function_type = typingctx.resolve_value_type(self.function)
        self.typed = _typed(typingctx, self.function_type, self.argtypes, filename)
        if typingctx.can_convert(self.typed.return_type, self.restype) is None:
            raise CompileError(
                f"{module.function} returns {self.typed.return_type}, not its declared {self.restype}",
                filename,
            )

    def codegen(self, context: Any, builder: Any, signature: Any, args: Any) -> Any:
        value = context.get_function(self.function_type, self.typed)(builder, args)
        return context.cast(builder, value, self.typed.return_type, self.restype)


def _typed(typingctx: Any, function_type: Any, argtypes: Any, filename: str) -> Any:
    """numba's signature of ``function_type`` for ``argtypes``, its errors a CompileError at the
    line of ``filename`` they name (numba reports the outermost call last)."""
    from numba.core.errors import NumbaError

    from .messages import condense

    try:
        typed = typingctx.resolve_function_type(function_type, argtypes, {})
    except NumbaError as exc:
        message = str(exc).strip()
        lines = [int(line) for file, line in NUMBA_LOCATION.findall(message) if file == filename]
        # numba wraps the function's own error in the overload's "No implementation": that error
        _, marker, inner = message.partition("Rejected as the implementation raised a specific error:")
        if marker:
            message = textwrap.dedent(inner.split("\n - Of which")[0]).strip().removeprefix("TypingError: ")
        raise CompileError(condense(message), filename, lines[-1] if lines else 0) from None
    if typed is None:
        raise CompileError(f"numba found no implementation for {', '.join(map(str, argtypes))}", filename)
    return typed


def compile_in(*variants: str, parameters: str | None = None) -> Any:
    """As :func:`~aotbuild.compile.declare.declare`, but each ``"symbol: signature"`` is compiled
    into the calling module from the text its compile request carries (:func:`compiled_in`)."""
    return declaration([_CompiledInVariant(text) for text in variants], parameters)
