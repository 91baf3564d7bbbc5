"""numba's JIT compiling a workload's peer module in a new process, for ``bench_builds.py``.

    python jit_compile.py WORKLOAD PROJECT_DIR PEER_MODULE

Imports numba, then the peer module, then calls every graph once with the benchmark's
arguments — the first call compiles it (or loads it from numba's cache under
``NUMBA_PEER_CACHE=1``). Prints JSON: seconds for each step.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path

import workloads


def main(workload: str, project: Path, peer: str) -> dict[str, float]:
    sys.path.insert(0, str(project))
    started = time.perf_counter()
    import numba  # noqa: F401

    numba_imported = time.perf_counter()
    module = importlib.import_module(peer)
    functions = getattr(module, "GRAPHS", None) or vars(module)
    imported = time.perf_counter()
    inputs = workloads.example_inputs() if workload == "example" else workloads.generated_inputs()
    for graph, args in inputs.items():
        functions[graph](*args)
    return {
        "import_numba": numba_imported - started,
        "import_module": imported - numba_imported,
        "first_calls": time.perf_counter() - imported,
    }


if __name__ == "__main__":
    workload, project, peer = sys.argv[1:]
    print(json.dumps(main(workload, Path(project), peer)))
