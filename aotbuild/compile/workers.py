"""Compiling many Ops: in this process, in a pool of worker processes, or on a cluster.

Compiling one Op is a pure function of its request (:func:`compile_job`), and Ops never wait
for each other (callers only declare their callees), so any ``concurrent.futures.Executor`` can
run them in any order; the build puts the results back in plan order, so the output does not
depend on who compiled what.

Local workers are forked from a server process that has already imported numba and compiled one
small function (numba's first compile in a process sets up its typing tables, ~1 s), so a fresh
worker is ready at once. That makes recycling cheap: each worker compiles
:data:`OPS_PER_WORKER` Ops and is replaced, which bounds the memory numba and LLVM accumulate.
The server starts with numba's JIT set to the target being compiled for
(:mod:`aotbuild.compile.jit_target`), as soon as the build knows it will want workers
(:func:`prepare`: while it traces), and starts again for another target.
"""

from __future__ import annotations

import collections
import functools
import multiprocessing
import multiprocessing.context
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import spawn
from typing import Any, TypeVar

from ..errors import CompileError, ConfigError
from . import jit_target
from .compiler import CompiledObject, CompileRequest
from .target import Target

#: Ops a local worker compiles before it is replaced: numba keeps ~0.67 MB per compiled Op, and a
#: fresh worker costs ~0.03 s of wall time (``bench/bench_workers.py``).
OPS_PER_WORKER = 64

#: Up to this many Ops compile in the build's own process even when ``jobs`` > 1: starting the
#: worker server (numba's import and first compile, ~2 s on a busy 2-core machine) costs more
#: than it saves below ~30 Ops, while the build's process has usually set numba up already
#: (tracing kernels types them): 2 changed Ops took 0.4 s there and 2.3 s through workers.
IN_PROCESS_UP_TO = 16

#: From this many Ops compiled in the build's own process (and ``jobs`` > 1), workers start beside
#: it and take Ops too once they are up (:func:`_helped`). The radon model's 8 variants after its
#: base (11 Ops; 2 cores): compile stage 3.96 -> 2.7 s, whole build 6.05 -> 5.0-5.1 s.
HELPED_FROM = 6

#: Seconds to wait for a dask scheduler to answer. distributed retries a refused connection
#: until then (the scheduler may be starting), so this is also how long a wrong address takes
#: to be reported.
SCHEDULER_TIMEOUT = 5.0

#: Seconds a cluster build waits for the scheduler to have a worker (before the first job, and
#: whenever no job has finished for that long) before it gives up; ``AOTBUILD_WORKER_TIMEOUT``
#: overrides it (a cluster that starts its workers on demand may need minutes).
WORKER_TIMEOUT = 60.0

T = TypeVar("T")

#: Imported once by the server local workers are forked from.
_PRELOAD = "aotbuild.compile.warm"

#: Set in the worker server's environment: the server leaves at once when the build ends
#: (:mod:`aotbuild.compile.warm`).
SERVER_VARIABLE = "AOTBUILD_WORKER_SERVER"

#: Variables the worker server starts with besides the target's. Compile workers never run BLAS;
#: with one thread, OpenBLAS (NumPy's and SciPy's) starts no thread pool in the server and its
#: forks, whose threads otherwise spin for a while after loading, on the core the other worker
#: compiles on.
_SERVER_VARIABLES = {"OPENBLAS_NUM_THREADS": "1", SERVER_VARIABLE: "1"}


@dataclass(frozen=True)
class JobResult:
    symbol: str
    compiled: CompiledObject | None
    error: CompileError | None
    seconds: float
    worker: int
    """The process id of the worker that ran the job (for progress and tests)."""


