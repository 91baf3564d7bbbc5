"""Compiling on a dask.distributed cluster: ``--executor dask://HOST:PORT``.

One ``LocalCluster`` serves the module: a scheduler and two worker processes on loopback. The
workers are separate processes that import aotbuild on their own, as a real cluster's do, so a
package they compile must be byte-identical to one compiled here, and a worker whose toolchain
differs must refuse rather than compile objects that do not match their cache keys.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from distributed import Client, LocalCluster, get_task_stream

import aotbuild
from aotbuild.build import BuildResult, build
from aotbuild.cli import main
from aotbuild.compile import workers
from aotbuild.compile.compiler import CompileFlags, CompileRequest
from aotbuild.compile.target import Target
from aotbuild.compile.workers import run_jobs
from aotbuild.config.signature import parse_signature
from aotbuild.errors import CompileError, ConfigError
from aotbuild.progress import Progress

from ..conftest import load_package, write_project

MODEL = """\
import numpy as np


def softplus(x):
    return np.log1p(np.exp(x))


def axpy(a, x, y):
    return a * x + y


def sum_of_squares(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * x[i]
    return total
"""

GRAPHS = """\
[package]
name = "dask_ext"

[graphs.softplus]
function = "model:softplus"
signature = "float64[:](float64[:])"

[graphs.axpy]
function = "model:axpy"
signature = "float64[:](float64, float64[:], float64[:])"

[graphs.sum_of_squares]
function = "model:sum_of_squares"
signature = "float64(float64[:])"
mode = "kernel"
"""

#: Nothing listens on port 1 of loopback (tcpmux): connecting is refused at once.
UNREACHABLE = "dask://127.0.0.1:1"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A scheduler and two single-threaded worker processes on loopback.

    Worker processes are spawned, not forked: they import aotbuild afresh. They get the test
    process's ``sys.path`` from multiprocessing, and ``PYTHONPATH`` names the folder this
    aotbuild was imported from as well, so they find the same aotbuild whether it is
    installed or only checked out.
    """
    source = str(Path(aotbuild.__file__).resolve().parent.parent)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")])))
        with LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            local_directory=str(tmp_path_factory.mktemp("dask")),
        ) as local:
            yield local


@pytest.fixture(scope="module")
def spec(cluster: LocalCluster) -> str:
    return "dask://" + cluster.scheduler_address.removeprefix("tcp://")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("dask_project"), GRAPHS, {"model.py": MODEL})


