"""Generated modules: deterministic, valid Python, named by content, and (for two) golden."""

import ast
import os
from pathlib import Path

import numpy as np
import pytest

from aotbuild.codegen.elementwise import render_elementwise, render_fused
from aotbuild.codegen.module import OpModule
from aotbuild.codegen.reduce import render_reduce
from aotbuild.graph import Argument, Node
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer
from aotbuild.types import Array, Scalar

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
    assert "out[i0] = power_float64(t0, C0)" in text  # a constant exponent: its path alone
    assert "out[i0] = power_scalar_exponent_float64_exact(t0, C0)" in text
    assert "def power_scalar_exponent_float64(" not in text and "return np.power(x, y)" in text


#: One exponent of each path of NumPy's scalar-exponent power: -1, 0, 0.5, 1 and 2 (fast paths),
#: integers 3 to 8 and -8 to -2, anything else (the general power).
EXPONENTS = {-3.0: "power_negative_integer", -1.0: "/", -0.0: "(np.", 0.5: "np.sqrt", 1.0: "(x0)"}
EXPONENTS |= {
    2.0: "x0) * (x0",
    3.0: "power_integer",
    2.5: "power_float",
    np.nan: "power_float",
    9.0: "power_float",
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_constant_exponent_compiles_its_path_alone_with_the_run_time_paths_bits(dtype: str) -> None:
    """``x ** c`` for a constant ``c`` calls the one function the scalar-exponent helper picks
    for ``c`` at run time (``x * x``, ``power_integer``, the general power...), not the helper
    with every path in it; its values are the helper's, bit for bit, special values included."""
    from aotbuild.codegen.scalar import scalar_expression

    x = traced(dtype, 1)
    y = Tracer(Operand(Node.make(Argument(1, Scalar(dtype)))))
    run_time = _jitted(render_elementwise((x**y).node).text)
    assert "power_scalar_exponent" in render_elementwise((x**y).node).text
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, 1e-30, 1e30, np.inf, -np.inf, np.nan]
    values = np.concatenate([special, rng.normal(scale=3.0, size=200), rng.uniform(0.9, 1.1, 50)]).astype(
        dtype
    )
    for c, path in EXPONENTS.items():
        constant = np.array(c, dtype=dtype)
        code = scalar_expression(
            "power", (dtype, dtype), ["x0", "C0"], (False, True), constants=(None, constant)
        )
        assert path in code.expression and not code.helpers, (c, code.expression)
        if np.isnan(c) or c == 9.0:
            continue  # the general power's path again: one compile of it is enough
        text = render_elementwise((x ** constant[()]).node).text
        assert "power_scalar_exponent" not in text, c
        with np.errstate(all="ignore"):
            got, want = _jitted(text)(values), run_time(values, constant[()])
        np.testing.assert_array_equal(
            got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"), err_msg=str(c)
        )


def test_a_one_dimensional_fused_sum_reads_its_rows_through_its_own_functions() -> None:
    """``np.sum(x * x - 1.0)`` of one 1-d array: its row is the array, so the row path calls
    ``run_sum`` and ``element`` on it rather than copies of them for rows (each a function numba
    compiles); with two arrays, which may broadcast, one of length 1 is first made as long as
    the other, and the same functions read both."""
    from aotbuild.codegen.reduce import render_fused_reduce

    def fused_sum(value: Tracer) -> str:
        (node,) = _fused(np.sum(value), signature="float64(float64[:], float64[:])")
        return render_fused_reduce(node).text

    x, y = traced("float64", 1), traced("float64", 1, 1)
    for text in (fused_sum(x * x - 1.0), fused_sum(x * y - 1.0)):
        assert (
            "def element_row" not in text and "def run_sum_rows" not in text and "def fill_rows" not in text
        )
        assert "acc += leaf_rows(contiguous(a0_row), " in text and "def element_direct" not in text
    assert "if a1.shape[0] != n0:" in fused_sum(x * y - 1.0)