def compile_job(request: CompileRequest) -> JobResult:
    """Compile one Op wherever this runs; refuse when this process's toolchain is not the one
    the request was keyed for, since the object would not match its cache key. A process whose
    numba JIT is set up for another CPU (a cluster's worker that compiled for another target)
    has a local worker set for the request's target compile it."""
    from .compiler import compile_request
    from .keys import toolchain_key

    started = time.perf_counter()
    own = toolchain_key()
    if own != request.toolchain:
        error = CompileError(
            f"a compile worker refused {request.symbol}: its toolchain ({own}) is not the build's "
            f"({request.toolchain}); workers need the same numba, llvmlite, NumPy and Python, "
            "and the same NUMBA_OPT"
        )
        return JobResult(request.symbol, None, error, 0.0, os.getpid())
    if not jit_target.claim(request.target):
        if isinstance(multiprocessing.current_process(), _CompileWorker):  # started for another
            cpu, features = jit_target.jit_cpu()
            error = CompileError(
                f"a compile worker refused {request.symbol}: its numba JIT is set up for the CPU "
                f"{cpu!r} (features {features!r}), not the target {request.target.name}'s"
            )
            return JobResult(request.symbol, None, error, 0.0, os.getpid())
        # a cluster's worker set up for another target: a local worker set for this one
        with _local_pool(1, request.target) as pool:
            return pool.submit(compile_job, request).result()
    try:
        compiled = compile_request(request)
    except CompileError as exc:
        return JobResult(request.symbol, None, exc, time.perf_counter() - started, os.getpid())
    return JobResult(request.symbol, compiled, None, time.perf_counter() - started, os.getpid())


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def local_workers(count: int, jobs: int, executor: str | None, target: Target | None = None) -> int:
    """How many local worker processes compile ``count`` Ops for ``target`` (0: the build's
    own process, or a cluster): at least one when this process's JIT is set for another CPU."""
    if executor is not None or count == 0:
        return 0
    if target is not None and not jit_target.compiles_for(target):
        return min(jobs, count)
    if jobs <= 1 or count <= max(1, IN_PROCESS_UP_TO):
        return 0
    return min(jobs, count)


def prepare(target: Target, jobs: int, executor: str | None) -> None:
    """Start the server local workers are forked from, for ``target``, if this build may want
    workers: it then sets numba up while the build traces and generates code (~1.5 s a cold
    build waited for at its compile stage). A server that is not needed after all costs the
    machine's otherwise idle core, and is stopped with the build's process."""
    if executor is None and (jobs > 1 or not jit_target.compiles_for(target)):
        _ensure_server(target)


def slowest_first(requests: Sequence[CompileRequest]) -> list[CompileRequest]:
    """``requests`` in the order to hand them to the workers: the likely slowest first, so the
    build does not end waiting on one worker's long compile while the others idle (ties by
    symbol: the same order every build). numba compiles each function of a module through its
    whole pipeline, so a module costs about a quarter second a function plus a few milliseconds
    a line (a fused sum's 9 functions: 2.5 s; a graph entry's 150 lines: 0.9 s; an index: 0.1 s).
    The 8 radon variants with gradients, cold: 20.9 -> 20.0 s."""

    def cost(request: CompileRequest) -> float:
        # a kernel compiles its regions in: their functions are its work too
        texts = [request.text, *(module.text for module in request.compiled_in)]
        lines = [line for text in texts for line in text.splitlines()]
        return 0.25 * sum(line.startswith("def ") for line in lines) + 0.004 * len(lines)

    return sorted(requests, key=lambda request: (-cost(request), request.symbol))


def run_jobs(
    requests: Sequence[CompileRequest], *, jobs: int, executor: str | None = None
) -> Generator[JobResult, None, None]:
    """Compile ``requests``, yielding each result as it is ready.

    ``executor`` is None (local: in this process when ``jobs`` is 1 or there are few requests,
    see :data:`IN_PROCESS_UP_TO`, else ``jobs`` worker processes) or ``dask://HOST:PORT``.
    Closing the iterator early (the caller stops at the first error, or is interrupted)
    cancels what has not started.
    """
    if executor is not None and not executor.startswith("dask://"):
        # Checked before anything else, so a wrong URL is an error even when nothing is compiled.
        raise ConfigError(f"--executor {executor!r}: expected dask://HOST:PORT")
    if not requests:
        if executor is not None:  # the user asked for that cluster: an unreachable one is an error
            with _dask_client(executor):
                pass
        return
    target = requests[0].target  # a build compiles one target at a time
    workers = local_workers(len(requests), jobs, executor, target)
    if executor is None and workers == 0:
        if jobs > 1 and len(requests) >= HELPED_FROM:
            yield from _helped(requests, jobs - 1)
            return
        for request in requests:
            yield compile_job(request)
        return
    with _executor(executor, workers, target) as (pool, wait_for_workers):
        futures: list[Future[JobResult]] = [pool.submit(compile_job, request) for request in requests]
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=worker_timeout(), return_when=FIRST_COMPLETED)
                if not done:  # nothing finished for a while: is anyone still there to do it?
                    wait_for_workers()
                for future in done:
                    yield _result(future, executor)
        finally:
            for future in futures:
                future.cancel()


