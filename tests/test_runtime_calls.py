"""Calls at run time: outputs own their memory, threads, and no leaks.

Arrays a graph returns own their memory through a small base object and free it with the last
reference; calls from many threads give the serial results, and threads that end leave no memory behind
(the runtime keeps freed blocks per thread for reuse); many calls — including calls that
raise — leave the runtime's allocation counters balanced and the process's memory flat.
"""

from __future__ import annotations

import gc
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress

import numpy as np
import pytest

from .conftest import load_package


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


@pytest.fixture
def counted(package):
    """The runtime's allocation counters, on for the test."""
    package._native._count_allocations(True)
    yield package._native._allocations
    package._native._count_allocations(False)


def outstanding(allocations) -> int:
    counts = allocations()
    return counts["alloc"] - counts["free"] + counts["mi_alloc"] - counts["mi_free"]


def test_returned_arrays_own_their_memory(package, counted) -> None:
    x = np.linspace(0.0, 1.0, 1000)
    before = outstanding(counted)
    result = package.scaled(x, 2.0)
    assert (
        type(result.base).__name__ == "Memory" and result.base.__class__.__module__ == "runtime_ext._native"
    )
    assert result.flags.owndata is False and result.flags.writeable and result.flags.c_contiguous
    assert outstanding(counted) == before + 2  # one block, one meminfo
    view = result[10:20]
    del result
    gc.collect()
    assert outstanding(counted) == before + 2, "a view keeps the memory alive"
    assert view[0] == 2.0 * x[10]
    del view
    assert outstanding(counted) == before


def test_arguments_keep_their_reference_counts(package) -> None:
    x, y = np.ones(50), np.zeros(50)
    counts = sys.getrefcount(x), sys.getrefcount(y)
    for _ in range(100):
        total, largest, difference = package.summary(x, y)
        del difference
        with pytest.raises(ValueError):
            package.broadcast_add(x.reshape(5, 10), y.reshape(10, 5))
    assert (sys.getrefcount(x), sys.getrefcount(y)) == counts


def test_scalars_and_tuples_of_the_declared_dtype(package) -> None:
    total, largest, difference = package.summary(np.arange(4.0), np.zeros(4))
    assert type(total) is np.float64 and type(largest) is np.float64
    assert (total, largest) == (14.0, 3.0) and difference.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert type(package.int_division(7, 2)) is np.int64


def test_scalars_accept_zero_dimensional_arrays(package) -> None:
    assert package.int_division(np.array(7), np.array(2, np.int8)) == 3
    assert package.float_division(np.array(1.0), 4) == 0.25
    assert package.flagged(np.ones(2), np.array(False), np.array(3)) == 6.0
    for bad in (np.array([7]), np.ones((1, 1)), None, "7", 7.5):
        with pytest.raises(TypeError, match=r"int_division\(\) argument 'a' must be an integer"):
            package.int_division(bad, 2)
    with pytest.raises(TypeError, match=r"argument 'a' must be a real number"):
        package.float_division(np.array([1.0]), 4.0)


@pytest.mark.parametrize("graph", ["heavy", "heavy_with_gil", "smooth", "scaled", "summary"])
def test_eight_threads_give_the_serial_results(package, graph: str) -> None:
    rng = np.random.default_rng(0)
    inputs = [np.ascontiguousarray(rng.normal(size=2000)) for _ in range(32)]
    call = {
        "heavy": lambda x: package.heavy(x, 3),
        "heavy_with_gil": lambda x: package.heavy_with_gil(x, 3),
        "smooth": package.smooth,
        "scaled": lambda x: package.scaled(x, 1.5),
        "summary": lambda x: package.summary(x, x[::-1].copy()),  # a tuple of results
    }[graph]
    serial = [call(x) for x in inputs]
    with ThreadPoolExecutor(8) as threads:
        for _ in range(3):
            threaded = list(threads.map(call, inputs))
            for expected, got in zip(serial, threaded, strict=True):
                as_tuple = lambda r: r if isinstance(r, tuple) else (r,)  # noqa: E731
                for want, have in zip(as_tuple(expected), as_tuple(got), strict=True):
                    np.testing.assert_array_equal(have, want)


def test_threads_raise_their_own_exceptions(package) -> None:
    x = np.arange(5.0)

    def call(i: int) -> object:
        try:
            return package.runtime_values(x, i)
        except IndexError as exc:
            return exc.args

    with ThreadPoolExecutor(8) as threads:
        results = list(threads.map(call, range(-200, 200)))
    for i, result in zip(range(-200, 200), results, strict=True):
        expected = x[i] if 0 <= i < 5 else ("runtime_values: index", i, "outside", 5, 0.0)
        assert result == expected


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        import os

        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_many_calls_leak_nothing(package, counted) -> None:
    x, y = np.linspace(1.0, 2.0, 64), np.linspace(0.0, 1.0, 64)
    mismatched = np.ones((3, 2))

    def calls(count: int) -> None:
        for i in range(count):
            package.scaled(x, 2.0)
            package.summary(x, y)
            package.smooth(x)
            with suppress(IndexError):
                package.runtime_values(x, -1 - i)  # an exception with run-time values
            with suppress(ValueError):
                package.broadcast_add(mismatched, mismatched.T)
            with suppress(ValueError):
                package.static_error(x[:0])

    calls(2_000)  # warm: allocator pools, interned objects
    gc.collect()
    before, rss, blocks = outstanding(counted), rss_bytes(), sys.getallocatedblocks()
    calls(20_000)
    gc.collect()
    assert outstanding(counted) == before
    # Python objects: an exception's boxed run-time values once leaked here, 2 per call.
    assert sys.getallocatedblocks() - blocks < 1_000, "Python objects left behind by the calls"
    assert rss_bytes() - rss < 4 * 2**20, "RSS grew by more than 4 MiB over 20,000 rounds of calls"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_threads_that_end_leave_no_blocks_behind(package) -> None:
    """The runtime keeps freed blocks of 1 KiB to 256 KiB per thread, for the thread's next
    allocation; a thread that ends frees its own (else 200 threads would keep ~50 MB here)."""
    x = np.linspace(0.0, 1.0, 30_000)  # results of 240 KB: blocks the runtime keeps

    def work() -> None:
        for _ in range(4):
            assert package.scaled(x, 2.0)[-1] == 2.0

    def threads(count: int) -> None:
        for _ in range(count):
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()

    threads(20)  # warm: the C library's arenas
    gc.collect()
    rss = rss_bytes()
    threads(200)
    gc.collect()
    assert rss_bytes() - rss < 8 * 2**20, "threads that ended left their blocks behind"
