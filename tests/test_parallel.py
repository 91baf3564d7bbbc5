"""``parallel = true`` on the package's own thread pool (templates/native/threads.c.j2): traced
graphs' large loops giving their serial results bit for bit at 1, 2 and 3 threads, kernels with
``numba.prange`` giving numba's, numba absent, thread counts, fork and concurrent callers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numba
import numpy as np
import pytest

from aotbuild.build import build
from aotbuild.errors import CompileError, ConfigError
from aotbuild.progress import Progress

from .conftest import load_package, write_project

KERNELS = """
import numpy as np
from numba import njit, prange


def scale(x, out):
    for i in prange(x.shape[0]):
        out[i] = np.sin(x[i]) * 2.0 + i


@njit(parallel=True)
def total(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i] * x[i]
    return s


def grid(a):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.0 + i - j
    return out


@njit(parallel=True)
def row_total(row):
    t = 0.0
    for j in prange(row.shape[0]):
        t += row[j]
    return t


def nested(a):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        out[i] = row_total(a[i])
    return out


def chain(x, y):
    return np.exp(-x * x) * np.sin(y) + 2.0 * x


def huge(x):
    return np.sin(x * 1e30) + 1.0


def outer(a, b):
    return (a[:, None] * 2.0 + b[None, :]) * 0.5


def sums(x, m, z):
    return np.sum(x), np.sum(x * x + 1.0), m.sum(), np.mean(m), np.sum(z)


def sums32(x):
    return np.sum(x)


def axis_sums(m, c):
    return (
        m.sum(axis=1),
        np.mean(m * m, axis=-1),
        m.max(axis=1),
        c.sum(axis=(1, 2)),
        np.sum(m, axis=1, keepdims=True),
        np.prod(m > 0.5, axis=1),
    )


def extremes(x, m, k):
    return (
        np.max(x), np.min(x), np.any(x > 3.5), np.all(x > -3.5), np.max(m), np.sum(k), np.min(k), np.any(m < -4.0),
        np.max(np.abs(x - 1.0)), np.prod(k | 1), np.max(m * 2.0), np.any(m > m[0]),
    )


def column_sums(m, c):
    return (
        m.sum(axis=0),
        np.mean(m * m, axis=0),
        m.min(axis=0),
        c.sum(axis=(0, 1)),
        np.sum(m, axis=0, keepdims=True),
        np.any(m > 2.5, axis=0),
        c.max(axis=1),
        np.mean(c * c, axis=0),
    )


def checked(x):
    s = 0.0
    for i in prange(x.shape[0]):
        if x[i] < 0:
            raise ValueError("a negative value")
        s += x[i]
    return s
"""

GRAPHS = """
[package]
name = "parallel_ext"

[graphs.scale]
function = "kernels:scale"
signature = "none(float64[:], float64[:])"
mode = "kernel"
parallel = true

[graphs.total]
function = "kernels:total"
signature = "float64(float64[:])"
mode = "kernel"
nogil = true

[graphs.grid]
function = "kernels:grid"
signature = "float64[:, :](float64[:, :])"
mode = "kernel"
parallel = true

[graphs.nested]
function = "kernels:nested"
signature = "float64[:](float64[:, :])"
mode = "kernel"
parallel = true

[graphs.checked]
function = "kernels:checked"
signature = "float64(float64[:])"
mode = "kernel"
parallel = true

[graphs.chain]
function = "kernels:chain"
signature = "float64[:](float64[:], float64[:])"
parallel = true

[graphs.chain_serial]
function = "kernels:chain"
signature = "float64[:](float64[:], float64[:])"

[graphs.huge]
function = "kernels:huge"
signature = "float64[:](float64[:])"
parallel = true

[graphs.outer]
function = "kernels:outer"
signature = "float64[:, :](float64[:], float64[:])"
parallel = true

[graphs.sums]
function = "kernels:sums"
signature = "Tuple(float64, float64, float64, float64, complex128)(float64[:], float64[:, :], complex128[:])"
parallel = true