def _helped(
    requests: Sequence[CompileRequest],
    helpers: int,
    compile_here: Callable[[CompileRequest], JobResult] = compile_job,
) -> Generator[JobResult, None, None]:
    """``requests`` compiled in this process, while ``helpers`` local workers start beside it
    and then take requests too, each the next one left: the first Ops do not wait for the
    workers' start (~2 s), and those left when the workers are up are shared with them. A helper
    that cannot start, or fails, leaves its requests to this process; a request a worker ran is
    answered as :func:`run_jobs` answers it. Closed early (an error, an interrupt), it stops the
    workers within a fifth of a second once they are up (starting them is not interrupted)."""
    left = collections.deque(requests)
    lock = threading.Lock()
    # (result, None) or (None, error) per request a helper took; (None, None): look at `left` again
    answers: queue.SimpleQueue[tuple[JobResult | None, BaseException | None]] = queue.SimpleQueue()
    taken = [0]  # requests the helpers took and have not answered
    stop = threading.Event()

    def take() -> CompileRequest | None:
        with lock:
            if stop.is_set() or not left:
                return None
            taken[0] += 1
            return left.popleft()

    def helper() -> None:
        try:
            pool = _RecyclingPool(helpers, OPS_PER_WORKER, requests[0].target)
        except Exception:  # no workers here: this process compiles everything
            return
        running: dict[Future[JobResult], CompileRequest] = {}
        failed = False
        try:
            while not stop.is_set():
                while len(running) < helpers and (request := take()) is not None:
                    try:
                        running[pool.submit(compile_job, request)] = request
                    except BaseException:
                        with lock:  # never submitted: this process's again, as those running below
                            left.appendleft(request)
                            taken[0] -= 1
                        raise
                if not running:
                    return
                done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    del running[future]
                    try:
                        answers.put((_result(future, None), None))
                    except BaseException as exc:  # raised where the answers are read
                        answers.put((None, exc))
        except BaseException:  # the pool failed: what it had not answered is this process's again
            failed = True
            with lock:
                left.extendleft(running.values())
                taken[0] -= len(running)
            running.clear()
        finally:
            answers.put((None, None))  # whatever happened, this process looks again
            # its work not wanted (stopped early, failed): the workers killed, not waited for
            pool.shutdown(cancel_futures=failed or stop.is_set() or bool(running))

    def answer() -> JobResult | None:
        result, error = answers.get()
        if result is None and error is None:
            return None
        with lock:
            taken[0] -= 1
        if error is not None:
            raise error
        return result

    # Not a daemon: a build that ends first still sees the helpers' pool shut down, not cut off.
    thread = threading.Thread(target=helper, name="aotbuild-compile-helpers")
    thread.start()
    try:
        while True:
            with lock:
                request = left.popleft() if left else None
                waiting = taken[0] > 0
            if request is not None:
                yield compile_here(request)
            elif waiting and (result := answer()) is not None:
                yield result
            while not answers.empty():
                if (result := answer()) is not None:
                    yield result
            with lock:
                if not left and not taken[0]:
                    return
    finally:
        stop.set()


def worker_timeout() -> float:
    """:data:`WORKER_TIMEOUT`, or the seconds ``AOTBUILD_WORKER_TIMEOUT`` says."""
    text = os.environ.get("AOTBUILD_WORKER_TIMEOUT", "").strip()
    if not text:
        return WORKER_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ConfigError(f"AOTBUILD_WORKER_TIMEOUT={text!r}: expected a number of seconds above 0")
    return seconds


def _result(future: Future[JobResult], executor: str | None) -> JobResult:
    try:
        return future.result()
    except CompileError:
        raise
    except Exception as exc:  # the worker died, or the cluster lost it
        where = executor or "a local compile worker"
        raise CompileError(f"{where} failed to run a compile job: {type(exc).__name__}: {exc}") from None


@contextmanager
def _executor(
    spec: str | None, workers: int, target: Target
) -> Iterator[tuple[Executor, Callable[[], None]]]:
    """The pool that runs the jobs, and a check that it still has workers (raising if it has
    had none for :func:`worker_timeout` seconds)."""
    if spec is None:
        with _local_pool(workers, target) as pool:  # its workers are ours: replaced when they die
            yield pool, lambda: None
    else:
        with _dask_client(spec) as client:

            def wait_for_workers() -> None:
                seconds = worker_timeout()
                try:
                    client.wait_for_workers(1, timeout=seconds)
                except TimeoutError:
                    raise CompileError(
                        f"--executor {spec}: no workers answered in {seconds:g} s (the scheduler has "
                        "none; start one with `dask worker` on its address, or set "
                        "AOTBUILD_WORKER_TIMEOUT to wait longer)"
                    ) from None

            wait_for_workers()
            yield client.get_executor(pure=False), wait_for_workers


