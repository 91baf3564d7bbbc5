"""The helper functions of generated modules, compiled as little as their code allows.

A generated module's helpers (``register_jitable`` functions: a fused sum's ``element`` and
``run_sum``, the vector math it pastes in) go through numba's whole pipeline each, and were most
of the compile time of the Ops that have them. Two things numba did for them that no Op needs:

* **the vector math again for every Op.** A module carries the source of every vector math
  function it calls (:mod:`aotbuild.codegen.vecmath`), so a reader sees all of its code and its
  cache key covers it. numba compiles a ``register_jitable`` function once per function object
  and argument types, and a module's pasted copies are new objects for every Op: each Op using
  ``sin`` compiled its ~20 functions again (0.9 of the 1.2 s a fused ``sin(x) + y`` took, warm).
  :func:`share_vector_math` swaps a module's copies for one process-wide copy of the library,
  whose compiled functions numba keeps and links into every Op's object, where LLVM inlines them
  as it did the pasted ones. Only where the module's text holds the library's source verbatim;
  ``has_fma()`` is folded when a function is compiled
  (:func:`aotbuild.compile.intrinsics.native_fma`), so there is one copy per FMA setting. The
  copy is flattened (:mod:`aotbuild.compile.flatten`): a function and its helpers are one numba
  compile, not one each (``tanh_float64``: 0.94 -> 0.28 s, paid once per compile worker).
* **a C-callable wrapper of each helper** (numba's ``cfunc`` wrapper, 11% of the compile time
  of the example project's Ops that have helpers): helpers are only called from compiled code.
  :func:`without_c_wrappers` leaves it out of helpers defined while a module is loaded
  (:func:`exec_generated`, which every generated module goes through).

An object is the same whatever its process compiled before (``tests/compile/test_helpers.py``),
and computes what the module's own copies did, bit for bit (``tests/compile/test_flatten.py``).
"""

from __future__ import annotations

import linecache
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from ..codegen import vecmath
from .flatten import Flattener


@contextmanager
def without_c_wrappers() -> Iterator[None]:
    """``register_jitable`` and ``overload`` functions defined within get no ``cfunc`` wrapper
    (numba's default options for them, which it copies when each is defined): a generated
    module's, and those of any module first imported meanwhile (a kernel's imports), which only
    lose a wrapper nothing links. Under numba's compiler lock, so that two threads loading modules
    cannot restore each other's change."""
    from numba.core import extending
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:
        defaults = extending._overload_default_jit_options  # type: ignore[attr-defined]
        before = dict(defaults)
        defaults["no_cfunc_wrapper"] = True
        try:
            yield
        finally:
            defaults.clear()
            defaults.update(before)


@contextmanager
def linked_not_run() -> Iterator[None]:
    """Helpers of generated modules compiled within are made only to be linked into the Op's
    object: numba's JIT does not also make their machine code for this process.

    numba compiles a helper as a function it may call, in its JIT: once lowered, it optimises the
    helper's module, hands it to the execution engine and makes its machine code (LLVM's codegen
    passes, which change the module before the Op links it in), ~20 ms a helper that nothing
    runs: a helper has no Python wrapper, so numba records a null address for it anyway. Within,
    such a helper's library is optimised as before, never added to the engine, and its module is
    linked into the Op as LLVM left it. Helpers of other modules (a kernel's numba functions,
    which Python may call) are made as numba makes them. Under numba's compiler lock."""
    from numba import _dynfunc  # type: ignore[attr-defined]
    from numba.core import codegen, cpu
    from numba.core.compiler_lock import global_compiler_lock

    from .compiler import GENERATED_PACKAGE

    get_executable = cpu.CPUContext.get_executable
    finalize_module = codegen.JITCodeLibrary._finalize_final_module

    def executable(context: Any, library: Any, fndesc: Any, env: Any) -> Any:
        generated = str(fndesc.modname).startswith(f"{GENERATED_PACKAGE}.")
        if not generated or _defines(library, fndesc.llvm_cpython_wrapper_name):
            return get_executable(context, library, fndesc, env)
        library.aotbuild_linked_only = True
        name = fndesc.qualname.split(".")[-1]
        doc = f"compiled wrapper for {fndesc.qualname!r} (linked into Ops only)"
        return _dynfunc.make_function(fndesc.lookup_module(), name, doc, 0, env, (library,))

    def finalize(library: Any) -> None:
        if not getattr(library, "aotbuild_linked_only", False):
            finalize_module(library)
            return
        library._finalize_dynamic_globals()
        library._verify_declare_only_symbols()
        library._finalized = True

    with global_compiler_lock:
        cpu.CPUContext.get_executable = executable  # type: ignore[method-assign]
        codegen.JITCodeLibrary._finalize_final_module = finalize  # type: ignore[method-assign]
        try:
            yield
        finally:
            cpu.CPUContext.get_executable = get_executable  # type: ignore[method-assign]
            codegen.JITCodeLibrary._finalize_final_module = finalize_module  # type: ignore[method-assign]


