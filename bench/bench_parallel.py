"""``parallel = true`` on the package's own thread pool, against NumPy and numba's ``parallel=True``.

A project (``--target host``) is built once: kernels with ``prange`` — a compute-bound loop
(``2 sin x``), a memory-bound one (``a x + y``) and a sum of squares — and traced graphs — a
fused chain with vector math (``exp(-x²) sin y + 2x``), ``3 x + y``, ``np.sum(x)``, row and
column sums, ``np.max(x)`` and reductions of fused values — each with ``parallel = true``, and
twins without it. Then, in this one process, each workload on 1e7 float64 values: NumPy (its
BLAS on one thread, as its other loops), numba's ``njit(parallel=True)`` of the same functions
at 1 and 2 threads (``numba.set_num_threads``), and the package at 1 and 2 threads
(``set_num_threads``) — interleaved rounds, best of 7, results checked first. Last, the cost of
a tiny call (10 values) with ``parallel = true`` against the twin without it: a traced graph's
loop that small, and a ``prange`` loop whose last call on the same shapes took under 2 µs, stay
on the calling thread.

    python bench/bench_parallel.py      # writes its section of BENCHMARKS.md
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import measured_by, write_section

# NumPy on one core, as the comparison means it: OpenBLAS's threads (np.dot) busy-wait after a
# call and took a core from the next measurements (2 threads then ran no faster than 1).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

KERNELS = """
import numpy as np
from numba import prange


def sines(x, out):
    for i in prange(x.shape[0]):
        out[i] = 2.0 * np.sin(x[i])


def axpy(a, x, y, out):
    for i in prange(x.shape[0]):
        out[i] = a * x[i] + y[i]


def sum_squares(x):
    total = 0.0
    for i in prange(x.shape[0]):
        total += x[i] * x[i]
    return total


def chain(x, y):
    return np.exp(-x * x) * np.sin(y) + 2.0 * x


def traced_axpy(x, y):
    return 3.0 * x + y


def traced_sum(x):
    return np.sum(x)


def row_sums(m):
    return m.sum(axis=1)


def column_sums(m):
    return m.sum(axis=0)


def traced_max(x):
    return np.max(x)


def fused_columns(m):
    return (m * m).sum(axis=0)


def fused_max(x, y):
    return np.max(np.abs(x - y))
"""

GRAPHS = """
[package]
name = "parallel_bench_ext"
target = "host"

[graphs.sines]
function = "kernels:sines"
signature = "none(float64[::1], float64[::1])"
mode = "kernel"
parallel = true

[graphs.axpy]
function = "kernels:axpy"
signature = "none(float64, float64[::1], float64[::1], float64[::1])"
mode = "kernel"
parallel = true

[graphs.sum_squares]
function = "kernels:sum_squares"
signature = "float64(float64[::1])"
mode = "kernel"
parallel = true

[graphs.sum_squares_serial]
function = "kernels:sum_squares"
signature = "float64(float64[::1])"
mode = "kernel"

[graphs.chain]
function = "kernels:chain"
signature = "float64[::1](float64[::1], float64[::1])"
parallel = true

[graphs.chain_serial]
function = "kernels:chain"
signature = "float64[::1](float64[::1], float64[::1])"

[graphs.traced_axpy]
function = "kernels:traced_axpy"
signature = "float64[::1](float64[::1], float64[::1])"
parallel = true

[graphs.traced_sum]
function = "kernels:traced_sum"
signature = "float64(float64[::1])"
parallel = true

[graphs.row_sums]
function = "kernels:row_sums"
signature = "float64[::1](float64[:, ::1])"
parallel = true

[graphs.column_sums]
function = "kernels:column_sums"
signature = "float64[::1](float64[:, ::1])"
parallel = true

[graphs.traced_max]
function = "kernels:traced_max"
signature = "float64(float64[::1])"
parallel = true

[graphs.fused_columns]
function = "kernels:fused_columns"
signature = "float64[::1](float64[:, ::1])"
parallel = true

