"""The vector math library flattened: helpers pasted into their callers, ``if has_fma():``
decided, and the results the library's own, bit for bit."""

from __future__ import annotations

import ast
import linecache
import types

import numba
import numpy as np
import pytest

from aotbuild.codegen import vecmath
from aotbuild.compile.flatten import Flattener
from aotbuild.compile.helpers import exec_generated, shared_function
from aotbuild.compile.intrinsics import native_fma


def flattened(fma: bool, *sources: str) -> str:
    flattener = Flattener(fma)
    return [flattener.add(source) for source in sources][-1]


MLA = "def mla(x, y, z):\n    return x * y + z\n"
SPLIT = (
    "def split(x):\n"
    '    """hi and lo"""\n'
    "    h = x * 2.0\n"
    "    if has_fma():\n"
    "        return h, fma(x, 2.0, -h)\n"
    "    return h, x - h\n"
)


def test_a_call_becomes_the_helpers_body_its_arguments_evaluated_first() -> None:
    caller = "def f(a, b):\n    return mla(mla(a, b, 1.0), a + b, b)\n"
    assert flattened(False, MLA, caller) == (
        "def f(a, b):\n"
        "    mla_1_x = a * b + 1.0\n"  # the inner call first, as Python evaluates it
        "    mla_1_y = a + b\n"
        "    return mla_1_x * mla_1_y + b"
    )


def test_has_fma_is_decided_for_the_target_and_locals_are_renamed() -> None:
    caller = "def f(x):\n    h, l = split(x)\n    return h + l\n"
    with_fma = flattened(True, SPLIT, caller)
    assert "split_0_h = x * 2.0\n    h, l = (split_0_h, fma(x, 2.0, -split_0_h))" in with_fma
    without = flattened(False, SPLIT, caller)
    assert "h, l = (split_0_h, x - split_0_h)" in without
    assert "has_fma" not in with_fma + without and '"""hi and lo"""' not in without


def test_an_argument_the_helper_assigns_to_is_copied_first() -> None:
    helper = "def twice(x):\n    x = x + x\n    return x\n"
    assert flattened(False, helper, "def f(a):\n    return twice(a) + a\n") == (
        "def f(a):\n    twice_0_x = a\n    twice_0_x = twice_0_x + twice_0_x\n    return twice_0_x + a"
    )


@pytest.mark.parametrize(
    "caller",
    [
        "def f(a, c):\n    return mla(a, a, a) if c else a\n",  # a branch: only run when chosen
        "def f(a, c):\n    return c and mla(a, a, a)\n",  # short-circuited
        "def f(a):\n    while mla(a, a, a) < 1.0:\n        a = a + 1.0\n    return a\n",  # tested each turn
        "def f(a, z):\n    return mla(a, z=a, y=a)\n",  # keywords
    ],
)
def test_calls_that_do_not_always_run_once_are_left_calls(caller: str) -> None:
    assert "mla(" in flattened(False, MLA, caller)


def test_helpers_with_loops_are_not_pasted_but_their_calls_are() -> None:
    power = (
        "def power(x, n):\n    p = x\n    for _ in range(n - 1):\n        p = mla(p, x, 0.0)\n    return p\n"
    )
    flat_power = flattened(False, MLA, power)
    assert "mla(" not in flat_power and "for _ in range(n - 1):" in flat_power
    flattener = Flattener(False)
    for source in (MLA, power):
        flattener.add(source)
    assert "power(x, 3)" in flattener.add("def f(x):\n    return power(x, 3)\n")


def test_a_helper_reading_a_global_the_caller_shadows_is_left_a_call() -> None:
    helper = "def scaled(x):\n    return x * SCALE\n"
    assert "scaled(x)" in flattened(
        False, helper, "def f(x):\n    SCALE = 2.0\n    return scaled(x) + SCALE\n"
    )


def test_every_function_of_the_library_flattens_and_parses() -> None:
    for fma in (False, True):
        flattener = Flattener(fma)
        for name in vecmath.closure(sorted(vecmath.library())):
            ast.parse(flattener.add(vecmath.library()[name].source))


def _unflattened(fma: bool) -> types.ModuleType:
    names = sorted(vecmath.library())
    lines = [
        "import numpy as np",
        "from numba.extending import register_jitable",
        *vecmath.intrinsics_import(names),
    ]
    text = "\n".join(lines) + "\n\n\n" + "\n\n\n".join(vecmath.sources(names)) + "\n"
    name = f"aotbuild_generated.test_flatten_{fma}"
    filename = f"{name}.py"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    return exec_generated(name, filename, compile(text, filename, "exec"))


def _inputs(dtype: type) -> np.ndarray:
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):
        parts = [
            rng.normal(size=20000),
            rng.uniform(-1.0, 1.0, 20000),
            rng.uniform(-50.0, 50.0, 20000),
            np.exp(rng.uniform(-700.0, 700.0, 20000)) * rng.choice([-1.0, 1.0], 20000),
            [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-310, 1.0, -1.0, 0.5],
        ]
        return np.concatenate(parts).astype(dtype)


def _results(function: object, fma: bool, x: np.ndarray, y: np.ndarray | None) -> np.ndarray:
    if y is None:

        def run(x, y, out):  # type: ignore[no-untyped-def]
            for i in range(x.shape[0]):
                out[i] = function(x[i])  # type: ignore[operator]
    else:

        def run(x, y, out):  # type: ignore[no-untyped-def]
            for i in range(x.shape[0]):
                out[i] = function(x[i], y[i])  # type: ignore[operator]

    out = np.empty_like(x)
    with native_fma(fma):
        numba.njit(error_model="numpy")(run)(x, x if y is None else y, out)
    return out.view(np.int64 if x.dtype == np.float64 else np.int32)


@pytest.mark.parametrize(
    ("name", "fma"),
    [
        ("tanh_float64", False),
        ("sin_float64", True),  # double-double arithmetic, one branch per FMA setting
        ("log_float32", False),
        ("arctan2_float64", True),
        ("power_float32", False),
    ],
)
def test_results_are_the_librarys_bit_for_bit(name: str, fma: bool) -> None:
    x = _inputs(np.float64 if name.endswith("64") else np.float32)
    y = x[::-1].copy() if len(ast.parse(vecmath.library()[name].source).body[0].args.args) == 2 else None
    flat = _results(shared_function(name, fma), fma, x, y)
    as_written = _results(_unflattened(fma).__dict__[name], fma, x, y)
    assert np.array_equal(flat, as_written)
