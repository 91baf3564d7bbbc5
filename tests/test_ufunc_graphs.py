"""``ufunc = true``: scalar functions compiled into real NumPy ufuncs (aotbuild/trace/ufunc_loops).

The fixture project (projects/numpy_surface) declares the functions of ``scalar_functions.py``
as ufuncs. Each is checked against the same function made a ufunc by numba's ``@vectorize``
(the behaviour users move from) and against NumPy expressions: broadcasting, layouts, dtypes,
``out=``, ``where=``, empty and size-1 inputs, the ufunc methods, and other libraries'
``__array_ufunc__``.
"""

from __future__ import annotations

import json
import math
import sys

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .conftest import PROJECTS, load_package

sys.path.insert(0, str(PROJECTS / "numpy_surface"))
import scalar_functions as fns  # noqa: E402

NUMBA = {
    "logistic": numba.vectorize(["float32(float32, float32)", "float64(float64, float64)"])(fns.logistic),
    "addf": numba.vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)(fns.addf),
    "clip": numba.vectorize(
        ["int32(int32, int32, int32)", "int64(int64, int64, int64)", "float64(float64, float64, float64)"]
    )(fns.clip),
    "hypot_scaled": numba.vectorize(["float64(float64, float64, float64)"])(fns.hypot_scaled),
}


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "numpy_surface" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def test_they_are_numpy_ufuncs_with_the_loops_in_the_declared_order(package) -> None:
    assert isinstance(package.logistic, np.ufunc)
    assert package.logistic.types == ["ff->f", "dd->d"]
    assert package.clip.types == ["iii->i", "lll->l", "ddd->d"]
    assert (package.logistic.nin, package.logistic.nout, package.clip.nin) == (2, 1, 3)
    assert package.logistic.__name__ == "logistic"
    assert "float32(float32, float32), float64(float64, float64)" in package.logistic.__doc__
    assert (package.addf.identity, package.maxabs.identity, package.logistic.identity) == (0, None, None)
    assert package.scaled.identity == -1.5
    assert package.relu.signature is None


def test_numpy_picks_the_first_loop_the_inputs_cast_to_safely(package) -> None:
    half = np.float32(0.5)
    assert package.logistic(half, half).dtype == np.float32
    assert package.logistic(np.float64(0.5), half).dtype == np.float64
    assert package.logistic(np.arange(3), 1.0).dtype == np.float64  # int64 -> the float64 loop
    assert package.clip(np.arange(4, dtype=np.int32), np.int32(1), np.int32(2)).dtype == np.int32
    assert package.clip(np.arange(4, dtype=np.int16), 1, 2).dtype == np.int32  # the first safe loop
    assert package.clip(np.arange(4, dtype=np.uint32), 1, 2).dtype == np.int64
    with pytest.raises(TypeError):
        package.addf(np.array([1 + 1j]), 1.0)  # no complex loop: NumPy's own error


def test_results_against_numba_vectorize(package) -> None:
    rng = np.random.default_rng(31)
    x, k = rng.normal(size=1000), rng.normal(size=1000)
    np.testing.assert_allclose(package.logistic(x, k), NUMBA["logistic"](x, k), rtol=1e-15)
    x32, k32 = x.astype(np.float32), k.astype(np.float32)
    np.testing.assert_allclose(package.logistic(x32, k32), NUMBA["logistic"](x32, k32), rtol=2e-7)
    ints = rng.integers(-50, 50, size=(3, 40))
    np.testing.assert_array_equal(package.clip(ints, -10, 10), NUMBA["clip"](ints, -10, 10))
    np.testing.assert_array_equal(
        package.addf(ints, ints.T[:3, :3].sum()), NUMBA["addf"](ints, ints.T[:3, :3].sum())
    )
    np.testing.assert_allclose(package.hypot_scaled(x, k, 2.0), NUMBA["hypot_scaled"](x, k, 2.0), rtol=1e-15)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=5),
    data=st.data(),
)
def test_broadcasting_layouts_and_sizes_against_numpy(package, shapes, data) -> None:
    elements = st.floats(-1e3, 1e3) | st.sampled_from([np.nan, np.inf, -np.inf])
    arrays = [data.draw(hnp.arrays(np.float64, shape, elements=elements)) for shape in shapes.input_shapes]
    views = []
    for array in arrays:  # reversed or transposed: strides NumPy hands over as they are
        if array.ndim and data.draw(st.booleans()):
            array = array[::-1]
        if array.ndim > 1 and data.draw(st.booleans()):
            array = np.ascontiguousarray(array.T).T
        views.append(array)
    x, y, s = views
    with np.errstate(invalid="ignore", over="ignore"):
        expected = s * np.sqrt(x * x + y * y)
        got = package.hypot_scaled(x, y, s)
        by_numba = NUMBA["hypot_scaled"](x, y, s)
    assert np.shape(got) == shapes.result_shape
    np.testing.assert_allclose(got, expected, rtol=1e-15, equal_nan=True)
    np.testing.assert_allclose(got, by_numba, rtol=1e-15, equal_nan=True)


