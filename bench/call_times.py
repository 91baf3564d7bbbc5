"""Time every graph of a workload under each peer, in one process, for ``bench_builds.py``.

    python call_times.py WORKLOAD PROJECT_DIR PACKAGE_DIR PYCC_DIR PEER_MODULE

Prints JSON: for each graph, seconds per call under aotbuild (the built package), numba's JIT
(the peer module, compiled before timing), numba.pycc (where it exported the graph) and NumPy
(the function as written; a NumPy equivalent for kernels), and the same for a tiny call.
Each figure is the median of 7 rounds of a loop sized to take ~20 ms; each round times every
peer of a graph in turn, the order rotating, so that a change in the machine's load falls on all
of them. Before anything, glibc's malloc is settled (``common.settle_malloc``): unsettled, the
peer timed first paid page faults for every large temporary (the example's
``normalize_channels``, 3x256x256 float32: 758 against 167 us for aotbuild, 812 against 180 us
for NumPy, one process each).
"""

from __future__ import annotations

import importlib
import json
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np
import tomllib
import workloads
from common import settle_malloc

#: NumPy's own version of kernels (their Python loops would measure the interpreter).
NUMPY_EQUIVALENTS: dict[str, Callable] = {
    "det": np.linalg.det,
    "slogdet": np.linalg.slogdet,
    "running_max": np.maximum.accumulate,
}


ROUNDS = 7


def per_call(functions: dict[str, Callable | None], args: tuple) -> dict[str, float | None]:
    """Seconds per call of each function (None: the peer has none), in interleaved rounds."""
    present = {name: f for name, f in functions.items() if f is not None}
    numbers = {}
    for name, function in present.items():
        function(*args)
        once = timeit.timeit(lambda f=function: f(*args), number=1)
        numbers[name] = max(1, min(100_000, int(0.02 / max(once, 1e-7))))
    times: dict[str, list[float]] = {name: [] for name in present}
    names = list(present)
    for round_ in range(ROUNDS):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            loop = timeit.timeit(lambda f=present[name]: f(*args), number=numbers[name])
            times[name].append(loop / numbers[name])
    return {name: statistics.median(times[name]) if name in times else None for name in functions}


def numpy_functions(project: Path) -> dict[str, Callable]:
    """Each graph's function as written, imported as graphs.toml names it."""
    functions = {}
    for graph, table in tomllib.loads((project / "graphs.toml").read_text())["graphs"].items():
        module, name = table["function"].split(":")
        functions[graph] = NUMPY_EQUIVALENTS.get(graph) or getattr(importlib.import_module(module), name)
    return functions


def main(workload: str, project: Path, package_dir: Path, pycc_dir: Path, peer: str) -> dict:
    settle_malloc()
    sys.path[:0] = [str(package_dir), str(pycc_dir), str(project)]
    package = importlib.import_module(f"{workload}_ext")
    pycc = importlib.import_module(f"{workload}_pycc")
    njit = importlib.import_module(peer)
    njit_functions = getattr(njit, "GRAPHS", None) or vars(njit)
    numpy = numpy_functions(project)
    inputs = workloads.example_inputs() if workload == "example" else workloads.generated_inputs()
    tiny_graph, tiny_args = workloads.tiny_call(workload)
    inputs[f"tiny call: {tiny_graph}"] = tiny_args
    results = {}
    for case, args in inputs.items():
        graph = case.removeprefix("tiny call: ")
        peers = {
            "aotbuild": getattr(package, graph),
            "numba JIT": njit_functions[graph],
            "numba.pycc": getattr(pycc, graph, None),
            "NumPy": numpy[graph],
        }
        results[case] = per_call(peers, args)
    return results


if __name__ == "__main__":
    workload, project, package_dir, pycc_dir, peer = sys.argv[1:]
    print(json.dumps(main(workload, Path(project), Path(package_dir), Path(pycc_dir), peer)))
