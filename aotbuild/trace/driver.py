"""Stage 2: import each declared function and turn it into a graph.

Traced functions are called with tracers built from the declared signature; kernels are analysed
(see :mod:`aotbuild.trace.kernels`) into a single Kernel node. Errors name the graph, the user's
source line where tracing stopped, and what to do.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
import traceback
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .. import compile as _compile  # noqa: F401  (sets NUMBA_DISABLE_INTEL_SVML before user modules import numba)
from ..config import GraphConfig, ProjectConfig, display_path
from ..errors import AotBuildError, ConfigError, KernelError, TraceError
from ..graph import Argument, Graph, Kernel, Node
from ..types import Array, NoneType, Result, Scalar, TupleOf
from .kernels import KernelAnalyser
from .operands import Operand, as_operand
from .patches import tracing_patches
from .subgraph import Subgraph, subgraph_session
from .tracer import Tracer
from .ufuncs import KERNEL_HINT
from .writes import written_parameters

_AOTBUILD_DIR = Path(__file__).resolve().parent.parent
_NUMPY_DIR = Path(np.__file__).resolve().parent


@contextlib.contextmanager
def project_imports(root: Path) -> Iterator[None]:
    """The project folder first on ``sys.path`` while the build imports the user's modules.

    The project's modules are imported afresh from disk for each build, so a build in a
    long-lived process (a notebook, a test session, a build backend) sees the files as they are
    now; modules the process had imported from the project before are put back afterwards.
    """
    root = root.resolve()
    earlier = {name: module for name, module in list(sys.modules.items()) if _is_under(module, root)}
    for name in earlier:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(root))
        for name in [name for name, module in list(sys.modules.items()) if _is_under(module, root)]:
            del sys.modules[name]
        sys.modules.update(earlier)


def _is_under(module: object, root: Path) -> bool:
    filename = getattr(module, "__file__", None)
    if not isinstance(filename, str):
        return False
    try:
        return Path(filename).resolve().is_relative_to(root)
    except (OSError, ValueError):
        return False


def _forget_foreign(module_name: str, root: Path) -> None:
    """Drop a module of that name imported earlier from elsewhere (another project built in the
    same process), so the project's own module is imported."""
    top = module_name.split(".")[0]
    existing = sys.modules.get(top)
    filename = getattr(existing, "__file__", None)
    if existing is None or filename is None:
        return
    if not Path(filename).resolve().is_relative_to(root.resolve()):
        for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
            del sys.modules[name]


