"""Python's max, min, int, float, complex, bool, round and math functions on traced scalars."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aotbuild.errors import TraceError
from aotbuild.graph import Argument, Node
from aotbuild.trace.operands import Operand
from aotbuild.trace.patches import tracing_patches
from aotbuild.trace.scalar_builtins import TRACED_TYPES, with_traced_builtins
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array, Scalar


def scalar(dtype: str, position: int = 0) -> Tracer:
    return Tracer(Operand(Node.make(Argument(position, Scalar(dtype)))))


def array(dtype: str, position: int = 0) -> Tracer:
    return Tracer(Operand(Node.make(Argument(position, Array(dtype, 1)))))


def test_max_and_min_of_traced_scalars_promote_as_numpy() -> None:
    with tracing_patches():
        assert max(1.0, scalar("float32")).dtype == np.float32  # a Python float is weak
        assert min(scalar("int32"), scalar("float64", 1)).dtype == np.float64
        assert max([scalar("int64"), 3, scalar("int64", 1)]).dtype == np.int64
        assert max(2, 3) == 3 and min("b", "a") == "a"  # untraced values: Python's own


def test_max_of_an_array_is_refused_with_what_to_do() -> None:
    with tracing_patches(), pytest.raises(TraceError, match=r"max\(\) of a traced array of 1 dimension"):
        max(array("float64"), 1.0)


def test_int_float_complex_bool_round_give_weak_traced_scalars() -> None:
    def function(x, n):
        return int(n), float(x), complex(x, n), bool(x), round(x), int, float

    traced = with_traced_builtins(function)
    with tracing_patches():
        as_int, as_float, as_complex, as_bool, rounded, int_type, float_type = traced(
            scalar("float32"), scalar("float64", 1)
        )
    assert as_int.dtype == np.int64 and as_int.operand.weak and as_int.operand.python_type is int
    assert as_float.dtype == np.float64 and as_float.operand.python_type is float
    assert as_complex.dtype == np.complex128
    assert as_bool.dtype == np.bool_
    assert rounded.dtype == np.int64 and rounded.operand.python_type is int
    # as types they are the real ones: dtype=int, isinstance
    assert np.dtype(int_type) == np.int64 and np.zeros(2, dtype=float_type).dtype == np.float64
    assert isinstance(3, int_type) and not isinstance(3.0, int_type) and isinstance(2.5, float_type)
    assert int_type(2.7) == 2 and float_type("1.5") == 1.5 and int_type("ff", 16) == 255


def test_an_int_of_a_parameter_is_a_run_time_size() -> None:
    def function(n):
        return np.linspace(0.0, 1.0, int(n)), np.zeros(int(n) + 1)

    with tracing_patches():
        grid, zeros = with_traced_builtins(function)(scalar("float64"))
    assert grid.ndim == 1 and grid.dtype == np.float64 and zeros.ndim == 1


def test_math_functions_are_float64_ufuncs() -> None:
    with tracing_patches():
        assert math.sqrt(scalar("float32")).dtype == np.float64
        assert math.floor(scalar("float64")).dtype == np.int64
        assert math.isnan(scalar("float64")).dtype == np.bool_
        assert math.log(scalar("float64"), 2.0).dtype == np.float64
        assert math.sqrt(4.0) == 2.0


def test_complex_to_int_is_refused_as_python_refuses_it() -> None:
    with tracing_patches(), pytest.raises(TraceError, match=r"int\(\) of a complex value"):
        TRACED_TYPES["int"](scalar("complex128"))


def test_functions_defining_their_own_names_keep_them() -> None:
    def function(x):
        return float(x)

    namespace = {"float": lambda x: "mine", "__builtins__": __builtins__}
    own = type(function)(function.__code__, namespace, "function")
    assert with_traced_builtins(own) is own
