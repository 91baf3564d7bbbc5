"""Time every graph of a workload under each peer, in one process, for ``bench_builds.py``.

    python call_times.py WORKLOAD PROJECT_DIR PACKAGE_DIR PYCC_DIR PEER_MODULE

Prints JSON: for each graph, seconds per call under aotbuild (the built package), numba's JIT
(the peer module, compiled before timing), numba.pycc (where it exported the graph) and NumPy
(the function as written; a NumPy equivalent for kernels), and the same for a tiny call.
Each figure is the median of 7 repeats of a loop sized to take ~20 ms.
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

#: NumPy's own version of kernels (their Python loops would measure the interpreter).
NUMPY_EQUIVALENTS: dict[str, Callable] = {
    "det": np.linalg.det,
    "slogdet": np.linalg.slogdet,
    "running_max": np.maximum.accumulate,
}


def per_call(function: Callable, args: tuple) -> float:
    function(*args)
    once = timeit.timeit(lambda: function(*args), number=1)
    number = max(1, min(100_000, int(0.02 / max(once, 1e-7))))
    return statistics.median(timeit.repeat(lambda: function(*args), number=number, repeat=7)) / number


def numpy_functions(project: Path) -> dict[str, Callable]:
    """Each graph's function as written, imported as graphs.toml names it."""
    functions = {}
    for graph, table in tomllib.loads((project / "graphs.toml").read_text())["graphs"].items():
        module, name = table["function"].split(":")
        functions[graph] = NUMPY_EQUIVALENTS.get(graph) or getattr(importlib.import_module(module), name)
    return functions


def main(workload: str, project: Path, package_dir: Path, pycc_dir: Path, peer: str) -> dict:
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
        results[case] = {name: per_call(f, args) if f else None for name, f in peers.items()}
    return results


if __name__ == "__main__":
    workload, project, package_dir, pycc_dir, peer = sys.argv[1:]
    print(json.dumps(main(workload, Path(project), Path(package_dir), Path(pycc_dir), peer)))
