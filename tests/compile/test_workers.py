"""Compile jobs in worker processes: results come back whole, workers are recycled, a worker
with another toolchain refuses, numba's errors travel back with their location; a handful of
jobs compile in the build's process, helped by workers once they are up."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time

import pytest

from aotbuild.compile import workers
from aotbuild.compile.compiler import CompileFlags, CompileRequest
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config.signature import parse_signature


def request(number: int, body: str = "return x * {n}.0 + 1.0") -> CompileRequest:
    return CompileRequest(
        f"aot_job_{number:016x}",
        f"def f(x):\n    {body.format(n=number)}\n",
        "f",
        parse_signature("float64(float64)"),
        CompileFlags(),
        resolve_target("generic"),
        toolchain_key(),
    )


@pytest.fixture(autouse=True)
def always_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers even for a handful of Ops (a build compiles so few in its own process)."""
    monkeypatch.setattr(workers, "IN_PROCESS_UP_TO", 0)


def test_few_ops_compile_in_the_build_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "IN_PROCESS_UP_TO", 16)
    assert workers.local_workers(16, jobs=2, executor=None) == 0
    assert workers.local_workers(17, jobs=2, executor=None) == 2
    assert workers.local_workers(17, jobs=1, executor=None) == 0
    assert workers.local_workers(100, jobs=8, executor="dask://h:1") == 0
    results = list(workers.run_jobs([request(n) for n in range(3)], jobs=2))
    assert {r.worker for r in results} == {os.getpid()}


def slowly(request: CompileRequest) -> workers.JobResult:
    """This process compiling half a second slower, so that the helpers, once up, take some."""
    time.sleep(0.5)
    return workers.compile_job(request)


def helpers_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "aotbuild-compile-helpers" and t.is_alive()]


def test_a_few_jobs_are_helped_by_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "IN_PROCESS_UP_TO", 16)
    assert workers.local_workers(workers.HELPED_FROM, jobs=2, executor=None) == 0
    calls = []
    monkeypatch.setattr(workers, "_helped", lambda requests, helpers: calls.append(helpers) or iter(()))
    list(workers.run_jobs([request(n) for n in range(workers.HELPED_FROM)], jobs=2))
    list(workers.run_jobs([request(n) for n in range(workers.HELPED_FROM - 1)], jobs=2))
    list(workers.run_jobs([request(n) for n in range(workers.HELPED_FROM)], jobs=1))
    assert calls == [1]


def test_helpers_take_jobs_once_up_and_every_job_is_answered_once() -> None:
    requests = [request(n) for n in range(12)]
    answered = list(workers._helped(requests, 1, slowly))
    assert sorted(r.symbol for r in answered) == sorted(r.symbol for r in requests)
    here = [r for r in answered if r.worker == os.getpid()]
    assert here and len(here) < len(answered), "the build's process started; a helper took some"
    for result in answered:
        alone = workers.compile_job(next(r for r in requests if r.symbol == result.symbol))
        assert result.compiled is not None and alone.compiled is not None
        assert result.compiled.data == alone.compiled.data
    for thread in helpers_alive():
        thread.join(10.0)
    assert not helpers_alive()


