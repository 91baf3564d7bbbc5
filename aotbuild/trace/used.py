"""Graphs of other aotbuild packages (``[package] uses = [...]``), called by declaration.

A used package is imported at build time and read from its manifest: each graph's parameters,
the signature and exported name of its entries (:func:`aotbuild.types.exported_symbol`), and
the compiled Ops it reaches with their object hashes, which the built package checks again at
import. While the build traces, each graph callable of a used package (``stats_ext.center``),
and the Python function it was built from where this build can import it, is *routed*: called
with traced values it adds an :class:`~aotbuild.graph.calls.ExternalCall` node (the graph's code
stays in the used package's shared object); called otherwise it runs as it is. Routes are in
place before the project's modules are imported, so ``from stats_ext import center`` binds the
route too. A kernel reaching one lifts it as a declaration of the exported name
(:mod:`aotbuild.trace.lifting`).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..config import ProjectConfig, display_path
from ..config.signature import parse_signature
from ..errors import ConfigError, TraceError
from ..graph import Node
from ..graph.calls import ExternalCall, TupleItem
from ..types import Array, NoneType, Scalar, Signature, TupleOf, Value, exported_symbol
from .operands import Operand, as_operand


@dataclass(frozen=True)
class UsedGraph:
    """One graph of a used package, as its manifest describes it."""

    package: str
    version: str
    """The used package's version this build was made against."""

    name: str
    params: tuple[str, ...]
    signature: Signature
    """The signature of its entry (arrays of any layout where it declares them so)."""

    contiguous: Signature | None
    """The signature of its entry for C-contiguous arrays, if it has one."""

    ops: tuple[tuple[str, str], ...]
    """(symbol, object sha256) of every compiled Op its entries reach: what this build was
    made against, checked again when the built package is imported."""

    writes: tuple[str, ...] = ()
    """The array parameters it may write into (a kernel's)."""

    overloads: tuple[UsedGraph, ...] = ()
    """A name declared with several signatures: one of these per signature, in the declared
    order (this graph is the first, without ``overloads``); empty otherwise."""

    @property
    def qualname(self) -> str:
        return f"{self.package}.{self.name}"

    def symbol(self, contiguous: bool = False) -> str:
        signature = self.contiguous if contiguous and self.contiguous else self.signature
        return exported_symbol(self.package, self.name, signature)

    @property
    def symbols(self) -> tuple[str, ...]:
        """Every name it is exported by (each of its signatures')."""
        if self.overloads:
            return tuple(symbol for each in self.overloads for symbol in each.symbols)
        return (self.symbol(),) + ((self.symbol(contiguous=True),) if self.contiguous else ())

    def variants(self) -> tuple[str, ...]:
        """``declare()``'s variants for a kernel's call: the contiguous entry first (C arrays
        call it), then the entry for any layout; each signature's in turn."""
        if self.overloads:
            return tuple(variant for each in self.overloads for variant in each.variants())
        variants = [f"{self.symbol(contiguous=True)}: {self.contiguous}"] if self.contiguous else []
        return (*variants, f"{self.symbol()}: {self.signature}")

    def declaration(self) -> str:
        """The ``declare(...)`` expression a kernel's module binds the graph's name to."""
        arguments = "".join(f'"{variant}", ' for variant in self.variants())
        return f'declare({arguments}parameters="{", ".join(self.params)}")'


@dataclass(frozen=True)
class UsedPackage:
    name: str
    version: str
    graphs: tuple[UsedGraph, ...]
    module: types.ModuleType


def load_used(project: ProjectConfig) -> tuple[UsedPackage, ...]:
    """Import each package ``[package] uses`` names and read its manifest; a ConfigError
    saying what to do when one is missing, not an aotbuild package, or built by another numba."""
    return tuple(_load(name, project) for name in project.package.uses)


