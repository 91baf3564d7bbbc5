"""Algebraic simplification (exact identities only), and the rewrites that need no pass."""

from __future__ import annotations

import numpy as np

from aotbuild.graph import Constant, Elementwise
from aotbuild.rewrite.simplify import simplify_graph

from .test_fuse import arg, graph


def simplified(*outputs):
    return simplify_graph(graph(*outputs)).outputs


def test_multiplying_by_one_is_the_value() -> None:
    x = arg(0)
    (out,) = simplified((x * 1.0) * 3.0)
    assert out.op.fn == "multiply" and out.inputs[0] is x.node
    (out,) = simplified((1 * x) * 3.0)
    assert out.inputs[0] is x.node
    (out,) = simplified((x / 1.0) * 3.0)
    assert out.inputs[0] is x.node
    (out,) = simplified((x**1.0) * 3.0)
    assert out.inputs[0] is x.node


def test_adding_zero_only_for_integers() -> None:
    i, f = arg(0, "int64"), arg(1)
    assert simplified((i + 0) * 2)[0].inputs[0] is i.node
    assert simplified((i - 0) * 2)[0].inputs[0] is i.node
    kept = simplified((f + 0.0) * 2.0)[0].inputs[0]  # -0.0 + 0.0 is 0.0: not an identity
    assert isinstance(kept.op, Elementwise) and kept.op.fn == "add"


def test_double_negation_and_squares() -> None:
    x = arg(0)
    negated = -x
    assert simplified(-negated * 2.0)[0].inputs[0] is x.node
    (square,) = simplified(x**2)
    assert square.op.fn == "multiply" and square.inputs == (x.node, x.node)
    (root,) = simplified(x**0.5)  # NumPy's sqrt path differs at -0.0 and -inf: left alone
    assert root.op.fn == "power"


def test_what_is_not_an_identity_stays() -> None:
    i = arg(0, "int64")
    (out,) = simplified((i * 1.0) + 1.0)  # an int array times 1.0 is a cast to float64
    assert out.inputs[0].op.fn == "multiply"
    v = arg(1)
    (out,) = simplified((v * np.ones(3)) + 1.0)  # an array of ones could broadcast v
    assert out.inputs[0].op.fn == "multiply"


def test_a_returned_value_is_never_an_input_itself() -> None:
    x = arg(0)
    (out,) = simplified(x * 1.0)
    assert out is not x.node and out.op.fn == "multiply"


def test_constant_expressions_are_folded_by_numpy_while_tracing() -> None:
    x = arg(0)
    out = (x * (np.sqrt(2.0) * 3.0 - np.float64(1.0) / 7)).node
    constant = out.inputs[1]
    assert isinstance(constant.op, Constant)
    assert constant.op.value.array[()] == np.sqrt(2.0) * 3.0 - np.float64(1.0) / 7


def test_dead_code_is_never_part_of_a_graph() -> None:
    x, y = arg(0), arg(1)
    unused = np.exp(y) * 2.0  # computed by the function, returned by nobody
    g = graph(x + 1.0)
    assert unused.node not in g.nodes() and all(node.op.name != "exp" for node in g.nodes())
