"""Build a workload's numba peer with numba.pycc (numba's deprecated AOT), for ``bench_builds.py``.

    python pycc_build.py probe GRAPHS_TOML PEER_MODULE          # the graphs numba compiles
    python pycc_build.py build GRAPHS_TOML PEER_MODULE OUT_DIR NAME GRAPH,GRAPH,...

Exports graphs of GRAPHS_TOML that the peer module (``numba_example`` or a generated
``model_njit``, found on ``sys.path``) defines, with the graph's declared signature — parsed by
aotbuild's own grammar and converted to numba types as aotbuild does, so both compile the same
signatures. pycc compiles all or nothing, so ``probe`` first finds, in a process of its own (not
timed), the graphs numba compiles with their declared signatures; ``build`` exports those.
Both print the graph names as JSON.
"""

import importlib
import json
import sys
import warnings
from pathlib import Path

import tomllib

warnings.simplefilter("ignore")  # pycc's deprecation warning


def peer_functions(module_name: str) -> dict:
    module = importlib.import_module(module_name)
    return getattr(module, "GRAPHS", None) or vars(module)


def signatures(graphs_toml: Path, module_name: str) -> dict:
    """The peer's function and numba signature of each graph it defines."""
    from aotbuild.compile.numba_types import signature_to_numba
    from aotbuild.config.signature import parse_signature

    sys.path.insert(0, str(graphs_toml.parent))
    functions = peer_functions(module_name)
    found = {}
    for graph, table in tomllib.loads(graphs_toml.read_text())["graphs"].items():
        if graph in functions:
            argtypes, restype = signature_to_numba(parse_signature(table["signature"]))
            found[graph] = (functions[graph], restype(*argtypes))
    return found


def probe(graphs_toml: Path, module_name: str) -> list[str]:
    compiled = []
    for graph, (function, signature) in signatures(graphs_toml, module_name).items():
        try:
            function.compile(signature)
        except Exception:
            continue
        compiled.append(graph)
    return compiled


def build(graphs_toml: Path, module_name: str, out: Path, name: str, only: list[str]) -> list[str]:
    from numba.pycc import CC

    cc = CC(name)
    cc.output_dir = str(out)
    for graph, (function, signature) in signatures(graphs_toml, module_name).items():
        if graph in only:
            cc.export(graph, signature)(function.py_func)
    cc.compile()
    return only


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        print(json.dumps(probe(Path(sys.argv[2]), sys.argv[3])))
    else:
        toml, module, out, name, only = sys.argv[2:]
        print(json.dumps(build(Path(toml), module, Path(out), name, only.split(","))))
