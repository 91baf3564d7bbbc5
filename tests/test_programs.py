"""NumPy programs traced for real, against NumPy, on shapes hypothesis chooses.

The package is built once; hypothesis varies what the compiled graphs are called with: axes of
length 0 and 1, transposed and strided views. Each function in ``projects/programs`` run by
NumPy gives the expected results.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import PROJECTS, load_package, numpy_results, sampled_graphs, write_project

sys.path.insert(0, str(PROJECTS / "programs"))
import programs  # noqa: E402

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def f64(*shape: int) -> np.ndarray:
    return np.ones(shape)


def i64(*shape: int) -> np.ndarray:
    return np.ones(shape, dtype=np.int64)


#: graph -> (function, sample arguments whose dtypes and dimensions declare its signature)
GRAPHS = {
    "indexing": ("indexing", (f64(4, 5), np.int64(1), np.array([0, -1, 2]))),
    "updates": ("updates", (f64(4, 5), f64(4), np.array([0, 2]))),
    "movement": ("movement", (f64(3, 4), f64(3, 4))),
    "ordering": ("ordering", (f64(3, 4),)),
    "arg_reductions": ("arg_reductions", (f64(3, 4),)),
    "statistics": ("statistics", (f64(3, 4), f64(4))),
    "integers": ("integers", (i64(3, 4), i64(4))),
    "creation": ("creation", (f64(3, 4),)),
    "linalg": ("linalg", (np.eye(3), f64(3), np.stack([np.eye(3)] * 2))),
    "linalg_lapack": ("linalg_lapack", (np.eye(3), f64(3))),
    "integer_matmul": ("integer_matmul", (i64(2, 3), i64(3, 4))),
    "complex_parts": ("complex_parts", (np.ones(3, dtype=np.complex128),)),
    "layers": ("layers", (f64(2, 4), np.eye(4), f64(4), np.eye(4), f64(4), np.eye(4), f64(4))),
    "float32_linalg": ("float32_linalg", (np.eye(3, dtype=np.float32), np.ones(3, np.float32))),
    "views": ("views", (f64(3, 2), f64(4, 5))),
    "bias_tanh": ("bias_tanh", (f64(3, 4), f64(4))),
    "run_lengths": ("run_lengths", (i64(3), f64(3), f64(3, 4), np.int64(2))),
    "rolls": ("rolls", (f64(3, 4), np.ones((3, 4), dtype=np.uint32))),
}


@pytest.fixture(scope="module")
def built(build_project, tmp_path_factory):
    folder = tmp_path_factory.mktemp("programs-project")
    shutil.copy(PROJECTS / "programs" / "programs.py", folder)
    return build_project(write_project(folder, sampled_graphs("programs_ext", programs, GRAPHS), {}))


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def check(got: tuple, want: tuple, rtol: float = 1e-10) -> None:
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (index, g.dtype, w.dtype)
        assert g.shape == w.shape, (index, g.shape, w.shape)
        if w.dtype.kind in "fc":
            tolerance = max(rtol, 2e-6 if w.dtype in (np.float32, np.complex64) else 0.0)
            np.testing.assert_allclose(
                g, w, rtol=tolerance, atol=tolerance, equal_nan=True, err_msg=str(index)
            )
        else:
            np.testing.assert_array_equal(g, w, err_msg=str(index))


def layouts(array: np.ndarray, layout: str) -> np.ndarray:
    """The same values, C-ordered, transposed (a view of the transpose), strided, or reversed
    (a view with negative strides)."""
    if layout == "r":
        return np.ascontiguousarray(array[::-1, ::-1])[::-1, ::-1]
    if layout == "t":
        return np.ascontiguousarray(array.T).T
    if layout == "s":
        wide = np.zeros((array.shape[0] * 2,) + array.shape[1:], dtype=array.dtype)
        wide[::2] = array
        return wide[::2]
    return array


def matrices(min_side: int = 0, max_side: int = 5, dtype=np.float64, elements=None):
    shape = st.tuples(st.integers(min_side, max_side), st.integers(min_side, max_side))
    values = elements if elements is not None else st.floats(-3, 3, allow_nan=False, width=64)
    return shape.flatmap(
        lambda s: st.tuples(
            st.lists(values, min_size=s[0] * s[1], max_size=s[0] * s[1]).map(
                lambda v, s=s: np.array(v, dtype=dtype).reshape(s)
            ),
            st.sampled_from("ctsr"),
        ).map(lambda pair: layouts(*pair))
    )


@SETTINGS
@given(data=st.data())
def test_indexing(package, data) -> None:
    x = data.draw(matrices(1))
    n = x.shape[0]
    i = data.draw(st.integers(0, n - 1))
    idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), max_size=4)), dtype=np.int64)
    check(package.indexing(x, i, idx), numpy_results(programs.indexing, x, i, idx))


@SETTINGS
@given(data=st.data())
def test_updates_leave_inputs_alone(package, data) -> None:
    x = data.draw(matrices(1))
    v = np.arange(x.shape[0], dtype=np.float64)
    idx = np.array(data.draw(st.lists(st.integers(0, x.shape[0] - 1), max_size=3)), dtype=np.int64)
    before = x.copy()
    check(package.updates(x, v, idx), numpy_results(programs.updates, before.copy(), v, idx))
    np.testing.assert_array_equal(x, before)


@SETTINGS
@given(data=st.data())
def test_movement(package, data) -> None:
    x = data.draw(matrices(0, 4).filter(lambda a: a.shape[1] >= 1))
    y = layouts(x * 2 + 1, data.draw(st.sampled_from("cts")))
    check(package.movement(x, y), numpy_results(programs.movement, x, y))


@SETTINGS
@given(x=matrices())
def test_ordering(package, x) -> None:
    check(package.ordering(x), numpy_results(programs.ordering, x))


@SETTINGS
@given(x=matrices(1, elements=st.sampled_from([-1.0, 0.0, 0.5, 2.0, np.nan, -np.inf])))
def test_arg_reductions_ties_and_nan(package, x) -> None:
    check(package.arg_reductions(x), numpy_results(programs.arg_reductions, x))


@SETTINGS
@given(data=st.data())
def test_statistics(package, data) -> None:
    x = data.draw(matrices(1))
    w = np.linspace(0.5, 2.0, x.shape[1])
    check(package.statistics(x, w), numpy_results(programs.statistics, x, w), rtol=1e-9)


@SETTINGS
@given(data=st.data())
def test_integers(package, data) -> None:
    a = data.draw(matrices(0, 4, np.int64, st.integers(-5, 9)))
    # NumPy's weighted bincount of an empty array is int64, not float64: a value-dependent dtype
    # no compiled signature can follow (docs/tracing.md, "Known differences").
    b = np.array(data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=6)), dtype=np.int64)
    check(package.integers(a, b), numpy_results(programs.integers, a, b))


@SETTINGS
@given(x=matrices())
def test_creation(package, x) -> None:
    check(package.creation(x), numpy_results(programs.creation, x))


@SETTINGS
@given(data=st.data())
def test_linalg(package, data) -> None:
    n = data.draw(st.integers(1, 5))
    a = data.draw(matrices(n, n))
    b = np.linspace(-1, 1, n)
    batch = np.stack([a + k for k in range(data.draw(st.integers(1, 3)))])
    check(package.linalg(a, b, batch), numpy_results(programs.linalg, a, b, batch), rtol=1e-9)


@SETTINGS
@given(data=st.data())
def test_lapack(package, data) -> None:
    n = data.draw(st.integers(1, 5))
    m = data.draw(matrices(n, n))
    a = layouts(m @ m.T + n * np.eye(n), data.draw(st.sampled_from("cts")))
    b = np.linspace(1, 2, n)
    check(package.linalg_lapack(a, b), numpy_results(programs.linalg_lapack, a, b), rtol=1e-8)


def test_lapack_errors_are_numpys(package) -> None:
    with pytest.raises(np.linalg.LinAlgError):
        package.linalg_lapack(np.zeros((3, 3)), np.ones(3))
    with pytest.raises(ValueError):
        package.linalg(np.eye(3), np.ones(4), np.zeros((1, 3, 3)))


@SETTINGS
@given(data=st.data())
def test_integer_matmul(package, data) -> None:
    a = data.draw(matrices(1, 4, np.int64, st.integers(-100, 100)))
    b = data.draw(matrices(a.shape[1], a.shape[1], np.int64, st.integers(-100, 100)))
    check(package.integer_matmul(a, b), numpy_results(programs.integer_matmul, a, b))


@SETTINGS
@given(values=st.lists(st.complex_numbers(max_magnitude=10, allow_nan=False), max_size=6))
def test_complex_parts(package, values) -> None:
    z = np.array(values, dtype=np.complex128)
    check(package.complex_parts(z), numpy_results(programs.complex_parts, z))


def test_float32_linear_algebra_rounds_like_numpy(package) -> None:
    rng = np.random.default_rng(0)
    m = rng.normal(size=(5, 5)).astype(np.float32)
    a = m @ m.T + 5 * np.eye(5, dtype=np.float32)
    b = rng.normal(size=5).astype(np.float32)
    got, want = package.float32_linalg(a, b), numpy_results(programs.float32_linalg, a, b)
    check(got, want)
    assert all(np.asarray(g).dtype == np.float32 for g in got)


def test_index_errors_are_numpys(package) -> None:
    x = np.ones((3, 4))
    with pytest.raises(IndexError):
        package.indexing(x, 3, np.array([0]))
    with pytest.raises(IndexError):
        package.indexing(x, -4, np.array([0]))
    with pytest.raises(IndexError):
        package.indexing(x, 0, np.array([3]))
    with pytest.raises(ValueError):
        package.movement(np.ones((2, 3)), np.ones((3, 3)))


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "one", "empty"])
def test_vector_math_over_1d_inputs_of_any_layout(package, layout) -> None:
    rng = np.random.default_rng(4)
    wide = rng.normal(size=10)
    b = {
        "contiguous": wide[:5],
        "strided": wide[::2],
        "reversed": wide[4::-1],
        "one": wide[3:4],
        "empty": wide[:0],
    }[layout]
    x = rng.normal(size=(3, 5 if b.shape[0] else 0))
    before = wide.copy()
    check(package.bias_tanh(x, b), numpy_results(programs.bias_tanh, x, b), rtol=1e-12)
    np.testing.assert_array_equal(wide, before)  # the strided input is copied, never written


def test_subgraph_called_three_times_is_one_symbol(built, package) -> None:
    rng = np.random.default_rng(1)
    args = [rng.normal(size=(3, 4))] + [rng.normal(size=s) for s in [(4, 4), (4,)] * 3]
    check(package.layers(*args), numpy_results(programs.layers, *args))
    manifest = package.manifest()
    (affine,) = [
        s for s, op in manifest["ops"].items() if op["kind"] == "subgraph" and "affine" in op["title"]
    ]
    entry = (
        built.package_dir.parent
        / ".aotbuild"
        / "programs_ext"
        / "modules"
        / f"{manifest['graphs']['layers']['entry']}.py"
    )
    assert entry.read_text().count(" = affine_0(") == 3
    linked = subprocess.run(["nm", str(built.native)], capture_output=True, text=True, check=True).stdout
    assert len([line for line in linked.splitlines() if line.split()[-1] == affine]) == 1


def test_scipy_only_for_graphs_that_need_it(package) -> None:
    assert set(package.manifest()["linalg"]["graphs"]) == {
        "linalg",
        "linalg_lapack",
        "layers",
        "float32_linalg",
    }


SOLVE = """
import sys
sys.modules["numba"] = None
sys.modules["llvmlite"] = None
{block_scipy}
sys.path.insert(0, {folder!r})
import numpy as np
import programs_ext
a = np.array([[4.0, 1.0], [1.0, 3.0]])
b = np.array([1.0, 2.0])
assert np.allclose(programs_ext.linalg_lapack(a, b)[0], np.linalg.solve(a, b))
print("solved")
"""


@pytest.mark.parametrize("scipy", ["present", "blocked"])
def test_np_linalg_solve_runs_without_numba_and_needs_scipy(built, scipy) -> None:
    block = 'sys.modules["scipy"] = None' if scipy == "blocked" else ""
    script = SOLVE.format(block_scipy=block, folder=str(built.package_dir.parent))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    if scipy == "present":
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "solved"
    else:
        assert result.returncode == 1
        last = result.stderr.strip().splitlines()[-1]
        assert last == (
            "ImportError: programs_ext: graph(s) linalg, linalg_lapack, layers, float32_linalg use "
            "BLAS/LAPACK, which SciPy provides at run time; install scipy"
        ), result.stderr


@SETTINGS
@given(data=st.data())
def test_views_and_broadcasts(package, data) -> None:
    """Versioned loops on every layout, empty and size-1 axes, and inputs that overlap (x a view
    into u): NumPy's values."""
    u = data.draw(matrices(2, 12).filter(lambda a: a.shape[1] >= 2))
    if data.draw(st.booleans()):
        x = u[:, : data.draw(st.integers(0, u.shape[1]))]  # a view into u: the inputs overlap
    else:
        x = data.draw(matrices(1, 9))
    check(package.views(x, u), numpy_results(programs.views, x, u), rtol=1e-12)


