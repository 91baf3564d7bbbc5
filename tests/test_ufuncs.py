"""Every traced elementwise operation against NumPy, per dtype, on awkward inputs.

The graph functions in ``projects/ufuncs/ufunc_graphs.py`` are plain NumPy code: run on real
arrays they give the expected results (and the result types declared in graphs.toml), traced
they become the compiled package under test.
"""

from __future__ import annotations

import shutil
import sys
from fractions import Fraction

import numpy as np
import pytest

from .codegen import vecmath_support as vs
from .conftest import PROJECTS, load_package, numpy_results, sampled_graphs

sys.path.insert(0, str(PROJECTS / "ufuncs"))
import ufunc_graphs  # noqa: E402

DTYPES = ["float64", "float32", "int64", "bool"]
FLOAT_POOL = np.array(
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        -2.5,
        3.0,
        1e300,
        -1e300,
        1e-310,
        np.inf,
        -np.inf,
        np.nan,
        7.0,
        0.1,
        -0.75,
        0.3,
        10.0,
        -3.0,
        1.5,
        0.25,
        -0.5,
        100.0,
    ]
)
INT_POOL = np.array(
    [
        0,
        1,
        -1,
        2,
        -7,
        3,
        63,
        64,
        65,
        -64,
        127,
        2**62,
        -(2**63),
        2**63 - 1,
        5,
        -3,
        8,
        -9,
        1000,
        31,
        32,
        -2,
        4,
        6,
    ],
    dtype=np.int64,
)