[graphs.sums_serial]
function = "kernels:sums"
signature = "Tuple(float64, float64, float64, float64, complex128)(float64[:], float64[:, :], complex128[:])"

[graphs.sums32]
function = "kernels:sums32"
signature = "float32(float32[:])"
parallel = true

[graphs.axis_sums]
function = "kernels:axis_sums"
signature = "Tuple(float64[:], float64[:], float64[:], float64[:], float64[:, :], int64[:])(float64[:, :], float64[:, :, :])"
parallel = true

[graphs.extremes]
function = "kernels:extremes"
signature = "Tuple(float64, float64, bool, bool, float64, int64, int64, bool, float64, int64, float64, bool)(float64[:], float64[:, :], int64[:])"
parallel = true

[graphs.extremes_serial]
function = "kernels:extremes"
signature = "Tuple(float64, float64, bool, bool, float64, int64, int64, bool, float64, int64, float64, bool)(float64[:], float64[:, :], int64[:])"

[graphs.column_sums]
function = "kernels:column_sums"
signature = "Tuple(float64[:], float64[:], float64[:], float64[:], float64[:, :], bool[:], float64[:, :], float64[:, :])(float64[:, :], float64[:, :, :])"
parallel = true

[graphs.column_sums_serial]
function = "kernels:column_sums"
signature = "Tuple(float64[:], float64[:], float64[:], float64[:], float64[:, :], bool[:], float64[:, :], float64[:, :])(float64[:, :], float64[:, :, :])"

[graphs.axis_sums_serial]
function = "kernels:axis_sums"
signature = "Tuple(float64[:], float64[:], float64[:], float64[:], float64[:, :], int64[:])(float64[:, :], float64[:, :, :])"

[graphs.outer_serial]
function = "kernels:outer"
signature = "float64[:, :](float64[:], float64[:])"
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("parallel"), GRAPHS, {"kernels.py": KERNELS})


@pytest.fixture(scope="module")
def built(project: Path):
    return build(project, out_dir=str(project.parent / "build"), progress=Progress(quiet=True))


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


@pytest.fixture(scope="module")
def kernels(project: Path):
    """The project's module, as Python runs it."""
    sys.path.insert(0, str(project.parent))
    try:
        import kernels
    finally:
        sys.path.remove(str(project.parent))
    return kernels


@pytest.fixture(scope="module")
def reference(kernels):
    """The same kernels under ``numba.njit(parallel=True)``."""
    jit = {name: numba.njit(parallel=True)(getattr(kernels, name)) for name in ("scale", "grid", "checked")}
    jit["nested"] = numba.njit(parallel=True)(kernels.nested)
    jit["total"] = kernels.total
    return jit


