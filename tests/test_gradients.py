"""``grad = [...]``: reverse-mode gradients of traced graphs, against central finite differences
on random inputs (strided, broadcast and size-1 ones too; hypothesis chooses sizes, layouts and
broadcasts), and the build's refusals."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import PROJECTS, load_package, write_project

sys.path.insert(0, str(PROJECTS / "gradients"))
import grad_models  # noqa: E402


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "gradients" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def finite_difference(function, args, position, eps=1e-6):
    """Central differences of ``function`` in float64 with respect to ``args[position]``."""
    args = [np.array(a, dtype=np.float64, order="C") if np.asarray(a).dtype.kind == "f" else a for a in args]
    x = args[position]
    flat = x.reshape(-1)
    out = np.zeros(flat.size)
    for k in range(flat.size):
        saved = flat[k]
        flat[k] = saved + eps
        up = function(*args)
        flat[k] = saved - eps
        down = function(*args)
        flat[k] = saved
        out[k] = (up - down) / (2 * eps)
    return out.reshape(x.shape)


def check(compiled, function, args, positions, rtol=1e-6, atol=1e-7):
    value, *grads = compiled(*args)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12 if rtol < 1e-5 else rtol)
    for position, grad in zip(positions, grads, strict=True):
        declared = np.asarray(args[position])
        assert grad.dtype == declared.dtype and np.shape(grad) == declared.shape
        if np.ndim(grad):
            assert grad.flags.c_contiguous
        np.testing.assert_allclose(grad, finite_difference(function, args, position), rtol=rtol, atol=atol)


SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def laid_out(values: np.ndarray, layout: str) -> np.ndarray:
    """The same values C-ordered (c), as a strided view (s), reversed (r), or F-ordered (f)."""
    if layout == "s":
        wide = np.zeros((values.shape[0] * 2,) + values.shape[1:])
        wide[::2] = values
        return wide[::2]
    if layout == "r":
        return np.ascontiguousarray(values[::-1])[::-1]
    if layout == "f":
        return np.asfortranarray(values)
    return values


def apart(values: np.ndarray) -> bool:
    """Whether no two of ``values`` are within 1e-3 of each other: a tie is a kink (of a sort, a
    max), which a finite difference's step (~1e-5) must not cross. A draw once held 0.89494191
    and 0.89494236, and the sort's numerical gradient moved 0.275 from one to the other."""
    ordered = np.sort(values, axis=None)
    return ordered.size < 2 or bool(np.min(np.diff(ordered)) > 1e-3)


def uniform(shape, low=-1.5, high=1.5, layouts="csr"):
    """Arrays of ``shape`` (a strategy of shapes) drawn from a seed hypothesis picks, in one of
    ``layouts``: finite differences want values away from kinks, which a seeded draw with no
    near ties gives."""
    drawn = st.tuples(shape, st.integers(0, 2**16), st.sampled_from(layouts)).map(
        lambda t: (np.random.default_rng(t[1]).uniform(low, high, size=t[0]), t[2])
    )
    return drawn.filter(lambda pair: apart(pair[0])).map(lambda pair: laid_out(*pair))


def sizes(low: int, high: int):
    return st.integers(low, high).map(lambda n: (n,))


@SETTINGS
@given(x=uniform(sizes(1, 8)))
def test_elementwise_rules_on_any_layout(package, x) -> None:
    check(package.unary, grad_models.unary, (x,), [0])


@SETTINGS
@given(data=st.data(), rows=st.integers(1, 4), columns=st.integers(1, 4))
def test_binary_rules_sum_gradients_over_broadcast_axes(package, data, rows, columns) -> None:
    a = data.draw(uniform(st.just((rows, columns)), layouts="c"))  # declared [:, ::1]
    b = data.draw(uniform(st.sampled_from([(columns,), (1,)])))
    b[...] = b * 0.7 - 0.2  # not a's values if drawn from the same seed: ties are kinks
    check(package.binary, grad_models.binary, (a, b), [0, 1])


@SETTINGS
@given(x=uniform(st.tuples(st.integers(1, 4), st.integers(1, 4)), layouts="csrf"))
def test_reduction_rules_on_any_shape_and_layout(package, x) -> None:
    check(package.reductions, grad_models.reductions, (x,), [0])


@SETTINGS
@given(x=uniform(sizes(5, 12)))  # IDX reads x[4] and x[-1]
def test_indexing_rules_on_any_length_and_layout(package, x) -> None:
    check(package.indexing, grad_models.indexing, (x,), [0])


@SETTINGS
@given(data=st.data(), batch=st.integers(1, 5))
def test_layer_rules_with_any_batch(package, data, batch) -> None:
    w = data.draw(uniform(st.just((3, 3)), layouts="c"))
    b = data.draw(uniform(st.sampled_from([(3,), (1,)])))
    x = data.draw(uniform(st.just((batch, 3)), layouts="c"))
    y = data.draw(uniform(sizes(1, 3 * batch)))
    check(package.layers, grad_models.layers, (w, b, x, y), [0, 1])