def _load(name: str, project: ProjectConfig) -> UsedPackage:
    from ..compile.keys import toolchain_versions

    where = f"{display_path(project.path)}: [package] uses:"
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(
            f"{where} cannot import {name!r} ({exc}); install it, or put the folder holding the "
            "built package on PYTHONPATH"
        ) from None
    describe = getattr(module, "manifest", None)
    if not callable(describe) or not isinstance(getattr(module, "__graphs__", None), dict):
        raise ConfigError(f"{where} {name!r} ({module.__file__}) is not a package built by aotbuild")
    if not hasattr(getattr(module, "_native", None), "_prepare"):
        raise ConfigError(
            f"{where} {name!r} was built by an older aotbuild, which exported no graphs; rebuild it"
        )
    manifest = describe()
    built_with = manifest["toolchain"]["numba"]
    numba = toolchain_versions()["numba"]
    if built_with.split(".")[:2] != numba.split(".")[:2]:
        raise ConfigError(
            f"{where} {name!r} was built with numba {built_with} and this build runs numba {numba}: "
            "their compiled code shares arrays and exceptions, so rebuild it with this numba"
        )
    ops = manifest["ops"]
    graphs = []
    version = manifest["package"]["version"]
    for graph, record in sorted(manifest["graphs"].items()):
        if "ufunc" in record or "gufunc" in record or record.get("fortran_parameters"):
            # a numpy.ufunc: called through NumPy, never by declaration; a graph taking the
            # transpose of its Fortran-ordered arrays: not by declaration yet (the caller's
            # Python call of it says so, tracing stops on an unknown function)
            continue

        def used(entry: dict[str, Any], graph: str = graph, record: dict[str, Any] = record) -> UsedGraph:
            contiguous = entry["contiguous_entry"]
            return UsedGraph(
                package=name,
                version=version,
                name=graph,
                params=tuple(record["parameters"]),
                signature=parse_signature(ops[entry["entry"]]["signature"]),
                contiguous=parse_signature(ops[contiguous]["signature"]) if contiguous else None,
                # an Op compiled into another (a kernel's region) has no object: its caller's covers it
                ops=tuple(
                    (symbol, ops[symbol]["object_sha256"])
                    for symbol in record["ops"]
                    if ops[symbol]["object_sha256"]
                ),
                writes=tuple(record.get("writes", ())),
            )

        overloads = tuple(used(entry) for entry in record.get("overloads", ()))
        graphs.append(replace(used(record), overloads=overloads))
    return UsedPackage(name, version, tuple(graphs), module)


# ---------------------------------------------------------------------------------------------
# Routing calls while tracing


_routes: dict[int, UsedGraph] = {}
"""id() of each graph callable, Python function and route of the packages in use -> its graph."""


def used_graph_of(value: Any) -> UsedGraph | None:
    """The used graph ``value`` is (its callable, route or Python function), during a build."""
    return _routes.get(id(value))


def is_used_package(value: Any) -> bool:
    return any(graph.package == getattr(value, "__name__", None) for graph in _routes.values())


@contextlib.contextmanager
def routing(packages: tuple[UsedPackage, ...], root: Path) -> Iterator[None]:
    """Route the used graphs' callables (and Python functions) for the block (see the module
    docstring); everything is put back after it. ``root``: the project's folder, whose modules
    are never the used graphs' sources (nor imported here: they import once routes are set)."""
    replaced: list[tuple[Any, str, Any]] = []
    known: list[Any] = []  # kept alive while their ids are keys

    def route(owner: Any, attribute: str, graph: UsedGraph) -> None:
        original = getattr(owner, attribute)
        routed = _route(original, graph)
        setattr(owner, attribute, routed)
        replaced.append((owner, attribute, original))
        known.extend((original, routed))
        _routes[id(original)] = _routes[id(routed)] = graph

    try:
        for package in packages:
            for graph in package.graphs:
                route(package.module, graph.name, graph)
        for package in packages:  # then the sources, which may import the packages
            for graph in package.graphs:
                record = package.module.__graphs__[graph.name]
                found = _python_function(record["function"], record["source"], root)
                if found is not None:
                    route(*found, graph)
        yield
    finally:
        for owner, attribute, original in reversed(replaced):
            setattr(owner, attribute, original)
        _routes.clear()
        known.clear()


def _python_function(function: str, source: str, root: Path) -> tuple[Any, str] | None:
    """(module, name) of a used graph's Python function (``stats:center``) where this build can
    import its module from outside the project and it is the function the graph was built from
    (its file and line are those the package records); nothing is imported that is not there."""
    module_name, _, qualname = function.partition(":")
    file, _, line = source.rpartition(":")
    if "." in qualname or not file:
        return None
    try:
        spec = sys.modules[module_name].__spec__ if module_name in sys.modules else None
        spec = spec or importlib.util.find_spec(module_name)
        if spec is None or spec.origin is None or Path(spec.origin).resolve().is_relative_to(root.resolve()):
            return None
        module = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - a module we cannot import is one the project cannot call
        return None
    candidate = getattr(module, qualname, None)
    if not isinstance(candidate, types.FunctionType):
        return None
    code = candidate.__code__
    if str(code.co_firstlineno) != line or not Path(code.co_filename).as_posix().endswith(file):
        return None
    return module, qualname


