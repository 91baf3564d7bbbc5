"""Stage 2: import each declared function and turn it into a graph.

Traced functions are called with tracers built from the declared signature; kernels are analysed
(see :mod:`aotbuild.trace.kernels`) into a single Kernel node. Errors name the graph, the user's
source line where tracing stopped, and what to do.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .. import compile as _compile  # noqa: F401  (sets NUMBA_DISABLE_INTEL_SVML before user modules import numba)
from ..config import GraphConfig, ProjectConfig, display_path
from ..errors import AotBuildError, ConfigError, KernelError, RunTimeValueError, TraceError
from ..graph import Argument, Graph, Kernel, Node
from ..types import Array, NoneType, Result, Scalar, TupleOf
from .fortran import fortran_results
from .kernels import KernelAnalyser
from .operands import Operand, as_operand
from .patches import tracing_patches
from .scalar_builtins import with_traced_builtins
from .subgraph import Subgraph, subgraph_session
from .tracer import Tracer
from .ufunc_loops import ufunc_loops
from .ufuncs import KERNEL_HINT
from .used import UsedPackage, routing
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
    earlier = {name: sys.modules[name] for name in _modules_under(root)}
    for name in earlier:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(root))
        for name in _modules_under(root):
            del sys.modules[name]
        sys.modules.update(earlier)


def _modules_under(root: Path) -> list[str]:
    """The imported modules whose files are under ``root``, symbolic links resolved. Each folder
    is resolved once: resolving each of a process's ~800 module files took 32 ms a scan."""
    folders: dict[str, Path] = {}
    names = []
    for name, module in list(sys.modules.items()):
        filename = getattr(module, "__file__", None)
        if not isinstance(filename, str):
            continue
        try:
            if os.path.islink(filename):
                path = Path(filename).resolve()
            else:
                folder, base = os.path.split(filename)
                if folder not in folders:
                    folders[folder] = Path(folder).resolve()
                path = folders[folder] / base
            if path.is_relative_to(root):
                names.append(name)
        except (OSError, ValueError):
            continue
    return names


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


def _user_location(tb: Any, root: Path | None = None) -> str | None:
    """``file:line`` of the innermost traceback frame in the user's code (the file relative to
    ``root`` when given and inside it, else as messages show paths)."""
    location = None
    for frame in traceback.extract_tb(tb):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(_AOTBUILD_DIR) or path.is_relative_to(_NUMPY_DIR):
            continue
        if frame.filename.startswith("<"):
            continue
        shown = (
            path.relative_to(root).as_posix() if root and path.is_relative_to(root) else display_path(path)
        )
        location = f"{shown}:{frame.lineno}"
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
    outputs, returns_tuple = trace_outputs(config, function, where, project)
    _check_result(config, outputs, where)
    if config.grad:
        return _with_gradients(config, params, outputs[0], where)
    return Graph(config, params, tuple(outputs), returns_tuple)


def trace_outputs(
    config: GraphConfig, function: Any, where: str, project: ProjectConfig
) -> tuple[list[Node], bool]:
    """The nodes ``function`` returns on tracers of ``config.signature``'s arguments, and whether
    it returned a tuple; errors say where tracing stopped (``where``: the graph's table)."""
    tracers = [Tracer(Operand(Node.make(Argument(i, t)))) for i, t in enumerate(config.signature.args)]
    for position in config.fortran:  # a Fortran-ordered array: the transpose of a C one
        tracers[position] = tracers[position].T
    # A graph declared from an @aotbuild.subgraph function calls that subgraph, so it shares one
    # compiled symbol with every other graph calling the function with the same argument types.
    traced = function if isinstance(function, Subgraph) else with_traced_builtins(_python_function(function))
    try:
        with tracing_patches(), np.errstate(all="ignore"):
            result = traced(*tracers)
    except AotBuildError as exc:
        location = _user_location(exc.__traceback__)
        at = f" {location}:" if location else ""
        if not isinstance(exc, RunTimeValueError):
            raise TraceError(f"{where}{at} {exc}") from None
        error = RunTimeValueError(f"{where}{at} {exc}")
        # Where and why, for mode = "auto" to record: the file relative to the project (the
        # manifest must not depend on where the build ran).
        what = str(exc).split(" needs a traced value")[0].split(" (e.g. in range()")[0]
        error.stopped = (
            f"{_user_location(exc.__traceback__, project.root.resolve()) or config.function}: {what}"
        )
        raise error from None
    except Exception as exc:
        location = _user_location(exc.__traceback__)
        at = f" at {location}" if location else ""
        hint = f"if the function cannot run on symbolic arrays, {KERNEL_HINT}"
        if isinstance(exc, TypeError) and str(exc).endswith("not Tracer"):
            hint = f"another aotbuild package's graph is traced once [package] uses lists it; {hint}"
        raise TraceError(
            f"{where} tracing {config.function} raised {type(exc).__name__}{at}: {exc} ({hint})"
        ) from None
    returns_tuple = isinstance(result, tuple)
    values = list(result) if returns_tuple else [result]
    try:
        outputs = [as_operand(value).node for value in values]
    except TraceError as exc:
        raise TraceError(f"{where} the function's result: {exc}") from None
    return outputs, returns_tuple


