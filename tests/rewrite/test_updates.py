"""Slice assignments of elementwise values fused into the slice (aotbuild/rewrite/updates.py)."""

from __future__ import annotations

import numpy as np

from aotbuild.codegen.buffers import inplace_inputs
from aotbuild.graph.array_ops import SetIndex
from aotbuild.graph.updates import FusedSetIndex
from aotbuild.rewrite import rewrite
from aotbuild.trace.patches import tracing_patches

from .test_fuse import arg, graph


def rewritten(out):
    return rewrite([graph(out)])[0].outputs[0]


def test_a_slice_assigned_an_expression_computes_it_into_the_slice() -> None:
    x, y = arg(0, ndim=2), arg(1, ndim=2)
    with tracing_patches():
        z = np.zeros((x.shape[0], x.shape[1]))
    z[1:, :] = x[1:] * 2.0 + y[1:]
    out = rewritten(z)
    assert isinstance(out.op, FusedSetIndex) and out.op.target == -1
    assert [step.fn for step in out.op.steps] == ["multiply", "add"]
    assert inplace_inputs(graph_of(out))[out.key] is out.inputs[0]  # the zeros die there


def test_an_update_reads_its_own_slice_at_each_element() -> None:
    x = arg(0, ndim=2)
    z = x.copy()
    z[::2] += 1.5
    out = rewritten(z)
    assert isinstance(out.op, FusedSetIndex)
    target = out.inputs[1 + out.op.indices + out.op.target]
    assert target.inputs[0] is out.inputs[0]  # z[::2] itself


def test_another_view_of_what_is_written_keeps_the_update_as_it_was() -> None:
    x = arg(0, ndim=2)
    z = x.copy()
    z[:, 1:] += z[:, :-1] * 0.5  # NumPy reads z[:, :-1] before it writes z[:, 1:]
    assert isinstance(rewritten(z).op, SetIndex)


def test_a_value_of_fewer_dimensions_broadcast_into_the_slice_is_copied() -> None:
    x, row = arg(0, ndim=2), arg(1, ndim=1)
    z = x.copy()
    z[1:3, :] = row * 2.0
    assert isinstance(rewritten(z).op, SetIndex)


def test_gathers_and_values_used_twice_stay_apart() -> None:
    x, y = arg(0, ndim=1), arg(1, ndim=1)
    z = x.copy()
    value = y * 2.0
    z[1:] = value[1:]  # a view of the value, not the value
    assert isinstance(rewritten(z).op, SetIndex)
    w = x.copy()
    twice = y * 3.0
    w[:] = twice
    out = rewrite([graph(w, twice)])[0].outputs[0]
    assert isinstance(out.op, SetIndex)  # twice is returned too: stored


def graph_of(out):
    from aotbuild.graph.node import topological_order

    class _Graph:
        outputs = (out,)
        writes = ()

        def nodes(self):
            return topological_order(self.outputs)

    return _Graph()


def test_argmin_of_an_expression_is_scanned_as_computed() -> None:
    from aotbuild.graph.arg_reduce import FusedArgReduce

    x, y = arg(0), arg(1)
    out = rewritten(np.argmin(np.abs(x - y) ** 2))
    assert isinstance(out.op, FusedArgReduce) and out.op.kind == "argmin"
    assert [step.fn for step in out.op.steps] == ["subtract", "absolute", "multiply"]
    z = arg(2, dtype="complex128")
    assert not isinstance(rewritten(np.argmax(z * 2.0)).op, FusedArgReduce)  # complex order: kept
    shared = x * 2.0
    out = rewrite([graph(np.argmax(shared), shared)])[0].outputs[0]
    assert not isinstance(out.op, FusedArgReduce)  # the value is returned too: stored
