"""The ``fastmath`` pass: inexact rewrites in graphs that opted in, nothing anywhere else."""

from __future__ import annotations

import numpy as np

from aotbuild.config import GraphConfig
from aotbuild.config.signature import parse_signature
from aotbuild.graph import Argument, Constant, Elementwise, Graph, Node
from aotbuild.rewrite.fastmath import fastmath_graph
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array


def arg(dtype: str = "float64") -> Tracer:
    return Tracer(Operand(Node.make(Argument(0, Array(dtype, 1, "A")))))


def rewritten(output: Tracer, fastmath: bool = True) -> Node:
    config = GraphConfig(
        name="g",
        function="m:g",
        signature=parse_signature("float64[:](float64[:])"),
        signature_text="",
        fastmath=fastmath,
    )
    (out,) = fastmath_graph(Graph(config, ("x",), (output.node,), returns_tuple=False)).outputs
    return out


def ops(node: Node) -> list[str]:
    """The elementwise functions from ``node`` down, depth first."""
    found = [node.op.fn] if isinstance(node.op, Elementwise) else []
    for item in node.inputs:
        found += ops(item)
    return found


def test_square_roots_cubes_and_divisions_by_constants_become_cheaper() -> None:
    x = arg()
    sqrt = rewritten(x**0.5)
    assert ops(sqrt) == ["sqrt"] and sqrt.inputs == (x.node,)
    cube = rewritten(x**3)
    assert ops(cube) == ["multiply", "multiply"] and cube.inputs[1] is x.node
    scaled = rewritten(x / 4.0)
    assert ops(scaled) == ["multiply"]
    constant = scaled.inputs[1].op
    assert isinstance(constant, Constant) and constant.value.array[()] == 0.25


def test_the_result_keeps_its_type() -> None:
    x = arg("float32")
    for expression in (x**0.5, x**3, x / np.float32(3.0)):
        assert rewritten(expression).type == expression.node.type


def test_exact_graphs_integers_and_casts_are_left_alone() -> None:
    x = arg()
    assert rewritten(x**0.5, fastmath=False) is (x**0.5).node
    assert rewritten(x / 4.0, fastmath=False) is (x / 4.0).node
    i = arg("int64")
    assert rewritten(i**3) is (i**3).node  # integer power: exact already
    assert rewritten(i / 4.0) is (i / 4.0).node  # int64 cast to float64 inside the division
    assert rewritten(x / 0.0) is (x / 0.0).node  # no reciprocal to take
    assert rewritten(x**0.25) is (x**0.25).node