def _with_gradients(config: GraphConfig, params: tuple[str, ...], value: Node, where: str) -> Graph:
    """``grad = [...]``: the graph of ``(value, d_a, ...)``, its signature saying so."""
    from .gradients import gradients

    positions = []
    for name in config.grad:
        if name not in params:
            covered = ", ".join(params)
            raise ConfigError(f"{where} grad: {name!r} is not a parameter the signature covers ({covered})")
        position = params.index(name)
        declared = config.signature.args[position]
        if declared.dtype not in ("float32", "float64"):
            raise ConfigError(
                f"{where} grad: {name!r} is {declared}; only float scalars and arrays have gradients"
            )
        positions.append(position)
    arguments = tuple(Node.make(Argument(p, config.signature.args[p])) for p in positions)
    try:
        grads = gradients(value, arguments)
    except TraceError as exc:
        raise TraceError(f"{where} grad: {exc}") from None
    results = (config.signature.result, *(node.type for node in grads))
    signature = replace(config.signature, result=TupleOf(results))  # type: ignore[arg-type]
    graph_config = replace(config, signature=signature, signature_text=str(signature))
    return Graph(graph_config, params, (value, *grads), returns_tuple=True)


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
        unit = analyser.kernel(function, config.signature, parallel=config.parallel)
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


def trace_project(
    project: ProjectConfig, used: tuple[UsedPackage, ...] = (), regions: bool = True
) -> list[Graph]:
    """Every graph of the project, in the order graphs.toml declares them; ``used``: the
    packages ``[package] uses`` (see :mod:`aotbuild.trace.used`); ``regions``: trace kernels'
    array statements (:mod:`aotbuild.trace.regions`)."""
    graphs = []
    analyser = KernelAnalyser(project.root, regions=regions)
    with subgraph_session(), routing(used, project.root):
        for config in project.graphs:
            function = import_function(config, project)
            params = parameter_names(config, function, project)
            traced = partial(_traced, function=function, params=params, project=project)
            kernel = partial(
                kernel_graph, function=function, params=params, analyser=analyser, project=project
            )
            if config.ufunc:
                graphs += _ufunc(config, function, params, project)
                continue
            # Several signatures under one name: a graph each, the package dispatching.
            for each in overloads(config):
                if each.mode == "kernel":
                    graph = kernel(each)
                elif each.mode == "trace":
                    graph = traced(each)
                else:
                    where = f"{display_path(project.path)}: [graphs.{each.name}]"
                    graph = _auto(each, traced, kernel, where)
                graphs.append(replace(graph, source=source_location(function, project.root)))
    return graphs


def overloads(config: GraphConfig) -> list[GraphConfig]:
    """``config`` once per declared signature (itself when it declares one)."""
    if len(config.signatures) < 2:
        return [config]
    return [
        replace(config, signature=signature, signature_text=text, signature_index=index)
        for index, (signature, text) in enumerate(zip(config.signatures, config.signature_texts, strict=True))
    ]


