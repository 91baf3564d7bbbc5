"""Tracing a region for the argument types numba inferred where the kernel calls it.

The region's function runs on tracers, as a traced graph's does, with the kernel's globals (and
closure values) and Python's scalar builtins made traceable
(:mod:`aotbuild.trace.scalar_builtins`). Integer scalars are weak, as the Python ints they stand
for (loop counters, sizes): ``x * i`` of a float32 array stays float32. Float and complex scalars
are strong, as the float64 the kernel declares them (numba's view of them too).

What comes back is a :class:`~aotbuild.graph.Graph` whose ``writes`` are the arrays written
into, or a :class:`RegionFailure` naming the statement tracing stopped at: the kernel keeps that
statement as written and its neighbours are traced without it.
"""

from __future__ import annotations

import traceback
import types
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from ...config import GraphConfig
from ...errors import TraceError
from ...graph import Argument, Graph, Node
from ...graph.array_ops import SetGather, SetIndex, SetMask
from ...graph.node import topological_order
from ...types import NONE, Array, Result, Scalar, Signature, TupleOf, Value
from ..lifting import globals_and_closure
from ..operands import Operand, as_operand
from ..patches import tracing_patches
from ..scalar_builtins import TRACED_TYPES
from .outline import Region

#: The updates ``z[...] = value`` of an array.
UPDATES = (SetIndex, SetGather, SetMask)


@dataclass(frozen=True)
class RegionFailure(Exception):
    """Tracing ``region`` stopped at its statement ``statement`` (an index) because of ``reason``."""

    statement: int
    reason: str


def trace_region(
    region: Region,
    function: Any,
    qualname: str,
    where: str,
    argtypes: tuple[Value, ...],
    types: dict[str, Value | TupleOf | None],
) -> Graph:
    """The graph of ``region`` (cut from the kernel ``function``, ``qualname``, its statements
    starting at ``where``: ``programs.py:12``) for ``argtypes``. Each name it assigns must
    trace to the type numba gave it (``types``), so the kernel around it types as before."""
    from ..tracer import Tracer

    filename = f"<aotbuild {qualname} {region.name}>"
    traced = _region_function(region, function, filename)
    tracers = [
        Tracer(_argument(position, kind, name))
        for position, (name, kind) in enumerate(zip(region.parameters, argtypes, strict=True))
    ]
    try:
        with tracing_patches(), np.errstate(all="ignore"):
            values, assigned = traced(*tracers)
    except Exception as exc:
        statement = _failed_statement(region, exc, filename)
        raise RegionFailure(statement, f"{type(exc).__name__}: {exc}") from None
    for name, value in assigned.items():
        if name not in types:
            continue
        try:
            traced_type = as_operand(value).node.type
        except Exception:
            traced_type = None
        if not _same_kind(types[name], traced_type):
            why = f"`{name}` traces to {traced_type}, numba types it {types[name]}"
            raise RegionFailure(region.last_assigning(name), why)
    outputs: list[Node] = []
    for name, value in zip(region.outputs, values, strict=True):
        index = region.last_assigning(name)
        if isinstance(value, Tracer) and (value._view_of is not None or isinstance(value.node.op, Argument)):
            raise RegionFailure(index, f"`{name}` is a view of another array")
        try:
            outputs.append(as_operand(value).node)
        except Exception as exc:
            raise RegionFailure(index, f"`{name}`: {exc}") from None
    writes: list[int] = []
    for name in region.writes:
        position = region.parameters.index(name)
        node = tracers[position].node
        if not isinstance(node.op, Argument):
            writes.append(position)
            outputs.append(node)
    outputs = _keeping_layouts(outputs, len(writes))
    returned = tuple(node.type for node in outputs[: len(outputs) - len(writes)])
    result: Result = TupleOf(returned) if returned else NONE  # type: ignore[arg-type]
    signature = Signature(argtypes, result)
    config = GraphConfig(
        name=f"{function.__name__}{region.name.removeprefix('_aot')}",
        function=f"{qualname} ({where})",
        signature=signature,
        signature_text=str(signature),
        mode="trace",
    )
    return Graph(config, region.parameters, tuple(outputs), returns_tuple=True, writes=tuple(writes))