[graphs.fused_max]
function = "kernels:fused_max"
signature = "float64(float64[::1], float64[::1])"
parallel = true
"""

SIZE = 10_000_000
ROUNDS = 7


def build(work: Path) -> None:
    (work / "kernels.py").write_text(KERNELS)
    (work / "graphs.toml").write_text(GRAPHS)
    subprocess.run([sys.executable, "-m", "aotbuild", "compile", str(work / "graphs.toml"), "-q"], check=True)
    sys.path[:0] = [str(work / "build"), str(work)]


def best_of(runs: dict[str, Callable[[], object]], rounds: int = ROUNDS) -> dict[str, float]:
    """Seconds of each run, best of ``rounds`` interleaved rounds."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def workloads() -> dict[str, dict[str, float]]:
    import kernels
    import numba
    import numpy as np
    import parallel_bench_ext as package

    names = (
        "sines",
        "axpy",
        "sum_squares",
        "chain",
        "traced_axpy",
        "traced_sum",
        "row_sums",
        "column_sums",
        "traced_max",
        "fused_columns",
        "fused_max",
    )
    jit = {name: numba.njit(parallel=True)(getattr(kernels, name)) for name in names}
    x = np.random.default_rng(0).random(SIZE)
    y = np.random.default_rng(1).random(SIZE)
    out = np.empty(SIZE)
    m = x.reshape(1000, SIZE // 1000)
    cases = {
        "sines": (lambda: np.multiply(2.0, np.sin(x, out=out), out=out), "sines", (x, out)),
        "axpy": (lambda: np.add(np.multiply(3.0, x, out=out), y, out=out), "axpy", (3.0, x, y, out)),
        "sum_squares": (lambda: np.dot(x, x), "sum_squares", (x,)),
        "chain": (lambda: kernels.chain(x, y), "chain", (x, y)),
        "traced_axpy": (lambda: kernels.traced_axpy(x, y), "traced_axpy", (x, y)),
        "traced_sum": (lambda: np.sum(x), "traced_sum", (x,)),
        "row_sums": (lambda: m.sum(axis=1), "row_sums", (m,)),
        "column_sums": (lambda: m.sum(axis=0), "column_sums", (m,)),
        "traced_max": (lambda: np.max(x), "traced_max", (x,)),
        "fused_columns": (lambda: kernels.fused_columns(m), "fused_columns", (m,)),
        "fused_max": (lambda: kernels.fused_max(x, y), "fused_max", (x, y)),
    }
    for name, (_, graph, args) in cases.items():  # results first
        expected = jit[graph](*args)
        first = out.copy() if expected is None else expected
        package.set_num_threads(2)
        got = getattr(package, graph)(*args)
        second = out.copy() if got is None else got
        assert np.allclose(first, second, rtol=1e-12), name
    for count in (1, 2):
        package.set_num_threads(count)
        assert package.traced_sum(x) == np.sum(x)  # NumPy's bits
        assert np.array_equal(package.row_sums(m), m.sum(axis=1))
        assert np.array_equal(package.column_sums(m), m.sum(axis=0))
        assert package.traced_max(x) == np.max(x)
        assert np.array_equal(package.fused_columns(m), kernels.fused_columns(m))
        assert package.fused_max(x, y) == kernels.fused_max(x, y)
    figures = {}
    for name, (numpy_run, graph, args) in cases.items():
        compiled = getattr(package, graph)

        def threads(count: int, run: Callable[..., object], args: tuple = args) -> Callable[[], object]:
            def call() -> object:
                package.set_num_threads(count)
                numba.set_num_threads(count)
                return run(*args)

            return call

        figures[name] = best_of(
            {
                "numpy": numpy_run,
                "numba_1": threads(1, jit[graph]),
                "numba_2": threads(2, jit[graph]),
                "aotbuild_1": threads(1, compiled),
                "aotbuild_2": threads(2, compiled),
            }
        )
    package.set_num_threads(2)
    tiny = np.random.default_rng(2).random(10)
    assert package.sum_squares(tiny) == package.sum_squares_serial(tiny)
    calls = 100_000

    def loop(function: Callable[[object], object]) -> Callable[[], object]:
        def run() -> None:
            for _ in range(calls):
                function(tiny)

        return run

    tiny_best = best_of({"parallel": loop(package.sum_squares), "serial": loop(package.sum_squares_serial)})
    figures["tiny"] = {name: seconds / calls for name, seconds in tiny_best.items()}
    tiny_y = np.random.default_rng(3).random(10)
    assert np.array_equal(package.chain(tiny, tiny_y), package.chain_serial(tiny, tiny_y))

    def pair_loop(function: Callable[[object, object], object]) -> Callable[[], object]:
        def run() -> None:
            for _ in range(calls):
                function(tiny, tiny_y)

        return run

    traced_best = best_of({"parallel": pair_loop(package.chain), "serial": pair_loop(package.chain_serial)})
    figures["tiny_traced"] = {name: seconds / calls for name, seconds in traced_best.items()}
    return figures


def section(figures: dict[str, dict[str, float]]) -> str:
    rows = []
    titles = {
        "sines": "kernel: `out[i] = 2 sin(x[i])` in `prange` (compute-bound)",
        "axpy": "kernel: `out[i] = a x[i] + y[i]` in `prange` (memory-bound: 24 bytes an element)",
        "sum_squares": "kernel: `total += x[i] * x[i]` in `prange` (a reduction)",
        "chain": "traced: `np.exp(-x * x) * np.sin(y) + 2.0 * x` (one fused loop, vector math)",
        "traced_axpy": "traced: `3.0 * x + y` (memory-bound; the result allocated, as NumPy's)",
        "traced_sum": "traced: `np.sum(x)` (NumPy's pairwise sum, to the bit, at any thread count)",
        "row_sums": "traced: `m.sum(axis=1)`, m of shape (1000, 10000) (NumPy's bits)",
        "column_sums": "traced: `m.sum(axis=0)`, the same m (NumPy's bits: rows added in order)",
        "traced_max": "traced: `np.max(x)` (exact in any grouping: a share of x per thread)",
        "fused_columns": "traced: `(m * m).sum(axis=0)` (fused: no m * m array; NumPy's bits)",
        "fused_max": "traced: `np.max(np.abs(x - y))` (fused: no temporary; a share of x per thread)",
    }
    for name, title in titles.items():
        f = figures[name]
        rows.append(
            f"| {title} | {f['numpy'] * 1e3:.2f} | {f['numba_1'] * 1e3:.2f} | {f['numba_2'] * 1e3:.2f} | "
            f"{f['aotbuild_1'] * 1e3:.2f} | **{f['aotbuild_2'] * 1e3:.2f}** | "
            f"{f['aotbuild_1'] / f['aotbuild_2']:.2f}× | {f['numpy'] / f['aotbuild_2']:.2f}× | "
            f"{f['numba_2'] / f['aotbuild_2']:.2f}× |"
        )
    tiny, tiny_traced = figures["tiny"], figures["tiny_traced"]
    axpy_bandwidth = 24 * SIZE / figures["axpy"]["aotbuild_1"] / 1e9
    return "\n".join(
        [
            "## `parallel = true`: the package's own threads, against NumPy and numba `parallel=True`",
            "",
            measured_by("bench_parallel.py"),
            "",
            "1e7 float64 values, milliseconds, best of 7 interleaved rounds in one process; numba's "
            "figures from `njit(parallel=True)` of the same functions with `numba.set_num_threads`; "
            "NumPy's BLAS (`np.dot`) on one thread, as NumPy's other loops (`OPENBLAS_NUM_THREADS=1`: "
            "its threads busy-wait after a call, and took a core from the measurements after it).",
            "",
            "| kernel | NumPy | numba, 1 thread | numba, 2 threads | aotbuild, 1 thread | aotbuild, 2 threads | aotbuild 1 → 2 threads | NumPy ÷ aotbuild (2) | numba (2) ÷ aotbuild (2) |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"A call of the parallel sum on 10 values: {tiny['parallel'] * 1e9:.0f} ns, against "
            f"{tiny['serial'] * 1e9:.0f} ns for the same kernel without `parallel = true` "
            f"({tiny['parallel'] / tiny['serial']:.2f}× the time). A loop whose last call on the same "
            "shapes took under 2 µs runs on the calling thread, with no hand-off to the pool; what remains is numba's lowering of a "
            "`prange` loop, made for any size: the schedule allocated, the GIL ensured and "
            "released around it, its reduction array. The traced chain on 10 values: "
            f"{tiny_traced['parallel'] * 1e9:.0f} ns with `parallel = true`, "
            f"{tiny_traced['serial'] * 1e9:.0f} ns without "
            f"({tiny_traced['parallel'] / tiny_traced['serial']:.3f}× the time): below "
            "32768 elements its loop stays on the calling thread.",
            "",
            "What more cores would give (a model: only 2 cores here). Compute-bound loops such as "
            "`sines` scale with cores until the chip's clock drops under load: expect close to "
            "linear gains to 8-16 cores and 70-90% efficiency beyond. Memory-bound loops stop at "
            "the memory bandwidth: one thread here streams "
            f"{axpy_bandwidth:.1f} GB/s through `axpy`; a server socket gives 100-300 GB/s "
            "(8-12 DDR4/DDR5 channels), which 8-20 such threads saturate — `axpy` and the sum "
            "should gain 5-15× on 16-64 cores, not 64×, and no more than the bandwidth ratio.",
        ]
    )


def main() -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-parallel-") as folder:
        os.environ.setdefault("AOTBUILD_CACHE_DIR", str(Path(folder) / "cache"))
        build(Path(folder))
        figures = workloads()
    print(json.dumps(figures, indent=1), file=sys.stderr)
    text = section(figures)
    print(text)
    write_section("bench_parallel", text)
    print(f"bench_parallel.py: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