@SETTINGS
@given(data=st.data())
def test_rolls(package, data) -> None:
    """np.roll by constants, fused or on its own, and integer stencils of rolls and slices: NumPy's
    values on every layout, empty and size-1 axes (the rolls and uint32 arithmetic bit for bit)."""
    x = data.draw(matrices(0, 7))
    k = data.draw(matrices(0, 7, np.uint32, st.integers(0, 2**32 - 1)))
    check(package.rolls(x, k), numpy_results(programs.rolls, x, k), rtol=1e-14)


@SETTINGS
@given(data=st.data())
def test_lengths_known_at_run_time(package, data) -> None:
    """np.where(mask)[0], np.nonzero, np.flatnonzero and np.tile by counts computed at run time,
    traced (an import inside the function is Python the tracer runs)."""
    keys = np.sort(np.array(data.draw(st.lists(st.integers(-2, 3), min_size=1, max_size=12)), dtype=np.int64))
    values = np.linspace(-1.0, 2.0, keys.shape[0])
    x = data.draw(matrices(0, 4, elements=st.sampled_from([0.0, -1.5, 2.0, np.nan])))
    k = data.draw(st.integers(0, 3))
    check(package.run_lengths(keys, values, x, k), numpy_results(programs.run_lengths, keys, values, x, k))


def test_run_time_lengths_are_traced_and_negative_counts_raise(package) -> None:
    assert package.__graphs__["run_lengths"]["mode"] == "trace"
    with pytest.raises(ValueError, match="negative dimensions"):
        package.run_lengths(np.zeros(2, np.int64), np.ones(2), np.ones((2, 2)), -1)
