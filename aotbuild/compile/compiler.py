"""Compile one generated module into one object file with numba's AOT code generator.

This is a pure function of its :class:`CompileRequest` — module text, function, signature,
flags and CPU — to object bytes plus the symbols the object defines and needs, so it can be
cached by content and run in any process.

What happens to the object, and why:

* the Op's function gets a stable symbol (numba's own names carry per-process ids) and its
  environment ``<symbol>.env``; a graph entry also gets the C adapter ``<symbol>_c``;
* callees are only declared (see :mod:`aotbuild.compile.declare`);
* the environments of functions numba compiled inside the Op are renamed ``<symbol>.env.<n>``
  and kept visible to the entry module, which fills every environment when it loads;
* every other symbol is made local and renamed ``<symbol>.<n>`` in definition order, so helpers
  of equal names from different Ops can never be merged by the linker, and no per-process
  counter or address reaches the object;
* the exported symbols get hidden visibility: the linked extension exports only its ``PyInit`` and
  the jumps to its graph entries the C entry defines (``aotbuild.<package>.<graph>.<digest>``).
"""

from __future__ import annotations

import ast
import linecache
import re
import types
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import CompileError
from ..types import Signature
from .helpers import exec_generated, helpers_once, linked_not_run, share_vector_math
from .target import Target, llvm_tuning, target_has_fma

#: ``# aotbuild: source model.py:12`` above a ``def``: compile it as that file and line.
SOURCE_DIRECTIVE = re.compile(r"^# aotbuild: source (?P<file>\S+):(?P<line>\d+)\s*$", re.M)

GENERATED_PACKAGE = "aotbuild_generated"


@dataclass(frozen=True, repr=False)
class CompileFlags:
    """The numba options that change generated code (part of every cache key)."""

    error_model: str = "numpy"
    """``numpy`` (division by zero gives inf/nan, as NumPy) or ``python`` (raises, as njit)."""

    fastmath: bool = False
    boundscheck: bool = False
    parallel: bool = False
    """numba's ``parallel=True``: ``prange`` loops run on the package runtime's thread pool."""

    prange_only: bool = False
    """With ``parallel``: only explicit ``prange`` loops run in parallel (traced Ops), none of
    numba's other transformations (array expressions, ``np.zeros``...)."""

    wide_vectors: bool = False
    """The Op's loops are compute-bound (vector math): 512-bit vectors on AVX-512 targets, where
    LLVM's tuning would keep 256 (:func:`aotbuild.compile.target.llvm_tuning`)."""

    def __repr__(self) -> str:
        """Part of symbols and cache keys: ``parallel`` and ``wide_vectors`` only when set, so
        the symbols of everything else stay those of builds before they existed."""
        later = ", parallel=True" if self.parallel else ""
        later += ", prange_only=True" if self.prange_only else ""
        later += ", wide_vectors=True" if self.wide_vectors else ""
        return (
            f"CompileFlags(error_model={self.error_model!r}, fastmath={self.fastmath!r}, "
            f"boundscheck={self.boundscheck!r}{later})"
        )

    def numba_flags(self) -> Any:
        """numba's compiler ``Flags``: no Python wrappers (aotbuild's C entry replaces them),
        the runtime (NRT) on, and these options."""
        from numba.core.compiler import Flags
        from numba.core.cpu import FastMathOptions

        options: dict[str, Any] = {
            "no_compile": True,
            "no_cpython_wrapper": True,
            "no_cfunc_wrapper": True,
            "nrt": True,
            "error_model": self.error_model,
            "boundscheck": self.boundscheck,
        }
        if self.fastmath:
            options["fastmath"] = FastMathOptions(True)
        if self.parallel:
            from numba.core.cpu import ParallelOptions

            if self.prange_only:
                kinds = ("comprehension", "reduction", "inplace_binop", "setitem", "numpy", "stencil")
                options["auto_parallel"] = ParallelOptions({**dict.fromkeys(kinds, False), "prange": True})
            else:
                options["auto_parallel"] = ParallelOptions(True)
        flags = Flags()
        for name, value in options.items():
            setattr(flags, name, value)
        return flags


@dataclass(frozen=True)
class CompiledIn:
    """A module compiled into the requested one rather than called by declaration (a kernel's
    traced region: :func:`aotbuild.compile.inline.compile_in`)."""

    symbol: str
    text: str
    function: str
    flags: CompileFlags