def _ufunc(
    config: GraphConfig, function: Any, params: tuple[str, ...], project: ProjectConfig
) -> list[Graph]:
    """A ufunc's loops, one graph per signature (see :mod:`aotbuild.trace.ufunc_loops`)."""
    where = f"{display_path(project.path)}: [graphs.{config.name}]"
    source = source_location(function, project.root)

    def trace_scalar(scalar: GraphConfig) -> Node:
        at = f"{where} {scalar.signature_text!r}:"
        try:
            outputs, returns_tuple = trace_outputs(scalar, function, where, project)
        except RunTimeValueError as exc:
            raise TraceError(
                f"{str(exc).split(' (declare the graph')[0]}; a ufunc's function is traced, so write "
                "a choice on a value with np.where(condition, a, b), max() or min()"
            ) from None
        if returns_tuple or len(outputs) != 1:
            raise TraceError(f"{at} the function returns {len(outputs)} values; a ufunc's returns one")
        return outputs[0]

    loops = ufunc_loops(replace(config, mode="trace"), trace_scalar, params, where)
    return [replace(loop, source=source) for loop in loops]


def _traced(config: GraphConfig, function: Any, params: tuple[str, ...], project: ProjectConfig) -> Graph:
    """The traced graph, with its variant for C-contiguous arrays where the signature has one."""
    config = fortran_as_transposed(config, params, project)
    graph = fortran_results(trace_graph(config, function, params, project))
    contiguous = config.signature.contiguous()
    # (not when another of the name's signatures is that one: the package calls it for such arrays)
    if contiguous != config.signature and contiguous not in config.signatures:
        variant = replace(config, signature=contiguous, signature_text=str(contiguous))
        graph = replace(graph, contiguous=fortran_results(trace_graph(variant, function, params, project)))
    return graph


def fortran_as_transposed(
    config: GraphConfig, params: tuple[str, ...], project: ProjectConfig
) -> GraphConfig:
    """``config`` with each Fortran-ordered array parameter declared as the C-contiguous array
    the package passes in its place (its transpose; see ``GraphConfig.fortran``): every Op of the
    graph then sees arrays the rest of the pipeline knows."""
    where = f"{display_path(project.path)}: [graphs.{config.name}]"
    args = config.signature.args
    fortran = tuple(k for k, arg in enumerate(args) if isinstance(arg, Array) and arg.layout == "F")
    for item in config.signature.results:
        if isinstance(item, Array) and item.layout == "F":
            raise TraceError(
                f"{where} a traced graph's array results are new C-contiguous arrays: declare "
                f"{item.with_layout('A')} (any layout) or {item.with_layout('C')} for "
                f'{item}, or compile the function as a kernel (mode = "kernel")'
            )
    if not fortran:
        return config
    differentiated = [params[k] for k in fortran if params[k] in config.grad]
    if differentiated:
        raise TraceError(
            f"{where} grad: {differentiated[0]!r} is Fortran-ordered; gradients are of C-ordered "
            "or any-layout arrays (declare it [:, :])"
        )
    swapped = tuple(arg.with_layout("C") if k in fortran else arg for k, arg in enumerate(args))  # type: ignore[union-attr]
    return replace(config, signature=replace(config.signature, args=swapped), fortran=fortran)


def _auto(
    config: GraphConfig,
    traced: Callable[[GraphConfig], Graph],
    kernel: Callable[[GraphConfig], Graph],
    where: str,
) -> Graph:
    """``mode = "auto"``: traced; compiled as a kernel where tracing stops on Python control flow
    over run-time values (or the function returns nothing: it writes into its arguments)."""
    if isinstance(config.signature.result, NoneType):
        reason = "kernel: it returns none (it writes into its arguments)"
    else:
        try:
            return traced(replace(config, mode="trace", auto="traced"))
        except RunTimeValueError as exc:
            if config.grad:
                raise TraceError(
                    f"{exc} — and grad = [...] needs a traced graph: kernels are not differentiated"
                ) from None
            reason = f"kernel: {exc.stopped}"
            stopped = exc
    if config.fastmath:
        raise ConfigError(
            f"{where} fastmath = true is for traced graphs, and this one is compiled as a kernel "
            f"({reason.removeprefix('kernel: ')}); decorate the function with @njit(fastmath=True) "
            'and remove fastmath, or declare mode = "kernel"'
        )
    try:
        return kernel(replace(config, mode="kernel", auto=reason))
    except KernelError as exc:
        if isinstance(config.signature.result, NoneType):
            raise
        raise KernelError(
            f'{stopped} — so mode = "auto" compiled it as a kernel, which failed too:\n'
            f"{str(exc).removeprefix(where).strip()}"
        ) from None


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
