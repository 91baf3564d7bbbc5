"""``@aotbuild.subgraph``: a function traced once per argument signature, compiled once, and
called by declaration from every graph that uses it.

A neural-network layer applied a hundred times is one compiled Op called a hundred times, not a
hundred copies of its Ops. Outside tracing the decorated function is the plain function.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config.model import GraphConfig
from ..errors import TraceError
from ..graph import Argument, ConstValue, Graph, Node
from ..graph.calls import Call, TupleItem
from ..types import Array, Result, Signature, TupleOf, Value
from .operands import Operand, as_operand
from .patches import involves_tracer
from .scalar_builtins import with_traced_builtins


@dataclass
class _Session:
    """The subgraphs traced by one build, by (function, argument signature)."""

    traced: dict[tuple[int, str], Graph] = field(default_factory=dict)
    in_progress: set[tuple[int, str]] = field(default_factory=set)


_session: _Session | None = None


@contextlib.contextmanager
def subgraph_session() -> Iterator[None]:
    """Subgraphs traced within this block are shared (the trace stage of one build)."""
    global _session
    previous, _session = _session, _Session()
    try:
        yield
    finally:
        _session = previous


class Subgraph:
    """A function marked with ``@aotbuild.subgraph``."""

    def __init__(self, function: Any) -> None:
        functools.update_wrapper(self, function)
        self.function = function
        self._qualname = f"{function.__module__}.{function.__qualname__}"
        self._signature = inspect.signature(function)
        self._variadic = any(
            p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in self._signature.parameters.values()
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not involves_tracer(args) and not involves_tracer(tuple(kwargs.values())):
            return self.function(*args, **kwargs)
        return _call(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<aotbuild.subgraph {self._qualname}>"


def subgraph(function: Any) -> Subgraph:
    """Mark ``function`` as a reusable unit of traced graphs (see the module docstring)."""
    if isinstance(function, Subgraph):
        return function
    if not callable(function):
        raise TypeError("@aotbuild.subgraph decorates a function")
    return Subgraph(function)


def _constant_key(value: Any, where: str) -> str:
    """A stable text for a trace-time argument (part of the subgraph's specialization)."""
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (np.generic, np.ndarray)):
        return ConstValue.of(value).key
    if value is None or isinstance(value, str):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_constant_key(item, where) for item in value) + ")"
    raise TraceError(
        f"{where} is a {type(value).__name__}; subgraph arguments are traced arrays or values known at "
        "trace time (numbers, NumPy scalars and arrays, strings, tuples of them)"
    )


def _call(sub: Subgraph, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from .tracer import Tracer

    qualname = sub._qualname
    if sub._variadic:
        raise TraceError(f"subgraph {qualname} takes *args or **kwargs; declare its parameters by name")
    try:
        bound = sub._signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TraceError(f"calling subgraph {qualname}: {exc}") from None
    bound.apply_defaults()

    runtime: list[tuple[str, Operand, Value]] = []
    parts: list[str] = []
    for name, value in bound.arguments.items():
        if isinstance(value, Tracer):
            operand = value.operand
            kind = operand.value_type
            if isinstance(kind, Array):
                kind = kind.with_layout("A")  # one compiled variant for every caller's layout
            runtime.append((name, operand, kind))
            parts.append(f"{name}:{kind}{'~weak' if operand.weak else ''}")
        else:
            parts.append(f"{name}={_constant_key(value, f'argument {name!r} of subgraph {qualname}')}")
    specialization = ";".join(parts)
    graph = _trace(sub, qualname, bound, runtime, specialization)
    result = graph.config.signature.result
    node = Node.make(Call(qualname, specialization, result, graph), tuple(op.node for _, op, _ in runtime))
    if not graph.returns_tuple:
        return Tracer(Operand(node))
    return tuple(Tracer(Operand(Node.make(TupleItem(i), (node,)))) for i in range(len(graph.outputs)))


def _trace(
    sub: Subgraph,
    qualname: str,
    bound: inspect.BoundArguments,
    runtime: list[tuple[str, Operand, Value]],
    specialization: str,
) -> Graph:
    from .tracer import Tracer

    if _session is None:
        raise TraceError(f"subgraph {qualname} called with traced values outside a build")
    memo = (id(sub.function), specialization)
    if memo in _session.traced:
        return _session.traced[memo]
    if memo in _session.in_progress:
        raise TraceError(f"subgraph {qualname} calls itself; recursion cannot be traced")
    _session.in_progress.add(memo)
    try:
        # The subgraph's own arguments in place of the caller's run-time values.
        bound.arguments.update(
            (name, Tracer(Operand(Node.make(Argument(position, kind)), operand.weak, operand.python_type)))
            for position, (name, operand, kind) in enumerate(runtime)
        )
        value = with_traced_builtins(sub.function)(*bound.args, **bound.kwargs)
    finally:
        _session.in_progress.discard(memo)
    returns_tuple = isinstance(value, tuple)
    outputs = tuple(as_operand(v).node for v in (value if returns_tuple else (value,)))
    if any(isinstance(o.type, TupleOf) for o in outputs):
        raise TraceError(f"subgraph {qualname} returns a nested tuple")
    result: Result = TupleOf(tuple(o.type for o in outputs)) if returns_tuple else outputs[0].type  # type: ignore[misc]
    signature = Signature(tuple(kind for _, _, kind in runtime), result)
    config = GraphConfig(
        name=sub.function.__name__,
        function=f"{sub.function.__module__}:{sub.function.__qualname__}",
        signature=signature,
        signature_text=str(signature),
    )
    graph = Graph(config, tuple(name for name, _, _ in runtime), outputs, returns_tuple)
    _session.traced[memo] = graph
    return graph