@pytest.mark.parametrize("layout", ["C", "A"])
def test_a_one_dimensional_fused_sum_of_two_arrays_reads_them_without_steps(layout: str) -> None:
    """``np.sum(x * y - 1.0)`` of two 1-d arrays: where one has length 1 it is made as long as the
    other first, and any-layout ones are read as C-contiguous (copied where strided), so no loop
    reads through steps (no ``element_direct``, one loop in ``fill``); the sums are NumPy's,
    broadcast or not, strided or not, short or long."""
    from aotbuild.codegen.reduce import render_fused_reduce

    x, y = (Tracer(Operand(Node.make(Argument(i, Array("float64", 1, layout))))) for i in (0, 1))
    (node,) = _fused(np.sum(x * y - 1.0), signature="float64(float64[:], float64[:])")
    text = render_fused_reduce(node).text
    assert "def element_direct" not in text and "broadcast_steps" not in text
    assert "if direct:" not in text.split("def fill")[1].split("def ")[0]
    op = _jitted(text)
    rng = np.random.default_rng(3)
    for n in (1, 5, 8, 200, 1000):
        x, y = rng.normal(size=2 * n), rng.normal(size=n)
        pairs = [(x[:n], y), (x[:1], y), (x[:n], y[:1])]
        if layout == "A":
            pairs += [(x[::2], y), (x[::-2], y[:1]), (x[:1], y[::-1])]
        for a, b in pairs:
            assert op(a, b) == np.sum(a * b - 1.0)


def test_a_fused_sum_over_rows_of_c_arrays_has_the_row_path_alone() -> None:
    """``(c * c).mean(axis=(1, 2))`` of a C-contiguous 3-d array: every run is a plane that is one
    contiguous row by the array's type, so the module sums rows unchecked and has no other path
    (no ``element``, ``fill`` or ``run_sum``: three functions fewer for numba to compile); for an
    any-layout array the checked row path and its fallback stay. NumPy's bits either way."""
    from aotbuild.codegen.reduce import render_fused_reduce

    def fused_mean(layout: str) -> str:
        c = Tracer(Operand(Node.make(Argument(0, Array("float32", 3, layout)))))
        (node,) = _fused((c * c).mean(axis=(1, 2)), signature="float32[:](float32[:, :, :])")
        return render_fused_reduce(node).text

    contiguous, any_layout = fused_mean("C"), fused_mean("A")
    for name in ("def element(", "def fill(", "def run_sum(", ".flags.c_contiguous"):
        assert name not in contiguous and name in any_layout, name
    op = _jitted(contiguous)
    rng = np.random.default_rng(5)
    for shape in ((3, 1, 5), (2, 4, 30), (2, 17, 129), (1, 0, 3)):
        c = rng.normal(size=shape).astype(np.float32)
        with np.errstate(all="ignore"):
            expected = (c * c).mean(axis=(1, 2))
        np.testing.assert_array_equal(op(c), expected)


def test_vector_math_reads_broadcast_inputs_through_views_and_strided_rows_through_copies() -> None:
    """A loop body with vector math in it reads a broadcast input through
    :func:`~aotbuild.compile.intrinsics.broadcast_view` (not ``np.broadcast_to``, a jitted
    function each worker would compile per type), and a strided 1-d input through a copy (not
    ``np.ascontiguousarray``, likewise): the same values as NumPy's, broadcast or strided."""

    def fused(value: Tracer) -> str:
        (node,) = _fused(value, signature="float64(float64[:], float64[:])")
        return render_fused(node).text

    x, y = traced("float64", 2), traced("float64", 1, 1)
    u, v = traced("float64", 1), traced("float64", 1, 1)
    broadcast, strided = fused(np.log(x) + y), fused(np.exp(u) * v)
    assert "broadcast_view(a0, (n0, n1))" in broadcast and "np.broadcast_to" not in broadcast
    assert (
        "a0 = np.empty(a0_any.shape[0], dtype=np.float64)" in strided and "ascontiguousarray" not in strided
    )
    rng = np.random.default_rng(9)
    m, row = rng.uniform(0.5, 2.0, size=(6, 40)), rng.normal(size=40)
    log_add, exp_multiply = _jitted(broadcast), _jitted(strided)
    for a, b in ((m, row), (m[:1], row), (m[:, :1], row), (m, row[:1]), (m[::2, ::-3], row[::3])):
        np.testing.assert_allclose(log_add(a, b), np.log(a) + b, rtol=1e-15, atol=1e-15)
    for a, b in ((row, row[::-1]), (row[::2], row[1::2]), (row[:1], row), (row, row[:1])):
        np.testing.assert_allclose(exp_multiply(a, b), np.exp(a) * b, rtol=1e-15)