@dataclass(frozen=True)
class CompileRequest:
    symbol: str
    text: str
    function: str
    signature: Signature
    flags: CompileFlags
    target: Target
    toolchain: str
    """The toolchain the request is keyed for (:func:`aotbuild.compile.keys.toolchain_key`)."""

    adapter: bool = False
    """Also export the C adapter ``<symbol>_c`` (graph entries)."""

    compiled_in: tuple[CompiledIn, ...] = ()
    """The modules the text names by symbol (``_aot_compile_in``) to compile into this object."""

    @property
    def filename(self) -> str:
        """The name the module is compiled under: it appears in exception tracebacks."""
        return f"{self.symbol}.py"


@dataclass(frozen=True)
class CompiledObject:
    symbol: str
    data: bytes
    defined: tuple[str, ...]
    needed: tuple[str, ...]


def _check_no_svml() -> None:
    from numba.core import config

    if config.USING_SVML:  # type: ignore[attr-defined]
        raise CompileError(
            "numba was imported with Intel SVML enabled before aotbuild could disable it; "
            "objects built that way need libsvml at run time. Set NUMBA_DISABLE_INTEL_SVML=1."
        )


def load_module(request: CompileRequest) -> types.ModuleType:
    """Execute the generated module text as a fresh module, traceable by numba and linecache."""
    name = f"{GENERATED_PACKAGE}.{request.symbol}"
    filename = request.filename
    tree = ast.parse(request.text, filename)
    directive = SOURCE_DIRECTIVE.search(request.text)
    if directive is not None:
        # A kernel: report its code under the user's file and line numbers.
        filename = directive.group("file")
        generated_def = request.text.count("\n", 0, directive.end()) + 2
        shift = int(directive.group("line")) - generated_def
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == request.function:
                ast.increment_lineno(node, shift)
    else:
        linecache.cache[filename] = (len(request.text), None, request.text.splitlines(True), filename)
    return exec_generated(name, request.filename, compile(tree, filename, "exec"))


#: Where numba's message says the code it complains about is.
NUMBA_LOCATION = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _constant_array_in_object(context: Any, builder: Any, typ: Any, ary: Any) -> Any:
    """numba's constant array, in the object whatever its size: its JIT reads a C or F array
    over 1 MB through its address in the compiling process, which a package cannot hold."""
    make = type(context).make_constant_array
    if typ.layout not in "FC":
        return make(context, builder, typ, ary)
    context.allow_dynamic_globals = False  # this instance, for this array: numba's other branch
    try:
        return make(context, builder, typ, ary)
    finally:
        del context.allow_dynamic_globals


def _compile_error(request: CompileRequest, exc: Exception) -> CompileError:
    from .messages import condense

    message = str(exc).strip()
    locations = NUMBA_LOCATION.findall(message)
    file, line = locations[-1] if locations else (request.filename, "0")
    return CompileError(condense(message), file, int(line))


def _aot_codegen(name: str, cpu: str, tuning: str) -> Any:
    """numba's AOT code generator for ``cpu``, with LLVM features ``tuning`` (numba's own passes
    LLVM the CPU name alone: see :func:`aotbuild.compile.target.llvm_tuning`)."""
    from numba.core.codegen import AOTCPUCodegen

    class TunedAOTCodegen(AOTCPUCodegen):
        def _customize_tm_features(self) -> str:
            return tuning

    return TunedAOTCodegen(name, cpu_name=cpu)


