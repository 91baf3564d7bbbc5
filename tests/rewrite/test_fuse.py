"""Elementwise fusion on small graphs: what joins a fused Op and what stays on its own."""

from __future__ import annotations

import numpy as np

import aotbuild
from aotbuild.config import GraphConfig
from aotbuild.config.signature import parse_signature
from aotbuild.graph import Argument, Elementwise, Graph, Node, Reduce
from aotbuild.graph.fused import Fused, FusedReduce
from aotbuild.rewrite import PASSES, rewrite
from aotbuild.rewrite.fuse import fuse_graph
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array, Scalar


def arg(position: int, dtype: str = "float64", ndim: int = 1) -> Tracer:
    value = Array(dtype, ndim, "A") if ndim else Scalar(dtype)
    return Tracer(Operand(Node.make(Argument(position, value))))


def graph(*outputs: Tracer) -> Graph:
    config = GraphConfig(
        name="g", function="m:g", signature=parse_signature("float64(float64)"), signature_text=""
    )
    return Graph(config, ("a", "b", "c"), tuple(o.node for o in outputs), returns_tuple=len(outputs) > 1)


def fused(*outputs: Tracer) -> tuple[Node, ...]:
    return fuse_graph(graph(*outputs)).outputs


def test_a_chain_becomes_one_op_with_a_step_per_original() -> None:
    a, b = arg(0), arg(1)
    (out,) = fused(np.sin((b - a) / 2) ** 2 + 1.0)
    assert isinstance(out.op, Fused)
    assert [step.fn for step in out.op.steps] == ["subtract", "divide", "sin", "power", "add"]
    assert [i.op for i in out.inputs if isinstance(i.op, Argument)] == [b.node.op, a.node.op]
    assert out.type == (np.sin((b - a) / 2) ** 2 + 1.0).node.type


def test_values_used_twice_or_returned_are_stored() -> None:
    a, b = arg(0), arg(1)
    shared = a * b
    first, second = fused(shared * 2.0, shared + 1.0)  # two consumers: stored once
    assert first.inputs[0] is shared.node and second.inputs[0] is shared.node
    first, second = fused(shared, shared + 1.0)
    assert first is shared.node and isinstance(second.op, Elementwise)


def test_a_cheap_step_of_a_stored_array_is_computed_again_in_each_reader() -> None:
    a, b = arg(0), arg(1)
    negated = -1.0 * a  # a is read by two Ops: stored either way
    divided, total, other = fused(negated / b, np.sum(negated), a + b)
    assert isinstance(divided.op, Fused) and [s.fn for s in divided.op.steps] == ["multiply", "divide"]
    assert isinstance(total.op, FusedReduce) and [s.fn for s in total.op.steps] == ["multiply"]
    assert a.node in divided.inputs and a.node in total.inputs  # no temporary of -1.0 * a
    # an array that dies at the step is written in place instead: the step is stored
    grown = -1.0 * np.exp(b)
    first, second = fused(grown / a, np.sum(grown))
    assert first.inputs[0] is second.inputs[0] and isinstance(first.inputs[0].op, Fused)


def test_lower_dimensional_and_scalar_values_are_computed_once() -> None:
    matrix, vector, scalar = arg(0, ndim=2), arg(1), arg(2, ndim=0)
    (out,) = fused(matrix * (vector * 2.0) + np.log(scalar))
    assert isinstance(out.op, Fused) and [s.fn for s in out.op.steps] == ["multiply", "add"]
    scaled, logged = out.inputs[1], out.inputs[2]  # each computed once, outside the 2-d loop
    assert isinstance(scaled.op, Elementwise) and scaled.op.fn == "multiply" and scaled.type.ndim == 1
    assert isinstance(logged.op, Elementwise) and logged.op.fn == "log"


def test_reductions_take_in_their_producers() -> None:
    a, b = arg(0), arg(1)
    (out,) = fused(np.sum((a - b) * 2.0) + a * 3.0)
    assert isinstance(out.op, Fused) and [s.fn for s in out.op.steps] == ["multiply", "add"]
    total = out.inputs[0]
    assert isinstance(total.op, FusedReduce) and [s.fn for s in total.op.steps] == ["subtract", "multiply"]
    assert total.op.kind == "sum" and total.inputs[:2] == (a.node, b.node)


def test_a_stored_value_is_reduced_as_it_is() -> None:
    a, b = arg(0), arg(1)
    difference = a - b
    total, kept = fused(np.sum(difference), difference)
    assert isinstance(total.op, Reduce) and total.inputs[0] is kept


def test_common_subexpressions_are_one_node_already() -> None:
    a, b = arg(0), arg(1)
    assert (a * b + 1.0).node.inputs[0] is (a * b).node  # hash-consing: no CSE pass needed
    (out,) = fused((a * b) * (a * b))  # one consumer reading a*b twice: computed once per element
    assert isinstance(out.op, Fused) and [s.fn for s in out.op.steps] == ["multiply", "multiply"]
    assert out.op.steps[1].args == (2, 2)  # the first step's value, twice


def test_fusion_is_deterministic_and_structural() -> None:
    a, b = arg(0), arg(1)
    first = fused(np.exp(a - b) * 2.0)[0]
    assert fused(np.exp(a - b) * 2.0)[0] is first
    other = fused(np.exp(arg(0) - arg(1)) * 2.0)[0]
    assert other.key == first.key


def test_passes_run_in_order_and_can_be_turned_off() -> None:
    assert [step.name for step in PASSES] == [
        "simplify",
        "fastmath",
        "complex-abs-squared",
        "fuse-elementwise",
        "fuse-arg-reductions",
        "fuse-updates",
    ]
    a, b = arg(0), arg(1)
    g = graph((a + b) * 2.0)
    assert isinstance(rewrite([g])[0].outputs[0].op, Fused)
    unfused = rewrite([g], fuse=False)[0].outputs[0]
    assert unfused is g.outputs[0]  # nothing to simplify, and not fused


def test_subgraphs_are_fused_inside() -> None:
    @aotbuild.subgraph
    def inner(x, y):
        return (x - y) * 2.0

    from aotbuild.trace.subgraph import subgraph_session

    with subgraph_session():
        a, b = arg(0), arg(1)
        (out,) = fused(inner(a, b) + 1.0)
    call = out.inputs[0].op
    assert isinstance(call.graph.outputs[0].op, Fused)