@SETTINGS
@given(x=uniform(sizes(1, 8)), s=st.floats(0.5, 2.0))
def test_float32_rules_at_float32_tolerance(package, x, s) -> None:
    x, s = x.astype(np.float32), np.float32(s)
    check(package.scaled, grad_models.scaled, (x, s), [0, 1], rtol=2e-3, atol=1e-3)


@SETTINGS
@given(x=uniform(sizes(4, 9)), v=uniform(sizes(2, 2)))  # writes reach x[3] and COLUMNS x[2]
def test_scan_and_write_rules_on_any_length_and_layout(package, x, v) -> None:
    """cumprod, np.full; z[idx] = v with a repeated index (the overwritten value gets nothing),
    along a matrix's axis and through masks."""
    check(package.scans, grad_models.scans, (x,), [0])
    check(package.writes, grad_models.writes, (x, v), [0, 1])


@SETTINGS
@given(data=st.data(), shape=st.tuples(st.integers(3, 5), st.integers(3, 4)), count=st.integers(0, 6))
def test_gather_and_mask_rules_on_any_shape_and_layout(package, data, shape, count) -> None:
    """Integer arrays indexing two axes, a column axis, rows by a 2-d index, run-time indices
    (repeated and none), bincount weights; masks of every element and of rows (none True too)."""
    x = data.draw(uniform(st.just(shape), layouts="csrf"))
    k = np.random.default_rng(count).integers(0, 3, size=count)
    check(package.gathers, grad_models.gathers, (x, k), [0])
    check(package.masks, grad_models.masks, (x,), [0])
    check(package.masks, grad_models.masks, (np.abs(x) + 0.6,), [0])  # no row below 0.5


def test_einsum_cholesky_digamma_rules(package) -> None:
    rng = np.random.default_rng(11)
    for rows, columns in ((3, 4), (1, 2), (4, 4)):
        a, b = rng.normal(size=(rows, columns)), rng.normal(size=columns)
        check(package.einsums, grad_models.einsums, (a, b), [0, 1])
    for n in (2, 4):  # cholesky reads the lower triangle: the gradient is 0 above it
        check(package.cholesky, grad_models.cholesky, (rng.normal(size=(n, n)),), [0], rtol=1e-5, atol=1e-6)
    check(package.digamma, grad_models.digamma, (rng.normal(size=6) * 3.0,), [0], rtol=1e-5, atol=1e-6)


def test_subgraph_returning_a_tuple(package) -> None:
    for x in (np.random.default_rng(12).normal(size=5), np.ones(1)):
        check(package.through_tuples, grad_models.through_tuples, (x,), [0])


@pytest.mark.parametrize("seed", [0, 1])
def test_elementwise_rules(package, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.5, 1.5, size=7)
    check(package.unary, grad_models.unary, (x,), [0])
    check(package.unary, grad_models.unary, (x[::2],), [0])  # strided
    a = rng.normal(size=(3, 4))
    for b in (rng.normal(size=4), rng.normal(size=1)):  # a broadcast (1,) too
        check(package.binary, grad_models.binary, (a, b), [0, 1])
        _, db = package.binary_b(a, b)
        np.testing.assert_array_equal(db, package.binary(a, b)[2])
    a[0, 0] = b[0] = 0.25  # a maximum/minimum tie: half the gradient to each side
    _, da, db = package.binary(a[:1, :1], b[:1])
    assert np.isfinite(da).all() and np.isfinite(db).all()


@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (4, 2)])
def test_reduction_rules(package, shape) -> None:
    x = np.random.default_rng(sum(shape)).normal(size=shape)
    check(package.reductions, grad_models.reductions, (x,), [0])
    check(package.reductions, grad_models.reductions, (np.asfortranarray(x),), [0])


def test_indexing_moving_and_scan_rules(package) -> None:
    x = np.random.default_rng(3).normal(size=9)
    check(package.indexing, grad_models.indexing, (x,), [0])
    check(package.indexing, grad_models.indexing, (np.linspace(-1, 1, 12)[::-1],), [0])


def test_products_and_broadcast_bias(package) -> None:
    rng = np.random.default_rng(4)
    w, x, y = rng.normal(size=(3, 3)), rng.normal(size=(5, 3)), rng.normal(size=12)
    for b in (rng.normal(size=3), rng.normal(size=1)):
        check(package.layers, grad_models.layers, (w, b, x, y), [0, 1])


def test_moves_products_and_stacks(package) -> None:
    rng = np.random.default_rng(7)
    check(package.moves, grad_models.moves, (rng.normal(size=(3, 3)), rng.normal(size=(3, 3))), [0, 1])


def test_special_functions_and_linear_algebra(package) -> None:
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=5), rng.normal(size=5)
    check(package.special, grad_models.special, (x, y), [0, 1], rtol=1e-5, atol=1e-6)
    a, b = rng.normal(size=(3, 3)), rng.normal(size=3)
    check(package.linear_algebra, grad_models.linear_algebra, (a, b), [0, 1], rtol=1e-5, atol=1e-6)


