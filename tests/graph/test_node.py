"""Nodes are hash-consed, immutable, and keyed by a hash that is the same in every process."""

import os
import subprocess
import sys

import numpy as np
import pytest

from aotbuild.graph import Argument, Constant, ConstValue, Elementwise, Node, topological_order
from aotbuild.types import Array

X = Array("float64", 1, "A")


def test_same_op_and_inputs_is_the_same_node() -> None:
    x = Node.make(Argument(0, X))
    a = Node.make(Elementwise("exp", ("float64",), "float64"), (x,))
    b = Node.make(Elementwise("exp", ("float64",), "float64"), (Node.make(Argument(0, X)),))
    assert a is b
    assert Node.make(Elementwise("log", ("float64",), "float64"), (x,)) is not a


def test_nodes_are_immutable() -> None:
    node = Node.make(Argument(0, X))
    with pytest.raises(AttributeError):
        node.op = Argument(1, X)  # type: ignore[misc]


def test_constants_compare_by_dtype_and_bits() -> None:
    assert ConstValue.of(0.0) != ConstValue.of(-0.0)
    assert len({ConstValue.of(1), ConstValue.of(1.0), ConstValue.of(True)}) == 3
    assert ConstValue.of(np.nan) == ConstValue.of(np.nan)
    assert ConstValue.of(np.float32(2.5)).ndim == 0
    assert Node.make(Constant(ConstValue.of(2.0))) is Node.make(Constant(ConstValue.of(2.0)))


def test_topological_order_puts_inputs_first() -> None:
    x = Node.make(Argument(0, X))
    y = Node.make(Argument(1, X))
    s = Node.make(Elementwise("add", ("float64", "float64"), "float64"), (x, y))
    t = Node.make(Elementwise("multiply", ("float64", "float64"), "float64"), (s, x))
    order = topological_order((t,))
    assert order == [x, y, s, t]
    assert topological_order((t, s)) == order


KEY_SCRIPT = """
import numpy as np
from aotbuild.graph import Argument, Node
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array
x = Tracer(Operand(Node.make(Argument(0, Array("float32", 2, "A")))))
y = np.exp(x * 2.5 - np.float64(1.0)).sum(axis=1, keepdims=True) / x.shape[0]
print(y.node.key)
"""


def test_keys_are_the_same_in_every_process() -> None:
    keys = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", KEY_SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        keys.add(result.stdout.strip())
    assert len(keys) == 1
    assert len(keys.pop()) == 64
