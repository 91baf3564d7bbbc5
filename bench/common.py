"""What every benchmark script shares: timing subprocesses, formatting, and its BENCHMARKS.md section."""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"


def run(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    """Seconds ``command`` took; it must succeed."""
    started = time.perf_counter()
    subprocess.run(
        command, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd
    )
    return time.perf_counter() - started


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


def microseconds(seconds: float) -> str:
    return f"{seconds * 1e6:,.2f} µs" if seconds < 1e-3 else f"{seconds * 1e3:,.2f} ms"


def measured_by(script: str) -> str:
    """The line saying which script measured a table, when, and on what."""
    import llvmlite
    import numba
    import numpy

    return (
        f"Measured by `python bench/{script}` on {time.strftime('%Y-%m-%d')}: {platform.machine()}, "
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