def _keeping_layouts(outputs: list[Node], written: int) -> list[Node]:
    """``outputs`` with the updates of each array written into (the last ``written``) made to
    keep its layout (``keeps_layout``): they are the array itself where done in place."""
    chain: set[str] = set()
    for final in outputs[len(outputs) - written :]:
        node = final
        while isinstance(node.op, UPDATES):
            chain.add(node.key)
            node = node.inputs[0]
    rebuilt: dict[str, Node] = {}
    for node in topological_order(tuple(outputs)):
        inputs = tuple(rebuilt.get(item.key, item) for item in node.inputs)
        op = replace(node.op, keeps_layout=True) if node.key in chain else node.op  # type: ignore[type-var]
        if op is not node.op or inputs != node.inputs:
            rebuilt[node.key] = Node.make(op, inputs)
    return [rebuilt.get(node.key, node) for node in outputs]


def _argument(position: int, kind: Value, name: str) -> Operand:
    node = Node.make(Argument(position, kind))
    if isinstance(kind, Scalar) and kind.dtype == "int64":
        return Operand(node, weak=True, python_type=int)
    return Operand(node)


def traced_boolean(ufunc: np.ufunc, *values: Any) -> Any:
    """``a and b`` (``ufunc`` np.logical_and) or ``a or b`` (np.logical_or) in a region: Python's
    where no value is traced; else ``ufunc`` of traced booleans (other traced values: refused,
    as Python's ``and`` would return one of them, not a boolean)."""
    from ..operands import as_operand
    from ..patches import involves_tracer
    from ..tracer import Tracer
    from ..ufuncs import apply_ufunc

    if not involves_tracer(values):
        result = values[0]
        for value in values[1:]:
            if bool(result) != (ufunc is np.logical_and):  # and: stops at a false one; or: a true
                break
            result = value
        return result
    operands = [as_operand(value) for value in values]
    if any(op.ndim != 0 or op.dtype != np.bool_ for op in operands):
        kinds = ", ".join(str(op.node.type) for op in operands)
        raise TraceError(f"`and`/`or` of traced values other than booleans ({kinds})")
    combined = operands[0]
    for op in operands[1:]:
        combined = apply_ufunc(ufunc, (combined, op), {})
    return Tracer(combined)


def _region_function(region: Region, function: Any, filename: str) -> Any:
    """The region's function, compiled with ``function``'s globals, its closure's values and
    the traceable ``int``, ``float``..."""
    namespace = globals_and_closure(function)
    for name, proxy in TRACED_TYPES.items():
        namespace.setdefault(name, proxy)
    namespace["_aot_and"] = partial(traced_boolean, np.logical_and)
    namespace["_aot_or"] = partial(traced_boolean, np.logical_or)
    compiled = compile(region.function_source(), filename, "exec")
    local: dict[str, Any] = {}
    exec(compiled, namespace, local)  # noqa: S102 (the kernel's own statements)
    made = local[region.name]
    return types.FunctionType(made.__code__, namespace, region.name)


def _failed_statement(region: Region, exc: BaseException, filename: str) -> int:
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if line is None:
        return len(region.statements) - 1
    return region.statement_at(line or 2)


def argument_types(argtypes: tuple[Any, ...]) -> tuple[Value, ...] | str:
    """numba's argument types as aotbuild's, or why the region cannot take them."""
    from ...compile.numba_types import UnsupportedType, from_numba

    values: list[Value] = []
    for nbtype in argtypes:
        try:
            value = from_numba(nbtype)
        except UnsupportedType as exc:
            return str(exc)
        if not isinstance(value, (Scalar, Array)):
            return f"a {nbtype}"
        values.append(value)
    return tuple(values)


def _same_kind(expected: Value | TupleOf | None, traced: Any) -> bool:
    """Whether a traced value may stand where numba typed ``expected``: the same scalar, or an
    array of the same dtype and dimensions in a layout numba's accepts."""
    if isinstance(expected, Scalar):
        return traced == expected
    if isinstance(expected, Array) and isinstance(traced, Array):
        layout_ok = expected.layout == "A" or traced.layout == "C"
        return (expected.dtype, expected.ndim) == (traced.dtype, traced.ndim) and layout_ok
    return False
