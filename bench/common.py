"""What every benchmark script shares: timing subprocesses, formatting, and its BENCHMARKS.md section."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
PAGE = os.sysconf("SC_PAGE_SIZE")


#: The environment of a run that imports as an installed package does, from cached bytecode: some
#: machines set PYTHONDONTWRITEBYTECODE for every process (empty is unset, to Python), and the
#: first such run then writes the bytecode the measured ones read. Only for those runs: builds
#: keep the machine's setting.
WRITE_BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}


def run(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    """Seconds ``command`` took; it must succeed."""
    started = time.perf_counter()
    subprocess.run(
        command, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd
    )
    return time.perf_counter() - started


@dataclass(frozen=True)
class Measured:
    """A process run to completion: its wall time, the peak memory of its process tree, the last
    line of its output and its error output."""

    seconds: float
    rss_mib: float
    """Peak over time of the RSS summed over the tree (sampled every 50 ms): pages shared by
    forked workers count once per process, so this overstates a forking build."""

    pss_mib: float
    """Peak over time of the PSS summed over the tree (sampled every 0.5 s): shared pages split
    between the processes sharing them, so the sum is the memory the tree really holds."""

    last_line: str

    error_output: str = ""
    """What it wrote to standard error (aotbuild's ``--timings`` report, say)."""


class ProcessTree:
    """The memory of a process and all its descendants (a forkserver's workers included: only
    /proc shows those). Each process's parent is read once, so a sample costs little beyond
    one ``smaps_rollup`` per live process of the tree (~1 ms each)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self._parents: dict[int, int] = {}

    def _parent(self, pid: int) -> int | None:
        if pid not in self._parents:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                return None
            self._parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        return self._parents[pid]

    def members(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (parent := self._parent(int(entry))) is not None:
                children.setdefault(parent, []).append(int(entry))
        pending, found = [self.root], []
        while pending:
            pid = pending.pop()
            found.append(pid)
            pending.extend(children.get(pid, ()))
        return found

    def rss(self) -> float:
        """RSS in MiB summed over the tree, now (cheap: ``statm``)."""
        pages = 0
        for pid in self.members():
            with contextlib.suppress(OSError):
                pages += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        return pages * PAGE / 2**20

    def pss(self) -> float:
        """PSS in MiB summed over the tree, now (``smaps_rollup``: ~10 ms for a process that
        has imported numba, so sampled less often)."""
        kib = 0
        for pid in self.members():
            with contextlib.suppress(OSError):
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
                kib += int(rollup.split("\nPss:", 1)[1].split()[0])
        return kib / 1024


def measure(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Measured:
    """Run ``command`` (it must succeed), sampling its process tree's RSS every 50 ms and its
    PSS every 0.5 s (reading PSS costs the machine more: the sampler shares the 2 cores).
    Without ``cwd`` it runs in the first folder of ``env``'s PYTHONPATH, as :func:`python` does:
    ``python -m`` puts the working folder first."""
    if cwd is None and env and env.get("PYTHONPATH"):
        cwd = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    peaks = [0.0, 0.0]
    tree = ProcessTree(process.pid)

    def sample() -> None:
        for count in itertools.count():
            if process.poll() is not None:
                return
            peaks[0] = max(peaks[0], tree.rss())
            if count % 10 == 0:
                peaks[1] = max(peaks[1], tree.pss())
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - started
    sampler.join()
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command, stdout, stderr)
    lines = stdout.strip().splitlines()
    return Measured(seconds, peaks[0], peaks[1], lines[-1] if lines else "", stderr)


def python_json(code: str, env: dict[str, str] | None = None) -> dict:
    """Run ``code`` in a new interpreter; its last line of output is JSON."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def median_of(count: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(count))


def folder_size(folder: Path) -> tuple[int, int]:
    """(bytes, files) under ``folder``."""
    files = [path for path in folder.rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), len(files)


def microseconds(seconds: float) -> str:
    return f"{seconds * 1e6:,.2f} µs" if seconds < 1e-3 else f"{seconds * 1e3:,.2f} ms"


def measured_commit() -> str:
    """The commit measured: ``$BENCH_COMMIT`` (a run from an exported tree, kept apart from
    work in progress), else the checkout's HEAD, else "an unknown commit"."""
    if os.environ.get("BENCH_COMMIT"):
        return os.environ["BENCH_COMMIT"][:7]
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return head.stdout.strip() if head.returncode == 0 else "an unknown commit"


def cpu_model() -> str:
    """The CPU's name as /proc/cpuinfo gives it (tables measured on different machines sit side by
    side in BENCHMARKS.md; the machine under this workplace's sessions has changed)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def measured_by(script: str) -> str:
    """The line saying which script measured a table, when, at which commit, and on what."""
    import llvmlite
    import numba
    import numpy

    return (
        f"Measured by `python bench/{script}` at {measured_commit()} on {time.strftime('%Y-%m-%d')}: "
        f"{platform.machine()} ({cpu_model()}), "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numba {numba.__version__}, "
        f"llvmlite {llvmlite.__version__}, NumPy {numpy.__version__}. Shared, noisy machine: compare ratios."
    )


def write_section(name: str, text: str) -> None:
    """Put ``text`` between ``<!-- name:start -->`` and ``<!-- name:end -->`` in BENCHMARKS.md."""
    path = REPO / "BENCHMARKS.md"
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{text}\n{end}"
    current = path.read_text() if path.exists() else "# Benchmarks\n\n"
    if start in current:
        current = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, current, flags=re.S)
    else:
        current = current.rstrip() + "\n\n" + block + "\n"
    path.write_text(current)


def export_head(folder: Path) -> str:
    """``git archive HEAD`` unpacked into ``folder``; returns the commit's hash."""
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    folder.mkdir(parents=True)
    archive = subprocess.Popen(["git", "archive", commit], cwd=REPO, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(folder)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError("git archive failed")
    return commit


def python(arguments: list[str], env: dict[str, str]) -> str:
    """Run ``arguments`` in a new interpreter; its stdout (its stderr too if it fails).

    It runs in the first folder of ``env``'s PYTHONPATH (the exported commit): ``python -m``
    puts the working folder before PYTHONPATH, and from the repository's root that would be the
    checkout, uncommitted edits and all, not the commit being measured.
    """
    cwd = env.get("PYTHONPATH", "").split(os.pathsep)[0] or None
    result = subprocess.run(
        [sys.executable, *arguments], capture_output=True, text=True, env={**os.environ, **env}, cwd=cwd
    )
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        result.check_returncode()
    return result.stdout


#: The end of a per-peer timing script: each function of ``functions`` (a dict) called on its
#: ``inputs``, once to warm up, then the best of 5 ``timeit`` loops of ~20 ms; printed as JSON.
TIME_EACH = r"""
times = {}
for name, args in inputs.items():
    if name not in functions:
        continue
    function = functions[name]
    function(*args)
    timer = timeit.Timer(lambda: function(*args))
    number = max(1, int(0.02 / max(timer.timeit(1), 1e-7)))
    times[name] = min(timer.repeat(5, number)) / number
print(json.dumps(times))
"""


def build_program(root: Path, program: str) -> tuple[Path, Path]:
    """Commit HEAD exported into ``root/src``, ``bench/<program>`` copied into ``root/project``
    and built from it into ``root/out`` with a cold object cache: (project, out)."""
    import shutil

    export_head(root / "src")
    project, out = root / "project", root / "out"
    shutil.copytree(BENCH / program, project)
    env = {"PYTHONPATH": str(root / "src"), "AOTBUILD_CACHE_DIR": str(root / "cache")}
    python(["-m", "aotbuild", "compile", str(project / "graphs.toml"), "--out", str(out), "-q"], env)
    return project, out


def settle_malloc() -> None:
    """Put glibc's malloc where a process that has handled large arrays has it, whichever programs
    run. A freed block that malloc had mapped on its own raises the size below which it serves
    blocks from the heap (to that block's, at most 32 MiB) and the free space it keeps at the
    heap's top (to twice that). Before that, NumPy's temporaries of 100,000 float64 are returned
    to the system after each call and faulted in again at the next, which made ``gauss_loglik``
    take 3x longer in NumPy (and 1.6x in njit) when ``--only`` picked it alone than after the
    10^6-element programs had run. Freeing one block of 30 MiB sets both near their ceilings: the
    steady state of the full run, the same for ``--only``, and the kind one to peers that allocate
    temporaries (NumPy, njit)."""
    import numpy as np

    block = np.ones(30 * 2**20 // 8)
    del block