def _route(original: Any, graph: UsedGraph) -> Any:
    from .patches import involves_tracer

    def route(*args: Any, **kwargs: Any) -> Any:
        if involves_tracer(args) or involves_tracer(tuple(kwargs.values())):
            return external_call(graph, args, kwargs)
        return original(*args, **kwargs)

    route.__name__ = graph.name
    route.__qualname__ = graph.name
    route.__doc__ = getattr(original, "__doc__", None)
    route.__wrapped__ = original  # type: ignore[attr-defined]
    return route


def external_call(graph: UsedGraph, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The traced call of ``graph``: its arguments checked against its signature (numbers
    converted as a call from Python would, arrays never), one ExternalCall node."""
    from .tracer import Tracer

    parameters = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in graph.params]
    )
    try:
        bound = parameters.bind(*args, **kwargs)
    except TypeError as exc:
        raise TraceError(f"calling {graph.qualname}({', '.join(graph.params)}): {exc}") from None
    if graph.overloads:
        graph = _overload_for(graph, [as_operand(bound.arguments[name]) for name in graph.params])
    if graph.writes or isinstance(graph.signature.result, NoneType):
        what = f"writes into {', '.join(graph.writes)}" if graph.writes else "returns none"
        raise TraceError(
            f"{graph.qualname} {what}: a traced graph computes values and cannot call it (its "
            'arrays are values); call it from a kernel (mode = "kernel")'
        )
    inputs = [
        _conform(as_operand(bound.arguments[name]), declared, name, graph)
        for name, declared in zip(graph.params, graph.signature.args, strict=True)
    ]
    contiguous = graph.contiguous is not None and all(
        not isinstance(i.type, Array) or i.type.layout == "C" for i in inputs
    )
    signature = graph.contiguous if contiguous and graph.contiguous else graph.signature
    op = ExternalCall(graph.package, graph.name, graph.symbol(contiguous), signature)
    node = Node.make(op, tuple(inputs))
    if not isinstance(signature.result, TupleOf):
        return Tracer(Operand(node))
    return tuple(
        Tracer(Operand(Node.make(TupleItem(i), (node,)))) for i in range(len(signature.result.items))
    )


def _overload_for(graph: UsedGraph, operands: list[Operand]) -> UsedGraph:
    """The signature of ``graph`` a traced call takes, as the package picks one at run time: the
    first whose argument dtypes and dimensions the operands have, else the first they convert
    to; none, a TraceError listing them."""

    def exact(each: UsedGraph) -> bool:
        return all(
            operand.dtype == np.dtype(declared.dtype) and operand.ndim == getattr(declared, "ndim", 0)
            for operand, declared in zip(operands, each.signature.args, strict=True)
        )

    def converts(each: UsedGraph) -> bool:
        try:
            for operand, declared, name in zip(operands, each.signature.args, each.params, strict=True):
                _conform(operand, declared, name, each)
        except TraceError:
            return False
        return True

    for test in (exact, converts):
        for each in graph.overloads:
            if test(each):
                return each
    given = ", ".join(str(operand.node.type) for operand in operands)
    declared = "; ".join(str(each.signature) for each in graph.overloads)
    raise TraceError(f"{graph.qualname}: no signature takes ({given}); declared: {declared}")


def _conform(operand: Operand, declared: Value, name: str, graph: UsedGraph) -> Node:
    """``operand`` as ``graph`` takes parameter ``name``: a number converted where the
    conversion is safe (or the number is a Python one), a non-contiguous array copied where the
    graph takes C-contiguous ones; anything else a TraceError."""
    from .ufuncs import apply_cast, copy

    given = operand.value_type
    problem = f"{graph.qualname} takes {name} as {declared}; it is given {given}"
    if isinstance(declared, Array):
        if not isinstance(given, Array) or (given.dtype, given.ndim) != (declared.dtype, declared.ndim):
            raise TraceError(f"{problem} (convert it explicitly: arrays are never cast silently)")
        if declared.layout == "C" and given.layout != "C":
            return copy(operand).node
        return operand.node
    assert isinstance(declared, Scalar)
    if not isinstance(given, Scalar):
        raise TraceError(problem)
    if given.dtype != declared.dtype:
        import numpy as np

        if not operand.weak and not np.can_cast(given.dtype, declared.dtype, "same_kind"):
            raise TraceError(f"{problem}, which does not convert to it safely")
        return apply_cast(operand, declared.dtype).node
    return operand.node


def called_graphs(packages: tuple[UsedPackage, ...], needed: set[str]) -> tuple[UsedGraph, ...]:
    """The used graphs whose exported symbols are among ``needed`` (the compiled objects'
    undefined symbols): those this build calls, traced or from kernels."""
    return tuple(graph for package in packages for graph in package.graphs if needed & set(graph.symbols))