def _jitted(text: str):
    """The ``op`` of a generated module, compiled by numba's JIT as aotbuild compiles traced
    graphs' (NumPy's error model: a division by zero is inf or NaN)."""
    import numba

    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)
    return numba.njit(error_model="numpy")(namespace["op"])


def _vector_instructions(module: OpModule, tmp_path: Path) -> list[str]:
    """The 256-bit arithmetic of ``module``'s object compiled for x86-64-v3 (AVX2: what its
    loop vectorises to where the CPU has vectors; generic x86-64 has no vector rounding, which
    the integer divisions take), whatever CPU numba's JIT is set to; moves left out."""
    import subprocess

    from aotbuild.compile.compiler import compile_request
    from aotbuild.compile.keys import toolchain_key
    from aotbuild.compile.target import resolve_target

    request = module.request(resolve_target("x86-64-v3"), toolchain_key())
    path = tmp_path / "op.o"
    path.write_bytes(compile_request(request).data)
    listing = subprocess.run(["objdump", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    moves = ("vmov", "vzero", "vbroadcast", "vpbroadcast", "vperm", "vinsert", "vextract")
    instructions = [line.split("\t")[-1] for line in listing.splitlines() if "%ymm" in line]
    return [text for text in instructions if not text.startswith(moves)]


def _fused(*outputs: Tracer, signature: str) -> list:
    from aotbuild.config import GraphConfig
    from aotbuild.config.signature import parse_signature
    from aotbuild.graph import Graph
    from aotbuild.rewrite.fuse import fuse_graph

    config = GraphConfig(name="g", function="m:g", signature=parse_signature(signature), signature_text="")
    names = tuple(f"x{k}" for k in range(len(config.signature.args)))
    return list(fuse_graph(Graph(config, names, tuple(o.node for o in outputs), True)).outputs)


@pytest.mark.parametrize("dtype", ["uint32", "float64"])
def test_a_loop_over_views_reads_contiguous_rows_and_vectorises(dtype: str, tmp_path: Path) -> None:
    """A stencil of slices (any-layout views): where every row has a unit stride the loop reads
    rows typed C-contiguous, and LLVM vectorises it, integer as float; a strided view takes the
    direct loop. NumPy's values (uint32 wrapping) either way."""
    from aotbuild.codegen.elementwise import render_fused

    x = traced(dtype, 2)
    (node,) = _fused(
        x[:-2, 1:-1] + x[2:, 1:-1] - 9 * x[1:-1, 1:-1] + x[1:-1, :-2], signature=f"{dtype}({dtype}[:, :])"
    )
    module = render_fused(node)
    text = module.text
    assert "direct = all_unit(s0_0, " in text and "if direct & unit_rows:" in text
    assert "unit_rows = unit_strides(a0, a1, a2, a3)" in text
    assert "r0 = contiguous(a0[i0])" in text and "x0 = r0[i1]" in text
    op = _jitted(text)
    image = np.random.default_rng(0).integers(0, 2**32 if dtype == "uint32" else 256, (40, 70)).astype(dtype)
    for u in (image, image[:, ::2]):
        views = (u[:-2, 1:-1], u[2:, 1:-1], u[1:-1, 1:-1], u[1:-1, :-2])
        np.testing.assert_array_equal(op(*views), views[0] + views[1] - 9 * views[2] + views[3])
    assert _vector_instructions(module, tmp_path)


@pytest.mark.parametrize("ndim", [1, 2])
def test_rolls_read_rows_in_segments_and_give_numpys_bits(ndim: int) -> None:
    """np.roll by constants, alone and fused beside its input: the last axis in segments (no
    wrap per element), the others a row chosen once; NumPy's values for shifts negative and
    beyond the axis, on empty, one-element, contiguous and strided inputs."""
    from aotbuild.codegen.elementwise import render_fused, render_roll
    from aotbuild.graph import Node
    from aotbuild.graph.array_ops import Roll

    rng = np.random.default_rng(1)
    x = traced("int64", ndim)
    axes = tuple(range(ndim))
    shapes = [(5, 7), (1, 4), (0, 3), (3, 1)] if ndim == 2 else [(6,), (1,), (0,)]
    for shift in (1, -9, 0):
        shifts = (-3,) * (ndim - 1) + (shift,)
        alone = render_roll(Node.make(Roll(shifts), (x.node,))).text
        assert ("while lo < n" in alone) == bool(shift)
        (fused,) = _fused(
            np.roll(x, shifts, axis=axes) * 2 - x, signature=f"int64(int64[{', '.join([':'] * ndim)}])"
        )
        ops = _jitted(alone), _jitted(render_fused(fused).text)
        for shape in shapes:
            value = rng.integers(-9, 9, shape)
            want = np.roll(value, shifts, axis=axes)
            for given in (value, np.repeat(value, 2, axis=-1)[..., ::2]):
                np.testing.assert_array_equal(ops[0](given), want)
                args = (given,) * ops[1].py_func.__code__.co_argcount
                np.testing.assert_array_equal(ops[1](*args), want * 2 - value)


@pytest.mark.parametrize(
    ("fn", "dtype"),
    [
        ("floor_divide", "int8"),
        ("remainder", "int8"),
        ("floor_divide", "uint16"),
        ("floor_divide", "int32"),
        ("remainder", "int32"),
        ("floor_divide", "uint32"),
    ],
)
def test_integer_division_by_an_array_in_floating_point_is_numpys(
    fn: str, dtype: str, tmp_path: Path
) -> None:
    """``x // y`` and ``x % y`` of integers of 32 bits or fewer by an array: floor(x / y) in
    float32 or float64, exact, and vectorised (x86 has no vector integer division); NumPy's
    values everywhere, division by 0 and MIN // -1 included (every int8 pair; edges and 10^5
    random pairs of wider types). By a scalar, the integer division stays (LLVM multiplies)."""
    x, y = traced(dtype, 1), traced(dtype, 1, 1)
    module = render_elementwise(getattr(np, fn)(x, y).node)
    text = module.text
    assert f"def {fn}_{dtype}_by_array(a, b):" in text
    assert "_by_array" not in render_elementwise(getattr(np, fn)(x, np.array(3, dtype)).node).text
    info = np.iinfo(dtype)
    if info.bits == 8:
        a, b = (
            g.ravel().astype(dtype)
            for g in np.meshgrid(np.arange(info.min, info.max + 1), np.arange(info.min, info.max + 1))
        )
    else:
        rng = np.random.default_rng(3)
        edges = np.array(
            [v for v in (info.min, info.min + 1, -2, -1, 0, 1, 2, info.max - 1, info.max) if info.min <= v]
        )
        pairs = np.meshgrid(edges, edges)
        a = np.concatenate(
            [
                rng.integers(info.min, info.max, 10**5, endpoint=True, dtype=dtype),
                pairs[0].ravel().astype(dtype),
            ]
        )
        shifts = rng.integers(0, info.bits - 1, 10**5).astype(dtype)
        b = np.concatenate(
            [
                rng.integers(info.min, info.max, 10**5, endpoint=True, dtype=dtype) >> shifts,
                pairs[1].ravel().astype(dtype),
            ]
        )
    op = _jitted(text)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(op(a, b), getattr(np, fn)(a, b))
    assert _vector_instructions(module, tmp_path)