def compile_request(request: CompileRequest) -> CompiledObject:
    """Compile ``request`` into an object file (see the module docstring)."""
    from numba.core import errors as nberrors
    from numba.core import funcdesc
    from numba.core.compiler import compile_extra
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target
    from numba.core.runtime import nrtdynmod

    from .adapter import ADAPTER_SUFFIX, emit_adapter
    from .exceptions import portable_exception_data
    from .inline import compiled_in
    from .intrinsics import native_fma
    from .numba_types import omitted_defaults, signature_to_numba
    from .overloads import register as register_overloads

    _check_no_svml()
    register_overloads()  # NumPy calls numba lacks, for kernels (aotbuild/compile/overloads.py)
    fma = target_has_fma(request.target)
    with (
        global_compiler_lock,
        linked_not_run(),
        helpers_once(),
        portable_exception_data(),
        native_fma(fma),
        compiled_in(request.compiled_in),
    ):
        # Loaded for the target: Ops it compiles in (aotbuild.compile.inline) are kept per FMA setting.
        module = load_module(request)
        share_vector_math(module, request.text, fma)
        function = module.__dict__[request.function]
        function = getattr(function, "compiled_function", function)  # rebound by declare.itself
        argtypes, restype = signature_to_numba(request.signature)
        argtypes += omitted_defaults(function, len(argtypes))
        tuning = llvm_tuning(request.target, request.flags.wide_vectors)
        codegen = _aot_codegen(request.symbol, request.target.cpu, tuning)
        context = cpu_target.target_context.subtarget(_internal_codegen=codegen, aot_mode=True)
        context.make_constant_array = partial(_constant_array_in_object, context)
        own_name = f"{module.__name__}.{function.__qualname__}"

        def mangler(name: str, argtypes_: Any, *, abi_tags: Any = (), uid: Any = None) -> str:
            if name == own_name:
                return request.symbol
            if name == f".NumbaEnv.{own_name}":
                return f"{request.symbol}.env"
            return funcdesc.default_mangler(name, argtypes_, abi_tags=abi_tags, uid=uid)

        context.mangler = mangler
        library = context.codegen().create_library(request.symbol)
        library.add_ir_module(nrtdynmod.create_nrt_module(context)[0])
        flags = request.flags.numba_flags()
        try:
            with warnings.catch_warnings():
                # numba's advice (contiguous arrays, parallel=True...) is not the user's to act on,
                # nor its pedantic internal checks (its IR inliner trips them on the vector math).
                warnings.simplefilter("ignore", nberrors.NumbaPerformanceWarning)
                warnings.simplefilter("ignore", nberrors.NumbaIRAssumptionWarning)
                compiled = compile_extra(
                    cpu_target.typing_context,
                    context,
                    function,
                    argtypes,
                    restype,
                    flags,
                    locals={},
                    library=library,
                )
        except nberrors.NumbaError as exc:
            raise _compile_error(request, exc) from None
        except ImportError as exc:
            # numba needs SciPy to compile linear algebra (BLAS/LAPACK signatures).
            raise CompileError(
                f"{exc}: this Op uses BLAS/LAPACK, which need SciPy at build and run time", request.filename
            ) from None
        if compiled.environment.consts:
            raise CompileError(
                "this code needs Python objects at run time (for example an exception carrying an "
                f"array: {', '.join(type(c).__name__ for c in compiled.environment.consts)}), which "
                "a package that runs without numba cannot provide",
                request.filename,
            )
        if request.adapter:
            emit_adapter(context, library, request.symbol, restype, argtypes)
        library.finalize()
        if any(g.name.startswith("numba.dynamic.globals.") for g in library._final_module.global_variables):
            raise CompileError(
                "this code calls a function numba reaches through an address in the compiling "
                "process (numba.get_num_threads(), numba.get_thread_id(), set_num_threads or a "
                "parallel chunk size inside compiled code, a ctypes or cffi function), which a "
                "package cannot hold: call the package's get_num_threads / set_num_threads from "
                "Python, pass the value in, or call the C function through a Cython export",
                request.filename,
            )
        exported = {request.symbol, f"{request.symbol}.env"}
        if request.adapter:
            exported.add(request.symbol + ADAPTER_SUFFIX)
        defined, needed = _localize(library._final_module, request.symbol, exported)
        data = library.emit_native_object()
    return CompiledObject(request.symbol, data, defined, needed)


def _localize(module: Any, symbol: str, exported: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    defined: list[str] = []
    needed: list[str] = []
    counter = 0
    for value in list(module.functions) + list(module.global_variables):
        name = value.name
        if value.is_declaration:
            if not name.startswith("llvm."):
                needed.append(name)
            continue
        if name in exported:
            value.visibility = "hidden"
            defined.append(name)
            continue
        if name.startswith(".NumbaEnv."):
            # The environment of a function numba compiled inside this Op: the entry module
            # fills it at load, like the Op's own (aotbuild/link/entry.py).
            value.visibility = "hidden"
            value.name = f"{symbol}.env.{counter}"
            counter += 1
            defined.append(value.name)
            continue
        value.linkage = "internal"
        value.name = f"{symbol}.{counter}"
        counter += 1
    return tuple(sorted(defined)), tuple(sorted(needed))
