"""Memory planning on small graphs: which Op writes into which dying temporary, and which never."""

from __future__ import annotations

import numpy as np

from aotbuild.codegen.buffers import inplace_inputs
from aotbuild.config import GraphConfig
from aotbuild.config.signature import parse_signature
from aotbuild.graph import Argument, Graph, Node
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array


def arg(position: int, dtype: str = "float64", ndim: int = 1) -> Tracer:
    return Tracer(Operand(Node.make(Argument(position, Array(dtype, ndim, "A")))))


def spares(*outputs: Tracer) -> dict[Node, Node]:
    config = GraphConfig(
        name="g", function="m:g", signature=parse_signature("float64(float64)"), signature_text=""
    )
    graph = Graph(config, ("a", "b"), tuple(o.node for o in outputs), returns_tuple=len(outputs) > 1)
    by_key = {node.key: node for node in graph.nodes()}
    return {by_key[key]: spare for key, spare in inplace_inputs(graph).items()}


def test_a_temporary_that_dies_at_an_elementwise_op_takes_its_result() -> None:
    a = arg(0)
    t = np.exp(a)
    u = t + 1.0
    assert spares(u.sum()) == {u.node: t.node}


def test_every_step_of_a_chain_reuses_the_buffer_before_it() -> None:
    a = arg(0)
    steps = [np.exp(a)]
    for _ in range(4):
        steps.append(steps[-1] - steps[-1].sum())  # elementwise after a reduction of the same value
    expected = {after.node: before.node for before, after in zip(steps, steps[1:], strict=False)}
    assert spares(steps[-1].sum()) == expected


def test_arguments_and_outputs_are_never_written() -> None:
    a = arg(0)
    assert spares(a + 1.0) == {}
    t = np.exp(a)
    assert spares(t, t + 1.0) == {}  # t is returned: its buffer is the caller's


def test_a_temporary_still_needed_later_is_kept() -> None:
    a = arg(0)
    t = np.exp(a)
    u = t + 1.0
    v = (u * t.sum()) * t
    chosen = spares(v.sum())
    assert u.node not in chosen and t.node not in chosen.values()  # t is read again by v's Op
    assert v.node not in chosen  # which reads t beside its input


def test_only_ops_whose_other_inputs_are_scalars_write_in_place() -> None:
    """Beside another array, LLVM must assume the two overlap: slower than a new array."""
    a, m = arg(0), arg(1, ndim=2)
    rows = np.exp(m)
    scale = rows.std(axis=1, keepdims=True)
    standardised = (rows - 1.0) / scale
    assert standardised.node not in spares(standardised.sum())  # a per-row array beside its input
    shifted = rows - 1.0
    assert spares((shifted * 2.0).sum())[(shifted * 2.0).node] is shifted.node  # scalars beside it
    assert spares((np.exp(a) * np.exp(a)).sum()) == {(np.exp(a) * np.exp(a)).node: np.exp(a).node}


def test_a_temporary_seen_through_a_view_is_never_written() -> None:
    a = arg(0)
    t = np.exp(a)
    view = t[::2]
    assert spares((t + view.sum()).sum()) == {}


def test_the_buffer_has_the_result_type_exactly() -> None:
    a, m = arg(0), arg(1, ndim=2)
    t = np.exp(a)
    assert spares((t > 0.5).sum()) == {}  # bool result
    assert spares(t.astype(np.float32).sum()) == {}
    assert spares((m + t).sum()) == {}  # a 2-d result from a 1-d temporary
