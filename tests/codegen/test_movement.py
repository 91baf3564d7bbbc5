"""Rendering decisions of aotbuild.codegen.movement taken once, at build time."""

import numpy as np

from aotbuild.codegen.movement import bincount_lanes

RUNS = np.repeat(np.array([7, 3, 0, 12, 5, 9, 1, 11]), [40, 400, 1, 90, 130, 1, 77, 64])


def test_bincount_lanes_start_at_runs() -> None:
    """Each lane but the first starts where a run starts, where the one before ends."""
    lanes = bincount_lanes(RUNS)
    assert lanes is not None and len(lanes) >= 2
    assert lanes[0][0] == 0 and lanes[-1][1] == len(RUNS)
    assert all(end == start for (_, end), (start, _) in zip(lanes, lanes[1:], strict=False))
    assert all(RUNS[start] != RUNS[start - 1] and start < end for start, end in lanes[1:])


def test_no_lanes_where_a_value_is_in_two_runs_or_there_are_too_few() -> None:
    assert bincount_lanes(np.concatenate([RUNS, [7]])) is None  # 7 again: its sum spans lanes
    assert bincount_lanes(RUNS[:100]) is None  # too short for two lanes
    assert bincount_lanes(np.zeros(1000, np.int64)) is None  # one run: nowhere to split
    assert bincount_lanes(None) is None


def test_a_transpose_by_axes_is_the_permuted_view_numpy_gives() -> None:
    """``np.transpose(x, axes)`` compiles as :func:`aotbuild.compile.intrinsics.permuted` (not
    numba's ``transpose`` method, whose run-time permutation types ~50 functions), ``.T`` as
    itself; either is the view NumPy gives, of C, strided and reversed arrays."""
    import numba

    from aotbuild.codegen.movement import render_expression
    from aotbuild.graph import Argument, Node
    from aotbuild.trace.operands import Operand
    from aotbuild.trace.tracer import Tracer
    from aotbuild.types import Array

    x = Tracer(Operand(Node.make(Argument(0, Array("float64", 3, "A")))))
    rng = np.random.default_rng(0)
    base = rng.normal(size=(4, 6, 5))
    for axes in ((1, 0, 2), (0, 2, 1), (2, 0, 1), None):
        module = render_expression(np.transpose(x, axes).node)
        body = module.text.split("def op")[1]
        assert ".transpose(" not in body and ("permuted(" in body) == (axes is not None)
        namespace: dict = {}
        exec(compile(module.text, "<generated>", "exec"), namespace)
        op = numba.njit(namespace["op"])
        for a in (base, base[::2, 1:, ::-1], base[::-1]):
            view = op(a)
            expected = np.transpose(a, axes)
            assert view.shape == expected.shape and view.strides == expected.strides
            assert np.shares_memory(view, a) and np.array_equal(view, expected)
