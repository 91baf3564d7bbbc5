"""The example models (radon, mlp, images) checked as plain NumPy, before any tracing."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "example_project"))

import images  # noqa: E402
import mlp  # noqa: E402
import radon  # noqa: E402

# Check values of the base radon variant from PyTensor's benchmark, at RADON_POINT.
RADON_LOGP = -2447.2341736666
RADON_GRAD_NORM = 1659.6778
RADON_POINT = np.random.default_rng(1).normal(size=173)
OTHER_POINT = 0.5 * np.random.default_rng(7).normal(size=173)

ALL_OPTIONS = [
    (intercept, sigma, centered)
    for intercept in ("normal", "lognormal")
    for sigma in ("halfnormal", "lognormal")
    for centered in (False, True)
]


def central_differences(function, x, step=1e-6):
    """The gradient of the scalar ``function`` at ``x`` by central finite differences."""
    basis = np.eye(x.size)
    return np.array([(function(x + step * e) - function(x - step * e)) / (2 * step) for e in basis])


def test_radon_data():
    assert radon.COUNTY_IDX.dtype == np.int64
    assert radon.FLOOR.dtype == radon.LOG_RADON.dtype == np.float64
    assert radon.COUNTY_IDX.shape == radon.FLOOR.shape == radon.LOG_RADON.shape == (919,)
    assert np.array_equal(np.unique(radon.COUNTY_IDX), np.arange(85))
    assert np.all(np.diff(radon.COUNTY_IDX) >= 0)
    assert set(np.unique(radon.FLOOR)) == {0.0, 1.0}


def test_radon_check_values():
    """logp to the check value's 10 printed decimals (the float64 logs of 10 and 2, instead of
    PyTensor's float32 ones, would miss by 3.4e-8), and the gradient's norm to its 4."""
    value, grad = radon.logp_and_grad(RADON_POINT)
    assert radon.logp(RADON_POINT) == pytest.approx(RADON_LOGP, abs=1e-10, rel=0)
    assert value == radon.logp(RADON_POINT)
    assert grad.shape == (173,) and grad.dtype == np.float64
    assert round(float(np.linalg.norm(grad)), 4) == RADON_GRAD_NORM


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=lambda o: radon.Variant(*o).name)
def test_radon_gradient_matches_finite_differences(options):
    logp = radon.make_logp(*options)
    logp_and_grad = radon.make_logp_and_grad(*options)
    for x in (RADON_POINT, OTHER_POINT):
        value, grad = logp_and_grad(x)
        assert value == logp(x)
        np.testing.assert_allclose(
            grad, central_differences(logp, x), rtol=1e-6, atol=1e-6 * np.max(np.abs(grad))
        )


def test_radon_variants():
    assert len(radon.VARIANTS) == 8
    assert len({name for name, _ in radon.VARIANTS}) == 8
    for name, function in radon.VARIANTS:
        assert function.__name__ == f"logp_{name}"
        assert getattr(radon, function.__name__) is function
        value = function(OTHER_POINT)
        assert isinstance(value, np.float64) and np.isfinite(value)
    assert radon.VARIANTS[0][1](RADON_POINT) == radon.logp(RADON_POINT)
    assert radon.make_logp()(RADON_POINT) == radon.logp(RADON_POINT)


def test_radon_variants_differ():
    values = {function(OTHER_POINT) for _, function in radon.VARIANTS}
    assert len(values) == 8


def test_radon_rejects_unknown_variant():
    with pytest.raises(ValueError, match="intercept"):
        radon.make_logp(intercept="student")
    with pytest.raises(ValueError, match="sigma"):
        radon.make_logp_and_grad(sigma="exponential")


def test_zero_sum_value_sums_to_zero():
    raw = np.random.default_rng(3).normal(size=84)
    value = radon.zero_sum_value(raw)
    assert value.shape == (85,)
    assert abs(np.sum(value)) < 1e-12


def test_mlp_matches_reference_loop():
    x = np.random.default_rng(5).normal(size=(4, 16)).astype(np.float32)
    parameters = mlp.make_weights(0)
    assert len(parameters) == 16
    assert all(p.dtype == np.float32 for p in parameters)

    result = mlp.mlp(x, *parameters)

    assert result.shape == (4, 16) and result.dtype == np.float32
    expected = x.astype(np.float64)
    for layer in range(8):
        w, b = parameters[2 * layer].astype(np.float64), parameters[2 * layer + 1]
        expected = np.array(
            [
                [np.tanh(sum(row[k] * w[k, j] for k in range(16)) + b[j]) for j in range(16)]
                for row in expected
            ]
        )
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
    assert 0.05 < np.std(result) < 0.95  # tanh neither saturated nor collapsed


def test_mlp_weights_are_deterministic():
    first, again, other = mlp.make_weights(0), mlp.make_weights(0), mlp.make_weights(1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])


IMAGES = np.random.default_rng(11).normal(size=(2, 7, 9)).astype(np.float32)


def reference_box_blur(stack):
    channels, height, width = stack.shape
    out = np.zeros((channels, height - 2, width - 2))
    for c in range(channels):
        for y in range(height - 2):
            for x in range(width - 2):
                out[c, y, x] = sum(float(stack[c, y + i, x + j]) for i in range(3) for j in range(3)) / 9
    return out


def reference_gradient_magnitude(stack):
    channels, height, width = stack.shape
    out = np.zeros((channels, height - 2, width - 2))
    for c in range(channels):
        for y in range(1, height - 1):
            for x in range(1, width - 1):
                dx = (float(stack[c, y, x + 1]) - float(stack[c, y, x - 1])) / 2
                dy = (float(stack[c, y + 1, x]) - float(stack[c, y - 1, x])) / 2
                out[c, y - 1, x - 1] = (dx * dx + dy * dy) ** 0.5
    return out


def test_box_blur():
    blurred = images.box_blur(IMAGES)
    assert blurred.shape == (2, 5, 7) and blurred.dtype == np.float32
    np.testing.assert_allclose(blurred, reference_box_blur(IMAGES), rtol=1e-5, atol=1e-6)


def test_box_blur_matches_row_convolutions():
    kernel = np.ones(3) / 3
    rows = np.apply_along_axis(np.convolve, 2, IMAGES.astype(np.float64), kernel, "valid")
    both = np.apply_along_axis(np.convolve, 1, rows, kernel, "valid")
    np.testing.assert_allclose(images.box_blur(IMAGES), both, rtol=1e-5, atol=1e-6)


def test_gradient_magnitude():
    magnitude = images.gradient_magnitude(IMAGES)
    assert magnitude.shape == (2, 5, 7) and magnitude.dtype == np.float32
    np.testing.assert_allclose(magnitude, reference_gradient_magnitude(IMAGES), rtol=1e-5, atol=1e-6)


def test_gradient_magnitude_of_a_ramp():
    """f = 3y + 4x has gradient (4, 3) and magnitude 5 everywhere."""
    y, x = np.mgrid[0:6, 0:8]
    ramp = (3.0 * y + 4.0 * x).astype(np.float32)[np.newaxis]
    np.testing.assert_allclose(images.gradient_magnitude(ramp), np.full((1, 4, 6), 5.0))


def test_pipeline():
    result = images.pipeline(IMAGES)
    assert result.shape == (2, 3, 5) and result.dtype == np.float32
    normalized = images.normalize_channels(IMAGES).astype(np.float64)
    expected = reference_gradient_magnitude(reference_box_blur(normalized))
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