def test_value_and_grad_inside_a_traced_function(package) -> None:
    """A gradient step in one compiled graph; as plain Python, finite differences."""
    import aotbuild

    rng = np.random.default_rng(9)
    w, x, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)
    exact = 2 * x.T @ (x @ w - y)
    want = np.sum((x @ w - y) ** 2) + np.sum(w - 0.01 * exact)
    assert package.gradient_step(w, x, y) == pytest.approx(want, rel=1e-12)
    assert grad_models.gradient_step(w, x, y) == pytest.approx(want, rel=1e-6)
    np.testing.assert_allclose(aotbuild.grad(lambda w: np.sum((x @ w - y) ** 2), "w")(w), exact, rtol=1e-6)
    with pytest.raises(TypeError, match="'v' is not a parameter"):
        aotbuild.value_and_grad(lambda w: w, "v")
    # grad = ["w"] of a graph that takes a gradient: second derivatives, against differences
    # of the compiled first-order graph
    value, dw = package.gradient_step_grad(w, x, y)
    assert value == package.gradient_step(w, x, y)
    np.testing.assert_allclose(dw, finite_difference(package.gradient_step, (w, x, y), 0), rtol=1e-6)


def test_subgraph_calls(package) -> None:
    rng = np.random.default_rng(10)
    x, w, b = (rng.normal(size=s).astype(np.float32) * 0.5 for s in ((4, 3), (3, 3), 3))
    check(
        package.through_subgraphs, grad_models.through_subgraphs, (x, w, b), [0, 1, 2], rtol=2e-3, atol=1e-3
    )


def test_float32_stays_float32(package) -> None:
    x = np.random.default_rng(5).normal(size=6).astype(np.float32)
    value, dx, ds = package.scaled(x, np.float32(1.7))
    assert value.dtype == dx.dtype == np.float32 and isinstance(ds, np.float32)
    check(package.scaled, grad_models.scaled, (x, np.float32(1.7)), [0, 1], rtol=2e-3, atol=1e-3)


def test_gradients_are_arrays_of_their_own(package) -> None:
    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    value, dx, dy = package.sum_of_both(x, y)
    assert value == pytest.approx(np.sum(x + y))
    np.testing.assert_array_equal(dx, np.ones(5))
    np.testing.assert_array_equal(dy, np.ones(5))
    assert not np.shares_memory(dx, dy)


def test_integer_parameters_carry_no_gradient(package) -> None:
    x = np.random.default_rng(6).normal(size=5)
    check(package.partial, grad_models.partial, (x, 3), [0])


def test_the_signature_and_stub_say_what_is_returned(package, built) -> None:
    graphs = package.__graphs__
    assert (
        graphs["binary"]["signature"]
        == "Tuple(float64, float64[:, ::1], float64[::1])(float64[:, ::1], float64[:])"
    )
    stub = (built.package_dir / "__init__.pyi").read_text()
    assert "def scaled(" in stub and "float32" in stub


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        (
            'function = "m:f"\nsignature = "float64[:](float64[:])"\ngrad = ["x"]',
            "needs a float scalar result",
        ),
        (
            'function = "m:f"\nsignature = "float64(float64[:])"\nmode = "kernel"\ngrad = ["x"]',
            "kernels are not",
        ),
        (
            'function = "m:f"\nsignature = "float64(float64[:])"\ngrad = "x"',
            "expected a list of parameter names",
        ),
        ('function = "m:f"\nsignature = "float64(float64[:])"\ngrad = ["x", "x"]', "x listed twice"),
        ('function = "m:f"\nsignature = "float64(float64[:])"\ngrad = ["y"]', "'y' is not a parameter"),
        (
            'function = "m:count"\nsignature = "float64(int64[:])"\ngrad = ["x"]',
            "only float scalars and arrays",
        ),
        (
            'function = "m:norm2"\nsignature = "float64(float64[:, :])"\ngrad = ["x"]',
            "`linalg_norm`.* has no gradient rule",
        ),
        (
            'function = "m:loop"\nsignature = "float64(float64[:])"\ngrad = ["x"]',
            "kernels are not differentiated",
        ),
    ],
)
def test_refusals(tmp_path, graph, message) -> None:
    from aotbuild.build import build
    from aotbuild.errors import AotBuildError
    from aotbuild.progress import Progress

    module = (
        "import numpy as np\n\n"
        "def f(x):\n    return np.sum(x * x)\n\n"
        "def count(x):\n    return np.sum(x) * 1.0\n\n"
        "def norm2(x):\n    return np.linalg.norm(x, 2)\n\n"
        "def loop(x):\n    t = 0.0\n    for i in range(x.shape[0]):\n        t += x[i]\n    return t\n"
    )
    path = write_project(tmp_path, f'[package]\nname = "bad_ext"\n\n[graphs.g]\n{graph}\n', {"m.py": module})
    with pytest.raises(AotBuildError, match=message):
        build(path, progress=Progress(quiet=True))
