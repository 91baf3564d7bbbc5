"""Kernels: functions compiled as written (``mode = "kernel"``), and the helpers they call.

For its module to be self-contained — the text alone determining the compiled code — a kernel's
globals are lifted: library modules and objects become imports, constants become literals, and
every helper function it calls (plain or ``@njit``) becomes a separate compiled Op that the module
*declares*. To know each helper's argument types, the kernel is typed by numba with a stand-in
for each helper; the stand-in types the helper in turn (recursively) and records the call.
"""

from __future__ import annotations

import hashlib
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ..compile.compiler import CompileFlags
from ..errors import KernelError
from ..graph import Graph
from ..types import Array, Result, Scalar, Signature, TupleOf, Value
from .lifting import FunctionInfo, function_info, python_function
from .regions import KernelRegions, RegionsFound


@dataclass(frozen=True)
class KernelUnit:
    """A function compiled as written, for one signature, with what its module needs."""

    name: str
    """The function's ``__name__`` (also its name in the generated module)."""

    qualname: str
    """``module.qualname``, for messages and titles."""

    source: str
    """The ``def`` as written (decorators removed, dedented), its array statements replaced by
    calls of their traced regions (``regions``) where it has some."""

    origin_file: str
    """Where it was written, relative to the project (``model.py``)."""

    origin_line: int
    """The line of its ``def`` there."""

    imports: tuple[str, ...]
    """Import statements for the library modules and objects it uses."""

    constants: tuple[str, ...]
    """``NAME = literal`` statements for the constants it uses."""

    helpers: tuple[tuple[str, tuple[KernelUnit, ...]], ...]
    """Global name -> the compiled helper variants called under that name."""

    parameters: str
    """The parameter list its callers' declarations take (``"x, k=2.0"``): keyword and
    omitted arguments are folded by it."""

    signature: Signature
    flags: CompileFlags

    calls_itself: bool = False
    """It calls itself (with these argument types): those calls go to its own code."""

    regions: tuple[tuple[str, tuple[Graph, ...]], ...] = ()
    """Region name -> the traced graphs its array statements became, one per argument types
    it was called with (see :mod:`aotbuild.trace.regions`); ``source`` calls them."""

    region_notes: tuple[str, ...] = ()
    """Why array statements were left to numba (``programs.py:12: np.foo is not supported``)."""

    as_written: str = ""
    """The ``def`` as written, where ``source`` calls regions instead of some of its lines."""

    def units(self) -> list[KernelUnit]:
        """This unit and every helper unit it reaches, each once (callers first)."""
        found: dict[str, KernelUnit] = {}
        stack = [self]
        while stack:
            unit = stack.pop(0)
            if unit.key not in found:
                found[unit.key] = unit
                stack.extend(variant for _, variants in unit.helpers for variant in variants)
        return list(found.values())

    def traced_regions(self) -> tuple[list[str], list[str]]:
        """Where this kernel and its helpers have traced array statements (``programs.py:12``),
        and why others were left to numba (see :mod:`aotbuild.trace.regions`)."""
        traced: list[str] = []
        notes: list[str] = []
        for unit in self.units():
            for _, graphs in unit.regions:
                where = graphs[0].config.function.split(" (", 1)[-1].rstrip(")")
                traced += [where] if where not in traced else []
            notes += [note for note in unit.region_notes if note not in notes]
        return traced, notes

    @property
    def written_source(self) -> str:
        """The ``def`` as the user wrote it (what :mod:`aotbuild.trace.writes` reads)."""
        return self.as_written or self.source

    @property
    def origin(self) -> str:
        return f"{self.origin_file}:{self.origin_line}"

    @cached_property
    def key(self) -> str:
        """A content hash of everything above, helpers included (stable across processes)."""
        digest = hashlib.sha256()
        parts = [self.name, self.source, self.origin, *self.imports, *self.constants, self.parameters]
        parts.append(str(self.calls_itself))
        parts += [str(self.signature), repr(self.flags)]
        for name, variants in self.helpers:
            parts.append(name)
            parts.extend(variant.key for variant in variants)
        for name, graphs in self.regions:
            parts.append(name)
            parts.extend(graph.key for graph in graphs)
        for part in parts:
            digest.update(part.encode() + b"\0")
        return digest.hexdigest()


# ---------------------------------------------------------------------------------------------
# Typing with stand-ins for the helpers
# ---------------------------------------------------------------------------------------------


