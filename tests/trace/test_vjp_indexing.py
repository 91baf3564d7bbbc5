"""Vector-Jacobian rules of indexing (aotbuild/trace/vjp/indexing.py), as graphs: what each
rule builds. Their values against finite differences are tests/test_gradients.py's."""

import numpy as np
import pytest

from aotbuild.graph import Argument, Node
from aotbuild.graph.array_ops import BasicIndex, SetIndex
from aotbuild.trace.gradients import gradients
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array


def argument(ndim: int) -> Tracer:
    return Tracer(Operand(Node.make(Argument(0, Array("float64", ndim, "A")))))


def ops_of(node: Node) -> set[type]:
    seen, stack, kinds = set(), [node], set()
    while stack:
        current = stack.pop()
        if id(current) not in seen:
            seen.add(id(current))
            kinds.add(type(current.op))
            stack.extend(current.inputs)
    return kinds


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x[None],
        lambda x: x[:, None, :],
        lambda x: np.expand_dims(x, -1),
        lambda x: np.squeeze(x[:, None], axis=1)[None],
    ],
)
def test_a_view_adding_or_dropping_axes_of_length_one_sends_the_cotangent_back_as_a_view(view) -> None:
    """``x[None]``, ``x[:, None]``...: every element read once, so the cotangent is the output's,
    viewed with the added axes dropped, not written into an array of zeros."""
    x = argument(2)
    (grad,) = gradients(np.sum(view(x) * 3.0).node, (x.node,))
    kinds = ops_of(grad)
    assert SetIndex not in kinds and BasicIndex in kinds


def test_a_slice_still_writes_its_cotangent_into_zeros() -> None:
    x = argument(2)
    (grad,) = gradients(np.sum(x[1:, None] * 3.0).node, (x.node,))
    assert SetIndex in ops_of(grad)
