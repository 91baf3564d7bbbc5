"""Creating arrays while tracing: NumPy's dtypes and values, its signatures, constants folded."""

import numpy as np
import pytest

from aotbuild.graph import topological_order
from aotbuild.trace.operands import as_operand
from aotbuild.trace.patches import tracing_patches
from aotbuild.trace.tracer import Tracer

from .test_tracer import traced


def constant(value: object) -> Tracer:
    """A tracer of a value known at trace time (as a constant from the traced function)."""
    return Tracer(as_operand(value))


def folded(result: Tracer) -> np.ndarray:
    const = result.operand.constant
    assert const is not None, result
    return const.array


def test_creation_from_constant_tracers_folds_without_recursing() -> None:
    """np.arange/np.full are patched while tracing: folding must not call them with tracers."""
    x = traced("float64")
    with tracing_patches():
        ramp = np.linspace(x[0], 1.0, 5, endpoint=False)
        assert ramp.dtype == np.float64 and ramp.ndim == 1
        assert np.array_equal(
            folded(np.linspace(constant(np.float64(0.5)), 1.0, 5, endpoint=False)),
            np.linspace(0.5, 1.0, 5, endpoint=False),
        )
        count = folded(np.arange(constant(np.int64(4))))
        assert np.array_equal(count, np.arange(4)) and count.dtype == np.int64
        filled = folded(np.full((2,), constant(np.float32(2.5))))
        assert np.array_equal(filled, np.full((2,), np.float32(2.5))) and filled.dtype == np.float32


@pytest.mark.parametrize(
    ("start", "stop"),
    [
        (np.float32(0), np.float32(1)),
        (np.float32(0), 1.0),
        (0, np.float32(1)),
        (np.int8(0), np.int8(3)),
        (np.complex64(0), 1),
        (0, 1),
    ],
)
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_dtype_matches_numpy(start: object, stop: object, endpoint: bool) -> None:
    expected = np.linspace(start, stop, 5, endpoint=endpoint).dtype
    low = traced(np.asarray(start).dtype.name, 0) if isinstance(start, np.generic) else start
    high = traced(np.asarray(stop).dtype.name, 0, position=1) if isinstance(stop, np.generic) else stop
    with tracing_patches():
        assert np.linspace(low, high, 5, endpoint=endpoint).dtype == expected


def test_positional_dtype_of_creation_functions() -> None:
    """np.full(shape, fill, dtype) and friends take dtype (and order) positionally too."""
    x = traced("float64")
    n = x.shape[0]
    with tracing_patches():
        assert np.full((n,), 1.0, np.float32).dtype == np.float32
        assert np.full((n, 2), x[0], np.float32, "C").dtype == np.float32
        assert np.zeros((n,), np.int32).dtype == np.int32
        assert np.ones(n, np.uint8, "C").dtype == np.uint8
        assert np.arange(0, n, 1, np.float32).dtype == np.float32


@pytest.mark.parametrize(
    ("start", "stop"),
    [(np.float32(-1), np.float32(1)), (np.float32(0.1), 7.3), (np.complex64(1 + 2j), np.complex64(-3j))],
)
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_in_float32_is_numpys_formula(start: object, stop: object, endpoint: bool) -> None:
    """numba's linspace computes in float64 only: float32 and complex64 trace NumPy's steps."""
    with tracing_patches():
        for num in range(6):
            got = folded(np.linspace(constant(start), stop, num, endpoint=endpoint))
            expected = np.linspace(start, stop, num, endpoint=endpoint)
            assert got.dtype == expected.dtype and np.array_equal(got, expected), num
        n = traced("float64").shape[0]
        values = np.linspace(constant(start), stop, n, endpoint=endpoint)
    assert values.dtype == np.result_type(start, stop)
    assert all(node.op.name != "linspace" for node in topological_order((values.node,)))
