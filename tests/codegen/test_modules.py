"""Generated modules: deterministic, valid Python, named by content, and (for two) golden."""

import ast
import os
from pathlib import Path

import numpy as np
import pytest

from aotbuild.codegen.elementwise import render_elementwise
from aotbuild.codegen.reduce import render_reduce
from aotbuild.graph import Argument, Node
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array

GOLDEN = Path(__file__).parent / "golden"


def traced(dtype: str, ndim: int, position: int = 0) -> Tracer:
    return Tracer(Operand(Node.make(Argument(position, Array(dtype, ndim, "A")))))


def modules():
    x, y = traced("float32", 2), traced("float64", 1, 1)
    z = np.exp(traced("float64", 2, 2))
    return {
        "power_scalar_exponent": render_elementwise((x**0.5).node),
        "floor_divide_broadcast": render_elementwise(np.floor_divide(x, y).node),
        "mean_axes": render_reduce(x.mean(axis=1, keepdims=True).node),
        "max_all": render_reduce(np.max(x).node),
        "where": render_elementwise(np.where(x > 0, x, y).node),
        "scale_in_place": render_elementwise((z * 2.0).node, inplace=z.node),
    }


def test_rendering_is_deterministic_and_valid_python() -> None:
    first, second = modules(), modules()
    for name, module in first.items():
        assert module.text == second[name].text
        assert module.symbol == second[name].symbol
        ast.parse(module.text)
        assert module.symbol.startswith("aot_")


def test_symbols_follow_content() -> None:
    x = traced("float64", 1)
    assert render_elementwise((x * 2.0).node).symbol != render_elementwise((x * 3.0).node).symbol
    assert (
        render_elementwise((x * 2.0).node).symbol
        == render_elementwise((traced("float64", 1, 5) * 2.0).node).symbol
    )


def test_writing_in_place_is_another_op_with_the_same_signature() -> None:
    z = np.exp(traced("float64", 2))
    plain, inplace = render_elementwise((z * 2.0).node), render_elementwise((z * 2.0).node, inplace=z.node)
    assert inplace.symbol != plain.symbol and inplace.signature == plain.signature
    assert "out[i0, i1] = np.multiply(out[i0, i1], C0)" in inplace.text


@pytest.mark.parametrize("name", ["floor_divide_broadcast", "mean_axes", "scale_in_place"])
def test_golden(name: str) -> None:
    text = modules()[name].text
    path = GOLDEN / f"{name}.py"
    if os.environ.get("AOTBUILD_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed; rerun with AOTBUILD_UPDATE_GOLDEN=1 if intended"


def test_a_loop_and_its_exact_rerun_keep_their_own_power_helpers() -> None:
    """``np.sin(x) ** 1.5``: the loop calls the vector power, the rerun with the C library's
    functions (a huge sine argument) calls ``np.power``; one helper name for both made the first
    loop call the second's, and stay scalar."""
    from aotbuild.codegen.elementwise import render_fused
    from aotbuild.config import GraphConfig
    from aotbuild.config.signature import parse_signature
    from aotbuild.graph import Graph
    from aotbuild.rewrite.fuse import fuse_graph

    config = GraphConfig(
        name="g", function="m:g", signature=parse_signature("float64(float64)"), signature_text=""
    )
    (node,) = fuse_graph(Graph(config, ("x",), ((np.sin(traced("float64", 1)) ** 1.5).node,), False)).outputs
    text = render_fused(node).text
    assert "out[i0] = power_scalar_exponent_float64(t0, C0)" in text
    assert "out[i0] = power_scalar_exponent_float64_exact(t0, C0)" in text
    assert "return power_float64(x, y)" in text and "return np.power(x, y)" in text


def test_a_one_dimensional_fused_sum_reads_its_rows_through_its_own_functions() -> None:
    """``np.sum(x * x - 1.0)`` of one 1-d array: its row is the array, so the row path calls
    ``run_sum`` and ``element`` on it rather than copies of them for rows (each a function numba
    compiles); with two arrays, which may broadcast, the row functions stay."""
    from aotbuild.codegen.reduce import render_fused_reduce
    from aotbuild.config import GraphConfig
    from aotbuild.config.signature import parse_signature
    from aotbuild.graph import Graph
    from aotbuild.rewrite.fuse import fuse_graph

    def fused_sum(value: Tracer) -> str:
        config = GraphConfig(
            name="g", function="m:g", signature=parse_signature("float64(float64[:])"), signature_text=""
        )
        (node,) = fuse_graph(Graph(config, ("x",), (np.sum(value).node,), False)).outputs
        return render_fused_reduce(node).text

    x, y = traced("float64", 1), traced("float64", 1, 1)
    one = fused_sum(x * x - 1.0)
    assert "def element_row" not in one and "def run_sum_rows" not in one and "def fill_rows" not in one
    assert "acc += leaf_rows(contiguous(a0_row), n0) if n0 <= BLOCK else run_sum(" in one
    two = fused_sum(x * y - 1.0)
    assert "def element_row" in two and "def run_sum_rows" in two
