"""Slice assignments of elementwise values fused into the slice (aotbuild/rewrite/updates.py)."""

from __future__ import annotations

import numpy as np

from aotbuild.codegen.buffers import inplace_inputs
from aotbuild.graph import Elementwise
from aotbuild.graph.array_ops import MaskSelect, SetIndex, SetMask
from aotbuild.graph.fused import Fused
from aotbuild.graph.updates import FusedSetIndex, FusedSetMask
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


def test_vector_math_with_a_second_loop_is_not_fused_into_a_slice() -> None:
    x = arg(0)
    z = x.copy()
    z[1:] = np.sin(x[1:])  # sin's vector code has a range: its loop runs again beyond it
    assert isinstance(rewritten(z).op, SetIndex)


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


def test_a_masked_update_computes_its_mask_and_value_at_each_element() -> None:
    x, half = arg(0, ndim=2), arg(1, ndim=0)
    d = x.copy()
    d[d > half] -= 2.0  # d > half and d[d > half] read d itself, at the element written
    out = rewritten(d)
    assert isinstance(out.op, FusedSetMask)
    assert [step.fn for step in out.op.steps] == ["greater", "subtract"]
    count = len(out.inputs)
    assert (out.op.mask, out.op.value) == (count, count + 1)  # both computed by the steps
    assert out.inputs[:2] == (d.node.inputs[0], half.node) and len(out.inputs) == 3  # d, half, 2.0
    assert all(step.args[0] == 0 for step in out.op.steps)
    assert inplace_inputs(graph_of(out))[out.key] is out.inputs[0]  # the copy dies there


def test_a_mask_read_by_two_updates_is_stored_once() -> None:
    z, c, count = arg(0, "complex128", 2).copy(), arg(1, "complex128", 2), arg(2, "int64", 2).copy()
    alive = np.abs(z) < 2.0
    count[alive] = 7
    z[alive] = z[alive] * z[alive] + c[alive]
    counted, updated = rewrite([graph(count, z)])[0].outputs
    assert isinstance(counted.op, FusedSetMask) and isinstance(updated.op, FusedSetMask)
    assert counted.op.steps == () and counted.inputs[counted.op.value].type.ndim == 0  # 7
    mask = counted.inputs[counted.op.mask]
    assert isinstance(mask.op, Fused) and mask is updated.inputs[updated.op.mask]
    assert [step.fn for step in updated.op.steps] == ["multiply", "add"]
    assert not any(isinstance(item.op, MaskSelect) for item in updated.inputs)  # c read at e


def test_a_mask_of_another_view_of_the_array_is_stored() -> None:
    x = arg(0, ndim=2)
    z = x.copy()
    z[z.T > 0.0] = 1.0  # NumPy computes the whole mask first: stored, then read
    out = rewritten(z)
    assert isinstance(out.op, FusedSetMask) and out.op.steps == ()
    assert isinstance(out.inputs[out.op.mask].op, (Elementwise, Fused))


def test_masked_updates_that_do_not_fuse() -> None:
    x, y, rows = arg(0, ndim=2), arg(1, ndim=2), arg(2, "bool", 1)
    z = x.copy()
    z[rows] = 0.0  # a mask over the leading axis: rows selected, as before
    assert isinstance(rewritten(z).op, SetMask)
    w = x.copy()
    w[y > 0.0] = w.T[y > 0.0] * 2.0  # reads another view of w: NumPy's order, not fused
    assert isinstance(rewritten(w).op, SetMask)
    v = x.copy()
    v[y > 0.0] = np.sin(y[y > 0.0])  # vector math with a second loop
    assert isinstance(rewritten(v).op, SetMask)
    u = x.copy()
    twice = y[y > 0.0] * 3.0
    u[y > 0.0] = twice
    out = rewrite([graph(u, twice)])[0].outputs[0]
    assert isinstance(out.op, SetMask)  # twice is returned too: stored
    k, n = arg(0, "int64", 2), arg(1, "int64", 0)
    t = k.copy()
    t[k > 0] = k[k > 0] ** n  # raises for n < 0 before NumPy writes: computed where False too
    assert isinstance(rewritten(t).op, SetMask)
