"""Wrong arguments at call time raise TypeError naming the argument — never a crash."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import load_package


@pytest.fixture(scope="module")
def example(example_build):
    return load_package(example_build)


@pytest.fixture(scope="module")
def kernels(kernels_build):
    return load_package(kernels_build)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda p: p.normal_logp(np.ones(3)), r"normal_logp\(\) missing required argument 'mu' \(pos 2\)"),
        (
            lambda p: p.normal_logp(np.ones(3), 0.0, 1.0, 4.0),
            r"normal_logp\(\) takes 3 positional arguments but 4 were given",
        ),
        (
            lambda p: p.normal_logp(np.ones(3, np.float32), 0.0, 1.0),
            r"argument 'x' must have dtype float64 \(float64\[:\]\), got float32",
        ),
        (
            lambda p: p.normal_logp(np.ones((3, 1)), 0.0, 1.0),
            r"argument 'x' must have 1 dimension \(float64\[:\]\), got 2",
        ),
        (
            lambda p: p.normal_logp([1.0, 2.0], 0.0, 1.0),
            r"argument 'x' must be a numpy.ndarray \(float64\[:\]\), not list",
        ),
        (
            lambda p: p.normal_logp(np.ones(3), "0", 1.0),
            r"argument 'mu' must be a real number \(float64\), not str",
        ),
        (lambda p: p.normal_logp(np.ones(3), 1j, 1.0), r"argument 'mu' must be a real number"),
        (
            lambda p: p.normal_logp(np.ones(3), 0.0, sigma=1.0, mu=2.0),
            r"got multiple values for argument 'mu'",
        ),
        (
            lambda p: p.normal_logp(np.ones(3), 0.0, 1.0, scale=2.0),
            r"got an unexpected keyword argument 'scale'",
        ),
        (
            lambda p: p.normal_logp(np.ones(3).astype(">f8"), 0.0, 1.0),
            r"argument 'x' must have dtype float64 .* non-native byte order",
        ),
        (lambda p: p.det(np.ones(4)), r"det\(\) argument 'a' must have 2 dimensions"),
    ],
)
def test_type_errors_name_the_argument(example, call, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        call(example)


def test_layout(kernels) -> None:
    a = np.ones((4, 6), np.float32)
    with pytest.raises(
        TypeError,
        match=r"argument 'a' must be C-contiguous \(float32\[:, ::1\]\); pass np.ascontiguousarray\(a\)",
    ):
        kernels.row_sums(a[:, ::2])
    np.testing.assert_array_equal(kernels.row_sums(a[1:3]), [6.0, 6.0])  # a block of rows is C order


def test_scalars_accept_compatible_kinds(example, kernels) -> None:
    x = np.linspace(0, 1, 5)
    reference = example.normal_logp(x, 0.0, 1.0)
    assert example.normal_logp(x, 0, 1) == reference  # Python ints for float parameters
    assert example.normal_logp(x, np.float32(0), np.int64(1)) == reference
    assert example.normal_logp(x=x, sigma=1.0, mu=0.0) == reference
    flags = np.array([True, False])
    assert kernels.mixed(flags, np.int16(3), 1.0)[0].tolist() == [3, -3]
    with pytest.raises(TypeError, match=r"argument 'n' must be an integer \(int32\), not float"):
        kernels.mixed(flags, 3.0, 1.0)
    with pytest.raises(OverflowError, match=r"argument 'n' is out of range for int32"):
        kernels.mixed(flags, 2**40, 1.0)
    with pytest.raises(TypeError, match=r"argument 'flags' must have dtype bool"):
        kernels.mixed(np.array([1, 0]), 3, 1.0)


def test_signatures_and_docs(example) -> None:
    import inspect

    assert str(inspect.signature(example.normal_logp)) == "(x, mu, sigma)"
    assert "float64(float64[:], float64, float64)" in example.normal_logp.__doc__
    assert example.normal_logp.__module__ == "example_ext._native"