def test_broadcast_scalars_in_any_position(package) -> None:
    x = np.linspace(-4.0, 4.0, 101)
    for args in ((x, 2.0), (2.0, x), (x, x[::-1]), (x[::2], -1.0), (x, np.float64(0.5))):
        np.testing.assert_allclose(package.logistic(*args), NUMBA["logistic"](*args), rtol=1e-15)
    bounds = np.arange(-3, 4)
    for args in ((bounds, -1, 2), (-1, bounds, 2), (5, -1, bounds), (bounds, bounds - 1, 2), (1, 2, 3)):
        np.testing.assert_array_equal(package.clip(*args), NUMBA["clip"](*args))


def test_empty_and_single_values(package) -> None:
    assert package.logistic(np.zeros(0), 1.0).shape == (0,)
    assert package.clip(np.zeros((2, 0), dtype=np.int64), 0, 1).shape == (2, 0)
    value = package.logistic(0.0, 1.0)
    assert isinstance(value, np.float64) and value == 0.5  # Python scalars in, a NumPy scalar out
    assert package.relu(np.array(-2.0)) == 0.0


def test_out_where_dtype_and_casting(package) -> None:
    x = np.linspace(-2.0, 2.0, 9)
    out = np.full(9, -7.0)
    result = package.relu(x, out=out)
    assert result is out
    np.testing.assert_array_equal(out, np.maximum(x, 0.0))
    mask = x > 0.5
    kept = np.full(9, -7.0)
    package.logistic(x, 1.0, out=kept, where=mask)
    np.testing.assert_allclose(kept[mask], 1.0 / (1.0 + np.exp(-x[mask])))
    assert (kept[~mask] == -7.0).all()
    strided = np.zeros(18)
    package.addf(x, 1.0, out=strided[::2])
    np.testing.assert_array_equal(strided[::2], x + 1.0)
    assert (strided[1::2] == 0.0).all()
    assert package.logistic(x, 1.0, dtype=np.float32).dtype == np.float32
    with pytest.raises(TypeError):  # NumPy's casting rule, enforced by NumPy
        package.addf(x, 1.0, out=np.zeros(9, dtype=np.int64))
    inplace = x.copy()
    package.addf(inplace, inplace[::-1], out=inplace)  # NumPy orders overlapping reads itself
    np.testing.assert_array_equal(inplace, x + x[::-1])


def test_reduce_accumulate_reduceat_outer(package) -> None:
    values = np.arange(1, 11)
    assert package.addf.reduce(values) == values.sum()
    assert package.addf.reduce(np.zeros(0, dtype=np.int64)) == 0  # the identity
    np.testing.assert_array_equal(package.addf.accumulate(values), np.cumsum(values))
    np.testing.assert_array_equal(package.addf.accumulate(values[::-2] * 0.5), np.cumsum(values[::-2] * 0.5))
    np.testing.assert_array_equal(
        package.addf.reduceat(values, [0, 4, 7]), np.add.reduceat(values, [0, 4, 7])
    )
    np.testing.assert_array_equal(
        package.addf.outer([1, 2], [10, 20, 30]), np.add.outer([1, 2], [10, 20, 30])
    )
    matrix = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(package.addf.reduce(matrix, axis=1), matrix.sum(axis=1))
    assert package.maxabs.reduce(np.array([-3.0, 2.0, -5.0])) == 5.0
    with pytest.raises(ValueError):
        package.maxabs.reduce(np.zeros(0))  # reorderable: no identity for an empty reduction


