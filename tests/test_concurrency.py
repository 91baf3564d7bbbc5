"""Builds side by side and builds cut short: -j 2 equals -j 1, two builds sharing one cache both
succeed with identical results, and a killed or interrupted build leaves nothing half-written."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aotbuild.build import build
from aotbuild.cache.store import ObjectCache
from aotbuild.compile import workers
from aotbuild.progress import Progress

from .conftest import PROJECTS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(
        PROJECTS / "incremental", tmp_path / "project", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path / "project" / "graphs.toml"


def package_files(package: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(package.iterdir()) if path.is_file()}


def start_build(project: Path, out: Path, cache: Path, *options: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "aotbuild", "compile", str(project), "--out", str(out), *options]
    env = {**os.environ, "AOTBUILD_CACHE_DIR": str(cache), "PYTHONFAULTHANDLER": "1"}
    return subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )


def ctrl_c_as_in_a_terminal() -> None:
    """A build started from a terminal gets Ctrl-C; one started under a non-interactive shell's
    background job (as CI runs us) inherits SIGINT *ignored*, and Python then never raises
    KeyboardInterrupt. Restore the terminal's disposition so the interrupt test means something."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_two_jobs_build_what_one_job_builds(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "IN_PROCESS_UP_TO", 0)  # workers even for this small project
    quiet = Progress(quiet=True)
    one = build(project, out_dir=str(tmp_path / "one"), jobs=1, use_cache=False, progress=quiet)
    two = build(project, out_dir=str(tmp_path / "two"), jobs=2, use_cache=False, progress=quiet)
    assert one.compiled == two.compiled == one.modules
    assert package_files(one.package_dir) == package_files(two.package_dir)  # .so byte for byte
    modules = lambda out: package_files(out / ".aotbuild" / "incremental_ext" / "modules")  # noqa: E731
    assert modules(tmp_path / "one") == modules(tmp_path / "two")


@pytest.mark.parametrize("same_out", [False, True], ids=["two-out-dirs", "one-out-dir"])
def test_concurrent_builds_share_a_cache(project: Path, tmp_path: Path, same_out: bool) -> None:
    cache = tmp_path / "cache"
    outs = [tmp_path / "out", tmp_path / "out"] if same_out else [tmp_path / "a", tmp_path / "b"]
    builds = [start_build(project, out, cache, "-j", "2") for out in outs]
    for process in builds:
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr
        assert "damaged" not in stderr
    packages = [package_files(out / "incremental_ext") for out in outs]
    assert packages[0] == packages[1]
    assert not list(outs[0].glob(".incremental_ext.*"))
    check = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(outs[1])!r}); import incremental_ext"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


def op_entries(cache: Path) -> int:
    """Cache entries of compiled Ops (not the runtime's C objects, compiled meanwhile)."""
    count = 0
    for stored in ObjectCache(cache).files():
        try:
            header = stored.path.read_bytes()[:4096]
        except OSError:  # being replaced
            continue
        count += b'"kind":"op"' in header
    return count


def wait_for_entries(cache: Path, count: int, process: subprocess.Popen[str]) -> None:
    """Until ``count`` Ops are in the cache."""
    deadline = time.monotonic() + 120
    while op_entries(cache) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the build compiled nothing in two minutes"
        time.sleep(0.05)


def test_killed_build_leaves_no_package_and_the_next_build_succeeds(project: Path, tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    process = start_build(project, out, cache, "-j", "1")
    wait_for_entries(cache, 2, process)
    process.kill()
    process.communicate()
    assert not (out / "incremental_ext").exists()
    rerun = start_build(project, out, cache, "-j", "1")
    _, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    manifest = json.loads((out / "incremental_ext" / "manifest.json").read_text())
    assert "0 from cache" not in stderr, "the objects compiled before the kill are reused"
    assert len(manifest["ops"]) > 2
    assert sorted(p.name for p in out.iterdir()) == [".aotbuild", "incremental_ext"]


def test_interrupted_build_keeps_the_previous_package(project: Path, tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    first = build(project, out_dir=str(out), jobs=1, progress=Progress(quiet=True))
    before = package_files(first.package_dir)
    model = project.parent / "model.py"
    model.write_text(model.read_text().replace("return x / norm(x)", "return x / (norm(x) + 1e-300)"))
    process = start_build(project, out, cache, "-j", "2")
    wait_for_entries(cache, 1, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr  # 128 + SIGINT: "interrupted by the user"
    assert "interrupted; the previous package (if any) is unchanged" in stderr
    assert "Traceback" not in stderr
    assert "leaked semaphore" not in stderr and "resource_tracker" not in stderr
    assert package_files(first.package_dir) == before
    assert sorted(p.name for p in out.iterdir()) == [".aotbuild", "incremental_ext"]


def test_a_script_without_a_main_guard_builds_in_parallel(project: Path, tmp_path: Path) -> None:
    """Workers do not re-run the main script (multiprocessing's default), which would build
    again in every worker and wait forever for the lock the parent holds."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import aotbuild.compile.workers\n"
        "from aotbuild.build import build\n"
        "aotbuild.compile.workers.IN_PROCESS_UP_TO = 0\n"
        f"result = build({str(project)!r}, out_dir={str(tmp_path / 'out')!r}, jobs=2, use_cache=False)\n"
        "print('compiled', result.compiled, 'of', result.modules)\n"
    )
    import aotbuild

    source = str(Path(aotbuild.__file__).parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    compiled, _, modules = done.stdout.split()[1:]
    assert compiled == modules != "0"
    assert done.stderr.count("aotbuild: config") == 1
