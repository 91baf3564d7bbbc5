"""Speed of each CPU target of one package: ``target = ["generic", "x86-64-v2", "x86-64-v3",
"x86-64-v4"]`` builds one shared object per target, and ``AOTBUILD_TARGET`` makes the loader take
a given one. Beside them, in the same run, numba's JIT (which compiles for the host CPU) and NumPy.

Programs: ``bench/targets_program/`` — a reduction of exp times a polynomial, an elementwise chain
with a square root, row sums of squares of a matrix — on 10^6 float64 (1000 x 1000 for the
matrix), where the instructions the target allows (SSE2, SSE4.2, AVX2 + FMA, AVX-512) decide
the time. A target the CPU lacks features for is reported as such: its package refuses to load.

The code measured is commit HEAD (``git archive HEAD``), built with a cold object cache in the
temp folder. Each peer runs in a process of its own; 5 rounds, each round every peer in turn; each
figure is the median over rounds of the best of 5 ``timeit`` loops (sized to ~20 ms).
Run from the repository root:

    python bench/bench_targets.py          # writes its section into BENCHMARKS.md
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import TIME_EACH, build_program, measured_by, microseconds, write_section

TARGETS = ("generic", "x86-64-v2", "x86-64-v3", "x86-64-v4")
PROGRAMS = ("gauss_poly", "blend", "row_energy")
ROUNDS = 5

TIMER = r"""
import json, os, sys, timeit
import numpy as np
peer, folder = sys.argv[1], sys.argv[2]
sys.path.insert(0, folder)
rng = np.random.default_rng(0)
x, y, m = rng.normal(size=10**6), rng.normal(size=10**6), rng.normal(size=(1000, 1000))
inputs = {"gauss_poly": (x,), "blend": (x, y), "row_energy": (m,)}
if peer == "numpy":
    import arith as module
elif peer == "njit":
    import numba, arith as module
else:
    try:
        import arith_ext as module
    except ImportError as exc:
        print(json.dumps({"error": str(exc)}))
        sys.exit(0)
jit = numba.njit if peer == "njit" else (lambda function: function)
functions = {name: jit(getattr(module, name)) for name in inputs}
"""


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-targets-") as temp:
        project, package = build_program(Path(temp), "targets_program")
        manifest = json.loads((package / "arith_ext" / "manifest.json").read_text())
        peers = [*TARGETS, "njit", "numpy"]
        results: dict[str, list[dict[str, float]]] = {peer: [] for peer in peers}
        errors: dict[str, str] = {}
        for round_ in range(ROUNDS):
            for peer in peers[round_ % len(peers) :] + peers[: round_ % len(peers)]:
                folder = str(project) if peer in ("njit", "numpy") else str(package)
                run_env = {**os.environ, "AOTBUILD_TARGET": peer} if peer in TARGETS else dict(os.environ)
                run_env.pop("PYTHONPATH", None)
                done = subprocess.run(
                    [sys.executable, "-c", TIMER + TIME_EACH, peer, folder],
                    capture_output=True,
                    text=True,
                    env=run_env,
                    check=True,
                )
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                if "error" in figures:
                    errors[peer] = figures["error"]
                else:
                    results[peer].append(figures)
        medians = {
            peer: {name: statistics.median(run[name] for run in runs) for name in PROGRAMS}
            for peer, runs in results.items()
            if runs
        }
    header = "| program | " + " | ".join(peers) + " |"
    lines = [
        "## CPU targets: one package, one shared object per target",
        "",
        measured_by("bench_targets.py"),
        "",
        "Each program's time per call, and in brackets generic's time ÷ this one (higher is faster). "
        "`njit` is numba's JIT, which compiles for this machine's CPU.",
        "",
        header,
        "|" + "---|" * (len(peers) + 1),
    ]
    for name in PROGRAMS:
        cells = []
        for peer in peers:
            if peer not in medians:
                cells.append("—")
                continue
            value = medians[peer][name]
            ratio = medians["generic"][name] / value
            cells.append(f"{microseconds(value)} ({ratio:.2f}x)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    for peer, message in errors.items():
        lines.append(f"- {peer}: not run here — the package refused it: {message}")
    lines.append(
        f"- Targets built: {', '.join(t['name'] + ' (' + t['native'] + ')' for t in manifest['targets'])}."
    )
    text = "\n".join(lines)
    print(text)
    write_section("targets", text)


if __name__ == "__main__":
    main()
