"""What codegen produces: a generated module and how to compile it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..compile.compiler import CompiledIn, CompileFlags, CompileRequest
from ..compile.target import Target
from ..graph import Node
from ..types import CythonExport, Signature
from . import vecmath
from .slots import Slot, constants, parameters
from .templates import render

#: Bump when generated code changes meaning, or its objects their bytes, without its text changing
#: (part of cache keys and symbols): 9, the vector math flattened and helpers only linked; 10,
#: each helper compiled once per Op (a fused sum's ``element`` was compiled twice).
CODEGEN_VERSION = "11"


def make_symbol(name: str, text: str, function: str, signature: Signature, flags: CompileFlags) -> str:
    """A stable, readable symbol: ``aot_<name>_<16 hex of the content hash>``.

    The hash covers everything that determines the object's code except the target and the
    toolchain, which differ per build but not within one package.
    """
    digest = hashlib.sha256()
    for part in (CODEGEN_VERSION, text, function, str(signature), repr(flags)):
        digest.update(part.encode())
        digest.update(b"\0")
    readable = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")[:32] or "op"
    return f"aot_{readable}_{digest.hexdigest()[:16]}"


@dataclass(frozen=True)
class OpModule:
    """One generated module: the unit that is compiled into one object file."""

    symbol: str
    kind: str
    """``op`` (from a template), ``kernel`` (user code compiled as written: a graph's kernel or a
    helper it calls) or ``graph`` (a graph's entry)."""

    title: str
    """One line saying what it computes, for progress output and the manifest."""

    text: str
    function: str
    signature: Signature
    flags: CompileFlags
    calls: tuple[str, ...]
    """Symbols of the Ops this module declares and calls, or compiles in (:attr:`compiled_in`)."""

    externals: tuple[CythonExport, ...] = ()
    """Cython exports the module calls (by :attr:`CythonExport.symbol`), which the package
    resolves at run time."""

    compiled_in: tuple[str, ...] = ()
    """Symbols of the modules (among :attr:`calls`) compiled into this one's object rather than
    called: a kernel's regions."""

    @property
    def filename(self) -> str:
        return f"{self.symbol}.py"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def request(self, target: Target, toolchain: str, compiled_in: Sequence[OpModule] = ()) -> CompileRequest:
        """What compiling this module for ``target`` asks of a compile worker: its text,
        function, signature and flags, the C adapter of a graph's entry, and ``compiled_in``, the
        modules of :attr:`compiled_in`."""
        return CompileRequest(
            self.symbol,
            self.text,
            self.function,
            self.signature,
            self.flags,
            target,
            toolchain,
            adapter=self.kind == "graph",
            compiled_in=tuple(CompiledIn(m.symbol, m.text, m.function, m.flags) for m in compiled_in),
        )


#: Traced graphs give NumPy's answers: division by zero is inf/nan, not an exception.
TRACED_FLAGS = CompileFlags(error_model="numpy")
#: ``fastmath = true`` graphs: LLVM may reassociate and assume no NaN or infinity.
FASTMATH_FLAGS = CompileFlags(error_model="numpy", fastmath=True)


def template_op(
    template: str, node: Node, slots: list[Slot], *, name: str, title: str, **context: object
) -> OpModule:
    """An Op of a traced graph, rendered from ``templates/<template>``; its function is ``op``.

    The template gets ``params`` (the inputs passed at run time) and ``constants`` (the inputs
    lifted into module scope) besides ``context``.
    """
    params = parameters(slots)
    text = render(
        template,
        title=title,
        codegen_version=CODEGEN_VERSION,
        params=[slot.name for slot in params],
        constants=constants(slots),
        **context,
    )
    signature = Signature(tuple(slot.type for slot in params), node.type)  # type: ignore[arg-type]
    return op_module(
        name=name, kind="op", title=title, text=text, function="op", signature=signature, flags=TRACED_FLAGS
    )


def op_module(
    *,
    name: str,
    kind: str,
    title: str,
    text: str,
    function: str,
    signature: Signature,
    flags: CompileFlags,
    calls: tuple[str, ...] = (),
    compiled_in: tuple[str, ...] = (),
) -> OpModule:
    if vecmath.used_in(text):
        flags = replace(flags, wide_vectors=True)
    symbol = make_symbol(name, text, function, signature, flags)
    externals = cython_exports_in(text)
    return OpModule(symbol, kind, title, text, function, signature, flags, calls, externals, compiled_in)


_CYTHON_EXPORT = re.compile(r'\bcython_export\("([\w.]+)", "(\w+)", "[^"]*"\)')


def cython_exports_in(text: str) -> tuple[CythonExport, ...]:
    """The Cython exports a generated module binds (``cython_export("module", "name", ...)``,
    whichever template or kernel wrote it), by symbol."""
    from ..trace.cython import lookup_export

    found = {lookup_export(module, name) for module, name in _CYTHON_EXPORT.findall(text)}
    return tuple(sorted(found, key=lambda export: export.symbol))


def with_flags(module: OpModule, flags: CompileFlags) -> OpModule:
    """``module`` compiled with other numba flags: the same text under its own symbol."""
    if flags == module.flags:
        return module
    name = module.symbol.removeprefix("aot_").rsplit("_", 1)[0]
    return op_module(
        name=name,
        kind=module.kind,
        title=module.title
        + " [fastmath]" * (flags.fastmath and not module.flags.fastmath)
        + " [parallel]" * (flags.parallel and not module.flags.parallel),
        text=module.text,
        function=module.function,
        signature=module.signature,
        flags=flags,
        calls=module.calls,
        compiled_in=module.compiled_in,
    )


def with_parallel_loops(module: OpModule) -> OpModule:
    """``module`` compiled so that its ``prange`` loops run on the package's threads (and
    nothing else numba could parallelise): a traced Op of a ``parallel = true`` graph."""
    return with_flags(module, replace(module.flags, parallel=True, prange_only=True))