def test_helpers_that_cannot_start_leave_every_job_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_workers(*args: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(workers, "_RecyclingPool", no_workers)
    answered = list(workers._helped([request(n) for n in range(4)], 1, slowly))
    assert len(answered) == 4 and {r.worker for r in answered} == {os.getpid()}


def test_a_helper_whose_pool_fails_gives_its_jobs_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A submit that fails (the pool broke) leaves that job and those running to this process."""
    real = workers._RecyclingPool

    class Breaking(real):  # type: ignore[misc, valid-type]
        submitted = 0

        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            Breaking.submitted += 1
            if Breaking.submitted > 1:
                raise ValueError("Pool not running")
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(workers, "_RecyclingPool", Breaking)
    requests = [request(n) for n in range(50, 56)]
    answered: list[workers.JobResult] = []
    thread = threading.Thread(target=lambda: answered.extend(workers._helped(requests, 2, slowly)))
    thread.start()
    thread.join(60.0)
    assert not thread.is_alive(), "the build's process waited for a job the helper had lost"
    assert sorted(r.symbol for r in answered) == sorted(r.symbol for r in requests)


def test_stopping_early_stops_the_helpers() -> None:
    jobs = workers._helped([request(n) for n in range(30, 42)], 1, slowly)
    next(jobs)
    time.sleep(3.0)  # the helpers are up and busy
    jobs.close()
    for thread in helpers_alive():
        thread.join(10.0)
    assert not helpers_alive()


def test_pool_matches_this_process_and_recycles_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "OPS_PER_WORKER", 1)
    requests = [request(n) for n in range(4)]
    here = {r.symbol: r for r in workers.run_jobs(requests, jobs=1)}
    pooled = {r.symbol: r for r in workers.run_jobs(requests, jobs=2)}
    assert {r.worker for r in here.values()} == {os.getpid()}
    assert os.getpid() not in {r.worker for r in pooled.values()}
    assert len({r.worker for r in pooled.values()}) == 4  # one Op per worker: four workers
    for symbol, result in here.items():
        assert result.compiled is not None and pooled[symbol].compiled is not None
        assert pooled[symbol].compiled.data == result.compiled.data


def test_a_worker_with_another_toolchain_refuses() -> None:
    foreign = dataclasses.replace(request(1), toolchain="numba=0.1;llvmlite=0.1;numpy=1.0;python=2.7")
    [result] = workers.run_jobs([foreign], jobs=1)
    assert result.compiled is None and result.error is not None
    assert "refused aot_job_0000000000000001" in str(result.error)
    assert "numba=0.1" in str(result.error)


def test_numba_errors_come_back_from_workers_with_their_line() -> None:
    broken = request(2, body="return x.nope")
    results = {r.symbol: r for r in workers.run_jobs([request(3), broken], jobs=2)}
    error = results[broken.symbol].error
    assert error is not None and "nope" in str(error)
    assert (error.file, error.line) == (broken.filename, 2)
    assert results[request(3).symbol].compiled is not None


def test_unknown_executor_is_a_clear_error() -> None:
    from aotbuild.errors import ConfigError

    with pytest.raises(ConfigError, match="expected dask://HOST:PORT"):
        list(workers.run_jobs([request(1), request(2)], jobs=2, executor="spark://x"))


def test_modules_of_more_functions_go_to_the_workers_first() -> None:
    """A module of several functions (a fused sum's helpers) before one long function, before a
    short one; ties by symbol, so every build hands them out in the same order."""
    helpers = dataclasses.replace(
        request(1),
        text="".join(f"def g{k}(x):\n    return x\n\n\n" for k in range(6)) + "def f(x):\n    return x\n",
    )
    long_one = dataclasses.replace(
        request(2), text="def f(x):\n" + "    x = x + 1.0\n" * 200 + "    return x\n"
    )
    tie_a, tie_b = request(4), request(3)
    ordered = workers.slowest_first([tie_a, long_one, tie_b, helpers])
    assert [r.symbol for r in ordered] == [helpers.symbol, long_one.symbol, tie_b.symbol, tie_a.symbol]


def server_settings() -> tuple[str | None, str | None]:
    return os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get(workers.SERVER_VARIABLE)


def test_workers_start_no_blas_thread_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compile workers run no BLAS: OpenBLAS's idle threads would only spin on the other core."""
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with workers._local_pool(1, resolve_target("generic")) as pool:
        assert pool.submit(server_settings).result() == ("1", "1")
    assert "OPENBLAS_NUM_THREADS" not in os.environ  # the build's own process is left as it was
    assert workers.SERVER_VARIABLE not in os.environ


@pytest.mark.parametrize("server", [True, False])
def test_the_server_leaves_without_teardown(server: bool) -> None:
    """The worker server's exit skips the interpreter's teardown (it holds the build's output
    streams until it is gone): its exit handler leaves at once, with code 0. A process that
    imports the warm-up without being the server exits as usual."""
    environment = {k: v for k, v in os.environ.items() if k != workers.SERVER_VARIABLE}
    if server:
        environment[workers.SERVER_VARIABLE] = "1"
    code = "import sys, aotbuild.compile.warm\nprint('warm', flush=True)\nsys.exit(3)"
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True)
    assert done.stdout.strip() == "warm", done.stderr
    assert done.returncode == (0 if server else 3)


def pipe_signal() -> object:
    import signal

    return signal.getsignal(signal.SIGPIPE)


def test_a_worker_ends_silently_when_its_results_have_no_reader() -> None:
    """Workers take the system's SIGPIPE (end, silently) rather than Python's BrokenPipeError,
    whose traceback a worker finishing a job after an interrupted build had exited printed into
    the build's output."""
    import signal

    with workers._local_pool(1, resolve_target("generic")) as pool:
        assert pool.submit(pipe_signal).result() == signal.SIG_DFL
    assert signal.getsignal(signal.SIGPIPE) != signal.SIG_DFL  # the build's own process keeps Python's
