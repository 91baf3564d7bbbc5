"""Tracing inside kernels: a kernel's array statements become traced graphs it calls.

numba compiles ``for r in range(n): out[r, :] = np.sum(a - a[r, :], axis=0)`` as written: each
iteration allocates ``a - a[r, :]`` (n x m values) to sum it. aotbuild owns what numba lacks
here — a tracer, fusion, memory planning, vector math — so the loop stays the kernel's, and the
statement in it is traced like a graph: fused into one loop that sums as it goes, writing into
``out[r, :]`` itself. The steps:

1. numba types the kernel as written (:mod:`aotbuild.trace.kernels`), giving each local's type;
2. the runs of statements doing array work are cut out into *regions* (:mod:`.statements`,
   :mod:`.outline`), and the kernel calls each where its statements were;
3. numba types that kernel, each region's call typed by a stand-in that traces the region for
   the argument types numba inferred there (:mod:`.tracing`): the region is a
   :class:`~aotbuild.graph.Graph`, rewritten, fused and planned like any, rendered as an entry
   of its own, and compiled into the kernel's object (:func:`aotbuild.compile.inline.compile_in`);
4. a statement that cannot be traced (a NumPy function the tracer lacks, a value that would
   change type) stays in the kernel as written — its neighbours are traced without it — and the
   reason is kept in the unit's ``region_notes`` for ``aotbuild inspect``.

A region's values keep the types numba gave them (a value whose traced type would differ is left
to numba), so the rest of the kernel types as before; the values are NumPy's (pairwise sums, say),
which numba's are within rounding. Kernels compiled with ``parallel=True`` are left to numba's
own parallel array expressions.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import KernelError
from ...graph import Graph
from ...types import Result, Value
from ..lifting import globals_and_closure
from .outline import Region, outline
from .statements import StatementKinds, local_types
from .tracing import RegionFailure, argument_types, trace_region

__all__ = ["KernelRegions", "Region", "RegionsFound"]

#: Why every array statement of a kernel was left to numba, when typing the kernel with them
#: traced failed for a reason no single statement explains.
UNTYPED = "numba cannot type the kernel with its array statements traced, so none is"

#: Typings of a kernel tried before its regions are given up (each drops a statement or more).
MAX_ATTEMPTS = 12


@dataclass(frozen=True)
class RegionsFound:
    """A kernel's traced regions: its source calling them, their graphs, and the helper calls
    of the final typing (``calls``), with why statements were left to numba (``notes``)."""

    source: str
    regions: tuple[tuple[str, tuple[Graph, ...]], ...] = ()
    calls: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


class KernelRegions:
    """Finds and traces the regions of one kernel (a function and its argument types)."""

    def __init__(self, info: Any, typemap: dict[str, Any]) -> None:
        self.info = info
        self.types = local_types(typemap)
        self.kinds = StatementKinds(self.types, info.helpers)

    def find(
        self,
        typed_with: Callable[[Any, dict[str, Any], dict[str, Any]], Any],
        infer: Callable[[Any], tuple[Result, Any]],
        result: Result,
    ) -> RegionsFound:
        """The regions that trace, numba typing the kernel that calls them to the same
        ``result``: ``typed_with(function, calls, stand_ins)`` gives the function numba types,
        ``infer`` types it (raising :class:`KernelError`)."""
        info = self.info
        excluded: set[int] = set()
        notes: list[str] = []
        tree = ast.parse(info.source).body[0]
        assert isinstance(tree, ast.FunctionDef)
        for _ in range(MAX_ATTEMPTS):
            source, regions = outline(tree, info.source, self.kinds, frozenset(excluded))
            if not regions:
                break
            traced: dict[str, list[Graph]] = {}
            failures: list[tuple[Region, int, str]] = []
            stand_ins = {region.name: self._stand_in(region, traced, failures) for region in regions}
            calls: dict[str, Any] = {}
            try:
                outlined = self._function(source)
                got, _ = infer(typed_with(outlined, calls, stand_ins))
            except KernelError as exc:
                if not failures:
                    why = str(exc).strip().splitlines()[-1].strip() if str(exc).strip() else "?"
                    notes.append(f"{self._where(regions[0], 0)}: {UNTYPED}: {why}")
                    break
                got = None
            if failures:
                for region, index, reason in failures:
                    excluded.add(region.lines[index][0])
                    notes.append(f"{self._where(region, index)}: {reason}")
                continue
            if got != result:
                notes.append(f"{self._where(regions[0], 0)}: {UNTYPED}: it would return {got}, not {result}")
                break
            found = tuple(
                (region.name, tuple(traced[region.name])) for region in regions if region.name in traced
            )
            return RegionsFound(source, found, calls, tuple(dict.fromkeys(notes)))
        return RegionsFound(info.source, (), {}, tuple(dict.fromkeys(notes)))

    def _where(self, region: Region, index: int) -> str:
        line = self.info.origin_line + region.lines[index][0] - 1
        return f"{self.info.origin_file}:{line}"

    def _function(self, source: str) -> Any:
        """The kernel's function compiled from ``source`` (its regions cut out): the kernel's
        globals, closure values and defaults, its lines numbered as in its file."""
        python = self.info.function
        namespace = globals_and_closure(python)
        tree = ast.parse(source)
        ast.increment_lineno(tree, self.info.origin_line - 1)
        filename = inspect.getsourcefile(python) or python.__code__.co_filename
        local: dict[str, Any] = {}
        exec(compile(tree, filename, "exec"), namespace, local)  # noqa: S102 (the kernel's own code)
        function = local[python.__name__]
        function.__defaults__ = python.__defaults__
        function.__kwdefaults__ = python.__kwdefaults__
        function.__qualname__ = python.__qualname__
        function.__module__ = python.__module__
        return function

    def _stand_in(self, region: Region, traced: dict[str, list[Graph]], failures: list[Any]) -> Any:
        """A numba intrinsic typing a call of ``region``: traced for the argument types numba
        gives it; a failure is recorded (and the call left untyped)."""
        from numba.extending import intrinsic

        from ...compile.declare import typing_function, value_type
        from ...compile.numba_types import to_numba

        def typing(typingctx: Any, *args: Any) -> Any:
            nbtypes = tuple(value_type(typingctx, arg) for arg in args)
            argtypes = argument_types(nbtypes)
            if isinstance(argtypes, str):
                name = region.parameters[len(_prefix_values(nbtypes))].split("__")[0]
                return self._failed(failures, region, region.first_reader(name), f"`{name}` is {argtypes}")
            try:
                where = self._where(region, 0)
                graph = trace_region(
                    region, self.info.function, self.info.qualname, where, argtypes, self.types
                )
            except RegionFailure as failure:
                return self._failed(failures, region, failure.statement, failure.reason)
            variants = traced.setdefault(region.name, [])
            if all(existing.key != graph.key for existing in variants):
                variants.append(graph)
            signature = graph.config.signature
            return to_numba(signature.result)(*(to_numba(t) for t in signature.args)), _never_lowered

        return intrinsic(typing_function(region.name, ", ".join(region.parameters), typing))

    @staticmethod
    def _failed(failures: list[Any], region: Region, index: int, reason: str) -> None:
        from ..ufuncs import KERNEL_HINT

        first = reason.splitlines()[0] if reason else reason
        failures.append(
            (region, index, first.replace(f"; {KERNEL_HINT}", "").replace(f" ({KERNEL_HINT})", ""))
        )
        return None


def _prefix_values(nbtypes: tuple[Any, ...]) -> list[Value]:
    """The leading arguments aotbuild can pass (the first that it cannot follows them)."""
    values: list[Value] = []
    for nbtype in nbtypes:
        converted = argument_types((nbtype,))
        if isinstance(converted, str):
            break
        values.extend(converted)
    return values


def _never_lowered(*args: Any) -> Any:  # typing only: code is generated from modules
    raise AssertionError("typing stand-ins are never lowered")