def _compatible(declared: Result, inferred: Result) -> bool:
    """Whether a function inferred to return ``inferred`` may be declared as ``declared``."""
    if isinstance(declared, TupleOf) and isinstance(inferred, TupleOf):
        return len(declared.items) == len(inferred.items) and all(
            _compatible(d, i) for d, i in zip(declared.items, inferred.items, strict=True)
        )
    if isinstance(declared, Array) and isinstance(inferred, Array):
        layout_ok = declared.layout == "A" or inferred.layout == "C"
        return declared.dtype == inferred.dtype and declared.ndim == inferred.ndim and layout_ok
    return declared == inferred


class KernelAnalyser:
    """Analyses kernels and, recursively, their helpers; one per build (it memoizes)."""

    def __init__(self, root: Path, regions: bool = True) -> None:
        self.root = root.resolve()
        self.regions = regions
        """Trace kernels' array statements (:mod:`aotbuild.trace.regions`)."""
        self._infos: dict[int, FunctionInfo] = {}
        self._units: dict[tuple[int, tuple[Value, ...]], KernelUnit] = {}
        self._in_progress: list[tuple[int, tuple[Value, ...]]] = []
        """Units being typed, outermost first."""
        self._typed: dict[tuple[int, tuple[Value, ...]], Callable[..., Any]] = {}
        """The function numba types for each unit in progress."""
        self._calls_itself: set[tuple[int, tuple[Value, ...]]] = set()
        self._partial: set[tuple[int, tuple[Value, ...]]] = set()
        """Units whose return type numba is inferring from their other return paths."""
        self._pending_error: KernelError | None = None

    def _info(self, function: Any) -> FunctionInfo:
        python = python_function(function)
        key = id(python)
        if key not in self._infos:
            self._infos[key] = function_info(function, self.root)
        return self._infos[key]

    def kernel(self, function: Any, signature: Signature, parallel: bool = False) -> KernelUnit:
        """The unit for a graph's kernel, checked against its declared result; ``parallel``
        compiles it as ``@njit(parallel=True)`` (its decorator may say so too)."""
        _prepare_numba()
        unit = self._unit(function, signature.args)
        if parallel and not unit.flags.parallel:
            unit = replace(unit, flags=replace(unit.flags, parallel=True))
        if not _compatible(signature.result, unit.signature.result):
            raise KernelError(
                f"kernel `{unit.qualname}` ({unit.origin}) returns {unit.signature.result}, but "
                f"its signature declares {signature.result}"
            )
        return replace(unit, signature=signature)

    def _unit(self, function: Any, argtypes: tuple[Value, ...]) -> KernelUnit:
        """The unit for ``function`` called with ``argtypes``: the same whether it is a graph's
        kernel or a helper, so code used in both roles is compiled once."""
        info = self._info(function)
        key = (id(info.function), argtypes)
        if key in self._units:
            return self._units[key]
        if key in self._in_progress:
            raise KernelError(
                f"`{info.qualname}` ({info.origin_file}:{info.origin_line}) calls itself through other "
                "helpers; a function may call itself directly, but not through others"
            )
        self._in_progress.append(key)
        try:
            calls: dict[str, list[KernelUnit]] = {}
            typed = self._typed[key] = self._with_stand_ins(info, calls)
            result, typemap = self._infer(info, typed, argtypes)
            found = None
            if self.regions and not info.flags.parallel:
                found = self._traced_regions(info, key, argtypes, result, typemap)
                if found.regions:
                    calls = found.calls
        finally:
            self._in_progress.pop()
            self._typed.pop(key, None)
        helpers = tuple((name, tuple(variants)) for name, variants in calls.items())
        unit = KernelUnit(
            name=info.name,
            qualname=info.qualname,
            source=found.source if found is not None and found.regions else info.source,
            origin_file=info.origin_file,
            origin_line=info.origin_line,
            imports=tuple(info.imports),
            constants=tuple(info.constants),
            helpers=helpers,
            parameters=info.parameters,
            signature=Signature(argtypes, result),
            flags=info.flags,
            calls_itself=key in self._calls_itself,
            regions=found.regions if found is not None else (),
            region_notes=found.notes if found is not None else (),
            as_written=info.source if found is not None and found.regions else "",
        )
        self._units[key] = unit
        return unit

    def _traced_regions(
        self, info: FunctionInfo, key: Any, argtypes: tuple[Value, ...], result: Result, typemap: Any
    ) -> RegionsFound:
        """The kernel with its array statements traced, typed again by numba with a stand-in for
        each region (and the helpers' stand-ins, as before)."""

        def typed_with(function: Any, calls: dict[str, list[KernelUnit]], stand_ins: dict[str, Any]) -> Any:
            typed = self._with_stand_ins(info, calls, function=function, extra=stand_ins)
            self._typed[key] = typed
            return typed

        def infer(typed: Any) -> Any:
            return self._infer(info, typed, argtypes)

        return KernelRegions(info, typemap).find(typed_with, infer, result)

    def _infer(
        self, info: FunctionInfo, typed: Callable[..., Any], argtypes: tuple[Value, ...]
    ) -> tuple[Result, dict[str, Any]]:
        """What numba infers for the function: its result, and its variables' types."""
        from numba.core.errors import NumbaError, UnsupportedBytecodeError

        from ..compile.infer import infer_types
        from ..compile.messages import condense
        from ..compile.numba_types import UnsupportedType, from_numba, to_numba

        try:
            inferred, typemap = infer_types(typed, tuple(to_numba(t) for t in argtypes), info.flags)
        except (NumbaError, UnsupportedBytecodeError) as exc:  # the second is no NumbaError
            pending, self._pending_error = self._pending_error, None
            if pending is not None:
                raise pending from None
            raise KernelError(
                f"numba cannot compile `{info.qualname}` ({info.origin_file}:{info.origin_line}) "
                f"for {', '.join(map(str, argtypes)) or 'no arguments'}:\n{condense(str(exc))}"
            ) from None
        try:
            return from_numba(inferred), typemap
        except UnsupportedType as exc:
            raise KernelError(
                f"`{info.qualname}` ({info.origin_file}:{info.origin_line}) returns {exc}; "
                "kernels and helpers may return scalars, arrays, tuples of them, or None"
            ) from None

    def _with_stand_ins(
        self,
        info: FunctionInfo,
        calls: dict[str, list[KernelUnit]],
        function: Any = None,
        extra: dict[str, Any] | None = None,
    ) -> Callable[..., Any]:
        """``info.function`` (or ``function``, the same with its regions cut out) with every
        helper replaced by a typing stand-in; ``extra``: more globals (the regions' stand-ins)."""
        python = function if function is not None else info.function
        if not info.helpers and not info.dicts and not info.declared and not extra:
            return python
        stand_ins = {name: self._stand_in(name, helper, calls) for name, helper in info.helpers.items()}
        stand_ins.update(info.dicts)  # read as the generated module reads them
        stand_ins.update(info.declared)
        stand_ins.update(extra or {})
        new_globals = dict(python.__globals__)
        new_globals.update(
            {k: v for k, v in stand_ins.items() if k not in python.__code__.co_freevars and "." not in k}
        )
        for name, stand_in in stand_ins.items():  # `helpers.f`: on a copy of the project's module
            if "." in name:
                module, attribute = name.split(".", 1)
                if not isinstance(new_globals[module], _StandInModule):
                    original = new_globals[module]
                    new_globals[module] = _StandInModule(original.__name__)
                    new_globals[module].__dict__.update(vars(original))
                setattr(new_globals[module], attribute, stand_in)
        closure = None
        if python.__closure__:
            closure = tuple(
                types.CellType(stand_ins[name]) if name in stand_ins else cell
                for name, cell in zip(python.__code__.co_freevars, python.__closure__, strict=True)
            )
        defaults = python.__defaults__
        if info.function_defaults:  # `fn=square`: typed with square's stand-in
            helper_names = {id(value): name for name, value in info.helpers.items()}
            defaults = tuple(stand_ins.get(helper_names.get(id(d), ""), d) for d in defaults or ())
        typed = types.FunctionType(python.__code__, new_globals, python.__name__, defaults, closure)
        typed.__qualname__ = python.__qualname__
        typed.__module__ = python.__module__
        return typed

    def _stand_in(self, name: str, helper: Any, calls: dict[str, list[KernelUnit]]) -> Any:
        from numba.core import types as nbtypes
        from numba.extending import intrinsic

        from ..compile.declare import typing_function, value_type
        from ..compile.numba_types import UnsupportedType, from_numba, to_numba

        helper_info = self._info(helper)
        passed = helper_info.function.__code__.co_argcount - len(helper_info.function_defaults)

        def typing(typingctx: Any, *args: Any) -> Any:
            given = args[passed:]
            if any(value is not _FUNCTION_DEFAULT for value in given):
                names = ", ".join(f"`{n}`" for n in helper_info.function_defaults)
                return self._fail(
                    f"a function is passed to {names} of `{helper_info.qualname}`; helpers take "
                    "scalars and arrays (a function as a parameter's default is compiled in)"
                )
            try:
                argtypes = tuple(from_numba(value_type(typingctx, arg)) for arg in args[:passed])
            except UnsupportedType as exc:
                return self._fail(
                    f"`{helper_info.qualname}` is called with an argument of type {exc}; helpers "
                    "take scalars and arrays"
                )
            if any(not isinstance(t, (Scalar, Array)) for t in argtypes):
                return self._fail(
                    f"`{helper_info.qualname}` is called with a tuple argument; "
                    "helpers take scalars and arrays"
                )
            key = (id(helper_info.function), argtypes)
            if self._in_progress and key == self._in_progress[-1]:
                return self._itself(typingctx, key, helper_info, given)
            try:
                unit = self._unit(helper, argtypes)  # type: ignore[arg-type]
            except KernelError as exc:
                return self._fail(str(exc))
            variants = calls.setdefault(name, [])
            if unit not in variants:
                variants.append(unit)
            argtypes_nb = tuple(to_numba(t) for t in unit.signature.args)
            argtypes_nb += tuple(nbtypes.none for _ in given)  # left out: never lowered
            return to_numba(unit.signature.result)(*argtypes_nb), _never_lowered

        parameters = ", ".join(
            [p for p in [helper_info.parameters] if p]
            + [f"{n}=_function_default" for n in helper_info.function_defaults]
        )
        return intrinsic(
            typing_function(
                name.replace(".", "_"), parameters, typing, {"_function_default": _FUNCTION_DEFAULT}
            )
        )

    def _itself(self, typingctx: Any, key: Any, info: FunctionInfo, given: tuple[Any, ...]) -> Any:
        """A function's call of itself: typed by what its other return paths return (numba's
        own way with recursion), compiled as a call of its own code."""
        from numba.core import config
        from numba.core import types as nbtypes

        from ..compile.numba_types import to_numba

        if key in self._partial:  # this call has no type while its caller's is being found
            return None
        frame = typingctx.callstack.findfirst(self._typed[key])
        self._partial.add(key)
        cache = config.DISABLE_TYPEINFER_FAIL_CACHE  # type: ignore[attr-defined]
        config.DISABLE_TYPEINFER_FAIL_CACHE = True  # type: ignore[attr-defined]
        try:
            result = frame.typeinfer.return_types_from_partial() if frame is not None else None
        finally:
            config.DISABLE_TYPEINFER_FAIL_CACHE = cache  # type: ignore[attr-defined]
            self._partial.discard(key)
        if result is None:
            return self._fail(
                f"`{info.qualname}` ({info.origin_file}:{info.origin_line}) calls itself, but "
                "none of its returns is reached without calling itself, so its type is unknown"
            )
        self._calls_itself.add(key)
        argtypes = tuple(to_numba(t) for t in key[1]) + tuple(nbtypes.none for _ in given)
        return result(*argtypes), _never_lowered

    def _fail(self, message: str) -> None:
        """Remember a helper problem; numba's own error is replaced by it."""
        if self._pending_error is None:
            self._pending_error = KernelError(message)
        return None


def _never_lowered(*args: Any) -> Any:  # typing only: code is generated from modules
    raise AssertionError("typing stand-ins are never lowered")


_FUNCTION_DEFAULT = object()
"""What a typing stand-in receives for a parameter whose default is a function, left out."""


class _StandInModule(types.ModuleType):
    """A project module with typing stand-ins for the helpers a kernel reaches through it."""


_numba_prepared = False


def _prepare_numba() -> None:
    """Load numba's typing registries (NumPy, linalg...) so globals resolve as in njit."""
    global _numba_prepared
    if not _numba_prepared:
        from numba.core.registry import cpu_target

        from ..compile.overloads import register

        register()
        cpu_target.target_context.refresh()
        cpu_target.typing_context.refresh()
        _numba_prepared = True
