"""Memory planning at run time: a long chain's peak temporary memory does not grow with its length.

The runtime's byte counters (``_native._count_allocations``) measure every block compiled code
allocates, so the peak is exact, not a guess from the process's memory.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from .conftest import PROJECTS, load_package

N = 100_000
ARRAY = 8 * N


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


@pytest.fixture(scope="module")
def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.random(N), rng.permutation(N)


def measured(package, name: str, inputs) -> tuple[float, float]:
    """The call's result and its peak temporary memory, in arrays of N float64."""
    native = package._native
    native._count_allocations(True)
    try:
        before = native._allocations()
        native._reset_peak()
        result = getattr(package, name)(*inputs)
        after = native._allocations()
    finally:
        native._count_allocations(False)
    assert after["bytes_live"] == before["bytes_live"], "the call leaves nothing allocated"
    return result, (after["bytes_peak"] - before["bytes_live"]) / ARRAY


@pytest.mark.parametrize("chain", ["centred", "shuffled"])
def test_peak_temporary_memory_is_independent_of_chain_length(package, inputs, chain: str) -> None:
    _, short_peak = measured(package, f"{chain}_4", inputs)
    _, long_peak = measured(package, f"{chain}_16", inputs)
    assert long_peak == short_peak
    assert long_peak < 3  # an array or two, whatever the length


def test_elementwise_steps_write_into_the_temporary_they_consume(package, inputs) -> None:
    """Steps separated by reductions reuse one buffer: a peak of one array (and the reductions'
    scratch of a few hundred bytes); each step would otherwise hold its input and its result."""
    _, peak = measured(package, "centred_16", inputs)
    assert peak < 1.01


@pytest.mark.parametrize("name", ["centred_4", "centred_16", "shuffled_4", "shuffled_16"])
def test_results_written_in_place_are_numpys(package, inputs, name: str, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(PROJECTS / "runtime"))
    module = importlib.import_module("runtime_graphs")
    result, _ = measured(package, name, inputs)
    assert result == pytest.approx(getattr(module, name)(*inputs), rel=1e-12, abs=1e-9)


def test_slice_assignments_into_a_temporary_allocate_it_once(package, monkeypatch) -> None:
    """``z = np.zeros(...); z[:, :, k] = ...`` writes into z: the peak is the result and the one
    value being assigned (a third of it), not a copy of z per assignment."""
    monkeypatch.syspath_prepend(str(PROJECTS / "runtime"))
    module = importlib.import_module("runtime_graphs")
    x, y = np.linspace(0, 1, 300), np.linspace(-1, 1, 200)
    native = package._native
    native._count_allocations(True)
    try:
        before = native._allocations()
        native._reset_peak()
        result = package.grid(x, y)
        after = native._allocations()
    finally:
        native._count_allocations(False)
    np.testing.assert_array_equal(result, module.grid(x, y))
    whole = 300 * 200 * 3 * 8
    assert 0 <= after["bytes_live"] - before["bytes_live"] - whole < 1024  # the result, still held
    assert (after["bytes_peak"] - before["bytes_live"]) / whole <= 1 + 1 / 3 + 0.01
    modules = package.manifest()["ops"].values()
    assert (
        sum("in place" in op["title"] for op in modules if op["title"].startswith("float64[:, :, ::1][")) >= 3
    )


def test_masked_and_strided_updates_in_place_are_numpys(package, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(PROJECTS / "runtime"))
    module = importlib.import_module("runtime_graphs")
    for x in (np.random.default_rng(1).random(1001), np.random.default_rng(2).random(2000)[::3]):
        np.testing.assert_array_equal(package.masked_in_place(x), module.masked_in_place(x))


def test_transposed_operands_go_to_blas_without_a_copy(package) -> None:
    rng = np.random.default_rng(5)
    x1, x2, m = rng.normal(size=(1, 64)), rng.normal(size=(3000, 64)), rng.normal(size=(400, 30))
    native = package._native
    native._count_allocations(True)
    try:
        before = native._allocations()
        native._reset_peak()
        got = package.transposed_products(x1, x2, m)
        after = native._allocations()
    finally:
        native._count_allocations(False)
    for value, expected in zip(got, (np.dot(x1, x2.T), m.T @ m, np.einsum("ji,jk->ik", m, m)), strict=True):
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    results = 8 * (3000 + 2 * 30 * 30)
    assert after["bytes_peak"] - before["bytes_live"] < results + 4096  # a copy of x2 is 1.5 MB
    strided = x2[::2, ::2]  # neither C- nor F-contiguous: copied, as it must be
    np.testing.assert_allclose(
        package.transposed_products(x1[:, ::2], strided, m[::2])[0], x1[:, ::2] @ strided.T
    )
