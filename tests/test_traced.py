"""Traced graphs built for real: reductions, sizes in arithmetic, constants, tuple results."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from .conftest import PROJECTS, load_package, spelled, write_project

DTYPES = ["float64", "float32", "int64", "bool"]

GRAPHS = """
[package]
name = "traced_ext"

{reductions}
[graphs.methods]
function = "traced_graphs:methods"
signature = "Tuple(float64[:, :], float64[:], float64[:, :, :], float64, float64[:, :])(float64[:, :, :])"

[graphs.total_f32]
function = "traced_graphs:total"
signature = "float32(float32[:])"

[graphs.column_sums_f32]
function = "traced_graphs:column_sums"
signature = "float32[:](float32[:, :])"

[graphs.empty_max]
function = "traced_graphs:empty_max"
signature = "float64[:](float64[:, :])"

[graphs.sizes]
function = "traced_graphs:sizes"
signature = "Tuple(float64, float64[:], float64[:, :], float64[:])(float64[:, :])"

[graphs.scaled]
function = "traced_graphs:scaled"
signature = "float64[:, :](float64[:, :])"

[graphs.passthrough]
function = "traced_graphs:passthrough"
signature = "Tuple(float64[:], float64, float64[:])(float64[:])"

[graphs.spread]
function = "traced_graphs:spread"
signature = "float64[:](float64[:])"
mode = "trace"

[graphs.lookup]
function = "traced_graphs:lookup"
signature = "int64[:](int64[:])"
mode = "kernel"
"""


def reduction_graph(dtype: str) -> str:
    import traced_graphs

    sample = np.ones((2, 3, 4), dtype)
    results = ", ".join(map(spelled, traced_graphs.reductions(sample)))
    return (
        f'[graphs.reductions_{dtype}]\nfunction = "traced_graphs:reductions"\n'
        f'signature = "Tuple({results})({spelled(sample)})"\n'
    )


@pytest.fixture(scope="module")
def package(build_project, tmp_path_factory):
    import sys

    sys.path.insert(0, str(PROJECTS / "traced"))
    folder = tmp_path_factory.mktemp("traced-project")
    shutil.copy(PROJECTS / "traced" / "traced_graphs.py", folder)
    text = GRAPHS.format(reductions="\n".join(reduction_graph(d) for d in DTYPES))
    return load_package(build_project(write_project(folder, text, {})))


def sample(dtype: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    values = rng.normal(size=shape).astype(dtype)
    values.flat[3] = np.nan if dtype == "float64" else values.flat[3]
    return values


def assert_matches(got, want) -> None:
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        w = np.asarray(w)
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, index
        if w.dtype.kind == "f":
            rtol = 1e-5 if w.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=str(index))
        else:
            np.testing.assert_array_equal(g, w, err_msg=str(index))


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_along_axes(package, dtype: str) -> None:
    import traced_graphs

    graph = getattr(package, f"reductions_{dtype}")
    for x in (
        sample(dtype, (3, 5, 7)),
        sample(dtype, (7, 5, 3), 1).transpose(2, 1, 0),
        sample(dtype, (3, 10, 7), 2)[:, ::2],
    ):
        with np.errstate(all="ignore"):
            assert_matches(graph(x), traced_graphs.reductions(x))


def test_reduction_methods(package) -> None:
    import traced_graphs

    x = sample("float32", (4, 6, 5)).astype(np.float64)
    assert_matches(package.methods(x), traced_graphs.methods(x))


def test_float32_sums_are_pairwise(package) -> None:
    x = np.full(1_000_000, 0.1, dtype=np.float32)
    exact = float(np.sum(x, dtype=np.float64))
    naive_error = abs(float(np.cumsum(x)[-1]) - exact)
    ours, numpy_error = package.total_f32(x), abs(float(np.sum(x)) - exact)
    assert isinstance(ours, np.float32)
    assert naive_error > 1.0  # summing in order in float32 is off by ~3.7
    ulp = float(np.spacing(np.float32(exact)))
    assert numpy_error <= 2 * ulp  # NumPy's pairwise sum is within an ulp or two...
    assert abs(float(ours) - exact) <= 2 * ulp  # ...and so is ours
    # Down the columns of a C-contiguous array NumPy adds row after row, not pairwise: so do we
    # (and get NumPy's bits, its rounding error included).
    rows = np.full((100_000, 3), 0.1, dtype=np.float32)
    np.testing.assert_array_equal(package.column_sums_f32(rows), np.sum(rows, axis=0))


def test_empty_reductions_behave_like_numpy(package) -> None:
    with pytest.raises(
        ValueError, match="zero-size array to reduction operation maximum which has no identity"
    ):
        package.empty_max(np.zeros((0, 3)))
    assert package.empty_max(np.zeros((2, 0))).shape == (0,)
    assert package.total_f32(np.zeros(0, np.float32)) == 0.0
    np.testing.assert_array_equal(package.column_sums_f32(np.zeros((0, 3), np.float32)), np.zeros(3))
    with np.errstate(invalid="ignore"):
        mean_of_nothing, *_ = package.sizes(np.zeros((0, 3)))
    assert np.isnan(mean_of_nothing)
    with pytest.raises(ValueError, match="minimum which has no identity"):
        package.methods(np.zeros((0, 2, 2)))  # a graph fails as a whole, as NumPy would


def test_sizes_in_arithmetic(package) -> None:
    import traced_graphs

    x = sample("float64", (5, 3))
    x[np.isnan(x)] = 1.0
    for view in (x, x.T, x[::2]):
        assert_matches(package.sizes(view), traced_graphs.sizes(view))


def test_constants_from_module_and_closure(package) -> None:
    import traced_graphs

    x = sample("float64", (4, 6))
    np.testing.assert_allclose(package.scaled(x), traced_graphs.scaled(x))
    with pytest.raises(ValueError, match="broadcast"):
        package.scaled(np.ones((4, 5)))


def test_returned_inputs_and_constants(package) -> None:
    import traced_graphs

    x = np.arange(6.0)
    same, scalar, weights = package.passthrough(x)
    assert same is x
    assert scalar == 3.0 and isinstance(scalar, np.float64)
    np.testing.assert_array_equal(weights, traced_graphs.WEIGHTS)
    weights[:] = 0.0  # the package's constant is not shared with callers
    np.testing.assert_array_equal(package.passthrough(x)[2], traced_graphs.WEIGHTS)


def test_constants_over_a_megabyte_are_compiled_in(package) -> None:
    """numba's JIT reads a constant array over 1 MB through its address in the compiling process;
    a package holds it, traced or in a kernel."""
    import traced_graphs

    t = np.linspace(-1.0, 1.0, 977)
    np.testing.assert_array_equal(package.spread(t), traced_graphs.spread(t))
    np.testing.assert_array_equal(package.spread(t[::-1]), traced_graphs.spread(t[::-1]))
    with pytest.raises(IndexError):
        package.spread(t[:-1])  # TABLE reads index 976
    i = np.array([0, 139_999, 5, -1])
    np.testing.assert_array_equal(package.lookup(i), traced_graphs.lookup(i))