#: Options of an Op's own numba flags that its helpers never inherit, and in which they differ
#: from a helper's: the Op is compiled only to be emitted (``no_compile``), with no loop lifting.
_OP_ONLY_OPTIONS = {"no_compile": False, "enable_looplift": True, "enable_pyobject_looplift": True}


@contextmanager
def helpers_once() -> Iterator[None]:
    """Each helper compiled once per Op, whether the Op's own function or another helper calls it.

    numba keys a helper it has built by its caller's flags (the whole set, not the options a
    helper inherits: error model, fastmath, bounds checks...), and an Op's flags differ from a
    helper's in options no helper inherits (:data:`_OP_ONLY_OPTIONS`). So a helper called both
    from the Op and from another helper was compiled twice with the same result: every fused
    sum's ``element`` (~0.1 s of 1.1 s), called from ``op`` for short runs and from ``fill``.
    Within, a helper called from the Op's function is looked up as if a helper called it: the
    Op's flags with those options as a helper has them, which leaves what it inherits as it was.
    Under numba's compiler lock."""
    from numba.core import targetconfig
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.typing import templates

    get_impl = templates._OverloadFunctionTemplate._get_impl

    def as_from_a_helper(template: Any, args: Any, kws: Any) -> Any:
        flags = targetconfig.ConfigStack.top_or_none()
        differ = {k: v for k, v in _OP_ONLY_OPTIONS.items() if getattr(flags, k, v) != v}
        if not differ:  # a helper's caller (or none): as numba keys it
            return get_impl(template, args, kws)
        keyed = flags.copy()
        for name, value in differ.items():
            setattr(keyed, name, value)
        with targetconfig.ConfigStack().enter(keyed):
            return get_impl(template, args, kws)

    with global_compiler_lock:
        templates._OverloadFunctionTemplate._get_impl = as_from_a_helper  # type: ignore[method-assign]
        try:
            yield
        finally:
            templates._OverloadFunctionTemplate._get_impl = get_impl  # type: ignore[method-assign]


def _defines(library: Any, name: str) -> bool:
    try:
        library._final_module.get_function(name)
    except NameError:
        return False
    return True


def exec_generated(name: str, filename: str, code: types.CodeType) -> types.ModuleType:
    """Run generated code as the module ``name`` (registered in ``sys.modules``, where numba
    looks functions' modules up; removed again if the code fails), its helpers without C
    wrappers."""
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        with without_c_wrappers():  # its helpers are only called from compiled code
            exec(code, module.__dict__)  # noqa: S102 (generated code)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


@cache
def vector_math_module(fma: bool) -> types.ModuleType:
    """The process-wide generated module the library's functions are defined in, for a target
    with or without FMA, each when first needed (:func:`shared_function`)."""
    from .compiler import GENERATED_PACKAGE

    name = f"{GENERATED_PACKAGE}.vecmath_{'fma' if fma else 'no_fma'}"
    lines = ["import numpy as np", "from numba.extending import register_jitable"]
    lines += vecmath.intrinsics_import(vecmath.library())
    filename = f"{name.rpartition('.')[2]}.py"
    return exec_generated(name, filename, _compiled(filename, "\n".join(lines) + "\n"))


@cache
def _flattener(fma: bool) -> Flattener:
    return Flattener(fma)


def shared_function(name: str, fma: bool) -> types.FunctionType:
    """The library function ``name``, flattened (:mod:`aotbuild.compile.flatten`) and defined in
    :func:`vector_math_module` with the functions it calls, each in a source file of its own."""
    module = vector_math_module(fma)
    for callee in vecmath.closure([name]):
        if callee not in module.__dict__:
            source = _flattener(fma).add(vecmath.library()[callee].source)
            filename = f"{module.__name__.rpartition('.')[2]}_{callee}.py"
            with without_c_wrappers():
                exec(_compiled(filename, source + "\n"), module.__dict__)  # noqa: S102 (generated code)
    function: types.FunctionType = module.__dict__[name]
    return function


def _compiled(filename: str, text: str) -> types.CodeType:
    """``text`` compiled as the file ``filename``, whose lines tracebacks and numba can show."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    return compile(text, filename, "exec")


def share_vector_math(module: types.ModuleType, text: str, fma: bool) -> None:
    """Rebind ``module``'s copies of vector math functions (``text`` is its source) to the
    process-wide ones for a target with or without FMA: each function whose source, and the
    source of every library function it calls, the text holds verbatim."""
    if not vecmath.used_in(text):
        return
    for name in vecmath.library():
        if name in module.__dict__ and all(source in text for source in vecmath.sources([name])):
            module.__dict__[name] = shared_function(name, fma)
