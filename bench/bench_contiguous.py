"""The contiguous fast path: a traced graph declared with any-layout matrices (``float64[:, :]``)
gets a variant compiled for C-contiguous ones, which each call runs when its arrays allow.

Peers, each program, on 1000 x 1000 float64 matrices:

* **any, contiguous**: the graph declared ``[:, :]``, called with C-contiguous matrices (the
  contiguous variant runs);
* **any, padded rows**: the same graph called with matrices viewed out of a 1000 x 1001 array
  (``padded[:, :1000]``): the same memory traffic, not contiguous, so the graph as declared runs
  — what every call cost before the fast path;
* **declared C**: the graph declared ``[:, ::1]`` (the reference the fast path should equal);
* **numba njit**: ``numba.njit`` of the function with the any-layout signature, called with the
  contiguous matrices (numba compiles what the signature says);
* **NumPy** on the contiguous matrices.

The code measured is commit HEAD (``git archive HEAD``), built with a cold object cache in the
temp folder. One process per peer; 5 rounds, the peers in turn; each figure is the median over
rounds of the best of 5 ``timeit`` loops (~20 ms). Run from the repository root:

    python bench/bench_contiguous.py          # writes its section into BENCHMARKS.md
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

PROGRAMS = ("row_energy", "standardise", "blend")
PEERS = ("any, contiguous", "any, padded rows", "declared C", "numba njit", "NumPy")
ROUNDS = 5

TIMER = r"""
import json, sys, timeit
import numpy as np
peer, folder = sys.argv[1], sys.argv[2]
sys.path.insert(0, folder)
rng = np.random.default_rng(0)
a, b = rng.normal(size=(1000, 1000)), rng.normal(size=(1000, 1000))
if peer == "any, padded rows":
    pa, pb = np.empty((1000, 1001)), np.empty((1000, 1001))
    pa[:, :1000], pb[:, :1000] = a, b
    a, b = pa[:, :1000], pb[:, :1000]
    assert not a.flags.c_contiguous
inputs = {"row_energy": (a,), "standardise": (a,), "blend": (a, b)}
if peer == "NumPy":
    import matrices
    functions = {name: getattr(matrices, name) for name in inputs}
elif peer == "numba njit":
    import numba, matrices
    signatures = {
        "row_energy": "float64[::1](float64[:, :])",
        "standardise": "float64[:, :](float64[:, :])",
        "blend": "float64[:, :](float64[:, :], float64[:, :])",
    }
    functions = {}
    for name in inputs:
        try:
            functions[name] = numba.njit(signatures[name])(getattr(matrices, name))
        except Exception as exc:  # numba cannot compile it: reported, not timed
            print(f"{name}: {type(exc).__name__}", file=sys.stderr)
else:
    import matrices_ext
    suffix = "_c" if peer == "declared C" else "_any"
    functions = {name: getattr(matrices_ext, name + suffix) for name in inputs}
"""


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-contiguous-") as temp:
        project, out = build_program(Path(temp), "contiguous_program")
        runs: dict[str, list[dict[str, float]]] = {peer: [] for peer in PEERS}
        for round_ in range(ROUNDS):
            for peer in PEERS[round_ % len(PEERS) :] + PEERS[: round_ % len(PEERS)]:
                folder = str(project) if peer in ("numba njit", "NumPy") else str(out)
                clean = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
                done = subprocess.run(
                    [sys.executable, "-c", TIMER + TIME_EACH, peer, folder],
                    capture_output=True,
                    text=True,
                    env=clean,
                    check=True,
                )
                runs[peer].append(json.loads(done.stdout.strip().splitlines()[-1]))
    medians = {
        peer: {
            name: statistics.median(r[name] for r in runs[peer]) for name in PROGRAMS if name in runs[peer][0]
        }
        for peer in PEERS
    }
    lines = [
        "## Contiguous fast path: any-layout matrices",
        "",
        measured_by("bench_contiguous.py"),
        "",
        "Time per call, and in brackets the padded-rows time (the graph as declared, what every "
        "call cost before the fast path) ÷ this one.",
        "",
        "| program | " + " | ".join(PEERS) + " |",
        "|" + "---|" * (len(PEERS) + 1),
    ]
    for name in PROGRAMS:
        slow = medians["any, padded rows"][name]
        cells = [
            f"{microseconds(medians[p][name])} ({slow / medians[p][name]:.2f}x)"
            if name in medians[p]
            else "— (numba cannot compile it)"
            for p in PEERS
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    print(text)
    write_section("contiguous", text)


if __name__ == "__main__":
    main()