def sample(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    if dtype == "bool":
        return rng.random(size).reshape(shape) < 0.5
    pool = INT_POOL if dtype.startswith("int") else FLOAT_POOL
    with np.errstate(over="ignore"):  # 1e300 becomes inf in float32, on purpose
        return rng.permutation(np.resize(pool, size)).astype(dtype).reshape(shape)


#: graph name -> (function name, argument arrays used to declare the signature)
GRAPHS = {
    **{f"unary_{d}": ("unary", (sample(d, (24,), 0),)) for d in DTYPES},
    **{f"binary_{d}": ("binary", (sample(d, (4, 12), 1), sample(d, (12,), 2))) for d in DTYPES},
    **{
        f"operators_{d}": ("operators", (sample(d, (4, 12), 3), sample(d, (12,), 4)))
        for d in ("float64", "float32", "int64")
    },
    "integer_power": ("integer_power", (np.arange(6, dtype=np.int64), np.arange(6, dtype=np.int64))),
    "where_and_cast": ("where_and_cast", (sample("float64", (4, 12), 5), sample("float64", (12,), 6))),
}


@pytest.fixture(scope="module")
def package(build_project, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ufuncs-project")
    shutil.copy(PROJECTS / "ufuncs" / "ufunc_graphs.py", folder)
    (folder / "graphs.toml").write_text(sampled_graphs("ufunc_ext", ufunc_graphs, GRAPHS))
    return load_package(build_project(folder / "graphs.toml"))


def check(got: tuple, want: tuple, names: list[str] | None = None) -> None:
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        label = names[index] if names else str(index)
        w = np.asarray(w)
        assert isinstance(g, np.ndarray), label
        assert g.dtype == w.dtype, label
        assert g.shape == w.shape, label
        if w.dtype.kind in "fc":
            rtol, atol = (2e-6, 1e-7) if w.dtype in (np.float32, np.complex64) else (1e-12, 1e-15)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=label)
        else:
            np.testing.assert_array_equal(g, w, err_msg=label)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary(package, dtype: str) -> None:
    x = sample(dtype, (48,), 10)
    names = ufunc_graphs.ufunc_names(1, dtype)
    graph = getattr(package, f"unary_{dtype}")
    for view in (x[:24], x[::2], x[::-2]):
        check(graph(view), numpy_results(ufunc_graphs.unary, view), names)


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_with_broadcasting(package, dtype: str) -> None:
    names = ufunc_graphs.ufunc_names(2, dtype)
    graph = getattr(package, f"binary_{dtype}")
    x, y = sample(dtype, (4, 12), 11), sample(dtype, (12,), 12)
    check(graph(x, y), numpy_results(ufunc_graphs.binary, x, y), names)
    # Non-contiguous: a transposed matrix and a strided vector, read in place.
    xt, ys = sample(dtype, (12, 4), 13).T, sample(dtype, (24,), 14)[::2]
    check(graph(xt, ys), numpy_results(ufunc_graphs.binary, xt, ys), names)
    # Size-1 axes broadcast at run time, in either operand.
    xc, yr = sample(dtype, (4, 1), 15), sample(dtype, (12,), 16)
    check(graph(xc, yr), numpy_results(ufunc_graphs.binary, xc, yr), names)
    xr, y1 = sample(dtype, (1, 12), 17), sample(dtype, (1,), 18)
    check(graph(xr, y1), numpy_results(ufunc_graphs.binary, xr, y1), names)


@pytest.mark.parametrize("dtype", DTYPES)
def test_shapes_that_do_not_broadcast_raise_like_numpy(package, dtype: str) -> None:
    x, y = sample(dtype, (4, 12), 19), sample(dtype, (5,), 20)
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        getattr(package, f"binary_{dtype}")(x, y)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_operators_and_python_scalars(package, dtype: str) -> None:
    x, y = sample(dtype, (4, 12), 21), sample(dtype, (12,), 22)
    got = getattr(package, f"operators_{dtype}")(x, y)
    check(got, numpy_results(ufunc_graphs.operators, x, y))
    if dtype == "float32":
        assert got[12].dtype == np.float32  # 2.5 * x stays float32, as in NumPy 2
        assert got[15].dtype == np.float64  # x * np.float64(2.0) does not


def test_power_special_values_follow_numpy(package) -> None:
    x = np.array([-0.0, -np.inf, 4.0, -1.0, 0.0, np.inf, np.nan])
    (*_, square, root, inverse, one, zero, two_to, cube, eighth, inverse_cube) = package.operators_float64(
        np.broadcast_to(x, (1, 7)).copy(), np.ones(7)
    )
    with np.errstate(all="ignore"):
        expected_root = x**0.5
    np.testing.assert_array_equal(np.signbit(root[0]), np.signbit(expected_root))
    np.testing.assert_array_equal(root[0], expected_root)  # -0.0 -> -0.0 and -inf -> nan, as sqrt
    assert np.signbit(root[0][0]) and np.isnan(root[0][1])
    for power, got in ((3, cube[0]), (8, eighth[0]), (-3, inverse_cube[0])):  # products of x, rounded once
        with np.errstate(divide="ignore"):
            want = x**power
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_integer_powers_are_rounded_once(package) -> None:
    """x ** 3 .. x ** 8 (and x ** -8 .. x ** -2) are products kept exact to 2**-100 and rounded
    once: the exactly rounded power but for rare near-ties, one ulp away; within an ulp of
    NumPy's. (NumPy's pow is glibc's, exactly rounded, on most CPUs; on AVX-512 ones it is SVML's,
    within an ulp: 97% of these were exactly rounded on a Xeon of 2026.)"""
    x = np.random.default_rng(5).uniform(-30.0, 30.0, (1, 20000))
    (*_, cube, eighth, inverse_cube) = package.operators_float64(x, np.ones(20000))
    for power, got in ((3, cube), (8, eighth), (-3, inverse_cube)):
        exact = np.array([float(Fraction(value) ** power) for value in x[0]])  # rounded once
        assert np.mean(got[0] == exact) > 0.999
        assert np.max(np.abs(got[0].view(np.int64) - exact.view(np.int64))) <= 1
        assert np.max(np.abs(got.view(np.int64) - (x**power).view(np.int64))) <= 1


def test_float_floor_division_is_numpy_divmod(package) -> None:
    x = np.array([[1.0, 1.0, 0.0, -1.0, 7.5, -0.0]])
    y = np.array([0.1, -np.inf, -1.0, np.inf, 2.0, 3.0])
    names = ufunc_graphs.ufunc_names(2, "float64")
    got = dict(zip(names, package.binary_float64(x, y), strict=True))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got["floor_divide"], np.floor_divide(x, y))
        np.testing.assert_array_equal(np.signbit(got["remainder"]), np.signbit(np.remainder(x, y)))
    assert got["floor_divide"][0, 0] == 9.0