def import_function(config: GraphConfig, project: ProjectConfig) -> Any:
    """The object ``config.function`` names; errors are :class:`ConfigError` lines."""
    where = f"{display_path(project.path)}: [graphs.{config.name}] function:"
    module_name, _, qualname = config.function.partition(":")
    _forget_foreign(module_name, project.root)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise ConfigError(
                f"{where} cannot import module {module_name!r} from {display_path(project.root)} ({exc})"
            ) from None
        raise ConfigError(f"{where} importing {module_name!r} failed: {exc}") from None
    except Exception as exc:
        raise ConfigError(f"{where} importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    value: Any = module
    for part in qualname.split("."):
        if not hasattr(value, part):
            raise ConfigError(f"{where} module {module_name!r} has no attribute {qualname!r}")
        value = getattr(value, part)
    if not callable(value):
        raise ConfigError(f"{where} {config.function!r} is not a function")
    return value


def _python_function(value: Any) -> Any:
    """The function to trace or analyse: a dispatcher's py_func, a subgraph for tracing."""
    return getattr(value, "py_func", value)


def parameter_names(config: GraphConfig, function: Any, project: ProjectConfig) -> tuple[str, ...]:
    """The names of the parameters the signature covers; the rest must have defaults."""
    where = f"{display_path(project.path)}: [graphs.{config.name}]"
    try:
        parameters = list(inspect.signature(_python_function(function)).parameters.values())
    except (TypeError, ValueError):
        raise ConfigError(f"{where} cannot read the parameters of {config.function!r}") from None
    declared = len(config.signature.args)
    positional = [
        p
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in parameters):
        raise ConfigError(f"{where} {config.function!r} takes *args; declare its parameters by name")
    if len(positional) < declared:
        raise ConfigError(
            f"{where} signature declares {declared} argument(s) but {config.function!r} takes "
            f"{len(positional)}"
        )
    for extra in parameters[declared:]:
        if extra.default is inspect.Parameter.empty and extra.kind != inspect.Parameter.VAR_KEYWORD:
            raise ConfigError(
                f"{where} parameter {extra.name!r} of {config.function!r} is not covered by the "
                "signature and has no default"
            )
    return tuple(p.name for p in positional[:declared])


def _user_location(tb: Any) -> str | None:
    """``file:line`` of the innermost traceback frame in the user's code."""
    location = None
    for frame in traceback.extract_tb(tb):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(_AOTBUILD_DIR) or path.is_relative_to(_NUMPY_DIR):
            continue
        if frame.filename.startswith("<"):
            continue
        location = f"{display_path(path)}:{frame.lineno}"
        code = (frame.line or "").strip()
        if code:
            location += f" (`{code}`)"
    return location


def _check_result(config: GraphConfig, outputs: list[Node], where: str) -> None:
    declared: Result = config.signature.result
    expected = declared.items if isinstance(declared, TupleOf) else (declared,)
    if len(expected) != len(outputs):
        raise TraceError(
            f"{where} the function returns {len(outputs)} value(s) but the signature declares {declared}"
        )
    for index, (want, node) in enumerate(zip(expected, outputs, strict=True)):
        got = node.type
        label = f"result {index}" if len(outputs) > 1 else "the result"
        ok = False
        if isinstance(want, Scalar) and isinstance(got, Scalar):
            ok = want.dtype == got.dtype
        elif isinstance(want, Array) and isinstance(got, Array):
            ok = (want.dtype, want.ndim) == (got.dtype, got.ndim) and (
                want.layout == "A" or got.layout == "C"
            )
        if not ok:
            raise TraceError(
                f"{where} {label} is {got} but the signature declares {want}; fix the signature "
                "or convert explicitly (e.g. .astype()) — results are never cast silently"
            )


def trace_graph(config: GraphConfig, function: Any, params: tuple[str, ...], project: ProjectConfig) -> Graph:
    where = f"{display_path(project.path)}: [graphs.{config.name}]"
    if isinstance(config.signature.result, NoneType):
        raise TraceError(
            f"{where} a traced graph must return values; functions that only write into their "
            f"arguments are kernels ({KERNEL_HINT})"
        )
    tracers = [Tracer(Operand(Node.make(Argument(i, t)))) for i, t in enumerate(config.signature.args)]
    # A graph declared from an @aotbuild.subgraph function calls that subgraph, so it shares one
    # compiled symbol with every other graph calling the function with the same argument types.
    traced = function if isinstance(function, Subgraph) else _python_function(function)
    try:
        with tracing_patches(), np.errstate(all="ignore"):
            result = traced(*tracers)
    except AotBuildError as exc:
        location = _user_location(exc.__traceback__)
        at = f" {location}:" if location else ""
        raise TraceError(f"{where}{at} {exc}") from None
    except Exception as exc:
        location = _user_location(exc.__traceback__)
        at = f" at {location}" if location else ""
        raise TraceError(
            f"{where} tracing {config.function} raised {type(exc).__name__}{at}: {exc} "
            f"(if the function cannot run on symbolic arrays, {KERNEL_HINT})"
        ) from None
    returns_tuple = isinstance(result, tuple)
    values = list(result) if returns_tuple else [result]
    try:
        outputs = [as_operand(value).node for value in values]
    except TraceError as exc:
        raise TraceError(f"{where} the function's result: {exc}") from None
    _check_result(config, outputs, where)
    return Graph(config, params, tuple(outputs), returns_tuple)


def kernel_graph(
    config: GraphConfig,
    function: Any,
    params: tuple[str, ...],
    analyser: KernelAnalyser,
    project: ProjectConfig,
) -> Graph:
    where = f"{display_path(project.path)}: [graphs.{config.name}]"
    if isinstance(function, Subgraph):
        function = function.function
    try:
        unit = analyser.kernel(function, config.signature)
    except KernelError as exc:
        raise KernelError(f"{where} {exc}") from None
    if config.cast != "no":
        _check_cast(config, params, unit, where)
    arguments = tuple(Node.make(Argument(i, t)) for i, t in enumerate(config.signature.args))
    node = Node.make(Kernel(unit.qualname, unit.key, config.signature.result, unit), arguments)
    # The kernel Op returns the whole result (a tuple included) as the graph's one value.
    return Graph(config, params, (node,), returns_tuple=False)


def _check_cast(config: GraphConfig, params: tuple[str, ...], unit: Any, where: str) -> None:
    """A cast copy of an array the kernel writes into would swallow the writes: refuse it."""
    for position, why in sorted(written_parameters(unit).items()):
        if isinstance(config.signature.args[position], Array):
            raise KernelError(
                f"{where} cast = {config.cast!r} would hand the kernel a converted copy of "
                f"'{params[position]}', which it writes into ({why}): the writes would never reach "
                f"the caller's array. Remove `cast`, or keep the writes out of this kernel."
            )


def trace_project(project: ProjectConfig) -> list[Graph]:
    """Every graph of the project, in the order graphs.toml declares them."""
    graphs = []
    analyser = KernelAnalyser(project.root)
    with subgraph_session():
        for config in project.graphs:
            function = import_function(config, project)
            params = parameter_names(config, function, project)
            if config.mode == "kernel":
                graph = kernel_graph(config, function, params, analyser, project)
            else:
                graph = trace_graph(config, function, params, project)
                contiguous = config.signature.contiguous()
                if contiguous != config.signature:
                    variant = replace(config, signature=contiguous, signature_text=str(contiguous))
                    graph = replace(graph, contiguous=trace_graph(variant, function, params, project))
            graphs.append(replace(graph, source=source_location(function, project.root)))
    return graphs


def source_location(function: Any, root: Path) -> str:
    """``file:line`` of the ``def`` behind ``function`` (a dispatcher's or subgraph's too): the
    file relative to the project root, or as its module's path outside it (never an absolute
    path: packages built on two machines are the same); empty if Python does not know."""
    while not inspect.isfunction(function):
        inner = getattr(function, "py_func", None) or getattr(function, "function", None)
        if inner is None:
            return ""
        function = inner
    function = inspect.unwrap(function)
    filename = inspect.getsourcefile(function) or function.__code__.co_filename
    path = Path(filename).resolve()
    if path.is_relative_to(root):
        shown = path.relative_to(root).as_posix()
    else:
        shown = function.__module__.replace(".", "/") + ".py"
    return f"{shown}:{function.__code__.co_firstlineno}"