class _CompileWorker(multiprocessing.context.ForkServerProcess):
    """A local compile worker. Its name marks it for :func:`_without_main`."""


class _CompileContext(multiprocessing.context.ForkServerContext):
    Process = _CompileWorker


def _without_main(get_preparation_data: Callable[..., Any]) -> Callable[..., Any]:
    """multiprocessing's start-up data, minus the main module for compile workers.

    A new process normally re-runs the parent's main script (as ``__mp_main__``) so it can
    unpickle functions defined there; a script calling ``build()`` without an
    ``if __name__ == "__main__":`` guard would then build again in every worker, and wait
    forever on the lock its parent holds. Compile jobs need nothing from the main module, so
    workers skip it. Other processes' start-up is unchanged.
    """

    @functools.wraps(get_preparation_data)
    def preparation_data(name: str, *args: Any, **kwargs: Any) -> Any:
        data = get_preparation_data(name, *args, **kwargs)
        if isinstance(data, dict) and str(name).startswith(_CompileWorker.__name__):
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    preparation_data.__wrapped_by_aotbuild__ = True  # type: ignore[attr-defined]
    return preparation_data


def _skip_main_in_workers() -> None:
    if not getattr(spawn.get_preparation_data, "__wrapped_by_aotbuild__", False):
        spawn.get_preparation_data = _without_main(spawn.get_preparation_data)


_server_lock = threading.Lock()
_server_for: list[Target] = []
"""The target the running worker server was started for."""


def _ensure_server(target: Target) -> None:
    """The server local workers are forked from, running with numba's JIT set to ``target``:
    started (again, if it died) with :func:`jit_target.environment`, the build's own variables
    left as they were, and stopped first if it ran for another target."""
    from multiprocessing import forkserver

    server: Any = forkserver._forkserver  # its private state: typeshed has no _stop
    with _server_lock:
        if _server_for != [target] and server._forkserver_pid is not None:
            server._stop()
        forkserver.set_forkserver_preload([_PRELOAD])
        variables = {**jit_target.environment(target), **_SERVER_VARIABLES}
        saved = {name: os.environ.get(name) for name in variables}
        os.environ.update(variables)
        try:
            forkserver.ensure_running()  # nothing to do when it runs
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        _server_for[:] = [target]


def _leave_quietly_when_orphaned() -> None:
    """In a worker: a write to a pipe nobody reads ends it, silently (the system's default,
    which Python replaces with an exception). Its only such pipe is the one its results go back
    by, closed only once the build has gone: a worker finishing a job just after an interrupted
    build had exited printed a BrokenPipeError's traceback into the build's output (seen once in
    tests/test_concurrency.py's interrupted build)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


class _RecyclingPool(Executor):
    """``multiprocessing.Pool`` as an Executor, its workers compiling for ``target``. The pool
    replaces a worker after ``tasks_per_worker`` tasks reliably;
    ``ProcessPoolExecutor(max_tasks_per_child=...)`` hangs on Python 3.11 to 3.13 once a worker
    retires while tasks are queued (CPython gh-115634)."""

    def __init__(self, workers: int, tasks_per_worker: int, target: Target) -> None:
        _skip_main_in_workers()
        _ensure_server(target)
        self._pool = _CompileContext().Pool(
            workers, initializer=_leave_quietly_when_orphaned, maxtasksperchild=tasks_per_worker
        )

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()

        def done(result: T) -> None:
            if future.set_running_or_notify_cancel():
                future.set_result(result)

        def failed(error: BaseException) -> None:
            if future.set_running_or_notify_cancel():
                future.set_exception(error)

        self._pool.apply_async(fn, args, kwargs, callback=done, error_callback=failed)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures or not wait:
            self._pool.terminate()
        else:
            self._pool.close()
        self._pool.join()


@contextmanager
def _local_pool(workers: int, target: Target) -> Iterator[Executor]:
    pool = _RecyclingPool(workers, OPS_PER_WORKER, target)
    try:
        yield pool
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise
    pool.shutdown()


@contextmanager
def _dask_client(spec: str) -> Iterator[Any]:
    """A ``dask.distributed`` client of the scheduler at ``dask://HOST:PORT``."""
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError(
            f"--executor {spec}: dask.distributed is not installed (pip install 'aotbuild[dask]')"
        ) from None
    address = "tcp://" + spec.removeprefix("dask://")
    try:
        client = Client(address, timeout=SCHEDULER_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:  # ValueError: no port in the address
        raise ConfigError(f"--executor {spec}: cannot reach the dask scheduler at {address}: {exc}") from None
    try:
        yield client
    finally:
        client.close()