def test_integer_edge_cases_do_not_trap(package) -> None:
    low = np.iinfo(np.int64).min
    x = np.array([[low, low, 7, -7, 5, 1]], dtype=np.int64)
    y = np.array([-1, 0, 0, 2, 64, -1], dtype=np.int64)
    names = ufunc_graphs.ufunc_names(2, "int64")
    got = dict(zip(names, package.binary_int64(x, y), strict=True))
    with np.errstate(all="ignore"):
        for name in ("floor_divide", "remainder", "fmod", "left_shift", "right_shift"):
            np.testing.assert_array_equal(got[name], getattr(np, name)(x, y), err_msg=name)


def test_integer_power(package) -> None:
    x = np.array([0, 1, 2, -3, 7, 2**40], dtype=np.int64)
    y = np.array([0, 5, 10, 3, 2, 2], dtype=np.int64)
    check(package.integer_power(x, y), numpy_results(ufunc_graphs.integer_power, x, y))
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed."):
        package.integer_power(x, -y)


def test_where_and_astype(package) -> None:
    x, y = sample("float64", (4, 12), 23), sample("float64", (12,), 24)
    x[np.isnan(x)] = 0.0  # casting NaN to an integer is undefined in C and in NumPy
    x = np.clip(x, -1e9, 1e9)
    check(package.where_and_cast(x, y), numpy_results(ufunc_graphs.where_and_cast, x, y))


def test_inputs_are_not_copied_or_modified(package) -> None:
    x = sample("float64", (4, 12), 25)
    before = x.copy()
    package.binary_float64(x, x[0])
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_compiled_vector_math_keeps_its_accuracy_and_numpys_special_values(package, dtype: str) -> None:
    """The graphs' loops (vector math inlined, vectorised) against a long double reference on
    each function's domain sample, special values included: within the documented ulp bound
    (docs/tracing.md), and NumPy's special results wherever the reference does not say NumPy
    rounded differently."""
    results = {}
    names = ufunc_graphs.ufunc_names(1, dtype)
    unary = getattr(package, f"unary_{dtype}")
    for fn in vs.UNARY:
        x = vs.unary_samples(fn, dtype, 3000, seed=5)
        results[fn] = (x,), unary(x)[names.index(fn)]
    binary_names = ufunc_graphs.ufunc_names(2, dtype)
    binary = getattr(package, f"binary_{dtype}")
    for fn in vs.BINARY:
        x, y = vs.binary_samples(fn, dtype, 3000, seed=6)
        results[fn] = (x, y), binary(x[None, :], y)[binary_names.index(fn)][0]
    scores = {fn: vs.score(fn, dtype, args, got) for fn, (args, got) in results.items()}
    special = {
        fn: found["special_mismatches"][:3] for fn, found in scores.items() if found["special_mismatches"]
    }
    worst = {fn: found["max_ulp"] for fn, found in scores.items()}
    assert special == {}, f"special values differ from NumPy's: {special}"
    over = {fn: error for fn, error in worst.items() if error > vs.DOCUMENTED_BOUND[fn, dtype]}
    assert over == {}, f"beyond the documented bound: {over}"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_huge_trigonometric_arguments_fall_back_to_the_c_library(package, dtype: str) -> None:
    """Past the vector code's range (|x| ~1e14 float64) a loop reruns with the C library's
    functions: NumPy's special values, and the documented accuracy, at every magnitude."""
    names = ufunc_graphs.ufunc_names(1, dtype)
    unary = getattr(package, f"unary_{dtype}")
    with np.errstate(over="ignore"):  # -1e300 is -inf in float32
        x = np.array([0.5, -2.0, 1e7, -3e9, 1e15, 1e20, -1e300, 3.4e38, np.inf, np.nan] * 4, dtype=dtype)
    results = unary(x)
    with np.errstate(all="ignore"):
        for fn in ("sin", "cos", "tan"):
            got, want = results[names.index(fn)], getattr(np, fn)(x)
            assert vs.same_as_numpy(got, want).all(), fn
            errors = vs.ulp_errors(got, vs.reference(fn, x), dtype)
            assert np.max(errors[np.isfinite(x)]) <= vs.DOCUMENTED_BOUND[fn, dtype], fn