@pytest.fixture(scope="module")
def local_build(project: Path, tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    out = tmp_path_factory.mktemp("local-build")
    return build(project, out_dir=str(out), jobs=1, use_cache=False, progress=Progress(quiet=True))


def a_request(toolchain: str) -> CompileRequest:
    """A request for a one-line module; compile_job checks the toolchain before compiling."""
    text = "def f(x):\n    return x + 1.0\n"
    target = Target("generic", "generic", "")
    return CompileRequest(
        "aot_f", text, "f", parse_signature("float64(float64)"), CompileFlags(), target, toolchain
    )


def test_workers_import_this_aotbuild(cluster: LocalCluster) -> None:
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        where = client.run(lambda: __import__("aotbuild").__file__)
        pids = client.run(os.getpid)
    assert len(where) == 2
    assert set(where.values()) == {aotbuild.__file__}
    assert os.getpid() not in pids.values()


def test_a_cluster_build_is_byte_identical_to_a_local_one(
    cluster: LocalCluster, spec: str, project: Path, local_build: BuildResult, tmp_path: Path
) -> None:
    with Client(cluster.scheduler_address, set_as_default=False) as client, get_task_stream(client) as stream:
        remote = build(
            project, out_dir=str(tmp_path), executor=spec, use_cache=False, progress=Progress(quiet=True)
        )
    # Every module (the kernel's among them) was compiled, each in a task on a worker.
    assert remote.compiled == remote.modules == local_build.modules
    ran = [task for task in stream.data if str(task["key"]).startswith("compile_job")]
    assert len(ran) == remote.modules
    assert {task["worker"] for task in ran} <= set(cluster.scheduler_info["workers"])

    assert remote.native.name == local_build.native.name
    assert remote.native.read_bytes() == local_build.native.read_bytes()
    manifest = "manifest.json"
    assert (remote.package_dir / manifest).read_bytes() == (local_build.package_dir / manifest).read_bytes()

    package = load_package(remote)
    x = np.linspace(-3.0, 3.0, 7)
    y = np.arange(7.0)
    np.testing.assert_allclose(package.softplus(x), np.log1p(np.exp(x)))
    np.testing.assert_allclose(package.axpy(2.5, x, y), 2.5 * x + y)
    assert package.sum_of_squares(x) == pytest.approx(float(np.sum(x * x)))


def test_a_worker_of_another_toolchain_refuses(spec: str) -> None:
    results = list(run_jobs([a_request("numba=0.0;made-up")], jobs=1, executor=spec))
    assert len(results) == 1
    result = results[0]
    assert result.compiled is None and result.error is not None
    assert result.worker != os.getpid()
    assert "a compile worker refused aot_f" in str(result.error)
    assert "numba=0.0;made-up" in str(result.error)


def test_a_refusal_reaches_the_user(
    spec: str, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The build keys its requests with this process's toolchain: pretend it is another one.
    # The workers are other processes, so they keep their own and refuse.
    monkeypatch.setattr("aotbuild.compile.keys.toolchain_key", lambda: "numba=0.0;made-up")
    with pytest.raises(CompileError) as raised:
        build(project, out_dir=str(tmp_path), executor=spec, use_cache=False, progress=Progress(quiet=True))
    message = str(raised.value)
    assert message.startswith("a compile worker refused aot_"), message  # not "numba cannot compile"
    assert "is not the build's (numba=0.0;made-up)" in message
    assert "workers need the same numba, llvmlite, NumPy and Python" in message
    assert not (tmp_path / "dask_ext").exists()


def test_an_unreachable_scheduler_is_a_config_error_soon(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "SCHEDULER_TIMEOUT", 1.0)
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=r"cannot reach the dask scheduler at tcp://127\.0\.0\.1:1\b"):
        build(
            project,
            out_dir=str(tmp_path),
            executor=UNREACHABLE,
            use_cache=False,
            progress=Progress(quiet=True),
        )
    assert time.perf_counter() - started < 1.0 + 5.0


def test_a_wrong_executor_is_an_error_even_with_nothing_to_compile() -> None:
    with pytest.raises(ConfigError, match=r"--executor 'foo://x': expected dask://HOST:PORT"):
        list(run_jobs([], jobs=1, executor="foo://x"))


@pytest.mark.parametrize(
    ("executor", "expected"),
    [
        (UNREACHABLE, "--executor dask://127.0.0.1:1: cannot reach the dask scheduler at tcp://127.0.0.1:1"),
        ("dask://127.0.0.1", "--executor dask://127.0.0.1: cannot reach the dask scheduler"),
        ("foo://x", "--executor 'foo://x': expected dask://HOST:PORT"),
    ],
)
def test_executor_errors_on_the_command_line(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    executor: str,
    expected: str,
) -> None:
    monkeypatch.setattr(workers, "SCHEDULER_TIMEOUT", 1.0)
    argv = ["compile", str(project), "--out", str(tmp_path), "--executor", executor, "--no-cache", "-q"]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("aotbuild: error: ")
    assert expected in lines[0]


def test_an_unreachable_scheduler_is_an_error_even_when_everything_is_cached(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(project, out_dir=str(tmp_path / "first"), jobs=1, progress=Progress(quiet=True))
    monkeypatch.setattr(workers, "SCHEDULER_TIMEOUT", 1.0)
    with pytest.raises(ConfigError, match=r"cannot reach the dask scheduler at tcp://127\.0\.0\.1:1\b"):
        build(project, out_dir=str(tmp_path / "second"), executor=UNREACHABLE, progress=Progress(quiet=True))


def test_a_scheduler_without_workers_is_reported_after_the_timeout(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AOTBUILD_WORKER_TIMEOUT", "2")
    with LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=":0"
    ) as empty:
        address = "dask://" + empty.scheduler_address.removeprefix("tcp://")
        started = time.perf_counter()
        argv = ["compile", str(project), "--out", str(tmp_path), "--executor", address, "--no-cache", "-q"]
        code = main(argv)
        elapsed = time.perf_counter() - started
    captured = capsys.readouterr()
    assert code == 1
    assert f"aotbuild: error: --executor {address}: no workers answered in 2 s" in captured.err
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert elapsed < 2.0 + 20.0
    assert not (tmp_path / "dask_ext").exists()


def test_a_wrong_worker_timeout_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AOTBUILD_WORKER_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match=r"AOTBUILD_WORKER_TIMEOUT='soon': expected a number of seconds"):
        workers.worker_timeout()
