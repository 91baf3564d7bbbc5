"""The example project's models compiled: radon (8 variants and a hand-written gradient), the MLP
with its ``dense`` subgraph, and the image pipeline, against the same code run by NumPy.

``test_models_numpy`` checks the models themselves; this checks that tracing and compiling them
changes nothing a user can see, and that the Ops they share exist once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .conftest import REPO, load_package
from .test_models_numpy import (
    OTHER_POINT,
    RADON_GRAD_NORM,
    RADON_LOGP,
    RADON_POINT,
    central_differences,
)

sys.path.insert(0, str(REPO / "example_project"))
import images  # noqa: E402
import mlp  # noqa: E402
import radon  # noqa: E402


@pytest.fixture(scope="module")
def package(example_build):
    return load_package(example_build)


@pytest.fixture(scope="module")
def manifest(package) -> dict:
    return package.manifest()


def modules_folder(example_build) -> Path:
    return example_build.package_dir.parent / ".aotbuild" / example_build.package_dir.name / "modules"


def test_radon_logp_matches_numpy_and_the_check_value(package) -> None:
    for x in (RADON_POINT, OTHER_POINT, RADON_POINT[::-1].copy()):
        assert package.radon_logp(x) == pytest.approx(radon.logp(x), rel=1e-13, abs=0)
    assert package.radon_logp(RADON_POINT) == pytest.approx(RADON_LOGP, abs=1e-10, rel=0)


def test_radon_gradient_matches_numpy_and_finite_differences(package) -> None:
    value, grad = package.radon_logp_and_grad(RADON_POINT)
    want_value, want_grad = radon.logp_and_grad(RADON_POINT)
    assert value == pytest.approx(want_value, rel=1e-13, abs=0)
    assert grad.shape == (173,) and grad.dtype == np.float64 and grad.flags.c_contiguous
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-12)
    assert round(float(np.linalg.norm(grad)), 4) == RADON_GRAD_NORM
    derived_value, derived = package.radon_grad(RADON_POINT)  # grad = ["x"]: by reverse mode
    assert derived_value == value and derived.flags.c_contiguous
    np.testing.assert_allclose(derived, want_grad, rtol=1e-12, atol=1e-10)
    differences = central_differences(package.radon_logp, OTHER_POINT)
    _, grad = package.radon_logp_and_grad(OTHER_POINT)
    np.testing.assert_allclose(grad, differences, rtol=1e-6, atol=1e-6 * np.max(np.abs(grad)))


def test_radon_takes_strided_vectors(package) -> None:
    wide = np.zeros(2 * 173)
    wide[::2] = OTHER_POINT
    assert package.radon_logp(wide[::2]) == pytest.approx(radon.logp(OTHER_POINT), rel=1e-13)
    with pytest.raises(IndexError):  # x[172] is out of bounds, as in NumPy
        package.radon_logp(np.zeros(172))


@pytest.mark.parametrize("name", [name for name, _ in radon.VARIANTS])
def test_radon_variant_matches_numpy(package, name) -> None:
    function = dict(radon.VARIANTS)[name]
    compiled = getattr(package, f"radon_{name}")
    for x in (RADON_POINT, OTHER_POINT):
        assert compiled(x) == pytest.approx(function(x), rel=1e-12, abs=0)


def test_radon_variants_share_their_ops(manifest) -> None:
    """The 8 variants and the base logp are 9 graphs; what they compute alike is compiled once."""
    graphs = [
        set(g["ops"])
        for name, g in manifest["graphs"].items()
        if name.startswith("radon_") and "grad" not in name
    ]
    assert len(graphs) == 9
    shared = set.intersection(*graphs)
    distinct = set.union(*graphs)
    # the data, the likelihood of 919 observations, the zero-sum projection (scalar arithmetic is
    # computed in the graphs' entries, not by Ops)
    assert len(shared) >= 12
    assert len(distinct) < sum(map(len, graphs)) / 4
    assert len(manifest["order"]) == len(set(manifest["order"])) == len(manifest["ops"])


def test_mlp_matches_numpy_in_float32(package) -> None:
    parameters = mlp.make_weights(0)
    for x in (
        np.random.default_rng(5).normal(size=(4, 16)).astype(np.float32),
        np.random.default_rng(6).normal(size=(16, 1)).astype(np.float32).T,  # one row, a view
        np.zeros((0, 16), np.float32),
    ):
        got = package.mlp(x, *parameters)
        assert got.dtype == np.float32 and got.shape == x.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, mlp.mlp(x, *parameters), rtol=2e-6, atol=2e-6)
    with pytest.raises(TypeError, match="x"):
        package.mlp(np.zeros((4, 16)), *parameters)


def test_mlp_loss_gradient_matches_backpropagation_by_hand(package) -> None:
    """grad = [all 16 weights and biases], through the dense subgraph, in float32."""
    parameters = mlp.make_weights(1)
    rng = np.random.default_rng(7)
    for rows in (1, 5):
        x, y = (rng.normal(size=(rows, 16)).astype(np.float32) for _ in range(2))
        loss, *grads = package.mlp_loss_and_grad(x, y, *parameters)
        want_loss, want_grads = mlp.loss_and_grad_by_hand(x, y, *parameters)
        assert isinstance(loss, np.float32) and loss == pytest.approx(want_loss, rel=1e-5)
        for derived, by_hand in zip(grads, want_grads, strict=True):
            assert (
                derived.dtype == np.float32 and derived.shape == by_hand.shape and derived.flags.c_contiguous
            )
            np.testing.assert_allclose(derived, by_hand, rtol=1e-3, atol=1e-6)


def test_mlp_dense_layer_is_one_symbol_called_eight_times(example_build, manifest) -> None:
    (dense,) = [s for s, op in manifest["ops"].items() if op["kind"] == "subgraph" and "dense" in op["title"]]
    graph = manifest["graphs"]["mlp"]
    assert dense in graph["ops"]
    entry = (modules_folder(example_build) / f"{graph['entry']}.py").read_text()
    assert entry.count(f'dense_0 = declare("{dense}: ') == 1
    assert entry.count(" = dense_0(") == 8
    linked = subprocess.run(["nm", str(example_build.native)], capture_output=True, text=True, check=True)
    definitions = [line for line in linked.stdout.splitlines() if line.split()[-1] == dense]
    assert len(definitions) == 1


def test_a_graph_declared_from_a_subgraph_calls_the_same_symbol(package, manifest) -> None:
    """``[graphs.dense]`` is mlp's layer: one compiled symbol serves both graphs."""
    (dense,) = [s for s, op in manifest["ops"].items() if op["kind"] == "subgraph"]
    assert dense in manifest["graphs"]["dense"]["ops"] and dense in manifest["graphs"]["mlp"]["ops"]
    w, b = mlp.make_weights(3)[:2]
    x = np.random.default_rng(8).normal(size=(5, 16)).astype(np.float32)
    np.testing.assert_allclose(package.dense(x, w, b), mlp.dense(x, w, b), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("shape", [(3, 64, 48), (1, 5, 5), (2, 7, 9), (1, 4, 4)])
def test_image_pipeline_matches_numpy(package, shape) -> None:
    stack = np.random.default_rng(sum(shape)).normal(size=shape).astype(np.float32) * 40 + 100
    for images_in in (
        stack,
        np.ascontiguousarray(stack.transpose(0, 2, 1)).transpose(0, 2, 1),
        stack[:, ::-1, :],
    ):
        got = package.image_pipeline(images_in)
        want = images.pipeline(images_in)
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_image_pipeline_needs_five_pixels(package) -> None:
    """NumPy gives an empty result below 5x5 (slices clip); so does the compiled graph."""
    stack = np.ones((2, 4, 9), np.float32)
    got, want = package.image_pipeline(stack), images.pipeline(stack)
    assert got.shape == want.shape == (2, 0, 5)