@pytest.fixture
def threads(package):
    """Restores the package's thread count after the test."""
    before = package.get_num_threads()
    yield package.set_num_threads
    package.set_num_threads(before)


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 1000, 100_003])
def test_prange_kernels_give_numbas_results(package, reference, threads, count: int, size: int) -> None:
    threads(count)
    x = np.linspace(-1.0, 1.0, size)
    out, expected = np.empty(size), np.empty(size)
    package.scale(x, out)
    reference["scale"](x, expected)
    np.testing.assert_array_equal(out, expected)
    package.scale(x[::-1], out)  # a strided view
    reference["scale"](x[::-1], expected)
    np.testing.assert_array_equal(out, expected)
    assert package.total(x) == pytest.approx(reference["total"](x), rel=1e-13, abs=1e-300)
    a = np.arange(size * 3, dtype=np.float64).reshape(size, 3)
    np.testing.assert_array_equal(package.grid(a), reference["grid"](a))
    np.testing.assert_array_equal(package.grid(a.T.copy().T), reference["grid"](a))
    np.testing.assert_allclose(package.nested(a), a.sum(axis=1), rtol=1e-14)


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("size", [0, 1, 7, 32_767, 32_768, 32_769, 100_003])
def test_traced_loops_give_their_serial_results(package, threads, count: int, size: int) -> None:
    """From PARALLEL_SIZE elements up the outermost loop is split among the threads; every
    element is computed as on one thread, so the bits are the serial graph's (and NumPy's where
    the steps are plain arithmetic)."""
    threads(count)
    rng = np.random.default_rng(size)
    x, y = rng.standard_normal(size), rng.standard_normal(size)
    for args in ((x, y), (x[::-1], y), (x, y[::-1])):  # contiguous and strided
        np.testing.assert_array_equal(package.chain(*args), package.chain_serial(*args))
    np.testing.assert_allclose(
        package.chain(x, y), np.exp(-x * x) * np.sin(y) + 2.0 * x, rtol=1e-14, atol=1e-15
    )
    np.testing.assert_array_equal(package.huge(x), np.sin(x * 1e30) + 1.0)  # the exact rerun
    a, b = x[: min(size, 400)], y[: min(size, 200)][::-1]  # up to 80,000 elements, broadcast
    np.testing.assert_array_equal(package.outer(a, b), package.outer_serial(a, b))
    np.testing.assert_array_equal(package.outer(a, b), (a[:, None] * 2.0 + b[None, :]) * 0.5)


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("size", [1, 100, 32_767, 32_768, 32_769, 250_007])
def test_parallel_sums_are_numpys_pairwise_sums(package, threads, count: int, size: int) -> None:
    """A float sum of 32768 values or more is split along NumPy's pairwise recursion, nodes
    summed on the threads and added as the recursion adds them: NumPy's bits, for any number
    of threads (and the serial graph's for strided inputs)."""
    threads(count)
    rng = np.random.default_rng(size)
    x = rng.standard_normal(size)
    m = rng.standard_normal((3, size // 3 + 1))
    z = x + 1j * x[::-1]
    expected = (np.sum(x), np.sum(x * x + 1.0), m.sum(), np.mean(m), np.sum(z))
    assert package.sums(x, m, z) == expected
    strided = (x[::-1], m[:, ::2], z[::2])
    assert package.sums(*strided) == package.sums_serial(*strided)
    x32 = x.astype(np.float32)
    assert package.sums32(x32) == np.sum(x32)
    assert package.sums32(x32[::3]) == np.sum(x32[::3].copy())


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("shape", [(1, 5), (3, 7), (100, 327), (330, 100), (7, 50_000), (50_000, 3)])
def test_reductions_along_trailing_axes_split_the_rows(package, kernels, threads, count: int, shape) -> None:
    """With trailing axes reduced and others kept, the rows are split among the threads, each
    result computed as on one thread: NumPy's bits for contiguous inputs, the serial graph's
    for strided ones."""
    threads(count)
    rng = np.random.default_rng(shape[0])
    m = rng.standard_normal(shape)
    c = rng.standard_normal((*shape, 3))
    for got, want in zip(package.axis_sums(m, c), kernels.axis_sums(m, c), strict=True):
        np.testing.assert_array_equal(got, want)
    strided = (m[::-1, ::2], c[:, ::-1])
    for got, want in zip(package.axis_sums(*strided), package.axis_sums_serial(*strided), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("size", [5, 32_767, 32_768, 100_003])
def test_whole_array_extremes_any_and_integer_sums_and_products_split_the_first_axis(
    package, kernels, threads, count: int, size: int
) -> None:
    """min, max, any, all and integer sums and products of a whole array or fused value give the
    same result in any grouping: each thread takes a share of the first axis; NaN and signed
    zeros as on one thread."""
    threads(count)
    rng = np.random.default_rng(size)
    x = rng.standard_normal(size)
    m = rng.standard_normal((size // 7 + 1, 7))
    k = rng.integers(-(2**62), 2**62, size=size)  # the sum wraps, as NumPy's does
    assert package.extremes(x, m, k) == kernels.extremes(x, m, k)
    strided = (x[::-2], m[::2, ::-1], k[1::3])
    assert package.extremes(*strided) == package.extremes_serial(*strided)
    x[size // 2] = np.nan
    x[: size // 3] = -0.0
    got, want = package.extremes(x, m, k), package.extremes_serial(x, m, k)
    assert np.isnan(got[0]) and np.isnan(got[1]) and np.isnan(got[8])
    assert got[2:8] == want[2:8] and got[9:] == want[9:]


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize(
    "shape", [(1, 5), (3, 300), (16, 2048), (15, 3001), (330, 100), (7, 50_000), (50_000, 3)]
)
def test_reductions_keeping_the_last_axis_split_it(package, kernels, threads, count: int, shape) -> None:
    """With the last axis kept, each thread takes a share of it, each result adding the rows in
    NumPy's order: NumPy's bits for contiguous inputs, the serial graph's for strided and
    broadcast ones; a last axis too short to split stays on one thread."""
    threads(count)
    rng = np.random.default_rng(shape[1])
    m = rng.standard_normal(shape)
    c = rng.standard_normal((3, *shape))
    for got, want in zip(package.column_sums(m, c), kernels.column_sums(m, c), strict=True):
        np.testing.assert_array_equal(got, want)
    strided = (m[::-1, ::2], np.broadcast_to(c[:, :1, ::-1], c.shape))
    for got, want in zip(package.column_sums(*strided), package.column_sums_serial(*strided), strict=True):
        np.testing.assert_array_equal(got, want)


def test_every_reduction_of_the_parallel_graphs_runs_on_the_threads(built) -> None:
    """Each reduction Op the parallel graphs call (of arrays and of fused values, keeping the
    last axis or not, whole or by rows) has a loop on the threads; the serial graphs' have none."""
    modules = built.package_dir / "_modules"
    kinds = ("sum", "mean", "prod", "min", "max", "any", "all")
    for graph in ("axis_sums", "column_sums", "extremes", "sums"):
        for serial in (False, True):
            for path in modules.glob(f"aot_graph_{graph}{'_serial' * serial}_[0-9a-f]*.py"):
                called = re.findall(r'declare\("(aot_(\w+?)_[0-9a-f]{16}):', path.read_text())
                reductions = [symbol for symbol, kind in called if kind.removesuffix("_fused") in kinds]
                assert len(reductions) >= 3, path.name
                for symbol in reductions:
                    assert ("prange(" in (modules / f"{symbol}.py").read_text()) != serial, symbol


def test_one_thread_sums_in_the_serial_order(package, threads) -> None:
    threads(1)
    x = np.random.default_rng(5).standard_normal(10_001)
    serial = 0.0
    for value in x:
        serial += value * value
    assert package.total(x) == serial


@pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")
def test_exceptions_in_prange_loops_are_numbas(package, reference) -> None:
    """numba runs a loop that can raise serially; the exception is the serial code's."""
    x = np.linspace(0.0, 1.0, 1001)
    assert package.checked(x) == reference["checked"](x)
    x[700] = -1.0
    for function in (package.checked, reference["checked"]):
        with pytest.raises(ValueError, match="a negative value"):
            function(x)


def test_thread_counts(package, threads) -> None:
    threads(5)
    assert package.get_num_threads() == 5
    with pytest.raises(ValueError, match="at least 1"):
        package.set_num_threads(0)
    assert package.get_num_threads() == 5


def test_python_threads_calling_at_once_get_their_own_results(package, threads) -> None:
    threads(2)
    inputs = [np.random.default_rng(seed).random(50_000) for seed in range(8)]
    expected = [float((x * x).sum()) for x in inputs]
    results: dict[int, list[float]] = {}

    def work(index: int) -> None:
        results[index] = [package.total(inputs[index]) for _ in range(20)]

    workers = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not any(worker.is_alive() for worker in workers)
    for index, values in results.items():
        assert values == pytest.approx([expected[index]] * 20, rel=1e-12)
    assert len(results) == 8


def _run(built, code: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(built.package_dir.parent), **environment}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=120
    )


def test_without_numba_and_with_the_environments_thread_count(built) -> None:
    done = _run(
        built,
        """
        import sys
        sys.modules["numba"] = None
        import numpy as np
        import parallel_ext
        x = np.linspace(0.0, 1.0, 100_000)
        out = np.empty_like(x)
        parallel_ext.scale(x, out)
        assert np.array_equal(out, np.sin(x) * 2.0 + np.arange(x.size))
        print(parallel_ext.get_num_threads(), parallel_ext.total(x) == parallel_ext.total(x))
        """,
        AOTBUILD_NUM_THREADS="3",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "True"]
    default = _run(built, "import parallel_ext; print(parallel_ext.get_num_threads())")
    assert int(default.stdout) == len(os.sched_getaffinity(0))


def test_a_forked_child_runs_parallel_kernels(built) -> None:
    done = _run(
        built,
        """
        import os
        import numpy as np
        import parallel_ext
        parallel_ext.set_num_threads(2)
        x = np.arange(100_000.0)
        expected = parallel_ext.total(x)  # the parent's pool is running
        pid = os.fork()
        if pid == 0:
            os._exit(0 if parallel_ext.total(x) == expected else 1)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), parallel_ext.total(x) == expected)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True"]


def test_ctrl_c_during_parallel_calls_leaves_a_working_pool(built) -> None:
    """SIGINT while the pool runs a kernel: Python raises KeyboardInterrupt once the call returns
    (the pool's one worker at 2 threads blocks the signal), the next parallel calls run on the
    same pool, and the process exits with no thread left behind."""
    done = _run(
        built,
        """
        import os, signal, threading
        # A background job (as CI may run the suite) inherits SIGINT ignored, and Python then
        # never raises KeyboardInterrupt: take Python's own handler back.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np
        import parallel_ext
        parallel_ext.set_num_threads(2)
        x = np.linspace(0.0, 1.0, 2_000_000)
        out = np.empty_like(x)
        try:
            threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
            for _ in range(2000):
                parallel_ext.scale(x, out)
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        parallel_ext.scale(x, out)
        print(bool(np.allclose(out, np.sin(x) * 2.0 + np.arange(x.size), rtol=1e-12, atol=0.0)))
        y = np.arange(100_000.0)
        print(abs(parallel_ext.total(y) - float((y * y).sum())) < 1e-3)
        # The pool's threads block SIGINT (bit 2 of SigBlk), so only Python's thread takes it.
        blocked = []
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/comm") as comm:
                if comm.read().strip() != "aotbuild-pool":
                    continue
            with open(f"/proc/self/task/{task}/status") as status:
                mask = next(line for line in status if line.startswith("SigBlk:")).split()[1]
            blocked.append(bool(int(mask, 16) & (1 << (signal.SIGINT - 1))))
        print(len(blocked), all(blocked))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["interrupted", "True", "True", "1", "True"]


def test_parallel_is_true_or_false(tmp_path: Path) -> None:
    toml = '[package]\nname = "p_ext"\n\n[graphs.f]\nfunction = "m:f"\nsignature = "float64(float64[:])"\n'
    project = write_project(
        tmp_path, toml + 'parallel = "yes"\n', {"m.py": "def f(x):\n    return x.sum()\n"}
    )
    with pytest.raises(ConfigError, match="parallel: expected true or false"):
        build(project, progress=Progress(quiet=True))


def test_numbas_thread_functions_inside_compiled_code_are_a_build_error(tmp_path: Path) -> None:
    """numba reaches them through an address of the compiling process, which the package would
    call at run time: refused, pointing at the package's own functions."""
    toml = '[package]\nname = "p_ext"\n\n[graphs.f]\nfunction = "m:f"\nsignature = "float64(float64[:])"\nmode = "kernel"\n'
    source = "import numba\n\n\ndef f(x):\n    return numba.get_num_threads() + x[0]\n"
    project = write_project(tmp_path, toml, {"m.py": source})
    with pytest.raises(
        CompileError, match=r"reaches through an address .* get_num_threads / set_num_threads"
    ):
        build(project, progress=Progress(quiet=True))
