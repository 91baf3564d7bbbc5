"""``gufunc = "(n),(n)->()"``: functions on their operands' cores compiled into real NumPy
generalized ufuncs (numba's ``@guvectorize``, ahead of time).

The fixture project (projects/numpy_surface) declares the functions of ``core_functions.py`` as
gufuncs. Each is checked against numba's ``@guvectorize`` of the same function and against NumPy:
loop dimensions broadcast, core dimensions checked by NumPy, ``out=`` and ``axes=``, layouts,
several outputs, fixed core sizes, exceptions raised inside.
"""

from __future__ import annotations

import json
import sys

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .conftest import PROJECTS, load_package

sys.path.insert(0, str(PROJECTS / "numpy_surface"))
import core_functions as fns  # noqa: E402

NUMBA_WDOT = numba.guvectorize(["void(float64[:], float64[:], float64[:], float64[:])"], "(n),(n),(n)->()")(
    fns.wdot
)
NUMBA_MATVEC = numba.guvectorize(["void(float64[:, :], float64[:], float64[:])"], "(m,n),(n)->(m)")(
    fns.matvec
)


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "numpy_surface" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def test_they_are_generalized_ufuncs(package) -> None:
    assert isinstance(package.wdot, np.ufunc)
    assert package.wdot.signature == "(n),(n),(n)->()"
    assert package.matvec.signature == "(m,n),(n)->(m)"
    assert package.add_scalar.types == ["ff->f", "dd->d"]
    assert (package.extremes.nin, package.extremes.nout) == (1, 2)
    assert "a NumPy generalized ufunc (n),(n),(n)->()" in package.wdot.__doc__


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shapes=hnp.mutually_broadcastable_shapes(
        signature="(n),(n),(n)->()", min_dims=0, max_dims=3, min_side=1, max_side=4
    ),
    data=st.data(),
)
def test_loop_dimensions_broadcast_against_numba(package, shapes, data) -> None:
    arrays = [
        data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-100, 100)))
        for shape in shapes.input_shapes
    ]
    if data.draw(st.booleans()):  # a strided core
        arrays[0] = np.repeat(arrays[0], 2, axis=-1)[..., ::2]
    got = package.wdot(*arrays)
    assert np.shape(got) == shapes.result_shape
    np.testing.assert_allclose(got, NUMBA_WDOT(*arrays), rtol=1e-12)
    np.testing.assert_allclose(got, np.sum(arrays[0] * arrays[1] * arrays[2], axis=-1), rtol=1e-12, atol=1e-9)


def test_matrices_in_any_layout_and_axes(package) -> None:
    rng = np.random.default_rng(31)
    a, v = rng.normal(size=(5, 3, 4)), rng.normal(size=4)
    for matrices in (a, np.asfortranarray(a), a[:, ::-1, :], a.transpose(0, 2, 1).copy().transpose(0, 2, 1)):
        np.testing.assert_allclose(package.matvec(matrices, v), np.einsum("kij,j->ki", matrices, v))
        np.testing.assert_allclose(package.matvec(matrices, v), NUMBA_MATVEC(matrices, v))
    m = rng.normal(size=(4, 3))
    np.testing.assert_allclose(package.matvec(m, v, axes=[(1, 0), (0,), (0,)]), m.T @ v)


def test_out_scalar_inputs_and_each_signature(package) -> None:
    x = np.ones((2, 3), dtype=np.float32)
    result = package.add_scalar(x, np.arange(2, dtype=np.float32))
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, [[1, 1, 1], [2, 2, 2]])
    out = np.zeros((2, 3))
    assert package.add_scalar(np.ones((2, 3)), 0.5, out=out) is out
    np.testing.assert_array_equal(out, 1.5)
    assert package.add_scalar(np.ones(3), 2).dtype == np.float64  # ints cast to the float64 loop


def test_several_outputs_and_fixed_core_sizes(package) -> None:
    low, high = package.extremes(np.array([[3, 1, 2], [5, 9, -1]]))
    np.testing.assert_array_equal(low, [1, -1])
    np.testing.assert_array_equal(high, [3, 9])
    a, b = np.eye(3), np.array([0.0, 0.0, 1.0])
    np.testing.assert_array_equal(package.cross3(a, b), np.cross(a, b))
    with pytest.raises(ValueError, match="core dimension"):
        package.cross3(np.ones(4), np.ones(4))


def test_numpys_errors_and_the_kernels_own(package) -> None:
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        package.wdot(np.ones(3), np.ones(4), np.ones(3))
    with pytest.raises(ValueError, match="a negative value"):  # raised in the compiled kernel
        package.nonnegative_sum(np.array([[1.0, 2.0], [-1.0, 3.0]]))
    assert package.nonnegative_sum(np.zeros((0, 3))).shape == (0,)  # no iteration at all


def test_graphs_and_manifest_describe_them(package, built) -> None:
    record = package.__graphs__["wdot"]
    assert record["gufunc"] == "(n),(n),(n)->()"
    assert record["signatures"] == ("void(float64[:], float64[:], float64[:], float64[:])",)
    manifest = json.loads((built.package_dir / "manifest.json").read_text())
    gufunc = manifest["graphs"]["add_scalar"]["gufunc"]
    assert gufunc["layout"] == "(n),()->(n)"
    assert [loop["signature"] for loop in gufunc["loops"]] == [
        "void(float32[:], float32, float32[:])",
        "void(float64[:], float64, float64[:])",
    ]
    assert "wdot: np.ufunc" in (built.package_dir / "__init__.pyi").read_text()