def test_other_libraries_array_ufunc_overrides(package) -> None:
    class Tagged:
        def __init__(self, value):
            self.value = value

        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            plain = [i.value if isinstance(i, Tagged) else i for i in inputs]
            return Tagged(getattr(ufunc, method)(*plain, **kwargs)), ufunc

    result, seen = package.logistic(Tagged(np.zeros(3)), 1.0)
    assert seen is package.logistic
    np.testing.assert_array_equal(result.value, np.full(3, 0.5))


def test_a_dask_array_is_handed_to_dask(package) -> None:
    """dask implements __array_ufunc__: the ufunc is applied per chunk, lazily."""
    dask_array = pytest.importorskip("dask.array")
    x = np.linspace(-2.0, 2.0, 10)
    lazy = package.logistic(dask_array.from_array(x, chunks=4), 2.0)
    assert isinstance(lazy, dask_array.Array)
    np.testing.assert_allclose(lazy.compute(), 1.0 / (1.0 + np.exp(-2.0 * x)), rtol=1e-15)


def test_numpy_special_values_and_floating_point_errors(package) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):
        got = package.divide(np.array([1.0, -1.0, 0.0, np.inf]), np.array([0.0, 0.0, 0.0, np.inf]))
    np.testing.assert_array_equal(got, [np.inf, -np.inf, np.nan, np.nan])
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        package.divide(np.array([1.0]), np.array([0.0]))  # NumPy reads the loop's FP flags


def test_complex_and_mixed_kinds(package) -> None:
    z = np.array([1 + 2j, -0.5j, 3.0])
    np.testing.assert_allclose(package.rotate(z, 1j), z * 1j + 1j)
    assert package.rotate.types == ["DD->D"]
    np.testing.assert_allclose(package.mixed_kinds(np.linspace(0, 1, 5), 3), np.linspace(0, 1, 5) * 3 + 0.5)
    assert package.mixed_kinds.types == ["dl->d"]


def test_an_ordinary_graph_beside_them_is_unchanged(package) -> None:
    assert not isinstance(package.ordinary, np.ufunc)
    np.testing.assert_array_equal(package.ordinary(np.arange(3.0)), np.arange(3.0) * 2.5)


def test_graphs_manifest_and_stub_list_the_signatures(package, built) -> None:
    record = package.__graphs__["logistic"]
    assert record["ufunc"] is True
    assert record["signatures"] == ("float32(float32, float32)", "float64(float64, float64)")
    manifest = json.loads((built.package_dir / "manifest.json").read_text())
    loops = manifest["graphs"]["logistic"]["ufunc"]["loops"]
    assert [loop["signature"] for loop in loops] == list(record["signatures"])
    assert set(loops[0]["broadcast_entries"]) == {"0", "1", "0,1"}
    assert all(loop["in_order_entry"] for loop in loops)  # reduce and accumulate: one loop
    assert manifest["graphs"]["addf"]["ufunc"]["identity"] == 0
    assert "ufunc" not in manifest["graphs"]["ordinary"]
    stub = (built.package_dir / "__init__.pyi").read_text()
    assert "logistic: np.ufunc" in stub
    assert "def ordinary(" in stub


def test_the_loops_are_fused_and_write_into_numpys_buffer(built) -> None:
    """One fused loop per variant, written straight into the output NumPy passes: no array
    is allocated per call (the runtime's counters stay at zero)."""
    package = load_package(built)
    x = np.linspace(-1.0, 1.0, 1000)
    package._native._count_allocations(True)
    try:
        package.logistic(x, 2.0)
        package.hypot_scaled(x, x[::-1], 3.0)
        counts = package._native._allocations()
    finally:
        package._native._count_allocations(False)
    assert counts["alloc"] == 0 and counts["mi_alloc"] == 0


def test_math_of_float32_is_python_floats_converted_back(package) -> None:
    """``math.exp`` gives a Python float, as Python's does: the float32 loop computes the
    value in float64 and converts it to the declared float32 (numba's @vectorize converts too,
    computing in float32)."""
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    expected = (1.0 / (1.0 + np.exp(-(x * np.float32(0.7)).astype(np.float64)))).astype(np.float32)
    np.testing.assert_array_equal(package.logistic(x, np.float32(0.7)), expected)
    assert math.isclose(float(package.logistic(np.float32(0), np.float32(1))), 0.5)
